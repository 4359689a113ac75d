//! The PostgreSQL backend (DESIGN.md §4), for operators who run several
//! identical nodes on one database.
//!
//! Tables (`postgres/001_initial.sql`, shipped in the binary): `games` (one
//! row per log: its head seq and hash), `events` (unique on game and seq, the
//! event in the one stored form of [`codec`](super::codec)), `side_records`
//! and `snapshots`. Every table is keyed first by the game id.
//!
//! An append is one transaction: it moves the game's head row with
//! `UPDATE games SET head = new WHERE game = g AND head = expected` (or
//! inserts it for a new game), inserts the events and applies the side
//! records, then commits. Of two nodes appending to one game at once, the
//! second waits on the row lock, finds the head moved and gets
//! [`StoreError::Conflict`] with nothing written; the events' unique key is
//! the backstop. A commit is durable when PostgreSQL answers it
//! (`synchronous_commit` is on by default); a connection lost during the
//! commit leaves the outcome unknown, answered as [`StoreError::Io`].
//!
//! The trait's reads are synchronous and are called from async handlers, on
//! any kind of runtime (a current-thread one in tests). So the store owns its
//! own small multi-thread tokio runtime, which drives a pool of connections
//! (deadpool-postgres): a synchronous read spawns its query there and waits
//! on a reply channel (the caller's thread blocks, as it does on a sled read,
//! but no runtime is ever entered twice); an async write spawns there and
//! awaits the join handle, so it works from any runtime.
//!
//! The schema has a version (`schema_version`); [`PgStore::open`] creates
//! the schema in an empty database and refuses a database whose schema is
//! older or newer than this build's, saying what to run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use runestone_engine::Envelope;
use tokio_postgres::error::SqlState;
use tokio_postgres::NoTls;

use super::codec::{encode_append, RawLog};
use super::{BoxFut, EventStore, GameId, Side, SideWrite, StoreError, StoreResult, Write, GAME_ID_LEN};

mod append;
mod schema;
#[doc(hidden)]
pub mod testing;

use append::*;
use schema::*;

pub use schema::{SchemaState, MIGRATIONS, SCHEMA_VERSION};

/// How long any one store call may take before its outcome is unknown.
pub const WRITE_BOUND: Duration = Duration::from_secs(20);

/// Connections per node.
const POOL_SIZE: usize = 16;

pub struct PgStore {
    runtime: Option<tokio::runtime::Runtime>,
    handle: tokio::runtime::Handle,
    pool: Pool,
    closed: AtomicBool,
}

fn side_tag(s: Side) -> i16 {
    (match s {
        Side::Games => b'g',
        Side::Idempotency => b'i',
        Side::Outbox => b'o',
        Side::Deadlines => b'd',
    }) as i16
}

fn is_game_id(b: &[u8]) -> bool {
    b.len() == GAME_ID_LEN && b.iter().all(u8::is_ascii_alphanumeric)
}

/// The game a side record's key names (its distribution key), or "" for the
/// node-wide queues (outbox by due time, creation idempotency). Only the key
/// decides, so a record's row never moves.
pub(crate) fn game_of(side: Side, key: &[u8]) -> String {
    let pick = |r: std::ops::Range<usize>| key.get(r).filter(|b| is_game_id(b));
    let found = match side {
        Side::Games => pick(0..GAME_ID_LEN),
        Side::Idempotency => pick(0..GAME_ID_LEN).filter(|_| key.get(GAME_ID_LEN) == Some(&b'/')),
        Side::Outbox => pick(1..1 + GAME_ID_LEN).filter(|_| key.first() == Some(&b'x')),
        Side::Deadlines => pick(9..9 + GAME_ID_LEN).filter(|_| key.first() == Some(&b'd')),
    };
    found.map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default()
}

/// The smallest key greater than every key starting with `prefix`, if any.
fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

fn seq_param(seq: u64) -> i64 {
    i64::try_from(seq).unwrap_or(i64::MAX)
}

fn check_game(game: &str) -> StoreResult<()> {
    if game.len() != GAME_ID_LEN {
        return Err(StoreError::Malformed(format!(
            "a game id is {GAME_ID_LEN} bytes long; {game:?} is {}",
            game.len()
        )));
    }
    Ok(())
}

/// A database error in our words (with its SQLSTATE code); PostgreSQL's own
/// text goes to the server's log, never into an answer.
fn db(context: &str, e: tokio_postgres::Error) -> StoreError {
    tracing::error!(error = %e, detail = ?e.as_db_error().map(|d| d.message()), "PostgreSQL could not {context}");
    match e.as_db_error() {
        Some(d) => StoreError::Io(format!(
            "PostgreSQL refused to {context} (SQLSTATE {}); the server's log has its words",
            d.code().code()
        )),
        None if e.is_closed() => {
            StoreError::Io(format!("the connection to PostgreSQL was lost while trying to {context}"))
        }
        None => StoreError::Io(format!("PostgreSQL could not {context}; the server's log has why")),
    }
}

fn pool_err(e: deadpool_postgres::PoolError) -> StoreError {
    tracing::error!(error = %e, "no connection to PostgreSQL");
    StoreError::Io("no connection to PostgreSQL could be had; the server's log has why".into())
}

/// A statement prepared once per connection (one round trip per query after).
async fn st(client: &impl deadpool_postgres::GenericClient, sql: &str) -> StoreResult<tokio_postgres::Statement> {
    client.prepare_cached(sql).await.map_err(|e| db("prepare a statement", e))
}

impl PgStore {
    /// Connect to `url` (a `postgresql://` URL or `key=value` settings),
    /// create the schema in an empty database, and refuse one that cannot
    /// be reached or whose schema is not this build's.
    pub fn open(url: &str) -> StoreResult<PgStore> {
        let store = Self::connect(url)?;
        let state = store.block(|pool| async move {
            let mut client = pool.get().await.map_err(pool_err)?;
            if schema_state_of(&client).await? == SchemaState::Empty {
                migrate_client(&mut client).await?;
            }
            schema_state_of(&client).await
        })?;
        match state {
            SchemaState::Version(v) if v == SCHEMA_VERSION => Ok(store),
            SchemaState::Version(v) if v < SCHEMA_VERSION => Err(StoreError::Refused(format!(
                "the PostgreSQL database has runestone's schema version {v}, older than this build's version \
                 {SCHEMA_VERSION}: run `runestone migrate-schema --url URL` with the database's URL, then start again"
            ))),
            SchemaState::Version(v) => Err(StoreError::Refused(format!(
                "the PostgreSQL database has runestone's schema version {v}, newer than this build's version \
                 {SCHEMA_VERSION}: run a runestone release at least as new as the one that upgraded it"
            ))),
            SchemaState::Empty => Err(StoreError::Refused("the runestone schema could not be created".into())),
        }
    }

    /// Bring the schema of the database at `url` up to this build's version,
    /// applying each missing migration in its own transaction. Returns the
    /// versions before and after.
    pub fn migrate(url: &str) -> StoreResult<(i32, i32)> {
        let store = Self::connect(url)?;
        store.block(|pool| async move {
            let mut client = pool.get().await.map_err(pool_err)?;
            let before = match schema_state_of(&client).await? {
                SchemaState::Empty => 0,
                SchemaState::Version(v) => v,
            };
            migrate_client(&mut client).await?;
            Ok((before, SCHEMA_VERSION))
        })
    }

    fn connect(url: &str) -> StoreResult<PgStore> {
        let config: tokio_postgres::Config = url.parse().map_err(|_| {
            StoreError::Refused(
                "storage.url is not a PostgreSQL address: write it as postgresql://USER:PASSWORD@HOST:PORT/DATABASE \
                 or as key=value settings (host=... dbname=...)"
                    .into(),
            )
        })?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("runestone-postgres")
            .enable_all()
            .build()
            .map_err(|e| StoreError::Io(format!("cannot start the PostgreSQL client's threads: {e}")))?;
        let manager = Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(WRITE_BOUND))
            .create_timeout(Some(Duration::from_secs(10)))
            .build()
            .map_err(|e| StoreError::Io(format!("cannot set up the PostgreSQL connections: {e}")))?;
        let store =
            PgStore { handle: runtime.handle().clone(), runtime: Some(runtime), pool, closed: AtomicBool::new(false) };
        store.block(|pool| async move {
            pool.get().await.map(drop).map_err(|e| {
                StoreError::Refused(format!(
                    "cannot reach the PostgreSQL database of storage.url ({e}): check that the server runs, \
                     that the address, user and password are right, and that the database exists"
                ))
            })
        })?;
        Ok(store)
    }

    /// Run `f` on the store's own runtime and wait for it (any thread, any
    /// runtime: the caller's thread only blocks).
    fn block<T, F, Fut>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(Pool) -> Fut,
        Fut: std::future::Future<Output = StoreResult<T>> + Send + 'static,
    {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let fut = f(self.pool.clone());
        self.handle.spawn(async move {
            let _ = tx.send(fut.await);
        });
        match rx.recv_timeout(WRITE_BOUND) {
            Ok(r) => r,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(StoreError::TimedOut(WRITE_BOUND.as_secs())),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(StoreError::Closed),
        }
    }

    /// Run `fut` on the store's own runtime; the returned future can be
    /// awaited on any runtime.
    fn spawn<T: Send + 'static>(
        &self,
        fut: impl std::future::Future<Output = StoreResult<T>> + Send + 'static,
    ) -> BoxFut<'_, StoreResult<T>> {
        let task = self.handle.spawn(tokio::time::timeout(WRITE_BOUND, fut));
        Box::pin(async move {
            match task.await {
                Ok(Ok(r)) => r,
                Ok(Err(_)) => Err(StoreError::TimedOut(WRITE_BOUND.as_secs())),
                Err(_) => Err(StoreError::Closed),
            }
        })
    }

    fn refuse_closed(&self) -> StoreResult<()> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(StoreError::Closed);
        }
        Ok(())
    }

    /// Run raw SQL (tests and tools: damage a table, read a count).
    #[doc(hidden)]
    pub fn execute_sql(&self, sql: &str) -> StoreResult<()> {
        let sql = sql.to_owned();
        self.block(move |pool| async move {
            let client = pool.get().await.map_err(pool_err)?;
            client.batch_execute(&sql).await.map_err(|e| db("run a statement", e))
        })
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        self.pool.close();
        // Dropping a runtime may not block inside another runtime.
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

impl EventStore for PgStore {
    fn append(&self, write: Write) -> BoxFut<'_, StoreResult<()>> {
        if let Err(e) = self.refuse_closed() {
            return Box::pin(async move { Err(e) });
        }
        match prepare(write) {
            Ok(p) => self.spawn(append_in(self.pool.clone(), p)),
            Err(e) => Box::pin(async move { Err(e) }),
        }
    }

    fn head(&self, game: &str) -> StoreResult<Option<u64>> {
        check_game(game)?;
        let game = game.to_owned();
        self.block(|pool| async move {
            let client = pool.get().await.map_err(pool_err)?;
            head_of(&client, &game).await
        })
    }

    fn load(&self, game: &str, from: u64, to: Option<u64>) -> StoreResult<Vec<Envelope>> {
        // One read path: the stored bytes as a fold reads them, then each
        // event decoded whole (`RawLog::envelopes` checks the chain).
        self.load_raw(game, from, to)?.envelopes()
    }

    fn load_raw(&self, game: &str, from: u64, to: Option<u64>) -> StoreResult<RawLog> {
        check_game(game)?;
        let to = to.unwrap_or(u64::MAX);
        if to < from {
            return Ok(RawLog::new(game, from));
        }
        let game = game.to_owned();
        self.block(move |pool| async move {
            let client = pool.get().await.map_err(pool_err)?;
            // One statement, one snapshot: the head row and the events.
            let rows = client
                .query(
                    &st(&client, "SELECT g.head, e.seq, e.event FROM games g \
                     LEFT JOIN events e ON e.game = g.game AND e.seq BETWEEN $2 AND $3 \
                     WHERE g.game = $1 ORDER BY e.seq").await?,
                    // From the event before the range: its hash is what the
                    // range's first event links to (`RawLog::push_before`).
                    &[&game, &seq_param(from.saturating_sub(1)), &seq_param(to)],
                )
                .await
                .map_err(|e| db("read a game's log", e))?;
            let mut out = RawLog::new(&game, from);
            out.reserve(rows.len());
            let Some(head) = rows.first().map(|r| r.get::<_, i64>(0) as u64) else {
                return Ok(out);
            };
            for row in &rows {
                let Some(seq) = row.get::<_, Option<i64>>(1) else { continue };
                if from > 0 && seq as u64 == from - 1 {
                    out.push_before(row.get(2))?;
                    continue;
                }
                let want = out.next_seq();
                if seq as u64 != want {
                    return Err(StoreError::Corrupt(format!("game {game} seq {want}: missing (the log jumps to {seq})")));
                }
                let bytes: &[u8] = row.get(2);
                out.push(bytes)?;
            }
            let end = to.min(head);
            if from <= end && out.last_seq() != Some(end) {
                return Err(StoreError::Corrupt(format!(
                    "game {game}: the log ends at {} but its head row says seq {head}: events up to seq {end} are missing",
                    out.last_seq().map_or_else(|| "nothing".to_string(), |l| format!("seq {l}"))
                )));
            }
            Ok(out)
        })
    }

    fn get(&self, side: Side, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        let key = key.to_vec();
        self.block(move |pool| async move {
            let client = pool.get().await.map_err(pool_err)?;
            let row = client
                .query_opt(
                    &st(&client, "SELECT value FROM side_records WHERE side = $1 AND key = $2").await?,
                    &[&side_tag(side), &key],
                )
                .await
                .map_err(|e| db("read a side record", e))?;
            Ok(row.map(|r| r.get(0)))
        })
    }

    fn scan(&self, side: Side, prefix: &[u8], limit: usize) -> StoreResult<Vec<(Vec<u8>, Vec<u8>)>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let (start, end) = (prefix.to_vec(), prefix_end(prefix));
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.block(move |pool| async move {
            let client = pool.get().await.map_err(pool_err)?;
            let rows = match &end {
                Some(end) => {
                    client
                        .query(
                            &st(
                                &client,
                                "SELECT key, value FROM side_records WHERE side = $1 AND key >= $2 AND key < $3 \
                         ORDER BY key LIMIT $4",
                            )
                            .await?,
                            &[&side_tag(side), &start, end, &limit],
                        )
                        .await
                }
                None => client
                    .query(
                        &st(
                            &client,
                            "SELECT key, value FROM side_records WHERE side = $1 AND key >= $2 ORDER BY key LIMIT $3",
                        )
                        .await?,
                        &[&side_tag(side), &start, &limit],
                    )
                    .await,
            }
            .map_err(|e| db("scan side records", e))?;
            Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
        })
    }

    fn claim(
        &self,
        side: Side,
        prefix: &[u8],
        before: &[u8],
        limit: usize,
        lease: Duration,
    ) -> StoreResult<Vec<(Vec<u8>, Vec<u8>)>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let end = match prefix_end(prefix) {
            Some(end) if end.as_slice() < before => end,
            _ => before.to_vec(),
        };
        let start = prefix.to_vec();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let lease_ms = i64::try_from(lease.as_millis()).unwrap_or(i64::MAX);
        self.block(move |pool| async move {
            let client = pool.get().await.map_err(pool_err)?;
            // Rows another node is claiming right now are skipped, not
            // waited for; rows another node holds a lease on are not due.
            let mut rows = client
                .query(
                    &st(
                        &client,
                        "UPDATE side_records s SET claimed_until = now() + $5 * interval '1 millisecond' \
                     FROM (SELECT game, side, key FROM side_records \
                           WHERE side = $1 AND key >= $2 AND key < $3 \
                             AND (claimed_until IS NULL OR claimed_until < now()) \
                           ORDER BY key LIMIT $4 FOR UPDATE SKIP LOCKED) due \
                     WHERE s.game = due.game AND s.side = due.side AND s.key = due.key \
                     RETURNING s.key, s.value",
                    )
                    .await?,
                    &[&side_tag(side), &start, &end, &limit, &(lease_ms as f64)],
                )
                .await
                .map_err(|e| db("claim due records", e))?
                .into_iter()
                .map(|r| (r.get::<_, Vec<u8>>(0), r.get::<_, Vec<u8>>(1)))
                .collect::<Vec<_>>();
            rows.sort();
            Ok(rows)
        })
    }

    fn release(&self, side: Side, key: &[u8], after: Duration) -> StoreResult<()> {
        let key = key.to_vec();
        let after_ms = after.as_millis() as f64;
        self.block(move |pool| async move {
            let client = pool.get().await.map_err(pool_err)?;
            // Only a lease that ends later is cut; an unclaimed record stays so.
            client
                .execute(
                    &st(
                        &client,
                        "UPDATE side_records SET claimed_until = now() + $3 * interval '1 millisecond' \
                         WHERE side = $1 AND key = $2 AND claimed_until > now() + $3 * interval '1 millisecond'",
                    )
                    .await?,
                    &[&side_tag(side), &key, &after_ms],
                )
                .await
                .map_err(|e| db("release a claimed record", e))?;
            Ok(())
        })
    }

    fn put(&self, writes: Vec<SideWrite>) -> BoxFut<'_, StoreResult<()>> {
        if let Err(e) = self.refuse_closed() {
            return Box::pin(async move { Err(e) });
        }
        let pool = self.pool.clone();
        self.spawn(async move {
            if writes.is_empty() {
                return Ok(());
            }
            let mut client = pool.get().await.map_err(pool_err)?;
            let tx = client.transaction().await.map_err(|e| db("begin a transaction", e))?;
            apply_side(&tx, &writes).await?;
            tx.commit().await.map_err(|e| db("commit side records", e))
        })
    }

    fn put_snapshot(&self, game: &str, seq: u64, snapshot: &[u8]) -> StoreResult<()> {
        check_game(game)?;
        let (game, snapshot) = (game.to_owned(), snapshot.to_vec());
        self.block(move |pool| async move {
            let client = pool.get().await.map_err(pool_err)?;
            client
                .execute(
                    &st(
                        &client,
                        "INSERT INTO snapshots (game, seq, snapshot) VALUES ($1, $2, $3) \
                     ON CONFLICT (game, seq) DO UPDATE SET snapshot = EXCLUDED.snapshot",
                    )
                    .await?,
                    &[&game, &seq_param(seq), &snapshot],
                )
                .await
                .map_err(|e| db("write a snapshot", e))?;
            Ok(())
        })
    }

    fn snapshot_at_or_before(&self, game: &str, seq: u64) -> StoreResult<Option<(u64, Vec<u8>)>> {
        check_game(game)?;
        let game = game.to_owned();
        self.block(move |pool| async move {
            let client = pool.get().await.map_err(pool_err)?;
            let row = client
                .query_opt(
                    &st(
                        &client,
                        "SELECT seq, snapshot FROM snapshots WHERE game = $1 AND seq <= $2 ORDER BY seq DESC LIMIT 1",
                    )
                    .await?,
                    &[&game, &seq_param(seq)],
                )
                .await
                .map_err(|e| db("read a snapshot", e))?;
            Ok(row.map(|r| (r.get::<_, i64>(0) as u64, r.get(1))))
        })
    }

    fn games(&self, after: Option<&str>, limit: usize) -> StoreResult<Vec<GameId>> {
        if let Some(a) = after {
            check_game(a)?;
        }
        if limit == 0 {
            return Ok(Vec::new());
        }
        let after = after.unwrap_or("").to_owned();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.block(move |pool| async move {
            let client = pool.get().await.map_err(pool_err)?;
            let rows = client
                .query(
                    &st(&client, "SELECT game FROM games WHERE game > $1 ORDER BY game LIMIT $2").await?,
                    &[&after, &limit],
                )
                .await
                .map_err(|e| db("list the games", e))?;
            Ok(rows.into_iter().map(|r| r.get(0)).collect())
        })
    }

    fn shared(&self) -> bool {
        true
    }

    fn close(&self) -> StoreResult<()> {
        // Every acknowledged write is already committed; refuse new ones.
        self.closed.store(true, Ordering::SeqCst);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::store::suite;

    fn fresh() -> PgStore {
        PgStore::open(&testing::fresh_database()).expect("open the test database")
    }

    suite::store_suite!(#[tokio::test]; (fresh(), ()));

    #[tokio::test]
    async fn reopen_keeps_everything() {
        let url = testing::fresh_database();
        suite::reopen_keeps_everything(&|| Box::new(PgStore::open(&url).expect("open"))).await;
    }

    #[tokio::test]
    async fn two_stores_on_one_database_see_each_other_and_conflict() {
        let url = testing::fresh_database();
        let (a, b) = (PgStore::open(&url).expect("open"), PgStore::open(&url).expect("open"));
        let g = suite::game_id("nodes", 1);
        let w = suite::new_game_write(&g, 2);
        a.append(w.clone()).await.expect("create on node a");
        assert_eq!(b.head(&g).expect("head"), Some(1), "node b reads node a's append");
        let last = w.events.last().expect("events");
        b.append(suite::next_write(last, 1)).await.expect("node b appends");
        match a.append(suite::next_write(last, 1)).await {
            Err(StoreError::Conflict { expected: Some(1), found: Some(2), .. }) => {}
            other => panic!("a stale append from node a must conflict, got {other:?}"),
        }
        assert_eq!(a.load(&g, 0, None).expect("load").len(), 3);
    }

    #[tokio::test]
    async fn an_unreachable_database_is_refused_in_our_words() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = PgStore::open(&format!("host={} port=1 user=nobody dbname=none", dir.path().display()))
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains("cannot reach the PostgreSQL database of storage.url"), "{err}");
        let err = PgStore::open("postgresql://[::1").err().expect("refused").to_string();
        assert!(err.contains("storage.url is not a PostgreSQL address"), "{err}");
    }

    #[tokio::test]
    async fn a_changed_event_breaks_the_chain_at_read() {
        let store = fresh();
        let g = suite::game_id("damage", 1);
        store.append(suite::new_game_write(&g, 3)).await.expect("append");
        store.execute_sql(&format!("DELETE FROM events WHERE game = '{g}' AND seq = 2")).expect("sql");
        match store.load(&g, 0, None) {
            Err(StoreError::Corrupt(m)) => assert!(m.contains("missing"), "{m}"),
            other => panic!("a shortened log is damage, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_due_record_is_claimed_by_one_node_until_its_lease_ends() {
        let url = testing::fresh_database();
        let (a, b) = (PgStore::open(&url).expect("open"), PgStore::open(&url).expect("open"));
        let put = |k: &[u8]| SideWrite { side: Side::Outbox, key: k.to_vec(), value: Some(b"mail".to_vec()) };
        a.put(vec![put(b"q1"), put(b"q2"), put(b"q9"), put(b"x1")]).await.expect("put");
        let lease = Duration::from_secs(600);
        let keys = |rows: Vec<(Vec<u8>, Vec<u8>)>| rows.into_iter().map(|(k, _)| k).collect::<Vec<_>>();
        assert_eq!(keys(a.claim(Side::Outbox, b"q", b"q5", 1, lease).expect("claim")), vec![b"q1".to_vec()]);
        assert_eq!(
            keys(b.claim(Side::Outbox, b"q", b"q5", 10, lease).expect("claim")),
            vec![b"q2".to_vec()],
            "node b gets what node a did not claim, and nothing not yet due"
        );
        assert!(a.claim(Side::Outbox, b"q", b"q5", 10, lease).expect("claim").is_empty(), "everything due is claimed");
        // A record written again (a retry) is free to claim again.
        b.put(vec![put(b"q2")]).await.expect("put");
        assert_eq!(keys(a.claim(Side::Outbox, b"q", b"q5", 10, lease).expect("claim")), vec![b"q2".to_vec()]);
        // An ended lease (its node died) frees the record.
        let short = Duration::from_millis(1);
        b.put(vec![put(b"q3")]).await.expect("put");
        assert_eq!(keys(b.claim(Side::Outbox, b"q", b"q5", 10, short).expect("claim")), vec![b"q3".to_vec()]);
        let mut again = Vec::new();
        for _ in 0..200 {
            again = keys(a.claim(Side::Outbox, b"q", b"q5", 10, lease).expect("claim"));
            if !again.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(again, vec![b"q3".to_vec()]);
        assert_eq!(a.scan(Side::Outbox, b"", 10).expect("scan").len(), 5, "claims remove nothing");
    }

    #[test]
    fn side_records_are_keyed_by_the_game_their_key_names() {
        let g = "abcdefgh12345678";
        assert_eq!(game_of(Side::Games, g.as_bytes()), g);
        assert_eq!(game_of(Side::Idempotency, format!("{g}/1\0key").as_bytes()), g);
        assert_eq!(game_of(Side::Idempotency, b"~create\0key"), "");
        assert_eq!(game_of(Side::Outbox, format!("x{g}/id").as_bytes()), g);
        assert_eq!(game_of(Side::Outbox, b"q\0\0\0\0\0\0\0\x01id"), "");
        let mut d = b"d".to_vec();
        d.extend_from_slice(&5u64.to_be_bytes());
        d.extend_from_slice(g.as_bytes());
        d.push(0);
        assert_eq!(game_of(Side::Deadlines, &d), g);
        assert_eq!(prefix_end(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_end(b"a\xff"), Some(b"b".to_vec()));
        assert_eq!(prefix_end(b"\xff\xff"), None);
        assert_eq!(prefix_end(b""), None);
    }
}
