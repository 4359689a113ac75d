//! The game page's notices besides mail: a seat sends its notices to a
//! Discord, Slack or Matrix hook, or any JSON receiver, and to its browser
//! (Web Push: the page's script subscribes, `static/push.js`, and posts the
//! subscription to [`push`]); addresses are shown masked, never whole.

use actix_web::web;
use actix_web::HttpRequest;
use serde_json::{json, Value};

use super::forms::{Entered, Form};
use super::game::render_game;
use super::page::{see_other, split, PageResult};
use super::session::{check_csrf_session, game_id, seat_claims, Kind};
use super::Svc;
use crate::auth::Claims;

/// The form field that carries the notices' error back to the page.
pub(super) const NOTICES_ERROR: &str = "notices_error";

/// What the page shows of a seat's webhook (none for a viewer who is not a seat).
pub(super) async fn facts(svc: &Svc, game: &str, claims: Option<&Claims>, entered: &Entered) -> Value {
    let Some(c) = claims.filter(|c| c.role == crate::auth::Role::Seat) else { return Value::Null };
    let Some(seat) = c.seat else { return Value::Null };
    match svc.notification_settings(game, c, seat).await {
        Ok(n) => json!({
            "webhook": n.webhook, "push": n.push, "push_key": n.push_key,
            "error": entered.values.get(NOTICES_ERROR),
        }),
        Err(_) => Value::Null,
    }
}

/// `POST /games/{game}/notices`: set the seat's webhook (`url`, `shape`),
/// or remove it (`remove`).
pub(super) async fn set(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let game = game_id(path)?;
    let claims = seat_claims(&svc, &req, &game).await?;
    check_csrf_session(&req, &form, Kind::Seat, &game)?;
    let seat = claims.seat.unwrap_or_default();
    let body = if form.get("remove").is_some() {
        json!({ "webhook": null })
    } else {
        json!({ "webhook": { "url": form.get("url").unwrap_or_default(), "shape": form.get("shape").unwrap_or("json") } })
    };
    match svc.set_notification_settings(&game, &claims, seat, body).await {
        Ok(_) => Ok(see_other(&format!("/games/{game}#notices"))),
        Err(e) => {
            let (status, msg) = split(e);
            let mut entered = Entered::default();
            entered.values.insert(NOTICES_ERROR.into(), msg);
            render_game(&svc, &req, &game, Some(&claims), None, None, status, None, entered).await
        }
    }
}

/// `POST /games/{game}/push`: keep the browser subscription the page's
/// script made (`endpoint`, `p256dh`, `auth`), or remove it (`remove`).
pub(super) async fn push(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let game = game_id(path)?;
    let claims = seat_claims(&svc, &req, &game).await?;
    check_csrf_session(&req, &form, Kind::Seat, &game)?;
    let seat = claims.seat.unwrap_or_default();
    let body = if form.get("remove").is_some() {
        json!({ "push": null })
    } else {
        let field = |k: &str| form.get(k).unwrap_or_default();
        json!({ "push": { "endpoint": field("endpoint"), "keys": { "p256dh": field("p256dh"), "auth": field("auth") } } })
    };
    match svc.set_notification_settings(&game, &claims, seat, body).await {
        Ok(_) => Ok(see_other(&format!("/games/{game}#notices"))),
        Err(e) => {
            let (status, msg) = split(e);
            let mut entered = Entered::default();
            entered.values.insert(NOTICES_ERROR.into(), msg);
            render_game(&svc, &req, &game, Some(&claims), None, None, status, None, entered).await
        }
    }
}
