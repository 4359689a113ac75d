//! Each game's published contracts: the JSON Schemas of its options,
//! commands, events and views, generated from its Rust types.
//!
//! - The copies written under `events/<ruleset>/` are exactly what the
//!   types generate (regenerate them with
//!   `RUNESTONE_WRITE_SCHEMAS=1 cargo test --test api schemas`).
//! - Every event of every golden log, and the views and legal commands of a
//!   few hundred positions of bot games, fit them.
//! - `GET /api/v1/rulesets/{id}` serves them with the ruleset's info.

use std::path::{Path, PathBuf};

use runestone_engine::log::seal;
use runestone_engine::{Actor, Body, Registry, Seed, Table, Viewer};
use serde_json::{json, Value};

use crate::helpers::TestApp;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn registry() -> Registry {
    runestone::games::registry()
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("JSON") + "\n"
}

#[test]
fn the_written_schemas_are_what_the_types_generate() {
    let write = std::env::var_os("RUNESTONE_WRITE_SCHEMAS").is_some();
    let reg = registry();
    let mut checked = 0;
    for id in reg.ids() {
        let schemas = reg.get(id).unwrap().schemas();
        for (name, schema) in schemas.named() {
            let file = root().join("events").join(id).join(format!("{name}.schema.json"));
            if write {
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(&file, pretty(schema)).unwrap();
            }
            let written = std::fs::read_to_string(&file).unwrap_or_else(|e| {
                panic!("{}: {e}; write it with RUNESTONE_WRITE_SCHEMAS=1 cargo test --test api schemas", file.display())
            });
            assert!(
                written == pretty(schema),
                "{} differs from what {id}'s types generate; regenerate it with \
                 RUNESTONE_WRITE_SCHEMAS=1 cargo test --test api schemas",
                file.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 8, "Bardagi's and Duel's four schemas at least");
}

/// The compiled schemas of one ruleset.
struct Contracts {
    command: jsonschema::Validator,
    event: jsonschema::Validator,
    view: jsonschema::Validator,
}

impl Contracts {
    fn of(reg: &Registry, id: &str) -> Contracts {
        let s = reg.get(id).unwrap_or_else(|| panic!("{id} is hosted")).schemas();
        let compile = |what: &str, v: &Value| {
            jsonschema::validator_for(v).unwrap_or_else(|e| panic!("{id}'s {what} schema does not compile: {e}"))
        };
        Contracts {
            command: compile("command", &s.command),
            event: compile("event", &s.event),
            view: compile("view", &s.view),
        }
    }
}

fn fits(validator: &jsonschema::Validator, what: &str, instance: &Value) {
    let errors: Vec<String> =
        validator.iter_errors(instance).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{what} breaks its schema: {errors:?}\n{instance}");
}

fn golden_logs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            golden_logs(&p, out);
        } else if p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p);
        }
    }
}

#[test]
fn the_schemas_refuse_what_the_types_would_not_write() {
    let reg = registry();
    let c = Contracts::of(&reg, "bardagi");
    let game = reg.get("bardagi").unwrap().clone();
    let seed = Seed([7; 32]);
    let names: Vec<String> = vec!["Ann".into(), "Bo".into()];
    let drafts = Table::create(game.as_ref(), &json!({}), names, &seed, None).expect("created");
    let table = Table::fold(&reg, &seal("schemas", None, drafts, "2026-01-01T00:00:00Z", &seed)).expect("folds");
    let mut view = table.view(Viewer::Public);
    assert!(c.view.is_valid(&view));
    view["players"][0]["glory"] = json!("lots");
    assert!(!c.view.is_valid(&view), "a view with words for glory is refused");
    let plan = table.legal(0).into_iter().next().expect("a legal plan");
    assert!(c.command.is_valid(&plan));
    let mut bad = plan.clone();
    bad["type"] = json!("Teleport");
    assert!(!c.command.is_valid(&bad), "a command the game does not have is refused");
    assert!(!c.event.is_valid(&json!({"type": "GloryChanged", "seat": 0})), "an event missing its fields is refused");
}

#[test]
fn every_event_of_every_golden_log_fits_its_schema() {
    let reg = registry();
    let mut files = Vec::new();
    golden_logs(&root().join("events"), &mut files);
    assert!(!files.is_empty(), "no golden logs found");
    let mut events = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let mut contracts: Option<Contracts> = None;
        for (i, line) in text.lines().enumerate() {
            let env: Value = serde_json::from_str(line).unwrap();
            let body = &env["body"];
            if body["kind"] == "kernel" && body["event"]["type"] == "GameCreated" {
                contracts = Some(Contracts::of(&reg, body["event"]["ruleset"].as_str().unwrap()));
                continue;
            }
            if body["kind"] != "game" {
                continue;
            }
            let c = contracts.as_ref().expect("a log starts with GameCreated");
            let at = format!("{} line {}", f.display(), i + 1);
            fits(&c.event, &format!("the event of {at}"), &body["event"]);
            if let Some(r) = env.get("redacted").filter(|r| !r.is_null()) {
                let r = if r.get("kind").is_some() { &r["event"] } else { r };
                fits(&c.event, &format!("the redacted event of {at}"), r);
            }
            events += 1;
        }
    }
    assert!(events > 100, "only {events} game events checked");
}

/// Play a game by its fallbacks (the bot) and check, at each of at most
/// `limit` positions, every viewer's view and every pending seat's legal
/// commands against the schemas. Answers the positions checked.
fn play_and_check(reg: &Registry, id: &str, seats: usize, options: Value, seed: u8, limit: usize) -> usize {
    let c = Contracts::of(reg, id);
    let game = reg.get(id).unwrap().clone();
    let seed = Seed([seed; 32]);
    let names: Vec<String> = (0..seats).map(|i| format!("Bot {i}")).collect();
    let t = "2026-01-01T00:00:00Z";
    let drafts = Table::create(game.as_ref(), &options, names, &seed, None).expect("created");
    let log = seal("schemas", None, drafts, t, &seed);
    let mut table = Table::fold(reg, &log).expect("folds");
    let mut positions = 0;
    while positions < limit {
        positions += 1;
        let label = format!("{id} ({seats} seats) after event {}", table.head);
        let viewers = [Viewer::Public, Viewer::Referee].into_iter().chain((0..seats).map(|s| Viewer::Seat(s as u8)));
        for v in viewers {
            fits(&c.view, &format!("the view of {v:?} in {label}"), &table.view(v));
        }
        if table.is_over() {
            break;
        }
        let pending = table.pending();
        for p in &pending {
            for cmd in table.legal(p.seat) {
                fits(&c.command, &format!("a legal command of seat {} in {label}", p.seat), &cmd);
            }
        }
        let seat = pending.iter().find(|p| !p.submitted).expect("someone to wait for").seat;
        let cmd = table.fallback(seat).expect("a fallback");
        fits(&c.command, &format!("the fallback of seat {seat} in {label}"), &cmd);
        let drafts = table.decide(Actor::System, seat, &cmd, Some(table.head), &seed).expect("accepted");
        for e in seal("schemas", Some((table.head, &table.head_hash)), drafts, t, &seed) {
            if let Body::Game { event, .. } = &e.body {
                fits(&c.event, &format!("an event in {label}"), &event.value());
            }
            table.push(&e).expect("pushes");
        }
    }
    positions
}

#[test]
fn views_and_legal_commands_of_bot_games_fit_their_schemas() {
    let reg = registry();
    let mut positions = 0;
    let options =
        [json!({}), json!({"board": "winter", "eight_cards": true}), json!({"easy_cards": true, "forced_trade": true})];
    for (i, o) in options.iter().enumerate() {
        let seats = if o["board"] == "winter" { [2, 3] } else { [2, 5] };
        for (j, n) in seats.into_iter().enumerate() {
            positions += play_and_check(&reg, "bardagi", n, o.clone(), (1 + 2 * i + j) as u8, 400);
        }
    }
    for n in 2..=4 {
        positions += play_and_check(&reg, "duel", n, json!({"rounds": 6}), 20 + n as u8, 400);
    }
    eprintln!("{positions} positions checked");
    // Bardagi's bots send each turn as a program with the plan, so its
    // games pass through fewer positions that wait on someone.
    assert!(positions >= 200, "only {positions} positions checked");
}

#[test]
fn a_ruleset_is_served_with_its_four_schemas() {
    let app = TestApp::spawn();
    let reg = registry();
    let r = app.get("/api/v1/rulesets/bardagi", None);
    let body = r.ok();
    assert_eq!(body["id"], "bardagi");
    assert_eq!(body["fixture"], false);
    assert!(body["min_seats"].is_u64() && body["default_options"].is_object());
    let schemas = reg.get("bardagi").unwrap().schemas();
    for (name, schema) in schemas.named() {
        assert_eq!(&body["schemas"][name], schema, "the served {name} schema");
    }
    assert_eq!(app.get("/api/v1/rulesets/duel", None).ok()["fixture"], true);
    let detail = app.get("/api/v1/rulesets/chess", None).problem(404);
    assert!(detail.contains("chess") && detail.contains("bardagi"), "{detail}");
}
