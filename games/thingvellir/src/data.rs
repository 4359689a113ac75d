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

/// Everything designed, checked.
#[derive(Clone, Debug)]
pub struct Data {
    pub colours: Vec<String>,
    pub goods: Vec<String>,
    pub laws: Vec<Law>,
    pub cards: Vec<Card>,
    pub districts: Vec<String>,
    /// Each edge joins two districts (Thingmen stand on edges).
    pub edges: Vec<(usize, usize)>,
    pub sea: String,
    pub home_districts: Vec<usize>,
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
    /// Read and check the five files' texts.
    pub fn parse(laws: &str, orlog: &str, map: &str, hunt: &str, steads: &str) -> Result<Data, String> {
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
        let index: HashMap<&str, usize> = m.districts.iter().enumerate().map(|(i, d)| (d.as_str(), i)).collect();
        if index.len() != m.districts.len() {
            return Err("iceland.toml names a district twice".into());
        }
        let find =
            |d: &str| index.get(d).copied().ok_or_else(|| format!("iceland.toml: \"{d}\" is not one of its districts"));
        let mut edges = Vec::new();
        for [a, b] in &m.edges {
            let (a, b) = (find(a)?, find(b)?);
            if a == b {
                return Err(format!("iceland.toml: an edge joins {} to itself", m.districts[a]));
            }
            if edges.contains(&(a, b)) || edges.contains(&(b, a)) {
                return Err(format!("iceland.toml: the edge {} to {} is listed twice", m.districts[a], m.districts[b]));
            }
            edges.push((a, b));
        }
        let home_districts = m.home_steads.iter().map(|d| find(d)).collect::<Result<Vec<_>, _>>()?;
        if home_districts.len() != 6 {
            return Err(format!("iceland.toml lists {} home steads; six players need six", home_districts.len()));
        }
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
        Ok(Data {
            goods: o.colour.iter().map(|c| c.goods.clone()).collect(),
            colours,
            laws: out_laws,
            cards,
            districts: m.districts,
            edges,
            sea: m.sea,
            home_districts,
            home_steads,
            hunt: h.rows.iter().map(|r| (r.farms, r.strength)).collect(),
        })
    }

    /// Bondi strength for a number of farms (the leftmost column).
    pub fn strength(&self, farms: u8) -> u8 {
        self.hunt.iter().rev().find(|(f, _)| farms >= *f).map(|r| r.1).unwrap_or(0)
    }

    /// The edges touching a district.
    pub fn edges_of(&self, district: usize) -> impl Iterator<Item = usize> + '_ {
        self.edges.iter().enumerate().filter(move |(_, e)| e.0 == district || e.1 == district).map(|(i, _)| i)
    }

    /// Whether two edges share a district (a band may ride from one to the other).
    pub fn touching(&self, a: usize, b: usize) -> bool {
        let (x, y) = (self.edges[a], self.edges[b]);
        a != b && (x.0 == y.0 || x.0 == y.1 || x.1 == y.0 || x.1 == y.1)
    }

    /// Whether the goods of a colour are Weapons.
    pub fn is_weapon(&self, card: CardId) -> bool {
        self.goods[self.cards[card as usize].colour] == "Weapon"
    }
}

/// The components shipped in `data/`.
pub fn data() -> &'static Data {
    static D: LazyLock<Data> = LazyLock::new(|| {
        Data::parse(
            include_str!("../data/laws.toml"),
            include_str!("../data/orlog.toml"),
            include_str!("../data/iceland.toml"),
            include_str!("../data/sheep_hunt.toml"),
            include_str!("../data/home_steads.toml"),
        )
        .expect("the shipped data is valid")
    });
    &D
}
