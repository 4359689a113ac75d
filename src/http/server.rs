//! Serving: the actix app (the API, the mail pages and the web pages), each
//! request's id, span, metrics and recorded answer, and connections wrapped
//! so that even a head actix cannot read is answered as problem+json.

use std::net::TcpListener;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Service as _;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::web::{self, Data};
use actix_web::App;
use tracing::Instrument;

use super::answers::{note_answer, RECORDING};
use super::{configure, head, limits, not_found, routes, ApiError, BodyLimit};
use crate::metrics::Metrics;
use crate::service::Service;

pub(super) static REQUEST_IDS: AtomicU64 = AtomicU64::new(0);

/// How a server serves: its bounds, and what `/healthz` reads.
pub struct Serving {
    pub max_body_bytes: usize,
    /// HTTP workers; 0: one per core.
    pub workers: usize,
    pub budget: limits::Budget,
    /// Every request is answered within this (`server.answer_seconds`).
    pub answer_within: Duration,
    pub probe: Arc<crate::health::StoreProbe>,
}

/// Start serving on `listener` (bind port 0 in tests and read it back).
pub fn serve(
    listener: TcpListener,
    service: Arc<Service>,
    serving: Serving,
) -> std::io::Result<actix_web::dev::Server> {
    let Serving { max_body_bytes: limit, workers, budget, answer_within, probe } = serving;
    let data = Data::from(service);
    let streams = limits::StreamLimits::new(&budget);
    let prefix = hex::encode(crate::random_bytes::<3>());
    let app = move || {
        let prefix = prefix.clone();
        App::new()
            .app_data(data.clone())
            .app_data(BodyLimit(limit))
            .app_data(streams.clone())
            .app_data(probe.clone())
            .app_data(crate::bound::Bound(answer_within))
            .app_data(web::QueryConfig::default().error_handler(|_, _| {
                ApiError::bad_request("the query string is not valid: see /openapi.json for this route's parameters")
                    .into()
            }))
            .app_data(web::PathConfig::default().error_handler(|_, _| {
                ApiError::bad_request("the path is not valid: see /openapi.json for the routes served").into()
            }))
            .configure(configure)
            .configure(super::mail::configure)
            .configure(super::inbound::configure)
            .configure(super::notify::configure)
            .configure(crate::web::configure)
            .default_service(web::to(not_found))
            // Pages, documents and streams leave gzipped for a client that
            // asks (a seat page is mostly repeated markup: a fifth of its size).
            .wrap(actix_web::middleware::Compress::default())
            .wrap_fn(move |req, srv| {
                let id = format!("{prefix}-{}", REQUEST_IDS.fetch_add(1, Ordering::Relaxed));
                let span = tracing::info_span!("request", id = %id, method = %req.method(), path = %req.path());
                let svc = req.app_data::<Data<Service>>().cloned();
                let route = RECORDING
                    .load(Ordering::Relaxed)
                    .then(|| req.match_pattern().map(|p| (req.method().to_string(), p)))
                    .flatten();
                let fut = srv.call(req);
                async move {
                    // Within its bound, or 503 (any work goes on: see `bound`).
                    let answered = tokio::time::timeout(answer_within, fut).await;
                    let mut res = match answered {
                        Ok(res) => Ok(res?),
                        Err(_) => {
                            tracing::warn!("not answered within {} s", answer_within.as_secs());
                            Err(crate::bound::late(answer_within))
                        }
                    };
                    let headers = match &mut res {
                        Ok(r) => r.headers_mut(),
                        Err(r) => r.headers_mut(),
                    };
                    if let Ok(v) = HeaderValue::from_str(&id) {
                        headers.insert(HeaderName::from_static("x-request-id"), v);
                    }
                    if svc.as_ref().is_some_and(|s| s.https()) {
                        headers.insert(
                            HeaderName::from_static("strict-transport-security"),
                            HeaderValue::from_static("max-age=31536000"),
                        );
                    }
                    let status = match &res {
                        Ok(r) => r.status(),
                        Err(r) => r.status(),
                    };
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
                    // A late answer has no request to go with (the handler
                    // holds it): it leaves as an error carrying the answer.
                    res.map_err(|late| {
                        actix_web::error::InternalError::from_response("not answered in time", late).into()
                    })
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
    // actix bounds connections per worker (its default is as many workers
    // as cores); past the bound it stops accepting until one closes.
    let workers = if workers > 0 { workers } else { std::thread::available_parallelism().map_or(2, |n| n.get()) };
    builder = builder.max_concurrent_connections((budget.connections / workers).max(1));
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
