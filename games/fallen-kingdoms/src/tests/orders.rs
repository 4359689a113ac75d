//! The turn program by mail: the form a mail prints, read back as a reply,
//! is the program the seat page's composer posts; each kind of mistake is
//! refused naming its line.

use std::collections::BTreeMap;

use runestone_engine::present::{FormsInput, OrderError, OrderLine, Present};
use runestone_engine::{Game, Seat, Viewer};
use serde_json::Value;

use super::present::{names, press, typed};
use super::Driver;
use crate::forms::{adjacent, city_name, mine};
use crate::state::Phase;
use crate::view::View;
use crate::{FallenKingdoms, Options};

fn v2() -> Options {
    Options { rules_version: Some(2), ..Options::default() }
}

/// The legal commands of `seat` and their labels.
fn legal(d: &Driver, seat: Seat) -> (Vec<Value>, Vec<String>) {
    let legal = FallenKingdoms::legal(&d.state, seat);
    (
        legal.iter().map(|c| serde_json::to_value(c).expect("JSON")).collect(),
        legal.iter().map(|c| FallenKingdoms::label(&d.state, seat, c)).collect(),
    )
}

/// `f` of `seat`'s input as the server gives it to the mail.
fn with_input<T>(d: &Driver, seat: Seat, f: impl FnOnce(&FormsInput<'_, View>) -> T) -> T {
    let v = typed(d, Viewer::Seat(seat));
    let (legal, labels) = legal(d, seat);
    let entered = BTreeMap::new();
    let names = names(d.state.seats);
    f(&FormsInput { seat, view: &v, legal: &legal, labels: &labels, entered: &entered, names: &names })
}

/// Lines as a reply gives them: numbered from 1, trimmed.
fn reply(text: &[String]) -> Vec<OrderLine> {
    text.iter().enumerate().map(|(i, t)| OrderLine { number: i + 1, text: t.trim().to_owned() }).collect()
}

/// A game of `seats` played by the bot up to its first turn's programs.
fn at_programs(seats: u8, seed: u64) -> Driver {
    let mut d = Driver::new(&v2(), seats, seed).expect("setup");
    while d.state.phase != Phase::Programs {
        let seat = d.waiting()[0];
        let c = FallenKingdoms::fallback(&d.state, seat).expect("a fallback");
        d.act(seat, &c).expect("the bot's command");
    }
    d
}

/// Whole games where every seat answers each turn's program by mail,
/// sending back the form it was sent unchanged: each program read is the
/// one the seat page's composer posts unchanged, and is accepted.
#[test]
fn the_form_a_mail_prints_reads_back_as_the_program_the_page_composes() {
    for (seed, seats) in [(4, 4), (7, 3)] {
        let mut d = Driver::new(&v2(), seats, seed).expect("setup");
        let mut read = 0;
        let mut steps = 0;
        while FallenKingdoms::outcome(&d.state).is_none() {
            steps += 1;
            assert!(steps < 5_000, "game {seed}: no end");
            let seat = d.waiting()[0];
            let mail = with_input(&d, seat, |input| {
                let form = FallenKingdoms::order_form(input);
                if form.is_empty() {
                    return None;
                }
                let got = FallenKingdoms::read_orders(&reply(&form), input).expect("the form is the game's words");
                let got = got.unwrap_or_else(|e| panic!("game {seed}: {e:?} in\n{}", form.join("\n")));
                let page = FallenKingdoms::forms(input).expect("forms");
                let (build, posted) = press(&page.parts).expect("a form");
                let build = build.expect("the composer");
                let composed = FallenKingdoms::command_of_form(&build, &posted, input.view).unwrap().unwrap();
                assert_eq!(
                    got,
                    composed,
                    "game {seed}: the mail's program differs from the page's\n{}",
                    form.join("\n")
                );
                Some(got)
            });
            let c = match mail {
                Some(json) => {
                    read += 1;
                    serde_json::from_value(json).expect("a command")
                }
                None => FallenKingdoms::fallback(&d.state, seat).expect("a fallback"),
            };
            d.act(seat, &c).unwrap_or_else(|e| panic!("game {seed}: {c:?} refused: {e}"));
        }
        assert!(read >= seats as usize * 5, "game {seed}: {read} programs by mail");
    }
}

/// The form of seat 0 at the first turn, its input, and a line of it.
struct Case {
    d: Driver,
    form: Vec<String>,
}

impl Case {
    fn new() -> Case {
        let d = at_programs(4, 4);
        let form = with_input(&d, 0, FallenKingdoms::order_form);
        assert!(!form.is_empty());
        Case { d, form }
    }

    fn view(&self) -> View {
        typed(&self.d, Viewer::Seat(0))
    }

    fn read(&self, lines: &[String]) -> Result<Value, OrderError> {
        with_input(&self.d, 0, |input| FallenKingdoms::read_orders(&reply(lines), input)).expect("a program")
    }

    /// The form with the line starting `start` replaced by `with` (its
    /// number in the reply is returned).
    fn with(&self, start: &str, with: &str) -> (Vec<String>, usize) {
        let mut lines = self.form.clone();
        let at = lines.iter().position(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no {start} line"));
        lines[at] = with.to_owned();
        (lines, at + 1)
    }

    /// The error of the form with the line starting `start` replaced by
    /// `with`: it names that line.
    fn refused(&self, start: &str, with: &str) -> String {
        let (lines, n) = self.with(start, with);
        let e = self.read(&lines).expect_err(with);
        assert_eq!(e.line.as_ref().map(|l| l.number), Some(n), "{with}: {e:?}");
        assert_eq!(e.line.as_ref().map(|l| l.text.as_str()), Some(with), "{with}: {e:?}");
        e.message
    }
}

#[test]
fn a_mistake_in_the_program_is_refused_naming_its_line_and_what_it_expects() {
    let c = Case::new();
    let v = c.view();
    let mine = mine(&v, 0);
    let home = city_name(&v, mine[0]);
    let free = v.players[0].production.as_ref().unwrap().free;
    let away = (0..v.cities.len() as u8).find(|&x| v.cities[x as usize].owner.is_some_and(|o| o != 0)).unwrap();
    let far = (0..v.cities.len() as u8).find(|&x| !mine.contains(&x) && !adjacent(&v, mine[0]).contains(&x)).unwrap();

    let m = c.refused("production:", &format!("production: {} units", free + 1));
    assert!(m.contains(&format!("spend exactly your {free} free points, not {}", free + 1)), "{m}");
    let m = c.refused("production:", "production: 2 swords");
    assert!(m.contains("\"swords\" is not a track"), "{m}");
    let m = c.refused("production:", "production: two units");
    assert!(m.contains("\"two\" is not a number"), "{m}");
    let m = c.refused("new units:", "new units: Atlantis");
    assert!(m.contains("there is no city \"Atlantis\""), "{m}");
    let m = c.refused("new units:", &format!("new units: {}", city_name(&v, away)));
    assert!(m.contains("is not a city of yours"), "{m}");
    let m = c.refused("invasion:", "invasion: perhaps");
    assert!(m.contains("pass, ask or bot"), "{m}");
    let m = c.refused("production:", &format!("production: {free} units; if impossible: cry"));
    assert!(m.contains("\"cry\" is not a fallback"), "{m}");
    let m = c.refused("movement if impossible:", "movement if impossible: run");
    assert!(m.contains("skip, ask, bot, stay"), "{m}");
    let m = c.refused("invasion:", "hello: there");
    assert!(m.contains("not a line of the program"), "{m}");
    let m = c.refused("invasion:", &format!("move: 1 from {} to {home}", city_name(&v, away)));
    assert!(m.contains("is not a city of yours"), "{m}");
    let m = c.refused("invasion:", &format!("move: 1 from {home} to {}", city_name(&v, far)));
    assert!(m.contains("is not next to the city it moves from"), "{m}");
    let next = adjacent(&v, mine[0])[0];
    let m = c.refused("invasion:", &format!("move: 0 from {home} to {}", city_name(&v, next)));
    assert!(m.contains("move from 1 to"), "{m}");
    let m = c.refused("invasion:", &format!("move: 1 from {home} to {}, charge", city_name(&v, next)));
    assert!(m.contains("\"charge\" is not an attack order"), "{m}");
    let m = c.refused("invasion:", &format!("move: 1 {home} {}", city_name(&v, next)));
    assert!(m.contains("from which city to which"), "{m}");
    let m = c.refused("cards:", "cards: knowledge Alchemy");
    assert!(m.contains("\"alchemy\" is not a face-up knowledge card"), "{m}");
    let m = c.refused("cards:", "cards: swords Mining");
    assert!(m.contains("is not a kind of card"), "{m}");
    let m = c.refused("god:", "god: pray");
    assert!(m.contains("write skip, use, or use on a city"), "{m}");

    // A step given twice names the second, and the first's line.
    let mut twice = c.form.clone();
    let at = twice.iter().position(|l| l.starts_with("production:")).unwrap();
    twice.insert(at + 1, twice[at].clone());
    let e = c.read(&twice).unwrap_err();
    assert_eq!(e.line.map(|l| l.number), Some(at + 2));
    assert!(e.message.contains(&format!("given twice, here and on line {}", at + 1)), "{}", e.message);

    // A fifth move.
    let mut five = c.form.clone();
    five.retain(|l| !l.starts_with("move:"));
    let at = five.iter().position(|l| l.starts_with("movement")).unwrap();
    for _ in 0..5 {
        five.insert(at, format!("move: 1 from {home} to {}", city_name(&v, next)));
    }
    let e = c.read(&five).unwrap_err();
    assert_eq!(e.line.map(|l| l.number), Some(at + 5));
    assert!(e.message.contains("at most 4 moves"), "{}", e.message);

    // No production at all: the whole program is refused, saying why.
    let mut none = c.form.clone();
    none.retain(|l| !l.starts_with("production:"));
    let e = c.read(&none).unwrap_err();
    assert_eq!(e.line, None);
    assert!(e.message.contains("no \"production:\" line"), "{}", e.message);
}

#[test]
fn cities_are_read_in_any_case_and_by_the_start_of_their_name() {
    let c = Case::new();
    let v = c.view();
    let place = |line: &str| {
        let (lines, _) = c.with("new units:", line);
        let got = c.read(&lines).expect(line);
        got["steps"].as_array().unwrap().iter().find(|s| s["step"]["type"] == "place_produced").cloned()
    };
    let mine = mine(&v, 0);
    for &home in &mine {
        let name = city_name(&v, home);
        let want = place(&format!("new units: {name}"));
        assert_eq!(place(&format!("New Units: {}", name.to_uppercase())), want);
        // The shortest start of the name no other city of the map shares.
        let short = (1..=name.len())
            .map(|k| &name[..k])
            .find(|p| {
                (0..v.cities.len() as u8)
                    .filter(|&x| city_name(&v, x).to_lowercase().starts_with(&p.to_lowercase()))
                    .count()
                    == 1
            })
            .unwrap_or(&name);
        assert_eq!(place(&format!("new units: {}", short.to_lowercase())), want, "{short}");
    }
    // A start several cities share is refused, naming them.
    let name = city_name(&v, mine[0]);
    let clash = (1..name.len()).map(|k| &name[..k]).find(|p| {
        (0..v.cities.len() as u8).filter(|&x| city_name(&v, x).starts_with(p)).count() > 1
            && !(0..v.cities.len() as u8).any(|x| city_name(&v, x) == *p)
    });
    if let Some(p) = clash {
        let m = c.refused("god:", &format!("god: use on {p}"));
        assert!(m.contains("could be") && m.contains("write more of the name"), "{m}");
    }
}

#[test]
fn no_program_is_read_when_none_is_asked_and_the_generic_list_stays() {
    let c = Case::new();
    // A number is the generic list's ("play my turn by hand", the bot's).
    let none = with_input(&c.d, 0, |input| FallenKingdoms::read_orders(&reply(&["1".to_owned()]), input));
    assert!(none.is_none());
    // Help lines alone are no program.
    let help: Vec<String> = c.form.iter().filter(|l| l.starts_with('(')).cloned().collect();
    assert!(with_input(&c.d, 0, |input| FallenKingdoms::read_orders(&reply(&help), input)).is_none());
    // Before the turns, during the god choice, there is no program to give.
    let d = Driver::new(&v2(), 4, 4).expect("setup");
    assert_eq!(d.state.phase, Phase::ChooseGods);
    assert!(with_input(&d, 0, FallenKingdoms::order_form).is_empty());
    assert!(with_input(&d, 0, |input| FallenKingdoms::read_orders(&reply(&c.form), input)).is_none());
}
