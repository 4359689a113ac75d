//! The pages' stylesheet (with each hosted game's own appended) and script.

use actix_web::http::header;
use actix_web::HttpResponse;

use super::Svc;

pub(super) const CSS: &str = include_str!("../../static/web.css");
pub(super) const JS: &str = include_str!("../../static/web.js");

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
