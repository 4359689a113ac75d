//! A game's event stream (server-sent events): the backlog, then each new
//! event cut to the viewer, until the game ends or the seat's link is
//! revoked, which the stream's last event says.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use actix_web::web::{self, Bytes};
use actix_web::{HttpRequest, HttpResponse};
use runestone_engine::{Envelope, Viewer};
use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;

use super::answers::through;
use super::request::{bearer, query_number, viewer};
use super::{types, ApiResult, Svc};

/// Server-sent events: the backlog from `from` (or after `Last-Event-ID`,
/// or from the next event), then each new event as it is appended, cut to
/// the viewer. A comment line every 15 s keeps proxies from closing it.
///
/// The stream ends with one `closed` event saying why: the game is over
/// (after the event that ended it), or the seat's link was revoked (a new
/// link, a substitute seated): a seat's stream is re-checked against the
/// seat's token generation at every change of its links, before any later
/// event is sent, so a revoked token receives nothing after the revocation.
pub(super) async fn stream(svc: Svc, req: HttpRequest, path: web::Path<String>) -> ApiResult {
    // A place among the streams first, before any work for this one.
    let slot = match req.app_data::<Arc<super::limits::StreamLimits>>() {
        Some(limits) => match limits.take(super::request::client_of(&svc, &req)) {
            Ok(slot) => Some(slot),
            Err(refused) => return Ok(*refused),
        },
        None => None,
    };
    let game = path.into_inner();
    let q_from = query_number(&req, "from")?;
    let c = match bearer(&req, true)? {
        None => None,
        Some(t) => Some(svc.authorize(&game, &t).await?),
    };
    let viewer = viewer(&c);
    let crate::service::Subscription { rx, moved, table } = svc.subscribe(&game).await?;
    let last_id = req.headers().get("last-event-id").and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let from = last_id.map(|s| s + 1).or(q_from).unwrap_or(table.head + 1);
    let backlog: VecDeque<Value> = if from <= table.head {
        svc.events(&game, viewer, from, Some(table.head))
            .await?
            .into_iter()
            .map(|e| serde_json::to_value(e).expect("JSON"))
            .collect()
    } else {
        VecDeque::new()
    };
    let ended = table.seed_revealed.is_some().then(|| closing_over(&table));
    struct St {
        svc: Svc,
        game: String,
        viewer: Viewer,
        /// The token's claims, for the messages it reads.
        claims: Option<crate::auth::Claims>,
        /// The seat and token generation a seat's stream was opened with.
        seat: Option<(runestone_engine::Seat, u32)>,
        /// The holder (host or referee) and token generation of a host's
        /// or a referee's stream.
        holder: Option<(runestone_engine::Holder, u32)>,
        rx: tokio::sync::broadcast::Receiver<Arc<Vec<Envelope>>>,
        /// Notices of other nodes' writes to the game (a shared store).
        moved: tokio::sync::watch::Receiver<u64>,
        queue: VecDeque<Value>,
        last: Option<u64>,
        table: runestone_engine::Table,
        /// The final event, sent once the queue is empty; then the end.
        closing: Option<types::StreamClosed>,
        done: bool,
        /// Head polls since the last frame (shared stores whose notices
        /// are not heard).
        polls: u32,
        /// Its place among the open streams, given back as it ends.
        _slot: Option<super::limits::StreamSlot>,
    }
    let seat = c.as_ref().and_then(|c| c.seat.filter(|_| c.role == crate::auth::Role::Seat).map(|s| (s, c.gen)));
    let holder = c.as_ref().and_then(|c| match c.role {
        crate::auth::Role::Host => Some((runestone_engine::Holder::Host, c.gen)),
        crate::auth::Role::Referee => Some((runestone_engine::Holder::Referee, c.gen)),
        crate::auth::Role::Seat => None,
    });
    let st = St {
        svc: svc.clone(),
        game,
        viewer,
        claims: c.clone(),
        seat,
        holder,
        rx,
        moved,
        queue: backlog,
        last: from.checked_sub(1),
        table,
        closing: ended,
        done: false,
        polls: 0,
        _slot: slot,
    };
    let body = futures_util::stream::unfold(st, |mut st| async move {
        loop {
            if st.done {
                return None;
            }
            if let Some(v) = st.queue.pop_front() {
                let seq = v["seq"].as_u64().unwrap_or(0);
                st.last = Some(seq);
                let press = st.message_after(&v, seq).await;
                let data = match through::<types::Event>(v) {
                    Ok(e) => serde_json::to_string(&e).expect("JSON"),
                    Err(v) => v.to_string(),
                };
                let mut frame = format!("id: {seq}\nevent: event\ndata: {data}\n\n");
                if let Some(m) = press {
                    frame.push_str(&format!("event: message\ndata: {m}\n\n"));
                }
                return Some((Ok::<_, actix_web::Error>(Bytes::from(frame)), st));
            }
            if let Some(why) = st.closing.take() {
                st.done = true;
                let frame = format!("event: closed\ndata: {}\n\n", serde_json::to_string(&why).expect("JSON"));
                return Some((Ok(Bytes::from(frame)), st));
            }
            tokio::select! {
                msg = st.rx.recv() => match msg {
                    Ok(batch) => {
                        let mut fresh = Vec::new();
                        for e in batch.iter().filter(|e| st.last.is_none_or(|l| e.seq > l)) {
                            match e.kernel() {
                                Some(runestone_engine::KernelEvent::SeatTokenRevoked { seat, generation, reason })
                                    if st.seat.is_some_and(|(s, g)| s == *seat && g != *generation) =>
                                {
                                    fresh.push(e.clone());
                                    st.closing = Some(closing_revoked(*seat, reason));
                                    break;
                                }
                                Some(runestone_engine::KernelEvent::RoleTokenRevoked { role, generation, reason })
                                    if st.holder.is_some_and(|(h, g)| h == *role && g != *generation) =>
                                {
                                    fresh.push(e.clone());
                                    st.closing = Some(closing_role_revoked(*role, reason));
                                    break;
                                }
                                Some(runestone_engine::KernelEvent::RolledBack { .. }) if st.seat.is_some() => {
                                    // A rollback may void a revocation or
                                    // one that follows: ask the game itself.
                                    fresh.push(e.clone());
                                    if let Some(why) = st.recheck().await {
                                        st.closing = Some(why);
                                        break;
                                    }
                                }
                                Some(runestone_engine::KernelEvent::SeedRevealed { seed }) => {
                                    st.table.seed_revealed = Some(seed.clone());
                                    fresh.push(e.clone());
                                }
                                _ => fresh.push(e.clone()),
                            }
                        }
                        let Ok(views) = st.svc.stream_views(&st.table, &fresh, st.viewer) else {
                            return None;
                        };
                        for v in views {
                            st.queue.push_back(serde_json::to_value(v).expect("JSON"));
                        }
                        if st.closing.is_none() && st.table.seed_revealed.is_some() {
                            let over = st.svc.game_table(&st.game).await.ok();
                            st.closing = Some(closing_over(over.as_ref().unwrap_or(&st.table)));
                        }
                    }
                    Err(RecvError::Lagged(_)) => {
                        // Events were missed: read them back from the log.
                        if !st.read_back().await {
                            return None;
                        }
                    }
                    Err(RecvError::Closed) => return None,
                },
                // On a database shared by several nodes, events appended
                // through another node reach this one only through the
                // store: the store tells of them when it hears the
                // database's notices; while it does not, its head is
                // polled. Either way they are then read as after a lag.
                r = st.moved.changed(), if st.svc.store().notices_live() => {
                    if r.is_err() || !st.follow_store().await {
                        return None;
                    }
                }
                _ = tokio::time::sleep(SHARED_POLL), if st.svc.store().shared() && !st.svc.store().notices_live() => {
                    st.moved.mark_unchanged();
                    if !st.follow_store().await {
                        return None;
                    }
                    st.polls += 1;
                    if st.polls * SHARED_POLL.as_millis() as u32 >= 15_000 {
                        st.polls = 0;
                        return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), st));
                    }
                }
                _ = tokio::time::sleep(Duration::from_secs(15)),
                    if !st.svc.store().shared() || st.svc.store().notices_live() =>
                {
                    return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), st));
                }
            }
        }
    });
    impl St {
        /// Reads what another node appended, if the store's head is past
        /// the last event queued; `false` when the log cannot be read.
        async fn follow_store(&mut self) -> bool {
            crate::metrics::Metrics::inc(&self.svc.metrics.stream_store_reads);
            let head = self.svc.head(&self.game).await.ok().flatten();
            if head.is_none_or(|h| self.last.is_some_and(|l| h <= l)) {
                return true;
            }
            self.polls = 0;
            if !self.read_back().await {
                return false;
            }
            if self.closing.is_none() {
                if let Ok(t) = self.svc.game_table(&self.game).await {
                    self.closing = t.seed_revealed.is_some().then(|| closing_over(&t));
                }
            }
            true
        }

        /// The `message` frame's data after the event `v` at `seq`: the
        /// message it wrote, hid or reported, as this token reads it now.
        async fn message_after(&self, v: &Value, seq: u64) -> Option<String> {
            let event = &v["body"]["event"];
            let target = match (v["body"]["kind"].as_str(), event["type"].as_str()) {
                (Some("kernel"), Some("MessageSent")) => seq,
                (Some("kernel"), Some("MessageHidden" | "MessageReported")) => event["message"].as_u64()?,
                // The host reads the table's messages though the public cut of
                // the log hides them.
                _ if v["hidden"] == Value::Bool(true) => seq,
                _ => return None,
            };
            let m = self.svc.message_for(&self.game, self.claims.as_ref(), target).await.ok()??;
            let v = serde_json::to_value(m).expect("JSON");
            Some(match through::<types::Message>(v) {
                Ok(m) => serde_json::to_string(&m).expect("JSON"),
                Err(v) => v.to_string(),
            })
        }

        /// Queues the events after the last one queued, read back from the
        /// log (after a lag, or appended through another node), once the
        /// link is checked again; a link no longer good closes the stream
        /// instead. `false` when the log cannot be read: the stream ends.
        async fn read_back(&mut self) -> bool {
            if let Some(why) = self.recheck().await {
                self.closing = Some(why);
                return true;
            }
            let from = self.last.map_or(0, |l| l + 1);
            match self.svc.events(&self.game, self.viewer, from, None).await {
                Ok(list) => {
                    self.queue.extend(list.into_iter().map(|e| serde_json::to_value(e).expect("JSON")));
                    true
                }
                Err(_) => false,
            }
        }

        /// The closing event if the seat's token generation is no longer the
        /// game's (or the game cannot be read), else `None`.
        async fn recheck(&self) -> Option<types::StreamClosed> {
            let (seat, gen) = self.seat?;
            match self.svc.game_table(&self.game).await {
                Ok(t) if t.generations.get(seat as usize) == Some(&gen) => None,
                Ok(_) => Some(closing_revoked(seat, "")),
                Err(_) => Some(types::StreamClosed {
                    reason: types::ClosedReason::Unavailable,
                    detail: "the game could not be read to re-check this link; reconnect in a moment".into(),
                    head: None,
                    outcome: None,
                }),
            }
        }
    }
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("cache-control", "no-cache"))
        .insert_header(("x-accel-buffering", "no"))
        .streaming(body))
}

/// How often a stream on a shared database looks for events appended
/// through other nodes.
pub(super) const SHARED_POLL: Duration = Duration::from_millis(250);

/// The stream's final event when the seat's links were revoked.
pub(super) fn closing_revoked(seat: runestone_engine::Seat, reason: &str) -> types::StreamClosed {
    let why = if reason.is_empty() { String::new() } else { format!(" ({reason})") };
    types::StreamClosed {
        reason: types::ClosedReason::Revoked,
        detail: format!(
            "the links of seat {seat} were revoked by the host{why}; this stream is closed. \
             Use the newest link you were sent"
        ),
        head: None,
        outcome: None,
    }
}

/// The stream's final event when the host's or the referee's token it was
/// opened with is replaced.
fn closing_role_revoked(holder: runestone_engine::Holder, reason: &str) -> types::StreamClosed {
    let why = if reason.is_empty() { String::new() } else { format!(" ({reason})") };
    types::StreamClosed {
        reason: types::ClosedReason::Revoked,
        detail: format!(
            "the {} token this stream was opened with was replaced by the host{why}; this stream is closed",
            holder.name()
        ),
        head: None,
        outcome: None,
    }
}

/// The stream's final event when the game is over.
pub(super) fn closing_over(t: &runestone_engine::Table) -> types::StreamClosed {
    types::StreamClosed {
        reason: types::ClosedReason::Over,
        detail: "the game is over: nothing more will be appended; the whole log is public now".into(),
        head: Some(t.head),
        outcome: t.outcome().and_then(|o| through::<types::Outcome>(serde_json::to_value(o).expect("JSON")).ok()),
    }
}
