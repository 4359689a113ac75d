//! A sensible player, also the fallback for a seat that lets its time run
//! out, and the list of legal commands offered to players.

use runestone_engine::{GameRng, Seat, Seed};

use crate::data::{data, Ability};
use runestone_engine::program::Fallback;

use crate::state::{AttackOrder, Command, InvasionOrder, InvasionPath, Move, Phase, ProgramStep, State, Step, TRACK};
use crate::turn::{ability, building_spots, copyable, fixed_points, needs_target, targets};
use crate::{pending, Ctx};

/// Whether `decide` would accept `c` (tried on a copy with a throwaway seed:
/// only legality is asked, never the dice; the other seats' programs are
/// left out of the copy, so nothing of them runs or is learnt).
pub fn accepts(s: &State, seat: Seat, c: &Command) -> bool {
    let mut rng = GameRng::new(Seed([0; 32]), 0);
    let mut cx = Ctx::new(without_programs(s), &mut rng);
    crate::run(&mut cx, seat, c).is_ok()
}

/// The position without any seat's secret program (version 2).
fn without_programs(s: &State) -> State {
    let mut h = s.clone();
    for p in h.players.iter_mut() {
        p.program = None;
        p.places.clear();
        p.at_invasion = InvasionOrder::Ask;
    }
    h
}

/// Version 2: the bot's god and starting placements, written before
/// anyone has placed: the cities it would take on the empty map, each with
/// the bot's own choice as its fallback (the map will have filled by then).
pub fn setup(s: &State, seat: Seat, god: u8) -> Command {
    let mut h = without_programs(s);
    let mut places = Vec::new();
    for _ in 0..crate::program::PLACES {
        let Some(Command::PlaceGroup { city }) = placement(&h, seat) else { break };
        let temple = h.players[seat as usize].placed == 0;
        crate::state::apply(&mut h, &crate::state::Event::GroupPlaced { seat, city, temple });
        places.push(ProgramStep::new(Command::PlaceGroup { city }, Fallback::Bot));
    }
    Command::Setup { god, places }
}

/// Version 2: the bot's program of its coming turn, written from the
/// position it sees now (nothing of the other seats' programs): the turn it
/// would play if it began now, every step falling back to the bot's own
/// choice when the turn comes; at the invasion, the bot decides then.
pub fn program(s: &State, seat: Seat) -> Command {
    let mut h = without_programs(s);
    let turn = s.turn;
    crate::state::apply(&mut h, &crate::state::Event::TurnBegan { seat, turn });
    let mut rng = GameRng::new(Seed([0; 32]), 0);
    let mut cx = Ctx::new(h, &mut rng);
    crate::turn::advance(&mut cx);
    let mut steps = Vec::new();
    // Version 3: standing defence orders first, when the bot's differ.
    if let Some(c) = defence(&cx.s, seat).filter(|c| crate::run(&mut cx, seat, c).is_ok()) {
        steps.push(ProgramStep::new(c, Fallback::Bot));
    }
    for _ in 0..crate::program::MAX_STEPS {
        let s = &cx.s;
        if s.phase != Phase::Players || s.current != seat || s.turn != turn || s.asked.is_some() {
            break;
        }
        let Some(c) = command(s, seat) else { break };
        if crate::run(&mut cx, seat, &c).is_err() {
            break;
        }
        let last = matches!(c, Command::Move { .. });
        steps.push(ProgramStep::new(c, Fallback::Bot));
        if last {
            // The movement ends the player phase.
            break;
        }
    }
    Command::Program { steps, invasion: InvasionOrder::Bot }
}

/// A sample of the legal commands (every choice where the choices are few;
/// a representative few where they are many), each built by the rules'
/// own helpers; nothing here asks `decide`.
pub fn legal(s: &State, seat: Seat) -> Vec<Command> {
    if !pending(s).iter().any(|p| p.seat == seat) {
        return Vec::new();
    }
    let mut v: Vec<Command> = Vec::new();
    match s.phase {
        Phase::ChooseGods => {
            for &g in s.players[seat as usize].dealt.iter().flatten() {
                v.push(Command::ChooseGod { god: g });
            }
            if s.rules.version >= 2 {
                v.extend(command(s, seat));
            }
        }
        Phase::Programs => {
            v.push(Command::Program { steps: Vec::new(), invasion: InvasionOrder::Ask });
            v.push(program(s, seat));
        }
        Phase::Placement => {
            for c in crate::setup::placeable(s, seat) {
                v.push(Command::PlaceGroup { city: c });
            }
        }
        Phase::Players if s.asked.is_some() => v.extend(answers(s, seat)),
        Phase::Players => match s.step {
            Step::God => {
                v.push(Command::SkipGod);
                if let Some(a) = ability(s, seat) {
                    let options: Vec<(Option<u8>, Ability)> = if a == Ability::Copy {
                        copyable(s, seat).into_iter().map(|g| (Some(g), data().gods[g as usize].ability)).collect()
                    } else {
                        vec![(None, a)]
                    };
                    for (copy, a) in options {
                        if needs_target(a) {
                            for t in targets(s, seat, a) {
                                v.push(Command::UseGod { target: Some(t), copy });
                            }
                        } else {
                            v.push(Command::UseGod { target: None, copy });
                        }
                    }
                }
            }
            Step::Produce => {
                let (_, free) = fixed_points(s, seat);
                for k in 0..3 {
                    let mut f = [0; 3];
                    f[k] = free;
                    v.push(Command::Produce { free: f });
                }
                v.push(Command::Produce { free: allocate(s, seat) });
            }
            Step::Take => {
                let p = &s.players[seat as usize];
                if p.owed[2] > 0 {
                    v.extend(s.knowledge_shown.iter().map(|&card| Command::TakeKnowledge { card }));
                }
                if p.owed[1] > 0 {
                    v.extend(s.building_shown.iter().map(|&tile| Command::TakeBuilding { tile }));
                }
            }
            Step::Place => {
                let owed = s.players[seat as usize].owed[0] as usize;
                let b = place_buildings(s, seat);
                for c in s.controlled(seat) {
                    v.push(Command::PlaceProduced { units: vec![c; owed], buildings: b.clone() });
                }
                v.push(place(s, seat));
            }
            Step::Move => {
                v.push(Command::Move { moves: Vec::new(), attacks: Vec::new() });
                // The bot's own plan, which it has checked.
                if let Some(m) = command(s, seat) {
                    v.push(m);
                }
            }
        },
        Phase::Invasion => {
            v.push(Command::PassInvasion);
            if let Some(c) = command(s, seat) {
                v.push(c);
            }
        }
        _ => {}
    }
    // Not filtered through `decide`: the playout test checks that every
    // command listed here is accepted, so a wrong list fails it.
    let mut seen = Vec::new();
    v.retain(|c| {
        let new = !seen.contains(c);
        seen.push(c.clone());
        new
    });
    v
}

/// The bot's command for `seat`, if it is asked anything.
pub fn command(s: &State, seat: Seat) -> Option<Command> {
    if !pending(s).iter().any(|p| p.seat == seat) {
        return None;
    }
    let c = match s.phase {
        Phase::ChooseGods => {
            let dealt = s.players[seat as usize].dealt.clone().unwrap_or_default();
            let g = dealt
                .iter()
                .copied()
                .max_by_key(|&g| {
                    let x = &data().gods[g as usize];
                    (x.ability != Ability::None, x.intimidation)
                })
                .unwrap_or(0);
            if s.rules.version >= 2 {
                return Some(setup(s, seat, g));
            }
            Command::ChooseGod { god: g }
        }
        Phase::Programs => program(s, seat),
        Phase::Placement => return placement(s, seat),
        // The standing default, as if asked nothing: the side retreats as its
        // orders said.
        Phase::Players if s.asked.is_some() => Command::AnswerBattle { retreat: true, to: None },
        Phase::Players => match s.step {
            Step::God => god(s, seat),
            Step::Produce => Command::Produce { free: allocate(s, seat) },
            Step::Take => {
                let p = &s.players[seat as usize];
                if p.owed[2] > 0 && !s.knowledge_shown.is_empty() {
                    Command::TakeKnowledge { card: s.knowledge_shown[0] }
                } else {
                    Command::TakeBuilding { tile: s.building_shown.first().copied().unwrap_or(0) }
                }
            }
            Step::Place => place(s, seat),
            Step::Move => {
                let m = movement(s, seat);
                if accepts(s, seat, &m) {
                    m
                } else {
                    Command::Move { moves: Vec::new(), attacks: Vec::new() }
                }
            }
        },
        Phase::Invasion => invasion(s, seat).filter(|c| accepts(s, seat, c)).unwrap_or(Command::PassInvasion),
        _ => return None,
    };
    Some(c)
}

/// Version 3: the bot's standing defence orders, if they differ from the
/// seat's: defenders down to one unit retreat (5.2.3) to the strongest
/// neighbour, except in the temple's city, which fights to the last; a
/// kingdom surrendered to it is completed from its own cities (7.2.2).
/// Whether the seat asked to be asked is kept.
fn defence(s: &State, seat: Seat) -> Option<Command> {
    if s.rules.version < 3 {
        return None;
    }
    let now = &s.players[seat as usize].defence;
    let mut d = now.clone();
    d.retreat_at = d.retreat_at.max(1);
    d.per_city = s.temple_of(seat).map(|t| (t, 0)).into_iter().collect();
    d.complete_from_board = true;
    (d != *now).then_some(Command::SetDefence { defence: d })
}

/// The bot's starting placement for `seat` (3.8).
fn placement(s: &State, seat: Seat) -> Option<Command> {
    let c = match s.phase {
        Phase::ChooseGods | Phase::Placement => {
            let ok = crate::setup::placeable(s, seat);
            let score = |c: u8| -> i32 {
                let b = &s.board.cities[c as usize];
                let mine = s.cities[c as usize].owner == Some(seat);
                let open = s.board.adjacent(c).iter().filter(|&&a| s.cities[a as usize].owner.is_none()).count() as i32;
                (if mine { -5 - s.cities[c as usize].units as i32 } else { 10 })
                    + open * 2
                    + b.port as i32
                    + if b.shape == Some(crate::data::Shape::Square) { 3 } else { 0 }
            };
            let c = ok.iter().copied().max_by_key(|&c| (score(c), std::cmp::Reverse(c)))?;
            Command::PlaceGroup { city: c }
        }
        _ => return None,
    };
    Some(c)
}

/// The answers to an asked battle: roll on, retreat as the standing orders
/// say, and (a defender) retreat to each city it may.
fn answers(s: &State, seat: Seat) -> Vec<Command> {
    let mut v = vec![Command::AnswerBattle { retreat: false, to: None }];
    let (Some(a), Some(b)) = (&s.asked, &s.battle) else { return v };
    if a.attacker {
        v.push(Command::AnswerBattle { retreat: true, to: None });
    } else {
        let refuges = crate::battle::refuges(s, seat, b.city);
        if !refuges.is_empty() {
            v.push(Command::AnswerBattle { retreat: true, to: None });
        }
        v.extend(refuges.into_iter().map(|c| Command::AnswerBattle { retreat: true, to: Some(c) }));
    }
    v
}

fn god(s: &State, seat: Seat) -> Command {
    let Some(a) = ability(s, seat) else { return Command::SkipGod };
    let (copy, a) = if a == Ability::Copy {
        match copyable(s, seat).into_iter().find(|&g| {
            !needs_target(data().gods[g as usize].ability)
                || !targets(s, seat, data().gods[g as usize].ability).is_empty()
        }) {
            Some(g) => (Some(g), data().gods[g as usize].ability),
            None => return Command::SkipGod,
        }
    } else {
        (None, a)
    };
    if !needs_target(a) {
        return Command::UseGod { target: None, copy };
    }
    let t = targets(s, seat, a);
    let pick = if a == Ability::ExtraUnit {
        t.iter().copied().max_by_key(|&c| frontier(s, seat, c))
    } else {
        t.iter().copied().min_by_key(|&c| s.cities[c as usize].units)
    };
    match pick {
        Some(c) => Command::UseGod { target: Some(c), copy },
        None => Command::SkipGod,
    }
}

/// Enemy units next to `c`.
fn frontier(s: &State, seat: Seat, c: u8) -> u32 {
    s.board
        .adjacent(c)
        .iter()
        .filter(|&&a| s.cities[a as usize].owner.is_some_and(|o| o != seat))
        .map(|&a| s.cities[a as usize].units as u32)
        .sum()
}

/// Spend the free points where they complete something soonest.
pub fn allocate(s: &State, seat: Seat) -> [u8; 3] {
    let (fixed, free) = fixed_points(s, seat);
    let p = &s.players[seat as usize];
    let avail = [s.pool(seat) > 0, !s.building_shown.is_empty(), !s.knowledge_shown.is_empty()];
    let mut alloc = [0u8; 3];
    for _ in 0..free {
        let best = (0..3)
            .filter(|&k| avail[k])
            .min_by_key(|&k| {
                let total = p.tracks[k] as u16 + fixed[k] as u16 + alloc[k] as u16;
                let need = TRACK[k] as u16;
                (need - total % need, std::cmp::Reverse(k))
            })
            .unwrap_or(2);
        alloc[best] += 1;
    }
    alloc
}

fn place_buildings(s: &State, seat: Seat) -> Vec<(u8, u8)> {
    let spots = building_spots(s, seat);
    s.players[seat as usize].sheet.iter().copied().zip(spots).collect()
}

fn place(s: &State, seat: Seat) -> Command {
    let owed = s.players[seat as usize].owed[0] as usize;
    let mine = s.controlled(seat);
    let mut units = Vec::new();
    let mut count: Vec<u32> = mine.iter().map(|&c| s.cities[c as usize].units as u32).collect();
    for _ in 0..owed {
        // The city under most threat for its size.
        let k = (0..mine.len())
            .max_by_key(|&i| (frontier(s, seat, mine[i]) as i64 * 2 - count[i] as i64, std::cmp::Reverse(i)))
            .unwrap_or(0);
        if let Some(&c) = mine.get(k) {
            units.push(c);
            count[k] += 1;
        }
    }
    Command::PlaceProduced { units, buildings: place_buildings(s, seat) }
}

/// Attack weaker neighbours from strong cities, expand into empty ones.
pub fn movement(s: &State, seat: Seat) -> Command {
    let v3 = s.rules.version >= 3;
    let mut moves: Vec<Move> = Vec::new();
    let mut attacks: Vec<AttackOrder> = Vec::new();
    let mut targeted: Vec<u8> = Vec::new();
    for c in s.controlled(seat) {
        let units = s.cities[c as usize].units;
        if units < 3 {
            continue;
        }
        let near = s.board.adjacent(c);
        let enemy = near
            .iter()
            .copied()
            .filter(|&a| s.cities[a as usize].owner.is_some_and(|o| o != seat) && !targeted.contains(&a))
            .filter(|&a| s.cities[a as usize].units + 1 < units)
            .min_by_key(|&a| s.cities[a as usize].units);
        if let Some(t) = enemy {
            targeted.push(t);
            moves.push(Move { from: c, to: t, units: units - 1 });
            let rampage = s
                .board
                .road_adjacent(t)
                .into_iter()
                .filter(|&r| s.cities[r as usize].owner.is_some_and(|o| o != seat) && !near.contains(&r))
                .min_by_key(|&r| s.cities[r as usize].units);
            // On even turns the bot asks to be asked before its last unit
            // rolls (and then answers as ordered), so that path is played too.
            // (Version 1 only: under version 2 the bot's turn is one program.)
            let ask = s.turn.is_multiple_of(2) && s.rules.version < 2;
            // Version 3: an attack after the first is called off if a
            // battle before it was lost (5.2.3).
            let call_off_if_lost = v3 && !attacks.is_empty();
            attacks.push(AttackOrder {
                city: t,
                retreat_at: 1,
                rampage,
                rampage_units: None,
                occupy: true,
                call_off_if_lost,
                ask,
            });
            continue;
        }
        if let Some(e) = near.iter().copied().find(|&a| s.cities[a as usize].owner.is_none() && !targeted.contains(&a))
        {
            targeted.push(e);
            moves.push(Move { from: c, to: e, units: units / 2 });
            // Version 3: moving into an empty city, rampage from it into a
            // weak enemy city next to it by road (5.2.6 "or if the city is empty").
            if v3 && units / 2 >= 2 {
                let weak = s
                    .board
                    .road_adjacent(e)
                    .into_iter()
                    .filter(|&r| s.cities[r as usize].owner.is_some_and(|o| o != seat) && !near.contains(&r))
                    .filter(|&r| s.cities[r as usize].units <= 2)
                    .min_by_key(|&r| s.cities[r as usize].units);
                if let Some(r) = weak {
                    attacks.push(AttackOrder { rampage: Some(r), ..AttackOrder::plain(e) });
                }
            }
        }
    }
    attacks.retain(|a| a.rampage.is_none_or(|r| !targeted.contains(&r)));
    Command::Move { moves, attacks }
}

/// Invade when the kingdom is gone or small.
pub fn invasion(s: &State, seat: Seat) -> Option<Command> {
    let cities = s.controlled(seat).len();
    if s.has_kingdom(seat) && cities > 3 {
        return None;
    }
    let v3 = s.rules.version >= 3;
    let heirs = crate::invasion::heirs(s, seat);
    let surrender_to =
        if s.has_kingdom(seat) { heirs.iter().copied().min_by_key(|&h| s.controlled(h).len()) } else { None };
    let open = |c: u8| !crate::invasion::guarded(s, c) && s.cities[c as usize].owner != Some(seat);
    let mut paths: Vec<InvasionPath> = Vec::new();
    let mut used: Vec<usize> = Vec::new();
    let mut taken: Vec<u8> = Vec::new();
    let n = s.board.paths.len();
    // Start at the open arrow whose city has fewest units, then take neighbours.
    let start = (0..n)
        .filter(|&p| crate::invasion::open_path(s, p as u8) && open(s.board.paths[p].city))
        .min_by_key(|&p| s.cities[s.board.paths[p].city as usize].units)?;
    let depth = s.rules.cities_per_path as usize;
    let weakest = |v: Vec<u8>, taken: &[u8]| {
        v.into_iter().filter(|&c| open(c) && !taken.contains(&c)).min_by_key(|&c| s.cities[c as usize].units)
    };
    let mut queue = vec![start];
    while let Some(p) = queue.pop() {
        if paths.len() >= 3 {
            break;
        }
        let path = &s.board.paths[p];
        let city = path.city;
        if used.contains(&p) || !crate::invasion::open_path(s, p as u8) {
            continue;
        }
        if v3 && path.sea && taken.contains(&city) {
            // 7.2.3, 7.2.5: a second arrow into a port taken before: go on
            // from it by a navigation route (two cities) or by road (one).
            let by_sea = weakest(s.board.sea_adjacent(city), &taken);
            let Some(first) = by_sea.or_else(|| weakest(s.board.road_adjacent(city), &taken)) else { continue };
            let then: Vec<u8> = match by_sea {
                Some(_) if depth > 1 => weakest(s.board.road_adjacent(first), &taken).into_iter().collect(),
                _ => Vec::new(),
            };
            used.push(p);
            taken.push(first);
            taken.extend(&then);
            paths.push(InvasionPath { path: p as u8, first, then });
        } else if v3 && crate::invasion::guarded(s, city) && !paths.is_empty() {
            // The "Invasion Blockers" box: an arrow into a temple takes the blocker only.
            used.push(p);
            paths.push(InvasionPath { path: p as u8, first: city, then: Vec::new() });
            continue;
        } else {
            if !open(city) || taken.contains(&city) {
                continue;
            }
            used.push(p);
            taken.push(city);
            let then: Vec<u8> = weakest(s.board.road_adjacent(city), &taken).into_iter().collect();
            taken.extend(&then);
            paths.push(InvasionPath { path: p as u8, first: city, then });
        }
        queue.insert(0, (p + 1) % n);
        queue.insert(0, (p + n - 1) % n);
    }
    // Version 3: the temple in the first city taken (7.2.6), and the
    // reserve's units stacked first where the invasion began, on the edge.
    let (temple, stack) = match (v3, paths.first()) {
        (true, Some(f)) => (Some(f.first), vec![(f.then.last().copied().unwrap_or(f.first), 3)]),
        _ => (None, Vec::new()),
    };
    let c = Command::Invade { surrender_to, paths: paths.clone(), temple, stack: stack.clone() };
    if accepts(s, seat, &c) {
        return Some(c);
    }
    paths.truncate(1);
    paths[0].then.clear();
    Some(Command::Invade { surrender_to, paths, temple, stack })
}
