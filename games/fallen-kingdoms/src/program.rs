//! Rules version 2: a seat's whole turn in one decision. At the start of
//! each turn every seat gives, all at once, the program of its coming
//! player phase (god power, production, takes, placements, the movement
//! with its attacks' standing orders), each step with a fallback, and what
//! to do at the turn's invasion phase; in setup, the god and every starting
//! placement in one decision. A program is secret until it runs and may be
//! replaced until the seat's turn begins. It runs when the seat's turn (or
//! placement, or invasion) comes, each step judged by the same rules as the
//! same command sent by hand then (the kernel's runner,
//! `runestone_engine::program`); what each step did is told in words.

use runestone_engine::program::{self, Fallback, Programmable, StepOutcome};
use runestone_engine::{reject, Emit, RuleError, Seat};

use crate::state::{Command, Event, InvasionOrder, Phase, ProgramStep, State};
use crate::{Ctx, FallenKingdoms};

/// The most steps of a player phase's program (a god power, production,
/// every take, placement, the movement and standing orders between them).
pub const MAX_STEPS: usize = 24;

/// Starting placements: 7 groups of 3 units each (3.8).
pub const PLACES: usize = 7;

impl Programmable for FallenKingdoms {
    const MAX_STEPS: usize = MAX_STEPS;

    fn programmable(c: &Command) -> Result<(), String> {
        match c {
            Command::ChooseGod { .. } | Command::Setup { .. } | Command::Program { .. } => {
                Err("a program holds the steps of a turn, not a god's choice or another program".into())
            }
            Command::AnswerBattle { .. } => {
                Err("a battle's question is answered by standing orders or when asked".into())
            }
            _ => Ok(()),
        }
    }

    fn ends_turn(c: &Command) -> bool {
        matches!(c, Command::Move { .. })
    }

    fn turn_over(start: &State, now: &State, seat: Seat) -> bool {
        if now.phase != start.phase || now.turn != start.turn {
            return true;
        }
        match now.phase {
            Phase::Placement => now.placements.len() != start.placements.len(),
            Phase::Players => now.current != seat || now.asked.is_some(),
            Phase::Invasion => now.invasion.as_ref().map(|i| i.next) != start.invasion.as_ref().map(|i| i.next),
            _ => true,
        }
    }

    fn step_words(s: &State, seat: Seat, c: &Command) -> String {
        crate::view::label(s, seat, c)
    }

    fn told(seat: Seat, step: u8, outcome: StepOutcome, text: String) -> Event {
        Event::ProgramStep { seat, step, outcome, text }
    }
}

/// Whether a command is a step of the player phase.
fn turn_step(c: &Command) -> bool {
    matches!(
        c,
        Command::UseGod { .. }
            | Command::SkipGod
            | Command::Produce { .. }
            | Command::TakeKnowledge { .. }
            | Command::TakeBuilding { .. }
            | Command::PlaceProduced { .. }
            | Command::Move { .. }
            | Command::SetDefence { .. }
    )
}

/// Check that every step and alternative of `steps` is of the kind `ok` names.
fn of_kind(steps: &[ProgramStep], ok: fn(&Command) -> bool, what: &str) -> Result<(), RuleError> {
    for (i, s) in steps.iter().enumerate() {
        let alt = match &s.fallback {
            Fallback::Try { step } => Some(step.as_ref()),
            _ => None,
        };
        if !ok(&s.step) || alt.is_some_and(|a| !ok(a)) {
            reject!("program step {}: {what}", i + 1);
        }
    }
    Ok(())
}

fn v2(s: &State) -> Result<(), RuleError> {
    if s.rules.version < 2 {
        reject!("this game is played by rules version 1, where each step of a turn is its own decision");
    }
    Ok(())
}

/// Whether `seat`'s player phase of this turn is still to come (its
/// program may be given or replaced).
pub fn turn_to_come(s: &State, seat: Seat) -> bool {
    match s.phase {
        Phase::Programs => true,
        Phase::Players if s.n() > 0 => {
            let pos = (seat as usize + s.n() - s.first as usize) % s.n();
            pos > s.played as usize
        }
        _ => false,
    }
}

/// `Command::Setup`: the god, and the starting placements.
pub fn setup(cx: &mut Ctx, seat: Seat, god: u8, places: &[ProgramStep]) -> Result<(), RuleError> {
    v2(&cx.s)?;
    if places.len() > PLACES {
        reject!("a player places {PLACES} groups in setup, not {}", places.len());
    }
    if !places.is_empty() {
        program::check::<FallenKingdoms>(places)?;
    }
    of_kind(places, |c| matches!(c, Command::PlaceGroup { .. }), "setup steps place a group of 3 units")?;
    crate::setup::choose_god(cx, seat, god)?;
    cx.secret(
        Event::SetupGiven { seat, places: Some(places.to_vec()) },
        vec![seat],
        Event::SetupGiven { seat, places: None },
    );
    Ok(())
}

/// `Command::Program`: the coming turn's program.
pub fn give(cx: &mut Ctx, seat: Seat, steps: &[ProgramStep], invasion: &InvasionOrder) -> Result<(), RuleError> {
    v2(&cx.s)?;
    if !turn_to_come(&cx.s, seat) {
        reject!("your turn has begun (or the invasions are on): the next turn's program is asked when it comes");
    }
    if !steps.is_empty() {
        program::check::<FallenKingdoms>(steps)?;
    }
    of_kind(
        steps,
        turn_step,
        "a turn's steps are the god's power, production, takes, placement, the movement and standing defence orders",
    )?;
    if let InvasionOrder::Step { step } = invasion {
        of_kind(
            std::slice::from_ref(step.as_ref()),
            |c| matches!(c, Command::Invade { .. } | Command::PassInvasion),
            "the invasion's step invades or passes",
        )?;
    }
    cx.secret(
        Event::ProgramGiven { seat, steps: Some(steps.to_vec()), invasion: Some(invasion.clone()) },
        vec![seat],
        Event::ProgramGiven { seat, steps: None, invasion: None },
    );
    if cx.s.phase == Phase::Programs && cx.s.players.iter().all(|p| p.programmed) {
        let (first, turn) = (cx.s.first, cx.s.turn);
        cx.emit(Event::TurnBegan { seat: first, turn });
    }
    Ok(())
}

/// A turn begins (version 2): every seat is asked for its program.
pub fn ask_programs(cx: &mut Ctx, turn: u32) {
    cx.emit(Event::ProgramsAsked { turn });
}

/// Run the program due now, if the seat the game waits for gave one for
/// this moment; answer whether one ran.
pub fn run_due(cx: &mut Ctx) -> bool {
    if cx.s.rules.version < 2 {
        return false;
    }
    match cx.s.phase {
        Phase::Placement => {
            let Some(&seat) = cx.s.placements.first() else { return false };
            let Some(step) = cx.s.players[seat as usize].places.first().cloned() else { return false };
            cx.emit(Event::ProgramStarted { seat, steps: 1 });
            program::run::<FallenKingdoms>(&mut cx.s, &mut cx.out, cx.rng, seat, &[step], 0);
            true
        }
        Phase::Players if cx.s.asked.is_none() && cx.s.battle.is_none() => {
            let seat = cx.s.current;
            let Some(steps) = cx.s.players[seat as usize].program.clone() else { return false };
            cx.emit(Event::ProgramStarted { seat, steps: steps.len() as u8 });
            program::run::<FallenKingdoms>(&mut cx.s, &mut cx.out, cx.rng, seat, &steps, 0);
            true
        }
        Phase::Invasion => {
            let Some(seat) = cx.s.invasion.as_ref().and_then(|i| i.order.get(i.next)).copied() else {
                return false;
            };
            let order = cx.s.players[seat as usize].at_invasion.clone();
            let step = match order {
                InvasionOrder::Ask => return false,
                InvasionOrder::Pass => ProgramStep::new(Command::PassInvasion, Fallback::Ask),
                InvasionOrder::Step { step } => *step,
                InvasionOrder::Bot => {
                    cx.emit(Event::ProgramStarted { seat, steps: 1 });
                    let at = cx.out.len();
                    let told = match program::play_by_bot::<FallenKingdoms>(&mut cx.s, &mut cx.out, cx.rng, seat) {
                        Ok(words) => (StepOutcome::Done, format!("the bot decided the invasion: {words}")),
                        Err(m) => {
                            (StepOutcome::Asked, format!("the bot could not decide the invasion ({m}); stopped to ask"))
                        }
                    };
                    let e = Event::ProgramStep { seat, step: 1, outcome: told.0, text: told.1 };
                    cx.out.insert(at, Emit::public(e));
                    return true;
                }
            };
            cx.emit(Event::ProgramStarted { seat, steps: 1 });
            program::run::<FallenKingdoms>(&mut cx.s, &mut cx.out, cx.rng, seat, &[step], 0);
            true
        }
        _ => false,
    }
}
