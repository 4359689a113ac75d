//! Movement on land and refilling, shared by the units ("The game board -
//! areas & tokens", "Home area", "Your units", "Refill, trade & upgrade
//! buildings"). One card moves the Berserkur 1 area (3 with the Horse
//! stable), the Godi and Kaupmadur 2; all of a clan's interconnected own
//! areas count as one area; rivers are crossed only at bridges; mountains
//! never. Home areas are closed to other clans except their Kaupmadur; areas
//! with an enemy axe are closed to enemy Godi and Kaupmadur, and the
//! Berserkur may end on one but not pass through; an unowned Barbarian camp
//! admits only a Berserkur. The Godi and Kaupmadur may move, act, and go on
//! moving with the same card's remaining movement (within the turn).

pub mod berserkur;
pub mod godi;
pub mod kaupmadur;
pub mod knerrir;

use std::collections::VecDeque;

use super::board::{AreaId, AreaKind};
use super::build::Effect;
use super::planning::{require_turn, use_card};
use super::state::{Building, Event, Loc, State, Unit};
use super::Ctx;
use runestone_engine::game::{RuleError, Seat};
use runestone_engine::reject;

/// Why an area is closed to a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Closed {
    OtherHome,
    NotInPlay,
    Camp,
    Axe,
    /// The 2018 rules: another clan's Godi stands there (closed to a Godi).
    OtherGodi,
}

/// Whether (and why) `unit` of `seat` may not stand on area `a`, without
/// words: the searches ask this of every area many times a turn.
fn closed(s: &State, seat: Seat, unit: Unit, a: AreaId) -> Option<Closed> {
    let st = s.areas[a as usize];
    match s.board.area(a).kind {
        AreaKind::Home => match s.home_seat(a) {
            Some(o) if o == seat => None,
            Some(_) if unit == Unit::Kaupmadur => None,
            Some(_) => Some(Closed::OtherHome),
            None => Some(Closed::NotInPlay),
        },
        AreaKind::Camp if st.owner.is_none() && unit != Unit::Berserkur => Some(Closed::Camp),
        _ if st.owner.is_some() && st.owner != Some(seat) && st.axes > 0 && unit != Unit::Berserkur => {
            Some(Closed::Axe)
        }
        _ if unit == Unit::Godi && s.y2018() && s.foreign_godi(seat, a) => Some(Closed::OtherGodi),
        _ => None,
    }
}

/// Whether `unit` of `seat` may stand on area `a`.
pub fn may_enter(s: &State, seat: Seat, unit: Unit, a: AreaId) -> bool {
    closed(s, seat, unit, a).is_none()
}

/// Why `unit` of `seat` may not stand on area `a`, if it may not.
pub fn entry_error(s: &State, seat: Seat, unit: Unit, a: AreaId) -> Option<String> {
    let name = &s.board.area(a).name;
    closed(s, seat, unit, a).map(|c| match c {
        Closed::OtherHome => format!("{name} is another clan's home area; only a Kaupmadur may enter it"),
        Closed::NotInPlay => format!("{name} is the home of a clan not in play"),
        Closed::Camp => format!("{name} is a Barbarian camp; only a Berserkur may enter it until it is overtaken"),
        Closed::Axe => format!("{name} holds another clan's axe; a {} may not enter it", unit.name()),
        Closed::OtherGodi => {
            format!("another clan's Godi stands on {name}; by the 2018 rules a Godi may not enter an area with another Godi")
        }
    })
}

/// Whether `unit`, which may enter `a`, may also move on through it (not
/// only end there): a Berserkur stops on an area with another clan's axe.
fn passes(s: &State, seat: Seat, unit: Unit, a: AreaId) -> bool {
    let st = s.areas[a as usize];
    !(unit == Unit::Berserkur && st.owner.is_some() && st.owner != Some(seat) && st.axes > 0)
}

/// Movement cost from `from` to every area for `unit` (`u8::MAX`: unreachable).
/// A step costs nothing between two own areas (interconnected areas are one).
pub fn distances(s: &State, seat: Seat, unit: Unit, from: AreaId) -> Vec<u8> {
    distances_within(s, seat, unit, from, u8::MAX)
}

/// [`distances`] up to `limit`: areas further away are `u8::MAX`. The search
/// stops there, and looks at each area only when it reaches it.
pub fn distances_within(s: &State, seat: Seat, unit: Unit, from: AreaId, limit: u8) -> Vec<u8> {
    let n = s.board.len();
    // Per area: may end there, may pass through, is own; worked out when first met.
    const ENTER: u8 = 1;
    const PASS: u8 = 2;
    const OWN: u8 = 4;
    const UNKNOWN: u8 = 8;
    let mut flags = vec![UNKNOWN; n];
    let mut flag = |a: AreaId| {
        let f = &mut flags[a as usize];
        if *f == UNKNOWN {
            *f = 0;
            if may_enter(s, seat, unit, a) {
                *f |= ENTER;
                if passes(s, seat, unit, a) {
                    *f |= PASS;
                }
            }
            if s.is_own(seat, a) {
                *f |= OWN;
            }
        }
        *f
    };
    let mut dist = vec![u8::MAX; n];
    dist[from as usize] = 0;
    let mut q = VecDeque::new();
    q.push_back(from);
    while let Some(x) = q.pop_front() {
        let fx = flag(x);
        if x != from && fx & PASS == 0 {
            continue;
        }
        let dx = dist[x as usize];
        // Areas come off the queue nearest first: beyond the limit, no
        // shorter way to anything within it is left.
        if dx > limit {
            continue;
        }
        for &y in &s.board.land[x as usize] {
            let fy = flag(y);
            if fy & ENTER == 0 {
                continue;
            }
            let w = if fx & OWN != 0 && fy & OWN != 0 { 0 } else { 1 };
            let nd = dx.saturating_add(w);
            if nd < dist[y as usize] {
                dist[y as usize] = nd;
                if w == 0 {
                    q.push_front(y);
                } else {
                    q.push_back(y);
                }
            }
        }
    }
    if limit < u8::MAX {
        for d in &mut dist {
            if *d > limit {
                *d = u8::MAX;
            }
        }
    }
    dist
}

/// Areas one card moves `unit` (the 2018 rules: every land unit 2).
pub fn allowance(s: &State, seat: Seat, unit: Unit) -> u8 {
    match s.players[seat as usize].best(&s.tiles, Effect::BerserkurMovesThree) {
        Some(moves) if unit == Unit::Berserkur => moves,
        _ if unit == Unit::Berserkur && s.y2018() => super::rules2018::BERSERKUR_MOVES,
        _ => unit.base_moves(),
    }
}

/// Pay for `cost` movement of `unit`: the current card's leftover if it
/// suffices, else a new card. Returns the new card's allowance, if any.
pub fn pay_movement(cx: &mut Ctx, seat: Seat, unit: Unit, cost: u8, what: &str) -> Result<Option<u8>, RuleError> {
    if let Some(left) = cx.s.players[seat as usize].moves[unit.idx()] {
        if left >= cost {
            return Ok(None);
        }
    }
    let full = allowance(&cx.s, seat, unit);
    if cost > full {
        reject!("{what} takes {cost} moves; one {} card gives {full}", unit.name());
    }
    use_card(cx, seat, unit.card())?;
    Ok(Some(full))
}

/// Move a land unit.
pub fn move_unit(cx: &mut Ctx, seat: Seat, unit: Unit, to: AreaId) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    let s = &cx.s;
    if to as usize >= s.board.len() {
        reject!("there is no area {to}");
    }
    let from = match s.players[seat as usize].units[unit.idx()] {
        Loc::Area(a) => a,
        Loc::Aboard => reject!("the {} is on board the Knerrir; it leaves at a harbour", unit.name()),
        Loc::Fallen => reject!("the Berserkur is defeated; a Kaupmadur must refill Virki to bring him back"),
    };
    if from == to {
        reject!("the {} already stands on {}", unit.name(), s.board.area(to).name);
    }
    if let Some(e) = entry_error(s, seat, unit, to) {
        reject!("{e}");
    }
    // A move within the card's reach is searched only that far; a longer
    // one is refused, naming its whole cost.
    let reach = s.players[seat as usize].moves[unit.idx()].unwrap_or(0).max(allowance(s, seat, unit));
    let mut cost = distances_within(s, seat, unit, from, reach)[to as usize];
    if cost == u8::MAX {
        cost = distances(s, seat, unit, from)[to as usize];
    }
    if cost == u8::MAX {
        reject!("the {} cannot reach {} by land from {}", unit.name(), s.board.area(to).name, s.board.area(from).name);
    }
    // Version 7: "You can use one card to move any of the 3 units freely
    // within your area ... You still need the appropriate card": a move
    // through the own interconnected land is one area's movement, never free.
    if s.v7() && cost == 0 {
        cost = 1;
    }
    // Version 2: the Berserkur's free retreat goes back to the area next to
    // his new one that he stepped from, so the step is recorded.
    let via = if s.v2() && unit == Unit::Berserkur { last_step(s, seat, unit, from, to, cost) } else { None };
    let what = format!("going from {} to {}", s.board.area(from).name, s.board.area(to).name);
    let allowance = pay_movement(cx, seat, unit, cost, &what)?;
    cx.emit(Event::UnitMoved { seat, unit, from, to, cost, allowance, via });
    Ok(())
}

/// The area next to `to` that a move of `cost` from `from` enters `to`
/// from, when it is not `from` itself (a neighbour of `to` on a shortest way).
fn last_step(s: &State, seat: Seat, unit: Unit, from: AreaId, to: AreaId, cost: u8) -> Option<AreaId> {
    let dist = distances(s, seat, unit, from);
    let own = |a: AreaId| s.is_own(seat, a);
    let step = |y: AreaId| if own(y) && own(to) { 0 } else { 1 };
    let on_way = |y: &AreaId| {
        let d = dist[*y as usize];
        d != u8::MAX && (*y == from || passes(s, seat, unit, *y)) && d.saturating_add(step(*y)) == cost
    };
    let next = &s.board.land[to as usize];
    if next.contains(&from) && on_way(&from) {
        return None;
    }
    next.iter().copied().find(on_way)
}

/// Fill a building to its capacity from the supply, paying 4 goods.
/// `revive` (rules version 2, a Virki refill bringing a defeated Berserkur
/// back) is accepted even when no disk can be added.
pub fn refill_building(cx: &mut Ctx, seat: Seat, b: Building, revive: bool) -> Result<(), RuleError> {
    let p = &cx.s.players[seat as usize];
    let cap = p.capacity(&cx.s.tiles, b);
    let have = p.disks[b.idx()];
    if have >= cap && !revive {
        reject!("{} is already full ({have} of {cap} disks)", b.name());
    }
    let g = b.refill_good();
    if p.goods[g.idx()] < 4 {
        reject!("refilling {} costs 4 {}; the storage holds {}", b.name(), g.name(), p.goods[g.idx()]);
    }
    let disks = cap.min(have + p.supply).max(have);
    if disks == have && !revive {
        reject!("no unused disks are left to refill {}", b.name());
    }
    cx.emit(Event::BuildingRefilled { seat, building: b, disks, paid: 4 });
    Ok(())
}

/// Berserkur refills Virki or Godi refills Hof, standing at home.
pub fn refill(cx: &mut Ctx, seat: Seat, unit: Unit) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    let b = match unit {
        Unit::Berserkur => Building::Virki,
        Unit::Godi => Building::Hof,
        Unit::Kaupmadur => reject!("the Kaupmadur refills with a trade action at home (Trade with refill)"),
    };
    let home = cx.s.players[seat as usize].home;
    if cx.s.unit_area(seat, unit) != Some(home) {
        reject!("the {} refills {} only at the home area", unit.name(), b.name());
    }
    // A failed command leaves no trace, so the card may be laid down first.
    use_card(cx, seat, unit.card())?;
    refill_building(cx, seat, b, false)
}
