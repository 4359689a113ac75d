//! Fold throughput (DESIGN.md §7): rebuilding a position from its whole log.
//!
//! The log is one long game of Duel (the test fixture) played once, before
//! measuring: four seats, 20 rounds, every seat but the last changing its
//! secret bid many times before the last one bids, the round's winner
//! taunting a few times and taking one taunt back (an undo, so the fold's
//! rollback path runs) before claiming or passing. About a thousand events.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use runestone::store::codec::{decode_event, encode_event, encode_v1, encode_v2, ChainMemory, RawLog};
use runestone_engine::log::{chain_hash, check_chain, seal};
use runestone_engine::{Actor, Envelope, FoldError, Registry, Seed, Table};
use serde_json::{json, Value};

const GAME: &str = "foldbench0000001";
const SEATS: u8 = 4;
const REBIDS: usize = 12;
const TAUNTS: usize = 4;

struct Player<'a> {
    registry: &'a Registry,
    seed: Seed,
    log: Vec<Envelope>,
    table: Table,
    step: usize,
}

impl Player<'_> {
    fn time(&self) -> String {
        let secs = self.log.len() as u64 * 97;
        format!("2026-01-{:02}T{:02}:{:02}:{:02}Z", 1 + secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60)
    }

    fn push(&mut self, drafts: Vec<runestone_engine::Draft>) {
        let time = self.time();
        let envs = seal(GAME, Some((self.table.head, &self.table.head_hash)), drafts, &time, &self.seed);
        let mut refold = false;
        for env in &envs {
            match self.table.push(env) {
                Ok(()) => {}
                Err(FoldError::NeedsRefold) => refold = true,
                Err(e) => panic!("push: {e}"),
            }
        }
        self.log.extend(envs);
        if refold {
            self.table = Table::fold(self.registry, &self.log).expect("refold");
        }
    }

    fn play(&mut self, seat: u8, command: Value) {
        let drafts =
            self.table.decide(Actor::Seat(seat), seat, &command, Some(self.table.head), &self.seed).expect("decide");
        self.push(drafts);
        self.step += 1;
    }

    /// A legal command of `seat`, chosen by the step count.
    fn some_legal(&self, seat: u8) -> Value {
        let legal = self.table.legal(seat);
        legal[(self.step * 7 + seat as usize) % legal.len()].clone()
    }
}

fn duel_log(registry: &Registry) -> Vec<Envelope> {
    let seed = Seed([42; 32]);
    let duel = registry.get("duel").expect("the duel fixture");
    let names = (0..SEATS).map(|i| format!("Player {i}")).collect();
    let drafts = Table::create(duel.as_ref(), &json!({ "rounds": 20 }), names, &seed, None).expect("create");
    let log = seal(GAME, None, drafts, "2026-01-01T00:00:00Z", &seed);
    let table = Table::fold(registry, &log).expect("fold the start");
    let mut p = Player { registry, seed, log, table, step: 0 };
    while !p.table.is_over() {
        let pending = p.table.pending();
        if pending.len() == 1 && pending[0].kind == "claim" {
            let seat = pending[0].seat;
            for t in 0..TAUNTS {
                p.play(seat, json!({ "type": "Taunt", "text": format!("taunt number {t}") }));
            }
            let undo = p.table.undo(seat).expect("undo the last taunt");
            p.push(vec![undo]);
            let claim = p.some_legal(seat);
            p.play(seat, claim);
        } else {
            for _ in 0..REBIDS {
                for seat in 0..SEATS - 1 {
                    let bid = p.some_legal(seat);
                    p.play(seat, bid);
                }
            }
            let bid = p.some_legal(SEATS - 1);
            p.play(SEATS - 1, bid);
        }
    }
    check_chain(&p.log).expect("the chain holds");
    p.log
}

fn fold(c: &mut Criterion) {
    let registry = runestone::games::registry();
    let log = duel_log(&registry);
    let folded = Table::fold(&registry, &log).expect("fold");
    assert!(folded.is_over(), "the game was played to its end");
    let stored: Vec<Vec<u8>> = log.iter().map(|e| serde_json::to_vec(e).expect("JSON")).collect();
    eprintln!("log: {} events, {} bytes as JSON", log.len(), stored.iter().map(Vec::len).sum::<usize>());

    let mut group = c.benchmark_group("fold");
    group.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Elements(log.len() as u64));
    group.bench_function("duel_log", |b| {
        b.iter(|| Table::fold(&registry, std::hint::black_box(&log)).expect("fold"));
    });
    // The same, starting from the stored bytes: what rebuilding from disk costs
    // beyond reading them.
    group.bench_function("duel_log_from_json", |b| {
        b.iter(|| {
            let log: Vec<Envelope> =
                std::hint::black_box(&stored).iter().map(|s| serde_json::from_slice(s).expect("JSON")).collect();
            Table::fold(&registry, &log).expect("fold")
        });
    });
    group.finish();
}

/// A whole 5-clan Bardagi game (the golden log `events/bardagi/5-players-seed-4.jsonl`)
/// folded from the bytes the store holds for it (each event as the store
/// writes it), beside the fold of the same events already parsed.
fn fold_bardagi(c: &mut Criterion) {
    let registry = runestone::games::registry();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/events/bardagi/5-players-seed-4.jsonl");
    let text = std::fs::read_to_string(path).expect("the golden log");
    // Every line but the export's end line is an event.
    let log: Vec<Envelope> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let stored: Vec<Vec<u8>> = log.iter().map(|e| encode_event(e).expect("stored form")).collect();
    let v1: usize = log.iter().map(|e| encode_v1(e).expect("form 1").len()).sum();
    let v2: usize = log.iter().map(|e| encode_v2(e).expect("form 2").len()).sum();
    let json: usize = log.iter().map(|e| serde_json::to_vec(e).expect("JSON").len()).sum();
    eprintln!(
        "bardagi log: {} events; stored bytes: {} as stored now (form 3, or 2 where smaller), {v2} in form 2, {v1} in form 1, {json} in the JSON form",
        log.len(),
        stored.iter().map(Vec::len).sum::<usize>()
    );
    Table::fold(&registry, &log).expect("fold");

    let mut group = c.benchmark_group("fold_bardagi_5");
    group.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Elements(log.len() as u64));
    // What the service does (`Service::fold_at`): the stored values into one
    // buffer, what a fold reads of each borrowed from it (each event's chain
    // hash checked), folded. No envelope is built.
    let raw_of = |stored: &[Vec<u8>]| {
        let mut raw = RawLog::new(&log[0].game, 0);
        raw.reserve(stored.len());
        for s in stored {
            raw.push(s).expect("stored form");
        }
        raw
    };
    // The service's cache-miss path for a game whose chain this process has
    // already checked (`ChainMemory`): read and linked, not hashed again.
    let memory = ChainMemory::new();
    raw_of(&stored).refs_remembered(&memory).expect("the first read checks the chain");
    assert_eq!(memory.get(&log[0].game).map(|(s, _)| s), Some(log.len() as u64 - 1));
    group.bench_function("from_stored_bytes", |b| {
        b.iter(|| {
            let raw = raw_of(std::hint::black_box(&stored));
            Table::fold_refs(&registry, &raw.refs_remembered(&memory).expect("reads")).expect("fold")
        });
    });
    // The first read of the game by a process: every event's hash checked.
    group.bench_function("from_stored_bytes_first_read", |b| {
        b.iter(|| {
            let raw = raw_of(std::hint::black_box(&stored));
            Table::fold_refs(&registry, &raw.refs_remembered(&ChainMemory::new()).expect("reads")).expect("fold")
        });
    });
    // Its parts: the bytes decompressed into the buffer; that plus reading
    // the parts and checking the chain; the chain check alone (one SHA-256
    // of each event's public part).
    group.bench_function("raw_decompress_only", |b| b.iter(|| raw_of(std::hint::black_box(&stored))));
    // The fold alone, from parts already read: the game events read from
    // their stored trees into the game's types, and applied.
    let held = raw_of(&stored);
    let refs = held.refs_remembered(&memory).expect("reads");
    group.bench_function("fold_refs_only", |b| {
        b.iter(|| Table::fold_refs(&registry, std::hint::black_box(&refs)).expect("fold"));
    });
    group.bench_function("raw_refs_only", |b| {
        b.iter(|| raw_of(std::hint::black_box(&stored)).refs_remembered(&memory).expect("reads").len());
    });
    group.bench_function("raw_refs_checked_only", |b| {
        b.iter(|| raw_of(std::hint::black_box(&stored)).refs().expect("reads").len());
    });
    group.bench_function("chain_hashes_only", |b| {
        b.iter(|| std::hint::black_box(&log).iter().map(chain_hash).filter(|h| h.0[0] == 0).count());
    });
    // What the service did before: the stored bytes decoded into envelopes,
    // each checked against its chain hash, folded.
    group.bench_function("from_stored_envelopes_checked", |b| {
        b.iter(|| {
            let log: Vec<Envelope> =
                std::hint::black_box(&stored).iter().map(|s| decode_event(s).expect("stored form")).collect();
            for (i, e) in log.iter().enumerate() {
                assert!(chain_hash(e) == e.hash && (i == 0 || e.prev_hash == log[i - 1].hash), "seq {i}");
            }
            Table::fold(&registry, &log).expect("fold")
        });
    });
    // The same bytes decoded into whole envelopes first (what `Store::load`
    // gives, and what the fold from the store did before).
    group.bench_function("from_stored_envelopes", |b| {
        b.iter(|| {
            let log: Vec<Envelope> =
                std::hint::black_box(&stored).iter().map(|s| decode_event(s).expect("stored form")).collect();
            Table::fold(&registry, &log).expect("fold")
        });
    });
    group.bench_function("from_parsed", |b| {
        b.iter(|| Table::fold(&registry, std::hint::black_box(&log)).expect("fold"));
    });
    // The JSON form every store wrote before the binary one (still read).
    let json: Vec<Vec<u8>> = log.iter().map(|e| serde_json::to_vec(e).expect("JSON")).collect();
    eprintln!("bardagi log: {} bytes in the JSON form", json.iter().map(Vec::len).sum::<usize>());
    group.bench_function("from_json_form", |b| {
        b.iter(|| {
            let log: Vec<Envelope> =
                std::hint::black_box(&json).iter().map(|s| decode_event(s).expect("JSON form")).collect();
            Table::fold(&registry, &log).expect("fold")
        });
    });
    group.bench_function("decode_only", |b| {
        b.iter(|| {
            std::hint::black_box(&stored).iter().map(|s| decode_event(s).expect("stored form")).collect::<Vec<_>>()
        });
    });
    group.finish();
}

criterion_group!(benches, fold, fold_bardagi);
criterion_main!(benches);
