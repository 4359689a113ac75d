//! Boards: a game's view (the JSON its rules give one viewer) drawn as SVG
//! by the game's own drawing (its [`Present`](runestone_engine::Present)),
//! and always also told as structured HTML, so every board has a readable
//! text alternative.
//!
//! A drawing only ever sees the view of one viewer, which the engine has
//! already cut to what that viewer may know: it cannot leak a secret the
//! view does not hold.

use runestone_engine::DynGame;
use serde_json::Value;

pub use runestone_engine::present::{esc, generic_html, seat_colour, seat_name, Area};

/// The CSS class of each of `n` seats' colour, so a seat's dot on the page
/// matches its pieces on the board.
pub fn seat_classes(game: Option<&dyn DynGame>, view: &Value, n: usize) -> Vec<String> {
    (0..n)
        .map(|s| game.and_then(|g| g.seat_class(view, s as u8)).unwrap_or_else(|| format!("seat-{}", s % 6)))
        .collect()
}

/// A board ready for a page.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Board {
    /// The game's drawing, if it draws one.
    pub svg: Option<String>,
    /// The view as structured, accessible HTML (always present).
    pub html: String,
}

/// Draw `view` (the `view` member of `Service::view`) of a game of `game`
/// (`None` when the ruleset is not hosted here: the generic rendering).
pub fn render(game: Option<&dyn DynGame>, view: &Value, seats: &[String]) -> Board {
    Board {
        svg: game.and_then(|g| g.svg(view, seats)),
        html: game.and_then(|g| g.text(view, seats)).unwrap_or_else(|| generic_html(view, seats)),
    }
}
