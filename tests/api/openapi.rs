//! `/openapi.json` describes exactly the routes served, is generated from
//! the types, and lists every status a route answers.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::helpers::{fits_the_document, seat_tokens, str_of, undocumented_answers, TestApp, ANSWERS_CHECKED};

#[test]
fn openapi_describes_exactly_the_routes_served() {
    let app = TestApp::spawn();
    let doc = app.get("/openapi.json", None);
    let doc = doc.ok();
    assert_eq!(doc["openapi"], "3.1.0");
    let mut documented = BTreeSet::new();
    let mut ids = BTreeSet::new();
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            assert!(op["responses"].as_object().is_some_and(|r| !r.is_empty()), "{method} {path} has responses");
            let id = op["operationId"].as_str().unwrap_or_else(|| panic!("{method} {path} has an operationId"));
            assert!(ids.insert(id.to_owned()), "operationId {id} is unique");
            documented.insert((method.to_uppercase(), path.clone()));
        }
    }
    let served: BTreeSet<(String, String)> =
        runestone::http::routes().into_iter().map(|(m, p, _)| (m.to_string(), p.to_owned())).collect();
    assert_eq!(documented, served);
    // Each link names an operation of the document and parameters it has,
    // taken from fields its answer's schema names.
    let mut links = 0;
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            for (status, answer) in op["responses"].as_object().unwrap() {
                let Some(list) = answer["links"].as_object() else { continue };
                for (name, link) in list {
                    let target = link["operationId"].as_str().unwrap();
                    assert!(ids.contains(target), "{method} {path} {status} link {name}");
                    let target_op = doc["paths"]
                        .as_object()
                        .unwrap()
                        .values()
                        .flat_map(|o| o.as_object().unwrap().values())
                        .find(|o| o["operationId"] == target)
                        .unwrap();
                    for (param, expr) in link["parameters"].as_object().unwrap() {
                        let known = target_op["parameters"].as_array().unwrap().iter().any(|p| p["name"] == *param);
                        assert!(known, "{method} {path} link {name}: {target} has no parameter {param}");
                        let pointer = expr.as_str().unwrap().strip_prefix("$response.body#/").unwrap();
                        let schema = answer["content"]["application/json"]["schema"]["$ref"].as_str().unwrap();
                        let component = &doc["components"]["schemas"][schema.rsplit('/').next().unwrap()];
                        let first = pointer.split('/').next().unwrap();
                        assert!(
                            component["properties"][first].is_object(),
                            "{method} {path} link {name}: {schema} has no {first}"
                        );
                    }
                    links += 1;
                }
            }
        }
    }
    assert!(links >= 40, "{links} links");
    // And each documented route is really answered (not the unknown-route 404).
    for (method, path) in &served {
        let concrete = path.replace("{id}", "aaaaaaaaaaaaaaaa").replace("{seat}", "0");
        if concrete.ends_with("/stream") {
            continue; // would stay open; covered by the hidden-information test
        }
        let r = app.raw(method, &concrete, None, (method == "POST").then(|| b"{}".to_vec()), &[]);
        assert!(!r.text.contains("no route"), "{method} {path}: {}", r.text);
    }
    let r = app.get("/api/v1/nothing-here", None);
    assert!(r.problem(404).contains("no route"));
    let r = app.raw("DELETE", "/api/v1/games", None, None, &[]);
    r.problem(405);
}

#[test]
fn the_served_document_is_the_one_the_types_generate_and_as_strict_as_the_server() {
    let app = TestApp::spawn();
    let served = app.get("/openapi.json", None).ok().clone();
    let generated = runestone::http::openapi::document(&runestone::games::registry());
    assert_eq!(served, generated);
    let schemas = &served["components"]["schemas"];
    // Generated from the request types: strict where the server is.
    let create = &schemas["CreateGame"];
    assert_eq!(create["additionalProperties"], false, "{create}");
    let seat = &schemas["SeatSpec"];
    assert_eq!(seat["additionalProperties"], false, "{seat}");
    for field in ["name", "email", "tz", "digest"] {
        assert!(seat["properties"][field].is_object(), "SeatSpec.{field}: {seat}");
    }
    assert_eq!(seat["properties"]["name"]["minLength"], 1);
    let host = &schemas["HostSpec"];
    let required: BTreeSet<&str> = host["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(required.contains("name") && required.contains("email"), "{host}");
    // Each hosted ruleset's schemas are embedded and referenced.
    for id in ["bardagi", "duel"] {
        for name in ["Options", "Command", "Event", "View"] {
            assert!(schemas[format!("{id}.{name}")].is_object(), "{id}.{name}");
        }
        let r = json!({"$ref": format!("#/components/schemas/{id}.Command")});
        assert!(schemas["AnyCommand"]["anyOf"].as_array().unwrap().contains(&r));
        let r = json!({"$ref": format!("#/components/schemas/{id}.View")});
        assert!(schemas["AnyView"]["anyOf"].as_array().unwrap().contains(&r));
        let r = json!({"$ref": format!("#/components/schemas/{id}.Event")});
        assert!(schemas["AnyGameEvent"]["anyOf"].as_array().unwrap().contains(&r));
    }
    assert_eq!(schemas["Submission"]["properties"]["command"]["$ref"], "#/components/schemas/AnyCommand");
    assert_eq!(schemas["View"]["properties"]["view"]["$ref"], "#/components/schemas/AnyView");
    assert_eq!(schemas["Body"]["oneOf"][1]["properties"]["event"]["$ref"], "#/components/schemas/AnyGameEvent");
    // The answers' and requests' schemas are those schemars generates from
    // the types the handlers serialize and decode (bar the 64-bit bounds).
    let mut g = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.definitions_path = "/components/schemas/".into())
        .into_generator();
    use runestone::http::types as t;
    g.subschema_for::<t::Summary>();
    g.subschema_for::<t::View>();
    g.subschema_for::<t::Accepted>();
    g.subschema_for::<t::Verify>();
    g.subschema_for::<t::ClockDone>();
    g.subschema_for::<t::Problem>();
    g.subschema_for::<t::StreamClosed>();
    g.subschema_for::<runestone::service::ClockAction>();
    let mut compared = 0;
    for (name, mut schema) in g.take_definitions(true) {
        unbounded(&mut schema);
        let mut served = schemas[&name].clone();
        unbounded(&mut served);
        assert_eq!(served, schema, "{name} is what its type generates");
        compared += 1;
    }
    assert!(compared >= 20, "{compared} schemas compared");
    for (name, v) in [("Summary", "head"), ("Event", "seq"), ("Rollback", "to_seq")] {
        assert_eq!(schemas[name]["properties"][v]["maximum"], 9_007_199_254_740_991_u64, "{name}.{v}");
    }
    // Every local reference resolves.
    let text = served.to_string();
    for piece in text.split("\"$ref\":\"#/").skip(1) {
        let pointer = format!("/{}", &piece[..piece.find('"').unwrap()]);
        assert!(served.pointer(&pointer).is_some(), "{pointer} resolves");
    }
    // Integer parameters have a minimum, the idempotency key a minimum length.
    let params = &served["paths"]["/api/v1/games/{id}/view"]["get"]["parameters"];
    assert_eq!(params[1]["schema"]["minimum"], 1);
    let idem = &served["paths"]["/api/v1/games"]["post"]["parameters"][0];
    assert_eq!(idem["schema"]["minLength"], 1);
}

/// `v` without the bounds of whole numbers (which the document adds where
/// schemars leaves them out: the bounds of the Rust type read).
fn unbounded(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if o.get("format").and_then(Value::as_str).is_some_and(|f| f.starts_with("int") || f.starts_with("uint")) {
                o.remove("maximum");
                o.remove("minimum");
            }
            o.values_mut().for_each(unbounded);
        }
        Value::Array(a) => a.iter_mut().for_each(unbounded),
        _ => {}
    }
}

/// A validator of one component of the served document.
fn validator(doc: &Value, schema: &str) -> jsonschema::Validator {
    let mut root = doc.clone();
    root["$ref"] = json!(format!("#/components/schemas/{schema}"));
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&root)
        .unwrap_or_else(|e| panic!("{schema}: {e}"))
}

/// Answers of every kind, from a game played to its end, validate against
/// the schemas the document generates from the types (which are strict:
/// no field they do not name), and each server checks as it stops that
/// every answer it served fitted its type.
#[test]
fn answers_of_every_kind_validate_against_the_documents_schemas() {
    let app = TestApp::spawn();
    let doc = app.get("/openapi.json", None).ok().clone();
    let mut kinds = BTreeSet::new();
    let mut check = |schema: &str, v: &Value| {
        let errors: Vec<String> =
            validator(&doc, schema).iter_errors(v).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(errors.is_empty(), "{schema}: {errors:#?}\n{v}");
        kinds.insert(schema.to_owned());
    };
    for name in ["Summary", "View", "Event", "Accepted", "Problem", "Health", "NewLink", "Verify", "ClockDone"] {
        assert_eq!(doc["components"]["schemas"][name]["additionalProperties"], false, "{name} is strict");
    }
    // Strictness is real: a field the type does not name is refused.
    let mut health = app.get("/healthz", None).ok().clone();
    check("Health", &health);
    health["uptime"] = json!(1);
    assert!(!validator(&doc, "Health").is_valid(&health));

    check("Rulesets", app.get("/api/v1/rulesets", None).ok());
    check("RulesetContracts", app.get("/api/v1/rulesets/duel", None).ok());
    let r = app.post(
        "/api/v1/games",
        None,
        &json!({"ruleset": "duel", "options": {"rounds": 1}, "seats": [{"name": "a"}, {"name": "b"}],
                "host": {"name": "Host", "email": "host@example.org"}}),
    );
    let created = r.ok().clone();
    check("CreatedGame", &created);
    let game = str_of(&created, "game_id").to_owned();
    let host = str_of(&created, "host_token").to_owned();
    let seats = seat_tokens(&created);
    check("Summary", app.get(&format!("/api/v1/games/{game}"), None).ok());
    let bid = app.submit(&game, &seats[0], json!({"type": "Bid", "amount": 3})).ok().clone();
    check("Accepted", &bid);
    // Problems with their extra members: not your turn (pending), stale.
    let r = app.submit(&game, &seats[0], json!({"type": "Claim"}));
    check("Problem", &r.json);
    let r = app.submit_at(&game, &seats[1], json!({"type": "Bid", "amount": 1}), Some(0));
    assert_eq!(r.status, 409, "{}", r.text);
    check("Problem", &r.json);
    check("View", app.get(&format!("/api/v1/games/{game}/view"), Some(&seats[0])).ok());
    check("View", app.get(&format!("/api/v1/games/{game}/view"), None).ok());
    check("View", app.get(&format!("/api/v1/games/{game}/view?at=1"), Some(&seats[1])).ok());
    check("Events", app.get(&format!("/api/v1/games/{game}/events"), Some(&seats[1])).ok());
    check("Events", app.get(&format!("/api/v1/games/{game}/events"), Some(&host)).ok());
    check("NewLink", app.post(&format!("/api/v1/games/{game}/seats/1/token"), Some(&host), &json!({})).ok());
    let sub = app
        .post(&format!("/api/v1/games/{game}/seats/1/substitute"), Some(&host), &json!({"name": "Björk"}))
        .ok()
        .clone();
    check("NewLink", &sub);
    let seat1 = str_of(&sub, "token").to_owned();
    let clock = app.post(
        &format!("/api/v1/games/{game}/clock"),
        Some(&host),
        &json!({"action": "pause", "reason": "a holiday"}),
    );
    check("ClockDone", clock.ok());
    check(
        "ClockDone",
        app.post(&format!("/api/v1/games/{game}/clock"), Some(&host), &json!({"action": "resume"})).ok(),
    );
    check("DeadLetters", app.get(&format!("/api/v1/games/{game}/dead-letters"), Some(&host)).ok());
    let head = app.get(&format!("/api/v1/games/{game}"), None).ok()["head"].as_u64().unwrap();
    let fork = app.post(&format!("/api/v1/games/{game}/fork"), Some(&host), &json!({"at_seq": bid["head"]}));
    check("CreatedGame", fork.ok());
    app.submit(&game, &seat1, json!({"type": "Bid", "amount": 1})).ok();
    let rolled = app.post(
        &format!("/api/v1/games/{game}/rollback"),
        Some(&host),
        &json!({"to_seq": head, "reason": "a misclick"}),
    );
    check("Accepted", rolled.ok());
    app.submit(&game, &seat1, json!({"type": "Bid", "amount": 1})).ok();
    // The seat to claim is offered the taunt as a template (a command
    // with a free field) in its view answer; filled in, it is accepted.
    let claimer = app.get(&format!("/api/v1/games/{game}/view"), Some(&seats[0])).ok().clone();
    check("View", &claimer);
    let taunt = &claimer["legal_templates"][0];
    assert_eq!(taunt["base"], json!({"type": "Taunt"}), "{claimer}");
    assert_eq!(taunt["fields"], json!([{"name": "text", "label": "What you say", "kind": "text"}]));
    let mut said = taunt["base"].clone();
    said["text"] = json!("ha");
    let waiting = app.get(&format!("/api/v1/games/{game}/view"), Some(&seat1)).ok().clone();
    assert_eq!(waiting["legal_templates"], json!([]), "nothing free to fill for the seat not to play");
    check("Accepted", app.submit(&game, &seats[0], said).ok());
    check("Accepted", app.post(&format!("/api/v1/games/{game}/undo"), Some(&seats[0]), &json!({})).ok());
    check("Accepted", app.submit(&game, &seats[0], json!({"type": "Claim"})).ok());
    // After the end: the whole log, the summary with its outcome, the
    // seed, the verification with it, and the stream's events and close.
    check("Summary", app.get(&format!("/api/v1/games/{game}"), None).ok());
    check("View", app.get(&format!("/api/v1/games/{game}/view"), Some(&seats[0])).ok());
    check("Events", app.get(&format!("/api/v1/games/{game}/events"), None).ok());
    check("Verify", app.get(&format!("/api/v1/games/{game}/verify"), None).ok());
    let r = app.raw("GET", &format!("/api/v1/games/{game}/stream?from=0"), None, None, &[]);
    assert_eq!(r.status, 200, "{}", r.text);
    let mut frames = 0;
    let mut event = "";
    for line in r.text.lines() {
        if let Some(e) = line.strip_prefix("event: ") {
            event = e;
        } else if let Some(d) = line.strip_prefix("data: ") {
            let v: Value = serde_json::from_str(d).expect("JSON data");
            check(if event == "closed" { "StreamClosed" } else { "Event" }, &v);
            frames += 1;
        }
    }
    assert!(frames > 5, "{}", r.text);
    check("Problem", &app.get(&format!("/api/v1/games/{game}/view?at=0"), None).json);
    check("Problem", &app.get("/api/v1/games/aaaaaaaaaaaaaaaa", None).json);
    assert_eq!(kinds.len(), 15, "{kinds:?}");
}

/// Every JSON answer a test receives through `TestApp` is checked against
/// the document's schema for its route and status; the check refuses one
/// that does not fit.
#[test]
fn every_answer_the_tests_receive_is_checked_against_its_schema() {
    use std::sync::atomic::Ordering;
    let app = TestApp::spawn();
    let before = ANSWERS_CHECKED.load(Ordering::Relaxed);
    let created = app.create("duel", 2, json!({}));
    let game = str_of(&created, "game_id");
    let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
    app.get(&format!("/api/v1/games/{game}/view?at=0"), None).problem(400);
    assert!(ANSWERS_CHECKED.load(Ordering::Relaxed) >= before + 3);
    let path = format!("/api/v1/games/{game}");
    fits_the_document("GET", &path, 200, "application/json", &summary);
    let mut odd = summary.clone();
    odd["uptime"] = json!(3);
    let refused = std::panic::catch_unwind(|| fits_the_document("GET", &path, 200, "application/json", &odd));
    assert!(refused.is_err(), "a summary with a field its schema does not name is refused");
    let mut odd = summary;
    odd["head"] = json!("three");
    let refused = std::panic::catch_unwind(|| fits_the_document("GET", &path, 200, "application/json", &odd));
    assert!(refused.is_err(), "a summary with a head in words is refused");
}

#[test]
fn every_status_a_route_answered_so_far_is_in_the_document() {
    // Other tests of this binary may have run before; each server also
    // checks on shutdown, so over the whole suite every answer is checked.
    let app = TestApp::spawn();
    let created = app.create("duel", 2, json!({}));
    let game = str_of(&created, "game_id");
    let host = str_of(&created, "host_token");
    app.post(&format!("/api/v1/games/{game}/seats/7/token"), Some(host), &json!({})).problem(422);
    app.post(&format!("/api/v1/games/{game}/undo"), Some(host), &json!({}));
    app.get(&format!("/api/v1/games/{game}/view?at=99"), None).problem(422);
    app.raw("POST", "/api/v1/games", None, Some(b"{}".to_vec()), &[("Content-Type", "text/plain")]).problem(415);
    let seen = runestone::http::answered();
    assert!(seen.contains(&("POST".into(), "/api/v1/games/{id}/seats/{seat}/token".into(), 422)), "{seen:?}");
    assert_eq!(undocumented_answers(), Vec::<(String, String, u16)>::new());
}
