//! The host page: the game seen by its host, and the host's forms (roll
//! back, new link, fork, clocks, substitute) with their refusals beside them.

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::web;
use actix_web::HttpRequest;
use runestone_engine::Holder;
use serde_json::{json, Value};

use super::board;
use super::forms::{Entered, Form};
use super::log::log_and_position;
use super::new_game::created_page;
use super::page::{render, see_other, words, PageError, PageResult};
use super::session::{at_of, check_csrf_session, game_id, host_claims, query, session_cookie, Csrf, Kind};
use super::summary::{decisions, game_name, game_of, names_of, outcome_rows, pending_list, when};
use super::Svc;
use crate::auth::Claims;

pub(super) async fn host_page(svc: Svc, req: HttpRequest, path: web::Path<String>) -> PageResult {
    let game = game_id(path)?;
    let at = at_of(&req)?;
    let claims = host_claims(&svc, &req, &game).await?;
    let done = query(&req).get("done").and_then(|d| done_words(d)).map(str::to_owned);
    render_host(&svc, &req, &game, &claims, at, StatusCode::OK, HostNote { done, ..HostNote::default() }).await
}

/// The entries of the log a host can roll back to (the last kept), newest
/// first, the one entered (or the head) chosen; a number entered that is
/// no such entry stays as entered, for the refusal to explain.
pub(super) fn rollback_choices(log: &[Value], entered: Option<&str>, head: Option<u64>) -> Vec<Value> {
    const WORDS: usize = 100;
    let chosen = entered.map(str::trim).map(str::to_owned).or_else(|| head.map(|h| h.to_string()));
    let mut out: Vec<Value> = log
        .iter()
        .rev()
        .filter(|e| e["in_force"] == json!(true) && e["seq"].as_u64().is_some_and(|s| s >= 1))
        .map(|e| {
            let seq = e["seq"].as_u64().unwrap_or(0);
            let text = e["text"].as_str().unwrap_or_default();
            let short: String = if text.chars().count() > WORDS {
                format!("{}…", text.chars().take(WORDS).collect::<String>())
            } else {
                text.to_owned()
            };
            json!({"seq": seq, "words": format!("#{seq} {short}"), "selected": chosen.as_deref() == Some(seq.to_string().as_str())})
        })
        .collect();
    if let Some(c) = chosen.filter(|c| !c.is_empty() && !out.iter().any(|o| o["selected"] == json!(true))) {
        out.insert(0, json!({"seq": c, "words": format!("event {c} (as entered)"), "selected": true}));
    }
    out
}

/// How late a decision due at `due` (RFC 3339) is at `now`, in words
/// ("2 hours 5 minutes"); `None` while it is not yet due.
pub(super) fn late_words(due: &str, now: chrono::DateTime<chrono::Utc>) -> Option<String> {
    let due = chrono::DateTime::parse_from_rfc3339(due).ok()?;
    let late = now.signed_duration_since(due).num_minutes();
    (late >= 1).then(|| crate::service::span_words(late))
}

/// Whether `seat`'s decision `kind`, due at `due`, is in the grace time a
/// missed deadline gave it: the log's latest grace for it runs to `due`.
fn in_grace(events: &[runestone_engine::Envelope], seat: u8, kind: &str, due: &str) -> bool {
    use runestone_engine::{Body, KernelEvent};
    events.iter().rev().any(|e| {
        matches!(&e.body, Body::Kernel { event: KernelEvent::GraceGranted { seat: s, kind: k, until } }
            if *s == seat && k == kind && until == due)
    })
}

/// A decision in its grace time, in words: how long ago its deadline was
/// missed (the grace ends at `due`, `grace_hours` after it).
fn missed_words(due: &str, grace_hours: f64, now: chrono::DateTime<chrono::Utc>) -> Option<String> {
    let due = chrono::DateTime::parse_from_rfc3339(due).ok()?;
    let missed = due - chrono::Duration::minutes((grace_hours * 60.0).round() as i64);
    let late = now.signed_duration_since(missed).num_minutes().max(1);
    Some(format!("{} (missed the deadline; in the grace time)", crate::service::span_words(late)))
}

/// The clocks' deadlines as the host reads them: whose decision, due when
/// (in UTC, which the page's script shows in the browser's zone), and how
/// late it is; the soonest first.
fn due_list(summary: &Value, names: &[String], now: chrono::DateTime<chrono::Utc>) -> Vec<Value> {
    let mut out: Vec<Value> = summary["deadlines"]["due"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| {
                    let key = d["decision"].as_str().unwrap_or_default();
                    let (seat, kind) = key.split_once('/').unwrap_or((key, "decision"));
                    let who = seat.parse::<u8>().map_or_else(|_| seat.to_owned(), |s| board::seat_name(names, s));
                    let due = d["due"].as_str().unwrap_or_default();
                    json!({
                        "who": who,
                        "what": kind.replace('_', " "),
                        "due": due,
                        "due_when": super::summary::due_words(due, None),
                        "late": late_words(due, now),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort_by_key(|d| d["due"].as_str().unwrap_or_default().to_owned());
    out
}

/// The confirmation of a host action that redirected back to the page.
pub(super) fn done_words(done: &str) -> Option<&'static str> {
    Some(match done {
        "rollback" => "Rolled back: the events after the one you chose are voided (struck in the log, never deleted), and everyone sees your reason.",
        "pause" => "The clocks are paused: no deadline runs until you resume them.",
        "resume" => "The clocks run again; every pending deadline moved on by the time they were paused.",
        "extend" => "More time given: the new deadlines are below, and on the players' pages and in their next mail.",
        _ => return None,
    })
}

/// What a host form left to show: an error beside it, or a result.
#[derive(Default)]
pub(super) struct HostNote {
    form: Option<&'static str>,
    error: Option<String>,
    entered: BTreeMap<String, String>,
    new_link: Option<Value>,
    /// The confirmation of an action just taken.
    done: Option<String>,
    /// The host session this response sets (a replaced host link), for
    /// the page's forms to act under.
    session: Option<String>,
    /// A rollback asked for, to confirm: the entry kept, the reason and
    /// the entries it would void.
    confirm: Option<Value>,
}

impl HostNote {
    /// The form `form` was refused with `error`; what was entered stays.
    fn refused(form: &'static str, error: String, entered: BTreeMap<String, String>) -> HostNote {
        HostNote { form: Some(form), error: Some(error), entered, ..HostNote::default() }
    }
}

/// A host form's checks done: its game, the host's claims, what was entered.
pub(super) struct HostForm {
    game: String,
    claims: Claims,
    entered: BTreeMap<String, String>,
}

impl HostForm {
    async fn check(svc: &Svc, req: &HttpRequest, path: web::Path<String>, form: &Form) -> Result<HostForm, PageError> {
        let game = game_id(path)?;
        let claims = host_claims(svc, req, &game).await?;
        check_csrf_session(req, form, Kind::Host, &game)?;
        Ok(HostForm { game, claims, entered: Entered::of(form).values })
    }
}

/// The host page again, with a refused form's error beside it.
pub(super) async fn refused(svc: &Svc, req: &HttpRequest, game: &str, claims: &Claims, note: HostNote) -> PageResult {
    render_host(svc, req, game, claims, None, StatusCode::UNPROCESSABLE_ENTITY, note).await
}

pub(super) async fn render_host(
    svc: &Svc,
    req: &HttpRequest,
    game: &str,
    claims: &Claims,
    at: Option<u64>,
    status: StatusCode,
    note: HostNote,
) -> PageResult {
    let csrf = match &note.session {
        Some(token) => Csrf::under(req, token),
        None => Csrf::for_session(req, Kind::Host, game),
    };
    let summary = svc.summary(game).await?;
    let names = names_of(&summary);
    let (view, log, rewind, envelopes) = log_and_position(svc, game, claims.viewer(), at, &names).await?;
    let choices = rollback_choices(&log, note.entered.get("to_seq").map(String::as_str), summary["head"].as_u64());
    let now = svc.now();
    let policy = crate::service::Policy::parse(&summary["deadlines"]["policy"]).ok().flatten();
    let grace = policy.as_ref().map_or(0.0, |p| p.grace_hours);
    let mut pending = pending_list(&decisions(&summary), &names, None, &summary, None);
    for p in &mut pending {
        let due = p["due"].as_str().unwrap_or_default().to_owned();
        let seat = p["seat"].as_u64().unwrap_or(0) as u8;
        let in_grace =
            p["submitted"] != true && in_grace(&envelopes, seat, p["kind"].as_str().unwrap_or_default(), &due);
        p["late"] = json!(if in_grace { missed_words(&due, grace, now) } else { late_words(&due, now) });
    }
    let due_list = due_list(&summary, &names, now)
        .into_iter()
        .map(|mut d| {
            let late =
                pending.iter().find(|p| p["due"] == d["due"] && p["name"] == d["who"]).map(|p| p["late"].clone());
            if let Some(late) = late.filter(|l| !l.is_null()) {
                d["late"] = late;
            }
            d
        })
        .collect::<Vec<_>>();
    let ctx = json!({
        "dots": board::seat_classes(game_of(svc, &summary), &view["view"], names.len()),
        "game": game,
        "game_name": game_name(svc, &summary),
        "summary": summary,
        "names": names,
        "seat_list": names.iter().enumerate().map(|(i, n)| json!({"seat": i, "name": n})).collect::<Vec<_>>(),
        "pending": pending,
        "due_list": due_list,
        "policy_words": policy.as_ref().map(crate::service::Policy::time_words),
        "confirm": note.confirm,
        "rewind": rewind,
        "log": log,
        "over": summary["status"] == "over",
        "outcome": outcome_rows(&summary, &names, None),
        "note_form": note.form,
        "error": note.error,
        "entered": note.entered,
        "new_link": note.new_link,
        "done": note.done,
        "rollback_choices": choices,
        "created_when": summary["created_at"].as_str().map(when),
    });
    Ok(render(status, "host.html", ctx, Some(&csrf)))
}

pub(super) fn parse_seq(form: &Form, key: &str) -> Result<u64, String> {
    let raw = form.get(key).unwrap_or_default().trim();
    raw.parse::<u64>().map_err(|_| format!("{raw:?} is not an event number; give a whole number from the log"))
}

pub(super) async fn host_rollback(
    svc: Svc,
    req: HttpRequest,
    path: web::Path<String>,
    form: web::Form<Form>,
) -> PageResult {
    let HostForm { game, claims, entered } = HostForm::check(&svc, &req, path, &form).await?;
    let result = match parse_seq(&form, "to_seq") {
        Err(m) => Err(m),
        Ok(to_seq) => {
            let reason = form.get("reason").unwrap_or_default().trim().to_owned();
            if reason.is_empty() {
                Err("say why you roll back: the reason is kept in the log for everyone to read".to_owned())
            } else {
                // Asked first, unless confirmed: what the rollback would
                // void, named (nothing voided: the rollback says why not).
                let summary = svc.summary(&game).await?;
                let names = names_of(&summary);
                let (_, log, _, _) = log_and_position(&svc, &game, claims.viewer(), None, &names).await?;
                let voided: Vec<Value> = log
                    .iter()
                    .filter(|e| e["in_force"] == json!(true) && e["seq"].as_u64().is_some_and(|s| s > to_seq))
                    .map(|e| json!({"seq": e["seq"], "text": e["text"]}))
                    .collect();
                let kept = log.iter().find(|e| e["seq"].as_u64() == Some(to_seq)).map(|e| e["text"].clone());
                if form.get("confirm") != Some("yes") && !voided.is_empty() && kept.is_some() {
                    let confirm = json!({"to_seq": to_seq, "reason": reason, "voided": voided, "kept": kept});
                    let note =
                        HostNote { form: Some("rollback"), entered, confirm: Some(confirm), ..HostNote::default() };
                    return render_host(&svc, &req, &game, &claims, None, StatusCode::OK, note).await;
                }
                svc.rollback(&game, &claims, json!({"to_seq": to_seq, "reason": reason})).await.map_err(words)
            }
        }
    };
    match result {
        Ok(_) => Ok(see_other(&format!("/host/{game}?done=rollback"))),
        Err(error) => refused(&svc, &req, &game, &claims, HostNote::refused("rollback", error, entered)).await,
    }
}

pub(super) async fn host_reissue(
    svc: Svc,
    req: HttpRequest,
    path: web::Path<String>,
    form: web::Form<Form>,
) -> PageResult {
    let HostForm { game, claims, entered } = HostForm::check(&svc, &req, path, &form).await?;
    let raw = form.get("seat").unwrap_or_default().trim().to_owned();
    let result = match raw.parse::<u8>() {
        Err(_) => Err(format!("{raw:?} is not a seat; choose one from the list")),
        Ok(seat) => svc
            .reissue(&game, &claims, seat, form.get("reason").unwrap_or_default().trim().to_owned())
            .await
            .map_err(words),
    };
    match result {
        Ok(mut v) => {
            v["why"] = json!("New link");
            let note = HostNote { form: Some("reissue"), new_link: Some(v), ..HostNote::default() };
            render_host(&svc, &req, &game, &claims, None, StatusCode::OK, note).await
        }
        Err(error) => refused(&svc, &req, &game, &claims, HostNote::refused("reissue", error, entered)).await,
    }
}

/// The host's own new token or the referee's, once the host ticked that
/// the old one stops working. The host's session moves to its new token.
pub(super) async fn host_reissue_role(
    svc: Svc,
    req: HttpRequest,
    path: web::Path<String>,
    form: web::Form<Form>,
) -> PageResult {
    let HostForm { game, claims, entered } = HostForm::check(&svc, &req, path, &form).await?;
    let holder = match form.get("role").unwrap_or_default().trim() {
        "host" => Holder::Host,
        "referee" => Holder::Referee,
        other => {
            let error = format!("{other:?} is not a token the host can reissue; choose the host's or the referee's");
            return refused(&svc, &req, &game, &claims, HostNote::refused("role", error, entered)).await;
        }
    };
    if form.get("confirm") != Some("yes") {
        let error = format!(
            "tick the box to confirm: the old {} token stops working at once, and nothing was changed",
            holder.name()
        );
        return refused(&svc, &req, &game, &claims, HostNote::refused("role", error, entered)).await;
    }
    let reason = form.get("reason").unwrap_or_default().trim().to_owned();
    match svc.reissue_holder(&game, &claims, holder, reason).await.map_err(words) {
        Ok(v) => {
            let token = v["token"].as_str().unwrap_or_default().to_owned();
            let claims = if holder == Holder::Host { svc.authorize(&game, &token).await? } else { claims };
            let session = (holder == Holder::Host).then(|| token.clone());
            let note = HostNote { form: Some("role"), new_link: Some(v), session, ..HostNote::default() };
            let mut res = render_host(&svc, &req, &game, &claims, None, StatusCode::OK, note).await?;
            if holder == Holder::Host {
                let _ = res.add_cookie(&session_cookie(&req, Kind::Host, &game, &token, &claims));
            }
            Ok(res)
        }
        Err(error) => refused(&svc, &req, &game, &claims, HostNote::refused("role", error, entered)).await,
    }
}

pub(super) async fn host_fork(
    svc: Svc,
    req: HttpRequest,
    path: web::Path<String>,
    form: web::Form<Form>,
) -> PageResult {
    let HostForm { game, claims, entered } = HostForm::check(&svc, &req, path, &form).await?;
    let result = match parse_seq(&form, "at_seq") {
        Err(m) => Err(m),
        Ok(at_seq) => svc.fork(&game, &claims, json!({"at_seq": at_seq})).await.map_err(words),
    };
    match result {
        Ok(a) => {
            let new_id = a.body["game_id"].as_str().unwrap_or_default().to_owned();
            created_page(&svc, &req, &a.body, &new_id, Some(&game)).await
        }
        Err(error) => refused(&svc, &req, &game, &claims, HostNote::refused("fork", error, entered)).await,
    }
}

/// The clock request of the host's clock forms.
pub(super) fn clock_request(form: &Form) -> Result<Value, String> {
    let reason = form.get("reason").unwrap_or_default().trim().to_owned();
    match form.get("action").unwrap_or_default() {
        "pause" => Ok(json!({"action": "pause", "reason": reason})),
        "resume" => Ok(json!({"action": "resume"})),
        "extend" => {
            let seat = match form.get("seat").unwrap_or_default().trim() {
                "" | "all" => Value::Null,
                s => json!(s.parse::<u8>().map_err(|_| format!("{s:?} is not a seat; choose one from the list"))?),
            };
            let raw = form.get("hours").unwrap_or_default().trim();
            let hours: i64 = raw.parse().map_err(|_| format!("{raw:?} is not a number of hours"))?;
            Ok(json!({"action": "extend", "seat": seat, "hours": hours, "until": null, "reason": reason}))
        }
        other => Err(format!("{other:?} is not something the clocks can do")),
    }
}

pub(super) async fn host_clock(
    svc: Svc,
    req: HttpRequest,
    path: web::Path<String>,
    form: web::Form<Form>,
) -> PageResult {
    let HostForm { game, claims, entered } = HostForm::check(&svc, &req, path, &form).await?;
    let result = match clock_request(&form) {
        Err(m) => Err(m),
        Ok(r) => svc.clock_action(&game, &claims, r).await.map_err(words),
    };
    match result {
        Ok(_) => {
            let done = match form.get("action").unwrap_or_default() {
                "resume" => "resume",
                "extend" => "extend",
                _ => "pause",
            };
            Ok(see_other(&format!("/host/{game}?done={done}#clocks")))
        }
        Err(error) => {
            let form_name = if form.get("action") == Some("extend") { "extend" } else { "pause" };
            refused(&svc, &req, &game, &claims, HostNote::refused(form_name, error, entered)).await
        }
    }
}

pub(super) async fn host_substitute(
    svc: Svc,
    req: HttpRequest,
    path: web::Path<String>,
    form: web::Form<Form>,
) -> PageResult {
    let HostForm { game, claims, entered } = HostForm::check(&svc, &req, path, &form).await?;
    let raw = form.get("seat").unwrap_or_default().trim().to_owned();
    let name = form.get("name").unwrap_or_default().trim().to_owned();
    let email = form.get("email").map(str::trim).filter(|e| !e.is_empty());
    let result = match raw.parse::<u8>() {
        Err(_) => Err(format!("{raw:?} is not a seat; choose one from the list")),
        Ok(seat) => svc.substitute(&game, &claims, seat, json!({"name": name, "email": email})).await.map_err(words),
    };
    match result {
        Ok(mut v) => {
            v["why"] = json!(format!("{name} takes over; their link"));
            let note = HostNote { form: Some("substitute"), new_link: Some(v), ..HostNote::default() };
            render_host(&svc, &req, &game, &claims, None, StatusCode::OK, note).await
        }
        Err(error) => refused(&svc, &req, &game, &claims, HostNote::refused("substitute", error, entered)).await,
    }
}
