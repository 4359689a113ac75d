//! A PostgreSQL server of the test's own, paused with SIGSTOP while the
//! server is asked for summaries, commands and a new game: `/healthz` keeps
//! answering at once (and says the store is late), every other request is
//! answered 503 in words at its bound, and once PostgreSQL goes on, every
//! command sent is in the log at most once, and sent again with its
//! Idempotency-Key it is there exactly once.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::{seat_tokens, str_of, TestApp};

const SECRET: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// The bound the server answers within here (`server.answer_seconds`).
const BOUND: u64 = 3;

fn pg_bin() -> Option<PathBuf> {
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if dir.join("initdb").exists() {
            return Some(dir);
        }
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.flatten().map(|e| e.path().join("bin")).filter(|p| p.join("initdb").exists()).collect())
        .unwrap_or_default();
    found.sort();
    found.pop()
}

/// A PostgreSQL server in a temporary directory, unix socket only, stopped
/// and removed when dropped (continued first if it was paused).
struct OwnPg {
    bin: PathBuf,
    dir: tempfile::TempDir,
    user: Option<&'static str>,
}

impl OwnPg {
    fn start(bin: PathBuf) -> OwnPg {
        let root =
            Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
        let user = root.then_some("postgres");
        let dir = tempfile::tempdir().expect("tempdir");
        if let Some(u) = user {
            let ok = Command::new("chown").arg(u).arg(dir.path()).status().is_ok_and(|s| s.success());
            assert!(ok, "cannot hand {} to the {u} user (PostgreSQL refuses root)", dir.path().display());
        }
        let pg = OwnPg { bin, dir, user };
        let data = pg.data();
        let out = pg.run("initdb", &["-A", "trust", "-U", "postgres", "--no-sync", "-D", &data]);
        assert!(out.status.success(), "initdb: {}", String::from_utf8_lossy(&out.stderr));
        let opts = format!("-k {} -c listen_addresses='' -c fsync=off -p 5432", pg.dir.path().display());
        let log = pg.dir.path().join("log").display().to_string();
        let out = pg.run("pg_ctl", &["-D", &data, "-w", "-l", &log, "-o", &opts, "start"]);
        assert!(out.status.success(), "pg_ctl start: {}", String::from_utf8_lossy(&out.stderr));
        pg
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    fn run(&self, program: &str, args: &[&str]) -> std::process::Output {
        let mut c = match self.user {
            Some(u) => {
                let mut c = Command::new("runuser");
                c.args(["-u", u, "--"]).arg(self.bin.join(program));
                c
            }
            None => Command::new(self.bin.join(program)),
        };
        c.args(args).output().unwrap_or_else(|e| panic!("{program}: {e}"))
    }

    fn url(&self) -> String {
        format!("host={} port=5432 user=postgres dbname=postgres", self.dir.path().display())
    }

    /// The postmaster and every process it started.
    fn processes(&self) -> Vec<i32> {
        let pid_file = Path::new(&self.data()).join("postmaster.pid");
        let text = std::fs::read_to_string(&pid_file).expect("postmaster.pid");
        let master: i32 = text.lines().next().and_then(|l| l.trim().parse().ok()).expect("the postmaster's pid");
        let mut all = vec![master];
        for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
            // pid (comm) state ppid ...: the comm may hold spaces.
            let ppid = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<i32>().ok());
            if ppid == Some(master) {
                all.push(pid);
            }
        }
        all
    }

    fn signal(&self, signal: i32) {
        for pid in self.processes() {
            // SAFETY: kill sends a signal to a process of this test's own server.
            unsafe { libc::kill(pid, signal) };
        }
    }
}

impl Drop for OwnPg {
    fn drop(&mut self) {
        self.signal(libc::SIGCONT);
        let data = self.data();
        self.run("pg_ctl", &["-D", &data, "-m", "immediate", "stop"]);
    }
}

/// One request with an optional Idempotency-Key: status and body, or why
/// none came before the hang-guard.
fn send(
    base: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    key: Option<&str>,
    body: Option<&Value>,
) -> Result<(u16, String, Value), String> {
    let a: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(BOUND + 12)))
        .build()
        .into();
    let mut req = ureq::http::Request::builder().method(method).uri(format!("{base}{path}"));
    if let Some(t) = token {
        req = req.header("Authorization", format!("Bearer {t}"));
    }
    if let Some(k) = key {
        req = req.header("Idempotency-Key", k);
    }
    let resp = match body {
        Some(b) => a.run(req.header("Content-Type", "application/json").body(b.to_string()).unwrap()),
        None => a.run(req.body(()).unwrap()),
    };
    let mut resp = resp.map_err(|e| format!("{method} {path}: no answer: {e}"))?;
    let status = resp.status().as_u16();
    let content_type = resp.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let text = resp.body_mut().read_to_string().map_err(|e| e.to_string())?;
    let json = serde_json::from_str(&text).unwrap_or(Value::Null);
    crate::helpers::fits_the_document(method, path, status, &content_type, &json);
    Ok((status, content_type, json))
}

#[test]
fn a_paused_database_holds_no_worker_and_every_request_is_answered_within_its_bound() {
    let Some(bin) = pg_bin() else {
        assert!(
            std::env::var("RUNESTONE_TEST_PG_REQUIRED").map_or(true, |v| v != "1"),
            "this test needs PostgreSQL's initdb and pg_ctl (Debian's postgresql package)"
        );
        eprintln!("skipped: no PostgreSQL binaries (Debian's postgresql package)");
        return;
    };
    let pg = OwnPg::start(bin);
    let app = TestApp::spawn_with(|s| {
        s.storage.backend = "postgres".into();
        s.storage.url = pg.url();
        s.auth.jwt_secret = SECRET.into();
        s.server.answer_seconds = BOUND;
    });
    let mut games = Vec::new();
    for _ in 0..6 {
        let created = app.create("duel", 2, json!({"rounds": 3}));
        games.push((str_of(&created, "game_id").to_owned(), seat_tokens(&created)));
    }
    assert_eq!(app.get("/healthz", None).ok()["status"], "ok");
    let created_head = app.get(&format!("/api/v1/games/{}", games[0].0), None).ok()["head"].as_u64().unwrap();

    pg.signal(libc::SIGSTOP);
    let base = app.base.clone();
    // Summaries (each reads the store), a bid of the first seat of four
    // games, and a creation: from threads of their own, all at once.
    let mut asked = Vec::new();
    for (game, _) in &games {
        let (base, path) = (base.clone(), format!("/api/v1/games/{game}"));
        asked.push(("summary", std::thread::spawn(move || send(&base, "GET", &path, None, None, None))));
    }
    let mut bids = Vec::new();
    for (g, (game, tokens)) in games.iter().take(4).enumerate() {
        let key = format!("bid-{g}");
        let (base, path, token) = (base.clone(), format!("/api/v1/games/{game}/commands"), tokens[0].clone());
        let body = json!({"command": {"type": "Bid", "amount": 2}, "expected_seq": created_head});
        bids.push((game.clone(), token.clone(), key.clone(), body.clone()));
        asked.push((
            "bid",
            std::thread::spawn(move || send(&base, "POST", &path, Some(&token), Some(&key), Some(&body))),
        ));
    }
    let creation = json!({"ruleset": "duel", "seats": [{"name": "Ása"}, {"name": "Bjarni"}]});
    {
        let (base, creation) = (base.clone(), creation.clone());
        asked.push((
            "creation",
            std::thread::spawn(move || {
                send(&base, "POST", "/api/v1/games", None, Some("paused-creation"), Some(&creation))
            }),
        ));
    }

    // /healthz answers while the store is waited on, and soon says why.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (s, _, health) = send(&base, "GET", "/healthz", None, None, None).expect("/healthz answers");
        assert_eq!(s, 200, "{health}");
        if health["status"] == "degraded" {
            let detail = health["storage"]["detail"].as_str().unwrap_or_default();
            assert!(detail.contains("the store has not answered for"), "{health}");
            break;
        }
        assert_eq!(health["status"], "ok", "{health}");
        assert!(Instant::now() < deadline, "/healthz never said the store is late");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Every request is answered at its bound, in words.
    for (what, t) in asked {
        let (status, content_type, body) = t.join().expect("a client").unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!((status, content_type.as_str()), (503, "application/problem+json"), "{what}: {body}");
        let detail = str_of(&body, "detail");
        assert!(detail.contains(&format!("within {BOUND} seconds")), "{what}: {detail}");
        if what != "summary" {
            assert!(detail.contains("may or may not have been recorded"), "{what}: {detail}");
        }
    }
    assert_eq!(send(&base, "GET", "/healthz", None, None, None).expect("/healthz").0, 200);

    // PostgreSQL goes on: the work left running settles, and what was sent
    // again with its key is recorded once.
    pg.signal(libc::SIGCONT);
    let deadline = Instant::now() + Duration::from_secs(60);
    while app.get("/healthz", None).ok()["status"] != "ok" {
        assert!(Instant::now() < deadline, "/healthz never said ok again");
        std::thread::sleep(Duration::from_millis(100));
    }
    for (game, token, key, body) in &bids {
        let (s, _, v) =
            send(&base, "POST", &format!("/api/v1/games/{game}/commands"), Some(token), Some(key), Some(body)).unwrap();
        assert_eq!(s, 200, "a bid sent again with its key: {v}");
    }
    for (game, _) in games.iter().take(4) {
        let events = app.get(&format!("/api/v1/games/{game}/events"), None).ok().clone();
        let placed =
            events["events"].as_array().unwrap().iter().filter(|e| e["body"]["event"]["type"] == "BidPlaced").count();
        assert_eq!(placed, 1, "the bid is recorded once: {events}");
        assert_eq!(app.get(&format!("/api/v1/games/{game}/verify"), None).ok()["ok"], true);
    }
    let (s, _, again) = send(&base, "POST", "/api/v1/games", None, Some("paused-creation"), Some(&creation)).unwrap();
    assert_eq!(s, 201, "{again}");
    let game = str_of(&again, "game_id");
    assert_eq!(app.get(&format!("/api/v1/games/{game}"), None).ok()["head"], created_head, "created once");
    for (game, _) in &games {
        app.get(&format!("/api/v1/games/{game}"), None).ok();
    }
}
