//! Notices by webhook and in the browser, beside mail: a seat's own webhook
//! and browser (Web Push), the game's public channel (set by the host), the
//! settings of all three, and the one-click stop.
//!
//! A seat's webhook notice is rendered with the seat's mail
//! ([`Service::render_seat_mail`] puts it in [`Mail::hook`]) and split from
//! it in the same store write (`mail::split_channels`): it gathers, is
//! withdrawn and is told again exactly as the mail is, one notice per wait.
//! The public channel is shared by several people, so it is told only what
//! the public is: whose turn it is (by name), the round and phase of the
//! public table header, and the outcome once the game is over; it gathers
//! like a seat's mail, one notice per wait ([`ChannelGathering`]).
//!
//! A seat's push notice rides with its mail in the same way (split to the
//! mail's key with `p` after it), encrypted for the seat's browser and
//! signed with the server's VAPID key when sent ([`crate::webpush`]); a
//! subscription its push service says is gone is removed
//! ([`Service::push_gone`]).
//!
//! A new address (a webhook's, a push service's) is checked, then sent a
//! first notice at once (so a wrong address, a private one, or one that
//! redirects is refused while its owner is there to see it); the same
//! checks are made again at every send.

use chrono::{DateTime, Utc};
use runestone_engine::{Table, Viewer};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::{again_on_conflict, GameRecord, Result, Service, ServiceError};
use crate::auth::{Claims, Role};
use crate::limits::Limiter;
use crate::mail::{held_key, mail_id, queue_key, Mail};
use crate::store::{Side, SideWrite};
use crate::webhook::{Hook, HookError, HookNotice, Shape};
use crate::webpush::{PushError, PushNotice, Subscription, Vapid};

/// The webhook client, the bound on first notices per game, and the key
/// push notices are signed with.
pub struct Webhooks {
    pub client: crate::webhook::Client,
    /// First notices (sent when an address is set) per game.
    pub probes: Limiter,
    /// The server's VAPID key (none: no push notices).
    pub vapid: Option<std::sync::Arc<Vapid>>,
    /// The contact a push service is given in each request's JWT (`sub`):
    /// a `mailto:` or https address.
    pub contact: String,
}

impl Default for Webhooks {
    fn default() -> Self {
        Webhooks {
            client: crate::webhook::Client::default(),
            probes: Limiter::new(20, std::time::Duration::from_secs(3600)),
            vapid: None,
            contact: String::new(),
        }
    }
}

/// A browser's push subscription, as `PushSubscription.toJSON()` gives it.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushSpec {
    /// The push service's https address for the browser. Never shown again whole.
    #[schemars(length(min = 9, max = 2048), regex(pattern = r"^https://[!-~]+$"))]
    pub endpoint: String,
    pub keys: PushKeys,
    /// When the subscription ends, if the browser says (milliseconds); not kept.
    #[serde(default, rename = "expirationTime", skip_serializing_if = "Option::is_none")]
    pub expiration_time: Option<f64>,
}

/// A subscription's keys, base64url.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushKeys {
    /// The browser's P-256 public key, uncompressed (65 bytes).
    #[schemars(length(min = 86, max = 88), regex(pattern = r"^[A-Za-z0-9_-]+=*$"))]
    pub p256dh: String,
    /// The browser's authentication secret (16 bytes).
    #[schemars(length(min = 22, max = 24), regex(pattern = r"^[A-Za-z0-9_-]+=*$"))]
    pub auth: String,
}

/// A browser subscription as answers show it: its push service's address masked.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushShown {
    /// The scheme and host only ("https://fcm.googleapis.com/…").
    pub endpoint: String,
}

/// A webhook to set: its address and its shape.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookSpec {
    /// The hook's https address, as the service (Discord, Slack, a Matrix
    /// bridge, your own) gave it. Never shown again whole.
    #[schemars(length(min = 9, max = 2048), regex(pattern = r"^https://[!-~]+$"))]
    pub url: String,
    /// What the receiver expects: discord, slack, matrix or json.
    pub shape: Shape,
}

/// A webhook as answers show it: its shape and its address masked.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookShown {
    pub shape: Shape,
    /// The scheme and host only ("https://discord.com/…"): the rest is the
    /// hook's secret.
    pub url: String,
}

impl HookShown {
    fn of(h: &Hook) -> HookShown {
        HookShown { shape: h.shape, url: crate::webhook::masked(&h.url) }
    }
}

/// `Some` of whatever is there, `null` included: a field left out is
/// `None` (unchanged), one given as `null` is `Some(None)` (removed).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> std::result::Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// `PUT …/seats/{seat}/notifications`: what to change; a field left out
/// stays as it is.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotificationsChange {
    /// Mail when it is the seat's move (false: no mail from the game).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mail: Option<bool>,
    /// One mail a day at 08:00 instead of one per wait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<bool>,
    /// Mail of the messages the seat receives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub press_mail: Option<bool>,
    /// The seat's time zone (an IANA name); null: none (UTC).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 64))]
    pub tz: Option<Option<String>>,
    /// The seat's webhook; null removes it. A new one is sent a first
    /// notice at once and refused (422) if that fails.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub webhook: Option<Option<HookSpec>>,
    /// The browser the seat's notices are pushed to (a Web Push
    /// subscription made with `push_key`); null removes it. A new one is
    /// sent a first notice at once and refused (422) if that fails.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub push: Option<Option<PushSpec>>,
}

/// A seat's notification settings.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Notifications {
    pub seat: u8,
    /// Whether the seat has a mail address (given by the host; not shown).
    pub email: bool,
    pub mail: bool,
    pub digest: bool,
    pub press_mail: bool,
    pub tz: Option<String>,
    pub webhook: Option<HookShown>,
    /// The browser the seat's notices are pushed to.
    pub push: Option<PushShown>,
    /// The server's public key for push subscriptions (a browser's
    /// `applicationServerKey`, base64url); null when this server pushes no
    /// notices.
    pub push_key: Option<String>,
}

/// `PUT …/channel`: the game's public channel; null removes it.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChannelChange {
    pub webhook: Option<HookSpec>,
}

/// The game's public channel: a webhook told only what the public sees.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Channel {
    pub webhook: Option<HookShown>,
}

/// The public channel's notice, gathering until it is due (as a seat's
/// mail does): its outbox key's parts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ChannelGathering {
    pub due_ms: i64,
    pub id: String,
    #[serde(default)]
    pub held: bool,
}

impl ChannelGathering {
    fn key(&self, game: &str) -> Vec<u8> {
        if self.held {
            held_key(game, self.due_ms, &self.id)
        } else {
            queue_key(self.due_ms, &self.id)
        }
    }
}

/// Who a stop link stops: a seat's webhook, a seat's browser, or the
/// game's channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    Seat(u8),
    Push(u8),
    Channel,
}

impl Stopped {
    fn data(self, game: &str) -> String {
        match self {
            Stopped::Seat(s) => format!("{game}/{s}"),
            Stopped::Push(s) => format!("{game}/{s}/push"),
            Stopped::Channel => format!("{game}/channel"),
        }
    }

    /// The `{who}` of a stop link.
    pub fn who(self) -> String {
        match self {
            Stopped::Seat(s) => s.to_string(),
            Stopped::Push(s) => format!("{s}p"),
            Stopped::Channel => "channel".into(),
        }
    }

    /// A stop link's `{who}` read back.
    pub fn parse(who: &str) -> Option<Stopped> {
        let seat = |s: &str| {
            s.parse::<u8>().ok().filter(|_| (1..=3).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()))
        };
        match who {
            "channel" => Some(Stopped::Channel),
            s => match s.strip_suffix('p') {
                Some(n) => seat(n).map(Stopped::Push),
                None => seat(s).map(Stopped::Seat),
            },
        }
    }
}

/// The short text of a seat's notice: what the mail's context asks and tells.
fn seat_text(ctx: &Value) -> String {
    let mut lines = Vec::new();
    let s = |k: &str| ctx.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    if let Some(p) = s("prompt") {
        lines.push(format!("Asked of you: {p}"));
    }
    if let Some(d) = s("deadline") {
        lines.push(format!("Deadline: {d}"));
    }
    if let Some(sum) = s("summary") {
        lines.push(sum.to_owned());
    }
    if ctx.get("missed").is_some() {
        lines.push("The bot plays for you until you are back: open the game to take your seat again.".into());
    }
    lines.join("\n")
}

impl Service {
    /// Set the webhook client and bounds (once, at start).
    pub fn set_webhooks(&self, w: Webhooks) {
        let _ = self.webhooks.set(w);
    }

    /// The webhook client and bounds: as set, or the defaults (production's guard).
    pub fn webhooks(&self) -> &Webhooks {
        self.webhooks.get_or_init(Webhooks::default)
    }

    fn base(&self) -> &str {
        self.options.public_url.trim_end_matches('/')
    }

    /// The one-click stop link of a webhook.
    pub(crate) fn stop_link(&self, game: &str, who: Stopped) -> String {
        let data = who.data(game);
        let sig = self.keys().link_signature("hook-stop", &data);
        format!("{}/notify/stop/{game}/{}/{sig}", self.base(), who.who())
    }

    /// Whether a stop link is this server's.
    pub fn check_stop_link(&self, game: &str, who: Stopped, sig: &str) -> bool {
        self.keys().check_link_signature("hook-stop", &who.data(game), sig)
    }

    /// A seat's notice to its webhook, beside its mail (none without one).
    pub(super) fn seat_hook(&self, game: &str, hook: Option<&Hook>, seat: u8, ctx: &Value) -> Option<HookNotice> {
        let h = hook?;
        Some(HookNotice {
            url: h.url.clone(),
            shape: h.shape,
            text: seat_text(ctx),
            link: format!("{}/games/{game}", self.base()),
            stop: self.stop_link(game, Stopped::Seat(seat)),
        })
    }

    /// A seat's notice to its browser, beside its mail (none without a
    /// subscription, or on a server without a push key).
    pub(super) fn seat_push(
        &self,
        game: &str,
        sub: Option<&Subscription>,
        seat: u8,
        ctx: &Value,
    ) -> Option<PushNotice> {
        let sub = sub.filter(|_| self.webhooks().vapid.is_some())?;
        Some(PushNotice {
            sub: sub.clone(),
            seat,
            text: seat_text(ctx),
            link: format!("{}/games/{game}", self.base()),
            stop: self.stop_link(game, Stopped::Push(seat)),
        })
    }

    /// Push `notice` (titled `title`, its stable id `id`) to its browser now.
    pub(crate) async fn push_now(
        &self,
        id: &str,
        game: &str,
        kind: &str,
        title: &str,
        notice: &PushNotice,
    ) -> std::result::Result<(), PushError> {
        let w = self.webhooks();
        let Some(vapid) = &w.vapid else {
            return Err(PushError::Refused("this server has no key to push notices with".into()));
        };
        let payload = crate::webpush::payload(id, game, kind, title, notice);
        let contact = if w.contact.is_empty() { self.base() } else { w.contact.as_str() };
        // The push service checks the JWT's expiry against the real time.
        let now = chrono::Utc::now().timestamp();
        crate::webpush::send(&w.client, vapid, contact, &notice.sub, &payload, now).await
    }

    /// A seat's subscription its push service says is gone: removed (when
    /// it is still the seat's), so nothing more is pushed to it.
    pub(crate) async fn push_gone(&self, game: &str, seat: u8, endpoint: &str) -> Result<()> {
        let endpoint = endpoint.to_owned();
        self.change_record(game, move |r| {
            if let Some(s) =
                r.seats.get_mut(seat as usize).filter(|s| s.push.as_ref().is_some_and(|p| p.endpoint == endpoint))
            {
                s.push = None;
            }
            Ok(Vec::new())
        })
        .await
    }

    /// A notice to the game's public channel, as an outbox record.
    fn channel_notice(&self, t: &Table, hook: &Hook, id: String, kind: &str, title: String, text: String) -> Mail {
        Mail {
            id,
            game: t.game_id.clone(),
            kind: kind.to_owned(),
            to_name: String::new(),
            to: crate::webhook::masked(&hook.url),
            subject: title,
            text: String::new(),
            html: String::new(),
            unsubscribe: None,
            attempts: 0,
            last_error: None,
            reply_to: None,
            hook: Some(HookNotice {
                url: hook.url.clone(),
                shape: hook.shape,
                text,
                link: format!("{}/games/{}", self.base(), t.game_id),
                stop: self.stop_link(&t.game_id, Stopped::Channel),
            }),
            push: None,
        }
    }

    /// What the public channel is told after an append from `before` to
    /// `after`: the end, or whose turn it is now (gathering, one notice per
    /// wait). Only what the public sees: names, the public table header,
    /// the outcome once over.
    pub(super) fn channel_notices(&self, before: &Table, after: &Table, record: &mut GameRecord) -> Vec<SideWrite> {
        let Some(hook) = record.channel.clone() else { return Vec::new() };
        let game = &after.game_id;
        let now = self.now().timestamp_millis();
        let gather = self.options.mail_gather.num_milliseconds().max(0);
        let unsent = record.channel_gathering.clone().filter(|g| g.due_ms > now);
        let name = self
            .registry()
            .get(&after.created.ruleset)
            .map_or_else(|| after.created.ruleset.clone(), |g| g.info().name);
        let mut out = Vec::new();
        if after.is_over() && !before.is_over() {
            if let Some(g) = unsent {
                out.push(SideWrite { side: Side::Outbox, key: g.key(game), value: None });
            }
            record.channel_gathering = None;
            let summary = after.outcome().map(|o| o.summary).unwrap_or_default();
            let id = crate::mail::hook_id(&mail_id(game, before.head + 1, "channel", "game_over"));
            let notice = self.channel_notice(after, &hook, id, "game_over", format!("{name} is over"), summary);
            let due = DateTime::<Utc>::from_timestamp_millis(now.max(record.channel_last_ms + gather))
                .unwrap_or_else(|| self.now());
            out.push(super::notify::game_mail_write(record, due, &notice));
            return out;
        }
        let newly = super::deadlines::newly_pending(Some(before), after);
        if newly.is_empty() {
            return out;
        }
        let waiting: Vec<String> = {
            let mut seats: Vec<u8> = after.pending().into_iter().filter(|p| !p.submitted).map(|p| p.seat).collect();
            seats.dedup();
            seats.iter().filter_map(|s| after.created.seats.get(*s as usize).cloned()).collect()
        };
        if waiting.is_empty() {
            return out;
        }
        let header = self
            .registry()
            .get(&after.created.ruleset)
            .and_then(|g| g.header(&after.view(Viewer::Public), &after.created.seats));
        let mut lines = Vec::new();
        if let Some(h) = &header {
            let mut at = Vec::new();
            if let Some(r) = h.round {
                at.push(format!("round {} of {}", r.now, r.of));
            }
            if let Some(p) = &h.phase {
                at.push(p.clone());
            }
            if !at.is_empty() {
                lines.push(at.join(", "));
            }
        }
        lines.push(format!("Waiting for {}.", waiting.join(", ")));
        let g = unsent.unwrap_or_else(|| ChannelGathering {
            due_ms: (now + gather).max(record.channel_last_ms + gather),
            id: crate::mail::hook_id(&mail_id(game, before.head + 1, "channel", "your_move")),
            held: record.mail_held,
        });
        let notice = self.channel_notice(
            after,
            &hook,
            g.id.clone(),
            "turn",
            format!("{name}: waiting for {}", waiting.join(", ")),
            lines.join("\n"),
        );
        out.push(SideWrite { side: Side::Outbox, key: g.key(game), value: Some(crate::mail::encode(&notice)) });
        record.channel_last_ms = g.due_ms;
        record.channel_gathering = Some(g);
        out
    }

    /// The game's name (its ruleset's) and head, for a first notice.
    async fn name_and_head(&self, game: &str) -> Result<(String, u64)> {
        self.with_game(game, |l| {
            let t = &l.table;
            let name =
                self.registry().get(&t.created.ruleset).map_or_else(|| t.created.ruleset.clone(), |g| g.info().name);
            Ok((name, t.head))
        })
        .await
    }

    /// The first notice to a new webhook address, sent at once: the address
    /// is refused (422, in words) unless it takes it.
    async fn first_notice(&self, game: &str, who: Stopped, spec: &HookSpec) -> Result<Hook> {
        let client = &self.webhooks().client;
        let refused = |e: HookError| ServiceError::Unprocessable(format!("this webhook is refused: {e}"));
        client.check(&spec.url).await.map_err(refused)?;
        self.webhooks().probes.take(game).map_err(|wait| {
            ServiceError::too_many("this game's webhooks have been set as often as an hour allows", wait)
        })?;
        let (name, head) = self.name_and_head(game).await?;
        let (whose, for_whom) = match who {
            Stopped::Seat(s) | Stopped::Push(s) => (s.to_string(), "your seat's"),
            Stopped::Channel => ("channel".to_owned(), "the game's public"),
        };
        let hook = Hook { url: spec.url.trim().to_owned(), shape: spec.shape };
        let notice = HookNotice {
            url: hook.url.clone(),
            shape: hook.shape,
            text: format!("This address now gets {for_whom} notices of this game of {name}."),
            link: format!("{}/games/{game}", self.base()),
            stop: self.stop_link(game, who),
        };
        let id = crate::mail::hook_id(&mail_id(game, head, &whose, "webhook_set"));
        let body =
            crate::webhook::body(hook.shape, &id, game, "webhook_set", &format!("{name}: notices set up"), &notice);
        client.post(&hook.url, &body, &id).await.map_err(|e| match e {
            HookError::Refused(w) => ServiceError::Unprocessable(format!("this webhook is refused: {w}")),
            HookError::Failed(w) => ServiceError::Unprocessable(format!(
                "this webhook did not take a first notice ({w}); check the address and try again"
            )),
        })?;
        Ok(hook)
    }

    /// The first notice to a new browser subscription, sent at once: it is
    /// refused (422, in words) unless its push service takes it.
    async fn first_push(&self, game: &str, seat: u8, spec: &PushSpec) -> Result<Subscription> {
        let refused = |w: String| ServiceError::Unprocessable(format!("this browser subscription is refused: {w}"));
        if self.webhooks().vapid.is_none() {
            return Err(refused("this server pushes no notices to browsers".into()));
        }
        let sub = Subscription {
            endpoint: spec.endpoint.trim().to_owned(),
            p256dh: spec.keys.p256dh.trim().to_owned(),
            auth: spec.keys.auth.trim().to_owned(),
        };
        sub.check().map_err(refused)?;
        self.webhooks().client.check(&sub.endpoint).await.map_err(|e| refused(e.to_string()))?;
        self.webhooks().probes.take(game).map_err(|wait| {
            ServiceError::too_many("this game's notices have been set as often as an hour allows", wait)
        })?;
        let (name, head) = self.name_and_head(game).await?;
        let notice = PushNotice {
            sub: sub.clone(),
            seat,
            text: format!("Notices of this game of {name} now come to this browser."),
            link: format!("{}/games/{game}", self.base()),
            stop: self.stop_link(game, Stopped::Push(seat)),
        };
        let id = crate::mail::push_id(&mail_id(game, head, &seat.to_string(), "push_set"));
        self.push_now(&id, game, "push_set", &format!("{name}: notices set up"), &notice).await.map_err(
            |e| match e {
                PushError::Refused(w) | PushError::Gone(w) => refused(w),
                PushError::Failed(w) => ServiceError::Unprocessable(format!(
                    "this browser's push service did not take a first notice ({w}); try again"
                )),
            },
        )?;
        Ok(sub)
    }

    /// A seat's notification settings (the seat itself).
    pub async fn notification_settings(&self, game: &str, claims: &Claims, seat: u8) -> Result<Notifications> {
        own_seat(claims, seat)?;
        self.with_game(game, |l| {
            let s = l
                .record
                .seats
                .get(seat as usize)
                .ok_or_else(|| ServiceError::NotFound(format!("there is no seat {seat}")))?;
            Ok(Notifications {
                seat,
                email: s.email.is_some(),
                mail: s.mail,
                digest: s.digest,
                press_mail: !s.press_mail_off,
                tz: s.tz.clone(),
                webhook: s.webhook.as_ref().map(HookShown::of),
                push: s.push.as_ref().map(|p| PushShown { endpoint: crate::webhook::masked(&p.endpoint) }),
                push_key: self.webhooks().vapid.as_ref().map(|v| v.public_key()),
            })
        })
        .await
    }

    /// Change a seat's notification settings (the seat itself); a new
    /// webhook is sent its first notice before it is kept.
    pub async fn set_notification_settings(
        &self,
        game: &str,
        claims: &Claims,
        seat: u8,
        body: Value,
    ) -> Result<Notifications> {
        own_seat(claims, seat)?;
        let change: NotificationsChange = serde_json::from_value(body).map_err(|e| {
            ServiceError::BadRequest(format!(
                "notification settings are {{\"mail\", \"digest\", \"press_mail\", \"tz\", \"webhook\": {{\"url\", \"shape\"}}, \"push\": {{\"endpoint\", \"keys\": {{\"p256dh\", \"auth\"}}}}}}, each optional: {}",
                super::in_words(&e.to_string())
            ))
        })?;
        if let Some(Some(z)) = &change.tz {
            crate::limits::text("the time zone", z, crate::limits::TZ_MAX).map_err(ServiceError::BadRequest)?;
            super::notify::parse_tz(z).map_err(ServiceError::Unprocessable)?;
        }
        if let Some(Some(h)) = &change.webhook {
            crate::limits::text("the webhook's address", &h.url, crate::webhook::URL_MAX)
                .map_err(ServiceError::BadRequest)?;
        }
        if let Some(Some(p)) = &change.push {
            crate::limits::text("the push service's address", &p.endpoint, crate::webpush::ENDPOINT_MAX)
                .map_err(ServiceError::BadRequest)?;
            crate::limits::text("the subscription's key", &p.keys.p256dh, 128).map_err(ServiceError::BadRequest)?;
            crate::limits::text("the subscription's secret", &p.keys.auth, 64).map_err(ServiceError::BadRequest)?;
        }
        let current = self.with_game(game, |l| {
            l.record
                .seats
                .get(seat as usize)
                .map(|s| (s.webhook.clone(), s.push.clone()))
                .ok_or_else(|| ServiceError::NotFound(format!("there is no seat {seat}")))
        });
        let (current, current_push) = current.await?;
        let push = match &change.push {
            None => None,
            Some(None) => Some(None),
            Some(Some(spec))
                if current_push.as_ref().is_some_and(|c| {
                    c.endpoint == spec.endpoint.trim()
                        && c.p256dh == spec.keys.p256dh.trim()
                        && c.auth == spec.keys.auth.trim()
                }) =>
            {
                None
            }
            Some(Some(spec)) => Some(Some(self.first_push(game, seat, spec).await?)),
        };
        let now = self.now().timestamp_millis();
        let game_id = game.to_owned();
        let hook = match &change.webhook {
            None => None,
            Some(None) => Some(None),
            Some(Some(spec)) if current.as_ref().is_some_and(|c| c.url == spec.url.trim() && c.shape == spec.shape) => {
                None
            }
            Some(Some(spec)) => Some(Some(self.first_notice(game, Stopped::Seat(seat), spec).await?)),
        };
        let c = change.clone();
        self.change_record(game, move |r| {
            let s = r
                .seats
                .get_mut(seat as usize)
                .ok_or_else(|| ServiceError::NotFound(format!("there is no seat {seat}")))?;
            if let Some(m) = c.mail {
                s.mail = m;
            }
            if let Some(d) = c.digest {
                s.digest = d;
            }
            if let Some(p) = c.press_mail {
                s.press_mail_off = !p;
            }
            if let Some(z) = &c.tz {
                s.tz = z.clone();
            }
            if let Some(h) = &hook {
                s.webhook = h.clone();
            }
            // A browser removed or replaced takes its gathering notice with it.
            let mut side = Vec::new();
            if let Some(p) = &push {
                side.extend(gathering_channel(&game_id, s, now, b'p'));
                s.push = p.clone();
            }
            Ok(side)
        })
        .await?;
        self.notification_settings(game, claims, seat).await
    }

    /// The game's public channel (the host).
    pub async fn channel(&self, game: &str, claims: &Claims) -> Result<Channel> {
        host_only(claims)?;
        self.with_game(game, |l| Ok(Channel { webhook: l.record.channel.as_ref().map(HookShown::of) })).await
    }

    /// Set or remove the game's public channel (the host); a new one is
    /// sent its first notice before it is kept.
    pub async fn set_channel(&self, game: &str, claims: &Claims, body: Value) -> Result<Channel> {
        host_only(claims)?;
        let change: ChannelChange = serde_json::from_value(body).map_err(|e| {
            ServiceError::BadRequest(format!(
                "a channel is {{\"webhook\": {{\"url\", \"shape\"}}}}, or {{\"webhook\": null}} to remove it: {}",
                super::in_words(&e.to_string())
            ))
        })?;
        let hook = match &change.webhook {
            None => None,
            Some(spec) => {
                crate::limits::text("the webhook's address", &spec.url, crate::webhook::URL_MAX)
                    .map_err(ServiceError::BadRequest)?;
                let current = self.with_game(game, |l| Ok(l.record.channel.clone())).await?;
                match current {
                    Some(c) if c.url == spec.url.trim() && c.shape == spec.shape => Some(c),
                    _ => Some(self.first_notice(game, Stopped::Channel, spec).await?),
                }
            }
        };
        self.change_record(game, move |r| {
            if r.channel != hook {
                r.channel_gathering = None;
            }
            r.channel = hook.clone();
            Ok(Vec::new())
        })
        .await?;
        self.channel(game, claims).await
    }

    /// The one-click stop: the seat's webhook or the game's channel is
    /// removed, with its notice still gathering.
    pub async fn stop_hook(&self, game: &str, who: Stopped) -> Result<()> {
        let now = self.now().timestamp_millis();
        let game_id = game.to_owned();
        self.change_record(game, move |r| {
            let mut side = Vec::new();
            match who {
                Stopped::Seat(s) => {
                    let seat = r
                        .seats
                        .get_mut(s as usize)
                        .ok_or_else(|| ServiceError::NotFound(format!("there is no seat {s}")))?;
                    seat.webhook = None;
                    // The seat's gathering notice by webhook goes with it.
                    side.extend(gathering_channel(&game_id, seat, now, b'w'));
                }
                Stopped::Push(s) => {
                    let seat = r
                        .seats
                        .get_mut(s as usize)
                        .ok_or_else(|| ServiceError::NotFound(format!("there is no seat {s}")))?;
                    seat.push = None;
                    side.extend(gathering_channel(&game_id, seat, now, b'p'));
                }
                Stopped::Channel => {
                    r.channel = None;
                    if let Some(g) = r.channel_gathering.take().filter(|g| g.due_ms > now) {
                        side.push(SideWrite { side: Side::Outbox, key: g.key(&game_id), value: None });
                    }
                }
            }
            Ok(side)
        })
        .await
    }

    /// A seat's name, or the channel's words, for the stop page.
    pub async fn stopped_words(&self, game: &str, who: Stopped) -> Result<String> {
        match who {
            Stopped::Seat(s) => Ok(format!("{}'s webhook", self.seat_name(game, s).await?)),
            Stopped::Push(s) => Ok(format!("{}'s browser", self.seat_name(game, s).await?)),
            Stopped::Channel => {
                self.with_game(game, |_| Ok(())).await?;
                Ok("this game's public channel".into())
            }
        }
    }

    /// Change the game's private record without an event, with `change`'s
    /// side writes (see [`Service::set_mail_preferences`]).
    pub(super) async fn change_record(
        &self,
        game: &str,
        change: impl Fn(&mut GameRecord) -> Result<Vec<SideWrite>>,
    ) -> Result<()> {
        again_on_conflict(true, || async {
            let slot = self.slot(game);
            let mut guard = self.settled(&slot).await;
            let loaded = self.loaded(game, &mut guard).await?;
            let mut record = loaded.record.clone();
            let side = change(&mut record)?;
            self.write_record(game, loaded, record, side).await
        })
        .await
    }
}

/// The removal of a seat's gathering notice on one channel (`w`: its
/// webhook, `p`: its browser), if one is still to be sent.
fn gathering_channel(game: &str, seat: &super::SeatRecord, now: i64, channel: u8) -> Option<SideWrite> {
    let g = seat.gathering.as_ref().filter(|g| g.due_ms > now)?;
    let mut key = if g.held { held_key(game, g.due_ms, &g.id) } else { queue_key(g.due_ms, &g.id) };
    key.push(channel);
    Some(SideWrite { side: Side::Outbox, key, value: None })
}

fn own_seat(claims: &Claims, seat: u8) -> Result<()> {
    if claims.role == Role::Seat && claims.seat == Some(seat) {
        Ok(())
    } else {
        Err(ServiceError::Forbidden("only the seat itself, with its own token, sees and sets its notifications".into()))
    }
}

fn host_only(claims: &Claims) -> Result<()> {
    if claims.role == Role::Host {
        Ok(())
    } else {
        Err(ServiceError::Forbidden("only the host sets the game's public channel".into()))
    }
}
