//! The board and the forms: every city drawn once with its owner, the text
//! alternative, and whole games played only through the forms as a player
//! who presses the buttons and keeps the suggested numbers would.

use std::collections::BTreeMap;

use runestone_engine::present::{Form, FormsInput, Input, Part, Posted, Present};
use runestone_engine::{Game, Seat, Viewer};

use super::Driver;
use crate::view::View;
use crate::{FallenKingdoms, Options};

pub(super) fn typed(d: &Driver, viewer: Viewer) -> View {
    // Through JSON, as the server reads it.
    serde_json::from_value(FallenKingdoms::view(&d.state, viewer)).expect("the view reads back into its type")
}

pub(super) fn names(n: u8) -> Vec<String> {
    (0..n).map(|k| format!("Player {}", k + 1)).collect()
}

/// Every city is drawn once, with its owner as the view says.
fn check_board(v: &View, seats: &[String]) {
    let svg = FallenKingdoms::svg(v, seats).expect("a board is drawn");
    let areas = FallenKingdoms::areas(v, seats);
    assert_eq!(areas.len(), v.cities.len());
    for (k, a) in areas.iter().enumerate() {
        assert_eq!(a.owner, v.cities[k].owner);
        let tag = format!("data-area=\"{}\"", a.id);
        assert_eq!(svg.matches(&tag).count(), 1, "{} drawn once", a.id);
        let with_owner = match a.owner {
            Some(o) => format!("{tag} data-owner=\"{o}\""),
            None => format!("{tag} data-units"),
        };
        assert!(svg.contains(&with_owner), "{} drawn with its owner", a.id);
    }
    assert_eq!(svg.matches("class=\"road\"").count(), v.board.roads.len());
    assert_eq!(svg.matches("class=\"route\"").count(), v.board.routes.len());
    assert_eq!(svg.matches("class=\"invasion-arrow\"").count(), v.board.paths.len());
    assert_eq!(svg.matches("class=\"tile\"").count(), v.board.tiles.len());
    let temples = v.cities.iter().filter(|c| c.temple.is_some()).count();
    assert_eq!(svg.matches("class=\"temple\"").count(), temples);
    assert_eq!(svg.matches("class=\"kingdom\"").count(), v.players.len());
    assert_eq!(svg.matches("class=\"track\"").count(), 3 * v.players.len());
    assert!(svg.contains("Trophies left"));
    let text = FallenKingdoms::text(v, seats).expect("the board in words");
    assert_eq!(text.matches("data-area-row=").count(), v.cities.len());
    assert!(text.contains("<caption>Kingdoms</caption>"));
}

/// The first form of the seat's forms that decides something (not the
/// defence orders), with what a player who changes nothing would post.
pub(super) fn press(forms: &[Part]) -> Option<(Option<String>, Posted)> {
    fn forms_in<'a>(parts: &'a [Part], out: &mut Vec<&'a Form>) {
        for p in parts {
            match p {
                Part::Form(f) => out.push(f),
                Part::Group(g) => forms_in(&g.parts, out),
                _ => {}
            }
        }
    }
    fn fields(parts: &[Part], posted: &mut Vec<(String, String)>, cmd: &mut Option<String>) {
        for p in parts {
            match p {
                Part::Group(g) => fields(&g.parts, posted, cmd),
                Part::Form(f) => fields(&f.parts, posted, cmd),
                Part::Field(f) => match &f.input {
                    Input::Checkbox { checked } => {
                        if *checked {
                            posted.push((f.name.clone(), "on".into()));
                        }
                    }
                    Input::Several { values, .. } => {
                        posted.extend(values.iter().map(|v| (f.name.clone(), v.clone())));
                    }
                    _ => posted.push((f.name.clone(), f.value.clone())),
                },
                Part::Submit(s) if cmd.is_none() => cmd.clone_from(&s.command),
                _ => {}
            }
        }
    }
    let mut all = Vec::new();
    forms_in(forms, &mut all);
    let f = all.into_iter().find(|f| f.build.as_deref() != Some(crate::forms::DEFENCE))?;
    let mut posted = f.hidden.clone();
    let mut cmd = None;
    fields(&f.parts, &mut posted, &mut cmd);
    match &f.build {
        Some(b) => Some((Some(b.clone()), Posted::from(posted))),
        None => Some((None, Posted::from(vec![("cmd".to_string(), cmd?)]))),
    }
}

fn through_the_forms(seed: u64, seats: u8, options: &Options) {
    let mut d = Driver::new(options, seats, seed).expect("setup");
    let seat_names = names(seats);
    let mut steps = 0;
    while FallenKingdoms::outcome(&d.state).is_none() {
        steps += 1;
        assert!(steps < 5_000, "game {seed}: no end through the forms");
        let seat: Seat = d.waiting()[0];
        let v = typed(&d, Viewer::Seat(seat));
        if steps % 25 == 1 {
            check_board(&v, &seat_names);
            check_board(&typed(&d, Viewer::Public), &seat_names);
        }
        let legal: Vec<serde_json::Value> =
            FallenKingdoms::legal(&d.state, seat).iter().map(|c| serde_json::to_value(c).expect("JSON")).collect();
        let labels: Vec<String> =
            FallenKingdoms::legal(&d.state, seat).iter().map(|c| FallenKingdoms::label(&d.state, seat, c)).collect();
        let entered = BTreeMap::new();
        let forms = FallenKingdoms::forms(&FormsInput {
            seat,
            view: &v,
            legal: &legal,
            labels: &labels,
            entered: &entered,
            names: &[],
        })
        .expect("a form for every decision");
        let (build, posted) =
            press(&forms.parts).unwrap_or_else(|| panic!("game {seed}: no form in {:?}", d.state.phase));
        let json = match build {
            Some(b) => FallenKingdoms::command_of_form(&b, &posted, &v)
                .expect("the form is known")
                .unwrap_or_else(|e| panic!("game {seed}: form {b} refused: {e}")),
            None => serde_json::from_str(posted.get("cmd").unwrap()).unwrap(),
        };
        let c: crate::Command = serde_json::from_value(json.clone()).expect("a command");
        d.act(seat, &c).unwrap_or_else(|e| panic!("game {seed}: {json} from the forms refused: {e}"));
    }
    check_board(&typed(&d, Viewer::Public), &seat_names);
}

#[test]
fn a_whole_game_is_played_through_the_forms_with_the_board_drawn_at_every_stage() {
    through_the_forms(3, 3, &Options::default());
    through_the_forms(8, 6, &Options { hidden_scoring: true, ..Options::default() });
}

#[test]
fn the_defence_form_posts_standing_orders_and_a_bad_number_is_refused_in_words() {
    let d = Driver::new(&Options::default(), 4, 5).expect("setup");
    let v = typed(&d, Viewer::Seat(0));
    let posted = Posted::from(vec![
        ("retreat".to_string(), "2".to_string()),
        ("prefer".to_string(), "3".to_string()),
        ("prefer".to_string(), "1".to_string()),
        ("ask".to_string(), "on".to_string()),
    ]);
    let c = FallenKingdoms::command_of_form(crate::forms::DEFENCE, &posted, &v).unwrap().unwrap();
    assert_eq!(
        c,
        serde_json::json!({"type": "set_defence", "defence": {"retreat_at": 2, "prefer": [3, 1], "ask": true,
            "replace_first": [], "complete_from_board": false}})
    );
    let bad = Posted::from(vec![("retreat".to_string(), "many".to_string())]);
    let e = FallenKingdoms::command_of_form(crate::forms::DEFENCE, &bad, &v).unwrap().unwrap_err();
    assert_eq!(e, "The retreat level must be a whole number from 0 to 30, not \"many\"");
}

#[test]
fn the_invasion_form_offers_as_many_cities_per_path_as_the_rules_allow() {
    let options = Options { cities_per_path: 3, ..Options::default() };
    let d = Driver::new(&options, 3, 2).expect("setup");
    let v = typed(&d, Viewer::Seat(0));
    assert_eq!(v.cities_per_path, 3);
    let posted = Posted::from(
        [("path.0.arrow", "0"), ("path.0.then.0", "4"), ("path.0.then.1", "5"), ("path.1.arrow", "")]
            .iter()
            .map(|(k, x)| (k.to_string(), x.to_string()))
            .collect::<Vec<_>>(),
    );
    let c = FallenKingdoms::command_of_form(crate::forms::INVADE, &posted, &v).unwrap().unwrap();
    let first = v.board.paths[0].city;
    assert_eq!(
        c,
        serde_json::json!({"type": "invade", "surrender_to": null, "temple": null,
            "paths": [{"path": 0, "first": first, "then": [4, 5]}]})
    );
    let none = Posted::from(vec![("path.0.arrow".to_string(), String::new())]);
    let e = FallenKingdoms::command_of_form(crate::forms::INVADE, &none, &v).unwrap().unwrap_err();
    assert_eq!(e, "Choose at least one invasion arrow, or pass");
}

#[test]
fn the_god_choice_and_the_rules_page_tell_each_gods_intimidation_and_power() {
    let d = Driver::new(&Options { rules_version: Some(1), ..Options::default() }, 3, 5).expect("setup");
    let seat: Seat = *d.waiting().first().expect("someone chooses a god");
    assert_eq!(d.state.phase, crate::state::Phase::ChooseGods);
    let v = typed(&d, Viewer::Seat(seat));
    let commands = FallenKingdoms::legal(&d.state, seat);
    let legal: Vec<serde_json::Value> = commands.iter().map(|c| serde_json::to_value(c).expect("JSON")).collect();
    let labels: Vec<String> = commands.iter().map(|c| FallenKingdoms::label(&d.state, seat, c)).collect();
    let entered = BTreeMap::new();
    let names = names(3);
    let forms = FallenKingdoms::forms(&FormsInput {
        seat,
        view: &v,
        legal: &legal,
        labels: &labels,
        entered: &entered,
        names: &names,
    })
    .expect("the god choice");
    let text = serde_json::to_string(&forms).expect("JSON");
    let rules = FallenKingdoms::rules_page().expect("a rules page").body;
    let data = crate::data::data();
    for c in &legal {
        let god = &data.gods[c["god"].as_u64().expect("a god") as usize];
        assert!(
            text.contains(&format!("Intimidation {}.", god.intimidation)),
            "{} without its value: {text}",
            god.name
        );
        assert!(text.contains(&god.text), "{} without its power: {text}", god.name);
    }
    for god in &data.gods {
        let row =
            format!("<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td></tr>", god.name, god.intimidation, god.text);
        assert!(rules.contains(&row), "the rules page lacks {row}");
    }
}

/// Whole games where every seat composes each turn on the seat page's
/// composer, changing nothing of what it suggests: every program the
/// composer posts is accepted, and nearly every step runs as composed
/// (what the composer reckons of production, takes and placement is what
/// the rules then ask), the others taking their fallbacks (the map changed
/// by the turns before), none stopping to ask.
#[test]
fn programs_composed_on_the_page_run_as_composed() {
    for (seed, seats) in [(4, 4), (9, 5)] {
        let o = Options { rules_version: Some(2), ..Options::default() };
        let mut d = Driver::new(&o, seats, seed).expect("setup");
        let mut composed = 0;
        let mut steps = 0;
        while FallenKingdoms::outcome(&d.state).is_none() {
            steps += 1;
            assert!(steps < 5_000, "game {seed}: no end");
            let seat: Seat = d.waiting()[0];
            let v = typed(&d, Viewer::Seat(seat));
            let legal: Vec<serde_json::Value> =
                FallenKingdoms::legal(&d.state, seat).iter().map(|c| serde_json::to_value(c).unwrap()).collect();
            let labels: Vec<String> = FallenKingdoms::legal(&d.state, seat)
                .iter()
                .map(|c| FallenKingdoms::label(&d.state, seat, c))
                .collect();
            let entered = BTreeMap::new();
            let names = names(seats);
            let forms = FallenKingdoms::forms(&FormsInput {
                names: &names,
                seat,
                view: &v,
                legal: &legal,
                labels: &labels,
                entered: &entered,
            })
            .expect("forms");
            let (build, posted) = press(&forms.parts).expect("a form");
            let json = match build.as_deref() {
                Some(b) => {
                    FallenKingdoms::command_of_form(b, &posted, &v).unwrap().unwrap_or_else(|e| panic!("{b}: {e}"))
                }
                None => serde_json::from_str(posted.get("cmd").unwrap()).unwrap(),
            };
            if build.as_deref() == Some(crate::composer::PROGRAM) {
                composed += 1;
            }
            let c: crate::Command = serde_json::from_value(json.clone()).unwrap();
            d.act(seat, &c).unwrap_or_else(|e| panic!("game {seed}: {json} refused: {e}"));
        }
        let outcomes: Vec<runestone_engine::program::StepOutcome> = d
            .log
            .iter()
            .filter_map(|e| match &e.event {
                crate::state::Event::ProgramStep { outcome, .. } => Some(*outcome),
                _ => None,
            })
            .collect();
        let done = outcomes.iter().filter(|o| **o == runestone_engine::program::StepOutcome::Done).count();
        assert!(composed >= seats as usize * 5, "game {seed}: {composed} programs composed");
        let asked = outcomes.iter().filter(|o| **o == runestone_engine::program::StepOutcome::Asked).count();
        assert_eq!(asked, 0, "game {seed}: no composed program stopped to ask");
        assert!(
            done * 10 >= outcomes.len() * 8,
            "game {seed}: {done} of {} programmed steps ran as composed",
            outcomes.len()
        );
    }
}
