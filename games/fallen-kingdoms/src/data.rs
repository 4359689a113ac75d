//! The designed components (rulebook section 2.1, "Game components"): map
//! tiles, gods, knowledge cards, city buildings and rumor cards, read from the
//! TOML files in `data/` and checked with messages naming the fault. The
//! rulebook gives none of their contents; RULES-NOTES.md lists every choice.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// The three resources and the three production tracks they raise (4.4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    Metal,
    Wood,
    Wheat,
}

impl Resource {
    /// The production track this resource raises: 0 unit, 1 building, 2 knowledge.
    pub fn track(self) -> usize {
        match self {
            Resource::Metal => 0,
            Resource::Wood => 1,
            Resource::Wheat => 2,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    Square,
    Circle,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TileCity {
    pub name: String,
    pub at: [u8; 2],
    #[serde(default)]
    pub resource: Option<Resource>,
    #[serde(default)]
    pub shape: Option<Shape>,
    #[serde(default)]
    pub port: bool,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exit {
    pub edge: String,
    pub city: usize,
    pub kind: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TileSide {
    pub id: u8,
    pub side: String,
    #[serde(default)]
    pub roads: Vec<[usize; 2]>,
    #[serde(default)]
    pub routes: Vec<[usize; 2]>,
    pub city: Vec<TileCity>,
    pub exit: Vec<Exit>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ability {
    None,
    CaptureTemple,
    ExtraUnit,
    Strike,
    UnitPoints,
    BuildingPoints,
    KnowledgePoints,
    Glory,
    Copy,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct God {
    pub name: String,
    pub intimidation: u8,
    pub ability: Ability,
    #[serde(default)]
    pub points: u8,
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    MetalBonus,
    WoodBonus,
    WheatBonus,
    AttackHit,
    DefenceHit,
    AttackDie,
    PortPoints,
    CityGlory,
    BuildingGlory,
    UnitPoints,
    BuildingPoints,
    KnowledgePoints,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Knowledge {
    pub name: String,
    pub status: String,
    pub glory: u8,
    pub effect: Effect,
}

impl Knowledge {
    pub fn public(&self) -> bool {
        self.status == "public"
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BuildingKind {
    Barrack,
    Workshop,
    Farm,
}

impl BuildingKind {
    /// The track a building adds 2 points to (4.4.1).
    pub fn track(self) -> usize {
        match self {
            BuildingKind::Barrack => 0,
            BuildingKind::Workshop => 1,
            BuildingKind::Farm => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            BuildingKind::Barrack => "Barrack",
            BuildingKind::Workshop => "Workshop",
            BuildingKind::Farm => "Farm",
        }
    }
}

/// Every designed component.
pub struct Data {
    pub tiles: Vec<TileSide>,
    pub gods: Vec<God>,
    pub knowledge: Vec<Knowledge>,
    pub buildings: Vec<BuildingKind>,
    pub rumors: Vec<u8>,
}

#[derive(Deserialize)]
struct TilesFile {
    tile: Vec<TileSide>,
}
#[derive(Deserialize)]
struct GodsFile {
    god: Vec<God>,
}
#[derive(Deserialize)]
struct KnowledgeFile {
    card: Vec<Knowledge>,
}
#[derive(Deserialize)]
struct BuildingsFile {
    buildings: Vec<BuildingKind>,
}
#[derive(Deserialize)]
struct RumorsFile {
    rumors: Vec<u8>,
}

fn parse<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> Result<T, String> {
    toml::from_str(text).map_err(|e| format!("{file}: not a valid component file: {}", e.message()))
}

/// Read and check the component files.
pub fn load(tiles: &str, gods: &str, knowledge: &str, buildings: &str, rumors: &str) -> Result<Data, String> {
    let t: TilesFile = parse("tiles.toml", tiles)?;
    let g: GodsFile = parse("gods.toml", gods)?;
    let k: KnowledgeFile = parse("knowledge.toml", knowledge)?;
    let b: BuildingsFile = parse("buildings.toml", buildings)?;
    let r: RumorsFile = parse("rumors.toml", rumors)?;
    let d = Data { tiles: t.tile, gods: g.god, knowledge: k.card, buildings: b.buildings, rumors: r.rumors };
    check(&d)?;
    Ok(d)
}

fn check(d: &Data) -> Result<(), String> {
    for id in 1..=6u8 {
        for side in ["A", "B"] {
            let n = d.tiles.iter().filter(|t| t.id == id && t.side == side).count();
            if n != 1 {
                return Err(format!("tiles.toml: tile {id} must have exactly one side {side}, found {n}"));
            }
        }
    }
    if d.tiles.len() != 12 {
        return Err(format!("tiles.toml: 6 double-sided tiles make 12 sides, found {}", d.tiles.len()));
    }
    for t in &d.tiles {
        let at = format!("tiles.toml: tile {} side {}", t.id, t.side);
        let n = t.city.len();
        if n == 0 || n > 6 {
            return Err(format!("{at}: a side holds 1 to 6 cities, found {n}"));
        }
        for c in &t.city {
            if c.at[0] > 2 || c.at[1] > 1 {
                return Err(format!("{at}: city {} is off the 3x2 grid", c.name));
            }
            if c.resource.is_some() != c.shape.is_some() {
                return Err(format!("{at}: city {} needs both a resource and a shape, or neither", c.name));
            }
        }
        for r in &t.roads {
            if r[0] >= n || r[1] >= n || r[0] == r[1] {
                return Err(format!("{at}: road {r:?} names a city that is not on the side"));
            }
        }
        let mut reached = vec![0usize];
        let mut i = 0;
        while i < reached.len() {
            for r in &t.roads {
                for (a, b) in [(r[0], r[1]), (r[1], r[0])] {
                    if a == reached[i] && !reached.contains(&b) {
                        reached.push(b);
                    }
                }
            }
            i += 1;
        }
        if reached.len() != n {
            return Err(format!("{at}: its roads leave some cities cut off from the others"));
        }
        for r in &t.routes {
            if r[0] >= n || r[1] >= n || !t.city[r[0]].port || !t.city[r[1]].port {
                return Err(format!("{at}: navigation route {r:?} must join two port cities"));
            }
        }
        for edge in ["n", "e", "s", "w"] {
            for kind in ["road", "sea"] {
                let ex: Vec<&Exit> = t.exit.iter().filter(|e| e.edge == edge && e.kind == kind).collect();
                if ex.len() != 1 {
                    return Err(format!(
                        "{at}: edge {edge} needs one {kind} exit (its {} half), found {}",
                        if kind == "road" { "land" } else { "water" },
                        ex.len()
                    ));
                }
                if ex[0].city >= n {
                    return Err(format!("{at}: the {kind} exit on edge {edge} names a city that is not on the side"));
                }
                if kind == "sea" && !t.city[ex[0].city].port {
                    return Err(format!("{at}: the sea exit on edge {edge} leaves from a city without a port"));
                }
            }
        }
        if let Some(e) = t.exit.iter().find(|e| !["n", "e", "s", "w"].contains(&e.edge.as_str())) {
            return Err(format!("{at}: exit edge {:?} is not one of n, e, s, w", e.edge));
        }
    }
    if d.gods.len() != 9 {
        return Err(format!("gods.toml: the game has 9 god cards, found {}", d.gods.len()));
    }
    let mut values: Vec<u8> = d.gods.iter().map(|g| g.intimidation).collect();
    values.sort();
    values.dedup();
    if values.len() != 9 {
        return Err("gods.toml: every god needs its own intimidation value (3.3 names one first player)".into());
    }
    if d.knowledge.len() != 18 {
        return Err(format!("knowledge.toml: the game has 18 knowledge cards, found {}", d.knowledge.len()));
    }
    if let Some(k) = d.knowledge.iter().find(|k| k.status != "public" && k.status != "private") {
        return Err(format!("knowledge.toml: {} has status {:?}, not public or private", k.name, k.status));
    }
    if d.buildings.len() != 18 {
        return Err(format!("buildings.toml: the game has 18 building tiles, found {}", d.buildings.len()));
    }
    if d.rumors.len() != 18 {
        return Err(format!("rumors.toml: the game has 18 rumor cards, found {}", d.rumors.len()));
    }
    Ok(())
}

/// The built-in components.
pub fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        load(
            include_str!("../data/tiles.toml"),
            include_str!("../data/gods.toml"),
            include_str!("../data/knowledge.toml"),
            include_str!("../data/buildings.toml"),
            include_str!("../data/rumors.toml"),
        )
        .unwrap_or_else(|e| panic!("built-in Fallen Kingdoms data: {e}"))
    })
}
