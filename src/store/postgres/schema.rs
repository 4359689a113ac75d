//! The schema: its migrations in order (shipped in the binary), the version
//! a database holds, and bringing an empty or older database to this
//! build's version.

use super::*;

/// The schema migrations in order: version `i + 1` is `MIGRATIONS[i]`.
pub const MIGRATIONS: &[&str] = &[include_str!("001_initial.sql")];

/// The schema version this build reads and writes.
pub const SCHEMA_VERSION: i32 = MIGRATIONS.len() as i32;

/// What the schema of a database is, as seen by [`schema_state`].
#[derive(Debug, PartialEq, Eq)]
pub enum SchemaState {
    /// No runestone table at all.
    Empty,
    /// The highest applied migration.
    Version(i32),
}

pub(super) async fn schema_state_of(client: &deadpool_postgres::Client) -> StoreResult<SchemaState> {
    let exists: bool = client
        .query_one("SELECT to_regclass('schema_version') IS NOT NULL", &[])
        .await
        .map_err(|e| db("read the schema version", e))?
        .get(0);
    if !exists {
        return Ok(SchemaState::Empty);
    }
    let v: Option<i32> = client
        .query_one("SELECT max(version) FROM schema_version", &[])
        .await
        .map_err(|e| db("read the schema version", e))?
        .get(0);
    Ok(SchemaState::Version(v.unwrap_or(0)))
}

/// Apply every migration the database lacks, each in one transaction with
/// its version row; a concurrent migrator waits on the table lock.
pub(super) async fn migrate_client(client: &mut deadpool_postgres::Client) -> StoreResult<()> {
    client
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, \
             applied_at timestamptz NOT NULL DEFAULT now())",
        )
        .await
        .map_err(|e| db("create the schema_version table", e))?;
    for (i, sql) in MIGRATIONS.iter().enumerate() {
        let version = i as i32 + 1;
        let tx = client.transaction().await.map_err(|e| db("begin a migration", e))?;
        tx.batch_execute("LOCK TABLE schema_version IN EXCLUSIVE MODE")
            .await
            .map_err(|e| db("lock the schema_version table", e))?;
        let done = tx
            .query_opt("SELECT 1 FROM schema_version WHERE version = $1", &[&version])
            .await
            .map_err(|e| db("read the schema version", e))?
            .is_some();
        if done {
            continue;
        }
        tx.batch_execute(sql).await.map_err(|e| db(&format!("apply schema migration {version}"), e))?;
        tx.execute("INSERT INTO schema_version (version) VALUES ($1)", &[&version])
            .await
            .map_err(|e| db("record the schema version", e))?;
        tx.commit().await.map_err(|e| db(&format!("commit schema migration {version}"), e))?;
        tracing::info!(version, "applied a PostgreSQL schema migration");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[tokio::test]
    async fn an_older_schema_is_refused_with_what_to_run() {
        let url = testing::fresh_database();
        // A database made by a build before the first migration: the
        // version table only.
        let raw = PgStore::connect(&url).expect("connect");
        raw.execute_sql("CREATE TABLE schema_version (version integer PRIMARY KEY, applied_at timestamptz)")
            .expect("sql");
        drop(raw);
        let err = PgStore::open(&url).err().expect("an older schema is refused").to_string();
        assert!(err.contains("schema version 0") && err.contains("runestone migrate-schema"), "{err}");
        assert_eq!(PgStore::migrate(&url).expect("migrate"), (0, SCHEMA_VERSION));
        PgStore::open(&url).expect("open after migrating");
    }
}
