//! Disk per played game (issue 16): the 5-clan Bardagi golden log (820
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
//! `cargo bench --bench disk` (`-- GOLDEN_LOG` for another log).

use std::path::Path;

use runestone::store::sled::SledStore;
use runestone::store::{EventStore, Side, SideWrite, Write};
use runestone_engine::{Envelope, Table};

/// The golden log written when no other is named.
const GOLDEN: &str = "events/bardagi/5-players-seed-4.jsonl";
/// The service's default snapshot interval.
const INTERVAL: u64 = 64;
/// The size of a played game's private record (seed, seats, contacts) as the
/// service writes it, in bytes; its content does not matter here.
const RECORD_BYTES: usize = 420;

fn dir_bytes(path: &Path) -> u64 {
    std::fs::read_dir(path)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| match e.metadata() {
                    Ok(m) if m.is_dir() => dir_bytes(&e.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

/// Each entry of the directory with its bytes.
fn dir_files(path: &Path) -> String {
    let mut files: Vec<(String, u64)> = std::fs::read_dir(path)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| {
                    let bytes = match e.metadata() {
                        Ok(m) if m.is_dir() => dir_bytes(&e.path()),
                        Ok(m) => m.len(),
                        Err(_) => 0,
                    };
                    (e.file_name().to_string_lossy().into_owned(), bytes)
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files.iter().map(|(name, bytes)| format!("{name} {bytes}")).collect::<Vec<_>>().join(", ")
}

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

fn main() {
    let path = std::env::args().skip(1).find(|a| !a.starts_with('-')).unwrap_or_else(|| GOLDEN.to_owned());
    let text = std::fs::read_to_string(&path).expect("the golden log");
    let log: Vec<Envelope> =
        text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("an envelope")).collect();
    let game = log[0].game.clone();
    let registry = runestone::games::registry();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");

    let dir = tempfile::tempdir().expect("tempdir");
    let store_dir = dir.path().join("events");
    let store = SledStore::open(&store_dir).expect("open the store");
    let record = vec![b'r'; RECORD_BYTES];
    let before = written();
    // The snapshots' bytes as the engine made them and as the store holds them.
    let mut made_bytes = 0;
    let (mut table, mut snapshots, mut snapshot_bytes, mut groups): (Option<Table>, usize, usize, usize) =
        (None, 0, 0, 0);
    for events in appends(&log) {
        let mut next = match &table {
            None => Table::fold(&registry, &events[..1]).expect("the first event folds"),
            Some(t) => t.clone(),
        };
        let skip = usize::from(table.is_none());
        let mut inside = Vec::new();
        for e in &events[skip..] {
            next.push(e).expect("the golden log folds");
            if runestone::service::snapshot_due(next.head, INTERVAL) {
                inside.push((next.head, next.snapshot()));
            }
        }
        let write = Write {
            game: game.clone(),
            expect_head: table.as_ref().map(|t| t.head),
            events: events.to_vec(),
            side: vec![SideWrite { side: Side::Games, key: game.as_bytes().to_vec(), value: Some(record.clone()) }],
            unchanged: Vec::new(),
        };
        rt.block_on(store.append(write)).expect("append");
        groups += 1;
        for (seq, bytes) in inside {
            store.put_snapshot(&game, seq, &bytes).expect("a snapshot");
            snapshots += 1;
            made_bytes += bytes.len();
            snapshot_bytes += runestone::store::codec::compress_snapshot(&bytes).len();
        }
        table = Some(next);
    }
    store.close().expect("a clean close");
    drop(store);
    let wrote = written() - before;

    let events: usize =
        log.iter().map(|e| runestone::store::codec::encode_event(e).expect("the stored form").len()).sum();
    let keys = log.len() * (1 + 16 + 8) + snapshots * (16 + 8);
    let payload = events + snapshot_bytes + RECORD_BYTES + keys;
    let on_disk = dir_bytes(&store_dir);
    eprintln!("{path}: {} events in {groups} appends", log.len());
    eprintln!(
        "payload: {payload} bytes = {events} of events as stored + {snapshot_bytes} in {snapshots} snapshots ({made_bytes} as made) \
         + {RECORD_BYTES} of the private record + {keys} of keys"
    );
    eprintln!(
        "written to the store's files while writing the game: {wrote} bytes ({:.2}× the payload)",
        wrote as f64 / payload as f64
    );
    eprintln!(
        "store directory after a clean close: {on_disk} bytes ({:.2}× the payload): {}",
        on_disk as f64 / payload as f64,
        dir_files(&store_dir)
    );

    let store = SledStore::open(&store_dir).expect("open the store again");
    let back = store.load(&game, 0, None).expect("the log");
    assert_eq!(back.len(), log.len(), "every event read back");
    for (a, b) in back.iter().zip(&log) {
        assert_eq!(serde_json::to_string(a).expect("JSON"), serde_json::to_string(b).expect("JSON"), "seq {}", a.seq);
    }
    store.close().expect("close");
    eprintln!("read back: {} events, each the same JSON as the golden log", back.len());
}
