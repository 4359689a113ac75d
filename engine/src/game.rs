//! The `Game` trait: the one contract every ruleset implements (DESIGN.md §2).
//!
//! A game is a set of pure functions over its own typed state, commands and
//! events. `decide` is the only place that rejects input; `apply` is total.
//! Randomness comes only from the [`GameRng`] handed to `setup` and `decide`,
//! and every outcome it produces is written into an event, so replaying a log
//! never draws.
//!
//! A game may also let a seat give its coming turn ahead, as a program of
//! its own commands with fallbacks: [`crate::program`].

use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::rng::GameRng;

/// A seat at the table, counted from 0 in seating order.
pub type Seat = u8;

/// Who is looking. Every view and every event list is cut to its viewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Viewer {
    /// Anyone without a token (and hosts, who may also be players elsewhere).
    Public,
    /// One player.
    Seat(Seat),
    /// Sees everything, hidden information included.
    Referee,
}

impl Viewer {
    /// Whether this viewer may see something visible to `vis`.
    pub fn sees(&self, vis: &Visibility) -> bool {
        match (self, vis) {
            (_, Visibility::Public) | (Viewer::Referee, _) => true,
            (Viewer::Seat(s), Visibility::Seats(seats)) => seats.contains(s),
            (Viewer::Public, Visibility::Seats(_)) => false,
        }
    }
}

/// Who may see an event's full body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    #[default]
    Public,
    Seats(Vec<Seat>),
}

/// An event as a game emits it: the fact, who may see it, and what everyone
/// else is shown instead (for example "Red chose a plan" without the cards).
#[derive(Clone, Debug)]
pub struct Emit<E> {
    pub event: E,
    pub visibility: Visibility,
    /// The public form shown to those who may not see `event`.
    pub redacted: Option<E>,
}

impl<E> Emit<E> {
    /// A fact everyone may see.
    pub fn public(event: E) -> Self {
        Emit { event, visibility: Visibility::Public, redacted: None }
    }

    /// A fact only `seats` may see; everyone else sees `redacted`.
    pub fn secret(event: E, seats: Vec<Seat>, redacted: E) -> Self {
        Emit { event, visibility: Visibility::Seats(seats), redacted: Some(redacted) }
    }
}

/// A command the rules refuse, in the game's own words: what was wrong and,
/// where it helps, what would be allowed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleError {
    pub message: String,
}

impl RuleError {
    pub fn new(message: impl Into<String>) -> Self {
        RuleError { message: message.into() }
    }
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RuleError {}

/// Shorthand for `Err(RuleError::new(format!(...)))`.
#[macro_export]
macro_rules! reject {
    ($($arg:tt)*) => { return Err($crate::RuleError::new(format!($($arg)*))) };
}

/// How long a decision may wait: each class has its own deadline in a game's
/// deadline policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionClass {
    /// A secret plan chosen by several seats at once.
    Plan,
    /// A seat's whole turn.
    Turn,
    /// A small decision inside someone's turn or a phase.
    Small,
}

/// One decision the game waits for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub seat: Seat,
    /// The game's own name for the decision ("plan", "turn", "build").
    pub kind: String,
    pub class: DecisionClass,
    /// What is asked, in words.
    pub prompt: String,
    /// The seat has already given this decision but may still change it
    /// (a secret plan before the reveal): no reminder, no deadline.
    #[serde(default)]
    pub submitted: bool,
}

/// An action of a seat's turn that the rules do not allow now, with the
/// rule's reason: the pages list it disabled beside the legal ones, so a
/// player sees what their units could do and why not now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unavailable {
    /// The action in words ("Godi converts Forest 7").
    pub label: String,
    /// Why not now, in the rule's own words ("converting needs 2 divine
    /// powers, Hof holds 1").
    pub reason: String,
    /// The group it belongs to on the page (a unit's name), if any.
    pub group: Option<String>,
}

/// Final result once a game is over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Final score per seat, in seat order.
    pub scores: Vec<i64>,
    /// Seats from first place to last (ties already broken by the rules).
    pub ranking: Vec<Seat>,
    /// Seats sharing first place, if the rules allow a shared win.
    pub winners: Vec<Seat>,
    /// A line in words.
    pub summary: String,
}

/// What a ruleset offers: shown by `GET /api/v1/rulesets`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RulesetInfo {
    pub id: String,
    pub name: String,
    pub min_seats: u8,
    pub max_seats: u8,
    /// Bumped whenever a rules change alters play; recorded in each game.
    pub rules_version: u32,
    /// The options and their defaults, as `Options::default()` serialises.
    pub default_options: serde_json::Value,
    /// Each option explained in words.
    pub options_help: Vec<(String, String)>,
    pub description: String,
}

/// One ruleset. See the module documentation for the roles of each function.
pub trait Game: Send + Sync + 'static {
    type Options: Serialize + DeserializeOwned + Default + Clone + Debug;
    type State: Clone + Default + Serialize + DeserializeOwned + Send + Sync + Debug;
    type Command: Serialize + DeserializeOwned + Clone + Debug + PartialEq;
    type Event: Serialize + DeserializeOwned + Clone + Debug;

    fn info() -> RulesetInfo;

    /// The rules version a new game with these options is played by (the
    /// kernel records it in `GameCreated` and hands it to `setup`): the
    /// newest, unless the game lets its options choose an older one.
    fn rules_version_of(options: &Self::Options) -> u32 {
        let _ = options;
        Self::info().rules_version
    }

    /// The opening events for `seats` players of a game played by rules
    /// version `rules_version` (the one recorded in its `GameCreated`: the
    /// newest for a new game, the recorded one when a log is verified).
    fn setup(
        options: &Self::Options,
        seats: u8,
        rules_version: u32,
        rng: &mut GameRng,
    ) -> Result<Vec<Emit<Self::Event>>, RuleError>;

    /// Validate a command from `seat` and say what happened. The kernel has
    /// already checked that the game is not over and that `seat` is pending.
    fn decide(
        state: &Self::State,
        seat: Seat,
        command: &Self::Command,
        rng: &mut GameRng,
    ) -> Result<Vec<Emit<Self::Event>>, RuleError>;

    /// Fold one event into the state. Total: never fails, never draws, for
    /// every event [`Game::fits`] accepts.
    fn apply(state: &mut Self::State, event: &Self::Event);

    /// Whether `event` fits the position it is applied on: every seat,
    /// place, card and other index it names exists there. The rules' own
    /// events always fit; an event from outside (an edited export given to
    /// `replay`) may name seat 9 of a 3-seat game, which [`Game::apply`]
    /// would index out of bounds. The fold asks before every apply, so the
    /// check must be cheap. The answer names what does not exist.
    fn fits(state: &Self::State, event: &Self::Event) -> Result<(), String> {
        let _ = (state, event);
        Ok(())
    }

    /// What `viewer` may see of the state.
    fn view(state: &Self::State, viewer: Viewer) -> serde_json::Value;

    /// Who must act now, and on what.
    fn pending(state: &Self::State) -> Vec<Pending>;

    /// Legal commands for `seat` at this moment (empty when not pending).
    fn legal(state: &Self::State, seat: Seat) -> Vec<Self::Command>;

    /// The actions of `seat`'s turn that no command of `legal` (its legal
    /// commands now) takes, each with the rule's reason: for the pages to
    /// show them disabled. The default names none.
    fn unavailable(state: &Self::State, seat: Seat, legal: &[Self::Command]) -> Vec<Unavailable> {
        let _ = (state, seat, legal);
        Vec::new()
    }

    /// Whether `command` is a standing order: one that any seated player
    /// may give at any time, pending or not (standing defence orders). The
    /// kernel takes every other command only from a pending seat.
    fn standing_order(state: &Self::State, seat: Seat, command: &Self::Command) -> bool {
        let _ = (state, seat, command);
        false
    }

    /// The command taken for a seat that timed out.
    fn fallback(state: &Self::State, seat: Seat) -> Option<Self::Command>;

    /// Final scores once the game is over; `None` while it runs.
    fn outcome(state: &Self::State) -> Option<Outcome>;

    /// [`Game::outcome`] with its summary naming the players by `names`
    /// (the seats' display names), as pages, mail and the API tell it: "Ann
    /// wins with 30 glory", never a seat number. The default is `outcome`.
    fn outcome_named(state: &Self::State, names: &[String]) -> Option<Outcome> {
        let _ = names;
        Self::outcome(state)
    }

    /// One event told in words, for logs, mail and pages. `names` are the
    /// seats' display names; `state` is the position the event was written
    /// on (the one just before it was applied), so its words never change
    /// after the fact: the season orders were given for, the worth of the
    /// goods given, as they were then.
    fn describe(state: &Self::State, event: &Self::Event, names: &[String]) -> String {
        let _ = (state, names);
        serde_json::to_value(event)
            .ok()
            .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_owned))
            .unwrap_or_else(|| "event".to_owned())
    }

    /// A command of `seat` in a few words, as a player would say it ("Berserkur
    /// attacks Forest 7"): labels the legal commands on pages and in the API.
    fn label(state: &Self::State, seat: Seat, command: &Self::Command) -> String {
        let _ = (state, seat);
        serde_json::to_value(command)
            .ok()
            .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_owned))
            .unwrap_or_else(|| "command".to_owned())
    }

    /// [`Game::label`] naming other players by `names` (the seats' display
    /// names), as the pages and the API label the legal commands. The
    /// default is `label`, for a game whose labels name no other seat.
    fn label_named(state: &Self::State, seat: Seat, command: &Self::Command, names: &[String]) -> String {
        let _ = names;
        Self::label(state, seat, command)
    }

    /// Turn a stored event of an older schema version into the current one.
    /// `version` is the version it was written with.
    fn upcast(version: u32, event: serde_json::Value) -> serde_json::Value {
        let _ = version;
        event
    }

    /// The schema version of events this build writes.
    fn event_version() -> u32 {
        1
    }

    /// An event of the current schema version read from its canonical JSON
    /// text (every fold reads each event this way). serde's reading by
    /// default; a game whose `Event` derives [`crate::TagFirst`] answers
    /// `Event::from_json_text(text)`, which reads the internally tagged enum
    /// without buffering it first (whatever the order of its keys).
    fn read_event(text: &str) -> serde_json::Result<Self::Event> {
        serde_json::from_str(text)
    }
}
