//! How the bots play: whole games of a scenario (Vikings 800 AD unless
//! named) where every realm gives the bot's orders (the fallback a realm
//! gets when it misses its deadline), counted from the rounds' reports.
//!
//!     cargo run -p runestone-realms --example bot_figures -- [GAMES] [RULES_VERSION] [SCENARIO]
//!
//! Game i has 2 + i % 11 realms (2 + i % (most - 1) in a scenario of at
//! most `most` players), FAST for even i and BASIC for odd, 5 years.
//! Prints battles, lootings and sieges per game, and the lines of hunger
//! ("goes hungry", unfed units dissolving, unfed herds culled, unfed
//! settlements surrendering) per settlement-year (settlements standing at
//! each feeding, summed).

use runestone_engine::{Game, GameRng, Seed};
use runestone_realms::state::{Event, Mode, State};
use runestone_realms::{Options, Realms};

#[derive(Default)]
struct Tally {
    games: u64,
    rounds: u64,
    battles: u64,
    lootings: u64,
    sieges: u64,
    taken: u64,
    hungry: u64,
    unfed_units: u64,
    culled: u64,
    surrendered: u64,
    unpaid: u64,
    settlement_years: u64,
    dominance: u64,
}

fn settlements(s: &State) -> u64 {
    s.fields.iter().filter(|f| f.settlement.is_some()).count() as u64
}

fn play(i: u64, rules_version: u32, scenario: &str, t: &mut Tally) {
    let most = runestone_realms::data::map(scenario).max_players() as u64;
    let seats = 2 + (i % (most - 1)) as u8;
    let mode = if i.is_multiple_of(2) { Mode::Fast } else { Mode::Basic };
    let options = Options { mode, years: 5, rules_version, scenario: scenario.into() };
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&(i + 1000).to_le_bytes());
    let seed = Seed(bytes);
    let mut rng = GameRng::new(seed.clone(), 0);
    let mut s = State::default();
    let mut seq = 1;
    for e in Realms::setup(&options, seats, rules_version, &mut rng).expect("setup") {
        Realms::apply(&mut s, &e.event);
    }
    while Realms::outcome(&s).is_none() {
        let seat = s.waiting()[0];
        let c = Realms::fallback(&s, seat).expect("a fallback");
        let mut rng = GameRng::new(seed.clone(), seq);
        seq += 1;
        let before = settlements(&s);
        for e in Realms::decide(&s, seat, &c, &mut rng).expect("the bot's orders are taken") {
            if let Event::Resolved { step, report, .. } = &e.event {
                if *step == runestone_realms::state::Step::Feeding {
                    t.settlement_years += before;
                }
                for line in report {
                    t.battles += u64::from(line.starts_with("battle on"));
                    t.lootings += u64::from(line.contains(" loots "));
                    t.sieges += u64::from(line.starts_with("siege of") || line.contains(" breaks into "));
                    t.taken += u64::from(
                        line.contains(" seizes ")
                            || line.contains(" destroys and loots ")
                            || line.contains(" degrades "),
                    );
                    t.hungry += u64::from(line.contains("goes hungry"));
                    t.unfed_units += u64::from(line.contains("unfed units dissolve"));
                    t.culled += u64::from(line.contains("unfed herd"));
                    t.surrendered += u64::from(line.contains("surrenders"));
                    t.unpaid += u64::from(line.contains(": unpaid "));
                }
            }
            if matches!(e.event, Event::RoundEnded { .. }) {
                t.rounds += 1;
            }
            if let Event::GameEnded { reason } = &e.event {
                t.dominance += u64::from(reason.contains("DOMINANCE"));
            }
            Realms::apply(&mut s, &e.event);
        }
    }
    t.games += 1;
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let version: u32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(runestone_realms::RULES_VERSION);
    let scenario = args.get(3).map(String::as_str).unwrap_or("vikings");
    if !runestone_realms::data::SCENARIOS.contains(&scenario) {
        eprintln!("no scenario {scenario:?}; choose one of {:?}", runestone_realms::data::SCENARIOS);
        std::process::exit(2);
    }
    let mut t = Tally::default();
    for i in 0..games {
        play(i, version, scenario, &mut t);
    }
    let g = t.games.max(1) as f64;
    let sy = t.settlement_years.max(1) as f64;
    let hunger = t.hungry + t.unfed_units + t.culled + t.surrendered;
    println!("{} games of {scenario} by rules version {version}, {} rounds", t.games, t.rounds);
    println!(
        "per game: battles {:.2}, lootings {:.2}, sieges {:.2}, settlements taken {:.2}, unpaid dismissals {:.2}",
        t.battles as f64 / g,
        t.lootings as f64 / g,
        t.sieges as f64 / g,
        t.taken as f64 / g,
        t.unpaid as f64 / g
    );
    println!(
        "hunger lines {hunger} over {} settlement-years: {:.3} per settlement-year \
         (goes hungry {}, unfed units {}, herds culled {}, surrendered {})",
        t.settlement_years,
        hunger as f64 / sy,
        t.hungry,
        t.unfed_units,
        t.culled,
        t.surrendered
    );
    println!("games ended by DOMINANCE: {}", t.dominance);
}
