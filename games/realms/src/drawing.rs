//! The scenario map drawn from the typed view: one square per field,
//! coloured by its LGF colour (or calm and stormy sea), frost dots on the
//! cold climate region, fields outside the game borders hatched, rivers
//! and the black line; on each field its holder's tint and border, the
//! settlement, shipyard or construction, stored grain, sown or grown
//! grain, herds, units by realm and the red looting token. A legend
//! explains every mark and the realms' colours. The text alternative tells
//! the round and the realms, then every field that holds anything.

use std::fmt::Write as _;

use runestone_engine::present::{esc, seat_name, Area};
use runestone_engine::Seat;

use crate::state::{Building, UnitKind};
use crate::view::{FieldView, View};

/// A field's side in SVG units.
const C: f64 = 44.0;
/// Room for the row numbers and the climate band on the left, the column
/// numbers on top.
const LEFT: f64 = 34.0;
const TOP: f64 = 18.0;

/// The twelve realms' colours, by seat.
pub const REALM_COLOURS: [&str; 12] = [
    "#c0392b", "#2471a3", "#1e8449", "#b7950b", "#7d3c98", "#d35400", "#148f77", "#78281f", "#1b2631", "#c2185b",
    "#7d6608", "#5d6d7e",
];

pub fn realm_colour(seat: Seat) -> &'static str {
    REALM_COLOURS[seat as usize % REALM_COLOURS.len()]
}

fn terrain_paint(f: &FieldView) -> &'static str {
    match f.colour.as_deref() {
        None if f.stormy => "#6f9fc4",
        None => "#a9cce3",
        Some("yellow") => "#f4e19c",
        Some("green") => "#a9d18e",
        Some("brown") => "#b08d62",
        Some("turquoise") => "#7fc8c0",
        _ => "#b3b3b3",
    }
}

/// A field's terrain in words.
pub fn terrain_words(f: &FieldView) -> String {
    match f.colour.as_deref() {
        None if f.stormy => "stormy sea".into(),
        None => "calm sea".into(),
        Some("brown") => "brown (mountains)".into(),
        Some("turquoise") => "turquoise (wetlands)".into(),
        Some(c) => c.to_string(),
    }
}

/// Who holds a field as drawn: the settlement's owner, else the
/// shipyard's, else the one realm whose units stand there.
pub fn holder(f: &FieldView) -> Option<Seat> {
    if let Some(s) = f.settlement {
        return Some(s.owner);
    }
    if let Some(s) = f.shipyard {
        return Some(s.owner);
    }
    let first = f.units.first()?.owner;
    f.units.iter().all(|u| u.owner == first).then_some(first)
}

/// Units on a field counted by realm, in seat order.
fn units_by_realm(f: &FieldView) -> Vec<(Seat, usize)> {
    let mut v: Vec<(Seat, usize)> = Vec::new();
    for u in &f.units {
        match v.iter_mut().find(|(s, _)| *s == u.owner) {
            Some(x) => x.1 += 1,
            None => v.push((u.owner, 1)),
        }
    }
    v.sort();
    v
}

/// A realm's units on a field in words: "3 Light Infantry, 1 Transport Ships".
pub fn units_words(f: &FieldView, seat: Seat) -> String {
    let mut parts = Vec::new();
    for k in UnitKind::ALL {
        let n = f.units.iter().filter(|u| u.owner == seat && u.kind == k).count();
        let recruits = f.units.iter().filter(|u| u.owner == seat && u.kind == k && u.recruit).count();
        if n > 0 {
            if recruits > 0 {
                parts.push(format!("{n} {} ({recruits} recruits)", k.name()));
            } else {
                parts.push(format!("{n} {}", k.name()));
            }
        }
    }
    parts.join(", ")
}

fn building_words(b: Building) -> &'static str {
    b.name()
}

/// Everything on a field, in words (also the field's tooltip).
pub fn contents(f: &FieldView, seats: &[String]) -> Vec<String> {
    let who = |s: Seat| seat_name(seats, s);
    let mut v = Vec::new();
    if let Some(s) = f.settlement {
        v.push(format!(
            "{} of {}{}",
            if s.city { "city" } else { "village" },
            who(s.owner),
            if s.fort { ", fortified" } else { "" }
        ));
    }
    if let Some(y) = f.shipyard {
        v.push(format!("{} of {}", if y.port { "port" } else { "dock" }, who(y.owner)));
    }
    if let Some(c) = f.construction {
        v.push(format!(
            "{} of {} under construction, {}% built",
            building_words(c.building),
            who(c.owner),
            u32::from(c.progress) * 100 / 12
        ));
    }
    if f.grain > 0 {
        v.push(format!("{} grain stored", f.grain));
    }
    if f.fish > 0 {
        v.push(format!("{} fishes stored", f.fish));
    }
    if let Some((s, g)) = f.sown {
        v.push(format!("{g} grain sown by {}", who(s)));
    }
    if f.crop > 0 {
        v.push(format!("{} grain grown, waiting for the harvest", f.crop));
    }
    let mut herds: Vec<(Seat, &'static str, usize)> = Vec::new();
    for (s, h) in &f.herds {
        match herds.iter_mut().find(|x| x.0 == *s && x.1 == h.name()) {
            Some(x) => x.2 += 1,
            None => herds.push((*s, h.name(), 1)),
        }
    }
    for (s, h, n) in herds {
        v.push(format!("{n} {} of {} herd{}", h, who(s), if n == 1 { "" } else { "s" }));
    }
    for (s, _) in units_by_realm(f) {
        v.push(format!("{} of {}", units_words(f, s), who(s)));
    }
    if f.looted {
        v.push("red looting token".into());
    }
    v
}

/// The field's name as the forms and text use it: "green 7-3 (Danes)".
pub fn field_label(f: &FieldView) -> String {
    match &f.home {
        Some(h) => format!("{} ({h})", f.name),
        None => f.name.clone(),
    }
}

fn xy(f: &FieldView) -> (f64, f64) {
    (LEFT + f.col as f64 * C, TOP + f.row as f64 * C)
}

pub fn areas(view: &View, _seats: &[String]) -> Vec<Area> {
    view.fields.iter().map(|f| Area { id: format!("field-{}", f.id), owner: holder(f) }).collect()
}

pub fn seat_class(_view: &View, seat: Seat) -> Option<String> {
    Some(format!("realm-{}", seat as usize % REALM_COLOURS.len()))
}

/// The CSS of the realms' colours (seat dots) and of the order forms.
pub fn stylesheet() -> &'static str {
    include_str!("forms.css")
}

/// A small house: a village (or, larger and with a tower, a city).
fn house(out: &mut String, x: f64, y: f64, fill: &str, city: bool, fort: bool) {
    let w = if city { 16.0 } else { 12.0 };
    let stroke = if fort { "#000" } else { "#333" };
    let sw = if fort { 2.2 } else { 0.8 };
    let _ = write!(
        out,
        "<path d=\"M{x:.1},{:.1} L{:.1},{y:.1} L{:.1},{:.1} V{:.1} H{x:.1} Z\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{sw}\"/>",
        y + 5.0,
        x + w / 2.0,
        x + w,
        y + 5.0,
        y + 13.0,
    );
    if city {
        let _ = write!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"4\" height=\"7\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{sw}\"/>",
            x + w - 4.0,
            y - 2.0
        );
    }
}

/// A small boat: a dock, or with a mast a port.
fn boat(out: &mut String, x: f64, y: f64, fill: &str, port: bool) {
    let _ = write!(
        out,
        "<path d=\"M{x:.1},{:.1} H{:.1} L{:.1},{:.1} H{:.1} Z\" fill=\"{fill}\" stroke=\"#222\" stroke-width=\"0.8\"/>",
        y + 6.0,
        x + 12.0,
        x + 10.0,
        y + 10.0,
        x + 2.0
    );
    if port {
        let _ = write!(
            out,
            "<path d=\"M{:.1},{:.1} V{y:.1} L{:.1},{:.1} Z\" fill=\"#fff\" stroke=\"#222\" stroke-width=\"0.6\"/>",
            x + 6.0,
            y + 6.0,
            x + 10.0,
            y + 4.0
        );
    }
}

fn field_svg(out: &mut String, f: &FieldView, seats: &[String]) {
    let (x, y) = xy(f);
    let owner = holder(f);
    let mut title = format!("{}: {}, {} climate", field_label(f), terrain_words(f), f.climate);
    if let Some(r) = &f.river {
        let _ = write!(title, ", river {r}");
    }
    if !f.in_play {
        title.push_str(", beyond the game borders");
    }
    for c in contents(f, seats) {
        let _ = write!(title, "; {c}");
    }
    let _ = write!(out, "<g class=\"field\" data-area=\"field-{}\"", f.id);
    if let Some(o) = owner {
        let _ = write!(out, " data-owner=\"{o}\"");
    }
    let _ = write!(
        out,
        "><title>{}</title><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{C}\" height=\"{C}\" fill=\"{}\" stroke=\"#666\" stroke-width=\"0.5\"/>",
        esc(&title),
        terrain_paint(f)
    );
    if f.climate == "cold" && !f.sea {
        let _ = write!(out, "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{C}\" height=\"{C}\" fill=\"url(#rl-frost)\"/>");
    }
    if f.sown.is_some() || f.crop > 0 {
        let pat = if f.crop > 0 { "rl-crop" } else { "rl-sown" };
        let _ = write!(out, "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{C}\" height=\"{C}\" fill=\"url(#{pat})\"/>");
    }
    if !f.in_play {
        let _ = write!(out, "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{C}\" height=\"{C}\" fill=\"url(#rl-out)\"/>");
    }
    if let Some(o) = owner {
        let c = realm_colour(o);
        let _ = write!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{c}\" fill-opacity=\"0.22\" stroke=\"{c}\" stroke-width=\"3\"/>",
            x + 1.5,
            y + 1.5,
            C - 3.0,
            C - 3.0
        );
    }
    // Top row: settlement, shipyard or construction; looting token.
    if let Some(s) = f.settlement {
        house(out, x + 4.0, y + 4.0, realm_colour(s.owner), s.city, s.fort);
    }
    if let Some(p) = f.shipyard {
        boat(out, x + 21.0, y + 4.0, realm_colour(p.owner), p.port);
    }
    if let Some(c) = f.construction {
        let _ = write!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"13\" height=\"11\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"2 1.5\"/><text x=\"{:.1}\" y=\"{:.1}\" class=\"rl-tiny\">{}%</text>",
            x + 4.0,
            y + 5.0,
            realm_colour(c.owner),
            x + 18.0,
            y + 13.0,
            u32::from(c.progress) * 100 / 12
        );
    }
    if f.looted {
        let _ = write!(
            out,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"#e00\" stroke=\"#fff\" stroke-width=\"1.2\" class=\"loot\"/>",
            x + C - 8.0,
            y + 8.0
        );
    }
    // Middle row: stored grain, herds.
    if f.grain > 0 || f.fish > 0 {
        let (n, fill) = if f.grain > 0 { (f.grain, "#e5b80b") } else { (f.fish, "#5dade2") };
        let _ = write!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"7\" height=\"7\" fill=\"{fill}\" stroke=\"#6e5a00\" stroke-width=\"0.6\"/><text x=\"{:.1}\" y=\"{:.1}\" class=\"rl-tiny\">{n}</text>",
            x + 4.0,
            y + 20.0,
            x + 12.0,
            y + 27.0
        );
    }
    if !f.herds.is_empty() {
        let _ = write!(
            out,
            "<ellipse cx=\"{:.1}\" cy=\"{:.1}\" rx=\"5\" ry=\"3.5\" fill=\"#fdfefe\" stroke=\"#5d4037\" stroke-width=\"1\"/><text x=\"{:.1}\" y=\"{:.1}\" class=\"rl-tiny\">{}</text>",
            x + 27.0,
            y + 23.5,
            x + 33.5,
            y + 27.0,
            f.herds.len()
        );
    }
    // Bottom row: units by realm.
    for (i, (s, n)) in units_by_realm(f).into_iter().take(3).enumerate() {
        let cx = x + 10.0 + i as f64 * 13.0;
        let cy = y + C - 9.0;
        let _ = write!(
            out,
            "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"7\" fill=\"{}\" stroke=\"#fff\" stroke-width=\"1\"/><text x=\"{cx:.1}\" y=\"{:.1}\" class=\"rl-count\">{n}</text>",
            realm_colour(s),
            cy + 3.5
        );
    }
    out.push_str("</g>");
}

/// The legend's entries: a mark and its words.
fn legend(out: &mut String, view: &View, seats: &[String], top: f64) -> f64 {
    let width = LEFT + view.cols as f64 * C;
    let mut items: Vec<(String, String)> = Vec::new();
    let swatch = |fill: &str| {
        format!(
            "<rect x=\"0\" y=\"-9\" width=\"14\" height=\"11\" fill=\"{fill}\" stroke=\"#666\" stroke-width=\"0.5\"/>"
        )
    };
    for (fill, words) in [
        ("#f4e19c", "yellow field"),
        ("#a9d18e", "green field"),
        ("#b08d62", "brown: mountains"),
        ("#7fc8c0", "turquoise: wetlands"),
        ("#b3b3b3", "grey field"),
        ("#a9cce3", "calm sea"),
        ("#6f9fc4", "stormy sea"),
    ] {
        items.push((swatch(fill), words.into()));
    }
    items.push((
        "<rect x=\"0\" y=\"-9\" width=\"14\" height=\"11\" fill=\"#a9d18e\"/><rect x=\"0\" y=\"-9\" width=\"14\" height=\"11\" fill=\"url(#rl-frost)\" stroke=\"#666\" stroke-width=\"0.5\"/>"
            .into(),
        "cold climate (frost dots)".into(),
    ));
    items.push((
        "<rect x=\"0\" y=\"-9\" width=\"6\" height=\"11\" fill=\"#5dade2\"/><rect x=\"8\" y=\"-9\" width=\"6\" height=\"11\" fill=\"#f0b27a\"/>".into(),
        "left band: cold / temperate rows".into(),
    ));
    items.push((
        "<rect x=\"0\" y=\"-9\" width=\"14\" height=\"11\" fill=\"#a9d18e\"/><rect x=\"0\" y=\"-9\" width=\"14\" height=\"11\" fill=\"url(#rl-out)\" stroke=\"#666\" stroke-width=\"0.5\"/>"
            .into(),
        "beyond the game borders".into(),
    ));
    let mut v = String::new();
    house(&mut v, 1.0, -11.0, "#999", false, false);
    items.push((v, "village".into()));
    let mut v = String::new();
    house(&mut v, 0.0, -11.0, "#999", true, false);
    items.push((v, "city".into()));
    let mut v = String::new();
    house(&mut v, 1.0, -11.0, "#999", false, true);
    items.push((v, "fortified (thick outline)".into()));
    let mut v = String::new();
    boat(&mut v, 1.0, -10.0, "#999", false);
    items.push((v, "dock".into()));
    let mut v = String::new();
    boat(&mut v, 1.0, -10.0, "#999", true);
    items.push((v, "port".into()));
    items.push((
        "<rect x=\"0\" y=\"-9\" width=\"13\" height=\"11\" fill=\"none\" stroke=\"#555\" stroke-width=\"1.5\" stroke-dasharray=\"2 1.5\"/>".into(),
        "construction, % built".into(),
    ));
    items.push((
        "<circle cx=\"7\" cy=\"-4\" r=\"7\" fill=\"#777\"/><text x=\"7\" y=\"-0.5\" class=\"rl-count\">5</text>".into(),
        "units of a realm".into(),
    ));
    items.push((
        "<ellipse cx=\"7\" cy=\"-4\" rx=\"5\" ry=\"3.5\" fill=\"#fdfefe\" stroke=\"#5d4037\"/>".into(),
        "herds (number)".into(),
    ));
    items.push((
        "<rect x=\"3\" y=\"-8\" width=\"7\" height=\"7\" fill=\"#e5b80b\" stroke=\"#6e5a00\" stroke-width=\"0.6\"/>"
            .into(),
        "stored grain (number)".into(),
    ));
    items.push((
        "<rect x=\"0\" y=\"-9\" width=\"14\" height=\"11\" fill=\"#a9d18e\"/><rect x=\"0\" y=\"-9\" width=\"14\" height=\"11\" fill=\"url(#rl-sown)\" stroke=\"#666\" stroke-width=\"0.5\"/>".into(),
        "sown field".into(),
    ));
    items.push((
        "<rect x=\"0\" y=\"-9\" width=\"14\" height=\"11\" fill=\"#a9d18e\"/><rect x=\"0\" y=\"-9\" width=\"14\" height=\"11\" fill=\"url(#rl-crop)\" stroke=\"#666\" stroke-width=\"0.5\"/>".into(),
        "grain grown, to harvest".into(),
    ));
    items.push((
        "<circle cx=\"7\" cy=\"-4\" r=\"5\" fill=\"#e00\" stroke=\"#fff\" stroke-width=\"1.2\"/>".into(),
        "red looting token".into(),
    ));
    items.push(("<path d=\"M0,-4 H14\" stroke=\"#2e86c1\" stroke-width=\"3\"/>".into(), "river".into()));
    items.push((
        "<path d=\"M7,-10 V2\" stroke=\"#000\" stroke-width=\"4\"/>".into(),
        "black line (no land crossing)".into(),
    ));
    for r in &view.realms {
        items.push((
            format!(
                "<rect x=\"0\" y=\"-9\" width=\"14\" height=\"11\" fill=\"{c}\" fill-opacity=\"0.35\" stroke=\"{c}\" stroke-width=\"2.5\"/>",
                c = realm_colour(r.seat)
            ),
            format!("{} ({}, {})", seat_name(seats, r.seat), r.home, r.faction),
        ));
    }
    let per_row = 4usize;
    let col_w = (width - 8.0) / per_row as f64;
    let _ = write!(out, "<g class=\"legend\"><text x=\"4\" y=\"{:.1}\" class=\"rl-head\">Legend</text>", top + 14.0);
    let mut y = top + 34.0;
    for (i, (mark, words)) in items.iter().enumerate() {
        let col = i % per_row;
        if i > 0 && col == 0 {
            y += 19.0;
        }
        let x = 6.0 + col as f64 * col_w;
        let _ = write!(
            out,
            "<g transform=\"translate({x:.1},{y:.1})\">{mark}<text x=\"20\" y=\"0\" class=\"rl-legend\">{}</text></g>",
            esc(words)
        );
    }
    out.push_str("</g>");
    y + 12.0
}

pub fn svg(view: &View, seats: &[String]) -> Option<String> {
    if view.fields.is_empty() {
        return None;
    }
    let map_w = LEFT + view.cols as f64 * C;
    let map_h = TOP + view.rows as f64 * C;
    let mut body = String::new();
    // The climate band and the row and column numbers.
    for r in 0..view.rows {
        let cold = view.fields.iter().any(|f| f.row == r && f.climate == "cold");
        let y = TOP + r as f64 * C;
        let _ = write!(
            body,
            "<rect x=\"0\" y=\"{y:.1}\" width=\"8\" height=\"{C}\" fill=\"{}\"/><text x=\"22\" y=\"{:.1}\" class=\"rl-axis\">{r}</text>",
            if cold { "#5dade2" } else { "#f0b27a" },
            y + C / 2.0 + 4.0
        );
    }
    for c in 0..view.cols {
        let _ = write!(body, "<text x=\"{:.1}\" y=\"13\" class=\"rl-axis\">{c}</text>", LEFT + c as f64 * C + C / 2.0);
    }
    for f in &view.fields {
        field_svg(&mut body, f, seats);
    }
    // Rivers: a line between neighbouring fields of the same river.
    let at = |r: u8, c: u8| view.fields.iter().find(|f| f.row == r && f.col == c);
    for f in &view.fields {
        let Some(river) = &f.river else { continue };
        for (dr, dc) in [(0u8, 1u8), (1, 0)] {
            if let Some(g) = at(f.row + dr, f.col + dc) {
                if g.river.as_ref() == Some(river) {
                    let (x1, y1) = xy(f);
                    let (x2, y2) = xy(g);
                    let _ = write!(
                        body,
                        "<path d=\"M{:.1},{:.1} L{:.1},{:.1}\" class=\"river\" stroke=\"#2e86c1\" stroke-width=\"3\" stroke-linecap=\"round\" fill=\"none\" opacity=\"0.8\"/>",
                        x1 + C / 2.0 + 6.0,
                        y1 + C / 2.0 - 4.0,
                        x2 + C / 2.0 + 6.0,
                        y2 + C / 2.0 - 4.0
                    );
                }
            }
        }
    }
    // The black line on the edge between its fields.
    for &(a, b) in &view.black_line {
        let (Some(fa), Some(fb)) = (view.fields.get(a as usize), view.fields.get(b as usize)) else { continue };
        let (xa, ya) = xy(fa);
        let (xb, yb) = xy(fb);
        let d = if fa.row == fb.row {
            let x = xa.max(xb);
            format!("M{x:.1},{ya:.1} V{:.1}", ya + C)
        } else {
            let y = ya.max(yb);
            format!("M{xa:.1},{y:.1} H{:.1}", xa + C)
        };
        let _ = write!(body, "<path d=\"{d}\" class=\"black-line\" stroke=\"#000\" stroke-width=\"5\"/>");
    }
    let mut legend_svg = String::new();
    let height = legend(&mut legend_svg, view, seats, map_h + 6.0);
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"realms-map\" viewBox=\"0 0 {map_w:.0} {height:.0}\" width=\"100%\" role=\"img\" aria-labelledby=\"realms-map-title\">\
<title id=\"realms-map-title\">{} map, {} of year {} of {}: fields by colour and climate, settlements, units, herds, grain and looting tokens</title>\
<defs><pattern id=\"rl-frost\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\"><circle cx=\"2\" cy=\"2\" r=\"1.1\" fill=\"#fff\" opacity=\"0.9\"/><circle cx=\"6\" cy=\"6\" r=\"1.1\" fill=\"#fff\" opacity=\"0.9\"/></pattern>\
<pattern id=\"rl-out\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"><rect width=\"6\" height=\"6\" fill=\"#fff\" opacity=\"0.45\"/><path d=\"M0,6 L6,0\" stroke=\"#777\" stroke-width=\"1\"/></pattern>\
<pattern id=\"rl-sown\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"><path d=\"M0,3 H6\" stroke=\"#6e4b2a\" stroke-width=\"1\" opacity=\"0.7\"/></pattern>\
<pattern id=\"rl-crop\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"><path d=\"M0,3 H6\" stroke=\"#d4ac0d\" stroke-width=\"2\"/></pattern></defs>\
",
        esc(&view.map),
        view.season.name(),
        view.year,
        view.years
    );
    out.push_str(&body);
    out.push_str(&legend_svg);
    out.push_str("</svg>");
    Some(out)
}

pub fn text(view: &View, seats: &[String]) -> Option<String> {
    if view.fields.is_empty() {
        return None;
    }
    let mut h = String::new();
    let _ = write!(
        h,
        "<div class=\"view-text\"><p id=\"realms-round\"><strong>{}</strong>, {} mode: <strong>{} of year {} of {}</strong>.",
        esc(&view.map),
        match view.mode {
            crate::state::Mode::Fast => "FAST",
            crate::state::Mode::Basic => "BASIC",
            crate::state::Mode::Original => "ORIGINAL",
        },
        view.season.name(),
        view.year,
        view.years
    );
    if let Some(over) = &view.over {
        let _ = write!(h, " The game is over: {}.", esc(over));
    } else {
        h.push_str(" Every realm gives one set of secret orders for this season; when the last arrives the round resolves, sub-phases 1 to 11 in order.");
    }
    h.push_str("</p>");
    h.push_str(
        "<table class=\"view-realms\"><caption>Realms</caption><thead><tr><th scope=\"col\">Realm</th><th scope=\"col\">Home</th>\
<th scope=\"col\">Faction</th><th scope=\"col\">Gold</th><th scope=\"col\">Prestige (PP)</th><th scope=\"col\">Victory points</th><th scope=\"col\">Meat</th>\
<th scope=\"col\">Command</th><th scope=\"col\">Orders</th></tr></thead><tbody>",
    );
    for r in &view.realms {
        let _ = write!(
            h,
            "<tr><th scope=\"row\"><span class=\"seat-dot realm-{}\"></span>{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            r.seat as usize % REALM_COLOURS.len(),
            esc(&seat_name(seats, r.seat)),
            esc(&r.home),
            esc(&r.faction),
            r.gold,
            r.pp,
            r.vp,
            r.meat,
            if r.command == 0 { "without commanders".to_string() } else { format!("level {}", r.command) },
            if r.out {
                "out of the game"
            } else if r.submitted {
                "given"
            } else {
                "not yet given"
            }
        );
    }
    h.push_str("</tbody></table>");
    h.push_str(
        "<table class=\"view-fields\"><caption>Fields that hold anything</caption><thead><tr><th scope=\"col\">Field</th>\
<th scope=\"col\">Terrain</th><th scope=\"col\">Climate</th><th scope=\"col\">Held by</th><th scope=\"col\">On it</th></tr></thead><tbody>",
    );
    let mut empty = 0;
    for f in view.fields.iter().filter(|f| f.in_play) {
        let c = contents(f, seats);
        if c.is_empty() {
            empty += 1;
            continue;
        }
        let mut terrain = terrain_words(f);
        if let Some(r) = &f.river {
            let _ = write!(terrain, ", river {r}");
        }
        let _ = write!(
            h,
            "<tr id=\"text-field-{}\"><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            f.id,
            esc(&field_label(f)),
            esc(&terrain),
            esc(&f.climate),
            holder(f).map(|s| esc(&seat_name(seats, s))).unwrap_or_else(|| "nobody alone".into()),
            esc(&c.join("; "))
        );
    }
    let _ = write!(
        h,
        "</tbody></table><p>The other {empty} fields inside the game borders hold nothing. Fields are named by their colour, row and column (row 0 is the north).</p></div>"
    );
    Some(h)
}
