//! Tests of the Realms rules, named after the reference sheet's lines, and
//! a driver that plays games through the `Game` trait as the kernel would.

mod kernel;
mod playout;
mod present;
mod rules;
mod table;
mod versions;

use runestone_engine::{Emit, Game, GameRng, RuleError, Seat, Seed};

use crate::state::{Command, Event, Orders, State};
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
