//! Replies by mail reaching the server: the route `runestone inbound` hands
//! each message to (authenticated by the inbound route key, bounded by
//! `inbound.max_bytes`), and the pages behind the links of a receipt: the
//! confirmation of an order sent from another address, and "not me:
//! revoke my links". Like every mailed link, each page acts only on a POST
//! behind a button, so mail scanners that prefetch links change nothing.

use actix_web::http::StatusCode;
use actix_web::web::{self, Payload};
use actix_web::{HttpRequest, HttpResponse};
use futures_util::StreamExt;

use super::answers::typed;
use super::mail::{escape, page};
use super::request::percent_decode;
use super::{types, ApiError, ApiResult, Svc};
use crate::service::shown;

/// The longest recipient address taken in the query.
const MAX_RECIPIENT: usize = 320;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/mail/order/{game}/{seat}/{nonce}/{sig}", web::get().to(order_page))
        .route("/mail/order/{game}/{seat}/{nonce}/{sig}", web::post().to(confirm_order))
        .route("/mail/revoke/{game}/{seat}/{gen}/{sig}", web::get().to(revoke_page))
        .route("/mail/revoke/{game}/{seat}/{gen}/{sig}", web::post().to(revoke));
}

/// `POST /api/v1/inbound/mail`: one received message (RFC 5322) as the
/// body, its envelope recipient in `?recipient=`.
pub(super) async fn receive(svc: Svc, req: HttpRequest, mut body: Payload) -> ApiResult {
    // The key first: a caller without it learns nothing, not even whether
    // this server takes replies.
    let given = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    let Some(given) = given else {
        return Err(ApiError::unauthorized(
            "the inbound route takes mail only from `runestone inbound`: send `Authorization: Bearer <inbound route key>`",
        ));
    };
    let want = svc.inbound_route_key();
    if want.is_empty()
        || given.len() != want.len()
        || given.bytes().zip(want.bytes()).fold(0u8, |a, (x, y)| a | (x ^ y)) != 0
    {
        return Err(ApiError::unauthorized("this is not the server's inbound route key"));
    }
    let inbound = svc
        .inbound()
        .ok_or_else(|| ApiError::not_found("this server takes no replies by mail (its inbound.domain is not set)"))?;
    let recipient = req.query_string().split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == "recipient").then(|| percent_decode(v))
    });
    if let Some(r) = &recipient {
        if r.chars().count() > MAX_RECIPIENT {
            return Err(ApiError::bad_request(format!(
                "the recipient is longer than an address may be ({MAX_RECIPIENT} characters)"
            )));
        }
    }
    let limit = inbound.max_bytes;
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "Payload too large",
            format!("the message is over the limit of {limit} bytes (inbound.max_bytes)"),
        )
    };
    let mut raw = web::BytesMut::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|_| ApiError::bad_request("the message could not be read to its end"))?;
        if raw.len() + chunk.len() > limit {
            return Err(too_large());
        }
        raw.extend_from_slice(&chunk);
    }
    if raw.is_empty() {
        return Err(ApiError::bad_request("the body is empty; send one mail message (RFC 5322)"));
    }
    let handled = svc.receive_mail(&raw, recipient.as_deref()).await?;
    Ok(typed::<types::InboundAnswer>(serde_json::to_value(handled).expect("JSON")))
}

fn forged() -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "Forged link",
        "this link was not made by this server (or was changed); use the link from your latest email",
    )
}

type OrderLink = web::Path<(String, u8, String, String)>;
type RevokeLink = web::Path<(String, u8, u32, String)>;

fn check_order(svc: &Svc, link: &(String, u8, String, String)) -> Result<(), ApiError> {
    let (game, seat, nonce, sig) = link;
    if nonce.len() > 64 || !svc.keys().check_link_signature("order", &format!("{game}/{seat}/{nonce}"), sig) {
        return Err(forged());
    }
    Ok(())
}

fn check_revoke(svc: &Svc, link: &(String, u8, u32, String)) -> Result<(), ApiError> {
    let (game, seat, gen, sig) = link;
    if !svc.keys().check_link_signature("revoke", &format!("{game}/{seat}/{gen}"), sig) {
        return Err(forged());
    }
    Ok(())
}

async fn order_page(svc: Svc, link: OrderLink) -> Result<HttpResponse, ApiError> {
    check_order(&svc, &link)?;
    Ok(page(
        "Confirm your order?",
        "<p>An order came to your reply address from another address than yours. It is taken only if you confirm it.</p>\
         <form method=\"post\"><button type=\"submit\">Confirm the order</button></form>\
         <p>Did not send it? Close this page, and revoke your links from the mail that brought you here.</p>",
    ))
}

async fn confirm_order(svc: Svc, link: OrderLink) -> Result<HttpResponse, ApiError> {
    check_order(&svc, &link)?;
    let (game, seat, nonce, _) = link.as_ref();
    let handled = svc.confirm_order(game, *seat, nonce).await?;
    Ok(page(
        "Order confirmed",
        &format!("<p>{}.</p><p>A receipt is on its way to your address.</p>", escape(&shown(&handled.detail))),
    ))
}

async fn revoke_page(svc: Svc, link: RevokeLink) -> Result<HttpResponse, ApiError> {
    check_revoke(&svc, &link)?;
    Ok(page(
        "Revoke your links?",
        "<p>Every link to your seat and every reply address mailed to you stops working at once. \
         A new link comes to your own address.</p>\
         <form method=\"post\"><button type=\"submit\">Revoke my links</button></form>",
    ))
}

async fn revoke(svc: Svc, link: RevokeLink) -> Result<HttpResponse, ApiError> {
    check_revoke(&svc, &link)?;
    let (game, seat, gen, _) = link.as_ref();
    svc.revoke_by_mail(game, *seat, *gen).await?;
    Ok(page(
        "Links revoked",
        "<p>Your old links and reply addresses no longer work. Your new link is on its way to your address.</p>",
    ))
}
