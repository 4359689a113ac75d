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
//! Bytes starting with `{` are the JSON form every store wrote before
//! version 1: they still decode (an old store opens and reads as before).

use runestone_engine::game::Visibility;
use runestone_engine::log::{Decision, Hash, Json};
use runestone_engine::{Actor, Body, Envelope, KernelEvent};
use serde_json::Value;

use super::{StoreError, StoreResult};

/// The first byte of the version-1 form.
const FORM_V1: u8 = 0x01;

/// The smallest sub-value of a command stored as a reference into its event.
pub const SHARED_MIN: usize = 64;

/// The bytes a backend stores for one event.
pub fn encode_event(env: &Envelope) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(256 + json_len(env));
    out.push(FORM_V1);
    varint(&mut out, env.seq);
    text(&mut out, &env.game);
    text(&mut out, &env.time);
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
            varint(&mut out, seats.len() as u64);
            out.extend_from_slice(seats);
        }
    }
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
            out.push(1);
            let flags = u8::from(d.command.is_some()) | u8::from(d.seat.is_some()) << 1 | u8::from(d.undoable) << 2;
            out.push(flags);
            if let Some(s) = d.seat {
                out.push(s);
            }
            varint(&mut out, u64::from(d.events));
            varint(&mut out, u64::from(d.draws));
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
        Some(b'{') => serde_json::from_slice(bytes).map_err(|e| format!("unreadable envelope: {e}")),
        Some(b) => Err(format!("unreadable envelope: unknown stored form {b:#04x}")),
        None => Err("unreadable envelope: no bytes".into()),
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
    varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
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

    fn varint(&mut self, what: &str) -> Result<u64, String> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte(what)?;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(format!("its {what} is not a number"))
    }

    fn small(&mut self, what: &str) -> Result<u32, String> {
        u32::try_from(self.varint(what)?).map_err(|_| format!("its {what} is out of range"))
    }

    fn str(&mut self, what: &str) -> Result<&'a str, String> {
        let n = self.varint(what)?;
        let n = usize::try_from(n).map_err(|_| format!("its {what} is too long"))?;
        std::str::from_utf8(self.bytes(n, what)?).map_err(|_| format!("its {what} is not UTF-8"))
    }

    fn json(&mut self, what: &str) -> Result<Json, String> {
        let s = self.str(what)?;
        if s.is_empty() {
            return Err(format!("its {what} is empty"));
        }
        Ok(Json::from_stored(s.to_owned()))
    }

    fn hash(&mut self, what: &str) -> Result<Hash, String> {
        let b = self.bytes(32, what)?;
        Ok(Hash(b.try_into().expect("32 bytes")))
    }
}

fn decode_v1(bytes: &[u8]) -> Result<Envelope, String> {
    let mut r = Reader { b: bytes };
    let seq = r.varint("seq")?;
    let game = r.str("game")?.to_owned();
    let time = r.str("time")?.to_owned();
    let actor = match r.byte("actor")? {
        0 => Actor::Host,
        1 => Actor::Referee,
        2 => Actor::System,
        3 => Actor::Seat(r.byte("actor's seat")?),
        b => return Err(format!("unknown actor {b}")),
    };
    let visibility = match r.byte("visibility")? {
        0 => Visibility::Public,
        1 => {
            let n = r.varint("visibility")?;
            let n = usize::try_from(n).map_err(|_| "its visibility is too long".to_owned())?;
            Visibility::Seats(r.bytes(n, "visibility")?.to_vec())
        }
        b => return Err(format!("unknown visibility {b}")),
    };
    let body = match r.byte("body")? {
        0 => {
            let s = r.str("kernel event")?;
            let event: KernelEvent =
                serde_json::from_str(s).map_err(|e| format!("its kernel event does not read: {e}"))?;
            Body::Kernel { event }
        }
        1 => {
            let v = r.small("event version")?;
            Body::Game { v, event: r.json("game event")? }
        }
        b => return Err(format!("unknown body kind {b}")),
    };
    let redacted = match r.byte("redacted form")? {
        0 => None,
        1 => Some(r.json("redacted form")?),
        b => return Err(format!("unknown redacted marker {b}")),
    };
    let decision = match r.byte("decision")? {
        0 => None,
        1 => {
            let flags = r.byte("decision")?;
            if flags & !0b111 != 0 {
                return Err(format!("unknown decision flags {flags:#04x}"));
            }
            let seat = if flags & 2 != 0 { Some(r.byte("decision's seat")?) } else { None };
            let events = r.small("decision's event count")?;
            let draws = r.small("decision's draw count")?;
            let command = if flags & 1 != 0 {
                let event = match &body {
                    Body::Game { event, .. } => event.as_str(),
                    Body::Kernel { .. } => "",
                };
                Some(read_command(&mut r, event)?)
            } else {
                None
            };
            Some(Decision { command, seat, events, draws, undoable: flags & 4 != 0 })
        }
        b => return Err(format!("unknown decision marker {b}")),
    };
    let digest = r.hash("digest")?;
    let prev_hash = r.hash("prev_hash")?;
    let hash = r.hash("hash")?;
    if !r.b.is_empty() {
        return Err(format!("{} bytes follow its hash", r.b.len()));
    }
    Ok(Envelope { game, seq, time, actor, body, visibility, redacted, decision, digest, prev_hash, hash })
}

fn read_command(r: &mut Reader<'_>, event: &str) -> Result<Json, String> {
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

    const GOLDEN: &str = include_str!("../../events/bardagi/5-players-seed-4.jsonl");

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
            let bytes = encode_event(env).expect("encodes");
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
        let back: Vec<Envelope> = log.iter().map(|e| decode_event(&encode_event(e).unwrap()).unwrap()).collect();
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
        logs(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("events"), &mut files);
        assert!(files.len() >= 10, "the golden logs: {files:?}");
        for f in files {
            let text = std::fs::read_to_string(&f).expect("a golden log");
            let mut log = Vec::new();
            for line in text.lines().filter(|l| !l.starts_with(r#"{"end""#)) {
                let env = decode_event(line.as_bytes()).expect("a golden event reads");
                let back = decode_event(&encode_event(&env).expect("encodes")).expect("decodes");
                assert_eq!(serde_json::to_string(&back).unwrap(), line, "{} seq {}", f.display(), env.seq);
                log.push(back);
            }
            runestone_engine::log::check_chain(&log).unwrap_or_else(|e| panic!("{}: {e:?}", f.display()));
        }
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
        let bytes = encode_event(&env).unwrap();
        for cut in [1, 5, bytes.len() / 2, bytes.len() - 1] {
            let e = decode_event(&bytes[..cut]).unwrap_err();
            assert!(e.starts_with("unreadable envelope: it ends"), "cut at {cut}: {e}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode_event(&longer).unwrap_err().contains("1 bytes follow its hash"));
    }
}
