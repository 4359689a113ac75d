//! The rulebook's worked example round ("Round & turn example"), on the mini
//! board: blue stands on red's 3-disk sheep area, attacks with 3 disks and
//! claims with the 4th, reinforces with the last 2, boards the Knerrir,
//! brings the Kaupmadur home and refills Virki with 4 meat, moves the Godi
//! around the mountain to the gold mine, and sails 3 squares; the claim
//! gives 7 glory, 2 timber, 1 stone, 1 iron, meat from cattle, wool from the
//! new sheep area and 2 gold from the gold mine with the Godi on it.

use crate::board::{Colour, SeaNode};
use crate::state::{Command, Event, Good, GoodChoice, Loc, Orders, ShipLoc, Unit};

use super::mini;

#[test]
fn the_worked_example_round() {
    let mut d = mini(4);
    let blue = d.seat(Colour::Blue);
    let red = d.seat(Colour::Red);
    // Given: blue owns two forests, the quarry, the iron mine, the cattle area
    // and the gold mine; red owns the sheep area with 3 disks; blue's
    // Berserkur entered it last round; the Kaupmadur is in Forest 1.
    d.own(blue, &[1, 2, 7, 8, 9, 12], 1);
    d.own(red, &[3], 3);
    let p = &mut d.state.players[blue as usize];
    p.units = [Loc::Area(3), Loc::Area(0), Loc::Area(1)];
    p.goods = [0, 0, 4, 0, 0, 0];
    p.supply = 22 - 6;
    p.orders = Orders { sheep: GoodChoice::Other, cattle: GoodChoice::Meat, ..Orders::default() };
    d.state.players[red as usize].supply = 22 - 3;
    let gold_before = d.state.players[blue as usize].gold;
    d.turn_of(blue, [2, 1, 2, 1]);

    // Card 1: attack red's 3 disks, claim with the 4th, reinforce with 2.
    let ev = d.act(blue, &Command::Attack { claim: true, reinforce: 2 }).unwrap();
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::AreaOvertaken { area: 3, from: Some(r), spent: 3, placed: 3, .. } if *r == red)));
    assert_eq!(d.state.players[blue as usize].disks[0], 0, "Virki is empty");
    assert_eq!(d.state.areas[3].disks, 3);
    assert_eq!(d.state.players[red as usize].supply, 22, "red's 3 disks go back to her");
    // Card 2: the Berserkur boards the Knerrir at the sheep area's harbour.
    d.act(blue, &Command::Board { unit: Unit::Berserkur }).unwrap();
    assert_eq!(d.state.players[blue as usize].ship, ShipLoc::At(SeaNode::Harbour(3)));
    // Cards 3 and 4: the Kaupmadur goes home and refills Virki for 4 meat.
    d.act(blue, &Command::Move { unit: Unit::Kaupmadur, to: 0 }).unwrap();
    d.act(blue, &Command::Trade { deals: vec![], refill: vec![crate::state::Building::Virki] }).unwrap();
    assert_eq!(d.state.players[blue as usize].disks[0], 6, "6 new disks on Virki");
    assert_eq!(d.state.players[blue as usize].goods[Good::Meat.idx()], 0);
    // Card 5: the Godi goes to the gold mine through blue's own areas.
    d.act(blue, &Command::Move { unit: Unit::Godi, to: 12 }).unwrap();
    // Card 6: the Knerrir sails 3 squares with the Berserkur on board.
    d.act(
        blue,
        &Command::Sail { route: vec![SeaNode::Ocean(3), SeaNode::Ocean(2), SeaNode::Ocean(1)], sea_rune: false },
    )
    .unwrap();
    assert_eq!(d.state.players[blue as usize].played.total(), 6);
    d.act(blue, &Command::EndTurn).unwrap();

    // The other clans play a short turn: the Kaupmadur boards at home.
    let mut claim = Vec::new();
    while d.state.round == 1 {
        let s = d.state.current;
        claim = d.act(s, &Command::PlayTurn { steps: vec![Command::Board { unit: Unit::Kaupmadur }] }).unwrap();
    }
    // The claim: 7 glory for 7 areas, no extra glory for the gold mine taken
    // from the Barbarians earlier.
    assert!(claim.iter().any(|e| matches!(e, Event::GloryChanged { seat, delta: 7, .. } if *seat == blue)));
    let gained = claim
        .iter()
        .find_map(|e| match e {
            Event::GoodsChanged { seat, delta, .. } if *seat == blue => Some(*delta),
            _ => None,
        })
        .unwrap();
    // timber, wool, meat, hide, stone, iron
    assert_eq!(gained, [2, 1, 1, 0, 1, 1]);
    assert_eq!(d.state.players[blue as usize].gold, gold_before + 2, "1 gold from the mine, 1 more for the Godi on it");
    assert!(!claim.iter().any(|e| matches!(e, Event::GloryChanged { seat, .. } if *seat == red)), "red owns nothing");
    assert_eq!(d.state.round, 2);
}
