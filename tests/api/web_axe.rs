//! axe-core, run inside headless Chromium, over the pages a player and a
//! host see (home, landing, each hosted game's page, host pages, the
//! how-to-play pages) and a mail's HTML body: no serious or critical
//! violations. axe-core comes from the npm registry, pinned, into `target/`
//! (`.ci/run` installs it); without it this test fails and says how to get it.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::browser::Driver;
use crate::helpers::{seat_tokens, str_of, TestApp};
use crate::smtp::SmtpSink;

/// The pinned axe-core `.ci/run` installs.
const AXE_VERSION: &str = "4.10.2";

fn axe_source() -> String {
    let path = std::env::var_os("RUNESTONE_AXE").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/axe/node_modules/axe-core/axe.min.js")
    });
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "axe-core is not installed at {} ({e}): run `npm install --prefix target/axe --no-save \
             axe-core@{AXE_VERSION}` (bash .ci/run does)",
            path.display()
        )
    })
}

/// Run axe on the page `d` shows; the serious and critical violations.
fn violations(d: &Driver, axe: &str, what: &str) -> Vec<Value> {
    d.eval(&format!("{axe}\nwindow.axe = axe; return true;"));
    let script = "const done = arguments[arguments.length - 1];
        axe.run(document).then(r => done(JSON.stringify({ passes: r.passes.length, violations:
            r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
              .map(v => ({ id: v.id, impact: v.impact, help: v.help,
                           nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ' ' + n.html.slice(0, 120)) }))
        })), e => done(JSON.stringify({ error: String(e) })));";
    let out = d.call("POST", &d.s("/execute/async"), Some(json!({"script": script, "args": []})));
    let out: Value = serde_json::from_str(out.as_str().unwrap_or_else(|| panic!("{what}: axe gave no answer: {out}")))
        .expect("axe's answer is JSON");
    assert!(out["error"].is_null(), "{what}: axe failed: {}", out["error"]);
    assert!(out["passes"].as_u64().is_some_and(|p| p > 0), "{what}: axe checked nothing: {out}");
    let list = out["violations"].as_array().cloned().unwrap_or_default();
    for v in &list {
        eprintln!("{what}: {v}");
    }
    list
}

#[test]
fn axe_finds_no_serious_or_critical_violation_on_any_page_or_mail() {
    let axe = axe_source();
    let sink = SmtpSink::start();
    let app = TestApp::spawn_with(TestApp::smtp_to(sink.port));
    let d = Driver::start();
    let mut found: Vec<(String, Vec<Value>)> = Vec::new();
    let mut check = |d: &Driver, what: &str| {
        let v = violations(d, &axe, what);
        if !v.is_empty() {
            found.push((what.to_owned(), v));
        }
    };

    d.go(&format!("{}/", app.base));
    check(&d, "home");
    d.go(&format!("{}/host/new", app.base));
    check(&d, "host/new");

    for ruleset in ["bardagi", "fallen-kingdoms", "thingvellir", "realms"] {
        let seats: Vec<Value> = (0..3)
            .map(|i| json!({"name": format!("Player {}", i + 1), "email": format!("{ruleset}{i}@example.org")}))
            .collect();
        let created =
            app.post("/api/v1/games", None, &json!({"ruleset": ruleset, "options": {}, "seats": seats})).ok().clone();
        let game = str_of(&created, "game_id").to_owned();
        let tokens = seat_tokens(&created);
        d.resize(1280, 900);
        d.go(&format!("{}/play/{game}?token={}", app.base, tokens[0]));
        check(&d, &format!("{ruleset} landing"));
        d.loads(|| d.click(&d.find("#enter")));
        check(&d, &format!("{ruleset} game page"));
        // A first move, then the page rewound to before it: the log's
        // later entries are shown as the future.
        let first = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[0])).ok()["legal"][0].clone();
        if !first.is_null() {
            app.submit(&game, &tokens[0], first).ok();
        }
        d.go(&format!("{}/games/{game}?at=1", app.base));
        check(&d, &format!("{ruleset} game page rewound"));
        d.go(&format!("{}/rules/{ruleset}", app.base));
        check(&d, &format!("{ruleset} how to play"));
        // The same pages on a phone.
        d.resize(390, 844);
        d.go(&format!("{}/games/{game}", app.base));
        check(&d, &format!("{ruleset} game page, phone"));
        d.go(&format!("{}/games/{game}?at=1", app.base));
        check(&d, &format!("{ruleset} game page rewound, phone"));
        d.resize(1280, 900);
        if ruleset == "bardagi" {
            d.go(&format!("{}/play/{game}?token={}", app.base, str_of(&created, "host_token")));
            d.loads(|| d.click(&d.find("#enter")));
            check(&d, "host page");
            // A rollback voids the first move: struck in the host's log.
            let host = str_of(&created, "host_token");
            let head = app.get(&format!("/api/v1/games/{game}"), None).ok()["head"].as_u64().unwrap();
            let to = json!({"to_seq": head - 1, "reason": "a test"});
            app.post(&format!("/api/v1/games/{game}/rollback"), Some(host), &to).ok();
            d.go(&format!("{}/host/{game}", app.base));
            check(&d, "host page with voided events");
            d.resize(390, 844);
            check(&d, "host page with voided events, phone");
            d.go(&format!("{}/host/new", app.base));
            check(&d, "host/new, phone");
            d.resize(1280, 900);
        }
    }

    // The end page of a finished game, at both sizes.
    let created = app.create("duel", 2, json!({"rounds": 1}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    crate::helpers::play_to_the_end(&app, &game, &tokens, 200, &[409], |_, v| v["legal"][0].clone(), || {});
    d.go(&format!("{}/play/{game}?token={}", app.base, tokens[0]));
    d.loads(|| d.click(&d.find("#enter")));
    check(&d, "end page");
    d.resize(390, 844);
    check(&d, "end page, phone");
    d.resize(1280, 900);

    // The conversation panel with a thread open and a new message counted.
    let created = app.create("thingvellir", 3, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    for (from, to) in [(1, json!([0])), (2, json!(null))] {
        let mut body = json!({"text": "Shall we talk before the Thing?"});
        if !to.is_null() {
            body["to"] = to;
        }
        let r = app.post(&format!("/api/v1/games/{game}/messages"), Some(&tokens[from]), &body);
        assert_eq!(r.status, 201, "{}", r.text);
    }
    d.go(&format!("{}/play/{game}?token={}", app.base, tokens[0]));
    d.loads(|| d.click(&d.find("#enter")));
    d.go(&format!("{}/games/{game}?thread=0-1", app.base));
    d.wait_until("the unread count", || d.text("#press-unread") == "1 new");
    check(&d, "the conversation panel, a thread open");

    // A Bardagi turn, with one of the clan's units selected on the map (the
    // board as the input: its lit areas are buttons).
    let created = app.create("bardagi", 2, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    for token in &tokens {
        let first = app.get(&format!("/api/v1/games/{game}/view"), Some(token)).ok()["legal"][0].clone();
        app.submit(&game, token, first).ok();
    }
    let starting = app.get(&format!("/api/v1/games/{game}/view"), None).ok()["view"]["starting"].as_u64().unwrap();
    d.go(&format!("{}/play/{game}?token={}", app.base, tokens[starting as usize]));
    d.loads(|| d.click(&d.find("#enter")));
    d.click(&d.find("svg.board g.unit.selectable"));
    d.wait_until("the unit selected on the map", || d.exists("svg.board g.unit.selected"));
    check(&d, "bardagi turn, a unit selected on the map");

    // axe does see a violation: an image without a text alternative.
    d.go("about:blank");
    d.eval("document.open(); document.write('<!doctype html><html lang=\\'en\\'><title>t</title><img src=\\'x.png\\'></html>'); document.close(); return true;");
    let seen = violations(&d, &axe, "a page made to fail");
    assert!(seen.iter().any(|v| v["id"] == "image-alt"), "axe reports a missing alt text: {seen:?}");

    // A mail's HTML body, loaded as a page.
    let mail = sink.wait_for(1, 120).into_iter().next().expect("an invitation");
    d.go("about:blank");
    let html = serde_json::to_string(&mail.html()).unwrap();
    d.eval(&format!("document.open(); document.write({html}); document.close(); return true;"));
    check(&d, "invitation mail");

    assert!(found.is_empty(), "axe found serious or critical violations:\n{found:#?}");
}
