//! Berserkur ("Berserkur", "Combat", "The one-more rule", "Barbarian camp"):
//! one card attacks the area he stands on, in order: defeat a Berserkur
//! present (attacker 5 disks from Virki, defender 4 if able; 7 against 6
//! with the Champion upgrade), defeat axes (2 disks each, 4 with the Axe
//! master), defeat the defenders (as many disks as present, plus 1 for a
//! Defence rune; a Barbarian area counts 1, a Barbarian camp 3), then claim
//! with one disk; extra disks from Virki may reinforce at once. All needed
//! disks must be on Virki. He may retreat to the area he came from for free.
//! One card rearranges or removes own disks on the board.

use super::super::board::AreaKind;
use super::super::build::Effect;
use super::super::planning::{require_turn, use_card};
use super::super::rules2018::{fight_extra, RoundFree};
use super::super::state::{DiskMove, DiskSpot, Event, Loc, RuneKind, State, Unit};
use super::super::Ctx;
use super::entry_error;
use runestone_engine::game::{RuleError, Seat};
use runestone_engine::reject;

/// Defence of a clan's Berserkur: 4, or the Champion's (6).
pub fn berserkur_defence(s: &State, seat: Seat) -> u8 {
    s.players[seat as usize].best(&s.tiles, Effect::BerserkurStrength).unwrap_or(4)
}

/// What an attack on area `a` by `seat` costs: (per enemy Berserkur, axes,
/// defenders) in disks, before the claiming disk.
pub fn attack_cost(s: &State, seat: Seat, a: u8) -> (Vec<(Seat, u8)>, u8, u8) {
    let st = s.areas[a as usize];
    let bers: Vec<(Seat, u8)> = (0..s.n() as Seat)
        .filter(|&o| o != seat && s.players[o as usize].units[0] == Loc::Area(a))
        .map(|o| (o, berserkur_defence(s, o) + fight_extra(s.edition)))
        .collect();
    let per_axe = match st.owner {
        Some(o) => s.players[o as usize].best(&s.tiles, Effect::AxePlusTwo).unwrap_or(2),
        None => 2,
    };
    let axes = st.axes * per_axe;
    let mut defenders = match st.owner {
        Some(_) => st.disks,
        None if s.board.area(a).kind == AreaKind::Camp => 3,
        None => 1,
    };
    if st.has_rune(RuneKind::Defence) {
        defenders += 1;
    }
    (bers, axes, defenders)
}

/// The attack.
pub fn attack(cx: &mut Ctx, seat: Seat, claim: bool, reinforce: u8) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    let Some(a) = cx.s.unit_area(seat, Unit::Berserkur) else {
        reject!("the Berserkur is not on an area");
    };
    let s = &cx.s;
    let area = s.board.area(a);
    if !area.kind.ownable() {
        reject!("{} cannot be attacked", area.name);
    }
    let st = s.areas[a as usize];
    if claim && st.owner == Some(seat) {
        reject!("{} is already yours", area.name);
    }
    let (bers, axes, defenders) = attack_cost(s, seat, a);
    let virki = s.players[seat as usize].disks[0];
    let need: u32 = if claim {
        bers.iter().map(|b| b.1 as u32).sum::<u32>() + axes as u32 + defenders as u32 + 1 + reinforce as u32
    } else {
        if bers.is_empty() {
            reject!("there is no enemy Berserkur on {} to fight", area.name);
        }
        if reinforce > 0 {
            reject!("disks reinforce only an area just claimed");
        }
        bers.iter().map(|b| b.1 as u32).sum()
    };
    if need > virki as u32 {
        reject!("needs {need} disks, Virki holds {virki}");
    }
    // Version 2: "Move and / or attack": the card that moved him here this
    // turn also attacks; otherwise the attack lays down a card of its own.
    if !(cx.s.v2() && cx.s.players[seat as usize].may_attack) {
        use_card(cx, seat, super::super::state::Card::Berserkur)?;
    }
    for (victim, cost) in bers {
        let defender_lost = berserkur_defence(&cx.s, victim).min(cx.s.players[victim as usize].disks[0]);
        cx.emit(Event::BerserkurDefeated { seat, victim, area: a, attacker_lost: cost, defender_lost });
    }
    if !claim {
        // Version 2: "if occupying an area during attack, he must retreat":
        // a fight that only defeats the Berserkur is an attack too.
        if cx.s.v2() {
            godi_retreat(cx, seat, a);
        }
        return Ok(());
    }
    if st.axes > 0 {
        cx.emit(Event::AxesDestroyed { seat, area: a, axes: st.axes, disks: axes });
    }
    let from = st.owner;
    cx.emit(Event::AreaOvertaken {
        seat,
        area: a,
        from,
        by: Unit::Berserkur,
        spent: defenders,
        placed: 1 + reinforce,
        recruit: false,
    });
    after_takeover(cx, seat, a, from);
    godi_retreat(cx, seat, a);
    if from.is_none() && cx.s.board.area(a).kind == AreaKind::Camp {
        let count = 2.min(cx.s.axe_supply);
        if count > 0 {
            cx.emit(Event::AxesGained { seat, count });
        }
    }
    Ok(())
}

/// What follows any takeover: instant glory for villages and gold mines
/// taken from a clan.
pub fn after_takeover(cx: &mut Ctx, seat: Seat, a: u8, from: Option<Seat>) {
    if let Some(loser) = from {
        let kind = cx.s.board.area(a).kind;
        if matches!(kind, AreaKind::Village | AreaKind::GoldMine) {
            let what = if kind == AreaKind::Village { "village" } else { "gold mine" };
            cx.glory(seat, 1, &format!("{what} taken from another clan"));
            cx.glory(loser, -1, &format!("{what} lost to another clan"));
        }
    }
}

/// "Godi never participates in an attack and if occupying an area during
/// attack, he must retreat": other clans' Godi on the attacked area go home.
pub fn godi_retreat(cx: &mut Ctx, seat: Seat, a: u8) {
    for o in 0..cx.s.n() as Seat {
        if o != seat && cx.s.players[o as usize].units[1] == Loc::Area(a) {
            let home = cx.s.players[o as usize].home;
            cx.emit(Event::UnitRetreated { seat: o, unit: Unit::Godi, from: a, to: home });
        }
    }
}

/// Back to the area he entered from, without a card.
pub fn retreat(cx: &mut Ctx, seat: Seat) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    let Some(a) = cx.s.unit_area(seat, Unit::Berserkur) else {
        reject!("the Berserkur is not on an area");
    };
    // Version 2: "Attacker can always retreat to entry area without using
    // action" belongs to COMBAT: only after a fight on this area this turn.
    if cx.s.v2() && cx.s.players[seat as usize].fought != Some(a) {
        reject!("the Berserkur retreats for free only after fighting on {} this turn", cx.s.board.area(a).name);
    }
    let Some(back) = cx.s.players[seat as usize].entered_from[0] else {
        reject!("the Berserkur has not entered an area this turn to retreat from");
    };
    if let Some(e) = entry_error(&cx.s, seat, Unit::Berserkur, back) {
        reject!("{e}");
    }
    cx.emit(Event::UnitRetreated { seat, unit: Unit::Berserkur, from: a, to: back });
    Ok(())
}

/// Rearrange or remove own disks with one card.
pub fn rearrange(cx: &mut Ctx, seat: Seat, moves: &[DiskMove]) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    if moves.is_empty() || moves.iter().all(|m| m.count == 0) {
        reject!("name at least one disk to move");
    }
    let s = &cx.s;
    let mut areas: Vec<u8> = s.areas.iter().map(|x| x.disks).collect();
    let mut own: Vec<bool> = s.areas.iter().map(|x| x.owner == Some(seat)).collect();
    let mut virki = s.players[seat as usize].disks[0];
    for (i, m) in moves.iter().enumerate() {
        let k = i + 1;
        match m.from {
            DiskSpot::Area(a) => {
                let Some(have) = areas.get(a as usize).copied() else { reject!("move {k}: there is no area {a}") };
                if !own[a as usize] || have < m.count {
                    reject!(
                        "move {k}: {} holds {} of your disks, not {}",
                        s.board.area(a).name,
                        if own[a as usize] { have } else { 0 },
                        m.count
                    );
                }
                areas[a as usize] -= m.count;
                if areas[a as usize] == 0 {
                    own[a as usize] = false;
                }
            }
            DiskSpot::Virki => {
                if virki < m.count {
                    reject!("move {k}: Virki holds {virki} disks, not {}", m.count);
                }
                virki -= m.count;
            }
            DiskSpot::Town => reject!("move {k}: disks on the town area wait for the Claim phase"),
        }
        match m.to {
            DiskSpot::Area(a) => {
                if a as usize >= areas.len() || !own[a as usize] {
                    reject!("move {k}: disks go only onto areas you own");
                }
                areas[a as usize] += m.count;
            }
            DiskSpot::Town => {
                if m.from == DiskSpot::Virki {
                    reject!("move {k}: disks on Virki stay there or go onto the board");
                }
            }
            DiskSpot::Virki => reject!("move {k}: removed disks go to the town area, not back to Virki"),
        }
    }
    // The 2018 rules: "Strengthen defences - Free action, once per round"
    // (unless the War horn was chosen for this step).
    if cx.s.y2018() && cx.free.is_none() && !cx.s.players[seat as usize].round_free[RoundFree::Strengthen.idx()] {
        cx.emit(Event::RoundFreeUsed { seat, action: RoundFree::Strengthen });
    } else {
        use_card(cx, seat, super::super::state::Card::Berserkur)?;
    }
    cx.emit(Event::DisksRearranged { seat, moves: moves.to_vec() });
    Ok(())
}
