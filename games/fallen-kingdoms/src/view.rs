//! What a viewer may see (the typed view), and events and commands told in words.
//!
//! Hidden: the god cards dealt and chosen until the reveal (3.2), the order
//! of the face-down knowledge and building stacks (3.5, 3.6), standing
//! defence orders, and every player's glory under hidden scoring (8.1)
//! until the game ends.

use serde::{Deserialize, Serialize};

use runestone_engine::{Seat, Viewer};

use crate::board::Board;
use crate::data::data;
use crate::state::{Command, Defence, Event, InvasionOrder, Phase, State, Step};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CityView {
    pub name: String,
    pub owner: Option<Seat>,
    pub units: u8,
    pub building: Option<String>,
    pub temple: Option<Seat>,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlayerView {
    pub god: Option<String>,
    /// The god cards dealt: their own seat only, until the reveal.
    pub dealt: Option<Vec<String>>,
    pub god_chosen: bool,
    pub intimidation: Option<u32>,
    pub tracks: [u8; 3],
    pub glory: Option<i32>,
    pub victories: u8,
    pub rumors: Vec<u8>,
    pub knowledge: Vec<String>,
    pub sheet: Vec<String>,
    /// The building tiles on the kingdom sheet (tile numbers, same order as `sheet`).
    pub sheet_tiles: Vec<u8>,
    pub owed: [u8; 3],
    pub units_on_board: u8,
    pub cities: usize,
    pub temple: Option<u8>,
    pub invader: bool,
    pub blockers: Vec<u8>,
    pub defence: Option<Defence>,
    /// Their own seat only: the production their cities, buildings and
    /// knowledge give now (what a program of the coming turn is written from).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub production: Option<Production>,
}

/// A kingdom's production as the map stands: the fixed points per track
/// (unit, building, knowledge) and the free points of cities and ports.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Production {
    pub fixed: [u8; 3],
    pub free: u8,
}

/// The battle under way, while it waits for a decision no standing order covers.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BattleView {
    pub city: u8,
    pub attacker: Seat,
    pub defender: Seat,
    /// Attacking units left on the roads, and defending units left in the city.
    pub attackers: u8,
    pub defenders: u8,
    /// Who is asked, and what.
    pub asked: Seat,
    pub question: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct View {
    pub phase: Phase,
    pub turn: u32,
    pub first: Seat,
    pub current: Seat,
    pub step: Step,
    pub board: Board,
    pub cities: Vec<CityView>,
    pub players: Vec<PlayerView>,
    pub knowledge_shown: Vec<String>,
    /// The face-up knowledge cards' numbers, in the order of `knowledge_shown`.
    #[serde(default)]
    pub knowledge_cards: Vec<u8>,
    pub knowledge_left: u8,
    pub public_knowledge: Vec<String>,
    pub buildings_shown: Vec<String>,
    /// The face-up building tiles' numbers, in the order of `buildings_shown`.
    #[serde(default)]
    pub building_tiles: Vec<u8>,
    pub buildings_left: u8,
    /// The rumor deck shows only its top card (3.7).
    pub rumor_top: Option<u8>,
    pub rumors_left: usize,
    pub trophies_depleted: u8,
    pub invasion_order: Vec<Seat>,
    pub winners: Vec<Seat>,
    /// The player phase's production (4.2-4.4) of the player whose turn it
    /// is: the fixed points per track (unit, building, knowledge) and the
    /// free points of cities and ports to spend.
    pub fixed_points: [u8; 3],
    pub free_points: u8,
    /// Cities an invader may take per invasion path (7.2.3; 8.3's option).
    pub cities_per_path: u8,
    /// A battle waiting for an answer.
    #[serde(default)]
    pub battle: Option<BattleView>,
}

pub fn view(s: &State, viewer: Viewer) -> View {
    let d = data();
    let revealed = !matches!(s.phase, Phase::Setup | Phase::ChooseGods);
    let me = |k: usize| matches!(viewer, Viewer::Referee) || viewer == Viewer::Seat(k as Seat);
    let god_name = |g: u8| d.gods[g as usize].name.clone();
    let production = if s.phase == Phase::Players && (s.current as usize) < s.players.len() {
        crate::turn::fixed_points(s, s.current)
    } else {
        ([0; 3], 0)
    };
    View {
        phase: s.phase,
        turn: s.turn,
        first: s.first,
        current: s.current,
        step: s.step,
        board: s.board.clone(),
        cities: s
            .cities
            .iter()
            .enumerate()
            .map(|(k, c)| CityView {
                name: s.city_name(k as u8),
                owner: c.owner,
                units: c.units,
                building: c.building.map(|b| d.buildings[b as usize].name().to_string()),
                temple: c.temple,
            })
            .collect(),
        players: s
            .players
            .iter()
            .enumerate()
            .map(|(k, p)| PlayerView {
                god: if revealed {
                    p.god.map(god_name)
                } else if me(k) {
                    p.chosen.map(god_name)
                } else {
                    None
                },
                dealt: if me(k) && !revealed {
                    p.dealt.as_ref().map(|v| v.iter().map(|&g| god_name(g)).collect())
                } else {
                    None
                },
                god_chosen: p.has_chosen,
                intimidation: revealed.then(|| s.intimidation(k as Seat)),
                tracks: p.tracks,
                glory: (!s.rules.hidden_scoring || me(k) || s.phase == Phase::Over).then_some(p.glory),
                victories: p.victories,
                rumors: p.rumors.iter().map(|&r| d.rumors[r as usize]).collect(),
                knowledge: p.knowledge.iter().map(|&c| d.knowledge[c as usize].name.clone()).collect(),
                sheet: p.sheet.iter().map(|&b| d.buildings[b as usize].name().to_string()).collect(),
                sheet_tiles: p.sheet.clone(),
                owed: p.owed,
                units_on_board: s.on_board(k as Seat),
                cities: s.controlled(k as Seat).len(),
                temple: s.temple_of(k as Seat),
                invader: p.invader,
                blockers: p.blockers.clone(),
                defence: me(k).then(|| p.defence.clone()),
                production: (me(k) && !matches!(viewer, Viewer::Referee) && s.phase != Phase::Over).then(|| {
                    let (fixed, free) = crate::turn::fixed_points(s, k as Seat);
                    Production { fixed, free }
                }),
            })
            .collect(),
        knowledge_shown: s.knowledge_shown.iter().map(|&c| d.knowledge[c as usize].name.clone()).collect(),
        knowledge_cards: s.knowledge_shown.clone(),
        knowledge_left: s.knowledge_left,
        public_knowledge: s.public_knowledge.iter().map(|&c| d.knowledge[c as usize].name.clone()).collect(),
        buildings_shown: s.building_shown.iter().map(|&b| d.buildings[b as usize].name().to_string()).collect(),
        building_tiles: s.building_shown.clone(),
        buildings_left: s.building_left,
        rumor_top: s.rumor_deck.first().map(|&r| d.rumors[r as usize]),
        rumors_left: s.rumor_deck.len(),
        trophies_depleted: s.depleted(),
        invasion_order: s.invasion.as_ref().map(|i| i.order.clone()).unwrap_or_default(),
        winners: s.winners.clone(),
        fixed_points: production.0,
        free_points: production.1,
        cities_per_path: s.rules.cities_per_path,
        battle: match (&s.asked, &s.battle) {
            (Some(a), Some(b)) => Some(BattleView {
                city: b.city,
                attacker: b.attacker,
                defender: b.defender,
                attackers: b.units,
                defenders: s.cities[b.city as usize].units,
                asked: a.seat,
                question: crate::battle::question(s, a),
            }),
            _ => None,
        },
    }
}

fn who(names: &[String], seat: Seat) -> String {
    names.get(seat as usize).cloned().unwrap_or_else(|| format!("seat {}", seat + 1))
}

/// "1 unit", "3 units".
fn count(n: impl Into<u64>, one: &str) -> String {
    let n = n.into();
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

fn dice(d: &[u8]) -> String {
    d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("-")
}

/// One event in words.
pub fn describe(s: &State, e: &Event, names: &[String]) -> String {
    let d = data();
    let w = |k: Seat| who(names, k);
    let c = |x: u8| s.city_name(x);
    match e {
        Event::Begun { seats, board, .. } => {
            format!("A game of Fallen Kingdoms for {seats} players on {} map tiles", board.tiles.len())
        }
        Event::StacksShuffled { knowledge_len, buildings_len, .. } => {
            format!("The knowledge stack ({knowledge_len} cards) and building stack ({buildings_len} tiles) are shuffled face down")
        }
        Event::RumorDeck { cards, left } => match (left, cards.first()) {
            (Some(n), Some(&top)) => format!(
                "The rumor deck of {n} cards is sorted, lowest on top; only its top card shows, worth {}",
                d.rumors[top as usize]
            ),
            _ => format!("The rumor deck of {} cards is sorted, lowest on top", cards.len()),
        },
        Event::KnowledgeShown { card } => format!("{} is turned face up", d.knowledge[*card as usize].name),
        Event::BuildingShown { tile } => format!("A {} is turned face up", d.buildings[*tile as usize].name()),
        Event::GodsDealt { seat, gods: Some(g) } => format!(
            "{} is dealt {}",
            w(*seat),
            g.iter().map(|&x| d.gods[x as usize].name.clone()).collect::<Vec<_>>().join(" and ")
        ),
        Event::GodsDealt { seat, .. } => format!("{} is dealt god cards", w(*seat)),
        Event::GodChosen { seat, god: Some(g) } => format!("{} chooses {}", w(*seat), d.gods[*g as usize].name),
        Event::GodChosen { seat, .. } => format!("{} has chosen a god", w(*seat)),
        Event::GodsRevealed { gods, first } => format!(
            "The gods are revealed: {}; {} takes the first player card",
            gods.iter()
                .enumerate()
                .map(|(k, &g)| format!("{} is {}", w(k as Seat), d.gods[g as usize].name))
                .collect::<Vec<_>>()
                .join(", "),
            w(*first)
        ),
        Event::GroupPlaced { seat, city, temple } => format!(
            "{} places 3 units{} in {}",
            w(*seat),
            if *temple { " and their temple" } else { "" },
            c(*city)
        ),
        Event::TurnBegan { seat, turn } => format!("Turn {turn}: {} plays", w(*seat)),
        Event::SetupGiven { seat, places: Some(v) } => {
            format!("{} gives {} starting cities to take in turn", w(*seat), v.len())
        }
        Event::SetupGiven { seat, places: None } => format!("{} gives their starting cities, in secret", w(*seat)),
        Event::ProgramsAsked { turn } => {
            format!("Turn {turn}: every player gives the program of their turn, or chooses to play it by hand")
        }
        Event::ProgramGiven { seat, steps: Some(v), invasion } if v.is_empty() => format!(
            "{} will play the turn by hand; at the invasion: {}",
            w(*seat),
            invasion.as_ref().map_or_else(|| "ask".into(), |o| invasion_words(s, *seat, o))
        ),
        Event::ProgramGiven { seat, steps: Some(v), invasion } => format!(
            "{} gives a program of {} steps: {}; at the invasion: {}",
            w(*seat),
            v.len(),
            v.iter().map(|p| label(s, *seat, &p.step)).collect::<Vec<_>>().join(", "),
            invasion.as_ref().map_or_else(|| "ask".into(), |o| invasion_words(s, *seat, o))
        ),
        Event::ProgramGiven { seat, steps: None, .. } => format!("{} gives their program, in secret", w(*seat)),
        Event::ProgramStarted { seat, steps } => {
            format!("{}'s program runs ({steps} step{})", w(*seat), if *steps == 1 { "" } else { "s" })
        }
        Event::ProgramStep { seat, step, text, .. } => format!("{}'s program, step {step}: {text}", w(*seat)),
        Event::StepReached { step } => match step {
            Step::God => "Next: the god's power".to_string(),
            Step::Produce => "Next: production".to_string(),
            Step::Take => "Next: taking the cards produced".to_string(),
            Step::Place => "Next: placing what was produced".to_string(),
            Step::Move => "Next: movement and attacks".to_string(),
        },
        Event::GodPower { seat, god, target } => format!(
            "{} uses the power of {}{}",
            w(*seat),
            d.gods[*god as usize].name,
            target.map(|t| format!(" on {}", c(t))).unwrap_or_default()
        ),
        Event::UnitsKilled { city, units } => format!("{} die in {}", count(*units, "unit"), c(*city)),
        Event::TempleDestroyed { city } => format!("The temple in {} is destroyed", c(*city)),
        Event::TrackPoints { seat, track, points } => {
            format!("{} adds {points} points to the {} track", w(*seat), ["unit", "building", "knowledge"][*track as usize])
        }
        Event::Produced { seat, added, owed, .. } => format!(
            "{} adds {} to the unit track, {} to the building track and {} to the knowledge track, and produces {}, {} and {}",
            w(*seat),
            count(added[0], "point"),
            added[1],
            added[2],
            count(owed[0], "unit"),
            count(owed[1], "building"),
            count(owed[2], "knowledge card")
        ),
        Event::Glory { seat, delta: Some(g), reason } => format!("{} {} {} glory ({reason})", w(*seat), if *g >= 0 { "gains" } else { "loses" }, g.abs()),
        Event::Glory { seat, reason, .. } => format!("{} scores ({reason})", w(*seat)),
        Event::KnowledgeTaken { seat, card } => format!("{} develops {}", w(*seat), d.knowledge[*card as usize].name),
        Event::BuildingTaken { seat, tile } => format!("{} takes a {}", w(*seat), d.buildings[*tile as usize].name()),
        Event::UnitPlaced { seat, city } => format!("{} places a unit in {}", w(*seat), c(*city)),
        Event::BuildingPlaced { seat, tile, city } => {
            format!("{} builds a {} in {}", w(*seat), d.buildings[*tile as usize].name(), c(*city))
        }
        Event::Moved { seat, from, to, units } => {
            format!("{} moves {} from {} to {}", w(*seat), count(*units, "unit"), c(*from), c(*to))
        }
        Event::BattleBegan { city, attacker, defender, from, defenders } => format!(
            "{} attacks {} of {} with {} against {defenders}",
            w(*attacker),
            c(*city),
            w(*defender),
            count(from.iter().map(|x| x.1 as u32).sum::<u32>(), "unit")
        ),
        Event::Rolled { seat, dice: dd, hits, need } => {
            format!("{} rolls {} ({need}+ hits): {}", w(*seat), dice(dd), count(*hits, "hit"))
        }
        Event::Casualties { seat, units, .. } => format!("{} loses {}", w(*seat), count(*units, "unit")),
        Event::Intimidated { seat, to, .. } => format!("Intimidated, a unit of {} flees to {}", w(*seat), c(*to)),
        Event::Retreated { seat, to, .. } => format!(
            "{} retreats to {}",
            w(*seat),
            to.iter().map(|(x, n)| format!("{} ({n})", c(*x))).collect::<Vec<_>>().join(", ")
        ),
        Event::Exhausted { city } => format!("Neither side hits: the battle for {} ends in exhaustion", c(*city)),
        Event::BattleEnded { city, won: true } => format!("{} is captured", c(*city)),
        Event::BattleEnded { city, won: false } => format!("{} holds", c(*city)),
        Event::Victory { seat, victories } => {
            let said = if *victories == 1 { "1 victory".to_string() } else { format!("{victories} victories") };
            format!("{} has {said} on the track", w(*seat))
        }
        Event::RumorDrawn { seat, card } => format!("{} draws a rumor card worth {}", w(*seat), d.rumors[*card as usize]),
        Event::Rampaged { seat, from, to, dice: dd, hits, lost } => format!(
            "{} rampages from {} into {}: {} gives {}{}",
            w(*seat),
            c(*from),
            c(*to),
            dice(dd),
            count(*hits, "hit"),
            if *lost > 0 { ", and the rampager loses a unit" } else { "" }
        ),
        Event::KingdomFell { seat, by, .. } => format!(
            "The kingdom of {} falls{}",
            w(*seat),
            by.map(|b| format!(" to {}", w(b))).unwrap_or_default()
        ),
        Event::TurnEnded { seat } => format!("{} ends their turn", w(*seat)),
        Event::RoundEnded { turn, depleted, .. } => format!("Turn {turn} is over; {depleted} trophy types are depleted"),
        Event::RumorsGiven { from, to, cards } => match to {
            Some(t) => format!("{} gives {} rumor cards to {}", w(*from), cards.len(), w(*t)),
            None => format!("{} discards {} rumor cards", w(*from), cards.len()),
        },
        Event::GameEnded { winners } => format!(
            "The game is over: {} {}",
            winners.iter().map(|&k| w(k)).collect::<Vec<_>>().join(" and "),
            if winners.len() > 1 { "share the victory" } else { "wins" }
        ),
        Event::InvasionBegan { order } => {
            format!("Invasion priority: {}", order.iter().map(|&k| w(k)).collect::<Vec<_>>().join(", "))
        }
        Event::InvaderCardDiscarded { seat } => format!("{} invaded last turn and discards the invader card", w(*seat)),
        Event::InvaderCardTaken { seat } => format!("{} invades", w(*seat)),
        Event::Surrendered { seat, to, removed, .. } => format!(
            "{} surrenders their kingdom{}{}",
            w(*seat),
            to.map(|t| format!(" to {}", w(t))).unwrap_or_default(),
            match removed.iter().map(|r| r.1 as u32).sum::<u32>() {
                0 => String::new(),
                n => format!(", who takes {n} units off their own cities to replace them"),
            }
        ),
        Event::PathBlocked { seat, path } => format!("{} invades by arrow {path}", w(*seat)),
        Event::PathStopped { seat, path, city, reason } => {
            format!("{}'s invasion by arrow {path} goes no further than {}: {reason}", w(*seat), s.city_name(*city))
        }
        Event::Invaded { seat, city, dice: dd, killed, casualties, placed, .. } => {
            if dd.is_empty() {
                format!("{} takes the empty city {} with {placed} units", w(*seat), c(*city))
            } else {
                format!(
                    "{} invades {}: {} kills {killed}, {casualties} invaders fall, {placed} units move in",
                    w(*seat),
                    c(*city),
                    dice(dd)
                )
            }
        }
        Event::ReserveSpread { seat, .. } => format!("{} spreads their reserve over their cities", w(*seat)),
        Event::TemplePlaced { seat, city } => format!("{} raises their temple in {}", w(*seat), c(*city)),
        Event::InvasionPassed { seat } => format!("{} does not invade", w(*seat)),
        Event::InvasionEnded { seat } => format!("{} ends the invasion", w(*seat)),
        Event::FirstPlayer { seat } => format!("{} takes the first player card", w(*seat)),
        Event::DefenceSet { seat, .. } => format!("{} sets standing defence orders", w(*seat)),
        Event::BattleAsked { asked } => format!(
            "The battle for {} waits for {}: {}",
            s.battle.as_ref().map_or_else(|| "the city".into(), |b| c(b.city)),
            w(asked.seat),
            if asked.attacker { "retreat, or roll on" } else { "retreat, or fight on" }
        ),
        Event::BattleAnswered { seat, retreat: true, .. } => format!("{} chooses to retreat", w(*seat)),
        Event::BattleAnswered { seat, .. } => format!("{} fights on", w(*seat)),
        Event::AttackCalledOff { seat, city, units } => format!(
            "After a lost battle {} calls off the attack on {}: {units} units stay home",
            w(*seat),
            c(*city)
        ),
    }
}

/// A command in a few words.
pub fn label(s: &State, seat: Seat, c: &Command) -> String {
    let d = data();
    match c {
        Command::ChooseGod { god } => format!("choose {}", god_card(*god)),
        Command::PlaceGroup { city } => format!("place 3 units in {}", s.city_name(*city)),
        Command::UseGod { target, copy } => power_words(s, seat, *target, *copy),
        Command::SkipGod => "skip the god's power".into(),
        Command::Produce { free } => {
            format!("spend {} on units, {} on buildings, {} on knowledge", free[0], free[1], free[2])
        }
        Command::TakeKnowledge { card } => match d.knowledge.get(*card as usize) {
            Some(k) => format!("develop {}", k.name),
            None => format!("develop knowledge card {card}"),
        },
        Command::TakeBuilding { tile } => match d.buildings.get(*tile as usize) {
            Some(b) => format!("take a {}", b.name()),
            None => format!("take building tile {tile}"),
        },
        Command::PlaceProduced { units, buildings } => {
            format!("place {} units and {} buildings", units.len(), buildings.len())
        }
        Command::Move { moves, .. } if moves.is_empty() => "stay put".into(),
        Command::Move { moves, .. } => format!(
            "move: {}",
            moves
                .iter()
                .map(|m| format!("{} from {} to {}", m.units, s.city_name(m.from), s.city_name(m.to)))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        Command::SetDefence { .. } => "set standing defence orders".into(),
        Command::AnswerBattle { retreat: false, .. } => "fight on".into(),
        Command::AnswerBattle { to: Some(t), .. } => format!("retreat to {}", s.city_name(*t)),
        Command::AnswerBattle { .. } => "retreat as your standing orders say".into(),
        // Without the players' names (words written into the log): by god.
        Command::Invade { .. } => invade_words(s, seat, c, &|k| match s.players.get(k as usize).and_then(|p| p.god) {
            Some(g) => format!("{}'s player", god_word(g)),
            None => format!("player {}", k + 1),
        }),
        Command::PassInvasion => "do not invade".into(),
        Command::Setup { god, places } => {
            format!("choose {} and {} starting cities", god_card(*god), places.len())
        }
        Command::Program { steps, .. } if steps.is_empty() => "play the coming turn by hand".into(),
        Command::Program { steps, invasion } => format!(
            "program of the coming turn: {}; at the invasion, {}",
            steps.iter().map(|p| label(s, seat, &p.step)).collect::<Vec<_>>().join("; "),
            invasion_words(s, seat, invasion)
        ),
    }
}

/// [`label`], naming other players by their `names`.
pub fn label_named(s: &State, seat: Seat, c: &Command, names: &[String]) -> String {
    match c {
        Command::Invade { .. } => invade_words(s, seat, c, &|k| who(names, k)),
        _ => label(s, seat, c),
    }
}

/// What using the god's power does, in words: "use Loki's power: destroy
/// the enemy temple in Hedeby and draw a rumor card".
fn power_words(s: &State, seat: Seat, target: Option<u8>, copy: Option<u8>) -> String {
    use crate::data::Ability;
    let d = data();
    let Some(own) = s.players.get(seat as usize).and_then(|p| p.god) else {
        return "use the god's power".into();
    };
    let mine = &d.gods[own as usize];
    let (god, head) = match copy.and_then(|g| d.gods.get(g as usize)) {
        Some(other) => (other, format!("use {}'s power as {}'s", mine.name, other.name)),
        None => (mine, format!("use {}'s power", mine.name)),
    };
    let at = |what: &str| target.map_or_else(|| what.to_owned(), |t| s.city_name(t));
    let does = match god.ability {
        Ability::None => "it has none".to_owned(),
        Ability::CaptureTemple => format!("destroy the enemy temple in {} and draw a rumor card", at("a city")),
        Ability::ExtraUnit => format!("place a unit from your reserve in {}", at("a city of yours")),
        Ability::Strike => format!("kill an enemy unit in {}", at("a neighbouring city")),
        Ability::UnitPoints => format!("add {} points to your unit track", god.points),
        Ability::BuildingPoints => format!("add {} points to your building track", god.points),
        Ability::KnowledgePoints => format!("add {} points to your knowledge track", god.points),
        Ability::Glory => format!("gain {} glory points", god.points),
        Ability::Copy => "use the power of another god in play".to_owned(),
    };
    format!("{head}: {does}")
}

/// An invasion in words, with what it costs: the paths taken and, for a
/// player who still holds a kingdom, to whom it is surrendered (`who`
/// names the players).
fn invade_words(s: &State, seat: Seat, c: &Command, who: &dyn Fn(Seat) -> String) -> String {
    let Command::Invade { surrender_to, paths, .. } = c else {
        return String::new();
    };
    let ways: Vec<String> =
        paths.iter().map(|p| format!("arrow {} into {}", p.path as u32 + 1, s.city_name(p.first))).collect();
    let what = if ways.is_empty() { "invade".to_owned() } else { format!("invade by {}", ways.join(" and ")) };
    let held = s.controlled(seat).len();
    match surrender_to {
        Some(t) => format!(
            "{what}, surrendering your kingdom ({held} cit{}) to {}, who takes it as if conquered",
            if held == 1 { "y" } else { "ies" },
            who(*t)
        ),
        None if held > 0 => {
            format!("{what}, leaving your kingdom ({held} cit{}) to fall", if held == 1 { "y" } else { "ies" })
        }
        None => what,
    }
}

/// A god by its card, whatever the number given.
/// A god card as a player choosing it reads it (3.2): the name, the
/// intimidation value and the ability.
fn god_card(g: u8) -> String {
    data().gods.get(g as usize).map_or_else(
        || format!("god card {g}"),
        |x| format!("{} (intimidation {}: {})", x.name, x.intimidation, x.text.trim_end_matches('.')),
    )
}

fn god_word(g: u8) -> String {
    data().gods.get(g as usize).map_or_else(|| format!("god card {g}"), |x| x.name.clone())
}

/// What a program will do at the invasion phase, in words.
pub fn invasion_words(s: &State, seat: Seat, o: &InvasionOrder) -> String {
    match o {
        InvasionOrder::Ask => "ask at the invasion phase".into(),
        InvasionOrder::Pass => "do not invade".into(),
        InvasionOrder::Bot => "let the bot decide at the invasion phase".into(),
        InvasionOrder::Step { step } => label(s, seat, &step.step),
    }
}
