//! Is the designed Summer board fair? Bot games by player count, each
//! colour's share of the wins (a shared win split) against an even share.
//!
//! The default run is a small guard of a few dozen games per player count.
//! The full measure is 2,000 games per player count, in release mode:
//! `BARDAGI_FAIRNESS_GAMES=2000 cargo test --release -p runestone-bardagi
//! fairness -- --nocapture`; `BARDAGI_FAIRNESS_BOARD` names a board file to
//! measure instead of the built-in Summer board.

use super::Driver;
use crate::board::Colour;
use crate::{Bardagi, Options};
use runestone_engine::game::Game;

/// Wins per colour (shared wins split) over `games` bot games of `seats` clans.
pub fn wins_by_colour(options: &Options, seats: u8, games: u64, first_seed: u64) -> [f64; 5] {
    let mut wins = [0f64; 5];
    for i in 0..games {
        let mut d = Driver::new(options, seats, first_seed + i).expect("the game is set up");
        d.run_bots(20_000);
        let o = Bardagi::outcome(&d.state).expect("over");
        // `BARDAGI_FAIRNESS_AWARDS` tells each game's end: glory, gold, areas.
        if std::env::var_os("BARDAGI_FAIRNESS_AWARDS").is_some() {
            let by: Vec<String> = d
                .state
                .players
                .iter()
                .zip(&o.scores)
                .enumerate()
                .map(|(seat, (p, g))| {
                    let areas = d.state.owned(seat as u8).count();
                    format!("{:?} {g} glory {} gold {areas} areas", p.colour.unwrap(), p.gold)
                })
                .collect();
            eprintln!("{} | {}", o.summary, by.join(", "));
        }
        for w in &o.winners {
            let c = d.state.players[*w as usize].colour.expect("a clan has a colour");
            wins[Colour::ALL.iter().position(|x| *x == c).unwrap()] += 1.0 / o.winners.len() as f64;
        }
    }
    wins
}

/// The largest distance, in percentage points, of a colour's win rate from
/// an even share; and the table's line.
fn spread(wins: &[f64; 5], seats: u8, games: u64) -> (f64, String) {
    let colours = Colour::available(seats);
    let even = 100.0 / colours.len() as f64;
    let mut worst = 0f64;
    let mut line = format!("{seats} players, {games} games:");
    for c in colours {
        let rate = 100.0 * wins[Colour::ALL.iter().position(|x| x == c).unwrap()] / games as f64;
        worst = worst.max((rate - even).abs());
        line += &format!(" {} {rate:.1}%", c.name());
    }
    line += &format!(" (even share {even:.1}%, furthest {worst:.1} points)");
    (worst, line)
}

#[test]
fn no_colour_wins_far_more_or_less_than_its_share_on_the_summer_board() {
    let games: u64 = std::env::var("BARDAGI_FAIRNESS_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(24);
    let custom_board = std::env::var("BARDAGI_FAIRNESS_BOARD")
        .ok()
        .map(|p| std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read the board file: {e}")));
    // The measure of 2,000 games holds every colour within 10 points; the
    // few dozen games of the default run only catch a gross imbalance.
    let bound = if games >= 1000 { 10.0 } else { 25.0 };
    let options = Options { custom_board, ..Options::default() };
    let mut lines = Vec::new();
    let mut worst = 0f64;
    // `BARDAGI_FAIRNESS_SEATS` ("2,5") measures some player counts only.
    let counts: Vec<u8> = std::env::var("BARDAGI_FAIRNESS_SEATS")
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|_| (2..=5).collect());
    for seats in counts {
        let wins = wins_by_colour(&options, seats, games, 1_000_000 * seats as u64);
        let (w, line) = spread(&wins, seats, games);
        eprintln!("{line}");
        worst = worst.max(w);
        lines.push(line);
    }
    assert!(worst <= bound, "a colour is {worst:.1} points from an even share:\n{}", lines.join("\n"));
}
