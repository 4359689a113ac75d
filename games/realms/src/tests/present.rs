//! The map, the board in words and the order form, read from the typed
//! view of played games: every field drawn once with its holder, the
//! marks the issue asks for, and the form posting back the orders it shows.

use std::collections::BTreeMap;

use runestone_engine::present::{Form, FormsInput, Input, Part, Posted, Present};
use runestone_engine::{Game, Seat, Viewer};

use super::Driver;
use crate::state::{Command, Mode, Orders, Season};
use crate::view::View;
use crate::{Options, Realms};

fn typed(d: &Driver, seat: Seat) -> View {
    serde_json::from_value(Realms::view(&d.state, Viewer::Seat(seat))).expect("the view reads back typed")
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("Realm{i}")).collect()
}

/// Plays bot orders for every realm until `rounds` rounds have passed.
fn play(d: &mut Driver, rounds: usize) {
    for _ in 0..rounds {
        if d.state.over.is_some() {
            return;
        }
        for seat in d.state.waiting() {
            let Command::Orders { orders } = Realms::fallback(&d.state, seat).expect("a pending realm has a fallback");
            d.act(seat, orders).expect("the bot's orders are taken");
        }
    }
}

/// What a browser posts for the form as shown: every field's value.
fn post_as_shown(parts: &[Part], out: &mut Vec<(String, String)>) {
    for p in parts {
        match p {
            Part::Group(g) => post_as_shown(&g.parts, out),
            Part::Form(f) => post_form(f, out),
            Part::Field(f) => match &f.input {
                Input::Checkbox { checked } => {
                    if *checked {
                        out.push((f.name.clone(), "on".into()));
                    }
                }
                Input::One { options, .. } => {
                    assert!(
                        f.value.is_empty() || options.iter().any(|o| o.value == f.value),
                        "{} shows {:?}, which is not among its options",
                        f.name,
                        f.value
                    );
                    out.push((f.name.clone(), f.value.clone()))
                }
                _ => out.push((f.name.clone(), f.value.clone())),
            },
            _ => {}
        }
    }
}

fn post_form(f: &Form, out: &mut Vec<(String, String)>) {
    if let Some(b) = &f.build {
        out.push(("build".into(), b.clone()));
    }
    out.extend(f.hidden.iter().cloned());
    post_as_shown(&f.parts, out);
}

fn find_form<'a>(parts: &'a [Part], build: &str) -> Option<&'a Form> {
    parts.iter().find_map(|p| match p {
        Part::Form(f) if f.build.as_deref() == Some(build) => Some(f),
        Part::Form(f) => find_form(&f.parts, build),
        Part::Group(g) => find_form(&g.parts, build),
        _ => None,
    })
}

#[test]
fn the_map_draws_every_field_once_with_its_holder_at_several_positions() {
    for (players, mode) in [(2u8, Mode::Fast), (5, Mode::Basic), (12, Mode::Fast)] {
        let mut d = Driver::new(&Options { mode, years: 2, ..Options::default() }, players, 7).unwrap();
        for step in 0..4 {
            let view = typed(&d, 0);
            let seats = names(players as usize);
            let areas = Realms::areas(&view, &seats);
            assert_eq!(areas.len(), view.fields.len());
            let svg = Realms::svg(&view, &seats).expect("a map");
            for a in &areas {
                let tag = format!("data-area=\"{}\"", a.id);
                assert_eq!(svg.matches(&tag).count(), 1, "{} drawn once", a.id);
                let owner = match a.owner {
                    Some(o) => format!("{tag} data-owner=\"{o}\""),
                    None => format!("{tag}>"),
                };
                assert!(svg.contains(&owner), "{} drawn with its holder {:?}", a.id, a.owner);
            }
            // Each realm's three villages are its own at the start.
            if step == 0 {
                for seat in 0..players {
                    let held = areas.iter().filter(|a| a.owner == Some(seat)).count();
                    assert!(held >= 3, "realm {seat} holds its villages: {held}");
                }
            }
            let text = Realms::text(&view, &seats).expect("the board in words");
            assert!(text.contains(&format!("{} of year {}", view.season.name(), view.year)), "{text}");
            for r in 0..players {
                assert!(text.contains(&format!("Realm{r}")));
            }
            play(&mut d, 3);
        }
    }
}

#[test]
fn the_map_shows_fields_by_colour_and_climate_settlements_units_herds_grain_and_looting_tokens() {
    let mut d = Driver::new(&Options::default(), 4, 3).unwrap();
    let seats = names(4);
    let svg = Realms::svg(&typed(&d, 0), &seats).unwrap();
    for mark in
        ["#f4e19c", "#a9d18e", "#b08d62", "#7fc8c0", "#a9cce3", "#6f9fc4", "rl-frost", "class=\"river\"", "black-line"]
    {
        assert!(svg.contains(mark), "{mark} drawn");
    }
    for words in [
        "village",
        "city",
        "dock",
        "units of a realm",
        "herds (number)",
        "stored grain",
        "sown field",
        "red looting token",
        "Legend",
    ] {
        assert!(svg.contains(words), "legend names {words}");
    }
    // Settlements in the realms' colours, herds and grain on the map.
    assert!(svg.contains("<ellipse"), "herds drawn");
    assert!(svg.contains("fill=\"#e5b80b\""), "stored grain drawn");
    // A looted field bears the red token once the looting has happened.
    play(&mut d, 12);
    let view = typed(&d, 0);
    let looted = view.fields.iter().filter(|f| f.looted).count();
    let svg = Realms::svg(&view, &seats).unwrap();
    assert_eq!(svg.matches("class=\"loot\"").count(), looted);
}

#[test]
fn the_order_form_posts_back_the_orders_it_shows_in_every_season() {
    let mut d = Driver::new(&Options { mode: Mode::Basic, years: 2, ..Options::default() }, 3, 11).unwrap();
    let mut seasons = Vec::new();
    for _ in 0..6 {
        let seat = 1;
        let view = typed(&d, seat);
        let legal: Vec<serde_json::Value> =
            Realms::legal(&d.state, seat).iter().map(|c| serde_json::to_value(c).unwrap()).collect();
        let labels: Vec<String> =
            Realms::legal(&d.state, seat).iter().map(|c| Realms::label(&d.state, seat, c)).collect();
        let entered = BTreeMap::new();
        let input = FormsInput { seat, view: &view, legal: &legal, labels: &labels, entered: &entered, names: &[] };
        let forms = Realms::forms(&input).expect("a pending realm gets its order form");
        let form = find_form(&forms.parts, crate::forms::ORDERS).expect("the order form");
        let mut posted = Vec::new();
        post_form(form, &mut posted);
        let built = Realms::command_of_form(crate::forms::ORDERS, &Posted::from(posted), &view).unwrap().unwrap();
        let Command::Orders { orders } = serde_json::from_value(built).expect("a command");
        let Command::Orders { orders: suggested } = serde_json::from_value(legal[0].clone()).unwrap();
        let mut want = suggested.clone();
        // The form shows the festival only in winter, and a small one at least.
        if view.season != Season::Winter {
            want.festival = 0;
        } else {
            want.festival = want.festival.max(1);
        }
        assert_eq!(orders, want, "the form as shown gives the suggested orders in {:?}", view.season);
        seasons.push(view.season);
        play(&mut d, 1);
    }
    assert!(seasons.contains(&Season::Winter) && seasons.contains(&Season::Spring));
}

#[test]
fn an_order_form_with_a_move_missing_its_destination_is_refused_in_words() {
    let d = Driver::new(&Options::default(), 2, 1).unwrap();
    let view = typed(&d, 0);
    let from = view.fields.iter().find(|f| f.units.iter().any(|u| u.owner == 0)).unwrap().id;
    let posted = Posted::from(vec![
        ("move.0.from".to_string(), from.to_string()),
        ("move.0.unit".to_string(), "light_infantry".to_string()),
        ("move.0.count".to_string(), "1".to_string()),
    ]);
    let err = Realms::command_of_form(crate::forms::ORDERS, &posted, &view).unwrap().unwrap_err();
    assert_eq!(err, "Move 1: choose the field the units go to");
    let posted = Posted::from(vec![("move.0.from".to_string(), "9999".to_string())]);
    let err = Realms::command_of_form(crate::forms::ORDERS, &posted, &view).unwrap().unwrap_err();
    assert!(err.contains("there is no field \"9999\""), "{err}");
    let empty = Realms::command_of_form(crate::forms::ORDERS, &Posted::default(), &view).unwrap().unwrap();
    let Command::Orders { orders } = serde_json::from_value(empty).unwrap();
    assert_eq!(orders.moves, Orders::default().moves);
}
