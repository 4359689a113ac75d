//! Answers served as their documented types (`types`), and the record of
//! what was answered that the contract tests check against the OpenAPI
//! document: each (method, route, status), and each answer that did not
//! fit its type.

use std::sync::atomic::Ordering;

use actix_web::http::StatusCode;
use actix_web::HttpResponse;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::service::Answer;

/// A service answer served as `T`; a created game (201) with its `Location`.
pub(super) fn answer<T: Serialize + DeserializeOwned>(a: Answer) -> HttpResponse {
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
pub(super) fn typed<T: Serialize + DeserializeOwned>(v: Value) -> HttpResponse {
    match through::<T>(v) {
        Ok(t) => HttpResponse::Ok().json(t),
        Err(v) => HttpResponse::Ok().json(v),
    }
}

/// An answer the service wrote as JSON text, served as it is. While
/// recording, it is read as its documented type `T` as [`typed`] answers
/// are, so a misfit is counted the same.
pub(super) fn written<T: Serialize + DeserializeOwned>(status: u16, text: Vec<u8>) -> HttpResponse {
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

pub(super) static RECORDING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
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

pub(super) fn note_answer(method: String, pattern: String, status: u16) {
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
