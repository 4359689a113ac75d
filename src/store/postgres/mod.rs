//! The PostgreSQL backend (DESIGN.md §4), for operators who run several
//! identical nodes on one database.
//!
//! Tables (`postgres/001_initial.sql`, shipped in the binary): `games` (one
//! row per log: its head seq and hash), `events` (unique on game and seq, the
//! event in the one stored form of [`codec`](super::codec)), `side_records`
//! and `snapshots`. Every table is keyed first by the game id.
//!
//! Appends are written in groups, one transaction for the appends waiting
//! at one moment (`group.rs`). Each append in it moves the game's head row with
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
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use runestone_engine::Envelope;
use tokio_postgres::error::SqlState;
use tokio_postgres::NoTls;

use super::codec::{encode_append, RawLog};
use super::{BoxFut, EventStore, GameId, Notice, Side, SideWrite, StoreError, StoreResult, Write, GAME_ID_LEN};

mod append;
mod group;
mod listen;
mod schema;
#[doc(hidden)]
pub mod testing;

use append::*;
use schema::*;

pub use group::GroupCounts;
pub use schema::{SchemaState, MIGRATIONS, SCHEMA_VERSION};

/// How long any one store call may take before its outcome is unknown.
pub const WRITE_BOUND: Duration = Duration::from_secs(20);

/// Connections per node for reads and side-record writes (the appends have
/// `group::COMMITTERS` of their own).
const READERS: usize = 12;

pub struct PgStore {
    runtime: Option<tokio::runtime::Runtime>,
    handle: tokio::runtime::Handle,
    /// Connections for reads and side-record writes; the committers' own.
    pool: Pool,
    writers: Pool,
    closed: AtomicBool,
    /// This store's name in its notices (random), so it can tell its own.
    node: String,
    /// Appends waiting for their group (`group.rs`).
    appends: tokio::sync::mpsc::UnboundedSender<group::Job>,
    queue: Arc<tokio::sync::Mutex<group::Queue>>,
    /// Held for writing, keeps the committers from taking their groups.
    gate: Arc<tokio::sync::RwLock<()>>,
    counts: Arc<GroupCounts>,
    /// The database's notices of other nodes' appends (`listen.rs`), and
    /// whether they are heard now.
    notices: tokio::sync::broadcast::Sender<Notice>,
    live: Arc<AtomicBool>,
    config: tokio_postgres::Config,
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
        store.handle.spawn(listen::run(
            store.config.clone(),
            store.node.clone(),
            store.notices.clone(),
            store.live.clone(),
        ));
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
        let pool = |size: usize| {
            let manager =
                Manager::from_config(config.clone(), NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
            Pool::builder(manager)
                .max_size(size)
                .runtime(deadpool_postgres::Runtime::Tokio1)
                .wait_timeout(Some(WRITE_BOUND))
                .create_timeout(Some(Duration::from_secs(10)))
                .build()
                .map_err(|e| StoreError::Io(format!("cannot set up the PostgreSQL connections: {e}")))
        };
        let (writers, pool) = (pool(group::COMMITTERS)?, pool(READERS)?);
        let (appends, queue) = tokio::sync::mpsc::unbounded_channel();
        let mut node = [0u8; 8];
        getrandom::fill(&mut node).map_err(|e| StoreError::Io(format!("no random bytes for the node's name: {e}")))?;
        let store = PgStore {
            handle: runtime.handle().clone(),
            runtime: Some(runtime),
            pool,
            writers,
            closed: AtomicBool::new(false),
            node: hex::encode(node),
            appends,
            queue: Arc::new(tokio::sync::Mutex::new(queue)),
            gate: Arc::default(),
            counts: Arc::default(),
            notices: tokio::sync::broadcast::channel(listen::NOTICES_HELD).0,
            live: Arc::default(),
            config: config.clone(),
        };
        store.block(|pool| async move {
            pool.get().await.map(drop).map_err(|e| {
                StoreError::Refused(format!(
                    "cannot reach the PostgreSQL database of storage.url ({e}): check that the server runs, \
                     that the address, user and password are right, and that the database exists"
                ))
            })
        })?;
        group::start(&store.handle, &store.writers, &store.node, &store.queue, &store.gate, &store.counts);
        Ok(store)
    }

    /// The groups of appends written so far, the appends they held,
    /// and those of them written alone after their group failed.
    pub fn group_counts(&self) -> (u64, u64, u64) {
        let c = &self.counts;
        (c.groups.load(Ordering::Relaxed), c.appends.load(Ordering::Relaxed), c.alone.load(Ordering::Relaxed))
    }

    /// Hold every committer until the guard is dropped: appends queue up
    /// meanwhile and go as one group (tests).
    #[doc(hidden)]
    pub fn hold_committers(&self) -> tokio::sync::OwnedRwLockWriteGuard<()> {
        let gate = self.gate.clone();
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.handle.spawn(async move {
            let _ = tx.send(gate.write_owned().await);
        });
        rx.recv().expect("the committers' queue")
    }

    /// Run `f` on the store's own runtime and wait for it (any thread, any
    /// runtime: the caller's thread only blocks).
    fn block<T, F, Fut>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(Pool) -> Fut,
        Fut: std::future::Future<Output = StoreResult<T>> + Send + 'static,
    {
        self.counts.reads.fetch_add(1, Ordering::Relaxed);
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
        self.writers.close();
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
        // Queued now, written with the group it lands in.
        let (reply, answer) = tokio::sync::oneshot::channel();
        let p = match prepare(write) {
            Ok(p) => p,
            Err(e) => return Box::pin(async move { Err(e) }),
        };
        if self.appends.send(group::Job { p, reply }).is_err() {
            return Box::pin(async move { Err(StoreError::Closed) });
        }
        self.spawn(async move { answer.await.unwrap_or(Err(StoreError::Closed)) })
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

    fn get_with_head(&self, side: Side, key: &[u8], game: &str) -> StoreResult<(Option<Vec<u8>>, Option<u64>)> {
        check_game(game)?;
        let (key, game) = (key.to_vec(), game.to_owned());
        self.block(move |pool| async move {
            let client = pool.get().await.map_err(pool_err)?;
            // One statement, one snapshot.
            let row = client
                .query_one(
                    &st(
                        &client,
                        "SELECT (SELECT value FROM side_records WHERE side = $1 AND key = $2), \
                         (SELECT head FROM games WHERE game = $3)",
                    )
                    .await?,
                    &[&side_tag(side), &key, &game],
                )
                .await
                .map_err(|e| db("read a side record and a game's head", e))?;
            Ok((row.get(0), row.get::<_, Option<i64>>(1).map(|h| h as u64)))
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

    fn notices(&self) -> Option<tokio::sync::broadcast::Receiver<Notice>> {
        Some(self.notices.subscribe())
    }

    fn notices_live(&self) -> bool {
        self.live.load(Ordering::SeqCst)
    }

    fn figures(&self) -> Vec<(&'static str, &'static str, &'static str, u64)> {
        let c = &self.counts;
        vec![
            ("reads_total", "Reads sent to PostgreSQL.", "counter", c.reads.load(Ordering::Relaxed)),
            ("groups_total", "Transactions of grouped appends.", "counter", c.groups.load(Ordering::Relaxed)),
            (
                "grouped_appends_total",
                "Appends written in those transactions.",
                "counter",
                c.appends.load(Ordering::Relaxed),
            ),
            (
                "appends_alone_total",
                "Appends written alone after their group could not be written whole.",
                "counter",
                c.alone.load(Ordering::Relaxed),
            ),
            (
                "notices_live",
                "1 while the database's notices of other nodes' appends are heard.",
                "gauge",
                u64::from(self.notices_live()),
            ),
        ]
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
        a.put(vec![SideWrite { side: Side::Games, key: g.as_bytes().to_vec(), value: Some(b"rec".to_vec()) }])
            .await
            .expect("put");
        assert_eq!(b.get_with_head(Side::Games, g.as_bytes(), &g).expect("read"), (Some(b"rec".to_vec()), Some(2)));
        let none = suite::game_id("nodes", 2);
        assert_eq!(b.get_with_head(Side::Games, none.as_bytes(), &none).expect("read"), (None, None));
    }

    fn record(g: &str, v: &[u8]) -> SideWrite {
        SideWrite { side: Side::Games, key: g.as_bytes().to_vec(), value: Some(v.to_vec()) }
    }

    /// The writes held back together, then let go as one group: their results.
    async fn as_one_group(store: &PgStore, writes: Vec<Write>) -> Vec<StoreResult<()>> {
        let held = store.hold_committers();
        let pending: Vec<_> = writes.into_iter().map(|w| store.append(w)).collect();
        drop(held);
        let mut results = Vec::new();
        for p in pending {
            results.push(p.await);
        }
        results
    }

    /// Appends of five games waiting together, two of them stale (a moved
    /// head, a changed record): one transaction, in which the stale ones
    /// are refused alone, nothing of them written, and the others written.
    #[tokio::test]
    async fn appends_waiting_together_are_one_group_and_each_is_refused_alone() {
        let store = fresh();
        let games: Vec<GameId> = (0..5).map(|i| suite::game_id("group", i)).collect();
        let mut firsts = Vec::new();
        for g in &games {
            let w = suite::new_game_write(g, 1);
            firsts.push(w.events[0].clone());
            store.append(w).await.expect("create");
        }
        store.append(suite::next_write(&firsts[0], 1)).await.expect("game 0 moves on");
        store.put(vec![record(&games[1], b"now")]).await.expect("put");
        let before = store.group_counts();
        let writes = firsts
            .iter()
            .enumerate()
            .map(|(i, first)| {
                let mut w = suite::next_write(first, 1);
                if i == 1 {
                    w.unchanged = vec![record(&games[1], b"then")];
                }
                w.side.push(record(&games[i], b"written"));
                w
            })
            .collect();
        let results = as_one_group(&store, writes).await;
        let after = store.group_counts();
        assert_eq!((after.0 - before.0, after.1 - before.1, after.2 - before.2), (1, 5, 0), "five appends, one group");
        match &results[0] {
            Err(StoreError::Conflict { expected: Some(0), found: Some(1), .. }) => {}
            other => panic!("a stale head is a conflict, got {other:?}"),
        }
        assert!(matches!(results[1], Err(StoreError::Changed { .. })), "{:?}", results[1]);
        assert_eq!(store.get(Side::Games, games[1].as_bytes()).expect("get"), Some(b"now".to_vec()));
        for (i, g) in games.iter().enumerate().take(2) {
            assert_eq!(store.head(g).expect("head"), Some(i as u64 ^ 1), "refused: nothing written");
            assert_ne!(store.get(Side::Games, g.as_bytes()).expect("get"), Some(b"written".to_vec()));
        }
        for (i, r) in results.iter().enumerate().skip(2) {
            assert!(r.is_ok(), "append {i}: {r:?}");
            assert_eq!(store.head(&games[i]).expect("head"), Some(1));
            assert_eq!(store.get(Side::Games, games[i].as_bytes()).expect("get"), Some(b"written".to_vec()));
        }
    }

    /// A member whose events are already in the log though its head row
    /// says otherwise (damage) meets the primary key: the group's
    /// transaction ends unwritten, and each member is written alone, so only
    /// that one is refused.
    #[tokio::test]
    async fn the_primary_key_backstop_fails_only_its_own_append() {
        let store = fresh();
        let games: Vec<GameId> = (0..3).map(|i| suite::game_id("backstop", i)).collect();
        let mut created = Vec::new();
        for g in &games {
            let w = suite::new_game_write(g, 2);
            store.append(w.clone()).await.expect("create");
            created.push(w.events);
        }
        store.execute_sql(&format!("UPDATE games SET head = 0 WHERE game = '{}'", games[1])).expect("sql");
        // Games 0 and 2 at their real head; game 1 at its damaged one.
        let writes = created.iter().enumerate().map(|(i, ev)| suite::next_write(&ev[usize::from(i != 1)], 1)).collect();
        let before = store.group_counts();
        let results = as_one_group(&store, writes).await;
        let after = store.group_counts();
        assert_eq!((after.0 - before.0, after.1 - before.1, after.2 - before.2), (1, 3, 3), "written one by one");
        assert!(matches!(results[1], Err(StoreError::Conflict { .. })), "{:?}", results[1]);
        assert_eq!(store.load(&games[1], 1, Some(1)).expect("load"), vec![created[1][1].clone()], "its log is kept");
        assert!(results[0].is_ok() && results[2].is_ok(), "{results:?}");
        assert_eq!(store.head(&games[0]).expect("head"), Some(2));
        assert_eq!(store.head(&games[2]).expect("head"), Some(2));
    }

    /// Wait (bounded) until `store` hears the database's notices.
    fn until_live(store: &PgStore) {
        let t0 = std::time::Instant::now();
        while !store.notices_live() {
            assert!(t0.elapsed() < Duration::from_secs(60), "the store never heard the database's notices");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A node hears of the other node's appends, with the new head, and
    /// not of its own.
    #[tokio::test]
    async fn a_node_is_told_of_the_other_nodes_appends() {
        let url = testing::fresh_database();
        let (a, b) = (PgStore::open(&url).expect("open"), PgStore::open(&url).expect("open"));
        until_live(&a);
        until_live(&b);
        let (mut heard_a, mut heard_b) = (a.notices().expect("notices"), b.notices().expect("notices"));
        let (g, h) = (suite::game_id("told", 1), suite::game_id("told", 2));
        let w = suite::new_game_write(&g, 3);
        a.append(w.clone()).await.expect("append on a");
        b.append(suite::new_game_write(&h, 1)).await.expect("append on b");
        let next = |rx: &mut tokio::sync::broadcast::Receiver<Notice>| {
            let t0 = std::time::Instant::now();
            loop {
                match rx.try_recv() {
                    Ok(n) => return n,
                    Err(tokio::sync::broadcast::error::TryRecvError::Empty) => {
                        assert!(t0.elapsed() < Duration::from_secs(60), "no notice came");
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(e) => panic!("no notice: {e}"),
                }
            }
        };
        assert_eq!(next(&mut heard_b), Notice::Moved { game: g.clone(), head: Some(2) });
        assert_eq!(next(&mut heard_a), Notice::Moved { game: h.clone(), head: Some(0) }, "a hears b's, not its own");
        b.append(suite::next_write(w.events.last().expect("events"), 2)).await.expect("append on b");
        assert_eq!(next(&mut heard_a), Notice::Moved { game: g, head: Some(4) });
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
