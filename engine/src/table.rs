//! The kernel: one game's position folded from its log, and the checks every
//! game shares (not over, the seat is pending, the expected seq matches).
//!
//! A [`Table`] is rebuilt by folding envelopes. Rollbacks and undos are
//! events too: [`Table::fold`] first works out which events are still in
//! force, then folds only those.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::erased::{DecideError, DynGame, DynState, Registry, SchemaError};
use crate::game::{Outcome, Pending, RuleError, Seat, Unavailable, Viewer, Visibility};
use crate::log::{
    Actor, Body, BodyRef, Decision, Draft, Envelope, EventRef, ForkOrigin, Hash, Holder, Json, KernelEvent,
};
use crate::pack;
use crate::present::CommandTemplate;
use crate::press::Conversation;
use crate::rng::{GameRng, Seed};

/// Why a command or a kernel request was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum KernelError {
    /// The game has ended.
    GameOver,
    /// The seat has nothing to decide now.
    NotPending { seat: Seat, waiting: Vec<Pending> },
    /// The client's idea of the head is out of date.
    Stale { expected: u64, head: u64 },
    /// The command (or options) is not of this game's schema.
    Schema(String),
    /// The rules refuse it.
    Rule(RuleError),
    /// A kernel request that cannot be done (bad rollback target, no undo).
    Invalid(String),
}

impl std::fmt::Display for KernelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KernelError::GameOver => f.write_str("the game is over"),
            KernelError::NotPending { seat, waiting } => {
                let who: Vec<String> = waiting.iter().map(|p| format!("seat {} ({})", p.seat, p.kind)).collect();
                if who.is_empty() {
                    write!(f, "seat {seat} has nothing to decide now")
                } else {
                    write!(f, "seat {seat} has nothing to decide now; waiting for {}", who.join(", "))
                }
            }
            KernelError::Stale { expected, head } => {
                write!(f, "expected_seq {expected} is stale: the log's head is now {head}; reload and decide again")
            }
            KernelError::Schema(s) => f.write_str(s),
            KernelError::Rule(r) => f.write_str(&r.message),
            KernelError::Invalid(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for KernelError {}

impl From<DecideError> for KernelError {
    fn from(e: DecideError) -> Self {
        match e {
            DecideError::Schema(s) => KernelError::Schema(s.0),
            DecideError::Rule(r) => KernelError::Rule(r),
        }
    }
}

/// Why a log could not be folded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FoldError {
    /// The log does not start with `GameCreated`, or names an unknown ruleset.
    BadStart(String),
    /// A sequence gap or a broken `prev_hash` link.
    Chain { seq: u64, problem: String },
    /// An event this build cannot read.
    Schema { seq: u64, problem: String },
    /// `push` met a rollback or undo: fold the whole log again.
    NeedsRefold,
}

impl std::fmt::Display for FoldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FoldError::BadStart(s) => write!(f, "bad start of log: {s}"),
            FoldError::Chain { seq, problem } => write!(f, "event {seq}: {problem}"),
            FoldError::Schema { seq, problem } => {
                write!(f, "event {seq} no longer applies: {problem}")
            }
            FoldError::NeedsRefold => f.write_str("a rollback needs the whole log folded again"),
        }
    }
}

impl std::error::Error for FoldError {}

/// What the kernel remembers of a game's creation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Created {
    pub ruleset: String,
    pub rules_version: u32,
    pub options: Value,
    pub seats: Vec<String>,
    pub seed_commitment: String,
    pub forked_from: Option<ForkOrigin>,
}

/// A decision that its seat may still take back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct UndoStep {
    first_seq: u64,
    seat: Seat,
}

/// One game's position.
#[derive(Clone)]
pub struct Table {
    pub game_id: String,
    game: Arc<dyn DynGame>,
    pub created: Created,
    state: DynState,
    /// Seq and hash of the last event folded.
    pub head: u64,
    pub head_hash: Hash,
    /// Current token generation per seat (tokens of older ones are revoked).
    pub generations: Vec<u32>,
    /// Current token generations of the host and the referee.
    pub holders: Holders,
    pub seed_revealed: Option<String>,
    /// Seq of the last setup event: nothing before it can be rolled back.
    pub setup_end: u64,
    undo: Vec<UndoStep>,
    /// The clocks: the deadline policy, whether the host stopped them, the
    /// consecutive timeouts and forfeits per seat, vacations.
    pub clock: Clocks,
    /// The messages written at the table so far (never read by the rules).
    pub press: Arc<Conversation>,
}

/// The current token generations of the host and the referee (0 until one
/// is revoked).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holders {
    pub host: u32,
    pub referee: u32,
}

impl Holders {
    pub fn of(&self, holder: Holder) -> u32 {
        match holder {
            Holder::Host => self.host,
            Holder::Referee => self.referee,
        }
    }

    fn of_mut(&mut self, holder: Holder) -> &mut u32 {
        match holder {
            Holder::Host => &mut self.host,
            Holder::Referee => &mut self.referee,
        }
    }

    fn is_initial(&self) -> bool {
        *self == Holders::default()
    }
}

/// What the log says about deadlines (the times themselves are computed by
/// the server's scheduler from these facts).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Clocks {
    pub policy: Value,
    pub paused: Option<std::collections::BTreeMap<String, i64>>,
    pub timeouts: Vec<u32>,
    pub forfeited: Vec<bool>,
    /// Per seat: the end of its latest vacation (RFC 3339), if any.
    pub vacation_until: Vec<Option<String>>,
}

#[derive(Serialize, Deserialize)]
struct Saved {
    game_id: String,
    created: Created,
    state: Value,
    head: u64,
    head_hash: Hash,
    generations: Vec<u32>,
    #[serde(default)]
    holders: Holders,
    seed_revealed: Option<String>,
    setup_end: u64,
    undo: Vec<UndoStep>,
    #[serde(default)]
    clock: Clocks,
    #[serde(default, skip_serializing_if = "Conversation::is_empty")]
    press: Conversation,
}

/// What a snapshot holds ([`Table::snapshot`]): the position less what its
/// log's first event (the creation: ruleset, rules version, options, seed
/// commitment, fork origin) says, and the game's state as its `save` gives it.
#[derive(Serialize, Deserialize)]
struct Held {
    head: u64,
    head_hash: Hash,
    /// The seats' names now (a substitute may have taken one over).
    seats: Vec<String>,
    generations: Vec<u32>,
    /// Left out while neither was revoked (as in snapshots made before).
    #[serde(default, skip_serializing_if = "Holders::is_initial")]
    holders: Holders,
    seed_revealed: Option<String>,
    setup_end: u64,
    undo: Vec<UndoStep>,
    clock: Clocks,
    /// Left out while no message was written (as in snapshots made before).
    #[serde(default, skip_serializing_if = "Conversation::is_empty")]
    press: Conversation,
    state: Value,
}

/// The first byte of a snapshot in the packed form ([`Table::snapshot`]).
/// Snapshots written before it are the JSON text of [`Table::save`] (they
/// begin with `{`) and still load.
pub const SNAPSHOT_PACKED: u8 = 0x02;

fn game_body(game: &dyn DynGame, event: Json) -> Body {
    Body::Game { v: game.event_version(), event }
}

/// An event told in words on the position it was written on ([`Table::tell`]):
/// fixed once written, whatever the game's position is later.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Told {
    /// As those who may see the event read it.
    pub seen: String,
    /// As the others read it (its redacted form); `None` for a public event.
    pub unseen: Option<String>,
}

impl Told {
    /// The words `viewer` reads of `env` (the event told); `over`: the game
    /// is over and every event is seen.
    pub fn for_viewer(&self, env: &Envelope, viewer: Viewer, over: bool) -> &str {
        match &self.unseen {
            Some(unseen) if !env.visible_to(viewer, over) => unseen,
            _ => &self.seen,
        }
    }

    /// The bytes its words take.
    pub fn len(&self) -> usize {
        self.seen.len() + self.unseen.as_ref().map_or(0, String::len)
    }

    /// Whether it has no words at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Table {
    /// The drafts that create a game: `GameCreated`, then the game's setup,
    /// by the rules version the options ask for (the newest unless the game
    /// lets its options choose).
    pub fn create(
        game: &dyn DynGame,
        options: &Value,
        seat_names: Vec<String>,
        seed: &Seed,
        forked_from: Option<ForkOrigin>,
    ) -> Result<Vec<Draft>, KernelError> {
        Self::create_as(game, options, seat_names, seed, forked_from, None)
    }

    /// [`Table::create`] by a given rules version: the one a log recorded,
    /// when its setup is derived again, or the one of the game a fork copies.
    pub fn create_as(
        game: &dyn DynGame,
        options: &Value,
        seat_names: Vec<String>,
        seed: &Seed,
        forked_from: Option<ForkOrigin>,
        rules_version: Option<u32>,
    ) -> Result<Vec<Draft>, KernelError> {
        let info = game.info();
        let n = seat_names.len();
        if n < info.min_seats as usize || n > info.max_seats as usize {
            return Err(KernelError::Invalid(format!(
                "{} is played by {} to {} players; {} seats were given",
                info.name, info.min_seats, info.max_seats, n
            )));
        }
        let options = game.options(options).map_err(|e| KernelError::Schema(e.0))?;
        let rules_version = match rules_version {
            Some(v) => v,
            None => game.rules_version_of(&options).map_err(|e| KernelError::Schema(e.0))?,
        };
        let mut drafts = vec![Draft::kernel(
            Actor::System,
            KernelEvent::GameCreated {
                ruleset: info.id.clone(),
                rules_version,
                options: options.clone(),
                seats: seat_names,
                seed_commitment: seed.commitment(),
                forked_from: forked_from.clone(),
            },
        )];
        if forked_from.is_none() {
            let mut rng = GameRng::new(seed.clone(), 1);
            let emits = game.setup(&options, n as u8, rules_version, &mut rng)?;
            let draws = rng.draws();
            let count = emits.len() as u32;
            for (i, e) in emits.into_iter().enumerate() {
                drafts.push(Draft {
                    actor: Actor::System,
                    body: game_body(game, e.event),
                    visibility: e.visibility,
                    redacted: e.redacted,
                    decision: (i == 0).then_some(Decision {
                        command: None,
                        seat: None,
                        events: count,
                        draws,
                        undoable: false,
                    }),
                });
            }
        }
        Ok(drafts)
    }

    /// Fold a whole log, honouring rollbacks and undos.
    pub fn fold(registry: &Registry, log: &[Envelope]) -> Result<Table, FoldError> {
        let refs: Vec<EventRef<'_>> = log.iter().map(Envelope::fold_ref).collect();
        Table::fold_refs(registry, &refs)
    }

    /// [`Table::fold`] of the parts of a log a fold reads, borrowed from
    /// wherever the events are held (a store's bytes: `store::codec`).
    pub fn fold_refs(registry: &Registry, log: &[EventRef<'_>]) -> Result<Table, FoldError> {
        let first = log.first().ok_or_else(|| FoldError::BadStart("the log is empty".into()))?;
        let mut table = Table::start(registry, first)?;
        for (i, env) in log.iter().enumerate().skip(1) {
            if env.seq != i as u64 || env.prev_hash != log[i - 1].hash {
                return Err(FoldError::Chain {
                    seq: env.seq,
                    problem: format!("expected seq {i} linked to seq {}", i - 1),
                });
            }
        }
        for i in in_force_refs(log) {
            table.apply(&log[i])?;
        }
        let last = log.last().expect("non-empty");
        table.head = last.seq;
        table.head_hash = last.hash;
        table.setup_end = table.setup_end.max(Self::setup_end_of(log));
        Ok(table)
    }

    /// The last seq of setup: the setup decision, or the events a fork copied.
    fn setup_end_of(log: &[EventRef<'_>]) -> u64 {
        match log.get(1) {
            Some(e) if e.actor == Actor::System && e.decision.is_some() => e.decision.map_or(0, |d| d.events as u64),
            Some(_) => log
                .iter()
                .skip(1)
                .take_while(|e| e.actor == Actor::System && e.decision.is_none() && e.is_game())
                .count() as u64,
            None => 0,
        }
    }

    fn start(registry: &Registry, first: &EventRef<'_>) -> Result<Table, FoldError> {
        let Some(KernelEvent::GameCreated { ruleset, rules_version, options, seats, seed_commitment, forked_from }) =
            first.kernel()
        else {
            return Err(FoldError::BadStart("the first event is not GameCreated".into()));
        };
        let game =
            registry.get(ruleset).ok_or_else(|| FoldError::BadStart(format!("unknown ruleset {ruleset:?}")))?.clone();
        Ok(Table {
            game_id: first.game.to_owned(),
            state: game.new_state(),
            game,
            generations: vec![0; seats.len()],
            holders: Holders::default(),
            created: Created {
                ruleset: ruleset.clone(),
                rules_version: *rules_version,
                options: options.clone(),
                seats: seats.clone(),
                seed_commitment: seed_commitment.clone(),
                forked_from: forked_from.clone(),
            },
            head: first.seq,
            head_hash: first.hash,
            seed_revealed: None,
            setup_end: 0,
            undo: Vec::new(),
            clock: Clocks {
                policy: Value::Null,
                paused: None,
                timeouts: vec![0; seats.len()],
                forfeited: vec![false; seats.len()],
                vacation_until: vec![None; seats.len()],
            },
            press: Arc::default(),
        })
    }

    /// Fold one more event onto the head. A rollback or undo cannot be
    /// folded incrementally: it answers [`FoldError::NeedsRefold`].
    pub fn push(&mut self, env: &Envelope) -> Result<(), FoldError> {
        self.push_ref(&env.fold_ref())
    }

    /// [`Table::push`] of the parts of an event a fold reads.
    pub fn push_ref(&mut self, env: &EventRef<'_>) -> Result<(), FoldError> {
        if env.seq != self.head + 1 || env.prev_hash != self.head_hash {
            return Err(FoldError::Chain {
                seq: env.seq,
                problem: format!("does not follow seq {} (hash {})", self.head, self.head_hash),
            });
        }
        if matches!(env.kernel(), Some(KernelEvent::RolledBack { .. } | KernelEvent::Undone { .. })) {
            return Err(FoldError::NeedsRefold);
        }
        self.apply(env)?;
        self.head = env.seq;
        self.head_hash = env.hash;
        Ok(())
    }

    fn apply(&mut self, env: &EventRef<'_>) -> Result<(), FoldError> {
        let applied = match &env.body {
            BodyRef::Game { v, event } => self.game.apply(&mut self.state, *v, event),
            BodyRef::GameTree { v, event } => self.game.apply_tree(&mut self.state, *v, event),
            BodyRef::Kernel(event) => return self.apply_kernel(env.seq, event),
        };
        applied.map_err(|e| FoldError::Schema { seq: env.seq, problem: e.0 })?;
        if let (Some(_), Actor::Seat(s)) = (&env.decision, env.actor) {
            if let Some(t) = self.clock.timeouts.get_mut(s as usize) {
                *t = 0;
            }
        }
        if let Some(d) = &env.decision {
            match (d.undoable, env.actor) {
                (true, Actor::Seat(seat)) => self.undo.push(UndoStep { first_seq: env.seq, seat }),
                _ => self.undo.clear(),
            }
            if env.actor == Actor::System && env.seq == 1 {
                self.setup_end = d.events as u64;
            }
        }
        Ok(())
    }

    fn apply_kernel(&mut self, seq: u64, event: &KernelEvent) -> Result<(), FoldError> {
        match event {
            KernelEvent::SeatTokenRevoked { seat, generation, .. } => {
                if let Some(g) = self.generations.get_mut(*seat as usize) {
                    *g = (*g).max(*generation);
                }
            }
            KernelEvent::RoleTokenRevoked { role, generation, .. } => {
                let g = self.holders.of_mut(*role);
                *g = (*g).max(*generation);
            }
            KernelEvent::SeedRevealed { seed } => self.seed_revealed = Some(seed.clone()),
            KernelEvent::GameCreated { .. } => {
                return Err(FoldError::Chain { seq, problem: "a second GameCreated".into() })
            }
            KernelEvent::RolledBack { .. } | KernelEvent::Undone { .. } => self.undo.clear(),
            KernelEvent::DeadlinePolicySet { policy } => self.clock.policy = policy.clone(),
            KernelEvent::GraceGranted { .. } | KernelEvent::Extended { .. } | KernelEvent::OrderMailed { .. } => {}
            KernelEvent::TimedOut { seat, .. } => {
                if let Some(t) = self.clock.timeouts.get_mut(*seat as usize) {
                    *t += 1;
                }
            }
            KernelEvent::Paused { remaining_ms, .. } => self.clock.paused = Some(remaining_ms.clone()),
            KernelEvent::Resumed => self.clock.paused = None,
            KernelEvent::VacationTaken { seat, until, .. } => {
                if let Some(v) = self.clock.vacation_until.get_mut(*seat as usize) {
                    *v = Some(until.clone());
                }
            }
            KernelEvent::SubstituteSeated { seat, name } => {
                if let Some(n) = self.created.seats.get_mut(*seat as usize) {
                    *n = name.clone();
                }
                if let Some(t) = self.clock.timeouts.get_mut(*seat as usize) {
                    *t = 0;
                }
            }
            KernelEvent::SeatForfeited { seat, .. } => {
                if let Some(f) = self.clock.forfeited.get_mut(*seat as usize) {
                    *f = true;
                }
            }
            KernelEvent::SeatReturned { seat } => {
                if let Some(t) = self.clock.timeouts.get_mut(*seat as usize) {
                    *t = 0;
                }
            }
            KernelEvent::MessageSent { .. }
            | KernelEvent::MessageHidden { .. }
            | KernelEvent::MessageReported { .. } => Arc::make_mut(&mut self.press).apply(seq, event),
        }
        Ok(())
    }

    pub fn game(&self) -> &Arc<dyn DynGame> {
        &self.game
    }

    pub fn state(&self) -> &DynState {
        &self.state
    }

    pub fn seats(&self) -> usize {
        self.created.seats.len()
    }

    /// The outcome once over, its summary naming the players.
    pub fn outcome(&self) -> Option<Outcome> {
        self.game.outcome_named(&self.state, &self.created.seats)
    }

    pub fn is_over(&self) -> bool {
        self.game.outcome(&self.state).is_some()
    }

    pub fn pending(&self) -> Vec<Pending> {
        if self.is_over() {
            return Vec::new();
        }
        self.game.pending(&self.state)
    }

    pub fn view(&self, viewer: Viewer) -> Value {
        let viewer = if self.is_over() { Viewer::Referee } else { viewer };
        self.game.view(&self.state, viewer)
    }

    /// The view written as JSON text ([`Table::view`]'s JSON) and, for
    /// `templates_of`, that seat's command templates on it (none once over).
    pub fn view_text(&self, viewer: Viewer, templates_of: Option<Seat>) -> (String, Vec<CommandTemplate>) {
        let over = self.is_over();
        let viewer = if over { Viewer::Referee } else { viewer };
        self.game.view_text(&self.state, viewer, templates_of.filter(|_| !over))
    }

    pub fn legal(&self, seat: Seat) -> Vec<Value> {
        if self.is_over() {
            return Vec::new();
        }
        self.game.legal(&self.state, seat)
    }

    /// The legal commands with their labels in words.
    pub fn legal_labelled(&self, seat: Seat) -> Vec<(Value, String)> {
        if self.is_over() {
            return Vec::new();
        }
        self.game.legal_labelled(&self.state, seat, &self.created.seats)
    }

    /// The actions of `seat`'s turn that none of `legal` (its legal
    /// commands now) takes, with the rules' reasons; none once over.
    pub fn unavailable(&self, seat: Seat, legal: &[Value]) -> Vec<Unavailable> {
        if self.is_over() {
            return Vec::new();
        }
        self.game.unavailable(&self.state, seat, legal)
    }

    pub fn fallback(&self, seat: Seat) -> Option<Value> {
        self.game.fallback(&self.state, seat)
    }

    /// `env` told in words on this position. An event's words are those of
    /// the position it was written on (the one just before it, as
    /// [`Table::tell`] and [`Table::tell_on`] tell it): on a later one a
    /// game may name another season or another worth.
    pub fn describe(&self, env: &Envelope) -> String {
        match &env.body {
            Body::Game { v, event } => self.game.describe(&self.state, *v, event, &self.created.seats),
            Body::Kernel { event } => describe_kernel(event, &self.created.seats),
        }
    }

    /// `env` told in words on this position, which is the one it was
    /// written on (just before it): as those who see it read it and, for an
    /// event not public, as the others read its redacted form.
    pub fn tell(&self, env: &Envelope) -> Told {
        let seen = self.describe(env);
        let unseen =
            (!env.visible_to(Viewer::Public, false)).then(|| self.describe(&env.redacted_for(Viewer::Public, false)));
        Told { seen, unseen }
    }

    /// Each of `events` told on the position it was written on, this
    /// position moved on past each as it is told: the first of `events`
    /// follows this position's head. Where an event cannot be folded on (a
    /// rollback or an undo), `refold(seq)` answers the position after event
    /// `seq`, folded from its whole log.
    pub fn tell_on(
        &mut self,
        events: &[Envelope],
        mut refold: impl FnMut(u64) -> Result<Table, FoldError>,
    ) -> Result<Vec<Told>, FoldError> {
        let mut told = Vec::with_capacity(events.len());
        for e in events {
            told.push(self.tell(e));
            match self.push(e) {
                Ok(()) => {}
                Err(FoldError::NeedsRefold) => *self = refold(e.seq)?,
                Err(other) => return Err(other),
            }
        }
        Ok(told)
    }

    /// Decide a seat's command: the generic checks, then the game's rules.
    /// `actor` is the seat itself, or `System` for a timeout's fallback.
    pub fn decide(
        &self,
        actor: Actor,
        seat: Seat,
        command: &Value,
        expected_seq: Option<u64>,
        seed: &Seed,
    ) -> Result<Vec<Draft>, KernelError> {
        if self.is_over() {
            return Err(KernelError::GameOver);
        }
        if let Some(expected) = expected_seq {
            if expected != self.head {
                return Err(KernelError::Stale { expected, head: self.head });
            }
        }
        let before = self.pending();
        let standing = (seat as usize) < self.seats() && self.game.standing_order(&self.state, seat, command);
        if !standing && !before.iter().any(|p| p.seat == seat) {
            return Err(KernelError::NotPending { seat, waiting: before });
        }
        let mut rng = GameRng::new(seed.clone(), self.head + 1);
        let emits = self.game.decide(&self.state, seat, command, &mut rng)?;
        let draws = rng.draws();
        let mut after = self.state.clone();
        for e in &emits {
            self.game
                .apply(&mut after, self.game.event_version(), e.event.as_str())
                .map_err(|e| KernelError::Invalid(format!("the rules emitted an event they cannot read back: {e}")))?;
        }
        let over = self.game.outcome(&after).is_some();
        let undoable = draws == 0
            && !over
            && actor == Actor::Seat(seat)
            && emits.iter().all(|e| e.visibility == Visibility::Public)
            && self.game.pending(&after) == before;
        let count = emits.len() as u32;
        let mut drafts: Vec<Draft> = emits
            .into_iter()
            .enumerate()
            .map(|(i, e)| Draft {
                actor,
                body: game_body(self.game.as_ref(), e.event),
                visibility: e.visibility,
                redacted: e.redacted,
                decision: (i == 0).then(|| Decision {
                    command: Some(Json::new(command)),
                    seat: Some(seat),
                    events: count,
                    draws,
                    undoable,
                }),
            })
            .collect();
        if over {
            drafts.push(Draft::kernel(Actor::System, KernelEvent::SeedRevealed { seed: seed.to_hex() }));
        }
        Ok(drafts)
    }

    /// Take back `seat`'s last decision, if it is still its own to take back.
    pub fn undo(&self, seat: Seat) -> Result<Draft, KernelError> {
        if self.is_over() {
            return Err(KernelError::GameOver);
        }
        match self.undo.last() {
            Some(step) if step.seat == seat => Ok(Draft::kernel(Actor::Seat(seat), KernelEvent::Undone { to_seq: step.first_seq - 1 })),
            _ => Err(KernelError::Invalid(format!(
                "seat {seat} has nothing to undo: only its own last steps within its turn that drew nothing and hid nothing can be taken back"
            ))),
        }
    }

    /// Void every event after `to_seq`. `boundaries` says whether `to_seq`
    /// ends a decision (see [`decision_ends`]).
    pub fn rollback(&self, actor: Actor, to_seq: u64, reason: &str, log: &[Envelope]) -> Result<Draft, KernelError> {
        if self.seed_revealed.is_some() {
            return Err(KernelError::Invalid(
                "the game is over and its seed revealed; fork it at an earlier seq instead of rolling back".into(),
            ));
        }
        if reason.trim().is_empty() {
            return Err(KernelError::Invalid("a rollback needs a reason".into()));
        }
        if to_seq < self.setup_end || to_seq >= self.head {
            return Err(KernelError::Invalid(format!(
                "to_seq must be between {} (end of setup) and {} (one before the head)",
                self.setup_end,
                self.head.saturating_sub(1)
            )));
        }
        if !decision_ends(log).contains(&to_seq) {
            return Err(KernelError::Invalid(format!(
                "seq {to_seq} is inside a decision; roll back to the end of one (for example {})",
                decision_ends(log).into_iter().filter(|s| *s < to_seq).max().unwrap_or(self.setup_end)
            )));
        }
        Ok(Draft::kernel(actor, KernelEvent::RolledBack { to_seq, reason: reason.to_owned() }))
    }

    /// Revoke a seat's tokens: the next generation.
    pub fn revoke(&self, actor: Actor, seat: Seat, reason: &str) -> Result<Draft, KernelError> {
        let Some(g) = self.generations.get(seat as usize) else {
            return Err(KernelError::Invalid(format!("there is no seat {seat}; seats are 0 to {}", self.seats() - 1)));
        };
        Ok(Draft::kernel(actor, KernelEvent::SeatTokenRevoked { seat, generation: g + 1, reason: reason.to_owned() }))
    }

    /// Revoke the host's or the referee's tokens: the next generation.
    pub fn revoke_holder(&self, actor: Actor, holder: Holder, reason: &str) -> Draft {
        let generation = self.holders.of(holder) + 1;
        Draft::kernel(actor, KernelEvent::RoleTokenRevoked { role: holder, generation, reason: reason.to_owned() })
    }

    /// Snapshot: the position as JSON (a cache, never the truth).
    pub fn save(&self) -> Value {
        serde_json::to_value(Saved {
            game_id: self.game_id.clone(),
            created: self.created.clone(),
            state: self.game.save(&self.state),
            head: self.head,
            head_hash: self.head_hash,
            generations: self.generations.clone(),
            holders: self.holders,
            seed_revealed: self.seed_revealed.clone(),
            setup_end: self.setup_end,
            undo: self.undo.clone(),
            clock: self.clock.clone(),
            press: (*self.press).clone(),
        })
        .expect("JSON")
    }

    /// A snapshot of the position (a cache, never the truth), small: only
    /// what the log's first event does not say, packed ([`crate::pack`])
    /// against the options' strings, so neither the options nor a custom
    /// board or data file the game's state names by its text is stored again.
    pub fn snapshot(&self) -> Vec<u8> {
        let held = Held {
            head: self.head,
            head_hash: self.head_hash,
            seats: self.created.seats.clone(),
            generations: self.generations.clone(),
            holders: self.holders,
            seed_revealed: self.seed_revealed.clone(),
            setup_end: self.setup_end,
            undo: self.undo.clone(),
            clock: self.clock.clone(),
            press: (*self.press).clone(),
            state: self.game.save(&self.state),
        };
        let held = serde_json::to_value(held).expect("JSON");
        let mut out = vec![SNAPSHOT_PACKED];
        out.extend(pack::pack(&held, &pack::dictionary(&self.created.options)));
        out
    }

    /// The position a snapshot holds, given its log's first event (the
    /// game's creation). Snapshots of the earlier JSON form still load.
    pub fn from_snapshot(registry: &Registry, bytes: &[u8], first: &Envelope) -> Result<Table, SchemaError> {
        let bad = |e: String| SchemaError(format!("snapshot: {e}"));
        match bytes.split_first() {
            Some((&SNAPSHOT_PACKED, packed)) => {
                let mut t = Table::start(registry, &first.fold_ref()).map_err(|e| bad(e.to_string()))?;
                let held = pack::unpack(packed, &pack::dictionary(&t.created.options)).map_err(bad)?;
                let h = Held::deserialize(held).map_err(|e| bad(e.to_string()))?;
                if h.seats.len() != t.created.seats.len() {
                    return Err(bad(format!("{} seats, the game has {}", h.seats.len(), t.created.seats.len())));
                }
                t.state = t.game.load(&h.state)?;
                t.created.seats = h.seats;
                t.head = h.head;
                t.head_hash = h.head_hash;
                t.generations = h.generations;
                t.holders = h.holders;
                t.seed_revealed = h.seed_revealed;
                t.setup_end = h.setup_end;
                t.undo = h.undo;
                t.clock = h.clock;
                t.press = Arc::new(h.press);
                Ok(t)
            }
            Some((b'{', _)) => {
                let saved: Value = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
                let t = Table::load(registry, &saved)?;
                if t.game_id != first.game {
                    return Err(bad(format!("it is of game {}, not {}", t.game_id, first.game)));
                }
                Ok(t)
            }
            Some((b, _)) => Err(bad(format!("unknown form {b:#04x}"))),
            None => Err(bad("no bytes".into())),
        }
    }

    /// Restore a snapshot made by [`Table::save`] (the form snapshots had
    /// before [`Table::snapshot`]).
    pub fn load(registry: &Registry, saved: &Value) -> Result<Table, SchemaError> {
        let s = Saved::deserialize(saved).map_err(|e| SchemaError(format!("snapshot: {e}")))?;
        let game = registry
            .get(&s.created.ruleset)
            .ok_or_else(|| SchemaError(format!("unknown ruleset {:?}", s.created.ruleset)))?
            .clone();
        Ok(Table {
            game_id: s.game_id,
            state: game.load(&s.state)?,
            game,
            created: s.created,
            head: s.head,
            head_hash: s.head_hash,
            generations: s.generations,
            holders: s.holders,
            seed_revealed: s.seed_revealed,
            setup_end: s.setup_end,
            undo: s.undo,
            clock: s.clock,
            press: Arc::new(s.press),
        })
    }
}

/// Indexes of the events of `log` still in force: a rollback or undo to seq
/// N voids the game events after N that were in force before it. Kernel
/// events (GameCreated, revocations, the seed) always stay in force.
pub fn in_force(log: &[Envelope]) -> Vec<usize> {
    in_force_refs(&log.iter().map(Envelope::fold_ref).collect::<Vec<_>>())
}

/// [`in_force`] of the parts of a log a fold reads.
pub fn in_force_refs(log: &[EventRef<'_>]) -> Vec<usize> {
    let voided = voided_refs(log);
    (1..log.len())
        .filter(|&i| {
            !voided[i] && !matches!(log[i].kernel(), Some(KernelEvent::RolledBack { .. } | KernelEvent::Undone { .. }))
        })
        .collect()
}

/// For each event of `log` (any run of consecutive events, not only a
/// whole log), whether a rollback or undo later in `log` voided it: a
/// rollback or undo to seq N voids the game events before it whose seq is
/// after N. Kernel events, the rollbacks themselves included, are never void.
pub fn voided(log: &[Envelope]) -> Vec<bool> {
    voided_refs(&log.iter().map(Envelope::fold_ref).collect::<Vec<_>>())
}

/// [`voided`] of the parts of a log a fold reads.
pub fn voided_refs(log: &[EventRef<'_>]) -> Vec<bool> {
    let mut voided = vec![false; log.len()];
    for (i, env) in log.iter().enumerate() {
        if let Some(KernelEvent::RolledBack { to_seq, .. } | KernelEvent::Undone { to_seq }) = env.kernel() {
            for (j, e) in log[..i].iter().enumerate() {
                if e.seq > *to_seq && e.is_game() {
                    voided[j] = true;
                }
            }
        }
    }
    voided
}

/// The seqs at which a decision (or a kernel event) ends: the positions a
/// rollback may return to.
pub fn decision_ends(log: &[Envelope]) -> Vec<u64> {
    let mut ends = Vec::new();
    let mut remaining = 0u32;
    for env in log {
        if let Some(d) = &env.decision {
            remaining = d.events;
        }
        if remaining > 0 {
            remaining -= 1;
            if remaining == 0 {
                ends.push(env.seq);
            }
        } else {
            ends.push(env.seq);
        }
    }
    ends
}

/// A kernel event in words.
pub fn describe_kernel(event: &KernelEvent, seats: &[String]) -> String {
    let name = |s: &Seat| seats.get(*s as usize).cloned().unwrap_or_else(|| format!("seat {s}"));
    match event {
        KernelEvent::GameCreated { ruleset, seats, forked_from, .. } => match forked_from {
            Some(f) => format!("Game of {ruleset} forked from {} at event {} for {}", f.game, f.seq, seats.join(", ")),
            None => format!("Game of {ruleset} created for {}", seats.join(", ")),
        },
        KernelEvent::RolledBack { to_seq, reason } => {
            format!("Rolled back to event {to_seq}: {reason}")
        }
        KernelEvent::Undone { to_seq } => format!("Undone back to event {to_seq}"),
        KernelEvent::SeatTokenRevoked { seat, reason, .. } => {
            format!("{}'s old links revoked: {reason}", name(seat))
        }
        KernelEvent::RoleTokenRevoked { role, reason, .. } => {
            format!("The {}'s old links revoked: {reason}", role.name())
        }
        KernelEvent::SeedRevealed { .. } => "Game over: the secret seed is revealed".into(),
        KernelEvent::DeadlinePolicySet { .. } => "The deadlines were set".into(),
        KernelEvent::GraceGranted { seat, until, .. } => {
            // "2026-03-03T16:00:00.000Z" read as "2026-03-03 16:00 UTC".
            let when = match (until.get(..10), until.get(11..16)) {
                (Some(day), Some(time)) if until.ends_with('Z') => format!("{day} {time} UTC"),
                _ => until.clone(),
            };
            format!("{} missed the deadline and has one extension, until {when}", name(seat))
        }
        KernelEvent::TimedOut { seat, .. } => format!("{} timed out; the rules' default is played", name(seat)),
        KernelEvent::Paused { reason, .. } => format!("The host paused the clocks: {reason}"),
        KernelEvent::Resumed => "The host restarted the clocks".into(),
        KernelEvent::Extended { seat, hours, until, reason } => {
            let who = seat.map_or_else(|| "Every seat".to_owned(), |s| name(&s));
            match (hours, until) {
                (Some(h), _) => format!("{who} got {h} more hours: {reason}"),
                (None, Some(u)) => format!("{who} has until {u}: {reason}"),
                (None, None) => format!("{who} got more time: {reason}"),
            }
        }
        KernelEvent::VacationTaken { seat, until, .. } => format!("{} is away until {until}", name(seat)),
        KernelEvent::SubstituteSeated { seat, name: n } => format!("{n} takes over seat {}", seat + 1),
        KernelEvent::SeatForfeited { seat, reason } => format!("{} forfeits: {reason}", name(seat)),
        KernelEvent::SeatReturned { seat } => format!("{} is back and plays their seat again", name(seat)),
        KernelEvent::MessageSent { from, to, text, anonymous, .. } => {
            let who = match from {
                // The words are the same for every reader: an anonymous
                // message never names its writer in them.
                Actor::Seat(_) if *anonymous => "Someone".into(),
                Actor::Seat(s) => name(s),
                Actor::Host => "The host".into(),
                Actor::Referee => "The referee".into(),
                Actor::System => "Someone".into(),
            };
            let whom = match to.as_slice() {
                [] => "everyone".to_owned(),
                seats => seats.iter().map(name).collect::<Vec<_>>().join(", "),
            };
            format!("{who} to {whom}: {text}")
        }
        KernelEvent::MessageHidden { message, reason, .. } => format!("Message {message} hidden: {reason}"),
        KernelEvent::MessageReported { message, by, reason } => {
            format!("{} reported message {message}: {reason}", name(by))
        }
        KernelEvent::OrderMailed { seat, .. } => format!("{} gave the decision before this by mail", name(seat)),
    }
}

/// The events a fork at `at` starts from: the game events of `log[..=at]`
/// still in force, copied as the system's, with their visibility. Kernel
/// events are not copied (the fork has its own creation, tokens and seed).
pub fn fork_copies(log: &[Envelope], at: u64) -> Vec<Draft> {
    let upto = &log[..=(at as usize).min(log.len().saturating_sub(1))];
    in_force(upto)
        .into_iter()
        .filter(|&i| matches!(upto[i].body, Body::Game { .. }))
        .map(|i| Draft {
            actor: Actor::System,
            body: upto[i].body.clone(),
            visibility: upto[i].visibility.clone(),
            redacted: upto[i].redacted.clone(),
            decision: None,
        })
        .collect()
}
