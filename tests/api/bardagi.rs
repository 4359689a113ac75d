//! A whole game of Bardagi played by three seats over HTTP against the real
//! server, each seat choosing among the legal commands its view offers, until
//! the scores are announced.

use serde_json::json;

use crate::helpers::{play_to_the_end, seat_tokens, str_of, TestApp};

#[test]
fn three_clans_play_a_whole_game_over_http_until_the_scores_are_announced() {
    let app = TestApp::spawn();
    let info = app.get("/api/v1/rulesets", None);
    let bardagi = info.ok()["rulesets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "bardagi")
        .cloned()
        .expect("bardagi offered");
    assert_eq!((bardagi["min_seats"].as_u64(), bardagi["max_seats"].as_u64()), (Some(2), Some(5)));
    let seats = json!([{"name": "Ása"}, {"name": "Bjarni"}, {"name": "Dís"}]);
    let created = app.post("/api/v1/games", None, &json!({"ruleset": "bardagi", "seats": seats})).ok().clone();
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);

    // Each client sends its head, as a careful client does; a 409 or 422
    // means another seat moved first: look again.
    let commands = play_to_the_end(&app, &game, &tokens, 5_000, &[409, 422], |_, view| view["legal"][0].clone(), || {});
    let summary = app.get(&format!("/api/v1/games/{game}"), None);
    let outcome = &summary.ok()["outcome"];
    assert_eq!(outcome["scores"].as_array().unwrap().len(), 3);
    assert!(!outcome["winners"].as_array().unwrap().is_empty());
    assert_eq!(summary.json["seed"].as_str().unwrap().len(), 64);
    let events = app.get(&format!("/api/v1/games/{game}/events"), None);
    let list = events.ok()["events"].as_array().unwrap();
    assert!(list.iter().all(|e| e["hidden"] == false), "after the end the whole log is public");
    let rounds = list.iter().filter(|e| e["body"]["event"]["type"] == "RoundEnded").count();
    assert_eq!(rounds, 9, "three clans play nine rounds");
    assert!(commands >= 9 * 6, "a plan and a turn per clan and round: {commands} commands");
    eprintln!("{commands} commands, {} events", list.len());
    let verify = app.get(&format!("/api/v1/games/{game}/verify"), None);
    assert_eq!(verify.ok()["ok"], true, "{}", verify.text);
}
