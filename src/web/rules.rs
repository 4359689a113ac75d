//! The short "how to play here" page of each hosted game that has one
//! (the game's own [`RulesPage`](runestone_engine::present::RulesPage)),
//! in the pages' frame.

use actix_web::http::StatusCode;
use actix_web::web;
use serde_json::json;

use super::page::{render, PageError, PageResult};
use super::Svc;

/// The game's "how to play here" page at `/rules/{ruleset}`.
pub(super) async fn rules_page(svc: Svc, path: web::Path<String>) -> PageResult {
    let ruleset = path.into_inner();
    match svc.registry().get(&ruleset).and_then(|g| g.rules_page()) {
        Some(page) => Ok(render(StatusCode::OK, "rules.html", json!({"title": page.title, "body": page.body}), None)),
        None => {
            let registry = svc.registry();
            let mut with: Vec<&str> =
                registry.ids().filter(|id| registry.get(id).is_some_and(|g| g.rules_page().is_some())).collect();
            with.sort_unstable();
            Err(PageError::new(
                StatusCode::NOT_FOUND,
                "No such page",
                format!("there is no how-to-play page for {ruleset:?}; there is one for {}", with.join(", ")),
            ))
        }
    }
}
