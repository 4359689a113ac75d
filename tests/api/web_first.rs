//! A first-time player's whole way into a Bardagi game, in headless
//! Chromium: the invitation as the real SMTP listener received it, its
//! link, the landing page, the plan, a turn, the Build phase's choice and
//! the next round; a second browser on the other clan's page sees the
//! first clan's move appear without reloading. Screenshots at 1280×900 and
//! 390×844 are saved under `target/web-screenshots/` (`40-…` to `47-…`).

use serde_json::{json, Value};

use crate::browser::Driver;
use crate::helpers::{seat_tokens, str_of, TestApp};
use crate::smtp::SmtpSink;

/// The game link of the invitation mailed to `address`, as its HTML part
/// has it.
fn invited_link(sink: &SmtpSink, app: &TestApp, address: &str) -> String {
    let start = std::time::Instant::now();
    let mail = loop {
        let mails = sink.received();
        if let Some(m) = mails.into_iter().find(|m| m.to.iter().any(|t| t == address)) {
            break m;
        }
        assert!(start.elapsed() < crate::browser::WAIT_BOUND, "no invitation to {address} arrived");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let subject = mail.header("Subject").unwrap_or_default();
    assert!(subject.contains("Your seat"), "an invitation: {subject}");
    let html = mail.html();
    let link = html
        .split("href=\"")
        .skip(1)
        .map(|h| h[..h.find('"').unwrap_or(0)].replace("&#x2f;", "/").replace("&#x3d;", "=").replace("&amp;", "&"))
        .find(|h| h.contains("/play/"))
        .unwrap_or_else(|| panic!("no game link in the invitation:\n{html}"));
    assert!(link.starts_with(&format!("{}/play/", app.base)), "the link leads to this server: {link}");
    link
}

/// Screenshots at a desktop's and a phone's size, then back to the desktop.
fn shoot(d: &Driver, name: &str) {
    d.resize(1280, 900);
    d.screenshot(&format!("{name}-1280"));
    d.resize(390, 844);
    d.screenshot(&format!("{name}-phone"));
    let widths = d.eval("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]");
    assert!(widths[0].as_u64() <= widths[1].as_u64(), "{name}: no sideways scrolling on a phone: {widths}");
    d.resize(1280, 900);
}

/// The text of the first element matching `css`, read in one step in the
/// page (a live page may redraw an element between finding and reading it).
fn text_of(d: &Driver, css: &str) -> String {
    let v = d.eval(&format!("var e = document.querySelector({css:?}); return e ? e.textContent : '';"));
    v.as_str().unwrap_or_default().to_owned()
}

#[test]
fn a_first_time_player_goes_from_the_invitation_to_the_next_round_in_headless_chromium() {
    let sink = SmtpSink::start();
    let app = TestApp::spawn_with(TestApp::smtp_to(sink.port));
    let seats = json!([{"name": "Ása", "email": "asa@example.org"}, {"name": "Bjarni", "email": "bjarni@example.org"}]);
    let created = app
        .post(
            "/api/v1/games",
            None,
            &json!({"ruleset": "bardagi", "options": {}, "seats": seats, "host": {"name": "Gudrun", "email": "gudrun@example.org"}}),
        )
        .ok()
        .clone();
    let game = str_of(&created, "game_id").to_owned();
    // The browser plays the clan that starts; the second browser the other.
    let public = app.get(&format!("/api/v1/games/{game}/view"), None).ok().clone();
    let me = public["view"]["starting"].as_u64().unwrap() as usize;
    let other = 1 - me;
    let name = ["Ása", "Bjarni"];
    let address = ["asa@example.org", "bjarni@example.org"];

    // The invitation's link opens the landing page, which changes nothing.
    let link = invited_link(&sink, &app, address[me]);
    let a = Driver::start();
    a.resize(1280, 900);
    a.go(&link);
    assert!(a.text("#who").contains(name[me]), "{}", a.text("#who"));
    assert_eq!(a.property("#how-to-play", "href"), format!("{}/rules/bardagi", app.base), "how to play, a link away");
    shoot(&a, "40-first-landing");
    a.loads(|| a.click(&a.find("#enter")));

    // The plan: the header says where the game stands and what to do.
    assert!(text_of(&a, "#round").contains("round 1 of"), "{}", text_of(&a, "#round"));
    assert!(text_of(&a, "#phase").starts_with("Planning"), "{}", text_of(&a, "#phase"));
    assert!(text_of(&a, "#me").contains(name[me]));
    assert!(a.exists("#plan-form"), "the plan picker is the decision");
    assert!(text_of(&a, "#plan-count").starts_with("6 of 6 chosen"), "{}", text_of(&a, "#plan-count"));
    shoot(&a, "41-first-plan");
    a.loads(|| a.click(&a.find("#plan-submit")));
    assert!(text_of(&a, "#log").contains(&format!("{} chooses ", name[me])), "{}", text_of(&a, "#log"));

    // The other clan opens its own invitation and plans too.
    let b = Driver::start();
    b.resize(1280, 900);
    b.go(&invited_link(&sink, &app, address[other]));
    b.loads(|| b.click(&b.find("#enter")));
    b.loads(|| b.click(&b.find("#plan-submit")));

    // Every clan has chosen: the turn begins on the first clan's page
    // without a reload, its cards face up and its units' actions offered.
    a.wait_until("the turn on Ása's page", || a.exists("#composer"));
    a.go(&format!("{}/games/{game}", app.base));
    assert!(text_of(&a, "#phase").contains("turn"), "{}", text_of(&a, "#phase"));
    assert!(!text_of(&a, "#cards-hand").is_empty(), "the cards laid down are shown");
    shoot(&a, "42-first-turn");
    assert!(text_of(&a, "#board-input-status").contains("Select one of your units"), "the map invites a choice");

    // The second browser follows the game; the first clan moves a unit.
    b.wait_until("Bjarni's page to follow the game", || text_of(&b, "#live").contains("follows the game"));
    b.eval("window.__sameDocument = true; return true;");
    // The turn, played on the board: select a unit of one's own on the map;
    // the areas it may move to light up, each with its cost, as many as
    // the list of its moves offers; choose one.
    let unit = a.find(&format!("svg.board g.unit.selectable[data-seat='{me}']"));
    let unit_key = a.call("GET", &a.s(&format!("/element/{unit}/attribute/data-unit")), None);
    let unit_key = unit_key.as_str().unwrap().to_owned();
    a.click(&unit);
    a.wait_until("the reachable areas to light up", || a.exists("svg.board g.area.reach"));
    let lit = a.eval("return document.querySelectorAll('svg.board g.area.reach[data-move]').length;").as_u64().unwrap();
    let listed = a.eval(&format!("return document.querySelectorAll('#move-{unit_key} option').length;"));
    assert_eq!(json!(lit), listed, "every move of the list is lit on the map");
    let costs = a.eval("return Array.from(document.querySelectorAll('svg.board text.reach-cost')).map(function (t) { return t.textContent; });");
    assert!(
        costs.as_array().unwrap().iter().all(|c| c == "1 card" || c == "free"),
        "each lit area shows its card cost: {costs}"
    );
    assert!(text_of(&a, "#board-input-status").contains("lit area"), "{}", text_of(&a, "#board-input-status"));
    a.eval("document.getElementById('board').scrollIntoView(); return true;");
    shoot(&a, "42-first-turn-unit-selected");
    // An area whose middle shows the area itself (not a unit standing on it).
    let target = a.eval(
        "var all = Array.from(document.querySelectorAll('svg.board g.area.reach[data-move]'));\
         for (var i = 0; i < all.length; i++) { all[i].scrollIntoView({block: 'center'});\
           var r = all[i].getBoundingClientRect(); var at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);\
           if (at && all[i].contains(at)) { return all[i].getAttribute('data-area'); } }\
         return null;",
    );
    let target = target.as_str().expect("a lit area to click").to_owned();
    let to: u64 = target.trim_start_matches("area-").parse().unwrap();
    let area_name = a.eval(&format!(
        "var o = Array.from(document.querySelectorAll('#move-{unit_key} option')).find(function (o) {{ return JSON.parse(o.value).to === {to}; }}); return o.textContent.split(' · ')[0];"
    ));
    let target_name = area_name.as_str().unwrap().to_owned();
    let el = a.find(&format!("svg.board g.area.reach[data-area='{target}']"));
    a.loads(|| a.click(&el));
    let log = text_of(&a, "#log");
    assert!(log.contains("moves from") && log.contains(&format!("to {target_name}")), "{log}");
    let target = target_name;
    b.wait_until("Ása's move on Bjarni's page", || text_of(&b, "#log").contains(&format!("to {target}")));
    assert_eq!(b.eval("return window.__sameDocument === true;"), json!(true), "Bjarni's page was not reloaded");
    let told = text_of(&b, "#live-notice");
    assert!(told.contains(name[me]), "the move is told at the top in words: {told}");
    assert!(!told.contains("expected_seq"), "{told}");
    shoot(&b, "43-first-move-seen-live");

    // The Build phase's choice, made on the player's own board: a building
    // of it chooses an upgrade of that building in the market as the next
    // wish of the standing orders, which are then saved.
    let offered = a.property("#orders-build-0 option:nth-child(2)", "value");
    let building = offered.split('/').next().unwrap().to_owned();
    assert!(offered.contains('/'), "an upgrade of the market: {offered}");
    a.click(&a.find(&format!("#my-board svg.player-board g.building[data-building='{building}'] text")));
    a.wait_until("the wish chosen from the board", || {
        a.property("#orders-build-0", "value").starts_with(&format!("{building}/"))
    });
    let wish = a.property("#orders-build-0", "value");
    assert!(text_of(&a, "#board-input-status").starts_with("Wished for: "), "{}", text_of(&a, "#board-input-status"));
    shoot(&a, "44-first-build-wish");
    a.loads(|| a.click(&a.find("#orders-submit")));
    let view = app.get(&format!("/api/v1/games/{game}/view"), None).ok().clone();
    assert_eq!(view["view"]["current"], json!(me), "still the first clan's turn");
    a.loads(|| a.press("End turn"));
    assert!(!a.exists("#end-turn"), "the turn passed on");

    // The second clan lets the bot play its turn: the round ends, the
    // Build and Claim phases run, and the next round's plan is asked for.
    b.wait_until("Bjarni's turn", || b.exists("#bot-turn"));
    b.go(&format!("{}/games/{game}", app.base));
    b.loads(|| b.click(&b.find("#bot-turn")));
    a.wait_until("round 2 on Ása's page", || text_of(&a, "#round").contains("round 2 of"));
    a.go(&format!("{}/games/{game}", app.base));
    assert!(text_of(&a, "#phase").starts_with("Planning"), "{}", text_of(&a, "#phase"));
    assert!(a.exists("#plan-form"), "the next plan is asked for");
    shoot(&a, "45-first-next-round");

    // The wish was built, or it still stands in the orders for a later round.
    a.go(&format!("{}/games/{game}?log=all", app.base));
    let log = text_of(&a, "#log");
    let built = log.contains(&format!("{} builds ", name[me])) || log.contains(&format!("{} replaces ", name[me]));
    let token = &seat_tokens(&created)[me];
    let view = app.get(&format!("/api/v1/games/{game}/view"), Some(token)).ok().clone();
    let wishes = view["view"]["players"][me]["orders"]["build"].as_array().cloned().unwrap_or_default();
    let parts: Vec<&str> = wish.split('/').collect();
    let standing = wishes.iter().any(|w: &Value| w["building"] == parts[0] && w["effect"] == parts[1]);
    assert!(built != standing, "built ({built}) or still wished for ({standing}): {log}\n{wishes:?}");
    for d in [&a, &b] {
        let errors = d.console_errors();
        assert!(errors.is_empty(), "console errors: {errors:#?}");
    }
}
