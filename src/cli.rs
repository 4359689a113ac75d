//! The command line: `serve`, `check`, `migrate-store`, `migrate-schema`,
//! `replay`, `export`, `simulate`, `inbound`.

use std::io::{BufRead, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{anyhow, bail, Context};
use chrono::{DateTime, Duration, Utc};
use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};
use runestone_engine::log::{check_chain, seal};
use runestone_engine::{verify, Actor, Envelope, FoldError, Registry, Seed, Table};
use sha2::{Digest, Sha256};

use crate::clock::{stamp, SystemClock};
use crate::config::Settings;

/// The command line, described once: `--help` on every subcommand comes
/// from here. Options of `serve` carry the names of the configuration keys
/// they set (`--port` sets `server.port`).
pub fn command() -> Command {
    let config = || {
        Arg::new("config")
            .long("config")
            .value_name("FILE")
            .value_parser(value_parser!(PathBuf))
            .help("A TOML file of settings over the embedded defaults (see config/default.toml)")
    };
    let out = || {
        Arg::new("out")
            .long("out")
            .value_name("FILE")
            .value_parser(value_parser!(PathBuf))
            .help("Write to FILE instead of standard output")
    };
    Command::new("runestone")
        .about("runestone — slow, asynchronous board games")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            Command::new("serve")
                .about("Serve the REST API and the pages")
                .long_about(
                    "Serve the REST API and the pages. Defaults: sled under ./data, port 8080, mail written to \
                     files under ./data/mail. RUNESTONE__SECTION__KEY environment variables override the \
                     configuration file, and these options override both. A data directory with games but \
                     without its jwt.key is refused unless --new-signing-key is given.",
                )
                .arg(config())
                .arg(Arg::new("host").long("host").value_name("ADDRESS").help("server.host: the address to listen on"))
                .arg(
                    Arg::new("port")
                        .long("port")
                        .value_name("PORT")
                        .value_parser(value_parser!(u16))
                        .help("server.port: the port to listen on (0 picks a free one)"),
                )
                .arg(
                    Arg::new("public_url")
                        .long("public-url")
                        .alias("public_url")
                        .value_name("URL")
                        .help("server.public_url: the address players' links start with"),
                )
                .arg(
                    Arg::new("workers")
                        .long("workers")
                        .value_name("N")
                        .value_parser(value_parser!(usize))
                        .help("server.workers: HTTP worker threads (0: one per core)"),
                )
                .arg(
                    Arg::new("new_signing_key")
                        .long("new-signing-key")
                        .alias("new_signing_key")
                        .action(ArgAction::SetTrue)
                        .help(
                            "auth.new_signing_key: make a new token signing key if jwt.key is missing, which \
                             revokes every token and every link already sent",
                        ),
                ),
        )
        .subcommand(
            Command::new("inbound")
                .about("Hand one mail message on standard input to the running server (an MTA's pipe)")
                .long_about(
                    "Read one mail message (RFC 5322) on standard input and hand it to the running server's \
                     inbound route, authenticated by the inbound route key (inbound.route_key, or derived from \
                     the signing key under storage.path, which this command must be able to read). For an MTA \
                     that delivers to a command, such as Postfix's pipe: exits 0 when the message was taken \
                     (or ignored, as an auto-reply is), 67 when it is to no valid reply address (forged, \
                     expired, revoked), 65 when it cannot be read or is too large, and 75 (try again later) \
                     when the server cannot be reached or the seat sent too many replies.",
                )
                .arg(config())
                .arg(
                    Arg::new("recipient")
                        .long("recipient")
                        .value_name("ADDRESS")
                        .help("The envelope recipient (the reply address); default: read from the headers"),
                )
                .arg(
                    Arg::new("url")
                        .long("url")
                        .value_name("URL")
                        .help("The server's address (http://HOST:PORT); default: server.host and server.port"),
                ),
        )
        .subcommand(
            Command::new("check")
                .about("Verify a stopped server's data directory offline; exits non-zero on damage")
                .long_about(
                    "Verify a stopped server's data directory offline: every game's log, chain, head record, \
                     digests and record, and the manifest of games. Names every damaged game; exits non-zero \
                     when damage is found.",
                )
                .arg(
                    Arg::new("data")
                        .long("data")
                        .value_name("DIR")
                        .value_parser(value_parser!(PathBuf))
                        .conflicts_with("config")
                        .help("storage.path: the data directory (default: the configuration's)"),
                )
                .arg(config()),
        )
        .subcommand(
            Command::new("migrate-store")
                .about("Copy every game of a sled data directory to PostgreSQL, verified; safe to run again")
                .long_about(
                    "Copy every game of a stopped server's sled data directory to a PostgreSQL database: each \
                     game's whole log with its private record, idempotency answers, pending mail and deadlines, \
                     in one transaction per game, every chain verified on arrival. Games already on the target \
                     are left as they are, so an interrupted copy is finished by running it again. The nodes \
                     serving the database then need auth.jwt_secret set to the contents of the directory's \
                     jwt.key, so the links already sent keep working.",
                )
                .arg(
                    Arg::new("from")
                        .long("from")
                        .value_name("sled:DIR")
                        .required(true)
                        .help("The sled data directory (storage.path), as sled:DIR"),
                )
                .arg(
                    Arg::new("to")
                        .long("to")
                        .value_name("postgres:URL")
                        .required(true)
                        .help("The PostgreSQL database, as postgres:postgresql://USER@HOST/DATABASE"),
                ),
        )
        .subcommand(
            Command::new("migrate-schema")
                .about("Bring a PostgreSQL database's runestone schema up to this build's version")
                .arg(
                    Arg::new("url")
                        .long("url")
                        .value_name("URL")
                        .required(true)
                        .help("storage.url: the database, postgresql://USER@HOST/DATABASE"),
                ),
        )
        .subcommand(
            Command::new("replay")
                .about("Fold an exported log again and check its chain, its end line and (with the seed) its draws")
                .arg(
                    Arg::new("file")
                        .value_name("FILE")
                        .required(true)
                        .value_parser(value_parser!(PathBuf))
                        .help("An export: JSON lines, one event each, then the end line"),
                )
                .arg(
                    Arg::new("seed")
                        .long("seed")
                        .value_name("HEX")
                        .help("The game's secret seed, to check a running game's bodies, commands and draws"),
                ),
        )
        .subcommand(
            Command::new("export")
                .about("Write a game's whole log as JSON lines and an end line (stop the server first)")
                .arg(Arg::new("game").value_name("GAME").required(true).help("The game id"))
                .arg(config())
                .arg(out()),
        )
        .subcommand(
            Command::new("simulate")
                .about("Play a whole game by bots and write its log as JSON lines")
                .arg(Arg::new("ruleset").long("ruleset").value_name("ID").required(true).help("The ruleset id"))
                .arg(
                    Arg::new("players")
                        .long("players")
                        .value_name("N")
                        .required(true)
                        .value_parser(value_parser!(u8))
                        .help("How many seats"),
                )
                .arg(
                    Arg::new("seed")
                        .long("seed")
                        .value_name("S")
                        .required(true)
                        .help("Any text: the same gives the same game"),
                )
                .arg(Arg::new("options").long("options").value_name("JSON").help("The ruleset's options as JSON"))
                .arg(
                    Arg::new("games")
                        .long("games")
                        .value_name("N")
                        .value_parser(value_parser!(u32).range(1..=100_000))
                        .help("Play N games (seeds SEED/1 .. SEED/N) and report statistics instead of writing a log"),
                )
                .arg(Arg::new("stats").long("stats").action(ArgAction::SetTrue).help(
                    "Report per round: inputs per seat, sequential waits (a secret choice all make at once \
                             counts as one wait) and programmed steps that ran, fell back or asked",
                ))
                .arg(
                    Arg::new("without_programs")
                        .long("without-programs")
                        .action(ArgAction::SetTrue)
                        .help("Bots send their plan without a turn program (play as before programs)"),
                )
                .arg(out()),
        )
}

/// Run the command line; `args` excludes the program name.
pub fn run(args: Vec<String>) -> anyhow::Result<()> {
    let m = match command().try_get_matches_from(std::iter::once("runestone".to_owned()).chain(args)) {
        Ok(m) => m,
        Err(e) => e.exit(),
    };
    let path = |m: &ArgMatches, k: &str| m.get_one::<PathBuf>(k).cloned();
    match m.subcommand() {
        Some(("serve", m)) => {
            let mut settings = Settings::load(path(m, "config").as_deref())?;
            settings.auth.new_signing_key |= m.get_flag("new_signing_key");
            if let Some(h) = m.get_one::<String>("host") {
                settings.server.host = h.clone();
            }
            if let Some(p) = m.get_one::<u16>("port") {
                settings.server.port = *p;
            }
            if let Some(u) = m.get_one::<String>("public_url") {
                settings.server.public_url = u.clone();
            }
            if let Some(w) = m.get_one::<usize>("workers") {
                settings.server.workers = *w;
            }
            serve(settings)
        }
        Some(("replay", m)) => {
            let file = path(m, "file").expect("required");
            let seed = m
                .get_one::<String>("seed")
                .map(|h| Seed::from_hex(h).ok_or_else(|| anyhow!("--seed must be the game's seed in hex")))
                .transpose()?;
            // A panic in a game's rules is answered in words naming the
            // event (see `replay_with`); its default message on standard
            // error would only add a source line.
            std::panic::set_hook(Box::new(|_| {}));
            let report = replay_with(&crate::games::registry(), &file, seed.as_ref());
            let _ = std::panic::take_hook();
            println!("{}", report?);
            Ok(())
        }
        Some(("check", m)) => {
            let (data, key_configured) = match path(m, "data") {
                // The environment may still give the key (auth.jwt_secret).
                Some(d) => (d, Settings::load(None).is_ok_and(|s| !s.auth.jwt_secret.is_empty())),
                None => {
                    let s = Settings::load(path(m, "config").as_deref())?;
                    (s.storage.path, !s.auth.jwt_secret.is_empty())
                }
            };
            let report = check(&data, key_configured)?;
            print!("{}", report.text);
            if report.damaged > 0 {
                bail!("{} damage found under {}", report.damaged, data.display());
            }
            Ok(())
        }
        Some(("migrate-store", m)) => {
            let from = m.get_one::<String>("from").expect("required");
            let to = m.get_one::<String>("to").expect("required");
            let report = migrate_store(from, to)?;
            println!("{report}");
            Ok(())
        }
        Some(("migrate-schema", m)) => {
            let url = m.get_one::<String>("url").expect("required");
            let (before, after) = crate::store::postgres::PgStore::migrate(url)
                .map_err(|e| anyhow!("cannot migrate the PostgreSQL schema: {e}"))?;
            if before == after {
                println!("the PostgreSQL schema is at version {after} already");
            } else {
                println!("the PostgreSQL schema went from version {before} to {after}");
            }
            Ok(())
        }
        Some(("export", m)) => {
            let game = m.get_one::<String>("game").expect("required");
            export(game, path(m, "config").as_deref(), path(m, "out"))
        }
        Some(("simulate", m)) => {
            let ruleset = m.get_one::<String>("ruleset").expect("required");
            let players = *m.get_one::<u8>("players").expect("required");
            let seed = m.get_one::<String>("seed").expect("required");
            let options = match m.get_one::<String>("options") {
                Some(o) => serde_json::from_str(o).map_err(|_| anyhow!("--options is not valid JSON: {o}"))?,
                None => serde_json::Value::Null,
            };
            let games = m.get_one::<u32>("games").copied();
            let without = m.get_flag("without_programs");
            if games.is_none() && !m.get_flag("stats") && !without {
                let log = simulate(&crate::games::registry(), ruleset, players, seed, &options)?;
                return write_lines(&log, path(m, "out"));
            }
            let mut stats = SimStats::default();
            let registry = crate::games::registry();
            for i in 1..=games.unwrap_or(1) {
                let seed = if games.is_some() { format!("{seed}/{i}") } else { seed.clone() };
                simulate_with(&registry, ruleset, players, &seed, &options, without, Some(&mut stats))?;
            }
            println!("{}", stats.report(players));
            Ok(())
        }
        Some(("inbound", m)) => {
            let settings = Settings::load(path(m, "config").as_deref())?;
            let (code, words) = inbound(
                &settings,
                m.get_one::<String>("url").map(String::as_str),
                m.get_one::<String>("recipient").map(String::as_str),
                &mut std::io::stdin().lock(),
            );
            println!("{words}");
            std::process::exit(code)
        }
        _ => bail!("no command given; see `runestone --help`"),
    }
}

/// Exit statuses of `inbound`, as MTAs read them (sysexits.h).
pub mod exit {
    pub const TAKEN: i32 = 0;
    pub const DATA: i32 = 65;
    pub const NO_USER: i32 = 67;
    pub const TRY_LATER: i32 = 75;
    pub const CONFIG: i32 = 78;
}

/// `inbound`: read one message from `input` and hand it to the server at
/// `url` (default: the configured host and port); the exit status and what
/// to say.
pub fn inbound(
    settings: &Settings,
    url: Option<&str>,
    recipient: Option<&str>,
    input: &mut dyn std::io::Read,
) -> (i32, String) {
    let key = if settings.inbound.route_key.is_empty() {
        match crate::auth::Keys::load_or_create(
            &settings.auth.jwt_secret,
            &settings.storage.path,
            settings.auth.token_days,
            false,
        ) {
            Ok(k) => crate::service::inbound::route_key(&k, ""),
            Err(e) => return (exit::CONFIG, format!("cannot read the server's signing key: {e}")),
        }
    } else {
        settings.inbound.route_key.to_ascii_lowercase()
    };
    let mut raw = Vec::new();
    let limit = settings.inbound.max_bytes;
    if let Err(e) = std::io::Read::read_to_end(&mut std::io::Read::take(&mut *input, limit as u64 + 1), &mut raw) {
        return (exit::TRY_LATER, format!("cannot read the message on standard input: {e}"));
    }
    if raw.len() > limit {
        return (exit::DATA, format!("the message is over {limit} bytes (inbound.max_bytes)"));
    }
    let host = match settings.server.host.as_str() {
        "0.0.0.0" | "" => "127.0.0.1".to_owned(),
        "::" => "[::1]".to_owned(),
        h if h.contains(':') && !h.starts_with('[') => format!("[{h}]"),
        h => h.to_owned(),
    };
    let base = url.map_or_else(|| format!("http://{host}:{}", settings.server.port), str::to_owned);
    let mut path = "/api/v1/inbound/mail".to_owned();
    if let Some(r) = recipient {
        path.push_str("?recipient=");
        path.push_str(&percent_encode(r));
    }
    match post_message(&base, &path, &key, &raw) {
        Err(e) => (exit::TRY_LATER, format!("cannot reach the server at {base}: {e}")),
        Ok((status, body)) => {
            let detail = serde_json::from_slice::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| v.get("detail").and_then(|d| d.as_str()).map(str::to_owned))
                .unwrap_or_else(|| String::from_utf8_lossy(&body).chars().take(500).collect());
            let code = match status {
                200..=299 => exit::TAKEN,
                403 | 404 => exit::NO_USER,
                400 | 413 | 415 | 422 => exit::DATA,
                401 => exit::CONFIG,
                _ => exit::TRY_LATER,
            };
            (code, detail)
        }
    }
}

/// `s` percent-encoded for a query value.
fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'@' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// POST `body` as a mail message to `base` + `path` over plain HTTP/1.1
/// (the server is local); its status and body.
fn post_message(base: &str, path: &str, key: &str, body: &[u8]) -> std::io::Result<(u16, Vec<u8>)> {
    use std::io::Read as _;
    let hostport = base
        .strip_prefix("http://")
        .ok_or_else(|| std::io::Error::other("only http:// addresses are reached (the server is local)"))?
        .trim_end_matches('/');
    let mut stream = std::net::TcpStream::connect(hostport)?;
    stream.set_read_timeout(Some(std::time::Duration::from_secs(60)))?;
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {hostport}\r\nAuthorization: Bearer {key}\r\nContent-Type: message/rfc822\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    let split = answer.windows(4).position(|w| w == b"\r\n\r\n").ok_or_else(|| std::io::Error::other("no answer"))?;
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other("the answer has no status"))?;
    let mut rest = answer[split + 4..].to_vec();
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        rest = unchunk(&rest);
    }
    Ok((status, rest))
}

/// A chunked body, joined.
fn unchunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = b.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&b[..eol])
            .ok()
            .and_then(|s| usize::from_str_radix(s.split(';').next()?.trim(), 16).ok());
        let Some(size) = size.filter(|&n| n > 0) else { break };
        let start = eol + 2;
        let end = (start + size).min(b.len());
        out.extend_from_slice(&b[start..end]);
        b = b.get(end + 2..).unwrap_or(&[]);
    }
    out
}

fn serve(settings: Settings) -> anyhow::Result<()> {
    // The tests that run the binary ask it to tell what it answers.
    if let Some(path) = std::env::var_os(crate::http::RECORD_ENV) {
        crate::http::record_answers_to(std::path::Path::new(&path))?;
    }
    let workers = settings.server.workers;
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    if workers > 0 {
        rt.worker_threads(workers);
    }
    rt.enable_all().build()?.block_on(async move {
        let app = crate::app::Application::build(&settings, Arc::new(SystemClock), crate::games::registry())?;
        tracing::info!(port = app.port(), data = %settings.storage.path.display(), "runestone is serving");
        println!("runestone is serving on http://{}:{}", settings.server.host, app.port());
        app.run_until_stopped().await
    })
}

/// `migrate-store --from sled:DIR --to postgres:URL`.
pub fn migrate_store(from: &str, to: &str) -> anyhow::Result<crate::store::migrate::Report> {
    let dir = from.strip_prefix("sled:").map(PathBuf::from).ok_or_else(|| {
        anyhow!("--from must name a sled data directory as sled:DIR (the server's storage.path), not {from:?}")
    })?;
    let url = to
        .strip_prefix("postgres:")
        .ok_or_else(|| anyhow!("--to must name a PostgreSQL database as postgres:URL, not {to:?}"))?;
    let events = if dir.join("events").join("db").exists() { dir.join("events") } else { dir.clone() };
    if !events.join("db").exists() {
        bail!("there is no sled event store under {} (no events/db file)", dir.display());
    }
    let source = crate::store::sled::SledStore::open(&events).map_err(|e| match e {
        crate::store::StoreError::Io(m) if m.contains("could not acquire lock") => {
            anyhow!("the store under {} is in use: stop the server first", dir.display())
        }
        e => anyhow!("cannot open the sled store under {}: {e}", dir.display()),
    })?;
    let target = crate::store::postgres::PgStore::open(url).map_err(|e| anyhow!("{e}"))?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let report = rt.block_on(crate::store::migrate::copy(&source, &target)).map_err(|e| anyhow!("{e}"))?;
    use crate::store::EventStore;
    source.close()?;
    Ok(report)
}

/// An export: its events, and its end line if it has one.
struct Export {
    log: Vec<Envelope>,
    end: Option<End>,
}

/// The last line of every export: how many events it holds and the hash of
/// the last, so a file with lines cut off its end is named as cut.
#[derive(serde::Serialize, serde::Deserialize)]
struct End {
    events: u64,
    head_hash: String,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct EndLine {
    end: End,
}

fn read_lines(file: &Path) -> anyhow::Result<Export> {
    let f = std::fs::File::open(file).with_context(|| format!("cannot open {}", file.display()))?;
    let mut log = Vec::new();
    let mut end = None;
    for (n, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        if end.is_some() {
            bail!("{} line {}: more lines after the end line", file.display(), n + 1);
        }
        if let Ok(e) = serde_json::from_str::<EndLine>(&line) {
            end = Some(e.end);
            continue;
        }
        log.push(
            serde_json::from_str(&line).with_context(|| format!("{} line {}: not an event", file.display(), n + 1))?,
        );
    }
    Ok(Export { log, end })
}

fn write_lines(log: &[Envelope], out: Option<PathBuf>) -> anyhow::Result<()> {
    let mut text = String::new();
    for e in log {
        text.push_str(&serde_json::to_string(e)?);
        text.push('\n');
    }
    let end = End { events: log.len() as u64, head_hash: log.last().map(|e| e.hash.to_string()).unwrap_or_default() };
    text.push_str(&serde_json::to_string(&EndLine { end })?);
    text.push('\n');
    match out {
        Some(p) => std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display())),
        None => Ok(std::io::stdout().write_all(text.as_bytes())?),
    }
}

/// Fold `file` again: chain, then event by event, then (seed revealed)
/// every draw. Returns a report in words; fails on the first problem.
pub fn replay(registry: &Registry, file: &Path) -> anyhow::Result<String> {
    replay_with(registry, file, None)
}

/// [`replay`], with the game's secret seed (`--seed`) to check a running
/// game's bodies and commands against their digests.
pub fn replay_with(registry: &Registry, file: &Path, seed: Option<&Seed>) -> anyhow::Result<String> {
    let Export { log, end } = read_lines(file)?;
    if log.is_empty() {
        bail!("{} holds no events", file.display());
    }
    let finished =
        matches!(log.last().and_then(|e| e.kernel()), Some(runestone_engine::KernelEvent::SeedRevealed { .. }));
    let completeness = match &end {
        Some(end) if end.events != log.len() as u64 || log.last().is_some_and(|e| e.hash != end.head_hash) => bail!(
            "{} is cut or edited: its end line says {} events ending with hash {}, but it holds {} events",
            file.display(),
            end.events,
            end.head_hash,
            log.len()
        ),
        Some(_) => "complete (its end line matches)",
        // A finished game's log ends with the seed: nothing can follow it.
        None if finished => "no end line (an older export), complete up to its revealed seed",
        None => bail!(
            "{} ends without its end line after {} events: the file was cut (or written by an older \
             runestone), so its last events may be missing",
            file.display(),
            log.len()
        ),
    };
    check_chain(&log).map_err(|e| anyhow!("the hash chain breaks at event {}: {}", e.seq, e.problem))?;
    // Event by event, so the first one that no longer applies is named.
    // Each game checks that an event fits its position before applying it
    // (`Game::fits`); an index those checks do not cover that still makes
    // a game's rules fail is caught here and named by its event too.
    let at = std::cell::Cell::new(0usize);
    let table = guarded(
        || format!("event {}", at.get()),
        || {
            let mut table = Table::fold(registry, &log[..1]).map_err(|e| anyhow!("event 0: {e}"))?;
            for (i, env) in log.iter().enumerate().skip(1) {
                at.set(i);
                match table.push(env) {
                    Ok(()) => {}
                    Err(FoldError::NeedsRefold) => {
                        table = Table::fold(registry, &log[..=i])
                            .map_err(|e| anyhow!("event {i} no longer applies: {e}"))?
                    }
                    Err(e) => bail!("event {i} no longer applies: {e}"),
                }
            }
            Ok(table)
        },
    )?;
    let mut report = format!(
        "{}: {} events of {} (rules version {}), {completeness}, chain intact",
        log[0].game,
        log.len(),
        table.created.ruleset,
        table.created.rules_version
    );
    if let Some(o) = guarded(|| "scoring the last position".to_owned(), || Ok(table.outcome()))? {
        report.push_str(&format!("; over: {} — scores {:?}", o.summary, o.scores));
    }
    let full = |seed: &Seed| {
        let r = guarded(|| "deciding the log's commands again".to_owned(), || Ok(verify::full(registry, &log, seed)))?;
        if let Some((seq, p)) = r.problem {
            bail!("event {seq}: {p}");
        }
        Ok::<_, anyhow::Error>(r)
    };
    let older = |r: &verify::Report| match r.body_only_digests {
        0 => String::new(),
        n => format!(
            " ({n} events hold digests of the older form, which bind their body and command only: their time, \
             actor, visibility and redacted form are bound by the chain alone)"
        ),
    };
    match table.seed_revealed.as_deref().and_then(Seed::from_hex) {
        Some(seed) => {
            let r = full(&seed)?;
            report.push_str(&format!("; seed checked, {} decisions re-derived{}", r.decisions_rederived, older(&r)));
        }
        None => match seed {
            Some(seed) => {
                let r = full(seed)?;
                report.push_str(&format!(
                    "; with the given seed: every event (body, command, time, actor, visibility and redacted form) \
                     matches its digest, {} decisions re-derived{}",
                    r.decisions_rederived,
                    older(&r)
                ));
            }
            None => report.push_str(
                "; seed not revealed yet: event bodies and commands were NOT checked against their digests \
                 and draws were not re-derived (only the chain of public parts and digests was checked; \
                 give --seed HEX to check them)",
            ),
        },
    }
    Ok(report)
}

/// Run `f`; a panic in it (a game's rules meeting an event they never
/// wrote) is answered as an error naming `what()` was being done.
fn guarded<T>(what: impl Fn() -> String, f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no reason given".to_owned());
            bail!(
                "{}: the game's rules cannot apply it to its position ({why}); the file was edited or damaged",
                what()
            )
        }
    }
}

fn export(game: &str, config: Option<&Path>, out: Option<PathBuf>) -> anyhow::Result<()> {
    let settings = Settings::load(config)?;
    let store = crate::store::sled::SledStore::open(&settings.storage.path.join("events")).with_context(|| {
        format!(
            "cannot open the store under {} (is the server running? stop it first)",
            settings.storage.path.display()
        )
    })?;
    use crate::store::EventStore;
    let log = store.load(game, 0, None)?;
    if log.is_empty() {
        bail!("there is no game {game:?} under {}", settings.storage.path.display());
    }
    write_lines(&log, out)
}

/// What `runestone check` found.
pub struct CheckReport {
    /// One line per damaged game or store-wide problem, then a summary.
    pub text: String,
    /// How many problems were found (0: all intact).
    pub damaged: usize,
}

/// Verify a stopped server's data directory: the store opens, the manifest
/// matches the head records, and every game (found by its events, its head
/// record or its private record) loads against its head record, has an
/// intact chain, digests that match its seed, and its private record. The
/// token signing key `jwt.key` must be a valid key, and present unless the
/// configuration gives the key (`key_configured`).
///
/// No byte of the directory changes: sled has no read-only mode (opening
/// runs its recovery and writes a snapshot, the store's recovery applies the
/// journal and starts it again), so the store is copied to a temporary
/// directory (under `TMPDIR`) and the copy is opened and checked; findings
/// name the original's files.
pub fn check(data: &Path, key_configured: bool) -> anyhow::Result<CheckReport> {
    let dir = data.join("events");
    if !dir.join("db").exists() {
        bail!("there is no event store under {} (no events/db file)", data.display());
    }
    if crate::store::sled::in_use(&dir).with_context(|| format!("reading the store under {}", dir.display()))? {
        bail!("the store under {} is in use: stop the server first", data.display())
    }
    let copy = ScratchDir::new().context("making a temporary directory to check a copy of the store in")?;
    let copied = copy.0.join("events");
    copy_tree(&dir, &copied).with_context(|| {
        format!(
            "copying the store under {} to {} to check the copy (the directory checked is never written; \
             TMPDIR names where the copy goes, which needs room for it)",
            dir.display(),
            copy.0.display()
        )
    })?;
    let key_problem = signing_key_problem(data, key_configured);
    let mut report = check_copy(data, &dir, &copied, key_problem)?;
    report.text = report.text.replace(&copied.display().to_string(), &dir.display().to_string());
    Ok(report)
}

/// A directory of this process's own under the system's temporary
/// directory, removed with everything in it when dropped.
struct ScratchDir(PathBuf);

impl ScratchDir {
    fn new() -> std::io::Result<ScratchDir> {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let path = std::env::temp_dir().join(format!("runestone-check-{}-{nanos}", std::process::id()));
        std::fs::create_dir(&path)?;
        Ok(ScratchDir(path))
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Copy the directory `from` (its files and directories) to `to`.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// [`check`] on `copied`, a copy of the store `dir` of the data directory
/// `data`, after what is wrong with its signing key, if anything.
fn check_copy(data: &Path, dir: &Path, copied: &Path, key_problem: Option<String>) -> anyhow::Result<CheckReport> {
    use crate::store::{EventStore, Side};
    let mut text = String::new();
    let mut damaged = 0;
    if let Some(p) = key_problem {
        text.push_str(&format!("DAMAGED signing key: {p}\n"));
        damaged += 1;
    }
    // Set aside by the open (of the copy) and by a start: named here.
    for snap in crate::store::sled::damaged_snapshots(dir).map_err(|e| anyhow!("{e}"))? {
        text.push_str(&format!(
            "DAMAGED cache: sled's snapshot file {} fails its checksum; it is a cache of sled's page table: the \
             server sets it aside at its next start and sled rebuilds it from its log\n",
            snap.display()
        ));
        damaged += 1;
    }
    let store = match crate::store::sled::SledStore::open_unchecked(copied) {
        Ok(s) => s,
        Err(e) => {
            text.push_str(&format!("DAMAGED store: {e}\n"));
            return Ok(CheckReport { text, damaged: damaged + 1 });
        }
    };
    for p in store.manifest_problems(copied) {
        text.push_str(&format!("DAMAGED store: {p}\n"));
        damaged += 1;
    }
    let mut games = std::collections::BTreeSet::new();
    let mut listing = |what: &str, r: Result<Vec<String>, crate::store::StoreError>| match r {
        Ok(ids) => games.extend(ids),
        Err(e) => {
            text.push_str(&format!("DAMAGED store: listing {what}: {e}\n"));
            damaged += 1;
        }
    };
    listing("logs", store.games(None, usize::MAX));
    listing("head records", store.head_record_games());
    listing(
        "game records",
        store
            .scan(Side::Games, b"", usize::MAX)
            .map(|v| v.into_iter().map(|(k, _)| String::from_utf8_lossy(&k).into_owned()).collect()),
    );
    for game in &games {
        if let Err(problem) = check_game(&store, game) {
            text.push_str(&format!("DAMAGED game {game}: {problem}\n"));
            damaged += 1;
        }
    }
    text.push_str(&format!("checked {} games under {}: {damaged} damage found\n", games.len(), data.display()));
    Ok(CheckReport { text, damaged })
}

/// What is wrong with the data directory's token signing key, if anything.
fn signing_key_problem(data: &Path, key_configured: bool) -> Option<String> {
    let path = data.join("jwt.key");
    match std::fs::read(&path) {
        Ok(bytes) => crate::auth::key_of_file(&bytes).err().map(|p| crate::auth::bad_key_file(&path, &p)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && key_configured => None,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(format!(
            "{} is missing and the configuration gives no auth.jwt_secret: the server will not start on this \
             directory. Restore jwt.key from a backup, or start with `runestone serve --new-signing-key`, which \
             revokes every token and every link already sent",
            path.display()
        )),
        Err(e) => Some(format!("{} cannot be read: {e}", path.display())),
    }
}

fn check_game(store: &crate::store::sled::SledStore, game: &str) -> Result<(), String> {
    use crate::store::{EventStore, Side};
    let log = store.load(game, 0, None).map_err(|e| e.to_string())?;
    if log.is_empty() {
        return Err("it has a private record but no log".into());
    }
    check_chain(&log).map_err(|e| format!("the chain breaks at seq {}: {}", e.seq, e.problem))?;
    let record = store
        .get(Side::Games, game.as_bytes())
        .map_err(|e| e.to_string())?
        .ok_or("its private record (seed, contacts) is missing")?;
    let record: serde_json::Value =
        serde_json::from_slice(&record).map_err(|_| "its private record is unreadable".to_string())?;
    let seed = record
        .get("seed")
        .and_then(|s| s.as_str())
        .and_then(Seed::from_hex)
        .ok_or("its private record holds no readable seed")?;
    runestone_engine::log::check_digests(&log, &seed).map(|_| ()).map_err(|e| format!("seq {}: {}", e.seq, e.problem))
}

/// A whole game played by the rules' own fallback (the bot) for every seat.
/// Deterministic: the same arguments give the same log, byte for byte.
pub fn simulate(
    registry: &Registry,
    ruleset: &str,
    players: u8,
    seed_text: &str,
    options: &serde_json::Value,
) -> anyhow::Result<Vec<Envelope>> {
    simulate_with(registry, ruleset, players, seed_text, options, false, None)
}

/// What bot games cost in waiting, summed over games.
#[derive(Debug, Default)]
pub struct SimStats {
    pub games: u32,
    /// Rounds played (by the rules' round events; a game without rounds counts one).
    pub rounds: u64,
    /// Commands decided for seats.
    pub inputs: u64,
    /// Sequential waits: a wait begins when the game waits on a seat that
    /// already answered in the current wait; all seats asked at once (a
    /// secret plan) answer in one wait.
    pub waits: u64,
    /// Programmed steps: taken as given, fell back (an alternative, left
    /// out or the turn ended there), stopped to ask.
    pub steps_ran: u64,
    pub steps_fell_back: u64,
    pub steps_asked: u64,
}

impl SimStats {
    /// The figures in words, per round.
    pub fn report(&self, players: u8) -> String {
        let r = self.rounds.max(1) as f64;
        format!(
            "{} games of {players} seats, {} rounds\n\
             inputs per seat per round: {:.2}\n\
             sequential waits per round: {:.2}\n\
             programmed steps per round: {:.2} ran, {:.2} fell back, {:.2} asked",
            self.games,
            self.rounds,
            self.inputs as f64 / r / f64::from(players.max(1)),
            self.waits as f64 / r,
            self.steps_ran as f64 / r,
            self.steps_fell_back as f64 / r,
            self.steps_asked as f64 / r,
        )
    }

    /// Count one event: rounds, and what programmed steps did (events
    /// carrying a step `outcome`, as a game's program step does).
    fn event(&mut self, table: &Table, env: &Envelope) {
        let runestone_engine::Body::Game { v, event } = &env.body else { return };
        if table.game().round_begun(*v, event).is_some() {
            self.rounds += 1;
        }
        // A game names its step event "ProgramStep" or, with snake_case tags, "program_step".
        let text = event.as_str();
        if !text.contains(r#""ProgramStep""#) && !text.contains(r#""program_step""#) {
            return;
        }
        let event = event.value();
        if matches!(event.get("type").and_then(|t| t.as_str()), Some("ProgramStep" | "program_step")) {
            match event.get("outcome").and_then(|o| o.as_str()) {
                Some("done") => self.steps_ran += 1,
                Some("asked") => self.steps_asked += 1,
                Some(_) => self.steps_fell_back += 1,
                None => {}
            }
        }
    }
}

/// [`simulate`], optionally with bots that plan without programs and
/// counting into `stats`.
pub fn simulate_with(
    registry: &Registry,
    ruleset: &str,
    players: u8,
    seed_text: &str,
    options: &serde_json::Value,
    without_programs: bool,
    mut stats: Option<&mut SimStats>,
) -> anyhow::Result<Vec<Envelope>> {
    let game = registry.get(ruleset).ok_or_else(|| {
        anyhow!("unknown ruleset {ruleset:?}; offered: {}", registry.ids().collect::<Vec<_>>().join(", "))
    })?;
    let seed = Seed(Sha256::digest(format!("runestone/simulate/{seed_text}")).into());
    let game_id: String = {
        let h = hex::encode(Sha256::digest(format!("runestone/simulate-id/{ruleset}/{players}/{seed_text}")));
        format!("sim{}", &h[..13])
    };
    let start: DateTime<Utc> = "2026-01-01T12:00:00Z".parse().expect("time");
    let names = (0..players).map(|i| format!("Bot {}", i + 1)).collect();
    let drafts = Table::create(game.as_ref(), options, names, &seed, None).map_err(|e| anyhow!("{e}"))?;
    let mut log = seal(&game_id, None, drafts, &stamp(start), &seed);
    let mut table = Table::fold(registry, &log)?;
    if let Some(st) = stats.as_deref_mut() {
        st.games += 1;
        for e in &log {
            st.event(&table, e);
        }
    }
    let rounds_before = stats.as_deref().map_or(0, |s| s.rounds);
    // The seats still to answer in the current wait.
    let mut open: Vec<u8> = Vec::new();
    let mut step = 0i64;
    while !table.is_over() {
        step += 1;
        if step > 200_000 {
            bail!("no end after {step} decisions: the bots are stuck in a loop");
        }
        let pending = table.pending();
        // Secret choices already given may be changed but need not be.
        let Some(p) = pending.iter().find(|p| !p.submitted) else {
            bail!("nobody has a decision to take at event {} but the game is not over", table.head)
        };
        let mut cmd =
            table.fallback(p.seat).ok_or_else(|| anyhow!("seat {} has no fallback at event {}", p.seat, table.head))?;
        if without_programs && cmd.get("type").and_then(|t| t.as_str()) == Some("Program") {
            // The same plan, sent without its program: the turn is asked.
            cmd = serde_json::json!({"type": "Plan", "hand": cmd["hand"].clone()});
        }
        if let Some(st) = stats.as_deref_mut() {
            st.inputs += 1;
            if let Some(i) = open.iter().position(|s| *s == p.seat) {
                open.remove(i);
            } else {
                st.waits += 1;
                open = pending.iter().filter(|q| !q.submitted && q.seat != p.seat).map(|q| q.seat).collect();
            }
        }
        let drafts = table
            .decide(Actor::Seat(p.seat), p.seat, &cmd, None, &seed)
            .map_err(|e| anyhow!("the bot's command {cmd} was refused at event {}: {e}", table.head))?;
        let time = stamp(start + Duration::minutes(step));
        let envs = seal(&game_id, Some((table.head, &table.head_hash)), drafts, &time, &seed);
        for e in &envs {
            table.push(e)?;
            if let Some(st) = stats.as_deref_mut() {
                st.event(&table, e);
            }
        }
        log.extend(envs);
    }
    if let Some(st) = stats {
        if st.rounds == rounds_before {
            st.rounds += 1;
        }
    }
    Ok(log)
}
