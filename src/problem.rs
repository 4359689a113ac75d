//! A problem a request met, in the members of RFC 9457: a status that fits,
//! a title, and a detail a person can act on; made here from a service
//! error. The API serves it as `application/problem+json` (`http::error`),
//! the pages show its words on an error page or beside a form.

use actix_web::http::StatusCode;
use runestone_engine::KernelError;
use serde_json::{json, Value};

use crate::service::ServiceError;
use crate::store::StoreError;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub title: &'static str,
    pub detail: String,
    /// Extra members of the problem object.
    pub extra: Option<Value>,
    /// Seconds for a `Retry-After` header (a rate limit's refusal).
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, title: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError { status, title, detail: detail.into(), extra: None, retry_after: None }
    }

    pub fn bad_request(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "Bad request", detail)
    }

    pub fn unauthorized(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "Unauthorized", detail)
    }

    pub fn not_found(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "Not found", detail)
    }

    pub(crate) fn slug(&self) -> String {
        self.title.to_lowercase().replace(' ', "-")
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.title, self.detail)
    }
}

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> ApiError {
        use StatusCode as S;
        match e {
            ServiceError::NotFound(d) => ApiError::new(S::NOT_FOUND, "Not found", d),
            ServiceError::Unauthorized(d) => ApiError::new(S::UNAUTHORIZED, "Unauthorized", d),
            ServiceError::Forbidden(d) => ApiError::new(S::FORBIDDEN, "Forbidden", d),
            ServiceError::BadRequest(d) => ApiError::new(S::BAD_REQUEST, "Bad request", d),
            ServiceError::Unprocessable(d) => ApiError::new(S::UNPROCESSABLE_ENTITY, "Unprocessable", d),
            ServiceError::Conflict(d) => ApiError::new(S::CONFLICT, "Conflict", d),
            ServiceError::Kernel(k) => {
                let detail = k.to_string();
                match k {
                    KernelError::GameOver => ApiError::new(S::CONFLICT, "Game over", detail),
                    KernelError::Stale { expected, head } => ApiError {
                        extra: Some(json!({ "expected_seq": expected, "head": head })),
                        ..ApiError::new(S::CONFLICT, "Stale", detail)
                    },
                    KernelError::NotPending { waiting, .. } => ApiError {
                        extra: Some(
                            json!({ "pending": waiting.into_iter().filter(|p| !p.submitted).collect::<Vec<_>>() }),
                        ),
                        ..ApiError::new(S::UNPROCESSABLE_ENTITY, "Not your turn", detail)
                    },
                    KernelError::Schema(m) => {
                        let title = if m.starts_with("options:") {
                            "Not an option of this game"
                        } else {
                            "Not a command of this game"
                        };
                        ApiError::new(S::BAD_REQUEST, title, crate::service::in_words(&m))
                    }
                    KernelError::Rule(_) => ApiError::new(S::UNPROCESSABLE_ENTITY, "Illegal command", detail),
                    KernelError::Invalid(_) => ApiError::new(S::UNPROCESSABLE_ENTITY, "Unprocessable", detail),
                }
            }
            ServiceError::Store(StoreError::Conflict { .. }) => {
                ApiError::new(S::CONFLICT, "Conflict", "another command was recorded first; reload and decide again")
            }
            // The write never reached the disk: safe to send again.
            ServiceError::Store(e @ (StoreError::Refused(_) | StoreError::Closed)) => {
                tracing::error!(error = %e, "storage refused a write");
                ApiError::new(
                    S::SERVICE_UNAVAILABLE,
                    "Storage unavailable",
                    format!("{e}; nothing was recorded, try again later"),
                )
            }
            // The write was handed to the disk and not confirmed: say so.
            ServiceError::Store(e @ StoreError::NoSpace(_)) => {
                tracing::error!(error = %e, "storage is full");
                ApiError::new(
                    S::INSUFFICIENT_STORAGE,
                    "Storage full",
                    format!("{e}; it may or may not have been recorded: read the game's log before sending it again"),
                )
            }
            ServiceError::Store(StoreError::Corrupt(what)) => {
                crate::store::report_damage(&what);
                ApiError::new(
                    S::INTERNAL_SERVER_ERROR,
                    "Stored data damaged",
                    format!(
                        "the stored data is damaged ({what}); retrying will not help: \
                         the operator must restore it from a backup (`runestone check` lists what is damaged)"
                    ),
                )
            }
            ServiceError::Store(e) => {
                tracing::error!(error = %e, "storage failure");
                ApiError::new(
                    S::SERVICE_UNAVAILABLE,
                    "Storage unavailable",
                    format!(
                        "{e}; if this was a change, it may or may not have been recorded: read the game's log before sending it again"
                    ),
                )
            }
            ServiceError::Reserve(d) => ApiError::new(S::INSUFFICIENT_STORAGE, "Disk nearly full", d),
            ServiceError::TooLarge(d) => ApiError::new(S::PAYLOAD_TOO_LARGE, "Too long", d),
            ServiceError::TooMany(d, secs) => {
                ApiError { retry_after: Some(secs), ..ApiError::new(S::TOO_MANY_REQUESTS, "Too many requests", d) }
            }
            ServiceError::Fold(e) => {
                tracing::error!(error = %e, "stored log does not fold");
                ApiError::new(S::INTERNAL_SERVER_ERROR, "Stored log does not fold", e.to_string())
            }
        }
    }
}
