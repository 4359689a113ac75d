//! A compact binary form of a JSON value, for snapshots: the same
//! [`Value`] back, in a fraction of its text's bytes, with no dependency.
//!
//! A position's JSON is mostly the same few object shapes over and over
//! (an area's `{"axes":0,"caster":null,"disks":0,"owner":null,"runes":0}`),
//! the same short strings (enum variants), and small numbers. So every
//! string is written once and referred to after, every object shape (its
//! list of keys) is written once and later objects of that shape are only
//! their values, and numbers are varints. Strings may also be taken from a
//! dictionary both sides derive from elsewhere (a snapshot's: the game's
//! options, so a custom board's text held in the state is not stored again).
//!
//! ```text
//! value   0 null | 1 false | 2 true | 3 u64 | 4 negative i64 (varint of -1-n) | 5 f64 (8 bytes LE)
//!         6 new string (varint length, UTF-8) | 7 string seen before (varint index)
//!         8 dictionary string (varint index) | 9 array (varint n, n values)
//!         10 object of a new shape (varint n, n × (key: a string value, value))
//!         11 object of a shape seen before (varint shape index, a value per key)
//! ```
//!
//! Reading checks every length and index against what is there, and nests at
//! most [`MAX_DEPTH`] deep: damaged bytes give an error, never a panic.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};

/// The deepest nesting [`unpack`] reads.
pub const MAX_DEPTH: usize = 128;

/// The shortest string a dictionary holds (shorter ones cost less inline).
pub const DICT_MIN: usize = 16;

/// The strings of `v` (in the order of its text) at least [`DICT_MIN`] bytes
/// long: the dictionary a value derived from `v` is packed against.
pub fn dictionary(v: &Value) -> Vec<&str> {
    fn walk<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
        match v {
            Value::String(s) if s.len() >= DICT_MIN => out.push(s),
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(m) => m.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut out);
    out
}

/// `v` in the packed form, against `dict`.
pub fn pack(v: &Value, dict: &[&str]) -> Vec<u8> {
    let mut p = Packer {
        out: Vec::with_capacity(1024),
        strings: HashMap::new(),
        shapes: HashMap::new(),
        dict: dict.iter().enumerate().map(|(i, s)| (*s, i)).collect(),
    };
    p.value(v);
    p.out
}

struct Packer<'a> {
    out: Vec<u8>,
    strings: HashMap<&'a str, usize>,
    shapes: HashMap<Vec<&'a str>, usize>,
    dict: HashMap<&'a str, usize>,
}

fn varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

impl<'a> Packer<'a> {
    fn string(&mut self, s: &'a str) {
        if let Some(&i) = self.strings.get(s) {
            self.out.push(7);
            varint(&mut self.out, i as u64);
        } else if let Some(&i) = self.dict.get(s) {
            self.out.push(8);
            varint(&mut self.out, i as u64);
        } else {
            self.out.push(6);
            varint(&mut self.out, s.len() as u64);
            self.out.extend_from_slice(s.as_bytes());
            let n = self.strings.len();
            self.strings.insert(s, n);
        }
    }

    fn value(&mut self, v: &'a Value) {
        match v {
            Value::Null => self.out.push(0),
            Value::Bool(false) => self.out.push(1),
            Value::Bool(true) => self.out.push(2),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    self.out.push(3);
                    varint(&mut self.out, u);
                } else if let Some(i) = n.as_i64() {
                    self.out.push(4);
                    varint(&mut self.out, (-1 - i) as u64);
                } else {
                    self.out.push(5);
                    self.out.extend_from_slice(&n.as_f64().unwrap_or(0.0).to_le_bytes());
                }
            }
            Value::String(s) => self.string(s),
            Value::Array(a) => {
                self.out.push(9);
                varint(&mut self.out, a.len() as u64);
                for x in a {
                    self.value(x);
                }
            }
            Value::Object(m) => {
                let keys: Vec<&'a str> = m.keys().map(String::as_str).collect();
                if let Some(&i) = self.shapes.get(&keys) {
                    self.out.push(11);
                    varint(&mut self.out, i as u64);
                    for x in m.values() {
                        self.value(x);
                    }
                } else {
                    self.out.push(10);
                    varint(&mut self.out, m.len() as u64);
                    for (k, x) in m {
                        self.string(k);
                        self.value(x);
                    }
                    let n = self.shapes.len();
                    self.shapes.insert(keys, n);
                }
            }
        }
    }
}

/// The value [`pack`] packed against the same `dict`.
pub fn unpack(bytes: &[u8], dict: &[&str]) -> Result<Value, String> {
    let mut u = Unpacker { b: bytes, strings: Vec::new(), shapes: Vec::new(), dict };
    let v = u.value(0)?;
    if !u.b.is_empty() {
        return Err(format!("{} bytes left over after the value", u.b.len()));
    }
    Ok(v)
}

struct Unpacker<'a, 'd> {
    b: &'a [u8],
    strings: Vec<String>,
    shapes: Vec<Vec<String>>,
    dict: &'d [&'d str],
}

impl Unpacker<'_, '_> {
    fn byte(&mut self) -> Result<u8, String> {
        let (&first, rest) = self.b.split_first().ok_or("it ends early")?;
        self.b = rest;
        Ok(first)
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err("a number runs on".into())
    }

    /// A count of things each taking at least one more byte.
    fn count(&mut self) -> Result<usize, String> {
        let n = self.varint()?;
        if n > self.b.len() as u64 {
            return Err(format!("a count of {n} is longer than what is left"));
        }
        Ok(n as usize)
    }

    fn index(&mut self, len: usize, what: &str) -> Result<usize, String> {
        let i = self.varint()?;
        if i >= len as u64 {
            return Err(format!("{what} {i} is not one of the {len} known"));
        }
        Ok(i as usize)
    }

    fn string(&mut self, tag: u8) -> Result<String, String> {
        match tag {
            6 => {
                let n = self.varint()?;
                if n > self.b.len() as u64 {
                    return Err("a string runs past the end".into());
                }
                let (s, rest) = self.b.split_at(n as usize);
                self.b = rest;
                let s = std::str::from_utf8(s).map_err(|_| "a string is not UTF-8")?.to_owned();
                self.strings.push(s.clone());
                Ok(s)
            }
            7 => {
                let i = self.index(self.strings.len(), "string")?;
                Ok(self.strings[i].clone())
            }
            8 => {
                let i = self.index(self.dict.len(), "dictionary string")?;
                Ok(self.dict[i].to_owned())
            }
            t => Err(format!("a key has tag {t}, not a string's")),
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!("it nests deeper than {MAX_DEPTH}"));
        }
        Ok(match self.byte()? {
            0 => Value::Null,
            1 => Value::Bool(false),
            2 => Value::Bool(true),
            3 => Value::from(self.varint()?),
            4 => Value::from(-1 - (self.varint()? as i64)),
            5 => {
                if self.b.len() < 8 {
                    return Err("a float runs past the end".into());
                }
                let (f, rest) = self.b.split_at(8);
                self.b = rest;
                let f = f64::from_le_bytes(f.try_into().expect("8 bytes"));
                Value::Number(Number::from_f64(f).ok_or("a float is not finite")?)
            }
            t @ 6..=8 => Value::String(self.string(t)?),
            9 => {
                let n = self.count()?;
                let mut a = Vec::with_capacity(n);
                for _ in 0..n {
                    a.push(self.value(depth + 1)?);
                }
                Value::Array(a)
            }
            10 => {
                let n = self.count()?;
                let (mut m, mut keys) = (Map::new(), Vec::with_capacity(n));
                for _ in 0..n {
                    let tag = self.byte()?;
                    let k = self.string(tag)?;
                    let x = self.value(depth + 1)?;
                    keys.push(k.clone());
                    m.insert(k, x);
                }
                self.shapes.push(keys);
                Value::Object(m)
            }
            11 => {
                let i = self.index(self.shapes.len(), "shape")?;
                let mut m = Map::new();
                for k in 0..self.shapes[i].len() {
                    let x = self.value(depth + 1)?;
                    m.insert(self.shapes[i][k].clone(), x);
                }
                Value::Object(m)
            }
            t => return Err(format!("unknown tag {t}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_come_back_as_they_were() {
        let board = "x".repeat(40);
        let v = json!({
            "areas": [{"owner": null, "disks": 0}, {"owner": 3, "disks": 2}, {"owner": 1, "disks": 1}],
            "phase": "planning", "again": "planning", "neg": -7, "min": i64::MIN, "max": u64::MAX,
            "f": 1.5, "t": true, "no": false, "empty": {}, "list": [], "board": board,
            "nested": [[{"a": [1, 2, {"b": "planning"}]}]], "unicode": "Þingvellir ✓",
        });
        let dict = vec![board.as_str()];
        let packed = pack(&v, &dict);
        assert_eq!(unpack(&packed, &dict).expect("unpacks"), v);
        assert!(!packed.windows(40).any(|w| w == board.as_bytes()), "the dictionary string is referred to");
    }

    /// A position's JSON, many objects of one shape, packs to a fraction.
    #[test]
    fn repeated_shapes_pack_small() {
        let areas: Vec<Value> = (0..60)
            .map(|i| json!({"axes": 0, "caster": null, "disks": i % 3, "owner": if i % 4 == 0 { json!(i % 5) } else { json!(null) }, "runes": 0}))
            .collect();
        let v = json!({ "areas": areas, "phase": "action" });
        let packed = pack(&v, &[]);
        assert_eq!(unpack(&packed, &[]).expect("unpacks"), v);
        assert!(
            packed.len() * 4 < v.to_string().len(),
            "{} bytes packed, {} as text",
            packed.len(),
            v.to_string().len()
        );
    }

    #[test]
    fn damaged_bytes_are_an_error_never_a_panic() {
        let v = json!({"a": [1, "two", {"a": null}], "b": {"a": [1, "two", {"a": null}]}});
        let packed = pack(&v, &[]);
        for cut in 0..packed.len() {
            assert!(unpack(&packed[..cut], &[]).is_err(), "cut at {cut}");
        }
        for i in 0..packed.len() {
            for b in [0u8, 7, 8, 11, 0x80, 0xff] {
                let mut bad = packed.clone();
                bad[i] = b;
                let _ = unpack(&bad, &[]);
            }
        }
        assert!(unpack(&[9; 400], &[]).is_err(), "deep nesting is refused");
        assert!(unpack(&[8, 0], &[]).is_err(), "a dictionary string needs the dictionary");
    }
}
