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

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
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
    let mut conn = Conn::open(port);
    let body = r#"{"ruleset":"bardagi","seats":[{"name":"P0"},{"name":"P1"},{"name":"P2"},{"name":"P3"}]}"#;
    let mut targets = Vec::new();
    for _ in 0..GAMES {
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
    let seconds: u64 = std::env::var("LOAD_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let rates: Vec<u64> = std::env::var("RATES")
        .unwrap_or_else(|_| "2000".into())
        .split(',')
        .map(|r| r.trim().parse().expect("RATES: numbers separated by commas"))
        .collect();
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
    for rate in rates {
        for (name, phase) in [("healthz", Phase::Health), ("submit", Phase::Submit)] {
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
        }
    }
}
