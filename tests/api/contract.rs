//! The contract a client relies on: revoked links cut off a live
//! stream at once, the stream ends when the game does, `?token=` only on the
//! stream, `pending` names only decisions still owed, the `expected_seq`
//! policy, `view?at=` bounds, and bad tokens and bodies told in the API's
//! own words. Each item as requests and answers.

use std::io::{BufRead, BufReader};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use runestone::auth::{Claims, Keys, Role};
use serde_json::{json, Value};

use crate::helpers::{agent, seat_tokens, str_of, TestApp};

/// One server-sent event: its name and data, and when it was read.
struct Frame {
    event: String,
    data: Value,
    at: Instant,
}

/// Open the stream and read it in a thread until it ends; each frame is sent
/// on the channel as it arrives, and `None` when the stream is closed.
fn open_stream(app: &TestApp, path: &str, token: Option<&str>) -> mpsc::Receiver<Option<Frame>> {
    let url = format!("{}{path}", app.base);
    let token = token.map(str::to_owned);
    let (tx, rx) = mpsc::channel();
    let (ready_tx, ready_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut req = agent().get(&url);
        if let Some(t) = &token {
            req = req.header("Authorization", &format!("Bearer {t}"));
        }
        let mut resp = req.call().expect("the stream opens");
        assert_eq!(resp.status().as_u16(), 200);
        ready_tx.send(()).unwrap();
        let reader = BufReader::new(resp.body_mut().as_reader());
        let mut event = String::from("message");
        for line in reader.lines() {
            let Ok(line) = line else { break };
            if let Some(e) = line.strip_prefix("event: ") {
                event = e.to_owned();
            } else if let Some(d) = line.strip_prefix("data: ") {
                let data = serde_json::from_str(d).expect("JSON data");
                let frame = Frame { event: std::mem::replace(&mut event, "message".into()), data, at: Instant::now() };
                if tx.send(Some(frame)).is_err() {
                    return;
                }
            }
        }
        let _ = tx.send(None);
    });
    ready_rx.recv_timeout(Duration::from_secs(60)).expect("the stream is connected");
    rx
}

/// The next frame, or `None` once the stream has ended; generous bound.
fn next(rx: &mpsc::Receiver<Option<Frame>>) -> Option<Frame> {
    rx.recv_timeout(Duration::from_secs(60)).expect("the stream says something within a minute")
}

/// Read frames until the `closed` event; returns the events before it and it.
fn until_closed(rx: &mpsc::Receiver<Option<Frame>>) -> (Vec<Frame>, Frame) {
    let mut before = Vec::new();
    loop {
        let f = next(rx).expect("a closing event before the end of the stream");
        if f.event == "closed" {
            assert!(next(rx).is_none(), "nothing follows the closing event");
            return (before, f);
        }
        before.push(f);
    }
}

#[test]
fn a_revoked_link_cuts_off_its_open_stream_at_once_with_a_final_event_saying_why() {
    let app = TestApp::spawn();
    let created = app.create("duel", 3, json!({"rounds": 1}));
    let game = str_of(&created, "game_id").to_owned();
    let host = str_of(&created, "host_token").to_owned();
    let seats = seat_tokens(&created);
    let path = format!("/api/v1/games/{game}/stream");

    // A new link for seat 1: its stream ends with the revocation.
    let seat1 = open_stream(&app, &path, Some(&seats[1]));
    let public = open_stream(&app, &path, None);
    let asked = Instant::now();
    app.post(&format!("/api/v1/games/{game}/seats/1/token"), Some(&host), &json!({"reason": "lost phone"})).ok();
    let answered = Instant::now();
    let (before, closed) = until_closed(&seat1);
    assert_eq!(closed.data["reason"], "revoked", "{}", closed.data);
    assert!(closed.data["detail"].as_str().unwrap().contains("lost phone"), "{}", closed.data);
    assert!(before.iter().all(|f| f.event == "event"));
    println!(
        "stream closed {:?} after the revocation was asked, {:?} after it was answered",
        closed.at - asked,
        closed.at.saturating_duration_since(answered)
    );
    // The old token cannot open it again; the public stream goes on.
    let r = app.raw("GET", &path, Some(&seats[1]), None, &[]);
    assert!(r.problem(401).contains("revoked"));
    let f = next(&public).expect("the public stream goes on");
    assert_eq!(f.data["body"]["event"]["type"], "SeatTokenRevoked", "{}", f.data);

    // A substitute in seat 2: the old player's stream ends before the
    // substitute's secret bid, which it never receives.
    let seat2 = open_stream(&app, &path, Some(&seats[2]));
    let sub = app.post(
        &format!("/api/v1/games/{game}/seats/2/substitute"),
        Some(&host),
        &json!({"name": "Signý", "email": "signy@example.org"}),
    );
    let sub_token = str_of(sub.ok(), "token").to_owned();
    app.submit(&game, &sub_token, json!({"type": "Bid", "amount": 9})).ok();
    let (before, closed) = until_closed(&seat2);
    assert_eq!(closed.data["reason"], "revoked", "{}", closed.data);
    assert!(closed.data["detail"].as_str().unwrap().contains("Signý"), "{}", closed.data);
    for f in &before {
        assert_ne!(f.data["body"]["event"]["type"], "BidPlaced", "the old token saw the substitute's bid: {}", f.data);
    }
}

/// A referee's or a host's open stream ends as soon as the host replaces
/// the token it was opened with, before any later event (a referee's
/// stream would show every secret).
#[test]
fn a_replaced_referee_or_host_token_cuts_off_its_open_stream() {
    let app = TestApp::spawn();
    let created = app.create("duel", 2, json!({"rounds": 1}));
    let game = str_of(&created, "game_id").to_owned();
    let host = str_of(&created, "host_token").to_owned();
    let referee = str_of(&created, "referee_token").to_owned();
    let seats = seat_tokens(&created);
    let path = format!("/api/v1/games/{game}/stream");
    let referee_stream = open_stream(&app, &path, Some(&referee));
    let host_stream = open_stream(&app, &path, Some(&host));
    app.post(&format!("/api/v1/games/{game}/roles/referee/token"), Some(&host), &json!({"reason": "leaked"})).ok();
    app.submit(&game, &seats[0], json!({"type": "Bid", "amount": 3})).ok();
    let (before, closed) = until_closed(&referee_stream);
    assert_eq!(closed.data["reason"], "revoked", "{}", closed.data);
    assert!(
        closed.data["detail"].as_str().unwrap().contains("referee token")
            && closed.data["detail"].as_str().unwrap().contains("leaked"),
        "{}",
        closed.data
    );
    for f in &before {
        assert_ne!(f.data["body"]["event"]["type"], "BidPlaced", "the old referee token saw a later bid: {}", f.data);
    }
    let f = next(&host_stream).expect("the host's stream goes on");
    assert_eq!(f.data["body"]["event"]["type"], "RoleTokenRevoked", "{}", f.data);
    let new_host = app.post(&format!("/api/v1/games/{game}/roles/host/token"), Some(&host), &json!({})).ok().clone();
    let (_, closed) = until_closed(&host_stream);
    assert_eq!(closed.data["reason"], "revoked", "{}", closed.data);
    assert!(closed.data["detail"].as_str().unwrap().contains("host token"), "{}", closed.data);
    app.raw("GET", &path, Some(&host), None, &[]).problem(401);
    app.get(&format!("/api/v1/games/{game}/dead-letters"), Some(str_of(&new_host, "token"))).ok();
}

#[test]
fn the_stream_ends_with_the_game_and_a_stream_of_an_ended_game_closes_after_its_backlog() {
    let app = TestApp::spawn();
    let created = app.create("duel", 2, json!({"rounds": 1}));
    let game = str_of(&created, "game_id").to_owned();
    let seats = seat_tokens(&created);
    let path = format!("/api/v1/games/{game}/stream");
    let public = open_stream(&app, &path, None);
    app.submit(&game, &seats[0], json!({"type": "Bid", "amount": 7})).ok();
    let last = app.submit(&game, &seats[1], json!({"type": "Bid", "amount": 2}));
    assert!(!last.ok()["over"].as_bool().unwrap());
    app.submit(&game, &seats[0], json!({"type": "Claim"})).ok();
    let (before, closed) = until_closed(&public);
    assert_eq!(closed.data["reason"], "over", "{}", closed.data);
    assert!(closed.data["outcome"]["winners"].is_array(), "{}", closed.data);
    let head = app.get(&format!("/api/v1/games/{game}"), None).ok()["head"].as_u64().unwrap();
    assert_eq!(closed.data["head"], head);
    assert_eq!(before.last().unwrap().data["seq"], head, "every event up to the end came first");

    // Opened after the end: the backlog asked for, then the close.
    let after = open_stream(&app, &format!("{path}?from={head}"), None);
    let (before, closed) = until_closed(&after);
    assert_eq!(before.len(), 1);
    assert_eq!(closed.data["reason"], "over");
}

#[test]
fn a_token_in_the_query_is_taken_only_by_the_stream() {
    let app = TestApp::spawn();
    let created = app.create("duel", 2, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let seats = seat_tokens(&created);
    let t = &seats[0];
    for (method, path, body) in [
        ("GET", format!("/api/v1/games/{game}/view?token={t}"), None),
        ("GET", format!("/api/v1/games/{game}/events?token={t}"), None),
        (
            "POST",
            format!("/api/v1/games/{game}/commands?token={t}"),
            Some(json!({"command": {"type": "Bid", "amount": 1}})),
        ),
        ("POST", format!("/api/v1/games/{game}/undo?token={t}"), None),
    ] {
        let r = app.raw(method, &path, None, body.map(|b| b.to_string().into_bytes()), &[]);
        let d = r.problem(400);
        assert!(d.contains("only on the event stream") && d.contains("Authorization"), "{method} {path}: {d}");
    }
    assert_eq!(app.get(&format!("/api/v1/games/{game}"), None).ok()["head"], 1, "nothing was recorded");
    // The stream takes it, and checks it like a header.
    let r = app.raw("GET", &format!("/api/v1/games/{game}/stream?token=nonsense"), None, None, &[]);
    r.problem(401);
    let stream = open_stream(&app, &format!("/api/v1/games/{game}/stream?from=0&token={t}"), None);
    assert_eq!(next(&stream).unwrap().data["seq"], 0);
}

#[test]
fn pending_names_only_the_decisions_still_owed_and_submitted_those_given() {
    let app = TestApp::spawn();
    let created = app.create("duel", 3, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let seats = seat_tokens(&created);
    let placed = app.submit_at(&game, &seats[0], json!({"type": "Bid", "amount": 4}), None);
    let seats_of =
        |v: &Value| -> Vec<u64> { v.as_array().unwrap().iter().map(|p| p["seat"].as_u64().unwrap()).collect() };
    assert_eq!(seats_of(&placed.ok()["pending"]), [1, 2]);
    assert_eq!(seats_of(&placed.json["submitted"]), [0]);
    let summary = app.get(&format!("/api/v1/games/{game}"), None);
    assert_eq!(seats_of(&summary.ok()["pending"]), [1, 2]);
    assert_eq!(seats_of(&summary.json["submitted"]), [0]);
    assert!(summary.json["pending"].as_array().unwrap().iter().all(|p| p["submitted"] == false));
    // The seat may still replace its plan: its view offers it, and a bot
    // acting only for `pending` seats leaves it alone.
    let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&seats[0]));
    assert_eq!(seats_of(&view.ok()["pending"]), [1, 2]);
    assert!(!view.json["legal"].as_array().unwrap().is_empty());
    let head = summary.json["head"].as_u64().unwrap();
    app.submit_at(&game, &seats[0], json!({"type": "Bid", "amount": 5}), None).ok();
    assert_eq!(app.get(&format!("/api/v1/games/{game}"), None).ok()["head"], head + 1, "a replacement is one event");
}

#[test]
fn expected_seq_is_required_for_turn_commands_and_optional_for_a_secret_plan() {
    let app = TestApp::spawn();
    let created = app.create("duel", 2, json!({"rounds": 2}));
    let game = str_of(&created, "game_id").to_owned();
    let seats = seat_tokens(&created);
    let cmd = format!("/api/v1/games/{game}/commands");
    // A secret plan, made and replaced, without it.
    app.submit_at(&game, &seats[0], json!({"type": "Bid", "amount": 9}), None).ok();
    app.submit_at(&game, &seats[0], json!({"type": "Bid", "amount": 8}), None).ok();
    // null is not a position.
    let d = app
        .post(&cmd, Some(&seats[1]), &json!({"command": {"type": "Bid", "amount": 1}, "expected_seq": null}))
        .problem(400);
    assert!(d.contains("expected_seq") && d.contains("whole number"), "{d}");
    app.submit_at(&game, &seats[1], json!({"type": "Bid", "amount": 1}), None).ok();
    // Seat 0 won the round and must claim: a turn command.
    let summary = app.get(&format!("/api/v1/games/{game}"), None);
    assert_eq!(summary.ok()["pending"][0]["seat"], 0, "{}", summary.text);
    let head = summary.json["head"].as_u64().unwrap();
    let r = app.submit_at(&game, &seats[0], json!({"type": "Claim"}), None);
    let d = r.problem(400);
    assert!(d.contains("\"expected_seq\" is required") && d.contains(&format!("now {head}")), "{d}");
    // Many identical claims at once on the same head: exactly one is taken.
    let answers: Vec<u16> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..12)
            .map(|_| s.spawn(|| app.submit_at(&game, &seats[0], json!({"type": "Claim"}), Some(head)).status))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(answers.iter().filter(|s| **s == 200).count(), 1, "{answers:?}");
    assert!(answers.iter().all(|s| [200, 409].contains(s)), "{answers:?}");
}

#[test]
fn view_at_answers_only_positions_that_exist() {
    let app = TestApp::spawn();
    let created = app.create("duel", 2, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let head = app.get(&format!("/api/v1/games/{game}"), None).ok()["head"].as_u64().unwrap();
    let view = |q: &str| app.get(&format!("/api/v1/games/{game}/view?{q}"), None);
    assert_eq!(view(&format!("at={head}")).ok()["seq"], head);
    assert_eq!(view("at=1").ok()["seq"], 1);
    let d = view(&format!("at={}", head + 1)).problem(422);
    assert!(d.contains(&format!("head is event {head}")), "{d}");
    let d = view("at=0").problem(400);
    assert!(d.contains("1 or more"), "{d}");
    // A number past 64 bits is named as it was sent, never as a number it
    // was cut to.
    let d = view("at=99999999999999999999999").problem(400);
    assert!(d.contains("99999999999999999999999") && d.contains("larger than any event number"), "{d}");
    assert!(!d.contains(&u64::MAX.to_string()), "{d}");
    let d = view(&format!("at={}", u64::MAX)).problem(422);
    assert!(d.contains(&format!("after event {} yet", u64::MAX)), "{d}");
    let d = app.get(&format!("/api/v1/games/{game}/events?from=123456789012345678901234567890"), None).problem(400);
    assert!(d.contains("`from` is \"123456789012345678901234567890\""), "{d}");
    for bad in ["-1", "abc", "1.5", "", "1e3"] {
        let d = view(&format!("at={bad}")).problem(400);
        assert!(d.contains("`at` must be a whole number"), "{bad}: {d}");
        assert!(!d.contains("invalid digit") && !d.contains("deserialize"), "{bad}: {d}");
    }
    let d = app.get(&format!("/api/v1/games/{game}/events?from=-1"), None).problem(400);
    assert!(d.contains("`from` must be a whole number"), "{d}");
}

#[test]
fn bad_tokens_bodies_seats_and_ids_are_told_in_the_products_own_words() {
    let app = TestApp::spawn();
    let created = app.create("duel", 3, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let host = str_of(&created, "host_token").to_owned();
    let seats = seat_tokens(&created);
    let cmd = format!("/api/v1/games/{game}/commands");
    let bid = json!({"command": {"type": "Bid", "amount": 1}});
    let key = hex::decode(std::fs::read_to_string(app.dir.join("jwt.key")).unwrap().trim()).unwrap();
    let keys = Keys::new(&key, 30);
    let now = chrono::Utc::now().timestamp();
    let token = |seat: u8, iat: i64| {
        keys.sign(&Claims { sub: game.clone(), role: Role::Seat, seat: Some(seat), gen: 0, iat, exp: iat + 86_400 })
    };

    // Issued "in the future" (the server's clock was set back since): the
    // server's own token all the same.
    app.get(&format!("/api/v1/games/{game}/view"), Some(&token(0, now + 3600))).ok();
    // Expired a second ago.
    let d = app.get(&format!("/api/v1/games/{game}/view"), Some(&token(0, now - 86_401))).problem(401);
    assert!(d.contains("expired"), "{d}");
    // A seat the game does not have.
    let d = app.post(&cmd, Some(&token(99, now)), &bid).problem(401);
    assert!(d.contains("seat 99") && d.contains("0 to 2") && !d.contains("revoked"), "{d}");
    // Unsigned, mangled and not-a-token: no library words.
    let b64 = |v: &Value| {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
    };
    let claims = json!({"sub": game, "role": "seat", "seat": 0, "gen": 0, "iat": now, "exp": now + 100});
    let unsigned = format!("{}.{}.", b64(&json!({"alg": "none", "typ": "JWT"})), b64(&claims));
    for bad in [unsigned.as_str(), "a.b.c", "abc", "e30.e30.e30", "....."] {
        let d = app.post(&cmd, Some(bad), &bid).problem(401);
        for word in ["variant", "HS256`", "Base64", "symbol", "Json", "InvalidToken", "expected"] {
            assert!(!d.contains(word), "{bad}: {d}");
        }
    }
    // A body that is not declared JSON.
    let r =
        app.raw("POST", &cmd, Some(&seats[0]), Some(bid.to_string().into_bytes()), &[("Content-Type", "text/plain")]);
    assert!(r.problem(415).contains("application/json"));
    // Bad JSON, said without the parser's words.
    let d = app.raw("POST", &cmd, Some(&seats[0]), Some(b"{\"command\": ".to_vec()), &[]).problem(400);
    assert!(d.contains("not valid JSON") && d.contains("line 1") && !d.contains("EOF"), "{d}");
    // A command of the wrong shape.
    let d = app.post(&cmd, Some(&seats[0]), &json!({"command": {"type": "Fly"}})).problem(400);
    assert!(d.contains("\"Fly\"") && d.contains("Bid") && !d.contains("variant") && !d.contains('`'), "{d}");
    let d = app.post(&cmd, Some(&seats[0]), &json!({"command": {"type": "Bid", "amount": "lots"}})).problem(400);
    assert!(!d.contains("u8") && !d.contains("u32") && !d.contains('`'), "{d}");
    // A huge id is not echoed back whole.
    let long = "x".repeat(30_000);
    let d = app.get(&format!("/api/v1/games/{long}"), None).problem(404);
    assert!(d.len() < 300, "{} bytes", d.len());
    let d = app.get(&format!("/api/v1/nothing/{long}"), None).problem(404);
    assert!(d.len() < 300, "{} bytes", d.len());
    // Any seat the game lacks is 422, however large; not a number is 400.
    for seat in ["3", "255", "256", "99999999999"] {
        let d = app.post(&format!("/api/v1/games/{game}/seats/{seat}/token"), Some(&host), &json!({})).problem(422);
        assert!(d.contains(&format!("no seat {seat}")) && d.contains("0 to 2"), "{seat}: {d}");
    }
    let d = app.post(&format!("/api/v1/games/{game}/seats/-1/token"), Some(&host), &json!({})).problem(400);
    assert!(d.contains("whole number"), "{d}");
    // A substitute of the wrong shape.
    let d = app
        .post(&format!("/api/v1/games/{game}/seats/1/substitute"), Some(&host), &json!({"name": "A", "colour": 1}))
        .problem(400);
    assert!(d.contains("\"colour\"") && !d.contains('`'), "{d}");
}

#[test]
fn every_command_and_subcommand_answers_help_and_options_are_typed() {
    let bin = env!("CARGO_BIN_EXE_runestone");
    let run = |args: &[&str]| std::process::Command::new(bin).args(args).output().expect("runs");
    for (sub, options) in [
        ("serve", &["--config", "--host", "--port", "--public-url", "--workers", "--new-signing-key"][..]),
        ("check", &["--data", "--config"][..]),
        ("replay", &["--seed"][..]),
        ("export", &["--config", "--out"][..]),
        ("simulate", &["--ruleset", "--players", "--seed", "--options", "--out"][..]),
    ] {
        let out = run(&[sub, "--help"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{sub} --help: {}", String::from_utf8_lossy(&out.stderr));
        for o in options {
            assert!(text.contains(o), "{sub} --help names {o}: {text}");
        }
    }
    let top = run(&["--help"]);
    assert!(top.status.success());
    assert!(String::from_utf8_lossy(&top.stdout).contains("simulate"));
    // A typed option refuses a value of the wrong type, and an unknown one is named.
    let bad = run(&["serve", "--port", "eighty"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--port"), "{}", String::from_utf8_lossy(&bad.stderr));
    let bad = run(&["simulate", "--ruleset", "duel", "--players", "many", "--seed", "1"]);
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("--players"));
    let bad = run(&["check", "--colour"]);
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("--colour"));
}

#[test]
fn a_command_of_another_game_is_refused_as_not_this_games_and_a_shapeless_one_as_malformed() {
    let app = TestApp::spawn();
    let created = app.create("bardagi", 2, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let seats = seat_tokens(&created);
    // The API's command schema is any hosted game's: a Duel bid is a
    // well-formed command, only not one of Bardagi's.
    let d = app.submit_at(&game, &seats[0], json!({"type": "Bid", "amount": 3}), None).problem(422);
    assert!(d.contains("a command of Duel (test fixture), not of Bardagi"), "{d}");
    // A command of no game at all is a malformed request.
    let r = app.submit_at(&game, &seats[0], json!({"type": "Nonsense", "amount": 3}), None);
    let d = r.problem(400);
    assert!(d.contains("unknown type") && d.contains("Plan"), "{d}");
    assert_eq!(r.json["title"], "Not a command of this game");
}
