//! The game service: every use case of the REST API, over the store and the
//! engine's kernel, with no HTTP in sight.
//!
//! Each game in use is folded once into a [`Table`] held in a bounded cache;
//! commands on one game are serialised by that game's lock, commands on
//! different games run in parallel and share the store's group commit. A
//! command's events reach memory only after the store acknowledged them as
//! durable, so nothing a client was told succeeded can be lost.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use runestone_engine::log::{seal, ForkOrigin};
use runestone_engine::table::{decision_ends, fork_copies, in_force};
use runestone_engine::{verify, Actor, Body, Envelope, FoldError, KernelError, Registry, Seed, Table, Viewer};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::sync::broadcast;

use crate::auth::{Claims, Keys, Role};
use crate::clock::{stamp, Clock};
use crate::limits;
use crate::metrics::Metrics;
use crate::store::{EventStore, GameId, Side, SideWrite, StoreError, Write, GAME_ID_LEN};

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

/// A seat as given at creation.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatSpec {
    /// The player's name as shown to all: 1 to 40 characters, on one line
    /// (no control characters).
    #[schemars(length(min = 1, max = 40), pattern(crate::limits::NAME_LINE))]
    pub name: String,
    #[serde(default)]
    #[schemars(length(max = 254), pattern(crate::limits::ONE_LINE))]
    pub email: Option<String>,
    /// IANA time zone ("Atlantic/Reykjavik") for times in mail and pages.
    #[serde(default)]
    #[schemars(length(max = 64), pattern(crate::limits::ONE_LINE))]
    pub tz: Option<String>,
    /// One mail a day instead of one per move.
    #[serde(default)]
    pub digest: bool,
}

/// The host as given at creation (for alerts).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// 1 to 40 characters, on one line.
    #[schemars(length(min = 1, max = 40), pattern(crate::limits::NAME_LINE))]
    pub name: String,
    #[schemars(length(max = 254), pattern(crate::limits::ONE_LINE))]
    pub email: String,
    #[serde(default)]
    #[schemars(length(max = 64), pattern(crate::limits::ONE_LINE))]
    pub tz: Option<String>,
}

/// `POST /api/v1/games`.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateGame {
    pub ruleset: String,
    #[serde(default)]
    pub options: Value,
    pub seats: Vec<SeatSpec>,
    #[serde(default)]
    pub host: Option<HostSpec>,
    /// The deadline policy; stored as given until deadlines are enforced.
    #[serde(default)]
    pub deadlines: Value,
}

/// What a new game's creator receives. Tokens appear only here.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CreatedGame {
    pub game_id: String,
    pub ruleset: String,
    pub seed_commitment: String,
    pub host_token: String,
    pub referee_token: String,
    pub seats: Vec<SeatToken>,
    pub head: u64,
    /// Set when the game's mail is held: why, and what releases it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mail: Option<String>,
}

/// A seat's token and link, as given to its player.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SeatToken {
    pub seat: u8,
    pub name: String,
    pub token: String,
    pub link: String,
}

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
    pub clocks: std::collections::BTreeMap<String, crate::deadlines::Clock>,
    /// The game's mail waits in the outbox until its host confirms their
    /// address (a game created without the instance key).
    #[serde(default)]
    pub mail_held: bool,
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
}

/// An envelope as one viewer may see it, with the event told in words.
#[derive(Clone, Debug, Serialize)]
pub struct EventView {
    #[serde(flatten)]
    pub envelope: Envelope,
    /// True when the body is the redacted public form.
    pub hidden: bool,
    /// False for events voided by a later rollback or undo.
    pub in_force: bool,
    pub text: String,
}

/// An event's stamped time.
fn parse_time(time: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(time).ok().map(|t| t.with_timezone(&chrono::Utc))
}

/// A folded game and what belongs with it in memory.
pub(crate) struct Loaded {
    pub table: Table,
    pub seed: Seed,
    pub record: GameRecord,
    /// The record as stored when this node last read or wrote it: on a
    /// shared store a write of the record names it (`Write::unchanged`).
    pub record_bytes: Vec<u8>,
    /// The time of the event at the head, as this node appended it: (head,
    /// time). Used only while the table's head is that head; otherwise the
    /// head event is read from the store.
    pub head_time: Option<(u64, chrono::DateTime<chrono::Utc>)>,
    /// Submits whose appends are queued but not yet durable, oldest first
    /// (see [`Service::settled`]): the table, record and head time above
    /// already hold them.
    pub(crate) in_flight: VecDeque<InFlight>,
}

/// A submit's append queued in the store and not yet known durable: what
/// is done once it is.
pub(crate) struct InFlight {
    /// The seq of its last event.
    last: u64,
    /// Its events, told to the game's stream once durable.
    events: Arc<Vec<Envelope>>,
    /// The snapshots its events reach, written once durable.
    snapshots: Vec<(u64, Vec<u8>)>,
}

/// One game's place in the cache: its lock and its stream.
pub(crate) struct Slot {
    pub(crate) game: tokio::sync::Mutex<Option<Loaded>>,
    /// Told when the game's last append in flight has resolved.
    settle: tokio::sync::Notify,
    /// Tasks waiting for the game to settle; while there are any, submits
    /// do not put more appends in flight (so they cannot starve them).
    draining: AtomicUsize,
    /// Set when a submit with an append in flight was dropped before it
    /// settled (its client went away): the position in memory is then
    /// folded again from the store by the next task that takes the lock.
    abandoned: AtomicBool,
    tx: broadcast::Sender<Arc<Vec<Envelope>>>,
    /// The folded game's size as counted against `storage.cache_bytes`:
    /// the length of its saved form (0 until folded).
    bytes: AtomicU64,
}

/// The folded games in memory, bounded by count and by their saved size.
struct Cache {
    slots: HashMap<GameId, (Arc<Slot>, u64)>,
    tick: u64,
    capacity: usize,
    max_bytes: u64,
}

impl Cache {
    fn slot(&mut self, game: &str) -> Arc<Slot> {
        self.tick += 1;
        let tick = self.tick;
        if let Some((slot, used)) = self.slots.get_mut(game) {
            *used = tick;
            return slot.clone();
        }
        if self.slots.len() >= self.capacity || self.bytes() > self.max_bytes {
            self.evict();
        }
        let slot = Arc::new(Slot {
            game: tokio::sync::Mutex::new(None),
            settle: tokio::sync::Notify::new(),
            draining: AtomicUsize::new(0),
            abandoned: AtomicBool::new(false),
            tx: broadcast::channel(256).0,
            bytes: AtomicU64::new(0),
        });
        self.slots.insert(game.to_owned(), (slot.clone(), tick));
        slot
    }

    /// The saved size of every folded game held.
    fn bytes(&self) -> u64 {
        self.slots.values().map(|(s, _)| s.bytes.load(Ordering::Relaxed)).sum()
    }

    /// Drop the least recently used idle games until a tenth of the room
    /// (by count and by bytes) is free again.
    fn evict(&mut self) {
        let mut idle: Vec<(u64, GameId, u64)> = self
            .slots
            .iter()
            .filter(|(_, (s, _))| Arc::strong_count(s) == 1 && s.tx.receiver_count() == 0)
            .map(|(g, (s, used))| (*used, g.clone(), s.bytes.load(Ordering::Relaxed)))
            .collect();
        idle.sort_unstable();
        let count_goal = self.capacity.saturating_sub(self.capacity / 10 + 1);
        let bytes_goal = self.max_bytes - self.max_bytes / 10;
        let (mut count, mut bytes) = (self.slots.len(), self.bytes());
        for (_, g, b) in idle {
            if count <= count_goal && bytes <= bytes_goal {
                break;
            }
            self.slots.remove(&g);
            count -= 1;
            bytes = bytes.saturating_sub(b);
        }
    }
}

/// Positions restored from snapshots, kept for past views (`view?at=`): a
/// view near a snapshot folds from a copy of the restored position instead
/// of reading, unpacking and loading the snapshot again. Keyed by game and
/// seq; a snapshot is the position after its seq forever (the log only
/// grows), and each use still checks the position's head hash against the
/// event read at its seq. Bounded by bytes (each position counted as its
/// saved form's length, as the folded games are), least recently used
/// dropped first.
struct Restored {
    /// By game, then seq (keyed by game first so that a lookup borrows the
    /// game id).
    positions: HashMap<GameId, HashMap<u64, Kept>>,
    tick: u64,
    bytes: u64,
    max_bytes: u64,
}

impl Restored {
    fn new(max_bytes: u64) -> Restored {
        Restored { positions: HashMap::new(), tick: 0, bytes: 0, max_bytes }
    }

    fn get(&mut self, game: &str, seq: u64) -> Option<Arc<Table>> {
        self.tick += 1;
        let tick = self.tick;
        let (table, _, used) = self.positions.get_mut(game)?.get_mut(&seq)?;
        *used = tick;
        Some(table.clone())
    }

    fn insert(&mut self, seq: u64, table: Arc<Table>, bytes: u64) {
        if bytes > self.max_bytes / 4 {
            return;
        }
        self.tick += 1;
        let game = self.positions.entry(table.game_id.clone()).or_default();
        if let Some((_, old, _)) = game.insert(seq, (table, bytes, self.tick)) {
            self.bytes -= old;
        }
        self.bytes += bytes;
        if self.bytes > self.max_bytes {
            // Down to nine tenths of the room, least recently used first.
            let mut by_use: Vec<(u64, GameId, u64)> = self
                .positions
                .iter()
                .flat_map(|(g, seqs)| seqs.iter().map(move |(s, (_, _, used))| (*used, g.clone(), *s)))
                .collect();
            by_use.sort_unstable();
            let goal = self.max_bytes - self.max_bytes / 10;
            for (_, g, s) in by_use {
                if self.bytes <= goal {
                    break;
                }
                self.remove(&g, s);
            }
        }
    }

    fn remove(&mut self, game: &str, seq: u64) {
        let Some(seqs) = self.positions.get_mut(game) else { return };
        if let Some((_, b, _)) = seqs.remove(&seq) {
            self.bytes -= b;
        }
        if seqs.is_empty() {
            self.positions.remove(game);
        }
    }
}

/// A kept position: the position, its bytes, and when it was last used.
type Kept = (Arc<Table>, u64, u64);

/// The share of `cache_bytes` (the folded games' room) that the positions
/// restored for past views may take besides it.
const RESTORED_SHARE: u64 = 8;

/// Tuning of the service.
#[derive(Clone, Debug)]
pub struct Options {
    pub public_url: String,
    pub snapshot_interval: u64,
    pub cache_games: usize,
    /// The folded games' saved size held in memory at most (idle games
    /// beyond it are dropped, least recently used first).
    pub cache_bytes: u64,
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

fn idem_key(scope: &str, key: &str) -> Vec<u8> {
    format!("{scope}\0{key}").into_bytes()
}

/// A stored answer to an idempotent request.
#[derive(Serialize, Deserialize)]
struct IdemRecord {
    request: String,
    status: u16,
    body: Value,
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

/// The answer to an accepted command, in the member order of its documented
/// type (`http::types::Accepted`).
#[derive(Serialize)]
struct AcceptedAnswer {
    head: u64,
    events: Vec<EventView>,
    pending: Vec<runestone_engine::Pending>,
    submitted: Vec<runestone_engine::Pending>,
    over: bool,
}

/// The members of a view answer before its `view` (`GET /view`, typed
/// `http::types::View`), written around the game's view text.
#[derive(Serialize)]
struct ViewAnswerHead<'a> {
    game_id: &'a str,
    ruleset: &'a str,
    seq: u64,
    head: u64,
    viewer: Viewer,
}

/// The members of a view answer after its `view`.
#[derive(Serialize)]
struct ViewAnswerRest<'a> {
    pending: Vec<runestone_engine::Pending>,
    submitted: Vec<runestone_engine::Pending>,
    legal: Vec<&'a Value>,
    legal_labels: Vec<&'a String>,
    legal_templates: Vec<runestone_engine::present::CommandTemplate>,
    unavailable: Vec<runestone_engine::Unavailable>,
    over: bool,
    outcome: Option<runestone_engine::Outcome>,
}

fn request_hash(v: &Value) -> String {
    hex::encode(Sha256::digest(serde_json::to_vec(v).unwrap_or_default()))
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
        }
    }

    /// The time to stamp the next events of a loaded game: now, but never
    /// earlier than its last event (times never go backwards in a log).
    pub(crate) fn event_time(&self, loaded: &Loaded) -> Result<String> {
        let now = self.clock.now();
        let t = &loaded.table;
        let last = match loaded.head_time {
            Some((head, time)) if head == t.head => Some(time),
            _ => {
                let last = self.store.load(&t.game_id, t.head, Some(t.head))?;
                last.first().and_then(|e| parse_time(&e.time))
            }
        };
        match last {
            Some(last) if now < last => {
                if !self.clock_behind.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        game = %t.game_id,
                        behind_ms = (last - now).num_milliseconds(),
                        "the clock went backwards: new events are stamped with their game's last event time until it catches up"
                    );
                }
                Ok(stamp(last))
            }
            _ => {
                self.clock_behind.store(false, Ordering::Relaxed);
                Ok(stamp(now))
            }
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

    pub fn store(&self) -> &Arc<dyn EventStore> {
        &self.store
    }

    /// Messages waiting in the outbox, and dead letters.
    pub fn outbox_depth(&self) -> (usize, usize) {
        let count = |p: &[u8]| self.store.scan(Side::Outbox, p, 1_000_000).map_or(0, |v| v.len());
        (count(b"q"), count(b"x"))
    }

    pub fn cached_games(&self) -> usize {
        self.cache.lock().expect("cache lock").slots.len()
    }

    pub(crate) fn slot(&self, game: &str) -> Arc<Slot> {
        self.cache.lock().expect("cache lock").slot(game)
    }

    /// Forget the position in memory if a submit with an append in flight
    /// was dropped before it settled (`Slot::abandoned`).
    fn drop_if_abandoned(slot: &Slot, guard: &mut Option<Loaded>) {
        if slot.abandoned.swap(false, Ordering::SeqCst) {
            *guard = None;
        }
    }

    /// The game's lock, taken once none of its submits' appends is in
    /// flight: what the guard holds is then durable. Everything but a
    /// submit takes the lock this way (a submit decides on the position its
    /// queued predecessors leave, `submit_once`).
    pub(crate) async fn settled<'a>(&self, slot: &'a Slot) -> tokio::sync::MutexGuard<'a, Option<Loaded>> {
        /// Counts a waiter in `draining` until dropped (also when cancelled).
        struct Draining<'a>(&'a AtomicUsize);
        impl Drop for Draining<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::SeqCst);
            }
        }
        loop {
            let mut guard = slot.game.lock().await;
            Self::drop_if_abandoned(slot, &mut guard);
            if guard.as_ref().is_none_or(|l| l.in_flight.is_empty()) {
                return guard;
            }
            slot.draining.fetch_add(1, Ordering::SeqCst);
            let _draining = Draining(&slot.draining);
            // Registered before the lock is let go: the append that empties
            // `in_flight` does so under the lock, then tells.
            let notified = slot.settle.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            drop(guard);
            notified.await;
        }
    }

    /// Count a folded game's saved size against `storage.cache_bytes`.
    fn count_bytes(&self, game: &str, bytes: usize) {
        if let Some((slot, _)) = self.cache.lock().expect("cache lock").slots.get(game) {
            slot.bytes.store(bytes as u64, Ordering::Relaxed);
        }
    }

    /// The folded games held in memory and their saved size in bytes.
    pub fn cache_size(&self) -> (usize, u64) {
        let cache = self.cache.lock().expect("cache lock");
        (cache.slots.len(), cache.bytes())
    }

    fn forget(&self, game: &str) {
        self.cache.lock().expect("cache lock").slots.remove(game);
    }

    /// Check a token for `game`: signature, expiry, game, and for seats the
    /// generation (revoked tokens fail).
    pub async fn authorize(&self, game: &str, token: &str) -> Result<Claims> {
        // The later of the wall clock and the service's clock (which tests
        // drive), so a token issued by either is never "from the future".
        let now = chrono::Utc::now().timestamp().max(self.clock.now().timestamp());
        let claims = self.keys.check_at(token, now).map_err(|e| ServiceError::Unauthorized(e.to_string()))?;
        if claims.sub != game {
            return Err(ServiceError::Forbidden(format!(
                "this token is for game {}, not for game {}",
                shown(&claims.sub),
                shown(game)
            )));
        }
        if let (Role::Seat, Some(seat)) = (claims.role, claims.seat) {
            let slot = self.slot(game);
            let mut guard = slot.game.lock().await;
            let loaded = self.loaded(game, &mut guard).await?;
            let seats = loaded.table.generations.len();
            let current = loaded.table.generations.get(seat as usize).copied();
            if current.is_none() {
                return Err(ServiceError::Unauthorized(format!(
                    "this token names seat {seat}, but the game's seats are 0 to {}",
                    seats.saturating_sub(1)
                )));
            }
            if current.is_some_and(|g| g < claims.gen) {
                return Err(ServiceError::Unauthorized(format!(
                    "this token names link generation {} of seat {seat}, which the game never issued",
                    claims.gen
                )));
            }
            if current != Some(claims.gen) {
                return Err(ServiceError::Unauthorized(
                    "this seat's link was revoked by the host; use the newest link you were sent".into(),
                ));
            }
        }
        Ok(claims)
    }

    /// Fold `game` into `slot` if it is not there yet.
    pub(crate) async fn loaded<'a>(&self, game: &str, guard: &'a mut Option<Loaded>) -> Result<&'a mut Loaded> {
        // Several nodes on one database: another node may have appended, or
        // written the game's record, since this node looked. A cached
        // position is used only while it is still the store's head, and its
        // record is read again (record first, head after: the same head
        // means no append came between, so the record is the position's).
        if self.store.shared() {
            if let Some(l) = guard.as_mut() {
                match (self.store.get(Side::Games, &record_key(game))?, self.store.head(game)?) {
                    (Some(raw), Some(head)) if head == l.table.head => {
                        l.record = parse_record(game, &raw)?;
                        l.record_bytes = raw;
                    }
                    _ => *guard = None,
                }
            }
        }
        if guard.is_none() {
            if game.len() != GAME_ID_LEN || !game.bytes().all(|b| b.is_ascii_alphanumeric()) {
                self.forget(game);
                return Err(ServiceError::NotFound(format!(
                    "there is no game \"{}\": a game id is {GAME_ID_LEN} letters and digits",
                    shown(game)
                )));
            }
            let (raw, at) = self.record_and_head(game)?;
            let Some(raw) = raw else {
                self.forget(game);
                if let Some(head) = self.store.head(game)? {
                    return Err(StoreError::Corrupt(format!(
                        "game {game}: its log (to seq {head}) is stored but its private record (seed, contacts) is gone"
                    ))
                    .into());
                }
                return Err(ServiceError::NotFound(format!("there is no game {game:?}")));
            };
            let record = parse_record(game, &raw)?;
            let seed =
                Seed::from_hex(&record.seed).ok_or_else(|| StoreError::Corrupt(format!("seed of game {game}")))?;
            let table = self.fold_at(game, at.unwrap_or(u64::MAX), false).await?;
            self.count_bytes(game, serde_json::to_vec(&table.save()).map_or(0, |v| v.len()));
            Metrics::inc(&self.metrics.games_loaded);
            *guard =
                Some(Loaded { table, seed, record, record_bytes: raw, head_time: None, in_flight: VecDeque::new() });
        }
        Ok(guard.as_mut().expect("just loaded"))
    }

    /// A game's record and the head it belongs to (`None`: any head, on a
    /// store no other node writes). On a shared store the head is read
    /// before and after the record until the two agree, so the record and
    /// the position folded to that head are of one moment: a record older
    /// than its position would make a node judge live deadlines stale.
    fn record_and_head(&self, game: &str) -> Result<(Option<Vec<u8>>, Option<u64>)> {
        if !self.store.shared() {
            return Ok((self.store.get(Side::Games, &record_key(game))?, None));
        }
        for _ in 0..1000 {
            let before = self.store.head(game)?;
            let raw = self.store.get(Side::Games, &record_key(game))?;
            if self.store.head(game)? == before {
                return Ok((raw, before));
            }
        }
        Err(StoreError::Io(format!("game {game} changed on every one of 1000 reads; try again")).into())
    }

    /// The position after event `at` (or the head), from the latest snapshot
    /// at or before it plus the events after. `past`: for a past view, whose
    /// restored snapshot is kept for the views after it ([`Restored`]); a
    /// game loaded at its head keeps its whole position instead.
    async fn fold_at(&self, game: &str, at: u64, past: bool) -> Result<Table> {
        let to = (at != u64::MAX).then_some(at);
        if let Some((seq, position)) = self.restored_at_or_before(game, at, past)? {
            // The events after the snapshot, read from the stored bytes
            // without building envelopes (each checked against its hash,
            // unless this process already checked it: `ChainMemory`).
            let raw = self.store.load_raw(game, seq, to)?;
            let events = raw.refs_remembered(&self.chain)?;
            if events.first().is_some_and(|e| e.hash == position.head_hash) {
                let mut t = Arc::unwrap_or_clone(position);
                let mut ok = true;
                for e in &events[1..] {
                    if t.push_ref(e).is_err() {
                        ok = false;
                        break;
                    }
                }
                if ok {
                    return Ok(t);
                }
                // An event that cannot be applied onto it (a rollback or an
                // undo) needs the whole log folded; the position stays kept.
            } else {
                // A position that does not lead on to the log is not kept.
                self.restored.lock().expect("restored lock").remove(game, seq);
            }
        }
        // The whole log, folded from the stored bytes without building
        // envelopes (each event checked against its hash as it is read).
        let raw = self.store.load_raw(game, 0, to)?;
        if raw.is_empty() {
            return Err(ServiceError::NotFound(format!("there is no game {game:?}")));
        }
        Ok(Table::fold_refs(&self.registry, &raw.refs_remembered(&self.chain)?)?)
    }

    /// The position of the latest snapshot at or before `at`, and its seq:
    /// one restored before if it is held (the multiple of the interval at
    /// or before `at` is looked for first, without reading the store), else
    /// read and restored, and kept when `keep`. `None`: no snapshot, or none
    /// that loads (snapshots are a cache: the log is folded instead).
    fn restored_at_or_before(&self, game: &str, at: u64, keep: bool) -> Result<Option<(u64, Arc<Table>)>> {
        let interval = self.options.snapshot_interval;
        if at != u64::MAX && interval > 0 && at >= interval {
            let multiple = at - at % interval;
            if let Some(t) = self.restored.lock().expect("restored lock").get(game, multiple) {
                return Ok(Some((multiple, t)));
            }
        }
        let Some((seq, bytes)) = self.store.snapshot_at_or_before(game, at)? else {
            return Ok(None);
        };
        if let Some(t) = self.restored.lock().expect("restored lock").get(game, seq) {
            return Ok(Some((seq, t)));
        }
        // A snapshot holds what the game's first event (its creation) does not.
        let first = self.store.load(game, 0, Some(0))?;
        let Some(table) = first.first().and_then(|first| Table::from_snapshot(&self.registry, &bytes, first).ok())
        else {
            return Ok(None);
        };
        let table = Arc::new(table);
        if keep {
            let size = serde_json::to_vec(&table.save()).map_or(0, |v| v.len()) as u64;
            self.restored.lock().expect("restored lock").insert(seq, table.clone(), size);
        }
        Ok(Some((seq, table)))
    }

    pub(crate) fn link(&self, game: &str, token: &str) -> String {
        format!("{}/play/{game}?token={token}", self.options.public_url.trim_end_matches('/'))
    }

    fn stored_answer(&self, key: &[u8], request: &Value) -> Result<Option<Answer>> {
        match self.store.get(Side::Idempotency, key)? {
            None => Ok(None),
            Some(raw) => {
                let rec: IdemRecord = serde_json::from_slice(&raw)
                    .map_err(|e| StoreError::Corrupt(format!("idempotency record: {e}")))?;
                if rec.request != request_hash(request) {
                    return Err(ServiceError::Unprocessable(
                        "this Idempotency-Key was already used for a different request; use a new key".into(),
                    ));
                }
                Ok(Some(Answer { status: rec.status, body: rec.body }))
            }
        }
    }

    fn answer_write(key: Option<Vec<u8>>, request: &Value, status: u16, body: &Value) -> Option<SideWrite> {
        key.map(|key| SideWrite {
            side: Side::Idempotency,
            key,
            value: Some(
                serde_json::to_vec(&IdemRecord { request: request_hash(request), status, body: body.clone() })
                    .expect("JSON"),
            ),
        })
    }

    /// Append durably. The store's append is called now, not when the
    /// future is first polled (see `EventStore::ordered_appends`).
    fn append(&self, write: Write) -> impl std::future::Future<Output = Result<()>> + '_ {
        let n = write.events.len() as u64;
        let game = write.game.clone();
        let checked = self.checked_at_write(&write);
        let t = Instant::now();
        let appended = self.store.append(write);
        async move { self.appended(&game, n, t, checked, appended.await) }
    }

    /// What an append of `n` events to `game` begun at `t` resolved to
    /// (`checked`: its last event, when the write extends the chain this
    /// service has checked, [`Service::checked_at_write`]).
    fn appended(
        &self,
        game: &str,
        n: u64,
        t: Instant,
        checked: Option<(u64, runestone_engine::log::Hash)>,
        r: crate::store::StoreResult<()>,
    ) -> Result<()> {
        Metrics::add(&self.metrics.append_micros_total, t.elapsed().as_micros() as u64);
        Metrics::inc(&self.metrics.appends);
        match r {
            Ok(()) => {
                Metrics::add(&self.metrics.events_appended, n);
                if let Some((seq, hash)) = checked {
                    self.chain.record(game, seq, hash);
                }
                Ok(())
            }
            Err(StoreError::Conflict { .. }) => Err(ServiceError::Conflict(
                "another command was recorded first; reload the game and decide again".into(),
            )),
            Err(StoreError::Changed { .. }) => Err(ServiceError::Conflict(
                "the game's private record was changed meanwhile (a player's mail preferences); try again".into(),
            )),
            Err(e) => {
                // The outcome is unknown: fold the game again from storage next time.
                self.forget(game);
                Err(self.with_head(game, e).into())
            }
        }
    }

    /// The last event of a write and its hash, when the write extends the
    /// chain this service has checked of its game (from the head it
    /// remembers, or a new game's genesis) with events whose hashes hold: once it is stored, the
    /// chain is checked to there without reading it back.
    fn checked_at_write(&self, write: &Write) -> Option<(u64, runestone_engine::log::Hash)> {
        let (first, last) = (write.events.first()?, write.events.last()?);
        let anchored = match write.expect_head {
            None => first.seq == 0 && first.prev_hash == runestone_engine::log::GENESIS,
            Some(head) => self.chain.get(&write.game).is_some_and(|(s, h)| s == head && h == first.prev_hash),
        };
        if !anchored {
            return None;
        }
        let linked = write.events.windows(2).all(|w| w[1].prev_hash == w[0].hash);
        let hashed = write.events.iter().all(|e| runestone_engine::log::chain_hash(e) == e.hash);
        (linked && hashed).then_some((last.seq, last.hash))
    }

    /// A write whose outcome is unknown says what the store knows of the
    /// game's head, or why it cannot say yet.
    fn with_head(&self, game: &str, e: StoreError) -> StoreError {
        // After a failed flush sled's memory may hold what the disk does not:
        // the head is only known again once the store has reopened.
        let flush_failed = matches!(e, StoreError::NoSpace(_) | StoreError::Io(_));
        let head = || -> String {
            if flush_failed || self.store.recovering().is_some() {
                return "the game's head cannot be read until the store has reopened itself (once the disk has room): \
                        read the game's log then"
                    .into();
            }
            match self.store.head(game) {
                Ok(Some(seq)) => format!("the store's log of the game now ends at seq {seq}"),
                Ok(None) => "the store holds no log of this game".into(),
                Err(e) => format!("the game's head could not be read ({e})"),
            }
        };
        match e {
            StoreError::NoSpace(m) => StoreError::NoSpace(format!("{m}; {}", head())),
            StoreError::Io(m) => StoreError::Io(format!("{m}; {}", head())),
            StoreError::TimedOut(secs) => {
                StoreError::Io(format!("the store did not confirm the write within {secs} seconds; {}", head()))
            }
            other => other,
        }
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

    /// Create a game for a trusted caller (the instance key's holder): its
    /// mail is sent at once. `idempotency` is the client's Idempotency-Key.
    pub async fn create(&self, req: Value, idempotency: Option<&str>) -> Result<Answer> {
        self.create_checked(req, idempotency, None).await
    }

    /// Create a game for `caller`, as the `[access]` settings allow: with
    /// the instance key, or (creation open to all) without it, when the
    /// game's mail is held until its host confirms their address by a
    /// mailed link. Either way within the caller's rate.
    pub async fn create_by(&self, req: Value, idempotency: Option<&str>, caller: &limits::Caller) -> Result<Answer> {
        let access = self.access();
        let trusted = match caller.instance_key.as_deref() {
            Some(k) if access.is_instance_key(k) => true,
            Some(_) => {
                return Err(ServiceError::Unauthorized(
                    "that is not this server's instance key; ask its operator for the key, \
                     or send no Authorization header to create a game whose host confirms it by mail"
                        .into(),
                ))
            }
            None if access.key_required => {
                return Err(ServiceError::Unauthorized(
                    "this server creates games only for requests carrying its instance key \
                     (Authorization: Bearer <key>); ask its operator for it"
                        .into(),
                ))
            }
            None => access.trust_all,
        };
        access
            .creates
            .take(&caller.client)
            .map_err(|wait| ServiceError::too_many("too many games were created from your address", wait))?;
        let held = if trusted {
            None
        } else {
            let host = req.get("host").and_then(|h| h.get("email")).and_then(Value::as_str);
            Some(host.map(|e| e.trim().to_lowercase()))
        };
        self.create_checked(req, idempotency, held).await
    }

    /// Create a game; `held` is `Some(host address)` when its mail waits
    /// for the host's confirmation.
    async fn create_checked(
        &self,
        req: Value,
        idempotency: Option<&str>,
        held: Option<Option<String>>,
    ) -> Result<Answer> {
        let key = idempotency.map(|k| idem_key("~create", k));
        if let Some(k) = &key {
            if let Some(a) = self.stored_answer(k, &req)? {
                return Ok(a);
            }
        }
        self.non_essential_write()?;
        let spec: CreateGame = serde_json::from_value(req.clone())
            .map_err(|e| ServiceError::BadRequest(format!("not a game to create: {}", in_words(&e.to_string()))))?;
        let game = self.registry.get(&spec.ruleset).ok_or_else(|| {
            ServiceError::Unprocessable(format!(
                "unknown ruleset {:?}; this server offers: {}",
                spec.ruleset,
                self.registry.ids().collect::<Vec<_>>().join(", ")
            ))
        })?;
        for (i, s) in spec.seats.iter().enumerate() {
            let name = limits::name(&format!("seat {i}'s name"), &s.name).map_err(ServiceError::BadRequest)?;
            if let Some(email) = &s.email {
                limits::email(&format!("seat {i}'s email"), email).map_err(ServiceError::BadRequest)?;
                if !plausible_email(email) {
                    return Err(ServiceError::Unprocessable(format!(
                        "seat {i} ({name}): {email:?} is not an email address"
                    )));
                }
            }
            if let Some(tz) = &s.tz {
                limits::text(&format!("seat {i}'s time zone"), tz, limits::TZ_MAX).map_err(ServiceError::BadRequest)?;
                crate::notify::parse_tz(tz)
                    .map_err(|e| ServiceError::Unprocessable(format!("seat {i} ({name}): {e}")))?;
            }
        }
        if let Some(h) = &spec.host {
            limits::name("the host's name", &h.name).map_err(ServiceError::BadRequest)?;
            limits::email("the host's email", &h.email).map_err(ServiceError::BadRequest)?;
            if !plausible_email(&h.email) {
                return Err(ServiceError::Unprocessable(format!("host: {:?} is not an email address", h.email)));
            }
            if let Some(tz) = &h.tz {
                limits::text("the host's time zone", tz, limits::TZ_MAX).map_err(ServiceError::BadRequest)?;
                crate::notify::parse_tz(tz).map_err(|e| ServiceError::Unprocessable(format!("host: {e}")))?;
            }
        }
        let policy = crate::deadlines::Policy::parse(&spec.deadlines).map_err(ServiceError::Unprocessable)?;
        if let Some(Some(address)) = &held {
            self.access().confirmations.take(address).map_err(|wait| {
                ServiceError::too_many(&format!("confirmations were mailed to {address} too often"), wait)
            })?;
        }
        let game_id = crate::new_game_id();
        let seed = Seed(crate::random_bytes::<32>());
        let names: Vec<String> = spec.seats.iter().map(|s| s.name.trim().to_owned()).collect();
        let mut drafts = Table::create(game.as_ref(), &spec.options, names, &seed, None)?;
        drafts.extend(policy_draft(&policy));
        let record = GameRecord {
            seed: seed.to_hex(),
            created_at: stamp(self.clock.now()),
            seats: spec
                .seats
                .into_iter()
                .map(|s| SeatRecord {
                    name: s.name.trim().to_owned(),
                    email: s.email,
                    tz: s.tz,
                    mail: true,
                    digest: s.digest,
                    ..Default::default()
                })
                .collect(),
            host: spec.host.map(|h| HostSpec { name: h.name.trim().to_owned(), ..h }),
            deadlines: spec.deadlines,
            clocks: Default::default(),
            mail_held: held.is_some(),
        };
        let created = self.write_new_game(&game_id, drafts, &seed, record, key, &req).await?;
        Ok(Answer { status: 201, body: serde_json::to_value(created).expect("JSON") })
    }

    async fn write_new_game(
        &self,
        game_id: &str,
        drafts: Vec<runestone_engine::Draft>,
        seed: &Seed,
        record: GameRecord,
        idem: Option<Vec<u8>>,
        request: &Value,
    ) -> Result<CreatedGame> {
        let now = self.clock.now();
        let events = seal(game_id, None, drafts, &stamp(now), seed);
        let table = Table::fold(&self.registry, &events)?;
        let created = CreatedGame {
            game_id: game_id.to_owned(),
            ruleset: table.created.ruleset.clone(),
            seed_commitment: seed.commitment(),
            host_token: self.keys.issue(game_id, Role::Host, None, 0, now),
            referee_token: self.keys.issue(game_id, Role::Referee, None, 0, now),
            seats: table
                .created
                .seats
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    let token = self.keys.issue(game_id, Role::Seat, Some(i as u8), 0, now);
                    SeatToken { seat: i as u8, name: name.clone(), link: self.link(game_id, &token), token }
                })
                .collect(),
            head: table.head,
            mail: record.mail_held.then(|| match &record.host {
                Some(h) => format!(
                    "no mail goes to the players until the host confirms {} by the link just mailed there",
                    h.email
                ),
                None => "no mail goes to the players: the game has no host address to confirm; \
                         give the players their links yourself, or create the game with the instance key"
                    .to_owned(),
            }),
        };
        let mut record = record;
        let (mut side, dues) = self.schedule(None, &table, table.head, &mut record);
        side.extend(self.invitations(&table, &mut record, &dues));
        if record.mail_held {
            side.extend(self.host_confirmation(&table, &record));
        }
        let record_bytes = serde_json::to_vec(&record).expect("JSON");
        side.push(SideWrite { side: Side::Games, key: record_key(game_id), value: Some(record_bytes.clone()) });
        side.extend(Self::answer_write(idem, request, 201, &serde_json::to_value(&created).expect("JSON")));
        let write = Write { game: game_id.to_owned(), expect_head: None, events, side, unchanged: Vec::new() };
        self.append(write).await?;
        Metrics::inc(&self.metrics.games_created);
        let slot = self.slot(game_id);
        let bytes = serde_json::to_vec(&table.save()).map_or(0, |v| v.len());
        *slot.game.lock().await = Some(Loaded {
            table,
            seed: seed.clone(),
            record,
            record_bytes,
            head_time: None,
            in_flight: VecDeque::new(),
        });
        self.count_bytes(game_id, bytes);
        Ok(created)
    }

    /// Run `f` on the loaded game under its lock.
    async fn with_game<T>(&self, game: &str, f: impl FnOnce(&Loaded) -> Result<T>) -> Result<T> {
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        f(loaded)
    }

    /// Seal `drafts` after the head, append them durably with `side`, then
    /// fold them in and tell the stream. Returns the new envelopes.
    pub(crate) async fn commit(
        &self,
        slot: &Slot,
        loaded: &mut Loaded,
        drafts: Vec<runestone_engine::Draft>,
        side: impl FnOnce(&[Envelope], &Table) -> Vec<SideWrite>,
    ) -> Result<Vec<Envelope>> {
        let time = self.event_time(loaded)?;
        let t = &loaded.table;
        let events = seal(&t.game_id, Some((t.head, &t.head_hash)), drafts, &time, &loaded.seed);
        self.commit_sealed(slot, loaded, events, side).await
    }

    /// Append sealed `events` (which follow the head) with `side`, the
    /// deadlines and mail they cause; then fold them in and tell the stream.
    pub(crate) async fn commit_sealed(
        &self,
        slot: &Slot,
        loaded: &mut Loaded,
        events: Vec<Envelope>,
        side: impl FnOnce(&[Envelope], &Table) -> Vec<SideWrite>,
    ) -> Result<Vec<Envelope>> {
        let t = &loaded.table;
        let (next, inside) = self.fold_next(t, &events, true)?.expect("folded again when needed");
        let interval = self.options.snapshot_interval;
        let mut base = side(&events, &next);
        let before_pending: Vec<u8> = t.pending().iter().map(|p| p.seat).collect();
        // On a shared store the record is written only over the one this
        // node read; one changed meanwhile while the head did not move can
        // only be a player's mail preferences (`set_mail_preferences`),
        // which are carried over, and the write is made again.
        let mut tries = 0;
        let (record, record_bytes) = loop {
            let mut side = if self.store.shared() { base.clone() } else { std::mem::take(&mut base) };
            let mut record = loaded.record.clone();
            let (deadlines, dues) = self.schedule(Some(t), &next, t.head + 1, &mut record);
            side.extend(deadlines);
            side.extend(self.notifications(t, &next, &events, &dues, &mut record)?);
            let bytes = serde_json::to_vec(&record).expect("JSON");
            side.push(SideWrite { side: Side::Games, key: record_key(&next.game_id), value: Some(bytes.clone()) });
            let unchanged = self.record_as_read(&t.game_id, &loaded.record_bytes);
            let write =
                Write { game: t.game_id.clone(), expect_head: Some(t.head), events: events.clone(), side, unchanged };
            let r = self.append(write).await;
            match r {
                Ok(()) => break (record, bytes),
                Err(ServiceError::Conflict(_))
                    if self.store.shared() && tries < 8 && self.store.head(&t.game_id)? == Some(t.head) =>
                {
                    tries += 1;
                    let raw = self.store.get(Side::Games, &record_key(&t.game_id))?.unwrap_or_default();
                    carry_preferences(&mut loaded.record, &parse_record(&t.game_id, &raw)?);
                    loaded.record_bytes = raw;
                }
                Err(e) => return Err(e),
            }
        };
        loaded.record = record;
        loaded.record_bytes = record_bytes;
        loaded.head_time = events.last().and_then(|e| Some((e.seq, parse_time(&e.time)?)));
        let after_pending: Vec<u8> = next.pending().iter().map(|p| p.seat).collect();
        for (seq, snapshot) in &inside {
            if self.store.put_snapshot(&next.game_id, *seq, snapshot).is_ok() {
                Metrics::inc(&self.metrics.snapshots_written);
            }
        }
        let crossed = next.head / interval != t.head / interval;
        if crossed || before_pending != after_pending {
            self.count_bytes(&next.game_id, serde_json::to_vec(&next.save()).map_or(0, |v| v.len()));
        }
        loaded.table = next;
        let _ = slot.tx.send(Arc::new(events.clone()));
        Ok(events)
    }

    /// `t` with `events` folded in (into a copy: what is appended must
    /// fold), and the snapshots of the positions at the interval's multiples
    /// the events reach, also inside them (one append may carry a whole
    /// round): a past view then folds at most an interval's events
    /// (`snapshot_due`). `None` when the events need the whole log folded
    /// again (a rollback) and `refold_ok` is false: the store does not hold
    /// the whole log while appends are in flight.
    #[allow(clippy::type_complexity)]
    fn fold_next(
        &self,
        t: &Table,
        events: &[Envelope],
        refold_ok: bool,
    ) -> Result<Option<(Table, Vec<(u64, Vec<u8>)>)>> {
        let mut next = t.clone();
        let mut refold = false;
        let interval = self.options.snapshot_interval;
        let mut inside = Vec::new();
        for e in events {
            match next.push(e) {
                Ok(()) if snapshot_due(next.head, interval) => inside.push((next.head, next.snapshot())),
                Ok(()) => {}
                Err(FoldError::NeedsRefold) => {
                    refold = true;
                    break;
                }
                Err(e) => return Err(e.into()),
            }
        }
        if refold && !refold_ok {
            return Ok(None);
        }
        if refold {
            let mut log = self.store.load(&t.game_id, 0, None)?;
            log.extend(events.iter().cloned());
            next = Table::fold(&self.registry, &log)?;
            if snapshot_due(next.head, interval) {
                inside.push((next.head, next.snapshot()));
            }
        }
        Ok(Some((next, inside)))
    }

    /// [`Service::commit`] for a submit whose game's appends are written in
    /// the order they are queued (`EventStore::ordered_appends`, one node):
    /// the append is queued under the game's lock and `loaded` moves to the
    /// position after it at once, so the game's next command can be decided
    /// and queued behind it (into the same or the next group commit) while
    /// this one is made durable, instead of waiting for its fdatasync. What
    /// the caller awaits after letting the lock go resolves once the append
    /// is durable (then [`Service::settle`]). Readers and every other writer
    /// wait until no append of the game is in flight ([`Service::settled`]),
    /// so none of them sees a position that is not durable yet.
    ///
    /// `None` when the events need the whole log folded again (a rollback's
    /// kind of event) while appends are in flight: the caller then decides
    /// again once the game has settled and commits the usual way.
    #[allow(clippy::type_complexity)]
    pub(crate) fn commit_queued(
        &self,
        loaded: &mut Loaded,
        drafts: Vec<runestone_engine::Draft>,
        side: impl FnOnce(&[Envelope], &Table) -> Vec<SideWrite>,
    ) -> Result<Option<(u64, impl std::future::Future<Output = Result<()>> + '_)>> {
        let time = self.event_time(loaded)?;
        let t = &loaded.table;
        let events = seal(&t.game_id, Some((t.head, &t.head_hash)), drafts, &time, &loaded.seed);
        // The store holds the whole log only when nothing is in flight.
        let Some((next, inside)) = self.fold_next(t, &events, loaded.in_flight.is_empty())? else {
            return Ok(None);
        };
        let mut side = side(&events, &next);
        let mut record = loaded.record.clone();
        let (deadlines, dues) = self.schedule(Some(t), &next, t.head + 1, &mut record);
        side.extend(deadlines);
        side.extend(self.notifications(t, &next, &events, &dues, &mut record)?);
        let bytes = serde_json::to_vec(&record).expect("JSON");
        side.push(SideWrite { side: Side::Games, key: record_key(&next.game_id), value: Some(bytes.clone()) });
        let last = next.head;
        let write = Write {
            game: t.game_id.clone(),
            expect_head: Some(t.head),
            events: events.clone(),
            side,
            unchanged: self.record_as_read(&t.game_id, &loaded.record_bytes),
        };
        // Queued now (`ordered_appends`): behind every append of the game
        // queued before it, ahead of every one queued after.
        let appended = self.append(write);
        let interval = self.options.snapshot_interval;
        let pending_changed = {
            let before: Vec<u8> = t.pending().iter().map(|p| p.seat).collect();
            let after: Vec<u8> = next.pending().iter().map(|p| p.seat).collect();
            before != after
        };
        if next.head / interval != t.head / interval || pending_changed {
            self.count_bytes(&next.game_id, serde_json::to_vec(&next.save()).map_or(0, |v| v.len()));
        }
        loaded.record = record;
        loaded.record_bytes = bytes;
        loaded.head_time = events.last().and_then(|e| Some((e.seq, parse_time(&e.time)?)));
        loaded.table = next;
        loaded.in_flight.push_back(InFlight { last, events: Arc::new(events), snapshots: inside });
        Ok(Some((last, appended)))
    }

    /// After a queued append (`commit_queued`) has resolved: on success
    /// every append of the game up to it is durable (the store writes them
    /// in order), so their snapshots are written and their events told to
    /// the stream, in order; once none is left in flight, waiters are told.
    /// On failure the game's position in memory holds this append and those
    /// queued after it (which the store then refuses: they name a head that
    /// was not written, or the store refuses every write after a failed
    /// flush), so it is dropped and folded again from the store.
    pub(crate) async fn settle(&self, slot: &Slot, game: &str, last: u64, outcome: Result<()>) -> Result<()> {
        let mut guard = slot.game.lock().await;
        match outcome {
            Ok(()) => {
                if let Some(loaded) = guard.as_mut() {
                    while loaded.in_flight.front().is_some_and(|f| f.last <= last) {
                        let done = loaded.in_flight.pop_front().expect("just looked");
                        for (seq, snapshot) in &done.snapshots {
                            if self.store.put_snapshot(game, *seq, snapshot).is_ok() {
                                Metrics::inc(&self.metrics.snapshots_written);
                            }
                        }
                        let _ = slot.tx.send(done.events);
                    }
                    if loaded.in_flight.is_empty() {
                        slot.settle.notify_waiters();
                    }
                }
                Ok(())
            }
            Err(e) => {
                if guard.as_ref().is_some_and(|l| l.in_flight.iter().any(|f| f.last == last)) {
                    *guard = None;
                    self.forget(game);
                }
                slot.settle.notify_waiters();
                Err(e)
            }
        }
    }

    fn event_views(&self, table: &Table, events: &[Envelope], viewer: Viewer, live: Option<&[bool]>) -> Vec<EventView> {
        let over = table.seed_revealed.is_some();
        events
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let r = e.redacted_for(viewer, over);
                EventView {
                    hidden: !e.visible_to(viewer, over),
                    in_force: live.is_none_or(|l| l.get(i).copied().unwrap_or(true)),
                    text: table.describe(&r),
                    envelope: r,
                }
            })
            .collect()
    }

    /// Submit a seat's command.
    pub async fn submit(&self, game: &str, claims: &Claims, req: Value, idempotency: Option<&str>) -> Result<Answer> {
        let written = self.submit_written(game, claims, req, idempotency).await?;
        let body = serde_json::from_slice(&written.text).expect("an answer written as JSON reads back");
        Ok(Answer { status: written.status, body })
    }

    /// [`Service::submit_written`] as a task of its own, on the caller's
    /// thread: it runs to its end even when the caller stops waiting (a
    /// client that goes away while its command is being made durable), so
    /// its queued append is settled as every other one is (its snapshots
    /// written, its events told to the game's stream in order) instead of
    /// leaving the game's position to be dropped (`Slot::abandoned`).
    pub async fn submit_to_the_end(
        self: Arc<Self>,
        game: String,
        claims: Claims,
        req: Value,
        idempotency: Option<String>,
    ) -> Result<Written> {
        let task =
            actix_web::rt::spawn(async move { self.submit_written(&game, &claims, req, idempotency.as_deref()).await });
        task.await.unwrap_or_else(|_| {
            Err(StoreError::Io(
                "the command stopped before it was answered; the game's events say whether it was recorded".into(),
            )
            .into())
        })
    }

    /// Submit a seat's command; the answer (`types::Accepted`) as JSON text,
    /// written from its typed parts (the API serves it as it is).
    pub async fn submit_written(
        &self,
        game: &str,
        claims: &Claims,
        req: Value,
        idempotency: Option<&str>,
    ) -> Result<Written> {
        // On a shared store another node may append between this node's
        // read of the head and its append: a command that names no
        // expected_seq claims no position, so it is decided again on the new
        // one (a few times) instead of being answered 409.
        let retry = self.store.shared() && req.get("expected_seq").is_none_or(Value::is_null);
        again_on_conflict(retry, || self.submit_once(game, claims, &req, idempotency)).await
    }

    async fn submit_once(
        &self,
        game: &str,
        claims: &Claims,
        req: &Value,
        idempotency: Option<&str>,
    ) -> Result<Written> {
        // Queued behind the game's appends in flight when the store keeps
        // their order and no other node writes; an idempotent submit waits
        // for them (its stored answer must be found by a retry).
        let queued = idempotency.is_none() && !self.store.shared() && self.store.ordered_appends();
        match self.submit_decided(game, claims, req, idempotency, queued).await? {
            Some(written) => Ok(written),
            None => Ok(self.submit_decided(game, claims, req, idempotency, false).await?.expect("committed in place")),
        }
    }

    /// A submit, decided and committed in place (`queued` false) or queued
    /// behind the game's appends in flight (`commit_queued`); `None` when it
    /// could not be queued and must be decided again in place.
    async fn submit_decided(
        &self,
        game: &str,
        claims: &Claims,
        req: &Value,
        idempotency: Option<&str>,
        queued: bool,
    ) -> Result<Option<Written>> {
        let seat = match (claims.role, claims.seat) {
            (Role::Seat, Some(s)) => s,
            _ => return Err(ServiceError::Forbidden("only a seat's token can submit commands".into())),
        };
        let slot = self.slot(game);
        let queued = queued && slot.draining.load(Ordering::SeqCst) == 0;
        let mut guard = if queued { slot.game.lock().await } else { self.settled(&slot).await };
        Self::drop_if_abandoned(&slot, &mut guard);
        let loaded = self.loaded(game, &mut guard).await?;
        let key = idempotency.map(|k| idem_key(&format!("{game}/{seat}"), k));
        if let Some(k) = &key {
            if let Some(a) = self.stored_answer(k, req)? {
                return Ok(Some(Written { status: a.status, text: serde_json::to_vec(&a.body).expect("JSON") }));
            }
        }
        let (command, expected_seq) = parse_submission(req)?;
        if expected_seq.is_none() {
            require_expected_seq(&loaded.table, seat)?;
        }
        let drafts = match loaded.table.decide(Actor::Seat(seat), seat, &command, expected_seq, &loaded.seed) {
            Ok(d) => d,
            Err(e) => {
                Metrics::inc(&self.metrics.commands_rejected);
                return Err(self.other_games_command(&loaded.table.game().info(), &command, e));
            }
        };
        let viewer = Viewer::Seat(seat);
        let mut text = Vec::new();
        if queued {
            let side = |events: &[Envelope], next: &Table| {
                text = self.submit_text(next, events, viewer);
                Vec::new()
            };
            let Some((last, appended)) = self.commit_queued(loaded, drafts, side)? else {
                return Ok(None);
            };
            drop(guard);
            /// Marks the slot abandoned if dropped before disarmed.
            struct Settling<'a>(Option<&'a Slot>);
            impl Drop for Settling<'_> {
                fn drop(&mut self) {
                    if let Some(slot) = self.0 {
                        slot.abandoned.store(true, Ordering::SeqCst);
                        slot.settle.notify_waiters();
                    }
                }
            }
            let mut settling = Settling(Some(&slot));
            let outcome = appended.await;
            let settled = self.settle(&slot, game, last, outcome).await;
            settling.0 = None;
            settled?;
            Metrics::inc(&self.metrics.commands_accepted);
            return Ok(Some(Written { status: 200, text }));
        }
        self.commit(&slot, loaded, drafts, |events, next| {
            text = self.submit_text(next, events, viewer);
            // Only an idempotent request keeps its answer, as JSON.
            key.and_then(|key| {
                let body = serde_json::from_slice(&text).expect("an answer written as JSON reads back");
                Self::answer_write(Some(key), req, 200, &body)
            })
            .into_iter()
            .collect()
        })
        .await?;
        Metrics::inc(&self.metrics.commands_accepted);
        Ok(Some(Written { status: 200, text }))
    }

    /// A command this game cannot read is malformed (400) unless it is a
    /// command of another hosted game: then the request is well formed (the
    /// API's command schema is any game's) but not for this game (422).
    fn other_games_command(
        &self,
        this: &runestone_engine::RulesetInfo,
        command: &Value,
        e: KernelError,
    ) -> ServiceError {
        if !matches!(e, KernelError::Schema(_)) {
            return e.into();
        }
        match self.registry.all().find(|g| g.info().id != this.id && g.accepts_command(command)) {
            Some(other) => ServiceError::Unprocessable(format!(
                "this is a command of {}, not of {}; this game's commands are in its ruleset's command schema",
                other.info().name,
                this.name
            )),
            None => e.into(),
        }
    }

    fn submit_answer(&self, table: &Table, events: &[Envelope], viewer: Viewer) -> Value {
        serde_json::from_slice(&self.submit_text(table, events, viewer)).expect("an answer written as JSON reads back")
    }

    /// The answer to an accepted command (`types::Accepted`) as JSON text,
    /// written straight from its parts (no `Value` in between).
    fn submit_text(&self, table: &Table, events: &[Envelope], viewer: Viewer) -> Vec<u8> {
        // The rules are asked once for both lists.
        let (submitted, pending) = table.pending().into_iter().partition(|p| p.submitted);
        serde_json::to_vec(&AcceptedAnswer {
            head: table.head,
            events: self.event_views(table, events, viewer, None),
            pending,
            submitted,
            over: table.is_over(),
        })
        .expect("JSON")
    }

    /// Take back a seat's own last steps.
    pub async fn undo(&self, game: &str, claims: &Claims) -> Result<Value> {
        let Some(seat) = claims.seat.filter(|_| claims.role == Role::Seat) else {
            return Err(ServiceError::Forbidden("only a seat's token can undo its own steps".into()));
        };
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        let draft = loaded.table.undo(seat)?;
        let events = self.commit(&slot, loaded, vec![draft], |_, _| Vec::new()).await?;
        Ok(self.submit_answer(&loaded.table, &events, Viewer::Seat(seat)))
    }

    /// Void everything after `to_seq`, for a host or referee, with a reason.
    pub async fn rollback(&self, game: &str, claims: &Claims, req: Value) -> Result<Value> {
        let actor = match claims.role {
            Role::Host => Actor::Host,
            Role::Referee => Actor::Referee,
            Role::Seat => return Err(ServiceError::Forbidden("only the host or a referee can roll back".into())),
        };
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Req {
            to_seq: u64,
            reason: String,
        }
        let r: Req = serde_json::from_value(req).map_err(|e| {
            ServiceError::BadRequest(format!(
                "a rollback needs {{\"to_seq\": N, \"reason\": \"...\"}}: {}",
                in_words(&e.to_string())
            ))
        })?;
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        let log = self.store.load(game, 0, None)?;
        limits::text("the reason", &r.reason, limits::TEXT_MAX).map_err(ServiceError::BadRequest)?;
        let draft = loaded.table.rollback(actor, r.to_seq, &r.reason, &log)?;
        let events = self.commit(&slot, loaded, vec![draft], |_, _| Vec::new()).await?;
        Ok(self.submit_answer(&loaded.table, &events, claims.viewer()))
    }

    /// Revoke a seat's links and issue a new one (host only).
    pub async fn reissue(&self, game: &str, claims: &Claims, seat: u8, reason: String) -> Result<Value> {
        if claims.role != Role::Host {
            return Err(ServiceError::Forbidden("only the host can issue a seat's new link".into()));
        }
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        limits::text("the reason", &reason, limits::TEXT_MAX).map_err(ServiceError::BadRequest)?;
        let reason = if reason.trim().is_empty() { "new link issued by the host".to_owned() } else { reason };
        let draft = loaded.table.revoke(Actor::Host, seat, &reason)?;
        self.commit(&slot, loaded, vec![draft], |_, _| Vec::new()).await?;
        let gen = loaded.table.generations[seat as usize];
        let token = self.keys.issue(game, Role::Seat, Some(seat), gen, self.clock.now());
        Ok(json!({ "seat": seat, "generation": gen, "link": self.link(game, &token), "token": token }))
    }

    /// A new game from this one's position at `at_seq` (host only).
    pub async fn fork(&self, game: &str, claims: &Claims, req: Value) -> Result<Answer> {
        if claims.role != Role::Host {
            return Err(ServiceError::Forbidden("only the host can fork a game".into()));
        }
        self.non_essential_write()?;
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Req {
            at_seq: u64,
        }
        let r: Req = serde_json::from_value(req).map_err(|e| {
            ServiceError::BadRequest(format!("a fork needs {{\"at_seq\": N}}: {}", in_words(&e.to_string())))
        })?;
        let (table, record) = self.with_game(game, |l| Ok((l.table.clone(), l.record.clone()))).await?;
        if r.at_seq > table.head {
            return Err(ServiceError::Unprocessable(format!("at_seq {} is after the head {}", r.at_seq, table.head)));
        }
        let log = self.store.load(game, 0, Some(r.at_seq))?;
        if r.at_seq < table.setup_end || !decision_ends(&log).contains(&r.at_seq) {
            return Err(ServiceError::Unprocessable(format!(
                "seq {} is inside a decision or the setup; fork at the end of one",
                r.at_seq
            )));
        }
        let origin = ForkOrigin { game: game.to_owned(), seq: r.at_seq, hash: log[r.at_seq as usize].hash };
        let rules = self.registry.get(&table.created.ruleset).expect("loaded games have known rulesets");
        let seed = Seed(crate::random_bytes::<32>());
        let mut drafts = Table::create_as(
            rules.as_ref(),
            &table.created.options,
            table.created.seats.clone(),
            &seed,
            Some(origin),
            Some(table.created.rules_version),
        )?;
        drafts.extend(fork_copies(&log, r.at_seq));
        let policy = crate::deadlines::Policy::parse(&table.clock.policy).ok().flatten();
        drafts.extend(policy_draft(&policy));
        let new_id = crate::new_game_id();
        let record = GameRecord {
            seed: seed.to_hex(),
            created_at: stamp(self.clock.now()),
            clocks: Default::default(),
            ..record
        };
        let created = self.write_new_game(&new_id, drafts, &seed, record, None, &Value::Null).await?;
        Ok(Answer { status: 201, body: serde_json::to_value(created).expect("JSON") })
    }

    /// The game's summary, for anyone.
    pub async fn summary(&self, game: &str) -> Result<Value> {
        self.with_game(game, |l| {
            let t = &l.table;
            Ok(json!({
                "game_id": t.game_id,
                "ruleset": t.created.ruleset,
                "rules_version": t.created.rules_version,
                "options": t.created.options,
                "status": if t.is_over() { "over" } else { "running" },
                "seats": t.created.seats.iter().enumerate().map(|(i, n)| json!({"seat": i, "name": n})).collect::<Vec<_>>(),
                "pending": owed(t),
                "submitted": given(t),
                "head": t.head,
                "created_at": l.record.created_at,
                "seed_commitment": t.created.seed_commitment,
                "seed": t.seed_revealed,
                "forked_from": t.created.forked_from,
                "outcome": t.outcome(),
                "deadlines": {
                    "policy": t.clock.policy,
                    "paused": t.clock.paused.is_some(),
                    "due": l.record.clocks.iter().filter_map(|(k, c)| {
                        let d = chrono::DateTime::from_timestamp_millis(c.deadline_ms?)?;
                        Some(json!({ "decision": k, "due": stamp(d) }))
                    }).collect::<Vec<_>>(),
                    "forfeited": t.clock.forfeited,
                },
            }))
        })
        .await
    }

    /// The viewer's view at the head or after event `at`, as a JSON tree
    /// (for the pages); the API sends [`Service::view_answer`]'s text.
    pub async fn view(&self, game: &str, viewer: Viewer, at: Option<u64>) -> Result<Value> {
        let text = self.view_answer(game, viewer, at).await?;
        Ok(serde_json::from_slice(&text).expect("a view answer is JSON"))
    }

    /// The viewer's view at the head or after event `at`: the answer of
    /// `GET /view`, written as JSON text.
    pub async fn view_answer(&self, game: &str, viewer: Viewer, at: Option<u64>) -> Result<Vec<u8>> {
        if at.is_some_and(|a| a < 1) {
            return Err(ServiceError::BadRequest(
                "`at` must be 1 or more: positions start after event 1 (the setup); event 0 only names the game".into(),
            ));
        }
        // At the head the answer is made under the game's lock, without a
        // copy of the position; a past position is folded apart.
        let (head, over, answer) = self
            .with_game(game, |l| {
                let t = &l.table;
                let over = t.seed_revealed.is_some();
                if let Some(a) = at.filter(|a| *a > t.head) {
                    return Err(ServiceError::Unprocessable(format!(
                        "there is no position after event {a} yet: the log's head is event {}",
                        t.head
                    )));
                }
                let answer = match at {
                    Some(past) if past < t.head => Err(past),
                    _ => Ok(Self::view_of(t, t.head, viewer, over, true)),
                };
                Ok((t.head, over, answer))
            })
            .await?;
        match answer {
            Ok(v) => Ok(v),
            Err(past) => Ok(Self::view_of(&self.fold_at(game, past, true).await?, head, viewer, over, false)),
        }
    }

    /// The view answer's text; once the game is `over`, every position is
    /// public. The seat's legal commands, their reasons and templates are
    /// worked out only at the head, for the seat asking; the game writes
    /// its view straight to text ([`Table::view_text`]).
    fn view_of(position: &Table, head: u64, viewer: Viewer, over: bool, at_head: bool) -> Vec<u8> {
        let is_over = position.is_over();
        let legal = match viewer {
            Viewer::Seat(s) if at_head && position.pending().iter().any(|p| p.seat == s) => position.legal_labelled(s),
            _ => Vec::new(),
        };
        // The actions of the turn none of the legal commands takes, with why.
        let unavailable = match viewer {
            Viewer::Seat(s) if !legal.is_empty() => {
                let commands: Vec<Value> = legal.iter().map(|(c, _)| c.clone()).collect();
                position.unavailable(s, &commands)
            }
            _ => Vec::new(),
        };
        // The families too large to list, which the seat may send now.
        let templates_of = match viewer {
            Viewer::Seat(s) if at_head && !is_over => Some(s),
            _ => None,
        };
        let (view, templates) = position.view_text(if over { Viewer::Referee } else { viewer }, templates_of);
        let pending = position.pending();
        let (submitted, owed): (Vec<_>, Vec<_>) = pending.into_iter().partition(|p| p.submitted);
        let first = ViewAnswerHead {
            game_id: &position.game_id,
            ruleset: &position.created.ruleset,
            seq: position.head,
            head,
            viewer,
        };
        let rest = ViewAnswerRest {
            pending: owed,
            submitted,
            legal: legal.iter().map(|(c, _)| c).collect(),
            legal_labels: legal.iter().map(|(_, l)| l).collect(),
            legal_templates: templates,
            unavailable,
            over: is_over,
            outcome: position.outcome(),
        };
        // `{first…,"view":VIEW,…rest}`: both parts are objects with members.
        let mut out = Vec::with_capacity(view.len() + 1024);
        serde_json::to_writer(&mut out, &first).expect("JSON");
        out.pop();
        out.extend_from_slice(b",\"view\":");
        out.extend_from_slice(view.as_bytes());
        out.push(b',');
        let rest = serde_json::to_vec(&rest).expect("JSON");
        out.extend_from_slice(&rest[1..]);
        out
    }

    /// The log from `from` to `to` as the viewer may see it.
    pub async fn events(&self, game: &str, viewer: Viewer, from: u64, to: Option<u64>) -> Result<Vec<EventView>> {
        let table = self.with_game(game, |l| Ok(l.table.clone())).await?;
        let to = to.map_or(table.head, |t| t.min(table.head));
        if from > to {
            return Ok(Vec::new());
        }
        let log = self.store.load(game, 0, Some(to))?;
        let mut live = vec![false; log.len()];
        live[0] = true;
        for i in in_force(&log) {
            live[i] = true;
        }
        for (i, e) in log.iter().enumerate() {
            if !matches!(e.body, Body::Game { .. }) {
                live[i] = true;
            }
        }
        let from = from as usize;
        Ok(self.event_views(&table, &log[from..], viewer, Some(&live[from..])))
    }

    /// Subscribe to the game's new events (subscribe before reading the
    /// backlog, so nothing falls between).
    pub async fn subscribe(&self, game: &str) -> Result<(broadcast::Receiver<Arc<Vec<Envelope>>>, Table)> {
        let slot = self.slot(game);
        let rx = slot.tx.subscribe();
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        Ok((rx, loaded.table.clone()))
    }

    /// A copy of the game's position at its head.
    pub async fn game_table(&self, game: &str) -> Result<Table> {
        self.with_game(game, |l| Ok(l.table.clone())).await
    }

    /// Stream form of a batch of events for one viewer.
    pub fn stream_views(&self, table: &Table, events: &[Envelope], viewer: Viewer) -> Vec<EventView> {
        self.event_views(table, events, viewer, None)
    }

    /// Check the chain, and with the seed every digest and every draw.
    pub async fn verify(&self, game: &str) -> Result<Value> {
        let (seed, revealed) = self.with_game(game, |l| Ok((l.seed.clone(), l.table.seed_revealed.clone()))).await?;
        let log = self.store.load(game, 0, None)?;
        let chain = verify::chain(&log);
        let full = verify::full(&self.registry, &log, &seed);
        let ok = full.problem.is_none();
        Ok(json!({
            "game_id": game,
            "events": log.len(),
            "chain_ok": chain.chain_ok,
            "ok": ok,
            "problem": full.problem.as_ref().map(|(seq, p)| json!({"seq": seq, "problem": p})),
            "seed_commitment": log.first().and_then(|e| match e.kernel() {
                Some(runestone_engine::KernelEvent::GameCreated { seed_commitment, .. }) => Some(seed_commitment.clone()),
                _ => None,
            }),
            "seed": revealed,
            "draws": if revealed.is_some() {
                json!({
                    "decisions_rederived": full.decisions_rederived,
                    "copied_events": full.copied_events,
                    "note": "the seed is revealed: anyone can re-derive every draw from the log and the seed",
                })
            } else {
                json!({
                    "decisions_rederived": full.decisions_rederived,
                    "note": "checked by the server with the secret seed; the seed is revealed when the game ends",
                })
            },
        }))
    }

    /// A seat's display name.
    pub async fn seat_name(&self, game: &str, seat: u8) -> Result<String> {
        self.with_game(game, |l| {
            l.record
                .seats
                .get(seat as usize)
                .map(|s| s.name.clone())
                .ok_or_else(|| ServiceError::NotFound(format!("there is no seat {seat}")))
        })
        .await
    }

    /// A seat's mail preferences: whether it gets mail, as a daily digest,
    /// and its time zone.
    pub async fn mail_preferences(&self, game: &str, seat: u8) -> Result<(bool, bool, Option<String>)> {
        self.with_game(game, |l| {
            l.record
                .seats
                .get(seat as usize)
                .map(|s| (s.mail, s.digest, s.tz.clone()))
                .ok_or_else(|| ServiceError::NotFound(format!("there is no seat {seat}")))
        })
        .await
    }

    /// Change a seat's mail preferences (`None` leaves a setting as it is).
    /// The change is an append without events over the record as read
    /// (`Write::unchanged`): on a store shared by several nodes another
    /// node's append in between is met as a conflict, and the change is made
    /// again on the record that append left. Every other write of the record
    /// names the record it read too, and carries preferences written
    /// meanwhile over (`commit_sealed`): no node puts back an older choice.
    pub async fn set_mail_preferences(
        &self,
        game: &str,
        seat: u8,
        mail: Option<bool>,
        digest: Option<bool>,
        tz: Option<Option<String>>,
    ) -> Result<()> {
        if let Some(Some(z)) = &tz {
            crate::notify::parse_tz(z).map_err(ServiceError::Unprocessable)?;
        }
        again_on_conflict(true, || async {
            let slot = self.slot(game);
            let mut guard = self.settled(&slot).await;
            let loaded = self.loaded(game, &mut guard).await?;
            let mut record = loaded.record.clone();
            let s = record
                .seats
                .get_mut(seat as usize)
                .ok_or_else(|| ServiceError::NotFound(format!("there is no seat {seat}")))?;
            if let Some(m) = mail {
                s.mail = m;
            }
            if let Some(d) = digest {
                s.digest = d;
            }
            if let Some(z) = &tz {
                s.tz = z.clone();
            }
            let bytes = serde_json::to_vec(&record).expect("JSON");
            let side = vec![SideWrite { side: Side::Games, key: record_key(game), value: Some(bytes.clone()) }];
            let unchanged = self.record_as_read(game, &loaded.record_bytes);
            let head = Some(loaded.table.head);
            self.append(Write { game: game.to_owned(), expect_head: head, events: Vec::new(), side, unchanged })
                .await?;
            loaded.record = record;
            loaded.record_bytes = bytes;
            Ok(())
        })
        .await
    }

    /// Write `record` as `game`'s record over the one `loaded` holds, with
    /// `side`, as an append without events (see `set_mail_preferences`).
    pub(crate) async fn write_record(
        &self,
        game: &str,
        loaded: &mut Loaded,
        record: GameRecord,
        mut side: Vec<SideWrite>,
    ) -> Result<()> {
        let bytes = serde_json::to_vec(&record).expect("JSON");
        side.push(SideWrite { side: Side::Games, key: record_key(game), value: Some(bytes.clone()) });
        let unchanged = self.record_as_read(game, &loaded.record_bytes);
        let head = Some(loaded.table.head);
        self.append(Write { game: game.to_owned(), expect_head: head, events: Vec::new(), side, unchanged }).await?;
        loaded.record = record;
        loaded.record_bytes = bytes;
        Ok(())
    }

    /// What a write of `game`'s record names as read (`Write::unchanged`):
    /// on a shared store the record as this node read it; on a store no
    /// other node writes, nothing (every write of the record is made under
    /// the game's lock).
    fn record_as_read(&self, game: &str, bytes: &[u8]) -> Vec<SideWrite> {
        if !self.store.shared() {
            return Vec::new();
        }
        vec![SideWrite { side: Side::Games, key: record_key(game), value: Some(bytes.to_vec()) }]
    }
}

/// The players' mail preferences of `from` (a record read again) in `into`:
/// they are written only by `Service::set_mail_preferences`.
fn carry_preferences(into: &mut GameRecord, from: &GameRecord) {
    // Held mail is released once, never held again.
    into.mail_held &= from.mail_held;
    for (s, f) in into.seats.iter_mut().zip(&from.seats) {
        s.mail = f.mail;
        s.digest = f.digest;
        s.tz = f.tz.clone();
    }
}

/// A game's private record as stored.
fn parse_record(game: &str, raw: &[u8]) -> Result<GameRecord> {
    Ok(serde_json::from_slice(raw).map_err(|e| StoreError::Corrupt(format!("record of game {game}: {e}")))?)
}

/// The event that sets a deadline policy, if there is one.
fn policy_draft(policy: &Option<crate::deadlines::Policy>) -> Option<runestone_engine::Draft> {
    policy.as_ref().map(|p| {
        runestone_engine::Draft::kernel(
            Actor::System,
            runestone_engine::KernelEvent::DeadlinePolicySet { policy: serde_json::to_value(p).expect("JSON") },
        )
    })
}

/// A decoding error of a request's JSON, in the product's words: what field
/// is unknown or missing, or what kind of value was found where another was
/// expected (never the decoder's own message or its Rust type names).
pub fn in_words(message: &str) -> String {
    let msg = message.split(" at line ").next().unwrap_or(message);
    let (prefix, msg) = match msg.split_once(": ") {
        Some((p, rest)) if !p.contains(' ') && !p.contains('`') => (format!("{p}: "), rest),
        _ => (String::new(), msg),
    };
    let names = |list: &str| -> String {
        list.split(", ").map(|n| n.trim_matches(|c| c == '`' || c == ' ').to_owned()).collect::<Vec<_>>().join(", ")
    };
    let quoted = |s: &str| s.split('`').nth(1).unwrap_or_default().to_owned();
    let kind = |t: &str| -> String {
        let t = t.trim();
        match t {
            "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize" => {
                "a whole number in range".to_owned()
            }
            "f32" | "f64" => "a number".to_owned(),
            "a sequence" => "a list".to_owned(),
            "a map" => "an object".to_owned(),
            "a boolean" | "a string" | "a borrowed string" => t.replace("borrowed ", ""),
            t if t.starts_with("struct ") || t.starts_with("internally tagged enum") => "an object".to_owned(),
            t if t.starts_with("enum ") => "one of the listed names".to_owned(),
            t if t.starts_with("a sequence") || t.starts_with("an array") => "a list".to_owned(),
            _ => t.replace('`', "\""),
        }
    };
    let text = if let Some(rest) = msg.strip_prefix("unknown field ") {
        let field = quoted(rest);
        match rest.split_once("expected one of ") {
            Some((_, list)) => format!("unknown field \"{field}\"; the fields are: {}", names(list)),
            None => format!("unknown field \"{field}\""),
        }
    } else if let Some(rest) = msg.strip_prefix("unknown variant ") {
        let name = quoted(rest);
        match rest.split_once("expected one of ") {
            Some((_, list)) => format!("unknown type \"{name}\"; it is one of: {}", names(list)),
            None => format!("unknown type \"{name}\""),
        }
    } else if let Some(rest) = msg.strip_prefix("missing field ") {
        format!("\"{}\" is missing", quoted(rest))
    } else if let Some(rest) = msg.strip_prefix("invalid type: ") {
        let (found, expected) = rest.split_once(", expected ").unwrap_or((rest, "another kind of value"));
        format!(
            "{} was sent where {} is expected",
            found.replace('`', "").replace("integer", "a number"),
            kind(expected)
        )
    } else if let Some(rest) = msg.strip_prefix("invalid value: ") {
        let (found, expected) = rest.split_once(", expected ").unwrap_or((rest, "another value"));
        format!("{} is not {}", found.replace('`', "").replace("integer ", ""), kind(expected))
    } else if let Some(rest) = msg.strip_prefix("invalid length ") {
        let (n, expected) = rest.split_once(", expected ").unwrap_or((rest, "another length"));
        format!("a list of {n} was sent where {} is expected", expected.replace('`', ""))
    } else if msg.starts_with("missing field") || msg.contains("tag") {
        "the \"type\" field that names what it is is missing".to_owned()
    } else {
        "it does not have the shape described at /openapi.json".to_owned()
    };
    format!("{prefix}{text}")
}

/// Text a client sent, cut to 40 characters for an answer (so a huge id or
/// path is never echoed back whole).
pub fn shown(text: &str) -> String {
    let cut: String = text.chars().take(40).collect();
    if cut.len() < text.len() {
        format!("{cut}… ({} bytes)", text.len())
    } else {
        cut
    }
}

/// The decisions still owed: pending and not yet given.
pub fn owed(t: &Table) -> Vec<runestone_engine::Pending> {
    t.pending().into_iter().filter(|p| !p.submitted).collect()
}

/// The decisions given but still open to change (a secret plan before the
/// reveal): nothing is owed for them.
pub fn given(t: &Table) -> Vec<runestone_engine::Pending> {
    t.pending().into_iter().filter(|p| p.submitted).collect()
}

/// The `expected_seq` policy: a command without one is refused (400) when
/// the seat owes a turn or a small decision, whose legality depends on the
/// position; it may be left out only for a secret plan (made or replaced),
/// which others' plans do not change. A seat with nothing pending is left to
/// the kernel, which says whose turn it is.
fn require_expected_seq(t: &Table, seat: runestone_engine::Seat) -> Result<()> {
    let mine: Vec<_> = t.pending().into_iter().filter(|p| p.seat == seat).collect();
    match mine.iter().find(|p| p.class != runestone_engine::DecisionClass::Plan) {
        Some(p) => Err(ServiceError::BadRequest(format!(
            "\"expected_seq\" is required for a {} ({}): send the head you decided on (now {}), \
             so that a command decided on an older position is refused instead of applied",
            class_words(p.class),
            p.kind,
            t.head
        ))),
        None => Ok(()),
    }
}

fn class_words(c: runestone_engine::DecisionClass) -> &'static str {
    match c {
        runestone_engine::DecisionClass::Plan => "secret plan",
        runestone_engine::DecisionClass::Turn => "turn command",
        runestone_engine::DecisionClass::Small => "decision within a turn",
    }
}

/// `{"command": {...}, "expected_seq": N}`.
fn parse_submission(req: &Value) -> Result<(Value, Option<u64>)> {
    let obj = req.as_object().ok_or_else(|| {
        ServiceError::BadRequest("a submission is a JSON object: {\"command\": {...}, \"expected_seq\": N}".into())
    })?;
    for k in obj.keys() {
        if k != "command" && k != "expected_seq" {
            return Err(ServiceError::BadRequest(format!(
                "unknown field {k:?} in submission; expected \"command\" and optionally \"expected_seq\""
            )));
        }
    }
    let command = obj
        .get("command")
        .cloned()
        .ok_or_else(|| ServiceError::BadRequest("the submission has no \"command\"".into()))?;
    let expected = match obj.get("expected_seq") {
        None => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| {
            ServiceError::BadRequest(format!(
                "\"expected_seq\" must be a whole number, the head you decided on, not {v}; \
                 leave it out only for a secret plan"
            ))
        })?),
    };
    Ok((command, expected))
}

/// A light check that catches typos; delivery is the real test.
pub fn plausible_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else { return false };
    !local.is_empty()
        && local.len() <= 64
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !s.chars().any(|c| c.is_whitespace() || c.is_control() || c == '<' || c == '>' || c == ',')
        && !domain.contains('@')
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
    let options = Options { public_url: "http://localhost".into(), snapshot_interval, cache_games: 16, cache_bytes };
    Service::new(store, crate::games::registry(), Keys::new(&[7; 32], 30), clock, options)
}

#[cfg(test)]
mod cache_tests {
    use super::*;

    fn cache(capacity: usize, max_bytes: u64) -> Cache {
        Cache { slots: HashMap::new(), tick: 0, capacity, max_bytes }
    }

    #[test]
    fn folded_games_are_bounded_by_their_saved_size() {
        let mut c = cache(1000, 1000);
        for i in 0..20 {
            c.slot(&format!("game{i:012}")).bytes.store(300, Ordering::Relaxed);
            assert!(c.bytes() <= 1000 + 300, "after game {i}: {} bytes held", c.bytes());
        }
        // The least recently used went first.
        assert!(c.slots.contains_key("game000000000019"));
        assert!(!c.slots.contains_key("game000000000000"));
        assert!(c.slots.len() <= 4, "{} games held", c.slots.len());
    }

    #[test]
    fn folded_games_are_bounded_by_count_and_busy_ones_stay() {
        let mut c = cache(16, u64::MAX);
        let busy = c.slot("busy00000000000a");
        for i in 0..40 {
            c.slot(&format!("game{i:012}"));
            assert!(c.slots.len() <= 16, "{} games held", c.slots.len());
        }
        assert!(c.slots.contains_key("busy00000000000a"), "a game in use is never dropped");
        drop(busy);
    }
}

#[cfg(test)]
mod snapshot_tests {
    use super::*;
    use crate::clock::SystemClock;
    use crate::store::memory::MemoryStore;

    const INTERVAL: u64 = 64;

    /// A 5-clan Bardagi game played by the seats' fallbacks, where one
    /// command's append often carries a whole round (over a hundred
    /// events): a snapshot is written at every multiple of the interval,
    /// also one that falls inside an append, and it holds that position.
    #[tokio::test]
    async fn a_snapshot_is_written_at_every_multiple_of_the_interval_even_inside_one_append() {
        let store = Arc::new(MemoryStore::default());
        let service = test_service(store.clone(), Arc::new(SystemClock), INTERVAL, 64 << 20);
        let seats: Vec<_> = (0..5).map(|i| json!({ "name": format!("Clan {i}") })).collect();
        let created =
            service.create(json!({ "ruleset": "bardagi", "options": {}, "seats": seats }), None).await.expect("create");
        let game = created.body["game_id"].as_str().expect("a game id").to_owned();
        let mut multiples_inside = 0;
        let head = loop {
            let table = service.game_table(&game).await.expect("the game");
            if table.head >= 5 * INTERVAL || table.is_over() {
                break table.head;
            }
            let seat = table.pending().iter().find(|p| !p.submitted).expect("someone owes a decision").seat;
            let command = table.fallback(seat).expect("a fallback");
            let claims =
                Claims { sub: game.clone(), role: Role::Seat, seat: Some(seat), gen: 0, iat: 0, exp: i64::MAX };
            service
                .submit(&game, &claims, json!({ "command": command, "expected_seq": table.head }), None)
                .await
                .expect("the fallback is accepted");
            let after = service.game_table(&game).await.expect("the game").head;
            // Multiples of the interval strictly inside this append.
            multiples_inside += (after - 1) / INTERVAL - table.head / INTERVAL;
        };
        assert!(head >= 5 * INTERVAL, "the game reached {head} events");
        assert!(multiples_inside > 0, "no append carried a multiple of the interval inside it");
        // The chain this service wrote is remembered as checked to its head
        // (each write's hashes checked as it was written); a service opened
        // afresh on the store remembers nothing until it has read the game.
        let head_hash = service.game_table(&game).await.expect("the game").head_hash;
        assert_eq!(service.chain.get(&game), Some((head, head_hash)), "checked at every write");
        let fresh = test_service(store.clone(), Arc::new(SystemClock), INTERVAL, 64 << 20);
        assert_eq!(fresh.chain.get(&game), None);
        fresh.fold_at(&game, u64::MAX, false).await.expect("folds from the snapshot");
        assert_eq!(fresh.chain.get(&game), None, "events after a snapshot are not a chain checked from its start");
        let whole = fresh.store.load_raw(&game, 0, None).expect("the log");
        assert_eq!(whole.refs_remembered(&fresh.chain).expect("reads").len() as u64, head + 1);
        assert_eq!(fresh.chain.get(&game), Some((head, head_hash)), "a whole read is remembered");

        let log = store.load(&game, 0, None).expect("the log");
        let registry = crate::games::registry();
        for m in (INTERVAL..=head).step_by(INTERVAL as usize) {
            let (seq, bytes) = store
                .snapshot_at_or_before(&game, m)
                .expect("read")
                .unwrap_or_else(|| panic!("no snapshot at or before {m}"));
            assert_eq!(seq, m, "the latest snapshot at or before {m}");
            let restored = Table::from_snapshot(&registry, &bytes, &log[0]).expect("the snapshot loads");
            let folded = Table::fold(&registry, &log[..=m as usize]).expect("fold");
            assert_eq!(restored.head_hash, log[m as usize].hash, "the snapshot at {m} is after event {m}");
            assert_eq!(restored.save(), folded.save(), "the snapshot at {m} holds the position folded to {m}");
        }
    }
}

#[cfg(test)]
mod past_view_tests {
    use super::*;
    use crate::clock::SystemClock;
    use crate::store::memory::MemoryStore;

    /// A golden log stored with a snapshot at every multiple of `interval`,
    /// and a service on it whose restored positions have `restored_bytes`
    /// of room.
    async fn stored(file: &str, interval: u64, restored_bytes: u64) -> (Service, Vec<Envelope>) {
        let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file))
            .expect("the golden log");
        // The export's end line is not an event.
        let log: Vec<Envelope> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        assert!(log.len() > 4 * interval as usize, "{file}: {} events", log.len());
        let game = log[0].game.clone();
        let store = Arc::new(MemoryStore::default());
        store
            .append(Write {
                game: game.clone(),
                expect_head: None,
                events: log.clone(),
                side: vec![],
                unchanged: vec![],
            })
            .await
            .expect("the log is stored");
        let registry = crate::games::registry();
        let mut t = Table::fold(&registry, &log[..1]).expect("the creation");
        for e in &log[1..] {
            if t.push(e).is_err() {
                t = Table::fold(&registry, &log[..=e.seq as usize]).expect("fold");
            }
            if snapshot_due(e.seq, interval) {
                store.put_snapshot(&game, e.seq, &t.snapshot()).expect("a snapshot is stored");
            }
        }
        let service = test_service(store, Arc::new(SystemClock), interval, restored_bytes * RESTORED_SHARE);
        (service, log)
    }

    /// Every past position of a golden game through the fast path (a
    /// snapshot restored or held, plus the events after it) is the
    /// position a plain fold of the log reaches, and every viewer's view
    /// of it (each seat, the public, the referee) is byte for byte the
    /// same; asked forwards and then backwards, with room for only a few
    /// restored positions, so positions are restored, reused and dropped.
    #[tokio::test]
    async fn every_past_view_through_restored_snapshots_is_the_plain_folds() {
        for (file, interval) in
            [("events/bardagi/5-players-seed-4.jsonl", 16), ("events/fallen-kingdoms/3-players-seed-1.jsonl", 64)]
        {
            let (service, log) = stored(file, interval, 96 << 10).await;
            let registry = crate::games::registry();
            let game = log[0].game.clone();
            let head = log.len() as u64 - 1;
            let mut plain = Vec::with_capacity(log.len());
            let mut t = Table::fold(&registry, &log[..1]).expect("the creation");
            plain.push(t.clone());
            for e in &log[1..] {
                if t.push(e).is_err() {
                    t = Table::fold(&registry, &log[..=e.seq as usize]).expect("fold");
                }
                plain.push(t.clone());
            }
            let seats = plain[0].created.seats.len() as u8;
            let viewers: Vec<Viewer> = (0..seats).map(Viewer::Seat).chain([Viewer::Public, Viewer::Referee]).collect();
            // Forwards every view is compared; backwards (other positions
            // kept and dropped by then) the positions.
            for (i, at) in (1..head).chain((1..head).rev()).enumerate() {
                let fast = service.fold_at(&game, at, true).await.expect("the past position");
                let folded = &plain[at as usize];
                assert_eq!(fast.head, at, "{file}: the position after {at}");
                assert_eq!(fast.save(), folded.save(), "{file}: the position after {at}");
                if i as u64 >= head - 1 {
                    continue;
                }
                for &viewer in &viewers {
                    assert_eq!(
                        String::from_utf8(Service::view_of(&fast, head, viewer, false, false)).expect("text"),
                        String::from_utf8(Service::view_of(folded, head, viewer, false, false)).expect("text"),
                        "{file}: the view of {viewer:?} after {at}"
                    );
                }
            }
            let restored = service.restored.lock().expect("restored lock");
            assert!(!restored.positions.is_empty(), "{file}: no restored position was kept");
            assert!(
                restored.bytes <= restored.max_bytes,
                "{file}: {} bytes held of {}",
                restored.bytes,
                restored.max_bytes
            );
        }
    }

    /// A held position that does not lead on to the stored log (its head
    /// hash is not the event's at its seq) is dropped and the log folded.
    #[tokio::test]
    async fn a_held_position_that_does_not_fit_the_log_is_dropped() {
        let (service, log) = stored("events/bardagi/5-players-seed-4.jsonl", 64, 1 << 20).await;
        let registry = crate::games::registry();
        let game = log[0].game.clone();
        let mut wrong = Table::fold(&registry, &log[..=63]).expect("fold");
        wrong.head = 64;
        service.restored.lock().expect("restored lock").insert(64, Arc::new(wrong), 1);
        let fast = service.fold_at(&game, 70, true).await.expect("the past position");
        let folded = Table::fold(&registry, &log[..=70]).expect("fold");
        assert_eq!(fast.save(), folded.save());
        assert!(
            service.restored.lock().expect("restored lock").get(&game, 64).is_none(),
            "the wrong position is dropped"
        );
    }
}

#[cfg(test)]
mod queued_tests {
    use super::*;
    use crate::clock::SystemClock;
    use crate::store::sled::SledStore;

    /// A service on `store` (a snapshot every 8 events) and a new 4-seat
    /// Bardagi game on it.
    async fn service_with_a_game(store: &Arc<dyn EventStore>) -> (Arc<Service>, String) {
        let service = Arc::new(test_service(store.clone(), Arc::new(SystemClock), 8, 64 << 20));
        let seats: Vec<_> = (0..4).map(|i| json!({ "name": format!("P{i}") })).collect();
        let created = service.create(json!({ "ruleset": "bardagi", "seats": seats }), None).await.expect("create");
        let game = created.body["game_id"].as_str().expect("a game id").to_owned();
        (service, game)
    }

    /// Many seats' commands to one game at once on sled, whose appends
    /// are queued behind each other (`commit_queued`): every one is
    /// answered, each with its own events, the log holds them all in one
    /// chain, the stream told them in the log's order, and a reader (which
    /// waits until nothing is in flight) sees the whole log.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn commands_to_one_game_queued_behind_each_other_are_all_durable_in_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store: Arc<dyn EventStore> = Arc::new(SledStore::open(&dir.path().join("db")).expect("open"));
        assert!(store.ordered_appends());
        let (service, game) = service_with_a_game(&store).await;
        let (mut rx, start) = service.subscribe(&game).await.expect("subscribe");
        let tasks: Vec<_> = (0..64u64)
            .map(|i| {
                let (service, game) = (service.clone(), game.clone());
                tokio::spawn(async move {
                    let seat = (i % 4) as u8;
                    let claims =
                        Claims { sub: game.clone(), role: Role::Seat, seat: Some(seat), gen: 0, iat: 0, exp: i64::MAX };
                    let cmd =
                        json!({ "command": { "type": "SetOrders", "orders": { "buy_axes": i.is_multiple_of(2) } } });
                    let answer = service.submit(&game, &claims, cmd, None).await.expect("accepted");
                    answer.body["events"]
                        .as_array()
                        .expect("events")
                        .iter()
                        .map(|e| e["seq"].as_u64().expect("seq"))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut seqs = Vec::new();
        for t in tasks {
            seqs.extend(t.await.expect("task"));
        }
        seqs.sort_unstable();
        let head = service.game_table(&game).await.expect("the game").head;
        assert_eq!(seqs, (start.head + 1..=head).collect::<Vec<_>>(), "every event answered once, none lost");
        let log = store.load(&game, 0, None).expect("the log");
        assert_eq!(log.len() as u64, head + 1);
        assert_eq!(service.verify(&game).await.expect("verify")["ok"], json!(true));
        let mut told = Vec::new();
        while told.len() < seqs.len() {
            let events = rx.recv().await.expect("the stream");
            told.extend(events.iter().map(|e| e.seq));
        }
        assert_eq!(told, seqs, "the stream told the events in the log's order");
        drop(service);
        store.close().expect("close");
    }

    /// A submit whose caller stops waiting right after it began (a client
    /// that goes away; here its future is polled once and dropped, before
    /// its task has even run) still runs to its end: its event is told to
    /// the game's stream and the game's position is kept, not dropped.
    #[actix_web::test]
    async fn a_submit_whose_caller_goes_away_still_settles() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store: Arc<dyn EventStore> = Arc::new(SledStore::open(&dir.path().join("db")).expect("open"));
        let (service, game) = service_with_a_game(&store).await;
        let (mut rx, start) = service.subscribe(&game).await.expect("subscribe");
        let claims = Claims { sub: game.clone(), role: Role::Seat, seat: Some(1), gen: 0, iat: 0, exp: i64::MAX };
        let cmd = json!({ "command": { "type": "SetOrders", "orders": { "buy_axes": true } } });
        let mut caller = Box::pin(service.clone().submit_to_the_end(game.clone(), claims, cmd, None));
        std::future::poll_fn(|cx| {
            assert!(std::future::Future::poll(caller.as_mut(), cx).is_pending(), "its task has not run yet");
            std::task::Poll::Ready(())
        })
        .await;
        drop(caller);
        let told = tokio::time::timeout(std::time::Duration::from_secs(120), rx.recv())
            .await
            .expect("the event is told to the stream")
            .expect("the stream");
        assert_eq!(told.first().map(|e| e.seq), Some(start.head + 1));
        let slot = service.slot(&game);
        assert!(!slot.abandoned.load(Ordering::SeqCst), "the position is kept");
        assert_eq!(service.game_table(&game).await.expect("the game").head, start.head + 1);
        drop(service);
        store.close().expect("close");
    }

    /// Commands queued behind one whose group's flush fails: none is
    /// answered as accepted unless its events are in the log once the store
    /// has reopened itself, and the game is then served as the store holds
    /// it (no position that was only in memory survives) and takes commands.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn commands_queued_behind_a_failed_flush_leave_no_position_the_store_does_not_hold() {
        let dir = tempfile::tempdir().expect("tempdir");
        let sled = Arc::new(SledStore::open(&dir.path().join("db")).expect("open"));
        let store: Arc<dyn EventStore> = sled.clone();
        let (service, game) = service_with_a_game(&store).await;
        let submit = |service: Arc<Service>, game: String, i: u64| async move {
            let seat = (i % 4) as u8;
            let claims =
                Claims { sub: game.clone(), role: Role::Seat, seat: Some(seat), gen: 0, iat: 0, exp: i64::MAX };
            let cmd = json!({ "command": { "type": "SetOrders", "orders": { "buy_axes": i.is_multiple_of(2) } } });
            service.submit(&game, &claims, cmd, None).await
        };
        sled.fail_syncs(true);
        let tasks: Vec<_> = (0..8u64).map(|i| tokio::spawn(submit(service.clone(), game.clone(), i))).collect();
        let mut accepted = Vec::new();
        for t in tasks {
            if let Ok(answer) = t.await.expect("task") {
                accepted.extend(answer.body["events"].as_array().expect("events").iter().map(|e| e["seq"].as_u64()));
            }
        }
        sled.fail_syncs(false);
        // Once the store has reopened itself, the game is served again.
        let t = Instant::now();
        let table = loop {
            match service.game_table(&game).await {
                Ok(table) => break table,
                Err(e) => {
                    assert!(t.elapsed() < std::time::Duration::from_secs(120), "the game was not served again: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
            }
        };
        let log = store.load(&game, 0, None).expect("the log");
        assert_eq!(table.head + 1, log.len() as u64, "the position served is the store's log");
        assert_eq!(table.head_hash, log.last().expect("events").hash, "the position served is the store's log");
        for seq in accepted {
            assert!(seq.is_some_and(|s| s <= table.head), "an accepted command's event {seq:?} is not in the log");
        }
        let answer = submit(service.clone(), game.clone(), 1).await.expect("a command after the reopen");
        assert_eq!(answer.body["head"], json!(table.head + 1));
        drop(service);
        store.close().expect("close");
    }
}
