//! Event times never go backwards within a game, whatever the clock does.

use std::sync::Arc;

use runestone::clock::ManualClock;
use serde_json::json;

use crate::helpers::{seat_tokens, settings, str_of, TestApp};

#[test]
fn a_backward_clock_jump_never_stamps_an_event_before_the_last() {
    let tmp = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new("2026-03-02T09:00:00Z".parse().unwrap()));
    let app = TestApp::start_with_clock(settings(tmp.path()), clock.clone());
    let created = app.create("duel", 3, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    clock.advance(chrono::Duration::minutes(5));
    app.submit(&game, &tokens[0], json!({"type": "Bid", "amount": 2})).ok();
    // The clock jumps back an hour: the next event keeps the last time.
    clock.advance(chrono::Duration::hours(-1));
    app.submit(&game, &tokens[1], json!({"type": "Bid", "amount": 3})).ok();
    let log = app.get(&format!("/api/v1/games/{game}/events"), None);
    let times: Vec<String> =
        log.ok()["events"].as_array().unwrap().iter().map(|e| e["time"].as_str().unwrap().to_owned()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "times go backwards: {times:?}");
    assert_eq!(times.last().unwrap(), "2026-03-02T09:05:00.000Z", "{times:?}");
    // Once the clock catches up, events take its time again.
    clock.advance(chrono::Duration::hours(2));
    app.submit(&game, &tokens[2], json!({"type": "Bid", "amount": 4})).ok();
    let log = app.get(&format!("/api/v1/games/{game}/events"), None);
    let last = log.ok()["events"].as_array().unwrap().last().unwrap()["time"].as_str().unwrap().to_owned();
    assert_eq!(last, "2026-03-02T10:05:00.000Z");
}
