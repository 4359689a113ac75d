//! How many messages per second the outbox worker delivers to a local SMTP
//! listener over its pooled connections.

#[path = "../tests/api/smtp.rs"]
#[allow(dead_code)]
mod smtp;

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use runestone::auth::Keys;
use runestone::clock::SystemClock;
use runestone::config::Settings;
use runestone::mail::{mail_id, queue_key, Mail, Transport};
use runestone::outbox::{Policy, Worker};
use runestone::service::{Options, Service};
use runestone::store::memory::MemoryStore;
use runestone::store::{EventStore, Side, SideWrite};

const BATCH: usize = 200;
/// Pooled connections (their sockets have Nagle's algorithm off, so a
/// message no longer waits for the listener's delayed acknowledgement; see
/// `mail::smtp`).
const CONNECTIONS: u32 = 32;

fn deliver(c: &mut Criterion) {
    let sink = smtp::SmtpSink::start();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let mut settings = Settings::defaults();
    settings.mail.transport = "smtp".into();
    settings.mail.smtp_host = "127.0.0.1".into();
    settings.mail.smtp_port = sink.port;
    settings.mail.connections = CONNECTIONS;
    let tmp = tempfile::tempdir().unwrap();
    let store = Arc::new(MemoryStore::default());
    let service = Arc::new(Service::new(
        store.clone(),
        runestone::games::registry(),
        Keys::new(&[1; 32], 30),
        Arc::new(SystemClock),
        Options {
            public_url: "http://localhost".into(),
            snapshot_interval: 64,
            cache_games: 100,
            cache_bytes: 64 << 20,
            mail_gather: chrono::Duration::zero(),
        },
    ));
    let transport = rt.block_on(async { Transport::from_settings(&settings.mail, tmp.path()).unwrap() });
    let worker = Worker {
        service,
        transport,
        from: "runestone <games@runestone.test>".parse().unwrap(),
        domain: "runestone.test".into(),
        policy: Policy { parallel: CONNECTIONS as usize, ..Policy::default() },
        held: Default::default(),
    };
    let mut n = 0u64;
    let mut g = c.benchmark_group("mail");
    g.sample_size(10).measurement_time(Duration::from_secs(10)).throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("smtp_pooled_delivery", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let writes: Vec<SideWrite> = (0..BATCH)
                    .map(|_| {
                        n += 1;
                        let m = Mail {
                            id: mail_id("benchbenchbench0", n, "0", "your_move"),
                            game: "benchbenchbench0".into(),
                            kind: "your_move".into(),
                            to_name: "Ása".into(),
                            to: "asa@example.org".into(),
                            subject: "Round 3: your plan is due".into(),
                            text: "Hello Ása,\n\nRound 3: choose your plan by Tue 18:00 UTC.\n".repeat(4),
                            html: "<p>Hello Ása,</p><p>Round 3: choose your plan by Tue 18:00 UTC.</p>".repeat(4),
                            unsubscribe: Some("http://localhost/mail/unsubscribe/x/0/y".into()),
                            attempts: 0,
                            last_error: None,
                            reply_to: None,
                            hook: None,
                            push: None,
                        };
                        SideWrite {
                            side: Side::Outbox,
                            key: queue_key(0, &m.id),
                            value: Some(runestone::mail::encode(&m)),
                        }
                    })
                    .collect();
                rt.block_on(store.put(writes)).unwrap();
                let t = Instant::now();
                rt.block_on(async {
                    while !store.scan(Side::Outbox, b"q", 1).unwrap().is_empty() {
                        worker.tick().await;
                    }
                });
                total += t.elapsed();
            }
            total
        })
    });
    g.finish();
    assert!(sink.received().len() >= BATCH);
    // The pooled transport must be dropped inside its runtime.
    rt.block_on(async move { drop(worker) });
}

criterion_group!(benches, deliver);
criterion_main!(benches);
