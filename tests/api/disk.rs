//! A disk running out of room: the free-space reserve, and a full disk the
//! server recovers from by itself.

use std::collections::{HashMap, HashSet};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::{agent, seat_tokens, str_of, TestApp};
use crate::process::{call, serve, smtp_settings};
use crate::smtp::SmtpSink;

#[test]
fn below_the_reserve_new_games_are_refused_while_running_games_play_on() {
    let mut app = TestApp::spawn();
    let health = app.get("/healthz", None);
    assert_eq!(health.ok()["status"], "ok", "{}", health.text);
    let created = app.create("duel", 2, json!({"rounds": 2}));
    let game = str_of(&created, "game_id").to_owned();
    let seats = seat_tokens(&created);

    // A reserve as large as the whole disk: every disk is below it.
    app.settings.storage.reserve = "100%".into();
    let app = app.restart();

    let refused = app.post(
        "/api/v1/games",
        None,
        &json!({"ruleset": "duel", "options": {}, "seats": [{"name": "Ása"}, {"name": "Bjarni"}]}),
    );
    let detail = refused.problem(507);
    assert!(detail.contains("nearly full") && detail.contains("below the reserve"), "{detail}");

    let moved = app.submit(&game, &seats[0], json!({"type": "Bid", "amount": 3}));
    assert!(moved.ok()["events"][0]["seq"].as_u64().is_some(), "{}", moved.text);

    let health = app.get("/healthz", None);
    let body = health.ok();
    assert_eq!(body["status"], "degraded", "{}", health.text);
    assert!(body["storage"]["detail"].as_str().expect("detail").contains("below the reserve"), "{}", health.text);
    assert!(body["storage"]["free_bytes"].as_u64().is_some(), "{}", health.text);

    let metrics = app.get("/metrics", None).text;
    assert!(metrics.contains("runestone_storage_low 1"), "{metrics}");
    assert!(metrics.contains("runestone_reserve_refusals_total 1"), "{metrics}");
}

/// A small tmpfs mounted for the test, unmounted when dropped (even when the
/// test fails).
struct Tmpfs {
    dir: std::path::PathBuf,
}

impl Tmpfs {
    fn mount(dir: &std::path::Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(dir).expect("mount point");
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .expect("mount runs");
        assert!(ok.success(), "mounting a tmpfs on {}", dir.display());
        Tmpfs { dir: dir.to_owned() }
    }

    fn grow(&self, size: &str) {
        let ok = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.dir)
            .status()
            .expect("mount runs");
        assert!(ok.success(), "growing the tmpfs");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
    }
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A server process, killed when dropped (also when a test fails).
struct Server(Child);

impl Server {
    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The real binary on `dir` with no free-space reserve, mailing to
/// `smtp_port`; returns it and its URL.
fn start(dir: &std::path::Path, smtp_port: u16) -> (Server, String) {
    let port = smtp_port.to_string();
    let mut settings = vec![("RUNESTONE__STORAGE__RESERVE", "0"), ("RUNESTONE__MAIL__RETRY_SECONDS", "1")];
    settings.extend(smtp_settings(&port));
    let (child, base) = serve(dir, &settings);
    (Server(child), base)
}

/// Fill the filesystem of `dir` with a ballast file until `keep` bytes are
/// left free.
fn fill(dir: &std::path::Path, keep: u64) {
    use std::io::Write as _;
    let mut f = std::fs::File::create(dir.join("ballast")).expect("ballast");
    let chunk = vec![0xA5u8; 64 << 10];
    while fs2::available_space(dir).expect("free space") > keep && f.write_all(&chunk).is_ok() {}
    let _ = f.sync_all();
}

/// How many copies of each Message-ID arrived.
/// Create `n` three-seat Duel games whose seats have email addresses
/// (`{prefix}{game}-{seat}@example.org`): the creation answers, and every
/// address, whose invitations the test then waits for.
fn create_emailed_games(a: &ureq::Agent, base: &str, n: usize, prefix: &str) -> (Vec<Value>, HashSet<String>) {
    let mut created = Vec::new();
    let mut addresses = HashSet::new();
    for g in 0..n {
        let seats: Vec<Value> =
            (0..3).map(|i| json!({"name": format!("P{i}"), "email": format!("{prefix}{g}-{i}@example.org")})).collect();
        for s in &seats {
            addresses.insert(s["email"].as_str().unwrap().to_owned());
        }
        let (s, answer) =
            call(a, "POST", &format!("{base}/api/v1/games"), None, Some(&json!({"ruleset": "duel", "seats": seats})))
                .expect("the server answers");
        assert_eq!(s, 201, "{answer}");
        created.push(answer);
    }
    (created, addresses)
}

fn copies(sink: &SmtpSink) -> HashMap<String, usize> {
    let mut n = HashMap::new();
    for m in sink.received() {
        *n.entry(m.header("Message-ID").expect("a Message-ID")).or_insert(0) += 1;
    }
    n
}

/// The data directory on a 16 MB tmpfs that fills while mail is due; the
/// disk then grows, the server is killed and started again.
#[test]
fn a_full_disk_costs_no_store_no_acknowledged_command_and_no_mail_storm() {
    if !is_root() {
        eprintln!("skipped: the full-disk test mounts a tmpfs and needs root (CI runs as root)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let fs = Tmpfs::mount(&tmp.path().join("disk"), "16m");
    let data = fs.dir.join("data");
    let mut sink = SmtpSink::start();
    sink.down();
    let (mut child, base) = start(&data, sink.port);
    let a = agent();

    // Games with emailed seats: their invitations wait while SMTP is down.
    let (created, addresses) = create_emailed_games(&a, &base, 4, "p");
    let games: Vec<(String, Vec<String>)> =
        created.iter().map(|c| (str_of(c, "game_id").to_owned(), seat_tokens(c))).collect();

    // Fill the disk but for a little room, then play until writes fail.
    fill(&fs.dir, 1 << 20);
    let mut acked: Vec<(String, u64, String)> = Vec::new();
    let mut refused = 0;
    let t0 = Instant::now();
    let mut n = 0u64;
    while refused < 20 && t0.elapsed() < Duration::from_secs(120) {
        for (game, tokens) in &games {
            n += 1;
            let body = json!({"command": {"type": "Bid", "amount": n % 10 + 1}});
            let url = format!("{base}/api/v1/games/{game}/commands");
            match call(&a, "POST", &url, Some(&tokens[(n % 2) as usize]), Some(&body)).ok() {
                Some((200, v)) => {
                    for e in v["events"].as_array().unwrap() {
                        acked.push((game.clone(), e["seq"].as_u64().unwrap(), e["hash"].as_str().unwrap().into()));
                    }
                }
                Some((status, v)) => {
                    assert!([503, 507].contains(&status), "unexpected answer {status}: {v}");
                    let detail = v["detail"].as_str().unwrap_or_default();
                    // A write the full disk left unknown says so, and what is
                    // known of the head.
                    if status == 507 {
                        assert!(detail.contains("head"), "an unknown outcome without the head: {detail}");
                    }
                    refused += 1;
                }
                None => panic!("the server stopped answering while the disk was full"),
            }
        }
    }
    assert!(refused > 0, "the full disk never refused a write");

    // The store is broken until space returns: /healthz says so, and reads
    // either work or answer a clear 503 to try again.
    let t = Instant::now();
    loop {
        let (_, health) = call(&a, "GET", &format!("{base}/healthz"), None, None).expect("healthz");
        if health["storage"]["recovering"] == json!(true) {
            assert_eq!(health["status"], "degraded", "{health}");
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(180), "/healthz never said the store is recovering: {health}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut reads = (0, 0);
    for (game, _) in &games {
        match call(&a, "GET", &format!("{base}/api/v1/games/{game}/events"), None, None).expect("the log") {
            (200, _) => reads.0 += 1,
            (503, v) => {
                let detail = v["detail"].as_str().unwrap_or_default();
                assert!(detail.contains("recovering from a full disk"), "{v}");
                reads.1 += 1;
            }
            (s, v) => panic!("a read while the store recovers answered {s}: {v}"),
        }
    }

    // Mail falls due while the disk stays full: it may go out once, but its
    // record cannot be written, so it must not be sent again and again.
    sink.up();
    std::thread::sleep(Duration::from_secs(20));
    let during = copies(&sink);
    let worst = during.values().copied().max().unwrap_or(0);
    assert!(worst <= 1, "a message went out {worst} times while the disk was full: {during:?}");

    // Space returns. Without a restart, the server reopens its store: a new
    // command of every game succeeds within a bound, every game reads and
    // verifies, and the mail held during the full disk goes out.
    fs.grow("64m");
    let t = Instant::now();
    let mut recovered_after = None;
    for (game, tokens) in &games {
        loop {
            n += 1;
            let body = json!({"command": {"type": "Bid", "amount": n % 10 + 1}});
            let url = format!("{base}/api/v1/games/{game}/commands");
            match call(&a, "POST", &url, Some(&tokens[(n % 2) as usize]), Some(&body)).ok() {
                Some((200, v)) => {
                    for e in v["events"].as_array().unwrap() {
                        acked.push((game.clone(), e["seq"].as_u64().unwrap(), e["hash"].as_str().unwrap().into()));
                    }
                    recovered_after.get_or_insert(t.elapsed());
                    break;
                }
                Some((status, v)) => assert!([503, 507].contains(&status), "unexpected answer {status}: {v}"),
                None => panic!("the server stopped answering after the disk grew"),
            }
            assert!(
                t.elapsed() < Duration::from_secs(180),
                "the server did not take writes again within 180 s of the disk growing"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    // /healthz tells the store's state as its probe last found it (it asks
    // every second, off the request), so it says ok once the probe has
    // seen the store take writes again.
    let t = Instant::now();
    loop {
        let (_, health) = call(&a, "GET", &format!("{base}/healthz"), None, None).expect("healthz");
        if health["status"] == "ok" {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "/healthz did not say ok within 60 s of the store recovering: {health}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let (_, metrics) = {
        let mut resp = a.get(&format!("{base}/metrics")).call().expect("metrics");
        (resp.status().as_u16(), resp.body_mut().read_to_string().expect("text"))
    };
    assert!(metrics.contains("runestone_store_recovering 0"), "{metrics}");
    let check_all = |base: &str, acked: &[(String, u64, String)]| {
        for (game, tokens) in &games {
            let (s, v) = call(&a, "GET", &format!("{base}/api/v1/games/{game}/verify"), None, None).expect("verify");
            assert_eq!((s, &v["ok"]), (200, &json!(true)), "{v}");
            let (s, v) =
                call(&a, "GET", &format!("{base}/api/v1/games/{game}/view"), Some(&tokens[0]), None).expect("view");
            assert_eq!(s, 200, "the view of {game}: {v}");
        }
        for (game, seq, hash) in acked {
            let (_, ev) = call(&a, "GET", &format!("{base}/api/v1/games/{game}/events"), None, None).expect("the log");
            let stored =
                ev["events"].get(*seq as usize).unwrap_or_else(|| panic!("acknowledged event {seq} of {game} is lost"));
            assert_eq!(stored["hash"].as_str().unwrap(), hash, "event {seq} of {game} changed");
        }
    };
    check_all(&base, &acked);
    let all_mail_arrives = |sink: &SmtpSink| {
        let t = Instant::now();
        loop {
            let got: HashSet<String> = sink.received().iter().flat_map(|m| m.to.clone()).collect();
            if addresses.iter().all(|a| got.iter().any(|g| g.contains(a.as_str()))) {
                break;
            }
            assert!(t.elapsed() < Duration::from_secs(120), "mail missing after space returned: got {got:?}");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    all_mail_arrives(&sink);

    // Then killed and started again on the same data: nothing acknowledged
    // is lost.
    child.kill();
    let (mut child, base) = start(&data, sink.port);
    check_all(&base, &acked);
    // Every invitation arrived, none more than twice.
    all_mail_arrives(&sink);
    let after = copies(&sink);
    let worst = after.values().copied().max().unwrap_or(0);
    eprintln!(
        "full disk: {} acknowledged events, {refused} refused writes, reads while broken {} ok and {} 503, writes again {:.1} s after the disk grew (no restart), {} Message-IDs, at most {worst} copies of one",
        acked.len(),
        reads.0,
        reads.1,
        recovered_after.map_or(0.0, |d| d.as_secs_f64()),
        after.len()
    );
    assert!(worst <= 2, "a message went out {worst} times: {after:?}");
    child.kill();
}

/// SMTP goes down and comes back, and the server is killed while mail is
/// flowing: every invitation arrives, none more than twice.
#[test]
fn smtp_down_and_back_with_a_sigkill_between_delivers_every_message_at_most_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut sink = SmtpSink::start();
    sink.down();
    let (mut child, base) = start(&data, sink.port);
    let a = agent();
    let (created, addresses) = create_emailed_games(&a, &base, 6, "q");
    let games: Vec<String> = created.iter().map(|c| str_of(c, "game_id").to_owned()).collect();
    // SMTP comes back; the server dies while it delivers.
    sink.up();
    sink.wait_for(1, 120);
    child.kill();
    sink.down();
    let (mut child, base) = start(&data, sink.port);
    sink.up();
    let t = Instant::now();
    loop {
        let got: HashSet<String> = sink.received().iter().flat_map(|m| m.to.clone()).collect();
        if addresses.iter().all(|a| got.iter().any(|g| g.contains(a.as_str()))) {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(120), "mail missing after SMTP came back: got {got:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    for game in &games {
        let (s, v) = call(&a, "GET", &format!("{base}/api/v1/games/{game}/verify"), None, None).expect("verify");
        assert_eq!((s, &v["ok"]), (200, &json!(true)), "{v}");
    }
    let after = copies(&sink);
    let worst = after.values().copied().max().unwrap_or(0);
    eprintln!("smtp down and back: {} Message-IDs, at most {worst} copies of one", after.len());
    assert!(worst <= 2, "a message went out {worst} times: {after:?}");
    child.kill();
}
