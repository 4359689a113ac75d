//! Tests of the Bardagi rules, one file per rulebook part, and a driver
//! that plays games through the `Game` trait as the kernel would.

mod playout;
mod words;

use runestone_engine::game::{Emit, Game, RuleError, Seat};
use runestone_engine::rng::{GameRng, Seed};

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
        let emits = Bardagi::setup(options, seats, Bardagi::rules_version_of(options), &mut rng)?;
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

    /// The seats the game waits for: pending and not yet submitted (a clan
    /// that chose its plan may still replace it, but nothing waits for it).
    pub fn waiting(&self) -> Vec<Seat> {
        Bardagi::pending(&self.state).into_iter().filter(|p| !p.submitted).map(|p| p.seat).collect()
    }

    /// The first seat the game waits for.
    pub fn next_seat(&self) -> Option<Seat> {
        self.waiting().first().copied()
    }

    /// Let the bot (the fallback) play every waiting seat until the game ends.
    #[allow(dead_code)]
    pub fn run_bots(&mut self, limit: usize) {
        for _ in 0..limit {
            let Some(seat) = self.next_seat() else { return };
            let c = Bardagi::fallback(&self.state, seat).expect("a pending seat has a fallback");
            if let Err(e) = self.act(seat, &c) {
                panic!("fallback {c:?} of seat {seat} refused: {e}");
            }
        }
        panic!("the game did not end within {limit} commands");
    }
}

mod actions;
mod example;
mod kernel;
mod phases;
mod program;
mod rules2018;
mod setup;
mod upgrades;
mod versions;

use super::board::Colour;
use super::state::{Hand, Phase};

/// A small board for rule tests: single-cell areas around a mountain, a
/// river with and without a bridge, every area kind, four homes and a row of
/// ocean squares.
///
/// ```text
/// r=0:  0 Blue home(H)  1 Forest  |river|  2 Forest  3 Sheep(H)  4 Red home(H)  5 Village =bridge= 6 Camp
/// r=1:  7 Quarry  8 Iron mine  9 Cattle  [mountain]  10 Sacred  11 Yellow home(H)
/// r=2:  12 Gold mine(H)  13 Forest  14 Green home(H)
/// sea:  O0 - O1 - O2 - O3 - O4 - O5 - O6
/// ```
pub const MINI: &str = r#"
name = "Mini"
min_players = 2
max_players = 4
rivers = [[1, 2], [5, 6]]
bridges = [[5, 6]]
sea_routes = [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6]]
harbour_routes = [[0, 0], [3, 3], [4, 4], [11, 6], [14, 0], [12, 1]]

[[mountain]]
cells = [[3, 1]]

[[ocean]]
id = 0
cell = [0, -1]
[[ocean]]
id = 1
cell = [1, -1]
[[ocean]]
id = 2
cell = [2, -1]
[[ocean]]
id = 3
cell = [3, -1]
[[ocean]]
id = 4
cell = [4, -1]
[[ocean]]
id = 5
cell = [5, -1]
[[ocean]]
id = 6
cell = [6, -1]

[[area]]
id = 0
name = "Blue home"
kind = "home"
colour = "blue"
harbour = true
cells = [[0, 0]]
[[area]]
id = 1
name = "Forest 1"
kind = "forest"
cells = [[1, 0]]
[[area]]
id = 2
name = "Forest 2"
kind = "forest"
cells = [[2, 0]]
[[area]]
id = 3
name = "Sheep 3"
kind = "sheep"
harbour = true
cells = [[3, 0]]
[[area]]
id = 4
name = "Red home"
kind = "home"
colour = "red"
harbour = true
cells = [[4, 0]]
[[area]]
id = 5
name = "Village 5"
kind = "village"
cells = [[5, 0]]
[[area]]
id = 6
name = "Camp 6"
kind = "camp"
cells = [[6, 0]]
[[area]]
id = 7
name = "Quarry 7"
kind = "quarry"
cells = [[0, 1]]
[[area]]
id = 8
name = "Iron mine 8"
kind = "iron_mine"
cells = [[1, 1]]
[[area]]
id = 9
name = "Cattle 9"
kind = "cattle"
cells = [[2, 1]]
[[area]]
id = 10
name = "Sacred 10"
kind = "sacred"
cells = [[4, 1]]
[[area]]
id = 11
name = "Yellow home"
kind = "home"
colour = "yellow"
harbour = true
cells = [[5, 1]]
[[area]]
id = 12
name = "Gold mine 12"
kind = "gold_mine"
harbour = true
cells = [[0, 2]]
[[area]]
id = 13
name = "Forest 13"
kind = "forest"
cells = [[1, 2]]
[[area]]
id = 14
name = "Green home"
kind = "home"
colour = "green"
harbour = true
cells = [[2, 2]]
"#;

/// A game on the mini board, with cards chosen directly in the state and
/// the action phase started with `first`'s turn.
pub fn mini(seats: u8) -> Driver {
    let opts = Options { custom_board: Some(MINI.into()), ..Options::default() };
    Driver::new(&opts, seats, 7).expect("mini board game")
}

impl Driver {
    /// Every event of the log folded into a fresh state gives the live one
    /// (`what` names the game in the failure); the replayed state.
    pub fn assert_replays(&self, what: &str) -> State {
        let mut replay = State::default();
        for e in &self.log {
            Bardagi::apply(&mut replay, &e.event);
        }
        assert_eq!(
            serde_json::to_string(&replay).unwrap(),
            serde_json::to_string(&self.state).unwrap(),
            "{what}: replay differs"
        );
        replay
    }

    /// The seat playing `colour`.
    pub fn seat(&self, colour: Colour) -> Seat {
        self.state.players.iter().position(|p| p.colour == Some(colour)).expect("colour in play") as Seat
    }

    /// Give every clan `hand` and make it `seat`'s turn.
    pub fn turn_of(&mut self, seat: Seat, hand: [u8; 4]) {
        for p in &mut self.state.players {
            p.hand = Hand::new(hand);
            p.planned = true;
        }
        self.state.phase = Phase::Action;
        self.state.current = seat;
        self.state.starting = seat;
        self.state.turns_done = 0;
    }

    /// Own `areas` with `disks` each.
    pub fn own(&mut self, seat: Seat, areas: &[u8], disks: u8) {
        for a in areas {
            self.state.areas[*a as usize].owner = Some(seat);
            self.state.areas[*a as usize].disks = disks;
        }
    }

    /// Decide and expect a refusal; answer its words.
    pub fn refused(&mut self, seat: Seat, c: &Command) -> String {
        match self.act(seat, c) {
            Ok(ev) => panic!("{c:?} was accepted: {ev:?}"),
            Err(e) => e.message,
        }
    }
}

/// A real view (seat 0's, of a fresh game on the mini board) with `patch`
/// laid over it: objects are merged, the `players` list element by element,
/// anything else replaced. Tests of the drawing and the forms start from
/// the typed view a game really writes, changed where they need.
pub fn patched_view(patch: serde_json::Value) -> super::view::View {
    use serde_json::Value;
    fn lay(base: &mut Value, patch: Value, key: &str) {
        match (base, patch) {
            (Value::Object(b), Value::Object(p)) => {
                for (k, v) in p {
                    lay(b.entry(k.clone()).or_insert(Value::Null), v, &k);
                }
            }
            (Value::Array(b), Value::Array(p)) if key == "players" => {
                for (i, v) in p.into_iter().enumerate() {
                    if let Some(slot) = b.get_mut(i) {
                        lay(slot, v, "");
                    }
                }
            }
            (b, p) => *b = p,
        }
    }
    let d = mini(2);
    let mut v = serde_json::to_value(super::view::view(&d.state, runestone_engine::game::Viewer::Seat(0)))
        .expect("a view is JSON");
    lay(&mut v, patch, "");
    serde_json::from_value(v).expect("the patched view is still a view")
}
