//! Whether the store answers, known without waiting on it: a thread of its
//! own asks the store a cheap question every second ([`StoreProbe`]), and
//! `/healthz` reads how long ago it last had an answer. A store that does
//! not answer (PostgreSQL unreachable or paused, a disk that hangs) makes
//! `/healthz` say "degraded" with the reason, at once, instead of making it
//! wait too.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use crate::store::EventStore;

/// How often the store is asked.
const EVERY: Duration = Duration::from_secs(1);

/// A question unanswered for this long makes the store late.
pub const LATE: Duration = Duration::from_secs(5);

/// A game id no game has (letters and digits, 16 of them): asking its head
/// is one cheap read.
const PROBE_GAME: &str = "healthzprobe0000";

/// The last probe of the store, shared with its thread.
pub struct StoreProbe {
    start: Instant,
    /// When the probe in flight was sent, in ms since `start` (0: none).
    asked_ms: AtomicU64,
    /// When the last answer came, in ms since `start`.
    answered_ms: AtomicU64,
    /// The last answer's error, if it was one.
    failed: Mutex<Option<String>>,
    stop: AtomicBool,
}

/// What the probe knows of the store, for `/healthz`.
#[derive(Debug, PartialEq, Eq)]
pub enum StoreState {
    Answering,
    /// A question has gone unanswered for this many seconds.
    Late(u64),
    /// The store answered the last question with an error.
    Failing(String),
}

impl StoreProbe {
    /// Start asking `store` on a thread of its own; the thread ends with
    /// [`StoreProbe::stop`] or once the store is dropped.
    pub fn start(store: &Arc<dyn EventStore>) -> std::io::Result<Arc<StoreProbe>> {
        let probe = Arc::new(StoreProbe {
            start: Instant::now(),
            asked_ms: AtomicU64::new(0),
            answered_ms: AtomicU64::new(0),
            failed: Mutex::new(None),
            stop: AtomicBool::new(false),
        });
        let store: Weak<dyn EventStore> = Arc::downgrade(store);
        let p = probe.clone();
        std::thread::Builder::new().name("runestone-store-probe".into()).spawn(move || {
            while !p.stop.load(Ordering::Relaxed) {
                let Some(store) = store.upgrade() else { return };
                p.asked_ms.store(p.ms().max(1), Ordering::Relaxed);
                let answer = store.head(PROBE_GAME);
                drop(store);
                *p.failed.lock().unwrap_or_else(|e| e.into_inner()) = answer.err().map(|e| e.to_string());
                p.answered_ms.store(p.ms(), Ordering::Relaxed);
                p.asked_ms.store(0, Ordering::Relaxed);
                std::thread::sleep(EVERY);
            }
        })?;
        Ok(probe)
    }

    fn ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// The store's state as last seen; never waits on the store.
    pub fn state(&self) -> StoreState {
        let asked = self.asked_ms.load(Ordering::Relaxed);
        let now = self.ms();
        // An unanswered question, or a thread that stopped asking.
        let waiting = if asked > 0 { now.saturating_sub(asked) } else { 0 };
        let silent = now.saturating_sub(self.answered_ms.load(Ordering::Relaxed).max(asked));
        let late = waiting.max(silent.saturating_sub(EVERY.as_millis() as u64));
        if late >= LATE.as_millis() as u64 {
            return StoreState::Late(late / 1000);
        }
        match self.failed.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            Some(e) => StoreState::Failing(e),
            None => StoreState::Answering,
        }
    }

    /// The reason `/healthz` gives for a store not answering, if it is not.
    pub fn trouble(&self, answer_seconds: u64) -> Option<String> {
        match self.state() {
            StoreState::Answering => None,
            StoreState::Late(s) => Some(format!(
                "the store has not answered for {s} seconds; requests that need it are answered 503 \
                 after {answer_seconds} seconds, saying whether anything may have been recorded"
            )),
            StoreState::Failing(e) => Some(format!("the store answers with an error: {e}")),
        }
    }

    /// Stop asking (the server is stopping).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_that_answers_is_answering() {
        let store: Arc<dyn EventStore> = Arc::new(crate::store::memory::MemoryStore::default());
        let probe = StoreProbe::start(&store).expect("the probe starts");
        assert_eq!(probe.state(), StoreState::Answering);
        assert_eq!(probe.trouble(20), None);
        probe.stop();
    }

    #[test]
    fn a_question_unanswered_past_the_bound_is_late() {
        let probe = StoreProbe {
            start: Instant::now() - Duration::from_secs(60),
            asked_ms: AtomicU64::new(50_000),
            answered_ms: AtomicU64::new(49_000),
            failed: Mutex::new(None),
            stop: AtomicBool::new(true),
        };
        let StoreState::Late(s) = probe.state() else { panic!("late: {:?}", probe.state()) };
        assert!(s >= 10, "{s}");
        assert!(probe.trouble(20).unwrap().contains("answered 503 after 20 seconds"));
        // A thread that stopped asking is as late as its last answer.
        probe.asked_ms.store(0, Ordering::Relaxed);
        assert!(matches!(probe.state(), StoreState::Late(_)));
        probe.answered_ms.store(probe.ms(), Ordering::Relaxed);
        *probe.failed.lock().unwrap() = Some("PostgreSQL refused".into());
        assert_eq!(probe.state(), StoreState::Failing("PostgreSQL refused".into()));
    }
}
