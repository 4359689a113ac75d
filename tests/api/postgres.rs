//! Two real server processes on one PostgreSQL database: seats
//! of the same games submit through both nodes at once, a client on node A
//! follows events submitted through node B, both nodes' outbox workers send
//! to one real SMTP listener, and one node is killed with SIGKILL mid-load.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::{agent, seat_tokens, str_of, TestApp};
use crate::process::{call, serve, smtp_settings};
use crate::smtp::SmtpSink;

const SECRET: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// `runestone serve` on port 0 with the PostgreSQL store of `url`, mail to
/// the SMTP sink on `smtp`; returns it and its base URL.
fn node(dir: &Path, url: &str, smtp: u16) -> (Child, String) {
    node_with_key(dir, url, smtp, SECRET)
}

fn node_with_key(dir: &Path, url: &str, smtp: u16, secret: &str) -> (Child, String) {
    let port = smtp.to_string();
    let mut settings = vec![
        ("RUNESTONE__STORAGE__BACKEND", "postgres"),
        ("RUNESTONE__STORAGE__URL", url),
        ("RUNESTONE__AUTH__JWT_SECRET", secret),
    ];
    settings.extend(smtp_settings(&port));
    serve(dir, &settings)
}

/// The `data:` of each event of the stream of `game` on `base` from seq
/// `from`, as a channel.
fn follow(base: &str, game: &str, token: &str, from: u64) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    let url = format!("{base}/api/v1/games/{game}/stream?token={token}&from={from}");
    std::thread::spawn(move || {
        let a: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let Ok(resp) = a.get(&url).call() else { return };
        let reader = BufReader::new(resp.into_body().into_reader());
        for line in reader.lines() {
            let Ok(line) = line else { return };
            if let Some(data) = line.strip_prefix("data: ") {
                if tx.send(serde_json::from_str(data).unwrap_or(Value::Null)).is_err() {
                    return;
                }
            }
        }
    });
    rx
}

#[test]
fn two_nodes_share_one_database() {
    let url = runestone::store::postgres::testing::fresh_database();
    let sink = SmtpSink::start();
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (mut node_a, base_a) = node(dir_a.path(), &url, sink.port);
    let (mut node_b, base_b) = node(dir_b.path(), &url, sink.port);
    let bases = [base_a.clone(), base_b.clone()];
    let a = agent();

    // Four-seat duels, created on alternate nodes, every seat with an email:
    // each game sends four invitations.
    let mut games = Vec::new();
    let mut targets = Vec::new();
    for g in 0..4 {
        let seats: Vec<Value> =
            (0..4).map(|i| json!({"name": format!("P{i}"), "email": format!("g{g}p{i}@example.org")})).collect();
        let (s, created) = call(
            &a,
            "POST",
            &format!("{}/api/v1/games", bases[g % 2]),
            None,
            Some(&json!({"ruleset": "duel", "seats": seats})),
        )
        .unwrap();
        assert_eq!(s, 201, "{created}");
        let game = str_of(&created, "game_id").to_owned();
        let tokens = seat_tokens(&created);
        for t in tokens.iter().take(3) {
            targets.push((game.clone(), t.clone()));
        }
        games.push((game, tokens));
    }
    let invitations = sink.wait_for(16, 120);
    let ids: Vec<String> = invitations.iter().filter_map(|m| m.header("Message-ID")).collect();
    assert_eq!(ids.len(), 16, "every invitation has a Message-ID");

    // Idempotency keys hold across nodes: the same creation, and the same
    // command, sent through A and then again through B, each happen once.
    let keyed = |base: &str, path: &str, token: Option<&str>, key: &str, body: &Value| -> (u16, Value) {
        let mut req = ureq::http::Request::builder()
            .method("POST")
            .uri(format!("{base}{path}"))
            .header("Idempotency-Key", key)
            .header("Content-Type", "application/json");
        if let Some(t) = token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        let mut resp = a.run(req.body(body.to_string()).unwrap()).expect("an answer");
        let status = resp.status().as_u16();
        (status, serde_json::from_str(&resp.body_mut().read_to_string().unwrap()).unwrap_or(Value::Null))
    };
    let creation = json!({"ruleset": "duel", "seats": [{"name": "Ása"}, {"name": "Bjarni"}]});
    let (s1, first) = keyed(&base_a, "/api/v1/games", None, "one-game-please", &creation);
    let (s2, again) = keyed(&base_b, "/api/v1/games", None, "one-game-please", &creation);
    assert_eq!((s1, s2), (201, 201), "{first} {again}");
    assert_eq!(first["game_id"], again["game_id"], "node B answers node A's creation, it creates no second game");
    let (game1, tokens1) = &games[1];
    let log_len = |base: &str| {
        let (s, v) = call(&a, "GET", &format!("{base}/api/v1/games/{game1}/events"), None, None).unwrap();
        assert_eq!(s, 200, "{v}");
        v["events"].as_array().expect("events").len()
    };
    let before = log_len(&base_a);
    let bid = json!({"command": {"type": "Bid", "amount": 2}});
    let path = format!("/api/v1/games/{game1}/commands");
    let (s1, first) = keyed(&base_a, &path, Some(&tokens1[1]), "bid-once", &bid);
    let (s2, again) = keyed(&base_b, &path, Some(&tokens1[1]), "bid-once", &bid);
    assert_eq!((s1, s2), (200, 200), "{first} {again}");
    assert_eq!(first["events"], again["events"], "node B answers with what node A appended");
    let appended = first["events"].as_array().expect("events").len();
    assert!(appended > 0, "{first}");
    assert_eq!(log_len(&base_b), before + appended, "the bid is in the log once");

    // SSE: a client on node A sees, in order, what is submitted through B.
    let (game0, tokens0) = &games[0];
    let (s, g) = call(&a, "GET", &format!("{base_a}/api/v1/games/{game0}"), Some(&tokens0[3]), None).unwrap();
    assert_eq!(s, 200, "{g}");
    let from = g["head"].as_u64().expect("a head") + 1;
    let stream = follow(&base_a, game0, &tokens0[3], from);
    let mut via_b = Vec::new();
    for n in 0..3 {
        let body = json!({"command": {"type": "Bid", "amount": n + 1}});
        let (s, v) =
            call(&a, "POST", &format!("{base_b}/api/v1/games/{game0}/commands"), Some(&tokens0[0]), Some(&body))
                .unwrap();
        assert_eq!(s, 200, "{v}");
        via_b.extend(v["events"].as_array().unwrap().iter().map(|e| e["seq"].as_u64().unwrap()));
    }
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !via_b.iter().all(|s| seen.contains(s)) {
        let left = deadline.saturating_duration_since(Instant::now());
        match stream.recv_timeout(left) {
            Ok(ev) => seen.push(ev["seq"].as_u64().expect("a seq")),
            Err(_) => panic!("node A's stream showed {seen:?}, not every event submitted through B ({via_b:?})"),
        }
    }
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "in order: {seen:?}");
    assert_eq!(seen.first(), Some(&from), "from the seq asked for, none missed");

    // Load through both nodes at once: each seat alternates nodes and says
    // the head it last saw, so a seat behind another is told 409.
    let acked: Arc<Mutex<Vec<(String, u64, String)>>> = Arc::default();
    let stale = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let b_dead = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = targets
        .into_iter()
        .enumerate()
        .map(|(i, (game, token))| {
            let (acked, stale, stop, b_dead, bases) =
                (acked.clone(), stale.clone(), stop.clone(), b_dead.clone(), bases.clone());
            std::thread::spawn(move || {
                let a = agent();
                let start = Instant::now();
                let mut head: Option<u64> = None;
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) && start.elapsed() < Duration::from_secs(120) {
                    n += 1;
                    let on_b = (n + i as u64) % 2 == 1 && !b_dead.load(Ordering::Relaxed);
                    let base = &bases[usize::from(on_b)];
                    let mut body = json!({"command": {"type": "Bid", "amount": (n + i as u64) % 10 + 1}});
                    if let Some(h) = head {
                        body["expected_seq"] = json!(h);
                    }
                    match call(&a, "POST", &format!("{base}/api/v1/games/{game}/commands"), Some(&token), Some(&body)) {
                        Ok((200, v)) => {
                            let mut acked = acked.lock().unwrap();
                            for e in v["events"].as_array().unwrap() {
                                let seq = e["seq"].as_u64().unwrap();
                                acked.push((game.clone(), seq, e["hash"].as_str().unwrap().to_owned()));
                                head = Some(seq);
                            }
                        }
                        Ok((409, v)) => {
                            stale.fetch_add(1, Ordering::Relaxed);
                            // Read the head again, from either node.
                            let (s, g) = call(&a, "GET", &format!("{base}/api/v1/games/{game}"), Some(&token), None)
                                .unwrap_or((0, Value::Null));
                            if s == 200 {
                                head = g["head"].as_u64();
                            } else {
                                head = None;
                            }
                            assert!(v["detail"].as_str().is_some_and(|d| !d.is_empty()), "{v}");
                        }
                        Ok((status, v)) => panic!("unexpected answer {status}: {v}"),
                        // Node B was killed under this request: its outcome
                        // is unknown, and never counted as acknowledged.
                        Err(_) if on_b => head = None,
                        Err(e) => panic!("node A failed: {e}"),
                    }
                }
            })
        })
        .collect();
    // Let a good number of commands through, then kill node B without warning.
    let t0 = Instant::now();
    while acked.lock().unwrap().len() < 150 && t0.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    node_b.kill().expect("SIGKILL");
    node_b.wait().unwrap();
    b_dead.store(true, Ordering::Relaxed);
    let at_kill = acked.lock().unwrap().len();
    while acked.lock().unwrap().len() < at_kill + 50 && t0.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    assert!(acked.len() >= 200, "only {} commands were acknowledged", acked.len());
    eprintln!(
        "two nodes: {} events acknowledged, {} stale submits answered 409",
        acked.len(),
        stale.load(Ordering::Relaxed)
    );

    // Every acknowledged event is in the log once, at its seq, and every
    // chain verifies, read through the surviving node.
    let mut logs = HashMap::new();
    for (g, _) in &games {
        let (s, v) = call(&a, "GET", &format!("{base_a}/api/v1/games/{g}/verify"), None, None).unwrap();
        assert_eq!((s, &v["ok"]), (200, &json!(true)), "{v}");
        let (_, ev) = call(&a, "GET", &format!("{base_a}/api/v1/games/{g}/events"), None, None).unwrap();
        logs.insert(g.clone(), ev["events"].as_array().unwrap().clone());
    }
    let mut once = HashSet::new();
    for (game, seq, hash) in &acked {
        assert!(once.insert((game.clone(), *seq)), "seq {seq} of {game} was acknowledged to two commands");
        let log = &logs[game];
        let stored = log.get(*seq as usize).unwrap_or_else(|| panic!("acknowledged event {seq} of {game} is lost"));
        assert_eq!(stored["hash"].as_str().unwrap(), hash, "event {seq} of {game} changed");
    }

    // Both nodes ran outbox workers on the same queue: no message twice.
    let received = sink.received();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for m in &received {
        *by_id.entry(m.header("Message-ID").unwrap_or_default()).or_default() += 1;
    }
    let twice: Vec<_> = by_id.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "messages delivered more than once: {twice:?}");
    for id in &ids {
        assert_eq!(by_id.get(id), Some(&1), "invitation {id} delivered exactly once");
    }
    node_a.kill().unwrap();
    node_a.wait().unwrap();
}

/// Every golden log under `events/`, as envelopes (the end line left out).
fn golden_logs() -> Vec<Vec<runestone_engine::Envelope>> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "jsonl") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("events"), &mut files);
    files.sort();
    files
        .iter()
        .map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .filter(|l| !l.starts_with("{\"end\""))
                .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}", f.display())))
                .collect()
        })
        .collect()
}

fn migrate(dir: &Path, url: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_runestone"))
        .args(["migrate-store", "--from", &format!("sled:{}", dir.display()), "--to", &format!("postgres:{url}")])
        .env("RUST_LOG", "warn")
        .output()
        .expect("migrate-store runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "migrate-store failed: {text}");
    text
}

#[test]
fn migrate_store_moves_golden_and_running_games_with_pending_mail() {
    use runestone::store::{EventStore, Side, SideWrite, Write};

    // A sled installation: two running duels whose invitations could not be
    // sent yet (the mail server is down), then the golden games.
    let mut sink = SmtpSink::start();
    sink.down();
    let mut app = TestApp::spawn_with(TestApp::smtp_to(sink.port));
    let mut running = Vec::new();
    for g in 0..2 {
        let seats: Vec<Value> =
            (0..2).map(|i| json!({"name": format!("P{i}"), "email": format!("m{g}p{i}@example.org")})).collect();
        let created = app.post("/api/v1/games", None, &json!({"ruleset": "duel", "seats": seats}));
        let created = created.ok().clone();
        running.push((str_of(&created, "game_id").to_owned(), seat_tokens(&created)));
    }
    let dir = app.dir.clone();
    let data = tempfile::tempdir().unwrap();
    app.stop();
    // Keep the stopped server's directory: copy it out before the app goes.
    let copy = |from: &Path, to: &Path| {
        let status = Command::new("cp").arg("-a").arg(format!("{}/.", from.display())).arg(to).status().unwrap();
        assert!(status.success());
    };
    copy(&dir, data.path());
    drop(app);
    let golden = golden_logs();
    {
        let store = runestone::store::sled::SledStore::open(&data.path().join("events")).expect("open sled");
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        for log in &golden {
            let game = log[0].game.clone();
            let seed = log
                .iter()
                .find_map(|e| match e.kernel() {
                    Some(runestone_engine::KernelEvent::SeedRevealed { seed }) => Some(seed.clone()),
                    _ => None,
                })
                .expect("a golden game is over, its seed revealed");
            let record = json!({"seed": seed, "created_at": log[0].time, "seats": []});
            let side = vec![SideWrite {
                side: Side::Games,
                key: game.as_bytes().to_vec(),
                value: Some(serde_json::to_vec(&record).unwrap()),
            }];
            rt.block_on(store.append(Write {
                game,
                expect_head: None,
                events: log.clone(),
                side,
                unchanged: Vec::new(),
            }))
            .expect("append");
        }
        let pending = store.scan(Side::Outbox, b"q", 100).unwrap();
        assert_eq!(pending.len(), 4, "the four invitations are pending");
        store.close().unwrap();
    }

    let url = runestone::store::postgres::testing::fresh_database();
    let said = migrate(data.path(), &url);
    let games = golden.len() + running.len();
    assert!(said.contains(&format!("copied {games} games")), "{said}");

    // The games go on, on PostgreSQL, with the links already sent.
    sink.up();
    let key = std::fs::read_to_string(data.path().join("jwt.key")).unwrap();
    let node_dir = tempfile::tempdir().unwrap();
    let (mut node, base) = node_with_key(node_dir.path(), &url, sink.port, key.trim());
    let a = agent();
    let mail = sink.wait_for(4, 120);
    let mut ids: Vec<_> = mail.iter().map(|m| m.header("Message-ID").unwrap_or_default()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4, "each pending invitation sent once");
    for (game, tokens) in &running {
        let body = json!({"command": {"type": "Bid", "amount": 3}});
        let (s, v) =
            call(&a, "POST", &format!("{base}/api/v1/games/{game}/commands"), Some(&tokens[0]), Some(&body)).unwrap();
        assert_eq!(s, 200, "a running game goes on with its old link: {v}");
    }
    for game in golden.iter().map(|l| &l[0].game).chain(running.iter().map(|(g, _)| g)) {
        let (s, v) = call(&a, "GET", &format!("{base}/api/v1/games/{game}/verify"), None, None).unwrap();
        assert_eq!((s, &v["ok"]), (200, &json!(true)), "{game}: {v}");
    }

    // Run again: nothing is copied twice, nothing sent is brought back.
    let pg = runestone::store::postgres::PgStore::open(&url).unwrap();
    let t = Instant::now();
    while !pg.scan(Side::Outbox, b"q", 10).unwrap().is_empty() {
        assert!(t.elapsed() < Duration::from_secs(120), "the outbox empties");
        std::thread::sleep(Duration::from_millis(50));
    }
    let said = migrate(data.path(), &url);
    assert!(said.contains("copied 0 games") && said.contains(&format!("{games} games were already there")), "{said}");
    assert!(pg.scan(Side::Outbox, b"q", 10).unwrap().is_empty(), "no sent message is queued again");
    node.kill().unwrap();
    node.wait().unwrap();
}

#[test]
fn two_nodes_fire_each_deadline_once_and_send_each_mail_once() {
    use chrono::Duration as Hours;
    use runestone::clock::{Clock, ManualClock};

    let url = runestone::store::postgres::testing::fresh_database();
    let sink = SmtpSink::start();
    let clock = Arc::new(ManualClock::new("2026-03-02T09:00:00Z".parse().unwrap()));
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let node = |dir: &Path| {
        let mut s = crate::helpers::settings(dir);
        TestApp::smtp_to(sink.port)(&mut s);
        s.storage.backend = "postgres".into();
        s.storage.url = url.clone();
        s.auth.jwt_secret = SECRET.into();
        TestApp::start_with_clock(s, clock.clone())
    };
    let (app_a, app_b) = (node(dir_a.path()), node(dir_b.path()));
    let seats = json!([{"name": "Ása", "email": "asa@example.org"}, {"name": "Bjarni", "email": "bjarni@example.org"}]);
    let policy = json!({"plan_hours": 24, "turn_hours": 24, "small_hours": 12, "reminders_hours": [2],
                        "grace_hours": 6, "substitute_after": 2, "forfeit_after": 3});
    let created = app_a.post(
        "/api/v1/games",
        None,
        &json!({"ruleset": "duel", "options": {"rounds": 2}, "seats": seats,
                "host": {"name": "Host", "email": "host@example.org"}, "deadlines": policy}),
    );
    let game = str_of(created.ok(), "game_id").to_owned();
    sink.wait_for(2, 120);

    // Nobody plays: both nodes' schedulers race on every deadline. The clock
    // moves on an hour only once they have acted on everything due by then
    // (a condition, never a time: on a busy machine they may lag far behind).
    let mut hours = 0;
    loop {
        let now = clock.now();
        let settled = |summary: &Value| {
            summary["status"] == "over"
                || summary["deadlines"]["due"].as_array().is_some_and(|due| {
                    due.iter().all(|d| {
                        d["due"]
                            .as_str()
                            .and_then(|t| t.parse::<chrono::DateTime<chrono::Utc>>().ok())
                            .is_some_and(|t| t > now)
                    })
                })
        };
        let t0 = Instant::now();
        let summary = loop {
            let summary = app_b.get(&format!("/api/v1/games/{game}"), None).json;
            if settled(&summary) {
                break summary;
            }
            assert!(t0.elapsed() < Duration::from_secs(240), "the deadlines due at {now} were not acted on: {summary}");
            std::thread::sleep(Duration::from_millis(20));
        };
        if summary["status"] == "over" {
            break;
        }
        assert!(hours < 1000, "no end after {hours} hours");
        clock.advance(Hours::hours(1));
        hours += 1;
    }
    let log = app_a.get(&format!("/api/v1/games/{game}/events"), None);
    let verify = app_b.get(&format!("/api/v1/games/{game}/verify"), None);
    assert_eq!(verify.json["ok"], json!(true), "{}", verify.text);
    assert!(!log.json["events"].as_array().expect("events").is_empty());
    let t1 = Instant::now();
    let received = loop {
        // The game-over mails (one per seat) come last; wait for them, then count.
        let r = sink.received();
        if r.iter().filter(|m| m.header("Subject").unwrap_or_default().contains(" is over")).count() >= 2 {
            break r;
        }
        assert!(t1.elapsed() < Duration::from_secs(120), "no game-over mail");
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for m in &received {
        *by_id.entry(m.header("Message-ID").unwrap_or_default()).or_default() += 1;
    }
    let twice: Vec<String> = received
        .iter()
        .filter(|m| by_id[&m.header("Message-ID").unwrap_or_default()] > 1)
        .map(|m| format!("{} to {}", m.header("Subject").unwrap_or_default(), m.header("To").unwrap_or_default()))
        .collect();
    let kinds: Vec<String> =
        log.json["events"].as_array().unwrap().iter().map(|e| format!("{} {}", e["seq"], e["body"])).collect();
    assert!(twice.is_empty(), "messages sent twice: {twice:#?}\n{kinds:#?}");
    let subjects: Vec<String> = received.iter().map(|m| m.header("Subject").unwrap_or_default()).collect();
    assert!(subjects.iter().any(|s| s.starts_with("Reminder")), "{subjects:#?}");
}

/// The value of the metric `name` on the node at `base`.
fn metric(a: &ureq::Agent, base: &str, name: &str) -> u64 {
    let mut resp = a.get(&format!("{base}/metrics")).call().expect("metrics");
    let text = resp.body_mut().read_to_string().expect("metrics text");
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {text}"))
}

/// A stream on node B shows what is submitted through node A, told by the
/// database's notices: while nothing is appended the stream does not read
/// the store at all (no polling), and each append through A reaches it.
#[test]
fn a_stream_is_told_of_the_other_nodes_appends_without_polling() {
    let url = runestone::store::postgres::testing::fresh_database();
    let sink = SmtpSink::start();
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (mut node_a, base_a) = node(dir_a.path(), &url, sink.port);
    let (mut node_b, base_b) = node(dir_b.path(), &url, sink.port);
    let a = agent();
    let t0 = Instant::now();
    while metric(&a, &base_b, "runestone_store_notices_live") != 1 {
        assert!(t0.elapsed() < Duration::from_secs(60), "node B never heard the database's notices");
        std::thread::sleep(Duration::from_millis(50));
    }
    let seats: Vec<Value> = (0..4).map(|i| json!({"name": format!("P{i}")})).collect();
    let creation = json!({"ruleset": "duel", "seats": seats});
    let (s, created) = call(&a, "POST", &format!("{base_a}/api/v1/games"), None, Some(&creation)).unwrap();
    assert_eq!(s, 201, "{created}");
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let (s, g) = call(&a, "GET", &format!("{base_b}/api/v1/games/{game}"), Some(&tokens[3]), None).unwrap();
    assert_eq!(s, 200, "{g}");
    let from = g["head"].as_u64().expect("a head") + 1;
    let stream = follow(&base_b, &game, &tokens[3], from);
    let submit = |n: u64| -> Vec<u64> {
        let body = json!({"command": {"type": "Bid", "amount": n}});
        let (s, v) =
            call(&a, "POST", &format!("{base_a}/api/v1/games/{game}/commands"), Some(&tokens[0]), Some(&body)).unwrap();
        assert_eq!(s, 200, "{v}");
        v["events"].as_array().unwrap().iter().map(|e| e["seq"].as_u64().unwrap()).collect()
    };
    let mut seen = Vec::new();
    let mut wait_for = |seqs: &[u64]| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !seqs.iter().all(|s| seen.contains(s)) {
            match stream.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(ev) => seen.push(ev["seq"].as_u64().expect("a seq")),
                Err(_) => panic!("node B's stream showed {seen:?}, not every event submitted through A ({seqs:?})"),
            }
        }
    };
    // The stream is open once it shows the first command.
    wait_for(&submit(1));
    // Nothing is appended: a stream that polled would read the store
    // several times a second.
    let reads = metric(&a, &base_b, "runestone_stream_store_reads_total");
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(metric(&a, &base_b, "runestone_stream_store_reads_total"), reads, "an idle stream reads nothing");
    // Only a notice can now bring A's appends to B's stream.
    for n in 2..5 {
        wait_for(&submit(n));
    }
    assert!(metric(&a, &base_b, "runestone_stream_store_reads_total") > reads, "the notices were followed");
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "in order: {seen:?}");
    assert_eq!(seen.first(), Some(&from), "from the seq asked for, none missed");
    for child in [&mut node_a, &mut node_b] {
        let _ = child.kill();
        let _ = child.wait();
    }
}
