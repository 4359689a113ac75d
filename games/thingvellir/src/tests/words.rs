//! Every outcome, log line, command label and form of a whole game names
//! players by their names, never a seat by its number, and every score
//! change has a line saying why (checked over a game played by fallbacks
//! for each of the rulebooks and modes).

use runestone_engine::harness::words_problems;
use runestone_engine::{Registry, Seed};
use serde_json::json;

fn check(options: serde_json::Value, names: &[&str], seed: u8, max: usize) {
    let reg = Registry::empty().with::<crate::Thingvellir>();
    let checked =
        words_problems(&reg, "thingvellir", &options, names, &Seed([seed; 32]), max).unwrap_or_else(|e| panic!("{e}"));
    assert!(checked.problems.is_empty(), "{options}:\n{}", checked.problems.join("\n"));
    assert!(checked.score_changes > 0, "{options}: no score changed in {} lines", checked.lines);
}

#[test]
fn a_game_of_each_rules_version_names_players_and_says_why_wordfame_changes() {
    check(json!({}), &["Astrid", "Bjarni", "Cecilie", "Dagny"], 9, 20_000);
    check(json!({ "rules_version": 1, "sealed_feuds": true }), &["Astrid", "Bjarni", "Cecilie"], 3, 20_000);
}
