//! Is a Bardagi board fair? Bot games by player count, each colour's share
//! of the wins (a shared win split) against an even share.
//!
//! `cargo run --release -p runestone-bardagi --example fairness -- GAMES
//! [COUNTS] [BOARD]`: GAMES bot games per player count (2,000 for the
//! measure in RULES-NOTES.md), COUNTS the player counts ("2,3,4,5", the
//! default), BOARD a board file to measure instead of the built-in Summer
//! board. It prints a line per player count, and fails when a colour's win
//! rate is further than 10 points from an even share. With `AREAS=1` in the
//! environment it also prints, per player count, who owns each area at the
//! end (each colour's share of the games it played in), to see where a
//! colour grows and where it is squeezed. The games use fixed seeds
//! (`1,000,000 × players + game`); `SEED_OFFSET=N` in the environment adds N
//! to every seed, to check a board tuned on the fixed seeds on other games.
//! `RULES=2018` measures the 2018 revision instead of the printed rules.
//! Each line also gives the wins by seat order (the first to play in the
//! first round, the second, ...; the starting player then passes on each
//! round), which must be as even as by colour.

use runestone_bardagi::board::Colour;
use runestone_bardagi::rules2018::Rules;
use runestone_bardagi::{Bardagi, Options, State};
use runestone_engine::{Game, GameRng, Seed};

/// The colours of the seats that won a game, each colour's upgrades, areas
/// and glory at the end, each area's owner at the end, and the places in
/// seat order of the seats that won.
type Played = (Vec<Colour>, Vec<(Colour, [f64; 3])>, Vec<Option<Colour>>, Vec<usize>);

/// One bot game: the colours of the seats that won, each colour's upgrades,
/// areas and glory at the end, each area's owner at the end, and the
/// winners' places in seat order (0: first to play in the first round).
fn winners(options: &Options, seats: u8, seed: u64) -> Result<Played, String> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let seed = Seed(bytes);
    let mut s = State::default();
    let mut rng = GameRng::new(seed.clone(), 1);
    let opening = Bardagi::setup(options, seats, Bardagi::rules_version_of(options), &mut rng)
        .map_err(|e| format!("setup refused: {}", e.message))?;
    for e in opening {
        Bardagi::apply(&mut s, &e.event);
    }
    let first = s.starting as usize;
    for n in 2..200_000u64 {
        if let Some(o) = Bardagi::outcome(&s) {
            let won = o.winners.iter().filter_map(|w| s.players[*w as usize].colour).collect();
            let built = (0..s.players.len())
                .filter_map(|k| {
                    let p = &s.players[k];
                    let areas = s.owned(k as u8).count() as f64;
                    Some((p.colour?, [p.upgrades.count_ones() as f64, areas, s.final_glory[k] as f64]))
                })
                .collect();
            let owners = s.areas.iter().map(|a| a.owner.and_then(|o| s.players[o as usize].colour)).collect();
            let n = s.players.len();
            let places = o.winners.iter().map(|w| (*w as usize + n - first) % n).collect();
            return Ok((won, built, owners, places));
        }
        let seat = Bardagi::pending(&s).into_iter().find(|p| !p.submitted).ok_or("nobody to wait for")?.seat;
        let c = Bardagi::fallback(&s, seat).ok_or("no fallback")?;
        let mut rng = GameRng::new(seed.clone(), n);
        let events = Bardagi::decide(&s, seat, &c, &mut rng).map_err(|e| format!("fallback refused: {}", e.message))?;
        for e in events {
            Bardagi::apply(&mut s, &e.event);
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
        .unwrap_or_else(|| (2..=5).collect());
    let custom_board = args.get(2).map(|p| std::fs::read_to_string(p).expect("the board file is readable"));
    let rules = match std::env::var("RULES").as_deref() {
        Ok("2018") => Rules::Y2018,
        Ok("2014") | Err(_) => Rules::Y2014,
        Ok(other) => panic!("RULES is \"2014\" or \"2018\", not {other:?}"),
    };
    let options = Options { custom_board, rules, ..Options::default() };
    let areas = std::env::var("AREAS").is_ok_and(|v| v == "1");
    let offset: u64 = match std::env::var("SEED_OFFSET") {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| panic!("SEED_OFFSET must be a whole number, not {v:?}")),
        Err(_) => 0,
    };
    let mut worst = 0f64;
    for seats in counts {
        let mut wins = [0f64; 5];
        let mut upgrades = [[0f64; 3]; 5];
        let mut owned: Vec<[f64; 5]> = Vec::new();
        let mut by_place = [0f64; 5];
        for i in 0..games {
            let (won, built, owners, places) = winners(&options, seats, 1_000_000 * seats as u64 + offset + i)
                .unwrap_or_else(|e| panic!("{seats} players, game {i}: {e}"));
            owned.resize(owners.len(), [0.0; 5]);
            for (a, o) in owners.iter().enumerate() {
                if let Some(c) = o {
                    owned[a][Colour::ALL.iter().position(|x| x == c).expect("a colour")] += 1.0;
                }
            }
            for (c, n) in built {
                let u = &mut upgrades[Colour::ALL.iter().position(|x| *x == c).expect("a colour")];
                for k in 0..3 {
                    u[k] += n[k];
                }
            }
            for c in &won {
                wins[Colour::ALL.iter().position(|x| x == c).expect("a colour")] += 1.0 / won.len() as f64;
            }
            for k in &places {
                by_place[*k] += 1.0 / places.len() as f64;
            }
        }
        let colours = Colour::available(seats);
        let even = 100.0 / colours.len() as f64;
        let mut line = format!("{seats} players, {games} games:");
        let mut far = 0f64;
        for c in colours {
            let rate = 100.0 * wins[Colour::ALL.iter().position(|x| x == c).expect("a colour")] / games as f64;
            far = far.max((rate - even).abs());
            line += &format!(" {} {rate:.1}%", c.name());
        }
        let seat_even = 100.0 / seats as f64;
        let mut order = Vec::new();
        for (k, w) in by_place.iter().take(seats as usize).enumerate() {
            let rate = 100.0 * w / games as f64;
            far = far.max((rate - seat_even).abs());
            order.push(format!("{} {rate:.1}%", k + 1));
        }
        let built: Vec<String> = colours
            .iter()
            .map(|c| {
                let n = upgrades[Colour::ALL.iter().position(|x| x == c).expect("a colour")];
                let per = |x: f64| x * colours.len() as f64 / seats as f64 / games as f64;
                format!("{} {:.1}/{:.1}/{:.0}", c.name(), per(n[0]), per(n[1]), per(n[2]))
            })
            .collect();
        println!(
            "{line}; by seat order: {} (even share {even:.1}%, furthest {far:.1} points, colour or seat; upgrades/areas/glory at the end per game played: {})",
            order.join(" "),
            built.join(" ")
        );
        worst = worst.max(far);
        if areas {
            let board = runestone_bardagi::board::BoardRef::for_version(
                &options.board,
                options.custom_board.as_deref(),
                Bardagi::rules_version_of(&options),
            )
            .expect("the board is valid");
            for (a, n) in owned.iter().enumerate() {
                let shares: Vec<String> = colours
                    .iter()
                    .map(|c| Colour::ALL.iter().position(|x| x == c).expect("a colour"))
                    .filter(|k| n[*k] > 0.0)
                    .map(|k| {
                        let share = 100.0 * n[k] * colours.len() as f64 / seats as f64 / games as f64;
                        format!("{} {share:.0}%", Colour::ALL[k].name())
                    })
                    .collect();
                println!("  {a} {}: {}", board.area(a as u8).name, shares.join(" "));
            }
        }
    }
    if worst > 10.0 {
        eprintln!("a colour's or a seat's win rate is {worst:.1} points from an even share (more than 10)");
        std::process::exit(1);
    }
}
