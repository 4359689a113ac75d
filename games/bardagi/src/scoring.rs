//! Game end ("Game scoring", "Sources of glory points - end game", "Pre-set
//! number of rounds"): after the last round's Claim phase each clan trades
//! its remaining goods to gold by the trade table; the clan with most gold
//! gains 15 glory (ties: most mines, then most villages, then the 15 split
//! and rounded down), the clan with most areas 12 (ties: most gold mines,
//! then most villages, then split); every gold coin is 1 glory. Most glory
//! wins; we break a tie by most gold and otherwise share the win.

use super::board::AreaKind;
use super::state::{Event, Phase, State};
use super::Ctx;
use runestone_engine::game::{Outcome, Seat};

/// Gold from `b` basic and `m` mine goods: 8 basic give 3, 4 give 1; 4 mine
/// give 3, 2 give 1; basic may first become mine goods (2 for 1) and mine
/// goods basic (1 for 2), whichever pays best.
pub fn goods_to_gold(b: u32, m: u32) -> u32 {
    let fb = |x: u32| 3 * (x / 8) + (x % 8) / 4;
    let fm = |x: u32| 3 * (x / 4) + (x % 4) / 2;
    let mut best = 0;
    for k in 0..=b / 2 {
        best = best.max(fb(b - 2 * k) + fm(m + k));
    }
    for j in 0..=m {
        best = best.max(fb(b + 2 * j) + fm(m - j));
    }
    best
}

/// Award `points` to the best by `keys` (compared in order), splitting ties.
fn award(keys: &[Vec<i64>], points: i32) -> Vec<i32> {
    let best = keys.iter().max().cloned().unwrap_or_default();
    let winners: Vec<usize> = (0..keys.len()).filter(|i| keys[*i] == best).collect();
    let share = points / winners.len().max(1) as i32;
    (0..keys.len()).map(|i| if winners.contains(&i) { share } else { 0 }).collect()
}

/// Final conversion and end game glory.
pub fn end_game(cx: &mut Ctx) {
    let s = &cx.s;
    let n = s.n();
    let count = |seat: usize, kinds: &[AreaKind]| {
        s.owned(seat as Seat).filter(|a| kinds.contains(&s.board.area(*a).kind)).count() as i64
    };
    let gold: Vec<i32> = s.players.iter().map(|p| p.gold).collect();
    let converted: Vec<i32> = s
        .players
        .iter()
        .map(|p| {
            let b: u32 = p.goods[..4].iter().map(|x| *x as u32).sum();
            let m: u32 = p.goods[4..].iter().map(|x| *x as u32).sum();
            p.gold + goods_to_gold(b, m) as i32
        })
        .collect();
    let mines = [AreaKind::GoldMine, AreaKind::IronMine, AreaKind::Quarry];
    let gold_keys: Vec<Vec<i64>> =
        (0..n).map(|i| vec![converted[i] as i64, count(i, &mines), count(i, &[AreaKind::Village])]).collect();
    let area_keys: Vec<Vec<i64>> = (0..n)
        .map(|i| {
            vec![s.owned(i as Seat).count() as i64, count(i, &[AreaKind::GoldMine]), count(i, &[AreaKind::Village])]
        })
        .collect();
    let most_gold = award(&gold_keys, 15);
    // The 2018 rules award only the 15 for most gold (and 1 per coin).
    let most_areas = if s.y2018() { vec![0; n] } else { award(&area_keys, 12) };
    let mut awards = Vec::new();
    let mut glory = Vec::new();
    for i in 0..n {
        let name = s.players[i].colour.map(|c| c.name()).unwrap_or("?");
        if most_gold[i] > 0 {
            awards.push(format!("{name} gains {} glory for most gold", most_gold[i]));
        }
        if most_areas[i] > 0 {
            awards.push(format!("{name} gains {} glory for most areas", most_areas[i]));
        }
        glory.push(s.players[i].glory + most_gold[i] + most_areas[i] + converted[i].max(0));
    }
    cx.emit(Event::GameEnded { gold, converted, glory, awards });
}

/// Final scores once over; the summary names the winners by their
/// players' `names` and clans' colours ("Ann (Red)", the colour alone where
/// a name is missing), and says when gold broke a tie on glory.
pub fn outcome(s: &State, names: &[String]) -> Option<Outcome> {
    if s.phase != Phase::Over {
        return None;
    }
    let scores: Vec<i64> = s.final_glory.iter().map(|g| *g as i64).collect();
    let key = |i: Seat| (scores[i as usize], s.players[i as usize].gold as i64);
    let mut ranking: Vec<Seat> = (0..scores.len() as Seat).collect();
    ranking.sort_by(|a, b| key(*b).cmp(&key(*a)).then(a.cmp(b)));
    let best = ranking.first().map(|r| key(*r));
    let winners: Vec<Seat> = ranking.iter().copied().filter(|r| Some(key(*r)) == best).collect();
    let who = |w: Seat| {
        let colour = s.players[w as usize].colour.map(|c| c.name()).unwrap_or("?");
        match names.get(w as usize) {
            Some(name) => format!("{name} ({colour})"),
            None => colour.to_owned(),
        }
    };
    let named: Vec<String> = winners.iter().map(|&w| who(w)).collect();
    let glory = best.map(|b| b.0).unwrap_or(0);
    let mut summary = match named.as_slice() {
        [one] => format!("{one} wins with {glory} glory"),
        _ => format!("{} share the victory with {glory} glory each", named.join(" and ")),
    };
    // Level on glory with the first behind: gold decided.
    if let (Some(&next), Some(b)) = (ranking.get(winners.len()), best) {
        let theirs = key(next);
        if theirs.0 == b.0 {
            summary.push_str(&format!(", level with {} and ahead on gold: {} to {}", who(next), b.1, theirs.1));
        }
    }
    Some(Outcome { summary, scores, ranking, winners })
}
