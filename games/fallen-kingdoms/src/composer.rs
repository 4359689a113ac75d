//! The turn program composed on the seat page (rules version 2): while
//! every player gives their coming turn at once, a seat writes its own
//! step by step — its god's power, production, the cards to take, where
//! new units go, the movement and its attacks, the invasion — each step
//! with one fallback of the kernel's kinds for when the step has become
//! impossible by the time it runs. The form starts from the turn suggested
//! from the map as it is now; a city is chosen in a list or on the map
//! (the page's script lights the cities a list may take). What the form
//! posts is put together here into one `program` command; the rules judge
//! it, and each step again when it runs.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use runestone_engine::present::{
    Choice, Field, Form, FormsInput, Frame, Group, Input, Note, Part, Posted, Submit, Sum,
};
use runestone_engine::Seat;

use crate::forms::{adjacent, again, capital, city, city_name, city_words, mine, number, player_words};
use crate::state::{MAX_UNITS, TRACK};
use crate::view::{PlayerView, View};

pub const PROGRAM: &str = "fk-program";

/// Movement rows of the composer.
pub const MOVES: usize = 4;

const TRACKS: [&str; 3] = ["unit", "building", "knowledge"];

/// The fallbacks a step may have, in the kernel's kinds; `alt` names the
/// step tried instead, for a step that has one. (A turn of this game ends
/// only by its movement, so the kernel's "end the turn there" would stop
/// to ask: trying "stay where I am" instead is how a turn is ended early.)
fn fallbacks(alt: Option<&str>) -> Vec<Choice> {
    let mut v = vec![
        Choice::new("skip", "leave this step out and go on with the next"),
        Choice::new("ask", "stop and ask me for the rest of my turn"),
        Choice::new("bot", "let the bot play the rest of my turn"),
    ];
    if let Some(alt) = alt {
        v.insert(0, Choice::new("try", format!("try instead: {alt}")));
    }
    v
}

/// The kernel's fallback of a posted choice; `alt` is the step tried instead.
fn fallback_of(raw: Option<&str>, alt: Option<Value>, what: &str) -> Result<Value, String> {
    Ok(match raw.unwrap_or("skip") {
        "skip" => json!({"type": "Skip"}),
        "ask" => json!({"type": "Ask"}),
        "bot" => json!({"type": "Bot"}),
        "try" => match alt {
            Some(step) => json!({"type": "Try", "step": step}),
            None => return Err(format!("{what}: there is nothing to try instead")),
        },
        other => return Err(format!("{what}: \"{other}\" is not one of the fallbacks")),
    })
}

/// The seat whose view this is (its own production is shown to it only).
fn me_of(v: &View) -> Option<(Seat, &PlayerView)> {
    v.players.iter().enumerate().find(|(_, p)| p.production.is_some()).map(|(k, p)| (k as Seat, p))
}

/// What a production of `free` points per track makes, as the rules count
/// it: units, buildings and knowledge cards owed, each at most what is left.
pub fn owed(v: &View, me: &PlayerView, free: [u8; 3]) -> [u8; 3] {
    let fixed = me.production.as_ref().map_or([0; 3], |p| p.fixed);
    let left = [
        MAX_UNITS.saturating_sub(me.units_on_board),
        (v.building_tiles.len() as u8).saturating_add(v.buildings_left),
        (v.knowledge_cards.len() as u8).saturating_add(v.knowledge_left),
    ];
    let mut out = [0u8; 3];
    for k in 0..3 {
        let total = me.tracks[k] as u16 + fixed[k] as u16 + free[k] as u16;
        out[k] = ((total / TRACK[k] as u16) as u8).min(left[k]);
    }
    out
}

/// What a production of `free` points makes, reckoned from what the
/// suggested turn's production made (`suggested`: its split, then the units,
/// buildings and cards it made, as the composer posts them): the suggested
/// counts, moved by the difference the rules' count gives between the two
/// splits. Without a suggestion, the rules' count alone.
fn reckon(v: &View, me: &PlayerView, free: [u8; 3], suggested: Option<&str>) -> [u8; 3] {
    let mine = owed(v, me, free);
    let Some(raw) = suggested else { return mine };
    let n: Vec<u8> = raw.split(',').filter_map(|x| x.trim().parse().ok()).collect();
    if n.len() != 6 {
        return mine;
    }
    let theirs = owed(v, me, [n[0], n[1], n[2]]);
    let mut out = [0u8; 3];
    for k in 0..3 {
        out[k] = (n[3 + k] as i16 + mine[k] as i16 - theirs[k] as i16).clamp(0, MAX_UNITS as i16) as u8;
    }
    out
}

/// The steps of the suggested program (the turn from the map as it is now).
pub(crate) fn suggested<'a>(input: &'a FormsInput<'_, View>) -> Vec<&'a Value> {
    input
        .legal
        .iter()
        .filter(|c| c["type"] == "program")
        .filter_map(|c| c["steps"].as_array())
        .max_by_key(|s| s.len())
        .map(|s| s.iter().map(|x| &x["step"]).collect())
        .unwrap_or_default()
}

/// The turn order of this turn in words, and where the seat comes in it.
pub(crate) fn order_words(v: &View, seat: Seat, names: &[String]) -> String {
    let n = v.players.len();
    let order: Vec<Seat> = (0..n).map(|i| ((v.first as usize + i) % n) as Seat).collect();
    let pos = order.iter().position(|&s| s == seat).unwrap_or(0);
    let said: Vec<String> =
        order.iter().map(|&s| if s == seat { "you".into() } else { player_words(v, s, names) }).collect();
    const PLACES: [&str; 6] = ["first", "second", "third", "fourth", "fifth", "sixth"];
    let when = match pos {
        0 => "Yours runs first, as soon as every program is in".to_string(),
        p => format!(
            "Yours runs {}, after {}, so the map may have changed by then",
            PLACES.get(p).copied().unwrap_or("later"),
            if p == 1 { "one other player's turn".to_string() } else { format!("{p} other players' turns") }
        ),
    };
    format!("This turn runs in this order: {}. {when}.", said.join(", then "))
}

/// The cities a move may go to: every city next to one of the seat's own.
fn reachable(v: &View, cities: &[u8]) -> Vec<u8> {
    let mut to: Vec<u8> = cities.iter().flat_map(|&c| v.board.adjacent(c)).collect();
    to.sort_unstable();
    to.dedup();
    to
}

fn pick(
    id: String,
    name: String,
    label: impl Into<String>,
    options: Vec<Choice>,
    blank: Option<&str>,
    value: String,
) -> Part {
    Field::new(id, name, label, Input::One { options, blank: blank.map(str::to_owned), required: false })
        .value(value)
        .wrap("fk-pick")
        .into()
}

/// One step of the composer: what it does in words, its fields, and its
/// fallback.
fn step(
    entered: &BTreeMap<String, String>,
    (n, key, title): (usize, &str, &str),
    help: String,
    fields: Vec<Part>,
    alt: Option<&str>,
    default: &str,
) -> Part {
    let name = format!("{key}.fallback");
    let fallback = Field::new(
        format!("prog-{key}-fallback"),
        name.clone(),
        format!("If step {n} is impossible when it comes"),
        Input::One { options: fallbacks(alt), blank: None, required: false },
    )
    .value(again(entered, PROGRAM, &name, default.into()))
    .wrap("fk-fallback");
    let mut parts: Vec<Part> = vec![Note::small(help).into()];
    parts.extend(fields);
    parts.push(fallback.into());
    Group::new(Frame::Fieldset { legend: format!("Step {n}: {title}") }, parts)
        .class("fk-step")
        .id(format!("prog-step-{key}"))
        .into()
}

/// The composer, or None when the seat has no kingdom to program.
pub fn form(input: &FormsInput<'_, View>) -> Option<Part> {
    let v = input.view;
    let seat = input.seat;
    let me = v.players.get(seat as usize)?;
    let production = me.production.clone()?;
    let cities = mine(v, seat);
    if cities.is_empty() {
        return None;
    }
    let steps = suggested(input);
    let find = |t: &str| steps.iter().copied().find(|s| s["type"] == t);
    let entered = input.entered;
    let val = |name: &str, default: String| again(entered, PROGRAM, name, default);
    let words = |c: u8| city_words(v, c, seat, input.names);
    let all: Vec<u8> = (0..v.cities.len() as u8).collect();
    let mut parts: Vec<Part> = vec![
        Note::new(
            "Give your whole coming turn now, in secret; you may replace it until your turn begins. \
             Each step below is checked by the rules when it runs, exactly as if you played it by hand then; \
             if it has become impossible (a city lost, a card taken by someone else), its fallback is used.",
        )
        .lead(order_words(v, seat, input.names), "prog-when-text")
        .id("prog-when")
        .into(),
        Note::small(
            "Cities are chosen in the lists below; with the map, put the cursor in a city list (the map says which \
             one it fills) and click a lit city.",
        )
        .id("prog-map-help")
        .into(),
    ];
    let mut n = 0;

    // The god's power.
    let god_step = find("use_god").or_else(|| find("skip_god"));
    if let Some(g) = god_step {
        n += 1;
        let default = match (g["type"].as_str(), g["target"].as_u64()) {
            (Some("use_god"), Some(t)) => format!("on-{t}"),
            (Some("use_god"), None) => "use".into(),
            _ => "skip".into(),
        };
        let god = me.god.clone().unwrap_or_else(|| "your god".into());
        let mut options = vec![
            Choice::new("skip", "do not use it"),
            Choice::new("use", format!("use {god}'s power (no city to name)")),
        ];
        options.extend(all.iter().map(|&c| Choice::new(format!("on-{c}"), format!("use it on {}", words(c)))));
        parts.push(step(
            entered,
            (n, "god", "your god's power"),
            format!("{god}'s power, once a turn while your temple stands (the rules page tells each god's). A city can be clicked on the map."),
            vec![pick("prog-god".into(), "god".into(), "The power", options, None, val("god", default))],
            Some("do not use the power"),
            "skip",
        ));
    }

    // Production.
    n += 1;
    let free = production.free as i64;
    let split = split_of(&steps, production.free);
    let names: Vec<String> = TRACKS.iter().map(|t| format!("free.{t}")).collect();
    let mut counts: Vec<Part> = Vec::new();
    for (k, t) in TRACKS.iter().enumerate() {
        counts.push(
            Field::new(
                format!("prog-free-{t}"),
                names[k].clone(),
                format!("{}: now {}/{}, +{} fixed", capital(t), me.tracks[k], TRACK[k], production.fixed[k]),
                Input::Number { min: 0, max: free },
            )
            .value(val(&names[k], split[k].as_u64().unwrap_or(0).to_string()))
            .wrap("fk-count")
            .described_by("prog-free-count")
            .into(),
        );
    }
    counts.push(
        Sum {
            id: "prog-free-count".into(),
            fields: names,
            min: free,
            max: free,
            words: format!("Spend exactly {free} free points, as many as your cities and ports give now."),
        }
        .into(),
    );
    parts.push(step(
        entered,
        (n, "produce", "production"),
        format!(
            "Your cities, buildings and knowledge add {} unit, {} building and {} knowledge points; you add the {free} \
             free points. A full track makes a unit (3), a building (6) or a knowledge card (9). If you lose a city \
             before your turn, the free points change and this step is impossible.",
            production.fixed[0], production.fixed[1], production.fixed[2]
        ),
        vec![Group::new(Frame::Box, counts).class("fk-counts").into()],
        None,
        "bot",
    ));

    // The cards to take.
    let taken = |kind: &str| -> Vec<u64> {
        steps.iter().filter(|s| s["type"] == kind).filter_map(|s| s["card"].as_u64().or(s["tile"].as_u64())).collect()
    };
    let mut takes: Vec<Part> = Vec::new();
    for (kind, cards, names, label) in [
        ("knowledge", &v.knowledge_cards, &v.knowledge_shown, "Knowledge card"),
        ("building", &v.building_tiles, &v.buildings_shown, "Building tile"),
    ] {
        let chosen = taken(if kind == "knowledge" { "take_knowledge" } else { "take_building" });
        let options: Vec<Choice> =
            cards.iter().zip(names).map(|(c, w)| Choice::new(c.to_string(), w.clone())).collect();
        for (i, card) in cards.iter().enumerate().take(2) {
            let name = format!("take.{kind}.{i}");
            let default = chosen.get(i).map(|c| c.to_string()).unwrap_or_else(|| card.to_string());
            let which = if i == 0 { "first choice" } else { "second choice" };
            takes.push(pick(
                format!("prog-take-{kind}-{i}"),
                name.clone(),
                format!("{label}, {which}"),
                options.clone(),
                None,
                val(&name, default),
            ));
        }
    }
    if !takes.is_empty() {
        n += 1;
        parts.push(step(
            entered,
            (n, "take", "the cards you produce"),
            "For each building or knowledge card your production makes, take one face-up: your first choice, \
             then your second. A card another player took first is impossible then."
                .into(),
            takes,
            None,
            "bot",
        ));
    }

    // Where the new units (and buildings) go.
    n += 1;
    let place = find("place_produced").and_then(|p| p["units"][0].as_u64()).unwrap_or(cities[0] as u64);
    parts.push(step(
        entered,
        (n, "place", "where new units go"),
        "Every new unit goes to this city of yours; new buildings go to your cities without one, in map order. \
         Click one of your cities on the map."
            .into(),
        vec![pick(
            "prog-place-city".into(),
            "place.city".into(),
            "New units go to",
            cities.iter().map(|&c| Choice::new(c.to_string(), words(c))).collect(),
            None,
            val("place.city", place.to_string()),
        )],
        None,
        "bot",
    ));

    // The movement and its attacks.
    n += 1;
    let (moves, attacks) = match find("move") {
        Some(m) => {
            (m["moves"].as_array().cloned().unwrap_or_default(), m["attacks"].as_array().cloned().unwrap_or_default())
        }
        None => (Vec::new(), Vec::new()),
    };
    let reach = reachable(v, &cities);
    let mut rows: Vec<Part> = Vec::new();
    for i in 0..MOVES {
        let m = moves.get(i);
        let get = |k: &str| m.and_then(|m| m[k].as_u64()).map(|x| x.to_string()).unwrap_or_default();
        let to = m.and_then(|m| m["to"].as_u64());
        let order = attacks.iter().find(|a| a["city"].as_u64() == to && to.is_some());
        let name = |k: &str| format!("move.{i}.{k}");
        let retreat = order.and_then(|o| o["retreat_at"].as_u64()).unwrap_or(1).to_string();
        let checked = if entered.get("build").is_some_and(|b| b == PROGRAM) {
            entered.contains_key(&name("occupy"))
        } else {
            order.is_none_or(|o| o["occupy"] != false)
        };
        rows.push(
            Group::new(
                Frame::Fieldset { legend: format!("Move {}", i + 1) },
                vec![
                    pick(
                        format!("prog-move-{i}-from"),
                        name("from"),
                        "From your city",
                        cities.iter().map(|&c| Choice::new(c.to_string(), words(c))).collect(),
                        Some("(no move)"),
                        val(&name("from"), get("from")),
                    ),
                    pick(
                        format!("prog-move-{i}-to"),
                        name("to"),
                        "To the city next to it (an enemy city is attacked)",
                        reach.iter().map(|&c| Choice::new(c.to_string(), words(c))).collect(),
                        Some("(choose)"),
                        val(&name("to"), get("to")),
                    ),
                    Field::new(
                        format!("prog-move-{i}-units"),
                        name("units"),
                        "Units",
                        Input::Number { min: 0, max: MAX_UNITS as i64 },
                    )
                    .value(val(&name("units"), get("units")))
                    .wrap("fk-count")
                    .into(),
                    Field::new(
                        format!("prog-move-{i}-retreat"),
                        name("retreat"),
                        "If it attacks: retreat when down to (0: never)",
                        Input::Number { min: 0, max: MAX_UNITS as i64 },
                    )
                    .value(val(&name("retreat"), retreat))
                    .wrap("fk-count")
                    .into(),
                    Field::new(
                        format!("prog-move-{i}-occupy"),
                        name("occupy"),
                        "After a win, move in",
                        Input::Checkbox { checked },
                    )
                    .into(),
                ],
            )
            .class("fk-move-row")
            .into(),
        );
    }
    parts.push(step(
        entered,
        (n, "move", "movement and attacks"),
        "Your whole movement, which ends your turn: from a city of yours to a city next to it by road or route. \
         Moving into another player's city attacks it; the battle is fought from your orders here and theirs. \
         Click the city to move from, then the city to move to."
            .into(),
        vec![Group::new(Frame::Box, rows).class("fk-move-rows").into()],
        Some("stay where I am (no movement)"),
        "try",
    ));

    // The invasion.
    let invasion = vec![
        Choice::new("pass", "do not invade"),
        Choice::new("ask", "ask me then"),
        Choice::new("bot", "let the bot decide then"),
    ];
    parts.push(
        Group::new(
            Frame::Fieldset { legend: "At the end of the turn: the invasion".into() },
            vec![
                Note::small("Once every player has moved, a player whose kingdom has fallen (or is small) may invade from the edge of the map.").into(),
                pick("prog-invasion".into(), "invasion".into(), "At the invasion", invasion, None, val("invasion", "pass".into())),
            ],
        )
        .into(),
    );
    parts.push(Part::Refusal { build: PROGRAM.into() });
    parts.push(Submit::new("Give this program").class("primary").id("prog-submit").into());
    let mut form = Form::new(vec![Group::new(Frame::Fieldset { legend: "Compose your turn".into() }, parts).into()])
        .build(PROGRAM)
        .id("fk-program-form");
    for (name, value) in hidden(&steps, &split) {
        form = form.hidden(name, value);
    }
    Some(form.into())
}

/// The composer's hidden fields, from the suggested program's `steps` and
/// its production `split`: what the suggested turn's production made (its
/// split, then the units, buildings and cards it placed and took), so that
/// the units to place and the cards to take are reckoned from it, the
/// god's power and the knowledge held included; and the god a god that
/// copies another's power copies.
fn hidden(steps: &[&Value], split: &Value) -> Vec<(&'static str, String)> {
    let find = |t: &str| steps.iter().copied().find(|s| s["type"] == t);
    let count = |t: &str| steps.iter().filter(|s| s["type"] == t).count();
    let units = find("place_produced").and_then(|p| p["units"].as_array().map(Vec::len)).unwrap_or(0);
    let made = [units, count("take_building"), count("take_knowledge")];
    let reckoned = format!(
        "{},{},{},{},{},{}",
        split[0].as_u64().unwrap_or(0),
        split[1].as_u64().unwrap_or(0),
        split[2].as_u64().unwrap_or(0),
        made[0],
        made[1],
        made[2]
    );
    let mut out = vec![("suggested", reckoned)];
    let god = find("use_god").or_else(|| find("skip_god"));
    if let Some(copy) = god.and_then(|g| g["copy"].as_u64()) {
        out.push(("god.copy", copy.to_string()));
    }
    out
}

/// The hidden fields the composer posts for `input`'s seat (see [`hidden`]).
pub(crate) fn hidden_fields(input: &FormsInput<'_, View>) -> Vec<(&'static str, String)> {
    let steps = suggested(input);
    let free = input.view.players.get(input.seat as usize).and_then(|p| p.production.as_ref()).map_or(0, |p| p.free);
    hidden(&steps, &split_of(&steps, free))
}

/// The suggested program's split of the `free` production points (all on
/// units without a suggestion).
pub(crate) fn split_of(steps: &[&Value], free: u8) -> Value {
    steps.iter().find(|s| s["type"] == "produce").map(|p| p["free"].clone()).unwrap_or(json!([free, 0, 0]))
}

/// The posted composer as one `program` command.
pub fn command(posted: &Posted, v: &View) -> Result<Value, String> {
    let (seat, me) = me_of(v).ok_or("Only a seated player composes a program")?;
    let production = me.production.clone().unwrap_or(crate::view::Production { fixed: [0; 3], free: 0 });
    let mut steps: Vec<Value> = Vec::new();
    let mut push = |step: Value, fallback: Value| steps.push(json!({"step": step, "fallback": fallback}));

    if let Some(g) = posted.get("god") {
        // A god that copies another's power names the one it copies (as
        // the suggested turn did).
        let copy = match posted.get("god.copy").map(str::trim).filter(|c| !c.is_empty()) {
            Some(c) => Some(c.parse::<u8>().map_err(|_| "The god's power: the god copied is not a god's number")?),
            None => None,
        };
        let step = match g {
            "skip" => json!({"type": "skip_god"}),
            "use" => json!({"type": "use_god", "copy": copy}),
            other => match other.strip_prefix("on-").and_then(|c| c.parse::<u8>().ok()) {
                Some(c) if (c as usize) < v.cities.len() => json!({"type": "use_god", "target": c, "copy": copy}),
                _ => return Err("The god's power names no city on this map".into()),
            },
        };
        let fb = fallback_of(posted.get("god.fallback"), Some(json!({"type": "skip_god"})), "The god's power")?;
        push(step, fb);
    }

    let mut free = [0u8; 3];
    for (k, t) in TRACKS.iter().enumerate() {
        free[k] = number(posted, &format!("free.{t}"), &format!("The {t} points"), production.free as u32)?;
    }
    let spent: u32 = free.iter().map(|&x| x as u32).sum();
    if spent != production.free as u32 {
        return Err(format!("Production: spend exactly {} free points, not {spent}", production.free));
    }
    push(json!({"type": "produce", "free": free}), fallback_of(posted.get("produce.fallback"), None, "Production")?);
    let owed = reckon(v, me, free, posted.get("suggested"));

    // The takes, first choices first, then the other face-up cards.
    let take_fb = fallback_of(posted.get("take.fallback"), None, "Taking the cards")?;
    let mut new_tiles: Vec<u8> = Vec::new();
    for (kind, cards, count, field) in
        [("knowledge", &v.knowledge_cards, owed[2], "card"), ("building", &v.building_tiles, owed[1], "tile")]
    {
        let mut order: Vec<u8> = Vec::new();
        for i in 0..2 {
            if let Some(raw) = posted.get(&format!("take.{kind}.{i}")) {
                match raw.trim().parse::<u8>() {
                    Ok(c) if cards.contains(&c) => {
                        if !order.contains(&c) {
                            order.push(c);
                        }
                    }
                    _ => return Err(format!("Taking the cards: that {kind} card is not face up")),
                }
            }
        }
        order.extend(cards.iter().copied().filter(|c| !order.contains(c)).collect::<Vec<_>>());
        for &c in order.iter().take(count as usize) {
            if kind == "building" {
                new_tiles.push(c);
            }
            push(json!({"type": format!("take_{kind}"), field: c}), take_fb.clone());
        }
    }

    let spots: Vec<u8> = mine(v, seat)
        .into_iter()
        .filter(|&c| v.cities[c as usize].building.is_none() && v.cities[c as usize].temple.is_none())
        .collect();
    let tiles: Vec<u8> = me.sheet_tiles.iter().copied().chain(new_tiles).collect();
    let buildings: Vec<Value> = tiles.iter().zip(&spots).map(|(t, c)| json!([t, c])).collect();
    if owed[0] > 0 || !buildings.is_empty() {
        let to = city(posted, "place.city", "New units", v)?.ok_or("Choose the city your new units go to")?;
        let units = vec![to; owed[0] as usize];
        push(
            json!({"type": "place_produced", "units": units, "buildings": buildings}),
            fallback_of(posted.get("place.fallback"), None, "Placing")?,
        );
    }

    let mut moves: Vec<Value> = Vec::new();
    let mut attacks: Vec<Value> = Vec::new();
    for i in 0..MOVES {
        let what = format!("Move {}", i + 1);
        let Some(from) = city(posted, &format!("move.{i}.from"), &what, v)? else { continue };
        let to = city(posted, &format!("move.{i}.to"), &what, v)?
            .ok_or_else(|| format!("{what}: choose the city to move to from {}", city_name(v, from)))?;
        if !adjacent(v, from).contains(&to) {
            return Err(format!("{what}: {} is not next to {} by road or route", city_name(v, to), city_name(v, from)));
        }
        let units = number(posted, &format!("move.{i}.units"), &format!("{what}: the units"), MAX_UNITS as u32)?;
        if units == 0 {
            return Err(format!("{what}: move at least one unit, or leave \"From\" at (no move)"));
        }
        moves.push(json!({"from": from, "to": to, "units": units}));
        let enemy = v.cities[to as usize].owner.is_some_and(|o| o != seat);
        if enemy && !attacks.iter().any(|a| a["city"] == json!(to)) {
            let retreat =
                number(posted, &format!("move.{i}.retreat"), &format!("{what}: the retreat"), MAX_UNITS as u32)?;
            let occupy = posted.get(&format!("move.{i}.occupy")).is_some();
            attacks.push(json!({"city": to, "retreat_at": retreat, "rampage": null, "occupy": occupy,
                                "call_off_if_lost": false, "ask": false}));
        }
    }
    let stay = json!({"type": "move", "moves": [], "attacks": []});
    push(
        json!({"type": "move", "moves": moves, "attacks": attacks}),
        fallback_of(posted.get("move.fallback"), Some(stay), "The movement")?,
    );

    let invasion = match posted.get("invasion").unwrap_or("pass") {
        "pass" => json!({"type": "Pass"}),
        "ask" => json!({"type": "Ask"}),
        "bot" => json!({"type": "Bot"}),
        other => return Err(format!("The invasion: \"{other}\" is not one of the choices")),
    };
    Ok(json!({"type": "program", "steps": steps, "invasion": invasion}))
}
