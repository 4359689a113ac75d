//! Reading a game: its summary, a viewer's view at the head or in the past
//! (written straight to JSON text), and the log and the stream as a viewer
//! may see them.

use std::sync::Arc;

use runestone_engine::table::in_force;
use runestone_engine::{Body, Envelope, Table, Told, Viewer};
use serde::Serialize;
use serde_json::{json, Value};
use tokio::sync::broadcast;

use super::{Result, Service, ServiceError};
use crate::clock::stamp;

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
    messages: Vec<super::press::Message>,
}

impl Service {
    /// The events as `viewer` may see them, each told in the words of the
    /// position it was written on ([`Service::told`]). `table` is the game
    /// at or after the last of them (it says whether the game is over).
    pub(super) fn event_views(
        &self,
        table: &Table,
        events: &[Envelope],
        viewer: Viewer,
        live: Option<&[bool]>,
    ) -> Result<Vec<EventView>> {
        let over = table.seed_revealed.is_some();
        let told = self.told(&table.game_id, events)?;
        Ok(events
            .iter()
            .zip(told)
            .enumerate()
            .map(|(i, (e, told))| EventView {
                hidden: !e.visible_to(viewer, over),
                in_force: live.is_none_or(|l| l.get(i).copied().unwrap_or(true)),
                text: told.for_viewer(e, viewer, over).to_owned(),
                envelope: e.redacted_for(viewer, over),
            })
            .collect())
    }
    /// Each of `events` (stored events of `game`, in order of seq, or the
    /// ones just committed) told on the position it was written on: the
    /// words held in the game's slot, and the others told while the log is
    /// folded from the position before the first of them (a snapshot and
    /// the events after it), never refolded per event; all held after.
    pub(super) fn told(&self, game: &str, events: &[Envelope]) -> Result<Vec<Told>> {
        let slot = self.slot(game);
        let mut told = slot.told_of(events);
        let missing = |told: &[Option<Told>]| told.iter().position(Option::is_none);
        while let Some(first) = missing(&told) {
            // The run of events from the first without words, for as long
            // as the seqs follow one another.
            let run = events[first..].windows(2).take_while(|w| w[1].seq == w[0].seq + 1).count() + 1;
            let run = &events[first..first + run];
            let refold = |seq: u64| {
                self.position_at(game, seq, true).map_err(|e| runestone_engine::FoldError::Chain {
                    seq,
                    problem: format!("the position after it could not be read back: {e}"),
                })
            };
            let fresh = match run[0].seq.checked_sub(1) {
                // The game's first event is told on the position it makes
                // (its words name only the seats).
                None => {
                    let mut position = Table::fold(&self.registry, &run[..1])?;
                    let mut fresh = vec![position.tell(&run[0])];
                    fresh.extend(position.tell_on(&run[1..], refold)?);
                    fresh
                }
                Some(before) => {
                    let mut position = self.position_at(game, before, true)?;
                    if position.head != before {
                        return Err(ServiceError::Conflict(format!(
                            "the log of game {game} does not reach event {before} yet; read it again"
                        )));
                    }
                    position.tell_on(run, refold)?
                }
            };
            slot.remember(run, &fresh);
            for (i, t) in fresh.into_iter().enumerate() {
                told[first + i] = Some(t);
            }
        }
        Ok(told.into_iter().map(|t| t.expect("every event told")).collect())
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
                "press": l.record.press,
                "outcome": t.outcome(),
                "deadlines": {
                    "policy": t.clock.policy,
                    "paused": t.clock.paused.is_some(),
                    "due": l.record.clocks.iter().filter_map(|(k, c)| {
                        let d = chrono::DateTime::from_timestamp_millis(c.deadline_ms?)?;
                        Some(json!({ "decision": k, "due": stamp(d) }))
                    }).collect::<Vec<_>>(),
                    "forfeited": t.clock.forfeited,
                    "bot_plays": bot_plays(t),
                    "ladder": super::notify::ladder_words(t),
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
    pub(super) fn view_of(position: &Table, head: u64, viewer: Viewer, over: bool, at_head: bool) -> Vec<u8> {
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
            messages: super::press::latest_for(position, viewer, over),
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
        self.event_views(&table, &log[from..], viewer, Some(&live[from..]))
    }
    /// Subscribe to the game's new events (subscribe before reading the
    /// backlog, so nothing falls between).
    pub async fn subscribe(&self, game: &str) -> Result<Subscription> {
        let slot = self.slot(game);
        let rx = slot.tx.subscribe();
        let moved = slot.moved.subscribe();
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        Ok(Subscription { rx, moved, table: loaded.table.clone() })
    }
    /// A copy of the game's position at its head.
    pub async fn game_table(&self, game: &str) -> Result<Table> {
        self.with_game(game, |l| Ok(l.table.clone())).await
    }
    /// Stream form of a batch of events for one viewer.
    pub fn stream_views(&self, table: &Table, events: &[Envelope], viewer: Viewer) -> Result<Vec<EventView>> {
        self.event_views(table, events, viewer, None)
    }
}

/// A game followed by a stream: its events appended through this node, the
/// notices of other nodes' writes to it (`Slot::moved`), and its position
/// when the stream began.
pub struct Subscription {
    pub rx: broadcast::Receiver<Arc<Vec<Envelope>>>,
    pub moved: tokio::sync::watch::Receiver<u64>,
    pub table: Table,
}

/// The decisions still owed: pending and not yet given.
/// Per seat: whether the bot plays it now after missed deadlines.
pub fn bot_plays(t: &Table) -> Vec<bool> {
    let policy = super::Policy::parse(&t.clock.policy).ok().flatten();
    (0..t.seats() as u8)
        .map(|s| {
            let forfeited = t.clock.forfeited.get(s as usize).copied().unwrap_or(false);
            !forfeited && super::deadlines::played_at_once(t, policy.as_ref(), s)
        })
        .collect()
}

pub fn owed(t: &Table) -> Vec<runestone_engine::Pending> {
    t.pending().into_iter().filter(|p| !p.submitted).collect()
}

/// The decisions given but still open to change (a secret plan before the
/// reveal): nothing is owed for them.
pub fn given(t: &Table) -> Vec<runestone_engine::Pending> {
    t.pending().into_iter().filter(|p| p.submitted).collect()
}
