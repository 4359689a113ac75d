//! Who may make the server send mail, and what a name may hold: names with
//! control characters or past their bounds are refused; a game created
//! without the instance key mails only its host, once, until the host
//! confirms; creation can be kept to the key's holders and is bounded per
//! client; a bad name already stored stops no mail. Over a real SMTP
//! listener.

use std::time::{Duration, Instant};

use runestone::store::sled::SledStore;
use runestone::store::{EventStore, Side, SideWrite};
use serde_json::{json, Value};

use crate::helpers::{str_of, TestApp};
use crate::smtp::{Received, SmtpSink};

const KEY: &str = "an-instance-key-of-at-least-32-characters";

/// The real defaults of `[access]`, with an instance key, mail to `sink`.
fn app_with_defaults(sink: &SmtpSink, change: impl FnOnce(&mut runestone::config::Settings)) -> TestApp {
    let port = sink.port;
    TestApp::spawn_with(move |s| {
        TestApp::smtp_to(port)(s);
        s.access = runestone::config::Settings::defaults().access;
        s.access.instance_key = KEY.into();
        change(s);
    })
}

fn seats() -> Value {
    json!([{"name": "Ása", "email": "asa@example.org"}, {"name": "Bjarni", "email": "bjarni@example.org"}])
}

/// Wait until the outbox has nothing queued (what was queued is sent).
fn outbox_empty(app: &TestApp) {
    let t = Instant::now();
    loop {
        let text = app.get("/metrics", None).text;
        if text.lines().any(|l| l == "runestone_outbox_depth 0") {
            return;
        }
        assert!(t.elapsed() < Duration::from_secs(120), "the outbox never emptied:\n{text}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn link_in(m: &Received, path: &str) -> String {
    let text = m.text();
    let found = text.split_whitespace().find(|w| w.starts_with("http") && w.contains(path));
    found.unwrap_or_else(|| panic!("no link to {path} in:\n{text}")).to_owned()
}

/// A POST with no body and the status, `Retry-After` and body of the answer.
fn raw_post(url: &str, headers: &[(&str, &str)], body: &Value) -> (u16, Option<String>, Value) {
    let agent = crate::helpers::agent();
    let mut req = agent.post(url).header("Content-Type", "application/json");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut resp = req.send(body.to_string().as_bytes()).expect("a response");
    let retry = resp.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let body = resp.body_mut().read_to_string().unwrap_or_default();
    (resp.status().as_u16(), retry, serde_json::from_str(&body).unwrap_or(Value::Null))
}

#[test]
fn names_with_a_line_break_or_past_their_bound_are_refused_in_words() {
    let app = TestApp::spawn();
    let create = |seats: Value, host: Value| {
        app.post("/api/v1/games", None, &json!({"ruleset": "duel", "seats": seats, "host": host}))
    };
    let host = json!({"name": "Gudrun", "email": "gudrun@example.org"});
    for bad in ["A\r\nBcc: x@example.org", "A\nB", "A\u{2028}B"] {
        let d = create(json!([{"name": "Ása"}, {"name": bad}]), host.clone()).problem(400);
        assert!(d.starts_with("seat 1's name contains a control character"), "{d}");
        let d = create(seats(), json!({"name": bad, "email": "gudrun@example.org"})).problem(400);
        assert!(d.starts_with("the host's name contains a control character"), "{d}");
    }
    let d = create(seats(), json!({"name": "x".repeat(60_000), "email": "gudrun@example.org"})).problem(400);
    assert_eq!(d, "the host's name is 60000 characters long; at most 40 are allowed");
    let long = format!("{}@example.org", "a".repeat(300));
    let d = create(json!([{"name": "Ása", "email": long}, {"name": "Bo"}]), host.clone()).problem(400);
    assert!(d.starts_with("seat 0's email is 312 bytes long"), "{d}");

    // The same for a substitute, and for a reason.
    let created = create(seats(), host).ok().clone();
    let (game, host_token) = (str_of(&created, "game_id"), str_of(&created, "host_token"));
    let d = app
        .post(&format!("/api/v1/games/{game}/seats/1/substitute"), Some(host_token), &json!({"name": "Dís\nBcc: y"}))
        .problem(400);
    assert!(d.starts_with("the substitute's name contains a control character"), "{d}");
    let d = app
        .post(&format!("/api/v1/games/{game}/rollback"), Some(host_token), &json!({"to_seq": 1, "reason": "a\nb"}))
        .problem(400);
    assert!(d.starts_with("the reason contains a control character"), "{d}");
}

/// A name with a line break stored before names were checked: its
/// player's mail leaves (the header made safe), and so does every other
/// game's; `/healthz` stays ok because the worker is well.
#[test]
fn a_stored_name_with_a_line_break_stops_no_mail() {
    let sink = SmtpSink::start();
    let app = TestApp::spawn_with(TestApp::smtp_to(sink.port));
    let created = app
        .post("/api/v1/games", None, &json!({"ruleset": "duel", "options": {"rounds": 2}, "seats": seats()}))
        .ok()
        .clone();
    let game = str_of(&created, "game_id").to_owned();
    let tokens: Vec<String> = crate::helpers::seat_tokens(&created);
    sink.wait_for(2, 120);

    // Between two runs, the stored record's first name gets a line break.
    let mut app = app;
    app.stop();
    let store = SledStore::open(&app.dir.join("events")).expect("the store opens");
    let mut record: Value =
        serde_json::from_slice(&store.get(Side::Games, game.as_bytes()).unwrap().expect("the record")).unwrap();
    record["seats"][0]["name"] = json!("A\r\nBcc: x@example.org");
    let value = Some(serde_json::to_vec(&record).unwrap());
    actix_web::rt::System::new()
        .block_on(store.put(vec![SideWrite { side: Side::Games, key: game.as_bytes().to_vec(), value }]))
        .expect("written");
    drop(store);
    let app = app.restart();

    // Seat 0 wins the bid: its "your move" mail has the stored name.
    app.submit(&game, &tokens[0], json!({"type": "Bid", "amount": 6})).ok();
    app.submit(&game, &tokens[1], json!({"type": "Bid", "amount": 2})).ok();
    let other = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "duel", "seats": [{"name": "Dís", "email": "dis@example.org"}, {"name": "Eir"}]}),
        )
        .ok()
        .clone();
    assert!(other["mail"].is_null(), "{other}");
    let got = sink.wait_for(4, 120);
    let to_asa = got.iter().skip(2).find(|m| m.to[0] == "asa@example.org").expect("Ása's move is mailed");
    let head = to_asa.raw.split("\r\n\r\n").next().unwrap().to_owned();
    assert!(!head.lines().any(|l| l.starts_with("Bcc:")), "no header made from a name:\n{head}");
    assert!(got.iter().any(|m| m.to[0] == "dis@example.org"), "another game's mail leaves too");
    assert!(got.iter().all(|m| m.to.len() == 1), "nobody else got a copy");
    let health = app.get("/healthz", None);
    assert_eq!(health.ok()["status"], "ok", "{}", health.text);
}

#[test]
fn a_game_created_without_the_key_mails_only_its_host_until_the_host_confirms() {
    let sink = SmtpSink::start();
    let app = app_with_defaults(&sink, |_| {});
    let created = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "duel", "seats": seats(), "host": {"name": "Gudrun", "email": "gudrun@example.org"}}),
        )
        .ok()
        .clone();
    let said = created["mail"].as_str().expect("the answer says the mail is held");
    assert!(said.contains("until the host confirms gudrun@example.org"), "{said}");

    // One message: to the host, asking to confirm. Nothing else is queued.
    let got = sink.wait_for(1, 120);
    outbox_empty(&app);
    let got_now = sink.received();
    assert_eq!(got_now.len(), 1, "only the host's confirmation: {:#?}", got.iter().map(|m| &m.to).collect::<Vec<_>>());
    let confirm = &got_now[0];
    assert_eq!(confirm.to, ["gudrun@example.org"]);
    assert!(confirm.header("Subject").unwrap().starts_with("Confirm your game of"), "{:?}", confirm.header("Subject"));
    assert!(confirm.text().contains("Ása, Bjarni"), "{}", confirm.text());
    let link = link_in(confirm, "/mail/confirm/");
    let path = &link[link.find("/mail/").unwrap()..];

    // A forged link is refused; the page asks before it does anything.
    let forged = format!("{}{}", &path[..path.len() - 4], "0000");
    assert_eq!(app.get(&forged, None).status, 403);
    let page = app.get(path, None);
    assert_eq!(page.status, 200);
    assert!(page.text.contains("Ása") && page.text.contains("<form method=\"post\">"), "{}", page.text);
    outbox_empty(&app);
    assert_eq!(sink.received().len(), 1, "opening the page sends nothing");

    // Confirmed: the invitations leave, and the host gets their own link.
    let done = app.raw("POST", path, None, None, &[]);
    assert_eq!(done.status, 200, "{}", done.text);
    assert!(done.text.contains("the 2 messages that waited"), "{}", done.text);
    let got = sink.wait_for(4, 120);
    let (to_host, invitations): (Vec<_>, Vec<_>) = got[1..].iter().partition(|m| m.to[0] == "gudrun@example.org");
    let invited: Vec<&str> = invitations.iter().map(|m| m.to[0].as_str()).collect();
    assert!(invited.contains(&"asa@example.org") && invited.contains(&"bjarni@example.org"), "{invited:?}");
    assert!(invitations.iter().all(|m| m.header("Subject").unwrap().starts_with("Your seat")));
    assert_eq!(to_host.len(), 1, "the host's link, once");
    assert!(
        to_host[0].header("Subject").unwrap().starts_with("Your host page for"),
        "{:?}",
        to_host[0].header("Subject")
    );
    let host_link = link_in(to_host[0], "/play/");
    let host_page = app.get(&host_link[host_link.find("/play/").unwrap()..], None);
    assert_eq!(host_page.status, 200, "the mailed host link opens: {}", host_page.text);
    let again = app.raw("POST", path, None, None, &[]);
    assert_eq!(again.status, 200, "confirming twice is harmless");
    outbox_empty(&app);
    assert_eq!(sink.received().len(), 4);

    // With the instance key the invitations leave at once; a wrong key is refused.
    let body = json!({"ruleset": "duel", "seats": [{"name": "Dís", "email": "dis@example.org"}, {"name": "Eir"}]});
    let keyed = app.post("/api/v1/games", Some(KEY), &body).ok().clone();
    assert!(keyed["mail"].is_null(), "{keyed}");
    let got = sink.wait_for(5, 120);
    assert_eq!(got[4].to, ["dis@example.org"]);
    let d = app.post("/api/v1/games", Some("not-the-key"), &body).problem(401);
    assert!(d.contains("not this server's instance key"), "{d}");

    // Without a host address, nobody is mailed.
    let anonymous = app.post("/api/v1/games", None, &body).ok().clone();
    assert!(anonymous["mail"].as_str().unwrap().contains("no host address"), "{anonymous}");
    outbox_empty(&app);
    assert_eq!(sink.received().len(), 5, "no mail for a game without a confirmed host");
}

#[test]
fn creation_can_need_the_key_and_is_bounded_per_client_and_per_host_address() {
    let sink = SmtpSink::start();
    let app = app_with_defaults(&sink, |s| {
        s.access.create = "key".into();
        s.access.creates_per_hour = 2;
    });
    let url = format!("{}/api/v1/games", app.base);
    let body = json!({"ruleset": "duel", "seats": seats()});
    let d = app.post("/api/v1/games", None, &body).problem(401);
    assert!(d.contains("only for requests carrying its instance key"), "{d}");
    let bearer = format!("Bearer {KEY}");
    for _ in 0..2 {
        let (status, _, _) = raw_post(&url, &[("Authorization", &bearer)], &body);
        assert_eq!(status, 201);
    }
    let (status, retry, problem) = raw_post(&url, &[("Authorization", &bearer)], &body);
    assert_eq!(status, 429, "{problem}");
    let retry: u64 = retry.expect("a Retry-After").parse().expect("seconds");
    assert!((1..=1800).contains(&retry), "one game comes back every 30 minutes: {retry}");
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.starts_with("too many games were created from your address; try again in"), "{detail}");

    // Confirmations to one address are bounded too (a stranger's address
    // cannot be flooded with them).
    let sink = SmtpSink::start();
    let app = app_with_defaults(&sink, |s| s.access.confirmations_per_day = 1);
    let hosted =
        json!({"ruleset": "duel", "seats": seats(), "host": {"name": "Gudrun", "email": "Gudrun@example.org"}});
    app.post("/api/v1/games", None, &hosted).ok();
    let mut again = hosted.clone();
    again["host"]["email"] = json!("gudrun@EXAMPLE.org");
    let d = app.post("/api/v1/games", None, &again).problem(429);
    assert!(d.starts_with("confirmations were mailed to gudrun@example.org too often"), "{d}");
    app.post("/api/v1/games", Some(KEY), &again).ok();
}
