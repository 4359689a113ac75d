//! Playing by replying to mail.
//!
//! Each mail that asks a seat a decision carries a reply address that is
//! a key: `play+<code>@<inbound.domain>`, where the code names the game,
//! the seat, the seat's link generation, the decision asked (the seq at
//! which it was asked), the head the mail was written at and the day the
//! address expires, signed with the server's key under a label of its own
//! ([`ReplyKey`]). Revoking the seat's links (a new generation) revokes
//! every address mailed before; an expired or forged one is refused.
//!
//! A reply ([`Service::receive_mail`], behind `runestone inbound`, the
//! inbound route and the built-in SMTP listener alike) is read by
//! `mail::reply`: its first text/plain part (or its HTML as text), quoted
//! text and signatures cut, an `END` line honoured. Auto-replies, bounces
//! and list mail are ignored; each seat has a rate; the message's size is
//! bounded. Its orders are read in the game's words (the game's own form,
//! else the numbered list of its legal commands, or their words) and
//! decided as the seat's command; the log keeps the message's Message-ID
//! and SHA-256 beside the decision ([`KernelEvent::OrderMailed`]), never
//! the message. The order of arrival is the log's: a later reply to the
//! same open decision replaces an earlier answer where the game lets a
//! seat change its mind (a secret plan before the reveal).
//!
//! Every reply that is a person's gets a receipt, sent to the seat's own
//! registered address only: what was understood, in the game's words, or
//! what was wrong, naming the line, with the form again; each with a "not
//! me: revoke my links" link. A reply whose From is not the seat's address
//! (or that the operator's trusted MTA did not authenticate) is held until
//! the seat confirms it by a link mailed to its own address.

use chrono::{DateTime, Utc};
use runestone_engine::present::orders::plain_words;
use runestone_engine::present::{FormsInput, OrderError, OrderLine};
use runestone_engine::{Actor, Draft, KernelEvent, Table, Viewer};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::deadlines::newly_pending;
use super::notify::game_mail_write;
use super::{GameRecord, Result, Service, ServiceError};
use crate::limits::Limiter;
use crate::mail::reply::{addresses, order_lines, Received};
use crate::mail::{mail_id, Mail};
use crate::store::{Side, SideWrite};

/// How the server takes replies (set once, at start).
pub struct Inbound {
    /// The domain of reply addresses; empty: no replies are taken.
    pub domain: String,
    /// How many days a reply address works.
    pub days: i64,
    /// The `authserv-id` of the operator's own MTA; empty: none trusted.
    pub trusted_mta: String,
    /// The largest message taken.
    pub max_bytes: usize,
    /// Replies per seat per hour.
    pub rate: Limiter,
    /// The key the inbound route asks of `runestone inbound` ([`route_key`]).
    pub route_key: String,
}

/// The inbound route's key: `inbound.route_key` when configured, else one
/// derived from the signing key under a label of its own (so the server
/// and `runestone inbound`, which reads the same key, agree on it).
pub fn route_key(keys: &crate::auth::Keys, configured: &str) -> String {
    if configured.is_empty() {
        keys.link_signature("inbound-route", "runestone inbound")
    } else {
        configured.to_ascii_lowercase()
    }
}

/// The local part's prefix of every reply address.
pub const PREFIX: &str = "play+";
/// The purpose under which reply addresses are signed.
const PURPOSE: &str = "reply-address";
/// What a reply address's code says it is: the answer to a decision.
const KIND_DECISION: u8 = 1;
/// The bytes of a reply address's signature.
const MAC_BYTES: usize = 8;
/// The bytes a reply address names: its kind, the game (10), the seat,
/// the generation, the decision, the head (4 each) and the expiry (2).
const PAYLOAD_BYTES: usize = 26;
/// The most legal commands a mail lists by number.
const MAX_CHOICES: usize = 40;

/// What a reply address names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplyKey {
    pub game: String,
    pub seat: u8,
    /// The seat's link generation the address was made for.
    pub generation: u32,
    /// The seq at which the decision the mail asks was asked.
    pub decision: u32,
    /// The head of the log when the mail was written: the list the mail
    /// numbered is the one of that position.
    pub head: u32,
    /// The last day (days since 1970-01-01, UTC) the address works.
    pub expires: u16,
}

/// Why a reply address is not taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddressProblem {
    /// Not a reply address of this server at all.
    NotOurs,
    /// Its signature is not this server's: forged, or changed.
    Forged,
    /// It was this server's, and expired.
    Expired(ReplyKey),
}

const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

fn base32(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 8 / 5 + 1);
    let (mut acc, mut bits) = (0u32, 0);
    for &b in bytes {
        acc = (acc << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(ALPHABET[((acc >> bits) & 31) as usize] as char);
        }
        acc &= (1 << bits) - 1;
    }
    if bits > 0 {
        out.push(ALPHABET[((acc << (5 - bits)) & 31) as usize] as char);
    }
    out
}

fn unbase32(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 5 / 8);
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes() {
        let v = ALPHABET.iter().position(|&a| a == c.to_ascii_lowercase())? as u32;
        acc = (acc << 5) | v;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
        acc &= (1 << bits) - 1;
    }
    // Only the canonical spelling: the bits left over are zero (so no two
    // addresses read as one key).
    (acc == 0 && bits < 5).then_some(out)
}

/// Days since 1970-01-01 of `t`, as a reply address keeps them.
fn day_of(t: DateTime<Utc>) -> u16 {
    (t.timestamp().div_euclid(86_400)).clamp(0, i64::from(u16::MAX)) as u16
}

impl ReplyKey {
    fn payload(&self) -> Option<Vec<u8>> {
        let game = unbase32(&self.game).filter(|g| g.len() == 10 && self.game.len() == 16)?;
        let mut p = vec![KIND_DECISION];
        p.extend_from_slice(&game);
        p.push(self.seat);
        p.extend_from_slice(&self.generation.to_be_bytes());
        p.extend_from_slice(&self.decision.to_be_bytes());
        p.extend_from_slice(&self.head.to_be_bytes());
        p.extend_from_slice(&self.expires.to_be_bytes());
        Some(p)
    }

    fn mac(keys: &crate::auth::Keys, payload: &[u8]) -> Vec<u8> {
        let sig = keys.link_signature(PURPOSE, &hex::encode(payload));
        hex::decode(&sig[..MAC_BYTES * 2]).expect("hex")
    }

    /// The address's local part (`play+<code>`), 60 characters; `None`
    /// for a game whose id is not one this server makes.
    pub fn local_part(&self, keys: &crate::auth::Keys) -> Option<String> {
        let mut p = self.payload()?;
        let mac = Self::mac(keys, &p);
        p.extend_from_slice(&mac);
        Some(format!("{PREFIX}{}", base32(&p)))
    }

    /// Read and check a reply address (`play+<code>@domain`, any case) on
    /// `today` (days since 1970-01-01).
    pub fn read(
        address: &str,
        domain: &str,
        keys: &crate::auth::Keys,
        today: u16,
    ) -> std::result::Result<ReplyKey, AddressProblem> {
        let address = address.trim().to_ascii_lowercase();
        let (local, dom) = address.rsplit_once('@').ok_or(AddressProblem::NotOurs)?;
        if domain.is_empty() || !dom.eq_ignore_ascii_case(domain) {
            return Err(AddressProblem::NotOurs);
        }
        let code = local.strip_prefix(PREFIX).ok_or(AddressProblem::NotOurs)?;
        let bytes = unbase32(code).ok_or(AddressProblem::Forged)?;
        if bytes.len() != PAYLOAD_BYTES + MAC_BYTES || bytes[0] != KIND_DECISION {
            return Err(AddressProblem::Forged);
        }
        let (p, mac) = bytes.split_at(PAYLOAD_BYTES);
        let want = Self::mac(keys, p);
        if want.iter().zip(mac).fold(0u8, |acc, (a, b)| acc | (a ^ b)) != 0 {
            return Err(AddressProblem::Forged);
        }
        let u32_at = |i: usize| u32::from_be_bytes(p[i..i + 4].try_into().expect("4 bytes"));
        let key = ReplyKey {
            game: base32(&p[1..11]),
            seat: p[11],
            generation: u32_at(12),
            decision: u32_at(16),
            head: u32_at(20),
            expires: u16::from_be_bytes([p[24], p[25]]),
        };
        if today > key.expires {
            return Err(AddressProblem::Expired(key));
        }
        Ok(key)
    }
}

/// What became of a received message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Its order was taken as the seat's decision.
    Accepted,
    /// It waits for the seat to confirm it from its own address.
    Held,
    /// It was answered with what was wrong (or that its decision is closed).
    Answered,
    /// Not a person's reply (an auto-reply, a bounce, list mail): dropped.
    Ignored,
    /// The same message again: already handled.
    Duplicate,
}

/// A received message's outcome, and what it means in words.
#[derive(Clone, Debug, Serialize)]
pub struct Handled {
    pub outcome: Outcome,
    pub detail: String,
}

impl Handled {
    fn new(outcome: Outcome, detail: impl Into<String>) -> Handled {
        Handled { outcome, detail: detail.into() }
    }
}

/// A reply held until its seat confirms it: its order lines (not the
/// message), and where it came from.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct HeldOrder {
    generation: u32,
    decision: u32,
    head: u32,
    lines: Vec<(usize, String)>,
    message_id: String,
    sha256: String,
    from: String,
}

/// A reply as the service takes it: its key, order lines and identity.
struct Reply {
    key: ReplyKey,
    lines: Vec<OrderLine>,
    message_id: String,
    sha256: String,
}

/// The outbox key of a held reply.
fn held_order_key(game: &str, seat: u8, nonce: &str) -> Vec<u8> {
    format!("i{game}/{seat}/{nonce}").into_bytes()
}

/// The outbox key that marks a message handled (by its hash).
fn seen_key(sha256: &str) -> Vec<u8> {
    format!("r{sha256}").into_bytes()
}

/// What a receipt tells.
enum Receipt {
    Understood(String),
    Wrong { line: Option<OrderLine>, message: String },
    Closed(String),
    Expired,
    Confirm { from: String, link: String, lines: Vec<String> },
    Renewed(String),
}

impl Service {
    /// Take replies by mail as `inbound` says (once, at start).
    pub fn set_inbound(&self, inbound: Inbound) {
        let _ = self.inbound.set(inbound);
    }

    /// The inbound settings, when replies are taken.
    pub fn inbound(&self) -> Option<&Inbound> {
        self.inbound.get().filter(|i| !i.domain.is_empty())
    }

    /// The key the inbound route asks for, whether or not replies are
    /// taken (empty before the server is set up).
    pub fn inbound_route_key(&self) -> &str {
        self.inbound.get().map_or("", |i| i.route_key.as_str())
    }

    fn today(&self) -> u16 {
        day_of(self.now())
    }

    /// Note the decisions newly asked of each seat (the seq `since` they
    /// were asked): a reply address names the decision it answers.
    pub(crate) fn note_asked(&self, before: Option<&Table>, after: &Table, since: u64, record: &mut GameRecord) {
        if self.inbound().is_none() {
            return;
        }
        for p in newly_pending(before, after) {
            if let Some(s) = record.seats.get_mut(p.seat as usize) {
                s.asked_at = Some(since);
            }
        }
    }

    /// The reply address of `seat`'s open decision in `table`, and the
    /// order form a mail prints for it; `None` when replies are not taken
    /// or nothing is asked of the seat.
    pub(crate) fn reply_form(&self, table: &Table, record: &GameRecord, seat: u8) -> Option<(String, Value)> {
        let inbound = self.inbound()?;
        if table.is_over() || !table.pending().iter().any(|p| p.seat == seat) {
            return None;
        }
        let key = ReplyKey {
            game: table.game_id.clone(),
            seat,
            generation: table.generations.get(seat as usize).copied()?,
            decision: record.seats.get(seat as usize)?.asked_at.unwrap_or(0) as u32,
            head: table.head as u32,
            expires: day_of(self.now() + chrono::Duration::days(inbound.days)),
        };
        let address = format!("{}@{}", key.local_part(self.keys())?, inbound.domain);
        Some((address.clone(), self.order_form(table, seat, &address)))
    }

    /// The order form of `seat`'s decision: the game's own words, then its
    /// legal commands numbered.
    fn order_form(&self, table: &Table, seat: u8, address: &str) -> Value {
        let view = table.view(Viewer::Seat(seat));
        let legal = table.legal_labelled(seat);
        let words = with_input(table, seat, &view, &legal, |input| table.game().order_form(input));
        let choices: Vec<Value> = legal
            .iter()
            .take(MAX_CHOICES)
            .enumerate()
            .map(|(i, (_, label))| json!({ "n": i + 1, "label": label }))
            .collect();
        json!({
            "address": address,
            "words": words,
            "choices": choices,
            "more": legal.len().saturating_sub(MAX_CHOICES),
        })
    }

    /// Check a recipient before a message is taken (the SMTP listener's
    /// RCPT): a reply address of this server, not expired, not revoked.
    pub async fn check_recipient(&self, address: &str) -> Result<ReplyKey> {
        let inbound = self.inbound().ok_or_else(off)?;
        let key = match ReplyKey::read(address, &inbound.domain, self.keys(), self.today()) {
            Ok(k) => k,
            Err(p) => return Err(address_error(&p)),
        };
        let table = self.game_table(&key.game).await?;
        check_generation(&table, &key)?;
        Ok(key)
    }

    /// Take one received message (`raw`, RFC 5322) sent to `recipient`
    /// (the envelope's, when known; else read from its headers).
    pub async fn receive_mail(&self, raw: &[u8], recipient: Option<&str>) -> Result<Handled> {
        let inbound = self.inbound().ok_or_else(off)?;
        if raw.len() > inbound.max_bytes {
            return Err(ServiceError::TooLarge(format!(
                "the message is {} bytes; replies are taken up to {} bytes: write the order without attachments",
                raw.len(),
                inbound.max_bytes
            )));
        }
        let msg = Received::parse(raw)
            .map_err(|e| ServiceError::Unprocessable(format!("the message cannot be read: {e}")))?;
        let candidates: Vec<String> = match recipient {
            Some(r) => addresses(r).into_iter().chain(std::iter::once(r.trim().to_ascii_lowercase())).collect(),
            None => ["Delivered-To", "X-Original-To", "To", "Cc"]
                .iter()
                .flat_map(|h| msg.headers_named(h).flat_map(addresses).collect::<Vec<_>>())
                .collect(),
        };
        let today = self.today();
        let mut problem = AddressProblem::NotOurs;
        let mut key = None;
        for c in &candidates {
            match ReplyKey::read(c, &inbound.domain, self.keys(), today) {
                Ok(k) => {
                    key = Some(k);
                    break;
                }
                Err(AddressProblem::NotOurs) => {}
                Err(p) => problem = p,
            }
        }
        if let Some(why) = msg.automatic() {
            tracing::info!(why, "a message to a reply address is ignored");
            return Ok(Handled::new(Outcome::Ignored, format!("not taken: {why}")));
        }
        let key = match (key, problem) {
            (Some(k), _) => k,
            (None, AddressProblem::Expired(k)) => {
                // Ours, and out of date: the seat hears why, if it is still theirs.
                let table = self.game_table(&k.game).await?;
                if check_generation(&table, &k).is_ok() && inbound.rate.take(&format!("{}/{}", k.game, k.seat)).is_ok()
                {
                    self.send_receipt(&k.game, k.seat, &msg.sha256, Receipt::Expired).await?;
                }
                return Err(address_error(&AddressProblem::Expired(k)));
            }
            (None, p) => return Err(address_error(&p)),
        };
        let table = self.game_table(&key.game).await?;
        check_generation(&table, &key)?;
        inbound
            .rate
            .take(&format!("{}/{}", key.game, key.seat))
            .map_err(|wait| ServiceError::too_many("this seat has sent as many replies as an hour allows", wait))?;
        if self.store().get(Side::Outbox, &seen_key(&msg.sha256))?.is_some() {
            return Ok(Handled::new(Outcome::Duplicate, "this message was taken already"));
        }
        let seat_address = self.seat_address(&key.game, key.seat).await?;
        let from = msg.from_address().unwrap_or_default();
        let authenticated = inbound.trusted_mta.is_empty() || msg.authenticated_by(&inbound.trusted_mta) == Some(true);
        let reply =
            Reply { key, lines: order_lines(&msg.text), message_id: msg.message_id(), sha256: msg.sha256.clone() };
        if from != seat_address || !authenticated {
            return self.hold(reply, &from, authenticated).await;
        }
        self.take_order(reply).await
    }

    /// The seat's registered address, lowercase (a seat without one cannot
    /// be answered, so it cannot play by mail).
    async fn seat_address(&self, game: &str, seat: u8) -> Result<String> {
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        loaded.record.seats.get(seat as usize).and_then(|s| s.email.clone()).map(|e| e.to_ascii_lowercase()).ok_or_else(
            || ServiceError::Forbidden("this seat has no address of its own to answer; it plays on its page".into()),
        )
    }

    /// Hold a reply from another address (or not authenticated) until the
    /// seat confirms it from its own.
    async fn hold(&self, reply: Reply, from: &str, authenticated: bool) -> Result<Handled> {
        let nonce = hex::encode(crate::random_bytes::<12>());
        let held = HeldOrder {
            generation: reply.key.generation,
            decision: reply.key.decision,
            head: reply.key.head,
            lines: reply.lines.iter().map(|l| (l.number, l.text.clone())).collect(),
            message_id: reply.message_id,
            sha256: reply.sha256.clone(),
            from: from.to_owned(),
        };
        let (game, seat) = (reply.key.game.clone(), reply.key.seat);
        let data = format!("{game}/{seat}/{nonce}");
        let sig = self.keys().link_signature("order", &data);
        let link = format!("{}/mail/order/{data}/{sig}", self.options.public_url.trim_end_matches('/'));
        self.store()
            .put(vec![SideWrite {
                side: Side::Outbox,
                key: held_order_key(&game, seat, &nonce),
                value: Some(serde_json::to_vec(&held).expect("JSON")),
            }])
            .await?;
        let from_words = if from.is_empty() { "an unknown sender".to_owned() } else { from.to_owned() };
        let receipt =
            Receipt::Confirm { from: from_words, link, lines: held.lines.iter().map(|(_, t)| t.clone()).collect() };
        self.send_receipt(&game, seat, &reply.sha256, receipt).await?;
        let why = if authenticated {
            "its From is not the seat's address"
        } else {
            "the receiving MTA did not authenticate its sender"
        };
        Ok(Handled::new(Outcome::Held, format!("held until the seat confirms it from its own address: {why}")))
    }

    /// The seat confirmed a held reply by the link mailed to it.
    pub async fn confirm_order(&self, game: &str, seat: u8, nonce: &str) -> Result<Handled> {
        let key = held_order_key(game, seat, nonce);
        let raw = self.store().get(Side::Outbox, &key)?.ok_or_else(|| {
            ServiceError::NotFound("this order was confirmed already, or is no longer waiting".into())
        })?;
        let held: HeldOrder = serde_json::from_slice(&raw)
            .map_err(|e| crate::store::StoreError::Corrupt(format!("a held order: {e}")))?;
        self.store().put(vec![SideWrite { side: Side::Outbox, key, value: None }]).await?;
        let reply = Reply {
            key: ReplyKey {
                game: game.to_owned(),
                seat,
                generation: held.generation,
                decision: held.decision,
                head: held.head,
                expires: u16::MAX,
            },
            lines: held.lines.into_iter().map(|(number, text)| OrderLine { number, text }).collect(),
            message_id: held.message_id,
            sha256: held.sha256,
        };
        let table = self.game_table(game).await?;
        check_generation(&table, &reply.key)?;
        self.take_order(reply).await
    }

    /// The seat asked, from a receipt, to revoke its links: every token and
    /// reply address mailed so far stops working, and a new link goes to
    /// the seat's own address.
    pub async fn revoke_by_mail(&self, game: &str, seat: u8, generation: u32) -> Result<()> {
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        if loaded.table.generations.get(seat as usize).copied() != Some(generation) {
            return Err(ServiceError::Unprocessable("these links were revoked already".into()));
        }
        let draft =
            loaded.table.revoke(Actor::Seat(seat), seat, "the player revoked their links from a mail's receipt")?;
        self.commit(&slot, loaded, vec![draft], |_, _| Vec::new()).await?;
        let gen = loaded.table.generations[seat as usize];
        let token = self.keys().issue(game, crate::auth::Role::Seat, Some(seat), gen, self.now());
        let link = self.link(game, &token);
        drop(guard);
        self.send_receipt(game, seat, &format!("renewed/{gen}"), Receipt::Renewed(link)).await
    }

    /// Decide a reply's order as its seat's command, answering with a receipt.
    async fn take_order(&self, reply: Reply) -> Result<Handled> {
        let (game, seat) = (reply.key.game.clone(), reply.key.seat);
        let slot = self.slot(&game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(&game, &mut guard).await?;
        let t = &loaded.table;
        let asked = loaded.record.seats.get(seat as usize).and_then(|s| s.asked_at).unwrap_or(0);
        let pending = t.pending().into_iter().any(|p| p.seat == seat);
        if t.is_over() || !pending || asked != u64::from(reply.key.decision) {
            let now = match t.pending().into_iter().filter(|p| p.seat == seat).map(|p| p.prompt).next() {
                _ if t.is_over() => "the game is over".to_owned(),
                Some(prompt) => format!("now you are asked to {prompt}; reply to the mail that asks it"),
                None => "nothing is asked of you now".to_owned(),
            };
            drop(guard);
            let words = format!("the decision this reply answers is closed: {now}. Nothing was changed.");
            self.send_receipt(&game, seat, &reply.sha256, Receipt::Closed(words.clone())).await?;
            return Ok(Handled::new(Outcome::Answered, words));
        }
        let command = match self.read_order(t, seat, &reply).await {
            Ok(c) => c,
            Err(e) => {
                drop(guard);
                let words = match &e.line {
                    Some(l) => format!("line {} (\"{}\"): {}", l.number, l.text, e.message),
                    None => e.message.clone(),
                };
                self.send_receipt(&game, seat, &reply.sha256, Receipt::Wrong { line: e.line, message: e.message })
                    .await?;
                return Ok(Handled::new(Outcome::Answered, words));
            }
        };
        let mut drafts = match t.decide(Actor::Seat(seat), seat, &command.0, None, &loaded.seed) {
            Ok(d) => d,
            Err(e) => {
                drop(guard);
                let message = e.to_string();
                let words = format!("line {} (\"{}\"): {message}", command.1.number, command.1.text);
                self.send_receipt(&game, seat, &reply.sha256, Receipt::Wrong { line: Some(command.1), message })
                    .await?;
                return Ok(Handled::new(Outcome::Answered, words));
            }
        };
        // The mail's trace goes right after the decision's own events, before
        // the seed that a game's end reveals.
        let mailed = Draft::kernel(
            Actor::Seat(seat),
            KernelEvent::OrderMailed { seat, message_id: reply.message_id.clone(), sha256: reply.sha256.clone() },
        );
        let at = drafts
            .iter()
            .position(|d| matches!(&d.body, runestone_engine::Body::Kernel { event: KernelEvent::SeedRevealed { .. } }))
            .unwrap_or(drafts.len());
        drafts.insert(at, mailed);
        let before = t.clone();
        let record = loaded.record.clone();
        let mut understood = String::new();
        let sha = reply.sha256.clone();
        self.commit(&slot, loaded, drafts, |events, _| {
            let mut told = before.clone();
            let words: Vec<String> = told
                .tell_on(events, |_| Err(runestone_engine::FoldError::NeedsRefold))
                .map(|told| {
                    events
                        .iter()
                        .zip(&told)
                        .filter(|(e, _)| !matches!(&e.body, runestone_engine::Body::Kernel { .. }))
                        .map(|(e, t)| t.for_viewer(e, Viewer::Seat(seat), false).to_owned())
                        .collect()
                })
                .unwrap_or_default();
            understood = if words.is_empty() { "your order".to_owned() } else { words.join("; ") };
            let mut side =
                vec![SideWrite { side: Side::Outbox, key: seen_key(&sha), value: Some(game.clone().into_bytes()) }];
            side.extend(self.receipt_write(&before, &record, seat, &sha, Receipt::Understood(understood.clone())));
            side
        })
        .await?;
        tracing::info!(game, seat, "an order by mail was taken");
        Ok(Handled::new(Outcome::Accepted, understood))
    }

    /// A reply's order lines read into one command, and the line it stands on.
    async fn read_order(
        &self,
        t: &Table,
        seat: u8,
        reply: &Reply,
    ) -> std::result::Result<(Value, OrderLine), OrderError> {
        let lines = &reply.lines;
        let Some(first) = lines.first() else {
            return Err(OrderError::whole(
                "the reply has no order above the quoted mail: write the order on the first lines of your reply",
            ));
        };
        let view = t.view(Viewer::Seat(seat));
        let legal = t.legal_labelled(seat);
        if let Some(read) = with_input(t, seat, &view, &legal, |input| t.game().read_orders(lines, input)) {
            return read.map(|c| (c, first.clone()));
        }
        let command = self.read_one(t, seat, reply, first, &legal).await?;
        if let Some(extra) = lines.get(1) {
            return Err(OrderError::at(
                extra,
                "a reply gives one order, on its first line; write nothing more before END, or start a new reply for the next decision",
            ));
        }
        Ok(command)
    }

    /// One line read as a number of the mail's list, or a legal command's words.
    async fn read_one(
        &self,
        t: &Table,
        seat: u8,
        reply: &Reply,
        first: &OrderLine,
        legal: &[(Value, String)],
    ) -> std::result::Result<(Value, OrderLine), OrderError> {
        let text = first.text.trim_start_matches("order:").trim();
        let listed = legal.len().min(MAX_CHOICES);
        if let Ok(n) = text.trim_end_matches('.').parse::<usize>() {
            let none = |listed: usize| {
                OrderError::at(first, format!("there is no order {n}: the mail lists orders 1 to {listed}"))
            };
            // The number is of the list the mail printed: that of its head.
            let label = if u64::from(reply.key.head) == t.head {
                if n == 0 || n > listed {
                    return Err(none(listed));
                }
                legal[n - 1].1.clone()
            } else {
                let then = self.fold_at(&t.game_id, u64::from(reply.key.head), true).await.map_err(|e| {
                    OrderError::at(
                        first,
                        format!("the list of that mail cannot be read again ({e}); write the order in words"),
                    )
                })?;
                let then = then.legal_labelled(seat);
                let shown = then.len().min(MAX_CHOICES);
                if n == 0 || n > shown {
                    return Err(none(shown));
                }
                then[n - 1].1.clone()
            };
            return legal.iter().find(|(_, l)| *l == label).map(|(c, _)| (c.clone(), first.clone())).ok_or_else(|| {
                OrderError::at(first, format!("order {n} (\"{label}\") is no longer possible: the game moved on since the mail; write one of the orders it allows now"))
            });
        }
        let want = plain_words(text);
        let found = legal
            .iter()
            .find(|(_, l)| plain_words(l) == want || plain_words(l.split(" · ").next().unwrap_or(l)) == want);
        found.map(|(c, _)| (c.clone(), first.clone())).ok_or_else(|| {
            OrderError::at(
                first,
                format!("this is not an order the game takes now: write the number of one of the orders listed (1 to {listed}), or its words"),
            )
        })
    }

    /// Send a receipt to `seat`'s own address, outside any decision.
    async fn send_receipt(&self, game: &str, seat: u8, about: &str, receipt: Receipt) -> Result<()> {
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        let (t, record) = (loaded.table.clone(), loaded.record.clone());
        drop(guard);
        if let Some(w) = self.receipt_write(&t, &record, seat, about, receipt) {
            self.store().put(vec![w]).await?;
        }
        Ok(())
    }

    /// A receipt to `seat`'s registered address (whatever its mail
    /// preferences: it answers the seat's own mail) as an outbox write.
    fn receipt_write(
        &self,
        t: &Table,
        record: &GameRecord,
        seat: u8,
        about: &str,
        receipt: Receipt,
    ) -> Option<SideWrite> {
        let s = record.seats.get(seat as usize)?;
        let to = s.email.clone()?;
        let gen = t.generations.get(seat as usize).copied().unwrap_or(0);
        let data = format!("{}/{seat}/{gen}", t.game_id);
        let sig = self.keys().link_signature("revoke", &data);
        let base = self.options.public_url.trim_end_matches('/');
        // A receipt of what was taken, or of new links, asks nothing: the
        // next decision comes with its own mail. The others may be answered
        // by replying to them.
        let asks = !matches!(receipt, Receipt::Understood(_) | Receipt::Renewed(_));
        let (reply_to, form) = match self.reply_form(t, record, seat).filter(|_| asks) {
            Some((a, f)) => (Some(a), Some(f)),
            None => (None, None),
        };
        let mut ctx = json!({
            "name": s.name, "game_name": self.game_name(t), "game_id": t.game_id,
            "link": self.seat_link(t, seat), "revoke": format!("{base}/mail/revoke/{data}/{sig}"),
        });
        let subject = match &receipt {
            Receipt::Understood(words) => {
                ctx["understood"] = json!(words);
                format!("{}: your order is taken", self.game_name(t))
            }
            Receipt::Wrong { line, message } => {
                ctx["wrong"] = json!({ "line": line.as_ref().map(|l| json!({"number": l.number, "text": l.text})), "message": message });
                ctx["orders"] = json!(form);
                format!("{}: your order was not taken", self.game_name(t))
            }
            Receipt::Closed(words) => {
                ctx["closed"] = json!(words);
                format!("{}: that decision is closed", self.game_name(t))
            }
            Receipt::Expired => {
                ctx["expired"] = json!(true);
                format!("{}: that reply address has expired", self.game_name(t))
            }
            Receipt::Confirm { from, link, lines } => {
                ctx["confirm"] = json!({ "from": from, "link": link, "lines": lines });
                format!("{}: confirm the order sent from another address", self.game_name(t))
            }
            Receipt::Renewed(link) => {
                ctx["renewed"] = json!(link);
                format!("{}: your links were revoked; here is your new one", self.game_name(t))
            }
        };
        let (text, html) = self.templates.render("receipt", &ctx);
        let mail = Mail {
            id: mail_id(&t.game_id, t.head, &seat.to_string(), &format!("receipt:{about}")),
            game: t.game_id.clone(),
            kind: "receipt".into(),
            to_name: s.name.clone(),
            to,
            subject,
            text,
            html,
            unsubscribe: None,
            attempts: 0,
            last_error: None,
            reply_to,
            hook: None,
            push: None,
        };
        Some(game_mail_write(record, self.now(), &mail))
    }
}

/// A reply address whose seat's links were renewed is refused.
fn check_generation(table: &Table, key: &ReplyKey) -> Result<()> {
    match table.generations.get(key.seat as usize) {
        Some(&g) if g == key.generation => Ok(()),
        Some(_) => Err(ServiceError::Forbidden(
            "this reply address was revoked (the seat's links were renewed); reply to the game's latest mail".into(),
        )),
        None => Err(ServiceError::NotFound("this reply address names a seat the game does not have".into())),
    }
}

fn address_error(p: &AddressProblem) -> ServiceError {
    match p {
        AddressProblem::NotOurs => ServiceError::NotFound(
            "the message is not to a reply address of this server (play+…@ its inbound domain)".into(),
        ),
        AddressProblem::Forged => {
            ServiceError::Forbidden("this reply address was not made by this server (or was changed)".into())
        }
        AddressProblem::Expired(k) => {
            let day =
                DateTime::from_timestamp(i64::from(k.expires) * 86_400, 0).map(|d| d.format("%-d %b %Y").to_string());
            ServiceError::Forbidden(format!(
                "this reply address expired after {}; reply to the game's latest mail",
                day.unwrap_or_default()
            ))
        }
    }
}

fn off() -> ServiceError {
    ServiceError::NotFound("this server takes no replies by mail (its inbound.domain is not set)".into())
}

/// `f` of the input a game's mail words are written from: `seat`'s view,
/// its legal commands with their labels, the seats' names (as its page's
/// forms are).
fn with_input<T>(
    table: &Table,
    seat: u8,
    view: &Value,
    legal: &[(Value, String)],
    f: impl FnOnce(&FormsInput<'_, Value>) -> T,
) -> T {
    let (commands, labels): (Vec<Value>, Vec<String>) = legal.iter().cloned().unzip();
    let entered = std::collections::BTreeMap::new();
    f(&FormsInput { seat, view, legal: &commands, labels: &labels, entered: &entered, names: &table.created.seats })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_address_reads_back_and_a_changed_one_is_forged() {
        let keys = crate::auth::Keys::new(&[7; 32], 30);
        let key = ReplyKey {
            game: "abcdefghijklmnop".into(),
            seat: 2,
            generation: 3,
            decision: 41,
            head: 57,
            expires: 20_000,
        };
        let local = key.local_part(&keys).expect("an address");
        assert!(local.len() <= 64, "a local part within RFC 5321's 64: {}", local.len());
        let addr = format!("{local}@games.test");
        assert_eq!(ReplyKey::read(&addr, "games.test", &keys, 19_999), Ok(key.clone()));
        assert_eq!(ReplyKey::read(&addr.to_uppercase(), "GAMES.test", &keys, 20_000), Ok(key.clone()), "any case");
        assert_eq!(ReplyKey::read(&addr, "games.test", &keys, 20_001), Err(AddressProblem::Expired(key.clone())));
        let other = crate::auth::Keys::new(&[8; 32], 30);
        assert_eq!(ReplyKey::read(&addr, "games.test", &other, 1), Err(AddressProblem::Forged), "another server's key");
        // One character changed anywhere is a forgery.
        for i in PREFIX.len()..local.len() {
            let mut bytes = local.clone().into_bytes();
            bytes[i] = if bytes[i] == b'a' { b'b' } else { b'a' };
            let changed = format!("{}@games.test", String::from_utf8(bytes).unwrap());
            assert_eq!(ReplyKey::read(&changed, "games.test", &keys, 1), Err(AddressProblem::Forged), "{changed}");
        }
        assert_eq!(ReplyKey::read(&addr, "other.test", &keys, 1), Err(AddressProblem::NotOurs));
        assert_eq!(ReplyKey::read("asa@games.test", "games.test", &keys, 1), Err(AddressProblem::NotOurs));
        assert_eq!(ReplyKey::read("play+zz@games.test", "games.test", &keys, 1), Err(AddressProblem::Forged));
    }

    #[test]
    fn base32_reads_back() {
        for n in 0..40 {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(unbase32(&base32(&bytes)).unwrap()[..n], bytes[..]);
        }
        assert_eq!(base32(&unbase32("abcdefghijklmnop").unwrap()), "abcdefghijklmnop");
    }
}
