//! Realms hosted by the kernel as the server will host it: by ruleset id,
//! with options, commands and events as JSON, folded from a sealed log.

use runestone_engine::harness::play_by_fallbacks;
use runestone_engine::log::Body;
use runestone_engine::{Registry, Seed, Viewer};

use crate::Realms;

#[test]
fn a_whole_game_runs_through_the_kernel_by_fallbacks_refolds_equal_and_hides_orders() {
    let reg = Registry::empty().with::<Realms>();
    let options = serde_json::json!({ "mode": "basic", "years": 1 });
    let names = ["Ann", "Bo", "Cy", "Di"];
    let played = play_by_fallbacks(&reg, "realms", &options, &names, &Seed([5; 32]), 100, |_, seat, e| {
        // Another realm's orders are hidden until they are revealed.
        let other = e.redacted_for(Viewer::Seat((seat + 1) % 4), false);
        if let Body::Game { event, .. } = &other.body {
            let event = event.value();
            if event["type"] == "orders_given" {
                assert!(event["orders"].is_null(), "orders leak: {event}");
                assert!(other.decision.as_ref().is_none_or(|d| d.command.is_none()), "the command leaks");
            }
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(played.decisions, 16, "one input per realm per season");
    let table = &played.table;
    assert_eq!(table.outcome().unwrap().scores.len(), 4);
    for e in &played.log {
        assert!(!table.describe(e).is_empty());
    }
}
