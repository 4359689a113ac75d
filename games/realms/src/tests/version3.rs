//! The rules of version 3, each named after the reference sheet's line it
//! plays as written; each shows version 3, then the same play by version 2
//! as it was. Positions are built only by playing orders through `decide`;
//! where a rule hangs on dice, the step runs on a copy of the played
//! position with the dice the test names.

use super::{all, at, both, li, reports, Driver};
use crate::control::kind_of;
use crate::season::Dice;
use crate::state::{Event, Good, Mode, Move, Orders, Purchase, State, Step, Trade, UnitKind};
use crate::Options;

fn game_v(players: u8, mode: Mode, years: u8, rules: u32) -> Driver {
    Driver::new(&Options { mode, years, rules_version: rules, ..Options::default() }, players, 11).expect("setup")
}

/// The position after ② of a round where `seat` gives `orders` (the others
/// none), played on a copy.
fn after_units(d: &Driver, seat: u8, orders: Orders) -> State {
    let mut s = d.state.clone();
    crate::state::apply(&mut s, &Event::OrdersRevealed { seat, orders });
    crate::moves::units(&mut s, &mut Vec::new());
    s
}

const NEUSTRIA: u8 = 1;
const AQUITAINE: u8 = 10;

#[test]
fn minus_14_for_each_unit_has_a_capacity_of_1_in_move_special() {
    // Given the Danes holding the 7 PP they start with,
    let special = |rules: u32| {
        let mut d = game_v(2, Mode::Fast, 1, rules);
        assert_eq!(d.state.realms[0].pp, 7);
        // when they order a special move of one Light Infantry and pay for it,
        let order = li(at(5, 10), at(5, 11), 1);
        let ev = d.round(0, Orders { special: vec![order], pay_special: true, ..Orders::default() });
        (d, reports(&ev, Step::MoveSpecialHerds))
    };
    // then they cannot pay 14 PP: the unit stays and the prestige is kept.
    let (d, rep) = special(3);
    assert!(rep.contains("Danes holds 7 PP and cannot pay 14 PP for special moves"), "{rep}");
    assert!(rep.contains("Light Infantry have no capacity in MOVE-Special"), "{rep}");
    assert_eq!(kind_of(&d.state, at(5, 11), 0, UnitKind::LightInfantry), 0);
    assert_eq!(d.state.realms[0].pp, 7);
    // By rules version 2 the move was made and the prestige fell to 0.
    let (d, rep) = special(2);
    assert!(rep.contains("Danes pays 14 PP for special moves"), "{rep}");
    assert_eq!(kind_of(&d.state, at(5, 11), 0, UnitKind::LightInfantry), 1);
    assert_eq!(d.state.realms[0].pp, 0);
}

#[test]
fn ten_units_and_fleet_4_ships_can_move_as_one_in_the_move_special_for_free() {
    use crate::moves::moves_as_one;
    let m = |unit, count| Move { from: at(11, 6), to: at(11, 7), unit, count };
    // Given Neustria (Franks) ordering special moves from 11-6 to 11-7,
    let d = game_v(2, Mode::Fast, 1, 3);
    // when 6 Light Infantry and 4 Heavy Infantry go together, they are 10
    // units and move as one; 9 do not,
    let ten = [m(UnitKind::LightInfantry, 6), m(UnitKind::HeavyInfantry, 4)];
    assert!(ten.iter().all(|x| moves_as_one(&d.state, NEUSTRIA, &ten, x)));
    let nine = [m(UnitKind::LightInfantry, 6), m(UnitKind::HeavyInfantry, 3)];
    assert!(!moves_as_one(&d.state, NEUSTRIA, &nine, &nine[0]));
    // two Transport Ships and two War Ships are a fleet of 4, three ships are not,
    let fleet = [m(UnitKind::TransportShip, 2), m(UnitKind::WarShip, 2)];
    assert!(fleet.iter().all(|x| moves_as_one(&d.state, NEUSTRIA, &fleet, x)));
    let three = [m(UnitKind::TransportShip, 2), m(UnitKind::WarShip, 1)];
    assert!(!moves_as_one(&d.state, NEUSTRIA, &three, &three[1]));
    // and units going elsewhere are not counted with them.
    let apart = [m(UnitKind::LightInfantry, 6), Move { to: at(10, 6), ..m(UnitKind::HeavyInfantry, 4) }];
    assert!(!moves_as_one(&d.state, NEUSTRIA, &apart, &apart[0]));
    // By rules version 2 only one order of one unit kind counted.
    let old = game_v(2, Mode::Fast, 1, 2);
    assert!(!moves_as_one(&old.state, NEUSTRIA, &ten, &ten[0]));
}

/// Eleven realms: Neustria gathers its five Light Infantry on 12-6, beside
/// Aquitaine's fortified village 12-5 (LF 1) with its two Light Infantry
/// inside, over three rounds; answer the position after ② of the fourth
/// round, when the five march in.
fn neustria_at_the_gates(rules: u32) -> State {
    let mut d = game_v(11, Mode::Fast, 2, rules);
    let (gate, home, east, west) = (at(12, 6), at(11, 6), at(11, 8), at(10, 6));
    let first =
        Orders { moves: vec![li(home, gate, 2), li(west, home, 2), li(east, at(11, 7), 1)], ..Orders::default() };
    d.round(NEUSTRIA, first);
    d.round(NEUSTRIA, Orders { moves: vec![li(home, gate, 2), li(at(11, 7), home, 1)], ..Orders::default() });
    d.round(NEUSTRIA, Orders { moves: vec![li(home, gate, 1)], ..Orders::default() });
    assert_eq!(kind_of(&d.state, gate, NEUSTRIA, UnitKind::LightInfantry), 5);
    assert_eq!(kind_of(&d.state, at(12, 5), AQUITAINE, UnitKind::LightInfantry), 2);
    after_units(&d, NEUSTRIA, Orders { moves: vec![li(gate, at(12, 5), 5)], ..Orders::default() })
}

#[test]
fn the_attacker_must_first_break_into_the_settlement_breaking_through_all_of_the_lfs_shields_in_one_round() {
    let village = at(12, 5);
    // Given Neustria's five Light Infantry marching on Aquitaine's fortified
    // village (5 shields and a blue die for its LF), held by two Light Infantry,
    let state = neustria_at_the_gates(3);
    // and its transport ship at the back, when the attackers roll five
    // swords and the defenders an empty white die each and a shield on the
    // LF's blue die, then swords on every die,
    let dice = [[1, 1, 1, 1, 1, 4, 4, 4, 4].as_slice(), &[1; 40]].concat();
    let mut s = state.clone();
    let mut rep = Vec::new();
    crate::battle::battles(&mut s, &mut Dice::replay(&dice), &mut rep);
    crate::battle::sieges(&mut s, &mut Dice::replay(&[]), &mut rep);
    // then they break into the settlement once, fight the garrison without
    // its fortification's bonuses, and the settlement falls without a second break.
    let rep = rep.join("; ");
    assert!(
        rep.contains("siege of yellow 12-5: Neustria breaks into the settlement (5 swords against 5 shields)"),
        "{rep}"
    );
    assert!(rep.contains("Neustria wins the battle"), "{rep}");
    assert_eq!(rep.matches("siege of").count(), 1, "{rep}");
    assert!(rep.contains("Neustria destroys and loots the village on yellow 12-5"), "{rep}");
    assert!(s.fields[village as usize].settlement.is_none());
    // Four swords do not break in: the battle ends for this round and both stay.
    let dice = [[1, 1, 1, 1, 4, 4, 4, 4, 4].as_slice(), &[1; 40]].concat();
    let mut s = state.clone();
    let mut rep = Vec::new();
    crate::battle::battles(&mut s, &mut Dice::replay(&dice), &mut rep);
    let rep = rep.join("; ");
    assert!(rep.contains("Neustria breaks 4 of the 5 shields of the fortification and fails"), "{rep}");
    assert!(rep.contains("the battle on yellow 12-5 is undecided"), "{rep}");
    assert_eq!(kind_of(&s, village, NEUSTRIA, UnitKind::LightInfantry), 5);
    assert_eq!(kind_of(&s, village, AQUITAINE, UnitKind::LightInfantry), 2);
    // By rules version 2 the garrison kept its 5 shields and blue die in every round and held.
    let mut s = neustria_at_the_gates(2);
    let dice = [[1, 1, 1, 1, 1, 4, 4, 4, 4].as_slice(), &[1; 40]].concat();
    let mut rep = Vec::new();
    crate::battle::battles(&mut s, &mut Dice::replay(&dice), &mut rep);
    let rep = rep.join("; ");
    assert!(!rep.contains("breaks into"), "{rep}");
    assert!(rep.contains("Aquitaine wins the battle"), "{rep}");
    assert!(s.fields[village as usize].settlement.is_some_and(|x| x.owner == AQUITAINE));
}

/// Eleven realms: Aquitaine's garrison steps out of its fortified village
/// 12-5 to 12-6 and its ship sails, the village's grain sold; Neustria
/// encircles the village with one Light Infantry (too few to break in) and
/// keeps its chain home. In autumn Aquitaine sells the meat of its culled
/// herds; in winter it buys `grain` grain into the encircled village.
/// Answer the winter round's events.
fn encircled_winter(rules: u32, grain: u8) -> (Driver, Vec<Event>) {
    let mut d = game_v(11, Mode::Fast, 2, rules);
    let (village, out) = (at(12, 5), at(12, 6));
    let sell = Trade::Sell { field: village, good: Good::Grain, count: 4 };
    let ship = Move { from: village, to: at(12, 4), unit: UnitKind::TransportShip, count: 1 };
    let aquitaine = Orders { moves: vec![li(village, out, 2), ship], trade: vec![sell], ..Orders::default() };
    let neustria = Orders { moves: vec![li(at(11, 6), at(11, 5), 2)], ..Orders::default() };
    both(&mut d, NEUSTRIA, neustria, AQUITAINE, aquitaine);
    d.round(NEUSTRIA, Orders { moves: vec![li(at(11, 5), village, 1)], ..Orders::default() });
    let meat = d.state.realms[AQUITAINE as usize].meat;
    assert!(meat > 0, "the unfed withdrawn herds were culled for meat");
    let sell = Trade::Sell { field: at(13, 6), good: Good::Meat, count: meat };
    d.round(AQUITAINE, Orders { trade: vec![sell], ..Orders::default() });
    assert_eq!(d.state.realms[AQUITAINE as usize].meat, 0);
    assert!(crate::control::encircled(&d.state, village));
    let buy = Trade::Buy { field: village, good: Good::Grain, count: grain };
    let orders = Orders { trade: if grain > 0 { vec![buy] } else { vec![] }, ..Orders::default() };
    let ev = d.round(AQUITAINE, orders);
    (d, ev)
}

#[test]
fn feeding_connection_needed_unfed_and_encircled_settlement_give_up_to_attacker_automatically() {
    let village = at(12, 5);
    // Given Aquitaine's village encircled by Neustria through the winter,
    // when its own store holds 2 grain at the feeding,
    let (d, ev) = encircled_winter(3, 2);
    // then it eats from its own store and stands,
    let feeding = reports(&ev, Step::Feeding);
    assert!(!feeding.contains("surrenders"), "{}", all(&ev));
    assert!(d.state.fields[village as usize].settlement.is_some_and(|x| x.owner == AQUITAINE));
    assert_eq!(d.state.fields[village as usize].grain, 1, "{feeding}");
    // and when its store is empty, it cannot be fed from the realm's other
    // stores (it lost its connection) and gives up to the encircler.
    let (d, ev) = encircled_winter(3, 0);
    let feeding = reports(&ev, Step::Feeding);
    assert!(feeding.contains("the unfed, encircled settlement on yellow 12-5 surrenders to Neustria"), "{}", all(&ev));
    assert!(d.state.fields[village as usize].settlement.is_some_and(|x| x.owner == NEUSTRIA));
    // By rules version 2 its own store could not be used: the realm's
    // other stores fed it, and its other villages went hungry.
    let (d, ev) = encircled_winter(2, 2);
    let feeding = reports(&ev, Step::Feeding);
    assert!(feeding.contains("Aquitaine: the settlement on green 13-6 goes hungry"), "{}", all(&ev));
    assert_eq!(d.state.fields[village as usize].grain, 2, "{feeding}");
}

#[test]
fn salaries_the_unit_without_connection_fc_to_the_cus_must_be_dissolved() {
    // Given the Danes' Light Infantry of 5-12 on 6-12 and one of 5-10 on
    // 6-11, joined to a settlement only through 6-12, and gold enough in the
    // winter for all but five of their salaries (four units at home and the
    // one on 6-12 are dismissed, in that order),
    let winter = |rules: u32| {
        let mut d = game_v(2, Mode::Fast, 1, rules);
        let (a, b) = (at(6, 12), at(6, 11));
        d.round(0, Orders { moves: vec![li(at(5, 12), a, 1), li(at(5, 10), at(5, 11), 1)], ..Orders::default() });
        d.round(0, Orders { moves: vec![li(at(5, 11), b, 1)], ..Orders::default() });
        d.pass();
        let spend = d.state.realms[0].gold as i32 - 4;
        let mut trade = Vec::new();
        let mut left = spend;
        for f in crate::control::settlements(&d.state, 0) {
            let room = (crate::control::grain_cap(&d.state, f) - d.state.fields[f as usize].grain) as i32;
            let n = room.min(left / 2);
            if n > 0 {
                trade.push(Trade::Buy { field: f, good: Good::Grain, count: n as u8 });
                left -= 2 * n;
            }
        }
        if left == 1 {
            trade.push(Trade::Buy { field: at(4, 11), good: Good::Fishes, count: 1 });
            left -= 1;
        }
        assert_eq!(left, 0, "the Danes can spend {spend} gold on grain and fish");
        let ev = d.round(0, Orders { trade, ..Orders::default() });
        (d, ev)
    };
    // when the salaries are paid, then the unit on 6-11, cut off by the
    // dismissals, dissolves too: no unit ends the winter without a connection.
    let (d, ev) = winter(3);
    let rear = reports(&ev, Step::RearTradeSalaries);
    assert!(rear.contains("Danes: 1 units cut off from every settlement dissolve"), "{}", all(&ev));
    assert_eq!(kind_of(&d.state, at(6, 11), 0, UnitKind::LightInfantry), 0, "{rear}");
    for seat in 0..2 {
        let pools = crate::control::pools(&d.state, seat);
        for (f, fi) in d.state.fields.iter().enumerate() {
            assert!(fi.units.iter().all(|u| u.owner != seat || pools[f].is_some()), "a unit stands cut off on {f}");
        }
    }
    // By rules version 2 it stood on, cut off, into the new year.
    let (d, ev) = winter(2);
    assert_eq!(kind_of(&d.state, at(6, 11), 0, UnitKind::LightInfantry), 1, "{}", all(&ev));
    assert!(!crate::control::connected(&d.state, 0)[at(6, 11) as usize]);
}

#[test]
fn place_grain_tokens_from_the_supply_on_each_sown_grain_3_on_yellow_2_on_green_1_on_brown_turquoise() {
    // Given the Danes sowing the yellow 5-10 and the green 5-12 from their store of 10 (FAST: normal weather),
    let sown = |rules: u32| {
        let mut d = game_v(2, Mode::Fast, 1, rules);
        d.round(0, Orders { sow: vec![at(5, 10), at(5, 12)], ..Orders::default() });
        d.pass();
        let crops = (d.state.fields[at(5, 10) as usize].crop, d.state.fields[at(5, 12) as usize].crop);
        let ev = d.pass();
        (crops, reports(&ev, Step::HarvestRecruitment))
    };
    // when the summer comes, then the yield is placed on the sown grain:
    // 1 + 3 on yellow, 1 + 2 on green, and they come home at the harvest.
    let ((yellow, green), harvest) = sown(3);
    assert_eq!((yellow, green), (4, 3));
    assert_eq!(harvest, "Danes harvests 4 grain; Danes harvests 3 grain");
    // By rules version 2 the sown grain was used up: 3 and 2.
    let ((yellow, green), _) = sown(2);
    assert_eq!((yellow, green), (3, 2));
}

#[test]
fn transhumance_no_need_to_feed_herds_in_winter_only_for_the_huns_red_mode() {
    // Given Aquitaine's herds on its yellow village 12-5 in the temperate
    // climate, and a year passing without orders,
    let winter = |rules: u32| {
        let mut d = game_v(11, Mode::Fast, 1, rules);
        let herds = d.state.fields[at(12, 5) as usize].herds.len();
        let mut ev = Vec::new();
        for _ in 0..4 {
            ev = d.pass();
        }
        (herds, reports(&ev, Step::Feeding), d)
    };
    // then, no realm of Vikings 800 AD being the Huns, the herds must be fed
    // at the winter's feeding (or are culled);
    let (_, feeding, d) = winter(3);
    let cap = crate::control::fed_herd_cap(&d.state, AQUITAINE) as usize;
    let left = d.state.fields[at(12, 5) as usize].herds.len();
    assert!(left <= cap, "{left} herds kept, {cap} can be fed: {feeding}");
    assert!(feeding.contains("Aquitaine: an unfed herd of"), "{feeding}");
    // by rules version 2 they lived on the yellow field for free.
    let (before, feeding, d) = winter(2);
    assert!(!feeding.contains("Aquitaine: an unfed herd of"), "{feeding}");
    assert!(d.state.fields[at(12, 5) as usize].herds.len() >= before);
}

#[test]
fn degradation_out_of_location_transport_ships_landing_plus_1() {
    // Given the Danes' transport ship sailed from its dock onto the sea 4-10,
    let sold = |rules: u32| {
        let mut d = game_v(2, Mode::Fast, 1, rules);
        let (dock, sea) = (at(4, 11), at(4, 10));
        let sail = Move { from: dock, to: sea, unit: UnitKind::TransportShip, count: 1 };
        d.round(0, Orders { moves: vec![sail], ..Orders::default() });
        // when they sell it there, out of location,
        let sell = Purchase { field: sea, unit: UnitKind::TransportShip, count: 1 };
        let ev = d.round(0, Orders { sell: vec![sell], ..Orders::default() });
        (d, reports(&ev, Step::RearTradeSalaries))
    };
    // then it is not degraded: a ship degrades only where it lands, and no
    // Light Infantry is left standing at sea.
    let (d, rear) = sold(3);
    assert!(rear.contains("Transport Ships on sea 4-10 are degraded only where they land, on a land field"), "{rear}");
    assert_eq!(kind_of(&d.state, at(4, 10), 0, UnitKind::TransportShip), 1);
    assert_eq!(kind_of(&d.state, at(4, 10), 0, UnitKind::LightInfantry), 0);
    // By rules version 2 it became a Light Infantry at sea.
    let (d, _) = sold(2);
    assert_eq!(kind_of(&d.state, at(4, 10), 0, UnitKind::LightInfantry), 1);
}

#[test]
fn very_low_morale_0_9_pp_remove_1_sword_from_every_1_5_units_also_without_commanders() {
    // Given Neustria (BASIC, without commanders, 7 PP: very low morale)
    // marching two Light Infantry from 11-6 onto 12-6,
    let rolled = |rules: u32| {
        let d = game_v(11, Mode::Basic, 1, rules);
        assert_eq!((d.state.realms[NEUSTRIA as usize].command, d.state.realms[NEUSTRIA as usize].pp), (0, 7));
        let s = after_units(&d, NEUSTRIA, Orders { moves: vec![li(at(11, 6), at(12, 6), 2)], ..Orders::default() });
        // when they roll two swords,
        crate::battle::roll_side(&s, at(12, 6), NEUSTRIA, true, &[1, 1])
    };
    // then morale takes one of them (no bonus works without commanders, but
    // very low morale is no bonus);
    assert_eq!(rolled(3).0, 1);
    // by rules version 2 both swords counted.
    assert_eq!(rolled(2).0, 2);
}

#[test]
fn mountains_and_wetlands_entry_stops_unit_movement_for_the_current_round_except_li() {
    // Given the Danes' Mercenaries bought in summer at 5-10, beside the wetland 6-10,
    let retreat = |rules: u32| {
        let mut d = game_v(2, Mode::Fast, 1, rules);
        let (home, marsh) = (at(5, 10), at(6, 10));
        d.pass();
        let buy = Purchase { field: home, unit: UnitKind::Mercenary, count: 1 };
        let ev = d.round(0, Orders { buy: vec![buy], ..Orders::default() });
        assert_eq!(kind_of(&d.state, home, 0, UnitKind::Mercenary), 1, "{}", all(&ev));
        // when they and a Light Infantry enter the wetland in ② and retreat home in ④,
        let go = Move { from: home, to: marsh, unit: UnitKind::Mercenary, count: 1 };
        let back = Move { from: marsh, to: home, unit: UnitKind::Mercenary, count: 1 };
        let orders = Orders {
            moves: vec![go, li(home, marsh, 1)],
            retreats: vec![back, li(marsh, home, 1)],
            ..Orders::default()
        };
        let ev = d.round(0, orders);
        (d, ev)
    };
    let (d, ev) = retreat(3);
    // then the entry stopped the Mercenaries for the round; the Light Infantry went back.
    let rep = reports(&ev, Step::RetreatAttrition);
    assert!(rep.contains("entered mountains or wetlands this round"), "{}", all(&ev));
    assert_eq!(kind_of(&d.state, at(6, 10), 0, UnitKind::Mercenary), 1, "{}", all(&ev));
    assert_eq!(kind_of(&d.state, at(6, 10), 0, UnitKind::LightInfantry), 0, "{}", all(&ev));
    // By rules version 2 the Mercenaries could retreat as well.
    let (d, ev) = retreat(2);
    assert_eq!(kind_of(&d.state, at(6, 10), 0, UnitKind::Mercenary), 0, "{}", all(&ev));
}

#[test]
fn importance_scoring_after_5_years() {
    // Given a one-year game of three realms played out without orders,
    let over = |rules: u32| {
        let mut d = game_v(3, Mode::Fast, 1, rules);
        for _ in 0..4 {
            d.pass();
        }
        d
    };
    let d = over(3);
    let points: Vec<i64> = (0..3).map(|i| crate::scoring::importance(&d.state, i)).collect();
    let worth = |i: u8| crate::scoring::worth(&d.state, i);
    let best = (0..3u8).max_by_key(|&i| (points[i as usize], worth(i), std::cmp::Reverse(i))).unwrap();
    // when another realm holds more victory points, but fewer than the 10 of DOMINANCE,
    let other = (best + 1) % 3;
    let mut s = d.state.clone();
    s.realms[other as usize].vp = 5;
    // then the game ended by its years is won on IMPORTANCE (a tie by
    // gold and the cost of all stuff on the map),
    let o = crate::scoring::outcome(&s, &[]).expect("over");
    assert!(o.winners.contains(&best), "{}: {points:?}", o.summary);
    assert!(o.summary.contains("IMPORTANCE points"), "{}", o.summary);
    assert_eq!(o.scores, points);
    // and a realm with 10 VP wins by DOMINANCE.
    s.realms[other as usize].vp = 10;
    let o = crate::scoring::outcome(&s, &[]).expect("over");
    assert_eq!(o.winners, vec![other], "{}", o.summary);
    // By rules version 2 the most victory points won after the years.
    let mut s = over(2).state;
    s.realms[other as usize].vp = 5;
    assert_eq!(crate::scoring::outcome(&s, &[]).expect("over").winners, vec![other]);
}
