//! Web Push: a notice sent to a browser through its push service (RFC 8030),
//! encrypted for that browser alone (RFC 8291: `aes128gcm`, RFC 8188) and
//! signed with this server's VAPID key (RFC 8292: an ES256 JWT).
//!
//! The server's key pair is made on first start and kept in `vapid.key` in
//! the data directory, beside `jwt.key` and written as it is (whole or not
//! at all); a browser subscribes with its public half
//! ([`Vapid::public_key`]), and every notice carries a JWT signed with the
//! private half, which the push service checks. A subscription is the push
//! service's address for that browser (an https URL: it gets the webhooks'
//! guard, [`crate::webhook::Client`]) and the browser's P-256 public key and
//! authentication secret, from which the notice's key is agreed.
//!
//! A notice travels through the outbox as a webhook notice does
//! ([`crate::mail::Mail::push`]): same write, stable id (in the payload),
//! retries, dead letter. An answer 404 or 410 says the subscription is gone
//! ([`PushError::Gone`]): it is removed from the seat and not tried again.

use std::path::Path;

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;
use ring::rand::{SecureRandom, SystemRandom};
use ring::{aead, agreement, hkdf, signature};
use serde::{Deserialize, Serialize};

use crate::webhook::{Client, HookError};

/// The file that holds the server's VAPID key, in the data directory.
pub const KEY_FILE: &str = "vapid.key";
/// The longest push service address, in bytes.
pub const ENDPOINT_MAX: usize = 2048;
/// The record size written in each message's header (one record: the
/// payload is far smaller).
const RECORD_SIZE: u32 = 4096;
/// The most plaintext one message carries: a push service takes 4096 bytes
/// of body, less the header (86), the tag (16) and the delimiter (1).
pub const PLAINTEXT_MAX: usize = 3993;
/// How long a push service keeps a notice for a browser that is away.
const TTL_SECONDS: u32 = 2 * 24 * 3600;
/// How long a VAPID JWT is good for (RFC 8292 allows at most 24 hours).
const JWT_SECONDS: i64 = 12 * 3600;

/// A browser's subscription as a seat's record keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subscription {
    /// The push service's address for this browser (its secret: shown masked).
    pub endpoint: String,
    /// The browser's P-256 public key, uncompressed (65 bytes), base64url.
    pub p256dh: String,
    /// The browser's authentication secret (16 bytes), base64url.
    pub auth: String,
}

/// What an outbox record sends to a browser: the subscription, the seat it
/// belongs to (removed from it when gone), and the notice's words. The
/// record's `subject` is the notice's title.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushNotice {
    pub sub: Subscription,
    pub seat: u8,
    pub text: String,
    /// The game page the notice opens.
    pub link: String,
    /// The one-click link that stops this browser's notices.
    pub stop: String,
}

/// Why a push was not delivered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PushError {
    /// Never to be sent: refused by the guard or the push service.
    #[error("{0}")]
    Refused(String),
    /// Worth trying again later.
    #[error("{0}")]
    Failed(String),
    /// The push service says the subscription is gone (404, 410).
    #[error("{0}")]
    Gone(String),
}

impl From<HookError> for PushError {
    fn from(e: HookError) -> Self {
        match e {
            HookError::Refused(w) => PushError::Refused(w),
            HookError::Failed(w) => PushError::Failed(w),
        }
    }
}

fn decode_key(what: &str, s: &str, len: usize) -> Result<Vec<u8>, String> {
    let b = B64
        .decode(s.trim().trim_end_matches('='))
        .map_err(|_| format!("the subscription's {what} is not base64url"))?;
    if b.len() != len {
        return Err(format!("the subscription's {what} has {} bytes where a browser's has {len}", b.len()));
    }
    Ok(b)
}

impl Subscription {
    /// The browser's public key and secret, checked.
    fn keys(&self) -> Result<(Vec<u8>, Vec<u8>), String> {
        let public = decode_key("key (p256dh)", &self.p256dh, 65)?;
        if public[0] != 4 {
            return Err("the subscription's key (p256dh) is not an uncompressed P-256 point".into());
        }
        Ok((public, decode_key("secret (auth)", &self.auth, 16)?))
    }

    /// Whether this is a subscription a notice can be encrypted for: the
    /// keys only (the address is checked by the guard).
    pub fn check(&self) -> Result<(), String> {
        if self.endpoint.trim().is_empty() {
            return Err("a subscription needs its push service's address (endpoint)".into());
        }
        if self.endpoint.len() > ENDPOINT_MAX {
            return Err(format!("a push service's address is at most {ENDPOINT_MAX} characters"));
        }
        let (public, _) = self.keys()?;
        // A point off the curve fails the agreement: tried once here.
        encrypt(&public, &[0; 16], b"check").map(|_| ()).map_err(|_| {
            "the subscription's key (p256dh) is not a point of P-256; subscribe again from the game page".to_owned()
        })
    }
}

/// The server's VAPID key pair.
pub struct Vapid {
    pair: signature::EcdsaKeyPair,
}

impl std::fmt::Debug for Vapid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Vapid({})", self.public_key())
    }
}

impl Vapid {
    /// A key pair from its PKCS#8 document.
    pub fn from_pkcs8(der: &[u8]) -> Result<Vapid, String> {
        let pair =
            signature::EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, der, &SystemRandom::new())
                .map_err(|e| format!("it is not a P-256 key in PKCS#8 ({e})"))?;
        Ok(Vapid { pair })
    }

    /// A new key pair, and its PKCS#8 document.
    pub fn generate() -> (Vapid, Vec<u8>) {
        let der =
            signature::EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
                .expect("the system's random source");
        (Vapid::from_pkcs8(der.as_ref()).expect("a key ring just made"), der.as_ref().to_vec())
    }

    /// The key in `dir/vapid.key`, made (and written whole: a temporary file
    /// synced, then renamed) when there is none. A file that holds no key
    /// stops the start, in words: the browsers subscribed with its public
    /// half would get nothing from a new one.
    pub fn load_or_create(dir: &Path) -> std::io::Result<Vapid> {
        let path = dir.join(KEY_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => {
                let bad = |problem: String| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!(
                            "the push key {} is not a valid key: {problem}. Browsers subscribed to notices with its \
                             public half: restore it from a backup, or move it away to make a new one (each seat \
                             then subscribes again from its game page)",
                            path.display()
                        ),
                    )
                };
                let text = std::str::from_utf8(&bytes).map_err(|_| bad("it is not text (hex digits)".into()))?;
                let der =
                    hex::decode(text.trim()).map_err(|_| bad("it holds something other than hex digits".into()))?;
                Vapid::from_pkcs8(&der).map_err(bad)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(dir)?;
                let (vapid, der) = Vapid::generate();
                let tmp = dir.join(format!("{KEY_FILE}.tmp"));
                std::fs::write(&tmp, hex::encode(der))?;
                std::fs::File::open(&tmp)?.sync_all()?;
                std::fs::rename(&tmp, &path)?;
                tracing::info!(path = %path.display(), "made the key browsers subscribe to push notices with");
                Ok(vapid)
            }
            Err(e) => Err(e),
        }
    }

    /// The public key, uncompressed, base64url: a browser's
    /// `applicationServerKey`, and the `k` of every request.
    pub fn public_key(&self) -> String {
        use signature::KeyPair as _;
        B64.encode(self.pair.public_key().as_ref())
    }

    /// The `Authorization` header of a request to `endpoint` (RFC 8292):
    /// `vapid t=<JWT>, k=<public key>`; the JWT's audience is the
    /// endpoint's origin, its subject `contact`, valid for 12 hours.
    pub fn authorization(&self, endpoint: &url::Url, contact: &str, now: i64) -> String {
        let origin = endpoint.origin().ascii_serialization();
        let header = B64.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({ "aud": origin, "exp": now + JWT_SECONDS, "sub": contact });
        let claims = B64.encode(serde_json::to_vec(&claims).expect("JSON"));
        let signing_input = format!("{header}.{claims}");
        let sig = self.pair.sign(&SystemRandom::new(), signing_input.as_bytes()).expect("ECDSA signing");
        format!("vapid t={signing_input}.{}, k={}", B64.encode(sig.as_ref()), self.public_key())
    }
}

/// The length of an HKDF output.
struct Len(usize);

impl hkdf::KeyType for Len {
    fn len(&self) -> usize {
        self.0
    }
}

fn hkdf(salt: &[u8], ikm: &[u8], info: &[&[u8]], len: usize) -> Vec<u8> {
    let prk = hkdf::Salt::new(hkdf::HKDF_SHA256, salt).extract(ikm);
    let mut out = vec![0; len];
    prk.expand(info, Len(len)).and_then(|okm| okm.fill(&mut out)).expect("HKDF lengths within bounds");
    out
}

/// `plaintext` encrypted for the browser whose public key is `ua_public`
/// and secret `auth` (RFC 8291): a new key pair for this message alone,
/// a new salt, one record.
pub fn encrypt(ua_public: &[u8], auth: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, String> {
    let rng = SystemRandom::new();
    let mine = agreement::EphemeralPrivateKey::generate(&agreement::ECDH_P256, &rng)
        .map_err(|_| "the system's random source failed".to_owned())?;
    let as_public = mine.compute_public_key().map_err(|_| "cannot compute a public key".to_owned())?;
    let peer = agreement::UnparsedPublicKey::new(&agreement::ECDH_P256, ua_public);
    let secret = agreement::agree_ephemeral(mine, &peer, |s| s.to_vec())
        .map_err(|_| "the browser's key is not a point of P-256".to_owned())?;
    let mut salt = [0u8; 16];
    rng.fill(&mut salt).map_err(|_| "the system's random source failed".to_owned())?;
    seal(&secret, auth, ua_public, as_public.as_ref(), &salt, plaintext)
}

/// RFC 8291 section 3.4 and RFC 8188 from the agreed secret on: the keys,
/// then the header (salt, record size, the server's public key) and the one
/// record (the plaintext, the last record's delimiter 2, sealed).
pub fn seal(
    ecdh_secret: &[u8],
    auth: &[u8],
    ua_public: &[u8],
    as_public: &[u8],
    salt: &[u8; 16],
    plaintext: &[u8],
) -> Result<Vec<u8>, String> {
    if plaintext.len() > PLAINTEXT_MAX {
        return Err(format!("a push notice carries at most {PLAINTEXT_MAX} bytes; this one has {}", plaintext.len()));
    }
    let ikm = hkdf(auth, ecdh_secret, &[b"WebPush: info\0", ua_public, as_public], 32);
    let cek = hkdf(salt, &ikm, &[b"Content-Encoding: aes128gcm\0"], 16);
    let nonce = hkdf(salt, &ikm, &[b"Content-Encoding: nonce\0"], 12);
    let key = aead::LessSafeKey::new(aead::UnboundKey::new(&aead::AES_128_GCM, &cek).expect("16 bytes"));
    let mut record = Vec::with_capacity(plaintext.len() + 17);
    record.extend_from_slice(plaintext);
    record.push(2);
    let nonce = aead::Nonce::try_assume_unique_for_key(&nonce).expect("12 bytes");
    key.seal_in_place_append_tag(nonce, aead::Aad::empty(), &mut record).map_err(|_| "sealing failed".to_owned())?;
    let mut body = Vec::with_capacity(16 + 4 + 1 + as_public.len() + record.len());
    body.extend_from_slice(salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(as_public.len() as u8);
    body.extend_from_slice(as_public);
    body.extend_from_slice(&record);
    Ok(body)
}

/// The JSON a notice carries to the browser (the service worker shows it):
/// its stable id, title, text, the page it opens and its stop link, cut to
/// fit one message.
pub fn payload(id: &str, game: &str, kind: &str, title: &str, notice: &PushNotice) -> Vec<u8> {
    let mut max = 1500;
    loop {
        let v = serde_json::json!({
            "id": id, "game": game, "kind": kind, "title": cut(title, 200), "text": cut(&notice.text, max),
            "link": notice.link, "stop": notice.stop,
        });
        let bytes = serde_json::to_vec(&v).expect("JSON");
        if bytes.len() <= PLAINTEXT_MAX || max == 0 {
            return bytes;
        }
        max /= 2;
    }
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Send `plaintext` to the browser of `sub` through its push service,
/// behind the webhooks' guard, signed with `vapid`.
pub async fn send(
    client: &Client,
    vapid: &Vapid,
    contact: &str,
    sub: &Subscription,
    plaintext: &[u8],
    now: i64,
) -> Result<(), PushError> {
    let (public, auth) = sub.keys().map_err(PushError::Refused)?;
    let endpoint = url::Url::parse(sub.endpoint.trim())
        .map_err(|_| PushError::Refused("the push service's address is not a URL".into()))?;
    let body = encrypt(&public, &auth, plaintext).map_err(PushError::Refused)?;
    let headers = [
        ("Content-Type", "application/octet-stream".to_owned()),
        ("Content-Encoding", "aes128gcm".to_owned()),
        ("TTL", TTL_SECONDS.to_string()),
        ("Urgency", "normal".to_owned()),
        ("Authorization", vapid.authorization(&endpoint, contact, now)),
    ];
    let (host, status) = client.request(&sub.endpoint, &headers, &body).await?;
    match status {
        200..=299 => Ok(()),
        404 | 410 => Err(PushError::Gone(format!(
            "{host} says this browser's subscription is gone (HTTP {status}); it is removed"
        ))),
        300..=399 => Err(PushError::Refused(format!(
            "{host} answered with a redirect (HTTP {status}); redirects are never followed"
        ))),
        408 | 425 | 429 | 500..=599 => Err(PushError::Failed(format!("{host} answered HTTP {status}"))),
        413 => Err(PushError::Refused(format!("{host} found the notice too large (HTTP 413)"))),
        _ => Err(PushError::Refused(format!(
            "{host} refused the notice (HTTP {status}); the browser may need to subscribe again"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(s: &str) -> Vec<u8> {
        B64.decode(s).unwrap()
    }

    /// RFC 8291 appendix A: from its ECDH secret, keys and salt to the
    /// very bytes of the message the RFC shows.
    #[test]
    fn a_message_seals_to_the_rfc_8291_example() {
        let salt: [u8; 16] = b64("DGv6ra1nlYgDCS1FRnbzlw").try_into().unwrap();
        let body = seal(
            &b64("kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs"),
            &b64("BTBZMqHH6r4Tts7J_aSIgg"),
            &b64("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"),
            &b64("BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"),
            &salt,
            b"When I grow up, I want to be a watermelon",
        )
        .unwrap();
        assert_eq!(
            B64.encode(body),
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        );
    }

    #[test]
    fn the_jwt_is_es256_over_the_endpoints_origin_and_verifies_with_the_public_key() {
        let (vapid, der) = Vapid::generate();
        assert_eq!(Vapid::from_pkcs8(&der).unwrap().public_key(), vapid.public_key(), "the document keeps the key");
        let endpoint = url::Url::parse("https://push.example.net:8443/wpush/v2/abc?x=1").unwrap();
        let auth = vapid.authorization(&endpoint, "mailto:ops@example.org", 1_000);
        let rest = auth.strip_prefix("vapid t=").unwrap();
        let (jwt, k) = rest.split_once(", k=").unwrap();
        assert_eq!(k, vapid.public_key());
        let (input, sig) = jwt.rsplit_once('.').unwrap();
        let public = b64(k);
        assert_eq!(public.len(), 65);
        signature::UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, &public)
            .verify(input.as_bytes(), &b64(sig))
            .expect("the signature verifies");
        let (h, c) = input.split_once('.').unwrap();
        let h: serde_json::Value = serde_json::from_slice(&b64(h)).unwrap();
        let c: serde_json::Value = serde_json::from_slice(&b64(c)).unwrap();
        assert_eq!(h["alg"], "ES256");
        assert_eq!(c["aud"], "https://push.example.net:8443");
        assert_eq!(c["sub"], "mailto:ops@example.org");
        assert_eq!(c["exp"], 1_000 + JWT_SECONDS);
    }

    #[test]
    fn a_key_file_is_made_once_and_kept_and_a_bad_one_stops_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let made = Vapid::load_or_create(dir.path()).unwrap();
        let again = Vapid::load_or_create(dir.path()).unwrap();
        assert_eq!(made.public_key(), again.public_key());
        assert!(!dir.path().join("vapid.key.tmp").exists());
        std::fs::write(dir.path().join(KEY_FILE), "not a key").unwrap();
        let e = Vapid::load_or_create(dir.path()).unwrap_err();
        assert!(e.to_string().contains("is not a valid key"), "{e}");
    }

    #[test]
    fn a_subscription_is_checked_before_it_is_kept() {
        let good = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
        let sub = |p: &str, a: &str| Subscription {
            endpoint: "https://p.example/x".into(),
            p256dh: p.into(),
            auth: a.into(),
        };
        assert!(sub(good, "BTBZMqHH6r4Tts7J_aSIgg").check().is_ok());
        for (p, a, words) in [
            ("not base64!", "BTBZMqHH6r4Tts7J_aSIgg", "not base64url"),
            (&good[..40], "BTBZMqHH6r4Tts7J_aSIgg", "bytes where a browser's has 65"),
            (good, "BTBZ", "bytes where a browser's has 16"),
        ] {
            let e = sub(p, a).check().unwrap_err();
            assert!(e.contains(words), "{e}");
        }
        // 65 bytes, uncompressed form, but not on the curve.
        let off = B64.encode([&[4u8][..], &[1u8; 64][..]].concat());
        assert!(sub(&off, "BTBZMqHH6r4Tts7J_aSIgg").check().unwrap_err().contains("not a point of P-256"));
    }

    #[test]
    fn a_long_notice_is_cut_to_fit_one_message() {
        let n = PushNotice {
            sub: Subscription { endpoint: String::new(), p256dh: String::new(), auth: String::new() },
            seat: 0,
            text: "ᚱ".repeat(5000),
            link: "https://g/games/a".into(),
            stop: "https://g/stop".into(),
        };
        let p = payload("id", "g", "your_move", "Title", &n);
        assert!(p.len() <= PLAINTEXT_MAX, "{}", p.len());
        let v: serde_json::Value = serde_json::from_slice(&p).unwrap();
        assert_eq!(v["link"], "https://g/games/a");
        assert!(v["text"].as_str().unwrap().ends_with('…'));
    }
}
