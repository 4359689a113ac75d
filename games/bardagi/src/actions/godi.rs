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
use super::super::rules2018;
use super::super::state::{Event, RuneCast, RuneKind, Unit};
use super::super::Ctx;
use super::berserkur::after_takeover;
use runestone_engine::game::{RuleError, Seat};
use runestone_engine::reject;

/// A rune type and how many tokens of it are in the box.
#[derive(Clone, Debug)]
pub struct RuneSpec {
    pub kind: RuneKind,
    pub name: String,
    pub count: u8,
}

/// The line (from 1) of byte `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// Parse and check a rune file: one `[[rune]]` table per kind with `kind`,
/// `name` and `count` (0 to 99). Every fault is named with its line (of a
/// rune's fault, the line its `[[rune]]` begins).
pub fn parse_runes(text: &str) -> Result<Vec<RuneSpec>, String> {
    #[derive(Deserialize)]
    struct File {
        #[serde(default)]
        rune: Vec<toml::Spanned<toml::Table>>,
    }
    let f: File = toml::from_str(text).map_err(|e| match e.span() {
        Some(sp) => format!("runes, line {}: this line is not a valid TOML key and value", line_of(text, sp.start)),
        None => "runes: the file is not valid TOML".to_string(),
    })?;
    let kinds: Vec<String> = RuneKind::ALL
        .iter()
        .map(|k| serde_json::to_value(k).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default())
        .collect();
    let mut out: Vec<RuneSpec> = Vec::new();
    for entry in &f.rune {
        let line = line_of(text, entry.span().start);
        let t = entry.get_ref();
        if let Some(k) = t.keys().find(|k| !["kind", "name", "count"].contains(&k.as_str())) {
            return Err(format!(
                "runes, the [[rune]] at line {line}: unknown key '{k}'; a rune has kind, name and count"
            ));
        }
        let kind = match t.get("kind").map(|v| v.as_str()) {
            None => return Err(format!("runes, the [[rune]] at line {line}: the rune has no kind")),
            Some(None) => return Err(format!("runes, the [[rune]] at line {line}: the kind is a name in quotes")),
            Some(Some(k)) => match kinds.iter().position(|x| x == k) {
                Some(i) => RuneKind::ALL[i],
                None => {
                    return Err(format!(
                        "runes, the [[rune]] at line {line}: no rune is called '{k}'; the runes are {}",
                        kinds.join(", ")
                    ))
                }
            },
        };
        let name = match t.get("name") {
            None => kind.name().to_string(),
            Some(v) => match v.as_str() {
                Some(n) if !n.trim().is_empty() => n.to_string(),
                _ => return Err(format!("runes, the [[rune]] at line {line}: the name is words in quotes")),
            },
        };
        let count = match t.get("count").map(|v| v.as_integer()) {
            None => return Err(format!("runes, the [[rune]] at line {line}: the {} rune has no count", kind.name())),
            Some(Some(c)) if (0..=99).contains(&c) => c as u8,
            Some(_) => {
                return Err(format!(
                    "runes, the [[rune]] at line {line}: the count of {} is a whole number from 0 to 99",
                    kind.name()
                ))
            }
        };
        if out.iter().any(|r| r.kind == kind) {
            return Err(format!("runes, the [[rune]] at line {line}: {} is listed twice", kind.name()));
        }
        out.push(RuneSpec { kind, name, count });
    }
    if let Some(k) = RuneKind::ALL.iter().find(|k| !out.iter().any(|r| r.kind == **k)) {
        return Err(format!("runes: {} is missing; list every rune, with count 0 for one not in the box", k.name()));
    }
    if out.iter().all(|r| r.count == 0) {
        return Err("runes: the pile holds no rune; give at least one a count".into());
    }
    Ok(out)
}

/// The rune mix of `runes.toml` (48 tokens).
pub static RUNES: LazyLock<Vec<RuneSpec>> =
    LazyLock::new(|| parse_runes(include_str!("../../data/runes.toml")).expect("runes.toml is valid"));

/// Tokens per kind (in [`RuneKind`] order) of a rune mix.
pub fn pile_of(specs: &[RuneSpec]) -> [u8; 6] {
    let mut pile = [0u8; 6];
    for r in specs {
        pile[r.kind.idx()] += r.count;
    }
    pile
}

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
    let free = s.y2018();
    if free {
        // The 2018 rules: "You can cast up to TWO runes ONCE during your
        // Activation Phase", without a card or divine power.
        let most = rules2018::FREE_RUNES_PER_TURN;
        if p.runes_cast as usize + casts.len() > most as usize {
            reject!("by the 2018 rules up to {most} runes are cast a turn; {} already cast this turn", p.runes_cast);
        }
    } else if p.disks[1] < 1 {
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
        if free && runes & RuneKind::Defence.bit() != 0 {
            reject!("{} holds a Defence rune; by the 2018 rules no new rune may be cast on it", area.name);
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
    if !free {
        use_card(cx, seat, Unit::Godi.card())?;
    }
    cx.emit(Event::RunesCast { seat, casts: casts.to_vec() });
    Ok(())
}

/// Remove a rune from the Godi's area for 1 gold (2 by the 2018 rules).
pub fn remove_rune(cx: &mut Ctx, seat: Seat, rune: RuneKind) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    let Some(a) = cx.s.unit_area(seat, Unit::Godi) else { reject!("the Godi is not on an area") };
    if !cx.s.areas[a as usize].has_rune(rune) {
        reject!("{} holds no {} rune", cx.s.board.area(a).name, rune.name());
    }
    let cost = if cx.s.y2018() { rules2018::RUNE_REMOVAL_GOLD } else { 1 };
    if cx.s.players[seat as usize].gold < cost {
        reject!("removing a rune costs {cost} gold");
    }
    cx.gold(seat, -cost);
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
