//! Battle resolution (5.2): combat rolls in turn, intimidation, battle
//! exhaustion, retreats and rampage, all decided from standing orders so a
//! battle resolves at once; capturing temples (5.3), the victory track, and
//! falling kingdoms (5.4).

use runestone_engine::{reject, RuleError, Seat};

use crate::data::Effect;
use crate::state::{Asked, AttackOrder, Event, State};
use crate::Ctx;

/// Roll `n` dice needing `need`: the dice and the hits.
fn roll(cx: &mut Ctx, n: u8, need: u8) -> (Vec<u8>, u8) {
    let dice: Vec<u8> = (0..n).map(|_| cx.die()).collect();
    let hits = dice.iter().filter(|&&d| d >= need).count() as u8;
    (dice, hits)
}

/// Attack dice and the value that hits for `seat` (knowledge may change both).
pub fn attack_dice(s: &State, seat: Seat, rampage: bool) -> (u8, u8) {
    let n = if !rampage && s.knows(seat, Effect::AttackDie) { 3 } else { 2 };
    (n, if s.knows(seat, Effect::AttackHit) { 3 } else { 4 })
}

pub fn defence_dice(s: &State, seat: Seat) -> (u8, u8) {
    (2, if s.knows(seat, Effect::DefenceHit) { 3 } else { 4 })
}

/// Where a defender's unit may go from `city`: an adjacent friendly or empty
/// city, by land or water (5.2.3, 5.2.4), chosen by the standing defence orders.
pub fn refuge(s: &State, seat: Seat, city: u8) -> Option<u8> {
    let ok: Vec<u8> =
        s.board.adjacent(city).into_iter().filter(|&c| s.cities[c as usize].owner.is_none_or(|o| o == seat)).collect();
    let prefer = &s.players[seat as usize].defence.prefer;
    prefer
        .iter()
        .copied()
        .find(|c| ok.contains(c))
        .or_else(|| ok.iter().copied().max_by_key(|&c| (s.cities[c as usize].units, std::cmp::Reverse(c))))
}

/// Temples protect their city from the attacker's intimidation (5.2.4),
/// unless temples are powered down (8.6).
fn shielded(s: &State, city: u8) -> bool {
    !s.rules.powered_down_temples && s.cities[city as usize].temple.is_some()
}

/// Advance the victory track; at the rule's count (6) draw a rumor and start again (5.2.2).
pub fn victory(cx: &mut Ctx, seat: Seat) {
    let v = cx.s.players[seat as usize].victories + 1;
    if v >= cx.s.rules.victories_for_rumor {
        cx.emit(Event::Victory { seat, victories: 0 });
        cx.draw_rumor(seat);
    } else {
        cx.emit(Event::Victory { seat, victories: v });
    }
}

/// A city taken: victory track, and an enemy temple there is destroyed and
/// its captor draws a rumor card (5.3).
fn captured(cx: &mut Ctx, seat: Seat, city: u8) {
    victory(cx, seat);
    if cx.s.cities[city as usize].temple.is_some_and(|t| t != seat) {
        cx.emit(Event::TempleDestroyed { city });
        cx.draw_rumor(seat);
    }
}

/// A kingdom with no units left on the board falls (5.4): its destroyer
/// draws a rumor and takes its knowledge-track points; its tracks go to 0
/// and its knowledge cards become public.
pub fn check_fall(cx: &mut Ctx, seat: Seat, by: Option<Seat>) {
    if cx.s.has_kingdom(seat) || cx.s.battle.as_ref().is_some_and(|b| b.attacker == seat && b.units > 0) {
        return;
    }
    let knowledge_points = cx.s.players[seat as usize].tracks[2];
    cx.emit(Event::KingdomFell { seat, by, knowledge_points });
    if let Some(v) = by {
        cx.draw_rumor(v);
    }
}

/// Where a battle stands between two rolls.
#[derive(Clone, Copy, Debug)]
pub struct Round {
    /// Hits of the roll before (battle exhaustion, 5.2.5).
    pub last: Option<u8>,
    /// No roll of the attacker has failed to take the city yet (rampage, 5.2.6).
    pub first: bool,
}

/// How a battle left off: over, or waiting for the answer of one side.
#[derive(Clone, Copy, Debug)]
pub enum Fought {
    Over { won: bool },
    Asked { attacker: bool, round: Round },
}

/// Resolve one battle from the standing orders, until it ends or comes to a
/// decision the orders leave open.
pub fn fight(cx: &mut Ctx, seat: Seat, origins: &[(u8, u8)], order: &AttackOrder, attacked: &mut Vec<u8>) -> Fought {
    let city = order.city;
    let Some(defender) = cx.s.cities[city as usize].owner.filter(|&o| o != seat) else {
        // The city is empty, or was emptied or taken earlier this turn: the units just move in.
        let empty = cx.s.cities[city as usize].owner.is_none();
        for &(from, units) in origins {
            cx.emit(Event::Moved { seat, from, to: city, units });
        }
        // 5.2.6 "or if the city is empty, the attacker is allowed to
        // rampage" (rules version 3).
        if let (true, true, Some(r)) = (empty && cx.s.rules.version >= 3, order.occupy, order.rampage) {
            rampage(cx, seat, city, r, order.rampage_units, attacked);
        }
        return Fought::Over { won: true };
    };
    let defenders = cx.s.cities[city as usize].units;
    cx.emit(Event::BattleBegan { city, attacker: seat, defender, from: origins.to_vec(), defenders });
    resume(cx, order, Round { last: None, first: true }, true, false, attacked)
}

/// Go on with the battle under way from one side's turn to roll
/// (`attacker_turn`); `answered`: that side was just asked and rolls on.
pub fn resume(
    cx: &mut Ctx,
    order: &AttackOrder,
    mut r: Round,
    mut attacker_turn: bool,
    mut answered: bool,
    attacked: &mut Vec<u8>,
) -> Fought {
    let b = cx.s.battle.clone().expect("a battle under way");
    let (seat, defender, city) = (b.attacker, b.defender, b.city);
    let origins = b.origins;
    let att_intim = cx.s.intimidation(seat);
    let def_intim = cx.s.intimidation(defender);
    let won = loop {
        if attacker_turn {
            let units = cx.s.battle.as_ref().map_or(0, |b| b.units);
            if units == 0 {
                break false;
            }
            if order.retreat_at > 0 && units <= order.retreat_at && !answered {
                if order.ask {
                    return Fought::Asked { attacker: true, round: r };
                }
                let to = back_home(&origins, units);
                cx.emit(Event::Retreated { seat, attacker: true, to });
                break false;
            }
            answered = false;
            let (n, need) = attack_dice(&cx.s, seat, false);
            let (dice, hits) = roll(cx, n, need);
            let hits = hits.min(cx.s.cities[city as usize].units);
            cx.emit(Event::Rolled { seat, dice: dice.clone(), hits, need });
            if hits > 0 {
                cx.emit(Event::Casualties { seat: defender, attacker: false, units: hits });
            }
            if att_intim > def_intim
                && dice.iter().any(|d| d % 2 == 0)
                && cx.s.cities[city as usize].units > 0
                && !shielded(&cx.s, city)
            {
                if let Some(to) = refuge(&cx.s, defender, city) {
                    cx.emit(Event::Intimidated { seat: defender, attacker: false, to });
                }
            }
            if cx.s.cities[city as usize].units == 0 {
                break true;
            }
            if hits == 0 && r.last == Some(0) {
                cx.emit(Event::Exhausted { city });
                break false;
            }
            r.last = Some(hits);
            r.first = false;
            attacker_turn = false;
        } else {
            let left = cx.s.cities[city as usize].units;
            let d = &cx.s.players[defender as usize].defence;
            let at = d.threshold(city);
            if at > 0 && left <= at && !answered {
                if let Some(to) = refuge(&cx.s, defender, city) {
                    if d.ask {
                        return Fought::Asked { attacker: false, round: r };
                    }
                    cx.emit(Event::Retreated { seat: defender, attacker: false, to: vec![(to, left)] });
                    break true;
                }
            }
            answered = false;
            let (n, need) = defence_dice(&cx.s, defender);
            let (dice, hits) = roll(cx, n, need);
            let hits = hits.min(cx.s.battle.as_ref().map_or(0, |b| b.units));
            cx.emit(Event::Rolled { seat: defender, dice: dice.clone(), hits, need });
            if hits > 0 {
                cx.emit(Event::Casualties { seat, attacker: true, units: hits });
            }
            let units = cx.s.battle.as_ref().map_or(0, |b| b.units);
            if def_intim > att_intim && dice.iter().any(|d| d % 2 == 0) && units > 0 {
                cx.emit(Event::Intimidated { seat, attacker: true, to: origins[0].0 });
            }
            if cx.s.battle.as_ref().map_or(0, |b| b.units) == 0 {
                break false;
            }
            if hits == 0 && r.last == Some(0) {
                cx.emit(Event::Exhausted { city });
                break false;
            }
            r.last = Some(hits);
            attacker_turn = true;
        }
    };
    finish(cx, order, won, r.first, attacked)
}

/// The end of a battle (5.2.2): the city captured or held, the attackers
/// in or home, fallen kingdoms, and a first-roll win's rampage.
fn finish(cx: &mut Ctx, order: &AttackOrder, won: bool, first: bool, attacked: &mut Vec<u8>) -> Fought {
    let b = cx.s.battle.clone().expect("a battle under way");
    let (seat, defender, city) = (b.attacker, b.defender, b.city);
    let won = won && b.units > 0;
    cx.emit(Event::BattleEnded { city, won });
    if won {
        captured(cx, seat, city);
        if !order.occupy {
            // 5.2.2: all of them go back, never a portion.
            for (to, units) in back_home(&b.origins, cx.s.cities[city as usize].units) {
                cx.emit(Event::Moved { seat, from: city, to, units });
            }
        }
    }
    check_fall(cx, defender, Some(seat));
    check_fall(cx, seat, Some(defender));
    if won && first && order.occupy {
        if let Some(r) = order.rampage {
            rampage(cx, seat, city, r, order.rampage_units, attacked);
        }
    }
    Fought::Over { won }
}

/// The cities a defender in `city` may retreat to: adjacent by land or
/// water, friendly or empty (5.2.3).
pub fn refuges(s: &State, seat: Seat, city: u8) -> Vec<u8> {
    s.board.adjacent(city).into_iter().filter(|&c| s.cities[c as usize].owner.is_none_or(|o| o == seat)).collect()
}

/// What an asked battle asks, in words.
pub fn question(s: &State, a: &Asked) -> String {
    let Some(b) = &s.battle else { return "answer the battle".into() };
    let city = s.city_name(b.city);
    if a.attacker {
        format!(
            "your attack on {city} is down to {} units against {}: retreat, or roll on",
            b.units, s.cities[b.city as usize].units
        )
    } else {
        format!(
            "{city} is down to {} defenders against {} attackers: retreat (and where to), or fight on",
            s.cities[b.city as usize].units, b.units
        )
    }
}

/// Answer the battle that waits: retreat (to `to`, a defender's choice) or
/// roll on; then the battle and the movement's later attacks go on.
pub fn answer(cx: &mut Ctx, seat: Seat, retreat: bool, to: Option<u8>) -> Result<(), RuleError> {
    let Some(a) = cx.s.asked.clone() else {
        reject!("no battle is waiting for your answer");
    };
    if a.seat != seat {
        reject!("the battle waits for another player's answer");
    }
    let b = cx.s.battle.clone().expect("an asked battle is under way");
    let left = cx.s.cities[b.city as usize].units;
    let to = match to {
        None => None,
        Some(_) if !retreat => reject!("name a city only to retreat to it"),
        Some(_) if a.attacker => reject!("an attack retreats to the cities it came from: name no city"),
        Some(t) if !refuges(&cx.s, seat, b.city).contains(&t) => reject!(
            "{} is not a city next to {} that is yours or empty: the defenders cannot retreat there",
            cx.s.city_name(t),
            cx.s.city_name(b.city)
        ),
        Some(t) => Some(t),
    };
    let place = to.or_else(|| refuge(&cx.s, seat, b.city));
    if retreat && !a.attacker && place.is_none() {
        reject!("no city next to {} is yours or empty: the defenders cannot retreat", cx.s.city_name(b.city));
    }
    cx.emit(Event::BattleAnswered { seat, retreat, to });
    let mut attacked = a.attacked.clone();
    let round = Round { last: a.last, first: a.first };
    let fought = match (retreat, a.attacker) {
        (true, true) => {
            let to = back_home(&b.origins, b.units);
            cx.emit(Event::Retreated { seat, attacker: true, to });
            finish(cx, &a.order, false, round.first, &mut attacked)
        }
        (true, false) => {
            let to = place.expect("checked");
            cx.emit(Event::Retreated { seat, attacker: false, to: vec![(to, left)] });
            finish(cx, &a.order, true, round.first, &mut attacked)
        }
        (false, attacker) => resume(cx, &a.order, round, attacker, true, &mut attacked),
    };
    crate::movement::after_battle(cx, b.attacker, fought, a.order, a.rest, attacked, a.lost);
    Ok(())
}

/// Survivors of a retreating attack, back to the cities they came from.
fn back_home(origins: &[(u8, u8)], units: u8) -> Vec<(u8, u8)> {
    let mut left = units;
    let mut out = Vec::new();
    for &(c, n) in origins {
        let k = left.min(n);
        if k > 0 {
            out.push((c, k));
        }
        left -= k;
    }
    out
}

/// Rampage (5.2.6): after a first-roll win, 2 dice once against a road-adjacent city.
pub fn rampage(cx: &mut Ctx, seat: Seat, from: u8, to: u8, move_in: Option<u8>, attacked: &mut Vec<u8>) {
    let s = &cx.s;
    if attacked.contains(&to)
        || !s.board.road_adjacent(from).contains(&to)
        || s.cities[from as usize].owner != Some(seat)
        || s.cities[from as usize].units < 2
    {
        return;
    }
    let Some(victim) = s.cities[to as usize].owner.filter(|&o| o != seat) else {
        return;
    };
    attacked.push(to);
    let (n, need) = attack_dice(&cx.s, seat, true);
    let (dice, hits) = roll(cx, n, need);
    let hits = hits.min(cx.s.cities[to as usize].units);
    let lost = u8::from(hits == 0);
    cx.emit(Event::Rampaged { seat, from, to, dice, hits, lost });
    if cx.s.cities[to as usize].units == 0 {
        // 5.2.6 "any amount of units": as the attack's orders say, else all but one.
        let most = cx.s.cities[from as usize].units - 1;
        let units = move_in.map_or(most, |k| k.min(most));
        if units > 0 {
            cx.emit(Event::Moved { seat, from, to, units });
            captured(cx, seat, to);
        }
    }
    check_fall(cx, victim, Some(seat));
}
