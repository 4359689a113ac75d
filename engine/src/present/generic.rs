//! Any view, told as structured HTML: per-seat lists become one table with
//! a row per seat; everything else a definition list, nested as the view is.

use serde_json::{Map, Value};

use super::{esc, seat_name};

/// "claim_points" → "Claim points".
fn label(key: &str) -> String {
    let words = key.replace(['_', '-'], " ");
    let mut c = words.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some("—".into()),
        Value::Bool(b) => Some(if *b { "yes" } else { "no" }.into()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

fn per_seat(v: &Value, n: usize) -> bool {
    matches!(v, Value::Array(a) if n > 0 && a.len() == n && a.iter().all(|x| scalar(x).is_some()))
}

fn value(v: &Value, seats: &[String], depth: usize, out: &mut String) {
    if let Some(s) = scalar(v) {
        out.push_str(&esc(&s));
        return;
    }
    if depth > 8 {
        out.push('…');
        return;
    }
    match v {
        Value::Array(a) if a.is_empty() => out.push_str("none"),
        Value::Array(a) => {
            out.push_str("<ol class=\"view-list\">");
            for x in a {
                out.push_str("<li>");
                value(x, seats, depth + 1, out);
                out.push_str("</li>");
            }
            out.push_str("</ol>");
        }
        Value::Object(m) => object(m, seats, depth, out),
        _ => {}
    }
}

fn object(m: &Map<String, Value>, seats: &[String], depth: usize, out: &mut String) {
    let n = seats.len();
    let table: Vec<(&String, &Vec<Value>)> =
        m.iter().filter(|(_, v)| per_seat(v, n)).filter_map(|(k, v)| v.as_array().map(|a| (k, a))).collect();
    if !table.is_empty() {
        out.push_str("<table class=\"view-seats\"><caption>By seat</caption><thead><tr><th scope=\"col\">Seat</th>");
        for (k, _) in &table {
            out.push_str(&format!("<th scope=\"col\">{}</th>", esc(&label(k))));
        }
        out.push_str("</tr></thead><tbody>");
        for seat in 0..n {
            out.push_str(&format!(
                "<tr data-seat=\"{seat}\"><th scope=\"row\"><span class=\"seat-dot seat-{}\"></span>{}</th>",
                seat % 6,
                esc(&seat_name(seats, seat as u8))
            ));
            for (k, a) in &table {
                out.push_str(&format!(
                    "<td data-key=\"{}\">{}</td>",
                    esc(k),
                    esc(&scalar(&a[seat]).unwrap_or_default())
                ));
            }
            out.push_str("</tr>");
        }
        out.push_str("</tbody></table>");
    }
    let rest: Vec<(&String, &Value)> = m.iter().filter(|(_, v)| !per_seat(v, n)).collect();
    if !rest.is_empty() {
        out.push_str("<dl class=\"view\">");
        for (k, v) in rest {
            out.push_str(&format!("<dt>{}</dt><dd data-key=\"{}\">", esc(&label(k)), esc(k)));
            value(v, seats, depth + 1, out);
            out.push_str("</dd>");
        }
        out.push_str("</dl>");
    }
}

/// The view as HTML; every text is escaped.
pub fn html(view: &Value, seats: &[String]) -> String {
    let mut out = String::from("<div class=\"view-text\">");
    value(view, seats, 0, &mut out);
    out.push_str("</div>");
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn per_seat_lists_become_a_table_and_text_is_escaped() {
        let seats = vec!["Ása".to_owned(), "<b>Bo</b>".to_owned()];
        let h = html(&json!({"scores": [1, 2], "note": "<script>", "deep": {"a": [1, 2, 3]}}), &seats);
        assert!(h.contains("<th scope=\"col\">Scores</th>"));
        assert!(h.contains("&lt;b&gt;Bo&lt;/b&gt;"));
        assert!(h.contains("&lt;script&gt;") && !h.contains("<script>"));
        assert!(h.contains("<ol class=\"view-list\"><li>1</li>"));
    }
}
