//! The table header of a game of Fallen Kingdoms: the turn and the phase in
//! words, and the standings as the viewer's view shows them (glory, hidden
//! under hidden scoring (8.1) but for the viewer's own; the god once
//! revealed, cities, units, victories, the three tracks and the temple).
//!
//! The game has no fixed number of turns (it ends when two trophy types are
//! depleted, 6.2), so the header gives no "round N of M": the turn is told
//! in the phase's words.

use runestone_engine::present::{seat_name, Standing, TableHeader};
use runestone_engine::Seat;

use crate::state::{Phase, Step};
use crate::view::View;

/// The seats' colours in words, as the board paints them
/// (`present::seat_colour`: red, blue, green, ochre yellow, purple, orange).
const COLOURS: [&str; 6] = ["Red", "Blue", "Green", "Yellow", "Purple", "Orange"];

/// The colour of `seat`'s units and kingdom on the board, in words.
pub fn colour_name(seat: Seat) -> &'static str {
    COLOURS[seat as usize % COLOURS.len()]
}

/// The standings' columns after glory.
pub const COLUMNS: [&str; 8] =
    ["God", "Cities", "Units", "Victories", "Unit track", "Building track", "Knowledge track", "Temple"];

fn step_words(step: Step) -> &'static str {
    match step {
        Step::God => "using their god's ability, or skipping it",
        Step::Produce => {
            "production: spending their cities' and ports' points on the unit, building and knowledge tracks"
        }
        Step::Take => "taking a face-up knowledge card or building tile",
        Step::Place => "placing their new units and buildings",
        Step::Move => "moving their units and fighting the battles",
    }
}

fn names(seats: &[String], list: &[Seat]) -> String {
    list.iter().map(|&k| seat_name(seats, k)).collect::<Vec<_>>().join(", ")
}

/// The phase in words, naming whose player phase it is.
pub fn phase(v: &View, seats: &[String]) -> String {
    match v.phase {
        Phase::Setup => "Setting up the map and the stacks".to_owned(),
        Phase::ChooseGods => {
            "Setup: every player chooses one of their two god cards in secret; the gods are revealed together"
                .to_owned()
        }
        Phase::Placement => "Setup: the players take turns placing their starting units and temple".to_owned(),
        Phase::Programs => format!(
            "Turn {}: every player gives the program of their whole turn at once (or chooses to play it by hand); \
             the programs run in turn order, each when its player's turn begins",
            v.turn
        ),
        Phase::Players => match &v.battle {
            Some(b) => format!(
                "Turn {}, player phase of {}: the battle for {} waits for {} to retreat or fight on",
                v.turn,
                seat_name(seats, v.current),
                v.cities.get(b.city as usize).map_or("a city", |c| c.name.as_str()),
                seat_name(seats, b.asked)
            ),
            None => format!(
                "Turn {}, player phase of {}: {}",
                v.turn,
                seat_name(seats, v.current),
                step_words(v.step)
            ),
        },
        // The game's log says "Turn N is over" where the player phases
        // end, and the log of turn N+1 begins there (`round_begun`).
        Phase::Invasion if v.invasion_order.is_empty() => format!(
            "Turn {} is over; invasion phase before turn {}: each player in priority order invades with a new kingdom or passes",
            v.turn,
            v.turn + 1
        ),
        Phase::Invasion => format!(
            "Turn {} is over; invasion phase before turn {}: in priority order ({}) each player invades with a new kingdom or passes",
            v.turn,
            v.turn + 1,
            names(seats, &v.invasion_order)
        ),
        Phase::Over if v.winners.is_empty() => "The game is over".to_owned(),
        Phase::Over => format!(
            "The game is over after turn {}: {} {}",
            v.turn,
            names(seats, &v.winners).replace(", ", " and "),
            if v.winners.len() > 1 { "share the victory" } else { "wins" }
        ),
    }
}

/// The header of `view`; `seats` are the seats' display names.
pub fn header(v: &View, seats: &[String]) -> TableHeader {
    let mut h = TableHeader::new("Glory", &COLUMNS);
    h.phase = Some(phase(v, seats));
    h.standings = v
        .players
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let seat = k as Seat;
            let god = match &p.god {
                Some(g) => g.clone(),
                None if p.god_chosen => "chosen, secret".to_owned(),
                None if v.phase == Phase::ChooseGods => "choosing".to_owned(),
                None => "—".to_owned(),
            };
            let temple =
                p.temple.and_then(|c| v.cities.get(c as usize)).map_or_else(|| "none".to_owned(), |c| c.name.clone());
            Standing {
                seat,
                colour: Some(colour_name(seat).to_owned()),
                score: p.glory.map(i64::from),
                values: vec![
                    god,
                    p.cities.to_string(),
                    p.units_on_board.to_string(),
                    p.victories.to_string(),
                    p.tracks[0].to_string(),
                    p.tracks[1].to_string(),
                    p.tracks[2].to_string(),
                    temple,
                ],
            }
        })
        .collect();
    h
}
