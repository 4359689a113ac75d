//! Disk per played game: the 5-clan Bardagi golden log (820
//! events, seed 4) written into a fresh sled store the way the service
//! writes a played game, then the store closed cleanly and its files
//! measured beside what it holds.
//!
//! The writes follow the service: one append per decision (the events from
//! one event carrying a decision up to the next), each with the game's
//! private record as its side record; a snapshot where the service writes
//! one (`service::snapshot_due`).
//! Every run writes the same bytes, so before and after builds compare the
//! same game.
//!
//! Printed: the payload (events as stored, snapshots, side records, keys),
//! the bytes written to the store's files while the game was written (the
//! process's `wchar`, nearly all of it sled's log), the store directory
//! after the close file by file, and the log read back and checked.
//!
//! `cargo bench --bench disk` (`-- GOLDEN_LOG` for another log; `--
//! --played` instead plays a 5-clan game by the bots through the service, as
//! `benches/view.rs` does, and measures its store the same way; `-- --games
//! N` writes N games into one store, one append of each in turn, as a public
//! instance interleaves its games, and prints the directory per game: copies
//! of the golden log under other ids, their chain hashes computed again, or
//! with `--played` N games played by the bots; `-- --compressed` makes
//! the store with sled's pages compressed, `storage.compress_pages`).

use std::path::Path;

use runestone::store::sled::SledStore;
use runestone::store::{EventStore, Side, SideWrite, Write};
use runestone_engine::{Envelope, Table};

mod support;

/// The golden log written when no other is named.
const GOLDEN: &str = "events/bardagi/5-players-seed-4.jsonl";
/// The service's default snapshot interval.
const INTERVAL: u64 = 64;
/// The size of a played game's private record (seed, seats, contacts) as the
/// service writes it, in bytes; its content does not matter here.
const RECORD_BYTES: usize = 420;

/// Bytes this process has written through `write`-like calls so far.
fn written() -> u64 {
    std::fs::read_to_string("/proc/self/io")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("wchar: ").and_then(|n| n.trim().parse().ok())))
        .unwrap_or(0)
}

/// The appends of a played game: one per decision.
fn appends(log: &[Envelope]) -> Vec<&[Envelope]> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, e) in log.iter().enumerate() {
        if i > start && e.decision.is_some() {
            out.push(&log[start..i]);
            start = i;
        }
    }
    out.push(&log[start..]);
    out
}

/// What sled's trees hold live after the close, by tree and key kind: keys,
/// their bytes and their values' bytes (the store must be closed).
fn live(store_dir: &Path) -> String {
    // sled's threads of the store just closed may hold its lock a moment.
    let config = runestone::store::sled::sled_config(store_dir, Default::default());
    let mut tries = 0;
    let db = loop {
        match config.open() {
            Ok(db) => break db,
            Err(e) if tries < 500 => {
                tries += 1;
                if tries == 500 {
                    panic!("sled alone does not open the closed store: {e}");
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => panic!("sled alone does not open the closed store: {e}"),
        }
    };
    let mut out = Vec::new();
    for tree in ["main", "snapshots"] {
        let t = db.open_tree(tree).expect("tree");
        let mut kinds: std::collections::BTreeMap<String, (usize, usize, usize)> = Default::default();
        for item in t.iter() {
            let (k, v) = item.expect("read");
            let kind = if tree == "snapshots" { "snapshot".to_owned() } else { char::from(k[0]).to_string() };
            let e = kinds.entry(kind).or_default();
            *e = (e.0 + 1, e.1 + k.len(), e.2 + v.len());
        }
        for (kind, (n, k, v)) in kinds {
            out.push(format!("{tree}/{kind}: {n} keys, {k} bytes of keys, {v} of values"));
        }
    }
    out.join("; ")
}

/// With `--compressed`, create the store with sled's pages compressed, as
/// the server does with `storage.compress_pages = true` (the store keeps
/// the setting it was made with).
fn compressed_if_asked(store_dir: &Path) {
    if std::env::args().any(|a| a == "--compressed") {
        let settings = runestone::store::sled::SledSettings { compress_new: true, ..Default::default() };
        let db = runestone::store::sled::sled_config(store_dir, settings).open().expect("sled");
        db.flush().expect("flush");
    }
}

/// The value of `--games N` (1 when not given).
fn games_arg() -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == "--games")
        .and_then(|i| args.get(i + 1))
        .map(|n| n.parse().expect("--games takes a number"))
        .unwrap_or(1)
}

/// The golden log as game number `n`: its id's last three characters
/// replaced by `n`, and every event's chain hashes computed again, so each
/// copy is a valid log of its own game (copy 0 is the log itself).
fn copy_of(log: &[Envelope], n: usize) -> Vec<Envelope> {
    if n == 0 {
        return log.to_vec();
    }
    let id = format!("{}{n:03}", &log[0].game[..log[0].game.len() - 3]);
    let mut prev = runestone_engine::log::GENESIS;
    log.iter()
        .map(|e| {
            let mut e = e.clone();
            e.game = id.clone();
            e.prev_hash = prev;
            e.hash = runestone_engine::log::chain_hash(&e);
            prev = e.hash;
            e
        })
        .collect()
}

/// Play `n` 5-clan Bardagi games by the seats' fallbacks through the
/// service on a sled store at `store_dir` (as `benches/view.rs` does), each
/// to about 710 events, one decision of each game in turn (as a public
/// instance interleaves its games); the store is closed after. The events
/// of every game.
fn play(store_dir: &Path, n: usize) -> Vec<u64> {
    use runestone::auth::{Claims, Role};
    use serde_json::json;
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    compressed_if_asked(store_dir);
    let store = std::sync::Arc::new(SledStore::open(store_dir).expect("open the store"));
    let service = support::service(store.clone(), INTERVAL);
    let heads = rt.block_on(async {
        let mut games = Vec::new();
        for _ in 0..n {
            let seats: Vec<_> = (0..5).map(|i| json!({ "name": format!("Clan {i}") })).collect();
            let created = service
                .create(json!({ "ruleset": "bardagi", "options": {}, "seats": seats }), None)
                .await
                .expect("create the game");
            games.push(created.body["game_id"].as_str().expect("game id").to_owned());
        }
        let mut heads = vec![0; n];
        let mut playing: Vec<usize> = (0..n).collect();
        while !playing.is_empty() {
            let mut still = Vec::new();
            for i in playing {
                let game = &games[i];
                let table = service.game_table(game).await.expect("the game");
                heads[i] = table.head;
                if table.head >= 710 || table.is_over() {
                    continue;
                }
                still.push(i);
                let seat = table.pending().iter().find(|p| !p.submitted).expect("someone owes a decision").seat;
                let command = table.fallback(seat).expect("a fallback");
                let claims =
                    Claims { sub: game.clone(), role: Role::Seat, seat: Some(seat), gen: 0, iat: 0, exp: i64::MAX };
                service
                    .submit(game, &claims, json!({ "command": command, "expected_seq": table.head }), None)
                    .await
                    .expect("the fallback is accepted");
            }
            playing = still;
        }
        heads
    });
    drop(service);
    store.close().expect("a clean close");
    heads.iter().map(|h| h + 1).collect()
}

/// One game's writes as the service makes them: its appends (one per
/// decision) and the snapshots due inside each.
struct GameWrites<'a> {
    game: String,
    appends: Vec<&'a [Envelope]>,
    table: Option<Table>,
    next: usize,
}

fn main() {
    let n = games_arg();
    if std::env::args().any(|a| a == "--played") {
        let dir = tempfile::tempdir().expect("tempdir");
        let store_dir = dir.path().join("events");
        let before = written();
        let events = play(&store_dir, n);
        let wrote = written() - before;
        let on_disk = support::dir_bytes(&store_dir);
        let total: u64 = events.iter().sum();
        eprintln!("{n} games played by the bots through the service, one decision of each in turn: {total} events ({events:?})");
        eprintln!("written to the store's files while playing: {wrote} bytes");
        eprintln!("store directory after a clean close: {on_disk} bytes: {}", support::dir_files(&store_dir));
        eprintln!("per game: {} bytes", on_disk / n as u64);
        eprintln!("live in sled: {}", live(&store_dir));
        return;
    }
    let path = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-') && a.parse::<usize>().is_err())
        .unwrap_or_else(|| GOLDEN.to_owned());
    let text = std::fs::read_to_string(&path).expect("the golden log");
    let log: Vec<Envelope> =
        text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("an envelope")).collect();
    let copies: Vec<Vec<Envelope>> = (0..n).map(|i| copy_of(&log, i)).collect();
    let registry = runestone::games::registry();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");

    let dir = tempfile::tempdir().expect("tempdir");
    let store_dir = dir.path().join("events");
    compressed_if_asked(&store_dir);
    let store = SledStore::open(&store_dir).expect("open the store");
    let record = vec![b'r'; RECORD_BYTES];
    let before = written();
    // The snapshots' bytes as the engine made them and as the store holds them.
    let mut made_bytes = 0;
    let (mut snapshots, mut snapshot_bytes, mut groups) = (0usize, 0usize, 0usize);
    let mut games: Vec<GameWrites> = copies
        .iter()
        .map(|log| GameWrites { game: log[0].game.clone(), appends: appends(log), table: None, next: 0 })
        .collect();
    // One append of each game in turn, as a public instance interleaves them.
    while games.iter().any(|g| g.next < g.appends.len()) {
        for g in games.iter_mut().filter(|g| g.next < g.appends.len()) {
            let events = g.appends[g.next];
            g.next += 1;
            let mut next = match &g.table {
                None => Table::fold(&registry, &events[..1]).expect("the first event folds"),
                Some(t) => t.clone(),
            };
            let skip = usize::from(g.table.is_none());
            let mut inside = Vec::new();
            for e in &events[skip..] {
                next.push(e).expect("the golden log folds");
                if runestone::service::snapshot_due(next.head, INTERVAL) {
                    inside.push((next.head, next.snapshot()));
                }
            }
            let write = Write {
                game: g.game.clone(),
                expect_head: g.table.as_ref().map(|t| t.head),
                events: events.to_vec(),
                side: vec![SideWrite {
                    side: Side::Games,
                    key: g.game.as_bytes().to_vec(),
                    value: Some(record.clone()),
                }],
                unchanged: Vec::new(),
            };
            rt.block_on(store.append(write)).expect("append");
            groups += 1;
            for (seq, bytes) in inside {
                store.put_snapshot(&g.game, seq, &bytes).expect("a snapshot");
                snapshots += 1;
                made_bytes += bytes.len();
                snapshot_bytes += runestone::store::codec::compress_snapshot(&bytes).len();
            }
            g.table = Some(next);
        }
    }
    store.close().expect("a clean close");
    drop(store);
    let wrote = written() - before;

    let events: usize =
        copies.iter().flatten().map(|e| runestone::store::codec::encode_event(e).expect("the stored form").len()).sum();
    let keys = n * log.len() * (1 + 16 + 8) + snapshots * (16 + 8);
    let payload = events + snapshot_bytes + n * RECORD_BYTES + keys;
    let on_disk = support::dir_bytes(&store_dir);
    eprintln!("{path}: {n} games of {} events in {groups} appends, one append of each game in turn", log.len());
    eprintln!(
        "payload: {payload} bytes = {events} of events as stored + {snapshot_bytes} in {snapshots} snapshots ({made_bytes} as made) \
         + {} of private records + {keys} of keys",
        n * RECORD_BYTES
    );
    eprintln!(
        "written to the store's files while writing the games: {wrote} bytes ({:.2}× the payload)",
        wrote as f64 / payload as f64
    );
    eprintln!(
        "store directory after a clean close: {on_disk} bytes ({:.2}× the payload): {}",
        on_disk as f64 / payload as f64,
        support::dir_files(&store_dir)
    );
    eprintln!("per game: {} bytes", on_disk / n as u64);
    eprintln!("live in sled: {}", live(&store_dir));

    // A cold read: the store opened again (sled's page cache empty, the
    // files in the kernel's cache), the first game's log read twice; the
    // first read pages the tree in from the log file, decompressing its
    // pages when the store compresses them.
    let t = std::time::Instant::now();
    let store = SledStore::open(&store_dir).expect("open the store again");
    let opened = t.elapsed();
    let t = std::time::Instant::now();
    let first = store.load(&copies[0][0].game, 0, None).expect("the log");
    let cold = t.elapsed();
    let t = std::time::Instant::now();
    let again = store.load(&copies[0][0].game, 0, None).expect("the log");
    let warm = t.elapsed();
    assert_eq!(first, again);
    eprintln!(
        "reopen {:.2} ms; the first game's log ({} events) read cold {:.2} ms, again {:.2} ms",
        opened.as_secs_f64() * 1e3,
        first.len(),
        cold.as_secs_f64() * 1e3,
        warm.as_secs_f64() * 1e3
    );
    for copy in &copies {
        let back = store.load(&copy[0].game, 0, None).expect("the log");
        assert_eq!(back.len(), copy.len(), "every event read back");
        for (a, b) in back.iter().zip(copy) {
            assert_eq!(
                serde_json::to_string(a).expect("JSON"),
                serde_json::to_string(b).expect("JSON"),
                "seq {}",
                a.seq
            );
        }
    }
    store.close().expect("close");
    eprintln!("read back: {n} × {} events, each the same JSON as written", log.len());

    // The stored form's cost: each event encoded and decoded in form 1 and
    // in form 2 (the median of 21 passes over the whole log).
    use runestone::store::codec;
    use std::hint::black_box;
    let median = |f: &dyn Fn()| {
        let mut times: Vec<std::time::Duration> = (0..21)
            .map(|_| {
                let t = std::time::Instant::now();
                f();
                t.elapsed()
            })
            .collect();
        times.sort();
        times[10].as_secs_f64() * 1e6 / log.len() as f64
    };
    let v1: Vec<Vec<u8>> = log.iter().map(|e| codec::encode_v1(e).expect("form 1")).collect();
    let v2: Vec<Vec<u8>> = log.iter().map(|e| codec::encode_v2(e).expect("form 2")).collect();
    let now: Vec<Vec<u8>> = log.iter().map(|e| codec::encode_event(e).expect("form 3")).collect();
    let encode_1 = median(&|| log.iter().for_each(|e| drop(black_box(codec::encode_v1(e)))));
    let encode_2 = median(&|| log.iter().for_each(|e| drop(black_box(codec::encode_v2(e)))));
    let encode_3 = median(&|| log.iter().for_each(|e| drop(black_box(codec::encode_event(e)))));
    let decode_1 = median(&|| v1.iter().for_each(|b| drop(black_box(codec::decode_event(b)))));
    let decode_2 = median(&|| v2.iter().for_each(|b| drop(black_box(codec::decode_event(b)))));
    // Form 3 is read with the event's place: its game and the hash before it.
    let decode_3 = median(&|| {
        now.iter().zip(&log).for_each(|(b, e)| {
            drop(black_box(codec::decode_event_after(b, &e.game, e.prev_hash).expect("form 3 reads")))
        })
    });
    eprintln!(
        "per event: encode {encode_1:.2} µs in form 1, {encode_2:.2} µs in form 2, {encode_3:.2} µs as stored now \
         (form 3, or 2 where smaller; each checked by a decode); decode {decode_1:.2} µs from form 1, \
         {decode_2:.2} µs from form 2, {decode_3:.2} µs as stored now (the trees rendered to text)"
    );
}
