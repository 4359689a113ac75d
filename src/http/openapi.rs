//! `GET /openapi.json`: the API described for third-party clients. A test
//! checks that its paths and methods are exactly those of [`super::routes`].

use serde_json::{json, Value};

fn problem(desc: &str) -> Value {
    json!({ "description": desc, "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } } })
}

fn ok(desc: &str, schema: &str) -> Value {
    json!({ "description": desc, "content": { "application/json": { "schema": { "$ref": format!("#/components/schemas/{schema}") } } } })
}

fn body(schema: &str) -> Value {
    json!({ "required": true, "content": { "application/json": { "schema": { "$ref": format!("#/components/schemas/{schema}") } } } })
}

fn id() -> Value {
    json!({ "name": "id", "in": "path", "required": true, "schema": { "type": "string", "minLength": 16, "maxLength": 16 }, "description": "the game id" })
}

fn idem() -> Value {
    json!({ "name": "Idempotency-Key", "in": "header", "required": false, "schema": { "type": "string", "maxLength": 200 },
            "description": "a repeated request with the same key gets the first answer again and changes nothing" })
}

fn bearer_optional() -> Value {
    json!([{}, { "bearer": [] }])
}

/// The whole document.
pub fn document() -> Value {
    let common = |extra: Value| {
        let mut r = json!({
            "400": problem("malformed JSON or a request of the wrong shape"),
            "401": problem("missing, forged, expired or revoked token"),
            "403": problem("the token does not allow this (another game, another role)"),
            "404": problem("no such game"),
            "413": problem("body over the size limit"),
        });
        if let (Some(r), Some(e)) = (r.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                r.insert(k.clone(), v.clone());
            }
        }
        r
    };
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "runestone",
            "version": "1",
            "description": "Slow, asynchronous board games. Every action is an event in a per-game, hash-chained log; every answer is cut to its viewer. Errors are application/problem+json with a detail that says what was wrong.",
        },
        "components": {
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer", "bearerFormat": "JWT" } },
            "schemas": {
                "Problem": { "type": "object", "required": ["type", "title", "status", "detail"], "properties": {
                    "type": { "type": "string" }, "title": { "type": "string" }, "status": { "type": "integer" },
                    "detail": { "type": "string", "description": "what was wrong, in words" },
                    "pending": { "type": "array", "items": { "$ref": "#/components/schemas/Pending" } },
                    "head": { "type": "integer" }, "expected_seq": { "type": "integer" } } },
                "Pending": { "type": "object", "properties": {
                    "seat": { "type": "integer" }, "kind": { "type": "string" },
                    "class": { "enum": ["plan", "turn", "small"] }, "prompt": { "type": "string" } } },
                "Ruleset": { "type": "object", "properties": {
                    "id": { "type": "string" }, "name": { "type": "string" }, "min_seats": { "type": "integer" },
                    "max_seats": { "type": "integer" }, "rules_version": { "type": "integer" },
                    "default_options": { "type": "object" }, "options_help": { "type": "array" }, "description": { "type": "string" } } },
                "RulesetContracts": { "allOf": [{ "$ref": "#/components/schemas/Ruleset" }], "type": "object", "properties": {
                    "fixture": { "type": "boolean", "description": "a test fixture, never offered by a production server" },
                    "schemas": { "type": "object", "description": "JSON Schemas (draft 2020-12) generated from the game's types; also under events/<ruleset>/ in the repository",
                        "properties": { "options": { "type": "object" }, "command": { "type": "object" }, "event": { "type": "object" }, "view": { "type": "object" } } } } },
                "Rulesets": { "type": "object", "properties": { "rulesets": { "type": "array", "items": { "$ref": "#/components/schemas/Ruleset" } } } },
                "CreateGame": { "type": "object", "required": ["ruleset", "seats"], "additionalProperties": false, "properties": {
                    "ruleset": { "type": "string" }, "options": { "type": "object" },
                    "seats": { "type": "array", "items": { "type": "object", "required": ["name"], "properties": {
                        "name": { "type": "string", "minLength": 1, "maxLength": 40 }, "email": { "type": "string", "format": "email" } } } },
                    "deadlines": { "$ref": "#/components/schemas/DeadlinePolicy" },
                    "host": { "type": "object", "properties": { "name": { "type": "string" }, "email": { "type": "string" }, "tz": { "type": "string" } } } } },
                "CreatedGame": { "type": "object", "properties": {
                    "game_id": { "type": "string" }, "ruleset": { "type": "string" }, "seed_commitment": { "type": "string", "description": "hex SHA-256 of the secret seed, revealed at the end" },
                    "host_token": { "type": "string" }, "referee_token": { "type": "string" }, "head": { "type": "integer" },
                    "seats": { "type": "array", "items": { "type": "object", "properties": {
                        "seat": { "type": "integer" }, "name": { "type": "string" }, "token": { "type": "string" }, "link": { "type": "string" } } } } } },
                "Summary": { "type": "object", "properties": {
                    "game_id": { "type": "string" }, "ruleset": { "type": "string" }, "status": { "enum": ["running", "over"] },
                    "seats": { "type": "array" }, "pending": { "type": "array", "items": { "$ref": "#/components/schemas/Pending" } },
                    "head": { "type": "integer" }, "seed_commitment": { "type": "string" }, "seed": { "type": ["string", "null"] },
                    "outcome": { "type": ["object", "null"] }, "deadlines": {} } },
                "View": { "type": "object", "properties": {
                    "seq": { "type": "integer", "description": "the position shown: after this event" }, "head": { "type": "integer" },
                    "view": { "type": "object", "description": "the game's view for this viewer" },
                    "pending": { "type": "array", "items": { "$ref": "#/components/schemas/Pending" } },
                    "legal": { "type": "array", "description": "legal commands for the token's seat, at the head" },
                    "legal_labels": { "type": "array", "items": { "type": "string" }, "description": "each legal command in words, in the same order" },
                    "over": { "type": "boolean" }, "outcome": { "type": ["object", "null"] } } },
                "Submission": { "type": "object", "required": ["command"], "additionalProperties": false, "properties": {
                    "command": { "type": "object", "description": "a command of the game, tagged by \"type\"" },
                    "expected_seq": { "type": "integer", "description": "the head the client decided on; 409 if the log has moved" } } },
                "Event": { "type": "object", "properties": {
                    "game": { "type": "string" }, "seq": { "type": "integer" }, "time": { "type": "string", "format": "date-time" },
                    "actor": {}, "body": { "type": "object" }, "visibility": {}, "decision": { "type": "object" },
                    "digest": { "type": "string" }, "prev_hash": { "type": "string" }, "hash": { "type": "string" },
                    "hidden": { "type": "boolean", "description": "the body is the redacted public form" },
                    "in_force": { "type": "boolean", "description": "false once voided by a rollback or undo" },
                    "text": { "type": "string", "description": "the event in words" } } },
                "Events": { "type": "object", "properties": { "events": { "type": "array", "items": { "$ref": "#/components/schemas/Event" } } } },
                "Accepted": { "type": "object", "properties": {
                    "head": { "type": "integer" }, "events": { "type": "array", "items": { "$ref": "#/components/schemas/Event" } },
                    "pending": { "type": "array" }, "over": { "type": "boolean" } } },
                "Rollback": { "type": "object", "required": ["to_seq", "reason"], "additionalProperties": false, "properties": {
                    "to_seq": { "type": "integer" }, "reason": { "type": "string", "minLength": 1 } } },
                "Fork": { "type": "object", "required": ["at_seq"], "additionalProperties": false, "properties": { "at_seq": { "type": "integer" } } },
                "Verify": { "type": "object", "properties": {
                    "chain_ok": { "type": "boolean" }, "ok": { "type": "boolean" }, "events": { "type": "integer" },
                    "problem": {}, "seed_commitment": { "type": "string" }, "seed": { "type": ["string", "null"] }, "draws": { "type": "object" } } },
                "ClockAction": { "oneOf": [
                    { "type": "object", "required": ["action", "reason"], "properties": { "action": { "const": "pause" }, "reason": { "type": "string" } } },
                    { "type": "object", "required": ["action"], "properties": { "action": { "const": "resume" } } },
                    { "type": "object", "required": ["action", "reason"], "properties": { "action": { "const": "extend" }, "seat": { "type": "integer" },
                        "hours": { "type": "integer" }, "until": { "type": "string", "format": "date-time" }, "reason": { "type": "string" } } },
                    { "type": "object", "required": ["action", "policy"], "properties": { "action": { "const": "set_policy" }, "policy": { "$ref": "#/components/schemas/DeadlinePolicy" } } },
                    { "type": "object", "required": ["action", "seat", "until"], "properties": { "action": { "const": "vacation" }, "seat": { "type": "integer" },
                        "until": { "type": "string", "format": "date-time" } } } ] },
                "DeadlinePolicy": { "type": ["object", "null"], "required": ["plan_hours", "turn_hours", "small_hours"], "properties": {
                    "plan_hours": { "type": "number" }, "turn_hours": { "type": "number" }, "small_hours": { "type": "number" },
                    "reminders_hours": { "type": "array", "items": { "type": "number" } }, "grace_hours": { "type": "number", "default": 24 },
                    "substitute_after": { "type": "integer", "default": 2 }, "forfeit_after": { "type": "integer", "default": 4 } } },
                "NewLink": { "type": "object", "properties": {
                    "seat": { "type": "integer" }, "generation": { "type": "integer" }, "token": { "type": "string" }, "link": { "type": "string" } } }
            }
        },
        "paths": {
            "/healthz": { "get": { "summary": "liveness", "responses": { "200": { "description": "serving" } } } },
            "/metrics": { "get": { "summary": "Prometheus text metrics", "responses": { "200": { "description": "metrics", "content": { "text/plain": {} } } } } },
            "/openapi.json": { "get": { "summary": "this document", "responses": { "200": { "description": "OpenAPI 3.1" } } } },
            "/api/v1/rulesets": { "get": { "summary": "games offered, their options and player counts",
                "responses": { "200": ok("rulesets", "Rulesets") } } },
            "/api/v1/rulesets/{ruleset}": { "get": { "summary": "one ruleset's info and the JSON Schemas of its options, commands, events and views",
                "parameters": [{ "name": "ruleset", "in": "path", "required": true, "schema": { "type": "string" }, "description": "the ruleset id, as listed by /api/v1/rulesets" }],
                "responses": common(json!({ "200": ok("the ruleset and its schemas", "RulesetContracts"), "404": problem("no such ruleset here") })) } },
            "/api/v1/games": { "post": { "summary": "create a game", "parameters": [idem()], "requestBody": body("CreateGame"),
                "responses": common(json!({ "201": ok("the game, with every token and link (shown only here)", "CreatedGame"),
                    "422": problem("unknown ruleset, bad seat count, bad option, invalid email") })) } },
            "/api/v1/games/{id}": { "get": { "summary": "summary", "parameters": [id()],
                "responses": common(json!({ "200": ok("summary", "Summary") })) } },
            "/api/v1/games/{id}/view": { "get": { "summary": "the viewer's view at the head or after event `at`", "security": bearer_optional(),
                "parameters": [id(), { "name": "at", "in": "query", "schema": { "type": "integer" } }],
                "responses": common(json!({ "200": ok("view", "View"), "422": problem("no such position") })) } },
            "/api/v1/games/{id}/commands": { "post": { "summary": "submit a seat's command", "security": [{ "bearer": [] }],
                "parameters": [id(), idem()], "requestBody": body("Submission"),
                "responses": common(json!({ "200": ok("accepted: the events it caused, cut to the seat", "Accepted"),
                    "409": problem("stale expected_seq, or the game is over"),
                    "422": problem("illegal by the rules (in the rule's own words), or not this seat's turn") })) } },
            "/api/v1/games/{id}/undo": { "post": { "summary": "take back the seat's own last steps within its turn", "security": [{ "bearer": [] }],
                "parameters": [id()], "responses": common(json!({ "200": ok("undone", "Accepted"), "422": problem("nothing to undo") })) } },
            "/api/v1/games/{id}/events": { "get": { "summary": "the log, cut to the viewer", "security": bearer_optional(),
                "parameters": [id(), { "name": "from", "in": "query", "schema": { "type": "integer" } }, { "name": "to", "in": "query", "schema": { "type": "integer" } }],
                "responses": common(json!({ "200": ok("events", "Events") })) } },
            "/api/v1/games/{id}/stream": { "get": { "summary": "server-sent events as the log grows (`Last-Event-ID` resumes; `?token=` for browsers)",
                "security": bearer_optional(), "parameters": [id(), { "name": "from", "in": "query", "schema": { "type": "integer" } }],
                "responses": common(json!({ "200": { "description": "text/event-stream of Event objects", "content": { "text/event-stream": {} } } })) } },
            "/api/v1/games/{id}/rollback": { "post": { "summary": "void every event after to_seq, with a reason (host or referee); appended, never deleted",
                "security": [{ "bearer": [] }], "parameters": [id()], "requestBody": body("Rollback"),
                "responses": common(json!({ "200": ok("rolled back", "Accepted"), "422": problem("bad target or no reason") })) } },
            "/api/v1/games/{id}/fork": { "post": { "summary": "a new game from this log up to at_seq (host)", "security": [{ "bearer": [] }],
                "parameters": [id()], "requestBody": body("Fork"),
                "responses": common(json!({ "201": ok("the new game", "CreatedGame"), "422": problem("bad position") })) } },
            "/api/v1/games/{id}/verify": { "get": { "summary": "hash chain check; with the seed (revealed at the end) every draw re-derived",
                "parameters": [id()], "responses": common(json!({ "200": ok("report", "Verify") })) } },
            "/api/v1/games/{id}/seats/{seat}/token": { "post": { "summary": "revoke a seat's links and issue a new one (host)",
                "security": [{ "bearer": [] }],
                "parameters": [id(), { "name": "seat", "in": "path", "required": true, "schema": { "type": "integer" } }],
                "requestBody": { "required": false, "content": { "application/json": { "schema": { "type": "object", "properties": { "reason": { "type": "string" } } } } } },
                "responses": common(json!({ "200": ok("the new link", "NewLink"), "422": problem("no such seat") })) } },
            "/api/v1/games/{id}/seats/{seat}/substitute": { "post": { "summary": "seat a substitute (host): old links revoked, the new player invited",
                "security": [{ "bearer": [] }],
                "parameters": [id(), { "name": "seat", "in": "path", "required": true, "schema": { "type": "integer" } }],
                "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["name"], "properties": {
                    "name": { "type": "string" }, "email": { "type": "string" }, "tz": { "type": "string" } } } } } },
                "responses": common(json!({ "200": ok("the substitute's link", "NewLink"), "409": problem("the game is over"), "422": problem("no such seat, bad address or time zone") })) } },
            "/api/v1/games/{id}/clock": { "post": { "summary": "pause, resume, extend, set the deadline policy (host), or take a vacation (the seat itself)",
                "security": [{ "bearer": [] }], "parameters": [id()], "requestBody": body("ClockAction"),
                "responses": common(json!({ "200": { "description": "done; the event and the clocks" },
                    "409": problem("the game is over"), "422": problem("a time in the past, a bad policy, nothing to resume") })) } },
            "/api/v1/games/{id}/dead-letters": { "get": { "summary": "mail given up after too many failures (host)",
                "security": [{ "bearer": [] }], "parameters": [id()],
                "responses": common(json!({ "200": { "description": "the dead letters" } })) } },
            "/api/v1/games/{id}/dead-letters/{mail}/retry": { "post": { "summary": "send a dead letter again (host)",
                "security": [{ "bearer": [] }],
                "parameters": [id(), { "name": "mail", "in": "path", "required": true, "schema": { "type": "string" } }],
                "responses": common(json!({ "200": { "description": "queued again" } })) } }
        }
    })
}
