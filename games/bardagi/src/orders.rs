//! Orders by mail in Bardagi's words: a plan is written as the cards it
//! takes, "plan: 2 berserkur 2 godi 2 kaupmadur" (the kinds in any order,
//! "goði" or "godi", a kind left out is none of it). Where the plan form
//! takes a program of the coming turn, the plan line may be followed by
//! its steps, one a line, in the words the form lists them by:
//!
//! ```text
//! plan: 2 berserkur 2 godi 2 kaupmadur
//! step: Berserkur moves to Forest 7; if refused: skip
//! step: Godi converts the Barbarian area he stands on; if refused: ask
//! ```
//!
//! read into the fields the plan form posts and put together by it
//! ([`crate::forms::plan_command`]). Every other decision is answered from
//! the generic list of legal commands the mail prints.

use runestone_engine::present::orders::plain_words;
use runestone_engine::present::{FormsInput, OrderError, OrderLine, Posted};
use runestone_engine::Seat;
use serde_json::Value;

use crate::state::{Card, Command, Hand, Phase};
use crate::view::View;

/// Whether `seat` chooses its cards now (the planning phase, or its first
/// turn with easy cards).
fn plans_now(view: &View, seat: Seat) -> bool {
    let planned = view.players.get(seat as usize).is_some_and(|p| p.planned);
    match view.phase {
        Phase::Planning => true,
        Phase::Action => view.options.easy_cards && !planned && view.current == Some(seat),
        _ => false,
    }
}

/// How many cards a plan takes this round, in words.
fn size_words(view: &View) -> String {
    if view.options.eight_cards && view.hand_size == 8 {
        "6 to 8 cards".to_owned()
    } else {
        format!("{} cards", view.hand_size)
    }
}

/// The lines a mail prints for a plan.
pub fn order_form(view: &View, seat: Seat) -> Vec<String> {
    if !plans_now(view, seat) {
        return Vec::new();
    }
    vec![
        format!("Your plan, {} (a later plan replaces it until the reveal), for example:", size_words(view)),
        "  plan: 2 berserkur 2 godi 2 kaupmadur".to_owned(),
        "(the kinds: berserkur, godi, kaupmadur, knerrir; at most 6 of each)".to_owned(),
    ]
}

/// Whether the plan takes a program of the coming turn (a secret plan
/// made before the turn, not in the easier variant).
fn programs_now(view: &View, seat: Seat) -> bool {
    view.phase == Phase::Planning && !view.options.easy_cards && view.players.get(seat as usize).is_some()
}

/// The most steps of the bot's program a mail prints.
const SHOWN_STEPS: usize = 12;

/// The lines a mail prints for a plan and, where it takes one, the
/// program of the coming turn: the bot's, as it would play now.
pub fn order_form_with_program(input: &FormsInput<'_, View>) -> Vec<String> {
    let (view, seat) = (input.view, input.seat);
    let mut out = order_form(view, seat);
    if out.is_empty() || !programs_now(view, seat) {
        return out;
    }
    let mine = &view.players[seat as usize];
    let choices = crate::forms::program_choices(input.legal, view, mine);
    let words = |c: &Value| choices.iter().find(|(x, _)| x == c).map(|(_, w)| w.clone());
    let bot = crate::forms::bot_program(input.legal);
    // The bot's cards go with its turn.
    if let Some(hand) = input.legal.iter().find(|c| c["type"] == "Program").map(|c| &c["hand"]) {
        let cards: Vec<String> = Card::ALL
            .iter()
            .filter_map(|c| {
                let k = plain_words(c.name());
                let n = hand[&k].as_u64().filter(|n| *n > 0)?;
                Some(format!("{n} {k}"))
            })
            .collect();
        if let Some(example) = out.iter_mut().find(|l| l.starts_with("  plan:")) {
            *example = format!("  plan: {}", cards.join(" "));
        }
    }
    let steps: Vec<String> = bot
        .iter()
        .take(SHOWN_STEPS)
        .filter_map(|s| {
            let fallback = match s["fallback"]["type"].as_str() {
                Some("Skip") => "skip".to_owned(),
                Some("EndTurn") => "end the turn".to_owned(),
                Some("Bot") => "bot".to_owned(),
                Some("Try") => format!("try {}", words(&s["fallback"]["step"])?),
                _ => "ask".to_owned(),
            };
            Some(format!("  step: {}; if refused: {fallback}", words(&s["step"])?))
        })
        .collect();
    out.push(
        "Your turn may follow the plan as a program, one step a line, played the moment your turn comes; above, \
         the bot's cards, and here its turn (without steps, your turn is asked when it comes):"
            .to_owned(),
    );
    out.extend(steps);
    let listed: Vec<&str> = choices.iter().map(|(_, w)| w.as_str()).collect();
    out.push(format!("(the steps: {})", listed.join("; ")));
    out.push(
        "(if refused: ask (stop and ask me), skip (go on), end the turn, bot (the bot plays the rest), or try and \
         another step's words)"
            .to_owned(),
    );
    out
}

/// A plan line, and where the plan takes one its program's step lines,
/// read into a command; `None` when the reply is not a plan.
pub fn read_orders_with_program(
    lines: &[OrderLine],
    input: &FormsInput<'_, View>,
) -> Option<Result<Value, OrderError>> {
    let (view, seat) = (input.view, input.seat);
    let steps: Vec<&OrderLine> = lines.iter().skip(1).filter(|l| !l.text.starts_with('(')).collect();
    if steps.is_empty() || !programs_now(view, seat) {
        return read_orders(lines, view, seat);
    }
    let plan = match read_orders(&lines[..1], view, seat)? {
        Ok(plan) => plan,
        Err(e) => return Some(Err(e)),
    };
    Some(read_program(&plan, &steps, input))
}

/// The program's step lines after the plan, put together by the plan form.
fn read_program(plan: &Value, lines: &[&OrderLine], input: &FormsInput<'_, View>) -> Result<Value, OrderError> {
    let (view, seat) = (input.view, input.seat);
    let choices = crate::forms::program_choices(input.legal, view, &view.players[seat as usize]);
    let mut posted: Vec<(String, String)> = Vec::new();
    for card in Card::ALL {
        let k = plain_words(card.name());
        posted.push((format!("hand.{k}"), plan["hand"][&k].as_u64().unwrap_or(0).to_string()));
    }
    if lines.len() > crate::program::MAX_STEPS {
        return Err(OrderError::at(
            lines[crate::program::MAX_STEPS],
            format!("a program has at most {} steps", crate::program::MAX_STEPS),
        ));
    }
    for (i, line) in lines.iter().enumerate() {
        let at = |m: String| OrderError::at(line, m);
        let Some((head, rest)) = line.text.split_once(':') else {
            return Err(at("after the plan, each line is a step of your turn: \"step: \" and its words".into()));
        };
        if plain_words(head) != "step" && !plain_words(head).starts_with("step ") {
            return Err(at("after the plan, each line is a step of your turn: \"step: \" and its words".into()));
        }
        let (said, fallback) = match rest.rsplit_once(';') {
            Some((said, f)) if plain_words(f).starts_with("if refused") => (said, Some(f)),
            _ => (rest, None),
        };
        posted.push((format!("program.step.{i}"), step_named(said, &choices).map_err(at)?));
        let f = match fallback.map(|f| plain_words(f).trim_start_matches("if refused").trim().to_owned()) {
            None => "ask".to_owned(),
            Some(w) => match w.as_str() {
                "ask" | "ask me" => "ask".to_owned(),
                "skip" | "skip it" => "skip".to_owned(),
                "end" | "end the turn" => "end".to_owned(),
                "bot" | "the bot" | "the bot plays the rest" => "bot".to_owned(),
                other => match other.strip_prefix("try ") {
                    Some(alt) => step_named(alt, &choices).map_err(at)?,
                    None => {
                        return Err(at(format!(
                            "\"{other}\" is not what to do if the step is refused: ask, skip, end the turn, bot, or \
                             try and a step's words"
                        )))
                    }
                },
            },
        };
        posted.push((format!("program.fallback.{i}"), f));
    }
    crate::forms::plan_command(&Posted(posted)).map_err(OrderError::whole)
}

/// A step of the plan form's program by its words (case, accents and
/// punctuation aside), or the start of them when only one step starts so;
/// its JSON as the form posts it.
fn step_named(said: &str, choices: &[(Value, String)]) -> Result<String, String> {
    let want = plain_words(said);
    let exact: Vec<&(Value, String)> = choices.iter().filter(|(_, w)| plain_words(w) == want).collect();
    let found = if exact.is_empty() {
        choices.iter().filter(|(_, w)| !want.is_empty() && plain_words(w).starts_with(&want)).collect()
    } else {
        exact
    };
    match found.as_slice() {
        [(c, _), ..] if found.iter().all(|(x, _)| x == c) || found.len() == 1 => Ok(c.to_string()),
        [] => {
            let some: Vec<&str> = choices.iter().take(3).map(|(_, w)| w.as_str()).collect();
            Err(format!(
                "\"{}\" is not a step your turn can take now: write one of those the mail lists, such as {}",
                said.trim(),
                some.join("; ")
            ))
        }
        more => {
            let some: Vec<&str> = more.iter().take(3).map(|(_, w)| w.as_str()).collect();
            Err(format!("\"{}\" could be {}: write the whole step", said.trim(), some.join(" or ")))
        }
    }
}

/// A plan line read into a command; `None` when the reply is not a plan.
pub fn read_orders(lines: &[OrderLine], view: &View, seat: Seat) -> Option<Result<Value, OrderError>> {
    let first = lines.first()?;
    let words = plain_words(&first.text);
    let rest = words.strip_prefix("plan")?;
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    if !plans_now(view, seat) {
        return Some(Err(OrderError::at(
            first,
            "no plan is asked of you now: answer with one of the orders the mail lists",
        )));
    }
    if let Some(extra) = lines.get(1) {
        return Some(Err(OrderError::at(
            extra,
            "a plan is one line here (no program of the turn goes with it now): write nothing more before END",
        )));
    }
    Some(read_plan(first, rest.trim(), view))
}

fn read_plan(line: &OrderLine, text: &str, view: &View) -> Result<Value, OrderError> {
    let example = "write for example \"plan: 2 berserkur 2 godi 2 kaupmadur\"";
    let mut hand = Hand::default();
    let mut seen = [false; 4];
    let mut tokens = text.split_whitespace().peekable();
    if tokens.peek().is_none() {
        return Err(OrderError::at(
            line,
            format!("the plan names no cards: {} are asked; {example}", size_words(view)),
        ));
    }
    while let Some(count) = tokens.next() {
        let n: u8 = count.parse().map_err(|_| {
            OrderError::at(
                line,
                format!("\"{count}\" is not a number of cards: each kind comes after its number; {example}"),
            )
        })?;
        let Some(kind) = tokens.next() else {
            return Err(OrderError::at(line, format!("{n} of which kind? {example}")));
        };
        let card = card_named(kind).ok_or_else(|| {
            OrderError::at(
                line,
                format!("\"{kind}\" is not a kind of card: the kinds are berserkur, godi, kaupmadur and knerrir"),
            )
        })?;
        if std::mem::replace(&mut seen[card.idx()], true) {
            return Err(OrderError::at(line, format!("{} is named twice; name each kind once", card.name())));
        }
        hand.add(card, i32::from(n));
    }
    Ok(serde_json::to_value(Command::Plan { hand }).expect("JSON"))
}

/// A kind of card by its name, singular or plural, or the start of it
/// ("bers", "kaup").
fn card_named(word: &str) -> Option<Card> {
    let w = word.trim_end_matches('s');
    if w.len() < 2 {
        return None;
    }
    Card::ALL.into_iter().find(|c| {
        let name = plain_words(c.name());
        name.starts_with(w) || (w.starts_with(&name) && w.len() <= name.len() + 2)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> OrderLine {
        OrderLine { number: 1, text: text.into() }
    }

    #[test]
    fn a_plan_line_names_its_cards_in_any_order_and_case() {
        let view = sample_view();
        let hand = |text: &str| {
            read_plan(&line(text), text, &view).map(|v| {
                match serde_json::from_value::<Command>(v).expect("a command") {
                    Command::Plan { hand } => hand.arr(),
                    other => panic!("not a plan: {other:?}"),
                }
            })
        };
        assert_eq!(hand("2 berserkur 2 godi 2 kaupmadur"), Ok([2, 2, 2, 0]));
        assert_eq!(hand("1 knerrir 5 berserkurs"), Ok([5, 0, 0, 1]));
        assert_eq!(hand("3 kaup 3 go"), Ok([0, 3, 3, 0]));
        let e = hand("2 warriors").unwrap_err();
        assert!(e.message.contains("not a number") || e.message.contains("not a kind"), "{e:?}");
        let e = hand("two godi").unwrap_err();
        assert!(e.message.starts_with("\"two\" is not a number"), "{e:?}");
        let e = hand("2 godi 1 godi").unwrap_err();
        assert!(e.message.contains("named twice"), "{e:?}");
    }

    fn sample_state() -> crate::state::State {
        use runestone_engine::{Game, GameRng, Seed};
        let mut rng = GameRng::new(Seed([3; 32]), 0);
        let mut s = crate::state::State::default();
        for e in crate::Bardagi::setup(&Default::default(), 3, crate::Bardagi::info().rules_version, &mut rng).unwrap()
        {
            crate::Bardagi::apply(&mut s, &e.event);
        }
        s
    }

    fn sample_view() -> View {
        use runestone_engine::{Game, Viewer};
        serde_json::from_value(crate::Bardagi::view(&sample_state(), Viewer::Seat(0))).unwrap()
    }

    /// `f` of seat 0's input at the first plan, as the server gives it to the mail.
    fn with_input<T>(f: impl FnOnce(&FormsInput<'_, View>) -> T) -> T {
        use runestone_engine::{Game, Viewer};
        let s = sample_state();
        let v: View = serde_json::from_value(crate::Bardagi::view(&s, Viewer::Seat(0))).unwrap();
        let commands = crate::Bardagi::legal(&s, 0);
        let legal: Vec<Value> = commands.iter().map(|c| serde_json::to_value(c).unwrap()).collect();
        let labels: Vec<String> = commands.iter().map(|c| crate::Bardagi::label(&s, 0, c)).collect();
        let entered = std::collections::BTreeMap::new();
        let names = vec!["A".to_owned(), "B".to_owned(), "C".to_owned()];
        f(&FormsInput { seat: 0, view: &v, legal: &legal, labels: &labels, entered: &entered, names: &names })
    }

    fn reply(text: &[String]) -> Vec<OrderLine> {
        text.iter().enumerate().map(|(i, t)| OrderLine { number: i + 1, text: t.trim().to_owned() }).collect()
    }

    /// The plan and program lines of the mail's form, as a player copies them.
    fn copied(form: &[String]) -> Vec<String> {
        form.iter().filter(|l| l.starts_with("  plan:") || l.starts_with("  step:")).cloned().collect()
    }

    #[test]
    fn the_bots_program_a_mail_prints_reads_back_as_the_plan_forms_program() {
        with_input(|input| {
            let form = order_form_with_program(input);
            let lines = copied(&form);
            assert!(lines.len() > 2, "a plan and the bot's steps: {form:#?}");
            let got = read_orders_with_program(&reply(&lines), input).expect("a plan").expect("read");
            assert_eq!(got["type"], "Program");
            let suggested = input.legal.iter().find(|c| c["type"] == "Program").unwrap();
            assert_eq!(got["hand"], suggested["hand"]);
            let bot = crate::forms::bot_program(input.legal);
            assert_eq!(got["steps"].as_array().unwrap(), &bot[..lines.len() - 1], "{form:#?}");
            // The plan alone is a plan without a program.
            let plan = read_orders_with_program(&reply(&lines[..1]), input).unwrap().unwrap();
            assert_eq!(plan["type"], "Plan");
        });
    }

    #[test]
    fn a_step_the_turn_cannot_take_is_refused_naming_its_line() {
        with_input(|input| {
            let lines = copied(&order_form_with_program(input));
            let refused = |at: usize, text: &str| {
                let mut l = lines.clone();
                l[at] = text.to_owned();
                let e = read_orders_with_program(&reply(&l), input).unwrap().unwrap_err();
                assert_eq!(e.line.as_ref().map(|x| (x.number, x.text.as_str())), Some((at + 1, text)), "{e:?}");
                e.message
            };
            let m = refused(1, "step: Berserkur flies to the moon");
            assert!(m.contains("is not a step your turn can take now"), "{m}");
            let m = refused(1, "thanks!");
            assert!(m.contains("each line is a step of your turn"), "{m}");
            let step = lines[1].trim().split(';').next().unwrap().to_owned();
            let m = refused(1, &format!("{step}; if refused: cry"));
            assert!(m.contains("\"cry\" is not what to do if the step is refused"), "{m}");
            let m = refused(0, "plan: 2 berserkur 2 warriors");
            assert!(m.contains("\"warriors\" is not a kind of card"), "{m}");
        });
    }

    #[test]
    fn a_plan_is_read_only_while_plans_are_asked() {
        let v = sample_view();
        assert_eq!(v.phase, Phase::Planning);
        assert!(!order_form(&v, 0).is_empty());
        let got = read_orders(&[line("Plan: 2 Berserkur, 2 Goði, 2 Kaupmaður")], &v, 0).expect("a plan");
        assert_eq!(got.unwrap()["hand"]["godi"], 2);
        assert!(read_orders(&[line("1")], &v, 0).is_none(), "a number is the generic list's");
        let two = read_orders(&[line("plan: 6 godi"), OrderLine { number: 3, text: "thanks".into() }], &v, 0).unwrap();
        assert_eq!(two.unwrap_err().line.map(|l| l.number), Some(3));
    }
}
