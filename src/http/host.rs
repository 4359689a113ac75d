//! The host's actions on a game: roll back, fork, a seat's new link or
//! substitute, the clocks, and the mail that could not be delivered.

use actix_web::http::StatusCode;
use actix_web::web::{self, Payload};
use actix_web::HttpRequest;
use serde_json::{json, Value};

use super::answers::{answer, typed};
use super::request::{read_json, required_claims, seat_param};
use super::{types, ApiError, ApiResult, Svc};
use crate::service::shown;

pub(super) async fn rollback(svc: Svc, req: HttpRequest, path: web::Path<String>, body: Payload) -> ApiResult {
    let c = required_claims(&svc, &req, &path).await?;
    let v = read_json(&req, body).await?;
    Ok(typed::<types::Accepted>(svc.rollback(&path, &c, v).await?))
}

pub(super) async fn fork(svc: Svc, req: HttpRequest, path: web::Path<String>, body: Payload) -> ApiResult {
    let c = required_claims(&svc, &req, &path).await?;
    let v = read_json(&req, body).await?;
    Ok(answer::<crate::service::CreatedGame>(svc.fork(&path, &c, v).await?))
}

pub(super) async fn reissue(svc: Svc, req: HttpRequest, path: web::Path<(String, String)>, body: Payload) -> ApiResult {
    let (game, seat) = path.into_inner();
    let c = required_claims(&svc, &req, &game).await?;
    let seat = seat_param(&svc, &game, &seat).await?;
    let reason = reason_of(&req, body).await?;
    Ok(typed::<types::NewLink>(svc.reissue(&game, &c, seat, reason).await?))
}

/// The host's own new token, or the referee's: the old one revoked.
pub(super) async fn reissue_role(
    svc: Svc,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    body: Payload,
) -> ApiResult {
    let (game, role) = path.into_inner();
    let c = required_claims(&svc, &req, &game).await?;
    let holder = match role.as_str() {
        "host" => runestone_engine::Holder::Host,
        "referee" => runestone_engine::Holder::Referee,
        other => {
            return Err(ApiError::bad_request(format!(
                "there is no role \"{}\" with a token to reissue: it is host or referee",
                shown(other)
            )))
        }
    };
    let reason = reason_of(&req, body).await?;
    Ok(typed::<types::RoleLink>(svc.reissue_holder(&game, &c, holder, reason).await?))
}

/// The optional `{"reason": "..."}` of a new link or token (an empty body
/// gives none).
async fn reason_of(req: &HttpRequest, body: Payload) -> ApiResult<String> {
    Ok(match read_json(req, body).await {
        Ok(Value::Object(o)) => {
            if let Some(k) = o.keys().find(|k| *k != "reason") {
                return Err(ApiError::bad_request(format!(
                    "unknown field \"{}\"; a new link takes only an optional \"reason\"",
                    shown(k)
                )));
            }
            match o.get("reason") {
                None => String::new(),
                Some(Value::String(r)) => r.clone(),
                Some(_) => return Err(ApiError::bad_request("\"reason\" must be text")),
            }
        }
        Ok(_) => return Err(ApiError::bad_request("the body must be a JSON object: {\"reason\": \"...\"}")),
        Err(e) if e.status == StatusCode::BAD_REQUEST && e.detail.contains("empty") => String::new(),
        Err(e) => return Err(e),
    })
}

pub(super) async fn substitute(
    svc: Svc,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    body: Payload,
) -> ApiResult {
    let (game, seat) = path.into_inner();
    let c = required_claims(&svc, &req, &game).await?;
    let seat = seat_param(&svc, &game, &seat).await?;
    let v = read_json(&req, body).await?;
    Ok(typed::<types::NewLink>(svc.substitute(&game, &c, seat, v).await?))
}

pub(super) async fn clock(svc: Svc, req: HttpRequest, path: web::Path<String>, body: Payload) -> ApiResult {
    let c = required_claims(&svc, &req, &path).await?;
    let v = read_json(&req, body).await?;
    Ok(typed::<types::ClockDone>(svc.clock_action(&path, &c, v).await?))
}

pub(super) async fn dead_letters(svc: Svc, req: HttpRequest, path: web::Path<String>) -> ApiResult {
    let c = required_claims(&svc, &req, &path).await?;
    Ok(typed::<types::DeadLetters>(json!({ "dead_letters": svc.dead_letters(&path, &c).await? })))
}

pub(super) async fn retry_dead_letter(svc: Svc, req: HttpRequest, path: web::Path<(String, String)>) -> ApiResult {
    let (game, mail) = path.into_inner();
    let c = required_claims(&svc, &req, &game).await?;
    Ok(typed::<types::Retried>(svc.retry_dead_letter(&game, &c, &mail).await?))
}
