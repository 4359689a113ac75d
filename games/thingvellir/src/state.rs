//! The position, the commands and the events (the whole rulebook's
//! vocabulary: hof, Wealth, Oaths, Hird, Longhall, Thingvellir, the sea).

use std::collections::VecDeque;

use runestone_engine::Seat;
use serde::{Deserialize, Serialize};

use crate::data::{Action, CardId, Colour};

/// A vote in the Law Council.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, tag = "vote", rename_all = "snake_case")]
pub enum Vote {
    Support,
    /// Sue: this seat's Thingmen on Thingvellir go onto `law` at `level`.
    Sue {
        law: usize,
        level: usize,
    },
}

/// What a standing order does when the Lawspeaker proposes `when`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, tag = "do", rename_all = "snake_case")]
pub enum OrderDo {
    Support,
    /// Sue for this action (the highest allowed statute of it on another Law).
    SueFor {
        action: Action,
    },
    /// Ask me.
    Ask,
}

/// Standing voting orders: "support Settle and Ride, sue for Raid against Feast".
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Orders {
    pub rules: Vec<(Action, OrderDo)>,
    /// For an action no rule names; `None` asks.
    pub otherwise: Option<OrderDo>,
}

/// Standing choices: what the rules choose for a winner unless the winner
/// asks to choose. Both are off by default, so the game never waits for
/// them: the standing defaults are the rules' own choices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Choices {
    /// Ask me which farm to raze (a feud won against no Thingmen) or to
    /// remove (a capture). Otherwise: the District of greater value on the
    /// feud's edge, and a farm of the colour the loser holds most of.
    pub farm: bool,
    /// Ask me whether a persona I draw replaces the one already in its
    /// Foster pool space. Otherwise: the old one stays.
    pub pool: bool,
}

/// One band's ride: from an edge, `count` Thingmen, along `path` (each edge
/// touching the one before).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BandMove {
    pub from: usize,
    pub count: u8,
    pub path: Vec<usize>,
}

/// Further Thingmen a murder slays: `victim`'s on `edge`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MurderTarget {
    pub edge: usize,
    pub victim: Seat,
}

/// One gift at a Feast: a single Good or a gift set to one gothi.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Gift {
    pub to: Seat,
    /// Places in the giver's Wealth.
    pub goods: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// The Lawspeaker proposes the next statute of `law`.
    Propose {
        law: usize,
    },
    Vote {
        vote: Vote,
    },
    /// Set (or clear) standing voting orders; a standing order, given at any time.
    Orders {
        orders: Option<Orders>,
    },
    /// Set the standing choices (ask me, or let the rules choose); given at any time.
    Choices {
        choices: Choices,
    },
    /// The winner's choice of the farm to raze after a feud: the loser's
    /// `district` on the feud's edge loses 1 and a farm of `colour` is removed.
    Raze {
        district: usize,
        colour: Colour,
    },
    /// The capturer's choice of the farm to remove from the game.
    RemoveFarm {
        colour: Colour,
    },
    /// After a fostering round: the drawn personae that replace the ones in
    /// their pool spaces (none keeps the old ones).
    Replace {
        personae: Vec<CardId>,
    },
    /// Settle A.
    Subsume {
        district: usize,
        colour: Colour,
    },
    /// Settle B: each step raises a District by 1 and advances a holding.
    Expand {
        steps: Vec<(usize, Colour)>,
    },
    /// Ride A and B.
    Ride {
        set_forth: Vec<usize>,
        moves: Vec<BandMove>,
    },
    /// Raid A.
    SailOut {
        thingmen: u8,
    },
    /// Raid B (draws; then `Keep`).
    ReturnLaden,
    Keep {
        cards: Vec<CardId>,
    },
    /// Pledge: draws; then `Swear`.
    DrawPledge,
    Swear {
        add: Option<CardId>,
        swaps: Vec<(usize, CardId)>,
    },
    /// The fostering round.
    SendOff {
        persona: CardId,
    },
    FosterPersona {
        persona: CardId,
    },
    /// Feast A.
    Give {
        gifts: Vec<Gift>,
    },
    /// Feast B: discard Bondi (by place in Oaths) to slay `victim`'s Thingmen on `edge`,
    /// and by rules version 3 then those of each further target in `also`, in order.
    Murder {
        bondi: Vec<usize>,
        edge: usize,
        victim: Seat,
        /// Further Thingmen to murder (rules version 3: "as many as you like").
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        also: Vec<MurderTarget>,
    },
    /// Feast B under the Arson option: burn a rival's District.
    Burn {
        bondi: usize,
        district: usize,
    },
    /// Feast B: capture a District.
    Capture {
        bondi: usize,
        weapon: Option<usize>,
        district: usize,
        pay: bool,
    },
    /// Do nothing more with this action or decision.
    Pass,
    /// Feud, faithful exchange: the Good at this place in your Wealth.
    Commit {
        good: usize,
    },
    Accept {
        colour: Colour,
    },
    /// Feud, sealed commitments.
    Seal {
        goods: Vec<usize>,
    },
    /// The season's program (rules version 2): given by every seat at once
    /// as the round begins, secret until it runs, replaceable until it
    /// begins to run.
    Season {
        program: crate::program::Program,
    },
    /// Set the standing answers to the decisions asked outside one's own
    /// actions (rules version 2); given at any time.
    Answers {
        answers: crate::program::Answers,
    },
    /// A District's gothi decides on a band that rode through.
    Challenge {
        fight: bool,
    },
}

#[derive(Clone, Debug, Serialize, runestone_engine::TagFirst, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Setup {
        seats: u8,
        lawspeaker: Seat,
        sealed_feuds: bool,
        advanced_outlawry: bool,
        /// Absent (off) in logs from before the option.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        district_goods: bool,
        /// Absent (off) in logs from before the option.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        arson: bool,
        deck: Vec<CardId>,
        /// The rules version the game is played by; absent in games of
        /// version 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        version: Option<u32>,
        /// By rules version 4: the Home Stead card dealt each seat, as a
        /// place in the map's list of them (a game of N players deals the
        /// first N); absent before.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        homes: Vec<u8>,
    },
    /// The Doom shuffled into a new orlog.
    Reshuffled { deck: Vec<CardId> },
    /// A command accepted (its consequences follow from the rules).
    Acted { seat: Seat, command: Command },
    /// A secret command, as the others see it.
    Hidden { seat: Seat },
    /// One step of a seat's season program as it ran (or the program's
    /// `otherwise` where no step was left for the decision: `step` 0), in
    /// words; `command` is what it did, judged as the same command by hand.
    ProgramStep {
        seat: Seat,
        step: u8,
        outcome: crate::program::StepOutcome,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        command: Option<Command>,
    },
    /// A decision answered by a standing (or this season's) order or answer,
    /// told as such; `command` is the answer, judged as if given by hand.
    /// Absent for the others when the answer is secret.
    Answered {
        seat: Seat,
        by: crate::program::By,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        command: Option<Command>,
    },
}

/// A Thingman-count per seat.
pub type Men = Vec<u8>;

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Player {
    pub wordfame: i32,
    /// Farms per colour (The Sheep Hunt track).
    pub farms: [u8; 4],
    pub longhall: u8,
    pub slain: u8,
    pub at_sea: u8,
    pub thingvellir: u8,
    pub small_tokens: u8,
    pub large_tokens: u8,
    pub wealth: Vec<CardId>,
    pub oaths: Vec<CardId>,
    pub hird: Vec<CardId>,
    /// The Home Stead card, as a place in `home_steads.toml`.
    pub home: usize,
    pub out: bool,
    /// By rules version 4: whether the gothi has held a District (one who
    /// never has is not out for having none).
    #[serde(default)]
    pub settled: bool,
    /// By rules version 4: the Thingmen lifted from the sides of
    /// Thingvellir onto a Law to sue, by edge, until the Council's actions
    /// are done.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suing: Vec<(usize, u8)>,
    pub outlawed: bool,
    /// The colour of the action taken in the Law Council this round.
    pub took: Option<(Action, Colour)>,
    pub orders: Option<Orders>,
    /// Cards drawn and being chosen from (Raid B, Pledge, replacing in the Foster pool).
    pub hand: Vec<CardId>,
    #[serde(default)]
    pub choices: Choices,
    /// Standing answers (rules version 2).
    #[serde(default)]
    pub answers: crate::program::Answers,
    /// This season's program as it runs (rules version 2).
    #[serde(default)]
    pub season: Option<crate::program::Running>,
}

/// One action waiting to be resolved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Step {
    pub seat: Seat,
    pub action: Action,
    pub strength: u8,
    /// Who began this iteration (for the fostering round).
    pub initiator: Seat,
    pub group: u16,
    /// Whether a Bondi acts (a fostering round through Bondi is alone).
    pub bondi: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Choosing {
    Raid,
    Pledge,
    /// Drawn personae whose pool space is taken: replace or not.
    Replace,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Conflict {
    pub present: bool,
    pub settled: bool,
    /// Worth committed by attacker and defender (drawn cards included).
    pub worth: [u32; 2],
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Feud {
    /// Attacker then defender.
    pub sides: [Seat; 2],
    pub edge: usize,
    /// Thingmen of each side in the fight.
    pub men: [u8; 2],
    pub drawn: [Vec<CardId>; 2],
    pub committed: [Vec<CardId>; 2],
    pub conflicts: Vec<Conflict>,
    /// Whose turn in the faithful exchange (0 attacker).
    pub turn: usize,
    pub sealed: [Option<Vec<usize>>; 2],
}

/// A feud not yet drawn: who fights whom where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FeudCall {
    pub attacker: Seat,
    pub defender: Seat,
    pub edge: usize,
    /// Case 3: the District's gothi fights without Thingmen.
    pub without_men: bool,
}

/// A farm the winner chooses (standing choice "ask me"): razed after a feud
/// won against no Thingmen, or removed with a captured District.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FarmCall {
    pub chooser: Seat,
    pub loser: Seat,
    /// The feud's edge (a raze on one of its Districts); `None` for a capture.
    pub edge: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChallengeCall {
    pub owner: Seat,
    pub rider: Seat,
    pub district: usize,
    /// Where the band ended its ride.
    pub edge: usize,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    #[default]
    Propose,
    /// Rules version 2: every seat gives its season's program at once.
    Season,
    Vote,
    Resolve,
    Over,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct State {
    /// The rules version (0 and 1: the first).
    #[serde(default)]
    pub version: u32,
    pub seats: u8,
    pub round: u32,
    pub phase: Phase,
    pub sealed_feuds: bool,
    pub advanced_outlawry: bool,
    #[serde(default)]
    pub district_goods: bool,
    #[serde(default)]
    pub arson: bool,
    /// Districts burned this round (an Arson token on each; 4 at most).
    #[serde(default)]
    pub burned: Vec<usize>,
    pub players: Vec<Player>,
    pub lawspeaker: Seat,
    /// Where the Lawspeaker token sits: (law, statute level).
    pub token: Option<(usize, usize)>,
    pub votes: Vec<Option<Vote>>,
    /// The next seat to vote.
    pub voter: Option<Seat>,
    /// District owner and value.
    pub steads: Vec<Option<(Seat, u8)>>,
    /// Thingmen per edge per seat.
    pub edges: Vec<Men>,
    pub deck: Vec<CardId>,
    pub doom: Vec<CardId>,
    /// The Foster pool, one space per colour.
    pub pool: [Option<CardId>; 4],
    pub queue: VecDeque<Step>,
    pub current: Option<Step>,
    pub choosing: Option<(Seat, Choosing, u8)>,
    pub feud: Option<Feud>,
    pub feuds: VecDeque<FeudCall>,
    pub challenges: VecDeque<ChallengeCall>,
    /// Farms whose winner asked to choose them, in turn.
    #[serde(default)]
    pub farm_calls: VecDeque<FarmCall>,
    /// Whether this round's Hunting for Sheep has been queued.
    pub hunting: bool,
    pub group_counter: u16,
    pub winner_note: Option<String>,
    /// Seats murdered by a gothi this round (for Advanced Outlawry): (murderer, victim).
    pub murders: Vec<(Seat, Seat)>,
}

impl State {
    /// The map this game is played on (by its rules version).
    pub fn map(&self) -> &'static crate::data::Map {
        crate::data::data().map_of(self.version)
    }

    /// The Thingmen of `seat` on Thingvellir: by rules version 4 those on
    /// its sides, before it the one placed there at setup.
    pub fn at_thingvellir(&self, seat: Seat) -> u8 {
        let map = self.map();
        if map.thingvellir.is_none() {
            return self.players[seat as usize].thingvellir;
        }
        (0..map.edges.len()).filter(|e| map.is_side(*e)).map(|e| self.edges[e][seat as usize]).sum()
    }

    pub fn alive(&self) -> impl Iterator<Item = Seat> + '_ {
        (0..self.seats).filter(|s| !self.players[*s as usize].out)
    }

    /// Seats clockwise (to the left) from `from`, itself first, the living only.
    pub fn clockwise(&self, from: Seat) -> Vec<Seat> {
        (0..self.seats).map(|i| (from + i) % self.seats).filter(|s| !self.players[*s as usize].out).collect()
    }

    pub fn districts_of(&self, seat: Seat) -> Vec<usize> {
        self.steads.iter().enumerate().filter(|(_, s)| s.map(|x| x.0) == Some(seat)).map(|(i, _)| i).collect()
    }

    pub fn owner(&self, district: usize) -> Option<Seat> {
        self.steads[district].map(|s| s.0)
    }

    /// Players who share a border: own Districts joined by an edge.
    pub fn neighbours(&self, seat: Seat) -> Vec<Seat> {
        let map = self.map();
        let mut out = Vec::new();
        for &(a, b) in &map.edges {
            for (x, y) in [(a, b), (b, a)] {
                if self.owner(x) == Some(seat) {
                    if let Some(o) = self.owner(y) {
                        if o != seat && !out.contains(&o) {
                            out.push(o);
                        }
                    }
                }
            }
        }
        out.sort();
        out
    }
}
