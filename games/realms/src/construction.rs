//! REAR (1) CONSTRUCTION and "REAR - CONSTRUCTION": Light Infantry units on
//! the field build; 25% steps; at most 4 builders; "Accelerated building
//! for gold: build a quarter more = pay 1/2 of the cost of building in gold
//! only rounded up"; 50+ PP: build twice in one round for 12 PP. Progress
//! is counted in twelfths so that 4, 3 and 2 rounds are all whole steps.

use runestone_engine::Seat;

use crate::control::kind_of;
use crate::data::tables;
use crate::state::{Building, Settlement, Shipyard, State, UnitKind};

pub const DONE: u8 = 12;

/// Twelfths built in one round by `builders` Light Infantry units on a
/// building that needs `need` of them (none below `need`).
pub fn rate(b: Building, builders: usize) -> u8 {
    rate_of(b, builders, false)
}

/// [`rate`], for a faction that builds fast or not: "1 unit (not 2) builds
/// a village for 4 rounds. 2 units (not 4) build a city for 4 rounds."
pub fn rate_of(b: Building, builders: usize, fast: bool) -> u8 {
    let d = tables().building(b);
    let need = match b {
        Building::Village | Building::City if fast => (d.builders / 2).max(1),
        _ => d.builders,
    } as usize;
    let builders = builders.min(4);
    if builders < need {
        return 0;
    }
    let extra = (builders - need).min(2);
    DONE / d.rounds[extra]
}

/// The price of a building for a realm: "30+ PP: + building price -1".
pub fn price(s: &State, seat: Seat, b: Building) -> u8 {
    let t = tables();
    let p = t.building(b).price;
    if s.realms[seat as usize].pp >= t.prestige.building_discount_from {
        p.saturating_sub(1)
    } else {
        p
    }
}

pub fn construction(s: &mut State, rep: &mut Vec<String>) {
    let t = tables();
    let map = s.map();
    for f in 0..s.fields.len() as u16 {
        let Some(c) = s.fields[f as usize].construction else { continue };
        // Romans: "Also Heavy Infantry can build."
        let fast = crate::control::has(s, c.owner, crate::data::Ability::FastBuilding);
        let heavy = if fast { kind_of(s, f, c.owner, UnitKind::HeavyInfantry) } else { 0 };
        let builders = kind_of(s, f, c.owner, UnitKind::LightInfantry) + heavy;
        let mut step = rate_of(c.building, builders, fast);
        let orders = s.realms[c.owner as usize].orders.clone().unwrap_or_default();
        if step > 0 && orders.accelerate.contains(&f) {
            let cost = price(s, c.owner, c.building).div_ceil(2);
            if s.realms[c.owner as usize].gold >= cost {
                s.realms[c.owner as usize].gold -= cost;
                step += 3;
                rep.push(format!("{} pays {cost} gold to build a quarter more", s.realms[c.owner as usize].home));
            }
        }
        if step > 0
            && orders.build_twice.contains(&f)
            && s.realms[c.owner as usize].pp >= t.prestige.double_construction_from
        {
            s.add_pp(c.owner, t.prestige.double_construction);
            step *= 2;
            rep.push(format!("{} builds twice this round", s.realms[c.owner as usize].home));
        }
        if step == 0 {
            continue;
        }
        let progress = (c.progress + step).min(DONE);
        if progress < DONE {
            s.fields[f as usize].construction = Some(crate::state::Construction { progress, ..c });
            continue;
        }
        let fi = &mut s.fields[f as usize];
        fi.construction = None;
        match c.building {
            Building::Village => {
                fi.settlement = Some(Settlement { owner: c.owner, city: false, fort: false });
                fi.looted = false;
            }
            Building::City => {
                if let Some(st) = fi.settlement.as_mut() {
                    st.city = true;
                }
                fi.looted = false;
            }
            Building::Dock => fi.shipyard = Some(Shipyard { owner: c.owner, port: false }),
            Building::Port => {
                if let Some(y) = fi.shipyard.as_mut() {
                    y.port = true;
                }
            }
            Building::Fortification => {
                if let Some(st) = fi.settlement.as_mut() {
                    st.fort = true;
                }
            }
        }
        rep.push(format!(
            "{} completes a {} on {}",
            s.realms[c.owner as usize].home,
            c.building.name(),
            map.name_of(f)
        ));
    }
}

/// Why `seat` cannot start `b` on `f` now, or Ok (the REAR-Trade entry).
pub fn can_start(s: &State, seat: Seat, f: u16, b: Building) -> Result<(), String> {
    let map = s.map();
    if f as usize >= s.fields.len() {
        return Err(format!("field {f} is not on the map"));
    }
    let info = &map.fields[f as usize];
    let fi = &s.fields[f as usize];
    if info.is_sea() {
        return Err("nothing is built at sea".into());
    }
    if fi.construction.is_some() {
        return Err(format!("{} already has a construction (only one construction on LGF)", map.name_of(f)));
    }
    if !crate::control::controls(s, seat, f) {
        return Err(format!("you do not control {}", map.name_of(f)));
    }
    let own = fi.settlement.filter(|x| x.owner == seat);
    match b {
        Building::Village if fi.settlement.is_some() => return Err("there is already a settlement".into()),
        Building::City => {
            let Some(st) = own else { return Err("a city is built by upgrading your village".into()) };
            if st.city {
                return Err("this is already a city".into());
            }
            let cities = s.fields.iter().filter(|x| x.settlement.is_some_and(|y| y.owner == seat && y.city)).count();
            if cities >= 1 && !fi.shipyard.is_some_and(|y| y.port && y.owner == seat) {
                return Err("only a village with a port can be upgraded to a second city".into());
            }
        }
        Building::Dock => {
            if own.is_none() || !info.coastal {
                return Err("a dock is built at your coastal settlement".into());
            }
            if fi.shipyard.is_some() {
                return Err("this settlement already has a shipyard".into());
            }
        }
        Building::Port => {
            if !fi.shipyard.is_some_and(|y| y.owner == seat && !y.port) {
                return Err("a port is built by upgrading your dock".into());
            }
        }
        Building::Fortification => {
            let Some(st) = own else { return Err("a fortification is built at your settlement".into()) };
            if st.fort {
                return Err("max 1 fortification per settlement".into());
            }
        }
        Building::Village => {}
    }
    let need = tables().building(b).builders as usize;
    let li = kind_of(s, f, seat, UnitKind::LightInfantry);
    if li < need {
        return Err(format!("a {} needs {need} Light Infantry units on the field; {li} stand there", b.name()));
    }
    let tiles = s
        .fields
        .iter()
        .map(|x| {
            x.settlement.filter(|y| y.owner == seat).map(|y| 1 + u32::from(y.fort)).unwrap_or(0)
                + u32::from(x.shipyard.is_some_and(|y| y.owner == seat))
                + u32::from(x.construction.is_some_and(|y| y.owner == seat))
        })
        .sum::<u32>();
    if tiles >= 15 {
        return Err("limit 15 building tiles per game".into());
    }
    if s.realms[seat as usize].gold < price(s, seat, b) {
        return Err(format!("a {} costs {} gold", b.name(), price(s, seat, b)));
    }
    Ok(())
}
