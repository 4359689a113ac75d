//! Recovery at open after an unclean stop: the last group sled holds is
//! completed or undone from its intent, then the groups the journal holds
//! since its last checkpoint are applied again.

use super::*;

/// What opening found of the last group of writes before a crash.
#[derive(Debug, PartialEq)]
pub(super) enum Finished {
    /// No intent: the store was closed cleanly.
    Clean,
    /// The group is whole (its writes applied again where missing).
    Completed,
    /// Not all of the group's events reached the disk, so none of its other
    /// writes did and no writer of it was answered: the events that did
    /// are removed.
    Undone { events: usize },
}

/// At open: complete or undo the last group a crash cut short (a no-op for
/// a group that reached the disk whole), then remove its intent. Also the
/// group's seq in the journal (format 3).
pub(super) fn finish_interrupted_group(db: &Db, main: &Tree) -> StoreResult<(Finished, Option<u64>)> {
    let Some(intent) = main.get(INTENT).map_err(|e| read_err("reading the last group's intent", e))? else {
        return Ok((Finished::Clean, None));
    };
    let intent = decode_intent(&intent).ok_or_else(|| {
        StoreError::Corrupt(
            "the record of the last group of writes (`w:group` in sled's main tree) is unreadable. \
             Nothing was changed. Restore the data directory from a backup copied while the server was stopped"
                .into(),
        )
    })?;
    let mut group_seq = None;
    let finished = match intent {
        Intent::Writes(ops) => {
            apply_ops(main, ops)?;
            Finished::Completed
        }
        Intent::Group { seq, events, rest } => {
            group_seq = seq;
            let mut landed = Vec::with_capacity(events.len());
            for k in events.iter() {
                if main.contains_key(k).map_err(|e| read_err("reading the last group's events", e))? {
                    landed.push(k);
                }
            }
            if landed.len() == events.len() {
                apply_ops(main, rest)?;
                Finished::Completed
            } else {
                for k in &landed {
                    main.remove(k).map_err(|e| io("undoing the last group of writes", e))?;
                }
                Finished::Undone { events: landed.len() }
            }
        }
    };
    main.remove(INTENT).map_err(|e| io("removing the last group's intent", e))?;
    db.flush().map_err(|e| io("completing the last group of writes", e))?;
    Ok((finished, group_seq))
}

/// What opening found and did: the last group sled holds (completed or
/// undone), the groups applied again from the journal, and the seq the
/// journal starts again from.
pub(super) struct Recovered {
    pub(super) finished: Finished,
    pub(super) replayed: usize,
    pub(super) last_seq: u64,
}

/// At open: finish the last group sled holds ([`finish_interrupted_group`]),
/// then apply again, in order, the groups the journal holds since its last
/// checkpoint, unless sled is ahead of them (its last group's record never
/// reached the journal: sled holds all of the journal's groups already).
/// See the module docs of `store::journal`.
pub(super) fn recover(path: &Path, db: &Db, main: &Tree) -> StoreResult<Recovered> {
    let bytes = journal::read(path).map_err(|e| io("reading the store's journal", e))?;
    let had_journal = main.contains_key(JOURNAL_KEY).map_err(|e| read_err("reading the store's records", e))?;
    if bytes.is_none() && had_journal {
        return Err(StoreError::Corrupt(format!(
            "the journal of the store under {} (the file `{}`, which holds the writes acknowledged since sled's \
             last checkpoint) is missing or not of its size. Nothing was changed. Restore the data directory \
             from a backup copied while the server was stopped",
            path.display(),
            journal::FILE
        )));
    }
    let (finished, sled_seq) = finish_interrupted_group(db, main)?;
    let Some(bytes) = bytes else {
        return Ok(Recovered { finished, replayed: 0, last_seq: sled_seq.unwrap_or(0) });
    };
    let records = journal::chain(&bytes);
    let Some(last) = records.last().map(|r| r.seq) else {
        return Ok(Recovered { finished, replayed: 0, last_seq: sled_seq.unwrap_or(0) });
    };
    let mut replayed = 0;
    if sled_seq.is_none_or(|g| g <= last) {
        for r in records.iter().filter(|r| r.group) {
            let ops = decode_writes(r.writes).ok_or_else(|| {
                StoreError::Corrupt(format!(
                    "group {} in the store's journal (the file `{}` under {}) passes its checksum but cannot be read. \
                     Nothing more was changed. Restore the data directory from a backup copied while the server was stopped",
                    r.seq,
                    journal::FILE,
                    path.display()
                ))
            })?;
            apply_ops(main, ops)?;
            replayed += 1;
        }
        if replayed > 0 {
            db.flush().map_err(|e| io("applying the journal's groups", e))?;
        }
    }
    Ok(Recovered { finished, replayed, last_seq: last.max(sled_seq.unwrap_or(0)) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::suite;

    #[tokio::test]
    async fn a_clean_close_leaves_no_intent() {
        let dir = tempfile::tempdir().expect("tempdir");
        let game = suite::game_id("intent", 0);
        {
            let store = SledStore::open(dir.path()).expect("open");
            store.append(suite::new_game_write(&game, 3)).await.expect("append");
            let open = store.cur().expect("open");
            assert!(open.main.get(INTENT).expect("read").is_some(), "the last group's intent is kept while open");
            drop(open);
            store.close().expect("close");
        }
        let db = open_db(dir.path()).expect("raw open");
        assert_eq!(db.open_tree("main").expect("tree").get(INTENT).expect("read"), None);
    }

    /// The store's files as a crash of the process leaves them: copied while
    /// it runs (what the kernel holds, written or not, as after `kill -9`).
    fn crash_image(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("dir");
        for e in std::fs::read_dir(from).expect("ls") {
            let e = e.expect("entry");
            if e.file_type().expect("type").is_file() {
                std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
            }
        }
    }

    /// Groups acknowledged since sled's last checkpoint are on disk only in
    /// the journal: a crash then leaves sled without them, and the next
    /// open applies them again, whole and in order.
    #[tokio::test]
    async fn acknowledged_groups_sled_had_not_written_are_applied_again_from_the_journal() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("store");
        let games: Vec<GameId> = (0..6).map(|g| suite::game_id("journal", g)).collect();
        let store = SledStore::open(&path).expect("open");
        let mut logs = Vec::new();
        for game in &games {
            store.append(suite::new_game_write(game, 3)).await.expect("append");
            let log = store.load(game, 0, None).expect("load");
            store.append(suite::next_write(log.last().unwrap(), 2)).await.expect("append");
            logs.push(store.load(game, 0, None).expect("load"));
        }
        store
            .put(vec![SideWrite { side: Side::Games, key: b"k".to_vec(), value: Some(b"v".to_vec()) }])
            .await
            .expect("put");
        let (raw, image) = (dir.path().join("raw"), dir.path().join("image"));
        crash_image(&path, &raw);
        crash_image(&path, &image);
        drop(store);
        {
            // sled alone, without the journal: the writes are not there.
            let db = open_db(&raw).expect("raw open");
            let main = db.open_tree("main").expect("tree");
            let k = game_key(&games[5]).unwrap();
            assert_eq!(main.scan_prefix(event_prefix(&k)).count(), 0, "sled had not written the last game");
        }
        let store = SledStore::open(&image).expect("the crash image opens");
        for (game, log) in games.iter().zip(&logs) {
            assert_eq!(&store.load(game, 0, None).expect("load"), log, "every acknowledged append is there");
            assert_eq!(store.head(game).expect("head"), Some(4));
        }
        assert_eq!(store.get(Side::Games, b"k").expect("get"), Some(b"v".to_vec()));
        assert!(store.manifest_problems(&image).is_empty());
        // And it goes on from there, across a clean close.
        let more = suite::next_write(logs[0].last().unwrap(), 1);
        store.append(more).await.expect("append after the replay");
        store.close().expect("close");
        drop(store);
        let store = SledStore::open(&image).expect("reopen");
        assert_eq!(store.head(&games[0]).expect("head"), Some(5));
    }

    /// Past a full journal (checkpoints, then records over an earlier pass)
    /// and past a group too large for it (written straight to sled and
    /// flushed), a crash image still opens with every acknowledged write.
    #[tokio::test]
    async fn checkpoints_and_large_groups_keep_every_acknowledged_write() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("store");
        let store = SledStore::open(&path).expect("open");
        // Write `i` goes to key `i % 100`: every key is written again on
        // later passes over the journal, so a record of an earlier pass
        // applied again would leave an older value.
        let record = |i: usize, len: usize| SideWrite {
            side: Side::Games,
            key: format!("k{:04}", if i == 9_999 { i } else { i % 100 }).into_bytes(),
            value: Some(vec![(i % 251) as u8; len]),
        };
        // About three times the journal, in groups of 6 KB.
        let groups = 3 * journal::SIZE as usize / 6_000;
        let mut last = HashMap::new();
        for i in 0..groups {
            if i == groups / 2 {
                store.put(vec![record(9_999, journal::DIRECT + 1)]).await.expect("a large group");
            }
            let write = record(i, 6_000);
            last.insert(write.key.clone(), write.value.clone());
            store.put(vec![write]).await.expect("put");
        }
        let image = dir.path().join("image");
        crash_image(&path, &image);
        drop(store);
        let store = SledStore::open(&image).expect("the crash image opens");
        assert_eq!(last.len(), 100);
        // Each value is one byte repeated: its length and byte name it.
        let short = |v: &Option<Vec<u8>>| v.as_ref().map(|v| (v.len(), v[0]));
        for (key, value) in &last {
            assert_eq!(short(&store.get(Side::Games, key).expect("get")), short(value), "the last value written");
        }
        assert_eq!(store.get(Side::Games, b"k9999").expect("get"), record(9_999, journal::DIRECT + 1).value);
    }

    /// A store whose journal file went missing may have lost acknowledged
    /// writes: it is refused, not opened without them.
    #[tokio::test]
    async fn a_store_without_its_journal_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("store");
        let store = SledStore::open(&path).expect("open");
        store.append(suite::new_game_write(&suite::game_id("lost", 0), 2)).await.expect("append");
        let image = dir.path().join("image");
        crash_image(&path, &image);
        drop(store);
        std::fs::remove_file(image.join(journal::FILE)).expect("remove the journal");
        match SledStore::open(&image) {
            Err(StoreError::Corrupt(msg)) => assert!(msg.contains("journal") && msg.contains("Restore"), "{msg}"),
            Err(e) => panic!("expected damage, got {e}"),
            Ok(_) => panic!("opened without its journal"),
        }
    }

    /// Where a crash tore the last group's log buffer (after its intent).
    #[derive(Clone, Copy)]
    enum Tear {
        /// After all of its events: its head record and manifest are lost.
        AfterTheEvents,
        /// After its first event: the rest of its events and its other writes are lost.
        InTheEvents,
        /// After its first event, with an intent of the earlier format (every write whole).
        EarlierFormat,
    }

    /// Game a (3 events) written and closed cleanly, then game b's creation
    /// (2 events) as the last group, torn by a crash as `tear` says: the
    /// directory, and the logs of a and b as written.
    async fn torn_group(tear: Tear) -> (tempfile::TempDir, [GameId; 2], [Vec<Envelope>; 2]) {
        let dir = tempfile::tempdir().expect("tempdir");
        let (a, b) = (suite::game_id("torn", 0), suite::game_id("torn", 1));
        let logs = {
            let store = SledStore::open(dir.path()).expect("open");
            store.append(suite::new_game_write(&a, 3)).await.expect("append");
            store.append(suite::new_game_write(&b, 2)).await.expect("append");
            let logs = [store.load(&a, 0, None).expect("load"), store.load(&b, 0, None).expect("load")];
            store.close().expect("close");
            logs
        };
        {
            // The disk as the crash left it: the group's intent and a prefix
            // of its writes (events, then the head record and the manifest).
            let db = open_db(dir.path()).expect("raw open");
            let main = db.open_tree("main").expect("tree");
            let kb = game_key(&b).unwrap();
            let mut events = Ops::new();
            for item in main.scan_prefix(event_prefix(&kb)) {
                let (k, v) = item.expect("read");
                events.push((k.to_vec(), Some(v.to_vec())));
            }
            assert_eq!(events.len(), 2);
            let head = main.get(head_key(&kb)).expect("read").expect("a head record");
            let manifest = main.get(MANIFEST).expect("read").expect("a manifest");
            let rest: Ops =
                vec![(head_key(&kb).to_vec(), Some(head.to_vec())), (MANIFEST.to_vec(), Some(manifest.to_vec()))];
            // The group after the journal's checkpoint (the clean close's),
            // whose record never reached the journal.
            let journal = journal::read(dir.path()).expect("read").expect("a journal");
            let next = journal::chain(&journal).last().expect("a checkpoint").seq + 1;
            let (intent, lost) = match tear {
                Tear::AfterTheEvents => (encode_intent(next, &events, &rest), 0),
                Tear::InTheEvents => (encode_intent(next, &events, &rest), 1),
                Tear::EarlierFormat => {
                    let mut old = vec![1];
                    encode_writes(&mut old, &events.iter().chain(&rest).cloned().collect());
                    (old, 1)
                }
            };
            for (k, _) in &events[events.len() - lost..] {
                main.remove(k).expect("remove");
            }
            main.remove(head_key(&kb)).expect("remove");
            main.insert(MANIFEST, &1u64.to_be_bytes()[..]).expect("the manifest as before the group");
            main.insert(INTENT, intent).expect("intent");
            db.flush().expect("flush");
            // The last clean close was before game b.
            std::fs::write(dir.path().join(MARKER), format!("{MARKER_TEXT}games 1\nevents 3\n")).expect("marker");
        }
        (dir, [a, b], logs)
    }

    /// A group whose events all reached the disk is completed from its intent.
    #[tokio::test]
    async fn a_group_torn_after_its_events_is_completed_at_open() {
        for tear in [Tear::AfterTheEvents, Tear::EarlierFormat] {
            let (dir, [a, b], logs) = torn_group(tear).await;
            let store = SledStore::open(dir.path()).expect("reopen completes the group");
            assert_eq!(store.load(&a, 0, None).expect("load"), logs[0]);
            assert_eq!(store.load(&b, 0, None).expect("load"), logs[1]);
            assert_eq!(store.head(&b).expect("head"), Some(1));
            assert!(store.manifest_problems(dir.path()).is_empty());
            let open = store.cur().expect("open");
            assert_eq!(open.main.get(INTENT).expect("read"), None, "the intent is removed once applied");
        }
    }

    /// A group cut short inside its events was never acknowledged and wrote
    /// nothing else: the events that reached the disk are removed, and the
    /// store is as before the group.
    #[tokio::test]
    async fn a_group_torn_in_its_events_is_undone_at_open() {
        let (dir, [a, b], logs) = torn_group(Tear::InTheEvents).await;
        let store = SledStore::open(dir.path()).expect("reopen undoes the group");
        assert_eq!(store.load(&a, 0, None).expect("load"), logs[0]);
        assert_eq!(store.head(&b).expect("head"), None);
        assert_eq!(store.load(&b, 0, None).expect("load"), Vec::new());
        assert!(store.manifest_problems(dir.path()).is_empty());
        assert_eq!(store.cur().expect("open").main.get(INTENT).expect("read"), None);
        // Its writer may try again.
        store.append(suite::new_game_write(&b, 2)).await.expect("the game is created again");
        assert_eq!(store.head(&b).expect("head"), Some(1));
    }

    #[tokio::test]
    async fn an_unreadable_intent_is_damage() {
        let dir = tempfile::tempdir().expect("tempdir");
        SledStore::open(dir.path()).expect("open").close().expect("close");
        {
            let db = open_db(dir.path()).expect("raw open");
            db.open_tree("main").expect("tree").insert(INTENT, &b"\x09garbage"[..]).expect("insert");
            db.flush().expect("flush");
        }
        match SledStore::open(dir.path()) {
            Err(StoreError::Corrupt(msg)) => assert!(msg.contains("last group") && msg.contains("Restore"), "{msg}"),
            Err(e) => panic!("expected Corrupt, got {e:?}"),
            Ok(_) => panic!("expected Corrupt, the store opened"),
        }
    }
}
