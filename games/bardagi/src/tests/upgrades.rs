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
    assert_eq!(d.state.players[b as usize].storage(&d.state.tiles), 8);
    d.state.players[b as usize].goods = [6, 0, 0, 0, 0, 0];
    d.state.players[b as usize].gold = 1;
    d.act(b, &Command::Trade { deals: vec![Deal::Buy { get: vec![Good::Timber, Good::Timber] }], refill: vec![] })
        .unwrap();
    assert_eq!(d.state.players[b as usize].goods[0], 8);
}

#[test]
fn the_mead_hall_lets_virki_hold_two_more_disks() {
    let (mut d, b, _) = blue([0, 0, 1, 0]);
    assert_eq!(d.state.players[b as usize].capacity(&d.state.tiles, Building::Virki), 6);
    with(&mut d, b, Building::Verslun, Effect::MeadHall);
    assert_eq!(d.state.players[b as usize].capacity(&d.state.tiles, Building::Virki), 8);
}

#[test]
fn oarsmen_type_upgrades_add_two_ocean_squares_each() {
    let (mut d, b, _) = blue([0, 1, 0, 1]);
    with(&mut d, b, Building::Virki, Effect::KnerrirPlusTwo);
    d.act(b, &Command::Board { unit: Unit::Godi }).unwrap();
    let route = (0..5).map(crate::board::SeaNode::Ocean).collect();
    d.act(b, &Command::Sail { route, sea_rune: false }).unwrap();
}

// --- Upgrade tiles as data ---------------------------------------------------------

/// An upgrade file of a group's own: the fewest tiles the market needs (3
/// of level 1 and 2 of level 2 per building), with amounts of its own: a
/// Mead hall of 4 disks, a Storehouse of 10, Alchemists of 5 gold, a Great
/// hall of 6 glory.
pub const SMALL_UPGRADES: &str = r#"
[[tile]]
id = "long_hall"
building = "virki"
level = 1
effect = "mead_hall"
amount = 4
name = "Long hall"
count = 3
[[tile]]
id = "great_hall"
building = "virki"
level = 2
effect = "glory_three"
amount = 6
name = "Great hall"
[[tile]]
id = "war_horn"
building = "virki"
level = 2
effect = "any_card_berserkur"
name = "War horn"
[[tile]]
id = "alchemist"
building = "hof"
level = 1
effect = "gold_two"
amount = 5
name = "Alchemist"
count = 3
[[tile]]
id = "seer"
building = "hof"
level = 2
effect = "godi_free_action"
name = "Seer"
count = 2
[[tile]]
id = "granary"
building = "verslun"
level = 1
effect = "gold_per_village"
amount = 2
name = "Granary"
count = 3
[[tile]]
id = "storehouse"
building = "verslun"
level = 2
effect = "larger_storage"
amount = 10
name = "Storehouse"
count = 2
"#;

#[test]
fn the_built_in_tiles_keep_their_order_and_give_the_rulebook_amounts() {
    // Given the built-in file, then its tiles are 45, in the order versions
    // 1 and 2 name them by, each with its id and the rulebook's amount.
    assert_eq!(TILES.len(), 45);
    assert_eq!(TILES[0].id, "horse_stable.1");
    assert_eq!(TILES[1].id, "horse_stable.2");
    let amount = |e: Effect| TILES.iter().find(|t| t.effect == e).unwrap().amount;
    assert_eq!(amount(Effect::MeadHall), 2);
    assert_eq!(amount(Effect::BerserkurStrength), 6);
    assert_eq!(amount(Effect::LargerStorage), 8);
    assert_eq!(amount(Effect::GloryThree), 3);
    assert_eq!(amount(Effect::HideForGold), 4);
    let mut ids: Vec<&str> = TILES.iter().map(|t| t.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 45, "every tile has its own id");
}

#[test]
fn a_game_with_its_own_upgrade_and_rune_files_plays_to_the_end_with_their_amounts() {
    use crate::Options;
    // Given a game created with an upgrade file and a rune file of its own,
    let opts = Options {
        custom_upgrades: Some(SMALL_UPGRADES.into()),
        custom_runes: Some(super::versions::SMALL_RUNES.into()),
        ..Options::default()
    };
    let mut built_with_amounts = 0;
    for seed in 0..6 {
        let mut d = Driver::new(&opts, 4, seed).unwrap();
        // then its market shows only its tiles, named by their ids,
        let Event::GameStarted { market, .. } = &d.log[0].event else { panic!("GameStarted first") };
        assert_eq!(market.len(), 15);
        for k in market {
            let crate::build::TileKey::Id(id) = k else { panic!("a tile named by its place: {k:?}") };
            let kind = id.split('.').next().unwrap();
            assert!(SMALL_UPGRADES.contains(&format!("id = \"{kind}\"")), "{id}");
        }
        // when the bots play it, then it plays to the end,
        d.run_bots(20_000);
        assert!(matches!(d.log.last().map(|e| &e.event), Some(Event::GameEnded { .. })));
        // and what the clans built works by the file's amounts.
        for (seat, p) in d.state.players.iter().enumerate() {
            let owned: Vec<&crate::build::Tile> = p.owned_tiles(&d.state.tiles).collect();
            let l1 = owned.iter().filter(|t| t.building == Building::Virki && t.level == 1).count() as u8;
            let l2 = owned.iter().filter(|t| t.building == Building::Virki && t.level == 2).count() as u8;
            let halls = owned.iter().filter(|t| t.effect == Effect::MeadHall).count() as u8;
            assert_eq!(p.capacity(&d.state.tiles, Building::Virki), 6 + l1 + 2 * l2 + 4 * halls, "seat {seat}");
            let store = owned.iter().any(|t| t.effect == Effect::LargerStorage);
            assert_eq!(p.storage(&d.state.tiles), if store { 10 } else { 5 }, "seat {seat}");
            built_with_amounts += usize::from(halls > 0) + usize::from(store);
        }
        let built: Vec<&Event> =
            d.log.iter().map(|e| &e.event).filter(|e| matches!(e, Event::UpgradeBuilt { .. })).collect();
        assert!(!built.is_empty(), "game {seed}: nothing was built");
        // Each Claim phase pays an owned Alchemist's 5 gold and a Great hall's 6 glory.
        let told: Vec<String> = built.iter().map(|e| crate::view::describe(&d.state, e, &[])).collect();
        assert!(told.iter().all(|t| !t.contains("unknown")), "{told:?}");
    }
    assert!(built_with_amounts > 0, "no game built the Long hall or the Storehouse");
}

#[test]
fn the_claim_phase_pays_the_amounts_of_the_file() {
    use crate::Options;
    // Given games with the small upgrade file, played by the bots,
    let opts = Options { custom_upgrades: Some(SMALL_UPGRADES.into()), ..Options::default() };
    let mut checked = 0;
    for seed in 0..6 {
        let mut d = Driver::new(&opts, 3, seed).unwrap();
        while <crate::Bardagi as runestone_engine::game::Game>::outcome(&d.state).is_none() {
            let before = d.state.clone();
            let seat = d.next_seat().unwrap();
            let c = <crate::Bardagi as runestone_engine::game::Game>::fallback(&d.state, seat).unwrap();
            let events = d.act(seat, &c).unwrap();
            // when a Claim phase pays, then a clan owning the Great hall
            // (6 glory) gains at least 6 glory from it.
            for (s, p) in before.players.iter().enumerate() {
                let hall = p.has(&before.tiles, Effect::GloryThree);
                let claimed = events.iter().find_map(|e| match e {
                    Event::GloryChanged { seat, delta, reason } if *seat as usize == s && reason.contains("Claim") => {
                        Some(*delta)
                    }
                    _ => None,
                });
                if let (true, Some(g)) = (hall, claimed) {
                    assert!(g >= 6, "seat {s} gained {g} glory with the Great hall of 6");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 0, "no Claim phase paid a Great hall");
}

#[test]
fn a_malformed_upgrade_file_is_refused_naming_the_line_and_the_fault() {
    use crate::Options;
    let refused = |text: &str| {
        let opts = Options { custom_upgrades: Some(text.into()), ..Options::default() };
        Driver::new(&opts, 2, 1).err().expect("refused").message
    };
    // An effect the rules do not know, on the [[tile]] of line 23.
    let bad = SMALL_UPGRADES.replacen("effect = \"gold_two\"", "effect = \"gold_rain\"", 1);
    let e = refused(&bad);
    assert!(e.starts_with("upgrades, the [[tile]] at line 23: no effect is called \"gold_rain\""), "{e}");
    // An amount out of its range, saying what the amount is.
    let e = refused(&SMALL_UPGRADES.replacen("amount = 10", "amount = 99", 1));
    assert_eq!(
        e,
        "upgrades, the [[tile]] at line 46: the amount of larger_storage (goods of each kind the storage holds) \
         is a whole number from 5 to 20"
    );
    // An amount on a free action.
    let e = refused(&SMALL_UPGRADES.replacen(
        "effect = \"any_card_berserkur\"",
        "effect = \"any_card_berserkur\"\namount = 2",
        1,
    ));
    assert!(e.contains("line 17: any_card_berserkur is a free action once a round; it takes no amount"), "{e}");
    // An id used twice; a key the format does not have; a level 3.
    let e = refused(&SMALL_UPGRADES.replacen("id = \"seer\"", "id = \"alchemist\"", 1));
    assert!(e.contains("line 31: the id 'alchemist' is used twice"), "{e}");
    let e = refused(&SMALL_UPGRADES.replacen(
        "count = 3\n[[tile]]\nid = \"great_hall\"",
        "cost = 3\n[[tile]]\nid = \"great_hall\"",
        1,
    ));
    assert!(e.contains("line 2: unknown key 'cost'"), "{e}");
    let e = refused(&SMALL_UPGRADES.replacen("level = 2", "level = 3", 1));
    assert!(e.contains("line 10: the level of 'great_hall' is 1 or 2"), "{e}");
    // A TOML error names its line.
    let e = refused(&SMALL_UPGRADES.replacen("name = \"Seer\"", "name = Seer", 1));
    assert!(e.starts_with("upgrades, line 36:"), "{e}");
    // Too few tiles for the market names the building.
    let e = refused(&SMALL_UPGRADES.replacen(
        "count = 2\n[[tile]]\nid = \"granary\"",
        "count = 1\n[[tile]]\nid = \"granary\"",
        1,
    ));
    assert_eq!(e, "upgrades: Hof needs at least 2 tiles of level 2 (the market shows 2), has 1");
}

#[test]
fn tiles_are_named_by_stable_ids_from_version_3_and_by_their_place_before() {
    use crate::build::TileKey;
    use crate::Options;
    // Given a game of the newest version and one of version 2,
    let new = Driver::new(&Options::default(), 2, 5).unwrap();
    let old = Driver::new(&Options { rules_version: Some(2), ..Options::default() }, 2, 5).unwrap();
    // when they are set up, then the new one names its face-up tiles by id,
    let market = |d: &Driver| match &d.log[0].event {
        Event::GameStarted { market, .. } => market.clone(),
        _ => panic!("GameStarted first"),
    };
    assert!(market(&new).iter().all(|k| matches!(k, TileKey::Id(_))));
    assert!(market(&old).iter().all(|k| matches!(k, TileKey::Index(_))));
    // the same tiles either way (the same seed draws the same places),
    let ids = |d: &Driver| -> Vec<String> {
        market(d).iter().map(|k| d.state.tile(d.state.tile_index(k).unwrap()).id.clone()).collect()
    };
    assert_eq!(ids(&new), ids(&old));
    // and an id is written as the id, a place as the number.
    let json = serde_json::to_value(&new.log[0].event).unwrap();
    assert!(json["market"][0].is_string(), "{json}");
    let json = serde_json::to_value(&old.log[0].event).unwrap();
    assert!(json["market"][0].is_u64(), "{json}");
}
