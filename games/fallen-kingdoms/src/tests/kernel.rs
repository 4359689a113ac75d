//! Fallen Kingdoms hosted by the kernel as the server will host it: by
//! ruleset id, with options, commands and events as JSON, folded from a
//! sealed log.

use runestone_engine::harness::play_by_fallbacks;
use runestone_engine::table::Table;
use runestone_engine::{Registry, Seed, Viewer};

use crate::FallenKingdoms;

#[test]
fn a_whole_game_runs_through_the_kernel_by_fallbacks_and_refolds_equal() {
    let reg = Registry::empty().with::<FallenKingdoms>();
    let options = serde_json::json!({ "hidden_scoring": true });
    let names = ["Ann", "Bo", "Cy", "Di"];
    let played = play_by_fallbacks(&reg, "fallen-kingdoms", &options, &names, &Seed([9; 32]), 5_000, |_, _, _| {})
        .unwrap_or_else(|e| panic!("{e}"));
    let table = &played.table;
    assert_eq!(table.outcome().unwrap().scores.len(), 4);
    let v = table.view(Viewer::Public);
    assert!(v["players"][1]["glory"].is_number(), "hidden scores are shown once the game is over");
    for e in &played.log {
        assert!(!table.describe(e).is_empty());
    }
}

#[test]
fn bad_options_are_refused_in_the_games_words() {
    let reg = Registry::empty().with::<FallenKingdoms>();
    let game = reg.get("fallen-kingdoms").expect("registered").clone();
    let names: Vec<String> = ["Ann", "Bo", "Cy"].iter().map(|s| s.to_string()).collect();
    let refused = |options: serde_json::Value, names: Vec<String>| match Table::create(
        game.as_ref(),
        &options,
        names,
        &Seed([1; 32]),
        None,
    ) {
        Ok(_) => panic!("{options} accepted"),
        Err(e) => e.to_string(),
    };
    let e = refused(serde_json::json!({ "cities_per_path": 5 }), names.clone());
    assert!(e.contains("cities_per_path must be 2 or 3"), "{e}");
    let e = refused(serde_json::json!({}), names[..2].to_vec());
    assert!(e.contains("3 to 6") || e.contains("at least 3"), "{e}");
}
