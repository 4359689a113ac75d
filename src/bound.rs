//! Every request answered within its bound, and no HTTP worker held while
//! the store is waited on.
//!
//! The store's reads are synchronous: on PostgreSQL each is a round trip to
//! the database, and a database that does not answer (unreachable, paused)
//! holds the calling thread for up to the store's own bound of 20 s. An HTTP
//! worker is one thread serving many connections, so a read waited on there
//! stops every other request of that worker, `/healthz` included. So on a
//! shared store a request's service work runs on a thread of its own
//! ([`off_worker`]), and the worker only awaits its answer. (On the embedded
//! store reads are local and take microseconds; the work runs as a task of
//! the worker, which spares a thread hop per request.)
//!
//! Either way the work is a task of its own: a request answered 503 because
//! its bound passed ([`late`]) leaves its work running to its end, so a
//! write is settled as every other one is — recorded whole or not at all —
//! and a command the client was told may or may not have been recorded is
//! found in the log, or not, once the store answers again.

use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError as _};

use runestone_engine::{Table, Viewer};
use serde_json::Value;

use crate::auth::Claims;
use crate::problem::ApiError;
use crate::service::press::{Message, Messages};
use crate::service::{Answer, EventView, Service, ServiceError, Written};
use crate::store::StoreError;

type Result<T, E = ServiceError> = std::result::Result<T, E>;

/// Threads waiting on the store at once, at most; more requests wait for
/// one of them (and are answered 503 at their bound if none frees up).
const WAITING_THREADS: usize = 512;

/// The runtime whose blocking threads run service work on a shared store.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .max_blocking_threads(WAITING_THREADS)
            .thread_name("runestone-store-wait")
            .enable_all()
            .build()
            .expect("the threads that wait on the store start")
    })
}

/// Run `work` (one request's calls into the service) where waiting on the
/// store holds no HTTP worker, to its end even if the request is answered
/// before it (see the module's doc); its result.
pub async fn off_worker<T, Fut>(
    svc: &Arc<Service>,
    work: impl FnOnce(Arc<Service>) -> Fut + Send + 'static,
) -> Result<T>
where
    T: Send + 'static,
    Fut: Future<Output = Result<T>> + Send + 'static,
{
    let s = svc.clone();
    let joined = if svc.store().shared() {
        let rt = runtime();
        let handle = rt.handle().clone();
        rt.spawn_blocking(move || handle.block_on(work(s))).await.map_err(|_| ())
    } else {
        actix_web::rt::spawn(work(s)).await.map_err(|_| ())
    };
    joined.unwrap_or_else(|()| {
        Err(StoreError::Io(
            "the request stopped before it was answered; if it was a change, the game's events say whether it \
             was recorded"
                .into(),
        )
        .into())
    })
}

/// The per-request bound: `server.answer_seconds`.
#[derive(Clone, Copy, Debug)]
pub struct Bound(pub Duration);

/// Seconds a client answered [`late`] is asked to wait.
const LATE_RETRY_SECONDS: u32 = 5;

/// The answer to a request not answered within `bound`: 503, in words.
pub fn late(bound: Duration) -> HttpResponse {
    let mut r = ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "Not answered in time",
        format!(
            "no answer could be made within {} seconds: the store is slow to answer or cannot be reached. \
             If this was a change, it may or may not have been recorded (its work goes on): read the game's \
             log before sending it again, or send it again with the same Idempotency-Key",
            bound.as_secs()
        ),
    )
    .error_response();
    r.headers_mut().insert(actix_web::http::header::RETRY_AFTER, LATE_RETRY_SECONDS.into());
    r
}

/// The service as the handlers call it: each call that may wait on the
/// store runs [`off_worker`]; everything else is the service's own (`Deref`).
#[derive(Clone)]
pub struct OffWorker(Arc<Service>);

impl std::ops::Deref for OffWorker {
    type Target = Service;

    fn deref(&self) -> &Service {
        &self.0
    }
}

impl actix_web::FromRequest for OffWorker {
    type Error = actix_web::Error;
    type Future = std::future::Ready<Result<OffWorker, actix_web::Error>>;

    fn from_request(req: &actix_web::HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        std::future::ready(match req.app_data::<actix_web::web::Data<Service>>() {
            Some(data) => Ok(OffWorker(data.clone().into_inner())),
            None => Err(actix_web::error::ErrorInternalServerError("the service is not configured")),
        })
    }
}

// Each method: the service's method of the same name, run off the worker.
impl OffWorker {
    /// The service itself, for what never waits on the store.
    pub fn service(&self) -> &Arc<Service> {
        &self.0
    }

    pub async fn authorize(&self, game: &str, token: &str) -> Result<Claims> {
        let (game, token) = (game.to_owned(), token.to_owned());
        off_worker(&self.0, move |s| async move { s.authorize(&game, &token).await }).await
    }

    pub async fn create_by(
        &self,
        req: Value,
        idempotency: Option<&str>,
        caller: &crate::limits::Caller,
    ) -> Result<Answer> {
        let (key, caller) = (idempotency.map(str::to_owned), caller.clone());
        off_worker(&self.0, move |s| async move { s.create_by(req, key.as_deref(), &caller).await }).await
    }

    pub async fn confirm_host(&self, game: &str) -> Result<usize> {
        let game = game.to_owned();
        off_worker(&self.0, move |s| async move { s.confirm_host(&game).await }).await
    }

    pub async fn create(&self, req: Value, idempotency: Option<&str>) -> Result<Answer> {
        let key = idempotency.map(str::to_owned);
        off_worker(&self.0, move |s| async move { s.create(req, key.as_deref()).await }).await
    }

    /// A seat's command, answered as JSON text; it runs to its end even when
    /// its request is answered first.
    pub async fn submit_written(
        &self,
        game: &str,
        claims: &Claims,
        req: Value,
        idempotency: Option<&str>,
    ) -> Result<Written> {
        let (game, claims, key) = (game.to_owned(), claims.clone(), idempotency.map(str::to_owned));
        off_worker(&self.0, move |s| async move { s.submit_written(&game, &claims, req, key.as_deref()).await }).await
    }

    pub async fn post_message(&self, game: &str, claims: &Claims, req: Value) -> Result<Message> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.post_message(&game, &claims, req).await }).await
    }

    pub async fn messages(
        &self,
        game: &str,
        claims: Option<&Claims>,
        channel: Option<&str>,
        since: Option<u64>,
        limit: Option<u64>,
    ) -> Result<Messages> {
        let (game, claims, channel) = (game.to_owned(), claims.cloned(), channel.map(str::to_owned));
        off_worker(&self.0, move |s| async move {
            s.messages(&game, claims.as_ref(), channel.as_deref(), since, limit).await
        })
        .await
    }

    pub async fn message_for(&self, game: &str, claims: Option<&Claims>, seq: u64) -> Result<Option<Message>> {
        let (game, claims) = (game.to_owned(), claims.cloned());
        off_worker(&self.0, move |s| async move { s.message_for(&game, claims.as_ref(), seq).await }).await
    }

    pub async fn hide_message(&self, game: &str, claims: &Claims, seq: u64, req: Value) -> Result<Message> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.hide_message(&game, &claims, seq, req).await }).await
    }

    pub async fn report_message(&self, game: &str, claims: &Claims, seq: u64, req: Value) -> Result<Message> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.report_message(&game, &claims, seq, req).await }).await
    }

    pub async fn undo(&self, game: &str, claims: &Claims) -> Result<Value> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.undo(&game, &claims).await }).await
    }

    pub async fn rollback(&self, game: &str, claims: &Claims, req: Value) -> Result<Value> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.rollback(&game, &claims, req).await }).await
    }

    pub async fn reissue(&self, game: &str, claims: &Claims, seat: u8, reason: String) -> Result<Value> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.reissue(&game, &claims, seat, reason).await }).await
    }

    pub async fn reissue_holder(
        &self,
        game: &str,
        claims: &Claims,
        holder: runestone_engine::Holder,
        reason: String,
    ) -> Result<Value> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.reissue_holder(&game, &claims, holder, reason).await }).await
    }

    pub async fn fork(&self, game: &str, claims: &Claims, req: Value) -> Result<Answer> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.fork(&game, &claims, req).await }).await
    }

    pub async fn substitute(&self, game: &str, claims: &Claims, seat: u8, req: Value) -> Result<Value> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.substitute(&game, &claims, seat, req).await }).await
    }

    pub async fn clock_action(&self, game: &str, claims: &Claims, req: Value) -> Result<Value> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.clock_action(&game, &claims, req).await }).await
    }

    pub async fn dead_letters(&self, game: &str, claims: &Claims) -> Result<Vec<Value>> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.dead_letters(&game, &claims).await }).await
    }

    pub async fn retry_dead_letter(&self, game: &str, claims: &Claims, id: &str) -> Result<Value> {
        let (game, claims, id) = (game.to_owned(), claims.clone(), id.to_owned());
        off_worker(&self.0, move |s| async move { s.retry_dead_letter(&game, &claims, &id).await }).await
    }

    pub async fn summary(&self, game: &str) -> Result<Value> {
        let game = game.to_owned();
        off_worker(&self.0, move |s| async move { s.summary(&game).await }).await
    }

    pub async fn view(&self, game: &str, viewer: Viewer, at: Option<u64>) -> Result<Value> {
        let game = game.to_owned();
        off_worker(&self.0, move |s| async move { s.view(&game, viewer, at).await }).await
    }

    pub async fn view_answer(&self, game: &str, viewer: Viewer, at: Option<u64>) -> Result<Vec<u8>> {
        let game = game.to_owned();
        off_worker(&self.0, move |s| async move { s.view_answer(&game, viewer, at).await }).await
    }

    pub async fn events(&self, game: &str, viewer: Viewer, from: u64, to: Option<u64>) -> Result<Vec<EventView>> {
        let game = game.to_owned();
        off_worker(&self.0, move |s| async move { s.events(&game, viewer, from, to).await }).await
    }

    pub async fn subscribe(&self, game: &str) -> Result<crate::service::Subscription> {
        let game = game.to_owned();
        off_worker(&self.0, move |s| async move { s.subscribe(&game).await }).await
    }

    pub async fn game_table(&self, game: &str) -> Result<Table> {
        let game = game.to_owned();
        off_worker(&self.0, move |s| async move { s.game_table(&game).await }).await
    }

    pub async fn verify(&self, game: &str) -> Result<Value> {
        let game = game.to_owned();
        off_worker(&self.0, move |s| async move { s.verify(&game).await }).await
    }

    pub async fn seat_name(&self, game: &str, seat: u8) -> Result<String> {
        let game = game.to_owned();
        off_worker(&self.0, move |s| async move { s.seat_name(&game, seat).await }).await
    }

    pub async fn mail_preferences(&self, game: &str, seat: u8) -> Result<(bool, bool, Option<String>)> {
        let game = game.to_owned();
        off_worker(&self.0, move |s| async move { s.mail_preferences(&game, seat).await }).await
    }

    pub async fn set_mail_preferences(
        &self,
        game: &str,
        seat: u8,
        mail: Option<bool>,
        digest: Option<bool>,
        tz: Option<Option<String>>,
    ) -> Result<()> {
        let game = game.to_owned();
        off_worker(&self.0, move |s| async move { s.set_mail_preferences(&game, seat, mail, digest, tz).await }).await
    }

    pub async fn notification_settings(
        &self,
        game: &str,
        claims: &Claims,
        seat: u8,
    ) -> Result<crate::service::hooks::Notifications> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.notification_settings(&game, &claims, seat).await }).await
    }

    pub async fn set_notification_settings(
        &self,
        game: &str,
        claims: &Claims,
        seat: u8,
        body: Value,
    ) -> Result<crate::service::hooks::Notifications> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.set_notification_settings(&game, &claims, seat, body).await }).await
    }

    pub async fn channel(&self, game: &str, claims: &Claims) -> Result<crate::service::hooks::Channel> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.channel(&game, &claims).await }).await
    }

    pub async fn set_channel(
        &self,
        game: &str,
        claims: &Claims,
        body: Value,
    ) -> Result<crate::service::hooks::Channel> {
        let (game, claims) = (game.to_owned(), claims.clone());
        off_worker(&self.0, move |s| async move { s.set_channel(&game, &claims, body).await }).await
    }

    pub async fn stop_hook(&self, game: &str, who: crate::service::hooks::Stopped) -> Result<()> {
        let game = game.to_owned();
        off_worker(&self.0, move |s| async move { s.stop_hook(&game, who).await }).await
    }

    pub async fn stopped_words(&self, game: &str, who: crate::service::hooks::Stopped) -> Result<String> {
        let game = game.to_owned();
        off_worker(&self.0, move |s| async move { s.stopped_words(&game, who).await }).await
    }

    /// The game's head as the store has it now.
    pub async fn head(&self, game: &str) -> Result<Option<u64>> {
        let game = game.to_owned();
        off_worker(&self.0, move |s| async move { Ok(s.store().head(&game)?) }).await
    }

    /// Messages waiting in the outbox, and dead letters.
    pub async fn outbox_depth(&self) -> Result<(usize, usize)> {
        off_worker(&self.0, move |s| async move { Ok(s.outbox_depth()) }).await
    }
}
