//! Tokens against the server's clock and their revocation.

use std::sync::Arc;

use chrono::Duration as Span;
use runestone::clock::ManualClock;
use serde_json::json;

use crate::helpers::{seat_tokens, settings, str_of, TestApp};

/// A server whose clock ran days ahead issues a game's tokens; the operator
/// then sets the clock right (days back). Every token and every link keeps
/// working: a token "issued in the future" is the server's own, and its
/// expiry still counts from what it says.
#[test]
fn tokens_issued_before_the_clock_was_set_back_by_days_keep_working() {
    let tmp = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(chrono::Utc::now() + Span::days(3)));
    let app = TestApp::start_with_clock(settings(tmp.path()), clock.clone());
    let created = app.create("duel", 2, json!({"rounds": 2}));
    let game = str_of(&created, "game_id").to_owned();
    let seats = seat_tokens(&created);
    let host = str_of(&created, "host_token").to_owned();
    let referee = str_of(&created, "referee_token").to_owned();

    clock.advance(-Span::days(5));

    let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&seats[0]));
    assert_eq!(view.ok()["viewer"], json!({"seat": 0}), "{}", view.text);
    let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&referee));
    assert_eq!(view.ok()["viewer"], json!("referee"), "{}", view.text);
    app.submit(&game, &seats[1], json!({"type": "Bid", "amount": 1})).ok();
    // The host's power over the seats, and the mailed link's landing page.
    let fresh = app.post(&format!("/api/v1/games/{game}/seats/1/token"), Some(&host), &json!({}));
    let fresh = str_of(fresh.ok(), "token").to_owned();
    app.get(&format!("/api/v1/games/{game}/view"), Some(&fresh)).ok();
    let page = app.get(&format!("/play/{game}?token={}", seats[0]), None);
    assert_eq!(page.status, 200, "{}", page.text);

    // The tokens still expire at their own time: a year after they were
    // issued, on the clock as it now runs.
    clock.advance(Span::days(5 + app.settings.auth.token_days) + Span::seconds(1));
    let gone = app.get(&format!("/api/v1/games/{game}/view"), Some(&seats[0]));
    assert!(gone.problem(401).contains("expired"), "{}", gone.text);
}
