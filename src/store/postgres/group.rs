//! Group commit: the appends waiting at one moment go to PostgreSQL as one
//! transaction, so one commit (one WAL flush) acknowledges them all, as the
//! sled committer does with one fdatasync.
//!
//! A few committer tasks ([`COMMITTERS`], each with one connection of the
//! pool while it writes) take turns at the queue: the one whose turn it is
//! waits for the first append, takes every other one already queued (at
//! most [`MAX_GROUP`]) and lets the next committer wait while it writes. So
//! a lone append is written at once, and under load the groups grow with
//! the time a commit takes.
//!
//! Each member is checked alone inside the transaction, before it writes
//! anything: the records its writer read (locked until the commit), then
//! its head moved with `UPDATE ... WHERE head = expected`. A member refused
//! there has written nothing, so it is answered with its refusal and the
//! others go on. The members are taken in game order, so two groups (of
//! this node or another) lock the games they share in the same order. A
//! failure after a member's checks (the events' primary key (game, seq),
//! the backstop, or any error of the database) aborts the transaction
//! before its commit, so nothing of the group was written: each member is
//! then written again alone, in its own transaction, and answered as that
//! says. A commit whose answer is lost leaves every member's outcome
//! unknown ([`StoreError::Io`]), as for a single append.
//!
//! The commit also tells the database's listeners of each game moved
//! (`NOTIFY`, sent only when the transaction commits): see `listen.rs`.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, Mutex, RwLock};

use super::*;

/// Committer tasks per node: the connections writing at once.
pub(super) const COMMITTERS: usize = 4;

/// The most appends one transaction holds.
pub(super) const MAX_GROUP: usize = 64;

/// The channel of the notices of moved games (`LISTEN`/`NOTIFY`).
pub(super) const CHANNEL: &str = "runestone_heads";

/// One append waiting for its group, and where its answer goes.
pub(super) struct Job {
    pub(super) p: Prepared,
    pub(super) reply: oneshot::Sender<StoreResult<()>>,
}

/// Groups written, the appends they held, those written alone after their
/// group failed, and the store's reads (for tests and metrics).
#[derive(Default)]
pub struct GroupCounts {
    pub groups: AtomicU64,
    pub appends: AtomicU64,
    pub alone: AtomicU64,
    /// Reads sent to the database.
    pub reads: AtomicU64,
}

pub(super) type Queue = mpsc::UnboundedReceiver<Job>;

/// Start the committers on the store's runtime; they end when the queue's
/// sender is dropped.
pub(super) fn start(
    handle: &tokio::runtime::Handle,
    pool: &Pool,
    node: &str,
    queue: &Arc<Mutex<Queue>>,
    gate: &Arc<RwLock<()>>,
    counts: &Arc<GroupCounts>,
) {
    for _ in 0..COMMITTERS {
        handle.spawn(run(pool.clone(), node.to_owned(), queue.clone(), gate.clone(), counts.clone()));
    }
}

async fn run(pool: Pool, node: String, queue: Arc<Mutex<Queue>>, gate: Arc<RwLock<()>>, counts: Arc<GroupCounts>) {
    loop {
        let mut group = Vec::new();
        {
            let mut rx = queue.lock().await;
            match rx.recv().await {
                Some(job) => group.push(job),
                None => return,
            }
            // Closed only while a test holds the committers.
            let _open = gate.read().await;
            while group.len() < MAX_GROUP {
                match rx.try_recv() {
                    Ok(job) => group.push(job),
                    Err(_) => break,
                }
            }
        }
        commit(&pool, &node, group, &counts).await;
    }
}

/// Write one group and answer each member.
async fn commit(pool: &Pool, node: &str, mut group: Vec<Job>, counts: &GroupCounts) {
    // A writer that stopped waiting was told its outcome is not known:
    // writing it now would only land it long after.
    group.retain(|j| !j.reply.is_closed());
    if group.is_empty() {
        return;
    }
    group.sort_by(|a, b| a.p.game.cmp(&b.p.game));
    counts.groups.fetch_add(1, Ordering::Relaxed);
    counts.appends.fetch_add(group.len() as u64, Ordering::Relaxed);
    match write_group(pool, node, &group).await {
        Ok(results) => {
            for (job, r) in group.into_iter().zip(results) {
                let _ = job.reply.send(r);
            }
        }
        Err(e) => {
            // Nothing of the group was written: each member alone.
            tracing::debug!(error = %e, members = group.len(), "a group was not written; writing its appends one by one");
            counts.alone.fetch_add(group.len() as u64, Ordering::Relaxed);
            for job in group {
                if job.reply.is_closed() {
                    continue;
                }
                let r = append_in(pool.clone(), node, job.p).await;
                let _ = job.reply.send(r);
            }
        }
    }
}

/// The group as one transaction: each member's answer, or an error when the
/// transaction ended before its commit (nothing of it was written).
async fn write_group(pool: &Pool, node: &str, group: &[Job]) -> StoreResult<Vec<StoreResult<()>>> {
    let mut client = pool.get().await.map_err(pool_err)?;
    let tx = client.transaction().await.map_err(|e| db("begin a transaction", e))?;
    let mut results = Vec::with_capacity(group.len());
    let mut notices = Vec::new();
    for job in group {
        let r = member(&tx, &job.p).await?;
        if r.is_ok() {
            notices.push(notice(node, &job.p));
        }
        results.push(r);
    }
    if notices.is_empty() {
        // Every member refused: nothing to commit.
        return Ok(results);
    }
    tx.execute(&st(&tx, "SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p").await?, &[&CHANNEL, &notices])
        .await
        .map_err(|e| db("tell the other nodes of the appends", e))?;
    if let Err(e) = tx.commit().await {
        let msg = match db("commit the write (whether it was recorded is not known: read the game's log again)", e) {
            StoreError::Io(m) => m,
            other => other.to_string(),
        };
        return Ok(results.into_iter().map(|r| r.and_then(|()| Err(StoreError::Io(msg.clone())))).collect());
    }
    Ok(results)
}

/// The payload of the notice of an append: the node that made it, the game
/// and its new head (the head it kept, for a write without events).
pub(super) fn notice(node: &str, p: &Prepared) -> String {
    let head = p.last.as_ref().map(|(seq, _)| *seq).or(p.expect_head.map(seq_param)).unwrap_or(-1);
    format!("{node} {} {head}", p.game)
}

/// One member inside the group's transaction: `Ok(Err(_))` when it is
/// refused (nothing of it written), `Err(_)` when the transaction failed.
async fn member(tx: &deadpool_postgres::Transaction<'_>, p: &Prepared) -> StoreResult<StoreResult<()>> {
    // The side records the writer read, locked until the commit: a write of
    // one committed meanwhile is seen here (row locks read the newest row).
    for u in &p.unchanged {
        let row = tx
            .query_opt(
                &st(tx, "SELECT value FROM side_records WHERE side = $1 AND key = $2 FOR UPDATE").await?,
                &[&side_tag(u.side), &u.key],
            )
            .await
            .map_err(|e| db("read a side record", e))?;
        if row.map(|r| r.get::<_, Vec<u8>>(0)) != u.value {
            // A moved head is what the writer must hear first.
            let found = head_of(tx, &p.game).await?;
            if found != p.expect_head {
                return Ok(Err(StoreError::Conflict { game: p.game.clone(), expected: p.expect_head, found }));
            }
            return Ok(Err(StoreError::Changed { game: p.game.clone() }));
        }
    }
    let moved = move_head(tx, p).await?;
    if moved != 1 {
        let found = head_of(tx, &p.game).await?;
        return Ok(Err(StoreError::Conflict { game: p.game.clone(), expected: p.expect_head, found }));
    }
    insert_events(tx, p).await?;
    apply_side(tx, &p.side).await?;
    Ok(Ok(()))
}

/// Move the game's head from the one the writer saw (insert it for a new
/// game; for a write without events, check it still is): the rows moved,
/// 1 when the head was the writer's.
pub(super) async fn move_head(tx: &deadpool_postgres::Transaction<'_>, p: &Prepared) -> StoreResult<u64> {
    Ok(match (p.expect_head, &p.last) {
        (None, Some((seq, hash))) => tx
            .execute(
                &st(tx, "INSERT INTO games (game, head, head_hash) VALUES ($1, $2, $3) ON CONFLICT (game) DO NOTHING")
                    .await?,
                &[&p.game, seq, hash],
            )
            .await
            .map_err(|e| db("record a new game", e))?,
        (Some(expected), Some((seq, hash))) => tx
            .execute(
                &st(tx, "UPDATE games SET head = $2, head_hash = $3 WHERE game = $1 AND head = $4").await?,
                &[&p.game, seq, hash, &seq_param(expected)],
            )
            .await
            .map_err(|e| db("move a game's head", e))?,
        // No events: the head must still be what the writer saw.
        (expected, None) => {
            let row = tx
                .query_opt(&st(tx, "SELECT head FROM games WHERE game = $1 FOR SHARE").await?, &[&p.game])
                .await
                .map_err(|e| db("read a game's head", e))?;
            u64::from(row.map(|r| r.get::<_, i64>(0) as u64) == expected)
        }
    })
}

/// The member's events in one statement.
async fn insert_events(tx: &deadpool_postgres::Transaction<'_>, p: &Prepared) -> StoreResult<()> {
    if p.events.is_empty() {
        return Ok(());
    }
    let seqs: Vec<i64> = p.events.iter().map(|(s, _)| *s).collect();
    let bytes: Vec<&[u8]> = p.events.iter().map(|(_, b)| b.as_slice()).collect();
    tx.execute(
        &st(
            tx,
            "INSERT INTO events (game, seq, event) SELECT $1, s, e FROM unnest($2::bigint[], $3::bytea[]) AS t(s, e)",
        )
        .await?,
        &[&p.game, &seqs, &bytes],
    )
    .await
    .map_err(|e| db("append an event", e))?;
    Ok(())
}
