//! Tests of the Fallen Kingdoms rules, one file per rulebook section, and a
//! driver that plays games through the `Game` trait as the kernel would.

mod playout;

use runestone_engine::{Emit, Game, GameRng, RuleError, Seat, Seed};

use crate::state::{Command, Event, State};
use crate::{FallenKingdoms, Options};

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
        let emits = FallenKingdoms::setup(options, seats, &mut rng)?;
        let mut d = Driver { state: State::default(), log: Vec::new(), seed };
        d.absorb(emits);
        Ok(d)
    }

    pub fn absorb(&mut self, emits: Vec<Emit<Event>>) {
        for e in emits {
            FallenKingdoms::apply(&mut self.state, &e.event);
            self.log.push(e);
        }
    }

    pub fn act(&mut self, seat: Seat, c: &Command) -> Result<Vec<Event>, RuleError> {
        let mut rng = GameRng::new(self.seed.clone(), self.log.len() as u64 + 1);
        let emits = FallenKingdoms::decide(&self.state, seat, c, &mut rng)?;
        let events: Vec<Event> = emits.iter().map(|e| e.event.clone()).collect();
        self.absorb(emits);
        Ok(events)
    }

    pub fn waiting(&self) -> Vec<Seat> {
        FallenKingdoms::pending(&self.state).into_iter().filter(|p| !p.submitted).map(|p| p.seat).collect()
    }

    /// Let the bots play until `stop` holds or the game ends.
    pub fn bots_until(&mut self, stop: impl Fn(&State) -> bool) {
        for _ in 0..100_000 {
            if stop(&self.state) || FallenKingdoms::outcome(&self.state).is_some() {
                return;
            }
            let seat = self.waiting()[0];
            let c = FallenKingdoms::fallback(&self.state, seat).expect("fallback");
            self.act(seat, &c).unwrap_or_else(|e| panic!("bot {c:?} of seat {seat} refused: {e}"));
        }
        panic!("no end");
    }
}
