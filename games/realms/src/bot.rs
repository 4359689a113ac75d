//! A sensible realm, also the fallback for a realm that misses its
//! deadline ([`campaign`]): it sows what its stores can hold, keeps grain,
//! fish and meat for the winter's feeding and gold for the salaries, buys
//! only the units it can feed and pay, expands its control, marches on
//! weak neighbours, besieges their settlements (with Siege Machines against
//! a fortification) and loots where it gains prestige. [`plan`] and
//! [`bold`] are simpler variants offered among the legal commands.

use runestone_engine::Seat;

use crate::control::{
    connected, controls, fed_herd_cap, foreign, grain_stock, kind_of, settlements, unit_cap, units_of,
};
use crate::data::{tables, Colour};
use crate::moves;
use crate::state::{Build, Building, Move, Orders, Purchase, Season, Standing, State, Step, UnitKind};

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

/// The bot's orders, also the fallback of a realm that misses its deadline:
/// see [`campaign`].
pub fn orders(s: &State, seat: Seat) -> Orders {
    campaign(s, seat)
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
    let dist = if march { distance_to_targets(s, seat) } else { Vec::new() };
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
        let raid = crate::control::has(s, seat, crate::data::Ability::LootAbroad)
            && !map.in_homeland(f, &r.faction)
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
    let recruits = !crate::control::has(s, seat, crate::data::Ability::NoLiRecruitment);
    if s.season == Season::Autumn && recruits {
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
    if crate::season::basic(s) && r.command == 0 && gold >= 4 {
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
    o.commanders = if crate::season::basic(s) { 2 } else { 0 };
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

/// Grain, fishes (2 a food) and meat the realm has for the next feeding,
/// and the crops still on its fields (before the harvest).
fn food_supply(s: &State, seat: Seat) -> u32 {
    let conn = connected(s, seat);
    let fish: u32 = (0..s.fields.len())
        .filter(|&f| s.fields[f].shipyard.is_some_and(|y| y.owner == seat) && conn[f])
        .map(|f| s.fields[f].fish as u32)
        .sum();
    let crops: u32 = s
        .fields
        .iter()
        .filter(|f| f.sown.is_some_and(|x| x.0 == seat))
        .map(|f| f.crop as u32 + if s.season == Season::Spring { 2 } else { 0 })
        .sum();
    grain_stock(s, seat, &conn) + fish / 2 + s.realms[seat as usize].meat as u32 + crops
}

/// Gold the winter's salaries will cost (units, settlements, commanders).
fn upkeep(s: &State, seat: Seat) -> i32 {
    let t = tables();
    let units: i32 = s
        .fields
        .iter()
        .flat_map(|f| f.units.iter())
        .filter(|u| u.owner == seat)
        .map(|u| t.unit(u.kind).salary as i32)
        .sum();
    let towns: i32 = settlements(s, seat)
        .iter()
        .map(|&f| if s.fields[f as usize].settlement.is_some_and(|x| x.city) { 2 } else { 1 })
        .sum();
    let command =
        if crate::season::basic(s) { t.command[s.realms[seat as usize].command as usize].salary as i32 } else { 0 };
    units + towns + command
}

/// Land steps from each field to the nearest field with a foreign
/// settlement, through land fields in play (not across the black line).
fn distance_to_targets(s: &State, seat: Seat) -> Vec<u32> {
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
            let ok = !map.fields[n as usize].is_sea() && !map.blocked(f, n) && map.in_play(n, s.players);
            if ok && dist[n as usize] == u32::MAX {
                dist[n as usize] = dist[f as usize] + 1;
                queue.push_back(n);
            }
        }
    }
    dist
}

/// The bot's campaign for one round: feed, pay, sow, build, recruit, march,
/// besiege and loot.
pub fn campaign(s: &State, seat: Seat) -> Orders {
    let t = tables();
    let map = s.map();
    let r = &s.realms[seat as usize];
    let conn = connected(s, seat);
    let basic = crate::season::basic(s);
    let mut o = Orders {
        battle: Standing {
            escape_below: 30,
            reroll_pp: if r.pp >= 30 { 8 } else { 0 },
            target_back: false,
            raze: true,
        },
        festival: 1,
        ..Orders::default()
    };
    let stock = grain_stock(s, seat, &conn);
    let need = food_need(s, seat);
    let mut gold = r.gold as i32 - upkeep(s, seat);
    // Room for more units: grain beyond the need and next spring's seed
    // (meat feeds a winter but sows nothing), gold beyond the salaries.
    let grain = food_supply(s, seat) as i32 - r.meat as i32;
    let mut room = (grain - need as i32 - 6).min(gold / 3);

    // Moves: march the spare units of every field towards the nearest
    // foreign settlement, taking it when the garrison is weak; one unit
    // stays on each field as a link of the chain home.
    let dist = distance_to_targets(s, seat);
    let mut moves: Vec<Move> = Vec::new();
    let mut arriving = vec![0usize; s.fields.len()];
    for f in 0..s.fields.len() as u16 {
        let fi = &s.fields[f as usize];
        if map.fields[f as usize].is_sea() || foreign(s, f, seat) || !conn[f as usize] {
            continue;
        }
        if fi.construction.is_some_and(|c| c.owner == seat) {
            continue;
        }
        let li = kind_of(s, f, seat, UnitKind::LightInfantry);
        let keep = if fi.settlement.is_some_and(|x| x.owner == seat) { 1 } else { usize::from(li > 1) };
        let spare = li.saturating_sub(keep);
        if spare == 0 {
            continue;
        }
        let nb = &map.fields[f as usize].neighbours;
        // A foreign settlement next door: take it if its garrison is weak.
        let target = nb.iter().copied().filter(|&n| !map.blocked(f, n) && map.in_play(n, s.players)).find(|&n| {
            let Some(st) = s.fields[n as usize].settlement.filter(|x| x.owner != seat) else { return false };
            let enemies = s.fields[n as usize].units.iter().filter(|u| u.owner != seat).count();
            let level = crate::control::lf(s, n) as usize;
            let breach = if enemies > 0 && s.from_version(3) { 10 * level } else { level };
            st.owner != seat && spare > 2 * enemies && spare >= breach.max(1)
        });
        let toward = nb
            .iter()
            .copied()
            .filter(|&n| {
                dist[n as usize] < dist[f as usize]
                    && !map.fields[n as usize].is_sea()
                    && !map.blocked(f, n)
                    && s.fields[n as usize].settlement.is_none()
                    && s.fields[n as usize].units.iter().filter(|u| u.owner != seat).count() < spare
            })
            .min_by_key(|&n| dist[n as usize]);
        // A lone unit spreads to a free field, the one nearest the foe first
        // (rules version 3), so realms far apart still meet.
        let free = |&n: &u16| {
            !map.fields[n as usize].is_sea()
                && !controls(s, seat, n)
                && !foreign(s, n, seat)
                && s.fields[n as usize].settlement.is_none()
                && map.in_play(n, s.players)
                && arriving[n as usize] == 0
        };
        let spread = if s.from_version(3) {
            nb.iter().copied().filter(free).min_by_key(|&n| dist[n as usize])
        } else {
            nb.iter().copied().find(free)
        };
        let (to, count) = if let Some(n) = target {
            (n, spare)
        } else if let Some(n) = toward.filter(|_| spare >= 2 || dist[f as usize] <= 3) {
            (n, spare)
        } else if let Some(n) = spread {
            (n, 1)
        } else {
            continue;
        };
        let m = Move { from: f, to, unit: UnitKind::LightInfantry, count: count as u8 };
        if moves::check(s, seat, &m, Step::Units, false).is_ok() {
            arriving[to as usize] += count;
            moves.push(m);
        }
    }
    o.moves = moves;
    // Looting: fields with a foreign settlement the realm's units encircle
    // (+4 PP), Viking raids outside their homeland (+4 PP), and foreign
    // herds to steal when the prestige allows.
    for f in 0..s.fields.len() as u16 {
        let fi = &s.fields[f as usize];
        if map.fields[f as usize].is_sea() || fi.looted || units_of(s, f, seat) == 0 || foreign(s, f, seat) {
            continue;
        }
        if fi.settlement.is_some_and(|x| x.owner == seat) {
            continue;
        }
        let rival = fi.settlement.is_some_and(|x| x.owner != seat);
        let raid = crate::control::has(s, seat, crate::data::Ability::LootAbroad) && !map.in_homeland(f, &r.faction);
        let herds = fi.herds.iter().any(|h| h.0 != seat) && r.pp >= 20;
        if rival || raid || herds {
            o.loot.push(f);
        }
        // A fortified settlement the realm encircles: Siege Machines break its shields.
        if rival && crate::control::lf(s, f) > 0 && crate::control::encircled(s, f) && gold >= 2 {
            let machines = kind_of(s, f, seat, UnitKind::SiegeMachine) as u32;
            let need = crate::battle::siege_need(crate::control::lf(s, f) as u32, machines);
            if need > 1 && kind_of(s, f, seat, UnitKind::LightInfantry) > 1 {
                o.upgrade.push(Purchase { field: f, unit: UnitKind::SiegeMachine, count: 1 });
                gold -= 2;
            }
        }
    }
    // Sowing in spring: the best free fields, as much as the stores will
    // hold after the harvest, keeping grain for the feeding.
    if s.season == Season::Spring {
        let cap: u32 = settlements(s, seat).iter().map(|&f| crate::control::grain_cap(s, f) as u32).sum();
        let yield_of = |f: u16| {
            let c = map.fields[f as usize].colour.map(|c| t.colour[c.idx()].grain as u32).unwrap_or(0);
            if s.from_version(3) {
                c
            } else {
                c.saturating_sub(1)
            }
        };
        let mut fields: Vec<u16> = (0..s.fields.len() as u16)
            .filter(|&f| {
                let info = &map.fields[f as usize];
                let fi = &s.fields[f as usize];
                !info.is_sea()
                    && info.colour != Some(Colour::Grey)
                    && fi.herds.is_empty()
                    && !fi.looted
                    && fi.sown.is_none()
                    && conn[f as usize]
                    && controls(s, seat, f)
                    && yield_of(f) > 0
            })
            .collect();
        fields.sort_by_key(|&f| (std::cmp::Reverse(yield_of(f)), f));
        let mut left = stock;
        let mut expected = stock;
        for f in fields {
            if left == 0 || expected >= cap {
                break;
            }
            o.sow.push(f);
            left -= 1;
            expected += yield_of(f);
        }
    }
    // Recruitment in autumn, within the room.
    if s.season == Season::Autumn && !crate::control::has(s, seat, crate::data::Ability::NoLiRecruitment) {
        for f in 0..s.fields.len() as u16 {
            if room < 1 || gold < 1 || o.recruit.len() >= 2 {
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
            gold -= 2;
            room -= 1;
        }
    }
    // Construction: a village where two Light Infantry stand on a free
    // field, else a fortification, when the gold allows.
    for f in 0..s.fields.len() as u16 {
        let info = &map.fields[f as usize];
        if info.is_sea() || info.colour == Some(Colour::Grey) || !conn[f as usize] {
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
        if gold < price + 2 {
            continue;
        }
        if crate::construction::can_start(s, seat, f, want).is_ok() {
            o.build.push(Build { field: f, building: want });
            gold -= price;
            break;
        }
    }
    // Buy Light Infantry where there is room to house, feed and pay them,
    // nearest the front first.
    let mut homes: Vec<u16> = settlements(s, seat)
        .into_iter()
        .filter(|&f| !foreign(s, f, seat) && units_of(s, f, seat) < unit_cap(s, f) as usize)
        .collect();
    homes.sort_by_key(|&f| (dist[f as usize], f));
    for f in homes {
        if room < 1 || gold < 2 {
            break;
        }
        o.buy.push(Purchase { field: f, unit: UnitKind::LightInfantry, count: 1 });
        gold -= 2;
        room -= 1;
    }
    if basic && r.command == 0 && gold >= 6 && s.season == Season::Autumn {
        o.commanders = 1;
    }
    if s.season == Season::Winter {
        winter(s, seat, &mut o, gold);
    }
    o
}

/// Winter: a festival when grain is plenty, grain bought for the feeding,
/// herds slaughtered that the stores cannot feed, and units sold (for
/// nothing) that neither food nor gold can keep.
fn winter(s: &State, seat: Seat, o: &mut Orders, mut gold: i32) {
    use crate::state::{Good, Herd, Trade};
    let t = tables();
    let conn = connected(s, seat);
    let stock = grain_stock(s, seat, &conn) as i32;
    let need = food_need(s, seat) as i32;
    let fish: i32 = (0..s.fields.len())
        .filter(|&f| s.fields[f].shipyard.is_some_and(|y| y.owner == seat) && conn[f])
        .map(|f| s.fields[f].fish as i32)
        .sum();
    let mut supply = stock + fish / 2 + s.realms[seat as usize].meat as i32;
    // Herds: keep those the stores can feed after the people, slaughter the rest.
    let mut herds: Vec<(u16, Herd)> = Vec::new();
    for f in 0..s.fields.len() as u16 {
        for &(owner, h) in &s.fields[f as usize].herds {
            if owner == seat {
                herds.push((f, h));
            }
        }
    }
    herds.sort_by_key(|h| std::cmp::Reverse(t.commodities[h.1.idx()].meat[0]));
    let cap = fed_herd_cap(s, seat) as usize;
    // Herds eat grain before the people; keep only those the grain feeds
    // with the people fed and seed left for the spring.
    let seed = 4;
    let mut keep = herds.len();
    let mut i = 0;
    while i < herds.len() && (keep > cap || stock < need + seed + keep as i32) {
        o.slaughter.push(herds[i]);
        supply += t.commodities[herds[i].1.idx()].meat[0] as i32;
        keep -= 1;
        i += 1;
    }
    // Grain bought into settlements with room, while food is short and gold left.
    for f in settlements(s, seat) {
        if supply >= need + keep as i32 || gold < 2 || foreign(s, f, seat) {
            continue;
        }
        let room = crate::control::grain_cap(s, f) as i32 - s.fields[f as usize].grain as i32;
        let n = room.min(gold / 2).min(need + keep as i32 - supply);
        if n > 0 {
            o.trade.push(Trade::Buy { field: f, good: Good::Grain, count: n as u8 });
            gold -= 2 * n;
            supply += n;
        }
    }
    // Gold for the salaries, paid in this round's rear trade before the
    // feeding: herds beyond those kept are sold (without a port, for their
    // meat) and the meat sold, 1 gold each.
    let port = crate::control::has_port(s, seat);
    let mut meat_for_sale = 0i32;
    let market = settlements(s, seat).into_iter().find(|&f| !foreign(s, f, seat));
    if gold < 0 {
        if let Some(m) = market {
            let mut sold = Vec::new();
            for &(f, h) in o.slaughter.iter() {
                if gold + meat_for_sale >= 0 || foreign(s, f, seat) {
                    break;
                }
                let c = &t.commodities[h.idx()];
                let (gain, meat) =
                    if port { (c.port_sale_halves.unwrap_or(0) as i32 / 2, 0) } else { (0, c.meat[0] as i32) };
                supply -= c.meat[0] as i32 - meat;
                o.trade.push(Trade::Sell { field: f, good: Good::Herd(h), count: 1 });
                gold += gain;
                meat_for_sale += meat;
                sold.push((f, h));
            }
            o.slaughter.retain(|x| !sold.contains(x));
            let meat = meat_for_sale.min(-gold).max(0);
            if meat > 0 {
                o.trade.push(Trade::Sell { field: m, good: Good::Meat, count: meat as u8 });
                gold += meat;
                supply -= meat;
            }
        }
    }
    // A transport ship at its dock with nothing to carry is sold (2 gold, 1 less salary).
    if gold < 0 {
        for f in 0..s.fields.len() as u16 {
            if gold >= 0 {
                break;
            }
            let yard = s.fields[f as usize].shipyard.is_some_and(|y| y.owner == seat);
            if yard && kind_of(s, f, seat, UnitKind::TransportShip) > 0 {
                o.sell.push(Purchase { field: f, unit: UnitKind::TransportShip, count: 1 });
                gold += 3;
                supply += 1;
            }
        }
    }
    // Units neither fed nor paid are sold at a settlement for nothing,
    // before the salaries; the last unit of a settlement stays.
    let mut short = (need - supply).max(0).max(need + seed - stock - 2 * fish.min(2)).max(-gold);
    if short > 0 {
        for f in settlements(s, seat) {
            let li = kind_of(s, f, seat, UnitKind::LightInfantry) as i32;
            let building = s.fields[f as usize].construction.is_some_and(|c| c.owner == seat);
            let n = (li - 1).min(short);
            if n > 0 && !building {
                o.sell.push(Purchase { field: f, unit: UnitKind::LightInfantry, count: n as u8 });
                short -= n;
            }
        }
    }
    if stock > need + seed + keep as i32 + 2 * settlements(s, seat).len() as i32 {
        o.festival = 2;
    }
}
