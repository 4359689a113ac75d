//! Notices by webhook, with a real HTTP receiver on 127.0.0.1 (as the mail
//! tests run a real SMTP listener): a seat's Discord-shaped and generic JSON
//! hooks beside mail through a whole game, a receiver down for a while, the
//! guard's refusals at creation and at send time, the one-click stop, and a
//! game's public channel over a game with secret plans.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::{play_to_the_end, seat_tokens, str_of, TestApp};
use crate::smtp::SmtpSink;

/// One request as the receiver got it.
#[derive(Clone, Debug)]
pub struct Hit {
    pub path: String,
    pub headers: BTreeMap<String, String>,
    pub body: Value,
}

impl Hit {
    /// The notice's stable id, from its header (the same in both headers).
    pub fn id(&self) -> String {
        let key = self.headers.get("idempotency-key").cloned().unwrap_or_default();
        assert_eq!(self.headers.get("x-runestone-notice"), Some(&key), "both headers carry the id: {self:?}");
        assert!(!key.is_empty(), "a notice carries its id: {self:?}");
        key
    }

    /// Everything the notice says.
    pub fn words(&self) -> String {
        self.body.to_string()
    }
}

/// A real HTTP/1.1 receiver: keeps each POST, answers 200, or 302 (to a
/// private address) on paths under `/redirect`, or on every path once
/// [`HookSink::redirect_all`]; it can be taken down and brought back on the
/// same port.
pub struct HookSink {
    pub port: u16,
    hits: Arc<Mutex<Vec<Hit>>>,
    redirect: Arc<AtomicBool>,
    up: Arc<AtomicBool>,
    conns: Arc<Mutex<Vec<TcpStream>>>,
    accept: Option<std::thread::JoinHandle<()>>,
}

impl HookSink {
    pub fn start() -> HookSink {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().unwrap().port();
        let mut sink = HookSink {
            port,
            hits: Arc::default(),
            redirect: Arc::default(),
            up: Arc::new(AtomicBool::new(false)),
            conns: Arc::default(),
            accept: None,
        };
        sink.serve(listener);
        sink
    }

    /// The receiver's address for `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn serve(&mut self, listener: TcpListener) {
        listener.set_nonblocking(true).unwrap();
        self.up.store(true, Ordering::SeqCst);
        let (up, hits, conns, redirect) =
            (self.up.clone(), self.hits.clone(), self.conns.clone(), self.redirect.clone());
        self.accept = Some(std::thread::spawn(move || {
            while up.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        stream.set_nonblocking(false).unwrap();
                        conns.lock().unwrap().push(stream.try_clone().unwrap());
                        let (hits, redirect) = (hits.clone(), redirect.clone());
                        std::thread::spawn(move || {
                            let _ = answer(stream, &hits, &redirect);
                        });
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        }));
    }

    /// Close the port and cut every open connection.
    pub fn down(&mut self) {
        self.up.store(false, Ordering::SeqCst);
        if let Some(t) = self.accept.take() {
            t.join().unwrap();
        }
        for c in self.conns.lock().unwrap().drain(..) {
            let _ = c.shutdown(Shutdown::Both);
        }
    }

    /// Listen again on the same port.
    pub fn up(&mut self) {
        let listener = TcpListener::bind(("127.0.0.1", self.port)).expect("rebind the same port");
        self.serve(listener);
    }

    /// Answer every request with a redirect to a private address from now on.
    pub fn redirect_all(&self) {
        self.redirect.store(true, Ordering::SeqCst);
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.hits.lock().unwrap().clone()
    }

    /// The requests to `path`.
    pub fn hits_to(&self, path: &str) -> Vec<Hit> {
        self.hits().into_iter().filter(|h| h.path == path).collect()
    }
}

impl Drop for HookSink {
    fn drop(&mut self) {
        self.down();
    }
}

fn answer(stream: TcpStream, hits: &Mutex<Vec<Hit>>, redirect: &AtomicBool) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut r = BufReader::new(stream);
    let mut line = String::new();
    r.read_line(&mut line)?;
    let path = line.split(' ').nth(1).unwrap_or_default().to_owned();
    let mut headers = BTreeMap::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h)?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
    let len: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body)?;
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    hits.lock().unwrap().push(Hit { path: path.clone(), headers, body });
    if path.starts_with("/redirect") || redirect.load(Ordering::SeqCst) {
        out.write_all(
            b"HTTP/1.1 302 Found\r\nLocation: https://10.0.0.1/hook\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        )?;
    } else {
        out.write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")?;
    }
    out.flush()
}

/// A server whose webhooks may reach this machine's loopback (the tests'
/// switch), with `inside.test` resolving to a private address, mail to
/// `smtp` when given.
fn spawn(smtp: Option<u16>) -> TestApp {
    spawn_with(smtp, |_| {})
}

/// [`spawn`], with more settings changed.
fn spawn_with(smtp: Option<u16>, change: impl FnOnce(&mut runestone::config::Settings)) -> TestApp {
    TestApp::spawn_with(|s| {
        if let Some(port) = smtp {
            TestApp::smtp_to(port)(s);
        }
        change(s);
        s.mail.retry_seconds = 1;
        s.mail.poll_ms = 25;
        s.notify.allow_loopback = true;
        s.notify.timeout_seconds = 5;
        s.notify.test_hosts = [("inside.test".to_owned(), "10.0.0.7".parse().unwrap())].into();
    })
}

fn set_hook(app: &TestApp, game: &str, token: &str, seat: u8, url: &str, shape: &str) -> crate::helpers::Reply {
    app.request(
        "PUT",
        &format!("/api/v1/games/{game}/seats/{seat}/notifications"),
        Some(token),
        Some(&json!({ "webhook": { "url": url, "shape": shape } })),
    )
}

/// The Message-ID of a mail, without its brackets and domain.
fn message_id(m: &crate::smtp::Received) -> String {
    let id = m.header("Message-ID").expect("a Message-ID");
    id.trim_matches(['<', '>']).split('@').next().unwrap().to_owned()
}

/// Wait until the server's outbox is settled: nothing waiting, and every
/// notice the worker gave up readable as a dead letter.
///
/// An empty queue alone is not that: the worker removes a notice from the
/// queue and writes its dead letter in one store write, but the store shows
/// the removal at once and a new outbox record only once the write is on
/// disk, so for the length of one flush a notice given up is in neither
/// place. The worker counts a dead letter before that write, so the count
/// of dead letters readable reaching that counter is the condition.
fn outbox_drained(app: &TestApp) {
    let t = Instant::now();
    loop {
        let text = app.get("/metrics", None).text;
        let value = |name: &str| metric_in(&text, name);
        if value("runestone_outbox_depth") == Some(0)
            && value("runestone_outbox_dead_letters") == value("runestone_mail_dead_letters_total")
        {
            return;
        }
        assert!(t.elapsed() < Duration::from_secs(240), "the outbox never settled:\n{text}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn metric_in(text: &str, name: &str) -> Option<u64> {
    text.lines().find_map(|l| l.strip_prefix(&format!("{name} "))?.parse().ok())
}

fn metric(app: &TestApp, name: &str) -> u64 {
    metric_in(&app.get("/metrics", None).text, name).unwrap_or_else(|| panic!("/metrics has no {name}"))
}

#[test]
fn a_game_told_by_discord_json_and_mail_reaches_its_end_with_every_notice_and_its_id() {
    let smtp = SmtpSink::start();
    let hooks = HookSink::start();
    let app = spawn(Some(smtp.port));
    // Ása: mail and a Discord-shaped hook; Bjarni: a generic JSON hook only;
    // Dís: mail only.
    let created = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "bardagi", "seats": [
                {"name": "Ása", "email": "asa@example.org"}, {"name": "Bjarni"}, {"name": "Dís", "email": "dis@example.org"}]}),
        )
        .ok()
        .clone();
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let r = set_hook(&app, &game, &tokens[0], 0, &hooks.url("/discord/asa"), "discord");
    assert_eq!(r.ok()["webhook"], json!({"shape": "discord", "url": format!("http://127.0.0.1:{}/…", hooks.port)}));
    assert!(!r.text.contains("/discord/asa"), "the address's secret part is never shown: {}", r.text);
    let r = set_hook(&app, &game, &tokens[1], 1, &hooks.url("/json/bjarni"), "json");
    assert_eq!(r.ok()["webhook"]["shape"], "json");
    assert_eq!(r.json["email"], false);
    // Each new hook was sent a first notice at once.
    assert_eq!(hooks.hits_to("/discord/asa").len(), 1);
    assert_eq!(hooks.hits_to("/json/bjarni")[0].body["kind"], "webhook_set");
    // Only the seat itself reads its settings.
    app.get(&format!("/api/v1/games/{game}/seats/0/notifications"), Some(&tokens[1])).problem(403);

    play_to_the_end(&app, &game, &tokens, 5_000, &[409, 422], |_, v| v["legal"][0].clone(), || {});
    outbox_drained(&app);
    assert_eq!(metric(&app, "runestone_mail_dead_letters_total"), 0, "nothing given up");

    // Every mail Ása got since her hook was set has its twin on her Discord
    // hook: the same notice, its id the mail's with `w` after it.
    let asa: BTreeSet<String> = hooks.hits_to("/discord/asa").iter().map(Hit::id).collect();
    let mails = smtp.received();
    let asa_mails: Vec<_> = mails
        .iter()
        .filter(|m| m.to.iter().any(|t| t.contains("asa@")))
        .filter(|m| !m.header("Subject").unwrap_or_default().starts_with("Your seat in"))
        .collect();
    assert!(asa_mails.len() >= 3, "Ása was told of several moves and the end: {}", asa_mails.len());
    for m in &asa_mails {
        let twin = format!("{}w", message_id(m));
        assert!(
            asa.contains(&twin),
            "the mail {:?} ({twin}) reached Ása's hook too; hook ids: {asa:?}",
            m.header("Subject")
        );
    }
    for h in hooks.hits_to("/discord/asa") {
        let content = h.body["content"].as_str().expect("a Discord message has content");
        assert!(content.contains("/notify/stop/"), "every notice has its stop link: {content}");
        assert!(!content.contains("token="), "no seat's token goes to a webhook: {content}");
        assert_eq!(h.body["allowed_mentions"], json!({"parse": []}));
    }
    // Bjarni, told by his JSON hook only, got a notice of each wait and of
    // the end, each carrying its id in the body as in the headers.
    let bjarni = hooks.hits_to("/json/bjarni");
    for h in &bjarni {
        assert_eq!(h.body["id"].as_str(), Some(h.id().as_str()));
        assert_eq!(h.body["game"], json!(game));
    }
    let kinds: Vec<&str> = bjarni.iter().filter_map(|h| h.body["kind"].as_str()).collect();
    assert!(kinds.iter().filter(|k| **k == "your_move").count() >= 2, "{kinds:?}");
    assert!(kinds.contains(&"game_over"), "{kinds:?}");
    // No mail went to a seat without an address; Dís's came by mail alone.
    assert!(mails.iter().all(|m| m.to.iter().all(|t| t.contains("asa@") || t.contains("dis@"))));
    assert!(mails.iter().any(
        |m| m.to.iter().any(|t| t.contains("dis@")) && m.header("Subject").unwrap_or_default().contains("is over")
    ));
    assert!(hooks.hits().iter().all(|h| h.path == "/discord/asa" || h.path == "/json/bjarni"));
}

#[test]
fn a_receiver_down_for_a_while_gets_every_notice_after_it_returns() {
    let smtp = SmtpSink::start();
    let mut hooks = HookSink::start();
    // Enough tries that no notice is given up while the receiver is down.
    let app = spawn_with(Some(smtp.port), |s| s.mail.max_attempts = 30);
    let created = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "bardagi", "seats": [
                {"name": "Ása"}, {"name": "Bjarni", "email": "bjarni@example.org"}, {"name": "Dís"}]}),
        )
        .ok()
        .clone();
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    set_hook(&app, &game, &tokens[1], 1, &hooks.url("/json/bjarni"), "json").ok();
    hooks.down();
    play_to_the_end(&app, &game, &tokens, 5_000, &[409, 422], |_, v| v["legal"][0].clone(), || {});
    // Bjarni's mail arrives meanwhile; his hook's notices fail and wait.
    let t = Instant::now();
    while metric(&app, "runestone_mail_failures_total") == 0 {
        assert!(t.elapsed() < Duration::from_secs(120), "a notice to the hook that is down was tried");
        std::thread::sleep(Duration::from_millis(20));
    }
    hooks.up();
    outbox_drained(&app);
    assert_eq!(metric(&app, "runestone_mail_dead_letters_total"), 0, "nothing given up");
    let got: BTreeSet<String> = hooks.hits_to("/json/bjarni").iter().map(Hit::id).collect();
    let mails: Vec<_> = smtp
        .received()
        .into_iter()
        .filter(|m| !m.header("Subject").unwrap_or_default().starts_with("Your seat in"))
        .collect();
    assert!(mails.len() >= 3, "{}", mails.len());
    for m in &mails {
        let twin = format!("{}w", message_id(m));
        assert!(got.contains(&twin), "{:?} reached the hook once it was back", m.header("Subject"));
    }
}

#[test]
fn webhooks_to_private_addresses_are_refused_when_set_and_when_sent() {
    let hooks = HookSink::start();
    let app = spawn(None);
    let created = app.create("bardagi", 3, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let host = str_of(&created, "host_token").to_owned();
    for (url, words) in [
        ("https://10.1.2.3/hook", "a private address"),
        ("https://169.254.169.254/latest/meta-data", "a cloud metadata address"),
        ("https://inside.test/hook", "inside.test resolves to a private address"),
        ("https://[fd00:ec2::254]/hook", "a unique-local address"),
        ("ftp://example.org/hook", "must start with https://"),
        ("https://user:pw@example.org/hook", "user name or password"),
    ] {
        let detail = set_hook(&app, &game, &tokens[0], 0, url, "json").problem(422);
        assert!(detail.contains(words), "{url}: {detail}");
        assert!(!detail.contains("/hook") && !detail.contains("meta-data"), "no secret part in the words: {detail}");
        let detail = app
            .request(
                "PUT",
                &format!("/api/v1/games/{game}/channel"),
                Some(&host),
                Some(&json!({"webhook": {"url": url, "shape": "slack"}})),
            )
            .problem(422);
        assert!(detail.contains(words), "the channel too: {url}: {detail}");
    }
    // A hook that answers with a redirect (to a private address) is refused,
    // and the redirect is not followed.
    let detail = set_hook(&app, &game, &tokens[0], 0, &hooks.url("/redirect/x"), "json").problem(422);
    assert!(detail.contains("redirect"), "{detail}");
    assert_eq!(hooks.hits().len(), 1, "one request, to the receiver itself");
    let n = app.get(&format!("/api/v1/games/{game}/seats/0/notifications"), Some(&tokens[0]));
    assert_eq!(n.ok()["webhook"], Value::Null, "nothing refused is kept");

    // At send time: a hook that took its first notice and redirects later
    // is refused at once, set aside as a dead letter the host sees (its
    // address masked), and never followed.
    set_hook(&app, &game, &tokens[0], 0, &hooks.url("/json/asa"), "json").ok();
    hooks.redirect_all();
    let before = hooks.hits().len();
    play_to_the_end(&app, &game, &tokens, 5_000, &[409, 422], |_, v| v["legal"][0].clone(), || {});
    // Each notice is refused (the end's too) and set aside as a dead letter.
    let t = Instant::now();
    loop {
        let dead = app.get(&format!("/api/v1/games/{game}/dead-letters"), Some(&host)).ok()["dead_letters"].clone();
        let dead = dead.as_array().unwrap().clone();
        if dead.iter().any(|l| l["kind"] == "game_over") {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(120), "Ása's notice of the end was refused: {dead:#?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    outbox_drained(&app);
    // Each notice asked once, its redirect neither followed nor tried again:
    // as many requests as dead letters.
    let dead = app.get(&format!("/api/v1/games/{game}/dead-letters"), Some(&host)).ok()["dead_letters"].clone();
    let dead = dead.as_array().unwrap().clone();
    assert_eq!(metric(&app, "runestone_mail_dead_letters_total"), dead.len() as u64);
    for letter in &dead {
        assert_eq!(letter["to"], json!(format!("http://127.0.0.1:{}/…", hooks.port)), "{letter}");
        assert!(letter["last_error"].as_str().unwrap().contains("redirect"), "{letter}");
        assert_eq!(letter["attempts"], 1, "a redirect is not tried again: {letter}");
        assert!(!letter.to_string().contains("/json/asa"), "{letter}");
    }
    assert_eq!(
        hooks.hits().len() - before,
        dead.len(),
        "each refused notice was asked once, its redirect not followed"
    );
}

#[test]
fn the_stop_link_in_a_notice_stops_that_webhook_in_one_click() {
    let hooks = HookSink::start();
    let app = spawn(None);
    let created = app.create("bardagi", 3, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    set_hook(&app, &game, &tokens[2], 2, &hooks.url("/json/dis"), "json").ok();
    let stop = hooks.hits_to("/json/dis")[0].body["stop"].as_str().unwrap().to_owned();
    let path = stop.split_once("/notify/").map(|(_, p)| format!("/notify/{p}")).unwrap();
    // The GET only asks (a link preview stops nothing).
    let page = app.get(&path, None);
    assert_eq!(page.status, 200);
    assert!(page.text.contains("webhook will get no more notices"), "{}", page.text);
    assert!(
        app.get(&format!("/api/v1/games/{game}/seats/2/notifications"), Some(&tokens[2])).ok()["webhook"].is_object()
    );
    let forged = format!("{}x", &path[..path.len() - 1]);
    assert_eq!(app.post(&forged, None, &json!({})).status, 403);
    assert_eq!(
        app.raw("POST", &path, None, Some(Vec::new()), &[("content-type", "application/x-www-form-urlencoded")]).status,
        200
    );
    let n = app.get(&format!("/api/v1/games/{game}/seats/2/notifications"), Some(&tokens[2])).ok().clone();
    assert_eq!(n["webhook"], Value::Null, "{n}");
}

/// Every secret body and its words, as the log holds them once the game is
/// over (then the whole log is public).
fn secrets(app: &TestApp, game: &str) -> Vec<String> {
    let events = app.get(&format!("/api/v1/games/{game}/events"), None).ok()["events"].as_array().unwrap().clone();
    let mut out = Vec::new();
    for e in events.iter().filter(|e| e["visibility"] != "public" && e["visibility"]["seats"].is_array()) {
        out.push(e["text"].as_str().unwrap_or_default().to_owned());
        collect_strings(&e["body"], &mut out);
    }
    out.retain(|s| s.len() >= 12);
    out
}

fn collect_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}

#[test]
fn a_public_channel_never_carries_a_seats_secret_plan() {
    let hooks = HookSink::start();
    let app = spawn(None);
    let created = app.post("/api/v1/games", None, &json!({"ruleset": "bardagi", "seats": [
        {"name": "Ása"}, {"name": "Bjarni"}, {"name": "Dís"}], "host": {"name": "Gudrun", "email": "gudrun@example.org"}})).ok().clone();
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let host = str_of(&created, "host_token").to_owned();
    let r = app.request(
        "PUT",
        &format!("/api/v1/games/{game}/channel"),
        Some(&host),
        Some(&json!({"webhook": {"url": hooks.url("/channel"), "shape": "json"}})),
    );
    assert_eq!(r.ok()["webhook"]["shape"], "json");
    app.request("PUT", &format!("/api/v1/games/{game}/channel"), Some(&tokens[0]), Some(&json!({"webhook": null})))
        .problem(403);
    // Ása's own hook gets her secrets' prompts; the channel gets the public's.
    set_hook(&app, &game, &tokens[0], 0, &hooks.url("/json/asa"), "json").ok();
    play_to_the_end(&app, &game, &tokens, 5_000, &[409, 422], |_, v| v["legal"][0].clone(), || {});
    outbox_drained(&app);
    let channel = hooks.hits_to("/channel");
    let kinds: Vec<&str> = channel.iter().filter_map(|h| h.body["kind"].as_str()).collect();
    assert!(kinds.iter().filter(|k| **k == "turn").count() >= 2, "whose turn it is, each wait: {kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "game_over").count(), 1, "one notice of the end: {kinds:?}");
    assert!(channel.iter().any(|h| h.body["text"].as_str().unwrap_or_default().contains("Waiting for")));
    let secret = secrets(&app, &game);
    assert!(secret.len() >= 3, "the game had secret plans: {secret:?}");
    for h in &channel {
        let words = h.words();
        assert!(!words.contains("token="), "{words}");
        for s in &secret {
            assert!(!words.contains(s.as_str()), "the public channel told a secret {s:?}: {words}");
        }
    }
    // The channel's notices are cut to the public: not one is a seat's.
    assert!(channel.iter().all(|h| h.body["stop"].as_str().unwrap().contains("/channel/")));
    assert!(!hooks.hits_to("/json/asa").is_empty());
}
