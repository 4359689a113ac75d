//! The map (3.1): four (3-4 players) or six (5-6 players) modular tiles in a
//! 2x2 or 2x3 grid, land edges against land and water against water, with 6
//! cities per player; roads, navigation routes and invasion arrows (2.1).

use serde::{Deserialize, Serialize};

use runestone_engine::GameRng;

use crate::data::{data, Resource, Shape, TileSide};

/// One city on the board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct City {
    pub name: String,
    /// Position on the board grid: column, row (tiles are 3 columns by 2 rows).
    pub at: [u8; 2],
    pub resource: Option<Resource>,
    pub shape: Option<Shape>,
    pub port: bool,
}

/// An invasion arrow: a road or navigation route from a city to the edge of the board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Path {
    pub city: u8,
    pub sea: bool,
    /// "n", "e", "s" or "w": the board edge it leaves by.
    pub edge: String,
}

/// A laid-out board. Paths are in order around the edge of the board, so two
/// paths are adjacent when they are next to each other in this list
/// (the last and the first included).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Board {
    /// Tiles as (id, side, column, row).
    pub tiles: Vec<(u8, String, u8, u8)>,
    pub cities: Vec<City>,
    pub roads: Vec<(u8, u8)>,
    pub routes: Vec<(u8, u8)>,
    pub paths: Vec<Path>,
}

impl Board {
    /// Cities joined to `c` by a road.
    pub fn road_adjacent(&self, c: u8) -> Vec<u8> {
        let mut v: Vec<u8> = self
            .roads
            .iter()
            .filter_map(|&(a, b)| {
                if a == c {
                    Some(b)
                } else if b == c {
                    Some(a)
                } else {
                    None
                }
            })
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Cities joined to `c` by a navigation route.
    pub fn sea_adjacent(&self, c: u8) -> Vec<u8> {
        let mut v: Vec<u8> = self
            .routes
            .iter()
            .filter_map(|&(a, b)| {
                if a == c {
                    Some(b)
                } else if b == c {
                    Some(a)
                } else {
                    None
                }
            })
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Adjacent cities (3.8): joined by a road or by a navigation route between their ports.
    pub fn adjacent(&self, c: u8) -> Vec<u8> {
        let mut v = self.road_adjacent(c);
        v.extend(self.sea_adjacent(c));
        v.sort();
        v.dedup();
        v
    }

    pub fn is_adjacent(&self, a: u8, b: u8) -> bool {
        self.adjacent(a).contains(&b)
    }

    /// Whether paths `a` and `b` are next to each other around the edge.
    pub fn paths_adjacent(&self, a: usize, b: usize) -> bool {
        let n = self.paths.len();
        n > 1 && ((a + 1) % n == b || (b + 1) % n == a)
    }

    pub fn n(&self) -> usize {
        self.cities.len()
    }
}

/// Every way to pick tiles and sides for `seats` players with `per` cities
/// per player in all: 4 tiles for 3-4, all 6 for 5-6 (3.1); for another
/// size of map (8.3), the other count of tiles when the rule's cannot make it.
pub fn layouts(seats: u8, per: u8) -> Vec<Vec<(u8, String)>> {
    let rule = if seats <= 4 { 4 } else { 6 };
    let out = layouts_of(rule, per as usize * seats as usize);
    if out.is_empty() && per != 6 {
        return layouts_of(10 - rule, per as usize * seats as usize);
    }
    out
}

fn layouts_of(tiles: u32, want: usize) -> Vec<Vec<(u8, String)>> {
    let d = data();
    let count = |id: u8, side: &str| d.tiles.iter().find(|t| t.id == id && t.side == side).map_or(0, |t| t.city.len());
    let mut out = Vec::new();
    for mask in 0u32..(1 << 6) {
        if mask.count_ones() != tiles {
            continue;
        }
        let ids: Vec<u8> = (0..6u8).filter(|i| mask & (1 << i) != 0).map(|i| i + 1).collect();
        for sides in 0u32..(1 << tiles) {
            let pick: Vec<(u8, String)> = ids
                .iter()
                .enumerate()
                .map(|(k, &id)| (id, if sides & (1 << k) != 0 { "B".to_string() } else { "A".to_string() }))
                .collect();
            if pick.iter().map(|(id, s)| count(*id, s)).sum::<usize>() == want {
                out.push(pick);
            }
        }
    }
    out
}

fn side(id: u8, s: &str) -> &'static TileSide {
    data().tiles.iter().find(|t| t.id == id && t.side == s).expect("checked tile")
}

/// Lay out `tiles` (in reading order) on the grid: 2 columns for 4 tiles, 3 for 6.
pub fn build(tiles: &[(u8, String)]) -> Board {
    let cols = if tiles.len() <= 4 { 2u8 } else { 3u8 };
    let rows = tiles.len().div_ceil(cols as usize) as u8;
    let mut b = Board::default();
    let mut first = Vec::new();
    for (k, (id, s)) in tiles.iter().enumerate() {
        let (col, row) = (k as u8 % cols, k as u8 / cols);
        b.tiles.push((*id, s.clone(), col, row));
        let t = side(*id, s);
        first.push(b.cities.len() as u8);
        for c in &t.city {
            b.cities.push(City {
                name: c.name.clone(),
                at: [col * 3 + c.at[0], row * 2 + c.at[1]],
                resource: c.resource,
                shape: c.shape,
                port: c.port,
            });
        }
        let base = first[k];
        for r in &t.roads {
            b.roads.push((base + r[0] as u8, base + r[1] as u8));
        }
        for r in &t.routes {
            b.routes.push((base + r[0] as u8, base + r[1] as u8));
        }
    }
    let exit = |k: usize, edge: &str, kind: &str| -> u8 {
        let (id, s) = &tiles[k];
        let t = side(*id, s);
        let e = t.exit.iter().find(|e| e.edge == edge && e.kind == kind).expect("checked exit");
        first[k] + e.city as u8
    };
    let at = |col: u8, row: u8| -> Option<usize> {
        let k = row as usize * cols as usize + col as usize;
        (col < cols && k < tiles.len()).then_some(k)
    };
    // Position of each outer exit for ordering the paths around the board.
    let mut outer: Vec<(f64, Path)> = Vec::new();
    let (w, h) = (cols as f64 * 3.0, rows as f64 * 2.0);
    for (k, _) in tiles.iter().enumerate() {
        let (col, row) = (k as u8 % cols, k as u8 / cols);
        for edge in ["n", "e", "s", "w"] {
            let neighbour = match edge {
                "n" => row.checked_sub(1).and_then(|r| at(col, r)),
                "s" => at(col, row + 1),
                "w" => col.checked_sub(1).and_then(|c| at(c, row)),
                _ => at(col + 1, row),
            };
            for kind in ["road", "sea"] {
                let c = exit(k, edge, kind);
                match neighbour {
                    Some(o) if edge == "e" || edge == "s" => {
                        let facing = if edge == "e" { "w" } else { "n" };
                        let d = exit(o, facing, kind);
                        if kind == "road" {
                            b.roads.push((c, d));
                        } else {
                            b.routes.push((c, d));
                        }
                    }
                    Some(_) => {}
                    None => {
                        // The land half comes first along the edge, clockwise.
                        let half = if kind == "road" { 0.3 } else { 0.7 };
                        let (x, y) = match edge {
                            "n" => (col as f64 * 3.0 + 3.0 * half, 0.0),
                            "e" => (w, row as f64 * 2.0 + 2.0 * half),
                            "s" => (col as f64 * 3.0 + 3.0 * (1.0 - half), h),
                            _ => (0.0, row as f64 * 2.0 + 2.0 * (1.0 - half)),
                        };
                        let angle = (y - h / 2.0).atan2(x - w / 2.0);
                        outer.push((angle, Path { city: c, sea: kind == "sea", edge: edge.into() }));
                    }
                }
            }
        }
    }
    outer.sort_by(|a, b| a.0.total_cmp(&b.0));
    b.paths = outer.into_iter().map(|(_, p)| p).collect();
    b.roads.retain(|(a, c)| a != c);
    b.routes.retain(|(a, c)| a != c);
    b
}

/// Pick a layout for `seats` players (`per` cities each) at random and build it.
pub fn random(seats: u8, per: u8, rng: &mut GameRng) -> Board {
    let all = layouts(seats, per);
    let mut pick = all[rng.pick(all.len())].clone();
    rng.shuffle(&mut pick);
    build(&pick)
}
