//! The built-in SMTP listener, for installs without an MTA of their own
//! (`inbound.smtp_listen`): it takes mail to the server's reply addresses
//! and hands each message to the same service call as `runestone inbound`
//! ([`Service::receive_mail`]), so the store keeps one writer.
//!
//! It speaks the SMTP a sending server needs (EHLO/HELO, MAIL, RCPT, DATA,
//! RSET, NOOP, QUIT) and no more: no relaying, no AUTH, no TLS (put it
//! behind a proxy that ends TLS, or use an MTA and `runestone inbound`).
//! A recipient is checked at RCPT (a forged, expired or revoked reply
//! address is refused there, 550); lines, recipients, message size,
//! connections and idle time are bounded.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use crate::service::{Service, ServiceError};

/// Connections served at once; more wait in the kernel's queue.
const MAX_CONNECTIONS: usize = 64;
/// Recipients of one message.
const MAX_RECIPIENTS: usize = 10;
/// The longest command line (RFC 5321 allows 512; a little more is taken).
const MAX_LINE: usize = 2048;
/// Commands on one connection.
const MAX_COMMANDS: usize = 200;
/// How long a client may stay silent.
const IDLE: Duration = Duration::from_secs(120);

/// Listen on `listener` until the runtime stops.
pub async fn listen(listener: TcpListener, service: Arc<Service>, domain: String) {
    let permits = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    loop {
        let Ok(permit) = permits.clone().acquire_owned().await else { return };
        let (stream, peer) = match listener.accept().await {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "the SMTP listener cannot accept a connection");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let (service, domain) = (service.clone(), domain.clone());
        tokio::spawn(async move {
            if let Err(e) = session(stream, &service, &domain).await {
                tracing::debug!(%peer, error = %e, "an SMTP session ended early");
            }
            drop(permit);
        });
    }
}

/// A reply code for a service error: 4xx when trying later may help.
fn code_of(e: &ServiceError) -> String {
    let words = e.to_string().replace(['\r', '\n'], " ");
    match e {
        ServiceError::TooMany(..) => format!("450 4.7.1 {words}"),
        ServiceError::TooLarge(_) => format!("552 5.3.4 {words}"),
        ServiceError::NotFound(_) => format!("550 5.1.1 {words}"),
        ServiceError::Forbidden(_) | ServiceError::Unauthorized(_) => format!("550 5.7.1 {words}"),
        ServiceError::BadRequest(_) | ServiceError::Unprocessable(_) => format!("554 5.6.0 {words}"),
        _ => format!("451 4.3.0 {words}"),
    }
}

async fn session(stream: TcpStream, service: &Service, domain: &str) -> std::io::Result<()> {
    let _ = stream.set_nodelay(true);
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read);
    let max_bytes = service.inbound().map_or(0, |i| i.max_bytes);
    write.write_all(format!("220 {domain} runestone ESMTP\r\n").as_bytes()).await?;
    let mut recipients: Vec<String> = Vec::new();
    let mut buf = Vec::new();
    for _ in 0..MAX_COMMANDS {
        buf.clear();
        let n = tokio::time::timeout(IDLE, (&mut lines).take(MAX_LINE as u64).read_until(b'\n', &mut buf))
            .await
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "idle"))??;
        if n == 0 {
            return Ok(());
        }
        if !buf.ends_with(b"\n") {
            write.write_all(b"500 5.5.2 line too long\r\n").await?;
            return Ok(());
        }
        let line = String::from_utf8_lossy(&buf).trim_end().to_owned();
        let upper = line.to_ascii_uppercase();
        let reply = if upper.starts_with("EHLO") {
            format!("250-{domain}\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n250 SIZE {max_bytes}")
        } else if upper.starts_with("HELO") {
            format!("250 {domain}")
        } else if upper.starts_with("MAIL FROM:") {
            recipients.clear();
            "250 2.1.0 OK".to_owned()
        } else if upper.starts_with("RCPT TO:") {
            let addr = line[8..].split_whitespace().next().unwrap_or("").trim_matches(['<', '>']).to_owned();
            if recipients.len() >= MAX_RECIPIENTS {
                "452 4.5.3 too many recipients".to_owned()
            } else {
                match service.check_recipient(&addr).await {
                    Ok(_) => {
                        recipients.push(addr);
                        "250 2.1.5 OK".to_owned()
                    }
                    Err(e) => code_of(&e),
                }
            }
        } else if upper == "DATA" {
            if recipients.is_empty() {
                "503 5.5.1 no valid recipient".to_owned()
            } else {
                write.write_all(b"354 end with <CRLF>.<CRLF>\r\n").await?;
                let (raw, over) = read_data(&mut lines, max_bytes).await?;
                let reply = if over {
                    format!("552 5.3.4 the message is over {max_bytes} bytes")
                } else {
                    let mut answer = "250 2.0.0 taken".to_owned();
                    for r in std::mem::take(&mut recipients) {
                        match service.receive_mail(&raw, Some(&r)).await {
                            Ok(h) => answer = format!("250 2.0.0 {}", h.detail.replace(['\r', '\n'], " ")),
                            Err(e) => {
                                answer = code_of(&e);
                                break;
                            }
                        }
                    }
                    answer
                };
                recipients.clear();
                reply
            }
        } else if upper == "RSET" {
            recipients.clear();
            "250 2.0.0 OK".to_owned()
        } else if upper == "NOOP" {
            "250 2.0.0 OK".to_owned()
        } else if upper.starts_with("VRFY") {
            "252 2.1.5 send some mail and see".to_owned()
        } else if upper == "QUIT" {
            write.write_all(b"221 2.0.0 bye\r\n").await?;
            return Ok(());
        } else {
            "502 5.5.2 not served here".to_owned()
        };
        write.write_all(format!("{reply}\r\n").as_bytes()).await?;
    }
    write.write_all(b"421 4.7.0 too many commands\r\n").await?;
    Ok(())
}

/// The message after DATA, dots unstuffed, to the line of one dot; and
/// whether it was over `max` bytes (then it is read to its end and dropped).
async fn read_data(
    lines: &mut BufReader<tokio::net::tcp::OwnedReadHalf>,
    max: usize,
) -> std::io::Result<(Vec<u8>, bool)> {
    let mut raw = Vec::new();
    let mut over = false;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = tokio::time::timeout(IDLE, (&mut *lines).take(64 * 1024).read_until(b'\n', &mut line))
            .await
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "idle in DATA"))??;
        if n == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the client left in DATA"));
        }
        if line == b".\r\n" || line == b".\n" {
            return Ok((raw, over));
        }
        let body = if line.starts_with(b"..") { &line[1..] } else { &line[..] };
        if raw.len() + body.len() > max {
            over = true;
            raw.clear();
        }
        if !over {
            raw.extend_from_slice(body);
        }
    }
}
