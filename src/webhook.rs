//! Webhooks: a notice posted as JSON to an address a player or a host gave
//! (a Discord, Slack or Matrix incoming hook, or any HTTPS URL that takes
//! JSON), and the guard around them.
//!
//! The outbox carries a webhook notice as it carries a mail (see
//! [`crate::mail::Mail::hook`]), so it has a mail's guarantees: written with
//! the events that cause it, sent at least once with a stable id (the
//! `Idempotency-Key` and `X-Runestone-Notice` headers, and the `id` of the
//! generic JSON shape), retried with backoff, a dead letter the host sees
//! after repeated failure.
//!
//! An address is a request the server makes on a stranger's behalf, so it
//! is guarded ([`Client`]): https only; the name resolved at each send and
//! every address it resolves to checked ([`forbidden`]: loopback, private,
//! link-local and metadata, CGNAT, unique-local and the like are refused);
//! the connection made to the checked address itself, so a name that
//! resolves elsewhere a moment later (a DNS rebind) changes nothing; a
//! redirect never followed; a short timeout; the answer read no further
//! than its status line and a few kilobytes of headers. An address's path
//! and query are its secret (a Discord or Slack hook's token): pages, logs,
//! dead letters and errors show it [`masked`].

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// What a receiving service expects the JSON of a notice to look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    /// A Discord incoming webhook: `{"content": ...}`.
    Discord,
    /// A Slack incoming webhook: `{"text": ...}`.
    Slack,
    /// A Matrix hook bridge (such as hookshot's generic webhooks): `{"text": ..., "html": ...}`.
    Matrix,
    /// Any receiver: `{"id", "game", "kind", "title", "text", "link", "stop"}`.
    Json,
}

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::Discord => "discord",
            Shape::Slack => "slack",
            Shape::Matrix => "matrix",
            Shape::Json => "json",
        }
    }
}

/// A webhook as a game's private record keeps it: its whole address (with
/// its secret) and its shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hook {
    pub url: String,
    pub shape: Shape,
}

/// What an outbox record posts to a webhook: the address and shape, the
/// notice's short text and the page it points to. The record's `subject`
/// is the notice's title, its `unsubscribe` the one-click stop link.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookNotice {
    pub url: String,
    pub shape: Shape,
    pub text: String,
    pub link: String,
    /// The one-click link that stops this webhook's notices.
    pub stop: String,
}

/// The longest webhook address, in bytes.
pub const URL_MAX: usize = 2048;
/// The longest text a notice carries, in characters (Discord takes 2000 in all).
pub const TEXT_MAX: usize = 1500;
/// The most bytes of an answer read: its status line and headers.
const ANSWER_MAX: usize = 8 * 1024;

/// Why a notice was not delivered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookError {
    /// Never to be sent: the address is refused (not https, a private
    /// address, a redirect, an answer that says the hook is gone). A dead
    /// letter at once.
    #[error("{0}")]
    Refused(String),
    /// Worth trying again later (no answer, a timeout, a 5xx or 429).
    #[error("{0}")]
    Failed(String),
}

/// `url` with its secret parts hidden: the scheme, host and port only.
pub fn masked(url: &str) -> String {
    match url::Url::parse(url.trim()) {
        Ok(u) => match (u.host_str(), u.port()) {
            (Some(h), Some(p)) => format!("{}://{h}:{p}/…", u.scheme()),
            (Some(h), None) => format!("{}://{h}/…", u.scheme()),
            _ => "an address that is not a URL".to_owned(),
        },
        Err(_) => "an address that is not a URL".to_owned(),
    }
}

/// Why `ip` may not be a webhook's address, if it may not: anything but a
/// public unicast address. `loopback_ok` lets loopback through (the
/// project's tests only).
pub fn forbidden(ip: IpAddr, loopback_ok: bool) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4, loopback_ok),
        IpAddr::V6(v6) => forbidden_v6(v6, loopback_ok),
    }
}

fn forbidden_v4(ip: Ipv4Addr, loopback_ok: bool) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    if ip.is_loopback() {
        return (!loopback_ok).then_some("a loopback address");
    }
    if ip == Ipv4Addr::new(169, 254, 169, 254) || ip == Ipv4Addr::new(100, 100, 100, 200) {
        return Some("a cloud metadata address");
    }
    Some(match (a, b, c) {
        (0, _, _) => "an unspecified address",
        (10, _, _) => "a private address",
        (172, 16..=31, _) => "a private address",
        (192, 168, _) => "a private address",
        (100, 64..=127, _) => "a carrier-grade NAT address",
        (169, 254, _) => "a link-local address",
        (192, 0, 0) | (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "a reserved address",
        (198, 18..=19, _) => "a reserved address",
        (224..=239, _, _) => "a multicast address",
        (240..=255, _, _) => "a reserved address",
        _ => return None,
    })
}

fn forbidden_v6(ip: Ipv6Addr, loopback_ok: bool) -> Option<&'static str> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return forbidden_v4(v4, loopback_ok);
    }
    let s = ip.segments();
    if ip.is_loopback() {
        return (!loopback_ok).then_some("a loopback address");
    }
    if ip.is_unspecified() {
        return Some("an unspecified address");
    }
    // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address.
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return forbidden_v4(Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8), false);
    }
    if s[0] == 0x2002 {
        return forbidden_v4(Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8), false);
    }
    Some(match s[0] {
        0xfc00..=0xfdff => "a unique-local address",
        0xfe80..=0xfebf => "a link-local address",
        0xfec0..=0xfeff => "a site-local address",
        0xff00..=0xffff => "a multicast address",
        0x2001 if s[1] == 0x0db8 => "a reserved address",
        0x2001 if s[1] < 0x0200 => "a reserved address",
        0x0000..=0x1fff => "a reserved address",
        _ => return None,
    })
}

/// A webhook address taken apart: where to connect and what to ask for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub host: String,
    pub port: u16,
    /// The path and query (the secret part).
    pub path: String,
    pub tls: bool,
    /// The address itself, when the URL names one instead of a name.
    pub ip: Option<IpAddr>,
}

/// `url` read as a webhook address, or why it is not one. Plain http is
/// taken only when `loopback_ok` (the tests' receiver), and is then checked
/// to resolve to loopback.
pub fn parse(url: &str, loopback_ok: bool) -> Result<Target, HookError> {
    let refused = |why: String| Err(HookError::Refused(why));
    let url = url.trim();
    if url.is_empty() {
        return refused("a webhook needs its address (https://…)".into());
    }
    if url.len() > URL_MAX {
        return refused(format!("a webhook address is at most {URL_MAX} characters; this one has {}", url.len()));
    }
    let Ok(u) = url::Url::parse(url) else {
        return refused("the webhook address is not a URL; copy the whole https://… address the service gave".into());
    };
    let tls = match u.scheme() {
        "https" => true,
        "http" if loopback_ok => false,
        other => return refused(format!("a webhook address must start with https://, not {other}://")),
    };
    if !u.username().is_empty() || u.password().is_some() {
        return refused("a webhook address may not carry a user name or password".into());
    }
    let (host, ip) = match u.host() {
        Some(url::Host::Domain(d)) => (d.to_ascii_lowercase(), None),
        Some(url::Host::Ipv4(v4)) => (v4.to_string(), Some(IpAddr::V4(v4))),
        Some(url::Host::Ipv6(v6)) => (format!("[{v6}]"), Some(IpAddr::V6(v6))),
        None => return refused("the webhook address names no host".into()),
    };
    let port = u.port_or_known_default().unwrap_or(443);
    let mut path = u.path().to_owned();
    if let Some(q) = u.query() {
        path.push('?');
        path.push_str(q);
    }
    Ok(Target { host, port, path, tls, ip })
}

/// The JSON body of a notice in `shape`.
pub fn body(shape: Shape, id: &str, game: &str, kind: &str, title: &str, notice: &HookNotice) -> Vec<u8> {
    let stop = notice.stop.as_str();
    let text = cut(&notice.text, TEXT_MAX);
    let title = cut(title, 200);
    let v = match shape {
        Shape::Discord => json!({
            "content": format!("**{title}**\n{text}\n{}\nStop these notices: <{stop}>", notice.link),
            "allowed_mentions": { "parse": [] },
        }),
        Shape::Slack => {
            json!({ "text": format!("*{title}*\n{text}\n<{}|Open the game> · <{stop}|Stop these notices>", notice.link) })
        }
        Shape::Matrix => json!({
            "text": format!("{title}\n{text}\n{}\nStop these notices: {stop}", notice.link),
            "html": format!("<strong>{}</strong><br>{}<br><a href=\"{}\">Open the game</a> · <a href=\"{}\">Stop these notices</a>",
                escape(&title), escape(&text).replace('\n', "<br>"), escape(&notice.link), escape(stop)),
        }),
        Shape::Json => json!({
            "id": id, "game": game, "kind": kind, "title": title, "text": text, "link": notice.link, "stop": stop,
        }),
    };
    serde_json::to_vec(&v).expect("JSON")
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// `s` cut to `max` characters, marked when cut.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Sends notices to webhooks, behind the guard (see the module docs).
#[derive(Clone)]
pub struct Client {
    /// Whether this server posts to webhooks at all (`notify.webhooks`).
    pub enabled: bool,
    /// Let loopback addresses and plain http to them through: the
    /// project's tests only (`notify.allow_loopback`).
    pub loopback_ok: bool,
    /// Names resolved without DNS (`notify.test_hosts`, tests only); the
    /// guard checks what they resolve to like any other.
    pub hosts: BTreeMap<String, IpAddr>,
    /// The bound on each step: resolving, connecting, the exchange.
    pub timeout: Duration,
}

impl Default for Client {
    fn default() -> Self {
        Client { enabled: true, loopback_ok: false, hosts: BTreeMap::new(), timeout: Duration::from_secs(10) }
    }
}

/// What a request takes at most: each step within the client's timeout.
async fn within<T>(limit: Duration, what: &str, f: impl std::future::Future<Output = T>) -> Result<T, HookError> {
    tokio::time::timeout(limit, f)
        .await
        .map_err(|_| HookError::Failed(format!("{what} took longer than {} s", limit.as_secs())))
}

impl Client {
    /// The address a target is reached at, every address its name resolves
    /// to checked: one forbidden address refuses the hook.
    pub async fn resolve(&self, t: &Target) -> Result<SocketAddr, HookError> {
        if !self.enabled {
            return Err(HookError::Refused(
                "this server sends no notices to webhooks or browsers (its operator turned them off)".into(),
            ));
        }
        let addrs: Vec<SocketAddr> = match (t.ip, self.hosts.get(&t.host)) {
            (Some(ip), _) | (None, Some(&ip)) => vec![SocketAddr::new(ip, t.port)],
            (None, None) => {
                within(self.timeout, "resolving the webhook's host", tokio::net::lookup_host((t.host.as_str(), t.port)))
                    .await?
                    .map_err(|_| HookError::Failed(format!("the name {} does not resolve", t.host)))?
                    .collect()
            }
        };
        let Some(first) = addrs.first().copied() else {
            return Err(HookError::Failed(format!("the name {} resolves to no address", t.host)));
        };
        for a in &addrs {
            if let Some(why) = forbidden(a.ip(), self.loopback_ok) {
                return Err(HookError::Refused(format!(
                    "{} resolves to {why}; a webhook must be a public https address",
                    t.host
                )));
            }
            if !t.tls && !a.ip().is_loopback() {
                return Err(HookError::Refused("a webhook address must start with https://".into()));
            }
        }
        Ok(first)
    }

    /// Whether `url` is a webhook this server posts to: parsed and its
    /// name resolved and checked, as at a send.
    pub async fn check(&self, url: &str) -> Result<(), HookError> {
        let t = parse(url, self.loopback_ok)?;
        self.resolve(&t).await.map(|_| ())
    }

    /// Post `body` to `url` with the notice's stable `id`.
    pub async fn post(&self, url: &str, body: &[u8], id: &str) -> Result<(), HookError> {
        let headers = [
            ("Content-Type", "application/json".to_owned()),
            ("Idempotency-Key", id.to_owned()),
            ("X-Runestone-Notice", id.to_owned()),
        ];
        let (host, status) = self.request(url, &headers, body).await?;
        match status {
            200..=299 => Ok(()),
            300..=399 => Err(HookError::Refused(format!(
                "{host} answered with a redirect (HTTP {status}); redirects are never followed: give the address it redirects to, if that is a public one"
            ))),
            408 | 425 | 429 | 500..=599 => Err(HookError::Failed(format!("{host} answered HTTP {status}"))),
            _ => Err(HookError::Refused(format!(
                "{host} refused the notice (HTTP {status}): the hook may have been deleted; set it again"
            ))),
        }
    }

    /// POST `body` with `headers` to `url`, behind the guard; the host
    /// asked and the status of its answer (a redirect is not followed).
    pub async fn request(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &[u8],
    ) -> Result<(String, u16), HookError> {
        let t = parse(url, self.loopback_ok)?;
        let addr = self.resolve(&t).await?;
        let tcp = within(self.timeout, "connecting", tokio::net::TcpStream::connect(addr))
            .await?
            .map_err(|e| HookError::Failed(format!("cannot connect to {}: {}", t.host, e.kind())))?;
        let _ = tcp.set_nodelay(true);
        let status = if t.tls {
            let name = rustls::pki_types::ServerName::try_from(t.host.trim_matches(['[', ']']).to_owned())
                .map_err(|_| HookError::Refused(format!("{} is not a name TLS can check", t.host)))?;
            let tls =
                within(self.timeout, "the TLS handshake", tls_connector().connect(name, tcp)).await?.map_err(|e| {
                    HookError::Failed(format!("the TLS handshake with {} failed: {}", t.host, tls_words(&e)))
                })?;
            within(self.timeout, "the answer", exchange(tls, &t, headers, body)).await??
        } else {
            within(self.timeout, "the answer", exchange(tcp, &t, headers, body)).await??
        };
        Ok((t.host, status))
    }
}

/// The TLS error in words, without the peer's text.
fn tls_words(e: &std::io::Error) -> String {
    match e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
        Some(rustls::Error::InvalidCertificate(_)) => "its certificate is not valid for it".into(),
        Some(_) => "the TLS exchange went wrong".into(),
        None => format!("{}", e.kind()),
    }
}

/// One request and the status of its answer (read no further than the
/// headers, at most [`ANSWER_MAX`] bytes).
async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(
    mut s: S,
    t: &Target,
    headers: &[(&str, String)],
    body: &[u8],
) -> Result<u16, HookError> {
    let host = if (t.tls && t.port == 443) || (!t.tls && t.port == 80) {
        t.host.clone()
    } else {
        format!("{}:{}", t.host, t.port)
    };
    let mut head = format!("POST {} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: runestone\r\n", t.path);
    for (name, value) in headers {
        // The values are the server's own (ids, keys, tokens): never a line break.
        debug_assert!(!value.contains(['\r', '\n']), "{name}");
        head.push_str(&format!("{name}: {}\r\n", value.replace(['\r', '\n'], "")));
    }
    head.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", body.len()));
    let failed = |e: std::io::Error| HookError::Failed(format!("the connection to {} broke: {}", t.host, e.kind()));
    s.write_all(head.as_bytes()).await.map_err(failed)?;
    s.write_all(body).await.map_err(failed)?;
    s.flush().await.map_err(failed)?;
    let mut buf = vec![0u8; ANSWER_MAX];
    let mut n = 0;
    loop {
        let read = s.read(&mut buf[n..]).await.map_err(failed)?;
        if read == 0 {
            return Err(HookError::Failed(format!("{} closed the connection without an answer", t.host)));
        }
        n += read;
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut answer = httparse::Response::new(&mut headers);
        match answer.parse(&buf[..n]) {
            Ok(httparse::Status::Complete(_)) => return answer.code.ok_or_else(|| bad_answer(t)),
            // The status line is all that matters; a partial head past it will do.
            Ok(httparse::Status::Partial) if answer.code.is_some() && n == buf.len() => {
                return answer.code.ok_or_else(|| bad_answer(t))
            }
            Ok(httparse::Status::Partial) if n < buf.len() => {}
            _ => return Err(bad_answer(t)),
        }
    }
}

fn bad_answer(t: &Target) -> HookError {
    HookError::Failed(format!("{} did not answer in HTTP/1.1", t.host))
}

/// The TLS client: the system's root certificates, ring's ciphers.
fn tls_connector() -> tokio_rustls::TlsConnector {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    let config = CONFIG.get_or_init(|| {
        let mut roots = rustls::RootCertStore::empty();
        let found = rustls_native_certs::load_native_certs();
        let (added, _) = roots.add_parsable_certificates(found.certs);
        if added == 0 {
            tracing::warn!("no root certificates found on this system: webhooks over https will fail");
        }
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("ring's protocol versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        Arc::new(config)
    });
    tokio_rustls::TlsConnector::from(config.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn only_public_unicast_addresses_are_let_through() {
        for (addr, why) in [
            ("127.0.0.1", "a loopback address"),
            ("127.9.9.9", "a loopback address"),
            ("10.1.2.3", "a private address"),
            ("172.16.0.1", "a private address"),
            ("172.31.255.255", "a private address"),
            ("192.168.1.1", "a private address"),
            ("169.254.169.254", "a cloud metadata address"),
            ("169.254.1.1", "a link-local address"),
            ("100.64.0.1", "a carrier-grade NAT address"),
            ("0.0.0.0", "an unspecified address"),
            ("224.0.0.1", "a multicast address"),
            ("255.255.255.255", "a reserved address"),
            ("::1", "a loopback address"),
            ("::", "an unspecified address"),
            ("fd00:ec2::254", "a unique-local address"),
            ("fc00::1", "a unique-local address"),
            ("fe80::1", "a link-local address"),
            ("::ffff:10.0.0.1", "a private address"),
            ("::ffff:127.0.0.1", "a loopback address"),
            ("64:ff9b::a00:1", "a private address"),
            ("2002:a00:1::", "a private address"),
            ("ff02::1", "a multicast address"),
        ] {
            assert_eq!(forbidden(ip(addr), false), Some(why), "{addr}");
        }
        for addr in ["93.184.215.14", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "2a00:1450::1"] {
            assert_eq!(forbidden(ip(addr), false), None, "{addr}");
        }
        assert_eq!(forbidden(ip("127.0.0.1"), true), None, "the tests' switch lets loopback through");
        assert_eq!(forbidden(ip("10.0.0.1"), true), Some("a private address"), "and nothing else");
    }

    #[test]
    fn an_address_must_be_https_without_credentials() {
        let t = parse("https://discord.com/api/webhooks/1/abc?wait=true", false).unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.path.as_str(), t.tls),
            ("discord.com", 443, "/api/webhooks/1/abc?wait=true", true)
        );
        for (url, words) in [
            ("http://example.org/hook", "must start with https://"),
            ("ftp://example.org/", "must start with https://"),
            ("https://user:pw@example.org/", "user name or password"),
            ("not a url", "not a URL"),
            ("", "needs its address"),
        ] {
            match parse(url, false) {
                Err(HookError::Refused(w)) => assert!(w.contains(words), "{url}: {w}"),
                other => panic!("{url}: {other:?}"),
            }
        }
        let long = format!("https://example.org/{}", "a".repeat(URL_MAX));
        assert!(matches!(parse(&long, false), Err(HookError::Refused(w)) if w.contains("at most")));
        assert!(parse("http://127.0.0.1:9/x", true).is_ok_and(|t| !t.tls && t.ip == Some(ip("127.0.0.1"))));
    }

    #[test]
    fn the_secret_part_is_masked() {
        assert_eq!(masked("https://discord.com/api/webhooks/123/s3cr3t"), "https://discord.com/…");
        assert_eq!(masked("https://hooks.slack.com:8443/services/T/B/x?y=1"), "https://hooks.slack.com:8443/…");
        assert_eq!(masked("garbage s3cr3t"), "an address that is not a URL");
    }

    #[tokio::test]
    async fn names_are_checked_after_resolution() {
        let client = Client {
            hosts: [("inside.test".to_owned(), ip("10.0.0.7")), ("outside.test".to_owned(), ip("1.1.1.1"))].into(),
            ..Client::default()
        };
        let e = client.check("https://inside.test/hook").await.unwrap_err();
        assert_eq!(
            e,
            HookError::Refused(
                "inside.test resolves to a private address; a webhook must be a public https address".into()
            )
        );
        assert!(client.check("https://outside.test/hook").await.is_ok());
        let e = client.check("https://169.254.169.254/latest/meta-data").await.unwrap_err();
        assert!(matches!(e, HookError::Refused(w) if w.contains("metadata")));
        let e = client.check("https://localhost/hook").await.unwrap_err();
        assert!(matches!(e, HookError::Refused(w) if w.contains("loopback")), "localhost resolves to loopback");
    }

    #[test]
    fn each_shape_carries_the_text_link_and_stop() {
        let n = HookNotice {
            url: "https://x/y".into(),
            shape: Shape::Json,
            text: "Choose your plan".into(),
            link: "https://g/games/a".into(),
            stop: "https://g/stop".into(),
        };
        for shape in [Shape::Discord, Shape::Slack, Shape::Matrix, Shape::Json] {
            let v: serde_json::Value =
                serde_json::from_slice(&body(shape, "id1", "g", "your_move", "Bardagi", &n)).unwrap();
            let all = v.to_string();
            assert!(
                all.contains("Choose your plan") && all.contains("https://g/games/a") && all.contains("https://g/stop"),
                "{shape:?}: {all}"
            );
            assert!(!all.contains("https://x/y"), "the hook's own address is never in its body");
        }
        let v: serde_json::Value =
            serde_json::from_slice(&body(Shape::Json, "id1", "g", "your_move", "T", &n)).unwrap();
        assert_eq!(v["id"], "id1");
        let d: serde_json::Value = serde_json::from_slice(&body(Shape::Discord, "id1", "g", "k", "T", &n)).unwrap();
        assert_eq!(d["allowed_mentions"]["parse"], json!([]), "a notice pings nobody");
    }
}
