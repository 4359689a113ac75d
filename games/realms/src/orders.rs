//! Orders by mail in the words of Realms: a season's orders, one per line,
//! read into one `Orders` command. The mail prints where the realm's units
//! stand and the lines it takes:
//!
//! ```text
//! move 3 light infantry from 12 to 14
//! loot 17
//! sow 3 5 8
//! recruit 4
//! build village at 12
//! buy 2 heavy infantry at 12
//! festival small
//! escape below 50
//! no orders
//! ```
//!
//! Fields are named by their number (the page and the mail show it).
//! Whether an order is allowed is the rules' to say, when the orders are
//! decided.

use runestone_engine::present::orders::plain_words;
use runestone_engine::present::{OrderError, OrderLine};
use runestone_engine::Seat;
use serde_json::Value;

use crate::state::{Build, Building, Command, Move, Orders, Purchase, Season, UnitKind};
use crate::view::View;

/// The most fields a mail lists the realm's units on.
const MAX_FIELDS: usize = 24;

/// The lines a mail prints for a season's orders.
pub fn order_form(view: &View, seat: Seat) -> Vec<String> {
    let mut out = vec![
        format!("Your orders for {} of year {}, one per line, for example:", view.season.name(), view.year),
        "  move 3 light infantry from 12 to 14".to_owned(),
        "  loot 17 · sow 3 5 8 · recruit 4 · build village at 12 · buy 2 heavy infantry at 12".to_owned(),
        "  festival small · escape below 50 · no orders".to_owned(),
    ];
    let mut listed = 0;
    for f in &view.fields {
        let mine: Vec<&crate::view::UnitView> = f.units.iter().filter(|u| u.owner == seat).collect();
        if mine.is_empty() {
            continue;
        }
        if listed == MAX_FIELDS {
            out.push("  … and more fields: see the game page".to_owned());
            break;
        }
        if listed == 0 {
            out.push("Where your units stand:".to_owned());
        }
        let mut counts: Vec<(UnitKind, usize)> = Vec::new();
        for u in mine {
            match counts.iter_mut().find(|(k, _)| *k == u.kind) {
                Some((_, n)) => *n += 1,
                None => counts.push((u.kind, 1)),
            }
        }
        let units: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {}", k.name())).collect();
        out.push(format!("  {} ({}): {}", f.id, f.name, units.join(", ")));
        listed += 1;
    }
    out
}

/// A season's orders read from a reply's lines; `None` when the first line
/// is not one of them (a number of the generic list, or its words).
pub fn read_orders(lines: &[OrderLine], view: &View, _seat: Seat) -> Option<Result<Value, OrderError>> {
    let first = plain_words(&lines.first()?.text);
    let verb = first.split(' ').next().unwrap_or("");
    if !VERBS.contains(&verb) {
        return None;
    }
    let mut orders = Orders::default();
    for line in lines {
        if let Err(message) = read_line(&plain_words(&line.text), view, &mut orders) {
            return Some(Err(OrderError::at(line, message)));
        }
    }
    Some(Ok(serde_json::to_value(Command::Orders { orders }).expect("JSON")))
}

const VERBS: [&str; 10] = ["move", "loot", "sow", "recruit", "build", "buy", "festival", "escape", "no", "pass"];

const FORMS: &str = "the lines are: move N unit from FIELD to FIELD; loot FIELD; sow FIELD …; recruit FIELD …; \
                     build village|city|dock|port|fortification at FIELD; buy N unit at FIELD; festival small|double|triple; \
                     escape below PERCENT; no orders";

fn read_line(words: &str, view: &View, orders: &mut Orders) -> Result<(), String> {
    let w: Vec<&str> = words.split(' ').collect();
    match w.as_slice() {
        ["no", "orders"] | ["pass"] => Ok(()),
        ["move", n, rest @ ..] => {
            let count = number(n)?;
            let from_at = rest
                .iter()
                .position(|t| *t == "from")
                .ok_or("a move says from which field: move 3 light infantry from 12 to 14")?;
            let to_at = rest
                .iter()
                .position(|t| *t == "to")
                .ok_or("a move says to which field: move 3 light infantry from 12 to 14")?;
            if !(from_at < to_at && to_at == from_at + 2 && to_at + 2 == rest.len()) {
                return Err("write a move as: move 3 light infantry from 12 to 14".into());
            }
            let unit = unit_named(&rest[..from_at])?;
            let (from, to) = (field(rest[from_at + 1], view)?, field(rest[to_at + 1], view)?);
            orders.moves.push(Move { from, to, unit, count });
            Ok(())
        }
        ["loot", f] => {
            orders.loot.push(field(f, view)?);
            Ok(())
        }
        ["sow", fields @ ..] | ["recruit", fields @ ..] if !fields.is_empty() => {
            let list = if w[0] == "sow" { &mut orders.sow } else { &mut orders.recruit };
            for f in fields {
                list.push(field(f, view)?);
            }
            Ok(())
        }
        ["build", b, "at", f] => {
            let building = Building::ALL
                .into_iter()
                .find(|x| x.name() == *b || format!("{}s", x.name()) == *b)
                .ok_or_else(|| format!("\"{b}\" is not a building: village, city, dock, port or fortification"))?;
            orders.build.push(Build { field: field(f, view)?, building });
            Ok(())
        }
        ["buy", n, rest @ ..] if rest.len() >= 3 && rest[rest.len() - 2] == "at" => {
            let count = number(n)?;
            let unit = unit_named(&rest[..rest.len() - 2])?;
            orders.buy.push(Purchase { field: field(rest[rest.len() - 1], view)?, unit, count });
            Ok(())
        }
        ["festival", size] => {
            if view.season != Season::Winter {
                return Err("festivals are held in winter".into());
            }
            orders.festival = match *size {
                "small" | "1" => 1,
                "double" | "2" => 2,
                "triple" | "3" => 3,
                other => return Err(format!("\"{other}\" is not a festival: small, double or triple")),
            };
            Ok(())
        }
        ["escape", "below", p] | ["escape", "below", p, "percent"] => {
            let p = number(p)?;
            if p > 100 {
                return Err(format!("{p} is not a percentage"));
            }
            orders.battle.escape_below = p;
            Ok(())
        }
        _ => Err(format!("this is not an order of Realms: {FORMS}")),
    }
}

fn number(t: &str) -> Result<u8, String> {
    t.parse().map_err(|_| format!("\"{t}\" is not a number from 0 to 255"))
}

/// A field by its number ("12" or "field 12" read as "12").
fn field(t: &str, view: &View) -> Result<u16, String> {
    let n: u16 = t.parse().map_err(|_| format!("\"{t}\" is not a field's number"))?;
    if !view.fields.iter().any(|f| f.id == n) {
        return Err(format!("there is no field {n} on this map"));
    }
    Ok(n)
}

/// A kind of unit by its words ("light infantry", "cavalry", "war ship").
fn unit_named(words: &[&str]) -> Result<UnitKind, String> {
    let said = words.iter().filter(|w| **w != "field").copied().collect::<Vec<_>>().join(" ");
    let bare = |s: &str| s.trim_end_matches('s').replace(' ', "");
    UnitKind::ALL
        .into_iter()
        .find(|k| {
            let name = bare(&plain_words(k.name()));
            let s = bare(&said);
            !s.is_empty() && (name == s || (s.len() >= 4 && name.starts_with(&s)))
        })
        .ok_or_else(|| {
            let all: Vec<String> = UnitKind::ALL.iter().map(|k| k.name().to_lowercase()).collect();
            format!("\"{said}\" is not a kind of unit: {}", all.join(", "))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: usize, text: &str) -> OrderLine {
        OrderLine { number: n, text: text.into() }
    }

    fn sample_view() -> View {
        use runestone_engine::{Game, GameRng, Seed, Viewer};
        let mut rng = GameRng::new(Seed([5; 32]), 0);
        let mut s = crate::state::State::default();
        for e in crate::Realms::setup(&Default::default(), 4, crate::Realms::info().rules_version, &mut rng).unwrap() {
            crate::Realms::apply(&mut s, &e.event);
        }
        serde_json::from_value(crate::Realms::view(&s, Viewer::Seat(0))).unwrap()
    }

    #[test]
    fn a_seasons_orders_read_line_by_line_into_one_command() {
        let v = sample_view();
        let f = v.fields.iter().find(|f| !f.sea).map(|f| f.id).expect("a field");
        let got = read_orders(
            &[
                line(1, &format!("Move 3 Light Infantry from {f} to {f}")),
                line(2, &format!("loot {f}")),
                line(4, &format!("build village at {f}")),
                line(5, "escape below 50"),
            ],
            &v,
            0,
        )
        .expect("Realms' words")
        .expect("read");
        let Command::Orders { orders } = serde_json::from_value::<Command>(got).unwrap();
        assert_eq!(orders.moves, vec![Move { from: f, to: f, unit: UnitKind::LightInfantry, count: 3 }]);
        assert_eq!(orders.loot, vec![f]);
        assert_eq!(orders.build.len(), 1);
        assert_eq!(orders.battle.escape_below, 50);
        let no = read_orders(&[line(1, "no orders")], &v, 0).unwrap().unwrap();
        assert_eq!(no, serde_json::to_value(Command::Orders { orders: Orders::default() }).unwrap());
        assert!(read_orders(&[line(1, "2")], &v, 0).is_none(), "a number is the generic list's");
    }

    #[test]
    fn a_wrong_line_is_named_with_what_the_form_expects() {
        let v = sample_view();
        let e = read_orders(&[line(1, "loot 1"), line(3, "march to the sea")], &v, 0).unwrap().unwrap_err();
        assert_eq!(e.line.map(|l| l.number), Some(3));
        assert!(e.message.contains("move N unit from FIELD to FIELD"), "{}", e.message);
        let e = read_orders(&[line(2, "move 3 dragons from 1 to 2")], &v, 0).unwrap().unwrap_err();
        assert!(e.message.starts_with("\"dragons\" is not a kind of unit"), "{}", e.message);
        let e = read_orders(&[line(1, "loot 99999")], &v, 0).unwrap().unwrap_err();
        assert!(e.message.contains("not a field") || e.message.contains("no field"), "{}", e.message);
    }
}
