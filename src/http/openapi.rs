//! `GET /openapi.json`: the API described for third-party clients.
//!
//! Every schema is generated (schemars) from the Rust types the handlers
//! decode and serialize: the request bodies ([`CreateGame`], [`SeatSpec`],
//! [`HostSpec`], [`ClockAction`], [`Policy`] and those of [`super::types`])
//! and every JSON answer ([`CreatedGame`] and the answers of
//! [`super::types`], through which the handlers serve what the service
//! builds). Each hosted ruleset's published options, command, event and
//! view schemas are embedded under `components/schemas/<ruleset>.<Name>`
//! and referenced from the generic ones (`AnyOptions`, `AnyCommand`,
//! `AnyGameEvent`, `AnyView`), so the document cannot drift from the types.
//! Tests check that its paths are exactly those of [`super::routes`], that
//! the served document is this function's, that every answer the test
//! suite receives fits its type ([`super::contract_violations`]), and that
//! every status the suite saw a route answer is listed for it (recorded by
//! [`super::record_answers`]).

use runestone_engine::Registry;
use schemars::generate::SchemaSettings;
use serde_json::{json, Map, Value};

use super::types as t;
use crate::service::{ClockAction, CreateGame, CreatedGame, HostSpec, Policy, SeatSpec};

fn problem(desc: &str) -> Value {
    json!({ "description": desc, "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } } })
}

/// A rate limit's refusal, with its `Retry-After`.
fn too_many(desc: &str) -> Value {
    json!({ "description": desc,
        "headers": { "Retry-After": { "description": "seconds until the next request may succeed", "schema": { "type": "integer" } } },
        "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } } })
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

fn message_seq() -> Value {
    json!({ "name": "seq", "in": "path", "required": true, "schema": { "type": "integer", "minimum": 0, "maximum": u64::MAX },
            "description": "the message's seq (its id); one the token does not read is 404" })
}

fn idem() -> Value {
    json!({ "name": "Idempotency-Key", "in": "header", "required": false,
            "schema": { "type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[!-~]([ -~]*[!-~])?$" },
            "description": "a repeated request with the same key gets the first answer again and changes nothing" })
}

/// A number of the query: the server reads 64 bits, so the schema says so
/// (a longer number is refused in words, and is not a valid request).
fn number(name: &str, minimum: u64, desc: &str) -> Value {
    json!({ "name": name, "in": "query", "required": false,
            "schema": { "type": "integer", "minimum": minimum, "maximum": u64::MAX }, "description": desc })
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
        problem("the store is unavailable or recovering, or did not answer within the bound (`server.answer_seconds`, 20 s by default); the detail says whether anything may have been recorded"),
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

/// A link to `op`, its parameters and request body taken from the answer
/// (runtime expressions; other strings are literal).
fn link(op: &str, parameters: Value, body: Option<Value>, desc: &str) -> Value {
    let mut l = json!({ "operationId": op, "parameters": parameters, "description": desc });
    if let Some(b) = body {
        l["requestBody"] = b;
    }
    l
}

/// Links from a created game to its operations, for clients and for
/// stateful test tools that follow them.
fn game_links() -> Value {
    let id = || json!({ "id": "$response.body#/game_id" });
    let seat0 = || json!({ "id": "$response.body#/game_id", "seat": "$response.body#/seats/0/seat" });
    json!({
        "GetGame": link("getGame", id(), None, "the game's summary"),
        "GetView": link("getView", id(), None, "the view (send a seat's token for its own)"),
        "GetEvents": link("getEvents", id(), None, "the log"),
        "SubmitCommand": link("submitCommand", id(), None, "a seat's command (with one of the seats' tokens)"),
        "Undo": link("undo", id(), None, "take back a seat's own last steps"),
        "Rollback": link("rollback", id(), None, "void events after a position (host token)"),
        "Fork": link("fork", id(), Some(json!({ "at_seq": "$response.body#/head" })), "a new game from its position after the setup (host token)"),
        "Verify": link("verifyGame", id(), None, "check the chain"),
        "ReissueSeat0": link("reissueSeatToken", seat0(), None, "a new link for the first seat (host token)"),
        "Substitute0": link("substituteSeat", seat0(), None, "a substitute in the first seat (host token)"),
        "Clock": link("clockAction", id(), None, "pause, resume, extend (host token) or a vacation (seat token)"),
        "DeadLetters": link("listDeadLetters", id(), None, "mail given up on (host token)"),
    })
}

/// Links from a game's summary: its operations, on its current position.
fn summary_links() -> Value {
    let id = || json!({ "id": "$response.body#/game_id" });
    let seat0 = || json!({ "id": "$response.body#/game_id", "seat": "$response.body#/seats/0/seat" });
    json!({
        "GetView": link("getView", id(), None, "the view at the head"),
        "GetViewAtHead": link("getView", json!({ "id": "$response.body#/game_id", "at": "$response.body#/head" }), None, "the position after the head event"),
        "GetEventsFromHead": link("getEvents", json!({ "id": "$response.body#/game_id", "from": "$response.body#/head" }), None, "the log's last event"),
        "Verify": link("verifyGame", id(), None, "check the chain"),
        "Undo": link("undo", id(), None, "take back a seat's own last steps"),
        "RollbackToHead": link("rollback", id(), Some(json!({ "to_seq": "$response.body#/head", "reason": "a test of the links" })), "void nothing after the head (host token)"),
        "ForkAtHead": link("fork", id(), Some(json!({ "at_seq": "$response.body#/head" })), "a new game from the head (host token)"),
        "ReissueSeat0": link("reissueSeatToken", seat0(), None, "a new link for the first seat (host token)"),
        "Substitute0": link("substituteSeat", seat0(), Some(json!({ "name": "$response.body#/seats/0/name" })), "the first seat's player again, as a substitute (host token)"),
        "Clock": link("clockAction", id(), None, "the game's clocks"),
        "DeadLetters": link("listDeadLetters", id(), None, "mail given up on (host token)"),
    })
}

/// Links from a view: its first legal command, decided on the head shown.
fn view_links() -> Value {
    let id = || json!({ "id": "$response.body#/game_id" });
    json!({
        "SubmitLegal": link("submitCommand", id(), Some(json!({ "command": "$response.body#/legal/0", "expected_seq": "$response.body#/head" })),
            "the first legal command, on the head the view showed (with the seat's token)"),
        "GetGame": link("getGame", id(), None, "the game's summary"),
        "GetEventsFromSeq": link("getEvents", json!({ "id": "$response.body#/game_id", "from": "$response.body#/seq" }), None, "the log from the position shown"),
    })
}

/// Links from an answer listing events (accepted changes, the log).
fn events_links() -> Value {
    let id = || json!({ "id": "$response.body#/events/0/game" });
    json!({
        "GetGame": link("getGame", id(), None, "the game's summary"),
        "GetView": link("getView", id(), None, "the view now"),
        "GetEventsFromFirst": link("getEvents", json!({ "id": "$response.body#/events/0/game", "from": "$response.body#/events/0/seq" }), None, "the log from these events"),
    })
}

/// A 200 answer of `schema` with links.
fn ok_linked(desc: &str, schema: &str, links: Value) -> Value {
    let mut r = ok(desc, schema);
    r["links"] = links;
    r
}

/// One ruleset schema embedded as a component: its `$defs` references and
/// references to itself (`#`) made to point inside the component, its
/// `$schema` and `$id` left out, its whole numbers bounded as the game
/// reads them ([`safe_integers`]).
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
    safe_integers(&mut v);
    v
}

/// The schemas generated from the server's own Rust types: every request
/// body the handlers decode and every JSON answer they serialize.
fn generated(registry: &Registry) -> Map<String, Value> {
    let mut g =
        SchemaSettings::draft2020_12().with(|s| s.definitions_path = "/components/schemas/".into()).into_generator();
    g.subschema_for::<CreateGame>();
    g.subschema_for::<CreatedGame>();
    g.subschema_for::<SeatSpec>();
    g.subschema_for::<HostSpec>();
    g.subschema_for::<ClockAction>();
    g.subschema_for::<Policy>();
    g.subschema_for::<t::Problem>();
    g.subschema_for::<t::Health>();
    g.subschema_for::<t::Rulesets>();
    g.subschema_for::<t::RulesetContracts>();
    g.subschema_for::<t::Summary>();
    g.subschema_for::<t::View>();
    g.subschema_for::<t::Event>();
    g.subschema_for::<t::Events>();
    g.subschema_for::<t::Accepted>();
    g.subschema_for::<t::StreamClosed>();
    g.subschema_for::<t::Verify>();
    g.subschema_for::<t::NewLink>();
    g.subschema_for::<t::ClockDone>();
    g.subschema_for::<t::DeadLetters>();
    g.subschema_for::<t::Retried>();
    g.subschema_for::<t::Submission>();
    g.subschema_for::<t::Rollback>();
    g.subschema_for::<t::Fork>();
    g.subschema_for::<t::Reissue>();
    g.subschema_for::<t::Message>();
    g.subschema_for::<t::Messages>();
    g.subschema_for::<t::InboundAnswer>();
    g.subschema_for::<t::NewMessage>();
    g.subschema_for::<t::MessageReason>();
    g.subschema_for::<t::RoleLink>();
    g.subschema_for::<t::Notifications>();
    g.subschema_for::<t::NotificationsChange>();
    g.subschema_for::<t::Channel>();
    g.subschema_for::<t::ChannelChange>();
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
                let (min, max) = (g.info().min_seats, g.info().max_seats);
                json!({ "if": { "properties": { "ruleset": { "const": id } }, "required": ["ruleset"] },
                        "then": { "properties": {
                            "options": { "anyOf": [schema_ref(&format!("{id}.Options")), { "type": "null" }] },
                            "seats": { "minItems": min, "maxItems": max } } } })
            })
            .collect();
        create.insert("allOf".into(), Value::Array(per_ruleset));
    }
    // A time zone is one the server knows (by its IANA name).
    let zones: Vec<&str> = chrono_tz::TZ_VARIANTS.iter().map(|z| z.name()).collect();
    for spec in ["SeatSpec", "HostSpec", "NotificationsChange"] {
        if let Some(tz) = defs.get_mut(spec).and_then(|s| s.pointer_mut("/properties/tz")) {
            let description = tz.get("description").cloned().unwrap_or(json!("an IANA time zone"));
            *tz = json!({ "anyOf": [{ "enum": zones }, { "type": "null" }], "description": description });
        }
    }
    // A problem echoes what was sent (a stale `expected_seq`), bounded or not.
    for (name, v) in defs.iter_mut() {
        if name != "Problem" {
            safe_integers(v);
        }
    }
    defs
}

/// Whole numbers are bounded by what the server reads them into (their
/// `format`, as schemars names Rust's integer types), those of 64 bits by
/// what every JSON client carries exactly (2^53 - 1).
fn safe_integers(v: &mut Value) {
    match v {
        Value::Object(o) => {
            let bounds = match o.get("format").and_then(Value::as_str) {
                Some("uint64" | "uint") => Some((0, MAX_SAFE)),
                Some("int64" | "int") => Some((-MAX_SAFE, MAX_SAFE)),
                Some("uint32") => Some((0, i64::from(u32::MAX))),
                Some("int32") => Some((i64::from(i32::MIN), i64::from(i32::MAX))),
                Some("uint16") => Some((0, i64::from(u16::MAX))),
                Some("int16") => Some((i64::from(i16::MIN), i64::from(i16::MAX))),
                Some("uint8") => Some((0, i64::from(u8::MAX))),
                Some("int8") => Some((i64::from(i8::MIN), i64::from(i8::MAX))),
                _ => None,
            };
            if let Some((min, max)) = bounds {
                o.entry("minimum").or_insert(json!(min));
                o.entry("maximum").or_insert(json!(max));
            }
            o.values_mut().for_each(safe_integers);
        }
        Value::Array(a) => a.iter_mut().for_each(safe_integers),
        _ => {}
    }
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
    // The game's parts of the generic answers: any hosted ruleset's.
    let mut options: Vec<Value> = registry.all().map(|g| schema_ref(&format!("{}.Options", g.info().id))).collect();
    options.push(json!({ "type": "object", "description": "options of a ruleset no longer hosted" }));
    events.push(json!({ "type": "object", "description": "when hidden: the redacted public form the game gives" }));
    schemas.insert(
        "AnyOptions".into(),
        json!({ "anyOf": options, "description": "a ruleset's options (its Options schema)" }),
    );
    schemas.insert(
        "AnyCommand".into(),
        json!({ "anyOf": commands, "description": "a command of a hosted ruleset (its Command schema)" }),
    );
    schemas.insert(
        "AnyGameEvent".into(),
        json!({ "anyOf": events, "description": "an event of the game's ruleset (its Event schema)" }),
    );
    schemas.insert(
        "AnyView".into(),
        json!({ "anyOf": views, "description": "a view of the game's ruleset (its View schema)" }),
    );
    let seat_takes = Takes { token: true, body: true, writes: true };
    let read = Takes { token: true, body: false, writes: false };
    let public = Takes { token: false, body: false, writes: false };
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "runestone",
            "version": "1",
            "description": DESCRIPTION,
        },
        "components": {
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer", "bearerFormat": "JWT" },
                "instanceKey": { "type": "http", "scheme": "bearer", "description": "the server's instance key (`access.instance_key`), for creating games" } },
            "schemas": schemas,
        },
        "paths": {
            "/healthz": { "get": { "operationId": "healthz", "summary": "liveness and storage state",
                "responses": { "200": ok("serving (\"degraded\" says why)", "Health") } } },
            "/metrics": { "get": { "operationId": "metrics", "summary": "Prometheus text metrics",
                "responses": { "200": { "description": "metrics", "content": { "text/plain": { "schema": { "type": "string" } } } },
                    "503": problem("the store (read for the outbox's depth) did not answer within the bound") } } },
            "/openapi.json": { "get": { "operationId": "openapi", "summary": "this document",
                "responses": { "200": { "description": "OpenAPI 3.1", "content": { "application/json": { "schema": { "type": "object" } } } } } } },
            "/api/v1/rulesets": { "get": { "operationId": "listRulesets", "summary": "games offered, their options and player counts",
                "responses": { "200": ok("rulesets", "Rulesets") } } },
            "/api/v1/rulesets/{ruleset}": { "get": { "operationId": "getRuleset", "summary": "one ruleset's info and the JSON Schemas of its options, commands, events and views",
                "parameters": [{ "name": "ruleset", "in": "path", "required": true, "schema": { "type": "string" }, "description": "the ruleset id, as listed by /api/v1/rulesets" }],
                "responses": { "200": ok("the ruleset and its schemas", "RulesetContracts"), "404": problem("no such ruleset here") } } },
            "/api/v1/games": { "post": { "operationId": "createGame",
                "summary": "create a game",
                "description": "With the server's instance key (`Authorization: Bearer <instance key>`) the game's mail is sent at once. Without it (where the operator allows that: `access.create = \"open\"`), no mail goes to the players, or to the host beyond one confirmation message, until the host opens the link mailed to the host's address; `mail` in the answer says so. Games created per client address and confirmations per host address are bounded (429 with Retry-After).",
                "security": [{}, { "instanceKey": [] }], "parameters": [idem()], "requestBody": body("CreateGame", true),
                "responses": responses(Takes { token: false, body: true, writes: true }, json!({
                    "201": { "description": "the game, with every token and link (shown only here)",
                        "headers": { "Location": { "description": "the game's summary", "schema": { "type": "string" } } },
                        "content": { "application/json": { "schema": schema_ref("CreatedGame") } }, "links": game_links() },
                    "400": problem("not a game to create, or a name, address or time zone with a control character or past its length"),
                    "401": problem("no instance key where the server needs one, or not the server's instance key"),
                    "429": too_many("too many games created from this address, or confirmations mailed to the host's address; try again after Retry-After"),
                    "422": problem("unknown ruleset, bad seat count, bad option, invalid email or time zone"),
                    "409": problem("the Idempotency-Key was used for another request") })) } },
            "/api/v1/games/{id}": { "get": { "operationId": "getGame", "summary": "summary", "parameters": [id()],
                "responses": responses(public, json!({ "200": ok_linked("summary", "Summary", summary_links()) })) } },
            "/api/v1/games/{id}/view": { "get": { "operationId": "getView", "summary": "the viewer's view at the head or after event `at`", "security": [{}, { "bearer": [] }],
                "parameters": [id(), number("at", 1, "the position after this event: 1 (the setup) to the head; 0 or a number past 64 bits is 400, beyond the head 422")],
                "responses": responses(read, json!({ "200": ok_linked("view", "View", view_links()), "422": problem("no such position yet (beyond the head)") })) } },
            "/api/v1/games/{id}/commands": { "post": { "operationId": "submitCommand", "summary": "submit a seat's command", "security": [{ "bearer": [] }],
                "description": "expected_seq is required (400 without it) when the seat owes a turn or a decision within a turn, and may be left out only for a secret plan, which a later plan replaces.",
                "parameters": [id(), idem()], "requestBody": body("Submission", true),
                "responses": responses(seat_takes, json!({ "200": ok_linked("accepted: the events it caused, cut to the seat", "Accepted", events_links()),
                    "409": problem("stale expected_seq (the answer gives the head), the game is over, or the Idempotency-Key was used for another request"),
                    "422": problem("illegal by the rules (in the rule's own words), or not this seat's turn (the answer lists who is pending)") })) } },
            "/api/v1/games/{id}/undo": { "post": { "operationId": "undo", "summary": "take back the seat's own last steps within its turn", "security": [{ "bearer": [] }],
                "parameters": [id()], "responses": responses(Takes { token: true, body: false, writes: true }, json!({ "200": ok_linked("undone", "Accepted", events_links()),
                    "409": problem("the game is over"), "422": problem("nothing to undo") })) } },
            "/api/v1/games/{id}/events": { "get": { "operationId": "getEvents", "summary": "the log, cut to the viewer", "security": [{}, { "bearer": [] }],
                "parameters": [id(), number("from", 0, "the first event, inclusive (default 0)"), number("to", 0, "the last event, inclusive (default and at most: the head)")],
                "responses": responses(read, json!({ "200": ok_linked("events from `from` to `to`, both included; empty when from > to", "Events", events_links()) })) } },
            "/api/v1/games/{id}/stream": { "get": { "operationId": "streamEvents",
                "summary": "server-sent events as the log grows (`Last-Event-ID` resumes; `?token=` for browsers, only here)",
                "description": "Frames `event: event` carry Event objects (id: the seq); after the event of a message the token reads (or of its hiding), a frame `event: message` carries the Message as the token reads it. The stream ends with one `event: closed` frame (a StreamClosed object): `over` once the game has ended, `revoked` when the seat's links were revoked (nothing after the revocation is sent). Open streams are bounded per client (`server.max_streams_per_client`, default 16: past it 429) and in total (`server.max_streams`: past it 503), both with `Retry-After`.",
                "security": [{}, { "bearer": [] }],
                "parameters": [id(), number("from", 0, "replay the log from this event first"),
                    { "name": "token", "in": "query", "required": false, "schema": { "type": "string" }, "description": "the token, for clients that cannot set headers (only this route takes it)" }],
                "responses": responses(read, json!({ "200": { "description": "text/event-stream of Event objects, then one StreamClosed", "content": { "text/event-stream": { "schema": { "type": "string" } } } },
                    "429": problem("this client holds the most event streams one client may (see Retry-After)"),
                    "503": problem("the server holds the most event streams it keeps open (see Retry-After), or the store is unavailable") })) } },
            "/api/v1/games/{id}/messages": {
                "get": { "operationId": "listMessages", "summary": "the conversation the token reads, oldest first, in pages", "security": [{}, { "bearer": [] }],
                    "description": "A message is read only by its channel's seats and its writer while the game runs (the channel of everyone: every seat, the host and the referee); after the end as the game's `press.after_end` says. Without a token only messages made public after the end are listed.",
                    "parameters": [id(),
                        { "name": "channel", "in": "query", "required": false, "schema": { "type": "string", "maxLength": 200, "pattern": "^(all|[0-9]{1,3}(-[0-9]{1,3})*)$" }, "description": "only this channel: \"all\", or its seats in order joined by \"-\" (\"0-2\")" },
                        number("since", 0, "only messages written after this seq"),
                        { "name": "limit", "in": "query", "required": false, "schema": { "type": "integer", "minimum": 1, "maximum": 200 }, "description": "at most this many (default and most: 200); `next` says where the next page starts" }],
                    "responses": responses(read, json!({ "200": ok("one page of messages", "Messages") })) },
                "post": { "operationId": "postMessage", "summary": "write a message to everyone or to a set of seats (a seat, the host or the referee)", "security": [{ "bearer": [] }],
                    "description": "Plain text; links are shown as text and never followed. The game's press options decide who may write what and when (422 says why not). Each writer may write `press.per_hour` messages an hour (429 with Retry-After past it); a message past `press.max_chars` characters is 413.",
                    "parameters": [id()], "requestBody": body("NewMessage", true),
                    "responses": responses(seat_takes, json!({ "201": ok("written: the message as its writer sees it", "Message"),
                        "409": problem("the game is over"),
                        "413": problem("the body is over the size limit, or the message is longer than a message may be"),
                        "422": problem("the game's press options do not allow it now, an empty message, or a seat it does not have"),
                        "429": too_many("this writer wrote as many messages as one may in an hour") })) } },
            "/api/v1/games/{id}/messages/{seq}/hide": { "post": { "operationId": "hideMessage", "summary": "hide a message from its readers, with a reason (host or referee); the moderators still read it",
                "security": [{ "bearer": [] }], "parameters": [id(), message_seq()], "requestBody": body("MessageReason", true),
                "responses": responses(seat_takes, json!({ "200": ok("hidden", "Message"), "409": problem("the game is over"), "422": problem("hidden already") })) } },
            "/api/v1/games/{id}/messages/{seq}/report": { "post": { "operationId": "reportMessage", "summary": "report a message to the host and the referee (a seat that reads it)",
                "security": [{ "bearer": [] }], "parameters": [id(), message_seq()], "requestBody": body("MessageReason", true),
                "responses": responses(seat_takes, json!({ "200": ok("reported", "Message"), "409": problem("the game is over"), "422": problem("reported already") })) } },
            "/api/v1/games/{id}/rollback": { "post": { "operationId": "rollback", "summary": "void every event after to_seq, with a reason (host or referee); appended, never deleted",
                "security": [{ "bearer": [] }], "parameters": [id()], "requestBody": body("Rollback", true),
                "responses": responses(seat_takes, json!({ "200": ok_linked("rolled back", "Accepted", events_links()), "409": problem("the game is over"), "422": problem("bad target") })) } },
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
            "/api/v1/games/{id}/roles/{role}/token": { "post": { "operationId": "reissueRoleToken", "summary": "revoke the host's own token or the referee's and issue a new one (host); the old one stops working at once",
                "security": [{ "bearer": [] }], "parameters": [id(), { "name": "role", "in": "path", "required": true, "schema": { "type": "string", "enum": ["host", "referee"] },
                    "description": "whose token: host or referee; any other is 400" }], "requestBody": body("Reissue", false),
                "responses": responses(seat_takes, json!({ "200": ok("the new token (and the host's link)", "RoleLink") })) } },
            "/api/v1/games/{id}/seats/{seat}/substitute": { "post": { "operationId": "substituteSeat", "summary": "seat a substitute (host): old links revoked (their streams close), the new player invited",
                "security": [{ "bearer": [] }], "parameters": [id(), seat()], "requestBody": body("SeatSpec", true),
                "responses": responses(seat_takes, json!({ "200": ok("the substitute's link", "NewLink"), "409": problem("the game is over"), "422": problem("no such seat, bad name, address or time zone"), "429": too_many("more mail than the game's host may cause per hour") })) } },
            "/api/v1/games/{id}/clock": { "post": { "operationId": "clockAction", "summary": "pause, resume, extend, set the deadline policy (host), take a vacation, or say a seat the bot plays is back (the seat itself, or the host)",
                "security": [{ "bearer": [] }], "parameters": [id()], "requestBody": body("ClockAction", true),
                "responses": responses(seat_takes, json!({ "200": ok("done: the event and the clocks", "ClockDone"),
                    "409": problem("the game is over"), "422": problem("a time in the past, a bad policy, nothing to resume, a seat the bot does not play") })) } },
            "/api/v1/games/{id}/dead-letters": { "get": { "operationId": "listDeadLetters", "summary": "mail given up after too many failures (host)",
                "security": [{ "bearer": [] }], "parameters": [id()],
                "responses": responses(read, json!({ "200": ok("the dead letters", "DeadLetters") })) } },
            "/api/v1/games/{id}/dead-letters/{mail}/retry": { "post": { "operationId": "retryDeadLetter", "summary": "send a dead letter again (host)",
                "security": [{ "bearer": [] }],
                "parameters": [id(), { "name": "mail", "in": "path", "required": true, "schema": { "type": "string" }, "description": "the dead letter's id" }],
                "responses": responses(Takes { token: true, body: false, writes: true }, json!({ "200": ok("queued again", "Retried"), "429": too_many("more mail than the game's host may cause per hour") })) } }
        }
    });
    doc["paths"]["/api/v1/inbound/mail"] = inbound_path();
    if let (Some(paths), Value::Object(more)) = (doc["paths"].as_object_mut(), notification_paths(seat_takes, read)) {
        paths.extend(more);
    }
    doc
}

/// The inbound route `runestone inbound` hands received mail to.
fn inbound_path() -> Value {
    json!({ "post": { "operationId": "receiveMail",
        "summary": "one received mail message, a reply to a reply address (`runestone inbound` sends it; not for other clients)",
        "description": "Authenticated by the inbound route key (`Authorization: Bearer <key>`: `inbound.route_key`, or derived from the signing key). The body is one RFC 5322 message, at most `inbound.max_bytes` bytes (413 past it). Its order is read in the game's words and decided as the seat's command; the seat gets a receipt at its own address. 403: a forged, expired or revoked reply address; 404: replies are not taken, or the message is to no reply address of this server; 429: the seat sent as many replies as an hour allows.",
        "security": [{ "bearer": [] }],
        "parameters": [{ "name": "recipient", "in": "query", "required": false, "schema": { "type": "string", "maxLength": 320 },
            "description": "the envelope recipient (the reply address); left out, it is read from the message's headers" }],
        "requestBody": { "required": true, "content": { "message/rfc822": { "schema": { "type": "string", "maxLength": 16_777_216 } } } },
        "responses": responses(Takes { token: true, body: true, writes: true }, json!({ "200": ok("what became of the message", "InboundAnswer"),
            "422": problem("the message cannot be read as a mail message"),
            "429": too_many("the seat sent as many replies as an hour allows") })) } })
}

/// The notification settings' paths: a seat's, and the game's public channel.
fn notification_paths(seat_takes: Takes, read: Takes) -> Value {
    json!({
            "/api/v1/games/{id}/seats/{seat}/notifications": {
                "get": { "operationId": "getNotifications", "summary": "a seat's notification settings: mail, messages by mail, its webhook, its browser (the seat's own token)",
                    "security": [{ "bearer": [] }], "parameters": [id(), seat()],
                    "responses": responses(read, json!({ "200": ok("the settings; a webhook's or push service's address is shown masked", "Notifications"), "422": problem("no such seat") })) },
                "put": { "operationId": "setNotifications", "summary": "change a seat's notification settings (the seat's own token); a field left out stays as it is",
                    "description": "A new webhook (https only; Discord, Slack, Matrix or any JSON receiver) is checked and sent a first notice at once: an address that is not public (loopback, private, link-local, metadata and the like, after its name is resolved), that redirects, or that does not take the notice is refused with 422, in words. Each notice carries its stable id in the `Idempotency-Key` and `X-Runestone-Notice` headers, and a one-click stop link. A webhook's address is never shown again whole. `push` is a browser's Web Push subscription (`PushSubscription.toJSON()`, made with the server's `push_key` as `applicationServerKey`): its push service's address gets the same guard and a first notice at once; each notice is encrypted for the browser (RFC 8291, aes128gcm) and signed with the server's VAPID key (RFC 8292), carries its stable `id` and a stop link, and opens the game page; a subscription its push service says is gone (404, 410) is removed.",
                    "security": [{ "bearer": [] }], "parameters": [id(), seat()], "requestBody": body("NotificationsChange", true),
                    "responses": responses(seat_takes, json!({ "200": ok("the settings now", "Notifications"),
                        "422": problem("no such seat, an unknown time zone, or a webhook or browser subscription refused (the detail says why)"),
                        "429": too_many("this game's webhooks were set as often as an hour allows") })) } },
            "/api/v1/games/{id}/channel": {
                "get": { "operationId": "getChannel", "summary": "the game's public channel: a webhook told only what the public sees (host)",
                    "security": [{ "bearer": [] }], "parameters": [id()],
                    "responses": responses(read, json!({ "200": ok("the channel; its address is shown masked", "Channel") })) },
                "put": { "operationId": "setChannel", "summary": "set or remove the game's public channel (host): whose turn it is, the round, who won",
                    "description": "Checked and sent a first notice at once, as a seat's webhook is (422 when refused).",
                    "security": [{ "bearer": [] }], "parameters": [id()], "requestBody": body("ChannelChange", true),
                    "responses": responses(seat_takes, json!({ "200": ok("the channel now", "Channel"),
                        "422": problem("a webhook refused (the detail says why)"),
                        "429": too_many("this game's webhooks were set as often as an hour allows") })) } }
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

#[cfg(test)]
mod tests {
    use serde_json::Value;

    /// Where `v` holds an object schema (one with `properties`) that does
    /// not close itself with `additionalProperties: false`. The `if` and
    /// `then` of a conditional only narrow the object around them (which
    /// is itself closed), so they are not object schemas of their own.
    fn open_objects(v: &Value, at: String, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                if o.contains_key("properties") && o.get("additionalProperties") != Some(&Value::Bool(false)) {
                    out.push(at.clone());
                }
                for (k, v) in o.iter().filter(|(k, _)| !matches!(k.as_str(), "if" | "then")) {
                    open_objects(v, format!("{at}/{k}"), out);
                }
            }
            Value::Array(a) => a.iter().enumerate().for_each(|(i, v)| open_objects(v, format!("{at}/{i}"), out)),
            _ => {}
        }
    }

    /// Every object schema of the document, the server's own and every
    /// ruleset's embedded ones, names all its members: a client's extra
    /// field or an answer's unexpected one fails validation.
    #[test]
    fn every_object_schema_of_the_document_is_closed() {
        let doc = super::document(&crate::games::registry());
        let mut open = Vec::new();
        open_objects(&doc["components"]["schemas"], "#/components/schemas".into(), &mut open);
        // The one open by design: a template's command with its free
        // parameters left out, whose other members are any ruleset's.
        open.retain(|at| at != "#/components/schemas/LegalTemplate/properties/base");
        assert!(open.is_empty(), "open object schemas: {open:#?}");
        for name in ["CreatedGame", "SeatToken"] {
            assert_eq!(doc["components"]["schemas"][name]["additionalProperties"], false, "{name}");
        }
    }
}
