//! Bardagi: the map drawn from its hex cells (pointy-top, axial `[q, r]`):
//! each area in the colour of its kind with its owner's disks, axes and
//! runes; mountains; rivers and bridges on the shared edges; harbours and
//! the ocean squares with their sea routes; every clan's units and its
//! Knerrir. The text alternative is a table of the areas and one of the
//! clans, instead of the map's raw cells.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Serialize;

use runestone_engine::present::{esc, seat_name, Area};

use super::board::{Area as MapArea, BoardData, SeaNode};
use super::state::Loc;
use super::view::{AreaView, KnerrirView, Units, View};

/// Hex size (centre to corner) in SVG units.
const S: f64 = 14.0;
const SQRT3: f64 = 1.732_050_807_568_877_2;

fn centre(q: i64, r: i64) -> (f64, f64) {
    (S * SQRT3 * (q as f64 + r as f64 / 2.0), S * 1.5 * r as f64)
}

fn cell_of(c: &[i32; 2]) -> (i64, i64) {
    (i64::from(c[0]), i64::from(c[1]))
}

/// A value's name as the view writes it ("gold_mine", "red", "action").
pub(crate) fn name_of<T: Serialize>(x: &T) -> String {
    serde_json::to_value(x).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// Each unit with its name as the view writes it, in the view's order.
fn units_of(u: &Units) -> [(&'static str, Loc); 3] {
    [("berserkur", u.berserkur), ("godi", u.godi), ("kaupmadur", u.kaupmadur)]
}

/// One hex cell around (0, 0), drawn once in the board's `<defs>` and
/// placed per cell by [`hex_at`] (a map has hundreds of cells).
fn hex_points() -> String {
    (0..6)
        .map(|i| {
            let a = std::f64::consts::PI / 180.0 * (60.0 * i as f64 - 30.0);
            format!("{:.1},{:.1}", S * a.cos(), S * a.sin())
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A hex cell centred on (x, y).
fn hex_at(x: f64, y: f64) -> String {
    format!("<use href=\"#hex\" x=\"{x:.1}\" y=\"{y:.1}\"/>")
}

/// The clan colour's paint.
pub(crate) fn clan_paint(colour: &str) -> &'static str {
    match colour {
        "red" => "#c0392b",
        "yellow" => "#d4ac0d",
        "blue" => "#2471a3",
        "green" => "#1e8449",
        "black" => "#1c1c1c",
        _ => "#777777",
    }
}

fn kind_paint(kind: &str) -> &'static str {
    match kind {
        "home" => "#f5e6c8",
        "forest" => "#7fb069",
        "sheep" => "#cde6a5",
        "cattle" => "#d9b98c",
        "quarry" => "#b8b8b0",
        "gold_mine" => "#f2d16b",
        "iron_mine" => "#8d8f99",
        "village" => "#e8d3b0",
        "sacred" => "#c8b6e2",
        "camp" => "#c98a7a",
        _ => "#dddddd",
    }
}

fn kind_words(kind: &str) -> String {
    match kind {
        "gold_mine" => "gold mine".into(),
        "iron_mine" => "iron mine".into(),
        "sacred" => "sacred site".into(),
        "camp" => "barbarian camp".into(),
        k => k.replace('_', " "),
    }
}

fn rune_mark(rune: &str) -> (&'static str, &'static str) {
    match rune {
        "divine" => ("D", "Divine"),
        "sea_move" => ("S", "Sea move"),
        "defence" => ("+", "Defence"),
        "no_resources" => ("N", "No resources"),
        "theirs_are_yours" => ("T", "Theirs are yours"),
        "twice" => ("2", "Twice"),
        _ => ("?", "a rune"),
    }
}

fn unit_mark(unit: &str) -> (&'static str, &'static str) {
    match unit {
        "berserkur" => ("B", "Berserkur"),
        "godi" => ("G", "Godi"),
        "kaupmadur" => ("K", "Kaupmadur"),
        _ => ("?", "unit"),
    }
}

/// The area of each cell.
type CellOwners = HashMap<(i64, i64), u64>;
/// The centres of each area's cells.
type AreaCentres = HashMap<u64, Vec<(f64, f64)>>;

struct Seen<'a> {
    view: &'a View,
    seats: &'a [String],
}

impl Seen<'_> {
    fn board(&self) -> &BoardData {
        &self.view.board
    }

    fn map_areas(&self) -> &[MapArea] {
        &self.board().areas
    }

    fn state_of(&self, id: u64) -> Option<&AreaView> {
        self.view.areas.iter().find(|s| s.id as u64 == id)
    }

    fn owner(&self, id: u64) -> Option<u8> {
        self.state_of(id).and_then(|s| s.owner)
    }

    fn clan(&self, seat: u8) -> String {
        self.view.players.get(seat as usize).and_then(|p| p.colour.as_ref()).map(name_of).unwrap_or_default()
    }

    fn who(&self, seat: u8) -> String {
        let c = self.clan(seat);
        if c.is_empty() {
            seat_name(self.seats, seat)
        } else {
            format!("{} ({c})", seat_name(self.seats, seat))
        }
    }

    /// Cell → area id, and each area's cells' centres.
    fn cells(&self) -> (CellOwners, AreaCentres) {
        let mut owner_of = HashMap::new();
        let mut centres: HashMap<u64, Vec<(f64, f64)>> = HashMap::new();
        for a in self.map_areas() {
            let id = u64::from(a.id);
            for c in a.cells.iter().map(cell_of) {
                owner_of.insert(c, id);
                centres.entry(id).or_default().push(centre(c.0, c.1));
            }
        }
        (owner_of, centres)
    }
}

fn mean(points: &[(f64, f64)]) -> (f64, f64) {
    let n = points.len().max(1) as f64;
    (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n)
}

/// The cell of `points` nearest their mean: a spot inside the area.
fn anchor(points: &[(f64, f64)]) -> (f64, f64) {
    let (mx, my) = mean(points);
    points
        .iter()
        .copied()
        .min_by(|a, b| {
            let da = (a.0 - mx).powi(2) + (a.1 - my).powi(2);
            let db = (b.0 - mx).powi(2) + (b.1 - my).powi(2);
            da.total_cmp(&db)
        })
        .unwrap_or((mx, my))
}

const DIRS: [(i64, i64); 6] = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)];

/// The shared edges between the cells of areas `a` and `b`.
fn shared_edges(a: u64, b: u64, owner_of: &CellOwners) -> Vec<((f64, f64), (f64, f64))> {
    let mut out = Vec::new();
    let mut cells: Vec<&(i64, i64)> = owner_of.iter().filter(|(_, id)| **id == a).map(|(c, _)| c).collect();
    cells.sort();
    for &(q, r) in cells {
        for (dq, dr) in DIRS {
            if owner_of.get(&(q + dq, r + dr)) == Some(&b) {
                let (x1, y1) = centre(q, r);
                let (x2, y2) = centre(q + dq, r + dr);
                let (mx, my) = ((x1 + x2) / 2.0, (y1 + y2) / 2.0);
                let len = ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt();
                let (px, py) = (-(y2 - y1) / len * S / 2.0, (x2 - x1) / len * S / 2.0);
                out.push(((mx - px, my - py), (mx + px, my + py)));
            }
        }
    }
    out
}

fn pairs(v: &[[u8; 2]]) -> Vec<(u64, u64)> {
    v.iter().map(|p| (u64::from(p[0]), u64::from(p[1]))).collect()
}

pub fn areas(view: &View, seats: &[String]) -> Vec<Area> {
    let seen = Seen { view, seats };
    seen.map_areas()
        .iter()
        .map(|a| u64::from(a.id))
        .map(|id| Area { id: format!("area-{id}"), owner: seen.owner(id) })
        .collect()
}

pub fn svg(view: &View, seats: &[String]) -> Option<String> {
    let seen = Seen { view, seats };
    if seen.map_areas().is_empty() {
        return None;
    }
    let (owner_of, centres) = seen.cells();
    let oceans: Vec<(u64, (f64, f64))> = seen
        .board()
        .oceans
        .iter()
        .map(|o| {
            let (q, r) = cell_of(&o.cell);
            (u64::from(o.id), centre(q, r))
        })
        .collect();
    let ocean_at: HashMap<u64, (f64, f64)> = oceans.iter().copied().collect();
    let mountains: Vec<(f64, f64)> =
        seen.board().mountains.iter().flat_map(|m| m.cells.iter().map(cell_of)).map(|(q, r)| centre(q, r)).collect();

    // The extent of everything drawn.
    let all: Vec<(f64, f64)> = centres
        .values()
        .flatten()
        .copied()
        .chain(oceans.iter().map(|o| o.1))
        .chain(mountains.iter().copied())
        .collect();
    let (x0, x1) = all.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = all.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let pad = S * 1.5;
    let (vx, vy, vw, vh) = (x0 - pad, y0 - pad, x1 - x0 + 2.0 * pad, y1 - y0 + 2.0 * pad);

    let harbour_spot = |id: u64| centres.get(&id).map(|c| anchor(c));
    let mut s = String::new();
    let _ = write!(s, "<rect x=\"{vx:.1}\" y=\"{vy:.1}\" width=\"{vw:.1}\" height=\"{vh:.1}\" fill=\"#d6eaf8\"/>");

    // Sea routes under everything.
    s.push_str(
        "<g class=\"sea-routes\" stroke=\"#5d8aa8\" stroke-width=\"1.2\" stroke-dasharray=\"3 3\" fill=\"none\">",
    );
    for (a, b) in pairs(&seen.board().sea_routes) {
        if let (Some(p), Some(q)) = (ocean_at.get(&a), ocean_at.get(&b)) {
            let _ = write!(s, "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>", p.0, p.1, q.0, q.1);
        }
    }
    for (area, ocean) in pairs(&seen.board().harbour_routes) {
        if let (Some(p), Some(q)) = (harbour_spot(area), ocean_at.get(&ocean)) {
            let _ = write!(s, "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>", p.0, p.1, q.0, q.1);
        }
    }
    s.push_str("</g>");

    // Mountains.
    s.push_str(
        "<g class=\"mountains\" fill=\"#8b7d6b\" stroke=\"#5e5345\" stroke-width=\"0.6\"><title>Mountains</title>",
    );
    for (x, y) in &mountains {
        s.push_str(&hex_at(*x, *y));
    }
    s.push_str("</g>");

    // Areas: cells, then what stands on them.
    for a in seen.map_areas() {
        let id = u64::from(a.id);
        let kind = &name_of(&a.kind);
        let kind = kind.as_str();
        let st = seen.state_of(id);
        let disks = st.map_or(0, |s| s.disks);
        let owner = seen.owner(id);
        let home_of = a.colour.as_ref().map(name_of);
        let fill = match home_of.as_deref() {
            Some(c) if kind == "home" => clan_paint(c),
            _ => kind_paint(kind),
        };
        let mut title = format!("{} {id}: {}", a.name, kind_words(kind));
        if let Some(c) = &home_of {
            let _ = write!(title, ", home of {c}");
        }
        if let Some(o) = owner {
            let _ = write!(title, ", held by {} with {disks} disk(s)", seen.who(o));
        }
        let axes = st.map_or(0, |s| s.axes);
        if axes > 0 {
            let _ = write!(title, ", {axes} axe(s)");
        }
        if a.harbour {
            title.push_str(", harbour");
        }
        let owner_attr = owner.map(|o| format!(" data-owner=\"{o}\"")).unwrap_or_default();
        let _ = write!(
            s,
            "<g class=\"area\" data-area=\"area-{id}\"{owner_attr} data-kind=\"{}\"><title>{}</title>",
            esc(kind),
            esc(&title)
        );
        let opacity = if kind == "home" { "0.45" } else { "1" };
        let _ = write!(s, "<g fill=\"{fill}\" fill-opacity=\"{opacity}\" stroke=\"{fill}\" stroke-width=\"0.8\">");
        for c in a.cells.iter().map(cell_of) {
            let (x, y) = centre(c.0, c.1);
            s.push_str(&hex_at(x, y));
        }
        s.push_str("</g>");
        let (cx, cy) = anchor(centres.get(&id).map_or(&[][..], Vec::as_slice));
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"8\" text-anchor=\"middle\" fill=\"#333\">{id}</text>",
            cx,
            cy - S * 0.55
        );
        if let Some(o) = owner {
            let paint = clan_paint(&seen.clan(o));
            let _ = write!(
                    s,
                    "<circle class=\"disks\" cx=\"{cx:.1}\" cy=\"{:.1}\" r=\"6.5\" fill=\"{paint}\" stroke=\"#fff\" stroke-width=\"1\"/>\
<text x=\"{cx:.1}\" y=\"{:.1}\" font-size=\"8\" text-anchor=\"middle\" fill=\"#fff\" font-weight=\"bold\">{}</text>",
                    cy + 2.0,
                    cy + 4.8,
                    disks
                );
        }
        if axes > 0 {
            let _ = write!(
                    s,
                    "<g class=\"axes\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"11\" height=\"9\" rx=\"1.5\" fill=\"#4a2c2a\"/>\
<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"7\" text-anchor=\"middle\" fill=\"#fff\">⚒{axes}</text></g>",
                    cx + 6.0,
                    cy - 4.0,
                    cx + 11.5,
                    cy + 3.0
                );
        }
        for (i, rune) in st.map(|s| s.runes.as_slice()).unwrap_or_default().iter().map(name_of).enumerate() {
            let (mark, name) = rune_mark(&rune);
            let (rx, ry) = (cx - 10.0 - 8.0 * i as f64, cy - 2.0);
            let _ = write!(
                    s,
                    "<g class=\"rune\"><title>{name} rune</title><circle cx=\"{rx:.1}\" cy=\"{ry:.1}\" r=\"3.8\" fill=\"#fdfaf0\" stroke=\"#6c3483\" stroke-width=\"0.8\"/>\
<text x=\"{rx:.1}\" y=\"{:.1}\" font-size=\"5.5\" text-anchor=\"middle\" fill=\"#6c3483\">{mark}</text></g>",
                    ry + 2.0
                );
        }
        if a.harbour {
            let (hx, hy) = (cx, cy + S * 0.75);
            let _ = write!(
                    s,
                    "<g class=\"harbour\"><title>Harbour</title><circle cx=\"{hx:.1}\" cy=\"{hy:.1}\" r=\"3.5\" fill=\"#1b4f72\"/>\
<text x=\"{hx:.1}\" y=\"{:.1}\" font-size=\"5\" text-anchor=\"middle\" fill=\"#fff\">H</text></g>",
                    hy + 1.8
                );
        }
        s.push_str("</g>");
    }

    // Rivers and bridges on the shared edges.
    let bridges = pairs(&seen.board().bridges);
    for (a, b) in pairs(&seen.board().rivers) {
        let bridged = bridges.iter().any(|&(x, y)| (x, y) == (a, b) || (y, x) == (a, b));
        let _ = write!(
            s,
            "<g class=\"river\"><title>River between {a} and {b}{}</title>",
            if bridged { ", with a bridge" } else { "" }
        );
        let edges = shared_edges(a, b, &owner_of);
        for (p, q) in &edges {
            let _ = write!(
                    s,
                    "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#2e86c1\" stroke-width=\"3\" stroke-linecap=\"round\"/>",
                    p.0, p.1, q.0, q.1
                );
        }
        if let (true, Some((p, q))) = (bridged, edges.get(edges.len() / 2)) {
            let (mx, my) = ((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0);
            let _ = write!(
                    s,
                    "<rect class=\"bridge\" x=\"{:.1}\" y=\"{:.1}\" width=\"8\" height=\"8\" fill=\"#8e5b2e\" stroke=\"#fff\" stroke-width=\"0.6\"/>",
                    mx - 4.0,
                    my - 4.0
                );
        }
        s.push_str("</g>");
    }

    // Ocean squares.
    for (id, (x, y)) in &oceans {
        let _ = write!(
            s,
            "<g class=\"ocean\" data-ocean=\"{id}\"><title>Ocean square {id}</title>\
<rect x=\"{:.1}\" y=\"{:.1}\" width=\"14\" height=\"14\" fill=\"#aed6f1\" stroke=\"#1b4f72\" stroke-width=\"0.8\"/>\
<text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"6\" text-anchor=\"middle\" fill=\"#1b4f72\">{id}</text></g>",
            x - 7.0,
            y - 7.0,
            y + 2.0
        );
    }

    // Units and Knerrir of each clan.
    for (seat, p) in view.players.iter().enumerate() {
        let seat = seat as u8;
        let paint = clan_paint(&seen.clan(seat));
        let who = seen.who(seat);
        for (i, (unit, at)) in units_of(&p.units).into_iter().enumerate() {
            let (mark, name) = unit_mark(unit);
            let Loc::Area(area) = at else { continue };
            let area = u64::from(area);
            let Some(cells) = centres.get(&area) else { continue };
            let (cx, cy) = anchor(cells);
            let (ux, uy) = (cx - 9.0 + 7.0 * i as f64 + (seat as f64) * 1.5, cy + S * 0.55 + seat as f64 * 1.5);
            let _ = write!(
                s,
                "<g class=\"unit\" data-unit=\"{unit}\" data-seat=\"{seat}\" data-at=\"area-{area}\"><title>{} of {}, on area {area}</title>\
<rect x=\"{:.1}\" y=\"{:.1}\" width=\"7\" height=\"7\" fill=\"{paint}\" stroke=\"#fff\" stroke-width=\"0.6\"/>\
<text x=\"{ux:.1}\" y=\"{:.1}\" font-size=\"5.5\" text-anchor=\"middle\" fill=\"#fff\">{mark}</text></g>",
                name,
                esc(&who),
                ux - 3.5,
                uy - 3.5,
                uy + 2.0
            );
        }
        let spot = match p.knerrir {
            KnerrirView::At(SeaNode::Ocean(o)) => {
                ocean_at.get(&u64::from(o)).copied().map(|c| (c, format!("ocean square {o}")))
            }
            KnerrirView::At(SeaNode::Harbour(h)) => {
                harbour_spot(u64::from(h)).map(|(x, y)| ((x, y + S * 0.75), format!("the harbour of area {h}")))
            }
            KnerrirView::PlayerBoard(_) => None,
        };
        if let Some(((x, y), place)) = spot {
            let (x, y) = (x + seat as f64 * 2.0, y - 3.0);
            let _ = write!(
                s,
                "<g class=\"knerrir\" data-seat=\"{seat}\"><title>Knerrir of {} at {place}</title>\
<path d=\"M{:.1},{:.1} h14 l-3,5 h-8 z\" fill=\"{paint}\" stroke=\"#fff\" stroke-width=\"0.6\"/>\
<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"{paint}\" stroke-width=\"1\"/></g>",
                esc(&who),
                x - 7.0,
                y,
                y,
                y - 7.0
            );
        }
    }

    let name = seen.board().name.as_str();
    let desc = format!(
            "The {name} board: {} areas, {} ocean squares. Round {} of {}, phase {}. The tables below tell the same in words.",
            seen.map_areas().len(),
            oceans.len(),
            view.round,
            view.rounds,
            name_of(&view.phase)
        );
    Some(format!(
            "<svg class=\"board\" viewBox=\"{vx:.1} {vy:.1} {vw:.1} {vh:.1}\" role=\"img\" aria-labelledby=\"board-title board-desc\" \
xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\">\
<title id=\"board-title\">Bardagi, the {} board</title><desc id=\"board-desc\">{}</desc>\
<defs><polygon id=\"hex\" points=\"{}\"/></defs>{s}</svg>",
            esc(name),
            esc(&desc),
            hex_points()
        ))
}

pub fn seat_class(view: &View, seat: u8) -> Option<String> {
    let c = view.players.get(seat as usize)?.colour.as_ref()?;
    Some(format!("clan-{}", name_of(c)))
}

pub fn text(view: &View, seats: &[String]) -> Option<String> {
    let seen = Seen { view, seats };
    if seen.map_areas().is_empty() {
        return None;
    }
    let mut units_on: HashMap<u64, Vec<String>> = HashMap::new();
    for (seat, p) in view.players.iter().enumerate() {
        for (unit, at) in units_of(&p.units) {
            if let Loc::Area(a) = at {
                units_on.entry(u64::from(a)).or_default().push(format!(
                    "{} of {}",
                    unit_mark(unit).1,
                    seen.who(seat as u8)
                ));
            }
        }
    }
    let mut h = String::from(
        "<div class=\"view-text\"><table class=\"view-areas\"><caption>Areas</caption><thead><tr>\
<th scope=\"col\">Area</th><th scope=\"col\">Kind</th><th scope=\"col\">Held by</th><th scope=\"col\">Disks</th>\
<th scope=\"col\">Axes</th><th scope=\"col\">Runes</th><th scope=\"col\">Units</th></tr></thead><tbody>",
    );
    for a in seen.map_areas() {
        let id = u64::from(a.id);
        let st = seen.state_of(id);
        let mut kind = kind_words(&name_of(&a.kind));
        if let Some(c) = &a.colour {
            let _ = write!(kind, " ({})", name_of(c));
        }
        if a.harbour {
            kind.push_str(", harbour");
        }
        let runes: Vec<&str> =
            st.map(|s| s.runes.as_slice()).unwrap_or_default().iter().map(|r| rune_mark(&name_of(r)).1).collect();
        let _ = write!(
                h,
                "<tr data-area-row=\"{id}\"><th scope=\"row\">{id} {}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&a.name),
                esc(&kind),
                esc(&seen.owner(id).map_or("—".to_owned(), |o| seen.who(o))),
                st.map_or(0, |s| s.disks),
                st.map_or(0, |s| s.axes),
                esc(&if runes.is_empty() { "—".to_owned() } else { runes.join(", ") }),
                esc(&units_on.get(&id).map_or("—".to_owned(), |u| u.join(", "))),
            );
    }
    // The clans are told on their player boards; the raw view is on the
    // pages' "data" page.
    h.push_str("</tbody></table></div>");
    Some(h)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Two areas with a bridged river between them, a harbour, an ocean
    /// square and a mountain; one clan holding area 1 with axes and runes.
    fn view() -> View {
        crate::tests::patched_view(json!({
            "board": {
                "name": "Tiny", "min_players": 2, "max_players": 2,
                "rivers": [[0, 1]], "bridges": [[0, 1]], "sea_routes": [], "harbour_routes": [[0, 0]],
                "mountain": [{"cells": [[2, 0]]}],
                "ocean": [{"id": 0, "cell": [0, 2]}],
                "area": [
                    {"id": 0, "name": "Red home", "kind": "home", "colour": "red", "harbour": true, "cells": [[0, 0], [0, 1]]},
                    {"id": 1, "name": "Forest 1", "kind": "forest", "harbour": false, "cells": [[1, 0], [1, 1]]}
                ]
            },
            "phase": "action", "round": 1, "rounds": 6,
            "areas": [
                {"id": 0, "owner": null, "disks": 0, "axes": 0, "runes": [], "caster": null},
                {"id": 1, "owner": 1, "disks": 2, "axes": 1, "runes": ["divine", "defence"], "caster": null}
            ],
            "players": [
                {"seat": 0, "colour": "red", "units": {"berserkur": {"area": 0}, "godi": "aboard", "kaupmadur": "fallen"}, "knerrir": {"harbour": 0}},
                {"seat": 1, "colour": "yellow", "units": {"berserkur": {"area": 1}, "godi": {"area": 1}, "kaupmadur": {"area": 0}}, "knerrir": {"ocean": 0}}
            ]
        }))
    }

    #[test]
    fn every_piece_of_a_small_board_is_drawn_and_told() {
        let names = vec!["Ása".to_owned(), "<Bo>".to_owned()];
        let v = view();
        let svg = svg(&v, &names).unwrap();
        assert_eq!(svg.matches("data-area=\"area-0\"").count(), 1);
        assert!(svg.contains("data-area=\"area-1\" data-owner=\"1\""));
        assert!(!svg.contains("data-area=\"area-0\" data-owner"));
        assert_eq!(svg.matches("<polygon").count(), 1, "one hex, defined once");
        assert_eq!(svg.matches("<use href=\"#hex\"").count(), 5, "four area cells and a mountain");
        assert_eq!(svg.matches("class=\"unit\"").count(), 4, "units aboard or fallen are not on the map");
        assert_eq!(svg.matches("class=\"knerrir\"").count(), 2);
        assert!(svg.contains("Knerrir of &lt;Bo&gt; (yellow) at ocean square 0"));
        assert!(svg.contains("Knerrir of Ása (red) at the harbour of area 0"));
        assert_eq!(svg.matches("class=\"rune\"").count(), 2);
        assert!(svg.contains("⚒1"));
        assert!(svg.contains("class=\"bridge\""));
        assert_eq!(svg.matches("stroke=\"#2e86c1\"").count(), 3, "the river on each of the three shared edges");
        assert_eq!(svg.matches("data-ocean=").count(), 1);
        assert!(!svg.contains("<Bo>"), "names are escaped");
        let text = text(&v, &names).unwrap();
        assert!(text.contains("<th scope=\"row\">1 Forest 1</th><td>forest</td><td>&lt;Bo&gt; (yellow)</td><td>2</td><td>1</td><td>Divine, Defence</td>"));
        assert!(!text.contains("cells"));
        assert_eq!(seat_class(&v, 1).as_deref(), Some("clan-yellow"));
    }
}
