//! Turn programs: with its secret plan a clan may give the card actions of
//! its coming turn, in order, each with a fallback for when the board has
//! changed by then (other clans moved first). The program is as secret as the
//! plan (it travels in the same `PlanChosen` event, whose redacted form is
//! that of a plain plan), may be replaced with the plan until the reveal, and
//! runs the moment the clan's turn begins. Each step is judged by the same
//! rule code as the same command sent by hand at that moment; a step the
//! rules refuse takes its fallback. What the program did is told in words,
//! one public `ProgramStep` event per step.

use runestone_engine::game::{Emit, RuleError, Seat};
use runestone_engine::reject;
use serde::{Deserialize, Serialize};

use super::planning;
use super::state::{Command, Event, Hand, Phase};
use super::{describe_command, run, Ctx};

/// The most steps a program may hold (a turn has at most 8 cards, plus free
/// steps such as disembarking, retreats, exchanges and the end).
pub const MAX_STEPS: usize = 32;

/// What to do when a programmed step is refused by the rules when it comes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", deny_unknown_fields)]
pub enum Fallback {
    /// Stop the program and ask the clan for the rest of its turn (the
    /// ordinary turn, with the ordinary deadline).
    #[default]
    Ask,
    /// Leave the step out and go on with the next.
    Skip,
    /// End the turn there (when the rules allow it; otherwise ask).
    EndTurn,
    /// Try this step instead; if the rules refuse it too, ask.
    Try { step: Box<Command> },
}

/// What became of a programmed step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepOutcome {
    /// Taken as programmed.
    Done,
    /// Refused; the alternative step was taken.
    FellBack,
    /// Refused and left out.
    Skipped,
    /// Refused; the turn ended there.
    EndedTurn,
    /// Refused (or the turn could not end); the clan is asked for the rest.
    Asked,
}

/// One step of a program and its fallback.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProgramStep {
    pub step: Command,
    #[serde(default)]
    pub fallback: Fallback,
}

/// Whether a command may be a step of a program: one step of a turn, or
/// new standing orders (not a plan, a whole turn or another program).
fn step_allowed(c: &Command) -> bool {
    match c {
        Command::Free { step, .. } => step_allowed(step),
        Command::SetOrders { .. } => true,
        c => planning::is_step(c),
    }
}

/// Check a program's shape when it is given (the steps themselves are
/// judged when the turn comes, on the board as it is then).
pub fn check(steps: &[ProgramStep]) -> Result<(), RuleError> {
    if steps.is_empty() {
        reject!("a program needs at least one step; send a plain plan to play the turn by hand");
    }
    if steps.len() > MAX_STEPS {
        reject!("a program holds at most {MAX_STEPS} steps, not {}", steps.len());
    }
    for (i, s) in steps.iter().enumerate() {
        if !step_allowed(&s.step) {
            reject!(
                "program step {}: only the actions of a turn and standing orders can be programmed, not a plan or a whole turn",
                i + 1
            );
        }
        if let Fallback::Try { step } = &s.fallback {
            if !step_allowed(step) {
                reject!("program step {}: the alternative must be an action of a turn", i + 1);
            }
        }
        if matches!(s.step, Command::EndTurn) && i + 1 != steps.len() {
            reject!("program step {}: ending the turn must be the last step", i + 1);
        }
    }
    Ok(())
}

/// The plan with a program (`Command::Program`).
pub fn plan_with_program(cx: &mut Ctx, seat: Seat, hand: Hand, steps: &[ProgramStep]) -> Result<(), RuleError> {
    if cx.s.easy_cards {
        reject!("in the easier variant cards are chosen at the start of one's own turn, so there is no plan to program a turn with");
    }
    check(steps)?;
    planning::plan_secretly(cx, seat, hand, Some(steps.to_vec()))
}

/// Run one command on the decision's copy; when the rules refuse it, leave
/// the copy as it was before.
fn attempt(cx: &mut Ctx, seat: Seat, c: &Command) -> Result<(), RuleError> {
    let (s, len, rng, free) = (cx.s.clone(), cx.out.len(), cx.rng.clone(), cx.free);
    let r = run(cx, seat, c);
    if r.is_err() {
        cx.s = s;
        cx.out.truncate(len);
        *cx.rng = rng;
        cx.free = free;
    }
    r
}

/// Whether the turn of `seat` is over (it ended, or the round moved on).
fn turn_over(cx: &Ctx, seat: Seat, round: u8) -> bool {
    cx.s.round != round || cx.s.phase != Phase::Action || cx.s.current != seat
}

/// Told of a step, in the log before the events the step made (applying
/// it changes nothing, so its place does not change the position).
fn tell(cx: &mut Ctx, at: usize, seat: Seat, step: usize, outcome: StepOutcome, text: String) {
    let e = Event::ProgramStep { seat, step: step as u8, outcome, text };
    cx.out.insert(at.min(cx.out.len()), Emit::public(e));
}

/// At the start of `seat`'s turn: run its program, if it gave one.
pub fn run_program(cx: &mut Ctx, seat: Seat) {
    let Some(steps) = cx.s.players.get(seat as usize).and_then(|p| p.program.clone()) else {
        return;
    };
    cx.emit(Event::ProgramStarted { seat, steps: steps.len() as u8 });
    let round = cx.s.round;
    for (i, ps) in steps.iter().enumerate() {
        let n = i + 1;
        let what = describe_command(&cx.s, seat, &ps.step);
        let at = cx.out.len();
        let why = match attempt(cx, seat, &ps.step) {
            Ok(()) => {
                tell(cx, at, seat, n, StepOutcome::Done, format!("{what}: done"));
                if turn_over(cx, seat, round) {
                    return;
                }
                continue;
            }
            Err(e) => e.message,
        };
        match &ps.fallback {
            Fallback::Skip => tell(cx, at, seat, n, StepOutcome::Skipped, format!("{what}: skipped because {why}")),
            Fallback::Try { step } => {
                let alt = describe_command(&cx.s, seat, step);
                if let Err(e2) = attempt(cx, seat, step) {
                    let m = e2.message;
                    let text = format!(
                        "{what}: refused because {why}; the alternative ({alt}) too because {m}; stopped to ask"
                    );
                    tell(cx, at, seat, n, StepOutcome::Asked, text);
                    return;
                }
                tell(cx, at, seat, n, StepOutcome::FellBack, format!("{what}: fell back to {alt} because {why}"));
                if turn_over(cx, seat, round) {
                    return;
                }
            }
            Fallback::EndTurn => {
                let (outcome, text) = match attempt(cx, seat, &Command::EndTurn) {
                    Ok(()) => (StepOutcome::EndedTurn, format!("{what}: ended the turn there because {why}")),
                    Err(e2) => {
                        let m = e2.message;
                        let text =
                            format!("{what}: refused because {why}; the turn cannot end yet ({m}); stopped to ask");
                        (StepOutcome::Asked, text)
                    }
                };
                tell(cx, at, seat, n, outcome, text);
                return;
            }
            Fallback::Ask => {
                tell(cx, at, seat, n, StepOutcome::Asked, format!("{what}: refused because {why}; stopped to ask"));
                return;
            }
        }
    }
    // Every step was taken: the turn ends, unless the rules need more.
    let at = cx.out.len();
    let n = steps.len() + 1;
    match attempt(cx, seat, &Command::EndTurn) {
        Ok(()) => tell(cx, at, seat, n, StepOutcome::Done, "end the turn: done".into()),
        Err(e) => {
            let m = e.message;
            tell(cx, at, seat, n, StepOutcome::Asked, format!("end the turn: refused because {m}; stopped to ask"));
        }
    }
}
