//! What the benches that play games through the service share: the
//! service they play on, and how much their store directory holds.

use std::path::Path;
use std::sync::Arc;

use runestone::auth::Keys;
use runestone::clock::SystemClock;
use runestone::service::{Options, Service};
use runestone::store::EventStore;

/// A service on `store` with a snapshot every `snapshot_interval` events
/// and room for 100 folded games (64 MiB).
pub fn service(store: Arc<dyn EventStore>, snapshot_interval: u64) -> Service {
    let options = Options {
        public_url: "http://localhost".into(),
        snapshot_interval,
        cache_games: 100,
        cache_bytes: 64 << 20,
        mail_gather: chrono::Duration::zero(),
    };
    Service::new(store, runestone::games::registry(), Keys::new(&[7; 32], 30), Arc::new(SystemClock), options)
}

/// The bytes of a file, or of everything below a directory.
pub fn dir_bytes(path: &Path) -> u64 {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            std::fs::read_dir(path).map(|entries| entries.flatten().map(|e| dir_bytes(&e.path())).sum()).unwrap_or(0)
        }
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

/// Each entry of the directory with its bytes (sled's log `db`, its
/// snapshot `snap.*`, the `blobs` directory, ...).
pub fn dir_files(path: &Path) -> String {
    let mut files: Vec<(String, u64)> = std::fs::read_dir(path)
        .map(|entries| {
            entries.flatten().map(|e| (e.file_name().to_string_lossy().into_owned(), dir_bytes(&e.path()))).collect()
        })
        .unwrap_or_default();
    files.sort();
    files.iter().map(|(name, bytes)| format!("{name} {bytes}")).collect::<Vec<_>>().join(", ")
}
