//! Moving army units (5.1): the whole movement is planned at once, by roads
//! and navigation routes, never leaving a controlled city empty; then the
//! battles are resolved in the attacker's chosen order, each city once.

use runestone_engine::{reject, RuleError, Seat};

use crate::battle::{fight, Fought, Round};
use crate::state::{Asked, AttackOrder, Defence, Event, Move, Phase, Planned, Step, MAX_UNITS};
use crate::Ctx;

/// Check a planned movement; answer the cities attacked, in battle order.
pub fn check(s: &crate::State, seat: Seat, moves: &[Move], attacks: &[AttackOrder]) -> Result<Vec<u8>, RuleError> {
    let n = s.cities.len();
    let mut out = vec![0u16; n];
    let mut inn = vec![0u16; n];
    let mut targets: Vec<u8> = Vec::new();
    // Empty cities moved into (5.2.6 "or if the city is empty": from rules
    // version 3 an attack's orders may name one, to rampage from it).
    let mut entered: Vec<u8> = Vec::new();
    for (i, m) in moves.iter().enumerate() {
        let k = i + 1;
        if m.from as usize >= n || m.to as usize >= n {
            reject!("move {k}: there is no such city on this map");
        }
        if s.cities[m.from as usize].owner != Some(seat) {
            reject!("move {k}: {} holds none of your units", s.city_name(m.from));
        }
        if m.units == 0 {
            reject!("move {k}: move at least one unit");
        }
        if !s.board.is_adjacent(m.from, m.to) {
            reject!(
                "move {k}: {} and {} are not joined by a road or a navigation route",
                s.city_name(m.from),
                s.city_name(m.to)
            );
        }
        out[m.from as usize] += m.units as u16;
        if out[m.from as usize] > s.cities[m.from as usize].units as u16 {
            reject!(
                "move {k}: {} has only {} of your units, and each unit moves once",
                s.city_name(m.from),
                s.cities[m.from as usize].units
            );
        }
        match s.cities[m.to as usize].owner {
            Some(o) if o != seat => {
                if !targets.contains(&m.to) {
                    targets.push(m.to);
                }
            }
            Some(_) => inn[m.to as usize] += m.units as u16,
            None => {
                inn[m.to as usize] += m.units as u16;
                if !entered.contains(&m.to) {
                    entered.push(m.to);
                }
            }
        }
    }
    for c in s.controlled(seat) {
        let left = s.cities[c as usize].units as u16 - out[c as usize] + inn[c as usize];
        if left == 0 {
            reject!("{} would be left empty: keep a unit there or move one in", s.city_name(c));
        }
    }
    let mut order: Vec<u8> = Vec::new();
    if s.rules.version < 2 && attacks.iter().any(|a| a.rampage_units.is_some()) {
        reject!("rampage_units comes with rules version 2; this game is played by version 1");
    }
    let v3 = s.rules.version >= 3;
    for a in attacks {
        let empty = v3 && entered.contains(&a.city);
        if !targets.contains(&a.city) && !empty {
            if entered.contains(&a.city) {
                reject!(
                    "{} is empty: moving in takes it without a battle, and rampaging from it comes with rules \
                     version 3",
                    s.city_name(a.city)
                );
            }
            reject!("you give orders for an attack on {}, but no units attack it", s.city_name(a.city));
        }
        if order.contains(&a.city) {
            reject!("{} cannot be attacked twice in one turn", s.city_name(a.city));
        }
        if let Some(r) = a.rampage {
            if r as usize >= n || !s.board.road_adjacent(a.city).contains(&r) {
                reject!("a rampage from {} goes only to a city joined to it by a road", s.city_name(a.city));
            }
            if targets.contains(&r) || attacks.iter().any(|b| b.city == r) {
                reject!("{} is attacked already this turn; it cannot be rampaged too", s.city_name(r));
            }
        }
        order.push(a.city);
    }
    for t in targets {
        if !order.contains(&t) {
            order.push(t);
        }
    }
    Ok(order)
}

pub fn plan(cx: &mut Ctx, seat: Seat, moves: &[Move], attacks: &[AttackOrder]) -> Result<(), RuleError> {
    if cx.s.phase != Phase::Players || cx.s.current != seat {
        reject!("it is not your turn");
    }
    if cx.s.asked.is_some() {
        reject!("your movement is under way: a battle waits for an answer");
    }
    if cx.s.step != Step::Move {
        reject!("that is not the step of your turn now: {}", crate::turn::step_words(cx.s.step));
    }
    let order = check(&cx.s, seat, moves, attacks)?;
    // Moves into friendly and empty cities first: they never fight.
    for m in moves.iter().filter(|m| !order.contains(&m.to)) {
        cx.emit(Event::Moved { seat, from: m.from, to: m.to, units: m.units });
    }
    let planned: Vec<Planned> = order
        .into_iter()
        .map(|city| {
            let mut origins: Vec<(u8, u8)> = Vec::new();
            for m in moves.iter().filter(|m| m.to == city) {
                match origins.iter_mut().find(|o| o.0 == m.from) {
                    Some(o) => o.1 += m.units,
                    None => origins.push((m.from, m.units)),
                }
            }
            let order = attacks.iter().find(|a| a.city == city).cloned().unwrap_or_else(|| AttackOrder::plain(city));
            Planned { origins, order }
        })
        .collect();
    fight_all(cx, seat, planned, Vec::new(), false);
    Ok(())
}

/// Fight the planned attacks in order; when a battle asks a decision that no
/// standing order covers, record what is left and wait for the answer;
/// after the last, the player phase ends.
pub fn fight_all(cx: &mut Ctx, seat: Seat, mut queue: Vec<Planned>, mut attacked: Vec<u8>, mut lost: bool) {
    while !queue.is_empty() {
        let p = queue.remove(0);
        let city = p.order.city;
        if p.order.call_off_if_lost && lost {
            // 5.2.3: these units did not engage a battle; they stay home.
            let units = p.origins.iter().map(|o| o.1).sum();
            cx.emit(Event::AttackCalledOff { seat, city, units });
            continue;
        }
        attacked.push(city);
        match fight(cx, seat, &p.origins, &p.order, &mut attacked) {
            Fought::Over { won } => lost |= !won,
            Fought::Asked { attacker, round } => {
                ask(cx, attacker, round, p.order, queue, attacked, lost);
                return;
            }
        }
    }
    crate::turn::end_player_phase(cx);
}

/// After an asked battle was answered: the movement goes on, or waits again.
pub fn after_battle(
    cx: &mut Ctx,
    seat: Seat,
    fought: Fought,
    order: AttackOrder,
    rest: Vec<Planned>,
    attacked: Vec<u8>,
    lost: bool,
) {
    match fought {
        Fought::Over { won } => fight_all(cx, seat, rest, attacked, lost || !won),
        Fought::Asked { attacker, round } => ask(cx, attacker, round, order, rest, attacked, lost),
    }
}

fn ask(
    cx: &mut Ctx,
    attacker: bool,
    round: Round,
    order: AttackOrder,
    rest: Vec<Planned>,
    attacked: Vec<u8>,
    lost: bool,
) {
    let b = cx.s.battle.as_ref().expect("a battle under way");
    let seat = if attacker { b.attacker } else { b.defender };
    let asked = Asked { seat, attacker, order, last: round.last, first: round.first, rest, attacked, lost };
    cx.emit(Event::BattleAsked { asked });
}

pub fn set_defence(cx: &mut Ctx, seat: Seat, d: &Defence) -> Result<(), RuleError> {
    if d.retreat_at > MAX_UNITS {
        reject!("retreat_at must be 0 (never) to {MAX_UNITS}");
    }
    if let Some(c) = d.prefer.iter().find(|&&c| c as usize >= cx.s.cities.len()) {
        reject!("there is no city {c} on this map to retreat to");
    }
    if !d.per_city.is_empty() && cx.s.rules.version < 2 {
        reject!("thresholds per city come with rules version 2; this game is played by version 1");
    }
    if d.per_city.len() > cx.s.cities.len() {
        reject!("give at most one threshold per city");
    }
    if let Some(&(c, _)) = d.per_city.iter().find(|x| x.0 as usize >= cx.s.cities.len()) {
        reject!("there is no city {c} on this map to give a threshold");
    }
    if let Some(&(_, n)) = d.per_city.iter().find(|x| x.1 > MAX_UNITS) {
        reject!("a threshold must be 0 (never) to {MAX_UNITS}, not {n}");
    }
    if let Some(c) = d.replace_first.iter().find(|&&c| c as usize >= cx.s.cities.len()) {
        reject!("there is no city {c} on this map to replace first");
    }
    cx.secret(
        Event::DefenceSet { seat, defence: Some(d.clone()) },
        vec![seat],
        Event::DefenceSet { seat, defence: None },
    );
    Ok(())
}
