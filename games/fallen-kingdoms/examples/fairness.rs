//! Is Fallen Kingdoms fair by colour and by seat order? Bot games by player
//! count, each seat's share of the wins (a shared win split) against an
//! even share, by colour (the seat, whose colour is fixed) and by the order
//! of play (the place after the first player card, which goes to the lowest
//! intimidation, 3.3).
//!
//! `cargo run --release -p runestone-fallen-kingdoms --example fairness --
//! GAMES [COUNTS] [VERSION]`: GAMES bot games per player count (2,000 for the
//! measure in RULES-NOTES.md), COUNTS the player counts ("3,4,5,6", the
//! default), VERSION the rules version (the newest by default). It prints a
//! line per player count and fails when a share is further than 10 points
//! from an even share. The games use fixed seeds (`1,000,000 × players + game`).

use runestone_engine::{Game, GameRng, Seed};
use runestone_fallen_kingdoms::state::Event;
use runestone_fallen_kingdoms::{FallenKingdoms, Options, State};

/// One bot game: the winning seats and the first player of turn 1.
fn winners(options: &Options, seats: u8, seed: u64) -> Result<(Vec<u8>, u8), String> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let seed = Seed(bytes);
    let mut s = State::default();
    let mut rng = GameRng::new(seed.clone(), 1);
    let opening = FallenKingdoms::setup(options, seats, FallenKingdoms::rules_version_of(options), &mut rng)
        .map_err(|e| format!("setup refused: {}", e.message))?;
    for e in opening {
        FallenKingdoms::apply(&mut s, &e.event);
    }
    let mut first = None;
    for n in 2..200_000u64 {
        if let Some(o) = FallenKingdoms::outcome(&s) {
            return Ok((o.winners.clone(), first.ok_or("no first player")?));
        }
        let seat = FallenKingdoms::pending(&s).into_iter().find(|p| !p.submitted).ok_or("nobody to wait for")?.seat;
        let c = FallenKingdoms::fallback(&s, seat).ok_or("no fallback")?;
        let mut rng = GameRng::new(seed.clone(), n);
        let events =
            FallenKingdoms::decide(&s, seat, &c, &mut rng).map_err(|e| format!("fallback refused: {}", e.message))?;
        for e in events {
            if let Event::GodsRevealed { first: f, .. } = e.event {
                first = Some(f);
            }
            FallenKingdoms::apply(&mut s, &e.event);
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
        .unwrap_or_else(|| (3..=6).collect());
    let version = args.get(2).and_then(|v| v.parse().ok());
    let options = Options { rules_version: version, ..Options::default() };
    let mut worst = 0f64;
    for seats in counts {
        let n = seats as usize;
        let (mut by_seat, mut by_order) = (vec![0f64; n], vec![0f64; n]);
        for i in 0..games {
            let (won, first) = winners(&options, seats, 1_000_000 * seats as u64 + i)
                .unwrap_or_else(|e| panic!("{seats} players, game {i}: {e}"));
            for &w in &won {
                by_seat[w as usize] += 1.0 / won.len() as f64;
                by_order[(w as usize + n - first as usize) % n] += 1.0 / won.len() as f64;
            }
        }
        let even = 100.0 / n as f64;
        let mut far = 0f64;
        let mut line = |what: &str, wins: &[f64]| {
            let rates: Vec<String> = wins
                .iter()
                .enumerate()
                .map(|(k, w)| {
                    let rate = 100.0 * w / games as f64;
                    far = far.max((rate - even).abs());
                    format!("{} {rate:.1}%", k + 1)
                })
                .collect();
            format!("{what} {}", rates.join(" "))
        };
        let seat_line = line("by seat", &by_seat);
        let order_line = line("by order of play", &by_order);
        println!(
            "{seats} players, {games} games: {seat_line}; {order_line} (even share {even:.1}%, furthest {far:.1} points)"
        );
        worst = worst.max(far);
    }
    if worst > 10.0 {
        eprintln!("a win rate is {worst:.1} points from an even share (more than 10)");
        std::process::exit(1);
    }
}
