//! Press: messages between the seats of a game. Every output (view, past
//! views, the log, the stream, the pages, the mail) shows a message only to
//! its channel, its writer and, for the table's channel, the host and the
//! referee while the game runs, and after the end what the game's option
//! says; rollback keeps messages; the limits answer in words.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};

use serde_json::{json, Value};

use crate::browser::Browser;
use crate::helpers::{agent, play_to_the_end, seat_tokens, str_of, TestApp};

/// Who reads: a seat, the host, the referee or the public.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Who {
    Seat(usize),
    Host,
    Referee,
    Public,
}

const EVERYONE: [Who; 7] =
    [Who::Seat(0), Who::Seat(1), Who::Seat(2), Who::Seat(3), Who::Host, Who::Referee, Who::Public];

/// A message of the test: its marker text, who wrote it, to whom.
struct Sent {
    mark: &'static str,
    from: Who,
    to: Option<Vec<u8>>,
}

fn sent() -> Vec<Sent> {
    vec![
        Sent { mark: "MARKALL-table-talk", from: Who::Seat(0), to: None },
        Sent { mark: "MARKTWO-zero-one", from: Who::Seat(0), to: Some(vec![1]) },
        Sent { mark: "MARKTHREE-one-two-three", from: Who::Seat(1), to: Some(vec![2, 3]) },
        Sent { mark: "MARKHOST-host-to-two", from: Who::Host, to: Some(vec![2]) },
    ]
}

/// Whether `who` may read `m` while the game runs.
fn reads_running(who: Who, m: &Sent) -> bool {
    match (&m.to, who) {
        (_, w) if w == m.from => true,
        (None, Who::Public) => false,
        (None, _) => true,
        (Some(seats), Who::Seat(s)) => seats.contains(&(s as u8)),
        _ => false,
    }
}

/// Whether `who` may read `m` once the game is over, under `after_end`.
fn reads_after(who: Who, m: &Sent, after_end: &str) -> bool {
    match after_end {
        "public" => true,
        "players" => who != Who::Public,
        _ => reads_running(who, m),
    }
}

struct Game {
    id: String,
    seats: Vec<String>,
    host: String,
    referee: String,
}

impl Game {
    fn token(&self, who: Who) -> Option<&str> {
        match who {
            Who::Seat(s) => Some(&self.seats[s]),
            Who::Host => Some(&self.host),
            Who::Referee => Some(&self.referee),
            Who::Public => None,
        }
    }
}

fn new_game(app: &TestApp, ruleset: &str, seats: usize, options: Value, press: Value) -> Game {
    let seat_list: Vec<Value> = (0..seats).map(|i| json!({"name": format!("Player {}", i + 1)})).collect();
    let created = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": ruleset, "options": options, "seats": seat_list, "press": press}),
        )
        .ok()
        .clone();
    Game {
        id: str_of(&created, "game_id").to_owned(),
        seats: seat_tokens(&created),
        host: str_of(&created, "host_token").to_owned(),
        referee: str_of(&created, "referee_token").to_owned(),
    }
}

fn post_message(app: &TestApp, g: &Game, who: Who, to: Option<&[u8]>, text: &str) -> crate::helpers::Reply {
    let mut body = json!({ "text": text });
    if let Some(to) = to {
        body["to"] = json!(to);
    }
    app.post(&format!("/api/v1/games/{}/messages", g.id), g.token(who), &body)
}

fn head(app: &TestApp, game: &str) -> u64 {
    app.get(&format!("/api/v1/games/{game}"), None).ok()["head"].as_u64().unwrap()
}

/// The raw text of the stream from event 0: until the event frame of
/// `until` (a game running), or to its end (a game over).
fn stream_text(app: &TestApp, game: &str, token: Option<&str>, until: Option<u64>) -> String {
    let mut req = agent().get(&format!("{}/api/v1/games/{game}/stream?from=0", app.base));
    if let Some(t) = token {
        req = req.header("Authorization", &format!("Bearer {t}"));
    }
    let mut resp = req.call().expect("the stream opens");
    assert_eq!(resp.status().as_u16(), 200);
    let mut out = String::new();
    let last = until.map(|s| format!("id: {s}"));
    let mut at_last = false;
    for line in BufReader::new(resp.body_mut().as_reader()).lines() {
        let line = line.expect("a stream line");
        out.push_str(&line);
        out.push('\n');
        if at_last && line.starts_with("data: ") {
            // The last event's frame: its data line follows its id.
            break;
        }
        at_last |= last.as_deref() == Some(line.as_str());
    }
    out
}

/// Every output of the game `who` gets, by name.
fn outputs(
    app: &TestApp,
    g: &Game,
    who: Who,
    pages: Option<&mut Browser>,
    running_head: Option<u64>,
) -> BTreeMap<String, String> {
    let t = g.token(who);
    let id = &g.id;
    let h = head(app, id);
    let mut out = BTreeMap::new();
    out.insert("view".into(), app.get(&format!("/api/v1/games/{id}/view"), t).ok().to_string());
    out.insert("view?at".into(), app.get(&format!("/api/v1/games/{id}/view?at={}", h - 1), t).ok().to_string());
    out.insert("events".into(), app.get(&format!("/api/v1/games/{id}/events"), t).ok().to_string());
    out.insert("messages".into(), app.get(&format!("/api/v1/games/{id}/messages"), t).ok().to_string());
    out.insert("summary".into(), app.get(&format!("/api/v1/games/{id}"), t).ok().to_string());
    out.insert("stream".into(), stream_text(app, id, t, running_head));
    if let Some(b) = pages.filter(|_| who != Who::Referee) {
        let page = match who {
            Who::Host => format!("/host/{id}"),
            _ => format!("/games/{id}"),
        };
        let p = b.get(&page);
        assert_eq!(p.status, 200, "{who:?}: {}", p.html);
        out.insert("page".into(), p.html);
        if who != Who::Host {
            let p = b.get(&format!("/games/{id}/data"));
            out.insert("data page".into(), p.html);
        }
    }
    out
}

/// The markers in outputs whose readers may not read them.
fn leaks_in(all: &BTreeMap<Who, BTreeMap<String, String>>, reads: impl Fn(Who, &Sent) -> bool) -> Vec<String> {
    let mut found = Vec::new();
    for (who, outs) in all {
        for m in sent() {
            for (name, text) in outs {
                if text.contains(m.mark) && !reads(*who, &m) {
                    found.push(format!("{who:?} reads {} in its {name}", m.mark));
                }
            }
        }
    }
    found
}

/// Checks every output against `reads`: a marker in an output its reader
/// may not read is a leak; the conversation (`messages`, and for a seat
/// its view too) holds every marker its reader may read. Returns the leaks.
fn leaks(all: &BTreeMap<Who, BTreeMap<String, String>>, reads: impl Fn(Who, &Sent) -> bool) -> Vec<String> {
    let mut found = Vec::new();
    for (who, outs) in all {
        for m in sent() {
            let may = reads(*who, &m);
            for (name, text) in outs {
                if text.contains(m.mark) && !may {
                    found.push(format!("{who:?} reads {} in its {name}", m.mark));
                }
            }
            if may {
                assert!(outs["messages"].contains(m.mark), "{who:?} misses {} in its messages", m.mark);
                if matches!(who, Who::Seat(_)) {
                    for name in ["view", "events", "stream"] {
                        assert!(outs[name].contains(m.mark), "{who:?} misses {} in its {name}", m.mark);
                    }
                }
            }
        }
    }
    found
}

fn signed_in<'a>(app: &'a TestApp, g: &Game, who: Who) -> Browser<'a> {
    let mut b = Browser::new(app);
    match who {
        Who::Seat(s) => {
            b.sign_in(&g.id, &g.seats[s]);
        }
        Who::Host => {
            b.sign_in(&g.id, &g.host);
        }
        _ => {}
    }
    b
}

#[test]
fn four_seats_talk_in_public_two_and_three_seat_channels_and_nothing_leaks_in_any_output() {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use runestone::clock::ManualClock;

    use crate::smtp::SmtpSink;
    let sink = SmtpSink::start();
    let tmp = tempfile::tempdir().unwrap();
    let mut settings = crate::helpers::settings(tmp.path());
    TestApp::smtp_to(sink.port)(&mut settings);
    let clock = Arc::new(ManualClock::new("2026-03-02T09:00:00Z".parse().unwrap()));
    let app = TestApp::start_with_clock(settings, clock.clone());
    // Every mail due is sent: the clock past the quiet spell, the outbox empty.
    let flush = || {
        clock.advance(chrono::Duration::minutes(61));
        let t = Instant::now();
        while outbox_depth(&app) > 0 {
            assert!(t.elapsed() < Duration::from_secs(120), "the outbox does not empty");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    // Each seat's mail from the `from`th received on, split into those of
    // the game running and its end.
    let mails_of = |from: usize, seat: usize, over: bool| -> String {
        sink.received()[from..]
            .iter()
            .filter(|m| m.to[0] == format!("seat{seat}@example.org"))
            .filter(|m| m.header("Subject").unwrap_or_default().contains("is over") == over)
            .map(|m| format!("{}\n{}\n{}", m.header("Subject").unwrap_or_default(), m.text(), m.html()))
            .collect()
    };
    for after_end in ["private", "players", "public"] {
        let first_mail = sink.received().len();
        let seat_list: Vec<Value> = (0..4)
            .map(|i| json!({"name": format!("Player {}", i + 1), "email": format!("seat{i}@example.org")}))
            .collect();
        let created = app
            .post(
                "/api/v1/games",
                None,
                &json!({"ruleset": "duel", "options": {"rounds": 1}, "seats": seat_list, "press": {"after_end": after_end}}),
            )
            .ok()
            .clone();
        let g = Game {
            id: str_of(&created, "game_id").to_owned(),
            seats: seat_tokens(&created),
            host: str_of(&created, "host_token").to_owned(),
            referee: str_of(&created, "referee_token").to_owned(),
        };

        for m in sent() {
            let r = post_message(&app, &g, m.from, m.to.as_deref(), m.mark);
            assert_eq!(r.status, 201, "{}", r.text);
            assert_eq!(r.json["text"], m.mark);
        }
        // A public event last, so a running stream's last frame is known.
        app.post(
            &format!("/api/v1/games/{}/clock", g.id),
            Some(&g.host),
            &json!({"action": "pause", "reason": "lunch"}),
        )
        .ok();
        let running = head(&app, &g.id);
        let mut all = BTreeMap::new();
        for who in EVERYONE {
            let mut b = signed_in(&app, &g, who);
            all.insert(who, outputs(&app, &g, who, Some(&mut b), Some(running)));
        }
        flush();
        for s in 0..4 {
            let mails = mails_of(first_mail, s, false);
            assert!(mails.contains("Your seat"), "seat {s} was mailed its invitation");
            all.get_mut(&Who::Seat(s)).unwrap().insert("mails".into(), mails);
        }
        // The mail of messages reached each seat that read one it did not write.
        assert!(sink.received()[first_mail..].iter().any(|m| m.header("Subject").unwrap().contains("new message")));
        let found = leaks(&all, reads_running);
        assert!(found.is_empty(), "while the game runs ({after_end}): {found:#?}");

        // The log's public part names neither writer nor channel.
        let public_events = &all[&Who::Public]["events"];
        assert!(!public_events.contains("\"seats\":[0,1]"), "{public_events}");

        app.post(&format!("/api/v1/games/{}/clock", g.id), Some(&g.host), &json!({"action": "resume"})).ok();
        play_to_the_end(&app, &g.id, &g.seats, 200, &[409, 422], |_, v| v["legal"][0].clone(), || {});
        let mut all = BTreeMap::new();
        for who in EVERYONE {
            let mut b = signed_in(&app, &g, who);
            all.insert(who, outputs(&app, &g, who, Some(&mut b), None));
        }
        flush();
        let mut running = BTreeMap::new();
        for s in 0..4 {
            // Mails written while the game ran (moves), and the end's.
            running.insert(Who::Seat(s), BTreeMap::from([("mails".to_owned(), mails_of(first_mail, s, false))]));
            all.get_mut(&Who::Seat(s)).unwrap().insert("end mail".into(), mails_of(first_mail, s, true));
        }
        let found = leaks_in(&running, reads_running);
        assert!(found.is_empty(), "mails while the game ran ({after_end}): {found:#?}");
        let found = leaks(&all, |w, m| reads_after(w, m, after_end));
        assert!(found.is_empty(), "after the end ({after_end}): {found:#?}");
        // Exactly what the option says: every reader it names reads them all.
        for who in EVERYONE {
            for m in sent() {
                if reads_after(who, &m, after_end) {
                    assert!(all[&who]["messages"].contains(m.mark), "{after_end}: {who:?} misses {}", m.mark);
                }
            }
        }
    }
}

#[test]
fn a_rollback_keeps_every_message_and_a_view_before_one_shows_the_thread_without_it() {
    let app = TestApp::spawn();
    let g = new_game(&app, "duel", 2, json!({"rounds": 2}), json!({}));
    let before = head(&app, &g.id);
    app.submit(&g.id, &g.seats[0], json!({"type": "Bid", "amount": 3})).ok();
    let m = post_message(&app, &g, Who::Seat(1), Some(&[0]), "roll-me-back-not");
    assert_eq!(m.status, 201, "{}", m.text);
    let seq = m.json["seq"].as_u64().unwrap();
    app.submit(&g.id, &g.seats[1], json!({"type": "Bid", "amount": 2})).ok();

    // Rolled back to before the message: the moves are voided, the message stays.
    let r = app.post(
        &format!("/api/v1/games/{}/rollback", g.id),
        Some(&g.host),
        &json!({"to_seq": before, "reason": "a misclick"}),
    );
    r.ok();
    let view = app.get(&format!("/api/v1/games/{}/view", g.id), Some(&g.seats[0])).ok().clone();
    let texts: Vec<&str> = view["messages"].as_array().unwrap().iter().map(|m| m["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["roll-me-back-not"], "{view}");
    let list = app.get(&format!("/api/v1/games/{}/messages", g.id), Some(&g.seats[1])).ok().clone();
    assert_eq!(list["messages"].as_array().unwrap().len(), 1, "written once, never again: {list}");
    let events = app.get(&format!("/api/v1/games/{}/events", g.id), Some(&g.seats[0])).ok().clone();
    let message_events =
        events["events"].as_array().unwrap().iter().filter(|e| e["body"]["event"]["type"] == "MessageSent").count();
    assert_eq!(message_events, 1);

    // A past view before the message shows the thread without it; at it, with it.
    let past = app.get(&format!("/api/v1/games/{}/view?at={}", g.id, seq - 1), Some(&g.seats[0])).ok().clone();
    assert_eq!(past["messages"], json!([]), "{past}");
    let at = app.get(&format!("/api/v1/games/{}/view?at={seq}", g.id), Some(&g.seats[0])).ok().clone();
    assert_eq!(at["messages"][0]["text"], "roll-me-back-not");

    // A fork starts with no conversation (its press options are the original's).
    let fork = app.post(&format!("/api/v1/games/{}/fork", g.id), Some(&g.host), &json!({"at_seq": seq}));
    assert_eq!(fork.status, 201, "{}", fork.text);
    let forked = str_of(&fork.json, "game_id").to_owned();
    let token = fork.json["seats"][0]["token"].as_str().unwrap().to_owned();
    let list = app.get(&format!("/api/v1/games/{forked}/messages"), Some(&token)).ok().clone();
    assert_eq!(list["messages"], json!([]), "{list}");
}

#[test]
fn limits_and_options_are_answered_in_words() {
    let app = TestApp::spawn_with(|s| {
        s.press.per_hour = 3;
        s.press.max_chars = 60;
    });
    let g = new_game(&app, "duel", 3, json!({"rounds": 2}), json!({}));
    let path = format!("/api/v1/games/{}/messages", g.id);

    // Too long: 413 in words, nothing written.
    let long = post_message(&app, &g, Who::Seat(0), None, &"x".repeat(61));
    assert_eq!(long.status, 413, "{}", long.text);
    assert_eq!(long.content_type, "application/problem+json");
    assert!(long.json["detail"].as_str().unwrap().contains("at most 60"), "{}", long.text);
    // Not plain text, empty, or to nobody else.
    assert_eq!(post_message(&app, &g, Who::Seat(0), None, "bell\u{7}").status, 400);
    assert_eq!(post_message(&app, &g, Who::Seat(0), None, "   ").status, 422);
    let alone = post_message(&app, &g, Who::Seat(0), Some(&[0]), "me");
    assert_eq!(alone.status, 422);
    assert!(alone.json["detail"].as_str().unwrap().contains("another seat"), "{}", alone.text);
    assert_eq!(post_message(&app, &g, Who::Seat(0), Some(&[9]), "who").status, 422);
    assert_eq!(post_message(&app, &g, Who::Public, None, "anyone").status, 401);

    // The rate: three an hour for one writer, then 429 in words; others still write.
    let html = "<script>alert(1)</script> see https://example.org/x";
    for i in 0..3 {
        let text = if i == 0 { html.to_owned() } else { format!("message {i}") };
        assert_eq!(post_message(&app, &g, Who::Seat(0), None, &text).status, 201);
    }
    let many = post_message(&app, &g, Who::Seat(0), None, "one more");
    assert_eq!(many.status, 429, "{}", many.text);
    assert_eq!(many.content_type, "application/problem+json");
    assert!(many.json["detail"].as_str().unwrap().contains("try again in"), "{}", many.text);
    assert_eq!(post_message(&app, &g, Who::Seat(1), None, "my turn to talk").status, 201);

    // Pages: the text is escaped, the link is text, never a link.
    let mut b = Browser::new(&app);
    b.sign_in(&g.id, &g.seats[2]);
    let page = b.get(&format!("/games/{}", g.id)).html;
    assert!(page.contains("&lt;script&gt;alert(1)"), "escaped in the page");
    assert!(!page.contains("<script>alert(1)"), "never markup");
    assert!(!page.contains("href=\"https://example.org/x\""), "a link is never made of a message");

    // Pages of messages: bounded, with `next` and `since`.
    let first = app.get(&format!("{path}?limit=2"), Some(&g.seats[2])).ok().clone();
    assert_eq!(first["messages"].as_array().unwrap().len(), 2);
    let next = first["next"].as_u64().expect("more follow");
    let rest = app.get(&format!("{path}?since={next}"), Some(&g.seats[2])).ok().clone();
    assert_eq!(rest["messages"].as_array().unwrap().len(), 2);
    assert_eq!(rest["next"], Value::Null);
    assert_eq!(app.get(&format!("{path}?limit=0"), Some(&g.seats[2])).status, 400);
    assert_eq!(
        app.get(&format!("{path}?channel=all"), Some(&g.seats[2])).ok()["messages"].as_array().unwrap().len(),
        4
    );
    assert_eq!(app.get(&format!("{path}?channel=nope"), Some(&g.seats[2])).status, 400);

    // Moderation: a seat reports, the host hides with a reason; readers see
    // the reason, the referee still reads the text.
    let seq = first["messages"][0]["seq"].as_u64().unwrap();
    let reported =
        app.post(&format!("{path}/{seq}/report"), Some(&g.seats[1]), &json!({"reason": "a script in the chat"}));
    assert_eq!(reported.status, 200, "{}", reported.text);
    assert_eq!(reported.json["reported"], true);
    assert_eq!(app.post(&format!("{path}/{seq}/hide"), Some(&g.seats[1]), &json!({"reason": "x"})).status, 403);
    let hidden = app.post(&format!("{path}/{seq}/hide"), Some(&g.host), &json!({"reason": "no scripts, please"}));
    assert_eq!(hidden.status, 200, "{}", hidden.text);
    let seen = app.get(&path, Some(&g.seats[2])).ok()["messages"][0].clone();
    assert_eq!(seen["text"], Value::Null, "{seen}");
    assert_eq!(seen["hidden"]["reason"], "no scripts, please");
    let referee = app.get(&path, Some(&g.referee)).ok()["messages"][0].clone();
    assert_eq!(referee["text"], html, "the referee still reads it");
    assert_eq!(referee["reports"], 1);

    // Public only: a private message is refused; no press: none at all.
    let public_only = new_game(&app, "duel", 3, json!({}), json!({"mode": "public"}));
    let r = post_message(&app, &public_only, Who::Seat(0), Some(&[1]), "psst");
    assert_eq!(r.status, 422);
    assert!(r.json["detail"].as_str().unwrap().contains("everyone only"), "{}", r.text);
    let none = new_game(&app, "duel", 3, json!({}), json!({"mode": "none"}));
    let r = post_message(&app, &none, Who::Seat(0), None, "hello?");
    assert_eq!(r.status, 422);
    assert!(r.json["detail"].as_str().unwrap().contains("without messages"), "{}", r.text);
    let bad = app.post(
        "/api/v1/games",
        None,
        &json!({"ruleset": "duel", "seats": [{"name": "A"}, {"name": "B"}], "press": {"mode": "loud"}}),
    );
    assert_eq!(bad.status, 400, "{}", bad.text);

    // Anonymous press names no writer to the readers, but to the referee.
    let anon = new_game(&app, "duel", 3, json!({}), json!({"anonymous": true}));
    post_message(&app, &anon, Who::Seat(0), None, "guess who").ok();
    let read = app.get(&format!("/api/v1/games/{}/messages", anon.id), Some(&anon.seats[1])).ok().clone();
    assert_eq!(read["messages"][0]["from"]["role"], "anonymous");
    let events = app.get(&format!("/api/v1/games/{}/events", anon.id), Some(&anon.seats[1])).ok().to_string();
    assert!(events.contains("guess who") && !events.contains("\"from\":{\"seat\":0}"), "{events}");
    assert!(!events.contains("Player 1 to"), "the event's words name no writer: {events}");
    let by_ref = app.get(&format!("/api/v1/games/{}/messages", anon.id), Some(&anon.referee)).ok().clone();
    assert_eq!(by_ref["messages"][0]["from"]["seat"], 0);
}

/// The text of `css` in the page `d` shows, read in one step (the live
/// panel is redrawn: an element found first may be replaced meanwhile).
fn text_in(d: &crate::browser::Driver, css: &str) -> String {
    let v = d.eval(&format!("var e = document.querySelector({css:?}); return e ? e.textContent : '';"));
    v.as_str().unwrap_or_default().to_owned()
}

#[test]
fn two_gothar_agree_on_a_vote_in_a_private_thread_that_the_third_never_sees_in_headless_chromium() {
    use crate::browser::Driver;
    let app = TestApp::spawn();
    let seats = json!([{"name": "Ása"}, {"name": "Bersi"}, {"name": "Cyra"}]);
    let press = json!({"phases": ["propose", "vote"], "after_end": "private"});
    let created = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "thingvellir", "options": {"lawspeaker": 1, "rules_version": 1}, "seats": seats, "press": press}),
        )
        .ok()
        .clone();
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let g = Game {
        id: game.clone(),
        seats: tokens.clone(),
        host: str_of(&created, "host_token").to_owned(),
        referee: str_of(&created, "referee_token").to_owned(),
    };
    // The Lawspeaker (Bersi) proposes at the Thing: Ása and Cyra are to vote.
    let lawspeaker = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[1])).ok().clone();
    assert!(lawspeaker["pending"].to_string().contains("propose"), "{}", lawspeaker["pending"]);
    app.submit(&game, &tokens[1], json!({"type": "propose", "law": 1})).ok();
    let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
    assert!(summary["pending"].to_string().contains("\"vote\""), "{}", summary["pending"]);

    let d = Driver::start();
    d.resize(1280, 900);
    // Cyra's page is open while Ása writes to her.
    d.go(str_of(&created["seats"][2], "link"));
    d.loads(|| d.click(&d.find("#enter")));
    d.wait_until("Cyra's page to follow the game", || text_in(&d, "#live").contains("follows the game"));
    assert!(d.exists("#press"), "the conversation panel");
    assert!(text_in(&d, "#press-rules").contains("propose, vote"), "{}", text_in(&d, "#press-rules"));
    d.eval("window.__sameDocument = true; return true;");
    let ask = "Cyra, shall we both support the Raid? Then the Lawspeaker owes us.";
    post_message(&app, &g, Who::Seat(0), Some(&[2]), ask).ok();
    d.wait_until("Ása's message on Cyra's page", || d.exists("#thread-0-2"));
    assert_eq!(d.eval("return window.__sameDocument === true;"), json!(true), "not reloaded");
    d.wait_until("the unread count", || text_in(&d, "#thread-0-2 [data-unread]") == "1 new");
    assert_eq!(text_in(&d, "#press-unread"), "1 new");
    assert_eq!(text_in(&d, "#thread-0-2 .thread-name"), "Ása");
    d.eval("document.getElementById('press').scrollIntoView(); return true;");
    d.screenshot("press-01-cyra-unread-1280");

    // By keyboard: the thread opens on Enter, the count clears, she answers.
    let summary_el = d.find("#thread-0-2 > summary");
    d.type_in(&summary_el, "\u{E007}");
    d.wait_until("the thread to open", || d.property("#thread-0-2", "open") == "true");
    d.wait_until("the count to clear", || text_in(&d, "#press-unread").is_empty());
    assert!(text_in(&d, "#thread-0-2 .messages").contains("shall we both support the Raid"));
    let reply = "Agreed: we both support it.";
    d.type_in(&d.find("#text-0-2"), reply);
    let send = d.find("#send-0-2");
    d.loads(|| d.type_in(&send, "\u{E007}"));
    assert!(!d.exists("#press-error"), "{}", text_in(&d, "#press-error"));
    assert_eq!(d.property("#thread-0-2", "open"), "true", "the thread stays open after sending");
    assert!(text_in(&d, "#thread-0-2 .messages").contains(reply));
    d.eval("document.getElementById('press').scrollIntoView(); return true;");
    d.screenshot("press-02-cyra-replied-1280");
    // And she votes as agreed.
    d.loads(|| d.press("Support Raid on the Law of the Sea"));
    assert!(!d.exists("#error"), "{}", text_in(&d, "#error"));

    // Ása, on a phone: the answer is there, counted as new until read.
    d.resize(390, 844);
    d.go(str_of(&created["seats"][0], "link"));
    d.loads(|| d.click(&d.find("#enter")));
    assert_eq!(text_in(&d, "#thread-0-2 .thread-name"), "Cyra");
    d.wait_until("Ása's unread count", || text_in(&d, "#thread-0-2 [data-unread]") == "1 new");
    d.eval("document.getElementById('press').scrollIntoView(); return true;");
    d.screenshot("press-03-asa-phone-unread-390");
    d.click(&d.find("#thread-0-2 > summary"));
    d.wait_until("the count to clear", || text_in(&d, "#thread-0-2 [data-unread]").is_empty());
    assert!(text_in(&d, "#thread-0-2 .messages").contains(reply));
    let width = d.eval("return document.documentElement.scrollWidth;").as_u64().unwrap();
    assert!(width <= 390, "the page fits the phone's width: {width}");
    d.eval("document.getElementById('thread-0-2').scrollIntoView(); return true;");
    d.screenshot("press-04-asa-phone-thread-390");
    d.loads(|| d.press("Support Raid on the Law of the Sea"));

    // Bersi, the third, sees none of it: no thread, no word, on any page.
    d.resize(1280, 900);
    d.go(str_of(&created["seats"][1], "link"));
    d.loads(|| d.click(&d.find("#enter")));
    let src = d.source();
    for secret in [ask, reply, "shall we both", "Agreed"] {
        assert!(!src.contains(secret), "Bersi's page holds {secret:?}");
    }
    assert!(!d.exists("#thread-0-2"));
    d.eval("document.getElementById('press').scrollIntoView(); return true;");
    d.screenshot("press-05-bersi-sees-nothing-1280");
    for path in ["view", "events", "messages"] {
        let t = app.get(&format!("/api/v1/games/{game}/{path}"), Some(&tokens[1])).ok().to_string();
        assert!(!t.contains("shall we both") && !t.contains("Agreed"), "Bersi's {path}: {t}");
    }
    // Seats write only at the Thing in this game: while a proposal or a
    // vote is pending, and not after.
    let pending = app.get(&format!("/api/v1/games/{game}"), None).ok()["pending"].clone();
    let at_the_thing = pending.as_array().unwrap().iter().any(|p| p["kind"] == "propose" || p["kind"] == "vote");
    let later = post_message(&app, &g, Who::Seat(0), Some(&[2]), "and now?");
    if at_the_thing {
        assert_eq!(later.status, 201, "{}", later.text);
    } else {
        assert_eq!(later.status, 422, "{}", later.text);
        assert!(later.json["detail"].as_str().unwrap().contains("propose, vote"), "{}", later.text);
    }
    // The host writes at any time; the referee reads no private thread.
    assert_eq!(post_message(&app, &g, Who::Host, None, "The Thing closes at dusk.").status, 201);
    let referee = app.get(&format!("/api/v1/games/{game}/messages"), Some(&g.referee)).ok().to_string();
    assert!(!referee.contains("shall we both") && referee.contains("closes at dusk"), "{referee}");
    let errors = d.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
}

#[test]
fn messages_a_seat_received_join_its_next_game_mail_and_never_a_mail_per_message() {
    use crate::smtp::SmtpSink;
    let sink = SmtpSink::start();
    let app = TestApp::spawn_with(TestApp::smtp_to(sink.port));
    let seats: Vec<Value> = (0..3)
        .map(|i| json!({"name": format!("Player {}", i + 1), "email": format!("p{}@example.org", i + 1)}))
        .collect();
    let created = app
        .post("/api/v1/games", None, &json!({"ruleset": "duel", "options": {"rounds": 2}, "seats": seats}))
        .ok()
        .clone();
    let g = Game {
        id: str_of(&created, "game_id").to_owned(),
        seats: seat_tokens(&created),
        host: str_of(&created, "host_token").to_owned(),
        referee: str_of(&created, "referee_token").to_owned(),
    };
    sink.wait_for(3, 120);
    // Ten messages to Player 1 within the hour, and one it does not read.
    for i in 0..10 {
        let from = if i % 2 == 0 { Who::Seat(1) } else { Who::Seat(2) };
        post_message(&app, &g, from, Some(&[0]), &format!("MAILMARK-{i}-for-player-one")).ok();
    }
    post_message(&app, &g, Who::Seat(1), Some(&[2]), "MAILMARK-not-for-player-one").ok();
    // The bids: Player 1 wins the round and is the one asked to claim.
    for (seat, amount) in [(0, 9), (1, 1), (2, 2)] {
        app.submit(&g.id, &g.seats[seat], json!({"type": "Bid", "amount": amount})).ok();
    }
    let all = sink.wait_for(4, 120);
    let to_one: Vec<_> = all.iter().filter(|m| m.to[0] == "p1@example.org").collect();
    assert_eq!(to_one.len(), 2, "the invitation and the one mail of the move: none per message");
    let text = to_one[1].text();
    assert!(text.contains("claim the die"), "{text}");
    for i in 0..10 {
        assert!(text.contains(&format!("MAILMARK-{i}-for-player-one")), "message {i} joins the mail:\n{text}");
    }
    assert!(!text.contains("MAILMARK-not-for"), "a message it does not read never reaches its mail:\n{text}");
    for m in &all {
        if m.to[0] != "p1@example.org" {
            assert!(!m.text().contains("MAILMARK"), "{}", m.text());
        }
    }
}

/// Mail waiting in the outbox, from the metrics.
fn outbox_depth(app: &TestApp) -> u64 {
    let metrics = app.get("/metrics", None).text;
    metrics.lines().find_map(|l| l.strip_prefix("runestone_outbox_depth ")).and_then(|n| n.trim().parse().ok()).unwrap()
}

#[test]
fn ten_messages_within_an_hour_are_one_mail_after_a_quiet_spell_and_none_for_a_seat_that_turned_them_off() {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use runestone::clock::ManualClock;

    use crate::smtp::SmtpSink;
    let sink = SmtpSink::start();
    let tmp = tempfile::tempdir().unwrap();
    let mut s = crate::helpers::settings(tmp.path());
    TestApp::smtp_to(sink.port)(&mut s);
    s.press.quiet_minutes = 30;
    s.press.per_hour = 50;
    let clock = Arc::new(ManualClock::new("2026-03-02T09:00:00Z".parse().unwrap()));
    let app = TestApp::start_with_clock(s, clock.clone());
    let seats: Vec<Value> = (0..3)
        .map(|i| json!({"name": format!("Player {}", i + 1), "email": format!("p{}@example.org", i + 1)}))
        .collect();
    let created = app.post("/api/v1/games", None, &json!({"ruleset": "duel", "seats": seats})).ok().clone();
    let g = Game {
        id: str_of(&created, "game_id").to_owned(),
        seats: seat_tokens(&created),
        host: str_of(&created, "host_token").to_owned(),
        referee: str_of(&created, "referee_token").to_owned(),
    };
    sink.wait_for(3, 120);
    let settle = |n: usize| {
        let t = Instant::now();
        while outbox_depth(&app) > 0 || sink.received().len() < n {
            assert!(t.elapsed() < Duration::from_secs(120), "the outbox does not empty");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let press_mails = |to: &str| -> Vec<String> {
        sink.received()
            .iter()
            .filter(|m| m.to[0] == to && m.header("Subject").unwrap().contains("new message"))
            .map(|m| m.text())
            .collect()
    };

    // Ten messages to Player 1 over 45 minutes: one mail, half an hour after the last.
    for i in 0..10 {
        let from = if i % 2 == 0 { Who::Seat(1) } else { Who::Seat(2) };
        post_message(&app, &g, from, Some(&[0]), &format!("QUIET-{i}-to-one")).ok();
        clock.advance(chrono::Duration::minutes(5));
    }
    assert_eq!(outbox_depth(&app), 1, "one mail waits, not ten");
    clock.advance(chrono::Duration::minutes(31));
    settle(4);
    let mails = press_mails("p1@example.org");
    assert_eq!(mails.len(), 1, "{mails:#?}");
    for i in 0..10 {
        assert!(mails[0].contains(&format!("QUIET-{i}-to-one")), "message {i} in the one mail:\n{}", mails[0]);
    }
    assert!(press_mails("p2@example.org").is_empty() && press_mails("p3@example.org").is_empty(), "writers get none");

    // Player 2 turns the mail of messages off on the game page: none comes.
    let mut b = Browser::new(&app);
    b.sign_in(&g.id, &g.seats[1]);
    let page = b.get(&format!("/games/{}", g.id));
    assert!(page.html.contains("id=\"press-mail-off\""), "the page offers to stop them");
    let csrf = b.csrf();
    let off = b.post(&format!("/games/{}/messages/mail", g.id), &[("csrf", &csrf), ("mail", "off")]);
    assert_eq!(off.status, 303, "{}", off.html);
    assert!(b.get(&format!("/games/{}", g.id)).html.contains("id=\"press-mail-on\""));
    for i in 0..10 {
        post_message(&app, &g, Who::Seat(0), Some(&[1]), &format!("OFF-{i}-to-two")).ok();
    }
    // Player 3's mail of a later message leaves after any to Player 2 would.
    post_message(&app, &g, Who::Seat(0), Some(&[2]), "MARKER-to-three").ok();
    clock.advance(chrono::Duration::minutes(31));
    settle(5);
    assert_eq!(press_mails("p3@example.org").len(), 1);
    assert!(press_mails("p2@example.org").is_empty(), "press mail off sends none");
    assert!(sink.received().iter().all(|m| !m.text().contains("OFF-")), "no mail tells them");
}
