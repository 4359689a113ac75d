//! Damaged files: on stopped copies of a data directory with several played
//! games, each sled file is truncated, has bytes flipped, or is zeroed. The
//! real binary then either serves every game exactly as before, or names the
//! damage (refuses to start with a message naming what is damaged, or the
//! damaged game answers 500 "stored data damaged"). Never a silent loss,
//! never a panic.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::{agent, seat_tokens, str_of};
use crate::process::call;

/// A generous bound for a start on a busy machine (not a speed target).
const START_BOUND: Duration = Duration::from_secs(120);

enum Started {
    Serving(Child, String),
    /// Exited before serving: exit code and everything it wrote to stderr.
    Refused(Option<i32>, String),
    Hung,
}

fn start(dir: &Path) -> Started {
    // What the binaries run so far answered is documented (their answers are
    // recorded to a file: see `helpers::answers_file`).
    crate::helpers::assert_answers_documented();
    let mut child = Command::new(env!("CARGO_BIN_EXE_runestone"))
        .arg("serve")
        .env("RUNESTONE__SERVER__PORT", "0")
        .env("RUNESTONE__SERVER__WORKERS", "1")
        .env("RUNESTONE__STORAGE__PATH", dir)
        .envs(crate::helpers::TRUSTED_ENV)
        .env("RUST_LOG", "warn")
        .env(crate::helpers::FIXTURES.0, crate::helpers::FIXTURES.1)
        .env(runestone::http::RECORD_ENV, crate::helpers::answers_file())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    // Drain stderr so the server never blocks on it; keep it for a refusal.
    let (etx, erx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        let _ = etx.send(text);
    });
    match rx.recv_timeout(START_BOUND) {
        Ok(line) if line.starts_with("runestone is serving") => {
            let base = line.trim().rsplit(' ').next().unwrap().to_owned();
            Started::Serving(child, base)
        }
        Ok(_) => {
            let status = child.wait().unwrap();
            Started::Refused(status.code(), erx.recv_timeout(START_BOUND).unwrap_or_default())
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            Started::Hung
        }
    }
}

fn stop(mut child: Child, graceful: bool) {
    if graceful {
        Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap();
    } else {
        child.kill().unwrap();
    }
    child.wait().unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Every file under the store's directory, blobs included.
fn store_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(store_files(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[derive(Clone, Copy, Debug)]
enum Damage {
    TruncateEmpty,
    TruncateHalf,
    TruncateLast100,
    FlipNearStart,
    FlipQuarter,
    FlipMiddle,
    FlipThreeQuarters,
    FlipNearEnd,
    FlipEvery97th,
    Zero,
    Delete,
}

const DAMAGES: [Damage; 11] = [
    Damage::TruncateEmpty,
    Damage::TruncateHalf,
    Damage::TruncateLast100,
    Damage::FlipNearStart,
    Damage::FlipQuarter,
    Damage::FlipMiddle,
    Damage::FlipThreeQuarters,
    Damage::FlipNearEnd,
    Damage::FlipEvery97th,
    Damage::Zero,
    Damage::Delete,
];

fn apply(file: &Path, damage: Damage) {
    let mut bytes = std::fs::read(file).unwrap();
    let len = bytes.len();
    let mut flip = |at: usize| {
        if len > 0 {
            bytes[at.min(len - 1)] ^= 0xff;
        }
    };
    match damage {
        Damage::TruncateEmpty => bytes.clear(),
        Damage::TruncateHalf => bytes.truncate(len / 2),
        Damage::TruncateLast100 => bytes.truncate(len.saturating_sub(100)),
        Damage::FlipNearStart => flip(len.min(64) / 2 + 7),
        Damage::FlipQuarter => flip(len / 4),
        Damage::FlipMiddle => flip(len / 2),
        Damage::FlipThreeQuarters => flip(len * 3 / 4),
        Damage::FlipNearEnd => flip(len.saturating_sub(40)),
        Damage::FlipEvery97th => {
            for at in (13..len).step_by(97) {
                flip(at);
            }
        }
        Damage::Zero => bytes.iter_mut().for_each(|b| *b = 0),
        Damage::Delete => {
            std::fs::remove_file(file).unwrap();
            return;
        }
    }
    std::fs::write(file, bytes).unwrap();
}

#[test]
fn damaged_files_are_named_never_served_silently() {
    // The original: six duels of four seats with secret bids, played a while.
    let original = tempfile::tempdir().unwrap();
    let Started::Serving(child, base) = start(original.path()) else { panic!("the original server did not start") };
    let a = agent();
    let mut games = Vec::new();
    for g in 0..6u64 {
        let seats: Vec<Value> = (0..4).map(|i| json!({"name": format!("P{i}")})).collect();
        let (s, created) =
            call(&a, "POST", &format!("{base}/api/v1/games"), None, Some(&json!({"ruleset": "duel", "seats": seats})))
                .expect("the server answers");
        assert_eq!(s, 201, "{created}");
        let game = str_of(&created, "game_id").to_owned();
        let tokens = seat_tokens(&created);
        for n in 0..(8 + 4 * g) {
            let body = json!({"command": {"type": "Bid", "amount": n % 10 + 1}});
            let t = &tokens[(n % 3) as usize];
            let (s, v) = call(&a, "POST", &format!("{base}/api/v1/games/{game}/commands"), Some(t), Some(&body))
                .expect("the server answers");
            assert_eq!(s, 200, "{v}");
        }
        games.push(game);
    }
    let logs = |base: &str| -> Vec<(u16, Value)> {
        games
            .iter()
            .map(|g| {
                call(&a, "GET", &format!("{base}/api/v1/games/{g}/events"), None, None).expect("the server answers")
            })
            .collect()
    };
    let want = logs(&base);
    stop(child, true);

    let files: Vec<PathBuf> = store_files(&original.path().join("events"))
        .into_iter()
        .map(|p| p.strip_prefix(original.path()).unwrap().to_owned())
        .collect();
    assert!(files.iter().any(|f| f.ends_with("db")), "sled's log file is among {files:?}");
    let mut table = Vec::new();
    let mut failures = Vec::new();
    for file in &files {
        for damage in DAMAGES {
            let copy = tempfile::tempdir().unwrap();
            copy_dir(original.path(), copy.path());
            apply(&copy.path().join(file), damage);
            let case = format!("{} {damage:?}", file.display());
            let outcome = match start(copy.path()) {
                Started::Hung => {
                    failures.push(format!("{case}: hung at start"));
                    "HUNG".to_string()
                }
                Started::Refused(code, stderr) => {
                    let first = stderr.lines().find(|l| l.starts_with("error:")).unwrap_or("").to_owned();
                    if code == Some(101) || stderr.contains("panicked") {
                        failures.push(format!("{case}: panicked: {stderr}"));
                        "PANIC".to_string()
                    } else if !(first.contains("damaged") || first.contains("lost")) || !first.contains("events") {
                        failures.push(format!("{case}: refused without naming the damage: {stderr}"));
                        format!("refused, unnamed: {first}")
                    } else {
                        format!("refused at start: {}", first.chars().take(600).collect::<String>())
                    }
                }
                Started::Serving(child, base) => {
                    let got = logs(&base);
                    let mut intact = 0;
                    let mut named = 0;
                    for ((g, (ws, wv)), (s, v)) in games.iter().zip(&want).zip(&got) {
                        if (s, v) == (ws, wv) {
                            intact += 1;
                        } else if *s == 500 && v["detail"].as_str().is_some_and(|d| d.contains("damaged")) {
                            named += 1;
                        } else {
                            failures.push(format!("{case}: game {g} silently differs: {s} {v}"));
                        }
                    }
                    stop(child, false);
                    format!("served: {intact} games intact, {named} answer their damage")
                }
            };
            table.push((case, outcome));
        }
    }
    eprintln!("damaged-files cases ({}):", table.len());
    for (case, outcome) in &table {
        eprintln!("  {case:<40} {outcome}");
    }
    assert!(
        failures.is_empty(),
        "{} cases lost data silently, hung or panicked:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(table.len() >= 30, "only {} cases", table.len());
}

#[test]
fn a_shortened_log_answers_that_the_stored_data_is_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let Started::Serving(child, base) = start(dir.path()) else { panic!("the server did not start") };
    let a = agent();
    let seats: Vec<Value> = (0..3).map(|i| json!({"name": format!("P{i}")})).collect();
    let (_, created) =
        call(&a, "POST", &format!("{base}/api/v1/games"), None, Some(&json!({"ruleset": "duel", "seats": seats})))
            .expect("the server answers");
    let game = str_of(&created, "game_id").to_owned();
    let token = seat_tokens(&created)[0].clone();
    let body = json!({"command": {"type": "Bid", "amount": 3}});
    let (s, _) = call(&a, "POST", &format!("{base}/api/v1/games/{game}/commands"), Some(&token), Some(&body))
        .expect("the server answers");
    assert_eq!(s, 200);
    let (_, log) =
        call(&a, "GET", &format!("{base}/api/v1/games/{game}/events"), None, None).expect("the server answers");
    let head = log["events"].as_array().unwrap().len() as u64 - 1;
    stop(child, true);

    // The last event disappears from sled's tree, as if the log were cut.
    {
        let events = dir.path().join("events");
        let db = runestone::store::sled::sled_config(&events, Default::default()).open().unwrap();
        let mut key = vec![b'e'];
        key.extend_from_slice(game.as_bytes());
        key.extend_from_slice(&head.to_be_bytes());
        db.open_tree("main").unwrap().remove(key).unwrap().expect("the last event was there");
        db.flush().unwrap();
    }
    let Started::Serving(child, base) = start(dir.path()) else { panic!("the server did not start") };
    for path in ["events", "verify"] {
        let (s, v) =
            call(&a, "GET", &format!("{base}/api/v1/games/{game}/{path}"), None, None).expect("the server answers");
        assert_eq!(s, 500, "{path}: {v}");
        let detail = v["detail"].as_str().unwrap();
        assert!(
            detail.contains("damaged") && detail.contains(&game) && detail.contains(&format!("seq {head}")),
            "{detail}"
        );
        assert!(!detail.contains("try again"), "{detail}");
    }
    let (s, _) = call(&a, "POST", &format!("{base}/api/v1/games/{game}/commands"), Some(&token), Some(&body))
        .expect("the server answers");
    assert_eq!(s, 500, "no command is decided on a damaged log");
    stop(child, false);

    let out = Command::new(env!("CARGO_BIN_EXE_runestone")).args(["check", "--data"]).arg(dir.path()).output().unwrap();
    assert!(!out.status.success(), "check fails on damage");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains(&format!("DAMAGED game {game}")), "{report}");
}

/// A damage done to a file's bytes.
type Edit = Box<dyn Fn(&mut Vec<u8>)>;

/// The journal's records as they lie in the file from offset 0, read
/// through to the first that is not whole (whatever their pass): their
/// offsets and the offset after the last. A record is `length (u32) ‖
/// crc32 (u32) ‖ body` (`store::journal`).
fn journal_records(bytes: &[u8]) -> (Vec<usize>, usize) {
    let mut at = 0;
    let mut out = Vec::new();
    while let Some(head) = bytes.get(at..at + 8) {
        let len = u32::from_be_bytes(head[..4].try_into().unwrap()) as usize;
        let crc = u32::from_be_bytes(head[4..].try_into().unwrap());
        match bytes.get(at + 8..at + 8 + len) {
            Some(body) if len >= 17 && crc32(body) == crc => {
                out.push(at);
                at += 8 + len;
            }
            _ => break,
        }
    }
    (out, at)
}

/// crc32 (IEEE), as the journal's records carry it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// Every file under `dir` with a hash of its bytes.
fn hashes(dir: &Path) -> Vec<(PathBuf, u64)> {
    use std::hash::{Hash, Hasher};
    store_files(dir)
        .into_iter()
        .map(|p| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            std::fs::read(&p).unwrap().hash(&mut h);
            (p, h.finish())
        })
        .collect()
}

/// `runestone check` on `dir`: whether it passed, and what it wrote.
fn check(dir: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_runestone")).args(["check", "--data"]).arg(dir).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// The journal's contents damaged, after a clean stop and after a SIGKILL:
/// bit flips in its first, a middle and its last record, zeroed blocks,
/// the file cut at each record boundary. Every case either serves every
/// acknowledged command or refuses to start naming the journal; `runestone
/// check` names every case the start refuses, and changes no byte of the
/// directory it checks, the untouched images included.
#[test]
fn a_damaged_journal_is_named_never_a_silent_loss_and_check_changes_no_byte() {
    let crashed = tempfile::tempdir().unwrap();
    let Started::Serving(child, base) = start(crashed.path()) else { panic!("the server did not start") };
    let a = agent();
    let mut games = Vec::new();
    for g in 0..3u64 {
        let seats: Vec<Value> = (0..3).map(|i| json!({"name": format!("P{i}")})).collect();
        let (s, created) =
            call(&a, "POST", &format!("{base}/api/v1/games"), None, Some(&json!({"ruleset": "duel", "seats": seats})))
                .expect("the server answers");
        assert_eq!(s, 201, "{created}");
        let game = str_of(&created, "game_id").to_owned();
        let tokens = seat_tokens(&created);
        for n in 0..(3 + g) {
            let body = json!({"command": {"type": "Bid", "amount": n % 10 + 1}});
            let t = &tokens[(n % 2) as usize];
            let (s, v) = call(&a, "POST", &format!("{base}/api/v1/games/{game}/commands"), Some(t), Some(&body))
                .expect("the server answers");
            assert_eq!(s, 200, "{v}");
        }
        games.push(game);
    }
    let logs = |base: &str| -> Vec<(u16, Value)> {
        games
            .iter()
            .map(|g| {
                call(&a, "GET", &format!("{base}/api/v1/games/{g}/events"), None, None).expect("the server answers")
            })
            .collect()
    };
    let want = logs(&base);
    // As `kill -9` leaves it: every command above was acknowledged.
    stop(child, false);
    // The same data stopped cleanly: the crash image started and stopped.
    let clean = tempfile::tempdir().unwrap();
    copy_dir(crashed.path(), clean.path());
    let Started::Serving(child, base) = start(clean.path()) else { panic!("the crash image did not start") };
    assert_eq!(logs(&base), want, "the crash image serves every acknowledged command");
    stop(child, true);

    let journal = Path::new("events").join("journal");
    let mut table = Vec::new();
    let mut failures = Vec::new();
    for (image, dir) in [("SIGKILL", crashed.path()), ("clean stop", clean.path())] {
        let bytes = std::fs::read(dir.join(&journal)).unwrap();
        let (records, end) = journal_records(&bytes);
        assert!(records.len() >= 4, "{image}: {} records", records.len());
        let (first, middle, last) = (records[0], records[records.len() / 2], records[records.len() - 1]);
        let block = |at: usize| at / 4096 * 4096;
        let mut cases: Vec<(String, Edit)> = vec![
            ("untouched".into(), Box::new(|_: &mut Vec<u8>| {})),
            ("flip in the first record".into(), Box::new(move |b: &mut Vec<u8>| b[first + 12] ^= 0x10)),
            (format!("flip in a middle record (at {middle})"), Box::new(move |b: &mut Vec<u8>| b[middle + 30] ^= 0x01)),
            (format!("flip in the last record (at {last})"), Box::new(move |b: &mut Vec<u8>| b[last + 30] ^= 0x01)),
            (
                format!("flip in the last record's seq (at {last})"),
                Box::new(move |b: &mut Vec<u8>| b[last + 23] ^= 0x04),
            ),
        ];
        // A zeroed block that starts where a record starts and takes every
        // record after it looks exactly like a stop before they were written
        // (the journal cannot tell); such a case is listed, not counted.
        let mut limits = Vec::new();
        for at in [first, middle, last] {
            let from = block(at);
            let what = format!("zeroed block {from}..{}", from + 4096);
            if from > 0 && records.contains(&from) && end <= from + 4096 {
                limits.push(what.clone());
            }
            cases.push((what, Box::new(move |b: &mut Vec<u8>| b[from..from + 4096].iter_mut().for_each(|x| *x = 0))));
        }
        for at in records.iter().copied().chain([end]) {
            cases.push((format!("cut at the record boundary {at}"), Box::new(move |b: &mut Vec<u8>| b.truncate(at))));
        }
        for (what, damage) in &cases {
            let case = format!("{image}, {what}");
            let copy = tempfile::tempdir().unwrap();
            copy_dir(dir, copy.path());
            let mut bytes = std::fs::read(copy.path().join(&journal)).unwrap();
            damage(&mut bytes);
            std::fs::write(copy.path().join(&journal), bytes).unwrap();
            let before = hashes(copy.path());
            let (passed, report) = check(copy.path());
            if hashes(copy.path()) != before {
                failures.push(format!("{case}: `runestone check` changed the directory it checked"));
            }
            let outcome = match start(copy.path()) {
                Started::Hung => {
                    failures.push(format!("{case}: hung at start"));
                    "HUNG".to_string()
                }
                Started::Refused(code, stderr) => {
                    let first = stderr.lines().find(|l| l.starts_with("error:")).unwrap_or("").to_owned();
                    if code == Some(101) || stderr.contains("panicked") {
                        failures.push(format!("{case}: panicked: {stderr}"));
                    } else if !first.contains("journal") || !first.contains("damaged") {
                        failures.push(format!("{case}: refused without naming the journal's damage: {stderr}"));
                    }
                    if passed || !report.contains("journal") {
                        failures.push(format!(
                            "{case}: the start refuses, but `runestone check` does not name it: {report}"
                        ));
                    }
                    format!("refused; check names it: {}", first.chars().take(300).collect::<String>())
                }
                Started::Serving(child, base) => {
                    let got = logs(&base);
                    stop(child, false);
                    if got != want && limits.contains(what) {
                        table.push((case, "LIMIT: served without the zeroed records' commands".into()));
                        continue;
                    }
                    if got != want {
                        failures.push(format!("{case}: served without every acknowledged command"));
                    }
                    if *what == "untouched" && !passed {
                        failures.push(format!("{case}: `runestone check` fails an intact store: {report}"));
                    }
                    format!(
                        "served every acknowledged command; check {}",
                        if passed { "passes" } else { "names damage" }
                    )
                }
            };
            table.push((case, outcome));
        }
    }
    eprintln!("damaged-journal cases ({}):", table.len());
    for (case, outcome) in &table {
        eprintln!("  {case:<50} {outcome}");
    }
    assert!(failures.is_empty(), "{} cases failed:\n{}", failures.len(), failures.join("\n"));
}
