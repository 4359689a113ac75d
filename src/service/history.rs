//! The game's past: positions after any event (from a snapshot, held for
//! the views that follow, plus the events after it), rollback, fork and
//! verify.

use std::collections::HashMap;
use std::sync::Arc;

use runestone_engine::log::ForkOrigin;
use runestone_engine::table::{decision_ends, fork_copies};
use runestone_engine::{verify, Actor, Seed, Table};
use serde::Deserialize;
use serde_json::{json, Value};

use super::create::policy_draft;
use super::{in_words, Answer, GameRecord, Result, Service, ServiceError};
use crate::auth::{Claims, Role};
use crate::clock::stamp;
use crate::limits;
use crate::store::GameId;

/// Positions restored from snapshots, kept for past views (`view?at=`): a
/// view near a snapshot folds from a copy of the restored position instead
/// of reading, unpacking and loading the snapshot again. Keyed by game and
/// seq; a snapshot is the position after its seq forever (the log only
/// grows), and each use still checks the position's head hash against the
/// event read at its seq. Bounded by bytes (each position counted as its
/// saved form's length, as the folded games are), least recently used
/// dropped first.
pub(super) struct Restored {
    /// By game, then seq (keyed by game first so that a lookup borrows the
    /// game id).
    positions: HashMap<GameId, HashMap<u64, Kept>>,
    tick: u64,
    bytes: u64,
    max_bytes: u64,
}

impl Restored {
    pub(super) fn new(max_bytes: u64) -> Restored {
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
pub(super) const RESTORED_SHARE: u64 = 8;

impl Service {
    /// The position after event `at` (or the head), from the latest snapshot
    /// at or before it plus the events after. `past`: for a past view, whose
    /// restored snapshot is kept for the views after it ([`Restored`]); a
    /// game loaded at its head keeps its whole position instead.
    pub(super) async fn fold_at(&self, game: &str, at: u64, past: bool) -> Result<Table> {
        self.position_at(game, at, past)
    }
    /// [`Service::fold_at`], for callers that are not async (it reads the
    /// store and folds, and waits on nothing else).
    pub(super) fn position_at(&self, game: &str, at: u64, past: bool) -> Result<Table> {
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
        self.submit_answer(&loaded.table, &events, claims.viewer())
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
        let policy = super::deadlines::Policy::parse(&table.clock.policy).ok().flatten();
        drafts.extend(policy_draft(&policy));
        let new_id = crate::new_game_id();
        let record = GameRecord {
            seed: seed.to_hex(),
            created_at: stamp(self.clock.now()),
            clocks: Default::default(),
            channel_gathering: None,
            channel_last_ms: 0,
            ..record
        };
        let created = self.write_new_game(&new_id, drafts, &seed, record, None, &Value::Null).await?;
        Ok(Answer { status: 201, body: serde_json::to_value(created).expect("JSON") })
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
}

#[cfg(test)]
mod past_view_tests {
    use runestone_engine::{Envelope, Viewer};

    use super::*;
    use crate::clock::SystemClock;
    use crate::service::{snapshot_due, test_service};
    use crate::store::memory::MemoryStore;
    use crate::store::{EventStore, Write};

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

    /// Every event of a golden game is told in the words of the position
    /// it was written on (the plain fold's position just before it), to
    /// every viewer, whether the log is asked from its start or from the
    /// middle (a snapshot and the events after it) first; and for Realms
    /// and Thingvellir those words are not the ones the head's position
    /// would give (a later season, Goods since given away).
    #[tokio::test]
    async fn every_event_is_told_on_the_position_it_was_written_on() {
        for file in [
            "events/realms/3-players-basic-seed-2.jsonl",
            "events/thingvellir/2-players-seed-1.jsonl",
            "events/bardagi/5-players-seed-4.jsonl",
            "events/fallen-kingdoms/3-players-seed-1.jsonl",
        ] {
            let registry = crate::games::registry();
            let log: Vec<Envelope> =
                std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file))
                    .expect("the golden log")
                    .lines()
                    .filter_map(|l| serde_json::from_str(l).ok())
                    .collect();
            let mut t = Table::fold(&registry, &log[..1]).expect("the creation");
            let mut expected = vec![t.tell(&log[0])];
            for e in &log[1..] {
                expected.push(t.tell(e));
                if t.push(e).is_err() {
                    t = Table::fold(&registry, &log[..=e.seq as usize]).expect("fold");
                }
            }
            let head = t;
            let later = log.iter().zip(&expected).filter(|(e, told)| head.describe(e) != told.seen).count();
            if file.contains("realms") || file.contains("thingvellir") {
                assert!(later > 0, "{file}: the head's position tells every event the same");
            }
            let over = head.seed_revealed.is_some();
            let seats = head.created.seats.len() as u8;
            let viewers: Vec<Viewer> =
                [Viewer::Referee, Viewer::Public].into_iter().chain((0..seats).map(Viewer::Seat)).collect();
            let half = log.len() as u64 / 2;
            for first in [0, half] {
                let (service, _) = stored(file, 16, 1 << 20).await;
                for from in [first, half - first] {
                    for &viewer in &viewers {
                        let views = service.event_views(&head, &log[from as usize..], viewer, None).expect("the log");
                        assert_eq!(views.len() as u64, log.len() as u64 - from, "{file}");
                        for v in &views {
                            let seq = v.envelope.seq as usize;
                            assert_eq!(
                                v.text,
                                expected[seq].for_viewer(&log[seq], viewer, over),
                                "{file}: event {seq} as {viewer:?} sees it, asked from {from}"
                            );
                        }
                    }
                }
            }
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
