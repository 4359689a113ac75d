//! **A test fixture, not a product feature.** "Duel" is the smallest game that
//! exercises everything the kernel must handle: a secret simultaneous choice
//! (each seat bids from a budget, may change its bid until all have bid), a
//! random draw (a die decides what the round is worth), a single seat's turn
//! (the round's winner claims or passes) and an end (after `rounds` rounds).
//! Its [`Present`] marks it as a fixture, and a server hosts it only when its
//! settings ask for test fixtures (which only the server's tests do), so
//! hosts are never offered it, however the binary was built.

mod drawing;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use runestone_engine::game::{DecisionClass, Emit, Game, Outcome, Pending, RuleError, RulesetInfo, Seat, Viewer};
use runestone_engine::present::{
    schemas_of, Area, CommandTemplate, FieldKind, Present, Schemas, TableHeader, TemplateField,
};
use runestone_engine::reject;
use runestone_engine::rng::GameRng;

pub struct Duel;

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DuelOptions {
    #[serde(default = "three")]
    pub rounds: u8,
}

fn three() -> u8 {
    3
}

impl Default for DuelOptions {
    fn default() -> Self {
        DuelOptions { rounds: 3 }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DuelState {
    pub rounds: u8,
    pub round: u8,
    pub budgets: Vec<u8>,
    pub scores: Vec<i64>,
    /// Secret bids of this round, by seat.
    pub bids: Vec<Option<u8>>,
    pub die: Option<u8>,
    /// The seat whose turn it is to claim or pass.
    pub claimer: Option<Seat>,
    pub over: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", deny_unknown_fields)]
pub enum DuelCommand {
    /// Bid secretly; replaces an earlier bid of this round.
    Bid { amount: u8 },
    /// The round's winner takes the die's value in points.
    Claim,
    /// The round's winner takes 1 point.
    Pass,
    /// The round's winner says something before claiming (changes nothing,
    /// so it may be undone).
    Taunt { text: String },
}

#[derive(Clone, Debug, PartialEq, Serialize, runestone_engine::TagFirst, JsonSchema)]
#[serde(tag = "type")]
pub enum DuelEvent {
    Started {
        seats: u8,
        rounds: u8,
    },
    /// `amount` is `None` in the form others see.
    BidPlaced {
        seat: Seat,
        amount: Option<u8>,
    },
    BidsRevealed {
        bids: Vec<u8>,
    },
    DieRolled {
        value: u8,
    },
    RoundWon {
        seat: Seat,
    },
    Claimed {
        seat: Seat,
        points: i64,
    },
    Passed {
        seat: Seat,
    },
    Taunted {
        seat: Seat,
        text: String,
    },
    NextRound {
        round: u8,
    },
    Ended,
}

/// What one viewer sees of a game of Duel.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct DuelView {
    pub round: u8,
    pub rounds: u8,
    pub budgets: Vec<u8>,
    pub scores: Vec<i64>,
    /// Each seat's bid this round: none yet, its amount (to its own seat,
    /// or to all once every seat has bid) or "hidden".
    pub bids: Vec<Option<BidView>>,
    pub die: Option<u8>,
    pub claimer: Option<Seat>,
    pub over: bool,
}

/// A bid as one viewer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum BidView {
    Amount(u8),
    Hidden(Hidden),
}

/// The mark of a bid the viewer may not see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Hidden {
    #[serde(rename = "hidden")]
    Hidden,
}

impl Present for Duel {
    type View = DuelView;

    fn schemas() -> Schemas {
        schemas_of::<Duel, DuelView>()
    }

    fn fixture() -> bool {
        true
    }

    fn svg(view: &DuelView, seats: &[String]) -> Option<String> {
        drawing::svg(view, seats)
    }

    fn areas(view: &DuelView, seats: &[String]) -> Vec<Area> {
        drawing::areas(view, seats)
    }

    fn header(view: &DuelView, seats: &[String]) -> Option<TableHeader> {
        Some(drawing::header(view, seats))
    }

    fn round_begun(event: &DuelEvent) -> Option<u32> {
        match event {
            DuelEvent::Started { .. } => Some(1),
            DuelEvent::NextRound { round } => Some(u32::from(*round) + 1),
            _ => None,
        }
    }

    fn templates(view: &DuelView, seat: Seat) -> Vec<CommandTemplate> {
        if view.claimer != Some(seat) || view.over {
            return Vec::new();
        }
        vec![CommandTemplate {
            id: "taunt".into(),
            label: "Taunt".into(),
            help: Some("Say something before you claim or pass (it changes nothing, and you may undo it).".into()),
            base: json!({"type": "Taunt"}),
            fields: vec![TemplateField { name: "text".into(), label: "What you say".into(), kind: FieldKind::Text }],
        }]
    }
}

impl Game for Duel {
    type Options = DuelOptions;
    type State = DuelState;
    type Command = DuelCommand;
    type Event = DuelEvent;

    /// Read without serde's buffering of the tagged enum ([`runestone_engine::TagFirst`]).
    fn read_event(text: &str) -> serde_json::Result<DuelEvent> {
        DuelEvent::from_json_text(text)
    }

    fn info() -> RulesetInfo {
        RulesetInfo {
            id: "duel".into(),
            name: "Duel (test fixture)".into(),
            min_seats: 2,
            max_seats: 4,
            rules_version: 1,
            default_options: serde_json::to_value(DuelOptions::default()).expect("JSON"),
            options_help: vec![("rounds".into(), "number of rounds, 1 to 20".into())],
            description: "A test fixture for the kernel: secret bids, a die, a claim.".into(),
        }
    }

    fn setup(
        options: &DuelOptions,
        seats: u8,
        _rules_version: u32,
        _rng: &mut GameRng,
    ) -> Result<Vec<Emit<DuelEvent>>, RuleError> {
        if !(1..=20).contains(&options.rounds) {
            reject!("rounds must be 1 to 20, not {}", options.rounds);
        }
        Ok(vec![Emit::public(DuelEvent::Started { seats, rounds: options.rounds })])
    }

    fn decide(
        s: &DuelState,
        seat: Seat,
        c: &DuelCommand,
        rng: &mut GameRng,
    ) -> Result<Vec<Emit<DuelEvent>>, RuleError> {
        match c {
            DuelCommand::Bid { amount } => {
                if s.claimer.is_some() {
                    reject!("bids are closed: the round's winner is claiming");
                }
                let budget = s.budgets[seat as usize];
                if *amount < 1 || *amount > budget {
                    reject!("a bid must be 1 to {budget} (your remaining budget), not {amount}");
                }
                let mut out = vec![Emit::secret(
                    DuelEvent::BidPlaced { seat, amount: Some(*amount) },
                    vec![seat],
                    DuelEvent::BidPlaced { seat, amount: None },
                )];
                let mut bids = s.bids.clone();
                bids[seat as usize] = Some(*amount);
                if bids.iter().all(Option::is_some) {
                    let bids: Vec<u8> = bids.into_iter().map(|b| b.unwrap_or(0)).collect();
                    let max = *bids.iter().max().unwrap_or(&0);
                    let winner = bids.iter().position(|b| *b == max).unwrap_or(0) as Seat;
                    out.push(Emit::public(DuelEvent::BidsRevealed { bids }));
                    out.push(Emit::public(DuelEvent::DieRolled { value: rng.roll(6) }));
                    out.push(Emit::public(DuelEvent::RoundWon { seat: winner }));
                }
                Ok(out)
            }
            DuelCommand::Taunt { text } => {
                if s.claimer != Some(seat) {
                    reject!("only the round's winner may taunt");
                }
                Ok(vec![Emit::public(DuelEvent::Taunted { seat, text: text.clone() })])
            }
            DuelCommand::Claim | DuelCommand::Pass => {
                if s.claimer != Some(seat) {
                    reject!("only the round's winner may claim or pass, and only after all bids are in");
                }
                let mut out = vec![match c {
                    DuelCommand::Claim => Emit::public(DuelEvent::Claimed { seat, points: s.die.unwrap_or(0) as i64 }),
                    _ => Emit::public(DuelEvent::Passed { seat }),
                }];
                if s.round + 1 >= s.rounds {
                    out.push(Emit::public(DuelEvent::Ended));
                } else {
                    out.push(Emit::public(DuelEvent::NextRound { round: s.round + 1 }));
                }
                Ok(out)
            }
        }
    }

    fn apply(s: &mut DuelState, e: &DuelEvent) {
        match e {
            DuelEvent::Started { seats, rounds } => {
                let n = *seats as usize;
                *s = DuelState {
                    rounds: *rounds,
                    budgets: vec![10; n],
                    scores: vec![0; n],
                    bids: vec![None; n],
                    ..DuelState::default()
                };
            }
            DuelEvent::BidPlaced { seat, amount } => s.bids[*seat as usize] = Some(amount.unwrap_or(0)),
            DuelEvent::BidsRevealed { bids } => {
                for (b, spent) in s.budgets.iter_mut().zip(bids) {
                    *b = b.saturating_sub(*spent).max(1);
                }
            }
            DuelEvent::DieRolled { value } => s.die = Some(*value),
            DuelEvent::RoundWon { seat } => s.claimer = Some(*seat),
            DuelEvent::Claimed { seat, points } => s.scores[*seat as usize] += points,
            DuelEvent::Passed { seat } => s.scores[*seat as usize] += 1,
            DuelEvent::Taunted { .. } => {}
            DuelEvent::NextRound { round } => {
                s.round = *round;
                s.claimer = None;
                s.die = None;
                s.bids.iter_mut().for_each(|b| *b = None);
            }
            DuelEvent::Ended => s.over = true,
        }
    }

    fn view(s: &DuelState, viewer: Viewer) -> serde_json::Value {
        let bids = s
            .bids
            .iter()
            .enumerate()
            .map(|(i, b)| match (b, viewer) {
                (None, _) => None,
                // Revealed once all have bid.
                (Some(v), _) if s.claimer.is_some() => Some(BidView::Amount(*v)),
                (Some(v), Viewer::Referee) => Some(BidView::Amount(*v)),
                (Some(v), Viewer::Seat(me)) if me as usize == i => Some(BidView::Amount(*v)),
                (Some(_), _) => Some(BidView::Hidden(Hidden::Hidden)),
            })
            .collect();
        let view = DuelView {
            round: s.round,
            rounds: s.rounds,
            budgets: s.budgets.clone(),
            scores: s.scores.clone(),
            bids,
            die: s.die,
            claimer: s.claimer,
            over: s.over,
        };
        serde_json::to_value(view).expect("a view is JSON")
    }

    fn pending(s: &DuelState) -> Vec<Pending> {
        if s.over || s.budgets.is_empty() {
            return Vec::new();
        }
        match s.claimer {
            Some(seat) => vec![Pending {
                seat,
                kind: "claim".into(),
                class: DecisionClass::Turn,
                prompt: "claim the die's value, or pass for 1 point".into(),
                submitted: false,
            }],
            None => (0..s.bids.len() as Seat)
                .map(|seat| Pending {
                    seat,
                    kind: "bid".into(),
                    class: DecisionClass::Plan,
                    prompt: "bid secretly from your budget".into(),
                    submitted: s.bids[seat as usize].is_some(),
                })
                .collect(),
        }
    }

    fn legal(s: &DuelState, seat: Seat) -> Vec<DuelCommand> {
        if !Self::pending(s).iter().any(|p| p.seat == seat) {
            return Vec::new();
        }
        match s.claimer {
            Some(_) => vec![DuelCommand::Claim, DuelCommand::Pass],
            None => (1..=s.budgets[seat as usize]).map(|amount| DuelCommand::Bid { amount }).collect(),
        }
    }

    fn fallback(s: &DuelState, seat: Seat) -> Option<DuelCommand> {
        Self::legal(s, seat).into_iter().next()
    }

    fn outcome(s: &DuelState) -> Option<Outcome> {
        if !s.over {
            return None;
        }
        let mut ranking: Vec<Seat> = (0..s.scores.len() as Seat).collect();
        ranking.sort_by_key(|&i| (-s.scores[i as usize], i));
        let best = s.scores[ranking[0] as usize];
        Some(Outcome {
            scores: s.scores.clone(),
            winners: ranking.iter().copied().filter(|&i| s.scores[i as usize] == best).collect(),
            ranking,
            summary: format!("best score {best}"),
        })
    }

    fn describe(_: &DuelState, e: &DuelEvent, names: &[String]) -> String {
        let n = |s: &Seat| names.get(*s as usize).cloned().unwrap_or_else(|| format!("seat {s}"));
        match e {
            DuelEvent::Started { rounds, .. } => format!("A duel of {rounds} rounds begins"),
            DuelEvent::BidPlaced { seat, amount: Some(a) } => format!("{} bid {a}", n(seat)),
            DuelEvent::BidPlaced { seat, amount: None } => {
                format!("{} placed a secret bid", n(seat))
            }
            DuelEvent::BidsRevealed { bids } => format!("Bids revealed: {bids:?}"),
            DuelEvent::DieRolled { value } => format!("The die shows {value}"),
            DuelEvent::RoundWon { seat } => format!("{} wins the round", n(seat)),
            DuelEvent::Claimed { seat, points } => format!("{} claims {points} points", n(seat)),
            DuelEvent::Passed { seat } => format!("{} passes", n(seat)),
            DuelEvent::Taunted { seat, text } => format!("{} says: {text}", n(seat)),
            DuelEvent::NextRound { round } => format!("Round {} begins", round + 1),
            DuelEvent::Ended => "The duel is over".into(),
        }
    }
}
