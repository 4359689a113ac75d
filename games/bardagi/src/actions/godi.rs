//! Godi ("Godi", "Godi runes", "Rune table", "Sacred location"): converts
//! Barbarian areas with two divine powers (one claims the area, the other
//! joins the town area as a recruit); influences the area he stands on at
//! the Claim phase (+1 resource on his own area, nothing for the owner of
//! another clan's area without an axe; see `claim`); casts up to two runes
//! with one card and one Hof disk on any areas at any distance (not home or
//! sacred areas, not where another clan's Godi stands; curses only on other
//! clans' areas, other runes only on own areas; one rune of a type and one
//! curse per area); removes a rune where he stands for 1 gold without a
//! card; buys 3 runes for 2 gold at a sacred location once per turn (as the
//! Kaupmadur may).

use std::sync::LazyLock;

use serde::Deserialize;

use super::super::board::AreaKind;
use super::super::planning::{require_turn, use_card};
use super::super::state::{Event, RuneCast, RuneKind, Unit};
use super::super::Ctx;
use super::berserkur::after_takeover;
use runestone_engine::game::{RuleError, Seat};
use runestone_engine::reject;

/// A rune type and how many tokens of it are in the box.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuneSpec {
    pub kind: RuneKind,
    pub name: String,
    pub count: u8,
}

#[derive(Deserialize)]
struct RuneFile {
    rune: Vec<RuneSpec>,
}

/// Parse and check the rune mix.
pub fn parse_runes(text: &str) -> Result<Vec<RuneSpec>, String> {
    let f: RuneFile = toml::from_str(text).map_err(|e| format!("runes: {e}"))?;
    for k in RuneKind::ALL {
        if f.rune.iter().filter(|r| r.kind == k).count() != 1 {
            return Err(format!("runes: list {} exactly once", k.name()));
        }
    }
    Ok(f.rune)
}

/// The rune mix of `runes.toml` (48 tokens).
pub static RUNES: LazyLock<Vec<RuneSpec>> =
    LazyLock::new(|| parse_runes(include_str!("../../data/runes.toml")).expect("runes.toml is valid"));

/// Convert the Barbarian area the Godi stands on.
pub fn convert(cx: &mut Ctx, seat: Seat) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    let Some(a) = cx.s.unit_area(seat, Unit::Godi) else { reject!("the Godi is not on an area") };
    let area = cx.s.board.area(a);
    if !area.kind.ownable() || area.kind == AreaKind::Camp {
        reject!("the Godi cannot convert {}", area.name);
    }
    if cx.s.areas[a as usize].owner.is_some() {
        reject!("the Godi converts only Barbarian areas; {} is owned by a clan", area.name);
    }
    let hof = cx.s.players[seat as usize].disks[1];
    if hof < 2 {
        reject!("converting needs 2 divine powers, Hof holds {hof}");
    }
    use_card(cx, seat, Unit::Godi.card())?;
    cx.emit(Event::AreaOvertaken { seat, area: a, from: None, by: Unit::Godi, spent: 1, placed: 1, recruit: true });
    after_takeover(cx, seat, a, None);
    Ok(())
}

/// Cast up to two runes.
pub fn cast(cx: &mut Ctx, seat: Seat, casts: &[RuneCast]) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    if casts.is_empty() || casts.len() > 2 {
        reject!("one card casts one or two runes, not {}", casts.len());
    }
    let s = &cx.s;
    if s.unit_area(seat, Unit::Godi).is_none() {
        reject!("the Godi casts runes only while standing on an area");
    }
    let p = &s.players[seat as usize];
    if p.disks[1] < 1 {
        reject!("casting needs 1 divine power; Hof is empty");
    }
    let mut held = p.runes;
    let mut marks: Vec<(u8, u8)> = Vec::new();
    for c in casts {
        if c.area as usize >= s.board.len() {
            reject!("there is no area {}", c.area);
        }
        let area = s.board.area(c.area);
        let st = s.areas[c.area as usize];
        if c.rune == RuneKind::SeaMove {
            reject!("Sea move is used with a Knerrir card, not cast on an area");
        }
        if held[c.rune.idx()] == 0 {
            reject!("you hold no {} rune", c.rune.name());
        }
        held[c.rune.idx()] -= 1;
        if !area.kind.ownable() {
            reject!("nothing can be placed on {}", area.name);
        }
        if s.foreign_godi(seat, c.area) {
            reject!("another clan's Godi stands on {}; it is immune to runes", area.name);
        }
        let mut runes = st.runes;
        for (a, r) in &marks {
            if *a == c.area {
                runes |= r;
            }
        }
        if runes & c.rune.bit() != 0 {
            reject!("{} already holds a {} rune", area.name, c.rune.name());
        }
        if c.rune.is_curse() {
            if st.owner.is_none() || st.owner == Some(seat) {
                reject!("curse runes go only on other clans' areas");
            }
            if runes & (RuneKind::NoResources.bit() | RuneKind::TheirsAreYours.bit()) != 0 {
                reject!("{} already holds a curse", area.name);
            }
        } else if st.owner != Some(seat) {
            reject!("{} goes only on your own areas", c.rune.name());
        }
        marks.push((c.area, c.rune.bit()));
    }
    use_card(cx, seat, Unit::Godi.card())?;
    cx.emit(Event::RunesCast { seat, casts: casts.to_vec() });
    Ok(())
}

/// Remove a rune from the Godi's area for 1 gold.
pub fn remove_rune(cx: &mut Ctx, seat: Seat, rune: RuneKind) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    let Some(a) = cx.s.unit_area(seat, Unit::Godi) else { reject!("the Godi is not on an area") };
    if !cx.s.areas[a as usize].has_rune(rune) {
        reject!("{} holds no {} rune", cx.s.board.area(a).name, rune.name());
    }
    if cx.s.players[seat as usize].gold < 1 {
        reject!("removing a rune costs 1 gold");
    }
    cx.gold(seat, -1);
    cx.emit(Event::RuneRemoved { seat, area: a, rune });
    Ok(())
}

/// Buy 3 runes for 2 gold at a sacred location.
pub fn buy_runes(cx: &mut Ctx, seat: Seat, unit: Unit) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    if unit == Unit::Berserkur {
        reject!("only the Godi or the Kaupmadur buys runes");
    }
    let Some(a) = cx.s.unit_area(seat, unit) else { reject!("the {} is not on an area", unit.name()) };
    if cx.s.board.area(a).kind != AreaKind::Sacred {
        reject!("runes are bought at a sacred location; the {} stands on {}", unit.name(), cx.s.board.area(a).name);
    }
    let p = &cx.s.players[seat as usize];
    if p.bought_runes {
        reject!("runes are bought once per turn");
    }
    if p.gold < 2 {
        reject!("3 runes cost 2 gold");
    }
    if cx.s.rune_pile.iter().all(|c| *c == 0) {
        reject!("the rune pile is empty");
    }
    use_card(cx, seat, unit.card())?;
    cx.emit(Event::RunesBought { seat, unit });
    cx.gold(seat, -2);
    cx.draw_runes(seat, 3);
    Ok(())
}
