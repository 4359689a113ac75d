//! A whole Realms game by bots, sealed into a hash-chained log as the
//! server's `runestone simulate` writes one (every seat's decision is the
//! rules' fallback, decided as the seat), printed as JSON lines: a golden
//! log for `events/realms/`.
//!
//!     cargo run -p runestone-realms --example golden -- PLAYERS SEED 'OPTIONS' > events/realms/vN-....jsonl
//!
//! SEED is a number; the game's 32-byte seed repeats its bytes.

use runestone_engine::log::seal;
use runestone_engine::{Actor, Registry, Seed, Table};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let players: u8 = args.get(1).and_then(|a| a.parse().ok()).expect("PLAYERS");
    let seed_n: u64 = args.get(2).and_then(|a| a.parse().ok()).expect("SEED, a number");
    let options: serde_json::Value =
        args.get(3).map(|o| serde_json::from_str(o).expect("OPTIONS as JSON")).unwrap_or(serde_json::Value::Null);
    let mut bytes = [0u8; 32];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = (seed_n.rotate_left(i as u32 * 8) as u8) ^ (i as u8).wrapping_mul(37);
    }
    let seed = Seed(bytes);
    let registry = Registry::empty().with::<runestone_realms::Realms>();
    let game = registry.get("realms").expect("realms");
    let id = format!("sim-realms-{players}-{seed_n}");
    let names = (0..players).map(|i| format!("Bot {}", i + 1)).collect();
    let time = |step: u32| format!("2026-01-01T{:02}:{:02}:00.000Z", 12 + step / 60, step % 60);
    let drafts = Table::create(game.as_ref(), &options, names, &seed, None).expect("created");
    let mut log = seal(&id, None, drafts, &time(0), &seed);
    let mut table = Table::fold(&registry, &log).expect("folded");
    let mut step = 0;
    while !table.is_over() {
        step += 1;
        let p = table.pending().into_iter().find(|p| !p.submitted).expect("a seat to wait for");
        let cmd = table.fallback(p.seat).expect("a fallback");
        let drafts = table.decide(Actor::Seat(p.seat), p.seat, &cmd, None, &seed).expect("the bot's orders");
        let envs = seal(&id, Some((table.head, &table.head_hash)), drafts, &time(step), &seed);
        for e in &envs {
            table.push(e).expect("pushed");
        }
        log.extend(envs);
    }
    for e in &log {
        println!("{}", serde_json::to_string(e).expect("json"));
    }
}
