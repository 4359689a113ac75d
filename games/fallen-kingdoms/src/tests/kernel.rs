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

#[test]
fn a_seat_that_owes_nothing_may_replace_its_standing_defence_orders_but_nothing_else() {
    use runestone_engine::log::{seal, Actor};
    use runestone_engine::table::KernelError;
    let reg = Registry::empty().with::<FallenKingdoms>();
    let game = reg.get("fallen-kingdoms").expect("registered").clone();
    let seed = Seed([3; 32]);
    let names: Vec<String> = ["Ann", "Bo", "Cy"].iter().map(|s| s.to_string()).collect();
    // Version 1, where seats owe decisions one after another.
    let options = serde_json::json!({ "rules_version": 1 });
    let drafts = Table::create(game.as_ref(), &options, names, &seed, None).expect("create");
    let mut log = seal("g0000000000000000", None, drafts, "2026-11-23T10:00:00Z", &seed);
    let mut table = Table::fold(&reg, &log).expect("fold");
    // Given a position where seat 2 owes no decision (the fallbacks play until then).
    let idle: u8 = loop {
        let pending = table.pending();
        if let Some(idle) = (0..3u8).find(|s| !pending.iter().any(|p| p.seat == *s)) {
            break idle;
        }
        // The first seat still owing its answer (during the god choice,
        // seats that chose are pending but submitted).
        let seat = pending.iter().find(|p| !p.submitted).expect("someone owes an answer").seat;
        let cmd = table.fallback(seat).expect("a fallback");
        let drafts = table.decide(Actor::System, seat, &cmd, None, &seed).expect("fallback accepted");
        let envs = seal(&table.game_id, Some((table.head, &table.head_hash)), drafts, "2026-11-23T10:00:00Z", &seed);
        log.extend(envs);
        table = Table::fold(&reg, &log).expect("refold");
    };
    // When it sets standing defence orders, they are taken.
    let defence = serde_json::json!({ "type": "set_defence", "defence": { "retreat_at": 2, "prefer": [] } });
    let drafts = table.decide(Actor::Seat(idle), idle, &defence, None, &seed).expect("standing order taken");
    assert_eq!(drafts.len(), 1);
    // But any other command of that seat is still refused as not its turn.
    let other = serde_json::json!({ "type": "pass_invasion" });
    let err = table.decide(Actor::Seat(idle), idle, &other, None, &seed).unwrap_err();
    assert!(matches!(err, KernelError::NotPending { .. }), "{err:?}");
    // And a seat that is not at the table may not give one.
    let err = table.decide(Actor::Seat(7), 7, &defence, None, &seed).unwrap_err();
    assert!(matches!(err, KernelError::NotPending { .. }), "{err:?}");
}
