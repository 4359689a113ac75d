//! Turn programs: a seat gives, ahead of time, the steps of a turn that is
//! still to come — ordered commands of the game's own, each with a
//! [`Fallback`] for when the step has become illegal by the time it runs
//! (others played first and the position changed). Any game opts in by
//! implementing [`Programmable`] and accepting a program in a command of its
//! own; the game keeps the program in its state (secret to the seat, as a
//! secret plan is) and lets it be replaced until the seat's turn begins.
//! When the turn begins, the game calls [`run`].
//!
//! The runner judges every step exactly as the same command sent by hand at
//! that moment would be judged: the kernel's checks (the game is not over,
//! the seat is asked something or the command is a standing order) and then
//! the game's own [`Game::decide`] on the position as it is then. The events
//! of a step are applied to the working copy before the next step is judged,
//! so a step reads the position the steps before it made. A refused step
//! takes its fallback; what became of each step is told in words, one event
//! of the game's own per step ([`Programmable::told`]), put in the log before
//! the events the step made.
//!
//! A program is checked for its shape when it is given ([`check`]: how many
//! steps, which commands may be steps); its steps are judged only when they
//! run.

use serde::{Deserialize, Serialize};

use crate::game::{Emit, Game, RuleError, Seat};
use crate::rng::GameRng;

/// The kernel's ceiling on the steps of one program, whatever a game allows.
pub const MAX_STEPS: usize = 64;

/// The most commands the bot may play for a seat when a fallback hands it
/// the rest of the turn (a bound: a game whose fallback never ends the turn
/// stops to ask instead of looping).
pub const MAX_BOT_STEPS: usize = 64;

/// What to do when a programmed step is refused by the rules when it comes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", deny_unknown_fields)]
#[schemars(rename = "Fallback")]
pub enum Fallback<C> {
    /// Stop the program and ask the seat for the rest of its turn (the
    /// ordinary decision, with the ordinary deadline).
    Ask,
    /// Leave the step out and go on with the next.
    Skip,
    /// End the turn there (when the rules allow it; otherwise ask).
    EndTurn,
    /// Try this step instead; if the rules refuse it too, ask.
    Try { step: Box<C> },
    /// Let the bot play the rest of the turn from the position as it is
    /// then (the turn the timeout would play, without waiting for it); if
    /// the rules refuse that too, ask.
    Bot,
}

impl<C> Fallback<C> {
    /// The fallback a step has when none is given: stop to ask.
    pub fn ask() -> Self {
        Fallback::Ask
    }
}

// Not derived: the derive would ask every command type to have a default.
#[allow(clippy::derivable_impls)]
impl<C> Default for Fallback<C> {
    fn default() -> Self {
        Fallback::Ask
    }
}

/// What became of a programmed step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepOutcome {
    /// Taken as programmed.
    Done,
    /// Refused; the alternative step was taken (or the bot played the rest).
    FellBack,
    /// Refused and left out.
    Skipped,
    /// Refused; the turn ended there.
    EndedTurn,
    /// Refused (or the turn could not end); the seat is asked for the rest.
    Asked,
}

/// One step of a program and its fallback.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "ProgramStep")]
pub struct ProgramStep<C> {
    pub step: C,
    #[serde(default = "Fallback::<C>::ask")]
    #[schemars(extend("default" = {"type": "Ask"}))]
    pub fallback: Fallback<C>,
}

impl<C> ProgramStep<C> {
    /// A step with its fallback.
    pub fn new(step: C, fallback: Fallback<C>) -> Self {
        ProgramStep { step, fallback }
    }
}

/// What a game tells the runner about its turns. Every function has the
/// position the step would run on.
pub trait Programmable: Game {
    /// The most steps one program of this game holds (at most [`MAX_STEPS`]).
    const MAX_STEPS: usize;

    /// Whether `command` may be a step of a program (a step of a turn; not
    /// a plan, a whole turn or another program); the reason in words if not.
    fn programmable(command: &Self::Command) -> Result<(), String>;

    /// Whether `command` ends the turn (then it must be the last step).
    fn ends_turn(command: &Self::Command) -> bool {
        let _ = command;
        false
    }

    /// The command that ends `seat`'s turn now, for a game whose turns end
    /// by a command (the `EndTurn` fallback, and the end of a program whose
    /// steps are all taken). `None`: the turn ends only by its own steps.
    fn end_turn(state: &Self::State, seat: Seat) -> Option<Self::Command> {
        let _ = (state, seat);
        None
    }

    /// Whether the turn of `seat` that began on `start` is over on `now`
    /// (it ended, or the game moved on to something else).
    fn turn_over(start: &Self::State, now: &Self::State, seat: Seat) -> bool;

    /// A step in a few words ("Berserkur moves to Forest 7").
    fn step_words(state: &Self::State, seat: Seat, command: &Self::Command) -> String {
        Self::label(state, seat, command)
    }

    /// The bot's rest of the turn as one command and its words, for a game
    /// that plays a whole turn in one command. `None` (the default): the
    /// runner asks [`Game::fallback`] for one command after another until
    /// the turn is over. `rng` is the decision's, to try commands on a copy.
    fn bot_rest(state: &Self::State, seat: Seat, rng: &GameRng) -> Option<(Self::Command, String)> {
        let _ = (state, seat, rng);
        None
    }

    /// The game's event telling what became of step `step` (counted from 1)
    /// of `seat`'s program, in words. The runner puts it in the log before
    /// the step's events without applying it to the working copy, so
    /// applying it must change nothing of the position.
    fn told(seat: Seat, step: u8, outcome: StepOutcome, text: String) -> Self::Event;
}

/// Check a program's shape when it is given: at least one step, at most
/// [`Programmable::MAX_STEPS`], each step and each alternative programmable,
/// a turn's end only last. The steps themselves are judged when they run.
pub fn check<G: Programmable>(steps: &[ProgramStep<G::Command>]) -> Result<(), RuleError> {
    let max = G::MAX_STEPS.min(MAX_STEPS);
    if steps.is_empty() {
        return Err(RuleError::new("a program needs at least one step"));
    }
    if steps.len() > max {
        return Err(RuleError::new(format!("a program holds at most {max} steps, not {}", steps.len())));
    }
    for (i, s) in steps.iter().enumerate() {
        let n = i + 1;
        G::programmable(&s.step).map_err(|m| RuleError::new(format!("program step {n}: {m}")))?;
        if let Fallback::Try { step } = &s.fallback {
            G::programmable(step)
                .map_err(|m| RuleError::new(format!("program step {n}: the alternative cannot be a step: {m}")))?;
        }
        if G::ends_turn(&s.step) && n != steps.len() {
            return Err(RuleError::new(format!("program step {n}: ending the turn must be the last step")));
        }
    }
    Ok(())
}

/// Judge one command of `seat` on `state` as the kernel and the game judge
/// a command sent by hand: refused when the game is over or the seat is
/// asked nothing (unless it is a standing order), else by the game's
/// `decide`. Accepted, its events are applied to `state` and pushed on
/// `out`; refused, nothing changes (the randomness included).
pub fn judge<G: Game>(
    state: &mut G::State,
    out: &mut Vec<Emit<G::Event>>,
    rng: &mut GameRng,
    seat: Seat,
    command: &G::Command,
) -> Result<(), RuleError> {
    if G::outcome(state).is_some() {
        return Err(RuleError::new("the game is over"));
    }
    if !G::pending(state).iter().any(|p| p.seat == seat) && !G::standing_order(state, seat, command) {
        return Err(RuleError::new("nothing is asked of this seat now"));
    }
    let saved = rng.clone();
    match G::decide(state, seat, command, rng) {
        Ok(emits) => {
            for e in &emits {
                G::apply(state, &e.event);
            }
            out.extend(emits);
            Ok(())
        }
        Err(e) => {
            *rng = saved;
            Err(e)
        }
    }
}

/// Where a run of a program stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The turn is over (its last step ended it, or a fallback did).
    TurnOver,
    /// The seat is asked for the rest of its turn.
    Asked,
}

/// What a run did: where it stopped, and the index of the first step it did
/// not reach (the steps left for a later part of the seat's turn, when the
/// game runs one program over several turns, as placements in setup).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ran {
    pub stopped: Stopped,
    pub next: usize,
}

/// Run `steps[from..]` of `seat`'s program at the start of its turn, on the
/// decision's working copy `state`, pushing the events on `out`. Steps run
/// in order until the turn is over; a refused step takes its fallback. When
/// every step is taken and the turn is not over, it is ended by
/// [`Programmable::end_turn`] (or, for a game without one, the seat is
/// asked for the rest). Each step's outcome is told by the game's event
/// ([`Programmable::told`]), numbered from 1 over the whole program.
pub fn run<G: Programmable>(
    state: &mut G::State,
    out: &mut Vec<Emit<G::Event>>,
    rng: &mut GameRng,
    seat: Seat,
    steps: &[ProgramStep<G::Command>],
    from: usize,
) -> Ran {
    let start = state.clone();
    let tell = |out: &mut Vec<Emit<G::Event>>, at: usize, step: usize, outcome: StepOutcome, text: String| {
        let e = G::told(seat, step.min(u8::MAX as usize) as u8, outcome, text);
        out.insert(at.min(out.len()), Emit::public(e));
    };
    let over = |state: &G::State| G::turn_over(&start, state, seat);
    for (i, ps) in steps.iter().enumerate().skip(from) {
        let n = i + 1;
        let next = i + 1;
        let what = G::step_words(state, seat, &ps.step);
        let at = out.len();
        let why = match judge::<G>(state, out, rng, seat, &ps.step) {
            Ok(()) => {
                tell(out, at, n, StepOutcome::Done, format!("{what}: done"));
                if over(state) {
                    return Ran { stopped: Stopped::TurnOver, next };
                }
                continue;
            }
            Err(e) => e.message,
        };
        match &ps.fallback {
            Fallback::Skip => tell(out, at, n, StepOutcome::Skipped, format!("{what}: skipped because {why}")),
            Fallback::Try { step } => {
                let alt = G::step_words(state, seat, step);
                if let Err(e2) = judge::<G>(state, out, rng, seat, step) {
                    let m = e2.message;
                    let text = format!(
                        "{what}: refused because {why}; the alternative ({alt}) too because {m}; stopped to ask"
                    );
                    tell(out, at, n, StepOutcome::Asked, text);
                    return Ran { stopped: Stopped::Asked, next };
                }
                tell(out, at, n, StepOutcome::FellBack, format!("{what}: fell back to {alt} because {why}"));
                if over(state) {
                    return Ran { stopped: Stopped::TurnOver, next };
                }
            }
            Fallback::EndTurn => {
                let ended = match G::end_turn(state, seat) {
                    Some(end) => judge::<G>(state, out, rng, seat, &end).map_err(|e| e.message),
                    None => Err("the turn ends only by its own steps".to_owned()),
                };
                return match ended {
                    Ok(()) => {
                        tell(out, at, n, StepOutcome::EndedTurn, format!("{what}: ended the turn there because {why}"));
                        Ran { stopped: Stopped::TurnOver, next }
                    }
                    Err(m) => {
                        let text =
                            format!("{what}: refused because {why}; the turn cannot end yet ({m}); stopped to ask");
                        tell(out, at, n, StepOutcome::Asked, text);
                        Ran { stopped: Stopped::Asked, next }
                    }
                };
            }
            Fallback::Bot => {
                return match bot_plays_the_rest::<G>(state, out, rng, seat, &over) {
                    Ok(words) => {
                        let text =
                            format!("{what}: refused because {why}; the bot played the rest of the turn: {words}");
                        tell(out, at, n, StepOutcome::FellBack, text);
                        Ran { stopped: Stopped::TurnOver, next }
                    }
                    Err(m) => {
                        let text = format!(
                            "{what}: refused because {why}; the bot could not play the rest either ({m}); stopped to ask"
                        );
                        tell(out, at, n, StepOutcome::Asked, text);
                        Ran { stopped: if over(state) { Stopped::TurnOver } else { Stopped::Asked }, next }
                    }
                };
            }
            Fallback::Ask => {
                tell(out, at, n, StepOutcome::Asked, format!("{what}: refused because {why}; stopped to ask"));
                return Ran { stopped: Stopped::Asked, next };
            }
        }
    }
    // Every step was taken: the turn ends, unless the rules need more.
    let next = steps.len();
    let at = out.len();
    let n = steps.len() + 1;
    match G::end_turn(state, seat) {
        Some(end) => {
            let what = G::step_words(state, seat, &end);
            match judge::<G>(state, out, rng, seat, &end) {
                Ok(()) => {
                    tell(out, at, n, StepOutcome::Done, format!("{what}: done"));
                    Ran { stopped: Stopped::TurnOver, next }
                }
                Err(e) => {
                    let m = e.message;
                    tell(out, at, n, StepOutcome::Asked, format!("{what}: refused because {m}; stopped to ask"));
                    Ran { stopped: Stopped::Asked, next }
                }
            }
        }
        None => {
            let text = "the program ends before the turn does; stopped to ask for the rest".to_owned();
            tell(out, at, n, StepOutcome::Asked, text);
            Ran { stopped: Stopped::Asked, next }
        }
    }
}

/// The bot plays `seat`'s turn from the position as it is (a seat's
/// standing order "let the bot decide then"): as [`Fallback::Bot`] does,
/// its commands judged like any step. Its steps in words.
pub fn play_by_bot<G: Programmable>(
    state: &mut G::State,
    out: &mut Vec<Emit<G::Event>>,
    rng: &mut GameRng,
    seat: Seat,
) -> Result<String, String> {
    let start = state.clone();
    let over = |now: &G::State| G::turn_over(&start, now, seat);
    bot_plays_the_rest::<G>(state, out, rng, seat, &over)
}

/// The bot's rest of the turn, judged like any step: the game's one
/// command ([`Programmable::bot_rest`]), or one fallback after another
/// until the turn is over. Its steps in words; on a refusal nothing of the
/// refused command is kept (the bot's earlier commands stay).
fn bot_plays_the_rest<G: Programmable>(
    state: &mut G::State,
    out: &mut Vec<Emit<G::Event>>,
    rng: &mut GameRng,
    seat: Seat,
    over: &dyn Fn(&G::State) -> bool,
) -> Result<String, String> {
    if let Some((command, words)) = G::bot_rest(state, seat, rng) {
        judge::<G>(state, out, rng, seat, &command).map_err(|e| e.message)?;
        return Ok(words);
    }
    let mut words = Vec::new();
    for _ in 0..MAX_BOT_STEPS {
        if over(state) {
            return Ok(if words.is_empty() { "nothing left to do".into() } else { words.join(", ") });
        }
        let Some(c) = G::fallback(state, seat) else {
            return Err("the bot has no step to take".into());
        };
        let w = G::step_words(state, seat, &c);
        judge::<G>(state, out, rng, seat, &c).map_err(|e| format!("{w}: {}", e.message))?;
        words.push(w);
    }
    if over(state) {
        return Ok(words.join(", "));
    }
    Err(format!("the turn was not over after {MAX_BOT_STEPS} of the bot's steps"))
}

#[cfg(test)]
mod tests {
    //! The runner over a small game: each seat in turn adds 1 to 3 to a
    //! shared total, at most twice, then ends its turn; a total over 10 is
    //! refused; the game ends after two turns each.

    use super::*;
    use crate::game::{DecisionClass, Outcome, Pending, RulesetInfo, Viewer};
    use crate::rng::Seed;

    struct Adder;

    #[derive(Clone, Debug, Default, Serialize, Deserialize)]
    struct St {
        seats: u8,
        current: Seat,
        total: u8,
        adds: u8,
        turns: u8,
    }

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(tag = "type")]
    enum Cmd {
        Add { n: u8 },
        End,
        Program { steps: Vec<ProgramStep<Cmd>> },
    }

    #[derive(Clone, Debug, Serialize, Deserialize)]
    #[serde(tag = "type")]
    enum Ev {
        Added { n: u8 },
        Ended,
        Told { seat: Seat, step: u8, outcome: StepOutcome, text: String },
    }

    impl Game for Adder {
        type Options = ();
        type State = St;
        type Command = Cmd;
        type Event = Ev;
        fn info() -> RulesetInfo {
            RulesetInfo {
                id: "adder".into(),
                name: "Adder".into(),
                min_seats: 2,
                max_seats: 2,
                rules_version: 1,
                default_options: serde_json::Value::Null,
                options_help: Vec::new(),
                description: String::new(),
            }
        }
        fn setup(_: &(), _: u8, _: u32, _: &mut GameRng) -> Result<Vec<Emit<Ev>>, RuleError> {
            Ok(Vec::new())
        }
        fn decide(s: &St, seat: Seat, c: &Cmd, _: &mut GameRng) -> Result<Vec<Emit<Ev>>, RuleError> {
            if seat != s.current {
                crate::reject!("it is not your turn");
            }
            match c {
                Cmd::Add { n } if !(1..=3).contains(n) => crate::reject!("add 1 to 3, not {n}"),
                Cmd::Add { .. } if s.adds == 2 => crate::reject!("two additions a turn"),
                Cmd::Add { n } if s.total + n > 10 => crate::reject!("the total would pass 10"),
                Cmd::Add { n } => Ok(vec![Emit::public(Ev::Added { n: *n })]),
                Cmd::End if s.adds == 0 => crate::reject!("add something first"),
                Cmd::End => Ok(vec![Emit::public(Ev::Ended)]),
                Cmd::Program { .. } => crate::reject!("not here"),
            }
        }
        fn apply(s: &mut St, e: &Ev) {
            match e {
                Ev::Added { n } => {
                    s.total += n;
                    s.adds += 1;
                }
                Ev::Ended => {
                    s.adds = 0;
                    s.turns += 1;
                    s.current = (s.current + 1) % s.seats;
                }
                // Telling changes nothing (the runner does not apply it).
                Ev::Told { .. } => {}
            }
        }
        fn view(_: &St, _: Viewer) -> serde_json::Value {
            serde_json::Value::Null
        }
        fn pending(s: &St) -> Vec<Pending> {
            if s.turns >= 4 {
                return Vec::new();
            }
            vec![Pending {
                seat: s.current,
                kind: "turn".into(),
                class: DecisionClass::Turn,
                prompt: String::new(),
                submitted: false,
            }]
        }
        fn legal(_: &St, _: Seat) -> Vec<Cmd> {
            Vec::new()
        }
        fn fallback(s: &St, _: Seat) -> Option<Cmd> {
            Some(if s.adds == 0 && s.total < 10 { Cmd::Add { n: 1 } } else { Cmd::End })
        }
        fn outcome(s: &St) -> Option<Outcome> {
            (s.turns >= 4).then(|| Outcome {
                scores: vec![0, 0],
                ranking: vec![0, 1],
                winners: vec![0, 1],
                summary: String::new(),
            })
        }
        fn label(_: &St, _: Seat, c: &Cmd) -> String {
            match c {
                Cmd::Add { n } => format!("add {n}"),
                Cmd::End => "end the turn".into(),
                Cmd::Program { .. } => "a program".into(),
            }
        }
    }

    impl Programmable for Adder {
        const MAX_STEPS: usize = 4;
        fn programmable(c: &Cmd) -> Result<(), String> {
            match c {
                Cmd::Program { .. } => Err("a program cannot hold a program".into()),
                _ => Ok(()),
            }
        }
        fn ends_turn(c: &Cmd) -> bool {
            matches!(c, Cmd::End)
        }
        fn end_turn(_: &St, _: Seat) -> Option<Cmd> {
            Some(Cmd::End)
        }
        fn turn_over(start: &St, now: &St, _: Seat) -> bool {
            now.turns != start.turns
        }
        fn told(seat: Seat, step: u8, outcome: StepOutcome, text: String) -> Ev {
            Ev::Told { seat, step, outcome, text }
        }
    }

    fn state(total: u8) -> St {
        St { seats: 2, total, ..St::default() }
    }

    fn add(n: u8, fallback: Fallback<Cmd>) -> ProgramStep<Cmd> {
        ProgramStep::new(Cmd::Add { n }, fallback)
    }

    fn go(s: &mut St, steps: &[ProgramStep<Cmd>]) -> (Ran, Vec<Emit<Ev>>) {
        let mut rng = GameRng::new(Seed([1; 32]), 1);
        let mut out = Vec::new();
        let ran = run::<Adder>(s, &mut out, &mut rng, 0, steps, 0);
        (ran, out)
    }

    fn texts(out: &[Emit<Ev>]) -> Vec<String> {
        out.iter()
            .filter_map(|e| match &e.event {
                Ev::Told { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect()
    }

    fn told(out: &[Emit<Ev>]) -> Vec<(u8, StepOutcome)> {
        out.iter()
            .filter_map(|e| match &e.event {
                Ev::Told { step, outcome, .. } => Some((*step, *outcome)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn steps_run_in_order_and_the_turn_ends_after_the_last() {
        let mut s = state(0);
        let (ran, out) = go(&mut s, &[add(2, Fallback::Ask), add(3, Fallback::Ask)]);
        assert_eq!(ran, Ran { stopped: Stopped::TurnOver, next: 2 });
        assert_eq!((s.total, s.current, s.turns), (5, 1, 1));
        assert_eq!(told(&out), vec![(1, StepOutcome::Done), (2, StepOutcome::Done), (3, StepOutcome::Done)]);
        // Each step is told before the events it made.
        assert!(matches!(out[0].event, Ev::Told { step: 1, .. }));
        assert!(matches!(out[1].event, Ev::Added { n: 2 }));
        assert_eq!(texts(&out)[0], "add 2: done");
        assert_eq!(texts(&out)[2], "end the turn: done");
    }

    #[test]
    fn a_step_is_judged_on_the_position_the_steps_before_it_made() {
        // 8 + 2 is allowed, then 10 + 1 is not: the second step reads the first's total.
        let mut s = state(8);
        let (ran, out) = go(&mut s, &[add(2, Fallback::Ask), add(1, Fallback::Ask)]);
        assert_eq!(ran, Ran { stopped: Stopped::Asked, next: 2 });
        assert_eq!(s.total, 10);
        assert_eq!(told(&out), vec![(1, StepOutcome::Done), (2, StepOutcome::Asked)]);
        assert_eq!(texts(&out)[1], "add 1: refused because the total would pass 10; stopped to ask");
        // Asked: the turn is still the seat's.
        assert_eq!(s.current, 0);
    }

    #[test]
    fn each_fallback_does_what_it_says() {
        // Skip: left out, the next step runs.
        let mut s = state(9);
        let (_, out) = go(&mut s, &[add(3, Fallback::Skip), add(1, Fallback::Ask)]);
        assert_eq!(told(&out), vec![(1, StepOutcome::Skipped), (2, StepOutcome::Done), (3, StepOutcome::Done)]);
        assert_eq!((s.total, s.turns), (10, 1));
        // Try: the alternative is taken.
        let mut s = state(9);
        let (_, out) = go(&mut s, &[add(3, Fallback::Try { step: Box::new(Cmd::Add { n: 1 }) })]);
        assert_eq!(told(&out)[0], (1, StepOutcome::FellBack));
        assert_eq!(texts(&out)[0], "add 3: fell back to add 1 because the total would pass 10");
        // EndTurn: refused when nothing was added, so it asks.
        let mut s = state(9);
        let (ran, out) = go(&mut s, &[add(3, Fallback::EndTurn)]);
        assert_eq!((ran.stopped, told(&out)[0].1), (Stopped::Asked, StepOutcome::Asked));
        assert!(texts(&out)[0].contains("the turn cannot end yet (add something first)"), "{}", texts(&out)[0]);
        // EndTurn after a step that was taken.
        let mut s = state(8);
        let (ran, out) = go(&mut s, &[add(1, Fallback::Ask), add(3, Fallback::EndTurn)]);
        assert_eq!((ran.stopped, told(&out)[1].1, s.turns), (Stopped::TurnOver, StepOutcome::EndedTurn, 1));
        // Bot: the game's fallback plays the rest, one command at a time.
        let mut s = state(9);
        let (ran, out) = go(&mut s, &[add(3, Fallback::Bot)]);
        assert_eq!((ran.stopped, told(&out)[0].1, s.total, s.turns), (Stopped::TurnOver, StepOutcome::FellBack, 10, 1));
        assert_eq!(
            texts(&out)[0],
            "add 3: refused because the total would pass 10; the bot played the rest of the turn: add 1, end the turn"
        );
    }

    #[test]
    fn an_alternative_refused_too_stops_to_ask_and_changes_nothing() {
        let mut s = state(10);
        let (ran, out) = go(&mut s, &[add(3, Fallback::Try { step: Box::new(Cmd::Add { n: 2 }) })]);
        assert_eq!(ran.stopped, Stopped::Asked);
        assert_eq!(out.len(), 1);
        assert_eq!(s.total, 10);
    }

    #[test]
    fn the_kernel_checks_come_first_and_a_run_stops_when_the_turn_is_over() {
        // The game is over: every step is refused in the kernel's words.
        let mut s = St { turns: 4, ..state(0) };
        let (_, out) = go(&mut s, &[add(1, Fallback::Skip)]);
        assert!(texts(&out)[0].contains("because the game is over"), "{:?}", texts(&out));
        assert_eq!(told(&out)[0].1, StepOutcome::Skipped);
        // A turn ended by a step leaves the later steps for later.
        let mut s = state(0);
        let steps = [add(1, Fallback::Ask), ProgramStep::new(Cmd::End, Fallback::Ask)];
        let (ran, _) = go(&mut s, &steps);
        assert_eq!(ran, Ran { stopped: Stopped::TurnOver, next: 2 });
        // Running from a later step numbers the steps over the whole program.
        let mut s = state(0);
        let mut rng = GameRng::new(Seed([1; 32]), 1);
        let mut out = Vec::new();
        let steps = [add(1, Fallback::Ask), add(2, Fallback::Ask)];
        let ran = run::<Adder>(&mut s, &mut out, &mut rng, 0, &steps, 1);
        assert_eq!(ran.next, 2);
        assert_eq!(told(&out), vec![(2, StepOutcome::Done), (3, StepOutcome::Done)]);
    }

    #[test]
    fn the_shape_is_checked_when_a_program_is_given() {
        assert!(check::<Adder>(&[]).is_err());
        let five: Vec<_> = (0..5).map(|_| add(1, Fallback::Ask)).collect();
        assert_eq!(check::<Adder>(&five).unwrap_err().message, "a program holds at most 4 steps, not 5");
        let end_first = [ProgramStep::new(Cmd::End, Fallback::Ask), add(1, Fallback::Ask)];
        assert_eq!(
            check::<Adder>(&end_first).unwrap_err().message,
            "program step 1: ending the turn must be the last step"
        );
        let nested =
            [ProgramStep::new(Cmd::Add { n: 1 }, Fallback::Try { step: Box::new(Cmd::Program { steps: vec![] }) })];
        assert!(check::<Adder>(&nested).unwrap_err().message.contains("the alternative cannot be a step"));
        assert!(check::<Adder>(&[add(1, Fallback::Ask), ProgramStep::new(Cmd::End, Fallback::Ask)]).is_ok());
    }

    #[test]
    fn the_serialised_shape_is_the_one_games_store() {
        let step = ProgramStep::new(Cmd::Add { n: 1 }, Fallback::Try { step: Box::new(Cmd::End) });
        let v = serde_json::to_value(&step).expect("JSON");
        assert_eq!(
            v,
            serde_json::json!({"step": {"type": "Add", "n": 1}, "fallback": {"type": "Try", "step": {"type": "End"}}})
        );
        let read: ProgramStep<Cmd> =
            serde_json::from_value(serde_json::json!({"step": {"type": "End"}})).expect("read");
        assert_eq!(read.fallback, Fallback::Ask);
        assert_eq!(serde_json::to_value(StepOutcome::FellBack).expect("JSON"), "fell_back");
    }
}
