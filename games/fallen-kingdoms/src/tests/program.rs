//! Rules version 2: the god and every placement in one decision, and each
//! turn given as one program by every seat at once; live play still there.

use runestone_engine::program::Fallback;
use runestone_engine::{Game, StepOutcome, Viewer};

use super::Driver;
use crate::state::{Command, Event, InvasionOrder, Phase, ProgramStep};
use crate::{FallenKingdoms, Options};

fn v2() -> Options {
    Options { rules_version: Some(2), ..Options::default() }
}

fn told(events: &[Event]) -> Vec<(u8, StepOutcome, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ProgramStep { step, outcome, text, .. } => Some((*step, *outcome, text.clone())),
            _ => None,
        })
        .collect()
}

/// Every seat gives the bot's setup; the placements all run at once.
fn set_up(d: &mut Driver) -> Vec<Event> {
    let mut all = Vec::new();
    for seat in 0..d.state.seats {
        let c = FallenKingdoms::fallback(&d.state, seat).expect("a fallback");
        assert!(matches!(c, Command::Setup { .. }), "{c:?}");
        all.extend(d.act(seat, &c).expect("setup accepted"));
    }
    all
}

#[test]
fn setup_is_one_decision_per_seat_and_the_placements_run_in_turn() {
    let mut d = Driver::new(&v2(), 4, 5).expect("setup");
    assert_eq!(d.waiting(), vec![0, 1, 2, 3]);
    let events = set_up(&mut d);
    // Every placement was taken (7 groups each), and the first turn asks every seat for its program.
    assert!(
        d.state.players.iter().all(|p| p.placed == 21),
        "{:?}",
        d.state.players.iter().map(|p| p.placed).collect::<Vec<_>>()
    );
    assert_eq!(d.state.phase, Phase::Programs);
    assert_eq!(d.waiting(), vec![0, 1, 2, 3]);
    let steps = told(&events);
    assert_eq!(steps.len(), 28, "one told step per placement");
    assert!(steps.iter().all(|s| matches!(s.1, StepOutcome::Done | StepOutcome::FellBack)), "{steps:?}");
    // The placements were secret until they ran: the others saw only that they were given.
    let mut rng = runestone_engine::GameRng::new(d.seed.clone(), 1);
    let c = Command::Setup { god: 0, places: vec![] };
    assert!(FallenKingdoms::decide(&d.state, 0, &c, &mut rng).is_err(), "the setup is over");
}

#[test]
fn a_round_is_one_simultaneous_wait_and_programs_run_in_turn_order() {
    let mut d = Driver::new(&v2(), 3, 9).expect("setup");
    set_up(&mut d);
    let turn = d.state.turn;
    let mut events = Vec::new();
    for seat in 0..3 {
        assert_eq!(d.state.phase, Phase::Programs, "nothing runs before every seat has answered");
        let c = FallenKingdoms::fallback(&d.state, seat).expect("a fallback");
        events.extend(d.act(seat, &c).expect("program accepted"));
    }
    // The whole turn ran, with its invasions, and the next turn asks again.
    assert_eq!(d.state.turn, turn + 1);
    assert_eq!(d.state.phase, Phase::Programs);
    let began: Vec<u8> = events
        .iter()
        .filter_map(|e| match e {
            Event::ProgramStarted { seat, .. } => Some(*seat),
            _ => None,
        })
        .collect();
    assert!(began.len() >= 3, "{began:?}");
    assert!(events.iter().any(|e| matches!(e, Event::TurnEnded { .. })));
}

#[test]
fn a_step_refused_when_it_comes_takes_its_fallback_and_the_log_tells_it() {
    let mut d = Driver::new(&v2(), 3, 3).expect("setup");
    set_up(&mut d);
    let first = d.state.first;
    // A production that spends more points than the seat has is refused; it falls back to the bot.
    let program = Command::Program {
        steps: vec![
            ProgramStep::new(Command::SkipGod, Fallback::Skip),
            ProgramStep::new(Command::Produce { free: [40, 0, 0] }, Fallback::Bot),
        ],
        invasion: InvasionOrder::Pass,
    };
    let mut events = d.act(first, &program).expect("given");
    for seat in (0..3).filter(|&s| s != first) {
        events
            .extend(d.act(seat, &Command::Program { steps: vec![], invasion: InvasionOrder::Pass }).expect("by hand"));
    }
    let steps = told(&events);
    assert_eq!((steps[0].0, steps[1].0), (1, 2), "{steps:?}");
    assert_eq!(steps[1].1, StepOutcome::FellBack, "{steps:?}");
    let text = &steps[1].2;
    assert!(text.starts_with("spend 40 on units, 0 on buildings, 0 on knowledge: refused because you have"), "{text}");
    assert!(text.contains("the bot played the rest of the turn: "), "{text}");
    // The bot finished the first seat's turn; the next seat plays by hand, asked step by step.
    assert_eq!(d.state.phase, Phase::Players);
    assert_ne!(d.state.current, first);
    let p = FallenKingdoms::pending(&d.state);
    assert_eq!(p.len(), 1);
    assert_ne!(p[0].kind, "program");
}

#[test]
fn ask_me_stops_the_program_and_the_seat_plays_the_rest_by_hand() {
    let mut d = Driver::new(&v2(), 3, 4).expect("setup");
    set_up(&mut d);
    let first = d.state.first;
    let program = Command::Program {
        steps: vec![ProgramStep::new(Command::TakeKnowledge { card: 200 }, Fallback::Ask)],
        invasion: InvasionOrder::Ask,
    };
    d.act(first, &program).expect("given");
    let mut events = Vec::new();
    for seat in (0..3).filter(|&s| s != first) {
        let c = FallenKingdoms::fallback(&d.state, seat).expect("a fallback");
        events.extend(d.act(seat, &c).expect("program"));
    }
    let steps = told(&events);
    assert_eq!(steps[0].1, StepOutcome::Asked, "{steps:?}");
    assert!(steps[0].2.contains("stopped to ask"), "{}", steps[0].2);
    assert_eq!((d.state.phase, d.state.current), (Phase::Players, first));
    assert_eq!(d.waiting(), vec![first]);
    // The seat's fallback (its time ran out) lets the game go on: the bot plays its step.
    let c = FallenKingdoms::fallback(&d.state, first).expect("a fallback");
    d.act(first, &c).expect("the bot's step is legal");
}

#[test]
fn a_program_is_secret_until_it_runs_and_may_be_replaced_until_the_turn_begins() {
    let mut d = Driver::new(&v2(), 3, 6).expect("setup");
    set_up(&mut d);
    let first = d.state.first;
    let last = (first + 2) % 3;
    let c = FallenKingdoms::fallback(&d.state, last).expect("a fallback");
    let n = d.log.len();
    d.act(last, &c).expect("given");
    let given = &d.log[n];
    assert!(matches!(given.event, Event::ProgramGiven { steps: Some(_), .. }));
    assert!(matches!(given.redacted, Some(Event::ProgramGiven { steps: None, invasion: None, .. })));
    assert!(!Viewer::Seat(first).sees(&given.visibility));
    // Replaced by "by hand" before the turn comes.
    d.act(last, &Command::Program { steps: vec![], invasion: InvasionOrder::Ask }).expect("replaced");
    assert!(d.state.players[last as usize].program.is_none());
    // The first seat's turn begins with its program; the last seat may still replace its own.
    for seat in [first, (first + 1) % 3] {
        let c = FallenKingdoms::fallback(&d.state, seat).expect("a fallback");
        d.act(seat, &c).expect("program");
    }
    if d.state.phase == Phase::Players && d.state.current != last {
        let c = FallenKingdoms::fallback(&d.state, last).expect("a fallback");
        assert!(FallenKingdoms::standing_order(&d.state, last, &c));
        d.act(last, &c).expect("replaced while others play");
    }
    // Once its turn has begun, no more.
    while !(d.state.phase == Phase::Players && d.state.current == last) && d.state.phase != Phase::Programs {
        let seat = d.waiting()[0];
        let c = FallenKingdoms::fallback(&d.state, seat).expect("a fallback");
        d.act(seat, &c).expect("step");
    }
    if d.state.phase == Phase::Players {
        let c = Command::Program { steps: vec![], invasion: InvasionOrder::Ask };
        assert!(!FallenKingdoms::standing_order(&d.state, last, &c));
    }
}

#[test]
fn the_shape_of_a_program_is_checked_when_it_is_given() {
    let mut d = Driver::new(&v2(), 3, 2).expect("setup");
    set_up(&mut d);
    let bad = |steps: Vec<ProgramStep>| Command::Program { steps, invasion: InvasionOrder::Ask };
    let mut rng = runestone_engine::GameRng::new(d.seed.clone(), 1);
    let mut refuse = |c: Command| FallenKingdoms::decide(&d.state, 0, &c, &mut rng).unwrap_err().message;
    let place = ProgramStep::new(Command::PlaceGroup { city: 0 }, Fallback::Ask);
    assert!(refuse(bad(vec![place])).contains("a turn's steps are"));
    let mv = ProgramStep::new(Command::Move { moves: vec![], attacks: vec![] }, Fallback::Ask);
    let skip = ProgramStep::new(Command::SkipGod, Fallback::Ask);
    assert!(refuse(bad(vec![mv, skip])).contains("ending the turn must be the last step"));
    let many = vec![ProgramStep::new(Command::SkipGod, Fallback::Skip); 25];
    assert!(refuse(bad(many)).contains("at most 24 steps"));
    let inv = Command::Program {
        steps: vec![],
        invasion: InvasionOrder::Step { step: Box::new(ProgramStep::new(Command::SkipGod, Fallback::Ask)) },
    };
    assert!(refuse(inv).contains("the invasion's step invades or passes"));
}

#[test]
fn version_1_keeps_its_step_by_step_flow_and_refuses_programs() {
    let mut d = Driver::new(&Options::default(), 3, 1).expect("setup");
    let mut rng = runestone_engine::GameRng::new(d.seed.clone(), 1);
    let c = Command::Setup { god: d.state.players[0].dealt.clone().unwrap()[0], places: vec![] };
    let e = FallenKingdoms::decide(&d.state, 0, &c, &mut rng).unwrap_err();
    assert!(e.message.contains("rules version 1"), "{e}");
    let c = FallenKingdoms::fallback(&d.state, 0).expect("a fallback");
    assert!(matches!(c, Command::ChooseGod { .. }));
    d.act(0, &c).expect("chosen");
}

#[test]
fn per_city_thresholds_and_rampage_units_come_with_version_2() {
    let d = Driver::new(&Options::default(), 3, 1).expect("setup");
    let mut rng = runestone_engine::GameRng::new(d.seed.clone(), 1);
    let defence = crate::state::Defence { per_city: vec![(0, 2)], ..Default::default() };
    let e =
        FallenKingdoms::decide(&d.state, 0, &Command::SetDefence { defence: defence.clone() }, &mut rng).unwrap_err();
    assert!(e.message.contains("version 2"), "{e}");
    let d2 = Driver::new(&v2(), 3, 1).expect("setup");
    FallenKingdoms::decide(&d2.state, 0, &Command::SetDefence { defence: defence.clone() }, &mut rng).expect("v2");
    assert_eq!(defence.threshold(0), 2);
    assert_eq!(defence.threshold(1), 0);
}

#[test]
fn under_version_2_a_round_begins_with_the_call_for_programs_turn_1_included() {
    use runestone_engine::Present;
    let mut d = Driver::new(&v2(), 3, 8).expect("setup");
    set_up(&mut d);
    for seat in 0..3 {
        let c = FallenKingdoms::fallback(&d.state, seat).expect("a fallback");
        d.act(seat, &c).expect("program");
    }
    let begun: Vec<u32> = d.log.iter().filter_map(|e| FallenKingdoms::round_begun(&e.event)).collect();
    assert_eq!(begun, vec![1, 2]);
    assert!(d.log.iter().any(|e| matches!(e.event, Event::RoundEnded { turn: 1, programs: true, .. })));
    // Version 1 keeps its mark at the end of the player phases.
    let ended = Event::RoundEnded { turn: 3, depleted: 0, programs: false };
    assert_eq!(FallenKingdoms::round_begun(&ended), Some(4));
}
