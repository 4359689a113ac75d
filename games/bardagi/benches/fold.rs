//! Rebuilding a whole 5-player Bardagi game from its log: the cost of
//! loading a game that is not in the server's cache.
//!
//! One game is played by the bot once (a fixed seed), through the kernel as
//! the server plays it. Then the benches fold it again: its game events into
//! a fresh `State` with `Bardagi::apply` (the rules alone), and its JSON
//! envelopes through the kernel with `Table::fold` (what a reload costs:
//! checking the chain, parsing and upcasting every event, then applying it).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use runestone_bardagi::{Bardagi, Event, State};
use runestone_engine::log::seal;
use runestone_engine::{Actor, Body, Envelope, Game, Registry, Seed, Table};

const T: &str = "2026-01-01T00:00:00Z";

fn registry() -> Registry {
    Registry::empty().with::<Bardagi>()
}

/// A whole 5-player game on the Summer board, every decision the bot's.
fn whole_game() -> Vec<Envelope> {
    let reg = registry();
    let game = reg.get("bardagi").expect("Bardagi is registered").clone();
    let seed = Seed([5; 32]);
    let names: Vec<String> = ["Ann", "Bo", "Cy", "Di", "Ed"].iter().map(|s| s.to_string()).collect();
    let drafts = Table::create(game.as_ref(), &serde_json::json!({}), names, &seed, None).expect("created");
    let mut log = seal("bench", None, drafts, T, &seed);
    let mut table = Table::fold(&reg, &log).expect("folds");
    let mut decisions = 0;
    while !table.is_over() {
        decisions += 1;
        assert!(decisions < 2_000, "the game did not end");
        // Only the seats the game waits for: a clan that chose its plan is
        // still pending (it may replace the plan), but marked submitted.
        let seat = table.pending().into_iter().find(|p| !p.submitted).expect("someone to wait for").seat;
        let cmd = table.fallback(seat).expect("a fallback");
        let drafts = table.decide(Actor::System, seat, &cmd, Some(table.head), &seed).expect("accepted");
        let envs = seal("bench", Some((table.head, &table.head_hash)), drafts, T, &seed);
        for e in &envs {
            table.push(e).expect("pushes");
        }
        log.extend(envs);
    }
    log
}

fn fold(c: &mut Criterion) {
    let log = whole_game();
    let events: Vec<Event> = log
        .iter()
        .filter_map(|e| match &e.body {
            Body::Game { event, .. } => Some(event.read().expect("a Bardagi event")),
            Body::Kernel { .. } => None,
        })
        .collect();
    let mut s = State::default();
    for e in &events {
        Bardagi::apply(&mut s, e);
    }
    assert!(Bardagi::outcome(&s).is_some(), "the folded game is over");
    let reg = registry();
    assert!(Table::fold(&reg, &log).expect("folds").is_over());

    let mut g = c.benchmark_group("rebuilding a whole 5-player Bardagi game from its log");
    g.throughput(Throughput::Elements(events.len() as u64));
    g.bench_function(format!("Bardagi::apply, {} events", events.len()), |b| {
        b.iter(|| {
            let mut s = State::default();
            for e in &events {
                Bardagi::apply(&mut s, e);
            }
            s
        })
    });
    g.throughput(Throughput::Elements(log.len() as u64));
    g.bench_function(format!("Table::fold, {} JSON envelopes", log.len()), |b| {
        b.iter(|| Table::fold(&reg, &log).expect("folds"))
    });
    g.finish();
}

criterion_group!(benches, fold);
criterion_main!(benches);
