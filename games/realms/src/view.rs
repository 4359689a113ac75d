//! What a viewer may see: the whole map and every realm's public standing;
//! orders only one's own (the referee sees all) until they are revealed at
//! the resolution of the round.

use serde::{Deserialize, Serialize};

use runestone_engine::{Seat, Viewer};

use crate::state::{Construction, Event, Herd, Mode, Orders, Season, Settlement, Shipyard, State, UnitKind, Weather};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UnitView {
    pub owner: Seat,
    pub kind: UnitKind,
    pub xp: u8,
    pub recruit: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FieldView {
    pub id: u16,
    pub name: String,
    pub row: u8,
    pub col: u8,
    pub sea: bool,
    pub stormy: bool,
    /// The LGF colour (yellow, green, brown, turquoise, grey); none at sea.
    pub colour: Option<String>,
    /// subtropical, temperate or cold.
    pub climate: String,
    pub river: Option<String>,
    /// The starting region whose village stood here at setup, if any.
    pub home: Option<String>,
    pub in_play: bool,
    pub settlement: Option<Settlement>,
    pub shipyard: Option<Shipyard>,
    pub construction: Option<Construction>,
    pub grain: u8,
    pub fish: u8,
    pub sown: Option<(Seat, u8)>,
    pub crop: u8,
    pub herds: Vec<(Seat, Herd)>,
    pub looted: bool,
    pub units: Vec<UnitView>,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RealmView {
    pub seat: Seat,
    pub home: String,
    pub faction: String,
    pub gold: u8,
    pub pp: i32,
    pub vp: i32,
    pub command: u8,
    /// Meat from slaughter, kept until the feeding.
    pub meat: u8,
    pub out: bool,
    /// Orders given this round (they may still be replaced).
    pub submitted: bool,
    /// The orders themselves: only to their realm and the referee.
    pub orders: Option<Orders>,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct View {
    pub scenario: String,
    pub map: String,
    pub mode: Mode,
    pub year: u8,
    pub years: u8,
    pub season: Season,
    pub rows: u8,
    pub cols: u8,
    /// The black line in the mountains: pairs of neighbouring fields land units may not cross.
    pub black_line: Vec<(u16, u16)>,
    pub winter: [Weather; 3],
    pub fields: Vec<FieldView>,
    pub realms: Vec<RealmView>,
    pub over: Option<String>,
}

pub fn view(s: &State, viewer: Viewer) -> View {
    if s.fields.is_empty() {
        return View {
            scenario: s.scenario.clone(),
            map: String::new(),
            mode: s.mode,
            year: 0,
            years: s.years,
            season: s.season,
            rows: 0,
            cols: 0,
            black_line: Vec::new(),
            winter: s.winter,
            fields: Vec::new(),
            realms: Vec::new(),
            over: s.over.clone(),
        };
    }
    let map = s.map();
    let climates = ["subtropical", "temperate", "cold"];
    let fields = s
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let info = &map.fields[i];
            FieldView {
                id: i as u16,
                name: map.name_of(i as u16),
                row: info.row,
                col: info.col,
                sea: info.is_sea(),
                stormy: info.stormy,
                colour: info.colour.map(|c| c.name().to_string()),
                climate: climates[info.climate].to_string(),
                river: info.river.map(|r| map.rivers[r].clone()),
                home: map.homes.iter().find(|h| h.villages.contains(&(i as u16))).map(|h| h.name.clone()),
                in_play: map.in_play(i as u16, s.players),
                settlement: f.settlement,
                shipyard: f.shipyard,
                construction: f.construction,
                grain: f.grain,
                fish: f.fish,
                sown: f.sown,
                crop: f.crop,
                herds: f.herds.clone(),
                looted: f.looted,
                units: f
                    .units
                    .iter()
                    .map(|u| UnitView { owner: u.owner, kind: u.kind, xp: u.xp, recruit: u.recruit })
                    .collect(),
            }
        })
        .collect();
    let realms = s
        .realms
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let own = matches!(viewer, Viewer::Referee) || viewer == Viewer::Seat(i as Seat);
            RealmView {
                seat: i as Seat,
                home: r.home.clone(),
                faction: s.map().faction(&r.faction).name.clone(),
                gold: r.gold,
                pp: r.pp,
                vp: r.vp,
                command: r.command,
                meat: r.meat,
                out: r.out,
                submitted: r.orders.is_some(),
                orders: if own { r.orders.clone() } else { None },
            }
        })
        .collect();
    View {
        scenario: s.scenario.clone(),
        map: map.name.clone(),
        mode: s.mode,
        year: s.year,
        years: s.years,
        season: s.season,
        rows: map.rows,
        cols: map.cols,
        black_line: map.black_line.clone(),
        winter: s.winter,
        fields,
        realms,
        over: s.over.clone(),
    }
}

pub fn describe(s: &State, e: &Event, names: &[String]) -> String {
    let who = |seat: Seat| names.get(seat as usize).cloned().unwrap_or_else(|| format!("seat {seat}"));
    match e {
        Event::Started { mode, years, players, .. } => {
            format!("a game of Realms for {players} players begins ({mode:?} mode, {years} years)")
        }
        Event::OrdersGiven { seat, .. } => format!("{} gave orders for {}", who(*seat), s.season.name()),
        Event::OrdersRevealed { seat, .. } => format!("the orders of {} are revealed", who(*seat)),
        Event::Resolved { step, report, .. } => {
            if report.is_empty() {
                step.name().to_string()
            } else {
                format!("{}: {}", step.name(), report.join("; "))
            }
        }
        Event::RoundEnded { year, season } => format!("{} of year {year} begins", season.name()),
        Event::GameEnded { reason } => format!("the game ends: {reason}"),
    }
}
