//! Turn programs: given with the secret plan, run the moment the turn comes,
//! each step judged as the same command by hand, a refused step taking its
//! fallback, never seen by another clan before it runs.

use crate::program::{Fallback, ProgramStep};
use crate::state::{Card, Command, Event, Hand, Phase, Unit};
use crate::{bot, Bardagi, Options};
use runestone_engine::game::{Game, Seat, Viewer};

use super::Driver;

fn hand() -> Hand {
    Hand::new([2, 2, 2, 0])
}

/// A 3-clan game where every clan but `seat` has planned `hand()`.
fn others_planned(seat: Seat) -> Driver {
    let mut d = Driver::new(&Options::default(), 3, 11).unwrap();
    for s in 0..3 {
        if s != seat {
            d.act(s, &Command::Plan { hand: hand() }).unwrap();
        }
    }
    d
}

/// A card step `seat` could take at the start of its turn if it planned
/// `hand()` now (found on a copy of the game).
fn a_card_move(d: &Driver, seat: Seat) -> Command {
    let mut peek = Driver { state: d.state.clone(), log: Vec::new(), seed: d.seed.clone(), inputs: vec![0; 3] };
    peek.act(seat, &Command::Plan { hand: hand() }).unwrap();
    assert_eq!(peek.state.current, seat);
    bot::legal(&peek.state, seat)
        .into_iter()
        .find(|c| matches!(c, Command::Move { unit: Unit::Berserkur | Unit::Godi | Unit::Kaupmadur, .. }))
        .expect("a unit can move at the start of a turn")
}

/// The words the program told, in order.
fn told(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ProgramStep { step, text, .. } => Some(format!("{step}: {text}")),
            _ => None,
        })
        .collect()
}

fn step(step: Command, fallback: Fallback) -> ProgramStep {
    ProgramStep { step, fallback }
}

#[test]
fn a_programmed_step_that_became_illegal_takes_its_fallback() {
    // Given a game where the starting clan is the last to plan
    let d0 = Driver::new(&Options::default(), 3, 11).unwrap();
    let first = d0.state.starting;
    let mut d = others_planned(first);
    let mv = a_card_move(&d, first);
    let Command::Move { unit, .. } = mv else { unreachable!() };
    // When it plans with a program: the move; the same move again (no
    // longer possible once made), falling back to skipping it; a Knerrir
    // card step with no Knerrir card, falling back to exchanging two
    // Berserkur cards for a Knerrir card; a Godi conversion it may not make,
    // falling back to ending the turn
    let program = vec![
        step(mv.clone(), Fallback::Ask),
        step(mv.clone(), Fallback::Skip),
        step(
            Command::Board { unit },
            Fallback::Try {
                step: Box::new(Command::Exchange { discard: [Card::Godi, Card::Kaupmadur], take: Card::Knerrir }),
            },
        ),
    ];
    let ev = d.act(first, &Command::Program { hand: hand(), steps: program }).unwrap();
    // Then the turn ran at the reveal, step by step, and ended
    let words = told(&ev);
    assert_eq!(words.len(), 4, "{words:?}");
    assert!(words[0].starts_with("1: ") && words[0].ends_with(": done"), "{words:?}");
    assert!(words[1].starts_with("2: ") && words[1].contains(": skipped because "), "{words:?}");
    assert!(
        words[2].starts_with("3: ")
            && words[2].contains("fell back to exchange Godi and Kaupmadur for Knerrir because "),
        "{words:?}"
    );
    assert_eq!(words[3], "4: end the turn: done");
    let p = &d.state.players[first as usize];
    assert_eq!(p.played.total(), 1, "one card laid down");
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::CardsExchanged { seat, taken: Some(Card::Knerrir), .. } if *seat == first)),
        "the exchange was made"
    );
    assert_ne!(d.state.current, first, "the next clan's turn has begun");
    assert!(p.program.is_none());
    // And the log tells it in words
    let log: Vec<String> = ev.iter().map(|e| Bardagi::describe(&d.state, e, &[])).collect();
    assert!(log.iter().any(|l| l.contains("'s program, step 2:") && l.contains("skipped because")), "{log:?}");
}

#[test]
fn a_program_that_stops_asks_the_seat() {
    // Given the starting clan, last to plan, programs a step the rules
    // refuse when the turn comes, with "ask me" as the fallback
    let d0 = Driver::new(&Options::default(), 3, 11).unwrap();
    let first = d0.state.starting;
    let mut d = others_planned(first);
    let mv = a_card_move(&d, first);
    let program = vec![step(Command::Convert, Fallback::Ask), step(mv.clone(), Fallback::Skip)];
    // When the plan and program are given
    let ev = d.act(first, &Command::Program { hand: Hand::new([0, 0, 3, 3]), steps: program }).unwrap();
    // Then the program stopped at step 1 and the clan is asked for its turn
    let words = told(&ev);
    assert_eq!(words.len(), 1, "{words:?}");
    assert!(words[0].contains("refused because") && words[0].ends_with("stopped to ask"), "{words:?}");
    assert_eq!(d.state.phase, Phase::Action);
    assert_eq!(d.state.current, first);
    assert_eq!(d.waiting(), vec![first]);
    assert_eq!(d.state.players[first as usize].played.total(), 0, "nothing after the stop ran");
    // And the turn goes on by hand as any turn
    d.act(first, &Command::Exchange { discard: [Card::Kaupmadur, Card::Kaupmadur], take: Card::Godi }).unwrap();
}

#[test]
fn a_program_is_refused_when_malformed() {
    let mut d = others_planned(0);
    let e = d.refused(0, &Command::Program { hand: hand(), steps: vec![] });
    assert!(e.contains("at least one step"), "{e}");
    let e = d.refused(
        0,
        &Command::Program { hand: hand(), steps: vec![step(Command::Plan { hand: hand() }, Fallback::Skip)] },
    );
    assert!(e.contains("program step 1: only the actions of a turn and standing orders"), "{e}");
    let e = d.refused(
        0,
        &Command::Program {
            hand: hand(),
            steps: vec![step(Command::EndTurn, Fallback::Skip), step(Command::Convert, Fallback::Skip)],
        },
    );
    assert!(e.contains("ending the turn must be the last step"), "{e}");
    let e = d.refused(
        0,
        &Command::Program { hand: Hand::new([3, 3, 3, 0]), steps: vec![step(Command::Convert, Fallback::Skip)] },
    );
    assert!(e.contains("exactly 6"), "{e}");
}

#[test]
fn a_program_never_reveals_itself_to_other_seats_before_it_runs() {
    // Given two copies of a game: in one, clan P plans with a program; in
    // the other it plans the same cards without one
    let d0 = Driver::new(&Options::default(), 3, 11).unwrap();
    let first = d0.state.starting;
    let p = (first + 2) % 3; // the last to play
    let mut plain = Driver::new(&Options::default(), 3, 11).unwrap();
    let mut programmed = Driver::new(&Options::default(), 3, 11).unwrap();
    let program = vec![step(Command::Convert, Fallback::Skip), step(Command::BuyLand, Fallback::EndTurn)];
    plain.act(p, &Command::Plan { hand: hand() }).unwrap();
    programmed.act(p, &Command::Program { hand: hand(), steps: program }).unwrap();
    let same_for_others = |a: &Driver, b: &Driver, when: &str| {
        for other in (0..3).filter(|s| *s != p) {
            let va = Bardagi::view(&a.state, Viewer::Seat(other));
            let vb = Bardagi::view(&b.state, Viewer::Seat(other));
            assert_eq!(va, vb, "{when}: seat {other}'s view");
            assert_eq!(Bardagi::legal(&a.state, other), Bardagi::legal(&b.state, other), "{when}: legal");
        }
        assert_eq!(Bardagi::view(&a.state, Viewer::Public), Bardagi::view(&b.state, Viewer::Public));
        let pa = format!("{:?}", Bardagi::pending(&a.state));
        let pb = format!("{:?}", Bardagi::pending(&b.state));
        assert_eq!(pa, pb, "{when}: pending");
        // What others are shown of every event is the same
        assert_eq!(a.log.len(), b.log.len(), "{when}");
        for (ea, eb) in a.log.iter().zip(&b.log) {
            assert_eq!(ea.visibility, eb.visibility, "{when}");
            let shown = |e: &runestone_engine::game::Emit<Event>| match &e.redacted {
                Some(r) => serde_json::to_value(r).unwrap(),
                None => serde_json::to_value(&e.event).unwrap(),
            };
            assert_eq!(shown(ea), shown(eb), "{when}: an event as others see it");
        }
        let secret = a.log.iter().chain(&b.log).filter_map(|e| e.redacted.as_ref());
        for r in secret {
            assert!(!serde_json::to_string(r).unwrap().contains("program\""), "{when}: {r:?}");
        }
    };
    // Then, while planning and through the turns before P's, the others see
    // exactly the same in both games
    same_for_others(&plain, &programmed, "after P's plan");
    for s in (0..3).filter(|s| *s != p) {
        plain.act(s, &Command::Plan { hand: hand() }).unwrap();
        programmed.act(s, &Command::Plan { hand: hand() }).unwrap();
    }
    same_for_others(&plain, &programmed, "at the reveal");
    let mut guard = 0;
    while plain.state.phase == Phase::Action && plain.state.current != p {
        guard += 1;
        assert!(guard < 200, "the turns before P's did not end");
        let s = plain.state.current;
        let c = bot::command(&plain.state, s).unwrap();
        plain.act(s, &c).unwrap();
        programmed.act(s, &c).unwrap();
        if plain.state.current != p {
            same_for_others(&plain, &programmed, "during the turns before P's");
        }
    }
    // And once P's turn came, the program ran (and only then is it told)
    assert!(programmed.log.iter().any(|e| matches!(e.event, Event::ProgramStarted { seat, .. } if seat == p)));
    assert!(!plain.log.iter().any(|e| matches!(e.event, Event::ProgramStarted { .. })));
}

#[test]
fn replay_equals_the_live_state_with_programs() {
    // Given a game where every clan plans with a program each round, played to the end
    let mut d = Driver::new(&Options::default(), 3, 23).unwrap();
    let mut guard = 0;
    while let Some(seat) = d.next_seat() {
        guard += 1;
        assert!(guard < 2000, "the game did not end");
        let c = match bot::command(&d.state, seat).unwrap() {
            Command::Plan { hand } => Command::Program {
                hand,
                steps: vec![
                    step(Command::Convert, Fallback::Skip),
                    step(Command::BuyLand, Fallback::Skip),
                    step(Command::Attack { claim: true, reinforce: 0 }, Fallback::Ask),
                ],
            },
            c => c,
        };
        d.act(seat, &c).unwrap();
    }
    assert_eq!(d.state.phase, Phase::Over);
    assert!(d.log.iter().any(|e| matches!(e.event, Event::ProgramStep { .. })));
    // When the log is replayed from the start
    let mut replay = crate::State::default();
    for e in &d.log {
        Bardagi::apply(&mut replay, &e.event);
    }
    // Then the position is the live one
    assert_eq!(serde_json::to_value(&replay).unwrap(), serde_json::to_value(&d.state).unwrap());
}
