//! Tests of the rules, named after the rulebook's sentences, and a driver
//! that plays games through the `Game` trait as the kernel would.

mod golden;
mod map;
mod orders;
mod playout;
mod present;
mod program;
mod rules;
mod table;
mod versions;
mod words;

use runestone_engine::{Emit, Game, GameRng, RuleError, Seat, Seed};

use crate::state::{Command, Event, State};
use crate::{Options, Thingvellir};

pub struct Driver {
    pub state: State,
    pub log: Vec<Emit<Event>>,
    pub seed: Seed,
    pub inputs: Vec<u32>,
}

impl Driver {
    /// A game by `options`, of rules version 1 unless they name another
    /// (the rules tests play each decision by hand).
    pub fn new(options: &Options, seats: u8, seed: u64) -> Result<Driver, RuleError> {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        let seed = Seed(bytes);
        let mut rng = GameRng::new(seed.clone(), 1);
        let emits = Thingvellir::setup(options, seats, options.rules_version.unwrap_or(1), &mut rng)?;
        let mut d = Driver { state: State::default(), log: Vec::new(), seed, inputs: vec![0; seats as usize] };
        d.absorb(emits);
        Ok(d)
    }

    fn absorb(&mut self, emits: Vec<Emit<Event>>) {
        for e in emits {
            Thingvellir::apply(&mut self.state, &e.event);
            self.log.push(e);
        }
    }

    pub fn act(&mut self, seat: Seat, c: &Command) -> Result<(), RuleError> {
        let mut rng = GameRng::new(self.seed.clone(), self.log.len() as u64 + 1);
        let emits = Thingvellir::decide(&self.state, seat, c, &mut rng)?;
        self.inputs[seat as usize] += 1;
        self.absorb(emits);
        Ok(())
    }

    /// The seats the game waits for (a sealed commitment already given waits for nothing).
    pub fn waiting(&self) -> Vec<Seat> {
        Thingvellir::pending(&self.state).into_iter().filter(|p| !p.submitted).map(|p| p.seat).collect()
    }
}
