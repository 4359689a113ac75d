//! Section 7, Invasions: the priority (7.1) with its example, selecting invaders
//! (7.2.1), surrendering (7.2.2), paths and blockers (7.2.3), invasion
//! battles (7.2.4), continuing (7.2.5), the end (7.2.6) and the first player card (7.3).

use super::{board, table, Driver, BRAGI, LOKI, ODIN, THOR, TYR};
use crate::state::{Command, Event, InvasionPath};
use crate::Options;

#[test]
fn invasion_priority_follows_the_four_rules() {
    // The rulebook's example: B has an invader card, D has no kingdom, the others
    // have 8 cities; A and E have intimidation 25, C 18.
    let mut d = table(board(40, &[], &[], &[]), &[ODIN, BRAGI, TYR, LOKI, THOR], &Options::default());
    for (seat, base) in [(0u8, 0u8), (1, 8), (2, 16), (4, 24)] {
        for c in base..base + 8 {
            d.put(seat, c, 1, false);
        }
    }
    for (seat, cards) in [(0u8, vec![17, 16, 15]), (2, vec![14, 13, 11]), (4, vec![12, 10, 9, 8, 7, 6])] {
        for card in cards {
            d.ev(Event::RumorDrawn { seat, card });
        }
    }
    d.ev(Event::InvaderCardTaken { seat: 1 });
    assert_eq!([0, 2, 4].map(|k| d.state.intimidation(k)), [25, 18, 25]);
    // D, then C; A and E tie and the one first to play (A) goes first; B last.
    assert_eq!(crate::invasion::priority(&d.state), vec![3, 2, 0, 4, 1]);
    // 8.5: rule 1 as before, the others reversed.
    d.state.rules.reverse_priority = true;
    assert_eq!(crate::invasion::priority(&d.state), vec![4, 0, 2, 3, 1]);
}

/// Arrows 0..3 lead to C0, C3, C4, C5 (in that order round the edge);
/// roads C0-C1-C2-C3. Seat 0 holds C5; seat 1 holds C0 (2), C1 (1) and its
/// temple in C2; seat 2 its temple in C4.
fn invasion() -> Driver {
    let b = board(6, &[(0, 1), (1, 2), (2, 3)], &[], &[(0, false), (3, false), (4, false), (5, false)]);
    let mut d = table(b, &[ODIN, TYR, BRAGI], &Options::default());
    d.put(0, 5, 3, true);
    d.put(1, 0, 2, false);
    d.put(1, 1, 1, false);
    d.put(1, 2, 3, true);
    d.put(2, 4, 3, true);
    d.ev(Event::InvasionBegan { order: vec![0, 1, 2] });
    d
}

fn path(path: u8, first: u8, then: &[u8]) -> InvasionPath {
    InvasionPath { path, first, then: then.to_vec() }
}

#[test]
fn an_invader_surrenders_their_kingdom_rolls_three_dice_and_pays_casualties() {
    let mut d = invasion();
    let c = Command::Invade { surrender_to: Some(1), paths: vec![path(0, 0, &[1])], temple: Some(0), stack: vec![] };
    let ev = d.scripted(0, &c, &[4, 1, 1, 1, 2, 3]).unwrap();
    // 7.2.2: the kingdom goes to seat 1, whose units replace seat 0's; one rumor.
    assert!(
        ev.contains(&Event::Surrendered { seat: 0, to: Some(1), replaced: vec![(5, 3)], removed: vec![] }),
        "{ev:?}"
    );
    assert!(ev.contains(&Event::KingdomFell { seat: 0, by: Some(1), knowledge_points: 0 }));
    assert_eq!(ev.iter().filter(|e| matches!(e, Event::RumorDrawn { .. })).count(), 1);
    // 7.2.4: C0: one killed, one left = one casualty, 3 units in. C1: none killed, one casualty.
    assert!(ev.contains(&Event::Invaded {
        seat: 0,
        city: 0,
        dice: vec![4, 1, 1],
        killed: 1,
        casualties: 1,
        placed: 3,
        defender_lost: 2
    }));
    assert!(ev.contains(&Event::Invaded {
        seat: 0,
        city: 1,
        dice: vec![1, 2, 3],
        killed: 0,
        casualties: 1,
        placed: 3,
        defender_lost: 1
    }));
    // 7.2.6: the 22 left are spread; the casualties are not placed; the temple goes up.
    assert_eq!(d.state.on_board(0), 28);
    assert_eq!(d.state.cities[0].temple, Some(0));
    assert!(d.state.players[0].invader);
    assert_eq!(d.state.players[0].blockers, vec![0]);
}

#[test]
fn cities_which_have_a_temple_cannot_be_invaded() {
    let mut d = invasion();
    let e = d.refused(
        0,
        &Command::Invade { surrender_to: Some(1), paths: vec![path(2, 4, &[])], temple: None, stack: vec![] },
    );
    assert!(e.contains("C4 has a temple and cannot be invaded"), "{e}");
}

#[test]
fn the_second_path_must_be_next_to_one_used_before() {
    let mut d = invasion();
    let c = Command::Invade {
        surrender_to: Some(2),
        paths: vec![path(0, 0, &[]), path(2, 4, &[])],
        temple: None,
        stack: vec![],
    };
    assert!(d.refused(0, &c).contains("must be next to a path used before"));
}

#[test]
fn a_blocked_path_cannot_be_used() {
    let mut d = invasion();
    d.ev(Event::PathBlocked { seat: 2, path: 0 });
    let c = Command::Invade { surrender_to: Some(1), paths: vec![path(0, 0, &[])], temple: None, stack: vec![] };
    assert!(d.refused(0, &c).contains("blocked by another player's flag"));
}

#[test]
fn an_invasion_path_takes_at_most_two_cities() {
    let mut d = invasion();
    let c = Command::Invade { surrender_to: Some(1), paths: vec![path(0, 0, &[1, 2])], temple: None, stack: vec![] };
    assert!(d.refused(0, &c).contains("at most 2 cities"));
}

#[test]
fn a_kingdom_is_surrendered_only_to_a_player_with_a_kingdom() {
    let mut d = invasion();
    let c = Command::Invade { surrender_to: None, paths: vec![path(0, 0, &[])], temple: None, stack: vec![] };
    assert!(d.refused(0, &c).contains("name the player you surrender it to"));
}

#[test]
fn the_first_player_card_passes_to_the_next_player_who_did_not_invade() {
    let mut d = invasion();
    let c = Command::Invade { surrender_to: Some(1), paths: vec![path(0, 0, &[])], temple: None, stack: vec![] };
    d.scripted(0, &c, &[4, 4, 1]).unwrap();
    d.act(1, &Command::PassInvasion).unwrap();
    let ev = d.act(2, &Command::PassInvasion).unwrap();
    assert!(ev.contains(&Event::FirstPlayer { seat: 1 }), "{ev:?}");
    assert!(ev.iter().any(|e| matches!(e, Event::TurnBegan { seat: 1, .. })));
}

#[test]
fn a_player_who_invaded_last_turn_discards_the_card_and_blockers_instead_of_invading() {
    let b = board(3, &[], &[], &[(0, false)]);
    let mut d = table(b, &[ODIN, TYR, BRAGI], &Options::default());
    d.put(0, 0, 3, true);
    d.put(1, 1, 3, true);
    d.put(2, 2, 3, true);
    d.ev(Event::InvaderCardTaken { seat: 0 });
    d.ev(Event::PathBlocked { seat: 0, path: 0 });
    d.ev(Event::InvasionBegan { order: vec![1, 0, 2] });
    let ev = d.act(1, &Command::PassInvasion).unwrap();
    assert!(ev.contains(&Event::InvaderCardDiscarded { seat: 0 }));
    assert!(d.state.players[0].blockers.is_empty());
    assert_eq!(d.waiting(), vec![2]);
}

#[test]
fn an_empty_city_is_taken_without_a_roll() {
    let b = board(4, &[(0, 1)], &[], &[(0, false), (3, false)]);
    let mut d = table(b, &[ODIN, TYR, BRAGI], &Options::default());
    d.put(1, 2, 3, true);
    d.put(2, 3, 3, true);
    d.ev(Event::InvasionBegan { order: vec![0, 1, 2] });
    let c = Command::Invade { surrender_to: None, paths: vec![path(0, 0, &[1])], temple: Some(1), stack: vec![] };
    let ev = d.scripted(0, &c, &[]).unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::Invaded { city: 0, placed: 3, casualties: 0, .. })));
    assert_eq!(d.state.on_board(0), 30);
    assert_eq!(d.state.temple_of(0), Some(1));
}

#[test]
fn with_the_reversed_first_player_movement_the_card_moves_counter_clockwise() {
    let b = board(3, &[], &[], &[(0, false)]);
    let mut d = table(b, &[ODIN, TYR, BRAGI], &Options { reverse_first_player: true, ..Options::default() });
    d.put(0, 0, 3, true);
    d.put(1, 1, 3, true);
    d.put(2, 2, 3, true);
    d.ev(Event::InvasionBegan { order: vec![0, 1, 2] });
    d.act(0, &Command::PassInvasion).unwrap();
    d.act(1, &Command::PassInvasion).unwrap();
    let ev = d.act(2, &Command::PassInvasion).unwrap();
    assert!(ev.contains(&Event::FirstPlayer { seat: 2 }), "{ev:?}");
}

/// Seat 0 (9 units in C0, C1, C2) invades by the arrow into the empty C7 and
/// surrenders to seat 1, whose reserve holds only 4 units (24 in C3, 2 in C4).
fn short_heir(orders: crate::state::Defence) -> (Driver, Vec<Event>) {
    let mut d = table(board(8, &[], &[], &[(7, false)]), &[ODIN, TYR, BRAGI], &Options::default());
    for c in 0..3 {
        d.put(0, c, 3, c == 0);
    }
    d.put(1, 3, 24, true);
    d.put(1, 4, 2, false);
    d.put(2, 6, 3, true);
    d.act(1, &Command::SetDefence { defence: orders }).unwrap();
    d.ev(Event::InvasionBegan { order: vec![0, 1, 2] });
    assert_eq!(d.state.pool(1), 4);
    let c = Command::Invade { surrender_to: Some(1), paths: vec![path(0, 7, &[])], temple: None, stack: vec![] };
    let ev = d.act(0, &c).unwrap();
    (d, ev)
}

#[test]
fn a_winner_short_of_units_replaces_first_the_cities_its_standing_orders_name() {
    // Given seat 1's orders name C2, then C1, to replace first,
    let orders = crate::state::Defence { replace_first: vec![2, 1], ..Default::default() };
    // When seat 0 surrenders its 9 units to seat 1, who has 4 to give,
    let (d, ev) = short_heir(orders);
    // Then C2 gets 3 and C1 the last one; C0 is left empty; nothing is taken off the board.
    assert!(ev.contains(&Event::Surrendered { seat: 0, to: Some(1), replaced: vec![(2, 3), (1, 1)], removed: vec![] }));
    assert_eq!(d.state.cities[0].owner, None);
    assert_eq!((d.state.cities[3].units, d.state.cities[4].units), (24, 2));
}

#[test]
fn a_winner_may_remove_units_already_on_the_board_to_complete_the_replacement() {
    // Given seat 1's orders complete a replacement from the board,
    let orders = crate::state::Defence { complete_from_board: true, ..Default::default() };
    let (d, ev) = short_heir(orders);
    // Then the 5 missing units come off its biggest city and every city is replaced.
    assert!(
        ev.contains(&Event::Surrendered {
            seat: 0,
            to: Some(1),
            replaced: vec![(0, 3), (1, 3), (2, 3)],
            removed: vec![(3, 5)]
        }),
        "{ev:?}"
    );
    assert_eq!((d.state.cities[3].units, d.state.cities[4].units), (19, 2));
    assert_eq!((0..3).map(|c| d.state.cities[c].owner).collect::<Vec<_>>(), vec![Some(1); 3]);
    assert_eq!(d.state.on_board(1), 30, "every unit of the winner is on the board");
}

#[test]
fn without_orders_the_winner_replaces_city_by_city_until_its_reserve_runs_out() {
    let (d, ev) = short_heir(crate::state::Defence::default());
    assert!(ev.contains(&Event::Surrendered { seat: 0, to: Some(1), replaced: vec![(0, 3), (1, 1)], removed: vec![] }));
    assert_eq!(d.state.cities[2].owner, None);
}
