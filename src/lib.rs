//! runestone: the server around the pure rules of `runestone-engine`.
//!
//! [`store`] keeps the logs; [`service`] folds them into positions and runs
//! every use case (create, submit, view, rollback, fork, verify); [`http`]
//! is the REST API over the service; [`auth`] the tokens; [`cli`] the
//! command line.
//!
//! # Layers
//!
//! The modules stand in layers, listed here lowest first. A module uses
//! modules of its own layer or of lower ones only, and no modules use each
//! other in a circle; test code may reach anywhere. `tests/layers.rs` reads
//! this list and fails on a `crate::` path of a file under `src/` that
//! points to a higher layer, on a circle, and on a module the list does not
//! place.
//!
//! 1. `lib`, `clock`, `config`, `limits`, `metrics`, `games`, `auth`: the ground: this file's helpers, time, settings, the bounds and rates on what clients send, counters, the registry of games, tokens.
//! 2. `store`, `health`: the event logs and the records written with them; the probe that asks the store whether it answers.
//! 3. `mail`, `webhook`, `webpush`: a mail as rendered and queued in the outbox, its templates, the transports that deliver it; a notice posted to a webhook, and the guard around what the server posts to; a notice pushed to a browser (Web Push: the server's VAPID key, each message encrypted for its browser).
//! 4. `service`: every use case over the store and the engine, and the words its users share (its errors, the deadline policy, the mail it decides to send).
//! 5. `problem`, `bound`: what the API and the pages share: a service error as a problem with a status, a title and words a person can act on; each request's bound, its service work off the HTTP worker.
//! 6. `deadlines`, `outbox`, `inbound`, `web`: the workers that act on what is due (deadlines, mail), the listener that takes replies by mail, and the pages.
//! 7. `http`: the REST API, which serves the pages and the mail links too.
//! 8. `app`, `cli`: the server put together, and the command line.

pub mod app;
pub mod auth;
pub mod bound;
pub mod cli;
pub mod clock;
pub mod config;
pub mod deadlines;
pub mod games;
pub mod health;
pub mod http;
pub mod inbound;
pub mod limits;
pub mod mail;
pub mod metrics;
pub mod outbox;
pub mod problem;
pub mod service;
pub mod store;
pub mod web;
pub mod webhook;
pub mod webpush;

/// `N` bytes from the operating system's random source.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).expect("the operating system's random source");
    b
}

/// A fresh game id: 16 characters of lowercase base32 (80 random bits).
pub fn new_game_id() -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let bytes = random_bytes::<10>();
    let mut bits: u128 = 0;
    for b in bytes {
        bits = (bits << 8) | b as u128;
    }
    (0..16).map(|i| ALPHABET[((bits >> (75 - 5 * i)) & 31) as usize] as char).collect()
}
