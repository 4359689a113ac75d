//! `runestone migrate-store`: copy every game from one store to another
//! (a sled data directory to PostgreSQL), verified on arrival, safe to run
//! again.
//!
//! Each game is copied in one atomic write: the events the target lacks
//! and every side record of the game (its private record, idempotency
//! answers, outbox messages, deadline entries). So an interrupted run leaves
//! each game either whole on the target or absent, and a second run copies
//! what is missing. A game already whole on the target (or continued there
//! since: its log goes on from the source's last event) is left as it is,
//! so nothing sent or fired on the target is brought back. After each write
//! the target's log is read back, its chain checked and compared, event by
//! event, with the source's.

use runestone_engine::log::check_chain;
use runestone_engine::Envelope;

use super::{EventStore, Side, SideWrite, Write};

/// What a copy did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Games written (new on the target, or their missing events added).
    pub copied: usize,
    /// Games already whole on the target (or continued there).
    pub already: usize,
    /// Events written.
    pub events: u64,
    /// Side records written.
    pub records: usize,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "copied {} games ({} events, {} records) and verified their chains; {} games were already there",
            self.copied, self.events, self.records, self.already
        )
    }
}

/// The game a side record belongs to: named by its key, or (outbox queue
/// entries, keyed by due time) by the message's `game` field (the record's
/// JSON, compressed or not: `mail::encode`).
fn owner(side: Side, key: &[u8], value: &[u8]) -> Option<String> {
    let from_key = super::postgres::game_of(side, key);
    if !from_key.is_empty() {
        return Some(from_key);
    }
    if side == Side::Outbox {
        #[derive(serde::Deserialize)]
        struct Of {
            game: String,
        }
        let json = super::codec::decompress_value(value).ok()?;
        return serde_json::from_slice::<Of>(&json).ok().map(|o| o.game);
    }
    None
}

fn same(a: &[Envelope], b: &[Envelope]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.seq == y.seq && x.hash == y.hash)
}

/// Copy everything of `from` into `to`. Fails on the first game the target
/// holds differently, or whose chain does not hold on either side.
pub async fn copy(from: &dyn EventStore, to: &dyn EventStore) -> Result<Report, String> {
    let mut report = Report::default();
    let games = from.games(None, usize::MAX).map_err(|e| format!("cannot list the source's games: {e}"))?;
    let mut by_game: std::collections::BTreeMap<String, Vec<SideWrite>> = Default::default();
    let mut loose = Vec::new();
    for side in [Side::Games, Side::Idempotency, Side::Outbox, Side::Deadlines] {
        let rows = from.scan(side, b"", usize::MAX).map_err(|e| format!("cannot read the source's {side:?}: {e}"))?;
        for (key, value) in rows {
            let w = SideWrite { side, key, value: Some(value) };
            match owner(side, &w.key, w.value.as_deref().unwrap_or_default()) {
                Some(g) if games.binary_search(&g).is_ok() => by_game.entry(g).or_default().push(w),
                _ => loose.push(w),
            }
        }
    }
    for game in &games {
        let log = from.load(game, 0, None).map_err(|e| format!("game {game}: cannot read it from the source: {e}"))?;
        check_chain(&log)
            .map_err(|e| format!("game {game}: its chain breaks at seq {} on the source: {}", e.seq, e.problem))?;
        let Some(last) = log.last() else { continue };
        let there = to.head(game).map_err(|e| format!("game {game}: cannot read its head on the target: {e}"))?;
        let start = match there {
            None => 0,
            Some(h) => {
                let at = h.min(last.seq);
                let theirs = to.load(game, at, Some(at)).map_err(|e| format!("game {game}: {e}"))?;
                if theirs.first().map(|e| &e.hash) != Some(&log[at as usize].hash) {
                    return Err(format!(
                        "game {game}: the target holds another log of it (seq {at} differs); it was not copied"
                    ));
                }
                if h >= last.seq {
                    report.already += 1;
                    continue;
                }
                h + 1
            }
        };
        let side = by_game.remove(game).unwrap_or_default();
        let (events, records) = (log.len() as u64 - start, side.len());
        let write = Write {
            game: game.clone(),
            expect_head: there,
            events: log[start as usize..].to_vec(),
            side,
            unchanged: Vec::new(),
        };
        to.append(write).await.map_err(|e| format!("game {game}: cannot write it to the target: {e}"))?;
        let arrived = to.load(game, 0, None).map_err(|e| format!("game {game}: cannot read it back: {e}"))?;
        check_chain(&arrived)
            .map_err(|e| format!("game {game}: its chain breaks at seq {} on the target: {}", e.seq, e.problem))?;
        if !same(&arrived[..log.len().min(arrived.len())], &log) {
            return Err(format!("game {game}: the log read back from the target is not the source's"));
        }
        report.copied += 1;
        report.events += events;
        report.records += records;
    }
    // Records of no game with a log (creation idempotency answers, mail of
    // a game never made): only those the target lacks.
    let mut missing = Vec::new();
    for w in loose {
        if to.get(w.side, &w.key).map_err(|e| format!("cannot read the target: {e}"))?.is_none() {
            missing.push(w);
        }
    }
    report.records += missing.len();
    to.put(missing).await.map_err(|e| format!("cannot write records to the target: {e}"))?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::memory::MemoryStore;
    use crate::store::postgres::{testing, PgStore};
    use crate::store::suite::{game_id, new_game_write, next_write};

    /// An outbox record as the server stores it: compressed JSON.
    fn mail(game: &str) -> Vec<u8> {
        let json = serde_json::json!({ "game": game, "id": "m1", "text": "Your move in round 3. ".repeat(20) });
        let stored = crate::store::codec::compress_value(&serde_json::to_vec(&json).unwrap());
        assert_eq!(stored[0], crate::store::codec::VALUE_COMPRESSED, "stored compressed");
        stored
    }

    #[tokio::test]
    async fn every_game_with_its_records_is_copied_verified_and_a_rerun_adds_only_what_is_new() {
        let from = MemoryStore::default();
        let (a, b) = (game_id("copy", 1), game_id("copy", 2));
        let mut w = new_game_write(&a, 5);
        let mut due = b"q".to_vec();
        due.extend_from_slice(&7u64.to_be_bytes());
        due.extend_from_slice(b"m1");
        w.side = vec![
            SideWrite { side: Side::Games, key: a.as_bytes().to_vec(), value: Some(b"seed".to_vec()) },
            SideWrite { side: Side::Outbox, key: due.clone(), value: Some(mail(&a)) },
            SideWrite { side: Side::Idempotency, key: format!("{a}/0\0k").into_bytes(), value: Some(b"200".to_vec()) },
        ];
        from.append(w).await.unwrap();
        from.append(new_game_write(&b, 2)).await.unwrap();
        let create = SideWrite { side: Side::Idempotency, key: b"~create\0k".to_vec(), value: Some(b"201".to_vec()) };
        from.put(vec![create]).await.unwrap();

        let to = PgStore::open(&testing::fresh_database()).unwrap();
        let r = copy(&from, &to).await.expect("copy");
        assert_eq!(r, Report { copied: 2, already: 0, events: 7, records: 4 });
        assert_eq!(to.load(&a, 0, None).unwrap(), from.load(&a, 0, None).unwrap());
        assert_eq!(to.get(Side::Outbox, &due).unwrap(), Some(mail(&a)), "pending mail moves with its game");
        assert_eq!(to.get(Side::Idempotency, b"~create\0k").unwrap(), Some(b"201".to_vec()));

        // The mail is sent on the target (its record removed), the source's
        // game b goes on: a rerun copies b's new event and brings back nothing.
        to.put(vec![SideWrite { side: Side::Outbox, key: due.clone(), value: None }]).await.unwrap();
        let last = from.load(&b, 1, Some(1)).unwrap().pop().unwrap();
        from.append(next_write(&last, 1)).await.unwrap();
        let r = copy(&from, &to).await.expect("rerun");
        assert_eq!((r.copied, r.already, r.events), (1, 1, 1));
        assert_eq!(to.get(Side::Outbox, &due).unwrap(), None, "a sent message is not brought back");
        assert_eq!(to.head(&b).unwrap(), Some(2));
        assert_eq!(copy(&from, &to).await.expect("third run"), Report { already: 2, ..Report::default() });

        // A target holding another log of a game is refused, not overwritten.
        let other = MemoryStore::default();
        let mut forked = new_game_write(&b, 3);
        forked.events[1].hash = runestone_engine::Hash([0x55; 32]);
        other.append(forked).await.unwrap();
        let err = copy(&other, &to).await.unwrap_err();
        assert!(err.contains(&b), "{err}");
    }
}
