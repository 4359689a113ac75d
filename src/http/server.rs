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
use super::{configure, head, not_found, routes, ApiError, BodyLimit, Svc};
use crate::metrics::Metrics;
use crate::service::Service;

pub(super) static REQUEST_IDS: AtomicU64 = AtomicU64::new(0);

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
