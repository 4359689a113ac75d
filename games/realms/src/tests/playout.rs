//! Random playouts of Vikings 800 AD across 2 to 12 players and both
//! modes: no panic, no dead end, each game ends, replay equals the live
//! state, no realm sees another's orders before the reveal, gold never
//! above the 20-cube limit, storage never above capacity.

use runestone_engine::{Game, Viewer};

use super::Driver;
use crate::control::{fish_cap, grain_cap};
use crate::state::{Command, Mode, Season, State};
use crate::{Options, Realms};

use runestone_engine::harness::Pick;

pub(super) fn invariants(s: &State, game: u64) {
    let limit = crate::data::tables().gold_limit;
    for r in &s.realms {
        assert!(r.gold <= limit, "game {game}: {} holds {} gold", r.home, r.gold);
    }
    for f in 0..s.fields.len() as u16 {
        let fi = &s.fields[f as usize];
        assert!(fi.grain <= grain_cap(s, f), "game {game}: field {f} stores {} grain", fi.grain);
        assert!(fi.fish <= fish_cap(s, f), "game {game}: field {f} stores {} fish", fi.fish);
    }
    none_adrift(s, game);
}

/// Rules version 3: no land unit stands at sea beyond the room aboard its
/// realm's ships, after any round.
fn none_adrift(s: &State, game: u64) {
    if !s.from_version(3) {
        return;
    }
    for f in 0..s.fields.len() as u16 {
        for seat in 0..s.realms.len() as u8 {
            let (aboard, room) = (crate::moves::aboard(s, f, seat), crate::moves::ship_room(s, f, seat));
            assert!(
                !s.map().fields[f as usize].is_sea() || aboard <= room,
                "game {game}: {aboard} units adrift on {f}"
            );
        }
    }
}

/// Rules version 3: no unit ends the winter without a connection to one of
/// its realm's settlements.
pub(super) fn no_unit_cut_off(s: &State, game: u64) {
    if !s.from_version(3) {
        return;
    }
    for seat in 0..s.realms.len() as u8 {
        let pools = crate::control::pools(s, seat);
        for (f, fi) in s.fields.iter().enumerate() {
            let cut = fi.units.iter().any(|u| u.owner == seat) && pools[f].is_none();
            assert!(!cut, "game {game}: a unit of seat {seat} ends the winter cut off on field {f}");
        }
    }
}

/// What happened in the games: battles, settlements taken, fields looted,
/// constructions completed, rounds.
#[derive(Default, Debug)]
struct Tally {
    games: u32,
    rounds: u32,
    battles: u32,
    taken: u32,
    looted: u32,
    built: u32,
    by_seats: [u32; 13],
    fast: u32,
}

fn play(i: u64, check_views: bool, tally: &mut Tally) -> (u8, u32) {
    let seats = 2 + (i % 11) as u8;
    let mode = if i.is_multiple_of(2) { Mode::Fast } else { Mode::Basic };
    let years = 1 + (i % 3) as u8;
    // Every fifth game plays by rules version 1 and every fifth by version
    // 2, as older games do.
    let rules_version = match i % 5 {
        3 => 1,
        4 => 2,
        _ => crate::RULES_VERSION,
    };
    let opts = Options { scenario: "vikings".into(), mode, years, rules_version };
    let mut d = Driver::new(&opts, seats, i).expect("setup");
    let mut pick = Pick(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut rounds = 0;
    let mut inputs = 0;
    while Realms::outcome(&d.state).is_none() {
        inputs += 1;
        assert!(inputs < 2_000, "game {i}: endless");
        let pending = Realms::pending(&d.state);
        assert!(!pending.is_empty(), "game {i}: nobody to wait for but not over");
        let waiting = d.state.waiting();
        // Now and then a realm that gave orders replaces them.
        let submitted: Vec<u8> = pending.iter().filter(|p| p.submitted).map(|p| p.seat).collect();
        let seat = if !submitted.is_empty() && pick.next(5) == 0 {
            submitted[pick.next(submitted.len())]
        } else {
            waiting[pick.next(waiting.len())]
        };
        let legal = Realms::legal(&d.state, seat);
        assert!(!legal.is_empty(), "game {i}: seat {seat} is pending without a legal command");
        if check_views || i.is_multiple_of(5) {
            for c in &legal {
                let mut rng = runestone_engine::GameRng::new(d.seed.clone(), 1);
                Realms::decide(&d.state, seat, c, &mut rng)
                    .unwrap_or_else(|e| panic!("game {i}: a legal command is refused: {e}"));
            }
        }
        let c = legal[pick.next(legal.len())].clone();
        let Command::Orders { orders } = c;
        let before = d.state.season;
        d.act(seat, orders).unwrap_or_else(|e| panic!("game {i}: orders of seat {seat} refused: {e}"));
        if d.state.season != before || d.state.over.is_some() {
            rounds += 1;
        }
        invariants(&d.state, i);
        if before == Season::Winter && d.state.season != before {
            no_unit_cut_off(&d.state, i);
        }
        if check_views {
            for (seat, r) in d.state.realms.iter().enumerate() {
                if r.orders.is_none() {
                    continue;
                }
                let other = (seat + 1 + pick.next(d.state.realms.len() - 1)) % d.state.realms.len();
                {
                    let v = Realms::view(&d.state, Viewer::Seat(other as u8));
                    assert!(v["realms"][seat]["orders"].is_null(), "game {i}: seat {other} sees the orders of {seat}");
                }
                let v = Realms::view(&d.state, Viewer::Public);
                assert!(v["realms"][seat]["orders"].is_null(), "game {i}: the public sees orders");
            }
        }
    }
    // Replay equals the live state.
    let mut replay = State::default();
    for e in &d.log {
        Realms::apply(&mut replay, &e.event);
    }
    assert_eq!(replay, d.state, "game {i}: replay differs from the live state");
    for e in &d.log {
        if let crate::state::Event::Resolved { report, .. } = &e.event {
            for line in report {
                tally.battles += u32::from(line.starts_with("battle on"));
                tally.taken += u32::from(
                    line.contains(" seizes ") || line.contains(" destroys and loots ") || line.contains(" degrades "),
                );
                tally.looted += u32::from(line.contains(" loots "));
                tally.built += u32::from(line.contains(" completes a "));
            }
        }
    }
    tally.games += 1;
    tally.rounds += rounds;
    tally.by_seats[seats as usize] += 1;
    tally.fast += u32::from(mode == Mode::Fast);
    assert!(rounds as u8 <= 4 * years, "game {i}: more rounds than the years allow");
    (seats, rounds)
}

#[test]
fn seeded_games_across_two_to_twelve_players_and_both_modes_end_cleanly() {
    let n: u64 = std::env::var("REALMS_PLAYOUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(44);
    let mut tally = Tally::default();
    for i in 0..n {
        play(i, i < 22 || i.is_multiple_of(25), &mut tally);
    }
    for (seats, &count) in tally.by_seats.iter().enumerate().skip(2) {
        assert!(count > 0 || n < 11, "no game with {seats} players was played");
    }
    println!("{tally:?}");
    assert!(
        tally.battles > 0 && tally.looted > 0 && tally.built > 0,
        "the games saw no fighting or building: {tally:?}"
    );
}
