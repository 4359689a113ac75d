//! An in-memory store with the same contract, for unit tests of the layers
//! above (nothing is durable: never use it to prove durability).

use std::collections::BTreeMap;
use std::sync::Mutex;

use runestone_engine::Envelope;

use super::{BoxFut, EventStore, GameId, Side, SideWrite, StoreError, StoreResult, Write};

#[derive(Default)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    logs: BTreeMap<GameId, Vec<Envelope>>,
    side: BTreeMap<(u8, Vec<u8>), Vec<u8>>,
    snapshots: BTreeMap<(GameId, u64), Vec<u8>>,
    closed: bool,
}

fn side_tag(s: Side) -> u8 {
    match s {
        Side::Games => b'g',
        Side::Idempotency => b'i',
        Side::Outbox => b'o',
        Side::Deadlines => b'd',
    }
}

impl Inner {
    fn apply_side(&mut self, writes: Vec<SideWrite>) {
        for w in writes {
            let k = (side_tag(w.side), w.key);
            match w.value {
                Some(v) => self.side.insert(k, v),
                None => self.side.remove(&k),
            };
        }
    }
}

impl EventStore for MemoryStore {
    /// An append is made (or refused) when it is called.
    fn ordered_appends(&self) -> bool {
        true
    }

    fn append(&self, write: Write) -> BoxFut<'_, StoreResult<()>> {
        let r = (|| {
            let mut g = self.inner.lock().expect("lock");
            if g.closed {
                return Err(StoreError::Closed);
            }
            if write.game.len() != super::GAME_ID_LEN {
                return Err(StoreError::Malformed(format!("a game id is {} bytes long", super::GAME_ID_LEN)));
            }
            // The write's own shape first, as every backend checks it.
            let first = match write.expect_head {
                None => 0,
                Some(h) => h.checked_add(1).ok_or_else(|| {
                    StoreError::Malformed(format!("expect_head {h} leaves no room for another event"))
                })?,
            };
            for (next, e) in (first..).zip(&write.events) {
                if e.seq != next || e.game != write.game {
                    return Err(StoreError::Malformed(format!("event {} of game {} out of place", e.seq, e.game)));
                }
            }
            let head = g.logs.get(&write.game).and_then(|l| l.last()).map(|e| e.seq);
            if head != write.expect_head {
                return Err(StoreError::Conflict { game: write.game, expected: write.expect_head, found: head });
            }
            for u in &write.unchanged {
                if g.side.get(&(side_tag(u.side), u.key.clone())) != u.value.as_ref() {
                    return Err(StoreError::Changed { game: write.game });
                }
            }
            g.logs.entry(write.game).or_default().extend(write.events);
            g.apply_side(write.side);
            Ok(())
        })();
        Box::pin(async move { r })
    }

    fn head(&self, game: &str) -> StoreResult<Option<u64>> {
        Ok(self.inner.lock().expect("lock").logs.get(game).and_then(|l| l.last()).map(|e| e.seq))
    }

    fn load(&self, game: &str, from: u64, to: Option<u64>) -> StoreResult<Vec<Envelope>> {
        let g = self.inner.lock().expect("lock");
        Ok(g.logs
            .get(game)
            .map(|l| l.iter().filter(|e| e.seq >= from && to.is_none_or(|t| e.seq <= t)).cloned().collect())
            .unwrap_or_default())
    }

    fn get(&self, side: Side, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        Ok(self.inner.lock().expect("lock").side.get(&(side_tag(side), key.to_vec())).cloned())
    }

    fn scan(&self, side: Side, prefix: &[u8], limit: usize) -> StoreResult<Vec<(Vec<u8>, Vec<u8>)>> {
        let g = self.inner.lock().expect("lock");
        let t = side_tag(side);
        Ok(g.side
            .range((t, prefix.to_vec())..)
            .take_while(|((s, k), _)| *s == t && k.starts_with(prefix))
            .take(limit)
            .map(|((_, k), v)| (k.clone(), v.clone()))
            .collect())
    }

    fn put(&self, writes: Vec<SideWrite>) -> BoxFut<'_, StoreResult<()>> {
        let r = {
            let mut g = self.inner.lock().expect("lock");
            if g.closed {
                Err(StoreError::Closed)
            } else {
                g.apply_side(writes);
                Ok(())
            }
        };
        Box::pin(async move { r })
    }

    fn put_snapshot(&self, game: &str, seq: u64, snapshot: &[u8]) -> StoreResult<()> {
        self.inner.lock().expect("lock").snapshots.insert((game.to_owned(), seq), snapshot.to_vec());
        Ok(())
    }

    fn snapshot_at_or_before(&self, game: &str, seq: u64) -> StoreResult<Option<(u64, Vec<u8>)>> {
        let g = self.inner.lock().expect("lock");
        Ok(g.snapshots
            .range((game.to_owned(), 0)..=(game.to_owned(), seq))
            .next_back()
            .map(|((_, s), v)| (*s, v.clone())))
    }

    fn games(&self, after: Option<&str>, limit: usize) -> StoreResult<Vec<GameId>> {
        let g = self.inner.lock().expect("lock");
        Ok(g.logs.keys().filter(|k| after.is_none_or(|a| k.as_str() > a)).take(limit).cloned().collect())
    }

    fn close(&self) -> StoreResult<()> {
        self.inner.lock().expect("lock").closed = true;
        Ok(())
    }
}
