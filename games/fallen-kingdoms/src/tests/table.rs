//! The table header over a bot game: built for every viewer at positions
//! through the whole game, its rows agree with its columns, the turn counts
//! up, and no seat's secret (its god before the reveal, its glory under
//! hidden scoring) reaches another seat's header.

use runestone_engine::present::Present;
use runestone_engine::{Game, Seat, Viewer};

use super::Driver;
use crate::data::data;
use crate::state::{Event, Phase};
use crate::view::View;
use crate::{FallenKingdoms, Options};

fn typed(d: &Driver, viewer: Viewer) -> View {
    serde_json::from_value(FallenKingdoms::view(&d.state, viewer)).expect("the view reads back into its type")
}

/// Check every viewer's header now; answer the turn the header tells.
fn check_headers(d: &Driver, names: &[String]) {
    let seats = d.state.seats as usize;
    let hidden = d.state.rules.hidden_scoring && d.state.phase != Phase::Over;
    let viewers = (0..seats as Seat).map(Viewer::Seat).chain([Viewer::Public]);
    for viewer in viewers {
        let v = typed(d, viewer);
        let h = FallenKingdoms::header(&v, names).expect("Fallen Kingdoms gives a header");
        h.check(seats).unwrap_or_else(|e| panic!("{viewer:?}: {e}"));
        assert_eq!(h.round, None, "the game has no fixed number of turns");
        let phase = h.phase.as_deref().expect("the phase in words");
        if d.state.phase == Phase::Players {
            assert!(phase.starts_with(&format!("Turn {},", d.state.turn)), "{phase}");
        }
        if d.state.phase == Phase::Invasion {
            let t = d.state.turn;
            assert!(phase.starts_with(&format!("Turn {t} is over; invasion phase before turn {}", t + 1)), "{phase}");
        }
        if d.state.phase == Phase::Players {
            assert!(phase.contains(&names[d.state.current as usize]), "whose player phase: {phase}");
        }
        for (k, row) in h.standings.iter().enumerate() {
            let p = &d.state.players[k];
            let own = viewer == Viewer::Seat(k as Seat);
            assert!(row.colour.is_some(), "every seat has its colour");
            // Glory: hidden from the others under hidden scoring (8.1).
            if hidden && !own {
                assert_eq!(row.score, None, "{viewer:?} must not see seat {k}'s glory");
            } else {
                assert_eq!(row.score, Some(i64::from(p.glory)), "{viewer:?} sees seat {k}'s glory");
            }
            // The god: secret to the others until the reveal.
            let revealed = !matches!(d.state.phase, Phase::Setup | Phase::ChooseGods);
            if !revealed && !own {
                for g in &data().gods {
                    assert!(!row.values[0].contains(&g.name), "{viewer:?} sees seat {k}'s god {}", g.name);
                }
            }
            if revealed {
                let god = p.god.map(|g| data().gods[g as usize].name.clone());
                assert_eq!(Some(&row.values[0]), god.as_ref(), "the revealed god");
            }
            assert_eq!(row.values[1], d.state.controlled(k as Seat).len().to_string());
            assert_eq!(row.values[2], d.state.on_board(k as Seat).to_string());
            assert_eq!(row.values[3], p.victories.to_string());
            assert_eq!(row.values[4..7], p.tracks.map(|t| t.to_string()));
        }
    }
}

fn play(options: &Options, seats: u8, seed: u64) {
    let names: Vec<String> = (0..seats).map(|k| format!("Player {}", k + 1)).collect();
    let mut d = Driver::new(options, seats, seed).unwrap();
    let mut turns = vec![d.state.turn];
    let mut commands = 0u32;
    while FallenKingdoms::outcome(&d.state).is_none() {
        if commands.is_multiple_of(7) {
            check_headers(&d, &names);
        }
        commands += 1;
        assert!(commands < 20_000, "endless");
        let seat = d.waiting()[0];
        let c = FallenKingdoms::fallback(&d.state, seat).expect("a pending seat has a fallback");
        d.act(seat, &c).unwrap();
        turns.push(d.state.turn);
    }
    check_headers(&d, &names);
    let v = typed(&d, Viewer::Seat(0));
    let h = FallenKingdoms::header(&v, &names).unwrap();
    assert!(h.phase.as_deref().unwrap().starts_with("The game is over"), "{h:?}");
    // The turn counts up, one at a time, past the first.
    assert!(turns.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1), "{turns:?}");
    assert!(*turns.last().unwrap() > 1);
    // From the end of turn N's player phases the log is turn N+1's: the
    // rounds of the log count up one by one from 2 to the last turn.
    let begun: Vec<u32> = d.log.iter().filter_map(|e| FallenKingdoms::round_begun(&e.event)).collect();
    assert_eq!(begun.first(), Some(&2), "{begun:?}");
    assert_eq!(begun.last(), turns.last());
    assert!(begun.windows(2).all(|w| w[1] == w[0] + 1), "{begun:?}");
    for e in &d.log {
        if FallenKingdoms::round_begun(&e.event).is_some() {
            assert!(matches!(e.event, Event::RoundEnded { depleted, .. } if depleted < 2), "{:?}", e.event);
        }
    }
}

#[test]
fn the_header_tells_turn_phase_and_standings_to_every_viewer() {
    play(&Options::default(), 3, 1);
}

#[test]
fn under_hidden_scoring_the_header_shows_only_the_viewers_own_glory() {
    play(&Options { hidden_scoring: true, ..Options::default() }, 4, 2);
}
