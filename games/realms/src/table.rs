//! The table header of a game of Realms: the round (a season; four to a
//! year), the season's orders in words with the realms still to give
//! theirs, and the standings as every realm's public standing shows them
//! (victory points, prestige, gold, settlements, units, and whether its
//! orders are in — never what they say).

use runestone_engine::present::{seat_name, Rounds, Standing, TableHeader};
use runestone_engine::Seat;

use crate::drawing::REALM_COLOURS;
use crate::state::{Event, Season};
use crate::view::View;

/// The realms' colours in words, by seat, as [`REALM_COLOURS`] draws them.
pub const REALM_COLOUR_NAMES: [&str; REALM_COLOURS.len()] =
    ["Red", "Blue", "Green", "Ochre", "Purple", "Orange", "Teal", "Maroon", "Black", "Pink", "Olive", "Grey"];

/// The seasons of a year: a round is one season.
const SEASONS: u32 = 4;

/// The round `season` of `year` is, counting from 1 at spring of year 1.
pub fn round_of(year: u8, season: Season) -> u32 {
    u32::from(year.max(1) - 1) * SEASONS + season as u32 + 1
}

/// The round an event begins: the first at the start, the next one at
/// each `RoundEnded` (which names the season beginning).
pub fn round_begun(event: &Event) -> Option<u32> {
    match event {
        Event::Started { .. } => Some(1),
        Event::RoundEnded { year, season } => Some(round_of(*year, *season)),
        _ => None,
    }
}

/// What a season's orders hold beyond moves, battles, looting, building
/// and trade: the year's step of the season.
fn season_orders(season: Season) -> &'static str {
    match season {
        Season::Spring => ", and the fields to sow",
        Season::Summer => "",
        Season::Autumn => ", and where to recruit",
        Season::Winter => ", the festival and the herds to slaughter",
    }
}

/// The header of `view`; `seats` are the seats' display names.
pub fn header(view: &View, seats: &[String]) -> TableHeader {
    let mut h = TableHeader::new("Victory points", &["Realm", "Prestige", "Gold", "Settlements", "Units", "Orders"]);
    let started = !view.fields.is_empty();
    if started && view.years > 0 {
        h.round = Some(Rounds { now: round_of(view.year, view.season), of: u32::from(view.years) * SEASONS });
    }
    h.phase = Some(if let Some(reason) = &view.over {
        format!("The game is over: {reason}")
    } else if !started {
        "Setting up the map".to_owned()
    } else {
        let waiting: Vec<String> =
            view.realms.iter().filter(|r| !r.out && !r.submitted).map(|r| seat_name(seats, r.seat)).collect();
        let season = view.season.name();
        let mut s = format!(
            "{}{} of year {} of {}: every realm gives secret orders (moves, battles, looting, building, trade{}), \
             carried out together once all are in",
            season[..1].to_uppercase(),
            &season[1..],
            view.year,
            view.years,
            season_orders(view.season),
        );
        if !waiting.is_empty() {
            s.push_str(&format!("; waiting for {}", waiting.join(", ")));
        }
        s
    });
    h.standings = view
        .realms
        .iter()
        .map(|r| {
            let seat: Seat = r.seat;
            let mut villages = 0;
            let mut cities = 0;
            let mut units = 0;
            for f in &view.fields {
                match f.settlement {
                    Some(x) if x.owner == seat && x.city => cities += 1,
                    Some(x) if x.owner == seat => villages += 1,
                    _ => {}
                }
                units += f.units.iter().filter(|u| u.owner == seat).count();
            }
            let settlements = match (villages, cities) {
                (0, 0) => "none".to_owned(),
                (v, 0) => plural(v, "village", "villages"),
                (0, c) => plural(c, "city", "cities"),
                (v, c) => format!("{}, {}", plural(v, "village", "villages"), plural(c, "city", "cities")),
            };
            let orders = if r.out {
                "out of the game"
            } else if view.over.is_some() || !started {
                "—"
            } else if r.submitted {
                "given"
            } else {
                "not yet"
            };
            Standing {
                seat,
                colour: Some(REALM_COLOUR_NAMES[seat as usize % REALM_COLOUR_NAMES.len()].to_owned()),
                score: Some(i64::from(r.vp)),
                values: vec![
                    format!("{} ({})", r.home, r.faction),
                    format!("{} PP", r.pp),
                    r.gold.to_string(),
                    settlements,
                    units.to_string(),
                    orders.to_owned(),
                ],
            }
        })
        .collect();
    h
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
