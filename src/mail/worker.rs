//! The outbox worker: sends what is due, retries with exponential backoff,
//! and after too many failures moves a message to the dead letters, where
//! the host can see it and send it again.

use std::sync::Arc;
use std::time::Duration;

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

pub struct Worker {
    pub service: Arc<Service>,
    pub transport: Transport,
    pub from: Mailbox,
    pub domain: String,
    pub policy: Policy,
}

impl Worker {
    /// Send everything due now, once. Returns how many were tried.
    pub async fn tick(&self) -> usize {
        let now = self.service.now().timestamp_millis();
        let due = match self.service.store().scan(Side::Outbox, b"q", 256) {
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
            for (key, mut mail, result) in results.into_iter().flatten() {
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
            if let Err(e) = self.service.store().put(writes).await {
                // The sends happened but their bookkeeping did not: they will be
                // sent again with the same Message-ID.
                tracing::error!(error = %e, "cannot record outbox progress");
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
