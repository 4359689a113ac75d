//! Writing the stored forms: version 1 and version 3 field by field, a
//! command as segments that refer to its event's text, and the varints,
//! texts and byte strings they are made of.

use super::*;

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
pub(super) fn actor_and_visibility(out: &mut Vec<u8>, env: &Envelope) {
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
pub(super) fn decision_counts(out: &mut Vec<u8>, d: &Decision) {
    out.push(1);
    let flags = u8::from(d.command.is_some()) | u8::from(d.seat.is_some()) << 1 | u8::from(d.undoable) << 2;
    out.push(flags);
    if let Some(s) = d.seat {
        out.push(s);
    }
    varint(out, u64::from(d.events));
    varint(out, u64::from(d.draws));
}

pub(super) fn varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

pub(super) fn text(out: &mut Vec<u8>, s: &str) {
    bytes(out, s.as_bytes());
}

pub(super) fn bytes(out: &mut Vec<u8>, b: &[u8]) {
    varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// A command as segments: its own text, and spans of the game event's text.
pub(super) fn command(out: &mut Vec<u8>, command: &Json, event: &str) {
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
pub(super) fn shared_parts(v: &Value, event: &str, found: &mut Vec<String>) {
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
