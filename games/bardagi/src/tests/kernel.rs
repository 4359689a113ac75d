//! Bardagi hosted by the kernel as the server hosts it: by ruleset id, with
//! options, commands and events as JSON, folded from a sealed log.

use runestone_engine::log::{seal, Actor, Envelope};
use runestone_engine::rng::Seed;
use runestone_engine::table::Table;
use runestone_engine::{Registry, Viewer};

fn registry() -> Registry {
    Registry::empty().with::<crate::Bardagi>()
}

#[test]
fn a_whole_game_runs_through_the_kernel_by_fallbacks_and_refolds_equal() {
    let reg = registry();
    let game = reg.get("bardagi").expect("registered").clone();
    let seed = Seed([9; 32]);
    let names: Vec<String> = ["Ann", "Bo", "Cy"].iter().map(|s| s.to_string()).collect();
    let options = serde_json::json!({ "board": "winter", "eight_cards": true });
    let drafts = Table::create(game.as_ref(), &options, names, &seed, None).expect("created");
    let mut log: Vec<Envelope> = seal("g1", None, drafts, "2026-01-01T00:00:00Z", &seed);
    let mut table = Table::fold(&reg, &log).expect("folds");
    let mut decisions = 0;
    while !table.is_over() {
        decisions += 1;
        assert!(decisions < 500, "endless");
        let p = table.pending().into_iter().find(|p| !p.submitted).expect("someone to wait for");
        let cmd = table.fallback(p.seat).expect("fallback");
        let drafts = table.decide(Actor::System, p.seat, &cmd, Some(table.head), &seed).expect("accepted");
        let head = (table.head, table.head_hash.clone());
        let envs = seal("g1", Some((head.0, &head.1)), drafts, "2026-01-01T00:00:00Z", &seed);
        for e in &envs {
            table.push(e).expect("pushes");
        }
        log.extend(envs);
    }
    let refold = Table::fold(&reg, &log).expect("refolds");
    assert_eq!(refold.save()["state"], table.save()["state"]);
    let o = table.outcome().unwrap();
    assert_eq!(o.scores.len(), 3);
    let v = table.view(Viewer::Public);
    assert!(v["players"][0]["gold"].is_number(), "all is public once the game is over");
    for e in &log {
        assert!(!table.describe(e).is_empty());
    }
}
