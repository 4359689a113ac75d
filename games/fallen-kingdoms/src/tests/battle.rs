//! Section 5, Movements and combat: planned movement (5.1), battle resolution (5.2)
//! with the rulebook's battle example, capturing temples (5.3) and falling
//! kingdoms (5.4).

use super::{board, table, Driver, BRAGI, ODIN, THOR, TYR};
use crate::state::{AttackOrder, Command, Event, Move, Step};
use crate::Options;

/// C0 - C1 - C2 by road, C3 apart; seat 0 attacks from C0.
fn field(gods: &[u8]) -> Driver {
    let mut d = table(board(5, &[(0, 1), (1, 2)], &[], &[]), gods, &Options::default());
    d.put(2, 4, 3, true);
    d
}

/// `field`, the groups given (seat, city, units, temple), and seat 0 to move.
fn war(gods: &[u8], groups: &[(u8, u8, u8, bool)]) -> Driver {
    let mut d = field(gods);
    for &(seat, city, units, temple) in groups {
        d.put(seat, city, units, temple);
    }
    d.turn(0, Step::Move);
    d
}

/// Two fronts: C0-C1 and C2-C3 by road; seat 0 holds C0 (3) and C2 (4),
/// seat 1 C1 (5, temple) and C3 (3); seat 0 to move.
fn two_fronts() -> Driver {
    let mut d = table(board(5, &[(0, 1), (2, 3)], &[], &[]), &[ODIN, TYR, BRAGI], &Options::default());
    d.put(0, 0, 3, true);
    d.put(0, 2, 4, false);
    d.put(1, 1, 5, true);
    d.put(1, 3, 3, false);
    d.put(2, 4, 3, true);
    d.turn(0, Step::Move);
    d
}

fn attack(from: u8, to: u8, units: u8, retreat_at: u8, rampage: Option<u8>) -> Command {
    Command::Move {
        moves: vec![Move { from, to, units }],
        attacks: vec![AttackOrder { retreat_at, rampage, ..AttackOrder::plain(to) }],
    }
}

fn rolls(ev: &[Event]) -> Vec<(u8, Vec<u8>, u8)> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Rolled { seat, dice, hits, .. } => Some((*seat, dice.clone(), *hits)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_battle_example_with_intimidation() {
    // A) The attacker (intimidation 8) sends 4 units into a city of 3 units of
    // the defender (intimidation 13: Odin's 9 and a rumor worth 4).
    let mut d = field(&[THOR, ODIN, BRAGI]);
    d.put(0, 0, 5, true);
    d.put(1, 1, 3, false);
    d.put(1, 3, 3, true);
    d.ev(Event::RumorDrawn { seat: 1, card: 12 });
    assert_eq!((d.state.intimidation(0), d.state.intimidation(1)), (8, 13));
    d.turn(0, Step::Move);
    // B) 2-4, C) 1-3, D) 3-5, E) 5-6; the attacker retreats with one unit left.
    let ev = d.scripted(0, &attack(0, 1, 4, 1, None), &[2, 4, 1, 3, 3, 5, 5, 6]).unwrap();
    assert_eq!(rolls(&ev), vec![(0, vec![2, 4], 1), (1, vec![1, 3], 0), (0, vec![3, 5], 1), (1, vec![5, 6], 2)]);
    assert!(ev.contains(&Event::Intimidated { seat: 0, attacker: true, to: 0 }), "{ev:?}");
    assert!(ev.contains(&Event::Retreated { seat: 0, attacker: true, to: vec![(0, 1)] }), "{ev:?}");
    assert!(ev.contains(&Event::BattleEnded { city: 1, won: false }));
    // The defender kept one unit; the attacker is home with 1 + 1 fled + 1 retreated.
    assert_eq!((d.state.cities[1].owner, d.state.cities[1].units), (Some(1), 1));
    assert_eq!(d.state.cities[0].units, 3);
}

#[test]
fn when_neither_side_hits_in_a_round_the_battle_ends_in_exhaustion() {
    let mut d = war(&[ODIN, TYR, BRAGI], &[(0, 0, 3, true), (1, 1, 2, true)]);
    let ev = d.scripted(0, &attack(0, 1, 2, 0, None), &[1, 1, 3, 1]).unwrap();
    assert!(ev.contains(&Event::Exhausted { city: 1 }), "{ev:?}");
    assert_eq!(d.state.cities[0].units, 3, "the attackers go back");
    assert_eq!(d.state.cities[1].units, 2);
}

#[test]
fn an_even_die_of_the_more_intimidating_attacker_drives_a_defending_unit_away() {
    let mut d = war(&[THOR, BRAGI, ODIN], &[(0, 0, 3, true), (1, 1, 2, false), (1, 2, 1, true)]);
    let ev = d.scripted(0, &attack(0, 1, 2, 0, None), &[2, 1, 1, 1]).unwrap();
    assert!(ev.contains(&Event::Intimidated { seat: 1, attacker: false, to: 2 }), "{ev:?}");
    assert_eq!(d.state.cities[2].units, 2);
}

#[test]
fn cities_which_have_temples_cannot_be_affected_by_the_attackers_intimidation() {
    let mut d = war(&[THOR, BRAGI, ODIN], &[(0, 0, 3, true), (1, 1, 2, true), (1, 2, 1, false)]);
    let ev = d.scripted(0, &attack(0, 1, 2, 0, None), &[2, 1, 1, 1]).unwrap();
    assert!(!ev.iter().any(|e| matches!(e, Event::Intimidated { .. })), "{ev:?}");
}

#[test]
fn a_first_roll_win_lets_the_attacker_rampage_a_road_adjacent_city() {
    let mut d = war(&[ODIN, TYR, BRAGI], &[(0, 0, 4, true), (1, 1, 1, false), (1, 2, 1, false), (1, 3, 3, true)]);
    let ev = d.scripted(0, &attack(0, 1, 3, 0, Some(2)), &[4, 1, 5, 1]).unwrap();
    assert!(ev.contains(&Event::Rampaged { seat: 0, from: 1, to: 2, dice: vec![5, 1], hits: 1, lost: 0 }), "{ev:?}");
    assert_eq!((d.state.cities[2].owner, d.state.cities[2].units), (Some(0), 2));
    assert_eq!(d.state.cities[1].units, 1);
    assert_eq!(d.state.players[0].victories, 2, "each city taken counts a victory");
}

#[test]
fn a_rampage_that_scores_no_hit_costs_the_rampager_a_unit() {
    let mut d = war(&[ODIN, TYR, BRAGI], &[(0, 0, 4, true), (1, 1, 1, false), (1, 2, 1, false), (1, 3, 3, true)]);
    d.scripted(0, &attack(0, 1, 3, 0, Some(2)), &[4, 1, 1, 2]).unwrap();
    assert_eq!(d.state.cities[1].units, 2);
    assert_eq!(d.state.cities[2].owner, Some(1));
}

#[test]
fn capturing_a_temple_and_the_last_city_draws_two_rumors_and_the_kingdom_falls() {
    let mut d = field(&[ODIN, TYR, BRAGI]);
    d.put(0, 0, 4, true);
    d.put(1, 1, 1, true);
    d.ev(Event::TrackPoints { seat: 1, track: 2, points: 5 });
    d.ev(Event::Produced { seat: 1, added: [0; 3], tracks: [1, 2, 5], owed: [0, 0, 1] });
    d.ev(Event::KnowledgeTaken { seat: 1, card: 0 });
    d.turn(0, Step::Move);
    let ev = d.scripted(0, &attack(0, 1, 3, 0, None), &[5, 1]).unwrap();
    assert!(ev.contains(&Event::TempleDestroyed { city: 1 }));
    assert!(ev.contains(&Event::KingdomFell { seat: 1, by: Some(0), knowledge_points: 5 }), "{ev:?}");
    assert_eq!(ev.iter().filter(|e| matches!(e, Event::RumorDrawn { seat: 0, .. })).count(), 2);
    assert_eq!(d.state.players[1].tracks, [0, 0, 0], "the fallen player's tracks go to 0");
    assert_eq!(d.state.players[0].tracks[2], 5, "the victor takes the knowledge points");
    assert_eq!(d.state.public_knowledge, vec![0], "the fallen kingdom's knowledge becomes public");
    assert!(d.state.knows(2, crate::data::Effect::MetalBonus), "every player may use it now");
}

#[test]
fn a_player_cannot_leave_a_city_they_control_empty() {
    let mut d = war(&[ODIN, TYR, BRAGI], &[(0, 0, 4, true), (1, 1, 1, true)]);
    let e = d.refused(0, &attack(0, 1, 4, 0, None));
    assert!(e.contains("C0 would be left empty"), "{e}");
}

#[test]
fn they_may_send_all_the_troops_of_a_city_and_reinforce_it_from_another() {
    let mut d = table(board(4, &[(0, 1), (2, 0)], &[], &[]), &[ODIN, TYR, BRAGI], &Options::default());
    d.put(0, 0, 3, true);
    d.put(0, 2, 3, false);
    d.put(1, 1, 1, true);
    d.put(2, 3, 3, true);
    d.turn(0, Step::Move);
    let c = Command::Move {
        moves: vec![Move { from: 0, to: 1, units: 3 }, Move { from: 2, to: 0, units: 1 }],
        attacks: vec![],
    };
    d.scripted(0, &c, &[5, 5]).unwrap();
    assert_eq!(d.state.cities[0].units, 1);
    assert_eq!(d.state.cities[1].owner, Some(0));
}

#[test]
fn the_same_city_cannot_be_attacked_twice_in_one_turn() {
    let mut d = war(&[ODIN, TYR, BRAGI], &[(0, 0, 4, true), (1, 1, 1, true)]);
    let o = AttackOrder::plain(1);
    let c = Command::Move { moves: vec![Move { from: 0, to: 1, units: 2 }], attacks: vec![o.clone(), o] };
    assert!(d.refused(0, &c).contains("cannot be attacked twice"));
}

#[test]
fn units_move_only_by_roads_and_navigation_routes() {
    let mut d = war(&[ODIN, TYR, BRAGI], &[(0, 0, 4, true), (1, 3, 1, true)]);
    let e = d.refused(0, &attack(0, 3, 2, 0, None));
    assert!(e.contains("not joined by a road or a navigation route"), "{e}");
}

#[test]
fn six_victories_draw_a_rumor_card_and_the_track_starts_again() {
    let mut d = field(&[ODIN, TYR, BRAGI]);
    d.put(0, 0, 4, true);
    d.put(1, 1, 1, false);
    d.put(1, 3, 3, true);
    d.ev(Event::Victory { seat: 0, victories: 5 });
    d.turn(0, Step::Move);
    let ev = d.scripted(0, &attack(0, 1, 2, 0, None), &[6, 1]).unwrap();
    assert!(ev.contains(&Event::Victory { seat: 0, victories: 0 }));
    assert!(ev.iter().any(|e| matches!(e, Event::RumorDrawn { seat: 0, .. })));
}

#[test]
fn a_battle_between_absent_seats_resolves_from_standing_orders_and_is_told_round_by_round() {
    let mut d = field(&[ODIN, TYR, BRAGI]);
    d.put(0, 0, 5, true);
    d.put(1, 1, 3, false);
    d.put(1, 2, 2, true);
    d.ev(Event::DefenceSet {
        seat: 1,
        defence: Some(crate::state::Defence { retreat_at: 1, prefer: vec![2], ..Default::default() }),
    });
    d.turn(0, Step::Move);
    let ev = d.scripted(0, &attack(0, 1, 4, 2, None), &[5, 5]).unwrap();
    // Two defenders die; down to one, the defender retreats to C2 as ordered.
    assert!(ev.contains(&Event::Retreated { seat: 1, attacker: false, to: vec![(2, 1)] }), "{ev:?}");
    assert_eq!(d.state.cities[1].owner, Some(0));
    let names: Vec<String> = ["Ada", "Bo", "Cy"].iter().map(|s| s.to_string()).collect();
    let words: Vec<String> =
        ev.iter().map(|e| <crate::FallenKingdoms as runestone_engine::Game>::describe(&d.state, e, &names)).collect();
    assert!(words.contains(&"Ada attacks C1 of Bo with 4 units against 3".to_string()), "{words:?}");
    assert!(words.contains(&"Ada rolls 5-5 (4+ hits): 2 hits".to_string()), "{words:?}");
    assert!(words.contains(&"Bo retreats to C2 (1)".to_string()), "{words:?}");
}

#[test]
fn a_winning_attacker_may_move_all_the_troops_back_instead_of_moving_in() {
    let mut d = war(&[ODIN, TYR, BRAGI], &[(0, 0, 4, true), (1, 1, 1, false), (1, 3, 3, true)]);
    let c = Command::Move {
        moves: vec![Move { from: 0, to: 1, units: 3 }],
        attacks: vec![AttackOrder { occupy: false, ..AttackOrder::plain(1) }],
    };
    let ev = d.scripted(0, &c, &[5, 1]).unwrap();
    assert!(ev.contains(&Event::BattleEnded { city: 1, won: true }));
    assert!(ev.contains(&Event::Moved { seat: 0, from: 1, to: 0, units: 3 }), "{ev:?}");
    assert_eq!(d.state.cities[1].owner, None);
    assert_eq!(d.state.cities[0].units, 4);
    assert_eq!(d.state.players[0].victories, 1, "the city was captured all the same");
}

#[test]
fn units_that_did_not_engage_a_battle_can_be_moved_back_after_the_results_of_a_battle() {
    // Given seat 0 attacks C1 and then C3 from C2, the second attack to be
    // called off if the first is lost,
    let mut d = two_fronts();
    let c = Command::Move {
        moves: vec![Move { from: 0, to: 1, units: 2 }, Move { from: 2, to: 3, units: 3 }],
        attacks: vec![AttackOrder::plain(1), AttackOrder { call_off_if_lost: true, ..AttackOrder::plain(3) }],
    };
    // When the first battle is lost (the attack misses, the defence hits twice),
    let ev = d.scripted(0, &c, &[1, 3, 5, 6]).unwrap();
    assert!(ev.contains(&Event::BattleEnded { city: 1, won: false }), "{ev:?}");
    // Then the second attack is called off and its units stay home.
    assert!(ev.contains(&Event::AttackCalledOff { seat: 0, city: 3, units: 3 }), "{ev:?}");
    assert!(!ev.iter().any(|e| matches!(e, Event::BattleBegan { city: 3, .. })), "{ev:?}");
    assert_eq!((d.state.cities[2].owner, d.state.cities[2].units), (Some(0), 4));
    assert_eq!((d.state.cities[3].owner, d.state.cities[3].units), (Some(1), 3));
}

#[test]
fn an_attack_not_called_off_goes_on_after_a_lost_battle() {
    let mut d = two_fronts();
    let c = Command::Move {
        moves: vec![Move { from: 0, to: 1, units: 2 }, Move { from: 2, to: 3, units: 3 }],
        attacks: Vec::new(),
    };
    let ev = d.scripted(0, &c, &[1, 3, 5, 6, 1, 1, 1, 1]).unwrap();
    assert!(ev.contains(&Event::BattleEnded { city: 1, won: false }), "{ev:?}");
    assert!(ev.iter().any(|e| matches!(e, Event::BattleBegan { city: 3, .. })), "{ev:?}");
}

fn asking(to: u8, retreat_at: u8) -> AttackOrder {
    AttackOrder { ask: true, retreat_at, ..AttackOrder::plain(to) }
}

fn pending_battle(d: &Driver) -> Vec<(u8, String, runestone_engine::DecisionClass)> {
    <crate::FallenKingdoms as runestone_engine::Game>::pending(&d.state)
        .into_iter()
        .map(|p| (p.seat, p.kind, p.class))
        .collect()
}

#[test]
fn an_attack_that_asks_waits_for_its_attacker_before_each_roll_once_down_to_its_level() {
    use runestone_engine::DecisionClass::Small;
    // Given seat 0 attacks C1 (3 defenders) with 3 units, asking once down to 2,
    let mut d = war(&[ODIN, TYR, BRAGI], &[(0, 0, 5, true), (1, 1, 3, true)]);
    let c = Command::Move { moves: vec![Move { from: 0, to: 1, units: 3 }], attacks: vec![asking(1, 2)] };
    // When the attack misses and the defence hits once,
    let ev = d.scripted(0, &c, &[1, 3, 5, 3]).unwrap();
    // Then the battle waits for the attacker: a small decision (the short deadline).
    assert!(matches!(ev.last(), Some(Event::BattleAsked { asked }) if asked.seat == 0 && asked.attacker), "{ev:?}");
    assert!(!ev.iter().any(|e| matches!(e, Event::BattleEnded { .. })), "{ev:?}");
    assert_eq!(pending_battle(&d), vec![(0, "battle".to_string(), Small)]);
    let question = <crate::FallenKingdoms as runestone_engine::Game>::pending(&d.state)[0].prompt.clone();
    assert!(question.contains("C1 is down to 2 units against 3"), "{question}");
    // And nothing else is taken meanwhile.
    assert!(d.refused(0, &c).contains("a battle waits for an answer"));
    let e = d.refused(0, &Command::AnswerBattle { retreat: true, to: Some(0) });
    assert!(e.contains("name no city"), "{e}");
    // When it rolls on (2 hits, then the defence misses), it is asked again,
    let ev = d.scripted(0, &Command::AnswerBattle { retreat: false, to: None }, &[5, 5, 1, 1]).unwrap();
    assert_eq!(rolls(&ev), vec![(0, vec![5, 5], 2), (1, vec![1, 1], 0)]);
    assert!(matches!(ev.last(), Some(Event::BattleAsked { asked }) if asked.seat == 0), "{ev:?}");
    // And when it retreats, the units go home and the player phase ends.
    let ev = d.act(0, &Command::AnswerBattle { retreat: true, to: None }).unwrap();
    assert!(ev.contains(&Event::Retreated { seat: 0, attacker: true, to: vec![(0, 2)] }), "{ev:?}");
    assert!(ev.contains(&Event::BattleEnded { city: 1, won: false }));
    assert!(ev.contains(&Event::TurnEnded { seat: 0 }), "{ev:?}");
    assert_eq!((d.state.cities[0].units, d.state.cities[1].units), (4, 1));
    assert!(d.state.asked.is_none() && d.state.battle.is_none());
}

#[test]
fn a_defence_that_asks_waits_for_the_defender_and_the_movement_goes_on_after_the_answer() {
    use runestone_engine::DecisionClass::Small;
    // Given seat 1 asks to be asked once down to 1 defender, and seat 0
    // attacks C1 and then C3,
    let mut d = table(board(6, &[(0, 1), (2, 3), (1, 4)], &[], &[]), &[ODIN, TYR, BRAGI], &Options::default());
    d.put(0, 0, 4, true);
    d.put(0, 2, 4, false);
    d.put(1, 1, 3, true);
    d.put(1, 3, 2, false);
    d.put(2, 5, 3, true);
    d.act(
        1,
        &Command::SetDefence {
            defence: crate::state::Defence { retreat_at: 1, prefer: vec![], ask: true, ..Default::default() },
        },
    )
    .unwrap();
    d.turn(0, Step::Move);
    let c = Command::Move {
        moves: vec![Move { from: 0, to: 1, units: 3 }, Move { from: 2, to: 3, units: 3 }],
        attacks: vec![AttackOrder::plain(1), AttackOrder::plain(3)],
    };
    // When the first attack kills 2 of the 3 defenders,
    let ev = d.scripted(0, &c, &[5, 5]).unwrap();
    // Then the battle waits for the defender, and the second has not begun.
    assert!(matches!(ev.last(), Some(Event::BattleAsked { asked }) if asked.seat == 1 && !asked.attacker));
    assert!(!ev.iter().any(|e| matches!(e, Event::BattleBegan { city: 3, .. })), "{ev:?}");
    assert_eq!(pending_battle(&d), vec![(1, "battle".to_string(), Small)]);
    assert_eq!(d.waiting(), vec![1], "only the defender is asked");
    // It may retreat only next to the battle, to a city of its own or empty.
    let e = d.refused(1, &Command::AnswerBattle { retreat: true, to: Some(3) });
    assert!(e.contains("C3 is not a city next to C1"), "{e}");
    assert!(d.refused(2, &Command::AnswerBattle { retreat: false, to: None }).contains("nothing is asked of you"));
    // When it retreats to C4,
    let ev = d.scripted(1, &Command::AnswerBattle { retreat: true, to: Some(4) }, &[5, 5]).unwrap();
    // Then C1 is taken, the attack on C3 is fought, and the turn passes on.
    assert!(ev.contains(&Event::Retreated { seat: 1, attacker: false, to: vec![(4, 1)] }), "{ev:?}");
    assert!(ev.contains(&Event::BattleEnded { city: 1, won: true }));
    assert!(ev.contains(&Event::BattleEnded { city: 3, won: true }), "{ev:?}");
    assert!(ev.contains(&Event::TurnBegan { seat: 1, turn: 1 }), "{ev:?}");
    assert_eq!(d.state.cities[4].owner, Some(1));
    assert_eq!((d.state.cities[1].owner, d.state.cities[3].owner), (Some(0), Some(0)));
}

#[test]
fn at_the_deadline_the_fallback_answers_as_the_standing_orders_would_have() {
    // Given a defender asked with C4 empty next to the battle,
    let mut d = table(board(6, &[(0, 1), (1, 4)], &[], &[]), &[ODIN, TYR, BRAGI], &Options::default());
    d.put(0, 0, 4, true);
    d.put(1, 1, 3, true);
    d.put(2, 5, 3, true);
    d.ev(Event::DefenceSet {
        seat: 1,
        defence: Some(crate::state::Defence { retreat_at: 1, prefer: vec![], ask: true, ..Default::default() }),
    });
    d.turn(0, Step::Move);
    d.scripted(0, &attack(0, 1, 3, 0, None), &[5, 5]).unwrap();
    // When its time runs out, the fallback retreats as ordered,
    let fallback = <crate::FallenKingdoms as runestone_engine::Game>::fallback(&d.state, 1).unwrap();
    assert_eq!(fallback, Command::AnswerBattle { retreat: true, to: None });
    let ev = d.act(1, &fallback).unwrap();
    // Then the defenders go to the refuge and the battle is over.
    assert!(ev.contains(&Event::Retreated { seat: 1, attacker: false, to: vec![(4, 1)] }), "{ev:?}");
    assert_eq!(d.state.cities[1].owner, Some(0));
    // And the whole log folds to the same position.
    let mut again = crate::State::default();
    for e in &d.log {
        crate::state::apply(&mut again, &e.event);
    }
    assert_eq!(serde_json::to_value(&again).unwrap(), serde_json::to_value(&d.state).unwrap());
}

#[test]
fn the_asked_seat_gets_the_battles_question_as_buttons_and_the_others_their_standing_orders() {
    use runestone_engine::present::{FormsInput, Part, Present};
    use runestone_engine::{Game, Viewer};
    // Given a defender asked with C4 empty next to the battle,
    let mut d = table(board(6, &[(0, 1), (1, 4)], &[], &[]), &[ODIN, TYR, BRAGI], &Options::default());
    d.put(0, 0, 4, true);
    d.put(1, 1, 3, true);
    d.put(2, 5, 3, true);
    let asks = crate::state::Defence { retreat_at: 1, ask: true, ..Default::default() };
    d.ev(Event::DefenceSet { seat: 1, defence: Some(asks) });
    d.turn(0, Step::Move);
    d.scripted(0, &attack(0, 1, 3, 0, None), &[5, 5]).unwrap();
    let view = |seat: u8| -> crate::view::View {
        serde_json::from_value(crate::FallenKingdoms::view(&d.state, Viewer::Seat(seat))).unwrap()
    };
    let submits = |parts: &[Part]| -> Vec<String> {
        fn walk(parts: &[Part], out: &mut Vec<String>) {
            for p in parts {
                match p {
                    Part::Group(g) => walk(&g.parts, out),
                    Part::Form(f) => walk(&f.parts, out),
                    Part::Submit(s) => out.push(s.label.clone()),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(parts, &mut out);
        out
    };
    // When the defender opens its page,
    let v = view(1);
    let legal: Vec<serde_json::Value> =
        crate::FallenKingdoms::legal(&d.state, 1).iter().map(|c| serde_json::to_value(c).unwrap()).collect();
    let labels: Vec<String> = crate::FallenKingdoms::legal(&d.state, 1)
        .iter()
        .map(|c| crate::FallenKingdoms::label(&d.state, 1, c))
        .collect();
    let entered = std::collections::BTreeMap::new();
    let input = FormsInput { seat: 1, view: &v, legal: &legal, labels: &labels, entered: &entered, names: &[] };
    let forms = crate::FallenKingdoms::forms(&input).unwrap();
    // Then the question is answered by buttons: fight on, retreat as ordered, or to C4.
    let buttons = submits(&forms.parts);
    for b in ["Fight on", "Retreat as your standing orders say", "Retreat to C4"] {
        assert!(buttons.contains(&b.to_string()), "{b} in {buttons:?}");
    }
    // And a seat asked nothing is offered only its standing orders.
    let v2 = view(2);
    let input = FormsInput { seat: 2, view: &v2, legal: &[], labels: &[], entered: &entered, names: &[] };
    assert!(crate::FallenKingdoms::forms(&input)
        .unwrap()
        .parts
        .iter()
        .all(|p| !submits(std::slice::from_ref(p)).iter().any(|b| b.starts_with("Fight") || b.starts_with("Retreat"))));
    let standing = crate::FallenKingdoms::standing_forms(&input).expect("standing orders offered");
    assert_eq!(submits(&standing.parts), vec!["Keep these defence orders".to_string()]);
}
