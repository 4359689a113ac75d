//! Rules version 2: a season at the pace of the mail. As a round begins,
//! every gothi gives the season's program at once (one wait for the whole
//! table): its own decisions in order (the proposal as Lawspeaker, each
//! action it may come to resolve), each step with a fallback for when the
//! rules refuse it by the time it runs, this season's voting orders and
//! answers, and what to do where no step is left. Standing answers decide
//! the decisions asked outside one's own actions (a feud, a band riding
//! through, the cards kept from a raid, the Bondi sworn), so a gothi is asked
//! only where nothing it gave decides.
//!
//! A program is secret until it runs and may be replaced until its first
//! step runs. Each step is judged by `execute`, exactly as the same command
//! given by hand at that moment, and told in words in the log: one
//! `ProgramStep` event per step (its `outcome` says whether it was taken,
//! fell back, or stopped to ask), one `Answered` event per decision a
//! standing (or this season's) order or answer took. `decide` runs them
//! (`run`); `apply` only folds the events, so replay needs no program logic.

use runestone_engine::program::{self, Programmable};
use runestone_engine::{Emit, GameRng, Seat};
use serde::{Deserialize, Serialize};

use crate::data::{data, Action, Colour};
use crate::rules::{apply, asks, execute, Ask};
use crate::state::{Choosing, Command, Event, Orders, Phase, State};
use crate::Thingvellir;

/// The most steps a season's program may hold.
pub const MAX_STEPS: usize = 24;
/// The most entries in one list inside a programmed command or orders.
const MAX_LIST: usize = 16;

/// What a step does when the rules refuse it by the time it runs (the
/// kernel's): ask me for this decision (the program goes on with later
/// ones), skip to the next step for the same decision, end the turn (here:
/// pass on this action), try another command, or let the bot decide this
/// decision from the board as it is then.
pub type Fallback = program::Fallback<Command>;
/// One step: a command of one's own decisions and its fallback (the kernel's).
pub type ProgramStep = program::ProgramStep<Command>;
pub use program::StepOutcome;

/// What the program does for a decision no step is left for and nothing
/// standing decides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Otherwise {
    /// Ask me.
    #[default]
    Ask,
    /// Let the bot decide.
    Bot,
    /// Pass on an action; ask me anything else.
    Pass,
}

/// A season's program.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Program {
    /// In order: each decision of one's own (the proposal, an action to
    /// resolve) takes the first step not yet used that is for it (a
    /// Subsume or an Expand is for a Settle, a Ride for a Ride, and so on).
    pub steps: Vec<ProgramStep>,
    /// This season's voting orders, in place of the standing ones.
    pub votes: Option<Orders>,
    /// This season's answers; each one given decides in place of the
    /// standing one.
    pub answers: Answers,
    pub otherwise: Otherwise,
}

/// A band rode through one of my Districts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "do", rename_all = "snake_case", deny_unknown_fields)]
pub enum ChallengeAnswer {
    Fight,
    LetPass,
    /// Fight when I hold at least this many Goods, else let it pass.
    FightWith {
        goods: u8,
    },
}

/// Raid B: which of the cards brought home to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "do", rename_all = "snake_case", deny_unknown_fields)]
pub enum KeepAnswer {
    /// Those of greatest Worth.
    Worth,
    /// Those of this colour first, then of greatest Worth.
    Colour { colour: Colour },
}

/// Pledge: what to swear from the cards drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "do", rename_all = "snake_case", deny_unknown_fields)]
pub enum SwearAnswer {
    /// Add the drawn card of greatest Worth as a Bondi when there is room.
    Best,
    /// Add one of this colour (of greatest Worth) when there is room, else the best.
    Colour { colour: Colour },
    /// Swear nothing.
    Nothing,
}

/// Answers to the decisions asked outside one's own actions; `None` asks me.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Answers {
    /// In a feud: commit up to this many Goods, those of greatest Worth
    /// first, then accept (with sealed feuds: seal them).
    pub feud: Option<u8>,
    pub challenge: Option<ChallengeAnswer>,
    pub keep: Option<KeepAnswer>,
    pub swear: Option<SwearAnswer>,
    /// Standing only: do not ask me for a season's program; I answer each
    /// decision as it comes.
    pub by_hand: bool,
}

/// A season's program as it runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Running {
    pub program: Program,
    /// Steps used (taken, fallen back, skipped or asked).
    pub used: Vec<bool>,
    /// A step has run: the program can no longer be replaced this season.
    pub started: bool,
    /// A step fell back to asking: the decision now asked is answered by hand.
    pub hold: bool,
}

/// What decided a decision without asking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum By {
    StandingOrder,
    SeasonOrder,
    StandingAnswer,
    SeasonAnswer,
}

impl By {
    pub fn words(self) -> &'static str {
        match self {
            By::StandingOrder => "by standing voting order",
            By::SeasonOrder => "by this season's voting order",
            By::StandingAnswer => "by standing answer",
            By::SeasonAnswer => "by this season's answer",
        }
    }
}

/// The action a command resolves, if it is one of an action's commands.
pub fn action_of(c: &Command) -> Option<Action> {
    Some(match c {
        Command::Subsume { .. } | Command::Expand { .. } => Action::Settle,
        Command::Ride { .. } => Action::Ride,
        Command::SailOut { .. } | Command::ReturnLaden => Action::Raid,
        Command::SendOff { .. } | Command::FosterPersona { .. } => Action::Foster,
        Command::Give { .. } | Command::Murder { .. } | Command::Burn { .. } | Command::Capture { .. } => Action::Feast,
        _ => return None,
    })
}

/// Whether a step is for the decision `ask`.
fn fits(c: &Command, ask: Ask) -> bool {
    match ask {
        Ask::Propose => matches!(c, Command::Propose { .. }),
        Ask::Resolve(a) => action_of(c) == Some(a),
        _ => false,
    }
}

/// The size of the lists inside a command, bounded when a program is given.
fn longest_list(c: &Command) -> usize {
    match c {
        Command::Expand { steps } => steps.len(),
        Command::Ride { set_forth, moves } => {
            set_forth.len().max(moves.len()).max(moves.iter().map(|m| m.path.len()).max().unwrap_or(0))
        }
        Command::Give { gifts } => gifts.len().max(gifts.iter().map(|g| g.goods.len()).max().unwrap_or(0)),
        Command::Murder { bondi, .. } => bondi.len(),
        _ => 0,
    }
}

/// A season's steps are a proposal and the commands of an action; a step
/// answers one decision, so no step ends a turn of its own.
impl Programmable for Thingvellir {
    const MAX_STEPS: usize = MAX_STEPS;

    fn programmable(c: &Command) -> Result<(), String> {
        match matches!(c, Command::Propose { .. }) || action_of(c).is_some() {
            true => Ok(()),
            false => Err(
                "only a proposal and the commands of an action (settle, ride, raid, foster, feast) can be programmed"
                    .into(),
            ),
        }
    }

    /// Ending the turn is passing on the action being resolved.
    fn end_turn(s: &State, seat: Seat) -> Option<Command> {
        matches!(crate::rules::ask_of(s, seat), Some(Ask::Resolve(_))).then_some(Command::Pass)
    }

    /// A step's turn is the one decision it answers.
    fn turn_over(start: &State, now: &State, seat: Seat) -> bool {
        let ask = crate::rules::ask_of(start, seat);
        ask.is_none()
            || crate::rules::ask_of(now, seat) != ask
            || now.current != start.current
            || now.round != start.round
            || now.phase == Phase::Over
    }

    fn step_words(s: &State, seat: Seat, c: &Command) -> String {
        words(s, seat, c)
    }

    fn told(seat: Seat, step: u8, outcome: StepOutcome, text: String) -> Event {
        Event::ProgramStep { seat, step, outcome, text, command: None }
    }
}

/// Check a program's shape when it is given (the kernel's check of its
/// steps, and bounds on what each names); its steps are judged when they
/// run, on the board as it is then.
pub fn check(p: &Program) -> Result<(), String> {
    if !p.steps.is_empty() {
        program::check::<Thingvellir>(&p.steps).map_err(|e| e.message)?;
    }
    for (i, s) in p.steps.iter().enumerate() {
        let alt = match &s.fallback {
            program::Fallback::Try { step } => longest_list(step),
            _ => 0,
        };
        if longest_list(&s.step).max(alt) > MAX_LIST {
            return Err(format!("program step {}: it names more than {MAX_LIST} things", i + 1));
        }
    }
    if p.votes.as_ref().is_some_and(|o| o.rules.len() > MAX_LIST) {
        return Err(format!("voting orders hold at most {MAX_LIST} rules"));
    }
    Ok(())
}

impl Running {
    pub fn new(program: Program) -> Running {
        let used = vec![false; program.steps.len()];
        Running { program, used, started: false, hold: false }
    }
}

/// Seats asked for a season's program now (version 2, between rounds).
pub fn season_asked(s: &State) -> Vec<Seat> {
    if s.phase != Phase::Season {
        return vec![];
    }
    s.alive().filter(|x| !s.players[*x as usize].answers.by_hand).collect()
}

/// Every seat asked has given its program: the round begins.
pub fn season_ready(s: &State) -> bool {
    season_asked(s).iter().all(|x| s.players[*x as usize].season.is_some())
}

/// Whether the rules accept `c` from `seat` now (on a copy).
fn accepted(s: &State, seat: Seat, c: &Command) -> Result<(), String> {
    let mut probe = s.clone();
    execute(&mut probe, seat, c)
}

fn step_event(seat: Seat, step: usize, outcome: StepOutcome, text: String, command: Option<Command>) -> Event {
    Event::ProgramStep { seat, step: step as u8, outcome, text, command }
}

/// A command in words, for the log.
fn words(s: &State, seat: Seat, c: &Command) -> String {
    match c {
        Command::Vote { vote: crate::state::Vote::Support } => {
            let d = data();
            let action = s.token.map(|(l, lv)| d.laws[l].statutes[lv].action.name()).unwrap_or("the statute");
            format!("support {action}")
        }
        c => crate::view::told(s, seat, c),
    }
}

/// The answer a standing or season's answer gives, checked by the rules.
fn answered(s: &State, seat: Seat, by: By, c: Command) -> Option<Vec<Event>> {
    accepted(s, seat, &c).ok()?;
    let text = format!("{} ({})", words(s, seat, &c), by.words());
    Some(vec![Event::Answered { seat, by, text, command: Some(c) }])
}

/// The program's steps for the decision `ask`: the events that tell them.
fn steps(s: &State, seat: Seat, r: &Running, ask: Ask) -> Option<Vec<Event>> {
    let mut out = Vec::new();
    for (i, ps) in r.program.steps.iter().enumerate() {
        if r.used[i] || !fits(&ps.step, ask) {
            continue;
        }
        let n = i + 1;
        let what = words(s, seat, &ps.step);
        let why = match accepted(s, seat, &ps.step) {
            Ok(()) => {
                out.push(step_event(seat, n, StepOutcome::Done, format!("{what}: done"), Some(ps.step.clone())));
                return Some(out);
            }
            Err(e) => e,
        };
        let asked = |text: String| step_event(seat, n, StepOutcome::Asked, text, None);
        let e = match &ps.fallback {
            program::Fallback::Skip => {
                out.push(step_event(seat, n, StepOutcome::Skipped, format!("{what}: skipped because {why}"), None));
                continue;
            }
            program::Fallback::Try { step } => {
                let alt = words(s, seat, step);
                match accepted(s, seat, step) {
                    Ok(()) => step_event(
                        seat,
                        n,
                        StepOutcome::FellBack,
                        format!("{what}: fell back to {alt} because {why}"),
                        Some((**step).clone()),
                    ),
                    Err(m) => {
                        asked(format!("{what}: refused because {why}; the alternative ({alt}) too because {m}; asked"))
                    }
                }
            }
            program::Fallback::EndTurn if matches!(ask, Ask::Resolve(_)) => step_event(
                seat,
                n,
                StepOutcome::EndedTurn,
                format!("{what}: refused because {why}; passed on the action"),
                Some(Command::Pass),
            ),
            program::Fallback::EndTurn => {
                asked(format!("{what}: refused because {why}; there is no passing here, so asked"))
            }
            program::Fallback::Bot => match crate::bot::choose(s, seat, false).filter(|c| accepted(s, seat, c).is_ok())
            {
                Some(c) => {
                    let b = words(s, seat, &c);
                    step_event(
                        seat,
                        n,
                        StepOutcome::FellBack,
                        format!("{what}: refused because {why}; the bot chose {b}"),
                        Some(c),
                    )
                }
                None => asked(format!("{what}: refused because {why}; the bot has no choice here either; asked")),
            },
            program::Fallback::Ask => asked(format!("{what}: refused because {why}; asked")),
        };
        out.push(e);
        return Some(out);
    }
    (!out.is_empty()).then_some(out)
}

/// The feud answer: commit up to `n` Goods of greatest Worth, then accept.
fn feud_answer(s: &State, seat: Seat, n: u8) -> Option<Command> {
    let d = data();
    let p = &s.players[seat as usize];
    let mut best: Vec<(usize, u8)> =
        p.wealth.iter().enumerate().map(|(i, c)| (i, d.cards[*c as usize].worth)).collect();
    best.sort_by_key(|x| (std::cmp::Reverse(x.1), x.0));
    if s.sealed_feuds {
        return Some(Command::Seal { goods: best.iter().take(n as usize).map(|x| x.0).collect() });
    }
    let f = s.feud.as_ref()?;
    let side = usize::from(f.sides[0] != seat);
    if f.committed[side].len() < n as usize {
        if let Some(&(good, _)) = best.first() {
            return Some(Command::Commit { good });
        }
    }
    let colour = f.conflicts.iter().position(|c| c.present && !c.settled)?;
    Some(Command::Accept { colour })
}

fn keep_answer(s: &State, seat: Seat, k: KeepAnswer) -> Option<Command> {
    let d = data();
    let n = s.choosing?.2 as usize;
    let mut hand = s.players[seat as usize].hand.clone();
    hand.sort_by_key(|c| {
        let card = &d.cards[*c as usize];
        let first = matches!(k, KeepAnswer::Colour { colour } if colour == card.colour);
        (!first, std::cmp::Reverse(card.worth))
    });
    Some(Command::Keep { cards: hand.into_iter().take(n).collect() })
}

fn swear_answer(s: &State, seat: Seat, w: SwearAnswer) -> Command {
    let d = data();
    let p = &s.players[seat as usize];
    let room = s.districts_of(seat).len() > p.oaths.len();
    let best = |colour: Option<Colour>| {
        p.hand
            .iter()
            .filter(|c| colour.is_none_or(|k| d.cards[**c as usize].colour == k))
            .max_by_key(|c| d.cards[**c as usize].worth)
            .copied()
    };
    let add = match w {
        SwearAnswer::Nothing => None,
        _ if !room => None,
        SwearAnswer::Best => best(None),
        SwearAnswer::Colour { colour } => best(Some(colour)).or_else(|| best(None)),
    };
    Command::Swear { add, swaps: vec![] }
}

/// What answers `seat`'s decision `ask` without asking, as the events that
/// tell it (applied in order); `None`: the gothi is asked.
fn auto(s: &State, seat: Seat, ask: Ask) -> Option<Vec<Event>> {
    let p = &s.players[seat as usize];
    let season = p.season.as_ref();
    let pick = |f: &dyn Fn(&Answers) -> bool| -> Option<By> {
        if season.is_some_and(|r| f(&r.program.answers)) {
            Some(By::SeasonAnswer)
        } else if f(&p.answers) {
            Some(By::StandingAnswer)
        } else {
            None
        }
    };
    let of = |by: By| if by == By::SeasonAnswer { &season.expect("a season").program.answers } else { &p.answers };
    let standing = match ask {
        Ask::Season => return None,
        Ask::Vote => {
            let (orders, by) = match season.and_then(|r| r.program.votes.as_ref()) {
                Some(o) => (Some(o), By::SeasonOrder),
                None => (p.orders.as_ref(), By::StandingOrder),
            };
            orders.and_then(|o| crate::council::ordered(s, seat, o)).map(|vote| (by, Command::Vote { vote }))
        }
        Ask::Feud => pick(&|a| a.feud.is_some())
            .and_then(|by| feud_answer(s, seat, of(by).feud.expect("given")).map(|c| (by, c))),
        Ask::Challenge => pick(&|a| a.challenge.is_some()).map(|by| {
            let fight = match of(by).challenge.expect("given") {
                ChallengeAnswer::Fight => true,
                ChallengeAnswer::LetPass => false,
                ChallengeAnswer::FightWith { goods } => p.wealth.len() >= goods as usize,
            };
            (by, Command::Challenge { fight })
        }),
        Ask::Choose(Choosing::Raid) => pick(&|a| a.keep.is_some())
            .and_then(|by| keep_answer(s, seat, of(by).keep.expect("given")).map(|c| (by, c))),
        Ask::Choose(Choosing::Pledge) => {
            pick(&|a| a.swear.is_some()).map(|by| (by, swear_answer(s, seat, of(by).swear.expect("given"))))
        }
        Ask::Propose | Ask::Resolve(_) => {
            if let Some(r) = season.filter(|r| !r.hold) {
                if let Some(events) = steps(s, seat, r, ask) {
                    return Some(events);
                }
            }
            None
        }
        Ask::Choose(Choosing::Replace) | Ask::Farm => None,
    };
    if let Some((by, c)) = standing {
        if let Some(events) = answered(s, seat, by, c) {
            return Some(events);
        }
    }
    let r = season.filter(|r| !r.hold)?;
    match r.program.otherwise {
        Otherwise::Ask => None,
        Otherwise::Bot => {
            let c = crate::bot::choose(s, seat, false).filter(|c| accepted(s, seat, c).is_ok())?;
            let text = format!("{} (the bot chose: no step was left for this decision)", words(s, seat, &c));
            Some(vec![step_event(seat, 0, StepOutcome::FellBack, text, Some(c))])
        }
        Otherwise::Pass if matches!(ask, Ask::Resolve(_)) => {
            let text = "pass (no step was left for this action)".to_owned();
            Some(vec![step_event(seat, 0, StepOutcome::EndedTurn, text, Some(Command::Pass))])
        }
        Otherwise::Pass => None,
    }
}

/// The next decision something given answers.
fn next(s: &State) -> Option<Vec<Event>> {
    if s.version < 2 {
        return None;
    }
    asks(s).into_iter().filter(|a| !a.2).find_map(|(seat, ask, _)| auto(s, seat, ask))
}

/// Whether an event's command is secret to its seat.
fn secret_answer(c: &Option<Command>) -> bool {
    matches!(c, Some(Command::Keep { .. } | Command::Swear { .. } | Command::Seal { .. }))
}

/// After a command: run every program step and standing answer that now
/// decides, each told in the log (and the orlog reshuffled before a step
/// as before any command).
pub fn run(s: &mut State, rng: &mut GameRng, out: &mut Vec<Emit<Event>>) {
    for _ in 0..5000 {
        let Some(events) = next(s) else { return };
        for e in events {
            let commands =
                matches!(&e, Event::ProgramStep { command: Some(_), .. } | Event::Answered { command: Some(_), .. });
            if commands {
                crate::rules::reshuffle(s, rng, out);
            }
            apply(s, &e);
            let emit = match &e {
                Event::Answered { seat, by, command, .. } if secret_answer(command) => {
                    let redacted = Event::Answered {
                        seat: *seat,
                        by: *by,
                        text: format!("answered in secret ({})", by.words()),
                        command: None,
                    };
                    Emit::secret(e.clone(), vec![*seat], redacted)
                }
                _ => Emit::public(e.clone()),
            };
            out.push(emit);
        }
    }
}

/// Fold a program step or an answer: the program's bookkeeping, then the
/// command as if given by hand.
pub fn apply_told(s: &mut State, seat: Seat, step: Option<(u8, StepOutcome)>, command: &Option<Command>) {
    if let (Some((n, outcome)), Some(r)) = (step, s.players.get_mut(seat as usize).and_then(|p| p.season.as_mut())) {
        r.started = true;
        if let Some(u) = (n as usize).checked_sub(1).and_then(|i| r.used.get_mut(i)) {
            *u = true;
        }
        if outcome == StepOutcome::Asked {
            r.hold = true;
        }
    }
    if let Some(c) = command {
        let _ = execute(s, seat, c);
    }
}
