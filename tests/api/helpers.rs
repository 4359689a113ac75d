//! Spawning real servers on port 0 and talking to them over real HTTP.

use std::path::{Path, PathBuf};

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use runestone::app::Application;
use runestone::clock::{Clock, SystemClock};
use runestone::config::Settings;
use serde_json::{json, Value};

/// A server running in this process, on its own thread and runtime.
pub struct TestApp {
    pub base: String,
    /// The port of the server's built-in SMTP listener, when it has one.
    pub smtp_in: Option<u16>,
    pub dir: PathBuf,
    pub settings: Settings,
    agent: ureq::Agent,
    handle: Option<actix_web::dev::ServerHandle>,
    thread: Option<std::thread::JoinHandle<()>>,
    _tmp: Option<tempfile::TempDir>,
}

/// An HTTP answer: status, content type and body (JSON where it parses).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub text: String,
    pub json: Value,
}

impl Reply {
    /// Assert a problem+json answer with `status`; returns its detail.
    #[track_caller]
    pub fn problem(&self, status: u16) -> String {
        assert_eq!(self.status, status, "expected {status}, got {}: {}", self.status, self.text);
        assert_eq!(self.content_type, "application/problem+json", "{}", self.text);
        assert_eq!(self.json["status"], json!(status));
        let detail = self.json["detail"].as_str().expect("a detail").to_owned();
        assert!(detail.len() > 10, "a detail a person can act on: {detail:?}");
        detail
    }

    #[track_caller]
    pub fn ok(&self) -> &Value {
        assert!((200..300).contains(&self.status), "expected success, got {}: {}", self.status, self.text);
        &self.json
    }
}

/// The setting that has a server host the test fixture games (Duel), as an
/// environment variable for the binary.
pub const FIXTURES: (&str, &str) = ("RUNESTONE__SERVER__TEST_FIXTURES", "true");

pub fn settings(dir: &Path) -> Settings {
    let mut s = Settings::defaults();
    s.server.port = 0;
    s.server.test_fixtures = true;
    s.server.workers = 2;
    s.storage.path = dir.to_owned();
    s.storage.snapshot_interval = 4;
    // No free-space reserve unless a test asks for one: test machines' disks
    // vary; `tests/api/disk.rs` sets one.
    s.storage.reserve = "0".into();
    // Every client trusted and no rates: the tests of `[access]` set their own.
    s.access.create = "anyone".into();
    s.access.creates_per_hour = 0;
    s.access.confirmations_per_day = 0;
    s.access.host_mail_per_hour = 0;
    // Each mail leaves at once: the tests of mail at the pace of the game
    // (`tests/api/pace.rs`) gather it on a clock they drive.
    s.mail.gather_minutes = 0.0;
    s
}

/// The `[access]` of a test server as the tests' spawned processes have it
/// (see [`settings`]), and its mail leaving at once, as environment variables.
pub const TRUSTED_ENV: [(&str, &str); 5] = [
    ("RUNESTONE__ACCESS__CREATE", "anyone"),
    ("RUNESTONE__ACCESS__CREATES_PER_HOUR", "0"),
    ("RUNESTONE__ACCESS__CONFIRMATIONS_PER_DAY", "0"),
    ("RUNESTONE__ACCESS__HOST_MAIL_PER_HOUR", "0"),
    ("RUNESTONE__MAIL__GATHER_MINUTES", "0"),
];

/// How long a test client keeps an idle connection for reuse: well under
/// the server's keep-alive of 5 s.
pub const IDLE: Duration = Duration::from_secs(2);

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        // The server closes a connection idle for 5 s (actix's keep-alive);
        // a pooled connection older than that may be closed just as it is
        // reused ("Peer disconnected"), so none is kept that long.
        .max_idle_age(IDLE)
        .build()
        .into()
}

impl TestApp {
    /// A new server on a fresh data directory.
    pub fn spawn() -> TestApp {
        TestApp::spawn_with(|_| {})
    }

    /// A new server on a fresh data directory, with changed settings.
    pub fn spawn_with(change: impl FnOnce(&mut Settings)) -> TestApp {
        let tmp = tempfile::tempdir().expect("tempdir");
        let mut s = settings(tmp.path());
        change(&mut s);
        let mut app = TestApp::start(s);
        app._tmp = Some(tmp);
        app
    }

    /// Mail over SMTP to a sink on `port`, retrying quickly.
    pub fn smtp_to(port: u16) -> impl FnOnce(&mut Settings) {
        move |s| {
            s.mail.transport = "smtp".into();
            s.mail.smtp_host = "127.0.0.1".into();
            s.mail.smtp_port = port;
            s.mail.from = "runestone <games@runestone.test>".into();
            s.mail.retry_seconds = 1;
            s.mail.poll_ms = 25;
        }
    }

    /// A server with `settings`.
    pub fn start(settings: Settings) -> TestApp {
        TestApp::start_with_clock(settings, Arc::new(SystemClock))
    }

    /// A server with `settings` on a clock the test drives.
    pub fn start_with_clock(settings: Settings, clock: Arc<dyn Clock>) -> TestApp {
        runestone::http::record_answers();
        let dir = settings.storage.path.clone();
        let kept = settings.clone();
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let app =
                    Application::build(&settings, clock, runestone::games::registry()).expect("the server builds");
                tx.send((app.port(), app.smtp_port(), app_handle(&app))).expect("send port");
                app.run_until_stopped().await.expect("the server runs");
            })
        });
        let (port, smtp_in, handle) = rx.recv_timeout(Duration::from_secs(120)).expect("the server starts");
        TestApp {
            base: format!("http://127.0.0.1:{port}"),
            smtp_in,
            dir,
            settings: kept,
            agent: agent(),
            handle: Some(handle),
            thread: Some(thread),
            _tmp: None,
        }
    }

    /// Stop gracefully and wait until the store is closed.
    pub fn stop(&mut self) {
        if let Some(h) = self.handle.take() {
            futures_lite_block_on(h.stop(true));
        }
        if let Some(t) = self.thread.take() {
            t.join().expect("server thread");
        }
    }

    /// Stop and start again on the same data directory.
    pub fn restart(mut self) -> TestApp {
        self.stop();
        let tmp = self._tmp.take();
        let mut next = TestApp::start(self.settings.clone());
        next._tmp = tmp;
        next
    }

    pub fn request(&self, method: &str, path: &str, token: Option<&str>, body: Option<&Value>) -> Reply {
        self.raw(method, path, token, body.map(|b| b.to_string().into_bytes()), &[])
    }

    pub fn raw(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Vec<u8>>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let url = format!("{}{path}", self.base);
        let mut req = ureq::http::Request::builder().method(method).uri(&url);
        if let Some(t) = token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let resp = match body {
            Some(b) => {
                let typed = headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
                let req = if typed { req } else { req.header("Content-Type", "application/json") };
                let req = req.body(b).expect("request");
                self.agent.run(req)
            }
            None => self.agent.run(req.body(()).expect("request")),
        };
        let mut resp = resp.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = resp.status().as_u16();
        let content_type =
            resp.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        let text = resp.body_mut().read_to_string().unwrap_or_default();
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        fits_the_document(method, path, status, &content_type, &json);
        Reply { status, content_type, text, json }
    }

    pub fn get(&self, path: &str, token: Option<&str>) -> Reply {
        self.request("GET", path, token, None)
    }

    pub fn post(&self, path: &str, token: Option<&str>, body: &Value) -> Reply {
        self.request("POST", path, token, Some(body))
    }

    /// Create a game and return the creation answer.
    pub fn create(&self, ruleset: &str, seats: usize, options: Value) -> Value {
        let seats: Vec<Value> = (0..seats).map(|i| json!({"name": format!("Player {}", i + 1)})).collect();
        self.post("/api/v1/games", None, &json!({"ruleset": ruleset, "options": options, "seats": seats})).ok().clone()
    }

    /// Submit `command` for the token's seat, decided on the game's current
    /// head (read first and sent as `expected_seq`, which turn commands
    /// require).
    pub fn submit(&self, game: &str, token: &str, command: Value) -> Reply {
        let head = self.get(&format!("/api/v1/games/{game}"), None).json["head"].as_u64();
        self.submit_at(game, token, command, head)
    }

    /// Submit `command` with `expected_seq` as given (`None`: left out).
    pub fn submit_at(&self, game: &str, token: &str, command: Value, expected_seq: Option<u64>) -> Reply {
        let mut body = json!({ "command": command });
        if let Some(seq) = expected_seq {
            body["expected_seq"] = json!(seq);
        }
        self.post(&format!("/api/v1/games/{game}/commands"), Some(token), &body)
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.stop();
        if !std::thread::panicking() {
            assert_answers_documented();
        }
    }
}

/// Every answer given so far, in this process or by a server binary the
/// tests ran, has its status listed in the OpenAPI document for its route
/// and fitted its documented type.
#[track_caller]
pub fn assert_answers_documented() {
    let undocumented = undocumented_answers();
    assert!(undocumented.is_empty(), "answers the OpenAPI document does not list: {undocumented:?}");
    let mut misfits = runestone::http::contract_violations();
    misfits.extend(binary_answers().1);
    assert!(misfits.is_empty(), "answers that do not fit their documented types: {misfits:#?}");
}

/// The OpenAPI document of the hosted rulesets, made once.
fn document() -> &'static Value {
    static DOC: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    DOC.get_or_init(|| runestone::http::openapi::document(&runestone::games::registry()))
}

/// A JSON answer of the API fits the schema the document gives for its
/// route and status: every answer the tests receive through [`TestApp`] is
/// checked so (an undocumented status is refused apart, as the server
/// stops: [`undocumented_answers`]).
#[track_caller]
pub fn fits_the_document(method: &str, path: &str, status: u16, content_type: &str, json: &Value) {
    static VALIDATORS: std::sync::Mutex<Option<std::collections::HashMap<String, Arc<jsonschema::Validator>>>> =
        std::sync::Mutex::new(None);
    let doc = document();
    let path = path.split('?').next().unwrap_or_default();
    let segments: Vec<&str> = path.split('/').collect();
    let route = doc["paths"].as_object().expect("paths").keys().find(|route| {
        let pattern: Vec<&str> = route.split('/').collect();
        pattern.len() == segments.len()
            && pattern.iter().zip(&segments).all(|(p, s)| p == s || (p.starts_with('{') && !s.is_empty()))
    });
    let Some(route) = route else { return };
    let media = content_type.split(';').next().unwrap_or_default().trim();
    let schema =
        &doc["paths"][route][method.to_lowercase()]["responses"][status.to_string()]["content"][media]["schema"];
    let Some(reference) = schema["$ref"].as_str() else { return };
    let validator = {
        let mut cache = VALIDATORS.lock().unwrap_or_else(|e| e.into_inner());
        let cache = cache.get_or_insert_with(Default::default);
        cache
            .entry(reference.to_owned())
            .or_insert_with(|| {
                let mut root = doc.clone();
                root["$ref"] = json!(reference);
                Arc::new(
                    jsonschema::options()
                        .with_draft(jsonschema::Draft::Draft202012)
                        .build(&root)
                        .unwrap_or_else(|e| panic!("{reference}: {e}")),
                )
            })
            .clone()
    };
    let errors: Vec<String> =
        validator.iter_errors(json).take(5).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{method} {path} answered {status} outside its schema {reference}: {errors:#?}\n{json}");
    ANSWERS_CHECKED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// How many answers [`fits_the_document`] checked in this process.
pub static ANSWERS_CHECKED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Every (method, route, status) answered so far, in this process or by a
/// server binary the tests ran (see [`answers_file`]), that the OpenAPI
/// document does not list for that route.
pub fn undocumented_answers() -> Vec<(String, String, u16)> {
    let doc = document();
    let mut all = runestone::http::answered();
    all.extend(binary_answers().0);
    all.into_iter()
        .filter(|(m, p, s)| doc["paths"][p][m.to_lowercase()]["responses"][s.to_string()].is_null())
        .collect()
}

/// The file the server binaries this test process runs record their
/// answers to: pass it as `.env(runestone::http::RECORD_ENV, answers_file())`.
pub fn answers_file() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("runestone-answers-{}.txt", std::process::id()))
}

/// What the server binaries run so far recorded: (method, route, status)
/// answers, and answers that did not fit their documented types.
pub fn binary_answers() -> (std::collections::BTreeSet<(String, String, u16)>, Vec<String>) {
    let text = std::fs::read_to_string(answers_file()).unwrap_or_default();
    let mut answers = std::collections::BTreeSet::new();
    let mut misfits = Vec::new();
    for line in text.lines() {
        if let Some(m) = line.strip_prefix("misfit ") {
            misfits.push(m.to_owned());
            continue;
        }
        let mut parts = line.split(' ');
        if let (Some(m), Some(p), Some(s)) = (parts.next(), parts.next(), parts.next().and_then(|s| s.parse().ok())) {
            answers.insert((m.to_owned(), p.to_owned(), s));
        }
    }
    (answers, misfits)
}

fn app_handle(app: &Application) -> actix_web::dev::ServerHandle {
    app.handle()
}

/// Block on a small future outside any runtime.
fn futures_lite_block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime").block_on(f)
}

/// Seat tokens of a creation answer.
pub fn seat_tokens(created: &Value) -> Vec<String> {
    created["seats"].as_array().expect("seats").iter().map(|s| s["token"].as_str().expect("token").to_owned()).collect()
}

pub fn str_of<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or_else(|| panic!("{k} in {v}"))
}

/// Play `game` to its end as careful bot clients do, and count the commands
/// taken. Each pass reads the summary; every seat still owing a decision
/// reads its view, `choose` checks that view and picks one of its legal
/// commands, and it is sent with the head the view showed. An answer whose
/// status is in `retry` (another seat moved first) makes the seat look again
/// on the next pass; `after_pass` runs after each pass of a running game.
/// Panics when someone should act and cannot, or after `most` commands.
pub fn play_to_the_end(
    app: &TestApp,
    game: &str,
    tokens: &[String],
    most: usize,
    retry: &[u16],
    mut choose: impl FnMut(usize, &Value) -> Value,
    mut after_pass: impl FnMut(),
) -> usize {
    let mut commands = 0;
    loop {
        let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
        if summary["status"] == "over" {
            return commands;
        }
        let pending = summary["pending"].as_array().unwrap().clone();
        assert!(!pending.is_empty(), "nobody to act but the game runs: {summary}");
        for p in pending {
            let seat = p["seat"].as_u64().unwrap() as usize;
            let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[seat])).ok().clone();
            assert!(
                view["legal"].as_array().is_some_and(|l| !l.is_empty()),
                "seat {seat} is pending but has no legal command"
            );
            let command = choose(seat, &view);
            let r = app.post(
                &format!("/api/v1/games/{game}/commands"),
                Some(&tokens[seat]),
                &json!({"command": command, "expected_seq": view["head"]}),
            );
            if retry.contains(&r.status) {
                continue;
            }
            r.ok();
            commands += 1;
            assert!(commands < most, "no end after {commands} commands");
        }
        if app.get(&format!("/api/v1/games/{game}"), None).ok()["status"] != "over" {
            after_pass();
        }
    }
}
