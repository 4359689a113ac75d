//! The kernel's own rules, told as given/when/then over the Duel fixture.

use serde_json::{json, Value};

use runestone_engine::log::{check_chain, seal, Actor, Envelope, KernelEvent};
use runestone_engine::table::{KernelError, Table};
use runestone_engine::{verify, Registry, Seed, Viewer};

fn registry() -> Registry {
    Registry::empty().with::<runestone_duel::Duel>()
}

const T: &str = "2026-11-22T10:00:00Z";

/// A game in the making: its log, position and seed.
struct Given {
    log: Vec<Envelope>,
    table: Table,
    seed: Seed,
}

fn given_duel(seats: usize, rounds: u8) -> Given {
    let reg = registry();
    let seed = Seed([42; 32]);
    let names = (0..seats).map(|i| format!("P{i}")).collect();
    let drafts = Table::create(reg.get("duel").unwrap().as_ref(), &json!({ "rounds": rounds }), names, &seed, None)
        .expect("create");
    let log = seal("g0000000000000000", None, drafts, T, &seed);
    let table = Table::fold(&reg, &log).expect("fold");
    Given { log, table, seed }
}

impl Given {
    fn when(&mut self, seat: u8, cmd: Value) -> Result<Vec<Envelope>, KernelError> {
        let drafts = self.table.decide(Actor::Seat(seat), seat, &cmd, None, &self.seed)?;
        Ok(self.append(drafts))
    }
    fn append(&mut self, drafts: Vec<runestone_engine::Draft>) -> Vec<Envelope> {
        let envs = seal(&self.table.game_id, Some((self.table.head, &self.table.head_hash)), drafts, T, &self.seed);
        self.log.extend(envs.iter().cloned());
        for e in &envs {
            if self.table.push(e).is_err() {
                self.table = Table::fold(&registry(), &self.log).expect("refold");
            }
        }
        envs
    }
    fn view(&self, v: Viewer) -> Value {
        self.table.view(v)
    }
    fn types(envs: &[Envelope]) -> Vec<String> {
        envs.iter()
            .map(|e| match &e.body {
                runestone_engine::Body::Game { event, .. } => event.value()["type"].as_str().unwrap().to_owned(),
                runestone_engine::Body::Kernel { event } => {
                    format!("{event:?}").split_whitespace().next().unwrap().to_owned()
                }
            })
            .collect()
    }
}

#[test]
fn a_new_game_starts_with_game_created_and_its_setup() {
    let g = given_duel(2, 3);
    assert!(matches!(g.log[0].kernel(), Some(KernelEvent::GameCreated { .. })));
    assert_eq!(g.table.setup_end, 1);
    assert_eq!(g.table.pending().len(), 2, "both seats bid at once");
    check_chain(&g.log).unwrap();
}

#[test]
fn a_secret_choice_is_hidden_from_other_seats_until_revealed() {
    let mut g = given_duel(2, 3);
    let envs = g.when(0, json!({"type": "Bid", "amount": 4})).unwrap();
    let e = &envs[0];
    assert!(e.visible_to(Viewer::Seat(0), false));
    assert!(!e.visible_to(Viewer::Seat(1), false));
    let seen_by_1 = serde_json::to_string(&e.redacted_for(Viewer::Seat(1), false)).unwrap();
    assert!(!seen_by_1.contains("\"amount\":4"), "{seen_by_1}");
    assert_eq!(g.view(Viewer::Seat(1))["bids"][0], json!("hidden"));
    assert_eq!(g.view(Viewer::Seat(0))["bids"][0], json!(4));
    let envs = g.when(1, json!({"type": "Bid", "amount": 2})).unwrap();
    assert_eq!(Given::types(&envs), ["BidPlaced", "BidsRevealed", "DieRolled", "RoundWon"]);
}

#[test]
fn a_later_secret_choice_replaces_the_earlier_one() {
    let mut g = given_duel(2, 3);
    g.when(0, json!({"type": "Bid", "amount": 4})).unwrap();
    g.when(0, json!({"type": "Bid", "amount": 1})).unwrap();
    let envs = g.when(1, json!({"type": "Bid", "amount": 2})).unwrap();
    assert_eq!(Given::types(&envs)[3], "RoundWon");
    assert_eq!(g.view(Viewer::Public)["claimer"], json!(1));
}

#[test]
fn a_seat_that_is_not_pending_is_refused() {
    let mut g = given_duel(2, 3);
    g.when(0, json!({"type": "Bid", "amount": 5})).unwrap();
    g.when(1, json!({"type": "Bid", "amount": 1})).unwrap();
    let err = g.when(1, json!({"type": "Claim"})).unwrap_err();
    assert!(matches!(err, KernelError::NotPending { seat: 1, .. }), "{err:?}");
    assert!(err.to_string().contains("waiting for seat 0"), "{err}");
}

#[test]
fn a_stale_expected_seq_is_refused() {
    let g = given_duel(2, 3);
    let err = g.table.decide(Actor::Seat(0), 0, &json!({"type": "Bid", "amount": 1}), Some(0), &g.seed).unwrap_err();
    assert_eq!(err, KernelError::Stale { expected: 0, head: 1 });
}

#[test]
fn an_unknown_command_is_a_schema_error_and_a_bad_one_a_rule_error() {
    let mut g = given_duel(2, 3);
    assert!(matches!(g.when(0, json!({"type": "Fly"})).unwrap_err(), KernelError::Schema(_)));
    let e = g.when(0, json!({"type": "Bid", "amount": 11})).unwrap_err();
    assert!(matches!(&e, KernelError::Rule(r) if r.message.contains("1 to 10")), "{e:?}");
}

fn play_to_claim(g: &mut Given) {
    g.when(0, json!({"type": "Bid", "amount": 5})).unwrap();
    g.when(1, json!({"type": "Bid", "amount": 1})).unwrap();
}

#[test]
fn a_seat_may_undo_its_own_steps_within_its_turn() {
    let mut g = given_duel(2, 3);
    play_to_claim(&mut g);
    g.when(0, json!({"type": "Taunt", "text": "ha"})).unwrap();
    g.when(0, json!({"type": "Taunt", "text": "haha"})).unwrap();
    assert!(g.table.undo(1).is_err(), "not seat 1's step");
    let d = g.table.undo(0).unwrap();
    g.append(vec![d]);
    let d = g.table.undo(0).unwrap();
    g.append(vec![d]);
    assert!(g.table.undo(0).is_err(), "a die roll cannot be undone");
    // The position is the one before the taunts; the log keeps everything.
    let fresh = Table::fold(&registry(), &g.log).unwrap();
    assert_eq!(fresh.view(Viewer::Referee), g.view(Viewer::Referee));
    assert_eq!(g.log.len(), 11);
}

#[test]
fn a_rollback_voids_later_events_but_keeps_them_in_the_log() {
    let mut g = given_duel(2, 3);
    play_to_claim(&mut g);
    let before = g.view(Viewer::Referee);
    let at = g.table.head;
    g.when(0, json!({"type": "Claim"})).unwrap();
    let bad = g.table.rollback(Actor::Referee, at - 1, "mid-decision", &g.log).unwrap_err();
    assert!(bad.to_string().contains("inside a decision"), "{bad}");
    assert!(g.table.rollback(Actor::Referee, at, " ", &g.log).is_err(), "a reason is required");
    let d = g.table.rollback(Actor::Referee, at, "claimed by mistake", &g.log).unwrap();
    let n = g.log.len();
    g.append(vec![d]);
    assert_eq!(g.view(Viewer::Referee), before);
    assert_eq!(g.log.len(), n + 1);
    check_chain(&g.log).unwrap();
}

#[test]
fn the_seed_is_revealed_at_the_end_and_every_draw_rederives() {
    let mut g = given_duel(3, 2);
    for _ in 0..2 {
        for s in 0..3 {
            g.when(s, json!({"type": "Bid", "amount": 1 + s})).unwrap();
        }
        let claimer = g.view(Viewer::Public)["claimer"].as_u64().unwrap() as u8;
        g.when(claimer, json!({"type": "Claim"})).unwrap();
    }
    assert!(g.table.is_over());
    assert_eq!(g.table.seed_revealed.as_deref(), Some(g.seed.to_hex().as_str()));
    let r = verify::full(&registry(), &g.log, &g.seed);
    assert_eq!(r.problem, None);
    assert_eq!(r.decisions_rederived, 1 + 6 + 2);
    // Tampering with a die is caught.
    let mut bad = g.log.clone();
    let i = bad
        .iter()
        .position(
            |e| matches!(&e.body, runestone_engine::Body::Game { event, .. } if event.value()["type"] == "DieRolled"),
        )
        .unwrap();
    if let runestone_engine::Body::Game { event, .. } = &mut bad[i].body {
        let mut v = event.value();
        v["value"] = json!(if v["value"] == json!(6) { 5 } else { 6 });
        *event = v.into();
    }
    assert!(verify::full(&registry(), &bad, &g.seed).problem.is_some());
    // A wrong seed is caught.
    assert!(verify::full(&registry(), &g.log, &Seed([1; 32])).problem.is_some());
}

#[test]
fn a_snapshot_restores_the_same_position() {
    let mut g = given_duel(2, 3);
    play_to_claim(&mut g);
    let saved = g.table.save();
    let t = Table::load(&registry(), &saved).unwrap();
    assert_eq!(t.view(Viewer::Referee), g.view(Viewer::Referee));
    assert_eq!(t.head_hash, g.table.head_hash);
}

/// The packed snapshot holds only what the creation does not say: it comes
/// back as the same position (with a substitute's name and a revocation),
/// is smaller than the JSON form, and the JSON form earlier versions wrote
/// still loads through the same door.
#[test]
fn a_packed_snapshot_restores_the_same_position_and_the_old_form_still_loads() {
    let mut g = given_duel(3, 3);
    play_to_claim(&mut g);
    let sub = g.table.revoke(Actor::Host, 1, "lost phone").unwrap();
    g.append(vec![sub]);
    g.append(vec![runestone_engine::Draft::kernel(
        Actor::Host,
        KernelEvent::SubstituteSeated { seat: 2, name: "Sigrid".into() },
    )]);
    let packed = g.table.snapshot();
    let json = serde_json::to_vec(&g.table.save()).unwrap();
    assert!(packed.len() < json.len(), "packed {} bytes against {} as JSON", packed.len(), json.len());
    for bytes in [&packed, &json] {
        let t = Table::from_snapshot(&registry(), bytes, &g.log[0]).expect("the snapshot loads");
        assert_eq!(t.view(Viewer::Referee), g.view(Viewer::Referee));
        assert_eq!((t.head, t.head_hash), (g.table.head, g.table.head_hash));
        assert_eq!(t.created, g.table.created);
        assert_eq!((&t.generations, t.setup_end, &t.clock), (&g.table.generations, g.table.setup_end, &g.table.clock));
        assert_eq!(t.pending(), g.table.pending());
        assert_eq!(t.save(), g.table.save(), "every part of the position is back");
    }
    for cut in [0, 1, packed.len() / 2] {
        let e = Table::from_snapshot(&registry(), &packed[..cut], &g.log[0]).map(|_| ()).unwrap_err();
        assert!(e.0.starts_with("snapshot"), "{e}");
    }
    let other = given_duel(3, 3);
    let mut log0 = other.log[0].clone();
    log0.game = "another".into();
    assert!(Table::from_snapshot(&registry(), &json, &log0).is_err(), "a JSON snapshot of another game is refused");
}

#[test]
fn a_broken_chain_is_reported_with_its_seq() {
    let mut g = given_duel(2, 3);
    play_to_claim(&mut g);
    g.log[2].time = "2030-01-01T00:00:00Z".into();
    let e = check_chain(&g.log).unwrap_err();
    assert_eq!(e.seq, 2);
}

#[test]
fn revoking_a_seat_bumps_its_generation() {
    let mut g = given_duel(2, 3);
    let d = g.table.revoke(Actor::Host, 1, "lost phone").unwrap();
    g.append(vec![d]);
    assert_eq!(g.table.generations, vec![0, 1]);
    assert!(g.table.revoke(Actor::Host, 7, "x").is_err());
}

#[test]
fn revoking_the_host_or_the_referee_bumps_its_generation_and_a_snapshot_keeps_it() {
    use runestone_engine::{Holder, Holders};
    let mut g = given_duel(2, 3);
    assert_eq!(g.table.holders, Holders::default());
    let d = g.table.revoke_holder(Actor::Host, Holder::Referee, "the referee left");
    g.append(vec![d]);
    let d = g.table.revoke_holder(Actor::Host, Holder::Host, "a link in a forwarded mail");
    g.append(vec![d]);
    let d = g.table.revoke_holder(Actor::Host, Holder::Host, "again");
    g.append(vec![d]);
    assert_eq!(g.table.holders, Holders { host: 2, referee: 1 });
    assert_eq!(g.table.generations, vec![0, 0], "the seats' links are untouched");
    assert_eq!(Table::fold(&registry(), &g.log).unwrap().holders, Holders { host: 2, referee: 1 });
    let back = Table::from_snapshot(&registry(), &g.table.snapshot(), &g.log[0]).unwrap();
    assert_eq!(back.holders, Holders { host: 2, referee: 1 });
    let text = g.table.describe(g.log.last().unwrap());
    assert_eq!(text, "The host's old links revoked: again");
}

#[test]
fn a_fork_starts_from_the_position_at_its_seq() {
    let mut g = given_duel(2, 3);
    play_to_claim(&mut g);
    let at = g.table.head;
    let position = g.view(Viewer::Referee);
    g.when(0, json!({"type": "Claim"})).unwrap();
    let reg = registry();
    let seed = Seed([9; 32]);
    let origin =
        runestone_engine::log::ForkOrigin { game: g.table.game_id.clone(), seq: at, hash: g.log[at as usize].hash };
    let mut drafts = Table::create(
        reg.get("duel").unwrap().as_ref(),
        &json!({"rounds": 3}),
        vec!["A".into(), "B".into()],
        &seed,
        Some(origin),
    )
    .unwrap();
    drafts.extend(runestone_engine::table::fork_copies(&g.log, at));
    let log = seal("f0000000000000000", None, drafts, T, &seed);
    let fork = Table::fold(&reg, &log).unwrap();
    assert_eq!(fork.view(Viewer::Referee), position);
    assert_eq!(fork.setup_end, fork.head, "copied events cannot be rolled back");
    let r = verify::full(&reg, &log, &seed);
    assert_eq!(r.problem, None);
    assert_eq!(r.copied_events, log.len() as u64 - 1);
}

#[test]
fn anyone_can_check_the_chain_of_a_running_game_from_the_redacted_log() {
    let mut g = given_duel(3, 2);
    g.when(0, json!({"type": "Bid", "amount": 9})).unwrap();
    g.when(1, json!({"type": "Bid", "amount": 2})).unwrap();
    let public: Vec<Envelope> = g.log.iter().map(|e| e.redacted_for(Viewer::Public, false)).collect();
    assert!(!serde_json::to_string(&public).unwrap().contains("\"amount\":9"), "the secret is not shown");
    check_chain(&public).unwrap();
    // And a changed public part is caught.
    let mut forged = public.clone();
    forged[2].actor = Actor::Seat(2);
    assert_eq!(check_chain(&forged).unwrap_err().seq, 2);
}

/// The words check of a whole game finds what is wrong: the Duel fixture's
/// outcome ("best score 5") names no winner, and its score changes are
/// counted.
#[test]
fn the_words_check_of_a_whole_game_finds_an_outcome_naming_no_winner() {
    let checked = runestone_engine::harness::words_problems(
        &registry(),
        "duel",
        &json!({ "rounds": 2 }),
        &["Astrid", "Bjarni"],
        &Seed([7; 32]),
        100,
    )
    .expect("a whole game");
    assert!(checked.lines > 3, "{checked:?}");
    assert!(checked.problems.iter().any(|p| p.starts_with("the outcome names no winner")), "{checked:?}");
}
