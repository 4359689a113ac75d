//! The 2018 revision of the rulebook ("RULES VERSION 2.0 JANUARY 2018"), a
//! game option (`rules: "2018"`): its numbers and switches, read by the
//! rules of the 2014 rulebook where the revision changes them. Each game
//! records its [`Rules`] in `GameStarted`, so a 2018 game replays as 2018.
//! RULES-NOTES.md, "2018 revision", gives the readings and their sources.
//!
//! What changes with `Rules::Y2018`:
//! - a gold mine gives 2 gold at the Claim phase ([`GOLD_MINE_GOLD`]);
//! - every land unit moves 2 areas per card, the Berserkur too ([`BERSERKUR_MOVES`]);
//! - a Berserkur fight costs the attacker as many disks as the defender
//!   loses: 4 against 4 ([`fight_extra`]);
//! - strengthening defences (the Berserkur's rearranging of disks) and the
//!   Kaupmadur's trade and refill at home are free once per round ([`RoundFree`]);
//! - the Knerrir lying at a harbour claims it when it is empty, with a
//!   recruit from the town area and a Knerrir card (`Command::ClaimHarbour`);
//! - a Godi on his clan's area gives 1 recruit at the Claim phase instead of
//!   +1 resource, and may not enter an area where another clan's Godi stands;
//! - runes are cast without a card or a Hof disk, up to [`FREE_RUNES_PER_TURN`]
//!   a turn; removing one costs [`RUNE_REMOVAL_GOLD`] gold; a Defence rune
//!   also keeps new runes off its area;
//! - the end awards only the 15 glory for most gold (with 1 glory per coin);
//!   the 12 for most areas is not awarded.

use serde::{Deserialize, Serialize};

/// Which rulebook a game plays by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Rules {
    /// The rulebook of 2014 (the default).
    #[default]
    #[serde(rename = "2014")]
    Y2014,
    /// The revised rules of January 2018.
    #[serde(rename = "2018")]
    Y2018,
}

impl Rules {
    /// Whether the 2014 rulebook (the default, not written in events).
    pub fn is_2014(&self) -> bool {
        *self == Rules::Y2014
    }
    /// The name as options and events write it.
    pub fn name(self) -> &'static str {
        match self {
            Rules::Y2014 => "2014",
            Rules::Y2018 => "2018",
        }
    }
}

/// The oldest rules version a 2018 game may be played by (the 2018 rules
/// build on version 3's fixes and stable tile ids).
pub const MIN_VERSION: u32 = 3;

/// Gold a gold mine gives at the Claim phase ("Each Gold mine on the board
/// that you own, give you 2 gold coins during each claim phase").
pub const GOLD_MINE_GOLD: u32 = 2;

/// Areas one Berserkur card moves him ("All land units can move 2 areas").
pub const BERSERKUR_MOVES: u8 = 2;

/// Gold to remove a rune ("pay 2 gold to remove it").
pub const RUNE_REMOVAL_GOLD: i32 = 2;

/// Runes cast a turn, without a card or a Hof disk ("You can cast up to TWO
/// runes ONCE during your Activation Phase").
pub const FREE_RUNES_PER_TURN: u8 = 2;

/// Disks the attacker pays for an enemy Berserkur beyond the defender's
/// strength: one more in 2014 ("5 disks, defender 4"), none in 2018
/// ("Attacker removes 4 disks from his Virki, defender removes 4").
pub fn fight_extra(r: Rules) -> u8 {
    match r {
        Rules::Y2014 => 1,
        Rules::Y2018 => 0,
    }
}

/// A once-a-round free action of the 2018 rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoundFree {
    /// "Strengthen defences - Free action, once per round": the Berserkur's
    /// rearranging of own disks.
    Strengthen,
    /// "Trade & refill disks in Home areas - Free action, once per round":
    /// the Kaupmadur's trade and refill standing at home.
    HomeTrade,
}

impl RoundFree {
    /// Index in `Player::round_free`.
    pub fn idx(self) -> usize {
        self as usize
    }
    /// In words.
    pub fn name(self) -> &'static str {
        match self {
            RoundFree::Strengthen => "strengthening defences",
            RoundFree::HomeTrade => "the trade and refill at home",
        }
    }
}
