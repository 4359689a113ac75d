//! A whole game of Bardagi played by three seats over HTTP against the real
//! server, each seat choosing among the legal commands its view offers, until
//! the scores are announced.

use serde_json::json;

use crate::browser::Browser;
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

/// Given the host's new-game page, then Bardagi's options are real fields
/// (a list of boards, a bounded rules version, text areas for the rune and
/// upgrade files);
/// when the host chooses the clans as text and pastes a rune file, then the
/// game is created with them; a rune file with a fault is refused naming
/// its line.
#[test]
fn the_host_form_offers_bardagis_options_as_fields_and_creates_the_game_with_them() {
    let app = TestApp::spawn();
    let mut host = Browser::new(&app);
    let form = host.get("/host/new");
    assert_eq!(form.status, 200);
    let html = &form.html;
    assert!(html.contains("<select id=\"opt-bardagi-board\" name=\"opt.bardagi.board\">"), "{html}");
    assert!(html.contains("<option value=\"winter\">winter</option>"), "{html}");
    let version = html.split("id=\"opt-bardagi-rules-version\"").nth(1).expect("a rules version field");
    let version = &version[..version.find('>').unwrap()];
    assert!(version.contains("min=\"1\"") && version.contains("value=\""), "{version}");
    assert!(html.contains("<textarea id=\"opt-bardagi-custom-runes\" name=\"opt.bardagi.custom_runes\""), "{html}");
    assert!(html.contains("<textarea id=\"opt-bardagi-custom-board\""), "{html}");
    assert!(html.contains("<textarea id=\"opt-bardagi-custom-upgrades\""), "{html}");
    assert!(html.contains("type=\"checkbox\" id=\"opt-bardagi-easy-cards\""), "{html}");
    assert!(html.contains("<select id=\"opt-bardagi-rules\" name=\"opt.bardagi.rules\">"), "{html}");
    assert!(html.contains("<option value=\"2018\">2018</option>"), "{html}");

    let csrf = host.csrf();
    let runes: String = ["divine", "twice", "defence", "sea_move", "no_resources", "theirs_are_yours"]
        .iter()
        .map(|k| format!("[[rune]]\nkind = \"{k}\"\ncount = 3\n"))
        .collect();
    let base = [
        ("csrf", csrf.as_str()),
        ("ruleset", "bardagi"),
        ("name.0", "Ása"),
        ("name.1", "Bo"),
        ("opt.bardagi.board", "summer"),
        ("opt.bardagi.colours", "yellow, red"),
        ("opt.bardagi.rules_version", "2"),
    ];
    let bad_runes = "[[rune]]\nkind = \"divine\"\ncount = 4\n[[rune]]\ncount = 4\n";
    let bad = host.post("/host/new", &[&base[..], &[("opt.bardagi.custom_runes", bad_runes)]].concat());
    assert_eq!(bad.status, 422, "{}", bad.html);
    assert!(bad.html.contains("the [[rune]] at line 4: the rune has no kind"), "{}", bad.html);
    let made = host.post("/host/new", &[&base[..], &[("opt.bardagi.custom_runes", runes.as_str())]].concat());
    assert_eq!(made.status, 201, "{}", made.html);
    let game = made.html.split("/host/").nth(1).map(|s| s[..16].to_owned()).expect("a host page link");
    let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
    let options = &summary["options"];
    assert_eq!(options["colours"], json!(["yellow", "red"]), "{summary}");
    assert_eq!(options["rules_version"], 2, "{summary}");
    assert_eq!(options["custom_runes"], runes.trim(), "{summary}");

    // The 2018 rules are a choice of the list; with rules version 2 they are
    // refused in words, with the newest version the game is created by them.
    let y2018 = [&base[..], &[("opt.bardagi.rules", "2018")]].concat();
    let old = host.post("/host/new", &y2018);
    assert_eq!(old.status, 422, "{}", old.html);
    assert!(old.html.contains("the 2018 rules are played by rules version 3 or later, not 2"), "{}", old.html);
    let newest: Vec<(&str, &str)> = y2018.into_iter().filter(|(k, _)| *k != "opt.bardagi.rules_version").collect();
    let made = host.post("/host/new", &newest);
    assert_eq!(made.status, 201, "{}", made.html);
    let game = made.html.split("/host/").nth(1).map(|s| s[..16].to_owned()).expect("a host page link");
    let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
    assert_eq!(summary["options"]["rules"], "2018", "{summary}");
}

/// A whole 2018 game over HTTP: offered in the rulesets' options, played by
/// the seats' first legal commands to the end, its hash chain verified.
#[test]
fn two_clans_play_a_whole_game_by_the_2018_rules_over_http_and_its_log_verifies() {
    let app = TestApp::spawn();
    let info = app.get("/api/v1/rulesets", None);
    let bardagi =
        info.ok()["rulesets"].as_array().unwrap().iter().find(|r| r["id"] == "bardagi").cloned().expect("bardagi");
    assert_eq!(bardagi["default_options"]["rules"], "2014", "{bardagi}");
    let seats = json!([{"name": "Ása"}, {"name": "Bjarni"}]);
    let body = json!({"ruleset": "bardagi", "seats": seats, "options": {"rules": "2018"}});
    let created = app.post("/api/v1/games", None, &body).ok().clone();
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    play_to_the_end(&app, &game, &tokens, 5_000, &[409, 422], |_, view| view["legal"][0].clone(), || {});
    let summary = app.get(&format!("/api/v1/games/{game}"), None);
    assert!(summary.ok()["outcome"]["scores"].is_array(), "{}", summary.text);
    let events = app.get(&format!("/api/v1/games/{game}/events"), None);
    let list = events.ok()["events"].as_array().unwrap();
    let started = list.iter().find(|e| e["body"]["event"]["type"] == "GameStarted").expect("GameStarted");
    assert_eq!(started["body"]["event"]["edition"], "2018");
    let awards = list.iter().find(|e| e["body"]["event"]["type"] == "GameEnded").expect("GameEnded");
    let awards = awards["body"]["event"]["awards"].to_string();
    assert!(!awards.contains("most areas"), "no award for most areas by the 2018 rules: {awards}");
    let verify = app.get(&format!("/api/v1/games/{game}/verify"), None);
    assert_eq!(verify.ok()["ok"], true, "{}", verify.text);
}
