//! Open-loop load at a fixed rate (DESIGN.md §7), run by `scripts/load.sh`
//! against a running release server.
//!
//! Requests are due at fixed instants (`rate` per second, whatever the server
//! does), and each one's latency is measured from the instant it was due,
//! not from when a connection became free to send it: a server that falls
//! behind shows its queue in the figures instead of slowing the load down
//! (the closed-loop way hides exactly that). A pool of keep-alive
//! connections, each on its own thread, takes the due requests in order.
//!
//! Usage: `load PORT[,PORT...]` runs, at each rate of `RATES` (default "2000"), first
//! `GET /healthz` (the reference) and then durable submits (standing orders
//! of 120 four-seat Bardagi games, each an appended and flushed event), for
//! `LOAD_SECONDS` each (default 10), and prints p50, p99 and max per phase.
//! With several ports (nodes of one database), the games are created through
//! the first and the connections are spread over all of them; a submit that
//! meets another node's append first is answered 409 and counted as not 200.
//!
//! With `MAIL_SINK_PORT` set (`MAIL=1 scripts/load.sh`, the server sending
//! mail over SMTP to that port), each rate gets a third phase, the submits
//! again while the outbox worker is sending: this tool listens on the port as
//! an SMTP sink (it accepts every message and discards it), creates
//! `MAIL_GAMES` more games (default 2,000) whose four seats have an address,
//! so their invitations queue a backlog of mail, while the sink holds back
//! its greeting (at most 15 s, under the server's 20 s SMTP timeout), then
//! lets the mail flow as that phase starts. It prints the messages the sink
//! took during the phase and the outbox depth left at its end (a depth above
//! 0 means the worker was sending throughout).
//!
//! With `TOUCH_GAMES=N` (`scripts/rss.sh`) it sends no timed load: it
//! creates N four-seat Bardagi games over 16 connections, plays
//! `TOUCH_MOVES` commands in each (default 16, standing orders of every seat
//! in turn, each an appended event), then plays `TOUCH_PLAYED` of them
//! (default 0) through `TOUCH_ROUNDS` rounds (default 2) as the bot would
//! (each owing seat sends its first legal command, or the plan with a turn
//! program when offered), views each game as its first seat, and says how
//! long that took and how many events the games hold; the script then reads
//! the server's memory.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const GAMES: usize = 120;
const CONNECTIONS: usize = 64;

struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    fn open(port: u16) -> Conn {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to the server");
        stream.set_nodelay(true).expect("nodelay");
        Conn { reader: BufReader::new(stream.try_clone().expect("clone the stream")), writer: stream }
    }

    /// Send one request and read its whole answer: (status, body).
    fn request(&mut self, method: &str, path: &str, token: Option<&str>, body: &str) -> (u16, Vec<u8>) {
        let auth = token.map(|t| format!("authorization: Bearer {t}\r\n")).unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\n{auth}content-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        self.writer.write_all(head.as_bytes()).and_then(|()| self.writer.write_all(body.as_bytes())).expect("send");
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("read the status line");
        let status: u16 = line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("a status code");
        let mut length = 0usize;
        loop {
            line.clear();
            self.reader.read_line(&mut line).expect("read a header");
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((name, value)) = l.split_once(':') {
                let name = name.to_ascii_lowercase();
                if name == "content-length" {
                    length = value.trim().parse().expect("a content length");
                }
                assert!(name != "transfer-encoding", "chunked answers are not read by this load tool");
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).expect("read the body");
        (status, body)
    }
}

/// One game's seats: (game id, seat tokens).
fn create_games(port: u16) -> Vec<(String, String)> {
    let body = r#"{"ruleset":"bardagi","seats":[{"name":"P0"},{"name":"P1"},{"name":"P2"},{"name":"P3"}]}"#;
    create(port, GAMES, body)
}

/// Create `n` games from `body`; their seats: (game id, seat token).
fn create(port: u16, n: usize, body: &str) -> Vec<(String, String)> {
    let mut conn = Conn::open(port);
    let mut targets = Vec::new();
    for _ in 0..n {
        let (status, answer) = conn.request("POST", "/api/v1/games", None, body);
        assert!(
            status == 200 || status == 201,
            "creating a game answered {status}: {}",
            String::from_utf8_lossy(&answer)
        );
        let created: serde_json::Value = serde_json::from_slice(&answer).expect("JSON");
        let id = created["game_id"].as_str().expect("game_id").to_owned();
        for seat in created["seats"].as_array().expect("seats") {
            targets.push((id.clone(), seat["token"].as_str().expect("token").to_owned()));
        }
    }
    targets
}

#[derive(Clone, Copy)]
enum Phase {
    Health,
    Submit,
}

/// Run one phase at `rate` per second for `seconds`; latencies in µs, and
/// how many answers were not 200.
fn run(
    ports: &[u16],
    phase: Phase,
    rate: u64,
    seconds: u64,
    targets: &Arc<Vec<(String, String)>>,
) -> (Vec<u64>, usize) {
    let total = rate * seconds;
    let (tx, rx) = mpsc::channel::<(u64, Instant)>();
    let rx = Arc::new(Mutex::new(rx));
    let (done_tx, done_rx) = mpsc::channel::<(u64, bool)>();
    let workers: Vec<_> = (0..CONNECTIONS)
        .map(|c| {
            let (rx, done_tx, targets) = (rx.clone(), done_tx.clone(), targets.clone());
            let port = ports[c % ports.len()];
            std::thread::spawn(move || {
                let mut conn = Conn::open(port);
                loop {
                    let job = rx.lock().expect("queue").recv();
                    let Ok((i, due)) = job else { break };
                    let (status, _) = match phase {
                        Phase::Health => conn.request("GET", "/healthz", None, ""),
                        Phase::Submit => {
                            let (game, token) = &targets[i as usize % targets.len()];
                            let cmd = r#"{"command":{"type":"SetOrders","orders":{"buy_axes":true}}}"#;
                            conn.request("POST", &format!("/api/v1/games/{game}/commands"), Some(token), cmd)
                        }
                    };
                    let us = due.elapsed().as_micros() as u64;
                    let _ = done_tx.send((us, status == 200));
                }
            })
        })
        .collect();
    drop(done_tx);
    let start = Instant::now();
    for i in 0..total {
        let due = start + Duration::from_nanos(i * 1_000_000_000 / rate);
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        tx.send((i, due)).expect("workers");
    }
    drop(tx);
    let mut lat = Vec::with_capacity(total as usize);
    let mut failed = 0;
    for (us, ok) in done_rx {
        lat.push(us);
        failed += usize::from(!ok);
    }
    for w in workers {
        w.join().expect("worker");
    }
    lat.sort_unstable();
    (lat, failed)
}

/// An SMTP sink: accepts every message and discards it, counting them. While
/// `hold` is set (and for at most 15 s) a new connection gets no greeting.
struct Sink {
    hold: Arc<AtomicBool>,
    taken: Arc<AtomicU64>,
}

impl Sink {
    fn listen(port: u16) -> Sink {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("listen for SMTP on MAIL_SINK_PORT");
        let (hold, taken) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicU64::new(0)));
        let (h, t) = (hold.clone(), taken.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (hold, taken) = (h.clone(), t.clone());
                std::thread::spawn(move || {
                    let since = Instant::now();
                    while hold.load(Ordering::SeqCst) && since.elapsed() < Duration::from_secs(15) {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    let _ = Sink::session(stream, &taken);
                });
            }
        });
        Sink { hold, taken }
    }

    /// One SMTP session, answered just enough for a client to deliver.
    fn session(stream: TcpStream, taken: &AtomicU64) -> std::io::Result<()> {
        let mut reader = BufReader::new(stream.try_clone()?);
        let mut out = stream;
        out.write_all(b"220 sink ESMTP\r\n")?;
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line)? == 0 {
                return Ok(());
            }
            let verb = line.get(..4).unwrap_or("").to_ascii_uppercase();
            match verb.as_str() {
                "EHLO" => out.write_all(b"250-sink\r\n250 8BITMIME\r\n")?,
                "DATA" => {
                    out.write_all(b"354 go on\r\n")?;
                    loop {
                        line.clear();
                        if reader.read_line(&mut line)? == 0 {
                            return Ok(());
                        }
                        if line == ".\r\n" || line == ".\n" {
                            break;
                        }
                    }
                    taken.fetch_add(1, Ordering::Relaxed);
                    out.write_all(b"250 taken\r\n")?;
                }
                "QUIT" => return out.write_all(b"221 bye\r\n"),
                _ => out.write_all(b"250 ok\r\n")?,
            }
        }
    }
}

/// The server's `runestone_outbox_depth`.
fn outbox_depth(port: u16) -> u64 {
    let (_, body) = Conn::open(port).request("GET", "/metrics", None, "");
    let text = String::from_utf8_lossy(&body);
    text.lines()
        .find_map(|l| l.strip_prefix("runestone_outbox_depth ").and_then(|v| v.trim().parse().ok()))
        .expect("runestone_outbox_depth in /metrics")
}

/// Create `games` games over 16 connections, play `moves` commands in each,
/// then view each one.
fn touch(port: u16, games: usize, moves: usize, played: usize, rounds: u64) {
    let start = Instant::now();
    let per = games.div_ceil(16);
    let played_per = played.div_ceil(16);
    let events = Arc::new(AtomicU64::new(0));
    let body = r#"{"ruleset":"bardagi","seats":[{"name":"P0"},{"name":"P1"},{"name":"P2"},{"name":"P3"}]}"#;
    let workers: Vec<_> = (0..16)
        .map(|_| {
            let events = events.clone();
            std::thread::spawn(move || {
                let seats = create(port, per, body);
                let mut conn = Conn::open(port);
                for m in 0..moves {
                    for game in seats.chunks(4) {
                        let (id, token) = &game[m % game.len()];
                        let cmd =
                            format!(r#"{{"command":{{"type":"SetOrders","orders":{{"buy_axes":{}}}}}}}"#, m % 2 == 0);
                        let (status, answer) =
                            conn.request("POST", &format!("/api/v1/games/{id}/commands"), Some(token), &cmd);
                        assert_eq!(status, 200, "a command answered {status}: {}", String::from_utf8_lossy(&answer));
                    }
                }
                for game in seats.chunks(4).take(played_per) {
                    play_rounds(&mut conn, game, rounds);
                }
                for game in seats.chunks(4) {
                    let (id, token) = &game[0];
                    let (status, answer) = conn.request("GET", &format!("/api/v1/games/{id}/view"), Some(token), "");
                    assert_eq!(status, 200, "a view answered {status}");
                    let view: serde_json::Value = serde_json::from_slice(&answer).expect("a view is JSON");
                    events.fetch_add(view["head"].as_u64().expect("head") + 1, Ordering::Relaxed);
                }
                seats.len() / 4
            })
        })
        .collect();
    let made: usize = workers.into_iter().map(|w| w.join().expect("worker")).sum();
    println!(
        "touched {made} games ({moves} commands each, {} of them then played through {rounds} rounds, then a view): \
         {} events in all, in {:.1} s",
        (played_per * 16).min(made),
        events.load(Ordering::Relaxed),
        start.elapsed().as_secs_f64()
    );
}

/// Play a game (its seats: (game id, seat token)) until round `rounds` is
/// over: each seat owing a decision sends what its view offers first (the
/// bot's command), or the plan with a turn program when one is offered, so
/// that the round's turns play themselves out.
fn play_rounds(conn: &mut Conn, game: &[(String, String)], rounds: u64) {
    let id = &game[0].0;
    let view_as = |conn: &mut Conn, token: &str| -> serde_json::Value {
        let (status, answer) = conn.request("GET", &format!("/api/v1/games/{id}/view"), Some(token), "");
        assert_eq!(status, 200, "a view answered {status}");
        serde_json::from_slice(&answer).expect("a view is JSON")
    };
    for _ in 0..10_000 {
        let v = view_as(conn, &game[0].1);
        if v["over"] == true || v["view"]["round"].as_u64().unwrap_or(0) > rounds {
            return;
        }
        let Some(seat) = v["pending"].as_array().and_then(|p| p.first()).and_then(|p| p["seat"].as_u64()) else {
            return;
        };
        let token = &game[seat as usize].1;
        let mine = view_as(conn, token);
        let legal = mine["legal"].as_array().expect("legal");
        let command = legal.iter().find(|c| c["type"] == "Program").or(legal.first()).expect("a legal command");
        let body = serde_json::json!({ "command": command, "expected_seq": mine["seq"] }).to_string();
        let (status, answer) = conn.request("POST", &format!("/api/v1/games/{id}/commands"), Some(token), &body);
        assert_eq!(status, 200, "a command answered {status}: {}", String::from_utf8_lossy(&answer));
    }
}

fn pct(sorted: &[u64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i] as f64 / 1000.0
}

fn main() {
    // `cargo bench` adds `--bench`; the port is the first other argument.
    let ports: Vec<u16> = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .and_then(|a| a.split(',').map(|p| p.trim().parse().ok()).collect())
        .expect("usage: load PORT[,PORT...] (the ports of running runestone servers on 127.0.0.1)");
    if let Some(games) = std::env::var("TOUCH_GAMES").ok().and_then(|s| s.parse().ok()) {
        let number =
            |name: &str, default: u64| std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default);
        let moves = number("TOUCH_MOVES", 16) as usize;
        touch(ports[0], games, moves, number("TOUCH_PLAYED", 0) as usize, number("TOUCH_ROUNDS", 2));
        return;
    }
    let seconds: u64 = std::env::var("LOAD_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let rates: Vec<u64> = std::env::var("RATES")
        .unwrap_or_else(|_| "2000".into())
        .split(',')
        .map(|r| r.trim().parse().expect("RATES: numbers separated by commas"))
        .collect();
    let sink = std::env::var("MAIL_SINK_PORT").ok().map(|p| Sink::listen(p.parse().expect("MAIL_SINK_PORT: a port")));
    let mail_games: usize = std::env::var("MAIL_GAMES").ok().and_then(|s| s.parse().ok()).unwrap_or(2000);
    let targets = Arc::new(create_games(ports[0]));
    println!(
        "{GAMES} games, {} seats; open loop over {CONNECTIONS} connections to {} node(s), {seconds} s per phase",
        targets.len(),
        ports.len()
    );
    println!(
        "{:<8} {:>7} {:>9} {:>9} {:>9} {:>9} {:>7}",
        "phase", "rate/s", "done/s", "p50 ms", "p99 ms", "max ms", "not 200"
    );
    let mut backlogs = 0;
    for rate in rates {
        let mut phases = vec![("healthz", Phase::Health), ("submit", Phase::Submit)];
        if sink.is_some() {
            phases.push(("+mail", Phase::Submit));
        }
        for (name, phase) in phases {
            let mut taken_before = 0;
            if let (Some(sink), "+mail") = (&sink, name) {
                sink.hold.store(true, Ordering::SeqCst);
                let held = Instant::now();
                let body = format!(
                    r#"{{"ruleset":"bardagi","seats":[{}]}}"#,
                    (0..4)
                        .map(|s| format!(r#"{{"name":"P{s}","email":"load{backlogs}-{s}@example.com"}}"#))
                        .collect::<Vec<_>>()
                        .join(",")
                );
                backlogs += 1;
                let per = mail_games.div_ceil(16);
                let creators: Vec<_> = (0..16)
                    .map(|_| {
                        let (port, body) = (ports[0], body.clone());
                        std::thread::spawn(move || create(port, per, &body).len())
                    })
                    .collect();
                let seats: usize = creators.into_iter().map(|c| c.join().expect("creator")).sum();
                println!(
                    "(backlog: {} games, {seats} invitations queued in {:.1} s; outbox depth {})",
                    per * 16,
                    held.elapsed().as_secs_f64(),
                    outbox_depth(ports[0])
                );
                taken_before = sink.taken.load(Ordering::Relaxed);
                sink.hold.store(false, Ordering::SeqCst);
            }
            let start = Instant::now();
            let (lat, failed) = run(&ports, phase, rate, seconds, &targets);
            let took = start.elapsed().as_secs_f64();
            println!(
                "{name:<8} {rate:>7} {:>9.0} {:>9.2} {:>9.2} {:>9.2} {failed:>7}",
                lat.len() as f64 / took,
                pct(&lat, 0.5),
                pct(&lat, 0.99),
                pct(&lat, 1.0)
            );
            if let (Some(sink), "+mail") = (&sink, name) {
                let sent = sink.taken.load(Ordering::Relaxed) - taken_before;
                println!(
                    "(mail: {sent} messages taken by the sink during the phase, {:.0}/s; outbox depth at its end {})",
                    sent as f64 / took,
                    outbox_depth(ports[0])
                );
            }
        }
    }
}
