//! The table header: what a player reads first on every game page — the
//! round, the phase and the standings — given by a game from one viewer's
//! typed view (so a secret stays secret: a column the viewer may not see
//! reads "secret"). Who is to play and by when is the server's part (it
//! keeps the deadlines); the game's name comes from its `RulesetInfo`.

use serde::{Deserialize, Serialize};

use crate::game::Seat;

/// The parts of the header a game knows from its view.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableHeader {
    /// The round being played and how many the game has, when it counts
    /// rounds.
    pub round: Option<Rounds>,
    /// The phase in words, for a first-time player ("Planning: every clan
    /// chooses its cards in secret").
    pub phase: Option<String>,
    /// What the score is called ("Glory", "Points").
    pub score: String,
    /// The names of the standings' further columns, in words ("Areas",
    /// "Runes in hand"): what the rules make public.
    pub columns: Vec<String>,
    /// One row per seat, in seat order.
    pub standings: Vec<Standing>,
}

/// Round `now` of `of`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rounds {
    pub now: u32,
    pub of: u32,
}

/// One seat's row of the standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub seat: Seat,
    /// The seat's colour in words ("Red"), when the game gives seats
    /// colours of their own.
    pub colour: Option<String>,
    /// The score, when the viewer may know it.
    pub score: Option<i64>,
    /// One value per column of [`TableHeader::columns`], in words.
    pub values: Vec<String>,
}

/// One seat's player board as the viewer's view shows it: the viewer's
/// own in full, the others' public parts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerBoard {
    pub seat: Seat,
    /// The board drawn: an `<svg …>…</svg>` fragment with its own title,
    /// when the game draws it.
    pub svg: Option<String>,
    /// The same board in words, as HTML (always: the text alternative).
    pub html: String,
    /// The view holds the whole board (the viewer's own, or every board
    /// once the game is over); otherwise only what the rules make public.
    pub whole: bool,
}

impl TableHeader {
    /// A header with the score called `score` and these columns.
    pub fn new(score: impl Into<String>, columns: &[&str]) -> TableHeader {
        TableHeader {
            score: score.into(),
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            ..TableHeader::default()
        }
    }

    /// The header's rows agree with its columns: one value per column in
    /// every row, one row per seat in seat order. Games' tests call this.
    pub fn check(&self, seats: usize) -> Result<(), String> {
        if self.standings.len() != seats {
            return Err(format!("{} rows of standings for {seats} seats", self.standings.len()));
        }
        for (i, row) in self.standings.iter().enumerate() {
            if row.seat as usize != i {
                return Err(format!("row {i} is of seat {}", row.seat));
            }
            if row.values.len() != self.columns.len() {
                return Err(format!("seat {i} has {} values for {} columns", row.values.len(), self.columns.len()));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_checks_its_rows_against_its_columns_and_seats() {
        let mut h = TableHeader::new("Glory", &["Areas"]);
        h.standings = vec![
            Standing { seat: 0, colour: None, score: Some(3), values: vec!["2".into()] },
            Standing { seat: 1, colour: None, score: None, values: vec![] },
        ];
        assert_eq!(h.check(2), Err("seat 1 has 0 values for 1 columns".into()));
        h.standings[1].values.push("0".into());
        assert_eq!(h.check(2), Ok(()));
        assert_eq!(h.check(3), Err("2 rows of standings for 3 seats".into()));
        h.standings.swap(0, 1);
        assert_eq!(h.check(2), Err("row 0 is of seat 1".into()));
    }
}
