//! Rules version 3: the rules that version 3 plays as the rulebook's text
//! says, each test named after the sentence, showing version 3 and then
//! the same play under version 2 as it was (old games replay unchanged).

use runestone_engine::{Game, Viewer, Visibility};

use super::{board, table, Driver, BRAGI, LOKI, ODIN, TYR};
use crate::data::{Resource, Shape};
use crate::state::{AttackOrder, Command, Event, InvasionPath, Move, Step};
use crate::{FallenKingdoms, Options, RULES_VERSION};

fn v(version: u32) -> Options {
    Options { rules_version: Some(version), ..Options::default() }
}

fn path(path: u8, first: u8, then: &[u8]) -> InvasionPath {
    InvasionPath { path, first, then: then.to_vec() }
}

fn invade(paths: Vec<InvasionPath>, temple: Option<u8>, stack: Vec<(u8, u8)>) -> Command {
    Command::Invade { surrender_to: None, paths, temple, stack }
}

#[test]
fn new_games_play_rules_version_3() {
    assert_eq!(RULES_VERSION, 3);
    assert_eq!(FallenKingdoms::rules_version_of(&Options::default()), 3);
    let d = Driver::new(&v(3), 4, 1).unwrap();
    assert_eq!(d.state.rules.version, 3);
}

// --- 2.1, 4.2.3, 5.4.1: knowledge ----------------------------------------------------

/// Seat 0 holds a circle metal icon (C1); seat 1 develops Deep Mines, a
/// metal card whose "public" keyword version 2 read as shared at once.
fn deep_mines(version: u32) -> Driver {
    let mut b = board(8, &[(0, 1)], &[], &[]);
    b.cities[1].resource = Some(Resource::Metal);
    b.cities[1].shape = Some(Shape::Circle);
    let mut d = table(b, &[ODIN, TYR, BRAGI], &v(version));
    d.put(0, 0, 3, true);
    d.put(0, 1, 3, false);
    d.put(1, 6, 3, true);
    d.put(2, 7, 3, true);
    d.ev(Event::Produced { seat: 1, added: [0; 3], tracks: [0; 3], owed: [0, 0, 1] });
    d.ev(Event::KnowledgeTaken { seat: 1, card: 12 });
    assert_eq!(crate::data::data().knowledge[12].name, "Deep Mines");
    d
}

#[test]
fn a_knowledge_card_is_placed_straight_up_in_front_of_its_owner_and_becomes_public_only_when_its_kingdom_falls() {
    // Version 3: seat 1's card helps seat 1 alone,
    let mut d = deep_mines(3);
    assert_eq!(crate::turn::fixed_points(&d.state, 0).0, [0, 0, 0], "another kingdom's card is private");
    // until seat 1's kingdom falls (5.4.1 "they now become public knowledge").
    d.ev(Event::UnitsKilled { city: 6, units: 3 });
    d.ev(Event::KingdomFell { seat: 1, by: Some(0), knowledge_points: 0 });
    assert_eq!(crate::turn::fixed_points(&d.state, 0).0, [1, 0, 0]);
    // Version 2 as it was: the card played public helps everyone at once.
    let d = deep_mines(2);
    assert_eq!(crate::turn::fixed_points(&d.state, 0).0, [1, 0, 0]);
}

// --- 5.2.6: a rampage from an empty city ---------------------------------------------

/// Seat 0: 5 units in C0; C1 empty; seat 1: one unit in C2; roads C0-C1-C2.
fn empty_city(version: u32) -> Driver {
    let mut d = table(board(6, &[(0, 1), (1, 2)], &[], &[]), &[ODIN, TYR, BRAGI], &v(version));
    d.put(0, 0, 5, true);
    d.put(1, 2, 1, false);
    d.put(1, 4, 3, true);
    d.put(2, 5, 3, true);
    d.turn(0, Step::Move);
    d
}

fn into_the_empty_city() -> Command {
    Command::Move {
        moves: vec![Move { from: 0, to: 1, units: 4 }],
        attacks: vec![AttackOrder { rampage: Some(2), ..AttackOrder::plain(1) }],
    }
}

#[test]
fn if_the_city_is_empty_the_attacker_is_allowed_to_rampage_another_road_adjacent_city() {
    let mut d = empty_city(3);
    let ev = d.scripted(0, &into_the_empty_city(), &[5, 1]).unwrap();
    assert!(ev.contains(&Event::Moved { seat: 0, from: 0, to: 1, units: 4 }), "{ev:?}");
    assert!(ev.contains(&Event::Rampaged { seat: 0, from: 1, to: 2, dice: vec![5, 1], hits: 1, lost: 0 }), "{ev:?}");
    // The rampage emptied C2: all but one move in, and it is a capture.
    assert_eq!((d.state.cities[1].units, d.state.cities[2].owner, d.state.cities[2].units), (1, Some(0), 3));
    assert_eq!(d.state.players[0].victories, 1);
    // Version 2 as it was: moving into an empty city allows no rampage.
    let mut d = empty_city(2);
    let e = d.refused(0, &into_the_empty_city());
    assert!(e.contains("C1 is empty") && e.contains("rules version 3"), "{e}");
}

// --- 7.2.3-7.2.6: invasions ------------------------------------------------------------

/// Arrows 0 and 1 both lead by sea to the port C0; roads C0-C1-C2, a
/// navigation route C0-C3, a road C3-C4. Seat 1 holds C1, C2, C3 and C4
/// with one unit each; temples of seats 1 and 2 in C5 and C6, apart.
fn two_arrows_to_a_port(version: u32) -> Driver {
    let b = board(7, &[(0, 1), (1, 2), (3, 4)], &[(0, 3)], &[(0, true), (0, true)]);
    let mut d = table(b, &[ODIN, TYR, BRAGI], &v(version));
    for c in 1..5 {
        d.put(1, c, 1, false);
    }
    d.put(1, 5, 3, true);
    d.put(2, 6, 3, true);
    d.ev(Event::InvasionBegan { order: vec![0, 1, 2] });
    d
}

#[test]
fn during_the_second_invasion_the_first_attack_is_ignored_then_the_invader_makes_their_second_attack() {
    // Version 3: going on by road from the port taken by the first path,
    // the port counts as the path's first city: one city more, not two.
    let mut d = two_arrows_to_a_port(3);
    let e = d.refused(0, &invade(vec![path(0, 0, &[]), path(1, 1, &[2])], None, vec![]));
    assert!(e.contains("path 2: an invasion path takes at most 2 cities, the port you hold"), "{e}");
    let ev = d.scripted(0, &invade(vec![path(0, 0, &[]), path(1, 1, &[])], None, vec![]), &[4, 1, 1]).unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::Invaded { city: 1, placed: 3, .. })), "{ev:?}");
    assert_eq!(d.state.controlled(0), vec![0, 1]);
    // By "a 2nd navigation route" the port is skipped: two cities further (the ports example).
    let mut d = two_arrows_to_a_port(3);
    let c = invade(vec![path(0, 0, &[]), path(1, 3, &[4])], None, vec![]);
    d.scripted(0, &c, &[4, 1, 1, 4, 1, 1]).unwrap();
    assert_eq!(d.state.controlled(0), vec![0, 3, 4]);
    // Version 2 as it was: two cities by road after the port.
    let mut d = two_arrows_to_a_port(2);
    d.scripted(0, &invade(vec![path(0, 0, &[]), path(1, 1, &[2])], None, vec![]), &[4, 1, 1, 4, 1, 1]).unwrap();
    assert_eq!(d.state.controlled(0), vec![0, 1, 2]);
}

/// Arrows 0 and 1 lead by road to C0 (empty) and C1 (seat 1's temple).
fn arrow_to_a_temple(version: u32) -> Driver {
    let mut d = table(board(4, &[], &[], &[(0, false), (1, false)]), &[ODIN, TYR, BRAGI], &v(version));
    d.put(1, 1, 3, true);
    d.put(2, 3, 3, true);
    d.ev(Event::InvasionBegan { order: vec![0, 1, 2] });
    d
}

#[test]
fn the_player_will_not_be_able_to_invade_from_that_path_but_they_can_still_place_their_invasion_blocker_on_it() {
    let c = invade(vec![path(0, 0, &[]), path(1, 1, &[])], None, vec![]);
    let mut d = arrow_to_a_temple(3);
    let ev = d.scripted(0, &c, &[]).unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::PathStopped { path: 1, city: 1, .. })), "{ev:?}");
    assert_eq!(d.state.players[0].blockers, vec![0, 1], "both arrows are blocked");
    assert_eq!((d.state.cities[1].owner, d.state.cities[1].units), (Some(1), 3), "the temple's city is not attacked");
    // Version 2 as it was: the arrow into a temple is refused.
    let e = arrow_to_a_temple(2).refused(0, &c);
    assert!(e.contains("C1 has a temple and cannot be invaded"), "{e}");
}

/// Arrow 0 leads by road to C0 (empty, with a building), then C1 (empty).
fn two_empty_cities(version: u32) -> Driver {
    let mut d = table(board(4, &[(0, 1)], &[], &[(0, false)]), &[ODIN, TYR, BRAGI], &v(version));
    d.put(1, 2, 3, true);
    d.put(2, 3, 3, true);
    d.ev(Event::BuildingPlaced { seat: 1, tile: 0, city: 0 });
    d.ev(Event::InvasionBegan { order: vec![0, 1, 2] });
    d
}

#[test]
fn the_invader_spreads_all_their_army_units_left_from_their_reserve_into_the_cities_that_they_control() {
    // Version 3: 10 of the 24 left go to C1 first, the other 14 evenly.
    let mut d = two_empty_cities(3);
    d.scripted(0, &invade(vec![path(0, 0, &[1])], None, vec![(1, 10), (2, 5)]), &[]).unwrap();
    assert_eq!((d.state.cities[0].units, d.state.cities[1].units), (10, 20));
    // Version 2 as it was: spread evenly only, and stacking is refused.
    let mut d = two_empty_cities(2);
    let e = d.refused(0, &invade(vec![path(0, 0, &[1])], None, vec![(1, 10)]));
    assert!(e.contains("rules version 3"), "{e}");
    d.scripted(0, &invade(vec![path(0, 0, &[1])], None, vec![]), &[]).unwrap();
    assert_eq!((d.state.cities[0].units, d.state.cities[1].units), (15, 15));
}

#[test]
fn only_if_all_the_cities_are_occupied_by_a_building_the_temple_goes_above_an_existing_building() {
    // Version 3: the temple named for C0, which holds a building, goes to the free C1.
    let mut d = two_empty_cities(3);
    d.scripted(0, &invade(vec![path(0, 0, &[1])], Some(0), vec![]), &[]).unwrap();
    assert_eq!(d.state.temple_of(0), Some(1));
    // With C0 the only city, the temple goes above its building.
    let mut d = two_empty_cities(3);
    d.scripted(0, &invade(vec![path(0, 0, &[])], Some(0), vec![]), &[]).unwrap();
    assert_eq!(d.state.temple_of(0), Some(0));
    // Version 2 as it was: the city named, building or not.
    let mut d = two_empty_cities(2);
    d.scripted(0, &invade(vec![path(0, 0, &[1])], Some(0), vec![]), &[]).unwrap();
    assert_eq!(d.state.temple_of(0), Some(0));
}

/// Arrows 0 and 1 lead by road to C0 (25 of seat 1's units) and C1 (3);
/// a road C1-C2, C2 empty.
fn strong_defenders(version: u32) -> Driver {
    let b = board(5, &[(1, 2)], &[], &[(0, false), (1, false)]);
    let mut d = table(b, &[ODIN, TYR, BRAGI], &v(version));
    d.put(1, 0, 25, false);
    d.put(1, 1, 3, false);
    d.put(1, 3, 1, true);
    d.put(2, 4, 3, true);
    d.ev(Event::InvasionBegan { order: vec![0, 1, 2] });
    d
}

#[test]
fn after_the_attack_the_player_continues_from_the_city_they_just_invaded_and_a_path_that_cannot_is_told() {
    // 25 casualties at C0 leave 2 units for C1's 3 defenders: the attack
    // fails, and the path cannot go on to C2; version 3 says so.
    let c = invade(vec![path(0, 0, &[]), path(1, 1, &[2])], None, vec![]);
    let mut d = strong_defenders(3);
    let ev = d.scripted(0, &c, &[1, 1, 1, 1, 1, 1]).unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::Invaded { city: 1, placed: 0, casualties: 2, .. })), "{ev:?}");
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::PathStopped { path: 1, city: 2, reason, .. } if reason.contains("failed"))),
        "{ev:?}"
    );
    // Version 3 checks the whole plan before a die is rolled: a later path
    // that could never be played refuses the invasion at once.
    let bad = invade(vec![path(0, 0, &[]), path(1, 1, &[4])], None, vec![]);
    let e = strong_defenders(3).refused(0, &bad);
    assert!(e.contains("path 2: C4 is not joined by a road to C1"), "{e}");
    // Version 2 as it was: the path ends without a word.
    let mut d = strong_defenders(2);
    let ev = d.scripted(0, &c, &[1, 1, 1, 1, 1, 1]).unwrap();
    assert!(!ev.iter().any(|e| matches!(e, Event::PathStopped { .. })), "{ev:?}");
}

// --- 3.7: the rumor deck --------------------------------------------------------------

#[test]
fn the_rumor_deck_is_placed_face_up_so_that_only_the_top_card_of_the_deck_is_shown() {
    let d = Driver::new(&v(3), 4, 1).unwrap();
    let e = d.log.iter().find(|e| matches!(e.event, Event::RumorDeck { .. })).unwrap();
    assert_eq!(e.visibility, Visibility::Seats(Vec::new()), "nobody reads the whole deck");
    let Some(Event::RumorDeck { cards, left }) = &e.redacted else { panic!("{e:?}") };
    assert_eq!((cards.clone(), *left), (d.state.rumor_deck[..1].to_vec(), Some(12)));
    let words = FallenKingdoms::describe(&d.state, e.redacted.as_ref().unwrap(), &[]);
    assert!(words.contains("only its top card shows"), "{words}");
    // Version 2 as it was: the sorted deck in the public log.
    let d = Driver::new(&v(2), 4, 1).unwrap();
    let e = d.log.iter().find(|e| matches!(e.event, Event::RumorDeck { .. })).unwrap();
    assert_eq!(e.visibility, Visibility::Public);
}

// --- 8.3: the size of the map ---------------------------------------------------------

#[test]
fn the_map_can_be_created_so_that_it_will_hold_more_or_less_than_6_cities_per_player() {
    for (seats, per) in [(3u8, 9u8), (4, 9), (4, 5), (5, 7), (3, 6)] {
        let o = Options { cities_per_player: Some(per), ..v(3) };
        let d = Driver::new(&o, seats, 2).unwrap_or_else(|e| panic!("{seats} players, {per} cities: {}", e.message));
        assert_eq!(d.state.cities.len(), seats as usize * per as usize, "{seats} players, {per} cities each");
        assert_eq!(d.state.rules.cities_per_player, per);
    }
    let o = Options { cities_per_player: Some(4), ..v(3) };
    let e = Driver::new(&o, 3, 2).err().expect("12 cities cannot be made").message;
    assert!(e.contains("cannot make 4 cities per player for 3 players; they make 6, 7, 8, 9"), "{e}");
    // Version 2 as it was: 6 cities per player only.
    let o = Options { cities_per_player: Some(9), ..v(2) };
    assert!(Driver::new(&o, 3, 2).err().expect("refused").message.contains("rules version 3"));
    // The rule's 6 writes nothing new into the game's first event.
    let d = Driver::new(&v(3), 3, 2).unwrap();
    let begun = serde_json::to_value(&d.log[0].event).unwrap();
    assert!(begun["rules"].get("cities_per_player").is_none(), "{begun}");
}

// --- 4.1 and 8.6: Loki, where a player chooses a god ---------------------------------

#[test]
fn cities_which_contain_enemy_temples_are_immune_so_loki_says_where_it_is_chosen_that_it_needs_powered_down_temples() {
    let mut d = Driver::new(&v(1), 3, 1).unwrap();
    d.state.players[0].dealt = Some(vec![LOKI, ODIN]);
    let labels: Vec<String> = FallenKingdoms::legal(&d.state, 0)
        .iter()
        .map(|c| FallenKingdoms::label(&d.state, 0, c))
        .filter(|l| l.contains("Loki"))
        .collect();
    assert_eq!(labels.len(), 1, "{labels:?}");
    assert!(labels[0].contains("Only with powered down temples (8.6)") && labels[0].contains("can never be used"));
    assert!(labels[0].contains("intimidation 2"), "{}", labels[0]);
}

// --- The move form's words -------------------------------------------------------------

#[test]
fn the_move_form_states_the_rampage_condition_as_5_2_6_does() {
    let mut d = empty_city(3);
    d.put(1, 1, 1, false);
    let view: crate::view::View = serde_json::from_value(FallenKingdoms::view(&d.state, Viewer::Seat(0))).unwrap();
    let legal: Vec<serde_json::Value> =
        FallenKingdoms::legal(&d.state, 0).iter().map(|c| serde_json::to_value(c).unwrap()).collect();
    let labels: Vec<String> = FallenKingdoms::legal(&d.state, 0).iter().map(|c| format!("{c:?}")).collect();
    let entered = Default::default();
    let input = runestone_engine::present::FormsInput {
        seat: 0,
        view: &view,
        legal: &legal,
        labels: &labels,
        entered: &entered,
        names: &[],
    };
    let text = format!("{:?}", crate::forms::forms(&input).expect("the move form"));
    assert!(text.contains("If the first roll kills or drives off every defender, rampage"), "{text}");
    assert!(!text.contains("by 3 or more"));
}

// --- The bot of version 3 reaches every rule -------------------------------------------

#[test]
fn the_bot_of_version_3_re_invades_a_port_it_takes_names_its_temple_city_and_stacks_its_reserve() {
    let d = two_arrows_to_a_port(3);
    let c = crate::bot::invasion(&d.state, 0).expect("an invasion");
    // The first arrow takes the port C0 and goes on to C1; the second arrow
    // into the same port goes on from it by the navigation route to C3, then C4.
    assert_eq!(c, invade(vec![path(0, 0, &[1]), path(1, 3, &[4])], Some(0), vec![(1, 3)]));
    // Version 2's bot as it was: one path, no temple named, nothing stacked.
    let d = two_arrows_to_a_port(2);
    assert_eq!(crate::bot::invasion(&d.state, 0), Some(invade(vec![path(0, 0, &[1])], None, vec![])));
}

#[test]
fn the_bot_of_version_3_gives_standing_defence_orders_that_retreat_and_calls_off_attacks_after_a_lost_battle() {
    // Seat 0: 6 units in C0 and 6 in C3, its temple in C0; seat 1 holds C1 and C4 with one unit each.
    let b = board(6, &[(0, 1), (3, 4)], &[], &[]);
    let program = |version: u32| {
        let mut d = table(b.clone(), &[ODIN, TYR, BRAGI], &v(version));
        d.put(0, 0, 6, true);
        d.put(0, 3, 6, false);
        d.put(1, 1, 1, true);
        d.put(1, 4, 1, false);
        d.put(2, 5, 3, true);
        d.state.turn = 2;
        crate::bot::program(&d.state, 0)
    };
    let Command::Program { steps, .. } = program(3) else { panic!("a program") };
    let Command::SetDefence { defence } = &steps[0].step else { panic!("{:?}", steps[0]) };
    assert_eq!((defence.retreat_at, defence.per_city.clone(), defence.complete_from_board), (1, vec![(0, 0)], true));
    let Some(Command::Move { attacks, .. }) = steps.last().map(|s| s.step.clone()) else { panic!("{steps:?}") };
    assert_eq!(attacks.iter().map(|a| (a.city, a.call_off_if_lost)).collect::<Vec<_>>(), vec![(1, false), (4, true)]);
    // Version 2's bot as it was: no defence orders, no attack called off.
    let Command::Program { steps, .. } = program(2) else { panic!("a program") };
    assert!(!steps.iter().any(|s| matches!(s.step, Command::SetDefence { .. })));
    let Some(Command::Move { attacks, .. }) = steps.last().map(|s| s.step.clone()) else { panic!("{steps:?}") };
    assert!(attacks.iter().all(|a| !a.call_off_if_lost));
}
