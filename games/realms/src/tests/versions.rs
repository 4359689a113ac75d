//! The rules of version 2, each named after the reference sheet's line it
//! implements; positions are built only by playing orders through `decide`.

use super::{all, at, both, game, li, reports, Driver};
use crate::control::kind_of;
use crate::state::{Build, Building, Event, Good, Herd, Mode, Move, Orders, Purchase, Step, Trade, UnitKind};
use crate::Options;

// DANES (seat 0): villages 4-11 (dock, the herds), 5-10, 5-12; 2 LI on
// 4-11 and 5-10, 1 on 5-12.

#[test]
fn transport_move_between_two_ports_as_only_move_in_move() {
    let mut d = game(2, Mode::Fast, 2);
    let (dock, east, west) = (at(4, 11), at(5, 12), at(5, 10));
    // Given the Danes, who in spring march two LI towards 5-12, begin a
    // port on the dock at 4-11, and sell herds for meat and meat for gold,
    let ev = d.round(
        0,
        Orders {
            moves: vec![li(west, at(5, 11), 2)],
            build: vec![Build { field: dock, building: Building::Port }],
            trade: vec![
                Trade::Sell { field: dock, good: Good::Herd(Herd::Sheep), count: 2 },
                Trade::Sell { field: dock, good: Good::Herd(Herd::Pigs), count: 1 },
                Trade::Sell { field: dock, good: Good::Meat, count: 11 },
            ],
            sow: vec![west, east],
            ..Orders::default()
        },
    );
    assert!(reports(&ev, Step::RearTradeSalaries).contains("Danes starts a port for 4 gold"), "{}", all(&ev));
    // in summer begin a dock on 5-12 with three builders,
    let ev = d.round(
        0,
        Orders {
            moves: vec![li(at(5, 11), east, 2)],
            build: vec![Build { field: east, building: Building::Dock }],
            ..Orders::default()
        },
    );
    assert!(reports(&ev, Step::RearTradeSalaries).contains("Danes starts a dock for 2 gold"), "{}", all(&ev));
    // in autumn buy a fourth builder there,
    let buy = Purchase { field: east, unit: UnitKind::LightInfantry, count: 1 };
    let ev = d.round(0, Orders { buy: vec![buy], ..Orders::default() });
    assert!(reports(&ev, Step::RearTradeSalaries).contains("Danes buys Light Infantry on green 5-12"), "{}", all(&ev));
    // and in winter, the dock done, begin its port and sell the transport ship to pay the salaries,
    let ship = Purchase { field: dock, unit: UnitKind::TransportShip, count: 1 };
    let ev = d.round(
        0,
        Orders { build: vec![Build { field: east, building: Building::Port }], sell: vec![ship], ..Orders::default() },
    );
    let rear = reports(&ev, Step::RearTradeSalaries);
    assert!(rear.contains("Danes starts a port for 4 gold") && !rear.contains("Danes: unpaid"), "{}", all(&ev));
    assert_eq!(kind_of(&d.state, east, 0, UnitKind::LightInfantry), 4);
    let ev = d.round(0, Orders::default());
    assert!(reports(&ev, Step::Construction).contains("Danes completes a port on yellow 4-11"), "{}", all(&ev));
    // Summer of year 2: 4-11 is a port, 5-12 still a dock: no transport yet.
    let hop = li(east, dock, 1);
    let err = d.act(0, Orders { moves: vec![hop], ..Orders::default() }).unwrap_err();
    assert!(err.message.contains("out of reach"), "{}", err.message);
    let ev = d.round(0, Orders::default());
    assert!(reports(&ev, Step::Construction).contains("Danes completes a port on green 5-12"), "{}", all(&ev));
    // When a unit moves between the two ports in ②, and one more unit of 4-11 than stood there tries a special move in ③,
    let (at_dock, at_east) =
        (kind_of(&d.state, dock, 0, UnitKind::LightInfantry), kind_of(&d.state, east, 0, UnitKind::LightInfantry));
    let special = li(dock, at(4, 12), at_dock as u8 + 1);
    let ev = d.round(0, Orders { moves: vec![hop], special: vec![special], pay_special: true, ..Orders::default() });
    // then the unit arrives, and it makes no other move this round.
    let units = reports(&ev, Step::Units);
    assert!(
        units.contains("Danes moves 1 Light Infantry from green 5-12 to yellow 4-11 between its two ports"),
        "{units}"
    );
    let special = reports(&ev, Step::MoveSpecialHerds);
    assert!(
        special.contains(&format!(
            "only {at_dock} Light Infantry on yellow 4-11 may move: the others came between two ports"
        )),
        "{special}"
    );
    assert_eq!(kind_of(&d.state, dock, 0, UnitKind::LightInfantry), at_dock + 1);
    assert_eq!(kind_of(&d.state, east, 0, UnitKind::LightInfantry), at_east - 1);
    assert!(d.state.fields.iter().flat_map(|f| &f.units).all(|u| !u.shipped), "the mark ends with the round");
}

const NEUSTRIA: u8 = 1;
const AQUITAINE: u8 = 10;

/// Eleven realms; Neustria (Franks, seat 1, villages 10-6, 11-6, 11-8)
/// marches on Aquitaine's fortified village 12-5 (Franks, seat 10, its herds
/// there), whose garrison steps out to 12-6 and its ship to sea after selling `sold` of its
/// grain. Neustria keeps a unit on 11-5, so its chain to 11-6 holds, and
/// loots 12-5 if `loot`. Answer the second round's events.
fn siege_of_aquitaine(rules: u32, mode: Mode, sold: u8, loot: bool) -> (Driver, Vec<Event>) {
    let o = Options { mode, years: 2, rules_version: rules, ..Options::default() };
    let mut d = Driver::new(&o, 11, 11).expect("setup");
    let (village, out) = (at(12, 5), at(12, 6));
    let garrison = kind_of(&d.state, village, AQUITAINE, UnitKind::LightInfantry) as u8;
    let sell = Trade::Sell { field: village, good: Good::Grain, count: sold };
    let ship = Move { from: village, to: at(12, 4), unit: UnitKind::TransportShip, count: 1 };
    let aquitaine = Orders { moves: vec![li(village, out, garrison), ship], trade: vec![sell], ..Orders::default() };
    let neustria = Orders { moves: vec![li(at(11, 6), at(11, 5), 2)], ..Orders::default() };
    both(&mut d, NEUSTRIA, neustria, AQUITAINE, aquitaine);
    let neustria = Orders {
        moves: vec![li(at(11, 5), village, 1)],
        loot: if loot { vec![village] } else { vec![] },
        ..Orders::default()
    };
    let ev = d.round(NEUSTRIA, neustria);
    (d, ev)
}

fn herds_on(d: &Driver, f: u16, seat: u8) -> usize {
    d.state.fields[f as usize].herds.iter().filter(|h| h.0 == seat).count()
}

#[test]
fn the_withdrawn_herd_that_remains_in_the_settlement_after_the_battle_must_be_fed() {
    // Given Aquitaine's four herds on its fortified village 12-5 with 2 grain
    // left in store, when Neustria's unit stands on the field after ⑥ (the
    // siege fails: 1 LI cannot break 5 shields) and loots it,
    let village = at(12, 5);
    let (d, ev) = siege_of_aquitaine(2, Mode::Fast, 2, true);
    let siege = reports(&ev, Step::CombatSiege);
    assert!(siege.contains("fails"), "{}", all(&ev));
    // then two herds are fed from the store and two are culled for meat,
    assert!(
        siege.contains("Aquitaine feeds 2 withdrawn herds in the settlement on yellow 12-5 (1 grain each)"),
        "{siege}"
    );
    assert_eq!(siege.matches("cannot be fed and is culled for meat").count(), 2, "{siege}");
    assert_eq!(d.state.fields[village as usize].grain, 0);
    assert!(d.state.realms[AQUITAINE as usize].meat > 0);
    // and the looter takes none of the herds withdrawn into the settlement.
    let looting = reports(&ev, Step::Looting);
    assert!(looting.contains("Neustria loots yellow 12-5 (+4 PP)") && !looting.contains("steals"), "{looting}");
    assert_eq!(herds_on(&d, village, AQUITAINE), 2);
    assert_eq!(herds_on(&d, village, NEUSTRIA), 0);
    // By rules version 1, the herds stayed unfed and were stolen.
    let (old, ev) = siege_of_aquitaine(1, Mode::Fast, 2, true);
    assert!(!reports(&ev, Step::CombatSiege).contains("withdrawn"));
    assert!(reports(&ev, Step::Looting).contains("Neustria steals a herd"));
    assert_eq!(herds_on(&old, village, AQUITAINE), 0);
}

#[test]
fn a_unit_may_take_a_loss_designated_for_settlement() {
    // Given Aquitaine's fortified village 12-5 encircled by Neustria (BASIC),
    // its store sold empty and its garrison on the neighbouring 12-6,
    let (village, out) = (at(12, 5), at(12, 6));
    let (d, ev) = siege_of_aquitaine(2, Mode::Basic, 4, false);
    assert!(crate::control::encircled(&d.state, village), "{}", all(&ev));
    assert_eq!(d.state.fields[village as usize].grain, 0);
    let garrison = kind_of(&d.state, out, AQUITAINE, UnitKind::LightInfantry);
    assert!(garrison > 0);
    // when the settlement's roll out of winter is a 6 ("must be fed X destroyed"),
    let mut s = d.state.clone();
    let mut rep = Vec::new();
    crate::moves::retreat_attrition(&mut s, &mut crate::season::Dice::replay(&[6]), &mut rep);
    // then a unit of its realm on a neighbouring field takes the loss, and the settlement stands;
    let rep = rep.join("; ");
    assert!(
        rep.contains(
            "Light Infantry of Aquitaine on yellow 12-6 takes the loss of the encircled settlement on yellow 12-5"
        ),
        "{rep}"
    );
    assert!(s.fields[village as usize].settlement.is_some_and(|x| x.owner == AQUITAINE));
    assert_eq!(kind_of(&s, out, AQUITAINE, UnitKind::LightInfantry), garrison - 1);
    // by rules version 1 the settlement was destroyed.
    let (old, _) = siege_of_aquitaine(1, Mode::Basic, 4, false);
    let mut s = old.state.clone();
    let mut rep = Vec::new();
    crate::moves::retreat_attrition(&mut s, &mut crate::season::Dice::replay(&[6]), &mut rep);
    assert!(rep.join("; ").contains("starves and is destroyed"), "{rep:?}");
    assert!(s.fields[village as usize].settlement.is_none());
}

#[test]
fn herds_moving_through_the_sgf_must_end_up_on_the_coastal_lgf() {
    use crate::state::HerdMove;
    // Given the Danes' herds on 4-11 and two LI moved to 5-11 in ②, so that
    // 4-11, 5-11 and 5-12 are a chain of controlled fields,
    let mut d = game(2, Mode::Fast, 1);
    let (dock, west, east) = (at(4, 11), at(5, 10), at(5, 12));
    let herd = |to, herd| HerdMove { from: dock, to, herd };
    // when in ③ a sheep walks two fields within the FC, the pig crosses the
    // sea field 4-10 to the coastal 5-10, a sheep is sent onto the sea and
    // one to the marsh 6-10 beyond the FC,
    let ev = d.round(
        0,
        Orders {
            moves: vec![li(west, at(5, 11), 2)],
            herds: vec![
                herd(east, Herd::Sheep),
                herd(west, Herd::Pigs),
                herd(at(4, 10), Herd::Sheep),
                herd(at(6, 10), Herd::Sheep),
            ],
            ..Orders::default()
        },
    );
    // then the first two arrive and the others stay, each with its reason.
    let rep = reports(&ev, Step::MoveSpecialHerds);
    assert_eq!(herds_on(&d, east, 0), 1, "{rep}");
    assert_eq!(herds_on(&d, west, 0), 1, "{rep}");
    assert!(rep.contains("herds moving through the SGF must end up on the coastal LGF"), "{rep}");
    assert!(rep.contains("turquoise 6-10 is not reached within your FC"), "{rep}");
}

#[test]
fn units_can_retreat_to_ships_without_enemies_on_sgf() {
    // Given the Danes' transport ship sailed from the dock 4-11 onto the sea 4-10,
    let mut d = game(2, Mode::Fast, 1);
    let (dock, sea, west) = (at(4, 11), at(4, 10), at(5, 10));
    let sail = Move { from: dock, to: sea, unit: UnitKind::TransportShip, count: 1 };
    d.round(0, Orders { moves: vec![sail], ..Orders::default() });
    // when in ④ two LI of 5-10 and two of 4-11 retreat onto it,
    let ev = d.round(0, Orders { retreats: vec![li(west, sea, 2), li(dock, sea, 2)], ..Orders::default() });
    // then the first two board and the ship has no room for the others;
    let rep = reports(&ev, Step::RetreatAttrition);
    assert_eq!(kind_of(&d.state, sea, 0, UnitKind::LightInfantry), 2, "{rep}");
    assert!(rep.contains("retreat from yellow 4-11 not made: the ships on sea 4-10 have room for 1"), "{rep}");
    // the ship does not sail away with them aboard,
    let away = Move { from: sea, to: at(3, 10), unit: UnitKind::TransportShip, count: 1 };
    let err = d.act(0, Orders { moves: vec![away], ..Orders::default() }).unwrap_err();
    assert!(
        err.message.contains("your ships on sea 4-10 carry 2 units; land them before the ships sail"),
        "{}",
        err.message
    );
    // and they land again in ②.
    d.round(0, Orders { moves: vec![li(sea, west, 2)], ..Orders::default() });
    assert_eq!(kind_of(&d.state, west, 0, UnitKind::LightInfantry), 2);
    // Heavy Infantry never retreat, and no land unit retreats onto a sea without its ships.
    let err = crate::moves::check(&d.state, 0, &li(west, at(5, 9), 1), Step::RetreatAttrition, false).unwrap_err();
    assert!(err.contains("no field of your own to retreat to"), "{err}");
}

#[test]
fn in_a_tie_gold_and_the_cost_of_all_stuff_on_the_map() {
    use crate::scoring::worth;
    use runestone_engine::Game;
    // Given the opening: the Danes hold 5 gold, 5 LI (2 each), a transport
    // ship (2 + 2), 3 villages (3 each), a dock (2), 10 grain (2 each), 2
    // sheep (5 each) and a pig (7); Neustria the same and a fortification (2).
    let d = game(2, Mode::Fast, 1);
    assert_eq!(worth(&d.state, 0), 5 + 10 + 4 + 9 + 2 + 20 + 10 + 7);
    assert_eq!(worth(&d.state, 1), worth(&d.state, 0) + 2);
    // When a year passes without orders and both realms end level in VP
    // and IMPORTANCE, then the one with the greater worth wins.
    let mut d = d;
    for _ in 0..4 {
        d.pass();
    }
    let o = crate::Realms::outcome(&d.state).expect("over after one year");
    let (a, b) = (&d.state.realms[0], &d.state.realms[1]);
    assert_eq!((a.vp, crate::scoring::importance(&d.state, 0)), (b.vp, crate::scoring::importance(&d.state, 1)));
    let best = if worth(&d.state, 0) > worth(&d.state, 1) { 0 } else { 1 };
    assert_ne!(worth(&d.state, 0), worth(&d.state, 1));
    assert_eq!(o.winners, vec![best], "{}", o.summary);
}

#[test]
fn options_recorded_by_version_one_replay_by_version_one_and_new_games_play_the_newest() {
    // The complete options a version 1 game recorded (no version in them):
    let v1 = serde_json::json!({"mode": "fast", "scenario": "vikings", "years": 2});
    let o: Options = serde_json::from_value(v1).unwrap();
    assert_eq!(o.rules_version, 1);
    // options given now without a version play by the newest rules,
    let o: Options = serde_json::from_value(serde_json::json!({"years": 2})).unwrap();
    assert_eq!(o.rules_version, crate::RULES_VERSION);
    assert_eq!(serde_json::to_value(&o).unwrap()["rules_version"], 3, "the version is recorded");
    let d = Driver::new(&o, 2, 1).unwrap();
    assert_eq!(d.state.rules, 3);
    assert!(matches!(d.log[0].event, Event::Started { rules: 3, .. }));
    // and a version 1 game's first event is written as version 1 wrote it.
    let old = Driver::new(&Options { rules_version: 1, ..Options::default() }, 2, 1).unwrap();
    assert_eq!(old.state.rules, 1);
    assert!(serde_json::to_value(&old.log[0].event).unwrap().get("rules").is_none());
    let e = Driver::new(&Options { rules_version: 4, ..Options::default() }, 2, 1).err().unwrap();
    assert_eq!(e.message, "rules version 4 is unknown; games are played by versions 1 to 3");
    assert!(serde_json::from_value::<Options>(serde_json::json!({"colour": "red"})).is_err(), "unknown options");
}

#[test]
fn land_units_aboard_drown_when_their_ship_is_wrecked() {
    // Given eleven realms and Aquitaine's transport ship sailed from its dock
    // at 12-5 onto the stormy sea 13-4, and in autumn one of its LI on 13-5
    // retreats aboard in ④ (BASIC),
    let o = Options { mode: Mode::Basic, years: 2, ..Options::default() };
    let mut d = Driver::new(&o, 11, 11).expect("setup");
    let (dock, calm, stormy, shore) = (at(12, 5), at(12, 4), at(13, 4), at(13, 5));
    let sail = |from, to| Move { from, to, unit: UnitKind::TransportShip, count: 1 };
    d.round(AQUITAINE, Orders { moves: vec![sail(dock, calm), li(dock, shore, 1)], ..Orders::default() });
    d.round(AQUITAINE, Orders { moves: vec![sail(calm, stormy)], ..Orders::default() });
    let ev = d.round(AQUITAINE, Orders { retreats: vec![li(shore, stormy, 1)], ..Orders::default() });
    let rep = reports(&ev, Step::RetreatAttrition);
    assert_eq!(kind_of(&d.state, stormy, AQUITAINE, UnitKind::LightInfantry), 1, "{rep}");
    assert_eq!(kind_of(&d.state, stormy, AQUITAINE, UnitKind::TransportShip), 1, "{rep}");
    // when in winter the ship's shipwreck roll is a 6 (the unit aboard rolls none),
    let mut s = d.state.clone();
    let mut rep = Vec::new();
    let mut dice = crate::season::Dice::replay(&[6]);
    crate::moves::retreat_attrition(&mut s, &mut dice, &mut rep);
    // then the ship sinks and the unit aboard drowns.
    let rep = rep.join("; ");
    assert!(rep.contains("attrition: Transport Ships of Aquitaine lost on stormy sea 13-4"), "{rep}");
    assert!(rep.contains("Light Infantry of Aquitaine drown on stormy sea 13-4: no ship carries them"), "{rep}");
    assert!(s.fields[stormy as usize].units.is_empty());
}

#[test]
fn corsairs_dont_move_attack_as_attrition_roll() {
    // Given three realms: Wessex (seat 2) sails its transport ship from its
    // dock 8-5 to the sea 8-6; Neustria holds a triple festival in winter
    // and buys Corsairs for 16 PP on the sea 9-6 beside its dock 10-6; in
    // the next spring's ② the Wessex ship sails onto 9-6,
    let sea = at(9, 6);
    let corsair_game = |rules: u32| {
        let o = Options { years: 2, rules_version: rules, ..Options::default() };
        let mut d = Driver::new(&o, 3, 11).expect("setup");
        let (dock, near) = (at(8, 5), at(8, 6));
        let sail = |from, to| Move { from, to, unit: UnitKind::TransportShip, count: 1 };
        d.round(2, Orders { moves: vec![sail(dock, near)], ..Orders::default() });
        d.pass();
        d.pass();
        let corsair = Purchase { field: sea, unit: UnitKind::Corsair, count: 1 };
        let ev = d.round(NEUSTRIA, Orders { festival: 3, buy: vec![corsair], ..Orders::default() });
        assert!(reports(&ev, Step::RearTradeSalaries).contains("Neustria buys Corsairs on sea 9-6"), "{}", all(&ev));
        let mut s = d.state.clone();
        let orders = Orders { moves: vec![sail(near, sea)], ..Orders::default() };
        crate::state::apply(&mut s, &Event::OrdersRevealed { seat: 2, orders });
        crate::moves::units(&mut s, &mut Vec::new());
        assert_eq!(kind_of(&s, sea, 2, UnitKind::TransportShip), 1, "{}", all(&ev));
        assert_eq!(kind_of(&s, sea, NEUSTRIA, UnitKind::Corsair), 1, "{}", all(&ev));
        s
    };
    let state = corsair_game(2);
    // when Wessex attacks on 9-6, its white die empty (4), and the Corsair's
    // attrition roll is a 6,
    let mut s = state.clone();
    let mut rep = Vec::new();
    let won = crate::battle::fight(&mut s, sea, 2, NEUSTRIA, &mut crate::season::Dice::replay(&[4, 6]), &mut rep);
    // then the Corsair destroys the ship outright and wins.
    let rep = rep.join("; ");
    assert!(rep.contains("a Corsair of Neustria destroys Transport Ships of Wessex"), "{rep}");
    assert_eq!(won, Some(NEUSTRIA), "{rep}");
    assert_eq!(kind_of(&s, sea, 2, UnitKind::TransportShip), 0);
    // A roll below 6 does nothing, whatever a white die would have shown (1 is a sword).
    let mut s = state.clone();
    let mut rep = Vec::new();
    crate::battle::fight(&mut s, sea, 2, NEUSTRIA, &mut crate::season::Dice::replay(&[4, 1].repeat(8)), &mut rep);
    assert!(!rep.join("; ").contains("destroys"), "{rep:?}");
    assert_eq!(kind_of(&s, sea, 2, UnitKind::TransportShip), 1, "{rep:?}");
    // By rules version 1 the Corsair rolled a white die: the 1 is a sword.
    let mut s = corsair_game(1);
    let mut rep = Vec::new();
    let won = crate::battle::fight(&mut s, sea, 2, NEUSTRIA, &mut crate::season::Dice::replay(&[4, 1]), &mut rep);
    assert_eq!(won, Some(NEUSTRIA), "{rep:?}");
    assert!(!rep.join("; ").contains("a Corsair of"), "{rep:?}");
}
