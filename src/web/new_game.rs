//! The new-game page: the form built from each hosted game's options, its
//! checks, and the page of links a new (or forked) game gives its host.

use std::collections::BTreeMap;

use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::StatusCode;
use actix_web::web;
use actix_web::{HttpRequest, HttpResponse};
use runestone_engine::Viewer;
use serde_json::{json, Value};

use super::board;
use super::forms::{self, Entered, Form};
use super::page::{render, words, PageResult};
use super::session::{check_csrf, cookie_name, is_https, Csrf, Kind};
use super::Svc;

pub(super) fn rulesets(svc: &Svc) -> Vec<Value> {
    let mut list: Vec<Value> = svc
        .registry()
        .all()
        .map(|g| {
            let i = g.info();
            json!({
                "id": i.id,
                "name": i.name,
                "min_seats": i.min_seats,
                "max_seats": i.max_seats,
                "description": i.description,
                "defaults": serde_json::to_string_pretty(&i.default_options).unwrap_or_default(),
                "help": i.options_help,
                "fields": forms::option_fields(&i.id, &g.schemas().options, &i.default_options, &i.options_help, i.max_seats),
            })
        })
        .collect();
    list.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    list
}

/// Seat rows of the new-game form: as many as the largest game seats
/// (the page's script shows the chosen game's maximum).
pub(super) fn seat_rows(list: &[Value]) -> usize {
    list.iter().filter_map(|r| r["max_seats"].as_u64()).max().unwrap_or(6) as usize
}

/// The deadline fields of the new-game form: key, words, default unit (or
/// the words after a plain count).
pub(super) fn deadline_fields() -> Value {
    json!([
        {"key": "plan", "label": "Time to plan", "unit": "days"},
        {"key": "turn", "label": "Time for a turn", "unit": "days"},
        {"key": "small", "label": "Time for a small decision", "unit": "hours"},
        {"key": "reminders", "label": "Reminders before a deadline", "text": true, "words": "hours before, separated by commas (12, 2)"},
        {"key": "grace", "label": "Grace after a missed deadline", "unit": "hours"},
        {"key": "bot_after", "label": "The bot plays for a player after", "words": "missed deadlines in a row, until they are back (0: never)"},
        {"key": "substitute_after", "label": "Alert me after", "words": "missed deadlines in a row"},
        {"key": "forfeit_after", "label": "A player forfeits after", "words": "missed deadlines in a row (0: never)"},
    ])
}

pub(super) async fn host_new(svc: Svc, req: HttpRequest) -> HttpResponse {
    let csrf = Csrf::of(&req);
    let list = rulesets(&svc);
    let mut entered = BTreeMap::new();
    if let Some(first) = list.first() {
        entered.insert("ruleset".to_owned(), first["id"].as_str().unwrap_or_default().to_owned());
    }
    let ctx = json!({
        "rows": (0..seat_rows(&list)).collect::<Vec<_>>(),
        "rulesets": list,
        "deadline_fields": deadline_fields(),
        "entered": entered,
        "errors": {},
    });
    render(StatusCode::OK, "host_new.html", ctx, Some(&csrf))
}

pub(super) async fn host_create(svc: Svc, req: HttpRequest, form: web::Form<Form>) -> PageResult {
    check_csrf(&req, &form)?;
    let csrf = Csrf::of(&req);
    let entered = Entered::of(&form).values;
    let fail = |errors: Value| {
        let ctx = json!({
            "rulesets": rulesets(&svc),
            "rows": (0..seat_rows(&rulesets(&svc))).collect::<Vec<_>>(),
            "entered": entered,
            "posted_form": true,
            "deadline_fields": deadline_fields(),
            "errors": errors,
        });
        Ok(render(StatusCode::UNPROCESSABLE_ENTITY, "host_new.html", ctx, Some(&csrf)))
    };
    let chosen = form.get("ruleset").unwrap_or_default().trim();
    let fields: Vec<Value> = rulesets(&svc)
        .into_iter()
        .find(|r| r["id"] == json!(chosen))
        .and_then(|r| r["fields"].as_array().cloned())
        .unwrap_or_default();
    let request = match forms::create_request(&form, seat_rows(&rulesets(&svc)), &fields) {
        Ok(r) => r,
        Err(errors) => return fail(errors),
    };
    let caller = crate::limits::Caller {
        client: crate::limits::client_of(svc.access(), &req),
        instance_key: form.get("instance_key").map(str::trim).filter(|k| !k.is_empty()).map(str::to_owned),
    };
    match svc.create_by(request, None, &caller).await {
        Ok(a) => {
            let created = a.body;
            let game = created["game_id"].as_str().unwrap_or_default().to_owned();
            created_page(&svc, &req, &created, &game, None).await
        }
        Err(e) => {
            let msg = words(e);
            let key = if msg.starts_with("host") {
                "host"
            } else if msg.starts_with("seat") {
                "seats"
            } else if msg.starts_with("deadline policy") {
                "deadlines"
            } else if msg.contains("option") || msg.contains("rounds") {
                "options"
            } else {
                "form"
            };
            fail(json!({ key: msg }))
        }
    }
}

/// The links of a new (or forked) game, with the host's session set.
pub(super) async fn created_page(
    svc: &Svc,
    req: &HttpRequest,
    created: &Value,
    game: &str,
    forked_from: Option<&str>,
) -> PageResult {
    let csrf = Csrf::of(req);
    let seats = created["seats"].as_array().cloned().unwrap_or_default();
    let base = seats
        .first()
        .and_then(|s| s["link"].as_str())
        .and_then(|l| l.split("/play/").next())
        .unwrap_or_default()
        .to_owned();
    let host_token = created["host_token"].as_str().unwrap_or_default();
    let host_link = format!("{base}/play/{game}?token={host_token}");
    let ruleset = created["ruleset"].as_str().unwrap_or_default();
    let view = svc.view(game, Viewer::Public, None).await?;
    let ctx = json!({
        "dots": board::seat_classes(svc.registry().get(ruleset).map(|g| g.as_ref()), &view["view"], seats.len()),
        "game": game,
        "created": created,
        "seats": seats,
        "host_link": host_link,
        "forked_from": forked_from,
    });
    let mut res = render(StatusCode::CREATED, "host_created.html", ctx, Some(&csrf));
    let _ = res.add_cookie(
        &Cookie::build(cookie_name(Kind::Host, game), host_token.to_owned())
            .path("/")
            .http_only(true)
            .same_site(SameSite::Lax)
            .secure(is_https(req))
            .finish(),
    );
    Ok(res)
}
