//! The writes handed to the committer: an append checked and serialized by
//! its caller ([`prepare_append`]), a put, and the queue ([`JobQueue`]) that
//! wakes the committer only when it holds what the committer waits for.

use super::*;

/// The most writes the committer takes into one group.
pub(super) const MAX_GROUP: usize = 4096;

/// A write checked and serialized by its caller, ready for the committer.
pub(super) enum Job {
    Append {
        game: GameKey,
        expect_head: Option<u64>,
        /// Keys and JSON of the events, in seq order.
        events: Vec<([u8; EVENT_KEY_LEN], Vec<u8>)>,
        /// The hash of the last event, for the head record.
        last_hash: Option<String>,
        side: Vec<(Vec<u8>, Option<Vec<u8>>)>,
        /// Side records as the writer read them (`Write::unchanged`).
        unchanged: Vec<(Vec<u8>, Option<Vec<u8>>)>,
        reply: Reply,
    },
    Put {
        side: Vec<(Vec<u8>, Option<Vec<u8>>)>,
        reply: Reply,
    },
}

/// Check a write and serialize its events (done by the caller, so the
/// committer's work per write is only the head check and the group's writes).
pub(super) fn prepare_append(write: Write, reply: Reply) -> StoreResult<Job> {
    let Write { game, expect_head, events, side, unchanged } = write;
    let key = game_key(&game)?;
    let out = crate::store::codec::encode_append(&game, expect_head, &events)?
        .into_iter()
        .map(|(seq, bytes)| (event_key(&key, seq), bytes))
        .collect();
    let last_hash = events.last().map(|e| e.hash.to_string());
    let unchanged = side_ops(unchanged);
    Ok(Job::Append { game: key, expect_head, events: out, last_hash, side: side_ops(side), unchanged, reply })
}

/// The committer's queue. Writers push; the committer takes the first
/// write of a group, then gathers the others. A push wakes the committer
/// only when the committer waits and the queue now holds what it waits for
/// (the first write, or the rest of the group it expects), so a group of
/// 16 writers coming back one by one costs the committer two wake-ups, not
/// sixteen.
pub(super) struct JobQueue<T> {
    pub(super) state: Mutex<QueueState<T>>,
    pub(super) ready: std::sync::Condvar,
}

pub(super) struct QueueState<T> {
    pub(super) jobs: std::collections::VecDeque<T>,
    /// How many queued writes wake the committer (0: it is not waiting).
    pub(super) want: usize,
    /// No more writes are taken; the committer drains what is queued.
    pub(super) closed: bool,
}

impl<T> Default for JobQueue<T> {
    fn default() -> JobQueue<T> {
        JobQueue {
            state: Mutex::new(QueueState { jobs: Default::default(), want: 0, closed: false }),
            ready: std::sync::Condvar::new(),
        }
    }
}

impl<T> JobQueue<T> {
    /// Queue a write; given back once the queue is closed.
    pub(super) fn push(&self, job: T) -> Result<(), T> {
        let mut state = lock(&self.state);
        if state.closed {
            return Err(job);
        }
        state.jobs.push_back(job);
        let wake = state.want != 0 && state.jobs.len() >= state.want;
        if wake {
            state.want = 0;
        }
        drop(state);
        if wake {
            self.ready.notify_one();
        }
        Ok(())
    }

    /// Take no more writes; the committer still drains those queued.
    pub(super) fn close(&self) {
        lock(&self.state).closed = true;
        self.ready.notify_one();
    }

    pub(super) fn wait<'a>(
        &self,
        state: MutexGuard<'a, QueueState<T>>,
        until: Option<Instant>,
    ) -> MutexGuard<'a, QueueState<T>> {
        match until {
            None => self.ready.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner()),
            Some(until) => {
                let left = until.saturating_duration_since(Instant::now());
                self.ready.wait_timeout(state, left).unwrap_or_else(|poisoned| poisoned.into_inner()).0
            }
        }
    }

    /// Wait for a write and move it into `group`; `false` once the queue
    /// is closed and drained.
    pub(super) fn wait_first(&self, group: &mut Vec<T>) -> bool {
        let mut state = lock(&self.state);
        loop {
            if let Some(job) = state.jobs.pop_front() {
                state.want = 0;
                group.push(job);
                return true;
            }
            if state.closed {
                return false;
            }
            state.want = 1;
            state = self.wait(state, None);
        }
    }

    /// Take into `group` whatever is queued, up to [`MAX_GROUP`], and while
    /// it holds fewer than `target`, wait until `until` for more.
    pub(super) fn gather(&self, group: &mut Vec<T>, target: usize, until: Instant) {
        let mut state = lock(&self.state);
        loop {
            while group.len() < MAX_GROUP {
                match state.jobs.pop_front() {
                    Some(job) => group.push(job),
                    None => break,
                }
            }
            if group.len() >= MAX_GROUP.min(target) || state.closed || Instant::now() >= until {
                state.want = 0;
                return;
            }
            state.want = target.min(MAX_GROUP) - group.len();
            state = self.wait(state, Some(until));
        }
    }
}

impl Job {
    /// The outbox records this job puts.
    pub(super) fn outbox_keys(&self) -> Vec<Vec<u8>> {
        let side = match self {
            Job::Append { side, .. } | Job::Put { side, .. } => side,
        };
        let tag = side_tag(Side::Outbox);
        side.iter().filter(|(k, v)| v.is_some() && k.first() == Some(&tag)).map(|(k, _)| k.clone()).collect()
    }

    pub(super) fn into_reply(self) -> Reply {
        match self {
            Job::Append { reply, .. } | Job::Put { reply, .. } => reply,
        }
    }
}

#[cfg(test)]
mod gather_tests {
    use super::*;

    #[test]
    fn a_group_short_of_its_target_waits_for_writers_coming_back() {
        let queue = Arc::new(JobQueue::default());
        queue.push(1).unwrap();
        let late = {
            let queue = queue.clone();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(20));
                queue.push(2).unwrap();
                queue.push(3).unwrap();
            })
        };
        let mut group = Vec::new();
        assert!(queue.wait_first(&mut group));
        queue.gather(&mut group, 3, Instant::now() + std::time::Duration::from_secs(120));
        assert_eq!(group, vec![1, 2, 3]);
        late.join().unwrap();
    }

    #[test]
    fn a_group_short_of_its_target_is_written_when_the_wait_ends() {
        let queue = JobQueue::default();
        queue.push(1).unwrap();
        let mut group = Vec::new();
        assert!(queue.wait_first(&mut group));
        queue.gather(&mut group, 16, Instant::now() + std::time::Duration::from_millis(5));
        assert_eq!(group, vec![1]);
    }

    #[test]
    fn a_gather_takes_everything_queued_and_stops_when_the_queue_closes() {
        let queue = JobQueue::default();
        for n in 0..5 {
            queue.push(n).unwrap();
        }
        queue.close();
        assert_eq!(queue.push(5), Err(5), "a closed queue takes no more writes");
        let mut group = Vec::new();
        assert!(queue.wait_first(&mut group));
        queue.gather(&mut group, 16, Instant::now() + std::time::Duration::from_secs(3600));
        assert_eq!(group, vec![0, 1, 2, 3, 4]);
        group.clear();
        assert!(!queue.wait_first(&mut group), "a closed and drained queue has nothing more");
    }
}
