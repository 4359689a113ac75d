//! The shared test suite: what every [`EventStore`] backend must do.
//!
//! Each test is a plain `async fn` over a fresh, empty store; a backend's own
//! test module wires them into `#[tokio::test]`s (see the sled backend).
//! Failures panic with a message naming the broken promise.

use std::sync::Arc;

use runestone_engine::log::{check_chain, seal, Actor, Body, BodyRef, Draft, KernelEvent};
use runestone_engine::{Envelope, Seed, Visibility};
use serde_json::json;

use super::{EventStore, GameId, Side, SideWrite, StoreError, Write};

const TIME: &str = "2026-01-01T00:00:00Z";

/// A 16-byte game id: `tag` (cut or padded to 8 characters) then `n` in 8
/// digits, so ids of one tag sort by `n`.
pub fn game_id(tag: &str, n: u32) -> GameId {
    let mut id: String = tag.chars().filter(char::is_ascii_alphanumeric).take(8).collect();
    while id.len() < 8 {
        id.push('x');
    }
    format!("{id}{n:08}")
}

fn seed() -> Seed {
    Seed([7; 32])
}

fn created() -> Draft {
    Draft {
        actor: Actor::System,
        body: Body::Kernel {
            event: KernelEvent::GameCreated {
                ruleset: "duel".into(),
                rules_version: 1,
                options: json!({ "rounds": 3 }),
                seats: vec!["Ann".into(), "Bo".into()],
                seed_commitment: seed().commitment(),
                forked_from: None,
            },
        },
        visibility: Visibility::Public,
        redacted: None,
        decision: None,
    }
}

fn moved(n: u64) -> Draft {
    Draft {
        actor: Actor::Seat((n % 2) as u8),
        body: Body::Game { v: 1, event: json!({ "type": "Moved", "n": n }).into() },
        visibility: if n % 3 == 1 { Visibility::Seats(vec![0]) } else { Visibility::Public },
        redacted: (n % 3 == 1).then(|| json!({ "type": "Hidden" }).into()),
        decision: None,
    }
}

/// A write creating `game` with `events` events (at least the creation).
pub fn new_game_write(game: &str, events: usize) -> Write {
    let mut drafts = vec![created()];
    drafts.extend((1..events as u64).map(moved));
    Write {
        game: game.into(),
        expect_head: None,
        events: seal(game, None, drafts, TIME, &seed()),
        side: Vec::new(),
        unchanged: Vec::new(),
    }
}

/// A write of `events` more events after `last`.
pub fn next_write(last: &Envelope, events: usize) -> Write {
    let drafts = (0..events as u64).map(|i| moved(last.seq + 1 + i)).collect();
    Write {
        game: last.game.clone(),
        expect_head: Some(last.seq),
        events: seal(&last.game, Some((last.seq, &last.hash)), drafts, TIME, &seed()),
        side: Vec::new(),
        unchanged: Vec::new(),
    }
}

fn side(side: Side, key: &[u8], value: Option<&str>) -> SideWrite {
    SideWrite { side, key: key.to_vec(), value: value.map(|v| v.as_bytes().to_vec()) }
}

fn last_event(store: &dyn EventStore, game: &str) -> Envelope {
    let head = store.head(game).expect("head").expect("the game has a log");
    store.load(game, head, Some(head)).expect("load").pop().expect("the head event")
}

fn assert_conflict(result: Result<(), StoreError>, expected: Option<u64>, found: Option<u64>) {
    match result {
        Err(StoreError::Conflict { expected: e, found: f, .. }) => {
            assert_eq!((e, f), (expected, found), "the conflict reports the heads")
        }
        other => panic!("expected a conflict (expected {expected:?}, found {found:?}), got {other:?}"),
    }
}

fn assert_malformed(result: Result<(), StoreError>, what: &str) {
    match result {
        Err(StoreError::Malformed(_)) => {}
        other => panic!("{what}: expected Malformed, got {other:?}"),
    }
}

pub async fn append_new_game_and_load(store: &dyn EventStore) {
    let g = game_id("load", 1);
    let w = new_game_write(&g, 3);
    store.append(w.clone()).await.expect("append to a new game");
    assert_eq!(store.load(&g, 0, None).expect("load"), w.events, "the log reads back equal");
    assert_eq!(store.load(&g, 1, Some(1)).expect("load"), w.events[1..2], "one event");
    assert_eq!(store.load(&g, 2, Some(10)).expect("load"), w.events[2..], "`to` past the head stops at the head");
    assert!(store.load(&g, 3, None).expect("load").is_empty(), "from past the head");
    assert!(store.load(&g, 2, Some(1)).expect("load").is_empty(), "to before from");
    assert!(store.load(&game_id("load", 2), 0, None).expect("load").is_empty(), "an unknown game");

    let more = next_write(w.events.last().expect("events"), 2);
    store.append(more.clone()).await.expect("append more");
    let log = store.load(&g, 0, None).expect("load");
    assert_eq!(log.len(), 5);
    assert_eq!(log[3..], more.events[..]);
    check_chain(&log).expect("the chain holds");
}

/// A range read as stored bytes reads as the same events a load gives: what
/// a fold reads of each, their hashes, and the same bounds.
pub async fn raw_loads_read_what_loads_read(store: &dyn EventStore) {
    let g = game_id("raw", 1);
    let w = new_game_write(&g, 3);
    store.append(w.clone()).await.expect("append to a new game");
    store.append(next_write(w.events.last().expect("events"), 2)).await.expect("append more");
    let log = store.load(&g, 0, None).expect("load");
    for (from, to) in [(0, None), (0, Some(0)), (1, Some(3)), (2, Some(10)), (4, None), (5, None), (3, Some(2))] {
        let raw = store.load_raw(&g, from, to).expect("load_raw");
        let refs = raw.refs().expect("the stored events read and their hashes hold");
        let loaded = store.load(&g, from, to).expect("load");
        // A game event a store keeps as a tree is its text in another form.
        let body = |b: &BodyRef<'_>| match b {
            BodyRef::GameTree { v, event } => {
                (Some(*v), runestone_engine::tree::render(event, None).expect("a stored tree renders"), None)
            }
            BodyRef::Game { v, event } => (Some(*v), event.to_string(), None),
            BodyRef::Kernel(k) => (None, String::new(), Some((***k).clone())),
        };
        let want: Vec<_> =
            loaded.iter().map(|e| e.fold_ref()).map(|r| (r.seq, r.hash, body(&r.body), r.decision)).collect();
        let got: Vec<_> = refs.iter().map(|r| (r.seq, r.hash, body(&r.body), r.decision)).collect();
        assert_eq!(got, want, "range {from}..={to:?}");
        assert_eq!(raw.len(), want.len());
        for r in &refs {
            assert_eq!(raw.hash_at(r.seq), Some(log[r.seq as usize].hash), "hash of seq {}", r.seq);
        }
    }
    let none = store.load_raw(&game_id("raw", 2), 0, None).expect("load_raw");
    assert!(none.is_empty() && none.refs().expect("nothing to read").is_empty(), "an unknown game");
}

pub async fn head_follows_appends(store: &dyn EventStore) {
    let g = game_id("head", 1);
    assert_eq!(store.head(&g).expect("head"), None, "no log yet");
    store.append(new_game_write(&g, 1)).await.expect("append");
    assert_eq!(store.head(&g).expect("head"), Some(0));
    store.append(next_write(&last_event(store, &g), 3)).await.expect("append");
    assert_eq!(store.head(&g).expect("head"), Some(3));
    assert_eq!(store.head(&game_id("head", 0)).expect("head"), None, "a neighbouring id has no log");
    assert_eq!(store.head(&game_id("head", 2)).expect("head"), None, "a neighbouring id has no log");
}

pub async fn stale_expect_head_conflicts_and_leaves_nothing(store: &dyn EventStore) {
    let g = game_id("stale", 1);
    store.append(new_game_write(&g, 2)).await.expect("create");
    let seen = last_event(store, &g);
    store.append(next_write(&seen, 1)).await.expect("the first writer wins");
    let before = store.load(&g, 0, None).expect("load");

    let mut stale = next_write(&seen, 2);
    stale.side = vec![
        side(Side::Outbox, b"stale-mail", Some("hello")),
        side(Side::Deadlines, b"stale-deadline", Some("")),
        side(Side::Idempotency, b"stale-key", Some("answer")),
    ];
    assert_conflict(store.append(stale.clone()).await, Some(1), Some(2));
    assert_eq!(store.load(&g, 0, None).expect("load"), before, "a refused write adds no events");
    for s in &stale.side {
        assert_eq!(store.get(s.side, &s.key).expect("get"), None, "a refused write adds no side records");
    }

    let mut ahead = next_write(&last_event(store, &g), 1);
    ahead.expect_head = Some(5);
    for e in &mut ahead.events {
        e.seq += 3;
    }
    assert_conflict(store.append(ahead).await, Some(5), Some(2));

    let unknown = game_id("stale", 2);
    let mut w = next_write(&seen, 1);
    w.game = unknown.clone();
    for e in &mut w.events {
        e.game = unknown.clone();
    }
    assert_conflict(store.append(w).await, Some(1), None);
    assert_eq!(store.head(&unknown).expect("head"), None);
}

pub async fn new_game_on_existing_log_conflicts(store: &dyn EventStore) {
    let g = game_id("exists", 1);
    let first = new_game_write(&g, 2);
    store.append(first.clone()).await.expect("create");
    let mut again = new_game_write(&g, 3);
    again.side = vec![side(Side::Games, g.as_bytes(), Some("another seed"))];
    assert_conflict(store.append(again).await, None, Some(1));
    assert_eq!(store.load(&g, 0, None).expect("load"), first.events, "the first log is untouched");
    assert_eq!(store.get(Side::Games, g.as_bytes()).expect("get"), None);
}

pub async fn malformed_writes_are_refused(store: &dyn EventStore) {
    let g = game_id("malform", 1);
    let mark = |mut w: Write, n: u8| {
        w.side = vec![side(Side::Outbox, &[b'm', n], Some("x"))];
        w
    };

    let mut short = new_game_write("short", 1);
    short.game = "short".into();
    assert_malformed(store.append(mark(short, 0)).await, "a game id of 5 bytes");

    let mut gap = new_game_write(&g, 3);
    gap.events.remove(1);
    assert_malformed(store.append(mark(gap, 1)).await, "a gap in the seqs");

    let mut swapped = new_game_write(&g, 3);
    swapped.events.swap(1, 2);
    assert_malformed(store.append(mark(swapped, 2)).await, "seqs out of order");

    let mut late = new_game_write(&g, 3);
    late.events.remove(0);
    assert_malformed(store.append(mark(late, 3)).await, "a new log not starting at seq 0");

    let other = game_id("malform", 2);
    let mut foreign = new_game_write(&other, 2);
    foreign.game = g.clone();
    assert_malformed(store.append(mark(foreign, 4)).await, "events of another game");

    let mut mixed = new_game_write(&g, 2);
    mixed.events[1].game = other.clone();
    assert_malformed(store.append(mark(mixed, 5)).await, "one event of another game");

    store.append(new_game_write(&g, 2)).await.expect("a good write still works");
    let mut skip = next_write(&last_event(store, &g), 2);
    skip.expect_head = Some(0);
    assert_malformed(store.append(mark(skip, 6)).await, "events not right after expect_head");
    let mut max = next_write(&last_event(store, &g), 1);
    max.expect_head = Some(u64::MAX);
    assert_malformed(store.append(mark(max, 7)).await, "no seq after u64::MAX");

    assert_eq!(store.head(&g).expect("head"), Some(1), "only the good write is stored");
    assert_eq!(store.head(&other).expect("head"), None);
    assert!(store.scan(Side::Outbox, b"m", 100).expect("scan").is_empty(), "no side record of a malformed write");
    assert_eq!(store.games(None, 10).expect("games"), vec![g]);
}

pub async fn side_records_are_atomic_with_events(store: &dyn EventStore) {
    let g = game_id("side", 1);
    let deadline: Vec<u8> = [&1_000u64.to_be_bytes()[..], g.as_bytes()].concat();
    let mut create = new_game_write(&g, 2);
    create.side = vec![
        side(Side::Games, g.as_bytes(), Some("seed and contacts")),
        side(Side::Deadlines, &deadline, Some("")),
        side(Side::Outbox, b"mail-1", Some("you are invited")),
    ];
    store.append(create).await.expect("create");
    assert_eq!(store.get(Side::Games, g.as_bytes()).expect("get"), Some(b"seed and contacts".to_vec()));
    assert_eq!(store.get(Side::Deadlines, &deadline).expect("get"), Some(Vec::new()));
    assert_eq!(store.get(Side::Outbox, b"mail-1").expect("get"), Some(b"you are invited".to_vec()));

    let seen = last_event(store, &g);
    let mut stale = next_write(&store.load(&g, 0, Some(0)).expect("load")[0], 1);
    stale.side = vec![side(Side::Games, g.as_bytes(), None), side(Side::Outbox, b"mail-2", Some("lost"))];
    assert_conflict(store.append(stale).await, Some(0), Some(1));
    assert!(store.get(Side::Games, g.as_bytes()).expect("get").is_some(), "a refused removal removes nothing");
    assert_eq!(store.get(Side::Outbox, b"mail-2").expect("get"), None);

    let mut next = next_write(&seen, 1);
    next.side = vec![
        side(Side::Outbox, b"mail-1", None),
        side(Side::Outbox, b"mail-3", Some("your turn")),
        side(Side::Deadlines, &deadline, None),
    ];
    store.append(next).await.expect("append with side records");
    assert_eq!(store.get(Side::Outbox, b"mail-1").expect("get"), None, "removed with the append");
    assert_eq!(store.get(Side::Deadlines, &deadline).expect("get"), None, "removed with the append");
    assert_eq!(store.get(Side::Outbox, b"mail-3").expect("get"), Some(b"your turn".to_vec()));
    assert_eq!(store.head(&g).expect("head"), Some(2));
}

/// A record written without an event does not move the head: an append
/// that names the records it read (`Write::unchanged`) is refused, nothing
/// of it made, once one of them was written since, and lands on a new read.
pub async fn side_records_read_are_checked_by_the_append(store: &dyn EventStore) {
    // Given a game whose record two writers read,
    let g = game_id("unchanged", 1);
    let mut create = new_game_write(&g, 1);
    create.side = vec![side(Side::Games, g.as_bytes(), Some("mail on"))];
    store.append(create).await.expect("create");
    let read = side(Side::Games, g.as_bytes(), Some("mail on"));
    // when the first writes the record by an append without events,
    let prefs = Write {
        game: g.clone(),
        expect_head: Some(0),
        events: Vec::new(),
        side: vec![side(Side::Games, g.as_bytes(), Some("mail off"))],
        unchanged: vec![read.clone()],
    };
    store.append(prefs).await.expect("the record as read is written over");
    assert_eq!(store.head(&g).expect("head"), Some(0), "an append without events leaves the head");
    // then the second, appending an event with the record it derived from
    // its older read, is refused and nothing of its write is made;
    let mut stale = next_write(&last_event(store, &g), 1);
    stale.side =
        vec![side(Side::Games, g.as_bytes(), Some("mail on, told")), side(Side::Outbox, b"mail-u", Some("news"))];
    stale.unchanged = vec![read];
    match store.append(stale.clone()).await {
        Err(StoreError::Changed { game }) => assert_eq!(game, g, "the refusal names the game"),
        other => panic!("a write over a record changed since its read: expected Changed, got {other:?}"),
    }
    assert_eq!(store.head(&g).expect("head"), Some(0), "no event of the refused write");
    assert_eq!(
        store.get(Side::Games, g.as_bytes()).expect("get"),
        Some(b"mail off".to_vec()),
        "the newer record stays"
    );
    assert_eq!(store.get(Side::Outbox, b"mail-u").expect("get"), None, "no side record of the refused write");
    // and made again over the record as it now is, it lands.
    stale.side[0] = side(Side::Games, g.as_bytes(), Some("mail off, told"));
    stale.unchanged = vec![side(Side::Games, g.as_bytes(), Some("mail off"))];
    store.append(stale).await.expect("the write over the record as read again");
    assert_eq!(store.head(&g).expect("head"), Some(1));
    assert_eq!(store.get(Side::Games, g.as_bytes()).expect("get"), Some(b"mail off, told".to_vec()));
    // A record read as absent must still be absent.
    let mut absent = next_write(&last_event(store, &g), 1);
    absent.unchanged = vec![side(Side::Outbox, b"mail-w", None), side(Side::Outbox, b"mail-v", None)];
    store.append(absent).await.expect("records still absent");
    store.put(vec![side(Side::Outbox, b"mail-v", Some("written"))]).await.expect("put");
    let mut late = next_write(&last_event(store, &g), 1);
    late.unchanged = vec![side(Side::Outbox, b"mail-v", None)];
    assert!(matches!(store.append(late).await, Err(StoreError::Changed { .. })), "a record read as absent was written");
    assert_eq!(store.head(&g).expect("head"), Some(2));
}

pub async fn put_get_scan(store: &dyn EventStore) {
    let kv = |k: &[u8], v: &str| (k.to_vec(), v.as_bytes().to_vec());
    store
        .put(vec![
            side(Side::Outbox, b"b1", Some("B1")),
            side(Side::Outbox, b"a3", Some("A3")),
            side(Side::Outbox, b"a1", Some("A1")),
            side(Side::Outbox, b"a2", Some("A2")),
            side(Side::Deadlines, b"a1", Some("D")),
            side(Side::Idempotency, b"a", Some("I")),
        ])
        .await
        .expect("put");
    assert_eq!(store.get(Side::Outbox, b"a2").expect("get"), Some(b"A2".to_vec()));
    assert_eq!(store.get(Side::Outbox, b"a4").expect("get"), None);
    assert_eq!(store.get(Side::Games, b"a1").expect("get"), None, "sides are separate");
    assert_eq!(
        store.scan(Side::Outbox, b"a", 10).expect("scan"),
        vec![kv(b"a1", "A1"), kv(b"a2", "A2"), kv(b"a3", "A3")],
        "prefix, key order"
    );
    assert_eq!(store.scan(Side::Outbox, b"a", 2).expect("scan"), vec![kv(b"a1", "A1"), kv(b"a2", "A2")], "limit");
    assert_eq!(store.scan(Side::Outbox, b"", 10).expect("scan").len(), 4, "the empty prefix");
    assert!(store.scan(Side::Outbox, b"a", 0).expect("scan").is_empty(), "limit 0");
    assert_eq!(store.scan(Side::Deadlines, b"", 10).expect("scan"), vec![kv(b"a1", "D")], "sides are separate");
    assert_eq!(store.scan(Side::Idempotency, b"", 10).expect("scan"), vec![kv(b"a", "I")]);
    assert!(store.scan(Side::Games, b"", 10).expect("scan").is_empty());

    // Big-endian keys scan in numeric order.
    let due = |t: u64| t.to_be_bytes().to_vec();
    store
        .put([70_000u64, 5, 300].iter().map(|t| side(Side::Deadlines, &due(*t), Some("due"))).collect())
        .await
        .expect("put");
    let keys: Vec<Vec<u8>> = store.scan(Side::Deadlines, &[0], 10).expect("scan").into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, vec![due(5), due(300), due(70_000)]);

    store.put(vec![side(Side::Outbox, b"a2", None), side(Side::Outbox, b"a1", Some("A1'"))]).await.expect("put");
    assert_eq!(store.scan(Side::Outbox, b"a", 10).expect("scan"), vec![kv(b"a1", "A1'"), kv(b"a3", "A3")]);
    store.put(Vec::new()).await.expect("an empty put");
}

pub async fn snapshots(store: &dyn EventStore) {
    let (a, b) = (game_id("snap", 1), game_id("snap", 2));
    assert_eq!(store.snapshot_at_or_before(&a, 100).expect("snapshot"), None);
    for seq in [10u64, 5, 20] {
        store.put_snapshot(&a, seq, format!("a{seq}").as_bytes()).expect("put_snapshot");
    }
    store.put_snapshot(&b, 1, b"b1").expect("put_snapshot");
    let at = |g: &str, seq| store.snapshot_at_or_before(g, seq).expect("snapshot");
    assert_eq!(at(&a, 4), None);
    assert_eq!(at(&a, 5), Some((5, b"a5".to_vec())));
    assert_eq!(at(&a, 15), Some((10, b"a10".to_vec())));
    assert_eq!(at(&a, 20), Some((20, b"a20".to_vec())));
    assert_eq!(at(&a, u64::MAX), Some((20, b"a20".to_vec())));
    assert_eq!(at(&b, 100), Some((1, b"b1".to_vec())));
    assert_eq!(at(&b, 0), None);
    assert_eq!(at(&game_id("snap", 0), u64::MAX), None, "another game's snapshots do not leak");
    store.put_snapshot(&a, 10, b"a10'").expect("replace");
    assert_eq!(at(&a, 19), Some((10, b"a10'".to_vec())));
}

pub async fn games_paging(store: &dyn EventStore) {
    assert!(store.games(None, 10).expect("games").is_empty());
    let n = 25u32;
    let mut ids: Vec<GameId> = Vec::new();
    for i in 0..n {
        let k = (i * 7) % n; // not in id order
        let id = game_id("page", k * 2);
        store.append(new_game_write(&id, 1 + (k as usize % 4))).await.expect("create");
        ids.push(id);
    }
    ids.sort();
    // Side records alone do not make a game.
    store.put(vec![side(Side::Games, game_id("page", 1).as_bytes(), Some("x"))]).await.expect("put");

    let mut seen = Vec::new();
    let mut after: Option<GameId> = None;
    let mut pages = Vec::new();
    loop {
        let page = store.games(after.as_deref(), 10).expect("games");
        if page.is_empty() {
            break;
        }
        pages.push(page.len());
        after = page.last().cloned();
        seen.extend(page);
    }
    assert_eq!(pages, vec![10, 10, 5]);
    assert_eq!(seen, ids, "every game once, in id order");
    assert!(store.games(None, 0).expect("games").is_empty(), "limit 0");
    assert_eq!(store.games(Some(&game_id("page", 3)), 2).expect("games"), vec![game_id("page", 4), game_id("page", 6)]);
    assert_eq!(store.games(Some(&game_id("page", 48)), 5).expect("games"), Vec::<GameId>::new());
    assert_eq!(store.games(Some(&game_id("aaaa", 0)), 1).expect("games"), vec![game_id("page", 0)]);
}

/// 16 tasks × 50 appends over 8 games, retrying on conflict: gapless logs
/// whose chains hold, and exactly one side record per successful append.
pub async fn concurrent_appenders(store: Arc<dyn EventStore>) {
    const TASKS: usize = 16;
    const APPENDS: usize = 50;
    const GAMES: usize = 8;
    let games: Vec<GameId> = (0..GAMES as u32).map(|i| game_id("conc", i)).collect();
    let mut tasks = Vec::new();
    for t in 0..TASKS {
        let (store, games) = (store.clone(), games.clone());
        tasks.push(tokio::spawn(async move {
            let mut conflicts = 0usize;
            for i in 0..APPENDS {
                let g = &games[(t + i) % GAMES];
                loop {
                    let mut w = match store.head(g).expect("head") {
                        None => new_game_write(g, 1),
                        Some(h) => next_write(&store.load(g, h, Some(h)).expect("load")[0], 1),
                    };
                    let key = format!("conc/{t:02}/{i:02}");
                    w.side = vec![side(Side::Idempotency, key.as_bytes(), Some("done"))];
                    match store.append(w).await {
                        Ok(()) => break,
                        Err(StoreError::Conflict { .. }) => conflicts += 1,
                        Err(e) => panic!("task {t} append {i}: {e}"),
                    }
                }
            }
            conflicts
        }));
    }
    let mut conflicts = 0;
    for task in tasks {
        conflicts += task.await.expect("task");
    }
    eprintln!("concurrent appenders: {conflicts} conflicts retried");
    let mut total = 0;
    for g in &games {
        let log = store.load(g, 0, None).expect("load");
        check_chain(&log).unwrap_or_else(|e| panic!("the chain of {g} breaks: {e:?}"));
        assert_eq!(store.head(g).expect("head"), Some(log.len() as u64 - 1));
        total += log.len();
    }
    assert_eq!(total, TASKS * APPENDS, "every append landed exactly once ({conflicts} conflicts retried)");
    assert_eq!(store.scan(Side::Idempotency, b"conc/", 10_000).expect("scan").len(), TASKS * APPENDS);
    assert_eq!(store.games(None, 100).expect("games"), games);
}

/// Everything written before `close` is there after reopening.
pub async fn reopen_keeps_everything(open: &dyn Fn() -> Box<dyn EventStore>) {
    let (a, b) = (game_id("reopen", 1), game_id("reopen", 2));
    let (log_a, log_b);
    {
        let store = open();
        let mut w = new_game_write(&a, 4);
        w.side = vec![side(Side::Games, a.as_bytes(), Some("secret"))];
        store.append(w).await.expect("append");
        store.append(next_write(&last_event(store.as_ref(), &a), 2)).await.expect("append");
        store.append(new_game_write(&b, 1)).await.expect("append");
        store.put(vec![side(Side::Outbox, b"mail", Some("m"))]).await.expect("put");
        store.put_snapshot(&a, 3, b"snap").expect("snapshot");
        log_a = store.load(&a, 0, None).expect("load");
        log_b = store.load(&b, 0, None).expect("load");
        store.close().expect("close");
    }
    let store = open();
    assert_eq!(store.load(&a, 0, None).expect("load"), log_a);
    assert_eq!(store.load(&b, 0, None).expect("load"), log_b);
    assert_eq!(store.head(&a).expect("head"), Some(5));
    assert_eq!(store.get(Side::Games, a.as_bytes()).expect("get"), Some(b"secret".to_vec()));
    assert_eq!(store.get(Side::Outbox, b"mail").expect("get"), Some(b"m".to_vec()));
    assert_eq!(store.games(None, 10).expect("games"), vec![a.clone(), b]);
    // A snapshot is a cache: it may or may not have survived, but if it did it is intact.
    if let Some(s) = store.snapshot_at_or_before(&a, 10).expect("snapshot") {
        assert_eq!(s, (3, b"snap".to_vec()));
    }
    store.append(next_write(log_a.last().expect("events"), 1)).await.expect("append after reopening");
    check_chain(&store.load(&a, 0, None).expect("load")).expect("the chain holds");
    store.close().expect("close");
}

pub async fn append_after_close_fails(store: &dyn EventStore) {
    let g = game_id("closed", 1);
    store.append(new_game_write(&g, 1)).await.expect("append");
    let next = next_write(&last_event(store, &g), 1);
    store.close().expect("close");
    match store.append(next).await {
        Err(StoreError::Closed) => {}
        other => panic!("expected Closed, got {other:?}"),
    }
    match store.put(vec![side(Side::Outbox, b"late", Some("x"))]).await {
        Err(StoreError::Closed) => {}
        other => panic!("expected Closed, got {other:?}"),
    }
}

/// Due work is claimed before it is acted on: on a store several nodes
/// share, a claimed record is not claimed again while its lease runs, and a
/// node that gives up on it cuts the lease so that any node takes it again
/// (before, a give-up left it waiting out the whole lease). On a store of
/// one node a claim is a scan and a release changes nothing.
pub async fn claims_and_releases(store: &dyn EventStore) {
    use std::time::Duration;
    let long = Duration::from_secs(3600);
    store
        .put(vec![
            side(Side::Deadlines, b"d1", Some("first")),
            side(Side::Deadlines, b"d2", Some("second")),
            side(Side::Deadlines, b"d9", Some("later")),
        ])
        .await
        .expect("put");
    let keys = |rows: Vec<(Vec<u8>, Vec<u8>)>| rows.into_iter().map(|(k, _)| k).collect::<Vec<_>>();
    let claimed = store.claim(Side::Deadlines, b"d", b"d5", 10, long).expect("claim");
    assert_eq!(keys(claimed), vec![b"d1".to_vec(), b"d2".to_vec()], "what sorts before `before`, in key order");
    let again = keys(store.claim(Side::Deadlines, b"d", b"d5", 10, long).expect("claim"));
    if store.shared() {
        assert!(again.is_empty(), "claimed records are not claimed again while leased: {again:?}");
    } else {
        assert_eq!(again.len(), 2, "one node: a claim is a scan");
    }
    store.release(Side::Deadlines, b"d2", Duration::ZERO).expect("release");
    let wait_for = |want: Vec<Vec<u8>>| async move {
        // The cut lease ends "now" by the database's clock: a claim made in
        // the same millisecond may not see it ended yet.
        for _ in 0..1000 {
            let got = keys(store.claim(Side::Deadlines, b"d", b"d5", 10, long).expect("claim"));
            if got == want {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("a released record is claimed again");
    };
    if store.shared() {
        wait_for(vec![b"d2".to_vec()]).await;
        // A release never lengthens a lease, nor claims an unclaimed record.
        store.release(Side::Deadlines, b"d9", Duration::ZERO).expect("release an unclaimed record");
        let later = keys(store.claim(Side::Deadlines, b"d", b"e", 10, long).expect("claim"));
        assert_eq!(later, vec![b"d9".to_vec()], "an unclaimed record stays unclaimed after a release");
    } else {
        wait_for(vec![b"d1".to_vec(), b"d2".to_vec()]).await;
    }
}

/// Every test of the suite, once, for a backend's own test module:
/// `store_suite!(#[tokio::test]; fresh())` where `fresh()` makes a new, empty
/// store and a guard kept alive for the test (its directory, or `()`). The
/// list lives here only, so a test added to the suite runs on every backend.
macro_rules! store_suite {
    (#[$test:meta]; $fresh:expr) => {
        $crate::store::suite::store_suite!(@each [$test] $fresh;
            claims_and_releases,
            append_new_game_and_load,
            raw_loads_read_what_loads_read,
            head_follows_appends,
            stale_expect_head_conflicts_and_leaves_nothing,
            new_game_on_existing_log_conflicts,
            malformed_writes_are_refused,
            side_records_are_atomic_with_events,
            side_records_read_are_checked_by_the_append,
            put_get_scan,
            snapshots,
            games_paging,
            append_after_close_fails,
        );

        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn concurrent_appenders() {
            let (store, _guard) = $fresh;
            $crate::store::suite::concurrent_appenders(std::sync::Arc::new(store)).await;
        }
    };
    (@each [$test:meta] $fresh:expr; $($name:ident),* $(,)?) => {$(
        #[$test]
        async fn $name() {
            let (store, _guard) = $fresh;
            $crate::store::suite::$name(&store).await;
        }
    )*};
}
pub(crate) use store_suite;

/// The in-memory store meets the same contract.
mod memory_backend {
    use crate::store::memory::MemoryStore;

    super::store_suite!(#[tokio::test]; (MemoryStore::default(), ()));
}
