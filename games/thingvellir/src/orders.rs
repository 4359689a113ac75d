//! Orders by mail in the words of Thingvellir: the season's program, one
//! line per step of the season page's composer, read into the fields the
//! composer posts and put together by it (the page and the mail cannot
//! disagree). The mail that asks prints, for each action one may come to
//! resolve, the step the bot would write from the board as it is now,
//! where the composer offers it:
//!
//! ```text
//! propose: Propose the Law of Land, statute 2
//! settle: Settle Hrafnagil (a red farm); if refused: ask
//! ride: no step
//! otherwise: ask
//! ```
//!
//! A step is written in the words the composer lists it by (their case,
//! accents and punctuation do not matter); the mail lists them under the
//! program, in parentheses (help lines, passed over when read).

use runestone_engine::present::orders::plain_words;
use runestone_engine::present::{Choice, FormsInput, OrderError, OrderLine, Posted};
use serde_json::Value;

use crate::data::Action;
use crate::forms::{propose_options, season_options, SEASON, SEASON_ACTIONS};
use crate::state::Command;
use crate::view::View;

/// The most choices a help line lists for one action (the rest are on the
/// game page, and are read all the same).
const LISTED: usize = 12;

const LINES: &str = "the season's lines are \"propose:\" (as Lawspeaker), \"settle:\", \"ride:\", \"raid:\", \
                     \"foster:\", \"feast:\" and \"otherwise:\", as the mail printed them";

const FALLBACKS: &str = "if refused: ask, bot, skip (leave it out) or pass (pass on the action)";

/// The lines of the program: the proposal, each action, and what to do otherwise.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Key {
    Propose,
    Action(&'static str, Action),
    Otherwise,
}

impl Key {
    fn of(words: &str) -> Option<Key> {
        match words {
            "propose" | "proposal" | "as lawspeaker" => Some(Key::Propose),
            "otherwise" => Some(Key::Otherwise),
            w => SEASON_ACTIONS.iter().find(|(k, _)| *k == w).map(|&(k, a)| Key::Action(k, a)),
        }
    }
}

/// Whether the seat gives its season now.
fn asked(v: &View, seat: u8) -> bool {
    v.asked.as_deref() == Some("Season") && v.players.get(seat as usize).is_some_and(|p| !p.out)
}

/// The composer's choices of each line the seat has.
fn choices(input: &FormsInput<'_, View>) -> Vec<(Key, Vec<Choice>)> {
    let (v, seat) = (input.view, input.seat);
    let Some(mine) = v.players.get(seat as usize) else { return Vec::new() };
    let mut out = Vec::new();
    if v.lawspeaker == seat {
        out.push((Key::Propose, propose_options(v)));
    }
    for (key, action) in SEASON_ACTIONS {
        let options = season_options(v, mine, seat, input.names, action);
        if !options.is_empty() {
            out.push((Key::Action(key, action), options));
        }
    }
    out
}

/// The bot's program (the first of the season's legal commands), as the
/// composer's values: the first step of each kind the composer offers.
fn suggested(input: &FormsInput<'_, View>, key: Key, options: &[Choice]) -> Option<String> {
    let program = input.legal.first().and_then(|c| serde_json::from_value::<Command>(c.clone()).ok())?;
    let Command::Season { program } = program else { return None };
    program
        .steps
        .iter()
        .filter(|s| match key {
            Key::Propose => matches!(s.step, Command::Propose { .. }),
            Key::Action(_, a) => crate::program::action_of(&s.step) == Some(a),
            Key::Otherwise => false,
        })
        .map(|s| serde_json::to_string(&s.step).expect("a command serialises"))
        .find(|json| options.iter().any(|o| o.value == *json))
}

/// The lines a mail prints for the season's program.
pub fn order_form(input: &FormsInput<'_, View>) -> Vec<String> {
    let v = input.view;
    if !asked(v, input.seat) {
        return Vec::new();
    }
    let all = choices(input);
    let mut out = vec![format!(
        "(Your season of round {} as a program: change what you like and reply with these lines, down to END; a \
         later reply replaces it until it begins. The bot's choices are filled in where the page offers them.)",
        v.round
    )];
    let mut help = Vec::new();
    for (key, options) in &all {
        let (name, words) = match key {
            Key::Propose => ("propose", "as Lawspeaker, one of"),
            Key::Action(k, _) => (*k, "one of"),
            Key::Otherwise => continue,
        };
        let step = suggested(input, *key, options)
            .and_then(|j| options.iter().find(|o| o.value == j))
            .map_or_else(|| "no step".to_owned(), |o| o.label.clone());
        out.push(match key {
            Key::Propose => format!("{name}: {step}"),
            _ => format!("{name}: {step}; if refused: ask"),
        });
        let listed: Vec<&str> = options.iter().take(LISTED).map(|o| o.label.as_str()).collect();
        let more = options.len().saturating_sub(LISTED);
        help.push(format!(
            "({name}, {words}: {}{}; or no step.)",
            listed.join("; "),
            if more > 0 { format!("; and {more} more on the game page") } else { String::new() }
        ));
    }
    out.push("otherwise: ask".into());
    out.extend(help);
    out.push(format!("(After a step: {FALLBACKS}. otherwise, for a decision no step is for: ask, bot or pass.)"));
    out
}

/// Whether a line is the form's help, in parentheses (its end may have
/// been cut: a reply's lines are read up to a length).
fn help_line(line: &OrderLine) -> bool {
    line.text.starts_with('(')
}

fn key_of(line: &OrderLine) -> Option<(Key, &str)> {
    let (head, rest) = line.text.split_once(':')?;
    Some((Key::of(&plain_words(head))?, rest))
}

/// A reply's season read into the composer's program; `None` when no
/// season is asked or the reply is not one (the generic list is read
/// instead: the bot's program, or playing the season by hand).
pub fn read_orders(lines: &[OrderLine], input: &FormsInput<'_, View>) -> Option<Result<Value, OrderError>> {
    if !asked(input.view, input.seat) || !lines.iter().any(|l| !help_line(l) && key_of(l).is_some()) {
        return None;
    }
    Some(read_season(lines, input))
}

fn read_season(lines: &[OrderLine], input: &FormsInput<'_, View>) -> Result<Value, OrderError> {
    let all = choices(input);
    let mut posted: Vec<(String, String)> = Vec::new();
    let mut seen: Vec<(Key, usize)> = Vec::new();
    for line in lines.iter().filter(|l| !help_line(l)) {
        let Some((key, rest)) = key_of(line) else {
            return Err(OrderError::at(line, format!("this is not a line of the season: {LINES}")));
        };
        if let Some((_, n)) = seen.iter().find(|(k, _)| *k == key) {
            return Err(OrderError::at(line, format!("this line is given twice, here and on line {n}: keep one")));
        }
        seen.push((key, line.number));
        let (said, fallback) = match rest.rsplit_once(';') {
            Some((said, f)) if plain_words(f).starts_with("if refused") => (said, Some(f)),
            _ => (rest, None),
        };
        let at = |m: String| OrderError::at(line, m);
        match key {
            Key::Otherwise => {
                let o = match plain_words(said).as_str() {
                    "ask" | "ask me" => "ask",
                    "bot" | "the bot" | "let the bot decide" => "bot",
                    "pass" => "pass",
                    other => return Err(at(format!("\"{other}\" is not what to do otherwise: ask, bot or pass"))),
                };
                posted.push(("otherwise".into(), o.into()));
            }
            Key::Propose | Key::Action(..) => {
                let name = match key {
                    Key::Action(k, _) => k,
                    _ => "propose",
                };
                let Some((_, options)) = all.iter().find(|(k, _)| *k == key) else {
                    return Err(at(match key {
                        Key::Propose => "only the Lawspeaker proposes: leave this line out".to_owned(),
                        _ => format!("there is nothing you could {name} this season: leave this line out"),
                    }));
                };
                if let Some(step) = step_of(said, options).map_err(&at)? {
                    posted.push((format!("step.{name}"), step));
                }
                if let Some(f) = fallback {
                    if key == Key::Propose {
                        return Err(at("the proposal has no fallback: a refused proposal is asked of you".into()));
                    }
                    let words = plain_words(f);
                    let f = match words.trim_start_matches("if refused").trim() {
                        "ask" | "ask me" => "ask",
                        "bot" | "the bot" | "let the bot decide" => "bot",
                        "skip" | "leave it out" => "skip",
                        "pass" | "pass on the action" => "pass",
                        other => return Err(at(format!("\"{other}\" is not a fallback: {FALLBACKS}"))),
                    };
                    posted.push((format!("fallback.{name}"), f.into()));
                }
            }
        }
    }
    crate::forms::command_of_form(SEASON, &Posted(posted), input.view)
        .expect("the season's form is the game's")
        .map_err(OrderError::whole)
}

/// The step a line names among the composer's `options`: their words, or
/// "no step".
fn step_of(said: &str, options: &[Choice]) -> Result<Option<String>, String> {
    let want = plain_words(said);
    if matches!(want.as_str(), "no step" | "none" | "" | "ask me") {
        return Ok(None);
    }
    let exact: Vec<&Choice> = options.iter().filter(|o| plain_words(&o.label) == want).collect();
    let found: Vec<&Choice> = if exact.is_empty() {
        options.iter().filter(|o| plain_words(&o.label).starts_with(&want)).collect()
    } else {
        exact
    };
    match found.as_slice() {
        [one] => Ok(Some(one.value.clone())),
        [] => {
            let some: Vec<&str> = options.iter().take(3).map(|o| o.label.as_str()).collect();
            Err(format!(
                "\"{}\" is not one of the steps the season offers here, such as: {}; or no step",
                said.trim(),
                some.join("; ")
            ))
        }
        more => {
            let some: Vec<&str> = more.iter().take(3).map(|o| o.label.as_str()).collect();
            Err(format!("\"{}\" could be {}: write the whole step", said.trim(), some.join(" or ")))
        }
    }
}
