//! Press: messages between the people at a table, kept in the game's log as
//! kernel events that the rules never read.
//!
//! A message is written by a seat, the host or the referee to everyone at
//! the table or to a set of seats; that set is its channel (a seat writing
//! to others is always one of the channel's seats). Who may read a message
//! is decided by the message itself, never by the event's envelope: its
//! envelope is written by the system and visible to no seat, so the log's
//! public part says only that something was written at that seq, not by
//! whom nor to whom. While the game runs only the channel's seats, its
//! writer, and for the channel of everyone the host and the referee read
//! it; once the game is over, as the message's `after_end` (the game's
//! option when it was written) says.
//!
//! The conversation ([`Conversation`]) is folded with the position: kernel
//! events are never voided, so a rollback keeps every message, and a past
//! position holds the conversation as it stood then. A fork copies game
//! events only: a forked game starts with no conversation.

use serde::{Deserialize, Serialize};

use crate::game::{Seat, Viewer};
use crate::log::Actor;

/// Who may read a message once the game is over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AfterEnd {
    /// Those who could read it while the game ran.
    #[default]
    Private,
    /// Every seat, the host and the referee.
    Players,
    /// Anyone who can see the game.
    Public,
}

/// One message as the conversation holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Said {
    /// The seq of the event it was written in.
    pub seq: u64,
    /// When (UTC, RFC 3339).
    pub at: String,
    pub from: Actor,
    /// Its channel: the seats it is for; empty for everyone at the table.
    pub to: Vec<Seat>,
    pub text: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub anonymous: bool,
    #[serde(default)]
    pub after_end: AfterEnd,
    /// Hidden by the host or the referee: by whom, why, at which seq.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<Hiding>,
    /// The seats that reported it, with their reasons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reports: Vec<Report>,
}

/// A message hidden by a moderator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hiding {
    pub by: Actor,
    pub reason: String,
    pub seq: u64,
}

/// A message reported by a seat to the host and the referee.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub by: Seat,
    pub reason: String,
    pub seq: u64,
}

/// Whether `viewer` may read a message from `from` to `to` (empty: everyone
/// at the table). The host is not a [`Viewer`] (the generic outputs show it
/// the public's cut); the server's own readers add what the host reads.
pub fn sees(viewer: Viewer, from: Actor, to: &[Seat], after_end: AfterEnd, over: bool) -> bool {
    let revealed = over && after_end != AfterEnd::Private;
    match viewer {
        Viewer::Seat(s) => to.is_empty() || to.contains(&s) || from == Actor::Seat(s) || revealed,
        Viewer::Referee => to.is_empty() || from == Actor::Referee || revealed,
        Viewer::Public => over && after_end == AfterEnd::Public,
    }
}

/// A channel's key: `all`, or its seats in order joined by `-` ("0-2").
pub fn channel_key(to: &[Seat]) -> String {
    if to.is_empty() {
        return "all".into();
    }
    to.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("-")
}

/// The conversation of a game: every message in the order written.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    pub said: Vec<Said>,
}

impl Conversation {
    pub fn is_empty(&self) -> bool {
        self.said.is_empty()
    }

    /// The message written at `seq`.
    pub fn get(&self, seq: u64) -> Option<&Said> {
        self.said.binary_search_by_key(&seq, |m| m.seq).ok().map(|i| &self.said[i])
    }

    fn get_mut(&mut self, seq: u64) -> Option<&mut Said> {
        self.said.binary_search_by_key(&seq, |m| m.seq).ok().map(|i| &mut self.said[i])
    }

    /// Fold one press event (a message, a hiding or a report) written at `seq`.
    pub fn apply(&mut self, seq: u64, event: &crate::log::KernelEvent) {
        use crate::log::KernelEvent as K;
        match event {
            K::MessageSent { from, to, text, anonymous, after_end, at } => self.said.push(Said {
                seq,
                at: at.clone(),
                from: *from,
                to: to.clone(),
                text: text.clone(),
                anonymous: *anonymous,
                after_end: *after_end,
                hidden: None,
                reports: Vec::new(),
            }),
            K::MessageHidden { message, by, reason, .. } => {
                if let Some(m) = self.get_mut(*message) {
                    m.hidden = Some(Hiding { by: *by, reason: reason.clone(), seq });
                }
            }
            K::MessageReported { message, by, reason, .. } => {
                if let Some(m) = self.get_mut(*message) {
                    m.reports.push(Report { by: *by, reason: reason.clone(), seq });
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_message_is_read_by_its_channel_and_writer_only_while_the_game_runs() {
        let to = [1, 2];
        for (viewer, reads) in [
            (Viewer::Seat(0), true),
            (Viewer::Seat(1), true),
            (Viewer::Seat(2), true),
            (Viewer::Seat(3), false),
            (Viewer::Referee, false),
            (Viewer::Public, false),
        ] {
            assert_eq!(sees(viewer, Actor::Seat(0), &to, AfterEnd::Public, false), reads, "{viewer:?}");
        }
        assert!(sees(Viewer::Referee, Actor::Referee, &to, AfterEnd::Private, false));
        assert!(!sees(Viewer::Seat(3), Actor::Seat(0), &to, AfterEnd::Private, true), "private stays private");
        assert!(sees(Viewer::Seat(3), Actor::Seat(0), &to, AfterEnd::Players, true));
        assert!(!sees(Viewer::Public, Actor::Seat(0), &to, AfterEnd::Players, true));
        assert!(sees(Viewer::Public, Actor::Seat(0), &to, AfterEnd::Public, true));
        assert!(!sees(Viewer::Public, Actor::Seat(0), &[], AfterEnd::Private, false), "the table's, not the public's");
        assert!(sees(Viewer::Seat(3), Actor::Seat(0), &[], AfterEnd::Private, false));
    }

    #[test]
    fn a_channel_is_named_by_its_seats() {
        assert_eq!(channel_key(&[]), "all");
        assert_eq!(channel_key(&[0, 2, 3]), "0-2-3");
    }
}
