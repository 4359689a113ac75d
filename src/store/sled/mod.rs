//! The embedded sled backend (DESIGN.md §4).
//!
//! One sled [`Db`] with two trees:
//!
//! - `main`: everything that must be durable, written only by the committer
//!   thread, one group of writes at a time (see "One write per group").
//!   Every key starts with a one-byte kind:
//!   - `e ‖ game id (16 bytes) ‖ seq (u64 big-endian)` → the event in its
//!     stored form (`store::codec`);
//!   - `g`, `i`, `o`, `d` ‖ key → a side record ([`Side`]);
//!   - `w:group` → the intent of the last group (below).
//! - `snapshots`: `game id ‖ seq (u64 big-endian)` → a snapshot, compressed
//!   (`codec::compress_snapshot`). A cache, written directly and never
//!   flushed on purpose.
//!
//! Space: sled logs every change of a B-tree page (an insert is a small
//! delta, but a page is written whole again after 10 deltas and when a leaf
//! splits past 16 entries, constants of sled 0.34), and reclaims the space
//! of the older copies only a whole segment at a time, and only in its
//! background flusher, which is off here (see below). So a store holds
//! several times what it stores. With `storage.compress_pages`
//! ([`SledSettings::compress_new`], off by default) a store created by the
//! server has sled compress every page and delta it logs (zstd,
//! [`COMPRESSION_LEVEL`]; sled feature `compression`), which takes the
//! rewrites down with the pages; a store keeps the setting it was created
//! with, since sled refuses to open a store with the other one
//! ([`pages_compressed`] reads it from sled's `conf`). A side record written again with the value it holds (the
//! service writes a game's private record with every append) is not written
//! at all ([`without_no_ops`]). The vendored sled keeps one zstd context
//! per thread (the published 0.34.7 made one for every message it
//! compressed or read, which made opening a compressed store about ten
//! times slower and a game's first read from disk about twice as slow);
//! the open and the cold read now cost what they do uncompressed. What is
//! left is the compression itself, on the committer's thread: in the
//! 16-writer bench, where the committer's CPU is the bound, about 0.5× to
//! 0.8× the appends of an uncompressed store (docs/performance.md). So it
//! stays off unless asked.
//!
//! The segment size stays sled's default (512 KiB). Smaller ones leave less
//! dead space, but sled writes every page over a quarter of a segment less
//! a header to a blob file of its own, so they make many more blob files
//! (at 32 KiB every page over 8 KiB: a snapshot's leaf, a big group's
//! intent, outbox pages). The published sled 0.34.7 could not survive a
//! failed blob write: `IoBufs::encapsulate` returned `write_blob`'s error
//! after `Log::reserve_inner` had counted the message as a writer of the
//! current log buffer, with nothing left to uncount it, so that buffer was
//! never written and every later flush waited for it forever, including the
//! one in `Drop for TreeInner` (at close, and when the store reopens itself
//! after a full disk: at 32 KiB the full-disk recovery test hung there). The
//! vendored sled (patch 4 in `vendor/sled/RUNESTONE-PATCHES.md`) aborts the
//! message instead: the writer gets the error (the group fails like a failed
//! flush, below), and later flushes and the close proceed
//! (`a_failed_blob_write_is_answered_and_later_flushes_proceed`,
//! `a_failed_blob_write_breaks_the_store_until_it_reopens_itself`). Smaller
//! segments have not been measured again with it, so the size is unchanged.
//!
//! Group commit: [`EventStore::append`] and [`EventStore::put`] hand their
//! write to one committer thread and wait for its answer. The committer takes
//! one write, then everything else already queued (it never waits for more),
//! checks each, and makes the accepted ones durable as one group (the
//! outbox worker's records join like any other write): the group's record
//! goes to the store's journal (`store::journal`: one `pwrite` and one
//! `fdatasync` of a file of fixed size, on the journal's own thread) while
//! the committer inserts the same writes into sled's memory, and every
//! writer of the group is answered once both are done: one store write and
//! one fdatasync per group. A write is acknowledged only after its group's
//! record is on disk. sled itself is flushed only at a *checkpoint* (when
//! the journal is full, for a group too large for it, and at close), after
//! which the journal starts again; opening the store applies again the
//! groups the journal holds since its last checkpoint. An append is queued when
//! [`EventStore::append`] is called, not when its future is first polled, and
//! the committer takes writes in the order they were queued: an append that
//! names the head an earlier queued one leaves is checked against the head as
//! that one left it (`EventStore::ordered_appends`). The queue
//! ([`JobQueue`]) wakes the committer only when it holds what the committer
//! waits for (the first write; then, while the writers the last group
//! answered come back, the rest of a group as large as the last), not at
//! every write. The flush writes sled's log buffer on the committer's own
//! thread (vendored sled, patch 7), not on sled's thread pool.
//!
//! Head checks: an append is checked against its game's head. The
//! committer reads a game's head at its first append since the store
//! opened (the head record, and the last event key, checked against each
//! other: a log shorter than its head record is damage,
//! [`StoreError::Corrupt`]), then remembers the head as its own groups
//! leave it ([`Heads`], at most [`HEADS_HELD`] games): only the committer
//! writes events and head records, and it takes no write after a failed
//! flush, so what it remembers is what sled holds. Reads
//! ([`EventStore::head`], loads) still check the log against the head
//! record every time.
//!
//! The journal: a flush of sled for every group would put the group's
//! inserts and that flush one after the other (about 120 and 220 µs of a
//! 16-append group in the store bench); the journal's `fdatasync` and the
//! inserts overlap instead (docs/performance.md).
//!
//! The intent: a [`sled::Batch`] would make a group atomic, but
//! sled 0.34 seals its log buffer around every batch (its `pin_log` writes
//! the buffer holding the batch's manifest on its own), so a batch and the
//! flush after it cost two or three buffer writes, each with its own disk
//! wait (`sync_file_range` then, `fdatasync` in the vendored sled). Instead
//! the committer first inserts the group's *intent* (one value under `w:group`, which sled logs as one checksummed
//! message: the keys of the group's events, and its other inserts and
//! removals whole, and the group's seq in the journal), then the group's
//! events, then its other writes (side records, head records, the
//! manifest), one by one. sled writes its log buffer when it fills and at a
//! checkpoint, and recovers its log up to the first torn message, so after
//! a crash its disk holds every group up to some point, then either nothing
//! of the next group, or its whole intent and a prefix of its writes.
//! Opening the store then completes the
//! group if all its events are there (its other writes are idempotent
//! inserts or removals of keys only the committer writes, applied again),
//! and otherwise undoes it: none of its other writes came after a missing
//! event, no writer of it was answered, and its events are new keys, so
//! removing those that landed leaves the store as before the group. The
//! events, nearly all of a group's bytes, are thus logged once, not twice
//! (in the intent too, as the previous format did; an intent of that format
//! is still applied at open). Then the journal's groups since its last
//! checkpoint are applied again in order, unless the intent names a later
//! group than the journal's last (whose record never reached the disk:
//! sled holds every group of the journal then). A clean close removes the
//! intent and leaves the journal with a checkpoint alone.
//! sled's own background flusher is off: the committer's flushes (and the
//! close) write everything, snapshots included.
//!
//! Reads go straight to sled, so they may see a write of the group being
//! flushed before its writer is answered, and a write of several keys in
//! part (the events of an append before its head record, which is written
//! last; readers check the log against the head record read first, so a
//! write landing between two reads only moves the log past it); announce an
//! event to others only after its append has resolved. `close` (and `Drop`)
//! block until the committer has drained its queue and flushed.
//!
//! sled's own `flush` was not enough for that promise: on Linux, the
//! published sled 0.34.7 ends each log write with `sync_file_range`, which
//! flushes neither the drive's write cache nor the file's metadata (sled
//! issue #1452), and it never syncs the blob files it writes for oversized
//! pages. The vendored sled (`vendor/sled`, its `RUNESTONE-PATCHES.md`) ends
//! each log write with `fdatasync` instead, so a group is one `pwrite` and
//! one `fdatasync` of the `db` file, and what sled calls stable is on stable
//! storage. Every path by which sled writes its `db` file is then durable
//! before a group is answered: the log buffers (segment headers are part of
//! them; sled 0.34 writes no segment trailers) by that `fdatasync`; the
//! zeroing of free segments and of a torn tail at open by sled's own `fsync`
//! or, for the free segments, by the `fdatasync` of the `db` file made when
//! the `Syncer` opens (and by every later log write, which syncs the whole
//! file); the truncation of a freed tail segment by sled's `fsync` after it.
//! sled's `conf` (written once, when a store is created) is synced by the
//! vendored sled; its own snapshots (`snap.*`, a cache of its page table,
//! rebuilt from the log when missing) are synced by sled before their rename.
//! What remains for the `Syncer` after each flush: `fdatasync` of any blob
//! file not yet synced, and of the directories whose entries changed; the
//! blob directory is listed only when its modification time says it may have
//! changed.
//!
//! A failed flush (of sled, or of the journal: "flush" below means either)
//! answers every writer of its group with [`StoreError::Io`]
//! (or [`StoreError::NoSpace`]: their writes may or may not be on disk), and
//! from then on the store refuses every write with [`StoreError::Refused`]
//! (nothing of it written) until it is reopened: after a failed fsync a later
//! one can succeed without the lost pages, and sled itself keeps answering
//! the first IO error it met. Until then the store is "broken": the games
//! and records the failed group touched are not read from sled's memory
//! (they answer that the store is recovering), and a recovery thread checks
//! the free space (after 1 s, doubling to 30 s); once there is room for
//! [`MIN_FREE_TO_OPEN`] plus the server's reserve it stops the committer,
//! drops every sled handle, opens the store again through the checked path
//! of a start (`prepare_open`, `open_caught`, `check_manifest`) and starts a
//! new committer, without a restart.
//!
//! A writer waits at most [`WRITE_BOUND`] for its answer, then gets
//! [`StoreError::TimedOut`]: the outcome is then unknown, and said so.
//!
//! Outbox records become visible to [`EventStore::scan`] only once the write
//! that put them is flushed: reads see sled's memory, and a message must never
//! leave for an event that a failed flush may have lost.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fs::File;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, RwLock, Weak};
use std::thread::JoinHandle;
use std::time::{Instant, SystemTime};

use runestone_engine::Envelope;
use sled::{Db, Tree};
use tokio::sync::oneshot;

use crate::config::Reserve;

use super::codec::RawLog;
use super::journal::{self, Journal};
use super::{BoxFut, EventStore, GameId, Side, SideWrite, StoreError, StoreResult, Write, GAME_ID_LEN};

mod committer;
mod intent;
mod jobs;
mod keys;
mod open;
mod reads;
mod recovery;
mod reopen;
mod syncer;

use committer::*;
use intent::*;
use jobs::*;
use keys::*;
use open::*;
use recovery::*;
use reopen::*;
use syncer::*;

pub use keys::MARKER;
pub use open::{
    damaged_snapshots, in_use, pages_compressed, sled_config, SledSettings, COMPRESSION_LEVEL, MIN_FREE_TO_OPEN,
    SET_ASIDE,
};
pub(super) use syncer::sync_dir;

/// sled's page cache when the configuration names none (sled's own default
/// is 1 GiB, more than a small server should hold for it).
pub const DEFAULT_CACHE_BYTES: u64 = 64 << 20;

/// The longest a writer waits for the committer's answer.
pub const WRITE_BOUND: std::time::Duration = std::time::Duration::from_secs(20);

/// Outbox keys (with their kind byte) written but not yet flushed, with the
/// number of writes in flight that put them; hidden from scans.
type Unconfirmed = std::sync::Arc<Mutex<HashMap<Vec<u8>, usize>>>;

type GameKey = [u8; GAME_ID_LEN];

/// Inserts (`Some`) and removals (`None`) of main-tree keys, in order.
type Ops = Vec<(Vec<u8>, Option<Vec<u8>>)>;

type Reply = oneshot::Sender<StoreResult<()>>;

/// The heads the committer has checked or written, per game: the seq of
/// the last event (`None`: no event) and whether the game has a head record.
/// Only the committer writes events and head records, so what it wrote is
/// what sled holds; a game is read (and its log checked against its head
/// record, [`verified_head`]) at its first append after the store opened,
/// then remembered (see "Head checks" in the module docs).
type Heads = HashMap<GameKey, (Option<u64>, bool)>;

/// The sled-backed [`EventStore`].
pub struct SledStore {
    shared: Arc<Shared>,
}

/// What the store and its recovery thread share.
struct Shared {
    path: PathBuf,
    /// How sled is opened (also when the store reopens itself).
    settings: SledSettings,
    /// The open database; `None` only while the recovery thread reopens it.
    state: RwLock<Option<Arc<Open>>>,
    /// Set by the committer when a flush fails (`None` when healthy).
    broken: BrokenCell,
    closed: AtomicBool,
    /// Where a clean close writes its summary into the marker file (`None`
    /// for a store opened unchecked, whose state must not become the reference).
    summary_dir: Option<PathBuf>,
    /// Free space kept beyond [`MIN_FREE_TO_OPEN`] before a reopen.
    reserve: Mutex<Option<Reserve>>,
    /// Each committer reports its failed flush here.
    failures: Mutex<mpsc::Sender<String>>,
    /// Tests hold the recovery thread back while they look at the broken state.
    #[cfg(test)]
    hold_recovery: AtomicBool,
}

/// One opened sled database with its committer.
struct Open {
    db: Db,
    main: Tree,
    snapshots: Tree,
    /// The committer's queue (closed by `stop`).
    queue: Arc<JobQueue<Job>>,
    committer: Mutex<Option<JoinHandle<()>>>,
    unconfirmed: Unconfirmed,
    /// Groups the committer flushed and the writes they held.
    groups: Arc<GroupCounts>,
    /// Tests set this to make the committer's fdatasyncs fail.
    #[cfg(test)]
    fail_syncs: Arc<AtomicBool>,
}

/// What a failed flush left: why, and what its writes touched, which sled's
/// memory shows but the disk may not hold. Until the store is reopened, reads
/// of these answer that the store is recovering, never with that content.
#[derive(Clone, Debug, Default)]
struct Broken {
    why: String,
    games: HashSet<GameKey>,
    /// Main-tree keys of side records (with their kind byte).
    keys: HashSet<Vec<u8>>,
}

type BrokenCell = Arc<Mutex<Option<Broken>>>;

/// How many groups the committer flushed, and how many writes they held.
#[derive(Default)]
struct GroupCounts {
    groups: AtomicU64,
    writes: AtomicU64,
}

fn io(context: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Io(format!("{context}: {e}"))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl SledStore {
    /// Open (or create) the store in the directory `path`, refusing one
    /// whose manifest of games does not match what is stored.
    pub fn open(path: &Path) -> StoreResult<SledStore> {
        Self::open_with_cache(path, DEFAULT_CACHE_BYTES)
    }

    /// [`open`](Self::open) with sled's page cache bounded to `cache_bytes`
    /// (`storage.store_cache`), also after a reopen.
    pub fn open_with_cache(path: &Path, cache_bytes: u64) -> StoreResult<SledStore> {
        Self::open_with(path, SledSettings { cache_bytes, compress_new: false })
    }

    /// [`open`](Self::open) with `settings`: sled's page cache bound, and
    /// whether a store created by this open has sled compress its pages
    /// (`storage.compress_pages`; a store that exists keeps its setting).
    pub fn open_with(path: &Path, settings: SledSettings) -> StoreResult<SledStore> {
        let open = open_checked(path, settings)?;
        Self::start(path, open, true, settings)
    }

    /// Open for `runestone check`: like [`open`](Self::open) but without the
    /// manifest check, whose findings [`manifest_problems`](Self::manifest_problems) lists.
    pub fn open_unchecked(path: &Path) -> StoreResult<SledStore> {
        prepare_open(path)?;
        let (db, main, snapshots) = open_caught(path, SledSettings::default())?;
        let last_seq = recover(path, &db, &main)?.last_seq;
        Self::start(path, Opened { db, main, snapshots, last_seq }, false, SledSettings::default())
    }

    fn start(path: &Path, opened: Opened, checked: bool, settings: SledSettings) -> StoreResult<SledStore> {
        let (failures, failed) = mpsc::channel();
        let broken = BrokenCell::default();
        let open = Open::start(path, opened, failures.clone(), broken.clone())?;
        let shared = Arc::new(Shared {
            path: path.to_owned(),
            settings,
            state: RwLock::new(Some(Arc::new(open))),
            broken,
            closed: AtomicBool::new(false),
            summary_dir: checked.then(|| path.to_owned()),
            reserve: Mutex::new(None),
            failures: Mutex::new(failures),
            #[cfg(test)]
            hold_recovery: AtomicBool::new(false),
        });
        let weak = Arc::downgrade(&shared);
        std::thread::Builder::new()
            .name("sled-recovery".into())
            .spawn(move || run_recovery(weak, failed))
            .map_err(|e| io("starting the store's recovery thread", e))?;
        Ok(SledStore { shared })
    }

    /// Keep this much free space (beyond [`MIN_FREE_TO_OPEN`]) before the
    /// store reopens itself after a full disk: the server's reserve.
    pub fn recover_above(&self, reserve: Reserve) {
        *lock(&self.shared.reserve) = Some(reserve);
    }

    /// The open database, or the answer of a store being reopened.
    fn cur(&self) -> StoreResult<Arc<Open>> {
        read_lock(&self.shared.state).clone().ok_or_else(|| StoreError::Refused(RECOVERING.into()))
    }

    /// Run a read on the open database; while broken, an IO error of sled
    /// (it keeps answering its first one) is the store recovering.
    fn read<T>(&self, f: impl FnOnce(&Open) -> StoreResult<T>) -> StoreResult<T> {
        let open = self.cur()?;
        match f(&open) {
            Err(StoreError::Io(e)) if self.shared.broken().is_some() => {
                Err(StoreError::Refused(format!("{RECOVERING} ({e})")))
            }
            other => other,
        }
    }

    /// Make the committer's fdatasyncs fail (tests of what a full disk does).
    #[cfg(test)]
    pub(crate) fn fail_syncs(&self, on: bool) {
        if let Ok(open) = self.cur() {
            open.fail_syncs.store(on, Ordering::SeqCst);
        }
    }

    /// What is wrong with the store as a whole (marker, manifest), in words.
    pub fn manifest_problems(&self, path: &Path) -> Vec<String> {
        let open = match self.cur() {
            Ok(open) => open,
            Err(e) => return vec![e.to_string()],
        };
        let main = &open.main;
        let mut out = Vec::new();
        match read_manifest(main) {
            Err(e) => out.push(e.to_string()),
            Ok(None) if path.join(MARKER).exists() => out.push(format!(
                "{} says a store was created here, but sled's files hold no manifest of games: the `db` file was lost or damaged",
                path.join(MARKER).display()
            )),
            // An older server's store: nothing to check it against yet.
            Ok(None) => {}
            Ok(Some(n)) => match count_head_records(main) {
                Err(e) => out.push(e.to_string()),
                Ok(k) if k != n => out.push(format!(
                    "the manifest counts {n} games with a head record, {k} were found: {} games lost their head record or their whole log",
                    n.abs_diff(k)
                )),
                Ok(_) => {}
            },
        }
        if let (Some((games, events)), Ok((k, e))) = (read_summary(path), head_totals(main)) {
            if k < games || e < events {
                out.push(format!(
                    "at the last clean stop the store held {games} games and {events} events, now {k} games and {e} events: the latest writes were lost"
                ));
            }
        }
        out
    }

    /// How many groups the committer has flushed since the store was
    /// (re)opened, and how many writes (appends and puts) they held: the
    /// writes each fdatasync made durable (the benchmarks print it).
    pub fn group_counts(&self) -> (u64, u64) {
        self.cur().map_or((0, 0), |open| {
            (open.groups.groups.load(Ordering::Relaxed), open.groups.writes.load(Ordering::Relaxed))
        })
    }

    /// Every game with a head record, in id order.
    pub fn head_record_games(&self) -> StoreResult<Vec<GameId>> {
        self.read(|open| {
            open.main
                .scan_prefix([HEAD])
                .map(|item| {
                    let (k, _) = item.map_err(|e| read_err("listing head records", e))?;
                    Ok(String::from_utf8_lossy(&k[1..]).into_owned())
                })
                .collect()
        })
    }

    /// Hand a job to the committer; `Closed` once the store is closed.
    fn enqueue(&self, job: Job) -> StoreResult<()> {
        self.cur()?.enqueue(job)
    }

    async fn wait(rx: oneshot::Receiver<StoreResult<()>>) -> StoreResult<()> {
        match tokio::time::timeout(WRITE_BOUND, rx).await {
            Ok(answer) => {
                answer.unwrap_or_else(|_| Err(StoreError::Io("the committer stopped before answering".into())))
            }
            Err(_) => {
                tracing::error!(seconds = WRITE_BOUND.as_secs(), "a write was not confirmed in time");
                Err(StoreError::TimedOut(WRITE_BOUND.as_secs()))
            }
        }
    }

    /// Stop the committer after it has drained its queue, then flush.
    fn shutdown(&self) -> StoreResult<()> {
        // Under the state lock, so the recovery thread installs no new one.
        let open = {
            let state = write_lock(&self.shared.state);
            self.shared.closed.store(true, Ordering::SeqCst);
            state.clone()
        };
        let Some(open) = open else { return Ok(()) };
        let first_close = open.stop()?;
        if self.shared.broken().is_some() {
            // Nothing more can be made durable; what was acknowledged is.
            return Ok(());
        }
        open.db.flush().map(|_| ()).map_err(|e| io("flushing on close", e))?;
        if first_close {
            self.write_summary(&open.main);
        }
        Ok(())
    }

    /// After a clean close, record in the marker file how many games and
    /// events the store holds, so a start that finds fewer (sled recovers a
    /// damaged log file by dropping everything after the damage) refuses.
    fn write_summary(&self, main: &Tree) {
        let Some(dir) = &self.shared.summary_dir else { return };
        let write = || -> StoreResult<()> {
            let (games, events) = head_totals(main)?;
            let text = format!("{MARKER_TEXT}games {games}\nevents {events}\n");
            let tmp = dir.join(format!("{MARKER}.tmp"));
            let fail = |e: std::io::Error| io(&format!("writing {}", dir.join(MARKER).display()), e);
            std::fs::write(&tmp, text).map_err(fail)?;
            File::open(&tmp).and_then(|f| f.sync_all()).map_err(fail)?;
            std::fs::rename(&tmp, dir.join(MARKER)).map_err(fail)?;
            sync_dir(dir).map_err(fail)
        };
        if let Err(e) = write() {
            // The previous summary stays: it is older, so still a lower bound.
            tracing::warn!("recording the store's size at close: {e}");
        }
    }
}

fn read_lock<T>(l: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn write_lock<T>(l: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Open {
    fn start(path: &Path, opened: Opened, failures: mpsc::Sender<String>, broken: BrokenCell) -> StoreResult<Open> {
        let Opened { db, main, snapshots, last_seq } = opened;
        let syncer = Syncer::open(path).map_err(|e| io("opening the sled files for fdatasync", e))?;
        // After the syncer's first sync: sled's files hold every group up
        // to `last_seq` (a replay's blob files included) before the journal
        // says so.
        let journal = Journal::start(path, last_seq).map_err(|e| io("starting the store's journal", e))?;
        if !main.contains_key(JOURNAL_KEY).map_err(|e| read_err("reading the store's records", e))? {
            main.insert(JOURNAL_KEY, &b"1"[..]).map_err(|e| io("recording the store's journal", e))?;
            db.flush().map_err(|e| io("recording the store's journal", e))?;
        }
        // Tests make the syncs of both fail at once.
        #[cfg(test)]
        let syncer = Syncer { fail: journal.fail_flag(), ..syncer };
        #[cfg(test)]
        let fail_syncs = syncer.fail.clone();
        let queue = Arc::new(JobQueue::default());
        let unconfirmed = Unconfirmed::default();
        let groups = Arc::new(GroupCounts::default());
        let committer = {
            let (db, main, unconfirmed, counts) = (db.clone(), main.clone(), unconfirmed.clone(), groups.clone());
            let rx = queue.clone();
            std::thread::Builder::new()
                .name("sled-committer".into())
                .spawn(move || {
                    run_committer(Disk { db, syncer, journal }, main, unconfirmed, rx, failures, broken, counts)
                })
                .map_err(|e| io("starting the committer thread", e))?
        };
        Ok(Open {
            db,
            main,
            snapshots,
            queue,
            committer: Mutex::new(Some(committer)),
            unconfirmed,
            groups,
            #[cfg(test)]
            fail_syncs,
        })
    }

    fn enqueue(&self, job: Job) -> StoreResult<()> {
        self.queue.push(job).map_err(|_| StoreError::Closed)
    }

    /// Stop the committer after it has drained its queue; `true` when this
    /// call stopped it.
    fn stop(&self) -> StoreResult<bool> {
        self.queue.close();
        let handle = lock(&self.committer).take();
        let first = handle.is_some();
        if let Some(handle) = handle {
            handle.join().map_err(|_| StoreError::Io("the committer thread panicked".into()))?;
        }
        Ok(first)
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            tracing::error!("stopping the committer: {e}");
        }
    }
}

impl Drop for SledStore {
    fn drop(&mut self) {
        if let Err(e) = self.shutdown() {
            tracing::error!("closing the sled store: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::store::suite;

    pub(super) fn fresh() -> (SledStore, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("tempdir");
        (SledStore::open(dir.path()).expect("open"), dir)
    }

    suite::store_suite!(#[tokio::test(flavor = "multi_thread", worker_threads = 4)]; fresh());

    #[tokio::test]
    async fn close_is_idempotent_and_reads_still_work() {
        let (store, _dir) = fresh();
        let g = suite::game_id("close", 1);
        store.append(suite::new_game_write(&g, 2)).await.expect("append");
        store.close().expect("close");
        store.close().expect("close again");
        assert_eq!(store.load(&g, 0, None).expect("load").len(), 2);
    }

    #[tokio::test]
    async fn other_game_ids_are_malformed() {
        let (store, _dir) = fresh();
        assert!(matches!(store.head("short"), Err(StoreError::Malformed(_))));
        assert!(matches!(store.load("short", 0, None), Err(StoreError::Malformed(_))));
        assert!(matches!(store.games(Some("short"), 1), Err(StoreError::Malformed(_))));
        assert!(matches!(store.put_snapshot("short", 0, b""), Err(StoreError::Malformed(_))));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn reopen_keeps_everything() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().to_owned();
        let open = move || -> Box<dyn EventStore> { Box::new(SledStore::open(&path).expect("open")) };
        suite::reopen_keeps_everything(&open).await;
    }

    /// Store three games of 4 events, then let `damage` edit the raw tree.
    pub(super) async fn damaged(damage: impl FnOnce(&Tree, &[GameId])) -> (tempfile::TempDir, Vec<GameId>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let games: Vec<GameId> = (0..3).map(|i| suite::game_id("dmg", i)).collect();
        {
            let store = SledStore::open(dir.path()).expect("open");
            for g in &games {
                store.append(suite::new_game_write(g, 4)).await.expect("append");
            }
            store.close().expect("close");
        }
        {
            let db = open_db(dir.path()).expect("raw open");
            damage(&db.open_tree("main").expect("tree"), &games);
            db.flush().expect("flush");
        }
        (dir, games)
    }

    /// Bytes zstd cannot shrink, so a page holding them stays over sled's
    /// blob size whether the store compresses its pages or not.
    pub(super) fn noise(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    #[test]
    fn drop_stops_the_committer() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = SledStore::open(dir.path()).expect("open");
        drop(store);
        // sled holds a lock on its directory while open: reopening proves
        // everything, the committer's handles included, was released.
        let store = SledStore::open(dir.path()).expect("reopen");
        assert_eq!(store.games(None, 10).expect("games"), Vec::<String>::new());
    }
}
