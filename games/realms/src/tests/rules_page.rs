//! The rules page a newcomer reads (`rules.html`, served at `/rules/realms`)
//! names only what the game has: its scenarios and its ways to win, each
//! shown here to end a game.

use runestone_engine::Game;

use super::Driver;
use crate::state::{Event, Mode};
use crate::{data, scoring, Options, Realms};

const PAGE: &str = include_str!("../../rules.html");

/// The scenarios of the reference sheet.
const SHEET_SCENARIOS: [&str; 6] =
    ["Italia 290 BC", "Britannia 410 AD", "Vikings 800 AD", "Taifas 1050 AD", "Orient 1550 BC", "Huns 373 AD"];

fn marked(class: &str) -> Vec<String> {
    PAGE.split(&format!("class=\"{class}\">")).skip(1).map(|x| x.split('<').next().unwrap_or("").to_string()).collect()
}

#[test]
fn every_scenario_the_rules_page_names_is_playable() {
    let named: Vec<&str> = SHEET_SCENARIOS.iter().copied().filter(|n| PAGE.contains(n)).collect();
    assert!(!named.is_empty(), "the page names no scenario");
    let playable: Vec<&str> = data::SCENARIOS.iter().map(|id| data::map(id).name.as_str()).collect();
    for n in &named {
        assert!(playable.contains(n), "the page names {n}, which is not playable ({playable:?})");
    }
    assert_eq!(marked("scenario"), playable, "the page presents every playable scenario");
}

#[test]
fn every_way_to_win_the_rules_page_names_ends_a_game() {
    let listed: Vec<String> = PAGE
        .split("<li class=\"way-to-win\"><strong>")
        .skip(1)
        .map(|x| x.split('<').next().unwrap_or("").to_string())
        .collect();
    assert_eq!(listed, scoring::WAYS_TO_WIN, "the page lists exactly the ways the game plays");
    for other in ["Sovereignty", "SOVEREIGNTY", "Might", "MIGHT"] {
        assert!(!PAGE.contains(other), "the page names {other}, which is not played");
    }
    // Importance: a game over after its years is won on importance points.
    let mut d = Driver::new(&Options { years: 1, ..Options::default() }, 3, 5).expect("setup");
    for _ in 0..4 {
        d.pass();
    }
    let o = Realms::outcome(&d.state).expect("over after its year");
    assert!(
        o.summary.contains("years of the game are over") && o.summary.contains("IMPORTANCE points"),
        "{}",
        o.summary
    );
    // Dominance: a realm that holds 10 VP at the end of a round wins at once.
    let mut d = Driver::new(&Options { mode: Mode::Basic, ..Options::default() }, 3, 5).expect("setup");
    d.state.realms[2].vp = 10;
    let ev = d.pass();
    assert!(
        ev.iter().any(|e| matches!(e, Event::GameEnded { reason } if reason.contains("DOMINANCE"))),
        "the game goes on: {ev:?}"
    );
    let o = Realms::outcome(&d.state).expect("over by dominance");
    assert_eq!(o.winners, vec![2], "{}", o.summary);
}
