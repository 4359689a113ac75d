//! Build phase ("3. Building phase", "Upgrades", "Building upgrades"): in
//! starting player order each clan may build one upgrade from the face-up
//! tiles, resolved from its standing build order. 1st level costs 3 timber,
//! 1 iron and 1 gold and gives 3 glory; 2nd level costs 3 stone, 2 iron and
//! 2 gold and gives 5 glory and needs a 1st level tile of the same building.
//! Each building has two 1st level slots and one 2nd level slot; a clan owns
//! at most one tile of the same effect on a building; a tile may be
//! discarded (back into its pile) and replaced, without glory.

use std::sync::LazyLock;

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

/// One upgrade tile.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tile {
    pub building: Building,
    pub level: u8,
    pub effect: Effect,
    pub name: String,
    #[serde(default = "one")]
    pub count: u8,
}

fn one() -> u8 {
    1
}

#[derive(Deserialize)]
struct TileFile {
    tile: Vec<Tile>,
}

/// Parse and check the tile list (each entry expanded by its count).
pub fn parse_tiles(text: &str) -> Result<Vec<Tile>, String> {
    let f: TileFile = toml::from_str(text).map_err(|e| format!("upgrades: {e}"))?;
    let mut out = Vec::new();
    for t in f.tile {
        if !(1..=2).contains(&t.level) {
            return Err(format!("upgrade '{}' has level {}; levels are 1 and 2", t.name, t.level));
        }
        for _ in 0..t.count {
            out.push(Tile { count: 1, ..t.clone() });
        }
    }
    if out.len() > 64 {
        return Err(format!("{} upgrade tiles; at most 64 are supported", out.len()));
    }
    for b in Building::ALL {
        for (level, need) in [(1u8, 3usize), (2, 2)] {
            let have = out.iter().filter(|t| t.building == b && t.level == level).count();
            if have < need {
                return Err(format!("{} needs at least {need} tiles of level {level}, has {have}", b.name()));
            }
        }
    }
    Ok(out)
}

/// The 45 tiles of `upgrades.toml`, by id.
pub static TILES: LazyLock<Vec<Tile>> =
    LazyLock::new(|| parse_tiles(include_str!("../data/upgrades.toml")).expect("upgrades.toml is valid"));

/// Tile `t`.
pub fn tile(t: u8) -> &'static Tile {
    &TILES[(t as usize).min(TILES.len() - 1)]
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
    let owned = |i: usize| p.upgrades & (1u64 << i) != 0;
    let replaced = match wish.replace {
        None => None,
        Some(e) => Some(
            TILES
                .iter()
                .enumerate()
                .position(|(i, t)| owned(i) && t.building == wish.building && t.effect == e)
                .ok_or_else(|| format!("there is no owned {} tile with {:?} to replace", wish.building.name(), e))?
                as u8,
        ),
    };
    let Some(t) = TILES
        .iter()
        .enumerate()
        .position(|(i, t)| cx.s.market & (1u64 << i) != 0 && t.building == wish.building && t.effect == wish.effect)
    else {
        return Err(format!("no face-up {} tile has {:?}", wish.building.name(), wish.effect));
    };
    let tl = tile(t as u8);
    let same = TILES
        .iter()
        .enumerate()
        .any(|(i, x)| owned(i) && Some(i as u8) != replaced && x.building == tl.building && x.effect == tl.effect);
    if same {
        return Err(format!("the clan already has a {} tile with this effect", tl.building.name()));
    }
    let level_count = |level: u8| {
        TILES
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
        let tl = tile(t);
        let glory = if replaced.is_some() {
            0
        } else if tl.level == 1 {
            3
        } else {
            5
        };
        cx.emit(Event::UpgradeBuilt { seat, tile: t, replaced, glory });
        cx.gold(seat, -gold_cost(tl.level));
        let mut orders = cx.s.players[seat as usize].orders.clone();
        orders.build.remove(k);
        cx.set_orders(seat, orders);
        cx.reveal_tile(tl.building, tl.level);
    }
}
