//! Playing by replying to mail, over real SMTP both ways: the server mails
//! its players through a real SMTP sink, and their replies reach the
//! server's own SMTP listener (or the inbound route `runestone inbound`
//! uses), as a player's mail server would send them. Every reply is
//! answered by a receipt to the seat's own address.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::smtp::{Received, SmtpSink};

const DOMAIN: &str = "games.test";

/// A server mailing to `sink`, taking replies to `play+…@games.test` on its
/// own SMTP listener.
fn app(sink: &SmtpSink, change: impl FnOnce(&mut runestone::config::Settings)) -> TestApp {
    TestApp::spawn_with(|s| {
        TestApp::smtp_to(sink.port)(s);
        s.inbound.domain = DOMAIN.into();
        s.inbound.smtp_listen = "127.0.0.1:0".into();
        s.inbound.per_hour = 0;
        change(s);
    })
}

/// The address of player `i`.
fn player(i: usize) -> String {
    format!("player{}@players.test", i + 1)
}

/// A game of `ruleset` whose seats have addresses; its id and the host's token.
fn create(app: &TestApp, ruleset: &str, seats: usize, options: Value) -> (String, String) {
    let (game, host, _) = create_with_tokens(app, ruleset, seats, options);
    (game, host)
}

/// [`create`], and the seats' tokens.
fn create_with_tokens(app: &TestApp, ruleset: &str, seats: usize, options: Value) -> (String, String, Vec<String>) {
    let seats: Vec<Value> =
        (0..seats).map(|i| json!({ "name": format!("Player {}", i + 1), "email": player(i) })).collect();
    let created = app.post("/api/v1/games", None, &json!({ "ruleset": ruleset, "options": options, "seats": seats }));
    let c = created.ok();
    let tokens = c["seats"].as_array().unwrap().iter().map(|s| s["token"].as_str().unwrap().to_owned()).collect();
    (c["game_id"].as_str().unwrap().to_owned(), c["host_token"].as_str().unwrap().to_owned(), tokens)
}

/// Send `raw` from `from` to `to` over SMTP to `port`; the server's last
/// answer (to RCPT when it refuses the recipient, else to DATA).
fn send(port: u16, from: &str, to: &str, raw: &str) -> String {
    let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to the server's SMTP listener");
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut out = stream.try_clone().unwrap();
    let mut lines = BufReader::new(stream);
    let mut answer = || {
        let mut all = String::new();
        loop {
            let mut line = String::new();
            lines.read_line(&mut line).expect("an SMTP answer");
            all.push_str(&line);
            if line.len() < 4 || line.as_bytes()[3] != b'-' {
                return all.trim_end().to_owned();
            }
        }
    };
    assert!(answer().starts_with("220"));
    let mut say = |out: &mut TcpStream, what: &str| {
        out.write_all(format!("{what}\r\n").as_bytes()).unwrap();
        answer()
    };
    assert!(say(&mut out, "EHLO players.test").starts_with("250"));
    assert!(say(&mut out, &format!("MAIL FROM:<{from}>")).starts_with("250"));
    let rcpt = say(&mut out, &format!("RCPT TO:<{to}>"));
    if !rcpt.starts_with("250") {
        say(&mut out, "QUIT");
        return rcpt;
    }
    assert!(say(&mut out, "DATA").starts_with("354"));
    let mut body = String::new();
    for line in raw.replace("\r\n", "\n").split('\n') {
        if line.starts_with('.') {
            body.push('.');
        }
        body.push_str(line);
        body.push_str("\r\n");
    }
    body.push('.');
    let done = say(&mut out, &body);
    say(&mut out, "QUIT");
    done
}

static MESSAGES: AtomicUsize = AtomicUsize::new(0);

/// A reply to `mail` from `from`: `order` on top, the mail's text quoted
/// below as mail clients quote it; `head` adds headers.
fn reply(mail: &Received, from: &str, order: &str, head: &str) -> String {
    let n = MESSAGES.fetch_add(1, Ordering::Relaxed);
    let quoted: String = mail.text().lines().map(|l| format!("> {l}\r\n")).collect();
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: {subject}\r\nMessage-ID: <reply-{n}@players.test>\r\n{head}\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{order}\r\n\r\nOn Tue, 24 Nov 2026, runestone <games@runestone.test> wrote:\r\n{quoted}",
        to = reply_address(mail),
        subject = mail.header("Subject").unwrap_or_default(),
    )
}

/// The Reply-To of a mail that asks a decision.
fn reply_address(mail: &Received) -> String {
    let r = mail.header("Reply-To").expect("a mail that asks has a reply address");
    r.trim_matches(['<', '>']).to_owned()
}

/// Mail as one player receives it, read in order.
struct Inbox<'a> {
    sink: &'a SmtpSink,
    to: String,
    read: usize,
}

impl<'a> Inbox<'a> {
    fn of(sink: &'a SmtpSink, i: usize) -> Inbox<'a> {
        Inbox { sink, to: player(i), read: 0 }
    }

    fn all(&self) -> Vec<Received> {
        self.sink.received().into_iter().filter(|m| m.to.contains(&self.to)).collect()
    }

    /// The next mail whose subject contains `words`, waiting for it; the
    /// mails before it are passed over.
    fn next(&mut self, words: &str) -> Received {
        let t = Instant::now();
        loop {
            let all = self.all();
            if let Some(k) =
                all[self.read..].iter().position(|m| m.header("Subject").unwrap_or_default().contains(words))
            {
                self.read += k + 1;
                return all[self.read - 1].clone();
            }
            assert!(
                t.elapsed() < Duration::from_secs(60),
                "no mail \"{words}\" came to {}: {:#?}",
                self.to,
                all[self.read..].iter().map(|m| m.header("Subject")).collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn over(app: &TestApp, game: &str) -> bool {
    app.get(&format!("/api/v1/games/{game}"), None).ok()["status"] == json!("over")
}

/// Play `game` to its end by replies only: each seat answers the latest
/// mail that asks it something (the first order it lists, or what `words`
/// writes for it, told whether it is the seat's first answer), and each
/// answer's receipt is read. Returns how many orders were taken.
fn play_by_replies(
    app: &TestApp,
    sink: &SmtpSink,
    game: &str,
    seats: usize,
    words: impl Fn(&Received, bool) -> Option<String>,
) -> usize {
    let port = app.smtp_in.expect("the server listens for mail");
    let mut answered: std::collections::HashSet<String> = Default::default();
    let mut first = vec![true; seats];
    let mut taken = 0;
    let started = Instant::now();
    let mut idle = Instant::now();
    while !over(app, game) {
        assert!(started.elapsed() < Duration::from_secs(900), "the game did not end by replies");
        let received = sink.received();
        let mut progressed = false;
        for (seat, first) in first.iter_mut().enumerate() {
            let to = player(seat);
            let Some(ask) = received.iter().rev().find(|m| {
                m.to.contains(&to)
                    && m.header("Reply-To").is_some()
                    && !m.header("Subject").unwrap_or_default().contains("your order")
            }) else {
                continue;
            };
            let id = ask.header("Message-ID").unwrap();
            if answered.contains(&id) {
                continue;
            }
            answered.insert(id);
            let order = words(ask, *first).unwrap_or_else(|| "1".to_owned());
            *first = false;
            let receipts_before = received.iter().filter(|m| m.to.contains(&to) && is_receipt(m)).count();
            let said = send(port, &to, &reply_address(ask), &reply(ask, &to, &order, ""));
            assert!(said.starts_with("250"), "the reply \"{order}\" of seat {seat} was refused: {said}");
            // Its receipt, at the seat's own address.
            let t = Instant::now();
            let receipt = loop {
                let r: Vec<Received> =
                    sink.received().into_iter().filter(|m| m.to.contains(&to) && is_receipt(m)).collect();
                if r.len() > receipts_before {
                    break r[receipts_before].clone();
                }
                assert!(t.elapsed() < Duration::from_secs(60), "no receipt for seat {seat}'s reply \"{order}\"");
                std::thread::sleep(Duration::from_millis(10));
            };
            let text = receipt.text();
            assert!(
                receipt.header("Subject").unwrap().contains("your order is taken") && text.contains("Understood: "),
                "seat {seat}'s order \"{order}\" was not taken:\n{text}"
            );
            assert!(text.contains("Revoke my links"), "every receipt offers to revoke the links:\n{text}");
            taken += 1;
            progressed = true;
        }
        if progressed {
            idle = Instant::now();
        } else {
            assert!(idle.elapsed() < Duration::from_secs(60), "no mail asks anything, and the game is not over");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    taken
}

fn is_receipt(m: &Received) -> bool {
    let s = m.header("Subject").unwrap_or_default();
    s.contains("your order")
        || s.contains("decision is closed")
        || s.contains("confirm the order")
        || s.contains("has expired")
}

#[test]
fn a_three_seat_bardagi_game_is_played_to_the_end_by_replies_only() {
    let sink = SmtpSink::start();
    let app = app(&sink, |_| {});
    let (game, _) = create(&app, "bardagi", 3, json!({}));
    // The invitation prints the order form in the game's words.
    let invitation = Inbox::of(&sink, 0).next("Your seat");
    let text = invitation.text().replace("\r\n", "\n");
    assert!(text.contains("  plan: ") && text.contains("  step: "), "the bot's plan and turn:\n{text}");
    assert!(text.contains("Write the number of one of these orders, or its words:\n  1. "), "{text}");
    assert!(invitation.html().contains("<ol><li>"), "the HTML part lists them too");
    let taken = play_by_replies(&app, &sink, &game, 3, |ask, first| {
        (first && ask.text().contains("Your plan, 6 cards")).then(|| "plan: 2 berserkur 2 godi 2 kaupmadur".to_owned())
    });
    let summary = app.get(&format!("/api/v1/games/{game}"), None).ok().clone();
    assert_eq!(summary["status"], json!("over"));
    // Every order came by mail: the log keeps each message's id and hash.
    let events = app.get(&format!("/api/v1/games/{game}/events"), None).ok().clone();
    let mailed: Vec<&Value> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["body"]["event"]["type"] == json!("OrderMailed"))
        .collect();
    assert_eq!(mailed.len(), taken, "one trace per order taken");
    assert!(mailed.iter().all(|e| e["body"]["event"]["sha256"].as_str().is_some_and(|h| h.len() == 64)
        && e["body"]["event"]["message_id"].as_str().is_some_and(|m| m.ends_with("@players.test"))));
    let seats_acting: std::collections::BTreeSet<u64> =
        events["events"].as_array().unwrap().iter().filter_map(|e| e["actor"]["seat"].as_u64()).collect();
    assert_eq!(seats_acting.len(), 3, "every seat played");
    assert!(
        !events["events"].as_array().unwrap().iter().any(|e| e["body"]["event"]["type"] == json!("TimedOut")),
        "no decision was taken for a seat"
    );
    eprintln!("bardagi by replies: {taken} orders taken");
}

#[test]
fn a_four_seat_realms_game_is_played_to_the_end_by_replies_only() {
    let sink = SmtpSink::start();
    let app = app(&sink, |_| {});
    let (game, _) = create(&app, "realms", 4, json!({ "mode": "basic", "years": 1 }));
    let invitation = Inbox::of(&sink, 1).next("Your seat");
    let text = invitation.text();
    assert!(text.contains("move 3 light infantry from 12 to 14") && text.contains("Where your units stand:"), "{text}");
    let taken = play_by_replies(&app, &sink, &game, 4, |ask, first| {
        // The first orders of each realm in the game's words.
        (first && ask.text().contains("Your orders for")).then(|| "escape below 50\r\nno orders\r\nEND".to_owned())
    });
    assert!(over(&app, &game));
    let events = app.get(&format!("/api/v1/games/{game}/events"), None).ok().clone();
    let mailed = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["body"]["event"]["type"] == json!("OrderMailed"))
        .count();
    assert_eq!(mailed, taken);
    eprintln!("realms by replies: {taken} orders taken");
}

/// The lines of the game's own order form in a mail that asks (those the
/// mail indents under "You may answer by replying"), as a player copies
/// them into a reply, help lines in parentheses included, and END.
fn form_lines(mail: &Received) -> Option<String> {
    let text = mail.text().replace("\r\n", "\n");
    let (_, after) = text.split_once("You may answer by replying to this mail")?;
    let lines: Vec<&str> = after.lines().skip(1).take_while(|l| l.starts_with("  ")).map(str::trim).collect();
    (!lines.is_empty()).then(|| lines.join("\r\n") + "\r\nEND")
}

#[test]
fn a_four_seat_fallen_kingdoms_game_is_played_to_the_end_by_replies_giving_each_turn_in_words() {
    let sink = SmtpSink::start();
    let app = app(&sink, |_| {});
    let (game, _) = create(&app, "fallen-kingdoms", 4, json!({}));
    let programs = std::cell::Cell::new(0);
    // Each turn's program is the form the mail prints, sent back as it is;
    // every other decision (the god and the starting cities) is the first
    // order the mail lists.
    let taken = play_by_replies(&app, &sink, &game, 4, |ask, _| {
        let form = form_lines(ask).filter(|f| f.contains("movement if impossible:"))?;
        assert!(form.contains("production: ") && form.contains("new units: "), "{form}");
        programs.set(programs.get() + 1);
        Some(form)
    });
    assert!(over(&app, &game));
    let programs = programs.get();
    assert!(programs >= 4 * 3, "{programs} programs by mail");
    // Every program's receipt says it in the game's words.
    let understood = sink
        .received()
        .iter()
        .filter(|m| m.header("Subject").unwrap_or_default().contains("your order is taken"))
        .filter(|m| m.text().contains("gives a program of"))
        .count();
    assert_eq!(understood, programs, "one receipt per program, naming its steps");
    let events = app.get(&format!("/api/v1/games/{game}/events"), None).ok().clone();
    let events = events["events"].as_array().unwrap();
    let mailed = events.iter().filter(|e| e["body"]["event"]["type"] == json!("OrderMailed")).count();
    assert_eq!(mailed, taken, "one trace per order taken");
    assert!(!events.iter().any(|e| e["body"]["event"]["type"] == json!("TimedOut")), "no decision was timed out");
    eprintln!("fallen kingdoms by replies: {taken} orders taken, {programs} of them programs");
}

/// A 3-seat Bardagi game mailing to `sink` and player 1's first mail that
/// asks (the invitation, with the plan's form).
fn bardagi_asking<'a>(app: &TestApp, sink: &'a SmtpSink) -> (String, String, Inbox<'a>, Received) {
    let (game, host) = create(app, "bardagi", 3, json!({}));
    let mut inbox = Inbox::of(sink, 0);
    let ask = inbox.next("Your seat");
    (game, host, inbox, ask)
}

/// A reply handed to the inbound route, as `runestone inbound` hands it.
fn post_inbound(app: &TestApp, raw: &str, recipient: Option<&str>) -> crate::helpers::Reply {
    let key = runestone::service::inbound::route_key(&signing_key(app), "");
    let path = match recipient {
        Some(r) => format!("/api/v1/inbound/mail?recipient={}", r.replace('+', "%2B")),
        None => "/api/v1/inbound/mail".to_owned(),
    };
    app.raw("POST", &path, Some(&key), Some(raw.as_bytes().to_vec()), &[("Content-Type", "message/rfc822")])
}

fn signing_key(app: &TestApp) -> runestone::auth::Keys {
    runestone::auth::Keys::load_or_create("", &app.dir, 365, false).expect("the server's key")
}

#[test]
fn forged_expired_and_revoked_reply_addresses_are_refused() {
    let sink = SmtpSink::start();
    let clock = std::sync::Arc::new(runestone::clock::ManualClock::new("2026-11-24T09:00:00Z".parse().unwrap()));
    let tmp = tempfile::tempdir().unwrap();
    let mut s = crate::helpers::settings(tmp.path());
    TestApp::smtp_to(sink.port)(&mut s);
    s.inbound.domain = DOMAIN.into();
    s.inbound.smtp_listen = "127.0.0.1:0".into();
    s.inbound.address_days = 3;
    let app = TestApp::start_with_clock(s, clock.clone());
    let port = app.smtp_in.unwrap();
    let (game, host, mut inbox, ask) = bardagi_asking(&app, &sink);
    let address = reply_address(&ask);
    assert!(address.starts_with("play+") && address.ends_with("@games.test"), "{address}");
    assert!(address.split('@').next().unwrap().len() <= 64, "a local part of at most 64 characters");
    // Forged: one character of the key changed.
    let mut forged = address.clone().into_bytes();
    forged[10] = if forged[10] == b'a' { b'b' } else { b'a' };
    let forged = String::from_utf8(forged).unwrap();
    let said = send(port, &player(0), &forged, &reply(&ask, &player(0), "1", "").replace(&address, &forged));
    assert!(said.starts_with("550") && said.contains("not made by this server"), "{said}");
    let refused = post_inbound(&app, &reply(&ask, &player(0), "1", "").replace(&address, &forged), None);
    assert!(refused.problem(403).contains("not made by this server"));
    // Without the route's key, the route takes nothing.
    let stranger = app.raw("POST", "/api/v1/inbound/mail", Some("0123"), Some(b"From: a@b.c\r\n\r\nx".to_vec()), &[]);
    stranger.problem(401);
    // Expired: four days later the address of three days is refused, and
    // the seat hears why at its own address.
    clock.advance(chrono::Duration::days(4));
    let said = send(port, &player(0), &address, &reply(&ask, &player(0), "1", ""));
    assert!(said.starts_with("550") && said.contains("expired"), "{said}");
    let expired = post_inbound(&app, &reply(&ask, &player(0), "1", ""), Some(&address));
    assert!(expired.problem(403).contains("expired"));
    let receipt = inbox.next("has expired");
    assert!(receipt.text().contains("reply address that has expired"), "{}", receipt.text());
    clock.advance(chrono::Duration::days(-4));
    // Revoked: the host renews the seat's link; every address mailed before stops working.
    app.post(&format!("/api/v1/games/{game}/seats/0/token"), Some(&host), &json!({ "reason": "lost phone" })).ok();
    let said = send(port, &player(0), &address, &reply(&ask, &player(0), "1", ""));
    assert!(said.starts_with("550") && said.contains("revoked"), "{said}");
    let events = app.get(&format!("/api/v1/games/{game}/events"), None).ok().clone();
    assert!(!events["events"].as_array().unwrap().iter().any(|e| e["body"]["event"]["type"] == json!("OrderMailed")));
}

#[test]
fn a_reply_from_another_address_waits_for_the_seats_confirmation() {
    let sink = SmtpSink::start();
    let app = app(&sink, |_| {});
    let port = app.smtp_in.unwrap();
    let (game, _, mut inbox, ask) = bardagi_asking(&app, &sink);
    let stranger = "someone@elsewhere.test";
    let said = send(port, stranger, &reply_address(&ask), &reply(&ask, stranger, "plan: 6 godi", ""));
    assert!(said.starts_with("250") && said.contains("held until the seat confirms"), "{said}");
    // The confirmation goes to the seat's own address, never to the sender.
    let confirm = inbox.next("confirm the order sent from another address");
    assert_eq!(confirm.to, vec![player(0)]);
    assert!(!sink.received().iter().any(|m| m.to.iter().any(|t| t == stranger)));
    let text = confirm.text();
    assert!(text.contains("from someone@elsewhere.test") && text.contains("plan: 6 godi"), "{text}");
    let link = text.lines().find(|l| l.contains("/mail/order/")).expect("a confirmation link").trim().to_owned();
    let path = link.split_once("127.0.0.1").unwrap().1.split_once('/').map(|(_, p)| format!("/{p}")).unwrap();
    // The page only asks; nothing is taken until the button is pressed.
    let page = app.raw("GET", &path, None, None, &[]);
    assert_eq!(page.status, 200);
    assert!(page.text.contains("Confirm the order"));
    let plans = |app: &TestApp| {
        app.get(&format!("/api/v1/games/{game}/events"), None).ok()["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["body"]["event"]["type"] == json!("OrderMailed"))
            .count()
    };
    assert_eq!(plans(&app), 0, "a prefetched link changes nothing");
    let done = app.raw("POST", &path, None, Some(Vec::new()), &[("Content-Type", "application/x-www-form-urlencoded")]);
    assert_eq!(done.status, 200, "{}", done.text);
    let receipt = inbox.next("your order is taken");
    assert!(receipt.text().contains("Understood: "), "{}", receipt.text());
    assert_eq!(plans(&app), 1);
    // The link works once.
    let again =
        app.raw("POST", &path, None, Some(Vec::new()), &[("Content-Type", "application/x-www-form-urlencoded")]);
    assert_eq!(again.status, 404, "{}", again.text);
    // A trusted MTA that did not authenticate the sender holds the reply too.
    let sink2 = SmtpSink::start();
    let app2 = app_with_trusted_mta(&sink2);
    let (_, _, mut inbox2, ask2) = bardagi_asking(&app2, &sink2);
    let forged_results =
        "Authentication-Results: mx.games.test; spf=fail smtp.mailfrom=players.test; dkim=none; dmarc=fail\r\n";
    let raw = reply(&ask2, &player(0), "1", forged_results);
    let said = send(app2.smtp_in.unwrap(), &player(0), &reply_address(&ask2), &raw);
    assert!(said.contains("did not authenticate"), "{said}");
    inbox2.next("confirm the order sent from another address");
    let passed =
        "Authentication-Results: mx.games.test; spf=pass smtp.mailfrom=players.test; dkim=pass; dmarc=pass\r\n";
    let said = send(app2.smtp_in.unwrap(), &player(0), &reply_address(&ask2), &reply(&ask2, &player(0), "1", passed));
    assert!(said.starts_with("250") && !said.contains("held"), "{said}");
    inbox2.next("your order is taken");
}

fn app_with_trusted_mta(sink: &SmtpSink) -> TestApp {
    app(sink, |s| s.inbound.trusted_mta = "mx.games.test".into())
}

#[test]
fn auto_replies_are_ignored_and_html_only_and_quoted_replies_are_read() {
    let sink = SmtpSink::start();
    let app = app(&sink, |_| {});
    let port = app.smtp_in.unwrap();
    let (game, _, mut inbox, ask) = bardagi_asking(&app, &sink);
    let to = reply_address(&ask);
    // An out-of-office answer is dropped without a receipt (no mail loops).
    let before = sink.received().len();
    let said = send(
        port,
        &player(0),
        &to,
        &reply(&ask, &player(0), "I am away until Monday.", "Auto-Submitted: auto-replied\r\n"),
    );
    assert!(said.starts_with("250") && said.contains("Auto-Submitted"), "{said}");
    let bounce = reply(&ask, "MAILER-DAEMON@players.test", "Delivery failed", "")
        .replace("Content-Type: text/plain", "Content-Type: multipart/report; report-type=delivery-status; boundary=x");
    assert!(send(port, "", &to, &bounce).starts_with("250"));
    // An HTML-only reply, its order above the quoted mail in a blockquote.
    let html = format!(
        "From: {p}\r\nTo: {to}\r\nSubject: Re\r\nMessage-ID: <html-1@players.test>\r\nContent-Type: text/html; charset=utf-8\r\n\r\n\
         <html><body><div dir=\"ltr\">plan: 3 berserkur 3 kaupmadur</div><br><div class=\"gmail_quote\">On Tue wrote:<blockquote>plan: 6 godi<br>1</blockquote></div></body></html>\r\n",
        p = player(0)
    );
    assert!(send(port, &player(0), &to, &html).starts_with("250"));
    let taken = inbox.next("your order");
    assert!(taken.header("Subject").unwrap().contains("taken"), "{}", taken.text());
    assert!(taken.text().contains("Understood: "), "{}", taken.text());
    // The auto-reply and the bounce, sent before it, were answered by nothing.
    let to_seat: Vec<Received> =
        sink.received()[before..].iter().filter(|m| m.to.contains(&player(0))).cloned().collect();
    assert_eq!(
        to_seat.len(),
        1,
        "one receipt, for the HTML reply: {:?}",
        to_seat.iter().map(|m| m.header("Subject")).collect::<Vec<_>>()
    );
    // A plain reply replaces it while the plan is open; the quoted mail
    // below it (with its numbers and its example plan) is not read.
    let second = inbox.all().into_iter().rev().find(|m| m.header("Reply-To").is_some()).unwrap();
    let said = send(port, &player(0), &to, &reply(&second, &player(0), "plan: 2 godi 2 knerrir 2 kaupmadur", ""));
    assert!(said.starts_with("250"), "{said}");
    let taken = inbox.next("your order");
    assert!(taken.header("Subject").unwrap().contains("taken"), "{}", taken.text());
    let events = app.get(&format!("/api/v1/games/{game}/events"), None).ok().clone();
    let mailed = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["body"]["event"]["type"] == json!("OrderMailed"))
        .count();
    assert_eq!(mailed, 2, "both replies were taken, the later replacing the earlier");
}

#[test]
fn a_reply_to_a_closed_decision_and_a_malformed_order_are_answered_in_words() {
    let sink = SmtpSink::start();
    let app = app(&sink, |_| {});
    let port = app.smtp_in.unwrap();
    let (game, _, tokens) = create_with_tokens(&app, "bardagi", 3, json!({}));
    let mut inbox = Inbox::of(&sink, 0);
    let ask = inbox.next("Your seat");
    let to = reply_address(&ask);
    // A malformed plan: the receipt names the line and what the form expects.
    let said = send(port, &player(0), &to, &reply(&ask, &player(0), "Hello!\r\nplan: 2 berserkur 2 warriors", ""));
    assert!(said.starts_with("250") && said.contains("line 1"), "{said}");
    let wrong = inbox.next("your order was not taken");
    let text = wrong.text();
    assert!(text.contains("Line 1 (\"Hello!\"): this is not an order the game takes now"), "{text}");
    assert!(text.contains("  plan: ") && text.contains("  step: "), "the form comes again:\n{text}");
    send(port, &player(0), &to, &reply(&ask, &player(0), "plan: 2 berserkur 2 warriors", ""));
    let text = inbox.next("your order was not taken").text();
    assert!(text.contains("Line 1 (\"plan: 2 berserkur 2 warriors\"): \"warriors\" is not a kind of card"), "{text}");
    send(port, &player(0), &to, &reply(&ask, &player(0), "plan: 2 berserkur 2 godi", ""));
    let text = inbox.next("your order was not taken").text();
    assert!(text.contains("choose exactly 6 cards, not 4"), "the rule's own words:\n{text}");
    // The seat plays its first decision on its page; then every other seat
    // plans too, and the round's plans are revealed: the mailed decision is closed.
    for token in &tokens {
        let legal = app.get(&format!("/api/v1/games/{game}/view"), Some(token)).ok()["legal"][0].clone();
        app.submit(&game, token, legal).ok();
    }
    let said = send(port, &player(0), &to, &reply(&ask, &player(0), "plan: 2 berserkur 2 godi 2 kaupmadur", ""));
    assert!(said.starts_with("250") && said.contains("closed"), "{said}");
    let text = inbox.next("that decision is closed").text();
    assert!(
        text.contains("the decision this reply answers is closed") && text.contains("Nothing was changed"),
        "{text}"
    );
}

/// `runestone inbound` as an MTA's pipe runs it: the message on standard
/// input, the reply address as its argument.
fn pipe(app: &TestApp, recipient: &str, raw: &str) -> (i32, String) {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_runestone"))
        .args(["inbound", "--url", &app.base, "--recipient", recipient])
        .env("RUNESTONE__STORAGE__PATH", &app.dir)
        .env("RUNESTONE__INBOUND__DOMAIN", DOMAIN)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(raw.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

#[test]
fn runestone_inbound_hands_a_message_on_standard_input_to_the_running_server() {
    let sink = SmtpSink::start();
    let app = app(&sink, |s| s.inbound.smtp_listen = String::new());
    assert_eq!(app.smtp_in, None, "no listener unless one is asked for");
    let (game, _, mut inbox, ask) = bardagi_asking(&app, &sink);
    let to = reply_address(&ask);
    let raw = reply(&ask, &player(0), "plan: 2 berserkur 2 godi 2 kaupmadur", "");
    let (code, said) = pipe(&app, &to, &raw);
    assert_eq!(code, 0, "{said}");
    let receipt = inbox.next("your order is taken");
    assert!(receipt.text().contains("Understood: "), "{}", receipt.text());
    let events = app.get(&format!("/api/v1/games/{game}/events"), None).ok().clone();
    assert!(events["events"].as_array().unwrap().iter().any(|e| e["body"]["event"]["type"] == json!("OrderMailed")));
    // The same message again (an MTA that retries) is not taken twice.
    let (code, said) = pipe(&app, &to, &raw);
    assert_eq!((code, said.as_str()), (0, "this message was taken already"));
    // A forged address: the MTA bounces it (EX_NOUSER), saying why.
    let forged = to.replacen("play+", "play+a", 1);
    let (code, said) = pipe(&app, &forged, &reply(&ask, &player(0), "1", ""));
    assert_eq!(code, 67, "{said}");
    assert!(said.contains("not made by this server"), "{said}");
    // A server that is not there: the MTA tries again later (EX_TEMPFAIL).
    let mut gone = app;
    gone.stop();
    let (code, said) = pipe(&gone, &to, &reply(&ask, &player(0), "1", ""));
    assert_eq!(code, 75, "{said}");
}

#[test]
fn the_inbound_route_asks_its_key_before_it_says_no_replies_are_taken() {
    let sink = SmtpSink::start();
    let app = app(&sink, |s| {
        s.inbound.domain = String::new();
        s.inbound.smtp_listen = String::new();
    });
    let raw = "From: a@players.test\r\nTo: play+x@games.test\r\nSubject: 1\r\n\r\n1\r\n";
    let post = |key: Option<&str>| {
        app.raw(
            "POST",
            "/api/v1/inbound/mail",
            key,
            Some(raw.as_bytes().to_vec()),
            &[("Content-Type", "message/rfc822")],
        )
    };
    // Without the key, or with another, the caller learns nothing more.
    assert!(post(None).problem(401).contains("Authorization: Bearer"));
    assert!(post(Some("0123")).problem(401).contains("not the server's inbound route key"));
    // With it, `runestone inbound` hears that this server takes no replies.
    let refused = post_inbound(&app, raw, None);
    assert!(refused.problem(404).contains("inbound.domain is not set"));
}

#[test]
fn a_seat_sends_at_most_its_replies_of_an_hour_and_the_other_seats_are_not_held_back() {
    let sink = SmtpSink::start();
    let app = app(&sink, |s| s.inbound.per_hour = 2);
    let port = app.smtp_in.unwrap();
    let (_, _, mut inbox, ask) = bardagi_asking(&app, &sink);
    let to = reply_address(&ask);
    for plan in ["plan: 6 godi", "plan: 6 berserkur"] {
        let said = send(port, &player(0), &to, &reply(&ask, &player(0), plan, ""));
        assert!(said.starts_with("250"), "{said}");
        assert!(inbox.next("your order").header("Subject").unwrap().contains("taken"));
    }
    // The third within the hour is refused for now (the MTA tries again
    // later), over SMTP and over the inbound route alike; nothing is taken.
    let said = send(port, &player(0), &to, &reply(&ask, &player(0), "plan: 6 kaupmadur", ""));
    assert!(said.starts_with("450") && said.contains("as many replies as an hour allows"), "{said}");
    let late = post_inbound(&app, &reply(&ask, &player(0), "plan: 3 godi 3 knerrir", ""), Some(&to));
    assert!(late.problem(429).contains("as many replies as an hour allows"));
    // Another seat's replies are counted apart.
    let ask2 = Inbox::of(&sink, 1).next("Your seat");
    let said = send(port, &player(1), &reply_address(&ask2), &reply(&ask2, &player(1), "plan: 6 godi", ""));
    assert!(said.starts_with("250"), "{said}");
}
