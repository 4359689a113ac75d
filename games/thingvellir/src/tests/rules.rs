//! Given/when/then tests, one per rule sentence that matters. Every state is
//! reached by playing commands from setup.

use runestone_engine::{Game, Seat};

use super::Driver;
use crate::data::{data, Action};
use crate::rules::{ask_of, Ask};
use crate::state::{BandMove, Choices, Choosing, Command, OrderDo, Orders, Phase, Vote};
use crate::{Options, Thingvellir};

const LAND: usize = 0;
const SEA: usize = 1;
const KIN: usize = 2;
const BLOOD: usize = 3;

pub(super) fn game(seats: u8, lawspeaker: Seat, sealed: bool) -> Driver {
    Driver::new(
        &Options { sealed_feuds: sealed, advanced_outlawry: false, lawspeaker: Some(lawspeaker), ..Options::default() },
        seats,
        7,
    )
    .expect("setup")
}

pub(super) fn first_waiting(d: &Driver) -> Seat {
    d.waiting()[0]
}

/// Every seat still to vote supports.
pub(super) fn all_support(d: &mut Driver) {
    while d.state.phase == Phase::Vote {
        let s = first_waiting(d);
        d.act(s, &Command::Vote { vote: Vote::Support }).expect("support");
    }
}

/// Take the fallback for everyone until the next Lawspeaker must propose.
pub(super) fn to_next_council(d: &mut Driver) {
    while d.state.phase != Phase::Propose && d.state.phase != Phase::Over {
        let s = first_waiting(d);
        let c = crate::bot::passive(&d.state, s).expect("a fallback");
        d.act(s, &c).expect("fallback accepted");
    }
}

/// Pass every resolution until `seat` is asked to resolve (or, for a
/// Pledge, what to swear from the cards it drew).
pub(super) fn pass_until(d: &mut Driver, seat: Seat) {
    while !matches!(ask_of(&d.state, seat), Some(Ask::Resolve(_)) | Some(Ask::Choose(Choosing::Pledge))) {
        let s = first_waiting(d);
        let c = crate::bot::passive(&d.state, s).expect("a fallback");
        d.act(s, &c).expect("fallback accepted");
    }
}

pub(super) fn edge(a: &str, b: &str) -> usize {
    let d = data();
    let i = |n: &str| d.first_map.districts.iter().position(|x| x == n).expect("district");
    let (a, b) = (i(a), i(b));
    d.first_map.edges.iter().position(|e| *e == (a, b) || *e == (b, a)).expect("edge")
}

pub(super) fn district(n: &str) -> usize {
    data().first_map.districts.iter().position(|x| x == n).expect("district")
}

#[test]
fn give_each_player_stead_tokens_their_home_stead_card_and_12_thingmen() {
    let d = game(4, 0, false);
    for (i, p) in d.state.players.iter().enumerate() {
        assert_eq!(p.longhall + p.thingvellir, 12, "12 Thingmen");
        assert_eq!(p.thingvellir, 1, "one Thingman on a side of Thingvellir");
        assert_eq!(p.small_tokens + 1, 8, "8 tokens of 1/2, one on the home stead");
        assert_eq!(p.large_tokens, 4);
        let colours = &data().home_steads[i].colours;
        assert_eq!(
            p.farms.iter().sum::<u8>() as usize,
            colours.len(),
            "advance once per colour on the Home Stead card"
        );
    }
    assert_eq!(d.state.deck.len() + d.state.pool.iter().flatten().count(), 108);
}

#[test]
fn lawspeaker_proposes_a_statute_at_the_bottom_of_one_of_the_four_laws() {
    let mut d = game(2, 0, false);
    d.act(0, &Command::Propose { law: SEA }).unwrap();
    assert_eq!(d.state.token, Some((SEA, 0)));
}

#[test]
fn subsequent_lawspeakers_may_choose_the_next_statute_up_and_must_leave_a_law_at_its_top() {
    let mut d = game(2, 0, false);
    for level in 0..3 {
        let ls = d.state.lawspeaker;
        d.act(ls, &Command::Propose { law: LAND }).unwrap();
        assert_eq!(d.state.token, Some((LAND, level)));
        all_support(&mut d);
        to_next_council(&mut d);
    }
    let ls = d.state.lawspeaker;
    let err = d.act(ls, &Command::Propose { law: LAND }).unwrap_err();
    assert!(err.message.contains("choose another Law"), "{err}");
    d.act(ls, &Command::Propose { law: KIN }).unwrap();
    assert_eq!(d.state.token, Some((KIN, 0)));
}

#[test]
fn to_sue_place_thingmen_on_a_different_law_equal_to_or_lower_than_the_selected_statute() {
    let mut d = game(3, 0, false);
    d.act(0, &Command::Propose { law: LAND }).unwrap();
    let same = d.act(1, &Command::Vote { vote: Vote::Sue { law: LAND, level: 0 } }).unwrap_err();
    assert!(same.message.contains("another Law"), "{same}");
    let higher = d.act(1, &Command::Vote { vote: Vote::Sue { law: SEA, level: 1 } });
    assert!(higher.is_err());
    d.act(1, &Command::Vote { vote: Vote::Sue { law: SEA, level: 0 } }).unwrap();
}

#[test]
fn suits_resolve_first_with_a_bonus_equal_to_the_thingmen_who_sued_then_support_by_the_number_of_supporters() {
    let mut d = game(3, 0, false);
    d.act(0, &Command::Propose { law: LAND }).unwrap();
    d.act(1, &Command::Vote { vote: Vote::Sue { law: SEA, level: 0 } }).unwrap();
    d.act(2, &Command::Vote { vote: Vote::Sue { law: SEA, level: 0 } }).unwrap();
    let cur = d.state.current.clone().unwrap();
    assert_eq!((cur.seat, cur.action, cur.strength), (1, Action::Raid, 2), "multiple players join the same suit");
    assert_eq!(d.state.queue[0].seat, 2);
    let support = d.state.queue.back().unwrap();
    assert_eq!((support.seat, support.action, support.strength), (0, Action::Settle, 1), "one player supported");
}

#[test]
fn statutes_at_the_top_of_a_law_have_inherent_vote_bonuses() {
    let mut d = game(2, 0, false);
    for _ in 0..2 {
        let ls = d.state.lawspeaker;
        d.act(ls, &Command::Propose { law: SEA }).unwrap();
        all_support(&mut d);
        to_next_council(&mut d);
    }
    let ls = d.state.lawspeaker;
    d.act(ls, &Command::Propose { law: SEA }).unwrap();
    all_support(&mut d);
    assert_eq!(d.state.current.as_ref().unwrap().strength, 2 + 2);
}

#[test]
fn standing_voting_orders_resolve_a_council_the_moment_the_lawspeaker_proposes() {
    let mut d = game(3, 0, false);
    let orders = Orders {
        rules: vec![(Action::Settle, OrderDo::SueFor { action: Action::Raid })],
        otherwise: Some(OrderDo::Support),
    };
    // Orders may be given whenever a seat is asked something: here, while voting
    // in a first council that they then cast for themselves.
    d.act(0, &Command::Orders { orders: Some(Orders { rules: vec![], otherwise: Some(OrderDo::Support) }) }).unwrap();
    d.act(0, &Command::Propose { law: KIN }).unwrap();
    d.act(1, &Command::Orders { orders: Some(orders.clone()) }).unwrap();
    d.act(2, &Command::Orders { orders: Some(orders) }).unwrap();
    assert_eq!(d.state.phase, Phase::Resolve, "both votes were cast by orders");
    to_next_council(&mut d);
    let ls = d.state.lawspeaker;
    assert_eq!(ls, 1);
    d.act(ls, &Command::Propose { law: LAND }).unwrap();
    assert_eq!(d.state.phase, Phase::Resolve, "no vote waited for anyone");
    assert_eq!(d.state.votes[2], Some(Vote::Sue { law: SEA, level: 0 }), "sue for Raid against Settle");
    assert_eq!(d.state.votes[0], Some(Vote::Support));
}

#[test]
fn a_player_without_orders_is_asked_in_clockwise_order() {
    let mut d = game(3, 0, false);
    d.act(0, &Command::Propose { law: LAND }).unwrap();
    assert_eq!(d.waiting(), vec![1]);
}

#[test]
fn to_subsume_a_new_district_it_must_be_adjacent_to_one_you_control() {
    let mut d = game(2, 0, false);
    d.act(0, &Command::Propose { law: LAND }).unwrap();
    all_support(&mut d);
    let far = Command::Subsume { district: district("Sida"), colour: 0 };
    assert!(d.act(0, &far).unwrap_err().message.contains("neither next to"));
    let taken = Command::Subsume { district: district("Austfirdir"), colour: 0 };
    assert!(d.act(0, &taken).unwrap_err().message.contains("already has a Stead"));
    let before = d.state.players[0].farms[2];
    d.act(0, &Command::Subsume { district: district("Snaefellsnes"), colour: 2 }).unwrap();
    assert_eq!(d.state.steads[district("Snaefellsnes")], Some((0, 1)), "a 1/2 token with the 1 side up");
    assert_eq!(d.state.players[0].farms[2], before + 1, "advance one holding of your choice");
}

#[test]
fn the_cost_to_increase_a_district_by_1_is_its_current_value_and_no_district_may_exceed_4() {
    let mut d = game(2, 0, false);
    d.act(0, &Command::Propose { law: LAND }).unwrap();
    all_support(&mut d); // strength 2
    let home = district("Borgarfjordur");
    let err = d.act(0, &Command::Expand { steps: vec![(home, 0), (home, 0)] }).unwrap_err();
    assert!(err.message.contains("cost 3"), "1 then 2: {err}");
    d.act(0, &Command::Expand { steps: vec![(home, 0)] }).unwrap();
    assert_eq!(d.state.steads[home], Some((0, 2)));
}

/// Six gothar; the order runs clockwise from `lawspeaker`, and everyone
/// resolves a Ride at strength 6.
pub(super) fn ride_round(lawspeaker: Seat) -> Driver {
    let mut d = game(6, lawspeaker, false);
    d.act(lawspeaker, &Command::Propose { law: BLOOD }).unwrap();
    all_support(&mut d);
    d
}

#[test]
fn a_gothi_who_sets_out_thingmen_onto_an_edge_with_opposing_thingmen_starts_a_feud() {
    let mut d = ride_round(3);
    // Seat 5 (Thingeyjarthing) sets forth and rides a band onto Skagafjordur–Eyjafjordur.
    pass_until(&mut d, 5);
    let mv = BandMove {
        from: edge("Eyjafjordur", "Thingeyjarthing"),
        count: 1,
        path: vec![edge("Skagafjordur", "Eyjafjordur")],
    };
    d.act(5, &Command::Ride { set_forth: vec![edge("Eyjafjordur", "Thingeyjarthing")], moves: vec![mv] }).unwrap();
    assert!(d.state.feud.is_none());
    pass_until(&mut d, 2);
    d.act(2, &Command::Ride { set_forth: vec![edge("Skagafjordur", "Eyjafjordur")], moves: vec![] }).unwrap();
    let f = d.state.feud.clone().expect("the feud is automatic");
    assert_eq!((f.sides, f.men), ([2, 5], [1, 1]));
    assert_eq!(f.drawn[0].len() + f.drawn[1].len(), 2, "a card per Thingman in the fight");
}

#[test]
fn a_gothi_who_rides_a_band_into_an_opposing_band_starts_a_feud() {
    let mut d = ride_round(0);
    pass_until(&mut d, 2);
    d.act(2, &Command::Ride { set_forth: vec![edge("Skagafjordur", "Eyjafjordur"); 2], moves: vec![] }).unwrap();
    pass_until(&mut d, 5);
    let from = edge("Eyjafjordur", "Thingeyjarthing");
    let mv = BandMove { from, count: 3, path: vec![edge("Skagafjordur", "Eyjafjordur")] };
    d.act(5, &Command::Ride { set_forth: vec![from; 3], moves: vec![mv] }).unwrap();
    let f = d.state.feud.clone().expect("the feud is automatic");
    assert_eq!((f.sides, f.men), ([5, 2], [3, 2]));
}

#[test]
fn you_may_not_move_through_an_edge_occupied_by_opposing_thingmen() {
    let mut d = ride_round(0);
    pass_until(&mut d, 2);
    d.act(2, &Command::Ride { set_forth: vec![edge("Skagafjordur", "Eyjafjordur")], moves: vec![] }).unwrap();
    pass_until(&mut d, 5);
    let from = edge("Eyjafjordur", "Thingeyjarthing");
    let mv =
        BandMove { from, count: 1, path: vec![edge("Skagafjordur", "Eyjafjordur"), edge("Hunathing", "Skagafjordur")] };
    let err = d.act(5, &Command::Ride { set_forth: vec![from], moves: vec![mv] }).unwrap_err();
    assert!(err.message.contains("may not ride through"), "{err}");
}

#[test]
fn the_gothi_of_a_district_ridden_through_decides_whether_to_fight_without_thingmen() {
    let mut d = ride_round(3);
    pass_until(&mut d, 5);
    let from = edge("Eyjafjordur", "Thingeyjarthing");
    let path =
        vec![edge("Skagafjordur", "Eyjafjordur"), edge("Hunathing", "Skagafjordur"), edge("Strandir", "Hunathing")];
    d.act(5, &Command::Ride { set_forth: vec![from], moves: vec![BandMove { from, count: 1, path }] }).unwrap();
    assert_eq!(d.waiting(), vec![2], "Skagafjordur's gothi is asked");
    d.act(2, &Command::Challenge { fight: true }).unwrap();
    let f = d.state.feud.clone().expect("a feud");
    assert_eq!((f.sides, f.men), ([2, 5], [0, 1]), "without the aid of Thingmen");
    assert_eq!(f.drawn[0].len(), 0);
}

#[test]
fn the_winner_of_each_conflict_gains_1_wordfame_and_slays_1_opposing_thingman_with_compensation() {
    let mut d = ride_round(0);
    pass_until(&mut d, 2);
    d.act(2, &Command::Ride { set_forth: vec![edge("Skagafjordur", "Eyjafjordur"); 3], moves: vec![] }).unwrap();
    pass_until(&mut d, 5);
    let from = edge("Eyjafjordur", "Thingeyjarthing");
    let mv = BandMove { from, count: 3, path: vec![edge("Skagafjordur", "Eyjafjordur")] };
    d.act(5, &Command::Ride { set_forth: vec![from; 3], moves: vec![mv] }).unwrap();
    let f = d.state.feud.clone().expect("a feud");
    let wins: Vec<usize> = f
        .conflicts
        .iter()
        .filter(|c| c.present)
        .map(|c| match c.worth[0].cmp(&c.worth[1]) {
            std::cmp::Ordering::Greater => 0,
            std::cmp::Ordering::Less => 1,
            _ => 2,
        })
        .collect();
    let fame = [d.state.players[5].wordfame, d.state.players[2].wordfame];
    // Nobody has Goods: each side accepts in turn until all are settled.
    while d.state.feud.is_some() {
        let s = first_waiting(&d);
        let c = crate::bot::passive(&d.state, s).unwrap();
        assert!(matches!(c, Command::Accept { .. }));
        d.act(s, &c).unwrap();
    }
    let won = |side| wins.iter().filter(|w| **w == side).count() as i32;
    assert_eq!(d.state.players[5].wordfame, fame[0] + won(0));
    assert_eq!(d.state.players[2].wordfame, fame[1] + won(1));
    assert_eq!(d.state.players[2].slain as i32, won(0), "slain Thingmen go to their owner's mat");
    assert_eq!(d.state.players[5].slain as i32, won(1));
}

#[test]
fn a_sealed_feud_costs_one_input_per_side() {
    let mut d = game(6, 3, true);
    d.act(3, &Command::Propose { law: BLOOD }).unwrap();
    all_support(&mut d);
    pass_until(&mut d, 5);
    let from = edge("Eyjafjordur", "Thingeyjarthing");
    d.act(
        5,
        &Command::Ride {
            set_forth: vec![from],
            moves: vec![BandMove { from, count: 1, path: vec![edge("Skagafjordur", "Eyjafjordur")] }],
        },
    )
    .unwrap();
    pass_until(&mut d, 2);
    d.act(2, &Command::Ride { set_forth: vec![edge("Skagafjordur", "Eyjafjordur")], moves: vec![] }).unwrap();
    assert!(d.state.feud.is_some());
    let mut sides = d.waiting();
    sides.sort();
    assert_eq!(sides, vec![2, 5], "both sides commit at once");
    d.act(2, &Command::Seal { goods: vec![] }).unwrap();
    assert_eq!(d.waiting(), vec![5]);
    d.act(5, &Command::Seal { goods: vec![] }).unwrap();
    assert!(d.state.feud.is_none(), "revealed together and settled");
}

#[test]
fn raid_a_places_thingmen_at_sea_and_b_returns_them_drawing_and_keeping_half_rounded_up() {
    let mut d = game(2, 0, false);
    d.act(0, &Command::Propose { law: SEA }).unwrap();
    all_support(&mut d); // strength 2
    d.act(0, &Command::SailOut { thingmen: 2 }).unwrap();
    assert_eq!((d.state.players[0].at_sea, d.state.players[0].longhall), (2, 9));
    to_next_council(&mut d);
    d.act(1, &Command::Propose { law: BLOOD }).unwrap();
    d.act(0, &Command::Vote { vote: Vote::Sue { law: SEA, level: 0 } }).unwrap();
    // Seat 0 sued alone with 1 Thingman: strength 1; 2 at sea + 1 = 3 cards, keep 2.
    d.act(0, &Command::ReturnLaden).unwrap();
    assert_eq!(d.state.players[0].hand.len(), 3);
    assert_eq!(d.state.players[0].longhall, 11);
    let hand = d.state.players[0].hand.clone();
    assert!(d.act(0, &Command::Keep { cards: hand[..1].to_vec() }).unwrap_err().message.contains("keep exactly 2"));
    d.act(0, &Command::Keep { cards: hand[..2].to_vec() }).unwrap();
    assert_eq!(d.state.players[0].wealth, hand[..2].to_vec());
}

#[test]
fn goods_show_only_their_worth_to_everyone_including_their_owner() {
    let mut d = game(2, 0, false);
    d.act(0, &Command::Propose { law: SEA }).unwrap();
    d.act(1, &Command::Vote { vote: Vote::Sue { law: LAND, level: 0 } }).unwrap();
    pass_until(&mut d, 0);
    d.act(0, &Command::ReturnLaden).unwrap();
    let hand = d.state.players[0].hand.clone();
    let own = Thingvellir::view(&d.state, runestone_engine::Viewer::Seat(0));
    assert_eq!(
        own["players"][0]["hand"].as_array().unwrap().len(),
        hand.len(),
        "a hand shows to its holder while choosing"
    );
    assert!(Thingvellir::view(&d.state, runestone_engine::Viewer::Seat(1))["players"][0]["hand"].is_null());
    d.act(0, &Command::Keep { cards: vec![hand[0]] }).unwrap();
    let own = Thingvellir::view(&d.state, runestone_engine::Viewer::Seat(0));
    let good = &own["players"][0]["wealth"][0];
    assert_eq!(good.as_object().unwrap().keys().cloned().collect::<Vec<_>>(), vec!["place", "worth"]);
}

#[test]
fn you_may_not_have_more_bondi_than_districts_you_control() {
    let mut d = game(2, 0, false);
    d.act(0, &Command::Propose { law: KIN }).unwrap();
    all_support(&mut d);
    to_next_council(&mut d);
    d.act(1, &Command::Propose { law: KIN }).unwrap(); // Pledge, strength 2
    all_support(&mut d);
    pass_until(&mut d, 1);
    let hand = d.state.players[1].hand.clone();
    assert_eq!(hand.len(), 2, "draw 1 card per point of strength");
    d.act(1, &Command::Swear { add: Some(hand[0]), swaps: vec![] }).unwrap();
    assert_eq!(d.state.players[1].oaths, vec![hand[0]]);
    assert!(d.state.doom.contains(&hand[1]), "cards not in your Oaths are discarded");
    pass_until(&mut d, 0);
    let h = d.state.players[0].hand.clone();
    d.act(0, &Command::Swear { add: Some(h[0]), swaps: vec![] }).unwrap();
    // Hunting for Sheep may give seat 0 another Pledge: a second Bondi is refused
    // while seat 0 has one District.
    if matches!(ask_of(&d.state, 0), Some(Ask::Choose(Choosing::Pledge))) {
        let h = d.state.players[0].hand.clone();
        if let Some(c) = h.first() {
            let err = d.act(0, &Command::Swear { add: Some(*c), swaps: vec![] }).unwrap_err();
            assert!(err.message.contains("not have more Bondi"), "{err}");
        }
    }
}

#[test]
fn in_winter_a_player_whose_holdings_of_a_colour_exceed_each_neighbours_gains_1_wordfame() {
    // Two gothar made neighbours by settling toward each other on a small
    // island is long to play; here six gothar ride and settle, then the
    // winter's comparison is checked against the farms as they stand.
    let mut d = game(6, 0, false);
    d.act(0, &Command::Propose { law: LAND }).unwrap();
    all_support(&mut d);
    pass_until(&mut d, 2);
    d.act(2, &Command::Subsume { district: district("Eyjafjordur"), colour: 0 }).unwrap();
    let farms: Vec<[u8; 4]> = d.state.players.iter().map(|p| p.farms).collect();
    let fame: Vec<i32> = d.state.players.iter().map(|p| p.wordfame).collect();
    let neighbours: Vec<Vec<Seat>> = (0..6).map(|s| d.state.neighbours(s)).collect();
    assert_eq!(neighbours[2], vec![5], "Eyjafjordur borders Thingeyjarthing");
    // Nobody else settles or changes farms; hunting's Settle steps are passed.
    to_next_council(&mut d);
    for s in 0..6usize {
        let exp = if neighbours[s].is_empty() {
            0
        } else {
            (0..4).filter(|c| neighbours[s].iter().all(|n| farms[s][*c] > farms[*n as usize][*c])).count() as i32
        };
        assert_eq!(d.state.players[s].wordfame - fame[s], exp, "seat {s}");
    }
}

#[test]
fn slain_thingmen_return_and_the_lawspeaker_card_passes_to_the_left() {
    let mut d = ride_round(0);
    pass_until(&mut d, 2);
    d.act(2, &Command::Ride { set_forth: vec![edge("Skagafjordur", "Eyjafjordur"); 3], moves: vec![] }).unwrap();
    pass_until(&mut d, 5);
    let from = edge("Eyjafjordur", "Thingeyjarthing");
    d.act(
        5,
        &Command::Ride {
            set_forth: vec![from; 3],
            moves: vec![BandMove { from, count: 3, path: vec![edge("Skagafjordur", "Eyjafjordur")] }],
        },
    )
    .unwrap();
    to_next_council(&mut d);
    assert!(d.state.players.iter().all(|p| p.slain == 0));
    assert_eq!(d.state.lawspeaker, 1);
    assert_eq!(d.state.round, 2);
}

#[test]
fn the_shipped_data_holds_108_orlog_cards_four_laws_and_six_home_steads() {
    let d = data();
    assert_eq!(d.cards.len(), 108);
    assert_eq!(d.laws.len(), 4);
    assert_eq!(d.home_steads.len(), 6);
    assert_eq!(d.strength(3), 2, "if you have 3 farms of a color, Bondi of that color are strength 2");
    for c in 0..4 {
        assert_eq!(d.cards.iter().filter(|k| k.colour == c).count(), 27);
    }
}

#[test]
fn a_broken_data_file_is_refused_with_a_message_naming_the_fault() {
    let map =
        include_str!("../../data/iceland.toml").replace("[\"Sida\", \"Rangarthing\"]", "[\"Sida\", \"Atlantis\"]");
    let err = crate::data::Data::parse(
        include_str!("../../data/laws.toml"),
        include_str!("../../data/orlog.toml"),
        &map,
        include_str!("../../data/iceland-v4.toml"),
        include_str!("../../data/sheep_hunt.toml"),
        include_str!("../../data/home_steads.toml"),
    )
    .unwrap_err();
    assert!(err.contains("Atlantis"), "{err}");
}

/// Six gothar from Lawspeaker 0: seat 5 raids home laden (3 Goods), seats 2
/// and 5 pledge a Bondi each, seat 2 rides a Thingman onto Eyjafjordur–Thingeyjarthing (a District
/// of seat 5), and then the Lawspeaker proposes Feast (Law of Blood, second
/// statute), which everyone supports at strength 6.
fn feast_round() -> Driver {
    feast_round_with(Options {
        sealed_feuds: false,
        advanced_outlawry: false,
        lawspeaker: Some(0),
        ..Options::default()
    })
}

fn feast_round_with(options: Options) -> Driver {
    let mut d = Driver::new(&options, 6, 7).expect("setup");
    d.act(0, &Command::Propose { law: SEA }).unwrap();
    all_support(&mut d);
    pass_until(&mut d, 5);
    d.act(5, &Command::ReturnLaden).unwrap();
    let hand = d.state.players[5].hand.clone();
    d.act(5, &Command::Keep { cards: hand[..3].to_vec() }).unwrap();
    to_next_council(&mut d);
    d.act(1, &Command::Propose { law: LAND }).unwrap();
    all_support(&mut d);
    to_next_council(&mut d);
    d.act(2, &Command::Propose { law: LAND }).unwrap();
    all_support(&mut d);
    let h = d.state.players[2].hand.clone();
    d.act(2, &Command::Swear { add: Some(h[0]), swaps: vec![] }).unwrap();
    pass_until(&mut d, 5);
    assert_eq!(ask_of(&d.state, 5), Some(Ask::Choose(Choosing::Pledge)));
    let h = d.state.players[5].hand.clone();
    d.act(5, &Command::Swear { add: Some(h[0]), swaps: vec![] }).unwrap();
    to_next_council(&mut d);
    d.act(3, &Command::Propose { law: BLOOD }).unwrap();
    all_support(&mut d);
    pass_until(&mut d, 2);
    let from = edge("Skagafjordur", "Eyjafjordur");
    d.act(
        2,
        &Command::Ride {
            set_forth: vec![from],
            moves: vec![BandMove { from, count: 1, path: vec![edge("Eyjafjordur", "Thingeyjarthing")] }],
        },
    )
    .unwrap();
    to_next_council(&mut d);
    d.act(4, &Command::Propose { law: BLOOD }).unwrap();
    all_support(&mut d);
    pass_until(&mut d, 5);
    assert_eq!(d.state.current.as_ref().unwrap().action, Action::Feast);
    d
}

#[test]
fn you_may_give_goods_to_any_gothi_with_a_thingman_on_your_districts_and_gain_1_wordfame_each() {
    let mut d = feast_round();
    let far = Command::Give { gifts: vec![crate::state::Gift { to: 0, goods: vec![0] }] };
    assert!(d.act(5, &far).unwrap_err().message.contains("neither your neighbour"));
    let fame = d.state.players[5].wordfame;
    let good = d.state.players[5].wealth[0];
    d.act(5, &Command::Give { gifts: vec![crate::state::Gift { to: 2, goods: vec![0] }] }).unwrap();
    assert_eq!(d.state.players[5].wordfame, fame + 1);
    assert!(d.state.players[2].wealth.contains(&good), "they tuck it into their Wealth");
}

#[test]
fn a_discarded_bondi_slays_thingmen_equal_to_its_worth_and_the_murderer_is_outlawed() {
    let mut d = feast_round();
    let bondi = d.state.players[5].oaths[0];
    let on_edge = d.state.edges[edge("Eyjafjordur", "Thingeyjarthing")][2];
    d.act(
        5,
        &Command::Murder { bondi: vec![0], edge: edge("Eyjafjordur", "Thingeyjarthing"), victim: 2, also: vec![] },
    )
    .unwrap();
    let slain = (data().cards[bondi as usize].worth).min(on_edge);
    assert_eq!(d.state.players[2].slain, slain, "slain Thingmen go back to the opposing gothi's mat");
    assert!(d.state.players[5].outlawed);
    assert!(d.state.doom.contains(&bondi), "discarded Bondi are sent to their Doom");
}

#[test]
fn a_capture_needs_a_thingman_on_the_district() {
    let mut d = feast_round();
    let err = d
        .act(5, &Command::Capture { bondi: 0, weapon: None, district: district("Borgarfjordur"), pay: true })
        .unwrap_err();
    assert!(err.message.contains("no Thingman on Borgarfjordur"), "{err}");
}

#[test]
fn a_persona_requires_goods_of_matching_colour_equal_to_its_worth_counting_itself() {
    let mut d = game(2, 0, false);
    d.act(0, &Command::Propose { law: KIN }).unwrap();
    all_support(&mut d);
    let pool: Vec<u16> = d.state.pool.iter().flatten().copied().collect();
    assert!(!pool.is_empty());
    for &c in &pool {
        let worth = data().cards[c as usize].worth;
        let r = d.act(0, &Command::FosterPersona { persona: c });
        if worth == 1 {
            r.unwrap();
            assert!(d.state.players[0].hird.contains(&c));
            break;
        } else {
            assert!(r.unwrap_err().message.contains("needs"), "a Worth {worth} persona needs Goods");
        }
    }
}

#[test]
fn once_everyone_has_fostered_the_initiator_draws_per_strength_and_fills_empty_spaces() {
    let mut d = game(2, 0, false);
    d.act(0, &Command::Propose { law: KIN }).unwrap();
    all_support(&mut d);
    let deck = d.state.deck.len();
    d.act(0, &Command::Pass).unwrap();
    assert_eq!(d.state.deck.len(), deck, "no draw before everyone has had a turn");
    d.act(1, &Command::Pass).unwrap();
    assert_eq!(d.state.deck.len(), deck - 2, "1 card per strength");
    assert!(d.state.pool.iter().flatten().all(|c| data().cards[*c as usize].persona.is_some()));
}

#[test]
fn under_advanced_outlawry_a_murderer_pays_the_life_ring_fee_to_the_one_murdered_from_in_winter() {
    let mut d = feast_round_with(Options {
        sealed_feuds: false,
        advanced_outlawry: true,
        lawspeaker: Some(0),
        ..Options::default()
    });
    d.act(
        5,
        &Command::Murder { bondi: vec![0], edge: edge("Eyjafjordur", "Thingeyjarthing"), victim: 2, also: vec![] },
    )
    .unwrap();
    let best =
        d.state.players[5].wealth.iter().map(|c| data().cards[*c as usize].worth).max().expect("Goods from the raid");
    let before = d.state.players[2].wealth.len();
    to_next_council(&mut d);
    assert!(!d.state.players[5].outlawed, "lesser outlawry is lifted by the fee");
    assert_eq!(d.state.players[2].wealth.len(), before + 1);
    assert_eq!(
        data().cards[*d.state.players[2].wealth.last().unwrap() as usize].worth,
        best,
        "the Good of greatest Worth"
    );
}

#[test]
fn ties_are_broken_by_wordfame_then_farms_then_districts_then_nearest_clockwise_from_the_lawspeaker() {
    let d = game(3, 1, false);
    // At setup all have 0 Wordfame, two farms and one District.
    assert_eq!(crate::seasons::ranking(&d.state), vec![1, 2, 0]);
}

#[test]
fn the_game_is_not_over_while_two_gothar_hold_farms_and_none_has_22_wordfame() {
    let d = game(2, 0, false);
    assert!(Thingvellir::outcome(&d.state).is_none());
    assert!(!crate::seasons::ended(&d.state));
}

#[test]
fn if_the_total_is_less_than_the_thingmen_in_the_longhall_the_attempt_may_be_declared_a_failure() {
    let mut d = feast_round();
    d.act(5, &Command::Pass).unwrap();
    pass_until(&mut d, 2);
    let target = district("Thingeyjarthing");
    let bondi = d.state.players[2].oaths[0];
    assert!(d.state.players[5].longhall > 3, "more Thingmen at home than any Bondi's Worth");
    d.act(2, &Command::Capture { bondi: 0, weapon: None, district: target, pay: false }).unwrap();
    assert_eq!(d.state.owner(target), Some(5), "the District stays");
    assert!(
        d.state.players[2].oaths.is_empty() && d.state.doom.contains(&bondi),
        "discarded cards are sent to their Doom"
    );
}

#[test]
fn with_no_thingmen_left_to_slay_the_winner_razes_a_farm_and_a_gothi_without_districts_is_out() {
    let mut d = ride_round(0);
    pass_until(&mut d, 2);
    d.act(2, &Command::Ride { set_forth: vec![edge("Skagafjordur", "Eyjafjordur")], moves: vec![] }).unwrap();
    pass_until(&mut d, 5);
    let from = edge("Eyjafjordur", "Thingeyjarthing");
    let mv = BandMove { from, count: 5, path: vec![edge("Skagafjordur", "Eyjafjordur")] };
    d.act(5, &Command::Ride { set_forth: vec![from; 5], moves: vec![mv] }).unwrap();
    let f = d.state.feud.clone().expect("a feud");
    let won = f.conflicts.iter().filter(|c| c.present && c.worth[0] > c.worth[1]).count();
    assert!(won >= 2, "this seed gives the band of five at least two conflicts ({won})");
    let farms: u8 = d.state.players[2].farms.iter().sum();
    while d.state.feud.is_some() {
        let s = first_waiting(&d);
        let c = crate::bot::passive(&d.state, s).unwrap();
        d.act(s, &c).unwrap();
    }
    assert_eq!(d.state.players[2].slain, 1, "the one Thingman is slain first");
    assert_eq!(d.state.owner(district("Skagafjordur")), None, "then the farm of value 1 is razed");
    assert!(d.state.players[2].farms.iter().sum::<u8>() < farms);
    assert!(d.state.players[2].out, "the gothi has no District left");
    assert!(d.state.edges.iter().all(|e| e[2] == 0), "their Thingmen leave the board");
}

#[test]
fn pledge_draw_then_swear_the_draw_is_no_choice_so_the_gothi_is_asked_only_what_to_swear() {
    let mut d = game(2, 0, false);
    d.act(0, &Command::Propose { law: KIN }).unwrap();
    all_support(&mut d);
    to_next_council(&mut d);
    d.act(1, &Command::Propose { law: KIN }).unwrap(); // Pledge, strength 2
    all_support(&mut d);
    pass_until(&mut d, 1);
    assert_eq!(ask_of(&d.state, 1), Some(Ask::Choose(Choosing::Pledge)), "asked to swear at once");
    assert_eq!(d.state.players[1].hand.len(), 2, "the cards were drawn, one per point of strength");
    let before = d.inputs[1];
    d.act(1, &Command::Swear { add: None, swaps: vec![] }).unwrap();
    assert_eq!(d.inputs[1] - before, 1, "one input for the whole Pledge");
    assert!(d.state.players[1].hand.is_empty(), "the cards not sworn go to the Doom");
}

#[test]
fn an_action_with_nothing_to_do_but_pass_passes_by_itself() {
    // Ride with no Thingman in the Longhall and none on the board: nothing to do.
    let mut d = game(2, 0, false);
    d.act(0, &Command::Propose { law: SEA }).unwrap(); // Raid, strength 2
    all_support(&mut d);
    d.act(0, &Command::SailOut { thingmen: 2 }).unwrap();
    assert!(rules_step_has_choice(&d), "seat 1 may raid");
    // Everyone's Longhall emptied: a Ride would have nothing to set forth.
    let mut s = d.state.clone();
    s.players[1].longhall = 0;
    let step = crate::state::Step { seat: 1, action: Action::Ride, strength: 2, initiator: 1, group: 99, bondi: false };
    assert!(!crate::rules::has_choice(&s, &step), "no Thingman to set forth or move: no choice");
    s.players[1].longhall = 1;
    assert!(crate::rules::has_choice(&s, &step), "one Thingman to set forth: a choice");
    // And in play, such a step is never asked: nobody is ever asked a Resolve whose only legal command is Pass.
    let mut games = 0;
    for seed in 0..6u64 {
        let mut g = Driver::new(&Options::default(), 2 + (seed % 5) as u8, seed).unwrap();
        let mut n = 0;
        while Thingvellir::outcome(&g.state).is_none() && n < 3000 {
            n += 1;
            let seat = g.waiting()[0];
            if matches!(ask_of(&g.state, seat), Some(Ask::Resolve(_))) {
                let legal = Thingvellir::legal(&g.state, seat);
                assert!(
                    legal.iter().any(|c| *c != Command::Pass),
                    "seed {seed}: asked to resolve with only Pass legal"
                );
            }
            let c = crate::bot::choose(&g.state, seat, true).unwrap();
            g.act(seat, &c).unwrap();
        }
        games += 1;
    }
    assert_eq!(games, 6);
}

fn rules_step_has_choice(d: &Driver) -> bool {
    let step = d.state.current.clone().expect("a step");
    crate::rules::has_choice(&d.state, &step)
}

/// Two gothar: a band of two of seat 0's rides across the north to
/// Austfirdir, where seat 1's one Thingman stands, and fights there; answers
/// the game after the feud.
fn feud_at_austfirdir(seed: u64) -> Driver {
    feud_at_austfirdir_choosing(seed, Choices::default())
}

/// As `feud_at_austfirdir`, seat 0 having given standing `choices` first.
fn feud_at_austfirdir_choosing(seed: u64, choices: Choices) -> Driver {
    let opts = Options { sealed_feuds: false, advanced_outlawry: false, lawspeaker: Some(0), ..Options::default() };
    let mut d = Driver::new(&opts, 2, seed).expect("setup");
    if choices != Choices::default() {
        d.act(0, &Command::Choices { choices }).unwrap();
    }
    let start = edge("Borgarfjordur", "Hunathing");
    // Round 1: Ride (Law of Blood), both support, strength 2.
    d.act(0, &Command::Propose { law: BLOOD }).unwrap();
    all_support(&mut d);
    d.act(0, &Command::Ride { set_forth: vec![start, start], moves: vec![] }).unwrap();
    d.act(1, &Command::Ride { set_forth: vec![edge("Fljotsdalsherad", "Austfirdir")], moves: vec![] }).unwrap();
    to_next_council(&mut d);
    // Round 2: seat 1 proposes Raid; seat 0 sues for Ride and rides north.
    d.act(1, &Command::Propose { law: SEA }).unwrap();
    d.act(0, &Command::Vote { vote: Vote::Sue { law: BLOOD, level: 0 } }).unwrap();
    assert_eq!(ask_of(&d.state, 0), Some(Ask::Resolve(Action::Ride)), "the suit resolves first");
    let north = BandMove {
        from: start,
        count: 2,
        path: vec![
            edge("Hunathing", "Skagafjordur"),
            edge("Skagafjordur", "Eyjafjordur"),
            edge("Eyjafjordur", "Thingeyjarthing"),
        ],
    };
    d.act(0, &Command::Ride { set_forth: vec![], moves: vec![north] }).unwrap();
    to_next_council(&mut d);
    // Round 3: seat 0 proposes the Law of the Sea's next statute, Ride, and rides east.
    d.act(0, &Command::Propose { law: SEA }).unwrap();
    all_support(&mut d);
    let east = BandMove {
        from: edge("Eyjafjordur", "Thingeyjarthing"),
        count: 2,
        path: vec![edge("Fljotsdalsherad", "Thingeyjarthing"), edge("Fljotsdalsherad", "Austfirdir")],
    };
    d.act(0, &Command::Ride { set_forth: vec![], moves: vec![east] }).unwrap();
    assert!(d.state.feud.is_some() || d.state.players[1].slain > 0, "riding onto seat 1's Thingman starts a feud");
    while d.state.feud.is_some() {
        let s = first_waiting(&d);
        let c = crate::bot::passive(&d.state, s).unwrap();
        d.act(s, &c).unwrap();
    }
    d
}

#[test]
fn the_game_ends_when_only_one_player_has_any_holdings_left_and_the_last_with_a_farm_in_iceland_wins() {
    // Seeds whose drawn cards give seat 0 two conflicts: the first slays seat
    // 1's Thingman, the second razes Austfirdir, seat 1's only District.
    let found = (0..200).map(feud_at_austfirdir).find(|d| d.state.players[1].out);
    let d = found.expect("some seed gives seat 0 two conflicts at Austfirdir");
    assert_eq!(d.state.owner(district("Austfirdir")), None, "the last farm of seat 1 is razed");
    assert_eq!(d.state.phase, Phase::Over, "only one player has any holdings left");
    let names = ["Ása".to_owned(), "Bjarni".to_owned()];
    let outcome = Thingvellir::outcome_named(&d.state, &names).expect("the game is over");
    assert_eq!(outcome.winners, vec![0]);
    assert!(outcome.summary.starts_with("Ása wins as the last with a farm in Iceland"), "{}", outcome.summary);
    assert!(d.state.players[0].wordfame < crate::seasons::FAME_TO_WIN, "not by Wordfame");
    assert_eq!(outcome.ranking, vec![0, 1], "the gothi still in Iceland first");
    assert!(Thingvellir::pending(&d.state).is_empty(), "nobody is asked anything more");
}

#[test]
fn standing_choices_may_be_given_at_any_time_and_only_their_giver_sees_them() {
    let mut d = game(3, 0, false);
    let ask = Command::Choices { choices: Choices { farm: true, pool: true } };
    assert_eq!(ask_of(&d.state, 1), None, "seat 1 is asked nothing now");
    assert!(Thingvellir::standing_order(&d.state, 1, &ask), "the kernel takes it from a seat not asked");
    d.act(1, &ask).expect("a standing choice is taken at any time");
    assert_eq!(d.state.players[1].choices, Choices { farm: true, pool: true });
    assert_eq!(ask_of(&d.state, 0), Some(Ask::Propose), "nothing else changed: the Lawspeaker still proposes");
    let mine = crate::view::view(&d.state, runestone_engine::Viewer::Seat(1));
    let theirs = crate::view::view(&d.state, runestone_engine::Viewer::Seat(0));
    assert_eq!(mine.players[1].choices, Some(Choices { farm: true, pool: true }));
    assert_eq!(theirs.players[1].choices, None, "standing choices are seen only by their giver");
    assert!(!Thingvellir::standing_order(&d.state, 1, &Command::Pass), "any other command still waits its turn");
}

#[test]
fn if_no_thingmen_remain_to_slay_that_gothi_may_choose_to_raze_one_farm_owned_by_the_opposing_gothi() {
    // Seeds whose drawn cards give seat 0 two conflicts at Austfirdir: the
    // first slays seat 1's Thingman, the second razes; seat 0 asked to choose.
    let choose = Choices { farm: true, pool: false };
    let found =
        (0..200).map(|seed| feud_at_austfirdir_choosing(seed, choose)).find(|d| ask_of(&d.state, 0) == Some(Ask::Farm));
    let mut d = found.expect("some seed gives seat 0 a conflict against no Thingmen");
    let call = d.state.farm_calls.front().cloned().expect("the farm call");
    assert_eq!((call.chooser, call.loser), (0, 1));
    assert_eq!(d.state.owner(district("Austfirdir")), Some(1), "nothing is razed before the winner chooses");
    // Refused in words: a District away from the feud, a colour with no farm.
    let far = d.act(0, &Command::Raze { district: district("Borgarfjordur"), colour: 0 }).unwrap_err();
    assert!(far.message.contains("where the feud took place"), "{far}");
    let farms = d.state.players[1].farms;
    let none = (0..4).find(|c| farms[*c] == 0).expect("seat 1 lacks a colour");
    let bad = d.act(0, &Command::Raze { district: district("Austfirdir"), colour: none }).unwrap_err();
    assert!(bad.message.contains("has no"), "{bad}");
    // The winner's own choice: not the colour the rules would take.
    let default = crate::actions::default_farm(&d.state, 1).expect("a farm");
    let colour = (0..4).find(|c| farms[*c] > 0 && *c != default).expect("a second colour of farms");
    d.act(0, &Command::Raze { district: district("Austfirdir"), colour }).unwrap();
    assert_eq!(d.state.players[1].farms[colour], farms[colour] - 1, "the chosen colour's farm is removed");
    assert_eq!(d.state.players[1].farms[default], farms[default], "the default colour is untouched");
    assert_eq!(d.state.owner(district("Austfirdir")), None, "the District of value 1 loses its stead");
    assert_eq!(d.state.phase, Phase::Over, "the last one left with a farm in Iceland wins");
}

#[test]
fn by_default_the_rules_raze_for_the_winner_and_the_game_does_not_wait() {
    let found = (0..200).map(feud_at_austfirdir).find(|d| d.state.players[1].out);
    let d = found.expect("some seed razes seat 1's last District");
    assert!(d.state.farm_calls.is_empty(), "no farm call without the standing choice");
    assert!(Thingvellir::pending(&d.state).is_empty(), "nobody is asked: the game is over");
}

#[test]
fn to_capture_a_district_remove_the_opposing_gothis_stead_token_and_one_farm_of_your_choosing() {
    let mut d = feast_round();
    d.act(2, &Command::Choices { choices: Choices { farm: true, pool: false } }).unwrap();
    d.act(5, &Command::Pass).unwrap();
    pass_until(&mut d, 2);
    // Given seat 5's Thingmen all away from its Longhall and a second District of its own.
    d.state.players[5].longhall = 0;
    let second = district("Austfirdir");
    d.state.steads[second] = Some((5, 1));
    let target = district("Thingeyjarthing");
    let farms = d.state.players[5].farms;
    d.act(2, &Command::Capture { bondi: 0, weapon: None, district: target, pay: false }).unwrap();
    assert_eq!(d.state.owner(target), Some(2), "the Bondi's Worth is at least the empty Longhall");
    assert_eq!(ask_of(&d.state, 2), Some(Ask::Farm), "the capturer chooses the farm");
    assert_eq!(d.state.players[5].farms, farms, "no farm is removed before the choice");
    let default = crate::actions::default_farm(&d.state, 5).expect("a farm");
    let colour = (0..4).find(|c| farms[*c] > 0 && *c != default).expect("a second colour of farms");
    let legal = Thingvellir::legal(&d.state, 2);
    assert!(legal.contains(&Command::RemoveFarm { colour }), "{legal:?}");
    d.act(2, &Command::RemoveFarm { colour }).unwrap();
    assert_eq!(d.state.players[5].farms[colour], farms[colour] - 1, "the farm of the capturer's choosing");
    assert_eq!(d.state.players[5].farms[default], farms[default]);
    assert!(d.state.farm_calls.is_empty());
}

/// Two gothar; seat 0 proposes Foster (strength 2), both pass, seat 0 draws 2.
fn foster_draw(seed: u64, choices: Choices) -> Driver {
    let opts = Options { sealed_feuds: false, advanced_outlawry: false, lawspeaker: Some(0), ..Options::default() };
    let mut d = Driver::new(&opts, 2, seed).expect("setup");
    d.act(0, &Command::Choices { choices }).unwrap();
    d.act(0, &Command::Propose { law: KIN }).unwrap();
    all_support(&mut d);
    // Everyone asked in the fostering round passes (a seat with nothing to do is not asked).
    while let Some(step) = d.state.current.clone() {
        d.act(step.seat, &Command::Pass).unwrap();
    }
    d
}

#[test]
fn if_there_is_already_a_persona_in_a_space_the_drawing_player_may_choose_to_replace_the_old_one_with_the_new_one() {
    let ask = Choices { farm: false, pool: true };
    let mut d = (0..400)
        .map(|seed| foster_draw(seed, ask))
        .find(|d| ask_of(&d.state, 0) == Some(Ask::Choose(Choosing::Replace)))
        .expect("some seed draws a persona whose pool space is taken");
    let drawn = d.state.players[0].hand.clone();
    let new = drawn[0];
    let colour = data().cards[new as usize].colour;
    let old = d.state.pool[colour].expect("the space is taken");
    let view = crate::view::view(&d.state, runestone_engine::Viewer::Seat(1));
    assert!(view.players[0].hand.is_none(), "the drawn personae show only to the drawer");
    let wrong = d.act(0, &Command::Replace { personae: vec![old] }).unwrap_err();
    assert!(wrong.message.contains("not among the personae you drew"), "{wrong}");
    d.act(0, &Command::Replace { personae: vec![new] }).unwrap();
    assert_eq!(d.state.pool[colour], Some(new), "the new persona takes the space");
    assert!(d.state.doom.contains(&old), "the old one goes to its Doom");
    assert!(d.state.players[0].hand.is_empty() && d.state.choosing.is_none());
}

#[test]
fn by_default_the_old_persona_stays_in_the_pool_and_the_game_does_not_wait() {
    let ask = Choices { farm: false, pool: true };
    let seed = (0..400)
        .find(|seed| ask_of(&foster_draw(*seed, ask).state, 0) == Some(Ask::Choose(Choosing::Replace)))
        .expect("some seed draws a persona whose pool space is taken");
    let d = foster_draw(seed, Choices::default());
    assert_ne!(ask_of(&d.state, 0), Some(Ask::Choose(Choosing::Replace)), "not asked");
    let before = foster_draw(seed, ask);
    let new = before.state.players[0].hand[0];
    assert!(d.state.doom.contains(&new), "the newly drawn persona goes to its Doom");
    assert_eq!(d.state.pool, before.state.pool, "the pool keeps its personae");
}

#[test]
fn with_district_goods_a_gothi_without_a_bondi_of_the_colour_has_districts_produce_goods_instead() {
    let with = Options { lawspeaker: Some(0), district_goods: true, ..Options::default() };
    let mut d = Driver::new(&with, 2, 7).expect("setup");
    let mut base = game(2, 0, false);
    for g in [&mut d, &mut base] {
        g.act(0, &Command::Propose { law: SEA }).unwrap(); // Raid, strength 2: nobody has Bondi yet
        all_support(g);
        g.act(0, &Command::SailOut { thingmen: 2 }).unwrap();
        g.act(1, &Command::SailOut { thingmen: 2 }).unwrap();
    }
    // Base game: Districts produce nothing (the Home Stead Bondi may act; passing here).
    to_next_council(&mut base);
    assert!(base.state.players.iter().all(|p| p.wealth.is_empty()), "no Goods without the option");
    // With the option: no Bondi of the colour, so each District produces one Good instead.
    to_next_council(&mut d);
    for seat in 0..2 {
        let p = &d.state.players[seat];
        assert_eq!(p.wealth.len(), d.state.districts_of(seat as Seat).len(), "one Good per District");
    }
}

#[test]
fn with_arson_a_feast_may_burn_a_rivals_district_once_a_round_and_the_burner_is_outlawed() {
    let mut d = feast_round_with(Options { lawspeaker: Some(0), arson: true, ..Options::default() });
    d.act(5, &Command::Pass).unwrap();
    pass_until(&mut d, 2);
    let target = district("Thingeyjarthing");
    let before = d.state.steads[target].expect("seat 5's home").1;
    let farms: u8 = d.state.players[5].farms.iter().sum();
    let far = d.act(2, &Command::Burn { bondi: 0, district: district("Borgarfjordur") }).unwrap_err();
    assert!(far.message.contains("no Thingman on Borgarfjordur"), "{far}");
    let bondi = d.state.players[2].oaths[0];
    // The burning itself, on a copy of the position (play moves on to winter at once).
    let mut s = d.state.clone();
    crate::actions::burn(&mut s, 2, 0, target).unwrap();
    assert_eq!(s.burned, vec![target], "an Arson token on the District");
    assert_eq!(s.steads[target].map(|v| v.1), if before > 1 { Some(before - 1) } else { None });
    assert_eq!(s.players[5].farms.iter().sum::<u8>(), farms - 1, "a farm burned");
    assert!(s.players[2].outlawed, "the burner is outlawed");
    assert!(s.doom.contains(&bondi), "the Bondi is discarded");
    s.steads[target] = Some((5, 2));
    let again = crate::actions::burn(&mut s, 2, 0, target).unwrap_err();
    assert!(again.contains("already burned this round"), "{again}");
    // In play, by the command; the Arson tokens come back in winter.
    d.act(2, &Command::Burn { bondi: 0, district: target }).unwrap();
    to_next_council(&mut d);
    assert!(d.state.burned.is_empty(), "the Arson tokens come back in winter");
    let base = feast_round();
    let mut probe = base.state.clone();
    let err = crate::actions::burn(&mut probe, 5, 0, district("Skagafjordur")).unwrap_err();
    assert!(err.contains("without the Arson option"), "{err}");
}
