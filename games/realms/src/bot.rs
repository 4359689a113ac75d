//! A sensible realm, also the fallback for a realm that misses its
//! deadline: it keeps its people fed, sows, recruits, builds, expands its
//! control, attacks weak neighbours and loots where it gains prestige.

use runestone_engine::Seat;

use crate::control::{
    connected, controls, fed_herd_cap, foreign, grain_stock, kind_of, settlements, unit_cap, units_of,
};
use crate::data::{tables, Colour};
use crate::moves;
use crate::state::{Build, Building, Faction, Move, Orders, Purchase, Season, Standing, State, Step, UnitKind};

/// Food the realm needs at the next feeding (units, extra grain, settlements).
fn food_need(s: &State, seat: Seat) -> u32 {
    let t = tables();
    let units: u32 = s
        .fields
        .iter()
        .flat_map(|f| f.units.iter())
        .filter(|u| u.owner == seat)
        .map(|u| t.unit(u.kind).food as u32 + t.unit(u.kind).extra_grain as u32)
        .sum();
    let towns: u32 = settlements(s, seat)
        .iter()
        .map(|&f| if s.fields[f as usize].settlement.is_some_and(|x| x.city) { 2 } else { 1 })
        .sum();
    units + towns
}

pub fn orders(s: &State, seat: Seat) -> Orders {
    plan(s, seat, false)
}

/// Fields' distance (in land steps) to the nearest foreign settlement.
fn distance_to_enemy(s: &State, seat: Seat) -> Vec<u32> {
    let map = s.map();
    let mut dist = vec![u32::MAX; s.fields.len()];
    let mut queue = std::collections::VecDeque::new();
    for f in 0..s.fields.len() {
        if s.fields[f].settlement.is_some_and(|x| x.owner != seat) {
            dist[f] = 0;
            queue.push_back(f as u16);
        }
    }
    while let Some(f) = queue.pop_front() {
        for &n in &map.fields[f as usize].neighbours {
            if dist[n as usize] == u32::MAX && !map.fields[n as usize].is_sea() && !map.blocked(f, n) {
                dist[n as usize] = dist[f as usize] + 1;
                queue.push_back(n);
            }
        }
    }
    dist
}

/// The bot's orders; `march` sends every army of three or more towards the
/// nearest foreign settlement.
pub fn plan(s: &State, seat: Seat, march: bool) -> Orders {
    let t = tables();
    let map = s.map();
    let r = &s.realms[seat as usize];
    let conn = connected(s, seat);
    let mut o = Orders {
        battle: Standing {
            escape_below: 34,
            reroll_pp: if r.pp >= 24 { 8 } else { 0 },
            target_back: false,
            raze: true,
        },
        festival: 1,
        ..Orders::default()
    };
    let stock = grain_stock(s, seat, &conn);
    let need = food_need(s, seat);
    // Moves: attack a weak neighbouring settlement, else spread out.
    let dist = if march { distance_to_enemy(s, seat) } else { Vec::new() };
    for f in 0..s.fields.len() as u16 {
        let li = kind_of(s, f, seat, UnitKind::LightInfantry) as u8;
        if li < 2 || foreign(s, f, seat) || map.fields[f as usize].is_sea() {
            continue;
        }
        let building = s.fields[f as usize].construction.is_some_and(|c| c.owner == seat);
        if building {
            continue;
        }
        // One unit stays behind; the others may go.
        let spare = li - 1;
        if spare == 0 {
            continue;
        }
        let nb = &map.fields[f as usize].neighbours;
        let target = nb.iter().copied().find(|&n| {
            let fi = &s.fields[n as usize];
            fi.settlement.is_some_and(|x| x.owner != seat)
                && s.fields[n as usize].units.iter().filter(|u| u.owner != seat).count() + 1 < spare as usize
        });
        let spread = nb.iter().copied().find(|&n| {
            !map.fields[n as usize].is_sea()
                && !controls(s, seat, n)
                && !foreign(s, n, seat)
                && s.fields[n as usize].settlement.is_none()
                && map.in_play(n, s.players)
        });
        let toward = if march {
            nb.iter().copied().filter(|&n| dist[n as usize] < dist[f as usize]).min_by_key(|&n| dist[n as usize])
        } else {
            None
        };
        let even = (f as usize + s.year as usize + s.season as usize).is_multiple_of(2);
        let (to, count) = if let Some(n) = target.or(toward) {
            (n, spare)
        } else if let Some(n) = spread.filter(|_| even) {
            (n, 1)
        } else {
            continue;
        };
        let m = Move { from: f, to, unit: UnitKind::LightInfantry, count };
        if moves::check(s, seat, &m, Step::Units, false).is_ok() {
            o.moves.push(m);
        }
    }
    // Looting where it brings prestige.
    for f in 0..s.fields.len() as u16 {
        let fi = &s.fields[f as usize];
        if map.fields[f as usize].is_sea() || fi.looted || units_of(s, f, seat) == 0 || foreign(s, f, seat) {
            continue;
        }
        let rival = fi.settlement.is_some_and(|x| x.owner != seat);
        let raid = r.faction == Faction::Vikings
            && !map.in_homeland(f, Faction::Vikings)
            && fi.settlement.is_none_or(|x| x.owner != seat);
        if rival || raid {
            o.loot.push(f);
        }
    }
    // Sowing in spring: free controlled connected fields, keeping food.
    if s.season == Season::Spring {
        let mut spare = stock.saturating_sub(need.min(stock) / 2);
        for f in 0..s.fields.len() as u16 {
            if spare == 0 || o.sow.len() >= 4 {
                break;
            }
            let info = &map.fields[f as usize];
            let fi = &s.fields[f as usize];
            if info.is_sea() || info.colour == Some(Colour::Grey) || !fi.herds.is_empty() || fi.looted {
                continue;
            }
            if conn[f as usize] && controls(s, seat, f) && fi.sown.is_none() {
                o.sow.push(f);
                spare -= 1;
            }
        }
    }
    // Keep the gold for the winter's salaries.
    let upkeep: i32 = s
        .fields
        .iter()
        .flat_map(|f| f.units.iter())
        .filter(|u| u.owner == seat)
        .map(|u| t.unit(u.kind).salary as i32)
        .sum::<i32>()
        + settlements(s, seat).len() as i32;
    let mut gold = r.gold as i32 - upkeep;
    // Recruitment in autumn.
    if s.season == Season::Autumn {
        for f in 0..s.fields.len() as u16 {
            if gold < 2 || o.recruit.len() >= 2 {
                break;
            }
            let fi = &s.fields[f as usize];
            if map.fields[f as usize].is_sea() || fi.looted || !conn[f as usize] || !controls(s, seat, f) {
                continue;
            }
            if fi.settlement.is_some_and(|x| x.owner == seat) && units_of(s, f, seat) >= unit_cap(s, f) as usize {
                continue;
            }
            o.recruit.push(f);
            gold -= 1;
        }
    }
    // Construction: a village where two Light Infantry stand outside, or a fortification.
    for f in 0..s.fields.len() as u16 {
        let info = &map.fields[f as usize];
        if info.is_sea() || info.colour == Some(Colour::Grey) {
            continue;
        }
        let want = if s.fields[f as usize].settlement.is_none() {
            Building::Village
        } else if s.fields[f as usize].settlement.is_some_and(|x| x.owner == seat && !x.fort) {
            Building::Fortification
        } else {
            continue;
        };
        let price = crate::construction::price(s, seat, want) as i32;
        if gold < price {
            continue;
        }
        if crate::construction::can_start(s, seat, f, want).is_ok() {
            o.build.push(Build { field: f, building: want });
            gold -= price;
            break;
        }
    }
    // Buy a Light Infantry where there is room.
    if gold >= 3 {
        if let Some(f) = settlements(s, seat)
            .into_iter()
            .find(|&f| !foreign(s, f, seat) && units_of(s, f, seat) < unit_cap(s, f) as usize)
        {
            o.buy.push(Purchase { field: f, unit: UnitKind::LightInfantry, count: 1 });
            gold -= 2;
        }
    }
    if s.mode == crate::state::Mode::Basic && r.command == 0 && gold >= 4 {
        o.commanders = 1;
    }
    // Feeding: slaughter herds the grain cannot carry through winter.
    if s.season == Season::Winter {
        let mut herds: Vec<(u16, crate::state::Herd)> = Vec::new();
        for f in 0..s.fields.len() as u16 {
            for &(owner, h) in &s.fields[f as usize].herds {
                if owner == seat {
                    herds.push((f, h));
                }
            }
        }
        let fish: u32 = (0..s.fields.len())
            .filter(|&f| s.fields[f].shipyard.is_some_and(|y| y.owner == seat))
            .map(|f| s.fields[f].fish as u32)
            .sum();
        let mut supply = stock + fish / 2 + r.meat as u32;
        let cap = fed_herd_cap(s, seat) as usize;
        herds.sort_by_key(|h| std::cmp::Reverse(t.commodities[h.1.idx()].meat[0]));
        let mut keep = herds.len();
        let mut i = 0;
        while i < herds.len() && (keep > cap || supply < need + keep as u32) {
            o.slaughter.push(herds[i]);
            supply += t.commodities[herds[i].1.idx()].meat[0] as u32;
            keep -= 1;
            i += 1;
        }
    }
    o
}

/// A bolder variant of the bot's orders, offered among the legal commands:
/// it also trades, upgrades, sells, hires commanders, holds a double
/// festival, loots everything it holds, moves herds and ships, retreats
/// weak garrisons and speeds up its constructions.
pub fn bold(s: &State, seat: Seat) -> Orders {
    use crate::state::{Good, HerdMove, Trade};
    let map = s.map();
    let mut o = plan(s, seat, true);
    o.festival = 2;
    o.commanders = if s.mode == crate::state::Mode::Basic { 2 } else { 0 };
    o.battle = Standing { escape_below: 0, reroll_pp: 12, target_back: true, raze: false };
    o.pay_special = s.realms[seat as usize].pp >= 40;
    for f in 0..s.fields.len() as u16 {
        let fi = &s.fields[f as usize];
        let info = &map.fields[f as usize];
        if fi.construction.is_some_and(|c| c.owner == seat) {
            o.accelerate.push(f);
            o.build_twice.push(f);
        }
        if fi.settlement.is_some_and(|x| x.owner == seat) {
            o.trade.push(Trade::Buy { field: f, good: Good::Grain, count: 1 });
            o.upgrade.push(Purchase { field: f, unit: UnitKind::Cavalry, count: 1 });
            o.upgrade.push(Purchase { field: f, unit: UnitKind::HeavyInfantry, count: 1 });
            o.buy.push(Purchase { field: f, unit: UnitKind::Mercenary, count: 1 });
            o.build.push(Build { field: f, building: Building::City });
            o.build.push(Build { field: f, building: Building::Dock });
        }
        if fi.shipyard.is_some_and(|y| y.owner == seat) {
            o.trade.push(Trade::Sell { field: f, good: Good::Fishes, count: 1 });
            o.upgrade.push(Purchase { field: f, unit: UnitKind::TransportShip, count: 1 });
            o.upgrade.push(Purchase { field: f, unit: UnitKind::WarShip, count: 1 });
            o.build.push(Build { field: f, building: Building::Port });
            for &n in &info.neighbours {
                if map.fields[n as usize].is_sea() && kind_of(s, f, seat, UnitKind::TransportShip) > 0 {
                    o.special.push(Move { from: f, to: n, unit: UnitKind::TransportShip, count: 1 });
                    break;
                }
            }
        }
        if fi.settlement.is_some_and(|x| x.owner != seat) && units_of(s, f, seat) > 0 {
            o.upgrade.push(Purchase { field: f, unit: UnitKind::SiegeMachine, count: 1 });
        }
        if !info.is_sea() && units_of(s, f, seat) > 0 && !fi.looted && !o.loot.contains(&f) {
            o.loot.push(f);
        }
        for &(owner, h) in &fi.herds {
            if owner != seat {
                continue;
            }
            if let Some(&n) =
                info.neighbours.iter().find(|&&n| controls(s, seat, n) && !map.fields[n as usize].is_sea())
            {
                o.herds.push(HerdMove { from: f, to: n, herd: h });
            }
            if s.season == Season::Autumn {
                o.trade.push(Trade::Sell { field: f, good: Good::Herd(h), count: 1 });
            }
            break;
        }
        for &k in &[UnitKind::LightInfantry, UnitKind::Cavalry, UnitKind::WarShip] {
            let n = kind_of(s, f, seat, k);
            if n == 0 {
                continue;
            }
            if let Some(&to) =
                info.neighbours.iter().find(|&&n| s.fields[n as usize].settlement.is_some_and(|x| x.owner == seat))
            {
                if foreign(s, f, seat) || k != UnitKind::LightInfantry {
                    o.retreats.push(Move { from: f, to, unit: k, count: n as u8 });
                }
            }
            if k == UnitKind::Cavalry {
                if let Some(&to) = info.neighbours.iter().find(|&&n| !map.fields[n as usize].is_sea()) {
                    o.special.push(Move { from: f, to, unit: k, count: n as u8 });
                }
            }
        }
        if s.season == Season::Winter && fi.units.iter().any(|u| u.owner == seat && u.kind == UnitKind::Cavalry) {
            o.sell.push(Purchase { field: f, unit: UnitKind::Cavalry, count: 1 });
        }
    }
    o
}
