//! The player and host web pages, server-rendered with minijinja over the
//! same [`Service`] the REST API uses (in process, never over HTTP).
//!
//! Sessions: a magic link's landing page (`GET /play/{game}?token=…`) only
//! shows what the link is for; its button POSTs the token back, which sets
//! a session cookie named after the game and the role (`rs_seat_{game}` or
//! `rs_host_{game}`) holding the token itself. Every request checks that
//! token again with [`Service::authorize`] (signature, expiry, game and the
//! seat's generation), so a cookie can only ever act as the seat and game
//! its token names, and a revoked link's session ends at once.
//!
//! CSRF: every form carries the value of a random `rs_csrf` cookie in a
//! hidden field (double submit); a POST whose field does not match the
//! cookie is refused with a page that says so.

pub mod board;
mod forms;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use actix_web::cookie::{time, Cookie, SameSite};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse, ResponseError};
use minijinja::Environment;
use runestone_engine::present::{FormsInput, Posted};
use runestone_engine::{DynGame, Viewer};
use serde_json::{json, Value};

use crate::auth::{Claims, Role};
use crate::service::{Service, ServiceError};
use forms::Form;

type Svc = Data<Service>;

const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../../templates/web/base.html")),
    ("macros.html", include_str!("../../templates/web/macros.html")),
    ("error.html", include_str!("../../templates/web/error.html")),
    ("landing.html", include_str!("../../templates/web/landing.html")),
    ("game.html", include_str!("../../templates/web/game.html")),
    ("forms.html", include_str!("../../templates/web/forms.html")),
    ("command_templates.html", include_str!("../../templates/web/command_templates.html")),
    ("host_new.html", include_str!("../../templates/web/host_new.html")),
    ("host_created.html", include_str!("../../templates/web/host_created.html")),
    ("host.html", include_str!("../../templates/web/host.html")),
    ("home.html", include_str!("../../templates/web/home.html")),
    ("data.html", include_str!("../../templates/web/data.html")),
    ("rules/bardagi.html", include_str!("../../templates/web/rules/bardagi.html")),
    ("rules/thingvellir.html", include_str!("../../templates/web/rules/thingvellir.html")),
    ("rules/fallen-kingdoms.html", include_str!("../../templates/web/rules/fallen-kingdoms.html")),
    ("rules/realms.html", include_str!("../../templates/web/rules/realms.html")),
];

/// The hosted games that have a short "how to play here" page of ours, at
/// `/rules/{ruleset}`.
pub const RULES_PAGES: &[&str] = &["bardagi", "fallen-kingdoms", "realms", "thingvellir"];

const CSS: &str = include_str!("../../static/web.css");
const JS: &str = include_str!("../../static/web.js");

const CSRF_COOKIE: &str = "rs_csrf";

fn templates() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        for (name, src) in TEMPLATES {
            env.add_template(name, src).expect("the page templates parse");
        }
        env
    })
}

/// Mount the pages (call from the App builder).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.app_data(web::FormConfig::default().limit(256 * 1024).error_handler(|e, _| {
        PageError::new(StatusCode::BAD_REQUEST, "The form could not be read", e.to_string()).into()
    }))
    .service(web::resource("/").route(web::get().to(home)))
    .service(web::resource("/rules/{ruleset}").route(web::get().to(rules_page)))
    .service(web::resource("/static/web.css").route(web::get().to(css)))
    .service(web::resource("/static/web.js").route(web::get().to(js)))
    .service(web::resource("/play/{game}").route(web::get().to(landing)).route(web::post().to(landing_post)))
    .service(web::resource("/games/{game}").route(web::get().to(game_page)))
    .service(web::resource("/games/{game}/data").route(web::get().to(data_page)))
    .service(web::resource("/games/{game}/commands").route(web::post().to(command)))
    .service(web::resource("/games/{game}/undo").route(web::post().to(undo)))
    .service(web::resource("/host/new").route(web::get().to(host_new)).route(web::post().to(host_create)))
    .service(web::resource("/host/{game}").route(web::get().to(host_page)))
    .service(web::resource("/host/{game}/rollback").route(web::post().to(host_rollback)))
    .service(web::resource("/host/{game}/reissue").route(web::post().to(host_reissue)))
    .service(web::resource("/host/{game}/fork").route(web::post().to(host_fork)))
    .service(web::resource("/host/{game}/clock").route(web::post().to(host_clock)))
    .service(web::resource("/host/{game}/substitute").route(web::post().to(host_substitute)));
}

// ---------------------------------------------------------------- errors

/// A request that cannot be served, as a page a person can act on.
#[derive(Debug)]
pub struct PageError {
    status: StatusCode,
    title: String,
    detail: String,
}

impl PageError {
    fn new(status: StatusCode, title: impl Into<String>, detail: impl Into<String>) -> PageError {
        PageError { status, title: title.into(), detail: detail.into() }
    }
}

impl std::fmt::Display for PageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.title, self.detail)
    }
}

impl ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        render(self.status, "error.html", json!({ "title": self.title, "detail": self.detail }), None)
    }
}

impl From<ServiceError> for PageError {
    fn from(e: ServiceError) -> PageError {
        let api = crate::http::ApiError::from(e);
        PageError::new(api.status, api.title, api.detail)
    }
}

type PageResult = Result<HttpResponse, PageError>;

/// A service error in the words shown beside a form.
fn words(e: ServiceError) -> String {
    crate::http::ApiError::from(e).detail
}

/// A service error's status and words.
fn split(e: ServiceError) -> (StatusCode, String) {
    let api = crate::http::ApiError::from(e);
    (api.status, api.detail)
}

// ---------------------------------------------------------------- rendering

/// Render `name` with `ctx`, with the headers every page carries.
fn render(status: StatusCode, name: &str, mut ctx: Value, csrf: Option<&Csrf>) -> HttpResponse {
    if let (Some(c), Value::Object(m)) = (csrf, &mut ctx) {
        m.insert("csrf".into(), json!(c.value));
    }
    let body = templates().get_template(name).and_then(|t| t.render(&ctx));
    let mut res = match body {
        Ok(html) => HttpResponse::build(status).content_type("text/html; charset=utf-8").body(html),
        Err(e) => {
            tracing::error!(error = %e, template = name, "page template failed");
            HttpResponse::InternalServerError()
                .content_type("text/plain; charset=utf-8")
                .body(format!("the page could not be rendered: {e}"))
        }
    };
    secure_headers(&mut res);
    if let Some(c) = csrf.and_then(|c| c.cookie.clone()) {
        let _ = res.add_cookie(&c);
    }
    res
}

fn secure_headers(res: &mut HttpResponse) {
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; \
             form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

fn see_other(location: &str) -> HttpResponse {
    let mut res = HttpResponse::SeeOther().insert_header((header::LOCATION, location.to_owned())).finish();
    secure_headers(&mut res);
    res
}

/// The pages' stylesheet, then each hosted game's own.
async fn css(svc: Svc) -> HttpResponse {
    let mut body = String::from(CSS);
    for g in svc.registry().all() {
        body.push_str(g.stylesheet());
    }
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .body(body)
}

async fn js() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .body(JS)
}

async fn home(req: HttpRequest) -> HttpResponse {
    let csrf = Csrf::of(&req);
    render(StatusCode::OK, "home.html", json!({}), Some(&csrf))
}

/// A short "how to play here" page for a hosted game.
async fn rules_page(path: web::Path<String>) -> PageResult {
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

// ---------------------------------------------------------------- CSRF and sessions

/// The page's CSRF value, and the cookie to set when it is new.
struct Csrf {
    value: String,
    cookie: Option<Cookie<'static>>,
}

fn is_https(req: &HttpRequest) -> bool {
    req.connection_info().scheme() == "https"
}

impl Csrf {
    fn of(req: &HttpRequest) -> Csrf {
        if let Some(c) = req.cookie(CSRF_COOKIE) {
            let v = c.value();
            if v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Csrf { value: v.to_owned(), cookie: None };
            }
        }
        let value = hex::encode(crate::random_bytes::<32>());
        let cookie = Cookie::build(CSRF_COOKIE, value.clone())
            .path("/")
            .http_only(true)
            .same_site(SameSite::Lax)
            .secure(is_https(req))
            .finish();
        Csrf { value, cookie: Some(cookie) }
    }
}

/// Constant-time equality of two strings.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Refuse a form whose CSRF field does not match the cookie.
fn check_csrf(req: &HttpRequest, form: &Form) -> Result<(), PageError> {
    let cookie = req.cookie(CSRF_COOKIE).map(|c| c.value().to_owned()).unwrap_or_default();
    let field = form.get("csrf").unwrap_or_default();
    if cookie.len() == 64 && same(&cookie, field) {
        Ok(())
    } else {
        Err(PageError::new(
            StatusCode::FORBIDDEN,
            "This form was not accepted",
            "The form did not carry this browser's security value (it may be from an old page, another site, \
             or cookies may be blocked). Nothing was changed: go back, reload the page and try again.",
        ))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Seat,
    Host,
}

fn valid_game_id(game: &str) -> bool {
    !game.is_empty() && game.len() <= 64 && game.bytes().all(|b| b.is_ascii_alphanumeric())
}

fn cookie_name(kind: Kind, game: &str) -> String {
    match kind {
        Kind::Seat => format!("rs_seat_{game}"),
        Kind::Host => format!("rs_host_{game}"),
    }
}

fn session_cookie(req: &HttpRequest, kind: Kind, game: &str, token: &str, claims: &Claims) -> Cookie<'static> {
    let secs = (claims.exp - chrono::Utc::now().timestamp()).max(0);
    Cookie::build(cookie_name(kind, game), token.to_owned())
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(is_https(req))
        .max_age(time::Duration::seconds(secs))
        .finish()
}

/// The session of `kind` for `game`: its claims if the cookie's token is
/// still good for this game and role; otherwise why not, in words.
async fn session(svc: &Service, req: &HttpRequest, kind: Kind, game: &str) -> (Option<Claims>, Option<String>) {
    let Some(c) = req.cookie(&cookie_name(kind, game)) else { return (None, None) };
    let want = match kind {
        Kind::Seat => Role::Seat,
        Kind::Host => Role::Host,
    };
    match svc.authorize(game, c.value()).await {
        Ok(claims) if claims.role == want => (Some(claims), None),
        Ok(_) => (None, Some("this browser's session is not for this page".into())),
        Err(e) => (None, Some(format!("this browser's session no longer works: {}", words(e)))),
    }
}

fn game_id(path: web::Path<String>) -> Result<String, PageError> {
    let g = path.into_inner();
    if valid_game_id(&g) {
        Ok(g)
    } else {
        Err(PageError::new(StatusCode::NOT_FOUND, "No such game", format!("there is no game {g:?}")))
    }
}

/// `?at=` and `?token=` read leniently (a bad value is a page, not JSON).
fn query(req: &HttpRequest) -> BTreeMap<String, String> {
    web::Query::<BTreeMap<String, String>>::from_query(req.query_string()).map(|q| q.into_inner()).unwrap_or_default()
}

fn at_of(req: &HttpRequest) -> Result<Option<u64>, PageError> {
    match query(req).get("at").map(|s| s.trim()).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => s.parse::<u64>().map(Some).map_err(|_| {
            PageError::new(StatusCode::BAD_REQUEST, "Not a position", format!("{s:?} is not an event number"))
        }),
    }
}

// ---------------------------------------------------------------- landing

async fn landing(svc: Svc, req: HttpRequest, path: web::Path<String>) -> PageResult {
    let game = game_id(path)?;
    let csrf = Csrf::of(&req);
    let Some(token) = query(&req).get("token").cloned() else {
        return Err(PageError::new(
            StatusCode::BAD_REQUEST,
            "This link is incomplete",
            "A game link carries a token after ?token=; copy the whole link from your email.",
        ));
    };
    let claims = svc.authorize(&game, &token).await?;
    let summary = svc.summary(&game).await?;
    let names = names_of(&summary);
    let who = match (claims.role, claims.seat) {
        (Role::Seat, Some(s)) => format!("seat {s}, {}", board::seat_name(&names, s)),
        (Role::Host, _) => "the host".to_owned(),
        (Role::Referee, _) => "the referee".to_owned(),
        (Role::Seat, None) => "an unknown seat".to_owned(),
    };
    let view = svc.view(&game, Viewer::Public, None).await?;
    let ctx = json!({
        "dots": board::seat_classes(game_of(&svc, &summary), &view["view"], names.len()),
        "game": game,
        "token": token,
        "who": who,
        "game_name": game_name(&svc, &summary),
        "how_to_play": summary["ruleset"].as_str().filter(|r| RULES_PAGES.contains(r)),
        "role": claims.role,
        "summary": summary,
        "pending": pending_list(&decisions(&summary), &names, claims.seat, &summary, None),
    });
    Ok(render(StatusCode::OK, "landing.html", ctx, Some(&csrf)))
}

async fn landing_post(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let game = game_id(path)?;
    check_csrf(&req, &form)?;
    let token = form.get("token").unwrap_or_default().trim().to_owned();
    let claims = svc.authorize(&game, &token).await?;
    let (kind, to) = match claims.role {
        Role::Seat => (Kind::Seat, format!("/games/{game}")),
        Role::Host => (Kind::Host, format!("/host/{game}")),
        Role::Referee => {
            return Err(PageError::new(
                StatusCode::FORBIDDEN,
                "Referee links are for the API",
                "The web pages serve seats and the host; a referee uses the REST API with this token.",
            ))
        }
    };
    let mut res = see_other(&to);
    let _ = res.add_cookie(&session_cookie(&req, kind, &game, &token, &claims));
    Ok(res)
}

// ---------------------------------------------------------------- the game page

fn names_of(summary: &Value) -> Vec<String> {
    summary["seats"]
        .as_array()
        .map(|a| a.iter().map(|s| s["name"].as_str().unwrap_or("?").to_owned()).collect())
        .unwrap_or_default()
}

/// An RFC 3339 UTC stamp as people read it: "2026-11-22 09:21 UTC".
fn when(stamp: &str) -> String {
    match (stamp.get(..10), stamp.get(11..16)) {
        (Some(day), Some(time)) if stamp.ends_with('Z') => format!("{day} {time} UTC"),
        _ => stamp.to_owned(),
    }
}

/// A deadline as the reader reads it: in `tz` when the reader's time zone
/// is known ("Tue 24 Nov 18:00 CET"), else in UTC (the pages' script
/// rewrites it into the browser's own time zone).
fn due_words(stamp: &str, tz: Option<&str>) -> String {
    match chrono::DateTime::parse_from_rfc3339(stamp) {
        Ok(t) => crate::notify::local_time(t.with_timezone(&chrono::Utc), tz),
        Err(_) => stamp.to_owned(),
    }
}

/// Every open decision of an answer: those still owed (`pending`) and those
/// given but still open to change (`submitted`).
fn decisions(answer: &Value) -> Value {
    let all = [&answer["pending"], &answer["submitted"]];
    Value::Array(all.iter().filter_map(|v| v.as_array()).flatten().cloned().collect())
}

/// Who must decide what, with each decision's deadline from `summary`
/// told in the time zone `tz` (the viewing seat's, when it gave one).
fn pending_list(pending: &Value, names: &[String], me: Option<u8>, summary: &Value, tz: Option<&str>) -> Vec<Value> {
    let due = summary["deadlines"]["due"].as_array().cloned().unwrap_or_default();
    pending
        .as_array()
        .map(|a| {
            a.iter()
                .map(|p| {
                    let seat = p["seat"].as_u64().unwrap_or(0) as u8;
                    let key = format!("{seat}/{}", p["kind"].as_str().unwrap_or_default());
                    let deadline = due.iter().find(|d| d["decision"] == json!(key)).map(|d| d["due"].clone());
                    json!({
                        "seat": seat,
                        "name": board::seat_name(names, seat),
                        "submitted": p["submitted"],
                        "due_when": deadline.as_ref().and_then(Value::as_str).map(|d| due_words(d, tz)),
                        "due_local": tz.is_none(),
                        "due": deadline,
                        "kind": p["kind"],
                        "prompt": p["prompt"],
                        "me": me == Some(seat),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The table header of a game page: the game's name (never its id), the
/// round and phase and the standings as the game tells them from the
/// viewer's view (or the seats' names alone), and who is to play.
fn table_header(
    rules: Option<&dyn DynGame>,
    summary: &Value,
    view: &Value,
    names: &[String],
    pending: &[Value],
    me: Option<u8>,
) -> Value {
    let name = rules.map_or_else(|| summary["ruleset"].as_str().unwrap_or("a game").to_owned(), |g| g.info().name);
    let header = rules.and_then(|g| g.header(view, names)).filter(|h| h.check(names.len()).is_ok());
    // A seat that has given its secret choice (and may still change it) is
    // not the one the game waits for.
    let to_play: Vec<u64> =
        pending.iter().filter(|p| p["submitted"] != true).filter_map(|p| p["seat"].as_u64()).collect();
    let rows: Vec<Value> = (0..names.len())
        .map(|i| {
            let row = header.as_ref().and_then(|h| h.standings.get(i));
            json!({
                "seat": i,
                "name": names[i],
                "colour": row.and_then(|r| r.colour.clone()),
                "score": row.and_then(|r| r.score),
                "values": row.map(|r| r.values.clone()).unwrap_or_default(),
                "me": me == Some(i as u8),
                "to_play": to_play.contains(&(i as u64)),
            })
        })
        .collect();
    json!({
        "name": name,
        "round": header.as_ref().and_then(|h| h.round),
        "phase": header.as_ref().and_then(|h| h.phase.clone()),
        "score": header.as_ref().map(|h| h.score.clone()).filter(|s| !s.is_empty()),
        "columns": header.as_ref().map(|h| h.columns.clone()).unwrap_or_default(),
        "rows": rows,
        "to_play": pending,
        "over": summary["status"] == "over",
    })
}

/// The name of the game `summary` describes, in words (never its id).
fn game_name(svc: &Service, summary: &Value) -> String {
    game_of(svc, summary).map_or_else(|| summary["ruleset"].as_str().unwrap_or("a game").to_owned(), |g| g.info().name)
}

/// The rules of the game `summary` describes, if this server hosts them.
fn game_of<'a>(svc: &'a Service, summary: &Value) -> Option<&'a dyn DynGame> {
    svc.registry().get(summary["ruleset"].as_str().unwrap_or_default()).map(|g| g.as_ref())
}

/// What the user typed, given back when a form fails.
#[derive(Default)]
struct Entered {
    values: BTreeMap<String, String>,
}

impl Entered {
    fn of(form: &Form) -> Entered {
        Entered {
            values: form
                .pairs()
                .filter(|(k, _)| *k != "csrf" && *k != "token")
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        }
    }
}

/// The log as the viewer may see it, the rewind control's numbers, and the
/// position shown.
async fn log_and_position(
    svc: &Service,
    game: &str,
    viewer: Viewer,
    at: Option<u64>,
    names: &[String],
) -> Result<(Value, Vec<Value>, Value, Vec<runestone_engine::Envelope>), ServiceError> {
    let view = svc.view(game, viewer, at).await?;
    let events = svc.events(game, viewer, 0, None).await?;
    let head = view["head"].as_u64().unwrap_or(0);
    let seq = view["seq"].as_u64().unwrap_or(head);
    let ruleset = view["ruleset"].as_str().unwrap_or_default();
    let rules = svc.registry().get(ruleset).map(|g| g.as_ref());
    let log: Vec<Value> = events
        .iter()
        .map(|e| {
            let round = match (&e.envelope.body, rules) {
                (runestone_engine::Body::Game { v, event }, Some(g)) if e.in_force => g.round_begun(*v, event),
                _ => None,
            };
            json!({
                "round": round,
                "seq": e.envelope.seq,
                "text": e.text,
                "time": e.envelope.time,
                "when": when(&e.envelope.time),
                "in_force": e.in_force,
                "hidden": e.hidden,
                "current": e.envelope.seq == seq,
                "future": e.envelope.seq > seq,
            })
        })
        .collect();
    let b = board::render(rules, &view["view"], names);
    let rewind = json!({
        "seq": seq,
        "head": head,
        "min": 1.min(head),
        "at_head": seq == head,
        "prev": (seq > 1).then(|| seq - 1),
        "next": (seq < head).then(|| seq + 1),
        "board": b,
    });
    let envelopes = events.into_iter().map(|e| e.envelope).collect();
    Ok((view, log, rewind, envelopes))
}

/// How many entries of the log a page shows when its game counts no rounds.
const LOG_TAIL: usize = 30;

/// The log as a game page shows it: the entries of the round of the
/// position shown (from the event that began it to the next round's), or,
/// before a first round or in a game without rounds, the last
/// [`LOG_TAIL`] entries up to it; and
/// what was folded away, in words, with the link to the whole log.
fn fold_log(log: Vec<Value>, seq: u64) -> (Vec<Value>, Value) {
    if log.is_empty() {
        return (log, json!({"folded": false, "all": 0}));
    }
    let seq_of = |e: &Value| e["seq"].as_u64().unwrap_or(0);
    let shown = log.iter().rposition(|e| seq_of(e) <= seq).unwrap_or(0);
    let begun = log[..=shown].iter().rposition(|e| e["round"].is_u64());
    let (from, to, round) = match begun {
        Some(b) => {
            let next = log[b + 1..].iter().position(|e| e["round"].is_u64()).map_or(log.len(), |n| b + 1 + n);
            (b, next, log[b]["round"].as_u64())
        }
        None => {
            let next = log[shown + 1..].iter().position(|e| e["round"].is_u64()).map_or(shown + 1, |n| shown + 1 + n);
            (shown.saturating_sub(LOG_TAIL - 1), next, None)
        }
    };
    let (earlier, later) = (from, log.len() - to);
    let all = log.len();
    let shown_log: Vec<Value> = log.into_iter().skip(from).take(to - from).collect();
    let fold = json!({
        "round": round,
        "earlier": earlier,
        "later": later,
        "all": all,
        "folded": earlier > 0 || later > 0,
    });
    (shown_log, fold)
}

/// Whether `seat`'s last step can be taken back, as the kernel would judge
/// it from the log (the service checks again on the POST).
fn can_undo(events: &[runestone_engine::Envelope], in_force: &[bool], seat: u8) -> bool {
    use runestone_engine::{Actor, Body, KernelEvent};
    let mut last: Option<u8> = None;
    for (e, live) in events.iter().zip(in_force) {
        if !live {
            continue;
        }
        match &e.body {
            Body::Game { .. } => {
                if let Some(d) = &e.decision {
                    last = match (d.undoable, e.actor) {
                        (true, Actor::Seat(s)) => Some(s),
                        _ => None,
                    };
                }
            }
            Body::Kernel { event: KernelEvent::RolledBack { .. } | KernelEvent::Undone { .. } } => last = None,
            Body::Kernel { .. } => {}
        }
    }
    last == Some(seat)
}

async fn game_page(svc: Svc, req: HttpRequest, path: web::Path<String>) -> PageResult {
    let game = game_id(path)?;
    let at = at_of(&req)?;
    let (claims, problem) = session(&svc, &req, Kind::Seat, &game).await;
    render_game(&svc, &req, &game, claims.as_ref(), problem, at, StatusCode::OK, None, Entered::default()).await
}

/// The raw view behind a game page's "data" link: everything the viewer
/// may see, in the generic rendering and as JSON.
async fn data_page(svc: Svc, req: HttpRequest, path: web::Path<String>) -> PageResult {
    let game = game_id(path)?;
    let at = at_of(&req)?;
    let (claims, _) = session(&svc, &req, Kind::Seat, &game).await;
    let viewer = claims.as_ref().map_or(Viewer::Public, Claims::viewer);
    let summary = svc.summary(&game).await?;
    let names = names_of(&summary);
    let view = svc.view(&game, viewer, at).await?;
    let ctx = json!({
        "game": game,
        "game_name": game_name(&svc, &summary),
        "me": claims.and_then(|c| c.seat).map(|s| board::seat_name(&names, s)),
        "at": at,
        "html": board::generic_html(&view["view"], &names),
        "json": serde_json::to_string_pretty(&view["view"]).unwrap_or_default(),
    });
    Ok(render(StatusCode::OK, "data.html", ctx, None))
}

#[allow(clippy::too_many_arguments)]
async fn render_game(
    svc: &Service,
    req: &HttpRequest,
    game: &str,
    claims: Option<&Claims>,
    problem: Option<String>,
    at: Option<u64>,
    status: StatusCode,
    error: Option<String>,
    entered: Entered,
) -> PageResult {
    let csrf = Csrf::of(req);
    let summary = svc.summary(game).await?;
    let names = names_of(&summary);
    let viewer = claims.map_or(Viewer::Public, Claims::viewer);
    let me = claims.and_then(|c| c.seat);
    let (view, log, rewind, envelopes) = log_and_position(svc, game, viewer, at, &names).await?;
    let rules = game_of(svc, &summary);
    let at_head = rewind["at_head"].as_bool().unwrap_or(true);
    let legal = view["legal"].as_array().cloned().unwrap_or_default();
    let templates = view["legal_templates"].as_array().cloned().unwrap_or_default();
    let unavailable = unavailable_groups(&view["unavailable"]);
    let actions = forms::actions(&legal, &templates);
    let labels: Vec<String> = view["legal_labels"]
        .as_array()
        .map(|a| a.iter().map(|l| l.as_str().unwrap_or_default().to_owned()).collect())
        .unwrap_or_default();
    // The game's own forms, if it has them, in place of the generic list.
    let own_forms = match (rules, me) {
        (Some(g), Some(seat)) if at_head => {
            g.forms(&FormsInput { seat, view: &view["view"], legal: &legal, labels: &labels, entered: &entered.values })
        }
        _ => None,
    };
    let my_turn = me.is_some_and(|s| decisions(&view).as_array().is_some_and(|p| p.iter().any(|x| x["seat"] == s)));
    // Between decisions, the standing orders the game takes at any time.
    let standing = match (rules, me) {
        (Some(g), Some(seat)) if at_head && !my_turn && !view["over"].as_bool().unwrap_or(false) => {
            g.standing_forms(&FormsInput {
                seat,
                view: &view["view"],
                legal: &[],
                labels: &[],
                entered: &entered.values,
            })
        }
        _ => None,
    };
    let live: Vec<bool> = log.iter().map(|e| e["in_force"].as_bool().unwrap_or(true)).collect();
    let undo =
        at_head && !view["over"].as_bool().unwrap_or(false) && me.is_some_and(|s| can_undo(&envelopes, &live, s));
    let (log, mut log_fold) = if query(req).get("log").is_some_and(|l| l == "all") {
        let n = log.len();
        (log, json!({"folded": false, "whole": true, "all": n}))
    } else {
        fold_log(log, rewind["seq"].as_u64().unwrap_or(0))
    };
    log_fold["at"] = json!(at);
    // The player boards: the viewer's own first and in full, the others'
    // public parts folded below the map.
    let boards = rules.map(|g| g.player_boards(&view["view"], &names)).unwrap_or_default();
    let board_of = |b: &runestone_engine::present::PlayerBoard| {
        json!({
            "seat": b.seat,
            "name": board::seat_name(&names, b.seat),
            "svg": b.svg,
            "html": b.html,
            "whole": b.whole,
        })
    };
    let own_board = boards.iter().find(|b| Some(b.seat) == me).map(board_of);
    let other_boards: Vec<Value> = boards.iter().filter(|b| Some(b.seat) != me).map(board_of).collect();
    let tz = match me {
        Some(s) => svc.mail_preferences(game, s).await.ok().and_then(|(_, _, tz)| tz),
        None => None,
    };
    let pending = pending_list(&decisions(&view), &names, me, &summary, tz.as_deref());
    let mut ctx = json!({
        "table": table_header(rules, &summary, &view["view"], &names, &pending, me),
        "game": game,
        "summary": summary,
        "names": names,
        "me": me.map(|s| json!({"seat": s, "name": board::seat_name(&names, s)})),
        "dots": board::seat_classes(rules, &view["view"], names.len()),
        "problem": problem,
        "pending": pending,
        "my_turn": my_turn,
        // A turn is decided against the position shown (a stale page is
        // refused); a secret plan is not, since the others' plans move the
        // log on while one decides, and a later plan replaces an earlier.
        "guard_seq": me.is_some_and(|s| {
            view["pending"].as_array().is_some_and(|p| p.iter().any(|x| x["seat"] == s && x["class"] != "plan"))
        }),
        "example": legal.first().map(Value::to_string),
        "actions": actions,
        "unavailable": unavailable,
        "error_at": entered.values.get("build").cloned().unwrap_or_default(),
        "undo": undo,
        "rewind": rewind,
        "log": log,
        "log_fold": log_fold,
        "own_board": own_board,
        "other_boards": other_boards,
        "over": summary["status"] == "over",
        "outcome": outcome_rows(&summary, &names),
        "error": error,
        "entered": entered.values,
    });
    if let Some(f) = standing {
        ctx["standing"] = json!(true);
        ctx["forms"] = json!(f.parts);
    } else if let Some(f) = own_forms {
        ctx["forms"] = json!(f.parts);
    }
    Ok(render(status, "game.html", ctx, Some(&csrf)))
}

/// The actions of the turn the rules do not allow now (the view answer's
/// `unavailable`), by group in the order given, each with an id for its
/// disabled button and the reason it is described by.
fn unavailable_groups(list: &Value) -> Value {
    let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
    for (i, a) in list.as_array().into_iter().flatten().enumerate() {
        let name = a["group"].as_str().unwrap_or("Other").to_owned();
        let item = json!({ "id": format!("not-{i}"), "label": a["label"], "reason": a["reason"] });
        match groups.iter_mut().find(|(n, _)| *n == name) {
            Some((_, items)) => items.push(item),
            None => groups.push((name, vec![item])),
        }
    }
    Value::Array(groups.into_iter().map(|(name, items)| json!({ "name": name, "items": items })).collect())
}

fn outcome_rows(summary: &Value, names: &[String]) -> Value {
    let o = &summary["outcome"];
    if o.is_null() {
        return Value::Null;
    }
    let scores = o["scores"].as_array().cloned().unwrap_or_default();
    let winners: Vec<u64> =
        o["winners"].as_array().map(|w| w.iter().filter_map(Value::as_u64).collect()).unwrap_or_default();
    let ranking: Vec<Value> = o["ranking"]
        .as_array()
        .map(|r| {
            r.iter()
                .enumerate()
                .filter_map(|(place, s)| {
                    let s = s.as_u64()?;
                    Some(json!({
                        "place": place + 1,
                        "seat": s,
                        "name": board::seat_name(names, s as u8),
                        "score": scores.get(s as usize).cloned().unwrap_or(Value::Null),
                        "winner": winners.contains(&s),
                    }))
                })
                .collect()
        })
        .unwrap_or_default();
    json!({ "summary": o["summary"], "ranking": ranking })
}

async fn seat_claims(svc: &Service, req: &HttpRequest, game: &str) -> Result<Claims, PageError> {
    match session(svc, req, Kind::Seat, game).await {
        (Some(c), _) => Ok(c),
        (None, why) => Err(PageError::new(
            StatusCode::UNAUTHORIZED,
            "Open your game link first",
            why.unwrap_or_else(|| {
                "This browser has no session for a seat of this game. Open the link from your email \
                 and press its button; then come back."
                    .into()
            }),
        )),
    }
}

async fn command(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let game = game_id(path)?;
    check_csrf(&req, &form)?;
    let claims = seat_claims(&svc, &req, &game).await?;
    let entered = Entered::of(&form);
    let built = match form.get("build") {
        // A form of the game's own: the game builds the command.
        Some(build) => {
            let summary = svc.summary(&game).await?;
            let view = svc.view(&game, claims.viewer(), None).await?;
            let posted = Posted::from(form.pairs().map(|(k, v)| (k.to_owned(), v.to_owned())).collect::<Vec<_>>());
            match game_of(&svc, &summary).and_then(|g| g.command_of_form(build, &posted, &view["view"])) {
                Some(built) => built.and_then(|c| forms::submission(&form, c)),
                None => Err(format!("this game has no form called {build:?}; reload the page")),
            }
        }
        None => forms::command_of(&form),
    };
    let submission = match built {
        Ok(c) => c,
        Err(msg) => {
            return render_game(
                &svc,
                &req,
                &game,
                Some(&claims),
                None,
                None,
                StatusCode::UNPROCESSABLE_ENTITY,
                Some(msg),
                entered,
            )
            .await
        }
    };
    match svc.clone().into_inner().submit_to_the_end(game.clone(), claims.clone(), submission, None).await {
        Ok(_) => Ok(see_other(&format!("/games/{game}"))),
        Err(e) => {
            let (status, msg) = split(e);
            render_game(&svc, &req, &game, Some(&claims), None, None, status, Some(msg), entered).await
        }
    }
}

async fn undo(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let game = game_id(path)?;
    check_csrf(&req, &form)?;
    let claims = seat_claims(&svc, &req, &game).await?;
    match svc.undo(&game, &claims).await {
        Ok(_) => Ok(see_other(&format!("/games/{game}"))),
        Err(e) => {
            let (status, msg) = split(e);
            render_game(&svc, &req, &game, Some(&claims), None, None, status, Some(msg), Entered::default()).await
        }
    }
}

// ---------------------------------------------------------------- host pages

fn rulesets(svc: &Service) -> Vec<Value> {
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
                "fields": forms::option_fields(&i.id, &g.schemas().options, &i.default_options),
            })
        })
        .collect();
    list.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    list
}

/// Seat rows of the new-game form: as many as the largest game seats
/// (the page's script shows the chosen game's maximum).
fn seat_rows(list: &[Value]) -> usize {
    list.iter().filter_map(|r| r["max_seats"].as_u64()).max().unwrap_or(6) as usize
}

/// The deadline fields of the new-game form: key, words, default unit (or
/// the words after a plain count).
fn deadline_fields() -> Value {
    json!([
        {"key": "plan", "label": "Time to plan", "unit": "days"},
        {"key": "turn", "label": "Time for a turn", "unit": "days"},
        {"key": "small", "label": "Time for a small decision", "unit": "hours"},
        {"key": "reminders", "label": "Reminders before a deadline", "text": true, "words": "hours before, separated by commas (12, 2)"},
        {"key": "grace", "label": "Grace after a missed deadline", "unit": "hours"},
        {"key": "substitute_after", "label": "Alert me after", "words": "missed deadlines in a row"},
        {"key": "forfeit_after", "label": "A player forfeits after", "words": "missed deadlines in a row (0: never)"},
    ])
}

async fn host_new(svc: Svc, req: HttpRequest) -> HttpResponse {
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

async fn host_create(svc: Svc, req: HttpRequest, form: web::Form<Form>) -> PageResult {
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
    match svc.create(request, None).await {
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
async fn created_page(
    svc: &Service,
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

async fn host_claims(svc: &Service, req: &HttpRequest, game: &str) -> Result<Claims, PageError> {
    match session(svc, req, Kind::Host, game).await {
        (Some(c), _) => Ok(c),
        (None, why) => Err(PageError::new(
            StatusCode::UNAUTHORIZED,
            "Open your host link first",
            why.unwrap_or_else(|| {
                "This browser has no host session for this game. Open the host link you were given \
                 when the game was created and press its button."
                    .into()
            }),
        )),
    }
}

async fn host_page(svc: Svc, req: HttpRequest, path: web::Path<String>) -> PageResult {
    let game = game_id(path)?;
    let at = at_of(&req)?;
    let claims = host_claims(&svc, &req, &game).await?;
    let done = query(&req).get("done").and_then(|d| done_words(d)).map(str::to_owned);
    render_host(&svc, &req, &game, &claims, at, StatusCode::OK, HostNote { done, ..HostNote::default() }).await
}

/// The entries of the log a host can roll back to (the last kept), newest
/// first, the one entered (or the head) chosen; a number entered that is
/// no such entry stays as entered, for the refusal to explain.
fn rollback_choices(log: &[Value], entered: Option<&str>, head: Option<u64>) -> Vec<Value> {
    const WORDS: usize = 100;
    let chosen = entered.map(str::trim).map(str::to_owned).or_else(|| head.map(|h| h.to_string()));
    let mut out: Vec<Value> = log
        .iter()
        .rev()
        .filter(|e| e["in_force"] == json!(true) && e["seq"].as_u64().is_some_and(|s| s >= 1))
        .map(|e| {
            let seq = e["seq"].as_u64().unwrap_or(0);
            let text = e["text"].as_str().unwrap_or_default();
            let short: String = if text.chars().count() > WORDS {
                format!("{}…", text.chars().take(WORDS).collect::<String>())
            } else {
                text.to_owned()
            };
            json!({"seq": seq, "words": format!("#{seq} {short}"), "selected": chosen.as_deref() == Some(seq.to_string().as_str())})
        })
        .collect();
    if let Some(c) = chosen.filter(|c| !c.is_empty() && !out.iter().any(|o| o["selected"] == json!(true))) {
        out.insert(0, json!({"seq": c, "words": format!("event {c} (as entered)"), "selected": true}));
    }
    out
}

/// The confirmation of a host action that redirected back to the page.
fn done_words(done: &str) -> Option<&'static str> {
    Some(match done {
        "rollback" => "Rolled back: the events after the one you chose are voided (struck in the log, never deleted), and everyone sees your reason.",
        "pause" => "The clocks are paused: no deadline runs until you resume them.",
        "resume" => "The clocks run again; every pending deadline moved on by the time they were paused.",
        "extend" => "More time given: the new deadlines are below, and the players are told by mail.",
        _ => return None,
    })
}

/// What a host form left to show: an error beside it, or a result.
#[derive(Default)]
struct HostNote {
    form: Option<&'static str>,
    error: Option<String>,
    entered: BTreeMap<String, String>,
    new_link: Option<Value>,
    /// The confirmation of an action just taken.
    done: Option<String>,
}

impl HostNote {
    /// The form `form` was refused with `error`; what was entered stays.
    fn refused(form: &'static str, error: String, entered: BTreeMap<String, String>) -> HostNote {
        HostNote { form: Some(form), error: Some(error), entered, new_link: None, done: None }
    }
}

/// A host form's checks done: its game, the host's claims, what was entered.
struct HostForm {
    game: String,
    claims: Claims,
    entered: BTreeMap<String, String>,
}

impl HostForm {
    async fn check(
        svc: &Service,
        req: &HttpRequest,
        path: web::Path<String>,
        form: &Form,
    ) -> Result<HostForm, PageError> {
        let game = game_id(path)?;
        check_csrf(req, form)?;
        let claims = host_claims(svc, req, &game).await?;
        Ok(HostForm { game, claims, entered: Entered::of(form).values })
    }
}

/// The host page again, with a refused form's error beside it.
async fn refused(svc: &Service, req: &HttpRequest, game: &str, claims: &Claims, note: HostNote) -> PageResult {
    render_host(svc, req, game, claims, None, StatusCode::UNPROCESSABLE_ENTITY, note).await
}

async fn render_host(
    svc: &Service,
    req: &HttpRequest,
    game: &str,
    claims: &Claims,
    at: Option<u64>,
    status: StatusCode,
    note: HostNote,
) -> PageResult {
    let csrf = Csrf::of(req);
    let summary = svc.summary(game).await?;
    let names = names_of(&summary);
    let (view, log, rewind, _) = log_and_position(svc, game, claims.viewer(), at, &names).await?;
    let choices = rollback_choices(&log, note.entered.get("to_seq").map(String::as_str), summary["head"].as_u64());
    let ctx = json!({
        "dots": board::seat_classes(game_of(svc, &summary), &view["view"], names.len()),
        "game": game,
        "game_name": game_name(svc, &summary),
        "summary": summary,
        "names": names,
        "seat_list": names.iter().enumerate().map(|(i, n)| json!({"seat": i, "name": n})).collect::<Vec<_>>(),
        "pending": pending_list(&decisions(&summary), &names, None, &summary, None),
        "rewind": rewind,
        "log": log,
        "over": summary["status"] == "over",
        "outcome": outcome_rows(&summary, &names),
        "note_form": note.form,
        "error": note.error,
        "entered": note.entered,
        "new_link": note.new_link,
        "done": note.done,
        "rollback_choices": choices,
        "policy_text": summary["deadlines"]["policy"].to_string(),
        "created_when": summary["created_at"].as_str().map(when),
    });
    Ok(render(status, "host.html", ctx, Some(&csrf)))
}

fn parse_seq(form: &Form, key: &str) -> Result<u64, String> {
    let raw = form.get(key).unwrap_or_default().trim();
    raw.parse::<u64>().map_err(|_| format!("{raw:?} is not an event number; give a whole number from the log"))
}

async fn host_rollback(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let HostForm { game, claims, entered } = HostForm::check(&svc, &req, path, &form).await?;
    let result = match parse_seq(&form, "to_seq") {
        Err(m) => Err(m),
        Ok(to_seq) => {
            let reason = form.get("reason").unwrap_or_default().trim().to_owned();
            if reason.is_empty() {
                Err("say why you roll back: the reason is kept in the log for everyone to read".to_owned())
            } else {
                svc.rollback(&game, &claims, json!({"to_seq": to_seq, "reason": reason})).await.map_err(words)
            }
        }
    };
    match result {
        Ok(_) => Ok(see_other(&format!("/host/{game}?done=rollback"))),
        Err(error) => refused(&svc, &req, &game, &claims, HostNote::refused("rollback", error, entered)).await,
    }
}

async fn host_reissue(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let HostForm { game, claims, entered } = HostForm::check(&svc, &req, path, &form).await?;
    let raw = form.get("seat").unwrap_or_default().trim().to_owned();
    let result = match raw.parse::<u8>() {
        Err(_) => Err(format!("{raw:?} is not a seat; choose one from the list")),
        Ok(seat) => svc
            .reissue(&game, &claims, seat, form.get("reason").unwrap_or_default().trim().to_owned())
            .await
            .map_err(words),
    };
    match result {
        Ok(mut v) => {
            v["why"] = json!("New link");
            let note = HostNote { form: Some("reissue"), new_link: Some(v), ..HostNote::default() };
            render_host(&svc, &req, &game, &claims, None, StatusCode::OK, note).await
        }
        Err(error) => refused(&svc, &req, &game, &claims, HostNote::refused("reissue", error, entered)).await,
    }
}

async fn host_fork(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let HostForm { game, claims, entered } = HostForm::check(&svc, &req, path, &form).await?;
    let result = match parse_seq(&form, "at_seq") {
        Err(m) => Err(m),
        Ok(at_seq) => svc.fork(&game, &claims, json!({"at_seq": at_seq})).await.map_err(words),
    };
    match result {
        Ok(a) => {
            let new_id = a.body["game_id"].as_str().unwrap_or_default().to_owned();
            created_page(&svc, &req, &a.body, &new_id, Some(&game)).await
        }
        Err(error) => refused(&svc, &req, &game, &claims, HostNote::refused("fork", error, entered)).await,
    }
}

/// The clock request of the host's clock forms.
fn clock_request(form: &Form) -> Result<Value, String> {
    let reason = form.get("reason").unwrap_or_default().trim().to_owned();
    match form.get("action").unwrap_or_default() {
        "pause" => Ok(json!({"action": "pause", "reason": reason})),
        "resume" => Ok(json!({"action": "resume"})),
        "extend" => {
            let seat = match form.get("seat").unwrap_or_default().trim() {
                "" | "all" => Value::Null,
                s => json!(s.parse::<u8>().map_err(|_| format!("{s:?} is not a seat; choose one from the list"))?),
            };
            let raw = form.get("hours").unwrap_or_default().trim();
            let hours: i64 = raw.parse().map_err(|_| format!("{raw:?} is not a number of hours"))?;
            Ok(json!({"action": "extend", "seat": seat, "hours": hours, "until": null, "reason": reason}))
        }
        other => Err(format!("{other:?} is not something the clocks can do")),
    }
}

async fn host_clock(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let HostForm { game, claims, entered } = HostForm::check(&svc, &req, path, &form).await?;
    let result = match clock_request(&form) {
        Err(m) => Err(m),
        Ok(r) => svc.clock_action(&game, &claims, r).await.map_err(words),
    };
    match result {
        Ok(_) => {
            let done = match form.get("action").unwrap_or_default() {
                "resume" => "resume",
                "extend" => "extend",
                _ => "pause",
            };
            Ok(see_other(&format!("/host/{game}?done={done}#clocks")))
        }
        Err(error) => {
            let form_name = if form.get("action") == Some("extend") { "extend" } else { "pause" };
            refused(&svc, &req, &game, &claims, HostNote::refused(form_name, error, entered)).await
        }
    }
}

async fn host_substitute(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let HostForm { game, claims, entered } = HostForm::check(&svc, &req, path, &form).await?;
    let raw = form.get("seat").unwrap_or_default().trim().to_owned();
    let name = form.get("name").unwrap_or_default().trim().to_owned();
    let email = form.get("email").map(str::trim).filter(|e| !e.is_empty());
    let result = match raw.parse::<u8>() {
        Err(_) => Err(format!("{raw:?} is not a seat; choose one from the list")),
        Ok(seat) => svc.substitute(&game, &claims, seat, json!({"name": name, "email": email})).await.map_err(words),
    };
    match result {
        Ok(mut v) => {
            v["why"] = json!(format!("{name} takes over; their link"));
            let note = HostNote { form: Some("substitute"), new_link: Some(v), ..HostNote::default() };
            render_host(&svc, &req, &game, &claims, None, StatusCode::OK, note).await
        }
        Err(error) => refused(&svc, &req, &game, &claims, HostNote::refused("substitute", error, entered)).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generic_forms_template_renders_every_kind_of_part() {
        use runestone_engine::present::{Choice, Field, Form, Frame, Group, Input, Note, Part, Submit, Sum};
        let options = vec![Choice::new("a", "Apples"), Choice::new("b", "<Bread>")];
        let form = Form::new(vec![
            Part::Refusal { build: "shop".into() },
            Group::new(
                Frame::Fieldset { legend: "Basket".into() },
                vec![
                    Field::new("n", "count.n", "How many", Input::Number { min: 1, max: 4 }).value("2").into(),
                    Field::new("m", "count.m", "More", Input::Number { min: 0, max: 4 }).into(),
                    Sum {
                        id: "total".into(),
                        fields: vec!["count.n".into(), "count.m".into()],
                        min: 3,
                        max: 3,
                        words: "three in all".into(),
                    }
                    .into(),
                    Field::new(
                        "one",
                        "one",
                        "Pick",
                        Input::One { options: options.clone(), blank: Some("none".into()), required: true },
                    )
                    .value("b")
                    .into(),
                    Field::new("sev", "sev", "Any", Input::Several { options, values: vec!["a".into()] }).into(),
                    Field::new("tick", "tick", "Tick", Input::Checkbox { checked: true }).into(),
                    Field::new("words", "words", "Say", Input::Text { max_len: 80 }).value("hi").into(),
                    Note::small("help").into(),
                ],
            )
            .into(),
            Submit::new("Buy").id("buy").into(),
            Submit::new("Do it").command("{\"type\":\"X\"}").id("x").into(),
            Submit::new("Later").id("later").disabled("not yet").into(),
        ])
        .id("shop-form")
        .build("shop")
        .hidden("extra", "1");
        let parts: Vec<Part> =
            vec![Group::new(Frame::Folded { summary: "Shop".into(), open: true }, vec![form.into()]).id("shop").into()];
        let ctx = json!({
            "forms": parts, "game": "g1", "csrf": "tok", "guard_seq": true, "rewind": {"head": 7},
            "error": "too few", "error_at": "shop", "entered": {"cmd": "{\"type\":\"X\"}"},
        });
        let html = templates().get_template("forms.html").unwrap().render(&ctx).unwrap();
        for want in [
            "<details id=\"shop\" open>",
            "<summary>Shop</summary>",
            "<form method=\"post\" action=\"/games/g1/commands\" id=\"shop-form\">",
            "<input type=\"hidden\" name=\"csrf\" value=\"tok\">",
            "<input type=\"hidden\" name=\"seq\" value=\"7\">",
            "<input type=\"hidden\" name=\"build\" value=\"shop\">",
            "<input type=\"hidden\" name=\"extra\" value=\"1\">",
            "id=\"error\"><strong>Not accepted:</strong> too few",
            "<legend>Basket</legend>",
            "<input type=\"number\" id=\"n\" name=\"count.n\" min=\"1\" max=\"4\" step=\"1\" inputmode=\"numeric\" value=\"2\">",
            "data-min=\"3\" data-max=\"3\">three in all</p>",
            "<select id=\"one\" name=\"one\" required>",
            "<option value=\"\">none</option>",
            "<option value=\"b\" selected>&lt;Bread&gt;</option>",
            "<input type=\"checkbox\" name=\"sev\" value=\"a\" checked> Apples",
            "<input type=\"checkbox\" name=\"sev\" value=\"b\"> &lt;Bread&gt;",
            "<input type=\"checkbox\" id=\"tick\" name=\"tick\" value=\"on\" checked>",
            "<input type=\"text\" id=\"words\" name=\"words\" value=\"hi\" maxlength=\"80\">",
            "<p class=\"small\">help</p>",
            "<button type=\"submit\" id=\"buy\">Buy</button>",
            "class=\"chosen\" id=\"x\">Do it</button>",
            "<button type=\"button\" id=\"later\" disabled aria-describedby=\"later-why\">Later</button>",
        ] {
            assert!(html.contains(want), "{want} in {html}");
        }
        assert!(html.contains("data-sum-of=\"input[name=") && html.contains("count.m"), "{html}");
        let quiet =
            json!({"forms": parts, "game": "g1", "csrf": "tok", "error": "x", "error_at": "other", "entered": {}});
        let html = templates().get_template("forms.html").unwrap().render(&quiet).unwrap();
        assert!(!html.contains("id=\"error\"") && !html.contains("name=\"seq\""), "{html}");
    }

    #[test]
    fn the_log_folds_to_the_round_of_the_position_shown_or_to_its_last_entries() {
        let entry = |seq: u64, round: Option<u64>| json!({"seq": seq, "round": round});
        let log: Vec<Value> =
            (0..20).map(|s| entry(s, [(1, 1), (8, 2), (15, 3)].iter().find(|r| r.0 == s).map(|r| r.1))).collect();
        let seqs = |l: &[Value]| l.iter().map(|e| e["seq"].as_u64().unwrap()).collect::<Vec<_>>();
        let (now, fold) = fold_log(log.clone(), 19);
        assert_eq!(seqs(&now), (15..20).collect::<Vec<_>>());
        assert_eq!(
            (fold["round"].as_u64(), fold["earlier"].as_u64(), fold["later"].as_u64()),
            (Some(3), Some(15), Some(0))
        );
        let (past, fold) = fold_log(log.clone(), 9);
        assert_eq!(seqs(&past), (8..15).collect::<Vec<_>>());
        assert_eq!((fold["earlier"].as_u64(), fold["later"].as_u64()), (Some(8), Some(5)));
        let (start, fold) = fold_log(log, 0);
        assert_eq!(seqs(&start), [0], "the creation comes before the first round");
        assert_eq!(fold["later"].as_u64(), Some(19));
        // Without rounds: the last entries up to the position shown.
        let plain: Vec<Value> = (0..100).map(|s| entry(s, None)).collect();
        let (tail, fold) = fold_log(plain, 99);
        assert_eq!(seqs(&tail), (100 - LOG_TAIL as u64..100).collect::<Vec<_>>());
        assert_eq!((fold["earlier"].as_u64(), fold["folded"].as_bool()), (Some(70), Some(true)));
        let (short, fold) = fold_log((0..5).map(|s| entry(s, None)).collect(), 4);
        assert_eq!((short.len(), fold["folded"].as_bool()), (5, Some(false)));
    }

    #[test]
    fn stamps_read_as_minutes_in_utc() {
        assert_eq!(when("2026-11-22T09:21:02.962Z"), "2026-11-22 09:21 UTC");
        assert_eq!(when("soon"), "soon");
    }

    #[test]
    fn only_equal_strings_are_the_same() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd") && !same("abc", "ab") && !same("", "a"));
    }
}
