//! Bardagi hosted by the kernel as the server hosts it: by ruleset id, with
//! options, commands and events as JSON, folded from a sealed log.

use runestone_engine::harness::play_by_fallbacks;
use runestone_engine::{Registry, Seed, Viewer};

#[test]
fn a_whole_game_runs_through_the_kernel_by_fallbacks_and_refolds_equal() {
    let reg = Registry::empty().with::<crate::Bardagi>();
    let options = serde_json::json!({ "board": "winter", "eight_cards": true });
    let played = play_by_fallbacks(&reg, "bardagi", &options, &["Ann", "Bo", "Cy"], &Seed([9; 32]), 500, |_, _, _| {})
        .unwrap_or_else(|e| panic!("{e}"));
    let table = &played.table;
    assert_eq!(table.outcome().unwrap().scores.len(), 3);
    let v = table.view(Viewer::Public);
    assert!(v["players"][0]["gold"].is_number(), "all is public once the game is over");
    for e in &played.log {
        assert!(!table.describe(e).is_empty());
    }
}

/// Every golden log of Bardagi (`events/bardagi/`, every rules version)
/// folds again and, its seed revealed, every decision in it is derived
/// again from its command to the same events and hashes: the bot's plans
/// (programs included) are stored as commands, so a change of the bot
/// changes no stored game. (The server's test of every game's golden logs
/// does the same through the command line's replay.)
#[test]
fn every_golden_log_derives_again_to_the_same_hashes() {
    let reg = Registry::empty().with::<crate::Bardagi>();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events/bardagi");
    let goldens = runestone_engine::harness::replay_goldens(&reg, &dir).unwrap_or_else(|e| panic!("{e}"));
    for g in &goldens {
        assert!(g.report.decisions_rederived > 0, "{}", g.path.display());
    }
    let checked = goldens.len();
    assert!(checked >= 14, "{checked} golden logs");
}
