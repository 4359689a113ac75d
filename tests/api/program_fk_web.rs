//! A Fallen Kingdoms seat composes its turn program on the map of its seat
//! page, in headless Chromium: where its new units go and a move, each
//! chosen by clicking a city, one fallback picked for a step; it gives the
//! program, the other seats give theirs, and once the turns before its own
//! have run the seat's log tells its program running, step by step.

use serde_json::{json, Value};

use crate::browser::Driver;
use crate::helpers::{seat_tokens, str_of, TestApp};

const SEATS: usize = 4;

fn view_of(app: &TestApp, game: &str, token: &str) -> Value {
    app.get(&format!("/api/v1/games/{game}/view"), Some(token)).ok().clone()
}

/// Cities joined to `c` by a road or a navigation route.
fn neighbours(view: &Value, c: u64) -> Vec<u64> {
    let board = &view["view"]["board"];
    let mut out = Vec::new();
    for kind in ["roads", "routes"] {
        for pair in board[kind].as_array().unwrap() {
            let (a, b) = (pair[0].as_u64().unwrap(), pair[1].as_u64().unwrap());
            if a == c {
                out.push(b);
            } else if b == c {
                out.push(a);
            }
        }
    }
    out
}

/// A move `seat` can make now into a city it does not hold: (from, to),
/// from its city with the most units.
fn a_move(view: &Value, seat: usize) -> (u64, u64, u64) {
    let cities = view["view"]["cities"].as_array().unwrap();
    let mut best: Option<(u64, u64, u64)> = None;
    for (k, c) in cities.iter().enumerate() {
        let units = c["units"].as_u64().unwrap();
        if c["owner"] != json!(seat) || units < 2 {
            continue;
        }
        for n in neighbours(view, k as u64) {
            if cities[n as usize]["owner"] != json!(seat) && best.is_none_or(|b| b.2 < units) {
                best = Some((k as u64, n, units));
            }
        }
    }
    best.expect("a city of the seat with a neighbour it does not hold")
}

/// Click city `c` on the board.
fn click_city(d: &Driver, c: u64) {
    d.click(&d.find(&format!("svg.fk-board g.city[data-area='city-{c}']")));
}

#[test]
fn a_fallen_kingdoms_seat_composes_its_turn_program_on_the_map_and_sees_it_run_after_the_others() {
    let app = TestApp::spawn();
    let created = app.create("fallen-kingdoms", SEATS, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    // Setup: every seat gives its god and starting cities (the suggested ones).
    for t in &tokens {
        let v = view_of(&app, &game, t);
        let setup = v["legal"].as_array().unwrap().iter().find(|c| c["type"] == "setup").cloned().expect("a setup");
        app.submit(&game, t, setup).ok();
    }
    let public = app.get(&format!("/api/v1/games/{game}/view"), None).ok().clone();
    assert_eq!(public["view"]["phase"], "programs", "every seat is asked for its program: {}", public["view"]);
    // The browser plays the seat whose turn runs last.
    let first = public["view"]["first"].as_u64().unwrap() as usize;
    let me = (first + SEATS - 1) % SEATS;
    let name = format!("Player {}", me + 1);
    let view = view_of(&app, &game, &tokens[me]);
    let mine: Vec<u64> = view["view"]["cities"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, c)| c["owner"] == json!(me))
        .map(|(k, _)| k as u64)
        .collect();
    let (from, to, units) = a_move(&view, me);
    let home = *mine.iter().find(|&&c| c != from).unwrap_or(&from);

    let d = Driver::start();
    d.resize(1280, 900);
    d.go(str_of(&created["seats"][me], "link"));
    d.loads(|| d.click(&d.find("#enter")));
    d.wait_for("#fk-program-form");
    let when = d.text("#prog-when");
    assert!(
        when.contains("This turn runs in this order:")
            && when.contains("Yours runs fourth, after 3 other players' turns"),
        "{when}"
    );

    // Where new units go: the list chosen, then a city of one's own
    // clicked on the map.
    d.eval("document.getElementById('prog-place-city').focus(); return null;");
    assert!(d.text("#prog-map-status").contains("New units go to"), "{}", d.text("#prog-map-status"));
    click_city(&d, home);
    assert_eq!(d.property("#prog-place-city", "value"), home.to_string(), "the map chose the city");
    // The first move: its "from" chosen, the city clicked, and then the
    // city to move to (the map goes on to "to" by itself).
    for i in 1..ROWS {
        d.eval(&format!(
            "var f = document.getElementById('prog-move-{i}-from'); f.value = ''; \
             f.dispatchEvent(new Event('change', {{ bubbles: true }})); return null;"
        ));
        assert_eq!(d.property(&format!("#prog-move-{i}-to"), "value"), "", "a move without its from has no to");
    }
    d.eval("document.getElementById('prog-move-0-from').focus(); return null;");
    click_city(&d, from);
    assert!(d.text("#prog-map-status").contains("Now click the city to move to"), "{}", d.text("#prog-map-status"));
    click_city(&d, to);
    assert_eq!(d.property("#prog-move-0-from", "value"), from.to_string());
    assert_eq!(d.property("#prog-move-0-to", "value"), to.to_string());
    let n = d.find("#prog-move-0-units");
    d.clear(&n);
    d.type_in(&n, &(units - 1).to_string());
    // The placement's fallback, chosen from the keyboard: the bot places
    // the rest of the turn if the city is lost by then.
    d.type_in(&d.find("#prog-place-fallback"), "let");
    assert_eq!(d.property("#prog-place-fallback", "value"), "bot");
    d.eval("document.getElementById('fk-program-form').scrollIntoView(); return null;");
    d.screenshot("50-fk-program-compose-1280");
    d.eval("document.getElementById('prog-step-move').scrollIntoView(); return null;");
    d.screenshot("51-fk-program-move-1280");
    d.resize(390, 844);
    d.eval("document.getElementById('fk-program-form').scrollIntoView(); return null;");
    d.screenshot("52-fk-program-compose-phone");
    d.eval("document.getElementById('prog-step-move').scrollIntoView(); return null;");
    d.screenshot("53-fk-program-move-phone");
    let widths = d.eval("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]");
    assert!(widths[0].as_u64() <= widths[1].as_u64(), "no sideways scrolling on a phone: {widths}");
    d.resize(1280, 900);
    d.loads(|| d.click(&d.find("#prog-submit")));

    // The program is the seat's, in secret; nothing runs before every seat
    // has given its own.
    let log = d.text("#log");
    assert!(log.contains(&format!("{name} gives a program of ")), "{log}");
    let given = app.get(&format!("/api/v1/games/{game}/events"), Some(&tokens[me])).ok()["events"].clone();
    let program = given
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|e| e["body"]["event"]["type"] == "program_given")
        .map(|e| e["body"]["event"]["steps"].clone())
        .unwrap_or(Value::Null);
    let steps = program.as_array().unwrap_or_else(|| panic!("the seat reads its own program: {given}"));
    let place = steps.iter().find(|s| s["step"]["type"] == "place_produced");
    if let Some(place) = place {
        assert!(place["step"]["units"].as_array().unwrap().iter().all(|u| *u == json!(home)), "{place}");
        assert_eq!(place["fallback"], json!({"type": "Bot"}));
    }
    let movement = steps.iter().find(|s| s["step"]["type"] == "move").expect("a movement step");
    assert_eq!(movement["step"]["moves"], json!([{"from": from, "to": to, "units": units - 1}]), "{movement}");
    assert_eq!(movement["fallback"]["type"], "Try", "the movement falls back to staying put: {movement}");

    // The others give theirs through the API: the turns run in order, the
    // browser seat's last.
    for (seat, t) in tokens.iter().enumerate().filter(|(s, _)| *s != me) {
        let v = view_of(&app, &game, t);
        let bot = v["legal"].as_array().unwrap().iter().rev().find(|c| c["type"] == "program").cloned();
        app.submit(&game, t, bot.unwrap_or_else(|| panic!("seat {seat} is asked for its program"))).ok();
    }
    d.loads(|| d.go(&format!("{}/games/{game}?log=all", app.base)));
    let log = d.text("#log");
    // A turn's program has several steps (a setup placement's and an
    // invasion's have one): its second step is told only of the turn's.
    let runs = log.find(&format!("{name}'s program, step 2: ")).unwrap_or_else(|| panic!("the program ran: {log}"));
    for other in (0..SEATS).filter(|s| *s != me) {
        let theirs = log.find(&format!("Player {}'s program, step 2: ", other + 1)).expect("every program ran");
        assert!(theirs < runs, "the others' turns ran first: {log}");
    }
    assert!(log.contains(&format!("{name}'s program, step 1: ")), "{log}");
    d.eval(&format!(
        "var l = Array.from(document.querySelectorAll('#log li')).find(function (e) {{ \
         return e.textContent.indexOf(\"{name}'s program, step 2: \") >= 0; }}) || \
         document.getElementById('log'); l.scrollIntoView(); return null;"
    ));
    d.screenshot("54-fk-program-ran-1280");
    d.resize(390, 844);
    d.screenshot("55-fk-program-ran-phone");
    let errors = d.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
}

/// The composer's movement rows.
pub(crate) const ROWS: usize = 4;
