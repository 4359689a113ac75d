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
