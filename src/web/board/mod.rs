//! Boards: a game's view (the JSON its rules give one viewer) drawn as SVG
//! by the ruleset's own renderer, and always also told as structured HTML,
//! so every board has a readable text alternative.
//!
//! A renderer only ever sees the view of one viewer, which the engine has
//! already cut to what that viewer may know: it cannot leak a secret the
//! view does not hold.

mod bardagi;
mod duel;
mod generic;

use serde_json::Value;

pub use generic::html as generic_html;

/// One area of a board as drawn: its id and its owner (a seat), if any.
/// Tests use this to check every area is drawn once, with its owner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Area {
    pub id: String,
    pub owner: Option<u8>,
}

/// A ruleset's own drawing of its view.
pub trait BoardRenderer: Sync {
    /// The view as an SVG document fragment (`<svg …>…</svg>`), or `None`
    /// when the view holds nothing to draw.
    fn svg(&self, view: &Value, seats: &[String]) -> Option<String>;

    /// The areas this view has, as the rules define them; each must be
    /// drawn exactly once by [`BoardRenderer::svg`], as an element with
    /// `data-area` and (when owned) `data-owner`.
    fn areas(&self, view: &Value, seats: &[String]) -> Vec<Area>;

    /// The view told in words, when the ruleset tells it better than the
    /// generic rendering (for example a map's areas as a table instead of
    /// its raw cells).
    fn text(&self, view: &Value, seats: &[String]) -> Option<String> {
        let _ = (view, seats);
        None
    }

    /// The CSS class of `seat`'s colour on the pages, when the game gives
    /// seats colours of its own (a clan's colour); `seat-N` otherwise.
    fn seat_class(&self, view: &Value, seat: u8) -> Option<String> {
        let _ = (view, seat);
        None
    }
}

/// The CSS class of each of `n` seats' colour, so a seat's dot on the page
/// matches its pieces on the board.
pub fn seat_classes(ruleset: &str, view: &Value, n: usize) -> Vec<String> {
    (0..n)
        .map(|s| {
            renderer(ruleset).and_then(|r| r.seat_class(view, s as u8)).unwrap_or_else(|| format!("seat-{}", s % 6))
        })
        .collect()
}

/// The renderer of `ruleset`, if it has one.
pub fn renderer(ruleset: &str) -> Option<&'static dyn BoardRenderer> {
    match ruleset {
        "duel" => Some(&duel::Duel),
        "bardagi" => Some(&bardagi::Bardagi),
        _ => None,
    }
}

/// A board ready for a page.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Board {
    /// The ruleset's drawing, if it has a renderer.
    pub svg: Option<String>,
    /// The view as structured, accessible HTML (always present).
    pub html: String,
}

/// Draw `view` (the `view` member of `Service::view`) of a `ruleset` game.
pub fn render(ruleset: &str, view: &Value, seats: &[String]) -> Board {
    let r = renderer(ruleset);
    Board {
        svg: r.and_then(|r| r.svg(view, seats)),
        html: r.and_then(|r| r.text(view, seats)).unwrap_or_else(|| generic::html(view, seats)),
    }
}

/// Escape text for XML/HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A seat's colour, the same on every board and page.
pub fn seat_colour(seat: u8) -> &'static str {
    const COLOURS: [&str; 6] = ["#b03a2e", "#1f618d", "#1e8449", "#b7950b", "#6c3483", "#ca6f1e"];
    COLOURS[seat as usize % COLOURS.len()]
}

/// A seat's display name, or "seat N".
pub fn seat_name(seats: &[String], seat: u8) -> String {
    seats.get(seat as usize).cloned().unwrap_or_else(|| format!("seat {seat}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(esc("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    }
}
