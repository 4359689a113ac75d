//! CSRF and sessions: the double-submit CSRF value every form carries, the
//! session cookies a magic link's landing sets, and the checks of the
//! game id, the query and the seat's or host's session every page makes.

use std::collections::BTreeMap;

use actix_web::cookie::{time, Cookie, SameSite};
use actix_web::http::StatusCode;
use actix_web::web;
use actix_web::HttpRequest;

use super::forms::Form;
use super::page::{words, PageError};
use super::Svc;
use crate::auth::{Claims, Role};

const CSRF_COOKIE: &str = "rs_csrf";

/// The page's CSRF value, and the cookie to set when it is new.
///
/// The value a form carries is not the cookie itself but a signature of
/// it and of the session the form acts under (the seat's or host's token
/// for this game, or nothing on the pages before a session): a value
/// planted in the browser by someone else (a sibling domain can set
/// cookies) is useless without this server's key and the player's own
/// session token, and a form from one session never passes for another.
pub(super) struct Csrf {
    pub(super) value: String,
    pub(super) cookie: Option<Cookie<'static>>,
}

/// Whether the browser reached this server over https: the connection
/// said so, or the server's public URL is an https one (a proxy in front
/// ends TLS).
pub(super) fn is_https(req: &HttpRequest) -> bool {
    req.connection_info().scheme() == "https"
        || req.app_data::<web::Data<crate::service::Service>>().is_some_and(|s| s.https())
}

/// The browser's CSRF cookie, when it holds one this server could have made.
fn csrf_cookie(req: &HttpRequest) -> Option<String> {
    let c = req.cookie(CSRF_COOKIE)?;
    let v = c.value();
    (v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit())).then(|| v.to_owned())
}

/// The session token the browser holds for `kind` of `game` ("" for none).
fn session_token(req: &HttpRequest, kind: Kind, game: &str) -> String {
    req.cookie(&cookie_name(kind, game)).map(|c| c.value().to_owned()).unwrap_or_default()
}

/// The form value for the cookie `cookie` under the session `token`.
fn signed(req: &HttpRequest, cookie: &str, token: &str) -> String {
    let svc = req.app_data::<web::Data<crate::service::Service>>().expect("the web pages run inside the service");
    svc.keys().link_signature("csrf", &format!("{cookie}\0{token}"))
}

impl Csrf {
    /// For a page whose forms need no session (the landing, the new-game form).
    pub(super) fn of(req: &HttpRequest) -> Csrf {
        Csrf::under(req, "")
    }

    /// For a page whose forms act under the browser's `kind` session of `game`.
    pub(super) fn for_session(req: &HttpRequest, kind: Kind, game: &str) -> Csrf {
        Csrf::under(req, &session_token(req, kind, game))
    }

    /// For a page whose forms act under `token`, a session set by this very
    /// response (a host's replaced link).
    pub(super) fn under(req: &HttpRequest, token: &str) -> Csrf {
        if let Some(cookie) = csrf_cookie(req) {
            return Csrf { value: signed(req, &cookie, token), cookie: None };
        }
        let fresh = hex::encode(crate::random_bytes::<32>());
        let value = signed(req, &fresh, token);
        let cookie = Cookie::build(CSRF_COOKIE, fresh)
            .path("/")
            .http_only(true)
            .same_site(SameSite::Lax)
            .secure(is_https(req))
            .finish();
        Csrf { value, cookie: Some(cookie) }
    }
}

/// Constant-time equality of two strings.
pub(super) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Refuse a form whose CSRF field is not this browser's value for a form
/// that needs no session.
pub(super) fn check_csrf(req: &HttpRequest, form: &Form) -> Result<(), PageError> {
    check_under(req, form, "")
}

/// Refuse a form whose CSRF field is not this browser's value for its
/// `kind` session of `game` (check the session itself first: a browser
/// without one is told to open its link, not that the form is stale).
pub(super) fn check_csrf_session(req: &HttpRequest, form: &Form, kind: Kind, game: &str) -> Result<(), PageError> {
    check_under(req, form, &session_token(req, kind, game))
}

fn check_under(req: &HttpRequest, form: &Form, token: &str) -> Result<(), PageError> {
    let field = form.get("csrf").unwrap_or_default();
    match csrf_cookie(req) {
        Some(cookie) if same(&signed(req, &cookie, token), field) => Ok(()),
        _ => Err(PageError::new(
            StatusCode::FORBIDDEN,
            "This form was not accepted",
            "The form did not carry this browser's security value (it may be from an old page, another site, \
             another sign-in, or cookies may be blocked). Nothing was changed: go back, reload the page and try again.",
        )),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Seat,
    Host,
}

pub(super) fn valid_game_id(game: &str) -> bool {
    !game.is_empty() && game.len() <= 64 && game.bytes().all(|b| b.is_ascii_alphanumeric())
}

pub(super) fn cookie_name(kind: Kind, game: &str) -> String {
    match kind {
        Kind::Seat => format!("rs_seat_{game}"),
        Kind::Host => format!("rs_host_{game}"),
    }
}

pub(super) fn session_cookie(
    req: &HttpRequest,
    kind: Kind,
    game: &str,
    token: &str,
    claims: &Claims,
) -> Cookie<'static> {
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
pub(super) async fn session(svc: &Svc, req: &HttpRequest, kind: Kind, game: &str) -> (Option<Claims>, Option<String>) {
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

pub(super) fn game_id(path: web::Path<String>) -> Result<String, PageError> {
    let g = path.into_inner();
    if valid_game_id(&g) {
        Ok(g)
    } else {
        Err(PageError::new(StatusCode::NOT_FOUND, "No such game", format!("there is no game {g:?}")))
    }
}

/// `?at=` and `?token=` read leniently (a bad value is a page, not JSON).
pub(super) fn query(req: &HttpRequest) -> BTreeMap<String, String> {
    web::Query::<BTreeMap<String, String>>::from_query(req.query_string()).map(|q| q.into_inner()).unwrap_or_default()
}

pub(super) fn at_of(req: &HttpRequest) -> Result<Option<u64>, PageError> {
    match query(req).get("at").map(|s| s.trim()).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => s.parse::<u64>().map(Some).map_err(|_| {
            PageError::new(StatusCode::BAD_REQUEST, "Not a position", format!("{s:?} is not an event number"))
        }),
    }
}

pub(super) async fn seat_claims(svc: &Svc, req: &HttpRequest, game: &str) -> Result<Claims, PageError> {
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

pub(super) async fn host_claims(svc: &Svc, req: &HttpRequest, game: &str) -> Result<Claims, PageError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_equal_strings_are_the_same() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd") && !same("abc", "ab") && !same("", "a"));
    }
}
