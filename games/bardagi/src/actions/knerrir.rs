//! Knerrir ("Knerrir", "Harbours"): the sea transport. A unit at a harbour
//! area boards it (one move, or none if the harbour is the clan's own: the
//! Knerrir counts as part of its interconnected area); one Knerrir card sails
//! 3 ocean squares (+2 per Oarsmen-type upgrade; up to 10 with a Sea move
//! rune), counting from the harbour: the first square is the first move and
//! entering a harbour the last. It may stop at harbours on the way to drop
//! units (free) or pick them up (with the unit's card) and sail on with the
//! same card. When no unit is left aboard it returns to the player board and
//! may be activated at any harbour again. It never fights and is never attacked.

use super::super::board::{AreaKind, SeaNode};
use super::super::build::Effect;
use super::super::planning::{require_turn, use_card};
use super::super::state::{Card, Event, Loc, RuneKind, ShipLoc, Unit};
use super::super::Ctx;
use super::{entry_error, pay_movement};
use runestone_engine::game::{RuleError, Seat};
use runestone_engine::reject;

/// Squares one Knerrir card sails.
pub fn allowance(cx: &Ctx, seat: Seat) -> u8 {
    (3 + cx.s.players[seat as usize].amount(&cx.s.tiles, Effect::KnerrirPlusTwo)).clamp(0, 255) as u8
}

/// The 2018 rules: the Knerrir, lying at a harbour, claims that harbour area
/// when it is empty (a Barbarian area, not a camp), placing a recruit from
/// the town area on it ("Knerrir - remove one disk from Village ... and
/// place on EMPTY harbour area (only harbours)"), with one Knerrir card.
pub fn claim_harbour(cx: &mut Ctx, seat: Seat) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    if !cx.s.y2018() {
        reject!("the Knerrir claims harbour areas only by the 2018 rules (the option rules: \"2018\")");
    }
    let p = &cx.s.players[seat as usize];
    let h = match p.ship {
        ShipLoc::At(SeaNode::Harbour(h)) => h,
        ShipLoc::At(n) => reject!("the Knerrir is at {}, not at a harbour", cx.s.board.node_name(n)),
        ShipLoc::Home => reject!("the Knerrir is on the player board; it claims a harbour it lies at"),
    };
    let area = cx.s.board.area(h);
    if !area.kind.ownable() || area.kind == AreaKind::Camp {
        reject!("the Knerrir claims only empty Barbarian areas; {} cannot be claimed", area.name);
    }
    if cx.s.areas[h as usize].owner.is_some() {
        reject!("the Knerrir claims only empty harbour areas; {} is owned by a clan", area.name);
    }
    if p.town == 0 {
        reject!("claiming a harbour takes a recruit from the town area, which holds none");
    }
    use_card(cx, seat, Card::Knerrir)?;
    cx.emit(Event::HarbourClaimed { seat, area: h });
    Ok(())
}

/// Board the Knerrir at the harbour the unit stands on.
pub fn board(cx: &mut Ctx, seat: Seat, unit: Unit) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    let p = &cx.s.players[seat as usize];
    let h = match p.units[unit.idx()] {
        Loc::Area(a) => a,
        Loc::Aboard => reject!("the {} is already on board", unit.name()),
        Loc::Fallen => reject!("the Berserkur is defeated"),
    };
    if !cx.s.board.area(h).harbour {
        reject!("{} has no harbour", cx.s.board.area(h).name);
    }
    match p.ship {
        ShipLoc::Home => {}
        ShipLoc::At(SeaNode::Harbour(x)) if x == h => {}
        ShipLoc::At(n) => reject!("the Knerrir is at {}, not here", cx.s.board.node_name(n)),
    }
    let cost = if cx.s.is_own(seat, h) { 0 } else { 1 };
    let allowance = pay_movement(cx, seat, unit, cost, "boarding the Knerrir")?;
    cx.emit(Event::UnitBoarded { seat, unit, harbour: h, cost, allowance });
    Ok(())
}

/// Leave the Knerrir at the harbour where it lies (free).
pub fn disembark(cx: &mut Ctx, seat: Seat, unit: Unit) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    let p = &cx.s.players[seat as usize];
    if p.units[unit.idx()] != Loc::Aboard {
        reject!("the {} is not on board", unit.name());
    }
    let ShipLoc::At(SeaNode::Harbour(h)) = p.ship else {
        reject!("units leave the Knerrir only at a harbour");
    };
    if let Some(e) = entry_error(&cx.s, seat, unit, h) {
        reject!("{e}");
    }
    cx.emit(Event::UnitDisembarked { seat, unit, harbour: h });
    if !cx.s.players[seat as usize].units.contains(&Loc::Aboard) {
        cx.emit(Event::KnerrirReturned { seat });
    }
    Ok(())
}

/// Sail along `route`.
pub fn sail(cx: &mut Ctx, seat: Seat, route: &[SeaNode], sea_rune: bool) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    let p = &cx.s.players[seat as usize];
    let ShipLoc::At(mut at) = p.ship else {
        reject!("the Knerrir is on the player board; a unit must board it at a harbour first");
    };
    if !p.units.contains(&Loc::Aboard) {
        reject!("no unit is on board");
    }
    if route.is_empty() {
        reject!("name the squares to sail");
    }
    if route.len() > 10 {
        reject!("one card sails at most 10 squares (with a Sea move rune), not {}", route.len());
    }
    for (i, n) in route.iter().enumerate() {
        if !cx.s.board.sea_next(at).contains(n) {
            reject!("square {}: {} is not next to {}", i + 1, cx.s.board.node_name(*n), cx.s.board.node_name(at));
        }
        at = *n;
    }
    let cost = route.len() as u8;
    let allowance = if sea_rune {
        if p.runes[RuneKind::SeaMove.idx()] == 0 {
            reject!("you hold no Sea move rune");
        }
        if cost > 10 {
            reject!("a Sea move rune sails up to 10 squares, not {cost}");
        }
        use_card(cx, seat, Card::Knerrir)?;
        Some(10)
    } else {
        let full = allowance(cx, seat);
        match p.moves[3] {
            Some(left) if left >= cost => None,
            _ => {
                if cost > full {
                    reject!("sailing {cost} squares; one Knerrir card sails {full}");
                }
                use_card(cx, seat, Card::Knerrir)?;
                Some(full)
            }
        }
    };
    cx.emit(Event::KnerrirSailed { seat, route: route.to_vec(), sea_rune, allowance });
    Ok(())
}
