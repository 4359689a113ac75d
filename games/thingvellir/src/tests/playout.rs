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
        // Every other game by the newest rules (season programs).
        rules_version: Some(1 + ((i / 4 + i / 8) % 2) as u32),
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

/// Play one game; answer (seats, inputs per seat, rounds, ended by elimination, inputs by kind).
fn play(i: u64, mode: Mode, check_views: bool) -> (u8, Vec<u32>, u32, bool, [u64; 7]) {
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
