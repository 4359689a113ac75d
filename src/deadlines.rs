//! The deadline scheduler: finds the entries of the deadline index that are
//! due (written with the events that started each clock, see
//! `service::deadlines`) and has the service act on each, once among several
//! nodes.

use std::sync::Arc;
use std::time::Duration;

use crate::service::{again_on_conflict, entry_due, Entry, Service};
use crate::store::{Side, SideWrite};

/// Finds due entries and acts on them.
pub struct Scheduler {
    pub service: Arc<Service>,
    pub poll: Duration,
}

/// How long a node holds the deadline entries it claimed: longer than it
/// takes to act on a tick's worth of them.
const CLAIM_LEASE: Duration = Duration::from_secs(60);

/// When an entry a node could not act on may be claimed again (by any node).
const RETRY_AFTER: Duration = Duration::from_secs(2);

impl Scheduler {
    /// Act on everything due now, once. Returns how many entries were acted
    /// on (an entry that failed is not counted, so a run of failures waits a
    /// poll between tries instead of spinning).
    pub async fn tick(&self) -> usize {
        let now = self.service.now().timestamp_millis();
        // Claimed, so that of several nodes on one database one acts on each.
        let mut before = b"d".to_vec();
        before.extend_from_slice(&(now.max(0) as u64 + 1).to_be_bytes());
        let rows = match self.service.store().claim(Side::Deadlines, b"d", &before, 128, CLAIM_LEASE) {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(error = %e, "cannot read the deadline index");
                return 0;
            }
        };
        let due: Vec<_> = rows.into_iter().filter(|(k, _)| entry_due(k).is_some_and(|d| d <= now)).collect();
        let mut acted = 0;
        for (key, raw) in &due {
            match serde_json::from_slice::<Entry>(raw) {
                Ok(entry) => {
                    // Another node may append to the game between this node's
                    // look at it and its append: the append is refused as
                    // stale, and the entry is acted on again from the game as
                    // it is now (while this node holds its claim).
                    let fired = again_on_conflict(true, || self.service.fire(key.clone(), entry.clone())).await;
                    match fired {
                        Ok(()) => acted += 1,
                        Err(e) => {
                            // Given up on: the entry stays due, and its claim
                            // is cut so that any node tries it again soon (the
                            // whole lease would hold the deadline back).
                            tracing::error!(
                                error = %e, game = %entry.game, seat = entry.seat,
                                "a deadline could not be acted on; it stays due and is tried again"
                            );
                            if let Err(e) = self.service.store().release(Side::Deadlines, key, RETRY_AFTER) {
                                tracing::error!(error = %e, "cannot release a claimed deadline entry");
                            }
                        }
                    }
                }
                Err(e) => {
                    tracing::error!(error = %e, "a deadline entry does not parse; removed");
                    let _ = self
                        .service
                        .store()
                        .put(vec![SideWrite { side: Side::Deadlines, key: key.clone(), value: None }])
                        .await;
                    acted += 1;
                }
            }
        }
        acted
    }

    pub async fn run(self) {
        loop {
            if self.tick().await == 0 {
                tokio::time::sleep(self.poll).await;
            }
        }
    }
}
