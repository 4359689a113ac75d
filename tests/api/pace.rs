//! Mail at the pace of the game: four players each answer only the mails
//! they receive, over a real SMTP listener, on a clock the test moves; the
//! game reaches its end with at most one mail per seat per wait, and never
//! two mails to one seat within five minutes.
//!
//! The server gathers each seat's mail for `mail.gather_minutes` (5 here)
//! before it leaves. The test moves the clock in steps a little longer than
//! that, and before each step waits until the outbox is empty (everything
//! due is sent, nothing else waits: the game has no deadlines), so each mail
//! is dated by the server's clock at the step it left in.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use runestone::clock::ManualClock;
use serde_json::{json, Value};

use crate::helpers::{settings, str_of, TestApp};
use crate::smtp::{Received, SmtpSink};

const PLAYERS: usize = 4;

fn address(seat: usize) -> String {
    format!("player{}@example.org", seat + 1)
}

/// The seat token carried by a mail's link.
fn token_in(m: &Received) -> Option<String> {
    let text = m.text();
    let at = text.find("token=")?;
    text[at + 6..].split_whitespace().next().map(str::to_owned)
}

/// The rounds a game played, from its public view at the end: Bardagi's
/// rounds, Realms' seasons, Fallen Kingdoms' turns, Thingvellir's rounds.
fn rounds_played(ruleset: &str, view: &Value) -> u64 {
    let n = |k: &str| view[k].as_u64().unwrap_or_else(|| panic!("{ruleset}: no {k} in the view: {view}"));
    match ruleset {
        "bardagi" => n("round"),
        "realms" => n("years") * 4,
        "fallen-kingdoms" => n("turn"),
        "thingvellir" => n("round"),
        other => panic!("no rounds known for {other}"),
    }
}

/// Messages waiting in the outbox (the metrics' gauge).
fn outbox_depth(app: &TestApp) -> u64 {
    let metrics = app.get("/metrics", None).text;
    metrics
        .lines()
        .find_map(|l| l.strip_prefix("runestone_outbox_depth "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no outbox depth in the metrics:\n{metrics}"))
}

/// The answer a player gives from the view their mail's link opens: in
/// Bardagi the plan with the program of the turn, in Fallen Kingdoms the
/// setup or the turn's program as [`fallen_kingdoms_program`] composes
/// it, else the first legal command (the suggested one; in Thingvellir the
/// season's program). None when nothing is asked of them.
fn answer(view: &Value) -> Option<Value> {
    let legal = view["legal"].as_array().filter(|l| !l.is_empty())?;
    if view["ruleset"] == "bardagi" && legal[0]["type"] == "Plan" {
        return Some(crate::program_mail::plan_with_program(view));
    }
    if view["ruleset"] == "fallen-kingdoms" {
        if let Some(program) = fallen_kingdoms_program(view) {
            return Some(program);
        }
    }
    Some(legal[0].clone())
}

/// A Fallen Kingdoms seat's setup or turn program, composed as the seat
/// page composes it: the steps of the turn as the page suggests them from
/// the map as it is now (its god's power, production, takes, placement and
/// movement), each with the fallback a careful player picks from the
/// kernel's kinds: the god's power is left out when impossible, production
/// and placement to the bot's choice then, a take is skipped, the movement
/// falls back to staying put. At the invasion the seat passes while its
/// kingdom stands strong, and asks to be asked once it is down to three
/// cities. In setup: the first god dealt and the suggested cities, each
/// falling back to the bot's choice when the city is no longer open.
pub(crate) fn fallen_kingdoms_program(view: &Value) -> Option<Value> {
    let legal = view["legal"].as_array()?;
    match legal.first()?["type"].as_str()? {
        "choose_god" => {
            let mut setup = legal.iter().find(|c| c["type"] == "setup")?.clone();
            setup["god"] = legal[0]["god"].clone();
            for place in setup["places"].as_array_mut()? {
                place["fallback"] = json!({"type": "Bot"});
            }
            Some(setup)
        }
        "program" => {
            let mut program = legal
                .iter()
                .find(|c| c["type"] == "program" && c["steps"].as_array().is_some_and(|s| !s.is_empty()))?
                .clone();
            for step in program["steps"].as_array_mut()? {
                step["fallback"] = match step["step"]["type"].as_str()? {
                    "use_god" | "skip_god" => json!({"type": "Skip"}),
                    "take_knowledge" | "take_building" => json!({"type": "Skip"}),
                    "move" => json!({"type": "Try", "step": {"type": "move", "moves": [], "attacks": []}}),
                    _ => json!({"type": "Bot"}),
                };
            }
            let me = view["viewer"]["seat"].as_u64()?;
            let cities = view["view"]["cities"].as_array()?.iter().filter(|c| c["owner"].as_u64() == Some(me)).count();
            program["invasion"] = if cities > 3 { json!({"type": "Pass"}) } else { json!({"type": "Ask"}) };
            Some(program)
        }
        _ => None,
    }
}

/// What one game came to: each seat's mails with their dates, and the rounds.
struct Paced {
    mails: Vec<Vec<(DateTime<Utc>, String)>>,
    rounds: u64,
    answers: usize,
}

fn play_by_mail(ruleset: &str, options: Value) -> Paced {
    let sink = SmtpSink::start();
    let tmp = tempfile::tempdir().unwrap();
    let mut s = settings(tmp.path());
    TestApp::smtp_to(sink.port)(&mut s);
    s.mail.gather_minutes = 5.0;
    let clock = Arc::new(ManualClock::new("2026-03-02T09:00:00Z".parse().unwrap()));
    let app = TestApp::start_with_clock(s, clock.clone());
    let seats: Vec<Value> =
        (0..PLAYERS).map(|i| json!({"name": format!("Player {}", i + 1), "email": address(i)})).collect();
    let created =
        app.post("/api/v1/games", None, &json!({"ruleset": ruleset, "options": options, "seats": seats})).ok().clone();
    let game = str_of(&created, "game_id").to_owned();

    let mut seen = 0;
    let mut handled: BTreeSet<String> = BTreeSet::new();
    let mut answers = 0;
    let mut idle = 0;
    for step in 0.. {
        assert!(step < 2000, "{ruleset}: no end after {step} steps");
        // Every mail that arrived is read by its player, who answers what it
        // asks (from the view its link opens), if it still asks anything.
        let received = sink.received();
        let fresh: Vec<Received> = received[seen..].to_vec();
        seen = received.len();
        let mut answered = 0;
        for m in &fresh {
            let id = m.header("Message-ID").expect("a Message-ID");
            assert!(handled.insert(id.clone()), "{ruleset}: a mail came twice: {id}");
            let Some(token) = token_in(m) else { continue };
            let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&token));
            if view.status != 200 {
                continue;
            }
            let view = view.json.clone();
            if let Some(command) = answer(&view) {
                let head = view["head"].as_u64().expect("a head");
                app.submit_at(&game, &token, command, Some(head)).ok();
                answered += 1;
            }
        }
        answers += answered;
        let over = app.get(&format!("/api/v1/games/{game}"), None).ok()["status"] == "over";
        let told_the_end = sink.received().iter().filter(|m| m.header("Subject").unwrap().contains("is over")).count();
        if over && told_the_end == PLAYERS && outbox_depth(&app) == 0 {
            break;
        }
        idle = if answered == 0 && fresh.is_empty() { idle + 1 } else { 0 };
        let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
        assert!(idle < 4, "{ruleset}: the game waits, and nobody was mailed: {}", summary["pending"]);
        // The clock moves on past the gathering time; everything due leaves.
        clock.advance(chrono::Duration::minutes(5) + chrono::Duration::seconds(1));
        let t = Instant::now();
        while outbox_depth(&app) > 0 {
            assert!(t.elapsed() < Duration::from_secs(120), "{ruleset}: the outbox does not empty");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let view = app.get(&format!("/api/v1/games/{game}/view"), None).ok().clone();
    let rounds = rounds_played(ruleset, &view["view"]);

    let mut mails = vec![Vec::new(); PLAYERS];
    for m in sink.received() {
        let seat = (0..PLAYERS).find(|&s| m.to[0] == address(s)).expect("a player's mail");
        let date = DateTime::parse_from_rfc2822(&m.header("Date").expect("a Date")).expect("a date").to_utc();
        mails[seat].push((date, m.header("Subject").unwrap_or_default()));
    }
    Paced { mails, rounds, answers }
}

/// One game by mail: no two mails to a seat within five minutes, and at
/// most `mean_at_most` mails per seat per round.
fn check(ruleset: &str, options: Value, mean_at_most: Option<f64>) {
    let paced = play_by_mail(ruleset, options);
    let mut per_seat = BTreeMap::new();
    for (seat, mails) in paced.mails.iter().enumerate() {
        for pair in mails.windows(2) {
            let gap = pair[1].0 - pair[0].0;
            assert!(
                gap >= chrono::Duration::minutes(5),
                "{ruleset}: two mails to seat {seat} {} s apart: {:?} then {:?}",
                gap.num_seconds(),
                pair[0],
                pair[1]
            );
        }
        per_seat.insert(seat, mails.len());
    }
    let total: usize = per_seat.values().sum();
    let mean = total as f64 / (PLAYERS as f64 * paced.rounds as f64);
    eprintln!(
        "{ruleset}, {PLAYERS} players, {} rounds: mails per seat {per_seat:?} (invitation and end included), \
         {mean:.2} per seat per round; {} answers",
        paced.rounds, paced.answers
    );
    if let Some(most) = mean_at_most {
        assert!(mean <= most, "{ruleset}: {mean:.2} mails per seat per round");
    }
}

#[test]
fn a_bardagi_game_by_mail_sends_each_seat_about_one_mail_per_round() {
    check("bardagi", json!({}), Some(1.5));
}

#[test]
fn a_realms_game_by_mail_sends_each_seat_about_one_mail_per_round() {
    check("realms", json!({}), Some(1.5));
}

#[test]
fn a_fallen_kingdoms_game_by_mail_where_each_seat_gives_its_program_sends_about_one_mail_per_round() {
    check("fallen-kingdoms", json!({}), Some(1.5));
}

#[test]
fn a_thingvellir_game_by_mail_sends_each_seat_about_one_mail_per_round() {
    check("thingvellir", json!({}), Some(1.5));
}
