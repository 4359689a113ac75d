//! Hidden information: a seat's secret is absent from every other viewer's
//! view, event list and stream until the game reveals it, and present for
//! everyone once the game is over.

use std::io::{BufRead, BufReader};

use serde_json::{json, Value};

use crate::helpers::{agent, seat_tokens, str_of, TestApp};

/// Read `n` events from the stream in a thread.
fn read_stream(base: &str, path: &str, token: Option<&str>, n: usize) -> std::thread::JoinHandle<Vec<Value>> {
    let url = format!("{base}{path}");
    let token = token.map(str::to_owned);
    let (tx, rx) = std::sync::mpsc::channel();
    let h = std::thread::spawn(move || {
        let mut req = agent().get(&url);
        if let Some(t) = &token {
            req = req.header("Authorization", &format!("Bearer {t}"));
        }
        let mut resp = req.call().expect("stream opens");
        assert_eq!(resp.status().as_u16(), 200);
        assert!(resp.headers().get("content-type").unwrap().to_str().unwrap().starts_with("text/event-stream"));
        tx.send(()).unwrap();
        let mut out = Vec::new();
        let reader = BufReader::new(resp.body_mut().as_reader());
        for line in reader.lines() {
            let line = line.expect("stream line");
            if let Some(data) = line.strip_prefix("data: ") {
                out.push(serde_json::from_str(data).expect("JSON data"));
                if out.len() == n {
                    break;
                }
            }
        }
        out
    });
    rx.recv().expect("stream connected");
    h
}

#[test]
fn a_secret_bid_is_hidden_from_others_until_revealed_and_public_after_the_end() {
    let app = TestApp::spawn();
    let created = app.create("duel", 3, json!({"rounds": 1}));
    let game = str_of(&created, "game_id").to_owned();
    let seats = seat_tokens(&created);
    let path = format!("/api/v1/games/{game}/stream");
    let seat1_stream = read_stream(&app.base, &path, Some(&seats[1]), 1);
    let public_stream = read_stream(&app.base, &path, None, 1);
    let seat0_stream = read_stream(&app.base, &path, Some(&seats[0]), 1);

    app.submit(&game, &seats[0], json!({"type": "Bid", "amount": 7})).ok();
    let secret = |v: &Value| v.to_string().contains("\"amount\":7");

    // The stream.
    let mine = seat0_stream.join().unwrap();
    assert!(secret(&mine[0]), "the bidder sees its bid: {}", mine[0]);
    for (who, frames) in [("seat 1", seat1_stream.join().unwrap()), ("public", public_stream.join().unwrap())] {
        assert_eq!(frames[0]["hidden"], true, "{who}");
        assert!(!secret(&frames[0]), "{who} must not see the bid: {}", frames[0]);
    }
    // Views and event lists.
    for (who, token) in [("seat 1", Some(seats[1].as_str())), ("seat 2", Some(seats[2].as_str())), ("public", None)] {
        let view = app.get(&format!("/api/v1/games/{game}/view"), token);
        assert_eq!(view.ok()["view"]["bids"][0], "hidden", "{who}");
        assert!(!view.json["view"].to_string().contains('7'), "{who}'s view shows the bid: {}", view.text);
        let events = app.get(&format!("/api/v1/games/{game}/events"), token);
        assert!(!secret(events.ok()), "{who}'s events show the bid: {}", events.text);
    }
    // The host sees what the public sees; the referee sees all.
    let host = str_of(&created, "host_token");
    assert!(!secret(app.get(&format!("/api/v1/games/{game}/events"), Some(host)).ok()));
    let referee = str_of(&created, "referee_token");
    assert!(secret(app.get(&format!("/api/v1/games/{game}/events"), Some(referee)).ok()));
    // The bidder sees its own bid in the view.
    let own = app.get(&format!("/api/v1/games/{game}/view"), Some(&seats[0]));
    assert_eq!(own.ok()["view"]["bids"][0], 7);

    // Once all have bid, the bids are revealed in a public event.
    app.submit(&game, &seats[1], json!({"type": "Bid", "amount": 2})).ok();
    let last = app.submit(&game, &seats[2], json!({"type": "Bid", "amount": 3}));
    assert!(last.ok()["events"].to_string().contains("[7,2,3]"));
    // The winner claims; the game is over and the whole log is public.
    app.submit(&game, &seats[0], json!({"type": "Claim"})).ok();
    let events = app.get(&format!("/api/v1/games/{game}/events"), None);
    assert!(secret(events.ok()), "after the end the public log shows the bid");
    assert!(events.json["events"].as_array().unwrap().iter().all(|e| e["hidden"] == false));
}
