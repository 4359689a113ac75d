//! The sled store's journal: where a group of writes is made durable.
//!
//! sled makes its inserts durable only by a flush, which writes its log and
//! waits for the disk; the inserts themselves cost the committer about as
//! long again. So the two overlap: a group is written to this journal (one `pwrite`, one `fdatasync`)
//! on a thread of its own while the committer inserts the same writes into
//! sled's memory, and sled is flushed only at a *checkpoint*: when the
//! journal is full, when a group is too large for it, and at close. A group
//! is answered once both are done, so the disk's wait and the inserts'
//! CPU overlap instead of adding up.
//!
//! The file has a fixed size ([`SIZE`]), made of zeros when the journal is
//! created and only overwritten after that: a write in place changes no
//! file size and allocates nothing, so a full disk cannot refuse it, and
//! its `fdatasync` has no metadata to commit (on ext4 most likely why a
//! journal appended to, or `fallocate`d, gained nothing in the store
//! bench: a metadata commit writes sled's unsynced new pages with it;
//! docs/performance.md).
//!
//! A record is `length (u32) ‖ crc32 of the body (u32) ‖ body`, the body
//! `epoch (u64) ‖ seq (u64) ‖ kind (u8) ‖ writes`. The journal starts at
//! offset 0 with a checkpoint record: "sled holds every group up to `seq`
//! on disk", and the groups after it follow, `seq + 1`, `seq + 2`, ...
//! Reading stops at the first record that is torn, of another epoch (each
//! opening of the store picks a new one) or out of sequence: what follows
//! it is an older pass over the file (stale records, of an earlier epoch or
//! of a lower seq, are normal behind the live ones: the file is written in
//! place from offset 0 after each checkpoint), zeros, or the record being
//! written when the process or the machine stopped. Only the last record
//! can be torn: each one is written after the previous one's `fdatasync`
//! returned. So where reading stops is checked ([`chain`]), and anything
//! else is damage ([`Damage`]), never "nothing more":
//!
//! - the first record is not a readable checkpoint and the file is not all
//!   zeros (a journal being created holds zeros until its first checkpoint);
//! - a readable record of the live pass (its epoch, a later seq) lies
//!   anywhere after where reading stopped: the records between were written
//!   and acknowledged, and are unreadable now;
//! - the record where reading stopped is unreadable but its header names the
//!   live pass (its epoch) or the next seq: it was written. A record torn by
//!   a power cut while it was written (never acknowledged) looks the same as
//!   one damaged since, so it is refused too, and the message says how to
//!   drop it when the machine did lose power at its last stop. A process
//!   killed while writing leaves no torn record: its write is whole in the
//!   kernel's cache or not made.
//!
//! What the journal alone cannot show, the store checks against sled (in
//! `store::sled::recovery`): a journal whose last group is older than the
//! group whose intent sled holds, less the one being written, lost groups.
//!
//! At open the store replays the groups after the checkpoint into sled, in
//! order, unless sled is ahead of them (the intent sled holds names a later
//! group, whose record never reached the disk: then sled holds every group
//! of the journal already). Every write of a group is a whole value or a
//! removal, so applying a run of groups again over a sled that holds some
//! of them leaves what the last of them left.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::mpsc;
#[cfg(test)]
use std::sync::{atomic::AtomicBool, Arc};

/// The journal's file name in the store's directory.
pub const FILE: &str = "journal";

/// The journal's size: about 170 groups of 15 appends between two
/// checkpoints in the store bench, and 52 KB a game of a 20-game store
/// (`cargo bench --bench disk -- --games 20`: 471,866 bytes a game).
pub const SIZE: u64 = 1 << 20;

/// A group whose writes are larger than this is written straight to sled
/// and flushed (a checkpoint), as before the journal, not copied into it:
/// a record this large would take a sixteenth of the journal and bring the
/// next checkpoint near anyway, and one larger than the journal could not
/// be written to it at all.
pub const DIRECT: usize = 64 << 10;

const HEADER: usize = 8;
const CHECKPOINT: u8 = 0;
const GROUP: u8 = 1;

/// A record as read back.
#[derive(Debug, PartialEq)]
pub struct Record<'a> {
    /// Where the record starts in the file.
    pub offset: usize,
    pub seq: u64,
    pub group: bool,
    pub writes: &'a [u8],
}

/// Encode one record.
pub fn record(epoch: u64, seq: u64, group: bool, writes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + 17 + writes.len());
    out.extend_from_slice(&[0; HEADER]);
    out.extend_from_slice(&epoch.to_be_bytes());
    out.extend_from_slice(&seq.to_be_bytes());
    out.push(if group { GROUP } else { CHECKPOINT });
    out.extend_from_slice(writes);
    let body = u32::try_from(out.len() - HEADER).expect("a record under 4 GiB");
    let crc = crc32fast::hash(&out[HEADER..]);
    out[..4].copy_from_slice(&body.to_be_bytes());
    out[4..HEADER].copy_from_slice(&crc.to_be_bytes());
    out
}

/// Damage found in the journal: the offset of the first unreadable byte
/// range that held acknowledged writes, and what is wrong there.
#[derive(Debug, PartialEq)]
pub struct Damage {
    pub offset: usize,
    pub what: String,
    /// Whether this may be the record a power cut tore as it was written
    /// (never acknowledged), which the operator may drop.
    pub maybe_torn: bool,
}

/// The records of the journal's current pass: its first checkpoint and the
/// groups after it in sequence; empty if the file holds only zeros. Damage
/// (see the module docs) is an error, never a shorter chain.
pub fn chain(bytes: &[u8]) -> Result<Vec<Record<'_>>, Damage> {
    let Some((epoch, first, mut at)) = read_one(bytes).filter(|(_, r, _)| !r.group) else {
        if bytes.iter().all(|&b| b == 0) {
            return Ok(Vec::new());
        }
        return Err(Damage {
            offset: 0,
            what: "its first record, the checkpoint that says up to which group sled holds the writes, is unreadable"
                .into(),
            maybe_torn: false,
        });
    };
    let mut out = vec![first];
    let mut last = out[0].seq;
    while let Some((e, mut rec, len)) = read_one(&bytes[at..]) {
        if !(rec.group && e == epoch && rec.seq == last.wrapping_add(1)) {
            break;
        }
        last = rec.seq;
        rec.offset = at;
        out.push(rec);
        at += len;
    }
    if let Some((offset, seq)) = later_record(bytes, at, epoch, last) {
        return Err(Damage {
            offset: at,
            what: format!(
                "the record after group {last} is unreadable, but group {seq} of the same pass follows at offset \
                 {offset}: the groups between were acknowledged and cannot be read"
            ),
            maybe_torn: false,
        });
    }
    let next = last.wrapping_add(1);
    if read_one(&bytes[at..]).is_none() && names_seq(&bytes[at..], epoch, next) {
        return Err(Damage {
            offset: at,
            what: format!("the record of group {next}, the last one written, is unreadable"),
            maybe_torn: true,
        });
    }
    Ok(out)
}

/// Whether the unreadable record at the start of `bytes` was written as
/// group `seq` of `epoch`: its header names that seq, or names that epoch
/// and its checksum matches once its seq is read as that one (a damaged
/// seq). A stale record of an earlier pass of the same epoch (a lower seq)
/// that was damaged since names neither.
fn names_seq(bytes: &[u8], epoch: u64, seq: u64) -> bool {
    let field = |from: usize| bytes.get(from..from + 8).map(|b| u64::from_be_bytes(b.try_into().expect("8 bytes")));
    if field(HEADER + 8) == Some(seq) {
        return true;
    }
    if field(HEADER) != Some(epoch) {
        return false;
    }
    let (Some(len), Some(crc)) = (bytes.get(..4), bytes.get(4..HEADER)) else { return false };
    let len = u32::from_be_bytes(len.try_into().expect("4 bytes")) as usize;
    let Some(mut body) = HEADER.checked_add(len).and_then(|end| bytes.get(HEADER..end)).map(<[u8]>::to_vec) else {
        return false;
    };
    if body.len() < 17 {
        return false;
    }
    body[8..16].copy_from_slice(&seq.to_be_bytes());
    crc32fast::hash(&body).to_be_bytes() == crc
}

/// The first readable group record of `epoch` with a seq after `last` at or
/// after `from` (at any offset: a damaged length loses the records' alignment):
/// its offset and seq.
fn later_record(bytes: &[u8], from: usize, epoch: u64, last: u64) -> Option<(usize, u64)> {
    let mark = epoch.to_be_bytes();
    let end = bytes.len().checked_sub(HEADER + 17)?;
    (from..=end).filter(|&at| bytes[at + HEADER..at + HEADER + 8] == mark).find_map(|at| {
        let (e, rec, _) = read_one(&bytes[at..])?;
        (e == epoch && rec.group && rec.seq > last).then_some((at, rec.seq))
    })
}

fn read_one(bytes: &[u8]) -> Option<(u64, Record<'_>, usize)> {
    let body_len = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let crc = u32::from_be_bytes(bytes.get(4..HEADER)?.try_into().ok()?);
    let body = bytes.get(HEADER..HEADER.checked_add(body_len)?)?;
    if body_len < 17 || crc32fast::hash(body) != crc {
        return None;
    }
    let epoch = u64::from_be_bytes(body[..8].try_into().ok()?);
    let seq = u64::from_be_bytes(body[8..16].try_into().ok()?);
    let group = match body[16] {
        GROUP => true,
        CHECKPOINT => false,
        _ => return None,
    };
    Some((epoch, Record { offset: 0, seq, group, writes: &body[17..] }, HEADER + body_len))
}

/// Read the journal at `dir`: its bytes, or `None` when there is none of
/// the right size (never created, or its creation was cut short, before
/// anything was written to it).
pub fn read(dir: &Path) -> std::io::Result<Option<Vec<u8>>> {
    match std::fs::read(dir.join(FILE)) {
        Ok(bytes) if bytes.len() as u64 == SIZE => Ok(Some(bytes)),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The open journal, written by the committer.
pub struct Journal {
    file: File,
    epoch: u64,
    /// Where the next record goes.
    at: u64,
    /// The seq of the last record written.
    last: u64,
    /// The thread that writes and syncs a group's record.
    to_writer: Option<mpsc::Sender<(Vec<u8>, u64)>>,
    from_writer: mpsc::Receiver<std::io::Result<()>>,
    writer: Option<std::thread::JoinHandle<()>>,
    #[cfg(test)]
    fail: Arc<AtomicBool>,
}

impl Journal {
    /// Open the journal at `dir` (made of zeros first if there is none of
    /// the right size), with a checkpoint at `seq` at its start and a new
    /// epoch: sled holds every group up to `seq` on disk.
    pub fn start(dir: &Path, seq: u64) -> std::io::Result<Journal> {
        let path = dir.join(FILE);
        let sized = std::fs::metadata(&path).is_ok_and(|m| m.len() == SIZE);
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(!sized).open(&path)?;
        if !sized {
            let zeros = vec![0u8; 64 << 10];
            let mut at = 0;
            while at < SIZE {
                file.write_all_at(&zeros, at)?;
                at += zeros.len() as u64;
            }
            file.sync_all()?;
            super::sled::sync_dir(dir)?;
        }
        // Another opening's epoch is never this one's (a clock and a
        // process id, should the system's random source fail).
        let epoch = getrandom::u64().unwrap_or_else(|_| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
                ^ (u64::from(std::process::id()) << 32)
        });
        let (to_writer, jobs) = mpsc::channel::<(Vec<u8>, u64)>();
        let (answers, from_writer) = mpsc::channel();
        let writing = file.try_clone()?;
        #[cfg(test)]
        let fail = Arc::new(AtomicBool::new(false));
        #[cfg(test)]
        let failing = fail.clone();
        let writer = std::thread::Builder::new().name("sled-journal".into()).spawn(move || {
            while let Ok((bytes, at)) = jobs.recv() {
                let done = writing.write_all_at(&bytes, at).and_then(|()| writing.sync_data());
                #[cfg(test)]
                let done = if failing.load(std::sync::atomic::Ordering::SeqCst) {
                    Err(std::io::Error::other("injected failure"))
                } else {
                    done
                };
                if answers.send(done).is_err() {
                    break;
                }
            }
        })?;
        let mut journal = Journal {
            file,
            epoch,
            at: 0,
            last: seq,
            to_writer: Some(to_writer),
            from_writer,
            writer: Some(writer),
            #[cfg(test)]
            fail,
        };
        journal.checkpoint(seq)?;
        Ok(journal)
    }

    /// Tests set this to make the journal's writes fail.
    #[cfg(test)]
    pub fn fail_flag(&self) -> Arc<AtomicBool> {
        self.fail.clone()
    }

    /// The seq of the last record written: the next group takes the one
    /// after it.
    pub fn last_seq(&self) -> u64 {
        self.last
    }

    /// Whether a group record of `len` bytes fits after the last record.
    pub fn fits(&self, len: usize) -> bool {
        self.at + len as u64 <= SIZE
    }

    /// sled now holds every group up to `seq` on disk: start the journal
    /// again with a checkpoint there.
    pub fn checkpoint(&mut self, seq: u64) -> std::io::Result<()> {
        #[cfg(test)]
        if self.fail.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(std::io::Error::other("injected failure"));
        }
        let bytes = record(self.epoch, seq, false, &[]);
        self.file.write_all_at(&bytes, 0)?;
        self.file.sync_data()?;
        self.at = bytes.len() as u64;
        self.last = seq;
        Ok(())
    }

    /// The record of the next group (the seq after [`last_seq`](Self::last_seq)), for
    /// [`send`](Self::send) once it [`fits`](Self::fits).
    pub fn begin(&self, writes: &[u8]) -> Vec<u8> {
        record(self.epoch, self.last + 1, true, writes)
    }

    /// Write `bytes` (from [`begin`](Self::begin)) on the writing thread;
    /// [`finish`](Self::finish) waits for it. The group's seq.
    pub fn send(&mut self, bytes: Vec<u8>) -> std::io::Result<u64> {
        let len = bytes.len() as u64;
        let sent = self.to_writer.as_ref().map(|tx| tx.send((bytes, self.at)));
        match sent {
            Some(Ok(())) => {
                self.at += len;
                self.last += 1;
                Ok(self.last)
            }
            _ => Err(std::io::Error::other("the journal's writing thread has stopped")),
        }
    }

    /// Wait until the record last sent is on disk.
    pub fn finish(&self) -> std::io::Result<()> {
        self.from_writer
            .recv()
            .unwrap_or_else(|_| Err(std::io::Error::other("the journal's writing thread has stopped")))
    }

    /// Count a group written straight to sled (too large for the journal):
    /// its seq is taken, and the checkpoint after its flush names it.
    pub fn skip(&mut self) -> u64 {
        self.last += 1;
        self.last
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        self.to_writer = None;
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_of(records: &[Vec<u8>]) -> Vec<u8> {
        let mut bytes = records.concat();
        bytes.resize(SIZE as usize, 0);
        bytes
    }

    #[test]
    fn the_chain_is_a_checkpoint_and_the_groups_that_follow_it_in_sequence() {
        let bytes = file_of(&[record(7, 40, false, b""), record(7, 41, true, b"a"), record(7, 42, true, b"bc")]);
        let chain = chain(&bytes).expect("intact");
        let seen: Vec<(usize, u64, bool, &[u8])> = chain.iter().map(|r| (r.offset, r.seq, r.group, r.writes)).collect();
        assert_eq!(seen, vec![(0, 40, false, &b""[..]), (25, 41, true, &b"a"[..]), (51, 42, true, &b"bc"[..])]);
    }

    #[test]
    fn reading_stops_at_an_older_pass_or_a_record_never_written() {
        let first = [record(7, 40, false, b""), record(7, 41, true, b"a")];
        let mut cut = record(7, 42, true, b"bc");
        cut[HEADER..].iter_mut().for_each(|b| *b = 0);
        for (after, why) in [
            (record(6, 42, true, b"bc"), "a record of an earlier opening"),
            (record(7, 41, true, b"bc"), "an earlier pass over the file"),
            (record(7, 39, false, b""), "an earlier checkpoint"),
            (cut, "a record cut before its header"),
            (vec![0; 40], "zeros"),
        ] {
            let bytes = file_of(&[first[0].clone(), first[1].clone(), after, record(6, 43, true, b"d")]);
            assert_eq!(chain(&bytes).expect(why).len(), 2, "{why}");
        }
        assert!(chain(&vec![0; SIZE as usize]).expect("zeros").is_empty(), "a journal of zeros holds nothing");
    }

    #[test]
    fn what_reading_cannot_take_for_the_end_is_damage() {
        let first = [record(7, 40, false, b""), record(7, 41, true, b"a")];
        let damage = |records: &[Vec<u8>]| chain(&file_of(records)).map(|c| c.len()).expect_err("damage");
        // The first record, whatever is wrong with it.
        let mut flipped = first[0].clone();
        flipped[12] ^= 1;
        assert_eq!(damage(&[flipped, first[1].clone()]).offset, 0);
        assert_eq!(damage(&[record(7, 41, true, b"a")]).offset, 0, "a journal starts with a checkpoint");
        let mut long = record(7, 40, false, b"");
        long[..4].copy_from_slice(&u32::MAX.to_be_bytes());
        assert_eq!(damage(&[long]).offset, 0, "a length past the end");
        // A damaged record with a later one of the same pass after it, its
        // length damaged too (the records' alignment lost).
        for at in [0, 3, HEADER + 20] {
            let mut bad = record(7, 42, true, b"bcdefgh");
            bad[at] ^= 0x40;
            let d = damage(&[first[0].clone(), first[1].clone(), bad, record(7, 43, true, b"d")]);
            assert_eq!((d.offset, d.maybe_torn), (51, false), "{}", d.what);
            assert!(d.what.contains("group 43"), "{}", d.what);
        }
        // A gap in the sequence: the groups between are missing.
        let d = damage(&[first[0].clone(), first[1].clone(), record(7, 43, true, b"d")]);
        assert!(d.what.contains("group 43"), "{}", d.what);
        // The last record written, unreadable: its header names it (by its
        // seq, or by its epoch with a seq that makes its checksum match).
        for at in [HEADER + 2, HEADER + 15, HEADER + 20] {
            let mut bad = record(7, 42, true, b"bcdefgh");
            bad[at] ^= 0x04;
            let d = damage(&[first[0].clone(), first[1].clone(), bad]);
            assert_eq!((d.offset, d.maybe_torn), (51, true), "byte {at}: {}", d.what);
        }
        // A stale record of the same epoch damaged behind the live ones is not.
        let mut stale = record(7, 30, true, b"bcdefgh");
        stale[HEADER + 20] ^= 0x04;
        assert_eq!(chain(&file_of(&[first[0].clone(), first[1].clone(), stale])).expect("stale").len(), 2);
    }

    #[test]
    fn a_journal_writes_in_place_and_a_checkpoint_starts_it_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut journal = Journal::start(dir.path(), 5).expect("start");
        assert_eq!(std::fs::metadata(dir.path().join(FILE)).expect("file").len(), SIZE);
        for w in [&b"one"[..], b"two"] {
            let bytes = journal.begin(w);
            assert!(journal.fits(bytes.len()));
            journal.send(bytes).expect("send");
            journal.finish().expect("written");
        }
        let bytes = read(dir.path()).expect("read").expect("the right size");
        let seqs: Vec<(u64, &[u8])> = chain(&bytes).expect("intact").iter().map(|r| (r.seq, r.writes)).collect();
        assert_eq!(seqs, vec![(5, &b""[..]), (6, &b"one"[..]), (7, &b"two"[..])]);
        journal.checkpoint(7).expect("checkpoint");
        assert_eq!(journal.last_seq(), 7);
        let bytes = read(dir.path()).expect("read").expect("the right size");
        assert_eq!(chain(&bytes).expect("intact").len(), 1, "the groups before the checkpoint are not read again");
        drop(journal);
        // Reopened: a new epoch, so nothing of the earlier pass is read.
        let journal = Journal::start(dir.path(), 7).expect("start");
        let bytes = read(dir.path()).expect("read").expect("the right size");
        assert_eq!(chain(&bytes).expect("intact").len(), 1);
        assert_eq!(journal.last_seq(), 7);
        assert!(!journal.fits(SIZE as usize));
    }
}
