//! Control, connection (FC) and encirclement: "LGF must not be looted A must
//! be connected to a CUS A must have the presence of units or CUS", "A
//! encirclement (loss of connectivity) occurs", "Min. number of units for
//! encirclement: 1 unit for each LF", and the storage capacities.

use runestone_engine::Seat;

use crate::data::tables;
use crate::data::{Ability, FactionData};
use crate::state::{Building, State, UnitKind};

pub fn units_of(s: &State, f: u16, seat: Seat) -> usize {
    s.fields[f as usize].units.iter().filter(|u| u.owner == seat).count()
}

pub fn kind_of(s: &State, f: u16, seat: Seat, k: UnitKind) -> usize {
    s.fields[f as usize].units.iter().filter(|u| u.owner == seat && u.kind == k).count()
}

/// Whether units of another realm stand on the field.
pub fn foreign(s: &State, f: u16, seat: Seat) -> bool {
    s.fields[f as usize].units.iter().any(|u| u.owner != seat)
}

/// The field is controlled: own units and no foreign ones, or an own
/// completed settlement and no foreign units.
pub fn controls(s: &State, seat: Seat, f: u16) -> bool {
    if foreign(s, f, seat) {
        return false;
    }
    let fi = &s.fields[f as usize];
    units_of(s, f, seat) > 0
        || fi.settlement.is_some_and(|x| x.owner == seat)
        || fi.shipyard.is_some_and(|x| x.owner == seat)
}

/// Fields with a connection (FC) to one of the realm's completed
/// settlements: a chain of fields it controls, crossing at most one sea
/// field at a time between coastal fields.
pub fn connected(s: &State, seat: Seat) -> Vec<bool> {
    let map = s.map();
    let n = s.fields.len();
    let mut seen = vec![false; n];
    let mut stack: Vec<u16> = (0..n as u16)
        .filter(|&f| s.fields[f as usize].settlement.is_some_and(|x| x.owner == seat) && !foreign(s, f, seat))
        .collect();
    for &f in &stack {
        seen[f as usize] = true;
    }
    while let Some(f) = stack.pop() {
        let info = &map.fields[f as usize];
        for &nb in &info.neighbours {
            if seen[nb as usize] {
                continue;
            }
            if controls(s, seat, nb) {
                seen[nb as usize] = true;
                stack.push(nb);
            } else if map.fields[nb as usize].is_sea() && !info.is_sea() && !foreign(s, nb, seat) {
                // one sea field between two coastal fields
                for &far in &map.fields[nb as usize].neighbours {
                    if !seen[far as usize] && !map.fields[far as usize].is_sea() && controls(s, seat, far) {
                        seen[far as usize] = true;
                        stack.push(far);
                    }
                }
            }
        }
    }
    seen
}

/// Level of fortification of a settlement: the token, plus +1 on wetlands
/// and mountains ("Wetlands (turquoise) and Mountains (brown): +1 LF to
/// completed settlements").
pub fn lf(s: &State, f: u16) -> u8 {
    let fi = &s.fields[f as usize];
    let Some(st) = fi.settlement else { return 0 };
    let c = s.map().fields[f as usize].colour;
    let colour = c.map(|c| tables().colour[c.idx()].lf).unwrap_or(0);
    // "Full brown LGF: +2LF (not +1)", "Full turquoise LGF: +2LF (not +1)".
    let strong = match c {
        Some(crate::data::Colour::Brown) => has_at(s, st.owner, Ability::BrownLf, f),
        Some(crate::data::Colour::Turquoise) => has_at(s, st.owner, Ability::TurquoiseLf, f),
        _ => false,
    };
    colour + u8::from(strong) + u8::from(st.fort)
}

/// A settlement whose field holds at least one foreign unit for each LF
/// (at least one) and none of its own.
pub fn encircled(s: &State, f: u16) -> bool {
    let fi = &s.fields[f as usize];
    let Some(st) = fi.settlement else { return false };
    let enemies = fi.units.iter().filter(|u| u.owner != st.owner).count();
    units_of(s, f, st.owner) == 0 && enemies >= lf(s, f).max(1) as usize
}

/// Grain a settlement stores: village 5, city 10, +1 for a fortification.
pub fn grain_cap(s: &State, f: u16) -> u8 {
    let t = tables();
    match s.fields[f as usize].settlement {
        None => 0,
        Some(st) => {
            let b = if st.city { Building::City } else { Building::Village };
            t.building(b).grain + if st.fort { t.building(Building::Fortification).grain } else { 0 }
        }
    }
}

/// Units a settlement houses: village 5, city 10, +1 for a fortification.
pub fn unit_cap(s: &State, f: u16) -> u8 {
    let t = tables();
    match s.fields[f as usize].settlement {
        None => 0,
        Some(st) => {
            let b = if st.city { Building::City } else { Building::Village };
            t.building(b).units + if st.fort { t.building(Building::Fortification).units } else { 0 }
        }
    }
}

/// Fishes a shipyard stores: dock 2, port 4.
pub fn fish_cap(s: &State, f: u16) -> u8 {
    match s.fields[f as usize].shipyard {
        None => 0,
        Some(y) => tables().building(if y.port { Building::Port } else { Building::Dock }).fishes,
    }
}

/// Herds the realm can feed through winter: 1 per village, 2 per city.
pub fn fed_herd_cap(s: &State, seat: Seat) -> u32 {
    let t = tables();
    s.fields
        .iter()
        .filter_map(|f| f.settlement.filter(|x| x.owner == seat))
        .map(|x| t.building(if x.city { Building::City } else { Building::Village }).fed_herds as u32)
        .sum()
}

pub fn has_port(s: &State, seat: Seat) -> bool {
    s.fields.iter().any(|f| f.shipyard.is_some_and(|y| y.owner == seat && y.port))
}

/// The realm's faction, from the scenario's data.
pub fn faction(s: &State, seat: Seat) -> &'static FactionData {
    s.map().faction(&s.realms[seat as usize].faction)
}

/// Whether the realm's faction has the ability.
pub fn has(s: &State, seat: Seat, a: Ability) -> bool {
    faction(s, seat).has(a)
}

/// Whether the realm's faction has the ability on field `f`: an ability
/// "valid only in" its homeland holds only there.
pub fn has_at(s: &State, seat: Seat, a: Ability, f: u16) -> bool {
    let fa = faction(s, seat);
    fa.has(a) && (!fa.only_in_homeland || s.map().in_homeland(f, &fa.id))
}

/// Settlements (villages, cities) the realm holds.
pub fn settlements(s: &State, seat: Seat) -> Vec<u16> {
    (0..s.fields.len() as u16).filter(|&f| s.fields[f as usize].settlement.is_some_and(|x| x.owner == seat)).collect()
}

/// Take grain from the realm's connected settlements; answer what was taken.
pub fn take_grain(s: &mut State, seat: Seat, want: u32, conn: &[bool]) -> u32 {
    let mut got = 0;
    for f in settlements(s, seat) {
        if !conn[f as usize] {
            continue;
        }
        while got < want && s.fields[f as usize].grain > 0 {
            s.fields[f as usize].grain -= 1;
            got += 1;
        }
    }
    got
}

/// Grain in the realm's connected settlements.
pub fn grain_stock(s: &State, seat: Seat, conn: &[bool]) -> u32 {
    settlements(s, seat).iter().filter(|&&f| conn[f as usize]).map(|&f| s.fields[f as usize].grain as u32).sum()
}

/// Store grain in connected settlements with room; answer what did not fit.
pub fn store_grain(s: &mut State, seat: Seat, mut amount: u32, conn: &[bool]) -> u32 {
    for f in settlements(s, seat) {
        if !conn[f as usize] {
            continue;
        }
        let cap = grain_cap(s, f);
        let fi = &mut s.fields[f as usize];
        while amount > 0 && fi.grain < cap {
            fi.grain += 1;
            amount -= 1;
        }
    }
    amount
}

/// The realm's feeding pools (rules version 3): for each field, the
/// settlement whose stores feed what stands there, if any. "FEEDING
/// (connection needed)": a field belongs to the pool of a settlement it is
/// connected to (FC); settlements connected to each other share one pool
/// (named by the first of them). A settlement with foreign units on its
/// field has lost its connection ("A encirclement (loss of connectivity)
/// occurs"): it is a pool of its own, which feeds it and its withdrawn units
/// from its own store.
pub fn pools(s: &State, seat: Seat) -> Vec<Option<u16>> {
    let map = s.map();
    let n = s.fields.len();
    let mut pool: Vec<Option<u16>> = vec![None; n];
    for home in settlements(s, seat) {
        if pool[home as usize].is_some() {
            continue;
        }
        pool[home as usize] = Some(home);
        if foreign(s, home, seat) {
            continue;
        }
        let mut stack = vec![home];
        while let Some(f) = stack.pop() {
            let info = &map.fields[f as usize];
            for &nb in &info.neighbours {
                if pool[nb as usize].is_some() {
                    continue;
                }
                if controls(s, seat, nb) {
                    pool[nb as usize] = Some(home);
                    stack.push(nb);
                } else if map.fields[nb as usize].is_sea() && !info.is_sea() && !foreign(s, nb, seat) {
                    for &far in &map.fields[nb as usize].neighbours {
                        if pool[far as usize].is_none() && !map.fields[far as usize].is_sea() && controls(s, seat, far)
                        {
                            pool[far as usize] = Some(home);
                            stack.push(far);
                        }
                    }
                }
            }
        }
    }
    pool
}

/// Units of the realm on fields without a connection to one of its
/// settlements ([`pools`]) dissolve; answer how many.
pub fn dissolve_unconnected(s: &mut State, seat: Seat) -> usize {
    let pool = pools(s, seat);
    let mut n = 0;
    for f in 0..s.fields.len() {
        if pool[f].is_none() {
            let before = s.fields[f].units.len();
            s.fields[f].units.retain(|u| u.owner != seat);
            n += before - s.fields[f].units.len();
        }
    }
    n
}
