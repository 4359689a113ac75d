//! Every table of the reference sheet as data (`data/*.toml`), read once and
//! validated with messages that name the fault: "REAR TRADE UNITS",
//! "STORAGE CAPACITIES AND LIMITS OF BUILDINGS", "REAR - TRADE BUILDINGS",
//! "REAR TRADE COMMODITIES", "LGF COLOR", the weather, morale, spoils,
//! command, prestige, dominance, looting and shipwreck tables, and the
//! scenario maps ("GAME BORDERS", climate, rivers, mountains).

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::state::{Building, UnitKind};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitData {
    pub id: String,
    pub name: String,
    pub dice: String,
    pub lives: u8,
    pub at_back: bool,
    pub buy: Option<u8>,
    pub buy_pp: Option<u8>,
    pub recruit: Option<u8>,
    pub upgrade: Option<u8>,
    pub upgrade_without_horses: Option<u8>,
    pub degrade_out: Option<u8>,
    pub sell: Option<u8>,
    pub salary: u8,
    pub ship_size: Option<u8>,
    pub food: u8,
    pub extra_grain: u8,
    pub requires: String,
    pub location: String,
    pub pp_value: u8,
    pub ship: bool,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildingData {
    pub id: String,
    pub price: u8,
    pub builders: u8,
    pub rounds: [u8; 3],
    pub grain: u8,
    pub units: u8,
    pub fed_herds: u8,
    pub fishes: u8,
    pub ships: u8,
    pub purchase: u8,
    pub upgrade: u8,
    pub tax: u8,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommodityData {
    pub id: String,
    pub buy: Option<u8>,
    pub sale_halves: Option<u8>,
    pub port_buy: Option<u8>,
    pub port_sale_halves: Option<u8>,
    pub meat: [u8; 2],
}

#[derive(Clone, Debug, Deserialize)]
pub struct SetupData {
    pub villages: u8,
    pub docks: u8,
    pub light_infantry: u8,
    pub transport_ships: u8,
    pub grain: u8,
    pub sheep: u8,
    pub pigs: u8,
    pub gold: u8,
    pub inland_light_infantry: u8,
    pub inland_gold: u8,
}

#[derive(Clone, Debug, Deserialize)]
pub struct ColourData {
    pub id: String,
    pub grain: u8,
    pub lf: u8,
}

#[derive(Clone, Debug, Deserialize)]
pub struct DiceData {
    pub white: [String; 6],
    pub blue: [String; 6],
    pub red: [String; 6],
}

#[derive(Clone, Debug, Deserialize)]
pub struct ClimateData {
    pub id: String,
    pub summer: [u8; 2],
    pub winter: [u8; 2],
}

#[derive(Clone, Debug, Deserialize)]
pub struct SeaWinter {
    pub good: u8,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Tier {
    #[serde(default)]
    pub id: String,
    pub from: u32,
    #[serde(default)]
    pub gold: u8,
    #[serde(default)]
    pub vp: i32,
}

#[derive(Clone, Debug, Deserialize)]
pub struct CommandData {
    pub id: String,
    pub purchase: u8,
    pub salary: u8,
}

#[derive(Clone, Debug, Deserialize)]
pub struct PrestigeData {
    pub destroy_li: i32,
    pub destroy_other: i32,
    pub shipyard: i32,
    pub loot_rival_settlement: i32,
    pub loot_other: i32,
    pub village: i32,
    pub city: i32,
    pub vp_lost: i32,
    pub double_purchase: i32,
    pub reroll: i32,
    pub target_back: i32,
    pub mercenaries: i32,
    pub double_construction: i32,
    pub special_move: i32,
    pub corsairs: i32,
    pub building_discount_from: i32,
    pub double_construction_from: i32,
    pub might_from: i32,
}

#[derive(Clone, Debug, Deserialize)]
pub struct DominanceData {
    pub goal: i32,
    pub city: [i32; 2],
    pub village: [i32; 2],
    pub herd: [i32; 3],
    pub grain: [i32; 3],
    pub battle: [i32; 3],
}

#[derive(Clone, Debug, Deserialize)]
pub struct LootingData {
    pub field: u8,
    pub village: u8,
    pub port: u8,
    pub city: u8,
}

#[derive(Clone, Debug, Deserialize)]
pub struct ShipwreckData {
    pub autumn: [u8; 2],
    pub good_winter: [u8; 2],
    pub bad_winter: [u8; 2],
}

#[derive(Clone, Debug, Deserialize)]
pub struct ImportanceData {
    pub sgf: i64,
    pub looted: i64,
    pub lgf: i64,
    pub lgf_with_settlement: i64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tables {
    pub gold_limit: u8,
    pub start_prestige: i32,
    pub setup: SetupData,
    pub colour: Vec<ColourData>,
    pub dice: DiceData,
    pub climate: Vec<ClimateData>,
    pub sea_winter: SeaWinter,
    pub morale: Vec<Tier>,
    pub spoils: Vec<Tier>,
    pub eliminated: Vec<Tier>,
    pub command: Vec<CommandData>,
    pub prestige: PrestigeData,
    pub dominance: DominanceData,
    pub looting: LootingData,
    pub shipwreck: ShipwreckData,
    pub importance: ImportanceData,
    #[serde(skip)]
    pub units: Vec<UnitData>,
    #[serde(skip)]
    pub buildings: Vec<BuildingData>,
    #[serde(skip)]
    pub commodities: Vec<CommodityData>,
}

impl Tables {
    pub fn unit(&self, k: UnitKind) -> &UnitData {
        &self.units[k.idx()]
    }
    pub fn building(&self, b: Building) -> &BuildingData {
        &self.buildings[b.idx()]
    }
    /// The highest tier whose lower bound is at most `x`.
    pub fn tier(tiers: &[Tier], x: u32) -> &Tier {
        tiers.iter().rev().find(|t| t.from <= x).unwrap_or(&tiers[0])
    }
    /// Morale level 0 (very low) to 4 (very high) for prestige held.
    pub fn morale(&self, pp: i32) -> usize {
        self.morale.iter().rposition(|t| t.from as i32 <= pp).unwrap_or(0)
    }
}

#[derive(Deserialize)]
struct UnitsFile {
    unit: Vec<UnitData>,
}
#[derive(Deserialize)]
struct BuildingsFile {
    building: Vec<BuildingData>,
}
#[derive(Deserialize)]
struct CommoditiesFile {
    commodity: Vec<CommodityData>,
}

/// Parse and check the tables from the four files' text.
pub fn parse_tables(tables: &str, units: &str, buildings: &str, commodities: &str) -> Result<Tables, String> {
    let mut t: Tables = toml::from_str(tables).map_err(|e| format!("tables.toml does not read: {}", e.message()))?;
    let u: UnitsFile = toml::from_str(units).map_err(|e| format!("units.toml does not read: {}", e.message()))?;
    let b: BuildingsFile =
        toml::from_str(buildings).map_err(|e| format!("buildings.toml does not read: {}", e.message()))?;
    let c: CommoditiesFile =
        toml::from_str(commodities).map_err(|e| format!("commodities.toml does not read: {}", e.message()))?;
    let unit_ids = [
        "light_infantry",
        "heavy_infantry",
        "siege_machine",
        "cavalry",
        "transport_ship",
        "war_ship",
        "mercenary",
        "corsair",
        "war_elephant",
    ];
    if u.unit.len() != unit_ids.len() {
        return Err(format!("units.toml lists {} units; the sheet has 9", u.unit.len()));
    }
    for (i, (d, id)) in u.unit.iter().zip(unit_ids).enumerate() {
        if d.id != id {
            return Err(format!("units.toml: unit {} is {:?}, expected {:?}", i + 1, d.id, id));
        }
        if !["white", "blue", "red", "none"].contains(&d.dice.as_str()) {
            return Err(format!("units.toml: {} has dice {:?}; use white, blue, red or none", d.id, d.dice));
        }
        if d.lives == 0 {
            return Err(format!("units.toml: {} has no lives", d.id));
        }
    }
    let building_ids = ["village", "city", "dock", "port", "fortification"];
    if b.building.len() != 5 || b.building.iter().zip(building_ids).any(|(d, id)| d.id != id) {
        return Err("buildings.toml must list village, city, dock, port, fortification in that order".into());
    }
    for d in &b.building {
        if d.rounds.contains(&0) || d.builders == 0 || d.builders > 4 {
            return Err(format!("buildings.toml: {} needs 1 to 4 builders and rounds above 0", d.id));
        }
    }
    let good_ids = ["sheep", "pigs", "cattle", "horses", "grain", "fishes"];
    if c.commodity.len() != 6 || c.commodity.iter().zip(good_ids).any(|(d, id)| d.id != id) {
        return Err("commodities.toml must list sheep, pigs, cattle, horses, grain, fishes in that order".into());
    }
    let colours = ["yellow", "green", "brown", "turquoise", "grey"];
    if t.colour.len() != 5 || t.colour.iter().zip(colours).any(|(d, id)| d.id != id) {
        return Err("tables.toml: colour must list yellow, green, brown, turquoise, grey in that order".into());
    }
    for faces in [&t.dice.white, &t.dice.blue, &t.dice.red] {
        if faces.iter().any(|f| !["S", "D", "-"].contains(&f.as_str())) {
            return Err("tables.toml: dice faces are \"S\" (sword), \"D\" (shield) or \"-\" (empty)".into());
        }
    }
    let climates = ["subtropical", "temperate", "cold"];
    if t.climate.len() != 3 || t.climate.iter().zip(climates).any(|(d, id)| d.id != id) {
        return Err("tables.toml: climate must list subtropical, temperate, cold in that order".into());
    }
    for c in &t.climate {
        if c.summer[0] > c.summer[1] || c.winter[0] > c.winter[1] || c.summer[1] > 6 || c.winter[1] > 6 {
            return Err(format!("tables.toml: climate {} has weather faces out of order", c.id));
        }
    }
    if t.morale.len() != 5 || t.command.len() != 5 {
        return Err("tables.toml: morale and command need five levels each".into());
    }
    for (name, tiers) in [("morale", &t.morale), ("spoils", &t.spoils), ("eliminated", &t.eliminated)] {
        if tiers.is_empty() || tiers[0].from != 0 || tiers.windows(2).any(|w| w[0].from >= w[1].from) {
            return Err(format!("tables.toml: {name} tiers must start at 0 and rise"));
        }
    }
    t.units = u.unit;
    t.buildings = b.building;
    t.commodities = c.commodity;
    Ok(t)
}

pub fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        parse_tables(
            include_str!("../data/tables.toml"),
            include_str!("../data/units.toml"),
            include_str!("../data/buildings.toml"),
            include_str!("../data/commodities.toml"),
        )
        .unwrap_or_else(|e| panic!("built-in realms data: {e}"))
    })
}

/// LGF colours, in the order of "LGF COLOR".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    Yellow,
    Green,
    Brown,
    Turquoise,
    Grey,
}

impl Colour {
    pub fn idx(self) -> usize {
        self as usize
    }
    pub fn name(self) -> &'static str {
        ["yellow", "green", "brown", "turquoise", "grey"][self.idx()]
    }
}

/// A field of a scenario map.
#[derive(Clone, Debug)]
pub struct FieldInfo {
    pub row: u8,
    pub col: u8,
    /// None for a sea field.
    pub colour: Option<Colour>,
    pub stormy: bool,
    /// 1 = subtropical, 2 = temperate... index into the climate table.
    pub climate: usize,
    pub river: Option<usize>,
    pub coastal: bool,
    pub neighbours: Vec<u16>,
}

impl FieldInfo {
    pub fn is_sea(&self) -> bool {
        self.colour.is_none()
    }
    pub fn rough(&self) -> bool {
        matches!(self.colour, Some(Colour::Brown | Colour::Turquoise))
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MapFile {
    name: String,
    cold_below: u8,
    /// Rows from this one on are subtropical (the scenarios of "climate
    /// subtropical and temperate").
    #[serde(default)]
    subtropical_from: Option<u8>,
    grid: Vec<String>,
    river: Vec<RiverFile>,
    black_line: Vec<[[u8; 2]; 2]>,
    border: Vec<BorderFile>,
    faction: Vec<FactionData>,
    home: Vec<HomeFile>,
    homeland: Vec<HomelandFile>,
}

/// A faction rule of the sheet that the engine plays, named in a scenario's
/// data (`abilities = [...]`): a faction is data, its abilities are drawn
/// from this list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ability {
    /// "Ships can move on the LGF adjacent to the SGF without landing ...
    /// Ships may move on rivers" (Vikings).
    ShipsOnLand,
    /// "Looting outside the homeland ... does not cost prestige (-4
    /// PP/LGF), but adds it (+4 PP/LGF)".
    LootAbroad,
    /// "Always successful fishing": FAST and BASIC fish without a roll for
    /// everyone, so it changes nothing there.
    SureFishing,
    /// "Starting with 7 units of LI, but no transport ships and dock."
    NoShips,
    /// "LI units allowed to be sold for +1."
    SellLi,
    /// "Taxes, festivals from the port: +3 (instead of +2)."
    PortPlusThree,
    /// "Each TAXES extra +3 gold."
    TaxesPlusThree,
    /// "Cannot recruit LI units." (in Recruitment)
    NoLiRecruitment,
    /// "Mercenaries even for: -10 PP A -1."
    CheapMercenaries,
    /// "Full brown LGF: +2LF (not +1)."
    BrownLf,
    /// "Full turquoise LGF: +2LF (not +1)."
    TurquoiseLf,
    /// "LI may cross the black line in the mountains."
    CrossBlackLine,
    /// "They use Transhumance (Feeding - red mode)."
    Transhumance,
    /// "Their Cavalry has 1 less life (minimum 2)."
    WeakCavalry,
    /// "1 unit (not 2) builds a village for 4 rounds. 2 units (not 4)
    /// build a city for 4 rounds. Also Heavy Infantry can build."
    FastBuilding,
    /// "Can trade with horses even without a port."
    HorsesWithoutPort,
    /// "Ships are 1 gold cheaper."
    CheaperShips,
    /// "No risk of shipwreck in autumn."
    NoAutumnShipwreck,
}

/// One faction of a scenario, with the abilities the sheet gives it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactionData {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub abilities: Vec<Ability>,
    /// Ships that make a fleet ("Fleet (4 ships)"; Vikings 1, Greeks 2).
    #[serde(default = "four")]
    pub fleet: u8,
    /// Villages that start with a fortification token, the first ones.
    #[serde(default)]
    pub fortifications: u8,
    /// Its abilities hold only in its homeland ("valid only in Illyria").
    #[serde(default)]
    pub only_in_homeland: bool,
    /// Herds it starts with, when not the setup's ("2 herds of pigs and 1
    /// herd of sheep").
    #[serde(default)]
    pub sheep: Option<u8>,
    #[serde(default)]
    pub pigs: Option<u8>,
}

fn four() -> u8 {
    4
}

impl FactionData {
    pub fn has(&self, a: Ability) -> bool {
        self.abilities.contains(&a)
    }
}

/// How a starting region is set up: three villages ("GAME SETUP
/// COMPONENTS"), one city instead ("1 city instead of 3 villages"), a
/// port instead of the third village ("Port of Carthage"), or the Huns'
/// set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Start {
    #[default]
    Villages,
    City,
    Port,
    Huns,
}

#[derive(Clone, Debug, Deserialize)]
struct RiverFile {
    name: String,
    fields: Vec<[u8; 2]>,
}

#[derive(Clone, Debug, Deserialize)]
struct BorderFile {
    players: [u8; 2],
    rows: [u8; 2],
    cols: [u8; 2],
}

#[derive(Clone, Debug, Deserialize)]
struct HomeFile {
    name: String,
    faction: String,
    villages: Vec<[u8; 2]>,
    #[serde(default)]
    start: Start,
}

#[derive(Clone, Debug, Deserialize)]
struct HomelandFile {
    faction: String,
    areas: Vec<[[u8; 2]; 2]>,
}

#[derive(Clone, Debug)]
pub struct Home {
    pub name: String,
    pub faction: String,
    /// Its fields: villages, or the city (`Start::City`), or two villages
    /// and the port's field (`Start::Port`), or the Huns' village.
    pub villages: Vec<u16>,
    pub start: Start,
}

#[derive(Clone, Debug)]
pub struct Border {
    pub players: [u8; 2],
    pub rows: [u8; 2],
    pub cols: [u8; 2],
}

/// A scenario map, checked.
#[derive(Clone, Debug)]
pub struct Map {
    pub name: String,
    pub rows: u8,
    pub cols: u8,
    pub fields: Vec<FieldInfo>,
    pub rivers: Vec<String>,
    pub black_line: Vec<(u16, u16)>,
    pub borders: Vec<Border>,
    pub factions: Vec<FactionData>,
    pub homes: Vec<Home>,
    homelands: Vec<(String, Vec<[[u8; 2]; 2]>)>,
    /// The climates of climate region 1 and region 2 ("D6 roll for climate
    /// region 1, climate region 2 and for all seas"): temperate and cold,
    /// or subtropical and temperate.
    pub regions: [usize; 2],
}

impl Map {
    pub fn id(&self, r: u8, c: u8) -> u16 {
        r as u16 * self.cols as u16 + c as u16
    }

    pub fn blocked(&self, a: u16, b: u16) -> bool {
        self.black_line.iter().any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
    }

    /// Whether a field is inside the borders for `players`.
    pub fn in_play(&self, f: u16, players: u8) -> bool {
        let info = &self.fields[f as usize];
        self.borders
            .iter()
            .filter(|b| b.players[0] <= players && players <= b.players[1])
            .any(|b| b.rows[0] <= info.row && info.row <= b.rows[1] && b.cols[0] <= info.col && info.col <= b.cols[1])
    }

    /// The most players the scenario seats: one starting region each.
    pub fn max_players(&self) -> u8 {
        self.homes.len().min(12) as u8
    }

    /// The faction of this id (every home's faction is checked to exist).
    pub fn faction(&self, id: &str) -> &FactionData {
        self.factions.iter().find(|f| f.id == id).unwrap_or(&self.factions[0])
    }

    /// Index into the winter weather (0 region 1, 1 region 2) of a climate.
    pub fn region(&self, climate: usize) -> usize {
        usize::from(climate == self.regions[1])
    }

    pub fn in_homeland(&self, f: u16, faction: &str) -> bool {
        let info = &self.fields[f as usize];
        self.homelands.iter().filter(|(fa, _)| fa == faction).any(|(_, areas)| {
            areas.iter().any(|[r, c]| r[0] <= info.row && info.row <= r[1] && c[0] <= info.col && info.col <= c[1])
        })
    }

    pub fn name_of(&self, f: u16) -> String {
        let i = &self.fields[f as usize];
        let what = match i.colour {
            None if i.stormy => "stormy sea".to_string(),
            None => "sea".to_string(),
            Some(c) => c.name().to_string(),
        };
        format!("{what} {}-{}", i.row, i.col)
    }
}

/// Parse and check a map's text.
pub fn parse_map(text: &str) -> Result<Map, String> {
    let m: MapFile = toml::from_str(text).map_err(|e| format!("the map does not read: {}", e.message()))?;
    let rows = m.grid.len();
    if rows == 0 || rows > 60 {
        return Err("the map's grid needs 1 to 60 rows".into());
    }
    let cols = m.grid[0].chars().count();
    if cols == 0 || cols > 60 {
        return Err("the map's grid needs 1 to 60 columns".into());
    }
    let mut fields = Vec::new();
    for (r, line) in m.grid.iter().enumerate() {
        if line.chars().count() != cols {
            return Err(format!("map row {r} has {} fields; the first row has {cols}", line.chars().count()));
        }
        for (c, ch) in line.chars().enumerate() {
            let (colour, stormy) = match ch {
                '~' => (None, false),
                '=' => (None, true),
                'Y' => (Some(Colour::Yellow), false),
                'G' => (Some(Colour::Green), false),
                'B' => (Some(Colour::Brown), false),
                'T' => (Some(Colour::Turquoise), false),
                'X' => (Some(Colour::Grey), false),
                _ => return Err(format!("map row {r} column {c}: {ch:?} is no field; use ~ = Y G B T X")),
            };
            let climate = if (r as u8) < m.cold_below {
                2
            } else if m.subtropical_from.is_some_and(|k| r as u8 >= k) {
                0
            } else {
                1
            };
            fields.push(FieldInfo {
                row: r as u8,
                col: c as u8,
                colour,
                stormy,
                climate,
                river: None,
                coastal: false,
                neighbours: Vec::new(),
            });
        }
    }
    let id = |r: u8, c: u8| r as u16 * cols as u16 + c as u16;
    let inside = |p: [u8; 2]| (p[0] as usize) < rows && (p[1] as usize) < cols;
    for r in 0..rows {
        for c in 0..cols {
            let me = id(r as u8, c as u8) as usize;
            let mut n = Vec::new();
            if r > 0 {
                n.push(id(r as u8 - 1, c as u8));
            }
            if c > 0 {
                n.push(id(r as u8, c as u8 - 1));
            }
            if c + 1 < cols {
                n.push(id(r as u8, c as u8 + 1));
            }
            if r + 1 < rows {
                n.push(id(r as u8 + 1, c as u8));
            }
            fields[me].neighbours = n;
        }
    }
    for i in 0..fields.len() {
        let coastal = !fields[i].is_sea() && fields[i].neighbours.iter().any(|&n| fields[n as usize].is_sea());
        fields[i].coastal = coastal;
    }
    let mut rivers = Vec::new();
    for (ri, river) in m.river.iter().enumerate() {
        for (k, p) in river.fields.iter().enumerate() {
            if !inside(*p) {
                return Err(format!("river {}: field {:?} is off the map", river.name, p));
            }
            let f = id(p[0], p[1]);
            if fields[f as usize].is_sea() {
                return Err(format!("river {}: field {:?} is sea", river.name, p));
            }
            if k > 0 {
                let prev = id(river.fields[k - 1][0], river.fields[k - 1][1]);
                if !fields[f as usize].neighbours.contains(&prev) {
                    return Err(format!("river {}: {:?} does not touch the field before it", river.name, p));
                }
            }
            fields[f as usize].river = Some(ri);
        }
        rivers.push(river.name.clone());
    }
    let mut black_line = Vec::new();
    for [a, b] in &m.black_line {
        if !inside(*a) || !inside(*b) {
            return Err(format!("black line {a:?}-{b:?} is off the map"));
        }
        let (x, y) = (id(a[0], a[1]), id(b[0], b[1]));
        if !fields[x as usize].neighbours.contains(&y) {
            return Err(format!("black line {a:?}-{b:?}: the fields are not neighbours"));
        }
        if fields[x as usize].colour != Some(Colour::Brown) && fields[y as usize].colour != Some(Colour::Brown) {
            return Err(format!("black line {a:?}-{b:?} is not in the mountains"));
        }
        black_line.push((x, y));
    }
    let borders: Vec<Border> =
        m.border.iter().map(|b| Border { players: b.players, rows: b.rows, cols: b.cols }).collect();
    if m.faction.is_empty() {
        return Err("the map names no faction".into());
    }
    for (i, f) in m.faction.iter().enumerate() {
        if m.faction[..i].iter().any(|o| o.id == f.id) {
            return Err(format!("faction {} is given twice", f.id));
        }
        if f.fleet == 0 || f.fortifications > 3 {
            return Err(format!("faction {}: a fleet needs a ship and at most 3 villages start fortified", f.id));
        }
    }
    let mut homes = Vec::new();
    for h in &m.home {
        if !m.faction.iter().any(|f| f.id == h.faction) {
            return Err(format!("home {}: faction {:?} is not among the map's factions", h.name, h.faction));
        }
        let mut v = Vec::new();
        for p in &h.villages {
            if !inside(*p) {
                return Err(format!("home {}: village {:?} is off the map", h.name, p));
            }
            let f = id(p[0], p[1]);
            match fields[f as usize].colour {
                None => return Err(format!("home {}: village {:?} is at sea", h.name, p)),
                Some(Colour::Grey) => return Err(format!("home {}: village {:?} is on a grey field", h.name, p)),
                _ => {}
            }
            if homes.iter().any(|o: &Home| o.villages.contains(&f)) || v.contains(&f) {
                return Err(format!("home {}: village {:?} is already another village", h.name, p));
            }
            v.push(f);
        }
        let want = match h.start {
            Start::Villages | Start::Port => tables().setup.villages as usize,
            Start::City | Start::Huns => 1,
        };
        if v.len() != want {
            return Err(format!("home {} has {} fields; its start needs {want}", h.name, v.len()));
        }
        if h.start == Start::Port && !fields[v[want - 1] as usize].coastal {
            return Err(format!("home {}: the port's field (the last) is not on the coast", h.name));
        }
        homes.push(Home { name: h.name.clone(), faction: h.faction.clone(), villages: v, start: h.start });
    }
    if homes.len() < 2 {
        return Err(format!("the map has {} starting regions; 2 players need 2", homes.len()));
    }
    let most = homes.len().min(12) as u8;
    for n in 2..=most {
        if !borders.iter().any(|b| b.players[0] <= n && n <= b.players[1]) {
            return Err(format!("no game border is given for {n} players"));
        }
    }
    let subtropical = fields.iter().any(|f| f.climate == 0);
    let regions = if subtropical { [0, 1] } else { [1, 2] };
    let mut map = Map {
        name: m.name,
        rows: rows as u8,
        cols: cols as u8,
        fields,
        rivers,
        black_line,
        borders,
        factions: m.faction,
        homes,
        homelands: m.homeland.iter().map(|h| (h.faction.clone(), h.areas.clone())).collect(),
        regions,
    };
    for n in 2..=most {
        for h in &map.homes[..n as usize] {
            if let Some(&v) = h.villages.iter().find(|&&v| !map.in_play(v, n)) {
                let i = &map.fields[v as usize];
                return Err(format!(
                    "home {}: village {}-{} lies beyond the borders for {n} players",
                    h.name, i.row, i.col
                ));
            }
        }
    }
    // Every field in play for the most players is reachable from the first home.
    let start = map.homes[0].villages[0];
    let mut seen = vec![false; map.fields.len()];
    let mut stack = vec![start];
    seen[start as usize] = true;
    while let Some(f) = stack.pop() {
        for &n in &map.fields[f as usize].neighbours {
            if !seen[n as usize] && map.in_play(n, most) {
                seen[n as usize] = true;
                stack.push(n);
            }
        }
    }
    if let Some(f) = (0..map.fields.len()).find(|&f| map.in_play(f as u16, most) && !seen[f]) {
        let i = &map.fields[f];
        return Err(format!("field {}-{} cannot be reached from the others", i.row, i.col));
    }
    map.fields.shrink_to_fit();
    Ok(map)
}

/// The scenarios this crate has maps for, in the sheet's order of time:
/// each id is also its data file, `data/<id>.toml`.
pub const SCENARIOS: [&str; 6] = ["orient", "italia", "huns", "britannia", "vikings", "taifas"];

/// The built-in text of a scenario's data.
fn scenario_text(id: &str) -> &'static str {
    match id {
        "italia" => include_str!("../data/italia.toml"),
        "britannia" => include_str!("../data/britannia.toml"),
        "taifas" => include_str!("../data/taifas.toml"),
        "orient" => include_str!("../data/orient.toml"),
        "huns" => include_str!("../data/huns.toml"),
        _ => include_str!("../data/vikings.toml"),
    }
}

pub fn map(scenario: &str) -> &'static Map {
    static M: OnceLock<HashMap<&'static str, Map>> = OnceLock::new();
    let all = M.get_or_init(|| {
        SCENARIOS
            .iter()
            .map(|&id| (id, parse_map(scenario_text(id)).unwrap_or_else(|e| panic!("built-in {id} map: {e}"))))
            .collect()
    });
    all.get(scenario).unwrap_or_else(|| &all["vikings"])
}
