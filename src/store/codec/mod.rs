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
//! game event contains (a game's standing orders) is kept as a reference to
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
//! parts its event's tree holds (a game's standing orders) instead of
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

mod encode;
mod lz;
mod parts;
mod rawlog;
mod time;

use encode::*;
use parts::*;

pub use encode::{encode_v1, encode_v3};
pub use rawlog::{ChainMemory, RawLog};

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

#[cfg(test)]
mod tests {
    use super::*;

    const GOLDEN: &str = include_str!("../../../events/bardagi/5-players-seed-4.jsonl");

    pub(super) fn golden() -> impl Iterator<Item = &'static str> {
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
