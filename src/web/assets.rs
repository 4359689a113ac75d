//! The pages' stylesheet (with each hosted game's own appended) and
//! scripts, and the service worker of notices in the browser.

use actix_web::http::header;
use actix_web::HttpResponse;

use super::Svc;

pub(super) const CSS: &str = include_str!("../../static/web.css");
pub(super) const JS: &str = include_str!("../../static/web.js");
const PUSH_JS: &str = include_str!("../../static/push.js");
const PUSH_WORKER: &str = include_str!("../../static/push-sw.js");

/// The pages' stylesheet, then each hosted game's own.
pub(super) async fn css(svc: Svc) -> HttpResponse {
    let mut body = String::from(CSS);
    for g in svc.registry().all() {
        body.push_str(g.stylesheet());
    }
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .body(body)
}

pub(super) async fn js() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .body(JS)
}

/// The game page's script that subscribes the browser to push notices.
pub(super) async fn push_js() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .body(PUSH_JS)
}

/// The service worker that shows push notices. Registered for the game
/// pages' scope (which lies outside its own folder, so the header allows
/// it); fetched afresh each time the browser checks it for updates; under a
/// policy that lets it load and reach nothing.
pub(super) async fn push_worker() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header(("Service-Worker-Allowed", "/games/"))
        .insert_header((header::CONTENT_SECURITY_POLICY, "default-src 'none'"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .body(PUSH_WORKER)
}
