//! Opening a store: room on the disk, interrupted snapshots cleared, sled's
//! panics on damaged files caught, the crash recovery run, and the store
//! checked against its manifest and the marker's summary; sled's settings
//! (page cache, compression).

use super::*;

/// The least free space, in bytes, the store's filesystem must have before
/// sled is opened: recovery writes a snapshot file and zeroes torn segments.
pub const MIN_FREE_TO_OPEN: u64 = 4 << 20;

/// Make sure opening cannot damage the store (DESIGN.md §4).
///
/// sled 0.34.7 writes at open: `pagecache::snapshot::advance_snapshot` ends
/// with `write_snapshot`, which writes `snap.<lsn>.generating`, syncs it and
/// only then renames it to `snap.<lsn>`. When that write fails (no space
/// left on the device), the partial `.generating` file stays behind, and
/// `read_snapshot` at the next open takes the last snapshot file in name
/// order, which `Config::get_snapshot_files` lets be a `.generating` one: its
/// checksum fails and every later open answers "Read corrupted data at file
/// offset None", with all data still intact in the log. So:
///
/// 1. refuse to open (writing nothing) when the filesystem has less than
///    [`MIN_FREE_TO_OPEN`] free;
/// 2. remove `snap.*.generating` files: a complete snapshot is always renamed
///    before the previous one is removed, so such a file is never needed, and
///    without it sled recovers from the previous snapshot and the log, as
///    after a crash a moment before that snapshot began;
/// 3. set aside a damaged snapshot ([`set_aside_damaged_snapshots`]).
pub(super) fn prepare_open(path: &Path) -> StoreResult<()> {
    check_room_to_open(path)?;
    clear_interrupted_snapshots(path)?;
    set_aside_damaged_snapshots(path)
}

/// sled's snapshot files (`snap.<lsn>`, a cache of its page table that it
/// rebuilds from its log when there is none), the one sled reads last. A
/// name sled does not take for a snapshot ([`SET_ASIDE`]) is left out.
fn snapshot_files(path: &Path) -> StoreResult<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(path) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io("listing the store's files", e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| io("listing the store's files", e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("snap.") && !name.ends_with(".in___motion") {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}

/// Whether a snapshot file passes the checksum sled checks when it reads it
/// (its bytes, then their length (u64) and the crc32 of the bytes (u32),
/// little-endian).
fn snapshot_intact(bytes: &[u8]) -> bool {
    let len = bytes.len();
    len > 12 && crc32fast::hash(&bytes[..len - 12]).to_le_bytes()[..] == bytes[len - 4..]
}

/// The prefix a damaged snapshot file is renamed with: sled takes every file
/// whose name starts with `snap.` for a snapshot (and removes the older
/// ones after writing a new one), so a name ending in `.damaged` would be
/// read again, then deleted.
pub const SET_ASIDE: &str = "damaged-";

/// The snapshot files sled would read at open (the last by name, and the
/// ones before it if that one is damaged) that fail their checksum.
pub fn damaged_snapshots(path: &Path) -> StoreResult<Vec<PathBuf>> {
    let mut damaged = Vec::new();
    for snap in snapshot_files(path)?.into_iter().rev() {
        let bytes = std::fs::read(&snap).map_err(|e| io(&format!("reading {}", snap.display()), e))?;
        if snapshot_intact(&bytes) {
            break;
        }
        damaged.push(snap);
    }
    Ok(damaged)
}

/// A damaged snapshot file made sled refuse to open ("Read corrupted data at
/// file offset None") without naming it, though it is only a cache: each
/// damaged one sled would read is renamed (`damaged-snap.<lsn>`, kept for
/// whoever looks into it) and sled recovers from the snapshot before it, or
/// from its whole log, as when a crash came before that snapshot was made.
fn set_aside_damaged_snapshots(path: &Path) -> StoreResult<()> {
    let damaged = damaged_snapshots(path)?;
    for snap in &damaged {
        let name = snap.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let aside = path.join(format!("{SET_ASIDE}{name}"));
        tracing::warn!(
            file = %snap.display(),
            renamed_to = %aside.display(),
            "sled's snapshot file is damaged (its checksum fails); it is a cache of sled's page table, so it is set aside and sled rebuilds it from its log"
        );
        std::fs::rename(snap, &aside)
            .map_err(|e| io(&format!("setting aside the damaged snapshot {}", snap.display()), e))?;
    }
    if !damaged.is_empty() {
        sync_dir(path).map_err(|e| io("syncing the store's directory", e))?;
    }
    Ok(())
}

/// Whether another process has the store at `path` open (sled locks its
/// `db` file while open, and so does a store of this process); nothing is
/// written.
pub fn in_use(path: &Path) -> std::io::Result<bool> {
    use fs2::FileExt;
    let db = File::open(path.join("db"))?;
    match db.try_lock_exclusive() {
        Ok(()) => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Ok(true),
        Err(e) if e.raw_os_error() == fs2::lock_contended_error().raw_os_error() => Ok(true),
        Err(e) => Err(e),
    }
}

pub(super) fn check_room_to_open(path: &Path) -> StoreResult<()> {
    // The store's directory, or its nearest existing ancestor on first start.
    let existing = path.ancestors().find(|p| p.exists()).unwrap_or(path);
    let free = fs2::available_space(existing)
        .map_err(|e| io(&format!("measuring the free space at {}", existing.display()), e))?;
    if free < MIN_FREE_TO_OPEN {
        return Err(StoreError::NoSpace(format!(
            "the filesystem of {} has {} free; the event store needs at least {} to open safely. \
             Nothing was written; free some space and start again",
            path.display(),
            crate::config::human_bytes(free),
            crate::config::human_bytes(MIN_FREE_TO_OPEN)
        )));
    }
    Ok(())
}

pub(super) fn clear_interrupted_snapshots(path: &Path) -> StoreResult<()> {
    let entries = match std::fs::read_dir(path) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io("listing the store's files", e)),
    };
    let mut removed = false;
    for entry in entries {
        let entry = entry.map_err(|e| io("listing the store's files", e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("snap.") && name.ends_with(".generating") {
            tracing::warn!(file = %name, "removing a snapshot file whose writing was interrupted; sled recovers from the previous snapshot and its log");
            std::fs::remove_file(entry.path())
                .map_err(|e| io(&format!("removing the interrupted snapshot {name}"), e))?;
            removed = true;
        }
    }
    if removed {
        sync_dir(path).map_err(|e| io("syncing the store's directory", e))?;
    }
    Ok(())
}

/// Open sled and its trees (with its background flusher off: see the
/// module docs), turning a panic inside sled (its recovery
/// panics on some damaged files) into an error that says what to do.
pub(super) fn open_caught(path: &Path, settings: SledSettings) -> StoreResult<(Db, Tree, Tree)> {
    let damaged = |what: String| {
        StoreError::Corrupt(format!(
            "sled's files under {} (its log file `db`, `conf`, `snap.*`) are damaged: {what}. \
             Nothing was repaired or changed. Restore this directory from a backup copied while the server was stopped",
            path.display()
        ))
    };
    let attempt = || -> sled::Result<(Db, Tree, Tree)> {
        let db = open_db_with_cache(path, settings)?;
        let main = db.open_tree("main")?;
        let snapshots = db.open_tree("snapshots")?;
        Ok((db, main, snapshots))
    };
    let outcome = {
        static HOOK: Mutex<()> = Mutex::new(());
        let _one_at_a_time = lock(&HOOK);
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let outcome = std::panic::catch_unwind(attempt);
        std::panic::set_hook(previous);
        outcome
    };
    match outcome {
        Ok(Ok(opened)) => Ok(opened),
        Ok(Err(e @ sled::Error::Corruption { .. })) => Err(damaged(e.to_string())),
        Ok(Err(sled::Error::Unsupported(e))) => Err(damaged(e)),
        Ok(Err(sled::Error::ReportableBug(e))) => Err(damaged(e)),
        Ok(Err(e)) => Err(io(&format!("opening the sled database under {}", path.display()), e)),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "sled stopped while reading them".into());
            Err(damaged(format!("sled failed while recovering them ({msg})")))
        }
    }
}

/// Check the store against its manifest at start (one short key per game
/// is read, no log): a store whose manifest counts other games than there
/// are head records, or whose sled files lost everything though the marker
/// says a store was made here, is refused. A store without a manifest (new,
/// or last written by an older server) gets one.
pub(super) fn check_manifest(path: &Path, db: &Db, main: &Tree) -> StoreResult<()> {
    let marker = path.join(MARKER);
    let what_to_do = "Nothing was changed. Run `runestone check` to list the damaged games, \
                      and restore the data directory from a backup copied while the server was stopped";
    match read_manifest(main)? {
        None if marker.exists() => {
            return Err(StoreError::Corrupt(format!(
                "{} says a store was created here, but sled's files under {} hold no manifest of games: \
                 the `db` file was lost or damaged and every game is missing. {what_to_do}",
                marker.display(),
                path.display()
            )))
        }
        None => {
            let n = count_head_records(main)?;
            main.insert(MANIFEST, &n.to_be_bytes()[..]).map_err(|e| io("writing the manifest", e))?;
            db.flush().map_err(|e| io("writing the manifest", e))?;
        }
        Some(n) => {
            let (k, events) = head_totals(main)?;
            if let Some((was_games, was_events)) = read_summary(path) {
                if k < was_games || events < was_events {
                    return Err(StoreError::Corrupt(format!(
                        "{} says the store held {was_games} games and {was_events} events when the server last \
                         stopped cleanly, but sled's files under {} now hold {k} games and {events} events: \
                         the latest writes were lost (the `db` file was damaged or replaced). {what_to_do}",
                        marker.display(),
                        path.display()
                    )));
                }
            }
            if k != n {
                return Err(StoreError::Corrupt(format!(
                    "the manifest under {} counts {n} games, but {k} have a head record: \
                     {} games lost their head record or their whole log. {what_to_do}",
                    path.display(),
                    n.abs_diff(k)
                )));
            }
        }
    }
    if !marker.exists() {
        let write = || -> std::io::Result<()> {
            std::fs::write(&marker, MARKER_TEXT)?;
            File::open(&marker)?.sync_all()?;
            sync_dir(path)
        };
        write().map_err(|e| io(&format!("writing {}", marker.display()), e))?;
    }
    Ok(())
}

/// sled alone at `path`, for tests that damage its files.
#[cfg(test)]
pub(crate) fn open_db(path: &Path) -> sled::Result<Db> {
    open_db_with_cache(path, SledSettings::default())
}

/// The zstd level of sled's page compression (sled's default is 5).
pub const COMPRESSION_LEVEL: i32 = 1;

/// How a sled store is opened.
#[derive(Clone, Copy, Debug)]
pub struct SledSettings {
    /// The bound of sled's page cache, in bytes (`storage.store_cache`).
    pub cache_bytes: u64,
    /// Whether a store created by this open has sled compress its pages
    /// (`storage.compress_pages`, off by default: see the module docs,
    /// "Space", for what it costs). A store that exists keeps the setting it
    /// was created with ([`pages_compressed`]).
    pub compress_new: bool,
}

impl Default for SledSettings {
    fn default() -> SledSettings {
        SledSettings { cache_bytes: DEFAULT_CACHE_BYTES, compress_new: false }
    }
}

/// Whether sled compresses the pages of the store at `path` (see the module
/// docs, "Space"); `None` when there is no store there yet. sled refuses to
/// open a store with the other setting, and records it in its `conf` file
/// when it creates the store; a log file without `conf` was made before sled
/// wrote one: uncompressed, as every store before compression was offered.
pub fn pages_compressed(path: &Path) -> Option<bool> {
    match std::fs::read(path.join("conf")) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).lines().any(|l| l.trim() == "use_compression: true")),
        Err(_) => path.join("db").exists().then_some(false),
    }
}

/// sled's configuration for the store at `path`: its page cache bound, its
/// background flusher off (the committer flushes), its pages compressed or
/// not as the store was created ([`pages_compressed`]), or as
/// `settings.compress_new` says for a new store.
pub fn sled_config(path: &Path, settings: SledSettings) -> sled::Config {
    sled::Config::new()
        .path(path)
        .cache_capacity(settings.cache_bytes)
        .flush_every_ms(None)
        .use_compression(pages_compressed(path).unwrap_or(settings.compress_new))
        .compression_factor(COMPRESSION_LEVEL)
}

/// Open sled at `path`, waiting a while for its file lock: sled's own
/// background thread of a store just dropped in this process (or a server
/// still exiting) may hold it for a moment after `drop` returns.
pub(super) fn open_db_with_cache(path: &Path, settings: SledSettings) -> sled::Result<Db> {
    let start = std::time::Instant::now();
    loop {
        match sled_config(path, settings).open() {
            Err(sled::Error::Io(e))
                if e.to_string().contains("could not acquire lock")
                    && start.elapsed() < std::time::Duration::from_secs(15) =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

/// Open through the safe path of a start: room to open, no interrupted
/// snapshot, sled's panics caught, the manifest checked.
pub(super) fn open_checked(path: &Path, settings: SledSettings) -> StoreResult<Opened> {
    prepare_open(path)?;
    let (db, main, snapshots) = open_caught(path, settings)?;
    let recovered = recover(path, &db, &main)?;
    if recovered.replayed > 0 {
        tracing::warn!(
            groups = recovered.replayed,
            "the store was not closed cleanly: the groups of writes acknowledged since its last checkpoint were applied again from its journal"
        );
    }
    match recovered.finished {
        Finished::Clean => {}
        Finished::Completed => {
            tracing::warn!("the store was not closed cleanly: its last group of writes was completed from its intent")
        }
        Finished::Undone { events } => tracing::warn!(
            events,
            "the store was not closed cleanly: its last group of writes had not fully reached the disk and was never \
             acknowledged; the events of it that had were removed"
        ),
    }
    check_manifest(path, &db, &main)?;
    Ok(Opened { db, main, snapshots, last_seq: recovered.last_seq })
}

/// sled opened and recovered: its trees, and the seq of the last group it
/// holds (where the journal starts again).
pub(super) struct Opened {
    pub(super) db: Db,
    pub(super) main: Tree,
    pub(super) snapshots: Tree,
    pub(super) last_seq: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sled::tests::*;
    use crate::store::suite;

    /// A new store has sled compress its pages only when asked
    /// (`storage.compress_pages`); sled records the setting in its `conf`
    /// file, and the store keeps it whatever a later open asks.
    #[tokio::test]
    async fn a_new_store_compresses_its_pages_when_asked_and_keeps_its_setting() {
        let compress = SledSettings { compress_new: true, ..SledSettings::default() };
        for asked in [false, true] {
            let dir = tempfile::tempdir().expect("tempdir");
            assert_eq!(pages_compressed(dir.path()), None, "an empty directory holds no store");
            let game = suite::game_id("compressed", 0);
            let store =
                SledStore::open_with(dir.path(), SledSettings { compress_new: asked, ..SledSettings::default() })
                    .expect("open");
            store.append(suite::new_game_write(&game, 3)).await.expect("append");
            let written = store.load(&game, 0, None).expect("load");
            store.close().expect("close");
            drop(store);
            let conf = std::fs::read(dir.path().join("conf")).expect("sled's conf");
            assert!(String::from_utf8_lossy(&conf).contains(&format!("use_compression: {asked}")));
            assert_eq!(pages_compressed(dir.path()), Some(asked));
            // Asked the other way, the store opens with its own setting.
            let other = if asked { SledSettings::default() } else { compress };
            let store = SledStore::open_with(dir.path(), other).expect("reopen");
            assert_eq!(store.load(&game, 0, None).expect("load"), written);
            store.close().expect("close");
            drop(store);
            assert_eq!(pages_compressed(dir.path()), Some(asked));
        }
    }

    /// A value of the store in `testdata/sled-0.34.7-compressed` (see its
    /// README): half repeated text, half noise, up to 500 bytes.
    fn fixture_value(i: u64) -> Vec<u8> {
        let len = (i * 37 % 500 + 1) as usize;
        if i.is_multiple_of(2) {
            format!("value {i} ").into_bytes().into_iter().cycle().take(len).collect()
        } else {
            noise(len, i)
        }
    }

    /// A store whose pages the published sled 0.34.7 compressed (before the
    /// vendored sled kept a zstd context per thread) opens and reads the
    /// same, takes writes, and reads them after a reopen.
    #[test]
    fn a_store_compressed_by_sled_0_34_7_opens_and_reads() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/testdata/sled-0.34.7-compressed");
        let dir = tempfile::tempdir().expect("tempdir");
        for entry in std::fs::read_dir(&fixture).expect("the fixture") {
            let name = entry.expect("entry").file_name();
            if name != "README.md" {
                std::fs::copy(fixture.join(&name), dir.path().join(&name)).expect("copy");
            }
        }
        assert_eq!(pages_compressed(dir.path()), Some(true));
        let expected = |i: u64| match i {
            _ if i.is_multiple_of(11) => None,
            _ if i.is_multiple_of(5) => Some(fixture_value(i + 7)),
            _ => Some(fixture_value(i)),
        };
        let check = |db: &Db| {
            for i in 0..400u64 {
                assert_eq!(db.get(i.to_be_bytes()).expect("read").map(|v| v.to_vec()), expected(i), "key {i}");
            }
        };
        let db = open_db(dir.path()).expect("the store opens");
        check(&db);
        db.insert(b"more", fixture_value(1001)).expect("insert");
        db.flush().expect("flush");
        drop(db);
        let db = open_db(dir.path()).expect("it opens again");
        check(&db);
        assert_eq!(db.get(b"more").expect("read").map(|v| v.to_vec()), Some(fixture_value(1001)));
    }

    /// A store as the previous version left it (sled's pages not compressed,
    /// events in stored form 1, snapshots as the engine made them) opens,
    /// reads, takes more writes and reads them after a reopen, its pages
    /// still not compressed.
    #[tokio::test]
    async fn a_store_of_the_previous_version_opens_and_reads() {
        let dir = tempfile::tempdir().expect("tempdir");
        let game = suite::game_id("previous", 0);
        // sled's files as the previous version made them: no compression.
        drop(sled::Config::new().path(dir.path()).flush_every_ms(None).open().expect("sled"));
        assert_eq!(pages_compressed(dir.path()), Some(false));
        let written = {
            let store = SledStore::open(dir.path()).expect("open");
            store.append(suite::new_game_write(&game, 4)).await.expect("append");
            store.close().expect("close");
            store.load(&game, 0, None).expect("load")
        };
        {
            let db = open_db(dir.path()).expect("raw open");
            let main = db.open_tree("main").expect("tree");
            let key = game_key(&game).unwrap();
            for env in &written {
                let v1 = crate::store::codec::encode_v1(env).unwrap();
                main.insert(event_key(&key, env.seq), v1).expect("insert");
            }
            let snapshots = db.open_tree("snapshots").expect("tree");
            snapshots.insert(snapshot_key(&key, 2), &b"\x02engine's own bytes"[..]).expect("insert");
            db.flush().expect("flush");
        }
        let store = SledStore::open(dir.path()).expect("the previous version's store opens");
        assert_eq!(store.load(&game, 0, None).expect("load"), written);
        let snapshot = store.snapshot_at_or_before(&game, 3).expect("read");
        assert_eq!(snapshot, Some((2, b"\x02engine's own bytes".to_vec())));
        let more = suite::next_write(written.last().expect("events"), 2);
        store.append(more.clone()).await.expect("append to it");
        store.close().expect("close");
        drop(store);
        let store = SledStore::open(dir.path()).expect("reopen");
        let mut all = written.clone();
        all.extend(more.events);
        assert_eq!(store.load(&game, 0, None).expect("load"), all);
        let conf = std::fs::read(dir.path().join("conf")).expect("sled's conf");
        assert!(String::from_utf8_lossy(&conf).contains("use_compression: false"), "the store keeps its setting");
    }

    #[tokio::test]
    async fn a_vanished_game_is_refused_at_start() {
        let (dir, _) = damaged(|main, games| {
            let k = game_key(&games[0]).unwrap();
            for seq in 0..4 {
                main.remove(event_key(&k, seq)).expect("remove");
            }
            main.remove(head_key(&k)).expect("remove");
        })
        .await;
        // The size recorded at the last clean close names the loss...
        match SledStore::open(dir.path()) {
            Err(StoreError::Corrupt(msg)) => {
                assert!(msg.contains("held 3 games and 12 events") && msg.contains("now hold 2 games"), "{msg}")
            }
            Err(e) => panic!("expected Corrupt, got {e:?}"),
            Ok(_) => panic!("a store that lost a game opened"),
        }
        // ... and without it (a crash since) the manifest does.
        std::fs::write(dir.path().join(MARKER), MARKER_TEXT).expect("marker");
        match SledStore::open(dir.path()) {
            Err(StoreError::Corrupt(msg)) => assert!(msg.contains("counts 3 games, but 2"), "{msg}"),
            Err(e) => panic!("expected Corrupt, got {e:?}"),
            Ok(_) => panic!("a store that lost a game opened"),
        }
        let store = SledStore::open_unchecked(dir.path()).expect("open for check");
        assert_eq!(store.manifest_problems(dir.path()).len(), 1);
    }

    #[tokio::test]
    async fn an_emptied_store_is_refused_at_start() {
        let (dir, _) = damaged(|_, _| {}).await;
        for entry in std::fs::read_dir(dir.path()).expect("dir") {
            let path = entry.expect("entry").path();
            if path.file_name() != Some(std::ffi::OsStr::new(MARKER)) {
                if path.is_dir() { std::fs::remove_dir_all(path) } else { std::fs::remove_file(path) }.expect("remove");
            }
        }
        match SledStore::open(dir.path()) {
            Err(StoreError::Corrupt(msg)) => assert!(msg.contains(MARKER) && msg.contains("every game"), "{msg}"),
            Err(e) => panic!("expected Corrupt, got {e:?}"),
            Ok(_) => panic!("an emptied store opened as a new one"),
        }
    }

    #[tokio::test]
    async fn an_old_store_without_head_records_is_adopted() {
        let (dir, games) = damaged(|main, games| {
            main.remove(MANIFEST).expect("remove");
            for g in games {
                main.remove(head_key(&game_key(g).unwrap())).expect("remove");
            }
        })
        .await;
        std::fs::remove_file(dir.path().join(MARKER)).expect("remove the marker");
        let store = SledStore::open(dir.path()).expect("an old store opens");
        assert_eq!(store.load(&games[0], 0, None).expect("load").len(), 4);
        let last = store.load(&games[0], 3, None).expect("load").pop().expect("event");
        store.append(suite::next_write(&last, 1)).await.expect("append");
        assert_eq!(store.head_record_games().expect("heads"), vec![games[0].clone()]);
        assert!(store.manifest_problems(dir.path()).is_empty());
        assert!(dir.path().join(MARKER).exists());
    }

    /// A damaged snapshot file (sled's cache of its page table) made sled
    /// refuse to open without naming it: it is set aside under a name sled
    /// does not read, and sled rebuilds its cache from its log.
    #[tokio::test]
    async fn a_damaged_snapshot_is_set_aside_and_rebuilt_from_the_log() {
        let dir = tempfile::tempdir().expect("tempdir");
        let game = suite::game_id("snapdamage", 0);
        {
            let store = SledStore::open(dir.path()).expect("open");
            store.append(suite::new_game_write(&game, 3)).await.expect("append");
            store.close().expect("close");
        }
        // sled writes its snapshot when it opens a log that holds data.
        SledStore::open(dir.path()).expect("reopen").close().expect("close");
        let snaps = |dir: &Path| -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .expect("ls")
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("snap."))
                .collect();
            names.sort();
            names
        };
        let name = snaps(dir.path()).pop().expect("sled wrote a snapshot");
        let file = dir.path().join(&name);
        let mut bytes = std::fs::read(&file).expect("read");
        let at = bytes.len() / 2;
        bytes[at] ^= 0x01;
        std::fs::write(&file, bytes).expect("write");
        let raw = open_db(dir.path()).map(|_| ()).expect_err("sled alone refuses it");
        assert!(raw.to_string().contains("corrupted"), "{raw}");
        let store = SledStore::open(dir.path()).expect("the store opens, its cache rebuilt");
        assert_eq!(store.load(&game, 0, None).expect("load").len(), 3);
        assert!(dir.path().join(format!("damaged-{name}")).exists(), "the damaged file is kept aside");
        store.append(suite::next_write(&store.load(&game, 0, None).unwrap()[2], 1)).await.expect("append");
        store.close().expect("close");
        drop(store);
        let store = SledStore::open(dir.path()).expect("it opens again");
        assert_eq!(store.load(&game, 0, None).expect("load").len(), 4);
        assert!(!snaps(dir.path()).is_empty(), "sled has a snapshot again");
    }

    #[tokio::test]
    async fn an_interrupted_snapshot_does_not_make_the_store_unopenable() {
        let dir = tempfile::tempdir().expect("tempdir");
        let game = suite::game_id("snap", 0);
        {
            let store = SledStore::open(dir.path()).expect("open");
            store.append(suite::new_game_write(&game, 3)).await.expect("append");
            store.close().expect("close");
        }
        // What `write_snapshot` leaves when the disk fills while it writes.
        std::fs::write(dir.path().join("snap.7FFFFFFFFFFFFFFF.generating"), b"partial").expect("write");
        let raw = open_db(dir.path()).map(|_| ()).expect_err("sled alone cannot open it");
        assert!(raw.to_string().contains("corrupted"), "{raw}");
        let store = SledStore::open(dir.path()).expect("open after clearing the partial snapshot");
        assert_eq!(store.load(&game, 0, None).expect("load").len(), 3);
        assert!(!dir.path().join("snap.7FFFFFFFFFFFFFFF.generating").exists());
    }

    /// How a start on a full disk used to lose a store, reproduced on a real full
    /// filesystem (needs root to mount a tmpfs; says so and passes otherwise).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_start_on_a_full_disk_leaves_the_store_openable() {
        struct Unmount(PathBuf);
        impl Drop for Unmount {
            fn drop(&mut self) {
                let _ = std::process::Command::new("umount").arg("-l").arg(&self.0).status();
            }
        }
        let root = std::process::Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"));
        if !root {
            eprintln!("skipped: mounting a tmpfs needs root (CI runs as root)");
            return;
        }
        let tmp = tempfile::tempdir().expect("tempdir");
        let disk = tmp.path().join("disk");
        std::fs::create_dir_all(&disk).expect("mount point");
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=20m", "tmpfs"])
            .arg(&disk)
            .status()
            .expect("mount");
        assert!(mounted.success(), "mount a tmpfs");
        let _unmount = Unmount(disk.clone());
        let path = disk.join("events");
        {
            let store = SledStore::open(&path).expect("open");
            // As many games as make sled's files as large as 300 did in the
            // JSON form (about six times as many bytes per event as stored
            // form 2: twice as many events as with form 1).
            for g in 0..900 {
                store.append(suite::new_game_write(&suite::game_id("full", g), 7)).await.expect("append");
            }
            store.close().expect("close");
        }
        {
            use std::io::Write as _;
            let mut f = File::create(disk.join("ballast")).expect("ballast");
            let chunk = vec![1u8; 4096];
            while f.write_all(&chunk).is_ok() {}
        }
        // What sled alone does: the failed start leaves a partial snapshot...
        let copy = disk.join("copy");
        std::fs::create_dir_all(&copy).expect("copy dir");
        std::fs::remove_file(disk.join("ballast")).expect("room for a copy");
        for f in ["db", "conf", journal::FILE] {
            std::fs::copy(path.join(f), copy.join(f)).expect("copy");
        }
        for e in std::fs::read_dir(&path).expect("ls") {
            let name = e.expect("entry").file_name();
            if name.to_string_lossy().starts_with("snap.") {
                std::fs::copy(path.join(&name), copy.join(&name)).expect("copy");
            }
        }
        {
            // Full to the last byte, whatever the files' sizes.
            use std::io::Write as _;
            let mut f = File::create(disk.join("ballast")).expect("ballast");
            let chunk = vec![1u8; 4096];
            while f.write_all(&chunk).is_ok() {}
            while f.write_all(&[1]).is_ok() {}
        }
        assert!(open_db(&copy).is_err(), "no room to open");
        let partial = std::fs::read_dir(&copy)
            .expect("ls")
            .any(|e| e.expect("entry").file_name().to_string_lossy().ends_with(".generating"));
        // ...and our open refuses without writing anything.
        match SledStore::open(&path) {
            Err(StoreError::NoSpace(msg)) => assert!(msg.contains("Nothing was written"), "{msg}"),
            Err(e) => panic!("expected a refusal for lack of space, got {e}"),
            Ok(_) => panic!("opened on a full disk"),
        }
        std::fs::remove_file(disk.join("ballast")).expect("space returns");
        // Where sled's start fails depends on the log the run left (its
        // groups follow the committer's timing): in most runs it is while
        // writing its snapshot, which leaves the partial file sled alone
        // cannot open past; in the others it fails earlier, leaving nothing.
        if partial {
            let raw = open_db(&copy).map(|_| ()).expect_err("sled alone cannot open it any more");
            assert!(raw.to_string().contains("corrupted"), "{raw}");
        } else {
            eprintln!("sled's start failed before its snapshot this run: no partial file to clear");
        }
        for dir in [&path, &copy] {
            let store = SledStore::open(dir).expect("opens once space returns");
            assert_eq!(store.games(None, 1000).expect("games").len(), 900);
        }
    }
}
