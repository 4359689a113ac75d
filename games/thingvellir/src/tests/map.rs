//! Rules version 4: Thingvellir on the map, no Stead token at setup, and a
//! map of Iceland big enough for the box (`data/iceland-v4.toml`). Each
//! test plays version 4, then the same by version 3 as it was.

use runestone_engine::{Game, Seat};

use super::rules::{all_support, pass_until, to_next_council};
use super::Driver;
use crate::data::{data, Map};
use crate::program::Answers;
use crate::state::{Command, Phase, Vote};
use crate::{Options, Thingvellir};

const LAND: usize = 0;
const SEA: usize = 1;
const BLOOD: usize = 3;

/// `seats` gothar by rules version `v`, every decision by hand.
fn by(v: u32, seats: u8, lawspeaker: Seat) -> Driver {
    let options = Options { lawspeaker: Some(lawspeaker), rules_version: Some(v), ..Options::default() };
    let mut d = Driver::new(&options, seats, 11).expect("setup");
    for seat in 0..seats {
        d.act(seat, &Command::Answers { answers: Answers { by_hand: true, ..Answers::default() } }).unwrap();
    }
    assert_eq!(d.state.phase, Phase::Propose);
    d
}

/// The edges on which `seat` has Thingmen.
fn manned(d: &Driver, seat: Seat) -> Vec<usize> {
    (0..d.state.edges.len()).filter(|e| d.state.edges[*e][seat as usize] > 0).collect()
}

/// The District across a side of Thingvellir.
fn across(map: &Map, side: usize) -> usize {
    let (a, b) = map.edges[side];
    if Some(a) == map.thingvellir {
        b
    } else {
        a
    }
}

/// Kilometres between two places given by latitude and longitude (near enough at 65° north).
fn km(p: (f64, f64), q: (f64, f64)) -> f64 {
    let dx = (p.1 - q.1) * 111.0 * 65f64.to_radians().cos();
    let dy = (p.0 - q.0) * 111.0;
    dx.hypot(dy)
}

#[test]
fn each_player_places_one_thingmen_on_a_side_of_thingvellir() {
    for v in [4, 3] {
        let d = by(v, 6, 0);
        let map = d.state.map();
        let mut sides = Vec::new();
        for seat in 0..6u8 {
            let p = &d.state.players[seat as usize];
            if v >= 4 {
                let on = manned(&d, seat);
                assert_eq!(on.len(), 1, "one Thingman on the board");
                assert!(map.is_side(on[0]), "on a side of Thingvellir");
                assert_eq!((p.longhall, d.state.at_thingvellir(seat)), (11, 1), "12 Thingmen");
                let home = map.homes.iter().find(|h| h.stead == p.home).expect("its Home Stead card is on the map");
                assert_eq!(home.side, on[0], "the side facing its Home Stead card's farm");
                sides.push(on[0]);
            } else {
                assert!(manned(&d, seat).is_empty(), "version {v}: Thingvellir is no place on the map");
                assert_eq!((p.longhall, p.thingvellir), (11, 1), "version {v}: a count of 1");
            }
        }
        sides.sort_unstable();
        sides.dedup();
        assert_eq!(sides.len(), if v >= 4 { 6 } else { 0 }, "a side for each");
    }
}

#[test]
fn put_the_farm_tokens_off_to_the_side_of_the_board_no_district_is_settled_at_setup() {
    for v in [4, 3] {
        let d = by(v, 4, 0);
        for seat in 0..4u8 {
            let p = &d.state.players[seat as usize];
            let colours = &data().home_steads[p.home].colours;
            assert_eq!(p.farms.iter().sum::<u8>() as usize, colours.len(), "once per colour on the card");
            if v >= 4 {
                assert!(d.state.districts_of(seat).is_empty(), "no Stead token is placed at setup");
                assert_eq!((p.small_tokens, p.large_tokens), (8, 4), "8 tokens of 1/2 and 4 of 3/4 in supply");
                assert!(!p.out, "a gothi who never held a District is still in the game");
            } else {
                assert_eq!(d.state.districts_of(seat).len(), 1, "version {v}: a home District at value 1");
                assert_eq!(p.small_tokens, 7);
            }
        }
    }
}

#[test]
fn to_subsume_a_new_district_you_must_have_a_thingman_on_it_so_the_first_is_beside_thingvellir() {
    let mut d = by(4, 3, 0);
    let map = d.state.map();
    let side = manned(&d, 0)[0];
    let first = across(map, side);
    d.act(0, &Command::Propose { law: LAND }).unwrap();
    all_support(&mut d);
    let far = (0..map.districts.len()).find(|x| map.edges_of(*x).all(|e| d.state.edges[e][0] == 0)).unwrap();
    let err = d.act(0, &Command::Subsume { district: far, colour: 0 }).unwrap_err();
    assert!(err.message.contains("neither next to a District you control nor held"), "{err}");
    let thingvellir = map.thingvellir.unwrap();
    let err = d.act(0, &Command::Subsume { district: thingvellir, colour: 0 }).unwrap_err();
    assert!(err.message.contains("no Stead token stands on Thingvellir"), "{err}");
    d.act(0, &Command::Subsume { district: first, colour: 0 }).unwrap();
    assert_eq!(d.state.steads[first], Some((0, 1)), "the District across its side of Thingvellir");
    // "Thingmen are considered to occupy both of the Districts that share
    // the edge on which they are placed" (69): set forth onto the side of
    // Thingvellir from the District beside it, and sue with them.
    to_next_council(&mut d);
    let speaker = d.state.lawspeaker;
    d.act(speaker, &Command::Propose { law: BLOOD }).unwrap();
    all_support(&mut d);
    pass_until(&mut d, 0);
    d.act(0, &Command::Ride { set_forth: vec![side; 2], moves: vec![] }).unwrap();
    assert_eq!(d.state.at_thingvellir(0), 3, "three Thingmen on Thingvellir");
}

#[test]
fn a_lawsuit_gets_a_bonus_equal_to_the_number_of_thingmen_from_all_players_who_selected_it() {
    for v in [4, 3] {
        let mut d = by(v, 3, 0);
        if v >= 4 {
            // Seat 1 has ridden two more Thingmen onto its side of Thingvellir.
            let side = manned(&d, 1)[0];
            d.state.edges[side][1] += 2;
            d.state.players[1].longhall -= 2;
        }
        d.act(0, &Command::Propose { law: LAND }).unwrap();
        d.act(1, &Command::Vote { vote: Vote::Sue { law: SEA, level: 0 } }).unwrap();
        all_support(&mut d);
        let suit = d.state.queue.iter().chain(d.state.current.iter()).find(|s| s.seat == 1).unwrap().clone();
        if v >= 4 {
            assert_eq!(suit.strength, 3, "three Thingmen sued");
            // "Thingmen who sued are not available to resolve the action
            // from that lawsuit" (36): they stand on the Law, off the board.
            assert_eq!(d.state.at_thingvellir(1), 0);
            assert_eq!(d.state.players[1].suing.iter().map(|x| x.1).sum::<u8>(), 3);
            let side = d.state.players[1].suing[0].0;
            // "Once all actions are complete, return Thingmen to their place
            // around Thingvellir" (37).
            to_next_council(&mut d);
            assert_eq!(d.state.edges[side][1], 3, "back on their side");
            assert!(d.state.players[1].suing.is_empty());
        } else {
            assert_eq!(suit.strength, 1, "version {v}: the one Thingman fixed on Thingvellir");
        }
    }
}

#[test]
fn a_gothi_without_thingmen_on_thingvellir_cannot_sue() {
    let mut d = by(4, 3, 0);
    let side = manned(&d, 1)[0];
    d.state.edges[side][1] = 0;
    d.state.players[1].longhall += 1;
    d.act(0, &Command::Propose { law: LAND }).unwrap();
    let err = d.act(1, &Command::Vote { vote: Vote::Sue { law: SEA, level: 0 } }).unwrap_err();
    assert!(err.message.contains("no Thingmen on a side of Thingvellir"), "{err}");
}

#[test]
fn last_one_left_with_a_farm_in_iceland_counts_only_gothar_who_have_held_one() {
    let mut d = by(4, 3, 0);
    // A round with no Settle: nobody holds a District, nobody is out.
    d.act(0, &Command::Propose { law: SEA }).unwrap();
    all_support(&mut d);
    to_next_council(&mut d);
    assert_eq!(d.state.round, 2);
    assert_eq!(d.state.alive().count(), 3, "nobody is out for never having settled");
    // Seat 2 settles, then loses its only District: it is out.
    let x = across(d.state.map(), manned(&d, 2)[0]);
    let speaker = d.state.lawspeaker;
    d.act(speaker, &Command::Propose { law: LAND }).unwrap();
    all_support(&mut d);
    pass_until(&mut d, 2);
    d.act(2, &Command::Subsume { district: x, colour: 1 }).unwrap();
    assert!(d.state.players[2].settled);
    d.state.steads[x] = None;
    let next = d.waiting()[0];
    d.act(next, &crate::bot::passive(&d.state, next).unwrap()).unwrap();
    assert!(d.state.players[2].out, "no District left after holding one");
}

#[test]
fn the_map_holds_a_district_for_every_stead_token_at_six_players() {
    let map = &data().map;
    let settleable = (0..map.districts.len()).filter(|x| map.settleable(*x)).count();
    // "72 Stead tokens (12 for each faction ...)" (5).
    assert!(settleable >= 72, "{settleable} Districts for 72 Stead tokens");
    let sides = map.edges_of(map.thingvellir.unwrap()).count();
    assert!(sides >= 6, "a side of Thingvellir for each of six players, {sides}");
    assert_eq!(data().first_map.districts.len(), 18, "versions 1 to 3 keep their map");
}

#[test]
fn each_home_stead_card_names_the_district_its_farm_stands_in_and_its_side_faces_it() {
    let d = data();
    let map = &d.map;
    for h in &map.homes {
        let nearest = (0..map.districts.len())
            .filter(|x| map.settleable(*x))
            .min_by(|a, b| km(map.at[*a], h.farm).total_cmp(&km(map.at[*b], h.farm)))
            .unwrap();
        assert_eq!(
            map.districts[nearest], map.districts[h.district],
            "{}'s farm stands in {}",
            d.home_steads[h.stead].name, map.districts[h.district]
        );
    }
    // Of all the ways to give each card a side of its own, the map's is one
    // whose sides' bearings from Thingvellir differ least from the farms'.
    let t = map.at[map.thingvellir.unwrap()];
    let bearing = |p: (f64, f64)| ((p.1 - t.1) * 65f64.to_radians().cos()).atan2(p.0 - t.0).to_degrees();
    let off = |a: f64, b: f64| {
        let x = (a - b).rem_euclid(360.0);
        x.min(360.0 - x)
    };
    let sides: Vec<usize> = map.homes.iter().map(|h| h.side).collect();
    let cost = |order: &[usize]| -> f64 {
        map.homes.iter().zip(order).map(|(h, s)| off(bearing(h.farm), bearing(map.at[across(map, *s)]))).sum()
    };
    let mine = cost(&sides);
    let mut best = f64::MAX;
    let mut perm = sides.clone();
    permutations(&mut perm, 0, &mut |p| best = best.min(cost(p)));
    assert!(mine <= best + 1e-9, "the sides face the farms: {mine:.1} degrees off in all, at best {best:.1}");
}

fn permutations(v: &mut Vec<usize>, k: usize, f: &mut dyn FnMut(&[usize])) {
    if k == v.len() {
        f(v);
        return;
    }
    for i in k..v.len() {
        v.swap(k, i);
        permutations(v, k + 1, f);
        v.swap(k, i);
    }
}

#[test]
fn a_broken_map_is_refused_with_a_message_naming_the_fault() {
    let parse = |map_v4: &str| {
        crate::data::Data::parse(
            include_str!("../../data/laws.toml"),
            include_str!("../../data/orlog.toml"),
            include_str!("../../data/iceland.toml"),
            map_v4,
            include_str!("../../data/sheep_hunt.toml"),
            include_str!("../../data/home_steads.toml"),
        )
    };
    let text = include_str!("../../data/iceland-v4.toml");
    let err = parse(&text.replace("side = \"Kjos\"", "side = \"Utnes\"")).unwrap_err();
    assert!(err.contains("Utnes is not on a side of Thingvellir"), "{err}");
    let err = parse(&text.replace("side = \"Kjos\"", "side = \"Laugardalur\"")).unwrap_err();
    assert!(err.contains("two Home Stead cards"), "{err}");
    let err = parse(&text.replace("at = [63.86, -22.55]", "at = [48.86, 2.35]")).unwrap_err();
    assert!(err.contains("Reykjanes lies at 48.86, 2.35, outside Iceland"), "{err}");
}

#[test]
fn the_board_of_version_4_draws_every_district_at_its_place_and_thingvellir() {
    let d = by(4, 6, 0);
    let names: Vec<String> = (0..6).map(|i| format!("P{i}")).collect();
    let v: crate::view::View = serde_json::from_value(Thingvellir::view(&d.state, runestone_engine::Viewer::Public))
        .expect("the view reads back");
    let svg = <Thingvellir as runestone_engine::present::Present>::svg(&v, &names).expect("the map");
    let map = d.state.map();
    for i in 0..map.districts.len() {
        assert_eq!(svg.matches(&format!("data-area=\"district-{i}\"")).count(), 1, "{} drawn once", map.districts[i]);
    }
    assert!(svg.contains("Thingvellir: the Althing"), "Thingvellir drawn as the plain");
    assert_eq!(svg.matches("class=\"home\"").count(), 6, "each Home Stead's farm marked");
    let text = <Thingvellir as runestone_engine::present::Present>::text(&v, &names).expect("the tables");
    assert!(text.contains("Fljotshlid"), "the tables name the Districts");
}
