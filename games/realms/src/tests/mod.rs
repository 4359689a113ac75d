//! Tests of the Realms rules, named after the reference sheet's lines, and
//! a driver that plays games through the `Game` trait as the kernel would.

mod golden;
mod kernel;
mod original;
mod playout;
mod present;
mod rules;
mod rules_page;
mod scenarios;
mod table;
mod version3;
mod versions;
mod words;

use runestone_engine::{Emit, Game, GameRng, RuleError, Seat, Seed};

use crate::state::{Command, Event, Mode, Move, Orders, State, Step, UnitKind};
use crate::{Options, Realms};

/// A game in progress: the live state and every event emitted.
pub struct Driver {
    pub state: State,
    pub log: Vec<Emit<Event>>,
    pub seed: Seed,
}

impl Driver {
    pub fn new(options: &Options, seats: u8, seed: u64) -> Result<Driver, RuleError> {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        let seed = Seed(bytes);
        let mut rng = GameRng::new(seed.clone(), 1);
        let emits = Realms::setup(options, seats, Realms::rules_version_of(options), &mut rng)?;
        let mut d = Driver { state: State::default(), log: Vec::new(), seed };
        d.absorb(emits);
        Ok(d)
    }

    fn absorb(&mut self, emits: Vec<Emit<Event>>) {
        for e in emits {
            Realms::apply(&mut self.state, &e.event);
            self.log.push(e);
        }
    }

    pub fn act(&mut self, seat: Seat, orders: Orders) -> Result<Vec<Event>, RuleError> {
        let mut rng = GameRng::new(self.seed.clone(), self.log.len() as u64 + 1);
        let emits = Realms::decide(&self.state, seat, &Command::Orders { orders }, &mut rng)?;
        let events: Vec<Event> = emits.iter().map(|e| e.event.clone()).collect();
        self.absorb(emits);
        Ok(events)
    }

    /// Every realm still waited for passes (empty orders), `seat` gives `orders` last.
    pub fn round(&mut self, seat: Seat, orders: Orders) -> Vec<Event> {
        for other in self.state.waiting() {
            if other != seat {
                self.act(other, Orders::default()).expect("empty orders are taken");
            }
        }
        self.act(seat, orders).expect("orders are taken")
    }

    /// Everybody passes for one round.
    pub fn pass(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        for seat in self.state.waiting() {
            out = self.act(seat, Orders::default()).expect("empty orders are taken");
        }
        out
    }
}

/// The field at row `r`, column `c` of the Vikings map (20 columns).
fn at(r: u16, c: u16) -> u16 {
    r * 20 + c
}

/// A Vikings 800 AD game of `players` in `mode` lasting `years`.
fn game(players: u8, mode: Mode, years: u8) -> Driver {
    Driver::new(&Options { mode, years, ..Options::default() }, players, 11).expect("setup")
}

/// What the resolution of `step` reported, joined.
fn reports(events: &[Event], step: Step) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Resolved { step: s, report, .. } if *s == step => Some(report.join("; ")),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// One round where `a` and `b` give orders and everybody else passes.
pub fn both(d: &mut Driver, a: u8, oa: Orders, b: u8, ob: Orders) -> Vec<Event> {
    for seat in d.state.waiting() {
        if seat != a && seat != b {
            d.act(seat, Orders::default()).unwrap();
        }
    }
    d.act(a, oa).unwrap();
    d.act(b, ob).unwrap()
}

/// Every step's report of these events, a line per step.
pub fn all(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Resolved { step, report, .. } => Some(format!("{:?}: {}", step, report.join("; "))),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A move of `count` Light Infantry.
fn li(from: u16, to: u16, count: u8) -> Move {
    Move { from, to, unit: UnitKind::LightInfantry, count }
}
