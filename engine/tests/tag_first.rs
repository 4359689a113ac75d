//! `#[derive(TagFirst)]` reads what serde's derive reads, refuses what it
//! refuses, and says so in the same words: each enum here has a twin that
//! derives `Deserialize`, and every input is read by both, through the
//! generic `Deserialize` (from text and from a `Value`) and through
//! `from_json_text`.

use runestone_engine::TagFirst;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

fn seven() -> Option<u32> {
    Some(7)
}

#[derive(Debug, PartialEq, Serialize, TagFirst)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Fast {
    Moved {
        seat: u8,
        to: Vec<(u8, u8)>,
        #[serde(default = "seven", skip_serializing_if = "Option::is_none")]
        rules: Option<u32>,
        #[serde(default)]
        extra: bool,
        #[serde(rename = "why")]
        reason: String,
    },
    #[serde(rename = "renamed", alias = "also")]
    Nested {
        inner: Option<Box<Fast>>,
    },
    Resumed,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Slow {
    Moved {
        seat: u8,
        to: Vec<(u8, u8)>,
        #[serde(default = "seven", skip_serializing_if = "Option::is_none")]
        rules: Option<u32>,
        #[serde(default)]
        extra: bool,
        #[serde(rename = "why")]
        reason: String,
    },
    #[serde(rename = "renamed", alias = "also")]
    Nested {
        inner: Option<Box<Slow>>,
    },
    Resumed,
}

#[derive(Debug, PartialEq, TagFirst)]
#[serde(tag = "kind", deny_unknown_fields)]
enum StrictFast {
    Bid { amount: u8 },
    Pass,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(tag = "kind", deny_unknown_fields)]
enum StrictSlow {
    Bid { amount: u8 },
    Pass,
}

/// The error's words without serde_json's position ("at line 1 column 9").
fn words(e: serde_json::Error) -> String {
    let s = e.to_string();
    match s.find(" at line ") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}

/// Both enums read `text` alike, by every reading of `Fast`.
fn same<F, S>(text: &str, from_text: fn(&str) -> serde_json::Result<F>)
where
    F: std::fmt::Debug + for<'de> Deserialize<'de>,
    S: std::fmt::Debug + for<'de> Deserialize<'de>,
{
    let slow = serde_json::from_str::<S>(text).map(|s| format!("{s:?}")).map_err(words);
    let slow_value = serde_json::from_str::<Value>(text)
        .map_err(words)
        .and_then(|v| S::deserialize(v).map(|s| format!("{s:?}")).map_err(words));
    let readings = [
        ("from_json_text", from_text(text).map(|f| format!("{f:?}")).map_err(words)),
        ("Deserialize from text", serde_json::from_str::<F>(text).map(|f| format!("{f:?}")).map_err(words)),
    ];
    // The enums' names differ in Debug and in serde's messages.
    let norm = |r: &Result<String, String>| match r {
        Ok(s) => Ok(s.replace("Slow", "Fast")),
        Err(e) => Err(e.replace("Slow", "Fast")),
    };
    for (how, got) in readings {
        assert_eq!(norm(&got), norm(&slow), "{how} of {text}");
    }
    let value = serde_json::from_str::<Value>(text)
        .map_err(words)
        .and_then(|v| F::deserialize(v).map(|f| format!("{f:?}")).map_err(words));
    assert_eq!(norm(&value), norm(&slow_value), "Deserialize from a Value of {text}");
}

#[test]
fn reads_as_serde_reads() {
    let texts = [
        // The tag first, last (canonical text), in the middle.
        r#"{"type":"moved","seat":1,"to":[[1,2]],"why":"w"}"#,
        r#"{"seat":1,"to":[[1,2],[3,4]],"why":"w","type":"moved"}"#,
        r#"{"seat":1,"type":"moved","to":[],"why":"w","extra":true,"rules":null}"#,
        r#"{"rules":3,"seat":1,"to":[],"type":"moved","why":"w"}"#,
        // Unknown fields are ignored (no deny_unknown_fields).
        r#"{"seat":1,"to":[],"type":"moved","why":"w","zzz":{"a":[1,{"b":2}]}}"#,
        r#"{"type":"moved","aaa":1,"seat":1,"to":[],"why":"w"}"#,
        // Renamed variant, its alias, nesting, unit variant with extra keys.
        r#"{"type":"renamed","inner":{"seat":2,"to":[],"type":"moved","why":"x"}}"#,
        r#"{"inner":null,"type":"also"}"#,
        r#"{"type":"resumed"}"#,
        r#"{"extra":1,"type":"resumed"}"#,
        r#"{"type":"resumed","extra":1}"#,
        // Refused: missing tag, unknown variant, wrong types, missing field,
        // the Rust name instead of the renamed one, not an object.
        r#"{"seat":1,"to":[],"why":"w"}"#,
        r#"{}"#,
        r#"{"seat":1,"type":"jumped"}"#,
        r#"{"type":"Moved","seat":1,"to":[],"why":"w"}"#,
        r#"{"type":"moved","seat":"one","to":[],"why":"w"}"#,
        r#"{"seat":300,"to":[],"type":"moved","why":"w"}"#,
        r#"{"seat":1,"to":[],"type":"moved"}"#,
        r#"{"type":7}"#,
        r#"[1,2]"#,
        // serde's sequence form: the tag first.
        r#"["moved",1,[[1,2]],null,false,"w"]"#,
        r#"["resumed",1,2]"#,
        r#"[]"#,
        r#""moved""#,
        // Duplicate tags.
        r#"{"type":"moved","seat":1,"to":[],"why":"w","type":"moved"}"#,
        r#"{"seat":1,"type":"moved","to":[],"why":"w","type":"moved"}"#,
        r#"{"type":"resumed","type":"resumed"}"#,
        r#"{"seat":1,"to":[],"type":"moved","why":"w","type":"moved"}"#,
        r#"{"seat":1,"to":[],"type":5,"why":"w","type":"moved"}"#,
        // Read from the end only when the tag is plainly the last key.
        r#"{"seat":1,"to":[],"why":"w","type":"mo\u0076ed"}"#,
        r#"{"seat":1,"to":[],"type":"moved","why":"w","a\"type":"resumed"}"#,
        r#"{"seat":1,"to":[],"type":"moved","why":{"type":"resumed"}}"#,
        r#"{"seat":1,"to":[],"why":"w","subtype":"resumed","type":"moved"}"#,
        r#"{"seat":1,"to":[],"why":"w", "type":"moved"}"#,
        r#"{"seat":1,"to":[],"why":"w","type":"moved"} "#,
    ];
    for text in texts {
        same::<Fast, Slow>(text, Fast::from_json_text);
    }
}

#[test]
fn unknown_fields_are_refused_where_denied() {
    let texts = [
        r#"{"kind":"Bid","amount":3}"#,
        r#"{"amount":3,"kind":"Bid"}"#,
        r#"{"amount":3,"kind":"Bid","more":1}"#,
        r#"{"kind":"Bid","amount":3,"more":1}"#,
        r#"{"aaa":1,"amount":3,"kind":"Bid"}"#,
        r#"{"kind":"Pass"}"#,
        r#"{"kind":"Pass","more":1}"#,
        r#"{"amount":3}"#,
        r#"{"kind":"Raise"}"#,
    ];
    for text in texts {
        same::<StrictFast, StrictSlow>(text, StrictFast::from_json_text);
    }
    // The refusal names the field, in serde's words.
    let e = StrictFast::from_json_text(r#"{"amount":3,"kind":"Bid","more":1}"#).unwrap_err();
    assert!(e.to_string().starts_with("unknown field `more`, expected `amount`"), "{e}");
}

#[test]
fn writes_and_reads_back() {
    let events = [
        Fast::Moved { seat: 3, to: vec![(1, 2)], rules: Some(4), extra: true, reason: "r".into() },
        Fast::Nested { inner: Some(Box::new(Fast::Resumed)) },
        Fast::Resumed,
    ];
    for e in events {
        // Canonical text: keys sorted, as the log holds it.
        let text = serde_json::to_value(&e).unwrap().to_string();
        assert_eq!(Fast::from_json_text(&text).unwrap(), e, "{text}");
        assert_eq!(serde_json::from_str::<Fast>(&text).unwrap(), e, "{text}");
        // Tag first, as serde writes it.
        let text = serde_json::to_string(&e).unwrap();
        assert_eq!(serde_json::from_str::<Fast>(&text).unwrap(), e, "{text}");
    }
    let moved = json!({"seat": 1, "to": [], "type": "moved", "why": ""});
    assert_eq!(
        Fast::deserialize(moved).unwrap(),
        Fast::Moved { seat: 1, to: vec![], rules: Some(7), extra: false, reason: String::new() }
    );
    assert_eq!(
        Fast::from_json_text(r#"{"rules":null,"seat":1,"to":[],"type":"moved","why":""}"#).unwrap(),
        Fast::Moved { seat: 1, to: vec![], rules: None, extra: false, reason: String::new() }
    );
}
