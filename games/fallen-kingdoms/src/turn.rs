//! The player phase (1.2 A): the god's ability (4.1), production (4.2-4.4)
//! and the placement of what was produced (4.5); the steps that need no
//! input, and the passing from one player's phase to the next.

use runestone_engine::{reject, RuleError, Seat};

use crate::data::{data, Ability, Effect, Resource, Shape};
use crate::state::{Event, Phase, State, Step, COMPENSATION, TRACK};
use crate::Ctx;

fn in_step(s: &State, seat: Seat, step: Step) -> Result<(), RuleError> {
    if s.phase != Phase::Players || s.current != seat {
        reject!("it is not your turn");
    }
    if s.step != step {
        reject!("that is not the step of your turn now: {}", step_words(s.step));
    }
    Ok(())
}

pub fn step_words(s: Step) -> &'static str {
    match s {
        Step::God => "first use or skip your god's ability",
        Step::Produce => "first spend your production points",
        Step::Take => "first take what you produced",
        Step::Place => "first place your new units and buildings",
        Step::Move => "only the movement is left",
    }
}

/// Whether a god power may touch `city`: cities holding an enemy temple are
/// immune (4.1), unless temples are powered down (8.6).
pub fn immune(s: &State, seat: Seat, city: u8) -> bool {
    !s.rules.powered_down_temples && s.cities[city as usize].temple.is_some_and(|t| t != seat)
}

/// The ability `seat` may use this turn: its god's, if its temple is in play (4.1).
pub fn ability(s: &State, seat: Seat) -> Option<Ability> {
    let g = s.players[seat as usize].god?;
    let a = data().gods[g as usize].ability;
    (s.temple_of(seat).is_some() && a != Ability::None).then_some(a)
}

/// The gods whose ability a copying god may use: any other god in play with one.
pub fn copyable(s: &State, seat: Seat) -> Vec<u8> {
    let mut v: Vec<u8> = s
        .players
        .iter()
        .enumerate()
        .filter(|(k, _)| *k != seat as usize)
        .filter_map(|(_, p)| p.god)
        .filter(|&g| !matches!(data().gods[g as usize].ability, Ability::None | Ability::Copy))
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Cities an ability may target.
pub fn targets(s: &State, seat: Seat, a: Ability) -> Vec<u8> {
    let n = s.cities.len() as u8;
    let near_mine = |c: u8| s.board.adjacent(c).iter().any(|&x| s.cities[x as usize].owner == Some(seat));
    match a {
        Ability::CaptureTemple => (0..n)
            .filter(|&c| {
                let x = &s.cities[c as usize];
                x.temple.is_some_and(|t| t != seat) && x.owner != Some(seat) && near_mine(c) && !immune(s, seat, c)
            })
            .collect(),
        Ability::Strike => (0..n)
            .filter(|&c| {
                let x = &s.cities[c as usize];
                x.owner.is_some_and(|o| o != seat) && near_mine(c) && !immune(s, seat, c)
            })
            .collect(),
        Ability::ExtraUnit if s.pool(seat) > 0 => s.controlled(seat),
        _ => Vec::new(),
    }
}

pub fn needs_target(a: Ability) -> bool {
    matches!(a, Ability::CaptureTemple | Ability::Strike | Ability::ExtraUnit)
}

pub fn use_god(cx: &mut Ctx, seat: Seat, target: Option<u8>, copy: Option<u8>) -> Result<(), RuleError> {
    in_step(&cx.s, seat, Step::God)?;
    let Some(own) = ability(&cx.s, seat) else {
        reject!("your god's ability needs your temple in play");
    };
    let god = cx.s.players[seat as usize].god.expect("god in play");
    let (used_god, a) = if own == Ability::Copy {
        let Some(c) = copy else {
            reject!("name the god whose ability you use");
        };
        if !copyable(&cx.s, seat).contains(&c) {
            reject!("you may only use the ability of another god in play that has one");
        }
        (c, data().gods[c as usize].ability)
    } else {
        if copy.is_some() {
            reject!("your god cannot use another god's ability");
        }
        (god, own)
    };
    if needs_target(a) {
        let Some(t) = target else {
            reject!("this ability needs a target city");
        };
        if t as usize >= cx.s.cities.len() {
            reject!("there is no city {t} on this map");
        }
        if !targets(&cx.s, seat, a).contains(&t) {
            if immune(&cx.s, seat, t) {
                reject!("{} holds an enemy temple: it is immune to god powers", cx.s.city_name(t));
            }
            reject!("{} is not a city this ability can reach", cx.s.city_name(t));
        }
    }
    cx.emit(Event::GodPower { seat, god: used_god, target });
    let points = data().gods[used_god as usize].points;
    match a {
        Ability::CaptureTemple => {
            let t = target.expect("checked");
            cx.emit(Event::TempleDestroyed { city: t });
            cx.draw_rumor(seat);
        }
        Ability::ExtraUnit => cx.emit(Event::UnitPlaced { seat, city: target.expect("checked") }),
        Ability::Strike => {
            let t = target.expect("checked");
            let victim = cx.s.cities[t as usize].owner.expect("enemy city");
            cx.emit(Event::UnitsKilled { city: t, units: 1 });
            crate::battle::check_fall(cx, victim, Some(seat));
        }
        Ability::UnitPoints => cx.emit(Event::TrackPoints { seat, track: 0, points }),
        Ability::BuildingPoints => cx.emit(Event::TrackPoints { seat, track: 1, points }),
        Ability::KnowledgePoints => cx.emit(Event::TrackPoints { seat, track: 2, points }),
        Ability::Glory => cx.glory(seat, points as i32, "god's ability"),
        Ability::None | Ability::Copy => {}
    }
    cx.emit(Event::StepReached { step: Step::Produce });
    Ok(())
}

pub fn skip_god(cx: &mut Ctx, seat: Seat) -> Result<(), RuleError> {
    in_step(&cx.s, seat, Step::God)?;
    cx.emit(Event::StepReached { step: Step::Produce });
    Ok(())
}

/// The production points that need no choice (4.4.1, 4.4.2 and knowledge),
/// per track, and the free points of cities and ports (4.4.3).
pub fn fixed_points(s: &State, seat: Seat) -> ([u8; 3], u8) {
    let d = data();
    let mut pts = [0u8; 3];
    let mut free = 0u8;
    let bonus = |r: Resource| match r {
        Resource::Metal => s.knows_count(seat, Effect::MetalBonus),
        Resource::Wood => s.knows_count(seat, Effect::WoodBonus),
        Resource::Wheat => s.knows_count(seat, Effect::WheatBonus),
    };
    for c in s.controlled(seat) {
        let x = &s.cities[c as usize];
        let b = &s.board.cities[c as usize];
        if let (Some(t), None) = (x.building, x.temple) {
            pts[d.buildings[t as usize].track()] += 2;
        }
        if let (Some(r), Some(shape)) = (b.resource, b.shape) {
            let base = if shape == Shape::Square { 2 } else { 0 };
            pts[r.track()] += base + bonus(r);
        }
        free += 1;
        if b.port {
            free += 1;
            free += s.knows_count(seat, Effect::PortPoints);
        }
    }
    pts[0] += s.knows_count(seat, Effect::UnitPoints);
    pts[1] += s.knows_count(seat, Effect::BuildingPoints);
    pts[2] += s.knows_count(seat, Effect::KnowledgePoints);
    (pts, free)
}

/// What a track total produces: (things produced, points left) (4.2).
pub fn fill(total: u16, track: usize) -> (u8, u8) {
    let need = TRACK[track] as u16;
    ((total / need) as u8, (total % need) as u8)
}

pub fn produce(cx: &mut Ctx, seat: Seat, free: [u8; 3]) -> Result<(), RuleError> {
    in_step(&cx.s, seat, Step::Produce)?;
    let (fixed, have) = fixed_points(&cx.s, seat);
    let spent: u16 = free.iter().map(|&x| x as u16).sum();
    if spent != have as u16 {
        reject!("you have {have} free points from your cities and ports to spend, and you spent {spent}");
    }
    let s = &cx.s;
    let p = &s.players[seat as usize];
    let mut tracks = [0u8; 3];
    let mut made = [0u8; 3];
    let mut added = [0u8; 3];
    for k in 0..3 {
        added[k] = fixed[k] + free[k];
        let total = p.tracks[k] as u16 + added[k] as u16;
        let (n, left) = fill(total, k);
        made[k] = n;
        tracks[k] = left;
    }
    let available = [
        s.pool(seat),
        s.building_shown.len() as u8 + s.building_left,
        s.knowledge_shown.len() as u8 + s.knowledge_left,
    ];
    let mut owed = [0u8; 3];
    let mut comp = 0;
    for k in 0..3 {
        owed[k] = made[k].min(available[k]);
        comp += (made[k] - owed[k]) as i32 * COMPENSATION[k];
    }
    cx.emit(Event::Produced { seat, added, tracks, owed });
    cx.glory(seat, comp, "compensation: a track filled with nothing left to produce");
    cx.emit(Event::StepReached { step: Step::Take });
    Ok(())
}

pub fn take_knowledge(cx: &mut Ctx, seat: Seat, card: u8) -> Result<(), RuleError> {
    in_step(&cx.s, seat, Step::Take)?;
    if cx.s.players[seat as usize].owed[2] == 0 {
        reject!("you did not produce a knowledge card this turn");
    }
    if !cx.s.knowledge_shown.contains(&card) {
        reject!("that knowledge card is not face up");
    }
    cx.emit(Event::KnowledgeTaken { seat, card });
    cx.glory(seat, data().knowledge[card as usize].glory as i32, "knowledge developed");
    if let Some(&next) = cx.s.knowledge_stack.first() {
        cx.emit(Event::KnowledgeShown { card: next });
    }
    Ok(())
}

pub fn take_building(cx: &mut Ctx, seat: Seat, tile: u8) -> Result<(), RuleError> {
    in_step(&cx.s, seat, Step::Take)?;
    if cx.s.players[seat as usize].owed[1] == 0 {
        reject!("you did not produce a building this turn");
    }
    if !cx.s.building_shown.contains(&tile) {
        reject!("that building tile is not face up");
    }
    cx.emit(Event::BuildingTaken { seat, tile });
    if let Some(&next) = cx.s.building_stack.first() {
        cx.emit(Event::BuildingShown { tile: next });
    }
    Ok(())
}

/// Cities where a building may go: controlled, without a building or temple (4.5).
pub fn building_spots(s: &State, seat: Seat) -> Vec<u8> {
    s.controlled(seat)
        .into_iter()
        .filter(|&c| s.cities[c as usize].building.is_none() && s.cities[c as usize].temple.is_none())
        .collect()
}

pub fn place_produced(cx: &mut Ctx, seat: Seat, units: &[u8], buildings: &[(u8, u8)]) -> Result<(), RuleError> {
    in_step(&cx.s, seat, Step::Place)?;
    let p = cx.s.players[seat as usize].clone();
    if units.len() != p.owed[0] as usize {
        reject!("place exactly {} new units, one city each, not {}", p.owed[0], units.len());
    }
    let mine = cx.s.controlled(seat);
    for &c in units {
        if !mine.contains(&c) {
            reject!("new units go only to a city that holds your units, and {} does not", cx.s.city_name(c));
        }
    }
    let spots = building_spots(&cx.s, seat);
    let must = p.sheet.len().min(spots.len());
    if buildings.len() != must {
        reject!("place {must} buildings from your kingdom sheet (one per city you control without one)");
    }
    let mut used = Vec::new();
    let mut tiles = Vec::new();
    for &(t, c) in buildings {
        if !p.sheet.contains(&t) || tiles.contains(&t) {
            reject!("building tile {t} is not waiting on your kingdom sheet");
        }
        if !spots.contains(&c) || used.contains(&c) {
            reject!("{} cannot take a building: a city you control holds only one", cx.s.city_name(c));
        }
        used.push(c);
        tiles.push(t);
    }
    for &c in units {
        cx.emit(Event::UnitPlaced { seat, city: c });
    }
    for &(tile, city) in buildings {
        cx.emit(Event::BuildingPlaced { seat, tile, city });
    }
    cx.emit(Event::StepReached { step: Step::Move });
    Ok(())
}

/// Run the steps that need no input, until someone must decide or the game ends.
pub fn advance(cx: &mut Ctx) {
    for _ in 0..10_000 {
        match cx.s.phase {
            Phase::Players => {
                let seat = cx.s.current;
                match cx.s.step {
                    _ if !cx.s.has_kingdom(seat) && cx.s.step != Step::Move => {
                        // A player without a kingdom has nothing to do in the player phase.
                        end_player_phase(cx);
                    }
                    Step::God if ability(&cx.s, seat).is_none() => cx.emit(Event::StepReached { step: Step::Produce }),
                    Step::Take if cx.s.players[seat as usize].owed[1..].iter().all(|&x| x == 0) => {
                        cx.emit(Event::StepReached { step: Step::Place })
                    }
                    Step::Place
                        if cx.s.players[seat as usize].owed[0] == 0
                            && (cx.s.players[seat as usize].sheet.is_empty()
                                || building_spots(&cx.s, seat).is_empty()) =>
                    {
                        cx.emit(Event::StepReached { step: Step::Move })
                    }
                    _ => {
                        // Version 2: the seat's program, if it gave one, runs now.
                        if !crate::program::run_due(cx) {
                            return;
                        }
                    }
                }
            }
            Phase::Invasion => {
                if !crate::invasion::advance(cx) && !crate::program::run_due(cx) {
                    return;
                }
            }
            Phase::Placement => {
                if !crate::program::run_due(cx) {
                    return;
                }
            }
            _ => return,
        }
    }
}

/// Score the player's turn (6.1) and pass to the next player, or end the turn's player phase.
pub fn end_player_phase(cx: &mut Ctx) {
    let seat = cx.s.current;
    crate::scoring::score_turn(cx, seat);
    cx.emit(Event::TurnEnded { seat });
    if cx.s.played as usize >= cx.s.n() {
        crate::scoring::end_round(cx);
    } else {
        let next = (cx.s.first + cx.s.played) % cx.s.seats;
        let turn = cx.s.turn;
        cx.emit(Event::TurnBegan { seat: next, turn });
    }
}
