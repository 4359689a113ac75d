//! Random playouts: seeded games across 2 to 6 players, both feud modes and
//! Advanced Outlawry, a quarter by the bot with standing orders, half mixing
//! the bot's and random legal choices, and a quarter where the bot hunts
//! among gothar who never act or play at random; each checked for panics,
//! dead ends, an end by Wordfame or elimination (both ends reached,
//! counted), replay equality and hidden information.

use runestone_engine::{Game, GameRng, Seat, Viewer};

use super::Driver;
use crate::bot::{choose, legal};
use crate::data::data;
use crate::state::{Command, State};
use crate::{Options, Thingvellir};

use runestone_engine::harness::Pick;

fn options_for(i: u64) -> Options {
    Options {
        sealed_feuds: i % 2 == 1,
        advanced_outlawry: i % 3 == 2,
        district_goods: i % 4 == 1,
        arson: i % 4 == 3,
        lawspeaker: None,
        // Each rules version in turn (2 and 3: season programs); the hunts
        // by versions 1 and 2, where the bot's hunt ends by elimination.
        rules_version: Some(match mode_of(i) {
            Mode::Hunt => 1 + ((i / 4 + i / 8) % 2) as u32,
            _ => 1 + ((i / 4 + i / 8) % 3) as u32,
        }),
    }
}

/// No card id that is secret from `viewer` appears in its view: Goods show only
/// Worth, Bondi only their action side, hands only to their holder.
fn check_secrets(s: &State, viewer: Viewer, game: u64) {
    let v = serde_json::to_value(crate::view::view(s, viewer)).expect("view");
    for (i, p) in v["players"].as_array().expect("players").iter().enumerate() {
        for g in p["wealth"].as_array().expect("wealth") {
            assert!(
                g.get("id").is_none() && g.get("colour").is_none(),
                "game {game}: a Good shows more than its Worth"
            );
        }
        for b in p["oaths"].as_array().expect("oaths") {
            assert!(
                b.get("worth").is_none() && b.get("id").is_none(),
                "game {game}: a Bondi shows more than its action side"
            );
        }
        if viewer != Viewer::Seat(i as Seat) {
            assert!(p["hand"].is_null(), "game {game}: seat {i}'s hand shows to {viewer:?}");
            assert!(p["orders"].is_null(), "game {game}: seat {i}'s orders show to {viewer:?}");
            assert!(p["answers"].is_null(), "game {game}: seat {i}'s answers show to {viewer:?}");
            assert!(p["season"].is_null(), "game {game}: seat {i}'s program shows to {viewer:?}");
        }
    }
    assert!(v.get("deck").is_none(), "game {game}: the orlog's order shows");
}

/// The kinds of decision counted in the input report.
const KINDS: [&str; 7] = ["orders", "propose", "vote", "resolve", "choose", "feud", "challenge"];

fn kind_of(s: &State, seat: Seat, c: &Command) -> usize {
    use crate::rules::Ask;
    if matches!(c, Command::Orders { .. }) {
        return 0;
    }
    match crate::rules::ask_of(s, seat) {
        Some(Ask::Propose) => 1,
        Some(Ask::Vote) => 2,
        Some(Ask::Resolve(_)) => 3,
        Some(Ask::Choose(_)) => 4,
        Some(Ask::Feud) => 5,
        _ => 6,
    }
}

/// Who plays a playout game.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// Every seat is the bot, with standing orders.
    Bots,
    /// Every seat takes the bot's choice two times in three, else a random legal command.
    Mixed,
    /// Two or three gothar; seat 0 is the bot, hunting for the other end
    /// ("last one left with a farm in Iceland"); the others are gothar who
    /// never act (the most passive answers) or, in every other such game,
    /// play random legal commands.
    Hunt,
}

fn mode_of(i: u64) -> Mode {
    match i % 4 {
        2 => Mode::Hunt,
        0 => Mode::Bots,
        _ => Mode::Mixed,
    }
}

/// Every command's type, by the name it has in the log.
const COMMANDS: [&str; 29] = [
    "propose",
    "vote",
    "orders",
    "choices",
    "raze",
    "remove_farm",
    "replace",
    "subsume",
    "expand",
    "ride",
    "sail_out",
    "return_laden",
    "keep",
    "draw_pledge",
    "swear",
    "send_off",
    "foster_persona",
    "give",
    "murder",
    "burn",
    "capture",
    "pass",
    "commit",
    "accept",
    "seal",
    "season",
    "answers",
    "challenge",
    // Not a type of its own: a murder of several targets (rules version 3).
    "murder_also",
];

/// Every event's type.
const EVENTS: [&str; 6] = ["setup", "reshuffled", "acted", "hidden", "program_step", "answered"];

/// A command's type as the log names it (`murder_also` for a murder with further targets).
fn command_type(c: &Command) -> &'static str {
    let v = serde_json::to_value(c).expect("a command serialises");
    let name = v["type"].as_str().expect("a tagged command");
    if matches!(c, Command::Murder { also, .. } if !also.is_empty()) {
        return "murder_also";
    }
    COMMANDS.iter().find(|k| **k == name).copied().unwrap_or_else(|| panic!("{name} is missing from COMMANDS"))
}

/// Count each command and event type in a log: commands given by hand
/// (`Acted`, or hidden to others) and those a program or a standing answer gave.
fn count_types(
    log: &[runestone_engine::Emit<crate::state::Event>],
    counts: &mut std::collections::BTreeMap<&'static str, u64>,
) {
    use crate::state::Event;
    for e in log {
        let v = serde_json::to_value(&e.event).expect("an event serialises");
        let name = v["type"].as_str().expect("a tagged event");
        let name =
            EVENTS.iter().find(|k| **k == name).copied().unwrap_or_else(|| panic!("{name} is missing from EVENTS"));
        *counts.entry(name).or_default() += 1;
        // The public form of a secret event (the others' view of it).
        if let Some(Event::Hidden { .. }) = &e.redacted {
            *counts.entry("hidden").or_default() += 1;
        }
        let command = match &e.event {
            Event::Acted { command, .. } => Some(command),
            Event::ProgramStep { command, .. } | Event::Answered { command, .. } => command.as_ref(),
            _ => None,
        };
        if let Some(c) = command {
            *counts.entry(command_type(c)).or_default() += 1;
        }
    }
}

/// Play one game; answer (seats, inputs per seat, rounds, ended by elimination, inputs by kind).
fn play(i: u64, mode: Mode, check_views: bool) -> (u8, Vec<u32>, u32, bool, [u64; 7]) {
    play_counting(i, mode, check_views, &mut Default::default())
}

/// `play`, counting each command and event type of the game's log into `counts`.
fn play_counting(
    i: u64,
    mode: Mode,
    check_views: bool,
    counts: &mut std::collections::BTreeMap<&'static str, u64>,
) -> (u8, Vec<u32>, u32, bool, [u64; 7]) {
    let mut kinds = [0u64; 7];
    // A hunt is among two or three gothar: with more, the bot's captures spend
    // its Stead tokens before the last rival is in reach.
    let seats = if mode == Mode::Hunt { 2 + ((i / 8) % 2) as u8 } else { 2 + (i % 5) as u8 };
    let opts = options_for(i);
    let mut d = Driver::new(&opts, seats, i).unwrap_or_else(|e| panic!("game {i}: setup refused: {e}"));
    let mut pick = Pick(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    if i % 3 == 1 {
        // Every seat asks to choose the farms it razes or removes and the Foster
        // pool's replacements (not counted as inputs of play).
        for seat in 0..seats {
            let ask = Command::Choices { choices: crate::state::Choices { farm: true, pool: true } };
            d.act(seat, &ask).unwrap_or_else(|e| panic!("game {i}: standing choices refused: {e}"));
        }
        d.inputs = vec![0; seats as usize];
    }
    if i % 5 == 3 && opts.rules_version.unwrap_or(1) >= 2 {
        // Every seat gives the bot's standing answers (as a player would on
        // the page), so they decide the decisions asked outside its actions.
        for seat in 0..seats {
            let give = Command::Answers { answers: crate::bot::bot_answers() };
            d.act(seat, &give).unwrap_or_else(|e| panic!("game {i}: standing answers refused: {e}"));
        }
        d.inputs = vec![0; seats as usize];
    }
    let mut commands = 0;
    while Thingvellir::outcome(&d.state).is_none() {
        commands += 1;
        assert!(commands < 30_000, "game {i}: endless (round {})", d.state.round);
        assert!(
            d.state.round < 400,
            "game {i}: no end after 400 rounds: {:?}",
            d.state
                .players
                .iter()
                .enumerate()
                .map(|(s, p)| (
                    p.wordfame,
                    p.farms,
                    d.state.districts_of(s as Seat),
                    p.oaths.len(),
                    p.wealth.len(),
                    p.longhall
                ))
                .collect::<Vec<_>>()
        );
        let waiting = d.waiting();
        assert!(!waiting.is_empty(), "game {i}: nobody to wait for but not over");
        let seat = waiting[pick.next(waiting.len())];
        let options = legal(&d.state, seat);
        assert!(
            !options.is_empty(),
            "game {i}: seat {seat} has no legal command ({:?})",
            crate::rules::ask_of(&d.state, seat)
        );
        if check_views && commands % 7 == 0 {
            for c in &options {
                let mut rng = GameRng::new(d.seed.clone(), 99);
                Thingvellir::decide(&d.state, seat, c, &mut rng)
                    .unwrap_or_else(|e| panic!("game {i}: legal {c:?} refused: {e}"));
            }
            for v in (0..seats).map(Viewer::Seat).chain([Viewer::Public]) {
                check_secrets(&d.state, v, i);
            }
        }
        let c: Command = match mode {
            Mode::Bots => choose(&d.state, seat, true).expect("the bot has a move"),
            Mode::Hunt if seat == 0 => choose(&d.state, seat, true).expect("the bot has a move"),
            Mode::Hunt if (i / 4).is_multiple_of(2) => crate::bot::passive(&d.state, seat).expect("a passive answer"),
            Mode::Mixed if pick.next(3) != 0 => choose(&d.state, seat, false).expect("the bot has a move"),
            _ => options[pick.next(options.len())].clone(),
        };
        kinds[kind_of(&d.state, seat, &c)] += 1;
        d.act(seat, &c).unwrap_or_else(|e| panic!("game {i}: seat {seat}'s {c:?} refused: {e}"));
    }
    // Replay equals the live state.
    let mut replay = State::default();
    for e in &d.log {
        Thingvellir::apply(&mut replay, &e.event);
    }
    assert_eq!(
        serde_json::to_value(&replay).expect("state"),
        serde_json::to_value(&d.state).expect("state"),
        "game {i}: replay differs"
    );
    count_types(&d.log, counts);
    let alive = d.state.alive().count();
    let by_fame = d.state.players.iter().any(|p| p.wordfame >= crate::seasons::FAME_TO_WIN);
    assert!(by_fame || alive <= 1, "game {i}: over without an end condition");
    let _ = data();
    (seats, d.inputs.clone(), d.state.round, !by_fame, kinds)
}

fn games() -> u64 {
    std::env::var("THINGVELLIR_PLAYOUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(60)
}

/// Both ends of the game are reached, each counted: "first to 22 Wordfame
/// or last one left with a farm in Iceland".
#[test]
fn random_playouts_end_without_dead_ends_and_replay_exactly() {
    let (mut elim, mut fame, mut rounds) = (0, 0, 0u64);
    let mut by_mode: Vec<(Mode, u32, u32)> =
        [Mode::Bots, Mode::Mixed, Mode::Hunt].into_iter().map(|m| (m, 0, 0)).collect();
    for i in 0..games() {
        let mode = mode_of(i);
        let r = play(i, mode, true);
        let e = by_mode.iter_mut().find(|e| e.0 == mode).expect("a mode");
        if r.3 {
            elim += 1;
            e.2 += 1;
        } else {
            fame += 1;
            e.1 += 1;
        }
        rounds += r.2 as u64;
    }
    println!(
        "{} games: {fame} ended by 22 Wordfame, {elim} by elimination; {:.1} rounds per game",
        games(),
        rounds as f64 / games() as f64
    );
    for (mode, fame, elim) in &by_mode {
        println!("  {mode:?}: {fame} by Wordfame, {elim} by elimination");
    }
    assert!(fame > 0, "no game ended by 22 Wordfame");
    assert!(elim > 0, "no game ended with the last one left with a farm in Iceland");
}

/// Inputs per player per round in bot games with standing voting orders and
/// sealed feuds (printed; run with `--nocapture`).
#[test]
fn bot_games_with_standing_orders_and_sealed_feuds_report_inputs() {
    let n = games().min(200);
    let mut per = vec![(0u64, 0u64, 0u64, 0u64); 7];
    let mut kinds = [0u64; 7];
    let mut seat_rounds = 0u64;
    for k in 0..n {
        let i = k * 2 + 1; // odd games have sealed feuds
        let (seats, inputs, rounds, elim, k) = play(i, Mode::Bots, false);
        for (a, b) in kinds.iter_mut().zip(k) {
            *a += b;
        }
        seat_rounds += rounds as u64 * seats as u64;
        let e = &mut per[seats as usize];
        e.0 += 1;
        e.1 += inputs.iter().map(|x| *x as u64).sum::<u64>();
        e.2 += rounds as u64 * seats as u64;
        e.3 += elim as u64;
    }
    for (seats, (games, inputs, seat_rounds, elim)) in per.iter().enumerate().filter(|(_, e)| e.0 > 0) {
        println!(
            "{seats} players: {games} games, {:.1} rounds per game, {:.2} inputs per player per round, {elim} ended by elimination",
            *seat_rounds as f64 / *games as f64 / seats as f64,
            *inputs as f64 / *seat_rounds as f64
        );
    }
    let by_kind: Vec<String> =
        KINDS.iter().zip(kinds).map(|(k, n)| format!("{k} {:.2}", n as f64 / seat_rounds as f64)).collect();
    println!("per player per round, by kind: {}", by_kind.join(", "));
}

/// Every command type and every event type occurs in the playouts (run
/// with `THINGVELLIR_PLAYOUTS=2000` in release for the full measure), and
/// the rarest ten are printed with their counts. `draw_pledge` is the one
/// exception: a Pledge draws as its step begins ("Pledge: draw ..." is no
/// choice), so the command is accepted only in logs from before that.
#[test]
fn every_command_and_event_type_occurs_in_the_playouts() {
    let n = games().max(60);
    let mut counts = std::collections::BTreeMap::new();
    for i in 0..n {
        play_counting(i, mode_of(i), false, &mut counts);
    }
    // Bot games by the newest rules with Arson, Advanced Outlawry and each
    // feud mode, where the bot reaches its rarest rules.
    for k in 0..n / 2 {
        let i = 1_000_000 + k;
        play_newest(i, &mut counts);
    }
    let mut all: Vec<(&str, u64)> =
        COMMANDS.iter().chain(EVENTS.iter()).map(|k| (*k, counts.get(k).copied().unwrap_or(0))).collect();
    all.sort_by_key(|x| (x.1, x.0));
    let rarest: Vec<String> =
        all.iter().filter(|x| x.0 != "draw_pledge").take(10).map(|(k, n)| format!("{k} {n}")).collect();
    println!("{n} playouts and {} bot games by the newest rules; the rarest ten: {}", n / 2, rarest.join(", "));
    let missing: Vec<&str> = all.iter().filter(|x| x.1 == 0 && x.0 != "draw_pledge").map(|x| x.0).collect();
    assert!(missing.is_empty(), "never occurred: {missing:?}");
}

/// A bot game by the newest rules with every designed option on in turn.
fn play_newest(i: u64, counts: &mut std::collections::BTreeMap<&'static str, u64>) {
    let seats = 2 + (i % 5) as u8;
    let opts = Options {
        sealed_feuds: i % 2 == 1,
        advanced_outlawry: !i.is_multiple_of(3),
        district_goods: i % 4 == 1,
        arson: true,
        lawspeaker: None,
        rules_version: None,
    };
    let mut d = Driver::new(&Options { rules_version: Some(crate::RULES_VERSION), ..opts }, seats, i)
        .unwrap_or_else(|e| panic!("game {i}: setup refused: {e}"));
    let mut pick = Pick(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut commands = 0;
    while Thingvellir::outcome(&d.state).is_none() {
        commands += 1;
        assert!(commands < 30_000 && d.state.round < 400, "game {i}: no end");
        let waiting = d.waiting();
        assert!(!waiting.is_empty(), "game {i}: nobody to wait for but not over");
        let seat = waiting[pick.next(waiting.len())];
        let c = choose(&d.state, seat, true).expect("the bot has a move");
        d.act(seat, &c).unwrap_or_else(|e| panic!("game {i}: seat {seat}'s {c:?} refused: {e}"));
    }
    let mut replay = State::default();
    for e in &d.log {
        Thingvellir::apply(&mut replay, &e.event);
    }
    assert_eq!(
        serde_json::to_value(&replay).expect("state"),
        serde_json::to_value(&d.state).expect("state"),
        "game {i}: replay differs"
    );
    count_types(&d.log, counts);
}
