//! What sled's flush leaves to runestone to make durable: fdatasync of the
//! blob files sled wrote and of the directories whose entries changed.

use super::*;

/// Makes what sled's flush wrote durable (see the module docs).
pub(super) struct Syncer {
    /// sled's log file (`db` in its directory; fixed by the pinned version),
    /// synced once at open (sled's own log writes sync it after that).
    pub(super) log: File,
    pub(super) blob_dir: PathBuf,
    /// Blob files already synced.
    pub(super) blobs: HashSet<OsString>,
    /// The blob directory's modification time seen before its last listing,
    /// and when that listing began.
    pub(super) listed: Option<(SystemTime, SystemTime)>,
    /// Tests make the next syncs fail with this.
    #[cfg(test)]
    pub(super) fail: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// More than the coarsest clock tick of a filesystem's modification times:
/// a file created within this of the last listing may leave the directory's
/// time unchanged, so the directory is listed again until this has passed.
pub(super) const MTIME_TICK: std::time::Duration = std::time::Duration::from_secs(2);

/// The same, for a filesystem whose times are finer than 10 ms (its
/// directory's time is not a multiple of 10 ms): the granularity plus the
/// kernel's clock tick (at most 10 ms), with room to spare. A fresh store's
/// blob directory, made at open, is listed on every flush only this long.
pub(super) const FINE_MTIME_TICK: std::time::Duration = std::time::Duration::from_millis(50);

/// How long after a change of the directory whose time is `mtime` another
/// change may still leave that time as it is.
pub(super) fn mtime_tick(mtime: SystemTime) -> std::time::Duration {
    let fine = mtime.duration_since(SystemTime::UNIX_EPOCH).is_ok_and(|d| d.subsec_nanos() % 10_000_000 != 0);
    if fine {
        FINE_MTIME_TICK
    } else {
        MTIME_TICK
    }
}

impl Syncer {
    pub(super) fn open(dir: &Path) -> std::io::Result<Syncer> {
        // Windows flushes only handles opened for writing; nothing is written.
        let log = std::fs::OpenOptions::new().read(true).write(cfg!(windows)).open(dir.join("db"))?;
        let blob_dir = dir.join("blobs");
        // The entries sled created at open (its files, the blob directory).
        sync_dir(dir)?;
        let mut syncer = Syncer {
            log,
            blob_dir,
            blobs: HashSet::new(),
            listed: None,
            #[cfg(test)]
            fail: Default::default(),
        };
        // What sled wrote at open before any log buffer (its `conf` is
        // synced by sled itself, its recovery's zeroing is not).
        syncer.log.sync_data()?;
        syncer.sync()?;
        Ok(syncer)
    }

    /// After sled's flush: its log file needs nothing more (the vendored
    /// sled ends every log write with `fdatasync`), its blob files do.
    pub(super) fn sync(&mut self) -> std::io::Result<()> {
        #[cfg(test)]
        if self.fail.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(std::io::Error::other("injected failure"));
        }
        self.sync_new_blobs()
    }

    /// fdatasync the blob files sled wrote since the last pass. The
    /// directory is listed only when its modification time says its entries
    /// may have changed (one `stat` per flush otherwise): sled writes a blob
    /// only for a page larger than a quarter of a segment.
    pub(super) fn sync_new_blobs(&mut self) -> std::io::Result<()> {
        let mtime = match std::fs::metadata(&self.blob_dir) {
            Ok(m) => m.modified()?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.blobs.clear();
                self.listed = None;
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        if let Some((seen, at)) = self.listed {
            if seen == mtime && at >= seen + mtime_tick(seen) {
                return Ok(());
            }
        }
        let at = SystemTime::now();
        let mut present = HashSet::with_capacity(self.blobs.len());
        let mut new = false;
        match std::fs::read_dir(&self.blob_dir) {
            Ok(entries) => {
                for entry in entries {
                    let name = entry?.file_name();
                    if !self.blobs.contains(&name) {
                        match File::open(self.blob_dir.join(&name)) {
                            Ok(f) => f.sync_data()?,
                            // Collected by sled meanwhile.
                            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                            Err(e) => return Err(e),
                        }
                        new = true;
                    }
                    present.insert(name);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        if new {
            sync_dir(&self.blob_dir)?;
        }
        self.blobs = present;
        self.listed = Some((mtime, at));
        Ok(())
    }
}

/// Make a directory's entries durable (a no-op where directories cannot be
/// opened as files).
pub(in crate::store) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    if cfg!(unix) {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fine_grained_directory_time_is_trusted_sooner() {
        let at = |secs: u64, nanos: u32| SystemTime::UNIX_EPOCH + std::time::Duration::new(secs, nanos);
        assert_eq!(mtime_tick(at(1_700_000_000, 123_456_789)), FINE_MTIME_TICK);
        // Whole seconds (ext3, FAT's two) or hundredths (exFAT): maybe coarse.
        assert_eq!(mtime_tick(at(1_700_000_000, 0)), MTIME_TICK);
        assert_eq!(mtime_tick(at(1_700_000_000, 370_000_000)), MTIME_TICK);
    }
}
