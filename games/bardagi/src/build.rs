//! Build phase ("3. Building phase", "Upgrades", "Building upgrades"): in
//! starting player order each clan may build one upgrade from the face-up
//! tiles, resolved from its standing build order. 1st level costs 3 timber,
//! 1 iron and 1 gold and gives 3 glory; 2nd level costs 3 stone, 2 iron and
//! 2 gold and gives 5 glory and needs a 1st level tile of the same building.
//! Each building has two 1st level slots and one 2nd level slot; a clan owns
//! at most one tile of the same effect on a building; a tile may be
//! discarded (back into its pile) and replaced, without glory.

use std::sync::{Arc, LazyLock, OnceLock};

use serde::{Deserialize, Serialize};

use super::state::{BuildWish, Building, Event, Good};
use super::Ctx;
use runestone_engine::game::Seat;

/// What an upgrade tile does (the rulebook's two lists of effects).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Knerrir moves +2 ocean squares per card (stacks across buildings).
    KnerrirPlusTwo,
    /// 2 gold each Claim phase.
    GoldTwo,
    /// Virki holds two more disks (to 12).
    MeadHall,
    /// 1 glory per owned iron mine each Claim phase.
    GloryPerIronMine,
    /// Berserkur moves 3 areas per card.
    BerserkurMovesThree,
    /// 1 glory per owned cattle area each Claim phase.
    GloryPerCattle,
    /// 1 gold per owned village each Claim phase.
    GoldPerVillage,
    /// 1 gold per area attacked by the Berserkur this round.
    GoldPerAttack,
    /// 1 gold per owned sheep area each Claim phase.
    GoldPerSheep,
    /// 1 recruit per owned iron mine each Claim phase.
    RecruitPerIronMine,
    /// 1 glory per owned quarry each Claim phase.
    GloryPerQuarry,
    /// 1 gold per owned forest each Claim phase.
    GoldPerForest,
    /// 1 glory per area taken from other clans this round, or 1 if none.
    GloryPerAreaTaken,
    /// 3 glory each Claim phase.
    GloryThree,
    /// Own axe tokens count 4 in defence.
    AxePlusTwo,
    /// 3 gold each Claim phase.
    GoldThree,
    /// Once a round another card may be used for one Berserkur action.
    AnyCardBerserkur,
    /// Once a round the Godi acts without a card.
    GodiFreeAction,
    /// Home area actions need not the Kaupmadur at home; one is free each round.
    HomeActionAnywhere,
    /// Storage holds 8 of each good.
    LargerStorage,
    /// Own Berserkur counts 6 in defence.
    BerserkurStrength,
    /// 3 glory each Claim phase while owning a quarry.
    QuarryGloryThree,
    /// One free random rune per owned village each Claim phase.
    RunePerVillage,
    /// Kaupmadur may sell up to 4 hide for 1 gold each, per turn.
    HideForGold,
}

impl Effect {
    /// The effect's amount when a tile does not give its own: the
    /// rulebook's number (glory or gold per area or round, areas, squares,
    /// disks, the storage or a unit's strength); `None` for the free actions.
    pub fn default_amount(self) -> Option<u8> {
        use Effect::*;
        match self {
            KnerrirPlusTwo | GoldTwo | MeadHall => Some(2),
            BerserkurMovesThree | GloryThree | GoldThree | QuarryGloryThree => Some(3),
            AxePlusTwo | HideForGold => Some(4),
            BerserkurStrength => Some(6),
            LargerStorage => Some(8),
            AnyCardBerserkur | GodiFreeAction | HomeActionAnywhere => None,
            GloryPerIronMine | GloryPerCattle | GoldPerVillage | GoldPerAttack | GoldPerSheep | RecruitPerIronMine
            | GloryPerQuarry | GoldPerForest | GloryPerAreaTaken | RunePerVillage => Some(1),
        }
    }

    /// The amounts a tile may give this effect, and what the amount is.
    fn amount_range(self) -> (u8, u8, &'static str) {
        use Effect::*;
        match self {
            KnerrirPlusTwo => (0, 10, "ocean squares added to each Knerrir card"),
            GoldTwo | GoldThree => (0, 10, "gold each Claim phase"),
            GloryThree | QuarryGloryThree => (0, 10, "glory each Claim phase"),
            MeadHall => (0, 10, "disks added to Virki"),
            BerserkurMovesThree => (1, 6, "areas the Berserkur moves per card"),
            AxePlusTwo => (2, 10, "disks each own axe counts in defence"),
            HideForGold => (0, 10, "hide sold 1 for 1 gold per turn"),
            BerserkurStrength => (4, 12, "disks the own Berserkur counts in defence"),
            LargerStorage => (5, 20, "goods of each kind the storage holds"),
            _ => (0, 10, "glory, gold, recruits or runes per area or attack"),
        }
    }

    /// The effect's name as data files write it (`mead_hall`).
    pub fn key(self) -> String {
        serde_json::to_value(self).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
    }

    /// Every effect.
    pub const ALL: [Effect; 24] = [
        Effect::KnerrirPlusTwo,
        Effect::GoldTwo,
        Effect::MeadHall,
        Effect::GloryPerIronMine,
        Effect::BerserkurMovesThree,
        Effect::GloryPerCattle,
        Effect::GoldPerVillage,
        Effect::GoldPerAttack,
        Effect::GoldPerSheep,
        Effect::RecruitPerIronMine,
        Effect::GloryPerQuarry,
        Effect::GoldPerForest,
        Effect::GloryPerAreaTaken,
        Effect::GloryThree,
        Effect::AxePlusTwo,
        Effect::GoldThree,
        Effect::AnyCardBerserkur,
        Effect::GodiFreeAction,
        Effect::HomeActionAnywhere,
        Effect::LargerStorage,
        Effect::BerserkurStrength,
        Effect::QuarryGloryThree,
        Effect::RunePerVillage,
        Effect::HideForGold,
    ];
}

/// One upgrade tile (one physical tile: a `[[tile]]` of count 3 is three).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Tile {
    /// Its stable id: the `[[tile]]`'s id and the copy's number, `horse_stable.2`.
    pub id: String,
    pub building: Building,
    pub level: u8,
    pub effect: Effect,
    /// The effect's amount (see [`Effect::default_amount`]; 0 for a free action).
    pub amount: u8,
    pub name: String,
}

/// The line (from 1) of byte `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// A name of one of the enums the files use, read from a TOML value.
fn named<T: for<'de> Deserialize<'de>>(v: &toml::Value) -> Option<T> {
    v.as_str().and_then(|s| serde_json::from_value(serde_json::Value::String(s.to_owned())).ok())
}

/// Parse and check an upgrade file: one `[[tile]]` table per kind of tile
/// with `id`, `building`, `level`, `effect`, `name`, and optionally `amount`
/// and `count` (copies, default 1), each copy a tile of its own. Every fault
/// is named with its line (of a tile's fault, the line its `[[tile]]` begins).
pub fn parse_tiles(text: &str) -> Result<Vec<Tile>, String> {
    #[derive(Deserialize)]
    struct File {
        #[serde(default)]
        tile: Vec<toml::Spanned<toml::Table>>,
    }
    let f: File = toml::from_str(text).map_err(|e| match e.span() {
        Some(sp) => format!("upgrades, line {}: this line is not a valid TOML key and value", line_of(text, sp.start)),
        None => "upgrades: the file is not valid TOML".to_string(),
    })?;
    let keys = ["id", "building", "level", "effect", "name", "amount", "count"];
    let mut out: Vec<Tile> = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    for entry in &f.tile {
        let line = line_of(text, entry.span().start);
        let at = |m: String| format!("upgrades, the [[tile]] at line {line}: {m}");
        let t = entry.get_ref();
        if let Some(k) = t.keys().find(|k| !keys.contains(&k.as_str())) {
            return Err(at(format!("unknown key '{k}'; a tile has {}", keys.join(", "))));
        }
        let id = match t.get("id").map(|v| v.as_str()) {
            None => return Err(at("the tile has no id".into())),
            Some(Some(i))
                if !i.is_empty()
                    && i.len() <= 40
                    && i.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') =>
            {
                i.to_string()
            }
            Some(_) => {
                return Err(at("the id is a name in quotes of lower-case letters, digits and _ (at most 40)".into()))
            }
        };
        if ids.contains(&id) {
            return Err(at(format!("the id '{id}' is used twice; every kind of tile has its own")));
        }
        let building: Building = match t.get("building") {
            None => return Err(at(format!("the tile '{id}' has no building"))),
            Some(v) => named(v).ok_or_else(|| at("the building is \"virki\", \"hof\" or \"verslun\"".into()))?,
        };
        let level = match t.get("level").map(|v| v.as_integer()) {
            None => return Err(at(format!("the tile '{id}' has no level"))),
            Some(Some(l @ 1..=2)) => l as u8,
            Some(_) => return Err(at(format!("the level of '{id}' is 1 or 2"))),
        };
        let effect: Effect = match t.get("effect") {
            None => return Err(at(format!("the tile '{id}' has no effect"))),
            Some(v) => named(v).ok_or_else(|| {
                let all: Vec<String> = Effect::ALL.iter().map(|e| e.key()).collect();
                at(format!("no effect is called {v}; the effects are {}", all.join(", ")))
            })?,
        };
        let name = match t.get("name").map(|v| v.as_str()) {
            None => return Err(at(format!("the tile '{id}' has no name"))),
            Some(Some(n)) if !n.trim().is_empty() => n.to_string(),
            Some(_) => return Err(at(format!("the name of '{id}' is words in quotes"))),
        };
        let amount = match (t.get("amount").map(|v| v.as_integer()), effect.default_amount()) {
            (None, d) => d.unwrap_or(0),
            (Some(_), None) => {
                return Err(at(format!("{} is a free action once a round; it takes no amount", effect.key())))
            }
            (Some(a), Some(_)) => {
                let (lo, hi, what) = effect.amount_range();
                match a {
                    Some(a) if (lo as i64..=hi as i64).contains(&a) => a as u8,
                    _ => {
                        return Err(at(format!(
                            "the amount of {} ({what}) is a whole number from {lo} to {hi}",
                            effect.key()
                        )))
                    }
                }
            }
        };
        let count = match t.get("count").map(|v| v.as_integer()) {
            None => 1,
            Some(Some(c @ 1..=20)) => c as usize,
            Some(_) => return Err(at(format!("the count of '{id}' is a whole number from 1 to 20"))),
        };
        for k in 1..=count {
            out.push(Tile { id: format!("{id}.{k}"), building, level, effect, amount, name: name.clone() });
        }
        ids.push(id);
        if out.len() > 64 {
            return Err(at(format!("the tiles so far number {}; at most 64 are supported", out.len())));
        }
    }
    for b in Building::ALL {
        for (level, need) in [(1u8, 3usize), (2, 2)] {
            let have = out.iter().filter(|t| t.building == b && t.level == level).count();
            if have < need {
                return Err(format!(
                    "upgrades: {} needs at least {need} tiles of level {level} (the market shows {need}), has {have}",
                    b.name()
                ));
            }
        }
    }
    Ok(out)
}

/// The built-in tiles of `upgrades.toml`, by index (the index is what
/// version 1 and 2 logs name a tile by; the file's order is kept).
pub static TILES: LazyLock<Vec<Tile>> =
    LazyLock::new(|| parse_tiles(include_str!("../data/upgrades.toml")).expect("upgrades.toml is valid"));

/// The tiles a game is played with: the built-in ones, or a file given at
/// creation (`custom_upgrades`). Shared, never deep-copied with the state;
/// it serialises as nothing (built in) or the custom file's text, and is
/// checked again when read back.
#[derive(Clone, Debug)]
pub struct TileSet {
    pub tiles: Arc<Vec<Tile>>,
    /// The custom file's text, if not built in.
    pub source: Option<Arc<str>>,
}

impl Default for TileSet {
    fn default() -> Self {
        static B: OnceLock<Arc<Vec<Tile>>> = OnceLock::new();
        TileSet { tiles: B.get_or_init(|| Arc::new(TILES.clone())).clone(), source: None }
    }
}

impl TileSet {
    /// The tiles of a custom upgrade file.
    pub fn custom(text: &str) -> Result<TileSet, String> {
        Ok(TileSet { tiles: Arc::new(parse_tiles(text)?), source: Some(text.into()) })
    }

    /// Whether these are the built-in tiles.
    pub fn is_builtin(&self) -> bool {
        self.source.is_none()
    }
}

impl std::ops::Deref for TileSet {
    type Target = [Tile];
    fn deref(&self) -> &[Tile] {
        &self.tiles
    }
}

impl Serialize for TileSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.source.as_deref().serialize(s)
    }
}

impl<'de> Deserialize<'de> for TileSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(TileSet::default()),
            Some(text) => TileSet::custom(&text).map_err(serde::de::Error::custom),
        }
    }
}

impl schemars::JsonSchema for TileSet {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TileSet".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Option<String>>::json_schema(generator)
    }
}

/// How an event names a tile: by its index in the game's tile list (rules
/// versions 1 and 2), or by its stable id (from version 3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum TileKey {
    /// The tile's index in the game's tile list (versions 1 and 2).
    Index(u8),
    /// The tile's stable id.
    Id(String),
}

/// Goods paid for a tile of `level`, as a negative delta (gold apart).
pub fn cost(level: u8) -> [i8; 6] {
    let mut d = [0i8; 6];
    if level == 1 {
        d[Good::Timber.idx()] = -3;
        d[Good::Iron.idx()] = -1;
    } else {
        d[Good::Stone.idx()] = -3;
        d[Good::Iron.idx()] = -2;
    }
    d
}

/// Gold paid for a tile of `level`.
pub fn gold_cost(level: u8) -> i32 {
    if level == 1 {
        1
    } else {
        2
    }
}

/// How many tiles face up per building and level ("three 1st level and two
/// 2nd level; 2 and 3 players: two and one").
pub fn display(players: usize, level: u8) -> usize {
    match (players <= 3, level) {
        (true, 1) => 2,
        (true, _) => 1,
        (false, 1) => 3,
        (false, _) => 2,
    }
}

/// Why `seat` cannot build `wish` now, or the face-up tile (and the tile
/// replaced) it would build.
pub fn check(cx: &Ctx, seat: Seat, wish: &BuildWish) -> Result<(u8, Option<u8>), String> {
    let p = &cx.s.players[seat as usize];
    let tiles = &cx.s.tiles;
    let owned = |i: usize| i < 64 && p.upgrades & (1u64 << i) != 0;
    let replaced = match wish.replace {
        None => None,
        Some(e) => Some(
            tiles
                .iter()
                .enumerate()
                .position(|(i, t)| owned(i) && t.building == wish.building && t.effect == e)
                .ok_or_else(|| format!("there is no owned {} tile with {:?} to replace", wish.building.name(), e))?
                as u8,
        ),
    };
    let Some(t) = tiles.iter().enumerate().position(|(i, t)| {
        i < 64 && cx.s.market & (1u64 << i) != 0 && t.building == wish.building && t.effect == wish.effect
    }) else {
        return Err(format!("no face-up {} tile has {:?}", wish.building.name(), wish.effect));
    };
    let tl = cx.s.tile(t as u8);
    let same = tiles
        .iter()
        .enumerate()
        .any(|(i, x)| owned(i) && Some(i as u8) != replaced && x.building == tl.building && x.effect == tl.effect);
    if same {
        return Err(format!("the clan already has a {} tile with this effect", tl.building.name()));
    }
    let level_count = |level: u8| {
        tiles
            .iter()
            .enumerate()
            .filter(|(i, x)| owned(*i) && Some(*i as u8) != replaced && x.building == tl.building && x.level == level)
            .count()
    };
    let slots = if tl.level == 1 { 2 } else { 1 };
    if level_count(tl.level) >= slots {
        return Err(format!("{} has no free slot of level {}", tl.building.name(), tl.level));
    }
    if tl.level == 2 && level_count(1) == 0 {
        return Err(format!("a 2nd level {} upgrade needs a 1st level one first", tl.building.name()));
    }
    let c = cost(tl.level);
    for g in Good::ALL {
        if (p.goods[g.idx()] as i32) < -(c[g.idx()] as i32) {
            return Err(format!("needs {} {}, has {}", -c[g.idx()], g.name(), p.goods[g.idx()]));
        }
    }
    if p.gold < gold_cost(tl.level) {
        return Err(format!("needs {} gold", gold_cost(tl.level)));
    }
    Ok((t as u8, replaced))
}

/// The Build phase: each clan in starting player order builds the first
/// upgrade of its build order that it can, and that wish is then dropped.
pub fn build_phase(cx: &mut Ctx) {
    for seat in cx.s.order() {
        let wishes = cx.s.players[seat as usize].orders.build.clone();
        let Some((k, (t, replaced))) =
            wishes.iter().enumerate().find_map(|(k, w)| check(cx, seat, w).ok().map(|r| (k, r)))
        else {
            continue;
        };
        let tl = cx.s.tile(t).clone();
        let glory = if replaced.is_some() {
            0
        } else if tl.level == 1 {
            3
        } else {
            5
        };
        let (tile, replaced) = (cx.s.tile_key(t), replaced.map(|r| cx.s.tile_key(r)));
        cx.emit(Event::UpgradeBuilt { seat, tile, replaced, glory });
        cx.gold(seat, -gold_cost(tl.level));
        let mut orders = cx.s.players[seat as usize].orders.clone();
        orders.build.remove(k);
        cx.set_orders(seat, orders);
        cx.reveal_tile(tl.building, tl.level);
    }
}
