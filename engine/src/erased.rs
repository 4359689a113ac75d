//! The erased registry: lets the server host any [`Game`] by ruleset id,
//! speaking JSON for options, commands, events and views.

use std::any::Any;
use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use crate::game::{Game, Outcome, Pending, RuleError, RulesetInfo, Seat, Unavailable, Viewer, Visibility};
use crate::log::Json;
use crate::present::{
    Area, CommandTemplate, Forms, FormsInput, OrderError, OrderLine, PlayerBoard, Posted, Present, RulesPage, Schemas,
    TableHeader,
};
use crate::rng::GameRng;

/// A game's state behind a trait object.
pub struct DynState(Box<dyn StateObj>);

trait StateObj: Any + Send + Sync {
    fn clone_box(&self) -> Box<dyn StateObj>;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Any + Clone + Send + Sync> StateObj for T {
    fn clone_box(&self) -> Box<dyn StateObj> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl Clone for DynState {
    fn clone(&self) -> Self {
        DynState(self.0.clone_box())
    }
}

impl std::fmt::Debug for DynState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DynState(..)")
    }
}

impl DynState {
    /// The typed state, if it belongs to `G`.
    pub fn downcast<G: Game>(&self) -> Option<&G::State> {
        self.0.as_any().downcast_ref()
    }
    fn get<G: Game>(&self) -> &G::State {
        self.downcast::<G>().expect("state of another ruleset")
    }
    fn get_mut<G: Game>(&mut self) -> &mut G::State {
        self.0.as_any_mut().downcast_mut().expect("state of another ruleset")
    }
}

/// An event a game emitted, as canonical JSON text.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonEmit {
    pub event: Json,
    pub visibility: Visibility,
    pub redacted: Option<Json>,
}

/// Why a JSON command or event could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError(pub String);

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A decision's result before the kernel wraps it.
#[derive(Debug)]
pub enum DecideError {
    /// The JSON is not a command of this game.
    Schema(SchemaError),
    /// The rules refuse it.
    Rule(RuleError),
}

/// [`Game`] with its types erased to JSON.
pub trait DynGame: Send + Sync {
    fn info(&self) -> RulesetInfo;
    fn new_state(&self) -> DynState;
    /// Parse and normalise options (filling defaults).
    fn options(&self, options: &Value) -> Result<Value, SchemaError>;
    /// The rules version a new game with these (normalised) options is
    /// played by ([`Game::rules_version_of`]).
    fn rules_version_of(&self, options: &Value) -> Result<u32, SchemaError>;
    fn setup(
        &self,
        options: &Value,
        seats: u8,
        rules_version: u32,
        rng: &mut GameRng,
    ) -> Result<Vec<JsonEmit>, DecideError>;
    /// Whether `command` is a command of this ruleset (its shape, not its
    /// legality): the server tells "a command of another game" from "not
    /// a command at all".
    fn accepts_command(&self, command: &Value) -> bool;
    fn decide(
        &self,
        state: &DynState,
        seat: Seat,
        command: &Value,
        rng: &mut GameRng,
    ) -> Result<Vec<JsonEmit>, DecideError>;
    /// Apply an event stored with schema `version`: its text is read once,
    /// straight into the game's event type.
    fn apply(&self, state: &mut DynState, version: u32, event: &str) -> Result<(), SchemaError>;
    /// Apply an event stored with schema `version` in the tree form
    /// ([`crate::tree`]): read straight into the game's event type.
    fn apply_tree(&self, state: &mut DynState, version: u32, event: &[u8]) -> Result<(), SchemaError>;
    fn view(&self, state: &DynState, viewer: Viewer) -> Value;
    fn pending(&self, state: &DynState) -> Vec<Pending>;
    fn legal(&self, state: &DynState, seat: Seat) -> Vec<Value>;
    /// The legal commands with their labels in words.
    /// Other players are named by `names` ([`Game::label_named`]).
    fn legal_labelled(&self, state: &DynState, seat: Seat, names: &[String]) -> Vec<(Value, String)>;
    /// The actions of the turn no command of `legal` takes, with the rules'
    /// reasons ([`Game::unavailable`]); `legal` as [`DynGame::legal`] gave it.
    fn unavailable(&self, state: &DynState, seat: Seat, legal: &[Value]) -> Vec<Unavailable>;
    /// Whether `command` parses and is a standing order of `seat`
    /// ([`Game::standing_order`]).
    fn standing_order(&self, state: &DynState, seat: Seat, command: &Value) -> bool;
    fn fallback(&self, state: &DynState, seat: Seat) -> Option<Value>;
    fn outcome(&self, state: &DynState) -> Option<Outcome>;
    /// The outcome with its summary naming the players ([`Game::outcome_named`]).
    fn outcome_named(&self, state: &DynState, names: &[String]) -> Option<Outcome>;
    fn describe(&self, state: &DynState, version: u32, event: &Json, names: &[String]) -> String;
    fn event_version(&self) -> u32;
    fn save(&self, state: &DynState) -> Value;
    fn load(&self, state: &Value) -> Result<DynState, SchemaError>;

    // The presentation contract ([`Present`]), over the game's view JSON.
    fn schemas(&self) -> Schemas;
    fn fixture(&self) -> bool;
    fn svg(&self, view: &Value, seats: &[String]) -> Option<String>;
    fn areas(&self, view: &Value, seats: &[String]) -> Vec<Area>;
    fn text(&self, view: &Value, seats: &[String]) -> Option<String>;
    fn seat_class(&self, view: &Value, seat: Seat) -> Option<String>;
    fn stylesheet(&self) -> &'static str;
    fn rules_page(&self) -> Option<RulesPage>;
    fn header(&self, view: &Value, seats: &[String]) -> Option<TableHeader>;
    fn player_boards(&self, view: &Value, seats: &[String]) -> Vec<PlayerBoard>;
    /// The round an event (written with schema version `version`) begins.
    fn round_begun(&self, version: u32, event: &Json) -> Option<u32>;
    fn templates(&self, view: &Value, seat: Seat) -> Vec<CommandTemplate>;
    /// The view as JSON text and, for `templates_of`, that seat's
    /// templates ([`Present::view_text`]).
    fn view_text(&self, state: &DynState, viewer: Viewer, templates_of: Option<Seat>)
        -> (String, Vec<CommandTemplate>);
    fn forms(&self, input: &FormsInput<'_, Value>) -> Option<Forms>;
    /// The game's forms for standing orders, offered while nothing is asked.
    fn standing_forms(&self, input: &FormsInput<'_, Value>) -> Option<Forms>;
    fn command_of_form(&self, build: &str, posted: &Posted, view: &Value) -> Option<Result<Value, String>>;
    /// The game's own order-form lines for a mail ([`Present::order_form`]).
    fn order_form(&self, input: &FormsInput<'_, Value>) -> Vec<String>;
    /// A reply's orders in the game's words ([`Present::read_orders`]).
    fn read_orders(&self, lines: &[OrderLine], input: &FormsInput<'_, Value>) -> Option<Result<Value, OrderError>>;
}

struct Erased<G>(PhantomData<fn() -> G>);

/// [`Game::fits`], as the fold's error.
fn fitted<G: Game>(state: &DynState, event: &G::Event) -> Result<(), SchemaError> {
    G::fits(state.get::<G>(), event).map_err(|w| SchemaError(format!("the event does not fit the position: {w}")))
}

static TREES_READ_AS_TEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many game events stored as trees this process has read through
/// their text (an older schema version's, or a type the tree does not read
/// directly): the slow path, which tests hold at zero for every golden log.
pub fn trees_read_as_text() -> u64 {
    TREES_READ_AS_TEXT.load(std::sync::atomic::Ordering::Relaxed)
}

fn schema_err(what: &str, e: serde_json::Error) -> SchemaError {
    SchemaError(format!("{what}: {e}"))
}

fn to_json<T: serde::Serialize>(t: &T) -> Value {
    serde_json::to_value(t).expect("game types serialise to JSON")
}

fn emits_to_json<E: serde::Serialize>(emits: Vec<crate::game::Emit<E>>) -> Vec<JsonEmit> {
    emits
        .into_iter()
        .map(|e| JsonEmit {
            event: Json::of(&e.event),
            visibility: e.visibility,
            redacted: e.redacted.as_ref().map(Json::of),
        })
        .collect()
}

impl<G: Present> Erased<G> {
    /// An event from its tree: read as its JSON text would be (the tree is
    /// JSON's data model). A type whose reading needs the text itself (a
    /// raw JSON field) reads the tree's text instead.
    fn event_of_tree(version: u32, event: &[u8]) -> Result<G::Event, SchemaError> {
        if version == G::event_version() {
            if let Ok(e) = crate::tree::from_bytes::<G::Event>(event) {
                return Ok(e);
            }
        }
        TREES_READ_AS_TEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let text = crate::tree::render(event, None).map_err(|e| SchemaError(format!("event: {e}")))?;
        Self::event(version, &text)
    }

    fn event(version: u32, event: &str) -> Result<G::Event, SchemaError> {
        if version == G::event_version() {
            G::read_event(event).map_err(|e| schema_err("event", e))
        } else {
            let value = serde_json::from_str(event).unwrap_or(Value::Null);
            G::Event::deserialize(G::upcast(version, value)).map_err(|e| schema_err("upcast event", e))
        }
    }
}

impl<G: Present> DynGame for Erased<G> {
    fn info(&self) -> RulesetInfo {
        G::info()
    }
    fn new_state(&self) -> DynState {
        DynState(Box::new(G::State::default()))
    }
    fn options(&self, options: &Value) -> Result<Value, SchemaError> {
        let o = if options.is_null() {
            G::Options::default()
        } else {
            G::Options::deserialize(options).map_err(|e| schema_err("options", e))?
        };
        Ok(to_json(&o))
    }
    fn rules_version_of(&self, options: &Value) -> Result<u32, SchemaError> {
        let o = G::Options::deserialize(options).map_err(|e| schema_err("options", e))?;
        Ok(G::rules_version_of(&o))
    }
    fn setup(
        &self,
        options: &Value,
        seats: u8,
        rules_version: u32,
        rng: &mut GameRng,
    ) -> Result<Vec<JsonEmit>, DecideError> {
        let o = G::Options::deserialize(options).map_err(|e| DecideError::Schema(schema_err("options", e)))?;
        G::setup(&o, seats, rules_version, rng).map(emits_to_json).map_err(DecideError::Rule)
    }
    fn accepts_command(&self, command: &Value) -> bool {
        G::Command::deserialize(command).is_ok()
    }
    fn decide(
        &self,
        state: &DynState,
        seat: Seat,
        command: &Value,
        rng: &mut GameRng,
    ) -> Result<Vec<JsonEmit>, DecideError> {
        let c = G::Command::deserialize(command).map_err(|e| DecideError::Schema(schema_err("command", e)))?;
        G::decide(state.get::<G>(), seat, &c, rng).map(emits_to_json).map_err(DecideError::Rule)
    }
    fn apply(&self, state: &mut DynState, version: u32, event: &str) -> Result<(), SchemaError> {
        let e = Self::event(version, event)?;
        fitted::<G>(state, &e)?;
        G::apply(state.get_mut::<G>(), &e);
        Ok(())
    }
    fn apply_tree(&self, state: &mut DynState, version: u32, event: &[u8]) -> Result<(), SchemaError> {
        let e = Self::event_of_tree(version, event)?;
        fitted::<G>(state, &e)?;
        G::apply(state.get_mut::<G>(), &e);
        Ok(())
    }
    fn view(&self, state: &DynState, viewer: Viewer) -> Value {
        G::view(state.get::<G>(), viewer)
    }
    fn pending(&self, state: &DynState) -> Vec<Pending> {
        G::pending(state.get::<G>())
    }
    fn legal(&self, state: &DynState, seat: Seat) -> Vec<Value> {
        G::legal(state.get::<G>(), seat).iter().map(to_json).collect()
    }
    fn legal_labelled(&self, state: &DynState, seat: Seat, names: &[String]) -> Vec<(Value, String)> {
        let s = state.get::<G>();
        G::legal(s, seat).iter().map(|c| (to_json(c), G::label_named(s, seat, c, names))).collect()
    }
    fn unavailable(&self, state: &DynState, seat: Seat, legal: &[Value]) -> Vec<Unavailable> {
        let legal: Vec<G::Command> = legal.iter().filter_map(|c| G::Command::deserialize(c).ok()).collect();
        G::unavailable(state.get::<G>(), seat, &legal)
    }
    fn standing_order(&self, state: &DynState, seat: Seat, command: &Value) -> bool {
        G::Command::deserialize(command).is_ok_and(|c| G::standing_order(state.get::<G>(), seat, &c))
    }
    fn fallback(&self, state: &DynState, seat: Seat) -> Option<Value> {
        G::fallback(state.get::<G>(), seat).as_ref().map(to_json)
    }
    fn outcome(&self, state: &DynState) -> Option<Outcome> {
        G::outcome(state.get::<G>())
    }
    fn outcome_named(&self, state: &DynState, names: &[String]) -> Option<Outcome> {
        G::outcome_named(state.get::<G>(), names)
    }
    fn describe(&self, state: &DynState, version: u32, event: &Json, names: &[String]) -> String {
        match Self::event(version, event.as_str()) {
            Ok(e) => G::describe(state.get::<G>(), &e, names),
            Err(_) => event.value().get("type").and_then(Value::as_str).unwrap_or("hidden event").to_owned(),
        }
    }
    fn event_version(&self) -> u32 {
        G::event_version()
    }
    fn save(&self, state: &DynState) -> Value {
        to_json(state.get::<G>())
    }
    fn load(&self, state: &Value) -> Result<DynState, SchemaError> {
        let s = G::State::deserialize(state).map_err(|e| schema_err("state", e))?;
        Ok(DynState(Box::new(s)))
    }
    fn schemas(&self) -> Schemas {
        G::schemas()
    }
    fn fixture(&self) -> bool {
        G::fixture()
    }
    fn svg(&self, view: &Value, seats: &[String]) -> Option<String> {
        G::svg(&typed::<G>(view)?, seats)
    }
    fn areas(&self, view: &Value, seats: &[String]) -> Vec<Area> {
        typed::<G>(view).map(|v| G::areas(&v, seats)).unwrap_or_default()
    }
    fn text(&self, view: &Value, seats: &[String]) -> Option<String> {
        G::text(&typed::<G>(view)?, seats)
    }
    fn seat_class(&self, view: &Value, seat: Seat) -> Option<String> {
        G::seat_class(&typed::<G>(view)?, seat)
    }
    fn stylesheet(&self) -> &'static str {
        G::stylesheet()
    }
    fn rules_page(&self) -> Option<RulesPage> {
        G::rules_page()
    }
    fn header(&self, view: &Value, seats: &[String]) -> Option<TableHeader> {
        G::header(&typed::<G>(view)?, seats)
    }
    fn player_boards(&self, view: &Value, seats: &[String]) -> Vec<PlayerBoard> {
        typed::<G>(view).map(|v| G::player_boards(&v, seats)).unwrap_or_default()
    }
    fn round_begun(&self, version: u32, event: &Json) -> Option<u32> {
        G::round_begun(&Self::event(version, event.as_str()).ok()?)
    }
    fn templates(&self, view: &Value, seat: Seat) -> Vec<CommandTemplate> {
        typed::<G>(view).map(|v| G::templates(&v, seat)).unwrap_or_default()
    }
    fn view_text(
        &self,
        state: &DynState,
        viewer: Viewer,
        templates_of: Option<Seat>,
    ) -> (String, Vec<CommandTemplate>) {
        G::view_text(state.get::<G>(), viewer, templates_of)
    }
    fn forms(&self, input: &FormsInput<'_, Value>) -> Option<Forms> {
        with_typed_view::<G, _>(input, G::forms).flatten()
    }
    fn standing_forms(&self, input: &FormsInput<'_, Value>) -> Option<Forms> {
        with_typed_view::<G, _>(input, G::standing_forms).flatten()
    }
    fn command_of_form(&self, build: &str, posted: &Posted, view: &Value) -> Option<Result<Value, String>> {
        match typed::<G>(view) {
            Some(v) => G::command_of_form(build, posted, &v),
            None => Some(Err("the game could not be read to build this form's command; reload the page".into())),
        }
    }
    fn order_form(&self, input: &FormsInput<'_, Value>) -> Vec<String> {
        with_typed_view::<G, _>(input, G::order_form).unwrap_or_default()
    }
    fn read_orders(&self, lines: &[OrderLine], input: &FormsInput<'_, Value>) -> Option<Result<Value, OrderError>> {
        with_typed_view::<G, _>(input, |typed| G::read_orders(lines, typed)).flatten()
    }
}

/// A view's JSON as the game's typed view. Only a view its own `view` did
/// not write fails (then the page falls back to the generic rendering).
fn typed<G: Present>(view: &Value) -> Option<G::View> {
    G::View::deserialize(view).ok()
}

/// `forms` (or another of `G`'s readings of a seat's input) on the input
/// with its view read into `G`'s type; `None` if the view does not read.
fn with_typed_view<G: Present, T>(
    input: &FormsInput<'_, Value>,
    forms: impl FnOnce(&FormsInput<'_, G::View>) -> T,
) -> Option<T> {
    let view = typed::<G>(input.view)?;
    Some(forms(&FormsInput {
        seat: input.seat,
        view: &view,
        legal: input.legal,
        labels: input.labels,
        entered: input.entered,
        names: input.names,
    }))
}

/// Erase one game.
pub fn erase<G: Present>() -> Arc<dyn DynGame> {
    Arc::new(Erased::<G>(PhantomData))
}

/// The rulesets a server offers, by id.
#[derive(Clone, Default)]
pub struct Registry {
    games: BTreeMap<String, Arc<dyn DynGame>>,
}

impl Registry {
    pub fn empty() -> Self {
        Registry::default()
    }

    pub fn with<G: Present>(mut self) -> Self {
        self.games.insert(G::info().id, erase::<G>());
        self
    }

    pub fn get(&self, id: &str) -> Option<&Arc<dyn DynGame>> {
        self.games.get(id)
    }

    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.games.keys().map(String::as_str)
    }

    pub fn all(&self) -> impl Iterator<Item = &Arc<dyn DynGame>> {
        self.games.values()
    }

    /// The registry without its test fixtures ([`DynGame::fixture`]).
    pub fn without_fixtures(mut self) -> Self {
        self.games.retain(|_, g| !g.fixture());
        self
    }
}
