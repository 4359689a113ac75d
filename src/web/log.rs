//! The log and the rewind control of the game and host pages: the log as
//! the viewer may see it, folded to the round shown, and whether a seat's
//! last step can be taken back.

use serde_json::{json, Value};

use runestone_engine::Viewer;

use super::board;
use super::summary::when;
use super::Svc;
use crate::service::ServiceError;

/// The log as the viewer may see it, the rewind control's numbers, and the
/// position shown.
pub(super) async fn log_and_position(
    svc: &Svc,
    game: &str,
    viewer: Viewer,
    at: Option<u64>,
    names: &[String],
) -> Result<(Value, Vec<Value>, Value, Vec<runestone_engine::Envelope>), ServiceError> {
    let view = svc.view(game, viewer, at).await?;
    let events = svc.events(game, viewer, 0, None).await?;
    let head = view["head"].as_u64().unwrap_or(0);
    let seq = view["seq"].as_u64().unwrap_or(head);
    let ruleset = view["ruleset"].as_str().unwrap_or_default();
    let rules = svc.registry().get(ruleset).map(|g| g.as_ref());
    // Messages are shown in the conversation panel, not in the log.
    let press = |e: &runestone_engine::Envelope| {
        e.actor == runestone_engine::Actor::System
            && matches!(&e.visibility, runestone_engine::Visibility::Seats(s) if s.is_empty())
    };
    let log: Vec<Value> = events
        .iter()
        .filter(|e| !press(&e.envelope))
        .map(|e| {
            let round = match (&e.envelope.body, rules) {
                (runestone_engine::Body::Game { v, event }, Some(g)) if e.in_force => g.round_begun(*v, event),
                _ => None,
            };
            json!({
                "round": round,
                "seq": e.envelope.seq,
                "text": e.text,
                "time": e.envelope.time,
                "when": when(&e.envelope.time),
                "in_force": e.in_force,
                "hidden": e.hidden,
                "current": e.envelope.seq == seq,
                "future": e.envelope.seq > seq,
            })
        })
        .collect();
    let b = board::render(rules, &view["view"], names);
    let rewind = json!({
        "seq": seq,
        "head": head,
        "min": 1.min(head),
        "at_head": seq == head,
        "prev": (seq > 1).then(|| seq - 1),
        "next": (seq < head).then(|| seq + 1),
        "board": b,
    });
    let envelopes = events.into_iter().map(|e| e.envelope).collect();
    Ok((view, log, rewind, envelopes))
}

/// How many entries of the log a page shows when its game counts no rounds.
pub(super) const LOG_TAIL: usize = 30;

/// The log as a game page shows it: the entries of the round of the
/// position shown (from the event that began it to the next round's), or,
/// before a first round or in a game without rounds, the last
/// [`LOG_TAIL`] entries up to it; and
/// what was folded away, in words, with the link to the whole log.
pub(super) fn fold_log(log: Vec<Value>, seq: u64) -> (Vec<Value>, Value) {
    if log.is_empty() {
        return (log, json!({"folded": false, "all": 0}));
    }
    let seq_of = |e: &Value| e["seq"].as_u64().unwrap_or(0);
    let shown = log.iter().rposition(|e| seq_of(e) <= seq).unwrap_or(0);
    let begun = log[..=shown].iter().rposition(|e| e["round"].is_u64());
    let (from, to, round) = match begun {
        Some(b) => {
            let next = log[b + 1..].iter().position(|e| e["round"].is_u64()).map_or(log.len(), |n| b + 1 + n);
            (b, next, log[b]["round"].as_u64())
        }
        None => {
            let next = log[shown + 1..].iter().position(|e| e["round"].is_u64()).map_or(shown + 1, |n| shown + 1 + n);
            (shown.saturating_sub(LOG_TAIL - 1), next, None)
        }
    };
    let (earlier, later) = (from, log.len() - to);
    let all = log.len();
    let shown_log: Vec<Value> = log.into_iter().skip(from).take(to - from).collect();
    let fold = json!({
        "round": round,
        "earlier": earlier,
        "later": later,
        "all": all,
        "folded": earlier > 0 || later > 0,
    });
    (shown_log, fold)
}

/// Whether `seat`'s last step can be taken back, as the kernel would judge
/// it from the log (the service checks again on the POST).
pub(super) fn can_undo(events: &[runestone_engine::Envelope], in_force: &[bool], seat: u8) -> bool {
    use runestone_engine::{Actor, Body, KernelEvent};
    let mut last: Option<u8> = None;
    for (e, live) in events.iter().zip(in_force) {
        if !live {
            continue;
        }
        match &e.body {
            Body::Game { .. } => {
                if let Some(d) = &e.decision {
                    last = match (d.undoable, e.actor) {
                        (true, Actor::Seat(s)) => Some(s),
                        _ => None,
                    };
                }
            }
            Body::Kernel { event: KernelEvent::RolledBack { .. } | KernelEvent::Undone { .. } } => last = None,
            Body::Kernel { .. } => {}
        }
    }
    last == Some(seat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_folds_to_the_round_of_the_position_shown_or_to_its_last_entries() {
        let entry = |seq: u64, round: Option<u64>| json!({"seq": seq, "round": round});
        let log: Vec<Value> =
            (0..20).map(|s| entry(s, [(1, 1), (8, 2), (15, 3)].iter().find(|r| r.0 == s).map(|r| r.1))).collect();
        let seqs = |l: &[Value]| l.iter().map(|e| e["seq"].as_u64().unwrap()).collect::<Vec<_>>();
        let (now, fold) = fold_log(log.clone(), 19);
        assert_eq!(seqs(&now), (15..20).collect::<Vec<_>>());
        assert_eq!(
            (fold["round"].as_u64(), fold["earlier"].as_u64(), fold["later"].as_u64()),
            (Some(3), Some(15), Some(0))
        );
        let (past, fold) = fold_log(log.clone(), 9);
        assert_eq!(seqs(&past), (8..15).collect::<Vec<_>>());
        assert_eq!((fold["earlier"].as_u64(), fold["later"].as_u64()), (Some(8), Some(5)));
        let (start, fold) = fold_log(log, 0);
        assert_eq!(seqs(&start), [0], "the creation comes before the first round");
        assert_eq!(fold["later"].as_u64(), Some(19));
        // Without rounds: the last entries up to the position shown.
        let plain: Vec<Value> = (0..100).map(|s| entry(s, None)).collect();
        let (tail, fold) = fold_log(plain, 99);
        assert_eq!(seqs(&tail), (100 - LOG_TAIL as u64..100).collect::<Vec<_>>());
        assert_eq!((fold["earlier"].as_u64(), fold["folded"].as_bool()), (Some(70), Some(true)));
        let (short, fold) = fold_log((0..5).map(|s| entry(s, None)).collect(), 4);
        assert_eq!((short.len(), fold["folded"].as_bool()), (5, Some(false)));
    }
}
