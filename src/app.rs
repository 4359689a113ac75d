//! Wiring: settings in, a running server out. Binding port 0 and reading the
//! real port back lets tests start many servers side by side.

use std::net::TcpListener;
use std::sync::Arc;

use anyhow::Context;
use runestone_engine::Registry;

use crate::auth::Keys;
use crate::clock::Clock;
use crate::config::Settings;
use crate::service::{Options, Service};
use crate::store::postgres::PgStore;
use crate::store::sled::{SledSettings, SledStore};
use crate::store::EventStore;

pub struct Application {
    port: u16,
    server: actix_web::dev::Server,
    service: Arc<Service>,
    /// The outbox worker's thread, stopped before the store closes.
    outbox: crate::outbox::Background,
    /// The thread that asks the store whether it answers.
    probe: Arc<crate::health::StoreProbe>,
    /// The port of the built-in SMTP listener, when one listens.
    smtp_port: Option<u16>,
}

/// The event store the settings name: sled under `storage.path`, or the
/// PostgreSQL database of `storage.url` (refused, with what to do, when it
/// cannot be reached or its schema is not this build's).
pub fn open_store(settings: &Settings) -> anyhow::Result<Arc<dyn EventStore>> {
    if settings.storage.backend == "postgres" {
        let store = PgStore::open(&settings.storage.url)
            .map_err(|e| anyhow::anyhow!("cannot use the PostgreSQL database of storage.url: {e}"))?;
        return Ok(Arc::new(store));
    }
    let dir = &settings.storage.path;
    let reserve = crate::config::Reserve::parse(&settings.storage.reserve).map_err(anyhow::Error::msg)?;
    let store_cache = settings.storage.store_cache().map_err(anyhow::Error::msg)?;
    let sled_settings = SledSettings { cache_bytes: store_cache, compress_new: settings.storage.compress_pages };
    let sled = SledStore::open_with(&dir.join("events"), sled_settings)
        .with_context(|| format!("cannot open the event store under {}", dir.display()))?;
    // After a full disk it reopens itself once the reserve is free again.
    sled.recover_above(reserve);
    Ok(Arc::new(sled))
}

/// The open-file limit raised as far as allowed (logged), and shared out
/// between the store, connections and event streams as the settings say.
fn open_files_budget(settings: &Settings) -> crate::http::limits::Budget {
    let s = &settings.server;
    let open_files = match crate::http::limits::raise_open_files() {
        Some((before, now, hard)) => {
            if now > before {
                tracing::info!(before, now, hard, "raised the open-file limit to the hard limit");
            }
            now
        }
        None => 1024,
    };
    let budget =
        crate::http::limits::Budget::derive(open_files, s.max_connections, s.max_streams, s.max_streams_per_client);
    tracing::info!(
        open_files,
        connections = budget.connections,
        streams = budget.streams,
        streams_per_client = budget.streams_per_client,
        "connection bounds"
    );
    budget
}

impl Application {
    /// Open the store, load or create the signing key, bind, and get ready.
    /// The registry's test fixtures are hosted only when the settings ask
    /// for them (`server.test_fixtures`).
    pub fn build(settings: &Settings, clock: Arc<dyn Clock>, registry: Registry) -> anyhow::Result<Application> {
        let registry = if settings.server.test_fixtures { registry } else { registry.without_fixtures() };
        let dir = &settings.storage.path;
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create the data directory {}", dir.display()))?;
        // A brand-new data directory gets its signing key silently; an
        // existing store whose key is gone needs the operator's word.
        let fresh = !dir.join("events").exists();
        let reserve = crate::config::Reserve::parse(&settings.storage.reserve).map_err(anyhow::Error::msg)?;
        let cache_bytes = settings.storage.cache_bytes().map_err(anyhow::Error::msg)?;
        let store = open_store(settings)?;
        if settings.auth.new_signing_key && !fresh && !dir.join("jwt.key").exists() {
            tracing::warn!(
                "making a new token signing key as asked: every token and every link already sent is revoked"
            );
        }
        let keys = Keys::load_or_create(
            &settings.auth.jwt_secret,
            dir,
            settings.auth.token_days,
            fresh || settings.auth.new_signing_key,
        )
        .context("cannot load or create the token signing key")?;
        let listener = TcpListener::bind((settings.server.host.as_str(), settings.server.port))
            .with_context(|| format!("cannot listen on {}:{}", settings.server.host, settings.server.port))?;
        let port = listener.local_addr()?.port();
        // On a port chosen at start the listening address is the public
        // one, unless an https address is configured (a proxy in front of
        // it ends TLS, and names it).
        let public_url = if settings.server.port == 0 && !settings.server.public_url.starts_with("https://") {
            format!("http://{}:{port}", settings.server.host)
        } else {
            settings.server.public_url.clone()
        };
        let service = Arc::new(Service::new(
            store,
            registry,
            keys,
            clock,
            Options {
                public_url,
                snapshot_interval: settings.storage.snapshot_interval,
                cache_games: settings.storage.cache_games,
                cache_bytes,
                mail_gather: chrono::Duration::seconds((settings.mail.gather_minutes * 60.0) as i64),
            },
        ));
        service.follow_notices();
        service.set_access(crate::limits::Access::new(&settings.access));
        service.set_press_limits(crate::service::press::PressLimits {
            max_chars: settings.press.max_chars.max(1),
            rate: crate::limits::Limiter::new(settings.press.per_hour, std::time::Duration::from_secs(3600)),
            quiet_minutes: settings.press.quiet_minutes.max(1),
        });
        let inbound = &settings.inbound;
        service.set_inbound(crate::service::inbound::Inbound {
            domain: inbound.domain.trim().to_ascii_lowercase(),
            days: inbound.address_days,
            trusted_mta: inbound.trusted_mta.trim().to_owned(),
            max_bytes: inbound.max_bytes,
            rate: crate::limits::Limiter::new(inbound.per_hour, std::time::Duration::from_secs(3600)),
            route_key: crate::service::inbound::route_key(service.keys(), &inbound.route_key),
        });
        let smtp_port = if inbound.smtp_listen.is_empty() || inbound.domain.is_empty() {
            None
        } else {
            let l = TcpListener::bind(&inbound.smtp_listen)
                .with_context(|| format!("cannot listen for mail on {} (inbound.smtp_listen)", inbound.smtp_listen))?;
            l.set_nonblocking(true)?;
            let port = l.local_addr()?.port();
            let l = tokio::net::TcpListener::from_std(l)?;
            tokio::spawn(crate::inbound::listen(l, service.clone(), inbound.domain.trim().to_ascii_lowercase()));
            tracing::info!(port, "taking replies by mail over SMTP");
            Some(port)
        };
        if settings.notify.allow_loopback {
            tracing::warn!("notify.allow_loopback is set: webhooks may reach this machine's loopback (tests only)");
        }
        let vapid = if settings.notify.push {
            let v = crate::webpush::Vapid::load_or_create(dir).context("cannot load or create the push key")?;
            Some(Arc::new(v))
        } else {
            None
        };
        service.set_webhooks(crate::service::hooks::Webhooks {
            client: crate::webhook::Client {
                enabled: settings.notify.webhooks,
                loopback_ok: settings.notify.allow_loopback,
                hosts: settings.notify.test_hosts.clone(),
                timeout: std::time::Duration::from_secs(settings.notify.timeout_seconds.clamp(1, 60)),
            },
            probes: crate::limits::Limiter::new(settings.notify.probes_per_hour, std::time::Duration::from_secs(3600)),
            vapid,
            contact: settings.notify.push_contact.trim().to_owned(),
        });
        if settings.storage.backend == "sled" {
            service.watch_space(crate::store::space::Space::new(dir.clone(), reserve));
        }
        if let Some(level) = service.space() {
            tracing::info!(
                free = %crate::config::human_bytes(level.free),
                reserve = %crate::config::human_bytes(level.reserve),
                "disk space"
            );
        }
        let transport = crate::mail::Transport::from_settings(&settings.mail, dir)?;
        let from: lettre::message::Mailbox = settings
            .mail
            .from
            .parse()
            .with_context(|| format!("mail.from {:?} is not a mailbox", settings.mail.from))?;
        let domain = from.email.domain().to_owned();
        let worker = crate::outbox::Worker {
            service: service.clone(),
            transport,
            from,
            domain,
            policy: crate::outbox::Policy {
                max_attempts: settings.mail.max_attempts.max(1),
                backoff: chrono::Duration::seconds(settings.mail.retry_seconds.max(1)),
                poll: std::time::Duration::from_millis(settings.mail.poll_ms.max(10)),
                parallel: settings.mail.connections.clamp(1, 64) as usize,
                rate: settings.mail.rate,
                ..Default::default()
            },
            held: Default::default(),
        };
        let outbox =
            crate::outbox::Background::start(worker, settings.mail.nice).context("cannot start the outbox thread")?;
        tokio::spawn(
            crate::deadlines::Scheduler {
                service: service.clone(),
                poll: std::time::Duration::from_millis(settings.mail.poll_ms.max(10)),
            }
            .run(),
        );
        let probe = crate::health::StoreProbe::start(service.store()).context("cannot start the store's probe")?;
        let budget = open_files_budget(settings);
        let server = crate::http::serve(
            listener,
            service.clone(),
            crate::http::Serving {
                max_body_bytes: settings.server.max_body_bytes,
                workers: settings.server.workers,
                budget,
                answer_within: std::time::Duration::from_secs(settings.server.answer_seconds),
                probe: probe.clone(),
            },
        )?;
        Ok(Application { port, server, service, outbox, probe, smtp_port })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The port of the built-in SMTP listener, when one listens.
    pub fn smtp_port(&self) -> Option<u16> {
        self.smtp_port
    }

    /// A handle to stop the server from elsewhere.
    pub fn handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }

    pub fn service(&self) -> &Arc<Service> {
        &self.service
    }

    /// Serve until stopped (SIGINT/SIGTERM), then flush the store.
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        let Application { server, service, mut outbox, probe, .. } = self;
        server.await?;
        probe.stop();
        // Stopped first, so that none of its writes comes after the close.
        tokio::task::spawn_blocking(move || outbox.stop()).await?;
        service.store().close()?;
        Ok(())
    }
}
