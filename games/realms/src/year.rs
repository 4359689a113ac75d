//! The year's steps: NEW YEAR, CALVES, SOWING; WEATHER (yield), YIELD,
//! TAXES; HARVEST, RECRUITMENT; FESTIVALS, WEATHER (WINTER); FEEDING with
//! transhumance, slaughter and meat. (SALARIES are paid in ⑨, see
//! [`crate::trade`].)

use runestone_engine::Seat;

use crate::control::{
    connected, controls, dissolve_unconnected, encircled, fed_herd_cap, grain_stock, has, pools, settlements,
    store_grain, take_grain, unit_cap, units_of,
};
use crate::data::{tables, Ability, Colour, Tables};
use crate::season::{basic, Dice};
use crate::setup::unit;
use crate::state::{Herd, State, UnitKind, Weather};

fn home(s: &State, seat: Seat) -> String {
    s.realms[seat as usize].home.clone()
}

/// Fields counted for taxes and festivals: controlled LGF, not looted,
/// connected to a CUS ("condition: connection to CU settlement Λ with
/// unit/settlement").
fn taxed_fields(s: &State, seat: Seat, conn: &[bool]) -> u32 {
    let map = s.map();
    (0..s.fields.len() as u16)
        .filter(|&f| {
            !map.fields[f as usize].is_sea() && conn[f as usize] && controls(s, seat, f) && !s.fields[f as usize].looted
        })
        .count() as u32
}

/// Gold (taxes) or PP (festivals) of the CUS: village +1, port +2, city +3,
/// A +1/2 for each LGF (rounded down).
pub fn income(s: &State, seat: Seat) -> u32 {
    let t = tables();
    let conn = connected(s, seat);
    let mut n = 0u32;
    for f in settlements(s, seat) {
        let fi = &s.fields[f as usize];
        if fi.looted || !conn[f as usize] {
            continue;
        }
        let st = fi.settlement.unwrap_or(crate::state::Settlement { owner: seat, city: false, fort: false });
        n += if st.city { t.buildings[1].tax } else { t.buildings[0].tax } as u32;
    }
    for f in 0..s.fields.len() {
        if s.fields[f].shipyard.is_some_and(|y| y.owner == seat && y.port) && conn[f] {
            // "Taxes, festivals from the port: +3 (instead of +2)."
            n += t.buildings[3].tax as u32 + u32::from(has(s, seat, Ability::PortPlusThree));
        }
    }
    n + taxed_fields(s, seat, &conn) / 2
}

/// New Year: VP for units eliminated last year (by their PP value), vassals
/// (none without diplomacy), prestige topped up to 7, calves, sowing.
pub fn new_year(s: &mut State, rep: &mut Vec<String>) {
    let t = tables();
    let map = s.map();
    for seat in 0..s.realms.len() as Seat {
        let r = &mut s.realms[seat as usize];
        let won = Tables::tier(&t.eliminated, r.killed_pp).vp;
        let lost = Tables::tier(&t.eliminated, r.lost_pp).vp;
        if won != 0 || lost != 0 {
            r.vp += won - lost;
            rep.push(format!("{}: {won:+} VP for units eliminated, {:+} VP for units lost", r.home, -lost));
        }
        r.killed_pp = 0;
        r.lost_pp = 0;
        if r.pp < t.start_prestige && !r.out {
            r.pp = t.start_prestige;
        }
        // Calves: for every two equal herds a new herd, placed by one of them.
        for h in Herd::ALL {
            let at: Vec<u16> = (0..s.fields.len() as u16)
                .flat_map(|f| {
                    let k = s.fields[f as usize].herds.iter().filter(|x| **x == (seat, h)).count();
                    std::iter::repeat_n(f, k)
                })
                .collect();
            for pair in 0..at.len() / 2 {
                s.fields[at[pair * 2] as usize].herds.push((seat, h));
            }
            if at.len() >= 2 {
                rep.push(format!("{}: {} new herds of {}", home(s, seat), at.len() / 2, h.name()));
            }
        }
        // Sowing.
        let Some(o) = s.realms[seat as usize].orders.clone() else { continue };
        let conn = connected(s, seat);
        let mut sown = 0;
        for &f in &o.sow {
            if f as usize >= s.fields.len() {
                continue;
            }
            let info = &map.fields[f as usize];
            let fi = &s.fields[f as usize];
            let ok = !info.is_sea()
                && info.colour != Some(Colour::Grey)
                && fi.herds.is_empty()
                && fi.sown.is_none()
                && conn[f as usize]
                && controls(s, seat, f);
            let need = 1 + u32::from(fi.looted);
            if !ok || grain_stock(s, seat, &conn) < need {
                rep.push(format!("{}: {} not sown", home(s, seat), map.name_of(f)));
                continue;
            }
            take_grain(s, seat, need, &conn);
            s.fields[f as usize].sown = Some((seat, 1));
            sown += 1;
        }
        if sown > 0 {
            rep.push(format!("{} sows {sown} fields", home(s, seat)));
        }
    }
}

/// The weather of a D6 roll for a climate: good, normal or bad.
pub fn weather(faces: [u8; 2], roll: u8) -> Weather {
    if roll <= faces[0] {
        Weather::Good
    } else if roll <= faces[1] {
        Weather::Normal
    } else {
        Weather::Bad
    }
}

/// Summer weather per sown LGF (BASIC; FAST is always normal), yield by
/// colour (3 yellow, 2 green, 1 brown/turquoise), then taxes.
pub fn weather_yield_taxes(s: &mut State, d: &mut Dice, rep: &mut Vec<String>) {
    let t = tables();
    let map = s.map();
    for f in 0..s.fields.len() {
        let Some((_, n)) = s.fields[f].sown else { continue };
        let info = &map.fields[f];
        let per = info.colour.map(|c| t.colour[c.idx()].grain).unwrap_or(0) as i32;
        let w = if basic(s) { weather(t.climate[info.climate].summer, d.d6()) } else { Weather::Normal };
        let weather = match w {
            Weather::Good => 1,
            Weather::Normal => 0,
            Weather::Bad => -1,
        };
        // Version 3: "Place grain tokens from the supply on each sown
        // grain": the sown grain stays, the colour's yield and the
        // weather's "1 extra / 1 less for every one sown" are placed on it.
        // Before: the colour's yield and the weather replaced the sown grain.
        let crop = if s.from_version(3) { (1 + per + weather) * n as i32 } else { (per + weather).max(0) * n as i32 };
        s.fields[f].crop = crop.max(0) as u8;
        s.fields[f].sown = s.fields[f].sown.map(|(o, _)| (o, 0));
    }
    for seat in 0..s.realms.len() as Seat {
        if s.realms[seat as usize].out {
            continue;
        }
        // Etruscans: "Each TAXES extra +3 gold."
        let gold = income(s, seat) + if has(s, seat, Ability::TaxesPlusThree) { 3 } else { 0 };
        s.add_gold(seat, gold);
        rep.push(format!("{} collects {gold} gold of taxes", home(s, seat)));
    }
}

/// Harvest grown grain from controlled LGF into linked CUS with room (the
/// rest is lost); recruit 1 Light Infantry on each ordered LGF for 1 gold.
pub fn harvest_recruitment(s: &mut State, rep: &mut Vec<String>) {
    let t = tables();
    let map = s.map();
    for f in 0..s.fields.len() {
        let Some((owner, _)) = s.fields[f].sown else { continue };
        let crop = s.fields[f].crop as u32;
        s.fields[f].sown = None;
        s.fields[f].crop = 0;
        if !controls(s, owner, f as u16) {
            rep.push(format!("{}: the grain on {} is lost", home(s, owner), map.name_of(f as u16)));
            continue;
        }
        let conn = connected(s, owner);
        let left = store_grain(s, owner, crop, &conn);
        rep.push(format!("{} harvests {} grain", home(s, owner), crop - left));
    }
    for seat in 0..s.realms.len() as Seat {
        let Some(o) = s.realms[seat as usize].orders.clone() else { continue };
        if !o.recruit.is_empty() && has(s, seat, Ability::NoLiRecruitment) {
            rep.push(format!("{}: its faction cannot recruit Light Infantry", home(s, seat)));
            continue;
        }
        let conn = connected(s, seat);
        let price = t.unit(UnitKind::LightInfantry).recruit.unwrap_or(1);
        let mut n = 0;
        for &f in &o.recruit {
            if f as usize >= s.fields.len() || map.fields[f as usize].is_sea() {
                continue;
            }
            let fi = &s.fields[f as usize];
            let full =
                fi.settlement.is_some_and(|x| x.owner == seat) && units_of(s, f, seat) >= unit_cap(s, f) as usize;
            if fi.looted || !conn[f as usize] || !controls(s, seat, f) || full || s.realms[seat as usize].gold < price {
                rep.push(format!("{}: no recruit on {}", home(s, seat), map.name_of(f)));
                continue;
            }
            s.realms[seat as usize].gold -= price;
            let mut u = unit(seat, UnitKind::LightInfantry);
            u.recruit = true;
            s.fields[f as usize].units.push(u);
            n += 1;
        }
        if n > 0 {
            rep.push(format!("{} recruits {n} Light Infantry", home(s, seat)));
        }
    }
}

/// Festivals (PP like taxes; double or triple for grain per settlement),
/// then the winter weather for climate region 1, region 2 and all seas.
pub fn festivals_winter(s: &mut State, d: &mut Dice, rep: &mut Vec<String>) {
    let t = tables();
    for seat in 0..s.realms.len() as Seat {
        if s.realms[seat as usize].out {
            continue;
        }
        let size = s.realms[seat as usize].orders.as_ref().map(|o| o.festival.clamp(1, 3)).unwrap_or(1);
        let conn = connected(s, seat);
        let mut mult = 1;
        if size > 1 {
            let cost: u32 = settlements(s, seat)
                .iter()
                .map(|&f| if s.fields[f as usize].settlement.is_some_and(|x| x.city) { 2 } else { 1 })
                .sum::<u32>()
                * (size as u32 - 1);
            if grain_stock(s, seat, &conn) >= cost {
                take_grain(s, seat, cost, &conn);
                mult = size as u32;
            }
        }
        let pp = income(s, seat) * mult;
        s.add_pp(seat, pp as i32);
        rep.push(format!("{} holds a festival: +{pp} PP", home(s, seat)));
    }
    if basic(s) {
        let regions = s.map().regions;
        let w1 = weather(t.climate[regions[0]].winter, d.d6());
        let w2 = weather(t.climate[regions[1]].winter, d.d6());
        let sea = if d.d6() <= t.sea_winter.good { Weather::Good } else { Weather::Bad };
        s.winter = [w1, w2, sea];
    } else {
        s.winter = [Weather::Normal; 3];
    }
    let [one, two] = s.map().regions.map(|c| tables().climate[c].id.as_str());
    rep.push(format!("winter weather: {one} {:?}, {two} {:?}, seas {:?}", s.winter[0], s.winter[1], s.winter[2]));
}

/// Whether a herd of `owner` on `f` needs no grain this winter: good
/// weather in its climate, or (before rules version 3) transhumance on a
/// yellow LGF in temperate climate. From version 3 transhumance is the
/// Huns' alone ("They use Transhumance (Feeding - red mode)"), and no
/// Vikings 800 AD realm is: "No need to feed herds in winter if on green
/// LGF (for subtropical climate) or on a yellow LGF (for temperate and
/// subtropical climate)".
pub(crate) fn needs_no_feed(s: &State, f: usize, owner: Seat) -> bool {
    let map = s.map();
    let info = &map.fields[f];
    let w = s.winter[map.region(info.climate)];
    if !s.from_version(3) {
        return w == Weather::Good || (info.colour == Some(Colour::Yellow) && info.climate <= 1);
    }
    let pasture = match info.colour {
        Some(Colour::Yellow) => info.climate <= 1,
        Some(Colour::Green) => info.climate == 0,
        _ => false,
    };
    w == Weather::Good || (pasture && has(s, owner, Ability::Transhumance))
}

/// FEEDING: slaughter as ordered; feed the herds with grain (at most the
/// fed herds the settlements hold) or cull them for meat; then feed units
/// and settlements with 1 grain, or 2 fishes, or 1 meat, or dissolve them;
/// unfed and encircled settlements surrender; excess meat is sold, 1 gold each.
pub fn feeding(s: &mut State, rep: &mut Vec<String>) {
    if s.from_version(3) {
        return feeding_by_pools(s, rep);
    }
    let t = tables();
    let map = s.map();
    for seat in 0..s.realms.len() as Seat {
        let mut meat = slaughter(s, seat);
        let conn = connected(s, seat);
        let mut room = fed_herd_cap(s, seat);
        for f in 0..s.fields.len() {
            let mut i = 0;
            while i < s.fields[f].herds.len() {
                let (owner, h) = s.fields[f].herds[i];
                if owner != seat || needs_no_feed(s, f, seat) {
                    i += 1;
                    continue;
                }
                if room > 0 && conn[f] && grain_stock(s, seat, &conn) > 0 {
                    take_grain(s, seat, 1, &conn);
                    room -= 1;
                    i += 1;
                } else {
                    s.fields[f].herds.remove(i);
                    meat += t.commodities[h.idx()].meat[1] as u32;
                    rep.push(format!("{}: an unfed herd of {} is culled", home(s, seat), h.name()));
                }
            }
        }
        // Units and settlements.
        let mut fish: u32 = (0..s.fields.len())
            .filter(|&f| s.fields[f].shipyard.is_some_and(|y| y.owner == seat) && conn[f])
            .map(|f| s.fields[f].fish as u32)
            .sum();
        let fish_before = fish;
        let mut eat = |s: &mut State, grain_only: bool| -> bool {
            if take_grain(s, seat, 1, &conn) == 1 {
                return true;
            }
            if grain_only {
                return false;
            }
            if fish >= 2 {
                fish -= 2;
                return true;
            }
            if meat >= 1 {
                meat -= 1;
                return true;
            }
            false
        };
        let mut dissolved = 0;
        for f in 0..s.fields.len() {
            let mut i = 0;
            while i < s.fields[f].units.len() {
                let u = s.fields[f].units[i];
                if u.owner != seat {
                    i += 1;
                    continue;
                }
                let d = t.unit(u.kind);
                let mut fed = (0..d.food).all(|_| eat(s, false));
                fed = fed && (0..d.extra_grain).all(|_| eat(s, true));
                if fed {
                    i += 1;
                } else {
                    s.fields[f].units.remove(i);
                    dissolved += 1;
                }
            }
        }
        if dissolved > 0 {
            rep.push(format!("{}: {dissolved} unfed units dissolve", home(s, seat)));
        }
        for f in settlements(s, seat) {
            let need = if s.fields[f as usize].settlement.is_some_and(|x| x.city) { 2 } else { 1 };
            let fed = (0..need).all(|_| eat(s, false));
            if fed {
                continue;
            }
            if encircled(s, f) {
                let taker = s.fields[f as usize].units.iter().map(|u| u.owner).find(|&o| o != seat);
                if let Some(taker) = taker {
                    if let Some(st) = s.fields[f as usize].settlement.as_mut() {
                        st.owner = taker;
                    }
                    if let Some(y) = s.fields[f as usize].shipyard.as_mut() {
                        y.owner = taker;
                    }
                    let [vw, vl] = t.dominance.village;
                    s.realms[taker as usize].vp += vw;
                    s.realms[seat as usize].vp += vl;
                    rep.push(format!("the unfed, encircled settlement on {} surrenders", map.name_of(f)));
                }
            } else {
                rep.push(format!("{}: the settlement on {} goes hungry", home(s, seat), map.name_of(f)));
                s.add_pp(seat, -2);
            }
        }
        // Take the eaten fish from the shipyards.
        let mut eaten = fish_before - fish;
        for f in 0..s.fields.len() {
            if eaten == 0 {
                break;
            }
            if s.fields[f].shipyard.is_some_and(|y| y.owner == seat) && conn[f] {
                let take = eaten.min(s.fields[f].fish as u32);
                s.fields[f].fish -= take as u8;
                eaten -= take;
            }
        }
        if meat > 0 {
            s.add_gold(seat, meat);
            rep.push(format!("{} sells {meat} meat", home(s, seat)));
        }
        s.realms[seat as usize].meat = 0;
    }
}

/// The herds the realm's orders slaughter: answer its meat, with what it kept.
fn slaughter(s: &mut State, seat: Seat) -> u32 {
    let t = tables();
    let o = s.realms[seat as usize].orders.clone().unwrap_or_default();
    let mut meat = s.realms[seat as usize].meat as u32;
    for &(f, h) in &o.slaughter {
        if f as usize >= s.fields.len() {
            continue;
        }
        if let Some(i) = s.fields[f as usize].herds.iter().position(|x| *x == (seat, h)) {
            s.fields[f as usize].herds.remove(i);
            meat += t.commodities[h.idx()].meat[0] as u32;
        }
    }
    meat
}

/// The stores of one feeding pool: its settlements' grain and its
/// shipyards' fishes.
fn pool_grain(s: &State, seat: Seat, pool: &[Option<u16>], p: u16) -> Vec<u16> {
    settlements(s, seat).into_iter().filter(|&f| pool[f as usize] == Some(p)).collect()
}

/// Take one food for something in pool `p`: 1 grain, or 2 fishes (unless
/// `grain_only`), or 1 meat.
fn eat_from(s: &mut State, seat: Seat, pool: &[Option<u16>], p: u16, grain_only: bool, meat: &mut u32) -> bool {
    if let Some(f) = pool_grain(s, seat, pool, p).into_iter().find(|&f| s.fields[f as usize].grain > 0) {
        s.fields[f as usize].grain -= 1;
        return true;
    }
    if grain_only {
        return false;
    }
    let yards: Vec<usize> = (0..s.fields.len())
        .filter(|&f| pool[f] == Some(p) && s.fields[f].shipyard.is_some_and(|y| y.owner == seat))
        .collect();
    if yards.iter().map(|&f| s.fields[f].fish as u32).sum::<u32>() >= 2 {
        let mut need = 2;
        for f in yards {
            let take = need.min(s.fields[f].fish);
            s.fields[f].fish -= take;
            need -= take;
        }
        return true;
    }
    if *meat > 0 {
        *meat -= 1;
        return true;
    }
    false
}

/// FEEDING by rules version 3: "(connection needed)". Each herd, unit and
/// settlement eats from the stores of its pool ([`pools`]): the settlements
/// and shipyards connected with its field. An encircled settlement eats
/// from its own store; unfed, it surrenders to the encircler ("Unfed and
/// encircled settlement give up to attacker automatically"). What stands
/// without a connection is not fed: herds are culled, units dissolve.
/// Meat from slaughter is the realm's and feeds any pool. At the end units
/// left without a connection dissolve, so none ends the winter cut off.
fn feeding_by_pools(s: &mut State, rep: &mut Vec<String>) {
    let t = tables();
    let map = s.map();
    for seat in 0..s.realms.len() as Seat {
        let mut meat = slaughter(s, seat);
        let pool = pools(s, seat);
        let mut room = fed_herd_cap(s, seat);
        for f in 0..s.fields.len() {
            let mut i = 0;
            while i < s.fields[f].herds.len() {
                let (owner, h) = s.fields[f].herds[i];
                if owner != seat || needs_no_feed(s, f, seat) {
                    i += 1;
                    continue;
                }
                let fed = room > 0 && pool[f].is_some_and(|p| eat_from(s, seat, &pool, p, true, &mut 0));
                if fed {
                    room -= 1;
                    i += 1;
                } else {
                    s.fields[f].herds.remove(i);
                    meat += t.commodities[h.idx()].meat[1] as u32;
                    rep.push(format!("{}: an unfed herd of {} is culled", home(s, seat), h.name()));
                }
            }
        }
        let mut dissolved = 0;
        for f in 0..s.fields.len() {
            let mut i = 0;
            while i < s.fields[f].units.len() {
                let u = s.fields[f].units[i];
                if u.owner != seat {
                    i += 1;
                    continue;
                }
                let d = t.unit(u.kind);
                let fed = pool[f].is_some_and(|p| {
                    (0..d.food).all(|_| eat_from(s, seat, &pool, p, false, &mut meat))
                        && (0..d.extra_grain).all(|_| eat_from(s, seat, &pool, p, true, &mut meat))
                });
                if fed {
                    i += 1;
                } else {
                    s.fields[f].units.remove(i);
                    dissolved += 1;
                }
            }
        }
        if dissolved > 0 {
            rep.push(format!("{}: {dissolved} unfed units dissolve", home(s, seat)));
        }
        for f in settlements(s, seat) {
            let need = if s.fields[f as usize].settlement.is_some_and(|x| x.city) { 2 } else { 1 };
            let p = pool[f as usize].unwrap_or(f);
            if (0..need).all(|_| eat_from(s, seat, &pool, p, false, &mut meat)) {
                continue;
            }
            if !encircled(s, f) {
                rep.push(format!("{}: the settlement on {} goes hungry", home(s, seat), map.name_of(f)));
                s.add_pp(seat, -2);
                continue;
            }
            let Some(taker) = s.fields[f as usize].units.iter().map(|u| u.owner).find(|&o| o != seat) else { continue };
            let city = s.fields[f as usize].settlement.is_some_and(|x| x.city);
            if let Some(st) = s.fields[f as usize].settlement.as_mut() {
                st.owner = taker;
            }
            if let Some(y) = s.fields[f as usize].shipyard.as_mut() {
                y.owner = taker;
            }
            let [vw, vl] = if city { t.dominance.city } else { t.dominance.village };
            s.realms[taker as usize].vp += vw;
            s.realms[seat as usize].vp += vl;
            rep.push(format!("the unfed, encircled settlement on {} surrenders to {}", map.name_of(f), home(s, taker)));
        }
        if meat > 0 {
            s.add_gold(seat, meat);
            rep.push(format!("{} sells {meat} meat", home(s, seat)));
        }
        s.realms[seat as usize].meat = 0;
    }
    for seat in 0..s.realms.len() as Seat {
        let n = dissolve_unconnected(s, seat);
        if n > 0 {
            rep.push(format!("{}: {n} units without connection to a settlement dissolve", home(s, seat)));
        }
    }
}
