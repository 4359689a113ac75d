//! A real SMTP listener on 127.0.0.1, in the test process: it speaks enough
//! SMTP for any client, keeps what it receives, and can be taken down (its
//! port closed and open connections cut) and brought back on the same port.

use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;

/// One message as received.
#[derive(Clone, Debug)]
pub struct Received {
    pub to: Vec<String>,
    pub raw: String,
}

impl Received {
    /// A header's value (first occurrence, unfolded).
    pub fn header(&self, name: &str) -> Option<String> {
        header_of(self.raw.split("\r\n\r\n").next()?, name)
    }

    /// The decoded text/plain part.
    pub fn text(&self) -> String {
        self.part("text/plain")
    }

    /// The decoded text/html part.
    pub fn html(&self) -> String {
        self.part("text/html")
    }

    fn part(&self, mime: &str) -> String {
        let ct = self.header("Content-Type").unwrap_or_default();
        let Some(b) = ct.split("boundary=").nth(1) else { return decode(&self.raw) };
        let boundary = format!("--{}", b.trim_matches('"').split(';').next().unwrap().trim_matches('"'));
        for part in self.raw.split(&boundary) {
            let Some((head, body)) = part.split_once("\r\n\r\n") else { continue };
            if header_of(head, "Content-Type").is_some_and(|c| c.starts_with(mime)) {
                return decode_body(
                    body.trim_end_matches("\r\n"),
                    header_of(head, "Content-Transfer-Encoding").as_deref(),
                );
            }
        }
        panic!("no {mime} part in:\n{}", self.raw)
    }
}

fn header_of(head: &str, name: &str) -> Option<String> {
    let unfolded = head.replace("\r\n ", " ").replace("\r\n\t", " ");
    unfolded.split("\r\n").find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
    })
}

fn decode(raw: &str) -> String {
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or(("", raw));
    decode_body(body, header_of(head, "Content-Transfer-Encoding").as_deref())
}

fn decode_body(body: &str, encoding: Option<&str>) -> String {
    match encoding.map(str::to_ascii_lowercase).as_deref() {
        Some("base64") => {
            let compact: String = body.split_whitespace().collect();
            String::from_utf8(base64::engine::general_purpose::STANDARD.decode(compact).expect("base64"))
                .expect("utf-8")
        }
        Some("quoted-printable") => {
            let joined = body.replace("=\r\n", "");
            let bytes = joined.as_bytes();
            let mut out = Vec::new();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'=' && i + 2 < bytes.len() {
                    if let Ok(b) = u8::from_str_radix(&joined[i + 1..i + 3], 16) {
                        out.push(b);
                        i += 3;
                        continue;
                    }
                }
                out.push(bytes[i]);
                i += 1;
            }
            String::from_utf8(out).expect("utf-8")
        }
        _ => body.to_owned(),
    }
}

pub struct SmtpSink {
    pub port: u16,
    received: Arc<Mutex<Vec<Received>>>,
    /// Recipients answered with a permanent failure.
    rejected: Arc<Mutex<Vec<String>>>,
    up: Arc<AtomicBool>,
    conns: Arc<Mutex<Vec<TcpStream>>>,
    accept: Option<std::thread::JoinHandle<()>>,
}

impl SmtpSink {
    pub fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().unwrap().port();
        let mut sink = SmtpSink {
            port,
            received: Arc::default(),
            rejected: Arc::default(),
            up: Arc::new(AtomicBool::new(false)),
            conns: Arc::default(),
            accept: None,
        };
        sink.serve(listener);
        sink
    }

    fn serve(&mut self, listener: TcpListener) {
        listener.set_nonblocking(true).unwrap();
        self.up.store(true, Ordering::SeqCst);
        let (up, received, conns) = (self.up.clone(), self.received.clone(), self.conns.clone());
        let rejected = self.rejected.clone();
        self.accept = Some(std::thread::spawn(move || {
            while up.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        stream.set_nonblocking(false).unwrap();
                        // Answer each line at once (no Nagle delay against the
                        // client's delayed acknowledgements).
                        let _ = stream.set_nodelay(true);
                        conns.lock().unwrap().push(stream.try_clone().unwrap());
                        let (received, rejected) = (received.clone(), rejected.clone());
                        std::thread::spawn(move || {
                            let _ = session(stream, &received, &rejected);
                        });
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        }));
    }

    /// Close the port and cut every open connection.
    pub fn down(&mut self) {
        self.up.store(false, Ordering::SeqCst);
        if let Some(t) = self.accept.take() {
            t.join().unwrap();
        }
        for c in self.conns.lock().unwrap().drain(..) {
            let _ = c.shutdown(Shutdown::Both);
        }
    }

    /// Listen again on the same port.
    pub fn up(&mut self) {
        let listener = TcpListener::bind(("127.0.0.1", self.port)).expect("rebind the same port");
        self.serve(listener);
    }

    /// Answer mail to `address` with "550 no such user" from now on.
    pub fn reject(&self, address: &str) {
        self.rejected.lock().unwrap().push(address.to_owned());
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Wait until a message to `address` has arrived (or panic after
    /// `secs`), whatever else arrives before it.
    pub fn wait_to(&self, address: &str, secs: u64) -> Received {
        let t = Instant::now();
        loop {
            if let Some(m) = self.received().into_iter().find(|m| m.to.iter().any(|a| a == address)) {
                return m;
            }
            assert!(
                t.elapsed() < Duration::from_secs(secs),
                "no message to {address} arrived: {:#?}",
                self.received().iter().map(|m| (m.to.clone(), m.header("Subject"))).collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Wait until `n` messages have arrived (or panic after `secs`).
    pub fn wait_for(&self, n: usize, secs: u64) -> Vec<Received> {
        let t = Instant::now();
        loop {
            let r = self.received();
            if r.len() >= n {
                return r;
            }
            assert!(
                t.elapsed() < Duration::from_secs(secs),
                "only {} of {n} messages arrived: {:#?}",
                r.len(),
                r.iter().map(|m| m.header("Subject")).collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        self.down();
    }
}

fn session(stream: TcpStream, received: &Mutex<Vec<Received>>, rejected: &Mutex<Vec<String>>) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut lines = BufReader::new(stream);
    out.write_all(b"220 sink ESMTP ready\r\n")?;
    let mut to = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let cmd = line.trim_end().to_ascii_uppercase();
        if cmd.starts_with("EHLO") {
            out.write_all(b"250-sink\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n")?;
        } else if cmd.starts_with("HELO")
            || cmd.starts_with("MAIL FROM")
            || cmd.starts_with("RSET")
            || cmd.starts_with("NOOP")
        {
            if cmd.starts_with("RSET") {
                to.clear();
            }
            out.write_all(b"250 OK\r\n")?;
        } else if cmd.starts_with("RCPT TO") {
            let rcpt = line.trim_end()[8..].trim().trim_matches(|c| c == '<' || c == '>').to_owned();
            if rejected.lock().unwrap().contains(&rcpt) {
                out.write_all(b"550 no such user here\r\n")?;
            } else {
                to.push(rcpt);
                out.write_all(b"250 OK\r\n")?;
            }
        } else if cmd == "DATA" {
            out.write_all(b"354 go on\r\n")?;
            let mut raw = String::new();
            loop {
                line.clear();
                if lines.read_line(&mut line)? == 0 {
                    return Ok(());
                }
                if line == ".\r\n" {
                    break;
                }
                raw.push_str(line.strip_prefix('.').filter(|_| line.starts_with("..")).unwrap_or(&line));
            }
            received.lock().unwrap().push(Received { to: std::mem::take(&mut to), raw });
            out.write_all(b"250 OK queued\r\n")?;
        } else if cmd == "QUIT" {
            out.write_all(b"221 bye\r\n")?;
            return Ok(());
        } else {
            out.write_all(b"502 not here\r\n")?;
        }
    }
}
