//! The conversation panel of the game page: one thread per channel, oldest
//! message first, each with its reply form; a form to start a conversation
//! with any set of seats; and the seat's messages posted from it. The
//! threads are those of the view shown, so a rewound page shows the
//! conversation as it stood then. Text is escaped like everything else the
//! page shows, and links stay text: nothing is followed or fetched.

use actix_web::http::StatusCode;
use actix_web::web;
use actix_web::HttpRequest;
use serde_json::{json, Value};

use super::board;
use super::forms::{Entered, Form};
use super::game::render_game;
use super::page::{see_other, split, PageResult};
use super::session::{check_csrf_session, game_id, seat_claims, Kind};
use super::Svc;
use crate::auth::Claims;

/// The form field that carries the press error back to the page.
pub(super) const PRESS_ERROR: &str = "press_error";

/// A channel's name for `me`: "Everyone", or the other seats' names.
fn channel_label(seats: &[u64], names: &[String], me: Option<u8>) -> String {
    if seats.is_empty() {
        return "Everyone".into();
    }
    let others: Vec<String> =
        seats.iter().filter(|s| Some(**s as u8) != me).map(|s| board::seat_name(names, *s as u8)).collect();
    match others.as_slice() {
        [] => "Yourself".into(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The press options of the new-game form (`press.mode`, `press.phases`
/// comma-separated, `press.anonymous`, `press.after_end`), as the API takes
/// them; left out, full press kept private after the end.
pub(super) fn options_of(form: &Form) -> Value {
    let pick = |name: &str, allowed: &[&str], default: &str| {
        let v = form.get(name).unwrap_or(default).trim();
        if allowed.contains(&v) {
            v.to_owned()
        } else {
            default.to_owned()
        }
    };
    let phases: Vec<&str> =
        form.get("press.phases").unwrap_or_default().split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    json!({
        "mode": pick("press.mode", &["none", "public", "full"], "full"),
        "phases": phases,
        "anonymous": form.get("press.anonymous").is_some(),
        "after_end": pick("press.after_end", &["private", "players", "public"], "private"),
    })
}

/// The panel's context: its threads (from the view's `messages`), whether
/// the reader may write and why not, and the seats one may write to.
/// `page` is [`page_facts`] with `at_head`: whether the page shows the head.
pub(super) fn panel(
    view: &Value,
    names: &[String],
    me: Option<u8>,
    page: &Value,
    dots: &[String],
    entered: &Entered,
    open: Option<&str>,
) -> Value {
    let mut threads: Vec<(String, Value, Vec<Value>)> = Vec::new();
    if me.is_some() {
        threads.push(("all".into(), json!([]), Vec::new()));
    }
    for m in view["messages"].as_array().into_iter().flatten() {
        let key = m["channel"].as_str().unwrap_or("all").to_owned();
        let seat = m["from"]["seat"].as_u64();
        let item = json!({
            "seq": m["seq"],
            "at": m["at"],
            "from": m["from"]["name"],
            "dot": seat.and_then(|s| dots.get(s as usize)),
            "text": m["text"],
            "hidden": m["hidden"],
            "mine": m["mine"],
        });
        match threads.iter_mut().find(|(k, _, _)| *k == key) {
            Some((_, _, list)) => list.push(item),
            None => threads.push((key, m["to"].clone(), vec![item])),
        }
    }
    // The table's channel first, then the latest conversation first.
    let last = |list: &[Value]| list.last().and_then(|m| m["seq"].as_u64()).unwrap_or(0);
    threads.sort_by_key(|(k, _, list)| (k != "all", std::cmp::Reverse(last(list))));
    let at_head = page["at_head"].as_bool().unwrap_or(true);
    let write = page["can_write"].as_bool().unwrap_or(false) && at_head;
    let mode = page["mode"].as_str().unwrap_or("full");
    let threads: Vec<Value> = threads
        .into_iter()
        .map(|(key, to, list)| {
            let seats: Vec<u64> = to.as_array().into_iter().flatten().filter_map(Value::as_u64).collect();
            json!({
                "key": key,
                "label": channel_label(&seats, names, me),
                "to": seats.iter().filter(|s| Some(**s as u8) != me).map(|s| s.to_string()).collect::<Vec<_>>().join(","),
                "messages": list,
                "last": last(&list),
                "open": open == Some(key.as_str()),
            })
        })
        .collect();
    let others: Vec<Value> = (0..names.len() as u8)
        .filter(|s| Some(*s) != me)
        .map(|s| json!({ "seat": s, "name": board::seat_name(names, s), "dot": dots.get(s as usize) }))
        .collect();
    json!({
        "threads": threads,
        "write": write,
        "why_not": if at_head { page["why_not"].clone() } else { json!("This is the conversation as it stood at the event shown.") },
        "words": page["press"],
        "start": write && mode == "full",
        "others": others,
        "error": entered.values.get(PRESS_ERROR),
        "text": entered.values.get("text"),
        "channel": entered.values.get("channel"),
        "mail": page["mail"],
    })
}

/// What the panel needs of the game's press beyond the view: the options in
/// words, the mode, whether the reader may write now, whether the seat gets
/// mail of its messages.
pub(super) async fn page_facts(svc: &Svc, game: &str, claims: Option<&Claims>, summary: &Value) -> Value {
    let page = svc.messages(game, claims, None, Some(u64::MAX), Some(1)).await.ok();
    let seat = claims.and_then(|c| c.seat.filter(|_| c.role == crate::auth::Role::Seat));
    let mail = match seat {
        Some(s) => svc.press_mail_on(game, s).await.ok(),
        None => None,
    };
    json!({
        "mail": mail,
        "press": page.as_ref().map(|p| p.press.clone()),
        "can_write": page.as_ref().is_some_and(|p| p.can_write),
        "why_not": page.as_ref().and_then(|p| p.why_not.clone()),
        "mode": summary["press"]["mode"],
    })
}

/// `POST /games/{game}/messages`: a seat's message, to a thread's channel
/// (`to`: the other seats, comma-separated; empty: everyone) or to the
/// seats ticked (`seat`, once per seat).
pub(super) async fn post(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let game = game_id(path)?;
    let claims = seat_claims(&svc, &req, &game).await?;
    check_csrf_session(&req, &form, Kind::Seat, &game)?;
    let mut entered = Entered::of(&form);
    entered.values.remove(PRESS_ERROR);
    let text = form.get("text").unwrap_or_default().to_owned();
    let ticked: Vec<&str> = form.pairs().filter(|(k, _)| *k == "seat").map(|(_, v)| v).collect();
    let to: Result<Option<Vec<u8>>, String> = match (form.get("to"), ticked.as_slice()) {
        (Some(""), _) => Ok(None),
        (Some(list), _) => list
            .split(',')
            .map(|s| s.trim().parse::<u8>().map_err(|_| s.to_owned()))
            .collect::<Result<_, _>>()
            .map(Some),
        (None, []) => Err("tick at least one seat to write to".into()),
        (None, seats) => {
            seats.iter().map(|s| s.parse::<u8>().map_err(|_| (*s).to_owned())).collect::<Result<_, _>>().map(Some)
        }
    }
    .map_err(|bad| {
        if bad.contains("tick") {
            bad
        } else {
            format!("{:?} is not a seat; reload the page", crate::service::shown(&bad))
        }
    });
    let result = match to {
        Ok(to) => {
            let mut body = json!({ "text": text });
            if let Some(to) = to {
                body["to"] = json!(to);
            }
            svc.post_message(&game, &claims, body).await.map_err(split)
        }
        Err(e) => Err((StatusCode::UNPROCESSABLE_ENTITY, e)),
    };
    match result {
        Ok(m) => Ok(see_other(&format!("/games/{game}?thread={}#thread-{}", m.channel, m.channel))),
        Err((status, msg)) => {
            entered.values.insert(PRESS_ERROR.into(), msg);
            render_game(&svc, &req, &game, Some(&claims), None, None, status, None, entered).await
        }
    }
}

/// `POST /games/{game}/messages/mail`: the seat turns the mail of its
/// messages on (`mail=on`) or off.
pub(super) async fn mail(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let game = game_id(path)?;
    let claims = seat_claims(&svc, &req, &game).await?;
    check_csrf_session(&req, &form, Kind::Seat, &game)?;
    let seat = claims.seat.unwrap_or_default();
    let on = form.get("mail") == Some("on");
    match svc.set_press_mail(&game, seat, on).await {
        Ok(()) => Ok(see_other(&format!("/games/{game}#press"))),
        Err(e) => {
            let (status, msg) = split(e);
            let mut entered = Entered::default();
            entered.values.insert(PRESS_ERROR.into(), msg);
            render_game(&svc, &req, &game, Some(&claims), None, None, status, None, entered).await
        }
    }
}
