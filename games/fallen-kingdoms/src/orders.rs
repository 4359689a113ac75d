//! Orders by mail in the words of Fallen Kingdoms: the program of a seat's
//! coming turn, one line per step of the seat page's composer, each with
//! its fallback. The mail that asks prints the turn suggested from the map
//! as it is now:
//!
//! ```text
//! god: use on Asgard; if impossible: skip
//! production: 2 units, 1 building, 0 knowledge; if impossible: bot
//! cards: knowledge Mining, then Runes; building barrack, then farm; if impossible: bot
//! new units: Asgard; if impossible: bot
//! move: 3 from Asgard to Bifrost, retreat at 1, move in
//! move: 2 from Asgard to Mimir
//! movement if impossible: stay
//! invasion: pass
//! ```
//!
//! and the player edits it in a reply. The lines are read into the fields
//! the composer posts, and the composer puts them together
//! ([`crate::composer::command`]): the page and the mail cannot disagree.
//! Cities are named by name, in any case, or by the start of the name when
//! no other city starts so. Lines in parentheses are the form's help, and
//! are passed over.

use serde_json::Value;

use runestone_engine::present::orders::plain_words;
use runestone_engine::present::{FormsInput, OrderError, OrderLine, Posted};
use runestone_engine::Seat;

use crate::composer::{self, MOVES};
use crate::forms::{adjacent, city_name, mine, player_words};
use crate::state::{Phase, MAX_UNITS};
use crate::view::View;

const TRACKS: [&str; 3] = ["unit", "building", "knowledge"];

/// What each line of the program looks like, for an error to quote.
const LINES: &str = "the program's lines are \"god:\", \"production:\", \"cards:\", \"new units:\", up to four \
                     \"move:\", \"movement if impossible:\" and \"invasion:\", as the mail printed them";

/// The steps of the composer, as the mail's lines name them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Key {
    God,
    Production,
    Cards,
    Place,
    Move,
    Movement,
    Invasion,
}

impl Key {
    fn of(words: &str) -> Option<Key> {
        Some(match words {
            "god" | "gods power" | "power" | "god power" => Key::God,
            "production" | "produce" => Key::Production,
            "cards" | "take" | "the cards" => Key::Cards,
            "new units" | "new units go to" | "place" => Key::Place,
            "movement if impossible" | "movement" | "moves if impossible" => Key::Movement,
            "invasion" | "at the invasion" => Key::Invasion,
            w if w == "move" || w.strip_prefix("move ").is_some_and(|n| n.parse::<u8>().is_ok()) => Key::Move,
            _ => return None,
        })
    }

    /// The step's field in the composer, and the fallback it has when the
    /// line gives none (the composer's).
    fn fallback(self) -> Option<(&'static str, &'static str)> {
        match self {
            Key::God => Some(("god.fallback", "skip")),
            Key::Production => Some(("produce.fallback", "bot")),
            Key::Cards => Some(("take.fallback", "bot")),
            Key::Place => Some(("place.fallback", "bot")),
            Key::Movement => Some(("move.fallback", "try")),
            Key::Move | Key::Invasion => None,
        }
    }

    /// The words of the step's "try instead" fallback, if it has one.
    fn alternative(self) -> Option<&'static str> {
        match self {
            Key::God => Some("no power"),
            Key::Movement => Some("stay"),
            _ => None,
        }
    }
}

/// Whether the composer applies: the seat programs its coming turn, and
/// has a kingdom to program.
fn composes(v: &View, seat: Seat) -> bool {
    v.phase == Phase::Programs
        && v.players.get(seat as usize).is_some_and(|p| p.production.is_some())
        && !mine(v, seat).is_empty()
}

/// A fallback's words in the mail.
fn fallback_words(key: Key, raw: &'static str) -> &'static str {
    match raw {
        "try" => key.alternative().unwrap_or("skip"),
        other => other,
    }
}

/// The seat's free production points.
fn free_points(v: &View, seat: Seat) -> u8 {
    v.players.get(seat as usize).and_then(|p| p.production.as_ref()).map_or(0, |p| p.free)
}

/// The cards the composer offers first and second of a kind: the
/// suggested program's takes, else the first face up.
fn chosen_cards(steps: &[&Value], kind: &str, cards: &[u8]) -> Vec<u8> {
    let taken: Vec<u8> = steps
        .iter()
        .filter(|s| s["type"] == format!("take_{kind}"))
        .filter_map(|s| s["card"].as_u64().or(s["tile"].as_u64()))
        .map(|c| c as u8)
        .collect();
    cards.iter().enumerate().take(2).map(|(i, &c)| taken.get(i).copied().unwrap_or(c)).collect()
}

/// The face-up cards of a kind, with their names.
fn face_up<'a>(v: &'a View, kind: &str) -> (&'a [u8], &'a [String]) {
    if kind == "knowledge" {
        (&v.knowledge_cards, &v.knowledge_shown)
    } else {
        (&v.building_tiles, &v.buildings_shown)
    }
}

/// The lines a mail prints for the program of the seat's coming turn.
pub fn order_form(input: &FormsInput<'_, View>) -> Vec<String> {
    let (v, seat) = (input.view, input.seat);
    if !composes(v, seat) {
        return Vec::new();
    }
    let steps = composer::suggested(input);
    let find = |t: &str| steps.iter().copied().find(|s| s["type"] == t);
    let city = |c: Option<u64>| c.map_or_else(String::new, |c| city_name(v, c as u8));
    let free = free_points(v, seat);
    let mut out = vec![
        format!(
            "(Your turn {} as a program: change what you like and reply with these lines, down to END; a later \
             reply replaces it until your turn begins.)",
            v.turn
        ),
        format!("({})", composer::order_words(v, seat, input.names)),
    ];
    let with = |key: Key, text: String| match key.fallback() {
        Some((_, default)) => format!("{text}; if impossible: {}", fallback_words(key, default)),
        None => text,
    };
    if let Some(g) = find("use_god").or_else(|| find("skip_god")) {
        let power = match (g["type"].as_str(), g["target"].as_u64()) {
            (Some("use_god"), Some(t)) => format!("use on {}", city(Some(t))),
            (Some("use_god"), None) => "use".into(),
            _ => "skip".into(),
        };
        out.push(with(Key::God, format!("god: {power}")));
    }
    let split = composer::split_of(&steps, free);
    let n = |k: usize| split[k].as_u64().unwrap_or(0);
    out.push(with(
        Key::Production,
        format!(
            "production: {} unit{}, {} building{}, {} knowledge",
            n(0),
            if n(0) == 1 { "" } else { "s" },
            n(1),
            if n(1) == 1 { "" } else { "s" },
            n(2)
        ),
    ));
    let mut kinds = Vec::new();
    for kind in ["knowledge", "building"] {
        let (cards, names) = face_up(v, kind);
        let chosen = chosen_cards(&steps, kind, cards);
        if chosen.is_empty() {
            continue;
        }
        let said: Vec<String> = chosen
            .iter()
            .filter_map(|c| cards.iter().position(|x| x == c).and_then(|i| names.get(i)).cloned())
            .collect();
        kinds.push(format!("{kind} {}", said.join(", then ")));
    }
    if !kinds.is_empty() {
        out.push(with(Key::Cards, format!("cards: {}", kinds.join("; "))));
    }
    let place =
        find("place_produced").and_then(|p| p["units"][0].as_u64()).or(mine(v, seat).first().map(|&c| c as u64));
    out.push(with(Key::Place, format!("new units: {}", city(place))));
    let (moves, attacks) = match find("move") {
        Some(m) => {
            (m["moves"].as_array().cloned().unwrap_or_default(), m["attacks"].as_array().cloned().unwrap_or_default())
        }
        None => (Vec::new(), Vec::new()),
    };
    for m in moves.iter().take(MOVES) {
        let to = m["to"].as_u64();
        let mut line =
            format!("move: {} from {} to {}", m["units"].as_u64().unwrap_or(0), city(m["from"].as_u64()), city(to));
        let enemy = to.and_then(|t| v.cities.get(t as usize)).and_then(|c| c.owner).is_some_and(|o| o != seat);
        if enemy {
            let order = attacks.iter().find(|a| a["city"].as_u64() == to);
            let retreat = order.and_then(|o| o["retreat_at"].as_u64()).unwrap_or(1);
            let occupy = order.is_none_or(|o| o["occupy"] != false);
            line += &format!(", retreat at {retreat}, {}", if occupy { "move in" } else { "stay out" });
        }
        out.push(line);
    }
    out.push(format!("movement if impossible: {}", fallback_words(Key::Movement, "try")));
    out.push("invasion: pass".into());
    out.extend(help(input));
    out
}

/// The help lines under the program: what each line takes, and the map
/// around the seat's kingdom.
fn help(input: &FormsInput<'_, View>) -> Vec<String> {
    let (v, seat) = (input.view, input.seat);
    let free = free_points(v, seat);
    let mut out = vec![
        format!(
            "(god: skip, use, or use on a city. production: spend exactly {free} free points. cards: your first \
             and second choice of the face-up cards, for each your production makes.)"
        ),
        format!(
            "(move: up to {MOVES}, units from a city of yours to a city next to it; a move into another player's \
             city attacks it: retreat at N units (0: never), and after a win move in or stay out.)"
        ),
        "(if impossible: skip (leave the step out), ask (ask me for the rest of my turn) or bot (the bot plays \
         the rest); for the god also \"no power\", for the movement \"stay\". invasion: pass, ask or bot.)"
            .into(),
    ];
    let cities = mine(v, seat);
    let yours: Vec<String> =
        cities.iter().map(|&c| format!("{} ({})", city_name(v, c), v.cities[c as usize].units)).collect();
    let mut near: Vec<u8> = cities.iter().flat_map(|&c| adjacent(v, c)).filter(|c| !cities.contains(c)).collect();
    near.sort();
    near.dedup();
    let near: Vec<String> = near
        .iter()
        .map(|&c| {
            let st = &v.cities[c as usize];
            match st.owner {
                Some(o) => format!("{} ({}, {})", city_name(v, c), player_words(v, o, input.names), st.units),
                None => format!("{} (empty)", city_name(v, c)),
            }
        })
        .collect();
    out.push(format!("(Your cities, with their units: {}.)", yours.join(", ")));
    if !near.is_empty() {
        out.push(format!("(Next to them: {}.)", near.join(", ")));
    }
    out
}

/// A reply's program read into the composer's `program` command; `None`
/// when no program is asked or the reply is not one (the generic list is
/// read instead: "play my turn by hand", the bot's program).
pub fn read_orders(lines: &[OrderLine], input: &FormsInput<'_, View>) -> Option<Result<Value, OrderError>> {
    let (v, seat) = (input.view, input.seat);
    if !lines.iter().any(|l| !help_line(l) && key_of(l).is_some()) {
        return None;
    }
    if !composes(v, seat) {
        return None;
    }
    Some(read_program(lines, input))
}

/// Whether a line is the form's help, in parentheses (its end may have
/// been cut: a reply's lines are read up to a length).
fn help_line(line: &OrderLine) -> bool {
    line.text.starts_with('(')
}

/// A line's step and what follows its colon.
fn key_of(line: &OrderLine) -> Option<(Key, &str)> {
    let (head, rest) = line.text.split_once(':')?;
    Some((Key::of(&plain_words(head))?, rest))
}

/// What the line says, and its fallback's words if it gives one.
fn with_fallback(rest: &str) -> (String, Option<String>) {
    let mut said = Vec::new();
    let mut fallback = None;
    for clause in rest.split(';') {
        let w = plain_words(clause);
        match w.strip_prefix("if impossible") {
            Some(f) => fallback = Some(f.trim().to_owned()),
            None => said.push(clause.trim()),
        }
    }
    (said.join("; "), fallback)
}

fn read_program(lines: &[OrderLine], input: &FormsInput<'_, View>) -> Result<Value, OrderError> {
    let (v, seat) = (input.view, input.seat);
    let steps = composer::suggested(input);
    let has_god = steps.iter().any(|s| s["type"] == "use_god" || s["type"] == "skip_god");
    let mut posted: Vec<(String, String)> =
        composer::hidden_fields(input).into_iter().map(|(k, x)| (k.to_owned(), x)).collect();
    let mut seen: Vec<(Key, usize)> = Vec::new();
    let mut moves = 0;
    for line in lines.iter().filter(|l| !help_line(l)) {
        let Some((key, rest)) = key_of(line) else {
            return Err(OrderError::at(line, format!("this is not a line of the program: {LINES}")));
        };
        if key != Key::Move {
            if let Some((_, n)) = seen.iter().find(|(k, _)| *k == key) {
                return Err(OrderError::at(line, format!("this step is given twice, here and on line {n}: keep one")));
            }
            seen.push((key, line.number));
        }
        let (said, fallback) = match key {
            // This line is the movement's fallback alone.
            Key::Movement => (String::new(), Some(plain_words(rest)).filter(|f| !f.is_empty())),
            _ => with_fallback(rest),
        };
        if let Some((field, default)) = key.fallback() {
            let f = match &fallback {
                Some(words) => fallback_kind(key, words).map_err(|m| OrderError::at(line, m))?,
                None => default,
            };
            posted.push((field.to_owned(), f.to_owned()));
        } else if fallback.is_some() {
            return Err(OrderError::at(
                line,
                "a move has no fallback of its own: the movement's is given on the line \"movement if impossible:\"",
            ));
        }
        let read = match key {
            Key::God if !has_god => {
                Err("your god's power cannot be used this turn: leave the \"god:\" line out".into())
            }
            Key::God => god(&said, v).map(|g| posted.push(("god".into(), g))),
            Key::Production => production(&said, free_points(v, seat)).map(|free| {
                for (k, t) in TRACKS.iter().enumerate() {
                    posted.push((format!("free.{t}"), free[k].to_string()));
                }
            }),
            Key::Cards => cards(&said, v, &steps, &mut posted),
            Key::Place => place(&said, v, seat).map(|c| posted.push(("place.city".into(), c.to_string()))),
            Key::Move if moves == MOVES => {
                Err(format!("a turn has at most {MOVES} moves: join or leave out the others"))
            }
            Key::Move => {
                moves += 1;
                one_move(&said, v, seat, moves - 1, &mut posted)
            }
            Key::Movement => Ok(()),
            Key::Invasion => invasion(&said).map(|i| posted.push(("invasion".into(), i.into()))),
        };
        read.map_err(|m| OrderError::at(line, m))?;
    }
    if has_god && !seen.iter().any(|(k, _)| *k == Key::God) {
        posted.push(("god".into(), "skip".into()));
    }
    if !seen.iter().any(|(k, _)| *k == Key::Production) {
        return Err(OrderError::whole(format!(
            "the program has no \"production:\" line: spend your {} free points, for example \"production: {} \
             units, 0 buildings, 0 knowledge\"",
            free_points(v, seat),
            free_points(v, seat)
        )));
    }
    if !seen.iter().any(|(k, _)| *k == Key::Movement) {
        posted.push(("move.fallback".into(), "try".into()));
    }
    let placed = posted.iter().any(|(k, _)| k == "place.city");
    composer::command(&Posted(posted), v).map_err(|m| {
        if placed {
            OrderError::whole(m)
        } else {
            OrderError::whole(format!(
                "{m}: the program has no \"new units:\" line; name a city of yours, for example \"new units: {}\"",
                mine(v, seat).first().map_or_else(String::new, |&c| city_name(v, c))
            ))
        }
    })
}

/// A fallback's words read into the composer's choice.
fn fallback_kind(key: Key, words: &str) -> Result<&'static str, String> {
    let alt = key.alternative();
    Ok(match words {
        "skip" | "skip it" | "leave it out" => "skip",
        w if w == "ask" || w.starts_with("ask ") => "ask",
        w if w == "bot" || w.starts_with("the bot") || w.starts_with("let the bot") => "bot",
        w if alt.is_some() && (w == "try" || Some(w) == alt || (w.starts_with("stay") && alt == Some("stay"))) => "try",
        other => {
            let also = alt.map_or_else(String::new, |a| format!(", {a}"));
            return Err(format!("\"{other}\" is not a fallback: if impossible: skip, ask, bot{also}"));
        }
    })
}

/// A city named in a reply: its name in any case, or the start of it when
/// no other city's name starts so; `among` (when given) the cities it must
/// be one of, and `what` they are in words.
fn city_named(v: &View, words: &str, among: Option<(&[u8], &str)>) -> Result<u8, String> {
    let want = plain_words(words);
    if want.is_empty() {
        return Err("name the city".into());
    }
    let all: Vec<u8> = (0..v.cities.len() as u8).collect();
    let names: Vec<(u8, String)> = all.iter().map(|&c| (c, plain_words(&city_name(v, c)))).collect();
    let exact: Vec<u8> = names.iter().filter(|(_, n)| *n == want).map(|(c, _)| *c).collect();
    let found = match exact.as_slice() {
        [c] => *c,
        [] => {
            let starts: Vec<u8> = names.iter().filter(|(_, n)| n.starts_with(&want)).map(|(c, _)| *c).collect();
            let starts: Vec<u8> = match among {
                // A start that fits one city of the kind asked is that city.
                Some((among, _)) if starts.iter().filter(|c| among.contains(c)).count() == 1 => {
                    starts.into_iter().filter(|c| among.contains(c)).collect()
                }
                _ => starts,
            };
            match starts.as_slice() {
                [c] => *c,
                [] => return Err(format!("there is no city \"{}\" on this map", words.trim())),
                more => {
                    let said: Vec<String> = more.iter().take(4).map(|&c| city_name(v, c)).collect();
                    return Err(format!("\"{}\" could be {}: write more of the name", words.trim(), said.join(" or ")));
                }
            }
        }
        _ => return Err(format!("two cities are named \"{}\": the mail cannot tell them apart", words.trim())),
    };
    if let Some((among, what)) = among {
        if !among.contains(&found) {
            return Err(format!("{} is not {what}", city_name(v, found)));
        }
    }
    Ok(found)
}

fn god(said: &str, v: &View) -> Result<String, String> {
    let w = plain_words(said);
    match w.as_str() {
        "skip" | "no" | "none" | "no power" | "do not use it" => Ok("skip".into()),
        "use" | "use it" => Ok("use".into()),
        _ => {
            let on =
                w.strip_prefix("use on ").or_else(|| w.strip_prefix("use it on ")).or_else(|| w.strip_prefix("on "));
            match on {
                Some(c) => Ok(format!("on-{}", city_named(v, c, None)?)),
                None => Err(format!(
                    "\"{}\" is not a use of the power: write skip, use, or use on a city (\"god: use on {}\")",
                    said.trim(),
                    city_name(v, 0)
                )),
            }
        }
    }
}

fn production(said: &str, free: u8) -> Result<[u8; 3], String> {
    let example = format!("for example \"production: {free} units, 0 buildings, 0 knowledge\"");
    let words = plain_words(said);
    let tokens: Vec<&str> = words.split(' ').filter(|t| !t.is_empty()).collect();
    let mut out = [0u8; 3];
    let mut given = [false; 3];
    let mut i = 0;
    while i < tokens.len() {
        let n: u8 = tokens[i].parse().map_err(|_| {
            format!("\"{}\" is not a number of points: each track comes after its number; {example}", tokens[i])
        })?;
        let Some(track) = tokens.get(i + 1) else {
            return Err(format!("{n} points on which track? {example}"));
        };
        let k = TRACKS
            .iter()
            .position(|t| track.trim_end_matches('s') == *t)
            .ok_or_else(|| format!("\"{track}\" is not a track: the tracks are units, buildings and knowledge"))?;
        if std::mem::replace(&mut given[k], true) {
            return Err(format!("the {} track is named twice; name each once", TRACKS[k]));
        }
        out[k] = n;
        i += 2;
    }
    let spent: u32 = out.iter().map(|&x| x as u32).sum();
    if spent != free as u32 {
        return Err(format!("spend exactly your {free} free points, not {spent}; {example}"));
    }
    Ok(out)
}

/// The cards line: for each kind, the first and second choice.
fn cards(said: &str, v: &View, steps: &[&Value], posted: &mut Vec<(String, String)>) -> Result<(), String> {
    let example = "for example \"cards: knowledge Mining, then Runes; building farm, then barrack\"";
    let mut done: Vec<&str> = Vec::new();
    for clause in said.split(';').map(str::trim).filter(|c| !c.is_empty()) {
        let (head, list) = clause.split_once(char::is_whitespace).unwrap_or((clause, ""));
        let kind = match plain_words(head).as_str() {
            "knowledge" => "knowledge",
            "building" | "buildings" | "buildingtile" => "building",
            _ => return Err(format!("\"{head}\" is not a kind of card: name knowledge or building first; {example}")),
        };
        if done.contains(&kind) {
            return Err(format!("the {kind} cards are named twice; name each kind once"));
        }
        done.push(kind);
        let (cards, names) = face_up(v, kind);
        if cards.is_empty() {
            return Err(format!("no {kind} card is face up: leave them out"));
        }
        let defaults = chosen_cards(steps, kind, cards);
        let items: Vec<String> = list
            .split(',')
            .map(|x| {
                let w = plain_words(x);
                w.strip_prefix("then ").map(str::to_owned).unwrap_or(w)
            })
            .filter(|x| !x.is_empty() && x != "then")
            .collect();
        if items.len() > 2 {
            return Err(format!("name at most two {kind} cards: your first choice, then your second"));
        }
        let mut picked: Vec<u8> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let named = |pick: &dyn Fn(&str) -> bool| -> Vec<(u8, String)> {
                cards.iter().zip(names).filter(|(_, n)| pick(&plain_words(n))).map(|(&c, n)| (c, n.clone())).collect()
            };
            let mut fits = named(&|n| n == item);
            if fits.is_empty() {
                fits = named(&|n| n.starts_with(item.as_str()));
            }
            let mut distinct: Vec<&str> = fits.iter().map(|(_, n)| n.as_str()).collect();
            distinct.sort();
            distinct.dedup();
            match distinct.as_slice() {
                [] => return Err(format!("\"{item}\" is not a face-up {kind} card: they are {}", names.join(", "))),
                [_] => {}
                more => return Err(format!("\"{item}\" could be {}: write more of the name", more.join(" or "))),
            }
            let fits: Vec<u8> = fits.into_iter().map(|(c, _)| c).collect();
            // Cards of one name are alike: the one the form offered there
            // first, else the next not yet chosen.
            let card = defaults
                .get(i)
                .copied()
                .filter(|d| fits.contains(d) && !picked.contains(d))
                .or_else(|| fits.iter().copied().find(|c| !picked.contains(c)))
                .unwrap_or(fits[0]);
            picked.push(card);
            posted.push((format!("take.{kind}.{i}"), card.to_string()));
        }
    }
    Ok(())
}

fn place(said: &str, v: &View, seat: Seat) -> Result<u8, String> {
    let cities = mine(v, seat);
    city_named(v, said, Some((&cities, "a city of yours: new units go to one of your cities")))
}

/// One move line: "3 from Asgard to Bifrost, retreat at 1, move in".
fn one_move(said: &str, v: &View, seat: Seat, i: usize, posted: &mut Vec<(String, String)>) -> Result<(), String> {
    let example = "write for example \"move: 3 from Asgard to Bifrost, retreat at 1, move in\"";
    let mut clauses = said.split(',');
    let main = plain_words(clauses.next().unwrap_or(""));
    let (count, rest) =
        main.split_once(' ').ok_or_else(|| format!("a move gives its units, from and to; {example}"))?;
    let units: u8 = count.parse().map_err(|_| format!("\"{count}\" is not a number of units; {example}"))?;
    if units == 0 || units > MAX_UNITS {
        return Err(format!("move from 1 to {MAX_UNITS} units, not {units}"));
    }
    let rest = rest.strip_prefix("units ").or_else(|| rest.strip_prefix("unit ")).unwrap_or(rest);
    let (from, to) = rest
        .strip_prefix("from ")
        .and_then(|r| r.split_once(" to "))
        .ok_or_else(|| format!("a move says from which city to which; {example}"))?;
    let cities = mine(v, seat);
    let from = city_named(v, from, Some((&cities, "a city of yours: a move starts from one of your cities")))?;
    let next = adjacent(v, from);
    let to = city_named(v, to, Some((&next, "next to the city it moves from")))
        .map_err(|m| format!("{m} ({} is next to {})", city_name(v, from), words_of(v, &next)))?;
    let mut retreat = 1u8;
    let mut occupy = true;
    for clause in clauses {
        let w = plain_words(clause);
        match w.as_str() {
            "move in" | "occupy" => occupy = true,
            "stay out" | "do not move in" => occupy = false,
            "never retreat" | "no retreat" => retreat = 0,
            _ => match w.strip_prefix("retreat at ").map(|n| n.trim_end_matches(" units").trim_end_matches(" unit")) {
                Some(n) => {
                    retreat = n.parse().ok().filter(|&r| r <= MAX_UNITS).ok_or_else(|| {
                        format!("retreat at a number of units from 0 (never) to {MAX_UNITS}, not \"{n}\"")
                    })?;
                }
                None => {
                    return Err(format!(
                        "\"{}\" is not an attack order: retreat at N (0: never), move in, or stay out",
                        clause.trim()
                    ))
                }
            },
        }
    }
    let name = |k: &str| format!("move.{i}.{k}");
    posted.push((name("from"), from.to_string()));
    posted.push((name("to"), to.to_string()));
    posted.push((name("units"), units.to_string()));
    posted.push((name("retreat"), retreat.to_string()));
    if occupy {
        posted.push((name("occupy"), "on".into()));
    }
    Ok(())
}

fn words_of(v: &View, cities: &[u8]) -> String {
    let names: Vec<String> = cities.iter().map(|&c| city_name(v, c)).collect();
    match names.as_slice() {
        [] => "no city".into(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn invasion(said: &str) -> Result<&'static str, String> {
    match plain_words(said).as_str() {
        "pass" | "do not invade" | "no" => Ok("pass"),
        w if w == "ask" || w.starts_with("ask ") => Ok("ask"),
        w if w == "bot" || w.starts_with("the bot") || w.starts_with("let the bot") => Ok("bot"),
        _ => Err(format!("\"{}\" is not a choice at the invasion: pass, ask or bot", said.trim())),
    }
}
