//! A PostgreSQL server for tests: the one `.ci/run` started (its URL in
//! `RUNESTONE_TEST_PG_URL`), or one started here in a temporary directory
//! (Debian's `initdb` and `pg_ctl`, as the `postgres` user when run as
//! root), which stops itself once the test process has ended. Under
//! `.ci/run` (`RUNESTONE_TEST_PG_REQUIRED=1`) a missing URL fails loudly.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

static SERVER: OnceLock<String> = OnceLock::new();

/// The URL of an empty, new database on the test server.
pub fn fresh_database() -> String {
    let server = SERVER.get_or_init(server_url);
    static N: AtomicU32 = AtomicU32::new(0);
    let name = format!(
        "rs_test_{}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos())
    );
    let admin = format!("{server} dbname=postgres");
    let create = format!("CREATE DATABASE {name}");
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        rt.block_on(async move {
            let (client, conn) = tokio_postgres::connect(&admin, tokio_postgres::NoTls)
                .await
                .unwrap_or_else(|e| panic!("cannot reach the test PostgreSQL ({admin}): {e}"));
            tokio::spawn(conn);
            client.batch_execute(&create).await.unwrap_or_else(|e| panic!("cannot create a test database: {e}"));
        })
    })
    .join()
    .expect("creating the test database");
    format!("{server} dbname={name}")
}

/// `key=value` settings of the server, without a database.
fn server_url() -> String {
    if let Ok(url) = std::env::var("RUNESTONE_TEST_PG_URL") {
        if !url.trim().is_empty() {
            return url;
        }
    }
    if std::env::var("RUNESTONE_TEST_PG_REQUIRED").is_ok_and(|v| v == "1") {
        panic!(
            "RUNESTONE_TEST_PG_REQUIRED is set but RUNESTONE_TEST_PG_URL is not: the PostgreSQL tests need the \
             server .ci/run starts"
        );
    }
    start_own()
}

fn bin_dir() -> PathBuf {
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if dir.join("initdb").exists() {
            return dir;
        }
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.flatten().map(|e| e.path().join("bin")).filter(|p| p.join("initdb").exists()).collect())
        .unwrap_or_default();
    found.sort();
    found
        .pop()
        .unwrap_or_else(|| panic!("the PostgreSQL tests need initdb and pg_ctl: install Debian's postgresql package"))
}

fn as_user(user: Option<&str>, program: &Path) -> Command {
    match user {
        Some(u) => {
            let mut c = Command::new("runuser");
            c.args(["-u", u, "--"]).arg(program);
            c
        }
        None => Command::new(program),
    }
}

fn start_own() -> String {
    let bin = bin_dir();
    let root = Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let user = root.then_some("postgres");
    let dir = std::env::temp_dir().join(format!("runestone-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("test PostgreSQL directory");
    if let Some(u) = user {
        let ok = Command::new("chown").arg(u).arg(&dir).status().is_ok_and(|s| s.success());
        assert!(ok, "cannot hand {} to the {u} user (run as root: PostgreSQL refuses root)", dir.display());
    }
    let data = dir.join("data");
    let out = as_user(user, &bin.join("initdb"))
        .args(["-A", "trust", "-U", "postgres", "--no-sync", "-D"])
        .arg(&data)
        .output()
        .expect("initdb");
    assert!(out.status.success(), "initdb failed: {}", String::from_utf8_lossy(&out.stderr));
    let opts = format!("-k {} -c listen_addresses='' -c fsync=off -p 5432", dir.display());
    let out = as_user(user, &bin.join("pg_ctl"))
        .arg("-D")
        .arg(&data)
        .args(["-w", "-l"])
        .arg(dir.join("log"))
        .args(["-o", &opts, "start"])
        .output()
        .expect("pg_ctl");
    assert!(out.status.success(), "pg_ctl start failed: {}", String::from_utf8_lossy(&out.stderr));
    // Stop the server and remove its directory once this process is gone.
    let pg_ctl = bin.join("pg_ctl");
    let stop = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {run}{pg_ctl} -D {data} -m immediate stop >/dev/null 2>&1; rm -rf {dir}",
        pid = std::process::id(),
        run = user.map_or(String::new(), |u| format!("runuser -u {u} -- ")),
        pg_ctl = pg_ctl.display(),
        data = data.display(),
        dir = dir.display(),
    );
    // The watchdog runs detached; the shell that starts it returns at once.
    let started = Command::new("setsid")
        .args(["sh", "-c", &format!("({stop}) </dev/null >/dev/null 2>&1 &")])
        .status()
        .is_ok_and(|s| s.success());
    assert!(started, "cannot start the test PostgreSQL's watchdog");
    format!("host={} port=5432 user=postgres", dir.display())
}
