//! The season's program by mail: the form a mail prints, read back as a
//! reply, is a program of the bot's own steps the rules accept; each kind
//! of mistake is refused naming its line.

use std::collections::BTreeMap;

use runestone_engine::present::{FormsInput, OrderError, OrderLine, Present};
use runestone_engine::{Game, Seat, Viewer};
use serde_json::Value;

use super::Driver;
use crate::program::{Fallback, Otherwise};
use crate::state::Command;
use crate::view::{view, View};
use crate::{Options, Thingvellir};

fn v2(lawspeaker: Option<u8>) -> Options {
    Options { rules_version: Some(2), lawspeaker, ..Options::default() }
}

/// `f` of `seat`'s input as the server gives it to the mail.
fn with_input<T>(d: &Driver, seat: Seat, f: impl FnOnce(&FormsInput<'_, View>) -> T) -> T {
    let v: View = serde_json::from_value(serde_json::to_value(view(&d.state, Viewer::Seat(seat))).unwrap()).unwrap();
    let legal: Vec<Command> = Thingvellir::legal(&d.state, seat);
    let json: Vec<Value> = legal.iter().map(|c| serde_json::to_value(c).unwrap()).collect();
    let labels: Vec<String> = legal.iter().map(|c| Thingvellir::label(&d.state, seat, c)).collect();
    let names: Vec<String> = (0..d.state.players.len()).map(|k| format!("Player {}", k + 1)).collect();
    let entered = BTreeMap::new();
    f(&FormsInput { seat, view: &v, legal: &json, labels: &labels, entered: &entered, names: &names })
}

fn reply(text: &[String]) -> Vec<OrderLine> {
    text.iter().enumerate().map(|(i, t)| OrderLine { number: i + 1, text: t.trim().to_owned() }).collect()
}

/// Whole games where every seat answers each season by mail, sending back
/// the form it was sent unchanged: each program read holds only steps of
/// the bot's program, each falling back to asking, and the rules take it.
#[test]
fn the_season_a_mail_prints_reads_back_as_the_bots_steps_and_is_accepted() {
    for (seed, seats) in [(3, 3), (8, 4)] {
        let mut d = Driver::new(&v2(None), seats, seed).expect("setup");
        let (mut read, mut carried) = (0, 0);
        let mut turns = 0;
        while Thingvellir::outcome(&d.state).is_none() {
            turns += 1;
            assert!(turns < 5_000, "game {seed}: no end");
            let seat = d.waiting()[0];
            let mail = with_input(&d, seat, |input| {
                let form = Thingvellir::order_form(input);
                if form.is_empty() {
                    return None;
                }
                let got = Thingvellir::read_orders(&reply(&form), input).expect("the form is the game's words");
                let got = got.unwrap_or_else(|e| panic!("game {seed}: {e:?} in\n{}", form.join("\n")));
                let bot: Command = serde_json::from_value(input.legal[0].clone()).unwrap();
                Some((got, bot, form))
            });
            let c = match mail {
                Some((json, bot, form)) => {
                    read += 1;
                    let c: Command = serde_json::from_value(json).unwrap();
                    let (Command::Season { program }, Command::Season { program: bot }) = (&c, &bot) else {
                        panic!("not a season: {c:?}")
                    };
                    for s in &program.steps {
                        assert!(
                            bot.steps.iter().any(|b| b.step == s.step),
                            "game {seed}: {s:?} is the bot's\n{}",
                            form.join("\n")
                        );
                        assert_eq!(s.fallback, Fallback::Ask);
                    }
                    assert_eq!(program.otherwise, Otherwise::Ask);
                    carried += program.steps.len();
                    c
                }
                None => Thingvellir::fallback(&d.state, seat).expect("a fallback"),
            };
            d.act(seat, &c).unwrap_or_else(|e| panic!("game {seed}: {c:?} refused: {e}"));
        }
        assert!(read >= seats as usize * 3, "game {seed}: {read} seasons by mail");
        assert!(carried >= read, "game {seed}: {carried} steps in {read} seasons");
    }
}

struct Case {
    d: Driver,
    form: Vec<String>,
}

impl Case {
    /// Seat 0, the Lawspeaker, at the first season.
    fn new() -> Case {
        let d = Driver::new(&v2(Some(0)), 3, 1).expect("setup");
        let form = with_input(&d, 0, Thingvellir::order_form);
        assert!(form.iter().any(|l| l.starts_with("propose:")), "{form:?}");
        assert!(form.iter().any(|l| l.starts_with("settle:")), "{form:?}");
        Case { d, form }
    }

    fn read(&self, seat: Seat, lines: &[String]) -> Result<Value, OrderError> {
        with_input(&self.d, seat, |input| Thingvellir::read_orders(&reply(lines), input)).expect("a season")
    }

    fn refused(&self, start: &str, with: &str) -> String {
        let mut lines = self.form.clone();
        let at = lines.iter().position(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no {start} line"));
        lines[at] = with.to_owned();
        let e = self.read(0, &lines).expect_err(with);
        assert_eq!(e.line.as_ref().map(|l| (l.number, l.text.as_str())), Some((at + 1, with)), "{e:?}");
        e.message
    }
}

#[test]
fn a_mistake_in_the_season_is_refused_naming_its_line() {
    let c = Case::new();
    let m = c.refused("settle:", "settle: build a castle");
    assert!(m.contains("\"build a castle\" is not one of the steps the season offers here"), "{m}");
    let m = c.refused("settle:", "settle: no step; if refused: cry");
    assert!(m.contains("\"cry\" is not a fallback"), "{m}");
    let m = c.refused("otherwise:", "otherwise: sleep");
    assert!(m.contains("ask, bot or pass"), "{m}");
    let m = c.refused("otherwise:", "harvest: all");
    assert!(m.contains("not a line of the season"), "{m}");
    let m = c.refused("propose:", "propose: a new law");
    assert!(m.contains("is not one of the steps"), "{m}");
    let m = c.refused("settle:", "settle: settle");
    assert!(m.contains("could be") && m.contains("write the whole step"), "{m}");

    let mut twice = c.form.clone();
    let at = twice.iter().position(|l| l.starts_with("otherwise:")).unwrap();
    twice.insert(at + 1, "otherwise: bot".into());
    let e = c.read(0, &twice).unwrap_err();
    assert_eq!(e.line.map(|l| l.number), Some(at + 2));
    assert!(e.message.contains(&format!("given twice, here and on line {}", at + 1)), "{}", e.message);

    // Another seat is no Lawspeaker.
    let e = c.read(1, &["propose: no step".to_owned()]).unwrap_err();
    assert!(e.message.contains("only the Lawspeaker proposes"), "{}", e.message);
}

#[test]
fn steps_are_read_in_their_words_whatever_the_case_and_punctuation() {
    let c = Case::new();
    let settle = c.form.iter().find(|l| l.starts_with("settle:")).unwrap().clone();
    let plain = settle.to_uppercase().replace(['(', ')'], "");
    let mut lines = c.form.clone();
    let at = lines.iter().position(|l| *l == settle).unwrap();
    lines[at] = plain.clone();
    assert_eq!(c.read(0, &lines), c.read(0, &c.form), "{plain}");
    // A number is the generic list's (the bot's program, or by hand).
    assert!(with_input(&c.d, 0, |input| Thingvellir::read_orders(&reply(&["1".to_owned()]), input)).is_none());
}
