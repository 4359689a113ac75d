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
