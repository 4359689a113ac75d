//! The board as the players see it: the modular map tiles, every city
//! tinted by its owner with its units, resource, port, building and temple;
//! roads, navigation routes and the numbered invasion arrows round the edge;
//! below the map each kingdom's tracks, glory and victories, the trophy
//! stacks and a legend. The text alternative tells the same in tables.

use std::fmt::Write as _;

use runestone_engine::present::{esc, seat_colour, seat_name, Area};
use runestone_engine::Seat;

use crate::data::{Resource, Shape};
use crate::state::{Phase, Step, TRACK};
use crate::view::View;

/// One grid cell of the map (a tile is 3 by 2 cells).
const W: f64 = 150.0;
const H: f64 = 120.0;
/// Room round the map for the invasion arrows.
const M: f64 = 46.0;
/// The heading above the map.
const TOP: f64 = 44.0;

fn centre(at: [u8; 2]) -> (f64, f64) {
    (M + (at[0] as f64 + 0.5) * W, TOP + M + (at[1] as f64 + 0.5) * H)
}

/// The map's size in cells.
fn grid(v: &View) -> (f64, f64) {
    let cols = v.board.tiles.iter().map(|t| t.2 + 1).max().unwrap_or(1) as f64;
    let rows = v.board.tiles.iter().map(|t| t.3 + 1).max().unwrap_or(1) as f64;
    (cols * 3.0, rows * 2.0)
}

pub fn resource_words(r: Option<Resource>, s: Option<Shape>) -> String {
    match r {
        None => "no resource".into(),
        Some(r) => format!(
            "{} ({})",
            match r {
                Resource::Metal => "metal",
                Resource::Wood => "wood",
                Resource::Wheat => "wheat",
            },
            match s {
                Some(Shape::Circle) => "circle: a free point",
                _ => "square: a point on its track",
            }
        ),
    }
}

fn resource_paint(r: Resource) -> (&'static str, &'static str) {
    match r {
        Resource::Metal => ("#7b7d7d", "M"),
        Resource::Wood => ("#27613a", "W"),
        Resource::Wheat => ("#c79a12", "G"),
    }
}

/// What the turn is at, in words: the round, whose phase, the step.
pub fn turn_words(v: &View, seats: &[String]) -> String {
    let who = |k: Seat| seat_name(seats, k);
    match v.phase {
        Phase::Setup => "Setting up".into(),
        Phase::ChooseGods => "Setup: every player chooses a god in secret".into(),
        Phase::Placement => "Setup: players place their starting units in turn".into(),
        Phase::Programs => format!("Turn {} · every player gives the program of their turn", v.turn),
        Phase::Players => format!(
            "Turn {} · {}'s player phase · {}",
            v.turn,
            who(v.current),
            match v.step {
                Step::God => "god's ability",
                Step::Produce => "production",
                Step::Take => "taking knowledge and buildings",
                Step::Place => "placing units and buildings",
                Step::Move => "movement and battles",
            }
        ),
        Phase::Invasion => format!("Turn {} · invasion phase", v.turn),
        Phase::Over => "The game is over".into(),
    }
}

pub fn areas(v: &View, _seats: &[String]) -> Vec<Area> {
    v.cities.iter().enumerate().map(|(k, c)| Area { id: format!("city-{k}"), owner: c.owner }).collect()
}

pub fn svg(v: &View, seats: &[String]) -> Option<String> {
    if v.board.cities.is_empty() {
        return None;
    }
    let (gw, gh) = grid(v);
    let (mw, mh) = (gw * W + 2.0 * M, gh * H + 2.0 * M);
    let mut s = String::new();
    let _ = write!(
        s,
        "<rect x=\"0\" y=\"0\" width=\"{mw:.0}\" height=\"{:.0}\" fill=\"#fbf8f1\"/>\
<text class=\"turn\" x=\"{M:.0}\" y=\"30\" font-size=\"24\" font-weight=\"bold\" fill=\"#222\">{}</text>\
<rect x=\"0\" y=\"{TOP:.0}\" width=\"{mw:.0}\" height=\"{mh:.0}\" fill=\"#9ec9e2\"/>",
        TOP + mh,
        esc(&turn_words(v, seats))
    );
    // The modular tiles.
    for (id, side, col, row) in &v.board.tiles {
        let (x, y) = (M + *col as f64 * 3.0 * W, TOP + M + *row as f64 * 2.0 * H);
        let _ = write!(
            s,
            "<g class=\"tile\" data-tile=\"{id}{side}\"><title>Map tile {id}, side {side}</title>\
<rect x=\"{:.0}\" y=\"{:.0}\" width=\"{:.0}\" height=\"{:.0}\" rx=\"10\" fill=\"#e9dfc4\" stroke=\"#8a7a55\" stroke-width=\"2\"/>\
<text x=\"{:.0}\" y=\"{:.0}\" font-size=\"15\" fill=\"#8a7a55\">tile {id}{side}</text></g>",
            x + 3.0,
            y + 3.0,
            3.0 * W - 6.0,
            2.0 * H - 6.0,
            x + 10.0,
            y + 2.0 * H - 10.0
        );
    }
    // Navigation routes (curved, dashed) and roads.
    for &(a, b) in &v.board.routes {
        let (Some(ca), Some(cb)) = (v.board.cities.get(a as usize), v.board.cities.get(b as usize)) else { continue };
        let ((x1, y1), (x2, y2)) = (centre(ca.at), centre(cb.at));
        let (mx, my) = ((x1 + x2) / 2.0, (y1 + y2) / 2.0);
        let len = ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt().max(1.0);
        let (qx, qy) = (mx - (y2 - y1) / len * 28.0, my + (x2 - x1) / len * 28.0);
        let _ = write!(
            s,
            "<path class=\"route\" d=\"M{x1:.0},{y1:.0} Q{qx:.0},{qy:.0} {x2:.0},{y2:.0}\" fill=\"none\" stroke=\"#1f5f99\" stroke-width=\"3\" stroke-dasharray=\"9 6\"><title>Navigation route between {} and {}</title></path>",
            esc(&ca.name),
            esc(&cb.name)
        );
    }
    for &(a, b) in &v.board.roads {
        let (Some(ca), Some(cb)) = (v.board.cities.get(a as usize), v.board.cities.get(b as usize)) else { continue };
        let ((x1, y1), (x2, y2)) = (centre(ca.at), centre(cb.at));
        let _ = write!(
            s,
            "<line class=\"road\" x1=\"{x1:.0}\" y1=\"{y1:.0}\" x2=\"{x2:.0}\" y2=\"{y2:.0}\" stroke=\"#8b5a2b\" stroke-width=\"6\" stroke-linecap=\"round\"><title>Road between {} and {}</title></line>",
            esc(&ca.name),
            esc(&cb.name)
        );
    }
    // Invasion arrows, numbered in order round the edge.
    let (right, bottom) = (M + gw * W, TOP + M + gh * H);
    for (k, p) in v.board.paths.iter().enumerate() {
        let Some(c) = v.board.cities.get(p.city as usize) else { continue };
        let (cx, cy) = centre(c.at);
        let shift = if p.sea { 22.0 } else { -22.0 };
        let (x1, y1, x2, y2) = match p.edge.as_str() {
            "n" => (cx + shift, TOP + 6.0, cx + shift, TOP + M + 10.0),
            "s" => (cx + shift, bottom + M - 6.0, cx + shift, bottom - 10.0),
            "w" => (6.0, cy + shift, M + 10.0, cy + shift),
            _ => (right + M - 6.0, cy + shift, right - 10.0, cy + shift),
        };
        let paint = if p.sea { "#1f5f99" } else { "#8b5a2b" };
        let (dx, dy) = ((x2 - x1).signum(), (y2 - y1).signum());
        let head = format!(
            "{:.0},{:.0} {:.0},{:.0} {:.0},{:.0}",
            x2,
            y2,
            x2 - dx * 12.0 + dy * 8.0,
            y2 - dy * 12.0 + dx * 8.0,
            x2 - dx * 12.0 - dy * 8.0,
            y2 - dy * 12.0 - dx * 8.0
        );
        let _ = write!(
            s,
            "<g class=\"invasion-arrow\" data-path=\"{k}\"><title>Invasion arrow {} ({}) into {}</title>\
<line x1=\"{x1:.0}\" y1=\"{y1:.0}\" x2=\"{x2:.0}\" y2=\"{y2:.0}\" stroke=\"{paint}\" stroke-width=\"4\" stroke-opacity=\"0.55\"/>\
<polygon points=\"{head}\" fill=\"{paint}\" fill-opacity=\"0.55\"/>\
<text x=\"{:.0}\" y=\"{:.0}\" font-size=\"15\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"{paint}\">{}</text></g>",
            k + 1,
            if p.sea { "by sea" } else { "by land" },
            esc(&c.name),
            (x1 + x2) / 2.0 + if dy == 0.0 { 0.0 } else { 12.0 },
            (y1 + y2) / 2.0 + if dy == 0.0 { -8.0 } else { 5.0 },
            k + 1
        );
    }
    // The cities.
    for (k, (c, st)) in v.board.cities.iter().zip(&v.cities).enumerate() {
        let (cx, cy) = centre(c.at);
        let (x, y) = (cx - 66.0, cy - 40.0);
        let (fill, stroke, owner_attr, held) = match st.owner {
            Some(o) => (
                seat_colour(o),
                seat_colour(o),
                format!(" data-owner=\"{o}\""),
                format!("held by {} with {} units", seat_name(seats, o), st.units),
            ),
            None => ("#ffffff", "#555555", String::new(), "empty".to_string()),
        };
        let mut what = vec![held, resource_words(c.resource, c.shape)];
        if c.port {
            what.push("a port".into());
        }
        if let Some(b) = &st.building {
            what.push(format!("a {b}"));
        }
        if let Some(t) = st.temple {
            what.push(format!("the temple of {}", seat_name(seats, t)));
        }
        let _ = write!(
            s,
            "<g class=\"city\" data-area=\"city-{k}\"{owner_attr} data-units=\"{}\" data-near=\"{}\"><title>{}: {}</title>\
<rect x=\"{x:.0}\" y=\"{y:.0}\" width=\"132\" height=\"80\" rx=\"8\" fill=\"#ffffff\"/>\
<rect x=\"{x:.0}\" y=\"{y:.0}\" width=\"132\" height=\"80\" rx=\"8\" fill=\"{fill}\" fill-opacity=\"{}\" stroke=\"{stroke}\" stroke-width=\"3\"/>\
<text x=\"{cx:.0}\" y=\"{:.0}\" font-size=\"16\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#111\">{}</text>",
            st.units,
            v.board.adjacent(k as u8).iter().map(u8::to_string).collect::<Vec<_>>().join(" "),
            esc(&c.name),
            esc(&what.join(", ")),
            if st.owner.is_some() { "0.3" } else { "1" },
            y + 19.0,
            esc(&c.name)
        );
        if let Some(r) = c.resource {
            let (paint, mark) = resource_paint(r);
            let (rx, ry) = (x + 16.0, y + 44.0);
            if c.shape == Some(Shape::Circle) {
                let _ =
                    write!(s, "<circle class=\"resource\" cx=\"{rx:.0}\" cy=\"{ry:.0}\" r=\"11\" fill=\"{paint}\"/>");
            } else {
                let _ = write!(
                    s,
                    "<rect class=\"resource\" x=\"{:.0}\" y=\"{:.0}\" width=\"22\" height=\"22\" fill=\"{paint}\"/>",
                    rx - 11.0,
                    ry - 11.0
                );
            }
            let _ = write!(
                s,
                "<text x=\"{rx:.0}\" y=\"{:.0}\" font-size=\"14\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#fff\">{mark}</text>",
                ry + 5.0
            );
        }
        if c.port {
            let _ = write!(
                s,
                "<g class=\"port\"><circle cx=\"{:.0}\" cy=\"{:.0}\" r=\"11\" fill=\"#1f5f99\"/><text x=\"{:.0}\" y=\"{:.0}\" font-size=\"13\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#fff\">P</text></g>",
                x + 16.0,
                y + 68.0,
                x + 16.0,
                y + 73.0
            );
        }
        if let Some(o) = st.owner {
            let _ = write!(
                s,
                "<g class=\"units\" data-seat=\"{o}\"><circle cx=\"{cx:.0}\" cy=\"{:.0}\" r=\"17\" fill=\"{}\" stroke=\"#fff\" stroke-width=\"2\"/>\
<text x=\"{cx:.0}\" y=\"{:.0}\" font-size=\"18\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#fff\">{}</text></g>",
                y + 50.0,
                seat_colour(o),
                y + 56.0,
                st.units
            );
        }
        if let Some(b) = &st.building {
            let _ = write!(
                s,
                "<g class=\"building\"><rect x=\"{:.0}\" y=\"{:.0}\" width=\"24\" height=\"22\" fill=\"#5d4037\"/>\
<text x=\"{:.0}\" y=\"{:.0}\" font-size=\"14\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#fff\">{}</text></g>",
                x + 100.0,
                y + 28.0,
                x + 112.0,
                y + 44.0,
                esc(&b.chars().next().unwrap_or('?').to_string())
            );
        }
        if let Some(t) = st.temple {
            let _ = write!(
                s,
                "<g class=\"temple\" data-seat=\"{t}\"><polygon points=\"{:.0},{:.0} {:.0},{:.0} {:.0},{:.0}\" fill=\"{}\" stroke=\"#fff\" stroke-width=\"2\"/></g>",
                x + 112.0,
                y + 52.0,
                x + 100.0,
                y + 74.0,
                x + 124.0,
                y + 74.0,
                seat_colour(t)
            );
        }
        s.push_str("</g>");
    }

    // The kingdoms: tracks, glory, victories; the trophies; the legend.
    let mut y = TOP + mh + 34.0;
    let _ = write!(
        s,
        "<text x=\"{M:.0}\" y=\"{y:.0}\" font-size=\"20\" font-weight=\"bold\" fill=\"#222\">Kingdoms · production tracks (unit 3, building 6, knowledge 9)</text>"
    );
    y += 12.0;
    for (k, p) in v.players.iter().enumerate() {
        let seat = k as Seat;
        let row = y + 8.0 + k as f64 * 64.0;
        let turn = (v.phase == Phase::Players && v.current == seat) || v.invasion_order.first() == Some(&seat);
        let _ = write!(
            s,
            "<g class=\"kingdom\" data-seat=\"{k}\"><rect x=\"{M:.0}\" y=\"{row:.0}\" width=\"{:.0}\" height=\"58\" rx=\"6\" fill=\"{}\" fill-opacity=\"0.15\" stroke=\"{}\" stroke-width=\"{}\"/>\
<text x=\"{:.0}\" y=\"{:.0}\" font-size=\"17\" font-weight=\"bold\" fill=\"{}\">{}{}</text>\
<text x=\"{:.0}\" y=\"{:.0}\" font-size=\"16\" fill=\"#222\">{}</text>",
            mw - 2.0 * M,
            seat_colour(seat),
            seat_colour(seat),
            if turn && v.phase == Phase::Players { 4 } else { 1 },
            M + 10.0,
            row + 23.0,
            seat_colour(seat),
            esc(&seat_name(seats, seat)),
            p.god.as_ref().map(|g| format!(" ({g})")).unwrap_or_default(),
            M + 260.0,
            row + 23.0,
            esc(&format!(
                "glory {} · victories {} · cities {} · units {} · rumors {}",
                p.glory.map_or("hidden".to_string(), |g| g.to_string()),
                p.victories,
                p.cities,
                p.units_on_board,
                p.rumors.len()
            )),
        );
        for (t, (name, size)) in
            [("unit", TRACK[0]), ("building", TRACK[1]), ("knowledge", TRACK[2])].iter().enumerate()
        {
            let tx = M + 10.0 + t as f64 * 290.0;
            let _ = write!(
                s,
                "<g class=\"track\" data-track=\"{name}\"><title>{name} track: {} of {size}</title>\
<text x=\"{tx:.0}\" y=\"{:.0}\" font-size=\"15\" fill=\"#222\">{name} {}/{size}</text>",
                p.tracks[t],
                row + 47.0,
                p.tracks[t]
            );
            for box_ in 0..*size {
                let filled = box_ < p.tracks[t];
                let _ = write!(
                    s,
                    "<rect x=\"{:.0}\" y=\"{:.0}\" width=\"12\" height=\"18\" fill=\"{}\" stroke=\"#444\" stroke-width=\"1\"/>",
                    tx + 120.0 + box_ as f64 * 14.0,
                    row + 32.0,
                    if filled { seat_colour(seat) } else { "#fff" }
                );
            }
            s.push_str("</g>");
        }
        s.push_str("</g>");
    }
    y += 8.0 + v.players.len() as f64 * 64.0 + 30.0;
    let knowledge = v.knowledge_left as usize + v.knowledge_shown.len();
    let buildings = v.buildings_left as usize + v.buildings_shown.len();
    let _ = write!(
        s,
        "<g class=\"trophies\"><text x=\"{M:.0}\" y=\"{y:.0}\" font-size=\"16\" fill=\"#222\"><tspan font-weight=\"bold\">Trophies left:</tspan> \
knowledge {knowledge} · buildings {buildings} · rumors {}{} (two kinds gone end the game)</text></g>",
        v.rumors_left,
        v.rumor_top.map(|r| format!(", top worth {r}")).unwrap_or_default()
    );
    y += 34.0;
    let cols = if mw < 1100.0 { 2 } else { 3 };
    let legend = [
        ("<rect x=\"0\" y=\"-12\" width=\"18\" height=\"14\" fill=\"#9e9e9e\" fill-opacity=\"0.35\" stroke=\"#555\" stroke-width=\"2\"/>", "city, tinted by its owner"),
        ("<circle cx=\"9\" cy=\"-5\" r=\"9\" fill=\"#555\"/>", "units in it"),
        ("<rect x=\"0\" y=\"-14\" width=\"16\" height=\"16\" fill=\"#7b7d7d\"/>", "square resource (M metal, W wood, G wheat)"),
        ("<circle cx=\"8\" cy=\"-6\" r=\"8\" fill=\"#c79a12\"/>", "circle resource: a free point"),
        ("<circle cx=\"8\" cy=\"-6\" r=\"8\" fill=\"#1f5f99\"/>", "P port"),
        ("<rect x=\"0\" y=\"-14\" width=\"16\" height=\"16\" fill=\"#5d4037\"/>", "building (B barrack, W workshop, F farm)"),
        ("<polygon points=\"8,-16 0,2 16,2\" fill=\"#555\"/>", "temple"),
        ("<line x1=\"0\" y1=\"-5\" x2=\"22\" y2=\"-5\" stroke=\"#8b5a2b\" stroke-width=\"5\"/>", "road"),
        ("<line x1=\"0\" y1=\"-5\" x2=\"22\" y2=\"-5\" stroke=\"#1f5f99\" stroke-width=\"3\" stroke-dasharray=\"6 4\"/>", "navigation route"),
        ("<polygon points=\"22,-5 10,-12 10,2\" fill=\"#8b5a2b\" fill-opacity=\"0.55\"/>", "numbered invasion arrow"),
    ];
    let _ = write!(s, "<g class=\"legend\"><text x=\"{M:.0}\" y=\"{y:.0}\" font-size=\"16\" font-weight=\"bold\" fill=\"#222\">Legend</text>");
    for (i, (mark, words)) in legend.iter().enumerate() {
        let (lx, ly) = (M + (i % cols) as f64 * (mw - 2.0 * M) / cols as f64, y + 28.0 + (i / cols) as f64 * 26.0);
        let _ = write!(
            s,
            "<g transform=\"translate({lx:.0},{ly:.0})\">{mark}<text x=\"28\" y=\"0\" font-size=\"15\" fill=\"#222\">{}</text></g>",
            esc(words)
        );
    }
    s.push_str("</g>");
    let height = y + 28.0 + legend.len().div_ceil(cols) as f64 * 26.0;
    let desc = format!(
        "{}. A map of {} tiles and {} cities; below it each kingdom's tracks and the trophies left. The tables below tell the same in words.",
        turn_words(v, seats),
        v.board.tiles.len(),
        v.board.cities.len()
    );
    Some(format!(
        "<svg class=\"board fk-board\" viewBox=\"0 0 {mw:.0} {height:.0}\" role=\"img\" aria-labelledby=\"board-title board-desc\" \
xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\">\
<title id=\"board-title\">Fallen Kingdoms, the map</title><desc id=\"board-desc\">{}</desc>{s}</svg>",
        esc(&desc)
    ))
}

pub fn text(v: &View, seats: &[String]) -> Option<String> {
    if v.board.cities.is_empty() {
        return None;
    }
    let who = |k: Seat| esc(&seat_name(seats, k));
    let mut h =
        format!("<div class=\"view-text\"><p id=\"fk-turn\"><strong>{}</strong></p>", esc(&turn_words(v, seats)));
    h.push_str(
        "<table class=\"view-areas\"><caption>Cities</caption><thead><tr><th scope=\"col\">City</th><th scope=\"col\">Held by</th>\
<th scope=\"col\">Units</th><th scope=\"col\">Resource</th><th scope=\"col\">Port</th><th scope=\"col\">Building</th>\
<th scope=\"col\">Temple</th><th scope=\"col\">Joined to</th></tr></thead><tbody>",
    );
    for (k, (c, st)) in v.board.cities.iter().zip(&v.cities).enumerate() {
        let roads: Vec<String> = v
            .board
            .roads
            .iter()
            .filter_map(|&(a, b)| {
                if a as usize == k {
                    Some(b)
                } else if b as usize == k {
                    Some(a)
                } else {
                    None
                }
            })
            .map(|o| v.board.cities.get(o as usize).map_or(String::new(), |c| c.name.clone()))
            .collect();
        let routes: Vec<String> = v
            .board
            .routes
            .iter()
            .filter_map(|&(a, b)| {
                if a as usize == k {
                    Some(b)
                } else if b as usize == k {
                    Some(a)
                } else {
                    None
                }
            })
            .map(|o| v.board.cities.get(o as usize).map_or(String::new(), |c| format!("{} by sea", c.name)))
            .collect();
        let joined: Vec<String> = roads.into_iter().chain(routes).collect();
        let _ = write!(
            h,
            "<tr data-area-row=\"city-{k}\"><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&c.name),
            st.owner.map_or("—".to_string(), who),
            st.units,
            esc(&resource_words(c.resource, c.shape)),
            if c.port { "yes" } else { "—" },
            esc(st.building.as_deref().unwrap_or("—")),
            st.temple.map_or("—".to_string(), who),
            esc(&joined.join(", "))
        );
    }
    h.push_str("</tbody></table>");
    h.push_str(
        "<table class=\"view-players\"><caption>Kingdoms</caption><thead><tr><th scope=\"col\">Player</th><th scope=\"col\">God</th>\
<th scope=\"col\">Intimidation</th><th scope=\"col\">Glory</th><th scope=\"col\">Victories</th><th scope=\"col\">Tracks (unit/building/knowledge)</th>\
<th scope=\"col\">Cities, units</th><th scope=\"col\">Knowledge</th><th scope=\"col\">Rumor cards</th></tr></thead><tbody>",
    );
    for (k, p) in v.players.iter().enumerate() {
        let _ = write!(
            h,
            "<tr data-seat-row=\"{k}\"><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}/3, {}/6, {}/9</td><td>{}, {}</td><td>{}</td><td>{}</td></tr>",
            who(k as Seat),
            esc(p.god.as_deref().unwrap_or(if p.god_chosen { "chosen, secret" } else { "not chosen yet" })),
            p.intimidation.map_or("—".to_string(), |i| i.to_string()),
            p.glory.map_or("hidden".to_string(), |g| g.to_string()),
            p.victories,
            p.tracks[0],
            p.tracks[1],
            p.tracks[2],
            p.cities,
            p.units_on_board,
            esc(&if p.knowledge.is_empty() { "—".to_string() } else { p.knowledge.join(", ") }),
            if p.rumors.is_empty() {
                "—".to_string()
            } else if p.glory.is_none() {
                p.rumors.len().to_string()
            } else {
                p.rumors.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", ")
            }
        );
    }
    h.push_str("</tbody></table>");
    let _ = write!(
        h,
        "<p id=\"fk-trophies\">Trophies left: knowledge {} face down and {} face up ({}); buildings {} face down and {} face up ({}); rumors {}{}. Kinds run out: {} of 3 (two end the game).</p>",
        v.knowledge_left,
        v.knowledge_shown.len(),
        esc(&v.knowledge_shown.join(", ")),
        v.buildings_left,
        v.buildings_shown.len(),
        esc(&v.buildings_shown.join(", ")),
        v.rumors_left,
        v.rumor_top.map(|r| format!(", the top one worth {r}")).unwrap_or_default(),
        v.trophies_depleted
    );
    if !v.public_knowledge.is_empty() {
        let _ = write!(h, "<p>Public knowledge of fallen kingdoms: {}.</p>", esc(&v.public_knowledge.join(", ")));
    }
    let arrows: Vec<String> = v
        .board
        .paths
        .iter()
        .enumerate()
        .map(|(k, p)| {
            format!(
                "{} {} into {}",
                k + 1,
                if p.sea { "by sea" } else { "by land" },
                v.board.cities.get(p.city as usize).map_or("?", |c| c.name.as_str())
            )
        })
        .collect();
    let _ = write!(h, "<p>Invasion arrows round the edge: {}.</p></div>", esc(&arrows.join("; ")));
    Some(h)
}
