//! Free space on the store's filesystem against the configured reserve
//! (`storage.reserve`): below it, new games and other non-essential writes
//! are refused with 507 while moves of running games and their mail go on,
//! `/healthz` says "degraded", and the log carries one alert per crossing.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::config::{human_bytes, Reserve};

/// What [`Space::check`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level {
    pub free: u64,
    pub total: u64,
    /// The reserve in bytes on this filesystem.
    pub reserve: u64,
}

impl Level {
    pub fn low(&self) -> bool {
        self.free < self.reserve
    }

    /// Why a non-essential write is refused, in words.
    pub fn refusal(&self) -> String {
        format!(
            "the server's disk is nearly full ({} free, below the reserve of {} kept for running games); \
             new games cannot be started until an operator frees space",
            human_bytes(self.free),
            human_bytes(self.reserve)
        )
    }
}

pub struct Space {
    path: PathBuf,
    reserve: Reserve,
    /// Whether the last check was below the reserve (for the alert line).
    low: AtomicBool,
}

impl Space {
    pub fn new(path: PathBuf, reserve: Reserve) -> Space {
        Space { path, reserve, low: AtomicBool::new(false) }
    }

    /// Measure now; logs one alert when crossing the reserve either way.
    /// `None` when the filesystem cannot be measured (then nothing is refused).
    pub fn check(&self) -> Option<Level> {
        let measured = fs2::available_space(&self.path).and_then(|free| Ok((free, fs2::total_space(&self.path)?)));
        let (free, total) = match measured {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(error = %e, path = %self.path.display(), "cannot measure the free space");
                return None;
            }
        };
        let level = Level { free, total, reserve: self.reserve.bytes(total) };
        let low = level.low();
        if self.low.swap(low, Ordering::Relaxed) != low {
            if low {
                tracing::error!(
                    free = %human_bytes(free),
                    reserve = %human_bytes(level.reserve),
                    "ALERT: free disk space is below the reserve: new games are refused, running games go on; free some space"
                );
            } else {
                tracing::warn!(free = %human_bytes(free), "free disk space is back above the reserve; new games are accepted again");
            }
        }
        Some(level)
    }

    /// The last check found the disk below the reserve.
    pub fn was_low(&self) -> bool {
        self.low.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reserve_larger_than_the_disk_is_low_and_says_why() {
        let dir = tempfile::tempdir().expect("tempdir");
        let space = Space::new(dir.path().to_owned(), Reserve::Percent(100.0));
        let level = space.check().expect("measured");
        assert!(level.low() && space.was_low());
        assert!(level.refusal().contains("below the reserve"), "{}", level.refusal());
        let none = Space::new(dir.path().to_owned(), Reserve::Bytes(0));
        assert!(!none.check().expect("measured").low());
    }
}
