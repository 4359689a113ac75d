//! Section 3, Game setup: the map (3.1), the gods (3.2), the first player (3.3), the
//! stacks (3.5-3.7) and the starting positions (3.8).

use runestone_engine::{Game, Viewer};

use super::Driver;
use crate::state::{Command, Phase};
use crate::{FallenKingdoms, Options};

#[test]
fn the_map_holds_six_cities_per_player_on_four_or_six_tiles() {
    for seats in 3..=6u8 {
        for seed in 0..5 {
            let d = Driver::new(&Options::default(), seats, seed).unwrap();
            let b = &d.state.board;
            assert_eq!(b.n(), 6 * seats as usize);
            assert_eq!(b.tiles.len(), if seats <= 4 { 4 } else { 6 });
            assert!(b.paths.len() >= 8, "invasion arrows all round the edge");
            // Every city can be reached from every other.
            let mut seen = vec![0u8];
            let mut i = 0;
            while i < seen.len() {
                for a in b.adjacent(seen[i]) {
                    if !seen.contains(&a) {
                        seen.push(a);
                    }
                }
                i += 1;
            }
            assert_eq!(seen.len(), b.n(), "{seats} players, seed {seed}: the map is in one piece");
        }
    }
}

#[test]
fn a_tile_without_a_water_half_on_an_edge_is_refused_by_name() {
    let tiles = include_str!("../../data/tiles.toml").replacen(
        "edge = \"n\"\ncity = 4\nkind = \"sea\"",
        "edge = \"n\"\ncity = 4\nkind = \"road\"",
        1,
    );
    let e = crate::data::load(
        &tiles,
        include_str!("../../data/gods.toml"),
        include_str!("../../data/knowledge.toml"),
        include_str!("../../data/buildings.toml"),
        include_str!("../../data/rumors.toml"),
    )
    .err()
    .expect("refused");
    assert!(e.contains("tile 1 side A: edge n needs one road exit"), "{e}");
}

#[test]
fn each_player_secretly_chooses_one_of_two_gods_and_all_are_revealed_together() {
    let mut d = Driver::new(&Options::default(), 4, 3).unwrap();
    let dealt = d.state.players[0].dealt.clone().unwrap();
    assert_eq!(dealt.len(), 2);
    let other = (0..9u8).find(|g| !dealt.contains(g)).unwrap();
    assert!(d.refused(0, &Command::ChooseGod { god: other }).contains("only choose a god dealt to you"));
    d.act(0, &Command::ChooseGod { god: dealt[1] }).unwrap();
    let v = FallenKingdoms::view(&d.state, Viewer::Seat(1));
    assert!(v["players"][0]["god"].is_null() && v["players"][0]["dealt"].is_null());
    assert!(!FallenKingdoms::view(&d.state, Viewer::Seat(0))["players"][0]["god"].is_null());
    assert_eq!(d.waiting(), vec![1, 2, 3]);
    for seat in 1..4 {
        let g = d.state.players[seat as usize].dealt.clone().unwrap()[0];
        d.act(seat, &Command::ChooseGod { god: g }).unwrap();
    }
    assert_eq!(d.state.phase, Phase::Placement);
    // 3.3: the lowest intimidation value takes the first player card.
    let value = |k: usize| crate::data::data().gods[d.state.players[k].god.unwrap() as usize].intimidation;
    let lowest = (0..4).min_by_key(|&k| value(k)).unwrap();
    assert_eq!(d.state.first as usize, lowest);
}

#[test]
fn with_five_or_six_players_some_players_are_dealt_a_single_god() {
    let d = Driver::new(&Options::default(), 6, 1).unwrap();
    let sizes: Vec<usize> = d.state.players.iter().map(|p| p.dealt.as_ref().unwrap().len()).collect();
    assert_eq!(sizes, vec![2, 2, 2, 1, 1, 1]);
}

#[test]
fn the_stacks_hold_three_cards_per_player_and_the_rumors_are_sorted_lowest_on_top() {
    let d = Driver::new(&Options::default(), 4, 2).unwrap();
    let s = &d.state;
    assert_eq!(s.knowledge_shown.len() + s.knowledge_left as usize, 12);
    assert_eq!(s.knowledge_shown.len(), 3);
    assert_eq!(s.building_shown.len() + s.building_left as usize, 12);
    assert_eq!(s.building_shown.len(), 2);
    let values: Vec<u8> = s.rumor_deck.iter().map(|&r| crate::data::data().rumors[r as usize]).collect();
    assert_eq!(values.len(), 12);
    assert!(values.windows(2).all(|w| w[0] <= w[1]), "{values:?}");
    let v = FallenKingdoms::view(s, Viewer::Seat(0)).to_string();
    assert!(!v.contains("knowledge_stack"), "the face-down stacks are not shown");
}

#[test]
fn starting_positions_snake_until_each_player_has_21_units_first_cities_apart() {
    let mut d = Driver::new(&Options::default(), 4, 8).unwrap();
    while d.state.phase != Phase::Players {
        let seat = d.waiting()[0];
        if d.state.phase == Phase::Placement && d.state.players[seat as usize].placed == 0 {
            // The first city is never adjacent to another player's city.
            let ok = crate::setup::placeable(&d.state, seat);
            for &c in &ok {
                assert!(d.state.board.adjacent(c).iter().all(|&a| d.state.cities[a as usize].owner.is_none()));
            }
        }
        let c = FallenKingdoms::fallback(&d.state, seat).unwrap();
        d.act(seat, &c).unwrap();
    }
    for seat in 0..4 {
        assert_eq!(d.state.on_board(seat), 21);
        assert!(d.state.temple_of(seat).is_some());
    }
    let order = crate::state::placement_order(4, 1);
    assert_eq!(&order[..12], &[1, 2, 3, 0, 0, 3, 2, 1, 1, 2, 3, 0]);
    assert_eq!(order.len(), 28);
}
