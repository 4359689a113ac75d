//! The real `runestone` binary as a process, for the tests that kill it,
//! restart it, fill its disk or run two of it: started on port 0, and plain
//! HTTP calls to it.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// `runestone serve` on port 0 over the data directory `dir`, with two
/// workers and warnings only, then `settings` (configuration keys as
/// `RUNESTONE__…` variables) on top; returns it and its base URL once it
/// says it is serving.
pub fn serve(dir: &Path, settings: &[(&str, &str)]) -> (Child, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_runestone"));
    command.arg("serve");
    serve_as(command, dir, settings)
}

/// [`serve`] under an open-file limit of `open_files`, soft and hard (so the
/// server cannot raise it).
pub fn serve_with_open_files(dir: &Path, settings: &[(&str, &str)], open_files: u64) -> (Child, String) {
    let mut command = Command::new("sh");
    command.arg("-c").arg(format!("ulimit -n {open_files} && exec \"$0\" serve")).arg(env!("CARGO_BIN_EXE_runestone"));
    serve_as(command, dir, settings)
}

fn serve_as(mut command: Command, dir: &Path, settings: &[(&str, &str)]) -> (Child, String) {
    // What the binaries run so far answered is documented (their answers are
    // recorded to a file: see `helpers::answers_file`).
    crate::helpers::assert_answers_documented();
    command
        .env("RUNESTONE__SERVER__PORT", "0")
        .env("RUNESTONE__SERVER__WORKERS", "2")
        .env("RUNESTONE__STORAGE__PATH", dir)
        .envs(crate::helpers::TRUSTED_ENV)
        .env("RUST_LOG", "warn")
        .env(crate::helpers::FIXTURES.0, crate::helpers::FIXTURES.1)
        .env(runestone::http::RECORD_ENV, crate::helpers::answers_file())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (key, value) in settings {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("the binary starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).expect("a line from the server");
    let base = line.trim().rsplit(' ').next().expect("an address").to_owned();
    assert!(base.starts_with("http://"), "unexpected first line: {line:?}");
    (child, base)
}

/// The settings that send mail to the SMTP listener on `port`.
pub fn smtp_settings(port: &str) -> [(&'static str, &str); 5] {
    [
        ("RUNESTONE__MAIL__TRANSPORT", "smtp"),
        ("RUNESTONE__MAIL__SMTP_HOST", "127.0.0.1"),
        ("RUNESTONE__MAIL__SMTP_PORT", port),
        ("RUNESTONE__MAIL__FROM", "runestone <games@runestone.test>"),
        ("RUNESTONE__MAIL__POLL_MS", "25"),
    ]
}

/// One request: its status and JSON body (null when the body is not JSON),
/// or why no answer came (the server gone, for the tests that kill it).
pub fn call(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> Result<(u16, Value), String> {
    let mut req = ureq::http::Request::builder().method(method).uri(url);
    if let Some(t) = token {
        req = req.header("Authorization", format!("Bearer {t}"));
    }
    let resp = match body {
        Some(b) => agent.run(req.header("Content-Type", "application/json").body(b.to_string()).unwrap()),
        None => agent.run(req.body(()).unwrap()),
    };
    let mut resp = resp.map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().map_err(|e| e.to_string())?;
    Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
}
