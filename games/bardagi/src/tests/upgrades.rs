//! The upgrade effects ("Building upgrades", the two lists of effects).

use crate::board::Colour;
use crate::build::{Effect, TILES};
use crate::state::{Building, Card, Command, Deal, Event, Good, Loc, Unit};

use super::{mini, Driver};

fn with(d: &mut Driver, seat: u8, b: Building, e: Effect) {
    let t = TILES.iter().position(|t| t.building == b && t.effect == e).expect("tile");
    d.state.players[seat as usize].upgrades |= 1u64 << t;
}

fn blue(hand: [u8; 4]) -> (Driver, u8, u8) {
    let mut d = mini(4);
    let blue = d.seat(Colour::Blue);
    let red = d.seat(Colour::Red);
    d.turn_of(blue, hand);
    (d, blue, red)
}

#[test]
fn the_champion_makes_a_berserkur_count_six_in_defence() {
    let (mut d, b, r) = blue([1, 0, 0, 0]);
    with(&mut d, r, Building::Virki, Effect::BerserkurStrength);
    d.state.players[r as usize].units[0] = Loc::Area(1);
    d.state.players[b as usize].units[0] = Loc::Area(1);
    d.state.players[b as usize].disks[0] = 6;
    let e = d.refused(b, &Command::Attack { claim: false, reinforce: 0 });
    assert_eq!(e, "needs 7 disks, Virki holds 6");
}

#[test]
fn the_axe_master_makes_each_axe_count_four() {
    let (mut d, b, r) = blue([1, 0, 0, 0]);
    with(&mut d, r, Building::Virki, Effect::AxePlusTwo);
    d.own(r, &[1], 1);
    d.state.areas[1].axes = 1;
    d.state.players[b as usize].units[0] = Loc::Area(1);
    d.state.players[b as usize].disks[0] = 5;
    let e = d.refused(b, &Command::Attack { claim: true, reinforce: 0 });
    assert_eq!(e, "needs 6 disks, Virki holds 5", "4 for the axe, 1 defender, 1 to claim");
}

#[test]
fn the_horse_stable_moves_the_berserkur_three_areas_with_one_card() {
    let (mut d, b, _) = blue([1, 0, 0, 0]);
    with(&mut d, b, Building::Virki, Effect::BerserkurMovesThree);
    d.act(b, &Command::Move { unit: Unit::Berserkur, to: 9 }).unwrap();
}

#[test]
fn the_war_horn_lets_another_card_make_one_berserkur_action_a_round() {
    let (mut d, b, _) = blue([0, 0, 2, 0]);
    with(&mut d, b, Building::Virki, Effect::AnyCardBerserkur);
    let ev = d.act(b, &Command::Move { unit: Unit::Berserkur, to: 1 }).unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::CardPlayed { card: Card::Kaupmadur, as_card: Card::Berserkur, .. })));
    // Once a round: the next Berserkur action needs a Berserkur card.
    let e = d.refused(b, &Command::Move { unit: Unit::Berserkur, to: 0 });
    assert!(e.contains("no Berserkur card left"), "{e}");
}

#[test]
fn the_seer_gives_the_godi_one_free_action_a_round() {
    let (mut d, b, _) = blue([0, 0, 1, 0]);
    with(&mut d, b, Building::Hof, Effect::GodiFreeAction);
    let ev = d.act(b, &Command::Move { unit: Unit::Godi, to: 1 }).unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::FreeActionUsed { effect: Effect::GodiFreeAction, .. })));
    d.act(b, &Command::Convert).err().unwrap();
    assert_eq!(d.state.players[b as usize].played.total(), 0);
}

#[test]
fn the_messenger_does_home_actions_from_anywhere_and_one_free() {
    let (mut d, b, _) = blue([0, 1, 0, 0]);
    with(&mut d, b, Building::Verslun, Effect::HomeActionAnywhere);
    let p = &mut d.state.players[b as usize];
    p.units[2] = Loc::Area(9);
    p.disks[0] = 1;
    p.goods[Good::Meat.idx()] = 4;
    let ev = d.act(b, &Command::Trade { deals: vec![], refill: vec![Building::Virki] }).unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::FreeActionUsed { effect: Effect::HomeActionAnywhere, .. })));
    assert_eq!(d.state.players[b as usize].disks[0], 6);
    assert_eq!(d.state.players[b as usize].played.total(), 0, "the free action lays no card");
    // Once a round: a second home action needs a Kaupmadur card, and there is none.
    d.state.players[b as usize].disks[1] = 1;
    d.state.players[b as usize].goods[Good::Wool.idx()] = 4;
    let e = d.refused(b, &Command::Trade { deals: vec![], refill: vec![Building::Hof] });
    assert!(e.contains("no Kaupmadur card left"), "{e}");
}

#[test]
fn the_tannery_sells_up_to_four_hide_a_turn_for_a_gold_each() {
    let (mut d, b, _) = blue([0, 0, 2, 0]);
    with(&mut d, b, Building::Verslun, Effect::HideForGold);
    d.state.players[b as usize].goods[Good::Hide.idx()] = 5;
    let gold = d.state.players[b as usize].gold;
    d.act(b, &Command::Trade { deals: vec![Deal::Tannery { hide: 3 }], refill: vec![] }).unwrap();
    assert_eq!(d.state.players[b as usize].gold, gold + 3);
    let e = d.refused(b, &Command::Trade { deals: vec![Deal::Tannery { hide: 2 }], refill: vec![] });
    assert!(e.contains("up to 4 hide a turn"), "{e}");
}

#[test]
fn the_storehouse_holds_eight_of_each_good() {
    let (mut d, b, _) = blue([0, 0, 1, 0]);
    with(&mut d, b, Building::Verslun, Effect::LargerStorage);
    assert_eq!(d.state.players[b as usize].storage(), 8);
    d.state.players[b as usize].goods = [6, 0, 0, 0, 0, 0];
    d.state.players[b as usize].gold = 1;
    d.act(b, &Command::Trade { deals: vec![Deal::Buy { get: vec![Good::Timber, Good::Timber] }], refill: vec![] })
        .unwrap();
    assert_eq!(d.state.players[b as usize].goods[0], 8);
}

#[test]
fn the_mead_hall_lets_virki_hold_two_more_disks() {
    let (mut d, b, _) = blue([0, 0, 1, 0]);
    assert_eq!(d.state.players[b as usize].capacity(Building::Virki), 6);
    with(&mut d, b, Building::Verslun, Effect::MeadHall);
    assert_eq!(d.state.players[b as usize].capacity(Building::Virki), 8);
}

#[test]
fn oarsmen_type_upgrades_add_two_ocean_squares_each() {
    let (mut d, b, _) = blue([0, 1, 0, 1]);
    with(&mut d, b, Building::Virki, Effect::KnerrirPlusTwo);
    d.act(b, &Command::Board { unit: Unit::Godi }).unwrap();
    let route = (0..5).map(crate::board::SeaNode::Ocean).collect();
    d.act(b, &Command::Sail { route, sea_rune: false }).unwrap();
}
