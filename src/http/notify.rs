//! Notification settings over the API (a seat's mail, messages, webhook and
//! browser; the game's public channel, set by the host) and the one-click
//! stop link every webhook and push notice carries (a signed link: the GET shows a button, the
//! POST stops, so a link preview changes nothing).

use actix_web::http::StatusCode;
use actix_web::web::{self, Payload};
use actix_web::{HttpRequest, HttpResponse};

use super::answers::typed;
use super::request::{read_json, required_claims, seat_param};
use super::{types, ApiError, ApiResult, Svc};
use crate::service::hooks::Stopped;

pub(super) async fn settings(svc: Svc, req: HttpRequest, path: web::Path<(String, String)>) -> ApiResult {
    let (game, seat) = path.into_inner();
    let c = required_claims(&svc, &req, &game).await?;
    let seat = seat_param(&svc, &game, &seat).await?;
    let n = svc.notification_settings(&game, &c, seat).await?;
    Ok(typed::<types::Notifications>(serde_json::to_value(n).expect("JSON")))
}

pub(super) async fn set_settings(
    svc: Svc,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    body: Payload,
) -> ApiResult {
    let (game, seat) = path.into_inner();
    let c = required_claims(&svc, &req, &game).await?;
    let seat = seat_param(&svc, &game, &seat).await?;
    let v = read_json(&req, body).await?;
    let n = svc.set_notification_settings(&game, &c, seat, v).await?;
    Ok(typed::<types::Notifications>(serde_json::to_value(n).expect("JSON")))
}

pub(super) async fn channel(svc: Svc, req: HttpRequest, path: web::Path<String>) -> ApiResult {
    let c = required_claims(&svc, &req, &path).await?;
    let ch = svc.channel(&path, &c).await?;
    Ok(typed::<types::Channel>(serde_json::to_value(ch).expect("JSON")))
}

pub(super) async fn set_channel(svc: Svc, req: HttpRequest, path: web::Path<String>, body: Payload) -> ApiResult {
    let c = required_claims(&svc, &req, &path).await?;
    let v = read_json(&req, body).await?;
    let ch = svc.set_channel(&path, &c, v).await?;
    Ok(typed::<types::Channel>(serde_json::to_value(ch).expect("JSON")))
}

/// The stop links' pages.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/notify/stop/{game}/{who}/{sig}", web::get().to(stop_page))
        .route("/notify/stop/{game}/{who}/{sig}", web::post().to(stop));
}

type Link = web::Path<(String, String, String)>;

fn checked(svc: &Svc, link: &(String, String, String)) -> Result<Stopped, ApiError> {
    let (game, who, sig) = link;
    Stopped::parse(who).filter(|w| svc.check_stop_link(game, *w, sig)).ok_or_else(|| {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "Forged link",
            "this link was not made by this server (or was changed); use the stop link from your latest notice",
        )
    })
}

fn page(title: &str, body: &str) -> HttpResponse {
    let escape = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    HttpResponse::Ok().content_type("text/html; charset=utf-8").body(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
         <title>{t}</title></head><body style=\"font-family: Georgia, serif; max-width: 36em; margin: 2em auto; padding: 0 1em\">\
         <h1>{t}</h1>{body}</body></html>",
        t = escape(title)
    ))
}

async fn stop_page(svc: Svc, link: Link) -> Result<HttpResponse, ApiError> {
    let who = checked(&svc, &link)?;
    let words = svc.stopped_words(&link.0, who).await?;
    let words = words.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    Ok(page(
        "Stop these notices?",
        &format!(
            "<p>{words} will get no more notices from this game.</p><form method=\"post\"><button type=\"submit\">Stop the notices</button></form>"
        ),
    ))
}

async fn stop(svc: Svc, link: Link) -> Result<HttpResponse, ApiError> {
    let who = checked(&svc, &link)?;
    svc.stop_hook(&link.0, who).await?;
    Ok(page("Stopped", "<p>No more notices go there from this game. Mail, and the game itself, are as they were.</p>"))
}
