//! The REST API (v1) of DESIGN.md §5, over [`Service`].
//!
//! [`routes`] is the single list of what is served: it registers the
//! handlers and is what the OpenAPI document is checked against.
//!
//! Where to read: [`server`] builds the app; [`request`] reads what a
//! request carries and [`answers`] serves what the service answers as its
//! documented type; the handlers are [`games`] (a game's life), [`host`]
//! (the host's actions), [`stream`] (server-sent events) and [`ops`]
//! (health, metrics, the document).

mod answers;
mod error;
mod games;
mod head;
mod host;
mod inbound;
pub mod limits;
mod mail;
mod messages;
mod notify;
pub mod openapi;
mod ops;
mod request;
mod server;
mod stream;
pub mod types;

use std::collections::BTreeMap;

use actix_web::http::header::HeaderValue;
use actix_web::http::{Method, StatusCode};
use actix_web::web;
use actix_web::{HttpRequest, Route};

pub use crate::problem::ApiError;
pub(crate) use answers::through;
pub use answers::{answered, contract_violations, record_answers, record_answers_to, RECORD_ENV};
pub use request::client_of;
pub use server::{serve, Serving};

use crate::service::shown;
use games::{create_game, events, game_summary, ruleset, rulesets, submit, undo, verify, view};
use host::{clock, dead_letters, fork, reissue, reissue_role, retry_dead_letter, rollback, substitute};
use ops::{healthz, metrics, openapi_json};
use stream::stream;

/// The service, each call that may wait on the store made off the worker.
type Svc = crate::bound::OffWorker;
type ApiResult<T = actix_web::HttpResponse> = Result<T, ApiError>;

/// The largest body accepted, set per app.
#[derive(Clone, Copy)]
pub struct BodyLimit(pub usize);

/// Every route served: method, path (OpenAPI syntax) and handler.
pub fn routes() -> Vec<(Method, &'static str, Route)> {
    vec![
        (Method::GET, "/healthz", web::get().to(healthz)),
        (Method::GET, "/metrics", web::get().to(metrics)),
        (Method::GET, "/openapi.json", web::get().to(openapi_json)),
        (Method::GET, "/api/v1/rulesets", web::get().to(rulesets)),
        (Method::GET, "/api/v1/rulesets/{ruleset}", web::get().to(ruleset)),
        (Method::POST, "/api/v1/games", web::post().to(create_game)),
        (Method::GET, "/api/v1/games/{id}", web::get().to(game_summary)),
        (Method::GET, "/api/v1/games/{id}/view", web::get().to(view)),
        (Method::POST, "/api/v1/games/{id}/commands", web::post().to(submit)),
        (Method::POST, "/api/v1/games/{id}/undo", web::post().to(undo)),
        (Method::GET, "/api/v1/games/{id}/events", web::get().to(events)),
        (Method::GET, "/api/v1/games/{id}/stream", web::get().to(stream)),
        (Method::GET, "/api/v1/games/{id}/messages", web::get().to(messages::list)),
        (Method::POST, "/api/v1/games/{id}/messages", web::post().to(messages::post)),
        (Method::POST, "/api/v1/games/{id}/messages/{seq}/hide", web::post().to(messages::hide)),
        (Method::POST, "/api/v1/games/{id}/messages/{seq}/report", web::post().to(messages::report)),
        (Method::POST, "/api/v1/games/{id}/rollback", web::post().to(rollback)),
        (Method::POST, "/api/v1/games/{id}/fork", web::post().to(fork)),
        (Method::GET, "/api/v1/games/{id}/verify", web::get().to(verify)),
        (Method::POST, "/api/v1/games/{id}/seats/{seat}/token", web::post().to(reissue)),
        (Method::POST, "/api/v1/games/{id}/seats/{seat}/substitute", web::post().to(substitute)),
        (Method::POST, "/api/v1/games/{id}/roles/{role}/token", web::post().to(reissue_role)),
        (Method::POST, "/api/v1/games/{id}/clock", web::post().to(clock)),
        (Method::GET, "/api/v1/games/{id}/seats/{seat}/notifications", web::get().to(notify::settings)),
        (Method::PUT, "/api/v1/games/{id}/seats/{seat}/notifications", web::put().to(notify::set_settings)),
        (Method::GET, "/api/v1/games/{id}/channel", web::get().to(notify::channel)),
        (Method::PUT, "/api/v1/games/{id}/channel", web::put().to(notify::set_channel)),
        (Method::GET, "/api/v1/games/{id}/dead-letters", web::get().to(dead_letters)),
        (Method::POST, "/api/v1/games/{id}/dead-letters/{mail}/retry", web::post().to(retry_dead_letter)),
        (Method::POST, "/api/v1/inbound/mail", web::post().to(inbound::receive)),
    ]
}

/// Register every route, one resource per path, with problem+json answers
/// for unknown paths and methods.
pub fn configure(cfg: &mut web::ServiceConfig) {
    let mut by_path: BTreeMap<&'static str, Vec<(Method, Route)>> = BTreeMap::new();
    for (m, p, r) in routes() {
        by_path.entry(p).or_default().push((m, r));
    }
    for (path, rs) in by_path {
        let allowed: Vec<String> = rs.iter().map(|(m, _)| m.to_string()).collect();
        let mut res = web::resource(path);
        for (_, r) in rs {
            res = res.route(r);
        }
        let allowed = allowed.join(", ");
        res = res.default_service(web::to(move |req: HttpRequest| {
            let allowed = allowed.clone();
            async move {
                use actix_web::ResponseError as _;
                let mut r = ApiError::new(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "Method not allowed",
                    format!("{} is not served at {}; allowed: {allowed}", req.method(), shown(req.path())),
                )
                .error_response();
                if let Ok(v) = HeaderValue::from_str(&allowed) {
                    r.headers_mut().insert(actix_web::http::header::ALLOW, v);
                }
                r
            }
        }));
        cfg.service(res);
    }
}

async fn not_found(req: HttpRequest) -> ApiResult {
    Err(ApiError::not_found(format!("no route {} {}; see /openapi.json", req.method(), shown(req.path()))))
}
