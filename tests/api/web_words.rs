//! The tables' pages in words, in headless Chromium at 1280×900 and
//! 390×844: the Fallen Kingdoms god choice with each god's intimidation and
//! power, Bardagi's plan with the cards' roles and no turn controls yet, a
//! finished game's end page naming the players (and the reader's own
//! result), and the host page with a late seat, its clocks in words and a
//! rollback that asks first. Screenshots are saved under
//! `target/web-screenshots/` (`60-…` to `66-…`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Duration as Hours;
use runestone::clock::ManualClock;
use serde_json::{json, Value};

use crate::browser::Driver;
use crate::helpers::{seat_tokens, settings, str_of, TestApp};

/// Screenshots at a desktop's and a phone's size, then back to the desktop;
/// the phone's page never scrolls sideways.
fn shoot(d: &Driver, name: &str) {
    d.resize(1280, 900);
    d.screenshot(&format!("{name}-1280"));
    d.resize(390, 844);
    d.screenshot(&format!("{name}-phone"));
    let widths = d.eval("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]");
    assert!(widths[0].as_u64() <= widths[1].as_u64(), "{name}: no sideways scrolling on a phone: {widths}");
    d.resize(1280, 900);
}

fn text_of(d: &Driver, css: &str) -> String {
    let v = d.eval(&format!("var e = document.querySelector({css:?}); return e ? e.innerText : '';"));
    v.as_str().unwrap_or_default().to_owned()
}

fn enter(d: &Driver, app: &TestApp, game: &str, token: &str) {
    d.go(&format!("{}/play/{game}?token={token}", app.base));
    d.loads(|| d.click(&d.find("#enter")));
}

#[test]
fn the_tables_pages_tell_choices_results_and_clocks_in_words_at_both_sizes() {
    let tmp = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new("2026-03-02T09:00:00Z".parse().unwrap()));
    let app = TestApp::start_with_clock(settings(tmp.path()), clock.clone());
    let names = json!([{"name": "Ása"}, {"name": "Bjarni"}, {"name": "Cecilie"}]);
    let d = Driver::start();

    // Fallen Kingdoms by its first rules: the god choice, each god with
    // its intimidation and power beside its button.
    let fk = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "fallen-kingdoms", "options": {"rules_version": 1}, "seats": names}),
        )
        .ok()
        .clone();
    let game = str_of(&fk, "game_id").to_owned();
    let tokens = seat_tokens(&fk);
    enter(&d, &app, &game, &tokens[0]);
    let gods = text_of(&d, "#fk-god");
    assert!(gods.contains("Intimidation"), "{gods}");
    assert!(gods.contains("the lowest plays first"), "what intimidation does: {gods}");
    assert!(d.exists(".fk-god-card button"), "a button per god");
    shoot(&d, "60-fk-god-choice");

    // Bardagi's plan: the cards' roles said, no turn controls yet.
    let bardagi =
        app.post("/api/v1/games", None, &json!({"ruleset": "bardagi", "options": {}, "seats": names})).ok().clone();
    let game = str_of(&bardagi, "game_id").to_owned();
    let tokens = seat_tokens(&bardagi);
    enter(&d, &app, &game, &tokens[0]);
    let roles = text_of(&d, "#card-roles");
    assert!(roles.contains("Knerrir") && roles.contains("one move or one action"), "{roles}");
    assert!(!d.exists("#end-turn") && !d.exists("#composer"), "no turn controls while planning");
    shoot(&d, "61-bardagi-plan");

    // A finished game's end page names the players and tells the reader
    // their own result.
    let realms = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "realms", "options": {"mode": "basic", "years": 1}, "seats": names}),
        )
        .ok()
        .clone();
    let game = str_of(&realms, "game_id").to_owned();
    let tokens = seat_tokens(&realms);
    crate::helpers::play_to_the_end(&app, &game, &tokens, 400, &[409], |_, v| v["legal"][0].clone(), || {});
    enter(&d, &app, &game, &tokens[1]);
    let summary = text_of(&d, "#outcome-summary");
    assert!(["Ása", "Bjarni", "Cecilie"].iter().any(|n| summary.contains(n)), "the winner by name: {summary}");
    assert!(!summary.to_lowercase().contains("seat"), "{summary}");
    let yours = text_of(&d, "#outcome-yours");
    assert!(
        yours.starts_with("You win") || yours.starts_with("You finish") || yours.starts_with("You share"),
        "{yours}"
    );
    assert!(text_of(&d, "#outcome").contains("Bjarni (you)"), "{}", text_of(&d, "#outcome"));
    shoot(&d, "62-realms-end");

    // The host page: a seat late in its grace time, the clocks in words,
    // and a rollback that names what it would void before it acts.
    let policy = json!({"plan_hours": 24, "turn_hours": 24, "small_hours": 12, "grace_hours": 6});
    let duel = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "duel", "seats": [{"name": "Ása"}, {"name": "Bjarni"}], "deadlines": policy}),
        )
        .ok()
        .clone();
    let game = str_of(&duel, "game_id").to_owned();
    let tokens = seat_tokens(&duel);
    app.submit(&game, &tokens[0], json!({"type": "Bid", "amount": 3})).ok();
    clock.advance(Hours::hours(25));
    let t = Instant::now();
    while !app.get(&format!("/api/v1/games/{game}/events"), None).text.contains("GraceGranted") {
        assert!(t.elapsed() < Duration::from_secs(120), "no grace was granted");
        std::thread::sleep(Duration::from_millis(20));
    }
    clock.advance(Hours::hours(2));
    enter(&d, &app, &game, str_of(&duel, "host_token"));
    let late = text_of(&d, "#late-1");
    assert!(late.starts_with("late by 2 hours"), "{late}");
    assert!(text_of(&d, "#policy-words").starts_with("A secret plan may take"), "{}", text_of(&d, "#policy-words"));
    shoot(&d, "63-host-late");
    d.type_in(&d.find("#reason"), "Ása asked to bid again");
    let first =
        d.eval("var o = Array.from(document.querySelectorAll('#to_seq option')); return o[o.length - 1].value;");
    d.eval(&format!("document.getElementById('to_seq').value = {first}; return true;"));
    d.loads(|| d.click(&d.find("#rollback-submit")));
    let asked = text_of(&d, "#rollback-confirm");
    assert!(asked.contains("will be voided") && asked.contains("Ása placed a secret bid"), "{asked}");
    shoot(&d, "64-host-rollback-confirm");
    d.loads(|| d.click(&d.find("#rollback-confirm-submit")));
    assert!(text_of(&d, "#host-done").starts_with("Rolled back"), "{}", text_of(&d, "#host-done"));
    let view: Value = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
    assert!(view["head"].as_u64().is_some(), "{view}");
}
