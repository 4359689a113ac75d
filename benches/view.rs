//! Time travel and disk: a 5-clan Bardagi game played through the
//! service on a sled store, each command the seat's fallback (the bot), to
//! about 710 events. Then, in one run:
//!
//! - `view?at=SEQ` at random past seqs beside the view at the head, each
//!   the answer's JSON text as the API sends it (what a player waits for;
//!   p50, p99 and max of each, and criterion's figures), and beside them a
//!   fixed computation as the reference of how much the machine's load
//!   stretches the same work;
//! - the disk the game takes: the store directory after a clean close, and
//!   the snapshots' count and bytes beside the events' stored bytes.
//!
//! `cargo bench --bench view` (`-- --quick` for fewer samples;
//! `VIEW_INTERVAL=32` for another snapshot interval than the default 64).

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use runestone::auth::{Claims, Role};
use runestone::service::Service;
use runestone::store::sled::SledStore;
use runestone::store::EventStore;
use runestone_engine::{Table, Viewer};
use serde_json::json;

mod support;

/// The events the game is played to (a whole 5-clan game is about 800).
const EVENTS: u64 = 710;
/// Requests timed for each percentile figure.
const SAMPLES: usize = 2000;

fn claims(game: &str, seat: u8) -> Claims {
    Claims { sub: game.to_owned(), role: Role::Seat, seat: Some(seat), gen: 0, iat: 0, exp: i64::MAX }
}

/// Play a 5-clan game to [`EVENTS`] events by the seats' fallbacks.
async fn play(service: &Service) -> String {
    let seats: Vec<_> = (0..5).map(|i| json!({ "name": format!("Clan {i}") })).collect();
    let created = service
        .create(json!({ "ruleset": "bardagi", "options": {}, "seats": seats }), None)
        .await
        .expect("create the game");
    let game = created.body["game_id"].as_str().expect("game id").to_owned();
    loop {
        let table = service.game_table(&game).await.expect("the game");
        if table.head >= EVENTS || table.is_over() {
            return game;
        }
        // A secret plan already given may be changed but need not be.
        let seat = table.pending().iter().find(|p| !p.submitted).expect("someone owes a decision").seat;
        let command = table.fallback(seat).expect("a fallback");
        service
            .submit(&game, &claims(&game, seat), json!({ "command": command, "expected_seq": table.head }), None)
            .await
            .expect("the fallback is accepted");
    }
}

fn percentiles(name: &str, mut times: Vec<Duration>) {
    times.sort_unstable();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    eprintln!(
        "{name}: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms ({} requests)",
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
        times.len()
    );
}

/// The snapshot interval the game is played with: `VIEW_INTERVAL`, or the
/// default 64.
fn interval() -> u64 {
    std::env::var("VIEW_INTERVAL").ok().and_then(|v| v.parse().ok()).filter(|n| *n > 0).unwrap_or(64)
}

/// Random past seqs of a game whose head is `head`, from a fixed generator
/// (so every run, and the views and their stages, ask the same).
fn past_seqs(head: u64) -> impl FnMut() -> u64 {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        1 + x % (head - 1)
    }
}

/// Time `SAMPLES` views at random past seqs, each beside one at the head.
fn time_views(rt: &tokio::runtime::Runtime, service: &Service, game: &str, head: u64, what: &str) {
    let mut past = past_seqs(head);
    let viewer = Viewer::Seat(2);
    // The answer as the API sends it: its JSON text.
    let view = |at: Option<u64>| rt.block_on(service.view_answer(game, viewer, at)).expect("a view");
    for _ in 0..200 {
        view(Some(past()));
        view(None);
    }
    let (mut past_times, mut head_times) = (Vec::with_capacity(SAMPLES), Vec::with_capacity(SAMPLES));
    let mut reference_times = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        let t = Instant::now();
        std::hint::black_box(fixed_work());
        reference_times.push(t.elapsed());
        let at = past();
        let t = Instant::now();
        std::hint::black_box(view(Some(at)));
        past_times.push(t.elapsed());
        let t = Instant::now();
        std::hint::black_box(view(None));
        head_times.push(t.elapsed());
    }
    percentiles(&format!("{what}: view at a random past seq"), past_times);
    percentiles(&format!("{what}: view at the head"), head_times);
    percentiles(&format!("{what}: reference, the same fixed computation each time"), reference_times);

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group(format!("view_bardagi_5/{what}"));
    group.sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.bench_function("past_random", |b| b.iter(|| view(Some(past()))));
    group.bench_function("head", |b| b.iter(|| view(None)));
    group.finish();
}

/// Where a past view's time goes, stage by stage, for the same random past
/// seqs as the views (each stage's p50 and p99 over [`SAMPLES`] seqs): what
/// restoring a snapshot costs (read, the creation event read, unpacked and
/// loaded), what a copy of a restored position costs (what a view near a
/// snapshot restored before pays instead), the events after it read and
/// checked, applied, and the view written (seqs from the first snapshot
/// on).
fn stages(store: &SledStore, game: &str, head: u64) {
    let registry = runestone::games::registry();
    let mut past = past_seqs(head);
    let names = [
        "snapshot read",
        "creation event read",
        "snapshot restored",
        "restored position copied",
        "events read and checked",
        "events applied",
        "view written",
    ];
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(SAMPLES); names.len()];
    for _ in 0..SAMPLES {
        // Seqs before the first snapshot fold the log from its start.
        let mut at = past();
        while at < interval() {
            at = past();
        }
        let mut clock = Instant::now();
        let mut lap = |i: usize, times: &mut Vec<Vec<Duration>>| {
            let now = Instant::now();
            times[i].push(now - clock);
            clock = now;
        };
        let (seq, bytes) = store.snapshot_at_or_before(game, at).expect("snapshots").expect("a snapshot");
        lap(0, &mut times);
        let first = store.load(game, 0, Some(0)).expect("the creation event");
        lap(1, &mut times);
        let restored = Table::from_snapshot(&registry, &bytes, &first[0]).expect("the snapshot loads");
        lap(2, &mut times);
        let mut t = restored.clone();
        lap(3, &mut times);
        let raw = store.load_raw(game, seq, Some(at)).expect("the events");
        let events = raw.refs().expect("the events check");
        lap(4, &mut times);
        for e in &events[1..] {
            t.push_ref(e).expect("the event applies");
        }
        lap(5, &mut times);
        std::hint::black_box(t.view_text(Viewer::Seat(2), None));
        lap(6, &mut times);
        std::hint::black_box(restored);
    }
    let p = |v: &mut Vec<Duration>, q: f64| {
        v.sort_unstable();
        v[((v.len() as f64 * q) as usize).min(v.len() - 1)].as_secs_f64() * 1e3
    };
    for (name, mut v) in names.iter().zip(times) {
        eprintln!("past view stage, {name}: p50 {:.3} ms, p99 {:.3} ms", p(&mut v, 0.5), p(&mut v, 0.99));
    }
}

/// The same computation every time (about half a millisecond on this
/// machine when quiet), timed beside the views: how much a busy machine
/// stretches a fixed amount of work, at p50 and p99.
fn fixed_work() -> u64 {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..400_000u64 {
        x = std::hint::black_box(x.rotate_left(7) ^ i).wrapping_mul(0x2545_f491_4f6c_dd1d);
    }
    x
}

/// The seqs of the game's snapshots, walked back from `head`.
fn snapshot_seqs(store: &SledStore, game: &str, head: u64) -> Vec<(u64, usize)> {
    let (mut out, mut at) = (Vec::new(), head);
    while let Some((seq, bytes)) = store.snapshot_at_or_before(game, at).expect("snapshots") {
        out.push((seq, bytes.len()));
        if seq == 0 {
            break;
        }
        at = seq - 1;
    }
    out
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("events");
    let store = Arc::new(SledStore::open(&path).expect("open the store"));
    let svc = support::service(store.clone(), interval());
    let game = rt.block_on(play(&svc));
    let head = rt.block_on(svc.game_table(&game)).expect("the game").head;

    // The snapshots the service wrote, and the same positions in the JSON
    // form snapshots had before the packed one.
    let registry = runestone::games::registry();
    let log = store.load(&game, 0, None).expect("the log");
    let seqs = snapshot_seqs(&store, &game, head);
    let json_snapshots: Vec<(u64, Vec<u8>)> = seqs
        .iter()
        .map(|(seq, _)| {
            let t = Table::fold(&registry, &log[..=*seq as usize]).expect("fold");
            (*seq, serde_json::to_vec(&t.save()).expect("JSON"))
        })
        .collect();
    let events: usize = log.iter().map(|e| runestone::store::codec::encode_event(e).expect("stored form").len()).sum();
    eprintln!(
        "game of {} events: {events} bytes of events as stored; {} snapshots (interval {}): {} bytes packed, {} bytes \
         in the JSON form",
        head + 1,
        seqs.len(),
        interval(),
        seqs.iter().map(|(_, n)| n).sum::<usize>(),
        json_snapshots.iter().map(|(_, b)| b.len()).sum::<usize>(),
    );

    stages(&store, &game, head);
    time_views(&rt, &svc, &game, head, "packed_snapshots");

    drop(svc);
    drop(store);
    eprintln!(
        "store directory after a clean close: {} bytes for one game of {} events ({})",
        support::dir_bytes(&path),
        head + 1,
        support::dir_files(&path)
    );

    // The same views with the snapshots in the JSON form (earlier stores).
    let store = Arc::new(SledStore::open(&path).expect("open the store again"));
    for (seq, bytes) in &json_snapshots {
        store.put_snapshot(&game, *seq, bytes).expect("put a JSON snapshot");
    }
    let svc = support::service(store.clone(), interval());
    time_views(&rt, &svc, &game, head, "json_snapshots");
    Criterion::default().configure_from_args().final_summary();
}
