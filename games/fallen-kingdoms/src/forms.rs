//! The decision forms of Fallen Kingdoms, one for every kind of pending
//! decision: the god cards and the starting cities, the god's ability and
//! the face-up cards as buttons; production as three numbers that must add
//! up to the free points; placement as a city per new unit and building;
//! the planned movement as numbers per road or route with the standing
//! orders of each possible attack; the invasion; and the standing defence
//! orders beside any decision. The rules judge every command: these forms
//! only put it together.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use runestone_engine::present::{
    Choice, Field, Form, Forms, FormsInput, Frame, Group, Input, Note, Part, Posted, Submit, Sum,
};
use runestone_engine::Seat;

use crate::state::{Phase, Step, MAX_UNITS, TRACK};
use crate::view::View;

pub const PRODUCE: &str = "fk-produce";
pub const PLACE: &str = "fk-place";
pub const MOVE: &str = "fk-move";
pub const INVADE: &str = "fk-invade";
pub const DEFENCE: &str = "fk-defence";

const TRACKS: [&str; 3] = ["unit", "building", "knowledge"];

pub(crate) fn city_name(v: &View, c: u8) -> String {
    v.board.cities.get(c as usize).map_or_else(|| format!("city {c}"), |x| x.name.clone())
}

/// Cities joined to `c` by a road or a navigation route, each once.
pub fn adjacent(v: &View, c: u8) -> Vec<u8> {
    let mut out: Vec<u8> = v
        .board
        .roads
        .iter()
        .chain(&v.board.routes)
        .filter_map(|&(a, b)| {
            if a == c {
                Some(b)
            } else if b == c {
                Some(a)
            } else {
                None
            }
        })
        .filter(|&o| o != c)
        .collect();
    out.sort();
    out.dedup();
    out
}

fn road_adjacent(v: &View, c: u8) -> Vec<u8> {
    let mut out: Vec<u8> = v
        .board
        .roads
        .iter()
        .filter_map(|&(a, b)| {
            if a == c {
                Some(b)
            } else if b == c {
                Some(a)
            } else {
                None
            }
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

pub(crate) fn mine(v: &View, seat: Seat) -> Vec<u8> {
    (0..v.cities.len() as u8).filter(|&c| v.cities[c as usize].owner == Some(seat)).collect()
}

/// Another player by name (`names`, the seats' names), with their god once
/// revealed: "Ann (Loki)".
pub(crate) fn player_words(v: &View, o: Seat, names: &[String]) -> String {
    let name = names.get(o as usize).cloned().unwrap_or_else(|| format!("player {}", o + 1));
    match v.players.get(o as usize).and_then(|p| p.god.clone()) {
        Some(g) => format!("{name} ({g})"),
        None => name,
    }
}

/// A city with who holds it, in words.
pub(crate) fn city_words(v: &View, c: u8, seat: Seat, names: &[String]) -> String {
    let st = &v.cities[c as usize];
    match st.owner {
        Some(o) if o == seat => format!("{} (yours, {} units)", city_name(v, c), st.units),
        Some(o) => format!("{} ({}, {} units)", city_name(v, c), player_words(v, o, names), st.units),
        None => format!("{} (empty)", city_name(v, c)),
    }
}

/// What was posted last for `name` when this form was refused, else `default`.
pub(crate) fn again(entered: &BTreeMap<String, String>, build: &str, name: &str, default: String) -> String {
    if entered.get("build").is_some_and(|b| b == build) {
        entered.get(name).cloned().unwrap_or_default()
    } else {
        default
    }
}

/// The legal commands as buttons, each with its words.
fn buttons(input: &FormsInput<'_, View>, id: &str, legend: &str, help: &str) -> Part {
    let mut parts: Vec<Part> = vec![Note::small(help).into()];
    for (k, (c, label)) in input.legal.iter().zip(input.labels).enumerate() {
        parts.push(Submit::new(capital(label)).command(c.to_string()).class("cmd").id(format!("{id}-{k}")).into());
    }
    Form::new(vec![Group::new(Frame::Fieldset { legend: legend.into() }, parts).into()]).id(id).into()
}

/// The god choice: each god dealt with its intimidation and its power, in
/// words, beside its button.
fn god_form(input: &FormsInput<'_, View>) -> Part {
    let d = crate::data::data();
    let mut parts: Vec<Part> = vec![Note::small(
        "The gods are revealed together once every player has chosen; you may change your mind until then. \
         Intimidation: the lowest plays first each turn, and in a battle the side with the higher intimidation \
         (the god's value plus its rumor cards) makes an enemy unit flee whenever it rolls an even die.",
    )
    .into()];
    for (k, (c, label)) in input.legal.iter().zip(input.labels).enumerate() {
        let god = c["god"].as_u64().and_then(|g| d.gods.get(g as usize));
        let mut card: Vec<Part> = Vec::new();
        if let Some(g) = god {
            card.push(
                Note::new(format!("Intimidation {}. {}", g.intimidation, g.text))
                    .lead(g.name.clone(), format!("fk-god-{k}-power"))
                    .into(),
            );
        }
        card.push(Submit::new(capital(label)).command(c.to_string()).class("cmd").id(format!("fk-god-{k}")).into());
        parts.push(Group::new(Frame::Box, card).class("fk-god-card").into());
    }
    Form::new(vec![Group::new(Frame::Fieldset { legend: "Choose your god, in secret".into() }, parts).into()])
        .id("fk-god")
        .into()
}

pub(crate) fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

pub fn forms(input: &FormsInput<'_, View>) -> Option<Forms> {
    let v = input.view;
    let seat = input.seat;
    let mut parts: Vec<Part> = Vec::new();
    match v.phase {
        Phase::ChooseGods => parts.push(god_form(input)),
        Phase::Programs => {
            let composer = crate::composer::form(input);
            let some = composer.is_some();
            parts.extend(composer);
            if !input.legal.is_empty() {
                parts.push(buttons(
                    input,
                    "fk-program",
                    if some { "Or give your turn in one press" } else { "Your whole turn, given now" },
                    "Play it by hand: you are asked each step when your turn comes. Or let the bot write the \
                     program from the map as it is now: each of its steps left to the bot again if it is impossible \
                     when it comes.",
                ));
            }
        }
        Phase::Placement => parts.push(buttons(
            input,
            "fk-start",
            "Place 3 units",
            "Your first group and your temple go to a city next to no other player's; later groups go next to your units.",
        )),
        Phase::Players if v.battle.is_some() => {
            if let Some(b) = v.battle.as_ref().filter(|b| b.asked == seat) {
                let help = format!("{}.", capital(&b.question));
                parts.push(buttons(input, "fk-battle", "The battle waits for your answer", &help));
            }
        }
        Phase::Players => match v.step {
            Step::God => parts.push(buttons(
                input,
                "fk-power",
                "Your god's ability",
                "Once a turn, while your temple stands. Cities holding an enemy temple are immune.",
            )),
            Step::Produce => parts.push(produce_form(input)),
            Step::Take => parts.push(buttons(
                input,
                "fk-take",
                "Take what you produced",
                "Take a face-up knowledge card or building tile for each one you produced.",
            )),
            Step::Place => parts.push(place_form(input)),
            Step::Move => parts.push(move_form(input)),
        },
        Phase::Invasion => {
            parts.push(buttons(
                input,
                "fk-invade-quick",
                "Invade or pass",
                "Pass, or take the suggested invasion; or compose your own below.",
            ));
            parts.push(invade_form(input));
        }
        _ => {}
    }
    if v.players.get(seat as usize).is_some_and(|p| p.defence.is_some()) && !matches!(v.phase, Phase::Over) {
        parts.push(defence_form(input));
    }
    Some(Forms { parts })
}

/// Between decisions: the standing defence orders, which the kernel takes
/// from a seated player at any time.
pub fn standing_forms(input: &FormsInput<'_, View>) -> Option<Forms> {
    let v = input.view;
    let own = v.players.get(input.seat as usize).is_some_and(|p| p.defence.is_some());
    (own && !matches!(v.phase, Phase::Over)).then(|| Forms { parts: vec![defence_form(input)] })
}

fn produce_form(input: &FormsInput<'_, View>) -> Part {
    let v = input.view;
    let me = &v.players[input.seat as usize];
    let free = v.free_points as i64;
    // Start from the suggestion, the last production command offered.
    let suggested = input.legal.iter().rev().find(|c| c["type"] == "produce").map(|c| c["free"].clone());
    let mut fields: Vec<Part> = Vec::new();
    let names: Vec<String> = TRACKS.iter().map(|t| format!("free.{t}")).collect();
    for (k, t) in TRACKS.iter().enumerate() {
        let default = suggested.as_ref().and_then(|s| s[k].as_u64()).unwrap_or(0).to_string();
        fields.push(
            Field::new(
                format!("free-{t}"),
                names[k].clone(),
                format!(
                    "{} track: now {}/{}, +{} fixed; free points to add",
                    capital(t),
                    me.tracks[k],
                    TRACK[k],
                    v.fixed_points[k]
                ),
                Input::Number { min: 0, max: free },
            )
            .value(again(input.entered, PRODUCE, &names[k], default))
            .wrap("fk-count")
            .described_by("free-count")
            .into(),
        );
    }
    fields.push(
        Sum {
            id: "free-count".into(),
            fields: names,
            min: free,
            max: free,
            words: format!("Spend exactly {free} free points (cities and ports)."),
        }
        .into(),
    );
    Form::new(vec![Group::new(
        Frame::Fieldset { legend: "Production".into() },
        vec![
            Note::small(format!(
                "Your buildings, resources and knowledge add {} unit, {} building and {} knowledge points. \
Each track produces when it reaches its end (3 units: a unit; 6: a building; 9: a knowledge card).",
                v.fixed_points[0], v.fixed_points[1], v.fixed_points[2]
            ))
            .into(),
            Group::new(Frame::Box, fields).class("fk-counts").into(),
            Part::Refusal { build: PRODUCE.into() },
            Submit::new("Produce").class("primary").id("produce-submit").into(),
        ],
    )
    .into()])
    .build(PRODUCE)
    .id("produce-form")
    .into()
}

fn place_form(input: &FormsInput<'_, View>) -> Part {
    let v = input.view;
    let seat = input.seat;
    let me = &v.players[seat as usize];
    let cities = mine(v, seat);
    let spots: Vec<u8> = cities
        .iter()
        .copied()
        .filter(|&c| v.cities[c as usize].building.is_none() && v.cities[c as usize].temple.is_none())
        .collect();
    let suggested = input.legal.iter().rev().find(|c| c["type"] == "place_produced").cloned().unwrap_or(json!({}));
    let words = |c: u8| city_words(v, c, seat, input.names);
    let mut fields: Vec<Part> = Vec::new();
    for i in 0..me.owed[0] as usize {
        let name = format!("unit.{i}");
        let default = suggested["units"][i].as_u64().map(|c| c.to_string()).unwrap_or_default();
        fields.push(
            Field::new(
                format!("place-unit-{i}"),
                name.clone(),
                format!("New unit {} goes to", i + 1),
                Input::One {
                    options: cities.iter().map(|&c| Choice::new(c.to_string(), words(c))).collect(),
                    blank: None,
                    required: true,
                },
            )
            .value(again(input.entered, PLACE, &name, default))
            .wrap("fk-pick")
            .into(),
        );
    }
    let must = me.sheet_tiles.len().min(spots.len());
    for (i, (&tile, bname)) in me.sheet_tiles.iter().zip(&me.sheet).enumerate().take(must) {
        let name = format!("building.{tile}");
        let default = suggested["buildings"]
            .as_array()
            .and_then(|b| b.iter().find(|x| x[0] == json!(tile)))
            .and_then(|x| x[1].as_u64())
            .map(|c| c.to_string())
            .unwrap_or_else(|| spots.get(i).map(|c| c.to_string()).unwrap_or_default());
        fields.push(
            Field::new(
                format!("place-building-{tile}"),
                name.clone(),
                format!("The {bname} goes to"),
                Input::One {
                    options: spots.iter().map(|&c| Choice::new(c.to_string(), words(c))).collect(),
                    blank: None,
                    required: true,
                },
            )
            .value(again(input.entered, PLACE, &name, default))
            .wrap("fk-pick")
            .into(),
        );
    }
    let mut parts: Vec<Part> = vec![Note::small(
        "New units go to cities you hold; a building goes to a city you hold without a building or temple, one each.",
    )
    .into()];
    parts.extend(fields);
    parts.push(Part::Refusal { build: PLACE.into() });
    parts.push(Submit::new("Place them").class("primary").id("place-submit").into());
    Form::new(vec![Group::new(Frame::Fieldset { legend: "Place your new units and buildings".into() }, parts).into()])
        .build(PLACE)
        .id("place-form")
        .into()
}

/// Enemy cities next to one of `seat`'s cities: the cities it may attack.
fn targets(v: &View, seat: Seat) -> Vec<u8> {
    let mut out: Vec<u8> = mine(v, seat)
        .into_iter()
        .flat_map(|c| adjacent(v, c))
        .filter(|&t| v.cities[t as usize].owner.is_some_and(|o| o != seat))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The move form's fields, each showing what was posted last when the form
/// was refused, else its default.
struct MoveFields<'a> {
    entered: &'a BTreeMap<String, String>,
}

impl MoveFields<'_> {
    fn refused(&self) -> bool {
        self.entered.get("build").is_some_and(|b| b == MOVE)
    }

    /// A count from `min` to `max`.
    fn count(&self, id: String, name: String, label: impl Into<String>, (min, max): (i64, i64), default: &str) -> Part {
        let value = again(self.entered, MOVE, &name, default.into());
        Field::new(id, name, label, Input::Number { min, max }).value(value).wrap("fk-count").into()
    }

    /// One city of `options`, or none (`blank`).
    fn city(&self, id: String, name: String, label: &str, options: Vec<Choice>, blank: &str) -> Part {
        let value = again(self.entered, MOVE, &name, String::new());
        Field::new(id, name, label, Input::One { options, blank: Some(blank.into()), required: false })
            .value(value)
            .wrap("fk-pick")
            .into()
    }

    /// A check box, ticked by default when `default`.
    fn check(&self, id: String, name: String, label: &str, default: bool) -> Part {
        let checked = if self.refused() { self.entered.contains_key(&name) } else { default };
        Field::new(id, name, label, Input::Checkbox { checked }).into()
    }
}

fn move_form(input: &FormsInput<'_, View>) -> Part {
    let v = input.view;
    let seat = input.seat;
    let words = |c: u8| city_words(v, c, seat, input.names);
    let f = MoveFields { entered: input.entered };
    let mut groups: Vec<Part> = Vec::new();
    for from in mine(v, seat) {
        let have = v.cities[from as usize].units;
        let fields: Vec<Part> = adjacent(v, from)
            .into_iter()
            .map(|to| {
                f.count(
                    format!("move-{from}-{to}"),
                    format!("move.{from}.{to}"),
                    format!("to {}", words(to)),
                    (0, have as i64),
                    "0",
                )
            })
            .collect();
        groups.push(
            Group::new(
                Frame::Fieldset { legend: format!("From {} ({have} units)", city_name(v, from)) },
                vec![Group::new(Frame::Box, fields).class("fk-counts").into()],
            )
            .into(),
        );
    }
    let t = targets(v, seat);
    let mut orders: Vec<Part> = vec![Note::small(
        "Battles resolve at once from these orders and the defender's standing orders; a side is asked only \
where its orders say \"ask me\", and then has a short time to answer. Battles are fought in the order you number them.",
    )
    .into()];
    for (k, &city) in t.iter().enumerate() {
        let id = |n: &str| format!("attack-{city}-{n}");
        let name = |n: &str| format!("attack.{city}.{n}");
        let rampage: Vec<Choice> =
            road_adjacent(v, city).into_iter().map(|c| Choice::new(c.to_string(), words(c))).collect();
        orders.push(
            Group::new(
                Frame::Fieldset { legend: format!("If you attack {}", words(city)) },
                vec![
                    f.count(id("order"), name("order"), "Battle order", (1, t.len() as i64), &(k + 1).to_string()),
                    f.count(
                        id("retreat"),
                        name("retreat"),
                        "Retreat when down to (0: never)",
                        (0, MAX_UNITS as i64),
                        "0",
                    ),
                    f.check(
                        id("ask"),
                        name("ask"),
                        "Down to that many, ask me before each roll instead of retreating",
                        false,
                    ),
                    f.city(
                        id("rampage"),
                        name("rampage"),
                        "If the first roll kills or drives off every defender, rampage (2 units or more) into",
                        rampage,
                        "no rampage",
                    ),
                    f.check(
                        id("occupy"),
                        name("occupy"),
                        "After a win, move the attackers in (else they go back)",
                        true,
                    ),
                    f.check(
                        id("call-off"),
                        name("call_off"),
                        "Call this attack off, its units staying home, if a battle before it is lost",
                        false,
                    ),
                ],
            )
            .into(),
        );
    }
    let mut parts: Vec<Part> = vec![Note::small(
        "Plan your whole movement at once: how many units go along each road or navigation route. \
Units moved into an enemy city attack it. Never leave a city you hold empty. All zero: stay put.",
    )
    .into()];
    parts.extend(groups);
    if !t.is_empty() {
        parts.push(
            Group::new(Frame::Folded { summary: "Standing orders for your attacks".into(), open: false }, orders)
                .id("attack-orders")
                .into(),
        );
    }
    parts.push(Part::Refusal { build: MOVE.into() });
    parts.push(Submit::new("Move and fight").class("primary").id("move-submit").into());
    Form::new(vec![Group::new(Frame::Fieldset { legend: "Movement and battles".into() }, parts).into()])
        .build(MOVE)
        .id("move-form")
        .into()
}

fn invade_form(input: &FormsInput<'_, View>) -> Part {
    let v = input.view;
    let seat = input.seat;
    let all: Vec<Choice> =
        (0..v.cities.len() as u8).map(|c| Choice::new(c.to_string(), city_words(v, c, seat, input.names))).collect();
    let arrows: Vec<Choice> = v
        .board
        .paths
        .iter()
        .enumerate()
        .map(|(k, p)| {
            Choice::new(
                k.to_string(),
                format!("arrow {} {} into {}", k + 1, if p.sea { "by sea" } else { "by land" }, city_name(v, p.city)),
            )
        })
        .collect();
    let others: Vec<Choice> = v
        .players
        .iter()
        .enumerate()
        .filter(|(k, p)| *k as Seat != seat && p.units_on_board > 0)
        .map(|(k, _)| Choice::new(k.to_string(), player_words(v, k as Seat, input.names)))
        .collect();
    let get = |name: &str| again(input.entered, INVADE, name, String::new());
    let mut parts: Vec<Part> = vec![Note::small(
        "Up to 3 invasion paths by the numbered arrows; each takes the arrow's city, then cities joined to it by road.",
    )
    .into()];
    if v.players[seat as usize].units_on_board > 0 {
        parts.push(
            Field::new(
                "invade-surrender",
                "surrender",
                "Surrender your kingdom to",
                Input::One {
                    options: others,
                    blank: Some("nobody else holds one: leave the board".into()),
                    required: false,
                },
            )
            .value(get("surrender"))
            .wrap("fk-pick")
            .into(),
        );
    }
    for k in 0..3 {
        let pre = format!("path.{k}");
        parts.push(
            Group::new(
                Frame::Fieldset { legend: format!("Path {}", k + 1) },
                vec![
                    Field::new(
                        format!("invade-{k}-arrow"),
                        format!("{pre}.arrow"),
                        "Arrow",
                        Input::One { options: arrows.clone(), blank: Some("no path".into()), required: false },
                    )
                    .value(get(&format!("{pre}.arrow")))
                    .wrap("fk-pick")
                    .into(),
                    Field::new(
                        format!("invade-{k}-first"),
                        format!("{pre}.first"),
                        "First city attacked",
                        Input::One { options: all.clone(), blank: Some("the arrow's city".into()), required: false },
                    )
                    .value(get(&format!("{pre}.first")))
                    .wrap("fk-pick")
                    .into(),
                ]
                .into_iter()
                .chain((0..v.cities_per_path.max(2) as usize - 1).map(|j| {
                    Field::new(
                        format!("invade-{k}-then-{j}"),
                        format!("{pre}.then.{j}"),
                        "Then, by road",
                        Input::One { options: all.clone(), blank: Some("stop there".into()), required: false },
                    )
                    .value(get(&format!("{pre}.then.{j}")))
                    .wrap("fk-pick")
                    .into()
                }))
                .collect(),
            )
            .into(),
        );
    }
    parts.push(
        Field::new(
            "invade-temple",
            "temple",
            "Raise your temple in",
            Input::One {
                options: all,
                blank: Some("the first city you hold without a building".into()),
                required: false,
            },
        )
        .value(get("temple"))
        .wrap("fk-pick")
        .into(),
    );
    parts.push(Part::Refusal { build: INVADE.into() });
    parts.push(Submit::new("Invade").class("primary").id("invade-submit").into());
    Form::new(
        vec![Group::new(Frame::Folded { summary: "Compose your own invasion".into(), open: false }, parts).into()],
    )
    .build(INVADE)
    .id("invade-form")
    .into()
}

fn defence_form(input: &FormsInput<'_, View>) -> Part {
    let v = input.view;
    let seat = input.seat;
    let current = v.players[seat as usize].defence.clone().unwrap_or_default();
    let refused = input.entered.get("build").is_some_and(|b| b == DEFENCE);
    let retreat = if refused {
        input.entered.get("retreat").cloned().unwrap_or_default()
    } else {
        current.retreat_at.to_string()
    };
    let ask = if refused { input.entered.get("ask").is_some() } else { current.ask };
    let complete = if refused { input.entered.get("complete").is_some() } else { current.complete_from_board };
    let options: Vec<Choice> = (0..v.cities.len() as u8)
        .filter(|&c| v.cities[c as usize].owner.is_none_or(|o| o == seat))
        .map(|c| Choice::new(c.to_string(), city_words(v, c, seat, input.names)))
        .collect();
    let theirs: Vec<Choice> = (0..v.cities.len() as u8)
        .filter(|&c| v.cities[c as usize].owner.is_some_and(|o| o != seat))
        .map(|c| Choice::new(c.to_string(), city_words(v, c, seat, input.names)))
        .collect();
    Form::new(vec![Group::new(
        Frame::Folded { summary: "Your standing defence orders".into(), open: refused },
        vec![
            Note::small(
                "When your cities are attacked while you are away, the battle resolves from these orders at once, \
unless you ask to be asked: then it waits a short time for your answer, and retreats as ordered if none comes. \
Retreating units and units driven off by intimidation go to the first of the chosen cities that is next to the battle \
and yours or empty; else to your neighbouring city with most units.",
            )
            .into(),
            Field::new(
                "defence-retreat",
                "retreat",
                "Retreat the defenders once they are down to (0: fight to the last)",
                Input::Number { min: 0, max: MAX_UNITS as i64 },
            )
            .value(retreat)
            .wrap("fk-count")
            .into(),
            Field::new(
                "defence-ask",
                "ask",
                "Down to that many, ask me before each of their rolls instead of retreating",
                Input::Checkbox { checked: ask },
            )
            .into(),
            Field::new(
                "defence-prefer",
                "prefer",
                "Cities to retreat to, in the map's order",
                Input::Several { options, values: current.prefer.iter().map(|c| c.to_string()).collect() },
            )
            .wrap("fk-several")
            .into(),
            Note::small(
                "If a player invading surrenders their kingdom to you and your reserve cannot replace all its units:",
            )
            .into(),
            Field::new(
                "defence-replace",
                "replace_first",
                "Cities to replace first (the others follow in the map's order)",
                Input::Several {
                    options: theirs,
                    values: current.replace_first.iter().map(|c| c.to_string()).collect(),
                },
            )
            .wrap("fk-several")
            .into(),
            Field::new(
                "defence-complete",
                "complete",
                "Take units off your own cities (never emptying one) to complete the replacement",
                Input::Checkbox { checked: complete },
            )
            .into(),
            Part::Refusal { build: DEFENCE.into() },
            Submit::new("Keep these defence orders").id("defence-submit").into(),
        ],
    )
    .id("defence-orders")
    .into()])
    .build(DEFENCE)
    .id("defence-form")
    .into()
}

pub(crate) fn number(posted: &Posted, name: &str, what: &str, max: u32) -> Result<u8, String> {
    let raw = posted.get(name).unwrap_or("").trim();
    if raw.is_empty() {
        return Ok(0);
    }
    match raw.parse::<u32>() {
        Ok(n) if n <= max => Ok(n as u8),
        _ => Err(format!("{what} must be a whole number from 0 to {max}, not \"{raw}\"")),
    }
}

pub(crate) fn city(posted: &Posted, name: &str, what: &str, v: &View) -> Result<Option<u8>, String> {
    let raw = posted.get(name).unwrap_or("").trim();
    if raw.is_empty() {
        return Ok(None);
    }
    match raw.parse::<u8>() {
        Ok(c) if (c as usize) < v.cities.len() => Ok(Some(c)),
        _ => Err(format!("{what}: there is no such city on this map")),
    }
}

pub fn produce_command(posted: &Posted, v: &View) -> Result<Value, String> {
    let mut free = [0u8; 3];
    for (k, t) in TRACKS.iter().enumerate() {
        free[k] = number(posted, &format!("free.{t}"), &format!("The {t} points"), v.free_points as u32)?;
    }
    Ok(json!({"type": "produce", "free": free}))
}

pub fn place_command(posted: &Posted, v: &View) -> Result<Value, String> {
    let mut units = Vec::new();
    let mut buildings = Vec::new();
    for (k, value) in posted.pairs() {
        if let Some(i) = k.strip_prefix("unit.") {
            let i: usize = i.parse().map_err(|_| "a new unit's place is not one of the form's".to_string())?;
            let c = city(posted, k, &format!("New unit {}", i + 1), v)?
                .ok_or_else(|| format!("Choose a city for new unit {}", i + 1))?;
            units.push(c);
        } else if let Some(t) = k.strip_prefix("building.") {
            let t: u8 = t.parse().map_err(|_| "a building's place is not one of the form's".to_string())?;
            if value.trim().is_empty() {
                return Err("Choose a city for each building".into());
            }
            let c = city(posted, k, "A building's city", v)?.unwrap_or_default();
            buildings.push(json!([t, c]));
        }
    }
    Ok(json!({"type": "place_produced", "units": units, "buildings": buildings}))
}

pub fn move_command(posted: &Posted, v: &View) -> Result<Value, String> {
    let mut moves = Vec::new();
    let mut attacked: Vec<u8> = Vec::new();
    for (k, _) in posted.pairs() {
        let Some(rest) = k.strip_prefix("move.") else { continue };
        let mut it = rest.split('.').map(|x| x.parse::<u8>());
        let (Some(Ok(from)), Some(Ok(to)), None) = (it.next(), it.next(), it.next()) else {
            return Err("a move of the form names no cities".into());
        };
        if from as usize >= v.cities.len() || to as usize >= v.cities.len() {
            return Err("a move names a city that is not on this map".into());
        }
        let what = format!("Units from {} to {}", city_name(v, from), city_name(v, to));
        let n = number(posted, k, &what, MAX_UNITS as u32)?;
        if n > 0 {
            moves.push(json!({"from": from, "to": to, "units": n}));
            if v.cities[to as usize].owner.is_some_and(|o| Some(o) != v.cities[from as usize].owner)
                && !attacked.contains(&to)
            {
                attacked.push(to);
            }
        }
    }
    let mut attacks: Vec<(u8, Value)> = Vec::new();
    for &c in &attacked {
        let f = |n: &str| format!("attack.{c}.{n}");
        let name = city_name(v, c);
        let order = number(posted, &f("order"), &format!("The battle order of {name}"), 99)?;
        let retreat =
            number(posted, &f("retreat"), &format!("The retreat level of the attack on {name}"), MAX_UNITS as u32)?;
        let rampage = city(posted, &f("rampage"), &format!("The rampage from {name}"), v)?;
        // A form without the orders (no script, no fold opened) moves in.
        let occupy = posted.get(&f("order")).is_none() || posted.get(&f("occupy")).is_some();
        let call_off = posted.get(&f("call_off")).is_some();
        let ask = posted.get(&f("ask")).is_some();
        attacks.push((
            order,
            json!({"city": c, "retreat_at": retreat, "rampage": rampage, "occupy": occupy,
                   "call_off_if_lost": call_off, "ask": ask}),
        ));
    }
    attacks.sort_by_key(|a| a.0);
    let attacks: Vec<Value> = attacks.into_iter().map(|a| a.1).collect();
    Ok(json!({"type": "move", "moves": moves, "attacks": attacks}))
}

pub fn invade_command(posted: &Posted, v: &View) -> Result<Value, String> {
    let surrender = match posted.get("surrender").map(str::trim).filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => match s.parse::<u8>() {
            Ok(k) if (k as usize) < v.players.len() => Some(k),
            _ => return Err("Surrender to one of the players".into()),
        },
    };
    let mut paths = Vec::new();
    for k in 0..3 {
        let pre = format!("path.{k}");
        let arrow = posted.get(&format!("{pre}.arrow")).map(str::trim).unwrap_or("");
        if arrow.is_empty() {
            continue;
        }
        let a: usize = match arrow.parse() {
            Ok(a) if a < v.board.paths.len() => a,
            _ => return Err(format!("Path {}: there is no such invasion arrow", k + 1)),
        };
        let first =
            city(posted, &format!("{pre}.first"), &format!("Path {}", k + 1), v)?.unwrap_or(v.board.paths[a].city);
        let mut then: Vec<u8> = Vec::new();
        for j in 0..v.cities_per_path.max(2) as usize - 1 {
            if let Some(c) = city(posted, &format!("{pre}.then.{j}"), &format!("Path {}", k + 1), v)? {
                then.push(c);
            }
        }
        paths.push(json!({"path": a, "first": first, "then": then}));
    }
    if paths.is_empty() {
        return Err("Choose at least one invasion arrow, or pass".into());
    }
    let temple = city(posted, "temple", "The temple's city", v)?;
    Ok(json!({"type": "invade", "surrender_to": surrender, "paths": paths, "temple": temple}))
}

pub fn defence_command(posted: &Posted, v: &View) -> Result<Value, String> {
    let retreat = number(posted, "retreat", "The retreat level", MAX_UNITS as u32)?;
    let mut prefer = Vec::new();
    for raw in posted.all("prefer") {
        match raw.parse::<u8>() {
            Ok(c) if (c as usize) < v.cities.len() => prefer.push(c),
            _ => return Err("A city to retreat to is not on this map".into()),
        }
    }
    let mut replace_first = Vec::new();
    for raw in posted.all("replace_first") {
        match raw.parse::<u8>() {
            Ok(c) if (c as usize) < v.cities.len() => replace_first.push(c),
            _ => return Err("A city to replace first is not on this map".into()),
        }
    }
    let ask = posted.get("ask").is_some();
    let complete = posted.get("complete").is_some();
    Ok(json!({"type": "set_defence", "defence": {"retreat_at": retreat, "prefer": prefer, "ask": ask,
        "replace_first": replace_first, "complete_from_board": complete}}))
}
