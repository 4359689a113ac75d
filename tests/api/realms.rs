//! Realms hosted: a whole game played by bots over HTTP against the real
//! server, the map drawing every field once with its holder as the game
//! goes on, and a realm giving a season's orders through the pages in
//! headless Chromium.

use serde_json::{json, Value};

use crate::browser::Driver;
use crate::helpers::{play_to_the_end, seat_tokens, str_of, TestApp};

/// Who holds a field as the map draws it: the settlement's owner, else the
/// shipyard's, else the one realm whose units stand there.
fn holder(f: &Value) -> Option<u64> {
    if let Some(o) = f["settlement"]["owner"].as_u64() {
        return Some(o);
    }
    if let Some(o) = f["shipyard"]["owner"].as_u64() {
        return Some(o);
    }
    let units = f["units"].as_array()?;
    let first = units.first()?["owner"].as_u64()?;
    units.iter().all(|u| u["owner"].as_u64() == Some(first)).then_some(first)
}

/// The public page draws every field of the view once, with its holder.
fn check_map(app: &TestApp, game: &str) -> usize {
    let view = app.get(&format!("/api/v1/games/{game}/view"), None).ok().clone();
    let fields = view["view"]["fields"].as_array().expect("fields").clone();
    let page = crate::helpers::agent().get(&format!("{}/games/{game}", app.base)).call().expect("the game page");
    let html = page.into_body().read_to_string().unwrap();
    assert_eq!(html.matches("data-area=\"field-").count(), fields.len(), "every field drawn once");
    let mut held = 0;
    for f in &fields {
        let id = f["id"].as_u64().unwrap();
        let tag = match holder(f) {
            Some(o) => {
                held += 1;
                format!("data-area=\"field-{id}\" data-owner=\"{o}\"")
            }
            None => format!("data-area=\"field-{id}\">"),
        };
        assert!(html.contains(&tag), "field {id} drawn with its holder: {tag}");
    }
    held
}

#[test]
fn three_realms_play_a_whole_year_over_http_by_bots_and_the_map_draws_every_field_with_its_holder() {
    let app = TestApp::spawn();
    let info = app.get("/api/v1/rulesets", None);
    let realms = info.ok()["rulesets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "realms")
        .cloned()
        .expect("realms offered");
    assert_eq!((realms["min_seats"].as_u64(), realms["max_seats"].as_u64()), (Some(2), Some(12)));
    let seats = json!([{"name": "Ása"}, {"name": "Bjarni"}, {"name": "Dís"}]);
    let created = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "realms", "seats": seats, "options": {"mode": "basic", "years": 1}}),
        )
        .ok()
        .clone();
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    assert!(check_map(&app, &game) >= 9, "three villages for each of three realms");

    let mut rounds_checked = 0;
    let commands = play_to_the_end(
        &app,
        &game,
        &tokens,
        100,
        &[409],
        |seat, view| {
            // Another realm's orders are not in this realm's view.
            for (i, r) in view["view"]["realms"].as_array().unwrap().iter().enumerate() {
                if i != seat {
                    assert!(r["orders"].is_null(), "seat {seat} sees the orders of realm {i}");
                }
            }
            view["legal"][0].clone()
        },
        || {
            check_map(&app, &game);
            rounds_checked += 1;
        },
    );
    assert!(rounds_checked >= 3, "the map was checked after each round");
    assert_eq!(commands, 12, "one set of orders per realm and season");
    let summary = app.get(&format!("/api/v1/games/{game}"), None);
    let outcome = &summary.ok()["outcome"];
    assert_eq!(outcome["scores"].as_array().unwrap().len(), 3);
    assert!(!outcome["winners"].as_array().unwrap().is_empty());
    let events = app.get(&format!("/api/v1/games/{game}/events"), None);
    let list = events.ok()["events"].as_array().unwrap();
    assert!(list.iter().all(|e| e["hidden"] == false), "after the end the whole log is public");
    let rounds = list.iter().filter(|e| e["body"]["event"]["type"] == "round_ended").count();
    assert_eq!(rounds, 3, "spring, summer and autumn end into the next season; winter ends the game");
    let verify = app.get(&format!("/api/v1/games/{game}/verify"), None);
    assert_eq!(verify.ok()["ok"], true, "{}", verify.text);
}

/// Select the option `value` of the select whose id is `id`.
fn choose(d: &Driver, id: &str, value: &str) {
    d.click(&d.find(&format!("[id='{id}'] option[value='{value}']")));
}

#[test]
fn a_realm_gives_a_seasons_orders_through_the_pages_in_headless_chromium() {
    let app = TestApp::spawn();
    let created = app.create("realms", 2, json!({"years": 1}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[0])).ok().clone();
    let fields = view["view"]["fields"].as_array().unwrap().clone();
    // A field of seat 0's Light Infantry, and a neighbouring land field in play.
    let cols = view["view"]["cols"].as_u64().unwrap();
    let (from, to) = fields
        .iter()
        .filter(|f| f["units"].as_array().unwrap().iter().any(|u| u["owner"] == 0 && u["kind"] == "light_infantry"))
        .find_map(|f| {
            let id = f["id"].as_u64().unwrap();
            [id + 1, id.wrapping_sub(1), id + cols, id.wrapping_sub(cols)].into_iter().find_map(|n| {
                let g = fields.get(n as usize)?;
                let near =
                    g["row"].as_u64()?.abs_diff(f["row"].as_u64()?) + g["col"].as_u64()?.abs_diff(f["col"].as_u64()?);
                (near == 1
                    && g["sea"] == false
                    && g["in_play"] == true
                    && g["colour"] != "grey"
                    && g["units"].as_array()?.is_empty())
                .then_some((id, n))
            })
        })
        .expect("a village with Light Infantry beside an empty land field");

    let d = Driver::start();
    d.resize(1280, 1400);
    d.go(str_of(&created["seats"][0], "link"));
    d.loads(|| d.click(&d.find("#enter")));
    assert!(d.exists("#realms-orders"), "the order form is shown");
    assert!(d.text("#realms-orders legend").contains("spring of year 1"), "{}", d.text("#realms-orders legend"));
    assert!(d.text("#to-play").contains("give your secret orders for spring of year 1"), "{}", d.text("#to-play"));
    assert!(
        d.text("#phase").starts_with("Spring of year 1 of 1: every realm gives secret orders"),
        "{}",
        d.text("#phase")
    );
    assert!(d.text("#round").contains("round 1 of 4"), "{}", d.text("#round"));
    let standings = d.text("#standings");
    assert!(standings.contains("Victory points") && standings.contains("Prestige"), "{standings}");
    assert!(d.text("#standing-0").contains("Red") && d.text("#standing-0").contains("not yet"), "{standings}");
    assert!(d.exists("svg.realms-map [data-area='field-0']"), "the map is drawn");
    assert!(d.text("#orders-purse").contains("gold"));
    d.screenshot("realms-01-orders-1280");

    // A move without its destination is refused in words, and what was chosen is kept.
    choose(&d, "move.0.from", &from.to_string());
    choose(&d, "move.0.unit", "light_infantry");
    let count = d.find("[id='move.0.count']");
    d.clear(&count);
    d.type_in(&count, "1");
    choose(&d, "move.0.to", "");
    d.loads(|| d.click(&d.find("#give-orders")));
    assert!(d.text("#error").contains("Move 1: choose the field the units go to"), "{}", d.text("#error"));
    assert_eq!(d.property("[id='move.0.from']", "value"), from.to_string(), "the choice is kept");
    d.screenshot("realms-02-refused");

    // The whole order: this one move (the other suggested moves cleared), a
    // sown field; given through the form.
    choose(&d, "move.0.to", &to.to_string());
    for i in 1..16 {
        let id = format!("move.{i}.from");
        if !d.exists(&format!("[id='{id}']")) {
            break;
        }
        choose(&d, &id, "");
    }
    let sow = format!("sow.{from}");
    if d.exists(&format!("[id='{sow}']")) && d.property(&format!("[id='{sow}']"), "checked") != "true" {
        d.click(&d.find(&format!("[id='{sow}']")));
    }
    d.loads(|| d.click(&d.find("#give-orders")));
    assert!(
        !d.exists("#error"),
        "the orders are taken: {}",
        if d.exists("#error") { d.text("#error") } else { String::new() }
    );
    let mine = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[0])).ok().clone();
    let orders = &mine["view"]["realms"][0]["orders"];
    assert!(
        orders["moves"].as_array().unwrap().iter().any(|m| m["from"] == from && m["to"] == to && m["count"] == 1),
        "the move is in the orders: {orders}"
    );
    assert!(orders["sow"].as_array().unwrap().iter().any(|f| *f == from), "the field is sown: {orders}");
    // The other realm cannot see them.
    let theirs = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[1])).ok().clone();
    assert!(theirs["view"]["realms"][0]["orders"].is_null());
    assert_eq!(theirs["view"]["realms"][0]["submitted"], true);
    assert!(d.text("#realms-orders legend").contains("given: you may replace them"));
    assert!(d.text("#standing-0").contains("given"), "{}", d.text("#standings"));
    d.screenshot("realms-03-given");

    // The other realm's orders arrive: the round resolves and summer begins.
    let legal = &theirs["legal"][0];
    app.post(
        &format!("/api/v1/games/{game}/commands"),
        Some(&tokens[1]),
        &json!({"command": legal, "expected_seq": theirs["head"]}),
    )
    .ok();
    d.go(&format!("{}/games/{game}", app.base));
    d.wait_until("the summer round", || {
        d.exists("#realms-orders") && d.text("#realms-orders legend").contains("summer")
    });
    // The log shows the summer round; spring's report is folded away, a click from the whole log.
    assert!(d.text("#log-h").contains("in round 2"), "{}", d.text("#log-h"));
    assert!(!d.text("#log ol").contains("② units"), "spring's report is folded: {}", d.text("#log"));
    d.loads(|| d.click(&d.find("#log-all")));
    assert!(d.text("#log").contains("② units"), "the round's report is in the whole log");
    d.go(&format!("{}/games/{game}", app.base));
    assert!(d.exists("#realms-orders"), "the order form is shown");
    assert!(d.text("#phase").starts_with("Summer of year 1 of 1"), "{}", d.text("#phase"));
    assert!(d.text("#round").contains("round 2 of 4"), "{}", d.text("#round"));
    let after = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[0])).ok().clone();
    let moved = after["view"]["fields"][to as usize]["units"].as_array().unwrap();
    assert!(moved.iter().any(|u| u["owner"] == 0), "the unit stands on the field it was sent to");
    d.screenshot("realms-04-summer-1280");
    d.eval("document.getElementById('board').scrollIntoView(); return true;");
    d.screenshot("realms-05-map-1280");
    d.resize(390, 844);
    d.go(&format!("{}/games/{game}", app.base));
    assert!(d.exists("#realms-orders"), "the order form is shown");
    d.screenshot("realms-06-phone");
    d.eval("document.getElementById('board').scrollIntoView(); return true;");
    d.screenshot("realms-07-phone-map");
    let errors = d.console_errors();
    let errors: Vec<&String> = errors.iter().filter(|e| !(e.contains("/commands - ") && e.contains("422"))).collect();
    assert!(errors.is_empty(), "the pages ran without console errors: {errors:#?}");
}

/// An event's words are those of the season it was written in: a realm's
/// "gave orders for spring" still says spring a season, and a year, later,
/// to the public and to the realm itself, in the log and in the answer
/// that accepted the orders.
#[test]
fn orders_given_in_spring_still_read_spring_seasons_later() {
    let app = TestApp::spawn();
    let seats = json!([{"name": "Ása"}, {"name": "Bjarni"}]);
    let created = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "realms", "seats": seats, "options": {"mode": "basic", "years": 1}}),
        )
        .ok()
        .clone();
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    // Every text seen, by viewer, seq and whether it was hidden then.
    let mut told: std::collections::BTreeMap<(Option<usize>, u64, bool), String> = Default::default();
    let check = |told: &mut std::collections::BTreeMap<(Option<usize>, u64, bool), String>| {
        for viewer in [None, Some(0)] {
            let list =
                app.get(&format!("/api/v1/games/{game}/events"), viewer.map(|s| tokens[s].as_str())).ok().clone();
            for e in list["events"].as_array().unwrap() {
                let key = (viewer, e["seq"].as_u64().unwrap(), e["hidden"] == true);
                let text = e["text"].as_str().unwrap().to_owned();
                let first = told.entry(key).or_insert_with(|| text.clone());
                assert_eq!(*first, text, "event {} as {viewer:?} saw it first, and now", key.1);
            }
        }
    };
    let mut answers = Vec::new();
    loop {
        let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
        if summary["status"] == "over" {
            break;
        }
        for p in summary["pending"].as_array().unwrap().clone() {
            let seat = p["seat"].as_u64().unwrap() as usize;
            let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[seat])).ok().clone();
            let r = app.post(
                &format!("/api/v1/games/{game}/commands"),
                Some(&tokens[seat]),
                &json!({"command": view["legal"][0], "expected_seq": view["head"]}),
            );
            for e in r.ok()["events"].as_array().unwrap() {
                answers.push((
                    seat,
                    e["seq"].as_u64().unwrap(),
                    e["hidden"] == true,
                    e["text"].as_str().unwrap().to_owned(),
                ));
            }
            assert!(answers.len() < 2_000, "no end");
        }
        check(&mut told);
    }
    check(&mut told);
    for season in ["spring", "summer", "autumn", "winter"] {
        let line = format!("Ása gave orders for {season}");
        assert!(told.values().any(|t| t == &line), "no line {line:?} in {:#?}", told.values().collect::<Vec<_>>());
    }
    // The answer that accepted a realm's orders told them as the log
    // still tells them to that realm.
    let mine = app.get(&format!("/api/v1/games/{game}/events"), Some(&tokens[0])).ok().clone();
    for (seat, seq, _, text) in answers.iter().filter(|a| a.0 == 0 && !a.2) {
        let later = &mine["events"][*seq as usize];
        assert_eq!(later["seq"], *seq);
        assert_eq!(later["text"].as_str(), Some(text.as_str()), "event {seq} of seat {seat}");
    }
}
