//! The API's answers and request bodies as Rust types: the OpenAPI
//! document's schemas are generated from them (schemars), and the handlers
//! serialize every JSON answer through them (`answers::typed`), so what is
//! served and what is documented cannot drift apart.
//!
//! Answers are strict (`deny_unknown_fields`, so `additionalProperties:
//! false`): a field the server adds without adding it here is caught by the
//! first test that receives it. The parts that belong to a game (its
//! options, commands, events and views) are `Value`s here, documented by
//! references to the union of the hosted rulesets' own schemas
//! (`AnyOptions`, `AnyCommand`, `AnyGameEvent`, `AnyView`), which the
//! document builds from the registry.

use std::collections::BTreeMap;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::service::hooks::{Channel, ChannelChange, HookShown, HookSpec, Notifications, NotificationsChange};
use crate::service::policy_or_null;
pub use crate::service::press::{Message, MessageReason, Messages, NewMessage, PressOptions};

fn any_command(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "$ref": "#/components/schemas/AnyCommand", "description": "a command of the game's ruleset (its Command schema)" })
}

fn any_commands(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "array", "items": { "$ref": "#/components/schemas/AnyCommand" },
                   "description": "the legal commands for the token's seat, at the head" })
}

fn any_view(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "$ref": "#/components/schemas/AnyView", "description": "the game's view for this viewer: its ruleset's View schema" })
}

fn any_game_event(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "$ref": "#/components/schemas/AnyGameEvent" })
}

fn any_options(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "$ref": "#/components/schemas/AnyOptions" })
}

fn object(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "object" })
}

/// A JSON Schema (draft 2020-12).
fn a_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "object", "description": "a JSON Schema (draft 2020-12) generated from the game's types" })
}

/// An error (RFC 9457): what was wrong, in words.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Problem {
    /// A URI naming the kind of problem.
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    /// What was wrong, in words a person can act on.
    pub detail: String,
    /// On "not your turn": the decisions still owed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<Vec<Pending>>,
    /// On a stale `expected_seq`: the log's head now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<u64>,
    /// On a stale `expected_seq`: the one sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_seq: Option<u64>,
}

/// What kind of decision a pending one is.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DecisionClass {
    Plan,
    Turn,
    Small,
}

/// One decision the game waits for.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pending {
    pub seat: u8,
    /// The game's own name for the decision.
    pub kind: String,
    pub class: DecisionClass,
    /// What is asked, in words.
    pub prompt: String,
    /// False in `pending` (still owed); true in `submitted` (given, may
    /// still be replaced).
    pub submitted: bool,
}

/// Whether the server serves normally.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HealthStatus {
    Ok,
    /// Serving what it can; `storage.detail` says why.
    Degraded,
}

/// `GET /healthz`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Health {
    pub status: HealthStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<Storage>,
    /// What is wrong with sending mail (the outbox worker stopped, stalled
    /// or failed), in words; absent while it is well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mail: Option<String>,
}

/// The storage's free space and state.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Storage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve_bytes: Option<u64>,
    /// The store refuses writes until it has reopened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovering: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A ruleset this server hosts.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ruleset {
    pub id: String,
    pub name: String,
    pub min_seats: u8,
    pub max_seats: u8,
    /// Bumped whenever a rules change alters play; recorded in each game.
    pub rules_version: u32,
    /// The options and their defaults.
    #[schemars(schema_with = "any_options")]
    pub default_options: Value,
    /// Each option explained in words: (option, words).
    pub options_help: Vec<(String, String)>,
    pub description: String,
}

/// `GET /api/v1/rulesets`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rulesets {
    pub rulesets: Vec<Ruleset>,
}

/// A ruleset's JSON Schemas (also under `components/schemas/<ruleset>.<Name>`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesetSchemas {
    #[schemars(schema_with = "a_schema")]
    pub options: Value,
    #[schemars(schema_with = "a_schema")]
    pub command: Value,
    #[schemars(schema_with = "a_schema")]
    pub event: Value,
    #[schemars(schema_with = "a_schema")]
    pub view: Value,
}

/// `GET /api/v1/rulesets/{ruleset}`: the ruleset and its schemas.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesetContracts {
    pub id: String,
    pub name: String,
    pub min_seats: u8,
    pub max_seats: u8,
    pub rules_version: u32,
    #[schemars(schema_with = "any_options")]
    pub default_options: Value,
    pub options_help: Vec<(String, String)>,
    pub description: String,
    /// A test fixture, never offered by a production server.
    pub fixture: bool,
    pub schemas: RulesetSchemas,
}

/// Whether a game runs.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    Running,
    Over,
}

/// A seat's number and the name shown to all.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatName {
    pub seat: u8,
    pub name: String,
}

/// Where a forked game came from.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForkOrigin {
    pub game: String,
    pub seq: u64,
    pub hash: String,
}

/// A game's result once it is over.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    /// Final score per seat, in seat order.
    pub scores: Vec<i64>,
    /// Seats from first place to last.
    pub ranking: Vec<u8>,
    /// Seats sharing first place.
    pub winners: Vec<u8>,
    pub summary: String,
}

/// A pending decision's deadline.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Due {
    /// "seat/kind".
    pub decision: String,
    /// RFC 3339.
    pub due: String,
}

/// A game's clocks.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Deadlines {
    #[schemars(schema_with = "policy_or_null")]
    pub policy: Value,
    pub paused: bool,
    pub due: Vec<Due>,
    /// Per seat: whether it has forfeited.
    pub forfeited: Vec<bool>,
    /// Per seat: whether the bot plays it after missed deadlines (until its
    /// player says they are back: the clock action `back`).
    pub bot_plays: Vec<bool>,
    /// The missed-deadline ladder in words, as players are told it; null
    /// without deadlines.
    pub ladder: Option<String>,
}

/// `GET /api/v1/games/{id}`: a game's summary, for anyone.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    pub game_id: String,
    pub ruleset: String,
    pub rules_version: u32,
    /// The game's options, defaults filled in.
    #[schemars(schema_with = "any_options")]
    pub options: Value,
    pub status: GameStatus,
    pub seats: Vec<SeatName>,
    /// The decisions still owed.
    pub pending: Vec<Pending>,
    /// Decisions given but still open to change (a secret plan).
    pub submitted: Vec<Pending>,
    pub head: u64,
    /// When the game was created (RFC 3339).
    pub created_at: String,
    pub seed_commitment: String,
    /// Revealed once the game is over.
    pub seed: Option<String>,
    pub forked_from: Option<ForkOrigin>,
    pub outcome: Option<Outcome>,
    pub deadlines: Deadlines,
    /// Messages between the players: what the game allows.
    pub press: PressOptions,
}

/// Who an answer is cut for: the public (also hosts), one seat, or the referee.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Viewer {
    Public,
    Seat(u8),
    Referee,
}

/// `GET /api/v1/games/{id}/view`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct View {
    pub game_id: String,
    pub ruleset: String,
    /// The position shown: after this event.
    pub seq: u64,
    pub head: u64,
    pub viewer: Viewer,
    #[schemars(schema_with = "any_view")]
    pub view: Value,
    pub pending: Vec<Pending>,
    pub submitted: Vec<Pending>,
    #[schemars(schema_with = "any_commands")]
    pub legal: Vec<Value>,
    /// Each legal command in words, in the same order.
    pub legal_labels: Vec<String>,
    /// The families of legal commands too large to list (trades of several
    /// deals, casts of two runes, sail paths, standing orders, …), each a
    /// command with free parameters and its limits in words, for the
    /// token's seat at the head (empty for a game that has none, for the
    /// public, at a past position and once the game is over). A command
    /// built by filling one in is decided like any other.
    pub legal_templates: Vec<LegalTemplate>,
    /// The actions of the token's seat's turn that no legal command takes
    /// now, each with the rule's reason (empty for a game that names none,
    /// and wherever `legal` is empty).
    pub unavailable: Vec<UnavailableAction>,
    pub over: bool,
    pub outcome: Option<Outcome>,
    /// The conversation as it stood at the position shown: the latest
    /// messages (at most 100) the viewer reads, oldest first. The host
    /// reads its own through `GET …/messages`.
    pub messages: Vec<Message>,
}

fn template_base(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "object", "required": ["type"], "properties": { "type": { "type": "string" } },
                   "description": "the command without its free parameters: with each field put in under its \
                                   name it is a command of the game's ruleset (its Command schema)" })
}

/// A family of legal commands too large to list, as a command with free
/// parameters: put each field's value into `base` under the field's name
/// and send the command. Its limits are in `help`, in words; the rules
/// decide the filled-in command like any other.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LegalTemplate {
    /// The template's name, stable between views ("cmd-trade").
    pub id: String,
    /// What the command is called, in words.
    pub label: String,
    /// Its parameters' shape and limits in words, if any.
    pub help: Option<String>,
    #[schemars(schema_with = "template_base")]
    pub base: Value,
    pub fields: Vec<TemplateField>,
}

/// One free parameter of a [`LegalTemplate`].
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TemplateField {
    /// The command's member the value goes into.
    pub name: String,
    /// In words.
    pub label: String,
    pub kind: TemplateFieldKind,
}

/// What a template's free parameter holds.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TemplateFieldKind {
    Text,
    /// A whole number.
    Number,
    /// A JSON value (a list of deals, a route): its shape is the command
    /// schema's for that member.
    Json,
}

/// An action of the turn the rules do not allow now, and why.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnavailableAction {
    /// The action in words.
    pub label: String,
    /// Why not now, in the rule's own words.
    pub reason: String,
    /// The group it belongs to (a unit's name), if any.
    pub group: Option<String>,
}

/// Who caused an event.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    Seat(u8),
    Host,
    Referee,
    /// The server itself: setup, timeouts, the end of a game.
    System,
}

/// Who may see an event's body. After the game's end everyone does
/// (`hidden` is false) though this still names the seats it was for.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    Public,
    Seats(Vec<u8>),
}

/// Who holds a token that is not a seat's.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Holder {
    Host,
    Referee,
}

/// The kernel's own events, common to every game.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", deny_unknown_fields)]
pub enum KernelEvent {
    GameCreated {
        ruleset: String,
        rules_version: u32,
        #[schemars(schema_with = "any_options")]
        options: Value,
        /// Display names in seat order.
        seats: Vec<String>,
        seed_commitment: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        forked_from: Option<ForkOrigin>,
    },
    /// Every event after `to_seq` voided.
    RolledBack {
        to_seq: u64,
        reason: String,
    },
    /// A seat took back its own last steps.
    Undone {
        to_seq: u64,
    },
    /// Tokens of `seat` older than `generation` no longer work.
    SeatTokenRevoked {
        seat: u8,
        generation: u32,
        reason: String,
    },
    /// The host's or the referee's tokens older than `generation` no longer
    /// work.
    RoleTokenRevoked {
        role: Holder,
        generation: u32,
        reason: String,
    },
    /// The game is over: its secret seed.
    SeedRevealed {
        seed: String,
    },
    DeadlinePolicySet {
        #[schemars(schema_with = "policy_or_null")]
        policy: Value,
    },
    GraceGranted {
        seat: u8,
        kind: String,
        until: String,
    },
    TimedOut {
        seat: u8,
        kind: String,
    },
    /// `remaining_ms`: "seat/kind" → milliseconds left.
    Paused {
        reason: String,
        remaining_ms: BTreeMap<String, i64>,
    },
    Resumed,
    Extended {
        seat: Option<u8>,
        hours: Option<i64>,
        until: Option<String>,
        reason: String,
    },
    VacationTaken {
        seat: u8,
        from: String,
        until: String,
    },
    SubstituteSeated {
        seat: u8,
        name: String,
    },
    SeatForfeited {
        seat: u8,
        reason: String,
    },
    SeatReturned {
        seat: u8,
    },
    /// A message; `to` is its channel's seats (empty: everyone at the table).
    MessageSent {
        from: Actor,
        to: Vec<u8>,
        text: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        anonymous: bool,
        after_end: runestone_engine::press::AfterEnd,
        at: String,
    },
    /// The host or the referee hid the message written at seq `message`.
    MessageHidden {
        message: u64,
        by: Actor,
        to: Vec<u8>,
        reason: String,
    },
    /// A seat reported the message written at seq `message`.
    MessageReported {
        message: u64,
        by: u8,
        reason: String,
    },
    /// The decision before this event came by mail from `seat`'s reply
    /// address: the message's Message-ID and the SHA-256 of its bytes.
    OrderMailed {
        seat: u8,
        message_id: String,
        sha256: String,
    },
}

/// An event's body: a kernel event, or one of the game's own (its
/// ruleset's Event schema; when `hidden`, the redacted public form).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Body {
    Kernel {
        event: KernelEvent,
    },
    Game {
        /// The schema version the event was written with.
        v: u32,
        #[schemars(schema_with = "any_game_event")]
        event: Value,
    },
}

/// Written on the first event of each decision.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Decision {
    /// The command as submitted; absent for setup and copied events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "any_command")]
    pub command: Option<Value>,
    /// The seat the command was decided for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<u8>,
    /// How many events the decision produced, this one included.
    pub events: u32,
    /// How many random draws it took.
    pub draws: u32,
    /// Whether its seat may still take it back.
    pub undoable: bool,
}

/// One event of the log, cut to its viewer.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Event {
    pub game: String,
    pub seq: u64,
    /// UTC, RFC 3339.
    pub time: String,
    pub actor: Actor,
    pub body: Body,
    pub visibility: Visibility,
    /// What those who may not see the body are shown (on hidden events'
    /// envelopes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "object")]
    pub redacted: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    pub digest: String,
    pub prev_hash: String,
    pub hash: String,
    /// The body is the redacted public form.
    pub hidden: bool,
    /// False once voided by a rollback or undo.
    pub in_force: bool,
    /// The event in words.
    pub text: String,
}

/// `GET /api/v1/games/{id}/events`: from `from` to `to`, both included.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Events {
    pub events: Vec<Event>,
}

/// A command, undo or rollback accepted: the events it caused, cut to the
/// one who sent it.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Accepted {
    pub head: u64,
    pub events: Vec<Event>,
    pub pending: Vec<Pending>,
    pub submitted: Vec<Pending>,
    pub over: bool,
}

/// Why the event stream closed.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClosedReason {
    /// The game is over: nothing more will be appended.
    Over,
    /// The seat's links were revoked: nothing after the revocation is sent.
    Revoked,
    /// The game could not be read to re-check the link.
    Unavailable,
}

/// The stream's final `closed` event.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StreamClosed {
    pub reason: ClosedReason,
    pub detail: String,
    /// On `over`: the last event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<u64>,
    /// On `over`: the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
}

/// A chain or a re-derivation problem.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyProblem {
    pub seq: u64,
    pub problem: String,
}

/// What the re-derivation covered.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Draws {
    pub decisions_rederived: u64,
    /// Once the seed is revealed: events copied from the game this one
    /// was forked from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copied_events: Option<u64>,
    pub note: String,
}

/// `GET /api/v1/games/{id}/verify`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Verify {
    pub game_id: String,
    /// How many events the log holds.
    pub events: u64,
    pub chain_ok: bool,
    pub ok: bool,
    pub problem: Option<VerifyProblem>,
    pub seed_commitment: Option<String>,
    pub seed: Option<String>,
    pub draws: Draws,
}

/// A seat's new link (the old ones revoked).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewLink {
    pub seat: u8,
    pub generation: u32,
    pub token: String,
    pub link: String,
}

/// The host's or the referee's new token (the old one revoked).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoleLink {
    /// `host` or `referee`.
    pub role: String,
    pub generation: u32,
    pub token: String,
    /// The host's new link to the host page; null for the referee, whose
    /// token is for the API.
    pub link: Option<String>,
}

/// A pending decision's clock.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Clock {
    /// The event the decision became pending at.
    pub since: u64,
    /// Milliseconds since the epoch; null while there are no deadlines or
    /// the game is paused.
    pub deadline_ms: Option<i64>,
}

/// A clock action done: the event it appended and the clocks after it.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockDone {
    pub head: u64,
    pub event: Body,
    /// By "seat/kind".
    pub clocks: BTreeMap<String, Clock>,
}

/// A mail given up on.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeadLetter {
    pub id: String,
    pub kind: String,
    pub to: String,
    pub subject: String,
    pub attempts: u32,
    pub last_error: Option<String>,
}

/// `GET /api/v1/games/{id}/dead-letters`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeadLetters {
    pub dead_letters: Vec<DeadLetter>,
}

/// A dead letter queued again.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Retried {
    pub id: String,
    pub queued: bool,
}

/// `POST /api/v1/games/{id}/commands`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    #[schemars(schema_with = "any_command")]
    pub command: Value,
    /// The head the client decided on; 409 if the log has moved. Required
    /// for turn commands, optional for a secret plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub expected_seq: Option<u64>,
}

/// `POST /api/v1/games/{id}/rollback`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rollback {
    /// The last event kept.
    pub to_seq: u64,
    /// Told to the players: 1 to 200 characters on one line.
    #[schemars(length(min = 1, max = 200), pattern(crate::limits::ONE_LINE))]
    pub reason: String,
}

/// `POST /api/v1/games/{id}/fork`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fork {
    /// The last event copied: the end of a decision.
    pub at_seq: u64,
}

/// `POST /api/v1/games/{id}/seats/{seat}/token` (the body may be left out).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reissue {
    /// Told to the seat's players; a default when left out. At most 200
    /// characters on one line.
    #[serde(default)]
    #[schemars(length(max = 200), pattern(crate::limits::ONE_LINE))]
    pub reason: String,
}

/// What became of a message handed to the inbound route.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InboundAnswer {
    /// `accepted`: its order was taken as the seat's decision; `held`: it
    /// waits for the seat's confirmation from its own address; `answered`:
    /// the seat was told what was wrong (or that the decision is closed);
    /// `ignored`: not a person's reply (an auto-reply, a bounce, list
    /// mail); `duplicate`: the same message was taken already.
    pub outcome: InboundOutcome,
    /// The same in words.
    pub detail: String,
}

/// See [`InboundAnswer::outcome`].
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InboundOutcome {
    Accepted,
    Held,
    Answered,
    Ignored,
    Duplicate,
}
