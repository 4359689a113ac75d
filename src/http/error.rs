//! A problem served as `application/problem+json` (RFC 9457), read through
//! its documented type on the way out.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::{json, Value};

use crate::problem::ApiError;

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let mut body = json!({
            "type": format!("https://runestone.invalid/problems/{}", self.slug()),
            "title": self.title,
            "status": self.status.as_u16(),
            "detail": self.detail,
        });
        if let (Some(Value::Object(extra)), Value::Object(b)) = (&self.extra, &mut body) {
            for (k, v) in extra {
                b.insert(k.clone(), v.clone());
            }
        }
        let mut r = HttpResponse::build(self.status);
        r.content_type("application/problem+json");
        if let Some(secs) = self.retry_after {
            r.insert_header((actix_web::http::header::RETRY_AFTER, secs.to_string()));
        }
        match super::through::<super::types::Problem>(body) {
            Ok(p) => r.json(p),
            Err(v) => r.json(v),
        }
    }
}
