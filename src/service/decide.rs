//! A seat's command: decided on the position, committed in place or queued
//! behind the game's appends in flight, answered with the events it caused;
//! and undo.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use runestone_engine::{Actor, Envelope, KernelError, Table, Viewer};
use serde::Serialize;
use serde_json::Value;

use super::cache::Slot;
use super::commit::idem_key;
use super::view::EventView;
use super::{again_on_conflict, Answer, Result, Service, ServiceError, Written};
use crate::auth::{Claims, Role};
use crate::metrics::Metrics;
use crate::store::StoreError;

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

impl Service {
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
        let mut text = Ok(Vec::new());
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
            return Ok(Some(Written { status: 200, text: text? }));
        }
        self.commit(&slot, loaded, drafts, |events, next| {
            text = self.submit_text(next, events, viewer);
            // Only an idempotent request keeps its answer, as JSON.
            let text = text.as_ref().ok();
            key.zip(text)
                .and_then(|(key, text)| {
                    let body = serde_json::from_slice(text).expect("an answer written as JSON reads back");
                    Self::answer_write(Some(key), req, 200, &body)
                })
                .into_iter()
                .collect()
        })
        .await?;
        Metrics::inc(&self.metrics.commands_accepted);
        Ok(Some(Written { status: 200, text: text? }))
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
    pub(super) fn submit_answer(&self, table: &Table, events: &[Envelope], viewer: Viewer) -> Result<Value> {
        Ok(serde_json::from_slice(&self.submit_text(table, events, viewer)?)
            .expect("an answer written as JSON reads back"))
    }
    /// The answer to an accepted command (`types::Accepted`) as JSON text,
    /// written straight from its parts (no `Value` in between).
    fn submit_text(&self, table: &Table, events: &[Envelope], viewer: Viewer) -> Result<Vec<u8>> {
        // The rules are asked once for both lists.
        let (submitted, pending) = table.pending().into_iter().partition(|p| p.submitted);
        Ok(serde_json::to_vec(&AcceptedAnswer {
            head: table.head,
            events: self.event_views(table, events, viewer, None)?,
            pending,
            submitted,
            over: table.is_over(),
        })
        .expect("JSON"))
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
        self.submit_answer(&loaded.table, &events, Viewer::Seat(seat))
    }
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

#[cfg(test)]
mod queued_tests {
    use std::time::Instant;

    use serde_json::json;

    use super::*;
    use crate::clock::SystemClock;
    use crate::service::test_service;
    use crate::store::sled::SledStore;
    use crate::store::EventStore;

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
        let crate::service::Subscription { mut rx, table: start, .. } =
            service.subscribe(&game).await.expect("subscribe");
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
        let crate::service::Subscription { mut rx, table: start, .. } =
            service.subscribe(&game).await.expect("subscribe");
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
