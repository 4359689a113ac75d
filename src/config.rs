//! Settings: the embedded `config/default.toml`, then an optional file, then
//! `RUNESTONE__SECTION__KEY` environment variables, each layer overriding the
//! one before.

use std::path::{Path, PathBuf};

use serde::Deserialize;

const DEFAULTS: &str = include_str!("../config/default.toml");

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub server: ServerSettings,
    pub storage: StorageSettings,
    pub auth: AuthSettings,
    pub mail: MailSettings,
    pub access: AccessSettings,
    pub press: PressSettings,
    pub inbound: InboundSettings,
    pub notify: NotifySettings,
}

/// Playing by replying to mail: reply addresses, and the mail received.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InboundSettings {
    /// The domain of reply addresses (`play+…@domain`); empty: mail asks
    /// for no replies and none are taken.
    pub domain: String,
    /// How many days a reply address works.
    pub address_days: i64,
    /// The id (`authserv-id`, usually its host name) the operator's own
    /// receiving MTA writes in `Authentication-Results`; empty: none is
    /// trusted.
    pub trusted_mta: String,
    /// The largest message taken, in bytes.
    pub max_bytes: usize,
    /// Replies one seat may send per hour (0: no bound).
    pub per_hour: u32,
    /// Where the built-in SMTP listener listens ("127.0.0.1:2525"); empty:
    /// none (an MTA hands mail to `runestone inbound`).
    pub smtp_listen: String,
    /// The key `runestone inbound` shows the server's inbound route
    /// (hex, at least 32 bytes); empty: derived from the signing key.
    pub route_key: String,
}

/// Notices by webhook and Web Push.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotifySettings {
    /// Whether notices go to webhooks at all.
    pub webhooks: bool,
    /// The bound on each step of a post, in seconds.
    pub timeout_seconds: u64,
    /// First notices (when a webhook is set) per game per hour (0: no bound).
    pub probes_per_hour: u32,
    /// Tests only: loopback addresses over plain http let through.
    pub allow_loopback: bool,
    /// Tests only: names resolved without DNS (name to address), each
    /// address checked by the guard like any other. Set in a file only.
    #[serde(default)]
    pub test_hosts: std::collections::BTreeMap<String, std::net::IpAddr>,
    /// Whether notices are pushed to browsers (Web Push, with the key in
    /// `vapid.key` of the data directory, made on first start).
    pub push: bool,
    /// The contact push services are given (`mailto:` or https); empty:
    /// the server's public URL.
    pub push_contact: String,
}

/// Messages between the players of a game.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PressSettings {
    /// Longest message, in characters.
    pub max_chars: usize,
    /// Messages one writer (a seat, the host, the referee) may write to one
    /// game per hour (0: no bound).
    pub per_hour: u32,
    /// When a seat received messages and no other mail of the game is due,
    /// one mail gathers them this many minutes after the latest one.
    pub quiet_minutes: i64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSettings {
    pub host: String,
    pub port: u16,
    pub public_url: String,
    pub max_body_bytes: usize,
    pub workers: usize,
    /// Host the test fixture games beside the real ones: only the
    /// project's own tests set this.
    #[serde(default)]
    pub test_fixtures: bool,
    /// Connections open at once, all workers together; 0: derived from the
    /// open-file limit (see `http::limits`).
    pub max_connections: usize,
    /// Event streams open at once; 0: half the connections.
    pub max_streams: usize,
    /// Event streams open at once from one client (IPv4 address, IPv6 /64).
    pub max_streams_per_client: usize,
    /// Every request is answered within this many seconds: one still waiting
    /// on the store then is answered 503 (its work goes on and settles).
    pub answer_seconds: u64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageSettings {
    /// "sled" (embedded, one node) or "postgres" (one database, any number
    /// of nodes).
    pub backend: String,
    pub path: PathBuf,
    /// The PostgreSQL database when `backend = "postgres"`: a
    /// `postgresql://` URL or `key=value` settings.
    #[serde(default)]
    pub url: String,
    pub snapshot_interval: u64,
    pub cache_games: usize,
    /// The folded games' saved size held in memory at most: "96MB".
    pub cache_bytes: String,
    /// sled's page cache: "64MB".
    pub store_cache: String,
    /// Whether a sled store created by this server has sled compress its
    /// pages (an existing store keeps its setting): about half the disk, at
    /// a price in appends per second and in opening the store.
    #[serde(default)]
    pub compress_pages: bool,
    /// Free space kept in reserve: "256MB", "1GB", "1%", or "0" for none.
    pub reserve: String,
}

impl StorageSettings {
    /// `cache_bytes` in bytes.
    pub fn cache_bytes(&self) -> Result<u64, String> {
        parse_size("storage.cache_bytes", &self.cache_bytes)
    }

    /// `store_cache` in bytes.
    pub fn store_cache(&self) -> Result<u64, String> {
        parse_size("storage.store_cache", &self.store_cache)
    }
}

/// Parse a size such as "256MB", "64KiB" or "0" given for the key `key`.
pub fn parse_size(key: &str, text: &str) -> Result<u64, String> {
    let t = text.trim();
    let bad = || format!("{key} {text:?} is not a size such as \"64MB\" or \"1GB\"");
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (n, unit) = t.split_at(split);
    let n: u64 = n.parse().map_err(|_| bad())?;
    let mult: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "KB" | "KIB" | "K" => 1 << 10,
        "MB" | "MIB" | "M" => 1 << 20,
        "GB" | "GIB" | "G" => 1 << 30,
        "TB" | "TIB" | "T" => 1 << 40,
        _ => return Err(bad()),
    };
    n.checked_mul(mult).ok_or_else(bad)
}

/// The free space the store keeps in reserve, as configured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reserve {
    Bytes(u64),
    /// A share of the filesystem's size, in percent.
    Percent(f64),
}

impl Reserve {
    /// Parse "256MB", "64KiB", "1%", "0".
    pub fn parse(text: &str) -> Result<Reserve, String> {
        let t = text.trim();
        let bad = || format!("storage.reserve {text:?} is not a size such as \"256MB\", \"1GB\" or \"1%\"");
        if let Some(p) = t.strip_suffix('%') {
            let p: f64 = p.trim().parse().map_err(|_| bad())?;
            if !(0.0..=100.0).contains(&p) {
                return Err(format!("storage.reserve {text:?} must be between 0% and 100%"));
            }
            return Ok(Reserve::Percent(p));
        }
        parse_size("storage.reserve", t).map(Reserve::Bytes).map_err(|_| bad())
    }

    /// The reserve in bytes on a filesystem of `total` bytes.
    pub fn bytes(self, total: u64) -> u64 {
        match self {
            Reserve::Bytes(b) => b,
            Reserve::Percent(p) => (total as f64 * p / 100.0) as u64,
        }
    }
}

/// A size for people: "3.2 MB".
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KB", "MB", "GB", "TB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} bytes")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthSettings {
    pub jwt_secret: String,
    pub token_days: i64,
    /// Make a new signing key when `jwt.key` is missing from a data
    /// directory that already holds a store (revokes every token and link).
    #[serde(default)]
    pub new_signing_key: bool,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MailSettings {
    pub transport: String,
    pub from: String,
    pub smtp_host: String,
    pub smtp_port: u16,
    pub smtp_username: String,
    pub smtp_password: String,
    pub smtp_tls: String,
    pub max_attempts: u32,
    pub retry_seconds: i64,
    pub poll_ms: u64,
    /// How long a player's mail waits for more decisions to tell before it
    /// leaves, and the least time between two mails to one player, in
    /// minutes (0 to 120).
    #[serde(default = "default_gather_minutes")]
    pub gather_minutes: f64,
    pub connections: u32,
    pub rate: u32,
    pub nice: i32,
}

fn default_gather_minutes() -> f64 {
    5.0
}

/// Who may create games, and how often clients may ask for what costs the
/// server.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessSettings {
    /// "open": anyone may create a game, and its mail to players waits
    /// until the host confirms their own address by a mailed link (or the
    /// request carries the instance key); "key": only requests carrying
    /// the instance key create games; "anyone": every client is trusted
    /// and mail leaves at once (a private network only).
    pub create: String,
    /// The instance key (`Authorization: Bearer <key>` on game creation);
    /// empty: none.
    pub instance_key: String,
    /// The request header a trusted reverse proxy puts the client's address
    /// in ("X-Forwarded-For"); empty: the connection's own address.
    pub client_ip_header: String,
    /// Games one client may create per hour (0: no bound).
    pub creates_per_hour: u32,
    /// Confirmation mails to one address per day (0: no bound).
    pub confirmations_per_day: u32,
    /// Mail one game's host may cause per hour: substitutes invited, dead
    /// letters sent again (0: no bound).
    pub host_mail_per_hour: u32,
}

impl AccessSettings {
    /// Whether creating a game needs the instance key.
    pub fn key_required(&self) -> bool {
        self.create == "key"
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("config file {path} is not valid TOML: {source}")]
    Parse { path: PathBuf, source: Box<toml::de::Error> },
    #[error("environment variable {name}: {problem}")]
    Env { name: String, problem: String },
    #[error("invalid configuration: {0}")]
    Invalid(String),
}

impl Settings {
    /// The defaults alone.
    pub fn defaults() -> Settings {
        Self::layered(None, std::iter::empty()).expect("the embedded defaults are valid")
    }

    /// Defaults, then `file`, then the process environment.
    pub fn load(file: Option<&Path>) -> Result<Settings, ConfigError> {
        Self::layered(file, std::env::vars())
    }

    /// Defaults, then `file`, then the given `RUNESTONE__...` variables.
    pub fn layered(file: Option<&Path>, env: impl Iterator<Item = (String, String)>) -> Result<Settings, ConfigError> {
        let mut table: toml::Table = DEFAULTS.parse().expect("embedded defaults parse");
        if let Some(path) = file {
            let text =
                std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_owned(), source })?;
            let over: toml::Table = text
                .parse()
                .map_err(|source| ConfigError::Parse { path: path.to_owned(), source: Box::new(source) })?;
            merge(&mut table, over);
        }
        for (name, value) in env {
            let Some(rest) = name.strip_prefix("RUNESTONE__") else { continue };
            let parts: Vec<String> = rest.split("__").map(str::to_lowercase).collect();
            let [section, key] = parts.as_slice() else {
                return Err(ConfigError::Env { name, problem: "expected RUNESTONE__SECTION__KEY".into() });
            };
            let Some(toml::Value::Table(sec)) = table.get_mut(section.as_str()) else {
                return Err(ConfigError::Env { name, problem: format!("there is no section [{section}]") });
            };
            let Some(old) = sec.get(key.as_str()) else {
                return Err(ConfigError::Env { name, problem: format!("section [{section}] has no key {key:?}") });
            };
            let parsed = match old {
                toml::Value::String(_) => toml::Value::String(value),
                toml::Value::Integer(_) => toml::Value::Integer(
                    value
                        .parse()
                        .map_err(|_| ConfigError::Env { name: name.clone(), problem: "not a whole number".into() })?,
                ),
                toml::Value::Boolean(_) => toml::Value::Boolean(
                    value
                        .parse()
                        .map_err(|_| ConfigError::Env { name: name.clone(), problem: "not true or false".into() })?,
                ),
                _ => {
                    return Err(ConfigError::Env {
                        name,
                        problem: "this key cannot be set from the environment".into(),
                    })
                }
            };
            sec.insert(key.clone(), parsed);
        }
        let s: Settings =
            toml::Value::Table(table).try_into().map_err(|e: toml::de::Error| ConfigError::Invalid(e.to_string()))?;
        s.validate()?;
        Ok(s)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        match self.storage.backend.as_str() {
            "sled" => {}
            "postgres" => {
                if self.storage.url.trim().is_empty() {
                    return Err(ConfigError::Invalid(
                        "storage.backend \"postgres\" needs storage.url, the database's address \
                         (postgresql://USER:PASSWORD@HOST:PORT/DATABASE)"
                            .into(),
                    ));
                }
                if self.auth.jwt_secret.is_empty() {
                    return Err(ConfigError::Invalid(
                        "storage.backend \"postgres\" needs auth.jwt_secret, the same on every node, so that a \
                         link signed by one node opens the game on every other"
                            .into(),
                    ));
                }
            }
            other => {
                return Err(ConfigError::Invalid(format!(
                    "storage.backend {other:?} is not a backend of this build; use \"sled\" or \"postgres\""
                )))
            }
        }
        if !["file", "smtp"].contains(&self.mail.transport.as_str()) {
            return Err(ConfigError::Invalid(format!(
                "mail.transport must be \"file\" or \"smtp\", not {:?}",
                self.mail.transport
            )));
        }
        if !(0.0..=120.0).contains(&self.mail.gather_minutes) {
            return Err(ConfigError::Invalid(format!(
                "mail.gather_minutes must be from 0 (each mail at once) to 120, not {}",
                self.mail.gather_minutes
            )));
        }
        if !(0..=19).contains(&self.mail.nice) {
            return Err(ConfigError::Invalid(format!(
                "mail.nice must be from 0 (the server's priority) to 19 (the lowest), not {}",
                self.mail.nice
            )));
        }
        match self.access.create.as_str() {
            "open" | "anyone" => {}
            "key" if self.access.instance_key.chars().count() >= 32 => {}
            "key" => {
                return Err(ConfigError::Invalid(
                    "access.create = \"key\" needs access.instance_key, at least 32 characters \
                     (set RUNESTONE__ACCESS__INSTANCE_KEY, for example to the output of `openssl rand -hex 32`)"
                        .into(),
                ))
            }
            other => {
                return Err(ConfigError::Invalid(format!(
                    "access.create must be \"open\", \"key\" or \"anyone\", not {other:?}"
                )))
            }
        }
        if !self.access.instance_key.is_empty() && self.access.instance_key.chars().count() < 32 {
            return Err(ConfigError::Invalid("access.instance_key must be at least 32 characters".into()));
        }
        if !self.access.client_ip_header.is_empty()
            && actix_web::http::header::HeaderName::from_bytes(self.access.client_ip_header.as_bytes()).is_err()
        {
            return Err(ConfigError::Invalid(format!(
                "access.client_ip_header {:?} is not a header name",
                self.access.client_ip_header
            )));
        }
        Reserve::parse(&self.storage.reserve).map_err(ConfigError::Invalid)?;
        self.storage.cache_bytes().map_err(ConfigError::Invalid)?;
        self.storage.store_cache().map_err(ConfigError::Invalid)?;
        if self.server.max_streams_per_client == 0 {
            return Err(ConfigError::Invalid("server.max_streams_per_client must be at least 1".into()));
        }
        if !(1..=3600).contains(&self.server.answer_seconds) {
            return Err(ConfigError::Invalid(format!(
                "server.answer_seconds must be from 1 to 3600, not {}",
                self.server.answer_seconds
            )));
        }
        self.inbound.validate()?;
        if self.storage.snapshot_interval == 0 {
            return Err(ConfigError::Invalid("storage.snapshot_interval must be at least 1".into()));
        }
        if !self.auth.jwt_secret.is_empty() && hex::decode(&self.auth.jwt_secret).map_or(true, |k| k.len() < 32) {
            return Err(ConfigError::Invalid("auth.jwt_secret must be at least 32 bytes written as hex".into()));
        }
        Ok(())
    }
}

impl InboundSettings {
    fn validate(&self) -> Result<(), ConfigError> {
        let d = self.domain.trim();
        if !d.is_empty() && (d.contains(['@', ' ', '/']) || !d.contains('.') || d.len() > 200) {
            return Err(ConfigError::Invalid(format!(
                "inbound.domain {d:?} is not a mail domain such as \"games.example.org\""
            )));
        }
        if !(1..=365).contains(&self.address_days) {
            return Err(ConfigError::Invalid(format!(
                "inbound.address_days must be from 1 to 365, not {}",
                self.address_days
            )));
        }
        if !(4096..=16 << 20).contains(&self.max_bytes) {
            return Err(ConfigError::Invalid(format!(
                "inbound.max_bytes must be from 4096 to 16777216, not {}",
                self.max_bytes
            )));
        }
        if !self.smtp_listen.is_empty() && self.smtp_listen.parse::<std::net::SocketAddr>().is_err() {
            return Err(ConfigError::Invalid(format!(
                "inbound.smtp_listen {:?} is not an address and port such as \"127.0.0.1:2525\"",
                self.smtp_listen
            )));
        }
        if !self.route_key.is_empty() && hex::decode(&self.route_key).map_or(true, |k| k.len() < 32) {
            return Err(ConfigError::Invalid("inbound.route_key must be at least 32 bytes written as hex".into()));
        }
        Ok(())
    }
}

fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Iterator<Item = (String, String)> {
        pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>().into_iter()
    }

    #[test]
    fn defaults_serve_sled_on_8080_with_mail_to_files() {
        let s = Settings::defaults();
        assert_eq!(s.server.port, 8080);
        assert_eq!(s.storage.backend, "sled");
        assert_eq!(s.mail.transport, "file");
    }

    #[test]
    fn environment_overrides_defaults() {
        let s = Settings::layered(None, env(&[("RUNESTONE__SERVER__PORT", "9000"), ("OTHER", "x")])).unwrap();
        assert_eq!(s.server.port, 9000);
    }

    #[test]
    fn page_compression_is_off_unless_asked() {
        assert!(!Settings::layered(None, env(&[])).unwrap().storage.compress_pages);
        let s = Settings::layered(None, env(&[("RUNESTONE__STORAGE__COMPRESS_PAGES", "true")])).unwrap();
        assert!(s.storage.compress_pages);
        let e = Settings::layered(None, env(&[("RUNESTONE__STORAGE__COMPRESS_PAGES", "yes")])).unwrap_err();
        assert!(e.to_string().contains("not true or false"), "{e}");
    }

    #[test]
    fn cache_sizes_parse_and_nonsense_is_named() {
        let defaults = Settings::layered(None, env(&[])).expect("defaults");
        assert_eq!(defaults.storage.cache_bytes(), Ok(96 << 20));
        assert_eq!(defaults.storage.store_cache(), Ok(64 << 20));
        let e = Settings::layered(None, env(&[("RUNESTONE__STORAGE__CACHE_BYTES", "plenty")])).unwrap_err();
        assert!(e.to_string().contains("storage.cache_bytes \"plenty\" is not a size"), "{e}");
        assert_eq!(parse_size("storage.store_cache", "1GiB"), Ok(1 << 30));
    }

    #[test]
    fn reserve_sizes_parse_and_nonsense_is_named() {
        assert_eq!(Reserve::parse("256MB"), Ok(Reserve::Bytes(256 << 20)));
        assert_eq!(Reserve::parse("0"), Ok(Reserve::Bytes(0)));
        assert_eq!(Reserve::parse("1%"), Ok(Reserve::Percent(1.0)));
        assert_eq!(Reserve::parse("1%").unwrap().bytes(1000), 10);
        assert!(Reserve::parse("lots").unwrap_err().contains("storage.reserve \"lots\""));
        assert!(Reserve::parse("120%").unwrap_err().contains("between 0% and 100%"));
        let e = Settings::layered(None, env(&[("RUNESTONE__STORAGE__RESERVE", "5 parsecs")])).unwrap_err();
        assert!(e.to_string().contains("storage.reserve"), "{e}");
        assert_eq!(human_bytes(3 << 20), "3.0 MB");
    }

    #[test]
    fn the_postgres_backend_needs_its_url_and_one_signing_key() {
        let pg = |extra: &[(&str, &str)]| {
            let mut pairs = vec![("RUNESTONE__STORAGE__BACKEND", "postgres")];
            pairs.extend_from_slice(extra);
            Settings::layered(None, env(&pairs))
        };
        let e = pg(&[]).unwrap_err();
        assert!(e.to_string().contains("needs storage.url"), "{e}");
        let e = pg(&[("RUNESTONE__STORAGE__URL", "postgresql://db/runestone")]).unwrap_err();
        assert!(e.to_string().contains("needs auth.jwt_secret, the same on every node"), "{e}");
        let secret = "ab".repeat(32);
        let s =
            pg(&[("RUNESTONE__STORAGE__URL", "postgresql://db/runestone"), ("RUNESTONE__AUTH__JWT_SECRET", &secret)])
                .expect("a complete postgres setting");
        assert_eq!((s.storage.backend.as_str(), s.storage.url.as_str()), ("postgres", "postgresql://db/runestone"));
        let e = Settings::layered(None, env(&[("RUNESTONE__STORAGE__BACKEND", "mysql")])).unwrap_err();
        assert!(e.to_string().contains("use \"sled\" or \"postgres\""), "{e}");
    }

    #[test]
    fn creation_is_open_by_default_and_the_production_example_needs_the_instance_key() {
        let s = Settings::defaults();
        assert!(!s.access.key_required(), "the README's first command creates games without a key");
        let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/production.toml");
        let e = Settings::layered(Some(&example), env(&[])).unwrap_err();
        assert!(e.to_string().contains("access.create = \"key\" needs access.instance_key"), "{e}");
        let key = "k".repeat(32);
        let s = Settings::layered(Some(&example), env(&[("RUNESTONE__ACCESS__INSTANCE_KEY", &key)])).unwrap();
        assert!(s.access.key_required());
        let e = Settings::layered(None, env(&[("RUNESTONE__ACCESS__INSTANCE_KEY", "short")])).unwrap_err();
        assert!(e.to_string().contains("at least 32 characters"), "{e}");
        let e = Settings::layered(None, env(&[("RUNESTONE__ACCESS__CREATE", "closed")])).unwrap_err();
        assert!(e.to_string().contains("\"open\", \"key\" or \"anyone\""), "{e}");
    }

    #[test]
    fn a_wrong_variable_says_what_is_wrong() {
        let e = Settings::layered(None, env(&[("RUNESTONE__SERVER__PROT", "9000")])).unwrap_err();
        assert!(e.to_string().contains("no key \"prot\""), "{e}");
        let e = Settings::layered(None, env(&[("RUNESTONE__SERVER__PORT", "nine")])).unwrap_err();
        assert!(e.to_string().contains("not a whole number"), "{e}");
    }
}
