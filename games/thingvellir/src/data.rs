//! The designed components the rulebook names but does not give (Components;
//! Setup; The Second Round and Beyond; Hunting for Sheep): the four Laws and
//! their statutes, the orlog, the map of Iceland, The Sheep Hunt track and the
//! Home Stead cards. Each is a TOML file under `data/`, validated with a
//! message naming the fault, so a group owning the real components can swap
//! them in.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

/// The six actions a statute or a Bondi may call for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Settle,
    Ride,
    Raid,
    Foster,
    Pledge,
    Feast,
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Settle => "Settle",
            Action::Ride => "Ride",
            Action::Raid => "Raid",
            Action::Foster => "Foster",
            Action::Pledge => "Pledge",
            Action::Feast => "Feast",
        }
    }
}

/// A colour, as an index into [`Data::colours`] (four of them).
pub type Colour = usize;
/// A card, as an index into [`Data::cards`].
pub type CardId = u16;

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Statute {
    pub action: Action,
    pub bonus: u8,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Law {
    pub name: String,
    pub colour: Colour,
    pub statutes: Vec<Statute>,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Card {
    pub colour: Colour,
    pub worth: u8,
    pub action: Action,
    pub persona: Option<String>,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct HomeStead {
    pub name: String,
    pub colours: Vec<Colour>,
}

/// A Home Stead card's place on a map with Thingvellir (rules version 4).
#[derive(Clone, Debug)]
pub struct Home {
    /// The card, as an index into [`Data::home_steads`].
    pub stead: usize,
    /// The farm's latitude and longitude.
    pub farm: (f64, f64),
    /// The District the farm stands in.
    pub district: usize,
    /// The side of Thingvellir facing it (an edge), where the gothi's first
    /// Thingman stands.
    pub side: usize,
}

/// A map: its Districts, the edges between them (Thingmen stand on edges)
/// and the sea.
#[derive(Clone, Debug)]
pub struct Map {
    pub districts: Vec<String>,
    /// Each edge joins two districts.
    pub edges: Vec<(usize, usize)>,
    pub sea: String,
    /// By rules versions 1 to 3: each seat's home District, settled at setup.
    pub home_districts: Vec<usize>,
    /// By rules version 4: Thingvellir, a District on which no Stead token stands.
    pub thingvellir: Option<usize>,
    /// By rules version 4: the Home Stead cards in the order they come into play.
    pub homes: Vec<Home>,
    /// By rules version 4: each District's latitude and longitude.
    pub at: Vec<(f64, f64)>,
}

impl Map {
    /// The edges touching a district.
    pub fn edges_of(&self, district: usize) -> impl Iterator<Item = usize> + '_ {
        self.edges.iter().enumerate().filter(move |(_, e)| e.0 == district || e.1 == district).map(|(i, _)| i)
    }

    /// Whether two edges share a district (a band may ride from one to the other).
    pub fn touching(&self, a: usize, b: usize) -> bool {
        let (x, y) = (self.edges[a], self.edges[b]);
        a != b && (x.0 == y.0 || x.0 == y.1 || x.1 == y.0 || x.1 == y.1)
    }

    /// Whether a Stead token may stand on a District (not on Thingvellir).
    pub fn settleable(&self, district: usize) -> bool {
        self.thingvellir != Some(district)
    }

    /// Whether an edge is a side of Thingvellir.
    pub fn is_side(&self, edge: usize) -> bool {
        self.thingvellir.is_some_and(|t| self.edges[edge].0 == t || self.edges[edge].1 == t)
    }
}

/// Everything designed, checked.
#[derive(Clone, Debug)]
pub struct Data {
    pub colours: Vec<String>,
    pub goods: Vec<String>,
    pub laws: Vec<Law>,
    pub cards: Vec<Card>,
    /// The map of rules versions 1 to 3 (`iceland.toml`).
    pub first_map: Map,
    /// The map of rules version 4 on (`iceland-v4.toml`).
    pub map: Map,
    pub home_steads: Vec<HomeStead>,
    /// (least farms, strength), ascending.
    pub hunt: Vec<(u8, u8)>,
}

#[derive(Deserialize)]
struct LawFile {
    law: Vec<LawRow>,
}
#[derive(Deserialize)]
struct LawRow {
    name: String,
    colour: String,
    statutes: Vec<StatuteRow>,
}
#[derive(Deserialize)]
struct StatuteRow {
    action: Action,
    bonus: u8,
}
#[derive(Deserialize)]
struct OrlogFile {
    colour: Vec<ColourRow>,
    group: Vec<GroupRow>,
}
#[derive(Deserialize)]
struct ColourRow {
    name: String,
    goods: String,
}
#[derive(Deserialize)]
struct GroupRow {
    colour: String,
    worth: u8,
    action: Action,
    count: u8,
    persona: Option<String>,
}
#[derive(Deserialize)]
struct MapFile {
    sea: String,
    districts: Vec<String>,
    edges: Vec<[String; 2]>,
    home_steads: Vec<String>,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MapFileV4 {
    sea: String,
    thingvellir: String,
    edges: Vec<[String; 2]>,
    district: Vec<DistrictRow>,
    home: Vec<HomeRow>,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DistrictRow {
    name: String,
    at: [f64; 2],
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HomeRow {
    stead: String,
    farm: [f64; 2],
    district: String,
    side: String,
}
#[derive(Deserialize)]
struct HuntFile {
    rows: Vec<HuntRow>,
}
#[derive(Deserialize)]
struct HuntRow {
    farms: u8,
    strength: u8,
}
#[derive(Deserialize)]
struct SteadFile {
    stead: Vec<SteadRow>,
}
#[derive(Deserialize)]
struct SteadRow {
    name: String,
    colours: Vec<String>,
}

fn parse<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> Result<T, String> {
    toml::from_str(text).map_err(|e| format!("{file} is not valid: {}", e.message()))
}

impl Data {
    /// Read and check the six files' texts.
    pub fn parse(laws: &str, orlog: &str, map: &str, map_v4: &str, hunt: &str, steads: &str) -> Result<Data, String> {
        let o: OrlogFile = parse("orlog.toml", orlog)?;
        if o.colour.len() != 4 {
            return Err(format!("orlog.toml names {} colours; the game has four", o.colour.len()));
        }
        let colours: Vec<String> = o.colour.iter().map(|c| c.name.clone()).collect();
        let colour_of = |file: &str, name: &str| -> Result<Colour, String> {
            colours
                .iter()
                .position(|c| c == name)
                .ok_or_else(|| format!("{file} names the colour \"{name}\", which orlog.toml does not list"))
        };
        let mut cards = Vec::new();
        for g in &o.group {
            let colour = colour_of("orlog.toml", &g.colour)?;
            if !(1..=3).contains(&g.worth) {
                return Err(format!("orlog.toml: a {} card has Worth {}; worths run from 1 to 3", g.colour, g.worth));
            }
            for _ in 0..g.count {
                cards.push(Card { colour, worth: g.worth, action: g.action, persona: g.persona.clone() });
            }
        }
        if cards.len() != 108 {
            return Err(format!("orlog.toml makes {} cards; the orlog has 108", cards.len()));
        }
        let l: LawFile = parse("laws.toml", laws)?;
        if l.law.len() != 4 {
            return Err(format!("laws.toml names {} Laws; there are four", l.law.len()));
        }
        let mut out_laws = Vec::new();
        for law in l.law {
            if law.statutes.len() < 2 {
                return Err(format!("laws.toml: the {} has fewer than two statutes", law.name));
            }
            let colour = colour_of("laws.toml", &law.colour)?;
            let statutes = law.statutes.into_iter().map(|s| Statute { action: s.action, bonus: s.bonus }).collect();
            out_laws.push(Law { name: law.name, colour, statutes });
        }
        for (c, name) in colours.iter().enumerate() {
            if !out_laws.iter().any(|l| l.colour == c) {
                return Err(format!("laws.toml gives no Law the colour {name}"));
            }
        }
        let m: MapFile = parse("iceland.toml", map)?;
        let (districts, edges) = districts_and_edges("iceland.toml", m.districts, &m.edges)?;
        let home_districts = m
            .home_steads
            .iter()
            .map(|h| find_district("iceland.toml", &districts, h))
            .collect::<Result<Vec<_>, _>>()?;
        if home_districts.len() != 6 {
            return Err(format!("iceland.toml lists {} home steads; six players need six", home_districts.len()));
        }
        let first_map =
            Map { districts, edges, sea: m.sea, home_districts, thingvellir: None, homes: vec![], at: vec![] };
        let h: HuntFile = parse("sheep_hunt.toml", hunt)?;
        if h.rows.first().map(|r| r.farms) != Some(0) || h.rows.windows(2).any(|w| w[1].farms <= w[0].farms) {
            return Err("sheep_hunt.toml: rows must start at 0 farms and rise".into());
        }
        let s: SteadFile = parse("home_steads.toml", steads)?;
        if s.stead.len() != 6 {
            return Err(format!("home_steads.toml has {} cards; there are six", s.stead.len()));
        }
        let mut home_steads = Vec::new();
        for st in s.stead {
            let cs = st.colours.iter().map(|c| colour_of("home_steads.toml", c)).collect::<Result<Vec<_>, _>>()?;
            home_steads.push(HomeStead { name: st.name, colours: cs });
        }
        let map = parse_map_v4(map_v4, &home_steads)?;
        Ok(Data {
            goods: o.colour.iter().map(|c| c.goods.clone()).collect(),
            colours,
            laws: out_laws,
            cards,
            first_map,
            map,
            home_steads,
            hunt: h.rows.iter().map(|r| (r.farms, r.strength)).collect(),
        })
    }

    /// Bondi strength for a number of farms (the leftmost column).
    pub fn strength(&self, farms: u8) -> u8 {
        self.hunt.iter().rev().find(|(f, _)| farms >= *f).map(|r| r.1).unwrap_or(0)
    }

    /// The map a rules version plays on: by version 4 the map with
    /// Thingvellir on it, before it the first map.
    pub fn map_of(&self, version: u32) -> &Map {
        if version >= 4 {
            &self.map
        } else {
            &self.first_map
        }
    }

    /// Whether the goods of a colour are Weapons.
    pub fn is_weapon(&self, card: CardId) -> bool {
        self.goods[self.cards[card as usize].colour] == "Weapon"
    }
}

fn find_district(file: &str, districts: &[String], name: &str) -> Result<usize, String> {
    districts.iter().position(|d| d == name).ok_or_else(|| format!("{file}: \"{name}\" is not one of its districts"))
}

/// A map's districts and the edges between them.
type Graph = (Vec<String>, Vec<(usize, usize)>);

/// The districts, checked for doubles, and the edges between them.
fn districts_and_edges(file: &str, districts: Vec<String>, rows: &[[String; 2]]) -> Result<Graph, String> {
    let index: HashMap<&str, usize> = districts.iter().enumerate().map(|(i, d)| (d.as_str(), i)).collect();
    if index.len() != districts.len() {
        return Err(format!("{file} names a district twice"));
    }
    let mut edges = Vec::new();
    for [a, b] in rows {
        let (a, b) = (find_district(file, &districts, a)?, find_district(file, &districts, b)?);
        if a == b {
            return Err(format!("{file}: an edge joins {} to itself", districts[a]));
        }
        if edges.contains(&(a, b)) || edges.contains(&(b, a)) {
            return Err(format!("{file}: the edge {} to {} is listed twice", districts[a], districts[b]));
        }
        edges.push((a, b));
    }
    Ok((districts, edges))
}

/// The map of rules version 4: Thingvellir with its sides, each District at
/// its place in Iceland, every District reachable, and each Home Stead card
/// with its District and a side of Thingvellir of its own.
fn parse_map_v4(text: &str, steads: &[HomeStead]) -> Result<Map, String> {
    const FILE: &str = "iceland-v4.toml";
    let m: MapFileV4 = parse(FILE, text)?;
    let inside = |p: [f64; 2]| (63.0..=67.0).contains(&p[0]) && (-25.0..=-13.0).contains(&p[1]);
    if let Some(d) = m.district.iter().find(|d| !inside(d.at)) {
        return Err(format!("{FILE}: {} lies at {}, {}, outside Iceland", d.name, d.at[0], d.at[1]));
    }
    let at: Vec<(f64, f64)> = m.district.iter().map(|d| (d.at[0], d.at[1])).collect();
    let names = m.district.into_iter().map(|d| d.name).collect();
    let (districts, edges) = districts_and_edges(FILE, names, &m.edges)?;
    let thingvellir = find_district(FILE, &districts, &m.thingvellir)?;
    let mut map =
        Map { districts, edges, sea: m.sea, home_districts: vec![], thingvellir: Some(thingvellir), homes: vec![], at };
    // Every District can be reached from Thingvellir.
    let mut seen = vec![false; map.districts.len()];
    let mut todo = vec![thingvellir];
    seen[thingvellir] = true;
    while let Some(x) = todo.pop() {
        for &(a, b) in &map.edges {
            for (p, q) in [(a, b), (b, a)] {
                if p == x && !seen[q] {
                    seen[q] = true;
                    todo.push(q);
                }
            }
        }
    }
    if let Some(x) = seen.iter().position(|s| !s) {
        return Err(format!("{FILE}: {} cannot be reached from Thingvellir", map.districts[x]));
    }
    if m.home.len() != steads.len() {
        return Err(format!("{FILE} places {} Home Stead cards; there are {}", m.home.len(), steads.len()));
    }
    for h in m.home {
        let stead = steads
            .iter()
            .position(|s| s.name == h.stead)
            .ok_or_else(|| format!("{FILE}: \"{}\" is not a Home Stead card of home_steads.toml", h.stead))?;
        if !inside(h.farm) {
            return Err(format!("{FILE}: the farm of {} lies outside Iceland", h.stead));
        }
        let district = find_district(FILE, &map.districts, &h.district)?;
        let across = find_district(FILE, &map.districts, &h.side)?;
        let side = map
            .edges_of(thingvellir)
            .find(|e| map.edges[*e].0 == across || map.edges[*e].1 == across)
            .ok_or_else(|| format!("{FILE}: {} is not on a side of Thingvellir", h.side))?;
        if map.homes.iter().any(|o| o.stead == stead) {
            return Err(format!("{FILE} places {} twice", h.stead));
        }
        if map.homes.iter().any(|o| o.side == side) {
            return Err(format!("{FILE} gives the side towards {} to two Home Stead cards", h.side));
        }
        map.homes.push(Home { stead, farm: (h.farm[0], h.farm[1]), district, side });
    }
    Ok(map)
}

/// The components shipped in `data/`.
pub fn data() -> &'static Data {
    static D: LazyLock<Data> = LazyLock::new(|| {
        Data::parse(
            include_str!("../data/laws.toml"),
            include_str!("../data/orlog.toml"),
            include_str!("../data/iceland.toml"),
            include_str!("../data/iceland-v4.toml"),
            include_str!("../data/sheep_hunt.toml"),
            include_str!("../data/home_steads.toml"),
        )
        .expect("the shipped data is valid")
    });
    &D
}
