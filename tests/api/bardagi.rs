//! A whole game of Bardagi played by three seats over HTTP against the real
//! server, each seat choosing among the legal commands its view offers, until
//! the scores are announced.

use serde_json::{json, Value};

use crate::helpers::{seat_tokens, str_of, TestApp};

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

    let mut commands = 0;
    loop {
        let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
        if summary["status"] == "over" {
            break;
        }
        let pending: Vec<Value> =
            summary["pending"].as_array().unwrap().iter().filter(|p| p["submitted"] != true).cloned().collect();
        assert!(!pending.is_empty(), "nobody to act but the game runs: {summary}");
        for p in pending {
            let seat = p["seat"].as_u64().unwrap() as usize;
            let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[seat])).ok().clone();
            let legal = view["legal"].as_array().unwrap();
            assert!(!legal.is_empty(), "seat {seat} is pending but has no legal command");
            // Each client sends its head, as a careful client does.
            let r = app.post(
                &format!("/api/v1/games/{game}/commands"),
                Some(&tokens[seat]),
                &json!({"command": legal[0], "expected_seq": view["head"]}),
            );
            if r.status == 409 || r.status == 422 {
                continue; // another seat moved first; look again
            }
            r.ok();
            commands += 1;
            assert!(commands < 5_000, "no end after {commands} commands");
        }
    }
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
