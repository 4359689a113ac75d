//! Section 6, Scoring: every turn's scoring (6.1) with the scoring example, the
//! rumor adjustment (6.2) with its example (5-2-2-4-2-3) and its tie rules.

use super::{board, table, BRAGI, ODIN, TYR};
use crate::scoring::adjustment;
use crate::state::{Event, Step};
use crate::Options;

#[test]
fn the_scoring_example_seven_cities_three_with_a_building_score_thirteen() {
    let mut d = table(board(10, &[], &[], &[]), &[ODIN, TYR, BRAGI], &Options::default());
    for c in 0..7 {
        d.put(0, c, 1, c == 6);
    }
    for c in 0..3 {
        d.ev(Event::BuildingPlaced { seat: 0, tile: 10 + c, city: c });
    }
    assert_eq!(crate::scoring::turn_score(&d.state, 0), 13);
}

#[test]
fn the_rumor_adjustment_example_5_2_2_4_2_3() {
    // The first player takes 2 cards from two of the three last players, one each.
    let t = adjustment(&[5, 2, 2, 4, 2, 3]);
    assert_eq!(t.len(), 2, "{t:?}");
    assert!(t.iter().all(|&(from, to, n)| to == Some(0) && n == 1 && [1, 2, 4].contains(&from)), "{t:?}");
    assert_ne!(t[0].0, t[1].0, "they cannot take both from the same player");
    // And in a game: +12 for the receiver, -6 for each giver.
    let mut d = table(board(6, &[], &[], &[]), &[ODIN, TYR, BRAGI, 3, 4, 5], &Options::default());
    let counts = [5, 2, 2, 4, 2, 3];
    let mut card = 0;
    for (seat, &k) in counts.iter().enumerate() {
        for _ in 0..k {
            d.ev(Event::RumorDrawn { seat: seat as u8, card });
            card += 1;
        }
    }
    let mut rng = runestone_engine::GameRng::new(d.seed.clone(), 1);
    let mut cx = crate::Ctx::new(d.state.clone(), &mut rng);
    crate::scoring::adjust_rumors(&mut cx);
    let g: Vec<i32> = cx.s.players.iter().map(|p| p.glory).collect();
    assert_eq!(g[0], 12);
    assert_eq!(g.iter().filter(|&&x| x == -6).count(), 2);
    assert_eq!(cx.s.players[0].rumors.len(), 7);
}

#[test]
fn tied_most_split_the_cards_rounded_down_and_discard_the_rest() {
    // 4-4-1: the one card cannot be split between two: discarded, still paid.
    assert_eq!(adjustment(&[4, 4, 1]), vec![(2, None, 1)]);
    // 3-3-2: one card each.
    assert_eq!(adjustment(&[3, 3, 2]), vec![(2, Some(0), 1), (2, Some(1), 1)]);
}

#[test]
fn no_adjustment_when_everyone_holds_as_many() {
    assert!(adjustment(&[2, 2, 2]).is_empty());
    assert!(adjustment(&[3, 0, 1]).is_empty(), "the fewest is none: nothing to give");
}

#[test]
fn the_highest_total_wins_and_a_tie_shares_the_victory() {
    let mut d = table(board(3, &[], &[], &[]), &[ODIN, TYR, BRAGI], &Options::default());
    d.ev(Event::Glory { seat: 0, delta: Some(20), reason: "x".into() });
    d.ev(Event::Glory { seat: 2, delta: Some(20), reason: "x".into() });
    assert_eq!(crate::scoring::winners(&d.state), vec![0, 2]);
    d.ev(Event::GameEnded { winners: vec![0, 2] });
    let names: Vec<String> = ["Ann", "Bo", "Cy"].iter().map(|n| n.to_string()).collect();
    let o = crate::scoring::outcome(&d.state, &names).unwrap();
    assert_eq!(o.winners, vec![0, 2]);
    assert_eq!(o.ranking, vec![0, 2, 1]);
    assert_eq!(o.summary, "Ann and Cy share the victory with 20 glory points");
}

#[test]
fn every_turn_a_player_scores_when_their_turn_ends() {
    let mut d = table(board(3, &[], &[], &[]), &[ODIN, TYR, BRAGI], &Options::default());
    d.put(0, 0, 3, true);
    d.put(1, 1, 3, true);
    d.put(2, 2, 3, true);
    d.turn(0, Step::Move);
    d.act(0, &crate::state::Command::Move { moves: vec![], attacks: vec![] }).unwrap();
    assert_eq!(d.state.players[0].glory, 1);
}
