//! The player and host web pages, server-rendered with minijinja over the
//! same [`Service`](crate::service::Service) the REST API uses (in process,
//! never over HTTP).
//!
//! Sessions: a magic link's landing page (`GET /play/{game}?token=…`) only
//! shows what the link is for; its button POSTs the token back, which sets
//! a session cookie named after the game and the role (`rs_seat_{game}` or
//! `rs_host_{game}`) holding the token itself. Every request checks that
//! token again with [`Service::authorize`](crate::service::Service::authorize)
//! (signature, expiry, game and the seat's generation), so a cookie can only
//! ever act as the seat and game its token names, and a revoked link's
//! session ends at once.
//!
//! CSRF: every form carries, in a hidden field, a signature of a random
//! `rs_csrf` cookie and of the session the form acts under (signed double
//! submit); a POST whose field is not that signature for the browser's own
//! cookie and session is refused with a page that says so. A planted
//! cookie is useless without the server's key and the player's session.
//!
//! Where to read: [`page`] renders and answers errors, [`session`] holds the
//! CSRF and session checks, then one module per page: [`landing`], [`game`]
//! (with [`log`] and [`summary`]), [`new_game`], [`host`], [`rules`].

mod assets;
pub mod board;
mod forms;
mod game;
mod host;
mod landing;
mod log;
mod new_game;
mod notices;
mod page;
mod press;
mod rules;
mod session;
mod summary;

use actix_web::http::StatusCode;
use actix_web::web;
use actix_web::{HttpRequest, HttpResponse};
use serde_json::json;

use page::{render, PageError};
use session::Csrf;

/// The service, each call that may wait on the store made off the worker.
type Svc = crate::bound::OffWorker;

/// Mount the pages (call from the App builder).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.app_data(web::FormConfig::default().limit(256 * 1024).error_handler(|e, _| {
        PageError::new(StatusCode::BAD_REQUEST, "The form could not be read", e.to_string()).into()
    }))
    .service(web::resource("/").route(web::get().to(home)))
    .service(web::resource("/rules/{ruleset}").route(web::get().to(rules::rules_page)))
    .service(web::resource("/static/web.css").route(web::get().to(assets::css)))
    .service(web::resource("/static/web.js").route(web::get().to(assets::js)))
    .service(web::resource("/static/push.js").route(web::get().to(assets::push_js)))
    .service(web::resource("/static/push-sw.js").route(web::get().to(assets::push_worker)))
    .service(
        web::resource("/play/{game}")
            .route(web::get().to(landing::landing))
            .route(web::post().to(landing::landing_post)),
    )
    .service(web::resource("/games/{game}").route(web::get().to(game::game_page)))
    .service(web::resource("/games/{game}/data").route(web::get().to(game::data_page)))
    .service(web::resource("/games/{game}/commands").route(web::post().to(game::command)))
    .service(web::resource("/games/{game}/undo").route(web::post().to(game::undo)))
    .service(web::resource("/games/{game}/back").route(web::post().to(game::back)))
    .service(web::resource("/games/{game}/messages").route(web::post().to(press::post)))
    .service(web::resource("/games/{game}/messages/mail").route(web::post().to(press::mail)))
    .service(web::resource("/games/{game}/notices").route(web::post().to(notices::set)))
    .service(web::resource("/games/{game}/push").route(web::post().to(notices::push)))
    .service(
        web::resource("/host/new")
            .route(web::get().to(new_game::host_new))
            .route(web::post().to(new_game::host_create)),
    )
    .service(web::resource("/host/{game}").route(web::get().to(host::host_page)))
    .service(web::resource("/host/{game}/rollback").route(web::post().to(host::host_rollback)))
    .service(web::resource("/host/{game}/reissue").route(web::post().to(host::host_reissue)))
    .service(web::resource("/host/{game}/reissue-role").route(web::post().to(host::host_reissue_role)))
    .service(web::resource("/host/{game}/fork").route(web::post().to(host::host_fork)))
    .service(web::resource("/host/{game}/clock").route(web::post().to(host::host_clock)))
    .service(web::resource("/host/{game}/substitute").route(web::post().to(host::host_substitute)));
}

/// The front page.
async fn home(req: HttpRequest) -> HttpResponse {
    let csrf = Csrf::of(&req);
    render(StatusCode::OK, "home.html", json!({}), Some(&csrf))
}
