//! The command line: simulate, replay, export; and the binary's shutdown on
//! SIGTERM and its mail after a SIGKILL.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::agent;
use crate::smtp::SmtpSink;

fn runestone(args: &[&str], data: Option<&Path>) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_runestone"));
    c.args(args).env("RUST_LOG", "warn");
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
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown command"));
}

/// Start `runestone serve` on port 0; returns the child and its base URL.
fn serve(data: &Path, env: &[(&str, String)]) -> (std::process::Child, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_runestone"));
    c.arg("serve").env("RUNESTONE__SERVER__PORT", "0").env("RUNESTONE__STORAGE__PATH", data).env("RUST_LOG", "warn");
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
    let got = sink.wait_for(2, 60);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(sink.received().len(), 2);
    assert!(got.iter().all(|m| m.header("Subject").unwrap().contains("Your seat")));
    child.kill().unwrap();
    child.wait().unwrap();
}
