//! Mail: what to tell whom (rendered from minijinja templates under
//! `templates/email/`), the outbox records that carry it, and the transports
//! that deliver it (SMTP with a pooled connection, or files under the data
//! directory).
//!
//! A notification is rendered when the events that cause it are decided and
//! written into the outbox in the same atomic store write as those events;
//! the outbox worker (`crate::outbox`) sends it later, with retries. Its id is derived from the game,
//! the event and the seat, and becomes the Message-ID, so a resend after a
//! crash is recognisable as the same message.

pub mod reply;
pub mod smtp;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::TlsParameters;
use lettre::{AsyncFileTransport, AsyncTransport, Message, Tokio1Executor};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::MailSettings;
use crate::store::{Side, SideWrite};

/// One message waiting in the outbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mail {
    /// Deterministic: the same notification always has the same id.
    pub id: String,
    pub game: String,
    pub kind: String,
    pub to_name: String,
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
    /// The one-click unsubscribe URL, if the reader can unsubscribe.
    #[serde(default)]
    pub unsubscribe: Option<String>,
    #[serde(default)]
    pub attempts: u32,
    #[serde(default)]
    pub last_error: Option<String>,
    /// The address a reply goes to (a reply address that is a key: see
    /// `service::inbound`), when the mail asks a decision that may be
    /// answered by replying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_to: Option<String>,
    /// Set on a notice to a webhook instead of a mail: where it is posted,
    /// and what it says (`to` then holds the address masked, `subject` is
    /// its title, `unsubscribe` its stop link). A seat's mail carries its
    /// webhook's notice until the outbox write is split in two
    /// ([`split_channels`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook: Option<crate::webhook::HookNotice>,
    /// Set on a notice pushed to a browser (Web Push) instead of a mail:
    /// the subscription and what it says (`to` then holds the push
    /// service's address masked, `subject` is its title). Carried by a
    /// seat's mail until the write is split, as [`Mail::hook`] is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<crate::webpush::PushNotice>,
}

/// An outbox record's value as stored: the mail's JSON, compressed as the
/// store compresses events (`store::codec::compress_value`; a rendered mail,
/// an invitation takes about 0.6 of its JSON). The records
/// are the largest side records by far and sit in the store until sent, so
/// a burst of invitations made them most of what the store's pages hold and
/// rewrite (docs/performance.md). Records
/// stored as plain JSON by earlier versions read as they are.
pub fn encode(mail: &Mail) -> Vec<u8> {
    crate::store::codec::compress_value(&serde_json::to_vec(mail).expect("JSON"))
}

/// The mail an outbox record holds ([`encode`]'s, or plain JSON); the error
/// says what is wrong with a damaged one.
pub fn decode(stored: &[u8]) -> Result<Mail, String> {
    let json =
        crate::store::codec::decompress_value(stored).map_err(|e| format!("an unreadable outbox record: {e}"))?;
    serde_json::from_slice(&json).map_err(|e| format!("an outbox record that is not a mail: {e}"))
}

/// The id of a notification: the game, the event that caused it, the seat
/// (or "host") and the kind.
pub fn mail_id(game: &str, seq: u64, who: &str, kind: &str) -> String {
    hex::encode(&Sha256::digest(format!("{game}/{seq}/{who}/{kind}"))[..16])
}

/// Outbox queue key: due time (ms since the epoch, big-endian) then id, so a
/// scan meets the earliest due first.
pub fn queue_key(due_ms: i64, id: &str) -> Vec<u8> {
    let mut k = b"q".to_vec();
    k.extend_from_slice(&(due_ms.max(0) as u64).to_be_bytes());
    k.extend_from_slice(id.as_bytes());
    k
}

/// Due time of a queue key.
pub fn queue_due(key: &[u8]) -> Option<i64> {
    Some(u64::from_be_bytes(key.get(1..9)?.try_into().ok()?) as i64)
}

/// Held key: a message of a game whose host has not confirmed their
/// address yet (the worker sends only queued ones): by game, then due time
/// and id, so confirming moves a game's held messages into the queue.
pub fn held_key(game: &str, due_ms: i64, id: &str) -> Vec<u8> {
    let mut k = held_prefix(game);
    k.extend_from_slice(&(due_ms.max(0) as u64).to_be_bytes());
    k.extend_from_slice(id.as_bytes());
    k
}

/// The prefix of `game`'s held messages.
pub fn held_prefix(game: &str) -> Vec<u8> {
    format!("h{game}/").into_bytes()
}

/// The queue key a held message of `game` moves to, due no earlier than `now_ms`.
pub fn released_key(game: &str, held: &[u8], now_ms: i64) -> Option<Vec<u8>> {
    let rest = held.strip_prefix(held_prefix(game).as_slice())?;
    let due = u64::from_be_bytes(rest.get(..8)?.try_into().ok()?) as i64;
    let id = std::str::from_utf8(&rest[8..]).ok()?;
    Some(queue_key(due.max(now_ms), id))
}

/// The id of the webhook notice that goes with the mail `id` (a mail's id
/// is hex, so the two never meet): its outbox key is the mail's with `w`
/// after it.
pub fn hook_id(id: &str) -> String {
    format!("{id}w")
}

/// The id of the push notice that goes with the mail `id`: its outbox key
/// is the mail's with `p` after it.
pub fn push_id(id: &str) -> String {
    format!("{id}p")
}

/// Outbox writes with each seat's notice split by channel. A seat's mail
/// is rendered once, carrying its webhook's notice ([`Mail::hook`]) and its
/// browser's ([`Mail::push`]); here it becomes the mail (when the seat gets
/// mail: `to` is not empty) at its key, the webhook notice at the same key
/// with `w` after it and the push notice with `p` after it, so that each is
/// sent, retried and given up on by itself. A withdrawn notice (a queued or
/// held key removed) takes its webhook and push notices with it. Records
/// already split, dead letters and other records pass as they are.
pub fn split_channels(side: Vec<SideWrite>) -> Vec<SideWrite> {
    let splits = |w: &SideWrite| {
        w.side == Side::Outbox
            && matches!(w.key.first(), Some(b'q' | b'h'))
            && !matches!(w.key.last(), Some(&b'w') | Some(&b'p'))
    };
    if !side.iter().any(splits) {
        return side;
    }
    let mut out = Vec::with_capacity(side.len() + 1);
    for w in side {
        if !splits(&w) {
            out.push(w);
            continue;
        }
        let channel_key = |c: u8| {
            let mut k = w.key.clone();
            k.push(c);
            k
        };
        let Some(value) = &w.value else {
            let (hook_key, push_key) = (channel_key(b'w'), channel_key(b'p'));
            out.push(w);
            out.push(SideWrite { side: Side::Outbox, key: hook_key, value: None });
            out.push(SideWrite { side: Side::Outbox, key: push_key, value: None });
            continue;
        };
        let Some(mut mail) = decode(value).ok() else {
            out.push(w);
            continue;
        };
        if mail.hook.is_none() && mail.push.is_none() {
            // A seat told only by a channel this server no longer sends
            // (push turned off): nothing to send at all.
            let value = if mail.to.is_empty() { None } else { w.value };
            out.push(SideWrite { value, ..w });
            continue;
        }
        let (hook, push) = (mail.hook.take(), mail.push.take());
        let bare = Mail { to_name: String::new(), text: String::new(), html: String::new(), ..mail.clone() };
        if let Some(hook) = hook {
            let notice =
                Mail { id: hook_id(&mail.id), to: crate::webhook::masked(&hook.url), hook: Some(hook), ..bare.clone() };
            out.push(SideWrite { side: Side::Outbox, key: channel_key(b'w'), value: Some(encode(&notice)) });
        }
        if let Some(push) = push {
            let notice = Mail {
                id: push_id(&mail.id),
                to: crate::webhook::masked(&push.sub.endpoint),
                push: Some(push),
                ..bare
            };
            out.push(SideWrite { side: Side::Outbox, key: channel_key(b'p'), value: Some(encode(&notice)) });
        }
        let mail_value = (!mail.to.is_empty()).then(|| encode(&mail));
        out.push(SideWrite { side: Side::Outbox, key: w.key, value: mail_value });
    }
    out
}

/// Dead-letter key: by game, then id, so a host can list a game's.
pub fn dead_key(game: &str, id: &str) -> Vec<u8> {
    format!("x{game}/{id}").into_bytes()
}

/// How messages leave the server.
#[derive(Clone)]
pub enum Transport {
    Smtp(Arc<smtp::Pool>),
    File(AsyncFileTransport<Tokio1Executor>),
}

#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("mail configuration: {0}")]
    Config(String),
    #[error("cannot build the message: {0}")]
    Build(String),
    #[error("delivery failed: {0}")]
    Send(String),
    /// A webhook refused for good (a forbidden address, a redirect, a hook
    /// that is gone): never tried again.
    #[error("refused: {0}")]
    Refused(String),
    /// A browser's subscription the push service says is gone: removed
    /// from its seat; the notice is dropped, no failure.
    #[error("gone: {0}")]
    Gone(String),
}

impl Transport {
    /// The transport the settings ask for; `data` is the data directory
    /// (file mail goes to `data/mail`).
    pub fn from_settings(s: &MailSettings, data: &Path) -> Result<Transport, MailError> {
        match s.transport.as_str() {
            "file" => {
                let dir = data.join("mail");
                std::fs::create_dir_all(&dir).map_err(|e| MailError::Config(format!("{}: {e}", dir.display())))?;
                Ok(Transport::File(AsyncFileTransport::new(dir)))
            }
            "smtp" => {
                let tls_for = |host: &str| {
                    TlsParameters::new(host.to_owned()).map_err(|e| MailError::Config(format!("TLS for {host}: {e}")))
                };
                let tls = match s.smtp_tls.as_str() {
                    "none" => smtp::Tls::None,
                    "starttls" => smtp::Tls::StartTls(tls_for(&s.smtp_host)?),
                    "tls" => smtp::Tls::Wrapper(tls_for(&s.smtp_host)?),
                    other => {
                        return Err(MailError::Config(format!(
                            "mail.smtp_tls must be \"none\", \"starttls\" or \"tls\", not {other:?}"
                        )))
                    }
                };
                let credentials = (!s.smtp_username.is_empty())
                    .then(|| Credentials::new(s.smtp_username.clone(), s.smtp_password.clone()));
                Ok(Transport::Smtp(Arc::new(smtp::Pool::new(
                    s.smtp_host.clone(),
                    s.smtp_port,
                    tls,
                    credentials,
                    Duration::from_secs(20),
                    s.connections.clamp(1, 64) as usize,
                    Duration::from_secs(60),
                ))))
            }
            other => Err(MailError::Config(format!("mail.transport must be \"file\" or \"smtp\", not {other:?}"))),
        }
    }

    /// Send `mail`, dated `date` (the server's clock).
    pub async fn send(
        &self,
        mail: &Mail,
        from: &Mailbox,
        domain: &str,
        date: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), MailError> {
        let message = guarded(|| build(mail, from, domain, date))?;
        match self {
            Transport::Smtp(pool) => {
                let raw = guarded(|| Ok(message.formatted()))?;
                pool.send(message.envelope(), &raw).await.map_err(MailError::Send)
            }
            Transport::File(t) => t.send(message).await.map(|_| ()).map_err(|e| MailError::Send(e.to_string())),
        }
    }
}

/// `f`, with a panic inside it (the mail library's formatting panics on some
/// header values) turned into a [`MailError::Build`]: one bad message must
/// never stop the worker that sends all the others.
pub fn guarded<T>(f: impl FnOnce() -> Result<T, MailError>) -> Result<T, MailError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|p| Err(MailError::Build(format!("the mail library failed on it: {}", panic_words(&*p)))))
}

/// What a caught panic said.
pub fn panic_words(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

/// The longest display name put in a `To:` header, in characters.
pub const MAX_HEADER_NAME: usize = 64;
/// The longest subject, in characters.
pub const MAX_SUBJECT: usize = 200;

/// `s` made safe for a header: every control character (a line break above
/// all: it would start a header of the writer's choosing) and the Unicode
/// line and paragraph separators become a space, runs of spaces one, and
/// the text is cut to `max` characters. Names are refused with such
/// characters when given; this keeps older records, and any text that
/// reaches a header by another way, from breaking a message.
pub fn header_text(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max * 4));
    let mut count = 0;
    let mut space = false;
    for c in s.trim().chars() {
        let c = if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') { ' ' } else { c };
        if c == ' ' {
            if space {
                continue;
            }
            space = true;
        } else {
            space = false;
        }
        if count == max {
            out.pop();
            out.push('…');
            break;
        }
        out.push(c);
        count += 1;
    }
    out.trim_end().to_owned()
}

/// The MIME message of an outbox record, dated `date`. The values that go
/// into headers are made safe first ([`header_text`]), whatever the record
/// holds.
pub fn build(
    mail: &Mail,
    from: &Mailbox,
    domain: &str,
    date: chrono::DateTime<chrono::Utc>,
) -> Result<Message, MailError> {
    let name = header_text(&mail.to_name, MAX_HEADER_NAME);
    let to = Mailbox::new(
        (!name.is_empty()).then_some(name),
        mail.to.parse().map_err(|e| MailError::Build(format!("address {:?}: {e}", mail.to)))?,
    );
    let id = header_text(&mail.id, 128);
    let mut b = Message::builder()
        .from(from.clone())
        .to(to)
        .subject(header_text(&mail.subject, MAX_SUBJECT))
        .date(std::time::SystemTime::from(date))
        .message_id(Some(format!("<{id}@{domain}>")));
    if let Some(reply) = &mail.reply_to {
        let reply = reply.parse().map_err(|e| MailError::Build(format!("reply address {reply:?}: {e}")))?;
        b = b.reply_to(Mailbox::new(None, reply));
    }
    if let Some(url) = &mail.unsubscribe {
        let url: String = url.chars().filter(|c| c.is_ascii_graphic()).collect();
        b = b
            .raw_header(HeaderValue::new(HeaderName::new_from_ascii_str("List-Unsubscribe"), format!("<{url}>")))
            .raw_header(HeaderValue::new(
                HeaderName::new_from_ascii_str("List-Unsubscribe-Post"),
                "List-Unsubscribe=One-Click".to_owned(),
            ));
    }
    b.multipart(MultiPart::alternative_plain_html(mail.text.clone(), mail.html.clone()))
        .map_err(|e| MailError::Build(e.to_string()))
}

/// The message templates, embedded in the binary.
pub struct Templates {
    env: minijinja::Environment<'static>,
}

impl Default for Templates {
    fn default() -> Self {
        Templates::new()
    }
}

impl Templates {
    pub fn new() -> Templates {
        let mut env = minijinja::Environment::new();
        for (name, src) in [
            ("layout.html", include_str!("../../templates/email/layout.html")),
            ("invitation.txt", include_str!("../../templates/email/invitation.txt")),
            ("invitation.html", include_str!("../../templates/email/invitation.html")),
            ("your_move.txt", include_str!("../../templates/email/your_move.txt")),
            ("your_move.html", include_str!("../../templates/email/your_move.html")),
            ("reminder.txt", include_str!("../../templates/email/reminder.txt")),
            ("reminder.html", include_str!("../../templates/email/reminder.html")),
            ("game_over.txt", include_str!("../../templates/email/game_over.txt")),
            ("game_over.html", include_str!("../../templates/email/game_over.html")),
            ("host_alert.txt", include_str!("../../templates/email/host_alert.txt")),
            ("host_alert.html", include_str!("../../templates/email/host_alert.html")),
            ("bot_plays.txt", include_str!("../../templates/email/bot_plays.txt")),
            ("bot_plays.html", include_str!("../../templates/email/bot_plays.html")),
            ("confirm_host.txt", include_str!("../../templates/email/confirm_host.txt")),
            ("confirm_host.html", include_str!("../../templates/email/confirm_host.html")),
            ("host_link.txt", include_str!("../../templates/email/host_link.txt")),
            ("host_link.html", include_str!("../../templates/email/host_link.html")),
            ("press.txt", include_str!("../../templates/email/press.txt")),
            ("press.html", include_str!("../../templates/email/press.html")),
            ("orders.txt", include_str!("../../templates/email/orders.txt")),
            ("orders.html", include_str!("../../templates/email/orders.html")),
            ("receipt.txt", include_str!("../../templates/email/receipt.txt")),
            ("receipt.html", include_str!("../../templates/email/receipt.html")),
        ] {
            env.add_template(name, src).expect("embedded templates parse");
        }
        Templates { env }
    }

    /// Text and HTML of `kind` for `ctx`.
    pub fn render(&self, kind: &str, ctx: &serde_json::Value) -> (String, String) {
        let text = self
            .env
            .get_template(&format!("{kind}.txt"))
            .and_then(|t| t.render(ctx))
            .unwrap_or_else(|e| panic!("template {kind}.txt: {e:#}"));
        let html = self
            .env
            .get_template(&format!("{kind}.html"))
            .and_then(|t| t.render(ctx))
            .unwrap_or_else(|e| panic!("template {kind}.html: {e:#}"));
        (text, html)
    }
}

/// A "your move" message to Ása in game `g`, its id made with `who` (tests).
#[cfg(test)]
pub(crate) fn sample(who: &str) -> Mail {
    Mail {
        id: mail_id("g", 3, who, "your_move"),
        game: "g".into(),
        kind: "your_move".into(),
        to_name: "Ása".into(),
        to: "asa@example.org".into(),
        subject: "Your move".into(),
        text: "hello".into(),
        html: "<p>hello</p>".into(),
        unsubscribe: None,
        attempts: 0,
        last_error: None,
        reply_to: None,
        hook: None,
        push: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_renders_with_a_full_context() {
        let t = Templates::new();
        let ctx = serde_json::json!({
            "name": "Ása", "game_name": "Bardagi", "game_id": "abcdefghijklmnop", "link": "http://x/play/g?token=t",
            "prompt": "choose your plan", "deadline": "Tue 24 Nov 18:00 UTC", "recap": ["Red attacked", "Blue built"],
            "seats": [{"name": "Ása", "score": 3}], "summary": "Ása wins", "seed": "00", "replay": "http://x/r",
            "alert": "Bjarni timed out", "unsubscribe": "http://x/u", "preferences": "http://x/p", "others": ["Bjarni"],
            "more": 12, "host": "Gudrun", "site": "http://x", "players": "Ása, Bjarni", "rules": "http://x/rules/bardagi",
            "table": {"round": "round 2 of 6", "phase": "Planning", "score": "Glory", "colour": "Red", "standings": [
                {"name": "Ása", "me": true, "colour": "Red", "score": 7}, {"name": "Bjarni", "me": false, "colour": null, "score": null}]},
        });
        for kind in ["invitation", "your_move", "reminder", "game_over", "host_alert", "confirm_host", "host_link"] {
            let (text, html) = t.render(kind, &ctx);
            assert!(text.contains("Ása") || text.contains("Bjarni"), "{kind}: {text}");
            assert!(html.contains("<html"), "{kind}");
        }
        let (text, html) = t.render("your_move", &ctx);
        for words in [
            "round 2 of 6, Planning",
            "Standings (Glory)",
            "Ása (Red): 7 — you",
            "Bjarni: hidden",
            "and 12 more events",
        ] {
            assert!(text.contains(words), "{words:?} in:\n{text}");
        }
        assert!(html.contains("and 12 more events") && html.contains("Ása (you)"), "{html}");
        let (text, html) = t.render("invitation", &ctx);
        assert!(text.contains("hosted by Gudrun") && text.contains("You play Red"), "{text}");
        assert!(
            text.contains("http://x/rules/bardagi") && html.contains("bardagi\">How to play it here</a>"),
            "{html}"
        );
        assert!(html.contains("hosted by Gudrun") && html.contains("<strong>Red</strong>"), "{html}");
    }

    #[test]
    fn a_message_carries_its_id_and_one_click_unsubscribe() {
        let mail = Mail { unsubscribe: Some("http://x/u".into()), ..super::sample("1") };
        let from: Mailbox = "runestone <rs@example.org>".parse().unwrap();
        let raw =
            String::from_utf8(build(&mail, &from, "example.org", chrono::Utc::now()).unwrap().formatted()).unwrap();
        assert!(raw.contains(&format!("Message-ID: <{}@example.org>", mail.id)), "{raw}");
        assert!(raw.contains("List-Unsubscribe: <http://x/u>"), "{raw}");
        assert!(raw.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click"), "{raw}");
        assert_eq!(queue_due(&queue_key(1234, "ab")), Some(1234));
        let held = held_key("g", 1234, "ab");
        assert!(held.starts_with(&held_prefix("g")) && !held.starts_with(b"q") && !held.starts_with(b"x"));
        assert_eq!(released_key("g", &held, 1000), Some(queue_key(1234, "ab")), "a later due time is kept");
        assert_eq!(released_key("g", &held, 5000), Some(queue_key(5000, "ab")), "an earlier one is now");
        assert_eq!(released_key("other", &held, 0), None);
    }

    #[test]
    fn an_outbox_record_is_stored_compressed_and_reads_back_whole() {
        let t = Templates::new();
        let ctx = serde_json::json!({
            "name": "Ása", "game_name": "Bardagi", "game_id": "abcdefghijklmnop", "link": "http://x/play/g?token=t",
            "host": "Gudrun", "rules": "http://x/rules/bardagi", "unsubscribe": "http://x/u", "preferences": "http://x/p",
            "table": {"round": "round 1 of 6", "phase": "Planning", "score": "Glory", "colour": "Red", "standings": []},
        });
        let (text, html) = t.render("invitation", &ctx);
        let mail = Mail {
            id: mail_id("g", 0, "1", "invitation"),
            game: "g".into(),
            kind: "invitation".into(),
            to_name: "Ása".into(),
            to: "asa@example.org".into(),
            subject: "You are invited".into(),
            text,
            html,
            unsubscribe: Some("http://x/u".into()),
            attempts: 2,
            last_error: Some("delivery failed: 451".into()),
            reply_to: None,
            hook: None,
            push: None,
        };
        let json = serde_json::to_vec(&mail).unwrap();
        let stored = encode(&mail);
        assert!(stored.len() * 4 < json.len() * 3, "{} bytes stored for {} of JSON", stored.len(), json.len());
        assert_eq!(decode(&stored), Ok(mail.clone()));
        // A record an earlier version stored as plain JSON reads as it is.
        assert_eq!(decode(&json), Ok(mail));
        let damaged = decode(&stored[..stored.len() / 2]).unwrap_err();
        assert!(damaged.starts_with("an unreadable outbox record"), "{damaged}");
        let other = decode(b"{\"id\": 3}").unwrap_err();
        assert!(other.starts_with("an outbox record that is not a mail"), "{other}");
    }

    #[test]
    fn a_line_break_in_a_name_or_subject_never_makes_a_header() {
        let mail = Mail {
            to_name: "A\r\nBcc: x@example.org".into(),
            subject: "Ása wins\nBcc: y@example.org\u{2028}X-Evil: 1".into(),
            ..super::sample("1")
        };
        let from: Mailbox = "runestone <rs@example.org>".parse().unwrap();
        let raw =
            String::from_utf8(guarded(|| build(&mail, &from, "example.org", chrono::Utc::now())).unwrap().formatted())
                .unwrap();
        let head = raw.split("\r\n\r\n").next().unwrap();
        for line in head.split("\r\n") {
            let name = line.split(':').next().unwrap_or("");
            assert!(
                line.starts_with([' ', '\t']) || !["Bcc", "X-Evil"].contains(&name),
                "a header made from a name: {line:?} in\n{head}"
            );
        }
        let to = head.split("\r\n").find(|l| l.starts_with("To: ")).expect("a To header");
        assert!(to.ends_with(" <asa@example.org>"), "one line, the name made safe: {to}");
        assert_eq!(header_text(&"ab".repeat(100), 5), "abab…");
        assert_eq!(header_text(" a \t\t b ", 10), "a b");
    }

    #[test]
    fn a_panic_while_building_is_an_error_in_words() {
        let e = guarded::<()>(|| panic!("writing `Mailbox` returned an error")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot build the message: the mail library failed on it: writing `Mailbox` returned an error"
        );
    }

    /// A seat's mail carrying its webhook's and browser's notices becomes
    /// three records at the same key (`w` and `p` after it), each with its
    /// own id; a withdrawal takes all three; a seat mail with no address
    /// and no channel left is not written at all.
    #[test]
    fn a_seat_notice_is_split_by_channel_and_withdrawn_whole() {
        let key = queue_key(5, "abc");
        let hook = crate::webhook::HookNotice {
            url: "https://hooks.example/s3cret".into(),
            shape: crate::webhook::Shape::Json,
            text: "t".into(),
            link: "l".into(),
            stop: "s".into(),
        };
        let push = crate::webpush::PushNotice {
            sub: crate::webpush::Subscription {
                endpoint: "https://push.example/s3cret".into(),
                p256dh: "k".into(),
                auth: "a".into(),
            },
            seat: 1,
            text: "t".into(),
            link: "l".into(),
            stop: "s".into(),
        };
        let mail = Mail { id: "abc".into(), hook: Some(hook), push: Some(push), ..super::sample("1") };
        let out = split_channels(vec![SideWrite { side: Side::Outbox, key: key.clone(), value: Some(encode(&mail)) }]);
        let by_key: std::collections::BTreeMap<Vec<u8>, Mail> =
            out.iter().map(|w| (w.key.clone(), decode(w.value.as_ref().expect("written")).unwrap())).collect();
        let with = |c: u8| [key.as_slice(), &[c]].concat();
        assert_eq!(by_key.len(), 3);
        let (m, h, p) = (&by_key[&key], &by_key[&with(b'w')], &by_key[&with(b'p')]);
        assert_eq!((m.hook.is_none(), m.push.is_none(), m.to.as_str()), (true, true, mail.to.as_str()));
        assert_eq!((h.id.as_str(), h.to.as_str(), h.push.is_none()), ("abcw", "https://hooks.example/…", true));
        assert_eq!((p.id.as_str(), p.to.as_str(), p.hook.is_none()), ("abcp", "https://push.example/…", true));
        assert!(p.text.is_empty() && p.html.is_empty(), "the mail's body stays with the mail");
        let gone = split_channels(vec![SideWrite { side: Side::Outbox, key: key.clone(), value: None }]);
        let keys: Vec<&[u8]> = gone.iter().filter(|w| w.value.is_none()).map(|w| w.key.as_slice()).collect();
        assert_eq!(keys, vec![key.as_slice(), with(b'w').as_slice(), with(b'p').as_slice()]);
        let nothing = Mail { to: String::new(), ..super::sample("2") };
        let out =
            split_channels(vec![SideWrite { side: Side::Outbox, key: key.clone(), value: Some(encode(&nothing)) }]);
        assert_eq!((out.len(), out[0].value.is_none()), (1, true), "no address and no channel: nothing queued");
    }
}
