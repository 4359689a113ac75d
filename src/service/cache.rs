//! The folded games in memory: each game's slot (its lock, its stream, its
//! appends in flight), the cache that bounds them by count and saved size,
//! and loading a game into its slot.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use runestone_engine::{Envelope, Hash, Seed, Table, Told};
use tokio::sync::broadcast;

use super::{parse_record, record_key, shown, GameRecord, Result, Service, ServiceError};
use crate::metrics::Metrics;
use crate::store::{GameId, Side, StoreError, GAME_ID_LEN};

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
    pub(super) last: u64,
    /// Its events, told to the game's stream once durable.
    pub(super) events: Arc<Vec<Envelope>>,
    /// The snapshots its events reach, written once durable.
    pub(super) snapshots: Vec<(u64, Vec<u8>)>,
}

/// One game's place in the cache: its lock and its stream.
pub(crate) struct Slot {
    pub(crate) game: tokio::sync::Mutex<Option<Loaded>>,
    /// Told when the game's last append in flight has resolved.
    pub(super) settle: tokio::sync::Notify,
    /// Tasks waiting for the game to settle; while there are any, submits
    /// do not put more appends in flight (so they cannot starve them).
    pub(super) draining: AtomicUsize,
    /// Set when a submit with an append in flight was dropped before it
    /// settled (its client went away): the position in memory is then
    /// folded again from the store by the next task that takes the lock.
    pub(super) abandoned: AtomicBool,
    pub(super) tx: broadcast::Sender<Arc<Vec<Envelope>>>,
    /// Bumped at each notice that another node wrote to the game (or that
    /// notices were missed), on a store that tells of them: its streams
    /// then read the store (`EventStore::notices`).
    pub(super) moved: tokio::sync::watch::Sender<u64>,
    /// The folded game's size as counted against `storage.cache_bytes`:
    /// the length of its saved form (0 until folded).
    pub(super) bytes: AtomicU64,
    /// Its events told in words on the positions they were written on
    /// ([`Told`]), by seq and hash (the hash names the event itself: words
    /// of an event that was never made durable fit no stored event).
    pub(super) told: std::sync::Mutex<HashMap<u64, (Hash, Told)>>,
    /// The bytes of `told`'s words, counted against `storage.cache_bytes`
    /// with `bytes`.
    pub(super) told_bytes: AtomicU64,
}

impl Slot {
    /// The words of `events` held, by position in `events` (`None` where
    /// none are held for the event).
    pub(super) fn told_of(&self, events: &[Envelope]) -> Vec<Option<Told>> {
        let held = self.told.lock().expect("told lock");
        events.iter().map(|e| held.get(&e.seq).filter(|(h, _)| *h == e.hash).map(|(_, t)| t.clone())).collect()
    }

    /// Hold the words of `events`.
    pub(super) fn remember(&self, events: &[Envelope], told: &[Told]) {
        let mut held = self.told.lock().expect("told lock");
        for (e, t) in events.iter().zip(told) {
            let added = t.len() as u64;
            if let Some((_, old)) = held.insert(e.seq, (e.hash, t.clone())) {
                self.told_bytes.fetch_sub(old.len() as u64, Ordering::Relaxed);
            }
            self.told_bytes.fetch_add(added, Ordering::Relaxed);
        }
    }

    /// The bytes it holds against `storage.cache_bytes`.
    fn size(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed) + self.told_bytes.load(Ordering::Relaxed)
    }
}

/// The folded games in memory, bounded by count and by their saved size.
pub(super) struct Cache {
    pub(super) slots: HashMap<GameId, (Arc<Slot>, u64)>,
    pub(super) tick: u64,
    pub(super) capacity: usize,
    pub(super) max_bytes: u64,
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
            moved: tokio::sync::watch::channel(0).0,
            bytes: AtomicU64::new(0),
            told: std::sync::Mutex::new(HashMap::new()),
            told_bytes: AtomicU64::new(0),
        });
        self.slots.insert(game.to_owned(), (slot.clone(), tick));
        slot
    }

    /// The saved size of every folded game held, with its events' words.
    fn bytes(&self) -> u64 {
        self.slots.values().map(|(s, _)| s.size()).sum()
    }

    /// Drop the least recently used idle games until a tenth of the room
    /// (by count and by bytes) is free again.
    fn evict(&mut self) {
        let mut idle: Vec<(u64, GameId, u64)> = self
            .slots
            .iter()
            .filter(|(_, (s, _))| Arc::strong_count(s) == 1 && s.tx.receiver_count() == 0)
            .map(|(g, (s, used))| (*used, g.clone(), s.size()))
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

impl Service {
    pub fn cached_games(&self) -> usize {
        self.cache.lock().expect("cache lock").slots.len()
    }
    pub(crate) fn slot(&self, game: &str) -> Arc<Slot> {
        self.cache.lock().expect("cache lock").slot(game)
    }
    /// Follow the store's notices of other nodes' writes, if it gives any,
    /// on a thread of their own until the service or the store is gone:
    /// each one wakes the streams of its game (`Slot::moved`); notices
    /// missed wake every stream.
    pub fn follow_notices(self: &Arc<Self>) {
        let Some(mut rx) = self.store.notices() else { return };
        let service = Arc::downgrade(self);
        let started = std::thread::Builder::new().name("runestone-notices".into()).spawn(move || loop {
            let notice = rx.blocking_recv();
            let Some(svc) = service.upgrade() else { return };
            let cache = svc.cache.lock().expect("cache lock");
            match notice {
                Ok(crate::store::Notice::Moved { game, .. }) => {
                    if let Some((slot, _)) = cache.slots.get(&game) {
                        slot.moved.send_modify(|n| *n += 1);
                    }
                }
                Ok(crate::store::Notice::Missed) | Err(broadcast::error::RecvError::Lagged(_)) => {
                    for (slot, _) in cache.slots.values() {
                        slot.moved.send_modify(|n| *n += 1);
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return,
            }
        });
        if let Err(e) = started {
            tracing::error!(error = %e, "cannot start the thread that follows other nodes' writes; streams read the store");
        }
    }
    /// Forget the position in memory if a submit with an append in flight
    /// was dropped before it settled (`Slot::abandoned`).
    pub(super) fn drop_if_abandoned(slot: &Slot, guard: &mut Option<Loaded>) {
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
    pub(super) fn count_bytes(&self, game: &str, bytes: usize) {
        if let Some((slot, _)) = self.cache.lock().expect("cache lock").slots.get(game) {
            slot.bytes.store(bytes as u64, Ordering::Relaxed);
        }
    }
    /// The folded games held in memory and their saved size in bytes.
    pub fn cache_size(&self) -> (usize, u64) {
        let cache = self.cache.lock().expect("cache lock");
        (cache.slots.len(), cache.bytes())
    }
    pub(super) fn forget(&self, game: &str) {
        self.cache.lock().expect("cache lock").slots.remove(game);
    }
    /// Fold `game` into `slot` if it is not there yet.
    pub(crate) async fn loaded<'a>(&self, game: &str, guard: &'a mut Option<Loaded>) -> Result<&'a mut Loaded> {
        // Several nodes on one database: another node may have appended, or
        // written the game's record, since this node looked. A cached
        // position is used only while it is still the store's head, and its
        // record is read again (with the head, as of one moment: the same
        // head means the record is the position's).
        if self.store.shared() {
            if let Some(l) = guard.as_mut() {
                match self.store.get_with_head(Side::Games, &record_key(game), game)? {
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
    /// store no other node writes). On a shared store the two are read as
    /// of one moment (`EventStore::get_with_head`), so the record and the
    /// position folded to that head agree: a record older than its position
    /// would make a node judge live deadlines stale.
    fn record_and_head(&self, game: &str) -> Result<(Option<Vec<u8>>, Option<u64>)> {
        if !self.store.shared() {
            return Ok((self.store.get(Side::Games, &record_key(game))?, None));
        }
        Ok(self.store.get_with_head(Side::Games, &record_key(game), game)?)
    }
    /// Run `f` on the loaded game under its lock.
    pub(super) async fn with_game<T>(&self, game: &str, f: impl FnOnce(&Loaded) -> Result<T>) -> Result<T> {
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        f(loaded)
    }
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
