//! The short "how to play here" page of each hosted game.

use actix_web::http::StatusCode;
use actix_web::web;
use serde_json::json;

use super::page::{render, PageError, PageResult};

/// The hosted games that have a short "how to play here" page of ours, at
/// `/rules/{ruleset}`.
pub const RULES_PAGES: &[&str] = &["bardagi", "fallen-kingdoms", "realms", "thingvellir"];

/// A short "how to play here" page for a hosted game.
pub(super) async fn rules_page(path: web::Path<String>) -> PageResult {
    let ruleset = path.into_inner();
    if !RULES_PAGES.contains(&ruleset.as_str()) {
        return Err(PageError::new(
            StatusCode::NOT_FOUND,
            "No such page",
            format!("there is no how-to-play page for {ruleset:?}; there is one for {}", RULES_PAGES.join(", ")),
        ));
    }
    Ok(render(StatusCode::OK, &format!("rules/{ruleset}.html"), json!({}), None))
}
