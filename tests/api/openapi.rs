//! `/openapi.json` describes exactly the routes served, is generated from
//! the types, and lists every status a route answers.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::helpers::{seat_tokens, str_of, undocumented_answers, TestApp};

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
    // Each link names an operation of the document.
    for (name, link) in doc["paths"]["/api/v1/games"]["post"]["responses"]["201"]["links"].as_object().unwrap() {
        assert!(ids.contains(link["operationId"].as_str().unwrap()), "link {name}");
    }
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
        assert!(schemas["Submission"]["properties"]["command"]["anyOf"].as_array().unwrap().contains(&r));
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

/// Answers of a played game validate against the document's schemas.
#[test]
fn answers_validate_against_the_documents_schemas() {
    let app = TestApp::spawn();
    let doc = app.get("/openapi.json", None).ok().clone();
    let check = |schema: &str, v: &Value| {
        let mut root = doc.clone();
        root["$ref"] = json!(format!("#/components/schemas/{schema}"));
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&root)
            .unwrap_or_else(|e| panic!("{schema}: {e}"));
        let errors: Vec<String> = validator.iter_errors(v).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(errors.is_empty(), "{schema}: {errors:#?}\n{v}");
    };
    let created = app.create("duel", 2, json!({"rounds": 1}));
    check("CreatedGame", &created);
    let game = str_of(&created, "game_id").to_owned();
    let seats = seat_tokens(&created);
    let r = app.post("/api/v1/games", None, &json!({"ruleset": "duel", "seats": [{"name": "a"}, {"name": "b"}]}));
    assert_eq!(r.status, 201);
    assert!(r.text.contains("game_id"));
    check("Accepted", app.submit(&game, &seats[0], json!({"type": "Bid", "amount": 3})).ok());
    check("Summary", app.get(&format!("/api/v1/games/{game}"), None).ok());
    check("View", app.get(&format!("/api/v1/games/{game}/view"), Some(&seats[0])).ok());
    check("View", app.get(&format!("/api/v1/games/{game}/view"), None).ok());
    check("Events", app.get(&format!("/api/v1/games/{game}/events"), Some(&seats[1])).ok());
    app.submit(&game, &seats[1], json!({"type": "Bid", "amount": 1})).ok();
    check("Accepted", app.submit(&game, &seats[0], json!({"type": "Claim"})).ok());
    check("Summary", app.get(&format!("/api/v1/games/{game}"), None).ok());
    check("Events", app.get(&format!("/api/v1/games/{game}/events"), None).ok());
    check("Verify", app.get(&format!("/api/v1/games/{game}/verify"), None).ok());
    check("Problem", &app.get(&format!("/api/v1/games/{game}/view?at=0"), None).json);
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
