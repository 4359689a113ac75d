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
    /// directory, or the operator asked for a new key).
    pub fn load_or_create(configured_hex: &str, dir: &Path, days: i64, may_create: bool) -> std::io::Result<Keys> {
        if !configured_hex.is_empty() {
            let k = hex::decode(configured_hex)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("auth.jwt_secret: {e}")))?;
            return Ok(Keys::new(&k, days));
        }
        let path = dir.join("jwt.key");
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let k = hex::decode(text.trim()).map_err(|e| {
                    std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{}: {e}", path.display()))
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
                let k = crate::random_bytes::<32>();
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

    /// Check the signature and expiry. Game, seat and generation are checked
    /// by the caller, who knows the game.
    pub fn check(&self, token: &str) -> Result<Claims, TokenError> {
        let mut v = Validation::new(Algorithm::HS256);
        v.leeway = 0;
        v.set_required_spec_claims(&["exp", "sub"]);
        let claims = decode::<Claims>(token, &self.dec, &v).map(|d| d.claims).map_err(|e| match e.kind() {
            ErrorKind::ExpiredSignature => TokenError::Expired,
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
        Ok(claims)
    }

    /// [`Keys::check`], and the token must not claim to be issued after
    /// `now` (seconds), give or take a minute of clock drift.
    pub fn check_at(&self, token: &str, now: i64) -> Result<Claims, TokenError> {
        let claims = self.check(token)?;
        if claims.iat > now + 60 {
            return Err(TokenError::Invalid("it claims to be issued in the future".into()));
        }
        if claims.exp < claims.iat {
            return Err(TokenError::Invalid("it expires before it was issued".into()));
        }
        Ok(claims)
    }
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
}
