//! A disk running out of room: the free-space reserve.

use serde_json::json;

use crate::helpers::{seat_tokens, str_of, TestApp};

#[test]
fn below_the_reserve_new_games_are_refused_while_running_games_play_on() {
    let mut app = TestApp::spawn();
    let health = app.get("/healthz", None);
    assert_eq!(health.ok()["status"], "ok", "{}", health.text);
    let created = app.create("duel", 2, json!({"rounds": 2}));
    let game = str_of(&created, "game_id").to_owned();
    let seats = seat_tokens(&created);

    // A reserve as large as the whole disk: every disk is below it.
    app.settings.storage.reserve = "100%".into();
    let app = app.restart();

    let refused = app.post(
        "/api/v1/games",
        None,
        &json!({"ruleset": "duel", "options": {}, "seats": [{"name": "Ása"}, {"name": "Bjarni"}]}),
    );
    let detail = refused.problem(507);
    assert!(detail.contains("nearly full") && detail.contains("below the reserve"), "{detail}");

    let moved = app.submit(&game, &seats[0], json!({"type": "Bid", "amount": 3}));
    assert!(moved.ok()["events"][0]["seq"].as_u64().is_some(), "{}", moved.text);

    let health = app.get("/healthz", None);
    let body = health.ok();
    assert_eq!(body["status"], "degraded", "{}", health.text);
    assert!(body["storage"]["detail"].as_str().expect("detail").contains("below the reserve"), "{}", health.text);
    assert!(body["storage"]["free_bytes"].as_u64().is_some(), "{}", health.text);

    let metrics = app.get("/metrics", None).text;
    assert!(metrics.contains("runestone_storage_low 1"), "{metrics}");
    assert!(metrics.contains("runestone_reserve_refusals_total 1"), "{metrics}");
}
