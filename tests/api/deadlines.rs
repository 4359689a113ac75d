//! Deadlines on a manual clock: a week of play passes in moments.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Duration as Hours;
use runestone::clock::ManualClock;
use serde_json::{json, Value};

use crate::helpers::{settings, str_of, TestApp};
use crate::smtp::SmtpSink;

fn policy() -> Value {
    json!({"plan_hours": 24, "turn_hours": 24, "small_hours": 12, "reminders_hours": [2],
           "grace_hours": 6, "substitute_after": 2, "forfeit_after": 3})
}

fn app_with_clock(sink: &SmtpSink) -> (TestApp, Arc<ManualClock>, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = settings(tmp.path());
    TestApp::smtp_to(sink.port)(&mut s);
    let clock = Arc::new(ManualClock::new("2026-03-02T09:00:00Z".parse().unwrap()));
    (TestApp::start_with_clock(s, clock.clone()), clock, tmp)
}

fn subjects(sink: &SmtpSink) -> Vec<String> {
    sink.received().iter().map(|m| m.header("Subject").unwrap_or_default()).collect()
}

#[test]
fn a_game_between_absent_players_finishes_by_deadlines_alone() {
    let sink = SmtpSink::start();
    let (app, clock, _tmp) = app_with_clock(&sink);
    let seats = json!([{"name": "Ása", "email": "asa@example.org", "tz": "Atlantic/Reykjavik"},
                       {"name": "Bjarni", "email": "bjarni@example.org", "tz": "Europe/Oslo"}]);
    let created = app.post(
        "/api/v1/games",
        None,
        &json!({"ruleset": "duel", "options": {"rounds": 3}, "seats": seats,
        "host": {"name": "Host", "email": "host@example.org"}, "deadlines": policy()}),
    );
    let game = str_of(created.ok(), "game_id").to_owned();
    // The two invitations and the host's own link.
    let inv = sink.wait_for(3, 120);
    let asa = inv.iter().find(|m| m.to[0] == "asa@example.org").unwrap().text();
    assert!(asa.contains("by Tue 3 Mar"), "the deadline in the invitation:\n{asa}");
    let host = inv.iter().find(|m| m.to[0] == "host@example.org").expect("the host's link is mailed");
    assert!(host.text().contains(&format!("/play/{game}?token=")), "{}", host.text());
    let oslo = inv.iter().find(|m| m.to[0] == "bjarni@example.org").unwrap().text();
    assert!(oslo.contains("10:00 CET"), "Bjarni's time zone:\n{oslo}");
    assert!(
        oslo.contains("after 2 missed deadlines in a row the bot plays for you until you say you are back"),
        "the ladder in words:\n{oslo}"
    );

    // Nobody plays: the clock alone moves the game to its end.
    let t0 = Instant::now();
    let mut hours = 0;
    while app.get(&format!("/api/v1/games/{game}"), None).json["status"] != "over" {
        assert!(hours < 1000 && t0.elapsed() < Duration::from_secs(240), "no end after {hours} hours");
        clock.advance(Hours::hours(1));
        hours += 1;
        std::thread::sleep(Duration::from_millis(40));
    }
    let subj = subjects(&sink);
    assert!(subj.iter().any(|s| s.starts_with("Reminder")), "{subj:#?}");
    assert!(subj.iter().any(|s| s.contains("one extension")), "{subj:#?}");
    assert!(subj.iter().any(|s| s.contains("needs a look")), "the host is alerted: {subj:#?}");
    assert!(subj.iter().any(|s| s.contains("the bot plays for you until you are back")), "{subj:#?}");
    let t1 = Instant::now();
    while !subjects(&sink).iter().any(|s| s.contains("is over")) {
        assert!(t1.elapsed() < Duration::from_secs(120), "{:#?}", subjects(&sink));
        std::thread::sleep(Duration::from_millis(20));
    }
    let events = app.get(&format!("/api/v1/games/{game}/events"), None);
    let texts: Vec<String> =
        events.ok()["events"].as_array().unwrap().iter().map(|e| e["text"].as_str().unwrap().to_owned()).collect();
    assert!(texts.iter().any(|t| t.contains("missed the deadline")), "{texts:#?}");
    assert!(texts.iter().any(|t| t.contains("timed out")), "{texts:#?}");
    assert!(texts.iter().any(|t| t.contains("forfeits")), "{texts:#?}");
    assert_eq!(app.get(&format!("/api/v1/games/{game}/verify"), None).ok()["ok"], true);
}

/// Two reminders of one deadline (12 and 2 hours before it) are two
/// messages: each has a Message-ID of its own, or a mail service that drops
/// repeated ids hides the second.
#[test]
fn each_reminder_of_one_deadline_has_its_own_message_id() {
    let sink = SmtpSink::start();
    let (app, clock, _tmp) = app_with_clock(&sink);
    let seats = json!([{"name": "Ása", "email": "asa@example.org"}, {"name": "Bjarni", "email": "bjarni@example.org"}]);
    let mut policy = policy();
    policy["reminders_hours"] = json!([12, 2]);
    app.post("/api/v1/games", None, &json!({"ruleset": "duel", "seats": seats, "deadlines": policy})).ok();
    sink.wait_for(2, 120);
    let reminders = |sink: &SmtpSink| -> Vec<(String, String)> {
        sink.received()
            .iter()
            .filter(|m| m.header("Subject").unwrap_or_default().starts_with("Reminder"))
            .map(|m| (m.to[0].clone(), m.header("Message-ID").expect("a Message-ID")))
            .collect()
    };
    // The deadline is 24 hours after the start: the first reminder is due
    // 12 hours before it, the second 2 hours before it.
    for (hours, expected) in [(13, 2), (10, 4)] {
        clock.advance(Hours::hours(hours));
        let t = Instant::now();
        while reminders(&sink).len() < expected {
            assert!(t.elapsed() < Duration::from_secs(120), "{:#?}", subjects(&sink));
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let got = reminders(&sink);
    assert_eq!(got.len(), 4, "two reminders to each of two seats: {got:#?}");
    let ids: std::collections::BTreeSet<&String> = got.iter().map(|(_, id)| id).collect();
    assert_eq!(ids.len(), 4, "four reminders, four Message-IDs: {got:#?}");
}

#[test]
fn the_host_pauses_extends_and_seats_a_substitute_and_a_seat_takes_a_vacation() {
    let sink = SmtpSink::start();
    let (app, clock, _tmp) = app_with_clock(&sink);
    let seats = json!([{"name": "Ása", "email": "asa@example.org"}, {"name": "Bjarni", "email": "bjarni@example.org"}]);
    let created = app
        .post("/api/v1/games", None, &json!({"ruleset": "duel", "seats": seats, "deadlines": policy()}))
        .ok()
        .clone();
    let game = str_of(&created, "game_id").to_owned();
    let host = str_of(&created, "host_token").to_owned();
    let seat0 = str_of(&created["seats"][0], "token").to_owned();
    let path = format!("/api/v1/games/{game}/clock");
    let due = |app: &TestApp| app.get(&format!("/api/v1/games/{game}"), None).json["deadlines"]["due"].clone();
    assert_eq!(due(&app).as_array().unwrap().len(), 2);
    assert!(due(&app).to_string().contains("2026-03-03T09:00:00"), "{}", due(&app));

    // Bad times and actions are refused.
    let d = app
        .post(&path, Some(&host), &json!({"action": "extend", "until": "2026-03-01T00:00:00Z", "reason": "x"}))
        .problem(422);
    assert!(d.contains("in the past"), "{d}");
    let d = app
        .post(&path, Some(&seat0), &json!({"action": "vacation", "seat": 0, "until": "2020-01-01T00:00:00Z"}))
        .problem(422);
    assert!(d.contains("in the past"), "{d}");
    app.post(&path, Some(&seat0), &json!({"action": "vacation", "seat": 1, "until": "2026-03-05T00:00:00Z"}))
        .problem(403);
    app.post(&path, Some(&seat0), &json!({"action": "pause", "reason": "mine"})).problem(403);
    let d = app.post(&path, Some(&host), &json!({"action": "resume"})).problem(422);
    assert!(d.contains("not paused"), "{d}");
    let d = app
        .post(
            &path,
            Some(&host),
            &json!({"action": "set_policy", "policy": {"plan_hours": -1, "turn_hours": 1, "small_hours": 1}}),
        )
        .problem(422);
    assert!(d.contains("plan_hours"), "{d}");

    // Extend everyone by 10 hours.
    app.post(&path, Some(&host), &json!({"action": "extend", "hours": 10, "reason": "holiday"})).ok();
    assert!(due(&app).to_string().contains("2026-03-03T19:00:00"), "{}", due(&app));
    // A vacation stops seat 0's clock until it ends.
    app.post(&path, Some(&seat0), &json!({"action": "vacation", "seat": 0, "until": "2026-03-04T09:00:00Z"})).ok();
    assert!(due(&app).to_string().contains("2026-03-05T19:00:00"), "{}", due(&app));
    // Pause: no deadline runs; resume gives back what was left.
    app.post(&path, Some(&host), &json!({"action": "pause", "reason": "dispute"})).ok();
    assert_eq!(due(&app), json!([]));
    clock.advance(Hours::days(20));
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !app.get(&format!("/api/v1/games/{game}/events"), None).text.contains("TimedOut"),
        "nothing times out while paused"
    );
    app.post(&path, Some(&host), &json!({"action": "resume"})).ok();
    assert!(due(&app).to_string().contains("2026-03-23T19:00:00"), "{}", due(&app));

    // A substitute takes seat 1: the old link is revoked, the new player invited.
    let before = sink.received().len();
    let sub = app.post(
        &format!("/api/v1/games/{game}/seats/1/substitute"),
        Some(&host),
        &json!({"name": "Dís", "email": "dis@example.org"}),
    );
    let new_token = str_of(sub.ok(), "token").to_owned();
    let old = str_of(&created["seats"][1], "token");
    app.submit(&game, old, json!({"type": "Bid", "amount": 1})).problem(401);
    app.submit(&game, &new_token, json!({"type": "Bid", "amount": 1})).ok();
    let got = sink.wait_for(before + 1, 30);
    assert!(got.iter().any(|m| m.to[0] == "dis@example.org"), "the substitute is invited");
    let summary = app.get(&format!("/api/v1/games/{game}"), None);
    assert_eq!(summary.ok()["seats"][1]["name"], "Dís");
}

#[test]
fn a_digest_player_gets_one_mail_a_day_at_eight_local_time() {
    let sink = SmtpSink::start();
    let (app, clock, _tmp) = app_with_clock(&sink);
    let seats = json!([{"name": "Ása", "email": "asa@example.org", "tz": "Europe/Oslo", "digest": true},
                       {"name": "Bjarni", "email": "bjarni@example.org"}]);
    let created = app.post("/api/v1/games", None, &json!({"ruleset": "duel", "seats": seats})).ok().clone();
    let game = str_of(&created, "game_id").to_owned();
    let asa = str_of(&created["seats"][0], "token").to_owned();
    let bjarni = str_of(&created["seats"][1], "token").to_owned();
    sink.wait_for(2, 120);
    app.submit(&game, &asa, json!({"type": "Bid", "amount": 5})).ok();
    app.submit(&game, &bjarni, json!({"type": "Bid", "amount": 1})).ok();
    app.submit(&game, &asa, json!({"type": "Claim"})).ok();
    // Round two: Bjarni is told at once; Ása's news waits for her digest.
    let got = sink.wait_for(3, 120);
    assert_eq!(got[2].to[0], "bjarni@example.org");
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(sink.received().len(), 3, "no immediate mail to a digest player");
    // 08:00 in Oslo is 07:00 UTC.
    clock.advance(Hours::hours(21) + Hours::minutes(59));
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(sink.received().len(), 3, "not before 08:00 local time");
    clock.advance(Hours::minutes(1));
    let got = sink.wait_for(4, 120);
    let digest = &got[3];
    assert_eq!(digest.to[0], "asa@example.org");
    assert!(digest.header("Subject").unwrap().starts_with("Daily digest"));
    let text = digest.text();
    assert!(text.contains("claim the die") || text.contains("bid secretly"), "{text}");
    assert!(text.contains("Round 2 begins"), "the whole day in words:\n{text}");
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(sink.received().len(), 4, "one digest, not one per move");
}

/// A seat that misses a deadline is played by the bot (the policy's
/// `bot_after` is 1 here); its page says so, tells the ladder in words,
/// and its "I'm back" button gives the seat back to its player.
#[test]
fn a_player_the_bot_plays_is_told_so_on_their_page_and_comes_back_by_its_button() {
    let sink = SmtpSink::start();
    let (app, clock, _tmp) = app_with_clock(&sink);
    let seats = json!([{"name": "Ása", "email": "asa@example.org"}, {"name": "Bjarni", "email": "bjarni@example.org"}]);
    let policy = json!({"plan_hours": 24, "turn_hours": 24, "small_hours": 12, "grace_hours": 0,
                        "bot_after": 1, "substitute_after": 2});
    let created = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "duel", "options": {"rounds": 5}, "seats": seats, "deadlines": policy}),
        )
        .ok()
        .clone();
    let game = str_of(&created, "game_id").to_owned();
    let tokens = crate::helpers::seat_tokens(&created);
    let summary = |app: &TestApp| app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
    // Ása answers whatever is asked of her; Bjarni never does, and the
    // clock passes his deadline.
    let t = Instant::now();
    while summary(&app)["deadlines"]["bot_plays"][1] != true {
        assert!(t.elapsed() < Duration::from_secs(120), "the bot never took Bjarni's seat: {}", summary(&app));
        let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[0])).ok().clone();
        let owed = view["pending"].as_array().unwrap().iter().any(|p| p["seat"] == 0 && p["submitted"] == false);
        if let Some(cmd) = view["legal"].as_array().and_then(|l| l.first()).cloned().filter(|_| owed) {
            app.submit_at(&game, &tokens[0], cmd, view["head"].as_u64()).ok();
            continue;
        }
        clock.advance(Hours::hours(13));
        std::thread::sleep(Duration::from_millis(40));
    }
    let ladder = summary(&app)["deadlines"]["ladder"].as_str().unwrap().to_owned();
    assert!(ladder.contains("after 1 missed deadline the bot plays for you"), "{ladder}");

    let mut b = crate::browser::Browser::new(&app);
    b.sign_in(&game, &tokens[1]);
    let page = b.get(&format!("/games/{game}"));
    assert!(page.html.contains("id=\"bot-plays\"") && page.html.contains("id=\"back\""), "{}", page.html);
    assert!(page.html.contains(&ladder), "the ladder in words on the page");
    let csrf = b.csrf();
    let back = b.post(&format!("/games/{game}/back"), &[("csrf", &csrf)]);
    assert!(!back.html.contains("id=\"bot-plays\""), "{}", back.html);
    assert_eq!(summary(&app)["deadlines"]["bot_plays"][1], false);
    let events = app.get(&format!("/api/v1/games/{game}/events"), None).ok().to_string();
    assert!(events.contains("Bjarni is back and plays their seat again"), "{events}");
    // Said twice, it is refused in words.
    let again = app
        .post(&format!("/api/v1/games/{game}/clock"), Some(&tokens[1]), &json!({"action": "back", "seat": 1}))
        .problem(422);
    assert!(again.contains("plays it already"), "{again}");
}

/// A seat that missed its deadline is marked late on the host page, by how
/// long and that it is in its grace time; the clocks are told in words.
#[test]
fn the_host_page_says_who_is_late_and_by_how_much_in_words() {
    let sink = SmtpSink::start();
    let (app, clock, _tmp) = app_with_clock(&sink);
    let seats = json!([{"name": "Ása", "email": "asa@example.org"}, {"name": "Bjarni", "email": "bjarni@example.org"}]);
    let created = app
        .post("/api/v1/games", None, &json!({"ruleset": "duel", "seats": seats, "deadlines": policy()}))
        .ok()
        .clone();
    let game = str_of(&created, "game_id").to_owned();
    let host = str_of(&created, "host_token").to_owned();
    let seat0 = str_of(&created["seats"][0], "token").to_owned();
    // Ása bids; Bjarni lets his deadline (24 hours) pass and is given his
    // grace (6 hours, from when it is found missed: an hour late here).
    app.submit(&game, &seat0, json!({"type": "Bid", "amount": 2})).ok();
    clock.advance(Hours::hours(25));
    let t = Instant::now();
    while !app.get(&format!("/api/v1/games/{game}/events"), None).text.contains("GraceGranted") {
        assert!(t.elapsed() < Duration::from_secs(120), "no grace was granted");
        std::thread::sleep(Duration::from_millis(20));
    }
    clock.advance(Hours::hours(1) + Hours::minutes(10));
    let mut b = crate::browser::Browser::new(&app);
    b.sign_in(&game, &host);
    let page = b.get(&format!("/host/{game}"));
    assert_eq!(page.status, 200, "{}", page.html);
    let late = page.html.split("id=\"late-1\">").nth(1).map(|s| s.split('<').next().unwrap()).unwrap_or_default();
    assert_eq!(late, "late by 1 hour 10 minutes (missed the deadline; in the grace time)", "{}", page.html);
    assert!(!page.html.contains("id=\"late-0\""), "Ása is not late");
    let words = page.html.split("id=\"policy-words\">").nth(1).unwrap().split('<').next().unwrap();
    assert!(words.starts_with("A secret plan may take 24 hours, a turn 24 hours"), "{words}");
    assert!(!page.html.contains("plan_hours"), "no raw JSON on the host page");
    let due = page.html.split("id=\"due-list\">").nth(1).unwrap().split("</ul>").next().unwrap();
    assert!(due.contains("<strong>Bjarni</strong>'s bid: due"), "{due}");
    assert!(due.contains("late by 1 hour 10 minutes"), "{due}");
}
