//! Every golden log of Realms (`events/realms/`, each rules version)
//! replays with identical events and hashes: its chain checked, and every
//! decision decided again from the revealed seed giving exactly the events
//! logged (the server's `every_golden_log_replays` does the same for every
//! game; this one needs only the game's crate).

use runestone_engine::harness::replay_goldens;
use runestone_engine::Registry;

#[test]
fn every_golden_log_of_every_rules_version_replays_with_identical_hashes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events/realms");
    let goldens = replay_goldens(&Registry::empty().with::<crate::Realms>(), &dir).unwrap_or_else(|e| panic!("{e}"));
    let mut versions = Vec::new();
    for g in &goldens {
        let report = &g.report;
        assert!(report.chain_ok && report.decisions_rederived > 4, "{}: {report:?}", g.path.display());
        versions.push(g.rules_version);
    }
    versions.sort();
    versions.dedup();
    assert_eq!(versions, (1..=crate::RULES_VERSION).collect::<Vec<_>>(), "a golden log of each rules version");
}
