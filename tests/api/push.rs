//! Notices in a browser by Web Push, against a real push service of the
//! test's own on loopback: every request's VAPID JWT is checked against the
//! server's public key (RFC 8292) and its body decrypted (RFC 8291) with
//! the private key of a subscription made here as a browser makes one (a
//! P-256 key pair and an authentication secret); what it says is compared
//! with the mail of the same notice. A subscription the push service says
//! is gone is removed. In headless Chromium, the page's own code registers
//! the service worker and posts a subscription.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;
use num_bigint::BigUint;
use serde_json::{json, Value};

use crate::browser::{Driver, WAIT_BOUND};
use crate::helpers::{play_to_the_end, seat_tokens, str_of, TestApp};
use crate::smtp::SmtpSink;

// ---------------------------------------------------------------- P-256 as the test's browser does it

/// The curve's numbers (SEC 2, secp256r1).
struct Curve {
    p: BigUint,
    a: BigUint,
    n: BigUint,
    g: (BigUint, BigUint),
}

fn hex(s: &str) -> BigUint {
    BigUint::parse_bytes(s.as_bytes(), 16).unwrap()
}

fn curve() -> Curve {
    let p = hex("FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF");
    Curve {
        a: &p - 3u32,
        p,
        n: hex("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551"),
        g: (
            hex("6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296"),
            hex("4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5"),
        ),
    }
}

type Point = Option<(BigUint, BigUint)>;

impl Curve {
    fn inv(&self, x: &BigUint) -> BigUint {
        x.modpow(&(&self.p - 2u32), &self.p)
    }

    fn sub(&self, a: &BigUint, b: &BigUint) -> BigUint {
        ((a + &self.p) - (b % &self.p)) % &self.p
    }

    fn add(&self, p1: &Point, p2: &Point) -> Point {
        let (Some((x1, y1)), Some((x2, y2))) = (p1, p2) else { return p1.clone().or_else(|| p2.clone()) };
        let l = if x1 == x2 {
            if ((y1 + y2) % &self.p).bits() == 0 {
                return None;
            }
            (3u32 * x1 * x1 + &self.a) * self.inv(&(2u32 * y1)) % &self.p
        } else {
            self.sub(y2, y1) * self.inv(&self.sub(x2, x1)) % &self.p
        };
        let x3 = self.sub(&self.sub(&(&l * &l % &self.p), x1), x2);
        let y3 = self.sub(&(&l * self.sub(x1, &x3) % &self.p), y1);
        Some((x3, y3))
    }

    fn mul(&self, k: &BigUint, pt: &Point) -> Point {
        let mut out = None;
        for i in (0..k.bits()).rev() {
            out = self.add(&out, &out);
            if k.bit(i) {
                out = self.add(&out, pt);
            }
        }
        out
    }
}

fn be32(x: &BigUint) -> Vec<u8> {
    let b = x.to_bytes_be();
    [vec![0; 32 - b.len()], b].concat()
}

fn point_bytes(p: &Point) -> Vec<u8> {
    let (x, y) = p.as_ref().expect("a point");
    [vec![4], be32(x), be32(y)].concat()
}

fn point_of(bytes: &[u8]) -> Point {
    assert_eq!((bytes.len(), bytes[0]), (65, 4), "an uncompressed P-256 point");
    Some((BigUint::from_bytes_be(&bytes[1..33]), BigUint::from_bytes_be(&bytes[33..])))
}

/// A browser's side of a subscription: its key pair and secret.
pub struct Browser {
    private: BigUint,
    pub public: Vec<u8>,
    pub auth: Vec<u8>,
}

impl Browser {
    pub fn make() -> Browser {
        let c = curve();
        let mut raw = [0u8; 48];
        getrandom::fill(&mut raw).unwrap();
        let private = BigUint::from_bytes_be(&raw) % (&c.n - 1u32) + 1u32;
        let public = point_bytes(&c.mul(&private, &Some(c.g.clone())));
        let mut auth = vec![0u8; 16];
        getrandom::fill(&mut auth).unwrap();
        Browser { private, public, auth }
    }

    /// The subscription's keys as `PushSubscription.toJSON()` gives them.
    pub fn keys(&self) -> Value {
        json!({ "p256dh": B64.encode(&self.public), "auth": B64.encode(&self.auth) })
    }

    /// Decrypt a message (RFC 8291 and RFC 8188, one record).
    pub fn decrypt(&self, body: &[u8]) -> Vec<u8> {
        assert!(body.len() > 21, "a message has a header");
        let salt = &body[..16];
        let rs = u32::from_be_bytes(body[16..20].try_into().unwrap());
        let idlen = body[20] as usize;
        assert_eq!(idlen, 65, "the key id is the server's one-message public key");
        let as_public = &body[21..21 + idlen];
        let record = &body[21 + idlen..];
        assert!(record.len() as u32 <= rs, "one record");
        let c = curve();
        let shared = c.mul(&self.private, &point_of(as_public)).expect("a shared point");
        let ecdh = be32(&shared.0);
        let ikm = hkdf(&self.auth, &ecdh, &[b"WebPush: info\0", &self.public, as_public], 32);
        let cek = hkdf(salt, &ikm, &[b"Content-Encoding: aes128gcm\0"], 16);
        let nonce = hkdf(salt, &ikm, &[b"Content-Encoding: nonce\0"], 12);
        let key = ring::aead::LessSafeKey::new(ring::aead::UnboundKey::new(&ring::aead::AES_128_GCM, &cek).unwrap());
        let mut buf = record.to_vec();
        let plain = key
            .open_in_place(
                ring::aead::Nonce::try_assume_unique_for_key(&nonce).unwrap(),
                ring::aead::Aad::empty(),
                &mut buf,
            )
            .expect("the message decrypts with the subscription's key");
        let end = plain.iter().rposition(|b| *b != 0).expect("a delimiter");
        assert_eq!(plain[end], 2, "the last record's delimiter");
        plain[..end].to_vec()
    }
}

struct Len(usize);

impl ring::hkdf::KeyType for Len {
    fn len(&self) -> usize {
        self.0
    }
}

fn hkdf(salt: &[u8], ikm: &[u8], info: &[&[u8]], len: usize) -> Vec<u8> {
    let prk = ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, salt).extract(ikm);
    let mut out = vec![0; len];
    prk.expand(info, Len(len)).unwrap().fill(&mut out).unwrap();
    out
}

/// The test's own curve arithmetic against RFC 8291 appendix A: the user
/// agent's private key gives its public key, and with the server's public
/// key the ECDH secret the RFC shows.
#[test]
fn the_test_browsers_curve_arithmetic_is_p256() {
    let c = curve();
    let ua_private = BigUint::from_bytes_be(&B64.decode("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94").unwrap());
    assert_eq!(
        B64.encode(point_bytes(&c.mul(&ua_private, &Some(c.g.clone())))),
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    );
    let as_public =
        B64.decode("BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8").unwrap();
    let shared = c.mul(&ua_private, &point_of(&as_public)).unwrap();
    assert_eq!(B64.encode(be32(&shared.0)), "kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs");
}

// ---------------------------------------------------------------- a push service on loopback

/// One request as the push service got it.
#[derive(Clone, Debug)]
pub struct Push {
    pub path: String,
    pub headers: BTreeMap<String, String>,
    pub body: Vec<u8>,
}

/// A real HTTP/1.1 push service: keeps each POST and answers 201, or 410
/// (gone) on the paths marked gone.
pub struct PushService {
    pub port: u16,
    got: Arc<Mutex<Vec<Push>>>,
    gone: Arc<Mutex<BTreeSet<String>>>,
}

impl PushService {
    pub fn start() -> PushService {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().unwrap().port();
        let s = PushService { port, got: Arc::default(), gone: Arc::default() };
        let (got, gone) = (s.got.clone(), s.gone.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (got, gone) = (got.clone(), gone.clone());
                std::thread::spawn(move || {
                    let _ = answer(stream, &got, &gone);
                });
            }
        });
        s
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// From now on, answer 410 Gone on `path`.
    pub fn mark_gone(&self, path: &str) {
        self.gone.lock().unwrap().insert(path.to_owned());
    }

    pub fn to(&self, path: &str) -> Vec<Push> {
        self.got.lock().unwrap().iter().filter(|p| p.path == path).cloned().collect()
    }
}

fn answer(stream: TcpStream, got: &Mutex<Vec<Push>>, gone: &Mutex<BTreeSet<String>>) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut r = BufReader::new(stream);
    let mut line = String::new();
    r.read_line(&mut line)?;
    let path = line.split(' ').nth(1).unwrap_or_default().to_owned();
    let mut headers = BTreeMap::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h)?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
    let len: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body)?;
    let is_gone = gone.lock().unwrap().contains(&path);
    got.lock().unwrap().push(Push { path, headers, body });
    if is_gone {
        out.write_all(b"HTTP/1.1 410 Gone\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")?;
    } else {
        out.write_all(b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")?;
    }
    out.flush()
}

/// Check a request as a push service does (RFC 8292, RFC 8291 headers):
/// the JWT signed by the key `k`, which is the server's, for this
/// service's origin, not expired; the body `aes128gcm`.
fn check_vapid(p: &Push, server_key: &str, origin: &str) {
    assert_eq!(p.headers.get("content-encoding").map(String::as_str), Some("aes128gcm"), "{p:?}");
    assert!(p.headers.get("ttl").and_then(|t| t.parse::<u64>().ok()).is_some(), "a TTL: {p:?}");
    let auth = p.headers.get("authorization").expect("an Authorization header");
    let rest = auth.strip_prefix("vapid t=").unwrap_or_else(|| panic!("a vapid authorization: {auth}"));
    let (jwt, k) = rest.split_once(", k=").expect("t and k");
    assert_eq!(k, server_key, "the request is signed with the server's key");
    let (input, sig) = jwt.rsplit_once('.').unwrap();
    let public = B64.decode(k).unwrap();
    ring::signature::UnparsedPublicKey::new(&ring::signature::ECDSA_P256_SHA256_FIXED, &public)
        .verify(input.as_bytes(), &B64.decode(sig).unwrap())
        .expect("the JWT's ES256 signature verifies with the server's public key");
    let (h, c) = input.split_once('.').unwrap();
    let h: Value = serde_json::from_slice(&B64.decode(h).unwrap()).unwrap();
    let c: Value = serde_json::from_slice(&B64.decode(c).unwrap()).unwrap();
    assert_eq!(h["alg"], "ES256");
    assert_eq!(c["aud"], json!(origin), "the audience is the push service's origin");
    let now = chrono::Utc::now().timestamp();
    let exp = c["exp"].as_i64().unwrap();
    assert!(exp > now && exp <= now + 24 * 3600, "valid now, for at most a day: {c}");
    assert!(c["sub"].as_str().is_some_and(|s| s.starts_with("mailto:") || s.starts_with("http")), "{c}");
}

/// Every notice a subscription got, each request's VAPID checked and its
/// body decrypted.
fn opened(service: &PushService, path: &str, browser: &Browser, server_key: &str) -> Vec<Value> {
    service
        .to(path)
        .iter()
        .map(|p| {
            check_vapid(p, server_key, &service.origin());
            serde_json::from_slice(&browser.decrypt(&p.body)).expect("the payload is JSON")
        })
        .collect()
}

// ---------------------------------------------------------------- the server

fn spawn(smtp: Option<u16>) -> TestApp {
    TestApp::spawn_with(|s| {
        if let Some(port) = smtp {
            TestApp::smtp_to(port)(s);
        }
        s.mail.retry_seconds = 1;
        s.mail.poll_ms = 25;
        s.notify.allow_loopback = true;
        s.notify.timeout_seconds = 5;
        s.notify.test_hosts = [("inside.test".to_owned(), "10.0.0.7".parse().unwrap())].into();
    })
}

fn subscribe(app: &TestApp, game: &str, token: &str, seat: u8, endpoint: &str, b: &Browser) -> crate::helpers::Reply {
    app.request(
        "PUT",
        &format!("/api/v1/games/{game}/seats/{seat}/notifications"),
        Some(token),
        Some(&json!({ "push": { "endpoint": endpoint, "keys": b.keys() } })),
    )
}

fn metric(app: &TestApp, name: &str) -> Option<u64> {
    let text = app.get("/metrics", None).text;
    text.lines().find_map(|l| l.strip_prefix(&format!("{name} "))?.parse().ok())
}

/// Wait until nothing waits in the outbox and every dead letter counted is
/// readable (see `webhooks::outbox_drained`).
fn outbox_settled(app: &TestApp) {
    let t = Instant::now();
    while metric(app, "runestone_outbox_depth") != Some(0)
        || metric(app, "runestone_outbox_dead_letters") != metric(app, "runestone_mail_dead_letters_total")
    {
        assert!(t.elapsed() < Duration::from_secs(240), "the outbox never settled");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A header's words with its RFC 2047 encoded words (`=?utf-8?b?…?=`,
/// `=?utf-8?q?…?=`) decoded, as a mail program shows it.
fn header_words(v: &str) -> String {
    let mut out = String::new();
    for (i, part) in v.split(' ').enumerate() {
        let word = part
            .strip_prefix("=?")
            .and_then(|p| p.strip_suffix("?="))
            .and_then(|p| {
                let mut it = p.splitn(3, '?');
                let (_, enc, text) = (it.next()?, it.next()?, it.next()?);
                let bytes = match enc {
                    "b" | "B" => base64::engine::general_purpose::STANDARD.decode(text).ok()?,
                    _ => {
                        let t = text.replace('_', " ");
                        let mut b = Vec::new();
                        let mut cs = t.bytes();
                        while let Some(c) = cs.next() {
                            if c == b'=' {
                                let h: String = [cs.next()? as char, cs.next()? as char].iter().collect();
                                b.push(u8::from_str_radix(&h, 16).ok()?);
                            } else {
                                b.push(c);
                            }
                        }
                        b
                    }
                };
                String::from_utf8(bytes).ok()
            })
            .unwrap_or_else(|| part.to_owned());
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&word);
    }
    out
}

/// The Message-ID of a mail, without its brackets and domain.
fn message_id(m: &crate::smtp::Received) -> String {
    let id = m.header("Message-ID").expect("a Message-ID");
    id.trim_matches(['<', '>']).split('@').next().unwrap().to_owned()
}

#[test]
fn push_notices_are_signed_encrypted_for_the_browser_and_say_what_the_mail_says() {
    let smtp = SmtpSink::start();
    let service = PushService::start();
    let app = spawn(Some(smtp.port));
    let created = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "bardagi", "seats": [
                {"name": "Ása", "email": "asa@example.org"}, {"name": "Bjarni"}, {"name": "Dís"}]}),
        )
        .ok()
        .clone();
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let asa = Browser::make();
    let r = subscribe(&app, &game, &tokens[0], 0, &service.url("/push/asa"), &asa);
    let server_key = r.ok()["push_key"].as_str().expect("the server's public key").to_owned();
    assert_eq!(B64.decode(&server_key).unwrap().len(), 65, "an uncompressed P-256 point");
    assert_eq!(r.json["push"], json!({"endpoint": format!("http://127.0.0.1:{}/…", service.port)}));
    assert!(!r.text.contains("/push/asa"), "the endpoint's secret part is never shown: {}", r.text);
    // The same key is offered before any subscription, to every seat.
    let other = app.get(&format!("/api/v1/games/{game}/seats/1/notifications"), Some(&tokens[1]));
    assert_eq!(other.ok()["push_key"], json!(server_key));
    assert_eq!(other.json["push"], Value::Null);
    // The subscription was sent a first notice at once.
    let first = opened(&service, "/push/asa", &asa, &server_key);
    assert_eq!(first.len(), 1);
    assert_eq!(first[0]["kind"], "push_set");
    assert!(first[0]["text"].as_str().unwrap().contains("this browser"), "{}", first[0]);

    // A subscription whose keys are not a browser's is refused in words.
    let bad = app.request(
        "PUT",
        &format!("/api/v1/games/{game}/seats/1/notifications"),
        Some(&tokens[1]),
        Some(&json!({"push": {"endpoint": service.url("/push/x"), "keys": {"p256dh": "AAAA", "auth": "AAAA"}}})),
    );
    assert!(bad.problem(422).contains("p256dh"), "{}", bad.text);

    play_to_the_end(&app, &game, &tokens, 5_000, &[409, 422], |_, v| v["legal"][0].clone(), || {});
    outbox_settled(&app);
    assert_eq!(metric(&app, "runestone_mail_dead_letters_total"), Some(0), "nothing given up");

    // Every request checked as a push service checks it, every body
    // decrypted with the subscription's key; each mail to Ása has its twin
    // among them, with the same title and the game's page.
    let got = opened(&service, "/push/asa", &asa, &server_key);
    let by_id: BTreeMap<String, Value> =
        got.iter().map(|n| (n["id"].as_str().expect("an id").to_owned(), n.clone())).collect();
    let mails: Vec<_> = smtp
        .received()
        .into_iter()
        .filter(|m| m.to.iter().any(|t| t.contains("asa@")))
        .filter(|m| !m.header("Subject").unwrap_or_default().starts_with("Your seat in"))
        .collect();
    assert!(mails.len() >= 3, "Ása was told of several moves and the end: {}", mails.len());
    for m in &mails {
        let twin = format!("{}p", message_id(m));
        let n = by_id.get(&twin).unwrap_or_else(|| panic!("the mail {twin} has its push twin: {:?}", by_id.keys()));
        assert_eq!(n["title"].as_str().map(str::to_owned), m.header("Subject").map(|s| header_words(&s)), "{n}");
        assert_eq!(n["link"], json!(format!("{}/games/{game}", app.base)), "a notice opens the game page");
        assert!(n["stop"].as_str().unwrap().contains("/notify/stop/"), "{n}");
        // The words as a reader sees them (a mail's lines may be wrapped).
        let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let body = words(&m.text());
        if let Some(prompt) = n["text"].as_str().unwrap().lines().find_map(|l| l.strip_prefix("Asked of you: ")) {
            assert!(body.contains(&words(prompt)), "the mail asks what the push asks ({prompt:?}):\n{body}");
        }
    }
    assert!(got.iter().any(|n| n["kind"] == "game_over"), "the end is told");
    assert!(got.iter().all(|n| !n.to_string().contains("token=")), "no seat's token goes to a push service");
}

#[test]
fn a_subscription_the_push_service_says_is_gone_is_removed() {
    let service = PushService::start();
    let app = spawn(None);
    let created = app.create("bardagi", 3, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let host = str_of(&created, "host_token").to_owned();
    let dis = Browser::make();
    subscribe(&app, &game, &tokens[2], 2, &service.url("/push/dis"), &dis).ok();
    assert_eq!(service.to("/push/dis").len(), 1, "the first notice");
    service.mark_gone("/push/dis");
    // Moves until Dís is told something: that notice is answered 410.
    let t = Instant::now();
    let summary = |app: &TestApp| app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
    while service.to("/push/dis").len() < 2 {
        assert!(t.elapsed() < WAIT_BOUND, "Dís was told something");
        let s = summary(&app);
        for p in s["pending"].as_array().unwrap() {
            let seat = p["seat"].as_u64().unwrap() as usize;
            let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&tokens[seat])).ok().clone();
            if let Some(cmd) = view["legal"].as_array().and_then(|l| l.first()) {
                app.post(
                    &format!("/api/v1/games/{game}/commands"),
                    Some(&tokens[seat]),
                    &json!({"command": cmd, "expected_seq": view["head"]}),
                );
            }
        }
        outbox_settled(&app);
    }
    outbox_settled(&app);
    let n = app.get(&format!("/api/v1/games/{game}/seats/2/notifications"), Some(&tokens[2])).ok().clone();
    assert_eq!(n["push"], Value::Null, "the gone subscription is removed: {n}");
    let dead = app.get(&format!("/api/v1/games/{game}/dead-letters"), Some(&host)).ok()["dead_letters"].clone();
    assert_eq!(dead, json!([]), "a gone subscription is no failure to show the host");
    // Nothing more is sent to it.
    let asked = service.to("/push/dis").len();
    play_to_the_end(&app, &game, &tokens, 5_000, &[409, 422], |_, v| v["legal"][0].clone(), || {});
    outbox_settled(&app);
    assert_eq!(service.to("/push/dis").len(), asked, "a removed subscription is never asked again");
}

#[test]
fn push_endpoints_get_the_webhooks_guard() {
    let app = spawn(None);
    let created = app.create("bardagi", 3, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let b = Browser::make();
    for (url, words) in [
        ("https://10.1.2.3/push", "a private address"),
        ("https://169.254.169.254/latest", "a cloud metadata address"),
        ("https://inside.test/push", "inside.test resolves to a private address"),
        ("ftp://example.org/push", "must start with https://"),
    ] {
        let detail = subscribe(&app, &game, &tokens[0], 0, url, &b).problem(422);
        assert!(detail.contains(words), "{url}: {detail}");
        assert!(!detail.contains("/push") && !detail.contains("latest"), "no secret part in the words: {detail}");
    }
    let n = app.get(&format!("/api/v1/games/{game}/seats/0/notifications"), Some(&tokens[0])).ok().clone();
    assert_eq!(n["push"], Value::Null, "nothing refused is kept");
}

/// The service worker is served as a browser needs it: JavaScript, allowed
/// the game pages' scope, under a policy that lets it do nothing else.
#[test]
fn the_service_worker_is_served_with_its_scope_and_policy() {
    let app = spawn(None);
    let sw = app.raw("GET", "/static/push-sw.js", None, None, &[]);
    assert_eq!(sw.status, 200);
    assert!(sw.content_type.starts_with("text/javascript"), "{}", sw.content_type);
    assert!(sw.text.contains("showNotification"), "{}", sw.text);
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let resp = agent.get(&format!("{}/static/push-sw.js", app.base)).call().unwrap();
    let h = |n: &str| resp.headers().get(n).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    assert_eq!(h("service-worker-allowed"), "/games/");
    assert!(h("content-security-policy").starts_with("default-src 'none'"), "{}", h("content-security-policy"));
    assert_eq!(h("cache-control"), "no-cache", "a new worker is picked up at once");
}

/// A seat's game page in headless Chromium: the page's script registers the
/// service worker and asks for a subscription. Headless Chromium has no
/// push service to give one, so the page then posts a subscription made
/// here through its own code path (the function the button's handler
/// calls with the browser's subscription), and the notices reach it.
#[test]
fn a_seat_subscribes_from_its_game_page_in_chromium() {
    let service = PushService::start();
    let app = spawn(None);
    let created = app.create("bardagi", 3, json!({}));
    let game = str_of(&created, "game_id").to_owned();
    let tokens = seat_tokens(&created);
    let d = Driver::start();
    d.go(str_of(&created["seats"][0], "link"));
    d.click(&d.find("#enter"));
    d.wait_for("#push-on");
    d.wait_until("the page's script to show the push part", || d.property("#push", "hidden") == "false");
    let granted = d.try_call(
        "POST",
        &d.s("/permissions"),
        Some(json!({"descriptor": {"name": "notifications"}, "state": "granted"})),
    );
    assert!(granted.get("error").is_none(), "notifications allowed for the test: {granted}");
    d.click(&d.find("#push-on"));
    // The worker is registered for the game pages, whatever the push
    // service then says.
    d.wait_until("the service worker to be active", || {
        let v = d.call(
            "POST",
            &d.s("/execute/async"),
            Some(json!({"script": "var done = arguments[0]; navigator.serviceWorker.getRegistration('/games/').then(function (r) { done(r && r.active ? r.active.scriptURL + ' ' + r.scope : ''); }, function (e) { done('error ' + e); });", "args": []})),
        );
        v.as_str().is_some_and(|s| !s.is_empty())
    });
    let reg = d.call(
        "POST",
        &d.s("/execute/async"),
        Some(json!({"script": "var done = arguments[0]; navigator.serviceWorker.getRegistration('/games/').then(function (r) { done(r.active.scriptURL + ' ' + r.scope); });", "args": []})),
    );
    assert_eq!(reg, json!(format!("{0}/static/push-sw.js {0}/games/", app.base)));
    // What the browser's push service said (headless Chromium has none).
    d.wait_until("the page to say how the subscription went", || {
        let said = d.text("#push-state");
        !said.is_empty() && !said.starts_with("Asking") && !said.starts_with("Saving")
    });
    let said = d.text("#push-state");
    eprintln!("headless Chromium's subscribe: {said}");
    assert!(said.starts_with("Push notices could not be set up in this browser: "), "{said}");
    assert!(d.console_errors().iter().all(|e| !e.contains("Content Security Policy")), "no CSP violation");

    // The page's own code path posts a subscription, as it would the browser's.
    let b = Browser::make();
    let sub = json!({"endpoint": service.url("/push/asa"), "keys": b.keys()});
    d.loads(|| {
        d.eval(&format!("window.runestonePush.post({sub}); return true;"));
    });
    assert!(d.text("#push-now").contains("come to a browser"), "{}", d.text("#push-now"));
    let n = app.get(&format!("/api/v1/games/{game}/seats/0/notifications"), Some(&tokens[0])).ok().clone();
    assert!(n["push"].is_object(), "{n}");
    let key = n["push_key"].as_str().unwrap().to_owned();
    let offered = d.eval("return document.getElementById('push').getAttribute('data-key');");
    assert_eq!(offered, json!(key), "the page offers the server's key");
    let first = opened(&service, "/push/asa", &b, &key);
    assert_eq!(first.len(), 1, "the first notice reached the subscription");
    assert_eq!(first[0]["link"], json!(format!("{}/games/{game}", app.base)));
    // The page's button stops it again.
    d.loads(|| d.click(&d.find("#push-remove")));
    let n = app.get(&format!("/api/v1/games/{game}/seats/0/notifications"), Some(&tokens[0])).ok().clone();
    assert_eq!(n["push"], Value::Null, "{n}");
    assert!(d.console_errors().iter().all(|e| !e.contains("Content Security Policy")), "no CSP violation");
}
