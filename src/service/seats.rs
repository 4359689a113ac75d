//! The seats: checking a token, issuing a seat's new link, a seat's name,
//! and its mail preferences.

use runestone_engine::{Actor, Holder};
use serde_json::{json, Value};

use super::{again_on_conflict, record_key, shown, Result, Service, ServiceError};
use crate::auth::{Claims, Role};
use crate::limits;
use crate::store::{Side, SideWrite, Write};

impl Service {
    /// Check a token for `game`: signature, expiry, game, and for seats the
    /// generation (revoked tokens fail).
    pub async fn authorize(&self, game: &str, token: &str) -> Result<Claims> {
        // The later of the wall clock and the service's clock (which tests
        // drive), so a token issued by either is never "from the future".
        let now = chrono::Utc::now().timestamp().max(self.clock.now().timestamp());
        let claims = self.keys.check_at(token, now).map_err(|e| ServiceError::Unauthorized(e.to_string()))?;
        if claims.sub != game {
            return Err(ServiceError::Forbidden(format!(
                "this token is for game {}, not for game {}",
                shown(&claims.sub),
                shown(game)
            )));
        }
        if let Some(holder) = holder_of(claims.role) {
            let slot = self.slot(game);
            let mut guard = slot.game.lock().await;
            let loaded = self.loaded(game, &mut guard).await?;
            let current = loaded.table.holders.of(holder);
            if claims.gen > current {
                return Err(ServiceError::Unauthorized(format!(
                    "this token names generation {} of the {} token, which the game never issued",
                    claims.gen,
                    holder.name()
                )));
            }
            if claims.gen != current {
                return Err(ServiceError::Unauthorized(format!(
                    "this {} token was replaced by a newer one; use the newest",
                    holder.name()
                )));
            }
        }
        if let (Role::Seat, Some(seat)) = (claims.role, claims.seat) {
            let slot = self.slot(game);
            let mut guard = slot.game.lock().await;
            let loaded = self.loaded(game, &mut guard).await?;
            let seats = loaded.table.generations.len();
            let current = loaded.table.generations.get(seat as usize).copied();
            if current.is_none() {
                return Err(ServiceError::Unauthorized(format!(
                    "this token names seat {seat}, but the game's seats are 0 to {}",
                    seats.saturating_sub(1)
                )));
            }
            if current.is_some_and(|g| g < claims.gen) {
                return Err(ServiceError::Unauthorized(format!(
                    "this token names link generation {} of seat {seat}, which the game never issued",
                    claims.gen
                )));
            }
            if current != Some(claims.gen) {
                return Err(ServiceError::Unauthorized(
                    "this seat's link was revoked by the host; use the newest link you were sent".into(),
                ));
            }
        }
        Ok(claims)
    }
    /// Revoke a seat's links and issue a new one (host only).
    pub async fn reissue(&self, game: &str, claims: &Claims, seat: u8, reason: String) -> Result<Value> {
        if claims.role != Role::Host {
            return Err(ServiceError::Forbidden("only the host can issue a seat's new link".into()));
        }
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        limits::text("the reason", &reason, limits::TEXT_MAX).map_err(ServiceError::BadRequest)?;
        let reason = if reason.trim().is_empty() { "new link issued by the host".to_owned() } else { reason };
        let draft = loaded.table.revoke(Actor::Host, seat, &reason)?;
        self.commit(&slot, loaded, vec![draft], |_, _| Vec::new()).await?;
        let gen = loaded.table.generations[seat as usize];
        let token = self.keys.issue(game, Role::Seat, Some(seat), gen, self.clock.now());
        Ok(json!({ "seat": seat, "generation": gen, "link": self.link(game, &token), "token": token }))
    }
    /// Revoke the host's own token or the referee's, and issue a new one
    /// (host only): the old one stops working at once. The host's new token
    /// comes with its link; the referee's is for the API.
    pub async fn reissue_holder(&self, game: &str, claims: &Claims, holder: Holder, reason: String) -> Result<Value> {
        if claims.role != Role::Host {
            return Err(ServiceError::Forbidden(format!("only the host can issue a new {} token", holder.name())));
        }
        let slot = self.slot(game);
        let mut guard = self.settled(&slot).await;
        let loaded = self.loaded(game, &mut guard).await?;
        limits::text("the reason", &reason, limits::TEXT_MAX).map_err(ServiceError::BadRequest)?;
        let reason =
            if reason.trim().is_empty() { format!("new {} token issued by the host", holder.name()) } else { reason };
        let draft = loaded.table.revoke_holder(Actor::Host, holder, &reason);
        self.commit(&slot, loaded, vec![draft], |_, _| Vec::new()).await?;
        let generation = loaded.table.holders.of(holder);
        let role = match holder {
            Holder::Host => Role::Host,
            Holder::Referee => Role::Referee,
        };
        let token = self.keys.issue(game, role, None, generation, self.clock.now());
        let link = (holder == Holder::Host).then(|| self.link(game, &token));
        Ok(json!({ "role": holder.name(), "generation": generation, "token": token, "link": link }))
    }
    /// A seat's display name.
    pub async fn seat_name(&self, game: &str, seat: u8) -> Result<String> {
        self.with_game(game, |l| {
            l.record
                .seats
                .get(seat as usize)
                .map(|s| s.name.clone())
                .ok_or_else(|| ServiceError::NotFound(format!("there is no seat {seat}")))
        })
        .await
    }
    /// A seat's mail preferences: whether it gets mail, as a daily digest,
    /// and its time zone.
    pub async fn mail_preferences(&self, game: &str, seat: u8) -> Result<(bool, bool, Option<String>)> {
        self.with_game(game, |l| {
            l.record
                .seats
                .get(seat as usize)
                .map(|s| (s.mail, s.digest, s.tz.clone()))
                .ok_or_else(|| ServiceError::NotFound(format!("there is no seat {seat}")))
        })
        .await
    }
    /// Change a seat's mail preferences (`None` leaves a setting as it is).
    /// The change is an append without events over the record as read
    /// (`Write::unchanged`): on a store shared by several nodes another
    /// node's append in between is met as a conflict, and the change is made
    /// again on the record that append left. Every other write of the record
    /// names the record it read too, and carries preferences written
    /// meanwhile over (`commit_sealed`): no node puts back an older choice.
    pub async fn set_mail_preferences(
        &self,
        game: &str,
        seat: u8,
        mail: Option<bool>,
        digest: Option<bool>,
        tz: Option<Option<String>>,
    ) -> Result<()> {
        if let Some(Some(z)) = &tz {
            super::notify::parse_tz(z).map_err(ServiceError::Unprocessable)?;
        }
        self.change_seat_record(game, seat, |s| {
            if let Some(m) = mail {
                s.mail = m;
            }
            if let Some(d) = digest {
                s.digest = d;
            }
            if let Some(z) = &tz {
                s.tz = z.clone();
            }
        })
        .await
    }
    /// Change a seat's part of the game's private record, without an event:
    /// an append without events over the record as read (see
    /// [`Service::set_mail_preferences`]).
    pub(super) async fn change_seat_record(
        &self,
        game: &str,
        seat: u8,
        change: impl Fn(&mut super::SeatRecord),
    ) -> Result<()> {
        again_on_conflict(true, || async {
            let slot = self.slot(game);
            let mut guard = self.settled(&slot).await;
            let loaded = self.loaded(game, &mut guard).await?;
            let mut record = loaded.record.clone();
            let s = record
                .seats
                .get_mut(seat as usize)
                .ok_or_else(|| ServiceError::NotFound(format!("there is no seat {seat}")))?;
            change(s);
            let bytes = serde_json::to_vec(&record).expect("JSON");
            let side = vec![SideWrite { side: Side::Games, key: record_key(game), value: Some(bytes.clone()) }];
            let unchanged = self.record_as_read(game, &loaded.record_bytes);
            let head = Some(loaded.table.head);
            self.append(Write { game: game.to_owned(), expect_head: head, events: Vec::new(), side, unchanged })
                .await?;
            loaded.record = record;
            loaded.record_bytes = bytes;
            Ok(())
        })
        .await
    }
}

/// The holder a role's token belongs to (the host or the referee), whose
/// tokens are revoked by generation; `None` for a seat's.
fn holder_of(role: Role) -> Option<Holder> {
    match role {
        Role::Host => Some(Holder::Host),
        Role::Referee => Some(Holder::Referee),
        Role::Seat => None,
    }
}
