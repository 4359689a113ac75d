//! Checking a log: the hash chain (anyone, any time), the digests and every
//! draw (with the seed: the server at any time, anyone after the end).
//!
//! Re-deriving a draw means deciding every recorded command again, from the
//! position it was decided in, with the seed, and finding exactly the events
//! that were logged. That proves no outcome was chosen by anything but the
//! committed seed.

use serde::Serialize;

use crate::erased::Registry;
use crate::log::{check_chain, check_digests, Actor, Body, Envelope, KernelEvent};
use crate::rng::Seed;
use crate::table::Table;

/// What a check found.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Report {
    pub events: u64,
    /// The hash chain links every event to the one before it.
    pub chain_ok: bool,
    /// Decisions whose events were derived again from the seed.
    pub decisions_rederived: u64,
    /// Events copied from another game (a fork), checked against their origin
    /// only by its own verify.
    pub copied_events: u64,
    /// Events whose digest is of the older form, binding their body and
    /// command but not their time, actor, visibility or redacted form
    /// (those are bound by the chain alone).
    pub body_only_digests: u64,
    /// The first problem, if any: seq and words.
    pub problem: Option<(u64, String)>,
}

/// Check the chain only (what anyone can do before the end).
pub fn chain(log: &[Envelope]) -> Report {
    let mut r = Report {
        events: log.len() as u64,
        chain_ok: true,
        decisions_rederived: 0,
        copied_events: 0,
        body_only_digests: 0,
        problem: None,
    };
    if let Err(e) = check_chain(log) {
        r.chain_ok = false;
        r.problem = Some((e.seq, e.problem));
    }
    r
}

/// Check the chain, the digests under `seed`, the seed's commitment, and
/// re-derive every decision.
pub fn full(registry: &Registry, log: &[Envelope], seed: &Seed) -> Report {
    let mut r = chain(log);
    if r.problem.is_some() {
        return r;
    }
    match check_digests(log, seed) {
        Ok(n) => r.body_only_digests = n,
        Err(e) => {
            r.problem = Some((e.seq, e.problem));
            return r;
        }
    }
    let fail = |r: &mut Report, seq: u64, p: String| {
        r.problem = Some((seq, p));
    };
    let Some(KernelEvent::GameCreated { options, seats, seed_commitment, forked_from, ruleset, rules_version }) =
        log.first().and_then(Envelope::kernel)
    else {
        fail(&mut r, 0, "the log does not start with GameCreated".into());
        return r;
    };
    if *seed_commitment != seed.commitment() {
        fail(&mut r, 0, "the seed does not match the commitment published at creation".into());
        return r;
    }
    let Some(game) = registry.get(ruleset) else {
        fail(&mut r, 0, format!("unknown ruleset {ruleset:?}"));
        return r;
    };
    // Setup.
    let mut i = 1usize;
    if forked_from.is_none() {
        match Table::create_as(game.as_ref(), options, seats.clone(), seed, None, Some(*rules_version)) {
            Ok(drafts) => {
                let setup = &drafts[1..];
                for (k, d) in setup.iter().enumerate() {
                    match log.get(1 + k) {
                        Some(env)
                            if env.body == d.body && env.visibility == d.visibility && env.redacted == d.redacted => {}
                        _ => {
                            fail(&mut r, 1 + k as u64, "setup derived from the seed differs from the log".into());
                            return r;
                        }
                    }
                }
                i += setup.len();
                r.decisions_rederived += 1;
            }
            Err(e) => {
                fail(&mut r, 1, format!("setup can no longer be derived: {e}"));
                return r;
            }
        }
    } else {
        while i < log.len() && log[i].actor == Actor::System && log[i].decision.is_none() {
            if let Body::Game { .. } = log[i].body {
                r.copied_events += 1;
                i += 1;
            } else {
                break;
            }
        }
    }
    let mut table = match Table::fold(registry, &log[..i]) {
        Ok(t) => t,
        Err(e) => {
            fail(&mut r, i as u64, e.to_string());
            return r;
        }
    };
    while i < log.len() {
        let env = &log[i];
        let n = match (&env.decision, env.actor) {
            (Some(d), actor) if d.command.is_some() => {
                let (Some(cmd), Some(seat)) = (&d.command, d.seat) else {
                    fail(&mut r, env.seq, "a decision without its seat".into());
                    return r;
                };
                match table.decide(actor, seat, &cmd.value(), None, seed) {
                    Ok(drafts) => {
                        for (k, d) in drafts.iter().enumerate() {
                            match log.get(i + k) {
                                Some(e)
                                    if e.body == d.body
                                        && e.visibility == d.visibility
                                        && e.actor == d.actor
                                        && e.redacted == d.redacted => {}
                                _ => {
                                    fail(
                                        &mut r,
                                        (i + k) as u64,
                                        "deciding the command again gives other events than the log".into(),
                                    );
                                    return r;
                                }
                            }
                        }
                        r.decisions_rederived += 1;
                        drafts.len()
                    }
                    Err(e) => {
                        fail(&mut r, env.seq, format!("the command is no longer accepted: {e}"));
                        return r;
                    }
                }
            }
            _ => 1,
        };
        for env in &log[i..i + n] {
            if let Err(e) = table.push(env) {
                match Table::fold(registry, &log[..=env.seq as usize]) {
                    Ok(t) => table = t,
                    Err(_) => {
                        fail(&mut r, env.seq, e.to_string());
                        return r;
                    }
                }
            }
        }
        i += n;
    }
    r
}
