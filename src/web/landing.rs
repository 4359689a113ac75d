//! A magic link's landing page: what the link is for, and the button that
//! turns its token into this browser's session.

use actix_web::http::StatusCode;
use actix_web::web;
use actix_web::HttpRequest;
use runestone_engine::Viewer;
use serde_json::json;

use super::board;
use super::forms::Form;
use super::page::{render, see_other, PageError, PageResult};
use super::session::{check_csrf, game_id, query, session, session_cookie, Csrf, Kind};
use super::summary::{decisions, game_name, game_of, names_of, pending_list};
use super::Svc;
use crate::auth::Role;

pub(super) async fn landing(svc: Svc, req: HttpRequest, path: web::Path<String>) -> PageResult {
    let game = game_id(path)?;
    let csrf = Csrf::of(&req);
    let Some(token) = query(&req).get("token").cloned() else {
        return Err(PageError::new(
            StatusCode::BAD_REQUEST,
            "This link is incomplete",
            "A game link carries a token after ?token=; copy the whole link from your email.",
        ));
    };
    let claims = svc.authorize(&game, &token).await?;
    // A browser that already holds this seat (or the host's page) goes
    // straight to its page: the landing page is for a browser that does
    // not, and only its POST ever starts a session.
    if let Some((kind, to)) = destination(claims.role, &game) {
        if let (Some(held), _) = session(&svc, &req, kind, &game).await {
            if held.seat == claims.seat {
                return Ok(see_other(&to));
            }
        }
    }
    let summary = svc.summary(&game).await?;
    let names = names_of(&summary);
    let who = match (claims.role, claims.seat) {
        (Role::Seat, Some(s)) => format!("seat {s}, {}", board::seat_name(&names, s)),
        (Role::Host, _) => "the host".to_owned(),
        (Role::Referee, _) => "the referee".to_owned(),
        (Role::Seat, None) => "an unknown seat".to_owned(),
    };
    let view = svc.view(&game, Viewer::Public, None).await?;
    let ctx = json!({
        "dots": board::seat_classes(game_of(&svc, &summary), &view["view"], names.len()),
        "game": game,
        "token": token,
        "who": who,
        "game_name": game_name(&svc, &summary),
        "how_to_play": game_of(&svc, &summary).filter(|g| g.rules_page().is_some()).and(summary["ruleset"].as_str()),
        "role": claims.role,
        "summary": summary,
        "pending": pending_list(&decisions(&summary), &names, claims.seat, &summary, None),
    });
    Ok(render(StatusCode::OK, "landing.html", ctx, Some(&csrf)))
}

pub(super) async fn landing_post(
    svc: Svc,
    req: HttpRequest,
    path: web::Path<String>,
    form: web::Form<Form>,
) -> PageResult {
    let game = game_id(path)?;
    check_csrf(&req, &form)?;
    let token = form.get("token").unwrap_or_default().trim().to_owned();
    let claims = svc.authorize(&game, &token).await?;
    let Some((kind, to)) = destination(claims.role, &game) else {
        return Err(PageError::new(
            StatusCode::FORBIDDEN,
            "Referee links are for the API",
            "The web pages serve seats and the host; a referee uses the REST API with this token.",
        ));
    };
    let mut res = see_other(&to);
    let _ = res.add_cookie(&session_cookie(&req, kind, &game, &token, &claims));
    Ok(res)
}

/// The session a link of `role` opens and the page it leads to (none for a
/// referee, who uses the API).
fn destination(role: Role, game: &str) -> Option<(Kind, String)> {
    match role {
        Role::Seat => Some((Kind::Seat, format!("/games/{game}"))),
        Role::Host => Some((Kind::Host, format!("/host/{game}"))),
        Role::Referee => None,
    }
}
