//! The REST API (v1) of DESIGN.md §5, over [`Service`].
//!
//! [`routes`] is the single list of what is served: it registers the
//! handlers and is what the OpenAPI document is checked against.

mod error;
mod head;
pub mod openapi;
pub mod types;

use std::collections::{BTreeMap, VecDeque};
use std::net::TcpListener;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Service as _;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::web::{self, Bytes, Data, Payload};
use actix_web::{App, HttpRequest, HttpResponse, Route};
use futures_util::StreamExt;
use runestone_engine::{Envelope, Viewer};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;
use tracing::Instrument;

pub use error::ApiError;

use crate::auth::Claims;
use crate::metrics::Metrics;
use crate::service::{shown, Answer, Service};

type Svc = Data<Service>;
type ApiResult<T = HttpResponse> = Result<T, ApiError>;

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
        (Method::POST, "/api/v1/games/{id}/rollback", web::post().to(rollback)),
        (Method::POST, "/api/v1/games/{id}/fork", web::post().to(fork)),
        (Method::GET, "/api/v1/games/{id}/verify", web::get().to(verify)),
        (Method::POST, "/api/v1/games/{id}/seats/{seat}/token", web::post().to(reissue)),
        (Method::POST, "/api/v1/games/{id}/seats/{seat}/substitute", web::post().to(substitute)),
        (Method::POST, "/api/v1/games/{id}/clock", web::post().to(clock)),
        (Method::GET, "/api/v1/games/{id}/dead-letters", web::get().to(dead_letters)),
        (Method::POST, "/api/v1/games/{id}/dead-letters/{mail}/retry", web::post().to(retry_dead_letter)),
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

static REQUEST_IDS: AtomicU64 = AtomicU64::new(0);

/// Start serving on `listener` (bind port 0 in tests and read it back).
pub fn serve(
    listener: TcpListener,
    service: Arc<Service>,
    limit: usize,
    workers: usize,
) -> std::io::Result<actix_web::dev::Server> {
    let data = Data::from(service);
    let prefix = hex::encode(crate::random_bytes::<3>());
    let app = move || {
        let prefix = prefix.clone();
        App::new()
            .app_data(data.clone())
            .app_data(BodyLimit(limit))
            .app_data(web::QueryConfig::default().error_handler(|_, _| {
                ApiError::bad_request("the query string is not valid: see /openapi.json for this route's parameters")
                    .into()
            }))
            .app_data(web::PathConfig::default().error_handler(|_, _| {
                ApiError::bad_request("the path is not valid: see /openapi.json for the routes served").into()
            }))
            .configure(configure)
            .configure(crate::mail::pages::configure)
            .configure(crate::web::configure)
            .default_service(web::to(not_found))
            .wrap_fn(move |req, srv| {
                let id = format!("{prefix}-{}", REQUEST_IDS.fetch_add(1, Ordering::Relaxed));
                let span = tracing::info_span!("request", id = %id, method = %req.method(), path = %req.path());
                let svc = req.app_data::<Svc>().cloned();
                let route = RECORDING
                    .load(Ordering::Relaxed)
                    .then(|| req.match_pattern().map(|p| (req.method().to_string(), p)))
                    .flatten();
                let fut = srv.call(req);
                async move {
                    let mut res = fut.await?;
                    if let Ok(v) = HeaderValue::from_str(&id) {
                        res.headers_mut().insert(HeaderName::from_static("x-request-id"), v);
                    }
                    let status = res.status();
                    if let Some((method, pattern)) = route {
                        if routes().iter().any(|(m, p, _)| m.as_str() == method && *p == pattern) {
                            note_answer(method, pattern, status.as_u16());
                        }
                    }
                    if let Some(svc) = svc {
                        Metrics::inc(&svc.metrics.http_requests);
                        if status.is_client_error() {
                            Metrics::inc(&svc.metrics.http_client_errors);
                        } else if status.is_server_error() {
                            Metrics::inc(&svc.metrics.http_server_errors);
                        }
                    }
                    tracing::info!(status = status.as_u16(), "answered");
                    Ok(res)
                }
                .instrument(span)
            })
    };
    // As `HttpServer::listen` builds it, but each connection wrapped in a
    // `HeadGuard`, so that the answers actix-http gives by itself to heads
    // it cannot read are problem+json too.
    use actix_service::{IntoServiceFactory as _, ServiceFactoryExt as _};
    let addr = listener.local_addr()?;
    let mut builder = actix_web::dev::Server::build().shutdown_timeout(5);
    if workers > 0 {
        builder = builder.workers(workers);
    }
    let shutdown = builder.graceful_shutdown_signal();
    let builder = builder.listen("runestone-http", listener, move || {
        let shutdown = shutdown.clone();
        let http = actix_http::HttpService::build()
            .graceful_shutdown_signal(move || {
                let signal = shutdown.clone();
                async move { signal.notified().await }
            })
            .keep_alive(actix_http::KeepAlive::default())
            .client_request_timeout(Duration::from_secs(5))
            .client_disconnect_timeout(Duration::from_secs(1))
            .h1_allow_half_closed(true)
            .local_addr(addr)
            .finish(actix_service::map_config(
                app().into_factory().map_err(|e: actix_web::Error| e.as_response_error().error_response()),
                |_| actix_web::dev::AppConfig::default(),
            ));
        actix_web::dev::fn_service(|io: actix_web::rt::net::TcpStream| async move {
            let peer = io.peer_addr().ok();
            Ok((head::HeadGuard::new(io), actix_http::Protocol::Http1, peer))
        })
        .and_then(http)
    })?;
    Ok(builder.run())
}

/// Read a JSON body of at most the configured size.
async fn read_json(req: &HttpRequest, mut payload: Payload) -> ApiResult<Value> {
    let limit = req.app_data::<BodyLimit>().map_or(65_536, |l| l.0);
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "Payload too large",
            format!("the body is over the limit of {limit} bytes"),
        )
    };
    if let Some(len) = req.headers().get("content-length").and_then(|v| v.to_str().ok()?.parse::<usize>().ok()) {
        if len > limit {
            return Err(too_large());
        }
    }
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| ApiError::bad_request("the body could not be read to its end"))?;
        if body.len() + chunk.len() > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    if body.is_empty() {
        return Err(ApiError::bad_request("the body is empty; send a JSON object"));
    }
    let json_type = req.headers().get("content-type").and_then(|v| v.to_str().ok()).is_some_and(|t| {
        let t = t.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
        t == "application/json" || (t.starts_with("application/") && t.ends_with("+json"))
    });
    if !json_type {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported media type",
            "send the body as JSON with `Content-Type: application/json`",
        ));
    }
    serde_json::from_slice(&body).map(integral).map_err(|e| {
        let what = match e.classify() {
            serde_json::error::Category::Eof => "it ends too early",
            serde_json::error::Category::Syntax => "a character is out of place",
            serde_json::error::Category::Data | serde_json::error::Category::Io => "it cannot be read",
        };
        ApiError::bad_request(format!("the body is not valid JSON: {what} (line {}, column {})", e.line(), e.column()))
    })
}

/// A number with no fraction written as `97.0` is the integer 97 (as JSON
/// Schema counts it), wherever it is in a body.
fn integral(v: Value) -> Value {
    match v {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => {
                if f < 0.0 {
                    json!(f as i64)
                } else {
                    json!(f as u64)
                }
            }
            _ => Value::Number(n),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(integral).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, integral(v))).collect()),
        other => other,
    }
}

/// The bearer token, from `Authorization: Bearer`, or for the stream only
/// (whose browser client cannot set headers) from `?token=`. Anywhere else a
/// token in the query is refused: it would end up in URLs and access logs.
fn bearer(req: &HttpRequest, query_allowed: bool) -> ApiResult<Option<String>> {
    let in_query = query_token(req);
    if in_query.is_some() && !query_allowed {
        return Err(ApiError::bad_request(
            "a token is accepted in the query (`?token=`) only on the event stream; \
             send it as `Authorization: Bearer <token>`",
        ));
    }
    if let Some(h) = req.headers().get("authorization") {
        let h = h.to_str().map_err(|_| ApiError::unauthorized("the Authorization header is not text"))?;
        return match h.strip_prefix("Bearer ").or_else(|| h.strip_prefix("bearer ")) {
            Some(t) if !t.trim().is_empty() => Ok(Some(t.trim().to_owned())),
            _ => Err(ApiError::unauthorized("the Authorization header must be `Bearer <token>`")),
        };
    }
    Ok(in_query)
}

/// `token` from the query string, if there is one.
fn query_token(req: &HttpRequest) -> Option<String> {
    req.query_string().split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == "token").then(|| percent_decode(v))
    })
}

/// Decode `%XX` escapes and `+` of a query value (tokens are base64url and
/// dots, so this is only for clients that escape anyway).
fn percent_decode(v: &str) -> String {
    let b = v.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => {
                match u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("zz"), 16) {
                    Ok(x) => {
                        out.push(x);
                        i += 3;
                        continue;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

async fn claims(svc: &Service, req: &HttpRequest, game: &str) -> ApiResult<Option<Claims>> {
    match bearer(req, false)? {
        None => Ok(None),
        Some(t) => Ok(Some(svc.authorize(game, &t).await?)),
    }
}

async fn required_claims(svc: &Service, req: &HttpRequest, game: &str) -> ApiResult<Claims> {
    claims(svc, req, game)
        .await?
        .ok_or_else(|| ApiError::unauthorized("this needs a token: send `Authorization: Bearer <token>`"))
}

fn viewer(c: &Option<Claims>) -> Viewer {
    c.as_ref().map_or(Viewer::Public, Claims::viewer)
}

fn idempotency_key(req: &HttpRequest) -> ApiResult<Option<String>> {
    match req.headers().get("idempotency-key") {
        None => Ok(None),
        Some(v) => {
            let k = v.to_str().map_err(|_| ApiError::bad_request("Idempotency-Key must be printable text"))?;
            if k.is_empty() || k.len() > 200 {
                return Err(ApiError::bad_request("Idempotency-Key must be 1 to 200 characters"));
            }
            Ok(Some(k.to_owned()))
        }
    }
}

/// A service answer served as `T`; a created game (201) with its `Location`.
fn answer<T: Serialize + DeserializeOwned>(a: Answer) -> HttpResponse {
    let status = StatusCode::from_u16(a.status).unwrap_or(StatusCode::OK);
    let mut r = HttpResponse::build(status);
    if a.status == 201 {
        if let Some(id) = a.body.get("game_id").and_then(Value::as_str) {
            r.insert_header(("location", format!("/api/v1/games/{id}")));
        }
    }
    match through::<T>(a.body) {
        Ok(t) => r.json(t),
        Err(v) => r.json(v),
    }
}

/// An answer built as JSON by the service, served as the documented type
/// `T` serializes it.
fn typed<T: Serialize + DeserializeOwned>(v: Value) -> HttpResponse {
    match through::<T>(v) {
        Ok(t) => HttpResponse::Ok().json(t),
        Err(v) => HttpResponse::Ok().json(v),
    }
}

/// `v` read as the documented type `T`. Should it not fit (a field the
/// type lacks), it is served as it is rather than lost (a command may be
/// recorded already), logged, and counted as a contract violation that the
/// tests refuse ([`contract_violations`]); while recording, an answer that
/// the type would change is counted too.
pub(crate) fn through<T: Serialize + DeserializeOwned>(v: Value) -> Result<T, Value> {
    match <T as Deserialize>::deserialize(&v) {
        Ok(t) => {
            if RECORDING.load(Ordering::Relaxed) {
                let back = serde_json::to_value(&t).expect("JSON");
                if back != v {
                    violation(format!("{} changes the answer {v} into {back}", std::any::type_name::<T>()));
                }
            }
            Ok(t)
        }
        Err(e) => {
            tracing::error!(error = %e, "an answer does not fit its documented type {}", std::any::type_name::<T>());
            violation(format!("{v} is not a {}: {e}", std::any::type_name::<T>()));
            Err(v)
        }
    }
}

fn violation(what: String) {
    append_record(&format!("misfit {}\n", what.replace('\n', " ")));
    if let Ok(mut v) = VIOLATIONS.lock() {
        if v.len() < 100 {
            v.push(what);
        }
    }
}

static VIOLATIONS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Answers that did not fit their documented types in this process (each
/// test server checks this list is empty as it stops).
pub fn contract_violations() -> Vec<String> {
    VIOLATIONS.lock().map(|v| v.clone()).unwrap_or_default()
}

static RECORDING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static ANSWERED: std::sync::Mutex<std::collections::BTreeSet<(String, String, u16)>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// Where a test's server process appends each (method, route, status) it
/// answers for the first time, and each answer that did not fit its type.
static RECORD_FILE: std::sync::OnceLock<std::sync::Mutex<std::fs::File>> = std::sync::OnceLock::new();

/// The environment variable naming a file a server process records its
/// answers to (for the tests that run the binary; see [`record_answers_to`]).
pub const RECORD_ENV: &str = "RUNESTONE_RECORD_ANSWERS";

/// Record from now on, in this process, every (method, route, status) the
/// API answers (for tests: each must be in the OpenAPI document).
pub fn record_answers() {
    RECORDING.store(true, Ordering::Relaxed);
}

/// Record as [`record_answers`] does, and also append each new answer to
/// `path` as a line `METHOD route status` as soon as it is first given, and
/// each misfit as `misfit <words>` (so a process killed with SIGKILL has
/// told it already). For the tests that run the binary: `serve` calls this
/// when [`RECORD_ENV`] names a file.
pub fn record_answers_to(path: &std::path::Path) -> std::io::Result<()> {
    let file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    let _ = RECORD_FILE.set(std::sync::Mutex::new(file));
    record_answers();
    Ok(())
}

fn note_answer(method: String, pattern: String, status: u16) {
    let line = format!("{method} {pattern} {status}\n");
    let new = ANSWERED.lock().is_ok_and(|mut a| a.insert((method, pattern, status)));
    if new {
        append_record(&line);
    }
}

fn append_record(line: &str) {
    if let Some(f) = RECORD_FILE.get() {
        if let Ok(mut f) = f.lock() {
            use std::io::Write as _;
            let _ = f.write_all(line.as_bytes()).and_then(|_| f.sync_data());
        }
    }
}

/// What was recorded since [`record_answers`]: (method, route, status).
pub fn answered() -> std::collections::BTreeSet<(String, String, u16)> {
    ANSWERED.lock().map(|a| a.clone()).unwrap_or_default()
}

/// `{"status": "ok"}`, or `"degraded"` with the reason while free space is
/// below the reserve or the store recovers from a full disk (still 200: the
/// server serves what it can).
async fn healthz(svc: Svc) -> HttpResponse {
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
    let status = if details.is_empty() { types::HealthStatus::Ok } else { types::HealthStatus::Degraded };
    if !details.is_empty() {
        storage.detail = Some(details.join("; "));
    }
    let storage = (level.is_some() || recovering.is_some()).then_some(storage);
    HttpResponse::Ok().json(types::Health { status, storage })
}

async fn metrics(svc: Svc) -> HttpResponse {
    let (outbox, dead) = svc.outbox_depth();
    let recovering = u64::from(svc.store().recovering().is_some());
    svc.metrics.store_recovering.store(recovering, std::sync::atomic::Ordering::Relaxed);
    let (cached, cached_bytes) = svc.cache_size();
    let mut text = svc.metrics.render(cached, outbox, dead);
    text.push_str(&format!(
        "# HELP runestone_games_cached_bytes The folded games' saved size, as counted against storage.cache_bytes.\n\
         # TYPE runestone_games_cached_bytes gauge\nrunestone_games_cached_bytes {cached_bytes}\n"
    ));
    HttpResponse::Ok().content_type("text/plain; version=0.0.4").body(text)
}

async fn openapi_json(svc: Svc) -> HttpResponse {
    HttpResponse::Ok().json(openapi::document(svc.registry()))
}

async fn rulesets(svc: Svc) -> HttpResponse {
    let list: Vec<Value> = svc.registry().all().map(|g| serde_json::to_value(g.info()).expect("JSON")).collect();
    typed::<types::Rulesets>(json!({ "rulesets": list }))
}

/// One ruleset's info and its published contracts: the JSON Schemas of its
/// options, commands, events and views.
async fn ruleset(svc: Svc, path: web::Path<String>) -> ApiResult {
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

async fn create_game(svc: Svc, req: HttpRequest, body: Payload) -> ApiResult {
    let key = idempotency_key(&req)?;
    let v = read_json(&req, body).await?;
    Ok(answer::<crate::service::CreatedGame>(svc.create(v, key.as_deref()).await?))
}

async fn game_summary(svc: Svc, path: web::Path<String>) -> ApiResult {
    Ok(typed::<types::Summary>(svc.summary(&path).await?))
}

async fn view(svc: Svc, req: HttpRequest, path: web::Path<String>) -> ApiResult {
    let at = query_number(&req, "at")?;
    let c = claims(&svc, &req, &path).await?;
    Ok(written::<types::View>(200, svc.view_answer(&path, viewer(&c), at).await?))
}

/// An answer the service wrote as JSON text, served as it is. While
/// recording, it is read as its documented type `T` as [`typed`] answers
/// are, so a misfit is counted the same.
fn written<T: Serialize + DeserializeOwned>(status: u16, text: Vec<u8>) -> HttpResponse {
    if RECORDING.load(Ordering::Relaxed) {
        match serde_json::from_slice::<Value>(&text) {
            Ok(v) => {
                let _ = through::<T>(v);
            }
            Err(e) => violation(format!("an answer written as text is not JSON: {e}")),
        }
    }
    HttpResponse::build(StatusCode::from_u16(status).unwrap_or(StatusCode::OK))
        .content_type(actix_web::http::header::ContentType::json())
        .body(text)
}

/// A whole number written in digits; one past what 64 bits hold counts as
/// the largest (beyond any seat or position, so answered as such).
fn whole(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.parse().unwrap_or(u64::MAX))
}

/// A whole-number query parameter, refused in the API's own words when it
/// is anything else.
fn query_number(req: &HttpRequest, name: &str) -> ApiResult<Option<u64>> {
    let raw = req.query_string().split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| percent_decode(v))
    });
    match raw {
        None => Ok(None),
        Some(v) => whole(&v).map(Some).ok_or_else(|| {
            let shown: String = v.chars().take(40).collect();
            let more = if v.chars().count() > 40 { "…" } else { "" };
            ApiError::bad_request(format!(
                "the query parameter `{name}` must be a whole number of 0 or more, not {shown:?}{more}"
            ))
        }),
    }
}

async fn submit(svc: Svc, req: HttpRequest, path: web::Path<String>, body: Payload) -> ApiResult {
    let key = idempotency_key(&req)?;
    let c = required_claims(&svc, &req, &path).await?;
    let v = read_json(&req, body).await?;
    let w = svc.into_inner().submit_to_the_end(path.into_inner(), c, v, key).await?;
    Ok(written::<types::Accepted>(w.status, w.text))
}

async fn undo(svc: Svc, req: HttpRequest, path: web::Path<String>) -> ApiResult {
    let c = required_claims(&svc, &req, &path).await?;
    Ok(typed::<types::Accepted>(svc.undo(&path, &c).await?))
}

async fn events(svc: Svc, req: HttpRequest, path: web::Path<String>) -> ApiResult {
    let (from, to) = (query_number(&req, "from")?, query_number(&req, "to")?);
    let c = claims(&svc, &req, &path).await?;
    let list = svc.events(&path, viewer(&c), from.unwrap_or(0), to).await?;
    Ok(typed::<types::Events>(json!({ "events": list })))
}

/// Server-sent events: the backlog from `from` (or after `Last-Event-ID`,
/// or from the next event), then each new event as it is appended, cut to
/// the viewer. A comment line every 15 s keeps proxies from closing it.
///
/// The stream ends with one `closed` event saying why: the game is over
/// (after the event that ended it), or the seat's link was revoked (a new
/// link, a substitute seated): a seat's stream is re-checked against the
/// seat's token generation at every change of its links, before any later
/// event is sent, so a revoked token receives nothing after the revocation.
async fn stream(svc: Svc, req: HttpRequest, path: web::Path<String>) -> ApiResult {
    let game = path.into_inner();
    let q_from = query_number(&req, "from")?;
    let c = match bearer(&req, true)? {
        None => None,
        Some(t) => Some(svc.authorize(&game, &t).await?),
    };
    let viewer = viewer(&c);
    let (rx, table) = svc.subscribe(&game).await?;
    let last_id = req.headers().get("last-event-id").and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let from = last_id.map(|s| s + 1).or(q_from).unwrap_or(table.head + 1);
    let backlog: VecDeque<Value> = if from <= table.head {
        svc.events(&game, viewer, from, Some(table.head))
            .await?
            .into_iter()
            .map(|e| serde_json::to_value(e).expect("JSON"))
            .collect()
    } else {
        VecDeque::new()
    };
    let ended = table.seed_revealed.is_some().then(|| closing_over(&table));
    struct St {
        svc: Svc,
        game: String,
        viewer: Viewer,
        /// The seat and token generation a seat's stream was opened with.
        seat: Option<(runestone_engine::Seat, u32)>,
        rx: tokio::sync::broadcast::Receiver<Arc<Vec<Envelope>>>,
        queue: VecDeque<Value>,
        last: Option<u64>,
        table: runestone_engine::Table,
        /// The final event, sent once the queue is empty; then the end.
        closing: Option<types::StreamClosed>,
        done: bool,
        /// Head polls since the last frame (shared stores only).
        polls: u32,
    }
    let seat = c.as_ref().and_then(|c| c.seat.filter(|_| c.role == crate::auth::Role::Seat).map(|s| (s, c.gen)));
    let st = St {
        svc: svc.clone(),
        game,
        viewer,
        seat,
        rx,
        queue: backlog,
        last: from.checked_sub(1),
        table,
        closing: ended,
        done: false,
        polls: 0,
    };
    let body = futures_util::stream::unfold(st, |mut st| async move {
        loop {
            if st.done {
                return None;
            }
            if let Some(v) = st.queue.pop_front() {
                let seq = v["seq"].as_u64().unwrap_or(0);
                st.last = Some(seq);
                let data = match through::<types::Event>(v) {
                    Ok(e) => serde_json::to_string(&e).expect("JSON"),
                    Err(v) => v.to_string(),
                };
                let frame = format!("id: {seq}\nevent: event\ndata: {data}\n\n");
                return Some((Ok::<_, actix_web::Error>(Bytes::from(frame)), st));
            }
            if let Some(why) = st.closing.take() {
                st.done = true;
                let frame = format!("event: closed\ndata: {}\n\n", serde_json::to_string(&why).expect("JSON"));
                return Some((Ok(Bytes::from(frame)), st));
            }
            tokio::select! {
                msg = st.rx.recv() => match msg {
                    Ok(batch) => {
                        let mut fresh = Vec::new();
                        for e in batch.iter().filter(|e| st.last.is_none_or(|l| e.seq > l)) {
                            match e.kernel() {
                                Some(runestone_engine::KernelEvent::SeatTokenRevoked { seat, generation, reason })
                                    if st.seat.is_some_and(|(s, g)| s == *seat && g != *generation) =>
                                {
                                    fresh.push(e.clone());
                                    st.closing = Some(closing_revoked(*seat, reason));
                                    break;
                                }
                                Some(runestone_engine::KernelEvent::RolledBack { .. }) if st.seat.is_some() => {
                                    // A rollback may void a revocation or
                                    // one that follows: ask the game itself.
                                    fresh.push(e.clone());
                                    if let Some(why) = st.recheck().await {
                                        st.closing = Some(why);
                                        break;
                                    }
                                }
                                Some(runestone_engine::KernelEvent::SeedRevealed { seed }) => {
                                    st.table.seed_revealed = Some(seed.clone());
                                    fresh.push(e.clone());
                                }
                                _ => fresh.push(e.clone()),
                            }
                        }
                        for v in st.svc.stream_views(&st.table, &fresh, st.viewer) {
                            st.queue.push_back(serde_json::to_value(v).expect("JSON"));
                        }
                        if st.closing.is_none() && st.table.seed_revealed.is_some() {
                            let over = st.svc.game_table(&st.game).await.ok();
                            st.closing = Some(closing_over(over.as_ref().unwrap_or(&st.table)));
                        }
                    }
                    Err(RecvError::Lagged(_)) => {
                        // Events were missed: read them back from the log.
                        if !st.read_back().await {
                            return None;
                        }
                    }
                    Err(RecvError::Closed) => return None,
                },
                // On a database shared by several nodes, events appended
                // through another node reach this one only through the
                // store: follow its head, then read them as after a lag.
                _ = tokio::time::sleep(SHARED_POLL), if st.svc.store().shared() => {
                    let head = st.svc.store().head(&st.game).ok().flatten();
                    if head.is_some_and(|h| st.last.is_none_or(|l| h > l)) {
                        if !st.read_back().await {
                            return None;
                        }
                        if st.closing.is_none() {
                            if let Ok(t) = st.svc.game_table(&st.game).await {
                                st.closing = t.seed_revealed.is_some().then(|| closing_over(&t));
                            }
                        }
                        st.polls = 0;
                        continue;
                    }
                    st.polls += 1;
                    if st.polls * SHARED_POLL.as_millis() as u32 >= 15_000 {
                        st.polls = 0;
                        return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), st));
                    }
                }
                _ = tokio::time::sleep(Duration::from_secs(15)), if !st.svc.store().shared() => {
                    return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), st));
                }
            }
        }
    });
    impl St {
        /// Queues the events after the last one queued, read back from the
        /// log (after a lag, or appended through another node), once the
        /// link is checked again; a link no longer good closes the stream
        /// instead. `false` when the log cannot be read: the stream ends.
        async fn read_back(&mut self) -> bool {
            if let Some(why) = self.recheck().await {
                self.closing = Some(why);
                return true;
            }
            let from = self.last.map_or(0, |l| l + 1);
            match self.svc.events(&self.game, self.viewer, from, None).await {
                Ok(list) => {
                    self.queue.extend(list.into_iter().map(|e| serde_json::to_value(e).expect("JSON")));
                    true
                }
                Err(_) => false,
            }
        }

        /// The closing event if the seat's token generation is no longer the
        /// game's (or the game cannot be read), else `None`.
        async fn recheck(&self) -> Option<types::StreamClosed> {
            let (seat, gen) = self.seat?;
            match self.svc.game_table(&self.game).await {
                Ok(t) if t.generations.get(seat as usize) == Some(&gen) => None,
                Ok(_) => Some(closing_revoked(seat, "")),
                Err(_) => Some(types::StreamClosed {
                    reason: types::ClosedReason::Unavailable,
                    detail: "the game could not be read to re-check this link; reconnect in a moment".into(),
                    head: None,
                    outcome: None,
                }),
            }
        }
    }
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("cache-control", "no-cache"))
        .insert_header(("x-accel-buffering", "no"))
        .streaming(body))
}

/// How often a stream on a shared database looks for events appended
/// through other nodes.
const SHARED_POLL: Duration = Duration::from_millis(250);

/// The stream's final event when the seat's links were revoked.
fn closing_revoked(seat: runestone_engine::Seat, reason: &str) -> types::StreamClosed {
    let why = if reason.is_empty() { String::new() } else { format!(" ({reason})") };
    types::StreamClosed {
        reason: types::ClosedReason::Revoked,
        detail: format!(
            "the links of seat {seat} were revoked by the host{why}; this stream is closed. \
             Use the newest link you were sent"
        ),
        head: None,
        outcome: None,
    }
}

/// The stream's final event when the game is over.
fn closing_over(t: &runestone_engine::Table) -> types::StreamClosed {
    types::StreamClosed {
        reason: types::ClosedReason::Over,
        detail: "the game is over: nothing more will be appended; the whole log is public now".into(),
        head: Some(t.head),
        outcome: t.outcome().and_then(|o| through::<types::Outcome>(serde_json::to_value(o).expect("JSON")).ok()),
    }
}

async fn rollback(svc: Svc, req: HttpRequest, path: web::Path<String>, body: Payload) -> ApiResult {
    let c = required_claims(&svc, &req, &path).await?;
    let v = read_json(&req, body).await?;
    Ok(typed::<types::Accepted>(svc.rollback(&path, &c, v).await?))
}

async fn fork(svc: Svc, req: HttpRequest, path: web::Path<String>, body: Payload) -> ApiResult {
    let c = required_claims(&svc, &req, &path).await?;
    let v = read_json(&req, body).await?;
    Ok(answer::<crate::service::CreatedGame>(svc.fork(&path, &c, v).await?))
}

async fn verify(svc: Svc, path: web::Path<String>) -> ApiResult {
    Ok(typed::<types::Verify>(svc.verify(&path).await?))
}

async fn reissue(svc: Svc, req: HttpRequest, path: web::Path<(String, String)>, body: Payload) -> ApiResult {
    let (game, seat) = path.into_inner();
    let c = required_claims(&svc, &req, &game).await?;
    let seat = seat_param(&svc, &game, &seat).await?;
    let reason = match read_json(&req, body).await {
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
    };
    Ok(typed::<types::NewLink>(svc.reissue(&game, &c, seat, reason).await?))
}

/// The `{seat}` of a path: 400 if it is not a whole number, 422 if the game
/// has no such seat (whatever its size).
async fn seat_param(svc: &Service, game: &str, raw: &str) -> ApiResult<u8> {
    let n: u64 = whole(raw).ok_or_else(|| {
        ApiError::bad_request(format!(
            "the seat in the path must be a whole number of 0 or more, not \"{}\"",
            shown(raw)
        ))
    })?;
    let seats = svc.game_table(game).await?.generations.len() as u64;
    if n >= seats {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "No such seat",
            format!("there is no seat {n} in this game; its seats are 0 to {}", seats.saturating_sub(1)),
        ));
    }
    Ok(n as u8)
}

async fn substitute(svc: Svc, req: HttpRequest, path: web::Path<(String, String)>, body: Payload) -> ApiResult {
    let (game, seat) = path.into_inner();
    let c = required_claims(&svc, &req, &game).await?;
    let seat = seat_param(&svc, &game, &seat).await?;
    let v = read_json(&req, body).await?;
    Ok(typed::<types::NewLink>(svc.substitute(&game, &c, seat, v).await?))
}

async fn clock(svc: Svc, req: HttpRequest, path: web::Path<String>, body: Payload) -> ApiResult {
    let c = required_claims(&svc, &req, &path).await?;
    let v = read_json(&req, body).await?;
    Ok(typed::<types::ClockDone>(svc.clock_action(&path, &c, v).await?))
}

async fn dead_letters(svc: Svc, req: HttpRequest, path: web::Path<String>) -> ApiResult {
    let c = required_claims(&svc, &req, &path).await?;
    Ok(typed::<types::DeadLetters>(json!({ "dead_letters": svc.dead_letters(&path, &c).await? })))
}

async fn retry_dead_letter(svc: Svc, req: HttpRequest, path: web::Path<(String, String)>) -> ApiResult {
    let (game, mail) = path.into_inner();
    let c = required_claims(&svc, &req, &game).await?;
    Ok(typed::<types::Retried>(svc.retry_dead_letter(&game, &c, &mail).await?))
}
