//! Game setup ("Game setup", "Player board - setup", "Playing time"): the
//! colours by player count, home areas, 1 gold and 1 random rune each, 6 disks
//! on each building (22 beside the board), the units at home and the Knerrir
//! on the player board's harbour, the upgrade market (three 1st level and two
//! 2nd level tiles face up per building; two and one with 2 or 3 players), a
//! random starting player and the number of rounds.

use super::board::{BoardRef, Colour};
use super::build::{display, TileKey, TileSet};
use super::state::{Building, Event};
use super::{planning, Ctx, Options, State};
use runestone_engine::game::{Emit, RuleError};
use runestone_engine::reject;
use runestone_engine::rng::GameRng;
use std::sync::LazyLock;

/// The rounds table of `data/rounds.toml`: rounds by player count.
static ROUNDS: LazyLock<Vec<(u8, u8)>> =
    LazyLock::new(|| parse_rounds(include_str!("../data/rounds.toml")).expect("rounds.toml is valid"));

/// Parse and check a rounds table: one `[[players]]` per player count from
/// 2 to 5, each with `players` and `rounds` (1 to 20). A fault is named with
/// its line.
pub fn parse_rounds(text: &str) -> Result<Vec<(u8, u8)>, String> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Row {
        players: i64,
        rounds: i64,
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        #[serde(rename = "players")]
        rows: Vec<toml::Spanned<Row>>,
    }
    let line = |at: usize| text[..at.min(text.len())].matches('\n').count() + 1;
    let f: File = toml::from_str(text).map_err(|e| match e.span() {
        Some(sp) => {
            format!("rounds, line {}: not a [[players]] table of players and rounds ({})", line(sp.start), e.message())
        }
        None => "rounds: the file is not valid TOML".into(),
    })?;
    let mut out: Vec<(u8, u8)> = Vec::new();
    for r in &f.rows {
        let at = line(r.span().start);
        let Row { players, rounds } = r.get_ref();
        if !(2..=5).contains(players) {
            return Err(format!("rounds, the [[players]] at line {at}: players is 2 to 5, not {players}"));
        }
        if !(1..=20).contains(rounds) {
            return Err(format!("rounds, the [[players]] at line {at}: rounds is 1 to 20, not {rounds}"));
        }
        if out.iter().any(|(p, _)| *p as i64 == *players) {
            return Err(format!("rounds, the [[players]] at line {at}: {players} players are listed twice"));
        }
        out.push((*players as u8, *rounds as u8));
    }
    if let Some(p) = (2..=5u8).find(|p| !out.iter().any(|(x, _)| x == p)) {
        return Err(format!("rounds: the table has no row for {p} players"));
    }
    Ok(out)
}

/// Rounds by player count, from `data/rounds.toml`.
pub fn rounds_for(players: u8) -> u8 {
    let p = players.clamp(2, 5);
    ROUNDS.iter().find(|(x, _)| *x == p).map(|(_, r)| *r).unwrap_or(7)
}

/// Check the colours the clans chose, one per seat in seat order.
fn chosen_colours(chosen: &[Colour], seats: u8) -> Result<Vec<Colour>, RuleError> {
    if chosen.len() != seats as usize {
        reject!("colours names {} clans; the game has {seats} seats, one colour each", chosen.len());
    }
    let available = Colour::available(seats);
    for (i, c) in chosen.iter().enumerate() {
        if !available.contains(c) {
            let names: Vec<&str> = available.iter().map(|c| c.name()).collect();
            reject!("{} is not played by {seats} players; choose among {}", c.name(), names.join(", "));
        }
        if chosen[..i].contains(c) {
            reject!("{} is chosen by two seats; each clan has its own colour", c.name());
        }
    }
    Ok(chosen.to_vec())
}

/// The opening events.
pub fn setup(o: &Options, seats: u8, rules_version: u32, rng: &mut GameRng) -> Result<Vec<Emit<Event>>, RuleError> {
    let board = match BoardRef::for_version(&o.board, o.custom_board.as_deref(), rules_version) {
        Ok(b) => b,
        Err(e) => reject!("{e}"),
    };
    if seats < board.data.min_players || seats > board.data.max_players {
        reject!(
            "the {} board is for {} to {} players, not {seats}",
            board.data.name,
            board.data.min_players,
            board.data.max_players
        );
    }
    // The board's setup table: where the homes are for this many clans.
    let board = BoardRef(board.0.for_players(seats));
    if !(1..=super::RULES_VERSION).contains(&rules_version) {
        reject!("rules version {rules_version} is unknown; games are played by versions 1 to {}", super::RULES_VERSION);
    }
    if !o.rules.is_2014() && rules_version < super::rules2018::MIN_VERSION {
        reject!(
            "the 2018 rules are played by rules version {} or later, not {rules_version}",
            super::rules2018::MIN_VERSION
        );
    }
    let runes = match &o.custom_runes {
        None => None,
        Some(text) => match super::actions::godi::parse_runes(text) {
            Ok(specs) => Some(super::actions::godi::pile_of(&specs)),
            Err(e) => reject!("{e}"),
        },
    };
    let tiles = match &o.custom_upgrades {
        None => TileSet::default(),
        Some(text) => match TileSet::custom(text) {
            Ok(t) => t,
            Err(e) => reject!("{e}"),
        },
    };
    let rounds = o.rounds.unwrap_or_else(|| rounds_for(seats));
    if !(1..=20).contains(&rounds) {
        reject!("rounds must be 1 to 20, not {rounds}");
    }
    for c in Colour::available(seats) {
        if board.home_of(*c).is_none() {
            reject!("the board has no {} home area, needed for {seats} players", c.name());
        }
    }
    let colours = match &o.colours {
        // "Alternatively, choose your own clan."
        Some(chosen) => chosen_colours(chosen, seats)?,
        None => {
            // "Shake one disk of each available colour in your hand and drop
            // one in front of each player."
            let mut colours: Vec<Colour> = Colour::available(seats).to_vec();
            rng.shuffle(&mut colours);
            colours.truncate(seats as usize);
            colours
        }
    };
    let starting = rng.pick(seats as usize) as u8;
    let mut market = Vec::new();
    for b in Building::ALL {
        for level in [1u8, 2] {
            let mut ids: Vec<u8> = (0..tiles.len() as u8)
                .filter(|&t| tiles[t as usize].building == b && tiles[t as usize].level == level)
                .collect();
            rng.shuffle(&mut ids);
            market.extend(ids.into_iter().take(display(seats as usize, level)).map(|t| {
                // Named by stable id from rules version 3, by index before.
                if rules_version >= 3 {
                    TileKey::Id(tiles[t as usize].id.clone())
                } else {
                    TileKey::Index(t)
                }
            }));
        }
    }
    let mut cx = Ctx::new(State::default(), rng);
    cx.emit(Event::GameStarted {
        board,
        colours,
        rounds,
        starting,
        easy_cards: o.easy_cards,
        eight_cards: o.eight_cards,
        forced_trade: o.forced_trade,
        market,
        rules: rules_version,
        runes,
        upgrades: tiles,
        edition: o.rules,
    });
    for seat in 0..seats {
        cx.draw_runes(seat, 1);
    }
    planning::begin_round(&mut cx, 1);
    Ok(cx.out)
}
