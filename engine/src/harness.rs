//! A whole game played through the kernel as the server hosts it: by ruleset
//! id, with options, commands and events as JSON, every decision sealed into
//! a hash-chained log. Each game's tests use it to show that the game can be
//! hosted; tools can use it to play a game out.

use serde_json::Value;

use crate::log::{seal, Actor, Envelope};
use crate::table::Table;
use crate::{Registry, Seat, Seed};

/// The time every event of a harness game is stamped with.
const TIME: &str = "2026-01-01T00:00:00Z";

/// A game played to its end by [`play_by_fallbacks`].
pub struct Played {
    /// The position at the end.
    pub table: Table,
    /// The whole sealed log.
    pub log: Vec<Envelope>,
    /// How many decisions the kernel asked of the seats.
    pub decisions: usize,
}

/// Create `ruleset` with `options` for `names`, then answer every pending
/// seat (the first not yet submitted) with its fallback until the game is
/// over, pushing each sealed event onto the table. `each` sees every event
/// right after it is pushed, with the seat whose decision made it (to check
/// what other viewers are shown). At the end the whole log is folded again
/// from nothing and must give the same position.
///
/// Errs, saying why, when the ruleset is unknown, a step is refused, the
/// game waits on nobody, it has not ended after `max_decisions`, or the
/// refold differs.
pub fn play_by_fallbacks(
    registry: &Registry,
    ruleset: &str,
    options: &Value,
    names: &[&str],
    seed: &Seed,
    max_decisions: usize,
    mut each: impl FnMut(&Table, Seat, &Envelope),
) -> Result<Played, String> {
    let game = registry.get(ruleset).ok_or_else(|| format!("no ruleset {ruleset:?} in the registry"))?;
    let names = names.iter().map(|n| n.to_string()).collect();
    let drafts = Table::create(game.as_ref(), options, names, seed, None).map_err(|e| format!("creating: {e}"))?;
    let mut log = seal("g1", None, drafts, TIME, seed);
    let mut table = Table::fold(registry, &log).map_err(|e| format!("folding the opening: {e}"))?;
    let mut decisions = 0;
    while !table.is_over() {
        if decisions == max_decisions {
            return Err(format!("not over after {max_decisions} decisions"));
        }
        decisions += 1;
        let p = table.pending().into_iter().find(|p| !p.submitted).ok_or("the game waits on nobody")?;
        let command = table.fallback(p.seat).ok_or_else(|| format!("seat {} has no fallback", p.seat))?;
        let drafts = table
            .decide(Actor::System, p.seat, &command, Some(table.head), seed)
            .map_err(|e| format!("seat {}'s fallback {command} refused: {e}", p.seat))?;
        let sealed = seal("g1", Some((table.head, &table.head_hash)), drafts, TIME, seed);
        for e in &sealed {
            table.push(e).map_err(|err| format!("pushing seq {}: {err}", e.seq))?;
            each(&table, p.seat, e);
        }
        log.extend(sealed);
    }
    let refold = Table::fold(registry, &log).map_err(|e| format!("refolding: {e}"))?;
    if refold.save()["state"] != table.save()["state"] {
        return Err("the log refolded from nothing gives another position than the live one".into());
    }
    Ok(Played { table, log, decisions })
}

/// A tiny deterministic generator (xorshift) for the random players and
/// random commands of the games' playout and property tests: the same seed
/// gives the same choices on every machine.
pub struct Pick(pub u64);

impl Pick {
    /// A number below `n` (0 when `n` is 0).
    pub fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }

    /// One of `items`, which must not be empty.
    pub fn of<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.next(items.len())].clone()
    }
}
