//! Section 4, Gods power and production: the god's ability (4.1), the tracks (4.2),
//! compensation (4.3), the production example (4.4) and placement (4.5).

use super::{board, table, Driver, BRAGI, ODIN, THOR, TYR};
use crate::data::{Resource, Shape};
use crate::state::{Command, Event, Step};
use crate::Options;

/// The rulebook's production example: 5 cities with 2 ports, a square wood
/// and a square wheat icon, a barrack and a workshop; all tracks at 0.
fn example() -> Driver {
    let mut b = board(8, &[(0, 1), (1, 2), (2, 3), (3, 4)], &[(0, 1)], &[]);
    b.cities[2].resource = Some(Resource::Wood);
    b.cities[2].shape = Some(Shape::Square);
    b.cities[3].resource = Some(Resource::Wheat);
    b.cities[3].shape = Some(Shape::Square);
    b.cities[1].resource = Some(Resource::Metal);
    b.cities[1].shape = Some(Shape::Circle);
    let mut d = table(b, &[ODIN, TYR, BRAGI], &Options::default());
    for c in 0..4 {
        d.put(0, c, 3, false);
    }
    d.put(0, 4, 3, true);
    d.put(1, 6, 3, true);
    d.put(2, 7, 3, true);
    d.ev(Event::BuildingPlaced { seat: 0, tile: 5, city: 0 });
    d.ev(Event::BuildingPlaced { seat: 0, tile: 8, city: 1 });
    d.turn(0, Step::Produce);
    d
}

#[test]
fn the_production_example_makes_two_units_and_a_building_and_keeps_three_knowledge_points() {
    let mut d = example();
    let (fixed, free) = crate::turn::fixed_points(&d.state, 0);
    assert_eq!(fixed, [2, 4, 2], "barrack; workshop and square wood; square wheat; a circle gives 0");
    assert_eq!(free, 7, "5 cities and 2 ports");
    // 1 + 3 points to units, 2 to buildings, 1 to knowledge.
    let ev = d.act(0, &Command::Produce { free: [4, 2, 1] }).unwrap();
    assert!(ev.contains(&Event::Produced { seat: 0, added: [6, 6, 3], tracks: [0, 0, 3], owed: [2, 1, 0] }), "{ev:?}");
    assert_eq!(d.state.step, Step::Take);
}

#[test]
fn the_free_points_must_all_be_spent() {
    let mut d = example();
    let e = d.refused(0, &Command::Produce { free: [1, 1, 1] });
    assert!(e.contains("you have 7 free points"), "{e}");
}

#[test]
fn mining_gives_one_more_point_to_circle_and_square_metal_icons() {
    let mut d = example();
    d.ev(Event::Produced { seat: 0, added: [0; 3], tracks: [0; 3], owed: [0, 0, 1] });
    d.ev(Event::KnowledgeTaken { seat: 0, card: 0 });
    assert_eq!(crate::turn::fixed_points(&d.state, 0).0, [3, 4, 2]);
}

#[test]
fn a_building_is_drawn_from_the_display_and_replaced_from_the_stack_then_placed_in_a_free_city() {
    let mut d = example();
    d.act(0, &Command::Produce { free: [4, 2, 1] }).unwrap();
    let shown = d.state.building_shown.clone();
    let ev = d.act(0, &Command::TakeBuilding { tile: shown[0] }).unwrap();
    assert!(ev.contains(&Event::BuildingShown { tile: 2 }), "{ev:?}");
    assert_eq!(d.state.step, Step::Place);
    let e = d.refused(0, &Command::PlaceProduced { units: vec![0, 0], buildings: vec![(shown[0], 0)] });
    assert!(e.contains("C0 cannot take a building"), "{e}");
    let e = d.refused(0, &Command::PlaceProduced { units: vec![5, 0], buildings: vec![(shown[0], 2)] });
    assert!(e.contains("new units go only to a city that holds your units"), "{e}");
    d.act(0, &Command::PlaceProduced { units: vec![0, 2], buildings: vec![(shown[0], 2)] }).unwrap();
    assert_eq!(d.state.cities[2].building, Some(shown[0]));
    assert_eq!(d.state.cities[0].units, 4);
    assert_eq!(d.state.step, Step::Move);
}

#[test]
fn developing_knowledge_gives_six_glory_points() {
    let mut d = example();
    d.ev(Event::TrackPoints { seat: 0, track: 2, points: 8 });
    d.act(0, &Command::Produce { free: [4, 2, 1] }).unwrap();
    let before = d.state.players[0].glory;
    d.act(0, &Command::TakeKnowledge { card: 1 }).unwrap();
    assert_eq!(d.state.players[0].glory, before + 6);
    assert_eq!(d.state.knowledge_shown, vec![0, 2, 3]);
}

#[test]
fn a_full_track_with_nothing_left_to_produce_gives_compensation() {
    let mut d = example();
    // Every unit of seat 0 is on the board: 30.
    for _ in 0..15 {
        d.ev(Event::UnitPlaced { seat: 0, city: 4 });
    }
    assert_eq!(d.state.pool(0), 0);
    let ev = d.act(0, &Command::Produce { free: [7, 0, 0] }).unwrap();
    assert!(ev.contains(&Event::Glory {
        seat: 0,
        delta: Some(3),
        reason: "compensation: a track filled with nothing left to produce".into()
    }));
}

#[test]
fn a_god_ability_needs_a_temple_and_cities_with_enemy_temples_are_immune() {
    let mut d = table(board(4, &[(0, 1), (1, 2)], &[], &[]), &[THOR, TYR, BRAGI], &Options::default());
    d.put(0, 0, 3, true);
    d.put(1, 1, 3, true);
    d.put(1, 2, 3, false);
    d.put(2, 3, 3, true);
    d.turn(0, Step::God);
    let e = d.refused(0, &Command::UseGod { target: Some(1), copy: None });
    assert!(e.contains("immune to god powers"), "{e}");
    assert!(d
        .refused(0, &Command::UseGod { target: Some(2), copy: None })
        .contains("not a city this ability can reach"));
    // 8.6: powered down temples give no immunity.
    let mut p = table(
        board(4, &[(0, 1), (1, 2)], &[], &[]),
        &[THOR, TYR, BRAGI],
        &Options { powered_down_temples: true, ..Options::default() },
    );
    p.put(0, 0, 3, true);
    p.put(1, 1, 3, true);
    p.put(2, 3, 3, true);
    p.turn(0, Step::God);
    p.act(0, &Command::UseGod { target: Some(1), copy: None }).unwrap();
    assert_eq!(p.state.cities[1].units, 2);
}

#[test]
fn without_a_temple_in_play_the_god_step_is_passed() {
    let mut d = table(board(3, &[], &[], &[]), &[THOR, TYR, BRAGI], &Options::default());
    d.put(0, 0, 3, true);
    d.put(1, 1, 3, false);
    d.put(2, 2, 3, true);
    d.turn(0, Step::Move);
    d.act(0, &Command::Move { moves: vec![], attacks: vec![] }).unwrap();
    let p = crate::pending(&d.state);
    assert_eq!((p[0].seat, p[0].kind.as_str()), (1, "produce"), "{p:?}");
}

#[test]
fn a_copying_god_uses_the_ability_of_another_god_in_play() {
    // Heimdall (index 8) copies Thor's strike.
    let mut d = table(board(4, &[(0, 1)], &[], &[]), &[8, THOR, BRAGI], &Options::default());
    d.put(0, 0, 3, true);
    d.put(1, 1, 3, false);
    d.put(1, 2, 3, true);
    d.put(2, 3, 3, true);
    d.turn(0, Step::God);
    assert!(d.refused(0, &Command::UseGod { target: Some(1), copy: None }).contains("name the god"));
    assert!(d.refused(0, &Command::UseGod { target: Some(1), copy: Some(ODIN) }).contains("another god in play"));
    d.act(0, &Command::UseGod { target: Some(1), copy: Some(THOR) }).unwrap();
    assert_eq!(d.state.cities[1].units, 2);
}

#[test]
fn with_powered_down_temples_loki_captures_a_temple_and_draws_a_rumor() {
    let opts = Options { powered_down_temples: true, ..Options::default() };
    let mut d = table(board(4, &[(0, 1)], &[], &[]), &[super::LOKI, TYR, BRAGI], &opts);
    d.put(0, 0, 3, true);
    d.put(1, 1, 3, true);
    d.put(2, 3, 3, true);
    d.turn(0, Step::God);
    let ev = d.act(0, &Command::UseGod { target: Some(1), copy: None }).unwrap();
    assert!(ev.contains(&Event::TempleDestroyed { city: 1 }));
    assert!(ev.iter().any(|e| matches!(e, Event::RumorDrawn { seat: 0, .. })));
    assert_eq!(d.state.temple_of(1), None, "the temple goes back to its owner");
}
