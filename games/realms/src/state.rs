//! The position, the commands and the events, and how an event folds into
//! the position (`apply`): "SEQUENCE OF SUBPHASES WITHIN THE GAME ROUND" and
//! the year's steps are run by [`crate::season`], which `apply` calls with
//! the dice an event recorded.

use serde::{Deserialize, Serialize};

use runestone_engine::Seat;

use crate::data::{map, Map};

/// The nine unit types of "REAR TRADE UNITS", in the data file's order.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum UnitKind {
    #[default]
    LightInfantry,
    HeavyInfantry,
    SiegeMachine,
    Cavalry,
    TransportShip,
    WarShip,
    Mercenary,
    Corsair,
    WarElephant,
}

impl UnitKind {
    pub const ALL: [UnitKind; 9] = [
        UnitKind::LightInfantry,
        UnitKind::HeavyInfantry,
        UnitKind::SiegeMachine,
        UnitKind::Cavalry,
        UnitKind::TransportShip,
        UnitKind::WarShip,
        UnitKind::Mercenary,
        UnitKind::Corsair,
        UnitKind::WarElephant,
    ];
    pub fn idx(self) -> usize {
        self as usize
    }
    pub fn is_ship(self) -> bool {
        matches!(self, UnitKind::TransportShip | UnitKind::WarShip | UnitKind::Corsair)
    }
    pub fn name(self) -> &'static str {
        match self {
            UnitKind::LightInfantry => "Light Infantry",
            UnitKind::HeavyInfantry => "Heavy Infantry",
            UnitKind::SiegeMachine => "Siege Machines",
            UnitKind::Cavalry => "Cavalry",
            UnitKind::TransportShip => "Transport Ships",
            UnitKind::WarShip => "War Ships",
            UnitKind::Mercenary => "Mercenaries",
            UnitKind::Corsair => "Corsairs",
            UnitKind::WarElephant => "War Elephants",
        }
    }
}

/// Herds of the COMMODITIES tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Herd {
    Sheep,
    Pigs,
    Cattle,
    Horses,
}

impl Herd {
    pub const ALL: [Herd; 4] = [Herd::Sheep, Herd::Pigs, Herd::Cattle, Herd::Horses];
    pub fn idx(self) -> usize {
        self as usize
    }
    pub fn name(self) -> &'static str {
        ["sheep", "pigs", "cattle", "horses"][self.idx()]
    }
}

/// Everything that can be bought or sold in REAR-Trade. Meat (from
/// slaughter) can only be sold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Good {
    Herd(Herd),
    Grain,
    Fishes,
    Meat,
}

impl Good {
    /// Row of the commodities table; meat has none.
    pub fn idx(self) -> Option<usize> {
        match self {
            Good::Herd(h) => Some(h.idx()),
            Good::Grain => Some(4),
            Good::Fishes => Some(5),
            Good::Meat => None,
        }
    }
}

/// The BUILDINGS tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Building {
    Village,
    City,
    Dock,
    Port,
    Fortification,
}

impl Building {
    pub const ALL: [Building; 5] =
        [Building::Village, Building::City, Building::Dock, Building::Port, Building::Fortification];
    pub fn idx(self) -> usize {
        self as usize
    }
    pub fn name(self) -> &'static str {
        ["village", "city", "dock", "port", "fortification"][self.idx()]
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Season {
    #[default]
    Spring,
    Summer,
    Autumn,
    Winter,
}

impl Season {
    pub fn name(self) -> &'static str {
        ["spring", "summer", "autumn", "winter"][self as usize]
    }
}

/// The sheet's "valid from" modes this crate plays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    #[default]
    Fast,
    Basic,
    // BASIC and the sheet's ORIGINAL lines that are played: the fishing
    // roll, salaries twice a year, meat priced by season.
    Original,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Weather {
    Good,
    #[default]
    Normal,
    Bad,
}

/// One unit on the map. Lives are whole again after every battle ("life
/// recovery"), so only experience is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Unit {
    pub owner: Seat,
    pub kind: UnitKind,
    /// 0 standard, 1 experienced, 2 veteran, 3 elite.
    #[serde(default)]
    pub xp: u8,
    /// Recruited in Recruitment and not yet through a REAR-Trade.
    #[serde(default)]
    pub recruit: bool,
    /// The field it came from in this round's MOVE, if it moved.
    #[serde(default)]
    pub moved_from: Option<u16>,
    /// Carried between two ports in this round's ② ("Transport: Move
    /// between two ports as only move in MOVE"): it moves no more this round.
    #[serde(default, skip_serializing_if = "is_false")]
    pub shipped: bool,
    /// Entered mountains or wetlands this round (not Light Infantry, rules
    /// version 3): "Entry stops unit movement for the current round".
    #[serde(default, skip_serializing_if = "is_false")]
    pub halted: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A village or city token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Settlement {
    pub owner: Seat,
    pub city: bool,
    pub fort: bool,
}

/// A dock or port token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Shipyard {
    pub owner: Seat,
    pub port: bool,
}

/// A building under construction: progress in twelfths (25% = 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Construction {
    pub owner: Seat,
    pub building: Building,
    pub progress: u8,
}

/// What lies on one game field.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Field {
    #[serde(default)]
    pub settlement: Option<Settlement>,
    #[serde(default)]
    pub shipyard: Option<Shipyard>,
    #[serde(default)]
    pub construction: Option<Construction>,
    /// Grain stored in the settlement.
    #[serde(default)]
    pub grain: u8,
    /// Fish stored at the shipyard.
    #[serde(default)]
    pub fish: u8,
    /// Grain sown in spring, and by whom.
    #[serde(default)]
    pub sown: Option<(Seat, u8)>,
    /// Grain grown in summer, waiting for the harvest.
    #[serde(default)]
    pub crop: u8,
    #[serde(default)]
    pub herds: Vec<(Seat, Herd)>,
    /// The red looting token.
    #[serde(default)]
    pub looted: bool,
    #[serde(default)]
    pub units: Vec<Unit>,
}

/// One realm (player).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Realm {
    pub home: String,
    /// The id of its faction in the scenario's data (`data/<scenario>.toml`).
    pub faction: String,
    pub gold: u8,
    pub pp: i32,
    pub vp: i32,
    /// VP at the end of the last round ("Loss of 1VP compared to the last round").
    pub last_vp: i32,
    /// LEVEL OF COMMAND, 0 = without commanders.
    pub command: u8,
    /// Meat from slaughter, kept until the next feeding.
    pub meat: u8,
    /// PP value of enemy units it destroyed, and of its own units lost, this year.
    pub killed_pp: u32,
    pub lost_pp: u32,
    /// Gold that could not be taken because of the 20-cube limit.
    pub gold_over_limit: u32,
    /// The orders for this round, secret until all are in.
    #[serde(default)]
    pub orders: Option<Orders>,
    /// No units and no settlements left.
    #[serde(default)]
    pub out: bool,
}

/// One unit movement order: `count` units of `unit` from one field to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Move {
    pub from: u16,
    pub to: u16,
    pub unit: UnitKind,
    pub count: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HerdMove {
    pub from: u16,
    pub to: u16,
    pub herd: Herd,
}

/// Stored grain and fish carried from one settlement or shipyard of the
/// realm to another within its FC (③).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Carry {
    pub from: u16,
    pub to: u16,
    #[serde(default)]
    pub grain: u8,
    #[serde(default)]
    pub fish: u8,
}

/// Standing battle orders: a battle never waits for a reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Standing {
    /// Escape when fewer than this percentage of the units that began the
    /// battle remain (0: fight to the end).
    pub escape_below: u8,
    /// Prestige the realm may spend on re-rolls in one battle (4 PP each).
    pub reroll_pp: u8,
    /// Pay 6 PP once per battle to aim at one unit at the back.
    pub target_back: bool,
    /// A defended settlement taken by siege is destroyed and looted (true)
    /// or degraded (false).
    pub raze: bool,
}

impl Default for Standing {
    fn default() -> Self {
        Standing { escape_below: 34, reroll_pp: 0, target_back: false, raze: true }
    }
}

/// Starting a construction in REAR-Trade.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Build {
    pub field: u16,
    pub building: Building,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, tag = "type", rename_all = "snake_case")]
pub enum Trade {
    Buy { field: u16, good: Good, count: u8 },
    Sell { field: u16, good: Good, count: u8 },
}

/// Buying, upgrading (from Light Infantry) or selling units at a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Purchase {
    pub field: u16,
    pub unit: UnitKind,
    pub count: u8,
}

/// A realm's orders for one round and the year's step before it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Orders {
    /// ② UNITS.
    pub moves: Vec<Move>,
    /// ③ MOVE-Special.
    pub special: Vec<Move>,
    /// Pay 14 PP so every unit has a capacity of 1 in MOVE-Special.
    pub pay_special: bool,
    /// ③ herds.
    pub herds: Vec<HerdMove>,
    /// ③ stored grain and fish moved within the FC.
    pub carry: Vec<Carry>,
    /// ④ MOVE-Retreat.
    pub retreats: Vec<Move>,
    /// ⑤ ⑥ standing battle orders.
    pub battle: Standing,
    /// ⑦ fields to loot.
    pub loot: Vec<u16>,
    /// ⑧ constructions to speed up for gold, and to build twice (-12 PP).
    pub accelerate: Vec<u16>,
    pub build_twice: Vec<u16>,
    /// ⑨ REAR-Trade: own constructions to cancel (+1 gold back each).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cancel: Vec<u16>,
    /// ⑨ REAR-Trade.
    pub build: Vec<Build>,
    pub trade: Vec<Trade>,
    pub buy: Vec<Purchase>,
    pub upgrade: Vec<Purchase>,
    pub sell: Vec<Purchase>,
    /// New level of command to buy (0: keep).
    pub commanders: u8,
    /// New Year (spring): fields to sow.
    pub sow: Vec<u16>,
    /// Recruitment (autumn): fields to recruit one Light Infantry on.
    pub recruit: Vec<u16>,
    /// Festivals (winter): 1 small, 2 double, 3 triple.
    pub festival: u8,
    /// Feeding (winter): herds to slaughter for meat.
    pub slaughter: Vec<(u16, Herd)>,
}

/// The steps of a round: the year's step of the season, then ① to ⑪, and
/// after the winter round the feeding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    NewYear,
    WeatherYieldTaxes,
    HarvestRecruitment,
    FestivalsWinterWeather,
    SpecialBegin,
    Units,
    MoveSpecialHerds,
    RetreatAttrition,
    WithdrawalBattle,
    CombatSiege,
    Looting,
    Construction,
    RearTradeSalaries,
    Fishing,
    SpecialEnd,
    Feeding,
}

impl Step {
    pub fn name(self) -> &'static str {
        match self {
            Step::NewYear => "New Year: VP, prestige, calves, sowing",
            Step::WeatherYieldTaxes => "weather, yield and taxes",
            Step::HarvestRecruitment => "harvest and recruitment",
            Step::FestivalsWinterWeather => "festivals and winter weather",
            Step::SpecialBegin => "① special phase at the beginning",
            Step::Units => "② units",
            Step::MoveSpecialHerds => "③ move special, herds",
            Step::RetreatAttrition => "④ retreat, attrition",
            Step::WithdrawalBattle => "⑤ withdrawal, battle",
            Step::CombatSiege => "⑥ combat siege",
            Step::Looting => "⑦ looting",
            Step::Construction => "⑧ construction",
            Step::RearTradeSalaries => "⑨ rear trade, salaries",
            Step::Fishing => "⑩ fishing",
            Step::SpecialEnd => "⑪ special phase at the end",
            Step::Feeding => "feeding, transhumance, slaughter and meat",
        }
    }
}

/// The one command: a round's orders, replaceable until the last realm's arrive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, tag = "type", rename_all = "snake_case")]
pub enum Command {
    Orders { orders: Orders },
}

#[derive(Clone, Debug, PartialEq, Serialize, runestone_engine::TagFirst, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The opening position is built from the scenario's data.
    Started {
        scenario: String,
        mode: Mode,
        years: u8,
        players: u8,
        /// The rules version (1 is not written, as version 1 games wrote none).
        #[serde(default = "one", skip_serializing_if = "is_one")]
        rules: u32,
    },
    /// A realm gave (or replaced) its orders; others see only that it did.
    OrdersGiven {
        seat: Seat,
        orders: Option<Orders>,
    },
    /// All orders are in: each is shown to all.
    OrdersRevealed {
        seat: Seat,
        orders: Orders,
    },
    /// One step resolved with these dice (drawn in `decide`, in order).
    Resolved {
        step: Step,
        dice: Vec<u8>,
        report: Vec<String>,
    },
    /// The round is over; the next one begins.
    RoundEnded {
        year: u8,
        season: Season,
    },
    GameEnded {
        reason: String,
    },
}

fn one() -> u32 {
    1
}

fn is_one(v: &u32) -> bool {
    *v == 1
}

/// The whole position.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct State {
    pub scenario: String,
    /// The rules version the game is played by (see `RULES_VERSION`).
    #[serde(default = "one")]
    pub rules: u32,
    pub mode: Mode,
    pub years: u8,
    pub year: u8,
    pub season: Season,
    pub players: u8,
    pub fields: Vec<Field>,
    pub realms: Vec<Realm>,
    /// Winter weather: climate region 1 (temperate, or subtropical), region 2
    /// (cold, or temperate), all seas.
    pub winter: [Weather; 3],
    /// Fields whose settlement had defenders at the start of this round's battle.
    pub defended: Vec<u16>,
    /// Fields whose settlement's fortification was broken this round
    /// (rules version 3: its shields are broken once, in ⑤ or ⑥).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub breached: Vec<u16>,
    pub over: Option<String>,
}

impl State {
    pub fn map(&self) -> &'static Map {
        map(&self.scenario)
    }

    /// Whether the game plays by rules version `v` or a later one.
    pub fn from_version(&self, v: u32) -> bool {
        self.rules >= v
    }

    /// The realms still to give orders this round.
    pub fn waiting(&self) -> Vec<Seat> {
        if self.over.is_some() || self.fields.is_empty() {
            return Vec::new();
        }
        (0..self.realms.len() as Seat)
            .filter(|&s| !self.realms[s as usize].out && self.realms[s as usize].orders.is_none())
            .collect()
    }

    /// Add gold up to the 20-cube limit; the rest is lost.
    pub fn add_gold(&mut self, seat: Seat, gold: u32) {
        let limit = crate::data::tables().gold_limit as u32;
        let r = &mut self.realms[seat as usize];
        let room = limit.saturating_sub(r.gold as u32);
        let taken = gold.min(room);
        r.gold += taken as u8;
        r.gold_over_limit += gold - taken;
    }

    pub fn add_pp(&mut self, seat: Seat, pp: i32) {
        let r = &mut self.realms[seat as usize];
        r.pp = (r.pp + pp).max(0);
    }
}

/// Fold one event.
pub fn apply(s: &mut State, e: &Event) {
    match e {
        Event::Started { scenario, mode, years, players, rules } => {
            *s = crate::setup::opening(scenario, *mode, *years, *players);
            s.rules = *rules;
        }
        Event::OrdersGiven { seat, orders } => {
            if let Some(r) = s.realms.get_mut(*seat as usize) {
                r.orders = Some(orders.clone().unwrap_or_default());
            }
        }
        Event::OrdersRevealed { seat, orders } => {
            if let Some(r) = s.realms.get_mut(*seat as usize) {
                r.orders = Some(orders.clone());
            }
        }
        Event::Resolved { step, dice, .. } => {
            let mut d = crate::season::Dice::replay(dice);
            crate::season::run_step(s, *step, &mut d, &mut Vec::new());
        }
        Event::RoundEnded { year, season } => {
            for r in &mut s.realms {
                r.orders = None;
            }
            for f in &mut s.fields {
                for u in &mut f.units {
                    u.moved_from = None;
                    u.shipped = false;
                    u.halted = false;
                }
            }
            s.defended.clear();
            s.breached.clear();
            // The winter weather is rolled at the start of the winter round.
            s.winter = [Weather::Normal; 3];
            s.year = *year;
            s.season = *season;
        }
        Event::GameEnded { reason } => s.over = Some(reason.clone()),
    }
}

/// Whether `e` fits the position `s`: the realm it names exists, and an
/// opening is one the rules set up ([`runestone_engine::Game::fits`]).
pub fn fits(s: &State, e: &Event) -> Result<(), String> {
    match e {
        Event::Started { scenario, years, players, .. } => {
            if !crate::data::SCENARIOS.contains(&scenario.as_str()) {
                return Err(format!("it names scenario {scenario:?}, which is not one of this server's"));
            }
            let most = crate::data::map(scenario).max_players();
            match (1..=10).contains(years) && (2..=most).contains(players) {
                true => Ok(()),
                false => Err(format!("a game of {players} realms over {years} years is not one the rules set up")),
            }
        }
        Event::OrdersGiven { seat, .. } | Event::OrdersRevealed { seat, .. } if *seat as usize >= s.realms.len() => {
            Err(format!("it names seat {seat}, but the game has {} realms", s.realms.len()))
        }
        _ => Ok(()),
    }
}
