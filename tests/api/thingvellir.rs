//! The Road to Thingvellir hosted on the real server: a whole game played by
//! bots over HTTP (each seat taking the first legal command of its own view,
//! the bot's choice), the map drawing every District once with its gothi at
//! positions of a played game, and a seat voting, resolving an action and
//! committing Goods in a feud through the pages in headless Chromium.

use serde_json::{json, Value};

use crate::browser::Driver;
use crate::helpers::{seat_tokens, str_of, TestApp};

/// The first pending seat (`pending` lists only seats owing a decision)
/// takes the first legal command of its own view, sending the view's head as `expected_seq`. Answers the seat
/// that acted, or `None` when nobody is to act.
fn bot_step(app: &TestApp, game: &str, tokens: &[String], skip: Option<usize>) -> Option<usize> {
    let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
    let pending: Vec<usize> = summary["pending"]
        .as_array()?
        .iter()
        .map(|p| p["seat"].as_u64().unwrap() as usize)
        .filter(|s| Some(*s) != skip)
        .collect();
    let seat = *pending.first()?;
    let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[seat])).ok().clone();
    let first = view["legal"][0].clone();
    assert!(first.is_object(), "seat {seat} is pending with no legal command: {view}");
    let r = app.post(
        &format!("/api/v1/games/{game}/commands"),
        Some(&tokens[seat]),
        &json!({"command": first, "expected_seq": view["head"]}),
    );
    assert!(r.status < 300 || r.status == 409, "seat {seat}'s bot command {first} refused: {}", r.text);
    Some(seat)
}

fn over(app: &TestApp, game: &str) -> bool {
    app.get(&format!("/api/v1/games/{game}"), None).ok()["status"] == "over"
}

#[test]
fn three_gothar_play_a_whole_game_over_http_with_sealed_feuds_until_the_winner_is_announced() {
    let app = TestApp::spawn();
    let rulesets = app.get("/api/v1/rulesets", None).ok().clone();
    let info = rulesets["rulesets"].as_array().unwrap().iter().find(|r| r["id"] == "thingvellir").cloned();
    let info = info.expect("The Road to Thingvellir is offered");
    assert_eq!((info["min_seats"].as_u64(), info["max_seats"].as_u64()), (Some(2), Some(6)));
    let created = app.create("thingvellir", 3, json!({"sealed_feuds": true}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let mut inputs = [0u32; 3];
    let mut commands = 0;
    while !over(&app, &game) {
        let seat = bot_step(&app, &game, &tokens, None).expect("someone to act while the game runs");
        inputs[seat] += 1;
        commands += 1;
        assert!(commands < 20_000, "no end after {commands} commands");
        if commands % 50 == 0 {
            // Goods show only their Worth, to everyone.
            let public = app.get(&format!("/api/v1/games/{game}/view"), None).ok().clone();
            for p in public["view"]["players"].as_array().unwrap() {
                for g in p["wealth"].as_array().unwrap() {
                    assert!(
                        g.get("colour").is_none() && g.get("id").is_none(),
                        "a Good shows more than its Worth: {g}"
                    );
                }
                assert!(p["hand"].is_null(), "a hand shows to the public");
            }
        }
    }
    let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
    let outcome = &summary["outcome"];
    assert_eq!(outcome["scores"].as_array().unwrap().len(), 3);
    assert_eq!(outcome["winners"].as_array().unwrap().len(), 1);
    let text = outcome["summary"].as_str().unwrap_or_default().to_owned();
    assert!(text.contains("Wordfame") || text.contains("last with a farm"), "{text}");
    let view = app.get(&format!("/api/v1/games/{game}/view"), None).ok().clone();
    let rounds = view["view"]["round"].as_u64().unwrap().max(1);
    eprintln!(
        "{commands} commands over {rounds} rounds: {:.2} inputs per player per round ({text})",
        commands as f64 / rounds as f64 / 3.0
    );
    let events = app.get(&format!("/api/v1/games/{game}/events"), None);
    assert!(
        events.ok()["events"].as_array().unwrap().iter().all(|e| e["hidden"] == false),
        "after the end the whole log is public"
    );
    let verify = app.get(&format!("/api/v1/games/{game}/verify"), None);
    assert_eq!(verify.ok()["ok"], true, "{}", verify.text);
}

/// `svg` draws each of `areas` exactly once, with its owner.
fn check_areas(label: &str, svg: &str, areas: &[runestone::web::board::Area]) -> usize {
    assert_eq!(areas.len(), 18, "{label}: the eighteen Districts of Iceland");
    for a in areas {
        let tag = format!("data-area=\"{}\"", a.id);
        assert_eq!(svg.matches(&tag).count(), 1, "{label}: {} drawn once", a.id);
        let at = svg.find(&tag).unwrap();
        let element = &svg[svg[..at].rfind('<').unwrap()..at + svg[at..].find('>').unwrap()];
        match a.owner {
            Some(o) => assert!(element.contains(&format!("data-owner=\"{o}\"")), "{label}: {element}"),
            None => assert!(!element.contains("data-owner"), "{label}: {element}"),
        }
    }
    assert_eq!(svg.matches("data-area=").count(), areas.len(), "{label}: no area drawn that is not a District");
    areas.iter().filter(|a| a.owner.is_some()).count()
}

#[test]
fn the_map_draws_every_district_once_with_its_gothi_and_every_edge_law_and_track_as_a_game_goes_on() {
    let app = TestApp::spawn();
    let registry = runestone::games::registry();
    let renderer = registry.get("thingvellir").expect("hosted").as_ref();
    // The first map (rules versions 1 to 3), 18 Districts round the coast;
    // the drawing of version 4's map by its coordinates is tested in the
    // game's crate (`tests/map.rs`).
    let created = app.create("thingvellir", 4, json!({"rules_version": 3}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let names: Vec<String> = (0..4).map(|i| format!("Player {}", i + 1)).collect();
    let mut checked = 0;
    let mut most_owned = 0;
    // A round by season programs is one command per gothi: the board is
    // looked at every few commands.
    for step in 0..400 {
        if step % 3 == 0 {
            let view = app.get(&format!("/api/v1/games/{game}/view"), None).ok().clone();
            let label = format!("after {step} commands");
            let board = runestone::web::board::render(Some(renderer), &view["view"], &names);
            let svg = board.svg.unwrap_or_else(|| panic!("{label}: the map is drawn"));
            let areas = renderer.areas(&view["view"], &names);
            most_owned = most_owned.max(check_areas(&label, &svg, &areas));
            assert_eq!(svg.matches("class=\"edge\"").count(), 24, "{label}: every edge");
            assert_eq!(svg.matches("class=\"law\"").count(), 4, "{label}: the four Laws");
            assert_eq!(svg.matches("class=\"statute\"").count(), 12, "{label}: every statute");
            assert!(svg.contains("data-sea="), "{label}: the sea");
            assert_eq!(svg.matches("data-fame=").count(), 4, "{label}: each gothi on The Fame of Deeds");
            assert_eq!(svg.matches("data-hunt=").count(), 16, "{label}: each gothi in each colour of The Sheep Hunt");
            let on_edges: u64 = view["view"]["edges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["thingmen"].as_array().unwrap().iter().filter(|n| n.as_u64() > Some(0)).count() as u64)
                .sum();
            let marks = svg.split("class=\"edge\"").skip(1).map(|g| g.split("</g>").next().unwrap_or_default());
            let disks: u64 = marks.map(|g| g.matches("r=\"7\"").count() as u64).sum();
            assert_eq!(disks, on_edges, "{label}: a disk per gothi with Thingmen on an edge");
            if view["view"]["token"].is_array() {
                assert_eq!(svg.matches("class=\"token\"").count(), 1, "{label}: the Lawspeaker's token");
            }
            assert!(board.html.contains("<caption>Districts of Iceland</caption>"), "{label}: the map in words");
            assert!(!svg.contains("Player 1</text>") || svg.contains("Wordfame"), "{label}: the legend");
            checked += 1;
        }
        if over(&app, &game) || bot_step(&app, &game, &tokens, None).is_none() {
            break;
        }
    }
    assert!(checked >= 3, "the board was checked at several positions");
    assert!(most_owned > 4, "Districts were settled beyond the four home steads");
}

/// What the script has each seat do at each decision of the browser game,
/// or `None` where seat 0 acts in the page. Round 1: the Lawspeaker (seat 1)
/// proposes Raid; seat 2 sues for Ride and sets forth onto
/// Hunathing–Skagafjordur; seat 0 votes and sends Thingmen to sea in the page.
/// Round 2: Ride is proposed, seat 0 sues for Raid and returns laden (Goods).
/// Round 3: Raid, everyone passes. Round 4: Ride is proposed again; seat 0
/// rides in the page onto seat 2's edge, and seals Goods in the feud there.
fn scripted(view: &Value, seat: usize) -> Option<Value> {
    let v = &view["view"];
    let round = v["round"].as_u64().unwrap();
    let a = asked(view);
    let first = view["legal"][0].clone();
    Some(match (a.as_str(), seat, round) {
        // Each season played by hand: every decision is asked as it comes.
        ("Season", 0, 1) => return None,
        ("Season", _, _) => json!({"type": "season", "program": {}}),
        ("Propose", _, 2) => json!({"type": "propose", "law": 3}),
        ("Propose", _, _) => json!({"type": "propose", "law": 1}),
        ("Vote", 0, 1) => return None,
        ("Vote", 2, 1) => json!({"type": "vote", "vote": {"vote": "sue", "law": 3, "level": 0}}),
        ("Vote", 0, 2) => json!({"type": "vote", "vote": {"vote": "sue", "law": 1, "level": 0}}),
        ("Vote", _, _) => json!({"type": "vote", "vote": {"vote": "support"}}),
        ("Resolve(Ride)", 2, 1) => json!({"type": "ride", "set_forth": [7], "moves": []}),
        ("Resolve(Raid)", 0, 1) | ("Resolve(Ride)", 0, 4) => return None,
        ("Resolve(Raid)", 0, 2) => json!({"type": "return_laden"}),
        (r, _, _) if r.starts_with("Resolve(") => json!({"type": "pass"}),
        ("Feud", 0, _) => return None,
        ("Challenge", _, _) => json!({"type": "challenge", "fight": false}),
        _ => first,
    })
}

fn asked(view: &Value) -> String {
    view["view"]["asked"].as_str().unwrap_or_default().to_owned()
}

/// Play the script until seat 0 is to act in the page; its view then.
fn until_the_page(app: &TestApp, game: &str, tokens: &[String]) -> Value {
    for _ in 0..500 {
        assert!(!over(app, game), "the scripted game ended");
        let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
        let pending: Vec<usize> =
            summary["pending"].as_array().unwrap().iter().map(|p| p["seat"].as_u64().unwrap() as usize).collect();
        let seat = *pending.first().expect("someone to act");
        let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[seat])).ok().clone();
        let Some(command) = scripted(&view, seat) else { return view };
        let r = app.post(
            &format!("/api/v1/games/{game}/commands"),
            Some(&tokens[seat]),
            &json!({"command": command, "expected_seq": view["head"]}),
        );
        assert!(r.status < 300, "seat {seat}'s scripted {command} refused: {}", r.text);
    }
    panic!("the script did not reach seat 0's turn");
}

#[test]
fn a_gothi_votes_resolves_an_action_and_seals_goods_in_a_feud_through_the_pages_in_headless_chromium() {
    let app = TestApp::spawn();
    let d = Driver::start();
    d.resize(1280, 1600);
    // Scripted on the first map (rules version 3): its home steads and edges.
    let created = app.create("thingvellir", 3, json!({"sealed_feuds": true, "lawspeaker": 1, "rules_version": 3}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    d.go(str_of(&created["seats"][0], "link"));
    d.loads(|| d.click(&d.find("#enter")));
    let page = format!("{}/games/{game}", app.base);

    // Round 1 begins: seat 0 is asked for its season's program in the page
    // (the composer, the bot's program, or the season by hand) and plays it by hand.
    let view = until_the_page(&app, &game, &tokens);
    assert_eq!(asked(&view), "Season");
    d.go(&page);
    assert!(d.exists("#season-form"), "the season's composer");
    assert!(!d.text("#season-form").contains("As Lawspeaker"), "seat 0 is not Lawspeaker");
    assert!(d.text("#decide").contains("When I resolve Settle"), "{}", d.text("#decide"));
    d.screenshot("thingvellir-00-season");
    d.loads(|| d.press("Play the season by hand, each decision as it comes"));
    assert!(!d.exists("#error"), "the season by hand is accepted");

    // Round 1: the vote, in the page.
    let view = until_the_page(&app, &game, &tokens);
    assert_eq!(asked(&view), "Vote");
    d.go(&page);
    assert!(d.exists("#decide"), "seat 0 is asked in the page");
    assert!(d.exists("svg.thingvellir-board [data-area='district-2'][data-owner='0']"), "seat 0's home stead");
    assert!(d.text("#decide").contains("The Lawspeaker proposed Raid on the Law of the Sea"), "{}", d.text("#decide"));
    let phase = d.text("#phase");
    assert!(phase.starts_with("Round 1, I. The Law Council"), "{phase}");
    assert!(phase.contains("proposal, Raid on the Law of the Sea"), "{phase}");
    let standings = d.text("#standings");
    assert!(standings.contains("Wordfame (first to 22)") && standings.contains("Bondi in Oaths"), "{standings}");
    assert!(d.text("#standing-1").contains("Lawspeaker"), "seat 1 is Lawspeaker: {standings}");
    d.screenshot("thingvellir-01-vote");
    d.loads(|| d.press("Support Raid on the Law of the Sea"));
    assert!(!d.exists("#error"), "the vote is accepted");

    // Round 1: Raid A, in the page.
    let view = until_the_page(&app, &game, &tokens);
    assert_eq!(asked(&view), "Resolve(Raid)");
    d.go(&page);
    assert!(d.exists("#decide"), "seat 0 is asked in the page");
    assert!(d.text("#decide").contains("Resolve Raid at strength 2"), "{}", d.text("#decide"));
    d.screenshot("thingvellir-02-resolve-raid");
    d.loads(|| d.press("Send 2 Thingmen to sea"));
    assert!(!d.exists("#error"), "the raid is accepted");
    let mine = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[0])).ok().clone();
    assert_eq!(mine["view"]["players"][0]["at_sea"], 2, "two Thingmen at sea");

    // Round 4: the Ride onto seat 2's edge, in the page's ride form.
    let view = until_the_page(&app, &game, &tokens);
    assert_eq!(asked(&view), "Resolve(Ride)");
    assert_eq!(view["view"]["round"], 4);
    let goods = view["view"]["players"][0]["wealth"].as_array().unwrap().len();
    assert!(goods >= 1, "seat 0 came home laden: {}", view["view"]["players"][0]);
    assert_eq!(view["view"]["edges"][7]["thingmen"][2], 1, "seat 2's Thingman on Hunathing–Skagafjordur");
    d.go(&page);
    assert!(d.exists("#ride-form"), "the ride form");
    d.type_in(&d.find("#forth-19"), "1");
    d.click(&d.find("#band-0-from option[value='19']"));
    d.click(&d.find("#band-0-to option[value='7']"));
    d.screenshot("thingvellir-03-ride-form");
    d.loads(|| d.click(&d.find("#ride-submit")));
    assert!(!d.exists("#error"), "the ride is accepted");

    // The feud it starts: seal every Good, in the page.
    let view = until_the_page(&app, &game, &tokens);
    assert_eq!(asked(&view), "Feud");
    d.go(&page);
    assert!(d.exists("#seal-form"), "the sealed commitment form");
    assert!(
        d.text("#decide").contains("You fight Player 3 (green) with 1 Thingmen against their 1"),
        "{}",
        d.text("#decide")
    );
    let boxes = d.call(
        "POST",
        &d.s("/elements"),
        Some(json!({"using": "css selector", "value": "#seal-form input[name='seal']"})),
    );
    let boxes: Vec<String> = boxes
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_object().unwrap().values().next().unwrap().as_str().unwrap().to_owned())
        .collect();
    assert_eq!(boxes.len(), goods, "a box per Good");
    for b in &boxes {
        d.click(b);
    }
    d.screenshot("thingvellir-04-feud-seal");
    let head = view["head"].as_u64().unwrap();
    d.loads(|| d.click(&d.find("#seal-submit")));
    assert!(!d.exists("#error"), "the seal is accepted");
    let after = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[0])).ok().clone();
    assert!(after["head"].as_u64().unwrap() > head);
    let events = app.get(&format!("/api/v1/games/{game}/events"), Some(&tokens[0])).ok().clone();
    let sealed = events["events"].as_array().unwrap().iter().any(|e| {
        e["body"]["event"]["type"] == "acted"
            && e["body"]["event"]["command"]["type"] == "seal"
            && e["body"]["event"]["command"]["goods"].as_array().is_some_and(|g| g.len() == goods)
    });
    assert!(sealed, "seat 0's seal of all its Goods is in its log");
    // The other side seals too; the feud is settled and the page tells it.
    let _ = until_or_over(&app, &game, &tokens);
    d.go(&page);
    assert!(d.exists("#board-h"));
    d.screenshot("thingvellir-05-after-feud");
    d.resize(390, 844);
    d.go(&page);
    assert!(d.exists("#board-h"));
    d.screenshot("thingvellir-06-phone");
    let errors = d.console_errors();
    assert!(errors.is_empty(), "the pages ran without console errors: {errors:#?}");
}

/// Play the script a little further: until seat 0 is asked again (its view)
/// or the feud is over.
fn until_or_over(app: &TestApp, game: &str, tokens: &[String]) -> Option<Value> {
    for _ in 0..20 {
        let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[0])).ok().clone();
        if view["view"]["feud"].is_null() {
            return Some(view);
        }
        let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
        let seat = summary["pending"].as_array()?.first()?["seat"].as_u64()? as usize;
        let v = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[seat])).ok().clone();
        let command = scripted(&v, seat)?;
        app.post(
            &format!("/api/v1/games/{game}/commands"),
            Some(&tokens[seat]),
            &json!({"command": command, "expected_seq": v["head"]}),
        )
        .ok();
    }
    None
}

/// An event's words are those of the position it was written on: a gothi's
/// Goods committed in a feud are named by their colour and Worth as they
/// were then (never by a place number, nor as the Wealth left after), and
/// every line of the log reads the same rounds later. The game follows
/// the script of the page test above, its feud not sealed.
#[test]
fn goods_committed_in_a_feud_are_told_as_they_were_then_and_stay_told_so() {
    let app = TestApp::spawn();
    // Rules version 3: the script rides on the edges of that version's map.
    let created = app.create("thingvellir", 3, json!({"lawspeaker": 1, "rules_version": 3}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let mut told: std::collections::BTreeMap<(u64, bool), String> = Default::default();
    let check = |told: &mut std::collections::BTreeMap<(u64, bool), String>| {
        let list = app.get(&format!("/api/v1/games/{game}/events"), None).ok().clone();
        for e in list["events"].as_array().unwrap() {
            let key = (e["seq"].as_u64().unwrap(), e["hidden"] == true);
            let text = e["text"].as_str().unwrap().to_owned();
            let first = told.entry(key).or_insert_with(|| text.clone());
            assert_eq!(*first, text, "event {} as first told, and now", key.0);
        }
        list
    };
    let mut commits = Vec::new();
    for step in 0..600 {
        if over(&app, &game) {
            break;
        }
        let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
        let seat = summary["pending"][0]["seat"].as_u64().expect("someone to act") as usize;
        let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[seat])).ok().clone();
        if view["view"]["round"].as_u64().unwrap() > 5 {
            break;
        }
        // Seat 0 does what the page test does in its pages; its feud's
        // Goods are committed one by one.
        let command = scripted(&view, seat).unwrap_or_else(|| match asked(&view).as_str() {
            "Vote" => json!({"type": "vote", "vote": {"vote": "support"}}),
            "Resolve(Raid)" => json!({"type": "sail_out", "thingmen": 2}),
            "Resolve(Ride)" => {
                json!({"type": "ride", "set_forth": [19], "moves": [{"from": 19, "count": 1, "path": [7]}]})
            }
            _ => {
                let legal = view["legal"].as_array().unwrap();
                legal.iter().find(|c| c["type"] == "commit").unwrap_or(&legal[0]).clone()
            }
        });
        let r = app.post(
            &format!("/api/v1/games/{game}/commands"),
            Some(&tokens[seat]),
            &json!({"command": command, "expected_seq": view["head"]}),
        );
        let answer = r.ok().clone();
        if command["type"] == "commit" {
            let acted = answer["events"].as_array().unwrap().iter().find(|e| e["body"]["event"]["command"] == command);
            commits.push(acted.expect("the commitment in the answer")["text"].as_str().unwrap().to_owned());
        }
        if step % 10 == 0 {
            check(&mut told);
        }
    }
    let list = check(&mut told);
    assert!(!commits.is_empty(), "the script's feud committed no Goods");
    for (t, e) in commits.iter().zip(
        list["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["body"]["event"]["type"] == "acted" && e["body"]["event"]["command"]["type"] == "commit"),
    ) {
        let later = e["text"].as_str().unwrap();
        assert_eq!(t, later, "the answer's words and the log's, later");
        assert!(t.contains(": commit the ") && t.contains(" Good of Worth "), "{t}");
        assert!(!t.contains("place"), "{t}");
    }
}
