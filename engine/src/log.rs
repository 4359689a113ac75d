//! The event log's envelope and its hash chain (DESIGN.md §3).
//!
//! Every event is wrapped in an [`Envelope`]. Its hidden part (the body and,
//! on the first event of a decision, the command that caused it) enters the
//! chain only through its [`digest`], an HMAC keyed by the game's secret
//! seed over the hidden part and the public part together (time, actor,
//! visibility, redacted form, decision), so anyone can check the chain of a
//! running game without seeing a secret, and whoever holds the seed (the
//! server at any time, anyone once it is revealed at the end) can check that
//! every event, hidden and public parts, is the one that was written.
//! `hash = SHA-256(prev_hash ‖ public part)`. Logs written before the digest
//! bound the public part hold `HMAC-SHA256(seed, "runestone/body" ‖ seq ‖
//! hidden)` ([`body_digest`]); both forms are checked.

use std::borrow::Cow;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::game::{Seat, Viewer, Visibility};
use crate::press::AfterEnd;
use crate::rng::Seed;

/// `prev_hash` of the first event of every log.
pub const GENESIS: Hash = Hash([0; 32]);

/// A SHA-256 hash or HMAC of the chain: 32 bytes inside, 64 lowercase hex
/// digits on the wire (JSON, exports, `Display`, `FromStr`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Hash(pub [u8; 32]);

impl std::fmt::Display for Hash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut text = [0u8; 64];
        hex::encode_to_slice(self.0, &mut text).map_err(|_| std::fmt::Error)?;
        f.write_str(std::str::from_utf8(&text).map_err(|_| std::fmt::Error)?)
    }
}

impl std::fmt::Debug for Hash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Hash({self})")
    }
}

impl std::str::FromStr for Hash {
    type Err = String;
    fn from_str(s: &str) -> Result<Hash, String> {
        let mut h = [0u8; 32];
        match s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            true if hex::decode_to_slice(s, &mut h).is_ok() => Ok(Hash(h)),
            _ => Err(format!(
                "a hash is 64 lowercase hexadecimal digits, not {:?}",
                s.chars().take(70).collect::<String>()
            )),
        }
    }
}

impl PartialEq<str> for Hash {
    fn eq(&self, other: &str) -> bool {
        other.parse::<Hash>().is_ok_and(|h| h == *self)
    }
}

impl PartialEq<String> for Hash {
    fn eq(&self, other: &String) -> bool {
        self == other.as_str()
    }
}

impl Serialize for Hash {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Hash {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Hash, D::Error> {
        struct HexVisitor;
        impl Visitor<'_> for HexVisitor {
            type Value = Hash;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a hash of 64 lowercase hexadecimal digits")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Hash, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(HexVisitor)
    }
}

/// JSON text in its canonical form: compact, object keys in sorted order,
/// exactly as serde_json writes a [`Value`]. An event's game body, its
/// redacted form and its decision's command are held as this text, so the
/// chain is hashed over the very text an event holds, and reading a stored
/// event builds no [`Value`]: the game reads the text once, straight into its
/// own types ([`Json::read`]; a game's events through
/// [`Game::read_event`](crate::Game::read_event)). Text the store's own codec wrote is taken
/// back without scanning it again ([`Json::from_stored`]).
#[derive(Clone)]
pub struct Json(Box<str>);

impl Json {
    /// The canonical text of a JSON value.
    pub fn new(value: &Value) -> Json {
        Json(value.to_string().into_boxed_str())
    }

    /// The canonical text of anything serialisable (through a [`Value`], which
    /// sorts object keys).
    pub fn of<T: Serialize + ?Sized>(t: &T) -> Json {
        Json::new(&serde_json::to_value(t).expect("the type serialises to JSON"))
    }

    /// Text the store's codec wrote from [`Json::as_str`], read back as it
    /// is, without scanning it again: it is canonical JSON because only this
    /// type wrote it, sled checksums what it holds, and a public event's
    /// text is checked against its chain hash at every read (a hidden one
    /// against its digest by `verify`). Only such text may be given here.
    pub fn from_stored(text: String) -> Json {
        Json(text.into_boxed_str())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text read into `T`.
    pub fn read<'a, T: Deserialize<'a>>(&'a self) -> serde_json::Result<T> {
        serde_json::from_str(&self.0)
    }

    /// The text as a [`Value`] (for the edges that work on JSON trees); a
    /// damaged stored text that is not JSON reads as `null`.
    pub fn value(&self) -> Value {
        self.read().unwrap_or(Value::Null)
    }
}

impl PartialEq for Json {
    fn eq(&self, other: &Json) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Json {}

impl std::fmt::Debug for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Display for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<Value> for Json {
    fn from(v: Value) -> Json {
        Json::new(&v)
    }
}

/// Written as it is, through serde_json's `RawValue` (borrowed from the
/// text, not copied): into text unchanged, into a [`Value`] parsed. Only the
/// edges (API answers, exports) serialise; the store writes [`Json::as_str`].
impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let raw: &serde_json::value::RawValue = serde_json::from_str(&self.0)
            .map_err(|e| serde::ser::Error::custom(format!("stored JSON text is damaged: {e}")))?;
        raw.serialize(s)
    }
}

/// JSON from outside (an export, a stored event of the JSON form) may be
/// laid out in any way: it is brought to the canonical text.
impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        Value::deserialize(d).map(|v| Json::new(&v))
    }
}

/// Who caused an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    Seat(Seat),
    Host,
    Referee,
    /// The server itself: setup, timeouts, the end of a game.
    System,
}

/// Where a fork came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkOrigin {
    pub game: String,
    pub seq: u64,
    pub hash: Hash,
}

/// Who holds a game's token that is not a seat's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Holder {
    Host,
    Referee,
}

impl Holder {
    /// "host" or "referee".
    pub fn name(self) -> &'static str {
        match self {
            Holder::Host => "host",
            Holder::Referee => "referee",
        }
    }
}

/// Events of the kernel itself, common to every game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum KernelEvent {
    /// Always seq 0.
    GameCreated {
        ruleset: String,
        rules_version: u32,
        options: Value,
        /// Display names in seat order.
        seats: Vec<String>,
        seed_commitment: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        forked_from: Option<ForkOrigin>,
    },
    /// A host or referee voided every event after `to_seq`.
    RolledBack { to_seq: u64, reason: String },
    /// A seat took back its own last steps, within its own turn.
    Undone { to_seq: u64 },
    /// Tokens of `seat` older than `generation` no longer work.
    SeatTokenRevoked { seat: Seat, generation: u32, reason: String },
    /// The host's or the referee's tokens older than `generation` no longer
    /// work.
    RoleTokenRevoked { role: Holder, generation: u32, reason: String },
    /// The game is over: its secret seed, so every draw can be re-derived.
    SeedRevealed { seed: String },
    /// The deadline policy (per decision class) from now on.
    DeadlinePolicySet { policy: Value },
    /// A seat missed a deadline and got one extension, until `until`.
    GraceGranted { seat: Seat, kind: String, until: String },
    /// A seat missed its deadline (and its grace); the decision that follows
    /// is taken for it by the system (standing orders, else the fallback).
    TimedOut { seat: Seat, kind: String },
    /// The host stopped every clock. `remaining_ms` is what each pending
    /// decision had left, as "seat/kind" → milliseconds.
    Paused { reason: String, remaining_ms: std::collections::BTreeMap<String, i64> },
    /// The host restarted the clocks.
    Resumed,
    /// The host gave pending decisions (of one seat, or all) more time:
    /// `hours` more, or until `until`.
    Extended { seat: Option<Seat>, hours: Option<i64>, until: Option<String>, reason: String },
    /// A seat's clock stops from `from` to `until` (UTC, RFC 3339).
    VacationTaken { seat: Seat, from: String, until: String },
    /// A new player takes over a seat (its old links are revoked separately).
    SubstituteSeated { seat: Seat, name: String },
    /// A seat is out: from now on the system plays it at once.
    SeatForfeited { seat: Seat, reason: String },
    /// A seat the bot played after missed deadlines is played by its
    /// player again: its count of missed deadlines starts over.
    SeatReturned { seat: Seat },
    /// A message written at the table (see [`crate::press`]): the rules
    /// never read it. `to` is its channel's seats, empty for everyone; `at`
    /// when it was written. Who reads it is the message's own rule
    /// ([`crate::press::sees`]), not its envelope's visibility.
    MessageSent {
        from: Actor,
        to: Vec<Seat>,
        text: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        anonymous: bool,
        #[serde(default)]
        after_end: AfterEnd,
        at: String,
    },
    /// The host or the referee hid the message written at seq `message`
    /// (whose channel is `to`) from its readers, for `reason`.
    MessageHidden { message: u64, by: Actor, to: Vec<Seat>, reason: String },
    /// A seat reported the message written at seq `message` to the host and
    /// the referee, for `reason`.
    MessageReported { message: u64, by: Seat, reason: String },
    /// The decision before this event came by mail: a reply to `seat`'s
    /// reply address. Only the message's `Message-ID` and the SHA-256 of
    /// its bytes are kept, never the message itself.
    OrderMailed { seat: Seat, message_id: String, sha256: String },
}

impl KernelEvent {
    /// Whether `viewer` may read this event, when it is one of press (a
    /// message, a hiding, a report): `None` for every other kernel event.
    pub fn press_seen_by(&self, viewer: Viewer, over: bool) -> Option<bool> {
        match self {
            KernelEvent::MessageSent { from, to, after_end, .. } => {
                Some(crate::press::sees(viewer, *from, to, *after_end, over))
            }
            KernelEvent::MessageHidden { to, .. } => Some(match viewer {
                Viewer::Seat(s) => to.is_empty() || to.contains(&s),
                Viewer::Referee => true,
                Viewer::Public => false,
            }),
            KernelEvent::MessageReported { by, .. } => {
                Some(matches!(viewer, Viewer::Referee) || viewer == Viewer::Seat(*by))
            }
            _ => None,
        }
    }

    /// Whether this is an event of press, which the rules never read.
    pub fn is_press(&self) -> bool {
        matches!(
            self,
            KernelEvent::MessageSent { .. } | KernelEvent::MessageHidden { .. } | KernelEvent::MessageReported { .. }
        )
    }
}

/// An envelope's body: a kernel event or a game's own event.
///
/// Stored as `{"kind": "kernel"|"game", ...}`. It is read by hand (see
/// [`BodyVisitor`]) rather than by serde's internally tagged derive, which
/// buffers the whole event into an intermediate tree before reading it again:
/// with the tag first, as it is always written, the event is read once,
/// straight into its form.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Body {
    Kernel {
        event: KernelEvent,
    },
    /// `v` is the schema version the event was written with.
    Game {
        v: u32,
        event: Json,
    },
}

/// The fields of a stored body.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum BodyField {
    Kind,
    V,
    Event,
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum BodyKind {
    Kernel,
    Game,
}

/// Reads a [`Body`] in one pass when `kind` comes before `event`; if it comes
/// after, the event is held as JSON until its kind is known.
struct BodyVisitor;

impl<'de> Visitor<'de> for BodyVisitor {
    type Value = Body;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an event body with its kind")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Body, A::Error> {
        let mut kind: Option<BodyKind> = None;
        let mut v: Option<u32> = None;
        let mut kernel: Option<KernelEvent> = None;
        let mut event: Option<Json> = None;
        while let Some(field) = map.next_key::<BodyField>()? {
            match field {
                BodyField::Kind => {
                    if kind.is_some() {
                        return Err(de::Error::duplicate_field("kind"));
                    }
                    kind = Some(map.next_value()?);
                }
                BodyField::V => {
                    if v.is_some() {
                        return Err(de::Error::duplicate_field("v"));
                    }
                    v = Some(map.next_value()?);
                }
                BodyField::Event => {
                    if kernel.is_some() || event.is_some() {
                        return Err(de::Error::duplicate_field("event"));
                    }
                    match kind {
                        Some(BodyKind::Kernel) => kernel = Some(map.next_value()?),
                        _ => event = Some(map.next_value()?),
                    }
                }
                BodyField::Other => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        match kind.ok_or_else(|| de::Error::missing_field("kind"))? {
            BodyKind::Kernel => {
                let event = match (kernel, event) {
                    (Some(k), _) => k,
                    (None, Some(e)) => e.read::<KernelEvent>().map_err(de::Error::custom)?,
                    (None, None) => return Err(de::Error::missing_field("event")),
                };
                Ok(Body::Kernel { event })
            }
            BodyKind::Game => Ok(Body::Game {
                v: v.ok_or_else(|| de::Error::missing_field("v"))?,
                event: event.ok_or_else(|| de::Error::missing_field("event"))?,
            }),
        }
    }
}

impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Body, D::Error> {
        d.deserialize_map(BodyVisitor)
    }
}

/// Written on the first event of each decision (a command or the setup).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// The command as submitted; `None` for setup and copied events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Json>,
    /// The seat the command was decided for (also when the system acted
    /// for it on a timeout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    /// How many events the decision produced, this one included.
    pub events: u32,
    /// How many random draws it took.
    pub draws: u32,
    /// Whether its seat may still take it back (nothing hidden, nothing
    /// drawn, the same decisions pending before and after).
    pub undoable: bool,
}

/// One event of a game's log, as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    pub game: String,
    pub seq: u64,
    /// UTC, RFC 3339.
    pub time: String,
    pub actor: Actor,
    pub body: Body,
    pub visibility: Visibility,
    /// What those who may not see `body` see instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<Json>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    pub digest: Hash,
    pub prev_hash: Hash,
    pub hash: Hash,
}

/// What a fold reads of one event, borrowed from where the event is held:
/// an [`Envelope`] ([`Envelope::fold_ref`]) or a store's bytes (the store's
/// codec reads only these parts of its stored form, so folding a log from
/// disk builds no envelope: no strings, no redacted form, no command).
#[derive(Clone, Debug, PartialEq)]
pub struct EventRef<'a> {
    pub game: &'a str,
    pub seq: u64,
    pub actor: Actor,
    pub body: BodyRef<'a>,
    pub decision: Option<DecisionRef>,
    pub prev_hash: Hash,
    pub hash: Hash,
}

/// An event's body as a fold reads it.
#[derive(Clone, Debug, PartialEq)]
pub enum BodyRef<'a> {
    /// A kernel event (few in a log: read whole; boxed, so an event a fold
    /// reads stays small to move).
    Kernel(Box<Cow<'a, KernelEvent>>),
    /// The game's own event, written with schema version `v`: its canonical
    /// JSON text.
    Game { v: u32, event: &'a str },
    /// The game's own event, written with schema version `v`, in the tree
    /// form ([`crate::tree`]) a store keeps it in.
    GameTree { v: u32, event: &'a [u8] },
}

/// What a fold reads of a [`Decision`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecisionRef {
    pub seat: Option<Seat>,
    pub events: u32,
    pub undoable: bool,
}

impl EventRef<'_> {
    pub fn kernel(&self) -> Option<&KernelEvent> {
        match &self.body {
            BodyRef::Kernel(k) => Some(&***k),
            BodyRef::Game { .. } | BodyRef::GameTree { .. } => None,
        }
    }

    pub fn is_game(&self) -> bool {
        matches!(self.body, BodyRef::Game { .. } | BodyRef::GameTree { .. })
    }
}

impl Decision {
    pub fn fold_ref(&self) -> DecisionRef {
        DecisionRef { seat: self.seat, events: self.events, undoable: self.undoable }
    }
}

/// The public part of an event that its chain hash covers, borrowed: from an
/// [`Envelope`] ([`chain_hash`]) or from a store's bytes (which check each
/// event's hash as they read it without building the envelope).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ChainPart<'a> {
    pub game: &'a str,
    pub seq: u64,
    pub time: &'a str,
    pub actor: Actor,
    pub visibility: VisibilityRef<'a>,
    pub redacted: Option<RawJson<'a>>,
    pub events: Option<u32>,
    pub seat: Option<Seat>,
    pub draws: Option<u32>,
    pub undoable: Option<bool>,
    pub digest: Hash,
}

/// A [`Visibility`] borrowed; written as it is.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VisibilityRef<'a> {
    Public,
    Seats(&'a [Seat]),
}

/// A canonical JSON text borrowed, written as it is (as [`Json`] is).
#[derive(Clone, Copy, Debug)]
pub struct RawJson<'a>(pub &'a str);

impl Serialize for RawJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let raw: &serde_json::value::RawValue = serde_json::from_str(self.0)
            .map_err(|e| serde::ser::Error::custom(format!("stored JSON text is damaged: {e}")))?;
        raw.serialize(s)
    }
}

impl ChainPart<'_> {
    /// `SHA-256(prev_hash ‖ public part)`. The hash covers the previous hash
    /// as its hex text, as it always has.
    pub fn hash(&self, prev_hash: &Hash) -> Hash {
        let mut text = Vec::with_capacity(384 + self.redacted.map_or(0, |r| r.0.len()));
        hex_into(&mut text, prev_hash);
        self.write_json(&mut text);
        Hash(Sha256::digest(&text).into())
    }

    /// The part as serde_json writes it (its `Serialize`, the form the chain
    /// has always hashed: a test holds the two equal), written directly: a
    /// chain check of every event read costs no serializer and no second
    /// reading of the redacted text (stored canonical; written as it is).
    fn write_json(&self, out: &mut Vec<u8>) {
        fn opt<T: std::fmt::Display>(out: &mut Vec<u8>, v: Option<T>) {
            use std::io::Write;
            match v {
                Some(v) => write!(out, "{v}").expect("to memory"),
                None => out.extend_from_slice(b"null"),
            }
        }
        out.extend_from_slice(b"{\"game\":");
        serde_json::to_writer(&mut *out, self.game).expect("JSON");
        out.extend_from_slice(b",\"seq\":");
        opt(out, Some(self.seq));
        out.extend_from_slice(b",\"time\":");
        serde_json::to_writer(&mut *out, self.time).expect("JSON");
        out.extend_from_slice(b",\"actor\":");
        serde_json::to_writer(&mut *out, &self.actor).expect("JSON");
        out.extend_from_slice(b",\"visibility\":");
        serde_json::to_writer(&mut *out, &self.visibility).expect("JSON");
        out.extend_from_slice(b",\"redacted\":");
        match self.redacted {
            Some(r) => out.extend_from_slice(r.0.as_bytes()),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"events\":");
        opt(out, self.events);
        out.extend_from_slice(b",\"seat\":");
        opt(out, self.seat);
        out.extend_from_slice(b",\"draws\":");
        opt(out, self.draws);
        out.extend_from_slice(b",\"undoable\":");
        opt(out, self.undoable);
        out.extend_from_slice(b",\"digest\":\"");
        hex_into(out, &self.digest);
        out.extend_from_slice(b"\"}");
    }
}

/// A hash's 64 hex digits appended.
fn hex_into(out: &mut Vec<u8>, h: &Hash) {
    let mut text = [0u8; 64];
    hex::encode_to_slice(h.0, &mut text).expect("64 digits");
    out.extend_from_slice(&text);
}

/// An event before it has a place in the log.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    pub actor: Actor,
    pub body: Body,
    pub visibility: Visibility,
    pub redacted: Option<Json>,
    pub decision: Option<Decision>,
}

impl Draft {
    /// A public kernel event.
    pub fn kernel(actor: Actor, event: KernelEvent) -> Draft {
        Draft { actor, body: Body::Kernel { event }, visibility: Visibility::Public, redacted: None, decision: None }
    }
}

#[derive(Serialize)]
struct Hidden<'a> {
    body: &'a Body,
    command: Option<&'a Json>,
}

/// `seq ‖ {body, command}`: the hidden part as its digests take it.
fn hidden_text(seq: u64, body: &Body, decision: Option<&Decision>) -> Vec<u8> {
    let hidden = Hidden { body, command: decision.and_then(|d| d.command.as_ref()) };
    let mut msg = seq.to_be_bytes().to_vec();
    serde_json::to_writer(&mut msg, &hidden).expect("JSON");
    msg
}

/// The keyed digest of an event's hidden part alone: the form of the
/// digests written before they bound the public part too ([`digest`]).
/// Such an event's time, actor, visibility and redacted form are bound by
/// the chain only, which anyone can compute again.
pub fn body_digest(seed: &Seed, seq: u64, body: &Body, decision: Option<&Decision>) -> Hash {
    Hash(seed.mac(b"runestone/body", &hidden_text(seq, body, decision)))
}

/// The parts of an event its [`digest`] binds, each named in words when a
/// check finds it changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sealed {
    /// The body and the command behind it.
    Body,
    Time,
    Actor,
    /// Visibility, redacted form and the decision's counts and seat.
    Shown,
}

impl Sealed {
    const ALL: [Sealed; 4] = [Sealed::Body, Sealed::Time, Sealed::Actor, Sealed::Shown];

    pub fn words(self) -> &'static str {
        match self {
            Sealed::Body => "body or command",
            Sealed::Time => "time",
            Sealed::Actor => "actor",
            Sealed::Shown => "visibility, redacted form or decision",
        }
    }
}

/// The keyed digest of an event, under the game's secret seed: 16 bytes of
/// `HMAC-SHA256(seed, "runestone/event" ‖ seq ‖ hidden part ‖ public part)`
/// (the public part is what the chain hash covers, but the digest), then
/// four 4-byte marks, each an HMAC of `seq` and one [`Sealed`] part alone.
/// The first 16 bytes decide whether an event is the one sealed (128 bits:
/// no one without the seed can make them for a changed event); the marks
/// only name which part changed.
pub fn digest(seed: &Seed, public: &ChainPart<'_>, body: &Body, decision: Option<&Decision>) -> Hash {
    let seq = public.seq;
    let hidden = hidden_text(seq, body, decision);
    let mut shown = Vec::with_capacity(128 + public.redacted.map_or(0, |r| r.0.len()));
    ChainPart { digest: Hash::default(), ..*public }.write_json(&mut shown);
    let mut out = [0u8; 32];
    let mut whole = hidden.clone();
    whole.extend_from_slice(&shown);
    out[..16].copy_from_slice(&seed.mac(b"runestone/event", &whole)[..16]);
    for (k, part) in Sealed::ALL.into_iter().enumerate() {
        let mark = mark(seed, seq, part, public, &hidden);
        out[16 + 4 * k..20 + 4 * k].copy_from_slice(&mark);
    }
    Hash(out)
}

/// The 4-byte mark of one part of an event.
fn mark(seed: &Seed, seq: u64, part: Sealed, public: &ChainPart<'_>, hidden: &[u8]) -> [u8; 4] {
    let mut msg = seq.to_be_bytes().to_vec();
    let (label, text): (&[u8], Vec<u8>) = match part {
        Sealed::Body => (b"runestone/event/body", hidden.to_vec()),
        Sealed::Time => (b"runestone/event/time", public.time.as_bytes().to_vec()),
        Sealed::Actor => (b"runestone/event/actor", serde_json::to_vec(&public.actor).expect("JSON")),
        Sealed::Shown => {
            let shown = ChainPart { game: "", time: "", actor: Actor::System, digest: Hash::default(), ..*public };
            let mut text = Vec::new();
            shown.write_json(&mut text);
            (b"runestone/event/shown", text)
        }
    };
    msg.extend_from_slice(&text);
    seed.mac(label, &msg)[..4].try_into().expect("4 bytes")
}

/// How an event's digest stands under a seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DigestCheck {
    /// The digest binds the event whole: body, command, time, actor,
    /// visibility, redacted form and decision.
    Sealed,
    /// A digest of the older form ([`body_digest`]): its body and command
    /// match; its public part is bound by the chain only.
    BodyOnly,
    /// The event is not the one its digest was made for: the parts whose
    /// marks differ (none named: the digest itself or the game id changed).
    Differs(Vec<Sealed>),
}

/// The public part of an envelope, borrowed.
pub fn public_part(env: &Envelope) -> ChainPart<'_> {
    ChainPart {
        game: &env.game,
        seq: env.seq,
        time: &env.time,
        actor: env.actor,
        visibility: match &env.visibility {
            Visibility::Public => VisibilityRef::Public,
            Visibility::Seats(s) => VisibilityRef::Seats(s),
        },
        redacted: env.redacted.as_ref().map(|r| RawJson(r.as_str())),
        events: env.decision.as_ref().map(|d| d.events),
        seat: env.decision.as_ref().and_then(|d| d.seat),
        draws: env.decision.as_ref().map(|d| d.draws),
        undoable: env.decision.as_ref().map(|d| d.undoable),
        digest: env.digest,
    }
}

/// Check one event's digest under `seed`.
pub fn check_digest(env: &Envelope, seed: &Seed) -> DigestCheck {
    let public = public_part(env);
    if digest(seed, &public, &env.body, env.decision.as_ref()) == env.digest {
        return DigestCheck::Sealed;
    }
    if body_digest(seed, env.seq, &env.body, env.decision.as_ref()) == env.digest {
        return DigestCheck::BodyOnly;
    }
    let hidden = hidden_text(env.seq, &env.body, env.decision.as_ref());
    let differs = Sealed::ALL
        .into_iter()
        .enumerate()
        .filter(|(k, part)| mark(seed, env.seq, *part, &public, &hidden) != env.digest.0[16 + 4 * k..20 + 4 * k])
        .map(|(_, part)| part)
        .collect();
    DigestCheck::Differs(differs)
}

/// The chain hash of an envelope, from its public part.
pub fn chain_hash(env: &Envelope) -> Hash {
    public_part(env).hash(&env.prev_hash)
}

/// Give drafts their place after `head` (the seq and hash of the last event,
/// or `None` for a new log).
pub fn seal(game: &str, head: Option<(u64, &Hash)>, drafts: Vec<Draft>, time: &str, seed: &Seed) -> Vec<Envelope> {
    let (mut seq, mut prev) = match head {
        Some((s, h)) => (s + 1, *h),
        None => (0, GENESIS),
    };
    let mut out = Vec::with_capacity(drafts.len());
    for d in drafts {
        let mut env = Envelope {
            game: game.to_owned(),
            seq,
            time: time.to_owned(),
            actor: d.actor,
            digest: Hash::default(),
            body: d.body,
            visibility: d.visibility,
            redacted: d.redacted,
            decision: d.decision,
            prev_hash: prev,
            hash: Hash::default(),
        };
        env.digest = digest(seed, &public_part(&env), &env.body, env.decision.as_ref());
        env.hash = chain_hash(&env);
        prev = env.hash;
        seq += 1;
        out.push(env);
    }
    out
}

/// A break in a log's chain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChainError {
    pub seq: u64,
    pub problem: String,
}

/// Check seq numbering, links and hashes of a whole log (no seed needed).
pub fn check_chain(log: &[Envelope]) -> Result<(), ChainError> {
    let mut prev = GENESIS;
    for (i, env) in log.iter().enumerate() {
        let fail = |problem: String| Err(ChainError { seq: env.seq, problem });
        if env.seq != i as u64 {
            return fail(format!("expected seq {i}, found {}", env.seq));
        }
        if env.prev_hash != prev {
            return fail("prev_hash does not match the previous event's hash".into());
        }
        if chain_hash(env) != env.hash {
            return fail("hash does not match the event's content".into());
        }
        prev = env.hash;
    }
    Ok(())
}

/// Check every digest against the seed (possible for the server at any time,
/// and for anyone once the seed is revealed). Answers how many events hold
/// a digest of the older form, which binds only their body and command.
pub fn check_digests(log: &[Envelope], seed: &Seed) -> Result<u64, ChainError> {
    let mut body_only = 0;
    for env in log {
        match check_digest(env, seed) {
            DigestCheck::Sealed => {}
            DigestCheck::BodyOnly => body_only += 1,
            DigestCheck::Differs(parts) => return Err(ChainError { seq: env.seq, problem: differs_words(&parts) }),
        }
    }
    Ok(body_only)
}

/// What [`DigestCheck::Differs`] found, in words.
pub fn differs_words(parts: &[Sealed]) -> String {
    match parts {
        [] => {
            "the event is not the one its digest was made for under the seed (its digest or game id was changed)".into()
        }
        [p] => format!("its {} differs from the one sealed in its digest under the seed", p.words()),
        _ if parts.len() == Sealed::ALL.len() => "the digest does not match the event under the seed: the digest \
             itself was changed, or its body or command (in an event of the older form, which binds only those)"
            .into(),
        _ => format!(
            "its {} differ from the ones sealed in its digest under the seed",
            parts.iter().map(|p| p.words()).collect::<Vec<_>>().join(", and its ")
        ),
    }
}

impl Envelope {
    /// Whether `viewer` may see the body. Once `over`, everything is public.
    /// A message of press is read by its own rule ([`crate::press::sees`]).
    pub fn visible_to(&self, viewer: Viewer, over: bool) -> bool {
        if let Some(seen) = self.kernel().and_then(|k| k.press_seen_by(viewer, over)) {
            return seen;
        }
        over || viewer.sees(&self.visibility)
    }

    /// Whether `viewer` may see the command behind this decision.
    pub fn command_visible_to(&self, viewer: Viewer, over: bool) -> bool {
        over || viewer == Viewer::Referee || matches!((self.actor, viewer), (Actor::Seat(a), Viewer::Seat(b)) if a == b)
    }

    /// The envelope as `viewer` may see it: hidden bodies replaced by their
    /// redacted form, hidden commands removed. Hashes stay, so a redacted log
    /// still proves its chain.
    pub fn redacted_for(&self, viewer: Viewer, over: bool) -> Envelope {
        let mut e = self.clone();
        if !self.visible_to(viewer, over) {
            e.body = match &self.body {
                Body::Game { v, .. } => Body::Game {
                    v: *v,
                    event: self.redacted.clone().unwrap_or_else(|| Json::new(&serde_json::json!({ "type": "Hidden" }))),
                },
                Body::Kernel { .. } => Body::Game { v: 0, event: Json::new(&serde_json::json!({ "type": "Hidden" })) },
            };
        } else if let Body::Kernel { event: KernelEvent::MessageSent { from, anonymous: true, .. } } = &mut e.body {
            // An anonymous message names its writer to the writer and the
            // referee only.
            if viewer != Viewer::Referee && !matches!((*from, viewer), (Actor::Seat(a), Viewer::Seat(b)) if a == b) {
                *from = Actor::System;
            }
        }
        if !self.command_visible_to(viewer, over) {
            if let Some(d) = &mut e.decision {
                d.command = None;
            }
        }
        e
    }

    pub fn kernel(&self) -> Option<&KernelEvent> {
        match &self.body {
            Body::Kernel { event } => Some(event),
            Body::Game { .. } => None,
        }
    }

    /// What a fold reads of this envelope, borrowed.
    pub fn fold_ref(&self) -> EventRef<'_> {
        EventRef {
            game: &self.game,
            seq: self.seq,
            actor: self.actor,
            body: match &self.body {
                Body::Kernel { event } => BodyRef::Kernel(Box::new(Cow::Borrowed(event))),
                Body::Game { v, event } => BodyRef::Game { v: *v, event: event.as_str() },
            },
            decision: self.decision.as_ref().map(Decision::fold_ref),
            prev_hash: self.prev_hash,
            hash: self.hash,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chain part written directly is the very text serde_json writes
    /// of it, for every shape a part takes.
    #[test]
    fn a_chain_part_is_written_as_serde_writes_it() {
        let digest = Hash([7; 32]);
        let seats = [0u8, 2];
        for actor in [Actor::Host, Actor::Referee, Actor::System, Actor::Seat(3)] {
            for visibility in [VisibilityRef::Public, VisibilityRef::Seats(&seats)] {
                for redacted in [None, Some(RawJson(r#"{"a":[1,"x\"y"],"type":"Hidden"}"#))] {
                    for decision in [None, Some((2, Some(1), 3, true)), Some((1, None, 0, false))] {
                        let part = ChainPart {
                            game: "g\"é\\1",
                            seq: 1234567,
                            time: "2026-11-24T02:00:00Z",
                            actor,
                            visibility,
                            redacted,
                            events: decision.map(|d| d.0),
                            seat: decision.and_then(|d| d.1),
                            draws: decision.map(|d| d.2),
                            undoable: decision.map(|d| d.3),
                            digest,
                        };
                        let mut direct = Vec::new();
                        part.write_json(&mut direct);
                        let by_serde = serde_json::to_vec(&part).unwrap();
                        assert_eq!(String::from_utf8(direct).unwrap(), String::from_utf8(by_serde).unwrap());
                        let mut text = GENESIS.to_string().into_bytes();
                        text.extend(serde_json::to_vec(&part).unwrap());
                        assert_eq!(part.hash(&GENESIS), Hash(Sha256::digest(&text).into()));
                    }
                }
            }
        }
    }

    /// A sealed event whose body, time, actor, visibility or redacted form
    /// is changed afterwards no longer matches its digest under the seed,
    /// which names the part changed, even once its chain hash is made again.
    #[test]
    fn a_digest_binds_every_part_of_an_event_and_names_the_one_changed() {
        let seed = Seed([3; 32]);
        let draft = Draft {
            actor: Actor::Seat(1),
            body: Body::Game { v: 1, event: Json::new(&serde_json::json!({ "type": "Bid", "amount": 4 })) },
            visibility: Visibility::Seats(vec![1]),
            redacted: Some(Json::new(&serde_json::json!({ "type": "Bid" }))),
            decision: Some(Decision {
                command: Some(Json::new(&serde_json::json!({ "type": "Bid", "amount": 4 }))),
                seat: Some(1),
                events: 1,
                draws: 0,
                undoable: false,
            }),
        };
        let env = seal("g1", None, vec![draft], "2026-11-24T02:00:00Z", &seed).remove(0);
        assert_eq!(check_digest(&env, &seed), DigestCheck::Sealed);
        assert!(matches!(check_digest(&env, &Seed([4; 32])), DigestCheck::Differs(_)), "another seed");
        type Edit = (fn(&mut Envelope), Vec<Sealed>);
        let edits: [Edit; 7] = [
            (
                |e| e.body = Body::Game { v: 1, event: Json::new(&serde_json::json!({ "type": "Bid", "amount": 5 })) },
                vec![Sealed::Body],
            ),
            (|e| e.decision.as_mut().unwrap().command = None, vec![Sealed::Body]),
            (|e| e.time = "2000-01-01T00:00:00Z".into(), vec![Sealed::Time]),
            (|e| e.actor = Actor::Host, vec![Sealed::Actor]),
            (|e| e.visibility = Visibility::Public, vec![Sealed::Shown]),
            (|e| e.redacted = Some(Json::new(&serde_json::json!({ "type": "Bid", "amount": 0 }))), vec![Sealed::Shown]),
            (
                |e| (e.time, e.actor) = ("2000-01-01T00:00:00Z".into(), Actor::Referee),
                vec![Sealed::Time, Sealed::Actor],
            ),
        ];
        for (edit, parts) in edits {
            let mut changed = env.clone();
            edit(&mut changed);
            changed.hash = chain_hash(&changed);
            assert_eq!(check_digest(&changed, &seed), DigestCheck::Differs(parts.clone()), "{changed:?}");
            let err = check_digests(&[changed], &seed).unwrap_err();
            assert_eq!(err.seq, 0);
            for p in &parts {
                assert!(err.problem.contains(p.words()), "{}", err.problem);
            }
        }
        let mut renamed = env.clone();
        renamed.game = "g2".into();
        assert_eq!(check_digest(&renamed, &seed), DigestCheck::Differs(vec![]));
    }

    /// An event written before digests bound the public part still checks,
    /// and is counted as of the older form.
    #[test]
    fn a_digest_of_the_older_form_still_checks_its_body() {
        let seed = Seed([3; 32]);
        let mut env = seal("g1", None, vec![Draft::kernel(Actor::Host, KernelEvent::Resumed)], "t", &seed).remove(0);
        env.digest = body_digest(&seed, 0, &env.body, None);
        env.hash = chain_hash(&env);
        assert_eq!(check_digest(&env, &seed), DigestCheck::BodyOnly);
        assert_eq!(check_digests(std::slice::from_ref(&env), &seed), Ok(1));
        env.body = Body::Kernel { event: KernelEvent::Undone { to_seq: 0 } };
        assert!(check_digests(&[env], &seed).unwrap_err().problem.contains("older form"));
    }

    fn body(text: &str) -> Result<Body, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_body_reads_back_as_written() {
        let bodies = [
            Body::Game { v: 3, event: Json::new(&serde_json::json!({ "type": "Moved", "to": [1, 2] })) },
            Body::Kernel { event: KernelEvent::Undone { to_seq: 7 } },
            Body::Kernel { event: KernelEvent::Resumed },
        ];
        for b in bodies {
            let text = serde_json::to_string(&b).unwrap();
            assert!(text.starts_with(r#"{"kind":"#), "the kind is written first: {text}");
            assert_eq!(body(&text).unwrap(), b);
            assert_eq!(serde_json::from_value::<Body>(serde_json::to_value(&b).unwrap()).unwrap(), b);
        }
    }

    #[test]
    fn a_body_with_its_kind_last_or_extra_fields_still_reads() {
        assert_eq!(
            body(r#"{"event":{"type":"Undone","to_seq":4},"note":1,"kind":"kernel"}"#).unwrap(),
            Body::Kernel { event: KernelEvent::Undone { to_seq: 4 } }
        );
        assert_eq!(
            body(r#"{"event":{"type":"X"},"v":2,"kind":"game"}"#).unwrap(),
            Body::Game { v: 2, event: Json::new(&serde_json::json!({ "type": "X" })) }
        );
    }

    #[test]
    fn a_broken_body_says_what_is_wrong() {
        assert!(body(r#"{"v":1,"event":{}}"#).unwrap_err().contains("missing field `kind`"));
        assert!(body(r#"{"kind":"game","event":{}}"#).unwrap_err().contains("missing field `v`"));
        assert!(body(r#"{"kind":"game","v":1}"#).unwrap_err().contains("missing field `event`"));
        assert!(body(r#"{"kind":"other","event":{}}"#).unwrap_err().contains("unknown variant `other`"));
        assert!(body(r#"{"kind":"kernel","event":{"type":"Nope"}}"#).unwrap_err().contains("Nope"));
        assert!(body(r#"{"event":{"type":"Nope"},"kind":"kernel"}"#).unwrap_err().contains("Nope"));
        assert!(body(r#"{"kind":"game","kind":"game","v":1,"event":{}}"#).unwrap_err().contains("duplicate field"));
    }
}
