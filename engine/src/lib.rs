//! runestone-engine: the kernel every game of runestone shares.
//!
//! Nothing in this crate does IO, reads a clock or draws ambient randomness:
//! its dependencies cannot. A game (a crate of its own under `games/`) is a
//! [`Game`] (its rules) and a [`Present`] (its board, forms and schemas);
//! the [`table`] kernel folds a game's [`log`] into a position and runs the
//! checks every game shares; the [`erased`] registry lets the server host
//! any game by ruleset id; [`pack`] is the compact form of snapshots;
//! [`program`] is the turn program a game may offer (a seat's coming turn
//! given ahead, step by step with fallbacks, run and judged by the game's
//! own `decide` when the turn begins).

pub mod erased;
pub mod game;
pub mod harness;
pub mod log;
pub mod pack;
pub mod present;
pub mod press;
pub mod program;
pub mod rng;
pub mod table;
pub mod tree;
pub mod verify;

pub use erased::{DynGame, Registry};
pub use game::{
    DecisionClass, Emit, Game, Outcome, Pending, RuleError, RulesetInfo, Seat, Unavailable, Viewer, Visibility,
};
pub use log::{Actor, Body, Draft, Envelope, Hash, Holder, Json, KernelEvent};
pub use present::{Present, Schemas};
pub use program::{Fallback, ProgramStep, Programmable, StepOutcome};
pub use rng::{GameRng, Seed};
/// Derive for a game's internally tagged `Event` (see [`Game::read_event`]).
pub use runestone_derive::TagFirst;
pub use table::{FoldError, Holders, KernelError, Table, Told};
