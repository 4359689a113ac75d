//! REAR (3) FISHING and "REAR - FISHING SUCCESS RATE": take 1 fish from
//! each calm SGF (2 from stormy) you control to a connected shipyard with
//! room (dock 2, port 4). Fishing is always successful in FAST and BASIC
//! mode (the D6 roll, 1 to 4 success, belongs to ORIGINAL mode).

use runestone_engine::Seat;

use crate::control::{fish_cap, foreign, units_of};
use crate::season::Dice;
use crate::state::State;

/// A realm controls an SGF with its ships there, or one touching its
/// completed shipyard that holds no foreign ships (designed).
pub fn controls_sea(s: &State, seat: Seat, sea: u16) -> bool {
    let map = s.map();
    if foreign(s, sea, seat) {
        return false;
    }
    units_of(s, sea, seat) > 0
        || map.fields[sea as usize]
            .neighbours
            .iter()
            .any(|&n| s.fields[n as usize].shipyard.is_some_and(|y| y.owner == seat) && !foreign(s, n, seat))
}

pub fn fishing(s: &mut State, d: &mut Dice, rep: &mut Vec<String>) {
    let map = s.map();
    for seat in 0..s.realms.len() as Seat {
        let mut caught = 0;
        for sea in 0..s.fields.len() as u16 {
            let info = &map.fields[sea as usize];
            if !info.is_sea() || !map.in_play(sea, s.players) || !controls_sea(s, seat, sea) {
                continue;
            }
            // ORIGINAL: "D6 must be rolled for each SGF: 1 to 4 - success,
            // 5,6 - nothing", except for "Always successful fishing".
            let sure = crate::control::has(s, seat, crate::data::Ability::SureFishing);
            if crate::season::original(s) && !sure && d.d6() > 4 {
                continue;
            }
            let mut fish = if info.stormy { 2 } else { 1 };
            for &n in &info.neighbours {
                if fish == 0 {
                    break;
                }
                if s.fields[n as usize].shipyard.is_none_or(|y| y.owner != seat) || foreign(s, n, seat) {
                    continue;
                }
                let cap = fish_cap(s, n);
                while fish > 0 && s.fields[n as usize].fish < cap {
                    s.fields[n as usize].fish += 1;
                    fish -= 1;
                    caught += 1;
                }
            }
        }
        if caught > 0 {
            rep.push(format!("{} catches {caught} fish", s.realms[seat as usize].home));
        }
    }
}
