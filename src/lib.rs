//! runestone: the server around the pure rules of `runestone-engine`.
//!
//! [`store`] keeps the logs; [`service`] folds them into positions and runs
//! every use case (create, submit, view, rollback, fork, verify); [`http`]
//! is the REST API over the service; [`auth`] the tokens; [`cli`] the
//! command line.

pub mod app;
pub mod auth;
pub mod cli;
pub mod clock;
pub mod config;
pub mod deadlines;
pub mod games;
pub mod health;
pub mod http;
pub mod limits;
pub mod mail;
pub mod metrics;
pub mod notify;
pub mod service;
pub mod store;
pub mod web;

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
