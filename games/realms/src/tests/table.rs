//! The table header read from the typed view of a bot game at several
//! positions, for every viewer: its rows agree with its columns, the
//! round counts the seasons up, the events that begin a round are the
//! ones the header counts, and no realm's orders show but as given.

use runestone_engine::present::{Present, Rounds, TableHeader};
use runestone_engine::{Game, Seat, Viewer};

use super::Driver;
use crate::state::{Command, Season};
use crate::view::View;
use crate::{Options, Realms};

fn typed(d: &Driver, viewer: Viewer) -> View {
    serde_json::from_value(Realms::view(&d.state, viewer)).expect("the view reads back typed")
}

fn header(d: &Driver, viewer: Viewer, names: &[String]) -> TableHeader {
    Realms::header(&typed(d, viewer), names).expect("Realms gives a header")
}

/// Every viewer's header of this position, checked against the seats; all
/// the same, since the header reads only what every realm may know.
fn every_viewer(d: &Driver, names: &[String]) -> TableHeader {
    let public = header(d, Viewer::Public, names);
    public.check(names.len()).unwrap();
    for seat in 0..names.len() as Seat {
        let mine = header(d, Viewer::Seat(seat), names);
        mine.check(names.len()).unwrap();
        assert_eq!(mine, public, "seat {seat}'s header tells what the public one does");
    }
    assert_eq!(header(d, Viewer::Referee, names), public, "the referee's too");
    public
}

/// The bot's orders for `seat`.
fn bot_orders(d: &Driver, seat: Seat) -> crate::Orders {
    let Command::Orders { orders } = Realms::fallback(&d.state, seat).expect("a pending realm has a fallback");
    orders
}

#[test]
fn the_header_counts_the_seasons_names_the_waiting_realms_and_keeps_orders_secret() {
    let names: Vec<String> = ["Åsa", "Brand", "Cwen"].iter().map(|s| (*s).to_owned()).collect();
    let mut d = Driver::new(&Options { years: 2, ..Options::default() }, 3, 11).unwrap();
    let mut rounds_seen = Vec::new();
    let mut last = 0;
    while d.state.over.is_none() {
        // The season's start: nobody has given orders.
        let h = every_viewer(&d, &names);
        let now = h.round.expect("a running game counts its rounds");
        assert_eq!(now.of, 8, "two years of four seasons");
        assert_eq!(now.now, last + 1, "the round counts up by one: {h:?}");
        last = now.now;
        rounds_seen.push(now.now);
        let phase = h.phase.clone().unwrap();
        let season = d.state.season.name();
        assert!(phase.to_lowercase().starts_with(&format!("{season} of year {} of 2", d.state.year)), "{phase}");
        assert!(phase.ends_with("waiting for Åsa, Brand, Cwen"), "{phase}");
        assert!(h.standings.iter().all(|s| s.values[5] == "not yet"), "{h:?}");
        assert_eq!(
            h.standings.iter().map(|s| s.colour.clone().unwrap()).collect::<Vec<_>>(),
            ["Red", "Blue", "Green"],
            "each realm's colour in words, as the map draws it"
        );
        for (i, s) in h.standings.iter().enumerate() {
            let r = &d.state.realms[i];
            assert_eq!(s.score, Some(i64::from(r.vp)), "the victory points");
            assert_eq!(s.values[1], format!("{} PP", r.pp));
            assert_eq!(s.values[2], r.gold.to_string());
            let units: usize =
                d.state.fields.iter().map(|f| f.units.iter().filter(|u| u.owner as usize == i).count()).sum();
            assert_eq!(s.values[4], units.to_string());
        }

        // Brand gives the bot's orders: every header says so, none says what.
        let orders = bot_orders(&d, 1);
        d.act(1, orders.clone()).unwrap();
        assert_eq!(typed(&d, Viewer::Seat(1)).realms[1].orders.as_ref(), Some(&orders), "Brand sees his own orders");
        assert!(typed(&d, Viewer::Seat(0)).realms[1].orders.is_none(), "Åsa does not");
        let h = every_viewer(&d, &names);
        assert_eq!(h.round.map(|r| r.now), Some(last), "the round goes on");
        assert_eq!(h.standings[1].values[5], "given");
        assert_eq!(h.standings[0].values[5], "not yet");
        assert!(h.phase.as_deref().unwrap().ends_with("waiting for Åsa, Cwen"), "{h:?}");
        let shown = serde_json::to_string(&h).unwrap();
        for m in &orders.moves {
            let field = &typed(&d, Viewer::Public).fields[m.to as usize].name;
            assert!(!shown.contains(field.as_str()), "no field Brand sends units to is named: {field}");
        }

        // The others' orders: the season resolves.
        for seat in d.state.waiting() {
            let o = bot_orders(&d, seat);
            d.act(seat, o).unwrap();
        }
    }
    assert_eq!(rounds_seen, (1..=8).collect::<Vec<u32>>(), "every season of the two years, in order");
    let h = every_viewer(&d, &names);
    assert!(h.phase.as_deref().unwrap().starts_with("The game is over"), "{h:?}");
    assert!(h.standings.iter().all(|s| s.values[5] == "—" || s.values[5] == "out of the game"), "{h:?}");

    // The events that begin a round are the header's rounds, in order.
    let begun: Vec<u32> = d.log.iter().filter_map(|e| Realms::round_begun(&e.event)).collect();
    assert_eq!(begun, rounds_seen, "Started begins round 1, each RoundEnded the next");
}

#[test]
fn a_round_is_a_season_counted_from_spring_of_the_first_year() {
    use crate::table::round_of;
    assert_eq!(round_of(1, Season::Spring), 1);
    assert_eq!(round_of(1, Season::Winter), 4);
    assert_eq!(round_of(2, Season::Spring), 5);
    assert_eq!(round_of(3, Season::Autumn), 11);
    let d = Driver::new(&Options::default(), 2, 1).unwrap();
    let h = every_viewer(&d, &["A".to_owned(), "B".to_owned()]);
    assert_eq!(h.round, Some(Rounds { now: 1, of: 20 }), "five years by default");
    assert_eq!(h.score, "Victory points");
    assert!(h.standings.iter().all(|s| s.values[3] == "3 villages"), "each realm begins with three villages: {h:?}");
}
