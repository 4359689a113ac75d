//! The table header over bot games: it checks against its seats for every
//! viewer, tells the round counting up from 1 with one proposal beginning
//! each, names the phase, and shows a seat what the public sees and no more
//! (no hand, no standing orders, no Good's face).

use runestone_engine::present::Present;
use runestone_engine::{Game, Seat, Viewer};

use super::Driver;
use crate::bot::choose;
use crate::data::data;
use crate::state::Phase;
use crate::view::view;
use crate::{Options, Thingvellir};

#[test]
fn the_header_tells_round_phase_and_standings_for_every_viewer_and_no_secret() {
    for (seats, seed, sealed) in [(3u8, 7u64, true), (5, 11, false), (2, 3, false)] {
        let opts =
            Options { sealed_feuds: sealed, advanced_outlawry: seats == 5, lawspeaker: None, ..Options::default() };
        let mut g = Driver::new(&opts, seats, seed).expect("setup");
        let names: Vec<String> = (0..seats).map(|i| format!("Gothi{i}")).collect();
        let personae: Vec<&str> = data().cards.iter().filter_map(|c| c.persona.as_deref()).collect();
        let (mut last_round, mut phases, mut steps) = (1u32, std::collections::BTreeSet::new(), 0);
        loop {
            let v = view(&g.state, Viewer::Public);
            let public = Thingvellir::header(&v, &names).expect("a header");
            public.check(seats as usize).unwrap();
            assert_eq!(public.round, None, "the game has no last round: the round is told in the phase");
            let phase = public.phase.clone().expect("a phase");
            // The round counts up from 1, one at a time, and the phase says it.
            assert!(v.round == last_round || v.round == last_round + 1, "round {} after {last_round}", v.round);
            last_round = v.round;
            if g.state.phase != Phase::Over {
                assert!(phase.starts_with(&format!("Round {}", v.round)), "{phase}");
                // One proposal begins each round.
                let begun = g.log.iter().filter(|e| Thingvellir::round_begun(&e.event).is_some()).count() as u32;
                let proposed = u32::from(g.state.phase != Phase::Propose);
                assert_eq!(begun, v.round - 1 + proposed, "{phase}");
            }
            phases.insert(phase.split(':').next().unwrap().to_owned());
            let speakers = public.standings.iter().filter(|s| s.values[5].contains("Lawspeaker")).count();
            assert_eq!(speakers, 1, "one Lawspeaker: {public:?}");
            for (i, row) in public.standings.iter().enumerate() {
                assert_eq!(row.score, Some(i64::from(g.state.players[i].wordfame)), "Wordfame is public");
                assert!(row.colour.is_some());
            }
            // A seat's header is the public one: nothing of its own secrets,
            // nor of another's, shows in it.
            for viewer in (0..seats).map(Viewer::Seat).chain([Viewer::Referee]) {
                let h = Thingvellir::header(&view(&g.state, viewer), &names).unwrap();
                h.check(seats as usize).unwrap();
                assert_eq!(h, public, "{viewer:?} sees more than the public");
                let text = serde_json::to_string(&h).unwrap();
                assert!(!personae.iter().any(|p| text.contains(p)), "a card's face in the header: {text}");
            }
            if Thingvellir::outcome(&g.state).is_some() || steps > 4000 {
                break;
            }
            steps += 1;
            let seat: Seat = g.waiting()[0];
            let c = choose(&g.state, seat, false).expect("a bot move");
            g.act(seat, &c).expect("the bot's move is legal");
        }
        assert!(last_round >= 3, "{seats} seats: the game went on for rounds ({last_round})");
        for p in ["Round 1, I. The Law Council", "The game is over"] {
            assert!(phases.iter().any(|x| x.starts_with(p)), "{p} not met in {phases:?}");
        }
        assert!(phases.iter().any(|x| x.contains("II. Hunting for Sheep")), "{phases:?}");
    }
}
