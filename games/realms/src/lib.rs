//! Realms: the historical wargame of realms that sow, harvest, tax, feast,
//! feed their herds, recruit, march, besiege and loot through the seasons,
//! built from its reference sheet (`rules/realms-reference.txt`).
//!
//! Orders are simultaneous and secret: each round (season) every realm
//! gives one set of orders (moves, battle standing orders, looting,
//! construction, trade, sowing, recruitment, festival, slaughter),
//! replaceable until the last realm's arrive; then the round resolves in
//! the sheet's fixed order. Each step's dice are drawn in `decide` and
//! recorded in its event, and `apply` replays the step with them.
//!
//! Modules by sheet section: [`data`] (every table, and the maps), [`setup`]
//! ("GAME SETUP COMPONENTS"), [`season`] (the round's sub-phases and the
//! year's steps), [`moves`] (MOVE), [`battle`] (COMBAT), [`construction`]
//! (REAR - CONSTRUCTION), [`trade`] (REAR - TRADE, SALARIES), [`fishing`]
//! (REAR - FISHING), [`year`] (NEW YEAR to FEEDING), [`control`] (control,
//! FC, encirclement, storage), [`scoring`] (VICTORY), [`view`], [`bot`];
//! [`table`] is the pages' table header.

// Fields are numbered by id and several vectors (the map, the position,
// connection sets) are indexed by it together.
#![allow(clippy::needless_range_loop)]

pub mod battle;
pub mod bot;
pub mod construction;
pub mod control;
pub mod data;
pub mod drawing;
pub mod fishing;
pub mod forms;
pub mod moves;
pub mod orders;
pub mod scoring;
pub mod season;
pub mod setup;
pub mod state;
pub mod table;
pub mod trade;
pub mod view;
pub mod year;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use runestone_engine::{
    reject, DecisionClass, Emit, Game, GameRng, Outcome, Pending, RuleError, RulesetInfo, Seat, Viewer,
};

use runestone_engine::present::{
    schemas_of, Area, Forms, FormsInput, Posted, Present, RulesPage, Schemas, TableHeader,
};
use state::{apply, Step};
pub use state::{Command, Event, Mode, Orders, State};

/// The ruleset.
pub struct Realms;

/// The newest rules version. Each game plays by the version it was created
/// with (recorded in its options and its `Started` event); version 1 games
/// recorded no version. Version 2: a unit may take a settlement's loss,
/// withdrawn herds are fed, herds move within the FC, transport between two
/// ports, retreat to ships at sea, attrition rolls twice for Cavalry and
/// three times for War Elephants, Corsairs attack as an attrition roll, ties
/// are broken by gold and the cost of all stuff on the map. Version 3: the
/// special move's 14 PP must be held; the game ended by its years is won on
/// IMPORTANCE; a fortified garrison's shields are broken once; feeding
/// needs a connection and an encircled settlement eats its own store; the
/// sown grain stays and the yield is placed on it; no transhumance outside
/// the Huns; ships degrade out of location only where they land; very low
/// morale without commanders; "10 units" and "Fleet (4 ships)" count every
/// unit moving together; entering mountains or wetlands stops a unit for
/// ③ and ④; no unit ends the winter without a connection and no land unit
/// stands at sea without room aboard.
pub const RULES_VERSION: u32 = 3;

/// Game options.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// The scenario: "vikings" (Vikings 800 AD), "italia" (Italia 290 BC),
    /// "britannia" (Britannia 410 AD), "taifas" (Taifas 1050 AD), "orient"
    /// (Orient 1550 BC) or "huns" (Huns 373 AD).
    #[serde(default = "vikings")]
    #[schemars(extend("enum" = ["orient", "italia", "huns", "britannia", "vikings", "taifas"]))]
    pub scenario: String,
    /// "fast", "basic" or "original".
    #[serde(default)]
    pub mode: Mode,
    /// Years until the game ends (1 to 10).
    #[serde(default = "five")]
    pub years: u8,
    /// The rules version the game is played by (the newest unless given;
    /// version 1 games recorded no version).
    #[serde(default = "newest")]
    #[schemars(range(min = 1, max = RULES_VERSION))]
    pub rules_version: u32,
}

fn newest() -> u32 {
    RULES_VERSION
}

/// The options as given, before the rules version is settled.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GivenOptions {
    #[serde(default = "vikings")]
    scenario: String,
    #[serde(default)]
    mode: Mode,
    #[serde(default = "five")]
    years: u8,
    #[serde(default)]
    rules_version: Option<u32>,
}

/// The keys a version 1 game recorded, all of them and nothing else.
const V1_KEYS: [&str; 3] = ["mode", "scenario", "years"];

impl<'de> Deserialize<'de> for Options {
    /// Options without `rules_version` are played by the newest rules,
    /// except the complete options a version 1 game recorded (exactly its
    /// three keys): those replay by version 1.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = serde_json::Map::<String, serde_json::Value>::deserialize(d)?;
        let v1 = map.len() == V1_KEYS.len() && V1_KEYS.iter().all(|k| map.contains_key(*k));
        let g = GivenOptions::deserialize(serde_json::Value::Object(map)).map_err(serde::de::Error::custom)?;
        Ok(Options {
            scenario: g.scenario,
            mode: g.mode,
            years: g.years,
            rules_version: g.rules_version.unwrap_or(if v1 { 1 } else { RULES_VERSION }),
        })
    }
}

fn vikings() -> String {
    "vikings".into()
}

/// The help for the scenario option: every playable scenario from the
/// crate's data, with its name and player counts.
fn scenario_help() -> String {
    let each: Vec<String> = data::SCENARIOS
        .iter()
        .map(|id| {
            let m = data::map(id);
            format!("\"{id}\" ({}, 2 to {} players)", m.name, m.max_players())
        })
        .collect();
    format!("the scenario map: {}", each.join(", "))
}
fn five() -> u8 {
    5
}

impl Default for Options {
    fn default() -> Self {
        Options { scenario: vikings(), mode: Mode::Fast, years: five(), rules_version: RULES_VERSION }
    }
}

/// A decision in progress: a copy of the position that each emitted event
/// is applied to at once, and the events so far.
pub struct Ctx<'r> {
    pub s: State,
    pub out: Vec<Emit<Event>>,
    pub rng: &'r mut GameRng,
}

impl<'r> Ctx<'r> {
    pub fn emit(&mut self, e: Event) {
        apply(&mut self.s, &e);
        self.out.push(Emit::public(e));
    }
}

/// Why a realm's orders cannot be taken as given, or Ok. Later sub-phases
/// run on the position the earlier ones made, so they are checked again
/// there and skipped with a line in the report if they no longer hold.
pub fn check_orders(s: &State, seat: Seat, o: &Orders) -> Result<(), RuleError> {
    let n = s.fields.len() as u16;
    let fields = o
        .moves
        .iter()
        .chain(&o.special)
        .chain(&o.retreats)
        .flat_map(|m| [m.from, m.to])
        .chain(o.herds.iter().flat_map(|h| [h.from, h.to]))
        .chain(o.carry.iter().flat_map(|c| [c.from, c.to]))
        .chain(o.loot.iter().copied())
        .chain(o.accelerate.iter().copied())
        .chain(o.build_twice.iter().copied())
        .chain(o.cancel.iter().copied())
        .chain(o.build.iter().map(|b| b.field))
        .chain(o.buy.iter().chain(&o.upgrade).chain(&o.sell).map(|p| p.field))
        .chain(o.sow.iter().copied())
        .chain(o.recruit.iter().copied())
        .chain(o.slaughter.iter().map(|x| x.0));
    for f in fields {
        if f >= n {
            reject!("field {f} is not on the map (fields are numbered 0 to {})", n - 1);
        }
    }
    let total = o.moves.len()
        + o.special.len()
        + o.retreats.len()
        + o.herds.len()
        + o.carry.len()
        + o.loot.len()
        + o.build.len()
        + o.trade.len()
        + o.buy.len()
        + o.upgrade.len()
        + o.sell.len()
        + o.sow.len()
        + o.recruit.len()
        + o.slaughter.len();
    if total > 400 {
        reject!("at most 400 orders in one round; {total} were given");
    }
    if o.festival > 3 {
        reject!("a festival is small (1), double (2) or triple (3)");
    }
    if o.commanders as usize >= data::tables().command.len() {
        reject!("the levels of command are 1 (bad) to 4 (brilliant)");
    }
    if o.battle.escape_below > 100 {
        reject!("escape_below is a percentage from 0 to 100");
    }
    for (i, m) in o.moves.iter().enumerate() {
        if let Err(e) = moves::check(s, seat, m, Step::Units, false) {
            reject!("move {}: {e}", i + 1);
        }
    }
    let mut seen = Vec::new();
    for m in &o.moves {
        let k = (m.from, m.unit);
        let used: u32 = o.moves.iter().filter(|x| (x.from, x.unit) == k).map(|x| x.count as u32).sum();
        if !seen.contains(&k) && used as usize > control::kind_of(s, m.from, seat, m.unit) {
            reject!("more {} move from {} than stand there", m.unit.name(), s.map().name_of(m.from));
        }
        seen.push(k);
    }
    for (i, m) in o.special.iter().chain(&o.retreats).enumerate() {
        if m.count == 0 || m.from == m.to {
            reject!("special move or retreat {}: it needs units and another field", i + 1);
        }
    }
    Ok(())
}

/// The map drawn from the typed view, the board in words, the realms'
/// colours and the season's order form.
impl Present for Realms {
    type View = view::View;

    fn schemas() -> Schemas {
        schemas_of::<Realms, view::View>()
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
        drawing::stylesheet()
    }

    fn rules_page() -> Option<RulesPage> {
        Some(RulesPage { title: "How to play Realms here", body: include_str!("../rules.html") })
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
        (build == forms::ORDERS).then(|| forms::orders_command(posted, view))
    }

    fn order_form(input: &FormsInput<'_, view::View>) -> Vec<String> {
        if input.view.over.is_some() {
            return Vec::new();
        }
        orders::order_form(input.view, input.seat)
    }

    fn read_orders(
        lines: &[runestone_engine::present::OrderLine],
        input: &FormsInput<'_, view::View>,
    ) -> Option<Result<serde_json::Value, runestone_engine::present::OrderError>> {
        orders::read_orders(lines, input.view, input.seat)
    }
}

impl Game for Realms {
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
            id: "realms".into(),
            name: "Realms".into(),
            min_seats: 2,
            max_seats: 12,
            rules_version: RULES_VERSION,
            default_options: serde_json::to_value(Options::default()).unwrap_or_default(),
            options_help: vec![
                ("scenario".into(), scenario_help()),
                ("mode".into(), "\"fast\", \"basic\" or \"original\" (the sheet's valid-from markers)".into()),
                ("years".into(), "years until the game ends and is scored, 1 to 10".into()),
                (
                    "rules_version".into(),
                    format!("the rules version to play by, 1 to {RULES_VERSION} (default {RULES_VERSION})"),
                ),
            ],
            description: "Realms sow, harvest, tax, feast, recruit, march, besiege and loot through the seasons; \
                          one set of secret orders per realm per season."
                .into(),
        }
    }

    fn setup(o: &Options, seats: u8, _rules_version: u32, _rng: &mut GameRng) -> Result<Vec<Emit<Event>>, RuleError> {
        if !data::SCENARIOS.contains(&o.scenario.as_str()) {
            reject!("there is no scenario {:?}; choose one of: {}", o.scenario, data::SCENARIOS.join(", "));
        }
        if !(1..=10).contains(&o.years) {
            reject!("a game lasts 1 to 10 years; {} were asked", o.years);
        }
        if !(2..=12).contains(&seats) {
            reject!("Realms is played by 2 to 12 players");
        }
        let map = data::map(&o.scenario);
        if seats > map.max_players() {
            reject!("{} is played by 2 to {} players", map.name, map.max_players());
        }
        if !(1..=RULES_VERSION).contains(&o.rules_version) {
            reject!("rules version {} is unknown; games are played by versions 1 to {RULES_VERSION}", o.rules_version);
        }
        if o.scenario != "vikings" && o.rules_version < 3 {
            reject!("{} is played by rules version 3 or later", map.name);
        }
        Ok(vec![Emit::public(Event::Started {
            scenario: o.scenario.clone(),
            mode: o.mode,
            years: o.years,
            players: seats,
            rules: o.rules_version,
        })])
    }

    fn decide(s: &State, seat: Seat, c: &Command, rng: &mut GameRng) -> Result<Vec<Emit<Event>>, RuleError> {
        if s.over.is_some() {
            reject!("the game is over");
        }
        if seat as usize >= s.realms.len() || s.realms[seat as usize].out {
            reject!("your realm is out of the game");
        }
        let Command::Orders { orders } = c;
        check_orders(s, seat, orders)?;
        let mut cx = Ctx { s: s.clone(), out: Vec::new(), rng };
        let e = Event::OrdersGiven { seat, orders: Some(orders.clone()) };
        apply(&mut cx.s, &e);
        cx.out.push(Emit::secret(e, vec![seat], Event::OrdersGiven { seat, orders: None }));
        if cx.s.waiting().is_empty() {
            season::resolve_round(&mut cx);
        }
        Ok(cx.out)
    }

    fn apply(s: &mut State, e: &Event) {
        apply(s, e)
    }

    fn fits(s: &State, e: &Event) -> Result<(), String> {
        state::fits(s, e)
    }

    fn view(s: &State, viewer: Viewer) -> serde_json::Value {
        serde_json::to_value(view::view(s, viewer)).unwrap_or_default()
    }

    fn pending(s: &State) -> Vec<Pending> {
        if s.over.is_some() || s.fields.is_empty() {
            return Vec::new();
        }
        (0..s.realms.len() as Seat)
            .filter(|&i| !s.realms[i as usize].out)
            .map(|i| {
                let done = s.realms[i as usize].orders.is_some();
                Pending {
                    seat: i,
                    kind: "orders".into(),
                    class: DecisionClass::Plan,
                    prompt: if done {
                        format!(
                            "your orders for {} of year {} are in; you may replace them until every realm has given its own",
                            s.season.name(),
                            s.year
                        )
                    } else {
                        format!("give your secret orders for {} of year {}", s.season.name(), s.year)
                    },
                    submitted: done,
                }
            })
            .collect()
    }

    fn legal(s: &State, seat: Seat) -> Vec<Command> {
        if !Self::pending(s).iter().any(|p| p.seat == seat) {
            return Vec::new();
        }
        let mut v = vec![Command::Orders { orders: bot::orders(s, seat) }];
        let march = Command::Orders { orders: bot::plan(s, seat, true) };
        if march != v[0] {
            v.push(march);
        }
        let bold = Command::Orders { orders: bot::bold(s, seat) };
        if !v.contains(&bold) {
            v.push(bold);
        }
        let pass = Command::Orders { orders: Orders::default() };
        if v[0] != pass {
            v.push(pass);
        }
        v
    }

    fn fallback(s: &State, seat: Seat) -> Option<Command> {
        Self::pending(s).iter().any(|p| p.seat == seat).then(|| Command::Orders { orders: bot::orders(s, seat) })
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

    fn label(s: &State, _seat: Seat, c: &Command) -> String {
        let Command::Orders { orders } = c;
        if *orders == Orders::default() {
            return format!("no orders for {}", s.season.name());
        }
        format!(
            "orders for {}: {} moves, {} loots, {} builds, {} purchases",
            s.season.name(),
            orders.moves.len() + orders.special.len() + orders.retreats.len(),
            orders.loot.len(),
            orders.build.len(),
            orders.buy.len() + orders.upgrade.len()
        )
    }
}
