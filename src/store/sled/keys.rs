//! The main tree's keys (events, head records, side records, the manifest,
//! the intent, the journal's mark) and the records read by key: a game's
//! head checked against its head record, the manifest's count, and the
//! summary a clean close leaves in the marker file.

use super::*;

/// Kind byte of event keys in the main tree.
pub(super) const EVENT: u8 = b'e';

/// Length of an event key: kind ‖ game id ‖ seq.
pub(super) const EVENT_KEY_LEN: usize = 1 + GAME_ID_LEN + 8;

/// Kind byte of head records: `h ‖ game id` → seq (u64 big-endian) ‖ hash.
pub(super) const HEAD: u8 = b'h';

/// The manifest: how many games have a head record (u64 big-endian). Its
/// presence also says that sled's files hold a runestone store.
pub(super) const MANIFEST: &[u8] = b"m:games";

/// The file beside sled's own that says a store was created in this
/// directory, so sled starting empty on a damaged `db` file is noticed.
pub const MARKER: &str = "runestone.store";

/// The intent of the last group: the keys of its events and its other
/// writes whole, to complete or undo the group at open (see the module docs).
pub(super) const INTENT: &[u8] = b"w:group";

/// Present once the store has a journal (`store::journal`): a store
/// without its journal file then is damaged, not one from before journals.
pub(super) const JOURNAL_KEY: &[u8] = b"w:journal";

pub(super) fn game_key(game: &str) -> StoreResult<GameKey> {
    game.as_bytes().try_into().map_err(|_| {
        StoreError::Malformed(format!("a game id is {GAME_ID_LEN} bytes long; {game:?} is {}", game.len()))
    })
}

pub(super) fn event_key(game: &GameKey, seq: u64) -> [u8; EVENT_KEY_LEN] {
    let mut k = [0u8; EVENT_KEY_LEN];
    k[0] = EVENT;
    k[1..1 + GAME_ID_LEN].copy_from_slice(game);
    k[1 + GAME_ID_LEN..].copy_from_slice(&seq.to_be_bytes());
    k
}

pub(super) fn event_prefix(game: &GameKey) -> [u8; 1 + GAME_ID_LEN] {
    let mut k = [0u8; 1 + GAME_ID_LEN];
    k[0] = EVENT;
    k[1..].copy_from_slice(game);
    k
}

pub(super) fn snapshot_key(game: &GameKey, seq: u64) -> [u8; GAME_ID_LEN + 8] {
    let mut k = [0u8; GAME_ID_LEN + 8];
    k[..GAME_ID_LEN].copy_from_slice(game);
    k[GAME_ID_LEN..].copy_from_slice(&seq.to_be_bytes());
    k
}

pub(super) fn seq_of(key: &[u8]) -> u64 {
    u64::from_be_bytes(key[key.len() - 8..].try_into().expect("8 bytes"))
}

pub(super) fn side_tag(side: Side) -> u8 {
    match side {
        Side::Games => b'g',
        Side::Idempotency => b'i',
        Side::Outbox => b'o',
        Side::Deadlines => b'd',
    }
}

pub(super) fn side_key(side: Side, key: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(1 + key.len());
    k.push(side_tag(side));
    k.extend_from_slice(key);
    k
}

pub(super) fn side_ops(writes: Vec<SideWrite>) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
    writes.into_iter().map(|w| (side_key(w.side, &w.key), w.value)).collect()
}

/// The seq of the last event of `game` in the main tree.
pub(super) fn read_head(main: &Tree, game: &GameKey) -> StoreResult<Option<u64>> {
    match main.scan_prefix(event_prefix(game)).next_back() {
        None => Ok(None),
        Some(Err(e)) => Err(read_err("reading the head", e)),
        Some(Ok((k, _))) if k.len() == EVENT_KEY_LEN => Ok(Some(seq_of(&k))),
        Some(Ok((k, _))) => Err(StoreError::Corrupt(format!("event key {k:?} has the wrong length"))),
    }
}

/// A sled error met while reading: damage sled's checksums found is
/// [`StoreError::Corrupt`], anything else is [`StoreError::Io`].
pub(super) fn read_err(context: &str, e: sled::Error) -> StoreError {
    match e {
        sled::Error::Corruption { .. } => StoreError::Corrupt(format!("{context}: sled found damaged data ({e})")),
        other => io(context, other),
    }
}

pub(super) fn head_key(game: &GameKey) -> [u8; 1 + GAME_ID_LEN] {
    let mut k = [0u8; 1 + GAME_ID_LEN];
    k[0] = HEAD;
    k[1..].copy_from_slice(game);
    k
}

pub(super) fn name(game: &GameKey) -> String {
    String::from_utf8_lossy(game).into_owned()
}

/// A game's head record: the seq and hash of its last event, written in the
/// same group as the events (after them). `None` for a game without one (no game, or a
/// game last written before head records existed).
pub(super) fn read_head_record(main: &Tree, game: &GameKey) -> StoreResult<Option<(u64, String)>> {
    let Some(v) = main.get(head_key(game)).map_err(|e| read_err("reading a head record", e))? else {
        return Ok(None);
    };
    let bad = || StoreError::Corrupt(format!("game {}: its head record is unreadable", name(game)));
    if v.len() < 8 {
        return Err(bad());
    }
    let seq = seq_of(&v[..8]);
    let hash = String::from_utf8(v[8..].to_vec()).map_err(|_| bad())?;
    Ok(Some((seq, hash)))
}

/// The log's head, checked against the head record: a log that ends before
/// its recorded head (or is gone) is damaged, never a shorter game. The
/// record is read first: a write landing between the two reads can only
/// move the log past it.
pub(super) fn verified_head(main: &Tree, game: &GameKey) -> StoreResult<Option<u64>> {
    let recorded = read_head_record(main, game)?;
    checked_head(main, game, recorded.map(|(seq, _)| seq))
}

/// The log's head, checked against the seq of the head record read before.
pub(super) fn checked_head(main: &Tree, game: &GameKey, recorded: Option<u64>) -> StoreResult<Option<u64>> {
    let found = read_head(main, game)?;
    match recorded {
        None => Ok(found),
        Some(seq) if found.is_some_and(|f| f >= seq) => Ok(found),
        Some(seq) => Err(StoreError::Corrupt(match found {
            None => format!("game {}: its whole log is missing (its head record says seq {seq})", name(game)),
            Some(f) => format!(
                "game {}: the log ends at seq {f} but its head record says seq {seq}: events {}..={seq} are missing",
                name(game),
                f + 1
            ),
        })),
    }
}

/// Add a head record to a group's writes.
pub(super) fn put_head_record(ops: &mut Ops, game: &GameKey, seq: u64, hash: &str) {
    let mut v = Vec::with_capacity(8 + hash.len());
    v.extend_from_slice(&seq.to_be_bytes());
    v.extend_from_slice(hash.as_bytes());
    ops.push((head_key(game).to_vec(), Some(v)));
}

/// How many games the manifest says have a head record.
pub(super) fn read_manifest(main: &Tree) -> StoreResult<Option<u64>> {
    match main.get(MANIFEST).map_err(|e| read_err("reading the manifest", e))? {
        None => Ok(None),
        Some(v) if v.len() == 8 => Ok(Some(seq_of(&v))),
        Some(_) => Err(StoreError::Corrupt("the manifest of games is unreadable".into())),
    }
}

/// Count the head records (one short key per game).
pub(super) fn count_head_records(main: &Tree) -> StoreResult<u64> {
    Ok(head_totals(main)?.0)
}

/// How many games have a head record, and how many events they name.
pub(super) fn head_totals(main: &Tree) -> StoreResult<(u64, u64)> {
    let (mut games, mut events) = (0u64, 0u64);
    for item in main.scan_prefix([HEAD]) {
        let (_, v) = item.map_err(|e| read_err("counting head records", e))?;
        games += 1;
        if v.len() >= 8 {
            events = events.saturating_add(seq_of(&v[..8]).saturating_add(1));
        }
    }
    Ok((games, events))
}

/// The first line of the marker file.
pub(super) const MARKER_TEXT: &str = "runestone event store: sled's files beside this one hold it\n";

/// The games and events the marker says the store held at its last clean
/// close (`None` when it says nothing readable).
pub(super) fn read_summary(path: &Path) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string(path.join(MARKER)).ok()?;
    let field = |name: &str| text.lines().find_map(|l| l.strip_prefix(name).and_then(|v| v.trim().parse::<u64>().ok()));
    Some((field("games ")?, field("events ")?))
}

pub(super) fn is_head_key(key: &[u8]) -> bool {
    key.len() == 1 + GAME_ID_LEN && key[0] == HEAD
}

pub(super) fn is_event_key(key: &[u8]) -> bool {
    key.len() == EVENT_KEY_LEN && key[0] == EVENT
}
