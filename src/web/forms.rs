//! Forms: the decision form built from a seat's legal commands, and the
//! commands and requests built back from what a browser posts.

use runestone_engine::DynGame;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// A posted form, in order, repeated names kept.
#[derive(Debug, Default, Deserialize)]
#[serde(transparent)]
pub struct Form(Vec<(String, String)>);

impl Form {
    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

impl From<Vec<(String, String)>> for Form {
    fn from(v: Vec<(String, String)>) -> Form {
        Form(v)
    }
}

/// "EndTurn" → "End turn".
fn words_of(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push(' ');
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out.replace('_', " ")
}

fn short(v: &Value) -> String {
    match v {
        Value::String(s) => words_of(s),
        Value::Object(m) if m.contains_key("type") => label(v),
        Value::Object(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| match v {
                    Value::Object(_) | Value::Array(_) => format!("{}: {}", words_of(k), short(v)),
                    _ => format!("{} {}", words_of(k), short(v)),
                })
                .collect();
            parts.join(", ")
        }
        Value::Array(a) if a.is_empty() => "none".into(),
        Value::Array(a) => a.iter().map(short).collect::<Vec<_>>().join("; "),
        other => other.to_string(),
    }
}

/// A command as a button's words: "Bid 3", "Claim", "Move (from 3, to 4)".
pub fn label(command: &Value) -> String {
    let Some(obj) = command.as_object() else { return short(command) };
    let name = obj.get("type").and_then(Value::as_str).map(words_of).unwrap_or_else(|| "Command".into());
    let rest: Vec<(&String, &Value)> = obj.iter().filter(|(k, _)| *k != "type").collect();
    match rest.as_slice() {
        [] => name,
        [(_, v)] if !v.is_object() && !v.is_array() => format!("{name} {}", short(v)),
        _ => {
            let parts: Vec<String> = rest.iter().map(|(k, v)| format!("{} {}", words_of(k), short(v))).collect();
            format!("{name} ({})", parts.join(", "))
        }
    }
}

/// Buttons up to this many legal commands; a list to choose from beyond.
const MAX_BUTTONS: usize = 24;

/// The decision form of `me`: its legal commands (as buttons, or a list
/// when there are many), and commands with free fields the game adds.
pub fn actions(game: Option<&dyn DynGame>, legal: &[Value], view: &Value, me: Option<u8>) -> Value {
    let items: Vec<Value> = legal.iter().map(|c| json!({ "label": label(c), "json": c.to_string() })).collect();
    let (buttons, choices) = if items.len() <= MAX_BUTTONS { (items, Vec::new()) } else { (Vec::new(), items) };
    let templates: Vec<Value> = match (game, me) {
        (Some(g), Some(me)) => g
            .templates(view, me)
            .into_iter()
            .map(|t| {
                json!({
                    "id": t.id,
                    "label": t.label,
                    "help": t.help,
                    "base": t.base.to_string(),
                    "fields": t.fields,
                })
            })
            .collect(),
        _ => Vec::new(),
    };
    json!({
        "buttons": buttons,
        "choices": choices,
        "templates": templates,
        "any": !legal.is_empty(),
    })
}

/// The submission a decision form posted: `{"command": …, "expected_seq": …}`.
pub fn command_of(form: &Form) -> Result<Value, String> {
    let command = if let Some(cmd) = form.get("cmd").filter(|s| !s.trim().is_empty()) {
        serde_json::from_str::<Value>(cmd).map_err(|e| format!("the chosen command could not be read: {e}"))?
    } else if let Some(base) = form.get("template") {
        let mut obj: Map<String, Value> = match serde_json::from_str(base) {
            Ok(Value::Object(m)) => m,
            _ => return Err("the form's command could not be read; reload the page".into()),
        };
        for (k, v) in form.pairs() {
            if let Some(name) = k.strip_prefix("field.") {
                let number = form.get(&format!("kind.{name}")) == Some("number");
                let value = if number {
                    let n: i64 = v
                        .trim()
                        .parse()
                        .map_err(|_| format!("{} must be a whole number, not {v:?}", words_of(name)))?;
                    json!(n)
                } else {
                    json!(v)
                };
                obj.insert(name.to_owned(), value);
            }
        }
        Value::Object(obj)
    } else if let Some(raw) = form.get("json") {
        if raw.trim().is_empty() {
            return Err("write a command as JSON, for example {\"type\": \"Pass\"}".into());
        }
        serde_json::from_str::<Value>(raw).map_err(|e| format!("this is not valid JSON: {e}"))?
    } else {
        return Err("choose what to do first".into());
    };
    if !command.is_object() {
        return Err("a command is a JSON object with a \"type\"".into());
    }
    submission(form, command)
}

/// `command` as a submission, with the position the form was decided on.
pub fn submission(form: &Form, command: Value) -> Result<Value, String> {
    match form.get("seq").map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(json!({ "command": command })),
        Some(s) => {
            let seq = s.parse::<u64>().map_err(|_| "the page's position could not be read; reload".to_owned())?;
            Ok(json!({ "command": command, "expected_seq": seq }))
        }
    }
}

/// The create request of the host's form, or the errors by field.
pub fn create_request(form: &Form, rows: usize) -> Result<Value, Value> {
    let mut errors = Map::new();
    let ruleset = form.get("ruleset").unwrap_or_default().trim().to_owned();
    if ruleset.is_empty() {
        errors.insert("ruleset".into(), json!("choose a game"));
    }
    let json_field = |name: &str, empty: Value, errors: &mut Map<String, Value>| -> Value {
        let raw = form.get(name).unwrap_or_default().trim();
        if raw.is_empty() {
            return empty;
        }
        match serde_json::from_str::<Value>(raw) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => {
                errors.insert(name.into(), json!("write a JSON object, in braces: { … }"));
                Value::Null
            }
            Err(e) => {
                errors.insert(name.into(), json!(format!("this is not valid JSON: {e}")));
                Value::Null
            }
        }
    };
    let options = json_field("options", json!({}), &mut errors);
    // No policy written: no deadlines.
    let deadlines = json_field("deadlines", Value::Null, &mut errors);
    let mut seats = Vec::new();
    for i in 0..rows {
        let name = form.get(&format!("name.{i}")).unwrap_or_default().trim();
        let email = form.get(&format!("email.{i}")).unwrap_or_default().trim();
        match (name.is_empty(), email.is_empty()) {
            (true, true) => {}
            (true, false) => {
                errors.insert("seats".into(), json!(format!("row {}: give a name for {email}", i + 1)));
            }
            (false, true) => seats.push(json!({ "name": name })),
            (false, false) => seats.push(json!({ "name": name, "email": email })),
        }
    }
    if seats.is_empty() && !errors.contains_key("seats") {
        errors.insert("seats".into(), json!("name at least the players of the game, one per row"));
    }
    if !errors.is_empty() {
        return Err(Value::Object(errors));
    }
    Ok(json!({ "ruleset": ruleset, "options": options, "seats": seats, "deadlines": deadlines }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(pairs: &[(&str, &str)]) -> Form {
        Form(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    #[test]
    fn labels_read_as_words() {
        assert_eq!(label(&json!({"type": "Bid", "amount": 3})), "Bid 3");
        assert_eq!(label(&json!({"type": "EndTurn"})), "End turn");
        assert_eq!(label(&json!({"type": "Move", "from": 1, "to": 2})), "Move (from 1, to 2)");
        assert_eq!(label(&json!({"type": "Plan", "hand": {"godi": 2, "knerrir": 4}})), "Plan (hand godi 2, knerrir 4)");
        assert_eq!(
            label(&json!({"type": "PlayTurn", "steps": [{"type": "Play", "card": "godi"}, {"type": "EndTurn"}]})),
            "Play turn (steps Play godi; End turn)"
        );
    }

    #[test]
    fn commands_come_from_a_button_a_template_or_json() {
        let c = command_of(&form(&[("cmd", "{\"type\":\"Claim\"}"), ("seq", "7")])).unwrap();
        assert_eq!(c, json!({"command": {"type": "Claim"}, "expected_seq": 7}));
        let t = command_of(&form(&[("template", "{\"type\":\"Taunt\"}"), ("field.text", "hi")])).unwrap();
        assert_eq!(t["command"], json!({"type": "Taunt", "text": "hi"}));
        let n =
            command_of(&form(&[("template", "{\"type\":\"Bid\"}"), ("field.amount", "x"), ("kind.amount", "number")]));
        assert!(n.unwrap_err().contains("whole number"));
        assert!(command_of(&form(&[("json", "{oops")])).unwrap_err().contains("not valid JSON"));
        assert!(command_of(&form(&[])).is_err());
    }

    #[test]
    fn the_create_form_reports_errors_by_field() {
        let e = create_request(&form(&[("ruleset", "duel"), ("options", "[1]"), ("email.0", "a@b.c")]), 2).unwrap_err();
        assert!(e["options"].as_str().unwrap().contains("JSON object"));
        assert!(e["seats"].as_str().unwrap().contains("give a name"));
        let ok = create_request(&form(&[("ruleset", "duel"), ("name.0", "Ása"), ("name.1", "Bo")]), 2).unwrap();
        assert_eq!(ok["seats"], json!([{"name": "Ása"}, {"name": "Bo"}]));
        assert_eq!(ok["deadlines"], Value::Null, "no policy, no deadlines");
    }
}
