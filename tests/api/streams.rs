//! Open event streams are bounded per client and in total, and keep
//! descriptors for requests: one client opening streams by the thousand
//! cannot make `/healthz`, summaries and creations wait.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::{agent, seat_tokens, str_of, TestApp};
use crate::process::call;

/// A hang-guard only: no answer in this long is a hang.
const HANG: Duration = Duration::from_secs(60);

/// A connection to `base` (`http://127.0.0.1:PORT`) from the loopback
/// address `from` (any of 127.0.0.0/8), so one test plays many clients.
pub fn connect_from(from: IpAddr, base: &str) -> TcpStream {
    let to: SocketAddr = base.trim_start_matches("http://").parse().expect("a socket address");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let stream = rt
        .block_on(async {
            let socket = tokio::net::TcpSocket::new_v4()?;
            socket.bind(SocketAddr::new(from, 0))?;
            socket.connect(to).await?.into_std()
        })
        .unwrap_or_else(|e| panic!("connect from {from}: {e}"));
    stream.set_nonblocking(false).expect("blocking");
    stream.set_read_timeout(Some(HANG)).expect("timeout");
    stream
}

/// An answer read off a raw connection: status, head and, for answers that
/// are not streams, the body; the reader stays open for a stream's frames.
pub struct Opened {
    pub status: u16,
    pub head: String,
    pub body: Value,
    pub reader: BufReader<TcpStream>,
}

impl Opened {
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
        })
    }

    /// The next `data:` line of the stream.
    pub fn next_data(&mut self) -> Value {
        loop {
            let mut line = String::new();
            let n = self.reader.read_line(&mut line).expect("a frame before the hang-guard");
            assert!(n > 0, "the stream ended");
            if let Some(data) = line.trim_end().strip_prefix("data: ") {
                return serde_json::from_str(data).expect("JSON data");
            }
        }
    }
}

/// `GET path` from the loopback address `from`, over a connection of its
/// own that stays open.
pub fn open_from(from: IpAddr, base: &str, path: &str) -> Opened {
    let mut s = connect_from(from, base);
    write!(s, "GET {path} HTTP/1.1\r\nHost: runestone.test\r\nAccept: text/event-stream\r\n\r\n").expect("send");
    let mut reader = BufReader::new(s);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        let n = reader.read_line(&mut line).unwrap_or_else(|e| panic!("GET {path} from {from}: no answer: {e}"));
        assert!(n > 0, "GET {path} from {from}: the connection closed without an answer");
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status line");
    let mut opened = Opened { status, head, body: Value::Null, reader };
    if status != 200 {
        let len: usize = opened.header("content-length").and_then(|l| l.parse().ok()).expect("a length");
        let mut body = vec![0; len];
        opened.reader.read_exact(&mut body).expect("the body");
        opened.body = serde_json::from_slice(&body).expect("a JSON body");
    }
    opened
}

/// The loopback address 127.0.0.`n`.
pub fn loopback(n: u8) -> IpAddr {
    IpAddr::from([127, 0, 0, n])
}

/// A refusal of a stream: `status`, problem+json in words, Retry-After.
#[track_caller]
fn refused(o: &Opened, status: u16) -> String {
    assert_eq!(o.status, status, "{}{}", o.head, o.body);
    assert_eq!(o.header("content-type").as_deref(), Some("application/problem+json"));
    assert!(o.header("retry-after").and_then(|r| r.parse::<u64>().ok()).is_some_and(|r| r > 0), "{}", o.head);
    let detail = str_of(&o.body, "detail").to_owned();
    crate::helpers::fits_the_document("GET", "/api/v1/games/x/stream", status, "application/problem+json", &o.body);
    detail
}

#[test]
fn one_client_past_its_share_of_streams_is_answered_429_and_others_are_served() {
    let app = TestApp::spawn();
    let created = app.create("duel", 2, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let host = str_of(&created, "host_token").to_owned();
    let tokens = seat_tokens(&created);
    let path = format!("/api/v1/games/{game}/stream?token={}", tokens[0]);
    let share = app.settings.server.max_streams_per_client;
    assert_eq!(share, 16, "the default share of one client");
    let mut open: Vec<Opened> = (0..share).map(|_| open_from(loopback(1), &app.base, &path)).collect();
    for o in &open {
        assert_eq!(o.status, 200, "{}", o.head);
    }
    let detail = refused(&open_from(loopback(1), &app.base, &path), 429);
    assert!(detail.contains("16 event streams open"), "{detail}");
    // Another client, and every request, is still served.
    let other = open_from(loopback(2), &app.base, &format!("/api/v1/games/{game}/stream"));
    assert_eq!(other.status, 200, "{}", other.head);
    app.get("/healthz", None).ok();
    app.get(&format!("/api/v1/games/{game}"), None).ok();
    app.create("duel", 2, json!({}));

    // A stream that ends gives its place back: the seat's links revoked
    // close its streams.
    app.post(&format!("/api/v1/games/{game}/seats/0/token"), Some(&host), &json!({})).ok();
    for o in &mut open {
        let mut closing = o.next_data();
        while closing.get("reason").is_none() {
            closing = o.next_data();
        }
        assert_eq!(closing["reason"], "revoked", "{closing}");
    }
    let public = format!("/api/v1/games/{game}/stream");
    let deadline = std::time::Instant::now() + HANG;
    loop {
        let again = open_from(loopback(1), &app.base, &public);
        if again.status == 200 {
            break;
        }
        refused(&again, 429);
        assert!(std::time::Instant::now() < deadline, "the closed streams' places were never given back");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn streams_past_the_total_are_answered_503_in_words() {
    let app = TestApp::spawn_with(|s| {
        s.server.max_streams = 4;
        s.server.max_streams_per_client = 2;
    });
    let game = str_of(&app.create("duel", 2, json!({})), "game_id").to_owned();
    let path = format!("/api/v1/games/{game}/stream");
    let open: Vec<Opened> = [1, 1, 2, 2].iter().map(|n| open_from(loopback(*n), &app.base, &path)).collect();
    assert!(open.iter().all(|o| o.status == 200));
    let detail = refused(&open_from(loopback(3), &app.base, &path), 503);
    assert!(detail.contains("the most event streams it keeps open at once (4)"), "{detail}");
    app.get("/healthz", None).ok();
    app.get(&format!("/api/v1/games/{game}/events"), None).ok();
}

/// The binary under an open-file limit of 256 (soft and hard, so it cannot
/// raise it), one client with no share of its own (per-client bound set
/// past the limit): the streams stop at the bound derived from the limit,
/// with descriptors and connections left for requests.
#[test]
fn streams_keep_descriptors_for_requests_under_a_low_open_file_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, base) = crate::process::serve_with_open_files(
        dir.path(),
        &[("RUNESTONE__SERVER__MAX_STREAMS_PER_CLIENT", "100000")],
        256,
    );
    let a = agent();
    let (s, created) = call(
        &a,
        "POST",
        &format!("{base}/api/v1/games"),
        None,
        Some(&json!({"ruleset": "duel", "seats": [{"name": "A"}, {"name": "B"}]})),
    )
    .unwrap();
    assert_eq!(s, 201, "{created}");
    let game = str_of(&created, "game_id").to_owned();
    let path = format!("/api/v1/games/{game}/stream");
    let mut open = Vec::new();
    let refusal = loop {
        assert!(open.len() < 256, "256 streams were opened under an open-file limit of 256");
        let o = open_from(loopback(1), &base, &path);
        if o.status != 200 {
            break o;
        }
        open.push(o);
    };
    let detail = refused(&refusal, 503);
    assert!(detail.contains("the most event streams"), "{detail}");
    assert!(open.len() >= 32, "only {} streams under 256 open files", open.len());
    // With every stream still open, requests are answered.
    for _ in 0..8 {
        let (s, v) = call(&a, "GET", &format!("{base}/healthz"), None, None).expect("/healthz answers");
        assert_eq!((s, &v["status"]), (200, &json!("ok")), "{v}");
        let (s, v) = call(&a, "GET", &format!("{base}/api/v1/games/{game}"), None, None).expect("a summary");
        assert_eq!(s, 200, "{v}");
        let (s, v) = call(
            &a,
            "POST",
            &format!("{base}/api/v1/games"),
            None,
            Some(&json!({"ruleset": "duel", "seats": [{"name": "A"}, {"name": "B"}]})),
        )
        .expect("a creation");
        assert_eq!(s, 201, "{v}");
    }
    drop(open);
    child.kill().ok();
    child.wait().ok();
}
