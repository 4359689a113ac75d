//! Orders by mail: a decision answered by replying to the mail that asks
//! it. The mail prints an order form in plain text, and the reply's lines
//! are read back into a command. Every game gets the generic form (its
//! legal commands, numbered, in their own words); a game may add its own
//! words ([`crate::Present::order_form`], [`crate::Present::read_orders`]),
//! such as a plan written as "plan: 2 berserkur 2 godi 2 kaupmadur".

/// One line of a reply's orders: its number in the reply (from 1, as a
/// reader counts them) and its text, trimmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderLine {
    pub number: usize,
    pub text: String,
}

/// What was wrong with a reply's orders: the line (its number and text),
/// and what the form expects there, in the game's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderError {
    pub line: Option<OrderLine>,
    pub message: String,
}

impl OrderError {
    /// An error about `line`.
    pub fn at(line: &OrderLine, message: impl Into<String>) -> OrderError {
        OrderError { line: Some(line.clone()), message: message.into() }
    }

    /// An error about the orders as a whole.
    pub fn whole(message: impl Into<String>) -> OrderError {
        OrderError { line: None, message: message.into() }
    }
}

/// Words compared as a reader compares them: lowercase, accents and
/// punctuation other than digits and letters dropped, runs of spaces one
/// ("Berserkur moves to Forest 7 · 1 card" and "berserkur moves to forest
/// 7, 1 card" read the same).
pub fn plain_words(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        let c = fold_accent(c);
        if c.is_alphanumeric() {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.extend(c.to_lowercase());
        } else {
            space = true;
        }
    }
    out
}

/// A letter with its accent dropped (the Norse and Latin letters games use;
/// others are kept as they are).
fn fold_accent(c: char) -> char {
    match c {
        'á' | 'à' | 'â' | 'ä' | 'å' | 'Á' | 'À' | 'Â' | 'Ä' | 'Å' => 'a',
        'é' | 'è' | 'ê' | 'ë' | 'É' | 'È' | 'Ê' | 'Ë' => 'e',
        'í' | 'ì' | 'î' | 'ï' | 'Í' | 'Ì' | 'Î' | 'Ï' => 'i',
        'ó' | 'ò' | 'ô' | 'ö' | 'ø' | 'Ó' | 'Ò' | 'Ô' | 'Ö' | 'Ø' => 'o',
        'ú' | 'ù' | 'û' | 'ü' | 'Ú' | 'Ù' | 'Û' | 'Ü' => 'u',
        'ý' | 'Ý' => 'y',
        'ð' | 'Ð' => 'd',
        'þ' | 'Þ' => 't',
        'æ' | 'Æ' => 'a',
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_the_same_whatever_their_case_accents_and_punctuation() {
        assert_eq!(
            plain_words("Berserkur moves to Forest 7 · 1 Berserkur card"),
            "berserkur moves to forest 7 1 berserkur card"
        );
        assert_eq!(plain_words("  Goði  converts,  Hof!"), "godi converts hof");
        assert_eq!(plain_words("KAUPMAÐUR"), "kaupmadur");
    }
}
