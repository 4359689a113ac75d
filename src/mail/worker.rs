//! The outbox worker: sends what is due, retries with exponential backoff,
//! and after too many failures moves a message to the dead letters, where
//! the host can see it and send it again.
//!
//! A message is sent first and its record (removed, or queued for a retry)
//! written after. When that record cannot be written (the disk is full, the
//! store refuses writes), the message is *held*: its bookkeeping stays in
//! memory, it is not sent again, and the worker as a whole sends nothing
//! until the store takes the held records, trying again with a doubling
//! wait. Delivery is at least once: a process killed between the send and
//! the record sends again, with the same Message-ID.

use std::collections::HashSet;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lettre::message::Mailbox;

use super::{dead_key, queue_due, queue_key, Mail, Transport};
use crate::metrics::Metrics;
use crate::service::Service;
use crate::store::{Side, SideWrite};

/// How the worker behaves.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Failures before a message becomes a dead letter.
    pub max_attempts: u32,
    /// First retry after this long; each later one waits twice as long.
    pub backoff: chrono::Duration,
    /// Longest wait between retries.
    pub max_backoff: chrono::Duration,
    /// How often to look for due messages when there was nothing to do.
    pub poll: Duration,
    /// Messages sent at once over the pooled connections.
    pub parallel: usize,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            max_attempts: 8,
            backoff: chrono::Duration::seconds(30),
            max_backoff: chrono::Duration::hours(2),
            poll: Duration::from_millis(200),
            parallel: 8,
        }
    }
}

/// How long a node holds the outbox records it took to send, before another
/// node may take them (a node that died mid-send): longer than any tick.
const CLAIM_LEASE: Duration = Duration::from_secs(300);

/// The first wait before offering held records to the store again.
const STORE_RETRY_FIRST: Duration = Duration::from_secs(1);
/// The longest such wait.
const STORE_RETRY_MAX: Duration = Duration::from_secs(60);

/// Records of sends the store did not take yet (see the module docs).
#[derive(Default)]
pub struct Held {
    inner: Mutex<HeldInner>,
}

#[derive(Default)]
struct HeldInner {
    /// The outbox writes that record sends already made.
    writes: Vec<SideWrite>,
    /// Queue keys of the messages sent: never sent again while held.
    keys: HashSet<Vec<u8>>,
    /// When to offer the writes to the store again, and the wait after that.
    retry_at: Option<Instant>,
    wait: Duration,
}

impl Held {
    fn lock(&self) -> std::sync::MutexGuard<'_, HeldInner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Messages sent whose record is held.
    pub fn len(&self) -> usize {
        self.lock().keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

pub struct Worker {
    pub service: Arc<Service>,
    pub transport: Transport,
    pub from: Mailbox,
    pub domain: String,
    pub policy: Policy,
    pub held: Held,
}

impl Worker {
    /// Offer held records to the store, at most once per wait. `true` when
    /// nothing is held any more (the worker may send).
    async fn settle_held(&self) -> bool {
        let writes = {
            let h = self.held.lock();
            if h.writes.is_empty() {
                return true;
            }
            if h.retry_at.is_some_and(|at| Instant::now() < at) {
                return false;
            }
            h.writes.clone()
        };
        match self.service.store().put(writes).await {
            Ok(()) => {
                let mut h = self.held.lock();
                tracing::warn!(messages = h.keys.len(), "the store takes outbox records again; mail resumes");
                *h = HeldInner::default();
                self.service.metrics.mail_held.store(0, Relaxed);
                true
            }
            Err(e) => {
                self.hold_failed(&e.to_string());
                false
            }
        }
    }

    /// The store refused the held records: wait twice as long next time.
    fn hold_failed(&self, error: &str) {
        let mut h = self.held.lock();
        h.wait = if h.wait.is_zero() { STORE_RETRY_FIRST } else { (h.wait * 2).min(STORE_RETRY_MAX) };
        h.retry_at = Some(Instant::now() + h.wait);
        Metrics::inc(&self.service.metrics.outbox_store_failures);
        self.service.metrics.mail_held.store(h.keys.len() as u64, Relaxed);
        tracing::error!(
            error,
            held = h.keys.len(),
            retry_in_seconds = h.wait.as_secs(),
            "cannot record outbox progress; mail is paused and the sent messages are held, not sent again"
        );
    }

    /// Send everything due now, once. Returns how many were tried.
    pub async fn tick(&self) -> usize {
        if !self.settle_held().await {
            return 0;
        }
        let now = self.service.now().timestamp_millis();
        // Claimed, so that of several nodes on one database one sends each.
        let due = match self.service.store().claim(Side::Outbox, b"q", &queue_key(now + 1, ""), 256, CLAIM_LEASE) {
            Ok(rows) => rows.into_iter().filter(|(k, _)| queue_due(k).is_some_and(|d| d <= now)).collect::<Vec<_>>(),
            Err(e) => {
                tracing::error!(error = %e, "cannot read the outbox");
                return 0;
            }
        };
        let n = due.len();
        for chunk in due.chunks(self.policy.parallel.max(1)) {
            let sends = chunk.iter().map(|(key, raw)| async move {
                let mail: Mail = match serde_json::from_slice(raw) {
                    Ok(m) => m,
                    Err(e) => {
                        tracing::error!(error = %e, "an outbox record does not parse; it stays for an operator to look at");
                        return None;
                    }
                };
                let result = self.transport.send(&mail, &self.from, &self.domain).await;
                Some((key.clone(), mail, result))
            });
            let results = futures_util::future::join_all(sends).await;
            let mut writes = Vec::new();
            let mut sent_keys = Vec::new();
            for (key, mut mail, result) in results.into_iter().flatten() {
                sent_keys.push(key.clone());
                writes.push(SideWrite { side: Side::Outbox, key, value: None });
                match result {
                    Ok(()) => {
                        Metrics::inc(&self.service.metrics.mail_sent);
                        tracing::info!(id = %mail.id, kind = %mail.kind, game = %mail.game, "mail sent");
                    }
                    Err(e) => {
                        Metrics::inc(&self.service.metrics.mail_failures);
                        mail.attempts += 1;
                        mail.last_error = Some(e.to_string());
                        let value = Some(serde_json::to_vec(&mail).expect("JSON"));
                        if mail.attempts >= self.policy.max_attempts {
                            Metrics::inc(&self.service.metrics.mail_dead);
                            tracing::warn!(id = %mail.id, error = %e, "mail is a dead letter");
                            writes.push(SideWrite { side: Side::Outbox, key: dead_key(&mail.game, &mail.id), value });
                            if mail.kind != "host_alert" {
                                let alert = format!(
                                    "the message \"{}\" to {} could not be delivered after {} tries ({e}); see the dead letters to send it again",
                                    mail.subject, mail.to, mail.attempts
                                );
                                writes.extend(self.service.alert_host(&mail.game, &alert).await);
                            }
                        } else {
                            let wait = (self.policy.backoff * 2i32.pow(mail.attempts.min(20) - 1))
                                .min(self.policy.max_backoff);
                            tracing::warn!(id = %mail.id, error = %e, retry_in = %wait, "mail failed; will retry");
                            writes.push(SideWrite {
                                side: Side::Outbox,
                                key: queue_key(now + wait.num_milliseconds(), &mail.id),
                                value,
                            });
                        }
                    }
                }
            }
            if let Err(e) = self.service.store().put(writes.clone()).await {
                // The sends happened but their bookkeeping did not: hold it,
                // send nothing more until the store takes it.
                {
                    let mut h = self.held.lock();
                    h.writes.extend(writes);
                    h.keys.extend(sent_keys);
                }
                self.hold_failed(&e.to_string());
                return n;
            }
        }
        n
    }

    /// Run until the process ends.
    pub async fn run(self) {
        loop {
            if self.tick().await == 0 {
                tokio::time::sleep(self.policy.poll).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Keys;
    use crate::clock::SystemClock;
    use crate::config::Settings;
    use crate::service::Options;
    use crate::store::sled::SledStore;
    use crate::store::EventStore;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_sent_message_whose_record_fails_is_held_not_sent_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Arc::new(SledStore::open(&dir.path().join("events")).expect("open"));
        let service = Arc::new(Service::new(
            store.clone(),
            crate::games::registry(),
            Keys::new(&[1; 32], 30),
            Arc::new(SystemClock),
            Options {
                public_url: "http://localhost".into(),
                snapshot_interval: 64,
                cache_games: 16,
                cache_bytes: 1 << 20,
            },
        ));
        let mail = Mail {
            id: super::super::mail_id("g", 3, "1", "your_move"),
            game: "g".into(),
            kind: "your_move".into(),
            to_name: "Ása".into(),
            to: "asa@example.org".into(),
            subject: "Your move".into(),
            text: "hello".into(),
            html: "<p>hello</p>".into(),
            unsubscribe: None,
            attempts: 0,
            last_error: None,
        };
        let key = queue_key(0, &mail.id);
        store
            .put(vec![SideWrite { side: Side::Outbox, key, value: Some(serde_json::to_vec(&mail).unwrap()) }])
            .await
            .expect("queue");
        let transport = Transport::from_settings(&Settings::defaults().mail, dir.path()).expect("transport");
        let worker = Worker {
            service: service.clone(),
            transport,
            from: "runestone <rs@example.org>".parse().unwrap(),
            domain: "example.org".into(),
            policy: Policy::default(),
            held: Held::default(),
        };
        store.fail_syncs(true);
        let sent = |dir: &std::path::Path| std::fs::read_dir(dir.join("mail")).map(|d| d.count()).unwrap_or(0);
        assert_eq!(worker.tick().await, 1);
        assert_eq!(sent(dir.path()), 1, "sent once");
        assert_eq!(worker.held.len(), 1);
        // The store now refuses writes: the worker sends nothing more.
        for _ in 0..20 {
            assert_eq!(worker.tick().await, 0);
        }
        assert_eq!(sent(dir.path()), 1, "never sent again while its record is held");
        assert_eq!(service.metrics.mail_held.load(Relaxed), 1);
        assert!(service.metrics.outbox_store_failures.load(Relaxed) >= 1);
        let text = service.metrics.render(0, 0, 0);
        assert!(text.contains("runestone_mail_held 1"), "{text}");
    }
}
