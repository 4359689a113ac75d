//! Scoring (6): every turn's scoring (6.1), the end condition and the rumor
//! adjustment with its tie rules (6.2), and the winners.

use runestone_engine::{Outcome, Seat};

use crate::data::Effect;
use crate::state::{Event, Phase, State};
use crate::Ctx;

/// Glory for a player's turn: 1 per city and 2 per building controlled (6.1),
/// plus the knowledge that adds to it. A building under a temple is inactive (7.2.6).
pub fn turn_score(s: &State, seat: Seat) -> i32 {
    let cities = s.controlled(seat);
    let buildings = cities
        .iter()
        .filter(|&&c| s.cities[c as usize].building.is_some() && s.cities[c as usize].temple.is_none())
        .count() as i32;
    let n = cities.len() as i32;
    let mut score = n + 2 * buildings;
    score += s.knows_count(seat, Effect::CityGlory) as i32 * (n / 3);
    score += s.knows_count(seat, Effect::BuildingGlory) as i32 * buildings;
    score
}

pub fn score_turn(cx: &mut Ctx, seat: Seat) {
    let g = turn_score(&cx.s, seat);
    cx.glory(seat, g, "cities and buildings scored");
}

/// The end of the turn's player phases: the end condition (6.2), else invasions (7).
pub fn end_round(cx: &mut Ctx) {
    let depleted = cx.s.depleted();
    let turn = cx.s.turn;
    let programs = cx.s.rules.version >= 2;
    cx.emit(Event::RoundEnded { turn, depleted, programs });
    if depleted >= 2 {
        adjust_rumors(cx);
        let winners = winners(&cx.s);
        cx.emit(Event::GameEnded { winners });
    } else {
        crate::invasion::begin(cx);
    }
}

/// The rumor adjustment (6.2), as transfers (giver, receiver or `None` for
/// discarded, number of cards) for the rumor counts of each seat.
///
/// The fewest cards go to the most. Tied receivers split them rounded down
/// and the rest is discarded; tied givers share the payment as evenly as can
/// be, taken in turn from the givers clockwise after the receiver (the
/// receiver's choice, made by this rule so that nobody waits).
pub fn adjustment(counts: &[usize]) -> Vec<(Seat, Option<Seat>, usize)> {
    let max = counts.iter().copied().max().unwrap_or(0);
    let min = counts.iter().copied().min().unwrap_or(0);
    if max == min || min == 0 {
        return Vec::new();
    }
    let n = counts.len();
    let receivers: Vec<usize> = (0..n).filter(|&k| counts[k] == max).collect();
    let first = receivers[0];
    let givers: Vec<usize> = (1..=n).map(|k| (first + k) % n).filter(|&k| counts[k] == min).collect();
    // Who pays each card.
    let mut paid = vec![0usize; n];
    let mut payers = Vec::new();
    for i in 0..min {
        let g = givers[i % givers.len()];
        paid[g] += 1;
        payers.push(g);
    }
    let each = min / receivers.len();
    let mut out: Vec<(Seat, Option<Seat>, usize)> = Vec::new();
    let mut add = |from: usize, to: Option<usize>| match out
        .iter_mut()
        .find(|t| t.0 == from as Seat && t.1 == to.map(|x| x as Seat))
    {
        Some(t) => t.2 += 1,
        None => out.push((from as Seat, to.map(|x| x as Seat), 1)),
    };
    let mut it = payers.into_iter();
    for &r in &receivers {
        for _ in 0..each {
            add(it.next().expect("cards"), Some(r));
        }
    }
    for g in it {
        add(g, None);
    }
    out
}

pub fn adjust_rumors(cx: &mut Ctx) {
    let counts: Vec<usize> = cx.s.players.iter().map(|p| p.rumors.len()).collect();
    for (from, to, k) in adjustment(&counts) {
        let cards: Vec<u8> = cx.s.players[from as usize].rumors.iter().take(k).copied().collect();
        cx.emit(Event::RumorsGiven { from, to, cards });
        cx.glory(from, -6 * k as i32, "rumor cards given away");
        if let Some(t) = to {
            cx.glory(t, 6 * k as i32, "rumor cards received");
        }
    }
}

/// The highest glory wins; a tie shares the victory (6.2).
pub fn winners(s: &State) -> Vec<Seat> {
    let best = s.players.iter().map(|p| p.glory).max().unwrap_or(0);
    (0..s.seats).filter(|&k| s.players[k as usize].glory == best).collect()
}

/// The outcome, its summary naming the players by `names` (by their seat's
/// place at the table where a name is missing).
pub fn outcome(s: &State, names: &[String]) -> Option<Outcome> {
    if s.phase != Phase::Over {
        return None;
    }
    let scores: Vec<i64> = s.players.iter().map(|p| p.glory as i64).collect();
    let mut ranking: Vec<Seat> = (0..s.seats).collect();
    ranking.sort_by_key(|&k| (std::cmp::Reverse(scores[k as usize]), k));
    let best = scores.iter().copied().max().unwrap_or(0);
    let who = |k: Seat| names.get(k as usize).cloned().unwrap_or_else(|| format!("player {}", k + 1));
    let winners: Vec<String> = s.winners.iter().map(|&k| who(k)).collect();
    let summary = match winners.as_slice() {
        [] => format!("the game ends with {best} glory points at most"),
        [one] => format!("{one} wins with {best} glory points"),
        [rest @ .., last] => format!("{} and {last} share the victory with {best} glory points", rest.join(", ")),
    };
    Some(Outcome { scores, ranking, winners: s.winners.clone(), summary })
}
