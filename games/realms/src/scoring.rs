//! VICTORY, designed: the game ends after the years chosen at creation
//! ("IMPORTANCE: Scoring after 5 years" gives the default), at once when a
//! realm holds 10 VP at the end of a round (DOMINANCE, announced
//! automatically), or when one realm is left. The winner has the most
//! victory points; ties go to IMPORTANCE points, then gold.

use runestone_engine::{Outcome, Seat};

use crate::control::controls;
use crate::data::tables;
use crate::state::State;

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

pub fn outcome(s: &State) -> Option<Outcome> {
    let reason = s.over.as_ref()?;
    let n = s.realms.len();
    let key = |i: usize| (s.realms[i].vp, importance(s, i as Seat), s.realms[i].gold);
    let mut ranking: Vec<Seat> = (0..n as Seat).collect();
    ranking.sort_by(|&a, &b| key(b as usize).cmp(&key(a as usize)).then(a.cmp(&b)));
    let best = key(ranking[0] as usize);
    let winners: Vec<Seat> = ranking.iter().copied().filter(|&i| key(i as usize) == best).collect();
    let names: Vec<&str> = winners.iter().map(|&w| s.realms[w as usize].home.as_str()).collect();
    Some(Outcome {
        scores: s.realms.iter().map(|r| r.vp as i64).collect(),
        ranking,
        winners,
        summary: format!("{reason}; {} wins with {} VP", names.join(" and "), best.0),
    })
}
