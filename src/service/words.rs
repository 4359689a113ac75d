//! What a client sent, told back in the product's words: a request's
//! decoding error, text cut to a length fit to echo, and the light check of
//! an email address; and a player's own result at the end of a game.

/// A player's own result in words, for the end page and the game-over
/// mail: "You win!", "You share the victory with 1 other.", "You finish 3rd
/// of 4." `place` counts from 1 among `of` players; `winners` share first place.
pub fn your_result(place: usize, of: usize, winner: bool, winners: usize) -> String {
    match (winner, winners) {
        (true, 0 | 1) => "You win!".to_owned(),
        (true, n) => format!("You share the victory with {} other{}.", n - 1, if n == 2 { "" } else { "s" }),
        (false, _) => format!("You finish {} of {of}.", ordinal(place)),
    }
}

/// 1st, 2nd, 3rd, 4th, 11th, 21st…
pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A decoding error of a request's JSON, in the product's words: what field
/// is unknown or missing, or what kind of value was found where another was
/// expected (never the decoder's own message or its Rust type names).
pub fn in_words(message: &str) -> String {
    let msg = message.split(" at line ").next().unwrap_or(message);
    let (prefix, msg) = match msg.split_once(": ") {
        Some((p, rest)) if !p.contains(' ') && !p.contains('`') => (format!("{p}: "), rest),
        _ => (String::new(), msg),
    };
    let names = |list: &str| -> String {
        list.split(", ").map(|n| n.trim_matches(|c| c == '`' || c == ' ').to_owned()).collect::<Vec<_>>().join(", ")
    };
    let quoted = |s: &str| s.split('`').nth(1).unwrap_or_default().to_owned();
    let kind = |t: &str| -> String {
        let t = t.trim();
        match t {
            "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize" => {
                "a whole number in range".to_owned()
            }
            "f32" | "f64" => "a number".to_owned(),
            "a sequence" => "a list".to_owned(),
            "a map" => "an object".to_owned(),
            "a boolean" | "a string" | "a borrowed string" => t.replace("borrowed ", ""),
            t if t.starts_with("struct ") || t.starts_with("internally tagged enum") => "an object".to_owned(),
            t if t.starts_with("enum ") => "one of the listed names".to_owned(),
            t if t.starts_with("a sequence") || t.starts_with("an array") => "a list".to_owned(),
            _ => t.replace('`', "\""),
        }
    };
    let text = if let Some(rest) = msg.strip_prefix("unknown field ") {
        let field = quoted(rest);
        match rest.split_once("expected one of ") {
            Some((_, list)) => format!("unknown field \"{field}\"; the fields are: {}", names(list)),
            None => format!("unknown field \"{field}\""),
        }
    } else if let Some(rest) = msg.strip_prefix("unknown variant ") {
        let name = quoted(rest);
        match rest.split_once("expected one of ") {
            Some((_, list)) => format!("unknown type \"{name}\"; it is one of: {}", names(list)),
            None => format!("unknown type \"{name}\""),
        }
    } else if let Some(rest) = msg.strip_prefix("missing field ") {
        format!("\"{}\" is missing", quoted(rest))
    } else if let Some(rest) = msg.strip_prefix("invalid type: ") {
        let (found, expected) = rest.split_once(", expected ").unwrap_or((rest, "another kind of value"));
        format!(
            "{} was sent where {} is expected",
            found.replace('`', "").replace("integer", "a number"),
            kind(expected)
        )
    } else if let Some(rest) = msg.strip_prefix("invalid value: ") {
        let (found, expected) = rest.split_once(", expected ").unwrap_or((rest, "another value"));
        format!("{} is not {}", found.replace('`', "").replace("integer ", ""), kind(expected))
    } else if let Some(rest) = msg.strip_prefix("invalid length ") {
        let (n, expected) = rest.split_once(", expected ").unwrap_or((rest, "another length"));
        format!("a list of {n} was sent where {} is expected", expected.replace('`', ""))
    } else if msg.starts_with("missing field") || msg.contains("tag") {
        "the \"type\" field that names what it is is missing".to_owned()
    } else {
        "it does not have the shape described at /openapi.json".to_owned()
    };
    format!("{prefix}{text}")
}

/// Text a client sent, cut to 40 characters for an answer (so a huge id or
/// path is never echoed back whole).
pub fn shown(text: &str) -> String {
    let cut: String = text.chars().take(40).collect();
    if cut.len() < text.len() {
        format!("{cut}… ({} bytes)", text.len())
    } else {
        cut
    }
}

/// A light check that catches typos; delivery is the real test.
pub fn plausible_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else { return false };
    !local.is_empty()
        && local.len() <= 64
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !s.chars().any(|c| c.is_whitespace() || c.is_control() || c == '<' || c == '>' || c == ',')
        && !domain.contains('@')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_read_as_ordinals_and_results_as_a_player_says_them() {
        let words: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22].iter().map(|n| ordinal(*n)).collect();
        assert_eq!(words, ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]);
        assert_eq!(your_result(1, 4, true, 1), "You win!");
        assert_eq!(your_result(1, 4, true, 3), "You share the victory with 2 others.");
        assert_eq!(your_result(4, 4, false, 1), "You finish 4th of 4.");
    }
}
