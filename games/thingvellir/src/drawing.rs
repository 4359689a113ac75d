//! The board drawn from a seat's view: the map of Iceland (its Districts
//! round the coast, tinted by their gothi, with steads and their values,
//! the home steads, Thingmen on the edges between Districts and at sea),
//! the four Laws at Thingvellir with the Lawspeaker's token and the suits,
//! The Fame of Deeds and The Sheep Hunt tracks, and a legend of the gothar.
//! The text alternative tells the same in tables.

use std::fmt::Write as _;

use runestone_engine::present::{esc, seat_colour, seat_name, Area};

use crate::data::{data, Action, Map};
use crate::state::{Phase, Vote};
use crate::view::View;

/// The map's centre and radii (the island is an ellipse with a ragged coast).
const CX: f64 = 320.0;
const CY: f64 = 250.0;
const RX: f64 = 255.0;
const RY: f64 = 165.0;
/// The highlands: the ring's inner edge, as a share of the radius.
const INNER: f64 = 0.42;
/// Where steads and coastal edges sit, as a share of the radius.
const MID: f64 = 0.74;

/// Each District's bearing (degrees clockwise from north) and how far its
/// coast reaches (a share of the radius): a stylised Iceland.
const PLACES: [(&str, f64, f64); 18] = [
    ("Reykjanes", 232.0, 1.12),
    ("Kjalarnes", 248.0, 0.98),
    ("Borgarfjordur", 263.0, 1.0),
    ("Snaefellsnes", 278.0, 1.14),
    ("Dalir", 293.0, 0.98),
    ("Vestfirdir", 312.0, 1.28),
    ("Strandir", 332.0, 1.08),
    ("Hunathing", 348.0, 1.0),
    ("Skagafjordur", 4.0, 1.06),
    ("Eyjafjordur", 20.0, 1.08),
    ("Thingeyjarthing", 40.0, 1.1),
    ("Vopnafjordur", 62.0, 1.06),
    ("Fljotsdalsherad", 82.0, 1.02),
    ("Austfirdir", 102.0, 1.1),
    ("Hornafjordur", 130.0, 1.0),
    ("Sida", 158.0, 0.96),
    ("Rangarthing", 184.0, 0.98),
    ("Arnesthing", 208.0, 1.0),
];

/// A District's bearing and coast, from the table or spread evenly round
/// the island when the map data names a District the table does not know.
fn place(i: usize, name: &str, n: usize) -> (f64, f64) {
    PLACES
        .iter()
        .find(|p| p.0 == name)
        .map(|p| (p.1, p.2))
        .unwrap_or_else(|| (232.0 + 360.0 * i as f64 / n.max(1) as f64, 1.0))
}

fn at(bearing: f64, share: f64) -> (f64, f64) {
    let b = bearing.to_radians();
    (CX + RX * share * b.sin(), CY - RY * share * b.cos())
}

/// The bearing from `a` forward to `b`, in (0, 360].
fn ahead(a: f64, b: f64) -> f64 {
    let d = (b - a).rem_euclid(360.0);
    if d == 0.0 {
        360.0
    } else {
        d
    }
}

/// The paint of a card colour.
pub fn colour_paint(colour: &str) -> &'static str {
    match colour {
        "green" => "#3d8b37",
        "blue" => "#2e6da4",
        "gold" => "#c9a227",
        "red" => "#b03030",
        _ => "#777777",
    }
}

/// Places round the ring: each District's bearing, coast, and the bearings
/// of its two borders with the Districts before and after it.
struct Ring {
    bearing: Vec<f64>,
    coast: Vec<f64>,
    from: Vec<f64>,
    to: Vec<f64>,
}

fn ring(map: &Map) -> Ring {
    let n = map.districts.len();
    let (bearing, coast): (Vec<f64>, Vec<f64>) =
        map.districts.iter().enumerate().map(|(i, name)| place(i, name, n)).unzip();
    let from = (0..n)
        .map(|i| {
            let prev = bearing[(i + n - 1) % n];
            prev + ahead(prev, bearing[i]) / 2.0
        })
        .collect();
    let to = (0..n)
        .map(|i| {
            let next = bearing[(i + 1) % n];
            bearing[i] + ahead(bearing[i], next) / 2.0
        })
        .collect();
    Ring { bearing, coast, from, to }
}

/// Where an edge's marker stands, and the path drawn for an edge across
/// the highlands (`None` for a border between neighbours on the coast).
fn edge_spot(r: &Ring, a: usize, b: usize) -> ((f64, f64), Option<String>) {
    let n = r.bearing.len();
    if (a + 1) % n == b {
        return (at(r.to[a], MID), None);
    }
    if (b + 1) % n == a {
        return (at(r.to[b], MID), None);
    }
    let p = at(r.bearing[a], INNER + 0.08);
    let q = at(r.bearing[b], INNER + 0.08);
    let c = ((p.0 + q.0) / 4.0 + CX / 2.0, (p.1 + q.1) / 4.0 + CY / 2.0);
    let spot = (0.25 * p.0 + 0.5 * c.0 + 0.25 * q.0, 0.25 * p.1 + 0.5 * c.1 + 0.25 * q.1);
    (spot, Some(format!("M{:.1},{:.1} Q{:.1},{:.1} {:.1},{:.1}", p.0, p.1, c.0, c.1, q.0, q.1)))
}

fn district_path(r: &Ring, i: usize) -> String {
    let n = r.bearing.len();
    let (from, to) = (r.from[i], r.to[i]);
    let span = ahead(from, to);
    let prev = r.coast[(i + n - 1) % n];
    let next = r.coast[(i + 1) % n];
    let mut pts = Vec::new();
    const STEPS: usize = 8;
    for k in 0..=STEPS {
        let t = k as f64 / STEPS as f64;
        // The coast rises from the border's average to this District's reach and falls again.
        let reach = if t < 0.5 {
            (prev + r.coast[i]) / 2.0 + (r.coast[i] - (prev + r.coast[i]) / 2.0) * (t * 2.0)
        } else {
            r.coast[i] + ((r.coast[i] + next) / 2.0 - r.coast[i]) * ((t - 0.5) * 2.0)
        };
        pts.push(at(from + span * t, reach));
    }
    for k in (0..=STEPS).rev() {
        pts.push(at(from + span * k as f64 / STEPS as f64, INNER));
    }
    let mut s = String::from("M");
    for (k, (x, y)) in pts.iter().enumerate() {
        let _ = write!(s, "{}{x:.1},{y:.1}", if k == 0 { "" } else { " L" });
    }
    s.push('Z');
    s
}

fn who(seats: &[String], seat: u8) -> String {
    seat_name(seats, seat)
}

/// Each seat with Thingmen in `men`, as "2 of Ása, 1 of Bo".
fn men_words(men: &[u8], seats: &[String]) -> String {
    let v: Vec<String> = men
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(s, n)| format!("{n} of {}", who(seats, s as u8)))
        .collect();
    if v.is_empty() {
        "no Thingmen".into()
    } else {
        v.join(", ")
    }
}

/// Small seat-coloured disks with their counts, in a row centred on (x, y).
fn disks(s: &mut String, x: f64, y: f64, men: &[(u8, u8)]) {
    let w = 15.0;
    let x0 = x - w * (men.len() as f64 - 1.0) / 2.0;
    for (k, (seat, n)) in men.iter().enumerate() {
        let cx = x0 + w * k as f64;
        let _ = write!(
            s,
            "<circle cx=\"{cx:.1}\" cy=\"{y:.1}\" r=\"7\" fill=\"{}\" stroke=\"#fff\" stroke-width=\"1.2\"/>\
<text x=\"{cx:.1}\" y=\"{:.1}\" font-size=\"9\" text-anchor=\"middle\" fill=\"#fff\" font-weight=\"bold\">{n}</text>",
            seat_colour(*seat),
            y + 3.2
        );
    }
}

fn phase_words(p: Phase) -> &'static str {
    match p {
        Phase::Season => "every gothi gives the season's program",
        Phase::Propose => "the Law Council: the Lawspeaker proposes",
        Phase::Vote => "the Law Council: the gothar vote",
        Phase::Resolve => "the actions are resolved",
        Phase::Over => "the game is over",
    }
}

pub fn areas(view: &View, _seats: &[String]) -> Vec<Area> {
    view.districts.iter().enumerate().map(|(i, x)| Area { id: format!("district-{i}"), owner: x.owner }).collect()
}

pub fn seat_class(_view: &View, seat: u8) -> Option<String> {
    Some(format!("seat-{}", seat % 6))
}

/// Each seat's home District: by rules versions 1 to 3 the one settled at
/// setup, by version 4 the District of its Home Stead card's farm.
fn homes(view: &View, map: &Map) -> Vec<(usize, u8)> {
    if map.thingvellir.is_none() {
        return map.home_districts.iter().copied().zip(0..view.players.len() as u8).collect();
    }
    let d = data();
    view.players
        .iter()
        .filter_map(|p| {
            let h = map.homes.iter().find(|h| d.home_steads[h.stead].name == p.home_stead)?;
            Some((h.district, p.seat))
        })
        .collect()
}

pub fn svg(view: &View, seats: &[String]) -> Option<String> {
    let map = data().map_of(view.rules_version);
    if view.districts.len() != map.districts.len() || view.players.is_empty() {
        return None;
    }
    let homes = homes(view, map);
    let mut s = String::new();

    // The sea, and the Thingmen out raiding on it.
    let _ = write!(
        s,
        "<g class=\"sea\" data-sea=\"sea\"><title>{0}</title><rect x=\"0\" y=\"0\" width=\"640\" height=\"480\" fill=\"#cfe3f0\"/>\
<text x=\"14\" y=\"26\" font-size=\"16\" font-style=\"italic\" fill=\"#2e5f86\">{0}</text>",
        esc(&view.sea)
    );
    let at_sea: Vec<(u8, u8)> = view.players.iter().filter(|p| p.at_sea > 0).map(|p| (p.seat, p.at_sea)).collect();
    if !at_sea.is_empty() {
        let _ = write!(
            s,
            "<g class=\"raiders\"><title>Thingmen at sea: {}</title><text x=\"14\" y=\"48\" font-size=\"12\" fill=\"#2e5f86\">raiding:</text>",
            esc(&men_words(&view.players.iter().map(|p| p.at_sea).collect::<Vec<_>>(), seats))
        );
        disks(&mut s, 74.0 + 7.5 * (at_sea.len() as f64 - 1.0), 44.0, &at_sea);
        s.push_str("</g>");
    }
    s.push_str("</g>");

    if map.thingvellir.is_some() {
        by_coordinates(&mut s, view, seats, map, &homes);
    } else {
        by_ring(&mut s, view, seats, map, &homes);
    }

    laws(&mut s, view, seats);
    tracks(&mut s, view, seats);
    legend(&mut s, view, seats);

    let lawspeaker = who(seats, view.lawspeaker);
    let desc = format!(
        "Round {}: {}. Lawspeaker: {lawspeaker}. The map of Iceland with {} Districts and {} edges; the four Laws; \
The Fame of Deeds and The Sheep Hunt. The tables below tell the same in words.",
        view.round,
        phase_words(view.phase),
        view.districts.len(),
        view.edges.len()
    );
    Some(format!(
        "<svg class=\"board thingvellir-board\" viewBox=\"0 0 1000 800\" role=\"img\" aria-labelledby=\"board-title board-desc\" \
xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\">\
<title id=\"board-title\">The Road to Thingvellir, round {}</title><desc id=\"board-desc\">{}</desc>\
<rect x=\"0\" y=\"0\" width=\"1000\" height=\"800\" fill=\"#fbf8f1\"/>{s}</svg>",
        view.round,
        esc(&desc)
    ))
}

/// The first map (rules versions 1 to 3): its Districts round a ring of
/// coast about the highlands.
fn by_ring(s: &mut String, view: &View, seats: &[String], map: &Map, homes: &[(usize, u8)]) {
    let r = ring(map);
    // The highlands.
    let _ = write!(
        s,
        "<ellipse cx=\"{CX}\" cy=\"{CY}\" rx=\"{:.1}\" ry=\"{:.1}\" fill=\"#e4e0d6\" stroke=\"#9c9282\" stroke-width=\"1\"/>\
<text x=\"{CX}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\" fill=\"#8a806f\" font-style=\"italic\">the highlands</text>",
        RX * INNER,
        RY * INNER,
        CY + 4.0
    );

    // The Districts, tinted by their gothi.
    for (i, x) in view.districts.iter().enumerate() {
        let name = esc(&x.name);
        let owner_attr = x.owner.map(|o| format!(" data-owner=\"{o}\"")).unwrap_or_default();
        let home = homes.iter().find(|h| h.0 == i).map(|h| h.1);
        let mut title = x.name.clone();
        match x.owner {
            Some(o) => {
                let _ = write!(title, ": {}'s District, stead of value {}", who(seats, o), x.value);
            }
            None => title.push_str(": unsettled"),
        }
        if let Some(h) = home {
            let _ = write!(title, "; home stead of {}", who(seats, h));
        }
        let (fill, opacity) = match x.owner {
            Some(o) => (seat_colour(o), "0.38"),
            None => ("#f3efe3", "1"),
        };
        let _ = write!(
            s,
            "<g class=\"district\" data-area=\"district-{i}\"{owner_attr}><title>{}</title>\
<path d=\"{}\" fill=\"#f3efe3\" stroke=\"none\"/><path d=\"{}\" fill=\"{fill}\" fill-opacity=\"{opacity}\" stroke=\"#6f6553\" stroke-width=\"1.2\"/>",
            esc(&title),
            district_path(&r, i),
            district_path(&r, i)
        );
        let (lx, ly) = at(r.bearing[i], 0.9);
        let _ = write!(
            s,
            "<text x=\"{lx:.1}\" y=\"{:.1}\" font-size=\"10.5\" text-anchor=\"middle\" fill=\"#2b2620\">{name}</text>",
            ly + 3.0
        );
        let (tx, ty) = at(r.bearing[i], 0.58);
        if let Some(o) = x.owner {
            let _ = write!(
                s,
                "<g class=\"stead\"><circle cx=\"{tx:.1}\" cy=\"{ty:.1}\" r=\"10\" fill=\"{}\" stroke=\"#fff\" stroke-width=\"1.5\"/>\
<text x=\"{tx:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\" fill=\"#fff\" font-weight=\"bold\">{}</text></g>",
                seat_colour(o),
                ty + 4.2,
                x.value
            );
        }
        if home.is_some() {
            let (hx, hy) = (tx + 14.0, ty - 8.0);
            let _ = write!(
                s,
                "<path class=\"home\" d=\"M{:.1},{:.1} l6,-6 l6,6 v6 h-12 z\" fill=\"#fffaf0\" stroke=\"#4a3f30\" stroke-width=\"1\"/>",
                hx - 6.0,
                hy
            );
        }
        s.push_str("</g>");
    }

    // The edges: borders on the coast, paths across the highlands; Thingmen on them.
    for (e, edge) in view.edges.iter().enumerate() {
        let (a, b) = (edge.districts[0], edge.districts[1]);
        if a >= r.bearing.len() || b >= r.bearing.len() {
            continue;
        }
        let ((x, y), path) = edge_spot(&r, a, b);
        let names = format!("{}–{}", view.districts[a].name, view.districts[b].name);
        let _ = write!(
            s,
            "<g class=\"edge\" data-edge=\"{e}\"><title>{}: {}</title>",
            esc(&names),
            esc(&men_words(&edge.thingmen, seats))
        );
        if let Some(p) = path {
            let _ = write!(
                s,
                "<path d=\"{p}\" fill=\"none\" stroke=\"#8a7a5c\" stroke-width=\"1.6\" stroke-dasharray=\"5 4\"/>"
            );
        }
        let men: Vec<(u8, u8)> =
            edge.thingmen.iter().enumerate().filter(|(_, n)| **n > 0).map(|(s, n)| (s as u8, *n)).collect();
        if men.is_empty() {
            let _ = write!(
                s,
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3.5\" fill=\"#fff\" stroke=\"#6f6553\" stroke-width=\"1\"/>"
            );
        } else {
            disks(s, x, y, &men);
        }
        s.push_str("</g>");
    }
}

/// Where a place at `lat`, `lon` is drawn: Iceland fills the map's box,
/// its east–west distances shrunk as at 65° north.
fn project(lat: f64, lon: f64) -> (f64, f64) {
    const SCALE: f64 = 132.0;
    let shrink = 65f64.to_radians().cos();
    (18.0 + (lon + 24.6) * shrink * SCALE, 30.0 + (66.65 - lat) * SCALE)
}

/// The map of rules version 4: each District at its place in Iceland,
/// tinted by its gothi, the edges between them (the sides of Thingvellir
/// drawn bold), Thingmen on them, and the Home Stead cards' farms.
fn by_coordinates(s: &mut String, view: &View, seats: &[String], map: &Map, homes: &[(usize, u8)]) {
    let spot: Vec<(f64, f64)> = map.at.iter().map(|(la, lo)| project(*la, *lo)).collect();
    // The land: a pale round about every District.
    s.push_str("<g class=\"land\">");
    for (x, y) in &spot {
        let _ = write!(s, "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"21\" fill=\"#e9e4d6\"/>");
    }
    s.push_str("</g>");
    // The edges under the Districts.
    for (a, b) in &map.edges {
        let ((x1, y1), (x2, y2)) = (spot[*a], spot[*b]);
        let bold = map.thingvellir.is_some_and(|t| t == *a || t == *b);
        let _ = write!(
            s,
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"#8a7a5c\" stroke-width=\"{}\"/>",
            if bold { "2.4" } else { "1" }
        );
    }
    for (i, x) in view.districts.iter().enumerate() {
        let (cx, cy) = spot[i];
        let home = homes.iter().find(|h| h.0 == i).map(|h| h.1);
        let owner_attr = x.owner.map(|o| format!(" data-owner=\"{o}\"")).unwrap_or_default();
        let mut title = x.name.clone();
        if map.thingvellir == Some(i) {
            title.push_str(": the Althing's plain, where no Stead token stands; its sides are the edges round it");
        } else {
            match x.owner {
                Some(o) => {
                    let _ = write!(title, ": {}'s District, stead of value {}", who(seats, o), x.value);
                }
                None => title.push_str(": unsettled"),
            }
        }
        if let Some(h) = home {
            let _ = write!(title, "; the Home Stead of {} stands here", who(seats, h));
        }
        let _ =
            write!(s, "<g class=\"district\" data-area=\"district-{i}\"{owner_attr}><title>{}</title>", esc(&title));
        if map.thingvellir == Some(i) {
            let _ = write!(
                s,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"18\" height=\"18\" fill=\"#d4af37\" stroke=\"#5a4a1a\" stroke-width=\"1.5\"/>",
                cx - 9.0,
                cy - 9.0
            );
        } else {
            let (fill, stroke) = match x.owner {
                Some(o) => (seat_colour(o).to_owned(), "#fff"),
                None => ("#fbf8f1".to_owned(), "#6f6553"),
            };
            let _ = write!(
                s,
                "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"8\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.2\"/>"
            );
            if x.owner.is_some() {
                let _ = write!(
                    s,
                    "<text x=\"{cx:.1}\" y=\"{:.1}\" font-size=\"9\" text-anchor=\"middle\" fill=\"#fff\" font-weight=\"bold\">{}</text>",
                    cy + 3.2,
                    x.value
                );
            }
        }
        let _ = write!(
            s,
            "<text x=\"{cx:.1}\" y=\"{:.1}\" font-size=\"6.5\" text-anchor=\"middle\" fill=\"#2b2620\">{}</text>",
            cy + 15.0,
            esc(&x.name)
        );
        if home.is_some() {
            let _ = write!(
                s,
                "<path class=\"home\" d=\"M{:.1},{:.1} l5,-5 l5,5 v5 h-10 z\" fill=\"#fffaf0\" stroke=\"#4a3f30\" stroke-width=\"1\"/>",
                cx + 6.0,
                cy - 6.0
            );
        }
        s.push_str("</g>");
    }
    for (e, edge) in view.edges.iter().enumerate() {
        let (a, b) = (edge.districts[0], edge.districts[1]);
        let (Some(p), Some(q)) = (spot.get(a), spot.get(b)) else { continue };
        let (x, y) = ((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0);
        let names = format!("{}–{}", view.districts[a].name, view.districts[b].name);
        let _ = write!(
            s,
            "<g class=\"edge\" data-edge=\"{e}\"><title>{}: {}</title>",
            esc(&names),
            esc(&men_words(&edge.thingmen, seats))
        );
        let men: Vec<(u8, u8)> =
            edge.thingmen.iter().enumerate().filter(|(_, n)| **n > 0).map(|(s, n)| (s as u8, *n)).collect();
        if men.is_empty() {
            let _ = write!(
                s,
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"2\" fill=\"#fff\" stroke=\"#6f6553\" stroke-width=\"0.8\"/>"
            );
        } else {
            disks(s, x, y, &men);
        }
        s.push_str("</g>");
    }
}

/// The four Laws at Thingvellir: statutes bottom to top, the token, the suits.
fn laws(s: &mut String, view: &View, seats: &[String]) {
    let (x0, y0, w) = (652.0, 8.0, 340.0);
    let _ = write!(
        s,
        "<g class=\"althing\"><rect x=\"{x0}\" y=\"{y0}\" width=\"{w}\" height=\"464\" rx=\"8\" fill=\"#f1ebdc\" stroke=\"#9c9282\"/>\
<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"15\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#2b2620\">The Althing at Thingvellir</text>\
<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\" fill=\"#2b2620\">Round {} · {}</text>",
        x0 + w / 2.0,
        y0 + 22.0,
        x0 + w / 2.0,
        y0 + 40.0,
        view.round,
        esc(phase_words(view.phase))
    );
    let col = w / view.laws.len().max(1) as f64;
    let rows = view.laws.iter().map(|l| l.statutes.len()).max().unwrap_or(3).max(1);
    let (top, box_h) = (y0 + 86.0, 62.0);
    for (li, law) in view.laws.iter().enumerate() {
        let cx = x0 + col * (li as f64 + 0.5);
        let paint = colour_paint(&law.colour);
        let short = law.name.strip_prefix("Law of ").unwrap_or(&law.name);
        let _ = write!(
            s,
            "<g class=\"law\" data-law=\"{li}\"><title>{}</title><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"20\" rx=\"4\" fill=\"{paint}\"/>\
<text x=\"{cx:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\" fill=\"#fff\" font-weight=\"bold\">{}</text>",
            esc(&law.name),
            cx - col / 2.0 + 4.0,
            top - 30.0,
            col - 8.0,
            top - 16.0,
            esc(short)
        );
        for (lv, (action, bonus)) in law.statutes.iter().enumerate() {
            let y = top + box_h * (rows - 1 - lv) as f64;
            let token = view.token == Some((li, lv));
            let _ = write!(
                s,
                "<g class=\"statute\" data-statute=\"{li}-{lv}\"><rect x=\"{:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"4\" fill=\"#fffdf7\" stroke=\"{}\" stroke-width=\"{}\"/>\
<text x=\"{cx:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\" fill=\"#2b2620\">{}{}</text>",
                cx - col / 2.0 + 6.0,
                col - 12.0,
                box_h - 8.0,
                if token { "#2b2620" } else { paint },
                if token { "3" } else { "1.2" },
                y + 17.0,
                action.name(),
                if *bonus > 0 { format!(" +{bonus}") } else { String::new() }
            );
            if token {
                let _ = write!(
                    s,
                    "<g class=\"token\"><title>The Lawspeaker's token: {} proposed</title><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"9\" fill=\"#d4af37\" stroke=\"#5a4a1a\" stroke-width=\"1.2\"/>\
<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#2b2620\" font-weight=\"bold\">L</text></g>",
                    action.name(),
                    cx - col / 2.0 + 16.0,
                    y + 36.0,
                    cx - col / 2.0 + 16.0,
                    y + 39.5
                );
            }
            // The Thingmen suing on this statute.
            let suers: Vec<(u8, u8)> = view
                .players
                .iter()
                .filter(|p| p.vote == Some(Vote::Sue { law: li, level: lv }))
                .map(|p| (p.seat, p.thingvellir.max(1)))
                .collect();
            if !suers.is_empty() {
                disks(s, cx + 6.0, y + 36.0, &suers);
            }
            s.push_str("</g>");
        }
        s.push_str("</g>");
    }
    // The votes and the Thingmen at Thingvellir.
    let mut y = top + box_h * rows as f64 + 8.0;
    let _ = write!(
        s,
        "<text x=\"{:.1}\" y=\"{y:.1}\" font-size=\"12\" fill=\"#2b2620\">Lawspeaker: {}</text>",
        x0 + 10.0,
        esc(&who(seats, view.lawspeaker))
    );
    for p in &view.players {
        y += 17.0;
        let vote = match p.vote {
            Some(Vote::Support) => "supports".to_owned(),
            Some(Vote::Sue { law, level }) => {
                let a = view.laws.get(law).and_then(|l| l.statutes.get(level)).map_or("?", |x| x.0.name());
                format!("sues for {a}")
            }
            None if view.phase == Phase::Vote => "has not voted".to_owned(),
            None => String::new(),
        };
        let _ = write!(
            s,
            "<g class=\"at-thingvellir\" data-seat=\"{}\"><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"{}\"/>\
<text x=\"{:.1}\" y=\"{y:.1}\" font-size=\"12\" fill=\"#2b2620\">{}: {} Thingman at Thingvellir{}</text></g>",
            p.seat,
            x0 + 16.0,
            y - 4.0,
            seat_colour(p.seat),
            x0 + 26.0,
            esc(&who(seats, p.seat)),
            p.thingvellir,
            if vote.is_empty() { String::new() } else { format!(", {vote}") }
        );
    }
    s.push_str("</g>");
}

/// The Fame of Deeds (Wordfame 0–22) and The Sheep Hunt (farms per colour).
fn tracks(s: &mut String, view: &View, seats: &[String]) {
    let d = data();
    let (x0, y0) = (8.0, 492.0);
    let cell = 984.0 / 23.0;
    let _ = write!(
        s,
        "<g class=\"track fame\"><text x=\"{x0}\" y=\"{:.1}\" font-size=\"13\" font-weight=\"bold\" fill=\"#2b2620\">The Fame of Deeds (first to 22 Wordfame)</text>",
        y0 + 4.0
    );
    for k in 0..=22 {
        let x = x0 + cell * k as f64;
        let _ = write!(
            s,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"34\" fill=\"{}\" stroke=\"#9c9282\"/>\
<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" fill=\"#6f6553\">{k}</text>",
            y0 + 10.0,
            cell,
            if k == 22 { "#f4e3a1" } else { "#fffdf7" },
            x + 2.0,
            y0 + 19.0
        );
    }
    for k in 0..=22i32 {
        let here: Vec<(u8, u8)> = view
            .players
            .iter()
            .filter(|p| p.wordfame.clamp(0, 22) == k)
            .map(|p| (p.seat, p.wordfame.max(0) as u8))
            .collect();
        for (j, (seat, fame)) in here.iter().enumerate() {
            let x = x0 + cell * k as f64 + 8.0 + (j % 3) as f64 * 12.0;
            let y = y0 + 27.0 + (j / 3) as f64 * 10.0;
            let _ = write!(
                s,
                "<circle data-fame=\"{seat}\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"5.5\" fill=\"{}\" stroke=\"#fff\"><title>{}: {fame} Wordfame</title></circle>",
                seat_colour(*seat),
                esc(&who(seats, *seat))
            );
        }
    }
    s.push_str("</g>");

    // The Sheep Hunt: a row per colour, farms 0 to 10 and more.
    let y1 = y0 + 66.0;
    let cols = 11usize;
    let (lx, cw, rh) = (92.0, (984.0 - 84.0) / cols as f64, 30.0);
    let _ = write!(
        s,
        "<g class=\"track hunt\"><text x=\"{x0}\" y=\"{y1:.1}\" font-size=\"13\" font-weight=\"bold\" fill=\"#2b2620\">The Sheep Hunt (farms per colour; the Bondi of a colour act at the strength above)</text>"
    );
    for c in 0..cols {
        let farms = c as u8;
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9.5\" text-anchor=\"middle\" fill=\"#6f6553\">{}{} · str {}</text>",
            lx + cw * (c as f64 + 0.5),
            y1 + 16.0,
            c,
            if c == cols - 1 { "+" } else { "" },
            d.strength(farms)
        );
    }
    for (ci, colour) in d.colours.iter().enumerate() {
        let y = y1 + 22.0 + rh * ci as f64;
        let _ = write!(
            s,
            "<rect x=\"{x0}\" y=\"{y:.1}\" width=\"80\" height=\"{:.1}\" fill=\"{}\"/>\
<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#fff\" font-weight=\"bold\">{}</text>",
            rh - 2.0,
            colour_paint(colour),
            x0 + 6.0,
            y + 18.0,
            esc(colour)
        );
        for c in 0..cols {
            let _ = write!(
                s,
                "<rect x=\"{:.1}\" y=\"{y:.1}\" width=\"{cw:.1}\" height=\"{:.1}\" fill=\"#fffdf7\" stroke=\"#d8d0bf\"/>",
                lx + cw * c as f64,
                rh - 2.0
            );
        }
        for (j, p) in view.players.iter().enumerate() {
            let farms = p.farms.get(ci).copied().unwrap_or(0) as usize;
            let x = lx + cw * (farms.min(cols - 1) as f64) + 9.0 + (j % 6) as f64 * 12.5;
            let _ = write!(
                s,
                "<circle data-hunt=\"{}-{ci}\" cx=\"{x:.1}\" cy=\"{:.1}\" r=\"5.5\" fill=\"{}\" stroke=\"#fff\"><title>{}: {farms} {} farm(s)</title></circle>",
                p.seat,
                y + rh / 2.0 - 1.0,
                seat_colour(p.seat),
                esc(&who(seats, p.seat)),
                esc(colour)
            );
        }
    }
    s.push_str("</g>");
}

/// The gothar: colour, name, Wordfame and what stands in their hof.
fn legend(s: &mut String, view: &View, seats: &[String]) {
    let y0 = 712.0;
    let n = view.players.len().max(1);
    let w = 984.0 / n.min(3) as f64;
    s.push_str("<g class=\"legend\">");
    for (k, p) in view.players.iter().enumerate() {
        let x = 8.0 + w * (k % 3) as f64;
        let y = y0 + 42.0 * (k / 3) as f64;
        let mut line2 =
            format!("Longhall {} · slain {} · Goods {} · Bondi {}", p.longhall, p.slain, p.wealth.len(), p.oaths.len());
        if p.out {
            line2 = "out of the game: no District left".into();
        } else if p.outlawed {
            line2.push_str(" · outlawed");
        }
        let _ = write!(
            s,
            "<g data-legend=\"{}\"><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"14\" height=\"14\" rx=\"3\" fill=\"{}\"/>\
<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12.5\" font-weight=\"bold\" fill=\"#2b2620\">{}{} · {} Wordfame</text>\
<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#4a4033\">{}</text></g>",
            p.seat,
            seat_colour(p.seat),
            x + 20.0,
            y + 12.0,
            esc(&who(seats, p.seat)),
            if p.seat == view.lawspeaker { " (Lawspeaker)" } else { "" },
            p.wordfame,
            x + 20.0,
            y + 28.0,
            esc(&line2)
        );
    }
    s.push_str("</g>");
}

/// What a seat has, in words, for the tables.
fn goods_words(worths: &[u8]) -> String {
    if worths.is_empty() {
        return "none".into();
    }
    let v: Vec<String> = worths.iter().map(|w| format!("Worth {w}")).collect();
    v.join(", ")
}

pub fn text(view: &View, seats: &[String]) -> Option<String> {
    let homes = homes(view, data().map_of(view.rules_version));
    let mut h = String::from("<div class=\"view-text\">");
    let _ = write!(
        h,
        "<p>Round {}: {}. Lawspeaker: {}.</p>",
        view.round,
        esc(phase_words(view.phase)),
        esc(&who(seats, view.lawspeaker))
    );
    if let Some(step) = &view.current {
        let _ = write!(
            h,
            "<p>{} resolves {} at strength {}.</p>",
            esc(&who(seats, step.seat)),
            step.action.name(),
            step.strength
        );
    }
    // The gothar.
    h.push_str(
        "<table class=\"view-seats\"><caption>The gothar</caption><thead><tr><th scope=\"col\">Gothi</th>\
<th scope=\"col\">Wordfame</th><th scope=\"col\">Farms (green, blue, gold, red)</th><th scope=\"col\">Longhall</th>\
<th scope=\"col\">Slain</th><th scope=\"col\">At sea</th><th scope=\"col\">At Thingvellir</th><th scope=\"col\">Vote</th>\
<th scope=\"col\">Goods</th><th scope=\"col\">Bondi</th><th scope=\"col\">Hird</th></tr></thead><tbody>",
    );
    for p in &view.players {
        let bondi: Vec<String> = p.oaths.iter().map(|b| format!("{} ({})", b.action.name(), b.colour)).collect();
        let hird: Vec<String> = p.hird.iter().filter_map(|c| c.persona.clone()).collect();
        let vote = match p.vote {
            Some(Vote::Support) => "supports".to_owned(),
            Some(Vote::Sue { law, level }) => view
                .laws
                .get(law)
                .and_then(|l| l.statutes.get(level).map(|x| format!("sues for {} on the {}", x.0.name(), l.name)))
                .unwrap_or_else(|| "sues".into()),
            None => "—".into(),
        };
        let mut name = who(seats, p.seat);
        if p.out {
            name.push_str(" (out)");
        }
        if p.outlawed {
            name.push_str(" (outlawed)");
        }
        let _ = write!(
            h,
            "<tr data-seat=\"{}\"><th scope=\"row\"><span class=\"seat-dot seat-{}\"></span>{}</th><td>{}</td><td>{}</td>\
<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            p.seat,
            p.seat % 6,
            esc(&name),
            p.wordfame,
            p.farms.iter().map(u8::to_string).collect::<Vec<_>>().join(", "),
            p.longhall,
            p.slain,
            p.at_sea,
            p.thingvellir,
            esc(&vote),
            esc(&goods_words(&p.wealth.iter().map(|g| g.worth).collect::<Vec<_>>())),
            esc(&if bondi.is_empty() { "none".into() } else { bondi.join(", ") }),
            esc(&if hird.is_empty() { "none".into() } else { hird.join(", ") }),
        );
    }
    h.push_str("</tbody></table>");
    // The Districts.
    h.push_str(
        "<table class=\"view-areas\"><caption>Districts of Iceland</caption><thead><tr><th scope=\"col\">District</th>\
<th scope=\"col\">Held by</th><th scope=\"col\">Stead value</th><th scope=\"col\">Home stead of</th></tr></thead><tbody>",
    );
    for (i, x) in view.districts.iter().enumerate() {
        let home = homes.iter().find(|h| h.0 == i).map_or("—".to_owned(), |h| who(seats, h.1));
        let _ = write!(
            h,
            "<tr data-area-row=\"district-{i}\"><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&x.name),
            esc(&x.owner.map_or("—".to_owned(), |o| who(seats, o))),
            if x.owner.is_some() { x.value.to_string() } else { "—".into() },
            esc(&home)
        );
    }
    h.push_str("</tbody></table>");
    // Thingmen on the edges.
    let manned: Vec<String> = view
        .edges
        .iter()
        .filter(|e| e.thingmen.iter().any(|n| *n > 0))
        .filter_map(|e| {
            let a = view.districts.get(e.districts[0])?;
            let b = view.districts.get(e.districts[1])?;
            Some(format!("<li>{}–{}: {}</li>", esc(&a.name), esc(&b.name), esc(&men_words(&e.thingmen, seats))))
        })
        .collect();
    let _ = write!(
        h,
        "<h3>Thingmen on the edges</h3>{}",
        if manned.is_empty() { "<p>None.</p>".to_owned() } else { format!("<ul>{}</ul>", manned.concat()) }
    );
    // The Laws.
    h.push_str("<h3>The four Laws</h3><ul>");
    for (li, l) in view.laws.iter().enumerate() {
        let st: Vec<String> = l
            .statutes
            .iter()
            .enumerate()
            .map(|(lv, (a, b))| {
                let mut w = a.name().to_owned();
                if *b > 0 {
                    let _ = write!(w, " (+{b})");
                }
                if view.token == Some((li, lv)) {
                    w.push_str(" [the Lawspeaker's token]");
                }
                w
            })
            .collect();
        let _ = write!(h, "<li>{} ({}), bottom to top: {}</li>", esc(&l.name), esc(&l.colour), esc(&st.join(", ")));
    }
    h.push_str("</ul>");
    // The Foster pool.
    let pool: Vec<String> = view.pool.iter().flatten().map(|c| c.persona_label()).collect();
    let _ = write!(
        h,
        "<p>Personae to foster: {}. The orlog holds {} cards; the Doom {}.</p>",
        esc(&if pool.is_empty() { "none".into() } else { pool.join(", ") }),
        view.orlog,
        view.doom
    );
    if let Some(f) = &view.feud {
        let edge = view
            .edges
            .get(f.edge)
            .and_then(|e| {
                Some(format!(
                    "{}–{}",
                    view.districts.get(e.districts[0])?.name,
                    view.districts.get(e.districts[1])?.name
                ))
            })
            .unwrap_or_default();
        let conflicts: Vec<String> = f
            .conflicts
            .iter()
            .map(|c| {
                format!(
                    "{}: {} against {}{}",
                    c.colour,
                    c.worth[0],
                    c.worth[1],
                    if c.settled { " (settled)" } else { "" }
                )
            })
            .collect();
        let _ = write!(
            h,
            "<p id=\"feud-words\">A feud on {}: {} ({} Thingmen) against {} ({} Thingmen). Conflicts: {}.</p>",
            esc(&edge),
            esc(&who(seats, f.sides[0])),
            f.thingmen[0],
            esc(&who(seats, f.sides[1])),
            f.thingmen[1],
            esc(&if conflicts.is_empty() { "none yet".into() } else { conflicts.join("; ") })
        );
    }
    h.push_str("</div>");
    Some(h)
}

/// A statute in words: "Settle (+2) on the Law of the Land".
pub fn statute_words(view: &View, law: usize, level: usize) -> String {
    view.laws
        .get(law)
        .and_then(|l| {
            l.statutes.get(level).map(|(a, b): &(Action, u8)| {
                format!("{}{} on the {}", a.name(), if *b > 0 { format!(" (+{b})") } else { String::new() }, l.name)
            })
        })
        .unwrap_or_else(|| "a statute".into())
}
