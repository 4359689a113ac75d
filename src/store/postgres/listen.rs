//! Notices of games moved by other nodes, told by the database: every
//! append's transaction sends `NOTIFY` with the node that made it, the game
//! and its new head (`group.rs`), delivered to every listener when it
//! commits. The store holds one connection of its own that `LISTEN`s and
//! hands each notice of another node on ([`Notice::Moved`]).
//!
//! While that connection is down notices are missed: the store says so
//! ([`Notice::Missed`]) when it is lost and again once it listens again, and
//! [`EventStore::notices_live`] is false in between, so a follower falls
//! back to reading the store until the notices are back.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tokio::sync::{broadcast, mpsc};
use tokio_postgres::AsyncMessage;

use super::group::CHANNEL;
use super::*;
use crate::store::Notice;

/// Notices held for a slow follower before it is told it missed some.
pub(super) const NOTICES_HELD: usize = 4096;

/// How long the listener waits before connecting again after a failure.
const RECONNECT: Duration = Duration::from_millis(500);

/// Listen until the store is dropped (the runtime ends), connecting again
/// whenever the connection is lost.
pub(super) async fn run(
    config: tokio_postgres::Config,
    node: String,
    tx: broadcast::Sender<Notice>,
    live: Arc<AtomicBool>,
) {
    loop {
        if let Ok((client, mut conn)) = config.connect(NoTls).await {
            let (payloads, mut rx) = mpsc::unbounded_channel();
            // The connection's driver: it hands on the notifications and
            // ends when the connection does.
            let driver = tokio::spawn(async move {
                while let Some(m) = std::future::poll_fn(|cx| conn.poll_message(cx)).await {
                    match m {
                        Ok(AsyncMessage::Notification(n)) => {
                            if payloads.send(n.payload().to_owned()).is_err() {
                                break;
                            }
                        }
                        Ok(_) => {}
                        Err(e) => {
                            tracing::warn!(error = %e, "the PostgreSQL connection for notices of moved games ended");
                            break;
                        }
                    }
                }
            });
            if client.batch_execute(&format!("LISTEN {CHANNEL}")).await.is_ok() {
                live.store(true, Ordering::SeqCst);
                // What moved while nobody listened is not known.
                let _ = tx.send(Notice::Missed);
                while let Some(p) = rx.recv().await {
                    if let Some(n) = parse(&node, &p) {
                        let _ = tx.send(n);
                    }
                }
                live.store(false, Ordering::SeqCst);
                let _ = tx.send(Notice::Missed);
            }
            drop(client);
            driver.abort();
        }
        tokio::time::sleep(RECONNECT).await;
    }
}

/// A notice's payload (`NODE GAME HEAD`) as a [`Notice`], `None` for this
/// node's own appends (its followers are told by the node itself) and for
/// anything not of that form.
fn parse(node: &str, payload: &str) -> Option<Notice> {
    let mut parts = payload.split(' ');
    let (from, game, head) = (parts.next()?, parts.next()?, parts.next()?);
    if from == node || !is_game_id(game.as_bytes()) || parts.next().is_some() {
        return None;
    }
    let head: i64 = head.parse().ok()?;
    Some(Notice::Moved { game: game.to_owned(), head: u64::try_from(head).ok() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_names_the_node_the_game_and_its_head() {
        let g = "abcdefgh12345678";
        match parse("me", &format!("other {g} 7")) {
            Some(Notice::Moved { game, head: Some(7) }) => assert_eq!(game, g),
            other => panic!("{other:?}"),
        }
        assert!(parse("me", &format!("me {g} 7")).is_none(), "a node's own appends are not told again");
        assert!(parse("me", "other short 7").is_none());
        assert!(parse("me", &format!("other {g} x")).is_none());
        assert!(parse("me", &format!("other {g} 7 8")).is_none());
    }
}
