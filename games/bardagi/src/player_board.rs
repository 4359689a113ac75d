//! The clans' player boards drawn from the view: Virki, Hof and Verslun
//! with their disks out of capacity, the six storage slots, gold, runes,
//! axes, recruits and upgrade tiles, in words (never the view's internal
//! names). A clan's gold and runes by kind are in the view only for the
//! clan itself (and for everyone once the game is over); the others'
//! boards show what the rules make public.

use std::fmt::Write as _;

use runestone_engine::present::{esc, seat_name, PlayerBoard};

use crate::drawing::{clan_paint, name_of};
use crate::forms::effect_words;
use crate::state::{Building, Good};
use crate::view::{PlayerView, View};

/// Width of a drawn board, in SVG units.
const W: f64 = 480.0;

/// Every clan's board, in seat order.
pub fn boards(view: &View, seats: &[String]) -> Vec<PlayerBoard> {
    view.players.iter().enumerate().map(|(i, p)| board(p, i as u8, seats)).collect()
}

/// How many of a good a storage slot holds: 5, or 8 with the Storehouse.
fn storage(p: &PlayerView) -> u8 {
    if p.upgrades.iter().any(|t| name_of(&t.effect) == "larger_storage") {
        8
    } else {
        5
    }
}

fn building_disks(p: &PlayerView) -> [(Building, u8, u8, &'static str); 3] {
    [
        (Building::Virki, p.disks.virki, p.capacity.virki, "Berserkur"),
        (Building::Hof, p.disks.hof, p.capacity.hof, "Godi"),
        (Building::Verslun, p.disks.verslun, p.capacity.verslun, "Kaupmadur"),
    ]
}

/// The clan's runes in words: by kind when the view holds them, else how
/// many (the kinds are secret).
fn runes_words(p: &PlayerView) -> String {
    match &p.runes {
        Some(kinds) => {
            let held: Vec<String> =
                kinds.iter().filter(|r| r.count > 0).map(|r| format!("{} {}", r.count, r.rune.name())).collect();
            if held.is_empty() {
                "none".to_owned()
            } else {
                held.join(", ")
            }
        }
        None => format!("{} (their kinds are secret)", p.rune_count),
    }
}

fn board(p: &PlayerView, seat: u8, seats: &[String]) -> PlayerBoard {
    let name = seat_name(seats, seat);
    let colour = p.colour.map(|c| c.name()).unwrap_or("no colour");
    let paint = clan_paint(&p.colour.map(|c| name_of(&c)).unwrap_or_default());
    // Dark words on the light clan colour, light words on the others.
    let on_paint = if paint == clan_paint("yellow") { "#1b1b1b" } else { "#ffffff" };
    let whole = p.gold.is_some();
    let cap = storage(p);
    let gold = p.gold.map_or_else(|| "secret".to_owned(), |g| g.to_string());
    let runes = runes_words(p);
    let upgrades: Vec<String> = p
        .upgrades
        .iter()
        .map(|t| format!("{}: {} level {}, {}", t.name, t.building.name(), t.level, effect_words(&name_of(&t.effect))))
        .collect();

    // The drawing.
    let rows = upgrades.len().max(1) as f64;
    let h = 262.0 + rows * 18.0;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"player-board\" viewBox=\"0 0 {W} {h}\" role=\"img\" aria-labelledby=\"pb{seat}-t\" \
xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"13\">\
<title id=\"pb{seat}-t\">The player board of {} ({colour})</title>\
<rect width=\"{W}\" height=\"{h}\" rx=\"8\" fill=\"#fdfaf3\" stroke=\"#8a7d6a\"/>\
<rect width=\"{W}\" height=\"30\" rx=\"8\" fill=\"{paint}\"/>\
<text x=\"12\" y=\"20\" fill=\"{on_paint}\" font-weight=\"bold\">{} · {colour}</text>\
<text x=\"{}\" y=\"20\" fill=\"{on_paint}\" text-anchor=\"end\" font-weight=\"bold\">Glory {}</text>",
        esc(&name),
        esc(&name),
        W - 12.0,
        p.glory
    );
    for (row, (building, disks, capacity, unit)) in building_disks(p).into_iter().enumerate() {
        let y = 52.0 + row as f64 * 30.0;
        let _ = write!(
            s,
            "<g class=\"building\" data-building=\"{}\"><title>{}: {disks} of {capacity} disks</title>\
<text x=\"12\" y=\"{:.0}\" font-weight=\"bold\">{}</text><text x=\"80\" y=\"{:.0}\" font-size=\"11\" fill=\"#555\">{unit}</text>",
            name_of(&building),
            building.name(),
            y + 5.0,
            building.name(),
            y + 5.0
        );
        for i in 0..capacity {
            let x = 150.0 + f64::from(i) * 19.0;
            if i < disks {
                let _ = write!(s, "<circle cx=\"{x:.0}\" cy=\"{y:.0}\" r=\"7.5\" fill=\"{paint}\" stroke=\"#333\"/>");
            } else {
                let _ = write!(
                    s,
                    "<circle cx=\"{x:.0}\" cy=\"{y:.0}\" r=\"7.5\" fill=\"none\" stroke=\"#8a7d6a\" stroke-dasharray=\"2 2\"/>"
                );
            }
        }
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{:.0}\" text-anchor=\"end\">{disks} of {capacity}</text></g>",
            W - 12.0,
            y + 5.0
        );
    }
    // Storage: six labelled slots.
    let _ = write!(
        s,
        "<text x=\"12\" y=\"158\" font-weight=\"bold\">Storage</text>\
<text x=\"76\" y=\"158\" font-size=\"11\" fill=\"#555\">up to {cap} of each good</text>"
    );
    for (i, g) in Good::ALL.iter().enumerate() {
        let x = 12.0 + i as f64 * 76.0;
        let n = p.goods[g.idx()];
        let word = g.name();
        let _ = write!(
            s,
            "<g class=\"slot\" data-good=\"{word}\"><title>{n} {word} of {cap}</title>\
<rect x=\"{x:.0}\" y=\"166\" width=\"70\" height=\"40\" rx=\"4\" fill=\"#fff\" stroke=\"#8a7d6a\"/>\
<text x=\"{:.0}\" y=\"181\" text-anchor=\"middle\" font-size=\"11\" fill=\"#555\">{}</text>\
<text x=\"{:.0}\" y=\"200\" text-anchor=\"middle\" font-weight=\"bold\">{n}<tspan font-weight=\"normal\" font-size=\"11\" fill=\"#555\"> / {cap}</tspan></text></g>",
            x + 35.0,
            capitalised(word),
            x + 35.0
        );
    }
    let _ = write!(
        s,
        "<text x=\"12\" y=\"228\"><tspan font-weight=\"bold\">Gold</tspan> {} · <tspan font-weight=\"bold\">Axes</tspan> {} · \
<tspan font-weight=\"bold\">Recruits</tspan> {} in town, {} in supply</text>\
<text x=\"12\" y=\"248\"><tspan font-weight=\"bold\">Runes</tspan> {}</text>",
        esc(&gold),
        p.axes,
        p.town,
        p.supply,
        esc(&runes)
    );
    if upgrades.is_empty() {
        let _ = write!(s, "<text x=\"12\" y=\"270\" fill=\"#555\">No upgrade tiles yet</text>");
    }
    for (i, u) in upgrades.iter().enumerate() {
        let _ = write!(s, "<text x=\"12\" y=\"{:.0}\" font-size=\"12\">▪ {}</text>", 270.0 + i as f64 * 18.0, esc(u));
    }
    s.push_str("</svg>");

    // The same in words.
    let mut html = format!("<dl class=\"player-board-words\"><dt>Glory</dt><dd>{}</dd>", p.glory);
    for (building, disks, capacity, unit) in building_disks(p) {
        let _ = write!(
            html,
            "<dt>{} <span class=\"small\">({unit})</span></dt><dd>{disks} of {capacity} disks</dd>",
            building.name()
        );
    }
    let goods: Vec<String> = Good::ALL.iter().map(|g| format!("{} {}", p.goods[g.idx()], g.name())).collect();
    let _ = write!(
        html,
        "<dt>Storage</dt><dd>{} (up to {cap} of each)</dd><dt>Gold</dt><dd>{}</dd><dt>Runes</dt><dd>{}</dd>\
<dt>Axes</dt><dd>{}</dd><dt>Recruits</dt><dd>{} in town, {} in supply</dd><dt>Upgrades</dt><dd>{}</dd></dl>",
        goods.join(", "),
        esc(&gold),
        esc(&runes),
        p.axes,
        p.town,
        p.supply,
        if upgrades.is_empty() { "none yet".to_owned() } else { esc(&upgrades.join("; ")) }
    );
    PlayerBoard { seat, svg: Some(s), html, whole }
}

fn capitalised(word: &str) -> String {
    let mut c = word.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use runestone_engine::game::Viewer;

    use super::*;
    use crate::tests::Driver;
    use crate::Options;

    #[test]
    fn own_board_in_full_the_others_public_parts_in_words_not_internal_names() {
        let game = Driver::new(&Options::default(), 3, 9).unwrap();
        let names: Vec<String> = ["Ása", "<Bo>", "Dís"].iter().map(|s| (*s).to_owned()).collect();
        let view = crate::view::view(&game.state, Viewer::Seat(0));
        let b = boards(&view, &names);
        assert_eq!(b.len(), 3);
        assert!(b[0].whole && !b[1].whole && !b[2].whole);
        let p = &view.players[0];
        let svg = b[0].svg.as_deref().unwrap();
        assert!(svg.contains(&format!("Virki: {} of {} disks", p.disks.virki, p.capacity.virki)), "{svg}");
        assert_eq!(svg.matches("class=\"building\"").count(), 3, "Virki, Hof and Verslun");
        assert_eq!(
            svg.matches("<circle").count() as u32,
            u32::from(p.capacity.virki + p.capacity.hof + p.capacity.verslun)
        );
        assert_eq!(svg.matches("class=\"slot\"").count(), 6, "six storage slots");
        for word in ["Timber", "Wool", "Meat", "Hide", "Stone", "Iron"] {
            assert!(svg.contains(&format!(">{word}</text>")), "{word}");
        }
        assert!(svg.contains(&format!("Gold</tspan> {} ·", p.gold.unwrap())));
        assert!(b[0].html.contains("<dt>Gold</dt><dd>") && !b[0].html.contains("secret"), "{}", b[0].html);
        assert!(b[1].html.contains("<dt>Gold</dt><dd>secret</dd>"), "{}", b[1].html);
        assert!(b[1].html.contains("(their kinds are secret)"), "{}", b[1].html);
        let other = b[1].svg.as_deref().unwrap();
        assert!(other.contains("&lt;Bo&gt;") && !other.contains("<Bo>"), "names are escaped");
        for b in &b {
            let all = format!("{}{}", b.svg.as_deref().unwrap(), b.html);
            assert!(!all.contains('_'), "no internal names: {all}");
        }
    }
}
