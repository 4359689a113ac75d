//! The stored form of an event: the one place every backend turns an
//! [`Envelope`] into the bytes it keeps and back, so sled and any other
//! backend store the same form and a change of form is made once.
//!
//! The form (version 1) is binary: the envelope's fields in a fixed order,
//! numbers as LEB128 varints, texts as a varint length and their UTF-8 bytes,
//! the three hashes as their 32 bytes. The game event, its redacted form, a
//! kernel event and a decision's command stay canonical JSON text (the text
//! the chain is hashed over, read by the game straight into its own types).
//! A command is stored without the parts the event already holds: a
//! sub-value of the command of at least [`SHARED_MIN`] bytes whose text the
//! game event contains (Bardagi's standing orders) is kept as a reference to
//! that span of the event's text. So no `Value` is built when a log is read,
//! and nothing is stored twice.
//!
//! ```text
//! 0x01  seq game time actor visibility body redacted? decision? digest prev_hash hash
//! actor       0 host | 1 referee | 2 system | 3 seat(u8)
//! visibility  0 public | 1 n seat(u8)×n
//! body        0 kernel json | 1 game v json
//! redacted    0 | 1 json
//! decision    0 | 1 flags(1 command, 2 seat, 4 undoable) seat? events draws command?
//! command     n (0 text | 1 offset length into the game event's text)×n
//! ```
//!
//! Version 2 (what stores wrote before version 3) is version 1's bytes after its form
//! byte, compressed against [`DICTIONARY`], a fixed text of sample events of
//! every game (their field and variant names), which encoder and decoder both
//! hold: a sequence of literal runs and copies from the window made of the
//! dictionary followed by the bytes already decoded.
//!
//! ```text
//! 0x02  op*
//! op    varint(len << 1) byte×len          a literal run
//!     | varint(len << 1 | 1) varint(back)  copy len bytes from back bytes before
//! ```
//!
//! An event is stored in version 2 only when that is shorter and decodes back
//! to the very version-1 bytes (checked at every write), else in version 1.
//! The dictionary can never change: every stored event of version 2 depends
//! on it byte for byte (a test pins its hash); a better one is a new version.
//!
//! Version 3 (what this version writes) is version 1's layout with each
//! JSON text as a tree (`runestone_engine::tree`: JSON's data model in
//! binary, object shapes and variant names numbered by a fixed table), not
//! compressed, so a fold reads no text and decompresses nothing: the game
//! reads its event straight from the tree into its type.
//!
//! ```text
//! 0x03  seq time actor visibility body redacted? decision? digest hash
//! time        0 text | 1 varint milliseconds since 1970 (`YYYY-MM-DDTHH:MM:SS.mmmZ`)
//! body        0 kernel json | 1 game v json | 2 game v tree
//! redacted    0 | 1 json | 2 tree
//! decision    0 | 1 flags seat? events draws (0 segments | 1 tree)?
//! ```
//!
//! An event of version 3 does not repeat what its place says: its game (the
//! key it is stored under) and its `prev_hash` (the hash of the event before
//! it, which a backend reads with it: [`RawLog::push_before`]); it is read
//! with them ([`decode_event_after`], [`RawLog`]). So the chain check of a
//! read is each event's hash computed over the hash held before it.
//!
//! A tree is a varint length and its bytes. A command's tree refers to the
//! parts its event's tree holds (Bardagi's standing orders) instead of
//! repeating them. Each text is stored as a tree only when the tree renders
//! back to that very text (checked at every write), else as text; an event
//! carrying text (the few kernel events) is stored in version 2 when that is
//! smaller. The chain hash is over the texts: a read that checks it renders
//! the redacted tree first; the game event's own text is covered by the
//! digest, as before.
//!
//! Bytes starting with `{` are the JSON form every store wrote before
//! version 1, version-1 bytes are what stores wrote before version 2, and
//! version 2 what they wrote before version 3: all still decode (an old
//! store opens and reads as before).
//!
//! A fold needs less than the whole envelope: a [`RawLog`] holds a range of
//! a game's stored events in one buffer (version 3 and 1 as they are,
//! version 2 decompressed into version 1), and [`RawLog::refs`] reads of each only what a
//! fold needs (seq, actor, body, decision counts, hashes), borrowed from
//! that buffer, checking each event's link and chain hash as it goes: no
//! envelope is built, no string allocated for a game event.
//! [`RawLog::refs_remembered`] does the same for a reader that remembers
//! how far it has checked each game's chain ([`ChainMemory`]): the events
//! up to there are read and linked but not hashed again.

use std::borrow::Cow;
use std::ops::Range;

use runestone_engine::game::Visibility;
use runestone_engine::log::{
    BodyRef, ChainPart, Decision, DecisionRef, EventRef, Hash, Json, RawJson, VisibilityRef, GENESIS,
};
use runestone_engine::{tree, Actor, Body, Envelope, KernelEvent};
use serde_json::Value;

use super::{StoreError, StoreResult};

/// The first byte of the version-1 form.
const FORM_V1: u8 = 0x01;
/// The first byte of the version-2 form: version 1 compressed.
const FORM_V2: u8 = 0x02;
/// The first byte of the version-3 form: JSON as trees, not compressed.
const FORM_V3: u8 = 0x03;

/// The text version 2 is compressed against (see the module docs). Never
/// to be edited.
pub const DICTIONARY: &[u8] = include_bytes!("dict-v1.txt");

/// The smallest sub-value of a command stored as a reference into its event.
pub const SHARED_MIN: usize = 64;

/// The bytes a backend stores for one event: version 3 when every JSON
/// text of the event has its tree form, else the smaller of versions 3 and
/// 2 (an event carrying text: the few kernel events).
pub fn encode_event(env: &Envelope) -> Result<Vec<u8>, String> {
    let (v3, all_trees) = encode_v3(env)?;
    if all_trees {
        return Ok(v3);
    }
    let v2 = encode_v2(env)?;
    Ok(if v3.len() <= v2.len() { v3 } else { v2 })
}

/// The version-2 form of an event (what stores wrote before version 3):
/// version 1 compressed when that is smaller and reads back to the same
/// bytes, else version 1.
pub fn encode_v2(env: &Envelope) -> Result<Vec<u8>, String> {
    let v1 = encode_v1(env)?;
    let mut packed = Vec::with_capacity(v1.len() / 2 + 8);
    packed.push(FORM_V2);
    lz::compress(&v1[1..], &mut packed);
    if packed.len() < v1.len() && lz::decompress(&packed[1..]).is_ok_and(|back| back == v1[1..]) {
        Ok(packed)
    } else {
        Ok(v1)
    }
}

/// The first byte of a value a backend stores compressed
/// ([`compress_value`]: snapshots and outbox records); the engine's own
/// forms start with 0x02 or `{`, JSON with `{`.
pub const VALUE_COMPRESSED: u8 = 0xc1;

/// A snapshot's bytes as a backend stores them: compressed as version 2's
/// events are, when that is smaller, else as they are.
pub fn compress_snapshot(snapshot: &[u8]) -> Vec<u8> {
    compress_value(snapshot)
}

/// The snapshot that stored bytes hold ([`compress_snapshot`]'s, or bytes
/// stored as they were); the error says what is wrong with damaged ones.
pub fn decompress_snapshot(stored: &[u8]) -> Result<Vec<u8>, String> {
    decompress_value(stored).map_err(|e| format!("unreadable snapshot: {e}"))
}

/// Bytes that never start with [`VALUE_COMPRESSED`] (JSON, the engine's
/// forms), compressed as version 2's events are behind that tag when that
/// is smaller, else as they are: snapshots, and the outbox's rendered mail
/// (`mail::encode`).
pub fn compress_value(bytes: &[u8]) -> Vec<u8> {
    let mut packed = Vec::with_capacity(bytes.len() / 2 + 8);
    packed.push(VALUE_COMPRESSED);
    lz::compress(bytes, &mut packed);
    if packed.len() < bytes.len() && lz::decompress(&packed[1..]).is_ok_and(|back| back == bytes) {
        packed
    } else {
        bytes.to_vec()
    }
}

/// The bytes [`compress_value`] stored (or bytes stored as they were).
pub fn decompress_value(stored: &[u8]) -> Result<Vec<u8>, String> {
    match stored.split_first() {
        Some((&VALUE_COMPRESSED, packed)) => lz::decompress(packed).map_err(|e| e.to_string()),
        _ => Ok(stored.to_vec()),
    }
}

/// The version-1 form of an event (what stores wrote before version 2).
pub fn encode_v1(env: &Envelope) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(256 + json_len(env));
    out.push(FORM_V1);
    varint(&mut out, env.seq);
    text(&mut out, &env.game);
    text(&mut out, &env.time);
    actor_and_visibility(&mut out, env);
    let game_text = match &env.body {
        Body::Kernel { event } => {
            out.push(0);
            let json = serde_json::to_string(event)
                .map_err(|e| format!("event seq {} cannot be stored: its kernel event: {e}", env.seq))?;
            text(&mut out, &json);
            None
        }
        Body::Game { v, event } => {
            out.push(1);
            varint(&mut out, u64::from(*v));
            text(&mut out, event.as_str());
            Some(event.as_str())
        }
    };
    match &env.redacted {
        None => out.push(0),
        Some(r) => {
            out.push(1);
            text(&mut out, r.as_str());
        }
    }
    match &env.decision {
        None => out.push(0),
        Some(d) => {
            decision_counts(&mut out, d);
            if let Some(c) = &d.command {
                command(&mut out, c, game_text.unwrap_or(""));
            }
        }
    }
    out.extend_from_slice(&env.digest.0);
    out.extend_from_slice(&env.prev_hash.0);
    out.extend_from_slice(&env.hash.0);
    Ok(out)
}

/// The version-3 form of an event, and whether every JSON text of it (but
/// a kernel event's) is a tree.
pub fn encode_v3(env: &Envelope) -> Result<(Vec<u8>, bool), String> {
    let mut out = Vec::with_capacity(192 + json_len(env) / 4);
    let mut all_trees = true;
    out.push(FORM_V3);
    varint(&mut out, env.seq);
    match time::millis(&env.time) {
        Some(ms) => {
            out.push(1);
            varint(&mut out, ms);
        }
        None => {
            out.push(0);
            text(&mut out, &env.time);
        }
    }
    actor_and_visibility(&mut out, env);
    // The game event as a tree (its command refers into that), or as text.
    let mut event_tree: Option<Vec<u8>> = None;
    let mut event_text = None;
    match &env.body {
        Body::Kernel { event } => {
            out.push(0);
            let json = serde_json::to_string(event)
                .map_err(|e| format!("event seq {} cannot be stored: its kernel event: {e}", env.seq))?;
            text(&mut out, &json);
            all_trees = false;
        }
        Body::Game { v, event } => match tree::encode_text(event.as_str()) {
            Some(t) => {
                out.push(2);
                varint(&mut out, u64::from(*v));
                bytes(&mut out, &t);
                event_tree = Some(t);
            }
            None => {
                out.push(1);
                varint(&mut out, u64::from(*v));
                text(&mut out, event.as_str());
                event_text = Some(event.as_str());
                all_trees = false;
            }
        },
    }
    match &env.redacted {
        None => out.push(0),
        Some(r) => match tree::encode_text(r.as_str()) {
            Some(t) => {
                out.push(2);
                bytes(&mut out, &t);
            }
            None => {
                out.push(1);
                text(&mut out, r.as_str());
                all_trees = false;
            }
        },
    }
    match &env.decision {
        None => out.push(0),
        Some(d) => {
            decision_counts(&mut out, d);
            if let Some(c) = &d.command {
                let tree = match &event_tree {
                    Some(base) => tree::encode_text_against(c.as_str(), base),
                    None => tree::encode_text(c.as_str()),
                };
                match tree {
                    Some(t) => {
                        out.push(1);
                        bytes(&mut out, &t);
                    }
                    None => {
                        out.push(0);
                        command(&mut out, c, event_text.unwrap_or(""));
                        all_trees = false;
                    }
                }
            }
        }
    }
    out.extend_from_slice(&env.digest.0);
    out.extend_from_slice(&env.hash.0);
    Ok((out, all_trees))
}

/// The actor and visibility, as versions 1 and 3 write them.
fn actor_and_visibility(out: &mut Vec<u8>, env: &Envelope) {
    match env.actor {
        Actor::Host => out.push(0),
        Actor::Referee => out.push(1),
        Actor::System => out.push(2),
        Actor::Seat(s) => out.extend_from_slice(&[3, s]),
    }
    match &env.visibility {
        Visibility::Public => out.push(0),
        Visibility::Seats(seats) => {
            out.push(1);
            varint(out, seats.len() as u64);
            out.extend_from_slice(seats);
        }
    }
}

/// A decision's marker, flags, seat and counts, as versions 1 and 3 write
/// them (its command follows, in each version's way).
fn decision_counts(out: &mut Vec<u8>, d: &Decision) {
    out.push(1);
    let flags = u8::from(d.command.is_some()) | u8::from(d.seat.is_some()) << 1 | u8::from(d.undoable) << 2;
    out.push(flags);
    if let Some(s) = d.seat {
        out.push(s);
    }
    varint(out, u64::from(d.events));
    varint(out, u64::from(d.draws));
}

/// The events of one append, checked (consecutive from the one after
/// `expect_head`, all of `game`) and each in its stored form, by seq: what
/// every backend writes for an append, refused as malformed in our words.
pub fn encode_append(game: &str, expect_head: Option<u64>, events: &[Envelope]) -> StoreResult<Vec<(u64, Vec<u8>)>> {
    let malformed = |msg: String| StoreError::Malformed(format!("game {game}: {msg}"));
    let first = match expect_head {
        None => 0,
        Some(h) => {
            h.checked_add(1).ok_or_else(|| malformed(format!("expect_head {h} leaves no room for another event")))?
        }
    };
    let mut out = Vec::with_capacity(events.len());
    for (i, env) in events.iter().enumerate() {
        let want = first + i as u64;
        if env.seq != want {
            return Err(malformed(format!(
                "event {i} of the write has seq {}, expected {want} (consecutive after {expect_head:?})",
                env.seq
            )));
        }
        if env.game != game {
            return Err(malformed(format!("event seq {} belongs to game {:?}", env.seq, env.game)));
        }
        out.push((env.seq, encode_event(env).map_err(malformed)?));
    }
    Ok(out)
}

/// The event a backend's stored bytes hold; the error says what is wrong
/// with them, for a `StoreError::Corrupt` naming the game and seq.
pub fn decode_event(bytes: &[u8]) -> Result<Envelope, String> {
    match bytes.first() {
        Some(&FORM_V1) => decode_v1(&bytes[1..]).map_err(|e| format!("unreadable envelope: {e}")),
        Some(&FORM_V2) => {
            lz::decompress(&bytes[1..]).and_then(|v1| decode_v1(&v1)).map_err(|e| format!("unreadable envelope: {e}"))
        }
        Some(&FORM_V3) => {
            Err("unreadable envelope: an event of form 3 is read with its game and the hash of the event \
             before it"
                .into())
        }
        Some(b'{') => serde_json::from_slice(bytes).map_err(|e| format!("unreadable envelope: {e}")),
        Some(b) => Err(format!("unreadable envelope: unknown stored form {b:#04x}")),
        None => Err("unreadable envelope: no bytes".into()),
    }
}

/// The event stored bytes hold, stored under `game` after the event whose
/// hash is `prev_hash` (what an event of form 3 does not repeat; the other
/// forms hold both, and are read as [`decode_event`] reads them).
pub fn decode_event_after(bytes: &[u8], game: &str, prev_hash: Hash) -> Result<Envelope, String> {
    match bytes.split_first() {
        Some((&FORM_V3, rest)) => Parts::read_form(rest, FORM_V3, false, Some((game, prev_hash)))
            .and_then(decode_parts)
            .map_err(|e| format!("unreadable envelope: {e}")),
        _ => decode_event(bytes),
    }
}

/// The hash stored bytes hold, in any form, without reading the rest.
fn stored_hash(stored: &[u8]) -> Result<Hash, String> {
    let last = |b: &[u8]| -> Result<Hash, String> {
        let at = b.len().checked_sub(32).ok_or_else(|| "it ends before its hash".to_owned())?;
        Ok(Hash(b[at..].try_into().expect("32 bytes")))
    };
    match stored.first() {
        Some(&FORM_V1 | &FORM_V3) => last(stored),
        Some(&FORM_V2) => last(&lz::decompress(&stored[1..])?),
        _ => decode_event(stored).map(|e| e.hash),
    }
}

/// About how long the texts of an envelope are.
fn json_len(env: &Envelope) -> usize {
    let body = match &env.body {
        Body::Game { event, .. } => event.as_str().len(),
        Body::Kernel { .. } => 64,
    };
    body + env.redacted.as_ref().map_or(0, |r| r.as_str().len())
        + env.decision.as_ref().and_then(|d| d.command.as_ref()).map_or(0, |c| c.as_str().len())
}

fn varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn text(out: &mut Vec<u8>, s: &str) {
    bytes(out, s.as_bytes());
}

fn bytes(out: &mut Vec<u8>, b: &[u8]) {
    varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// A command as segments: its own text, and spans of the game event's text.
fn command(out: &mut Vec<u8>, command: &Json, event: &str) {
    let c = command.as_str();
    let mut shared = Vec::new();
    if !event.is_empty() && c.len() >= SHARED_MIN {
        if let Ok(v) = command.read::<Value>() {
            shared_parts(&v, event, &mut shared);
        }
    }
    // Each shared part is a span of the command's text equal to a span of the
    // event's text; spans are taken in order and never overlap.
    let mut segments: Vec<(u8, &str, usize)> = Vec::new();
    let mut at = 0;
    for part in &shared {
        let (Some(i), Some(off)) = (c[at..].find(part.as_str()), event.find(part.as_str())) else { continue };
        if i > 0 {
            segments.push((0, &c[at..at + i], 0));
        }
        segments.push((1, part.as_str(), off));
        at += i + part.len();
    }
    if at < c.len() {
        segments.push((0, &c[at..], 0));
    }
    varint(out, segments.len() as u64);
    for (kind, s, off) in segments {
        out.push(kind);
        if kind == 0 {
            text(out, s);
        } else {
            varint(out, off as u64);
            varint(out, s.len() as u64);
        }
    }
}

/// The largest sub-values of `v` (in the order of its text) whose canonical
/// text is at least [`SHARED_MIN`] bytes and found in `event`.
fn shared_parts(v: &Value, event: &str, found: &mut Vec<String>) {
    let children: Vec<&Value> = match v {
        Value::Object(m) => m.values().collect(),
        Value::Array(a) => a.iter().collect(),
        _ => return,
    };
    for child in children {
        if !matches!(child, Value::Object(_) | Value::Array(_)) {
            continue;
        }
        let t = child.to_string();
        if t.len() < SHARED_MIN {
            continue;
        }
        if event.contains(t.as_str()) {
            found.push(t);
        } else {
            shared_parts(child, event, found);
        }
    }
}

struct Reader<'a> {
    b: &'a [u8],
}

impl<'a> Reader<'a> {
    fn byte(&mut self, what: &str) -> Result<u8, String> {
        let (&first, rest) = self.b.split_first().ok_or_else(|| format!("it ends before its {what}"))?;
        self.b = rest;
        Ok(first)
    }

    fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        if self.b.len() < n {
            return Err(format!("it ends inside its {what}"));
        }
        let (head, rest) = self.b.split_at(n);
        self.b = rest;
        Ok(head)
    }

    #[inline]
    fn varint(&mut self, what: &str) -> Result<u64, String> {
        if let Some((&b, rest)) = self.b.split_first() {
            if b < 0x80 {
                self.b = rest;
                return Ok(u64::from(b));
            }
        }
        self.long_varint(what)
    }

    /// A varint of two bytes or more (a time in milliseconds takes six),
    /// out of line so that the one-byte case inlines.
    #[inline(never)]
    fn long_varint(&mut self, what: &str) -> Result<u64, String> {
        let mut n = 0u64;
        for (i, &b) in self.b.iter().take(10).enumerate() {
            n |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                self.b = &self.b[i + 1..];
                return Ok(n);
            }
        }
        Err(if self.b.len() < 10 {
            format!("it ends before its {what}")
        } else {
            format!("its {what} is not a number")
        })
    }

    fn small(&mut self, what: &str) -> Result<u32, String> {
        u32::try_from(self.varint(what)?).map_err(|_| format!("its {what} is out of range"))
    }

    /// A text's bytes, skipped without checking them (a command's text,
    /// checked when the command is read).
    fn bytes_of_text(&mut self, what: &str) -> Result<&'a [u8], String> {
        let n = self.varint(what)?;
        let n = usize::try_from(n).map_err(|_| format!("its {what} is too long"))?;
        self.bytes(n, what)
    }

    fn str(&mut self, what: &str) -> Result<&'a str, String> {
        let n = self.varint(what)?;
        let n = usize::try_from(n).map_err(|_| format!("its {what} is too long"))?;
        std::str::from_utf8(self.bytes(n, what)?).map_err(|_| format!("its {what} is not UTF-8"))
    }

    /// A stored JSON text (never empty).
    fn json(&mut self, what: &str) -> Result<&'a str, String> {
        let s = self.str(what)?;
        if s.is_empty() {
            return Err(format!("its {what} is empty"));
        }
        Ok(s)
    }

    fn actor(&mut self) -> Result<Actor, String> {
        Ok(match self.byte("actor")? {
            0 => Actor::Host,
            1 => Actor::Referee,
            2 => Actor::System,
            3 => Actor::Seat(self.byte("actor's seat")?),
            b => return Err(format!("unknown actor {b}")),
        })
    }

    /// A decision's flags, seat, event count and draw count (what versions
    /// 1 and 3 write before its command).
    fn decision_counts(&mut self) -> Result<(u8, Option<u8>, u32, u32), String> {
        let flags = self.byte("decision")?;
        if flags & !0b111 != 0 {
            return Err(format!("unknown decision flags {flags:#04x}"));
        }
        let seat = if flags & 2 != 0 { Some(self.byte("decision's seat")?) } else { None };
        let events = self.small("decision's event count")?;
        let draws = self.small("decision's draw count")?;
        Ok((flags, seat, events, draws))
    }

    /// A tree's bytes (never empty), unread.
    fn tree(&mut self, what: &str) -> Result<&'a [u8], String> {
        let b = self.bytes_of_text(what)?;
        if b.is_empty() {
            return Err(format!("its {what} is empty"));
        }
        Ok(b)
    }

    fn hash(&mut self, what: &str) -> Result<Hash, String> {
        let b = self.bytes(32, what)?;
        Ok(Hash(b.try_into().expect("32 bytes")))
    }
}

/// The parts of a stored event (version 1 or 3), borrowed from its bytes:
/// what both [`decode_event`] and [`RawLog::refs`] read, so each layout is
/// read in one place. Trees and the command stay unread until asked for.
struct Parts<'a> {
    seq: u64,
    game: &'a str,
    time: PartTime<'a>,
    actor: Actor,
    visibility: Option<&'a [u8]>,
    body: PartBody<'a>,
    redacted: Option<PartJson<'a>>,
    decision: Option<PartDecision<'a>>,
    digest: Hash,
    prev_hash: Hash,
    hash: Hash,
}

#[derive(Clone, Copy)]
enum PartTime<'a> {
    Text(&'a str),
    /// Milliseconds since 1970 ([`time`]).
    Millis(u64),
}

enum PartBody<'a> {
    Kernel(&'a str),
    Game { v: u32, event: &'a str },
    GameTree { v: u32, event: &'a [u8] },
}

#[derive(Clone, Copy)]
enum PartJson<'a> {
    Text(&'a str),
    Tree(&'a [u8]),
}

impl<'a> PartJson<'a> {
    /// Its text (a tree written as its text).
    fn text(self) -> Result<Cow<'a, str>, String> {
        match self {
            PartJson::Text(t) => Ok(Cow::Borrowed(t)),
            PartJson::Tree(t) => tree::render(t, None).map(Cow::Owned).map_err(|e| e.to_string()),
        }
    }
}

struct PartDecision<'a> {
    seat: Option<u8>,
    events: u32,
    draws: u32,
    undoable: bool,
    command: Option<PartCommand<'a>>,
}

enum PartCommand<'a> {
    /// Segments (layout in the module's doc), unread.
    Segments(&'a [u8]),
    /// A tree referring into its event's tree.
    Tree(&'a [u8]),
}

impl<'a> Parts<'a> {
    fn read(bytes: &'a [u8]) -> Result<Parts<'a>, String> {
        Parts::read_form(bytes, FORM_V1, false, None)
    }

    /// An event as a [`RawLog`] holds it: its form byte (1 or 3), then
    /// that form. `lean`: only what a fold of a checked chain reads (seq,
    /// game, actor, body, decision's counts, hashes); the time, redacted
    /// form, digest and command are skipped unread (left empty).
    /// `place`: the game and the hash of the event before, which form 3
    /// does not hold.
    fn read_held(bytes: &'a [u8], lean: bool, place: Option<(&'a str, Hash)>) -> Result<Parts<'a>, String> {
        match bytes.split_first() {
            Some((&FORM_V1, rest)) => Parts::read_form(rest, FORM_V1, lean, None),
            Some((&FORM_V3, rest)) => Parts::read_form(rest, FORM_V3, lean, place),
            _ => Err("a held event of no form".into()),
        }
    }

    fn read_form(bytes: &'a [u8], form: u8, lean: bool, place: Option<(&'a str, Hash)>) -> Result<Parts<'a>, String> {
        let v3 = form == FORM_V3;
        let mut r = Reader { b: bytes };
        let seq = r.varint("seq")?;
        let place = if v3 {
            Some(place.ok_or_else(|| "the hash of the event before it was not read".to_owned())?)
        } else {
            None
        };
        let game = match place {
            Some((game, _)) => game,
            None => r.str("game")?,
        };
        let time = match if v3 { r.byte("time")? } else { 0 } {
            0 if lean => {
                r.bytes_of_text("time")?;
                PartTime::Text("")
            }
            0 => PartTime::Text(r.str("time")?),
            1 => PartTime::Millis(r.varint("time")?),
            b => return Err(format!("unknown time form {b}")),
        };
        let actor = r.actor()?;
        let visibility = match r.byte("visibility")? {
            0 => None,
            1 => {
                let n = r.varint("visibility")?;
                let n = usize::try_from(n).map_err(|_| "its visibility is too long".to_owned())?;
                Some(r.bytes(n, "visibility")?)
            }
            b => return Err(format!("unknown visibility {b}")),
        };
        let body = match r.byte("body")? {
            0 => PartBody::Kernel(r.str("kernel event")?),
            1 => {
                let v = r.small("event version")?;
                PartBody::Game { v, event: r.json("game event")? }
            }
            2 if v3 => {
                let v = r.small("event version")?;
                PartBody::GameTree { v, event: r.tree("game event")? }
            }
            b => return Err(format!("unknown body kind {b}")),
        };
        let redacted = match r.byte("redacted form")? {
            0 => None,
            1 | 2 if lean => {
                r.bytes_of_text("redacted form")?;
                None
            }
            1 => Some(PartJson::Text(r.json("redacted form")?)),
            2 if v3 => Some(PartJson::Tree(r.tree("redacted form")?)),
            b => return Err(format!("unknown redacted marker {b}")),
        };
        let decision = match r.byte("decision")? {
            0 => None,
            1 => {
                let (flags, seat, events, draws) = r.decision_counts()?;
                let command = if flags & 1 == 0 {
                    None
                } else if lean && v3 {
                    r.byte("command")?;
                    r.bytes_of_text("command")?;
                    None
                } else {
                    match if v3 { r.byte("command")? } else { 0 } {
                        0 => Some(PartCommand::Segments(skip_command(&mut r)?)),
                        1 => Some(PartCommand::Tree(r.tree("command")?)),
                        b => return Err(format!("unknown command form {b}")),
                    }
                };
                Some(PartDecision { seat, events, draws, undoable: flags & 4 != 0, command })
            }
            b => return Err(format!("unknown decision marker {b}")),
        };
        let digest = if lean {
            r.bytes(32, "digest")?;
            Hash([0; 32])
        } else {
            r.hash("digest")?
        };
        let prev_hash = match place {
            Some((_, prev)) => prev,
            None => r.hash("prev_hash")?,
        };
        let hash = r.hash("hash")?;
        if !r.b.is_empty() {
            return Err(format!("{} bytes follow its hash", r.b.len()));
        }
        Ok(Parts { seq, game, time, actor, visibility, body, redacted, decision, digest, prev_hash, hash })
    }

    fn kernel(text: &str) -> Result<KernelEvent, String> {
        serde_json::from_str(text).map_err(|e| format!("its kernel event does not read: {e}"))
    }

    fn time(&self) -> Cow<'a, str> {
        match self.time {
            PartTime::Text(t) => Cow::Borrowed(t),
            PartTime::Millis(ms) => Cow::Owned(time::text(ms)),
        }
    }

    /// The hash of the public part the chain hash covers (a tree of it
    /// written as its text first).
    fn chain_hash(&self) -> Result<Hash, String> {
        let time = self.time();
        let redacted = self.redacted.map(PartJson::text).transpose()?;
        let part = ChainPart {
            game: self.game,
            seq: self.seq,
            time: &time,
            actor: self.actor,
            visibility: self.visibility.map_or(VisibilityRef::Public, VisibilityRef::Seats),
            redacted: redacted.as_deref().map(RawJson),
            events: self.decision.as_ref().map(|d| d.events),
            seat: self.decision.as_ref().and_then(|d| d.seat),
            draws: self.decision.as_ref().map(|d| d.draws),
            undoable: self.decision.as_ref().map(|d| d.undoable),
            digest: self.digest,
        };
        Ok(part.hash(&self.prev_hash))
    }
}

fn decode_v1(bytes: &[u8]) -> Result<Envelope, String> {
    decode_parts(Parts::read(bytes)?)
}

fn decode_parts(p: Parts<'_>) -> Result<Envelope, String> {
    let decision = match &p.decision {
        None => None,
        Some(d) => Some(Decision {
            command: match d.command {
                None => None,
                Some(PartCommand::Segments(c)) => Some(read_command(
                    c,
                    match p.body {
                        PartBody::Game { event, .. } => event,
                        _ => "",
                    },
                )?),
                Some(PartCommand::Tree(c)) => {
                    let base = match p.body {
                        PartBody::GameTree { event, .. } => Some(event),
                        _ => None,
                    };
                    let text = tree::render(c, base).map_err(|e| format!("its command: {e}"))?;
                    Some(Json::from_stored(text))
                }
            },
            seat: d.seat,
            events: d.events,
            draws: d.draws,
            undoable: d.undoable,
        }),
    };
    Ok(Envelope {
        game: p.game.to_owned(),
        seq: p.seq,
        time: p.time().into_owned(),
        actor: p.actor,
        body: match p.body {
            PartBody::Kernel(k) => Body::Kernel { event: Parts::kernel(k)? },
            PartBody::Game { v, event } => Body::Game { v, event: Json::from_stored(event.to_owned()) },
            PartBody::GameTree { v, event } => Body::Game {
                v,
                event: Json::from_stored(tree::render(event, None).map_err(|e| format!("its game event: {e}"))?),
            },
        },
        visibility: p.visibility.map_or(Visibility::Public, |s| Visibility::Seats(s.to_vec())),
        redacted: p
            .redacted
            .map(|r| r.text().map(|t| Json::from_stored(t.into_owned())))
            .transpose()
            .map_err(|e| format!("its redacted form: {e}"))?,
        decision,
        digest: p.digest,
        prev_hash: p.prev_hash,
        hash: p.hash,
    })
}

/// A range of one game's stored events, each as its version-1 bytes (after
/// the form byte) in one buffer: version 2 is decompressed into it, version
/// 1 copied, the JSON form re-encoded. What a fold from the store reads
/// ([`RawLog::refs`]), made by the backends' `load_raw`.
#[derive(Debug, Default)]
pub struct RawLog {
    game: String,
    from: u64,
    /// The hash of the event before `from` (the genesis hash before seq 0).
    before: Option<Hash>,
    buf: Vec<u8>,
    spans: Vec<Range<usize>>,
}

impl RawLog {
    /// An empty range of `game` starting at seq `from`. A range that does
    /// not start at seq 0 needs the event before it ([`push_before`](Self::push_before))
    /// before its first event.
    pub fn new(game: &str, from: u64) -> RawLog {
        RawLog {
            game: game.to_owned(),
            from,
            before: (from == 0).then_some(GENESIS),
            buf: Vec::new(),
            spans: Vec::new(),
        }
    }

    /// The stored bytes of the event before the range (seq `from - 1`):
    /// its hash is what the range's first event links to (an event of form 3
    /// does not repeat it).
    pub fn push_before(&mut self, stored: &[u8]) -> StoreResult<()> {
        let seq = self.from.wrapping_sub(1);
        let hash = stored_hash(stored)
            .map_err(|e| StoreError::Corrupt(format!("game {} seq {seq}: unreadable envelope: {e}", self.game)))?;
        self.before = Some(hash);
        Ok(())
    }

    /// Room for about `events` more events (a backend that knows how many
    /// it reads says so, and the buffer is not copied again as it grows).
    pub fn reserve(&mut self, events: usize) {
        self.buf.reserve(events.saturating_mul(Self::EVENT_BYTES));
        self.spans.reserve(events);
    }

    /// About what an event of form 3 takes (the 5-clan golden game: 101
    /// bytes on average).
    const EVENT_BYTES: usize = 128;

    /// The hash the held event `i` links to.
    fn prev_of(&self, i: usize) -> Option<Hash> {
        match i.checked_sub(1) {
            None => self.before,
            Some(p) => self.hash_at(self.from + p as u64),
        }
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The seq of the next event pushed.
    pub fn next_seq(&self) -> u64 {
        self.from + self.spans.len() as u64
    }

    /// The seq of the last event held.
    pub fn last_seq(&self) -> Option<u64> {
        self.next_seq().checked_sub(1).filter(|_| !self.is_empty())
    }

    /// Add the next event's stored bytes (those of seq [`next_seq`](Self::next_seq)).
    pub fn push(&mut self, stored: &[u8]) -> StoreResult<()> {
        let seq = self.next_seq();
        if self.before.is_none() {
            return Err(StoreError::Corrupt(format!(
                "game {} seq {}: missing (the event before seq {seq} was not read)",
                self.game,
                seq.wrapping_sub(1)
            )));
        }
        let corrupt =
            |e: String| StoreError::Corrupt(format!("game {} seq {seq}: unreadable envelope: {e}", self.game));
        let start = self.buf.len();
        let done = match stored.split_first() {
            Some((&FORM_V1 | &FORM_V3, _)) => {
                self.buf.extend_from_slice(stored);
                Ok(())
            }
            Some((&FORM_V2, packed)) => {
                self.buf.push(FORM_V1);
                lz::decompress_into(packed, &mut self.buf)
            }
            Some((b'{', _)) => match decode_event(stored).and_then(|env| encode_v1(&env)) {
                Ok(v1) => {
                    self.buf.extend_from_slice(&v1);
                    Ok(())
                }
                Err(e) => Err(e.strip_prefix("unreadable envelope: ").unwrap_or(&e).to_owned()),
            },
            Some((b, _)) => Err(format!("unknown stored form {b:#04x}")),
            None => Err("no bytes".into()),
        };
        if let Err(e) = done {
            self.buf.truncate(start);
            return Err(corrupt(e));
        }
        self.spans.push(start..self.buf.len());
        Ok(())
    }

    /// Every event held, as whole envelopes, each checked as
    /// [`refs`](Self::refs) checks it: what a backend's `load` returns, so
    /// that a backend has one read path (its `load_raw`) and one set of checks.
    pub fn envelopes(&self) -> StoreResult<Vec<Envelope>> {
        self.refs()?;
        let mut out = Vec::with_capacity(self.spans.len());
        for (i, (seq, span)) in (self.from..).zip(&self.spans).enumerate() {
            let place = self.prev_of(i).map(|prev| (self.game.as_str(), prev));
            let env = Parts::read_held(&self.buf[span.clone()], false, place)
                .and_then(decode_parts)
                .map_err(|e| StoreError::Corrupt(format!("game {} seq {seq}: unreadable envelope: {e}", self.game)))?;
            out.push(env);
        }
        Ok(out)
    }

    /// The hash of the event at `seq`, if it is held (the last 32 bytes of
    /// its version-1 form); not checked against its content (that is
    /// [`refs`](Self::refs)'s work).
    pub fn hash_at(&self, seq: u64) -> Option<Hash> {
        let span = self.spans.get(usize::try_from(seq.checked_sub(self.from)?).ok()?)?;
        let bytes = self.buf.get(span.clone())?;
        let tail = bytes.len().checked_sub(32).map(|at| &bytes[at..])?;
        Some(Hash(tail.try_into().expect("32 bytes")))
    }

    /// What a fold reads of each event, borrowed from the buffer, each
    /// checked as a whole load checks it: its seq and game are the ones it is
    /// stored under, it links to the event before, and its content matches
    /// its chain hash.
    pub fn refs(&self) -> StoreResult<Vec<EventRef<'_>>> {
        self.read_refs(None).map(|(refs, _)| refs)
    }

    /// [`refs`](Self::refs) for a reader that remembers what it has checked
    /// of each game's chain ([`ChainMemory`]): the events up to the highest
    /// seq this process has already checked are read and linked but not
    /// hashed again; the events after it are checked as `refs` checks them,
    /// and the new highest checked seq is remembered. Only a range anchored
    /// in a checked chain is remembered: one starting at seq 0 (linked to
    /// the genesis hash), or at or right after a seq already checked.
    pub fn refs_remembered(&self, memory: &ChainMemory) -> StoreResult<Vec<EventRef<'_>>> {
        let mut known = memory.get(&self.game);
        if known.is_some_and(|(s, h)| self.hash_at(s).is_some_and(|held| held != h)) {
            // The event remembered is not the one stored now: what was
            // remembered of this game no longer holds.
            memory.forget(&self.game);
            known = None;
        }
        let (refs, anchored) = self.read_refs(known)?;
        if let (true, Some(last)) = (anchored, refs.last()) {
            memory.record(&self.game, last.seq, last.hash);
        }
        Ok(refs)
    }

    /// The parts of every event, checked; `known` the highest seq (and its
    /// hash) of this game's chain already checked, whose events are not
    /// hashed again. Also whether the range is anchored in a checked chain.
    fn read_refs(&self, known: Option<(u64, Hash)>) -> StoreResult<(Vec<EventRef<'_>>, bool)> {
        // Trusted up to `known`'s seq, when the range holds that event with
        // the hash remembered, or ends before it (a log only grows: no path
        // rewrites a stored event).
        let trusted = known.filter(|&(s, h)| s >= self.from && self.hash_at(s).is_none_or(|held| held == h));
        let mut anchored = self.from == 0 || trusted.is_some();
        let mut out: Vec<EventRef<'_>> = Vec::with_capacity(self.spans.len());
        let mut prev: Option<Hash> = None;
        for (i, span) in self.spans.iter().enumerate() {
            let seq = self.from + i as u64;
            let corrupt = |e: String| StoreError::Corrupt(format!("game {} seq {seq}: {e}", self.game));
            let checked = trusted.is_some_and(|(s, _)| seq <= s);
            let held = &self.buf[span.clone()];
            let before = self.prev_of(i);
            if let (true, Some(&FORM_V3), Some(before)) = (checked, held.first(), before) {
                // Form 3 holds no prev_hash: its link is the hash held
                // before it (`before`), which is what `prev` holds too, so
                // there is no link to compare; the chain hash of a checked
                // event was computed over that very hash.
                let r = lean_v3(&held[1..], &self.game, seq, before).map_err(corrupt)?;
                prev = Some(r.hash);
                out.push(r);
                continue;
            }
            let p = Parts::read_held(held, checked, before.map(|b| (self.game.as_str(), b)))
                .map_err(|e| corrupt(format!("unreadable envelope: {e}")))?;
            if p.seq != seq || p.game != self.game {
                return Err(corrupt(format!("the stored event names game {:?} seq {}", p.game, p.seq)));
            }
            if prev.is_some_and(|h| h != p.prev_hash) || (seq == 0 && p.prev_hash != GENESIS) {
                return Err(corrupt(format!(
                    "the chain is broken (its prev_hash is not the hash of seq {})",
                    seq.saturating_sub(1)
                )));
            }
            if i == 0 && known.is_some_and(|(s, h)| s + 1 == seq && h == p.prev_hash) {
                anchored = true;
            }
            if !checked && p.chain_hash().map_err(|e| corrupt(format!("unreadable envelope: {e}")))? != p.hash {
                return Err(corrupt("the event's content does not match its hash".into()));
            }
            prev = Some(p.hash);
            let body = match p.body {
                PartBody::Kernel(k) => BodyRef::Kernel(Box::new(Cow::Owned(
                    Parts::kernel(k).map_err(|e| corrupt(format!("unreadable envelope: {e}")))?,
                ))),
                PartBody::Game { v, event } => BodyRef::Game { v, event },
                PartBody::GameTree { v, event } => BodyRef::GameTree { v, event },
            };
            out.push(EventRef {
                game: p.game,
                seq,
                actor: p.actor,
                body,
                decision: p.decision.map(|d| DecisionRef { seat: d.seat, events: d.events, undoable: d.undoable }),
                prev_hash: p.prev_hash,
                hash: p.hash,
            });
        }
        Ok((out, anchored))
    }
}

/// What a fold of a checked chain reads of a version-3 event (its bytes
/// after the form byte), straight into its [`EventRef`]: [`Parts`]'s lean
/// reading of the same layout, without the intermediate parts (the fold's
/// hot path: about a third of a fold from the store was reading parts).
fn lean_v3<'a>(bytes: &'a [u8], game: &'a str, seq: u64, prev_hash: Hash) -> Result<EventRef<'a>, String> {
    let unreadable = |e: String| format!("unreadable envelope: {e}");
    let mut r = Reader { b: bytes };
    let stored_seq = r.varint("seq").map_err(unreadable)?;
    if stored_seq != seq {
        return Err(format!("the stored event names game {game:?} seq {stored_seq}"));
    }
    let mut lean = || -> Result<EventRef<'a>, String> {
        match r.byte("time")? {
            0 => {
                r.bytes_of_text("time")?;
            }
            1 => {
                r.varint("time")?;
            }
            b => return Err(format!("unknown time form {b}")),
        }
        let actor = r.actor()?;
        match r.byte("visibility")? {
            0 => {}
            1 => {
                r.bytes_of_text("visibility")?;
            }
            b => return Err(format!("unknown visibility {b}")),
        }
        let body = match r.byte("body")? {
            0 => BodyRef::Kernel(Box::new(Cow::Owned(Parts::kernel(r.str("kernel event")?)?))),
            1 => {
                let v = r.small("event version")?;
                BodyRef::Game { v, event: r.json("game event")? }
            }
            2 => {
                let v = r.small("event version")?;
                BodyRef::GameTree { v, event: r.tree("game event")? }
            }
            b => return Err(format!("unknown body kind {b}")),
        };
        match r.byte("redacted form")? {
            0 => {}
            1 | 2 => {
                r.bytes_of_text("redacted form")?;
            }
            b => return Err(format!("unknown redacted marker {b}")),
        }
        let decision = match r.byte("decision")? {
            0 => None,
            1 => {
                let (flags, seat, events, _) = r.decision_counts()?;
                if flags & 1 != 0 {
                    match r.byte("command")? {
                        0 => {
                            skip_command(&mut r)?;
                        }
                        1 => {
                            r.tree("command")?;
                        }
                        b => return Err(format!("unknown command form {b}")),
                    }
                }
                Some(DecisionRef { seat, events, undoable: flags & 4 != 0 })
            }
            b => return Err(format!("unknown decision marker {b}")),
        };
        r.bytes(32, "digest")?;
        let hash = r.hash("hash")?;
        if !r.b.is_empty() {
            return Err(format!("{} bytes follow its hash", r.b.len()));
        }
        Ok(EventRef { game, seq, actor, body, decision, prev_hash, hash })
    };
    lean().map_err(unreadable)
}

/// What this process has checked of each game's chain: the highest seq (and
/// its hash) up to which every event's hash was computed from its content
/// and found to match, the events linked from the genesis hash. A fold from
/// the store ([`RawLog::refs_remembered`]) hashes only the events after it,
/// so a game's chain is hashed once per process, not at every fold. Kept by
/// whoever reads through one store handle (the service): a store opened
/// afresh starts with none. Bounded: at [`ChainMemory::GAMES`] games it is
/// emptied and refilled by the games read next (each checked once again).
#[derive(Debug, Default)]
pub struct ChainMemory {
    checked: std::sync::Mutex<std::collections::HashMap<Box<str>, (u64, Hash)>>,
}

impl ChainMemory {
    /// The most games remembered (about 80 bytes each).
    pub const GAMES: usize = 100_000;

    pub fn new() -> ChainMemory {
        ChainMemory::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<Box<str>, (u64, Hash)>> {
        self.checked.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The highest seq of `game` checked, and its hash.
    pub fn get(&self, game: &str) -> Option<(u64, Hash)> {
        self.lock().get(game).copied()
    }

    /// `game`'s chain is checked up to `seq`, whose hash is `hash`.
    pub fn record(&self, game: &str, seq: u64, hash: Hash) {
        let mut m = self.lock();
        match m.get_mut(game) {
            Some(held) if held.0 >= seq => {}
            Some(held) => *held = (seq, hash),
            None => {
                if m.len() >= Self::GAMES {
                    m.clear();
                }
                m.insert(game.into(), (seq, hash));
            }
        }
    }

    /// Forget what was checked of `game` (its stored log is read afresh).
    pub fn forget(&self, game: &str) {
        self.lock().remove(game);
    }

    /// How many games are remembered.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The command's segments, checked for their shape and skipped.
fn skip_command<'a>(r: &mut Reader<'a>) -> Result<&'a [u8], String> {
    let start = r.b;
    let n = r.varint("command")?;
    for _ in 0..n {
        match r.byte("command")? {
            0 => {
                r.bytes_of_text("command")?;
            }
            1 => {
                r.varint("command")?;
                r.varint("command")?;
            }
            b => return Err(format!("unknown command segment {b}")),
        }
    }
    Ok(&start[..start.len() - r.b.len()])
}

/// Version 3's compact time: a time written as `YYYY-MM-DDTHH:MM:SS.mmmZ`
/// (as the service writes every event's) is its milliseconds since 1970;
/// any other text is kept as it is.
mod time {
    /// The milliseconds of `text`, if it is a time of that very form.
    pub(super) fn millis(t: &str) -> Option<u64> {
        let b = t.as_bytes();
        if b.len() != 24 || [4, 7, 10, 13, 16, 19, 23].iter().zip(b"--T::.Z").any(|(&i, &c)| b[i] != c) {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<u64> {
            b[r].iter().try_fold(0u64, |n, &d| d.is_ascii_digit().then(|| n * 10 + u64::from(d - b'0')))
        };
        let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (h, min, sec, ms) = (num(11..13)?, num(14..16)?, num(17..19)?, num(20..23)?);
        if !(1970..=9999).contains(&y)
            || !(1..=12).contains(&m)
            || !(1..=31).contains(&d)
            || h > 23
            || min > 59
            || sec > 59
        {
            return None;
        }
        let days = days_from_civil(y, m, d);
        let total = ((days * 24 + h) * 60 + min) * 60 * 1000 + sec * 1000 + ms;
        // A date that does not exist (the 30th of February) is not this form.
        (text(total) == t).then_some(total)
    }

    /// The text of milliseconds since 1970, in that form.
    pub(super) fn text(ms: u64) -> String {
        let (days, rest) = (ms / 86_400_000, ms % 86_400_000);
        let (y, m, d) = civil_from_days(days);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
            rest / 3_600_000,
            rest / 60_000 % 60,
            rest / 1000 % 60,
            rest % 1000
        )
    }

    /// Days since 1970-01-01 of a date from 1970 on (Howard Hinnant's
    /// `days_from_civil`).
    fn days_from_civil(y: u64, m: u64, d: u64) -> u64 {
        let y = if m <= 2 { y - 1 } else { y };
        let era = y / 400;
        let yoe = y - era * 400;
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    fn civil_from_days(days: u64) -> (u64, u64, u64) {
        let z = days + 719_468;
        let era = z / 146_097;
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        (yoe + era * 400 + u64::from(m <= 2), m, d)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn times_of_the_form_round_trip_and_others_are_kept_as_text() {
            for t in [
                "1970-01-01T00:00:00.000Z",
                "2026-01-01T12:06:00.000Z",
                "2024-02-29T23:59:59.999Z",
                "9999-12-31T23:59:59.999Z",
            ] {
                assert_eq!(text(millis(t).expect(t)), t);
            }
            assert_eq!(millis("1970-01-01T00:00:00.001Z"), Some(1));
            assert_eq!(
                millis("2026-01-02T00:00:00.000Z").unwrap() - millis("2026-01-01T00:00:00.000Z").unwrap(),
                86_400_000
            );
            for t in [
                "2026-01-01T00:00:00Z",
                "2026-02-30T00:00:00.000Z",
                "2025-02-29T00:00:00.000Z",
                "1969-12-31T23:59:59.999Z",
                "2026-01-01T24:00:00.000Z",
                "2026-01-01T00:00:00.000+",
                "2026-01-01T00:00:00.000ZZ",
                "２026-01-01T00:00:00.000Z",
                "",
            ] {
                assert_eq!(millis(t), None, "{t}");
            }
        }
    }
}

/// The compression of version 2: literal runs and copies from a window made
/// of [`DICTIONARY`] and the bytes before (see the module docs).
mod lz {
    use std::sync::OnceLock;

    use super::{varint, Reader, DICTIONARY};

    /// The shortest copy made (a copy costs two or three bytes).
    const MIN_MATCH: usize = 4;
    /// The most earlier places of the same four bytes tried for a copy.
    const TRIES: usize = 8;
    /// A copy this long is taken without looking for a longer one.
    const GOOD_ENOUGH: usize = 48;
    /// The longest a decoded event may be (a bound against damaged bytes).
    const MAX_DECODED: usize = 64 << 20;
    /// Bits of the hash of four bytes that heads the chains of places.
    const HASH_BITS: u32 = 12;
    /// No earlier place in a chain.
    const NONE: u32 = u32::MAX;

    fn hash(b: &[u8]) -> usize {
        (u32::from_le_bytes([b[0], b[1], b[2], b[3]]).wrapping_mul(0x9e37_79b1) >> (32 - HASH_BITS)) as usize
    }

    /// Hash chains of the places of four bytes: `head` the latest place of
    /// each hash, `prev` the place before with the same hash.
    struct Chains {
        head: Vec<u32>,
        prev: Vec<u32>,
    }

    impl Chains {
        fn new(len: usize) -> Chains {
            Chains { head: vec![NONE; 1 << HASH_BITS], prev: vec![NONE; len] }
        }

        fn insert(&mut self, bytes: &[u8], at: usize) {
            if at + MIN_MATCH <= bytes.len() {
                let h = hash(&bytes[at..]);
                self.prev[at] = self.head[h];
                self.head[h] = at as u32;
            }
        }

        /// The places with the hash `h`, latest first, at most [`TRIES`].
        fn places(&self, h: usize) -> impl Iterator<Item = usize> + '_ {
            let mut at = self.head[h];
            std::iter::from_fn(move || {
                (at != NONE).then(|| {
                    let here = at as usize;
                    at = self.prev[here];
                    here
                })
            })
            .take(TRIES)
        }
    }

    /// The dictionary's chains, made once.
    fn dictionary_chains() -> &'static Chains {
        static CHAINS: OnceLock<Chains> = OnceLock::new();
        CHAINS.get_or_init(|| {
            let mut c = Chains::new(DICTIONARY.len());
            for at in 0..DICTIONARY.len() {
                c.insert(DICTIONARY, at);
            }
            c
        })
    }

    fn common(a: &[u8], b: &[u8]) -> usize {
        a.iter().zip(b).take_while(|(x, y)| x == y).count()
    }

    fn literals(out: &mut Vec<u8>, run: &[u8]) {
        if !run.is_empty() {
            varint(out, (run.len() as u64) << 1);
            out.extend_from_slice(run);
        }
    }

    /// Append `input` compressed to `out` (greedy: the longest copy found at
    /// each place, else a literal byte).
    pub(super) fn compress(input: &[u8], out: &mut Vec<u8>) {
        let dictionary = dictionary_chains();
        let base = DICTIONARY.len();
        let mut own = Chains::new(input.len());
        let (mut i, mut run) = (0, 0);
        while i < input.len() {
            let mut best = (0, 0);
            if i + MIN_MATCH <= input.len() {
                let h = hash(&input[i..]);
                for p in own.places(h) {
                    // An earlier place in the input; the copy may run on
                    // into the bytes it is making.
                    let len = (0..input.len() - i).take_while(|&j| input[p + j] == input[i + j]).count();
                    if len > best.0 {
                        best = (len, base + p);
                    }
                }
                if best.0 < GOOD_ENOUGH {
                    for p in dictionary.places(h) {
                        let len = common(&DICTIONARY[p..], &input[i..]);
                        if len > best.0 {
                            best = (len, p);
                        }
                    }
                }
            }
            if best.0 >= MIN_MATCH {
                literals(out, &input[run..i]);
                varint(out, ((best.0 as u64) << 1) | 1);
                varint(out, (base + i - best.1) as u64);
                for j in i..i + best.0 {
                    own.insert(input, j);
                }
                i += best.0;
                run = i;
            } else {
                own.insert(input, i);
                i += 1;
            }
        }
        literals(out, &input[run..]);
    }

    /// The bytes `packed` (made by [`compress`]) stands for; the error says
    /// what is wrong with damaged bytes.
    pub(super) fn decompress(packed: &[u8]) -> Result<Vec<u8>, String> {
        let mut out: Vec<u8> = Vec::with_capacity(packed.len() * 3);
        decompress_into(packed, &mut out)?;
        Ok(out)
    }

    /// [`decompress`], appending to `all` (the bytes already in it are not
    /// part of the window). On an error, what was appended is left.
    pub(super) fn decompress_into(packed: &[u8], all: &mut Vec<u8>) -> Result<(), String> {
        let mut r = Reader { b: packed };
        let origin = all.len();
        all.reserve(packed.len() * 3);
        let base = DICTIONARY.len();
        while !r.b.is_empty() {
            let made = all.len() - origin;
            let tag = r.varint("compressed form")?;
            let len = usize::try_from(tag >> 1).map_err(|_| "its compressed form is damaged".to_owned())?;
            if len == 0 || made.saturating_add(len) > MAX_DECODED {
                return Err("its compressed form is damaged (a run of length 0 or too long)".into());
            }
            if tag & 1 == 0 {
                all.extend_from_slice(r.bytes(len, "compressed form")?);
                continue;
            }
            let back = r.varint("compressed form")?;
            let at = base + made;
            let start = usize::try_from(back)
                .ok()
                .filter(|&b| b > 0 && b <= at)
                .map(|b| at - b)
                .ok_or_else(|| "its compressed form copies from before its beginning".to_owned())?;
            if start + len <= base {
                all.extend_from_slice(&DICTIONARY[start..start + len]);
            } else if start >= base && start - base + len <= made {
                all.extend_from_within(origin + start - base..origin + start - base + len);
            } else {
                for p in start..start + len {
                    let b = if p < base { DICTIONARY[p] } else { all[origin + p - base] };
                    all.push(b);
                }
            }
        }
        Ok(())
    }
}

/// A command from its segments, the shared ones taken from its event's text.
fn read_command(segments: &[u8], event: &str) -> Result<Json, String> {
    let mut r = Reader { b: segments };
    let n = r.varint("command")?;
    let mut c = String::new();
    for _ in 0..n {
        match r.byte("command")? {
            0 => c.push_str(r.str("command")?),
            1 => {
                let off = r.varint("command")? as usize;
                let len = r.varint("command")? as usize;
                let part = off
                    .checked_add(len)
                    .and_then(|end| event.get(off..end))
                    .ok_or_else(|| "its command refers outside its event".to_owned())?;
                c.push_str(part);
            }
            b => return Err(format!("unknown command segment {b}")),
        }
    }
    if c.is_empty() {
        return Err("its command is empty".into());
    }
    Ok(Json::from_stored(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOLDEN: &str = include_str!("../../../events/bardagi/5-players-seed-4.jsonl");

    fn golden() -> impl Iterator<Item = &'static str> {
        GOLDEN.lines().filter(|l| !l.starts_with(r#"{"end""#))
    }

    /// Stores written before version 1 hold each event as its JSON: every
    /// event of a golden log decodes from those bytes, and its JSON is the
    /// same text again.
    #[test]
    fn stored_events_of_the_json_form_still_read() {
        let mut events = 0;
        for line in golden() {
            let env = decode_event(line.as_bytes()).expect("a stored event decodes");
            assert_eq!(env.seq, events);
            assert_eq!(serde_json::to_string(&env).unwrap(), line, "seq {events} reads as it was written");
            events += 1;
        }
        assert!(events > 700, "the whole game was read: {events} events");
    }

    /// Every event of a whole game goes through the binary form unchanged,
    /// its chain still holds, and the form is much smaller than the JSON.
    #[test]
    fn the_binary_form_round_trips_a_whole_game() {
        let log: Vec<Envelope> = golden().map(|l| decode_event(l.as_bytes()).unwrap()).collect();
        let (mut json, mut stored, mut shared) = (0, 0, 0);
        for (env, line) in log.iter().zip(golden()) {
            let bytes = encode_v1(env).expect("encodes");
            assert_eq!(bytes[0], FORM_V1);
            let back = decode_event(&bytes).expect("decodes");
            assert_eq!(&back, env, "seq {}", env.seq);
            assert_eq!(serde_json::to_string(&back).unwrap(), line, "seq {} exports as before", env.seq);
            json += line.len();
            stored += bytes.len();
            if let (Some(c), Body::Game { event, .. }) =
                (env.decision.as_ref().and_then(|d| d.command.as_ref()), &env.body)
            {
                if c.as_str().len() > 1000 && event.as_str().len() > 1000 {
                    shared += 1;
                    assert!(
                        bytes.len() < line.len() - c.as_str().len() / 2,
                        "seq {}: the command is not stored twice",
                        env.seq
                    );
                }
            }
        }
        runestone_engine::log::check_chain(&log).expect("the chain holds");
        let back: Vec<Envelope> = log.iter().map(|e| decode_event(&encode_v1(e).unwrap()).unwrap()).collect();
        runestone_engine::log::check_chain(&back).expect("the chain holds after the round trip");
        assert!(shared > 10, "the game has standing orders set by big commands: {shared}");
        assert!(stored * 10 < json * 6, "{stored} bytes stored against {json} as JSON");
    }

    /// Every golden log under `events/` goes through the binary form and
    /// back to the same JSON text, line for line, so its hashes are the same
    /// and its chain still holds.
    #[test]
    fn every_golden_log_keeps_its_text_and_chain_through_the_stored_form() {
        fn logs(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).expect("events/") {
                let p = entry.expect("entry").path();
                if p.is_dir() {
                    logs(&p, out);
                } else if p.extension().is_some_and(|e| e == "jsonl") {
                    out.push(p);
                }
            }
        }
        let mut files = Vec::new();
        let registry = crate::games::registry();
        logs(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("events"), &mut files);
        assert!(files.len() >= 10, "the golden logs: {files:?}");
        for f in files {
            let text = std::fs::read_to_string(&f).expect("a golden log");
            let mut log = Vec::new();
            for line in text.lines().filter(|l| !l.starts_with(r#"{"end""#)) {
                let env = decode_event(line.as_bytes()).expect("a golden event reads");
                let back = decode_event_after(&encode_event(&env).expect("encodes"), &env.game, env.prev_hash)
                    .expect("decodes");
                assert_eq!(serde_json::to_string(&back).unwrap(), line, "{} seq {}", f.display(), env.seq);
                log.push(back);
            }
            runestone_engine::log::check_chain(&log).unwrap_or_else(|e| panic!("{}: {e:?}", f.display()));
            // Folded from the stored bytes (the game events read from their
            // trees), the game reaches the same position as from its text.
            let mut raw = RawLog::new(&log[0].game, 0);
            for env in &log {
                raw.push(&encode_event(env).unwrap()).unwrap();
            }
            let refs = raw.refs().unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let trees = refs.iter().filter(|r| matches!(r.body, BodyRef::GameTree { .. })).count();
            let games = log.iter().filter(|e| matches!(e.body, Body::Game { .. })).count();
            assert_eq!(trees, games, "{}: every game event is stored as a tree", f.display());
            let as_text = runestone_engine::erased::trees_read_as_text();
            let from_bytes = runestone_engine::Table::fold_refs(&registry, &refs).expect("folds from the bytes");
            assert_eq!(
                runestone_engine::erased::trees_read_as_text(),
                as_text,
                "{}: every tree read straight into the game's type",
                f.display()
            );
            let from_log = runestone_engine::Table::fold(&registry, &log).expect("folds");
            assert_eq!(from_bytes.save(), from_log.save(), "{}", f.display());
            assert_eq!(from_bytes.head_hash, from_log.head_hash);
        }
    }

    /// What a fold reads of a stored event is what the whole envelope says,
    /// in every stored form, and a whole game folds from it to the same
    /// position as from the envelopes; damaged bytes are refused in our words.
    #[test]
    fn a_fold_reads_the_same_parts_from_the_bytes_as_from_the_envelope() {
        let log: Vec<Envelope> = golden().map(|l| decode_event(l.as_bytes()).unwrap()).collect();
        let game = log[0].game.clone();
        let v3: Vec<Vec<u8>> = log.iter().map(|e| encode_event(e).unwrap()).collect();
        assert!(v3.iter().filter(|b| b[0] == FORM_V3).count() > 800, "events are stored in version 3");
        let v2: Vec<Vec<u8>> = log.iter().map(|e| encode_v2(e).unwrap()).collect();
        assert!(v2.iter().filter(|b| b[0] == FORM_V2).count() > 700, "version 2 compressed most");
        let v1: Vec<Vec<u8>> = log.iter().map(|e| encode_v1(e).unwrap()).collect();
        let json: Vec<&[u8]> = golden().map(str::as_bytes).collect();
        let mut mixed = RawLog::new(&game, 0);
        for (i, (((a, b), c), d)) in v3.iter().zip(&v2).zip(&v1).zip(&json).enumerate() {
            mixed.push([&a[..], &b[..], &c[..], d][i % 4]).expect("every form reads");
        }
        let forms = [&v3, &v2, &v1].map(|f| f.iter().map(|b| &b[..]).collect::<Vec<_>>()).into_iter().chain([json]);
        for stored in forms {
            let mut raw = RawLog::new(&game, 0);
            for b in stored {
                raw.push(b).expect("reads");
            }
            let refs = raw.refs().expect("every event's hash holds");
            assert_eq!(refs.len(), log.len());
            for (r, env) in refs.iter().zip(&log) {
                // A tree is the event's text in another form.
                let mut r = r.clone();
                let text;
                if let BodyRef::GameTree { v, event } = r.body {
                    text = tree::render(event, None).unwrap();
                    r.body = BodyRef::Game { v, event: &text };
                }
                assert_eq!(r, env.fold_ref(), "seq {}", env.seq);
                assert_eq!(raw.hash_at(env.seq), Some(env.hash));
            }
        }
        let refs = mixed.refs().expect("a log of mixed forms reads");
        let registry = crate::games::registry();
        let from_bytes = runestone_engine::Table::fold_refs(&registry, &refs).expect("folds from the bytes");
        let from_log = runestone_engine::Table::fold(&registry, &log).expect("folds");
        assert!(from_log.is_over(), "the whole game was folded");
        assert_eq!(from_bytes.save(), from_log.save());

        // A cut event, a form we do not know, a changed time, a broken link.
        let mut raw = RawLog::new(&game, 0);
        let e = raw.push(&v2[3][..v2[3].len() - 1]).unwrap_err().to_string();
        assert!(e.contains(&format!("game {game} seq 0: unreadable envelope")), "{e}");
        assert!(raw.is_empty(), "nothing of a refused event is kept");
        // Version 3 is held as it is and read when its parts are.
        let first = encode_v3(&log[0]).unwrap().0;
        raw.push(&first[..first.len() - 1]).unwrap();
        let e = raw.refs().unwrap_err().to_string();
        assert!(e.contains(&format!("game {game} seq 0: unreadable envelope")), "{e}");
        let mut raw = RawLog::new(&game, 0);
        assert!(raw.push(b"\x07abc").unwrap_err().to_string().contains("unknown stored form 0x07"));
        let mut changed = log[1].clone();
        changed.time.push('Z');
        let mut raw = RawLog::new(&game, 0);
        for b in [encode_event(&log[0]).unwrap(), encode_event(&changed).unwrap()] {
            raw.push(&b).unwrap();
        }
        let e = raw.refs().unwrap_err().to_string();
        assert!(e.contains("seq 1: the event's content does not match its hash"), "{e}");
        let mut raw = RawLog::new(&game, 1);
        raw.push_before(&v3[0]).unwrap();
        for b in [&v3[1], &v2[3]] {
            raw.push(b).unwrap();
        }
        let e = raw.refs().unwrap_err().to_string();
        assert!(e.contains("seq 2: the stored event names"), "{e}");
    }

    /// A game's chain is hashed once per memory: a second read hashes
    /// nothing it checked before, the events after what it checked are
    /// still hashed, a range is remembered only when anchored in a checked
    /// chain, and a remembered event that is no longer the one stored makes
    /// the whole range hashed again.
    #[test]
    fn a_remembered_chain_is_not_hashed_again_and_what_follows_is() {
        let log: Vec<Envelope> = golden().map(|l| decode_event(l.as_bytes()).unwrap()).collect();
        let game = log[0].game.clone();
        let raw_of = |from: usize, events: &[Envelope]| {
            let mut raw = RawLog::new(&game, from as u64);
            if from > 0 {
                raw.push_before(&encode_event(&log[from - 1]).unwrap()).unwrap();
            }
            for e in events {
                raw.push(&encode_event(e).unwrap()).unwrap();
            }
            raw
        };
        // An event of the middle with a changed time: its hash no longer holds.
        let mut changed = log.clone();
        changed[300].time.push('Z');

        let memory = ChainMemory::new();
        let first = raw_of(0, &log[..200]);
        assert_eq!(first.refs_remembered(&memory).unwrap().len(), 200);
        assert_eq!(memory.get(&game), Some((199, log[199].hash)), "the first read is remembered");

        // Trusted up to seq 199; seq 300 is after it: still hashed.
        let e = raw_of(0, &changed).refs_remembered(&memory).unwrap_err().to_string();
        assert!(e.contains("seq 300: the event's content does not match its hash"), "{e}");
        assert_eq!(memory.get(&game), Some((199, log[199].hash)), "a refused read is not remembered");

        // A range after a snapshot, not linked to what was checked: read and
        // hashed, not remembered; one that starts right after it: remembered.
        let after = raw_of(250, &log[250..400]);
        assert_eq!(after.refs_remembered(&memory).unwrap().len(), 150);
        assert_eq!(memory.get(&game), Some((199, log[199].hash)));
        let next = raw_of(200, &log[200..400]);
        assert_eq!(next.refs_remembered(&memory).unwrap().len(), 200);
        assert_eq!(memory.get(&game), Some((399, log[399].hash)), "a range linked to the checked chain");

        // Now seq 300 is within what was checked: the event is read and
        // linked but not hashed again (a stored event is never rewritten).
        let trusted = raw_of(0, &changed);
        let refs = trusted.refs_remembered(&memory).expect("not hashed again");
        assert_eq!(refs.len(), log.len());
        assert_eq!(memory.get(&game), Some((log.len() as u64 - 1, log.last().unwrap().hash)));
        // Without the memory, the damage is found.
        assert!(trusted.refs().unwrap_err().to_string().contains("seq 300: the event's content"));
        assert!(raw_of(0, &changed).refs_remembered(&ChainMemory::new()).is_err());

        // A remembered event that is not the one stored now: forgotten, and
        // the range hashed whole.
        let other = ChainMemory::new();
        other.record(&game, 350, Hash([9; 32]));
        let e = raw_of(0, &changed[..400]).refs_remembered(&other).unwrap_err().to_string();
        assert!(e.contains("seq 300"), "{e}");
        assert_eq!(other.get(&game), None, "what no longer holds is forgotten");
        assert_eq!(raw_of(0, &log[..400]).refs_remembered(&other).unwrap().len(), 400);
        assert_eq!(other.get(&game), Some((399, log[399].hash)));

        // Bounded: a full memory is emptied before another game is added.
        let full = ChainMemory::new();
        for i in 0..ChainMemory::GAMES {
            full.record(&format!("g{i}"), 1, GENESIS);
        }
        assert_eq!(full.len(), ChainMemory::GAMES);
        full.record("g0", 2, GENESIS);
        assert_eq!(full.len(), ChainMemory::GAMES, "a game held is updated in place");
        full.record("another", 1, GENESIS);
        assert_eq!(full.len(), 1);
    }

    #[test]
    fn unreadable_bytes_say_so() {
        let e = decode_event(br#"{"game":"g","seq":0}"#).unwrap_err();
        assert!(e.starts_with("unreadable envelope"), "{e}");
        let e = decode_event(br#"{"game":"g","seq":0,"body":{"kind":"game","event":{}}}"#).unwrap_err();
        assert!(e.contains("missing field `v`"), "{e}");
        assert_eq!(decode_event(b"").unwrap_err(), "unreadable envelope: no bytes");
        assert!(decode_event(b"\x07abc").unwrap_err().contains("unknown stored form 0x07"));
        let env = decode_event(golden().nth(14).unwrap().as_bytes()).unwrap();
        let bytes = encode_v1(&env).unwrap();
        for cut in [1, 5, bytes.len() / 2, bytes.len() - 1] {
            let e = decode_event(&bytes[..cut]).unwrap_err();
            assert!(e.starts_with("unreadable envelope: it ends"), "cut at {cut}: {e}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode_event(&longer).unwrap_err().contains("1 bytes follow its hash"));
    }

    /// Stored events of version 2 depend on the dictionary byte for byte.
    #[test]
    fn the_dictionary_never_changes() {
        use sha2::{Digest, Sha256};
        assert_eq!(DICTIONARY.len(), 14522);
        assert_eq!(
            hex::encode(Sha256::digest(DICTIONARY)),
            "e5342a3a98c1cddc22b7f339bd2dc34c2e796759fb64c36ee40875798c31c526",
            "the dictionary of stored form 2 was edited: events stored with it would no longer read"
        );
    }

    /// A whole game is stored in version 2, each event reading back to the
    /// same envelope, much smaller than version 1; the version-1 bytes
    /// earlier stores hold still read.
    #[test]
    fn the_compressed_form_round_trips_a_whole_game_and_version_1_still_reads() {
        let log: Vec<Envelope> = golden().map(|l| decode_event(l.as_bytes()).unwrap()).collect();
        let (mut v1_bytes, mut v2_bytes, mut compressed) = (0, 0, 0);
        for env in &log {
            let v1 = encode_v1(env).expect("encodes");
            let v2 = encode_v2(env).expect("encodes");
            assert!(v2.len() <= v1.len(), "seq {}: never longer than version 1", env.seq);
            compressed += usize::from(v2[0] == FORM_V2);
            assert_eq!(&decode_event(&v2).expect("version 2 decodes"), env, "seq {}", env.seq);
            assert_eq!(&decode_event(&v1).expect("version 1 decodes"), env, "seq {}", env.seq);
            v1_bytes += v1.len();
            v2_bytes += v2.len();
        }
        assert!(compressed * 10 > log.len() * 9, "{compressed} of {} events compressed", log.len());
        assert!(v2_bytes * 10 < v1_bytes * 7, "{v2_bytes} bytes compressed against {v1_bytes}");
    }

    /// An event with text the dictionary lacks (random) still reads back,
    /// and is never stored longer than in version 1.
    #[test]
    fn text_the_dictionary_lacks_round_trips_never_longer() {
        let mut env = decode_event(golden().nth(14).unwrap().as_bytes()).unwrap();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let noise: String = (0..400)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b'!' + (x % 90) as u8)
            })
            .filter(|c| *c != '"' && *c != '\\')
            .collect();
        env.time = noise;
        let v1 = encode_v1(&env).unwrap();
        let stored = encode_v2(&env).unwrap();
        assert!(stored.len() <= v1.len());
        assert_eq!(decode_event(&stored).unwrap(), env);
        assert_eq!(
            decode_event_after(&encode_event(&env).unwrap(), &env.game, env.prev_hash).unwrap(),
            env,
            "version 3 keeps the time as text"
        );
    }

    /// Damaged bytes of version 2 are refused with a reason, never a panic
    /// and never a different event read as if whole.
    #[test]
    fn damaged_compressed_bytes_say_so() {
        let env = decode_event(golden().nth(14).unwrap().as_bytes()).unwrap();
        let bytes = encode_v2(&env).unwrap();
        assert_eq!(bytes[0], FORM_V2);
        for cut in 1..bytes.len() {
            let e = decode_event(&bytes[..cut]).unwrap_err();
            assert!(e.starts_with("unreadable envelope: "), "cut at {cut}: {e}");
        }
        // A copy from before the window's beginning.
        let mut far = vec![FORM_V2];
        varint(&mut far, (4 << 1) | 1);
        varint(&mut far, (DICTIONARY.len() + 1) as u64);
        assert!(decode_event(&far).unwrap_err().contains("copies from before its beginning"));
        assert!(decode_event(&[FORM_V2, 0]).unwrap_err().contains("damaged"));
    }

    /// A whole game is stored in version 3: every game event, redacted form
    /// and command as a tree, every time as milliseconds, each event reading
    /// back to the same envelope, smaller than version 2; a command that
    /// repeats its event's orders refers to them.
    #[test]
    fn version_3_stores_a_whole_game_as_trees_smaller_than_version_2() {
        let log: Vec<Envelope> = golden().map(|l| decode_event(l.as_bytes()).unwrap()).collect();
        let (mut v2_bytes, mut v3_bytes, mut trees) = (0, 0, 0);
        for env in &log {
            let (v3, all) = encode_v3(env).unwrap();
            let p = Parts::read_form(&v3[1..], FORM_V3, false, Some((&env.game, env.prev_hash))).unwrap();
            assert!(matches!(p.time, PartTime::Millis(_)), "seq {}", env.seq);
            if all {
                trees += 1;
                assert!(matches!(p.body, PartBody::GameTree { .. }));
            }
            if let Some(PartDecision { command: Some(PartCommand::Tree(c)), .. }) = &p.decision {
                if let (Some(cmd), PartBody::GameTree { event, .. }) =
                    (env.decision.as_ref().and_then(|d| d.command.as_ref()), &p.body)
                {
                    if cmd.as_str().len() > 1000 && event.len() > 100 {
                        assert!(c.len() < event.len() / 2, "seq {}: the command refers to its event", env.seq);
                    }
                }
            }
            assert_eq!(&decode_event_after(&v3, &env.game, env.prev_hash).unwrap(), env, "seq {}", env.seq);
            v2_bytes += encode_v2(env).unwrap().len();
            v3_bytes += encode_event(env).unwrap().len();
        }
        let kernel = log.iter().filter(|e| matches!(e.body, Body::Kernel { .. })).count();
        assert_eq!(trees + kernel, log.len(), "every event but the kernel's is all trees");
        // Most of what is left is the three hashes (96 bytes an event).
        assert!(v3_bytes < v2_bytes, "{v3_bytes} bytes in version 3 against {v2_bytes} in version 2");
    }

    /// Varints of every length read back, with what follows them left
    /// unread; a cut one and one of more than ten bytes say which they are.
    #[test]
    fn varints_of_every_length() {
        for n in [0, 1, 127, 128, 300, 1 << 21, 1_790_000_000_000, u64::MAX >> 1, u64::MAX] {
            let mut out = Vec::new();
            varint(&mut out, n);
            out.push(0xee);
            let mut r = Reader { b: &out };
            assert_eq!(r.varint("number"), Ok(n));
            assert_eq!(r.b, [0xee]);
            let cut = &out[..out.len() - 2];
            if !cut.is_empty() {
                assert_eq!(Reader { b: cut }.varint("number"), Err("it ends before its number".to_owned()));
            }
        }
        assert_eq!(Reader { b: &[0x80; 11] }.varint("number"), Err("its number is not a number".to_owned()));
    }

    /// Damaged bytes of version 3 are refused with a reason, never a panic.
    #[test]
    fn damaged_version_3_bytes_say_so() {
        for line in golden().take(40) {
            let env = decode_event(line.as_bytes()).unwrap();
            let bytes = encode_v3(&env).unwrap().0;
            for cut in 1..bytes.len() {
                let e = decode_event_after(&bytes[..cut], &env.game, env.prev_hash).unwrap_err();
                assert!(e.starts_with("unreadable envelope: "), "cut at {cut}: {e}");
                let mut raw = RawLog::new(&env.game, env.seq);
                raw.before = Some(env.prev_hash);
                if raw.push(&bytes[..cut]).is_ok() {
                    let e = raw.refs().unwrap_err().to_string();
                    assert!(e.contains("unreadable envelope"), "cut at {cut}: {e}");
                }
            }
            for at in 1..bytes.len().saturating_sub(64) {
                let mut changed = bytes.clone();
                changed[at] ^= 0x5a;
                let _ = decode_event_after(&changed, &env.game, env.prev_hash);
                let mut raw = RawLog::new(&env.game, env.seq);
                raw.before = Some(env.prev_hash);
                if raw.push(&changed).is_ok() {
                    let _ = raw.refs();
                }
            }
        }
    }
}
