//! The plan page composes plan and program in one form: in headless
//! Chromium a clan picks its cards and a two-step program with a fallback,
//! sees its own stored program (and nobody else does), and after the other
//! clans' turns sees its turn played in the log.

use serde_json::{json, Value};

use crate::browser::Driver;
use crate::helpers::{seat_tokens, str_of, TestApp};

/// The option of select `id` whose words begin with `words`.
fn option(d: &Driver, id: &str, words: &str) -> String {
    d.find_by("xpath", &format!("//select[@id='{id}']/option[starts-with(normalize-space(), '{words}')]"))
}

fn checked_words(d: &Driver, id: &str) -> String {
    d.text(&format!("#{id} option:checked"))
}

#[test]
fn a_clan_composes_a_plan_with_a_two_step_program_on_the_plan_page_and_sees_it_played() {
    let app = TestApp::spawn();
    let created = app.create("bardagi", 3, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let public = app.get(&format!("/api/v1/games/{game}/view"), None).ok().clone();
    // The browser plays the clan whose turn comes last in the round.
    let me = (public["view"]["starting"].as_u64().unwrap() as usize + 2) % 3;
    let name = format!("Player {}", me + 1);

    let d = Driver::start();
    d.resize(1280, 900);
    d.go(str_of(&created["seats"][me], "link"));
    d.loads(|| d.click(&d.find("#enter")));
    assert!(d.exists("#program-steps"), "the plan form holds the program");
    assert!(d.text("#program-now").contains("No program yet"), "{}", d.text("#program-now"));
    assert!(d.text("#bot-program").starts_with("Or take the bot's cards and turn: "), "{}", d.text("#bot-program"));

    // The cards: two of each unit's.
    for (card, n) in [("berserkur", "2"), ("godi", "2"), ("kaupmadur", "2"), ("knerrir", "0")] {
        let input = d.find(&format!("#hand-{card}"));
        d.clear(&input);
        d.type_in(&input, n);
    }
    // Step 1: the Berserkur moves, skipped if refused by then (chosen by
    // typing, as with a keyboard); step 2: the Godi moves, and if that is
    // refused the bot plays the rest of the turn.
    d.click(&option(&d, "program-step-0", "Berserkur moves to"));
    let first = checked_words(&d, "program-step-0");
    d.type_in(&d.find("#program-fallback-0"), "skip");
    assert_eq!(d.property("#program-fallback-0", "value"), "skip", "chosen from the keyboard");
    d.click(&option(&d, "program-step-1", "Godi moves to"));
    let second = checked_words(&d, "program-step-1");
    d.click(&option(&d, "program-fallback-1", "let the bot play"));
    d.screenshot("40-bardagi-program-compose-1280");
    d.resize(390, 844);
    d.eval("document.getElementById('program-steps').scrollIntoView(); return true;");
    d.screenshot("41-bardagi-program-compose-phone");
    let widths = d.eval("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]");
    assert!(widths[0].as_u64() <= widths[1].as_u64(), "no sideways scrolling on a phone: {widths}");
    d.resize(1280, 900);
    d.loads(|| d.click(&d.find("#plan-submit")));

    // The clan sees its stored program in words, filled in again to be
    // replaced until every clan has chosen; nobody else sees it.
    let now = d.text("#program-now");
    let to = |w: &str| w.split(" moves to ").nth(1).unwrap_or_default().to_owned();
    assert!(now.starts_with("Your program now: 1. Berserkur to "), "{now}");
    assert!(now.contains(&format!("Berserkur to {} (if refused: skip it)", to(&first))), "{now}");
    assert!(now.contains(&format!("2. Godi to {} (if refused: the bot plays the rest)", to(&second))), "{now}");
    assert_eq!(checked_words(&d, "program-step-1"), second, "the stored program fills the form");
    d.screenshot("42-bardagi-program-stored");
    let own = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[me])).ok().clone();
    assert_eq!(own["view"]["players"][me]["program"].as_array().map(Vec::len), Some(2), "{}", own["view"]);
    for other in (0..3).filter(|s| *s != me) {
        let theirs = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[other])).ok().clone();
        assert!(theirs["view"]["players"][me].get("program").is_none(), "seat {other} sees no program");
    }

    // The other clans plan and play their turns through the API; the
    // program runs when the browser clan's turn comes.
    for other in (0..3).filter(|s| *s != me) {
        let plan = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[other])).ok()["legal"][0].clone();
        assert_eq!(plan["type"], "Plan");
        app.submit(&game, &tokens[other], plan).ok();
    }
    let mut turns = 0;
    loop {
        let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
        let pending: Vec<Value> = summary["pending"].as_array().unwrap().clone();
        if pending.iter().any(|p| p["kind"] == "plan") {
            break;
        }
        let seat = pending[0]["seat"].as_u64().unwrap() as usize;
        assert_ne!(seat, me, "the programmed turn was not asked: {summary}");
        let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[seat])).ok().clone();
        app.submit(&game, &tokens[seat], view["legal"][0].clone()).ok();
        turns += 1;
        assert!(turns < 10, "the round did not end");
    }
    assert_eq!(turns, 2, "the two other clans played by hand");

    // The page tells the programmed turn, step by step.
    d.loads(|| d.go(&format!("{}/games/{game}?log=all", app.base)));
    let log = d.text("#log");
    assert!(log.contains(&format!("{name}'s programmed turn runs (2 step(s))")), "{log}");
    assert!(log.contains(&format!("{name}'s program, step 1: Berserkur moves to")), "{log}");
    assert!(log.contains(&format!("{name}'s program, step 2: Godi moves to")), "{log}");
    d.eval(
        "var l = Array.from(document.querySelectorAll('#log li')).find(function (e) { \
         return e.textContent.indexOf('programmed turn runs') >= 0; }); l.scrollIntoView(); return true;",
    );
    d.screenshot("43-bardagi-program-played");
    let errors = d.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
}
