//! Duel (the test fixture): one area per seat with its score, budget and
//! bid (as the viewer may see it), the die and the round between them.

use runestone_engine::present::{esc, seat_colour, seat_name, Area, Rounds, Standing, TableHeader};

use super::{BidView, DuelView};

fn seats_in(view: &DuelView) -> usize {
    view.scores.len()
}

fn bid_text(b: Option<&BidView>) -> String {
    match b {
        None => "no bid yet".into(),
        Some(BidView::Hidden(_)) => "bid hidden".into(),
        Some(BidView::Amount(n)) => format!("bid {n}"),
    }
}

/// The table header: the round, who bids or claims, each seat's score,
/// budget and bid as the viewer may see it.
pub fn header(view: &DuelView, seats: &[String]) -> TableHeader {
    let mut h = TableHeader::new("Points", &["Budget", "Bid"]);
    // The fixture counts its rounds from 0.
    h.round = Some(Rounds { now: u32::from(view.round) + 1, of: u32::from(view.rounds) });
    h.phase = Some(match (view.over, view.claimer) {
        (true, _) => "The game is over".to_owned(),
        (false, Some(s)) => format!("Claim: {} claims the die or passes", seat_name(seats, s)),
        (false, None) => "Bidding: every player bids in secret".to_owned(),
    });
    h.standings = (0..seats_in(view))
        .map(|s| Standing {
            seat: s as u8,
            colour: None,
            score: view.scores.get(s).copied(),
            values: vec![
                view.budgets.get(s).map_or_else(String::new, u8::to_string),
                bid_text(view.bids.get(s).and_then(Option::as_ref)),
            ],
        })
        .collect();
    h
}

pub fn areas(view: &DuelView, _seats: &[String]) -> Vec<Area> {
    (0..seats_in(view) as u8).map(|s| Area { id: format!("seat-{s}"), owner: Some(s) }).collect()
}

pub fn svg(view: &DuelView, seats: &[String]) -> Option<String> {
    let n = seats_in(view);
    if n == 0 {
        return None;
    }
    let (w, pw, gap) = (640.0_f64, 140.0_f64, 16.0_f64);
    let total = n as f64 * pw + (n as f64 - 1.0) * gap;
    let x0 = (w - total) / 2.0;
    let round = u64::from(view.round) + 1;
    let rounds = view.rounds;
    let claimer = view.claimer.map(u64::from);
    let die = view.die;
    let mut desc = format!("Round {round} of {rounds}. ");
    let mut s = String::new();
    for i in 0..n {
        let seat = i as u8;
        let name = seat_name(seats, seat);
        let x = x0 + i as f64 * (pw + gap);
        let score = view.scores[i];
        let budget = view.budgets.get(i).copied().unwrap_or(0);
        let bid = bid_text(view.bids.get(i).and_then(Option::as_ref));
        let claiming = claimer == Some(i as u64);
        desc.push_str(&format!("{name}: score {score}, budget {budget}, {bid}"));
        if claiming {
            desc.push_str(", won the round and is claiming");
        }
        desc.push_str(". ");
        s.push_str(&format!(
                "<g class=\"area seat\" data-area=\"seat-{i}\" data-owner=\"{i}\">\
<rect x=\"{x}\" y=\"20\" width=\"{pw}\" height=\"130\" rx=\"10\" fill=\"{c}\" fill-opacity=\"0.12\" stroke=\"{c}\" stroke-width=\"{sw}\"/>\
<text x=\"{tx}\" y=\"46\" text-anchor=\"middle\" font-weight=\"bold\" fill=\"{c}\">{name}</text>\
<text x=\"{tx}\" y=\"76\" text-anchor=\"middle\">score {score}</text>\
<text x=\"{tx}\" y=\"100\" text-anchor=\"middle\">budget {budget}</text>\
<text x=\"{tx}\" y=\"124\" text-anchor=\"middle\" class=\"bid\" data-bid=\"{i}\">{bid}</text>{crown}</g>",
                c = seat_colour(seat),
                sw = if claiming { 4 } else { 1 },
                tx = x + pw / 2.0,
                name = esc(&name),
                bid = esc(&bid),
                crown = if claiming {
                    format!("<text x=\"{}\" y=\"143\" text-anchor=\"middle\" font-size=\"12\">★ claiming</text>", x + pw / 2.0)
                } else {
                    String::new()
                },
            ));
    }
    let die_text = die.map_or("die not rolled".to_owned(), |d| format!("die shows {d}"));
    desc.push_str(&format!("The {die_text}."));
    s.push_str(&format!(
            "<g class=\"die\"><rect x=\"296\" y=\"162\" width=\"48\" height=\"48\" rx=\"8\" fill=\"#fff\" stroke=\"#333\"/>\
<text x=\"320\" y=\"194\" text-anchor=\"middle\" font-size=\"24\">{}</text></g>\
<text x=\"20\" y=\"192\">Round {round} of {rounds}</text>",
            die.map_or("–".to_owned(), |d| d.to_string())
        ));
    Some(format!(
        "<svg class=\"board\" viewBox=\"0 0 {w} 220\" role=\"img\" aria-labelledby=\"board-title board-desc\" \
xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"15\">\
<title id=\"board-title\">Duel board</title><desc id=\"board-desc\">{}</desc>{s}</svg>",
        esc(&desc)
    ))
}
