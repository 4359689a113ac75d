//! "Game setup", "Playing time" and the board data.

use crate::board::{Board, Colour};
use crate::build::{display, TILES};
use crate::setup::rounds_for;
use crate::state::{Building, Event, Loc, Phase, ShipLoc};
use crate::{Bardagi, Options};
use runestone_engine::game::Game;

use super::{Driver, MINI};

#[test]
fn each_clan_starts_with_one_gold_one_rune_six_disks_per_building_and_units_at_home() {
    let d = Driver::new(&Options::default(), 3, 3).unwrap();
    for p in &d.state.players {
        assert_eq!(p.gold, 1);
        assert_eq!(p.runes.iter().sum::<u8>(), 1);
        assert_eq!(p.disks, [6, 6, 6]);
        assert_eq!(p.supply, 22);
        assert_eq!(p.units, [Loc::Area(p.home); 3]);
        assert_eq!(p.ship, ShipLoc::Home);
    }
    assert_eq!(d.state.phase, Phase::Planning);
    assert_eq!(d.state.rune_pile.iter().map(|x| *x as u32).sum::<u32>(), 48 - 3);
}

#[test]
fn two_players_are_red_and_yellow_three_and_four_all_but_black_five_all() {
    for (seats, allowed) in [(2u8, 2usize), (3, 4), (4, 4), (5, 5)] {
        for seed in 0..6 {
            let d = Driver::new(&Options::default(), seats, seed).unwrap();
            assert_eq!(d.state.players.len(), seats as usize);
            for p in &d.state.players {
                let c = p.colour.unwrap();
                assert!(Colour::ALL[..allowed].contains(&c), "{c:?} with {seats} players");
                assert_eq!(d.state.board.home_of(c), Some(p.home));
            }
        }
    }
}

#[test]
fn the_market_shows_three_first_and_two_second_level_tiles_per_building_two_and_one_with_two_or_three_players() {
    for seats in 2..=5u8 {
        let d = Driver::new(&Options::default(), seats, 1).unwrap();
        for b in Building::ALL {
            for level in [1u8, 2] {
                let shown = (0..TILES.len())
                    .filter(|t| {
                        d.state.market & (1u64 << t) != 0 && TILES[*t].building == b && TILES[*t].level == level
                    })
                    .count();
                assert_eq!(shown, display(seats as usize, level));
                assert_eq!(shown, if seats <= 3 { 3 - level as usize } else { 4 - level as usize });
            }
        }
    }
    assert_eq!(TILES.len(), 45, "45 building upgrade tiles");
}

#[test]
fn the_game_lasts_seven_to_ten_rounds_by_player_count() {
    // Whole games played by the bots: 10 rounds with 2 players, 9, 8, 7 with 5.
    for (seats, rounds) in [(2u8, 10u8), (3, 9), (4, 8), (5, 7)] {
        let mut d = Driver::new(&Options::default(), seats, 11).unwrap();
        d.run_bots(20_000);
        let begun: Vec<u8> = d
            .log
            .iter()
            .filter_map(|e| if let Event::RoundBegan { round, .. } = e.event { Some(round) } else { None })
            .collect();
        assert_eq!(begun, (1..=rounds).collect::<Vec<u8>>(), "{seats} players");
        assert!(matches!(d.log.last().map(|e| &e.event), Some(Event::GameEnded { .. })));
    }
    assert_eq!([2, 3, 4, 5].map(rounds_for), [10, 9, 8, 7]);
    let d = Driver::new(&Options { rounds: Some(3), ..Options::default() }, 2, 2).unwrap();
    assert_eq!(d.state.rounds, 3);
}

#[test]
fn the_winter_island_board_is_for_two_or_three_players() {
    let winter = Options { board: "winter".into(), ..Options::default() };
    assert!(Driver::new(&winter, 3, 1).is_ok());
    let e = Driver::new(&winter, 4, 1).err().unwrap().message;
    assert!(e.contains("2 to 3 players"), "{e}");
    assert!(Board::summer().data.areas.len() > 40 && Board::winter().data.areas.len() > 20);
}

#[test]
fn a_drawn_rune_is_seen_only_by_its_clan() {
    let mut rng = runestone_engine::rng::GameRng::new(runestone_engine::rng::Seed([4; 32]), 1);
    let emits = Bardagi::setup(&Options::default(), 2, crate::RULES_VERSION, &mut rng).unwrap();
    let drawn: Vec<_> = emits.iter().filter(|e| matches!(e.event, Event::RunesDrawn { .. })).collect();
    assert_eq!(drawn.len(), 2);
    for e in drawn {
        assert!(matches!(e.redacted, Some(Event::RunesDrawn { runes: None, count: 1, .. })));
    }
}

fn rejected(text: &str) -> String {
    let o = Options { custom_board: Some(text.into()), ..Options::default() };
    Driver::new(&o, 2, 1).err().expect("rejected").message
}

#[test]
fn a_bad_board_is_rejected_at_setup_naming_what_is_wrong() {
    let e = rejected(&MINI.replace("cells = [[1, 2]]", "cells = []"));
    assert!(e.contains("area 13 'Forest 13' has no cells"), "{e}");
    let e = rejected(&MINI.replace("bridges = [[5, 6]]", "bridges = [[5, 6], [0, 5]]"));
    assert!(e.contains("bridge 1 joins areas that are not neighbours"), "{e}");
    let e = rejected(&MINI.replace("rivers = [[1, 2], [5, 6]]", "rivers = [[1, 2]]"));
    assert!(e.contains("bridge 0 joins areas 5 and 6 that no river separates"), "{e}");
    let e = rejected(&MINI.replace("cells = [[5, 1]]", "cells = [[5, 0]]"));
    assert!(e.contains("belongs to both area 5 'Village 5' and area 11 'Yellow home'"), "{e}");
    let e = rejected(&MINI.replace("colour = \"green\"\n", ""));
    assert!(e.contains("home area without a colour"), "{e}");
    let e = rejected("name = 3");
    assert!(e.contains("not valid TOML"), "{e}");
    let e = rejected(&MINI.replace(
        "harbour_routes = [[0, 0], [3, 3], [4, 4], [11, 6], [14, 0], [12, 1]]",
        "harbour_routes = [[0, 0], [3, 3], [4, 4], [11, 6], [12, 1]]",
    ));
    assert!(e.contains("'Green home' has a harbour but no sea route"), "{e}");
}

/// The mini board with a setup table: with 2 players Red's home is on
/// Sheep 3 and its own area a sheep pasture.
fn mini_with_setup(rows: &str) -> String {
    format!("{MINI}\n{rows}")
}

const RED_ON_3: &str = r#"
[[setup]]
players = 2
areas = [
  { id = 3, name = "Red home", kind = "home", colour = "red" },
  { id = 4, name = "Sheep 4", kind = "sheep" },
]
"#;

#[test]
fn a_board_s_setup_table_places_the_homes_for_its_player_count() {
    // Given a custom board whose setup table moves Red's home for 2 players,
    let text = mini_with_setup(RED_ON_3);
    let o = Options { custom_board: Some(text.clone()), ..Options::default() };
    // when a 2-player and a 3-player game are set up on it,
    let two = Driver::new(&o, 2, 1).unwrap();
    let three = Driver::new(&o, 3, 1).unwrap();
    // then the 2-player game plays the row for 2: Red's home and units are
    // on area 3, named as the row names it, and area 4 is a sheep pasture;
    let red = |d: &Driver| d.state.players.iter().find(|p| p.colour == Some(Colour::Red)).unwrap().clone();
    assert_eq!(red(&two).home, 3);
    assert_eq!(red(&two).units, [Loc::Area(3); 3]);
    assert_eq!(two.state.board.area(3).name, "Red home");
    assert_eq!(two.state.board.area(4).kind, crate::board::AreaKind::Sheep);
    // the 3-player game, which the table does not list, the areas as listed;
    assert_eq!(red(&three).home, 4);
    assert_eq!(three.state.board.area(3).kind, crate::board::AreaKind::Sheep);
    // the log names the board with its player count, and the game replays.
    let started = serde_json::to_value(&two.log[0].event).unwrap();
    assert_eq!(started["board"], serde_json::json!({"custom_for": {"text": text, "players": 2}}));
    let replayed = two.assert_replays("2 players on a board with a setup table");
    assert_eq!(replayed.board.area(3).name, "Red home");
    let started = serde_json::to_value(&three.log[0].event).unwrap();
    assert_eq!(started["board"], serde_json::json!({"custom": text}));
}

#[test]
fn a_bad_setup_table_is_refused_naming_the_row_and_the_fault() {
    let e = rejected(&mini_with_setup(&RED_ON_3.replace("players = 2", "players = 5")));
    assert_eq!(e, "the custom board is rejected: setup 1 (5 players): the board is for 2 to 4 players, not 5");
    let e = rejected(&mini_with_setup(&format!("{RED_ON_3}{RED_ON_3}")));
    assert_eq!(e, "the custom board is rejected: setup 2 (2 players): 2 players already have a setup");
    let e = rejected(&mini_with_setup(&RED_ON_3.replace("id = 3,", "id = 30,")));
    assert_eq!(e, "the custom board is rejected: setup 1 (2 players): area 30 does not exist (the board has 15 areas)");
    let e = rejected(&mini_with_setup(&RED_ON_3.replace("id = 4,", "id = 3,")));
    assert_eq!(e, "the custom board is rejected: setup 1 (2 players): area 3 'Sheep 3' is listed twice");
    // A row that leaves Red without a home, or gives a pasture a colour.
    let e = rejected(&mini_with_setup(&RED_ON_3.replace(r#"kind = "home", colour = "red""#, r#"kind = "sheep""#)));
    assert_eq!(
        e,
        "the custom board is rejected: setup 1 (2 players): a board for up to 4 players needs exactly one Red home area, found 0"
    );
    let e = rejected(&mini_with_setup(&RED_ON_3.replace(r#"kind = "sheep""#, r#"kind = "sheep", colour = "red""#)));
    assert_eq!(
        e,
        "the custom board is rejected: setup 1 (2 players): area 4 'Sheep 4' has a colour but is not a home area"
    );
    let e = rejected(&mini_with_setup("[[setup]]\nplayers = 3\nareas = []\n"));
    assert_eq!(e, "the custom board is rejected: setup 1 (3 players): it changes no area");
    let e = rejected(&mini_with_setup(&RED_ON_3.replace("kind = \"sheep\"", "kind = \"lake\"")));
    assert!(e.contains("not valid TOML") && e.contains("lake"), "{e}");
}

#[test]
fn the_built_in_boards_have_every_area_kind_rivers_bridges_mountains_and_sea() {
    for b in [
        Board::summer(),
        Board::summer_v4(),
        Board::summer_v5(),
        Board::summer_v5().for_players(4),
        Board::summer_v6(),
        Board::summer_v6().for_players(4),
        Board::summer_v6().for_players(5),
        Board::winter(),
    ] {
        use crate::board::AreaKind::*;
        for k in [Home, Forest, Sheep, Cattle, Quarry, GoldMine, IronMine, Village, Sacred, Camp] {
            assert!(b.data.areas.iter().any(|a| a.kind == k), "{} lacks {k:?}", b.data.name);
        }
        assert!(!b.data.rivers.is_empty() && !b.data.bridges.is_empty() && !b.data.mountains.is_empty());
        assert!(!b.data.oceans.is_empty() && !b.data.sea_routes.is_empty());
    }
    assert!(Bardagi::info().id == "bardagi");
}

#[test]
fn every_area_of_the_built_in_boards_can_be_reached_by_the_clans_in_play() {
    use crate::board::{AreaKind, SeaNode};
    for (b, counts) in [
        (Board::summer(), vec![2u8, 3, 4, 5]),
        (Board::summer_v4(), vec![2, 3, 4, 5]),
        (Board::summer_v5(), vec![2, 3, 4, 5]),
        (Board::summer_v6(), vec![2, 3, 4, 5]),
        (Board::winter(), vec![2, 3]),
    ] {
        // The sea routes form one network.
        let mut sea_seen = vec![SeaNode::Ocean(0)];
        let mut i = 0;
        while i < sea_seen.len() {
            for n in b.sea_next(sea_seen[i]) {
                if !sea_seen.contains(n) {
                    sea_seen.push(*n);
                }
            }
            i += 1;
        }
        let harbours = b.data.areas.iter().filter(|a| a.harbour).count();
        assert_eq!(sea_seen.len(), b.data.oceans.len() + harbours, "{}: the sea is not one network", b.data.name);
        for n in counts {
            // The board as set up for this many clans (its setup table).
            let b = b.for_players(n);
            let homes: Vec<u8> = Colour::available(n).iter().filter_map(|c| b.home_of(*c)).collect();
            let closed = |a: u8| b.area(a).kind == AreaKind::Home && !homes.contains(&a);
            let mut seen = vec![false; b.len()];
            let mut stack = homes.clone();
            for h in &homes {
                seen[*h as usize] = true;
            }
            while let Some(a) = stack.pop() {
                let mut next: Vec<u8> = b.land[a as usize].clone();
                if b.area(a).harbour {
                    // The sea routes are one network: every harbour is reachable.
                    next.extend(b.data.areas.iter().filter(|x| x.harbour).map(|x| x.id));
                    assert!(!b.sea_next(SeaNode::Harbour(a)).is_empty());
                }
                for x in next {
                    if !seen[x as usize] && !closed(x) {
                        seen[x as usize] = true;
                        stack.push(x);
                    }
                }
            }
            for (i, s) in seen.iter().enumerate() {
                assert!(
                    *s || closed(i as u8),
                    "{} with {n} players: {} unreachable",
                    b.data.name,
                    b.area(i as u8).name
                );
            }
        }
    }
}

/// The host form is built from the options' schema: a list for the board, a
/// bounded number for the rules version and the rounds, a text area for each
/// data file, a check box for each yes-or-no option.
#[test]
fn the_options_schema_gives_the_host_form_real_fields() {
    let schema = serde_json::to_value(schemars::schema_for!(Options)).unwrap();
    let p = &schema["properties"];
    assert_eq!(p["board"]["enum"], serde_json::json!(["summer", "winter"]));
    assert_eq!(p["rules_version"]["minimum"], 1);
    assert_eq!(p["rules_version"]["maximum"], crate::RULES_VERSION);
    assert_eq!((p["rounds"]["minimum"].clone(), p["rounds"]["maximum"].clone()), (1.into(), 20.into()));
    for data in ["custom_board", "custom_runes"] {
        assert_eq!(p[data]["contentMediaType"], "application/toml", "{data} is a data file");
    }
    for flag in ["easy_cards", "eight_cards", "forced_trade"] {
        assert_eq!(p[flag]["type"], "boolean", "{flag} is a check box");
    }
    // Every board the list offers is one a game can be created on.
    for board in p["board"]["enum"].as_array().unwrap() {
        let o = Options { board: board.as_str().unwrap().into(), ..Options::default() };
        assert!(Driver::new(&o, 2, 1).is_ok(), "{board} is a board");
    }
}

/// Given the colours as the host form's text field posts them, when the
/// game is created, then the seats have those clans in order; a name that is
/// no clan is refused naming it.
#[test]
fn colours_may_be_given_as_names_separated_by_commas() {
    let o: Options = serde_json::from_value(serde_json::json!({"colours": "Blue, red , green"})).unwrap();
    assert_eq!(o.colours, Some(vec![Colour::Blue, Colour::Red, Colour::Green]));
    let d = Driver::new(&o, 3, 2).unwrap();
    let dealt: Vec<Option<Colour>> = d.state.players.iter().map(|p| p.colour).collect();
    assert_eq!(dealt, vec![Some(Colour::Blue), Some(Colour::Red), Some(Colour::Green)]);
    let listed: Options = serde_json::from_value(serde_json::json!({"colours": ["yellow", "red"]})).unwrap();
    assert_eq!(listed.colours, Some(vec![Colour::Yellow, Colour::Red]));
    let bad = serde_json::from_value::<Options>(serde_json::json!({"colours": "blue, pink"})).unwrap_err();
    assert!(bad.to_string().contains("colours: no clan is \"pink\"; the colours are Red, Yellow"), "{bad}");
    let odd = serde_json::from_value::<Options>(serde_json::json!({"colours": 3})).unwrap_err();
    assert!(odd.to_string().contains("colours: give the colours as a list of names"), "{odd}");
}

/// A view's JSON takes the board's part as the board serialised it once:
/// the same JSON as the whole typed view serialised; and a custom board
/// named again by a state read back (as from a snapshot) is the board
/// already built, not parsed again.
#[test]
fn a_view_takes_the_board_as_made_once_and_a_custom_board_is_built_once() {
    use runestone_engine::game::Viewer;
    let d = super::mini(3);
    for viewer in [Viewer::Public, Viewer::Seat(1), Viewer::Referee] {
        let typed = serde_json::to_value(crate::view::view(&d.state, viewer)).expect("a view is JSON");
        assert_eq!(crate::view::view_json(&d.state, viewer), typed);
    }
    let saved = serde_json::to_value(&d.state).expect("a state is JSON");
    let back: crate::state::State = serde_json::from_value(saved).expect("the state reads back");
    assert!(std::sync::Arc::ptr_eq(&back.board.0, &d.state.board.0), "the custom board is shared, not built again");
}

#[test]
fn the_version_6_summer_board_is_version_5_s_with_a_row_for_5_players_that_keeps_the_layout() {
    use crate::board::AreaKind;
    use std::collections::HashMap;
    fn json<T: serde::Serialize>(v: T) -> serde_json::Value {
        serde_json::to_value(v).expect("board data is JSON")
    }
    let (old, new) = (Board::summer_v5(), Board::summer_v6());
    // Given the Summer boards of versions 5 and 6, then version 6 is version
    // 5's board (cells, sea, mountains, rivers, bridges, harbours, the areas
    // as listed) with version 5's row for 4 players and a row for 5;
    let mut data = new.data.clone();
    let rows = std::mem::take(&mut data.setups);
    let mut was = old.data.clone();
    was.setups.clear();
    assert_eq!(json(&data), json(&was));
    assert_eq!(rows.iter().map(|r| r.players).collect::<Vec<_>>(), vec![4, 5]);
    assert_eq!(json(&rows[0]), json(&old.data.setups[0]));
    // the row for 5 keeps the number of areas of each kind, the sacred
    // sites where they are, and puts every home on a harbour area with at
    // least two land neighbours.
    let five = new.for_players(5);
    assert_eq!(five.setup_row, Some(5));
    let count = |b: &Board| {
        let mut n: HashMap<AreaKind, usize> = HashMap::new();
        for a in &b.data.areas {
            *n.entry(a.kind).or_default() += 1;
        }
        n
    };
    assert_eq!(count(&five), count(&new));
    for a in &five.data.areas {
        assert_eq!(a.kind == AreaKind::Sacred, new.area(a.id).kind == AreaKind::Sacred, "{}", a.name);
        assert_eq!(json(&a.cells), json(&new.area(a.id).cells));
        if a.kind == AreaKind::Home {
            assert!(a.harbour, "{} has no harbour", a.name);
            assert!(five.land[a.id as usize].len() >= 2, "{} has {:?}", a.name, five.land[a.id as usize]);
        }
    }
}
