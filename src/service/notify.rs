//! Who is told what, and when: notifications are decided here when events
//! are appended, rendered at once, and written into the outbox in the same
//! atomic write as the events (see [`crate::mail`]).
//!
//! A player is mailed only when a decision becomes newly pending for them
//! (not on every event), when the game ends, and on their invitation.
//!
//! Mail goes at the pace of the game: at most one mail per seat per wait. A
//! seat's mail is due `Options::mail_gather` after the decision that starts
//! it, and no sooner than that after the seat's previous mail; until it is
//! due it *gathers* ([`Gathering`]): a decision that reaches the seat
//! meanwhile is told in the same mail (the record is rewritten under the
//! same outbox key, with the same id), and its recap runs from the event
//! after the seat's previous mail. A gathering mail is withdrawn when
//! nothing is asked of the seat any more (it answered on its page first),
//! and what it would have told is told by the next one. The gathering is
//! kept in the game's record and the mail in the outbox, both written in the
//! same atomic write as the events: nothing is lost across a restart.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use runestone_engine::{Table, Viewer};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::deadlines::newly_pending;
use super::{GameRecord, HostSpec, Result, Service};
use crate::auth::Role;
use crate::mail::{mail_id, queue_key, Mail};
use crate::store::{Side, SideWrite};

/// An IANA time zone, or a clear error.
pub fn parse_tz(tz: &str) -> std::result::Result<chrono_tz::Tz, String> {
    tz.parse::<chrono_tz::Tz>().map_err(|_| {
        format!("{tz:?} is not a time zone; use an IANA name such as \"Europe/Oslo\" or \"America/New_York\"")
    })
}

/// When the next daily digest is due: 08:00 in the reader's time zone.
pub fn next_digest_time(now: DateTime<Utc>, tz: Option<&str>) -> DateTime<Utc> {
    use chrono::TimeZone;
    let z = tz.and_then(|z| parse_tz(z).ok()).unwrap_or(chrono_tz::UTC);
    let local = now.with_timezone(&z);
    let mut day = local.date_naive();
    if local.time() >= chrono::NaiveTime::from_hms_opt(8, 0, 0).expect("08:00") {
        day = day.succ_opt().expect("a next day");
    }
    let eight = day.and_hms_opt(8, 0, 0).expect("08:00");
    z.from_local_datetime(&eight).earliest().map_or(now + chrono::Duration::hours(24), |t| t.with_timezone(&Utc))
}

/// A seat's mail that gathers what reaches the seat until it is due.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Gathering {
    /// When it leaves (ms since the epoch) and its id: its outbox key.
    pub due_ms: i64,
    pub id: String,
    /// The first event it tells of.
    pub from: u64,
    /// The seat's `last_mail_ms` before it, put back if it is withdrawn.
    pub before_ms: i64,
    /// Whether it waits among the held mail of a game whose host has not
    /// confirmed their address.
    #[serde(default)]
    pub held: bool,
}

impl Gathering {
    /// The outbox write that withdraws it.
    fn withdraw(&self, game: &str) -> SideWrite {
        let key = if self.held {
            crate::mail::held_key(game, self.due_ms, &self.id)
        } else {
            queue_key(self.due_ms, &self.id)
        };
        SideWrite { side: Side::Outbox, key, value: None }
    }
}

/// The game's missed-deadline ladder in words; none without deadlines.
pub(crate) fn ladder_words(table: &Table) -> Option<String> {
    super::Policy::parse(&table.clock.policy).ok().flatten().map(|p| p.ladder_words())
}

/// An outbox record due at `due`.
fn outbox_write(due: DateTime<Utc>, mail: &Mail) -> SideWrite {
    SideWrite {
        side: Side::Outbox,
        key: queue_key(due.timestamp_millis(), &mail.id),
        value: Some(crate::mail::encode(mail)),
    }
}

/// The outbox record of a game's `mail` due at `due`: queued, or held while
/// the game's host has not confirmed their address (`GameRecord::mail_held`).
pub(super) fn game_mail_write(record: &GameRecord, due: DateTime<Utc>, mail: &Mail) -> SideWrite {
    if record.mail_held {
        SideWrite {
            side: Side::Outbox,
            key: crate::mail::held_key(&mail.game, due.timestamp_millis(), &mail.id),
            value: Some(crate::mail::encode(mail)),
        }
    } else {
        outbox_write(due, mail)
    }
}

/// A time as a reader in `tz` reads it ("Tue 24 Nov 18:00 GMT").
pub fn local_time(t: DateTime<Utc>, tz: Option<&str>) -> String {
    match tz.and_then(|z| parse_tz(z).ok()) {
        Some(z) => t.with_timezone(&z).format("%a %-d %b %H:%M %Z").to_string(),
        None => t.format("%a %-d %b %H:%M UTC").to_string(),
    }
}

/// What a reminder tells: the deadline ahead (due this long before it), or
/// the one extension after a missed deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Notice {
    Before(chrono::Duration),
    Extension,
}

impl Notice {
    /// The number a reminder's id is made from: its decision (pending
    /// since `since`), the deadline it tells of, and which notice of that
    /// deadline it is. The reminders 12 and 2 hours before one deadline are
    /// two messages with two ids (a mail service drops a repeated
    /// Message-ID), and a scheduler that fell behind writes a reminder and
    /// the extension after it at one moment: two messages too. The same
    /// reminder written again (after a crash) keeps its id.
    pub(crate) fn id_seq(self, since: u64, deadline: DateTime<Utc>) -> u64 {
        let base = since.wrapping_mul(1_000_003).wrapping_add(deadline.timestamp_millis() as u64).wrapping_mul(2);
        match self {
            Notice::Extension => base.wrapping_add(1),
            Notice::Before(lead) => base.wrapping_mul(1_000_003).wrapping_add(lead.num_milliseconds() as u64),
        }
    }
}

impl Service {
    pub(super) fn game_name(&self, table: &Table) -> String {
        self.registry().get(&table.created.ruleset).map_or_else(|| table.created.ruleset.clone(), |g| g.info().name)
    }

    fn mail_links(&self, game: &str, seat: u8) -> (String, String) {
        let data = format!("{game}/{seat}");
        let base = self.options.public_url.trim_end_matches('/');
        let unsub = self.keys().link_signature("unsubscribe", &data);
        let prefs = self.keys().link_signature("preferences", &data);
        (format!("{base}/mail/unsubscribe/{data}/{unsub}"), format!("{base}/mail/preferences/{data}/{prefs}"))
    }

    /// The table's game's short "how to play here" page, if it has one.
    fn rules_link(&self, table: &Table) -> Option<String> {
        let ruleset = table.created.ruleset.as_str();
        let page = self.registry().get(ruleset).and_then(|g| g.rules_page());
        page.map(|_| format!("{}/rules/{ruleset}", self.options.public_url.trim_end_matches('/')))
    }

    pub(super) fn seat_link(&self, table: &Table, seat: u8) -> String {
        let gen = table.generations.get(seat as usize).copied().unwrap_or(0);
        let token = self.keys().issue(&table.game_id, Role::Seat, Some(seat), gen, self.now());
        self.link(&table.game_id, &token)
    }

    /// Render one mail to a seat into an outbox write, due now. `cause` is
    /// the seq of the first event that caused it and the template's kind.
    fn seat_mail(
        &self,
        table: &Table,
        record: &GameRecord,
        seat: u8,
        cause: (u64, &str),
        subject: String,
        ctx: Value,
    ) -> Option<SideWrite> {
        let mail = self.render_seat_mail(table, record, seat, cause, subject, ctx)?;
        Some(game_mail_write(record, self.now(), &mail))
    }

    /// Withdraw `seat`'s gathering mail if it is not sent yet (due later
    /// than now): the seat's record is put back as it was before that mail.
    /// A gathering already due is forgotten (it is sent, or being sent).
    pub(crate) fn withdraw_gathering(&self, game: &str, record: &mut GameRecord, seat: u8) -> Option<SideWrite> {
        let s = record.seats.get_mut(seat as usize)?;
        let g = s.gathering.take()?;
        if g.due_ms <= self.now().timestamp_millis() {
            return None;
        }
        s.told_up_to = g.from.saturating_sub(1);
        s.last_mail_ms = g.before_ms;
        Some(g.withdraw(game))
    }

    /// `seat`'s gathering mail if it is not sent yet.
    fn unsent(&self, record: &GameRecord, seat: u8) -> Option<Gathering> {
        let g = record.seats.get(seat as usize)?.gathering.clone()?;
        (g.due_ms > self.now().timestamp_millis()).then_some(g)
    }

    /// The earliest deadline of `seat`'s open decisions.
    fn seat_deadline(record: &GameRecord, seat: u8) -> Option<DateTime<Utc>> {
        let prefix = format!("{seat}/");
        record
            .clocks
            .iter()
            .filter(|(k, _)| k.starts_with(&prefix))
            .filter_map(|(_, c)| c.deadline_ms)
            .min()
            .and_then(DateTime::from_timestamp_millis)
    }

    /// What a seat's mail of its move tells: what is asked of it, by when,
    /// and what happened since event `from`. Everything a mail of the game
    /// tells a seat between its moves is added here.
    fn move_context(
        &self,
        after: &Table,
        record: &GameRecord,
        seat: u8,
        from: u64,
        stored_head: u64,
        events: &[runestone_engine::Envelope],
    ) -> Result<(String, Value)> {
        let tz = record.seats.get(seat as usize).and_then(|s| s.tz.clone());
        let prompt = Self::prompt_of(after, seat).unwrap_or_default();
        let deadline = Self::seat_deadline(record, seat).map(|d| local_time(d, tz.as_deref()));
        let recap = self.recap(after, seat, from, stored_head, events)?;
        let ctx = json!({ "prompt": prompt, "recap": recap.lines, "more": recap.more, "deadline": deadline });
        Ok((prompt, ctx))
    }

    /// `seat`'s mail of its move, gathering until it is due: the unsent one
    /// rewritten in place, or a new one.
    fn gather_move_mail(
        &self,
        before: &Table,
        after: &Table,
        events: &[runestone_engine::Envelope],
        record: &mut GameRecord,
        seat: u8,
    ) -> Result<Option<SideWrite>> {
        let Some(s) = record.seats.get(seat as usize) else { return Ok(None) };
        if !s.told() {
            return Ok(None);
        }
        let now = self.now().timestamp_millis();
        let gather = self.options.mail_gather.num_milliseconds().max(0);
        let g = match self.unsent(record, seat) {
            Some(g) => g,
            None => Gathering {
                due_ms: (now + gather).max(s.last_mail_ms + gather),
                id: mail_id(&after.game_id, before.head + 1, &seat.to_string(), "your_move"),
                from: s.told_up_to + 1,
                before_ms: s.last_mail_ms,
                held: record.mail_held,
            },
        };
        let (prompt, ctx) = self.move_context(after, record, seat, g.from, before.head, events)?;
        let subject = format!("{}: {}", self.game_name(after), prompt);
        let Some(mut mail) = self.render_seat_mail(after, record, seat, (before.head + 1, "your_move"), subject, ctx)
        else {
            return Ok(None);
        };
        mail.id = g.id.clone();
        let key =
            if g.held { crate::mail::held_key(&after.game_id, g.due_ms, &g.id) } else { queue_key(g.due_ms, &g.id) };
        let s = &mut record.seats[seat as usize];
        s.told_up_to = after.head;
        s.last_mail_ms = g.due_ms;
        s.gathering = Some(g);
        Ok(Some(SideWrite { side: Side::Outbox, key, value: Some(crate::mail::encode(&mail)) }))
    }

    /// Render one mail to a seat, if it has an address and wants mail or
    /// has a webhook: the mail carries the webhook's notice, split from it
    /// in the store write (`mail::split_channels`); `to` is empty when the
    /// seat gets no mail.
    pub(super) fn render_seat_mail(
        &self,
        table: &Table,
        record: &GameRecord,
        seat: u8,
        cause: (u64, &str),
        subject: String,
        mut ctx: Value,
    ) -> Option<Mail> {
        let (seq, kind) = cause;
        let s = record.seats.get(seat as usize)?;
        if !s.told() {
            return None;
        }
        let to = s.email.clone().filter(|_| s.mail).unwrap_or_default();
        let hook = self.seat_hook(&table.game_id, s.webhook.as_ref(), seat, &ctx);
        let push = self.seat_push(&table.game_id, s.push.as_ref(), seat, &ctx);
        let (unsubscribe, preferences) = self.mail_links(&table.game_id, seat);
        if let Value::Object(m) = &mut ctx {
            m.insert("name".into(), json!(s.name));
            m.insert("game_name".into(), json!(self.game_name(table)));
            m.insert("game_id".into(), json!(table.game_id));
            m.insert("link".into(), json!(self.seat_link(table, seat)));
            m.insert("unsubscribe".into(), json!(unsubscribe));
            m.insert("preferences".into(), json!(preferences));
            m.insert("table".into(), self.table_words(table, seat));
            m.insert("host".into(), json!(record.host.as_ref().map(|h| h.name.clone())));
            m.insert("rules".into(), json!(self.rules_link(table)));
            m.insert("ladder".into(), json!(ladder_words(table)));
        }
        // A mail that asks a decision may be answered by replying to it.
        let reply = matches!(kind, "invitation" | "your_move" | "reminder")
            .then(|| self.reply_form(table, record, seat))
            .flatten();
        if let (Value::Object(m), Some((_, form))) = (&mut ctx, &reply) {
            m.insert("orders".into(), form.clone());
        }
        let (text, html) = self.templates.render(kind, &ctx);
        let mail = Mail {
            id: mail_id(&table.game_id, seq, &seat.to_string(), kind),
            game: table.game_id.clone(),
            kind: kind.to_owned(),
            to_name: s.name.clone(),
            to,
            subject,
            text,
            html,
            unsubscribe: Some(unsubscribe),
            attempts: 0,
            last_error: None,
            reply_to: reply.map(|(address, _)| address),
            hook,
            push,
        };
        Some(mail)
    }

    /// The table as a mail tells it to `seat`: round, phase and the
    /// standings from the seat's own view (what the game's table header
    /// shows on the page), and the seat's colour; names alone when the game
    /// has no header.
    fn table_words(&self, table: &Table, seat: u8) -> Value {
        let names = &table.created.seats;
        let header = self
            .registry()
            .get(&table.created.ruleset)
            .and_then(|g| g.header(&table.view(Viewer::Seat(seat)), names).filter(|h| h.check(names.len()).is_ok()));
        let rows: Vec<Value> = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let row = header.as_ref().and_then(|h| h.standings.get(i));
                json!({
                    "name": name,
                    "me": i == seat as usize,
                    "colour": row.and_then(|r| r.colour.clone()),
                    "score": row.and_then(|r| r.score),
                })
            })
            .collect();
        let colour = rows.get(seat as usize).and_then(|r| r["colour"].as_str().map(str::to_owned));
        json!({
            "round": header.as_ref().and_then(|h| h.round).map(|r| format!("round {} of {}", r.now, r.of)),
            "phase": header.as_ref().and_then(|h| h.phase.clone()),
            "score": header.as_ref().map(|h| h.score.clone()).filter(|s| !s.is_empty()),
            "standings": rows,
            "colour": colour,
        })
    }

    fn prompt_of(table: &Table, seat: u8) -> Option<String> {
        let prompts: Vec<String> = table.pending().into_iter().filter(|p| p.seat == seat).map(|p| p.prompt).collect();
        (!prompts.is_empty()).then(|| prompts.join("; "))
    }

    /// Invitations for a new game: each seat with an address gets its link
    /// and what is asked of it first.
    pub(crate) fn invitations(
        &self,
        table: &Table,
        record: &mut GameRecord,
        dues: &BTreeMap<u8, DateTime<Utc>>,
    ) -> Vec<SideWrite> {
        let mut out = Vec::new();
        for seat in 0..table.seats() as u8 {
            let others: Vec<&String> =
                table.created.seats.iter().enumerate().filter(|(i, _)| *i != seat as usize).map(|(_, n)| n).collect();
            let deadline = dues.get(&seat).map(|d| local_time(*d, record.seats[seat as usize].tz.as_deref()));
            let ctx = json!({ "prompt": Self::prompt_of(table, seat), "others": others, "deadline": deadline });
            let subject = format!("Your seat in {}", self.game_name(table));
            out.extend(self.seat_mail(table, record, seat, (0, "invitation"), subject, ctx));
            record.seats[seat as usize].told_up_to = table.head;
            record.seats[seat as usize].last_mail_ms = self.now().timestamp_millis();
        }
        out
    }

    /// The mail that appending up to `after` causes, and the record's update.
    pub(crate) fn notifications(
        &self,
        before: &Table,
        after: &Table,
        events: &[runestone_engine::Envelope],
        dues: &BTreeMap<u8, DateTime<Utc>>,
        record: &mut GameRecord,
    ) -> Result<Vec<SideWrite>> {
        let mut out = Vec::new();
        let first_new = before.head + 1;
        if after.is_over() && !before.is_over() {
            let outcome = after.outcome().expect("over");
            let mut seats: Vec<Value> = outcome
                .ranking
                .iter()
                .map(|&s| json!({ "name": after.created.seats[s as usize], "score": outcome.scores[s as usize] }))
                .collect();
            seats.truncate(after.seats());
            let replay = format!("{}/games/{}?at=1", self.options.public_url.trim_end_matches('/'), after.game_id);
            let gather = self.options.mail_gather.num_milliseconds().max(0);
            for seat in 0..after.seats() as u8 {
                // The end is the last mail: one gathering is withdrawn, and
                // the end keeps its distance from the seat's mail before.
                out.extend(self.withdraw_gathering(&after.game_id, record, seat));
                let place = outcome.ranking.iter().position(|&r| r == seat).map_or(0, |p| p + 1);
                let yours = super::your_result(
                    place,
                    outcome.ranking.len(),
                    outcome.winners.contains(&seat),
                    outcome.winners.len(),
                );
                let ctx = json!({
                    "summary": outcome.summary,
                    "yours": yours,
                    "seats": seats,
                    "seed": after.seed_revealed,
                    "replay": replay,
                });
                let subject = format!("{} is over: {}", self.game_name(after), outcome.summary);
                let s = &mut record.seats[seat as usize];
                let due = self.now().timestamp_millis().max(s.last_mail_ms + gather);
                s.last_mail_ms = due;
                let due = DateTime::from_timestamp_millis(due).unwrap_or_else(|| self.now());
                if let Some(mail) = self.render_seat_mail(after, record, seat, (first_new, "game_over"), subject, ctx) {
                    out.push(game_mail_write(record, due, &mail));
                }
                record.seats[seat as usize].told_up_to = after.head;
            }
            out.extend(self.channel_notices(before, after, record));
            return Ok(out);
        }
        out.extend(self.channel_notices(before, after, record));
        let newly: BTreeSet<u8> = newly_pending(Some(before), after).into_iter().map(|p| p.seat).collect();
        // Unsent mails of seats asked nothing any more are withdrawn; those
        // of seats whose question changed are told again.
        let asked: BTreeSet<u8> = after.pending().into_iter().filter(|p| !p.submitted).map(|p| p.seat).collect();
        let mut again = BTreeSet::new();
        for seat in 0..after.seats() as u8 {
            if self.unsent(record, seat).is_none() {
                continue;
            }
            if !asked.contains(&seat) {
                out.extend(self.withdraw_gathering(&after.game_id, record, seat));
            } else if !newly.contains(&seat) && Self::prompt_of(before, seat) != Self::prompt_of(after, seat) {
                again.insert(seat);
            }
        }
        // A seat that decided and is still asked something (the same kind
        // of decision again, or one it owed already) is mailed too, once the
        // gathering time passed without its answer: it may have left the
        // page.
        let acted: BTreeSet<u8> = events
            .iter()
            .filter_map(|e| match (e.actor, &e.decision) {
                (runestone_engine::Actor::Seat(s), Some(_)) => Some(s),
                _ => None,
            })
            .collect();
        for seat in acted {
            let digest = record.seats.get(seat as usize).is_none_or(|s| s.digest);
            if asked.contains(&seat) && !newly.contains(&seat) && !digest && self.unsent(record, seat).is_none() {
                again.insert(seat);
            }
        }
        for seat in again {
            out.extend(self.gather_move_mail(before, after, events, record, seat)?);
        }
        for seat in newly {
            let Some(s) = record.seats.get(seat as usize) else { continue };
            if !s.told() {
                continue;
            }
            let prompt = Self::prompt_of(after, seat).unwrap_or_default();
            let deadline = dues.get(&seat).map(|d| local_time(*d, s.tz.as_deref()));
            if s.digest {
                // One mail a day: today's digest is rewritten with all that
                // happened since the last one was due.
                let due = next_digest_time(self.now(), s.tz.as_deref());
                let day = due.format("%Y-%m-%d").to_string();
                let from = if s.digest_day.as_deref() == Some(day.as_str()) { s.digest_from } else { s.told_up_to + 1 };
                let recap = self.recap(after, seat, from, before.head, events)?;
                let ctx = json!({ "prompt": prompt, "recap": recap.lines, "more": recap.more, "deadline": deadline });
                let subject = format!("Daily digest — {}: {}", self.game_name(after), prompt);
                let cause = (due.timestamp_millis() as u64, "your_move");
                if let Some(mut mail) = self.render_seat_mail(after, record, seat, cause, subject, ctx) {
                    mail.kind = "digest".into();
                    out.push(game_mail_write(record, due, &mail));
                }
                let s = &mut record.seats[seat as usize];
                s.digest_day = Some(day);
                s.digest_from = from;
                s.told_up_to = after.head;
                continue;
            }
            out.extend(self.gather_move_mail(before, after, events, record, seat)?);
        }
        Ok(out)
    }

    /// A reminder before `deadline`, or the news of an extension.
    pub(crate) fn reminder(
        &self,
        t: &Table,
        record: &GameRecord,
        seat: u8,
        since: u64,
        deadline: DateTime<Utc>,
        notice: Notice,
    ) -> Option<SideWrite> {
        let tz = record.seats.get(seat as usize)?.tz.clone();
        let prompt = Self::prompt_of(t, seat)?;
        let when = local_time(deadline, tz.as_deref());
        let subject = match notice {
            Notice::Extension => {
                format!("{}: you missed the deadline — one extension, until {when}", self.game_name(t))
            }
            Notice::Before(_) => format!("Reminder — {}: {prompt}, by {when}", self.game_name(t)),
        };
        let missed = matches!(notice, Notice::Extension);
        let ctx = json!({ "prompt": prompt, "deadline": when, "missed": missed });
        self.seat_mail(t, record, seat, (notice.id_seq(since, deadline), "reminder"), subject, ctx)
    }

    /// The news to a seat that the bot plays for it from now on (it missed
    /// `bot_after` deadlines in a row), and how to come back.
    pub(crate) fn bot_plays_mail(&self, t: &Table, record: &GameRecord, seat: u8, seq: u64) -> Option<SideWrite> {
        let missed = t.clock.timeouts.get(seat as usize).copied().unwrap_or(0);
        let subject = format!("{}: the bot plays for you until you are back", self.game_name(t));
        self.seat_mail(t, record, seat, (seq, "bot_plays"), subject, json!({ "missed": missed }))
    }

    /// An alert to the host of `game` outside any commit (the outbox worker's
    /// dead letters); empty if the game or the host's address is unknown.
    pub(crate) async fn alert_host(&self, game: &str, alert: &str) -> Option<SideWrite> {
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await.ok()?;
        let seq = loaded.table.head;
        self.host_alert(&loaded.table, &loaded.record, seq, alert)
    }

    /// An alert to the host, if the host gave an address.
    pub(crate) fn host_alert(&self, t: &Table, record: &GameRecord, seq: u64, alert: &str) -> Option<SideWrite> {
        let host = record.host.as_ref()?;
        let token = self.keys().issue(&t.game_id, Role::Host, None, t.holders.host, self.now());
        let ctx = json!({
            "name": host.name, "game_name": self.game_name(t), "game_id": t.game_id,
            "alert": alert, "link": self.link(&t.game_id, &token),
        });
        let id = mail_id(&t.game_id, seq, "host", &format!("alert:{alert}"));
        let mail =
            self.host_mail(t, host, (id, "host_alert"), format!("{} needs a look: {alert}", self.game_name(t)), &ctx);
        Some(game_mail_write(record, self.now(), &mail))
    }

    /// The host's own link, mailed to the host's address (once the address
    /// is confirmed, or at once for a game created with the instance key).
    pub(crate) fn host_link_mail(&self, t: &Table, record: &GameRecord) -> Option<SideWrite> {
        let host = record.host.as_ref()?;
        let token = self.keys().issue(&t.game_id, Role::Host, None, t.holders.host, self.now());
        let players: Vec<&str> = record.seats.iter().map(|s| s.name.as_str()).collect();
        let ctx = json!({
            "name": host.name, "game_name": self.game_name(t), "game_id": t.game_id,
            "link": self.link(&t.game_id, &token), "players": players.join(", "),
        });
        let id = mail_id(&t.game_id, 0, "host", "host_link");
        let mail =
            self.host_mail(t, host, (id, "host_link"), format!("Your host page for {}", self.game_name(t)), &ctx);
        Some(outbox_write(self.now(), &mail))
    }

    /// A mail to the game's host, rendered from the template named `kind`
    /// (the mail's kind) with `ctx`.
    fn host_mail(&self, t: &Table, host: &HostSpec, (id, kind): (String, &str), subject: String, ctx: &Value) -> Mail {
        let (text, html) = self.templates.render(kind, ctx);
        Mail {
            id,
            game: t.game_id.clone(),
            kind: kind.into(),
            to_name: host.name.clone(),
            to: host.email.clone(),
            subject,
            text,
            html,
            unsubscribe: None,
            attempts: 0,
            last_error: None,
            reply_to: None,
            hook: None,
            push: None,
        }
    }

    /// The signed link that confirms `game`'s host address.
    pub(crate) fn confirm_link(&self, game: &str) -> String {
        let sig = self.keys().link_signature("confirm", game);
        format!("{}/mail/confirm/{game}/{sig}", self.options.public_url.trim_end_matches('/'))
    }

    /// The one mail sent for a game whose host is not confirmed: to the
    /// host's address, with the link that confirms it ([`Service::confirm_host`]).
    pub(crate) fn host_confirmation(&self, t: &Table, record: &GameRecord) -> Option<SideWrite> {
        let host = record.host.as_ref()?;
        let players: Vec<&str> = record.seats.iter().map(|s| s.name.as_str()).collect();
        let ctx = json!({
            "name": host.name, "game_name": self.game_name(t), "game_id": t.game_id,
            "link": self.confirm_link(&t.game_id), "site": self.options.public_url, "players": players.join(", "),
        });
        let id = mail_id(&t.game_id, 0, "host", "confirm_host");
        let mail =
            self.host_mail(t, host, (id, "confirm_host"), format!("Confirm your game of {}", self.game_name(t)), &ctx);
        Some(outbox_write(self.now(), &mail))
    }

    /// The host confirmed their address by the mailed link: the game's
    /// held mail is queued, and mail is sent as it comes from now on.
    /// Returns how many held messages were released (0 when the game's
    /// mail was never held or is released already).
    pub async fn confirm_host(&self, game: &str) -> Result<usize> {
        super::again_on_conflict(true, || async {
            let slot = self.slot(game);
            let mut guard = self.settled(&slot).await;
            let loaded = self.loaded(game, &mut guard).await?;
            if !loaded.record.mail_held {
                return Ok(0);
            }
            let mut record = loaded.record.clone();
            record.mail_held = false;
            let now = self.now().timestamp_millis();
            let held = self.store().scan(Side::Outbox, &crate::mail::held_prefix(game), 10_000)?;
            let mut side = Vec::with_capacity(held.len() * 2 + 1);
            for (key, value) in &held {
                if let Some(queued) = crate::mail::released_key(game, key, now) {
                    side.push(SideWrite { side: Side::Outbox, key: queued, value: Some(value.clone()) });
                    side.push(SideWrite { side: Side::Outbox, key: key.clone(), value: None });
                }
            }
            // Gathering mails move with them, to the queue and due no sooner than now.
            for s in &mut record.seats {
                if let Some(g) = s.gathering.as_mut().filter(|g| g.held) {
                    g.held = false;
                    g.due_ms = g.due_ms.max(now);
                    s.last_mail_ms = s.last_mail_ms.max(g.due_ms);
                }
            }
            // Now that the address is the host's, their own link goes to it.
            side.extend(self.host_link_mail(&loaded.table, &record));
            let n = held.len();
            self.write_record(game, loaded, record, side).await?;
            tracing::info!(game, released = n, "the host confirmed their address; the game's mail is sent");
            Ok(n)
        })
        .await
    }

    /// What happened from `from` to the head, in words, as `seat` may see
    /// it: stored events up to `stored_head`, then the new `events`. Events
    /// a later rollback or undo voided are kept, marked with why they did
    /// not stand (the mail strikes them through); a long recap is shortened by [`fit_recap`], which
    /// says how much it left out.
    fn recap(
        &self,
        after: &Table,
        seat: u8,
        from: u64,
        stored_head: u64,
        events: &[runestone_engine::Envelope],
    ) -> Result<Recap> {
        let mut window = Vec::new();
        if from <= stored_head {
            window.extend(self.store().load(&after.game_id, from, Some(stored_head))?);
        }
        window.extend(events.iter().filter(|e| e.seq >= from).cloned());
        let voided = runestone_engine::table::voided(&window);
        let reader = after.created.seats.get(seat as usize).cloned().unwrap_or_default();
        let told = self.told(&after.game_id, &window)?;
        let lines: Vec<(RecapLine, bool)> = window
            .iter()
            .zip(&told)
            .enumerate()
            .map(|(i, (e, told))| {
                let text = told.for_viewer(e, Viewer::Seat(seat), false).to_owned();
                let mine = !reader.is_empty() && text.contains(&reader);
                let voided = if voided[i] { Some(voided_by(&window, i)) } else { None };
                (RecapLine { text, voided }, mine)
            })
            .collect();
        Ok(fit_recap(lines, RECAP_LINES))
    }
}

/// Why the event at `i` of `window` does not stand, in words: the first
/// later rollback or undo in the window that voided it (see
/// `runestone_engine::table::voided`).
fn voided_by(window: &[runestone_engine::Envelope], i: usize) -> String {
    use runestone_engine::log::KernelEvent;
    let seq = window[i].seq;
    window[i + 1..]
        .iter()
        .find_map(|e| match e.kernel() {
            Some(KernelEvent::RolledBack { to_seq, reason }) if seq > *to_seq => {
                Some(format!("the host rolled it back: {reason}"))
            }
            Some(KernelEvent::Undone { to_seq }) if seq > *to_seq => Some("its player took it back".to_owned()),
            _ => None,
        })
        .unwrap_or_else(|| "it was rolled back".to_owned())
}

/// How many lines a recap shows before it shortens itself.
const RECAP_LINES: usize = 40;

/// A recap as a mail tells it: its lines, and how many it left out (the
/// mail then says so, with the link to the whole log).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Recap {
    pub lines: Vec<RecapLine>,
    pub more: usize,
}

/// One line of a recap: what happened, and when a later rollback or undo
/// voided it, why (the mail strikes such a line through: it did not stand).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct RecapLine {
    pub text: String,
    pub voided: Option<String>,
}

/// Shorten a recap to about `limit` lines, never silently: every line that
/// names the reader (`.1`) is kept, then the latest others, in log order;
/// `more` counts the lines left out.
fn fit_recap(lines: Vec<(RecapLine, bool)>, limit: usize) -> Recap {
    if lines.len() <= limit {
        return Recap { lines: lines.into_iter().map(|(l, _)| l).collect(), more: 0 };
    }
    let mine = lines.iter().filter(|(_, m)| *m).count();
    let mut others_left = limit.saturating_sub(mine);
    let others_total = lines.len() - mine;
    let mut skip_others = others_total.saturating_sub(others_left);
    let mut kept = Vec::new();
    let mut more = 0;
    for (line, is_mine) in lines {
        if is_mine {
            kept.push(line);
        } else if skip_others > 0 {
            skip_others -= 1;
            more += 1;
        } else if others_left > 0 {
            others_left -= 1;
            kept.push(line);
        }
    }
    Recap { lines: kept, more }
}

impl Service {
    /// Seat a substitute (host): the old links are revoked, the new player
    /// gets an invitation and a fresh link.
    pub async fn substitute(&self, game: &str, claims: &crate::auth::Claims, seat: u8, req: Value) -> Result<Value> {
        use super::{SeatSpec, ServiceError};
        if claims.role != Role::Host {
            return Err(ServiceError::Forbidden("only the host can seat a substitute".into()));
        }
        let spec: SeatSpec = serde_json::from_value(req).map_err(|e| {
            ServiceError::BadRequest(format!(
                "a substitute needs {{\"name\": ..., \"email\": ...}}: {}",
                super::in_words(&e.to_string())
            ))
        })?;
        let name = crate::limits::name("the substitute's name", &spec.name).map_err(ServiceError::BadRequest)?;
        self.access().host_mail.take(game).map_err(|wait| {
            ServiceError::too_many("this game's host has caused as much mail as an hour allows", wait)
        })?;
        if let Some(tz) = &spec.tz {
            crate::limits::text("the substitute's time zone", tz, crate::limits::TZ_MAX)
                .map_err(ServiceError::BadRequest)?;
        }
        if let Some(e) = &spec.email {
            crate::limits::email("the substitute's email", e).map_err(ServiceError::BadRequest)?;
            if !super::plausible_email(e) {
                return Err(ServiceError::Unprocessable(format!("{e:?} is not an email address")));
            }
        }
        if let Some(tz) = &spec.tz {
            parse_tz(tz).map_err(ServiceError::Unprocessable)?;
        }
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        if loaded.table.is_over() {
            return Err(runestone_engine::KernelError::GameOver.into());
        }
        let revoke =
            loaded.table.revoke(runestone_engine::Actor::Host, seat, &format!("{name} takes over the seat"))?;
        let seated = runestone_engine::Draft::kernel(
            runestone_engine::Actor::Host,
            runestone_engine::KernelEvent::SubstituteSeated { seat, name: name.clone() },
        );
        let mut record = loaded.record.clone();
        // The former player's unsent mail is not theirs to get any more.
        let withdrawn: Vec<SideWrite> = self.withdraw_gathering(game, &mut record, seat).into_iter().collect();
        record.seats[seat as usize] =
            super::SeatRecord { name, email: spec.email, tz: spec.tz, mail: true, ..Default::default() };
        loaded.record = record;
        let events = self.commit(&slot, loaded, vec![revoke, seated], |_, _| withdrawn).await?;
        // The invitation goes out with the new generation's link.
        let t = &loaded.table;
        let ctx = json!({ "prompt": Self::prompt_of(t, seat), "others": Vec::<String>::new(), "deadline": null });
        let subject = format!("You take over a seat in {}", self.game_name(t));
        let invite = self.seat_mail(t, &loaded.record, seat, (events[0].seq, "invitation"), subject, ctx);
        self.store().put(crate::mail::split_channels(invite.into_iter().collect())).await?;
        let gen = t.generations[seat as usize];
        let token = self.keys().issue(game, Role::Seat, Some(seat), gen, self.now());
        Ok(json!({ "seat": seat, "generation": gen, "token": token, "link": self.link(game, &token) }))
    }

    /// The dead letters of a game (host).
    pub async fn dead_letters(&self, game: &str, claims: &crate::auth::Claims) -> Result<Vec<Value>> {
        if claims.role != Role::Host {
            return Err(super::ServiceError::Forbidden("only the host can see the dead letters".into()));
        }
        let rows = self.store().scan(Side::Outbox, format!("x{game}/").as_bytes(), 1000)?;
        Ok(rows
            .into_iter()
            .filter_map(|(_, v)| crate::mail::decode(&v).ok())
            .map(|m| json!({ "id": m.id, "kind": m.kind, "to": m.to, "subject": m.subject, "attempts": m.attempts, "last_error": m.last_error }))
            .collect())
    }

    /// Send a dead letter again (host).
    pub async fn retry_dead_letter(&self, game: &str, claims: &crate::auth::Claims, id: &str) -> Result<Value> {
        if claims.role != Role::Host {
            return Err(super::ServiceError::Forbidden("only the host can resend a dead letter".into()));
        }
        self.access().host_mail.take(game).map_err(|wait| {
            super::ServiceError::too_many("this game's host has caused as much mail as an hour allows", wait)
        })?;
        let key = crate::mail::dead_key(game, id);
        let raw = self
            .store()
            .get(Side::Outbox, &key)?
            .ok_or_else(|| super::ServiceError::NotFound(format!("there is no dead letter {id} in this game")))?;
        let mut mail: Mail = crate::mail::decode(&raw)
            .map_err(|e| crate::store::StoreError::Corrupt(format!("dead letter {id}: {e}")))?;
        mail.attempts = 0;
        self.store()
            .put(vec![SideWrite { side: Side::Outbox, key, value: None }, outbox_write(self.now(), &mail)])
            .await?;
        Ok(json!({ "id": id, "queued": true }))
    }
}

#[cfg(test)]
mod recap_tests {
    use super::*;

    fn lines(n: usize, mine: &[usize]) -> Vec<(RecapLine, bool)> {
        (0..n).map(|i| (RecapLine { text: format!("event {i}"), voided: None }, mine.contains(&i))).collect()
    }

    #[test]
    fn a_short_recap_is_whole() {
        let r = fit_recap(lines(5, &[]), 40);
        assert_eq!(r.more, 0);
        assert_eq!(r.lines.len(), 5);
    }

    #[test]
    fn a_long_recap_keeps_the_readers_lines_and_counts_what_it_leaves_out() {
        // The reader's event comes first, then 60 others.
        let r = fit_recap(lines(61, &[0]), 40);
        assert_eq!(r.lines.first().map(|l| l.text.as_str()), Some("event 0"), "the reader's line is kept");
        assert_eq!(r.lines.last().map(|l| l.text.as_str()), Some("event 60"), "the latest are kept");
        assert_eq!(r.lines.len(), 40);
        assert_eq!(r.more, 21, "every line is either shown or counted");
    }

    #[test]
    fn each_notice_of_a_deadline_has_its_own_id_and_keeps_it() {
        let deadline: DateTime<Utc> = "2026-03-03T09:00:00Z".parse().unwrap();
        let h = chrono::Duration::hours;
        let ids = [Notice::Before(h(12)), Notice::Before(h(2)), Notice::Extension].map(|n| n.id_seq(7, deadline));
        assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2], "{ids:?}");
        assert_eq!(Notice::Before(h(12)).id_seq(7, deadline), ids[0], "the same reminder again: the same id");
        assert_ne!(Notice::Before(h(12)).id_seq(8, deadline), ids[0], "another decision's reminder");
    }
}
