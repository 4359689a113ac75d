//! The pages behind the links in every mail that carry no token: one-click
//! unsubscribe (RFC 8058: a POST with `List-Unsubscribe=One-Click`; the GET
//! only shows a button, so prefetching scanners change nothing) and the mail
//! preferences of one seat, and the host's confirmation of their address,
//! which releases the mail of a game created without the instance key
//! (again a POST behind a button). Links are signed; a forged one is
//! refused.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use serde::Deserialize;

use super::ApiError;
use crate::bound::OffWorker;
use crate::service::Service;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/mail/unsubscribe/{game}/{seat}/{sig}", web::get().to(unsubscribe_page))
        .route("/mail/unsubscribe/{game}/{seat}/{sig}", web::post().to(unsubscribe))
        .route("/mail/preferences/{game}/{seat}/{sig}", web::get().to(preferences_page))
        .route("/mail/preferences/{game}/{seat}/{sig}", web::post().to(save_preferences))
        .route("/mail/confirm/{game}/{sig}", web::get().to(confirm_page))
        .route("/mail/confirm/{game}/{sig}", web::post().to(confirm));
}

type Link = web::Path<(String, u8, String)>;

fn check(svc: &Service, purpose: &str, link: &(String, u8, String)) -> Result<(), ApiError> {
    let (game, seat, sig) = link;
    if svc.keys().check_link_signature(purpose, &format!("{game}/{seat}"), sig) {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "Forged link",
            "this link was not made by this server (or was changed); use the link from your latest email",
        ))
    }
}

pub(super) fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

pub(super) fn page(title: &str, body: &str) -> HttpResponse {
    HttpResponse::Ok().content_type("text/html; charset=utf-8").body(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
         <title>{t}</title></head><body style=\"font-family: Georgia, serif; max-width: 36em; margin: 2em auto; padding: 0 1em\">\
         <h1>{t}</h1>{body}</body></html>",
        t = escape(title)
    ))
}

async fn unsubscribe_page(svc: OffWorker, link: Link) -> Result<HttpResponse, ApiError> {
    check(&svc, "unsubscribe", &link)?;
    let (game, seat, _) = link.as_ref();
    let name = svc.seat_name(game, *seat).await?;
    Ok(page(
        "Stop these emails?",
        &format!(
            "<p>{} will get no more email from this game.</p><form method=\"post\"><button type=\"submit\" name=\"List-Unsubscribe\" value=\"One-Click\">Stop the emails</button></form>",
            escape(&name)
        ),
    ))
}

async fn unsubscribe(svc: OffWorker, link: Link) -> Result<HttpResponse, ApiError> {
    check(&svc, "unsubscribe", &link)?;
    let (game, seat, _) = link.as_ref();
    svc.set_mail_preferences(game, *seat, Some(false), None, None).await?;
    Ok(page(
        "Unsubscribed",
        "<p>No more email will be sent to you from this game. Your seat and its link still work.</p>",
    ))
}

async fn preferences_page(svc: OffWorker, link: Link) -> Result<HttpResponse, ApiError> {
    check(&svc, "preferences", &link)?;
    let (game, seat, _) = link.as_ref();
    let (mail, digest, tz) = svc.mail_preferences(game, *seat).await?;
    Ok(page(
        "Mail preferences",
        &format!(
            "<form method=\"post\"><p><label><input type=\"checkbox\" name=\"mail\" value=\"on\"{}> Email me when it is my move</label></p>\
             <p><label><input type=\"checkbox\" name=\"digest\" value=\"on\"{}> …as one daily digest at 08:00 instead</label></p>\
             <p><label>Time zone <input name=\"tz\" value=\"{}\" placeholder=\"Europe/Oslo\"></label></p><button type=\"submit\">Save</button></form>",
            if mail { " checked" } else { "" },
            if digest { " checked" } else { "" },
            escape(&tz.unwrap_or_default())
        ),
    ))
}

#[derive(Deserialize)]
struct Prefs {
    mail: Option<String>,
    digest: Option<String>,
    tz: Option<String>,
}

async fn save_preferences(svc: OffWorker, link: Link, form: web::Form<Prefs>) -> Result<HttpResponse, ApiError> {
    check(&svc, "preferences", &link)?;
    let (game, seat, _) = link.as_ref();
    let tz = form.tz.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned);
    svc.set_mail_preferences(game, *seat, Some(form.mail.is_some()), Some(form.digest.is_some()), Some(tz)).await?;
    Ok(page("Saved", "<p>Your mail preferences are saved.</p>"))
}

type GameLink = web::Path<(String, String)>;

fn check_confirm(svc: &Service, link: &(String, String)) -> Result<(), ApiError> {
    let (game, sig) = link;
    if svc.keys().check_link_signature("confirm", game, sig) {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "Forged link",
            "this link was not made by this server (or was changed); use the link from the confirmation email",
        ))
    }
}

async fn confirm_page(svc: OffWorker, link: GameLink) -> Result<HttpResponse, ApiError> {
    check_confirm(&svc, &link)?;
    let game = &link.0;
    let summary = svc.summary(game).await?;
    let players: Vec<String> = summary["seats"]
        .as_array()
        .map(|a| a.iter().filter_map(|s| s["name"].as_str().map(escape)).collect())
        .unwrap_or_default();
    Ok(page(
        "Confirm your game?",
        &format!(
            "<p>The game {} was created with your address as its host's. Its players ({}) get no mail from it until you confirm.</p>\
             <form method=\"post\"><button type=\"submit\">I created this game: send its mail</button></form>\
             <p>If you did not create it, close this page: nothing is sent.</p>",
            escape(game),
            players.join(", ")
        ),
    ))
}

async fn confirm(svc: OffWorker, link: GameLink) -> Result<HttpResponse, ApiError> {
    check_confirm(&svc, &link)?;
    let released = svc.confirm_host(&link.0).await?;
    Ok(page(
        "Confirmed",
        &format!(
            "<p>Thank you. The game's mail is sent from now on{}.</p>",
            match released {
                0 => String::new(),
                1 => ", beginning with the one message that waited".to_owned(),
                n => format!(", beginning with the {n} messages that waited"),
            }
        ),
    ))
}
