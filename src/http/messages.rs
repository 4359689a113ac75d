//! Press over the API: write a message, list the conversation (by channel,
//! after a seq, in bounded pages), hide one (host or referee) or report one
//! (a seat). The stream carries each new message as a `message` frame.

use actix_web::web::{self, Payload};
use actix_web::HttpRequest;

use super::answers::{answer, typed};
use super::request::{claims, percent_decode, query_number, read_json, required_claims, whole};
use super::{types, ApiError, ApiResult, Svc};
use crate::service::{shown, Answer};

/// The text of query parameter `name`, if given.
fn query_text(req: &HttpRequest, name: &str) -> Option<String> {
    req.query_string().split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| percent_decode(v))
    })
}

/// The `{seq}` of a message's path.
fn seq_param(raw: &str) -> ApiResult<u64> {
    whole(raw).ok_or_else(|| {
        ApiError::bad_request(format!("a message is named by its seq, a whole number, not {:?}", shown(raw)))
    })
}

pub(super) async fn list(svc: Svc, req: HttpRequest, path: web::Path<String>) -> ApiResult {
    let (since, limit) = (query_number(&req, "since")?, query_number(&req, "limit")?);
    let channel = query_text(&req, "channel");
    let c = claims(&svc, &req, &path).await?;
    let page = svc.messages(&path, c.as_ref(), channel.as_deref(), since, limit).await?;
    Ok(typed::<types::Messages>(serde_json::to_value(page).expect("JSON")))
}

pub(super) async fn post(svc: Svc, req: HttpRequest, path: web::Path<String>, body: Payload) -> ApiResult {
    let c = required_claims(&svc, &req, &path).await?;
    let v = read_json(&req, body).await?;
    let m = svc.post_message(&path, &c, v).await?;
    Ok(answer::<types::Message>(Answer { status: 201, body: serde_json::to_value(m).expect("JSON") }))
}

pub(super) async fn hide(svc: Svc, req: HttpRequest, path: web::Path<(String, String)>, body: Payload) -> ApiResult {
    on_message(svc, req, path, body, true).await
}

pub(super) async fn report(svc: Svc, req: HttpRequest, path: web::Path<(String, String)>, body: Payload) -> ApiResult {
    on_message(svc, req, path, body, false).await
}

/// Hide (the host or the referee) or report (a seat) the message at `{seq}`.
async fn on_message(
    svc: Svc,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    body: Payload,
    hide: bool,
) -> ApiResult {
    let (game, seq) = path.into_inner();
    let c = required_claims(&svc, &req, &game).await?;
    let seq = seq_param(&seq)?;
    let v = read_json(&req, body).await?;
    let m = match hide {
        true => svc.hide_message(&game, &c, seq, v).await?,
        false => svc.report_message(&game, &c, seq, v).await?,
    };
    Ok(typed::<types::Message>(serde_json::to_value(m).expect("JSON")))
}
