//! Counters for `GET /metrics`, in Prometheus text format.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Default)]
pub struct Metrics {
    pub http_requests: AtomicU64,
    pub http_client_errors: AtomicU64,
    pub http_server_errors: AtomicU64,
    pub games_created: AtomicU64,
    pub commands_accepted: AtomicU64,
    pub commands_rejected: AtomicU64,
    pub events_appended: AtomicU64,
    pub append_micros_total: AtomicU64,
    pub appends: AtomicU64,
    pub games_loaded: AtomicU64,
    pub snapshots_written: AtomicU64,
    pub mail_sent: AtomicU64,
    pub mail_failures: AtomicU64,
    pub mail_dead: AtomicU64,
    /// Gauge: messages sent whose outbox record the store has not taken yet.
    pub mail_held: AtomicU64,
    /// Times the outbox worker could not write its records.
    pub outbox_store_failures: AtomicU64,
    /// Writes refused because free space is below the reserve.
    pub reserve_refusals: AtomicU64,
    /// Gauge: 1 while free space is below the reserve.
    pub storage_low: AtomicU64,
    /// Gauge: 1 while the store refuses writes after a failed flush, until
    /// it has reopened itself.
    pub store_recovering: AtomicU64,
    /// Times a stream read the store to learn of other nodes' appends (on
    /// a notice, or polling while notices are not heard).
    pub stream_store_reads: AtomicU64,
    /// The outbox worker's signs of life.
    pub outbox: Liveness,
}

impl Metrics {
    pub fn inc(c: &AtomicU64) {
        c.fetch_add(1, Relaxed);
    }

    pub fn add(c: &AtomicU64, n: u64) {
        c.fetch_add(n, Relaxed);
    }

    /// The text exposition; `cached` is the number of games held in memory,
    /// `outbox` the messages waiting and `dead` the dead letters.
    pub fn render(&self, cached: usize, outbox: usize, dead: usize) -> String {
        let mut out = String::new();
        let mut counter = |name: &str, help: &str, v: &AtomicU64| {
            let _ = writeln!(
                out,
                "# HELP runestone_{name} {help}\n# TYPE runestone_{name} counter\nrunestone_{name} {}",
                v.load(Relaxed)
            );
        };
        counter("http_requests_total", "HTTP requests answered.", &self.http_requests);
        counter("http_client_errors_total", "HTTP answers with a 4xx status.", &self.http_client_errors);
        counter("http_server_errors_total", "HTTP answers with a 5xx status.", &self.http_server_errors);
        counter("games_created_total", "Games created (forks included).", &self.games_created);
        counter("commands_accepted_total", "Commands that appended events.", &self.commands_accepted);
        counter("commands_rejected_total", "Commands refused by the kernel or the rules.", &self.commands_rejected);
        counter("events_appended_total", "Events durably appended.", &self.events_appended);
        counter("appends_total", "Durable appends (each one write of one game).", &self.appends);
        counter("append_microseconds_total", "Time spent waiting for durable appends.", &self.append_micros_total);
        counter("games_loaded_total", "Games folded into memory from storage.", &self.games_loaded);
        counter("snapshots_written_total", "Position snapshots cached.", &self.snapshots_written);
        counter("mail_sent_total", "Messages handed to the mail transport.", &self.mail_sent);
        counter("mail_failures_total", "Failed delivery attempts (each retried or dead).", &self.mail_failures);
        counter("mail_dead_letters_total", "Messages given up after too many failures.", &self.mail_dead);
        counter(
            "outbox_store_failures_total",
            "Times the outbox worker could not record its progress (mail paused meanwhile).",
            &self.outbox_store_failures,
        );
        counter(
            "reserve_refusals_total",
            "Writes refused because free space is below the reserve.",
            &self.reserve_refusals,
        );
        counter(
            "stream_store_reads_total",
            "Times a stream read the store to learn of other nodes' appends (told by a notice, or polling while the store hears none).",
            &self.stream_store_reads,
        );
        let _ = writeln!(out, "# HELP runestone_mail_held Messages sent whose outbox record is held in memory until the store takes it.\n# TYPE runestone_mail_held gauge\nrunestone_mail_held {}", self.mail_held.load(Relaxed));
        let _ = writeln!(out, "# HELP runestone_storage_low 1 while free space is below the configured reserve.\n# TYPE runestone_storage_low gauge\nrunestone_storage_low {}", self.storage_low.load(Relaxed));
        let _ = writeln!(out, "# HELP runestone_store_recovering 1 while the store refuses writes after a failed flush (a full disk), until it has reopened itself.\n# TYPE runestone_store_recovering gauge\nrunestone_store_recovering {}", self.store_recovering.load(Relaxed));
        let _ = writeln!(out, "# HELP runestone_outbox_depth Messages waiting to be sent.\n# TYPE runestone_outbox_depth gauge\nrunestone_outbox_depth {outbox}");
        let _ = writeln!(out, "# HELP runestone_outbox_dead_letters Dead letters waiting for a host.\n# TYPE runestone_outbox_dead_letters gauge\nrunestone_outbox_dead_letters {dead}");
        let _ = writeln!(out, "# HELP runestone_games_cached Games held folded in memory.\n# TYPE runestone_games_cached gauge\nrunestone_games_cached {cached}");
        out
    }
}

/// The outbox worker's signs of life, for `/healthz` ([`Liveness::problem`]).
#[derive(Default)]
pub struct Liveness {
    /// When the worker last showed life: milliseconds after [`epoch`], plus
    /// one (0: no worker runs in this process).
    beat: AtomicU64,
    /// No sign of life for this long (ms) is a stall.
    stall_ms: AtomicU64,
    /// The last failure of the worker as a whole: when, and what.
    failed: Mutex<Option<(Instant, String)>>,
    /// Why the worker's thread ended, other than by a shutdown.
    stopped: Mutex<Option<String>>,
}

/// The instant the process's liveness times count from.
fn epoch() -> Instant {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// The shortest time without a sign of life that counts as a stall. The
/// worker shows life at every poll and after every message, and a message
/// takes at most the SMTP timeouts (20 s to connect, 20 s to send).
pub const STALL: Duration = Duration::from_secs(180);

impl Liveness {
    fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        m.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The worker starts, polling every `poll` when idle.
    pub fn started(&self, poll: Duration) {
        self.stall_ms.store(STALL.max(poll * 3).as_millis() as u64, Relaxed);
        *Self::lock(&self.stopped) = None;
        self.beat();
    }

    /// The worker is alive now.
    pub fn beat(&self) {
        self.beat.store(epoch().elapsed().as_millis() as u64 + 1, Relaxed);
    }

    /// The worker as a whole failed (and goes on).
    pub fn failed(&self, why: String) {
        *Self::lock(&self.failed) = Some((Instant::now(), why));
    }

    /// The worker's thread ended: `why`, or `None` for a shutdown.
    pub fn ended(&self, why: Option<String>) {
        if why.is_none() {
            self.beat.store(0, Relaxed);
        }
        *Self::lock(&self.stopped) = why;
    }

    /// What is wrong with the outbox worker, in words; `None` when it is
    /// well (or does not run in this process).
    pub fn problem(&self) -> Option<String> {
        self.problem_at(Instant::now())
    }

    /// [`Liveness::problem`] as seen at `now`.
    pub fn problem_at(&self, now: Instant) -> Option<String> {
        if let Some(why) = Self::lock(&self.stopped).as_ref() {
            return Some(format!("the mail worker stopped ({why}); no mail is sent until the server is restarted"));
        }
        let beat = self.beat.load(Relaxed);
        if beat == 0 {
            return None;
        }
        let stall = Duration::from_millis(self.stall_ms.load(Relaxed).max(1));
        let quiet = now.saturating_duration_since(epoch() + Duration::from_millis(beat - 1));
        if quiet >= stall {
            return Some(format!(
                "the mail worker has shown no sign of life for {} s; mail may be stuck",
                quiet.as_secs()
            ));
        }
        match Self::lock(&self.failed).as_ref() {
            Some((at, why)) if now.saturating_duration_since(*at) < stall => Some(format!(
                "the mail worker failed {} s ago ({why}); it goes on, but mail may be stuck",
                now.saturating_duration_since(*at).as_secs()
            )),
            _ => None,
        }
    }
}
