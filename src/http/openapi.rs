//! `GET /openapi.json`: the API described for third-party clients.
//!
//! The request and creation schemas are generated (schemars) from the Rust
//! types the handlers decode and encode ([`CreateGame`], [`SeatSpec`],
//! [`HostSpec`], [`CreatedGame`]), and each hosted ruleset's published
//! options, command, event and view schemas are embedded under
//! `components/schemas/<ruleset>.<Name>` and referenced from the generic
//! ones, so the document cannot drift from the types. Tests check that its
//! paths are exactly those of [`super::routes`], that the served document is
//! this function's, and that every status the test suite saw a route answer
//! is listed for it (recorded by [`super::record_answers`]).

use runestone_engine::Registry;
use schemars::generate::SchemaSettings;
use serde_json::{json, Map, Value};

use crate::service::{CreateGame, CreatedGame, HostSpec, SeatSpec};

fn problem(desc: &str) -> Value {
    json!({ "description": desc, "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } } })
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn ok(desc: &str, schema: &str) -> Value {
    json!({ "description": desc, "content": { "application/json": { "schema": schema_ref(schema) } } })
}

fn body(schema: &str, required: bool) -> Value {
    json!({ "required": required, "content": { "application/json": { "schema": schema_ref(schema) } } })
}

fn id() -> Value {
    json!({ "name": "id", "in": "path", "required": true,
            "schema": { "type": "string", "pattern": "^[A-Za-z0-9]{16}$" }, "description": "the game id (16 letters and digits)" })
}

fn seat() -> Value {
    json!({ "name": "seat", "in": "path", "required": true, "schema": { "type": "integer", "minimum": 0 },
            "description": "the seat number, from 0; a seat the game does not have is 422" })
}

fn idem() -> Value {
    json!({ "name": "Idempotency-Key", "in": "header", "required": false, "schema": { "type": "string", "minLength": 1, "maxLength": 200 },
            "description": "a repeated request with the same key gets the first answer again and changes nothing" })
}

fn number(name: &str, minimum: u64, desc: &str) -> Value {
    json!({ "name": name, "in": "query", "required": false, "schema": { "type": "integer", "minimum": minimum }, "description": desc })
}

/// The statuses every operation on a game may answer, by what it takes.
#[derive(Clone, Copy)]
struct Takes {
    /// A token (required, or optional).
    token: bool,
    /// A JSON body.
    body: bool,
    /// It may append to the log.
    writes: bool,
}

fn responses(takes: Takes, specific: Value) -> Value {
    let mut r = Map::new();
    r.insert("400".into(), problem("a bad query parameter, a token in the query (only the stream takes one), or a body of the wrong shape; the detail says which"));
    r.insert("404".into(), problem("no such game (or no such thing in it)"));
    r.insert("500".into(), problem("the stored data is damaged; retrying will not help"));
    r.insert(
        "503".into(),
        problem("the store is unavailable or recovering; the detail says whether anything was recorded"),
    );
    if takes.token {
        r.insert("401".into(), problem("a missing, malformed, forged, expired or revoked token"));
        r.insert("403".into(), problem("the token does not allow this (another game, another role)"));
    }
    if takes.body {
        r.insert("413".into(), problem("the body is over the size limit"));
        r.insert("415".into(), problem("the body is not declared as application/json"));
    }
    if takes.writes {
        r.insert(
            "507".into(),
            problem("the disk is full or nearly full; the detail says whether anything was recorded"),
        );
    }
    if let Value::Object(s) = specific {
        r.extend(s);
    }
    Value::Object(r)
}

/// Links from a created game to its operations, for clients and for
/// stateful test tools that follow them.
fn game_links() -> Value {
    let by_id = |op: &str, desc: &str| json!({ "operationId": op, "parameters": { "id": "$response.body#/game_id" }, "description": desc });
    json!({
        "GetGame": by_id("getGame", "the game's summary"),
        "GetView": by_id("getView", "the view (send a seat's token for its own)"),
        "GetEvents": by_id("getEvents", "the log"),
        "SubmitCommand": by_id("submitCommand", "a seat's command (with one of the seats' tokens)"),
        "Undo": by_id("undo", "take back a seat's own last steps"),
        "Rollback": by_id("rollback", "void events after a position (host token)"),
        "Fork": by_id("fork", "a new game from a position (host token)"),
        "Verify": by_id("verifyGame", "check the chain"),
        "ReissueSeat0": { "operationId": "reissueSeatToken", "parameters": { "id": "$response.body#/game_id", "seat": "$response.body#/seats/0/seat" }, "description": "a new link for the first seat (host token)" },
        "Substitute0": { "operationId": "substituteSeat", "parameters": { "id": "$response.body#/game_id", "seat": "$response.body#/seats/0/seat" }, "description": "a substitute in the first seat (host token)" },
        "Clock": by_id("clockAction", "pause, resume, extend (host token) or a vacation (seat token)"),
        "DeadLetters": by_id("listDeadLetters", "mail given up on (host token)"),
    })
}

/// One ruleset schema embedded as a component: its `$defs` references and
/// references to itself (`#`) made to point inside the component, its
/// `$schema` and `$id` left out.
fn embedded(schema: &Value, component: &str) -> Value {
    let text = schema
        .to_string()
        .replace("\"#/$defs/", &format!("\"#/components/schemas/{component}/$defs/"))
        .replace("\"$ref\":\"#\"", &format!("\"$ref\":\"#/components/schemas/{component}\""));
    let mut v: Value = serde_json::from_str(&text).expect("JSON");
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("$id");
    }
    v
}

/// The schemas generated from the server's own Rust types.
fn generated(registry: &Registry) -> Map<String, Value> {
    let mut g =
        SchemaSettings::draft2020_12().with(|s| s.definitions_path = "/components/schemas/".into()).into_generator();
    g.subschema_for::<CreateGame>();
    g.subschema_for::<CreatedGame>();
    g.subschema_for::<SeatSpec>();
    g.subschema_for::<HostSpec>();
    let mut defs = g.take_definitions(true);
    // Two fields the server reads as free JSON, described by their own schemas.
    if let Some(props) = defs.get_mut("CreateGame").and_then(|c| c.get_mut("properties")) {
        let ids: Vec<String> = registry.all().map(|g| g.info().id.clone()).collect();
        let min = registry.all().map(|g| g.info().min_seats).min().unwrap_or(1);
        let max = registry.all().map(|g| g.info().max_seats).max().unwrap_or(1);
        props["ruleset"] = json!({ "enum": ids, "description": "a ruleset this server hosts (GET /api/v1/rulesets)" });
        props["seats"]["minItems"] = json!(min);
        props["seats"]["maxItems"] = json!(max);
        props["options"] = json!({ "type": ["object", "null"], "description": "the ruleset's options (its Options schema); defaults fill what is left out" });
        props["deadlines"] = json!({ "anyOf": [schema_ref("DeadlinePolicy"), { "type": "null" }], "description": "the deadline policy; none: no deadlines" });
    }
    // The options are those of the chosen ruleset.
    if let Some(create) = defs.get_mut("CreateGame").and_then(Value::as_object_mut) {
        let per_ruleset: Vec<Value> = registry
            .all()
            .map(|g| {
                let id = g.info().id.clone();
                json!({ "if": { "properties": { "ruleset": { "const": id } }, "required": ["ruleset"] },
                        "then": { "properties": { "options": { "anyOf": [schema_ref(&format!("{id}.Options")), { "type": "null" }] } } } })
            })
            .collect();
        create.insert("allOf".into(), Value::Array(per_ruleset));
    }
    defs
}

/// The whole document, for the rulesets `registry` hosts.
pub fn document(registry: &Registry) -> Value {
    let mut schemas = generated(registry);
    let mut commands = Vec::new();
    let mut events = Vec::new();
    let mut views = Vec::new();
    for g in registry.all() {
        let id = g.info().id.clone();
        let s = g.schemas();
        for (name, schema, list) in [
            ("Options", &s.options, None),
            ("Command", &s.command, Some(&mut commands)),
            ("Event", &s.event, Some(&mut events)),
            ("View", &s.view, Some(&mut views)),
        ] {
            let component = format!("{id}.{name}");
            schemas.insert(component.clone(), embedded(schema, &component));
            if let Some(list) = list {
                list.push(schema_ref(&component));
            }
        }
    }
    let hand = hand_written(commands, events, views);
    if let Value::Object(h) = hand {
        for (k, v) in h {
            schemas.entry(k).or_insert(v);
        }
    }
    let seat_takes = Takes { token: true, body: true, writes: true };
    let read = Takes { token: true, body: false, writes: false };
    let public = Takes { token: false, body: false, writes: false };
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "runestone",
            "version": "1",
            "description": DESCRIPTION,
        },
        "components": {
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer", "bearerFormat": "JWT" } },
            "schemas": schemas,
        },
        "paths": {
            "/healthz": { "get": { "operationId": "healthz", "summary": "liveness and storage state",
                "responses": { "200": ok("serving (\"degraded\" says why)", "Health") } } },
            "/metrics": { "get": { "operationId": "metrics", "summary": "Prometheus text metrics",
                "responses": { "200": { "description": "metrics", "content": { "text/plain": { "schema": { "type": "string" } } } } } } },
            "/openapi.json": { "get": { "operationId": "openapi", "summary": "this document",
                "responses": { "200": { "description": "OpenAPI 3.1", "content": { "application/json": { "schema": { "type": "object" } } } } } } },
            "/api/v1/rulesets": { "get": { "operationId": "listRulesets", "summary": "games offered, their options and player counts",
                "responses": { "200": ok("rulesets", "Rulesets") } } },
            "/api/v1/rulesets/{ruleset}": { "get": { "operationId": "getRuleset", "summary": "one ruleset's info and the JSON Schemas of its options, commands, events and views",
                "parameters": [{ "name": "ruleset", "in": "path", "required": true, "schema": { "type": "string" }, "description": "the ruleset id, as listed by /api/v1/rulesets" }],
                "responses": { "200": ok("the ruleset and its schemas", "RulesetContracts"), "404": problem("no such ruleset here") } } },
            "/api/v1/games": { "post": { "operationId": "createGame", "summary": "create a game", "parameters": [idem()], "requestBody": body("CreateGame", true),
                "responses": responses(Takes { token: false, body: true, writes: true }, json!({
                    "201": { "description": "the game, with every token and link (shown only here)",
                        "headers": { "Location": { "description": "the game's summary", "schema": { "type": "string" } } },
                        "content": { "application/json": { "schema": schema_ref("CreatedGame") } }, "links": game_links() },
                    "422": problem("unknown ruleset, bad seat count, bad option, invalid email or time zone"),
                    "409": problem("the Idempotency-Key was used for another request") })) } },
            "/api/v1/games/{id}": { "get": { "operationId": "getGame", "summary": "summary", "parameters": [id()],
                "responses": responses(public, json!({ "200": ok("summary", "Summary") })) } },
            "/api/v1/games/{id}/view": { "get": { "operationId": "getView", "summary": "the viewer's view at the head or after event `at`", "security": [{}, { "bearer": [] }],
                "parameters": [id(), number("at", 1, "the position after this event: 1 (the setup) to the head; 0 is 400, beyond the head 422")],
                "responses": responses(read, json!({ "200": ok("view", "View"), "422": problem("no such position yet (beyond the head)") })) } },
            "/api/v1/games/{id}/commands": { "post": { "operationId": "submitCommand", "summary": "submit a seat's command", "security": [{ "bearer": [] }],
                "description": "expected_seq is required (400 without it) when the seat owes a turn or a decision within a turn, and may be left out only for a secret plan, which a later plan replaces.",
                "parameters": [id(), idem()], "requestBody": body("Submission", true),
                "responses": responses(seat_takes, json!({ "200": ok("accepted: the events it caused, cut to the seat", "Accepted"),
                    "409": problem("stale expected_seq (the answer gives the head), the game is over, or the Idempotency-Key was used for another request"),
                    "422": problem("illegal by the rules (in the rule's own words), or not this seat's turn (the answer lists who is pending)") })) } },
            "/api/v1/games/{id}/undo": { "post": { "operationId": "undo", "summary": "take back the seat's own last steps within its turn", "security": [{ "bearer": [] }],
                "parameters": [id()], "responses": responses(Takes { token: true, body: false, writes: true }, json!({ "200": ok("undone", "Accepted"),
                    "409": problem("the game is over"), "422": problem("nothing to undo") })) } },
            "/api/v1/games/{id}/events": { "get": { "operationId": "getEvents", "summary": "the log, cut to the viewer", "security": [{}, { "bearer": [] }],
                "parameters": [id(), number("from", 0, "the first event, inclusive (default 0)"), number("to", 0, "the last event, inclusive (default and at most: the head)")],
                "responses": responses(read, json!({ "200": ok("events from `from` to `to`, both included; empty when from > to", "Events") })) } },
            "/api/v1/games/{id}/stream": { "get": { "operationId": "streamEvents",
                "summary": "server-sent events as the log grows (`Last-Event-ID` resumes; `?token=` for browsers, only here)",
                "description": "Frames `event: event` carry Event objects (id: the seq). The stream ends with one `event: closed` frame (a StreamClosed object): `over` once the game has ended, `revoked` when the seat's links were revoked (nothing after the revocation is sent).",
                "security": [{}, { "bearer": [] }],
                "parameters": [id(), number("from", 0, "replay the log from this event first"),
                    { "name": "token", "in": "query", "required": false, "schema": { "type": "string" }, "description": "the token, for clients that cannot set headers (only this route takes it)" }],
                "responses": responses(read, json!({ "200": { "description": "text/event-stream of Event objects, then one StreamClosed", "content": { "text/event-stream": { "schema": { "type": "string" } } } } })) } },
            "/api/v1/games/{id}/rollback": { "post": { "operationId": "rollback", "summary": "void every event after to_seq, with a reason (host or referee); appended, never deleted",
                "security": [{ "bearer": [] }], "parameters": [id()], "requestBody": body("Rollback", true),
                "responses": responses(seat_takes, json!({ "200": ok("rolled back", "Accepted"), "409": problem("the game is over"), "422": problem("bad target") })) } },
            "/api/v1/games/{id}/fork": { "post": { "operationId": "fork", "summary": "a new game from this log up to at_seq (host)", "security": [{ "bearer": [] }],
                "parameters": [id()], "requestBody": body("Fork", true),
                "responses": responses(seat_takes, json!({
                    "201": { "description": "the new game", "headers": { "Location": { "description": "the new game's summary", "schema": { "type": "string" } } },
                        "content": { "application/json": { "schema": schema_ref("CreatedGame") } }, "links": game_links() },
                    "422": problem("bad position") })) } },
            "/api/v1/games/{id}/verify": { "get": { "operationId": "verifyGame", "summary": "hash chain check; with the seed (revealed at the end) every draw re-derived",
                "parameters": [id()], "responses": responses(public, json!({ "200": ok("report", "Verify") })) } },
            "/api/v1/games/{id}/seats/{seat}/token": { "post": { "operationId": "reissueSeatToken", "summary": "revoke a seat's links and issue a new one (host); its open streams close",
                "security": [{ "bearer": [] }], "parameters": [id(), seat()], "requestBody": body("Reissue", false),
                "responses": responses(seat_takes, json!({ "200": ok("the new link", "NewLink"), "409": problem("the game is over"), "422": problem("no such seat") })) } },
            "/api/v1/games/{id}/seats/{seat}/substitute": { "post": { "operationId": "substituteSeat", "summary": "seat a substitute (host): old links revoked (their streams close), the new player invited",
                "security": [{ "bearer": [] }], "parameters": [id(), seat()], "requestBody": body("SeatSpec", true),
                "responses": responses(seat_takes, json!({ "200": ok("the substitute's link", "NewLink"), "409": problem("the game is over"), "422": problem("no such seat, bad name, address or time zone") })) } },
            "/api/v1/games/{id}/clock": { "post": { "operationId": "clockAction", "summary": "pause, resume, extend, set the deadline policy (host), or take a vacation (the seat itself)",
                "security": [{ "bearer": [] }], "parameters": [id()], "requestBody": body("ClockAction", true),
                "responses": responses(seat_takes, json!({ "200": ok("done: the event and the clocks", "ClockDone"),
                    "409": problem("the game is over"), "422": problem("a time in the past, a bad policy, nothing to resume") })) } },
            "/api/v1/games/{id}/dead-letters": { "get": { "operationId": "listDeadLetters", "summary": "mail given up after too many failures (host)",
                "security": [{ "bearer": [] }], "parameters": [id()],
                "responses": responses(read, json!({ "200": ok("the dead letters", "DeadLetters") })) } },
            "/api/v1/games/{id}/dead-letters/{mail}/retry": { "post": { "operationId": "retryDeadLetter", "summary": "send a dead letter again (host)",
                "security": [{ "bearer": [] }],
                "parameters": [id(), { "name": "mail", "in": "path", "required": true, "schema": { "type": "string" }, "description": "the dead letter's id" }],
                "responses": responses(Takes { token: true, body: false, writes: true }, json!({ "200": ok("queued again", "Retried") })) } }
        }
    })
}

/// The largest whole number every JSON client carries exactly.
const MAX_SAFE: i64 = 9_007_199_254_740_991;

const DESCRIPTION: &str = "Slow, asynchronous board games. Every action is an event in a per-game, hash-chained log; \
every answer is cut to its viewer. Errors are application/problem+json with a detail that says what was wrong. \
Tokens go in `Authorization: Bearer`; only the stream also takes `?token=`. \
`expected_seq` is required for turn commands and decisions within a turn (400 without it), optional for a secret plan. \
`pending` lists only the decisions still owed; `submitted` those given but still open to change. \
Once a game is over its whole log is public: events show `hidden: false` while `visibility` still names the seats they were for.";

/// The schemas written by hand: answers assembled as JSON by the service.
fn hand_written(commands: Vec<Value>, events: Vec<Value>, views: Vec<Value>) -> Value {
    // Whole numbers a JSON client can carry exactly (2^53 - 1 at most).
    let int = || json!({ "type": "integer", "minimum": 0, "maximum": MAX_SAFE });
    let pending_list = || json!({ "type": "array", "items": schema_ref("Pending") });
    let mut first = json!({
        "Problem": { "type": "object", "required": ["type", "title", "status", "detail"], "properties": {
            "type": { "type": "string" }, "title": { "type": "string" }, "status": { "type": "integer" },
            "detail": { "type": "string", "description": "what was wrong, in words" },
            "pending": pending_list(),
            "head": { "type": ["integer", "null"] }, "expected_seq": { "type": "integer" } } },
        "Pending": { "type": "object", "required": ["seat", "kind", "class", "prompt", "submitted"], "additionalProperties": false, "properties": {
            "seat": int(), "kind": { "type": "string", "description": "the game's own name for the decision" },
            "class": { "enum": ["plan", "turn", "small"] }, "prompt": { "type": "string" },
            "submitted": { "type": "boolean", "description": "false in `pending` (still owed); true in `submitted` (given, may still be replaced)" } } },
        "Health": { "type": "object", "required": ["status"], "properties": {
            "status": { "enum": ["ok", "degraded"] },
            "storage": { "type": "object", "properties": { "free_bytes": int(), "reserve_bytes": int(), "recovering": { "type": "boolean" }, "detail": { "type": "string" } } } } },
        "Ruleset": { "type": "object", "required": ["id", "name", "min_seats", "max_seats", "rules_version"], "properties": {
            "id": { "type": "string" }, "name": { "type": "string" }, "min_seats": int(),
            "max_seats": int(), "rules_version": int(),
            "default_options": { "type": "object" }, "options_help": { "type": "array", "items": { "type": "array", "items": { "type": "string" } } }, "description": { "type": "string" } } },
        "RulesetContracts": { "allOf": [schema_ref("Ruleset")], "type": "object", "properties": {
            "fixture": { "type": "boolean", "description": "a test fixture, never offered by a production server" },
            "schemas": { "type": "object", "description": "JSON Schemas (draft 2020-12) generated from the game's types; also under components/schemas/<ruleset>.<Name> here",
                "properties": { "options": { "type": "object" }, "command": { "type": "object" }, "event": { "type": "object" }, "view": { "type": "object" } } } } },
        "Rulesets": { "type": "object", "required": ["rulesets"], "properties": { "rulesets": { "type": "array", "items": schema_ref("Ruleset") } } },
        "Summary": { "type": "object", "required": ["game_id", "ruleset", "status", "seats", "pending", "submitted", "head"], "properties": {
            "game_id": { "type": "string" }, "ruleset": { "type": "string" }, "rules_version": int(),
            "options": { "type": "object", "description": "the game's options, defaults filled in" },
            "status": { "enum": ["running", "over"] },
            "seats": { "type": "array", "items": { "type": "object", "properties": { "seat": int(), "name": { "type": "string" } } } },
            "pending": pending_list(), "submitted": pending_list(),
            "head": int(), "created_at": { "type": ["string", "null"], "description": "when the game was created (RFC 3339)" },
            "seed_commitment": { "type": "string" }, "seed": { "type": ["string", "null"], "description": "revealed once the game is over" },
            "forked_from": { "type": ["object", "null"], "properties": { "game": { "type": "string" }, "seq": int() } },
            "outcome": { "anyOf": [schema_ref("Outcome"), { "type": "null" }] },
            "deadlines": { "type": "object", "properties": {
                "policy": { "anyOf": [schema_ref("DeadlinePolicy"), { "type": "null" }] }, "paused": { "type": "boolean" },
                "due": { "type": "array", "items": { "type": "object", "properties": { "decision": { "type": "string", "description": "seat/kind" }, "due": { "type": "string" } } } },
                "forfeited": { "type": "array", "items": { "type": "boolean" }, "description": "per seat: whether it has forfeited" } } } } },
        "Outcome": { "type": "object", "required": ["scores", "ranking", "winners", "summary"], "properties": {
            "scores": { "type": "array", "items": { "type": "integer" } }, "ranking": { "type": "array", "items": int() },
            "winners": { "type": "array", "items": int() }, "summary": { "type": "string" } } },
        "Viewer": { "oneOf": [{ "enum": ["public", "referee"] }, { "type": "object", "required": ["seat"], "additionalProperties": false, "properties": { "seat": int() } }],
            "description": "who the answer is cut for: the public (also hosts), one seat, or the referee" },
        "View": { "type": "object", "required": ["game_id", "ruleset", "seq", "head", "viewer", "view", "pending", "submitted", "legal", "legal_labels", "over"], "properties": {
            "game_id": { "type": "string" }, "ruleset": { "type": "string" },
            "seq": { "type": "integer", "description": "the position shown: after this event" }, "head": int(),
            "viewer": schema_ref("Viewer"),
            "view": { "anyOf": views, "description": "the game's view for this viewer: the ruleset's View schema" },
            "pending": pending_list(), "submitted": pending_list(),
            "legal": { "type": "array", "items": { "anyOf": commands.clone() }, "description": "legal commands for the token's seat, at the head" },
            "legal_labels": { "type": "array", "items": { "type": "string" }, "description": "each legal command in words, in the same order" },
            "over": { "type": "boolean" }, "outcome": { "anyOf": [schema_ref("Outcome"), { "type": "null" }] } } },
        "Submission": { "type": "object", "required": ["command"], "additionalProperties": false, "properties": {
            "command": { "anyOf": commands, "description": "a command of the game's ruleset (its Command schema)" },
            "expected_seq": { "type": "integer", "minimum": 0, "maximum": MAX_SAFE, "description": "the head the client decided on; 409 if the log has moved. Required for turn commands, optional for a secret plan" } } },
        "Actor": { "oneOf": [{ "enum": ["host", "referee", "system"] }, { "type": "object", "required": ["seat"], "additionalProperties": false, "properties": { "seat": int() } }],
            "description": "who caused the event" },
        "Visibility": { "oneOf": [{ "const": "public" }, { "type": "object", "required": ["seats"], "additionalProperties": false, "properties": { "seats": { "type": "array", "items": int() } } }],
            "description": "who may see the body; after the game's end everyone does (hidden is false) though this still names the seats" },
        "Event": { "type": "object", "required": ["game", "seq", "time", "actor", "body", "visibility", "digest", "prev_hash", "hash", "hidden", "in_force", "text"], "properties": {
            "game": { "type": "string" }, "seq": int(), "time": { "type": "string", "format": "date-time" },
            "actor": schema_ref("Actor"),
            "body": { "oneOf": [
                { "type": "object", "required": ["kind", "event"], "properties": { "kind": { "const": "kernel" }, "event": { "type": "object", "description": "a kernel event (GameCreated, RolledBack, SeatTokenRevoked, SeedRevealed, …), tagged by type" } } },
                { "type": "object", "required": ["kind", "v", "event"], "properties": { "kind": { "const": "game" }, "v": int(),
                    "event": { "anyOf": events.into_iter().chain([json!({ "type": "object", "description": "when hidden: the redacted public form" })]).collect::<Vec<_>>() } } } ] },
            "visibility": schema_ref("Visibility"),
            "redacted": { "description": "what those who may not see the body are shown (present on hidden events' envelopes)" },
            "decision": { "type": "object", "description": "on the first event of each decision: the command as submitted and how many events it caused" },
            "digest": { "type": "string" }, "prev_hash": { "type": "string" }, "hash": { "type": "string" },
            "hidden": { "type": "boolean", "description": "the body is the redacted public form" },
            "in_force": { "type": "boolean", "description": "false once voided by a rollback or undo" },
            "text": { "type": "string", "description": "the event in words" } } }
    });
    let rest = json!({
        "Events": { "type": "object", "required": ["events"], "properties": { "events": { "type": "array", "items": schema_ref("Event") } } },
        "StreamClosed": { "type": "object", "required": ["reason", "detail"], "properties": {
            "reason": { "enum": ["over", "revoked", "unavailable"] }, "detail": { "type": "string" },
            "head": int(), "outcome": { "anyOf": [schema_ref("Outcome"), { "type": "null" }] } } },
        "Accepted": { "type": "object", "required": ["head", "events", "pending", "submitted", "over"], "properties": {
            "head": int(), "events": { "type": "array", "items": schema_ref("Event") },
            "pending": pending_list(), "submitted": pending_list(), "over": { "type": "boolean" } } },
        "Rollback": { "type": "object", "required": ["to_seq", "reason"], "additionalProperties": false, "properties": {
            "to_seq": int(), "reason": { "type": "string", "minLength": 1 } } },
        "Fork": { "type": "object", "required": ["at_seq"], "additionalProperties": false, "properties": { "at_seq": int() } },
        "Reissue": { "type": "object", "additionalProperties": false, "properties": { "reason": { "type": "string" } } },
        "Verify": { "type": "object", "required": ["game_id", "events", "chain_ok", "ok"], "properties": {
            "game_id": { "type": "string" }, "chain_ok": { "type": "boolean" }, "ok": { "type": "boolean" }, "events": int(),
            "problem": { "type": ["object", "null"], "properties": { "seq": int(), "problem": { "type": "string" } } },
            "seed_commitment": { "type": ["string", "null"] }, "seed": { "type": ["string", "null"] }, "draws": { "type": "object" } } },
        "ClockAction": { "anyOf": [
            { "type": "object", "required": ["action", "reason"], "additionalProperties": false, "properties": { "action": { "const": "pause" }, "reason": { "type": "string" } } },
            { "type": "object", "required": ["action"], "additionalProperties": false, "properties": { "action": { "const": "resume" } } },
            { "type": "object", "required": ["action", "reason"], "additionalProperties": false, "properties": { "action": { "const": "extend" },
                "seat": { "type": ["integer", "null"], "minimum": 0, "maximum": 255 },
                "hours": { "type": ["integer", "null"], "minimum": -MAX_SAFE, "maximum": MAX_SAFE }, "until": { "type": ["string", "null"], "format": "date-time" }, "reason": { "type": "string" } } },
            { "type": "object", "required": ["action", "policy"], "additionalProperties": false, "properties": { "action": { "const": "set_policy" }, "policy": { "anyOf": [schema_ref("DeadlinePolicy"), { "type": "null" }], "description": "null: no deadlines from now on" } } },
            { "type": "object", "required": ["action", "seat", "until"], "additionalProperties": false, "properties": { "action": { "const": "vacation" },
                "seat": { "type": "integer", "minimum": 0, "maximum": 255 }, "until": { "type": "string", "format": "date-time" } } } ] },
        "ClockDone": { "type": "object", "description": "the event the action appended and the clocks after it", "properties": {
            "head": int(), "events": { "type": "array", "items": schema_ref("Event") } } },
        "DeadlinePolicy": { "type": "object", "required": ["plan_hours", "turn_hours", "small_hours"], "properties": {
            "plan_hours": { "type": "number" }, "turn_hours": { "type": "number" }, "small_hours": { "type": "number" },
            "reminders_hours": { "type": "array", "items": { "type": "number" } }, "grace_hours": { "type": "number", "default": 24 },
            "substitute_after": { "type": "integer", "default": 2 }, "forfeit_after": { "type": "integer", "default": 4 } } },
        "NewLink": { "type": "object", "required": ["seat", "generation", "token", "link"], "properties": {
            "seat": int(), "generation": int(), "token": { "type": "string" }, "link": { "type": "string" } } },
        "DeadLetters": { "type": "object", "required": ["dead_letters"], "properties": { "dead_letters": { "type": "array", "items": {
            "type": "object", "required": ["id", "kind", "to", "subject", "attempts"], "properties": {
                "id": { "type": "string" }, "kind": { "type": "string" }, "to": { "type": "string" }, "subject": { "type": "string" },
                "attempts": int(), "last_error": { "type": ["string", "null"] } } } } } },
        "Retried": { "type": "object", "required": ["id", "queued"], "properties": { "id": { "type": "string" }, "queued": { "type": "boolean" } } }
    });
    if let (Some(f), Value::Object(r)) = (first.as_object_mut(), rest) {
        f.extend(r);
    }
    first
}
