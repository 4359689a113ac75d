//! The position of a Bardagi game, its commands and its events, and `apply`,
//! which folds one event into the position ("General play": a round is
//! planning, actions, building and claiming). Everything here is data; the
//! rules that decide which events happen live in the phase modules.

use serde::{Deserialize, Serialize};

use super::board::{AreaId, BoardRef, Colour, SeaNode};
use super::build::{Effect, Tile, TileKey, TileSet};
use runestone_engine::game::Seat;

use super::program::ProgramStep;
use super::rules2018::{RoundFree, Rules};

/// A card type; each clan has six of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Card {
    /// The warrior.
    Berserkur,
    /// The priest.
    Godi,
    /// The merchant.
    Kaupmadur,
    /// The ship.
    Knerrir,
}

impl Card {
    /// Every value, in order.
    pub const ALL: [Card; 4] = [Card::Berserkur, Card::Godi, Card::Kaupmadur, Card::Knerrir];
    /// Index of this value in per-type arrays.
    pub fn idx(self) -> usize {
        self as usize
    }
    /// The name in words.
    pub fn name(self) -> &'static str {
        ["Berserkur", "Godi", "Kaupmadur", "Knerrir"][self as usize]
    }
}

/// A land unit (figure) of a clan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// The warrior.
    Berserkur,
    /// The priest.
    Godi,
    /// The merchant.
    Kaupmadur,
}

impl Unit {
    /// Every value, in order.
    pub const ALL: [Unit; 3] = [Unit::Berserkur, Unit::Godi, Unit::Kaupmadur];
    /// Index of this value in per-type arrays.
    pub fn idx(self) -> usize {
        self as usize
    }
    /// The card type that acts for this unit.
    pub fn card(self) -> Card {
        Card::ALL[self as usize]
    }
    /// The name in words.
    pub fn name(self) -> &'static str {
        self.card().name()
    }
    /// Areas moved with one card ("1 area per Berserkur card, 2 for Godi and Kaupmadur").
    pub fn base_moves(self) -> u8 {
        match self {
            Unit::Berserkur => 1,
            _ => 2,
        }
    }
}

/// A unit building on the player board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Building {
    /// The Berserkur building.
    Virki,
    /// The Godi building.
    Hof,
    /// The Kaupmadur building.
    Verslun,
}

impl Building {
    /// Every value, in order.
    pub const ALL: [Building; 3] = [Building::Virki, Building::Hof, Building::Verslun];
    /// Index of this value in per-type arrays.
    pub fn idx(self) -> usize {
        self as usize
    }
    /// The name in words.
    pub fn name(self) -> &'static str {
        ["Virki", "Hof", "Verslun"][self as usize]
    }
    /// The good a refill costs (4 of it): meat, wool, hide.
    pub fn refill_good(self) -> Good {
        [Good::Meat, Good::Wool, Good::Hide][self as usize]
    }
}

/// A wooden good. The first four are basic goods, stone and iron mine goods.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Good {
    /// From forests.
    Timber,
    /// From sheep.
    Wool,
    /// Meat.
    Meat,
    /// From cattle.
    Hide,
    /// From quarries.
    Stone,
    /// From iron mines.
    Iron,
}

impl Good {
    /// Every value, in order.
    pub const ALL: [Good; 6] = [Good::Timber, Good::Wool, Good::Meat, Good::Hide, Good::Stone, Good::Iron];
    /// Index of this value in per-type arrays.
    pub fn idx(self) -> usize {
        self as usize
    }
    /// Whether a basic good (not stone or iron).
    pub fn is_basic(self) -> bool {
        (self as usize) < 4
    }
    /// The name in words.
    pub fn name(self) -> &'static str {
        ["timber", "wool", "meat", "hide", "stone", "iron"][self as usize]
    }
}

/// A rune type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RuneKind {
    /// On own area: +1 resource.
    Divine,
    /// Knerrir moves up to 10 squares with one card; discarded after use.
    SeaMove,
    /// On own area: +1 defence.
    Defence,
    /// Curse on another's area: it gives no resources.
    NoResources,
    /// Curse on another's area: its resources go to the caster.
    TheirsAreYours,
    /// On own area: +2 resources.
    Twice,
}

impl RuneKind {
    /// Every value, in order.
    pub const ALL: [RuneKind; 6] = [
        RuneKind::Divine,
        RuneKind::SeaMove,
        RuneKind::Defence,
        RuneKind::NoResources,
        RuneKind::TheirsAreYours,
        RuneKind::Twice,
    ];
    /// Index of this value in per-type arrays.
    pub fn idx(self) -> usize {
        self as usize
    }
    /// This rune's bit in an area's rune set.
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }
    /// Whether a curse rune.
    pub fn is_curse(self) -> bool {
        matches!(self, RuneKind::NoResources | RuneKind::TheirsAreYours)
    }
    /// The name in words.
    pub fn name(self) -> &'static str {
        ["Divine token", "Sea move", "Defence", "No resources", "Theirs are yours", "Twice the resource"][self as usize]
    }
}

/// Cards by type: a hand, or cards played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Hand {
    #[serde(default)]
    pub berserkur: u8,
    #[serde(default)]
    pub godi: u8,
    #[serde(default)]
    pub kaupmadur: u8,
    #[serde(default)]
    pub knerrir: u8,
}

impl Hand {
    /// A new value.
    pub fn new(c: [u8; 4]) -> Hand {
        Hand { berserkur: c[0], godi: c[1], kaupmadur: c[2], knerrir: c[3] }
    }
    /// Counts in card order.
    pub fn arr(&self) -> [u8; 4] {
        [self.berserkur, self.godi, self.kaupmadur, self.knerrir]
    }
    /// Cards of one type.
    pub fn get(&self, c: Card) -> u8 {
        self.arr()[c.idx()]
    }
    /// Add `d` cards of a type (negative removes).
    pub fn add(&mut self, c: Card, d: i32) {
        let mut a = self.arr();
        a[c.idx()] = (a[c.idx()] as i32 + d).clamp(0, 255) as u8;
        *self = Hand::new(a);
    }
    /// All cards.
    pub fn total(&self) -> u8 {
        self.arr().iter().sum()
    }
    /// In words, e.g. "2 Berserkur, 1 Knerrir".
    pub fn words(&self) -> String {
        let parts: Vec<String> =
            Card::ALL.iter().filter(|c| self.get(**c) > 0).map(|c| format!("{} {}", self.get(*c), c.name())).collect();
        if parts.is_empty() {
            "no cards".into()
        } else {
            parts.join(", ")
        }
    }
}

/// Where a land unit is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Loc {
    /// On an area.
    Area(AreaId),
    /// On board the Knerrir.
    Aboard,
    /// A defeated Berserkur, on the town area until a Kaupmadur refills Virki.
    Fallen,
}

impl Default for Loc {
    fn default() -> Self {
        Loc::Area(0)
    }
}

/// Where the Knerrir is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ShipLoc {
    /// On the player board's harbour: free to be activated at any harbour.
    #[default]
    Home,
    /// On the game board.
    At(SeaNode),
}

/// Which of the meat-or-other goods to take from sheep or cattle areas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GoodChoice {
    /// Whichever of the two the storage holds fewer of.
    #[default]
    Auto,
    /// Wool from sheep, hide from cattle.
    Other,
    /// Meat.
    Meat,
}

/// One wish of a conditional build order: an upgrade effect on a building,
/// optionally replacing an owned tile (discard and replace, no glory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BuildWish {
    pub building: Building,
    pub effect: Effect,
    #[serde(default)]
    pub replace: Option<Effect>,
}

/// Where axes are placed during the Claim phase.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case", tag = "mode", content = "areas")]
pub enum AxeOrder {
    /// On own villages, gold mines and areas next to other clans, one each.
    #[default]
    Auto,
    /// Keep them for later.
    Keep,
    /// On these areas in this order (skipping any no longer owned; from
    /// rules version 2 the clan's own home area may be named too).
    Areas(Vec<AreaId>),
}

/// Standing orders: the Claim phase and Build phase resolve from these
/// without asking, so a round needs only a plan and a turn from each seat.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Orders {
    #[serde(default)]
    pub sheep: GoodChoice,
    #[serde(default)]
    pub cattle: GoodChoice,
    /// Buildings to fill with recruits, in this order; empty: the emptiest first.
    #[serde(default)]
    pub recruits: Vec<Building>,
    /// Buy one axe per owned Barbarian camp for 1 gold.
    #[serde(default)]
    pub buy_axes: bool,
    #[serde(default)]
    pub axes: AxeOrder,
    /// Upgrades wanted, best first; the first one possible is built.
    #[serde(default)]
    pub build: Vec<BuildWish>,
    /// Rules version 2: decide at the moment instead. When the round's last
    /// turn ends the clan is asked, and the orders it then sets (they may
    /// be the same) are this round's Build and Claim choices.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ask: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A disk transfer of the Berserkur rearrange action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiskSpot {
    /// On an area.
    Area(AreaId),
    /// The Berserkur building.
    Virki,
    /// The town area: removed disks wait there for recruitment.
    Town,
}

/// Move `count` disks from `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiskMove {
    pub from: DiskSpot,
    pub to: DiskSpot,
    pub count: u8,
}

/// A rune cast on an area.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuneCast {
    pub rune: RuneKind,
    pub area: AreaId,
}

/// One exchange by the trade table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, tag = "deal", rename_all = "snake_case")]
pub enum Deal {
    /// 1 for 1 within the basic goods or within the mine goods.
    Swap { give: Good, get: Good },
    /// Two basic goods for one mine good.
    BasicForMine { give: [Good; 2], get: Good },
    /// One mine good for two basic goods.
    MineForBasic { give: Good, get: [Good; 2] },
    /// Goods for gold: 4 basic for 1, 8 basic for 3, 2 mine for 1, 4 mine for 3.
    Sell { give: Vec<Good> },
    /// Gold for goods: 1 gold for 2 basic goods or for 1 mine good.
    Buy { get: Vec<Good> },
    /// Hide for gold, 1 for 1, up to 4 a turn (Tannery upgrade).
    Tannery { hide: u8 },
}

/// A command. Steps of a turn may be sent one by one or as one `Turn`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", deny_unknown_fields)]
pub enum Command {
    /// Choose the round's cards secretly (replaces an earlier plan until all are in).
    Plan { hand: Hand },
    /// Replace the standing orders.
    SetOrders { orders: Orders },
    /// A whole turn: these steps in order, then the turn ends. Accepted or
    /// rejected as a whole.
    PlayTurn { steps: Vec<Command> },
    /// The secret plan with a program of the coming turn: its steps in
    /// order, each with a fallback for when the rules refuse it by the time
    /// the turn comes. Replaces an earlier plan (and program) until the reveal.
    Program { hand: Hand, steps: Vec<ProgramStep> },
    /// End the turn (at least one card must have been played).
    EndTurn,
    /// Discard 2 cards from the hand for 1 card of choice.
    Exchange { discard: [Card; 2], take: Card },
    /// Move a unit to an area with one card (or leftover movement).
    Move { unit: Unit, to: AreaId },
    /// Move a unit from its harbour area onto the Knerrir.
    Board { unit: Unit },
    /// Move a unit off the Knerrir onto the harbour where it lies (free).
    Disembark { unit: Unit },
    /// Sail the Knerrir along these sea nodes (each one move).
    Sail {
        route: Vec<SeaNode>,
        #[serde(default)]
        sea_rune: bool,
    },
    /// Berserkur attacks the area he stands on; `claim: false` only defeats
    /// an enemy Berserkur there; `reinforce` extra disks from Virki.
    Attack {
        #[serde(default = "yes")]
        claim: bool,
        #[serde(default)]
        reinforce: u8,
    },
    /// Berserkur goes back to the area he entered from (free).
    Retreat,
    /// Berserkur rearranges or removes own disks (one card).
    Rearrange { moves: Vec<DiskMove> },
    /// Berserkur refills Virki at home, or Godi refills Hof at home.
    Refill { unit: Unit },
    /// Godi converts the Barbarian area he stands on.
    Convert,
    /// Godi casts up to two runes (one card, one Hof disk).
    Cast { casts: Vec<RuneCast> },
    /// Godi removes a rune from his area for 1 gold (no card).
    RemoveRune { rune: RuneKind },
    /// Godi or Kaupmadur buys 3 runes for 2 gold at a sacred location.
    BuyRunes { unit: Unit },
    /// Kaupmadur buys the Barbarian area he stands on.
    BuyLand,
    /// Kaupmadur trades (at a village or at home) and refills buildings
    /// (at home) with one card.
    Trade {
        #[serde(default)]
        deals: Vec<Deal>,
        #[serde(default)]
        refill: Vec<Building>,
    },
    /// Advanced option: Kaupmadur at another clan's home sells goods for
    /// that clan's gold by the trade table.
    ForceTrade { seat: Seat, give: Vec<Good> },
    /// The 2018 rules: the Knerrir, lying at a harbour, claims that empty
    /// harbour area with a recruit from the town area (one Knerrir card).
    ClaimHarbour,
    /// Rules version 2: do `step` with an upgrade's once-a-round action,
    /// whenever the clan chooses: the Seer (`godi_free_action`, the Godi acts
    /// without a card), the Messenger (`home_action_anywhere`, a home action
    /// without a card) or the War horn (`any_card_berserkur`, the Berserkur
    /// acts with `card`, a card of another unit).
    Free {
        effect: Effect,
        #[serde(default)]
        card: Option<Card>,
        step: Box<Command>,
    },
}

fn yes() -> bool {
    true
}

fn v1() -> u32 {
    1
}

fn is_v1(v: &u32) -> bool {
    *v == 1
}

/// An event: a fact of the game.
#[derive(Clone, Debug, Serialize, runestone_engine::TagFirst, schemars::JsonSchema)]
#[serde(tag = "type")]
pub enum Event {
    /// The game was set up: board, colours by seat, rounds, starting player, options, face-up tiles.
    GameStarted {
        board: BoardRef,
        colours: Vec<Colour>,
        rounds: u8,
        starting: Seat,
        easy_cards: bool,
        eight_cards: bool,
        forced_trade: bool,
        /// Face-up upgrade tiles (by index before rules version 3, by id from it).
        market: Vec<TileKey>,
        /// The rules version (absent in version 1, which did not record it).
        #[serde(default = "v1", skip_serializing_if = "is_v1")]
        rules: u32,
        /// The rune pile by kind, from a rune file given at creation
        /// (absent: the built-in `runes.toml`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        runes: Option<[u8; 6]>,
        /// The upgrade tiles, from a file given at creation (absent: the
        /// built-in `upgrades.toml`).
        #[serde(default, skip_serializing_if = "TileSet::is_builtin")]
        upgrades: TileSet,
        /// The rulebook played by (absent: 2014).
        #[serde(default, skip_serializing_if = "Rules::is_2014")]
        edition: Rules,
    },
    /// `runes` is `None` in the form others see.
    RunesDrawn { seat: Seat, count: u8, runes: Option<Vec<RuneKind>> },
    /// `delta` is `None` in the form others see: gold is kept secret.
    GoldChanged { seat: Seat, delta: Option<i32> },
    /// `orders` is `None` in the form others see.
    OrdersSet { seat: Seat, orders: Option<Orders> },
    /// A round began: the cards are back in the decks.
    RoundBegan { round: u8, starting: Seat, hand_size: u8 },
    /// `hand` is `None` in the form others see.
    PlanChosen {
        seat: Seat,
        hand: Option<Hand>,
        /// The turn program given with the plan (never in the form others see).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        program: Option<Vec<ProgramStep>>,
    },
    /// The clan lays its chosen cards face up (`hand`; none yet in the easier variant).
    TurnBegan { seat: Seat, hand: Option<Hand> },
    /// The clan's program begins to run (`steps` steps).
    ProgramStarted { seat: Seat, steps: u8 },
    /// What a program's step did, in words (step `steps + 1`: the end).
    ProgramStep { seat: Seat, step: u8, outcome: super::program::StepOutcome, text: String },
    /// A card laid down for a unit's action (`as_card` differs with the War horn).
    CardPlayed { seat: Seat, card: Card, as_card: Card },
    /// A free action of an upgrade was used instead of a card.
    FreeActionUsed { seat: Seat, effect: Effect },
    /// The 2018 rules: a once-a-round free action was used instead of a card.
    RoundFreeUsed { seat: Seat, action: RoundFree },
    /// The 2018 rules: the Knerrir claimed an empty harbour area with a
    /// recruit from the town area.
    HarbourClaimed { seat: Seat, area: AreaId },
    /// Two cards were discarded for one card of choice.
    CardsExchanged { seat: Seat, discarded: Option<[Card; 2]>, taken: Option<Card> },
    /// `allowance` is set when a new card was laid down for this move.
    /// `via` (rules version 2) is the area next to `to` the unit stepped
    /// from, when that is not `from`.
    UnitMoved {
        seat: Seat,
        unit: Unit,
        from: AreaId,
        to: AreaId,
        cost: u8,
        allowance: Option<u8>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        via: Option<AreaId>,
    },
    /// A unit boarded the Knerrir at a harbour.
    UnitBoarded { seat: Seat, unit: Unit, harbour: AreaId, cost: u8, allowance: Option<u8> },
    /// A unit went ashore from the Knerrir.
    UnitDisembarked { seat: Seat, unit: Unit, harbour: AreaId },
    /// The Knerrir sailed along `route`.
    KnerrirSailed { seat: Seat, route: Vec<SeaNode>, sea_rune: bool, allowance: Option<u8> },
    /// A unit bought runes at a sacred location.
    RunesBought { seat: Seat, unit: Unit },
    /// A trade by the trade table (gold moves in a secret `GoldChanged`).
    Traded { seat: Seat, deals: Vec<Deal> },
    /// Advanced option: goods sold to another clan for its gold.
    TradeForced { seat: Seat, victim: Seat, give: Vec<Good> },
    /// The empty Knerrir went back to the player board.
    KnerrirReturned { seat: Seat },
    /// A unit retreated (a Berserkur after a fight, a Godi from an attack).
    UnitRetreated { seat: Seat, unit: Unit, from: AreaId, to: AreaId },
    /// A Berserkur was defeated and went to its town area.
    BerserkurDefeated { seat: Seat, victim: Seat, area: AreaId, attacker_lost: u8, defender_lost: u8 },
    /// Axes on an attacked area were destroyed.
    AxesDestroyed { seat: Seat, area: AreaId, axes: u8, disks: u8 },
    /// An area changed hands: `spent` disks were lost, `placed` disks stand on it.
    AreaOvertaken { seat: Seat, area: AreaId, from: Option<Seat>, by: Unit, spent: u8, placed: u8, recruit: bool },
    /// Glory gained or lost, and why.
    GloryChanged { seat: Seat, delta: i32, reason: String },
    /// Axe tokens gained for overtaking a Barbarian camp.
    AxesGained { seat: Seat, count: u8 },
    /// Own disks were moved on the board or removed to the town area.
    DisksRearranged { seat: Seat, moves: Vec<DiskMove> },
    /// A building was refilled to `disks` for `paid` goods.
    BuildingRefilled { seat: Seat, building: Building, disks: u8, paid: u8 },
    /// A defeated Berserkur came back at home.
    BerserkurReturned { seat: Seat, area: AreaId },
    /// Runes were cast on areas (one Hof disk spent).
    RunesCast { seat: Seat, casts: Vec<RuneCast> },
    /// A rune was removed and went back to the pile.
    RuneRemoved { seat: Seat, area: AreaId, rune: RuneKind },
    /// Goods gained (positive) or paid (negative) for `reason`.
    GoodsChanged { seat: Seat, delta: [i8; 6], reason: String },
    /// Disks moved from the supply to the town area as recruits.
    RecruitsGained { seat: Seat, count: u8, reason: String },
    /// An upgrade was built, perhaps replacing an owned one.
    UpgradeBuilt { seat: Seat, tile: TileKey, replaced: Option<TileKey>, glory: i32 },
    /// A tile was turned face up from its pile.
    TileRevealed { tile: TileKey },
    /// Axes bought at the Claim phase.
    AxesBought { seat: Seat, count: u8 },
    /// Recruits went from the town area onto buildings.
    RecruitsPlaced { seat: Seat, placed: [u8; 3] },
    /// Axes were placed on areas.
    AxesPlaced { seat: Seat, areas: Vec<AreaId> },
    /// A seat's goods were lost because its storage was full.
    GoodsSpoiled { seat: Seat, lost: [u8; 6] },
    /// A turn ended.
    TurnEnded { seat: Seat },
    /// The turns are over; these clans decide their Build and Claim choices now.
    DecisionsAsked { seats: Vec<Seat> },
    /// A clan decided its Build and Claim choices (in its secret orders).
    Decided { seat: Seat },
    /// A round ended; the starting player token passes left.
    RoundEnded { round: u8 },
    /// The game ended: gold before and after trading goods, final glory, awards.
    GameEnded { gold: Vec<i32>, converted: Vec<i32>, glory: Vec<i32>, awards: Vec<String> },
}

/// A clan's position.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Player {
    pub colour: Option<Colour>,
    pub home: AreaId,
    pub glory: i32,
    /// Secret to others.
    pub gold: i32,
    pub goods: [u8; 6],
    /// Disks on Virki, Hof, Verslun.
    pub disks: [u8; 3],
    /// Recruits waiting on the town area.
    pub town: u8,
    /// Unused disks beside the player board.
    pub supply: u8,
    pub units: [Loc; 3],
    pub ship: ShipLoc,
    /// Secret to others: cards chosen and not yet played.
    pub hand: Hand,
    pub played: Hand,
    pub planned: bool,
    /// Secret to others.
    pub runes: [u8; 6],
    /// Axe tokens held, not yet on the board.
    pub axes: u8,
    /// Owned upgrade tiles (bit i: tile i).
    pub upgrades: u64,
    /// Secret to others.
    pub orders: Orders,
    /// This round: areas taken from other clans, attacks made.
    pub taken: u8,
    pub attacks: u8,
    /// Free upgrade actions used this round: War horn, Seer, Messenger.
    pub free_used: [bool; 3],
    /// Hide sold at the Tannery this turn.
    pub tannery: u8,
    /// Runes bought at a sacred location this turn.
    pub bought_runes: bool,
    /// Leftover movement of the last card per unit (and the Knerrir).
    pub moves: [Option<u8>; 4],
    /// Where each unit came from when it last entered an area this turn.
    pub entered_from: [Option<AreaId>; 3],
    /// The area the Berserkur fought on this turn and still stands on.
    #[serde(default)]
    pub fought: Option<AreaId>,
    /// The Berserkur card that moved him this turn may still attack ("Move
    /// and / or attack", rules version 2).
    #[serde(default)]
    pub may_attack: bool,
    /// Asked to decide its Build and Claim choices now.
    #[serde(default)]
    pub deciding: bool,
    /// The 2018 rules: the once-a-round free actions used this round (by
    /// [`RoundFree`]: strengthening defences, the trade at home).
    #[serde(default)]
    pub round_free: [bool; 2],
    /// The 2018 rules: runes cast this turn.
    #[serde(default)]
    pub runes_cast: u8,
    /// Secret to others: the program of the coming turn, given with the plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<Vec<ProgramStep>>,
}

impl Player {
    /// Whether the clan owns an upgrade with this effect (on any building).
    pub fn has(&self, tiles: &[Tile], e: Effect) -> bool {
        self.owned_tiles(tiles).any(|t| t.effect == e)
    }
    /// The amounts of the owned tiles with this effect, added up (effects
    /// on different buildings stack: two Knerrir tiles, Alchemist and Mint).
    pub fn amount(&self, tiles: &[Tile], e: Effect) -> i32 {
        self.owned_tiles(tiles).filter(|t| t.effect == e).map(|t| t.amount as i32).sum()
    }
    /// The largest amount of an owned tile with this effect (a storage, a
    /// strength, a number of areas: the best tile counts), if one is owned.
    pub fn best(&self, tiles: &[Tile], e: Effect) -> Option<u8> {
        self.owned_tiles(tiles).filter(|t| t.effect == e).map(|t| t.amount).max()
    }
    /// The owned tiles.
    pub fn owned_tiles<'t>(&self, tiles: &'t [Tile]) -> impl Iterator<Item = &'t Tile> {
        let mut bits = self.upgrades;
        std::iter::from_fn(move || {
            while bits != 0 {
                let i = bits.trailing_zeros();
                bits &= bits - 1;
                if let Some(t) = tiles.get(i as usize) {
                    return Some(t);
                }
            }
            None
        })
    }
    /// Owned tiles of a building and level.
    pub fn tiles_of(&self, tiles: &[Tile], b: Building, level: u8) -> u32 {
        self.owned_tiles(tiles).filter(|t| t.building == b && t.level == level).count() as u32
    }
    /// Disk capacity of a building: 6, +1 per 1st level, +2 per 2nd level,
    /// and on Virki the Mead hall's disks (+2).
    pub fn capacity(&self, tiles: &[Tile], b: Building) -> u8 {
        let mut c = 6 + self.tiles_of(tiles, b, 1) as i32 + 2 * self.tiles_of(tiles, b, 2) as i32;
        if b == Building::Virki {
            c += self.amount(tiles, Effect::MeadHall);
        }
        c.clamp(0, 255) as u8
    }
    /// Storage per good: 5, or the Storehouse's (8).
    pub fn storage(&self, tiles: &[Tile]) -> u8 {
        self.best(tiles, Effect::LargerStorage).unwrap_or(5).max(5)
    }
}

/// An area's position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AreaState {
    pub owner: Option<Seat>,
    pub disks: u8,
    pub axes: u8,
    /// Runes on the area (bit per [`RuneKind`]).
    pub runes: u8,
    /// Who cast the "Theirs are yours" rune here.
    pub caster: Option<Seat>,
}

impl AreaState {
    /// Whether the area holds rune `r`.
    pub fn has_rune(&self, r: RuneKind) -> bool {
        self.runes & r.bit() != 0
    }
}

/// The phase of the round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    #[default]
    /// Before setup.
    Setup,
    /// Clans choose cards.
    Planning,
    /// Clans take turns.
    Action,
    /// Rules version 2: the turns are over and the clans that asked decide
    /// their Build and Claim choices.
    Deciding,
    /// The game has ended.
    Over,
}

/// The whole position.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct State {
    pub board: BoardRef,
    /// The rules version the game is played by (see `RULES_VERSION`).
    #[serde(default = "v1")]
    pub rules: u32,
    /// The rulebook the game is played by: 2014, or the 2018 revision.
    #[serde(default)]
    pub edition: Rules,
    pub phase: Phase,
    pub rounds: u8,
    /// 1-based round number.
    pub round: u8,
    pub hand_size: u8,
    pub starting: Seat,
    /// Whose turn it is in the action phase.
    pub current: Seat,
    /// How many turns of this round have ended.
    pub turns_done: u8,
    pub easy_cards: bool,
    pub eight_cards: bool,
    pub forced_trade: bool,
    pub players: Vec<Player>,
    pub areas: Vec<AreaState>,
    /// The upgrade tiles the game is played with (bit i of `market`,
    /// `piles` and a clan's `upgrades` is tile i of this list).
    #[serde(default)]
    pub tiles: TileSet,
    /// Face-up upgrade tiles (bit i: tile i).
    pub market: u64,
    /// Face-down tiles in the piles (bit i: tile i); their order is not kept:
    /// the next tile is drawn at random when one is needed.
    pub piles: u64,
    /// Runes in the draw pile, by kind.
    pub rune_pile: [u8; 6],
    pub axe_supply: u8,
    /// Final result once over.
    pub final_glory: Vec<i32>,
    pub awards: Vec<String>,
}

impl State {
    /// Whether the game waits for `seat` (a clan that planned may still
    /// replace its plan until the reveal).
    pub fn waits_for(&self, seat: Seat) -> bool {
        match self.phase {
            Phase::Planning => (seat as usize) < self.players.len(),
            Phase::Action => self.current == seat,
            Phase::Deciding => self.players.get(seat as usize).is_some_and(|p| p.deciding),
            _ => false,
        }
    }

    /// Whether the game is played by rules version 2 or later (the fixes
    /// listed in RULES-NOTES.md, "Rules versions").
    pub fn v2(&self) -> bool {
        self.rules >= 2
    }
    /// Version 7: a Kaupmadur's one card trades and refills only with goods
    /// already in storage; a move within the own land costs movement; a
    /// Knerrir's journey ends with its squares; Plunder pays per area
    /// attacked (see RULES-NOTES.md, "Rules versions").
    pub fn v7(&self) -> bool {
        self.rules >= 7
    }
    /// Whether the game is played by the 2018 revision (`rules2018`).
    pub fn y2018(&self) -> bool {
        self.edition == Rules::Y2018
    }
    /// Number of clans.
    pub fn n(&self) -> usize {
        self.players.len()
    }
    /// The seat owning the home area `a`, if it is a home in play.
    pub fn home_seat(&self, a: AreaId) -> Option<Seat> {
        self.players.iter().position(|p| p.home == a).map(|s| s as Seat)
    }
    /// Whether area `a` counts as `seat`'s own (owned with a disk, or home).
    pub fn is_own(&self, seat: Seat, a: AreaId) -> bool {
        self.areas.get(a as usize).is_some_and(|x| x.owner == Some(seat)) || self.players[seat as usize].home == a
    }
    /// Areas owned with a disk by `seat`.
    pub fn owned(&self, seat: Seat) -> impl Iterator<Item = AreaId> + '_ {
        self.areas.iter().enumerate().filter(move |(_, x)| x.owner == Some(seat)).map(|(i, _)| i as AreaId)
    }
    /// Seats in turn order from the starting player.
    pub fn order(&self) -> Vec<Seat> {
        let n = self.n() as Seat;
        (0..n).map(|i| (self.starting + i) % n).collect()
    }
    /// Where a unit stands, if on an area.
    pub fn unit_area(&self, seat: Seat, u: Unit) -> Option<AreaId> {
        match self.players[seat as usize].units[u.idx()] {
            Loc::Area(a) => Some(a),
            _ => None,
        }
    }
    /// The Godi of another clan standing on `a`, if any.
    pub fn foreign_godi(&self, seat: Seat, a: AreaId) -> bool {
        self.players.iter().enumerate().any(|(s, p)| s as Seat != seat && p.units[Unit::Godi.idx()] == Loc::Area(a))
    }
    /// Tile `t` of the game's tiles.
    pub fn tile(&self, t: u8) -> &Tile {
        &self.tiles[(t as usize).min(self.tiles.len().saturating_sub(1))]
    }
    /// The index of the tile an event names, if the game has it.
    pub fn tile_index(&self, key: &TileKey) -> Option<u8> {
        match key {
            TileKey::Index(i) => ((*i as usize) < self.tiles.len()).then_some(*i),
            TileKey::Id(id) => self.tiles.iter().position(|t| t.id == *id).map(|i| i as u8),
        }
    }
    /// How an event names tile `t`: by its stable id from rules version 3,
    /// by its index before.
    pub fn tile_key(&self, t: u8) -> TileKey {
        if self.rules >= 3 {
            TileKey::Id(self.tile(t).id.clone())
        } else {
            TileKey::Index(t)
        }
    }
    /// Whether `seat` owns an upgrade with this effect.
    pub fn has(&self, seat: Seat, e: Effect) -> bool {
        self.players[seat as usize].has(&self.tiles, e)
    }
}

/// Spend movement: a new card grants `allowance`, else the leftover pays.
fn spend(m: &mut Option<u8>, cost: u8, allowance: Option<u8>) {
    *m = match allowance {
        Some(a) => Some(a.saturating_sub(cost)),
        None => Some(m.unwrap_or(0).saturating_sub(cost)),
    };
}

fn add_goods(goods: &mut [u8; 6], delta: &[i8; 6]) {
    for (g, d) in goods.iter_mut().zip(delta) {
        *g = (*g as i32 + *d as i32).clamp(0, 255) as u8;
    }
}

/// Fold one event into the state. Total: an event that does not fit the
/// state changes nothing rather than failing.
pub fn apply(s: &mut State, e: &Event) {
    match e {
        Event::GameStarted {
            board,
            colours,
            rounds,
            starting,
            easy_cards,
            eight_cards,
            forced_trade,
            market,
            rules,
            runes,
            upgrades,
            edition,
        } => {
            let n = board.len();
            let mut players = Vec::new();
            for c in colours {
                let home = board.home_of(*c).unwrap_or(0);
                players.push(Player {
                    colour: Some(*c),
                    home,
                    gold: 1,
                    disks: [6, 6, 6],
                    supply: 22,
                    units: [Loc::Area(home); 3],
                    ..Player::default()
                });
            }
            let tiles = upgrades.clone();
            let index = |k: &TileKey| match k {
                TileKey::Index(i) => Some(*i as usize),
                TileKey::Id(id) => tiles.iter().position(|t| t.id == *id),
            };
            let market_bits = market.iter().filter_map(index).filter(|i| *i < 64).fold(0u64, |m, t| m | 1u64 << t);
            let all = if tiles.len() >= 64 { u64::MAX } else { (1u64 << tiles.len()) - 1 };
            let rune_pile = runes.unwrap_or_else(|| super::actions::godi::pile_of(&super::actions::godi::RUNES));
            *s = State {
                board: board.clone(),
                rules: *rules,
                edition: *edition,
                phase: Phase::Setup,
                rounds: *rounds,
                round: 0,
                starting: *starting,
                current: *starting,
                easy_cards: *easy_cards,
                eight_cards: *eight_cards,
                forced_trade: *forced_trade,
                players,
                areas: vec![AreaState::default(); n],
                tiles,
                market: market_bits,
                piles: all & !market_bits,
                rune_pile,
                axe_supply: 20,
                ..State::default()
            };
        }
        Event::RunesDrawn { seat, runes, .. } => {
            if let Some(runes) = runes {
                for r in runes {
                    s.rune_pile[r.idx()] = s.rune_pile[r.idx()].saturating_sub(1);
                    if let Some(p) = s.players.get_mut(*seat as usize) {
                        p.runes[r.idx()] += 1;
                    }
                }
            }
        }
        Event::GoldChanged { seat, delta } => {
            if let (Some(p), Some(d)) = (s.players.get_mut(*seat as usize), delta) {
                p.gold += d;
            }
        }
        Event::OrdersSet { seat, orders } => {
            if let (Some(p), Some(o)) = (s.players.get_mut(*seat as usize), orders) {
                p.orders = o.clone();
            }
        }
        Event::RoundBegan { round, starting, hand_size } => {
            s.round = *round;
            s.starting = *starting;
            s.current = *starting;
            s.hand_size = *hand_size;
            s.turns_done = 0;
            s.phase = if s.easy_cards { Phase::Action } else { Phase::Planning };
            for p in &mut s.players {
                p.hand = Hand::default();
                p.played = Hand::default();
                p.planned = false;
                p.program = None;
                p.taken = 0;
                p.attacks = 0;
                p.free_used = [false; 3];
                p.round_free = [false; 2];
            }
        }
        Event::PlanChosen { seat, hand, program } => {
            // A later plan of the same clan replaces the earlier one (until
            // the reveal); in the redacted form the hand stays unknown.
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.hand = hand.unwrap_or_default();
                p.planned = true;
                p.program = program.clone();
            }
        }
        Event::ProgramStarted { seat, .. } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.program = None;
            }
        }
        Event::ProgramStep { .. } => {}
        Event::TurnBegan { seat, hand } => {
            s.phase = Phase::Action;
            s.current = *seat;
            if let Some(p) = s.players.get_mut(*seat as usize) {
                // The cards laid face up: the same hand in the full log, and
                // the first sight of it for those who saw the plan redacted.
                if let Some(h) = hand {
                    p.hand = *h;
                }
                p.moves = [None; 4];
                p.entered_from = [None; 3];
                p.fought = None;
                p.may_attack = false;
                p.tannery = 0;
                p.bought_runes = false;
                p.runes_cast = 0;
            }
        }
        Event::CardPlayed { seat, card, as_card } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.hand.add(*card, -1);
                p.played.add(*card, 1);
                if card != as_card {
                    p.free_used[0] = true;
                }
            }
        }
        Event::FreeActionUsed { seat, effect } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                match effect {
                    Effect::AnyCardBerserkur => p.free_used[0] = true,
                    Effect::GodiFreeAction => p.free_used[1] = true,
                    _ => p.free_used[2] = true,
                }
            }
        }
        Event::RoundFreeUsed { seat, action } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.round_free[action.idx()] = true;
            }
        }
        Event::HarbourClaimed { seat, area } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.town = p.town.saturating_sub(1);
            }
            if let Some(a) = s.areas.get_mut(*area as usize) {
                a.owner = Some(*seat);
                a.disks = 1;
            }
        }
        Event::CardsExchanged { seat, discarded, taken } => {
            // Cards lie face up during the turn, so the exchange is public.
            if let (Some(p), Some(d), Some(t)) = (s.players.get_mut(*seat as usize), discarded, taken) {
                p.hand.add(d[0], -1);
                p.hand.add(d[1], -1);
                p.hand.add(*t, 1);
            }
        }
        Event::UnitMoved { seat, unit, from, to, cost, allowance, via } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.units[unit.idx()] = Loc::Area(*to);
                p.entered_from[unit.idx()] = Some(via.unwrap_or(*from));
                if *unit == Unit::Berserkur {
                    p.fought = None;
                    p.may_attack |= allowance.is_some();
                }
                spend(&mut p.moves[unit.idx()], *cost, *allowance);
            }
        }
        Event::UnitBoarded { seat, unit, harbour, cost, allowance } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.units[unit.idx()] = Loc::Aboard;
                p.ship = ShipLoc::At(SeaNode::Harbour(*harbour));
                spend(&mut p.moves[unit.idx()], *cost, *allowance);
                // "The Godi cannot save his second movement": boarding ends the card's movement.
                p.moves[unit.idx()] = None;
                if *unit == Unit::Berserkur {
                    p.may_attack = false;
                }
            }
        }
        Event::RunesBought { seat, .. } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.bought_runes = true;
            }
        }
        Event::Traded { seat, deals } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                add_goods(&mut p.goods, &super::actions::kaupmadur::goods_delta(deals));
                p.tannery += deals.iter().map(|d| if let Deal::Tannery { hide } = d { *hide } else { 0 }).sum::<u8>();
            }
        }
        Event::TradeForced { seat, victim, give } => {
            let mut d = [0i8; 6];
            for g in give {
                d[g.idx()] -= 1;
            }
            if let Some(p) = s.players.get_mut(*seat as usize) {
                add_goods(&mut p.goods, &d);
            }
            if let Some(p) = s.players.get_mut(*victim as usize) {
                let cap = p.storage(&s.tiles);
                for g in give {
                    if p.goods[g.idx()] < cap {
                        p.goods[g.idx()] += 1;
                    }
                }
            }
        }
        Event::UnitDisembarked { seat, unit, harbour } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.units[unit.idx()] = Loc::Area(*harbour);
                p.entered_from[unit.idx()] = None;
            }
        }
        Event::KnerrirSailed { seat, route, sea_rune, allowance } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                if let Some(last) = route.last() {
                    p.ship = ShipLoc::At(*last);
                }
                if *sea_rune {
                    p.runes[RuneKind::SeaMove.idx()] = p.runes[RuneKind::SeaMove.idx()].saturating_sub(1);
                    s.rune_pile[RuneKind::SeaMove.idx()] += 1;
                }
                spend(&mut p.moves[3], route.len() as u8, *allowance);
            }
        }
        Event::KnerrirReturned { seat } => {
            let v7 = s.v7();
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.ship = ShipLoc::Home;
                // Version 7: "continue his current action movement": the
                // squares a card left unsailed end with its journey.
                if v7 {
                    p.moves[3] = None;
                }
            }
        }
        Event::UnitRetreated { seat, unit, to, .. } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.units[unit.idx()] = Loc::Area(*to);
                p.entered_from[unit.idx()] = None;
                if *unit == Unit::Berserkur {
                    p.fought = None;
                }
            }
        }
        Event::BerserkurDefeated { seat, victim, area, attacker_lost, defender_lost } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.disks[0] = p.disks[0].saturating_sub(*attacker_lost);
                p.supply += attacker_lost;
            }
            if let Some(p) = s.players.get_mut(*victim as usize) {
                p.disks[0] = p.disks[0].saturating_sub(*defender_lost);
                p.supply += defender_lost;
                p.units[0] = Loc::Fallen;
            }
            let v7 = s.v7();
            if let Some(p) = s.players.get_mut(*seat as usize) {
                // Version 7: Plunder's "each area attacked with your
                // Berserkur": a fight that only defeats a Berserkur counts,
                // an area once however many fights it saw.
                if v7 && p.fought != Some(*area) {
                    p.attacks += 1;
                }
                p.moves[0] = None;
                p.fought = Some(*area);
                p.may_attack = false;
            }
        }
        Event::AxesDestroyed { seat, area, axes, disks } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.disks[0] = p.disks[0].saturating_sub(*disks);
                p.supply += disks;
            }
            if let Some(a) = s.areas.get_mut(*area as usize) {
                a.axes = a.axes.saturating_sub(*axes);
            }
            s.axe_supply += axes;
        }
        Event::AreaOvertaken { seat, area, from, by, spent, placed, recruit } => {
            let v7 = s.v7();
            let defenders = s.areas.get(*area as usize).map(|a| a.disks).unwrap_or(0);
            if let Some(f) = from {
                if let Some(p) = s.players.get_mut(*f as usize) {
                    p.supply += defenders;
                }
            }
            if let Some(p) = s.players.get_mut(*seat as usize) {
                let b = match by {
                    Unit::Berserkur => 0,
                    Unit::Godi => 1,
                    Unit::Kaupmadur => 2,
                };
                p.disks[b] = p.disks[b].saturating_sub(*spent + *placed);
                p.supply += spent;
                if *recruit {
                    // The Godi's second disk joins as a recruit instead of the supply.
                    p.supply = p.supply.saturating_sub(1);
                    p.town += 1;
                }
                if from.is_some() {
                    p.taken += 1;
                }
                if *by == Unit::Berserkur {
                    if !v7 || p.fought != Some(*area) {
                        p.attacks += 1;
                    }
                    p.moves[0] = None;
                    p.fought = Some(*area);
                    p.may_attack = false;
                }
            }
            if let Some(a) = s.areas.get_mut(*area as usize) {
                a.owner = Some(*seat);
                a.disks = *placed;
            }
        }
        Event::GloryChanged { seat, delta, .. } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.glory += delta;
            }
        }
        Event::AxesGained { seat, count } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.axes += count;
            }
            s.axe_supply = s.axe_supply.saturating_sub(*count);
        }
        Event::DisksRearranged { seat, moves } => {
            for m in moves {
                match m.from {
                    DiskSpot::Area(a) => {
                        if let Some(x) = s.areas.get_mut(a as usize) {
                            x.disks = x.disks.saturating_sub(m.count);
                            if x.disks == 0 && x.owner == Some(*seat) {
                                // Abandoned to the Barbarians: the axes go back to the supply.
                                x.owner = None;
                                s.axe_supply += x.axes;
                                x.axes = 0;
                            }
                        }
                    }
                    DiskSpot::Virki => {
                        s.players[*seat as usize].disks[0] -= m.count.min(s.players[*seat as usize].disks[0])
                    }
                    DiskSpot::Town => {}
                }
                match m.to {
                    DiskSpot::Area(a) => {
                        if let Some(x) = s.areas.get_mut(a as usize) {
                            x.disks += m.count;
                            x.owner = Some(*seat);
                        }
                    }
                    DiskSpot::Town => s.players[*seat as usize].town += m.count,
                    DiskSpot::Virki => s.players[*seat as usize].disks[0] += m.count,
                }
            }
        }
        Event::BuildingRefilled { seat, building, disks, paid } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                let b = building.idx();
                let added = disks.saturating_sub(p.disks[b]);
                p.supply = p.supply.saturating_sub(added);
                p.disks[b] = *disks;
                let g = building.refill_good().idx();
                p.goods[g] = p.goods[g].saturating_sub(*paid);
            }
        }
        Event::BerserkurReturned { seat, area } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.units[0] = Loc::Area(*area);
            }
        }
        Event::RunesCast { seat, casts } => {
            let free = s.y2018();
            if let Some(p) = s.players.get_mut(*seat as usize) {
                if free {
                    // The 2018 rules: no divine power is spent.
                    p.runes_cast = p.runes_cast.saturating_add(casts.len() as u8);
                } else {
                    p.disks[1] = p.disks[1].saturating_sub(1);
                    p.supply += 1;
                }
                for c in casts {
                    p.runes[c.rune.idx()] = p.runes[c.rune.idx()].saturating_sub(1);
                }
            }
            for c in casts {
                if let Some(a) = s.areas.get_mut(c.area as usize) {
                    a.runes |= c.rune.bit();
                    if c.rune == RuneKind::TheirsAreYours {
                        a.caster = Some(*seat);
                    }
                }
            }
        }
        Event::RuneRemoved { area, rune, .. } => {
            if let Some(a) = s.areas.get_mut(*area as usize) {
                if a.has_rune(*rune) {
                    a.runes &= !rune.bit();
                    s.rune_pile[rune.idx()] += 1;
                    if *rune == RuneKind::TheirsAreYours {
                        a.caster = None;
                    }
                }
            }
        }
        Event::GoodsChanged { seat, delta, .. } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                add_goods(&mut p.goods, delta);
            }
        }
        Event::RecruitsGained { seat, count, .. } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                let c = (*count).min(p.supply);
                p.supply -= c;
                p.town += c;
            }
        }
        Event::UpgradeBuilt { seat, tile, replaced, glory } => {
            let Some(tile) = s.tile_index(tile) else { return };
            let replaced = replaced.as_ref().and_then(|r| s.tile_index(r));
            let level = s.tile(tile).level;
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.upgrades |= 1u64 << tile;
                if let Some(r) = replaced {
                    p.upgrades &= !(1u64 << r);
                }
                p.glory += glory;
                let cost = super::build::cost(level);
                add_goods(&mut p.goods, &cost);
            }
            s.market &= !(1u64 << tile);
            if let Some(r) = replaced {
                s.piles |= 1u64 << r;
            }
        }
        Event::TileRevealed { tile } => {
            if let Some(tile) = s.tile_index(tile) {
                s.piles &= !(1u64 << tile);
                s.market |= 1u64 << tile;
            }
        }
        Event::AxesBought { seat, count } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.axes += count;
            }
            s.axe_supply = s.axe_supply.saturating_sub(*count);
        }
        Event::RecruitsPlaced { seat, placed } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                for (disks, want) in p.disks.iter_mut().zip(placed) {
                    let c = (*want).min(p.town);
                    p.town -= c;
                    *disks += c;
                }
            }
        }
        Event::AxesPlaced { seat, areas } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.axes = p.axes.saturating_sub(areas.len() as u8);
            }
            for a in areas {
                if let Some(x) = s.areas.get_mut(*a as usize) {
                    x.axes += 1;
                }
            }
        }
        Event::GoodsSpoiled { .. } => {}
        Event::DecisionsAsked { seats } => {
            s.phase = Phase::Deciding;
            for seat in seats {
                if let Some(p) = s.players.get_mut(*seat as usize) {
                    p.deciding = true;
                }
            }
        }
        Event::Decided { seat } => {
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.deciding = false;
            }
        }
        Event::TurnEnded { seat } => {
            s.turns_done += 1;
            if let Some(p) = s.players.get_mut(*seat as usize) {
                p.moves = [None; 4];
                p.entered_from = [None; 3];
                p.fought = None;
                p.may_attack = false;
                p.hand = Hand::default();
                p.runes_cast = 0;
            }
        }
        Event::RoundEnded { .. } => {
            let n = s.n().max(1) as Seat;
            s.starting = (s.starting + 1) % n;
        }
        Event::GameEnded { converted, glory, awards, .. } => {
            for (i, p) in s.players.iter_mut().enumerate() {
                p.gold = converted.get(i).copied().unwrap_or(p.gold);
                p.goods = [0; 6];
            }
            s.final_glory = glory.clone();
            s.awards = awards.clone();
            for (p, g) in s.players.iter_mut().zip(glory) {
                p.glory = *g;
            }
            s.phase = Phase::Over;
        }
    }
}

/// Whether `e` fits the position `s`: every seat and area it names exists
/// ([`runestone_engine::Game::fits`]).
pub fn fits(s: &State, e: &Event) -> Result<(), String> {
    let seats = s.players.len();
    let seat = |k: Seat| match (k as usize) < seats {
        true => Ok(()),
        false => Err(format!("it names seat {k}, but the game has {seats} seats")),
    };
    let area = |a: AreaId| match (a as usize) < s.areas.len() {
        true => Ok(()),
        false => Err(format!("it names area {a}, but the board has {} areas", s.areas.len())),
    };
    match e {
        Event::GameStarted { colours, starting, .. } => match colours.len() {
            n @ 2..=5 if (*starting as usize) < n => Ok(()),
            n => Err(format!("a game of {n} clans started by seat {starting} is not one the rules set up")),
        },
        Event::RoundBegan { starting: k, .. } => seat(*k),
        Event::TileRevealed { .. } | Event::RoundEnded { .. } => Ok(()),
        Event::DecisionsAsked { seats: v } => v.iter().try_for_each(|k| seat(*k)),
        Event::GameEnded { gold, converted, glory, .. } => {
            match [gold, converted, glory].iter().all(|v| v.len() <= seats) {
                true => Ok(()),
                false => Err(format!("it scores more clans than the game's {seats}")),
            }
        }
        Event::HarbourClaimed { seat: k, area: a }
        | Event::UnitBoarded { seat: k, harbour: a, .. }
        | Event::UnitDisembarked { seat: k, harbour: a, .. }
        | Event::AxesDestroyed { seat: k, area: a, .. }
        | Event::BerserkurReturned { seat: k, area: a }
        | Event::RuneRemoved { seat: k, area: a, .. } => {
            seat(*k)?;
            area(*a)
        }
        Event::UnitMoved { seat: k, from, to, via, .. } => {
            seat(*k)?;
            area(*from)?;
            area(*to)?;
            via.map_or(Ok(()), area)
        }
        Event::UnitRetreated { seat: k, from, to, .. } => {
            seat(*k)?;
            area(*from)?;
            area(*to)
        }
        Event::TradeForced { seat: k, victim, .. } => {
            seat(*k)?;
            seat(*victim)
        }
        Event::BerserkurDefeated { seat: k, victim, area: a, .. } => {
            seat(*k)?;
            seat(*victim)?;
            area(*a)
        }
        Event::AreaOvertaken { seat: k, area: a, from, .. } => {
            seat(*k)?;
            from.map_or(Ok(()), seat)?;
            area(*a)
        }
        Event::AxesPlaced { seat: k, areas } => {
            seat(*k)?;
            areas.iter().try_for_each(|a| area(*a))
        }
        Event::RunesDrawn { seat: k, .. }
        | Event::GoldChanged { seat: k, .. }
        | Event::OrdersSet { seat: k, .. }
        | Event::PlanChosen { seat: k, .. }
        | Event::TurnBegan { seat: k, .. }
        | Event::ProgramStarted { seat: k, .. }
        | Event::ProgramStep { seat: k, .. }
        | Event::CardPlayed { seat: k, .. }
        | Event::FreeActionUsed { seat: k, .. }
        | Event::RoundFreeUsed { seat: k, .. }
        | Event::CardsExchanged { seat: k, .. }
        | Event::KnerrirSailed { seat: k, .. }
        | Event::RunesBought { seat: k, .. }
        | Event::Traded { seat: k, .. }
        | Event::KnerrirReturned { seat: k }
        | Event::GloryChanged { seat: k, .. }
        | Event::AxesGained { seat: k, .. }
        | Event::DisksRearranged { seat: k, .. }
        | Event::BuildingRefilled { seat: k, .. }
        | Event::RunesCast { seat: k, .. }
        | Event::GoodsChanged { seat: k, .. }
        | Event::RecruitsGained { seat: k, .. }
        | Event::UpgradeBuilt { seat: k, .. }
        | Event::AxesBought { seat: k, .. }
        | Event::RecruitsPlaced { seat: k, .. }
        | Event::GoodsSpoiled { seat: k, .. }
        | Event::TurnEnded { seat: k }
        | Event::Decided { seat: k } => seat(*k),
    }
}
