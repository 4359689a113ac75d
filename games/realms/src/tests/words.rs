//! Every outcome, log line, command label and form of a whole game names
//! players by their names, never a seat by its number, and every score
//! change has a line saying why (checked over a game played by fallbacks
//! for each of the rulebooks and modes; in Realms such a game may change
//! no score at all).

use runestone_engine::harness::words_problems;
use runestone_engine::{Registry, Seed};
use serde_json::json;

fn check(options: serde_json::Value, names: &[&str], seed: u8, max: usize) {
    let reg = Registry::empty().with::<crate::Realms>();
    let checked =
        words_problems(&reg, "realms", &options, names, &Seed([seed; 32]), max).unwrap_or_else(|e| panic!("{e}"));
    assert!(checked.problems.is_empty(), "{options}:\n{}", checked.problems.join("\n"));
    // Fallback play moves no victory points in a year of rules version 3
    // (they move only towards Dominance; the ranking at the end is by
    // importance), so a score change is not required here: any there is
    // must carry its reason, which `words_problems` checks.
    let _ = checked.score_changes;
}

#[test]
fn a_game_of_each_mode_names_players_and_says_why_scores_change() {
    check(json!({ "mode": "basic", "years": 1 }), &["Astrid", "Bjarni", "Cecilie", "Dagny"], 5, 200);
    check(json!({ "years": 1 }), &["Astrid", "Bjarni", "Cecilie"], 6, 200);
}
