//! Fallen Kingdoms hosted by the real server: a whole game played by bots
//! over HTTP, the board drawn with every city once and its owner, a battle
//! between two seats that are never online together resolved from standing
//! orders and told round by round, and a seat playing a whole turn in
//! headless Chromium through the pages; all by rules version 1, where each
//! step of a turn is its own decision.

use serde_json::{json, Value};

use crate::browser::Driver;
use crate::helpers::{play_to_the_end, seat_tokens, str_of, TestApp};

const RULESET: &str = "fallen-kingdoms";

fn view_of(app: &TestApp, game: &str, token: Option<&str>) -> Value {
    app.get(&format!("/api/v1/games/{game}/view"), token).ok().clone()
}

/// Send `command` as `seat`, with the head of the view it was chosen from.
fn send(app: &TestApp, game: &str, token: &str, command: &Value, view: &Value) -> crate::helpers::Reply {
    app.post(
        &format!("/api/v1/games/{game}/commands"),
        Some(token),
        &json!({"command": command, "expected_seq": view["head"]}),
    )
}

/// Seats asked something and not yet answered.
fn waiting(app: &TestApp, game: &str) -> Vec<usize> {
    let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
    summary["pending"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["submitted"] != true)
        .map(|p| p["seat"].as_u64().unwrap() as usize)
        .collect()
}

/// Every seat keeps standing defence orders (retreat when down to 1), set
/// while the god choice is open and everybody may act.
fn standing_defence(app: &TestApp, game: &str, tokens: &[String]) {
    for t in tokens {
        let v = view_of(app, game, Some(t));
        let c = json!({"type": "set_defence", "defence": {"retreat_at": 1, "prefer": []}});
        send(app, game, t, &c, &v).ok();
    }
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

/// An attack `seat` can make now: (from, to, units), the most units first.
fn attack_for(view: &Value, seat: usize) -> Option<(u64, u64, u64)> {
    let cities = view["view"]["cities"].as_array().unwrap();
    let mut best: Option<(u64, u64, u64)> = None;
    for (k, c) in cities.iter().enumerate() {
        let units = c["units"].as_u64().unwrap();
        if c["owner"] != json!(seat) || units < 3 {
            continue;
        }
        for n in neighbours(view, k as u64) {
            let o = &cities[n as usize]["owner"];
            if o.is_u64() && *o != json!(seat) && best.is_none_or(|b| b.2 < units - 1) {
                best = Some((k as u64, n, units - 1));
            }
        }
    }
    best
}

/// Play every pending seat's bot choice (its last legal command, the bot's
/// own) until `stop` says so of a pending seat's view; answer that seat, or
/// `None` when the game ended first.
fn play_until(
    app: &TestApp,
    game: &str,
    tokens: &[String],
    mut stop: impl FnMut(usize, &Value) -> bool,
) -> Option<usize> {
    for _ in 0..3_000 {
        let pending = waiting(app, game);
        if pending.is_empty() {
            return None;
        }
        for seat in pending {
            let view = view_of(app, game, Some(&tokens[seat]));
            if stop(seat, &view) {
                return Some(seat);
            }
            let legal = view["legal"].as_array().unwrap();
            let c = legal.last().unwrap_or_else(|| panic!("seat {seat} is pending with no legal command"));
            let r = send(app, game, &tokens[seat], c, &view);
            if r.status != 409 {
                r.ok();
            }
        }
    }
    panic!("the position looked for never came");
}

fn at_step(view: &Value, seat: usize, steps: &[&str]) -> bool {
    let v = &view["view"];
    v["phase"] == "players" && v["current"] == json!(seat) && steps.iter().any(|s| v["step"] == *s)
}

#[test]
fn four_kingdoms_play_a_whole_game_over_http_until_the_winners_are_announced() {
    let app = TestApp::spawn();
    let info = app.get("/api/v1/rulesets", None);
    let fk = info.ok()["rulesets"].as_array().unwrap().iter().find(|r| r["id"] == RULESET).cloned().expect("offered");
    assert_eq!((fk["min_seats"].as_u64(), fk["max_seats"].as_u64()), (Some(3), Some(6)));
    let created = app.create(RULESET, 4, json!({"hidden_scoring": true, "rules_version": 1}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    play_to_the_end(
        &app,
        &game,
        &tokens,
        5_000,
        &[409],
        |seat, view| {
            // Hidden scoring: nobody sees another's glory.
            for (k, p) in view["view"]["players"].as_array().unwrap().iter().enumerate() {
                assert_eq!(p["glory"].is_null(), k != seat, "seat {seat} sees the glory of {k}: {p}");
            }
            view["legal"].as_array().unwrap().last().unwrap().clone()
        },
        || {},
    );
    let summary = app.get(&format!("/api/v1/games/{game}"), None);
    let outcome = &summary.ok()["outcome"];
    assert_eq!(outcome["scores"].as_array().unwrap().len(), 4);
    assert!(!outcome["winners"].as_array().unwrap().is_empty());
    let events = app.get(&format!("/api/v1/games/{game}/events"), None);
    let list = events.ok()["events"].as_array().unwrap();
    assert!(list.iter().all(|e| e["hidden"] == false), "after the end the whole log is public");
    let depleted = list.iter().rev().find(|e| e["body"]["event"]["type"] == "round_ended").unwrap();
    assert!(depleted["body"]["event"]["depleted"].as_u64().unwrap() >= 2, "the game ends by the trophies");
    assert!(list.iter().any(|e| e["body"]["event"]["type"] == "battle_began"), "the bots fight");
    let public = view_of(&app, &game, None);
    assert!(public["view"]["players"][1]["glory"].is_number(), "scores are shown once the game is over");
    let verify = app.get(&format!("/api/v1/games/{game}/verify"), None);
    assert_eq!(verify.ok()["ok"], true, "{}", verify.text);
}

#[test]
fn the_board_draws_every_city_once_with_its_owner_at_several_positions_of_a_played_game() {
    let app = TestApp::spawn();
    let registry = runestone::games::registry();
    let renderer = registry.get(RULESET).expect("Fallen Kingdoms is hosted").as_ref();
    for seats in [3usize, 5] {
        let created = app.create(RULESET, seats, json!({"rules_version": 1}));
        let game = str_of(&created, "game_id").to_owned();
        let tokens = seat_tokens(&created);
        let names: Vec<String> = (0..seats).map(|i| format!("Player {}", i + 1)).collect();
        let mut looked = 0;
        let mut owned_seen = 0;
        let mut n = 0;
        play_until(&app, &game, &tokens, |_, _| {
            n += 1;
            if n % 20 != 1 {
                return false;
            }
            let view = view_of(&app, &game, None);
            let board = runestone::web::board::render(Some(renderer), &view["view"], &names);
            let svg = board.svg.expect("a map is drawn");
            let areas = renderer.areas(&view["view"], &names);
            let cities = view["view"]["cities"].as_array().unwrap();
            assert_eq!(areas.len(), cities.len(), "every city is an area");
            assert_eq!(areas.len(), 6 * seats, "6 cities per player");
            for (k, a) in areas.iter().enumerate() {
                let tag = format!("data-area=\"{}\"", a.id);
                assert_eq!(svg.matches(&tag).count(), 1, "{} drawn once", a.id);
                assert_eq!(a.owner.map(u64::from), cities[k]["owner"].as_u64(), "{} with its owner", a.id);
                if let Some(o) = a.owner {
                    assert!(svg.contains(&format!("{tag} data-owner=\"{o}\"")), "{} tinted by its owner", a.id);
                    owned_seen += 1;
                }
            }
            assert!(board.html.contains("<caption>Cities</caption>"), "the cities in words");
            looked += 1;
            false
        });
        assert!(looked >= 5, "the board was looked at through the game: {looked} times");
        assert!(owned_seen > 0, "some cities are held in a played game");
    }
}

#[test]
fn a_battle_between_two_seats_never_online_together_resolves_without_either_being_asked_and_is_told_round_by_round() {
    let app = TestApp::spawn();
    let created = app.create(RULESET, 3, json!({"rules_version": 1}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    standing_defence(&app, &game, &tokens);
    // The attacker comes online at its movement, when it can attack.
    let attacker =
        play_until(&app, &game, &tokens, |seat, v| at_step(v, seat, &["move"]) && attack_for(v, seat).is_some())
            .expect("an attack comes before the end");
    let view = view_of(&app, &game, Some(&tokens[attacker]));
    let (from, to, units) = attack_for(&view, attacker).unwrap();
    let defender = view["view"]["cities"][to as usize]["owner"].as_u64().unwrap() as usize;
    let before = view["head"].as_u64().unwrap();
    let c = json!({"type": "move", "moves": [{"from": from, "to": to, "units": units}],
                   "attacks": [{"city": to, "retreat_at": 1, "occupy": true}]});
    send(&app, &game, &tokens[attacker], &c, &view).ok();

    // One command, and the battle is over: the defender was never asked.
    let events = app.get(&format!("/api/v1/games/{game}/events"), None).ok().clone();
    let after: Vec<&Value> =
        events["events"].as_array().unwrap().iter().filter(|e| e["seq"].as_u64().unwrap() > before).collect();
    assert!(after.iter().all(|e| e["actor"]["seat"] != json!(defender)), "the defender did nothing");
    let texts: Vec<&str> = after.iter().map(|e| e["text"].as_str().unwrap()).collect();
    let kinds: Vec<&str> = after.iter().map(|e| e["body"]["event"]["type"].as_str().unwrap()).collect();
    let begin = kinds.iter().position(|k| *k == "battle_began").expect("a battle began");
    let end =
        begin + kinds[begin..].iter().position(|k| *k == "battle_ended").expect("the battle ended in the same command");
    let rolls: Vec<&str> = texts[begin..end].iter().copied().filter(|t| t.contains(" rolls ")).collect();
    assert!(!rolls.is_empty(), "the log tells each roll: {texts:#?}");
    assert!(rolls.iter().all(|t| t.contains("hits")), "each roll in words with its hits: {rolls:#?}");
    assert!(
        texts[begin].contains(" attacks ") && texts[begin].contains(&format!("with {units} units")),
        "{}",
        texts[begin]
    );
    let status = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
    for p in status["pending"].as_array().unwrap() {
        let prompt = p["prompt"].as_str().unwrap();
        assert!(
            !prompt.contains("battle") && !prompt.contains("retreat"),
            "nobody is asked about the battle: {prompt}"
        );
    }
    eprintln!("{}", texts[begin..=end.min(texts.len() - 1)].join("\n"));
}

#[test]
fn a_seat_plays_a_whole_turn_in_headless_chromium_production_placement_movement_and_a_battle() {
    let app = TestApp::spawn();
    let created = app.create(RULESET, 3, json!({"rules_version": 1}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    standing_defence(&app, &game, &tokens);
    // The seat comes online at the start of a turn in which it can attack and
    // its free points make a unit that it has room for (30 at most, 2.2).
    let me = play_until(&app, &game, &tokens, |seat, v| {
        let units_track = v["view"]["players"][seat]["tracks"][0].as_u64().unwrap();
        let points =
            units_track + v["view"]["fixed_points"][0].as_u64().unwrap() + v["view"]["free_points"].as_u64().unwrap();
        let on_board = v["view"]["players"][seat]["units_on_board"].as_u64().unwrap();
        at_step(v, seat, &["god", "produce"]) && attack_for(v, seat).is_some() && points >= 3 && on_board <= 27
    })
    .expect("such a turn comes before the end");
    // Another seat, asked nothing now, is offered its standing defence
    // orders on its page (a cookie browser: plain HTTP), and they are taken.
    let other = (me + 1) % 3;
    assert!(!waiting(&app, &game).contains(&other));
    let mut b = crate::browser::Browser::new(&app);
    b.sign_in(&game, &tokens[other]);
    let page = b.get(&format!("/games/{game}"));
    assert_eq!(page.status, 200);
    assert!(page.html.contains("Your standing orders") && page.html.contains("id=\"defence-form\""), "{}", page.html);
    assert!(!page.html.contains("id=\"move-form\""), "only the standing orders, no decision");
    let csrf = b.csrf();
    let posted = b.post(
        &format!("/games/{game}/commands"),
        &[("csrf", &csrf), ("build", "fk-defence"), ("retreat", "2"), ("ask", "on")],
    );
    assert_eq!(posted.status, 303, "{}", posted.html);
    let v = view_of(&app, &game, Some(&tokens[other]));
    assert_eq!(v["view"]["players"][other]["defence"], json!({"retreat_at": 2, "prefer": [], "ask": true}));
    // Unticked, "ask me" is taken away again. (It must be: the seat's attack
    // below may fall on this seat's city, as the deal and the dice decide,
    // and orders that ask would hold that battle for this seat's answer, so
    // the movement would not end in one command.)
    let posted =
        b.post(&format!("/games/{game}/commands"), &[("csrf", &csrf), ("build", "fk-defence"), ("retreat", "2")]);
    assert_eq!(posted.status, 303, "{}", posted.html);
    let v = view_of(&app, &game, Some(&tokens[other]));
    assert_eq!(v["view"]["players"][other]["defence"], json!({"retreat_at": 2, "prefer": []}));

    let d = Driver::start();
    d.resize(1280, 1000);
    d.go(str_of(&created["seats"][me], "link"));
    d.loads(|| d.click(&d.find("#enter")));
    assert!(d.exists("#decide"), "the seat is asked in the page");
    d.screenshot("fk-01-turn-start");
    // The table header: the turn and whose player phase in words, and the
    // standings with glory, the public columns and each seat's colour.
    let phase = d.text("#phase");
    assert!(phase.starts_with("Turn ") && phase.contains("player phase of"), "{phase}");
    let standings = d.text("#standings");
    for word in ["Glory", "God", "Cities", "Victories", "Knowledge track", "Temple", "Red", "Blue", "Green"] {
        assert!(standings.contains(word), "{word} in the standings: {standings}");
    }
    if d.exists("#fk-power") {
        // Skip the god's ability: the first button.
        d.loads(|| d.click(&d.find("#fk-power-0")));
    }
    // Production: every free point on the unit track, so units are made.
    d.wait_for("#produce-form");
    let free: u64 = d.property("#free-unit", "max").parse().unwrap();
    for (id, n) in [("#free-unit", free), ("#free-building", 0), ("#free-knowledge", 0)] {
        let input = d.find(id);
        d.clear(&input);
        d.type_in(&input, &n.to_string());
    }
    d.screenshot("fk-02-production");
    d.loads(|| d.click(&d.find("#produce-submit")));
    assert!(d.text("#log").contains("produces"), "{}", d.text("#log"));
    // Take what else was made, then place the new units.
    for _ in 0..6 {
        if !d.exists("#fk-take-0") {
            break;
        }
        d.loads(|| d.click(&d.find("#fk-take-0")));
    }
    d.wait_for("#place-form");
    d.screenshot("fk-03-placement");
    d.loads(|| d.click(&d.find("#place-submit")));
    assert!(d.text("#log").contains("places a unit in"), "{}", d.text("#log"));

    // The planned movement: an attack, with its standing orders.
    d.wait_for("#move-form");
    let view = view_of(&app, &game, Some(&tokens[me]));
    let (from, to, units) = attack_for(&view, me).expect("still an attack to make");
    let input = d.find(&format!("#move-{from}-{to}"));
    d.clear(&input);
    d.type_in(&input, &units.to_string());
    d.click(&d.find("#attack-orders summary"));
    let retreat = d.find(&format!("#attack-{to}-retreat"));
    d.clear(&retreat);
    d.type_in(&retreat, "1");
    d.screenshot("fk-04-movement");
    d.loads(|| d.click(&d.find("#move-submit")));
    if !d.text("#log").contains(" attacks ") {
        // The log is folded to the next turn's (the seat played last in
        // the turn) or to its last entries: the battle is in the whole log.
        d.loads(|| d.click(&d.find("#log-all")));
    }
    let log = d.text("#log");
    assert!(log.contains(" attacks ") && log.contains(" rolls "), "the battle in words: {log}");
    d.screenshot("fk-05-after-battle");
    d.eval("document.querySelector('svg.board .kingdom').scrollIntoView(); return null;");
    d.screenshot("fk-05b-kingdoms");
    let after = view_of(&app, &game, Some(&tokens[me]));
    assert!(
        !(after["view"]["phase"] == "players" && after["view"]["current"] == json!(me)),
        "the player phase passed on: {} (battle {}, pending {})",
        after["view"]["phase"],
        after["view"]["battle"],
        after["pending"]
    );

    // Asked nothing or not, the seat's page offers its standing defence orders.
    d.go(&format!("{}/games/{game}", app.base));
    assert!(d.exists("#defence-form"), "the standing orders are offered");
    if !waiting(&app, &game).contains(&me) {
        assert_eq!(d.text("#decide-h"), "Your standing orders");
    }
    d.click(&d.find("#defence-orders summary"));
    d.screenshot("fk-05c-standing-orders");

    // The board on a phone.
    d.resize(390, 844);
    d.go(&format!("{}/games/{game}", app.base));
    assert!(d.exists("svg.board [data-area='city-0']"), "the board is drawn");
    d.screenshot("fk-06-phone");
    let widths = d.eval("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]");
    assert!(widths[0].as_u64() <= widths[1].as_u64(), "no sideways scrolling on a phone: {widths}");
    let errors = d.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
}

#[test]
fn a_battle_whose_orders_ask_waits_for_that_seat_with_the_short_deadline_and_resumes_when_answered() {
    use chrono::Duration as Hours;
    use runestone::clock::ManualClock;
    let tmp = tempfile::tempdir().unwrap();
    let clock = std::sync::Arc::new(ManualClock::new("2026-03-02T09:00:00Z".parse().unwrap()));
    let app = TestApp::start_with_clock(crate::helpers::settings(tmp.path()), clock.clone());
    let seats: Vec<Value> = (1..=3).map(|i| json!({"name": format!("Player {i}")})).collect();
    let policy = json!({"plan_hours": 48, "turn_hours": 48, "small_hours": 2});
    let created = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": RULESET, "seats": seats, "deadlines": policy, "options": {"rules_version": 1}}),
        )
        .ok()
        .clone();
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    standing_defence(&app, &game, &tokens);
    let attacker =
        play_until(&app, &game, &tokens, |seat, v| at_step(v, seat, &["move"]) && attack_for(v, seat).is_some())
            .expect("an attack comes before the end");
    // Given the attacker's orders ask before every roll (retreat level 30 and "ask me"),
    clock.advance(Hours::hours(5));
    let view = view_of(&app, &game, Some(&tokens[attacker]));
    let (from, to, units) = attack_for(&view, attacker).unwrap();
    let before = view["head"].as_u64().unwrap();
    let c = json!({"type": "move", "moves": [{"from": from, "to": to, "units": units}],
                   "attacks": [{"city": to, "retreat_at": 30, "ask": true}]});
    send(&app, &game, &tokens[attacker], &c, &view).ok();
    // Then the battle waits for the attacker before its first roll: a small
    // decision, due in the policy's 2 hours (not a turn's 48).
    let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
    let pending = summary["pending"].as_array().unwrap();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!((pending[0]["seat"].as_u64(), pending[0]["kind"].as_str()), (Some(attacker as u64), Some("battle")));
    assert_eq!(pending[0]["class"], "small", "{pending:?}");
    assert!(pending[0]["prompt"].as_str().unwrap().contains("retreat, or roll on"), "{pending:?}");
    let due = summary["deadlines"]["due"].as_array().unwrap();
    let battle_due = due.iter().find(|d| d["decision"] == format!("{attacker}/battle")).expect("a deadline");
    assert!(battle_due["due"].as_str().unwrap().starts_with("2026-03-02T16:00:00"), "{due:?}");
    let kinds = |app: &TestApp| -> Vec<String> {
        let events = app.get(&format!("/api/v1/games/{game}/events"), None).ok().clone();
        events["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["seq"].as_u64().unwrap() > before)
            .filter_map(|e| e["body"]["event"]["type"].as_str().map(str::to_owned))
            .collect()
    };
    let so_far = kinds(&app);
    assert!(so_far.contains(&"battle_asked".to_string()), "{so_far:?}");
    assert!(!so_far.contains(&"rolled".to_string()) && !so_far.contains(&"battle_ended".to_string()), "{so_far:?}");
    // The view shows the battle and its question.
    let v = view_of(&app, &game, Some(&tokens[attacker]));
    assert_eq!(v["view"]["battle"]["asked"], json!(attacker), "{}", v["view"]["battle"]);
    assert_eq!(v["view"]["battle"]["city"], json!(to));
    // When the attacker answers "roll on" each time it is asked, the battle
    // is fought round by round until it ends, and the movement goes on.
    let mut answers = 0;
    loop {
        let v = view_of(&app, &game, Some(&tokens[attacker]));
        if v["view"]["battle"].is_null() {
            break;
        }
        assert!(answers < 40, "the battle never ends");
        send(&app, &game, &tokens[attacker], &json!({"type": "answer_battle", "retreat": false}), &v).ok();
        answers += 1;
    }
    let after = kinds(&app);
    assert!(after.iter().any(|k| k == "rolled") && after.iter().any(|k| k == "battle_ended"), "{after:?}");
    assert_eq!(after.iter().filter(|k| *k == "battle_answered").count(), answers);
    let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
    assert!(
        summary["pending"].as_array().unwrap().iter().all(|p| p["kind"] != "battle"),
        "nobody is asked about the battle any more: {}",
        summary["pending"]
    );
    assert!(after.iter().any(|k| k == "turn_ended"), "the player phase went on: {after:?}");
}
