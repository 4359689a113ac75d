//! `legal` (a representative list of each decision's commands, every one of
//! which `decide` accepts), the timeout `fallback`, and a sensible bot that
//! uses only what its seat may see.

use runestone_engine::Seat;

use crate::actions::guests;
use crate::council::{proposable, proposed_action, suable};
use crate::data::{data, Action};
use crate::program::{Answers, ChallengeAnswer, Fallback, KeepAnswer, Otherwise, Program, ProgramStep, SwearAnswer};
use crate::rules::{ask_of, execute, Ask};
use crate::state::{
    BandMove, Choices, Choosing, Command, Gift, MurderTarget, OrderDo, Orders, Phase, State, Step, Vote,
};

fn accepted(s: &State, seat: Seat, c: &Command) -> bool {
    let mut probe = s.clone();
    execute(&mut probe, seat, c).is_ok()
}

/// Whether a Subsume of `x` could be accepted (free, a Stead token may stand
/// there, and next to the seat's District or held by its Thingman): a
/// cheap test before the dear one of [`accepted`], which also checks the
/// rest, on a map of many Districts.
fn may_subsume(s: &State, seat: Seat, x: usize) -> bool {
    let map = s.map();
    s.steads[x].is_none()
        && map.settleable(x)
        && map.edges_of(x).any(|e| {
            let (a, b) = map.edges[e];
            s.edges[e][seat as usize] > 0 || s.owner(a) == Some(seat) || s.owner(b) == Some(seat)
        })
}

/// The guest the bot gives to. Before rules version 4 the lowest seat
/// (kept so that older games replay); by version 4 the guest with the
/// least Wordfame, then the nearest clockwise: a gift's Goods help their
/// receiver to Wordfame of its own, so the bot feeds the one furthest from
/// winning, and no seat gains by its number alone (the lowest seat received
/// every tie's gifts).
fn guest_choice(s: &State, seat: Seat) -> Option<Seat> {
    let all = guests(s, seat);
    if s.version < 4 {
        return all.into_iter().next();
    }
    all.into_iter().min_by_key(|o| (s.players[*o as usize].wordfame, (*o + s.seats - seat) % s.seats))
}

/// Whether the seat has a Thingman on `x` (a capture's or burning's need).
fn stands_on(s: &State, seat: Seat, x: usize) -> bool {
    s.map().edges_of(x).any(|e| s.edges[e][seat as usize] > 0)
}

/// Candidate commands for the decision, unfiltered.
fn candidates(s: &State, seat: Seat) -> Vec<Command> {
    let map = s.map();
    let d = data();
    let Some(ask) = ask_of(s, seat) else { return vec![] };
    let p = &s.players[seat as usize];
    let mut out = Vec::new();
    match ask {
        Ask::Season => {
            out.push(Command::Season { program: season_program(s, seat) });
            out.push(Command::Season { program: Program::default() });
        }
        Ask::Propose => out.extend(proposable(s).into_iter().map(|(law, _)| Command::Propose { law })),
        Ask::Vote => {
            out.push(Command::Vote { vote: Vote::Support });
            out.extend(
                suable(s, seat).into_iter().map(|(law, level)| Command::Vote { vote: Vote::Sue { law, level } }),
            );
        }
        Ask::Feud => {
            if s.sealed_feuds {
                out.push(Command::Seal { goods: vec![] });
                out.extend((0..p.wealth.len()).map(|g| Command::Seal { goods: vec![g] }));
                if p.wealth.len() > 1 {
                    out.push(Command::Seal { goods: (0..p.wealth.len()).collect() });
                }
            } else {
                let f = s.feud.as_ref().expect("a feud");
                out.extend((0..p.wealth.len()).map(|good| Command::Commit { good }));
                out.extend(
                    f.conflicts
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| c.present && !c.settled)
                        .map(|(colour, _)| Command::Accept { colour }),
                );
            }
        }
        Ask::Choose(Choosing::Raid) => {
            let n = s.choosing.map(|c| c.2).unwrap_or(0) as usize;
            out.push(Command::Keep { cards: p.hand[..n].to_vec() });
            out.push(Command::Keep { cards: p.hand[p.hand.len() - n..].to_vec() });
        }
        Ask::Choose(Choosing::Pledge) => {
            out.push(Command::Swear { add: None, swaps: vec![] });
            for &c in &p.hand {
                out.push(Command::Swear { add: Some(c), swaps: vec![] });
                if !p.oaths.is_empty() {
                    out.push(Command::Swear { add: None, swaps: vec![(0, c)] });
                }
            }
        }
        Ask::Challenge => {
            out.push(Command::Challenge { fight: true });
            out.push(Command::Challenge { fight: false });
        }
        Ask::Farm => {
            let call = s.farm_calls.front().expect("a farm call");
            out.extend(default_farm_choice(s).into_iter().chain(crate::actions::farm_options(s, call)));
        }
        Ask::Choose(Choosing::Replace) => {
            out.push(Command::Replace { personae: vec![] });
            out.extend(p.hand.iter().map(|&c| Command::Replace { personae: vec![c] }));
        }
        Ask::Resolve(action) => {
            out.push(Command::Pass);
            let st = s.current.as_ref().map(|c| c.strength).unwrap_or(0);
            let mine = s.districts_of(seat);
            match action {
                Action::Settle => {
                    for x in (0..map.districts.len()).filter(|x| may_subsume(s, seat, *x)) {
                        for colour in 0..4 {
                            out.push(Command::Subsume { district: x, colour });
                        }
                    }
                    for &x in &mine {
                        for colour in 0..4 {
                            out.push(Command::Expand { steps: vec![(x, colour)] });
                        }
                    }
                }
                Action::Ride => {
                    let my_edges: Vec<usize> = (0..map.edges.len())
                        .filter(|e| mine.contains(&map.edges[*e].0) || mine.contains(&map.edges[*e].1))
                        .collect();
                    for &e in &my_edges {
                        out.push(Command::Ride { set_forth: vec![e], moves: vec![] });
                        out.push(Command::Ride { set_forth: vec![e; st as usize], moves: vec![] });
                    }
                    for from in 0..map.edges.len() {
                        let n = s.edges[from][seat as usize];
                        if n > 0 {
                            for to in 0..map.edges.len() {
                                if map.touching(from, to) {
                                    out.push(Command::Ride {
                                        set_forth: vec![],
                                        moves: vec![BandMove { from, count: n, path: vec![to] }],
                                    });
                                }
                            }
                        }
                    }
                }
                Action::Raid => {
                    out.extend((1..=st.min(p.longhall)).map(|thingmen| Command::SailOut { thingmen }));
                    out.push(Command::ReturnLaden);
                }
                Action::Pledge => out.push(Command::DrawPledge),
                Action::Foster => {
                    out.extend(p.hird.iter().map(|&persona| Command::SendOff { persona }));
                    out.extend(s.pool.iter().flatten().map(|&persona| Command::FosterPersona { persona }));
                }
                Action::Feast => {
                    for to in guests(s, seat) {
                        for (g, &c) in p.wealth.iter().enumerate() {
                            if d.cards[c as usize].worth <= st {
                                out.push(Command::Give { gifts: vec![Gift { to, goods: vec![g] }] });
                            }
                        }
                    }
                    if !p.oaths.is_empty() {
                        for e in 0..map.edges.len() {
                            for victim in 0..s.seats {
                                if victim != seat && s.edges[e][victim as usize] > 0 {
                                    out.push(Command::Murder { bondi: vec![0], edge: e, victim, also: vec![] });
                                }
                            }
                        }
                        out.extend(murder_all(s, seat));
                        for x in 0..map.districts.len() {
                            if s.owner(x).is_some_and(|o| o != seat) && stands_on(s, seat, x) {
                                if s.arson {
                                    out.push(Command::Burn { bondi: 0, district: x });
                                }
                                out.push(Command::Capture { bondi: 0, weapon: None, district: x, pay: true });
                                if !p.wealth.is_empty() {
                                    out.push(Command::Capture { bondi: 0, weapon: Some(0), district: x, pay: false });
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// The legal commands for `seat` now: the candidates `decide` accepts, the
/// bot's choice first (a combined command the list lacks is added), so a
/// client that takes the first plays as the bot would.
/// Standing orders (`Command::Orders`) are always allowed too but not listed.
pub fn legal(s: &State, seat: Seat) -> Vec<Command> {
    let mut out = listed(s, seat);
    if let Some(best) = choose(s, seat, false) {
        out.retain(|c| *c != best);
        out.insert(0, best);
    }
    out
}

/// The candidates `decide` accepts, in the order they are made.
fn listed(s: &State, seat: Seat) -> Vec<Command> {
    candidates(s, seat).into_iter().filter(|c| accepted(s, seat, c)).collect()
}

/// On a timeout the bot decides for the seat (as it does in `runestone
/// simulate`), without giving standing orders in the seat's name.
pub fn fallback(s: &State, seat: Seat) -> Option<Command> {
    choose(s, seat, false)
}

/// The most passive answer to every decision: support, pass, keep the first
/// cards, swear no Bondi, accept a conflict (committing nothing), seal
/// nothing, let the band pass; the Lawspeaker proposes the first Law allowed.
/// The rules tests step through rounds with it.
pub fn passive(s: &State, seat: Seat) -> Option<Command> {
    let ask = ask_of(s, seat)?;
    Some(match ask {
        Ask::Season => Command::Season { program: Program::default() },
        Ask::Propose => Command::Propose { law: proposable(s).first()?.0 },
        Ask::Vote => Command::Vote { vote: Vote::Support },
        Ask::Resolve(_) => Command::Pass,
        Ask::Challenge => Command::Challenge { fight: false },
        Ask::Farm => default_farm_choice(s)?,
        Ask::Feud if s.sealed_feuds => Command::Seal { goods: vec![] },
        Ask::Feud => {
            let f = s.feud.as_ref()?;
            Command::Accept { colour: f.conflicts.iter().position(|c| c.present && !c.settled)? }
        }
        Ask::Choose(_) => return listed(s, seat).into_iter().next(),
    })
}

/// The bot's standing orders: support what builds and Ride (which empties
/// Longhalls and brings feuds), sue for Settle against Foster.
pub fn bot_orders() -> Orders {
    Orders {
        rules: vec![
            (Action::Settle, OrderDo::Support),
            (Action::Feast, OrderDo::Support),
            (Action::Pledge, OrderDo::Support),
            (Action::Raid, OrderDo::Support),
            (Action::Foster, OrderDo::SueFor { action: Action::Settle }),
            (Action::Ride, OrderDo::Support),
        ],
        otherwise: Some(OrderDo::Support),
    }
}

/// The bot's standing orders while a capture is ready: support a Feast,
/// otherwise sue for one (support where no Feast may be sued for).
pub fn hunting_orders() -> Orders {
    Orders {
        rules: vec![(Action::Feast, OrderDo::Support)],
        otherwise: Some(OrderDo::SueFor { action: Action::Feast }),
    }
}

/// The bot's choice. `standing` makes it give its standing orders at its
/// first decision (so councils resolve without it).
pub fn choose(s: &State, seat: Seat, standing: bool) -> Option<Command> {
    let map = s.map();
    let d = data();
    let p = &s.players[seat as usize];
    if standing {
        // Standing orders: the usual ones, or, when a capture of a rival's
        // District is ready, sue for Feast whenever a Feast may be sued for.
        let want = if capture_choice(s, seat).is_some() { hunting_orders() } else { bot_orders() };
        if p.orders.as_ref() != Some(&want) {
            return Some(Command::Orders { orders: Some(want) });
        }
        // And it chooses the farms it razes or removes and the Foster
        // pool's replacements itself (by rules version 3, which the bot
        // plays to reach every rule).
        let ask = Choices { farm: true, pool: true };
        if s.version >= 3 && p.choices != ask {
            return Some(Command::Choices { choices: ask });
        }
    }
    let legal = listed(s, seat);
    let ask = ask_of(s, seat)?;
    let first = |f: &dyn Fn(&Command) -> bool| legal.iter().find(|c| f(c)).cloned();
    let pick = match ask {
        Ask::Season => Some(Command::Season { program: season_program(s, seat) }),
        Ask::Propose => {
            let want = |a: Action| -> i32 {
                match a {
                    Action::Foster if s.version >= 3 && fosterable(s, seat) => 3,
                    Action::Feast if p.wealth.len() >= 2 && !guests(s, seat).is_empty() => 6,
                    Action::Pledge if p.oaths.len() < s.districts_of(seat).len() => 5,
                    Action::Ride if p.longhall > 2 && prey(s, seat).is_some() => 5,
                    Action::Feast if capture_choice(s, seat).is_some() => 8,
                    Action::Settle if p.small_tokens > 1 || p.large_tokens > 0 => 4,
                    Action::Settle if p.small_tokens == 1 && prey(s, seat).is_none() => 4,
                    Action::Raid => 3,
                    Action::Feast => 2,
                    Action::Foster => 1,
                    _ => 0,
                }
            };
            let bonus = |law: usize| {
                let (l, lv) = proposable(s).into_iter().find(|x| x.0 == law).unwrap_or((law, 0));
                d.laws[l].statutes[lv].bonus as i32
            };
            proposable(s)
                .into_iter()
                .max_by_key(|(law, _)| want(proposed_action(s, *law).unwrap_or(Action::Foster)) * 4 + bonus(*law))
                .map(|(law, _)| Command::Propose { law })
        }
        Ask::Vote => {
            let orders = if capture_choice(s, seat).is_some() { hunting_orders() } else { bot_orders() };
            Some(Command::Vote { vote: crate::council::ordered(s, seat, &orders).unwrap_or(Vote::Support) })
        }
        Ask::Feud => {
            if s.sealed_feuds {
                let mut best: Vec<(usize, u8)> =
                    p.wealth.iter().enumerate().map(|(i, c)| (i, d.cards[*c as usize].worth)).collect();
                best.sort_by_key(|x| std::cmp::Reverse(x.1));
                Some(Command::Seal { goods: best.iter().take(2).map(|x| x.0).collect() })
            } else {
                let f = s.feud.as_ref()?;
                let side = if f.sides[0] == seat { 0 } else { 1 };
                if f.committed[side].len() < 2 && !p.wealth.is_empty() {
                    let g = (0..p.wealth.len()).max_by_key(|i| d.cards[p.wealth[*i] as usize].worth)?;
                    Some(Command::Commit { good: g })
                } else {
                    first(&|c| matches!(c, Command::Accept { .. }))
                }
            }
        }
        Ask::Choose(Choosing::Raid) => {
            let n = s.choosing?.2 as usize;
            let mut hand = p.hand.clone();
            hand.sort_by_key(|c| std::cmp::Reverse(d.cards[*c as usize].worth));
            Some(Command::Keep { cards: hand[..n].to_vec() })
        }
        Ask::Choose(Choosing::Pledge) => {
            let room = s.districts_of(seat).len() > p.oaths.len();
            let best = p.hand.iter().max_by_key(|c| d.cards[**c as usize].worth).copied();
            Some(Command::Swear { add: if room { best } else { None }, swaps: vec![] })
        }
        Ask::Challenge => Some(Command::Challenge { fight: p.wealth.len() >= 2 }),
        Ask::Farm if s.version >= 3 => farm_choice(s, seat).or_else(|| default_farm_choice(s)),
        Ask::Farm => default_farm_choice(s),
        Ask::Choose(Choosing::Replace) => {
            // A drawn persona of lower Worth is easier to foster: it replaces.
            let mut taken: Vec<usize> = Vec::new();
            let mut personae = Vec::new();
            for &c in &p.hand {
                let card = &d.cards[c as usize];
                let old = s.pool[card.colour].map(|o| d.cards[o as usize].worth).unwrap_or(u8::MAX);
                if card.worth < old && !taken.contains(&card.colour) {
                    taken.push(card.colour);
                    personae.push(c);
                }
            }
            Some(Command::Replace { personae })
        }
        Ask::Resolve(action) => {
            let st = s.current.as_ref()?.strength;
            match action {
                Action::Settle => subsume_choice(s, seat).or_else(|| {
                    let mut steps = Vec::new();
                    let mut left = st as u32;
                    let mut vals: Vec<(usize, u8)> =
                        s.districts_of(seat).into_iter().map(|x| (x, s.steads[x].expect("owned").1)).collect();
                    vals.sort_by_key(|v| v.1);
                    for (x, v) in vals {
                        if v < 4 && (v as u32) <= left && (v != 2 || p.large_tokens > 0) {
                            left -= v as u32;
                            let colour = farm_colour(s, seat);
                            steps.push((x, colour));
                        }
                    }
                    (!steps.is_empty()).then_some(Command::Expand { steps })
                }),
                Action::Ride => {
                    // Hunting: set forth onto an edge of the prey's Districts,
                    // where its Thingmen stand (a feud the bigger band should
                    // win, razing once they are slain) or where a later Feast
                    // may capture. Else onto an edge shared with an opponent's
                    // District; else anywhere.
                    let prey = prey(s, seat);
                    let on = |e: usize, who: Option<Seat>| {
                        let (a, b) = map.edges[e];
                        [a, b].iter().any(|x| match who {
                            Some(o) => s.owner(*x) == Some(o),
                            None => s.owner(*x).is_some_and(|o| o != seat),
                        })
                    };
                    let held =
                        |e: usize| prey.is_some_and(|o| s.edges[e][o as usize] > 0 && s.edges[e][o as usize] < st);
                    let full = |c: &&Command| matches!(c, Command::Ride { set_forth, moves } if set_forth.len() == st as usize && moves.is_empty());
                    let forth = |f: &dyn Fn(usize) -> bool| {
                        legal
                            .iter()
                            .filter(full)
                            .find(|c| matches!(c, Command::Ride { set_forth, .. } if f(set_forth[0])))
                    };
                    let band = prey.and_then(|o| {
                        legal.iter().find(|c| {
                            matches!(c, Command::Ride { set_forth, moves } if set_forth.is_empty()
                            && moves.len() == 1 && moves[0].count > s.edges[moves[0].path[0]][o as usize]
                            && s.edges[moves[0].path[0]][o as usize] > 0 && on(moves[0].path[0], Some(o)))
                        })
                    });
                    forth(&|e| on(e, prey) && held(e))
                        .or(band)
                        .or_else(|| forth(&|e| prey.is_some() && on(e, prey)))
                        .or_else(|| forth(&|e| on(e, None)))
                        .or_else(|| legal.iter().rfind(full))
                        .cloned()
                }
                Action::Raid => {
                    if p.at_sea > 0 || p.longhall <= 2 {
                        Some(Command::ReturnLaden)
                    } else {
                        Some(Command::SailOut { thingmen: st.min(p.longhall - 2) })
                    }
                }
                Action::Pledge => Some(Command::DrawPledge),
                Action::Foster if s.version < 3 => first(&|c| matches!(c, Command::FosterPersona { .. })),
                Action::Foster => {
                    // Foster the persona of least Worth it may; else send one off
                    // (into its Wealth, a Good to give at a Feast).
                    let worth = |c: &Command| match c {
                        Command::FosterPersona { persona } => d.cards[*persona as usize].worth,
                        _ => u8::MAX,
                    };
                    legal
                        .iter()
                        .filter(|c| matches!(c, Command::FosterPersona { .. }))
                        .min_by_key(|c| worth(c))
                        .cloned()
                        .or_else(|| first(&|c| matches!(c, Command::SendOff { .. })))
                }
                Action::Feast => {
                    // Capture where it surely succeeds: a rival's last District
                    // for any Wordfame it may cost, another when nearly free.
                    if let Some(c) = capture_choice(s, seat).filter(|c| accepted(s, seat, c)) {
                        return Some(c);
                    }
                    // Two or more opposing Thingmen on its Districts' edges (a
                    // capture's foothold): murder them all (rules version 3).
                    let foothold: u32 = s
                        .edges
                        .iter()
                        .enumerate()
                        .filter(|(e, _)| {
                            let (a, b) = map.edges[*e];
                            s.owner(a) == Some(seat) || s.owner(b) == Some(seat)
                        })
                        .map(|(_, men)| {
                            (0..s.seats).filter(|o| *o != seat).map(|o| men[o as usize] as u32).sum::<u32>()
                        })
                        .sum();
                    if foothold >= 2 {
                        if let Some(c) = murder_all(s, seat).filter(|c| accepted(s, seat, c)) {
                            return Some(c);
                        }
                    }
                    // Under Arson: burn the hunted rival's District of value 1
                    // where a Thingman of its own stands (its stead falls).
                    if let Some(c) = burn_choice(s, seat, true).filter(|c| accepted(s, seat, c)) {
                        return Some(c);
                    }
                    let to = guest_choice(s, seat);
                    match to {
                        Some(to) if !p.wealth.is_empty() => {
                            let mut goods: Vec<usize> = (0..p.wealth.len()).collect();
                            goods.sort_by_key(|i| std::cmp::Reverse(d.cards[p.wealth[*i] as usize].worth));
                            let mut left = st;
                            let mut gifts = Vec::new();
                            for g in goods {
                                let w = d.cards[p.wealth[g] as usize].worth;
                                if w <= left {
                                    left -= w;
                                    gifts.push(Gift { to, goods: vec![g] });
                                }
                            }
                            Some(Command::Give { gifts })
                        }
                        _ => burn_choice(s, seat, false)
                            .filter(|c| accepted(s, seat, c))
                            .or_else(|| murder_all(s, seat).into_iter().find(|c| accepted(s, seat, c)))
                            .or_else(|| first(&|c| matches!(c, Command::Murder { .. }))),
                    }
                }
            }
        }
    };
    pick.filter(|c| accepted(s, seat, c)).or_else(|| legal.first().cloned())
}

/// Whether a persona in the Foster pool surely may be fostered by what the
/// seat sees (one of Worth 1 needs no Goods), or one in its Hird may be sent off.
fn fosterable(s: &State, seat: Seat) -> bool {
    let d = data();
    !s.players[seat as usize].hird.is_empty() || s.pool.iter().flatten().any(|c| d.cards[*c as usize].worth == 1)
}

/// Rules version 3: one murder of every opposing Thingman on the edges of
/// its Districts, with its first Bondi (each slays as many as its Worth, in
/// order; "as many as you like").
fn murder_all(s: &State, seat: Seat) -> Option<Command> {
    let map = s.map();
    if s.version < 3 || s.players[seat as usize].oaths.is_empty() {
        return None;
    }
    let mine = s.districts_of(seat);
    let mut targets: Vec<MurderTarget> = Vec::new();
    for (e, men) in s.edges.iter().enumerate() {
        let (a, b) = map.edges[e];
        if mine.contains(&a) || mine.contains(&b) {
            for victim in 0..s.seats {
                if victim != seat && men[victim as usize] > 0 {
                    targets.push(MurderTarget { edge: e, victim });
                }
            }
        }
    }
    if targets.len() < 2 {
        return None;
    }
    let first = targets.remove(0);
    Some(Command::Murder { bondi: vec![0], edge: first.edge, victim: first.victim, also: targets })
}

/// Under Arson, a burning: of the hunted rival's District of value 1 (its
/// stead falls) when `prey_only`, else of any rival's District where the
/// bot has a Thingman, the one of least value.
fn burn_choice(s: &State, seat: Seat, prey_only: bool) -> Option<Command> {
    let map = s.map();
    if s.version < 3 || !s.arson || s.players[seat as usize].oaths.is_empty() {
        return None;
    }
    let prey = prey(s, seat);
    (0..map.districts.len())
        .filter(|x| {
            let Some((o, v)) = s.steads[*x] else { return false };
            o != seat
                && (!prey_only || (Some(o) == prey && v == 1))
                && !s.burned.contains(x)
                && map.edges_of(*x).any(|e| s.edges[e][seat as usize] > 0)
        })
        .min_by_key(|x| (s.steads[*x].map_or(0, |v| v.1), *x))
        .map(|district| Command::Burn { bondi: 0, district })
}

/// The farm the bot razes or removes when it chooses: a District of value
/// 1 if the loser has one on the feud's edge (its stead falls), and a farm
/// of the colour where the loser is level with or ahead of the bot by the
/// least (to tip winter's comparison), else the rules' default.
fn farm_choice(s: &State, seat: Seat) -> Option<Command> {
    let call = s.farm_calls.front()?;
    let options = crate::actions::farm_options(s, call);
    let mine = s.players[seat as usize].farms;
    let theirs = s.players[call.loser as usize].farms;
    let colour_key = |c: usize| {
        let gap = theirs[c] as i32 - mine[c] as i32;
        if theirs[c] == 0 {
            i32::MAX
        } else if gap >= 0 {
            gap
        } else {
            100 - gap
        }
    };
    options.into_iter().min_by_key(|c| match c {
        Command::Raze { district, colour } => (s.steads[*district].map_or(9, |v| v.1).min(2), colour_key(*colour)),
        Command::RemoveFarm { colour } => (0, colour_key(*colour)),
        _ => (9, i32::MAX),
    })
}

/// The colour whose farm most likely tips a comparison with the neighbours
/// in winter: where the bot is level or just behind, else its strongest.
fn farm_colour(s: &State, seat: Seat) -> usize {
    let mine = s.players[seat as usize].farms;
    let ns = s.neighbours(seat);
    let best = |c: usize| ns.iter().map(|n| s.players[*n as usize].farms[c]).max().unwrap_or(0);
    (0..4)
        .min_by_key(|c| {
            let gap = best(*c) as i32 - mine[*c] as i32;
            (if gap >= 0 { gap } else { 10 - mine[*c] as i32 }, *c)
        })
        .unwrap_or(0)
}

/// Subsume the free District nearest a rival's (by the edges between
/// Districts: to become neighbours, for winter's comparisons and a
/// capture), keeping the last 1/2 Stead token for a capture once a rival
/// is a neighbour.
fn subsume_choice(s: &State, seat: Seat) -> Option<Command> {
    let map = s.map();
    let tokens = s.players[seat as usize].small_tokens;
    if tokens == 0 || (tokens == 1 && prey(s, seat).is_some()) {
        return None;
    }
    let colour = farm_colour(s, seat);
    // Distance of every District from the nearest rival District.
    let mut far = vec![usize::MAX; map.districts.len()];
    let mut frontier: Vec<usize> =
        (0..map.districts.len()).filter(|x| s.owner(*x).is_some_and(|o| o != seat)).collect();
    for x in &frontier {
        far[*x] = 0;
    }
    let mut step = 0;
    while !frontier.is_empty() {
        step += 1;
        let mut next = Vec::new();
        for &x in &frontier {
            for &(a, b) in &map.edges {
                for (from, to) in [(a, b), (b, a)] {
                    if from == x && far[to] == usize::MAX {
                        far[to] = step;
                        next.push(to);
                    }
                }
            }
        }
        frontier = next;
    }
    (0..map.districts.len())
        .filter(|x| may_subsume(s, seat, *x))
        .map(|x| Command::Subsume { district: x, colour })
        .filter(|c| accepted(s, seat, c))
        .min_by_key(|c| match c {
            Command::Subsume { district, .. } => (far[*district], *district),
            _ => (usize::MAX, 0),
        })
}

/// The rival the bot hunts for the other end of the game, "last one left
/// with a farm in Iceland": the living rival with the fewest Districts (then
/// the least value in them) among those with a District next to one of the
/// bot's.
pub fn prey(s: &State, seat: Seat) -> Option<Seat> {
    // Ties go to the lowest seat before rules version 4, by version 4 to
    // the nearest clockwise (no seat is hunted for its number).
    let tie = |o: Seat| if s.version >= 4 { (o + s.seats - seat) % s.seats } else { o };
    s.neighbours(seat).into_iter().filter(|o| !s.players[*o as usize].out).min_by_key(|o| {
        let ds = s.districts_of(*o);
        (ds.len(), ds.iter().map(|x| s.steads[*x].map_or(0, |v| v.1) as usize).sum::<usize>(), tie(*o))
    })
}

/// A capture that cannot fail, judged by what the seat sees: a Bondi is
/// worth at least 1 (its Worth is hidden from its gothi), so a Longhall of
/// `guard` Thingmen costs at most `guard - 1` Wordfame. A rival's last
/// District is worth all the Wordfame the bot has; another only a capture
/// that costs at most 1.
pub fn capture_choice(s: &State, seat: Seat) -> Option<Command> {
    let map = s.map();
    let p = &s.players[seat as usize];
    if p.oaths.is_empty() || p.small_tokens == 0 {
        return None;
    }
    let mut best: Option<(bool, u8, usize)> = None;
    for x in 0..map.districts.len() {
        let Some(o) = s.owner(x).filter(|o| *o != seat) else { continue };
        if !map.edges_of(x).any(|e| s.edges[e][seat as usize] > 0) {
            continue;
        }
        let guard = s.players[o as usize].longhall;
        let last = s.districts_of(o).len() == 1;
        let budget = if last { p.wordfame } else { 1 };
        if guard as i32 - 1 > budget {
            continue;
        }
        let key = (last, u8::MAX - guard, x);
        if best.is_none_or(|b| (b.0, b.1) < (key.0, key.1)) {
            best = Some(key);
        }
    }
    best.map(|(_, _, district)| Command::Capture { bondi: 0, weapon: None, district, pay: true })
}

/// The rules' own choice of the farm at the front of the farm calls (the
/// standing default): the loser's District of greater value on the feud's
/// edge, and a farm of the colour the loser holds most of.
pub fn default_farm_choice(s: &State) -> Option<Command> {
    let call = s.farm_calls.front()?;
    let colour = crate::actions::default_farm(s, call.loser).unwrap_or(0);
    Some(match call.edge {
        Some(edge) => Command::Raze { district: crate::actions::default_raze(s, call.loser, edge)?, colour },
        None => Command::RemoveFarm { colour },
    })
}

/// The bot's answers to the decisions asked outside its own actions, as
/// it decides them: commit two Goods in a feud, fight a band riding
/// through with two Goods in hand, keep the cards of greatest Worth, swear
/// the best card when there is room.
pub fn bot_answers() -> Answers {
    Answers {
        feud: Some(2),
        challenge: Some(ChallengeAnswer::FightWith { goods: 2 }),
        keep: Some(KeepAnswer::Worth),
        swear: Some(SwearAnswer::Best),
        by_hand: false,
    }
}

/// The bot's choice for resolving `action` at `strength` if it were asked
/// now (on a copy of the board with nothing else pending).
fn resolve_now(s: &State, seat: Seat, action: Action, strength: u8) -> Option<Command> {
    choose(&resolving(s, seat, action, strength), seat, false).filter(|c| !matches!(c, Command::Pass))
}

/// A copy of the board where `seat` resolves `action` at `strength` and
/// nothing else is pending.
fn resolving(s: &State, seat: Seat, action: Action, strength: u8) -> State {
    let mut q = s.clone();
    q.phase = Phase::Resolve;
    q.feud = None;
    q.choosing = None;
    q.farm_calls.clear();
    q.challenges.clear();
    q.feuds.clear();
    q.queue.clear();
    q.hunting = true;
    for p in &mut q.players {
        p.season = None;
    }
    q.current = Some(Step { seat, action, strength, initiator: seat, group: 0, bondi: false });
    q
}

/// The bot's program for the season, written as the round begins from
/// what its seat sees then (nothing of the others' programs): as
/// Lawspeaker the proposal it would make; for each action it may come to
/// resolve (the statutes that may be proposed, the one its orders sue for,
/// and its Bondi's in Hunting for Sheep), the command it would give now,
/// at the strength it expects (every gothi supporting in the Council, its
/// farms' in Hunting for Sheep), the next one of the same action on the
/// board the one before leaves. A step the rules refuse when it comes is
/// left to the bot then; its votes and answers are the bot's, for this
/// season only.
pub fn season_program(s: &State, seat: Seat) -> Program {
    let d = data();
    let mut steps = Vec::new();
    let hunting = capture_choice(s, seat).is_some();
    let orders = if hunting { hunting_orders() } else { bot_orders() };
    let mut now = s.clone();
    now.phase = Phase::Propose;
    for p in &mut now.players {
        p.season = None;
    }
    // The actions it may resolve this season.
    let mut actions: Vec<Action> = Vec::new();
    let mut add = |a: Action| {
        if a != Action::Pledge && !actions.contains(&a) {
            actions.push(a);
        }
    };
    if s.lawspeaker == seat {
        if let Some(c @ Command::Propose { law }) = choose(&now, seat, false) {
            steps.push(ProgramStep { step: c, fallback: Fallback::Bot });
            if let Some(a) = proposed_action(&now, law) {
                add(a);
            }
        }
    } else {
        for (law, _) in proposable(&now) {
            if let Some(a) = proposed_action(&now, law) {
                add(a);
            }
        }
    }
    for (_, what) in &orders.rules {
        if let OrderDo::SueFor { action } = what {
            add(*action);
        }
    }
    let p = &s.players[seat as usize];
    let council = s.alive().count() as u8;
    let colours_of = |a: Action| -> Vec<usize> {
        d.laws.iter().filter(|l| l.statutes.iter().any(|st| st.action == a)).map(|l| l.colour).collect()
    };
    let mut hunted: Vec<(Action, u8)> = Vec::new();
    for &a in &actions {
        for colour in colours_of(a) {
            let st = d.strength(p.farms[colour]);
            // The Home Stead Bondi and every Bondi of the colour.
            hunted.push((a, st));
            for &c in &p.oaths {
                let card = &d.cards[c as usize];
                if card.colour == colour && card.action != Action::Pledge {
                    hunted.push((card.action, st));
                }
            }
        }
    }
    for a in actions.clone() {
        let mut board = s.clone();
        let mut tries = vec![council];
        let mut seen = 0;
        for &(h, st) in &hunted {
            if h == a && st > 0 && seen < 2 {
                tries.push(st);
                seen += 1;
            }
        }
        for st in tries {
            if steps.len() >= crate::program::MAX_STEPS {
                break;
            }
            let Some(c) = resolve_now(&board, seat, a, st) else { break };
            let mut after = resolving(&board, seat, a, st);
            let _ = execute(&mut after, seat, &c);
            steps.push(ProgramStep { step: c, fallback: Fallback::Bot });
            board = after;
        }
    }
    Program { steps, votes: Some(orders), answers: bot_answers(), otherwise: Otherwise::Bot }
}
