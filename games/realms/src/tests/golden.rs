//! Every golden log of Realms (`events/realms/`, each rules version)
//! replays with identical events and hashes: its chain checked, and every
//! decision decided again from the revealed seed giving exactly the events
//! logged (the server's `every_golden_log_replays` does the same for every
//! game; this one needs only the game's crate).

use runestone_engine::log::{Envelope, KernelEvent};
use runestone_engine::{verify, Registry, Seed};

#[test]
fn every_golden_log_of_every_rules_version_replays_with_identical_hashes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events/realms");
    let registry = Registry::empty().with::<crate::Realms>();
    let mut versions = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the golden logs") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable");
        let log: Vec<Envelope> = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with("{\"end\""))
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
            .collect();
        let Some(KernelEvent::SeedRevealed { seed }) = log.last().and_then(|e| e.kernel()) else {
            panic!("{}: the game is not over", path.display())
        };
        let seed = Seed::from_hex(seed).expect("a seed");
        let report = verify::full(&registry, &log, &seed);
        assert!(report.problem.is_none(), "{}: {:?}", path.display(), report.problem);
        assert!(report.chain_ok && report.decisions_rederived > 4, "{}: {report:?}", path.display());
        if let Some(KernelEvent::GameCreated { rules_version, .. }) = log[0].kernel() {
            versions.push(*rules_version);
        }
    }
    versions.sort();
    versions.dedup();
    assert_eq!(versions, (1..=crate::RULES_VERSION).collect::<Vec<_>>(), "a golden log of each rules version");
}
