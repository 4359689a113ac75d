//! The Road to Thingvellir (Board Version Rules V. 1): 2–6 gothar climb the
//! four Laws at the Althing, settle Districts, raid, foster, pledge Bondi,
//! feast and feud, first to 22 Wordfame or last one left with a farm.
//!
//! Files follow the rulebook: `setup.rs` (Setup), `council.rs` (I. The Law
//! Council; The Second Round and Beyond), `actions.rs` (Actions), `feud.rs`
//! (Feud), `seasons.rs` (II. Hunting for Sheep; III. The Long Dark Winter;
//! Objective), `data.rs` (Components, designed), `view.rs`, `table.rs` (the
//! table header), `bot.rs`.
//!
//! Every accepted command is recorded as it was given (`Event::Acted`); its
//! consequences follow from the rules, which never draw: the orlog's order is
//! shuffled at setup and reshuffled from the Doom by `decide`, both recorded
//! in events only the referee sees.

pub mod actions;
pub mod bot;
pub mod council;
pub mod data;
pub mod drawing;
pub mod feud;
pub mod forms;
pub mod orders;
pub mod program;
pub mod rules;
pub mod seasons;
pub mod setup;
pub mod state;
pub mod table;
pub mod view;

#[cfg(test)]
mod tests;

use runestone_engine::present::{
    schemas_of, Area, Forms, FormsInput, Posted, Present, RulesPage, Schemas, TableHeader,
};
use runestone_engine::{DecisionClass, Emit, Game, GameRng, Outcome, Pending, RuleError, RulesetInfo, Seat, Viewer};
use serde::{Deserialize, Serialize};

use state::{Command, Event, Phase, State};

/// The newest rules version. 2: each round begins with every seat's
/// season program given at once, and standing answers decide the
/// decisions asked outside a seat's own actions (`program.rs`). 3: the
/// rulebook's words where versions 1 and 2 read it otherwise (one feud per
/// edge a Ride reaches, a band moves once, a mismatched gift set is no set,
/// murder on as many edges as one likes, the first to 22 clockwise from the
/// Lawspeaker in winter, no Stead token made from nothing). 4: Thingvellir
/// on the map (`data/iceland-v4.toml`, 90 Districts): each gothi begins
/// with one Thingman on a side of Thingvellir and no District, sues with
/// the Thingmen on its sides, and the Home Stead cards are dealt at random.
pub const RULES_VERSION: u32 = 4;

/// The game's options.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    /// Feuds by sealed commitments (one input per side) instead of the faithful exchange.
    pub sealed_feuds: bool,
    /// The designed Advanced Outlawry rules.
    pub advanced_outlawry: bool,
    /// Designed: "Districts produce goods" in Hunting for Sheep for a gothi
    /// without a sworn Bondi of the colour of the action taken.
    pub district_goods: bool,
    /// Designed: the 4 Arson tokens; Feast B may burn a rival's District.
    pub arson: bool,
    /// The first Lawspeaker; `None` picks one at random.
    pub lawspeaker: Option<Seat>,
    /// Play by an older rules version (1: every decision asked as it
    /// comes, without season programs or standing answers; 2: as 3 but
    /// with the readings version 3 corrects; 3: as 4 on the first map of 18
    /// Districts, a home District settled at setup and one Thingman fixed
    /// on Thingvellir); `None`: the newest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules_version: Option<u32>,
}

pub struct Thingvellir;

/// The board (the map of Iceland, the Laws, the tracks) and a form for
/// every kind of decision, drawn from a seat's typed view.
impl Present for Thingvellir {
    type View = view::View;

    fn schemas() -> Schemas {
        schemas_of::<Thingvellir, view::View>()
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
        Some(RulesPage { title: "How to play The Road to Thingvellir here", body: include_str!("../rules.html") })
    }

    fn header(view: &view::View, seats: &[String]) -> Option<TableHeader> {
        Some(table::header(view, seats))
    }

    fn round_begun(event: &Event) -> Option<u32> {
        table::round_begun(event)
    }

    fn forms(input: &FormsInput<'_, view::View>) -> Option<Forms> {
        forms::forms(input)
    }

    fn command_of_form(build: &str, posted: &Posted, view: &view::View) -> Option<Result<serde_json::Value, String>> {
        forms::command_of_form(build, posted, view)
    }

    fn order_form(input: &FormsInput<'_, view::View>) -> Vec<String> {
        orders::order_form(input)
    }

    fn read_orders(
        lines: &[runestone_engine::present::OrderLine],
        input: &FormsInput<'_, view::View>,
    ) -> Option<Result<serde_json::Value, runestone_engine::present::OrderError>> {
        orders::read_orders(lines, input)
    }
}

impl Game for Thingvellir {
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
            id: "thingvellir".into(),
            name: "The Road to Thingvellir".into(),
            min_seats: 2,
            max_seats: 6,
            rules_version: RULES_VERSION,
            default_options: serde_json::to_value(Options::default()).expect("options serialise"),
            options_help: vec![
                (
                    "sealed_feuds".into(),
                    "Feuds by sealed commitments: each side commits its Goods in secret, revealed together".into(),
                ),
                (
                    "advanced_outlawry".into(),
                    "Advanced Outlawry: murderers pay a life-ring fee in winter or suffer full outlawry".into(),
                ),
                (
                    "district_goods".into(),
                    "Districts produce goods: in Hunting for Sheep a gothi without a sworn Bondi of the action's colour takes one Good per District instead of the Home Stead Bondi's action".into(),
                ),
                (
                    "arson".into(),
                    "Arson: Feast B may burn a rival's District where you have a Thingman (a Bondi discarded, the District loses 1, the burner outlawed), with 4 Arson tokens a round".into(),
                ),
                (
                    "rules_version".into(),
                    "Rules version: 4 (the newest) puts Thingvellir on a map of 90 Districts, where each gothi begins with a Thingman on its side and no District; 3 plays the rulebook's words where 1 and 2 read it otherwise, on the first map of 18 Districts; 2 to 4 give each round's actions in one program per seat; 1 asks every decision as it comes".into(),
                ),
                (
                    "lawspeaker".into(),
                    "The first Lawspeaker's seat (the wisest and most learned); empty for a random one".into(),
                ),
            ],
            description:
                "Laws, lawsuits and feuds at the Althing: first to 22 Wordfame or last one with a farm in Iceland"
                    .into(),
        }
    }

    fn setup(
        options: &Options,
        seats: u8,
        rules_version: u32,
        rng: &mut GameRng,
    ) -> Result<Vec<Emit<Event>>, RuleError> {
        setup::setup(options, seats, rules_version, rng)
    }

    fn rules_version_of(options: &Options) -> u32 {
        options.rules_version.unwrap_or(RULES_VERSION)
    }

    fn decide(state: &State, seat: Seat, command: &Command, rng: &mut GameRng) -> Result<Vec<Emit<Event>>, RuleError> {
        rules::decide(state, seat, command, rng)
    }

    fn apply(state: &mut State, event: &Event) {
        rules::apply(state, event)
    }

    fn fits(state: &State, event: &Event) -> Result<(), String> {
        rules::fits(state, event)
    }

    fn view(state: &State, viewer: Viewer) -> serde_json::Value {
        serde_json::to_value(view::view(state, viewer)).expect("the view serialises")
    }

    fn pending(state: &State) -> Vec<Pending> {
        rules::pending(state)
    }

    fn legal(state: &State, seat: Seat) -> Vec<Command> {
        bot::legal(state, seat)
    }

    fn standing_order(state: &State, seat: Seat, command: &Command) -> bool {
        rules::standing(command) && state.players.get(seat as usize).is_some_and(|p| !p.out)
    }

    fn fallback(state: &State, seat: Seat) -> Option<Command> {
        bot::fallback(state, seat)
    }

    fn outcome(state: &State) -> Option<Outcome> {
        Self::outcome_named(state, &[])
    }

    fn outcome_named(state: &State, names: &[String]) -> Option<Outcome> {
        if state.phase != Phase::Over {
            return None;
        }
        let ranking = seasons::ranking(state);
        let winner = ranking[0];
        let how = if state.players.iter().any(|p| p.wordfame >= seasons::FAME_TO_WIN) {
            format!("wins with {} Wordfame", state.players[winner as usize].wordfame)
        } else {
            format!("wins as the last with a farm in Iceland ({} Wordfame)", state.players[winner as usize].wordfame)
        };
        let who = names.get(winner as usize).cloned().unwrap_or_else(|| view::gothi(winner));
        Some(Outcome {
            scores: state.players.iter().map(|p| p.wordfame as i64).collect(),
            ranking,
            winners: vec![winner],
            summary: format!("{who} {how} after {} rounds", state.round),
        })
    }

    fn describe(state: &State, event: &Event, names: &[String]) -> String {
        let text = view::describe(state, event, names);
        let mut after = state.clone();
        rules::apply(&mut after, event);
        match view::fame_words(state, &after, event, names) {
            fame if fame.is_empty() => text,
            fame => format!("{text}. {fame}"),
        }
    }

    fn label(state: &State, seat: Seat, command: &Command) -> String {
        view::label(state, seat, command)
    }

    fn label_named(state: &State, seat: Seat, command: &Command, names: &[String]) -> String {
        view::label_named(state, seat, command, names)
    }
}

/// The decision class of each kind of decision.
pub fn class_of(kind: &str) -> DecisionClass {
    match kind {
        "propose" | "resolve" => DecisionClass::Turn,
        "season" => DecisionClass::Plan,
        _ => DecisionClass::Small,
    }
}
