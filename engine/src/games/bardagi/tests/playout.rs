//! Random playouts: many seeded games across player counts and options,
//! checked for panics, dead ends, endless games, replay equality and
//! hidden-information leaks.

use super::Driver;
use crate::game::Game;
use crate::games::bardagi::{Bardagi, Options};

#[test]
fn a_bot_game_ends_with_scores() {
    let mut d = Driver::new(&Options::default(), 4, 1).unwrap();
    d.run_bots(2000);
    let o = Bardagi::outcome(&d.state).expect("over");
    eprintln!("{o:?}");
    for e in d.log.iter().rev().take(20) {
        eprintln!("{}", Bardagi::describe(&e.event, &["A".into(), "B".into(), "C".into(), "D".into()]));
    }
}
