//! The game service: every use case of the REST API, over the store and the
//! engine's kernel, with no HTTP in sight.
//!
//! Each game in use is folded once into a [`Table`](runestone_engine::Table) held in a bounded cache;
//! commands on one game are serialised by that game's lock, commands on
//! different games run in parallel and share the store's group commit. A
//! command's events reach memory only after the store acknowledged them as
//! durable, so nothing a client was told succeeded can be lost.
//!
//! This file holds the [`Service`] itself, its errors and the game's private
//! record; the use cases live beside it, one file per job:
//! - [`cache`]: the folded games in memory, their locks and streams;
//! - [`commit`]: appending durably (in place or queued), idempotent answers,
//!   snapshots;
//! - [`create`]: a new game;
//! - [`decide`]: a seat's command and undo;
//! - [`view`]: the summary, views, the event log as a viewer sees it;
//! - [`history`]: past positions, rollback, fork and verify;
//! - [`seats`]: tokens, new links, names and mail preferences;
//! - [`deadlines`]: the deadline policy, the clocks of open decisions and
//!   the missed-turn ladder the scheduler has the service climb;
//! - [`hooks`]: notices by webhook and in the browser beside mail (a
//!   seat's own, the game's public channel), their settings and the
//!   one-click stop;
//! - [`notify`]: who is mailed what, rendered as events are appended and
//!   written into the outbox with them; seating a substitute, dead letters;
//! - [`words`]: what a client sent, told back in the product's words.

mod cache;
mod commit;
mod create;
mod deadlines;
mod decide;
mod history;
pub mod hooks;
pub mod inbound;
#[cfg(test)]
mod ladder_tests;
mod notify;
#[cfg(test)]
mod pace_tests;
pub mod press;
mod press_mail;
mod seats;
mod view;
mod words;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use runestone_engine::{FoldError, KernelError, Registry};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::auth::Keys;
use crate::clock::Clock;
use crate::limits;
use crate::metrics::Metrics;
use crate::store::{EventStore, Side, StoreError};

pub(crate) use cache::{Loaded, Slot};
pub use create::{CreateGame, CreatedGame, HostSpec, SeatSpec, SeatToken};
pub(crate) use deadlines::{entry_due, policy_or_null};
pub use deadlines::{span_words, ClockAction, Entry, Policy};
pub use notify::local_time;
pub use view::{given, owed, EventView, Subscription};
pub use words::{in_words, ordinal, plausible_email, shown, your_result};

use cache::Cache;
use history::{Restored, RESTORED_SHARE};

/// Why a request failed, in words a client can act on.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unprocessable(String),
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Kernel(#[from] KernelError),
    #[error("storage: {0}")]
    Store(#[from] StoreError),
    #[error("stored log cannot be folded: {0}")]
    Fold(#[from] FoldError),
    /// Free space is below the reserve: a non-essential write is refused.
    #[error("{0}")]
    Reserve(String),
    /// A client asked for more than its rate allows: the detail, and the
    /// seconds until it may ask again.
    #[error("{0}")]
    TooMany(String, u64),
    /// What was sent is past its bound (a message too long to keep).
    #[error("{0}")]
    TooLarge(String),
}

impl ServiceError {
    /// A refusal by a rate limit: `what` in words, and when to ask again.
    pub fn too_many(what: &str, wait: std::time::Duration) -> ServiceError {
        let secs = limits::retry_after_secs(wait);
        let when = if secs < 120 { format!("{secs} s") } else { format!("{} min", secs.div_ceil(60)) };
        ServiceError::TooMany(format!("{what}; try again in {when}"), secs)
    }
}

pub type Result<T, E = ServiceError> = std::result::Result<T, E>;

/// The private record kept beside each log (never served): the seed, and
/// the players' addresses and mail preferences.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct GameRecord {
    pub seed: String,
    pub created_at: String,
    pub seats: Vec<SeatRecord>,
    #[serde(default)]
    pub host: Option<HostSpec>,
    #[serde(default)]
    pub deadlines: Value,
    /// The clock of each open decision, by "seat/kind".
    #[serde(default)]
    pub clocks: std::collections::BTreeMap<String, deadlines::Clock>,
    /// The game's mail waits in the outbox until its host confirms their
    /// address (a game created without the instance key).
    #[serde(default)]
    pub mail_held: bool,
    /// The game's press options.
    #[serde(default)]
    pub press: press::PressOptions,
    /// The game's public channel, set by the host (`hooks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<crate::webhook::Hook>,
    /// The channel's notice gathering, not sent yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_gathering: Option<hooks::ChannelGathering>,
    /// When the channel's last notice was due (ms).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub channel_last_ms: i64,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct SeatRecord {
    pub name: String,
    pub email: Option<String>,
    pub tz: Option<String>,
    /// False once the player unsubscribed.
    pub mail: bool,
    /// The last event the player was told about by mail.
    pub told_up_to: u64,
    /// One mail a day (at 08:00 local time) instead of one per move.
    #[serde(default)]
    pub digest: bool,
    /// The day of the digest being gathered, and its first event.
    #[serde(default)]
    pub digest_day: Option<String>,
    #[serde(default)]
    pub digest_from: u64,
    /// The seat's mail gathering what reaches it, not sent yet (`notify`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gathering: Option<notify::Gathering>,
    /// When the seat's last mail was due (ms): the next one is due no
    /// sooner than the gathering time after it.
    #[serde(default)]
    pub last_mail_ms: i64,
    /// The seat asked for no mail of messages.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub press_mail_off: bool,
    /// The seat's mail of messages, gathering until a quiet interval has
    /// passed since the latest (`press_mail`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub press_digest: Option<press_mail::PressDigest>,
    /// The seq at which the seat's open decision was asked, when replies
    /// by mail are taken: a reply address names the decision it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_at: Option<u64>,
    /// The seat's own webhook (`hooks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<crate::webhook::Hook>,
    /// The browser the seat's notices are pushed to (`hooks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<crate::webpush::Subscription>,
}

impl SeatRecord {
    /// Whether the seat is told anything: by mail, by its webhook, or in
    /// its browser.
    pub(crate) fn told(&self) -> bool {
        (self.email.is_some() && self.mail) || self.webhook.is_some() || self.push.is_some()
    }
}

/// Tuning of the service.
#[derive(Clone, Debug)]
pub struct Options {
    pub public_url: String,
    pub snapshot_interval: u64,
    pub cache_games: usize,
    /// The folded games' saved size held in memory at most (idle games
    /// beyond it are dropped, least recently used first).
    pub cache_bytes: u64,
    /// How long a seat's mail waits for more to tell before it leaves, and
    /// the least time between two mails to one seat (`notify`).
    pub mail_gather: chrono::Duration,
}

pub struct Service {
    store: Arc<dyn EventStore>,
    registry: Registry,
    keys: Keys,
    clock: Arc<dyn Clock>,
    pub(crate) options: Options,
    cache: Mutex<Cache>,
    /// Positions restored from snapshots, for past views.
    restored: Mutex<Restored>,
    pub metrics: Metrics,
    pub(crate) templates: crate::mail::Templates,
    /// The free-space reserve, when the server watches one.
    space: std::sync::OnceLock<crate::store::space::Space>,
    /// Who may create games, and the rates per client ([`Service::set_access`]).
    access: std::sync::OnceLock<limits::Access>,
    /// Set while the wall clock is behind a game's last event, so a backward
    /// jump is logged once, not at every event.
    clock_behind: std::sync::atomic::AtomicBool,
    /// How far each game's chain has been checked by this service (a fold
    /// from the store hashes only the events after it).
    chain: crate::store::codec::ChainMemory,
    /// The bounds on messages ([`Service::set_press_limits`]).
    press: std::sync::OnceLock<press::PressLimits>,
    /// How replies by mail are taken (`inbound`).
    inbound: std::sync::OnceLock<inbound::Inbound>,
    /// The webhook client and its bounds ([`Service::set_webhooks`]).
    webhooks: std::sync::OnceLock<hooks::Webhooks>,
}

/// Whether the position after event `seq` is kept as a snapshot: only at the
/// multiples of the interval (the first event's is never needed: a snapshot
/// holds what that event does not). A past view or a reload then folds at
/// most `interval - 1` events after one, and a played game of N events keeps
/// N / interval snapshots; a snapshot at each head that changed who owes a
/// decision (most appends of a played game) bounded nothing more and was
/// most of a played game's snapshot bytes.
pub fn snapshot_due(seq: u64, interval: u64) -> bool {
    seq > 0 && interval > 0 && seq.is_multiple_of(interval)
}

/// Key of the private record of `game`.
pub(crate) fn record_key(game: &str) -> Vec<u8> {
    game.as_bytes().to_vec()
}

/// A game's private record as stored.
fn parse_record(game: &str, raw: &[u8]) -> Result<GameRecord> {
    Ok(serde_json::from_slice(raw).map_err(|e| StoreError::Corrupt(format!("record of game {game}: {e}")))?)
}

/// An answer that may be replayed for the same Idempotency-Key.
pub struct Answer {
    pub status: u16,
    pub body: Value,
}

/// An answer the service wrote as JSON text (served as it is).
pub struct Written {
    pub status: u16,
    pub text: Vec<u8>,
}

/// `attempt`, made again (up to 8 more times) while `retry` and it loses
/// its append to another node's (a conflict): each attempt reads the game
/// as it is then. Used on stores shared by several nodes.
pub(crate) async fn again_on_conflict<T, F, Fut>(retry: bool, mut attempt: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T>>,
{
    let mut tries = 0;
    loop {
        match attempt().await {
            Err(ServiceError::Conflict(_)) if retry && tries < 8 => tries += 1,
            r => return r,
        }
    }
}

impl Service {
    pub fn new(
        store: Arc<dyn EventStore>,
        registry: Registry,
        keys: Keys,
        clock: Arc<dyn Clock>,
        options: Options,
    ) -> Service {
        let capacity = options.cache_games.max(16);
        let max_bytes = options.cache_bytes;
        Service {
            store,
            registry,
            keys,
            clock,
            options,
            cache: Mutex::new(Cache { slots: HashMap::new(), tick: 0, capacity, max_bytes }),
            restored: Mutex::new(Restored::new(max_bytes / RESTORED_SHARE)),
            metrics: Metrics::default(),
            templates: crate::mail::Templates::new(),
            space: std::sync::OnceLock::new(),
            access: std::sync::OnceLock::new(),
            clock_behind: Default::default(),
            chain: Default::default(),
            press: std::sync::OnceLock::new(),
            inbound: std::sync::OnceLock::new(),
            webhooks: std::sync::OnceLock::new(),
        }
    }
    /// The service's clock.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }
    pub fn registry(&self) -> &Registry {
        &self.registry
    }
    pub fn keys(&self) -> &Keys {
        &self.keys
    }
    /// Whether the server is reached at an https address (its public URL):
    /// its cookies are then `Secure` and its answers ask browsers to keep
    /// to https (HSTS), whatever scheme the connection from a proxy used.
    pub fn https(&self) -> bool {
        self.options.public_url.get(..8).is_some_and(|s| s.eq_ignore_ascii_case("https://"))
    }
    pub fn store(&self) -> &Arc<dyn EventStore> {
        &self.store
    }
    /// Messages waiting in the outbox, and dead letters.
    pub fn outbox_depth(&self) -> (usize, usize) {
        let count = |p: &[u8]| self.store.scan(Side::Outbox, p, 1_000_000).map_or(0, |v| v.len());
        (count(b"q"), count(b"x"))
    }
    pub(crate) fn link(&self, game: &str, token: &str) -> String {
        format!("{}/play/{game}?token={token}", self.options.public_url.trim_end_matches('/'))
    }
    /// Watch free space against a reserve (once, at start).
    pub fn watch_space(&self, space: crate::store::space::Space) {
        let _ = self.space.set(space);
    }

    /// Set who may create games and the rates per client (once, at start).
    pub fn set_access(&self, access: limits::Access) {
        let _ = self.access.set(access);
    }

    /// Who may create games and the rates per client: as set, or the
    /// embedded defaults'.
    pub fn access(&self) -> &limits::Access {
        self.access.get_or_init(limits::Access::default)
    }
    /// The free space now, if watched.
    pub fn space(&self) -> Option<crate::store::space::Level> {
        let level = self.space.get()?.check()?;
        self.metrics.storage_low.store(u64::from(level.low()), std::sync::atomic::Ordering::Relaxed);
        Some(level)
    }
    /// Refuse a non-essential write (a new game, a fork) below the reserve.
    fn non_essential_write(&self) -> Result<()> {
        match self.space() {
            Some(level) if level.low() => {
                Metrics::inc(&self.metrics.reserve_refusals);
                Err(ServiceError::Reserve(level.refusal()))
            }
            _ => Ok(()),
        }
    }
}

/// A service for the crate's tests: every game hosted, a fixed signing key,
/// room for 16 folded games of at most `cache_bytes`, a snapshot every
/// `snapshot_interval` events.
#[cfg(test)]
pub(crate) fn test_service(
    store: Arc<dyn EventStore>,
    clock: Arc<dyn Clock>,
    snapshot_interval: u64,
    cache_bytes: u64,
) -> Service {
    let options = Options {
        public_url: "http://localhost".into(),
        snapshot_interval,
        cache_games: 16,
        cache_bytes,
        mail_gather: chrono::Duration::minutes(5),
    };
    Service::new(store, crate::games::registry(), Keys::new(&[7; 32], 30), clock, options)
}
