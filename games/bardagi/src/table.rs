//! The table header of a game of Bardagi: the round, the phase in words
//! and the standings as the viewer's view shows them (glory, areas held,
//! gold where the viewer may know it, runes in hand, upgrades, cards).

use runestone_engine::present::{seat_name, Rounds, Standing, TableHeader};

use crate::state::Phase;
use crate::view::View;

/// The header of `view`; `seats` are the seats' display names.
pub fn header(view: &View, seats: &[String]) -> TableHeader {
    let mut h = TableHeader::new("Glory", &["Areas", "Gold", "Runes in hand", "Upgrades", "Cards"]);
    if view.rounds > 0 {
        h.round = Some(Rounds { now: u32::from(view.round.max(1)), of: u32::from(view.rounds) });
    }
    h.phase = Some(match view.phase {
        Phase::Setup => "Setting up the board".to_owned(),
        Phase::Planning => "Planning: every clan chooses its cards for the round in secret".to_owned(),
        Phase::Action => match view.current {
            Some(s) => format!("Actions: the clans take turns playing their cards; now {}", seat_name(seats, s)),
            None => "Actions: the clans take turns playing their cards".to_owned(),
        },
        Phase::Deciding => {
            "Deciding: the clans that asked to decide at the moment set their build and claim choices".to_owned()
        }
        Phase::Over => "The game is over".to_owned(),
    });
    h.standings = view
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let seat = i as u8;
            let areas = view.areas.iter().filter(|a| a.owner == Some(seat)).count();
            let cards = match view.phase {
                Phase::Planning if p.planned => "chosen".to_owned(),
                Phase::Planning => "choosing".to_owned(),
                Phase::Action => format!("{} in hand, {} played", p.hand_size, p.played.total()),
                _ => "—".to_owned(),
            };
            Standing {
                seat,
                colour: p.colour.map(|c| c.name().to_owned()),
                score: Some(i64::from(p.glory)),
                values: vec![
                    areas.to_string(),
                    p.gold.map_or_else(|| "secret".to_owned(), |g| g.to_string()),
                    p.rune_count.to_string(),
                    p.upgrades.len().to_string(),
                    cards,
                ],
            }
        })
        .collect();
    h
}

#[cfg(test)]
mod tests {
    use runestone_engine::game::Viewer;

    use super::*;
    use crate::tests::Driver;
    use crate::Options;

    #[test]
    fn the_header_tells_round_phase_and_standings_and_keeps_gold_secret() {
        let mut game = Driver::new(&Options::default(), 3, 5).unwrap();
        let names: Vec<String> = ["Ása", "Bjarni", "Dís"].iter().map(|s| (*s).to_owned()).collect();
        let mine = crate::view::view(&game.state, Viewer::Seat(1));
        let h = header(&mine, &names);
        h.check(3).unwrap();
        assert_eq!(h.round, Some(Rounds { now: 1, of: u32::from(mine.rounds) }));
        assert!(h.phase.as_deref().unwrap().starts_with("Planning"), "{h:?}");
        assert_eq!(h.standings[1].values[1], mine.players[1].gold.unwrap().to_string(), "own gold is shown");
        assert_eq!(h.standings[0].values[1], "secret", "another clan's gold is not");
        assert!(h.standings.iter().all(|s| s.colour.is_some()), "every clan has its colour");
        let public = header(&crate::view::view(&game.state, Viewer::Public), &names);
        assert!(public.standings.iter().all(|s| s.values[1] == "secret"));
        // Once every clan has planned, the header says whose turn it is.
        for _ in 0..3 {
            let seat = game.next_seat().unwrap();
            let c = match <crate::Bardagi as runestone_engine::game::Game>::fallback(&game.state, seat).unwrap() {
                // The plan without a program, so that the first turn waits.
                crate::state::Command::Program { hand, .. } => crate::state::Command::Plan { hand },
                c => c,
            };
            game.act(seat, &c).unwrap();
        }
        let v = crate::view::view(&game.state, Viewer::Public);
        let h = header(&v, &names);
        let now = &names[v.current.unwrap() as usize];
        assert!(h.phase.as_deref().unwrap().ends_with(&format!("now {now}")), "{h:?}");
        assert!(h.standings.iter().all(|s| s.values[4].ends_with("0 played")), "{h:?}");
    }
}
