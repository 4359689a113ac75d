//! Writing a game: sealing and appending events durably (in place, or
//! queued behind the game's appends in flight), the deadlines, mail and
//! snapshots they cause, the chain checked as it is written, and the stored
//! answers of idempotent requests.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use runestone_engine::log::seal;
use runestone_engine::{Envelope, FoldError, Table};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::cache::{InFlight, Loaded, Slot};
use super::{parse_record, record_key, snapshot_due, Answer, GameRecord, Result, Service, ServiceError};
use crate::clock::stamp;
use crate::metrics::Metrics;
use crate::store::{Side, SideWrite, StoreError, Write};

/// An event's stamped time.
fn parse_time(time: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(time).ok().map(|t| t.with_timezone(&chrono::Utc))
}

pub(super) fn idem_key(scope: &str, key: &str) -> Vec<u8> {
    format!("{scope}\0{key}").into_bytes()
}

/// A stored answer to an idempotent request.
#[derive(Serialize, Deserialize)]
struct IdemRecord {
    request: String,
    status: u16,
    body: Value,
}

fn request_hash(v: &Value) -> String {
    hex::encode(Sha256::digest(serde_json::to_vec(v).unwrap_or_default()))
}

impl Service {
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
    pub(super) fn stored_answer(&self, key: &[u8], request: &Value) -> Result<Option<Answer>> {
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
    pub(super) fn answer_write(key: Option<Vec<u8>>, request: &Value, status: u16, body: &Value) -> Option<SideWrite> {
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
    /// Each seat's notice in the write is split by channel first (mail,
    /// webhook: `mail::split_channels`).
    pub(super) fn append(&self, mut write: Write) -> impl std::future::Future<Output = Result<()>> + '_ {
        write.side = crate::mail::split_channels(std::mem::take(&mut write.side));
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
            self.note_asked(Some(t), &next, t.head + 1, &mut record);
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
        let interval = self.options.snapshot_interval;
        let mut inside = Vec::new();
        // Each event is told in words on the position it is written on,
        // as it is folded in.
        let mut told = Vec::with_capacity(events.len());
        for (i, e) in events.iter().enumerate() {
            told.push(next.tell(e));
            match next.push(e) {
                Ok(()) => {}
                Err(FoldError::NeedsRefold) if !refold_ok => return Ok(None),
                Err(FoldError::NeedsRefold) => {
                    let mut log = self.store.load(&t.game_id, 0, None)?;
                    log.extend(events[..=i].iter().cloned());
                    next = Table::fold(&self.registry, &log)?;
                }
                Err(e) => return Err(e.into()),
            }
            if snapshot_due(next.head, interval) {
                inside.push((next.head, next.snapshot()));
            }
        }
        self.slot(&t.game_id).remember(events, &told);
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
        self.note_asked(Some(t), &next, t.head + 1, &mut record);
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
    pub(super) fn record_as_read(&self, game: &str, bytes: &[u8]) -> Vec<SideWrite> {
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
        s.press_mail_off = f.press_mail_off;
        s.webhook = f.webhook.clone();
        s.push = f.push.clone();
    }
    if into.channel != from.channel {
        into.channel = from.channel.clone();
        into.channel_gathering = from.channel_gathering.clone();
    }
}

#[cfg(test)]
mod snapshot_tests {
    use super::*;
    use crate::auth::{Claims, Role};
    use crate::clock::SystemClock;
    use crate::service::test_service;
    use crate::store::memory::MemoryStore;
    use crate::store::EventStore;
    use serde_json::json;

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
