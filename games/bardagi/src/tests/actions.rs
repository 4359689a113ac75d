//! The action phase: moving on land, and each unit's actions ("The game
//! board", "Berserkur", "Godi", "Kaupmadur", "Knerrir", "Barbarian camp").

use crate::board::{Colour, SeaNode};
use crate::state::{Building, Command, Deal, DiskMove, DiskSpot, Event, Good, Loc, RuneCast, RuneKind, ShipLoc, Unit};
use crate::Bardagi;
use runestone_engine::game::{Game, Viewer, Visibility};

use super::{mini, Driver};

fn blue_turn(hand: [u8; 4]) -> (Driver, u8) {
    let mut d = mini(4);
    let blue = d.seat(Colour::Blue);
    d.turn_of(blue, hand);
    (d, blue)
}

fn put(d: &mut Driver, seat: u8, unit: Unit, area: u8) {
    d.state.players[seat as usize].units[unit.idx()] = Loc::Area(area);
}

// --- Moving -----------------------------------------------------------------

#[test]
fn berserkur_moves_one_area_per_card_godi_and_kaupmadur_two() {
    let (mut d, blue) = blue_turn([2, 2, 2, 0]);
    let e = d.refused(blue, &Command::Move { unit: Unit::Berserkur, to: 8 });
    assert!(e.contains("takes 2 moves; one Berserkur card gives 1"), "{e}");
    d.act(blue, &Command::Move { unit: Unit::Godi, to: 8 }).unwrap();
    d.act(blue, &Command::Move { unit: Unit::Berserkur, to: 1 }).unwrap();
    assert_eq!(d.state.players[blue as usize].played.total(), 2);
}

#[test]
fn interconnected_own_areas_count_as_one_area() {
    let (mut d, blue) = blue_turn([1, 0, 0, 0]);
    d.own(blue, &[7, 8, 9], 1);
    // Home -> Quarry -> Iron mine -> Cattle, all own, then out onto Sheep 3:
    // the own land is one area, so it is one area's move, one card.
    let ev = d.act(blue, &Command::Move { unit: Unit::Berserkur, to: 3 }).unwrap();
    assert!(matches!(ev[1], Event::UnitMoved { cost: 1, .. }), "{ev:?}");
    assert!(d.state.players[blue as usize].hand.total() == 0);
    let e = d.refused(blue, &Command::Move { unit: Unit::Berserkur, to: 2 });
    assert!(e.contains("no Berserkur card left"), "{e}");
}

#[test]
fn rivers_are_crossed_only_at_bridges() {
    let (mut d, blue) = blue_turn([1, 0, 2, 0]);
    put(&mut d, blue, Unit::Berserkur, 1);
    // Forest 1 and Forest 2 are neighbours across a river without a bridge:
    // the way round by the Iron mine is two areas.
    let e = d.refused(blue, &Command::Move { unit: Unit::Berserkur, to: 2 });
    assert!(e.contains("takes 2 moves"), "{e}");
    // Village 5 and Camp 6 are joined by a bridge (the camp admits only a Berserkur).
    d.own(blue, &[6], 1);
    put(&mut d, blue, Unit::Kaupmadur, 5);
    d.act(blue, &Command::Move { unit: Unit::Kaupmadur, to: 6 }).unwrap();
}

#[test]
fn mountains_are_never_crossed() {
    let (mut d, blue) = blue_turn([0, 2, 0, 0]);
    put(&mut d, blue, Unit::Godi, 9);
    // Cattle 9 touches the mountain; Sacred 10 lies beyond it, and the only
    // other way is through Red's home.
    let e = d.refused(blue, &Command::Move { unit: Unit::Godi, to: 10 });
    assert!(e.contains("cannot reach Sacred 10 by land"), "{e}");
    assert!(!d.state.board.land[9].contains(&10) && !d.state.board.land[3].contains(&10));
}

#[test]
fn home_areas_are_closed_to_other_clans_except_their_kaupmadur() {
    let (mut d, blue) = blue_turn([2, 2, 2, 0]);
    for u in Unit::ALL {
        put(&mut d, blue, u, 3);
    }
    let e = d.refused(blue, &Command::Move { unit: Unit::Berserkur, to: 4 });
    assert!(e.contains("another clan's home area; only a Kaupmadur may enter it"), "{e}");
    d.refused(blue, &Command::Move { unit: Unit::Godi, to: 4 });
    d.act(blue, &Command::Move { unit: Unit::Kaupmadur, to: 4 }).unwrap();
}

#[test]
fn areas_with_an_enemy_axe_are_closed_to_enemy_godi_and_kaupmadur() {
    let (mut d, blue) = blue_turn([2, 2, 2, 0]);
    let red = d.seat(Colour::Red);
    d.own(red, &[1], 1);
    d.state.areas[1].axes = 1;
    let e = d.refused(blue, &Command::Move { unit: Unit::Godi, to: 1 });
    assert!(e.contains("holds another clan's axe"), "{e}");
    d.refused(blue, &Command::Move { unit: Unit::Kaupmadur, to: 1 });
    d.act(blue, &Command::Move { unit: Unit::Berserkur, to: 1 }).unwrap();
}

#[test]
fn godi_may_move_act_and_go_on_moving_with_the_same_card() {
    let (mut d, blue) = blue_turn([0, 2, 0, 0]);
    d.act(blue, &Command::Move { unit: Unit::Godi, to: 7 }).unwrap();
    d.act(blue, &Command::Convert).unwrap();
    // The second move of the first card, now through own land.
    d.act(blue, &Command::Move { unit: Unit::Godi, to: 8 }).unwrap();
    assert_eq!(d.state.players[blue as usize].played.godi, 2, "one card to move twice, one to convert");
}

// --- Berserkur -----------------------------------------------------------------

#[test]
fn berserkur_needs_one_more_disk_than_defenders() {
    let (mut d, blue) = blue_turn([2, 0, 0, 0]);
    let red = d.seat(Colour::Red);
    d.own(red, &[3], 2);
    put(&mut d, blue, Unit::Berserkur, 3);
    d.state.players[blue as usize].disks[0] = 2;
    let e = d.refused(blue, &Command::Attack { claim: true, reinforce: 0 });
    assert_eq!(e, "needs 3 disks, Virki holds 2");
    d.state.players[blue as usize].disks[0] = 3;
    d.act(blue, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    assert_eq!(d.state.areas[3].owner, Some(blue));
    assert_eq!(d.state.areas[3].disks, 1);
    assert_eq!(d.state.players[blue as usize].disks[0], 0);
}

#[test]
fn a_barbarian_area_takes_two_disks_a_barbarian_camp_four_and_gives_two_axes() {
    let (mut d, blue) = blue_turn([2, 0, 0, 0]);
    put(&mut d, blue, Unit::Berserkur, 1);
    d.act(blue, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    assert_eq!(d.state.players[blue as usize].disks[0], 4);
    put(&mut d, blue, Unit::Berserkur, 6);
    let ev = d.act(blue, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    assert_eq!(d.state.players[blue as usize].disks[0], 0);
    assert!(ev.iter().any(|e| matches!(e, Event::AxesGained { count: 2, .. })));
    assert_eq!(d.state.players[blue as usize].axes, 2);
}

#[test]
fn a_present_berserkur_is_defeated_first_with_five_disks_against_four() {
    let (mut d, blue) = blue_turn([2, 0, 0, 0]);
    let red = d.seat(Colour::Red);
    d.own(red, &[3], 1);
    put(&mut d, red, Unit::Berserkur, 3);
    put(&mut d, blue, Unit::Berserkur, 3);
    d.state.players[blue as usize].disks[0] = 7;
    let ev = d.act(blue, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::BerserkurDefeated { attacker_lost: 5, defender_lost: 4, .. })));
    assert_eq!(d.state.players[red as usize].units[0], Loc::Fallen);
    assert_eq!(d.state.players[red as usize].disks[0], 2);
    assert_eq!(d.state.players[blue as usize].disks[0], 0, "5 + 1 defender + 1 claim");
    assert_eq!(d.state.areas[3].owner, Some(blue));
}

#[test]
fn the_attacker_may_only_defeat_the_berserkur_and_retreat_for_free() {
    let (mut d, blue) = blue_turn([2, 0, 0, 0]);
    let red = d.seat(Colour::Red);
    d.own(red, &[1], 1);
    put(&mut d, red, Unit::Berserkur, 1);
    d.state.players[blue as usize].disks[0] = 5;
    d.act(blue, &Command::Move { unit: Unit::Berserkur, to: 1 }).unwrap();
    d.act(blue, &Command::Attack { claim: false, reinforce: 0 }).unwrap();
    assert_eq!(d.state.areas[1].owner, Some(red));
    d.act(blue, &Command::Retreat).unwrap();
    assert_eq!(d.state.players[blue as usize].units[0], Loc::Area(0));
    assert_eq!(d.state.players[blue as usize].played.berserkur, 1, "one card moves and attacks; the retreat is free");
}

#[test]
fn each_axe_costs_two_disks_and_a_defence_rune_one() {
    let (mut d, blue) = blue_turn([1, 0, 0, 0]);
    let red = d.seat(Colour::Red);
    d.own(red, &[3], 1);
    d.state.areas[3].axes = 1;
    d.state.areas[3].runes = RuneKind::Defence.bit();
    put(&mut d, blue, Unit::Berserkur, 3);
    d.state.players[blue as usize].disks[0] = 4;
    let e = d.refused(blue, &Command::Attack { claim: true, reinforce: 0 });
    assert_eq!(e, "needs 5 disks, Virki holds 4");
    d.state.players[blue as usize].disks[0] = 5;
    let ev = d.act(blue, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::AxesDestroyed { axes: 1, disks: 2, .. })));
    assert_eq!(d.state.areas[3].axes, 0);
}

#[test]
fn a_village_or_gold_mine_taken_from_a_clan_gives_one_glory_and_costs_the_loser_one() {
    let (mut d, blue) = blue_turn([1, 0, 0, 0]);
    let red = d.seat(Colour::Red);
    d.own(red, &[12], 1);
    put(&mut d, blue, Unit::Berserkur, 12);
    let ev = d.act(blue, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    let glory = |ev: &[Event], who: u8, d: i32, what: &str| {
        ev.iter().any(|e| matches!(e, Event::GloryChanged { seat, delta, reason } if *seat == who && *delta == d && reason.starts_with(what)))
    };
    assert!(glory(&ev, blue, 1, "gold mine taken"), "{ev:?}");
    assert!(glory(&ev, red, -1, "gold mine lost"), "{ev:?}");
    // The same for a village, and for no other kind of area.
    d.turn_of(blue, [2, 0, 0, 0]);
    d.own(red, &[5, 3], 1);
    put(&mut d, blue, Unit::Berserkur, 5);
    d.state.players[blue as usize].disks[0] = 6;
    let ev = d.act(blue, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    assert!(glory(&ev, blue, 1, "village taken"), "{ev:?}");
    assert!(glory(&ev, red, -1, "village lost"), "{ev:?}");
    put(&mut d, blue, Unit::Berserkur, 3);
    let ev = d.act(blue, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    assert_eq!(d.state.areas[3].owner, Some(blue));
    assert!(!ev.iter().any(|e| matches!(e, Event::GloryChanged { .. })), "a sheep area gives no instant glory: {ev:?}");
}

#[test]
fn an_enemy_godi_retreats_home_when_his_area_is_overtaken() {
    let (mut d, blue) = blue_turn([1, 0, 0, 0]);
    let red = d.seat(Colour::Red);
    d.own(red, &[1], 1);
    put(&mut d, red, Unit::Godi, 1);
    put(&mut d, blue, Unit::Berserkur, 1);
    d.act(blue, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    assert_eq!(d.state.players[red as usize].units[1], Loc::Area(d.state.players[red as usize].home));
}

#[test]
fn one_berserkur_card_rearranges_or_removes_own_disks_removed_ones_wait_in_town() {
    let (mut d, blue) = blue_turn([1, 0, 0, 0]);
    d.own(blue, &[1, 7], 3);
    let moves = vec![
        DiskMove { from: DiskSpot::Area(1), to: DiskSpot::Area(7), count: 1 },
        DiskMove { from: DiskSpot::Virki, to: DiskSpot::Area(7), count: 2 },
        DiskMove { from: DiskSpot::Area(1), to: DiskSpot::Town, count: 2 },
    ];
    d.act(blue, &Command::Rearrange { moves }).unwrap();
    assert_eq!(d.state.areas[7].disks, 6);
    assert_eq!(d.state.areas[1].disks, 0);
    assert_eq!(d.state.areas[1].owner, None, "an area without disks is no longer owned");
    assert_eq!(d.state.players[blue as usize].town, 2);
    let e = d.refused(
        blue,
        &Command::Rearrange { moves: vec![DiskMove { from: DiskSpot::Area(7), to: DiskSpot::Area(3), count: 1 }] },
    );
    assert!(e.contains("disks go only onto areas you own") || e.contains("no Berserkur card"), "{e}");
}

// --- Godi ------------------------------------------------------------------------

#[test]
fn godi_converts_barbarians_with_two_powers_and_the_second_becomes_a_recruit() {
    let (mut d, blue) = blue_turn([0, 1, 0, 0]);
    put(&mut d, blue, Unit::Godi, 1);
    d.act(blue, &Command::Convert).unwrap();
    assert_eq!(d.state.areas[1].owner, Some(blue));
    assert_eq!(d.state.players[blue as usize].disks[1], 4);
    assert_eq!(d.state.players[blue as usize].town, 1);
}

#[test]
fn godi_cannot_convert_areas_owned_by_other_clans() {
    let (mut d, blue) = blue_turn([0, 1, 0, 0]);
    let red = d.seat(Colour::Red);
    d.own(red, &[1], 1);
    put(&mut d, blue, Unit::Godi, 1);
    let e = d.refused(blue, &Command::Convert);
    assert!(e.contains("only Barbarian areas"), "{e}");
}

#[test]
fn godi_casts_up_to_two_runes_with_one_card_and_one_disk_at_any_distance() {
    let (mut d, blue) = blue_turn([0, 2, 0, 0]);
    let red = d.seat(Colour::Red);
    d.own(blue, &[13], 1);
    d.own(red, &[5], 1);
    d.state.players[blue as usize].runes = [1, 0, 0, 1, 0, 0];
    let casts = vec![RuneCast { rune: RuneKind::Divine, area: 13 }, RuneCast { rune: RuneKind::NoResources, area: 5 }];
    d.act(blue, &Command::Cast { casts }).unwrap();
    assert!(d.state.areas[13].has_rune(RuneKind::Divine));
    assert!(d.state.areas[5].has_rune(RuneKind::NoResources));
    assert_eq!(d.state.players[blue as usize].disks[1], 5);
    assert_eq!(d.state.players[blue as usize].played.godi, 1);
}

#[test]
fn curses_go_only_on_other_clans_areas_and_never_where_their_godi_stands() {
    let (mut d, blue) = blue_turn([0, 3, 0, 0]);
    let red = d.seat(Colour::Red);
    d.own(blue, &[13], 1);
    d.own(red, &[5], 1);
    d.state.players[blue as usize].runes = [1, 0, 0, 2, 0, 0];
    let e = d.refused(blue, &Command::Cast { casts: vec![RuneCast { rune: RuneKind::NoResources, area: 13 }] });
    assert!(e.contains("curse runes go only on other clans' areas"), "{e}");
    let e = d.refused(blue, &Command::Cast { casts: vec![RuneCast { rune: RuneKind::Divine, area: 5 }] });
    assert!(e.contains("only on your own areas"), "{e}");
    put(&mut d, red, Unit::Godi, 5);
    let e = d.refused(blue, &Command::Cast { casts: vec![RuneCast { rune: RuneKind::NoResources, area: 5 }] });
    assert!(e.contains("immune to runes"), "{e}");
}

#[test]
fn godi_removes_a_rune_where_he_stands_for_one_gold_without_a_card() {
    let (mut d, blue) = blue_turn([0, 0, 1, 0]);
    d.state.areas[1].runes = RuneKind::TheirsAreYours.bit();
    put(&mut d, blue, Unit::Godi, 1);
    d.state.players[blue as usize].gold = 3;
    d.act(blue, &Command::RemoveRune { rune: RuneKind::TheirsAreYours }).unwrap();
    assert_eq!(d.state.areas[1].runes, 0);
    assert_eq!(d.state.players[blue as usize].gold, 2);
    assert_eq!(d.state.players[blue as usize].played.total(), 0);
}

#[test]
fn three_runes_cost_two_gold_at_a_sacred_location_once_per_turn() {
    let (mut d, blue) = blue_turn([0, 2, 0, 0]);
    put(&mut d, blue, Unit::Godi, 10);
    d.state.players[blue as usize].gold = 5;
    let before = d.state.players[blue as usize].runes.iter().sum::<u8>();
    d.act(blue, &Command::BuyRunes { unit: Unit::Godi }).unwrap();
    assert_eq!(d.state.players[blue as usize].runes.iter().sum::<u8>(), before + 3);
    assert_eq!(d.state.players[blue as usize].gold, 3);
    let e = d.refused(blue, &Command::BuyRunes { unit: Unit::Godi });
    assert!(e.contains("once per turn"), "{e}");
}

// --- Kaupmadur -------------------------------------------------------------------

#[test]
fn kaupmadur_buys_barbarian_land_for_two_disks_with_a_one_time_good() {
    let (mut d, blue) = blue_turn([0, 0, 1, 0]);
    put(&mut d, blue, Unit::Kaupmadur, 1);
    d.act(blue, &Command::BuyLand).unwrap();
    assert_eq!(d.state.areas[1].owner, Some(blue));
    assert_eq!(d.state.players[blue as usize].disks[2], 4);
    assert_eq!(d.state.players[blue as usize].goods[Good::Timber.idx()], 1);
}

#[test]
fn kaupmadur_cannot_buy_a_barbarian_camp_or_another_clans_area() {
    let (mut d, blue) = blue_turn([0, 0, 2, 0]);
    let red = d.seat(Colour::Red);
    d.own(red, &[1], 1);
    put(&mut d, blue, Unit::Kaupmadur, 1);
    assert!(d.refused(blue, &Command::BuyLand).contains("only from Barbarians"));
    put(&mut d, blue, Unit::Kaupmadur, 6);
    assert!(d.refused(blue, &Command::BuyLand).contains("cannot buy"));
}

#[test]
fn kaupmadur_trades_by_the_table_in_a_village() {
    let (mut d, blue) = blue_turn([0, 0, 1, 0]);
    put(&mut d, blue, Unit::Kaupmadur, 5);
    d.state.players[blue as usize].goods = [5, 4, 0, 0, 0, 0];
    d.state.players[blue as usize].gold = 0;
    let deals = vec![
        Deal::Sell { give: vec![Good::Timber, Good::Timber, Good::Wool, Good::Wool] },
        Deal::BasicForMine { give: [Good::Timber, Good::Wool], get: Good::Iron },
        Deal::Swap { give: Good::Timber, get: Good::Meat },
    ];
    d.act(blue, &Command::Trade { deals, refill: vec![] }).unwrap();
    assert_eq!(d.state.players[blue as usize].goods, [1, 1, 1, 0, 0, 1]);
    assert_eq!(d.state.players[blue as usize].gold, 1);
    assert!(crate::actions::kaupmadur::sell_value(&[Good::Meat; 8]) == Some(3));
    assert!(crate::actions::kaupmadur::sell_value(&[Good::Iron, Good::Stone]) == Some(1));
    assert!(crate::actions::kaupmadur::sell_value(&[Good::Iron; 4]) == Some(3));
}

#[test]
fn kaupmadur_trades_and_refills_every_building_with_one_card_at_home() {
    let (mut d, blue) = blue_turn([0, 0, 1, 0]);
    let p = &mut d.state.players[blue as usize];
    p.disks = [0, 1, 2];
    p.supply = 22 + 9;
    p.goods = [4, 4, 4, 4, 0, 0];
    let gold = p.gold;
    let deals = vec![Deal::Sell { give: vec![Good::Timber; 4] }];
    d.act(blue, &Command::Trade { deals, refill: vec![Building::Virki, Building::Hof, Building::Verslun] }).unwrap();
    assert_eq!(d.state.players[blue as usize].disks, [6, 6, 6]);
    assert_eq!(d.state.players[blue as usize].goods, [0; 6]);
    assert_eq!(d.state.players[blue as usize].gold, gold + 1);
    assert_eq!(d.state.players[blue as usize].played.total(), 1);
}

#[test]
fn each_unit_refills_its_own_building_at_home_for_four_goods() {
    // Given Blue's turn with its Berserkur and Godi at home, Virki and Hof low
    let (mut d, blue) = blue_turn([1, 1, 0, 0]);
    let p = &mut d.state.players[blue as usize];
    p.disks = [2, 3, 6];
    p.goods = [0, 5, 4, 0, 0, 0];
    // When the Berserkur refills Virki and the Godi refills Hof, a card each
    d.act(blue, &Command::Refill { unit: Unit::Berserkur }).unwrap();
    d.act(blue, &Command::Refill { unit: Unit::Godi }).unwrap();
    // Then both are full again, for 4 meat and 4 wool, from the unused disks
    let p = &d.state.players[blue as usize];
    assert_eq!(p.disks, [6, 6, 6]);
    assert_eq!(p.goods, [0, 1, 0, 0, 0, 0]);
    assert_eq!(p.supply, 22 - 4 - 3);
    assert_eq!(p.played.total(), 2);
    // And the Kaupmadur refills with a trade action instead, and not without 4 goods
    let e = d.refused(blue, &Command::Refill { unit: Unit::Kaupmadur });
    assert!(e.contains("trade action"), "{e}");
}

#[test]
fn gold_buys_one_mine_good_or_two_basic_goods_and_stays_secret() {
    // Given Blue's Kaupmadur in a village with 3 gold
    let (mut d, blue) = blue_turn([0, 0, 1, 0]);
    put(&mut d, blue, Unit::Kaupmadur, 5);
    d.state.players[blue as usize].goods = [0; 6];
    d.state.players[blue as usize].gold = 3;
    // When it spends gold on goods
    let bad = vec![Deal::Buy { get: vec![Good::Iron, Good::Stone] }];
    let e = d.refused(blue, &Command::Trade { deals: bad, refill: vec![] });
    assert!(e.contains("1 gold buys 2 basic goods or 1 mine good"), "{e}");
    let deals = vec![Deal::Buy { get: vec![Good::Iron] }, Deal::Buy { get: vec![Good::Meat, Good::Hide] }];
    let mut rng = runestone_engine::rng::GameRng::new(d.seed.clone(), 99);
    let cmd = Command::Trade { deals, refill: vec![] };
    let emits = Bardagi::decide(&d.state, blue, &cmd, &mut rng).unwrap();
    d.act(blue, &cmd).unwrap();
    // Then 1 gold buys 1 iron and 1 gold 2 basic goods
    let p = &d.state.players[blue as usize];
    assert_eq!(p.gold, 1);
    assert_eq!(p.goods, [0, 0, 1, 1, 0, 1]);
    // And only Blue sees how much gold it paid
    let gold = emits.iter().find(|e| matches!(e.event, Event::GoldChanged { .. })).expect("a gold change");
    assert_eq!(gold.visibility, Visibility::Seats(vec![blue]));
    assert!(matches!(gold.redacted, Some(Event::GoldChanged { delta: None, .. })));
    let other = (blue + 1) % 4;
    let v = Bardagi::view(&d.state, Viewer::Seat(other));
    assert!(v["players"][blue as usize]["gold"].is_null());
}

#[test]
fn only_a_kaupmadur_refill_brings_a_defeated_berserkur_back_home() {
    let (mut d, blue) = blue_turn([1, 0, 1, 0]);
    let p = &mut d.state.players[blue as usize];
    p.units[0] = Loc::Fallen;
    p.disks[0] = 0;
    p.goods[Good::Meat.idx()] = 4;
    assert!(d.refused(blue, &Command::Refill { unit: Unit::Berserkur }).contains("only at the home area"));
    d.act(blue, &Command::Trade { deals: vec![], refill: vec![Building::Virki] }).unwrap();
    assert_eq!(d.state.players[blue as usize].units[0], Loc::Area(0));
}

#[test]
fn forced_trade_sells_goods_for_another_clans_gold() {
    let (mut d, blue) = blue_turn([0, 0, 2, 0]);
    let red = d.seat(Colour::Red);
    d.state.forced_trade = true;
    put(&mut d, blue, Unit::Kaupmadur, 4);
    d.state.players[blue as usize].goods = [4, 0, 0, 0, 0, 0];
    d.state.players[red as usize].gold = 3;
    let before = d.state.players[blue as usize].gold;
    d.act(blue, &Command::ForceTrade { seat: red, give: vec![Good::Timber; 4] }).unwrap();
    assert_eq!(d.state.players[red as usize].gold, 2);
    assert_eq!(d.state.players[red as usize].goods[0], 4);
    assert_eq!(d.state.players[blue as usize].gold, before + 1);
    // The axe that avoids it is placed in play: see `versions::an_axe_on_the_home_area_avoids_forced_trade`.
}

// --- Knerrir ---------------------------------------------------------------------

#[test]
fn knerrir_carries_all_three_units_three_squares_per_card_and_drops_them_on_the_way() {
    let (mut d, blue) = blue_turn([1, 1, 1, 3]);
    // All three units board at the home harbour, each with its own card.
    for u in Unit::ALL {
        d.act(blue, &Command::Board { unit: u }).unwrap();
    }
    let p = &d.state.players[blue as usize];
    assert_eq!(p.units, [Loc::Aboard; 3]);
    assert_eq!(p.ship, ShipLoc::At(SeaNode::Harbour(0)));
    assert_eq!(p.hand.arr(), [0, 0, 0, 3]);
    // One card sails 3 squares: two ocean squares and the harbour of Gold mine 12.
    let route = vec![SeaNode::Ocean(0), SeaNode::Ocean(1), SeaNode::Harbour(12)];
    d.act(blue, &Command::Sail { route, sea_rune: false }).unwrap();
    d.act(blue, &Command::Disembark { unit: Unit::Godi }).unwrap();
    assert_eq!(d.state.players[blue as usize].units[1], Loc::Area(12));
    // A second card sails on with the other two; 4 squares take more than one card.
    let route = vec![SeaNode::Ocean(1), SeaNode::Ocean(2), SeaNode::Ocean(3), SeaNode::Harbour(3)];
    let e = d.refused(blue, &Command::Sail { route: route.clone(), sea_rune: false });
    assert!(e.contains("one Knerrir card sails 3"), "{e}");
    d.act(blue, &Command::Sail { route: route[..3].to_vec(), sea_rune: false }).unwrap();
    d.act(blue, &Command::Sail { route: route[3..].to_vec(), sea_rune: false }).unwrap();
    assert_eq!(d.state.players[blue as usize].hand.knerrir, 0);
    d.act(blue, &Command::Disembark { unit: Unit::Berserkur }).unwrap();
    assert_eq!(
        d.state.players[blue as usize].ship,
        ShipLoc::At(SeaNode::Harbour(3)),
        "the Kaupmadur is still on board"
    );
    // With the last unit off, the Knerrir returns to the player board.
    d.act(blue, &Command::Disembark { unit: Unit::Kaupmadur }).unwrap();
    let p = &d.state.players[blue as usize];
    assert_eq!(p.units, [Loc::Area(3), Loc::Area(12), Loc::Area(3)]);
    assert_eq!(p.ship, ShipLoc::Home);
}

#[test]
fn a_sea_move_rune_sails_up_to_ten_squares_with_one_card() {
    let (mut d, blue) = blue_turn([0, 1, 0, 1]);
    d.state.players[blue as usize].runes[RuneKind::SeaMove.idx()] = 1;
    d.act(blue, &Command::Board { unit: Unit::Godi }).unwrap();
    let route: Vec<SeaNode> = (0..=6).map(SeaNode::Ocean).chain([SeaNode::Harbour(11)]).collect();
    d.act(blue, &Command::Sail { route, sea_rune: true }).unwrap();
    assert_eq!(d.state.players[blue as usize].runes[RuneKind::SeaMove.idx()], 0);
}

#[test]
fn only_one_rune_of_a_type_and_one_curse_lie_on_an_area() {
    let (mut d, blue) = blue_turn([0, 3, 0, 0]);
    let red = d.seat(Colour::Red);
    d.own(blue, &[13], 1);
    d.own(red, &[5], 1);
    d.state.areas[13].runes = RuneKind::Divine.bit();
    d.state.areas[5].runes = RuneKind::NoResources.bit();
    d.state.players[blue as usize].runes = [1, 0, 0, 0, 1, 0];
    let e = d.refused(blue, &Command::Cast { casts: vec![RuneCast { rune: RuneKind::Divine, area: 13 }] });
    assert!(e.contains("already holds a Divine token rune"), "{e}");
    let e = d.refused(blue, &Command::Cast { casts: vec![RuneCast { rune: RuneKind::TheirsAreYours, area: 5 }] });
    assert!(e.contains("already holds a curse"), "{e}");
}

#[test]
fn runes_stay_on_an_overtaken_area_and_a_removed_rune_returns_to_the_pile() {
    let (mut d, blue) = blue_turn([1, 0, 0, 0]);
    let red = d.seat(Colour::Red);
    d.own(red, &[1], 1);
    d.state.areas[1].runes = RuneKind::Divine.bit();
    put(&mut d, blue, Unit::Berserkur, 1);
    d.act(blue, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    assert!(d.state.areas[1].has_rune(RuneKind::Divine), "the new owner gains the effect");
    put(&mut d, blue, Unit::Godi, 1);
    d.state.players[blue as usize].gold = 1;
    let pile = d.state.rune_pile[RuneKind::Divine.idx()];
    d.act(blue, &Command::RemoveRune { rune: RuneKind::Divine }).unwrap();
    assert_eq!(d.state.rune_pile[RuneKind::Divine.idx()], pile + 1);
}

#[test]
fn a_camp_taken_from_another_clan_gives_no_axes() {
    let (mut d, blue) = blue_turn([1, 0, 0, 0]);
    let red = d.seat(Colour::Red);
    d.own(red, &[6], 1);
    put(&mut d, blue, Unit::Berserkur, 6);
    let ev = d.act(blue, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    assert!(!ev.iter().any(|e| matches!(e, Event::AxesGained { .. })));
    assert_eq!(d.state.players[blue as usize].axes, 0);
}

#[test]
fn godi_and_kaupmadur_cannot_enter_a_barbarian_camp_until_it_is_overtaken() {
    let (mut d, blue) = blue_turn([0, 2, 2, 0]);
    put(&mut d, blue, Unit::Godi, 5);
    put(&mut d, blue, Unit::Kaupmadur, 5);
    let e = d.refused(blue, &Command::Move { unit: Unit::Godi, to: 6 });
    assert!(e.contains("only a Berserkur may enter it"), "{e}");
    d.own(blue, &[6], 1);
    d.act(blue, &Command::Move { unit: Unit::Kaupmadur, to: 6 }).unwrap();
}
