//! Durable storage: the per-game event logs and the records written with them.
//!
//! One trait, [`EventStore`]; the embedded backend is [`sled`](self::sled),
//! the one for several nodes on one database [`postgres`](self::postgres).
//! Every write is a [`Write`]: events for one game plus side records (game
//! secrets, idempotency answers, outbox messages, deadline entries) that must
//! become durable in the same atomic step. An append is acknowledged only
//! after it is flushed to disk, and concurrent appends share one flush.

pub mod codec;
mod journal;
pub mod memory;
pub mod migrate;
pub mod postgres;
pub mod sled;
pub mod space;
#[cfg(test)]
pub mod suite;

use std::future::Future;
use std::pin::Pin;

use runestone_engine::Envelope;

/// A game's id: 16 lowercase base32 characters (80 random bits).
pub type GameId = String;

/// Length in bytes of every game id.
pub const GAME_ID_LEN: usize = 16;

/// Side records kept beside the logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// Per-game private record (seed, contacts): key = game id.
    Games,
    /// Stored answers for Idempotency-Key: key = game id ‖ scope ‖ key.
    Idempotency,
    /// Notifications waiting to be sent.
    Outbox,
    /// Deadline index: key = due time (big-endian millis) ‖ game id ‖ ...
    Deadlines,
}

/// One side record to put (`Some`) or remove (`None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideWrite {
    pub side: Side,
    pub key: Vec<u8>,
    pub value: Option<Vec<u8>>,
}

/// One atomic write.
#[derive(Clone, Debug, Default)]
pub struct Write {
    pub game: GameId,
    /// The seq of the log's last event as the writer saw it; `None` means
    /// the log must be empty (a new game).
    pub expect_head: Option<u64>,
    /// Consecutive envelopes starting at `expect_head + 1` (or 0).
    pub events: Vec<Envelope>,
    pub side: Vec<SideWrite>,
    /// Side records as the writer read them (`value: None`: absent). The
    /// write is refused with [`StoreError::Changed`], nothing of it made,
    /// when one holds anything else by the time it would land: a record
    /// written without an event (a player's mail preferences) does not move
    /// the head, so only this check keeps a writer that derived a record
    /// from an older read from putting the older one back.
    pub unchanged: Vec<SideWrite>,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Someone else appended first: the log's head is not what the writer saw.
    #[error("the log of game {game} has moved on: expected head {expected:?}, found {found:?}")]
    Conflict { game: GameId, expected: Option<u64>, found: Option<u64> },
    /// A side record the writer read (`Write::unchanged`) was written
    /// since: read it again and write again.
    #[error("a side record of game {game} was written since the writer read it; read it again")]
    Changed { game: GameId },
    /// The write itself is malformed (seqs not consecutive, wrong game).
    #[error("malformed write: {0}")]
    Malformed(String),
    #[error("storage failure: {0}")]
    Io(String),
    #[error("stored data is damaged: {0}")]
    Corrupt(String),
    /// The filesystem has no room for the write; nothing of it was made.
    #[error("no space left for the event store: {0}")]
    NoSpace(String),
    /// The write was refused before it reached the disk; nothing was made.
    #[error("{0}")]
    Refused(String),
    /// The write took longer than its bound; whether it was recorded is not
    /// known until the log is read again.
    #[error("the store did not confirm the write within {0} seconds")]
    TimedOut(u64),
    /// The store is shutting down; the write was not made.
    #[error("the store is closed")]
    Closed,
}

pub type StoreResult<T> = Result<T, StoreError>;

/// What a store shared by several nodes tells of the writes other nodes
/// made ([`EventStore::notices`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Another node wrote to `game`, whose head is now `head`.
    Moved { game: GameId, head: Option<u64> },
    /// Notices may have been missed (the store stopped or started hearing
    /// them): any game may have moved.
    Missed,
}

/// Log damage found at read once per distinct finding (it names the game and
/// seq), not at every request that meets it.
pub fn report_damage(what: &str) {
    static SEEN: std::sync::Mutex<Option<std::collections::HashSet<String>>> = std::sync::Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    if seen.get_or_insert_with(Default::default).len() < 10_000
        && seen.as_mut().is_some_and(|s| s.insert(what.to_owned()))
    {
        tracing::error!(damage = %what, "stored data is damaged");
    }
}

/// A boxed future, so the trait can be used as `dyn EventStore`.
pub type BoxFut<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The storage contract every backend meets (tested by one shared suite).
pub trait EventStore: Send + Sync + 'static {
    /// Append atomically and durably. Resolves only after the write is on
    /// disk (or has failed). Fails with [`StoreError::Conflict`] if the log's
    /// head is not `expect_head`; then nothing of the write is stored. On
    /// [`StoreError::Io`] the outcome is unknown: reload before deciding again.
    /// Announce events (streams, mail) only after this has resolved `Ok`.
    fn append(&self, write: Write) -> BoxFut<'_, StoreResult<()>>;

    /// The seq of the last event of `game`, `None` if the game has no log.
    fn head(&self, game: &str) -> StoreResult<Option<u64>>;

    /// Events `from..=to` (inclusive; `to = None` means to the head).
    fn load(&self, game: &str, from: u64, to: Option<u64>) -> StoreResult<Vec<Envelope>>;

    /// Events `from..=to` as the stored bytes hold them ([`codec::RawLog`]:
    /// what a fold reads, borrowed from one buffer, with no envelope built).
    /// Checked as [`load`](Self::load) checks them: a missing or damaged
    /// event is [`StoreError::Corrupt`], whether found here or by
    /// [`RawLog::refs`](codec::RawLog::refs). A backend that holds
    /// envelopes rather than bytes encodes them.
    fn load_raw(&self, game: &str, from: u64, to: Option<u64>) -> StoreResult<codec::RawLog> {
        let mut raw = codec::RawLog::new(game, from);
        if to.is_some_and(|to| to < from) {
            return Ok(raw);
        }
        // From the event before the range: its hash is what the range's
        // first event links to.
        for env in self.load(game, from.saturating_sub(1), to)? {
            let bytes = codec::encode_event(&env)
                .map_err(|e| StoreError::Corrupt(format!("game {game} seq {}: {e}", env.seq)))?;
            if from > 0 && env.seq == from - 1 {
                raw.push_before(&bytes)?;
            } else {
                raw.push(&bytes)?;
            }
        }
        Ok(raw)
    }

    /// One side record.
    fn get(&self, side: Side, key: &[u8]) -> StoreResult<Option<Vec<u8>>>;

    /// One side record and the head of `game`, as of one moment. This
    /// default reads the head before and after the record until the two
    /// agree; a store that can reads both in one snapshot.
    fn get_with_head(&self, side: Side, key: &[u8], game: &str) -> StoreResult<(Option<Vec<u8>>, Option<u64>)> {
        for _ in 0..1000 {
            let before = self.head(game)?;
            let value = self.get(side, key)?;
            if self.head(game)? == before {
                return Ok((value, before));
            }
        }
        Err(StoreError::Io(format!("game {game} changed on every one of 1000 reads; try again")))
    }

    /// Side records whose key starts with `prefix`, in key order, at most `limit`.
    fn scan(&self, side: Side, prefix: &[u8], limit: usize) -> StoreResult<Vec<(Vec<u8>, Vec<u8>)>>;

    /// Take the first records (at most `limit`) whose key starts with
    /// `prefix` and sorts before `before` (the work now due, in key order)
    /// for `lease`: until it ends, no other node's claim returns them, so one
    /// node acts on each (the worker removes a record once acted on). A
    /// store used by one node has nothing to share, and claims are scans.
    fn claim(
        &self,
        side: Side,
        prefix: &[u8],
        before: &[u8],
        limit: usize,
        lease: std::time::Duration,
    ) -> StoreResult<Vec<(Vec<u8>, Vec<u8>)>> {
        let _ = lease;
        let mut rows = self.scan(side, prefix, limit)?;
        rows.retain(|(k, _)| k.as_slice() < before);
        Ok(rows)
    }

    /// Cut the claim on one record taken by [`claim`](Self::claim) to end
    /// `after` from now: a node that gave up on what it claimed lets any
    /// node take it again soon, instead of at the end of a long lease. A
    /// store used by one node has no claims: nothing to do.
    fn release(&self, side: Side, key: &[u8], after: std::time::Duration) -> StoreResult<()> {
        let _ = (side, key, after);
        Ok(())
    }

    /// Put or remove side records atomically and durably, without events
    /// (outbox bookkeeping, deadline moves).
    fn put(&self, writes: Vec<SideWrite>) -> BoxFut<'_, StoreResult<()>>;

    /// Cache a snapshot of a game's position at `seq`. Not flushed: a lost
    /// snapshot is rebuilt from the log.
    fn put_snapshot(&self, game: &str, seq: u64, snapshot: &[u8]) -> StoreResult<()>;

    /// The latest cached snapshot at or before `seq`.
    fn snapshot_at_or_before(&self, game: &str, seq: u64) -> StoreResult<Option<(u64, Vec<u8>)>>;

    /// Every game id with a log, in id order, starting after `after`.
    fn games(&self, after: Option<&str>, limit: usize) -> StoreResult<Vec<GameId>>;

    /// Whether other server processes may append to the same logs (a
    /// shared database): then a cached position is only trusted after its
    /// head is checked against the store's.
    fn shared(&self) -> bool {
        false
    }

    /// Whether [`EventStore::append`] takes the write's place in the
    /// store's order when it is called (not when its future is first
    /// polled) and writes appends in that order, so that an append may name
    /// as its `expect_head` the head another append called before it leaves,
    /// before that one has resolved: it is then written only if that one
    /// was, and fails with [`StoreError::Conflict`] (or the store's refusal)
    /// otherwise. The service then releases a game's lock while the append
    /// is made durable (`Service::submit_written`).
    fn ordered_appends(&self) -> bool {
        false
    }

    /// The writes of other nodes as they are made, on a shared store that
    /// is told of them (`None`: the store is not shared, or must be read to
    /// learn of them).
    fn notices(&self) -> Option<tokio::sync::broadcast::Receiver<Notice>> {
        None
    }

    /// Whether [`notices`](Self::notices) are being heard now: while they
    /// are not, another node's writes are only learnt by reading the store.
    fn notices_live(&self) -> bool {
        false
    }

    /// The store's own figures for `/metrics`: (name without the
    /// `runestone_store_` prefix, help, "counter" or "gauge", value).
    fn figures(&self) -> Vec<(&'static str, &'static str, &'static str, u64)> {
        Vec::new()
    }

    /// Why the store refuses writes while it recovers from a failed flush
    /// (a full disk), `None` when it accepts them.
    fn recovering(&self) -> Option<String> {
        None
    }

    /// Make every acknowledged write durable and stop accepting new ones.
    fn close(&self) -> StoreResult<()>;
}
