//! The real binary is killed with SIGKILL in the middle of concurrent
//! submits: every command that got a 2xx answer survives the restart, and no
//! partial write breaks a chain.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::{agent, seat_tokens, str_of};

/// The `runestone serve` binary on port 0 over `dir`; returns it and its base URL.
fn start(dir: &Path) -> (Child, String) {
    // What the binaries run so far answered is documented (their answers are
    // recorded to a file: see `helpers::answers_file`).
    crate::helpers::assert_answers_documented();
    let mut child = Command::new(env!("CARGO_BIN_EXE_runestone"))
        .arg("serve")
        .env("RUNESTONE__SERVER__PORT", "0")
        .env("RUNESTONE__SERVER__WORKERS", "2")
        .env("RUNESTONE__STORAGE__PATH", dir)
        .env("RUST_LOG", "warn")
        .env(runestone::http::RECORD_ENV, crate::helpers::answers_file())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the binary starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).expect("a line from the server");
    let base = line.trim().rsplit(' ').next().expect("an address").to_owned();
    assert!(base.starts_with("http://"), "unexpected first line: {line:?}");
    (child, base)
}

fn call(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> Result<(u16, Value), String> {
    let mut req = ureq::http::Request::builder().method(method).uri(url);
    if let Some(t) = token {
        req = req.header("Authorization", format!("Bearer {t}"));
    }
    let resp = match body {
        Some(b) => agent.run(req.header("Content-Type", "application/json").body(b.to_string()).unwrap()),
        None => agent.run(req.body(()).unwrap()),
    };
    let mut resp = resp.map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().map_err(|e| e.to_string())?;
    Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
}

#[test]
fn sigkill_mid_stream_loses_no_acknowledged_command() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut child, base) = start(tmp.path());
    let a = agent();
    // Four-seat duels: seats 0 to 2 keep changing their secret bids (each
    // change is a recorded command); seat 3 never bids, so bidding goes on.
    let mut targets = Vec::new();
    let mut games = Vec::new();
    for _ in 0..4 {
        let seats: Vec<Value> = (0..4).map(|i| json!({"name": format!("P{i}")})).collect();
        let (s, created) =
            call(&a, "POST", &format!("{base}/api/v1/games"), None, Some(&json!({"ruleset": "duel", "seats": seats})))
                .unwrap();
        assert_eq!(s, 201);
        let game = str_of(&created, "game_id").to_owned();
        for t in seat_tokens(&created).into_iter().take(3) {
            targets.push((game.clone(), t));
        }
        games.push(game);
    }
    let acked: Arc<Mutex<Vec<(String, u64, String)>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = targets
        .into_iter()
        .enumerate()
        .map(|(i, (game, token))| {
            let (acked, stop, base) = (acked.clone(), stop.clone(), base.clone());
            std::thread::spawn(move || {
                let a = agent();
                let start = Instant::now();
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) && start.elapsed() < Duration::from_secs(60) {
                    n += 1;
                    let body = json!({"command": {"type": "Bid", "amount": (n + i as u64) % 10 + 1}});
                    match call(&a, "POST", &format!("{base}/api/v1/games/{game}/commands"), Some(&token), Some(&body)) {
                        Ok((200, v)) => {
                            let mut acked = acked.lock().unwrap();
                            for e in v["events"].as_array().unwrap() {
                                acked.push((
                                    game.clone(),
                                    e["seq"].as_u64().unwrap(),
                                    e["hash"].as_str().unwrap().to_owned(),
                                ));
                            }
                        }
                        Ok((status, v)) => panic!("unexpected answer {status}: {v}"),
                        Err(_) => break, // the server is gone
                    }
                }
            })
        })
        .collect();
    // Let a good number of commands through, then kill without warning.
    let t0 = Instant::now();
    while acked.lock().unwrap().len() < 150 && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL");
    child.wait().unwrap();
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    assert!(acked.len() >= 150, "only {} commands were acknowledged before the kill", acked.len());

    // Restart on the same data: every acknowledged event is there, the
    // chains hold, and the games go on.
    let (mut child, base) = start(tmp.path());
    let mut logs = std::collections::HashMap::new();
    for g in &games {
        let (s, v) = call(&a, "GET", &format!("{base}/api/v1/games/{g}/verify"), None, None).unwrap();
        assert_eq!((s, &v["ok"]), (200, &json!(true)), "{v}");
        let (_, ev) = call(&a, "GET", &format!("{base}/api/v1/games/{g}/events"), None, None).unwrap();
        logs.insert(g.clone(), ev["events"].as_array().unwrap().clone());
    }
    for (game, seq, hash) in &acked {
        let log = &logs[game];
        let stored = log.get(*seq as usize).unwrap_or_else(|| panic!("acknowledged event {seq} of {game} is lost"));
        assert_eq!(stored["hash"].as_str().unwrap(), hash, "event {seq} of {game} changed");
    }
    child.kill().unwrap();
    child.wait().unwrap();
}
