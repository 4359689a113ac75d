//! The scenarios given as data beside Vikings 800 AD (`data/<id>.toml`):
//! each reads and seats every player count it allows; a game of bots plays
//! each to its end in FAST and in BASIC and is scored; and the faction
//! rules they bring, each named after its line of the sheet.

use runestone_engine::Game;

use super::playout::{invariants, no_unit_cut_off};
use super::Driver;
use crate::data::{map, Ability, SCENARIOS};
use crate::state::{
    Building, Event, Good, Herd, Mode, Move, Orders, Purchase, Season, Settlement, State, Step, Trade, UnitKind,
    Weather,
};
use crate::{bot, Options, Realms};

fn options(scenario: &str, mode: Mode, years: u8) -> Options {
    Options { scenario: scenario.into(), mode, years, ..Options::default() }
}

fn field(scenario: &str, r: u8, c: u8) -> u16 {
    map(scenario).id(r, c)
}

fn seat_of(s: &State, faction: &str) -> u8 {
    s.realms.iter().position(|r| r.faction == faction).expect("the faction is seated") as u8
}

#[test]
fn every_scenario_reads_from_its_data_and_seats_each_player_count_it_allows() {
    let names: Vec<&str> = SCENARIOS.iter().map(|id| map(id).name.as_str()).collect();
    assert_eq!(
        names,
        ["Orient 1550 BC", "Italia 290 BC", "Huns 373 AD", "Britannia 410 AD", "Vikings 800 AD", "Taifas 1050 AD"]
    );
    for id in SCENARIOS {
        let m = map(id);
        for n in 2..=m.max_players() {
            let d = Driver::new(&options(id, Mode::Fast, 1), n, 3).unwrap_or_else(|e| panic!("{id}, {n}: {e:?}"));
            assert_eq!(d.state.realms.len(), n as usize);
            for (seat, r) in d.state.realms.iter().enumerate() {
                assert!(m.factions.iter().any(|f| f.id == r.faction), "{id}: {} has no faction", r.home);
                let towns = crate::control::settlements(&d.state, seat as u8).len();
                let units = d.state.fields.iter().flat_map(|f| &f.units).filter(|u| u.owner == seat as u8).count();
                assert!(towns >= 1 && units >= 3, "{id}: {} starts with {towns} settlements, {units} units", r.home);
            }
        }
        if m.max_players() < 12 {
            let e = Driver::new(&options(id, Mode::Fast, 1), m.max_players() + 1, 3).err().expect("refused");
            assert!(e.to_string().contains("is played by 2 to"), "{e:?}");
        }
    }
    let old = Options { rules_version: 2, ..options("italia", Mode::Fast, 1) };
    let e = Driver::new(&old, 2, 3).err().expect("refused");
    assert!(e.to_string().contains("rules version 3 or later"), "{e:?}");
}

/// A game where every realm gives the bot's orders (the fallback), to its
/// end: invariants after every input, replay equal to the live state, a
/// score for every realm. Returns the battles fought.
fn bot_game(scenario: &str, mode: Mode, players: u8, years: u8, seed: u64) -> u32 {
    let mut d = Driver::new(&options(scenario, mode, years), players, seed).expect("setup");
    let mut inputs = 0;
    while Realms::outcome(&d.state).is_none() {
        inputs += 1;
        assert!(inputs < 2_000, "{scenario}: endless");
        let waiting = d.state.waiting();
        assert!(!waiting.is_empty(), "{scenario}: nobody to wait for but not over");
        let seat = waiting[0];
        let before = d.state.season;
        let orders = bot::orders(&d.state, seat);
        d.act(seat, orders).unwrap_or_else(|e| panic!("{scenario}: the bot's orders of seat {seat} refused: {e}"));
        invariants(&d.state, seed);
        if before == Season::Winter && d.state.season != before {
            no_unit_cut_off(&d.state, seed);
        }
    }
    let mut replay = State::default();
    for e in &d.log {
        Realms::apply(&mut replay, &e.event);
    }
    assert_eq!(replay, d.state, "{scenario}: replay differs from the live state");
    let o = Realms::outcome(&d.state).expect("over");
    assert_eq!(o.scores.len(), players as usize, "{scenario}: {}", o.summary);
    let mut ranked = o.ranking.clone();
    ranked.sort();
    assert_eq!(ranked, (0..players).collect::<Vec<_>>(), "{scenario}: every realm is ranked");
    assert!(!o.winners.is_empty() && !o.summary.is_empty());
    let ended = d.log.iter().any(|e| matches!(&e.event, Event::GameEnded { .. }));
    assert!(ended, "{scenario}: no end of game was logged");
    d.log
        .iter()
        .filter_map(|e| match &e.event {
            Event::Resolved { report, .. } => Some(report.iter().filter(|l| l.starts_with("battle on")).count() as u32),
            _ => None,
        })
        .sum()
}

/// FAST with every seat taken, BASIC with two and with three realms, and a
/// one-year game at every other player count the scenario allows.
fn plays_to_its_end(scenario: &str) {
    let most = map(scenario).max_players();
    bot_game(scenario, Mode::Fast, most, 3, 1);
    bot_game(scenario, Mode::Basic, 2, 3, 2);
    bot_game(scenario, Mode::Basic, 3, 2, 3);
    for n in 4..most {
        let mode = if n % 2 == 0 { Mode::Fast } else { Mode::Basic };
        bot_game(scenario, mode, n, 1, n as u64);
    }
}

#[test]
fn italia_290_bc_plays_to_its_end_with_bots_in_fast_and_basic() {
    plays_to_its_end("italia");
}

#[test]
fn britannia_410_ad_plays_to_its_end_with_bots_in_fast_and_basic() {
    plays_to_its_end("britannia");
}

#[test]
fn taifas_1050_ad_plays_to_its_end_with_bots_in_fast_and_basic() {
    plays_to_its_end("taifas");
}

#[test]
fn orient_1550_bc_plays_to_its_end_with_bots_in_fast_and_basic() {
    plays_to_its_end("orient");
}

#[test]
fn huns_373_ad_plays_to_its_end_with_bots_in_fast_and_basic() {
    plays_to_its_end("huns");
}

/// Line 11, "City of Rome: 1 player may place 1 city instead of 3 villages,
/// starting without a herd of pigs and without 2 LI units", and line 12,
/// "Port of Carthage: 1 player can place 1 port instead of a third village,
/// starting without a herd of pigs."
#[test]
fn city_of_rome_instead_of_three_villages_and_port_of_carthage_instead_of_a_third_village() {
    let d = Driver::new(&options("italia", Mode::Fast, 1), 2, 1).expect("setup");
    let s = &d.state;
    let rome = field("italia", 7, 9);
    assert_eq!(s.fields[rome as usize].settlement, Some(Settlement { owner: 0, city: true, fort: false }));
    assert_eq!(crate::control::settlements(s, 0), vec![rome]);
    // Rome is inland: 7 Light Infantry and 7 gold, less 2 Light Infantry.
    assert_eq!(crate::control::kind_of(s, rome, 0, UnitKind::LightInfantry), 5);
    assert_eq!(s.fields[rome as usize].grain, 10, "the city stores the 10 grain");
    assert!(!s.fields[rome as usize].herds.contains(&(0, Herd::Pigs)), "no pigs");
    let port = field("italia", 12, 4);
    let yard = s.fields[port as usize].shipyard.expect("a shipyard");
    assert!(yard.port && yard.owner == 1, "Carthage's third field holds a port");
    assert!(s.fields[port as usize].settlement.is_none(), "and no village");
    assert_eq!(crate::control::kind_of(s, port, 1, UnitKind::TransportShip), 1);
    assert_eq!(crate::control::settlements(s, 1).len(), 2);
    assert!(s.fields.iter().all(|f| !f.herds.contains(&(1, Herd::Pigs))), "no pigs");
}

/// Line 119, "Huns: Start with 2 sheep herds, 2 horse herds, 3 LI, 3
/// Cavalry, 1 village, 5 grain, 7 gold and 7 PP. ... They use Transhumance
/// (Feeding - red mode)", with line 321, "TRANSHUMANCE: No need to feed
/// herds in winter if on green LGF (for subtropical climate) or on a yellow
/// LGF (for temperate and subtropical climate)."
#[test]
fn huns_start_with_their_set_and_use_transhumance() {
    let d = Driver::new(&options("huns", Mode::Basic, 1), 2, 1).expect("setup");
    let s = &d.state;
    let village = field("huns", 3, 16);
    assert_eq!(crate::control::settlements(s, 0), vec![village]);
    let fi = &s.fields[village as usize];
    assert_eq!(crate::control::kind_of(s, village, 0, UnitKind::LightInfantry), 3);
    assert_eq!(crate::control::kind_of(s, village, 0, UnitKind::Cavalry), 3);
    assert_eq!(fi.herds.iter().filter(|h| **h == (0, Herd::Sheep)).count(), 2);
    assert_eq!(fi.herds.iter().filter(|h| **h == (0, Herd::Horses)).count(), 2);
    assert_eq!((fi.grain, s.realms[0].gold, s.realms[0].pp), (5, 7, 7));
    // Given a normal winter, when the herds are fed, then the Huns' herds on
    // a yellow temperate field need no grain, a Roman herd there does, and
    // on a green temperate field the Huns' herds are fed too.
    let mut s = s.clone();
    s.winter = [Weather::Normal; 3];
    assert_eq!(map("huns").fields[village as usize].climate, 1, "temperate");
    assert!(crate::year::needs_no_feed(&s, village as usize, 0));
    assert!(!crate::year::needs_no_feed(&s, village as usize, 1), "the Romans have no transhumance");
    let green = field("huns", 0, 0);
    assert!(!crate::year::needs_no_feed(&s, green as usize, 0), "green pasture only in the subtropical climate");
    let south_green = field("huns", 11, 5);
    assert_eq!(map("huns").fields[south_green as usize].climate, 0, "subtropical");
    assert!(crate::year::needs_no_feed(&s, south_green as usize, 0));
}

/// Line 5, "Eruscan: ... Each TAXES extra +3 gold", and line 7, "Greeks:
/// ... Taxes, festivals from the port: +3 (instead of +2)".
#[test]
fn etruscans_each_taxes_extra_three_gold_and_the_greeks_port_gives_three() {
    let mut d = Driver::new(&options("italia", Mode::Fast, 1), 6, 1).expect("setup");
    d.pass();
    let (etruscans, greeks) = (seat_of(&d.state, "etruscans"), seat_of(&d.state, "greeks"));
    let mut s = d.state.clone();
    let income = crate::year::income(&s, etruscans);
    let gold = s.realms[etruscans as usize].gold as u32;
    crate::year::weather_yield_taxes(&mut s, &mut crate::season::Dice::replay(&[]), &mut Vec::new());
    assert_eq!(s.realms[etruscans as usize].gold as u32, (gold + income + 3).min(20));
    // A dock gives no taxes; the Greeks' port gives 3, Carthage's 2.
    let mut s = d.state.clone();
    let dock = (0..s.fields.len()).find(|&f| s.fields[f].shipyard.is_some_and(|y| y.owner == greeks)).expect("a dock");
    let before = crate::year::income(&s, greeks);
    s.fields[dock].shipyard = Some(crate::state::Shipyard { owner: greeks, port: true });
    assert_eq!(crate::year::income(&s, greeks), before + 3);
    let carthage = seat_of(&s, "carthaginians");
    let port = field("italia", 12, 4) as usize;
    let with = crate::year::income(&s, carthage);
    s.fields[port].shipyard = Some(crate::state::Shipyard { owner: carthage, port: false });
    assert_eq!(crate::year::income(&s, carthage), with - 2);
}

/// Line 8, "Illyrians: (valid only in Illyria) LI may cross the black line
/// in the mountains. Full brown LGF: +2LF (not +1)."
#[test]
fn illyrians_in_illyria_hold_brown_fields_at_two_lf_and_cross_the_black_line() {
    let d = Driver::new(&options("italia", Mode::Fast, 1), 6, 1).expect("setup");
    let mut s = d.state.clone();
    let (illyrians, celts) = (seat_of(&s, "illyrians"), seat_of(&s, "celts"));
    let in_illyria = field("italia", 3, 16);
    let abroad = field("italia", 0, 5);
    for (f, owner, lf) in [(in_illyria, illyrians, 2), (abroad, illyrians, 1), (in_illyria, celts, 1)] {
        s.fields[f as usize].settlement = Some(Settlement { owner, city: false, fort: false });
        assert_eq!(crate::control::lf(&s, f), lf, "a settlement of seat {owner} on brown {f}");
    }
    let mut s = d.state.clone();
    let (from, to) = (field("italia", 3, 16), field("italia", 3, 17));
    assert!(map("italia").blocked(from, to), "the black line");
    let step = Step::Units;
    let mv = Move { from, to, unit: UnitKind::LightInfantry, count: 1 };
    s.fields[from as usize].units.push(crate::setup::unit(illyrians, UnitKind::LightInfantry));
    s.fields[from as usize].units.push(crate::setup::unit(celts, UnitKind::LightInfantry));
    assert!(crate::moves::check(&s, illyrians, &mv, step, false).is_ok());
    let e = crate::moves::check(&s, celts, &mv, step, false).expect_err("the Celts may not");
    assert!(e.contains("black line"), "{e}");
}

/// Line 6, "Carthaginians: Cannot recruit LI units. Mercenaries even for:
/// -10 PP A -1", with line 273, "start bonus: even for -1 A -10 PP".
#[test]
fn carthaginians_cannot_recruit_li_and_buy_mercenaries_for_one_gold_and_ten_pp() {
    let mut d = Driver::new(&options("italia", Mode::Fast, 1), 2, 1).expect("setup");
    let carthage = field("italia", 12, 2);
    d.state.realms[1].pp = 12;
    let gold = d.state.realms[1].gold;
    let buy =
        Orders { buy: vec![Purchase { field: carthage, unit: UnitKind::Mercenary, count: 1 }], ..Orders::default() };
    d.round(1, buy);
    assert_eq!(crate::control::kind_of(&d.state, carthage, 1, UnitKind::Mercenary), 1);
    assert_eq!((d.state.realms[1].gold, d.state.realms[1].pp), (gold - 1, 2));
    d.pass();
    assert_eq!(d.state.season, Season::Autumn);
    let li = crate::control::kind_of(&d.state, carthage, 1, UnitKind::LightInfantry);
    let ev = d.round(1, Orders { recruit: vec![carthage], ..Orders::default() });
    assert!(super::all(&ev).contains("Carthage: its faction cannot recruit Light Infantry"), "{}", super::all(&ev));
    assert_eq!(crate::control::kind_of(&d.state, carthage, 1, UnitKind::LightInfantry), li);
    assert!(!crate::control::has(&d.state, 0, Ability::NoLiRecruitment), "the Romans recruit");
}

/// Line 10, "Romans: 1 unit (not 2) builds a village for 4 rounds. 2 units
/// (not 4) build a city for 4 rounds."
#[test]
fn romans_build_a_village_with_one_unit_and_a_city_with_two() {
    use crate::construction::rate_of;
    assert_eq!(rate_of(Building::Village, 1, false), 0);
    assert_eq!(rate_of(Building::Village, 1, true), 3, "a quarter a round: 4 rounds");
    assert_eq!(rate_of(Building::City, 2, false), 0);
    assert_eq!(rate_of(Building::City, 2, true), 3);
    assert_eq!(rate_of(Building::Dock, 1, true), rate_of(Building::Dock, 1, false), "only villages and cities");
}

/// Line 65, "Almoravids: Can trade with horses even without a port."
#[test]
fn almoravids_trade_horses_without_a_port() {
    let d = Driver::new(&options("taifas", Mode::Fast, 1), 3, 1).expect("setup");
    let mut s = d.state.clone();
    let buy = |f| Trade::Buy { field: f, good: Good::Herd(Herd::Horses), count: 1 };
    let almoravid = field("taifas", 12, 2);
    let castilla = field("taifas", 3, 6);
    s.realms[2].gold = 10;
    s.realms[0].gold = 10;
    crate::trade::trade(&mut s, 2, &buy(almoravid)).expect("the Almoravids buy horses");
    assert!(s.fields[almoravid as usize].herds.contains(&(2, Herd::Horses)));
    let e = crate::trade::trade(&mut s, 0, &buy(castilla)).expect_err("Castilla has no port");
    assert!(e.contains("only be bought with a port"), "{e}");
}

/// Line 118, "Bospor: ... They start with fortification token at two
/// villages", line 117, "Romans: Every village on the Danubius starts with
/// a fortification", and line 25, "Celts (Britannia - choice): They start
/// with 2 herds of pigs and 1 herd of sheep."
#[test]
fn fortified_starts_and_the_celts_herds_come_from_the_factions_data() {
    let d = Driver::new(&options("huns", Mode::Fast, 1), 7, 1).expect("setup");
    let forts = |seat| {
        crate::control::settlements(&d.state, seat)
            .iter()
            .filter(|&&f| d.state.fields[f as usize].settlement.is_some_and(|x| x.fort))
            .count()
    };
    assert_eq!(forts(seat_of(&d.state, "bospor")), 2);
    let romans = seat_of(&d.state, "romans");
    assert_eq!(forts(romans), 2);
    for f in crate::control::settlements(&d.state, romans) {
        let on_danube = map("huns").fields[f as usize].river == Some(0);
        assert_eq!(d.state.fields[f as usize].settlement.map(|x| x.fort), Some(on_danube));
    }
    let d = Driver::new(&options("britannia", Mode::Fast, 1), 5, 1).expect("setup");
    let celts = seat_of(&d.state, "celts");
    let herds: Vec<Herd> = d.state.fields.iter().flat_map(|f| &f.herds).filter(|h| h.0 == celts).map(|h| h.1).collect();
    assert_eq!(herds, vec![Herd::Sheep, Herd::Pigs, Herd::Pigs]);
}

/// Line 140, "D6 roll for climate region 1, climate region 2 and for all
/// seas", with line 16, "climate subtropical and temperate": the winter is
/// rolled for the subtropical and the temperate region.
#[test]
fn the_winter_of_a_subtropical_scenario_is_rolled_for_its_two_climates() {
    assert_eq!(map("vikings").regions, [1, 2]);
    for id in ["italia", "taifas", "orient", "huns"] {
        assert_eq!(map(id).regions, [0, 1], "{id}");
    }
    assert_eq!(map("britannia").regions, [1, 2]);
    let mut d = Driver::new(&options("italia", Mode::Basic, 1), 2, 4).expect("setup");
    for _ in 0..3 {
        d.pass();
    }
    let ev = d.pass();
    let words = super::reports(&ev, Step::FestivalsWinterWeather);
    assert!(words.contains("winter weather: subtropical "), "{words}");
    assert!(words.contains(", temperate "), "{words}");
}

/// The new-game form offers the scenarios as a choice read from the
/// options' schema: it names exactly the scenarios of the crate's data,
/// and the options' help names each with its player counts; the written
/// schema (`events/realms/options.schema.json`) is the one the types give.
#[test]
fn the_new_game_form_offers_every_scenario_of_the_data() {
    let schemas = <Realms as runestone_engine::present::Present>::schemas();
    assert_eq!(schemas.options["properties"]["scenario"]["enum"], serde_json::json!(SCENARIOS));
    let written = [
        include_str!("../../../../events/realms/options.schema.json"),
        include_str!("../../../../events/realms/command.schema.json"),
        include_str!("../../../../events/realms/event.schema.json"),
        include_str!("../../../../events/realms/view.schema.json"),
    ];
    for ((name, schema), written) in schemas.named().into_iter().zip(written) {
        let generated = serde_json::to_string_pretty(schema).expect("JSON") + "\n";
        assert_eq!(written, generated, "events/realms/{name}.schema.json differs from what the types give");
    }
    let help = Realms::info().options_help;
    let words = &help.iter().find(|(n, _)| n == "scenario").expect("scenario help").1;
    for id in SCENARIOS {
        let m = map(id);
        let named = format!("\"{id}\" ({}, 2 to {} players)", m.name, m.max_players());
        assert!(words.contains(&named), "{words}");
    }
}
