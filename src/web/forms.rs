//! Forms: the decision form built from a seat's legal commands, and the
//! commands and requests built back from what a browser posts (and what
//! was typed, given back beside a refusal).

use std::collections::BTreeMap;

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

/// What the user typed, given back when a form fails.
#[derive(Default)]
pub struct Entered {
    pub values: BTreeMap<String, String>,
}

impl Entered {
    pub fn of(form: &Form) -> Entered {
        Entered {
            values: form
                .pairs()
                .filter(|(k, _)| *k != "csrf" && *k != "token")
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        }
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

/// The decision form of a seat: its legal commands (as buttons, or a list
/// when there are many), and the commands with free fields its view answer
/// offers (`legal_templates`, the same the API gives).
pub fn actions(legal: &[Value], templates: &[Value]) -> Value {
    let items: Vec<Value> = legal.iter().map(|c| json!({ "label": label(c), "json": c.to_string() })).collect();
    let (buttons, choices) = if items.len() <= MAX_BUTTONS { (items, Vec::new()) } else { (Vec::new(), items) };
    let templates: Vec<Value> = templates
        .iter()
        .map(|t| {
            json!({
                "id": t["id"],
                "label": t["label"],
                "help": t["help"],
                "base": t["base"].to_string(),
                "fields": t["fields"],
            })
        })
        .collect();
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
                let kind = form.get(&format!("kind.{name}"));
                let value = if kind == Some("json") {
                    if v.trim().is_empty() {
                        continue;
                    }
                    serde_json::from_str::<Value>(v).map_err(|e| {
                        format!(
                            "{} is not valid JSON (line {}, column {}): write it as the help above says",
                            words_of(name),
                            e.line(),
                            e.column()
                        )
                    })?
                } else if kind == Some("number") {
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
/// The option fields of a game, built from its options' JSON Schema: a
/// checkbox for a yes-or-no option, a number field (with the schema's
/// bounds) for a whole number, a list for a choice of named values, a text
/// area for a text with a `contentMediaType` (a data file), a text field
/// otherwise. Each field is named `opt.{ruleset}.{option}`.
///
/// A choice of named values may be a reference to a definition (an enum
/// type of its own): its values are read from there. An option that names
/// a seat (its help, `help`, says "seat") is a list of the players by their
/// place in the list of players, up to `max_seats`, or none.
pub fn option_fields(
    ruleset: &str,
    schema: &Value,
    defaults: &Value,
    help: &[(String, String)],
    max_seats: u8,
) -> Vec<Value> {
    let Some(props) = schema["properties"].as_object() else { return Vec::new() };
    // A property's own schema with a reference resolved.
    let resolved = |p: &Value| -> Value {
        let reference = p["$ref"].as_str().or_else(|| p["allOf"][0]["$ref"].as_str());
        match reference
            .and_then(|r| r.rsplit('/').next())
            .and_then(|n| schema["$defs"].get(n).or_else(|| schema["definitions"].get(n)))
        {
            Some(def) => {
                let mut merged = def.clone();
                if let (Some(m), Some(own)) = (merged.as_object_mut(), p.as_object()) {
                    for (k, v) in own.iter().filter(|(k, _)| *k != "$ref" && *k != "allOf") {
                        m.insert(k.clone(), v.clone());
                    }
                }
                merged
            }
            None => p.clone(),
        }
    };
    props
        .iter()
        .map(|(name, p)| {
            let p = &resolved(p);
            let types: Vec<&str> = match &p["type"] {
                Value::String(t) => vec![t.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            let words = help.iter().find(|(n, _)| n == name).map(|(_, w)| w.clone());
            let names_a_seat = types.contains(&"integer") && words.as_deref().is_some_and(|w| w.contains("seat"));
            // The values of a choice: an enum, or constants one of which is taken.
            let choices: Option<Vec<Value>> = p["enum"].as_array().cloned().or_else(|| {
                p["oneOf"].as_array().and_then(|alts| alts.iter().map(|a| a.get("const").cloned()).collect())
            });
            let default = defaults.get(name).cloned().unwrap_or(Value::Null);
            let kind = if types.contains(&"boolean") {
                "checkbox"
            } else if names_a_seat {
                "seat"
            } else if types.contains(&"integer") {
                "number"
            } else if choices.is_some() {
                "select"
            } else if p["contentMediaType"].is_string() {
                "textarea"
            } else {
                "text"
            };
            let mut label = name.replace('_', " ");
            if let Some(f) = label.get(..1) {
                label = f.to_uppercase() + &label[1..];
            }
            json!({
                "id": format!("opt-{ruleset}-{}", name.replace('_', "-")),
                "name": format!("opt.{ruleset}.{name}"),
                "option": name,
                "label": label,
                "help": words.map_or_else(|| p["description"].clone(), Value::from),
                "kind": kind,
                "min": p["minimum"],
                "max": p["maximum"],
                "choices": choices,
                "seats": (1..=max_seats).map(|k| json!({"value": k - 1, "words": format!("player {k}")})).collect::<Vec<_>>(),
                "checked": default == Value::Bool(true),
                "value": match &default { Value::Null | Value::Bool(_) => String::new(), Value::String(s) => s.clone(), v => v.to_string() },
            })
        })
        .collect()
}

/// The options a game's option fields posted: a field left empty keeps
/// the game's default.
pub fn options_of(form: &Form, fields: &[Value]) -> Result<Value, String> {
    let mut out = Map::new();
    for f in fields {
        let (Some(name), Some(option)) = (f["name"].as_str(), f["option"].as_str()) else { continue };
        let label = f["label"].as_str().unwrap_or(option);
        let raw = form.get(name).map(str::trim).unwrap_or_default();
        match f["kind"].as_str() {
            Some("checkbox") => {
                out.insert(option.into(), json!(!raw.is_empty()));
            }
            _ if raw.is_empty() => {}
            Some("number" | "seat") => {
                let n: i64 = raw.parse().map_err(|_| format!("{label}: {raw:?} is not a whole number"))?;
                out.insert(option.into(), json!(n));
            }
            _ => {
                out.insert(option.into(), json!(raw));
            }
        }
    }
    Ok(Value::Object(out))
}

/// The deadline policy of the new-game form's fields: each time a number
/// with its unit (`dl.plan` and `dl.plan.unit` = hours or days); none
/// given, no deadlines. What the numbers must be is the service's to say.
pub fn deadlines_of(form: &Form) -> Result<Value, String> {
    let number = |name: &str, words: &str| -> Result<Option<f64>, String> {
        let raw = form.get(name).map(str::trim).unwrap_or_default();
        if raw.is_empty() {
            return Ok(None);
        }
        raw.parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
            .map(Some)
            .ok_or_else(|| format!("deadline policy: {words}: {raw:?} is not a number"))
    };
    let hours = |name: &str, words: &str| -> Result<Option<f64>, String> {
        let n = number(name, words)?;
        Ok(n.map(|n| if form.get(&format!("{name}.unit")) == Some("days") { n * 24.0 } else { n }))
    };
    let plan = hours("dl.plan", "time to plan")?;
    let turn = hours("dl.turn", "time for a turn")?;
    let small = hours("dl.small", "time for a small decision")?;
    let (Some(plan), Some(turn), Some(small)) = (plan, turn, small) else {
        if plan.is_some() || turn.is_some() || small.is_some() {
            return Err("deadline policy: give the time to plan, for a turn and for a small decision, or none of them for no deadlines".into());
        }
        return Ok(Value::Null);
    };
    let mut policy = json!({"plan_hours": plan, "turn_hours": turn, "small_hours": small});
    let reminders = form.get("dl.reminders").map(str::trim).unwrap_or_default();
    if !reminders.is_empty() {
        let list: Result<Vec<f64>, String> = reminders
            .split(',')
            .map(|r| {
                r.trim().parse::<f64>().map_err(|_| {
                    format!("deadline policy: reminders: {:?} is not a number of hours; write them as 12, 2", r.trim())
                })
            })
            .collect();
        policy["reminders_hours"] = json!(list?);
    }
    if let Some(g) = hours("dl.grace", "grace")? {
        policy["grace_hours"] = json!(g);
    }
    for (name, key, words) in [
        ("dl.bot_after", "bot_after", "the bot plays after missed deadlines"),
        ("dl.substitute_after", "substitute_after", "alert after missed deadlines"),
        ("dl.forfeit_after", "forfeit_after", "forfeit after missed deadlines"),
    ] {
        if let Some(n) = number(name, words)? {
            if n < 0.0 || n.fract() != 0.0 {
                return Err(format!("deadline policy: {words}: give a whole number, not {n}"));
            }
            policy[key] = json!(n as u64);
        }
    }
    Ok(policy)
}

pub fn create_request(form: &Form, rows: usize, fields: &[Value]) -> Result<Value, Value> {
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
    // The options as JSON when written so (for experts), else from the
    // chosen game's option fields.
    let options = if form.get("options").is_some_and(|o| !o.trim().is_empty()) {
        json_field("options", json!({}), &mut errors)
    } else {
        match options_of(form, fields) {
            Ok(o) => o,
            Err(e) => {
                errors.insert("options".into(), json!(e));
                Value::Null
            }
        }
    };
    // The deadlines as JSON when written so (for experts), else from the
    // number fields; no deadline given: no deadlines.
    let deadlines = if form.get("deadlines").is_some_and(|d| !d.trim().is_empty()) {
        json_field("deadlines", Value::Null, &mut errors)
    } else {
        match deadlines_of(form) {
            Ok(d) => d,
            Err(e) => {
                errors.insert("deadlines".into(), json!(e));
                Value::Null
            }
        }
    };
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
    // The host's own address, for the alerts a host gets (a missed
    // deadline, a dead letter); optional.
    let host_name = form.get("host.name").unwrap_or_default().trim();
    let host_email = form.get("host.email").unwrap_or_default().trim();
    let host = match (host_name.is_empty(), host_email.is_empty()) {
        (_, true) if !host_name.is_empty() => {
            errors.insert(
                "host".into(),
                json!("give your email too, or leave your name empty: the email is where host alerts go"),
            );
            Value::Null
        }
        (_, true) => Value::Null,
        (true, false) => json!({ "name": "the host", "email": host_email }),
        (false, false) => json!({ "name": host_name, "email": host_email }),
    };
    if !errors.is_empty() {
        return Err(Value::Object(errors));
    }
    let mut request = json!({ "ruleset": ruleset, "options": options, "seats": seats, "deadlines": deadlines });
    request["press"] = super::press::options_of(form);
    if !host.is_null() {
        request["host"] = host;
    }
    Ok(request)
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
    fn a_games_options_become_fields_from_its_schema_and_come_back_as_options() {
        let schema = json!({"properties": {
            "easy_cards": {"type": "boolean", "description": "The easier variant."},
            "rounds": {"type": ["integer", "null"], "minimum": 1, "maximum": 20},
            "board": {"type": "string", "enum": ["summer", "winter"]},
            "note": {"type": "string"},
            "custom_runes": {"type": ["string", "null"], "contentMediaType": "application/toml"},
        }});
        let defaults = json!({"easy_cards": true, "rounds": null, "board": "summer", "note": ""});
        let fields = option_fields("bardagi", &schema, &defaults, &[], 5);
        let by = |o: &str| fields.iter().find(|f| f["option"] == o).unwrap().clone();
        assert_eq!(by("easy_cards")["kind"], "checkbox");
        assert_eq!(by("easy_cards")["checked"], true);
        assert_eq!(by("easy_cards")["label"], "Easy cards");
        assert_eq!(by("easy_cards")["help"], "The easier variant.");
        assert_eq!(by("rounds")["kind"], "number");
        assert_eq!((by("rounds")["min"].clone(), by("rounds")["max"].clone()), (json!(1), json!(20)));
        assert_eq!(by("board")["kind"], "select");
        assert_eq!(by("board")["value"], "summer");
        assert_eq!(by("note")["kind"], "text");
        assert_eq!(by("custom_runes")["kind"], "textarea", "a data file is written in a text area");
        assert_eq!(by("rounds")["name"], "opt.bardagi.rounds");
        let posted = form(&[("opt.bardagi.rounds", "6"), ("opt.bardagi.board", "winter"), ("opt.bardagi.note", "")]);
        assert_eq!(
            options_of(&posted, &fields).unwrap(),
            json!({"easy_cards": false, "rounds": 6, "board": "winter"}),
            "an unticked box is false; an empty field keeps the default"
        );
        let bad = options_of(&form(&[("opt.bardagi.rounds", "six")]), &fields).unwrap_err();
        assert_eq!(bad, "Rounds: \"six\" is not a whole number");
        let ok = create_request(
            &form(&[("ruleset", "bardagi"), ("name.0", "Ása"), ("opt.bardagi.rounds", "4")]),
            2,
            &fields,
        )
        .unwrap();
        assert_eq!(ok["options"]["rounds"], 4);
        let json_wins = create_request(
            &form(&[("ruleset", "bardagi"), ("name.0", "Ása"), ("options", "{\"rounds\": 2}")]),
            2,
            &fields,
        )
        .unwrap();
        assert_eq!(json_wins["options"], json!({"rounds": 2}));
    }

    #[test]
    fn a_choice_by_reference_is_a_list_and_an_option_naming_a_seat_lists_the_players() {
        let schema = json!({
            "$defs": {"Mode": {"type": "string", "enum": ["fast", "basic"]}},
            "properties": {
                "mode": {"$ref": "#/$defs/Mode", "default": "fast", "description": "\"fast\" or \"basic\"."},
                "lawspeaker": {"type": ["integer", "null"], "minimum": 0, "maximum": 255, "description": "`None` picks one."},
            }
        });
        let help = vec![("lawspeaker".to_owned(), "The first Lawspeaker's seat; empty for a random one".to_owned())];
        let fields = option_fields("thingvellir", &schema, &json!({"mode": "fast", "lawspeaker": null}), &help, 3);
        let by = |o: &str| fields.iter().find(|f| f["option"] == o).unwrap().clone();
        assert_eq!(by("mode")["kind"], "select");
        assert_eq!(by("mode")["choices"], json!(["fast", "basic"]));
        assert_eq!(by("mode")["value"], "fast");
        assert_eq!(by("lawspeaker")["kind"], "seat");
        assert_eq!(
            by("lawspeaker")["help"],
            "The first Lawspeaker's seat; empty for a random one",
            "the help in words"
        );
        assert_eq!(by("lawspeaker")["seats"][2], json!({"value": 2, "words": "player 3"}));
        let posted = form(&[("opt.thingvellir.mode", "basic"), ("opt.thingvellir.lawspeaker", "2")]);
        assert_eq!(options_of(&posted, &fields).unwrap(), json!({"mode": "basic", "lawspeaker": 2}));
    }

    #[test]
    fn deadlines_are_numbers_with_units() {
        assert_eq!(deadlines_of(&form(&[])).unwrap(), Value::Null, "none given, no deadlines");
        let d = deadlines_of(&form(&[
            ("dl.plan", "2"),
            ("dl.plan.unit", "days"),
            ("dl.turn", "36"),
            ("dl.turn.unit", "hours"),
            ("dl.small", "12"),
            ("dl.reminders", "12, 2"),
            ("dl.grace", "1"),
            ("dl.grace.unit", "days"),
            ("dl.forfeit_after", "0"),
        ]))
        .unwrap();
        assert_eq!(
            d,
            json!({"plan_hours": 48.0, "turn_hours": 36.0, "small_hours": 12.0, "reminders_hours": [12.0, 2.0],
                   "grace_hours": 24.0, "forfeit_after": 0})
        );
        let half = deadlines_of(&form(&[("dl.plan", "2")])).unwrap_err();
        assert!(half.contains("or none of them"), "{half}");
        let bad = deadlines_of(&form(&[("dl.plan", "x"), ("dl.turn", "1"), ("dl.small", "1")])).unwrap_err();
        assert_eq!(bad, "deadline policy: time to plan: \"x\" is not a number");
    }

    #[test]
    fn the_create_form_reports_errors_by_field() {
        let e = create_request(&form(&[("ruleset", "duel"), ("options", "[1]"), ("email.0", "a@b.c")]), 2, &[])
            .unwrap_err();
        assert!(e["options"].as_str().unwrap().contains("JSON object"));
        assert!(e["seats"].as_str().unwrap().contains("give a name"));
        let ok = create_request(&form(&[("ruleset", "duel"), ("name.0", "Ása"), ("name.1", "Bo")]), 2, &[]).unwrap();
        assert_eq!(ok["seats"], json!([{"name": "Ása"}, {"name": "Bo"}]));
        assert_eq!(ok["deadlines"], Value::Null, "no policy, no deadlines");
        assert!(ok.get("host").is_none(), "no host address, no host alerts");
        let players = [("ruleset", "duel"), ("name.0", "Ása")];
        let with =
            |extra: &[(&'static str, &'static str)]| create_request(&form(&[&players[..], extra].concat()), 2, &[]);
        let host = with(&[("host.name", "Dís"), ("host.email", "dis@example.org")]).unwrap();
        assert_eq!(host["host"], json!({"name": "Dís", "email": "dis@example.org"}));
        let nameless = with(&[("host.email", "dis@example.org")]).unwrap();
        assert_eq!(nameless["host"]["name"], "the host");
        let no_email = with(&[("host.name", "Dís")]).unwrap_err();
        assert!(no_email["host"].as_str().unwrap().contains("give your email too"), "{no_email}");
    }
}
