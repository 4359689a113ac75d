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
//!
//! Mail is not urgent, requests are: the server runs the worker on an OS
//! thread of its own ([`Background`]) whose nice value is raised (Linux), so
//! that when the cores are busy the request handlers get them first, and
//! sends at most [`Policy::rate`] messages a second, each at its own slot
//! (one started every `1 / rate` seconds), not [`Policy::parallel`] at once
//! and then a pause: what a send costs the cores is spread evenly over
//! time, instead of landing in bursts on the requests that arrive during
//! one ([`Worker::tick`]). None of this changes what is
//! sent or recorded: the worker is stopped only at an await point, where a
//! message is either not sent yet or sent and its record either written or
//! not (then sent again after a restart, with the same Message-ID).

use std::collections::HashSet;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use std::panic::AssertUnwindSafe;

use futures_util::stream::{FuturesUnordered, StreamExt};
use futures_util::FutureExt;
use lettre::message::Mailbox;

use crate::mail::{dead_key, queue_due, queue_key, Mail, MailError, Transport};
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
    /// The most messages in flight over the pooled connections; also how
    /// many finished sends one record (`put`) holds.
    pub parallel: usize,
    /// The most messages sent per second (0: no bound).
    pub rate: u32,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            max_attempts: 8,
            backoff: chrono::Duration::seconds(30),
            max_backoff: chrono::Duration::hours(2),
            poll: Duration::from_millis(200),
            parallel: 8,
            rate: 0,
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

/// A send finished: its queue key, the message, and how the relay answered.
type Sent = (Vec<u8>, Mail, Result<(), MailError>);

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
    ///
    /// Each message starts at its own slot of the rate (the `k`-th of the
    /// tick at `k / rate` seconds after its start), with at most
    /// [`Policy::parallel`] in flight, so sends are spread evenly over time
    /// instead of leaving in bursts of `parallel` (a burst's CPU lands on the
    /// requests that arrive meanwhile: docs/performance.md, outbox).
    /// Their records are written together, one `put` per `parallel` messages
    /// finished (and one for the rest).
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
        let parallel = self.policy.parallel.max(1);
        let started = Instant::now();
        let mut waiting = due.iter().enumerate();
        let mut in_flight = FuturesUnordered::new();
        let mut finished = Vec::new();
        // Set when the store refused a record: nothing more starts, and the
        // records of the sends still in flight are held with it.
        let mut holding = false;
        loop {
            while !holding && in_flight.len() < parallel {
                let Some((slot, (key, raw))) = waiting.next() else { break };
                in_flight.push(async move {
                    self.pace(started, slot).await;
                    let mail: Mail = match crate::mail::decode(raw) {
                        Ok(m) => m,
                        Err(e) => {
                            tracing::error!(error = %e, "an outbox record does not parse; it stays for an operator to look at");
                            return None;
                        }
                    };
                    // A panic anywhere in one message's making or sending
                    // sets that message aside; the others go on.
                    let result = AssertUnwindSafe(self.deliver(&mail))
                        .catch_unwind()
                        .await
                        .unwrap_or_else(|p| {
                            Err(MailError::Build(format!("the mail library failed on it: {}", crate::mail::panic_words(&*p))))
                        });
                    self.service.metrics.outbox.beat();
                    Some((key.clone(), mail, result))
                });
            }
            let Some(sent) = in_flight.next().await else { break };
            finished.extend(sent);
            if finished.len() >= parallel {
                holding = self.record(std::mem::take(&mut finished), now, holding).await;
            }
        }
        if !finished.is_empty() {
            holding = self.record(finished, now, holding).await;
        }
        if holding {
            return n;
        }
        // The next tick's first messages count against this one's pace.
        self.pace(started, n).await;
        n
    }

    /// Write the records of finished sends, or hold them (when the store
    /// refuses them, or already refused others: `holding`). Whether records
    /// are held now.
    async fn record(&self, finished: Vec<Sent>, now: i64, holding: bool) -> bool {
        let (writes, sent_keys) = self.records(finished, now).await;
        let refused = if holding { None } else { self.service.store().put(writes.clone()).await.err() };
        if !holding && refused.is_none() {
            return false;
        }
        // The sends happened but their bookkeeping did not: hold it, send
        // nothing more until the store takes it.
        {
            let mut h = self.held.lock();
            h.writes.extend(writes);
            h.keys.extend(sent_keys);
            self.service.metrics.mail_held.store(h.keys.len() as u64, Relaxed);
        }
        if let Some(e) = refused {
            self.hold_failed(&e.to_string());
        }
        true
    }

    /// The outbox writes that record finished sends (removed, queued for a
    /// retry, or a dead letter with an alert to the host), and the queue
    /// keys of the messages sent.
    async fn records(&self, finished: Vec<Sent>, now: i64) -> (Vec<SideWrite>, Vec<Vec<u8>>) {
        let mut writes = Vec::new();
        let mut sent_keys = Vec::new();
        for (key, mut mail, result) in finished {
            sent_keys.push(key.clone());
            writes.push(SideWrite { side: Side::Outbox, key, value: None });
            match result {
                Ok(()) => {
                    Metrics::inc(&self.service.metrics.mail_sent);
                    tracing::info!(id = %mail.id, kind = %mail.kind, game = %mail.game, "mail sent");
                }
                // The browser is gone (its subscription removed): nobody to tell.
                Err(MailError::Gone(why)) => {
                    tracing::info!(id = %mail.id, game = %mail.game, why = %why, "a push notice's browser is gone; dropped");
                }
                Err(e) => {
                    Metrics::inc(&self.service.metrics.mail_failures);
                    mail.attempts += 1;
                    mail.last_error = Some(e.to_string());
                    let value = Some(crate::mail::encode(&mail));
                    // A message that cannot be made fails the same way on
                    // every try: it is set aside at once.
                    let unbuildable = matches!(e, MailError::Build(_) | MailError::Refused(_));
                    if unbuildable || mail.attempts >= self.policy.max_attempts {
                        Metrics::inc(&self.service.metrics.mail_dead);
                        if unbuildable {
                            tracing::error!(id = %mail.id, game = %mail.game, error = %e, "a message cannot be made; it is set aside as a dead letter");
                        } else {
                            tracing::warn!(id = %mail.id, error = %e, "mail is a dead letter");
                        }
                        writes.push(SideWrite { side: Side::Outbox, key: dead_key(&mail.game, &mail.id), value });
                        if mail.kind != "host_alert" {
                            let alert = if let MailError::Refused(why) = &e {
                                format!(
                                    "the notice \"{}\" to {} was refused ({why}); it is set aside in the dead letters",
                                    crate::mail::header_text(&mail.subject, crate::mail::MAX_SUBJECT),
                                    mail.to
                                )
                            } else if unbuildable {
                                format!(
                                    "the message \"{}\" to {} could not be made ({e}); it is set aside in the dead letters",
                                    crate::mail::header_text(&mail.subject, crate::mail::MAX_SUBJECT),
                                    mail.to
                                )
                            } else {
                                format!(
                                    "the message \"{}\" to {} could not be delivered after {} tries ({e}); see the dead letters to send it again",
                                    mail.subject, mail.to, mail.attempts
                                )
                            };
                            writes.extend(self.service.alert_host(&mail.game, &alert).await);
                        }
                    } else {
                        let wait =
                            (self.policy.backoff * 2i32.pow(mail.attempts.min(20) - 1)).min(self.policy.max_backoff);
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
        (writes, sent_keys)
    }

    /// Send one outbox record: a mail by the transport, a webhook notice
    /// by the webhook client (behind its guard), a push notice through the
    /// browser's push service (behind the same guard). A subscription its
    /// push service says is gone is removed from its seat here.
    async fn deliver(&self, mail: &Mail) -> Result<(), MailError> {
        if let Some(p) = &mail.push {
            return match self.service.push_now(&mail.id, &mail.game, &mail.kind, &mail.subject, p).await {
                Ok(()) => Ok(()),
                Err(crate::webpush::PushError::Gone(w)) => {
                    if let Err(e) = self.service.push_gone(&mail.game, p.seat, &p.sub.endpoint).await {
                        // Its next notice is answered the same way and removes it then.
                        tracing::warn!(game = %mail.game, error = %e, "cannot remove a gone push subscription yet");
                    }
                    Err(MailError::Gone(w))
                }
                Err(crate::webpush::PushError::Refused(w)) => Err(MailError::Refused(w)),
                Err(crate::webpush::PushError::Failed(w)) => Err(MailError::Send(w)),
            };
        }
        let Some(h) = &mail.hook else {
            return self.transport.send(mail, &self.from, &self.domain, self.service.now()).await;
        };
        let body = crate::webhook::body(h.shape, &mail.id, &mail.game, &mail.kind, &mail.subject, h);
        self.service.webhooks().client.post(&h.url, &body, &mail.id).await.map_err(|e| match e {
            crate::webhook::HookError::Refused(w) => MailError::Refused(w),
            crate::webhook::HookError::Failed(w) => MailError::Send(w),
        })
    }

    /// Wait until `tried` messages since `started` are within the rate.
    async fn pace(&self, started: Instant, tried: usize) {
        if self.policy.rate == 0 || tried == 0 {
            return;
        }
        let due = started + Duration::from_secs_f64(tried as f64 / f64::from(self.policy.rate));
        tokio::time::sleep_until(due.into()).await;
    }

    /// Run until the process ends. A tick that panics (a fault outside any
    /// one message: those are set aside in [`Worker::tick`]) is reported to
    /// `/healthz` and the log, and the worker goes on with the next.
    pub async fn run(self) {
        let alive = &self.service.metrics.outbox;
        alive.started(self.policy.poll);
        loop {
            alive.beat();
            match AssertUnwindSafe(self.tick()).catch_unwind().await {
                Ok(0) => tokio::time::sleep(self.policy.poll).await,
                Ok(_) => {}
                Err(p) => {
                    let why = crate::mail::panic_words(&*p);
                    tracing::error!(error = %why, "the outbox worker failed; it starts again");
                    alive.failed(why);
                    tokio::time::sleep(self.policy.poll).await;
                }
            }
        }
    }
}

/// The outbox worker on an OS thread of its own, at a lower priority than
/// the request handlers; stopped (and waited for) by [`Background::stop`]
/// or when dropped.
pub struct Background {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Background {
    /// Start `worker` on a thread named `outbox` with its own single-threaded
    /// runtime, its nice value raised by `nice` (0 leaves it as it is).
    pub fn start(worker: Worker, nice: i32) -> std::io::Result<Background> {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let thread = std::thread::Builder::new().name("outbox".into()).spawn(move || {
            if nice != 0 {
                if let Err(e) = lower_priority(nice) {
                    tracing::warn!(error = %e, nice, "cannot lower the outbox thread's priority; mail is sent at the requests' priority");
                }
            }
            let service = worker.service.clone();
            let ran = std::panic::catch_unwind(AssertUnwindSafe(|| {
                runtime.block_on(async move {
                    tokio::select! {
                        _ = worker.run() => {}
                        _ = stopped => {}
                    }
                })
            }));
            service.metrics.outbox.ended(ran.err().map(|p| crate::mail::panic_words(&*p)));
        })?;
        Ok(Background { stop: Some(stop), thread: Some(thread) })
    }

    /// Stop the worker at its next await point and wait for its thread.
    pub fn stop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            if t.join().is_err() {
                tracing::error!("the outbox thread panicked");
            }
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Raise the calling thread's nice value by `by` (Linux: a thread's nice
/// value is its own; threads it starts inherit it).
#[cfg(target_os = "linux")]
fn lower_priority(by: i32) -> std::io::Result<()> {
    // SAFETY: plain system calls on the calling thread's own id.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        *libc::__errno_location() = 0;
        let now = libc::getpriority(libc::PRIO_PROCESS, tid);
        if now == -1 && *libc::__errno_location() != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::setpriority(libc::PRIO_PROCESS, tid, (now + by).clamp(-20, 19)) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn lower_priority(_by: i32) -> std::io::Result<()> {
    Err(std::io::Error::other("a thread's own priority is only set on Linux"))
}

/// The calling thread's nice value (Linux; tests).
#[cfg(all(test, target_os = "linux"))]
fn own_nice() -> i32 {
    // SAFETY: as in `lower_priority`.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::syscall(libc::SYS_gettid) as libc::id_t) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::SystemClock;
    use crate::config::Settings;
    use crate::metrics::{Liveness, STALL};
    use crate::store::sled::SledStore;
    use crate::store::EventStore;

    #[cfg(target_os = "linux")]
    #[test]
    fn the_outbox_thread_alone_is_lowered() {
        let ours = own_nice();
        let theirs = std::thread::spawn(|| {
            let before = own_nice();
            lower_priority(5).expect("raising a nice value needs no privilege");
            (before, own_nice())
        })
        .join()
        .expect("thread");
        assert_eq!(theirs, (ours, (ours + 5).min(19)));
        assert_eq!(own_nice(), ours, "the calling thread keeps its priority");
    }

    /// A worker over a fresh sled store and the file transport, with
    /// `n` messages due, and the store.
    async fn worker_with(dir: &std::path::Path, n: usize, policy: Policy) -> (Worker, Arc<SledStore>) {
        worker_with_mails(dir, (0..n).map(|i| crate::mail::sample(&i.to_string())).collect(), policy).await
    }

    /// A worker as [`worker_with`]'s, with `mails` due.
    async fn worker_with_mails(dir: &std::path::Path, mails: Vec<Mail>, policy: Policy) -> (Worker, Arc<SledStore>) {
        let store = Arc::new(SledStore::open(&dir.join("events")).expect("open"));
        let service = Arc::new(crate::service::test_service(store.clone(), Arc::new(SystemClock), 64, 1 << 20));
        let mut writes = Vec::new();
        for mail in mails {
            let key = queue_key(0, &mail.id);
            writes.push(SideWrite { side: Side::Outbox, key, value: Some(crate::mail::encode(&mail)) });
        }
        store.put(writes).await.expect("queue");
        let transport = Transport::from_settings(&Settings::defaults().mail, dir).expect("transport");
        let worker = Worker {
            service,
            transport,
            from: "runestone <rs@example.org>".parse().unwrap(),
            domain: "example.org".into(),
            policy,
            held: Held::default(),
        };
        (worker, store)
    }

    /// The messages the file transport wrote.
    fn sent_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        std::fs::read_dir(dir.join("mail")).map(|d| d.map(|e| e.expect("entry").path()).collect()).unwrap_or_default()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_sent_message_whose_record_fails_is_held_not_sent_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (worker, store) = worker_with(dir.path(), 1, Policy::default()).await;
        let service = worker.service.clone();
        store.fail_syncs(true);
        let sent = |dir: &std::path::Path| sent_files(dir).len();
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

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sends_in_flight_when_the_store_refuses_are_held_too_and_no_more_start() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (worker, store) = worker_with(dir.path(), 5, Policy { parallel: 2, ..Policy::default() }).await;
        store.fail_syncs(true);
        assert_eq!(worker.tick().await, 5, "five were due");
        // The first record (of two sends) is refused while a third is in
        // flight; that one finishes and is held, the last two never start.
        assert_eq!(sent_files(dir.path()).len(), 3);
        assert_eq!(worker.held.len(), 3);
        assert_eq!(worker.service.metrics.mail_held.load(Relaxed), 3);
        for _ in 0..5 {
            assert_eq!(worker.tick().await, 0);
        }
        assert_eq!(sent_files(dir.path()).len(), 3, "nothing more while records are held");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_message_is_sent_once_and_recorded_per_parallel_sends() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (worker, store) = worker_with(dir.path(), 20, Policy { parallel: 8, rate: 0, ..Policy::default() }).await;
        let groups = store.group_counts().0;
        assert_eq!(worker.tick().await, 20);
        assert_eq!(sent_files(dir.path()).len(), 20);
        assert_eq!(store.group_counts().0 - groups, 3, "records of 8, 8 and 4 sends");
        assert!(store.scan(Side::Outbox, b"q", 100).expect("scan").is_empty(), "every record removed");
        assert_eq!(worker.service.metrics.mail_sent.load(Relaxed), 20);
        assert_eq!(worker.tick().await, 0, "nothing left to send");
    }

    /// Sends start one per slot of the rate, not `parallel` at once: at
    /// most `k` messages leave in the first `k / rate` seconds of a tick.
    /// (A lower bound only: a slow machine sends later, never sooner.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sends_are_spread_over_the_rate_not_sent_in_bursts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let rate = 20;
        let (worker, _store) = worker_with(dir.path(), 6, Policy { parallel: 8, rate, ..Policy::default() }).await;
        let began = std::time::SystemTime::now();
        assert_eq!(worker.tick().await, 6);
        let mut written: Vec<std::time::SystemTime> = sent_files(dir.path())
            .iter()
            .map(|p| std::fs::metadata(p).and_then(|m| m.modified()).expect("mtime"))
            .collect();
        written.sort();
        assert_eq!(written.len(), 6);
        // File times come from the kernel's coarse clock (up to a tick late
        // or early against `SystemTime::now`).
        let coarse = Duration::from_millis(20);
        for (k, at) in written.iter().enumerate() {
            let slot = Duration::from_secs_f64(k as f64 / f64::from(rate));
            assert!(
                *at + coarse >= began + slot,
                "message {k} left before its slot: {:?} after the tick began",
                at.duration_since(began)
            );
        }
        assert!(
            began.elapsed().expect("clock") >= Duration::from_secs_f64(6.0 / f64::from(rate)),
            "the tick paces its end too"
        );
    }

    /// A name with a line break (from a record written before names were
    /// checked) neither stops the worker nor makes a header; a message that
    /// cannot be made at all is set aside at once, with its reason, and the
    /// others go on.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn one_bad_message_is_set_aside_and_the_others_are_sent() {
        let dir = tempfile::tempdir().expect("tempdir");
        let sample = crate::mail::sample;
        let mails = vec![
            sample("0"),
            Mail { to_name: "A\r\nBcc: x@example.org".into(), ..sample("1") },
            Mail { to_name: "A\nB".into(), subject: "Bjarni\nwins".into(), ..sample("2") },
            Mail { to: "not an address".into(), ..sample("3") },
            sample("4"),
        ];
        let bad = mails[3].id.clone();
        let (worker, store) = worker_with_mails(dir.path(), mails, Policy { rate: 0, ..Policy::default() }).await;
        assert_eq!(worker.tick().await, 5);
        let files = sent_files(dir.path());
        assert_eq!(files.len(), 4, "every message that can be made is sent");
        for f in &files {
            let raw = std::fs::read_to_string(f).expect("read");
            assert!(!raw.contains("\nBcc:") && !raw.contains("\"\r\nBcc"), "{raw}");
        }
        assert!(store.scan(Side::Outbox, b"q", 100).expect("scan").is_empty(), "nothing left queued");
        let dead = store.scan(Side::Outbox, b"x", 100).expect("scan");
        assert_eq!(dead.len(), 1, "the message that cannot be made is a dead letter at once");
        let letter = crate::mail::decode(&dead[0].1).expect("a mail");
        assert_eq!(letter.id, bad);
        let why = letter.last_error.expect("its reason");
        assert!(why.starts_with("cannot build the message: address \"not an address\""), "{why}");
        assert_eq!(worker.service.metrics.mail_dead.load(Relaxed), 1);
        assert_eq!(worker.tick().await, 0, "nothing is tried again");
    }

    /// At send time the guard is met again: a notice whose address is (or
    /// whose name now resolves to) a loopback, private or metadata address
    /// is refused before any connection, set aside as a dead letter at once
    /// with its reason, and the host is told with the address masked.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_webhook_notice_to_a_private_address_is_refused_at_send_time() {
        let dir = tempfile::tempdir().expect("tempdir");
        let hook = |n: &str, url: &str| Mail {
            hook: Some(crate::webhook::HookNotice {
                url: url.into(),
                shape: crate::webhook::Shape::Json,
                text: "your move".into(),
                link: "http://localhost/games/g".into(),
                stop: "http://localhost/notify/stop/g/0/x".into(),
            }),
            to: crate::webhook::masked(url),
            ..crate::mail::sample(n)
        };
        let mails = vec![
            hook("0", "https://127.0.0.1/secret-a"),
            hook("1", "https://10.0.0.1/secret-b"),
            hook("2", "https://169.254.169.254/secret-c"),
            hook("3", "https://rebound.test/secret-d"),
            hook("4", "https://[::ffff:192.168.0.1]/secret-e"),
        ];
        let (worker, store) = worker_with_mails(dir.path(), mails, Policy { rate: 0, ..Policy::default() }).await;
        worker.service.set_webhooks(crate::service::hooks::Webhooks {
            client: crate::webhook::Client {
                hosts: [("rebound.test".to_owned(), "192.168.1.9".parse().unwrap())].into(),
                ..crate::webhook::Client::default()
            },
            ..Default::default()
        });
        assert_eq!(worker.tick().await, 5);
        let dead = store.scan(Side::Outbox, b"x", 100).expect("scan");
        assert_eq!(dead.len(), 5, "every one set aside at once");
        let why: std::collections::BTreeMap<String, String> = dead
            .iter()
            .map(|(_, v)| crate::mail::decode(v).unwrap())
            .map(|m| (m.id.clone(), m.last_error.unwrap()))
            .collect();
        for (n, words) in [
            ("0", "a loopback address"),
            ("1", "10.0.0.1 resolves to a private address"),
            ("2", "169.254.169.254 resolves to a cloud metadata address"),
            ("3", "rebound.test resolves to a private address"),
            ("4", "resolves to a private address"),
        ] {
            let said = &why[&crate::mail::sample(n).id];
            assert!(said.starts_with("refused: ") && said.contains(words), "{said:?} says {words:?}");
            assert!(!said.contains("secret"), "no secret part in the reason: {said}");
        }
        assert!(store.scan(Side::Outbox, b"q", 100).expect("scan").is_empty(), "none is tried again");
        assert_eq!(worker.service.metrics.mail_dead.load(Relaxed), 5);
    }

    #[test]
    fn a_stalled_failed_or_stopped_worker_is_named() {
        let alive = Liveness::default();
        assert_eq!(alive.problem(), None, "no worker in this process: nothing to say");
        alive.started(Duration::from_millis(200));
        let now = Instant::now();
        assert_eq!(alive.problem_at(now), None);
        let later = now + STALL + Duration::from_secs(1);
        let said = alive.problem_at(later).expect("a stall");
        assert!(said.starts_with("the mail worker has shown no sign of life for 18"), "{said}");
        alive.beat();
        assert_eq!(alive.problem(), None);
        alive.failed("boom".into());
        let said = alive.problem().expect("a failure");
        assert!(said.contains("failed 0 s ago (boom)"), "{said}");
        alive.ended(Some("the thread panicked".into()));
        let said = alive.problem().expect("stopped");
        assert!(said.starts_with("the mail worker stopped (the thread panicked)"), "{said}");
        alive.ended(None);
        assert_eq!(alive.problem(), None, "a shutdown is no fault");
    }
}
