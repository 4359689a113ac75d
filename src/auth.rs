//! Tokens: JWTs (HS256) naming a game, a role and, for seats, the seat and
//! its generation. Revoking a seat bumps its generation in the game's log, so
//! older tokens stop working without any token list.

use std::path::Path;

use chrono::{DateTime, Utc};
use jsonwebtoken::{decode, encode, errors::ErrorKind, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use runestone_engine::{Seat, Viewer};
use serde::{Deserialize, Serialize};

/// What a token lets its bearer do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Seat,
    Host,
    Referee,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// The game id.
    pub sub: String,
    pub role: Role,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    /// The seat's token generation when issued.
    #[serde(default)]
    pub gen: u32,
    pub iat: i64,
    pub exp: i64,
}

impl Claims {
    /// How this bearer sees the game. Hosts see what the public sees: a host
    /// may also be a player and must not learn others' secrets.
    pub fn viewer(&self) -> Viewer {
        match (self.role, self.seat) {
            (Role::Seat, Some(s)) => Viewer::Seat(s),
            (Role::Referee, _) => Viewer::Referee,
            _ => Viewer::Public,
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenError {
    #[error("the token has expired; ask the game's host for a new link")]
    Expired,
    #[error("the token is not valid: {0}")]
    Invalid(String),
}

/// Signs and checks tokens with one HMAC key.
#[derive(Clone)]
pub struct Keys {
    enc: EncodingKey,
    dec: DecodingKey,
    secret: Vec<u8>,
    days: i64,
}

impl Keys {
    pub fn new(secret: &[u8], days: i64) -> Keys {
        Keys {
            enc: EncodingKey::from_secret(secret),
            dec: DecodingKey::from_secret(secret),
            secret: secret.to_vec(),
            days,
        }
    }

    /// A signature for a link that carries no token (unsubscribe,
    /// preferences): hex HMAC-SHA256 of `purpose` and `data`.
    pub fn link_signature(&self, purpose: &str, data: &str) -> String {
        use hmac::{Mac, SimpleHmac};
        let mut mac = <SimpleHmac<sha2::Sha256>>::new_from_slice(&self.secret).expect("any key length");
        mac.update(purpose.as_bytes());
        mac.update(b"\0");
        mac.update(data.as_bytes());
        hex::encode(&mac.finalize().into_bytes()[..16])
    }

    /// Check a link signature in constant time.
    pub fn check_link_signature(&self, purpose: &str, data: &str, sig: &str) -> bool {
        let want = self.link_signature(purpose, data);
        want.len() == sig.len() && want.bytes().zip(sig.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }

    /// The key from configuration (hex), or the one stored under `dir`, or a
    /// new one generated and stored there when `may_create` (a new data
    /// directory, or the operator asked for a new key). A stored key that is
    /// not one this server makes (empty, not hex, not 32 bytes) is refused:
    /// an empty key would sign tokens anyone can forge, a cut one would
    /// refuse every token.
    pub fn load_or_create(configured_hex: &str, dir: &Path, days: i64, may_create: bool) -> std::io::Result<Keys> {
        if !configured_hex.is_empty() {
            let k = hex::decode(configured_hex)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("auth.jwt_secret: {e}")))?;
            if k.len() < KEY_BYTES {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("auth.jwt_secret must be at least {KEY_BYTES} bytes written as hex"),
                ));
            }
            return Ok(Keys::new(&k, days));
        }
        let path = dir.join("jwt.key");
        match std::fs::read(&path) {
            Ok(bytes) => {
                let k = key_of_file(&bytes).map_err(|problem| {
                    std::io::Error::new(std::io::ErrorKind::InvalidData, bad_key_file(&path, &problem))
                })?;
                Ok(Keys::new(&k, days))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !may_create => Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!(
                    "the token signing key {} is missing, but this data directory already holds games: every token \
                     and every link mailed to players was signed with it. Restore jwt.key from a backup, or start \
                     with `runestone serve --new-signing-key` (or RUNESTONE__AUTH__NEW_SIGNING_KEY=true) to make a \
                     new key, which revokes every token and every link already sent: players and hosts will need new links",
                    path.display()
                ),
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(dir)?;
                let k = crate::random_bytes::<KEY_BYTES>();
                let tmp = dir.join("jwt.key.tmp");
                std::fs::write(&tmp, hex::encode(k))?;
                std::fs::File::open(&tmp)?.sync_all()?;
                std::fs::rename(&tmp, &path)?;
                Ok(Keys::new(&k, days))
            }
            Err(e) => Err(e),
        }
    }

    pub fn issue(&self, game: &str, role: Role, seat: Option<Seat>, gen: u32, now: DateTime<Utc>) -> String {
        let claims = Claims {
            sub: game.to_owned(),
            role,
            seat,
            gen,
            iat: now.timestamp(),
            exp: now.timestamp() + self.days * 86_400,
        };
        self.sign(&claims)
    }

    pub fn sign(&self, claims: &Claims) -> String {
        encode(&Header::new(Algorithm::HS256), claims, &self.enc).expect("HS256 signing cannot fail")
    }

    /// [`Keys::check_at`] against the system's clock.
    pub fn check(&self, token: &str) -> Result<Claims, TokenError> {
        self.check_at(token, Utc::now().timestamp())
    }

    /// Check the signature, and the expiry against `now` (seconds). Game,
    /// seat and generation are checked by the caller, who knows the game.
    ///
    /// A token issued "after" `now` is accepted: a server whose clock ran
    /// ahead and was then set right issued it, and only a holder of the key
    /// can sign one, so it proves no forgery; refusing it would lock every
    /// player out until the clock caught up again. Revocation does not rest
    /// on times either (a seat's link generation does it). Such a token still
    /// expires at its own `exp`, never later than it says.
    pub fn check_at(&self, token: &str, now: i64) -> Result<Claims, TokenError> {
        let mut v = Validation::new(Algorithm::HS256);
        v.leeway = 0;
        // Expiry is checked below against `now`, the server's clock.
        v.validate_exp = false;
        v.set_required_spec_claims(&["exp", "sub"]);
        let claims = decode::<Claims>(token, &self.dec, &v).map(|d| d.claims).map_err(|e| match e.kind() {
            ErrorKind::InvalidSignature => TokenError::Invalid("its signature does not match this server".into()),
            ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName => {
                TokenError::Invalid("it is not signed the way this server signs tokens (HS256)".into())
            }
            ErrorKind::MissingRequiredClaim(c) => TokenError::Invalid(format!("it has no {c:?} claim")),
            ErrorKind::Json(_) => {
                TokenError::Invalid("its contents are not those of a runestone token (game, role, seat, times)".into())
            }
            // Base64, UTF-8 and the token's shape: never the library's words.
            _ => TokenError::Invalid(
                "it is not a well-formed token (three base64url parts joined by dots); copy the whole link again"
                    .into(),
            ),
        })?;
        if claims.exp < claims.iat {
            return Err(TokenError::Invalid("it expires before it was issued".into()));
        }
        if claims.exp < now {
            return Err(TokenError::Expired);
        }
        Ok(claims)
    }
}

/// The size of the signing key this server makes, in bytes.
pub const KEY_BYTES: usize = 32;

/// The key a `jwt.key` file holds: 64 hex digits (32 bytes), as this server
/// writes it, give or take surrounding white space. The problem otherwise.
pub fn key_of_file(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "it is not text (it should hold 64 hex digits)".to_owned())?;
    let text = text.trim();
    if text.is_empty() {
        return Err("it is empty (it should hold 64 hex digits): a server signing with an empty key would accept \
                    tokens anyone can make"
            .into());
    }
    if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err("it holds something other than hex digits (it should hold 64 of them, 0-9 and a-f)".into());
    }
    if text.len() != KEY_BYTES * 2 {
        return Err(format!(
            "it holds {} hex digits where the key this server makes has {}: a cut or lengthened key checks no \
             token the real key signed",
            text.len(),
            KEY_BYTES * 2
        ));
    }
    let k = hex::decode(text).expect("64 hex digits decode");
    Ok(k)
}

/// What to say of a `jwt.key` at `path` that is not a valid key.
pub fn bad_key_file(path: &Path, problem: &str) -> String {
    format!(
        "the token signing key {} is not a valid key: {problem}. Every token and every link mailed to players was \
         signed with the real key: restore jwt.key from a backup. If there is none, move the file away and start \
         with `runestone serve --new-signing-key`, which makes a new key and revokes every token and every link \
         already sent",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issued_tokens_check_and_forged_or_expired_ones_do_not() {
        let k = Keys::new(&[3; 32], 30);
        let now = Utc::now();
        let t = k.issue("abcdefghijklmnop", Role::Seat, Some(2), 0, now);
        let c = k.check(&t).unwrap();
        assert_eq!((c.sub.as_str(), c.seat, c.viewer()), ("abcdefghijklmnop", Some(2), Viewer::Seat(2)));
        let other = Keys::new(&[4; 32], 30);
        assert!(matches!(other.check(&t), Err(TokenError::Invalid(_))));
        let old = k.issue("abcdefghijklmnop", Role::Seat, Some(2), 0, now - chrono::Duration::days(31));
        assert_eq!(k.check(&old), Err(TokenError::Expired));
        assert!(k.check("not.a.jwt").is_err());
    }

    #[test]
    fn a_token_issued_before_the_clock_was_set_back_checks_until_its_own_expiry() {
        let k = Keys::new(&[3; 32], 30);
        let issued = Utc::now();
        let t = k.issue("abcdefghijklmnop", Role::Seat, Some(1), 0, issued);
        // The clock is set back two days, then runs on.
        let back = (issued - chrono::Duration::days(2)).timestamp();
        assert_eq!(k.check_at(&t, back).map(|c| c.seat), Ok(Some(1)));
        let last = (issued + chrono::Duration::days(30)).timestamp();
        assert!(k.check_at(&t, last).is_ok());
        assert_eq!(k.check_at(&t, last + 1), Err(TokenError::Expired));
        // A token that expires before it was issued is nobody's.
        let mut c = k.check(&t).unwrap();
        c.exp = c.iat - 1;
        assert!(matches!(k.check_at(&k.sign(&c), back), Err(TokenError::Invalid(_))));
    }

    #[test]
    fn a_key_file_must_hold_the_key_this_server_makes() {
        let good = hex::encode([9u8; KEY_BYTES]);
        assert_eq!(key_of_file(format!("{good}\n").as_bytes()), Ok(vec![9u8; KEY_BYTES]));
        for (bytes, words) in [
            (&b""[..], "empty"),
            (b"  \n", "empty"),
            (&good.as_bytes()[..32], "32 hex digits where"),
            (&good.as_bytes()[..63], "63 hex digits where"),
            (b"not a key at all", "other than hex digits"),
            (&[0xff, 0xfe][..], "not text"),
        ] {
            let e = key_of_file(bytes).unwrap_err();
            assert!(e.contains(words), "{e}");
        }
        let long = format!("{good}{good}");
        assert!(key_of_file(long.as_bytes()).unwrap_err().contains("128 hex digits"));
    }
}
