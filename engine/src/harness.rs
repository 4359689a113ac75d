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

/// What is wrong with the words of a game played to its end by
/// [`play_by_fallbacks`] for `names`: every log line (as those who see it
/// read it and as the others do), every label of a pending seat's legal
/// commands, every decision form and the outcome's summary must name
/// players, never a seat by its number ("seat 3", "Seat 1"); the summary
/// must name a winner; and every event after which a seat's score (as the
/// table header counts it, for the referee) changed must name that player
/// and the score ("glory", "Wordfame") in its line. Each problem is told
/// once, with the line it was found in; none is the answer wanted.
pub fn words_problems(
    registry: &Registry,
    ruleset: &str,
    options: &Value,
    names: &[&str],
    seed: &Seed,
    max_decisions: usize,
) -> Result<WordsChecked, String> {
    use std::collections::BTreeSet;
    let owned: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let mut problems = BTreeSet::new();
    // Where `text` names a seat by its number, with the words around it.
    let numbered_at = |text: &str| -> Option<String> {
        let lower = text.to_lowercase();
        let (i, _) = lower.match_indices("seat").find(|(i, _)| {
            let rest = lower[i + 4..].trim_start_matches([' ', '\u{a0}', '#']);
            rest.starts_with(|c: char| c.is_ascii_digit())
        })?;
        let before = lower[..i].chars().count();
        Some(lower.chars().skip(before.saturating_sub(60)).take(120).collect())
    };
    let numbered = |text: &str| numbered_at(text).is_some();
    let scores = |table: &Table| -> Vec<Option<i64>> {
        let view = table.view(crate::Viewer::Referee);
        table.game().header(&view, &owned).map(|h| h.standings.iter().map(|s| s.score).collect()).unwrap_or_default()
    };
    // The opening, as `play_by_fallbacks` makes it: its lines, and the
    // position the first decision is written on.
    let game = registry.get(ruleset).ok_or_else(|| format!("no ruleset {ruleset:?} in the registry"))?;
    let drafts = Table::create(game.as_ref(), options, owned.clone(), seed, None).map_err(|e| e.to_string())?;
    let opening = seal("g1", None, drafts, TIME, seed);
    let start = Table::fold(registry, &opening).map_err(|e| e.to_string())?;
    for env in &opening {
        let text = start.describe(env);
        if numbered(&text) {
            problems.insert(format!("a log line names a seat by number: {text:?}"));
        }
    }
    let score_word = {
        let view = start.view(crate::Viewer::Referee);
        // The score's name's first word ("Wordfame (first to 22)" is told as
        // "Wordfame").
        start
            .game()
            .header(&view, &owned)
            .and_then(|h| h.score.split_whitespace().next().map(str::to_lowercase))
            .unwrap_or_default()
    };
    let mut last_scores = Some(scores(&start));
    let (mut lines, mut score_changes) = (opening.len(), 0);
    let mut before = Some(start);
    let played = play_by_fallbacks(registry, ruleset, options, names, seed, max_decisions, |table, _, env| {
        // The position the event was written on: the one before it.
        let told = match before.take() {
            Some(prior) => prior.tell(env),
            None => crate::table::Told { seen: table.describe(env), unseen: None },
        };
        lines += 1;
        for text in std::iter::once(&told.seen).chain(told.unseen.as_ref()) {
            if numbered(text) {
                problems.insert(format!("a log line names a seat by number: {text:?}"));
            }
        }
        let now = scores(table);
        if let Some(prev) = &last_scores {
            for (seat, (a, b)) in prev.iter().zip(&now).enumerate() {
                if a != b {
                    score_changes += 1;
                    let lower = told.seen.to_lowercase();
                    let named = lower.contains(&owned[seat].to_lowercase());
                    if !named || !lower.contains(&score_word) {
                        problems.insert(format!(
                            "{}'s {score_word} went from {a:?} to {b:?} with no line saying why: {:?}",
                            owned[seat], told.seen
                        ));
                    }
                }
            }
        }
        last_scores = Some(now);
        if !table.is_over() {
            for p in table.pending() {
                let legal = table.legal_labelled(p.seat);
                for (_, label) in &legal {
                    if numbered(label) {
                        problems.insert(format!("a command's label names a seat by number: {label:?}"));
                    }
                }
                let view = table.view(crate::Viewer::Seat(p.seat));
                let commands: Vec<Value> = legal.iter().map(|(c, _)| c.clone()).collect();
                let labels: Vec<String> = legal.iter().map(|(_, l)| l.clone()).collect();
                let entered = Default::default();
                let input = crate::present::FormsInput {
                    seat: p.seat,
                    view: &view,
                    legal: &commands,
                    labels: &labels,
                    entered: &entered,
                    names: &owned,
                };
                if let Some(forms) = table.game().forms(&input) {
                    let text = serde_json::to_string(&forms).unwrap_or_default();
                    if let Some(near) = numbered_at(&text) {
                        problems.insert(format!("a form names a seat by number: …{near}…"));
                    }
                }
            }
        }
        before = Some(table.clone());
    })?;
    let outcome = played.table.outcome().ok_or("the game is not over")?;
    if numbered(&outcome.summary) {
        problems.insert(format!("the outcome names a seat by number: {:?}", outcome.summary));
    }
    if !outcome.winners.iter().chain(outcome.ranking.first()).any(|w| outcome.summary.contains(&owned[*w as usize])) {
        problems.insert(format!("the outcome names no winner: {:?}", outcome.summary));
    }
    Ok(WordsChecked { problems: problems.into_iter().collect(), lines, score_changes })
}

/// What [`words_problems`] found, and how much it looked at.
#[derive(Debug)]
pub struct WordsChecked {
    /// Each problem, told once.
    pub problems: Vec<String>,
    /// The log lines read.
    pub lines: usize,
    /// The changes of a seat's score checked for their line.
    pub score_changes: usize,
}

/// One golden log as [`replay_goldens`] found it.
#[derive(Debug)]
pub struct Golden {
    pub path: std::path::PathBuf,
    /// The rules version its `GameCreated` records.
    pub rules_version: u32,
    /// What [`crate::verify::full`] found: chain, digests, decisions derived again.
    pub report: crate::verify::Report,
}

/// Every golden log in `dir` (each `*.jsonl`, its closing `{"end"…}` line
/// left out), folded again through `registry` and verified in full with
/// the seed its end reveals: every decision derived again from its command
/// must give exactly the events and hashes logged. Errs, naming the file,
/// when one does not read, fold, reveal its seed or verify.
pub fn replay_goldens(registry: &Registry, dir: &std::path::Path) -> Result<Vec<Golden>, String> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let at = path.display().to_string();
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{at}: {e}"))?;
        let log = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with("{\"end\""))
            .map(|l| serde_json::from_str::<Envelope>(l).map_err(|e| format!("{at}: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let table = Table::fold(registry, &log).map_err(|e| format!("{at} no longer folds: {e}"))?;
        let seed = table
            .seed_revealed
            .as_deref()
            .and_then(Seed::from_hex)
            .ok_or_else(|| format!("{at}: the game is not over (no seed revealed)"))?;
        let report = crate::verify::full(registry, &log, &seed);
        if let Some(problem) = &report.problem {
            return Err(format!("{at}: {problem:?}"));
        }
        let rules_version = match log.first().and_then(|e| e.kernel()) {
            Some(crate::log::KernelEvent::GameCreated { rules_version, .. }) => *rules_version,
            _ => return Err(format!("{at}: the log does not begin with GameCreated")),
        };
        out.push(Golden { path, rules_version, report });
    }
    Ok(out)
}
