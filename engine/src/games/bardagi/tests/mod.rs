//! Tests of the Bardagi rules, one file per rulebook part, and a driver
//! that plays games through the `Game` trait as the kernel would.

mod playout;

use crate::game::{Emit, Game, RuleError, Seat};
use crate::rng::{GameRng, Seed};

use super::state::{Command, Event, State};
use super::{Bardagi, Options};

/// A game in progress: the live state and every event emitted.
pub struct Driver {
    pub state: State,
    pub log: Vec<Emit<Event>>,
    pub seed: Seed,
    /// Commands decided, per seat.
    pub inputs: Vec<u32>,
}

impl Driver {
    /// Set up a game.
    pub fn new(options: &Options, seats: u8, seed: u64) -> Result<Driver, RuleError> {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        let seed = Seed(bytes);
        let mut rng = GameRng::new(seed.clone(), 1);
        let emits = Bardagi::setup(options, seats, &mut rng)?;
        let mut d = Driver { state: State::default(), log: Vec::new(), seed, inputs: vec![0; seats as usize] };
        d.absorb(emits);
        Ok(d)
    }

    fn absorb(&mut self, emits: Vec<Emit<Event>>) {
        for e in emits {
            Bardagi::apply(&mut self.state, &e.event);
            self.log.push(e);
        }
    }

    /// Decide and apply a command of `seat`.
    pub fn act(&mut self, seat: Seat, c: &Command) -> Result<Vec<Event>, RuleError> {
        assert!(Bardagi::pending(&self.state).iter().any(|p| p.seat == seat), "seat {seat} is not pending");
        let mut rng = GameRng::new(self.seed.clone(), self.log.len() as u64 + 1);
        let emits = Bardagi::decide(&self.state, seat, c, &mut rng)?;
        let events: Vec<Event> = emits.iter().map(|e| e.event.clone()).collect();
        self.inputs[seat as usize] += 1;
        self.absorb(emits);
        Ok(events)
    }

    /// Let the bot (the fallback) play every pending seat until the game ends.
    #[allow(dead_code)]
    pub fn run_bots(&mut self, limit: usize) {
        for _ in 0..limit {
            let pending = Bardagi::pending(&self.state);
            let Some(p) = pending.first() else { return };
            let c = Bardagi::fallback(&self.state, p.seat).expect("a pending seat has a fallback");
            if let Err(e) = self.act(p.seat, &c) {
                panic!("fallback {c:?} of seat {} refused: {e}", p.seat);
            }
        }
        panic!("the game did not end within {limit} commands");
    }
}
