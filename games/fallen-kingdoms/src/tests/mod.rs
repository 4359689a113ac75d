//! Tests of the Fallen Kingdoms rules, one file per rulebook section, and a
//! driver that plays games through the `Game` trait as the kernel would.

mod battle;
mod invasion;
mod kernel;
mod orders;
mod playout;
mod present;
mod production;
mod program;
mod scoring;
mod setup;
mod table;
mod versions;
mod words;

use runestone_engine::{Emit, Game, GameRng, RuleError, Seat, Seed};

use crate::board::{Board, City, Path};
use crate::state::{Command, Event, Rules, State, Step};
use crate::{Ctx, FallenKingdoms, Options};

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
        // Rules version 1 (each step its own decision) unless the options name one.
        let version = options.rules_version.unwrap_or(1);
        let emits = FallenKingdoms::setup(options, seats, version, &mut rng)?;
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

    /// Decide with the dice given (the rulebook's worked examples), then apply.
    pub fn scripted(&mut self, seat: Seat, c: &Command, dice: &[u8]) -> Result<Vec<Event>, RuleError> {
        let mut rng = GameRng::new(self.seed.clone(), self.log.len() as u64 + 1);
        let mut cx = Ctx::new(self.state.clone(), &mut rng);
        cx.script = dice.to_vec();
        crate::run(&mut cx, seat, c)?;
        assert!(cx.script.is_empty(), "dice left over: {:?}", cx.script);
        let emits = cx.out;
        let events: Vec<Event> = emits.iter().map(|e| e.event.clone()).collect();
        self.absorb(emits);
        Ok(events)
    }

    /// Fold an event that play produces.
    pub fn ev(&mut self, e: Event) {
        self.absorb(vec![Emit::public(e)]);
    }

    /// `units` of `seat` in `city` (with its temple if `temple`).
    pub fn put(&mut self, seat: Seat, city: u8, units: u8, temple: bool) {
        self.ev(Event::GroupPlaced { seat, city, temple });
        for _ in 3..units {
            self.ev(Event::UnitPlaced { seat, city });
        }
        if units < 3 {
            self.ev(Event::UnitsKilled { city, units: 3 - units });
        }
    }

    /// Make it `seat`'s turn at `step`.
    pub fn turn(&mut self, seat: Seat, step: Step) {
        self.ev(Event::TurnBegan { seat, turn: 1 });
        self.ev(Event::StepReached { step });
    }

    pub fn refused(&mut self, seat: Seat, c: &Command) -> String {
        match self.act(seat, c) {
            Ok(e) => panic!("{c:?} was accepted: {e:?}"),
            Err(e) => e.message,
        }
    }
}

/// A small board: `n` cities without resources, the roads and routes given,
/// ports where routes or sea paths touch, and the invasion arrows given.
pub fn board(n: u8, roads: &[(u8, u8)], routes: &[(u8, u8)], paths: &[(u8, bool)]) -> Board {
    let port = |c: u8| routes.iter().any(|r| r.0 == c || r.1 == c) || paths.iter().any(|p| p.0 == c && p.1);
    Board {
        tiles: Vec::new(),
        cities: (0..n)
            .map(|c| City { name: format!("C{c}"), at: [c, 0], resource: None, shape: None, port: port(c) })
            .collect(),
        roads: roads.to_vec(),
        routes: routes.to_vec(),
        paths: paths.iter().map(|&(city, sea)| Path { city, sea, edge: "n".into() }).collect(),
    }
}

/// A table on `board` where seat k plays god `gods[k]`, the stacks are in
/// card order and the rumor deck is sorted, before any unit is placed.
pub fn table(board: Board, gods: &[u8], options: &Options) -> Driver {
    let seats = gods.len() as u8;
    let rules = Rules { version: options.rules_version.unwrap_or(1), ..crate::setup::rules(options).unwrap() };
    let mut d = Driver { state: State::default(), log: Vec::new(), seed: Seed([9; 32]) };
    d.ev(Event::Begun { seats, rules, board });
    let stack = 3 * seats;
    let knowledge: Vec<u8> = (0..stack).collect();
    let buildings: Vec<u8> = (0..stack).collect();
    d.ev(Event::StacksShuffled {
        knowledge: Some(knowledge),
        buildings: Some(buildings),
        knowledge_len: stack,
        buildings_len: stack,
    });
    for card in 0..3 {
        d.ev(Event::KnowledgeShown { card });
    }
    for tile in 0..2 {
        d.ev(Event::BuildingShown { tile });
    }
    let mut rumors: Vec<u8> = (0..18).collect();
    rumors.sort_by_key(|&r| crate::data::data().rumors[r as usize]);
    d.ev(Event::RumorDeck { cards: rumors, left: None });
    for (seat, &g) in gods.iter().enumerate() {
        d.ev(Event::GodsDealt { seat: seat as Seat, gods: Some(vec![g]) });
        d.ev(Event::GodChosen { seat: seat as Seat, god: Some(g) });
    }
    d.ev(Event::GodsRevealed { gods: gods.to_vec(), first: 0 });
    d
}

/// God card indices in gods.toml.
pub const ODIN: u8 = 0;
pub const LOKI: u8 = 1;
pub const TYR: u8 = 2;
pub const THOR: u8 = 3;
pub const BRAGI: u8 = 7;
