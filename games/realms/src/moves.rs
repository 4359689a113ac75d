//! MOVE (1) UNITS, MOVE (2) SPECIAL MOVE / HERDS, MOVE (3) RETREAT,
//! ATTRITION, with "MOVE BONUSES" and the Vikings' ships on rivers and
//! coasts. All moves of a sub-phase leave their fields first and arrive
//! together, so each unit moves once per sub-phase.

use runestone_engine::Seat;

use crate::control::{connected, controls, fish_cap, foreign, grain_cap, kind_of};
use crate::data::{Colour, Map};
use crate::season::{basic, Dice};
use crate::state::{Move, Season, State, Step, Unit, UnitKind, Weather};

/// Whether land movement is impossible at `f` this round (BAD winter weather).
fn frozen(s: &State, f: u16) -> bool {
    if s.season != Season::Winter || !basic(s) {
        return false;
    }
    let m = s.map();
    let info = &m.fields[f as usize];
    let w = s.winter[m.region(info.climate)];
    !info.is_sea() && w == Weather::Bad
}

/// Whether a ship of `seat` may stand on `f`.
fn ship_may_enter(s: &State, seat: Seat, from: u16, f: u16) -> bool {
    let m = s.map();
    let info = &m.fields[f as usize];
    if info.is_sea() {
        return true;
    }
    if s.fields[f as usize].shipyard.is_some_and(|y| y.owner == seat) {
        return true;
    }
    if info.colour == Some(Colour::Turquoise) && info.coastal {
        return true; // "Wetlands: Ships may enter the LGF without landing."
    }
    if !crate::control::has(s, seat, crate::data::Ability::ShipsOnLand) || info.colour == Some(Colour::Brown) {
        return false;
    }
    // Vikings: coastal LGF, or along one river (no jumping between rivers).
    let from_info = &m.fields[from as usize];
    if from_info.is_sea() {
        return info.coastal;
    }
    info.coastal || (info.river.is_some() && info.river == from_info.river)
}

/// The sea field that can carry land units from `from` to `to` with the
/// realm's transport ships (capacity 3 each), if any.
fn transport_sea(s: &State, seat: Seat, from: u16, to: u16) -> Option<u16> {
    let m = s.map();
    m.fields[from as usize].neighbours.iter().copied().find(|&sea| {
        m.fields[sea as usize].is_sea()
            && m.fields[sea as usize].neighbours.contains(&to)
            && kind_of(s, sea, seat, UnitKind::TransportShip) > 0
    })
}

/// "Transport: Move between two ports as only move in MOVE" (rules version
/// 2): both fields hold a port of the realm (designed: any distance, no
/// ships needed; the unit moves no more this round).
pub fn port_to_port(s: &State, seat: Seat, from: u16, to: u16) -> bool {
    let port = |f: u16| s.fields[f as usize].shipyard.is_some_and(|y| y.owner == seat && y.port);
    s.from_version(2) && from != to && port(from) && port(to)
}

/// Room aboard the realm's transport ships on a sea field: 3 units each.
pub fn ship_room(s: &State, sea: u16, seat: Seat) -> usize {
    kind_of(s, sea, seat, UnitKind::TransportShip) * 3
}

/// Room the realm's land units on a sea field take aboard (Cavalry 2).
pub fn aboard(s: &State, sea: u16, seat: Seat) -> usize {
    let t = crate::data::tables();
    s.fields[sea as usize]
        .units
        .iter()
        .filter(|u| u.owner == seat && !u.kind.is_ship())
        .map(|u| t.unit(u.kind).ship_size.unwrap_or(1) as usize)
        .sum()
}

/// Units of a kind on a field that may still move in this sub-phase: in ③
/// and ④ not those carried between two ports in ②, nor (rules version 3)
/// those that entered mountains or wetlands this round.
fn movable(s: &State, f: u16, seat: Seat, kind: UnitKind, step: Step) -> usize {
    s.fields[f as usize].units.iter().filter(|u| u.owner == seat && u.kind == kind && may_move(u, step)).count()
}

fn may_move(u: &Unit, step: Step) -> bool {
    step == Step::Units || (!u.shipped && !u.halted)
}

/// "10 units: Can move as one in the MOVE-Special for free." / "Fleet (4
/// ships): Can move as one in the MOVE-Special for free." (rules version 3):
/// every unit of the realm's special moves from one field to one field moves
/// as one; 10 or more move free, and so do 4 or more ships (Vikings: 1).
pub fn moves_as_one(s: &State, seat: Seat, list: &[Move], m: &Move) -> bool {
    if !s.from_version(3) {
        return false;
    }
    let together = list.iter().filter(|x| (x.from, x.to) == (m.from, m.to));
    let (units, ships) = together
        .fold((0u32, 0u32), |(u, sh), x| (u + x.count as u32, sh + if x.unit.is_ship() { x.count as u32 } else { 0 }));
    let fleet = crate::control::faction(s, seat).fleet as u32;
    units >= 10 || (m.unit.is_ship() && ships >= fleet)
}

/// Ride: the field a Cavalry passes through to reach `to` two fields away,
/// one that is not mountains or wetlands and holds no foreign units.
fn ride_via(s: &State, seat: Seat, from: u16, to: u16) -> Option<u16> {
    let map = s.map();
    map.fields[from as usize].neighbours.iter().copied().find(|&mid| {
        let mi = &map.fields[mid as usize];
        !mi.is_sea()
            && !mi.rough()
            && mi.neighbours.contains(&to)
            && !foreign(s, mid, seat)
            && !map.blocked(from, mid)
            && !map.blocked(mid, to)
    })
}

/// Why `m` is not a move `seat` may make in `step`, or Ok.
pub fn check(s: &State, seat: Seat, m: &Move, step: Step, pay_special: bool) -> Result<(), String> {
    let map: &Map = s.map();
    let n = s.fields.len() as u16;
    if m.from >= n || m.to >= n {
        return Err(format!("field {} is not on the map", m.from.max(m.to)));
    }
    if !map.in_play(m.to, s.players) {
        return Err(format!("{} lies beyond the game's borders", map.name_of(m.to)));
    }
    if m.count == 0 {
        return Err("a move needs at least one unit".into());
    }
    let have = kind_of(s, m.from, seat, m.unit);
    if have < m.count as usize {
        return Err(format!("only {have} {} of yours stand on {}", m.unit.name(), map.name_of(m.from)));
    }
    let free = movable(s, m.from, seat, m.unit, step);
    if free < m.count as usize {
        let halted = s.fields[m.from as usize].units.iter().any(|u| u.owner == seat && u.kind == m.unit && u.halted);
        let why = if halted && step != Step::Units {
            "the others entered mountains or wetlands this round, which stops them (except Light Infantry)"
        } else {
            "the others came between two ports, their only move this round"
        };
        return Err(format!("only {free} {} on {} may move: {why}", m.unit.name(), map.name_of(m.from)));
    }
    if matches!(m.unit, UnitKind::SiegeMachine | UnitKind::Corsair) {
        return Err(format!("{} don't move", m.unit.name()));
    }
    let fi = &map.fields[m.from as usize];
    let ti = &map.fields[m.to as usize];
    let adjacent = fi.neighbours.contains(&m.to);
    if step != Step::Units && foreign(s, m.from, seat) {
        return Err(format!("{} is locked by foreign units", map.name_of(m.from)));
    }
    if step == Step::RetreatAttrition {
        if m.unit == UnitKind::HeavyInfantry {
            return Err("Heavy Infantry can never move in the MOVE-Retreat subphase".into());
        }
        if !adjacent {
            return Err("a retreat goes to an adjacent field".into());
        }
        let own_cus = s.fields[m.to as usize].settlement.is_some_and(|x| x.owner == seat);
        let own_yard = s.fields[m.to as usize].shipyard.is_some_and(|x| x.owner == seat);
        // Rules version 2: "retreat to ships without enemies on SGF".
        let to_ships = s.from_version(2)
            && ti.is_sea()
            && !foreign(s, m.to, seat)
            && kind_of(s, m.to, seat, UnitKind::TransportShip) > 0;
        let ok = if m.unit.is_ship() {
            own_yard || (m.unit == UnitKind::WarShip && ship_may_enter(s, seat, m.from, m.to))
        } else {
            own_cus || to_ships
        };
        if !ok {
            return Err(format!("{} is no field of your own to retreat to", map.name_of(m.to)));
        }
        return Ok(());
    }
    if step == Step::MoveSpecialHerds {
        let r = &s.realms[seat as usize];
        let brilliant = basic(s) && r.command >= 4;
        let fleet_size = crate::control::faction(s, seat).fleet as usize;
        let fleet = m.unit.is_ship() && m.count as usize >= fleet_size;
        let army = m.count >= 10;
        if !(m.unit == UnitKind::Cavalry || fleet || army || brilliant || pay_special) {
            return Err(format!("{} have no capacity in MOVE-Special", m.unit.name()));
        }
        if m.unit != UnitKind::LightInfantry
            && fi.rough()
            && s.fields[m.from as usize]
                .units
                .iter()
                .any(|u| u.owner == seat && u.kind == m.unit && u.moved_from.is_some())
        {
            return Err("entering mountains or wetlands stopped these units for the round".into());
        }
        if !adjacent {
            return Err("a special move goes to an adjacent field".into());
        }
    }
    if m.unit.is_ship() {
        if !adjacent {
            return Err("ships move to an adjacent field".into());
        }
        if !ship_may_enter(s, seat, m.from, m.to) {
            return Err(format!("your ships cannot go onto {}", map.name_of(m.to)));
        }
        if s.from_version(2) && m.unit == UnitKind::TransportShip && fi.is_sea() {
            let load = aboard(s, m.from, seat);
            let left = (kind_of(s, m.from, seat, UnitKind::TransportShip) - m.count as usize) * 3;
            if load > left {
                return Err(format!(
                    "your ships on {} carry {load} units; land them before the ships sail",
                    map.name_of(m.from)
                ));
            }
        }
        return Ok(());
    }
    if ti.is_sea() {
        return Err("land units cross the sea only aboard transport ships, field to field".into());
    }
    if frozen(s, m.from) || frozen(s, m.to) {
        return Err("bad winter weather: no movement on land".into());
    }
    if adjacent {
        let crosses = m.unit == UnitKind::LightInfantry
            && crate::control::has_at(s, seat, crate::data::Ability::CrossBlackLine, m.from);
        if map.blocked(m.from, m.to) && !crosses {
            return Err("the black line in the mountains cannot be crossed".into());
        }
        return Ok(());
    }
    if step == Step::Units && m.unit == UnitKind::Cavalry && ride_via(s, seat, m.from, m.to).is_some() {
        return Ok(());
    }
    if step == Step::Units && port_to_port(s, seat, m.from, m.to) {
        return Ok(());
    }
    if step == Step::Units && transport_sea(s, seat, m.from, m.to).is_some() {
        return Ok(());
    }
    Err(format!("{} is out of reach from {}", map.name_of(m.to), map.name_of(m.from)))
}

/// Take `count` units of a kind from a field (least experienced first); in
/// ③ and ④ not those carried between two ports in ②.
pub fn take(s: &mut State, f: u16, seat: Seat, kind: UnitKind, count: u8, step: Step) -> Vec<Unit> {
    let units = &mut s.fields[f as usize].units;
    let mut idx: Vec<usize> = (0..units.len())
        .filter(|&i| units[i].owner == seat && units[i].kind == kind && may_move(&units[i], step))
        .collect();
    idx.sort_by_key(|&i| units[i].xp);
    idx.truncate(count as usize);
    idx.sort_unstable();
    let mut out = Vec::new();
    for &i in idx.iter().rev() {
        out.push(units.remove(i));
    }
    out
}

/// Run the moves of one sub-phase for every realm.
fn run_moves(s: &mut State, step: Step, rep: &mut Vec<String>) {
    let map = s.map();
    let mut arriving: Vec<(u16, Unit)> = Vec::new();
    for seat in 0..s.realms.len() as Seat {
        let Some(o) = s.realms[seat as usize].orders.clone() else { continue };
        let list = match step {
            Step::Units => o.moves,
            Step::MoveSpecialHerds => o.special,
            _ => o.retreats,
        };
        let mut paid = false;
        let mut carried: Vec<(u16, usize)> = Vec::new();
        let cost = crate::data::tables().prestige.special_move;
        // Rules version 3: "-14 for each unit has a capacity of 1 in
        // MOVE-Special" is paid from the prestige held, and only for a move
        // that needs it.
        let v3 = s.from_version(3);
        let can_pay = !v3 || s.realms[seat as usize].pp >= -cost;
        if v3 && o.pay_special && step == Step::MoveSpecialHerds && !can_pay {
            rep.push(format!(
                "{} holds {} PP and cannot pay {} PP for special moves",
                s.realms[seat as usize].home, s.realms[seat as usize].pp, -cost
            ));
        }
        for m in &list {
            let group = step == Step::MoveSpecialHerds && moves_as_one(s, seat, &list, m);
            let pay = o.pay_special && step == Step::MoveSpecialHerds && (paid || can_pay);
            if let Err(e) = check(s, seat, m, step, pay || group) {
                rep.push(format!("{}: move from {} not made: {e}", s.realms[seat as usize].home, map.name_of(m.from)));
                continue;
            }
            let needs_pay = !v3 || (check(s, seat, m, step, group).is_err());
            let fi = &map.fields[m.from as usize];
            let ride = m.unit == UnitKind::Cavalry && ride_via(s, seat, m.from, m.to).is_some();
            let far = !m.unit.is_ship() && !fi.neighbours.contains(&m.to) && !ride;
            let by_port = far && step == Step::Units && port_to_port(s, seat, m.from, m.to);
            let is_transport = far && !by_port;
            let size = crate::data::tables().unit(m.unit).ship_size.unwrap_or(1) as usize * m.count as usize;
            if step == Step::RetreatAttrition && !m.unit.is_ship() && map.fields[m.to as usize].is_sea() {
                let room = ship_room(s, m.to, seat).saturating_sub(aboard(s, m.to, seat));
                let used = carried.iter().filter(|c| c.0 == m.to).map(|c| c.1).sum::<usize>();
                if used + size > room {
                    rep.push(format!(
                        "{}: retreat from {} not made: the ships on {} have room for {}",
                        s.realms[seat as usize].home,
                        map.name_of(m.from),
                        map.name_of(m.to),
                        room.saturating_sub(used)
                    ));
                    continue;
                }
                carried.push((m.to, size));
            }
            if is_transport {
                let sea = transport_sea(s, seat, m.from, m.to).unwrap_or(m.to);
                let cap = kind_of(s, sea, seat, UnitKind::TransportShip) * 3;
                let used = carried.iter().filter(|c| c.0 == sea).map(|c| c.1).sum::<usize>();
                if used + size > cap {
                    rep.push(format!(
                        "{}: transport from {} not made: the ships carry only {cap}",
                        s.realms[seat as usize].home,
                        map.name_of(m.from)
                    ));
                    continue;
                }
                carried.push((sea, size));
            }
            if step == Step::MoveSpecialHerds && pay && !paid && needs_pay {
                s.add_pp(seat, cost);
                paid = true;
                rep.push(format!("{} pays {} PP for special moves", s.realms[seat as usize].home, -cost));
            }
            let rough = map.fields[m.to as usize].rough();
            for mut u in take(s, m.from, seat, m.unit, m.count, step) {
                if step == Step::Units {
                    u.moved_from = Some(m.from);
                    u.shipped = by_port;
                }
                // Version 3: "Mountains and Wetlands: Entry stops unit
                // movement for the current round (except LI)."
                if v3 && step != Step::RetreatAttrition && rough && u.kind != UnitKind::LightInfantry {
                    u.halted = true;
                }
                arriving.push((m.to, u));
            }
            rep.push(format!(
                "{} moves {} {} from {} to {}{}",
                s.realms[seat as usize].home,
                m.count,
                m.unit.name(),
                map.name_of(m.from),
                map.name_of(m.to),
                if by_port { " between its two ports" } else { "" }
            ));
        }
    }
    for (f, u) in arriving {
        s.fields[f as usize].units.push(u);
    }
}

/// ② UNITS.
pub fn units(s: &mut State, rep: &mut Vec<String>) {
    run_moves(s, Step::Units, rep);
}

/// ③ MOVE-Special, then herds within the FC "(but only by 1 LGF across the
/// sea)"; herds moving through the SGF end up on a coastal LGF.
pub fn special_herds(s: &mut State, rep: &mut Vec<String>) {
    run_moves(s, Step::MoveSpecialHerds, rep);
    let map = s.map();
    for seat in 0..s.realms.len() as Seat {
        let Some(o) = s.realms[seat as usize].orders.clone() else { continue };
        let conn = connected(s, seat);
        for h in &o.herds {
            let n = s.fields.len() as u16;
            if h.from >= n || h.to >= n {
                continue;
            }
            let ok_from = s.fields[h.from as usize].herds.contains(&(seat, h.herd)) && !foreign(s, h.from, seat);
            let ti = &map.fields[h.to as usize];
            if s.from_version(2) {
                let why = if !ok_from {
                    Some("it needs a herd of yours on a field without foreign units".to_string())
                } else if ti.is_sea() {
                    Some("herds moving through the SGF must end up on the coastal LGF".to_string())
                } else if !herd_reach(s, seat, h.from, &conn)[h.to as usize] {
                    Some(format!(
                        "{} is not reached within your FC (herds cross the sea by 1 LGF and end on the coastal LGF)",
                        map.name_of(h.to)
                    ))
                } else {
                    None
                };
                if let Some(why) = why {
                    rep.push(format!(
                        "{}: herd of {} from {} not moved: {why}",
                        s.realms[seat as usize].home,
                        h.herd.name(),
                        map.name_of(h.from)
                    ));
                    continue;
                }
            } else {
                let near = map.fields[h.from as usize].neighbours.contains(&h.to)
                    || (ti.coastal
                        && map.fields[h.from as usize].neighbours.iter().any(|&sea| {
                            map.fields[sea as usize].is_sea() && map.fields[sea as usize].neighbours.contains(&h.to)
                        }));
                if !ok_from || !near || ti.is_sea() || !conn[h.from as usize] || !controls(s, seat, h.to) {
                    rep.push(format!(
                        "{}: herd of {} from {} not moved: it needs its own unlocked field and a controlled field in the FC",
                        s.realms[seat as usize].home,
                        h.herd.name(),
                        map.name_of(h.from)
                    ));
                    continue;
                }
            }
            let herds = &mut s.fields[h.from as usize].herds;
            if let Some(i) = herds.iter().position(|x| *x == (seat, h.herd)) {
                herds.remove(i);
                s.fields[h.to as usize].herds.push((seat, h.herd));
            }
        }
        for c in &o.carry {
            if let Err(e) = carry(s, seat, c, &conn) {
                rep.push(format!(
                    "{}: stores not carried from {}: {e}",
                    s.realms[seat as usize].home,
                    map.name_of(c.from)
                ));
            }
        }
    }
}

/// Where a herd on `from` may go in ③ (rules version 2): "Herds ... can be
/// moved within the FC (but only by 1 LGF across the sea)" and "Herds
/// moving through the SGF must end up on the coastal LGF". Along land
/// fields the realm controls with FC, any distance; across one sea field
/// without foreign units from a coastal field to a coastal field, where the
/// move ends.
pub fn herd_reach(s: &State, seat: Seat, from: u16, conn: &[bool]) -> Vec<bool> {
    let map = s.map();
    let n = s.fields.len();
    let mut reach = vec![false; n];
    let ok = |f: u16| {
        !map.fields[f as usize].is_sea() && conn[f as usize] && controls(s, seat, f) && map.in_play(f, s.players)
    };
    if !ok(from) {
        return reach;
    }
    let mut seen = vec![false; n];
    let mut stack = vec![from];
    seen[from as usize] = true;
    while let Some(f) = stack.pop() {
        for &nb in &map.fields[f as usize].neighbours {
            let ni = &map.fields[nb as usize];
            if ni.is_sea() {
                if foreign(s, nb, seat) || !map.in_play(nb, s.players) {
                    continue;
                }
                for &far in &ni.neighbours {
                    if far != f && ok(far) {
                        reach[far as usize] = true;
                    }
                }
            } else if !seen[nb as usize] && ok(nb) && !map.blocked(f, nb) {
                seen[nb as usize] = true;
                reach[nb as usize] = true;
                stack.push(nb);
            }
        }
    }
    reach[from as usize] = false;
    reach
}

/// "Herds, stored grain and fish can be moved within the FC": grain from
/// one of the realm's settlements to another, fish from one of its
/// shipyards to another, both connected, within the room at the end
/// (designed: in ③ with the herds, as much as the order says or nothing).
fn carry(s: &mut State, seat: Seat, c: &crate::state::Carry, conn: &[bool]) -> Result<(), String> {
    let n = s.fields.len() as u16;
    if c.from >= n || c.to >= n || c.from == c.to {
        return Err("it needs two different fields of the map".into());
    }
    if !conn[c.from as usize] || !conn[c.to as usize] {
        return Err("both ends must be connected to a completed settlement (FC)".into());
    }
    let (from, to) = (&s.fields[c.from as usize], &s.fields[c.to as usize]);
    if c.grain > 0 {
        let own = |f: &crate::state::Field| f.settlement.is_some_and(|x| x.owner == seat);
        if !own(from) || !own(to) {
            return Err("grain is carried between your settlements".into());
        }
        if from.grain < c.grain {
            return Err(format!("only {} grain is stored there", from.grain));
        }
        if to.grain as u32 + c.grain as u32 > grain_cap(s, c.to) as u32 {
            return Err(format!("{} has room for {} more grain", s.map().name_of(c.to), grain_cap(s, c.to) - to.grain));
        }
    }
    if c.fish > 0 {
        let own = |f: &crate::state::Field| f.shipyard.is_some_and(|x| x.owner == seat);
        if !own(from) || !own(to) {
            return Err("fish is carried between your shipyards".into());
        }
        if from.fish < c.fish {
            return Err(format!("only {} fishes are stored there", from.fish));
        }
        if to.fish as u32 + c.fish as u32 > fish_cap(s, c.to) as u32 {
            return Err(format!("{} has room for {} more fishes", s.map().name_of(c.to), fish_cap(s, c.to) - to.fish));
        }
    }
    s.fields[c.from as usize].grain -= c.grain;
    s.fields[c.from as usize].fish -= c.fish;
    s.fields[c.to as usize].grain += c.grain;
    s.fields[c.to as usize].fish += c.fish;
    Ok(())
}

/// ④ MOVE-Retreat, then attrition (BASIC): units without connection roll a
/// D6 (6: destroyed); Cavalry and War Elephants in the mountains roll a D6;
/// encircled settlements out of winter roll (city twice): a 6 must be fed
/// from the store or the settlement is destroyed; ships at sea risk
/// shipwreck by "RISK OF SHIPWRECK".
pub fn retreat_attrition(s: &mut State, d: &mut Dice, rep: &mut Vec<String>) {
    run_moves(s, Step::RetreatAttrition, rep);
    if !basic(s) {
        return;
    }
    let map = s.map();
    let t = crate::data::tables();
    let v2 = s.from_version(2);
    for seat in 0..s.realms.len() as Seat {
        let conn = connected(s, seat);
        for f in 0..s.fields.len() {
            let info = &map.fields[f];
            let mut i = 0;
            while i < s.fields[f].units.len() {
                let u = s.fields[f].units[i];
                if u.owner != seat {
                    i += 1;
                    continue;
                }
                let mut rolls = 0;
                // "City, Cavalry rolls twice, War elephants rolls three times" (version 2).
                let per = match u.kind {
                    UnitKind::Cavalry if v2 => 2,
                    UnitKind::WarElephant if v2 => 3,
                    _ => 1,
                };
                if !conn[f] && !info.is_sea() {
                    rolls += per;
                }
                if info.colour == Some(Colour::Brown) && matches!(u.kind, UnitKind::Cavalry | UnitKind::WarElephant) {
                    rolls += per;
                }
                // Version 2: land units aboard do not roll; they drown when their ships sink.
                if info.is_sea() && (u.kind.is_ship() || !v2) {
                    let safe = crate::control::has(s, seat, crate::data::Ability::NoAutumnShipwreck);
                    let [stormy, calm] = match s.season {
                        Season::Autumn if safe => [0, 0],
                        Season::Autumn => t.shipwreck.autumn,
                        Season::Winter if s.winter[2] == Weather::Bad => t.shipwreck.bad_winter,
                        Season::Winter => t.shipwreck.good_winter,
                        _ => [0, 0],
                    };
                    rolls += if info.stormy { stormy } else { calm };
                }
                let lost = (0..rolls).any(|_| d.d6() == 6);
                if lost {
                    let u = s.fields[f].units.remove(i);
                    s.realms[seat as usize].lost_pp += t.unit(u.kind).pp_value as u32;
                    rep.push(format!(
                        "attrition: {} of {} lost on {}",
                        u.kind.name(),
                        s.realms[seat as usize].home,
                        map.name_of(f as u16)
                    ));
                } else {
                    i += 1;
                }
            }
        }
    }
    if s.season != Season::Winter {
        for f in 0..s.fields.len() as u16 {
            if !crate::control::encircled(s, f) {
                continue;
            }
            let Some(st) = s.fields[f as usize].settlement else { continue };
            let rolls = if st.city { 2 } else { 1 };
            if (0..rolls).any(|_| d.d6() == 6) {
                if s.fields[f as usize].grain > 0 {
                    s.fields[f as usize].grain -= 1;
                    rep.push(format!("encircled settlement on {} eats 1 grain", map.name_of(f)));
                } else if let Some((at, kind)) = relief(s, f, st.owner) {
                    // Version 2: "A unit may take a loss designated for settlement."
                    take(s, at, st.owner, kind, 1, Step::Units);
                    s.realms[st.owner as usize].lost_pp += t.unit(kind).pp_value as u32;
                    rep.push(format!(
                        "{} of {} on {} takes the loss of the encircled settlement on {}",
                        kind.name(),
                        s.realms[st.owner as usize].home,
                        map.name_of(at),
                        map.name_of(f)
                    ));
                } else {
                    s.fields[f as usize].settlement = None;
                    rep.push(format!("encircled settlement on {} starves and is destroyed", map.name_of(f)));
                }
            }
        }
    }
    if v2 {
        drown(s, rep);
    }
}

/// The unit that takes the loss of an encircled settlement (rules version
/// 2, designed): a unit of its realm on a neighbouring land field, the
/// cheapest first (by PP value, then the order of the units table), the
/// nearest field first in the map's order.
fn relief(s: &State, f: u16, seat: Seat) -> Option<(u16, UnitKind)> {
    if !s.from_version(2) {
        return None;
    }
    let map = s.map();
    let t = crate::data::tables();
    map.fields[f as usize]
        .neighbours
        .iter()
        .filter(|&&nb| !map.fields[nb as usize].is_sea())
        .flat_map(|&nb| s.fields[nb as usize].units.iter().filter(|u| u.owner == seat).map(move |u| (nb, u.kind)))
        .min_by_key(|&(nb, k)| (t.unit(k).pp_value, k, nb))
}

/// Land units on a sea field beyond the room aboard their realm's transport
/// ships there drown (rules version 2: ships sunk by shipwreck or battle).
pub fn drown(s: &mut State, rep: &mut Vec<String>) {
    let map = s.map();
    let t = crate::data::tables();
    for f in 0..s.fields.len() as u16 {
        if !map.fields[f as usize].is_sea() {
            continue;
        }
        for seat in 0..s.realms.len() as Seat {
            while aboard(s, f, seat) > ship_room(s, f, seat) {
                let Some(i) = s.fields[f as usize].units.iter().rposition(|u| u.owner == seat && !u.kind.is_ship())
                else {
                    break;
                };
                let u = s.fields[f as usize].units.remove(i);
                s.realms[seat as usize].lost_pp += t.unit(u.kind).pp_value as u32;
                rep.push(format!(
                    "{} of {} drown on {}: no ship carries them",
                    u.kind.name(),
                    s.realms[seat as usize].home,
                    map.name_of(f)
                ));
            }
        }
    }
}
