//! runestone-engine: the pure rules of runestone's games.
//!
//! Nothing in this crate does IO, reads a clock or draws ambient randomness:
//! its dependencies cannot. A game is a [`Game`]; the [`table`] kernel folds a
//! game's [`log`] into a position and runs the checks every game shares; the
//! [`erased`] registry lets the server host any game by ruleset id.

pub mod erased;
pub mod game;
pub mod games;
pub mod log;
pub mod rng;
pub mod table;
pub mod verify;

#[cfg(test)]
mod kernel_tests;

#[cfg(any(test, feature = "test-fixture"))]
pub mod fixture;

pub use erased::{DynGame, Registry};
pub use game::{DecisionClass, Emit, Game, Outcome, Pending, RuleError, RulesetInfo, Seat, Viewer, Visibility};
pub use log::{Actor, Body, Draft, Envelope, KernelEvent};
pub use rng::{GameRng, Seed};
pub use table::{FoldError, KernelError, Table};

/// Every ruleset this build offers (and, in test builds, the fixture).
pub fn registry() -> Registry {
    let r = games::register(Registry::empty());
    #[cfg(any(test, feature = "test-fixture"))]
    let r = r.with::<fixture::Duel>();
    r
}
