//! Creating a game: the request and what its creator receives, the checks
//! on seats and host, and the first write of a game (also a fork's).

use std::collections::VecDeque;

use runestone_engine::log::seal;
use runestone_engine::{Actor, Seed, Table};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::cache::Loaded;
use super::commit::idem_key;
use super::{in_words, plausible_email, record_key, Answer, GameRecord, Result, SeatRecord, Service, ServiceError};
use crate::auth::Role;
use crate::clock::stamp;
use crate::limits;
use crate::metrics::Metrics;
use crate::store::{Side, SideWrite, Write};

/// A seat as given at creation.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatSpec {
    /// The player's name as shown to all: 1 to 40 characters, on one line
    /// (no control characters).
    #[schemars(length(min = 1, max = 40), pattern(crate::limits::NAME_LINE))]
    pub name: String,
    #[serde(default)]
    #[schemars(length(max = 254), pattern(crate::limits::ONE_LINE))]
    pub email: Option<String>,
    /// IANA time zone ("Atlantic/Reykjavik") for times in mail and pages.
    #[serde(default)]
    #[schemars(length(max = 64), pattern(crate::limits::ONE_LINE))]
    pub tz: Option<String>,
    /// One mail a day instead of one per move.
    #[serde(default)]
    pub digest: bool,
}

/// The host as given at creation (for alerts).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// 1 to 40 characters, on one line.
    #[schemars(length(min = 1, max = 40), pattern(crate::limits::NAME_LINE))]
    pub name: String,
    #[schemars(length(max = 254), pattern(crate::limits::ONE_LINE))]
    pub email: String,
    #[serde(default)]
    #[schemars(length(max = 64), pattern(crate::limits::ONE_LINE))]
    pub tz: Option<String>,
}

/// `POST /api/v1/games`.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateGame {
    pub ruleset: String,
    #[serde(default)]
    pub options: Value,
    pub seats: Vec<SeatSpec>,
    #[serde(default)]
    pub host: Option<HostSpec>,
    /// The deadline policy; stored as given until deadlines are enforced.
    #[serde(default)]
    pub deadlines: Value,
    /// Messages between the players: full press unless chosen otherwise.
    #[serde(default)]
    pub press: Option<super::press::PressOptions>,
}

/// What a new game's creator receives. Tokens appear only here.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatedGame {
    pub game_id: String,
    pub ruleset: String,
    pub seed_commitment: String,
    pub host_token: String,
    pub referee_token: String,
    pub seats: Vec<SeatToken>,
    pub head: u64,
    /// Set when the game's mail is held: why, and what releases it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mail: Option<String>,
}

/// A seat's token and link, as given to its player.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatToken {
    pub seat: u8,
    pub name: String,
    pub token: String,
    pub link: String,
}

impl Service {
    /// Create a game for a trusted caller (the instance key's holder): its
    /// mail is sent at once. `idempotency` is the client's Idempotency-Key.
    pub async fn create(&self, req: Value, idempotency: Option<&str>) -> Result<Answer> {
        self.create_checked(req, idempotency, None).await
    }

    /// Create a game for `caller`, as the `[access]` settings allow: with
    /// the instance key, or (creation open to all) without it, when the
    /// game's mail is held until its host confirms their address by a
    /// mailed link. Either way within the caller's rate.
    pub async fn create_by(&self, req: Value, idempotency: Option<&str>, caller: &limits::Caller) -> Result<Answer> {
        let access = self.access();
        let trusted = match caller.instance_key.as_deref() {
            Some(k) if access.is_instance_key(k) => true,
            Some(_) => {
                return Err(ServiceError::Unauthorized(
                    "that is not this server's instance key; ask its operator for the key, \
                     or send no Authorization header to create a game whose host confirms it by mail"
                        .into(),
                ))
            }
            None if access.key_required => {
                return Err(ServiceError::Unauthorized(
                    "this server creates games only for requests carrying its instance key \
                     (Authorization: Bearer <key>); ask its operator for it"
                        .into(),
                ))
            }
            None => access.trust_all,
        };
        access
            .creates
            .take(&caller.client)
            .map_err(|wait| ServiceError::too_many("too many games were created from your address", wait))?;
        let held = if trusted {
            None
        } else {
            let host = req.get("host").and_then(|h| h.get("email")).and_then(Value::as_str);
            Some(host.map(|e| e.trim().to_lowercase()))
        };
        self.create_checked(req, idempotency, held).await
    }

    /// Create a game; `held` is `Some(host address)` when its mail waits
    /// for the host's confirmation.
    async fn create_checked(
        &self,
        req: Value,
        idempotency: Option<&str>,
        held: Option<Option<String>>,
    ) -> Result<Answer> {
        let key = idempotency.map(|k| idem_key("~create", k));
        if let Some(k) = &key {
            if let Some(a) = self.stored_answer(k, &req)? {
                return Ok(a);
            }
        }
        self.non_essential_write()?;
        let spec: CreateGame = serde_json::from_value(req.clone())
            .map_err(|e| ServiceError::BadRequest(format!("not a game to create: {}", in_words(&e.to_string()))))?;
        let game = self.registry.get(&spec.ruleset).ok_or_else(|| {
            ServiceError::Unprocessable(format!(
                "unknown ruleset {:?}; this server offers: {}",
                spec.ruleset,
                self.registry.ids().collect::<Vec<_>>().join(", ")
            ))
        })?;
        for (i, s) in spec.seats.iter().enumerate() {
            let name = limits::name(&format!("seat {i}'s name"), &s.name).map_err(ServiceError::BadRequest)?;
            if let Some(email) = &s.email {
                limits::email(&format!("seat {i}'s email"), email).map_err(ServiceError::BadRequest)?;
                if !plausible_email(email) {
                    return Err(ServiceError::Unprocessable(format!(
                        "seat {i} ({name}): {email:?} is not an email address"
                    )));
                }
            }
            if let Some(tz) = &s.tz {
                limits::text(&format!("seat {i}'s time zone"), tz, limits::TZ_MAX).map_err(ServiceError::BadRequest)?;
                super::notify::parse_tz(tz)
                    .map_err(|e| ServiceError::Unprocessable(format!("seat {i} ({name}): {e}")))?;
            }
        }
        if let Some(h) = &spec.host {
            limits::name("the host's name", &h.name).map_err(ServiceError::BadRequest)?;
            limits::email("the host's email", &h.email).map_err(ServiceError::BadRequest)?;
            if !plausible_email(&h.email) {
                return Err(ServiceError::Unprocessable(format!("host: {:?} is not an email address", h.email)));
            }
            if let Some(tz) = &h.tz {
                limits::text("the host's time zone", tz, limits::TZ_MAX).map_err(ServiceError::BadRequest)?;
                super::notify::parse_tz(tz).map_err(|e| ServiceError::Unprocessable(format!("host: {e}")))?;
            }
        }
        let policy = super::deadlines::Policy::parse(&spec.deadlines).map_err(ServiceError::Unprocessable)?;
        let press = spec.press.unwrap_or_default().checked()?;
        if let Some(Some(address)) = &held {
            self.access().confirmations.take(address).map_err(|wait| {
                ServiceError::too_many(&format!("confirmations were mailed to {address} too often"), wait)
            })?;
        }
        let game_id = crate::new_game_id();
        let seed = Seed(crate::random_bytes::<32>());
        let names: Vec<String> = spec.seats.iter().map(|s| s.name.trim().to_owned()).collect();
        let mut drafts = Table::create(game.as_ref(), &spec.options, names, &seed, None)?;
        drafts.extend(policy_draft(&policy));
        let record = GameRecord {
            seed: seed.to_hex(),
            created_at: stamp(self.clock.now()),
            seats: spec
                .seats
                .into_iter()
                .map(|s| SeatRecord {
                    name: s.name.trim().to_owned(),
                    email: s.email,
                    tz: s.tz,
                    mail: true,
                    digest: s.digest,
                    ..Default::default()
                })
                .collect(),
            host: spec.host.map(|h| HostSpec { name: h.name.trim().to_owned(), ..h }),
            deadlines: spec.deadlines,
            clocks: Default::default(),
            mail_held: held.is_some(),
            press,
            channel: None,
            channel_gathering: None,
            channel_last_ms: 0,
        };
        let created = self.write_new_game(&game_id, drafts, &seed, record, key, &req).await?;
        Ok(Answer { status: 201, body: serde_json::to_value(created).expect("JSON") })
    }
    pub(super) async fn write_new_game(
        &self,
        game_id: &str,
        drafts: Vec<runestone_engine::Draft>,
        seed: &Seed,
        record: GameRecord,
        idem: Option<Vec<u8>>,
        request: &Value,
    ) -> Result<CreatedGame> {
        let now = self.clock.now();
        let events = seal(game_id, None, drafts, &stamp(now), seed);
        let table = Table::fold(&self.registry, &events)?;
        let created = CreatedGame {
            game_id: game_id.to_owned(),
            ruleset: table.created.ruleset.clone(),
            seed_commitment: seed.commitment(),
            host_token: self.keys.issue(game_id, Role::Host, None, 0, now),
            referee_token: self.keys.issue(game_id, Role::Referee, None, 0, now),
            seats: table
                .created
                .seats
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    let token = self.keys.issue(game_id, Role::Seat, Some(i as u8), 0, now);
                    SeatToken { seat: i as u8, name: name.clone(), link: self.link(game_id, &token), token }
                })
                .collect(),
            head: table.head,
            mail: record.mail_held.then(|| match &record.host {
                Some(h) => format!(
                    "no mail goes to the players until the host confirms {} by the link just mailed there",
                    h.email
                ),
                None => "no mail goes to the players: the game has no host address to confirm; \
                         give the players their links yourself, or create the game with the instance key"
                    .to_owned(),
            }),
        };
        let mut record = record;
        let (mut side, dues) = self.schedule(None, &table, table.head, &mut record);
        self.note_asked(None, &table, table.head, &mut record);
        side.extend(self.invitations(&table, &mut record, &dues));
        if record.mail_held {
            side.extend(self.host_confirmation(&table, &record));
        } else {
            side.extend(self.host_link_mail(&table, &record));
        }
        let record_bytes = serde_json::to_vec(&record).expect("JSON");
        side.push(SideWrite { side: Side::Games, key: record_key(game_id), value: Some(record_bytes.clone()) });
        side.extend(Self::answer_write(idem, request, 201, &serde_json::to_value(&created).expect("JSON")));
        let write = Write { game: game_id.to_owned(), expect_head: None, events, side, unchanged: Vec::new() };
        self.append(write).await?;
        Metrics::inc(&self.metrics.games_created);
        let slot = self.slot(game_id);
        let bytes = serde_json::to_vec(&table.save()).map_or(0, |v| v.len());
        *slot.game.lock().await = Some(Loaded {
            table,
            seed: seed.clone(),
            record,
            record_bytes,
            head_time: None,
            in_flight: VecDeque::new(),
        });
        self.count_bytes(game_id, bytes);
        Ok(created)
    }
}

/// The event that sets a deadline policy, if there is one.
pub(super) fn policy_draft(policy: &Option<super::deadlines::Policy>) -> Option<runestone_engine::Draft> {
    policy.as_ref().map(|p| {
        runestone_engine::Draft::kernel(
            Actor::System,
            runestone_engine::KernelEvent::DeadlinePolicySet { policy: serde_json::to_value(p).expect("JSON") },
        )
    })
}
