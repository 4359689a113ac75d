//! Golden logs under `events/` must replay to the same end, forever: every
//! `*.jsonl` there is folded again, its chain checked and its draws
//! re-derived from the revealed seed.

use std::path::{Path, PathBuf};

fn logs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            logs(&p, out);
        } else if p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p);
        }
    }
}

#[test]
fn every_golden_log_replays() {
    let mut files = Vec::new();
    logs(&Path::new(env!("CARGO_MANIFEST_DIR")).join("events"), &mut files);
    assert!(!files.is_empty(), "no golden logs found");
    for f in files {
        let report = runestone::cli::replay(&runestone::games::registry(), &f)
            .unwrap_or_else(|e| panic!("{} no longer replays: {e:#}", f.display()));
        assert!(report.contains("over") && report.contains("decisions re-derived"), "{}: {report}", f.display());
    }
}
