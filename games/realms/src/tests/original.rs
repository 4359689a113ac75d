//! ORIGINAL mode: BASIC and the sheet's ORIGINAL lines that are played,
//! each named after its line.

use runestone_engine::Game;

use super::Driver;
use crate::data::SCENARIOS;
use crate::state::{Event, Mode, Season, State, Step, Trade};
use crate::{bot, Options, Realms};

fn original(scenario: &str, players: u8, years: u8, seed: u64) -> Driver {
    let o = Options { scenario: scenario.into(), mode: Mode::Original, years, ..Options::default() };
    Driver::new(&o, players, seed).expect("setup")
}

/// Lines 533-535, "D6 must be rolled for each SGF: 1 to 4 - success, 5,6 -
/// nothing", and line 51, "British islands: Always successful fishing".
#[test]
fn original_fishing_rolls_a_d6_for_each_sea_and_the_british_always_catch() {
    let d = original("vikings", 3, 1, 5);
    // Danes (Vikings) and Wessex (British islands) fish; the roll decides
    // for the Danes only.
    let mut caught_by_roll = [false; 2];
    for roll in 1..=6u8 {
        let mut s = d.state.clone();
        let mut rep = Vec::new();
        let rolls = vec![roll; 64];
        crate::fishing::fishing(&mut s, &mut crate::season::Dice::replay(&rolls), &mut rep);
        let danes = rep.iter().any(|l| l.starts_with("Danes catches"));
        let wessex = rep.iter().any(|l| l.starts_with("Wessex catches"));
        assert!(wessex, "the British islands catch whatever the die: {rep:?}");
        assert_eq!(danes, roll <= 4, "roll {roll}: {rep:?}");
        caught_by_roll[usize::from(roll <= 4)] |= danes;
    }
    assert_eq!(caught_by_roll, [false, true]);
    // In BASIC nobody rolls.
    let mut s = d.state.clone();
    s.mode = Mode::Basic;
    let mut rep = Vec::new();
    crate::fishing::fishing(&mut s, &mut crate::season::Dice::replay(&[]), &mut rep);
    assert!(rep.iter().any(|l| l.starts_with("Danes catches")), "{rep:?}");
}

fn salary_lines(events: &[Event]) -> usize {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Resolved { step: Step::RearTradeSalaries, report, .. } => {
                Some(report.iter().filter(|l| l.contains("salar")).count())
            }
            _ => None,
        })
        .sum()
}

/// Line 261, "Standard salaries occurred in trade phase once / twice in
/// year": twice in ORIGINAL (summer and winter), once before.
#[test]
fn original_pays_salaries_twice_a_year() {
    for (mode, summer) in [(Mode::Original, true), (Mode::Basic, false)] {
        let o = Options { mode, years: 1, ..Options::default() };
        let mut d = Driver::new(&o, 2, 7).expect("setup");
        d.pass();
        assert_eq!(d.state.season, Season::Summer);
        let ev = d.pass();
        assert_eq!(salary_lines(&ev) > 0, summer, "{mode:?}: {}", super::all(&ev));
        d.pass();
        let ev = d.pass();
        assert!(salary_lines(&ev) > 0, "{mode:?}, winter: {}", super::all(&ev));
    }
}

/// Line 298, meat "in spring, summer +1/2 in autumn, winter +1".
#[test]
fn original_sells_meat_for_half_a_gold_in_spring_and_summer_and_one_in_autumn_and_winter() {
    let d = original("vikings", 2, 1, 3);
    let village = crate::control::settlements(&d.state, 0)[0];
    let sell = Trade::Sell { field: village, good: crate::state::Good::Meat, count: 5 };
    for (season, mode, gold) in [
        (Season::Spring, Mode::Original, 2),
        (Season::Summer, Mode::Original, 2),
        (Season::Autumn, Mode::Original, 5),
        (Season::Winter, Mode::Original, 5),
        (Season::Spring, Mode::Basic, 5),
    ] {
        let mut s: State = d.state.clone();
        s.season = season;
        s.mode = mode;
        s.realms[0].meat = 5;
        s.realms[0].gold = 0;
        crate::trade::trade(&mut s, 0, &sell).expect("meat is sold");
        assert_eq!(s.realms[0].gold, gold, "{season:?} {mode:?}");
    }
}

/// ORIGINAL games of bots in every scenario play to their end and are
/// scored, and the view names the mode.
#[test]
fn original_games_of_bots_play_to_their_end_in_every_scenario() {
    for (i, id) in SCENARIOS.iter().enumerate() {
        let mut d = original(id, 3, 2, i as u64);
        let mut inputs = 0;
        while Realms::outcome(&d.state).is_none() {
            inputs += 1;
            assert!(inputs < 1_000, "{id}: endless");
            let seat = d.state.waiting()[0];
            let orders = bot::orders(&d.state, seat);
            d.act(seat, orders).unwrap_or_else(|e| panic!("{id}: {e}"));
            super::playout::invariants(&d.state, i as u64);
        }
        let mut replay = State::default();
        for e in &d.log {
            Realms::apply(&mut replay, &e.event);
        }
        assert_eq!(replay, d.state, "{id}");
        assert_eq!(Realms::outcome(&d.state).expect("over").scores.len(), 3);
    }
    let d = original("vikings", 2, 1, 1);
    let text = crate::drawing::text(&crate::view::view(&d.state, runestone_engine::Viewer::Public), &[]).unwrap();
    assert!(text.contains("ORIGINAL mode"), "{text}");
}
