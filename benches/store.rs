//! Durable appends per second (DESIGN.md §7): the sled store with one writer
//! and with 16 concurrent writers (each on its own game, so group commit
//! shares flushes between them), beside two plain programs in the same
//! directory and the same run: a `write_all` + `fdatasync` loop of records
//! of the same size (one flush per record), and 256-byte records with one
//! `fdatasync` per 64 (the ceiling set for a group commit) and per 16
//! (the largest groups 16 writers waiting for their appends can make), so
//! the figures can be compared with what the disk's flush rate allows; and
//! the 16-writer bench's shape with no store in it (`plain_16_writers`: 16
//! tasks handing records to one thread that writes and flushes them as a
//! group and answers), what the hand-overs alone leave of that rate.
//!
//! `STORE_BENCH_COMPRESSED=1` makes the store with sled's pages compressed
//! (`storage.compress_pages`); the store is made explicitly either way, so
//! the figures do not follow the default.
//!
//! Everything is written under Cargo's target tmp directory, on the same
//! filesystem as the build (not /tmp, which may be tmpfs).

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use runestone::store::sled::SledStore;
use runestone::store::{EventStore, Write};
use runestone_engine::log::{seal, Actor, Body, Decision, Draft, KernelEvent};
use runestone_engine::{Envelope, Seed, Visibility};
use serde_json::json;

const WRITERS: usize = 16;
const TIME: &str = "2026-01-01T00:00:00Z";

fn bench_root() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("store-bench");
    std::fs::create_dir_all(&root).expect("bench directory");
    root
}

/// A fresh 16-byte game id.
fn next_game() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    format!("bench{:011}", N.fetch_add(1, Ordering::Relaxed))
}

/// `n` chained envelopes of a new game, each about the size of a real move.
fn chain(game: &str, n: u64) -> Vec<Envelope> {
    let seed = Seed([9; 32]);
    let mut drafts = vec![Draft {
        actor: Actor::System,
        body: Body::Kernel {
            event: KernelEvent::GameCreated {
                ruleset: "duel".into(),
                rules_version: 1,
                options: json!({ "rounds": 20 }),
                seats: vec!["Ann".into(), "Bo".into()],
                seed_commitment: seed.commitment(),
                forked_from: None,
            },
        },
        visibility: Visibility::Public,
        redacted: None,
        decision: None,
    }];
    drafts.extend((1..n).map(|i| Draft {
        actor: Actor::Seat((i % 2) as u8),
        body: Body::Game { v: 1, event: json!({ "type": "BidPlaced", "seat": i % 2, "amount": i % 10 }).into() },
        visibility: Visibility::Seats(vec![(i % 2) as u8]),
        redacted: Some(json!({ "type": "BidPlaced", "seat": i % 2, "amount": null }).into()),
        decision: Some(Decision {
            command: Some(json!({ "type": "Bid", "amount": i % 10 }).into()),
            seat: Some((i % 2) as u8),
            events: 1,
            draws: 0,
            undoable: false,
        }),
    }));
    seal(game, None, drafts, TIME, &seed)
}

/// Append `events` one at a time, each waiting for its acknowledgement.
async fn append_all(store: &dyn EventStore, events: Vec<Envelope>) {
    for env in events {
        let expect_head = env.seq.checked_sub(1);
        let write =
            Write { game: env.game.clone(), expect_head, events: vec![env], side: Vec::new(), unchanged: Vec::new() };
        store.append(write).await.expect("append");
    }
}

fn appends(c: &mut Criterion) {
    let root = bench_root();
    let dir = tempfile::tempdir_in(&root).expect("tempdir");
    // `STORE_BENCH_COMPRESSED=1`: a store with sled's pages compressed
    // (`storage.compress_pages`), otherwise one without.
    let compressed = std::env::var("STORE_BENCH_COMPRESSED").is_ok_and(|v| v == "1");
    let settings = runestone::store::sled::SledSettings { compress_new: compressed, ..Default::default() };
    let store = Arc::new(SledStore::open_with(&dir.path().join("sled"), settings).expect("open"));
    eprintln!("sled's pages compressed: {compressed}");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let record = serde_json::to_vec(&chain("bench-record-000", 2)[1]).expect("JSON");
    eprintln!("record size: {} bytes (an envelope as stored)", record.len());

    let mut group = c.benchmark_group("durable_appends");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));

    group.throughput(Throughput::Elements(1));
    group.bench_function("fdatasync_loop", |b| {
        let path = dir.path().join("fdatasync.log");
        let mut file: File = OpenOptions::new().create(true).append(true).open(&path).expect("file");
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                file.write_all(&record).expect("write");
                file.sync_data().expect("fdatasync");
            }
            start.elapsed()
        });
    });

    // The ceiling group commit can approach: 256-byte records with one
    // fdatasync per 64 of them (the reference program, in the
    // same run so that a busy machine weighs on both alike), and the same
    // with one per 16: 16 writers that each wait for their append make
    // groups of at most 16, so this is the most they can do.
    for every in [64u64, 16] {
        group.bench_function(format!("batched_fdatasync_{every}"), |b| {
            let path = dir.path().join(format!("batched-{every}.log"));
            let mut file: File = OpenOptions::new().create(true).append(true).open(&path).expect("file");
            let record = [b'r'; 256];
            b.iter_custom(|iters| {
                let start = Instant::now();
                for i in 0..iters {
                    file.write_all(&record).expect("write");
                    if i % every == every - 1 || i + 1 == iters {
                        file.sync_data().expect("fdatasync");
                    }
                }
                start.elapsed()
            });
        });
    }

    // The shape of the 16-writer bench with no store in it: 16 tasks on the
    // same two-worker runtime each hand a 256-byte record to one thread and
    // wait for its answer; the thread takes the first, waits for the other
    // 15 (it knows there are 16, as the committer cannot), writes them with
    // one write and one fdatasync and answers them all. What 16 writers that
    // each wait for their record can reach on this machine with nothing but
    // the hand-overs: the bound of this bench's shape, beside the per-16
    // program's, which has no hand-overs at all.
    group.throughput(Throughput::Elements(WRITERS as u64));
    group.bench_function("plain_16_writers", |b| {
        let path = dir.path().join("plain-16.log");
        b.iter_custom(|iters| {
            type Job = (Vec<u8>, tokio::sync::oneshot::Sender<()>);
            let (tx, rx) = std::sync::mpsc::channel::<Job>();
            let mut file: File = OpenOptions::new().create(true).append(true).open(&path).expect("file");
            let committer = std::thread::spawn(move || {
                let mut buf = Vec::new();
                while let Ok(first) = rx.recv() {
                    let mut group = vec![first];
                    let until = Instant::now() + Duration::from_millis(2);
                    while group.len() < WRITERS {
                        match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
                            Ok(job) => group.push(job),
                            Err(_) => break,
                        }
                    }
                    buf.clear();
                    for (record, _) in &group {
                        buf.extend_from_slice(record);
                    }
                    file.write_all(&buf).expect("write");
                    file.sync_data().expect("fdatasync");
                    for (_, answer) in group {
                        let _ = answer.send(());
                    }
                }
            });
            let took = rt.block_on(async {
                let start = Instant::now();
                let tasks: Vec<_> = (0..WRITERS)
                    .map(|_| {
                        let tx = tx.clone();
                        tokio::spawn(async move {
                            for _ in 0..iters {
                                let (answer, answered) = tokio::sync::oneshot::channel();
                                tx.send((vec![b'r'; 256], answer)).expect("the thread is there");
                                answered.await.expect("answered");
                            }
                        })
                    })
                    .collect();
                for t in tasks {
                    t.await.expect("writer");
                }
                start.elapsed()
            });
            drop(tx);
            committer.join().expect("the writing thread");
            took
        });
    });
    group.throughput(Throughput::Elements(1));

    let counted = |name: &str, before: (u64, u64)| {
        let (groups, writes) = store.group_counts();
        let (groups, writes) = (groups - before.0, writes - before.1);
        if groups == 0 {
            return; // not run (filtered out)
        }
        eprintln!(
            "{name}: {writes} appends in {groups} groups (one fdatasync each): {:.2} appends per group",
            writes as f64 / groups as f64
        );
    };

    let before = store.group_counts();
    group.bench_function("sled_1_writer", |b| {
        b.iter_custom(|iters| {
            let events = chain(&next_game(), iters);
            let store = store.clone();
            rt.block_on(async move {
                let start = Instant::now();
                append_all(store.as_ref(), events).await;
                start.elapsed()
            })
        });
    });

    counted("sled_1_writer", before);

    // One iteration = one append by each of the writers.
    let before = store.group_counts();
    group.throughput(Throughput::Elements(WRITERS as u64));
    group.bench_function("sled_16_writers", |b| {
        b.iter_custom(|iters| {
            let chains: Vec<Vec<Envelope>> = (0..WRITERS).map(|_| chain(&next_game(), iters)).collect();
            let store = store.clone();
            rt.block_on(async move {
                let start = Instant::now();
                let tasks: Vec<_> = chains
                    .into_iter()
                    .map(|events| {
                        let store = store.clone();
                        tokio::spawn(async move { append_all(store.as_ref(), events).await })
                    })
                    .collect();
                for t in tasks {
                    t.await.expect("writer");
                }
                start.elapsed()
            })
        });
    });
    counted("sled_16_writers", before);
    group.finish();
    store.close().expect("close");
}

criterion_group!(benches, appends);
criterion_main!(benches);
