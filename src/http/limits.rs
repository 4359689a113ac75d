//! Bounds that keep one client, or many idle connections, from taking the
//! file descriptors and connections every other request needs.
//!
//! Each open connection holds a file descriptor for as long as it is open,
//! and an event stream holds its connection for as long as the client wants.
//! So the open-file limit is raised as far as the system allows at start
//! ([`raise_open_files`]), and what it allows is shared out
//! ([`Budget::derive`]): a reserve for the store, the logs and the mail, at
//! most a number of connections (actix stops accepting past it, so a flood of
//! idle connections waits in the kernel's queue instead of taking the
//! descriptors the store needs), and at most half of those connections as
//! event streams, so requests always have connections left. Streams are
//! also bounded per client ([`StreamLimits`]): one client past its share is
//! answered 429, every client past the whole bound 503, both in words and
//! with `Retry-After`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError as _};

use super::ApiError;

/// Descriptors kept for everything but connections: the store's files and
/// connections, the runtimes' own, the log, mail. At least this many, or an
/// eighth of the limit when that is more.
const RESERVED_FILES: u64 = 128;

/// Seconds a client refused a stream is asked to wait before trying again.
pub const STREAM_RETRY_SECONDS: u64 = 30;

/// The process's open-file limit, soft and hard.
pub fn open_files() -> Option<(u64, u64)> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given and nothing else.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return None;
    }
    Some((lim.rlim_cur, lim.rlim_max))
}

/// Raise the soft open-file limit to the hard one; the limits before and
/// after, as `(soft before, soft now, hard)`.
pub fn raise_open_files() -> Option<(u64, u64, u64)> {
    let (soft, hard) = open_files()?;
    if soft < hard {
        let lim = libc::rlimit { rlim_cur: hard as libc::rlim_t, rlim_max: hard as libc::rlim_t };
        // SAFETY: setrlimit reads the struct it is given and nothing else.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) } != 0 {
            return Some((soft, soft, hard));
        }
    }
    let (now, hard) = open_files()?;
    Some((soft, now, hard))
}

/// How the open-file limit is shared out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The open-file limit it was derived from.
    pub open_files: u64,
    /// The most connections open at once (all workers together).
    pub connections: usize,
    /// The most event streams open at once.
    pub streams: usize,
    /// The most event streams open at once from one client.
    pub streams_per_client: usize,
}

impl Budget {
    /// The budget for a process allowed `open_files` descriptors; a setting
    /// above 0 (`max_connections`, `max_streams`) replaces the derived
    /// figure. Streams never take more than the connections.
    pub fn derive(open_files: u64, max_connections: usize, max_streams: usize, per_client: usize) -> Budget {
        let reserved = RESERVED_FILES.max(open_files / 8);
        let derived = open_files.saturating_sub(reserved).clamp(16, 1 << 20) as usize;
        let connections = if max_connections > 0 { max_connections } else { derived };
        let streams = if max_streams > 0 { max_streams } else { connections / 2 };
        Budget { open_files, connections, streams: streams.min(connections), streams_per_client: per_client.max(1) }
    }
}

/// Open event streams, counted per client and in total.
pub struct StreamLimits {
    per_client: usize,
    total: usize,
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    total: usize,
    by_client: HashMap<String, usize>,
}

/// One open stream's place, given back when dropped (the stream ended or
/// its client went away).
pub struct StreamSlot {
    limits: Arc<StreamLimits>,
    client: String,
}

impl StreamLimits {
    pub fn new(budget: &Budget) -> Arc<StreamLimits> {
        Arc::new(StreamLimits {
            per_client: budget.streams_per_client,
            total: budget.streams,
            open: Mutex::new(Open::default()),
        })
    }

    /// A place for one more stream of `client` (the key every limit counts
    /// a client under, [`crate::limits::client_of`]), or the answer that
    /// refuses it (429 past the client's share, 503 past the total).
    pub fn take(self: &Arc<Self>, client: String) -> Result<StreamSlot, Box<HttpResponse>> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let mine = open.by_client.get(&client).copied().unwrap_or(0);
        if mine >= self.per_client {
            return Err(refusal(
                StatusCode::TOO_MANY_REQUESTS,
                "Too many streams",
                format!(
                    "this client has {mine} event streams open, the most one client may hold; close one \
                     (a stream ends when its page or client is closed) and try again"
                ),
            ));
        }
        if open.total >= self.total {
            return Err(refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                "Too many streams",
                format!(
                    "the server holds the most event streams it keeps open at once ({}); \
                     try again in a moment, or read the game's events instead",
                    self.total
                ),
            ));
        }
        open.total += 1;
        *open.by_client.entry(client.clone()).or_default() += 1;
        Ok(StreamSlot { limits: self.clone(), client })
    }

    /// Streams open now, in total.
    pub fn open(&self) -> usize {
        self.open.lock().map_or(0, |o| o.total)
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.limits.open.lock().unwrap_or_else(|e| e.into_inner());
        open.total = open.total.saturating_sub(1);
        if let Some(n) = open.by_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                open.by_client.remove(&self.client);
            }
        }
    }
}

/// A problem+json answer with `Retry-After`.
fn refusal(status: StatusCode, title: &'static str, detail: String) -> Box<HttpResponse> {
    let mut r = ApiError::new(status, title, detail).error_response();
    r.headers_mut().insert(actix_web::http::header::RETRY_AFTER, STREAM_RETRY_SECONDS.into());
    Box::new(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::client_key;
    use std::net::IpAddr;

    #[test]
    fn the_budget_keeps_descriptors_for_the_store_and_connections_for_requests() {
        let small = Budget::derive(1024, 0, 0, 16);
        assert_eq!((small.connections, small.streams), (896, 448));
        let large = Budget::derive(1 << 20, 0, 0, 16);
        assert_eq!(large.connections, (1 << 20) - (1 << 17));
        assert_eq!(large.streams, large.connections / 2);
        let set = Budget::derive(1024, 100, 500, 0);
        assert_eq!((set.connections, set.streams, set.streams_per_client), (100, 100, 1), "streams within connections");
        assert_eq!(Budget::derive(0, 0, 0, 16).connections, 16);
    }

    #[test]
    fn streams_are_bounded_per_client_and_in_total_and_given_back() {
        let limits = StreamLimits::new(&Budget::derive(1024, 0, 3, 2));
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "2001:db8::1".parse().unwrap();
        let b_too: IpAddr = "2001:db8::ffff:2".parse().unwrap();
        let first = limits.take(client_key(a)).expect("a first stream");
        let _second = limits.take(client_key(a)).expect("a second stream");
        let refused = limits.take(client_key(a)).err().expect("a third from one client is refused");
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refused.headers().get("retry-after").unwrap(), "30");
        let _third = limits.take(client_key(b)).expect("another client's stream");
        assert_eq!(
            limits.take(client_key(b_too)).err().expect("past the total").status(),
            StatusCode::SERVICE_UNAVAILABLE,
            "the total is reached first for a client of the same /64"
        );
        drop(first);
        assert_eq!(limits.open(), 2);
        limits.take(client_key(a)).expect("a place given back is taken again");
        let mapped: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
        assert_eq!(client_key(mapped), client_key(a));
        assert_eq!(client_key(b_too), client_key(b));
    }
}
