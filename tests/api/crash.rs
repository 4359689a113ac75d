//! The real binary is killed with SIGKILL in the middle of concurrent
//! submits: every command that got a 2xx answer survives the restart, and no
//! partial write breaks a chain.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::{agent, seat_tokens, str_of};
use crate::process::{call, serve};

#[test]
fn sigkill_mid_stream_loses_no_acknowledged_command() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut child, base) = serve(tmp.path(), &[]);
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
    let (mut child, base) = serve(tmp.path(), &[]);
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
