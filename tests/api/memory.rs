//! Memory bounded by bytes: folded games beyond
//! `storage.cache_bytes` leave memory and are folded again when used.

use serde_json::json;

use crate::helpers::{seat_tokens, str_of, TestApp};

fn games_cached(app: &TestApp) -> u64 {
    let metrics = app.get("/metrics", None).text;
    let line = metrics.lines().find(|l| l.starts_with("runestone_games_cached ")).expect("the gauge");
    line["runestone_games_cached ".len()..].trim().parse().expect("a number")
}

#[test]
fn folded_games_beyond_cache_bytes_leave_memory_and_come_back() {
    let app = TestApp::spawn_with(|s| s.storage.cache_bytes = "64KB".into());
    let games: Vec<_> = (0..30).map(|_| app.create("bardagi", 4, json!({}))).collect();
    let held = games_cached(&app);
    assert!(held < 30, "30 Bardagi games do not fit in 64 KB of folded games, yet {held} are held");
    // The first game left memory first; it answers as before.
    let first = &games[0];
    let game = str_of(first, "game_id");
    let token = &seat_tokens(first)[0];
    let view = app.get(&format!("/api/v1/games/{game}/view"), Some(token));
    assert_eq!(view.status, 200, "{}", view.text);
    assert_eq!(view.json["seq"], first["head"], "the refolded game is where it was");
}
