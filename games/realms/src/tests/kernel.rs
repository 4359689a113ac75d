//! Realms hosted by the kernel as the server will host it: by ruleset id,
//! with options, commands and events as JSON, folded from a sealed log.

use runestone_engine::log::{seal, Actor, Body, Envelope};
use runestone_engine::table::Table;
use runestone_engine::{Registry, Seed, Viewer};

use crate::Realms;

#[test]
fn a_whole_game_runs_through_the_kernel_by_fallbacks_refolds_equal_and_hides_orders() {
    let reg = Registry::empty().with::<Realms>();
    let game = reg.get("realms").expect("registered").clone();
    let seed = Seed([5; 32]);
    let names: Vec<String> = ["Ann", "Bo", "Cy", "Di"].iter().map(|s| s.to_string()).collect();
    let options = serde_json::json!({ "mode": "basic", "years": 1 });
    let drafts = Table::create(game.as_ref(), &options, names, &seed, None).expect("created");
    let mut log: Vec<Envelope> = seal("g1", None, drafts, "2026-01-01T00:00:00Z", &seed);
    let mut table = Table::fold(&reg, &log).expect("folds");
    let mut decisions = 0;
    while !table.is_over() {
        decisions += 1;
        assert!(decisions < 100, "endless");
        let p = table.pending().into_iter().find(|p| !p.submitted).expect("someone to wait for");
        let cmd = table.fallback(p.seat).expect("fallback");
        let drafts = table.decide(Actor::System, p.seat, &cmd, Some(table.head), &seed).expect("accepted");
        let head = (table.head, table.head_hash.clone());
        let envs = seal("g1", Some((head.0, &head.1)), drafts, "2026-01-01T00:00:00Z", &seed);
        for e in &envs {
            table.push(e).expect("pushes");
            // Another realm's orders are hidden until they are revealed.
            let other = e.redacted_for(Viewer::Seat((p.seat + 1) % 4), false);
            if let Body::Game { event, .. } = &other.body {
                if event["type"] == "orders_given" {
                    assert!(event["orders"].is_null(), "orders leak: {event}");
                    assert!(other.decision.as_ref().is_none_or(|d| d.command.is_none()), "the command leaks");
                }
            }
        }
        log.extend(envs);
    }
    assert_eq!(decisions, 16, "one input per realm per season");
    let refold = Table::fold(&reg, &log).expect("refolds");
    assert_eq!(refold.save()["state"], table.save()["state"]);
    assert_eq!(table.outcome().unwrap().scores.len(), 4);
    for e in &log {
        assert!(!table.describe(e).is_empty());
    }
}
