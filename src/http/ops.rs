//! The operator's routes: health, metrics and the OpenAPI document.

use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse};

use super::{openapi, types, ApiResult, Svc};

/// `{"status": "ok"}`, or `"degraded"` with the reason while free space is
/// below the reserve, the store recovers from a full disk, the store does
/// not answer its probe, or the outbox worker stopped, stalled or keeps
/// failing (still 200: the server serves what it can).
pub(super) async fn healthz(svc: Svc, req: HttpRequest) -> HttpResponse {
    let recovering = svc.store().recovering();
    let level = svc.space();
    let mut storage = types::Storage::default();
    if let Some(level) = &level {
        storage.free_bytes = Some(level.free);
        storage.reserve_bytes = Some(level.reserve);
    }
    let mut details = Vec::new();
    if let Some(why) = &recovering {
        storage.recovering = Some(true);
        details.push(format!(
            "the store refuses writes since a flush failed ({why}); it reopens by itself once the disk has room"
        ));
    }
    if let Some(level) = level.as_ref().filter(|l| l.low()) {
        details.push(level.refusal());
    }
    let probe = req.app_data::<Arc<crate::health::StoreProbe>>();
    let answer_within = req.app_data::<crate::bound::Bound>().map_or(20, |b| b.0.as_secs());
    let store_trouble = probe.and_then(|p| p.trouble(answer_within));
    if let Some(why) = &store_trouble {
        details.push(why.clone());
    }
    let mail = svc.metrics.outbox.problem();
    let status =
        if details.is_empty() && mail.is_none() { types::HealthStatus::Ok } else { types::HealthStatus::Degraded };
    if !details.is_empty() {
        storage.detail = Some(details.join("; "));
    }
    let storage = (level.is_some() || recovering.is_some() || store_trouble.is_some()).then_some(storage);
    HttpResponse::Ok().json(types::Health { status, storage, mail })
}

pub(super) async fn metrics(svc: Svc) -> ApiResult {
    let (outbox, dead) = svc.outbox_depth().await?;
    let recovering = u64::from(svc.store().recovering().is_some());
    svc.metrics.store_recovering.store(recovering, std::sync::atomic::Ordering::Relaxed);
    let (cached, cached_bytes) = svc.cache_size();
    let mut text = svc.metrics.render(cached, outbox, dead);
    text.push_str(&format!(
        "# HELP runestone_games_cached_bytes The folded games' saved size, as counted against storage.cache_bytes.\n\
         # TYPE runestone_games_cached_bytes gauge\nrunestone_games_cached_bytes {cached_bytes}\n"
    ));
    for (name, help, kind, value) in svc.store().figures() {
        text.push_str(&format!(
            "# HELP runestone_store_{name} {help}\n# TYPE runestone_store_{name} {kind}\nrunestone_store_{name} {value}\n"
        ));
    }
    Ok(HttpResponse::Ok().content_type("text/plain; version=0.0.4").body(text))
}

pub(super) async fn openapi_json(svc: Svc) -> HttpResponse {
    HttpResponse::Ok().json(openapi::document(svc.registry()))
}
