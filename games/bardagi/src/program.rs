//! Turn programs: with its secret plan a clan may give the card actions of
//! its coming turn, in order, each with a fallback for when the board has
//! changed by then (other clans moved first). The program is as secret as the
//! plan (it travels in the same `PlanChosen` event, whose redacted form is
//! that of a plain plan), may be replaced with the plan until the reveal, and
//! runs the moment the clan's turn begins. Each step is judged by the same
//! rule code as the same command sent by hand at that moment; a step the
//! rules refuse takes its fallback. What the program did is told in words,
//! one public `ProgramStep` event per step.
//!
//! The program's types and its runner are the kernel's
//! (`runestone_engine::program`); this module says what a step of a Bardagi
//! turn is, and runs the program when the clan's turn begins.

use runestone_engine::game::{RuleError, Seat};
use runestone_engine::program::{self, Programmable};
use runestone_engine::reject;
use runestone_engine::rng::GameRng;

use super::planning;
use super::state::{Command, Event, Hand, Phase, State};
use super::{describe_command, run, Bardagi, Ctx};

/// What to do when a programmed step is refused by the rules when it comes.
pub type Fallback = program::Fallback<Command>;

/// One step of a program and its fallback.
pub type ProgramStep = program::ProgramStep<Command>;

/// What became of a programmed step.
pub use program::StepOutcome;

/// The most steps a program may hold (a turn has at most 8 cards, plus free
/// steps such as disembarking, retreats, exchanges and the end).
pub const MAX_STEPS: usize = 32;

/// Whether a command may be a step of a program: one step of a turn, or
/// new standing orders (not a plan, a whole turn or another program).
fn step_allowed(c: &Command) -> bool {
    match c {
        Command::Free { step, .. } => step_allowed(step),
        Command::SetOrders { .. } => true,
        c => planning::is_step(c),
    }
}

impl Programmable for Bardagi {
    const MAX_STEPS: usize = MAX_STEPS;

    fn programmable(c: &Command) -> Result<(), String> {
        match step_allowed(c) {
            true => Ok(()),
            false => {
                Err("only the actions of a turn and standing orders can be programmed, not a plan or a whole turn"
                    .into())
            }
        }
    }

    fn ends_turn(c: &Command) -> bool {
        matches!(c, Command::EndTurn)
    }

    fn end_turn(_: &State, _: Seat) -> Option<Command> {
        Some(Command::EndTurn)
    }

    /// The turn ended, or the round moved on.
    fn turn_over(start: &State, now: &State, seat: Seat) -> bool {
        now.round != start.round || now.phase != Phase::Action || now.current != seat
    }

    fn step_words(s: &State, seat: Seat, c: &Command) -> String {
        describe_command(s, seat, c)
    }

    /// The bot's turn from here (without its standing orders: the clan's own
    /// stay), as one whole turn judged by the rules; its steps in words.
    fn bot_rest(s: &State, seat: Seat, rng: &GameRng) -> Option<(Command, String)> {
        let steps: Vec<Command> =
            super::bot::bot_turn(s, seat).into_iter().filter(|c| !matches!(c, Command::SetOrders { .. })).collect();
        // Each step told on the board as the steps before it left it.
        let mut rng = rng.clone();
        let mut probe = Ctx::new(s.clone(), &mut rng);
        let mut words = Vec::new();
        for c in &steps {
            words.push(describe_command(&probe.s, seat, c));
            if run(&mut probe, seat, c).is_err() {
                break;
            }
        }
        if !matches!(steps.last(), Some(Command::EndTurn)) {
            words.push("end the turn".into());
        }
        Some((Command::PlayTurn { steps }, words.join(", ")))
    }

    fn told(seat: Seat, step: u8, outcome: StepOutcome, text: String) -> Event {
        Event::ProgramStep { seat, step, outcome, text }
    }
}

/// Check a program's shape when it is given (the steps themselves are
/// judged when the turn comes, on the board as it is then).
pub fn check(steps: &[ProgramStep]) -> Result<(), RuleError> {
    if steps.is_empty() {
        reject!("a program needs at least one step; send a plain plan to play the turn by hand");
    }
    program::check::<Bardagi>(steps)
}

/// The plan with a program (`Command::Program`).
pub fn plan_with_program(cx: &mut Ctx, seat: Seat, hand: Hand, steps: &[ProgramStep]) -> Result<(), RuleError> {
    if cx.s.easy_cards {
        reject!("in the easier variant cards are chosen at the start of one's own turn, so there is no plan to program a turn with");
    }
    check(steps)?;
    planning::plan_secretly(cx, seat, hand, Some(steps.to_vec()))
}

/// At the start of `seat`'s turn: run its program, if it gave one.
pub fn run_program(cx: &mut Ctx, seat: Seat) {
    let Some(steps) = cx.s.players.get(seat as usize).and_then(|p| p.program.clone()) else {
        return;
    };
    cx.emit(Event::ProgramStarted { seat, steps: steps.len() as u8 });
    program::run::<Bardagi>(&mut cx.s, &mut cx.out, cx.rng, seat, &steps, 0);
}
