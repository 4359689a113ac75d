//! Bad input of every kind gets problem+json with a fitting status and a
//! detail that says what was wrong, and the server keeps serving.

use runestone::auth::{Claims, Keys, Role};
use serde_json::json;

use crate::helpers::{seat_tokens, str_of, TestApp};

#[test]
fn every_kind_of_bad_input_is_answered_with_a_clear_problem() {
    let app = TestApp::spawn();
    let created = app.create("duel", 2, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let seats = seat_tokens(&created);
    let other = app.create("duel", 2, json!({}));
    let other_seats = seat_tokens(&other);
    let cmd = format!("/api/v1/games/{game}/commands");

    // Malformed JSON.
    let d = app.raw("POST", "/api/v1/games", None, Some(b"{\"ruleset\": ".to_vec()), &[]).problem(400);
    assert!(d.contains("not valid JSON"), "{d}");
    let d = app.raw("POST", &cmd, Some(&seats[0]), Some(b"[1,2".to_vec()), &[]).problem(400);
    assert!(d.contains("not valid JSON"), "{d}");
    // A request of the wrong shape.
    let d = app.post("/api/v1/games", None, &json!({"ruleset": "duel"})).problem(400);
    assert!(d.contains("seats"), "{d}");
    // Unknown ruleset, bad seat count, bad option.
    let d = app
        .post("/api/v1/games", None, &json!({"ruleset": "chess", "seats": [{"name": "a"}, {"name": "b"}]}))
        .problem(422);
    assert!(d.contains("unknown ruleset") && d.contains("duel"), "{d}");
    let d = app.post("/api/v1/games", None, &json!({"ruleset": "duel", "seats": [{"name": "a"}]})).problem(422);
    assert!(d.contains("2 to 4 players"), "{d}");
    let d = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "duel", "options": {"rounds": 99}, "seats": [{"name": "a"}, {"name": "b"}]}),
        )
        .problem(422);
    assert!(d.contains("rounds"), "{d}");
    let d = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "duel", "options": {"colour": 1}, "seats": [{"name": "a"}, {"name": "b"}]}),
        )
        .problem(400);
    assert!(d.contains("colour"), "{d}");
    let d = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "duel", "seats": [{"name": "a", "email": "not an address"}, {"name": "b"}]}),
        )
        .problem(422);
    assert!(d.contains("email"), "{d}");

    // Missing, malformed, forged and expired tokens.
    let bid = json!({"command": {"type": "Bid", "amount": 1}});
    let d = app.post(&cmd, None, &bid).problem(401);
    assert!(d.contains("Bearer"), "{d}");
    let d =
        app.raw("POST", &cmd, None, Some(bid.to_string().into_bytes()), &[("Authorization", "Basic abc")]).problem(401);
    assert!(d.contains("Bearer"), "{d}");
    let forged = Keys::new(&[9; 32], 30).issue(&game, Role::Seat, Some(0), 0, chrono::Utc::now());
    let d = app.post(&cmd, Some(&forged), &bid).problem(401);
    assert!(d.contains("signature"), "{d}");
    let key = hex::decode(std::fs::read_to_string(app.dir.join("jwt.key")).unwrap().trim()).unwrap();
    let past = chrono::Utc::now().timestamp() - 3600;
    let expired = Keys::new(&key, 30).sign(&Claims {
        sub: game.clone(),
        role: Role::Seat,
        seat: Some(0),
        gen: 0,
        iat: past - 10,
        exp: past,
    });
    let d = app.post(&cmd, Some(&expired), &bid).problem(401);
    assert!(d.contains("expired"), "{d}");
    // A token for another game.
    let d = app.post(&cmd, Some(&other_seats[0]), &bid).problem(403);
    assert!(d.contains("another") || d.contains("not for game"), "{d}");
    // The host's token cannot play a seat.
    let d = app.post(&cmd, Some(str_of(&created, "host_token")), &bid).problem(403);
    assert!(d.contains("seat"), "{d}");

    // An unknown command type, a bad field, and a rule violation.
    let d = app.post(&cmd, Some(&seats[0]), &json!({"command": {"type": "Fly"}})).problem(400);
    assert!(d.contains("Fly") || d.contains("variant"), "{d}");
    let d =
        app.post(&cmd, Some(&seats[0]), &json!({"command": {"type": "Bid", "amount": 1}, "hurry": true})).problem(400);
    assert!(d.contains("hurry"), "{d}");
    let d = app.post(&cmd, Some(&seats[0]), &json!({"command": {"type": "Bid", "amount": 50}})).problem(422);
    assert!(d.contains("1 to 10"), "{d}");

    // A stale expected_seq.
    let r = app.post(&cmd, Some(&seats[0]), &json!({"command": {"type": "Bid", "amount": 5}, "expected_seq": 1}));
    let head = r.ok()["head"].as_u64().unwrap();
    let r = app.post(&cmd, Some(&seats[1]), &json!({"command": {"type": "Bid", "amount": 1}, "expected_seq": 1}));
    let d = r.problem(409);
    assert!(d.contains("stale"), "{d}");
    assert_eq!(r.json["head"], head);

    // A command out of turn.
    app.submit(&game, &seats[1], json!({"type": "Bid", "amount": 1})).ok();
    let r = app.submit(&game, &seats[1], json!({"type": "Claim"}));
    let d = r.problem(422);
    assert!(d.contains("waiting for seat 0"), "{d}");
    assert_eq!(r.json["pending"][0]["seat"], 0);

    // A body over the size limit.
    let big = format!("{{\"command\": {{\"type\": \"Taunt\", \"text\": \"{}\"}}}}", "a".repeat(100_000));
    let d = app.raw("POST", &cmd, Some(&seats[0]), Some(big.into_bytes()), &[]).problem(413);
    assert!(d.contains("limit"), "{d}");

    // Unknown games and bad positions.
    app.get("/api/v1/games/zzzzzzzzzzzzzzzz", None).problem(404);
    app.get("/api/v1/games/short", None).problem(404);
    let d = app.get(&format!("/api/v1/games/{game}/view?at=0"), None).problem(400);
    assert!(d.contains("positions start"), "{d}");
    app.get(&format!("/api/v1/games/{game}/view?at=abc"), None).problem(400);
    let d = app
        .post(&format!("/api/v1/games/{game}/rollback"), Some(str_of(&created, "host_token")), &json!({"to_seq": 1}))
        .problem(400);
    assert!(d.contains("reason"), "{d}");

    // Still serving, and the game is intact.
    assert_eq!(app.get("/healthz", None).ok()["status"], "ok");
    assert_eq!(app.get(&format!("/api/v1/games/{game}/verify"), None).ok()["ok"], true);
}

/// A request whose head actix-http cannot read (a 100 KB path: a URI may
/// have 65,534 bytes) is answered before any route runs; that answer is a
/// problem+json in the API's words too, not an empty 400.
#[test]
fn a_path_too_long_to_read_is_told_as_a_problem() {
    use std::io::{Read, Write};
    let app = TestApp::spawn();
    let addr = app.base.trim_start_matches("http://").to_owned();
    let ask = |request: String| {
        let mut s = std::net::TcpStream::connect(&addr).expect("connects");
        s.set_read_timeout(Some(std::time::Duration::from_secs(60))).unwrap();
        s.write_all(request.as_bytes()).expect("the request is sent");
        let mut answer = String::new();
        s.read_to_string(&mut answer).expect("an answer to the end");
        answer
    };
    let path = format!("/api/v1/games/{}", "a".repeat(100_000));
    let answer = ask(format!("GET {path} HTTP/1.1\r\nHost: runestone.test\r\n\r\n"));
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or_else(|| panic!("a head and a body: {answer:?}"));
    assert!(head.starts_with("HTTP/1.1 400 "), "{head}");
    assert!(head.to_ascii_lowercase().contains("content-type: application/problem+json"), "{head}");
    let problem: serde_json::Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    assert_eq!(problem["status"], 400);
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.contains("65,534 bytes") && detail.contains("/openapi.json"), "{detail}");
    // A request line that is not HTTP at all is told the same way.
    let answer = ask("NOT-HTTP\r\n\r\n".into());
    assert!(answer.starts_with("HTTP/1.1 400 ") && answer.contains("\"detail\""), "{answer}");
    // The connection's next requests and other connections are served as before.
    app.get("/healthz", None).ok();
}
