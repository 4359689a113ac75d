//! REAR (2) TRADE, SALARIES: "You can buy and sell commodities. Buy and
//! upgrade units. Buy materials for construction and access construction.
//! ... Once / twice per year also salaries." With "REAR TRADE UNITS",
//! "REAR TRADE COMMODITIES", "STORAGE CAPACITIES AND LIMITS OF BUILDINGS"
//! (purchase and upgrade per settlement), "LEVEL OF COMMAND" and
//! "SALARIES".

use runestone_engine::Seat;

use crate::control::{connected, encircled, fish_cap, grain_cap, has_port, kind_of, unit_cap, units_of};
use crate::data::tables;
use crate::season::basic;
use crate::setup::unit;
use crate::state::{Building, Construction, Good, Herd, Orders, Purchase, Season, State, Trade, UnitKind};

fn home(s: &State, seat: Seat) -> String {
    s.realms[seat as usize].home.clone()
}

fn spend(s: &mut State, seat: Seat, gold: u8) -> bool {
    let r = &mut s.realms[seat as usize];
    if r.gold >= gold {
        r.gold -= gold;
        true
    } else {
        false
    }
}

pub fn rear_trade(s: &mut State, rep: &mut Vec<String>) {
    // Recruits become standard units in REAR-Trade.
    for f in &mut s.fields {
        for u in &mut f.units {
            u.recruit = false;
        }
    }
    for seat in 0..s.realms.len() as Seat {
        let Some(o) = s.realms[seat as usize].orders.clone() else { continue };
        commanders(s, seat, o.commanders, rep);
        for &f in &o.cancel {
            cancel(s, seat, f, rep);
        }
        for b in &o.build {
            match crate::construction::can_start(s, seat, b.field, b.building) {
                Ok(()) => {
                    let p = crate::construction::price(s, seat, b.building);
                    s.realms[seat as usize].gold -= p;
                    s.fields[b.field as usize].construction =
                        Some(Construction { owner: seat, building: b.building, progress: 0 });
                    rep.push(format!("{} starts a {} for {p} gold", home(s, seat), b.building.name()));
                }
                Err(e) => rep.push(format!("{}: construction not started: {e}", home(s, seat))),
            }
        }
        for tr in &o.trade {
            if let Err(e) = trade(s, seat, tr) {
                rep.push(format!("{}: trade not made: {e}", home(s, seat)));
            }
        }
        units(s, seat, &o, rep);
    }
    // "Standard salaries occurred in trade phase once / twice in year":
    // once in FAST and BASIC (winter), twice in ORIGINAL (summer and winter).
    let twice = crate::season::original(s) && s.season == Season::Summer;
    if s.season == Season::Winter || twice {
        for seat in 0..s.realms.len() as Seat {
            if !s.realms[seat as usize].out {
                salaries(s, seat, rep);
            }
        }
    }
}

/// "Building cancellation outside Combat +1": in REAR-Trade a realm may
/// cancel its own construction; the work done is lost and 1 gold comes back
/// (up to the gold limit).
fn cancel(s: &mut State, seat: Seat, f: u16, rep: &mut Vec<String>) {
    let map = s.map();
    match s.fields.get(f as usize).and_then(|x| x.construction) {
        Some(c) if c.owner == seat => {
            s.fields[f as usize].construction = None;
            s.add_gold(seat, 1);
            rep.push(format!(
                "{} cancels the {} on {} and takes 1 gold back",
                home(s, seat),
                c.building.name(),
                map.name_of(f)
            ));
        }
        _ => rep.push(format!(
            "{}: construction not cancelled: you have no construction on {}",
            home(s, seat),
            map.name_of(f)
        )),
    }
}

fn commanders(s: &mut State, seat: Seat, level: u8, rep: &mut Vec<String>) {
    if !basic(s) || level == 0 {
        return;
    }
    let t = tables();
    let now = s.realms[seat as usize].command;
    if level as usize >= t.command.len() || level <= now {
        return;
    }
    let cost = t.command[level as usize].purchase - t.command[now as usize].purchase;
    if spend(s, seat, cost) {
        s.realms[seat as usize].command = level;
        rep.push(format!("{} hires {} commanders for {cost} gold", home(s, seat), t.command[level as usize].id));
    }
}

/// Buy or sell one commodity. Herds and grain are bought into a
/// settlement; without a port herds can only be slaughtered (sale "+3m").
pub fn trade(s: &mut State, seat: Seat, tr: &Trade) -> Result<(), String> {
    let t = tables();
    let (field, good, count, buying) = match *tr {
        Trade::Buy { field, good, count } => (field, good, count, true),
        Trade::Sell { field, good, count } => (field, good, count, false),
    };
    // Almoravids: "Can trade with horses even without a port."
    let port = has_port(s, seat)
        || (good == Good::Herd(Herd::Horses) && crate::control::has(s, seat, crate::data::Ability::HorsesWithoutPort));
    if field as usize >= s.fields.len() || count == 0 {
        return Err("a trade needs a field of the map and a count".into());
    }
    let Some(row) = good.idx() else { return sell_meat(s, seat, field, count, buying) };
    let d = &t.commodities[row];
    let fi = &s.fields[field as usize];
    let own_settlement = fi.settlement.is_some_and(|x| x.owner == seat);
    if buying {
        let price = if port { d.port_buy } else { d.buy };
        let Some(price) = price else { return Err(format!("{} can only be bought with a port", name(good))) };
        let total = price as u32 * count as u32;
        match good {
            Good::Grain if !own_settlement => return Err("grain is stored in your settlement".into()),
            Good::Grain if fi.grain as u32 + count as u32 > grain_cap(s, field) as u32 => {
                return Err("the settlement has no room for that much grain".into())
            }
            Good::Fishes if fi.shipyard.is_none_or(|y| y.owner != seat) => {
                return Err("fishes are stored at your shipyard".into())
            }
            Good::Fishes if fi.fish as u32 + count as u32 > fish_cap(s, field) as u32 => {
                return Err("the shipyard has no room for that many fishes".into())
            }
            Good::Herd(_) if !own_settlement => return Err("bought herds arrive at your settlement".into()),
            _ => {}
        }
        if total > s.realms[seat as usize].gold as u32 {
            return Err(format!("that costs {total} gold"));
        }
        s.realms[seat as usize].gold -= total as u8;
        let fi = &mut s.fields[field as usize];
        match good {
            Good::Grain => fi.grain += count,
            Good::Fishes => fi.fish += count,
            Good::Herd(h) => fi.herds.extend(std::iter::repeat_n((seat, h), count as usize)),
            Good::Meat => {}
        }
        return Ok(());
    }
    let halves = if port { d.port_sale_halves } else { d.sale_halves };
    match good {
        Good::Grain if !own_settlement || fi.grain < count => return Err("not that much grain is stored there".into()),
        Good::Fishes if fi.shipyard.is_none_or(|y| y.owner != seat) || fi.fish < count => {
            return Err("not that many fishes are stored there".into())
        }
        Good::Herd(h) if fi.herds.iter().filter(|x| **x == (seat, h)).count() < count as usize => {
            return Err(format!("not that many herds of {} of yours are there", h.name()))
        }
        _ => {}
    }
    let fi = &mut s.fields[field as usize];
    match good {
        Good::Grain => fi.grain -= count,
        Good::Fishes => fi.fish -= count,
        Good::Meat => {}
        Good::Herd(h) => {
            for _ in 0..count {
                if let Some(i) = fi.herds.iter().position(|x| *x == (seat, h)) {
                    fi.herds.remove(i);
                }
            }
        }
    }
    match (halves, good) {
        (Some(hv), _) => s.add_gold(seat, hv as u32 * count as u32 / 2),
        (None, Good::Herd(_)) => {
            let meat = d.meat[0] as u32 * count as u32;
            let r = &mut s.realms[seat as usize];
            r.meat = (r.meat as u32 + meat).min(255) as u8;
        }
        _ => {}
    }
    Ok(())
}

fn name(g: Good) -> &'static str {
    match g {
        Good::Herd(h) => h.name(),
        Good::Grain => "grain",
        Good::Fishes => "fishes",
        Good::Meat => "meat",
    }
}

/// "Excess meat can be sold": meat from slaughter is sold at one of the
/// realm's settlements for 1 gold each (designed: the seasonal prices are
/// ORIGINAL's); it cannot be bought.
fn sell_meat(s: &mut State, seat: Seat, field: u16, count: u8, buying: bool) -> Result<(), String> {
    if buying {
        return Err("meat cannot be bought, only sold".into());
    }
    if s.fields[field as usize].settlement.is_none_or(|x| x.owner != seat) {
        return Err("meat is sold at your settlement".into());
    }
    let r = &mut s.realms[seat as usize];
    if r.meat < count {
        return Err(format!("you have only {} meat", r.meat));
    }
    r.meat -= count;
    // 1 gold each, as the meat left after the feeding; in ORIGINAL "in
    // spring, summer +1/2 in autumn, winter +1" (half a gold each, rounded
    // down per trade).
    let warm = matches!(s.season, Season::Spring | Season::Summer);
    let gold = if crate::season::original(s) && warm { count as u32 / 2 } else { count as u32 };
    s.add_gold(seat, gold);
    Ok(())
}

/// Buys, upgrades and sales of units.
fn units(s: &mut State, seat: Seat, o: &Orders, rep: &mut Vec<String>) {
    let t = tables();
    let map = s.map();
    let mut bought: Vec<(u16, u32)> = Vec::new();
    let mut doubled: Vec<u16> = Vec::new();
    for p in &o.buy {
        for _ in 0..p.count {
            match buy_one(s, seat, p, &mut bought, &mut doubled) {
                Ok(()) => rep.push(format!("{} buys {} on {}", home(s, seat), p.unit.name(), map.name_of(p.field))),
                Err(e) => {
                    rep.push(format!("{}: {} not bought: {e}", home(s, seat), p.unit.name()));
                    break;
                }
            }
        }
    }
    let mut upgraded: Vec<(u16, u32)> = Vec::new();
    for p in &o.upgrade {
        for _ in 0..p.count {
            match upgrade_one(s, seat, p, &mut upgraded) {
                Ok(()) => {
                    rep.push(format!("{} upgrades to {} on {}", home(s, seat), p.unit.name(), map.name_of(p.field)))
                }
                Err(e) => {
                    rep.push(format!("{}: no upgrade to {}: {e}", home(s, seat), p.unit.name()));
                    break;
                }
            }
        }
    }
    for p in &o.sell {
        for _ in 0..p.count {
            if p.field as usize >= s.fields.len() || kind_of(s, p.field, seat, p.unit) == 0 {
                rep.push(format!("{}: no {} to sell there", home(s, seat), p.unit.name()));
                break;
            }
            let d = t.unit(p.unit);
            let in_location = location_ok(s, seat, p.field, p.unit);
            let slavs = p.unit == UnitKind::LightInfantry && crate::control::has(s, seat, crate::data::Ability::SellLi);
            // Version 3: ships degrade out of location only where they
            // land ("Landing +1", "Landing +2"): on a land field.
            let at_sea = s.map().fields[p.field as usize].is_sea();
            if !in_location && p.unit.is_ship() && at_sea && s.from_version(3) {
                rep.push(format!(
                    "{}: {} on {} are degraded only where they land, on a land field",
                    home(s, seat),
                    p.unit.name(),
                    map.name_of(p.field)
                ));
                break;
            }
            let (gold, degrade) = if in_location {
                (d.sell.unwrap_or(0) + u8::from(slavs), false)
            } else {
                match d.degrade_out {
                    Some(g) => (g, true),
                    None => {
                        rep.push(format!("{}: {} cannot be sold out of location", home(s, seat), p.unit.name()));
                        break;
                    }
                }
            };
            let i = s.fields[p.field as usize].units.iter().position(|u| u.owner == seat && u.kind == p.unit);
            if let Some(i) = i {
                if degrade {
                    s.fields[p.field as usize].units[i].kind = UnitKind::LightInfantry;
                } else {
                    s.fields[p.field as usize].units.remove(i);
                }
                s.add_gold(seat, gold as u32);
            }
        }
    }
}

/// Whether a unit of `kind` is "in location" at `f`.
fn location_ok(s: &State, seat: Seat, f: u16, kind: UnitKind) -> bool {
    let fi = &s.fields[f as usize];
    let own = fi.settlement.filter(|x| x.owner == seat);
    match tables().unit(kind).location.as_str() {
        "settlement" => own.is_some(),
        "city" => own.is_some_and(|x| x.city),
        "shipyard" => fi.shipyard.is_some_and(|y| y.owner == seat),
        "port" => fi.shipyard.is_some_and(|y| y.owner == seat && y.port),
        _ => false,
    }
}

/// How many units a settlement may sell or upgrade in one round.
fn settlement_limit(s: &State, f: u16, upgrade: bool) -> u32 {
    let t = tables();
    match s.fields[f as usize].settlement {
        None => 0,
        Some(st) => {
            let b = t.building(if st.city { Building::City } else { Building::Village });
            (if upgrade { b.upgrade } else { b.purchase }) as u32
        }
    }
}

fn buy_one(
    s: &mut State,
    seat: Seat,
    p: &Purchase,
    bought: &mut Vec<(u16, u32)>,
    doubled: &mut Vec<u16>,
) -> Result<(), String> {
    let t = tables();
    if p.field as usize >= s.fields.len() {
        return Err("no such field".into());
    }
    let f = p.field;
    let d = t.unit(p.unit);
    if p.unit == UnitKind::Corsair {
        let map = s.map();
        let ok = map.fields[f as usize].is_sea()
            && map.fields[f as usize]
                .neighbours
                .iter()
                .any(|&n| s.fields[n as usize].shipyard.is_some_and(|y| y.owner == seat));
        if !ok {
            return Err("Corsairs are placed on an SGF next to your dock".into());
        }
        let pp = -t.prestige.corsairs;
        if s.realms[seat as usize].pp < pp {
            return Err(format!("Corsairs cost {pp} PP"));
        }
        s.add_pp(seat, t.prestige.corsairs);
        s.fields[f as usize].units.push(unit(seat, UnitKind::Corsair));
        return Ok(());
    }
    let Some(mut price) = d.buy else { return Err(format!("{} are not bought, only upgraded", p.unit.name())) };
    let own = s.fields[f as usize].settlement.is_some_and(|x| x.owner == seat);
    if !own || crate::control::foreign(s, f, seat) {
        return Err("units are bought at your own free settlement".into());
    }
    if units_of(s, f, seat) >= unit_cap(s, f) as usize {
        return Err(format!("the settlement houses at most {} units", unit_cap(s, f)));
    }
    let limit = settlement_limit(s, f, false);
    let n = bought.iter().find(|b| b.0 == f).map(|b| b.1).unwrap_or(0);
    let mut pp = 0;
    if p.unit == UnitKind::LightInfantry && n >= limit {
        if n >= 2 * limit {
            return Err(format!("at most {} units a round here, twice that for 2 PP", limit));
        }
        if !doubled.contains(&f) {
            pp = -t.prestige.double_purchase;
        }
    }
    // "Mercenaries even for: -10 PP A -1" ("start bonus: even for -1 A -10
    // PP", for the factions allowed): taken when the realm holds the 10 PP.
    let cheap = crate::control::has(s, seat, crate::data::Ability::CheapMercenaries)
        && s.realms[seat as usize].pp >= pp - t.prestige.mercenaries;
    if p.unit == UnitKind::Mercenary && cheap {
        price = 1;
        pp -= t.prestige.mercenaries;
    } else if p.unit == UnitKind::Mercenary {
        pp += d.buy_pp.unwrap_or(0) as i32;
    }
    if s.realms[seat as usize].pp < pp || s.realms[seat as usize].gold < price {
        return Err(format!("that costs {price} gold and {pp} PP"));
    }
    s.realms[seat as usize].gold -= price;
    if pp > 0 {
        s.add_pp(seat, -pp);
        if p.unit == UnitKind::LightInfantry {
            doubled.push(f);
        }
    }
    if p.unit == UnitKind::LightInfantry {
        match bought.iter_mut().find(|b| b.0 == f) {
            Some(b) => b.1 += 1,
            None => bought.push((f, 1)),
        }
    }
    s.fields[f as usize].units.push(unit(seat, p.unit));
    Ok(())
}

fn upgrade_one(s: &mut State, seat: Seat, p: &Purchase, upgraded: &mut Vec<(u16, u32)>) -> Result<(), String> {
    let t = tables();
    if p.field as usize >= s.fields.len() {
        return Err("no such field".into());
    }
    let f = p.field;
    let d = t.unit(p.unit);
    let Some(mut price) = d.upgrade else {
        return Err(format!("{} are not upgraded from Light Infantry", p.unit.name()));
    };
    // Yamhad: "Ships are 1 gold cheaper."
    if p.unit.is_ship() && crate::control::has(s, seat, crate::data::Ability::CheaperShips) {
        price = price.saturating_sub(1);
    }
    if kind_of(s, f, seat, UnitKind::LightInfantry) == 0 {
        return Err("an upgrade needs a Light Infantry unit on the field".into());
    }
    let fi = &s.fields[f as usize];
    let mut horse = false;
    let ok = match p.unit {
        UnitKind::SiegeMachine => encircled(s, f) && fi.settlement.is_some_and(|x| x.owner != seat),
        UnitKind::Cavalry => {
            horse = fi.herds.contains(&(seat, Herd::Horses));
            if !horse {
                price = d.upgrade_without_horses.unwrap_or(price);
            }
            fi.settlement.is_some_and(|x| x.owner == seat)
        }
        UnitKind::HeavyInfantry => fi.settlement.is_some_and(|x| x.owner == seat && x.city),
        UnitKind::TransportShip | UnitKind::WarShip => {
            let port = p.unit == UnitKind::WarShip;
            let yard = fi.shipyard.is_some_and(|y| y.owner == seat && (y.port || !port));
            let ships = fi.units.iter().filter(|u| u.owner == seat && u.kind.is_ship()).count();
            yard && ships < t.building(Building::Dock).ships as usize
        }
        _ => false,
    };
    if !ok {
        return Err(format!("{} are made at: {} (with room for them)", p.unit.name(), d.location));
    }
    if p.unit != UnitKind::SiegeMachine {
        let limit = settlement_limit(s, f, true);
        let n = upgraded.iter().find(|b| b.0 == f).map(|b| b.1).unwrap_or(0);
        if n >= limit.max(1) {
            return Err(format!("at most {} upgrades a round here", limit.max(1)));
        }
    }
    if !spend(s, seat, price) {
        return Err(format!("the upgrade costs {price} gold"));
    }
    match upgraded.iter_mut().find(|b| b.0 == f) {
        Some(b) => b.1 += 1,
        None => upgraded.push((f, 1)),
    }
    if horse {
        let herds = &mut s.fields[f as usize].herds;
        if let Some(i) = herds.iter().position(|x| *x == (seat, Herd::Horses)) {
            herds.remove(i);
        }
    }
    if let Some(u) =
        s.fields[f as usize].units.iter_mut().find(|u| u.owner == seat && u.kind == UnitKind::LightInfantry)
    {
        u.kind = p.unit;
    }
    Ok(())
}

/// "SALARIES": -2 gold for each Cavalry, Mercenaries and CU city, -1 for
/// each other unit and CU village; double for encircled; commanders' pay.
/// "Units without connection to CUS are dissolve." Unpaid: commanders are
/// lost first, then units are dissolved (dearest first) until the rest can
/// be paid; what settlements still owe costs 1 PP per gold (designed).
pub fn salaries(s: &mut State, seat: Seat, rep: &mut Vec<String>) {
    let t = tables();
    let v3 = s.from_version(3);
    let mut dissolved = 0;
    if v3 {
        dissolved = crate::control::dissolve_unconnected(s, seat);
    } else {
        let conn = connected(s, seat);
        for f in 0..s.fields.len() {
            let before = s.fields[f].units.len();
            if !conn[f] {
                s.fields[f].units.retain(|u| u.owner != seat);
            }
            dissolved += before - s.fields[f].units.len();
        }
    }
    if dissolved > 0 {
        rep.push(format!("{}: {dissolved} units without connection to a settlement dissolve", home(s, seat)));
    }
    let mut unit_pay: Vec<(u16, u32)> = Vec::new();
    let mut settle_pay = 0u32;
    for f in 0..s.fields.len() as u16 {
        let enc = encircled(s, f);
        let fi = &s.fields[f as usize];
        for u in fi.units.iter().filter(|u| u.owner == seat) {
            unit_pay.push((f, t.unit(u.kind).salary as u32));
        }
        if let Some(st) = fi.settlement.filter(|x| x.owner == seat) {
            let base = if st.city { 2 } else { 1 };
            settle_pay += if enc { base * 2 } else { base };
        }
    }
    let command_pay = if basic(s) { t.command[s.realms[seat as usize].command as usize].salary as u32 } else { 0 };
    let gold = s.realms[seat as usize].gold as u32;
    let mut total = unit_pay.iter().map(|x| x.1).sum::<u32>() + settle_pay + command_pay;
    if total > gold && command_pay > 0 {
        s.realms[seat as usize].command = 0;
        total -= command_pay;
        rep.push(format!("{} cannot pay its commanders: again without commanders", home(s, seat)));
    }
    // Dismissed first: the dearest, then those at home in a settlement; builders last.
    unit_pay.sort_by_key(|&(f, pay)| {
        let fi = &s.fields[f as usize];
        let building = fi.construction.is_some_and(|c| c.owner == seat);
        let home = fi.settlement.is_some_and(|x| x.owner == seat);
        (std::cmp::Reverse(pay), building, !home, std::cmp::Reverse(f))
    });
    let mut k = 0;
    while total > gold && k < unit_pay.len() {
        let (f, pay) = unit_pay[k];
        if pay > 0 {
            let units = &mut s.fields[f as usize].units;
            let i = units.iter().rposition(|u| u.owner == seat && t.unit(u.kind).salary as u32 == pay);
            if let Some(i) = i {
                let u = units.remove(i);
                total -= pay;
                rep.push(format!("{}: unpaid {} dissolve", home(s, seat), u.kind.name()));
            }
        }
        k += 1;
    }
    // Version 3: units the dismissals cut off from every settlement
    // dissolve too, and are not paid.
    if v3 && k > 0 {
        let before: Vec<(u16, u32)> = pay_of(s, seat);
        let n = crate::control::dissolve_unconnected(s, seat);
        if n > 0 {
            let after: u32 = pay_of(s, seat).iter().map(|x| x.1).sum();
            total -= before.iter().map(|x| x.1).sum::<u32>() - after;
            rep.push(format!("{}: {n} units cut off from every settlement dissolve", home(s, seat)));
        }
    }
    let paid = total.min(gold);
    s.realms[seat as usize].gold -= paid as u8;
    let owed = total - paid;
    if owed > 0 {
        s.add_pp(seat, -(owed as i32));
        rep.push(format!("{} owes its settlements {owed} gold: -{owed} PP", home(s, seat)));
    }
    rep.push(format!("{} pays {paid} gold of salaries", home(s, seat)));
}

/// The salary of each of the realm's units, by field.
fn pay_of(s: &State, seat: Seat) -> Vec<(u16, u32)> {
    let t = tables();
    (0..s.fields.len() as u16)
        .flat_map(|f| {
            s.fields[f as usize]
                .units
                .iter()
                .filter(|u| u.owner == seat)
                .map(move |u| (f, t.unit(u.kind).salary as u32))
        })
        .collect()
}
