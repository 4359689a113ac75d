//! Rules version 2: season programs and standing answers. Every state is
//! reached by playing commands from setup.

use runestone_engine::{Game, Seat, Viewer, Visibility};

use super::rules::{district, edge};
use super::Driver;
use crate::data::{data, Action};
use crate::program::{
    Answers, By, ChallengeAnswer, Fallback, KeepAnswer, Otherwise, Program, ProgramStep, StepOutcome, SwearAnswer,
};
use crate::rules::{ask_of, Ask};
use crate::state::{BandMove, Command, Event, OrderDo, Orders, Phase, Vote};
use crate::{Options, Thingvellir};

const LAND: usize = 0;
const SEA: usize = 1;
const BLOOD: usize = 3;

fn v2(seats: u8, lawspeaker: Seat, sealed: bool) -> Driver {
    let o =
        Options { rules_version: Some(2), lawspeaker: Some(lawspeaker), sealed_feuds: sealed, ..Options::default() };
    Driver::new(&o, seats, 7).expect("setup")
}

fn support() -> Orders {
    Orders { rules: vec![], otherwise: Some(OrderDo::Support) }
}

fn step(c: Command, fallback: Fallback) -> ProgramStep {
    ProgramStep { step: c, fallback }
}

/// A program that supports every proposal and passes where no step is left.
fn passing(steps: Vec<ProgramStep>) -> Program {
    Program { steps, votes: Some(support()), answers: Answers::default(), otherwise: Otherwise::Pass }
}

fn season(d: &mut Driver, seat: Seat, program: Program) {
    d.act(seat, &Command::Season { program }).unwrap_or_else(|e| panic!("seat {seat}'s program refused: {e}"));
}

/// The events logged from `from` on.
fn since(d: &Driver, from: usize) -> Vec<Event> {
    d.log[from..].iter().map(|e| e.event.clone()).collect()
}

fn steps_of(events: &[Event], who: Seat) -> Vec<(u8, StepOutcome, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ProgramStep { seat, step, outcome, text, .. } if *seat == who => {
                Some((*step, *outcome, text.clone()))
            }
            _ => None,
        })
        .collect()
}

fn answered(events: &[Event], who: Seat) -> Vec<(By, String, Option<Command>)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Answered { seat, by, text, command } if *seat == who => Some((*by, text.clone(), command.clone())),
            _ => None,
        })
        .collect()
}

/// The answers other than votes.
fn answered_not_votes(events: &[Event], who: Seat) -> Vec<(By, String, Option<Command>)> {
    answered(events, who).into_iter().filter(|a| !matches!(a.2, Some(Command::Vote { .. }))).collect()
}

#[test]
fn each_round_begins_with_every_gothi_asked_for_the_seasons_program_at_once_secret_and_replaceable() {
    let mut d = v2(4, 0, false);
    assert_eq!(d.state.phase, Phase::Season);
    let pending = Thingvellir::pending(&d.state);
    assert_eq!(pending.iter().map(|p| p.seat).collect::<Vec<_>>(), vec![0, 1, 2, 3], "all four at once");
    assert!(pending.iter().all(|p| p.kind == "season" && !p.submitted));
    assert!(pending.iter().all(|p| p.class == runestone_engine::DecisionClass::Plan));
    let first = Program { steps: vec![step(Command::Propose { law: SEA }, Fallback::Ask)], ..passing(vec![]) };
    season(&mut d, 0, first);
    let given = d.log.last().expect("an event");
    assert_eq!(given.visibility, Visibility::Seats(vec![0]), "the program is secret");
    assert!(matches!(given.redacted, Some(Event::Hidden { seat: 0 })));
    assert!(Thingvellir::view(&d.state, Viewer::Seat(1))["players"][0]["season"].is_null());
    assert_eq!(
        Thingvellir::view(&d.state, Viewer::Seat(0))["players"][0]["season"]["program"]["steps"][0]["step"]["law"],
        SEA
    );
    let pending = Thingvellir::pending(&d.state);
    assert!(pending.iter().find(|p| p.seat == 0).expect("seat 0").submitted, "given, still replaceable");
    // Replaced before it runs: the Law of the Land instead.
    season(&mut d, 0, Program { steps: vec![step(Command::Propose { law: LAND }, Fallback::Ask)], ..passing(vec![]) });
    for seat in 1..4 {
        assert_eq!(d.state.phase, Phase::Season, "the round waits for every program");
        season(&mut d, seat, passing(vec![]));
    }
    assert_eq!(d.state.token, Some((LAND, 0)), "the replacing program ran");
    assert_eq!(d.state.round, 2, "everyone passed: the whole round ran on the programs");
    assert_eq!(d.state.phase, Phase::Season, "the next round begins with programs again");
    assert!(d.inputs.iter().all(|n| *n <= 2));
}

#[test]
fn a_program_that_has_begun_to_run_cannot_be_replaced_and_a_by_hand_answer_lets_it_go_on() {
    let mut d = v2(3, 0, false);
    // Seat 0 proposes Settle and settles; seats 1 and 2 play by hand.
    let target = district("Hunathing");
    season(
        &mut d,
        0,
        Program {
            steps: vec![
                step(Command::Propose { law: LAND }, Fallback::Ask),
                step(Command::Subsume { district: target, colour: 1 }, Fallback::Ask),
            ],
            ..Program::default()
        },
    );
    season(&mut d, 1, Program::default());
    season(&mut d, 2, Program::default());
    assert_eq!(d.state.token, Some((LAND, 0)), "the proposal ran");
    assert_eq!(ask_of(&d.state, 1), Some(Ask::Vote), "by hand: asked to vote");
    let err = d.act(0, &Command::Season { program: Program::default() }).unwrap_err();
    assert!(err.message.contains("begun to run"), "{err}");
    d.act(1, &Command::Vote { vote: Vote::Support }).unwrap();
    d.act(2, &Command::Vote { vote: Vote::Support }).unwrap();
    assert_eq!(d.state.owner(target), Some(0), "seat 0's step settled Hunathing as it came");
    assert_eq!(ask_of(&d.state, 1), Some(Ask::Resolve(Action::Settle)));
}

#[test]
fn a_programmed_step_does_exactly_what_the_same_command_by_hand_does() {
    let target = district("Hunathing");
    let settle = Command::Subsume { district: target, colour: 1 };
    // By program.
    let mut a = v2(3, 0, false);
    season(
        &mut a,
        0,
        Program {
            steps: vec![step(Command::Propose { law: LAND }, Fallback::Ask), step(settle.clone(), Fallback::Ask)],
            ..Program::default()
        },
    );
    season(&mut a, 1, Program::default());
    season(&mut a, 2, Program::default());
    a.act(1, &Command::Vote { vote: Vote::Support }).unwrap();
    a.act(2, &Command::Vote { vote: Vote::Support }).unwrap();
    // By hand.
    let mut b = v2(3, 0, false);
    for seat in 0..3 {
        season(&mut b, seat, Program::default());
    }
    b.act(0, &Command::Propose { law: LAND }).unwrap();
    b.act(1, &Command::Vote { vote: Vote::Support }).unwrap();
    b.act(2, &Command::Vote { vote: Vote::Support }).unwrap();
    b.act(0, &settle).unwrap();
    let board = |d: &Driver| {
        let mut s = d.state.clone();
        s.players.iter_mut().for_each(|p| p.season = None);
        serde_json::to_value(&s).expect("state")
    };
    assert_eq!(board(&a), board(&b));
    let told = steps_of(&since(&a, 0), 0);
    assert_eq!(told.len(), 2);
    assert_eq!((told[1].0, told[1].1), (2, StepOutcome::Done));
    assert_eq!(told[1].2, "settle Hunathing (a blue farm): done");
}

/// Seat 0 proposes Settle; seat 1's first Settle step names a District
/// nobody may settle (not next to its own), with `fallback`; its second
/// Settle step, if any, one it may.
fn refused_step(fallback: Fallback, second: bool) -> (Driver, Vec<Event>) {
    let mut d = v2(3, 0, false);
    let far = district("Reykjanes");
    let mut steps = vec![step(Command::Subsume { district: far, colour: 0 }, fallback)];
    if second {
        steps.push(step(Command::Subsume { district: near(&d, 1), colour: 2 }, Fallback::Ask));
    }
    season(&mut d, 0, Program { steps: vec![step(Command::Propose { law: LAND }, Fallback::Ask)], ..passing(vec![]) });
    let from = d.log.len();
    season(
        &mut d,
        1,
        Program { steps, votes: Some(support()), answers: Answers::default(), otherwise: Otherwise::Ask },
    );
    season(&mut d, 2, passing(vec![]));
    let events = since(&d, from);
    (d, events)
}

/// A free District next to one of `seat`'s.
fn near(d: &Driver, seat: Seat) -> usize {
    let dd = data();
    let home = d.state.districts_of(seat)[0];
    dd.first_map
        .edges
        .iter()
        .find_map(|&(a, b)| match (a == home, b == home) {
            (true, _) if d.state.steads[b].is_none() => Some(b),
            (_, true) if d.state.steads[a].is_none() => Some(a),
            _ => None,
        })
        .expect("a free neighbour")
}

#[test]
fn a_refused_step_takes_its_fallback_each_told_in_words() {
    let reason = "neither next to a District you control nor held by one of your Thingmen";
    // Ask: seat 1 is asked the Settle; its answer by hand lets the program go on.
    let (mut d, ev) = refused_step(Fallback::Ask, false);
    let told = steps_of(&ev, 1);
    assert_eq!((told[0].0, told[0].1), (1, StepOutcome::Asked));
    assert!(told[0].2.contains(reason) && told[0].2.ends_with("asked"), "{}", told[0].2);
    assert_eq!(ask_of(&d.state, 1), Some(Ask::Resolve(Action::Settle)), "asked");
    let n = near(&d, 1);
    d.act(1, &Command::Subsume { district: n, colour: 2 }).unwrap();
    assert_eq!(d.state.owner(n), Some(1));
    // Skip: the next Settle step is taken.
    let (d, ev) = refused_step(Fallback::Skip, true);
    let told = steps_of(&ev, 1);
    assert_eq!(
        told.iter().map(|t| (t.0, t.1)).collect::<Vec<_>>()[..2],
        [(1, StepOutcome::Skipped), (2, StepOutcome::Done)]
    );
    assert!(told[0].2.contains("skipped because") && told[0].2.contains(reason), "{}", told[0].2);
    assert_eq!(d.state.districts_of(1).len(), 2);
    // Try: the alternative is taken.
    let alt = {
        let d0 = v2(3, 0, false);
        Command::Subsume { district: near(&d0, 1), colour: 3 }
    };
    let (d, ev) = refused_step(Fallback::Try { step: Box::new(alt.clone()) }, false);
    let told = steps_of(&ev, 1);
    assert_eq!(told[0].1, StepOutcome::FellBack);
    assert!(told[0].2.contains("fell back to settle"), "{}", told[0].2);
    assert_eq!(
        d.state.players[1].farms[3],
        data().home_steads[1].colours.iter().filter(|c| **c == 3).count() as u8 + 1
    );
    // Pass: the action is passed.
    let (d, ev) = refused_step(Fallback::EndTurn, false);
    assert_eq!(steps_of(&ev, 1)[0].1, StepOutcome::EndedTurn);
    assert_eq!(d.state.districts_of(1).len(), 1);
    // Bot: the bot decides, from the board as it is then.
    let (d, ev) = refused_step(Fallback::Bot, false);
    let told = steps_of(&ev, 1);
    assert_eq!(told[0].1, StepOutcome::FellBack);
    assert!(told[0].2.contains("the bot chose"), "{}", told[0].2);
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::ProgramStep { seat: 1, command: Some(_), outcome: StepOutcome::FellBack, .. })));
    let _ = d;
}

#[test]
fn votes_cast_by_standing_order_are_told_as_such_and_orders_given_while_a_vote_is_due_say_so() {
    let mut d = v2(3, 0, false);
    d.act(2, &Command::Orders { orders: Some(support()) }).unwrap();
    for seat in 0..3 {
        season(&mut d, seat, Program::default());
    }
    d.act(0, &Command::Propose { law: SEA }).unwrap();
    assert_eq!(ask_of(&d.state, 1), Some(Ask::Vote), "seat 1 has no orders: asked");
    // Seat 1 gives orders while its vote is due: the vote is cast and told.
    let from = d.log.len();
    d.act(1, &Command::Orders { orders: Some(support()) }).unwrap();
    let ev = since(&d, from);
    let one = answered(&ev, 1);
    assert_eq!(one.len(), 1, "{ev:?}");
    assert_eq!(one[0].0, By::StandingOrder);
    assert_eq!(one[0].1, "support Raid (by standing voting order)");
    let two = answered(&ev, 2);
    assert_eq!(two[0].1, "support Raid (by standing voting order)", "seat 2's standing order, told");
    assert_eq!(d.state.votes[1], Some(Vote::Support));
    assert_eq!(d.state.phase, Phase::Resolve);
    let words = Thingvellir::describe(&d.state, &ev[1], &["Ann".into(), "Bo".into(), "Cy".into()]);
    assert_eq!(words, "Bo: support Raid (by standing voting order)");
}

/// Six gothar, Lawspeaker 0 proposes Ride; seat 2 sets forth 3 onto
/// Skagafjordur–Eyjafjordur, seat 5 rides 3 into them: a feud.
fn feud_round(sealed: bool, two: Answers, five: Answers) -> (Driver, Vec<Event>) {
    let mut d = v2(6, 0, sealed);
    let onto = edge("Skagafjordur", "Eyjafjordur");
    let from = edge("Eyjafjordur", "Thingeyjarthing");
    d.act(2, &Command::Answers { answers: two }).unwrap();
    let start = d.log.len();
    season(&mut d, 0, Program { steps: vec![step(Command::Propose { law: BLOOD }, Fallback::Ask)], ..passing(vec![]) });
    season(&mut d, 1, passing(vec![]));
    season(&mut d, 2, passing(vec![step(Command::Ride { set_forth: vec![onto; 3], moves: vec![] }, Fallback::Ask)]));
    season(&mut d, 3, passing(vec![]));
    season(&mut d, 4, passing(vec![]));
    let ride = Command::Ride { set_forth: vec![from; 3], moves: vec![BandMove { from, count: 3, path: vec![onto] }] };
    season(&mut d, 5, Program { answers: five, ..passing(vec![step(ride, Fallback::Ask)]) });
    let ev = since(&d, start);
    (d, ev)
}

#[test]
fn standing_and_seasons_answers_decide_a_feud_and_ask_me_still_asks() {
    let accept = Answers { feud: Some(0), ..Answers::default() };
    let (d, ev) = feud_round(false, accept.clone(), accept.clone());
    assert!(ev.iter().any(|e| matches!(e, Event::ProgramStep { seat: 5, outcome: StepOutcome::Done, .. })));
    let two = answered_not_votes(&ev, 2);
    let five = answered_not_votes(&ev, 5);
    assert!(!two.is_empty() && !five.is_empty(), "both sides answered: {ev:?}");
    assert!(two.iter().all(|a| a.0 == By::StandingAnswer && a.1.starts_with("accept the ")), "{two:?}");
    assert!(five.iter().all(|a| a.0 == By::SeasonAnswer && a.1.ends_with("(by this season's answer)")), "{five:?}");
    assert!(d.state.feud.is_none());
    assert_eq!(d.state.phase, Phase::Season, "nobody was asked all round");
    // Without seat 2's answer, the feud waits on seat 2.
    let (d, _) = feud_round(false, Answers::default(), accept);
    assert!(d.state.feud.is_some());
    assert_eq!(d.waiting(), vec![2]);
    assert_eq!(ask_of(&d.state, 2), Some(Ask::Feud));
}

#[test]
fn a_sealed_commitment_by_standing_answer_stays_secret() {
    let seal = Answers { feud: Some(2), ..Answers::default() };
    let (d, _) = feud_round(true, seal.clone(), seal);
    let secret: Vec<_> = d
        .log
        .iter()
        .filter(|e| matches!(e.event, Event::Answered { command: Some(Command::Seal { .. }), .. }))
        .collect();
    assert_eq!(secret.len(), 2, "each side sealed by its answer");
    for e in secret {
        let Event::Answered { seat, .. } = e.event else { unreachable!() };
        assert_eq!(e.visibility, Visibility::Seats(vec![seat]));
        assert!(matches!(&e.redacted, Some(Event::Answered { command: None, .. })));
    }
}

#[test]
fn a_band_riding_through_is_fought_or_let_pass_by_standing_answer() {
    for (answer, fight) in [(ChallengeAnswer::Fight, true), (ChallengeAnswer::LetPass, false)] {
        let mut d = v2(6, 3, false);
        d.act(
            2,
            &Command::Answers { answers: Answers { challenge: Some(answer), feud: Some(0), ..Answers::default() } },
        )
        .unwrap();
        let from = edge("Eyjafjordur", "Thingeyjarthing");
        let path =
            vec![edge("Skagafjordur", "Eyjafjordur"), edge("Hunathing", "Skagafjordur"), edge("Strandir", "Hunathing")];
        let ride = Command::Ride { set_forth: vec![from], moves: vec![BandMove { from, count: 1, path }] };
        let start = d.log.len();
        for seat in 0..6 {
            let mut p = passing(vec![]);
            p.answers.feud = Some(0);
            if seat == 3 {
                p.steps.push(step(Command::Propose { law: BLOOD }, Fallback::Ask));
            }
            if seat == 5 {
                p.steps.push(step(ride.clone(), Fallback::Ask));
            }
            season(&mut d, seat, p);
        }
        let ev = since(&d, start);
        let two = answered_not_votes(&ev, 2);
        let said = if fight { "fight the band" } else { "let the band pass" };
        assert_eq!(two[0].2, Some(Command::Challenge { fight }), "{two:?}");
        assert_eq!(two[0].1, format!("{said} (by standing answer)"));
    }
}

#[test]
fn the_cards_kept_from_a_raid_and_the_bondi_sworn_by_standing_answer() {
    let sue_for = |action| Some(Orders { rules: vec![], otherwise: Some(OrderDo::SueFor { action }) });
    // Round 1: seat 0 proposes Raid and sails out.
    let mut d = v2(2, 0, false);
    let sail = step(Command::SailOut { thingmen: 2 }, Fallback::Ask);
    season(&mut d, 0, passing(vec![step(Command::Propose { law: SEA }, Fallback::Ask), sail]));
    season(&mut d, 1, passing(vec![]));
    assert_eq!(d.state.players[0].at_sea, 2);
    // Round 2: seat 1 proposes Ride; seat 0 sues for Raid, returns laden and keeps by its standing answer.
    let keep = Answers { keep: Some(KeepAnswer::Worth), ..Answers::default() };
    d.act(0, &Command::Answers { answers: keep }).unwrap();
    let start = d.log.len();
    season(&mut d, 1, passing(vec![step(Command::Propose { law: BLOOD }, Fallback::Ask)]));
    season(
        &mut d,
        0,
        Program { votes: sue_for(Action::Raid), ..passing(vec![step(Command::ReturnLaden, Fallback::Ask)]) },
    );
    let ev = since(&d, start);
    let kept = answered_not_votes(&ev, 0);
    assert!(matches!(kept[0].2, Some(Command::Keep { .. })), "{ev:?}");
    assert_eq!(kept[0].0, By::StandingAnswer);
    let Some(Command::Keep { cards }) = &kept[0].2 else { unreachable!() };
    assert_eq!(cards.len(), 2, "half of 3 cards, rounded up");
    assert_eq!(d.state.players[0].wealth, *cards);
    let log = d.log.iter().find(|e| matches!(e.event, Event::Answered { command: Some(Command::Keep { .. }), .. }));
    assert_eq!(log.expect("the keep").visibility, Visibility::Seats(vec![0]), "the hand kept is secret");
    // Round 3: seat 0 proposes Feast; seat 1 sues for Pledge and swears by this season's answer.
    let start = d.log.len();
    season(&mut d, 0, passing(vec![step(Command::Propose { law: BLOOD }, Fallback::Ask)]));
    let swear = Answers { swear: Some(SwearAnswer::Best), ..Answers::default() };
    season(&mut d, 1, Program { votes: sue_for(Action::Pledge), answers: swear, ..passing(vec![]) });
    let ev = since(&d, start);
    let votes = answered(&ev, 1);
    assert!(matches!(votes[0].2, Some(Command::Vote { vote: Vote::Sue { .. } })) && votes[0].0 == By::SeasonOrder);
    let sworn = answered_not_votes(&ev, 1);
    let Some(Command::Swear { add: Some(c), .. }) = sworn[0].2 else { panic!("{ev:?}") };
    assert_eq!(sworn[0].0, By::SeasonAnswer);
    assert_eq!(d.state.players[1].oaths, vec![c], "the card drawn is sworn (1 District, room for 1 Bondi)");
}

#[test]
fn gothar_who_play_by_hand_are_not_asked_for_programs_and_the_first_rules_have_neither() {
    let mut d = v2(2, 0, false);
    for seat in 0..2 {
        d.act(seat, &Command::Answers { answers: Answers { by_hand: true, ..Answers::default() } }).unwrap();
    }
    assert_eq!(d.state.phase, Phase::Propose, "nobody to ask for a program: the council begins");
    assert_eq!(d.waiting(), vec![0]);
    // Version 1.
    let mut one = Driver::new(&Options { lawspeaker: Some(0), ..Options::default() }, 2, 7).unwrap();
    assert_eq!(one.state.phase, Phase::Propose);
    let err = one.act(0, &Command::Season { program: Program::default() }).unwrap_err();
    assert!(err.message.contains("first rules"), "{err}");
    let err = one.act(0, &Command::Answers { answers: Answers::default() }).unwrap_err();
    assert!(err.message.contains("first rules"), "{err}");
}

#[test]
fn a_program_of_the_wrong_shape_is_refused_in_words() {
    let mut d = v2(2, 0, false);
    let vote =
        Program { steps: vec![step(Command::Vote { vote: Vote::Support }, Fallback::Ask)], ..Program::default() };
    let err = d.act(0, &Command::Season { program: vote }).unwrap_err();
    assert!(err.message.contains("program step 1: only a proposal"), "{err}");
    let many = Program { steps: vec![step(Command::ReturnLaden, Fallback::Skip); 25], ..Program::default() };
    let err = d.act(0, &Command::Season { program: many }).unwrap_err();
    assert!(err.message.contains("at most 24 steps"), "{err}");
    let long = Command::Ride { set_forth: vec![0; 17], moves: vec![] };
    let err = d
        .act(0, &Command::Season { program: Program { steps: vec![step(long, Fallback::Ask)], ..Program::default() } })
        .unwrap_err();
    assert!(err.message.contains("more than 16"), "{err}");
}

/// Bots that write their programs as each round begins (the timeout
/// fallback, as `runestone simulate` plays): one input per gothi per round
/// and one wait, the programs' steps mostly taken as written; every game
/// ends and replays exactly.
#[test]
fn programs_written_at_the_start_of_the_round_play_a_game_in_one_wait_a_round() {
    for seats in 3..=6u8 {
        let (mut inputs, mut waits, mut rounds, mut done, mut other) = (0u64, 0u64, 0u64, 0u64, 0u64);
        for game in 0..3u64 {
            let o = Options { rules_version: Some(2), sealed_feuds: game % 2 == 1, ..Options::default() };
            let mut d = Driver::new(&o, seats, 40 + game).unwrap();
            let mut open: Vec<Seat> = Vec::new();
            let mut n = 0;
            while Thingvellir::outcome(&d.state).is_none() {
                n += 1;
                assert!(n < 5000, "no end");
                let pending = Thingvellir::pending(&d.state);
                let p = pending.iter().find(|p| !p.submitted).expect("someone to act");
                let c = Thingvellir::fallback(&d.state, p.seat).expect("a fallback");
                inputs += 1;
                if let Some(i) = open.iter().position(|s| *s == p.seat) {
                    open.remove(i);
                } else {
                    waits += 1;
                    open = pending.iter().filter(|q| !q.submitted && q.seat != p.seat).map(|q| q.seat).collect();
                }
                d.act(p.seat, &c).unwrap_or_else(|e| panic!("{c:?} refused: {e}"));
            }
            rounds += d.state.round as u64;
            for e in &d.log {
                if let Event::ProgramStep { outcome, .. } = e.event {
                    if outcome == StepOutcome::Done {
                        done += 1;
                    } else {
                        other += 1;
                    }
                }
            }
            let mut replay = crate::state::State::default();
            for e in &d.log {
                Thingvellir::apply(&mut replay, &e.event);
            }
            assert_eq!(serde_json::to_value(&replay).unwrap(), serde_json::to_value(&d.state).unwrap());
        }
        let per_seat = inputs as f64 / rounds as f64 / seats as f64;
        let per_round = waits as f64 / rounds as f64;
        println!("{seats} seats: {per_seat:.2} inputs per seat per round, {per_round:.2} waits per round, steps {done} taken, {other} otherwise");
        assert!(per_seat <= 1.3, "{seats} seats: {per_seat:.2} inputs per seat per round");
        assert!(per_round <= 1.5, "{seats} seats: {per_round:.2} waits per round");
        assert!(done > other, "{seats} seats: most steps run as written ({done} against {other})");
    }
}
