//! The presentation contract: how a game shows itself on pages, beside its
//! rules. A game draws its board and describes its decision forms from its
//! own typed view (`Present::View`, what its `view` gave one viewer,
//! already cut to what that viewer may know) and its legal commands, and
//! turns a posted form back into a command. Everything here is pure: strings in, strings out.
//!
//! The rules live in [`Game`]; this is the separate [`Present`] trait, so a
//! rules-only game still compiles against `Game` alone. The erased registry
//! requires both for a game it hosts; every method has a plain default, so
//! `impl Present for MyGame { type View = MyView; fn schemas() -> Schemas {
//! schemas_of::<…>() } }` is a whole (if plain) presentation.

pub mod form;
mod generic;
pub mod orders;
pub mod table;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::game::{Game, Seat, Viewer};

pub use form::{Choice, Field, Form, Frame, Group, Input, Note, Part, Submit, Sum};
pub use generic::html as generic_html;
pub use orders::{OrderError, OrderLine};
pub use table::{PlayerBoard, Rounds, Standing, TableHeader};

/// A game's short "how to play here" page: its heading, and its body as an
/// HTML fragment (trusted, written with the game; no page chrome).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RulesPage {
    /// The page's heading and title, for example "How to play Chess here".
    pub title: &'static str,
    /// What follows the heading, as HTML.
    pub body: &'static str,
}

/// One area of a board as drawn: its id and its owner (a seat), if any.
/// Tests use this to check every area is drawn once, with its owner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Area {
    pub id: String,
    pub owner: Option<Seat>,
}

/// A command with free fields (text a player writes): these are not
/// enumerable, so `legal` cannot list them. The page shows a small form;
/// the posted fields are put into `base` under their names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandTemplate {
    /// The form's id on the page.
    pub id: String,
    /// What the command is called, in words (also the button).
    pub label: String,
    /// A sentence of help, if any.
    pub help: Option<String>,
    /// The command without its free fields, as JSON.
    pub base: Value,
    pub fields: Vec<TemplateField>,
}

/// One free field of a [`CommandTemplate`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TemplateField {
    /// The command's member the value goes into.
    pub name: String,
    /// In words.
    pub label: String,
    pub kind: FieldKind,
}

/// What a free field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    Text,
    /// A whole number.
    Number,
    /// A JSON value (a list of deals, a route): the template's help and the
    /// command's schema say its shape and limits.
    Json,
}

/// What the page knows when it asks a game for its decision forms; `V`
/// is the game's typed view.
#[derive(Debug)]
pub struct FormsInput<'a, V> {
    /// The seat deciding.
    pub seat: Seat,
    /// Its view of the game.
    pub view: &'a V,
    /// Its legal commands, and each one's label in words (same order).
    pub legal: &'a [Value],
    pub labels: &'a [String],
    /// What the seat posted last, when a form is shown again after a
    /// refusal (field name → value), so nothing typed is lost.
    pub entered: &'a BTreeMap<String, String>,
    /// The seats' display names, in seat order: forms name other players
    /// by these, never by seat number.
    pub names: &'a [String],
}

/// A game's own decision forms, described as data (see [`form`]): the
/// page renders them with its one generic template in place of the generic
/// list of legal commands, and posts them back.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Forms {
    pub parts: Vec<Part>,
}

/// A posted form's fields, in the order posted.
#[derive(Clone, Debug, Default)]
pub struct Posted(pub Vec<(String, String)>);

impl Posted {
    /// The first value of `name`, if posted.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Every value of `name`, in the order posted (the options ticked of
    /// an [`Input::Several`] field).
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.0.iter().filter(move |(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

impl From<Vec<(String, String)>> for Posted {
    fn from(pairs: Vec<(String, String)>) -> Self {
        Posted(pairs)
    }
}

/// A ruleset's published contracts: JSON Schemas of its options, commands,
/// events and views, generated from its Rust types.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Schemas {
    pub options: Value,
    pub command: Value,
    pub event: Value,
    pub view: Value,
}

impl Schemas {
    /// The four schemas by name, in a fixed order (the file names under
    /// `events/<game>/` are `<name>.schema.json`).
    pub fn named(&self) -> [(&'static str, &Value); 4] {
        [("options", &self.options), ("command", &self.command), ("event", &self.event), ("view", &self.view)]
    }
}

/// The schemas of `G`'s options, commands and events, and of `View`, the
/// typed view its `view` serialises.
pub fn schemas_of<G, View>() -> Schemas
where
    G: Game,
    G::Options: JsonSchema,
    G::Command: JsonSchema,
    G::Event: JsonSchema,
    View: JsonSchema,
{
    let json = |s: schemars::Schema| serde_json::to_value(s).expect("a schema is JSON");
    let written = |s: schemars::Schema| {
        let mut v = json(s);
        closed_objects(&mut v);
        v
    };
    Schemas {
        // What clients send: strict as the types read them (each type with
        // `deny_unknown_fields`, which schemars writes as
        // `additionalProperties: false`).
        options: json(schemars::schema_for!(G::Options)),
        command: json(schemars::schema_for!(G::Command)),
        // What the server writes: no object has fields its schema leaves out.
        event: written(schemars::schema_for!(G::Event)),
        view: written(schemars::schema_for!(View)),
    }
}

/// Every object schema that names its properties and says nothing of
/// others gets `additionalProperties: false`. Objects without named
/// properties (maps) keep what they say.
pub fn closed_objects(schema: &mut Value) {
    let Value::Object(o) = schema else { return };
    if o.contains_key("properties") && !o.contains_key("additionalProperties") {
        o.insert("additionalProperties".into(), Value::Bool(false));
    }
    for (key, v) in o.iter_mut() {
        match (key.as_str(), v) {
            // Maps of names to schemas: each value is a schema.
            ("properties" | "$defs" | "definitions" | "patternProperties" | "dependentSchemas", Value::Object(m)) => {
                m.values_mut().for_each(closed_objects)
            }
            // Lists of schemas.
            ("oneOf" | "anyOf" | "allOf" | "prefixItems", Value::Array(a)) => a.iter_mut().for_each(closed_objects),
            // One schema.
            ("items" | "additionalProperties" | "not" | "if" | "then" | "else" | "contains", v) => closed_objects(v),
            _ => {}
        }
    }
}

/// How a game shows itself. See the module documentation.
pub trait Present: Game {
    /// The game's typed view: what its `view` serialises. The erased layer
    /// reads the view JSON into it once, so every method below reads typed
    /// fields (a renamed field is a compile error, not a silent blank).
    type View: DeserializeOwned;

    /// The published schemas (usually `schemas_of::<Self, MyView>()`).
    fn schemas() -> Schemas;

    /// A test fixture, not a product: hosts never see it offered.
    fn fixture() -> bool {
        false
    }

    /// The board as an SVG document fragment (`<svg …>…</svg>`), or `None`
    /// when the game draws no board. Each of [`Present::areas`] must be
    /// drawn exactly once, as an element with `data-area` and (when owned)
    /// `data-owner`. `seats` are the seats' display names.
    fn svg(view: &Self::View, seats: &[String]) -> Option<String> {
        let _ = (view, seats);
        None
    }

    /// The areas this view has, as the rules define them.
    fn areas(view: &Self::View, seats: &[String]) -> Vec<Area> {
        let _ = (view, seats);
        Vec::new()
    }

    /// The view told in words as HTML (the board's text alternative);
    /// `None` for the generic rendering of the view.
    fn text(view: &Self::View, seats: &[String]) -> Option<String> {
        let _ = (view, seats);
        None
    }

    /// The CSS class of `seat`'s colour on the pages, when the game gives
    /// seats colours of its own (a clan's colour); `seat-N` otherwise.
    fn seat_class(view: &Self::View, seat: Seat) -> Option<String> {
        let _ = (view, seat);
        None
    }

    /// CSS for the game's drawing and forms (for example its seats'
    /// colour classes), appended to the pages' stylesheet.
    fn stylesheet() -> &'static str {
        ""
    }

    /// A short "how to play here" page for the game, shown at
    /// `/rules/{ruleset}` and linked from its invitations; `None` (the
    /// default) when the game has none.
    fn rules_page() -> Option<RulesPage> {
        None
    }

    /// The table header's round, phase and standings as this view shows
    /// them (see [`TableHeader`]); `None` for a header of the seats' names
    /// and whose turn it is only.
    fn header(view: &Self::View, seats: &[String]) -> Option<TableHeader> {
        let _ = (view, seats);
        None
    }

    /// The players' boards (the pieces and holdings off the map), one per
    /// seat in seat order, drawn from the view; empty when the game has
    /// none. The page shows the viewer's own first and in full.
    fn player_boards(view: &Self::View, seats: &[String]) -> Vec<PlayerBoard> {
        let _ = (view, seats);
        Vec::new()
    }

    /// The round `event` begins, when it begins one: the pages show the
    /// log of the current round and fold the rounds before it away.
    fn round_begun(event: &Self::Event) -> Option<u32> {
        let _ = event;
        None
    }

    /// Commands with free fields `seat` may send now.
    fn templates(view: &Self::View, seat: Seat) -> Vec<CommandTemplate> {
        let _ = (view, seat);
        Vec::new()
    }

    /// `viewer`'s view (what [`Game::view`] gives) written as JSON text,
    /// and with `templates_of: Some(seat)` that seat's
    /// [`Present::templates`] on the same view: what a view answer sends.
    /// The default writes `view`'s JSON. A game may write its typed view
    /// straight to text instead, with what is the same in every view (a
    /// board) as text made once; the text must read as the same JSON.
    fn view_text(state: &Self::State, viewer: Viewer, templates_of: Option<Seat>) -> (String, Vec<CommandTemplate>) {
        let view = Self::view(state, viewer);
        let templates = templates_of
            .and_then(|seat| Some(Self::templates(&Self::View::deserialize(&view).ok()?, seat)))
            .unwrap_or_default();
        (view.to_string(), templates)
    }

    /// The game's own decision forms for a seat, in place of the generic
    /// list of its legal commands; `None` for the generic list.
    fn forms(input: &FormsInput<'_, Self::View>) -> Option<Forms> {
        let _ = input;
        None
    }

    /// Forms a seated player may use while nothing is asked of them: the
    /// standing orders the game takes at any time (`Game::standing_order`).
    /// `None` (the default): nothing is offered between decisions.
    fn standing_forms(input: &FormsInput<'_, Self::View>) -> Option<Forms> {
        let _ = input;
        None
    }

    /// The command a posted form of the game's own (named `build`) stands
    /// for, built from its fields and the seat's view; `None` when the game
    /// has no form of that name. `Err` says in words what was wrong.
    fn command_of_form(build: &str, posted: &Posted, view: &Self::View) -> Option<Result<Value, String>> {
        let _ = (build, posted, view);
        None
    }

    /// The game's own words for answering the seat's decision by mail:
    /// lines the mail that asks prints before the generic list of the
    /// seat's legal commands ("plan: 2 berserkur 2 godi 2 kaupmadur"), from
    /// the same input as its page's forms (`entered` is empty). Empty (the
    /// default): the generic list alone ([`orders`]).
    fn order_form(input: &FormsInput<'_, Self::View>) -> Vec<String> {
        let _ = input;
        Vec::new()
    }

    /// A reply's order lines read in the game's words into one command of
    /// the seat (`input` as for [`Present::order_form`], as the game is
    /// now); `None` when they are not in the game's words (the generic
    /// reading is tried: a number of the list, or a command's own words).
    /// An error names the line and what the form expects there.
    fn read_orders(lines: &[OrderLine], input: &FormsInput<'_, Self::View>) -> Option<Result<Value, OrderError>> {
        let _ = (lines, input);
        None
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
pub fn seat_colour(seat: Seat) -> &'static str {
    const COLOURS: [&str; 6] = ["#b03a2e", "#1f618d", "#1e8449", "#b7950b", "#6c3483", "#ca6f1e"];
    COLOURS[seat as usize % COLOURS.len()]
}

/// A seat's display name, or "seat N".
pub fn seat_name(seats: &[String], seat: Seat) -> String {
    seats.get(seat as usize).cloned().unwrap_or_else(|| format!("seat {seat}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_posted_form_gives_the_first_value_or_every_value_of_a_name() {
        let posted = Posted::from(
            [("sev", "a"), ("x", "1"), ("sev", "c")]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<Vec<_>>(),
        );
        assert_eq!(posted.get("sev"), Some("a"));
        assert_eq!(posted.all("sev").collect::<Vec<_>>(), ["a", "c"]);
        assert_eq!(posted.all("none").count(), 0);
    }

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(esc("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    }
}
