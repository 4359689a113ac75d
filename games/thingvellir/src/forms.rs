//! The decision forms: a form for every kind of decision a seat is asked
//! (propose, vote, each action's choices, keeping cards after a raid,
//! swearing Bondi, a feud's commitments, a band riding through), built from
//! the seat's legal commands and view, and the standing voting orders; and
//! the commands built back from the forms that gather several choices. The
//! rules judge every command: these forms only put it together.

use std::collections::BTreeMap;

use serde_json::Value;

use runestone_engine::present::{
    Choice, Field, Form, Forms, FormsInput, Frame, Group, Input, Note, Part, Posted, Submit,
};

use crate::data::Action;
use crate::drawing::statute_words;
use crate::state::{Command, Gift, OrderDo, Orders, Phase};
use crate::view::{PlayerView, View};

/// The `build` names of the forms that gather several choices.
pub const EXPAND: &str = "thingvellir-expand";
pub const RIDE: &str = "thingvellir-ride";
pub const KEEP: &str = "thingvellir-keep";
pub const SWEAR: &str = "thingvellir-swear";
pub const GIVE: &str = "thingvellir-give";
pub const SEAL: &str = "thingvellir-seal";
pub const ORDERS: &str = "thingvellir-orders";
pub const CHOICES: &str = "thingvellir-choices";
pub const ANSWERS: &str = "thingvellir-answers";
pub const SEASON: &str = "thingvellir-season";

const ACTIONS: [Action; 6] =
    [Action::Settle, Action::Ride, Action::Raid, Action::Foster, Action::Pledge, Action::Feast];

const COLOURS: [&str; 4] = ["green", "blue", "gold", "red"];

fn typed(v: &Value) -> Option<Command> {
    serde_json::from_value(v.clone()).ok()
}

fn json(c: &Command) -> String {
    serde_json::to_string(c).expect("a command serialises")
}

/// Another gothi in the forms: by name (`names`, the seats' names) and by
/// their colour on the map, "Ann (gold)".
fn seat_words(names: &[String], seat: u8) -> String {
    const COLOURS: [&str; 6] = ["red", "blue", "green", "gold", "purple", "orange"];
    let colour = COLOURS[seat as usize % 6];
    match names.get(seat as usize) {
        Some(name) => format!("{name} ({colour})"),
        None => format!("the {colour} gothi"),
    }
}

/// A Good of the Wealth in words: "your Good 2, of Worth 3" (its place
/// counted from 1; its colour is secret until it is committed).
fn good_words(place: usize, worth: u8) -> String {
    format!("your Good {}, of Worth {worth}", place + 1)
}

/// The commands of `legal` that `keep` selects, with their labels.
fn pick<'a>(
    legal: &'a [Value],
    labels: &'a [String],
    keep: impl Fn(&Command) -> bool + 'a,
) -> impl Iterator<Item = (Command, String)> + 'a {
    legal.iter().zip(labels.iter()).filter_map(move |(v, l)| typed(v).filter(|c| keep(c)).map(|c| (c, l.clone())))
}

/// Commands as buttons, or as one list to choose from when there are many.
fn choose_one(
    id: &str,
    legend: &str,
    commands: Vec<(Command, String)>,
    entered: &BTreeMap<String, String>,
) -> Option<Part> {
    if commands.is_empty() {
        return None;
    }
    let form = if commands.len() <= 8 {
        Form::new(
            commands.into_iter().map(|(c, l)| Submit::new(capital(&l)).command(json(&c)).class("cmd").into()).collect(),
        )
    } else {
        let options: Vec<Choice> = commands.into_iter().map(|(c, l)| Choice::new(json(&c), capital(&l))).collect();
        let field = Field::new(
            format!("{id}-cmd"),
            "cmd",
            format!("{legend} ({} choices)", options.len()),
            Input::One { options, blank: Some("(choose one)".into()), required: true },
        )
        .value(entered.get("cmd").cloned().unwrap_or_default());
        Form::new(vec![field.into(), Submit::new("Do it").id(format!("{id}-submit")).class("primary").into()])
    };
    Some(Group::new(Frame::Fieldset { legend: legend.to_owned() }, vec![form.id(id).into()]).into())
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

pub fn forms(input: &FormsInput<'_, View>) -> Option<Forms> {
    let view = input.view;
    let me = input.seat;
    let mine = view.players.get(me as usize)?;
    let legal = input.legal;
    let labels = input.labels;
    let entered = input.entered;
    let again = |form: &str| entered.get("build").is_some_and(|b| b == form);
    let mut parts: Vec<Part> = Vec::new();
    let asked = view.asked.clone().unwrap_or_default();
    let strength = view.current.as_ref().filter(|c| c.seat == me).map(|c| c.strength);
    let pass = pick(legal, labels, |c| matches!(c, Command::Pass)).next();
    let pass_button = |parts: &mut Vec<Part>, words: &str| {
        if let Some((c, _)) = &pass {
            parts.push(Form::new(vec![Submit::new(words).command(json(c)).id("pass").into()]).class("pass").into());
        }
    };

    if asked == "Season" {
        parts.push(
            Note::new(format!(
                "Round {} begins. Every gothi gives the whole season at once: as Lawspeaker the statute to propose, the actions to resolve in order (each with what to do if the board has changed by then), the votes and the answers to feuds and bands riding through. It stays secret until it runs, and you may replace it until it begins. Or play the season by hand: you are asked each decision as it comes.",
                view.round
            ))
            .lead("Your season:", "season-what")
            .into(),
        );
        let c = pick(legal, labels, |c| matches!(c, Command::Season { .. }))
            .enumerate()
            .map(|(i, (c, l))| (c, if i == 0 { format!("Let the bot write my program: {l}") } else { capital(&l) }))
            .collect();
        parts.extend(choose_one("season", "Your season", c, entered));
        parts.push(season_form(view, mine, me, input.names, if again(SEASON) { Some(entered) } else { None }));
    } else if asked == "Propose" {
        let commands: Vec<(Command, String)> = pick(legal, labels, |c| matches!(c, Command::Propose { .. }))
            .map(|(c, l)| {
                let words = match c {
                    Command::Propose { law } => {
                        let level = match view.token {
                            Some((l2, lv)) if l2 == law => lv + 1,
                            _ => 0,
                        };
                        format!("Propose {}", statute_words(view, law, level))
                    }
                    _ => l,
                };
                (c, words)
            })
            .collect();
        parts.push(Note::new("As Lawspeaker you propose the statute the Law Council votes on. Every gothi who supports it resolves its action; the others may sue for another Law's statute.").into());
        parts.extend(choose_one("propose", "Propose a statute", commands, entered));
    } else if asked == "Vote" {
        let (law, level) = view.token.unwrap_or((0, 0));
        let proposed = statute_words(view, law, level);
        let support = pick(legal, labels, |c| matches!(c, Command::Vote { vote: crate::state::Vote::Support }))
            .map(|(c, _)| (c, format!("Support {proposed}")))
            .collect();
        let sue: Vec<(Command, String)> =
            pick(legal, labels, |c| matches!(c, Command::Vote { vote: crate::state::Vote::Sue { .. } }))
                .map(|(c, l)| {
                    let words = match &c {
                        Command::Vote { vote: crate::state::Vote::Sue { law, level } } => {
                            format!("Sue for {}", statute_words(view, *law, *level))
                        }
                        _ => l,
                    };
                    (c, words)
                })
                .collect();
        parts.push(Note::new(format!("The Lawspeaker proposed {proposed}. Support it to resolve it with every supporter (stronger for each), or sue with your Thingman at Thingvellir for a statute of another Law at or below it.")).into());
        parts.extend(choose_one("support", "Support", support, entered));
        parts.extend(choose_one("sue", "Or sue with your Thingman at Thingvellir", sue, entered));
    } else if let Some(action) = asked.strip_prefix("Resolve(").and_then(|a| a.strip_suffix(')')) {
        let st = strength.unwrap_or(0);
        parts.push(
            Note::new(format!("Resolve {action} at strength {st}: each part is \"up to\", and you may pass."))
                .lead("Your action:", "resolve-what")
                .into(),
        );
        match action {
            "Settle" => {
                let subsume = pick(legal, labels, |c| matches!(c, Command::Subsume { .. })).collect();
                parts.extend(choose_one(
                    "subsume",
                    "Settle A: subsume a District (and take a farm of a colour)",
                    subsume,
                    entered,
                ));
                if let Some(f) = expand_form(view, me, st, if again(EXPAND) { Some(entered) } else { None }) {
                    parts.push(f);
                }
            }
            "Ride" => {
                if let Some(f) = ride_form(view, mine, me, st, if again(RIDE) { Some(entered) } else { None }) {
                    parts.push(f);
                }
                let rides = pick(legal, labels, |c| matches!(c, Command::Ride { .. })).collect();
                parts.extend(choose_one("ride", "Or one single step of Ride", rides, entered));
            }
            "Feast" => {
                if let Some(f) =
                    give_form(view, mine, legal, st, input.names, if again(GIVE) { Some(entered) } else { None })
                {
                    parts.push(f);
                }
                let b =
                    pick(legal, labels, |c| matches!(c, Command::Murder { .. } | Command::Capture { .. })).collect();
                parts.extend(choose_one("feast-b", "Feast B: murder or capture with a Bondi", b, entered));
            }
            _ => {
                let other = pick(legal, labels, |c| !matches!(c, Command::Pass)).collect();
                parts.extend(choose_one("resolve", &format!("{action}: choose"), other, entered));
            }
        }
        pass_button(&mut parts, &format!("Pass: end the {action}"));
    } else if asked == "Choose(Raid)" {
        parts.push(keep_form(mine, if again(KEEP) { Some(entered) } else { None }));
    } else if asked == "Choose(Pledge)" {
        parts.push(swear_form(mine, if again(SWEAR) { Some(entered) } else { None }));
    } else if asked == "Feud" {
        if let Some(f) = &view.feud {
            let side = if f.sides[0] == me { 0 } else { 1 };
            let conflicts: Vec<String> = f
                .conflicts
                .iter()
                .map(|c| {
                    format!(
                        "{}: you {} against {}{}",
                        c.colour,
                        c.worth[side],
                        c.worth[1 - side],
                        if c.settled { " (settled)" } else { "" }
                    )
                })
                .collect();
            parts.push(
                Note::new(format!(
                    "You fight {} with {} Thingmen against their {}. Conflicts by colour: {}.",
                    seat_words(input.names, f.sides[1 - side]),
                    f.thingmen[side],
                    f.thingmen[1 - side],
                    if conflicts.is_empty() { "none yet".into() } else { conflicts.join("; ") }
                ))
                .lead("Feud:", "feud-state")
                .into(),
            );
        }
        if view.sealed_feuds {
            parts.push(seal_form(mine, if again(SEAL) { Some(entered) } else { None }));
        } else {
            let commit = pick(legal, labels, |c| matches!(c, Command::Commit { .. }))
                .map(|(c, l)| {
                    let words = match &c {
                        Command::Commit { good } => mine
                            .wealth
                            .get(*good)
                            .map(|g| format!("Commit {}", good_words(g.place, g.worth)))
                            .unwrap_or(l),
                        _ => l,
                    };
                    (c, words)
                })
                .collect();
            parts.extend(choose_one(
                "commit",
                "Commit a Good: its colour is revealed and joins that conflict",
                commit,
                entered,
            ));
            let accept = pick(legal, labels, |c| matches!(c, Command::Accept { .. }))
                .map(|(c, l)| {
                    let words = match &c {
                        Command::Accept { colour } => {
                            format!("Accept the {} conflict as it stands", COLOURS.get(*colour).unwrap_or(&"?"))
                        }
                        _ => l,
                    };
                    (c, words)
                })
                .collect();
            parts.extend(choose_one("accept", "Or accept a conflict", accept, entered));
        }
    } else if asked == "Farm" {
        if let Some(call) = &view.farm_call {
            let what = if call.edge.is_some() {
                "You won a conflict against no Thingmen: raze one of their farms on a District where the feud took place"
            } else {
                "You captured a District: remove one of its former gothi's farms from the game"
            };
            parts.push(
                Note::new(format!("{what} ({}).", seat_words(input.names, call.loser)))
                    .lead("Your choice:", "farm-what")
                    .into(),
            );
        }
        let c = pick(legal, labels, |c| matches!(c, Command::Raze { .. } | Command::RemoveFarm { .. }))
            .map(|(c, l)| (c, capital(&l)))
            .collect();
        parts.extend(choose_one("farm", "Choose the farm", c, entered));
    } else if asked == "Choose(Replace)" {
        let pool: Vec<String> = view.pool.iter().flatten().map(|c| c.persona_label()).collect();
        let drawn: Vec<String> = mine.hand.iter().flatten().map(|c| c.persona_label()).collect();
        parts.push(
            Note::new(format!(
                "You drew {} for spaces of the Foster pool already taken (the pool: {}). A persona you choose replaces the one of its colour, which goes to its Doom; the others go to their Doom.",
                drawn.join(", "),
                if pool.is_empty() { "empty".into() } else { pool.join(", ") }
            ))
            .lead("Foster pool:", "replace-what")
            .into(),
        );
        let c = pick(legal, labels, |c| matches!(c, Command::Replace { .. })).map(|(c, l)| (c, capital(&l))).collect();
        parts.extend(choose_one("replace", "Replace in the Foster pool", c, entered));
    } else if asked == "Challenge" {
        let c = pick(legal, labels, |c| matches!(c, Command::Challenge { .. }))
            .map(|(c, l)| {
                let words = match c {
                    Command::Challenge { fight: true } => {
                        "Fight the band (a feud, without Thingmen on your side)".into()
                    }
                    Command::Challenge { fight: false } => "Let the band pass".into(),
                    _ => l,
                };
                (c, words)
            })
            .collect();
        parts.extend(choose_one("challenge", "A band rode through your District", c, entered));
    }
    // The season's choices already offer the bot's program (its first
    // choice): the bot is offered once there, not twice.
    if let (Some(v), Some(l)) = (legal.first(), labels.first()) {
        if !asked.is_empty() && asked != "Season" {
            let bot =
                Submit::new(format!("Let the bot decide: {l}")).command(v.to_string()).id("bot-decides").class("bot");
            parts.push(Form::new(vec![bot.into()]).class("bot-decides").into());
        }
    }
    if view.phase != Phase::Over && !mine.out {
        if !asked.is_empty() {
            parts.push(orders_form(mine, if again(ORDERS) { Some(entered) } else { None }));
        }
        parts.push(choices_form(mine));
        if view.rules_version >= 2 {
            parts.push(answers_form(mine));
        }
    }
    Some(Forms { parts })
}

/// Settle B: up to `strength` steps, each raising one of your Districts by 1
/// and advancing a farm of a colour.
fn expand_form(view: &View, me: u8, strength: u8, entered: Option<&BTreeMap<String, String>>) -> Option<Part> {
    let mine: Vec<(usize, String, u8)> = view
        .districts
        .iter()
        .enumerate()
        .filter(|(_, x)| x.owner == Some(me) && x.value < 4)
        .map(|(i, x)| (i, x.name.clone(), x.value))
        .collect();
    if mine.is_empty() || strength == 0 {
        return None;
    }
    let districts: Vec<Choice> =
        mine.iter().map(|(i, n, v)| Choice::new(i.to_string(), format!("{n} (value {v})"))).collect();
    let colours: Vec<Choice> = COLOURS.iter().enumerate().map(|(i, c)| Choice::new(i.to_string(), *c)).collect();
    let get = |k: &str| entered.and_then(|e| e.get(k).cloned()).unwrap_or_default();
    let mut rows: Vec<Part> = Vec::new();
    for k in 0..strength.min(6) {
        let d = format!("step.{k}.district");
        let c = format!("step.{k}.colour");
        rows.push(
            Group::new(
                Frame::Box,
                vec![
                    Field::new(
                        format!("expand-{k}-district"),
                        &d,
                        format!("Step {}: raise", k + 1),
                        Input::One { options: districts.clone(), blank: Some("(no step)".into()), required: false },
                    )
                    .value(get(&d))
                    .into(),
                    Field::new(
                        format!("expand-{k}-colour"),
                        &c,
                        "and advance a farm of",
                        Input::One { options: colours.clone(), blank: None, required: true },
                    )
                    .value(get(&c))
                    .into(),
                ],
            )
            .class("expand-step")
            .into(),
        );
    }
    let mut inside = vec![Part::Refusal { build: EXPAND.into() }];
    inside.extend(rows);
    inside.push(
        Note::small(format!(
            "Each step costs the District's value now (1 to 2 costs 1, 3 to 4 costs 3); at most {strength} in all. A stead grows to 4 at most."
        ))
        .into(),
    );
    inside.push(Submit::new("Expand these steads").id("expand-submit").class("primary").into());
    Some(
        Form::new(vec![Group::new(Frame::Fieldset { legend: "Settle B: expand your steads".into() }, inside).into()])
            .id("expand-form")
            .build(EXPAND)
            .into(),
    )
}

/// An edge in words: "Borgarfjordur–Hunathing".
fn edge_words(view: &View, e: usize) -> String {
    view.edges
        .get(e)
        .and_then(|x| {
            Some(format!("{}–{}", view.districts.get(x.districts[0])?.name, view.districts.get(x.districts[1])?.name))
        })
        .unwrap_or_else(|| format!("edge {e}"))
}

/// Ride A and B together: Thingmen set forth onto edges of your Districts,
/// then up to two bands ride along one to three edges each.
fn ride_form(
    view: &View,
    mine: &PlayerView,
    me: u8,
    strength: u8,
    entered: Option<&BTreeMap<String, String>>,
) -> Option<Part> {
    if strength == 0 {
        return None;
    }
    let get = |k: &str| entered.and_then(|e| e.get(k).cloned()).unwrap_or_default();
    let own = |i: usize| view.districts.get(i).is_some_and(|x| x.owner == Some(me));
    let borders: Vec<usize> = (0..view.edges.len())
        .filter(|e| own(view.edges[*e].districts[0]) || own(view.edges[*e].districts[1]))
        .collect();
    let mut forth: Vec<Part> = Vec::new();
    let most = i64::from(mine.longhall.min(strength));
    if most > 0 {
        for &e in &borders {
            let name = format!("forth.{e}");
            let value = if entered.is_some() { get(&name) } else { String::new() };
            forth.push(
                Field::new(
                    format!("forth-{e}"),
                    &name,
                    format!("Set forth to {}", edge_words(view, e)),
                    Input::Number { min: 0, max: most },
                )
                .value(value)
                .wrap("forth")
                .into(),
            );
        }
    }
    let held: Vec<usize> = (0..view.edges.len())
        .filter(|e| borders.contains(e) || view.edges[*e].thingmen.get(me as usize).is_some_and(|n| *n > 0))
        .collect();
    let from: Vec<Choice> = held
        .iter()
        .map(|e| {
            let n = view.edges[*e].thingmen.get(me as usize).copied().unwrap_or(0);
            Choice::new(e.to_string(), format!("{} ({n} of yours now)", edge_words(view, *e)))
        })
        .collect();
    let all: Vec<Choice> = (0..view.edges.len()).map(|e| Choice::new(e.to_string(), edge_words(view, e))).collect();
    let mut bands: Vec<Part> = Vec::new();
    for k in 0..2 {
        let f = |x: &str| format!("band.{k}.{x}");
        let one = |x: &str, label: &str, options: &[Choice], blank: &str| -> Part {
            Field::new(
                format!("band-{k}-{x}"),
                f(x),
                label,
                Input::One { options: options.to_vec(), blank: Some(blank.into()), required: false },
            )
            .value(get(&f(x)))
            .wrap("band-field")
            .into()
        };
        bands.push(
            Group::new(
                Frame::Fieldset { legend: format!("Band {}", k + 1) },
                vec![Group::new(
                    Frame::Box,
                    vec![
                        one("from", "From the edge", &from, "(no band)"),
                        Field::new(
                            format!("band-{k}-count"),
                            f("count"),
                            "With this many Thingmen",
                            Input::Number { min: 1, max: 12 },
                        )
                        .value(if entered.is_some() { get(&f("count")) } else { "1".into() })
                        .into(),
                        one("via1", "Through", &all, "(straight on)"),
                        one("via2", "Then through", &all, "(straight on)"),
                        one("to", "To the edge", &all, "(choose the last edge)"),
                    ],
                )
                .class("band-fields")
                .into()],
            )
            .class("band")
            .into(),
        );
    }
    let mut inside = vec![Part::Refusal { build: RIDE.into() }];
    if !forth.is_empty() {
        inside.push(Group::new(Frame::Box, forth).class("forth-list").into());
    }
    inside.extend(bands);
    inside.push(
        Note::small(format!(
            "Each Thingman set forth and each band's ride costs 1 of the strength {strength}. A band rides along one to three edges, each touching the one before, never through opposing Thingmen; ending where they stand starts a feud."
        ))
        .into(),
    );
    inside.push(Submit::new("Ride").id("ride-submit").class("primary").into());
    Some(
        Form::new(vec![
            Group::new(Frame::Fieldset { legend: "Ride: set forth and move your bands".into() }, inside).into()
        ])
        .id("ride-form")
        .build(RIDE)
        .into(),
    )
}

/// Feast A: each Good given to a guest; Goods to the same guest are one gift
/// set when their Worths make one (2+1 or 3+2+1).
fn give_form(
    view: &View,
    mine: &PlayerView,
    legal: &[Value],
    strength: u8,
    names: &[String],
    entered: Option<&BTreeMap<String, String>>,
) -> Option<Part> {
    let mut guests: Vec<u8> = legal
        .iter()
        .filter_map(typed)
        .filter_map(|c| match c {
            Command::Give { gifts } => gifts.first().map(|g| g.to),
            _ => None,
        })
        .collect();
    guests.sort();
    guests.dedup();
    if guests.is_empty() || mine.wealth.is_empty() {
        return None;
    }
    let options: Vec<Choice> = guests
        .iter()
        .map(|g| {
            let fame = view.players.get(*g as usize).map_or(0, |p| p.wordfame);
            Choice::new(g.to_string(), format!("{} ({fame} Wordfame)", seat_words(names, *g)))
        })
        .collect();
    let get = |k: &str| entered.and_then(|e| e.get(k).cloned()).unwrap_or_default();
    let mut inside = vec![Part::Refusal { build: GIVE.into() }];
    for g in &mine.wealth {
        let name = format!("gift.{}", g.place);
        inside.push(
            Field::new(
                format!("gift-{}", g.place),
                &name,
                capital(&good_words(g.place, g.worth)),
                Input::One { options: options.clone(), blank: Some("(keep it)".into()), required: false },
            )
            .value(get(&name))
            .wrap("gift")
            .into(),
        );
    }
    inside.push(
        Note::small(format!(
            "Only a gift's top Good counts against the strength {strength}. Goods of Worth 2 and 1, or 3, 2 and 1 to one guest are a gift set: 3 or 5 Wordfame if their colours match, else 1 per Good."
        ))
        .into(),
    );
    inside.push(Submit::new("Give these gifts").id("give-submit").class("primary").into());
    Some(
        Form::new(vec![Group::new(Frame::Fieldset { legend: "Feast A: give gifts".into() }, inside).into()])
            .id("give-form")
            .build(GIVE)
            .into(),
    )
}

/// Raid B: keep half of the cards drawn, rounded up, as Goods.
fn keep_form(mine: &PlayerView, entered: Option<&BTreeMap<String, String>>) -> Part {
    let hand = mine.hand.as_deref().unwrap_or_default();
    let n = hand.len().div_ceil(2);
    let options: Vec<Choice> = hand
        .iter()
        .map(|c| {
            Choice::new(c.id.to_string(), format!("{} {}, Worth {} ({})", c.colour, c.goods, c.worth, c.action.name()))
        })
        .collect();
    let values = entered.map(|e| e.get("keep").cloned().into_iter().collect()).unwrap_or_default();
    Form::new(vec![Group::new(
        Frame::Fieldset { legend: format!("Return laden: keep {n} of the {} cards as Goods", hand.len()) },
        vec![
            Part::Refusal { build: KEEP.into() },
            Field::new("keep", "keep", format!("Tick exactly {n}"), Input::Several { options, values }).into(),
            Note::small("Once kept, a Good shows only its Worth, to you too; the rest go to the Doom.").into(),
            Submit::new("Keep these").id("keep-submit").class("primary").into(),
        ],
    )
    .into()])
    .id("keep-form")
    .build(KEEP)
    .into()
}

/// Pledge: add at most one Bondi, and swap Bondi for drawn cards.
fn swear_form(mine: &PlayerView, entered: Option<&BTreeMap<String, String>>) -> Part {
    let hand = mine.hand.as_deref().unwrap_or_default();
    let options: Vec<Choice> = hand
        .iter()
        .map(|c| Choice::new(c.id.to_string(), format!("{} ({}, Worth {})", c.action.name(), c.colour, c.worth)))
        .collect();
    let get = |k: &str| entered.and_then(|e| e.get(k).cloned()).unwrap_or_default();
    let mut inside = vec![
        Part::Refusal { build: SWEAR.into() },
        Field::new(
            "swear-add",
            "add",
            "Swear a new Bondi",
            Input::One { options: options.clone(), blank: Some("(none)".into()), required: false },
        )
        .value(get("add"))
        .into(),
    ];
    for b in &mine.oaths {
        let name = format!("swap.{}", b.place);
        inside.push(
            Field::new(
                format!("swap-{}", b.place),
                &name,
                format!("Swap your Bondi {} ({}) for", b.action.name(), b.colour),
                Input::One { options: options.clone(), blank: Some("(keep it)".into()), required: false },
            )
            .value(get(&name))
            .into(),
        );
    }
    inside.push(Note::small("You may not have more Bondi than Districts. A Bondi shows others only its action side; the cards not taken go to the Doom.").into());
    inside.push(Submit::new("Swear").id("swear-submit").class("primary").into());
    Form::new(vec![Group::new(Frame::Fieldset { legend: "Pledge: take Bondi into your Oaths".into() }, inside).into()])
        .id("swear-form")
        .build(SWEAR)
        .into()
}

/// A sealed feud: the Goods committed, all at once, in secret.
fn seal_form(mine: &PlayerView, entered: Option<&BTreeMap<String, String>>) -> Part {
    let options: Vec<Choice> =
        mine.wealth.iter().map(|g| Choice::new(g.place.to_string(), capital(&good_words(g.place, g.worth)))).collect();
    let values = entered.map(|e| e.get("seal").cloned().into_iter().collect()).unwrap_or_default();
    let field: Part = if options.is_empty() {
        Note::new("You have no Goods: seal to fight with your Thingmen and the cards drawn alone.").into()
    } else {
        Field::new("seal", "seal", "Goods to commit", Input::Several { options, values }).into()
    };
    Form::new(vec![Group::new(
        Frame::Fieldset { legend: "Seal your commitment: both sides are revealed together".into() },
        vec![
            Part::Refusal { build: SEAL.into() },
            field,
            Note::small("Each Good joins the conflict of its colour; committed Goods may go to the other side as compensation or to the Doom.").into(),
            Submit::new("Seal these Goods").id("seal-submit").class("primary").into(),
        ],
    )
    .into()])
    .id("seal-form")
    .build(SEAL)
    .into()
}

fn order_value(o: &OrderDo) -> String {
    match o {
        OrderDo::Support => "support".into(),
        OrderDo::Ask => "ask".into(),
        OrderDo::SueFor { action } => format!("sue:{}", action.name().to_lowercase()),
    }
}

fn order_of(v: &str) -> Result<Option<OrderDo>, String> {
    match v {
        "" => Ok(None),
        "support" => Ok(Some(OrderDo::Support)),
        "ask" => Ok(Some(OrderDo::Ask)),
        _ => {
            let a = v.strip_prefix("sue:").and_then(|a| ACTIONS.iter().find(|x| x.name().eq_ignore_ascii_case(a)));
            a.map(|a| Some(OrderDo::SueFor { action: *a }))
                .ok_or_else(|| format!("\"{v}\" is not a standing order: support, sue for an action, or ask"))
        }
    }
}

/// Standing voting orders: what to do when each action is proposed.
fn orders_form(mine: &PlayerView, entered: Option<&BTreeMap<String, String>>) -> Part {
    let cur = mine.orders.clone().unwrap_or_default();
    let mut choices = vec![Choice::new("support", "support it"), Choice::new("ask", "ask me")];
    choices.extend(
        ACTIONS
            .iter()
            .map(|a| Choice::new(format!("sue:{}", a.name().to_lowercase()), format!("sue for {}", a.name()))),
    );
    let mut inside = vec![
        Part::Refusal { build: ORDERS.into() },
        Note::small("When your vote comes, an order answers at once: a council where everyone has orders resolves the moment the Lawspeaker proposes. Only you see your orders.").into(),
    ];
    for a in ACTIONS {
        let name = format!("order.{}", a.name().to_lowercase());
        let current = cur.rules.iter().find(|r| r.0 == a).map(|r| order_value(&r.1)).unwrap_or_default();
        let value = entered.map(|e| e.get(&name).cloned().unwrap_or_default()).unwrap_or(current);
        inside.push(
            Field::new(
                format!("order-{}", a.name().to_lowercase()),
                &name,
                format!("When {} is proposed", a.name()),
                Input::One { options: choices.clone(), blank: Some("(as otherwise)".into()), required: false },
            )
            .value(value)
            .into(),
        );
    }
    let current = cur.otherwise.as_ref().map(order_value).unwrap_or_default();
    let value = entered.map(|e| e.get("otherwise").cloned().unwrap_or_default()).unwrap_or(current);
    inside.push(
        Field::new(
            "order-otherwise",
            "otherwise",
            "Otherwise",
            Input::One {
                options: vec![Choice::new("support", "support it"), Choice::new("ask", "ask me")],
                blank: Some("(ask me)".into()),
                required: false,
            },
        )
        .value(value)
        .into(),
    );
    inside.push(Submit::new("Set standing orders").id("orders-submit").into());
    let summary =
        if mine.orders.is_some() { "Your standing voting orders (set)" } else { "Standing voting orders (none yet)" };
    Group::new(
        Frame::Folded { summary: summary.into(), open: entered.is_some() },
        vec![Form::new(inside).id("orders-form").build(ORDERS).into()],
    )
    .class("orders")
    .into()
}

/// The standing choices: ask me, or let the rules choose (the default).
fn choices_form(mine: &PlayerView) -> Part {
    let cur = mine.choices.unwrap_or_default();
    let inside = vec![
        Part::Refusal { build: CHOICES.into() },
        Note::small("Unless you tick a box the rules choose for you and the game does not wait: after a feud won against no Thingmen they raze the farm on the District of greater value, of the colour the loser holds most of; after a capture they remove a farm of that colour; and the Foster pool keeps its personae.").into(),
        Field::new("choice-farm", "farm", "Ask me which farm to raze or remove", Input::Checkbox { checked: cur.farm }).into(),
        Field::new(
            "choice-pool",
            "pool",
            "Ask me whether a persona I draw replaces the one in its Foster pool space",
            Input::Checkbox { checked: cur.pool },
        )
        .into(),
        Submit::new("Set standing choices").id("choices-submit").into(),
    ];
    let summary =
        if cur.farm || cur.pool { "Your standing choices (ask me)" } else { "Standing choices (the rules choose)" };
    Group::new(
        Frame::Folded { summary: summary.into(), open: false },
        vec![Form::new(inside).id("choices-form").build(CHOICES).into()],
    )
    .class("orders")
    .into()
}

/// The actions a season's program holds a step for, by field name.
pub(crate) const SEASON_ACTIONS: [(&str, Action); 5] = [
    ("settle", Action::Settle),
    ("ride", Action::Ride),
    ("raid", Action::Raid),
    ("foster", Action::Foster),
    ("feast", Action::Feast),
];

/// What a step does when the rules refuse it by then, in words.
fn fallback_choices() -> Vec<Choice> {
    vec![
        Choice::new("ask", "ask me then"),
        Choice::new("bot", "let the bot decide then"),
        Choice::new("skip", "leave it out"),
        Choice::new("pass", "pass on the action"),
    ]
}

/// A step's commands one may choose for `action`, from what the seat sees now.
pub(crate) fn season_options(view: &View, mine: &PlayerView, me: u8, names: &[String], action: Action) -> Vec<Choice> {
    let map = crate::data::data().map_of(view.rules_version);
    let owned = |x: usize| view.districts.get(x).and_then(|v| v.owner);
    let held = |x: usize| map.edges_of(x).any(|e| view.edges[e].thingmen.get(me as usize).is_some_and(|n| *n > 0));
    let mut my: Vec<usize> = (0..view.districts.len()).filter(|x| owned(*x) == Some(me)).collect();
    my.sort_unstable();
    let touches = |e: usize| my.contains(&map.edges[e].0) || my.contains(&map.edges[e].1);
    let mut out: Vec<(Command, String)> = Vec::new();
    match action {
        Action::Settle => {
            for x in 0..view.districts.len() {
                let next = map.edges.iter().any(|&(a, b)| (a == x && my.contains(&b)) || (b == x && my.contains(&a)));
                if owned(x).is_none() && (next || held(x)) && map.settleable(x) && mine.small_tokens > 0 {
                    for (c, colour) in COLOURS.iter().enumerate() {
                        let words = format!("settle {} (a {colour} farm)", view.districts[x].name);
                        out.push((Command::Subsume { district: x, colour: c }, words));
                    }
                }
            }
            for &x in &my {
                if view.districts[x].value < 4 {
                    for (c, colour) in COLOURS.iter().enumerate() {
                        let words = format!("expand {} (a {colour} farm)", view.districts[x].name);
                        out.push((Command::Expand { steps: vec![(x, c)] }, words));
                    }
                }
            }
        }
        Action::Ride => {
            for e in (0..map.edges.len()).filter(|e| touches(*e)) {
                for n in 1..=mine.longhall.min(4) {
                    let words =
                        format!("set forth {n} Thingm{} to {}", if n == 1 { "an" } else { "en" }, edge_words(view, e));
                    out.push((Command::Ride { set_forth: vec![e; n as usize], moves: vec![] }, words));
                }
            }
        }
        Action::Raid => {
            out.push((Command::ReturnLaden, "return laden with riches".into()));
            for n in 1..=mine.longhall.min(6) {
                let words = format!("send {n} Thingm{} to sea", if n == 1 { "an" } else { "en" });
                out.push((Command::SailOut { thingmen: n }, words));
            }
        }
        Action::Foster => {
            for c in view.pool.iter().flatten() {
                out.push((Command::FosterPersona { persona: c.id }, format!("foster {}", c.persona_label())));
            }
            for c in &mine.hird {
                out.push((Command::SendOff { persona: c.id }, format!("send off {}", c.persona_label())));
            }
        }
        Action::Feast => {
            let mut guests: Vec<u8> = Vec::new();
            for (e, ev) in view.edges.iter().enumerate() {
                let (a, b) = map.edges[e];
                for (x, y) in [(a, b), (b, a)] {
                    if my.contains(&x) {
                        if let Some(o) = owned(y).filter(|o| *o != me) {
                            guests.push(o);
                        }
                    }
                }
                if touches(e) {
                    guests.extend(
                        ev.thingmen
                            .iter()
                            .enumerate()
                            .filter(|(s, n)| **n > 0 && *s != me as usize)
                            .map(|(s, _)| s as u8),
                    );
                }
            }
            guests.sort_unstable();
            guests.dedup();
            guests.retain(|g| view.players.get(*g as usize).is_some_and(|p| !p.out));
            for g in &guests {
                for good in &mine.wealth {
                    let words = format!("give {} to {}", good_words(good.place, good.worth), seat_words(names, *g));
                    out.push((Command::Give { gifts: vec![Gift { to: *g, goods: vec![good.place] }] }, words));
                }
            }
            if !mine.oaths.is_empty() {
                for x in 0..view.districts.len() {
                    if owned(x).is_some_and(|o| o != me) && held(x) {
                        let words = format!("try to capture {} with a Bondi", view.districts[x].name);
                        out.push((Command::Capture { bondi: 0, weapon: None, district: x, pay: true }, words));
                    }
                }
            }
        }
        Action::Pledge => {}
    }
    out.into_iter().map(|(c, w)| Choice::new(json(&c), capital(&w))).collect()
}

/// The statutes the Lawspeaker may propose in a season's program.
pub(crate) fn propose_options(view: &View) -> Vec<Choice> {
    (0..view.laws.len())
        .filter_map(|law| {
            let level = match view.token {
                Some((l, lv)) if l == law => lv + 1,
                _ => 0,
            };
            (level < view.laws[law].statutes.len()).then(|| {
                Choice::new(json(&Command::Propose { law }), format!("Propose {}", statute_words(view, law, level)))
            })
        })
        .collect()
}

/// The season's program composed on the page: as Lawspeaker the statute
/// to propose; for each action one may come to resolve, one step from what
/// the seat sees now and what to do if the rules refuse it by then; and
/// what to do for a decision no step is for.
fn season_form(
    view: &View,
    mine: &PlayerView,
    me: u8,
    names: &[String],
    entered: Option<&BTreeMap<String, String>>,
) -> Part {
    let val = |k: &str, default: &str| entered.and_then(|e| e.get(k).cloned()).unwrap_or_else(|| default.to_owned());
    let mut inside = vec![
        Part::Refusal { build: SEASON.into() },
        Note::small("Each step runs when its decision comes, judged as the same choice made by hand then; the others' programs are secret too, so the board may have changed by then. Your votes follow your standing orders, and your standing answers decide feuds and bands riding through.").into(),
    ];
    if view.lawspeaker == me {
        let options = propose_options(view);
        inside.push(
            Field::new(
                "season-propose",
                "step.propose",
                "As Lawspeaker",
                Input::One { options, blank: Some("(ask me)".into()), required: false },
            )
            .value(val("step.propose", ""))
            .into(),
        );
    }
    for (key, action) in SEASON_ACTIONS {
        let options = season_options(view, mine, me, names, action);
        if options.is_empty() {
            continue;
        }
        let step = Field::new(
            format!("season-{key}"),
            format!("step.{key}"),
            format!("When I resolve {}", action.name()),
            Input::One { options, blank: Some("(no step)".into()), required: false },
        )
        .value(val(&format!("step.{key}"), ""));
        let fallback = Field::new(
            format!("season-{key}-fallback"),
            format!("fallback.{key}"),
            format!("If the rules refuse that {} by then", action.name()),
            Input::One { options: fallback_choices(), blank: None, required: true },
        )
        .value(val(&format!("fallback.{key}"), "ask"));
        inside.push(Group::new(Frame::Box, vec![step.into(), fallback.into()]).into());
    }
    inside.push(
        Field::new(
            "season-otherwise",
            "otherwise",
            "For a decision no step is for",
            Input::One {
                options: vec![
                    Choice::new("ask", "ask me"),
                    Choice::new("bot", "let the bot decide"),
                    Choice::new("pass", "pass on an action; ask me anything else"),
                ],
                blank: None,
                required: true,
            },
        )
        .value(val("otherwise", "ask"))
        .into(),
    );
    inside.push(Submit::new("Give my season's program").id("season-submit").class("primary").into());
    Group::new(
        Frame::Fieldset { legend: "Or compose your season".into() },
        vec![Form::new(inside).id("season-form").build(SEASON).into()],
    )
    .into()
}

/// The season's program posted by the composer.
fn season_command(posted: &Posted) -> Result<Command, String> {
    use crate::program::{Fallback, Otherwise, Program, ProgramStep};
    let mut steps = Vec::new();
    let command = |v: &str, what: &str| -> Result<Command, String> {
        serde_json::from_str::<Command>(v).map_err(|_| format!("the {what} step is not one the form offered"))
    };
    if let Some(v) = posted.get("step.propose").filter(|v| !v.is_empty()) {
        let c = command(v, "proposal")?;
        if !matches!(c, Command::Propose { .. }) {
            return Err("the proposal step is not a proposal".into());
        }
        steps.push(ProgramStep { step: c, fallback: Fallback::Ask });
    }
    for (key, action) in SEASON_ACTIONS {
        let Some(v) = posted.get(&format!("step.{key}")).filter(|v| !v.is_empty()) else { continue };
        let c = command(v, action.name())?;
        if crate::program::action_of(&c) != Some(action) {
            return Err(format!("the step for {} is not one of its commands", action.name()));
        }
        let fallback = match posted.get(&format!("fallback.{key}")).unwrap_or("ask") {
            "ask" | "" => Fallback::Ask,
            "bot" => Fallback::Bot,
            "skip" => Fallback::Skip,
            "pass" => Fallback::EndTurn,
            other => return Err(format!("\"{other}\" is not a fallback: ask me, the bot, leave it out or pass")),
        };
        steps.push(ProgramStep { step: c, fallback });
    }
    let otherwise = match posted.get("otherwise").unwrap_or("ask") {
        "ask" | "" => Otherwise::Ask,
        "bot" => Otherwise::Bot,
        "pass" => Otherwise::Pass,
        other => return Err(format!("\"{other}\" is not what to do otherwise: ask me, the bot or pass")),
    };
    Ok(Command::Season { program: Program { steps, otherwise, ..Program::default() } })
}

/// One standing answer as a list to choose from; the blank asks.
fn answer_field(id: &str, label: &str, options: Vec<Choice>, value: String) -> Part {
    Field::new(
        format!("answer-{id}"),
        id,
        label,
        Input::One { options, blank: Some("(ask me)".into()), required: false },
    )
    .value(value)
    .into()
}

/// The standing answers: what to answer, without being asked, in a feud,
/// when a band rides through, keeping cards from a raid and swearing Bondi;
/// and whether to play each season by hand.
fn answers_form(mine: &PlayerView) -> Part {
    use crate::program::{ChallengeAnswer, KeepAnswer, SwearAnswer};
    let cur = mine.answers.clone().unwrap_or_default();
    let colour_choices = |prefix: &str, what: &str| -> Vec<Choice> {
        COLOURS
            .iter()
            .enumerate()
            .map(|(i, c)| Choice::new(format!("{prefix}:{i}"), format!("{what} {c} first")))
            .collect()
    };
    let feud = vec![
        Choice::new("0", "commit nothing, accept each conflict"),
        Choice::new("1", "commit my Good of greatest Worth"),
        Choice::new("2", "commit my 2 Goods of greatest Worth"),
        Choice::new("3", "commit my 3 Goods of greatest Worth"),
    ];
    let challenge = vec![
        Choice::new("fight", "fight it"),
        Choice::new("let_pass", "let it pass"),
        Choice::new("fight_with:2", "fight when I hold 2 Goods or more"),
    ];
    let mut keep = vec![Choice::new("worth", "the cards of greatest Worth")];
    keep.extend(colour_choices("colour", "the"));
    let mut swear = vec![Choice::new("best", "the card of greatest Worth"), Choice::new("nothing", "nothing")];
    swear.extend(colour_choices("colour", "a"));
    let inside = vec![
        Part::Refusal { build: ANSWERS.into() },
        Note::small("An answer decides for you without asking, and the log says it was your standing answer; \"ask me\" waits for you. Only you see them.").into(),
        answer_field("feud", "In a feud", feud, cur.feud.map(|n| n.min(3).to_string()).unwrap_or_default()),
        answer_field(
            "challenge",
            "When a band rides through one of my Districts",
            challenge,
            match cur.challenge {
                Some(ChallengeAnswer::Fight) => "fight".into(),
                Some(ChallengeAnswer::LetPass) => "let_pass".into(),
                Some(ChallengeAnswer::FightWith { goods }) => format!("fight_with:{goods}"),
                None => String::new(),
            },
        ),
        answer_field(
            "keep",
            "Returning laden from a raid, keep",
            keep,
            match cur.keep {
                Some(KeepAnswer::Worth) => "worth".into(),
                Some(KeepAnswer::Colour { colour }) => format!("colour:{colour}"),
                None => String::new(),
            },
        ),
        answer_field(
            "swear",
            "Pledging, swear as a Bondi",
            swear,
            match cur.swear {
                Some(SwearAnswer::Best) => "best".into(),
                Some(SwearAnswer::Nothing) => "nothing".into(),
                Some(SwearAnswer::Colour { colour }) => format!("colour:{colour}"),
                None => String::new(),
            },
        ),
        Field::new(
            "answer-by-hand",
            "by_hand",
            "Play every season by hand (do not ask me for a season's program)",
            Input::Checkbox { checked: cur.by_hand },
        )
        .into(),
        Submit::new("Set standing answers").id("answers-submit").into(),
    ];
    let set = cur.feud.is_some() || cur.challenge.is_some() || cur.keep.is_some() || cur.swear.is_some();
    let summary = if set { "Your standing answers (set)" } else { "Standing answers (ask me)" };
    Group::new(
        Frame::Folded { summary: summary.into(), open: false },
        vec![Form::new(inside).id("answers-form").build(ANSWERS).into()],
    )
    .class("orders")
    .into()
}

/// The standing answers posted.
fn answers_command(posted: &Posted) -> Result<Command, String> {
    use crate::program::{Answers, ChallengeAnswer, KeepAnswer, SwearAnswer};
    let get = |k: &str| posted.get(k).filter(|v| !v.is_empty());
    let colour = |v: &str| -> Result<usize, String> {
        let c = number(v, "the colour")?;
        if c < 4 {
            Ok(c)
        } else {
            Err(format!("there is no colour number {c}"))
        }
    };
    let feud = get("feud").map(|v| number(v, "the number of Goods").map(|n| n.min(3) as u8)).transpose()?;
    let challenge = match get("challenge") {
        None => None,
        Some("fight") => Some(ChallengeAnswer::Fight),
        Some("let_pass") => Some(ChallengeAnswer::LetPass),
        Some(v) => match v.strip_prefix("fight_with:") {
            Some(n) => Some(ChallengeAnswer::FightWith { goods: number(n, "the number of Goods")?.min(99) as u8 }),
            None => return Err(format!("\"{v}\" is not an answer to a band riding through")),
        },
    };
    let keep = match get("keep") {
        None => None,
        Some("worth") => Some(KeepAnswer::Worth),
        Some(v) => match v.strip_prefix("colour:") {
            Some(c) => Some(KeepAnswer::Colour { colour: colour(c)? }),
            None => return Err(format!("\"{v}\" is not an answer to which cards to keep")),
        },
    };
    let swear = match get("swear") {
        None => None,
        Some("best") => Some(SwearAnswer::Best),
        Some("nothing") => Some(SwearAnswer::Nothing),
        Some(v) => match v.strip_prefix("colour:") {
            Some(c) => Some(SwearAnswer::Colour { colour: colour(c)? }),
            None => return Err(format!("\"{v}\" is not an answer to what to swear")),
        },
    };
    let by_hand = posted.get("by_hand").is_some_and(|v| v == "on");
    Ok(Command::Answers { answers: Answers { feud, challenge, keep, swear, by_hand } })
}

fn number(posted: &str, what: &str) -> Result<usize, String> {
    posted.trim().parse().map_err(|_| format!("{what} \"{posted}\" is not a number from the form"))
}

/// The command a posted form stands for.
pub fn command_of_form(build: &str, posted: &Posted, view: &View) -> Option<Result<Value, String>> {
    let built = match build {
        EXPAND => expand_command(posted),
        RIDE => ride_command(posted),
        KEEP => posted
            .all("keep")
            .map(|v| number(v, "the card").map(|c| c as u16))
            .collect::<Result<Vec<_>, _>>()
            .map(|cards| Command::Keep { cards }),
        SWEAR => swear_command(posted, view),
        GIVE => give_command(posted, view),
        SEAL => posted
            .all("seal")
            .map(|v| number(v, "the Good"))
            .collect::<Result<Vec<_>, _>>()
            .map(|goods| Command::Seal { goods }),
        ORDERS => orders_command(posted),
        ANSWERS => answers_command(posted),
        SEASON => season_command(posted),
        CHOICES => Ok(Command::Choices {
            choices: crate::state::Choices {
                farm: posted.get("farm").is_some_and(|v| v == "on"),
                pool: posted.get("pool").is_some_and(|v| v == "on"),
            },
        }),
        _ => return None,
    };
    Some(built.map(|c| serde_json::to_value(c).expect("a command serialises")))
}

fn expand_command(posted: &Posted) -> Result<Command, String> {
    let mut steps = Vec::new();
    for k in 0..6 {
        let Some(d) = posted.get(&format!("step.{k}.district")).filter(|d| !d.is_empty()) else { continue };
        let c = posted.get(&format!("step.{k}.colour")).unwrap_or("0");
        steps.push((number(d, "the District")?, number(c, "the colour")?));
    }
    if steps.is_empty() {
        return Err("choose a District for at least one step, or pass".into());
    }
    Ok(Command::Expand { steps })
}

fn ride_command(posted: &Posted) -> Result<Command, String> {
    let mut set_forth = Vec::new();
    for (k, v) in posted.pairs() {
        let Some(e) = k.strip_prefix("forth.") else { continue };
        if v.trim().is_empty() {
            continue;
        }
        let n = number(v, "the number of Thingmen")?;
        set_forth.extend(std::iter::repeat_n(number(e, "the edge")?, n));
    }
    let mut moves = Vec::new();
    for k in 0..2 {
        let f = |x: &str| posted.get(&format!("band.{k}.{x}")).filter(|v| !v.is_empty());
        let Some(from) = f("from") else { continue };
        let Some(to) = f("to") else {
            return Err(format!("band {} has no edge to ride to", k + 1));
        };
        let mut path = Vec::new();
        for via in [f("via1"), f("via2")].into_iter().flatten() {
            path.push(number(via, "the edge")?);
        }
        path.push(number(to, "the edge")?);
        let count = number(f("count").unwrap_or("1"), "the number of Thingmen")?;
        moves.push(crate::state::BandMove { from: number(from, "the edge")?, count: count.min(255) as u8, path });
    }
    if set_forth.is_empty() && moves.is_empty() {
        return Err("set forth at least one Thingman or choose a band's ride, or pass".into());
    }
    Ok(Command::Ride { set_forth, moves })
}

fn swear_command(posted: &Posted, view: &View) -> Result<Command, String> {
    let add = match posted.get("add").filter(|v| !v.is_empty()) {
        Some(v) => Some(number(v, "the card")? as u16),
        None => None,
    };
    let places = view.me.and_then(|m| view.players.get(m as usize)).map_or(0, |p| p.oaths.len());
    let mut swaps = Vec::new();
    for place in 0..places {
        if let Some(v) = posted.get(&format!("swap.{place}")).filter(|v| !v.is_empty()) {
            swaps.push((place, number(v, "the card")? as u16));
        }
    }
    Ok(Command::Swear { add, swaps })
}

fn give_command(posted: &Posted, view: &View) -> Result<Command, String> {
    let mut by_guest: BTreeMap<u8, Vec<(usize, u8)>> = BTreeMap::new();
    for (k, v) in posted.pairs() {
        let Some(place) = k.strip_prefix("gift.") else { continue };
        if v.is_empty() {
            continue;
        }
        let place = number(place, "the Good")?;
        let to = number(v, "the guest")? as u8;
        let worth =
            view.me.and_then(|m| view.players.get(m as usize)).and_then(|p| p.wealth.get(place)).map_or(0, |g| g.worth);
        by_guest.entry(to).or_default().push((place, worth));
    }
    if by_guest.is_empty() {
        return Err("choose a guest for at least one Good, or pass".into());
    }
    let mut gifts = Vec::new();
    for (to, mut goods) in by_guest {
        goods.sort_by_key(|g| std::cmp::Reverse(g.1));
        let worths: Vec<u8> = goods.iter().map(|g| g.1).collect();
        if matches!(worths.as_slice(), [2, 1] | [3, 2, 1]) {
            gifts.push(Gift { to, goods: goods.iter().map(|g| g.0).collect() });
        } else {
            gifts.extend(goods.iter().map(|g| Gift { to, goods: vec![g.0] }));
        }
    }
    Ok(Command::Give { gifts })
}

fn orders_command(posted: &Posted) -> Result<Command, String> {
    let mut rules = Vec::new();
    for a in ACTIONS {
        if let Some(o) = order_of(posted.get(&format!("order.{}", a.name().to_lowercase())).unwrap_or(""))? {
            rules.push((a, o));
        }
    }
    let otherwise = order_of(posted.get("otherwise").unwrap_or(""))?;
    Ok(Command::Orders { orders: Some(Orders { rules, otherwise }) })
}
