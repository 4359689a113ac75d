//! Mail at the pace of the game, against the outbox itself: a Fallen
//! Kingdoms game played step by step (rules version 1, each step of a turn
//! its own decision) whose players answer on their pages, each decision within
//! half a minute or after several (many decisions of one seat in a row,
//! decisions reaching a seat while its mail gathers), with the server stopped
//! and started again on the same store halfway. Sending is played by the
//! test: what is due leaves the outbox at each step.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::json;

use super::test_service;
use crate::auth::{Claims, Role};
use crate::clock::{Clock as _, ManualClock};
use crate::mail::{decode, queue_due, Mail};
use crate::store::memory::MemoryStore;
use crate::store::{EventStore, Side, SideWrite};

const SEATS: usize = 3;

fn address(seat: usize) -> String {
    format!("player{}@example.org", seat + 1)
}

fn seat_of(mail: &Mail) -> usize {
    (0..SEATS).find(|s| mail.to == address(*s)).expect("a player's mail")
}

/// The outbox's queued mails: (due ms, key, mail).
fn queued(store: &MemoryStore) -> Vec<(i64, Vec<u8>, Mail)> {
    let rows = store.scan(Side::Outbox, b"q", 100_000).expect("the outbox");
    rows.into_iter().map(|(k, v)| (queue_due(&k).expect("a due time"), k, decode(&v).expect("a mail"))).collect()
}

#[tokio::test]
async fn a_seat_gets_one_mail_per_gathering_time_however_many_decisions_reach_it() {
    let store = Arc::new(MemoryStore::default());
    let clock = Arc::new(ManualClock::new("2026-03-02T09:00:00Z".parse().unwrap()));
    let start = || Arc::new(test_service(store.clone(), clock.clone(), 64, 1 << 24));
    let mut svc = start();
    let seats: Vec<_> = (0..SEATS).map(|i| json!({"name": format!("Player {}", i + 1), "email": address(i)})).collect();
    let created = svc
        .create(json!({"ruleset": "fallen-kingdoms", "options": {"rules_version": 1}, "seats": seats}), None)
        .await
        .expect("create")
        .body;
    let game = created["game_id"].as_str().expect("a game id").to_owned();
    let claims =
        |seat: u8| Claims { sub: game.clone(), role: Role::Seat, seat: Some(seat), gen: 0, iat: 0, exp: i64::MAX };

    // What each seat was sent: (due ms, text).
    let mut sent: BTreeMap<usize, Vec<(i64, String)>> = BTreeMap::new();
    let mut decisions = 0;
    let mut elapsed = 0;
    let gather = 5 * 60_000;
    loop {
        if decisions == 60 {
            // The server stops and starts again on the same store.
            svc = start();
        }
        let t = svc.game_table(&game).await.expect("the game");
        if t.is_over() {
            break;
        }
        let p = t.pending().into_iter().find(|p| !p.submitted).expect("a decision owed");
        let cmd = t.fallback(p.seat).expect("a choice");
        svc.submit(&game, &claims(p.seat), json!({"command": cmd, "expected_seq": t.head}), None)
            .await
            .unwrap_or_else(|e| panic!("seat {} answers {cmd}: {e}", p.seat));
        decisions += 1;
        // Players answer quickly, or after a while.
        let waited = [30, 30, 240, 30, 420][decisions % 5];
        elapsed += waited;
        clock.advance(chrono::Duration::seconds(waited));
        let now = clock.now().timestamp_millis();

        // What is due leaves.
        let mut unsent: BTreeMap<usize, Vec<Mail>> = BTreeMap::new();
        let mut gone = Vec::new();
        for (due, key, mail) in queued(&store) {
            if due <= now {
                sent.entry(seat_of(&mail)).or_default().push((due, mail.text.clone()));
                gone.push(SideWrite { side: Side::Outbox, key, value: None });
            } else {
                unsent.entry(seat_of(&mail)).or_default().push(mail);
            }
        }
        store.put(gone).await.expect("sent");

        // At most one mail gathers per seat, and a seat asked something
        // is told it: by its gathering mail, else by the last it was sent.
        let t = svc.game_table(&game).await.expect("the game");
        for seat in 0..SEATS {
            let waiting = unsent.get(&seat).map_or(0, Vec::len);
            assert!(waiting <= 1, "after {decisions} decisions seat {seat} has {waiting} mails waiting");
            let asked: Vec<String> =
                t.pending().into_iter().filter(|p| p.seat as usize == seat && !p.submitted).map(|p| p.prompt).collect();
            if asked.is_empty() {
                let kinds: Vec<&str> = unsent.get(&seat).into_iter().flatten().map(|m| m.kind.as_str()).collect();
                assert!(
                    kinds.iter().all(|k| *k == "game_over"),
                    "after {decisions} decisions a mail waits for seat {seat}, which is asked nothing: {kinds:?}"
                );
                continue;
            }
            let last = match unsent.get(&seat).and_then(|m| m.first()) {
                Some(m) => m.text.clone(),
                None => sent.get(&seat).and_then(|s| s.last()).map(|(_, s)| s.clone()).unwrap_or_default(),
            };
            assert!(
                asked.iter().all(|a| last.contains(a.as_str())),
                "after {decisions} decisions seat {seat} is asked {asked:?} and its last mail says {last:?}"
            );
        }
    }
    assert!(decisions > 100, "the game went on through the restart: {decisions} decisions");
    let mut counts = Vec::new();
    for (seat, mails) in &sent {
        for pair in mails.windows(2) {
            assert!(pair[1].0 - pair[0].0 >= gather, "seat {seat}: two mails less than 5 minutes apart: {pair:?}");
        }
        counts.push(mails.len());
    }
    // At most one mail per seat per 5 minutes, and the end.
    let most = elapsed as usize / 300 + 2;
    eprintln!("{decisions} decisions in {} minutes; mails per seat {counts:?}", elapsed / 60);
    assert!(counts.iter().all(|n| *n > 2), "mails went out between the invitation and the end: {counts:?}");
    assert!(counts.iter().all(|n| *n <= most), "mails per seat: {counts:?}, at most {most}");
    assert!(counts.iter().sum::<usize>() >= SEATS, "every seat was mailed: {counts:?}");
}
