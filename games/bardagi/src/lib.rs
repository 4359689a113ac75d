//! Bardagi - the claim for gold: clans take over Barbarian islands by war,
//! conversion and trade, build up their home towns and gather gold.
//!
//! This module wires the rules into the [`Game`] trait. The rulebook's parts
//! each have a module: [`setup`] ("Game setup"), [`planning`] ("Planning
//! phase", "Your cards", the action phase's turn order), [`actions`] (the
//! four units), [`build`] ("Building phase", "Upgrades"), [`claim`] ("Claim
//! phase"), [`scoring`] ("Game scoring", end game glory), [`board`] (the
//! board data) and [`bot`] (a sensible player, also the timeout fallback).
//!
//! Every decision runs on a copy of the position: each event is applied as
//! soon as it is emitted, so a rule reads the position its earlier events
//! made, a whole turn is checked step by step, and the phases that need no
//! input (build, claim, the end) are resolved inside the `decide` that
//! finishes the last turn of a round.

pub mod actions;
pub mod board;
pub mod bot;
pub mod build;
pub mod claim;
mod drawing;
mod forms;
pub mod legal;
pub mod orders;
pub mod planning;
mod player_board;
pub mod program;
pub mod rules2018;
pub mod scoring;
pub mod setup;
pub mod state;
mod table;
pub mod view;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use runestone_engine::game::{DecisionClass, Emit, Game, Outcome, Pending, RuleError, RulesetInfo, Seat, Viewer};
use runestone_engine::present::{
    schemas_of, Area, CommandTemplate, Forms, FormsInput, PlayerBoard, Posted, Present, RulesPage, Schemas, TableHeader,
};
use runestone_engine::rng::GameRng;
use serde_json::Value;

use board::Colour;
use state::{apply, Good, Orders, Phase, RuneKind};
pub use state::{Command, Event, State};

/// The ruleset.
pub struct Bardagi;

/// The rules version games are created with now. Bump it (and gate the
/// changed rule on it) whenever a change alters play; see RULES-NOTES.md,
/// "Rules versions".
pub const RULES_VERSION: u32 = 7;

/// Game options.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// The built-in board: "summer" (2-5 players) or "winter" (2-3 players).
    #[serde(default = "summer")]
    #[schemars(extend("enum" = ["summer", "winter"]))]
    pub board: String,
    /// A whole board as TOML text (see `data/maps/summer.toml`); replaces `board`.
    #[serde(default)]
    #[schemars(extend("contentMediaType" = "application/toml"))]
    pub custom_board: Option<String>,
    /// The easier variant: each clan chooses its cards at the start of its own turn.
    #[serde(default)]
    pub easy_cards: bool,
    /// Advanced option 1: from round 5 clans choose up to 8 cards.
    #[serde(default)]
    pub eight_cards: bool,
    /// Advanced option 2: forced trade at other clans' home areas.
    #[serde(default)]
    pub forced_trade: bool,
    /// Number of rounds instead of the rounds table (1 to 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 20))]
    pub rounds: Option<u8>,
    /// "Alternatively, choose your own clan": the colour of each seat, in
    /// seat order (a list, or the names separated by commas, as the host
    /// form sends them: "blue, red"); absent, the colours are dealt at random.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<ColoursGiven>")]
    pub colours: Option<Vec<Colour>>,
    /// The rules version the game is played by (the newest unless given).
    /// The kernel records the version in `GameCreated` and hands it to
    /// setup; a version 1 game's options did not name it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = RULES_VERSION), extend("default" = RULES_VERSION))]
    pub rules_version: Option<u32>,
    /// The rune tokens as TOML text, in the format of `data/runes.toml`
    /// (each rune's kind, name and count); replaces the built-in mix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("contentMediaType" = "application/toml"))]
    pub custom_runes: Option<String>,
    /// The upgrade tiles as TOML text, in the format of `data/upgrades.toml`
    /// (each tile's id, building, level, effect, amount, name and count);
    /// replaces the built-in tiles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("contentMediaType" = "application/toml"))]
    pub custom_upgrades: Option<String>,
    /// The rulebook: "2014" (the printed rules, the default) or "2018" (the
    /// revised rules of January 2018; RULES-NOTES.md, "2018 revision").
    #[serde(default)]
    #[schemars(with = "String", extend("enum" = ["2014", "2018"], "default" = "2014"))]
    pub rules: rules2018::Rules,
}

fn summer() -> String {
    "summer".into()
}

/// The two forms `colours` may be given in, for the options' schema.
#[allow(dead_code)]
#[derive(schemars::JsonSchema)]
#[serde(untagged)]
enum ColoursGiven {
    /// The colours in seat order.
    List(Vec<Colour>),
    /// The colours' names separated by commas: "blue, red".
    Text(String),
}

/// The clans' colours as given: a list of names, or one text of names
/// separated by commas (what a text field of the host form posts).
fn colours_given(v: &Value) -> Result<Vec<Colour>, String> {
    let words: Vec<&str> = match v {
        Value::String(t) => t.split(',').map(str::trim).filter(|w| !w.is_empty()).collect(),
        Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().map(str::trim).ok_or_else(|| format!("colours: {i} is not a colour's name")))
            .collect::<Result<_, _>>()?,
        _ => return Err("colours: give the colours as a list of names, or names separated by commas".into()),
    };
    words
        .into_iter()
        .map(|w| {
            Colour::ALL.iter().copied().find(|c| c.name().eq_ignore_ascii_case(w)).ok_or_else(|| {
                let names: Vec<&str> = Colour::ALL.iter().map(|c| c.name()).collect();
                format!("colours: no clan is {w:?}; the colours are {}", names.join(", "))
            })
        })
        .collect()
}

/// The fields of [`Options`] as given, before the version is worked out.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GivenOptions {
    #[serde(default = "summer")]
    board: String,
    #[serde(default)]
    custom_board: Option<String>,
    #[serde(default)]
    easy_cards: bool,
    #[serde(default)]
    eight_cards: bool,
    #[serde(default)]
    forced_trade: bool,
    #[serde(default)]
    rounds: Option<u8>,
    #[serde(default)]
    colours: Option<Value>,
    #[serde(default)]
    rules_version: Option<u32>,
    #[serde(default)]
    custom_runes: Option<String>,
    #[serde(default)]
    custom_upgrades: Option<String>,
    #[serde(default)]
    rules: Option<Value>,
}

/// The rulebook as given: "2014" or "2018" (a number is read as its digits).
fn rules_given(v: Option<Value>) -> Result<rules2018::Rules, String> {
    let word = match &v {
        None | Some(Value::Null) => return Ok(rules2018::Rules::default()),
        Some(Value::String(t)) => t.trim().to_string(),
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => other.to_string(),
    };
    match word.as_str() {
        "2014" => Ok(rules2018::Rules::Y2014),
        "2018" => Ok(rules2018::Rules::Y2018),
        _ => Err(format!(
            "rules: {word} is not a rulebook; choose \"2014\" (the printed rules) or \"2018\" (the revision)"
        )),
    }
}

impl<'de> Deserialize<'de> for Options {
    /// The colours may be given as a list or as one text of names.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let g = GivenOptions::deserialize(d)?;
        Ok(Options {
            board: g.board,
            custom_board: g.custom_board,
            easy_cards: g.easy_cards,
            eight_cards: g.eight_cards,
            forced_trade: g.forced_trade,
            rounds: g.rounds,
            colours: match g.colours {
                None | Some(Value::Null) => None,
                Some(v) => Some(colours_given(&v).map_err(serde::de::Error::custom)?),
            },
            rules_version: g.rules_version,
            custom_runes: g.custom_runes,
            custom_upgrades: g.custom_upgrades,
            rules: rules_given(g.rules).map_err(serde::de::Error::custom)?,
        })
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            board: summer(),
            custom_board: None,
            easy_cards: false,
            eight_cards: false,
            forced_trade: false,
            rounds: None,
            colours: None,
            rules_version: None,
            custom_runes: None,
            custom_upgrades: None,
            rules: rules2018::Rules::Y2014,
        }
    }
}

/// A decision in progress: a copy of the position that each emitted event
/// is applied to at once, and the events so far.
pub struct Ctx<'r> {
    pub s: State,
    pub out: Vec<Emit<Event>>,
    pub rng: &'r mut GameRng,
    /// An upgrade's free action chosen for the step being run (`Free`), and
    /// the War horn's card; taken by the first card the step would lay down.
    pub free: Option<(build::Effect, Option<state::Card>)>,
}

impl<'r> Ctx<'r> {
    /// A new value.
    pub fn new(s: State, rng: &'r mut GameRng) -> Self {
        Ctx { s, out: Vec::new(), rng, free: None }
    }

    /// A public event.
    pub fn emit(&mut self, e: Event) {
        apply(&mut self.s, &e);
        self.out.push(Emit::public(e));
    }

    /// An event only `seat` may see; others see `redacted`.
    pub fn secret(&mut self, e: Event, seats: Vec<Seat>, redacted: Event) {
        apply(&mut self.s, &e);
        self.out.push(Emit::secret(e, seats, redacted));
    }

    /// Gold changes are secret to the clan.
    pub fn gold(&mut self, seat: Seat, delta: i32) {
        if delta != 0 {
            self.secret(
                Event::GoldChanged { seat, delta: Some(delta) },
                vec![seat],
                Event::GoldChanged { seat, delta: None },
            );
        }
    }

    /// Glory gained or lost, in public.
    pub fn glory(&mut self, seat: Seat, delta: i32, reason: &str) {
        if delta != 0 {
            self.emit(Event::GloryChanged { seat, delta, reason: reason.into() });
        }
    }

    /// Replace standing orders, secretly.
    pub fn set_orders(&mut self, seat: Seat, orders: Orders) {
        self.secret(
            Event::OrdersSet { seat, orders: Some(orders) },
            vec![seat],
            Event::OrdersSet { seat, orders: None },
        );
    }

    /// Draw up to `count` runes at random from the pile for `seat`.
    pub fn draw_runes(&mut self, seat: Seat, count: u8) {
        let mut pile = self.s.rune_pile;
        let mut drawn = Vec::new();
        for _ in 0..count {
            let total: u32 = pile.iter().map(|c| *c as u32).sum();
            if total == 0 {
                break;
            }
            let mut x = self.rng.below(total as u64) as u32;
            for k in RuneKind::ALL {
                if x < pile[k.idx()] as u32 {
                    pile[k.idx()] -= 1;
                    drawn.push(k);
                    break;
                }
                x -= pile[k.idx()] as u32;
            }
        }
        if drawn.is_empty() {
            return;
        }
        let n = drawn.len() as u8;
        self.secret(
            Event::RunesDrawn { seat, count: n, runes: Some(drawn) },
            vec![seat],
            Event::RunesDrawn { seat, count: n, runes: None },
        );
    }

    /// Turn the next tile of a pile face up (drawn at random: the pile is shuffled).
    pub fn reveal_tile(&mut self, b: state::Building, level: u8) {
        let ids: Vec<u8> = (0..self.s.tiles.len().min(64) as u8)
            .filter(|&t| {
                self.s.piles & (1u64 << t) != 0 && self.s.tile(t).building == b && self.s.tile(t).level == level
            })
            .collect();
        if ids.is_empty() {
            return;
        }
        let t = ids[self.rng.pick(ids.len())];
        self.emit(Event::TileRevealed { tile: self.s.tile_key(t) });
    }
}

/// A command in a few words, for naming the failing step of a turn.
pub fn describe_command(s: &State, seat: Seat, c: &Command) -> String {
    let area = |a: u8| view::place(s, a);
    let here = |u: state::Unit| s.unit_area(seat, u).map(area).unwrap_or_else(|| "nowhere".into());
    match c {
        Command::Plan { hand } => format!("plan {}", hand.words()),
        Command::SetOrders { .. } => "set standing orders".into(),
        Command::PlayTurn { .. } => "a whole turn".into(),
        Command::Program { hand, steps } => format!("plan {} with a program of {} step(s)", hand.words(), steps.len()),
        Command::EndTurn => "end the turn".into(),
        Command::Exchange { discard, take } => {
            format!("exchange {} and {} for {}", discard[0].name(), discard[1].name(), take.name())
        }
        Command::Move { unit, to } => format!("{} moves to {}", unit.name(), area(*to)),
        Command::Board { unit } => format!("{} boards the Knerrir", unit.name()),
        Command::Disembark { unit } => format!("{} leaves the Knerrir", unit.name()),
        Command::Sail { route, .. } => format!("Knerrir sails {} squares", route.len()),
        Command::Attack { claim: true, .. } => format!("Berserkur attack on {}", here(state::Unit::Berserkur)),
        Command::Attack { claim: false, .. } => {
            format!("Berserkur fights the Berserkur on {}", here(state::Unit::Berserkur))
        }
        Command::Retreat => "Berserkur retreats".into(),
        Command::Rearrange { .. } => "Berserkur rearranges disks".into(),
        Command::Refill { unit } => format!("{} refills", unit.name()),
        Command::Convert => format!("Godi converts {}", here(state::Unit::Godi)),
        Command::Cast { .. } => "Godi casts runes".into(),
        Command::RemoveRune { rune } => format!("Godi removes {} from {}", rune.name(), here(state::Unit::Godi)),
        Command::BuyRunes { unit } => format!("{} buys runes", unit.name()),
        Command::BuyLand => format!("Kaupmadur buys {}", here(state::Unit::Kaupmadur)),
        Command::Trade { .. } => "Kaupmadur trades".into(),
        Command::ForceTrade { seat: v, .. } => format!("Kaupmadur forces a trade with seat {v}"),
        Command::ClaimHarbour => match s.players[seat as usize].ship {
            state::ShipLoc::At(board::SeaNode::Harbour(h)) => format!("Knerrir claims {}", area(h)),
            _ => "Knerrir claims a harbour".into(),
        },
        Command::Free { effect, card, step } => {
            let with = match card {
                Some(c) => format!(" and a {} card", c.name()),
                None => String::new(),
            };
            format!("{} with the {}{with}", describe_command(s, seat, step), planning::free_name(*effect))
        }
    }
}

/// Run one command on the decision's copy.
pub fn run(cx: &mut Ctx, seat: Seat, c: &Command) -> Result<(), RuleError> {
    match c {
        Command::Plan { hand } => planning::plan(cx, seat, *hand),
        Command::SetOrders { orders } => planning::set_orders(cx, seat, orders),
        Command::Program { hand, steps } => program::plan_with_program(cx, seat, *hand, steps),
        Command::PlayTurn { steps } => {
            if cx.s.phase != Phase::Action || cx.s.current != seat {
                runestone_engine::reject!("it is not your turn");
            }
            let mut ended = false;
            for (i, st) in steps.iter().enumerate() {
                if ended {
                    runestone_engine::reject!("step {}: the turn already ended at step {i}", i + 1);
                }
                if matches!(st, Command::PlayTurn { .. }) {
                    runestone_engine::reject!("step {}: a turn cannot contain another turn", i + 1);
                }
                let what = describe_command(&cx.s, seat, st);
                run(cx, seat, st).map_err(|e| RuleError::new(format!("step {} ({what}): {}", i + 1, e.message)))?;
                ended = matches!(st, Command::EndTurn);
            }
            if !ended {
                planning::end_turn(cx, seat)
                    .map_err(|e| RuleError::new(format!("step {} (end the turn): {}", steps.len() + 1, e.message)))?;
            }
            Ok(())
        }
        Command::EndTurn => planning::end_turn(cx, seat),
        Command::Exchange { discard, take } => planning::exchange(cx, seat, *discard, *take),
        Command::Move { unit, to } => actions::move_unit(cx, seat, *unit, *to),
        Command::Board { unit } => actions::knerrir::board(cx, seat, *unit),
        Command::Disembark { unit } => actions::knerrir::disembark(cx, seat, *unit),
        Command::Sail { route, sea_rune } => actions::knerrir::sail(cx, seat, route, *sea_rune),
        Command::Attack { claim, reinforce } => actions::berserkur::attack(cx, seat, *claim, *reinforce),
        Command::Retreat => actions::berserkur::retreat(cx, seat),
        Command::Rearrange { moves } => actions::berserkur::rearrange(cx, seat, moves),
        Command::Refill { unit } => actions::refill(cx, seat, *unit),
        Command::Convert => actions::godi::convert(cx, seat),
        Command::Cast { casts } => actions::godi::cast(cx, seat, casts),
        Command::RemoveRune { rune } => actions::godi::remove_rune(cx, seat, *rune),
        Command::BuyRunes { unit } => actions::godi::buy_runes(cx, seat, *unit),
        Command::BuyLand => actions::kaupmadur::buy_land(cx, seat),
        Command::Trade { deals, refill } => actions::kaupmadur::trade(cx, seat, deals, refill),
        Command::ForceTrade { seat: victim, give } => actions::kaupmadur::force_trade(cx, seat, *victim, give),
        Command::ClaimHarbour => actions::knerrir::claim_harbour(cx, seat),
        Command::Free { effect, card, step } => planning::free(cx, seat, *effect, *card, step),
    }
}

impl Game for Bardagi {
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
            id: "bardagi".into(),
            name: "Bardagi - the claim for gold".into(),
            min_seats: 2,
            max_seats: 5,
            rules_version: RULES_VERSION,
            default_options: serde_json::to_value(Options::default()).expect("JSON"),
            options_help: vec![
                ("board".into(), "\"summer\" (2-5 players) or \"winter\" (the island board, 2-3 players)".into()),
                ("custom_board".into(), "a whole board as TOML text, in the format of the built-in boards".into()),
                ("easy_cards".into(), "the easier variant: choose cards at the start of one's own turn".into()),
                ("eight_cards".into(), "advanced: from round 5 choose up to 8 cards".into()),
                ("forced_trade".into(), "advanced: a Kaupmadur may force trade at other clans' home areas".into()),
                ("rounds".into(), "number of rounds instead of the table (2: 10, 3: 9, 4: 8, 5: 7)".into()),
                (
                    "colours".into(),
                    "each seat's clan colour in seat order, e.g. [\"blue\", \"red\"]; absent: dealt at random".into(),
                ),
                (
                    "rules_version".into(),
                    format!("the rules version to play by, 1 to {RULES_VERSION} (default {RULES_VERSION})"),
                ),
                (
                    "rules".into(),
                    "the rulebook: \"2014\" (the printed rules, default) or \"2018\" (the January 2018 revision; \
                     not balanced on the Summer board: in 300 bot games of 4 players Red won 80% and Blue none, \
                     see RULES-NOTES.md)"
                        .into(),
                ),
            ],
            description: "Viking clans claim islands from the Barbarians by war, conversion and trade.".into(),
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
        if s.phase == Phase::Over || s.phase == Phase::Setup {
            runestone_engine::reject!("the game is not running");
        }
        let mut cx = Ctx::new(s.clone(), rng);
        run(&mut cx, seat, c)?;
        Ok(cx.out)
    }

    fn apply(s: &mut State, e: &Event) {
        apply(s, e)
    }

    fn fits(s: &State, e: &Event) -> Result<(), String> {
        state::fits(s, e)
    }

    fn view(s: &State, viewer: Viewer) -> serde_json::Value {
        view::view_json(s, viewer)
    }

    fn pending(s: &State) -> Vec<Pending> {
        match s.phase {
            Phase::Planning => s
                .players
                .iter()
                .enumerate()
                .map(|(i, p)| Pending {
                    seat: i as Seat,
                    kind: "plan".into(),
                    class: DecisionClass::Plan,
                    prompt: if p.planned {
                        format!(
                            "your cards for round {} are chosen; you may choose again until every clan has chosen",
                            s.round
                        )
                    } else {
                        format!("choose {} of your 24 cards secretly for round {}", s.hand_size, s.round)
                    },
                    submitted: p.planned,
                })
                .collect(),
            Phase::Action => vec![Pending {
                seat: s.current,
                kind: "turn".into(),
                class: DecisionClass::Turn,
                prompt: if s.easy_cards && !s.players[s.current as usize].planned {
                    format!("choose your {} cards, then lay them down and act", s.hand_size)
                } else {
                    "lay down your cards and act; end the turn when done".into()
                },
                submitted: false,
            }],
            Phase::Deciding => s
                .players
                .iter()
                .enumerate()
                .filter(|(_, p)| p.deciding)
                .map(|(i, _)| Pending {
                    seat: i as Seat,
                    kind: "decide".into(),
                    class: DecisionClass::Small,
                    prompt: format!(
                        "the turns of round {} are over: set your orders now (wool or meat, recruits, axes, the \
                         upgrade to build); they are this round's Build and Claim choices",
                        s.round
                    ),
                    submitted: false,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    fn legal(s: &State, seat: Seat) -> Vec<Command> {
        legal::legal(s, seat)
    }

    fn label(s: &State, seat: Seat, c: &Command) -> String {
        legal::label(s, seat, c)
    }

    fn unavailable(s: &State, seat: Seat, legal: &[Command]) -> Vec<runestone_engine::Unavailable> {
        legal::unavailable(s, seat, legal)
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
}

impl Present for Bardagi {
    type View = view::View;

    fn schemas() -> Schemas {
        schemas_of::<Bardagi, view::View>()
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

    fn seat_class(view: &view::View, seat: Seat) -> Option<String> {
        drawing::seat_class(view, seat)
    }

    fn stylesheet() -> &'static str {
        include_str!("forms.css")
    }

    fn rules_page() -> Option<RulesPage> {
        Some(RulesPage { title: "How to play Bardagi here", body: include_str!("../rules.html") })
    }

    fn header(view: &view::View, seats: &[String]) -> Option<TableHeader> {
        Some(table::header(view, seats))
    }

    fn player_boards(view: &view::View, seats: &[String]) -> Vec<PlayerBoard> {
        player_board::boards(view, seats)
    }

    fn round_begun(event: &Event) -> Option<u32> {
        match event {
            Event::RoundBegan { round, .. } => Some(u32::from(*round)),
            _ => None,
        }
    }

    fn templates(view: &view::View, seat: Seat) -> Vec<CommandTemplate> {
        legal::templates(view, seat)
    }

    fn view_text(s: &State, viewer: Viewer, templates_of: Option<Seat>) -> (String, Vec<CommandTemplate>) {
        view::view_text(s, viewer, templates_of)
    }

    fn forms(input: &FormsInput<'_, view::View>) -> Option<Forms> {
        forms::forms(input)
    }

    fn command_of_form(build: &str, posted: &Posted, view: &view::View) -> Option<Result<Value, String>> {
        match build {
            forms::PLAN => Some(forms::plan_command(posted)),
            forms::ORDERS => Some(forms::orders_command(posted, view)),
            _ => None,
        }
    }

    fn order_form(input: &FormsInput<'_, view::View>) -> Vec<String> {
        orders::order_form_with_program(input)
    }

    fn read_orders(
        lines: &[runestone_engine::present::OrderLine],
        input: &FormsInput<'_, view::View>,
    ) -> Option<Result<Value, runestone_engine::present::OrderError>> {
        orders::read_orders_with_program(lines, input)
    }
}

/// Goods as a short list in words.
pub fn goods_words(d: &[i8; 6]) -> String {
    let parts: Vec<String> =
        Good::ALL.iter().filter(|g| d[g.idx()] != 0).map(|g| format!("{} {}", d[g.idx()].abs(), g.name())).collect();
    if parts.is_empty() {
        "nothing".into()
    } else {
        parts.join(", ")
    }
}
