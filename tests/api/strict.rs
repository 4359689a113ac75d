//! Every ruleset reads its options and commands strictly: a field it does
//! not know is refused (400) by name, never dropped in silence, and its
//! published schemas say so (`additionalProperties: false` on every object).

use serde_json::{json, Value};

use crate::helpers::{seat_tokens, str_of, TestApp};

const RULESETS: [&str; 5] = ["bardagi", "duel", "fallen-kingdoms", "realms", "thingvellir"];

/// Seats enough for each ruleset.
fn seats(ruleset: &str) -> usize {
    match ruleset {
        "realms" => 2,
        "duel" => 2,
        _ => 3,
    }
}

#[test]
fn an_unknown_option_is_refused_by_name_in_every_ruleset() {
    let app = TestApp::spawn();
    for ruleset in RULESETS {
        let names: Vec<Value> = (0..seats(ruleset)).map(|i| json!({"name": format!("P{i}")})).collect();
        // A misspelt option: Thingvellir's sealed_feuds.
        let r = app.post(
            "/api/v1/games",
            None,
            &json!({"ruleset": ruleset, "options": {"seald_feuds": true}, "seats": names}),
        );
        let d = r.problem(400);
        assert!(d.contains("unknown field \"seald_feuds\"") && !d.contains('`'), "{ruleset}: {d}");
        assert_eq!(r.json["title"], "Not an option of this game");
    }
}

/// Each ruleset's first pending seat's first legal command with one field
/// more, at its top and (where the command has one) in an object inside it.
#[test]
fn an_unknown_command_field_is_refused_by_name_in_every_ruleset() {
    let app = TestApp::spawn();
    for ruleset in RULESETS {
        let created = app.create(ruleset, seats(ruleset), json!({}));
        let game = str_of(&created, "game_id").to_owned();
        let tokens = seat_tokens(&created);
        let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
        let seat = summary["pending"][0]["seat"].as_u64().unwrap_or_else(|| panic!("{ruleset}: {summary}")) as usize;
        let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[seat])).ok().clone();
        let legal = view["legal"].as_array().unwrap_or_else(|| panic!("{ruleset}: {view}"));
        let mut top = legal[0].clone();
        top["sneaky"] = json!(1);
        let d = app.submit(&game, &tokens[seat], top.clone()).problem(400);
        assert!(d.contains("unknown field \"sneaky\""), "{ruleset} {top}: {d}");
        // Inside: the first legal command that holds an object.
        let nested = legal.iter().find_map(|c| {
            let mut c = c.clone();
            let inner = c.as_object_mut()?.values_mut().find(|v| v.is_object())?;
            inner["sneaky"] = json!(1);
            Some(c)
        });
        if let Some(c) = nested {
            let d = app.submit(&game, &tokens[seat], c.clone()).problem(400);
            assert!(d.contains("unknown field \"sneaky\""), "{ruleset} {c}: {d}");
        }
    }
}

/// The standing orders of each ruleset, given by a seat that owes a
/// decision, each with one field more inside.
#[test]
fn an_unknown_field_inside_standing_orders_is_refused_by_name() {
    let app = TestApp::spawn();
    for (ruleset, command) in [
        ("bardagi", json!({"type": "SetOrders", "orders": {"buy_axes": true, "sneaky": 1}})),
        ("fallen-kingdoms", json!({"type": "set_defence", "defence": {"retreat_at": 1, "sneaky": 1}})),
        ("thingvellir", json!({"type": "choices", "choices": {"farm": true, "sneaky": 1}})),
        ("thingvellir", json!({"type": "orders", "orders": {"rules": [], "otherwise": null, "sneaky": 1}})),
        ("realms", json!({"type": "orders", "orders": {"pay_special": false, "sneaky": 1}})),
    ] {
        let created = app.create(ruleset, seats(ruleset), json!({}));
        let game = str_of(&created, "game_id").to_owned();
        let tokens = seat_tokens(&created);
        let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
        let seat = summary["pending"][0]["seat"].as_u64().unwrap_or_else(|| panic!("{ruleset}: {summary}")) as usize;
        let d = app.submit(&game, &tokens[seat], command.clone()).problem(400);
        assert!(d.contains("unknown field \"sneaky\""), "{ruleset} {command}: {d}");
        let mut without = command.clone();
        let inner = without.as_object_mut().unwrap().values_mut().find(|v| v.is_object()).unwrap();
        inner.as_object_mut().unwrap().remove("sneaky");
        let r = app.submit(&game, &tokens[seat], without.clone());
        assert_ne!(r.status, 400, "{ruleset} {without} is a command of the game: {}", r.text);
    }
}

/// Every object of every published schema: `additionalProperties: false`
/// (for options and commands because the types refuse unknown fields).
#[test]
fn every_object_of_every_ruleset_schema_is_closed() {
    fn open_objects(v: &Value, at: String, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                if o.contains_key("properties") && o.get("additionalProperties") != Some(&json!(false)) {
                    out.push(at.clone());
                }
                for (k, v) in o {
                    open_objects(v, format!("{at}/{k}"), out);
                }
            }
            Value::Array(a) => a.iter().enumerate().for_each(|(i, v)| open_objects(v, format!("{at}/{i}"), out)),
            _ => {}
        }
    }
    let registry = runestone::games::registry();
    for g in registry.all() {
        for (name, schema) in g.schemas().named() {
            let mut open = Vec::new();
            open_objects(schema, String::new(), &mut open);
            assert!(open.is_empty(), "{} {name}: open objects at {open:?}", g.info().id);
        }
    }
}
