//! Random playouts: seeded games across 3 to 6 players and the options, each
//! checked for panics, dead ends, the end by the trophy condition, replay
//! equality and secrets leaking into other seats' views.

use runestone_engine::{Game, GameRng, Seat, Viewer, Visibility};

use super::Driver;
use crate::state::{Event, Phase, State};
use crate::{FallenKingdoms, Options};

use runestone_engine::harness::Pick;

fn options_for(i: u64) -> Options {
    Options {
        hidden_scoring: i % 3 == 1,
        trophies_per_player: if i % 7 == 3 { 2 } else { 3 },
        cities_per_path: if i % 5 == 2 { 3 } else { 2 },
        victories_for_rumor: if i % 4 == 1 { 4 } else { 6 },
        reverse_first_player: i % 6 == 5,
        reverse_priority: i % 4 == 3,
        powered_down_temples: i % 5 == 4,
        // Every rules version: turns step by step, turns as programs, and
        // version 3's readings (with now and then another size of map, 8.3).
        rules_version: Some(1 + (i % 3) as u32),
        cities_per_player: match (i % 3, i % 5, 3 + i % 4) {
            (2, 1, 3 | 4) => Some(9),
            (2, 1, 5) => Some(7),
            _ => None,
        },
    }
}

/// Every `type` a tagged enum's JSON schema names at its root: its variants
/// (the enums nested in them, under `$defs`, are not read).
pub fn variants(schema: &serde_json::Value, out: &mut Vec<String>) {
    let arms = ["oneOf", "anyOf"].iter().filter_map(|k| schema.get(*k)).filter_map(|v| v.as_array()).flatten();
    for arm in arms {
        let t = &arm["properties"]["type"];
        out.extend(t.get("const").and_then(|c| c.as_str()).map(str::to_string));
        for c in t.get("enum").and_then(|e| e.as_array()).into_iter().flatten() {
            out.extend(c.as_str().map(str::to_string));
        }
    }
}

/// Counts by kind: each command and event `type` seen.
pub type Kinds = std::collections::BTreeMap<String, u64>;

fn kind<T: serde::Serialize>(x: &T) -> String {
    serde_json::to_value(x).expect("JSON")["type"].as_str().expect("a tagged enum").to_string()
}

/// Play one game; answer (seats, turns, counts of battles, intimidations,
/// exhaustions, rampages, invasions, fallen kingdoms, battles that asked,
/// defenders' retreats),
/// and the commands and events by kind.
pub fn play(i: u64, check_all: bool) -> (u8, u32, [u32; 8], Kinds) {
    let mut kinds = Kinds::new();
    let seats = 3 + (i % 4) as u8;
    let mut d = Driver::new(&options_for(i), seats, i).unwrap_or_else(|e| panic!("game {i}: setup refused: {e}"));
    let mut pick = Pick(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    // Some seats ask to be asked when their defenders are down to 1 or 2
    // (standing orders given at once, while the god choice is open).
    for seat in (0..seats).filter(|s| (i + *s as u64).is_multiple_of(3)) {
        let defence = crate::state::Defence {
            retreat_at: 1 + (i % 2) as u8,
            ask: true,
            complete_from_board: true,
            ..Default::default()
        };
        let c = crate::Command::SetDefence { defence };
        d.act(seat, &c).unwrap_or_else(|e| panic!("game {i}: {e}"));
        *kinds.entry(format!("command {}", kind(&c))).or_default() += 1;
    }
    let mut commands = 0u32;
    while FallenKingdoms::outcome(&d.state).is_none() {
        commands += 1;
        assert!(commands < 20_000, "game {i}: endless (turn {})", d.state.turn);
        let waiting = d.waiting();
        assert!(!waiting.is_empty(), "game {i}: nobody to wait for but not over");
        let seat = waiting[pick.next(waiting.len())];
        let legal = FallenKingdoms::legal(&d.state, seat);
        assert!(!legal.is_empty(), "game {i}: seat {seat} has no legal command in {:?}", d.state.phase);
        if check_all || commands.is_multiple_of(13) {
            check_secrets(&d.state, i);
            check_legal(&d, seat, &legal, i);
        }
        // Mostly the bot; now and then a random legal command.
        let c = if pick.next(4) == 0 {
            legal[pick.next(legal.len())].clone()
        } else {
            FallenKingdoms::fallback(&d.state, seat).expect("pending seat has a fallback")
        };
        d.act(seat, &c).unwrap_or_else(|e| panic!("game {i}: {c:?} of seat {seat} refused: {e}"));
        *kinds.entry(format!("command {}", kind(&c))).or_default() += 1;
    }
    for e in &d.log {
        *kinds.entry(format!("event {}", kind(&e.event))).or_default() += 1;
    }
    assert!(d.state.depleted() >= 2, "game {i}: ended without two trophy types depleted");
    let mut replay = State::default();
    for e in &d.log {
        FallenKingdoms::apply(&mut replay, &e.event);
    }
    assert_eq!(
        serde_json::to_string(&replay).unwrap(),
        serde_json::to_string(&d.state).unwrap(),
        "game {i}: replay differs"
    );
    for e in &d.log {
        if let Visibility::Seats(seats) = &e.visibility {
            let red = e.redacted.as_ref().expect("a secret event has a public form");
            let hidden = match red {
                Event::GodsDealt { gods, .. } => gods.is_none(),
                Event::GodChosen { god, .. } => god.is_none(),
                Event::Glory { delta, .. } => delta.is_none(),
                Event::DefenceSet { defence, .. } => defence.is_none(),
                Event::SetupGiven { places, .. } => places.is_none(),
                Event::ProgramGiven { steps, invasion, .. } => steps.is_none() && invasion.is_none(),
                Event::StacksShuffled { knowledge, buildings, .. } => knowledge.is_none() && buildings.is_none(),
                Event::RumorDeck { cards, left } => left.is_some() && cards.len() <= 1,
                _ => false,
            };
            assert!(hidden && seats.len() <= 1, "game {i}: badly redacted {red:?}");
        }
    }
    let o = FallenKingdoms::outcome(&d.state).expect("over");
    assert_eq!(o.scores.len(), seats as usize);
    let mut counts = [0u32; 8];
    for e in &d.log {
        let k = match e.event {
            Event::BattleBegan { .. } => 0,
            Event::Intimidated { .. } => 1,
            Event::Exhausted { .. } => 2,
            Event::Rampaged { .. } => 3,
            Event::InvaderCardTaken { .. } => 4,
            Event::KingdomFell { .. } => 5,
            Event::BattleAsked { .. } => 6,
            Event::Retreated { attacker: false, .. } => 7,
            _ => continue,
        };
        counts[k] += 1;
    }
    (seats, d.state.turn, counts, kinds)
}

/// Every command `legal` lists is accepted by `decide`, and `legal` is
/// offered exactly to the seats that are asked something.
fn check_legal(d: &Driver, seat: Seat, legal: &[crate::Command], i: u64) {
    let mut rng = GameRng::new(d.seed.clone(), d.log.len() as u64 + 1);
    for c in legal {
        if let Err(e) = FallenKingdoms::decide(&d.state, seat, c, &mut rng) {
            panic!("game {i}: legal offers {c:?} to seat {seat}, and decide refuses it: {e}");
        }
    }
    for other in 0..d.state.seats {
        let asked = FallenKingdoms::pending(&d.state).iter().any(|p| p.seat == other);
        assert_eq!(!FallenKingdoms::legal(&d.state, other).is_empty(), asked, "game {i}: legal of seat {other}");
    }
}

fn check_secrets(s: &State, i: u64) {
    let before = s.phase == Phase::ChooseGods;
    for viewer in (0..s.seats).map(Viewer::Seat).chain([Viewer::Public]) {
        let v = FallenKingdoms::view(s, viewer);
        let text = v.to_string();
        assert!(!text.contains("knowledge_stack") && !text.contains("building_stack"), "game {i}: stacks shown");
        for (k, p) in v["players"].as_array().unwrap().iter().enumerate() {
            if viewer == Viewer::Seat(k as Seat) {
                continue;
            }
            assert!(p["dealt"].is_null(), "game {i}: {viewer:?} sees the gods dealt to seat {k}");
            assert!(p["defence"].is_null(), "game {i}: {viewer:?} sees the defence orders of seat {k}");
            if before {
                assert!(p["god"].is_null(), "game {i}: {viewer:?} sees the god of seat {k} before the reveal");
            }
            if s.rules.hidden_scoring && s.phase != Phase::Over {
                assert!(p["glory"].is_null(), "game {i}: {viewer:?} sees the hidden score of seat {k}");
            }
        }
    }
}

fn games() -> u64 {
    std::env::var("FALLEN_PLAYOUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(120)
}

#[test]
fn random_playouts_end_by_the_trophy_condition_and_reach_every_command_and_event() {
    let n = games();
    let mut turns = 0u64;
    let mut all = [0u32; 8];
    let mut kinds = Kinds::new();
    for i in 0..n {
        let (_, t, counts, k) = play(i, i % 20 == 0);
        turns += t as u64;
        for k in 0..8 {
            all[k] += counts[k];
        }
        for (name, c) in k {
            *kinds.entry(name).or_default() += c;
        }
    }
    eprintln!(
        "{n} games, {:.1} turns on average; battles {}, intimidations {}, exhaustions {}, rampages {}, invasions {}, kingdoms fallen {}, battles that asked {}, defenders' retreats {}",
        turns as f64 / n as f64,
        all[0],
        all[1],
        all[2],
        all[3],
        all[4],
        all[5],
        all[6],
        all[7]
    );
    for (k, what) in [
        "battles",
        "intimidations",
        "exhaustions",
        "rampages",
        "invasions",
        "fallen kingdoms",
        "battles that asked",
        "defenders' retreats",
    ]
    .iter()
    .enumerate()
    {
        assert!(all[k] > 0, "no {what} in {n} games: the playout does not reach that rule");
    }
    // Every command and every event the schemas name occurs at least once.
    let mut names = Vec::new();
    for (what, schema) in [
        ("command", serde_json::to_value(schemars::schema_for!(crate::Command)).unwrap()),
        ("event", serde_json::to_value(schemars::schema_for!(Event)).unwrap()),
    ] {
        let mut v = Vec::new();
        variants(&schema, &mut v);
        v.sort();
        v.dedup();
        assert!(v.len() > 10, "the {what} schema names its kinds: {v:?}");
        names.extend(v.into_iter().map(|k| format!("{what} {k}")));
    }
    let mut rare: Vec<(u64, &String)> = names.iter().map(|k| (kinds.get(k).copied().unwrap_or(0), k)).collect();
    rare.sort();
    let ten: Vec<String> = rare.iter().take(10).map(|(c, k)| format!("{k} {c}")).collect();
    eprintln!("the rarest ten of {} kinds: {}", names.len(), ten.join(", "));
    let missing: Vec<&String> = rare.iter().filter(|(c, _)| *c == 0).map(|(_, k)| *k).collect();
    assert!(missing.is_empty(), "never in {n} games: {missing:?}");
}
