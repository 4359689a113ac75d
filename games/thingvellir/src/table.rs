//! The table header of a game of The Road to Thingvellir: the round and
//! its phase in words (the game counts rounds but has no last one: it ends
//! at 22 Wordfame or with one gothi left holding a farm, so the round is
//! told in the phase's words), and the standings as every view shows them:
//! Wordfame, Districts, Thingmen, Goods (how many and their Worth, which is
//! all anyone sees of a Good), Bondi in Oaths, and who is Lawspeaker or
//! outlawed. Nothing here reads a hand or standing orders: the header of a
//! seat's view is the header of the public view.

use runestone_engine::present::{seat_name, Standing, TableHeader};
use runestone_engine::Seat;

use crate::data::data;
use crate::state::{Event, Phase};
use crate::view::View;

/// The seats' colours in words, as the map draws them (`seat_colour`) and
/// the forms name them ("the green gothi").
const SEAT_COLOURS: [&str; 6] = ["Red", "Blue", "Green", "Gold", "Purple", "Orange"];

/// The header of `view`; `seats` are the seats' display names.
pub fn header(view: &View, seats: &[String]) -> TableHeader {
    let mut h = TableHeader::new(
        "Wordfame (first to 22)",
        &["Districts", "Thingmen", "Goods (Worth)", "Bondi in Oaths", "Farms (green, blue, gold, red)", "Status"],
    );
    h.phase = Some(phase(view, seats));
    h.standings = view
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let seat = i as Seat;
            let districts = view.districts.iter().filter(|d| d.owner == Some(seat)).count();
            let riding: u32 = view.edges.iter().map(|e| u32::from(e.thingmen.get(i).copied().unwrap_or(0))).sum();
            let mut men: Vec<String> = [
                (u32::from(p.thingvellir), "at Thingvellir"),
                (riding, "on the roads"),
                (u32::from(p.at_sea), "at sea"),
                (u32::from(p.longhall), "in the Longhall"),
                (u32::from(p.slain), "slain"),
            ]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, w)| format!("{n} {w}"))
            .collect();
            if men.is_empty() {
                men.push("none".to_owned());
            }
            let worth: u32 = p.wealth.iter().map(|g| u32::from(g.worth)).sum();
            let mut status = Vec::new();
            if view.lawspeaker == seat {
                status.push("Lawspeaker");
            }
            if p.outlawed {
                status.push("outlawed");
            }
            if p.out {
                status.push("out of the game");
            }
            Standing {
                seat,
                colour: Some(SEAT_COLOURS[i % SEAT_COLOURS.len()].to_owned()),
                score: Some(i64::from(p.wordfame)),
                values: vec![
                    districts.to_string(),
                    men.join(", "),
                    format!("{} ({worth})", p.wealth.len()),
                    p.oaths.len().to_string(),
                    p.farms.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(", "),
                    if status.is_empty() { "—".to_owned() } else { status.join(", ") },
                ],
            }
        })
        .collect();
    h
}

/// The round and phase in words, naming whose step it is where the view
/// tells it (the server's "to play" line names whom it waits for anyway).
fn phase(view: &View, seats: &[String]) -> String {
    let map = data().map_of(view.rules_version);
    let name = |s: Seat| seat_name(seats, s);
    let round = view.round.max(1);
    let statute = view.token.and_then(|(law, level)| {
        let l = view.laws.get(law)?;
        Some(format!("{} on the {}", l.statutes.get(level)?.0.name(), l.name))
    });
    match view.phase {
        Phase::Over => "The game is over: first to 22 Wordfame, or the last gothi with a farm in Iceland".to_owned(),
        Phase::Season => format!(
            "Round {round} begins: every gothi gives the season's program at once (the proposal as Lawspeaker, \
             the actions to resolve, the votes and answers); {} is Lawspeaker",
            name(view.lawspeaker)
        ),
        Phase::Propose => format!(
            "Round {round}, I. The Law Council: {}, the Lawspeaker, proposes a statute; the others will support it \
             or sue for another",
            name(view.lawspeaker)
        ),
        Phase::Vote => {
            let next = (0..view.players.len())
                .map(|k| ((usize::from(view.lawspeaker) + k) % view.players.len()) as Seat)
                .find(|s| view.players.get(usize::from(*s)).is_some_and(|p| !p.out && p.vote.is_none()));
            let mut t = format!(
                "Round {round}, I. The Law Council: the gothar vote on {}'s proposal, {}: support it or sue for a \
                 statute of another Law",
                name(view.lawspeaker),
                statute.unwrap_or_else(|| "a statute".to_owned())
            );
            if let Some(s) = next {
                t.push_str(&format!("; now {} votes", name(s)));
            }
            t
        }
        Phase::Resolve => {
            // Hunting for Sheep's steps are the Bondi's; the Council's come first.
            let hunting = view.current.as_ref().or(view.queue.first()).map(|s| s.bondi);
            let mut t = match hunting {
                Some(true) => format!(
                    "Round {round}, II. Hunting for Sheep: from the Lawspeaker clockwise, each gothi's Bondi of \
                     the colour of the action they took act"
                ),
                Some(false) => format!(
                    "Round {round}, I. The Law Council: the actions voted resolve, clockwise from the Lawspeaker, \
                     suits first"
                ),
                None => format!("Round {round}: the actions resolve"),
            };
            if let Some(f) = &view.feud {
                let road = map
                    .edges
                    .get(f.edge)
                    .map(|(a, b)| format!(" on {}–{}", map.districts[*a], map.districts[*b]))
                    .unwrap_or_default();
                t.push_str(&format!("; a feud: {} against {}{road}", name(f.sides[0]), name(f.sides[1])));
            } else if let Some(step) = &view.current {
                t.push_str(&format!(
                    "; now {}'s {} at strength {}",
                    name(step.seat),
                    step.action.name(),
                    step.strength
                ));
            }
            t
        }
    }
}

/// Each round begins with the Lawspeaker's proposal (exactly one per round,
/// its first decision). The event does not carry the round's number, so it
/// is given as 0: a round begins here, its number unknown to the event (the
/// page folds the log there and names no round).
pub fn round_begun(event: &Event) -> Option<u32> {
    match event {
        Event::Acted { command: crate::state::Command::Propose { .. }, .. } => Some(0),
        Event::ProgramStep { command: Some(crate::state::Command::Propose { .. }), .. } => Some(0),
        _ => None,
    }
}
