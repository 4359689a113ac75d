//! VICTORY: the game ends after the years chosen at creation ("IMPORTANCE:
//! Scoring after 5 years" gives the default), at once when a realm holds 10
//! VP at the end of a round (DOMINANCE, announced automatically), or when
//! one realm is left. Rules version 3: DOMINANCE is won by VP, otherwise
//! the most IMPORTANCE points win, ties going to "gold + cost of all stuff
//! on the map". Before: the most VP won, ties to IMPORTANCE points, then
//! (version 2) gold and the cost of all stuff, or gold alone (version 1).

use runestone_engine::{Outcome, Seat};

use crate::control::controls;
use crate::data::tables;
use crate::state::{Building, State, UnitKind};

/// The ways to win the game plays (rules version 3), as the rules page
/// names them: of the sheet's four, SOVEREIGNTY and MIGHT are not played.
pub const WAYS_TO_WIN: [&str; 2] = ["Dominance", "Importance"];

/// IMPORTANCE points: 1 per SGF, 2 per looted LGF, 4 per LGF without CUS,
/// 6 per LGF with CUS, all controlled.
pub fn importance(s: &State, seat: Seat) -> i64 {
    let t = tables();
    let map = s.map();
    (0..s.fields.len() as u16)
        .filter(|&f| crate::control::units_of(s, f, seat) > 0 || controls(s, seat, f))
        .filter(|&f| controls(s, seat, f))
        .map(|f| {
            let fi = &s.fields[f as usize];
            if map.fields[f as usize].is_sea() {
                t.importance.sgf
            } else if fi.looted {
                t.importance.looted
            } else if fi.settlement.is_some_and(|x| x.owner == seat) {
                t.importance.lgf_with_settlement
            } else {
                t.importance.lgf
            }
        })
        .sum()
}

/// "in a tie: gold + cost of all stuff on the map" (designed): the realm's
/// gold, its units at their gold price (Light Infantry 2, an upgraded unit
/// 2 and its upgrade, Cavalry with horses; Mercenaries 6; Corsairs and War
/// Elephants, bought with prestige, 0), its buildings at their prices (a
/// city with its village, a port with its dock) and its stored grain,
/// fishes and herds at their buying price with a port.
pub fn worth(s: &State, seat: Seat) -> i64 {
    let t = tables();
    let price = |b: Building| t.building(b).price as i64;
    let li = t.unit(UnitKind::LightInfantry).buy.unwrap_or(0) as i64;
    let mut n = s.realms[seat as usize].gold as i64;
    for fi in &s.fields {
        for u in fi.units.iter().filter(|u| u.owner == seat) {
            let d = t.unit(u.kind);
            n += match (d.buy, d.upgrade) {
                (Some(b), _) => b as i64,
                (_, Some(up)) => li + up as i64,
                _ => 0,
            };
        }
        if let Some(st) = fi.settlement.filter(|x| x.owner == seat) {
            n += price(Building::Village) + fi.grain as i64 * t.commodities[4].port_buy.unwrap_or(0) as i64;
            n += if st.city { price(Building::City) } else { 0 };
            n += if st.fort { price(Building::Fortification) } else { 0 };
        }
        if let Some(y) = fi.shipyard.filter(|y| y.owner == seat) {
            n += price(Building::Dock) + fi.fish as i64 * t.commodities[5].port_buy.unwrap_or(0) as i64;
            n += if y.port { price(Building::Port) } else { 0 };
        }
        for (_, h) in fi.herds.iter().filter(|h| h.0 == seat) {
            n += t.commodities[h.idx()].port_buy.unwrap_or(0) as i64;
        }
    }
    n
}

/// Whether the game was won by DOMINANCE: a realm holds the goal's VP (the
/// game ends at once when one does).
pub fn dominance(s: &State) -> bool {
    s.realms.iter().any(|r| r.vp >= tables().dominance.goal)
}

/// A realm by its player's name and its home ("Ann (Wessex)"), the home
/// alone where a name is missing.
fn realm_words(s: &State, w: Seat, names: &[String]) -> String {
    let home = s.realms[w as usize].home.as_str();
    match names.get(w as usize) {
        Some(name) => format!("{name} ({home})"),
        None => home.to_owned(),
    }
}

/// The first letter made a capital.
fn capital(text: String) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

/// The outcome; its summary names the winners by their players' `names`
/// and realms ("Ann (Wessex)", the realm alone where a name is missing),
/// and says which tie-break decided when the victory points were equal.
pub fn outcome(s: &State, names: &[String]) -> Option<Outcome> {
    let reason = s.over.as_ref()?;
    if s.from_version(3) {
        return Some(outcome_v3(s, reason, names));
    }
    let n = s.realms.len();
    let worth_counts = s.from_version(2);
    let tie = |i: usize| if worth_counts { worth(s, i as Seat) } else { s.realms[i].gold as i64 };
    let key = |i: usize| (s.realms[i].vp, importance(s, i as Seat), tie(i));
    let mut ranking: Vec<Seat> = (0..n as Seat).collect();
    ranking.sort_by(|&a, &b| key(b as usize).cmp(&key(a as usize)).then(a.cmp(&b)));
    let best = key(ranking[0] as usize);
    let winners: Vec<Seat> = ranking.iter().copied().filter(|&i| key(i as usize) == best).collect();
    let who = |w: Seat| realm_words(s, w, names);
    let named: Vec<String> = winners.iter().map(|&w| who(w)).collect();
    let (verb, vp) = if winners.len() > 1 { ("share the victory", "each") } else { ("wins", "") };
    let mut summary = format!(
        "{reason}; {} {verb} with {} VP{}",
        named.join(" and "),
        best.0,
        if vp.is_empty() { String::new() } else { format!(" {vp}") }
    );
    // The first behind the winners, when level on victory points: the
    // tie-break that decided, with both numbers.
    if let Some(&next) = ranking.get(winners.len()) {
        let theirs = key(next as usize);
        if theirs.0 == best.0 {
            let (what, a, b) = if theirs.1 != best.1 {
                ("importance (fields controlled)", best.1, theirs.1)
            } else if worth_counts {
                ("worth in gold (treasury, units, buildings and goods)", best.2, theirs.2)
            } else {
                ("gold in the treasury", best.2, theirs.2)
            };
            summary.push_str(&format!(
                ", level on victory points with {} and ahead on the tie-break of {what}: {a} to {b}",
                who(next)
            ));
        }
    }
    Some(Outcome {
        scores: s.realms.iter().map(|r| r.vp as i64).collect(),
        ranking,
        winners,
        summary: capital(summary),
    })
}

/// The winner by rules version 3, in the sheet's words: "DOMINANCE: 10
/// Victory Points" (the realms that reached them, by VP), else "IMPORTANCE:
/// Scoring after 5 years" (after the years the game was created with, or
/// when one realm is left): the most IMPORTANCE points, "in a tie: gold +
/// cost of all stuff on the map". A realm out of the game ranks below every
/// realm still in it.
fn outcome_v3(s: &State, reason: &str, names: &[String]) -> Outcome {
    let n = s.realms.len();
    let dom = dominance(s);
    let key = |i: usize| {
        let alive = !s.realms[i].out;
        let first = if dom { s.realms[i].vp as i64 } else { importance(s, i as Seat) };
        (alive, first, worth(s, i as Seat))
    };
    let mut ranking: Vec<Seat> = (0..n as Seat).collect();
    ranking.sort_by(|&a, &b| key(b as usize).cmp(&key(a as usize)).then(a.cmp(&b)));
    let best = key(ranking[0] as usize);
    let winners: Vec<Seat> = ranking.iter().copied().filter(|&i| key(i as usize) == best).collect();
    let named: Vec<String> = winners.iter().map(|&w| realm_words(s, w, names)).collect();
    let (scores, unit): (Vec<i64>, &str) = if dom {
        (s.realms.iter().map(|r| r.vp as i64).collect(), "VP")
    } else {
        ((0..n).map(|i| importance(s, i as Seat)).collect(), "IMPORTANCE points")
    };
    let verb = if winners.len() > 1 { "share the victory" } else { "wins" };
    let mut summary = format!("{reason}; {} {verb} with {} {unit}", named.join(" and "), best.1);
    // Level with the first behind: worth in gold decided.
    if let Some(&next) = ranking.get(winners.len()) {
        let theirs = key(next as usize);
        if (theirs.0, theirs.1) == (best.0, best.1) {
            summary.push_str(&format!(
                ", level with {} and ahead on the tie-break of worth in gold (treasury, units, buildings and goods): {} to {}",
                realm_words(s, next, names),
                best.2,
                theirs.2
            ));
        }
    }
    Outcome { scores, ranking, winners, summary: capital(summary) }
}
