//! Is The Road to Thingvellir fair to every seat? Bot games by player
//! count: each seat's share of the wins (its faction's colour; by rules
//! versions 1 to 3 also its Home Stead card and home District), and each
//! place in the order from the first Lawspeaker's share, against an even
//! share. By rules version 4, where the Home Stead cards are dealt at
//! random, each card's share of the games it was dealt in is told too.
//!
//! `cargo run --release -p runestone-thingvellir --example fairness --
//! GAMES [COUNTS]`: GAMES bot games per player count (2,000 for the measure
//! in RULES-NOTES.md), COUNTS the player counts ("2,3,4,5,6", the default).
//! It prints a line per player count and fails when a share is further
//! than 10 points from an even one. The games use fixed seeds (`1,000,000 ×
//! players + game`), the newest rules and the default options; `RULES=N` in
//! the environment measures rules version N instead.

use runestone_engine::{Game, GameRng, Seat, Seed};
use runestone_thingvellir::data::data;
use runestone_thingvellir::state::State;
use runestone_thingvellir::{bot, Options, Thingvellir};

/// One bot game: the winning seat, the first Lawspeaker, the rounds played
/// and the winner's Home Stead card.
fn winner(options: &Options, seats: u8, seed: u64) -> Result<(Seat, Seat, u32, usize), String> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let seed = Seed(bytes);
    let mut s = State::default();
    let mut rng = GameRng::new(seed.clone(), 1);
    let opening = Thingvellir::setup(options, seats, Thingvellir::rules_version_of(options), &mut rng)
        .map_err(|e| format!("setup refused: {}", e.message))?;
    for e in opening {
        Thingvellir::apply(&mut s, &e.event);
    }
    let first = s.lawspeaker;
    for n in 2..200_000u64 {
        if let Some(o) = Thingvellir::outcome(&s) {
            return Ok((o.winners[0], first, s.round, s.players[o.winners[0] as usize].home));
        }
        let seat = Thingvellir::pending(&s).into_iter().find(|p| !p.submitted).ok_or("nobody to wait for")?.seat;
        let c = bot::choose(&s, seat, true).ok_or("the bot has no move")?;
        let mut rng = GameRng::new(seed.clone(), n);
        let events =
            Thingvellir::decide(&s, seat, &c, &mut rng).map_err(|e| format!("{c:?} refused: {}", e.message))?;
        for e in events {
            Thingvellir::apply(&mut s, &e.event);
        }
    }
    Err("the game did not end".into())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: u64 = args.first().and_then(|g| g.parse().ok()).unwrap_or(200);
    let counts: Vec<u8> = args
        .get(1)
        .map(|c| c.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| (2..=6).collect());
    let rules_version = std::env::var("RULES").ok().map(|v| v.trim().parse().expect("RULES is a rules version"));
    let options = Options { rules_version, ..Options::default() };
    let mut worst = 0f64;
    for seats in counts {
        let mut by_seat = vec![0f64; seats as usize];
        let mut by_order = vec![0f64; seats as usize];
        let mut by_card = [0f64; 6];
        let mut rounds = 0u64;
        for i in 0..games {
            let (won, first, r, card) = winner(&options, seats, 1_000_000 * seats as u64 + i)
                .unwrap_or_else(|e| panic!("{seats} players, game {i}: {e}"));
            by_seat[won as usize] += 1.0;
            by_card[card] += 1.0;
            by_order[((won + seats - first) % seats) as usize] += 1.0;
            rounds += r as u64;
        }
        let even = 100.0 / seats as f64;
        let mut far = 0f64;
        let mut shares = |wins: &[f64], name: &dyn Fn(usize) -> String| {
            wins.iter()
                .enumerate()
                .map(|(k, w)| {
                    let rate = 100.0 * w / games as f64;
                    far = far.max((rate - even).abs());
                    format!("{} {rate:.1}%", name(k))
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let seat_line = shares(&by_seat, &|k| format!("seat {k}"));
        let order_line = shares(&by_order, &|k| format!("#{}", k + 1));
        println!(
            "{seats} players, {games} games, {:.1} rounds a game: by seat {seat_line}; by place from the first Lawspeaker {order_line} (even share {even:.1}%, furthest {far:.1} points)",
            rounds as f64 / games as f64
        );
        if Thingvellir::rules_version_of(&options) >= 4 {
            // The cards in play are the map's first `seats`, each in every game.
            let map = &data().map;
            let cards: Vec<String> = map
                .homes
                .iter()
                .take(seats as usize)
                .map(|h| {
                    format!("{} {:.1}%", data().home_steads[h.stead].name, 100.0 * by_card[h.stead] / games as f64)
                })
                .collect();
            println!("  by Home Stead card (dealt at random): {}", cards.join(" "));
        }
        worst = worst.max(far);
    }
    if worst > 10.0 {
        eprintln!("a share of the wins is {worst:.1} points from an even share (more than 10)");
        std::process::exit(1);
    }
}
