//! Press: messages between the people at a table, written into the game's
//! log as kernel events the rules never read (`runestone_engine::press`).
//!
//! This file holds the game's press options, who reads which message (the
//! host too, whom the engine's viewers do not name), writing, listing,
//! hiding and reporting a message, and the message as every output shows
//! it. A message is plain text: the pages escape it and show links as text,
//! never following them.

use runestone_engine::press::{channel_key, sees, AfterEnd, Said};
use runestone_engine::{Actor, Draft, KernelError, KernelEvent, Seat, Table, Viewer, Visibility};
use serde::{Deserialize, Serialize};

use super::{in_words, Result, Service, ServiceError};
use crate::auth::{Claims, Role};
use crate::clock::stamp;
use crate::limits;

/// Longest reason for hiding or reporting a message, in characters.
pub const REASON_MAX: usize = limits::TEXT_MAX;
/// Most messages one page of `GET …/messages` holds.
pub const PAGE_MAX: usize = 200;
/// The published form of a message's rule: plain text, line breaks and tabs
/// but no other control character.
pub const TEXT_PATTERN: &str = r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$";
/// Most messages a view carries (the latest ones).
pub const VIEW_MAX: usize = 100;

/// Which messages a game allows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PressMode {
    /// No messages at all.
    None,
    /// Messages to everyone at the table only.
    Public,
    /// Messages to everyone or to any set of seats.
    #[default]
    Full,
}

/// A game's press options, chosen at its creation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PressOptions {
    /// None, public only, or full press (the default).
    #[serde(default)]
    pub mode: PressMode,
    /// The phases in which seats may write, named by the game's decision
    /// kinds as `pending[].kind` shows them (Thingvellir's Thing: "propose"
    /// and "vote"): a seat may write while one of them is pending. Empty:
    /// at any time. The host and the referee may always write.
    #[serde(default)]
    #[schemars(length(max = 16))]
    pub phases: Vec<PhaseName>,
    /// The seats' messages do not name their writer (but to the referee).
    #[serde(default)]
    pub anonymous: bool,
    /// Who reads the messages once the game is over: those who could
    /// before (private, the default), every player, or anyone.
    #[serde(default)]
    pub after_end: AfterEnd,
}

/// A decision kind, as a game names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct PhaseName(#[schemars(length(min = 1, max = 40), pattern(crate::limits::NAME_LINE))] pub String);

impl PressOptions {
    /// The options checked: bounded phase names.
    pub fn checked(self) -> Result<PressOptions> {
        if self.phases.len() > 16 {
            return Err(ServiceError::BadRequest(format!(
                "press.phases names {} phases; at most 16 are allowed",
                self.phases.len()
            )));
        }
        for (i, p) in self.phases.iter().enumerate() {
            limits::name(&format!("press phase {}", i + 1), &p.0).map_err(ServiceError::BadRequest)?;
        }
        Ok(self)
    }

    /// The options in words, for the pages.
    pub fn words(&self) -> String {
        let mode = match self.mode {
            PressMode::None => "no messages",
            PressMode::Public => "messages to everyone only",
            PressMode::Full => "messages to everyone or to any seats",
        };
        let mut w = mode.to_owned();
        if self.mode != PressMode::None {
            if !self.phases.is_empty() {
                let names: Vec<&str> = self.phases.iter().map(|p| p.0.as_str()).collect();
                w.push_str(&format!(", written while one of these is pending: {}", names.join(", ")));
            }
            if self.anonymous {
                w.push_str(", without the writer's name");
            }
            w.push_str(match self.after_end {
                AfterEnd::Private => "; after the end they stay private",
                AfterEnd::Players => "; after the end every player reads them",
                AfterEnd::Public => "; after the end they are public",
            });
        }
        w
    }
}

/// Whoever reads the conversation: a seat, the host, the referee or the
/// public (no token).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    Seat(Seat),
    Host,
    Referee,
    Public,
}

impl Reader {
    pub fn of(claims: Option<&Claims>) -> Reader {
        match claims.map(|c| (c.role, c.seat)) {
            Some((Role::Seat, Some(s))) => Reader::Seat(s),
            Some((Role::Host, _)) => Reader::Host,
            Some((Role::Referee, _)) => Reader::Referee,
            _ => Reader::Public,
        }
    }

    /// Whether this reader moderates (hides messages, reads reports).
    fn moderates(self) -> bool {
        matches!(self, Reader::Host | Reader::Referee)
    }

    fn actor(self) -> Option<Actor> {
        match self {
            Reader::Seat(s) => Some(Actor::Seat(s)),
            Reader::Host => Some(Actor::Host),
            Reader::Referee => Some(Actor::Referee),
            Reader::Public => None,
        }
    }
}

/// Whether `reader` reads message `m` (`over`: the game has ended). The
/// host reads what it wrote and the table's channel of everyone; the host
/// and the referee read a message a seat reported to them.
pub fn reads(reader: Reader, m: &Said, over: bool) -> bool {
    let viewer = match reader {
        Reader::Seat(s) => Viewer::Seat(s),
        Reader::Referee => Viewer::Referee,
        Reader::Public => Viewer::Public,
        Reader::Host => {
            return m.from == Actor::Host
                || m.to.is_empty()
                || !m.reports.is_empty()
                || (over && m.after_end != AfterEnd::Private)
        }
    };
    sees(viewer, m.from, &m.to, m.after_end, over) || (reader.moderates() && !m.reports.is_empty())
}

/// Who wrote a message, as shown.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Writer {
    /// "seat", "host", "referee", or "anonymous" (a seat of a game of
    /// anonymous press, to all but its writer and the referee).
    pub role: String,
    /// The writer's seat, when a seat and not anonymous.
    pub seat: Option<Seat>,
    /// The writer's name as shown.
    pub name: String,
}

/// A hidden message's note: who hid it and why.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HiddenNote {
    /// "host" or "referee".
    pub by: String,
    pub reason: String,
}

/// One message as its reader sees it.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Message {
    /// The seq of the event it was written in: its id.
    pub seq: u64,
    /// When it was written (UTC, RFC 3339).
    pub at: String,
    pub from: Writer,
    /// Its channel: "all", or its seats joined by "-" ("0-2").
    pub channel: String,
    /// The channel's seats; empty for everyone at the table.
    pub to: Vec<Seat>,
    /// Plain text; absent when hidden (but to the host, the referee and
    /// its writer).
    pub text: Option<String>,
    /// Set when the host or the referee hid it.
    pub hidden: Option<HiddenNote>,
    /// How many seats reported it (shown to the host and the referee).
    pub reports: u32,
    /// The reader reported it.
    pub reported: bool,
    /// The reader wrote it.
    pub mine: bool,
}

/// `GET /api/v1/games/{id}/messages`: one page of the conversation.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Messages {
    /// Oldest first.
    pub messages: Vec<Message>,
    /// More follow: ask again with `since` set to this seq.
    pub next: Option<u64>,
    /// The game's press options in words.
    pub press: String,
    /// Whether the reader may write now, and if not, why.
    pub can_write: bool,
    pub why_not: Option<String>,
}

/// `POST /api/v1/games/{id}/messages`.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMessage {
    /// The seats it is for (a seat writing is always in its own channel);
    /// left out: everyone at the table.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    pub to: Option<Vec<Seat>>,
    /// Plain text, 1 to `press.max_chars` characters (2000 unless the
    /// server says otherwise); line breaks and tabs are kept, no other
    /// control character is taken.
    #[schemars(length(min = 1), pattern(TEXT_PATTERN))]
    pub text: String,
}

/// `POST …/messages/{seq}/hide` and `…/report`.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageReason {
    /// Why, in 1 to 200 characters on one line.
    #[schemars(length(min = 1, max = 200), pattern(crate::limits::NAME_LINE))]
    pub reason: String,
}

/// A message as `reader` sees it; `None` when it may not read it.
pub fn shown_to(t: &Table, m: &Said, reader: Reader, over: bool) -> Option<Message> {
    if !reads(reader, m, over) {
        return None;
    }
    let mine = reader.actor() == Some(m.from);
    let name = |s: Seat| t.created.seats.get(s as usize).cloned().unwrap_or_else(|| format!("seat {s}"));
    let from = match m.from {
        Actor::Seat(_) if m.anonymous && !mine && reader != Reader::Referee => {
            Writer { role: "anonymous".into(), seat: None, name: "Anonymous".into() }
        }
        Actor::Seat(s) => Writer { role: "seat".into(), seat: Some(s), name: name(s) },
        Actor::Host => Writer { role: "host".into(), seat: None, name: "The host".into() },
        Actor::Referee | Actor::System => Writer { role: "referee".into(), seat: None, name: "The referee".into() },
    };
    let text_shown = m.hidden.is_none() || reader.moderates() || mine;
    Some(Message {
        seq: m.seq,
        at: m.at.clone(),
        from,
        channel: channel_key(&m.to),
        to: m.to.clone(),
        text: text_shown.then(|| m.text.clone()),
        hidden: m.hidden.as_ref().map(|h| HiddenNote {
            by: if h.by == Actor::Host { "host" } else { "referee" }.into(),
            reason: h.reason.clone(),
        }),
        reports: if reader.moderates() { m.reports.len() as u32 } else { 0 },
        reported: matches!(reader, Reader::Seat(s) if m.reports.iter().any(|r| r.by == s)),
        mine,
    })
}

/// The last [`VIEW_MAX`] messages `viewer` reads in a position (`over`: the
/// game has ended by now), for a view.
pub fn latest_for(t: &Table, viewer: Viewer, over: bool) -> Vec<Message> {
    let reader = match viewer {
        Viewer::Seat(s) => Reader::Seat(s),
        Viewer::Referee => Reader::Referee,
        Viewer::Public => Reader::Public,
    };
    let mut out: Vec<Message> =
        t.press.said.iter().rev().filter_map(|m| shown_to(t, m, reader, over)).take(VIEW_MAX).collect();
    out.reverse();
    out
}

/// The channel a `to` given by `from` names: its seats in order (a seat's
/// own included), or empty for everyone.
fn channel_of(t: &Table, from: Reader, to: Option<Vec<Seat>>) -> Result<Vec<Seat>> {
    let Some(mut seats) = to else { return Ok(Vec::new()) };
    let n = t.seats();
    if let Some(s) = seats.iter().find(|s| **s as usize >= n) {
        return Err(ServiceError::Unprocessable(format!("there is no seat {s}: the seats are 0 to {}", n - 1)));
    }
    if let Reader::Seat(me) = from {
        seats.push(me);
    }
    seats.sort_unstable();
    seats.dedup();
    match from {
        Reader::Seat(me) if seats == [me] => Err(ServiceError::Unprocessable(
            "a message needs another seat to read it: name at least one other seat in `to`, or leave `to` out to write to everyone".into(),
        )),
        _ if seats.is_empty() => Err(ServiceError::Unprocessable(
            "`to` names no seat: name at least one, or leave it out to write to everyone".into(),
        )),
        _ => Ok(seats),
    }
}

/// Why `reader` may not write now, if not.
fn why_not(t: &Table, options: &PressOptions, reader: Reader) -> Option<String> {
    if t.is_over() || t.seed_revealed.is_some() {
        return Some("the game is over: its table takes no more messages".into());
    }
    if reader == Reader::Public {
        return Some("only the game's seats, its host and its referee write messages; send your link's token".into());
    }
    if options.mode == PressMode::None {
        return Some("this game is played without messages (its host chose no press)".into());
    }
    if let Reader::Seat(_) = reader {
        if !options.phases.is_empty() {
            let pending = t.pending();
            if !pending.iter().any(|p| options.phases.iter().any(|ph| ph.0 == p.kind)) {
                let names: Vec<&str> = options.phases.iter().map(|p| p.0.as_str()).collect();
                let now: Vec<String> = pending.iter().map(|p| p.kind.clone()).collect();
                return Some(format!(
                    "in this game seats write only while one of these is pending: {}; now pending: {}",
                    names.join(", "),
                    if now.is_empty() { "nothing".to_owned() } else { now.join(", ") }
                ));
            }
        }
    }
    None
}

/// The text of a message checked: not blank, within `max` characters, no
/// control characters but line breaks and tabs. Too long is its own error
/// (413).
fn checked_text(text: &str, max: usize) -> Result<String> {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let t = text.trim();
    if t.is_empty() {
        return Err(ServiceError::Unprocessable("the message is empty; write 1 character or more".into()));
    }
    let n = t.chars().count();
    if n > max {
        return Err(ServiceError::TooLarge(format!(
            "the message is {n} characters long; a message holds at most {max}: split it in two"
        )));
    }
    if let Some(c) = t.chars().find(|c| c.is_control() && !matches!(c, '\n' | '\t')) {
        return Err(ServiceError::BadRequest(format!(
            "the message contains a control character ({}); a message is plain text with line breaks and tabs",
            c.escape_unicode()
        )));
    }
    Ok(t.to_owned())
}

/// The message's seq, from the path.
fn message_seq(t: &Table, seq: u64) -> Result<&Said> {
    t.press.get(seq).ok_or_else(|| ServiceError::NotFound(format!("there is no message at seq {seq} in this game")))
}

/// What the press routes are told by the server's settings.
pub struct PressLimits {
    /// Longest message, in characters.
    pub max_chars: usize,
    /// Messages one seat (or the host, or the referee) may write per hour.
    pub rate: limits::Limiter,
    /// Minutes after a seat's latest unmailed message its digest is due.
    pub quiet_minutes: i64,
}

impl Default for PressLimits {
    fn default() -> PressLimits {
        PressLimits {
            max_chars: 2000,
            rate: limits::Limiter::new(30, std::time::Duration::from_secs(3600)),
            quiet_minutes: 60,
        }
    }
}

impl Service {
    /// The press limits in force.
    fn press_limits(&self) -> &PressLimits {
        self.press.get_or_init(PressLimits::default)
    }

    /// Minutes after a seat's latest message its mail of messages leaves.
    pub(super) fn press_quiet_minutes(&self) -> i64 {
        self.press_limits().quiet_minutes
    }

    /// Set the press limits (once, at start).
    pub fn set_press_limits(&self, limits: PressLimits) {
        let _ = self.press.set(limits);
    }

    /// Write a message: the reader's own, to everyone or to a channel.
    pub async fn post_message(&self, game: &str, claims: &Claims, req: serde_json::Value) -> Result<Message> {
        let r: NewMessage = serde_json::from_value(req).map_err(|e| {
            ServiceError::BadRequest(format!(
                "a message is {{\"text\": \"...\", \"to\": [seats]}} (`to` left out: everyone): {}",
                in_words(&e.to_string())
            ))
        })?;
        let reader = Reader::of(Some(claims));
        let from =
            reader.actor().ok_or_else(|| ServiceError::Forbidden("only a game's token writes a message".into()))?;
        let text = checked_text(&r.text, self.press_limits().max_chars)?;
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        let t = &loaded.table;
        let options = loaded.record.press.clone();
        if let Some(why) = why_not(t, &options, reader) {
            return Err(if t.seed_revealed.is_some() {
                ServiceError::Kernel(KernelError::GameOver)
            } else {
                ServiceError::Unprocessable(why)
            });
        }
        if options.mode == PressMode::Public && r.to.is_some() {
            return Err(ServiceError::Unprocessable(
                "this game allows messages to everyone only: leave `to` out".into(),
            ));
        }
        let to = channel_of(t, reader, r.to)?;
        let key = format!("{game}/{}", serde_json::to_string(&from).expect("JSON"));
        self.press_limits().rate.take(&key).map_err(|wait| {
            ServiceError::too_many("you have written as many messages as one writer may in an hour", wait)
        })?;
        let said = Said {
            seq: t.head + 1,
            at: stamp(self.now()),
            from,
            to,
            text,
            anonymous: options.anonymous && matches!(from, Actor::Seat(_)),
            after_end: options.after_end,
            hidden: None,
            reports: Vec::new(),
        };
        let mut record = loaded.record.clone();
        let mail = self.press_mail(t, &mut record, &said);
        loaded.record = record;
        let event = KernelEvent::MessageSent {
            from: said.from,
            to: said.to,
            text: said.text,
            anonymous: said.anonymous,
            after_end: said.after_end,
            at: said.at,
        };
        let events = self.commit(&slot, loaded, vec![press_draft(event)], move |_, _| mail).await?;
        let seq = events[0].seq;
        let t = &loaded.table;
        let m = t.press.get(seq).expect("the message just folded");
        Ok(shown_to(t, m, reader, false).expect("a writer reads its message"))
    }

    /// One page of the messages `reader` reads: of one channel or all,
    /// after seq `since`, at most `limit` (oldest first).
    pub async fn messages(
        &self,
        game: &str,
        claims: Option<&Claims>,
        channel: Option<&str>,
        since: Option<u64>,
        limit: Option<u64>,
    ) -> Result<Messages> {
        let reader = Reader::of(claims);
        let limit = match limit {
            None => PAGE_MAX,
            Some(l) if (1..=PAGE_MAX as u64).contains(&l) => l as usize,
            Some(l) => {
                return Err(ServiceError::BadRequest(format!("`limit` is {l}; a page holds 1 to {PAGE_MAX} messages")))
            }
        };
        if let Some(c) = channel {
            let seat = |s: &str| (1..=3).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
            let fine = c == "all" || (c.len() <= 200 && c.split('-').all(seat));
            if !fine {
                return Err(ServiceError::BadRequest(format!(
                    "`channel` is {}; a channel is \"all\" or its seats in order joined by \"-\" (\"0-2\")",
                    super::shown(c)
                )));
            }
        }
        self.with_game(game, |l| {
            let t = &l.table;
            let over = t.seed_revealed.is_some();
            let since = since.unwrap_or(0);
            let mut list = t
                .press
                .said
                .iter()
                .filter(|m| m.seq > since && channel.is_none_or(|c| channel_key(&m.to) == c))
                .filter_map(|m| shown_to(t, m, reader, over));
            let messages: Vec<Message> = list.by_ref().take(limit).collect();
            let next = match list.next() {
                Some(_) => messages.last().map(|m| m.seq),
                None => None,
            };
            let why = why_not(t, &l.record.press, reader);
            Ok(Messages { messages, next, press: l.record.press.words(), can_write: why.is_none(), why_not: why })
        })
        .await
    }

    /// A message as `reader` sees it now, if it reads it (for the stream).
    pub async fn message_for(&self, game: &str, claims: Option<&Claims>, seq: u64) -> Result<Option<Message>> {
        let reader = Reader::of(claims);
        self.with_game(game, |l| {
            let t = &l.table;
            Ok(t.press.get(seq).and_then(|m| shown_to(t, m, reader, t.seed_revealed.is_some())))
        })
        .await
    }

    /// The host or the referee hides a message from its readers, with a
    /// reason (an event; the moderators still read it).
    pub async fn hide_message(&self, game: &str, claims: &Claims, seq: u64, req: serde_json::Value) -> Result<Message> {
        let reader = Reader::of(Some(claims));
        if !reader.moderates() {
            return Err(ServiceError::Forbidden("only the host or the referee hides a message".into()));
        }
        let reason = reason_of(req, "hiding")?;
        self.press_event(game, reader, seq, |t, m| {
            if !reads(reader, m, t.seed_revealed.is_some()) {
                return Err(ServiceError::NotFound(format!("there is no message at seq {seq} you read")));
            }
            if m.hidden.is_some() {
                return Err(ServiceError::Unprocessable(format!("message {seq} is hidden already")));
            }
            Ok(KernelEvent::MessageHidden { message: seq, by: m_actor(reader), to: m.to.clone(), reason })
        })
        .await
    }

    /// A seat reports a message it reads to the host and the referee.
    pub async fn report_message(
        &self,
        game: &str,
        claims: &Claims,
        seq: u64,
        req: serde_json::Value,
    ) -> Result<Message> {
        let reader = Reader::of(Some(claims));
        let Reader::Seat(me) = reader else {
            return Err(ServiceError::Forbidden(
                "only a seat reports a message; the host and the referee hide one".into(),
            ));
        };
        let reason = reason_of(req, "report")?;
        self.press_event(game, reader, seq, |t, m| {
            if !reads(reader, m, t.seed_revealed.is_some()) {
                return Err(ServiceError::NotFound(format!("there is no message at seq {seq} you read")));
            }
            if m.from == Actor::Seat(me) {
                return Err(ServiceError::Unprocessable(format!(
                    "message {seq} is your own: a seat reports what others wrote (the host can hide a message)"
                )));
            }
            if m.reports.iter().any(|r| r.by == me) {
                return Err(ServiceError::Unprocessable(format!("you reported message {seq} already")));
            }
            Ok(KernelEvent::MessageReported { message: seq, by: me, reason })
        })
        .await
    }

    /// Append the press event `make` gives for the message at `seq`.
    async fn press_event(
        &self,
        game: &str,
        reader: Reader,
        seq: u64,
        make: impl FnOnce(&Table, &Said) -> Result<KernelEvent>,
    ) -> Result<Message> {
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        let t = &loaded.table;
        if t.seed_revealed.is_some() {
            return Err(KernelError::GameOver.into());
        }
        let event = make(t, message_seq(t, seq)?)?;
        self.commit(&slot, loaded, vec![press_draft(event)], |_, _| Vec::new()).await?;
        let t = &loaded.table;
        Ok(shown_to(t, message_seq(t, seq)?, reader, false).expect("the reader read it before"))
    }
}

fn m_actor(reader: Reader) -> Actor {
    reader.actor().unwrap_or(Actor::System)
}

fn reason_of(req: serde_json::Value, what: &str) -> Result<String> {
    let r: MessageReason = serde_json::from_value(req).map_err(|e| {
        ServiceError::BadRequest(format!("a {what} is {{\"reason\": \"...\"}}: {}", in_words(&e.to_string())))
    })?;
    let reason = r.reason.trim();
    if reason.is_empty() {
        return Err(ServiceError::BadRequest("the reason is empty; say why in a few words".into()));
    }
    limits::text("the reason", reason, REASON_MAX).map_err(ServiceError::BadRequest)?;
    Ok(reason.to_owned())
}

/// A press event's draft: written by the system, its envelope visible to no
/// seat, so the log's public part names neither writer nor channel; who
/// reads it is the event's own rule.
fn press_draft(event: KernelEvent) -> Draft {
    Draft { visibility: Visibility::Seats(Vec::new()), ..Draft::kernel(Actor::System, event) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(from: Actor, to: Vec<Seat>, after_end: AfterEnd) -> Said {
        Said {
            seq: 5,
            at: "2026-01-01T00:00:00Z".into(),
            from,
            to,
            text: "hello".into(),
            anonymous: false,
            after_end,
            hidden: None,
            reports: vec![],
        }
    }

    #[test]
    fn the_host_reads_its_own_the_tables_and_reported_messages_only() {
        let private = said(Actor::Seat(0), vec![0, 1], AfterEnd::Private);
        assert!(!reads(Reader::Host, &private, false));
        assert!(!reads(Reader::Referee, &private, false));
        assert!(reads(Reader::Host, &said(Actor::Seat(0), vec![], AfterEnd::Private), false));
        assert!(reads(Reader::Host, &said(Actor::Host, vec![2], AfterEnd::Private), false));
        let mut reported = private.clone();
        reported.reports.push(runestone_engine::press::Report { by: 1, reason: "rude".into(), seq: 6 });
        assert!(reads(Reader::Host, &reported, false) && reads(Reader::Referee, &reported, false));
        assert!(!reads(Reader::Seat(2), &reported, false));
        assert!(reads(Reader::Host, &said(Actor::Seat(0), vec![0, 1], AfterEnd::Players), true));
    }

    #[test]
    fn a_message_text_is_bounded_and_plain() {
        assert!(matches!(checked_text(&"x".repeat(11), 10), Err(ServiceError::TooLarge(_))));
        assert!(matches!(checked_text("  ", 10), Err(ServiceError::Unprocessable(_))));
        assert!(matches!(checked_text("a\u{7}b", 10), Err(ServiceError::BadRequest(_))));
        assert_eq!(checked_text(" two\r\nlines\t ", 20).unwrap(), "two\nlines");
    }
}
