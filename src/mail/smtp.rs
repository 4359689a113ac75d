//! SMTP delivery over a small pool of connections whose sockets have Nagle's
//! algorithm off.
//!
//! Why not lettre's own pooled transport: lettre 0.11 writes a message's body
//! and then its end-of-data line (`\r\n.\r\n`) as a second small write, on a
//! socket with Nagle's algorithm on. The kernel holds that second write until
//! the server acknowledges the body, and a server waiting for the end of the
//! data delays its acknowledgement (40 ms on Linux): every message cost 40 ms
//! on its connection, whatever the network (measured: 176 messages/s over 8
//! connections to a discarding sink on loopback). Here the connection's
//! socket is opened by this module with `TCP_NODELAY` and handed to lettre's
//! SMTP client, which still speaks the protocol (greeting, EHLO, STARTTLS,
//! AUTH, MAIL, RCPT, DATA).
//!
//! Implicit TLS (`smtp_tls = "tls"`) is the exception: lettre wraps the socket
//! in TLS before the greeting and has no public way to do that on a socket
//! opened elsewhere, so those connections are opened by lettre, Nagle on.
//!
//! A connection goes back to the pool after a message it delivered, or one
//! the server refused with an SMTP reply (the session is still in step); any
//! other failure drops it, and a message that failed that way on a pooled
//! connection (the server closed it while idle) is tried once more on a new
//! connection. One idle for longer than the idle limit is closed, not used.

use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use lettre::address::Envelope;
use lettre::transport::smtp::authentication::{Credentials, DEFAULT_MECHANISMS};
use lettre::transport::smtp::client::{AsyncSmtpConnection, TlsParameters};
use lettre::transport::smtp::extension::ClientId;

/// How the connection is encrypted.
#[derive(Clone)]
pub enum Tls {
    /// Plain text (`smtp_tls = "none"`).
    None,
    /// `STARTTLS` after the greeting, required.
    StartTls(TlsParameters),
    /// TLS from the first byte (implicit TLS, port 465).
    Wrapper(TlsParameters),
}

/// Where and how to connect, and the idle connections.
pub struct Pool {
    pub host: String,
    pub port: u16,
    pub tls: Tls,
    pub credentials: Option<Credentials>,
    /// Bound on connecting and on each message's whole exchange.
    pub timeout: Duration,
    /// Most idle connections kept.
    pub max_idle: usize,
    /// Idle connections older than this are closed, not used.
    pub idle_timeout: Duration,
    hello: ClientId,
    idle: Mutex<Vec<(AsyncSmtpConnection, Instant)>>,
}

impl Pool {
    pub fn new(
        host: String,
        port: u16,
        tls: Tls,
        credentials: Option<Credentials>,
        timeout: Duration,
        max_idle: usize,
        idle_timeout: Duration,
    ) -> Pool {
        Pool {
            host,
            port,
            tls,
            credentials,
            timeout,
            max_idle,
            idle_timeout,
            hello: ClientId::default(),
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Deliver one formatted message; the error in words. A message that
    /// fails on a pooled connection for any reason but an SMTP reply (the
    /// server closed the idle connection) is tried once more on a new one.
    pub async fn send(&self, envelope: &Envelope, raw: &[u8]) -> Result<(), String> {
        if let Some(conn) = self.pooled().await {
            match self.send_on(conn, envelope, raw).await {
                Err((e, false)) => tracing::debug!(error = %e, "a pooled SMTP connection failed; sending on a new one"),
                other => return other.map_err(|(e, _)| e),
            }
        }
        let conn = match tokio::time::timeout(self.timeout, self.connect()).await {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => return Err(format!("connecting to {}:{}: {e}", self.host, self.port)),
            Err(_) => {
                return Err(format!(
                    "connecting to {}:{} took longer than {} s",
                    self.host,
                    self.port,
                    self.timeout.as_secs()
                ))
            }
        };
        self.send_on(conn, envelope, raw).await.map_err(|(e, _)| e)
    }

    /// Send over `conn`, and pool it again if it is still in step. An error
    /// says whether the server answered it (an SMTP reply).
    async fn send_on(
        &self,
        mut conn: AsyncSmtpConnection,
        envelope: &Envelope,
        raw: &[u8],
    ) -> Result<(), (String, bool)> {
        match tokio::time::timeout(self.timeout, conn.send(envelope, raw)).await {
            Ok(Ok(_)) => {
                self.give_back(conn);
                Ok(())
            }
            Ok(Err(e)) => {
                // A refusal in an SMTP reply leaves the session in step.
                let replied = e.is_permanent() || e.is_transient();
                if replied && !conn.has_broken() {
                    self.give_back(conn);
                } else {
                    self.close(conn).await;
                }
                Err((e.to_string(), replied))
            }
            Err(_) => Err((format!("the server did not take the message within {} s", self.timeout.as_secs()), true)),
        }
    }

    /// An idle connection not past the idle limit, if there is one.
    async fn pooled(&self) -> Option<AsyncSmtpConnection> {
        loop {
            let (conn, since) = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop()?;
            if since.elapsed() <= self.idle_timeout {
                return Some(conn);
            }
            self.close(conn).await;
        }
    }

    /// Say `QUIT` (within the timeout) and close.
    async fn close(&self, mut conn: AsyncSmtpConnection) {
        let _ = tokio::time::timeout(self.timeout, conn.abort()).await;
    }

    fn give_back(&self, conn: AsyncSmtpConnection) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() < self.max_idle {
            idle.push((conn, Instant::now()));
        }
    }

    /// A new connection: greeted, encrypted as configured, authenticated.
    async fn connect(&self) -> Result<AsyncSmtpConnection, String> {
        let mut conn = match &self.tls {
            Tls::Wrapper(params) => AsyncSmtpConnection::connect_tokio1(
                (self.host.as_str(), self.port),
                None,
                &self.hello,
                Some(params.clone()),
                None,
            )
            .await
            .map_err(|e| e.to_string())?,
            Tls::None | Tls::StartTls(_) => {
                let socket = nodelay_socket(&self.host, self.port).await.map_err(|e| e.to_string())?;
                AsyncSmtpConnection::connect_with_transport(Box::new(socket), &self.hello)
                    .await
                    .map_err(|e| e.to_string())?
            }
        };
        if let Tls::StartTls(params) = &self.tls {
            conn.starttls(params.clone(), &self.hello).await.map_err(|e| format!("STARTTLS: {e}"))?;
        }
        if let Some(credentials) = &self.credentials {
            conn.auth(DEFAULT_MECHANISMS, credentials).await.map_err(|e| format!("authenticating: {e}"))?;
        }
        Ok(conn)
    }
}

/// A TCP connection to the first address of `host` that answers, with
/// Nagle's algorithm off.
pub async fn nodelay_socket(host: &str, port: u16) -> std::io::Result<tokio::net::TcpStream> {
    let mut last = None;
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, port)).await?.collect();
    for addr in addrs {
        match tokio::net::TcpStream::connect(addr).await {
            Ok(s) => {
                s.set_nodelay(true)?;
                return Ok(s);
            }
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other(format!("{host} has no address"))))
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use std::sync::Arc;

    use super::*;

    /// A small SMTP server on a thread: counts connections and messages;
    /// with `close_after_each` it closes a connection after each message, as
    /// a server closing idle connections does.
    fn server(close_after_each: bool) -> (u16, Arc<AtomicUsize>, Arc<AtomicUsize>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
        let port = listener.local_addr().expect("address").port();
        let (conns, msgs) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (c, m) = (conns.clone(), msgs.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                c.fetch_add(1, SeqCst);
                let m = m.clone();
                std::thread::spawn(move || -> std::io::Result<()> {
                    let mut reader = BufReader::new(stream.try_clone()?);
                    let mut out = stream;
                    out.write_all(b"220 test\r\n")?;
                    let mut line = String::new();
                    loop {
                        line.clear();
                        if reader.read_line(&mut line)? == 0 {
                            return Ok(());
                        }
                        match line.get(..4).unwrap_or("").to_ascii_uppercase().as_str() {
                            "EHLO" => out.write_all(b"250-test\r\n250 8BITMIME\r\n")?,
                            "DATA" => {
                                out.write_all(b"354 go on\r\n")?;
                                while {
                                    line.clear();
                                    reader.read_line(&mut line)? > 0 && line != ".\r\n"
                                } {}
                                m.fetch_add(1, SeqCst);
                                out.write_all(b"250 taken\r\n")?;
                                if close_after_each {
                                    return Ok(());
                                }
                            }
                            "QUIT" => return out.write_all(b"221 bye\r\n"),
                            _ => out.write_all(b"250 ok\r\n")?,
                        }
                    }
                });
            }
        });
        (port, conns, msgs)
    }

    fn pool(port: u16) -> Pool {
        Pool::new("127.0.0.1".into(), port, Tls::None, None, Duration::from_secs(20), 4, Duration::from_secs(60))
    }

    fn envelope() -> Envelope {
        Envelope::new(Some("rs@example.org".parse().unwrap()), vec!["asa@example.org".parse().unwrap()]).unwrap()
    }

    const RAW: &[u8] = b"Subject: hello\r\n\r\nhello\r\n";

    #[tokio::test]
    async fn messages_share_one_pooled_connection() {
        let (port, conns, msgs) = server(false);
        let pool = pool(port);
        for _ in 0..3 {
            pool.send(&envelope(), RAW).await.expect("delivered");
        }
        assert_eq!(msgs.load(SeqCst), 3);
        assert_eq!(conns.load(SeqCst), 1, "one connection carried the three messages");
    }

    #[tokio::test]
    async fn a_connection_the_server_closed_is_replaced_without_failing_the_message() {
        let (port, conns, msgs) = server(true);
        let pool = pool(port);
        for _ in 0..3 {
            pool.send(&envelope(), RAW).await.expect("delivered on a new connection");
        }
        assert_eq!(msgs.load(SeqCst), 3);
        assert_eq!(conns.load(SeqCst), 3);
    }

    #[tokio::test]
    async fn the_socket_has_nagle_off() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("listen");
        let port = listener.local_addr().expect("address").port();
        let socket = nodelay_socket("127.0.0.1", port).await.expect("connect");
        assert!(socket.nodelay().expect("read TCP_NODELAY"), "TCP_NODELAY is set on SMTP sockets");
    }

    #[tokio::test]
    async fn a_server_that_is_not_there_is_named_in_the_error() {
        // Bound and dropped: nothing listens on the port any more.
        let port = std::net::TcpListener::bind("127.0.0.1:0").expect("listen").local_addr().expect("address").port();
        let e = pool(port).send(&envelope(), RAW).await.expect_err("nothing listens");
        assert!(e.starts_with(&format!("connecting to 127.0.0.1:{port}: ")), "{e}");
    }
}
