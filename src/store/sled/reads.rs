//! [`EventStore`] for [`SledStore`]: writes handed to the committer, reads
//! straight from sled's memory, each load checked against the game's head
//! record.

use super::*;

/// A load of `from..=to` must reach the head record read before it (or
/// `to`, if before it) and carry the recorded hash there: a shortened log is
/// damage. (Events past the record were appended meanwhile.) Each event's
/// content is checked against its hash when the range is read.
pub(super) fn check_against_head(
    game: &GameKey,
    recorded: Option<(u64, String)>,
    from: u64,
    to: u64,
    out: &RawLog,
) -> StoreResult<()> {
    let Some((seq, hash)) = recorded else {
        return Ok(());
    };
    let end = to.min(seq);
    if from > end {
        return Ok(());
    }
    match out.hash_at(end) {
        Some(h) if end == seq && h != hash => Err(StoreError::Corrupt(format!(
            "game {}: the event at seq {seq} is not the one its head record names",
            name(game)
        ))),
        Some(_) => Ok(()),
        None => Err(StoreError::Corrupt(format!(
            "game {}: the log ends at {} but its head record says seq {seq}: events up to seq {end} are missing",
            name(game),
            out.last_seq().map_or_else(|| "nothing".to_string(), |l| format!("seq {l}"))
        ))),
    }
}

impl EventStore for SledStore {
    fn append(&self, write: Write) -> BoxFut<'_, StoreResult<()>> {
        // Queued now, in the order of the calls (`ordered_appends`).
        let (tx, rx) = oneshot::channel();
        let queued = prepare_append(write, tx).and_then(|job| self.enqueue(job));
        Box::pin(async move {
            queued?;
            Self::wait(rx).await
        })
    }

    fn ordered_appends(&self) -> bool {
        true
    }

    fn head(&self, game: &str) -> StoreResult<Option<u64>> {
        let key = game_key(game)?;
        self.shared.doubt_game(&key)?;
        self.read(|open| verified_head(&open.main, &key))
    }

    fn load(&self, game: &str, from: u64, to: Option<u64>) -> StoreResult<Vec<Envelope>> {
        // One read path: the stored bytes as a fold reads them, then each
        // event decoded whole (`RawLog::envelopes` checks the chain).
        self.load_raw(game, from, to)?.envelopes()
    }

    fn load_raw(&self, game: &str, from: u64, to: Option<u64>) -> StoreResult<RawLog> {
        let key = game_key(game)?;
        let to = to.unwrap_or(u64::MAX);
        if to < from {
            return Ok(RawLog::new(game, from));
        }
        self.shared.doubt_game(&key)?;
        self.read(|open| {
            let recorded = read_head_record(&open.main, &key)?;
            let mut out = RawLog::new(game, from);
            if let Some((head, _)) = recorded {
                out.reserve(usize::try_from(head.min(to).saturating_sub(from) + 1).unwrap_or(0));
            }
            // From the event before the range: its hash is what the range's
            // first event links to (`RawLog::push_before`).
            for item in open.main.range(event_key(&key, from.saturating_sub(1))..=event_key(&key, to)) {
                let want = out.next_seq();
                let (k, v) = item.map_err(|e| read_err(&format!("game {game} seq {want}"), e))?;
                if k.len() != EVENT_KEY_LEN {
                    return Err(StoreError::Corrupt(format!("game {game}: event key {k:?} has the wrong length")));
                }
                let seq = seq_of(&k);
                if from > 0 && seq == from - 1 {
                    out.push_before(&v)?;
                    continue;
                }
                if seq != want {
                    return Err(StoreError::Corrupt(format!(
                        "game {game} seq {want}: missing (the log jumps to {seq})"
                    )));
                }
                out.push(&v)?;
            }
            check_against_head(&key, recorded, from, to, &out)?;
            Ok(out)
        })
    }

    fn get(&self, side: Side, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        self.shared.doubt_key(&side_key(side, key))?;
        self.read(|open| {
            let v = open.main.get(side_key(side, key)).map_err(|e| read_err("reading a side record", e))?;
            Ok(v.map(|v| v.to_vec()))
        })
    }

    fn scan(&self, side: Side, prefix: &[u8], limit: usize) -> StoreResult<Vec<(Vec<u8>, Vec<u8>)>> {
        // Records of a failed flush are not known to exist until the reopen.
        let (_, doubt) = self.shared.in_doubt();
        self.read(|open| {
            // Outbox records of writes not yet flushed are not there yet.
            let hidden = if side == Side::Outbox { lock(&open.unconfirmed).clone() } else { HashMap::new() };
            let mut out = Vec::new();
            for item in open.main.scan_prefix(side_key(side, prefix)) {
                if out.len() >= limit {
                    break;
                }
                let (k, v) = item.map_err(|e| read_err("scanning side records", e))?;
                if hidden.contains_key(&k[..]) || doubt.contains(&k[..]) {
                    continue;
                }
                out.push((k[1..].to_vec(), v.to_vec()));
            }
            Ok(out)
        })
    }

    fn put(&self, writes: Vec<SideWrite>) -> BoxFut<'_, StoreResult<()>> {
        Box::pin(async move {
            let (tx, rx) = oneshot::channel();
            self.enqueue(Job::Put { side: side_ops(writes), reply: tx })?;
            Self::wait(rx).await
        })
    }

    fn put_snapshot(&self, game: &str, seq: u64, snapshot: &[u8]) -> StoreResult<()> {
        let key = game_key(game)?;
        self.read(|open| {
            let stored = crate::store::codec::compress_snapshot(snapshot);
            open.snapshots.insert(snapshot_key(&key, seq), stored).map_err(|e| io("caching a snapshot", e))?;
            Ok(())
        })
    }

    fn snapshot_at_or_before(&self, game: &str, seq: u64) -> StoreResult<Option<(u64, Vec<u8>)>> {
        let key = game_key(game)?;
        // A cache: while the store is reopened the log is read instead.
        let Ok(open) = self.cur() else { return Ok(None) };
        match open.snapshots.range(snapshot_key(&key, 0)..=snapshot_key(&key, seq)).next_back() {
            None => Ok(None),
            // A cache: the log is read instead.
            Some(Err(e)) => {
                tracing::warn!(game, "reading a snapshot failed, folding from the log: {e}");
                Ok(None)
            }
            Some(Ok((k, v))) => match crate::store::codec::decompress_snapshot(&v) {
                Ok(snapshot) => Ok(Some((seq_of(&k), snapshot))),
                Err(e) => {
                    tracing::warn!(game, "{e}; folding from the log");
                    Ok(None)
                }
            },
        }
    }

    fn games(&self, after: Option<&str>, limit: usize) -> StoreResult<Vec<GameId>> {
        // One seek per game: past the last possible key of the previous one.
        let mut cursor = after.map(game_key).transpose()?;
        // A game a failed flush touched is listed; reading it answers that
        // the store is recovering until the reopen.
        self.read(|open| {
            let mut out = Vec::new();
            while out.len() < limit {
                let next = match &cursor {
                    None => open.main.scan_prefix([EVENT]).next(),
                    Some(g) => open.main.range((Bound::Excluded(event_key(g, u64::MAX)), Bound::Unbounded)).next(),
                };
                let Some(item) = next else { break };
                let (k, _) = item.map_err(|e| read_err("listing games", e))?;
                if k[0] != EVENT {
                    break;
                }
                if k.len() != EVENT_KEY_LEN {
                    return Err(StoreError::Corrupt(format!("event key {k:?} has the wrong length")));
                }
                let g: GameKey = k[1..1 + GAME_ID_LEN].try_into().expect("16 bytes");
                let id = String::from_utf8(g.to_vec())
                    .map_err(|_| StoreError::Corrupt(format!("event key {k:?}: the game id is not UTF-8")))?;
                out.push(id);
                cursor = Some(g);
            }
            Ok(out)
        })
    }

    fn recovering(&self) -> Option<String> {
        self.shared.broken()
    }

    fn close(&self) -> StoreResult<()> {
        self.shutdown()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sled::tests::*;
    use crate::store::suite;

    /// Snapshots are stored compressed, read back as they were given, and
    /// damaged compressed bytes are a cache miss, not an error.
    #[tokio::test]
    async fn snapshots_are_stored_compressed_and_read_back_whole() {
        let (store, _dir) = fresh();
        let game = suite::game_id("snapshots", 0);
        store.append(suite::new_game_write(&game, 2)).await.expect("append");
        let snapshot: Vec<u8> = std::iter::once(2u8).chain((0..3000).map(|i| (i % 7) as u8)).collect();
        store.put_snapshot(&game, 1, &snapshot).expect("put");
        let open = store.cur().expect("open");
        let stored = open.snapshots.get(snapshot_key(&game_key(&game).unwrap(), 1)).unwrap().unwrap();
        assert_eq!(stored[0], crate::store::codec::VALUE_COMPRESSED);
        assert!(stored.len() * 10 < snapshot.len(), "{} bytes stored for {}", stored.len(), snapshot.len());
        assert_eq!(store.snapshot_at_or_before(&game, 1).expect("read"), Some((1, snapshot)));
        open.snapshots.insert(snapshot_key(&game_key(&game).unwrap(), 1), &[0xc1, 0x03, 0xff][..]).unwrap();
        assert_eq!(store.snapshot_at_or_before(&game, 1).expect("read"), None);
    }

    #[tokio::test]
    async fn unreadable_event_is_corrupt() {
        let dir = tempfile::tempdir().expect("tempdir");
        let game = suite::game_id("corrupt", 0);
        {
            let store = SledStore::open(dir.path()).expect("open");
            store.append(suite::new_game_write(&game, 3)).await.expect("append");
            store.close().expect("close");
        }
        {
            let db = open_db(dir.path()).expect("raw open");
            let main = db.open_tree("main").expect("tree");
            main.insert(event_key(&game_key(&game).unwrap(), 2), &b"{not json"[..]).expect("insert");
            db.flush().expect("flush");
        }
        let store = SledStore::open(dir.path()).expect("reopen");
        match store.load(&game, 0, None) {
            Err(StoreError::Corrupt(msg)) => {
                assert!(msg.contains(&game) && msg.contains("seq 2"), "{msg}");
            }
            other => panic!("expected Corrupt, got {other:?}"),
        }
        assert_eq!(store.load(&game, 0, Some(1)).expect("the readable part").len(), 2);
    }

    #[tokio::test]
    async fn a_shortened_log_is_damage_not_a_shorter_game() {
        let (dir, games) = damaged(|main, games| {
            let k = game_key(&games[1]).unwrap();
            main.remove(event_key(&k, 3)).expect("remove");
            main.remove(event_key(&k, 2)).expect("remove");
        })
        .await;
        let store = SledStore::open(dir.path()).expect("reopen");
        for result in [store.head(&games[1]).map(|_| ()), store.load(&games[1], 0, None).map(|_| ())] {
            match result {
                Err(StoreError::Corrupt(msg)) => assert!(msg.contains(&games[1]) && msg.contains("seq 3"), "{msg}"),
                other => panic!("expected Corrupt, got {other:?}"),
            }
        }
        assert_eq!(store.load(&games[1], 0, Some(1)).expect("the part before the damage").len(), 2);
        assert_eq!(store.load(&games[0], 0, None).expect("an intact game").len(), 4);
    }

    #[tokio::test]
    async fn a_changed_event_breaks_the_chain_at_read() {
        let (dir, games) = damaged(|main, games| {
            use crate::store::codec::decode_event_after;
            let game = game_key(&games[2]).unwrap();
            let first = main.get(event_key(&game, 0)).unwrap().unwrap();
            let prev = decode_event_after(&first, &games[2], runestone_engine::log::GENESIS).unwrap().hash;
            let key = event_key(&game, 1);
            let mut env: Envelope = decode_event_after(&main.get(key).unwrap().unwrap(), &games[2], prev).unwrap();
            env.time = "2001-01-01T00:00:00Z".into();
            main.insert(key, crate::store::codec::encode_event(&env).unwrap()).expect("insert");
        })
        .await;
        let store = SledStore::open(dir.path()).expect("reopen");
        match store.load(&games[2], 0, None) {
            Err(StoreError::Corrupt(msg)) => assert!(msg.contains("seq 1") && msg.contains("hash"), "{msg}"),
            other => panic!("expected Corrupt, got {other:?}"),
        }
    }
}
