//! What the game and host pages read from a game's summary: the seats'
//! names, the decisions owed with their deadlines in the reader's time, the
//! game's name, and the outcome.

use runestone_engine::DynGame;
use serde_json::{json, Value};

use super::board;
use super::Svc;
use crate::service::Service;

pub(super) fn names_of(summary: &Value) -> Vec<String> {
    summary["seats"]
        .as_array()
        .map(|a| a.iter().map(|s| s["name"].as_str().unwrap_or("?").to_owned()).collect())
        .unwrap_or_default()
}

/// An RFC 3339 UTC stamp as people read it: "2026-11-22 09:21 UTC".
pub(super) fn when(stamp: &str) -> String {
    match (stamp.get(..10), stamp.get(11..16)) {
        (Some(day), Some(time)) if stamp.ends_with('Z') => format!("{day} {time} UTC"),
        _ => stamp.to_owned(),
    }
}

/// A deadline as the reader reads it: in `tz` when the reader's time zone
/// is known ("Tue 24 Nov 18:00 CET"), else in UTC (the pages' script
/// rewrites it into the browser's own time zone).
pub(super) fn due_words(stamp: &str, tz: Option<&str>) -> String {
    match chrono::DateTime::parse_from_rfc3339(stamp) {
        Ok(t) => crate::service::local_time(t.with_timezone(&chrono::Utc), tz),
        Err(_) => stamp.to_owned(),
    }
}

/// Every open decision of an answer: those still owed (`pending`) and those
/// given but still open to change (`submitted`).
pub(super) fn decisions(answer: &Value) -> Value {
    let all = [&answer["pending"], &answer["submitted"]];
    Value::Array(all.iter().filter_map(|v| v.as_array()).flatten().cloned().collect())
}

/// Who must decide what, with each decision's deadline from `summary`
/// told in the time zone `tz` (the viewing seat's, when it gave one).
pub(super) fn pending_list(
    pending: &Value,
    names: &[String],
    me: Option<u8>,
    summary: &Value,
    tz: Option<&str>,
) -> Vec<Value> {
    let due = summary["deadlines"]["due"].as_array().cloned().unwrap_or_default();
    pending
        .as_array()
        .map(|a| {
            a.iter()
                .map(|p| {
                    let seat = p["seat"].as_u64().unwrap_or(0) as u8;
                    let key = format!("{seat}/{}", p["kind"].as_str().unwrap_or_default());
                    let deadline = due.iter().find(|d| d["decision"] == json!(key)).map(|d| d["due"].clone());
                    json!({
                        "seat": seat,
                        "name": board::seat_name(names, seat),
                        "submitted": p["submitted"],
                        "due_when": deadline.as_ref().and_then(Value::as_str).map(|d| due_words(d, tz)),
                        "due_local": tz.is_none(),
                        "due": deadline,
                        "kind": p["kind"],
                        "prompt": p["prompt"],
                        "me": me == Some(seat),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The name of the game `summary` describes, in words (never its id).
pub(super) fn game_name(svc: &Svc, summary: &Value) -> String {
    game_of(svc, summary).map_or_else(|| summary["ruleset"].as_str().unwrap_or("a game").to_owned(), |g| g.info().name)
}

/// The rules of the game `summary` describes, if this server hosts them.
pub(super) fn game_of<'a>(svc: &'a Service, summary: &Value) -> Option<&'a dyn DynGame> {
    svc.registry().get(summary["ruleset"].as_str().unwrap_or_default()).map(|g| g.as_ref())
}

/// The outcome as the end page shows it: its summary (which names the
/// players), the ranking with names, and for a seated viewer `me` their
/// own result first ("You win", "You finish 2nd of 4").
pub(super) fn outcome_rows(summary: &Value, names: &[String], me: Option<u8>) -> Value {
    let o = &summary["outcome"];
    if o.is_null() {
        return Value::Null;
    }
    let scores = o["scores"].as_array().cloned().unwrap_or_default();
    let winners: Vec<u64> =
        o["winners"].as_array().map(|w| w.iter().filter_map(Value::as_u64).collect()).unwrap_or_default();
    let ranking: Vec<Value> = o["ranking"]
        .as_array()
        .map(|r| {
            r.iter()
                .enumerate()
                .filter_map(|(place, s)| {
                    let s = s.as_u64()?;
                    Some(json!({
                        "place": place + 1,
                        "seat": s,
                        "name": board::seat_name(names, s as u8),
                        "you": me == Some(s as u8),
                        "score": scores.get(s as usize).cloned().unwrap_or(Value::Null),
                        "winner": winners.contains(&s),
                    }))
                })
                .collect()
        })
        .unwrap_or_default();
    let yours = ranking.iter().find(|r| r["you"] == true).map(|r| {
        let place = r["place"].as_u64().unwrap_or(0) as usize;
        crate::service::your_result(place, ranking.len(), r["winner"].as_bool().unwrap_or(false), winners.len())
    });
    json!({ "summary": o["summary"], "ranking": ranking, "yours": yours })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_page_tells_a_seated_reader_their_own_result_first() {
        let summary =
            json!({"outcome": {"scores": [5, 9, 9], "ranking": [1, 2, 0], "winners": [1, 2], "summary": "x"}});
        let names: Vec<String> = ["Ann", "Bo", "Cy"].iter().map(|n| n.to_string()).collect();
        assert_eq!(outcome_rows(&summary, &names, Some(0))["yours"], "You finish 3rd of 3.");
        assert_eq!(outcome_rows(&summary, &names, Some(2))["yours"], "You share the victory with 1 other.");
        assert!(outcome_rows(&summary, &names, None)["yours"].is_null());
        let rows = outcome_rows(&summary, &names, Some(1));
        assert_eq!(
            (rows["ranking"][0]["name"].as_str(), rows["ranking"][0]["you"].as_bool()),
            (Some("Bo"), Some(true))
        );
    }

    #[test]
    fn stamps_read_as_minutes_in_utc() {
        assert_eq!(when("2026-11-22T09:21:02.962Z"), "2026-11-22 09:21 UTC");
        assert_eq!(when("soon"), "soon");
    }
}
