//! Rules version 3: where versions 1 and 2 read the rulebook otherwise,
//! version 3 plays its words. Each test plays version 3, then the same
//! play by the older version as it was (old games replay unchanged).

use runestone_engine::{Game, Seat};

use super::rules::{all_support, edge, pass_until, to_next_council};
use super::Driver;
use crate::data::{data, Action, CardId};
use crate::program::Answers;
use crate::state::{BandMove, Command, Gift, MurderTarget, Phase};
use crate::{Options, Thingvellir, RULES_VERSION};

const LAND: usize = 0;
const SEA: usize = 1;
const BLOOD: usize = 3;

/// Six gothar (or `seats`) by rules version `v`, every decision by hand.
fn by(v: u32, seats: u8, lawspeaker: Seat) -> Driver {
    let options = Options { lawspeaker: Some(lawspeaker), rules_version: Some(v), ..Options::default() };
    let mut d = Driver::new(&options, seats, 7).expect("setup");
    if v >= 2 {
        for seat in 0..seats {
            d.act(seat, &Command::Answers { answers: Answers { by_hand: true, ..Answers::default() } }).unwrap();
        }
    }
    assert_eq!(d.state.phase, Phase::Propose);
    d
}

/// Everyone resolves a Ride at strength 6, clockwise from `lawspeaker`.
fn ride_round(v: u32, lawspeaker: Seat) -> Driver {
    let mut d = by(v, 6, lawspeaker);
    d.act(lawspeaker, &Command::Propose { law: BLOOD }).unwrap();
    all_support(&mut d);
    d
}

#[test]
fn new_games_play_version_4_and_a_game_of_an_older_version_keeps_its_rules() {
    assert_eq!(RULES_VERSION, 4);
    assert_eq!(Thingvellir::rules_version_of(&Options::default()), 4);
    let d = Driver::new(&Options { rules_version: Some(4), ..Options::default() }, 2, 1).unwrap();
    assert_eq!(d.state.version, 4);
    let d = Driver::new(&Options { rules_version: Some(3), ..Options::default() }, 2, 1).unwrap();
    assert_eq!(d.state.version, 3, "a version 3 game plays version 3");
    let d = Driver::new(&Options { rules_version: Some(2), ..Options::default() }, 2, 1).unwrap();
    assert_eq!(d.state.version, 2, "a version 2 game plays version 2");
    let mut rng = runestone_engine::GameRng::new(runestone_engine::Seed([1; 32]), 1);
    let err = Thingvellir::setup(&Options::default(), 2, 5, &mut rng).unwrap_err();
    assert!(err.message.contains("rules versions 1 to 4"), "{err}");
}

#[test]
fn if_you_place_thingmen_on_an_edge_with_an_opposing_gothis_thingmen_they_initiate_a_feud_one_for_the_ride() {
    // Seat 3 (Rangarthing) sets forth one Thingman onto the edge to
    // Thingeyjarthing; seat 5 (Thingeyjarthing) sets forth three onto it.
    let edge_rt = edge("Rangarthing", "Thingeyjarthing");
    for v in [3, 2, 1] {
        let mut d = ride_round(v, 3);
        d.act(3, &Command::Ride { set_forth: vec![edge_rt], moves: vec![] }).unwrap();
        pass_until(&mut d, 5);
        d.act(5, &Command::Ride { set_forth: vec![edge_rt; 3], moves: vec![] }).unwrap();
        let f = d.state.feud.clone().expect("the feud is automatic");
        assert_eq!((f.sides, f.men), ([5, 3], [3, 1]), "version {v}: all three fight");
        if v >= 3 {
            assert!(d.state.feuds.is_empty(), "version 3: one feud on the edge for the whole Ride");
        } else {
            assert_eq!(d.state.feuds.len(), 2, "version {v}: a feud called for each Thingman set forth");
        }
    }
}

#[test]
fn for_each_point_of_strength_you_may_move_1_band_of_thingmen_once() {
    let from = edge("Eyjafjordur", "Thingeyjarthing");
    let on = edge("Skagafjordur", "Eyjafjordur");
    let again = BandMove { from: on, count: 2, path: vec![edge("Hunathing", "Skagafjordur")] };
    for v in [3, 2] {
        let mut d = ride_round(v, 3);
        pass_until(&mut d, 5);
        let ride = Command::Ride {
            set_forth: vec![from; 2],
            moves: vec![BandMove { from, count: 2, path: vec![on] }, again.clone()],
        };
        if v >= 3 {
            let err = d.act(5, &ride).unwrap_err();
            assert!(err.message.contains("a band moves once"), "{err}");
            // Two bands of the edge's Thingmen may each move once.
            let split = Command::Ride {
                set_forth: vec![from; 2],
                moves: vec![
                    BandMove { from, count: 1, path: vec![on] },
                    BandMove { from, count: 1, path: vec![edge("Rangarthing", "Thingeyjarthing")] },
                ],
            };
            d.act(5, &split).unwrap();
        } else {
            d.act(5, &ride).unwrap();
            assert_eq!(d.state.edges[again.path[0]][5], 2, "version {v}: the band moved twice");
        }
    }
}

/// Swap the cards of the orlog into `seat`'s Wealth so that it holds Goods
/// of these (colour, Worth) in order (set directly: a raid's draw is the
/// seed's, and the test needs a mismatched set).
fn wealth_of(d: &mut Driver, seat: Seat, goods: &[(usize, u8)]) {
    let cards = &data().cards;
    let mut wealth: Vec<CardId> = Vec::new();
    for &(colour, worth) in goods {
        let i = d
            .state
            .deck
            .iter()
            .position(|c| cards[*c as usize].colour == colour && cards[*c as usize].worth == worth)
            .expect("such a card in the orlog");
        wealth.push(d.state.deck.remove(i));
    }
    let old = std::mem::replace(&mut d.state.players[seat as usize].wealth, wealth);
    d.state.deck.extend(old);
}

/// A Feast at strength 6: seat 2 has a Thingman on seat 5's Districts
/// (and, with `second`, seat 3 one too); seats 2 and 5 hold a Bondi; seat 5
/// is asked to resolve the Feast.
fn feast_round(v: u32, second: bool) -> Driver {
    let mut d = by(v, 6, 0);
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
    let h = d.state.players[5].hand.clone();
    let best = *h.iter().max_by_key(|c| data().cards[**c as usize].worth).expect("drawn");
    d.act(5, &Command::Swear { add: Some(best), swaps: vec![] }).unwrap();
    to_next_council(&mut d);
    d.act(3, &Command::Propose { law: BLOOD }).unwrap();
    all_support(&mut d);
    if second {
        d.act(3, &Command::Ride { set_forth: vec![edge("Rangarthing", "Thingeyjarthing")], moves: vec![] }).unwrap();
    }
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
    assert_eq!(d.state.current.as_ref().unwrap().strength, 6);
    d
}

#[test]
fn a_worth_1_gift_goes_with_a_worth_2_without_counting_only_if_of_matching_colour() {
    for v in [3, 2] {
        let mut d = feast_round(v, false);
        // A "set" of Worth 3, 2 and 1 in three colours, and a single Good of Worth 3.
        wealth_of(&mut d, 5, &[(0, 3), (1, 2), (2, 1), (3, 3)]);
        let fame = d.state.players[5].wordfame;
        let gifts = vec![Gift { to: 2, goods: vec![0, 1, 2] }, Gift { to: 2, goods: vec![3] }];
        d.act(5, &Command::Give { gifts }).unwrap();
        let given = 4 - d.state.players[5].wealth.len();
        if v >= 3 {
            // Not a set: each Good counts its Worth (3 + 2 + 1 = 6, the
            // strength); the single Worth 3 no longer fits and stays.
            assert_eq!(given, 3, "version 3");
            assert_eq!(d.state.players[5].wordfame, fame + 3);
        } else {
            assert_eq!(given, 4, "version {v}: the mismatched set travelled free");
            assert_eq!(d.state.players[5].wordfame, fame + 4);
        }
    }
    // A matching set still travels free and earns 5.
    let mut d = feast_round(3, false);
    wealth_of(&mut d, 5, &[(0, 3), (0, 2), (0, 1), (3, 3)]);
    let fame = d.state.players[5].wordfame;
    let gifts = vec![Gift { to: 2, goods: vec![0, 1, 2] }, Gift { to: 2, goods: vec![3] }];
    d.act(5, &Command::Give { gifts }).unwrap();
    assert!(d.state.players[5].wealth.is_empty());
    assert_eq!(d.state.players[5].wordfame, fame + 5 + 1);
}

#[test]
fn you_may_continue_discarding_bondi_until_you_have_murdered_as_many_thingmen_as_you_like() {
    let on_5 = edge("Eyjafjordur", "Thingeyjarthing");
    let rt = edge("Rangarthing", "Thingeyjarthing");
    for v in [3, 2] {
        let mut d = feast_round(v, true);
        assert_eq!((d.state.edges[on_5][2], d.state.edges[rt][3]), (1, 1));
        let bondi = d.state.players[5].oaths[0];
        let worth = data().cards[bondi as usize].worth;
        assert!(worth >= 2, "the Bondi sworn is of Worth {worth}");
        let both =
            Command::Murder { bondi: vec![0], edge: on_5, victim: 2, also: vec![MurderTarget { edge: rt, victim: 3 }] };
        if v >= 3 {
            d.act(5, &both).unwrap();
            assert_eq!(
                (d.state.players[2].slain, d.state.players[3].slain),
                (1, 1),
                "two gothar's Thingmen on two edges"
            );
            assert!(d.state.players[5].outlawed);
            assert_eq!(d.state.murders, vec![(5, 2), (5, 3)]);
        } else {
            let err = d.act(5, &both).unwrap_err();
            assert!(err.message.contains("one gothi on one edge"), "{err}");
        }
    }
}

/// Seats 3 and 5 border each other (Rangarthing–Thingeyjarthing) and each
/// leads the other in one colour: each gains 1 Wordfame a winter.
fn winter_at_21(v: u32) -> Driver {
    let mut d = by(v, 6, 0);
    // Set directly: 21 Wordfame takes many rounds to reach.
    d.state.players[3].wordfame = 21;
    d.state.players[5].wordfame = 21;
    let l = d.state.lawspeaker;
    d.act(l, &Command::Propose { law: LAND }).unwrap();
    all_support(&mut d);
    while d.state.phase != Phase::Over {
        let s = d.waiting()[0];
        let c = crate::bot::passive(&d.state, s).expect("a passive answer");
        d.act(s, &c).unwrap();
    }
    d
}

#[test]
fn starting_with_the_lawspeaker_and_proceeding_clockwise_the_first_to_22_wordfame_wins() {
    // Clockwise from Lawspeaker 0, seat 3 scores before seat 5.
    let d = winter_at_21(3);
    assert_eq!((d.state.players[3].wordfame, d.state.players[5].wordfame), (22, 21));
    assert_eq!(Thingvellir::outcome(&d.state).unwrap().winners, vec![3]);
    let d = winter_at_21(2);
    assert_eq!((d.state.players[3].wordfame, d.state.players[5].wordfame), (22, 22), "version 2: both scored");
}

#[test]
fn razing_a_district_of_value_3_with_no_half_token_in_supply_razes_the_farm_alone() {
    for v in [3, 2] {
        let mut d = by(v, 2, 0);
        let home = d.state.districts_of(1)[0];
        // Set directly: a District of value 3 and every 1/2 token on the board.
        d.state.steads[home] = Some((1, 3));
        d.state.players[1].small_tokens = 0;
        d.state.players[1].large_tokens = 3;
        d.state.players[1].farms = [2, 2, 0, 0];
        crate::actions::raze(&mut d.state, home, Some(1));
        let p = &d.state.players[1];
        assert_eq!(p.farms, [2, 1, 0, 0], "version {v}: the farm is razed");
        if v >= 3 {
            assert_eq!(d.state.steads[home], Some((1, 3)), "the 3/4 token stays");
            assert_eq!((p.small_tokens, p.large_tokens), (0, 3), "no token from nothing");
        } else {
            assert_eq!(d.state.steads[home], Some((1, 2)));
            assert_eq!((p.small_tokens, p.large_tokens), (0, 4), "version {v}: a 1/2 token made from nothing");
        }
    }
}

#[test]
fn a_gifted_goods_colour_is_told_to_nobody_only_its_worth() {
    let mut d = feast_round(3, false);
    wealth_of(&mut d, 5, &[(0, 2), (0, 1)]);
    let give = Command::Give { gifts: vec![Gift { to: 2, goods: vec![0, 1] }] };
    let colours = &data().colours;
    let label = Thingvellir::label(&d.state, 5, &give);
    assert!(label.contains("Worth 2") && colours.iter().all(|c| !label.contains(&format!("{c} Good"))), "{label}");
    let names: Vec<String> = (0..6).map(|i| format!("P{i}")).collect();
    let told = Thingvellir::describe(&d.state, &crate::state::Event::Acted { seat: 5, command: give.clone() }, &names);
    assert!(colours.iter().all(|c| !told.contains(&format!("{c} Good"))), "{told}");
    // The commands offered to the giver name no colour of its Goods either.
    for c in Thingvellir::legal(&d.state, 5) {
        let l = Thingvellir::label(&d.state, 5, &c);
        assert!(!matches!(c, Command::Give { .. }) || colours.iter().all(|k| !l.contains(&format!("{k} Good"))), "{l}");
    }
    let commit = Thingvellir::label(&d.state, 5, &Command::Commit { good: 0 });
    assert!(colours.iter().all(|k| !commit.contains(&format!("{k} Good"))), "not before it is committed: {commit}");
    // A program step of a version 2 game keeps the words its log was written with.
    let mut d = feast_round(2, false);
    wealth_of(&mut d, 5, &[(0, 2), (0, 1)]);
    assert!(crate::view::told(&d.state, 5, &give).contains(&format!("{} Good", colours[0])));
    assert!(!crate::view::told(&feast_round(3, false).state, 5, &give).contains(&format!("{} Good", colours[0])));
}
