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
///
/// The journal is read and checked before sled is changed, so a damaged
/// one refuses the open with nothing changed: damage the journal shows
/// ([`journal::chain`]), a journal of zeros where the store had written to
/// it, and a journal whose last group is older than the one whose intent
/// sled holds, less the one being written when the store stopped (sled's
/// files may hold the intent of a group whose record never reached the
/// journal, never of a later one: each group is begun after the previous
/// one's record is on disk).
pub(super) fn recover(path: &Path, db: &Db, main: &Tree) -> StoreResult<Recovered> {
    let bytes = journal::read(path).map_err(|e| io("reading the store's journal", e))?;
    let had_journal = main.contains_key(JOURNAL_KEY).map_err(|e| read_err("reading the store's records", e))?;
    if bytes.is_none() && had_journal {
        let file = path.join(journal::FILE);
        let size = std::fs::metadata(&file)
            .map_or_else(|_| "missing".to_string(), |m| format!("{} bytes long, not {}", m.len(), journal::SIZE));
        return Err(StoreError::Corrupt(format!(
            "the store's journal {} is {size}: it was damaged or removed. {JOURNAL_ADVICE}",
            file.display()
        )));
    }
    let records = match &bytes {
        None => Vec::new(),
        Some(bytes) => journal::chain(bytes).map_err(|d| journal_damage(path, &d))?,
    };
    if bytes.is_some() && records.is_empty() && had_journal {
        let what = "it holds only zeros, though the store has written to it";
        return Err(journal_damage(path, &journal::Damage { offset: 0, what: what.into(), maybe_torn: false }));
    }
    if let (Some(last), Some(intent)) = (records.last().map(|r| r.seq), intent_seq(main)?) {
        if intent > last.saturating_add(1) {
            return Err(StoreError::Corrupt(format!(
                "the store's journal {} ends with group {last}, but sled's files hold the intent of group {intent}: \
                 groups {}..={}, acknowledged, are missing from the journal (it was damaged, or replaced by an older \
                 copy). {JOURNAL_ADVICE}",
                path.join(journal::FILE).display(),
                last + 1,
                intent - 1
            )));
        }
    }
    let (finished, sled_seq) = finish_interrupted_group(db, main)?;
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

/// What to do about a damaged journal.
const JOURNAL_ADVICE: &str = "The journal holds the writes acknowledged since sled's last checkpoint, which \
sled's own files may lack, so the store does not open without them. Nothing was changed. Restore the data directory \
from a backup copied while the server was stopped, and keep this one as it is (`runestone check` lists what else is \
damaged)";

/// The refusal for damage found in the journal: the file, the offset, what
/// is wrong, what to do; for a record a power cut may have torn as it was
/// written, how to drop it.
fn journal_damage(path: &Path, d: &journal::Damage) -> StoreError {
    let file = path.join(journal::FILE);
    let torn = if d.maybe_torn {
        format!(
            ". If the machine lost power or its system stopped at the server's last stop (a killed server leaves \
             no half-written record), this is most likely the record it was writing then, never acknowledged: to \
             start without it, zero the journal from that offset to its end (`dd if=/dev/zero of={} bs=1 seek={} \
             count={} conv=notrunc`) and start again",
            file.display(),
            d.offset,
            (journal::SIZE as usize).saturating_sub(d.offset)
        )
    } else {
        String::new()
    };
    StoreError::Corrupt(format!(
        "the store's journal {} is damaged at offset {}: {}. {JOURNAL_ADVICE}{torn}",
        file.display(),
        d.offset,
        d.what
    ))
}

/// The journal's seq of the group whose intent sled holds (format 3), read
/// without changing anything; `None` without one, or for one that cannot
/// be read (which [`finish_interrupted_group`] refuses).
fn intent_seq(main: &Tree) -> StoreResult<Option<u64>> {
    let Some(intent) = main.get(INTENT).map_err(|e| read_err("reading the last group's intent", e))? else {
        return Ok(None);
    };
    Ok(match decode_intent(&intent) {
        Some(Intent::Group { seq, .. }) => seq,
        _ => None,
    })
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
            let next = journal::chain(&journal).expect("intact").last().expect("a checkpoint").seq + 1;
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

    /// Six games created and each written to once more, as a crash leaves
    /// the store: the image's directory, the games and their logs as
    /// acknowledged. With `flush_at`, sled is flushed after that many games
    /// (its files then hold the intent of that game's last group).
    async fn journaled(dir: &Path, flush_at: Option<usize>) -> (PathBuf, Vec<GameId>, Vec<Vec<Envelope>>) {
        let path = dir.join("store");
        let store = SledStore::open(&path).expect("open");
        let games: Vec<GameId> = (0..6).map(|g| suite::game_id("journaled", g)).collect();
        let mut logs = Vec::new();
        for (i, game) in games.iter().enumerate() {
            store.append(suite::new_game_write(game, 3)).await.expect("append");
            let log = store.load(game, 0, None).expect("load");
            store.append(suite::next_write(log.last().unwrap(), 2)).await.expect("append");
            logs.push(store.load(game, 0, None).expect("load"));
            if flush_at == Some(i) {
                store.cur().expect("open").db.flush().expect("flush sled");
            }
        }
        let image = dir.join("image");
        crash_image(&path, &image);
        drop(store);
        (image, games, logs)
    }

    /// The journal's records of its current pass, read here from the bytes
    /// (`length (u32) ‖ crc32 (u32) ‖ epoch (u64) ‖ seq (u64) ‖ kind ‖ writes`):
    /// each one's offset, length and seq.
    fn records(image: &Path) -> Vec<(usize, usize, u64)> {
        let bytes = journal::read(image).expect("read").expect("a journal");
        let mut out: Vec<(usize, usize, u64)> = Vec::new();
        let mut at = 0;
        loop {
            let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
            let crc = u32::from_be_bytes(bytes[at + 4..at + 8].try_into().unwrap());
            let Some(body) = bytes.get(at + 8..at + 8 + len).filter(|b| b.len() >= 17) else { break };
            let seq = u64::from_be_bytes(body[8..16].try_into().unwrap());
            let follows =
                out.last().is_none_or(|&(prev, _, s)| bytes[prev + 8..prev + 16] == body[..8] && seq == s + 1);
            if crc32fast::hash(body) != crc || !follows {
                break;
            }
            out.push((at, 8 + len, seq));
            at += 8 + len;
        }
        out
    }

    fn edit_journal(image: &Path, edit: impl FnOnce(&mut Vec<u8>)) {
        let file = image.join(journal::FILE);
        let mut bytes = std::fs::read(&file).expect("read");
        edit(&mut bytes);
        std::fs::write(&file, bytes).expect("write");
    }

    fn refused(image: &Path) -> String {
        match SledStore::open(image) {
            Err(StoreError::Corrupt(msg)) => msg,
            Err(e) => panic!("expected damage, got {e}"),
            Ok(_) => panic!("the store opened over a damaged journal"),
        }
    }

    /// A damaged record with readable records of the same pass after it lost
    /// acknowledged groups: the store refuses, naming the file and the
    /// offset, and changes nothing; reading used to stop there and take the
    /// rest for an older pass.
    #[tokio::test]
    async fn a_damaged_record_before_later_ones_is_damage_not_the_journals_end() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (image, _, _) = journaled(dir.path(), None).await;
        let records = records(&image);
        assert!(records.len() >= 10, "{records:?}");
        let middle = records[records.len() / 2].0;
        edit_journal(&image, |b| b[middle + 40] ^= 0x01);
        let before = std::fs::read(image.join(journal::FILE)).expect("read");
        let msg = refused(&image);
        assert!(
            msg.contains(&image.join(journal::FILE).display().to_string())
                && msg.contains(&format!("offset {middle}"))
                && msg.contains("Nothing was changed"),
            "{msg}"
        );
        assert_eq!(std::fs::read(image.join(journal::FILE)).expect("read"), before, "the journal is as it was");
    }

    /// sled's files hold the intent of a later group than the journal's last
    /// readable one (less the one being written): the groups between were
    /// acknowledged and the journal lost them.
    #[tokio::test]
    async fn a_journal_that_ends_before_sleds_intent_is_damage() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (image, _, _) = journaled(dir.path(), Some(4)).await;
        // Every record from the third on zeroed: as if never written.
        let from = records(&image)[3].0;
        edit_journal(&image, |b| b[from..].iter_mut().for_each(|x| *x = 0));
        let msg = refused(&image);
        assert!(msg.contains("intent of group") && msg.contains(journal::FILE), "{msg}");
    }

    /// The record being written when the machine stopped: torn before its
    /// header was written it is dropped (never acknowledged); with a header
    /// naming it, it may as well be an acknowledged record damaged since, so
    /// the store refuses and says how to drop it, after which it opens with
    /// every acknowledged write.
    #[tokio::test]
    async fn a_record_torn_at_the_end_is_dropped_only_when_nothing_names_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (image, games, logs) = journaled(dir.path(), None).await;
        let bytes = journal::read(&image).expect("read").expect("a journal");
        let &(last, len, seq) = records(&image).last().expect("records");
        let end = last + len;
        // The next group's record as it was written (its epoch the live
        // pass's), cut short.
        let epoch = u64::from_be_bytes(bytes[last + 8..last + 16].try_into().unwrap());
        let named = journal::record(epoch, seq + 1, true, &[7; 300]);
        let torn = |upto: usize, record: Vec<u8>| {
            let dir = tempfile::tempdir().expect("tempdir");
            crash_image(&image, dir.path());
            edit_journal(dir.path(), |b| b[end..end + upto].copy_from_slice(&record[..upto]));
            dir
        };
        // Only its length and checksum: nothing names it.
        let headless = torn(8, named.clone());
        let store = SledStore::open(headless.path()).expect("a record torn before its header opens");
        for (game, log) in games.iter().zip(&logs) {
            assert_eq!(&store.load(game, 0, None).expect("load"), log);
        }
        drop(store);
        let with_header = torn(200, named);
        let msg = refused(with_header.path());
        assert!(msg.contains(&format!("offset {end}")) && msg.contains("dd if=/dev/zero"), "{msg}");
        // What the message says to do, then the start.
        edit_journal(with_header.path(), |b| b[end..].iter_mut().for_each(|x| *x = 0));
        let store = SledStore::open(with_header.path()).expect("opens once the torn record is dropped");
        for (game, log) in games.iter().zip(&logs) {
            assert_eq!(&store.load(game, 0, None).expect("load"), log, "every acknowledged write is there");
        }
    }
}
