//! Reading the stored forms: a [`Reader`] of varints, texts and byte
//! strings, the [`Parts`] of a stored event of version 1 or 3 borrowed from
//! its bytes, and an envelope built from them.

use super::*;

pub(super) struct Reader<'a> {
    pub(super) b: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(super) fn byte(&mut self, what: &str) -> Result<u8, String> {
        let (&first, rest) = self.b.split_first().ok_or_else(|| format!("it ends before its {what}"))?;
        self.b = rest;
        Ok(first)
    }

    pub(super) fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        if self.b.len() < n {
            return Err(format!("it ends inside its {what}"));
        }
        let (head, rest) = self.b.split_at(n);
        self.b = rest;
        Ok(head)
    }

    #[inline]
    pub(super) fn varint(&mut self, what: &str) -> Result<u64, String> {
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
    pub(super) fn long_varint(&mut self, what: &str) -> Result<u64, String> {
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

    pub(super) fn small(&mut self, what: &str) -> Result<u32, String> {
        u32::try_from(self.varint(what)?).map_err(|_| format!("its {what} is out of range"))
    }

    /// A text's bytes, skipped without checking them (a command's text,
    /// checked when the command is read).
    pub(super) fn bytes_of_text(&mut self, what: &str) -> Result<&'a [u8], String> {
        let n = self.varint(what)?;
        let n = usize::try_from(n).map_err(|_| format!("its {what} is too long"))?;
        self.bytes(n, what)
    }

    pub(super) fn str(&mut self, what: &str) -> Result<&'a str, String> {
        let n = self.varint(what)?;
        let n = usize::try_from(n).map_err(|_| format!("its {what} is too long"))?;
        std::str::from_utf8(self.bytes(n, what)?).map_err(|_| format!("its {what} is not UTF-8"))
    }

    /// A stored JSON text (never empty).
    pub(super) fn json(&mut self, what: &str) -> Result<&'a str, String> {
        let s = self.str(what)?;
        if s.is_empty() {
            return Err(format!("its {what} is empty"));
        }
        Ok(s)
    }

    pub(super) fn actor(&mut self) -> Result<Actor, String> {
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
    pub(super) fn decision_counts(&mut self) -> Result<(u8, Option<u8>, u32, u32), String> {
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
    pub(super) fn tree(&mut self, what: &str) -> Result<&'a [u8], String> {
        let b = self.bytes_of_text(what)?;
        if b.is_empty() {
            return Err(format!("its {what} is empty"));
        }
        Ok(b)
    }

    pub(super) fn hash(&mut self, what: &str) -> Result<Hash, String> {
        let b = self.bytes(32, what)?;
        Ok(Hash(b.try_into().expect("32 bytes")))
    }
}

/// The parts of a stored event (version 1 or 3), borrowed from its bytes:
/// what both [`decode_event`] and [`RawLog::refs`] read, so each layout is
/// read in one place. Trees and the command stay unread until asked for.
pub(super) struct Parts<'a> {
    pub(super) seq: u64,
    pub(super) game: &'a str,
    pub(super) time: PartTime<'a>,
    pub(super) actor: Actor,
    pub(super) visibility: Option<&'a [u8]>,
    pub(super) body: PartBody<'a>,
    pub(super) redacted: Option<PartJson<'a>>,
    pub(super) decision: Option<PartDecision<'a>>,
    pub(super) digest: Hash,
    pub(super) prev_hash: Hash,
    pub(super) hash: Hash,
}

#[derive(Clone, Copy)]
pub(super) enum PartTime<'a> {
    Text(&'a str),
    /// Milliseconds since 1970 ([`time`]).
    Millis(u64),
}

pub(super) enum PartBody<'a> {
    Kernel(&'a str),
    Game { v: u32, event: &'a str },
    GameTree { v: u32, event: &'a [u8] },
}

#[derive(Clone, Copy)]
pub(super) enum PartJson<'a> {
    Text(&'a str),
    Tree(&'a [u8]),
}

impl<'a> PartJson<'a> {
    /// Its text (a tree written as its text).
    pub(super) fn text(self) -> Result<Cow<'a, str>, String> {
        match self {
            PartJson::Text(t) => Ok(Cow::Borrowed(t)),
            PartJson::Tree(t) => tree::render(t, None).map(Cow::Owned).map_err(|e| e.to_string()),
        }
    }
}

pub(super) struct PartDecision<'a> {
    pub(super) seat: Option<u8>,
    pub(super) events: u32,
    pub(super) draws: u32,
    pub(super) undoable: bool,
    pub(super) command: Option<PartCommand<'a>>,
}

pub(super) enum PartCommand<'a> {
    /// Segments (layout in the module's doc), unread.
    Segments(&'a [u8]),
    /// A tree referring into its event's tree.
    Tree(&'a [u8]),
}

impl<'a> Parts<'a> {
    pub(super) fn read(bytes: &'a [u8]) -> Result<Parts<'a>, String> {
        Parts::read_form(bytes, FORM_V1, false, None)
    }

    /// An event as a [`RawLog`] holds it: its form byte (1 or 3), then
    /// that form. `lean`: only what a fold of a checked chain reads (seq,
    /// game, actor, body, decision's counts, hashes); the time, redacted
    /// form, digest and command are skipped unread (left empty).
    /// `place`: the game and the hash of the event before, which form 3
    /// does not hold.
    pub(super) fn read_held(bytes: &'a [u8], lean: bool, place: Option<(&'a str, Hash)>) -> Result<Parts<'a>, String> {
        match bytes.split_first() {
            Some((&FORM_V1, rest)) => Parts::read_form(rest, FORM_V1, lean, None),
            Some((&FORM_V3, rest)) => Parts::read_form(rest, FORM_V3, lean, place),
            _ => Err("a held event of no form".into()),
        }
    }

    pub(super) fn read_form(
        bytes: &'a [u8],
        form: u8,
        lean: bool,
        place: Option<(&'a str, Hash)>,
    ) -> Result<Parts<'a>, String> {
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

    pub(super) fn kernel(text: &str) -> Result<KernelEvent, String> {
        serde_json::from_str(text).map_err(|e| format!("its kernel event does not read: {e}"))
    }

    pub(super) fn time(&self) -> Cow<'a, str> {
        match self.time {
            PartTime::Text(t) => Cow::Borrowed(t),
            PartTime::Millis(ms) => Cow::Owned(time::text(ms)),
        }
    }

    /// The hash of the public part the chain hash covers (a tree of it
    /// written as its text first).
    pub(super) fn chain_hash(&self) -> Result<Hash, String> {
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

pub(super) fn decode_v1(bytes: &[u8]) -> Result<Envelope, String> {
    decode_parts(Parts::read(bytes)?)
}

pub(super) fn decode_parts(p: Parts<'_>) -> Result<Envelope, String> {
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

/// The command's segments, checked for their shape and skipped.
pub(super) fn skip_command<'a>(r: &mut Reader<'a>) -> Result<&'a [u8], String> {
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

/// A command from its segments, the shared ones taken from its event's text.
pub(super) fn read_command(segments: &[u8], event: &str) -> Result<Json, String> {
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
}
