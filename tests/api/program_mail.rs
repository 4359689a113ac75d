//! A slow game that waits on nobody twice: a 3-clan Bardagi game over a
//! real SMTP listener where each clan only ever answers the plan mail, with
//! the program of its turn, reaches its end; the log and the next mail tell
//! each programmed turn in words.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::browser::Browser;
use crate::helpers::{str_of, TestApp};
use crate::smtp::{Received, SmtpSink};

const NAMES: [&str; 3] = ["Ása", "Bjarni", "Dís"];

fn address(seat: usize) -> String {
    format!("clan{}@example.org", seat + 1)
}

/// The seat token carried by a mail's link.
fn token_in(m: &Received) -> String {
    let text = m.text();
    let at = text.find("token=").unwrap_or_else(|| panic!("no link in:\n{text}"));
    text[at + 6..].split_whitespace().next().unwrap().to_owned()
}

/// The first mail to `seat` after the first `skip` of its mails that asks
/// for round `round`'s plan (waiting for it a generous while).
fn plan_mail(sink: &SmtpSink, seat: usize, round: u64) -> Received {
    let asks = format!("choose 6 of your 24 cards secretly for round {round}");
    let t = Instant::now();
    loop {
        let mine: Vec<Received> = sink.received().into_iter().filter(|m| m.to[0] == address(seat)).collect();
        if let Some(m) = mine.iter().find(|m| m.text().contains(&asks)) {
            return m.clone();
        }
        assert!(
            t.elapsed() < Duration::from_secs(180),
            "no mail asks {} for the plan of round {round}; their mails: {:#?}",
            NAMES[seat],
            mine.iter().map(|m| m.header("Subject")).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// The plan a careful client sends from the view its mail's link opens: the
/// suggested plan with its program (the turn as it would be played from the
/// board as it is now, each step skipped when refused by then), ending the
/// turn, or else letting the bot play the rest of it.
pub(crate) fn plan_with_program(view: &Value) -> Value {
    let legal = view["legal"].as_array().expect("legal commands");
    let plan = &legal[0];
    assert_eq!(plan["type"], "Plan", "the suggested plan comes first: {plan}");
    let mut program = legal
        .iter()
        .find(|c| c["type"] == "Program")
        .cloned()
        .unwrap_or_else(|| json!({"type": "Program", "hand": plan["hand"], "steps": []}));
    let steps = program["steps"].as_array_mut().unwrap();
    if steps.last().is_some_and(|s| s["step"]["type"] == "EndTurn") {
        steps.pop();
    }
    steps.push(json!({"step": {"type": "EndTurn"}, "fallback": {"type": "Bot"}}));
    program
}

#[test]
fn a_bardagi_game_by_mail_where_each_clan_only_answers_the_plan_mail_reaches_its_end() {
    let sink = SmtpSink::start();
    let app = TestApp::spawn_with(TestApp::smtp_to(sink.port));
    let seats: Vec<Value> = NAMES.iter().enumerate().map(|(i, n)| json!({"name": n, "email": address(i)})).collect();
    let created = app.post("/api/v1/games", None, &json!({"ruleset": "bardagi", "seats": seats})).ok().clone();
    let game = str_of(&created, "game_id").to_owned();
    let mut round = 1;
    let mut programs = 0;
    loop {
        let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
        if summary["status"] == "over" {
            break;
        }
        // Only the plan is ever asked: every clan, nothing else.
        let pending = summary["pending"].as_array().unwrap();
        let kinds: Vec<&str> = pending.iter().filter_map(|p| p["kind"].as_str()).collect();
        assert_eq!(kinds, ["plan"; 3], "round {round}: only the plan is asked: {summary}");
        for (seat, name) in NAMES.iter().enumerate() {
            let mail = plan_mail(&sink, seat, round);
            let text = mail.text();
            if round > 1 {
                // The mail tells what the clan's program did last round.
                let own = format!("{name}'s programmed turn runs");
                assert!(text.contains(&own), "round {round}: {name}'s mail tells its programmed turn:\n{text}");
                assert!(text.contains(&format!("{name}'s program, step 1: ")), "{text}");
            }
            let token = token_in(&mail);
            if round == 1 && seat == 0 {
                // The link leads to the plan page, where plan and program
                // are composed in one form.
                let mut b = Browser::new(&app);
                b.sign_in(&game, &token);
                let page = b.get(&format!("/games/{game}"));
                assert!(page.html.contains("id=\"plan-form\"") && page.html.contains("id=\"program-steps\""));
            }
            let view = app.get(&format!("/api/v1/games/{game}/view"), Some(&token)).ok().clone();
            let command = plan_with_program(&view);
            app.submit(&game, &token, command).ok();
            programs += 1;
        }
        round += 1;
        assert!(round < 30, "no end after {round} rounds");
    }
    let rounds = round - 1;
    assert_eq!(programs, 3 * rounds, "one answer per clan per round");

    // The log tells every programmed turn in words; none stopped to ask.
    let events = app.get(&format!("/api/v1/games/{game}/events"), None).ok()["events"].as_array().unwrap().clone();
    let texts: Vec<&str> = events.iter().filter_map(|e| e["text"].as_str()).collect();
    let runs = texts.iter().filter(|t| t.contains("'s programmed turn runs")).count();
    assert_eq!(runs as u64, 3 * rounds, "every turn of the game ran as programmed");
    let steps: Vec<&&str> = texts.iter().filter(|t| t.contains("'s program, step ")).collect();
    assert!(steps.len() as u64 >= 3 * rounds, "{steps:#?}");
    assert!(steps.iter().all(|t| !t.contains("stopped to ask")), "{steps:#?}");
    assert!(steps.iter().any(|t| t.ends_with(": done")), "{steps:#?}");

    // No other mail asked anyone for anything: invitations, plan mails and
    // the end.
    let all = sink.wait_for(3 * rounds as usize + 3, 120);
    let t = Instant::now();
    let over = loop {
        let over: Vec<Received> =
            sink.received().into_iter().filter(|m| m.header("Subject").unwrap().contains("is over")).collect();
        if over.len() == 3 || t.elapsed() > Duration::from_secs(120) {
            break over;
        }
        std::thread::sleep(Duration::from_millis(25));
    };
    assert_eq!(over.len(), 3, "every clan is told of the end");
    for m in all.iter().filter(|m| !m.header("Subject").unwrap().contains("is over")) {
        let text = m.text();
        assert!(
            text.contains("choose 6 of your 24 cards secretly for round"),
            "a mail asked for more than the plan:\n{text}"
        );
    }
}
