//! An append as one transaction: the game's head row moved from the head
//! the writer read (or inserted for a new game), the events inserted and
//! the side records applied, then the commit. Appends are written in
//! groups (`group.rs`); this is the path of one alone.

use super::group::{move_head, notice, CHANNEL};
use super::*;

/// An append checked and encoded by the caller, ready for one transaction.
pub(super) struct Prepared {
    pub(super) game: GameId,
    pub(super) expect_head: Option<u64>,
    pub(super) events: Vec<(i64, Vec<u8>)>,
    pub(super) last: Option<(i64, String)>,
    pub(super) side: Vec<SideWrite>,
    pub(super) unchanged: Vec<SideWrite>,
}

pub(super) fn prepare(write: Write) -> StoreResult<Prepared> {
    let Write { game, expect_head, events, side, unchanged } = write;
    check_game(&game)?;
    let malformed = |msg: String| StoreError::Malformed(format!("game {game}: {msg}"));
    let out = encode_append(&game, expect_head, &events)?
        .into_iter()
        .map(|(seq, bytes)| {
            i64::try_from(seq)
                .map(|seq| (seq, bytes))
                .map_err(|_| malformed(format!("seq {seq} is too large to store")))
        })
        .collect::<StoreResult<Vec<_>>>()?;
    let last = events.last().map(|e| (e.seq as i64, e.hash.to_string()));
    Ok(Prepared { game, expect_head, events: out, last, side, unchanged })
}

pub(super) async fn apply_side(tx: &deadpool_postgres::Transaction<'_>, writes: &[SideWrite]) -> StoreResult<()> {
    for w in writes {
        let tag = side_tag(w.side);
        match &w.value {
            Some(v) => tx
                .execute(
                    &st(
                        tx,
                        "INSERT INTO side_records (game, side, key, value) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (game, side, key) DO UPDATE SET value = EXCLUDED.value, claimed_until = NULL",
                    )
                    .await?,
                    &[&game_of(w.side, &w.key), &tag, &w.key, v],
                )
                .await
                .map_err(|e| db("write a side record", e))?,
            None => tx
                .execute(&st(tx, "DELETE FROM side_records WHERE side = $1 AND key = $2").await?, &[&tag, &w.key])
                .await
                .map_err(|e| db("remove a side record", e))?,
        };
    }
    Ok(())
}

pub(super) async fn head_of(client: &impl deadpool_postgres::GenericClient, game: &str) -> StoreResult<Option<u64>> {
    let row = client
        .query_opt(&st(client, "SELECT head FROM games WHERE game = $1").await?, &[&game])
        .await
        .map_err(|e| db("read a game's head", e))?;
    Ok(row.map(|r| r.get::<_, i64>(0) as u64))
}

/// One append alone in its own transaction (a member of a group that could
/// not be written whole).
pub(super) async fn append_in(pool: Pool, node: &str, p: Prepared) -> StoreResult<()> {
    let mut client = pool.get().await.map_err(pool_err)?;
    let tx = client.transaction().await.map_err(|e| db("begin a transaction", e))?;
    let conflict = |found| StoreError::Conflict { game: p.game.clone(), expected: p.expect_head, found };
    if move_head(&tx, &p).await? != 1 {
        let found = head_of(&tx, &p.game).await?;
        return Err(conflict(found));
    }
    // The side records the writer read, locked until the commit: a write of
    // one committed meanwhile is seen here (row locks read the newest row).
    for u in &p.unchanged {
        let row = tx
            .query_opt(
                &st(&tx, "SELECT value FROM side_records WHERE side = $1 AND key = $2 FOR UPDATE").await?,
                &[&side_tag(u.side), &u.key],
            )
            .await
            .map_err(|e| db("read a side record", e))?;
        if row.map(|r| r.get::<_, Vec<u8>>(0)) != u.value {
            return Err(StoreError::Changed { game: p.game.clone() });
        }
    }
    if !p.events.is_empty() {
        let insert = st(&tx, "INSERT INTO events (game, seq, event) VALUES ($1, $2, $3)").await?;
        for (seq, bytes) in &p.events {
            if let Err(e) = tx.execute(&insert, &[&p.game, seq, bytes]).await {
                if e.code() == Some(&SqlState::UNIQUE_VIOLATION) {
                    drop(tx);
                    let found = head_of(&client, &p.game).await?;
                    return Err(conflict(found));
                }
                return Err(db("append an event", e));
            }
        }
    }
    apply_side(&tx, &p.side).await?;
    tx.execute(&st(&tx, "SELECT pg_notify($1, $2)").await?, &[&CHANNEL, &notice(node, &p)])
        .await
        .map_err(|e| db("tell the other nodes of the append", e))?;
    tx.commit().await.map_err(|e| match e.code() {
        Some(c) if *c == SqlState::UNIQUE_VIOLATION => conflict(None),
        _ => db("commit the write (whether it was recorded is not known: read the game's log again)", e),
    })
}
