//! The position, the commands and the events, and `apply`, which folds one
//! event into the position (total: never fails, never draws).

use serde::{Deserialize, Serialize};

use runestone_engine::program::ProgramStep as Step_;
use runestone_engine::Seat;

use crate::board::Board;
use crate::data::data;

/// Each player is limited to 30 units (2.2).
pub const MAX_UNITS: u8 = 30;
/// Points each track needs: unit 3, building 6, knowledge 9 (4.2).
pub const TRACK: [u8; 3] = [3, 6, 9];
/// Compensation when a track fills with nothing to produce (4.3).
pub const COMPENSATION: [i32; 3] = [1, 2, 3];

/// The rules in force, fixed at setup from the options.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Rules {
    pub hidden_scoring: bool,
    pub trophies_per_player: u8,
    pub victories_for_rumor: u8,
    pub cities_per_path: u8,
    pub reverse_first_player: bool,
    pub reverse_priority: bool,
    pub powered_down_temples: bool,
    /// The rules version the game is played by (RULES-NOTES.md, "Rules
    /// versions"); absent from the events of version 1 games.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub version: u32,
    /// 8.3 Larger/smaller map (rules version 3): cities per player on the
    /// map; absent from the events of games with the rule's 6.
    #[serde(default = "six", skip_serializing_if = "is_six")]
    pub cities_per_player: u8,
}

fn six() -> u8 {
    6
}

fn is_six(v: &u8) -> bool {
    *v == 6
}

fn one() -> u32 {
    1
}

fn is_one(v: &u32) -> bool {
    *v == 1
}

/// One step of a turn program: a command of the turn and its fallback.
pub type ProgramStep = Step_<Command>;

/// Rules version 2: what a seat's program does at this turn's invasion
/// phase, when the seat's time to invade or pass comes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", deny_unknown_fields)]
pub enum InvasionOrder {
    /// Ask the seat then (a decision with its own deadline).
    #[default]
    Ask,
    /// Do not invade.
    Pass,
    /// Let the bot decide from the map as it is then.
    Bot,
    /// This invasion (or pass), with its fallback.
    Step { step: Box<ProgramStep> },
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CityState {
    pub owner: Option<Seat>,
    pub units: u8,
    /// A city building tile (index into the building data).
    pub building: Option<u8>,
    /// Whose temple stands here.
    pub temple: Option<Seat>,
}

/// Standing defence orders (asynchronous play): how a seat's cities defend
/// when attacked while it is away.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Defence {
    /// Retreat the defenders before a roll once they are down to this many (0: never).
    #[serde(default)]
    pub retreat_at: u8,
    /// Cities to retreat to or to flee to when intimidated, best first; when
    /// none of them is possible the city with most of the seat's own units is used.
    #[serde(default)]
    pub prefer: Vec<u8>,
    /// Once the defenders are down to `retreat_at`, ask before each of their
    /// rolls (retreat, and where to, or fight on) instead of retreating at
    /// once: the battle waits for the answer, a small decision with a short
    /// deadline; at the deadline the defenders retreat as ordered.
    #[serde(default, skip_serializing_if = "no")]
    pub ask: bool,
    /// 7.2.2, when a kingdom is surrendered to this seat and it has too few
    /// units in its reserve to replace every unit: the surrendered cities to
    /// replace first, best first (the others follow in the map's order).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replace_first: Vec<u8>,
    /// 7.2.2 "They can also remove army units already on the board to
    /// complete the replacement": take the missing units from this seat's
    /// own cities (those with most units first, never leaving one empty).
    #[serde(default, skip_serializing_if = "no")]
    pub complete_from_board: bool,
    /// Rules version 2: a threshold of its own for some cities, (city,
    /// retreat_at), in place of `retreat_at` there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_city: Vec<(u8, u8)>,
}

impl Defence {
    /// The retreat threshold of the defenders of `city`.
    pub fn threshold(&self, city: u8) -> u8 {
        self.per_city.iter().find(|x| x.0 == city).map_or(self.retreat_at, |x| x.1)
    }
}

fn no(b: &bool) -> bool {
    !*b
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Player {
    /// The god card in play (after the reveal).
    pub god: Option<u8>,
    /// The two god cards dealt (secret to the seat).
    pub dealt: Option<Vec<u8>>,
    /// The god chosen before the reveal (secret to the seat).
    pub chosen: Option<u8>,
    pub has_chosen: bool,
    pub tracks: [u8; 3],
    pub glory: i32,
    pub victories: u8,
    pub rumors: Vec<u8>,
    pub knowledge: Vec<u8>,
    /// Produced this turn and not yet taken or placed: units, buildings, knowledge.
    pub owed: [u8; 3],
    /// Buildings on the kingdom sheet waiting for a city.
    pub sheet: Vec<u8>,
    pub invader: bool,
    pub blockers: Vec<u8>,
    pub defence: Defence,
    /// Units placed during setup.
    pub placed: u8,
    /// Rules version 2 (secret to the seat): the setup placements given
    /// with the god, one per placement turn still to come.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub places: Vec<ProgramStep>,
    /// Rules version 2 (secret): the program of the coming player phase,
    /// until it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<Vec<ProgramStep>>,
    /// Rules version 2 (secret): what to do at this turn's invasion phase.
    #[serde(default, skip_serializing_if = "is_ask")]
    pub at_invasion: InvasionOrder,
    /// Rules version 2: the seat has answered this turn's call for
    /// programs (with a program, or to play by hand).
    #[serde(default, skip_serializing_if = "no")]
    pub programmed: bool,
}

fn is_ask(o: &InvasionOrder) -> bool {
    *o == InvasionOrder::Ask
}

/// Where the player whose turn it is stands in the player phase (1.2 A).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    #[default]
    God,
    Produce,
    Take,
    Place,
    Move,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    #[default]
    Setup,
    ChooseGods,
    Placement,
    /// Rules version 2: every seat gives the program of its coming turn
    /// (or chooses to play it by hand), all at once.
    Programs,
    Players,
    Invasion,
    Over,
}

/// A battle under way (5.2): the attacking units are on the roads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Battle {
    pub city: u8,
    pub attacker: Seat,
    pub defender: Seat,
    pub units: u8,
    pub origins: Vec<(u8, u8)>,
}

/// The invasion phase (7).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Invasion {
    pub order: Vec<Seat>,
    pub next: usize,
    /// The current invader's reserve during its invasion.
    pub reserve: u8,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct State {
    pub seats: u8,
    pub rules: Rules,
    pub board: Board,
    pub cities: Vec<CityState>,
    pub players: Vec<Player>,
    pub phase: Phase,
    pub turn: u32,
    pub first: Seat,
    pub current: Seat,
    pub step: Step,
    /// Player phases finished this turn.
    pub played: u8,
    /// Setup placement (3.8): the order of the remaining placements.
    pub placements: Vec<Seat>,
    /// Face-down stacks (secret: shown to nobody) and their sizes (public).
    pub knowledge_stack: Vec<u8>,
    pub knowledge_left: u8,
    pub knowledge_shown: Vec<u8>,
    pub public_knowledge: Vec<u8>,
    pub building_stack: Vec<u8>,
    pub building_left: u8,
    pub building_shown: Vec<u8>,
    /// The rumor deck, top first (lowest values on top, 3.7).
    pub rumor_deck: Vec<u8>,
    pub battle: Option<Battle>,
    /// The battle under way waits for this decision.
    #[serde(default)]
    pub asked: Option<Asked>,
    pub invasion: Option<Invasion>,
    pub winners: Vec<Seat>,
}

impl State {
    pub fn n(&self) -> usize {
        self.seats as usize
    }

    /// Units of `seat` on the board.
    pub fn on_board(&self, seat: Seat) -> u8 {
        self.cities.iter().filter(|c| c.owner == Some(seat)).map(|c| c.units).sum()
    }

    /// Units of `seat` not on the board (the 30-unit limit).
    pub fn pool(&self, seat: Seat) -> u8 {
        let battle = self.battle.as_ref().filter(|b| b.attacker == seat).map_or(0, |b| b.units);
        MAX_UNITS.saturating_sub(self.on_board(seat) + battle)
    }

    pub fn controlled(&self, seat: Seat) -> Vec<u8> {
        (0..self.cities.len() as u8).filter(|&c| self.cities[c as usize].owner == Some(seat)).collect()
    }

    pub fn has_kingdom(&self, seat: Seat) -> bool {
        self.on_board(seat) > 0
    }

    pub fn temple_of(&self, seat: Seat) -> Option<u8> {
        (0..self.cities.len() as u8).find(|&c| self.cities[c as usize].temple == Some(seat))
    }

    /// Intimidation: the god's base value plus every rumor card held (5.2.4).
    pub fn intimidation(&self, seat: Seat) -> u32 {
        let p = &self.players[seat as usize];
        let god = p.god.map_or(0, |g| data().gods[g as usize].intimidation as u32);
        god + p.rumors.iter().map(|&r| data().rumors[r as usize] as u32).sum::<u32>()
    }

    /// Whether `seat` benefits from a knowledge effect: its own cards, and every
    /// card made public by a fallen kingdom (5.4.1); before rules version 3
    /// also every card another kingdom played public.
    pub fn knows(&self, seat: Seat, effect: crate::data::Effect) -> bool {
        self.knows_count(seat, effect) > 0
    }

    /// Whether a card another kingdom holds helps everyone: before rules
    /// version 3, a card played with its "public" keyword up; from version 3
    /// none, as 4.2.3 places a developed card "in front of themselves
    /// straight up" and 5.4.1 makes a card public only when its kingdom falls.
    fn shared(&self, card: &crate::data::Knowledge) -> bool {
        self.rules.version < 3 && card.public()
    }

    /// How many cards of one effect `seat` benefits from (bonuses add up).
    pub fn knows_count(&self, seat: Seat, effect: crate::data::Effect) -> u8 {
        let d = data();
        let mut n = 0;
        for (s, p) in self.players.iter().enumerate() {
            for &k in &p.knowledge {
                let c = &d.knowledge[k as usize];
                if c.effect == effect && (s == seat as usize || self.shared(c)) {
                    n += 1;
                }
            }
        }
        n + self.public_knowledge.iter().filter(|&&k| d.knowledge[k as usize].effect == effect).count() as u8
    }

    /// Trophy types depleted (1.1, 6.2): knowledge, buildings, rumors.
    pub fn depleted(&self) -> u8 {
        let k = self.knowledge_left == 0 && self.knowledge_shown.is_empty();
        let b = self.building_left == 0 && self.building_shown.is_empty();
        let r = self.rumor_deck.is_empty();
        k as u8 + b as u8 + r as u8
    }

    pub fn city_name(&self, c: u8) -> String {
        self.board.cities.get(c as usize).map_or_else(|| format!("city {c}"), |x| x.name.clone())
    }
}

/// One move of a planned movement (5.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Move {
    pub from: u8,
    pub to: u8,
    pub units: u8,
}

/// Standing orders for one attack (asynchronous play).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttackOrder {
    pub city: u8,
    /// Retreat before a roll once the attack is down to this many units (0: never).
    #[serde(default)]
    pub retreat_at: u8,
    /// Rampage into this road-adjacent city if the battle allows it (5.2.6).
    #[serde(default)]
    pub rampage: Option<u8>,
    /// Rules version 2: units to move into a city the rampage empties
    /// (5.2.6 "any amount of units"); absent, all but one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rampage_units: Option<u8>,
    /// After a win, move the troops into the city (true) or all back to where
    /// they came from (5.2.2).
    #[serde(default = "yes")]
    pub occupy: bool,
    /// 5.2.3 "Units that did not engage a battle can also be moved back if
    /// the player change their mind after the results of a battle": call
    /// this attack off, its units staying home, if a battle fought before it
    /// this turn was lost.
    #[serde(default)]
    pub call_off_if_lost: bool,
    /// Once down to `retreat_at`, ask before each roll (retreat or roll on)
    /// instead of retreating at once: the battle waits for the answer, a
    /// small decision with a short deadline; at the deadline the attack
    /// retreats as ordered.
    #[serde(default, skip_serializing_if = "no")]
    pub ask: bool,
}

impl AttackOrder {
    /// The orders an attack gets when none are given: fight to the last, move in.
    pub fn plain(city: u8) -> Self {
        AttackOrder {
            city,
            retreat_at: 0,
            rampage: None,
            rampage_units: None,
            occupy: true,
            call_off_if_lost: false,
            ask: false,
        }
    }
}

/// One attack of a planned movement still to be fought: the units from each
/// city and the attack's standing orders (whose `city` is the target).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Planned {
    pub origins: Vec<(u8, u8)>,
    pub order: AttackOrder,
}

/// A battle waiting for a decision its standing orders left open ("ask
/// me"), and what the movement still has to do once it is answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Asked {
    /// Who is asked: the attacker or the defender, before their roll.
    pub seat: Seat,
    pub attacker: bool,
    /// The standing orders of the attack under way.
    pub order: AttackOrder,
    /// Hits of the roll before (battle exhaustion, 5.2.5).
    pub last: Option<u8>,
    /// No roll of the attacker has failed to take the city yet (rampage, 5.2.6).
    pub first: bool,
    /// The movement's attacks still to fight after this one, in order.
    pub rest: Vec<Planned>,
    /// Cities attacked or rampaged this turn so far.
    pub attacked: Vec<u8>,
    /// Whether a battle before this one was lost (5.2.3's calling off).
    pub lost: bool,
}

fn yes() -> bool {
    true
}

/// One invasion path (7.2.3-7.2.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InvasionPath {
    /// Index of the invasion arrow in the board's paths.
    pub path: u8,
    /// The first city attacked: the arrow's city, or (when the arrow leads to a
    /// port city the invader already holds) a city adjacent to it.
    pub first: u8,
    /// The city attacked next, road adjacent to the one before.
    #[serde(default)]
    pub then: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// Choose one of the two god cards dealt (3.2), secretly.
    ChooseGod {
        god: u8,
    },
    /// Place a group of 3 units during setup (3.8).
    PlaceGroup {
        city: u8,
    },
    /// Use the god's ability (4.1): `target` is a city, `copy` the god copied.
    UseGod {
        #[serde(default)]
        target: Option<u8>,
        #[serde(default)]
        copy: Option<u8>,
    },
    SkipGod,
    /// Spend the free production points of cities and ports (4.4.3): unit, building, knowledge.
    Produce {
        free: [u8; 3],
    },
    /// Take a face-up knowledge card (4.2.3).
    TakeKnowledge {
        card: u8,
    },
    /// Take a face-up building tile (4.2.2).
    TakeBuilding {
        tile: u8,
    },
    /// Place produced units and buildings (4.5): one city per unit; (tile, city) per building.
    PlaceProduced {
        units: Vec<u8>,
        #[serde(default)]
        buildings: Vec<(u8, u8)>,
    },
    /// The whole movement, and the standing orders of its attacks (5.1).
    Move {
        moves: Vec<Move>,
        #[serde(default)]
        attacks: Vec<AttackOrder>,
    },
    /// Replace the standing defence orders (a standing order: allowed at any time).
    SetDefence {
        defence: Defence,
    },
    /// Answer a battle that asks (orders with `ask`): retreat, or roll on.
    /// A retreating defender may name the city to retreat to (`to`); without
    /// it the standing defence orders choose.
    AnswerBattle {
        retreat: bool,
        #[serde(default)]
        to: Option<u8>,
    },
    /// Invade (7.2): surrender the kingdom to `surrender_to`, then the paths, then the temple's city.
    Invade {
        #[serde(default)]
        surrender_to: Option<Seat>,
        paths: Vec<InvasionPath>,
        #[serde(default)]
        temple: Option<u8>,
        /// Rules version 3, 7.2.6 "they spread all their army units left
        /// from their reserve into the cities that they controls": units of
        /// the reserve left to put in these cities first, (city, units), as
        /// far as it goes (a city not held then is passed over); the rest is
        /// spread evenly.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        stack: Vec<(u8, u8)>,
    },
    /// Do not invade this turn.
    PassInvasion,
    /// Rules version 2: the god and every setup placement in one decision
    /// (secret until the gods are revealed; replaceable until then). Each
    /// placement (a `place_group` step with its fallback) runs when that
    /// placement turn comes.
    Setup {
        god: u8,
        places: Vec<ProgramStep>,
    },
    /// Rules version 2: the whole coming turn, given any time before it
    /// begins (secret until it runs, replaceable until then): the player
    /// phase's steps in order, each with its fallback (no steps: play the
    /// turn by hand), and what to do at this turn's invasion phase.
    Program {
        #[serde(default)]
        steps: Vec<ProgramStep>,
        #[serde(default)]
        invasion: InvasionOrder,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, runestone_engine::TagFirst, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Begun {
        seats: u8,
        rules: Rules,
        board: Board,
    },
    /// The face-down stacks, top first: seen by nobody (the referee only).
    StacksShuffled {
        knowledge: Option<Vec<u8>>,
        buildings: Option<Vec<u8>>,
        knowledge_len: u8,
        buildings_len: u8,
    },
    /// The rumor deck, top first. From rules version 3 the cards are seen by
    /// nobody (3.7 "only the top card of the deck is shown"): the public
    /// form holds the top card alone and `left`, the deck's size.
    RumorDeck {
        cards: Vec<u8>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        left: Option<u8>,
    },
    KnowledgeShown {
        card: u8,
    },
    BuildingShown {
        tile: u8,
    },
    GodsDealt {
        seat: Seat,
        gods: Option<Vec<u8>>,
    },
    GodChosen {
        seat: Seat,
        god: Option<u8>,
    },
    GodsRevealed {
        gods: Vec<u8>,
        first: Seat,
    },
    GroupPlaced {
        seat: Seat,
        city: u8,
        temple: bool,
    },
    TurnBegan {
        seat: Seat,
        turn: u32,
    },
    /// Rules version 2: the setup placements given with the god (secret).
    SetupGiven {
        seat: Seat,
        places: Option<Vec<ProgramStep>>,
    },
    /// Rules version 2: every seat is asked for the program of turn `turn`.
    ProgramsAsked {
        turn: u32,
    },
    /// Rules version 2: a seat's program of its coming turn (secret; the
    /// others read that it was given). `steps` empty: the turn is played by hand.
    ProgramGiven {
        seat: Seat,
        steps: Option<Vec<ProgramStep>>,
        invasion: Option<InvasionOrder>,
    },
    /// A program begins to run (`steps` steps): the placement's, the player
    /// phase's or the invasion's, by the phase it runs in.
    ProgramStarted {
        seat: Seat,
        steps: u8,
    },
    /// What a program's step did, in words.
    ProgramStep {
        seat: Seat,
        step: u8,
        outcome: runestone_engine::StepOutcome,
        text: String,
    },
    StepReached {
        step: Step,
    },
    GodPower {
        seat: Seat,
        god: u8,
        target: Option<u8>,
    },
    UnitsKilled {
        city: u8,
        units: u8,
    },
    TempleDestroyed {
        city: u8,
    },
    TrackPoints {
        seat: Seat,
        track: u8,
        points: u8,
    },
    Produced {
        seat: Seat,
        added: [u8; 3],
        tracks: [u8; 3],
        owed: [u8; 3],
    },
    Glory {
        seat: Seat,
        delta: Option<i32>,
        reason: String,
    },
    KnowledgeTaken {
        seat: Seat,
        card: u8,
    },
    BuildingTaken {
        seat: Seat,
        tile: u8,
    },
    UnitPlaced {
        seat: Seat,
        city: u8,
    },
    BuildingPlaced {
        seat: Seat,
        tile: u8,
        city: u8,
    },
    Moved {
        seat: Seat,
        from: u8,
        to: u8,
        units: u8,
    },
    BattleBegan {
        city: u8,
        attacker: Seat,
        defender: Seat,
        from: Vec<(u8, u8)>,
        defenders: u8,
    },
    Rolled {
        seat: Seat,
        dice: Vec<u8>,
        hits: u8,
        need: u8,
    },
    Casualties {
        seat: Seat,
        attacker: bool,
        units: u8,
    },
    Intimidated {
        seat: Seat,
        attacker: bool,
        to: u8,
    },
    Retreated {
        seat: Seat,
        attacker: bool,
        to: Vec<(u8, u8)>,
    },
    Exhausted {
        city: u8,
    },
    BattleEnded {
        city: u8,
        won: bool,
    },
    Victory {
        seat: Seat,
        victories: u8,
    },
    RumorDrawn {
        seat: Seat,
        card: u8,
    },
    Rampaged {
        seat: Seat,
        from: u8,
        to: u8,
        dice: Vec<u8>,
        hits: u8,
        lost: u8,
    },
    KingdomFell {
        seat: Seat,
        by: Option<Seat>,
        knowledge_points: u8,
    },
    TurnEnded {
        seat: Seat,
    },
    RoundEnded {
        turn: u32,
        depleted: u8,
        /// Rules version 2: the next turn begins with the call for
        /// programs (`ProgramsAsked`), which is where its round begins.
        #[serde(default, skip_serializing_if = "no")]
        programs: bool,
    },
    RumorsGiven {
        from: Seat,
        to: Option<Seat>,
        cards: Vec<u8>,
    },
    GameEnded {
        winners: Vec<Seat>,
    },
    InvasionBegan {
        order: Vec<Seat>,
    },
    InvaderCardDiscarded {
        seat: Seat,
    },
    InvaderCardTaken {
        seat: Seat,
    },
    Surrendered {
        seat: Seat,
        to: Option<Seat>,
        replaced: Vec<(u8, u8)>,
        /// Units of the receiver taken off its own cities to complete the
        /// replacement (7.2.2), before they are placed.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        removed: Vec<(u8, u8)>,
    },
    PathBlocked {
        seat: Seat,
        path: u8,
    },
    /// Rules version 3: an invasion path ends before its next city (7.2.5:
    /// the invader continues only "from the city they just invaded"), told
    /// with the city it would have attacked and why.
    PathStopped {
        seat: Seat,
        path: u8,
        city: u8,
        reason: String,
    },
    Invaded {
        seat: Seat,
        city: u8,
        dice: Vec<u8>,
        killed: u8,
        casualties: u8,
        placed: u8,
        defender_lost: u8,
    },
    ReserveSpread {
        seat: Seat,
        cities: Vec<(u8, u8)>,
    },
    TemplePlaced {
        seat: Seat,
        city: u8,
    },
    InvasionPassed {
        seat: Seat,
    },
    InvasionEnded {
        seat: Seat,
    },
    FirstPlayer {
        seat: Seat,
    },
    /// Standing defence orders replaced (secret to the seat).
    DefenceSet {
        seat: Seat,
        defence: Option<Defence>,
    },
    /// 5.2.3: an attack called off after an earlier battle was lost; its
    /// units never left their cities.
    AttackCalledOff {
        seat: Seat,
        city: u8,
        units: u8,
    },
    /// The battle under way waits for a decision the standing orders left open.
    BattleAsked {
        asked: Asked,
    },
    /// The answer: retreat (to `to`, if named) or roll on.
    BattleAnswered {
        seat: Seat,
        retreat: bool,
        to: Option<u8>,
    },
}

/// The order of the setup placements after the first cities (3.8): snake order
/// starting from the last player, until every player has placed 21 units.
pub fn placement_order(seats: u8, first: Seat) -> Vec<Seat> {
    let cw: Vec<Seat> = (0..seats).map(|k| (first + k) % seats).collect();
    let mut out = cw.clone();
    for round in 1..7 {
        if round % 2 == 1 {
            out.extend(cw.iter().rev());
        } else {
            out.extend(cw.iter());
        }
    }
    out
}

fn remove_units(s: &mut State, city: u8, n: u8) {
    let c = &mut s.cities[city as usize];
    c.units = c.units.saturating_sub(n);
    if c.units == 0 {
        c.owner = None;
    }
}

fn add_units(s: &mut State, seat: Seat, city: u8, n: u8) {
    if n == 0 {
        return;
    }
    let c = &mut s.cities[city as usize];
    if c.owner != Some(seat) {
        c.owner = Some(seat);
        c.units = 0;
    }
    c.units += n;
}

pub fn apply(s: &mut State, e: &Event) {
    match e {
        Event::Begun { seats, rules, board } => {
            *s = State {
                seats: *seats,
                rules: rules.clone(),
                cities: vec![CityState::default(); board.n()],
                board: board.clone(),
                players: vec![Player::default(); *seats as usize],
                phase: Phase::ChooseGods,
                ..State::default()
            };
        }
        Event::StacksShuffled { knowledge, buildings, knowledge_len, buildings_len } => {
            s.knowledge_stack = knowledge.clone().unwrap_or_default();
            s.building_stack = buildings.clone().unwrap_or_default();
            s.knowledge_left = *knowledge_len;
            s.building_left = *buildings_len;
        }
        Event::RumorDeck { cards, .. } => s.rumor_deck = cards.clone(),
        Event::KnowledgeShown { card } => {
            s.knowledge_stack.retain(|k| k != card);
            s.knowledge_left = s.knowledge_left.saturating_sub(1);
            s.knowledge_shown.push(*card);
        }
        Event::BuildingShown { tile } => {
            s.building_stack.retain(|k| k != tile);
            s.building_left = s.building_left.saturating_sub(1);
            s.building_shown.push(*tile);
        }
        Event::GodsDealt { seat, gods } => s.players[*seat as usize].dealt = gods.clone(),
        Event::GodChosen { seat, god } => {
            let p = &mut s.players[*seat as usize];
            p.chosen = *god;
            p.has_chosen = true;
            // A god chosen again replaces the placements given with it.
            p.places.clear();
        }
        Event::SetupGiven { seat, places } => {
            if let Some(v) = places {
                s.players[*seat as usize].places = v.clone();
            }
        }
        Event::ProgramsAsked { turn } => {
            s.phase = Phase::Programs;
            s.turn = *turn;
            for p in s.players.iter_mut() {
                p.programmed = false;
                p.places.clear();
            }
        }
        Event::ProgramGiven { seat, steps, invasion } => {
            let p = &mut s.players[*seat as usize];
            p.programmed = true;
            p.program = steps.clone().filter(|v| !v.is_empty());
            p.at_invasion = invasion.clone().unwrap_or_default();
        }
        Event::ProgramStarted { seat, .. } => {
            let phase = s.phase;
            let p = &mut s.players[*seat as usize];
            match phase {
                Phase::Placement if !p.places.is_empty() => {
                    p.places.remove(0);
                }
                Phase::Invasion => p.at_invasion = InvasionOrder::Ask,
                _ => p.program = None,
            }
        }
        Event::ProgramStep { .. } => {}
        Event::GodsRevealed { gods, first } => {
            for (p, g) in s.players.iter_mut().zip(gods) {
                p.god = Some(*g);
                p.chosen = Some(*g);
            }
            s.first = *first;
            s.phase = Phase::Placement;
            s.placements = placement_order(s.seats, *first);
        }
        Event::GroupPlaced { seat, city, temple } => {
            add_units(s, *seat, *city, 3);
            if *temple {
                s.cities[*city as usize].temple = Some(*seat);
            }
            s.players[*seat as usize].placed += 3;
            if !s.placements.is_empty() {
                s.placements.remove(0);
            }
        }
        Event::TurnBegan { seat, turn } => {
            s.phase = Phase::Players;
            s.current = *seat;
            s.turn = *turn;
            s.step = Step::God;
        }
        Event::StepReached { step } => s.step = *step,
        Event::GodPower { .. } => {}
        Event::UnitsKilled { city, units } => remove_units(s, *city, *units),
        Event::TempleDestroyed { city } => s.cities[*city as usize].temple = None,
        Event::TrackPoints { seat, track, points } => {
            let t = &mut s.players[*seat as usize].tracks[*track as usize];
            *t = t.saturating_add(*points);
        }
        Event::Produced { seat, tracks, owed, .. } => {
            let p = &mut s.players[*seat as usize];
            p.tracks = *tracks;
            p.owed = *owed;
        }
        Event::Glory { seat, delta, .. } => {
            if let Some(d) = delta {
                s.players[*seat as usize].glory += d;
            }
        }
        Event::KnowledgeTaken { seat, card } => {
            s.knowledge_shown.retain(|k| k != card);
            let p = &mut s.players[*seat as usize];
            p.knowledge.push(*card);
            p.owed[2] = p.owed[2].saturating_sub(1);
        }
        Event::BuildingTaken { seat, tile } => {
            s.building_shown.retain(|k| k != tile);
            let p = &mut s.players[*seat as usize];
            p.sheet.push(*tile);
            p.owed[1] = p.owed[1].saturating_sub(1);
        }
        Event::UnitPlaced { seat, city } => {
            add_units(s, *seat, *city, 1);
            let p = &mut s.players[*seat as usize];
            p.owed[0] = p.owed[0].saturating_sub(1);
        }
        Event::BuildingPlaced { seat, tile, city } => {
            s.players[*seat as usize].sheet.retain(|t| t != tile);
            s.cities[*city as usize].building = Some(*tile);
        }
        Event::Moved { seat, from, to, units } => {
            remove_units(s, *from, *units);
            add_units(s, *seat, *to, *units);
        }
        Event::BattleBegan { city, attacker, defender, from, .. } => {
            for (c, n) in from {
                remove_units(s, *c, *n);
            }
            s.battle = Some(Battle {
                city: *city,
                attacker: *attacker,
                defender: *defender,
                units: from.iter().map(|x| x.1).sum(),
                origins: from.clone(),
            });
        }
        Event::Rolled { .. } | Event::Exhausted { .. } => {}
        Event::Casualties { attacker, units, .. } => {
            if *attacker {
                if let Some(b) = &mut s.battle {
                    b.units = b.units.saturating_sub(*units);
                }
            } else if let Some(b) = &s.battle {
                let c = b.city;
                remove_units(s, c, *units);
            }
        }
        Event::Intimidated { seat, attacker, to } => {
            if *attacker {
                if let Some(b) = &mut s.battle {
                    b.units = b.units.saturating_sub(1);
                }
                add_units(s, *seat, *to, 1);
            } else if let Some(b) = &s.battle {
                let c = b.city;
                remove_units(s, c, 1);
                add_units(s, *seat, *to, 1);
            }
        }
        Event::Retreated { seat, attacker, to } => {
            if *attacker {
                if let Some(b) = &mut s.battle {
                    b.units = 0;
                }
            } else if let Some(b) = &s.battle {
                let c = b.city;
                let n: u8 = to.iter().map(|x| x.1).sum();
                remove_units(s, c, n);
            }
            for (c, n) in to {
                add_units(s, *seat, *c, *n);
            }
        }
        Event::BattleEnded { city, won } => {
            if let Some(b) = s.battle.take() {
                if *won && b.units > 0 {
                    s.cities[*city as usize].owner = Some(b.attacker);
                    s.cities[*city as usize].units = b.units;
                } else if b.units > 0 {
                    // The survivors go back to where they came from, in order.
                    let mut left = b.units;
                    for (c, n) in &b.origins {
                        let k = left.min(*n);
                        add_units(s, b.attacker, *c, k);
                        left -= k;
                    }
                }
            }
        }
        Event::Victory { seat, victories } => s.players[*seat as usize].victories = *victories,
        Event::RumorDrawn { seat, card } => {
            s.rumor_deck.retain(|r| r != card);
            s.players[*seat as usize].rumors.push(*card);
        }
        Event::Rampaged { from, to, hits, lost, .. } => {
            remove_units(s, *to, *hits);
            remove_units(s, *from, *lost);
        }
        Event::KingdomFell { seat, by, knowledge_points } => {
            if let Some(v) = by {
                let t = &mut s.players[*v as usize].tracks[2];
                *t = t.saturating_add(*knowledge_points);
            }
            let p = &mut s.players[*seat as usize];
            p.tracks = [0; 3];
            let cards = std::mem::take(&mut p.knowledge);
            s.public_knowledge.extend(cards);
        }
        Event::TurnEnded { seat } => {
            s.played += 1;
            s.players[*seat as usize].program = None;
        }
        Event::RoundEnded { .. } => s.played = 0,
        Event::RumorsGiven { from, to, cards } => {
            s.players[*from as usize].rumors.retain(|r| !cards.contains(r));
            if let Some(t) = to {
                s.players[*t as usize].rumors.extend(cards);
            }
        }
        Event::GameEnded { winners } => {
            s.phase = Phase::Over;
            s.winners = winners.clone();
        }
        Event::InvasionBegan { order } => {
            s.phase = Phase::Invasion;
            s.invasion = Some(Invasion { order: order.clone(), next: 0, reserve: 0 });
        }
        Event::InvaderCardDiscarded { seat } => {
            let p = &mut s.players[*seat as usize];
            p.at_invasion = InvasionOrder::Ask;
            p.invader = false;
            p.blockers.clear();
            if let Some(i) = &mut s.invasion {
                i.next += 1;
            }
        }
        Event::InvaderCardTaken { seat } => {
            s.players[*seat as usize].invader = true;
            let reserve = s.pool(*seat);
            if let Some(i) = &mut s.invasion {
                i.reserve = reserve;
            }
        }
        Event::Surrendered { seat, to, replaced, removed } => {
            for c in s.cities.iter_mut() {
                if c.owner == Some(*seat) {
                    c.owner = None;
                    c.units = 0;
                }
                if c.temple == Some(*seat) {
                    c.temple = None;
                }
            }
            for (c, n) in removed {
                remove_units(s, *c, *n);
            }
            if let Some(t) = to {
                for (c, n) in replaced {
                    add_units(s, *t, *c, *n);
                }
            }
            let reserve = s.pool(*seat);
            if let Some(i) = &mut s.invasion {
                i.reserve = reserve;
            }
        }
        Event::PathBlocked { seat, path } => s.players[*seat as usize].blockers.push(*path),
        Event::Invaded { seat, city, casualties, placed, defender_lost, .. } => {
            remove_units(s, *city, *defender_lost);
            if *placed > 0 {
                let c = &mut s.cities[*city as usize];
                c.owner = Some(*seat);
                c.units = *placed;
            }
            if let Some(i) = &mut s.invasion {
                i.reserve = i.reserve.saturating_sub(casualties + placed);
            }
        }
        Event::ReserveSpread { seat, cities } => {
            for (c, n) in cities {
                add_units(s, *seat, *c, *n);
            }
            if let Some(i) = &mut s.invasion {
                i.reserve = 0;
            }
        }
        Event::TemplePlaced { seat, city } => {
            for c in s.cities.iter_mut().filter(|c| c.temple == Some(*seat)) {
                c.temple = None;
            }
            s.cities[*city as usize].temple = Some(*seat);
        }
        Event::AttackCalledOff { .. } | Event::PathStopped { .. } => {}
        Event::BattleAsked { asked } => s.asked = Some(asked.clone()),
        Event::BattleAnswered { .. } => s.asked = None,
        Event::DefenceSet { seat, defence } => {
            if let Some(d) = defence {
                s.players[*seat as usize].defence = d.clone();
            }
        }
        Event::InvasionPassed { seat } | Event::InvasionEnded { seat } => {
            s.players[*seat as usize].at_invasion = InvasionOrder::Ask;
            if let Some(i) = &mut s.invasion {
                i.next += 1;
                i.reserve = 0;
            }
        }
        Event::FirstPlayer { seat } => {
            s.first = *seat;
            s.invasion = None;
        }
    }
}

/// Whether `e` fits the position `s`: every seat, city, card, tile, god and
/// track it names exists ([`runestone_engine::Game::fits`]).
pub fn fits(s: &State, e: &Event) -> Result<(), String> {
    let d = crate::data::data();
    let seats = s.players.len();
    let seat = |k: Seat| match (k as usize) < seats {
        true => Ok(()),
        false => Err(format!("it names seat {k}, but the game has {seats} seats")),
    };
    let city = |c: u8| match (c as usize) < s.cities.len() {
        true => Ok(()),
        false => Err(format!("it names city {c}, but the board has {} cities", s.cities.len())),
    };
    let below = |what: &str, i: u8, n: usize| match (i as usize) < n {
        true => Ok(()),
        false => Err(format!("it names {what} {i}, but there are {n}")),
    };
    let cities = |v: &[(u8, u8)]| v.iter().try_for_each(|(c, _)| city(*c));
    let opt_seat = |k: &Option<Seat>| k.map_or(Ok(()), seat);
    match e {
        Event::Begun { seats, board, .. } => match *seats {
            2..=8 if board.n() <= 255 => Ok(()),
            n => Err(format!("a game of {n} seats on {} cities is not one the rules set up", board.n())),
        },
        Event::StacksShuffled { .. } | Event::RumorDeck { .. } | Event::StepReached { .. } => Ok(()),
        Event::RoundEnded { .. } | Event::BattleAsked { .. } | Event::ProgramsAsked { .. } => Ok(()),
        Event::SetupGiven { seat: k, .. }
        | Event::ProgramGiven { seat: k, .. }
        | Event::ProgramStarted { seat: k, .. }
        | Event::ProgramStep { seat: k, .. } => seat(*k),
        Event::KnowledgeShown { card } => below("knowledge card", *card, d.knowledge.len()),
        Event::BuildingShown { tile } => below("building tile", *tile, d.buildings.len()),
        Event::GodsDealt { seat: k, gods } => {
            seat(*k)?;
            gods.iter().flatten().try_for_each(|g| below("god", *g, d.gods.len()))
        }
        Event::GodChosen { seat: k, god } => {
            seat(*k)?;
            god.map_or(Ok(()), |g| below("god", g, d.gods.len()))
        }
        Event::GodsRevealed { gods, first } => {
            seat(*first)?;
            gods.iter().try_for_each(|g| below("god", *g, d.gods.len()))
        }
        Event::GroupPlaced { seat: k, city: c, .. }
        | Event::UnitPlaced { seat: k, city: c }
        | Event::Invaded { seat: k, city: c, .. }
        | Event::TemplePlaced { seat: k, city: c }
        | Event::PathStopped { seat: k, city: c, .. }
        | Event::AttackCalledOff { seat: k, city: c, .. } => {
            seat(*k)?;
            city(*c)
        }
        Event::TurnBegan { seat: k, .. }
        | Event::Produced { seat: k, .. }
        | Event::Glory { seat: k, .. }
        | Event::Rolled { seat: k, .. }
        | Event::Casualties { seat: k, .. }
        | Event::Victory { seat: k, .. }
        | Event::TurnEnded { seat: k }
        | Event::InvaderCardDiscarded { seat: k }
        | Event::InvaderCardTaken { seat: k }
        | Event::PathBlocked { seat: k, .. }
        | Event::InvasionPassed { seat: k }
        | Event::InvasionEnded { seat: k }
        | Event::FirstPlayer { seat: k }
        | Event::DefenceSet { seat: k, .. } => seat(*k),
        Event::GodPower { seat: k, god, target } => {
            seat(*k)?;
            below("god", *god, d.gods.len())?;
            target.map_or(Ok(()), city)
        }
        Event::UnitsKilled { city: c, .. }
        | Event::TempleDestroyed { city: c }
        | Event::Exhausted { city: c }
        | Event::BattleEnded { city: c, .. } => city(*c),
        Event::TrackPoints { seat: k, track, .. } => {
            seat(*k)?;
            below("track", *track, 3)
        }
        Event::KnowledgeTaken { seat: k, card } => {
            seat(*k)?;
            below("knowledge card", *card, d.knowledge.len())
        }
        Event::BuildingTaken { seat: k, tile } => {
            seat(*k)?;
            below("building tile", *tile, d.buildings.len())
        }
        Event::BuildingPlaced { seat: k, tile, city: c } => {
            seat(*k)?;
            below("building tile", *tile, d.buildings.len())?;
            city(*c)
        }
        Event::Moved { seat: k, from, to, .. } | Event::Rampaged { seat: k, from, to, .. } => {
            seat(*k)?;
            city(*from)?;
            city(*to)
        }
        Event::BattleBegan { city: c, attacker, defender, from, .. } => {
            seat(*attacker)?;
            seat(*defender)?;
            city(*c)?;
            cities(from)
        }
        Event::Intimidated { seat: k, to, .. } => {
            seat(*k)?;
            city(*to)
        }
        Event::Retreated { seat: k, to, .. } | Event::ReserveSpread { seat: k, cities: to } => {
            seat(*k)?;
            cities(to)
        }
        Event::RumorDrawn { seat: k, card } => {
            seat(*k)?;
            below("rumor card", *card, d.rumors.len())
        }
        Event::KingdomFell { seat: k, by, .. } => {
            seat(*k)?;
            opt_seat(by)
        }
        Event::RumorsGiven { from, to, .. } => {
            seat(*from)?;
            opt_seat(to)
        }
        Event::GameEnded { winners: v } | Event::InvasionBegan { order: v } => v.iter().try_for_each(|k| seat(*k)),
        Event::Surrendered { seat: k, to, replaced, removed } => {
            seat(*k)?;
            opt_seat(to)?;
            cities(replaced)?;
            cities(removed)
        }
        Event::BattleAnswered { seat: k, to, .. } => {
            seat(*k)?;
            to.map_or(Ok(()), city)
        }
    }
}
