//! A game's whole life over the API, then a restart on the same data.

use serde_json::{json, Value};

use crate::helpers::{seat_tokens, str_of, TestApp};

fn bid(app: &TestApp, game: &str, token: &str, amount: u8) -> Value {
    app.submit(game, token, json!({"type": "Bid", "amount": amount})).ok().clone()
}

fn types(events: &Value) -> Vec<String> {
    events
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["body"]["event"]["type"].as_str().unwrap_or("kernel").to_owned())
        .collect()
}

#[test]
fn create_submit_view_rewind_roll_back_fork_verify_and_survive_a_restart() {
    let app = TestApp::spawn();
    assert_eq!(app.get("/healthz", None).ok()["status"], "ok");
    let rulesets = app.get("/api/v1/rulesets", None);
    assert!(rulesets.ok()["rulesets"].as_array().unwrap().iter().any(|r| r["id"] == "duel"));

    // Create.
    let created = app.create("duel", 2, json!({"rounds": 2}));
    let game = str_of(&created, "game_id").to_owned();
    let host = str_of(&created, "host_token").to_owned();
    let seats = seat_tokens(&created);
    assert_eq!(str_of(&created, "seed_commitment").len(), 64);
    assert!(str_of(&created["seats"][0], "link").contains(&game));
    let summary = app.get(&format!("/api/v1/games/{game}"), None);
    assert_eq!(summary.ok()["status"], "running");
    assert_eq!(summary.json["pending"].as_array().unwrap().len(), 2);

    // Submit: both bid; the reveal, the die and the round's winner follow.
    let first = bid(&app, &game, &seats[0], 4);
    assert_eq!(types(&first["events"]), ["BidPlaced"]);
    let after_first_bid = first["head"].as_u64().unwrap();
    let second = bid(&app, &game, &seats[1], 2);
    assert_eq!(types(&second["events"]), ["BidPlaced", "BidsRevealed", "DieRolled", "RoundWon"]);
    let before_claim = second["head"].as_u64().unwrap();

    // View at the head, with legal commands for the pending seat.
    let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&seats[0]));
    assert_eq!(view.ok()["view"]["claimer"], 0);
    assert!(view.json["legal"].as_array().unwrap().contains(&json!({"type": "Claim"})));
    let claimed = app.submit(&game, &seats[0], json!({"type": "Claim"}));
    let die = second["events"][2]["body"]["event"]["value"].as_i64().unwrap();
    assert_eq!(claimed.ok()["events"][0]["body"]["event"]["points"], die);

    // The log, with words.
    let events = app.get(&format!("/api/v1/games/{game}/events"), Some(&seats[1]));
    let list = events.ok()["events"].as_array().unwrap().clone();
    assert_eq!(list.len() as u64, claimed.json["head"].as_u64().unwrap() + 1);
    assert!(list.iter().all(|e| e["text"].as_str().is_some_and(|t| !t.is_empty())));
    assert!(list.iter().any(|e| e["text"].as_str().unwrap().contains("claims")));

    // Any past position.
    let past = app.get(&format!("/api/v1/games/{game}/view?at={after_first_bid}"), Some(&seats[0]));
    assert_eq!(past.ok()["seq"], after_first_bid);
    assert_eq!(past.json["view"]["bids"][0], 4);
    assert_eq!(past.json["view"]["claimer"], Value::Null);
    assert_eq!(past.json["legal"], json!([]), "legal commands only at the head");

    // Roll back the claim, with a reason; the log keeps it, voided.
    let rb = app.post(
        &format!("/api/v1/games/{game}/rollback"),
        Some(&host),
        &json!({"to_seq": before_claim, "reason": "claimed by mistake"}),
    );
    rb.ok();
    let view = app.get(&format!("/api/v1/games/{game}/view"), None);
    assert_eq!(view.ok()["view"]["claimer"], 0);
    assert_eq!(view.json["view"]["scores"], json!([0, 0]));
    let events = app.get(&format!("/api/v1/games/{game}/events"), None);
    let voided: Vec<&Value> =
        events.ok()["events"].as_array().unwrap().iter().filter(|e| e["in_force"] == false).collect();
    assert_eq!(voided.len(), 2, "the claim and the next round are voided, not deleted");
    // A seat cannot roll back.
    app.post(&format!("/api/v1/games/{game}/rollback"), Some(&seats[0]), &json!({"to_seq": 2, "reason": "mine"}))
        .problem(403);

    // Fork at the position after the first bid.
    let fork = app.post(&format!("/api/v1/games/{game}/fork"), Some(&host), &json!({"at_seq": after_first_bid}));
    let fork = fork.ok().clone();
    let fork_id = str_of(&fork, "game_id").to_owned();
    assert_ne!(fork_id, game);
    let fork_view = app.get(&format!("/api/v1/games/{fork_id}/view"), None);
    let orig_past = app.get(&format!("/api/v1/games/{game}/view?at={after_first_bid}"), None);
    assert_eq!(fork_view.ok()["view"], orig_past.ok()["view"]);

    // Play the original to the end.
    app.submit(&game, &seats[0], json!({"type": "Pass"})).ok();
    bid(&app, &game, &seats[0], 1);
    bid(&app, &game, &seats[1], 1);
    let last = app.submit(&game, &seats[0], json!({"type": "Claim"}));
    assert_eq!(last.ok()["over"], true);
    let summary = app.get(&format!("/api/v1/games/{game}"), None);
    assert_eq!(summary.ok()["status"], "over");
    assert_eq!(summary.json["seed"].as_str().unwrap().len(), 64);
    let verify = app.get(&format!("/api/v1/games/{game}/verify"), None);
    assert_eq!(verify.ok()["ok"], true, "{}", verify.text);
    assert_eq!(verify.json["chain_ok"], true);
    assert!(verify.json["draws"]["decisions_rederived"].as_u64().unwrap() >= 6);
    app.submit(&game, &seats[1], json!({"type": "Bid", "amount": 1})).problem(409);

    // Restart on the same data: every game, event and token still works.
    let head_before = app.get(&format!("/api/v1/games/{game}/events"), None).json.clone();
    let app = app.restart();
    let head_after = app.get(&format!("/api/v1/games/{game}/events"), None);
    assert_eq!(head_after.ok(), &head_before);
    assert_eq!(app.get(&format!("/api/v1/games/{game}/verify"), None).ok()["ok"], true);
    let fork_seats = seat_tokens(&fork);
    let r = app.submit(&fork_id, &fork_seats[1], json!({"type": "Bid", "amount": 3}));
    assert_eq!(types(&r.ok()["events"])[1], "BidsRevealed");
    assert_eq!(app.get(&format!("/api/v1/games/{fork_id}/verify"), None).ok()["ok"], true);
}

#[test]
fn an_undo_takes_back_ones_own_step_and_nothing_else() {
    let app = TestApp::spawn();
    let created = app.create("duel", 2, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let seats = seat_tokens(&created);
    bid(&app, &game, &seats[0], 5);
    bid(&app, &game, &seats[1], 1);
    app.submit(&game, &seats[0], json!({"type": "Taunt", "text": "too slow"})).ok();
    app.post(&format!("/api/v1/games/{game}/undo"), Some(&seats[1]), &json!({})).problem(422);
    let undone = app.post(&format!("/api/v1/games/{game}/undo"), Some(&seats[0]), &json!({}));
    assert_eq!(undone.ok()["events"][0]["body"]["event"]["type"], "Undone");
    app.post(&format!("/api/v1/games/{game}/undo"), Some(&seats[0]), &json!({})).problem(422);
}

#[test]
fn idempotency_key_answers_a_repeat_with_the_first_answer() {
    let app = TestApp::spawn();
    let created = app.create("duel", 2, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let seats = seat_tokens(&created);
    let body = json!({"command": {"type": "Bid", "amount": 3}}).to_string().into_bytes();
    let path = format!("/api/v1/games/{game}/commands");
    let auth = format!("Bearer {}", seats[0]);
    let h = [("Idempotency-Key", "k-1"), ("Authorization", auth.as_str())];
    let a = app.raw("POST", &path, None, Some(body.clone()), &h);
    let b = app.raw("POST", &path, None, Some(body), &h);
    assert_eq!(a.ok(), b.ok());
    let events = app.get(&format!("/api/v1/games/{game}/events"), None);
    assert_eq!(events.ok()["events"].as_array().unwrap().len(), 3, "one bid, not two");
    let other = json!({"command": {"type": "Bid", "amount": 4}}).to_string().into_bytes();
    app.raw("POST", &path, None, Some(other), &h).problem(422);
}

#[test]
fn a_host_can_revoke_a_seat_link_and_issue_a_new_one() {
    let app = TestApp::spawn();
    let created = app.create("duel", 2, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let host = str_of(&created, "host_token").to_owned();
    let seats = seat_tokens(&created);
    let fresh = app.post(&format!("/api/v1/games/{game}/seats/1/token"), Some(&host), &json!({"reason": "lost phone"}));
    let token = str_of(fresh.ok(), "token").to_owned();
    let d = app.submit(&game, &seats[1], json!({"type": "Bid", "amount": 1})).problem(401);
    assert!(d.contains("revoked"), "{d}");
    app.submit(&game, &token, json!({"type": "Bid", "amount": 1})).ok();
    app.post(&format!("/api/v1/games/{game}/seats/1/token"), Some(&seats[0]), &json!({})).problem(403);
}

/// The host can replace its own token and the referee's: the old one stops
/// working at once (its holder is told so in words), the new one works, and
/// the log says it happened. Only the host may; the role is host or referee.
#[test]
fn a_host_can_replace_its_own_token_and_the_referees() {
    let app = TestApp::spawn();
    let created = app.create("duel", 2, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let host = str_of(&created, "host_token").to_owned();
    let referee = str_of(&created, "referee_token").to_owned();
    let seats = seat_tokens(&created);
    let role = |r: &str| format!("/api/v1/games/{game}/roles/{r}/token");
    let view = |t: &str| app.get(&format!("/api/v1/games/{game}/view"), Some(t));
    app.post(&role("host"), Some(&seats[0]), &json!({})).problem(403);
    app.post(&role("referee"), Some(&referee), &json!({})).problem(403);
    let d = app.post(&role("judge"), Some(&host), &json!({})).problem(400);
    assert!(d.contains("host or referee"), "{d}");
    app.post(&role("referee"), Some(&host), &json!({"sneaky": 1})).problem(400);

    let fresh =
        app.post(&role("referee"), Some(&host), &json!({"reason": "the referee's laptop was stolen"})).ok().clone();
    assert_eq!((fresh["role"].as_str(), fresh["generation"].as_u64()), (Some("referee"), Some(1)), "{fresh}");
    assert!(fresh["link"].is_null(), "a referee's token is for the API: {fresh}");
    let d = view(&referee).problem(401);
    assert!(d.contains("replaced by a newer one"), "{d}");
    assert_eq!(view(str_of(&fresh, "token")).ok()["viewer"], json!("referee"));

    let mine = app.post(&role("host"), Some(&host), &json!({})).ok().clone();
    assert_eq!((mine["role"].as_str(), mine["generation"].as_u64()), (Some("host"), Some(1)), "{mine}");
    let new_host = str_of(&mine, "token").to_owned();
    assert!(str_of(&mine, "link").ends_with(&format!("/play/{game}?token={new_host}")), "{mine}");
    let d = app.post(&role("referee"), Some(&host), &json!({})).problem(401);
    assert!(d.contains("replaced by a newer one"), "{d}");
    let again = app.post(&role("referee"), Some(&new_host), &json!({})).ok().clone();
    assert_eq!(again["generation"], 2);
    let events = app.get(&format!("/api/v1/games/{game}/events"), None).ok().clone();
    let texts: Vec<&str> = events["events"].as_array().unwrap().iter().filter_map(|e| e["text"].as_str()).collect();
    assert_eq!(texts.iter().filter(|t| t.starts_with("The referee's old links revoked")).count(), 2, "{texts:#?}");
    assert_eq!(texts.iter().filter(|t| t.starts_with("The host's old links revoked")).count(), 1, "{texts:#?}");
}
