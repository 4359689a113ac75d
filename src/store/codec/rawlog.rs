//! A range of one game's stored events read for a fold ([`RawLog`]): each
//! event's parts borrowed from one buffer and its chain checked as it is
//! read, and what this process has already checked of each game's chain
//! ([`ChainMemory`]).

use super::*;

/// A range of one game's stored events, each as its version-1 bytes (after
/// the form byte) in one buffer: version 2 is decompressed into it, version
/// 1 copied, the JSON form re-encoded. What a fold from the store reads
/// ([`RawLog::refs`]), made by the backends' `load_raw`.
#[derive(Debug, Default)]
pub struct RawLog {
    pub(super) game: String,
    pub(super) from: u64,
    /// The hash of the event before `from` (the genesis hash before seq 0).
    pub(super) before: Option<Hash>,
    pub(super) buf: Vec<u8>,
    pub(super) spans: Vec<Range<usize>>,
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
    pub(super) fn prev_of(&self, i: usize) -> Option<Hash> {
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
    pub(super) fn read_refs(&self, known: Option<(u64, Hash)>) -> StoreResult<(Vec<EventRef<'_>>, bool)> {
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
pub(super) fn lean_v3<'a>(bytes: &'a [u8], game: &'a str, seq: u64, prev_hash: Hash) -> Result<EventRef<'a>, String> {
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
    pub(super) checked: std::sync::Mutex<std::collections::HashMap<Box<str>, (u64, Hash)>>,
}

impl ChainMemory {
    /// The most games remembered (about 80 bytes each).
    pub const GAMES: usize = 100_000;

    pub fn new() -> ChainMemory {
        ChainMemory::default()
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<Box<str>, (u64, Hash)>> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::codec::tests::*;

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
}
