//! Bounds on what clients send: the characters and lengths of names, addresses
//! and free text, and how often one client may ask for what costs the
//! server (a new game, mail to an address).
//!
//! Text that names someone reaches mail headers, page titles and other
//! players' screens: a control character (a line break above all) is never
//! part of a name, so it is refused with the field named, as is text past
//! its bound. The mail builder cleans header values again
//! ([`crate::mail::header_text`]) for records written before these checks.
//!
//! Rates are counted in memory, per node, with a token bucket per key: a
//! client may use its whole allowance at once, and it refills evenly over the
//! period. A refusal says when the next one is free (`Retry-After`).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Longest name of a seat, host or substitute, in characters.
pub const NAME_MAX: usize = 40;
/// Longest email address, in bytes (RFC 5321's path limit less its brackets).
pub const EMAIL_MAX: usize = 254;
/// Longest free text (a reason given for a pause or an extension), in characters.
pub const TEXT_MAX: usize = 200;
/// Longest time zone name, in bytes.
pub const TZ_MAX: usize = 64;

/// The published form of [`text`]'s rule, for the API's schemas: no control
/// character (Unicode's Cc) and no line or paragraph separator.
pub const ONE_LINE: &str = r"^[^\u0000-\u001F\u007F-\u009F\u2028\u2029]*$";
/// The published form of [`name`]'s rule: one line with at least one
/// character that is not white space.
pub const NAME_LINE: &str = r"^[^\u0000-\u001F\u007F-\u009F\u2028\u2029]*[^\s\u0000-\u001F\u007F-\u009F\u2028\u2029][^\u0000-\u001F\u007F-\u009F\u2028\u2029]*$";

/// A name as it is kept: trimmed, 1 to `NAME_MAX` characters, no control
/// characters. `what` names the field in the error ("seat 2's name").
pub fn name(what: &str, s: &str) -> Result<String, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err(format!("{what} is empty; a name must be 1 to {NAME_MAX} characters"));
    }
    text(what, t, NAME_MAX)?;
    Ok(t.to_owned())
}

/// Free text of at most `max` characters on one line: no control
/// characters (line breaks, tabs, escapes) and no Unicode line separators.
pub fn text(what: &str, s: &str, max: usize) -> Result<(), String> {
    let n = s.chars().count();
    if n > max {
        return Err(format!("{what} is {n} characters long; at most {max} are allowed"));
    }
    if let Some(c) = s.chars().find(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')) {
        return Err(format!(
            "{what} contains a control character ({}); names and text must be on one line and printable",
            c.escape_unicode()
        ));
    }
    Ok(())
}

/// An email address within its bound, without control characters (whether
/// it looks like an address is checked where it is taken).
pub fn email(what: &str, s: &str) -> Result<(), String> {
    if s.len() > EMAIL_MAX {
        return Err(format!("{what} is {} bytes long; an email address has at most {EMAIL_MAX}", s.len()));
    }
    text(what, s, EMAIL_MAX)
}

/// A rate: at most `count` per `period` for one key, `count` at once.
/// `count` 0 means no bound.
pub struct Limiter {
    count: u32,
    period: Duration,
    /// Most keys remembered; beyond it, keys with a full allowance are
    /// forgotten, and if all are in use a new key is refused.
    max_keys: usize,
    buckets: Mutex<HashMap<String, Bucket>>,
}

struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Keys a limiter remembers at most.
const MAX_KEYS: usize = 100_000;

impl Limiter {
    pub fn new(count: u32, period: Duration) -> Limiter {
        Limiter::bounded(count, period, MAX_KEYS)
    }

    fn bounded(count: u32, period: Duration, max_keys: usize) -> Limiter {
        Limiter { count, period, max_keys, buckets: Mutex::new(HashMap::new()) }
    }

    /// Take one for `key` now: `Err(wait)` when its allowance is used up,
    /// with the wait until the next one is free.
    pub fn take(&self, key: &str) -> Result<(), Duration> {
        self.take_at(key, Instant::now())
    }

    /// [`Limiter::take`] at `now`.
    pub fn take_at(&self, key: &str, now: Instant) -> Result<(), Duration> {
        if self.count == 0 {
            return Ok(());
        }
        let full = f64::from(self.count);
        let per_token = self.period.as_secs_f64() / full;
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let refill = |b: &Bucket| (b.tokens + now.saturating_duration_since(b.at).as_secs_f64() / per_token).min(full);
        if !buckets.contains_key(key) && buckets.len() >= self.max_keys {
            buckets.retain(|_, b| refill(b) < full);
            if buckets.len() >= self.max_keys {
                return Err(Duration::from_secs_f64(per_token.max(1.0)));
            }
        }
        let b = buckets.entry(key.to_owned()).or_insert(Bucket { tokens: full, at: now });
        b.tokens = refill(b);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - b.tokens) * per_token))
        }
    }
}

/// The key a client is counted under: its address, an IPv6 address by its
/// /64 (one host's share of a network).
pub fn client_key(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

/// The client's address from a proxy's header value (`X-Forwarded-For`:
/// the last address, the one the trusted proxy itself saw).
pub fn forwarded_ip(value: &str) -> Option<IpAddr> {
    value.rsplit(',').next().and_then(|s| s.trim().parse().ok())
}

/// Who may create games and the rates that bound clients: the settings of
/// `[access]`, with their counters.
pub struct Access {
    /// Games are created only for requests carrying the instance key.
    pub key_required: bool,
    /// Every client is trusted: no game's mail is held (`create = "anyone"`).
    pub trust_all: bool,
    instance_key: String,
    /// The header a trusted proxy puts the client's address in, lowercase.
    pub client_ip_header: Option<String>,
    /// Games created, per client.
    pub creates: Limiter,
    /// Confirmation mails, per address.
    pub confirmations: Limiter,
    /// Mail a game's host causes, per game.
    pub host_mail: Limiter,
}

impl Access {
    pub fn new(a: &crate::config::AccessSettings) -> Access {
        const HOUR: Duration = Duration::from_secs(3600);
        Access {
            key_required: a.key_required(),
            trust_all: a.create == "anyone",
            instance_key: a.instance_key.clone(),
            client_ip_header: (!a.client_ip_header.is_empty()).then(|| a.client_ip_header.to_ascii_lowercase()),
            creates: Limiter::new(a.creates_per_hour, HOUR),
            confirmations: Limiter::new(a.confirmations_per_day, 24 * HOUR),
            host_mail: Limiter::new(a.host_mail_per_hour, HOUR),
        }
    }

    /// Whether `given` is the instance key (compared in constant time).
    /// No key is configured: nothing is.
    pub fn is_instance_key(&self, given: &str) -> bool {
        let want = self.instance_key.as_bytes();
        !want.is_empty()
            && want.len() == given.len()
            && want.iter().zip(given.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }

    /// The key a client is counted under: the address in the trusted
    /// proxy's header when one is configured (the connection's address
    /// when the header is missing or unreadable), else the connection's.
    pub fn client(&self, peer: Option<IpAddr>, header: impl Fn(&str) -> Option<String>) -> String {
        let forwarded = self.client_ip_header.as_deref().and_then(&header).and_then(|v| forwarded_ip(&v));
        forwarded.or(peer).map_or_else(|| "unknown".to_owned(), client_key)
    }
}

impl Default for Access {
    /// The embedded defaults' access.
    fn default() -> Access {
        Access::new(&crate::config::Settings::defaults().access)
    }
}

/// Who asks to create a game: the client's key ([`Access::client`]) and
/// the instance key it gave, if any.
#[derive(Clone, Debug, Default)]
pub struct Caller {
    pub client: String,
    pub instance_key: Option<String>,
}

/// Seconds to put in `Retry-After` for a wait (at least 1).
pub fn retry_after_secs(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0).max(u64::from(wait.is_zero()))
}

/// The key the client of `req` is counted under ([`Access::client`]).
pub fn client_of(access: &Access, req: &actix_web::HttpRequest) -> String {
    access.client(req.peer_addr().map(|a| a.ip()), |h| {
        req.headers().get(h).and_then(|v| v.to_str().ok()).map(str::to_owned)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_control_characters_or_past_their_bound_are_refused_in_words() {
        assert_eq!(name("seat 0's name", "  Ása  "), Ok("Ása".to_owned()));
        let e = name("seat 1's name", "A\r\nBcc: x@example.org").unwrap_err();
        assert!(e.starts_with("seat 1's name contains a control character (\\u{d})"), "{e}");
        assert!(name("the host's name", "A\nB").unwrap_err().contains("\\u{a}"));
        assert!(name("x", "A\u{2028}B").is_err());
        assert!(name("x", "A\tB").is_err());
        let e = name("the host's name", &"x".repeat(60_000)).unwrap_err();
        assert_eq!(e, "the host's name is 60000 characters long; at most 40 are allowed");
        assert!(name("x", "   ").unwrap_err().contains("is empty"));
        assert!(name("x", &"ö".repeat(40)).is_ok(), "characters are counted, not bytes");
        assert!(email("seat 0's address", &format!("{}@example.org", "a".repeat(250))).is_err());
        assert!(email("seat 0's address", "a@example.org").is_ok());
    }

    #[test]
    fn a_client_may_use_its_allowance_at_once_and_then_waits_for_the_refill() {
        let limit = Limiter::new(3, Duration::from_secs(3600));
        let t = Instant::now();
        for _ in 0..3 {
            assert_eq!(limit.take_at("10.0.0.1", t), Ok(()));
        }
        let wait = limit.take_at("10.0.0.1", t).unwrap_err();
        assert_eq!(wait, Duration::from_secs(1200), "one comes back every 20 minutes");
        assert_eq!(limit.take_at("10.0.0.2", t), Ok(()), "another client has its own allowance");
        let later = t + Duration::from_secs(1200);
        assert_eq!(limit.take_at("10.0.0.1", later), Ok(()));
        assert!(limit.take_at("10.0.0.1", later).is_err());
        let unbounded = Limiter::new(0, Duration::from_secs(1));
        assert!((0..1000).all(|_| unbounded.take_at("k", t).is_ok()));
    }

    #[test]
    fn a_full_table_forgets_idle_clients_and_refuses_new_ones_while_all_are_busy() {
        let limit = Limiter::bounded(1, Duration::from_secs(60), 2);
        let t = Instant::now();
        assert!(limit.take_at("a", t).is_ok() && limit.take_at("b", t).is_ok());
        assert!(limit.take_at("c", t).is_err(), "both remembered clients are in their period");
        let later = t + Duration::from_secs(61);
        assert!(limit.take_at("c", later).is_ok(), "idle clients were forgotten");
    }

    #[test]
    fn clients_are_keyed_by_address_and_ipv6_by_its_64() {
        assert_eq!(client_key("192.0.2.7".parse().unwrap()), "192.0.2.7");
        assert_eq!(client_key("2001:db8:1:2:3:4:5:6".parse().unwrap()), "2001:db8:1:2::/64");
        assert_eq!(client_key("::ffff:192.0.2.7".parse().unwrap()), "192.0.2.7");
        assert_eq!(forwarded_ip("203.0.113.9, 198.51.100.2"), "198.51.100.2".parse().ok());
        assert_eq!(forwarded_ip("nonsense"), None);
        assert_eq!(retry_after_secs(Duration::from_millis(1500)), 2);
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
    }
}
