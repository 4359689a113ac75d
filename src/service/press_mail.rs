//! The mail of messages: a seat's messages it received, gathered into one
//! mail that leaves a quiet interval (`press.quiet_minutes`) after the
//! latest, never a mail per message. Each new message rewrites the seat's
//! unsent mail in place (withdrawn and written again, due later), so a
//! burst of messages is one mail. The seat's mail of its move tells what it
//! received too (its recap has every event it reads, messages included). A
//! seat may turn the mail of messages off.
//!
//! Replying by mail is left for later; the design leaves room for it: each
//! mail's Message-ID is derived from the game, the message's seq and the
//! seat, so a reply's `In-Reply-To` names the channel and the seat it came
//! from, and a signed reply address per seat and channel (as the signed
//! unsubscribe links are made) would let an inbound worker append the reply
//! through `post_message` like any other.

use runestone_engine::press::{channel_key, Said};
use runestone_engine::{Actor, Table};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::notify::game_mail_write;
use super::press::{reads, Reader};
use super::{GameRecord, Result, Service, ServiceError};
use crate::mail::{held_key, queue_key};
use crate::store::{Side, SideWrite};

/// Most messages one mail of messages tells (the latest).
const MAIL_MESSAGES: usize = 30;

/// A seat's unsent mail of messages: its outbox key's parts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PressDigest {
    pub due_ms: i64,
    pub id: String,
    /// The first message it tells of.
    pub from: u64,
    #[serde(default)]
    pub held: bool,
}

impl Service {
    /// The mail that the message `m`, about to be written at `m.seq` on
    /// `t`, causes: each seat that reads it (but its writer) gets its mail of
    /// messages written again, due a quiet interval from now.
    pub(super) fn press_mail(&self, t: &Table, record: &mut GameRecord, m: &Said) -> Vec<SideWrite> {
        let now = self.now().timestamp_millis();
        let quiet = self.press_quiet_minutes() * 60_000;
        let mut out = Vec::new();
        for seat in 0..t.seats() as u8 {
            if m.from == Actor::Seat(seat) || !reads(Reader::Seat(seat), m, false) {
                continue;
            }
            let Some(s) = record.seats.get(seat as usize) else { continue };
            if !s.told() || s.press_mail_off {
                continue;
            }
            let unsent = s.press_digest.clone().filter(|d| d.due_ms > now);
            let from = unsent.as_ref().map_or(m.seq, |d| d.from);
            if let Some(d) = &unsent {
                let key = if d.held { held_key(&t.game_id, d.due_ms, &d.id) } else { queue_key(d.due_ms, &d.id) };
                out.push(SideWrite { side: Side::Outbox, key, value: None });
            }
            let mut told: Vec<&Said> = t
                .press
                .said
                .iter()
                .filter(|x| x.seq >= from && x.from != Actor::Seat(seat) && reads(Reader::Seat(seat), x, false))
                .chain(std::iter::once(m))
                .collect();
            let more = told.len().saturating_sub(MAIL_MESSAGES);
            told.drain(..more);
            let names = &t.created.seats;
            let lines: Vec<Value> = told
                .iter()
                .map(|x| {
                    let shown = super::press::shown_to(t, x, Reader::Seat(seat), false);
                    json!({
                        "from": shown.as_ref().map_or_else(String::new, |s| s.from.name.clone()),
                        "channel": match x.to.as_slice() {
                            [] => "everyone".to_owned(),
                            to => to.iter().map(|s| names.get(*s as usize).cloned().unwrap_or_default()).collect::<Vec<_>>().join(", "),
                        },
                        "text": shown.and_then(|s| s.text).unwrap_or_else(|| "(hidden by the host)".into()),
                    })
                })
                .collect();
            let due = now + quiet;
            let n = told.len() + more;
            let subject = format!("{}: {n} new message{}", self.press_game_name(t), if n == 1 { "" } else { "s" });
            let ctx = json!({ "messages": lines, "more": more, "channel": channel_key(&m.to) });
            let Some(mut mail) = self.render_seat_mail(t, record, seat, (m.seq, "press"), subject, ctx) else {
                continue;
            };
            mail.kind = "press".into();
            let when = chrono::DateTime::from_timestamp_millis(due).unwrap_or_else(|| self.now());
            out.push(game_mail_write(record, when, &mail));
            record.seats[seat as usize].press_digest =
                Some(PressDigest { due_ms: due, id: mail.id.clone(), from, held: record.mail_held });
        }
        out
    }

    fn press_game_name(&self, t: &Table) -> String {
        self.registry().get(&t.created.ruleset).map_or_else(|| t.created.ruleset.clone(), |g| g.info().name)
    }

    /// Turn a seat's mail of messages on or off (the seat itself).
    pub async fn set_press_mail(&self, game: &str, seat: u8, on: bool) -> Result<()> {
        self.change_seat_record(game, seat, |s| s.press_mail_off = !on).await
    }

    /// Whether a seat gets mail of messages.
    pub async fn press_mail_on(&self, game: &str, seat: u8) -> Result<bool> {
        self.with_game(game, |l| {
            l.record
                .seats
                .get(seat as usize)
                .map(|s| !s.press_mail_off)
                .ok_or_else(|| ServiceError::NotFound(format!("there is no seat {seat}")))
        })
        .await
    }
}
