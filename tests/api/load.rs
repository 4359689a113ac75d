//! One node under 2,000 open event streams and 3,000 idle connections
//! (loopback only): `/healthz` and submits keep answering. Every request
//! measured must be answered with success before a generous hang-guard; the
//! latencies are printed (p50, p99, max), never asserted on.

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::helpers::{agent, seat_tokens, str_of};
use crate::process::{call, serve};

const STREAMS: usize = 2_000;
const IDLE: usize = 3_000;
const GAMES: usize = 20;
/// How long requests are measured under the load.
const WINDOW: Duration = Duration::from_secs(12);
/// A hang-guard only.
const HANG: Duration = Duration::from_secs(60);

/// The `i`-th address of the loopback block `127.block.0.0/16`.
fn address(block: u8, i: usize) -> IpAddr {
    IpAddr::from([127, block, (i / 250) as u8, (i % 250) as u8 + 1])
}

async fn connect(from: IpAddr, to: SocketAddr) -> std::io::Result<tokio::net::TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(from, 0))?;
    socket.connect(to).await
}

/// Open a public stream of `game` from `from`; then count its frames into
/// `frames` until `stop`. `Err` if it was refused or ended early.
async fn follow(
    from: IpAddr,
    to: SocketAddr,
    game: String,
    opened: Arc<AtomicUsize>,
    frames: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) -> Result<(), String> {
    let mut s = connect(from, to).await.map_err(|e| format!("connect: {e}"))?;
    s.write_all(format!("GET /api/v1/games/{game}/stream HTTP/1.1\r\nHost: runestone.test\r\n\r\n").as_bytes())
        .await
        .map_err(|e| format!("send: {e}"))?;
    let mut reader = BufReader::new(s);
    let mut status = String::new();
    tokio::time::timeout(HANG, reader.read_line(&mut status))
        .await
        .map_err(|_| "no answer to a stream".to_string())?
        .map_err(|e| format!("read: {e}"))?;
    if !status.starts_with("HTTP/1.1 200") {
        return Err(format!("a stream was answered {status:?}"));
    }
    opened.fetch_add(1, Ordering::Relaxed);
    let mut line = String::new();
    loop {
        line.clear();
        tokio::select! {
            n = reader.read_line(&mut line) => match n {
                Ok(0) | Err(_) if stop.load(Ordering::Relaxed) => return Ok(()),
                Ok(0) => return Err("a stream ended before the test did".into()),
                Err(e) => return Err(format!("a stream failed: {e}")),
                Ok(_) if line.starts_with("event: event") => { frames.fetch_add(1, Ordering::Relaxed); }
                Ok(_) => {}
            },
            _ = tokio::time::sleep(Duration::from_millis(200)) => {
                if stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
            }
        }
    }
}

/// Keep one idle connection from `from` open until `stop`: every other one
/// after one `/healthz` (idle in keep-alive), the rest having sent nothing.
/// The server closes an idle connection after its timeouts; it is opened
/// again at once. Counts the connections opened into `opened`.
async fn idle(from: IpAddr, to: SocketAddr, after_request: bool, opened: Arc<AtomicUsize>, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        let Ok(mut s) = connect(from, to).await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        opened.fetch_add(1, Ordering::Relaxed);
        if after_request && s.write_all(b"GET /healthz HTTP/1.1\r\nHost: runestone.test\r\n\r\n").await.is_err() {
            continue;
        }
        let mut sink = [0u8; 1024];
        loop {
            tokio::select! {
                n = s.read(&mut sink) => if !matches!(n, Ok(n) if n > 0) { break },
                _ = tokio::time::sleep(Duration::from_millis(200)) => if stop.load(Ordering::Relaxed) { return },
            }
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

fn summary(name: &str, mut times: Vec<Duration>) -> String {
    times.sort();
    format!(
        "{name}: {} answered, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        times.len(),
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3,
        times.last().unwrap().as_secs_f64() * 1e3
    )
}

#[test]
fn a_node_under_2000_streams_and_3000_idle_connections_keeps_answering() {
    // This process holds one end of every connection, the server the other.
    let (_, soft, hard) = runestone::http::limits::raise_open_files().expect("the open-file limit");
    let needed = (STREAMS + IDLE + 1_000) as u64;
    assert!(
        soft >= needed,
        "this test needs {needed} open files and may have {soft} (hard limit {hard}): raise the hard limit \
         (ulimit -Hn) to run it"
    );
    let dir = tempfile::tempdir().unwrap();
    let (mut child, base) = serve(dir.path(), &[]);
    let to: SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let a = agent();
    let mut games = Vec::new();
    for _ in 0..GAMES {
        let seats: Vec<Value> = (0..4).map(|i| json!({ "name": format!("P{i}") })).collect();
        let (s, created) = call(
            &a,
            "POST",
            &format!("{base}/api/v1/games"),
            None,
            Some(&json!({"ruleset": "bardagi", "seats": seats})),
        )
        .unwrap();
        assert_eq!(s, 201, "{created}");
        games.push((str_of(&created, "game_id").to_owned(), seat_tokens(&created)));
    }

    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let (opened, frames, idle_opened) =
        (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    // 16 streams from each client address: the default share of one client.
    let mut streams: Vec<_> = (0..STREAMS)
        .map(|i| {
            let game = games[i % GAMES].0.clone();
            rt.spawn(follow(address(1, i / 16), to, game, opened.clone(), frames.clone(), stop.clone()))
        })
        .collect();
    let deadline = Instant::now() + HANG;
    while opened.load(Ordering::Relaxed) < STREAMS {
        if let Some(i) = streams.iter().position(|t| t.is_finished()) {
            let done = rt.block_on(streams.swap_remove(i));
            panic!("a stream did not open: {done:?}");
        }
        assert!(Instant::now() < deadline, "only {} of {STREAMS} streams opened", opened.load(Ordering::Relaxed));
        std::thread::sleep(Duration::from_millis(50));
    }
    let idlers: Vec<_> =
        (0..IDLE).map(|i| rt.spawn(idle(address(2, i), to, i % 2 == 1, idle_opened.clone(), stop.clone()))).collect();
    while idle_opened.load(Ordering::Relaxed) < IDLE {
        assert!(
            Instant::now() < deadline,
            "only {} of {IDLE} idle connections opened",
            idle_opened.load(Ordering::Relaxed)
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // Measured: two clients asking /healthz, two submitting standing orders
    // (each an appended event, told to the game's 100 streams), each
    // request on a fresh agent's pooled connection, for the window.
    let start = Instant::now();
    let measure = |kind: &'static str, k: usize| {
        let base = base.clone();
        let games = games.clone();
        std::thread::spawn(move || {
            let a = agent();
            let mut times = Vec::new();
            let mut i = k;
            while start.elapsed() < WINDOW || times.len() < 20 {
                let t = Instant::now();
                let (s, v) = match kind {
                    "healthz" => call(&a, "GET", &format!("{base}/healthz"), None, None),
                    _ => {
                        let (game, tokens) = &games[i % GAMES];
                        let orders =
                            json!({"command": {"type": "SetOrders", "orders": {"buy_axes": i.is_multiple_of(2)}}});
                        call(
                            &a,
                            "POST",
                            &format!("{base}/api/v1/games/{game}/commands"),
                            Some(&tokens[i % 4]),
                            Some(&orders),
                        )
                    }
                }
                .unwrap_or_else(|e| panic!("{kind} {} had no answer: {e}", times.len()));
                let took = t.elapsed();
                assert_eq!(s, 200, "{kind} answered {s}: {v}");
                assert!(took < HANG, "{kind} took {took:?}");
                if kind == "healthz" {
                    assert_eq!(v["status"], "ok", "{v}");
                }
                times.push(took);
                i += 2;
            }
            times
        })
    };
    let measured: Vec<_> = [("healthz", 0), ("healthz", 1), ("submits", 0), ("submits", 1)]
        .into_iter()
        .map(|(kind, k)| (kind, measure(kind, k)))
        .collect();
    let (mut health, mut submits) = (Vec::new(), Vec::new());
    for (kind, t) in measured {
        let times = t.join().expect("a measuring client");
        if kind == "healthz" {
            health.extend(times)
        } else {
            submits.extend(times)
        }
    }
    let events = frames.load(Ordering::Relaxed);
    let reopened = idle_opened.load(Ordering::Relaxed) - IDLE;
    stop.store(true, Ordering::Relaxed);
    for t in streams {
        let r = rt.block_on(async { tokio::time::timeout(HANG, t).await }).expect("a stream stops").expect("a task");
        r.unwrap_or_else(|e| panic!("{e}"));
    }
    for t in idlers {
        rt.block_on(async { tokio::time::timeout(HANG, t).await }).expect("an idle connection stops").expect("a task");
    }
    println!(
        "one node, {STREAMS} open streams, {IDLE} idle connections ({reopened} opened again after the server closed \
         them), {:.0} s: {}; {}; {events} event frames streamed",
        start.elapsed().as_secs_f64(),
        summary("/healthz", health),
        summary("submits", submits),
    );
    assert!(events > 0, "the streams received the submits' events");
    child.kill().ok();
    child.wait().ok();
}
