//! Reading a request: its JSON body (bounded, typed, integral numbers
//! made whole), its bearer token and the claims it carries, the
//! idempotency key, and whole numbers in the query and the path.

use actix_web::http::StatusCode;
use actix_web::web::{self, Payload};
use actix_web::HttpRequest;
use futures_util::StreamExt;
use runestone_engine::Viewer;
use serde_json::{json, Value};

use super::{ApiError, ApiResult, BodyLimit, Svc};
use crate::auth::Claims;
use crate::service::{shown, Service};

/// The key the client of `req` is counted under ([`crate::limits::Access::client`]).
pub fn client_of(svc: &Service, req: &HttpRequest) -> String {
    crate::limits::client_of(svc.access(), req)
}

/// Who asks to create a game: the client's address (as `[access]` says to
/// read it) and the instance key in `Authorization: Bearer <key>`, if any.
pub(super) fn caller(svc: &Service, req: &HttpRequest) -> ApiResult<crate::limits::Caller> {
    let client = client_of(svc, req);
    let instance_key = match req.headers().get(actix_web::http::header::AUTHORIZATION) {
        None => None,
        Some(v) => {
            let text = v.to_str().map_err(|_| ApiError::unauthorized("the Authorization header is not text"))?;
            let key = text.strip_prefix("Bearer ").ok_or_else(|| {
                ApiError::unauthorized("the Authorization header must be \"Bearer <instance key>\" to create a game")
            })?;
            Some(key.trim().to_owned())
        }
    };
    Ok(crate::limits::Caller { client, instance_key })
}

/// Read a JSON body of at most the configured size.
pub(super) async fn read_json(req: &HttpRequest, mut payload: Payload) -> ApiResult<Value> {
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
pub(super) fn integral(v: Value) -> Value {
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
pub(super) fn bearer(req: &HttpRequest, query_allowed: bool) -> ApiResult<Option<String>> {
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
pub(super) fn query_token(req: &HttpRequest) -> Option<String> {
    req.query_string().split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == "token").then(|| percent_decode(v))
    })
}

/// Decode `%XX` escapes and `+` of a query value (tokens are base64url and
/// dots, so this is only for clients that escape anyway).
pub(super) fn percent_decode(v: &str) -> String {
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

pub(super) async fn claims(svc: &Svc, req: &HttpRequest, game: &str) -> ApiResult<Option<Claims>> {
    match bearer(req, false)? {
        None => Ok(None),
        Some(t) => Ok(Some(svc.authorize(game, &t).await?)),
    }
}

pub(super) async fn required_claims(svc: &Svc, req: &HttpRequest, game: &str) -> ApiResult<Claims> {
    claims(svc, req, game)
        .await?
        .ok_or_else(|| ApiError::unauthorized("this needs a token: send `Authorization: Bearer <token>`"))
}

pub(super) fn viewer(c: &Option<Claims>) -> Viewer {
    c.as_ref().map_or(Viewer::Public, Claims::viewer)
}

pub(super) fn idempotency_key(req: &HttpRequest) -> ApiResult<Option<String>> {
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

/// A whole number written in digits; one past what 64 bits hold counts as
/// the largest (beyond any seat or position, so answered as such).
pub(super) fn whole(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.parse().unwrap_or(u64::MAX))
}

/// A whole-number query parameter, refused in the API's own words when it
/// is anything else.
pub(super) fn query_number(req: &HttpRequest, name: &str) -> ApiResult<Option<u64>> {
    let raw = req.query_string().split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| percent_decode(v))
    });
    let shown = |v: &str| {
        let cut: String = v.chars().take(40).collect();
        let more = if v.chars().count() > 40 { "…" } else { "" };
        format!("{cut:?}{more}")
    };
    match raw {
        None => Ok(None),
        // Digits past 64 bits are no event number any log can reach: said
        // so, rather than read as the largest number and named as that.
        Some(v) if whole(&v).is_some() && v.parse::<u64>().is_err() => Err(ApiError::bad_request(format!(
            "the query parameter `{name}` is {}, larger than any event number can be",
            shown(&v)
        ))),
        Some(v) => whole(&v).map(Some).ok_or_else(|| {
            ApiError::bad_request(format!(
                "the query parameter `{name}` must be a whole number of 0 or more, not {}",
                shown(&v)
            ))
        }),
    }
}

/// The `{seat}` of a path: 400 if it is not a whole number, 422 if the game
/// has no such seat (whatever its size).
pub(super) async fn seat_param(svc: &Svc, game: &str, raw: &str) -> ApiResult<u8> {
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
