//! Play by email over a real SMTP listener: invitations, "your move" only to
//! those who must act, unsubscribe, and nothing lost while the mail server
//! or the process is down.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::{str_of, TestApp};
use crate::smtp::{Received, SmtpSink};

fn create_with_emails(app: &TestApp, n: usize) -> Value {
    let seats: Vec<Value> = (0..n)
        .map(|i| json!({"name": format!("Player {}", i + 1), "email": format!("p{}@example.org", i + 1)}))
        .collect();
    app.post("/api/v1/games", None, &json!({"ruleset": "duel", "options": {"rounds": 2}, "seats": seats})).ok().clone()
}

fn to(m: &Received) -> &str {
    m.to[0].as_str()
}

/// The seat token carried by a mail's magic link.
fn token_in(m: &Received) -> String {
    let text = m.text();
    let at = text.find("token=").unwrap_or_else(|| panic!("no link in:\n{text}"));
    text[at + 6..].split_whitespace().next().unwrap().to_owned()
}

#[test]
fn players_are_invited_and_told_when_and_only_when_it_is_their_move() {
    let sink = SmtpSink::start();
    let app = TestApp::spawn_with(TestApp::smtp_to(sink.port));
    let created = create_with_emails(&app, 3);
    let game = str_of(&created, "game_id").to_owned();

    // Invitations, each with the seat's magic link.
    let inv = sink.wait_for(3, 120);
    let mut tokens = vec![String::new(); 3];
    for m in &inv {
        assert!(m.header("Subject").unwrap().contains("Your seat"), "{:?}", m.header("Subject"));
        assert!(m.text().contains("bid secretly"), "the first prompt is in the invitation:\n{}", m.text());
        assert!(m.html().contains("<a href="));
        let i = to(m)[1..2].parse::<usize>().unwrap() - 1;
        tokens[i] = token_in(m);
    }
    assert_eq!(inv.iter().map(to).collect::<BTreeSet<_>>().len(), 3);
    assert!(inv[0].header("List-Unsubscribe").unwrap().contains("/mail/unsubscribe/"));
    assert_eq!(inv[0].header("List-Unsubscribe-Post").unwrap(), "List-Unsubscribe=One-Click");

    // The links work: each seat bids through the API with its mailed token.
    app.submit(&game, &tokens[0], json!({"type": "Bid", "amount": 6})).ok();
    app.submit(&game, &tokens[1], json!({"type": "Bid", "amount": 2})).ok();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(sink.received().len(), 3, "a bid makes nobody newly pending: no mail");
    app.submit(&game, &tokens[2], json!({"type": "Bid", "amount": 1})).ok();

    // Only the round's winner must act now, and only they are mailed.
    let all = sink.wait_for(4, 120);
    let m = &all[3];
    assert_eq!(to(m), "p1@example.org");
    let text = m.text();
    assert!(text.contains("claim the die"), "{text}");
    assert!(text.contains("Bids revealed"), "what happened, in words:\n{text}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(sink.received().len(), 4, "no mail to players with nothing to do");

    // The claim starts round two: everyone must bid again, everyone is mailed.
    app.submit(&game, &token_in(m), json!({"type": "Claim"})).ok();
    let all = sink.wait_for(7, 120);
    assert_eq!(all[4..].iter().map(to).collect::<BTreeSet<_>>().len(), 3);

    // Unsubscribe: a forged link is refused; the real one works (POST only).
    let p3 = all[4..].iter().find(|m| to(m) == "p3@example.org").unwrap();
    let unsub = p3.header("List-Unsubscribe").unwrap();
    let url = unsub.trim_matches(|c| c == '<' || c == '>');
    let path = &url[url.find("/mail/").unwrap()..];
    let form = [("Content-Type", "application/x-www-form-urlencoded")];
    let forged = format!("{}0000000000000000", &path[..path.len() - 16]);
    let r = app.raw("POST", &forged, None, Some(b"List-Unsubscribe=One-Click".to_vec()), &form);
    assert_eq!(r.status, 403, "{}", r.text);
    let page = app.get(path, None);
    assert_eq!(page.status, 200);
    assert!(page.text.contains("<form method=\"post\""), "the GET only shows a button");
    let r = app.raw("POST", path, None, Some(b"List-Unsubscribe=One-Click".to_vec()), &form);
    assert_eq!(r.status, 200, "{}", r.text);

    // Play the game out: player 1 wins the round and is told; the
    // unsubscribed player 3 gets no game-over mail.
    let t = |addr: &str| all[4..].iter().find(|m| to(m) == addr).map(token_in).unwrap();
    app.submit(&game, &t("p1@example.org"), json!({"type": "Bid", "amount": 2})).ok();
    app.submit(&game, &t("p2@example.org"), json!({"type": "Bid", "amount": 1})).ok();
    app.submit(&game, &t("p3@example.org"), json!({"type": "Bid", "amount": 1})).ok();
    let claimer_mail = sink.wait_for(8, 120).into_iter().last().unwrap();
    assert_eq!(to(&claimer_mail), "p1@example.org");
    app.submit(&game, &token_in(&claimer_mail), json!({"type": "Claim"})).ok();
    let all = sink.wait_for(10, 120);
    let over: Vec<&Received> = all.iter().filter(|m| m.header("Subject").unwrap().contains("is over")).collect();
    assert_eq!(over.len(), 2, "game over to the two still subscribed");
    assert!(over.iter().all(|m| to(m) != "p3@example.org"));
    assert!(over[0].text().contains("seed"), "{}", over[0].text());
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(sink.received().len(), 10);
}

#[test]
fn the_outbox_keeps_mail_while_smtp_is_down_and_delivers_each_once() {
    let mut sink = SmtpSink::start();
    sink.down();
    let app = TestApp::spawn_with(TestApp::smtp_to(sink.port));
    create_with_emails(&app, 3);
    create_with_emails(&app, 2);
    std::thread::sleep(Duration::from_millis(800));
    let metrics = app.get("/metrics", None).text;
    assert!(metrics.contains("runestone_outbox_depth 5"), "{metrics}");
    assert!(!metrics.contains("runestone_mail_failures_total 0\n"), "{metrics}");
    sink.up();
    let got = sink.wait_for(5, 120);
    std::thread::sleep(Duration::from_millis(1500));
    let got_after = sink.received();
    assert_eq!(got_after.len(), got.len(), "nothing sent twice");
    let ids: BTreeSet<String> = got_after.iter().map(|m| m.header("Message-ID").unwrap()).collect();
    assert_eq!(ids.len(), 5, "each message exactly once, by Message-ID");
    let metrics = app.get("/metrics", None).text;
    assert!(metrics.contains("runestone_outbox_depth 0"), "{metrics}");
    assert!(metrics.contains("runestone_mail_sent_total 5"), "{metrics}");
    assert!(metrics.contains("runestone_outbox_dead_letters 0"), "{metrics}");
}

#[test]
fn bad_addresses_and_time_zones_are_refused_and_nothing_is_stored() {
    let sink = SmtpSink::start();
    let app = TestApp::spawn_with(TestApp::smtp_to(sink.port));
    let game = |seats: Value| app.post("/api/v1/games", None, &json!({"ruleset": "duel", "seats": seats}));
    let d = game(json!([{"name": "A", "email": "a@example.org"}, {"name": "B", "email": "b@@example"}])).problem(422);
    assert!(d.contains("not an email address"), "{d}");
    let d = game(json!([{"name": "A", "email": "a@example.org", "tz": "Mars/Olympus"}, {"name": "B"}])).problem(422);
    assert!(d.contains("not a time zone"), "{d}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(sink.received().is_empty(), "no invitation went out for a game that was refused");
    let metrics = app.get("/metrics", None).text;
    assert!(metrics.contains("runestone_games_created_total 0"), "{metrics}");
    assert!(metrics.contains("runestone_outbox_depth 0"), "{metrics}");
}

#[test]
fn an_undeliverable_message_becomes_a_dead_letter_the_host_is_told_of_and_can_resend() {
    let sink = SmtpSink::start();
    sink.reject("bounce@example.org");
    let app = TestApp::spawn_with(|s| {
        TestApp::smtp_to(sink.port)(s);
        s.mail.max_attempts = 2;
    });
    let seats = json!([{"name": "Ása", "email": "asa@example.org"}, {"name": "Bjarni", "email": "bounce@example.org"}]);
    let created = app.post(
        "/api/v1/games",
        None,
        &json!({"ruleset": "duel", "seats": seats, "host": {"name": "Host", "email": "host@example.org"}}),
    );
    let created = created.ok().clone();
    let game = str_of(&created, "game_id").to_owned();
    let host = str_of(&created, "host_token").to_owned();
    // Ása's invitation, the host's own link and the host's alert.
    let got = sink.wait_for(3, 120);
    let alert = got
        .iter()
        .find(|m| m.to[0] == "host@example.org" && m.text().contains("could not be delivered"))
        .expect("the host is alerted");
    assert!(alert.text().contains("could not be delivered"), "{}", alert.text());
    let dead = app.get(&format!("/api/v1/games/{game}/dead-letters"), Some(&host));
    let list = dead.ok()["dead_letters"].as_array().unwrap().clone();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["to"], "bounce@example.org");
    assert!(list[0]["last_error"].as_str().unwrap().contains("550"), "{}", list[0]);
    let metrics = app.get("/metrics", None).text;
    assert!(metrics.contains("runestone_outbox_dead_letters 1"), "{metrics}");
    assert!(metrics.contains("runestone_mail_dead_letters_total 1"), "{metrics}");
    // Only the host sees or resends them.
    app.get(&format!("/api/v1/games/{game}/dead-letters"), Some(str_of(&created["seats"][0], "token"))).problem(403);
    let id = list[0]["id"].as_str().unwrap();
    app.post(&format!("/api/v1/games/{game}/dead-letters/{id}/retry"), Some(&host), &json!({})).ok();
    app.post(&format!("/api/v1/games/{game}/dead-letters/{id}/retry"), Some(&host), &json!({})).problem(404);
    // Still undeliverable: dead again, and the host told again.
    sink.wait_for(4, 120);
    assert_eq!(
        app.get(&format!("/api/v1/games/{game}/dead-letters"), Some(&host)).ok()["dead_letters"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_rolled_back_move_is_not_told_as_having_happened() {
    let sink = SmtpSink::start();
    let app = TestApp::spawn_with(TestApp::smtp_to(sink.port));
    let created = create_with_emails(&app, 3);
    let game = str_of(&created, "game_id").to_owned();
    let host = str_of(&created, "host_token").to_owned();
    let inv = sink.wait_for(3, 120);
    let token = |addr: &str| inv.iter().find(|m| to(m) == addr).map(token_in).unwrap();

    // Two bids stand; the third reveals the bids and asks player 1 to claim.
    app.submit(&game, &token("p1@example.org"), json!({"type": "Bid", "amount": 6})).ok();
    let before =
        app.submit(&game, &token("p2@example.org"), json!({"type": "Bid", "amount": 2})).ok()["head"].as_u64().unwrap();
    app.submit(&game, &token("p3@example.org"), json!({"type": "Bid", "amount": 1})).ok();
    let all = sink.wait_for(4, 120);
    assert!(all[3].text().contains("Bids revealed"), "{}", all[3].text());

    // The host rolls the third bid back: player 3 must bid again and is
    // told of the rollback and its reason; the voided reveal is struck
    // through with that reason, never told as having happened.
    app.post(
        &format!("/api/v1/games/{game}/rollback"),
        Some(&host),
        &json!({"to_seq": before, "reason": "player 3 mistyped"}),
    )
    .ok();
    let all = sink.wait_for(5, 120);
    let m = all.iter().skip(4).find(|m| to(m) == "p3@example.org").expect("player 3 is asked to bid again");
    let text = m.text();
    assert!(text.contains("player 3 mistyped"), "the rollback and its reason:\n{text}");
    let told: Vec<&str> = text.lines().filter(|l| l.contains("Bids revealed")).collect();
    assert_eq!(told.len(), 1, "the voided reveal, once:\n{text}");
    assert!(
        told[0].starts_with("  - [did not stand; the host rolled it back: player 3 mistyped] Bids revealed"),
        "a voided event is told as voided, with the reason:\n{text}"
    );
    assert!(text.contains("round 1 of 2, Bidding"), "where the game stands:\n{text}");
    assert!(text.contains("Standings (Points)") && text.contains("Player 3: 0 — you"), "the standings:\n{text}");
    assert!(m.html().contains("player 3 mistyped"));
    let html = m.html();
    assert!(!html.contains("<li>Bids revealed"), "never as having happened:\n{html}");
    assert!(
        html.contains("<li><del>Bids revealed: [6, 2, 1]</del> <em>(did not stand; the host rolled it back: player 3 mistyped)</em></li>"),
        "struck through with the reason:\n{html}"
    );
}

#[test]
fn a_bardagi_invitation_names_the_game_the_host_the_clan_colour_and_links_how_to_play() {
    let sink = SmtpSink::start();
    let app = TestApp::spawn_with(TestApp::smtp_to(sink.port));
    let seats = json!([{"name": "Ása", "email": "asa@example.org"}, {"name": "Bjarni", "email": "bjarni@example.org"}]);
    let host = json!({"name": "Gudrun", "email": "gudrun@example.org"});
    app.post("/api/v1/games", None, &json!({"ruleset": "bardagi", "options": {}, "seats": seats, "host": host})).ok();
    // Ása's invitation, whichever of the game's first mails (Bjarni's, the
    // host's) the outbox sends before it.
    let m = sink.wait_to("asa@example.org", 120);
    let text = m.text();
    assert!(text.contains("a game of Bardagi - the claim for gold hosted by Gudrun with Bjarni"), "{text}");
    assert!(text.contains("You play "), "the clan's colour:\n{text}");
    assert!(text.contains("/rules/bardagi"), "the how-to-play link:\n{text}");
    assert!(m.html().contains("bardagi\">How to play it here</a>"), "{}", m.html());
    let page = app.get("/rules/bardagi", None);
    assert_eq!(page.status, 200);
    assert!(page.text.contains("How to play Bardagi here") && page.text.contains("A round"), "{}", page.text);
    let page = app.get("/rules/thingvellir", None);
    assert_eq!(page.status, 200);
    assert!(page.text.contains("22 Wordfame") && page.text.contains("The Law Council"), "{}", page.text);
    let page = app.get("/rules/fallen-kingdoms", None);
    assert_eq!(page.status, 200);
    assert!(page.text.contains("invasion phase") && page.text.contains("trophies"), "{}", page.text);
    let page = app.get("/rules/realms", None);
    assert_eq!(page.status, 200);
    assert!(page.text.contains("10 victory points") && page.text.contains("season"), "{}", page.text);
    let none = app.get("/rules/chess", None);
    assert_eq!(none.status, 404);
    assert!(none.text.contains("there is no how-to-play page for &quot;chess&quot;"), "{}", none.text);
}

#[test]
fn a_capture_of_a_players_area_is_in_their_next_mail_however_many_events_came_after() {
    let sink = SmtpSink::start();
    let app = TestApp::spawn_with(TestApp::smtp_to(sink.port));
    let names = ["Ása", "Bjarni", "Dís"];
    // Random bots' games: play until one has a capture followed by more than
    // 40 events before its victim's next mail (at most four games); every
    // capture of every game played is checked.
    let (mut long, mut far) = (0, 0);
    for g in 0..4 {
        let seats: Vec<Value> = names
            .iter()
            .enumerate()
            .map(|(i, n)| json!({"name": n, "email": format!("p{}-g{g}@example.org", i + 1)}))
            .collect();
        let created = app.post("/api/v1/games", None, &json!({"ruleset": "bardagi", "seats": seats})).ok().clone();
        let game = str_of(&created, "game_id").to_owned();
        let tokens = crate::helpers::seat_tokens(&created);
        crate::helpers::play_to_the_end(&app, &game, &tokens, 5_000, &[409, 422], |_, v| v["legal"][0].clone(), || {});

        // Every capture of one clan's area by another, as the log tells it.
        let events = app.get(&format!("/api/v1/games/{game}/events"), None).ok()["events"].as_array().unwrap().clone();
        let over = events.len();
        let captures: Vec<(u64, String, usize)> = events
            .iter()
            .filter(|e| e["in_force"] != false)
            .filter_map(|e| {
                let text = e["text"].as_str()?;
                let victim = names.iter().position(|n| text.contains(&format!(" from {n}, leaving")))?;
                Some((e["seq"].as_u64()?, text.to_owned(), victim))
            })
            .collect();
        assert!(!captures.is_empty(), "the bots' game has a capture between clans ({over} events)");
        // Every seat is mailed when a round begins (each clan plans): a capture
        // before the last round began is in its victim's next mail, however
        // many events came between.
        let round_starts: Vec<u64> = events
            .iter()
            .filter(|e| e["text"].as_str().is_some_and(|t| t.starts_with("Round ") && t.contains(" begins;")))
            .filter_map(|e| e["seq"].as_u64())
            .collect();
        for (seq, line, victim) in &captures {
            let Some(next_round) = round_starts.iter().find(|&&r| r > *seq) else { continue };
            far += usize::from(next_round - seq > 40);
            let addr = format!("p{}-g{g}@example.org", victim + 1);
            // The outbox worker sends in the background: wait for the mail (a
            // condition with a generous bound, never a time).
            let t = std::time::Instant::now();
            let mails = loop {
                let mails = sink.received();
                if mails.iter().any(|m| to(m) == addr && m.text().contains(line.as_str()))
                    || t.elapsed() > std::time::Duration::from_secs(120)
                {
                    break mails;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            };
            let told: Vec<&Received> =
                mails.iter().filter(|m| to(m) == addr && m.text().contains(line.as_str())).collect();
            assert!(!told.is_empty(), "{line:?} (event {seq}, next round at {next_round}) is in a mail to {addr}");
            long += told.iter().filter(|m| m.text().contains("more events")).count();
        }
        if far > 0 && long > 0 {
            break;
        }
    }
    assert!(far > 0, "some capture was followed by more than 40 events before its victim's next mail");
    assert!(long > 0, "some capture was told in a recap that had to shorten itself past 40 lines");
}
