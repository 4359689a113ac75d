//! The rulesets offered and a game's life as its seats and readers see it:
//! create, summary, view, commands, undo, the event log and its check.

use actix_web::web::{self, Payload};
use actix_web::{HttpRequest, HttpResponse};
use serde_json::{json, Value};

use super::answers::{answer, typed, written};
use super::request::{caller, claims, idempotency_key, query_number, read_json, required_claims, viewer};
use super::{types, ApiError, ApiResult, Svc};

pub(super) async fn rulesets(svc: Svc) -> HttpResponse {
    let list: Vec<Value> = svc.registry().all().map(|g| serde_json::to_value(g.info()).expect("JSON")).collect();
    typed::<types::Rulesets>(json!({ "rulesets": list }))
}

/// One ruleset's info and its published contracts: the JSON Schemas of its
/// options, commands, events and views.
pub(super) async fn ruleset(svc: Svc, path: web::Path<String>) -> ApiResult {
    let id = path.into_inner();
    let Some(g) = svc.registry().get(&id) else {
        let offered: Vec<&str> = svc.registry().ids().collect();
        return Err(ApiError::not_found(format!(
            "no ruleset {id:?} on this server; it offers: {}",
            offered.join(", ")
        )));
    };
    let mut info = serde_json::to_value(g.info()).expect("JSON");
    info["fixture"] = json!(g.fixture());
    info["schemas"] = serde_json::to_value(g.schemas()).expect("JSON");
    Ok(typed::<types::RulesetContracts>(info))
}

pub(super) async fn create_game(svc: Svc, req: HttpRequest, body: Payload) -> ApiResult {
    let key = idempotency_key(&req)?;
    let caller = caller(&svc, &req)?;
    let v = read_json(&req, body).await?;
    Ok(answer::<crate::service::CreatedGame>(svc.create_by(v, key.as_deref(), &caller).await?))
}

pub(super) async fn game_summary(svc: Svc, path: web::Path<String>) -> ApiResult {
    Ok(typed::<types::Summary>(svc.summary(&path).await?))
}

pub(super) async fn view(svc: Svc, req: HttpRequest, path: web::Path<String>) -> ApiResult {
    let at = query_number(&req, "at")?;
    let c = claims(&svc, &req, &path).await?;
    Ok(written::<types::View>(200, svc.view_answer(&path, viewer(&c), at).await?))
}

pub(super) async fn submit(svc: Svc, req: HttpRequest, path: web::Path<String>, body: Payload) -> ApiResult {
    let key = idempotency_key(&req)?;
    let c = required_claims(&svc, &req, &path).await?;
    let v = read_json(&req, body).await?;
    let w = svc.submit_written(&path, &c, v, key.as_deref()).await?;
    Ok(written::<types::Accepted>(w.status, w.text))
}

pub(super) async fn undo(svc: Svc, req: HttpRequest, path: web::Path<String>) -> ApiResult {
    let c = required_claims(&svc, &req, &path).await?;
    Ok(typed::<types::Accepted>(svc.undo(&path, &c).await?))
}

pub(super) async fn events(svc: Svc, req: HttpRequest, path: web::Path<String>) -> ApiResult {
    let (from, to) = (query_number(&req, "from")?, query_number(&req, "to")?);
    let c = claims(&svc, &req, &path).await?;
    let list = svc.events(&path, viewer(&c), from.unwrap_or(0), to).await?;
    Ok(typed::<types::Events>(json!({ "events": list })))
}

pub(super) async fn verify(svc: Svc, path: web::Path<String>) -> ApiResult {
    Ok(typed::<types::Verify>(svc.verify(&path).await?))
}
