//! A store broken by a failed flush: reads of what the failed group touched
//! answer that the store is recovering, and a thread reopens the store
//! through the path of a start once the disk has room again.

use super::*;

/// What a read met while the store is being reopened after a full disk.
pub(super) const RECOVERING: &str = "the store is recovering from a full disk; try again in a moment";

/// The first and the longest wait between two attempts to reopen.
pub(super) const RECOVERY_FIRST: std::time::Duration = std::time::Duration::from_secs(1);

pub(super) const RECOVERY_MAX: std::time::Duration = std::time::Duration::from_secs(30);

impl Shared {
    pub(super) fn broken(&self) -> Option<String> {
        lock(&self.broken).as_ref().map(|b| b.why.clone())
    }

    /// Refuse a read of a game a failed flush may have lost writes of.
    pub(super) fn doubt_game(&self, game: &GameKey) -> StoreResult<()> {
        match lock(&self.broken).as_ref() {
            Some(b) if b.games.contains(game) => Err(StoreError::Refused(RECOVERING.into())),
            _ => Ok(()),
        }
    }

    /// Refuse a read of a side record a failed flush may have lost.
    pub(super) fn doubt_key(&self, key: &[u8]) -> StoreResult<()> {
        match lock(&self.broken).as_ref() {
            Some(b) if b.keys.contains(key) => Err(StoreError::Refused(RECOVERING.into())),
            _ => Ok(()),
        }
    }

    /// What a failed flush left in doubt (empty when healthy).
    pub(super) fn in_doubt(&self) -> (HashSet<GameKey>, HashSet<Vec<u8>>) {
        lock(&self.broken).as_ref().map(|b| (b.games.clone(), b.keys.clone())).unwrap_or_default()
    }

    /// Free space needed before a reopen, and what is free now.
    pub(super) fn room(&self) -> StoreResult<(u64, u64)> {
        let free = fs2::available_space(&self.path).map_err(|e| io("measuring the free space", e))?;
        let total = fs2::total_space(&self.path).map_err(|e| io("measuring the disk", e))?;
        let reserve = lock(&self.reserve).as_ref().map_or(0, |r| r.bytes(total));
        Ok((MIN_FREE_TO_OPEN.saturating_add(reserve), free))
    }

    /// Stop the broken database, drop every handle on it and open the store
    /// again through the path of a start.
    pub(super) fn reopen(&self) -> StoreResult<()> {
        let old = write_lock(&self.state).take();
        if let Some(old) = old {
            let _ = old.stop();
            // Readers hold a handle only for the length of one read.
            let mut old = old;
            let since = std::time::Instant::now();
            loop {
                match Arc::try_unwrap(old) {
                    Ok(open) => {
                        drop(open);
                        break;
                    }
                    Err(still) if since.elapsed() < std::time::Duration::from_secs(30) => {
                        old = still;
                        std::thread::sleep(std::time::Duration::from_millis(10));
                    }
                    // `open_db` waits a while for sled's lock, then says so.
                    Err(_) => break,
                }
            }
        }
        let opened = open_checked(&self.path, self.settings)?;
        let open = Open::start(&self.path, opened, lock(&self.failures).clone(), self.broken.clone())?;
        let mut state = write_lock(&self.state);
        if self.closed.load(Ordering::SeqCst) {
            drop(state);
            let _ = open.stop();
            return Ok(());
        }
        *state = Some(Arc::new(open));
        *lock(&self.broken) = None;
        Ok(())
    }
}

/// The recovery thread: after a failed flush the store is broken (writes
/// refused at once); once the filesystem has room again it is reopened.
/// Ends when the store is dropped.
pub(super) fn run_recovery(shared: Weak<Shared>, failed: mpsc::Receiver<String>) {
    // The committer has set the broken state before it reports here.
    while let Ok(why) = failed.recv() {
        tracing::error!(
            error = %why,
            "the event store is broken after a failed flush: writes are refused until it is reopened, which it does by itself once the disk has room"
        );
        let mut wait = RECOVERY_FIRST;
        loop {
            std::thread::sleep(wait);
            wait = (wait * 2).min(RECOVERY_MAX);
            let Some(s) = shared.upgrade() else { return };
            if s.closed.load(Ordering::SeqCst) {
                return;
            }
            #[cfg(test)]
            if s.hold_recovery.load(Ordering::SeqCst) {
                wait = std::time::Duration::from_millis(20);
                continue;
            }
            match s.room() {
                Ok((need, free)) if free < need => {
                    tracing::debug!(free, need, "waiting for space to reopen the event store");
                    continue;
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!("reopening the event store: {e}");
                    continue;
                }
            }
            match s.reopen() {
                Ok(()) => {
                    tracing::warn!("the event store is reopened after a full disk and accepts writes again");
                    break;
                }
                Err(e) => tracing::error!("reopening the event store failed, trying again later: {e}"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sled::tests::*;
    use crate::store::suite;

    /// Wait (with a generous bound) until the store has reopened itself.
    async fn until_recovered(store: &SledStore) {
        let t = std::time::Instant::now();
        while store.recovering().is_some() {
            assert!(t.elapsed() < std::time::Duration::from_secs(120), "the store did not reopen itself");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_flush_refuses_writes_until_the_store_reopens_itself() {
        let (store, _dir) = fresh();
        store.shared.hold_recovery.store(true, Ordering::SeqCst);
        let g = suite::game_id("fail", 1);
        store.append(suite::new_game_write(&g, 1)).await.expect("append");
        let last = store.load(&g, 0, None).expect("load").pop().expect("event");
        store.fail_syncs(true);
        match store.append(suite::next_write(&last, 1)).await {
            Err(StoreError::Io(msg)) => assert!(msg.contains("injected"), "{msg}"),
            other => panic!("expected Io, got {other:?}"),
        }
        store.fail_syncs(false);
        let other = suite::game_id("fail", 2);
        match store.append(suite::new_game_write(&other, 1)).await {
            Err(StoreError::Refused(msg)) => {
                assert!(msg.contains("flush failed") && msg.contains("nothing of this one was written"), "{msg}")
            }
            other => panic!("expected a refusal after a failed flush, got {other:?}"),
        }
        assert!(matches!(store.put(Vec::new()).await, Err(StoreError::Refused(_))));
        assert_eq!(store.head(&other).expect("head"), None, "the refused write was not applied");
        // The game of the failed flush is not read from sled's memory.
        assert!(matches!(store.load(&g, 0, None), Err(StoreError::Refused(m)) if m.contains("recovering")));
        // The recovery thread has seen the failure (it sets the broken state).
        let t = std::time::Instant::now();
        while store.recovering().is_none() {
            assert!(t.elapsed() < std::time::Duration::from_secs(120), "the store never said it was broken");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert!(store.recovering().expect("broken").contains("injected"));

        // Released, it reopens through the safe path, without a restart.
        store.shared.hold_recovery.store(false, Ordering::SeqCst);
        until_recovered(&store).await;
        // The write of the failed flush reached sled's file: the log is whole.
        let head = store.head(&g).expect("head after reopen").expect("a head");
        let log = store.load(&g, 0, None).expect("load after reopen");
        assert_eq!(log.len() as u64, head + 1);
        runestone_engine::log::check_chain(&log).expect("chain");
        store.append(suite::next_write(log.last().expect("event"), 1)).await.expect("a write after the reopen");
        store.append(suite::new_game_write(&other, 1)).await.expect("a new game after the reopen");
        assert_eq!(store.games(None, 10).expect("games").len(), 2);
        store.close().expect("close");
        drop(store);
        let again = SledStore::open(_dir.path()).expect("a clean start after the reopen");
        assert_eq!(again.head(&g).expect("head"), Some(head + 1));
    }

    /// Make every blob write of the store at `dir` fail (sled writes a blob
    /// for a page over a quarter segment): its blob directory becomes a file.
    fn break_blobs(dir: &Path) {
        let blobs = dir.join("blobs");
        std::fs::remove_dir_all(&blobs).expect("remove the blob directory");
        std::fs::write(&blobs, b"not a directory").expect("a file in its place");
    }

    fn mend_blobs(dir: &Path) {
        let blobs = dir.join("blobs");
        std::fs::remove_file(&blobs).expect("remove the file");
        std::fs::create_dir(&blobs).expect("the blob directory again");
    }

    /// `f` on a thread of its own, its result awaited with a generous bound:
    /// `None` if it has not returned by then (it is left running).
    fn within<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(std::time::Duration::from_secs(120)).ok()
    }

    /// sled 0.34.7 hung every flush after a failed blob write (the message
    /// stayed counted as a writer of its log buffer); the vendored sled
    /// aborts the message, so the writer gets the error, later flushes and
    /// the close return, and the store opens with everything flushed before.
    #[test]
    fn a_failed_blob_write_is_answered_and_later_flushes_proceed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = open_db(dir.path()).expect("sled");
        db.insert(b"before", &b"flushed"[..]).expect("insert");
        db.flush().expect("flush");
        break_blobs(dir.path());
        let big = noise(200_000, 1);
        let err = db.insert(b"big", big.clone()).expect_err("the blob write fails");
        assert!(err.to_string().contains("Not a directory"), "{err}");
        let flushing = db.clone();
        let flushed = within(move || flushing.flush().map(|_| ()).map_err(|e| e.to_string()))
            .expect("a flush after the failed blob write returns");
        flushed.expect("the flush succeeds: the failed message was canceled, not the log");
        mend_blobs(dir.path());
        within(move || drop(db)).expect("the close returns");
        let db = open_db(dir.path()).expect("the store opens again");
        assert_eq!(db.get(b"before").expect("read").as_deref(), Some(&b"flushed"[..]));
        assert_eq!(db.get(b"big").expect("read"), None, "the failed write is not there");
        db.insert(b"big", big.clone()).expect("a blob write succeeds");
        db.flush().expect("flush");
        drop(db);
        let db = open_db(dir.path()).expect("open");
        assert_eq!(db.get(b"big").expect("read").as_deref(), Some(&big[..]));
    }

    /// The same through the store: the group whose page became a blob is
    /// answered with the error, and the store reopens itself (the reopen
    /// drops every sled handle, whose close hung with sled 0.34.7).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_blob_write_breaks_the_store_until_it_reopens_itself() {
        let (store, dir) = fresh();
        store.shared.hold_recovery.store(true, Ordering::SeqCst);
        let g = suite::game_id("blob", 1);
        store.append(suite::new_game_write(&g, 1)).await.expect("append");
        let last = store.load(&g, 0, None).expect("load").pop().expect("event");
        break_blobs(dir.path());
        let mut write = suite::next_write(&last, 1);
        write.side = vec![SideWrite { side: Side::Games, key: g.as_bytes().to_vec(), value: Some(noise(200_000, 2)) }];
        match store.append(write).await {
            Err(StoreError::Io(msg)) => assert!(msg.contains("Not a directory"), "{msg}"),
            other => panic!("expected Io, got {other:?}"),
        }
        mend_blobs(dir.path());
        store.shared.hold_recovery.store(false, Ordering::SeqCst);
        until_recovered(&store).await;
        let log = store.load(&g, 0, None).expect("load after the reopen");
        assert_eq!(log.len(), 1, "the failed group is not there");
        let mut write = suite::next_write(&last, 1);
        write.side = vec![SideWrite { side: Side::Games, key: g.as_bytes().to_vec(), value: Some(noise(200_000, 3)) }];
        store.append(write).await.expect("the same write after the reopen");
        assert_eq!(store.get(Side::Games, g.as_bytes()).expect("read"), Some(noise(200_000, 3)));
        store.close().expect("close");
        drop(store);
        let again = SledStore::open(dir.path()).expect("a clean start");
        assert_eq!(again.load(&g, 0, None).expect("load").len(), 2);
    }

    #[tokio::test]
    async fn outbox_records_of_a_failed_flush_are_never_scanned() {
        let (store, _dir) = fresh();
        store.shared.hold_recovery.store(true, Ordering::SeqCst);
        let put = |key: &[u8]| SideWrite { side: Side::Outbox, key: key.to_vec(), value: Some(b"mail".to_vec()) };
        store.put(vec![put(b"q-ok")]).await.expect("put");
        store.fail_syncs(true);
        let g = suite::game_id("mail", 1);
        let mut write = suite::new_game_write(&g, 1);
        write.side.push(put(b"q-lost"));
        assert!(matches!(store.append(write).await, Err(StoreError::Io(_))));
        // In sled's memory, maybe not on disk: no read shows it, and a mail
        // for it must not leave.
        for read in [store.head(&g).map(|_| ()), store.load(&g, 0, None).map(|_| ())] {
            match read {
                Err(StoreError::Refused(msg)) => assert!(msg.contains("recovering from a full disk"), "{msg}"),
                other => panic!("expected the recovering answer, got {other:?}"),
            }
        }
        let keys: Vec<Vec<u8>> =
            store.scan(Side::Outbox, b"q", 10).expect("scan").into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, vec![b"q-ok".to_vec()]);
    }
}
