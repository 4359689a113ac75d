//! What a page load costs a player: seat pages leave gzipped (under 60 KB
//! mid-game in every game), and a browser's page loads never wait on the
//! live-update streams of pages it keeps out of sight (hidden tabs, the
//! back-forward cache), which would otherwise hold its few connections to
//! the server.

use std::io::Read;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::browser::{Browser, Driver};
use crate::helpers::{seat_tokens, str_of, TestApp};

/// Play `commands` decisions of the game, each pending seat taking its
/// first legal command (a refusal, as when another seat moved first, is
/// passed over).
fn advance(app: &TestApp, game: &str, tokens: &[String], commands: usize) {
    let mut done = 0;
    let mut tries = 0;
    while done < commands && tries < commands * 4 {
        tries += 1;
        let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
        let Some(p) = summary["pending"].as_array().and_then(|p| p.first()).cloned() else { return };
        let seat = p["seat"].as_u64().unwrap() as usize;
        let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[seat])).ok().clone();
        let Some(command) = view["legal"].get(0).cloned() else { return };
        let r = app.post(
            &format!("/api/v1/games/{game}/commands"),
            Some(&tokens[seat]),
            &json!({"command": command, "expected_seq": view["head"]}),
        );
        if r.status < 300 {
            done += 1;
        }
    }
}

/// The seat page as a browser that accepts gzip gets it: the bytes sent,
/// and the page they unpack to.
fn seat_page_gzipped(app: &TestApp, browser: &Browser, game: &str) -> (usize, String) {
    let agent = crate::browser::page_agent();
    let req = ureq::http::Request::builder()
        .method("GET")
        .uri(format!("{}/games/{game}", app.base))
        .header("Accept-Encoding", "gzip")
        .header("Accept", "text/html")
        .header("Cookie", browser.cookie_header())
        .body(())
        .expect("request");
    let mut resp = agent.run(req).expect("the seat page answers");
    assert_eq!(resp.status().as_u16(), 200);
    let encoding = resp.headers().get("content-encoding").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    assert_eq!(encoding, "gzip", "a browser that accepts gzip gets the page gzipped");
    let mut sent = Vec::new();
    resp.body_mut().as_reader().read_to_end(&mut sent).expect("body");
    let mut html = String::new();
    flate2::read::GzDecoder::new(&sent[..]).read_to_string(&mut html).expect("the body is gzip");
    (sent.len(), html)
}

#[test]
fn every_games_seat_page_mid_game_leaves_gzipped_under_60_kb() {
    let app = TestApp::spawn();
    for (ruleset, seats, commands) in
        [("bardagi", 5, 12), ("fallen-kingdoms", 5, 30), ("thingvellir", 5, 30), ("realms", 5, 10)]
    {
        let created = app.create(ruleset, seats, json!({}));
        let game = str_of(&created, "game_id").to_owned();
        let tokens = seat_tokens(&created);
        advance(&app, &game, &tokens, commands);
        let mut browser = Browser::new(&app);
        browser.sign_in(&game, &tokens[0]);
        let plain = browser.get(&format!("/games/{game}"));
        assert_eq!(plain.status, 200);
        let (sent, html) = seat_page_gzipped(&app, &browser, &game);
        assert!(html.contains("id=\"table\""), "{ruleset}: the gzipped answer is the seat page");
        println!("{ruleset}, {seats} seats: seat page {} bytes of HTML, {sent} bytes sent gzipped", plain.html.len());
        assert!(sent < 60 * 1024, "{ruleset}: the seat page sent {sent} bytes, more than 60 KB");
    }
}

#[test]
fn page_loads_back_and_forward_between_two_games_never_wait_on_old_streams() {
    let app = TestApp::spawn();
    let games: Vec<(String, String)> = (0..2)
        .map(|_| {
            let created = app.create("bardagi", 5, json!({}));
            (str_of(&created, "game_id").to_owned(), str_of(&created["seats"][0], "link").to_owned())
        })
        .collect();
    let d = Driver::start();
    d.resize(390, 844);
    for (_, link) in &games {
        d.go(link);
        d.loads(|| d.click(&d.find("#enter")));
        assert!(d.exists("#live"), "the seat page follows the game live");
    }
    let page = |i: usize| format!("{}/games/{}", app.base, games[i].0);
    // Each load is told apart from the page before by a mark of its own
    // (a page restored from the back-forward cache keeps an older mark).
    let mut slowest = Duration::ZERO;
    for i in 0..30u32 {
        d.eval(&format!("window.__loadMark = {i}; return true;"));
        let started = Instant::now();
        match i % 4 {
            0 => d.go(&page(0)),
            1 => d.go(&page(1)),
            2 => {
                d.eval("history.back(); return true;");
            }
            _ => {
                d.eval("history.forward(); return true;");
            }
        }
        d.wait_until("the next page to load", || {
            d.eval(&format!("return window.__loadMark !== {i} && document.readyState === 'complete';"))
                == Value::Bool(true)
        });
        slowest = slowest.max(started.elapsed());
    }
    println!("the slowest of 30 seat page loads took {} ms", slowest.as_millis());
    // The fault this guards against held a load for about a minute (until
    // the browser gave up a kept page's stream); a busy machine is slow,
    // so the bound is far above a normal load and far below that.
    assert!(slowest < Duration::from_secs(20), "a page load waited {} ms", slowest.as_millis());
}

#[test]
fn a_browser_that_holds_the_seat_goes_from_the_mail_link_straight_to_the_game() {
    let app = TestApp::spawn();
    let created = app.create("bardagi", 3, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let link = format!("/play/{game}?token={}", tokens[0]);
    // Given a browser that entered the game as seat 0 once,
    let mut held = Browser::new(&app);
    held.sign_in(&game, &tokens[0]);
    // when it follows seat 0's link again (the next mail), then it goes
    // straight to the game page, and no cookie is set by the GET;
    let again = held.get(&link);
    assert_eq!(again.status, 303, "{}", again.html);
    assert_eq!(again.location, format!("/games/{game}"));
    assert!(again.set_cookies.is_empty(), "{:?}", again.set_cookies);
    // a browser that holds another seat of the game, or none, gets the
    // landing page and its button.
    let mut other = Browser::new(&app);
    other.sign_in(&game, &tokens[1]);
    let landing = other.get(&link);
    assert_eq!(landing.status, 200);
    assert!(landing.html.contains("id=\"enter\""), "{}", landing.html);
    let fresh = Browser::new(&app).get(&link);
    assert_eq!(fresh.status, 200);
    // The host's link does the same for the host's page.
    let host_token = str_of(&created, "host_token").to_owned();
    let mut host = Browser::new(&app);
    host.sign_in(&game, &host_token);
    let again = host.get(&format!("/play/{game}?token={host_token}"));
    assert_eq!((again.status, again.location.as_str()), (303, format!("/host/{game}").as_str()));
}
