//! Deadlines and the missed-turn ladder (DESIGN.md §6).
//!
//! A game's deadline policy gives each decision class (secret plan, turn,
//! small decision) a number of hours. When a decision becomes newly pending
//! for a seat, its deadline is the start (now, or the end of the seat's
//! vacation) plus those hours; entries for the deadline and its reminders are
//! written into the deadline index in the same atomic write as the events, keyed
//! by due time, so the scheduler (`crate::deadlines`) finds what is due
//! without scanning games, and has the service act on it here ([`Service::fire`]).
//!
//! The ladder, the same for every game. On a missed deadline: one grace
//! extension; then `TimedOut`, and the system plays the seat's standing
//! orders or program, else the rules' fallback (the game's bot). After
//! `bot_after` timeouts in a row the bot plays the seat: every decision that
//! reaches it is taken at once, so the game never waits on it, until the
//! player comes back (a `back` clock action, or any decision of their own).
//! After `substitute_after` the host is alerted and may seat a substitute;
//! after `forfeit_after` the seat forfeits and is played at once for good.
//! Pause, resume, extensions, vacations and returns are events too.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use runestone_engine::{DecisionClass, Pending, Table};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::notify::Notice;
use super::{GameRecord, Service};
use crate::store::{Side, SideWrite};

/// How long each class of decision may take, and the ladder's steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "DeadlinePolicy")]
pub struct Policy {
    pub plan_hours: f64,
    pub turn_hours: f64,
    pub small_hours: f64,
    /// Reminders this many hours before a deadline.
    #[serde(default)]
    pub reminders_hours: Vec<f64>,
    /// One extension of this many hours after a missed deadline (0: none).
    #[serde(default = "default_grace")]
    pub grace_hours: f64,
    /// After this many missed deadlines in a row the bot plays the seat:
    /// each of its decisions is taken at once until the player comes back
    /// (0: never; each decision then waits its full time).
    #[serde(default = "default_bot")]
    pub bot_after: u32,
    /// Alert the host after this many timeouts in a row of one seat.
    #[serde(default = "default_substitute")]
    pub substitute_after: u32,
    /// The seat forfeits after this many timeouts in a row (0: never).
    #[serde(default = "default_forfeit")]
    pub forfeit_after: u32,
}

fn default_grace() -> f64 {
    24.0
}
fn default_bot() -> u32 {
    2
}
fn default_substitute() -> u32 {
    2
}
fn default_forfeit() -> u32 {
    0
}

const MAX_HOURS: f64 = 24.0 * 90.0;

impl Policy {
    /// `null` means no deadlines; anything else must be a valid policy.
    pub fn parse(v: &Value) -> Result<Option<Policy>, String> {
        if v.is_null() {
            return Ok(None);
        }
        let p: Policy = serde_json::from_value(v.clone()).map_err(|e| format!("deadline policy: {e}"))?;
        for (name, h) in [("plan_hours", p.plan_hours), ("turn_hours", p.turn_hours), ("small_hours", p.small_hours)] {
            if !(h > 0.0 && h <= MAX_HOURS) {
                return Err(format!("deadline policy: {name} must be more than 0 and at most {MAX_HOURS}, not {h}"));
            }
        }
        if !(0.0..=MAX_HOURS).contains(&p.grace_hours) {
            return Err(format!("deadline policy: grace_hours must be 0 to {MAX_HOURS}"));
        }
        if p.reminders_hours.iter().any(|r| !(*r > 0.0 && *r < MAX_HOURS)) {
            return Err("deadline policy: each of reminders_hours must be more than 0 hours before the deadline".into());
        }
        if p.substitute_after == 0 {
            return Err("deadline policy: substitute_after must be at least 1".into());
        }
        if p.bot_after > 100 || p.substitute_after > 100 || p.forfeit_after > 100 {
            return Err("deadline policy: bot_after, substitute_after and forfeit_after are at most 100".into());
        }
        if p.forfeit_after != 0 && p.forfeit_after < p.substitute_after {
            return Err("deadline policy: forfeit_after must be 0 (never) or at least substitute_after".into());
        }
        Ok(Some(p))
    }

    pub fn hours(&self, class: DecisionClass) -> f64 {
        match class {
            DecisionClass::Plan => self.plan_hours,
            DecisionClass::Turn => self.turn_hours,
            DecisionClass::Small => self.small_hours,
        }
    }

    /// Whether the bot plays a seat that missed `timeouts` deadlines in a row.
    pub fn bot_plays(&self, timeouts: u32) -> bool {
        self.bot_after > 0 && timeouts >= self.bot_after
    }

    /// The ladder told to a player, in words.
    pub fn ladder_words(&self) -> String {
        let mut steps = Vec::new();
        if self.grace_hours > 0.0 {
            steps.push(format!(
                "a missed deadline gets one extension of {}, then your standing orders, or else the bot, decide that once",
                hours_words(self.grace_hours)
            ));
        } else {
            steps.push("at a missed deadline your standing orders, or else the bot, decide that once".to_owned());
        }
        if self.bot_after > 0 {
            steps.push(format!("after {} the bot plays for you until you say you are back", missed(self.bot_after)));
        }
        steps.push(format!("after {} the host may seat a substitute", missed(self.substitute_after)));
        if self.forfeit_after > 0 {
            steps.push(format!("after {} you forfeit", missed(self.forfeit_after)));
        }
        let mut words = steps.join("; ");
        words[..1].make_ascii_uppercase();
        words + "."
    }

    /// How long each kind of decision may take, and the reminders, in
    /// words: "A secret plan may take 1 day, a turn 2 days and a small
    /// decision 12 hours; reminders 6 hours before."
    pub fn time_words(&self) -> String {
        let mut words = format!(
            "A secret plan may take {}, a turn {} and a small decision {}",
            hours_words(self.plan_hours),
            hours_words(self.turn_hours),
            hours_words(self.small_hours)
        );
        let mut reminders = self.reminders_hours.clone();
        reminders.sort_by(|a, b| b.total_cmp(a));
        match reminders.as_slice() {
            [] => words.push_str("; no reminders."),
            [one] => words.push_str(&format!("; a reminder {} before.", hours_words(*one))),
            more => words.push_str(&format!(
                "; reminders {} before.",
                more.iter().map(|h| hours_words(*h)).collect::<Vec<_>>().join(", ")
            )),
        }
        words
    }
}

/// A span of time in words, to the minute: "3 days 4 hours", "2 hours 5
/// minutes", "12 minutes".
pub fn span_words(minutes: i64) -> String {
    let m = minutes.max(0);
    let (days, hours, mins) = (m / 1440, m % 1440 / 60, m % 60);
    let unit = |n: i64, one: &str| if n == 1 { format!("1 {one}") } else { format!("{n} {one}s") };
    match (days, hours, mins) {
        (0, 0, m) => unit(m, "minute"),
        (0, h, 0) => unit(h, "hour"),
        (0, h, m) => format!("{} {}", unit(h, "hour"), unit(m, "minute")),
        (d, 0, _) => unit(d, "day"),
        (d, h, _) => format!("{} {}", unit(d, "day"), unit(h, "hour")),
    }
}

fn missed(n: u32) -> String {
    if n == 1 {
        "1 missed deadline".into()
    } else {
        format!("{n} missed deadlines in a row")
    }
}

fn hours_words(h: f64) -> String {
    if h >= 48.0 && (h / 24.0).fract() == 0.0 {
        format!("{} days", h / 24.0)
    } else if h == 1.0 {
        "1 hour".into()
    } else {
        format!("{h} hours")
    }
}

/// Whether the system plays `seat` at once now: it forfeited, or it missed
/// enough deadlines in a row that the bot plays it (`policy.bot_after`).
pub(crate) fn played_at_once(t: &Table, policy: Option<&Policy>, seat: u8) -> bool {
    let forfeited = t.clock.forfeited.get(seat as usize).copied().unwrap_or(false);
    let timeouts = t.clock.timeouts.get(seat as usize).copied().unwrap_or(0);
    forfeited || policy.is_some_and(|p| p.bot_plays(timeouts))
}

pub(crate) fn hours(h: f64) -> chrono::Duration {
    chrono::Duration::milliseconds((h * 3_600_000.0) as i64)
}

/// What a deadline-index entry asks for when due.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    Reminder,
    Due,
    /// The grace extension ran out, or the seat forfeited: play for it now.
    Timeout,
}

/// One entry of the deadline index.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub game: String,
    pub seat: u8,
    pub kind: String,
    /// The seq at which the decision became pending.
    pub since: u64,
    /// The deadline this entry belongs to (ms); a moved deadline makes
    /// older entries stale.
    pub deadline_ms: i64,
    pub step: Step,
}

/// A pending decision's clock, kept in the game's private record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    pub since: u64,
    /// `None` while the game has no deadlines or is paused.
    pub deadline_ms: Option<i64>,
}

pub(crate) fn clock_key(seat: u8, kind: &str) -> String {
    format!("{seat}/{kind}")
}

/// Index key: `d` ‖ due (ms, big-endian) ‖ game ‖ seat ‖ since ‖ step.
pub fn entry_key(due_ms: i64, e: &Entry) -> Vec<u8> {
    let mut k = b"d".to_vec();
    k.extend_from_slice(&(due_ms.max(0) as u64).to_be_bytes());
    k.extend_from_slice(e.game.as_bytes());
    k.push(e.seat);
    k.extend_from_slice(&e.since.to_be_bytes());
    k.extend_from_slice(&e.deadline_ms.to_be_bytes());
    k.push(e.step as u8);
    k
}

pub(crate) fn entry_due(key: &[u8]) -> Option<i64> {
    Some(u64::from_be_bytes(key.get(1..9)?.try_into().ok()?) as i64)
}

fn put(due_ms: i64, e: &Entry) -> SideWrite {
    SideWrite { side: Side::Deadlines, key: entry_key(due_ms, e), value: Some(serde_json::to_vec(e).expect("JSON")) }
}

/// Decisions newly pending in `after` (not given yet, and not pending in
/// the same way before). A secret plan is one decision per prompt: when
/// the last plan of a round lets the whole round play out at once (turn
/// programs), the next round's plan, asked of the same seat, is new.
pub(crate) fn newly_pending(before: Option<&Table>, after: &Table) -> Vec<Pending> {
    let same = |p: &Pending| (p.seat, p.kind.clone(), (p.class == DecisionClass::Plan).then(|| p.prompt.clone()));
    let open = |t: &Table| -> Vec<(u8, String, Option<String>)> {
        t.pending().into_iter().filter(|p| !p.submitted).map(|p| same(&p)).collect()
    };
    let was = before.map(open).unwrap_or_default();
    after.pending().into_iter().filter(|p| !p.submitted && !was.contains(&same(p))).collect()
}

impl Service {
    /// The entries of a deadline at `deadline` for `(seat, kind)` pending since `since`.
    pub(crate) fn deadline_entries(
        &self,
        game: &str,
        p: &Pending,
        since: u64,
        deadline: DateTime<Utc>,
        policy: &Policy,
    ) -> Vec<SideWrite> {
        let now = self.now();
        let e = |step| Entry {
            game: game.to_owned(),
            seat: p.seat,
            kind: p.kind.clone(),
            since,
            deadline_ms: deadline.timestamp_millis(),
            step,
        };
        let mut out = vec![put(deadline.timestamp_millis(), &e(Step::Due))];
        for r in &policy.reminders_hours {
            let at = deadline - hours(*r);
            if at > now {
                out.push(put(at.timestamp_millis(), &e(Step::Reminder)));
            }
        }
        out
    }

    /// Start the clocks of decisions newly pending in `after`; stop those no
    /// longer pending. Returns the index writes and each seat's deadline.
    pub(crate) fn schedule(
        &self,
        before: Option<&Table>,
        after: &Table,
        since: u64,
        record: &mut GameRecord,
    ) -> (Vec<SideWrite>, BTreeMap<u8, DateTime<Utc>>) {
        let mut out = Vec::new();
        let mut dues = BTreeMap::new();
        let open: Vec<String> =
            after.pending().into_iter().filter(|p| !p.submitted).map(|p| clock_key(p.seat, &p.kind)).collect();
        record.clocks.retain(|k, _| open.contains(k));
        if after.is_over() {
            record.clocks.clear();
            return (out, dues);
        }
        let policy = Policy::parse(&after.clock.policy).ok().flatten();
        let now = self.now();
        for p in newly_pending(before, after) {
            let key = clock_key(p.seat, &p.kind);
            let forfeited = played_at_once(after, policy.as_ref(), p.seat);
            let deadline = match (&policy, &after.clock.paused, forfeited) {
                (_, _, true) => Some(now),
                (Some(pol), None, false) => {
                    let start = after.clock.vacation_until[p.seat as usize]
                        .as_deref()
                        .and_then(|v| v.parse::<DateTime<Utc>>().ok())
                        .filter(|v| *v > now)
                        .unwrap_or(now);
                    Some(start + hours(pol.hours(p.class)))
                }
                _ => None,
            };
            record.clocks.insert(key, Clock { since, deadline_ms: deadline.map(|d| d.timestamp_millis()) });
            if let Some(d) = deadline {
                if forfeited {
                    let e = Entry {
                        game: after.game_id.clone(),
                        seat: p.seat,
                        kind: p.kind.clone(),
                        since,
                        deadline_ms: d.timestamp_millis(),
                        step: Step::Timeout,
                    };
                    out.push(put(d.timestamp_millis(), &e));
                } else if let Some(pol) = &policy {
                    out.extend(self.deadline_entries(&after.game_id, &p, since, d, pol));
                    dues.insert(p.seat, d);
                }
            }
        }
        (out, dues)
    }

    /// Move every running deadline (of `seat`, or all) to `f(old)`.
    pub(crate) fn move_deadlines(
        &self,
        table: &Table,
        record: &mut GameRecord,
        seat: Option<u8>,
        f: impl Fn(DateTime<Utc>) -> DateTime<Utc>,
    ) -> Vec<SideWrite> {
        let Some(policy) = Policy::parse(&table.clock.policy).ok().flatten() else { return Vec::new() };
        let mut out = Vec::new();
        for p in table.pending().into_iter().filter(|p| !p.submitted && seat.is_none_or(|s| s == p.seat)) {
            let Some(c) = record.clocks.get_mut(&clock_key(p.seat, &p.kind)) else { continue };
            let Some(old) = c.deadline_ms.and_then(DateTime::from_timestamp_millis) else { continue };
            let new = f(old);
            c.deadline_ms = Some(new.timestamp_millis());
            out.extend(self.deadline_entries(&table.game_id, &p, c.since, new, &policy));
        }
        out
    }
}

/// A deadline policy, or null (no deadlines).
pub(crate) fn policy_or_null(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "anyOf": [{ "$ref": "#/components/schemas/DeadlinePolicy" }, { "type": "null" }],
                   "description": "the deadline policy; null: no deadlines" })
}

/// What a host (or a seat, for its own vacation) asks of the clocks.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClockAction {
    Pause {
        /// At most 200 characters on one line.
        #[schemars(length(max = 200), pattern(crate::limits::ONE_LINE))]
        reason: String,
    },
    Resume,
    /// More time for pending decisions (of one seat, or all): `hours` more,
    /// or until `until` (RFC 3339).
    Extend {
        seat: Option<u8>,
        hours: Option<i64>,
        until: Option<String>,
        /// At most 200 characters on one line.
        #[schemars(length(max = 200), pattern(crate::limits::ONE_LINE))]
        reason: String,
    },
    /// A new policy for the decisions that become pending from now on.
    SetPolicy {
        #[schemars(schema_with = "policy_or_null")]
        policy: Value,
    },
    /// A seat is away until `until` (RFC 3339): its clock stops meanwhile.
    Vacation {
        seat: u8,
        until: String,
    },
    /// A seat the bot plays after missed deadlines is played by its player
    /// again (the seat itself, or the host for it).
    Back {
        seat: u8,
    },
}

use runestone_engine::{Actor, Draft, KernelEvent};

use super::{Result, ServiceError};
use crate::auth::{Claims, Role};
use crate::clock::stamp;

fn future(s: &str, now: DateTime<Utc>, what: &str) -> Result<DateTime<Utc>> {
    let t: DateTime<Utc> = s
        .parse()
        .map_err(|_| ServiceError::Unprocessable(format!("{what} {s:?} is not a time like 2026-12-01T18:00:00Z")))?;
    if t <= now {
        return Err(ServiceError::Unprocessable(format!(
            "{what} {s} is in the past; give a time after {}",
            stamp(now)
        )));
    }
    if t > now + chrono::Duration::days(90) {
        return Err(ServiceError::Unprocessable(format!("{what} {s} is more than 90 days away")));
    }
    Ok(t)
}

impl Service {
    /// Act on one due index entry (the scheduler's work).
    pub(crate) async fn fire(&self, key: Vec<u8>, entry: Entry) -> Result<()> {
        // When the entry is due, before its deadline: which of the
        // deadline's reminders it is.
        let lead = chrono::Duration::milliseconds(entry.deadline_ms - entry_due(&key).unwrap_or(entry.deadline_ms));
        let delete = SideWrite { side: Side::Deadlines, key, value: None };
        let slot = self.slot(&entry.game);
        let mut guard = self.settled(&slot).await;
        let loaded = match self.loaded(&entry.game, &mut guard).await {
            Ok(l) => l,
            Err(ServiceError::NotFound(_)) => return Ok(self.store().put(vec![delete]).await?),
            Err(e) => return Err(e),
        };
        let t = &loaded.table;
        let ck = clock_key(entry.seat, &entry.kind);
        let valid = !t.is_over()
            && t.clock.paused.is_none()
            && loaded
                .record
                .clocks
                .get(&ck)
                .is_some_and(|c| c.since == entry.since && c.deadline_ms == Some(entry.deadline_ms))
            && t.pending().iter().any(|p| p.seat == entry.seat && p.kind == entry.kind && !p.submitted);
        if !valid {
            return Ok(self.store().put(vec![delete]).await?);
        }
        let policy = Policy::parse(&t.clock.policy).ok().flatten();
        let deadline = DateTime::from_timestamp_millis(entry.deadline_ms).unwrap_or_else(|| self.now());
        let forfeited = played_at_once(t, policy.as_ref(), entry.seat);
        match (entry.step, policy) {
            (Step::Reminder, _) => {
                let mut side = vec![delete];
                side.extend(self.reminder(t, &loaded.record, entry.seat, entry.since, deadline, Notice::Before(lead)));
                self.store().put(crate::mail::split_channels(side)).await?;
                Ok(())
            }
            (Step::Due, Some(pol)) if pol.grace_hours > 0.0 && !forfeited => {
                let until = self.now() + hours(pol.grace_hours);
                let draft = Draft::kernel(
                    Actor::System,
                    KernelEvent::GraceGranted { seat: entry.seat, kind: entry.kind.clone(), until: stamp(until) },
                );
                if let Some(c) = loaded.record.clocks.get_mut(&ck) {
                    c.deadline_ms = Some(until.timestamp_millis());
                }
                let next = Entry { deadline_ms: until.timestamp_millis(), step: Step::Timeout, ..entry.clone() };
                let mut side = vec![delete, put(until.timestamp_millis(), &next)];
                side.extend(self.reminder(t, &loaded.record, entry.seat, entry.since, until, Notice::Extension));
                self.commit(&slot, loaded, vec![draft], |_, _| side).await?;
                Ok(())
            }
            (_, pol) => self.time_out(&slot, loaded, entry, delete, pol).await,
        }
    }

    /// The seat missed its deadline: the system plays its standing orders or
    /// the rules' fallback, and climbs the ladder.
    async fn time_out(
        &self,
        slot: &super::Slot,
        loaded: &mut super::Loaded,
        entry: Entry,
        delete: SideWrite,
        policy: Option<Policy>,
    ) -> Result<()> {
        let seat = entry.seat;
        let t = loaded.table.clone();
        let now = self.event_time(loaded)?;
        let name = t.created.seats.get(seat as usize).cloned().unwrap_or_default();
        let mut events = runestone_engine::log::seal(
            &t.game_id,
            Some((t.head, &t.head_hash)),
            vec![Draft::kernel(Actor::System, KernelEvent::TimedOut { seat, kind: entry.kind.clone() })],
            &now,
            &loaded.seed,
        );
        let mut t2 = t.clone();
        t2.push(&events[0])?;
        let mut alerts = Vec::new();
        let bot_before = played_at_once(&t, policy.as_ref(), seat);
        let mut played = false;
        match t2.fallback(seat) {
            Some(cmd) => match t2.decide(Actor::System, seat, &cmd, None, &loaded.seed) {
                Ok(drafts) => {
                    played = true;
                    let more = runestone_engine::log::seal(
                        &t2.game_id,
                        Some((t2.head, &t2.head_hash)),
                        drafts,
                        &now,
                        &loaded.seed,
                    );
                    for e in &more {
                        t2.push(e)?;
                    }
                    events.extend(more);
                }
                Err(e) => alerts.push(format!(
                    "{name} timed out, and the rules' default was refused ({e}); seat a substitute or roll back"
                )),
            },
            None => alerts
                .push(format!("{name} timed out, and the rules have no default for this decision; seat a substitute")),
        }
        let timeouts = t2.clock.timeouts.get(seat as usize).copied().unwrap_or(0);
        let forfeited = t2.clock.forfeited.get(seat as usize).copied().unwrap_or(false);
        if let Some(pol) = &policy {
            if !t2.is_over() && !forfeited && pol.forfeit_after > 0 && timeouts >= pol.forfeit_after {
                let reason = format!("{timeouts} deadlines missed in a row");
                let more = runestone_engine::log::seal(
                    &t2.game_id,
                    Some((t2.head, &t2.head_hash)),
                    vec![Draft::kernel(Actor::System, KernelEvent::SeatForfeited { seat, reason: reason.clone() })],
                    &now,
                    &loaded.seed,
                );
                t2.push(&more[0])?;
                events.extend(more);
                alerts.push(format!("{name} forfeits after {reason}; the system plays the seat from now on"));
            } else if !forfeited && timeouts == pol.substitute_after {
                alerts.push(format!(
                    "{name} has missed {timeouts} deadlines in a row; the rules' default plays for them. You can seat a substitute."
                ));
            }
        }
        let bot_now = !t2.is_over() && played_at_once(&t2, policy.as_ref(), seat);
        let mut side = vec![delete];
        for a in &alerts {
            side.extend(self.host_alert(&t2, &loaded.record, t.head + 1, a));
        }
        if bot_now && !bot_before {
            side.extend(self.bot_plays_mail(&t2, &loaded.record, seat, t.head + 1));
        }
        // What is still open for the seat is followed up in the same write
        // as the events (a write of its own after them could land after
        // another node's append and put back an older record of the game),
        // so that no game waits on an absent seat:
        // - a default that left the same decision open is followed by
        //   another at once, until the decision is taken;
        // - once the bot plays the seat, every decision it still owes is
        //   taken at once;
        // - a default that could not be played (refused, or none: the host
        //   is alerted) is tried again after the decision's time.
        // Decisions newly pending are scheduled by the commit itself.
        let newly = newly_pending(Some(&t), &t2);
        let mut before = Vec::new();
        let open: Vec<_> = t2.pending().into_iter().filter(|p| p.seat == seat && !p.submitted).collect();
        for p in open {
            if newly.iter().any(|n| n.seat == seat && n.kind == p.kind) {
                continue;
            }
            let due = if played && (bot_now || p.kind == entry.kind) {
                self.now()
            } else if p.kind == entry.kind {
                self.now() + hours(policy.as_ref().map_or(24.0, |pol| pol.hours(p.class)))
            } else {
                continue;
            };
            let ck = clock_key(seat, &p.kind);
            if let Some(c) = loaded.record.clocks.get_mut(&ck) {
                before.push((ck.clone(), c.clone()));
                let due = due.timestamp_millis();
                c.deadline_ms = Some(due);
                let next = Entry {
                    kind: p.kind.clone(),
                    deadline_ms: due,
                    step: Step::Timeout,
                    since: c.since,
                    ..entry.clone()
                };
                side.push(put(due, &next));
            }
        }
        let committed = self.commit_sealed(slot, loaded, events, |_, _| side).await;
        if committed.is_err() {
            for (ck, c) in before {
                loaded.record.clocks.insert(ck, c);
            }
        }
        committed.map(drop)
    }

    /// Change the clocks (host; a seat may only take its own vacation).
    pub async fn clock_action(&self, game: &str, claims: &Claims, req: Value) -> Result<Value> {
        let action: ClockAction = serde_json::from_value(req).map_err(|e| {
            ServiceError::BadRequest(format!(
                "not a clock action ({}); send {{\"action\": \"pause\"|\"resume\"|\"extend\"|\"set_policy\"|\"vacation\"|\"back\", ...}}",
                super::in_words(&e.to_string())
            ))
        })?;
        let actor = match (claims.role, &action) {
            (Role::Host, _) => Actor::Host,
            (Role::Seat, ClockAction::Vacation { seat, .. } | ClockAction::Back { seat })
                if claims.seat == Some(*seat) =>
            {
                Actor::Seat(*seat)
            }
            _ => {
                return Err(ServiceError::Forbidden(
                    "only the host can change the clocks (a seat may take its own vacation, or say it is back)".into(),
                ))
            }
        };
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        let t = loaded.table.clone();
        if t.is_over() {
            return Err(runestone_engine::KernelError::GameOver.into());
        }
        let now = self.now();
        let policy = Policy::parse(&t.clock.policy).ok().flatten();
        let mut record = loaded.record.clone();
        if let ClockAction::Pause { reason } | ClockAction::Extend { reason, .. } = &action {
            crate::limits::text("the reason", reason, crate::limits::TEXT_MAX).map_err(ServiceError::BadRequest)?;
        }
        let (event, side) = match action {
            ClockAction::Pause { reason } => {
                if t.clock.paused.is_some() {
                    return Err(ServiceError::Unprocessable("the clocks are already paused".into()));
                }
                let mut remaining = std::collections::BTreeMap::new();
                for (k, c) in record.clocks.iter_mut() {
                    if let Some(d) = c.deadline_ms.take() {
                        remaining.insert(k.clone(), (d - now.timestamp_millis()).max(0));
                    }
                }
                (KernelEvent::Paused { reason, remaining_ms: remaining }, Vec::new())
            }
            ClockAction::Resume => {
                let Some(remaining) = t.clock.paused.clone() else {
                    return Err(ServiceError::Unprocessable("the clocks are not paused".into()));
                };
                let mut side = Vec::new();
                if let Some(pol) = &policy {
                    for p in t.pending().into_iter().filter(|p| !p.submitted) {
                        let k = clock_key(p.seat, &p.kind);
                        let left = remaining
                            .get(&k)
                            .map_or_else(|| hours(pol.hours(p.class)), |ms| chrono::Duration::milliseconds(*ms));
                        let deadline = now + left;
                        let since = record.clocks.get(&k).map_or(t.head, |c| c.since);
                        record.clocks.insert(k, Clock { since, deadline_ms: Some(deadline.timestamp_millis()) });
                        side.extend(self.deadline_entries(&t.game_id, &p, since, deadline, pol));
                    }
                }
                (KernelEvent::Resumed, side)
            }
            ClockAction::Extend { seat, hours: h, until, reason } => {
                if reason.trim().is_empty() {
                    return Err(ServiceError::Unprocessable("an extension needs a reason".into()));
                }
                if let Some(s) = seat {
                    if s as usize >= t.seats() {
                        return Err(ServiceError::Unprocessable(format!("there is no seat {s}")));
                    }
                }
                let side = match (h, &until) {
                    (Some(h), None) if (1..=24 * 90).contains(&h) => {
                        self.move_deadlines(&t, &mut record, seat, |d| d + chrono::Duration::hours(h))
                    }
                    (None, Some(u)) => {
                        let u = future(u, now, "until")?;
                        self.move_deadlines(&t, &mut record, seat, |_| u)
                    }
                    _ => {
                        return Err(ServiceError::Unprocessable(
                            "give either \"hours\" (1 to 2160) or \"until\" (a future time), not both".into(),
                        ))
                    }
                };
                (KernelEvent::Extended { seat, hours: h, until, reason }, side)
            }
            ClockAction::SetPolicy { policy } => {
                let p = Policy::parse(&policy).map_err(ServiceError::Unprocessable)?;
                let value = p.map(|p| serde_json::to_value(p).expect("JSON")).unwrap_or(Value::Null);
                (KernelEvent::DeadlinePolicySet { policy: value }, Vec::new())
            }
            ClockAction::Vacation { seat, until } => {
                if seat as usize >= t.seats() {
                    return Err(ServiceError::Unprocessable(format!("there is no seat {seat}")));
                }
                let u = future(&until, now, "until")?;
                let away = u - now;
                let side = self.move_deadlines(&t, &mut record, Some(seat), |d| d + away);
                (KernelEvent::VacationTaken { seat, from: stamp(now), until: stamp(u) }, side)
            }
            ClockAction::Back { seat } => {
                if seat as usize >= t.seats() {
                    return Err(ServiceError::Unprocessable(format!("there is no seat {seat}")));
                }
                if t.clock.forfeited.get(seat as usize).copied().unwrap_or(false) {
                    return Err(ServiceError::Unprocessable(format!(
                        "seat {seat} forfeited; the host may seat a substitute in it"
                    )));
                }
                if !policy.as_ref().is_some_and(|p| p.bot_plays(t.clock.timeouts[seat as usize])) {
                    return Err(ServiceError::Unprocessable(format!(
                        "the bot does not play seat {seat}: its player plays it already"
                    )));
                }
                // What the bot was about to take at once waits for the
                // player again, with its full time.
                let mut side = Vec::new();
                if let Some(pol) = &policy {
                    for p in t.pending().into_iter().filter(|p| p.seat == seat && !p.submitted) {
                        let k = clock_key(p.seat, &p.kind);
                        let deadline = now + hours(pol.hours(p.class));
                        let since = record.clocks.get(&k).map_or(t.head, |c| c.since);
                        record.clocks.insert(k, Clock { since, deadline_ms: Some(deadline.timestamp_millis()) });
                        side.extend(self.deadline_entries(&t.game_id, &p, since, deadline, pol));
                    }
                }
                (KernelEvent::SeatReturned { seat }, side)
            }
        };
        loaded.record = record;
        let events = self.commit(&slot, loaded, vec![Draft::kernel(actor, event)], |_, _| side).await?;
        Ok(serde_json::json!({ "head": loaded.table.head, "event": events[0].body, "clocks": loaded.record.clocks }))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    #[test]
    fn spans_and_a_policys_times_read_in_words() {
        assert_eq!(super::span_words(0), "0 minutes");
        assert_eq!(super::span_words(61), "1 hour 1 minute");
        assert_eq!(super::span_words(120), "2 hours");
        assert_eq!(super::span_words(3 * 1440 + 4 * 60 + 5), "3 days 4 hours");
        assert_eq!(super::span_words(1440), "1 day");
        let p = super::Policy::parse(&serde_json::json!({
            "plan_hours": 24, "turn_hours": 48, "small_hours": 12, "reminders_hours": [2, 6]
        }))
        .unwrap()
        .unwrap();
        assert_eq!(
            p.time_words(),
            "A secret plan may take 24 hours, a turn 2 days and a small decision 12 hours; reminders 6 hours, 2 hours before."
        );
    }

    use futures_util::FutureExt;
    use runestone_engine::Envelope;
    use serde_json::json;

    use super::*;
    use crate::auth::{Claims, Role};
    use crate::clock::{Clock as _, ManualClock};
    use crate::deadlines::Scheduler;
    use crate::store::memory::MemoryStore;
    use crate::store::{BoxFut, EventStore, GameId, StoreResult, Write};

    /// A memory store that says several nodes share it, and that can hold
    /// one write (an append, or a put of side records) back and let it land
    /// right after the next read of a game's record: another node's write
    /// coming between a node's read of the record and its read of the log,
    /// or its own write.
    #[derive(Default)]
    struct Shared {
        inner: MemoryStore,
        hold: Mutex<bool>,
        held: Mutex<Option<Held>>,
    }

    enum Held {
        Append(Write),
        Put(Vec<SideWrite>),
    }

    impl EventStore for Shared {
        fn append(&self, write: Write) -> BoxFut<'_, StoreResult<()>> {
            if std::mem::take(&mut *self.hold.lock().unwrap()) {
                *self.held.lock().unwrap() = Some(Held::Append(write));
                return Box::pin(async { Ok(()) });
            }
            self.inner.append(write)
        }
        fn head(&self, game: &str) -> StoreResult<Option<u64>> {
            self.inner.head(game)
        }
        fn load(&self, game: &str, from: u64, to: Option<u64>) -> StoreResult<Vec<Envelope>> {
            self.inner.load(game, from, to)
        }
        fn get(&self, side: Side, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
            let got = self.inner.get(side, key);
            if side == Side::Games {
                let landed = match self.held.lock().unwrap().take() {
                    Some(Held::Append(w)) => self.inner.append(w),
                    Some(Held::Put(w)) => self.inner.put(w),
                    None => Box::pin(async { Ok(()) }),
                };
                landed.now_or_never().expect("the memory store answers at once").expect("the held write lands");
            }
            got
        }
        fn scan(&self, side: Side, prefix: &[u8], limit: usize) -> StoreResult<Vec<(Vec<u8>, Vec<u8>)>> {
            self.inner.scan(side, prefix, limit)
        }
        fn put(&self, writes: Vec<SideWrite>) -> BoxFut<'_, StoreResult<()>> {
            if std::mem::take(&mut *self.hold.lock().unwrap()) {
                *self.held.lock().unwrap() = Some(Held::Put(writes));
                return Box::pin(async { Ok(()) });
            }
            self.inner.put(writes)
        }
        fn put_snapshot(&self, game: &str, seq: u64, snapshot: &[u8]) -> StoreResult<()> {
            self.inner.put_snapshot(game, seq, snapshot)
        }
        fn snapshot_at_or_before(&self, game: &str, seq: u64) -> StoreResult<Option<(u64, Vec<u8>)>> {
            self.inner.snapshot_at_or_before(game, seq)
        }
        fn games(&self, after: Option<&str>, limit: usize) -> StoreResult<Vec<GameId>> {
            self.inner.games(after, limit)
        }
        fn shared(&self) -> bool {
            true
        }
        fn close(&self) -> StoreResult<()> {
            self.inner.close()
        }
    }

    /// Nodes of one service sharing `store`, on one clock.
    fn nodes(store: &Arc<Shared>, clock: &Arc<ManualClock>) -> impl Fn() -> Arc<Service> {
        let (store, clock) = (store.clone(), clock.clone());
        move || Arc::new(crate::service::test_service(store.clone(), clock.clone(), 64, 1 << 20))
    }

    /// Two nodes on one store. Ása stops her mail on node A; her choice
    /// lands while node B, which read the game's record before it, records
    /// Bjarni's bid (the bid that makes her the one to move). B wrote the
    /// record it derived from its older read, with her mail still on, and
    /// mailed her: her "stop mailing me" was silently undone. A record that
    /// changed since a node read it now refuses that node's write, which
    /// carries the newer preferences over and is made again.
    #[tokio::test]
    async fn a_players_mail_preferences_are_not_undone_by_another_nodes_append() {
        // Given a game on two nodes, in which Ása has bid and Bjarni has not,
        let store = Arc::new(Shared::default());
        let clock = Arc::new(ManualClock::new("2026-03-02T09:00:00Z".parse().unwrap()));
        let node = nodes(&store, &clock);
        let (a, b) = (node(), node());
        let created = a
            .create(
                json!({"ruleset": "duel", "options": {"rounds": 3},
                       "seats": [{"name": "Ása", "email": "asa@example.org"},
                                 {"name": "Bjarni", "email": "bjarni@example.org"}]}),
                None,
            )
            .await
            .expect("create")
            .body;
        let game = created["game_id"].as_str().expect("a game id").to_owned();
        let bid = |n: u32| json!({"command": {"type": "Bid", "amount": n}});
        a.submit(&game, &seat(&game, 0), bid(3), None).await.expect("Ása bids");
        let mailed_to_asa = || -> Vec<String> {
            let outbox = store.scan(Side::Outbox, b"", 1000).expect("outbox");
            outbox
                .iter()
                .map(|(_, v)| crate::mail::decode(v).expect("an outbox record reads back"))
                .filter(|m| m.to == "asa@example.org")
                .map(|m| m.kind)
                .collect()
        };
        let before = mailed_to_asa();
        // when Ása stops her mail on node A, and her change lands while node
        // B, having read the record, records Bjarni's bid,
        *store.hold.lock().unwrap() = true;
        a.set_mail_preferences(&game, 0, Some(false), None, None).await.expect("Ása stops her mail");
        assert!(store.held.lock().unwrap().is_some(), "Ása's change is held back");
        b.submit(&game, &seat(&game, 1), bid(2), None).await.expect("Bjarni bids on node B");
        assert!(store.held.lock().unwrap().is_none(), "Ása's change landed during node B's command");
        // then her choice stands on every node,
        for n in [&a, &b, &node()] {
            let (mail, _, _) = n.mail_preferences(&game, 0).await.expect("preferences");
            assert!(!mail, "Ása's \"stop mailing me\" is kept");
        }
        // she was not mailed for the move the bid made hers,
        let summary = node().summary(&game).await.expect("summary");
        assert!(summary.to_string().contains("claim"), "Ása is to claim now: {summary}");
        assert_eq!(mailed_to_asa(), before, "no mail to Ása after she stopped it");
        // and what node B recorded stands too: the bid, and Bjarni's mail state.
        assert_eq!(summary["head"], b.summary(&game).await.expect("summary")["head"]);
        let (mail, _, _) = node().mail_preferences(&game, 1).await.expect("preferences");
        assert!(mail, "Bjarni's mail is on as he left it");
    }

    fn seat(game: &str, seat: u8) -> Claims {
        Claims { sub: game.into(), role: Role::Seat, seat: Some(seat), gen: 0, iat: 0, exp: i64::MAX }
    }

    /// Two nodes on one store. Seat 1's bid ends the bidding while node B
    /// reads the game: B read the record before the bid and the log after
    /// it. B took that record for the new position's, so it saw no clock for
    /// seat 0's new decision (its claim), removed its due entry as stale and
    /// never acted on it, and showed deadlines of the older position (the
    /// game then waited for ever): a stall once seen in the two-node
    /// PostgreSQL test under load.
    #[tokio::test]
    async fn a_node_never_takes_a_record_older_than_its_position_and_drops_a_live_deadline() {
        let store = Arc::new(Shared::default());
        let clock = Arc::new(ManualClock::new("2026-03-02T09:00:00Z".parse().unwrap()));
        let node = nodes(&store, &clock);
        let (a, b) = (node(), node());
        let policy = json!({"plan_hours": 24, "turn_hours": 24, "small_hours": 12, "grace_hours": 6});
        let created = a
            .create(
                json!({"ruleset": "duel", "options": {"rounds": 3}, "deadlines": policy,
                       "seats": [{"name": "Ása"}, {"name": "Bjarni"}]}),
                None,
            )
            .await
            .expect("create")
            .body;
        let game = created["game_id"].as_str().expect("a game id").to_owned();
        clock.advance(chrono::Duration::hours(1));
        let bid = |n: u32| json!({"command": {"type": "Bid", "amount": n}});
        a.submit(&game, &seat(&game, 0), bid(3), None).await.expect("seat 0 bids");
        *store.hold.lock().unwrap() = true;
        a.submit(&game, &seat(&game, 1), bid(2), None).await.expect("seat 1 bids");
        assert!(store.held.lock().unwrap().is_some(), "seat 1's bid is held back");
        let seen = b.summary(&game).await.expect("node B reads the game");
        assert!(store.held.lock().unwrap().is_none(), "seat 1's bid landed during node B's read");
        let fresh = node().summary(&game).await.expect("a third node reads the game");
        assert_eq!(seen["head"], fresh["head"]);
        assert_eq!(
            seen["deadlines"]["due"], fresh["deadlines"]["due"],
            "node B's deadlines are those of the position it shows"
        );

        // Both seats' deadlines pass; node B's scheduler acts on them.
        clock.advance(chrono::Duration::hours(25));
        let scheduler = Scheduler { service: b.clone(), poll: Duration::from_millis(10) };
        assert!(scheduler.tick().await > 0, "due entries are acted on");
        scheduler.tick().await;
        let graced: Vec<(u8, String)> = store
            .load(&game, 0, None)
            .expect("load")
            .iter()
            .filter_map(|e| match e.kernel() {
                Some(KernelEvent::GraceGranted { seat, kind, .. }) => Some((*seat, kind.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(graced, vec![(0, "claim".to_owned())], "seat 0's missed claim is acted on, once");
        let now = clock.now();
        let after = a.summary(&game).await.expect("summary");
        for d in after["deadlines"]["due"].as_array().expect("deadlines") {
            let due: DateTime<Utc> = d["due"].as_str().expect("a time").parse().expect("a time");
            assert!(due > now, "a deadline is owed and not acted on: {after}");
        }
    }
}
