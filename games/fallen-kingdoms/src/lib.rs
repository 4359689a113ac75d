//! Fallen Kingdoms (revised rulebook): Norse gods rule kingdoms that grow by
//! production and war, fall, and are replaced by invaders, until two of the
//! three trophy types are gone.
//!
//! The rulebook's sections each have a module: [`data`] and [`board`]
//! (2 "Components", 3.1 "The map"), [`setup`] (3 "Game setup"), [`turn`]
//! (1.2 "Play sequence", 4.1 "Using the god's power", 4.2-4.5 production),
//! [`movement`] (5.1 "Moving army units"), [`battle`] (5.2 "Battle
//! resolution", 5.3 "Capturing temples", 5.4 "Falling kingdoms"),
//! [`scoring`] (6 "Scoring", 6.2 rumor adjustment and the end), [`invasion`]
//! (7 "Invasions"), [`view`] and [`bot`] (a sensible player, also the
//! timeout fallback). The optional rules of section 8 are [`Options`].
//!
//! Every decision runs on a copy of the position: each event is applied as
//! soon as it is emitted, so later rules read the position earlier events made,
//! and the steps that need no input run inside the `decide` before them.

pub mod battle;
pub mod board;
pub mod bot;
pub mod composer;
pub mod data;
pub mod drawing;
pub mod forms;
pub mod invasion;
pub mod movement;
pub mod orders;
pub mod program;
pub mod scoring;
pub mod setup;
pub mod state;
pub mod table;
pub mod turn;
pub mod view;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use serde_json::Value;

use runestone_engine::present::{
    schemas_of, Area, Forms, FormsInput, Posted, Present, RulesPage, Schemas, TableHeader,
};
use runestone_engine::{DecisionClass, Emit, Game, GameRng, Outcome, Pending, RuleError, RulesetInfo, Seat, Viewer};

pub use state::{Command, Event, State};
use state::{Phase, Step};

/// The ruleset.
pub struct FallenKingdoms;

/// The rules version games are created with now (RULES-NOTES.md, "Rules
/// versions"): 3, a seat's whole turn in one decision, with the rulebook's
/// private knowledge, rampages from empty cities and invasions as written.
pub const RULES_VERSION: u32 = 3;

/// Game options: the optional rules of section 8.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// 8.1 Hidden scoring: each player's glory is seen only by that player until the end.
    #[serde(default)]
    pub hidden_scoring: bool,
    /// 8.2 Shorter/longer play: trophies per player in each stack (1 to 6; the rule is 3).
    #[serde(default = "three")]
    pub trophies_per_player: u8,
    /// 8.3 Larger/smaller map, as far as it can be played on the six tiles:
    /// cities an invader may take per path (2 to 3; the rule is 2).
    #[serde(default = "two")]
    pub cities_per_path: u8,
    /// 8.3: victories needed to draw a rumor card (3 to 9; the rule is 6).
    #[serde(default = "six")]
    pub victories_for_rumor: u8,
    /// 8.3 Larger/smaller map (rules version 3): cities per player on the
    /// map, 4 to 9 where the six tiles can make it (the rule is 6; 9 for 3
    /// or 4 players is the text's example).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 4, max = 9), extend("default" = 6))]
    pub cities_per_player: Option<u8>,
    /// 8.4 Reverse the first player movement: the first player card moves counter-clockwise.
    #[serde(default)]
    pub reverse_first_player: bool,
    /// 8.5 Reverse invasion priority order: the stronger players invade first.
    #[serde(default)]
    pub reverse_priority: bool,
    /// 8.6 Powered down temples: temples give no immunity.
    #[serde(default)]
    pub powered_down_temples: bool,
    /// The rules version the game is played by (the newest unless given):
    /// 1, each step of a turn its own decision; 2, a seat's whole turn in
    /// one program, all given at once at the start of the turn; 3, as 2,
    /// with the readings of RULES-NOTES.md's "Rules versions".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = RULES_VERSION), extend("default" = RULES_VERSION))]
    pub rules_version: Option<u32>,
}

fn two() -> u8 {
    2
}
fn three() -> u8 {
    3
}
fn six() -> u8 {
    6
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hidden_scoring: false,
            trophies_per_player: 3,
            cities_per_path: 2,
            victories_for_rumor: 6,
            cities_per_player: None,
            reverse_first_player: false,
            reverse_priority: false,
            powered_down_temples: false,
            rules_version: None,
        }
    }
}

/// A decision in progress: a copy of the position that each emitted event
/// is applied to at once, and the events so far.
pub struct Ctx<'r> {
    pub s: State,
    pub out: Vec<Emit<Event>>,
    pub rng: &'r mut GameRng,
    /// Dice results to use before drawing any (for tests of worked examples).
    pub script: Vec<u8>,
}

impl<'r> Ctx<'r> {
    pub fn new(s: State, rng: &'r mut GameRng) -> Self {
        Ctx { s, out: Vec::new(), rng, script: Vec::new() }
    }

    /// One six-sided die, drawn in `decide` and recorded in the events that use it.
    pub fn die(&mut self) -> u8 {
        if self.script.is_empty() {
            self.rng.roll(6)
        } else {
            self.script.remove(0)
        }
    }

    /// A public event.
    pub fn emit(&mut self, e: Event) {
        state::apply(&mut self.s, &e);
        self.out.push(Emit::public(e));
    }

    /// An event only `seats` may see; the others see `redacted`.
    pub fn secret(&mut self, e: Event, seats: Vec<Seat>, redacted: Event) {
        state::apply(&mut self.s, &e);
        self.out.push(Emit::secret(e, seats, redacted));
    }

    /// Glory gained or lost: public, or secret to the seat under hidden scoring (8.1).
    pub fn glory(&mut self, seat: Seat, delta: i32, reason: &str) {
        if delta == 0 {
            return;
        }
        let e = Event::Glory { seat, delta: Some(delta), reason: reason.into() };
        if self.s.rules.hidden_scoring {
            self.secret(e, vec![seat], Event::Glory { seat, delta: None, reason: reason.into() });
        } else {
            self.emit(e);
        }
    }

    /// Draw the top rumor card (5.2.2, 5.3, 5.4): 6 glory points (6.1), or 3
    /// points of compensation when none is left (4.3).
    pub fn draw_rumor(&mut self, seat: Seat) {
        match self.s.rumor_deck.first().copied() {
            Some(card) => {
                self.emit(Event::RumorDrawn { seat, card });
                self.glory(seat, 6, "a rumor card acquired");
            }
            None => self.glory(seat, 3, "compensation: no rumor card left"),
        }
    }
}

/// Run one command on the decision's copy, then every step that needs no input.
pub fn run(cx: &mut Ctx, seat: Seat, c: &Command) -> Result<(), RuleError> {
    if cx.s.asked.is_some()
        && !matches!(c, Command::AnswerBattle { .. } | Command::SetDefence { .. } | Command::Program { .. })
    {
        runestone_engine::reject!("a battle waits for an answer first: retreat, or roll on");
    }
    match c {
        Command::ChooseGod { god } => setup::choose_god(cx, seat, *god)?,
        Command::PlaceGroup { city } => setup::place_group(cx, seat, *city)?,
        Command::UseGod { target, copy } => turn::use_god(cx, seat, *target, *copy)?,
        Command::SkipGod => turn::skip_god(cx, seat)?,
        Command::Produce { free } => turn::produce(cx, seat, *free)?,
        Command::TakeKnowledge { card } => turn::take_knowledge(cx, seat, *card)?,
        Command::TakeBuilding { tile } => turn::take_building(cx, seat, *tile)?,
        Command::PlaceProduced { units, buildings } => turn::place_produced(cx, seat, units, buildings)?,
        Command::Move { moves, attacks } => movement::plan(cx, seat, moves, attacks)?,
        Command::SetDefence { defence } => {
            movement::set_defence(cx, seat, defence)?;
            return Ok(());
        }
        Command::AnswerBattle { retreat, to } => battle::answer(cx, seat, *retreat, *to)?,
        Command::Invade { surrender_to, paths, temple, stack } => {
            invasion::invade(cx, seat, *surrender_to, paths, *temple, stack)?
        }
        Command::PassInvasion => invasion::pass(cx, seat)?,
        Command::Setup { god, places } => program::setup(cx, seat, *god, places)?,
        Command::Program { steps, invasion } => program::give(cx, seat, steps, invasion)?,
    }
    turn::advance(cx);
    Ok(())
}

/// Who must decide now.
pub fn pending(s: &State) -> Vec<Pending> {
    let one = |seat: Seat, kind: &str, class: DecisionClass, prompt: String| {
        vec![Pending { seat, kind: kind.into(), class, prompt, submitted: false }]
    };
    match s.phase {
        Phase::ChooseGods => s
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| Pending {
                seat: i as Seat,
                kind: "god".into(),
                class: DecisionClass::Plan,
                prompt: if p.has_chosen {
                    "your god is chosen; you may choose again until every player has chosen".into()
                } else {
                    "choose one of your two god cards, secretly".into()
                },
                submitted: p.has_chosen,
            })
            .collect(),
        Phase::Placement => match s.placements.first() {
            Some(&seat) => one(
                seat,
                "place",
                DecisionClass::Small,
                if s.players[seat as usize].placed == 0 {
                    "place 3 army units and your temple in your first city".into()
                } else {
                    "place 3 army units next to your units".into()
                },
            ),
            None => Vec::new(),
        },
        Phase::Programs => s
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| Pending {
                seat: i as Seat,
                kind: "program".into(),
                class: DecisionClass::Plan,
                prompt: if p.programmed {
                    format!("your program of turn {} is given; you may replace it until your turn begins", s.turn)
                } else {
                    format!(
                        "give your whole turn {} as a program (each step with a fallback), or choose to play it by hand",
                        s.turn
                    )
                },
                submitted: p.programmed,
            })
            .collect(),
        Phase::Players if s.asked.is_some() => {
            let a = s.asked.as_ref().expect("asked");
            one(a.seat, "battle", DecisionClass::Small, battle::question(s, a))
        }
        Phase::Players if s.battle.is_none() => {
            let (kind, class, prompt) = match s.step {
                Step::God => ("god_power", DecisionClass::Small, "use your god's ability, or skip it"),
                Step::Produce => {
                    ("produce", DecisionClass::Turn, "spend the free production points of your cities and ports")
                }
                Step::Take => ("take", DecisionClass::Small, "take a face-up knowledge card or building tile"),
                Step::Place => ("place_produced", DecisionClass::Small, "place your new units and buildings"),
                Step::Move => ("move", DecisionClass::Turn, "plan your whole movement and the orders of your attacks"),
            };
            one(s.current, kind, class, prompt.into())
        }
        Phase::Invasion => match s.invasion.as_ref().and_then(|i| i.order.get(i.next)) {
            Some(&seat) => one(seat, "invade", DecisionClass::Turn, "invade, or pass".into()),
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// How Fallen Kingdoms shows itself: the map and the kingdoms' tracks
/// ([`drawing`]) and a form for every kind of decision ([`forms`]).
impl Present for FallenKingdoms {
    type View = view::View;

    fn schemas() -> Schemas {
        schemas_of::<FallenKingdoms, view::View>()
    }

    fn svg(view: &view::View, seats: &[String]) -> Option<String> {
        drawing::svg(view, seats)
    }

    fn areas(view: &view::View, seats: &[String]) -> Vec<Area> {
        drawing::areas(view, seats)
    }

    fn text(view: &view::View, seats: &[String]) -> Option<String> {
        drawing::text(view, seats)
    }

    fn stylesheet() -> &'static str {
        include_str!("forms.css")
    }

    fn rules_page() -> Option<RulesPage> {
        Some(RulesPage { title: "How to play Fallen Kingdoms here", body: include_str!("../rules.html") })
    }

    fn header(view: &view::View, seats: &[String]) -> Option<TableHeader> {
        Some(table::header(view, seats))
    }

    /// The log of turn N+1 begins where turn N's player phases end (its
    /// `RoundEnded`, unless the game ends there): the invasions that end
    /// turn N and open the map for turn N+1 are shown with it, so a player
    /// who comes back reads everything since their last player phase. The
    /// events carry no mark of a turn's first player phase (each player's
    /// begins with a `TurnBegan`), and folding at each of those would hide
    /// the turn's earlier players as soon as the next one begins. Turn 1
    /// has the page's last entries. Under rules version 2 a turn begins
    /// with the call for every seat's program (`ProgramsAsked`), turn 1's
    /// included: the round is from there.
    fn round_begun(event: &Event) -> Option<u32> {
        match event {
            Event::RoundEnded { turn, depleted, programs: false } if *depleted < 2 => Some(turn + 1),
            Event::ProgramsAsked { turn } => Some(*turn),
            _ => None,
        }
    }

    fn forms(input: &FormsInput<'_, view::View>) -> Option<Forms> {
        forms::forms(input)
    }

    fn standing_forms(input: &FormsInput<'_, view::View>) -> Option<Forms> {
        forms::standing_forms(input)
    }

    fn command_of_form(build: &str, posted: &Posted, view: &view::View) -> Option<Result<Value, String>> {
        Some(match build {
            forms::PRODUCE => forms::produce_command(posted, view),
            forms::PLACE => forms::place_command(posted, view),
            forms::MOVE => forms::move_command(posted, view),
            forms::INVADE => forms::invade_command(posted, view),
            forms::DEFENCE => forms::defence_command(posted, view),
            composer::PROGRAM => composer::command(posted, view),
            _ => return None,
        })
    }

    fn order_form(input: &FormsInput<'_, view::View>) -> Vec<String> {
        orders::order_form(input)
    }

    fn read_orders(
        lines: &[runestone_engine::present::OrderLine],
        input: &FormsInput<'_, view::View>,
    ) -> Option<Result<Value, runestone_engine::present::OrderError>> {
        orders::read_orders(lines, input)
    }
}

impl Game for FallenKingdoms {
    type Options = Options;
    type State = State;
    type Command = Command;
    type Event = Event;

    /// Read without serde's buffering of the tagged enum ([`runestone_engine::TagFirst`]).
    fn read_event(text: &str) -> serde_json::Result<Event> {
        Event::from_json_text(text)
    }

    fn info() -> RulesetInfo {
        RulesetInfo {
            id: "fallen-kingdoms".into(),
            name: "Fallen Kingdoms".into(),
            min_seats: 3,
            max_seats: 6,
            rules_version: RULES_VERSION,
            default_options: serde_json::to_value(Options::default()).expect("JSON"),
            options_help: vec![
                ("hidden_scoring".into(), "8.1: glory points are hidden from the other players".into()),
                ("trophies_per_player".into(), "8.2: trophies per player in each stack (1 to 6, normally 3)".into()),
                ("cities_per_path".into(), "8.3: cities an invader may take per invasion path (2 or 3)".into()),
                (
                    "victories_for_rumor".into(),
                    "8.3: victories needed to draw a rumor card (3 to 9, normally 6)".into(),
                ),
                (
                    "cities_per_player".into(),
                    "8.3: cities per player on the map (4 to 9 where the tiles fit, normally 6; rules version 3)"
                        .into(),
                ),
                ("reverse_first_player".into(), "8.4: the first player card moves counter-clockwise".into()),
                ("reverse_priority".into(), "8.5: the strongest players invade first".into()),
                ("powered_down_temples".into(), "8.6: temples give no immunity".into()),
                (
                    "rules_version".into(),
                    format!(
                        "the rules version to play by: 1 (each step of a turn asked on its own), 2 (a whole \
                         turn in one program, given at once by everyone) or 3 (as 2, with knowledge private \
                         until its kingdom falls, rampages from empty cities and invasions as the rulebook \
                         words them), default {RULES_VERSION}"
                    ),
                ),
            ],
            description: "Norse gods guide kingdoms that rise, fall and are swept away by invaders.".into(),
        }
    }

    fn rules_version_of(options: &Options) -> u32 {
        options.rules_version.unwrap_or(RULES_VERSION)
    }

    fn setup(
        options: &Options,
        seats: u8,
        rules_version: u32,
        rng: &mut GameRng,
    ) -> Result<Vec<Emit<Event>>, RuleError> {
        setup::setup(options, seats, rules_version, rng)
    }

    fn decide(s: &State, seat: Seat, c: &Command, rng: &mut GameRng) -> Result<Vec<Emit<Event>>, RuleError> {
        if matches!(s.phase, Phase::Over | Phase::Setup) {
            runestone_engine::reject!("the game is not running");
        }
        // Standing defence orders may be given at any time (5.3); every
        // other command only by a seat the game waits for.
        if !Self::standing_order(s, seat, c) && !pending(s).iter().any(|p| p.seat == seat) {
            runestone_engine::reject!("nothing is asked of you now");
        }
        let mut cx = Ctx::new(s.clone(), rng);
        run(&mut cx, seat, c)?;
        Ok(cx.out)
    }

    fn apply(s: &mut State, e: &Event) {
        state::apply(s, e)
    }

    fn fits(s: &State, e: &Event) -> Result<(), String> {
        state::fits(s, e)
    }

    fn view(s: &State, viewer: Viewer) -> serde_json::Value {
        serde_json::to_value(view::view(s, viewer)).expect("JSON")
    }

    fn pending(s: &State) -> Vec<Pending> {
        pending(s)
    }

    fn legal(s: &State, seat: Seat) -> Vec<Command> {
        bot::legal(s, seat)
    }

    /// Standing defence orders may be replaced at any time (5.3), not only
    /// while the seat owes a decision; under rules version 2 a program
    /// until the seat's turn begins.
    fn standing_order(s: &State, seat: Seat, c: &Command) -> bool {
        match c {
            Command::SetDefence { .. } => true,
            Command::Program { .. } => s.rules.version >= 2 && program::turn_to_come(s, seat),
            _ => false,
        }
    }

    fn fallback(s: &State, seat: Seat) -> Option<Command> {
        bot::command(s, seat)
    }

    fn outcome(s: &State) -> Option<Outcome> {
        scoring::outcome(s, &[])
    }

    fn outcome_named(s: &State, names: &[String]) -> Option<Outcome> {
        scoring::outcome(s, names)
    }

    fn describe(s: &State, e: &Event, names: &[String]) -> String {
        view::describe(s, e, names)
    }

    fn label(s: &State, seat: Seat, c: &Command) -> String {
        view::label(s, seat, c)
    }

    fn label_named(s: &State, seat: Seat, c: &Command, names: &[String]) -> String {
        view::label_named(s, seat, c, names)
    }
}
