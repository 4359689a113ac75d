//! The command line: simulate, replay, export; and the binary's shutdown on
//! SIGTERM and its mail after a SIGKILL.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::{agent, FIXTURES};
use crate::smtp::SmtpSink;

fn runestone(args: &[&str], data: Option<&Path>) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_runestone"));
    c.args(args).env("RUST_LOG", "warn").env(FIXTURES.0, FIXTURES.1);
    if let Some(d) = data {
        c.env("RUNESTONE__STORAGE__PATH", d);
    }
    c.output().expect("the binary runs")
}

#[test]
fn simulate_writes_a_log_that_replay_accepts_and_replay_names_the_first_broken_event() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("duel.jsonl");
    let f = file.to_str().unwrap();
    let out = runestone(
        &["simulate", "--ruleset", "duel", "--players", "3", "--seed", "7", "--options", "{\"rounds\": 4}", "--out", f],
        None,
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let again = tmp.path().join("again.jsonl");
    runestone(
        &[
            "simulate",
            "--ruleset",
            "duel",
            "--players",
            "3",
            "--seed",
            "7",
            "--options",
            "{\"rounds\": 4}",
            "--out",
            again.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(std::fs::read(&file).unwrap(), std::fs::read(&again).unwrap(), "the same seed gives the same log");

    let out = runestone(&["replay", f], None);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        report.contains("chain intact") && report.contains("over") && report.contains("decisions re-derived"),
        "{report}"
    );

    // Change one die: the chain breaks at that event.
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let i = lines.iter().position(|l| l.contains("\"DieRolled\"")).unwrap();
    let mut v: Value = serde_json::from_str(&lines[i]).unwrap();
    let die = v["body"]["event"]["value"].as_u64().unwrap();
    v["body"]["event"]["value"] = json!(if die == 6 { 5 } else { die + 1 });
    lines[i] = v.to_string();
    std::fs::write(&file, lines.join("\n")).unwrap();
    let out = runestone(&["replay", f], None);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("event {i}")), "the first broken event is named: {err}");

    let out = runestone(&["simulate", "--ruleset", "chess", "--players", "2", "--seed", "1"], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown ruleset"));
    let out = runestone(&["frobnicate"], None);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unrecognized subcommand 'frobnicate'"));
}

/// Start `runestone serve` on port 0; returns the child and its base URL.
fn serve(data: &Path, env: &[(&str, String)]) -> (std::process::Child, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_runestone"));
    c.arg("serve")
        .env("RUNESTONE__SERVER__PORT", "0")
        .env("RUNESTONE__STORAGE__PATH", data)
        .envs(crate::helpers::TRUSTED_ENV)
        .env("RUST_LOG", "warn")
        .env(FIXTURES.0, FIXTURES.1);
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    (child, line.trim().rsplit(' ').next().unwrap().to_owned())
}

fn create(base: &str, seats: Value) -> Value {
    let mut r =
        agent().post(&format!("{base}/api/v1/games")).send_json(json!({"ruleset": "duel", "seats": seats})).unwrap();
    assert_eq!(r.status().as_u16(), 201);
    r.body_mut().read_json().unwrap()
}

#[test]
fn sigterm_stops_the_server_cleanly_and_export_then_replays() {
    let tmp = tempfile::tempdir().unwrap();
    let (child, base) = serve(tmp.path(), &[]);
    let created = create(&base, json!([{"name": "A"}, {"name": "B"}]));
    let game = created["game_id"].as_str().unwrap().to_owned();
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "a clean exit on SIGTERM: {:?}", out.status);

    let file = tmp.path().join("export.jsonl");
    let out = runestone(&["export", &game, "--out", file.to_str().unwrap()], Some(tmp.path()));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = runestone(&["replay", file.to_str().unwrap()], None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("seed not revealed yet"));
    let out = runestone(&["export", "nosuchgameatall1"], Some(tmp.path()));
    assert!(String::from_utf8_lossy(&out.stderr).contains("there is no game"));
}

#[test]
fn mail_appended_before_a_sigkill_is_sent_after_the_restart() {
    let mut sink = SmtpSink::start();
    sink.down();
    let tmp = tempfile::tempdir().unwrap();
    let env = [
        ("RUNESTONE__MAIL__TRANSPORT", "smtp".to_owned()),
        ("RUNESTONE__MAIL__SMTP_HOST", "127.0.0.1".to_owned()),
        ("RUNESTONE__MAIL__SMTP_PORT", sink.port.to_string()),
        ("RUNESTONE__MAIL__RETRY_SECONDS", "1".to_owned()),
        ("RUNESTONE__MAIL__POLL_MS", "25".to_owned()),
    ];
    let (mut child, base) = serve(tmp.path(), &env);
    create(&base, json!([{"name": "A", "email": "a@example.org"}, {"name": "B", "email": "b@example.org"}]));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(sink.received().is_empty());
    sink.up();
    let (mut child, _) = serve(tmp.path(), &env);
    let got = sink.wait_for(2, 120);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(sink.received().len(), 2);
    assert!(got.iter().all(|m| m.header("Subject").unwrap().contains("Your seat")));
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn replay_says_what_it_checked_and_names_a_cut_export() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("duel.jsonl");
    let f = file.to_str().unwrap();
    let out = runestone(&["simulate", "--ruleset", "duel", "--players", "3", "--seed", "7", "--out", f], None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        std::fs::read_to_string(&file).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let (end, events) = lines.split_last().unwrap();
    assert_eq!(end["end"]["events"], json!(events.len()), "an export ends with its end line");
    let seed = events.last().unwrap()["body"]["event"]["seed"].as_str().unwrap().to_owned();
    let write = |path: &Path, lines: &[Value]| {
        std::fs::write(path, lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap()
    };

    // A finished game with its last lines cut off is named as cut.
    let cut = tmp.path().join("cut.jsonl");
    write(&cut, &events[..events.len() - 3]);
    let out = runestone(&["replay", cut.to_str().unwrap()], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("was cut"), "{}", String::from_utf8_lossy(&out.stderr));
    let mut shortened = events[..events.len() - 3].to_vec();
    shortened.push(end.clone());
    write(&cut, &shortened);
    let out = runestone(&["replay", cut.to_str().unwrap()], None);
    assert!(String::from_utf8_lossy(&out.stderr).contains("cut or edited"), "{}", String::from_utf8_lossy(&out.stderr));

    // A running game (the first 12 events, as exported then) whose one
    // body was changed: without the seed replay says bodies were not
    // checked; with it, the changed event is named.
    let mut running = events[..12].to_vec();
    let i = running.iter().position(|e| e["body"]["event"]["type"] == json!("DieRolled")).unwrap();
    let die = running[i]["body"]["event"]["value"].as_u64().unwrap();
    running[i]["body"]["event"]["value"] = json!(if die == 6 { 5 } else { die + 1 });
    running.push(json!({"end": {"events": 12, "head_hash": running[11]["hash"]}}));
    let changed = tmp.path().join("running.jsonl");
    write(&changed, &running);
    let out = runestone(&["replay", changed.to_str().unwrap()], None);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("NOT checked against their digests"), "{report}");
    let out = runestone(&["replay", changed.to_str().unwrap(), "--seed", &seed], None);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("event {i}")), "{err}");
    running[i]["body"]["event"]["value"] = json!(die);
    write(&changed, &running);
    let out = runestone(&["replay", changed.to_str().unwrap(), "--seed", &seed], None);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("matches its digest"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn check_passes_an_intact_store_and_a_lost_signing_key_is_refused_until_asked_for() {
    let tmp = tempfile::tempdir().unwrap();
    let (child, base) = serve(tmp.path(), &[]);
    create(&base, json!([{"name": "A"}, {"name": "B"}]));
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    child.wait_with_output().unwrap();

    let out = runestone(&["check", "--data", tmp.path().to_str().unwrap()], None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("checked 1 games"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    std::fs::remove_file(tmp.path().join("jwt.key")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_runestone"))
        .arg("serve")
        .env("RUNESTONE__SERVER__PORT", "0")
        .env("RUNESTONE__STORAGE__PATH", tmp.path())
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("jwt.key is missing") && err.contains("--new-signing-key") && err.contains("revokes"),
        "{err}"
    );
    assert!(!tmp.path().join("jwt.key").exists(), "the refused start made no key");

    let mut c = Command::new(env!("CARGO_BIN_EXE_runestone"));
    c.args(["serve", "--new-signing-key"])
        .env("RUNESTONE__SERVER__PORT", "0")
        .env("RUNESTONE__STORAGE__PATH", tmp.path())
        .env("RUST_LOG", "warn");
    let mut child = c.stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.starts_with("runestone is serving"), "{line:?}");
    assert!(tmp.path().join("jwt.key").exists());
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Start `serve` on `data`, which must refuse to start: its error output.
/// A server that starts instead fails the test (it is stopped first).
fn refused_start(data: &Path) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_runestone"))
        .args(["serve", "--port", "0"])
        .env("RUNESTONE__STORAGE__PATH", data)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    if line.starts_with("runestone is serving") {
        child.kill().unwrap();
        child.wait().unwrap();
        panic!("the server started: {line}");
    }
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_signing_key_file_that_is_not_a_valid_key_stops_the_start_and_check_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (child, base) = serve(tmp.path(), &[]);
    create(&base, json!([{"name": "A"}, {"name": "B"}]));
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    child.wait_with_output().unwrap();
    let key_file = tmp.path().join("jwt.key");
    let key = std::fs::read_to_string(&key_file).unwrap();
    let data = tmp.path().to_str().unwrap();

    for (content, problem) in [
        (String::new(), "it is empty"),
        (key.trim()[..32].to_owned(), "it holds 32 hex digits where the key this server makes has 64"),
        ("not a key\n".to_owned(), "it holds something other than hex digits"),
    ] {
        std::fs::write(&key_file, &content).unwrap();
        let err = refused_start(tmp.path());
        assert!(
            err.contains(&format!("the token signing key {} is not a valid key: {problem}", key_file.display()))
                && err.contains("restore jwt.key from a backup")
                && err.contains("--new-signing-key"),
            "{err}"
        );
        let out = runestone(&["check", "--data", data], None);
        assert!(!out.status.success(), "check fails on the key {content:?}");
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(report.contains("DAMAGED signing key: the token signing key") && report.contains(problem), "{report}");
        assert_eq!(std::fs::read_to_string(&key_file).unwrap(), content, "nothing rewrote the key");
    }

    // The key restored: the store checks and serves again.
    std::fs::write(&key_file, &key).unwrap();
    let out = runestone(&["check", "--data", data], None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

/// This very binary is built with the Duel fixture compiled in (the tests
/// use it), yet a server started with the default settings offers and hosts
/// only the real games: a fixture is the settings' choice, not the build's.
#[test]
fn a_server_with_default_settings_neither_lists_nor_hosts_the_test_fixture() {
    let tmp = tempfile::tempdir().unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_runestone"));
    c.arg("serve").env("RUNESTONE__SERVER__PORT", "0").env("RUNESTONE__STORAGE__PATH", tmp.path());
    c.envs(crate::helpers::TRUSTED_ENV);
    let mut child = c.env("RUST_LOG", "warn").env_remove(FIXTURES.0).stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let base = line.trim().rsplit(' ').next().unwrap().to_owned();
    let get = |path: &str| {
        let mut r = agent().get(&format!("{base}{path}")).call().unwrap();
        (r.status().as_u16(), r.body_mut().read_json::<Value>().unwrap())
    };
    let (status, listed) = get("/api/v1/rulesets");
    let one = get("/api/v1/rulesets/duel").0;
    let mut r = agent()
        .post(&format!("{base}/api/v1/games"))
        .send_json(json!({"ruleset": "duel", "seats": [{"name": "A"}, {"name": "B"}]}))
        .unwrap();
    let created = (r.status().as_u16(), r.body_mut().read_json::<Value>().unwrap());
    child.kill().unwrap();
    child.wait().unwrap();

    assert_eq!(status, 200);
    let ids: Vec<&str> = listed["rulesets"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["bardagi", "fallen-kingdoms", "realms", "thingvellir"]);
    assert_eq!(one, 404);
    assert_eq!(created.0, 422, "no Duel game is made: {}", created.1);
    let detail = created.1["detail"].as_str().unwrap();
    assert!(detail.contains("unknown ruleset \"duel\"") && !detail.contains("offers: bardagi, duel"), "{detail}");
}

/// The figure after "label: " on a line of the stats report.
fn stat(report: &str, label: &str) -> f64 {
    let line = report.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("no {label} in {report}"));
    line[label.len()..].trim_start_matches(':').split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn simulate_stats_count_inputs_and_waits_per_round_with_and_without_turn_programs() {
    let args = ["simulate", "--ruleset", "bardagi", "--players", "3", "--seed", "s", "--games", "3", "--stats"];
    let before = runestone(&[&args[..], &["--without-programs"]].concat(), None);
    assert!(before.status.success(), "{}", String::from_utf8_lossy(&before.stderr));
    let before = String::from_utf8_lossy(&before.stdout).into_owned();
    assert!(before.starts_with("3 games of 3 seats, 27 rounds"), "{before}");
    // Today's play: a plan and a turn per clan; the plans one wait, then each turn.
    assert_eq!(stat(&before, "inputs per seat per round"), 2.0, "{before}");
    assert_eq!(stat(&before, "sequential waits per round"), 4.0, "{before}");
    let after = runestone(&args, None);
    assert!(after.status.success(), "{}", String::from_utf8_lossy(&after.stderr));
    let after = String::from_utf8_lossy(&after.stdout).into_owned();
    assert!(stat(&after, "inputs per seat per round") <= 1.2, "{after}");
    assert!(stat(&after, "sequential waits per round") <= 1.5, "{after}");
    assert!(after.contains("programmed steps per round: ") && !after.contains("0.00 ran"), "{after}");
}

/// `lines` (events as JSON, then no end line) with the chain made again
/// from `from` on and an end line matching it: what someone who edited an
/// export and wanted it to pass would write.
fn rechained(mut lines: Vec<Value>, from: usize) -> Vec<Value> {
    for i in from..lines.len() {
        if i > 0 {
            lines[i]["prev_hash"] = lines[i - 1]["hash"].clone();
        }
        let env: runestone_engine::Envelope = serde_json::from_value(lines[i].clone()).unwrap();
        lines[i]["hash"] = json!(runestone_engine::log::chain_hash(&env).to_string());
    }
    let head = lines.last().unwrap()["hash"].clone();
    lines.push(json!({"end": {"events": lines.len(), "head_hash": head}}));
    lines
}

fn write_lines(path: &Path, lines: &[Value]) {
    std::fs::write(path, lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap()
}

/// A running game's export whose secret bid has its redacted form, its time
/// or its actor changed, chain and end line made again: the chain alone
/// cannot tell (it is public arithmetic), but with the seed replay names
/// the event and what differs from what its digest sealed.
#[test]
fn replay_with_the_seed_names_an_edited_time_actor_or_redacted_form() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("duel.jsonl");
    let out = runestone(
        &["simulate", "--ruleset", "duel", "--players", "3", "--seed", "7", "--out", file.to_str().unwrap()],
        None,
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        std::fs::read_to_string(&file).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let events = &lines[..lines.len() - 1];
    let seed = events.last().unwrap()["body"]["event"]["seed"].as_str().unwrap().to_owned();
    let running = events[..12].to_vec();
    let i = running.iter().position(|e| e.get("redacted").is_some() && e["actor"].get("seat").is_some()).unwrap();
    type Edit = (&'static str, fn(&mut Value));
    let edits: [Edit; 4] = [
        ("visibility, redacted form or decision", |e| e["redacted"] = json!({"type": "Bid", "amount": 0})),
        ("time", |e| e["time"] = json!("2000-01-01T00:00:00Z")),
        ("actor", |e| e["actor"] = json!("host")),
        ("visibility, redacted form or decision", |e| e["visibility"] = json!("public")),
    ];
    let path = tmp.path().join("edited.jsonl");
    for (what, edit) in edits {
        let mut edited = running.clone();
        edit(&mut edited[i]);
        write_lines(&path, &rechained(edited, i));
        let out = runestone(&["replay", path.to_str().unwrap()], None);
        assert!(
            out.status.success(),
            "without the seed only the chain is checked: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = runestone(&["replay", path.to_str().unwrap(), "--seed", &seed], None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "an edited {what} passed: {}", String::from_utf8_lossy(&out.stdout));
        assert!(err.contains(&format!("event {i}: its {what} differs")), "{what}: {err}");
    }
    write_lines(&path, &rechained(running, 0));
    let out = runestone(&["replay", path.to_str().unwrap(), "--seed", &seed], None);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && report.contains("matches its digest"),
        "{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!report.contains("older form"), "{report}");
}

/// Every golden log of each game, one seat of one event changed to a seat
/// the game does not have (chain and end line made again): replay names
/// the event and the seat, and never panics.
#[test]
fn replay_names_an_event_naming_a_seat_the_game_does_not_have() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("events");
    for (game, key) in [
        ("bardagi/2-players-seed-1.jsonl", "seat"),
        ("bardagi/2018-3-players-seed-19.jsonl", "victim"),
        ("fallen-kingdoms/3-players-seed-1.jsonl", "seat"),
        ("fallen-kingdoms/3-players-seed-1.jsonl", "attacker"),
        ("realms/2-players-fast-seed-1.jsonl", "seat"),
        ("thingvellir/2-players-seed-1.jsonl", "seat"),
    ] {
        let text = std::fs::read_to_string(dir.join(game)).unwrap_or_else(|e| panic!("{game}: {e}"));
        let mut lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        if lines.last().unwrap().get("end").is_some() {
            lines.pop();
        }
        let i = lines
            .iter()
            .position(|e| e["body"]["kind"] == json!("game") && e["body"]["event"].get(key).is_some())
            .unwrap_or_else(|| panic!("{game}: no event names a {key}"));
        lines[i]["body"]["event"][key] = json!(200);
        let path = tmp.path().join("edited.jsonl");
        write_lines(&path, &rechained(lines, i));
        let out = runestone(&["replay", path.to_str().unwrap()], None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{game}: {}", String::from_utf8_lossy(&out.stdout));
        assert!(!err.contains("panicked"), "{game}: {err}");
        assert!(err.contains(&format!("event {i}")) && err.contains("seat 200"), "{game} ({key}): {err}");
    }
}
