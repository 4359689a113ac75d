//! The board: areas as sets of hex cells, mountains, rivers and bridges,
//! harbours and the ocean squares between them ("The game board - areas &
//! tokens", "Harbours", "Knerrir"). The rulebook prints the board but does not
//! describe it in words, so boards are data (`data/maps/*.toml`) that a group owning
//! the printed board may replace; they are parsed and validated here, once.
//!
//! Cells use axial coordinates `[q, r]` of pointy-top hexagons. Two areas are
//! neighbours when a cell of one shares an edge with a cell of the other; a
//! river between them blocks the way unless a bridge joins the same pair.
//! Mountains are cells of no area, so nobody ever crosses them.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use serde::{Deserialize, Serialize};

/// An area's index on its board.
pub type AreaId = u8;

/// The five clan colours, in the order the rulebook's setup hands them out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    /// Red.
    Red,
    /// Yellow.
    Yellow,
    /// Blue.
    Blue,
    /// Green.
    Green,
    /// Black.
    Black,
}

impl Colour {
    /// All colours, in setup order.
    pub const ALL: [Colour; 5] = [Colour::Red, Colour::Yellow, Colour::Blue, Colour::Green, Colour::Black];

    /// The colour's name in words.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Red => "Red",
            Colour::Yellow => "Yellow",
            Colour::Blue => "Blue",
            Colour::Green => "Green",
            Colour::Black => "Black",
        }
    }

    /// The colours in play for `players` seats ("2 players - red & yellow,
    /// 3 - 4 players - all colours except black, 5 players - all colours").
    pub fn available(players: u8) -> &'static [Colour] {
        match players {
            0..=2 => &Colour::ALL[..2],
            3 | 4 => &Colour::ALL[..4],
            _ => &Colour::ALL[..],
        }
    }
}

/// What an area is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AreaKind {
    /// A clan's home town: closed to every other clan but its Kaupmadur.
    Home,
    /// Woodcutting area: timber.
    Forest,
    /// Wool or meat.
    Sheep,
    /// Hide or meat.
    Cattle,
    /// Stone.
    Quarry,
    /// One gold coin.
    GoldMine,
    /// Iron.
    IronMine,
    /// One recruit; Kaupmadur trades here.
    Village,
    /// Runes are bought here; never owned.
    Sacred,
    /// Barbarian camp: only Berserkur enters it until overtaken; gives axes.
    Camp,
}

impl AreaKind {
    /// The kind's name in words.
    pub fn name(self) -> &'static str {
        match self {
            AreaKind::Home => "Home",
            AreaKind::Forest => "Forest",
            AreaKind::Sheep => "Sheep",
            AreaKind::Cattle => "Cattle",
            AreaKind::Quarry => "Quarry",
            AreaKind::GoldMine => "Gold mine",
            AreaKind::IronMine => "Iron mine",
            AreaKind::Village => "Village",
            AreaKind::Sacred => "Sacred site",
            AreaKind::Camp => "Barbarian camp",
        }
    }

    /// Whether a clan can own an area of this kind with a disk.
    pub fn ownable(self) -> bool {
        !matches!(self, AreaKind::Home | AreaKind::Sacred)
    }
}

/// One area of the board.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Area {
    pub id: AreaId,
    pub name: String,
    pub kind: AreaKind,
    /// The clan colour of a home area.
    #[serde(default)]
    pub colour: Option<Colour>,
    /// Whether the area has a harbour (an anchor) where the Knerrir lands.
    #[serde(default)]
    pub harbour: bool,
    /// The hex cells the area covers.
    pub cells: Vec<[i32; 2]>,
}

/// An ocean square: one node of the sea routes.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ocean {
    pub id: u8,
    pub cell: [i32; 2],
}

/// A mountain: impassable cells, kept for drawing.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Mountain {
    pub cells: Vec<[i32; 2]>,
}

/// A board as its data file describes it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BoardData {
    pub name: String,
    pub min_players: u8,
    pub max_players: u8,
    /// Pairs of neighbouring areas with a river between them.
    #[serde(default)]
    pub rivers: Vec<[u8; 2]>,
    /// Pairs of river-separated areas joined by a wooden or land bridge.
    #[serde(default)]
    pub bridges: Vec<[u8; 2]>,
    /// Pairs of ocean squares joined by a sea route.
    #[serde(default)]
    pub sea_routes: Vec<[u8; 2]>,
    /// Pairs `[harbour area, ocean square]` joined by a sea route.
    #[serde(default)]
    pub harbour_routes: Vec<[u8; 2]>,
    #[serde(default, rename = "mountain")]
    pub mountains: Vec<Mountain>,
    #[serde(default, rename = "ocean")]
    pub oceans: Vec<Ocean>,
    #[serde(rename = "area")]
    pub areas: Vec<Area>,
    /// The setup table by player count: for a number of clans, the areas
    /// that differ from the list above when that many play (where each
    /// colour's home is, which homes stay closed, area kinds). A count the
    /// table does not list plays on the areas as listed.
    #[serde(default, rename = "setup", skip_serializing_if = "Vec::is_empty")]
    pub setups: Vec<Setup>,
}

/// One row of a board's setup table: the areas that differ when `players`
/// clans play.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub players: u8,
    pub areas: Vec<AreaChange>,
}

/// An area as it is for one player count: its kind, the colour of a home,
/// and its name (the board's name for it when not given). Cells and the
/// harbour stay the board's.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AreaChange {
    pub id: AreaId,
    #[serde(default)]
    pub name: Option<String>,
    pub kind: AreaKind,
    #[serde(default)]
    pub colour: Option<Colour>,
}

/// A place of the Knerrir: a sea node, either an ocean square or a harbour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeaNode {
    /// An ocean square.
    Ocean(u8),
    /// The harbour of an area.
    Harbour(AreaId),
}

/// A validated board with its adjacency worked out.
#[derive(Debug)]
pub struct Board {
    pub data: BoardData,
    /// Passable land neighbours of each area (rivers without bridges removed).
    pub land: Vec<Vec<AreaId>>,
    /// Sea neighbours of each ocean square (indices `0..oceans`) and of each
    /// harbour (index `oceans + area`).
    pub sea: Vec<Vec<SeaNode>>,
    /// The custom data text this board was built from, if not built in.
    pub source: Option<String>,
    /// How events name a built-in board ("summer", "summer-v4", ...).
    pub builtin: Option<&'static str>,
    /// The player count whose row of the setup table this board applies
    /// (none: the board as its data lists it).
    pub setup_row: Option<u8>,
    /// The board set up for each player count of the setup table, built
    /// and validated with the board.
    variants: Vec<(u8, Arc<Board>)>,
    /// `data` as JSON, made once: every view holds it.
    json: OnceLock<serde_json::Value>,
    /// `data` as JSON text, made once: every view written as text holds it.
    text: OnceLock<String>,
}

const DIRS: [[i32; 2]; 6] = [[1, 0], [0, 1], [-1, 1], [-1, 0], [0, -1], [1, -1]];

impl Board {
    /// Parse and validate a board from TOML text.
    pub fn parse(text: &str) -> Result<Board, String> {
        let data: BoardData = toml::from_str(text).map_err(|e| format!("the board is not valid TOML: {e}"))?;
        Board::build(data)
    }

    /// Validate board data and work out its adjacency, and the board for
    /// each player count of its setup table.
    pub fn build(mut data: BoardData) -> Result<Board, String> {
        let setups = std::mem::take(&mut data.setups);
        let mut board = Board::build_one(data.clone())?;
        let mut seen: Vec<u8> = Vec::new();
        for (k, row) in setups.iter().enumerate() {
            let at = format!("setup {} ({} players)", k + 1, row.players);
            if row.players < data.min_players || row.players > data.max_players {
                return Err(format!(
                    "{at}: the board is for {} to {} players, not {}",
                    data.min_players, data.max_players, row.players
                ));
            }
            if seen.contains(&row.players) {
                return Err(format!("{at}: {} players already have a setup", row.players));
            }
            seen.push(row.players);
            if row.areas.is_empty() {
                return Err(format!("{at}: it changes no area"));
            }
            let mut v = data.clone();
            let mut changed: Vec<AreaId> = Vec::new();
            for c in &row.areas {
                let Some(a) = v.areas.get_mut(c.id as usize) else {
                    return Err(format!(
                        "{at}: area {} does not exist (the board has {} areas)",
                        c.id,
                        data.areas.len()
                    ));
                };
                if changed.contains(&c.id) {
                    return Err(format!("{at}: area {} '{}' is listed twice", c.id, data.areas[c.id as usize].name));
                }
                changed.push(c.id);
                a.kind = c.kind;
                a.colour = c.colour;
                if let Some(name) = &c.name {
                    a.name = name.clone();
                }
            }
            let mut b = Board::build_one(v).map_err(|e| format!("{at}: {e}"))?;
            b.setup_row = Some(row.players);
            board.variants.push((row.players, Arc::new(b)));
        }
        board.data.setups = setups;
        Ok(board)
    }

    /// The row of the setup table for `players` clans, if it has one.
    pub fn setup_for(&self, players: u8) -> Option<&Setup> {
        self.data.setups.iter().find(|r| r.players == players)
    }

    /// The board for `players` clans: its setup table's row for that count
    /// applied, or the board itself when the table has none.
    pub fn for_players(self: &Arc<Board>, players: u8) -> Arc<Board> {
        match self.variants.iter().find(|(p, _)| *p == players) {
            Some((_, b)) => b.clone(),
            None => self.clone(),
        }
    }

    /// Name this board (and its boards by player count) as events do.
    fn named(mut self, builtin: Option<&'static str>, source: Option<&str>) -> Board {
        self.builtin = builtin;
        self.source = source.map(str::to_owned);
        for (_, v) in &mut self.variants {
            if let Some(v) = Arc::get_mut(v) {
                v.builtin = builtin;
                v.source = source.map(str::to_owned);
            }
        }
        self
    }

    /// A board of `data` with its adjacency, not yet named or set up.
    fn from_parts(data: BoardData, land: Vec<Vec<AreaId>>, sea: Vec<Vec<SeaNode>>) -> Board {
        Board {
            data,
            land,
            sea,
            source: None,
            builtin: None,
            setup_row: None,
            variants: Vec::new(),
            json: OnceLock::new(),
            text: OnceLock::new(),
        }
    }

    /// Validate one board's data (no setup table) and work out its adjacency.
    fn build_one(data: BoardData) -> Result<Board, String> {
        let n = data.areas.len();
        if n == 0 {
            return Err("the board has no areas".into());
        }
        if n > 250 {
            return Err(format!("the board has {n} areas; at most 250 are supported"));
        }
        if data.oceans.len() > 250 {
            return Err("the board has more than 250 ocean squares".into());
        }
        if !(2..=5).contains(&data.min_players) || data.max_players < data.min_players || data.max_players > 5 {
            return Err(format!(
                "players must be within 2 to 5 with min <= max, not {} to {}",
                data.min_players, data.max_players
            ));
        }
        let mut owner: HashMap<[i32; 2], usize> = HashMap::new();
        for (i, a) in data.areas.iter().enumerate() {
            if a.id as usize != i {
                return Err(format!(
                    "area {} '{}' is listed in position {i}; ids must be 0, 1, 2, ... in order",
                    a.id, a.name
                ));
            }
            if a.cells.is_empty() {
                return Err(format!("area {} '{}' has no cells", a.id, a.name));
            }
            if a.name.trim().is_empty() {
                return Err(format!("area {} has no name", a.id));
            }
            match (a.kind, a.colour) {
                (AreaKind::Home, None) => {
                    return Err(format!("area {} '{}' is a home area without a colour", a.id, a.name))
                }
                (k, Some(_)) if k != AreaKind::Home => {
                    return Err(format!("area {} '{}' has a colour but is not a home area", a.id, a.name))
                }
                _ => {}
            }
            for c in &a.cells {
                if let Some(&other) = owner.get(c) {
                    return Err(format!(
                        "cell [{}, {}] belongs to both area {other} '{}' and area {} '{}'",
                        c[0], c[1], data.areas[other].name, a.id, a.name
                    ));
                }
                owner.insert(*c, i);
            }
        }
        for m in &data.mountains {
            for c in &m.cells {
                if let Some(&other) = owner.get(c) {
                    return Err(format!(
                        "mountain cell [{}, {}] lies in area {other} '{}'",
                        c[0], c[1], data.areas[other].name
                    ));
                }
            }
        }
        for (i, o) in data.oceans.iter().enumerate() {
            if o.id as usize != i {
                return Err(format!(
                    "ocean square {} is listed in position {i}; ids must be 0, 1, 2, ... in order",
                    o.id
                ));
            }
            if let Some(&other) = owner.get(&o.cell) {
                return Err(format!("ocean square {} lies in area {other} '{}'", o.id, data.areas[other].name));
            }
        }
        for colour in Colour::available(data.max_players) {
            let homes = data.areas.iter().filter(|a| a.colour == Some(*colour)).count();
            if homes != 1 {
                return Err(format!(
                    "a board for up to {} players needs exactly one {} home area, found {homes}",
                    data.max_players,
                    colour.name()
                ));
            }
        }
        // Neighbours by shared cell edges.
        let mut touch: Vec<HashSet<usize>> = vec![HashSet::new(); n];
        for (i, a) in data.areas.iter().enumerate() {
            for c in &a.cells {
                for d in DIRS {
                    if let Some(&j) = owner.get(&[c[0] + d[0], c[1] + d[1]]) {
                        if j != i {
                            touch[i].insert(j);
                        }
                    }
                }
            }
        }
        let pair_ok = |p: &[u8; 2], what: &str, k: usize| -> Result<(usize, usize), String> {
            let (a, b) = (p[0] as usize, p[1] as usize);
            if a >= n || b >= n {
                return Err(format!("{what} {k} names an area that does not exist ({} or {})", p[0], p[1]));
            }
            if !touch[a].contains(&b) {
                return Err(format!(
                    "{what} {k} joins areas that are not neighbours ({a} '{}' and {b} '{}')",
                    data.areas[a].name, data.areas[b].name
                ));
            }
            Ok((a.min(b), a.max(b)))
        };
        let mut rivers = HashSet::new();
        for (k, r) in data.rivers.iter().enumerate() {
            rivers.insert(pair_ok(r, "river", k)?);
        }
        let mut bridges = HashSet::new();
        for (k, b) in data.bridges.iter().enumerate() {
            let p = pair_ok(b, "bridge", k)?;
            if !rivers.contains(&p) {
                return Err(format!("bridge {k} joins areas {} and {} that no river separates", p.0, p.1));
            }
            bridges.insert(p);
        }
        let mut land: Vec<Vec<AreaId>> = vec![Vec::new(); n];
        for (i, t) in touch.iter().enumerate() {
            let mut v: Vec<usize> = t.iter().copied().collect();
            v.sort_unstable();
            for j in v {
                let p = (i.min(j), i.max(j));
                if !rivers.contains(&p) || bridges.contains(&p) {
                    land[i].push(j as AreaId);
                }
            }
        }
        let o = data.oceans.len();
        let mut sea: Vec<Vec<SeaNode>> = vec![Vec::new(); o + n];
        for (k, r) in data.sea_routes.iter().enumerate() {
            let (a, b) = (r[0] as usize, r[1] as usize);
            if a >= o || b >= o || a == b {
                return Err(format!(
                    "sea route {k} joins ocean squares {a} and {b}, which is not a route between two squares"
                ));
            }
            sea[a].push(SeaNode::Ocean(b as u8));
            sea[b].push(SeaNode::Ocean(a as u8));
        }
        for (k, r) in data.harbour_routes.iter().enumerate() {
            let (a, s) = (r[0] as usize, r[1] as usize);
            if a >= n || s >= o {
                return Err(format!("harbour route {k} names area {a} or ocean square {s}, which does not exist"));
            }
            if !data.areas[a].harbour {
                return Err(format!(
                    "harbour route {k} starts at area {a} '{}', which has no harbour",
                    data.areas[a].name
                ));
            }
            sea[o + a].push(SeaNode::Ocean(s as u8));
            sea[s].push(SeaNode::Harbour(a as AreaId));
        }
        for a in &data.areas {
            if a.harbour && sea[o + a.id as usize].is_empty() {
                return Err(format!("area {} '{}' has a harbour but no sea route", a.id, a.name));
            }
        }
        let board = Board::from_parts(data, land, sea);
        // Every area must be reachable from the homes over land and sea.
        let mut seen = vec![false; n];
        let mut stack: Vec<usize> =
            board.data.areas.iter().filter(|a| a.kind == AreaKind::Home).map(|a| a.id as usize).collect();
        for &s in &stack {
            seen[s] = true;
        }
        let mut sea_seen = vec![false; o];
        while let Some(a) = stack.pop() {
            let mut next: Vec<usize> = board.land[a].iter().map(|&b| b as usize).collect();
            if board.data.areas[a].harbour {
                let mut q: Vec<SeaNode> = board.sea[o + a].clone();
                while let Some(node) = q.pop() {
                    match node {
                        SeaNode::Harbour(h) => next.push(h as usize),
                        SeaNode::Ocean(x) => {
                            if !sea_seen[x as usize] {
                                sea_seen[x as usize] = true;
                                q.extend(board.sea[x as usize].iter().copied());
                            }
                        }
                    }
                }
            }
            for b in next {
                if !seen[b] {
                    seen[b] = true;
                    stack.push(b);
                }
            }
        }
        if let Some(a) = seen.iter().position(|s| !s) {
            return Err(format!(
                "area {a} '{}' cannot be reached from any home area by land or sea",
                board.data.areas[a].name
            ));
        }
        Ok(board)
    }

    /// Number of areas.
    pub fn len(&self) -> usize {
        self.data.areas.len()
    }

    /// Whether the board has no areas (never true for a validated board).
    pub fn is_empty(&self) -> bool {
        self.data.areas.is_empty()
    }

    /// The area with id `a`.
    pub fn area(&self, a: AreaId) -> &Area {
        &self.data.areas[a as usize]
    }

    /// The home area of `colour`, if the board has one.
    pub fn home_of(&self, colour: Colour) -> Option<AreaId> {
        self.data.areas.iter().find(|a| a.colour == Some(colour)).map(|a| a.id)
    }

    /// Sea neighbours of a node.
    pub fn sea_next(&self, node: SeaNode) -> &[SeaNode] {
        match node {
            SeaNode::Ocean(o) => self.sea.get(o as usize).map(Vec::as_slice).unwrap_or(&[]),
            SeaNode::Harbour(a) => self.sea.get(self.data.oceans.len() + a as usize).map(Vec::as_slice).unwrap_or(&[]),
        }
    }

    /// A sea node in words.
    pub fn node_name(&self, node: SeaNode) -> String {
        match node {
            SeaNode::Ocean(o) => format!("ocean square {o}"),
            SeaNode::Harbour(a) => format!("the harbour of {}", self.area(a).name),
        }
    }

    /// The board's data as JSON, serialised once and shared by every view.
    pub fn json(&self) -> &serde_json::Value {
        self.json.get_or_init(|| serde_json::to_value(&self.data).expect("board data is JSON"))
    }

    /// The board's data as JSON text (fields in their declared order),
    /// written once and shared by every view written as text.
    pub fn text(&self) -> &str {
        self.text.get_or_init(|| serde_json::to_string(&self.data).expect("board data is JSON"))
    }

    /// A built-in board from its data text, parsed and checked once, named
    /// `name` in logs.
    fn builtin_board(cell: &'static OnceLock<Arc<Board>>, name: &'static str, text: &str) -> Arc<Board> {
        cell.get_or_init(|| {
            Arc::new(
                Board::parse(text)
                    .map(|b| b.named(Some(name), None))
                    .unwrap_or_else(|e| panic!("the built-in board {name} is valid: {e}")),
            )
        })
        .clone()
    }

    /// The built-in Summer board (2-5 players) of rules versions 1 to 3.
    pub fn summer() -> Arc<Board> {
        static B: OnceLock<Arc<Board>> = OnceLock::new();
        Board::builtin_board(&B, "summer", include_str!("../data/maps/summer.toml"))
    }

    /// The built-in Summer board of rules version 4: the same layout with
    /// area kinds adjusted for fairer bot games (2 and 3 players within 10
    /// points of an even share; 4 and 5 players not: RULES-NOTES.md).
    /// Logs name it `summer-v4`.
    pub fn summer_v4() -> Arc<Board> {
        static B: OnceLock<Arc<Board>> = OnceLock::new();
        Board::builtin_board(&B, "summer-v4", include_str!("../data/maps/summer-v4.toml"))
    }

    /// The built-in Summer board of rules version 5: version 4's
    /// with a setup table by player count (4 players place the homes
    /// elsewhere). Logs name it `summer-v5`; a new game asks for it as
    /// "summer".
    pub fn summer_v5() -> Arc<Board> {
        static B: OnceLock<Arc<Board>> = OnceLock::new();
        Board::builtin_board(&B, SUMMER_V5, include_str!("../data/maps/summer-v5.toml"))
    }

    /// The built-in Summer board of rules version 6 and later: version 5's
    /// with a second row in its setup table, for 5 players (their homes and
    /// area kinds: RULES-NOTES.md, "Fairness of the Summer board"). Logs
    /// name it `summer-v6`; a new game asks for it as "summer".
    pub fn summer_v6() -> Arc<Board> {
        static B: OnceLock<Arc<Board>> = OnceLock::new();
        Board::builtin_board(&B, SUMMER_V6, include_str!("../data/maps/summer-v6.toml"))
    }

    /// The built-in Winter island board (2-3 players).
    pub fn winter() -> Arc<Board> {
        static B: OnceLock<Arc<Board>> = OnceLock::new();
        Board::builtin_board(&B, "winter", include_str!("../data/maps/winter.toml"))
    }

    /// An empty placeholder (the state before setup).
    pub fn empty() -> Arc<Board> {
        static B: OnceLock<Arc<Board>> = OnceLock::new();
        B.get_or_init(|| {
            Arc::new(Board::from_parts(
                BoardData {
                    name: String::new(),
                    min_players: 2,
                    max_players: 5,
                    rivers: vec![],
                    bridges: vec![],
                    sea_routes: vec![],
                    harbour_routes: vec![],
                    mountains: vec![],
                    oceans: vec![],
                    areas: vec![],
                    setups: vec![],
                },
                vec![],
                vec![],
            ))
        })
        .clone()
    }
}

/// Which board a game is played on: shared, never deep-copied with the state.
/// It serialises as the built-in name or the custom data text and is rebuilt
/// (and validated again) when a state is read back.
#[derive(Clone, Debug)]
pub struct BoardRef(pub Arc<Board>);

impl Default for BoardRef {
    fn default() -> Self {
        BoardRef(Board::empty())
    }
}

impl std::ops::Deref for BoardRef {
    type Target = Board;
    fn deref(&self) -> &Board {
        &self.0
    }
}

/// How events and states name the Summer board of rules version 4 ("summer"
/// names the board of versions 1 to 3).
const SUMMER_V4: &str = "summer-v4";

/// How events and states name the Summer board of rules version 5.
const SUMMER_V5: &str = "summer-v5";

/// How events and states name the Summer board of rules version 6.
const SUMMER_V6: &str = "summer-v6";

/// The serialised form of a [`BoardRef`].
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum BoardKey {
    None,
    Builtin(String),
    Custom(String),
    /// A built-in board with its setup table's row for a player count.
    BuiltinFor {
        name: String,
        players: u8,
    },
    /// A custom board with its setup table's row for a player count.
    CustomFor {
        text: String,
        players: u8,
    },
}

impl BoardRef {
    /// The board a new game of `rules_version` is played on: "summer" is
    /// the version 4 Summer board in version 4, the version 5 one in
    /// version 5 and the version 6 one from then on (older versions keep
    /// theirs, so their games play and replay as they always did).
    pub fn for_version(name: &str, custom: Option<&str>, rules_version: u32) -> Result<BoardRef, String> {
        let board = BoardRef::resolve(name, custom)?;
        if custom.is_none() && name == "summer" && rules_version >= 6 {
            return Ok(BoardRef(Board::summer_v6()));
        }
        if custom.is_none() && name == "summer" && rules_version >= 5 {
            return Ok(BoardRef(Board::summer_v5()));
        }
        if custom.is_none() && name == "summer" && rules_version >= 4 {
            return Ok(BoardRef(Board::summer_v4()));
        }
        Ok(board)
    }

    /// A built-in board by the name events give it.
    fn builtin(name: &str) -> Result<BoardRef, String> {
        match name {
            SUMMER_V4 => Ok(BoardRef(Board::summer_v4())),
            SUMMER_V5 => Ok(BoardRef(Board::summer_v5())),
            SUMMER_V6 => Ok(BoardRef(Board::summer_v6())),
            other => BoardRef::resolve(other, None),
        }
    }

    /// The board named by a game's options: built in, or custom data text.
    pub fn resolve(name: &str, custom: Option<&str>) -> Result<BoardRef, String> {
        match custom {
            Some(text) => {
                // Built once per text while any game holds it: every state
                // read back (a snapshot) names its board by the text.
                static BUILT: OnceLock<Mutex<HashMap<String, Weak<Board>>>> = OnceLock::new();
                let built = BUILT.get_or_init(Default::default);
                if let Some(b) = built.lock().unwrap_or_else(|e| e.into_inner()).get(text).and_then(Weak::upgrade) {
                    return Ok(BoardRef(b));
                }
                let b = Board::parse(text)
                    .map_err(|e| format!("the custom board is rejected: {e}"))?
                    .named(None, Some(text));
                let b = Arc::new(b);
                let mut built = built.lock().unwrap_or_else(|e| e.into_inner());
                built.retain(|_, w| w.strong_count() > 0);
                built.insert(text.to_owned(), Arc::downgrade(&b));
                Ok(BoardRef(b))
            }
            None => match name {
                "summer" => Ok(BoardRef(Board::summer())),
                "winter" => Ok(BoardRef(Board::winter())),
                other => {
                    Err(format!("unknown board {other:?}: choose \"summer\" or \"winter\", or give a custom board"))
                }
            },
        }
    }
}

impl Serialize for BoardRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let b = &self.0;
        let key = match (&b.source, b.setup_row) {
            (Some(text), None) => BoardKey::Custom(text.clone()),
            (Some(text), Some(players)) => BoardKey::CustomFor { text: text.clone(), players },
            (None, _) if b.data.areas.is_empty() => BoardKey::None,
            (None, None) => BoardKey::Builtin(b.builtin.map_or_else(|| b.data.name.to_lowercase(), str::to_owned)),
            (None, Some(players)) => BoardKey::BuiltinFor {
                name: b.builtin.map_or_else(|| b.data.name.to_lowercase(), str::to_owned),
                players,
            },
        };
        key.serialize(s)
    }
}

impl<'de> Deserialize<'de> for BoardRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (base, players) = match BoardKey::deserialize(d)? {
            BoardKey::None => return Ok(BoardRef::default()),
            BoardKey::Builtin(name) => (BoardRef::builtin(&name), None),
            BoardKey::Custom(text) => (BoardRef::resolve("custom", Some(&text)), None),
            BoardKey::BuiltinFor { name, players } => (BoardRef::builtin(&name), Some(players)),
            BoardKey::CustomFor { text, players } => (BoardRef::resolve("custom", Some(&text)), Some(players)),
        };
        let base = base.map_err(serde::de::Error::custom)?;
        match players {
            None => Ok(base),
            Some(p) if base.setup_for(p).is_some() => Ok(BoardRef(base.0.for_players(p))),
            Some(p) => {
                Err(serde::de::Error::custom(format!("the {} board has no setup for {p} players", base.data.name)))
            }
        }
    }
}

impl schemars::JsonSchema for BoardRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BoardRef".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        BoardKey::json_schema(generator)
    }
}
