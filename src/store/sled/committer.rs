//! The committer thread: it takes a group of writes from the queue, checks
//! each against its game's head and the records its writer read, and makes
//! the accepted ones durable as one group (a journal record beside the
//! inserts into sled's memory, or a checkpoint), then answers every writer.

use super::*;

/// The most games whose heads the committer remembers ([`Heads`]); past
/// that it forgets them all and reads each again at its next append.
pub(super) const HEADS_HELD: usize = 100_000;

/// The longest the committer waits for writers to come back before it
/// writes a group: at most half the last group's time, and only when the
/// first writer came back within that time (see `run_committer`).
pub(super) const GATHER_MAX: std::time::Duration = std::time::Duration::from_millis(1);

/// Where the committer makes groups durable: sled (flushed at checkpoints)
/// and the journal.
pub(super) struct Disk {
    pub(super) db: Db,
    pub(super) syncer: Syncer,
    pub(super) journal: Journal,
}

impl Disk {
    /// sled's flush (which ends with `fdatasync` of its log), then the
    /// fdatasyncs it leaves out ([`sync_blobs`](Self::sync_blobs)).
    pub(super) fn flush(&mut self) -> Result<(), String> {
        self.db.flush().map_err(|e| format!("sled: {e}"))?;
        self.sync_blobs()
    }

    /// fdatasync the blob files sled wrote, and their directory.
    pub(super) fn sync_blobs(&mut self) -> Result<(), String> {
        self.syncer.sync().map_err(|e| format!("fdatasync: {e}"))
    }
}

/// The committer thread: one group per turn until the queue is closed.
pub(super) fn run_committer(
    mut disk: Disk,
    main: Tree,
    unconfirmed: Unconfirmed,
    rx: Arc<JobQueue<Job>>,
    failures: mpsc::Sender<String>,
    broken: BrokenCell,
    counts: Arc<GroupCounts>,
) {
    let mut group = Vec::new();
    let mut failed: Option<String> = None;
    let mut heads = Heads::new();
    // The size and duration of the last group (see `GATHER_MAX`).
    let mut last_len = 0usize;
    let mut last_took = std::time::Duration::ZERO;
    loop {
        let idle = Instant::now();
        if !rx.wait_first(&mut group) {
            break;
        }
        // Writers the last group answered come back one by one: while the
        // first is back in less than the bound, wait the bound for the
        // others, so that one fdatasync serves them all.
        let bound = (last_took / 2).min(GATHER_MAX);
        let target = if idle.elapsed() < bound { last_len.min(MAX_GROUP) } else { 0 };
        rx.gather(&mut group, target, Instant::now() + bound);
        let took = Instant::now();
        last_len = group.len();
        match &failed {
            // After a failed fsync the kernel may have dropped the dirty
            // pages and a later fsync may succeed without them: take no more
            // writes rather than acknowledge one that may not be on disk.
            Some(why) => {
                for job in group.drain(..) {
                    let msg = format!(
                        "the store refuses writes since a flush failed ({why}) until it has reopened itself, once the disk has room; nothing of this one was written"
                    );
                    let _ = job.into_reply().send(Err(StoreError::Refused(msg)));
                }
            }
            None => {
                if let Err(e) = commit_group(&mut disk, &main, &unconfirmed, &broken, &mut heads, &counts, &mut group) {
                    tracing::error!("flushing the sled store failed, refusing further writes: {e}");
                    let _ = failures.send(e.clone());
                    failed = Some(e);
                }
            }
        }
        last_took = took.elapsed();
    }
    if failed.is_none() {
        // Every group is on disk whole: its intent is not needed any more,
        // nor what the journal holds (a crash between the two only applies
        // the journal's groups again over a sled that holds them).
        let last = disk.journal.last_seq();
        let closed = main
            .remove(INTENT)
            .map_err(|e| format!("sled: {e}"))
            .and_then(|_| disk.flush())
            .and_then(|()| disk.journal.checkpoint(last).map_err(|e| format!("the journal: {e}")));
        if let Err(e) = closed {
            tracing::error!("final flush of the sled store: {e}");
        }
    }
}

/// Check every write of the group, make those accepted durable as one
/// group ([`write_group`]: one journal record, the inserts into sled
/// beside it), count the group in `counts`, answer everyone. An error means
/// the writes or the flush failed (and every accepted writer was told so).
pub(super) fn commit_group(
    disk: &mut Disk,
    main: &Tree,
    unconfirmed: &Unconfirmed,
    broken: &BrokenCell,
    heads: &mut Heads,
    counts: &GroupCounts,
    group: &mut Vec<Job>,
) -> Result<(), String> {
    // What the accepted writes touch, in doubt if the writes or flush fail.
    let mut doubt = Broken::default();
    // Heads as left by the earlier groups and the writes this group already
    // accepted (a failed group stops the committer's writes, so what it
    // staged is never used).
    if heads.len() > HEADS_HELD {
        heads.clear();
    }
    let mut accepted: Vec<Reply> = Vec::with_capacity(group.len());
    let mut outbox_keys: Vec<Vec<u8>> = Vec::new();
    let mut ops = Ops::new();
    let mut new_games = 0u64;
    for job in group.drain(..) {
        // Hidden from scans before sled can show them, until flushed.
        let keys = job.outbox_keys();
        {
            let mut set = lock(unconfirmed);
            for k in &keys {
                *set.entry(k.clone()).or_default() += 1;
            }
        }
        let touched: Vec<Vec<u8>> = match &job {
            Job::Append { side, .. } | Job::Put { side, .. } => side.iter().map(|(k, _)| k.clone()).collect(),
        };
        let game = match &job {
            Job::Append { game, .. } => Some(*game),
            Job::Put { .. } => None,
        };
        let (result, reply) = match job {
            Job::Append { game, expect_head, events, last_hash, side, unchanged, reply } => {
                let append = Staged { expect_head, events, last_hash, side, unchanged };
                let staged = stage_append(main, &mut ops, heads, game, append);
                (staged.map(|new| new_games += u64::from(new)), reply)
            }
            Job::Put { side, reply } => {
                ops.extend(side);
                (Ok(()), reply)
            }
        };
        match result {
            Ok(()) => {
                accepted.push(reply);
                outbox_keys.extend(keys);
                doubt.games.extend(game);
                doubt.keys.extend(touched);
            }
            // Refused writes were not written: answer at once.
            Err(e) => {
                confirm(unconfirmed, keys);
                let _ = reply.send(Err(e));
            }
        }
    }
    if accepted.is_empty() {
        return Ok(());
    }
    // The manifest counts the games whose first head record this group
    // writes (the committer is its only writer).
    let manifest = if new_games > 0 {
        read_manifest(main)
            .map(|n| ops.push((MANIFEST.to_vec(), Some((n.unwrap_or(0) + new_games).to_be_bytes().to_vec()))))
    } else {
        Ok(())
    };
    // Writes sled fails with an IO error (sled keeps answering the first one
    // it met) leave the outcome unknown: the store is broken like after a
    // failed flush.
    let flushed = manifest.map_err(|e| e.to_string()).and_then(|()| write_group(disk, main, ops));
    // Before anyone is answered: no read shows these writes from now on.
    let failure = match &flushed {
        Ok(()) => {
            confirm(unconfirmed, outbox_keys);
            None
        }
        Err(e) => {
            doubt.why = e.clone();
            Some(doubt)
        }
    };
    let failure = failure.map(|f| {
        let why = f.why.clone();
        *lock(broken) = Some(f);
        why
    });
    let no_space = flushed.as_ref().is_err_and(|e| is_no_space(e));
    let writes = accepted.len();
    if flushed.is_ok() {
        // Counted before anyone is answered: a writer that awaited its write
        // sees it in `group_counts`.
        counts.groups.fetch_add(1, Ordering::Relaxed);
        counts.writes.fetch_add(writes as u64, Ordering::Relaxed);
    }
    for reply in accepted {
        let answer = match &flushed {
            Ok(()) => Ok(()),
            Err(e) if no_space => Err(StoreError::NoSpace(format!("the write may or may not be on disk ({e})"))),
            Err(e) => Err(StoreError::Io(format!("flush: {e}"))),
        };
        // A writer that stopped waiting does not need the answer.
        let _ = reply.send(answer);
    }
    failure.map_or(Ok(()), Err)
}

/// Make outbox keys visible to scans again (one write of them is settled).
pub(super) fn confirm(unconfirmed: &Unconfirmed, keys: Vec<Vec<u8>>) {
    if keys.is_empty() {
        return;
    }
    let mut set = lock(unconfirmed);
    for k in keys {
        if let Some(n) = set.get_mut(&k) {
            *n -= 1;
            if *n == 0 {
                set.remove(&k);
            }
        }
    }
}

/// Whether an error message is the operating system's "no space left".
pub(super) fn is_no_space(msg: &str) -> bool {
    msg.contains("No space left") || msg.contains("os error 28") || msg.contains("Disk quota exceeded")
}

/// Make a group durable: its record goes to the journal, on the journal's
/// own thread, while the committer inserts the group into sled's memory
/// ([`insert_group`]); the group is done when both are. When the journal
/// is full, sled is flushed first (a checkpoint: it then holds every
/// earlier group on disk) and the journal starts again. A group whose
/// record is larger than [`journal::DIRECT`] is inserted and flushed
/// straight away instead, which is a checkpoint too.
///
/// A write that would leave its key as it is (a side record written again
/// with the value it holds, as the service writes a game's private record
/// with every append; a removal of a key that is not there) is left out,
/// of the journal and the intent too ([`without_no_ops`]): sled logs every
/// insert as a change of its page, and a page is written whole again after
/// ten.
pub(super) fn write_group(disk: &mut Disk, main: &Tree, ops: Ops) -> Result<(), String> {
    let ops = without_no_ops(main, ops).map_err(|e| e.to_string())?;
    // Event keys are new keys no other write of the group touches, so
    // writing them first changes no outcome.
    let (events, rest): (Ops, Ops) = ops.into_iter().partition(|(k, v)| is_event_key(k) && v.is_some());
    let mut writes = Vec::new();
    encode_writes(&mut writes, &events);
    encode_writes(&mut writes, &rest);
    let journal_error = |e: std::io::Error| format!("the journal: {e}");
    if writes.len() > journal::DIRECT {
        let seq = disk.journal.skip();
        insert_group(main, seq, events, rest).map_err(|e| e.to_string())?;
        disk.flush()?;
        return disk.journal.checkpoint(seq).map_err(journal_error);
    }
    let record = disk.journal.begin(&writes);
    if !disk.journal.fits(record.len()) {
        let last = disk.journal.last_seq();
        disk.flush()?;
        disk.journal.checkpoint(last).map_err(journal_error)?;
    }
    let seq = disk.journal.send(record).map_err(journal_error)?;
    // A page too large for sled's log goes to a blob file of its own, which
    // the message naming it must not outlive: synced now, not only at the
    // next checkpoint (one `stat` of the blob directory when there is none).
    let inserted = insert_group(main, seq, events, rest).map_err(|e| e.to_string()).and_then(|()| disk.sync_blobs());
    // Waited for even when the inserts failed: the journal's thread answers
    // every record it is given.
    let written = disk.journal.finish().map_err(journal_error);
    inserted.and(written)
}

/// Insert a group into sled's memory: its intent first, then the events of
/// its appends, then its other writes (side records, head records, the
/// manifest) in order. sled writes them to its log when a log buffer fills
/// and at a checkpoint, and recovers its log up to the first torn message:
/// after a crash its disk holds every group up to some point, then the
/// intent and a prefix of the writes of one more group, or nothing of it.
/// At the next open ([`finish_interrupted_group`]) a group whose events all
/// reached the disk is completed from its intent, and one whose events did
/// not is undone (its other writes come after its events, so none of them
/// did); then the journal's groups are applied again ([`recover`]).
///
/// The intent holds the event keys without their values, so a group's
/// events are logged once in sled, not twice (the events are nearly all of
/// a group's bytes); the other writes are small and held whole.
pub(super) fn insert_group(main: &Tree, seq: u64, events: Ops, rest: Ops) -> StoreResult<()> {
    main.insert(INTENT, encode_intent(seq, &events, &rest)).map_err(|e| io("writing a group's intent", e))?;
    apply_ops(main, events)?;
    apply_ops(main, rest)
}

/// `ops` without the writes that change nothing: an insert of the value
/// the key holds, a removal of a key that is not there. Only the first
/// write of a key in the group is compared with what sled holds (a later
/// one follows a write of the group, so it is kept); event keys are new
/// keys, and head records and the manifest change whenever they are
/// written, so these are always written without reading them. The committer is the only writer of the main
/// tree and takes no write after a failed flush, so what sled holds in
/// memory here is what the disk holds.
pub(super) fn without_no_ops(main: &Tree, ops: Ops) -> StoreResult<Ops> {
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut out = Ops::with_capacity(ops.len());
    for (k, v) in ops {
        // Head records and the manifest change with every write of theirs
        // (a head record's seq grows, the manifest's count too).
        if is_event_key(&k) || is_head_key(&k) || k == MANIFEST || !seen.insert(k.clone()) {
            out.push((k, v));
            continue;
        }
        let held = main.get(&k).map_err(|e| read_err("reading a side record before writing it", e))?;
        let same = match (&v, &held) {
            (Some(v), Some(held)) => v.as_slice() == held.as_ref(),
            (None, None) => true,
            _ => false,
        };
        if !same {
            out.push((k, v));
        }
    }
    Ok(out)
}

pub(super) fn apply_ops(main: &Tree, ops: Ops) -> StoreResult<()> {
    for (k, v) in ops {
        match v {
            Some(v) => main.insert(k, v).map(drop),
            None => main.remove(k).map(drop),
        }
        .map_err(|e| io("writing a group", e))?;
    }
    Ok(())
}

/// The side records an append's writer read still hold what it read, as
/// the group's earlier writes leave them (the committer is their only writer).
pub(super) fn unchanged_in(
    main: &Tree,
    ops: &Ops,
    unchanged: &[(Vec<u8>, Option<Vec<u8>>)],
    game: &GameKey,
) -> StoreResult<()> {
    for (key, value) in unchanged {
        let now = match ops.iter().rev().find(|(k, _)| k == key) {
            Some((_, v)) => v.clone(),
            None => main.get(key).map_err(|e| read_err("reading a side record", e))?.map(|v| v.to_vec()),
        };
        if now != *value {
            return Err(StoreError::Changed { game: name(game) });
        }
    }
    Ok(())
}

/// An append's parts as the committer stages them.
pub(super) struct Staged {
    pub(super) expect_head: Option<u64>,
    pub(super) events: Vec<([u8; EVENT_KEY_LEN], Vec<u8>)>,
    pub(super) last_hash: Option<String>,
    pub(super) side: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    pub(super) unchanged: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

/// Check an append against the head and the side records its writer read
/// (as left by this group's earlier writes) and add it to the group's
/// writes; `true` when it writes its game's first head record.
pub(super) fn stage_append(
    main: &Tree,
    ops: &mut Ops,
    heads: &mut Heads,
    game: GameKey,
    append: Staged,
) -> StoreResult<bool> {
    let Staged { expect_head, events, last_hash, side, unchanged } = append;
    let (head, recorded) = match heads.get(&game) {
        Some(h) => *h,
        None => {
            let recorded = read_head_record(main, &game)?;
            let found = checked_head(main, &game, recorded.as_ref().map(|(seq, _)| *seq))?;
            (found, recorded.is_some())
        }
    };
    if head != expect_head {
        return Err(StoreError::Conflict {
            game: String::from_utf8_lossy(&game).into_owned(),
            expected: expect_head,
            found: head,
        });
    }
    unchanged_in(main, ops, &unchanged, &game)?;
    let new_head = events.last().map(|(k, _)| seq_of(k)).or(head);
    for (k, json) in events {
        ops.push((k.to_vec(), Some(json)));
    }
    ops.extend(side);
    let mut first = false;
    if let (Some(seq), Some(hash)) = (new_head, &last_hash) {
        put_head_record(ops, &game, seq, hash);
        first = !recorded;
    }
    heads.insert(game, (new_head, recorded || first));
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sled::tests::*;
    use crate::store::suite;

    #[tokio::test]
    async fn one_group_checks_its_writes_against_each_other() {
        let (store, _dir) = fresh();
        let g = suite::game_id("group", 1);
        let create = suite::new_game_write(&g, 2);
        let last = create.events.last().expect("events").clone();
        let next = suite::next_write(&last, 1);
        let rival = suite::next_write(&last, 2);
        // Queued in this order, most likely into one group.
        let (a, b, c) = tokio::join!(store.append(create), store.append(next), store.append(rival));
        a.expect("create");
        b.expect("the write right after it in the queue");
        match c {
            Err(StoreError::Conflict { expected: Some(1), found: Some(2), .. }) => {}
            other => panic!("expected a conflict with the queued write, got {other:?}"),
        }
        assert_eq!(store.head(&g).expect("head"), Some(2));
        runestone_engine::log::check_chain(&store.load(&g, 0, None).expect("load")).expect("chain");
    }

    #[tokio::test]
    async fn group_counts_count_the_flushed_writes() {
        let (store, _dir) = fresh();
        assert_eq!(store.group_counts(), (0, 0));
        let g = suite::game_id("counts", 1);
        let create = suite::new_game_write(&g, 2);
        let last = create.events.last().expect("events").clone();
        store.append(create).await.expect("create");
        store.append(suite::next_write(&last, 1)).await.expect("the next write");
        assert!(store.append(suite::next_write(&last, 2)).await.is_err(), "a stale write is refused");
        assert_eq!(store.group_counts(), (2, 2), "one group per write awaited in turn; the refused one is not flushed");
    }

    /// A write that leaves its key as it is reaches neither sled nor the
    /// group's intent; the first write of a key in a group is compared with
    /// what sled holds, a later one is kept; event keys are always written.
    #[tokio::test]
    async fn writes_that_change_nothing_are_left_out_of_a_group() {
        let (store, _dir) = fresh();
        let open = store.cur().expect("open");
        let main = &open.main;
        main.insert(b"gheld", &b"X"[..]).expect("insert");
        let event = event_key(&game_key(&suite::game_id("noop", 0)).unwrap(), 0).to_vec();
        let ops: Ops = vec![
            (b"gheld".to_vec(), Some(b"X".to_vec())),
            (b"ggone".to_vec(), None),
            (b"gnew".to_vec(), Some(b"N".to_vec())),
            (event.clone(), Some(b"E".to_vec())),
        ];
        let kept: Vec<Vec<u8>> = without_no_ops(main, ops).unwrap().into_iter().map(|(k, _)| k).collect();
        assert_eq!(kept, vec![b"gnew".to_vec(), event]);
        // X -> Y -> X within one group: both writes are needed.
        let ops: Ops = vec![(b"gheld".to_vec(), Some(b"Y".to_vec())), (b"gheld".to_vec(), Some(b"X".to_vec()))];
        assert_eq!(without_no_ops(main, ops.clone()).unwrap(), ops);

        // Through the committer: an append writing a game's record again
        // with the same value leaves it out of its intent; a changed one is written.
        let game = suite::game_id("noop", 1);
        let record = |v: &[u8]| SideWrite { side: Side::Games, key: game.as_bytes().to_vec(), value: Some(v.to_vec()) };
        let mut first = suite::new_game_write(&game, 2);
        first.side = vec![record(b"the record")];
        store.append(first.clone()).await.expect("append");
        let rest_of_intent = || match decode_intent(&main.get(INTENT).unwrap().expect("an intent")) {
            Some(Intent::Group { rest, .. }) => rest.into_iter().map(|(k, _)| k).collect::<Vec<_>>(),
            _ => panic!("an intent of format 2"),
        };
        let key = side_key(Side::Games, game.as_bytes());
        assert!(rest_of_intent().contains(&key), "the first write of the record is in its group");
        let mut same = suite::next_write(first.events.last().unwrap(), 1);
        same.side = vec![record(b"the record")];
        store.append(same.clone()).await.expect("append");
        assert!(!rest_of_intent().contains(&key), "the same record again is not written");
        assert!(rest_of_intent().contains(&head_key(&game_key(&game).unwrap()).to_vec()), "the head record is");
        let mut changed = suite::next_write(same.events.last().unwrap(), 1);
        changed.side = vec![record(b"another record")];
        store.append(changed).await.expect("append");
        assert!(rest_of_intent().contains(&key));
        assert_eq!(store.get(Side::Games, game.as_bytes()).unwrap(), Some(b"another record".to_vec()));
        assert_eq!(store.load(&game, 0, None).unwrap().len(), 4);
    }
}
