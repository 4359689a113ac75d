//! Orders by mail in Bardagi's words: a plan is written as the cards it
//! takes, "plan: 2 berserkur 2 godi 2 kaupmadur" (the kinds in any order,
//! "goði" or "godi", a kind left out is none of it). Every other decision
//! is answered from the generic list of legal commands the mail prints.

use runestone_engine::present::orders::plain_words;
use runestone_engine::present::{OrderError, OrderLine};
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
            "a plan is one line; the program of your turn is given on the game page",
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

    fn sample_view() -> View {
        use runestone_engine::{Game, GameRng, Seed, Viewer};
        let mut rng = GameRng::new(Seed([3; 32]), 0);
        let mut s = crate::state::State::default();
        for e in crate::Bardagi::setup(&Default::default(), 3, crate::Bardagi::info().rules_version, &mut rng).unwrap()
        {
            crate::Bardagi::apply(&mut s, &e.event);
        }
        serde_json::from_value(crate::Bardagi::view(&s, Viewer::Seat(0))).unwrap()
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
