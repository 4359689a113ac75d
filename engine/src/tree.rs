//! The tree form: a JSON value in compact binary, read straight into a
//! game's types. What the store keeps of a game event, its redacted form and
//! its command (`store::codec`, form 3), so a fold reads no JSON text.
//!
//! It is JSON's own data model, self-describing: a value says what it is
//! (null, a boolean, a number, a string, an array, an object and its keys),
//! so it reads back as the same JSON whatever the game's types are now (an
//! event written by an older build reads as its JSON text would; the games'
//! upcasters see the same `Value`). What makes it small and quick is a fixed
//! table ([`TABLE`], never edited) of the object shapes (key lists) and
//! strings (variant names) of every game's events when it was made: an
//! object of a known shape is its shape's number and its values, a known
//! string its number. Anything else is written inline (keys and texts), so
//! every JSON value has a tree form.
//!
//! ```text
//! value  0x00 null | 0x01 false | 0x02 true
//!      | 0x03 varint            an integer >= 96
//!      | 0x04 varint            a negative integer, -1 - n
//!      | 0x05 f64 (8 bytes LE)
//!      | 0x06 varint n, n bytes a string (UTF-8)
//!      | 0x07 varint i          the table's string i >= 64
//!      | 0x08 varint n, n values an array of 16 or more
//!      | 0x09 varint n, n × (varint len, key bytes, value)
//!                               an object with its keys (in text order)
//!      | 0x0a varint i, values  an object of the table's shape i >= 64
//!      | 0x0b varint off, varint len
//!                               the value at bytes off..off+len of another
//!                               tree (a command's part its event holds)
//!      | 0x10 + n, n values     an array of n < 16
//!      | 0x20 + n               the integer n < 96
//!      | 0x80 + i               the table's string i < 64
//!      | 0xc0 + i, values       an object of the table's shape i < 64
//! ```
//!
//! A shape lists its keys in the order its values are written: the key
//! `type` first (a game's internally tagged enums read their variant before
//! its fields, with nothing buffered: `TagFirst`), then the others in text
//! order. [`render`] writes the canonical text back (keys sorted, as
//! [`crate::Json`] holds them). [`encode_text`] gives a text's tree form
//! only when it renders back to that very text, so a stored event's text
//! (and the chain over it) never changes through this form.
//!
//! Reading checks every length and index against what is there, and nests
//! at most [`MAX_DEPTH`] deep: damaged bytes give an error, never a panic.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::Serialize;
use serde_json::Value;

/// The fixed table of shapes and strings: one JSON value a line, a string
/// for a string, an array of keys (in stored order) for a shape, numbered in
/// order within each kind. Never to be edited: every stored tree depends on
/// it (a test pins its hash); a better table is a new form.
pub const TABLE: &str = include_str!("tree-v1.txt");

/// The deepest nesting read.
pub const MAX_DEPTH: usize = 128;

/// The shortest part of a command written as a reference into its event.
pub const REF_MIN: usize = 12;

const NULL: u8 = 0x00;
const FALSE: u8 = 0x01;
const TRUE: u8 = 0x02;
const UINT: u8 = 0x03;
const NEG: u8 = 0x04;
const FLOAT: u8 = 0x05;
const STR: u8 = 0x06;
const TABLE_STR: u8 = 0x07;
const ARRAY: u8 = 0x08;
const OBJECT: u8 = 0x09;
const SHAPE: u8 = 0x0a;
const REF: u8 = 0x0b;
const SMALL_ARRAY: u8 = 0x10;
const SMALL_UINT: u8 = 0x20;
const SMALL_STR: u8 = 0x80;
const SMALL_SHAPE: u8 = 0xc0;

const SMALL_ARRAY_MAX: usize = 16;
const SMALL_UINT_MAX: u64 = 96;
const SMALL_INDEX_MAX: usize = 64;

/// A shape of the table.
struct Shape {
    /// The keys in stored order.
    keys: Vec<&'static str>,
    /// The positions of the keys in text (sorted) order.
    sorted: Vec<usize>,
}

struct Table {
    strings: Vec<&'static str>,
    string_index: HashMap<&'static str, usize>,
    shapes: Vec<Shape>,
    /// The shapes by their keys in text order, joined by `\0`.
    shape_index: HashMap<String, usize>,
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = Table {
            strings: Vec::new(),
            string_index: HashMap::new(),
            shapes: Vec::new(),
            shape_index: HashMap::new(),
        };
        for line in TABLE.lines().filter(|l| !l.is_empty()) {
            match serde_json::from_str::<Value>(line).expect("the tree table is JSON lines") {
                Value::String(s) => {
                    let s: &'static str = Box::leak(s.into_boxed_str());
                    t.string_index.entry(s).or_insert(t.strings.len());
                    t.strings.push(s);
                }
                Value::Array(keys) => {
                    let keys: Vec<&'static str> = keys
                        .into_iter()
                        .map(|k| match k {
                            Value::String(k) => &*Box::leak(k.into_boxed_str()),
                            _ => panic!("a shape of the tree table lists strings"),
                        })
                        .collect();
                    let mut sorted: Vec<usize> = (0..keys.len()).collect();
                    sorted.sort_by_key(|&i| keys[i]);
                    let joined = sorted.iter().map(|&i| keys[i]).collect::<Vec<_>>().join("\0");
                    t.shape_index.entry(joined).or_insert(t.shapes.len());
                    t.shapes.push(Shape { keys, sorted });
                }
                _ => panic!("the tree table holds strings and arrays"),
            }
        }
        t
    })
}

// ---------------------------------------------------------------- writing

fn varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn index(out: &mut Vec<u8>, small: u8, big: u8, i: usize) {
    if i < SMALL_INDEX_MAX {
        out.push(small + i as u8);
    } else {
        out.push(big);
        varint(out, i as u64);
    }
}

/// The tree form of a canonical JSON text, if it renders back to that very
/// text (a text that is not canonical, or not JSON, has none).
pub fn encode_text(text: &str) -> Option<Vec<u8>> {
    encode_text_with(text, None)
}

/// The tree form of a canonical JSON text whose parts also in the tree
/// `base` (its event's) are written as references to them, if it renders
/// back to that very text.
pub fn encode_text_against(text: &str, base: &[u8]) -> Option<Vec<u8>> {
    encode_text_with(text, Some(base))
}

fn encode_text_with(text: &str, base: Option<&[u8]>) -> Option<Vec<u8>> {
    let v: Value = serde_json::from_str(text).ok()?;
    let mut out = Vec::with_capacity(text.len() / 4 + 8);
    write_tree(&v, base, &mut out);
    (render(&out, base).ok()? == text).then_some(out)
}

/// `v` appended to `out`; with a `base`, an array or object of at least
/// [`REF_MIN`] bytes that `base` holds whole is a reference to it there.
fn write_tree(v: &Value, base: Option<&[u8]>, out: &mut Vec<u8>) {
    let t = table();
    match v {
        Value::Null => out.push(NULL),
        Value::Bool(false) => out.push(FALSE),
        Value::Bool(true) => out.push(TRUE),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                if u < SMALL_UINT_MAX {
                    out.push(SMALL_UINT + u as u8);
                } else {
                    out.push(UINT);
                    varint(out, u);
                }
            } else if let Some(i) = n.as_i64() {
                out.push(NEG);
                varint(out, (-1 - i) as u64);
            } else {
                out.push(FLOAT);
                out.extend_from_slice(&n.as_f64().unwrap_or(0.0).to_le_bytes());
            }
        }
        Value::String(s) => match t.string_index.get(s.as_str()) {
            Some(&i) => index(out, SMALL_STR, TABLE_STR, i),
            None => {
                out.push(STR);
                varint(out, s.len() as u64);
                out.extend_from_slice(s.as_bytes());
            }
        },
        Value::Array(_) | Value::Object(_) if base.is_some_and(|base| write_ref(v, base, out)) => {}
        Value::Array(a) => {
            if a.len() < SMALL_ARRAY_MAX {
                out.push(SMALL_ARRAY + a.len() as u8);
            } else {
                out.push(ARRAY);
                varint(out, a.len() as u64);
            }
            for x in a {
                write_tree(x, base, out);
            }
        }
        Value::Object(m) => {
            let joined = m.keys().map(String::as_str).collect::<Vec<_>>().join("\0");
            match t.shape_index.get(&joined) {
                Some(&i) => {
                    index(out, SMALL_SHAPE, SHAPE, i);
                    for k in &t.shapes[i].keys {
                        write_tree(&m[*k], base, out);
                    }
                }
                None => {
                    out.push(OBJECT);
                    varint(out, m.len() as u64);
                    for (k, x) in m {
                        varint(out, k.len() as u64);
                        out.extend_from_slice(k.as_bytes());
                        write_tree(x, base, out);
                    }
                }
            }
        }
    }
}

/// A reference to `v` in `base`, appended to `out`, when `base` holds `v`'s
/// tree whole and it is at least [`REF_MIN`] bytes; whether it was.
fn write_ref(v: &Value, base: &[u8], out: &mut Vec<u8>) -> bool {
    let mut alone = Vec::new();
    write_tree(v, None, &mut alone);
    if alone.len() < REF_MIN {
        return false;
    }
    let Some(off) = base.windows(alone.len()).position(|w| w == alone.as_slice()) else { return false };
    // Only a whole value of the base: its bytes there read as one.
    if value_len(&base[off..]).ok() != Some(alone.len()) {
        return false;
    }
    out.push(REF);
    varint(out, off as u64);
    varint(out, alone.len() as u64);
    true
}

// ---------------------------------------------------------------- reading

/// What is wrong with bytes that do not read as a tree, or with a value a
/// type refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(pub String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

fn damaged(what: &str) -> Error {
    Error(format!("damaged tree: {what}"))
}

/// One value's head, read.
enum Head<'de> {
    Null,
    Bool(bool),
    Uint(u64),
    Neg(i64),
    Float(f64),
    Str(&'de str),
    Array(usize),
    Object(usize),
    Shape(&'static Shape),
    Ref(usize, usize),
}

struct Reader<'de> {
    b: &'de [u8],
    t: &'static Table,
}

impl<'de> Reader<'de> {
    fn byte(&mut self) -> Result<u8, Error> {
        let (&b, rest) = self.b.split_first().ok_or_else(|| damaged("it ends inside a value"))?;
        self.b = rest;
        Ok(b)
    }

    #[inline]
    fn varint(&mut self) -> Result<u64, Error> {
        if let Some((&b, rest)) = self.b.split_first() {
            if b < 0x80 {
                self.b = rest;
                return Ok(u64::from(b));
            }
        }
        let mut n: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(damaged("a number runs past 64 bits"))
    }

    fn len(&mut self) -> Result<usize, Error> {
        let n = self.varint()?;
        usize::try_from(n).ok().filter(|&n| n <= self.b.len()).ok_or_else(|| damaged("a length runs past its end"))
    }

    fn bytes(&mut self, n: usize) -> Result<&'de [u8], Error> {
        if n > self.b.len() {
            return Err(damaged("it ends inside a string"));
        }
        let (a, rest) = self.b.split_at(n);
        self.b = rest;
        Ok(a)
    }

    fn str(&mut self) -> Result<&'de str, Error> {
        let n = self.len()?;
        std::str::from_utf8(self.bytes(n)?).map_err(|_| damaged("a string is not UTF-8"))
    }

    #[inline]
    fn string(&self, i: usize) -> Result<&'static str, Error> {
        self.t.strings.get(i).copied().ok_or_else(|| damaged("a string number the table lacks"))
    }

    #[inline]
    fn shape(&self, i: usize) -> Result<&'static Shape, Error> {
        self.t.shapes.get(i).ok_or_else(|| damaged("a shape number the table lacks"))
    }

    fn head(&mut self) -> Result<Head<'de>, Error> {
        let tag = self.byte()?;
        Ok(match tag {
            NULL => Head::Null,
            FALSE => Head::Bool(false),
            TRUE => Head::Bool(true),
            UINT => Head::Uint(self.varint()?),
            NEG => {
                let n = self.varint()?;
                Head::Neg(i64::try_from(n).map(|n| -1 - n).map_err(|_| damaged("a negative number too large"))?)
            }
            FLOAT => Head::Float(f64::from_le_bytes(self.bytes(8)?.try_into().expect("8 bytes"))),
            STR => Head::Str(self.str()?),
            TABLE_STR => {
                let i = self.varint()? as usize;
                Head::Str(self.string(i)?)
            }
            ARRAY => Head::Array(self.len()?),
            OBJECT => Head::Object(self.len()?),
            SHAPE => {
                let i = self.varint()? as usize;
                Head::Shape(self.shape(i)?)
            }
            REF => {
                let off = self.varint()? as usize;
                let len = self.varint()? as usize;
                Head::Ref(off, len)
            }
            t if (SMALL_ARRAY..SMALL_ARRAY + SMALL_ARRAY_MAX as u8).contains(&t) => {
                Head::Array(usize::from(t - SMALL_ARRAY))
            }
            t if (SMALL_UINT..SMALL_UINT + SMALL_UINT_MAX as u8).contains(&t) => Head::Uint(u64::from(t - SMALL_UINT)),
            t if (SMALL_STR..SMALL_SHAPE).contains(&t) => Head::Str(self.string(usize::from(t - SMALL_STR))?),
            t if t >= SMALL_SHAPE => Head::Shape(self.shape(usize::from(t - SMALL_SHAPE))?),
            t => return Err(damaged(&format!("unknown tag {t:#04x}"))),
        })
    }

    /// Past one value.
    fn skip(&mut self, depth: usize) -> Result<(), Error> {
        if depth > MAX_DEPTH {
            return Err(damaged("nested too deep"));
        }
        match self.head()? {
            Head::Array(n) => (0..n).try_for_each(|_| self.skip(depth + 1)),
            Head::Object(n) => (0..n).try_for_each(|_| {
                let n = self.len()?;
                self.bytes(n)?;
                self.skip(depth + 1)
            }),
            Head::Shape(s) => s.keys.iter().try_for_each(|_| self.skip(depth + 1)),
            _ => Ok(()),
        }
    }
}

/// How many bytes the value at the start of `b` takes.
fn value_len(b: &[u8]) -> Result<usize, Error> {
    let mut r = Reader { b, t: table() };
    r.skip(0)?;
    Ok(b.len() - r.b.len())
}

/// Reads a tree into any type that reads JSON, as serde_json would read its
/// text (the same data model: numbers, strings, arrays, objects).
pub struct Deserializer<'de> {
    r: Reader<'de>,
    depth: usize,
}

impl<'de> Deserializer<'de> {
    pub fn new(bytes: &'de [u8]) -> Deserializer<'de> {
        Deserializer { r: Reader { b: bytes, t: table() }, depth: 0 }
    }

    /// Everything was read.
    pub fn end(&self) -> Result<(), Error> {
        if self.r.b.is_empty() {
            Ok(())
        } else {
            Err(damaged("bytes follow its value"))
        }
    }

    fn nest(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(damaged("nested too deep"));
        }
        Ok(())
    }

    /// An object's `n` entries visited; as serde_json does, an object its
    /// visitor leaves partly unread is refused.
    fn visit_entries<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        keys: Option<&'static [&'static str]>,
        n: usize,
    ) -> Result<V::Value, Error> {
        self.nest()?;
        let mut map = Entries { d: &mut *self, keys, left: n };
        let v = visitor.visit_map(&mut map)?;
        let left = map.left;
        self.unnest(left == 0)?;
        Ok(v)
    }

    fn unnest(&mut self, all_read: bool) -> Result<(), Error> {
        self.depth -= 1;
        if all_read {
            Ok(())
        } else {
            Err(Error("a value has more entries than its type takes".into()))
        }
    }
}

/// `T` read from a whole tree.
pub fn from_bytes<'de, T: serde::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, Error> {
    let mut d = Deserializer::new(bytes);
    let t = T::deserialize(&mut d)?;
    d.end()?;
    Ok(t)
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // The commonest values (a variant's name, a small number, an object
        // of a known shape) without the general reading of a value's head.
        if let Some((&tag, rest)) = self.r.b.split_first() {
            if tag >= SMALL_STR {
                self.r.b = rest;
                let i = usize::from(tag & 0x3f);
                if tag < SMALL_SHAPE {
                    return visitor.visit_borrowed_str(self.r.string(i)?);
                }
                let shape = self.r.shape(i)?;
                return self.visit_entries(visitor, Some(&shape.keys), shape.keys.len());
            }
            if tag >= SMALL_UINT {
                self.r.b = rest;
                return visitor.visit_u64(u64::from(tag - SMALL_UINT));
            }
        }
        match self.r.head()? {
            Head::Null => visitor.visit_unit(),
            Head::Bool(b) => visitor.visit_bool(b),
            Head::Uint(n) => visitor.visit_u64(n),
            Head::Neg(n) => visitor.visit_i64(n),
            Head::Float(f) => visitor.visit_f64(f),
            Head::Str(s) => visitor.visit_borrowed_str(s),
            // As serde_json does, a value its visitor leaves partly unread is
            // refused.
            Head::Array(n) => {
                self.nest()?;
                let mut seq = Seq { d: &mut *self, left: n };
                let v = visitor.visit_seq(&mut seq)?;
                let left = seq.left;
                self.unnest(left == 0)?;
                Ok(v)
            }
            Head::Object(n) => self.visit_entries(visitor, None, n),
            Head::Shape(s) => self.visit_entries(visitor, Some(&s.keys), s.keys.len()),
            Head::Ref(..) => Err(damaged("a reference outside a command")),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.r.b.first() == Some(&NULL) {
            self.r.b = &self.r.b[1..];
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if let Some((&tag, rest)) = self.r.b.split_first() {
            if (SMALL_STR..SMALL_SHAPE).contains(&tag) {
                self.r.b = rest;
                let name: &'de str = self.r.string(usize::from(tag - SMALL_STR))?;
                return visitor.visit_enum(de::value::BorrowedStrDeserializer::new(name));
            }
        }
        let at = self.r.b;
        match self.r.head()? {
            Head::Str(s) => visitor.visit_enum(s.into_deserializer()),
            Head::Object(1) => {
                let key = self.r.str()?;
                self.nest()?;
                let v = visitor.visit_enum(Variant { d: &mut *self, key })?;
                self.depth -= 1;
                Ok(v)
            }
            Head::Shape(s) if s.keys.len() == 1 => {
                self.nest()?;
                let v = visitor.visit_enum(Variant { d: &mut *self, key: s.keys[0] })?;
                self.depth -= 1;
                Ok(v)
            }
            _ => {
                self.r.b = at;
                Err(Error("expected a string or an object of one key for an enum".into()))
            }
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.r.skip(self.depth)?;
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        true
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

struct Seq<'a, 'de> {
    d: &'a mut Deserializer<'de>,
    left: usize,
}

impl<'de> de::SeqAccess<'de> for Seq<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.d).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// An object's entries: its keys written inline (`keys` is `None`), or
/// those of its shape.
struct Entries<'a, 'de> {
    d: &'a mut Deserializer<'de>,
    keys: Option<&'static [&'static str]>,
    left: usize,
}

impl<'de> de::MapAccess<'de> for Entries<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        if self.left == 0 {
            return Ok(None);
        }
        let key: &'de str = match self.keys {
            Some(keys) => keys[keys.len() - self.left],
            None => self.d.r.str()?,
        };
        self.left -= 1;
        seed.deserialize(de::value::BorrowedStrDeserializer::new(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(&mut *self.d)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

struct Variant<'a, 'de> {
    d: &'a mut Deserializer<'de>,
    key: &'de str,
}

impl<'a, 'de> de::EnumAccess<'de> for Variant<'a, 'de> {
    type Error = Error;
    type Variant = &'a mut Deserializer<'de>;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant), Error> {
        let v = seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(self.key))?;
        Ok((v, self.d))
    }
}

impl<'de> de::VariantAccess<'de> for &mut Deserializer<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        de::Deserialize::deserialize(self)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_any(self, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_any(self, visitor)
    }
}

// ---------------------------------------------------------------- rendering

/// The canonical JSON text of a tree (keys sorted, as `Value`'s text is);
/// `base` the tree a command's references point into.
pub fn render(bytes: &[u8], base: Option<&[u8]>) -> Result<String, Error> {
    let mut out = Vec::with_capacity(bytes.len() * 4 + 16);
    let mut r = Reader { b: bytes, t: table() };
    write_value(&mut r, base, &mut out, 0)?;
    if !r.b.is_empty() {
        return Err(damaged("bytes follow its value"));
    }
    String::from_utf8(out).map_err(|_| damaged("its text is not UTF-8"))
}

/// The most keys of a shape rendered without allocating their places.
const SHAPE_KEYS_INLINE: usize = 32;

/// One value's canonical text appended to `out`, as serde_json writes a
/// `Value`'s: strings escaped as it escapes them, numbers as it writes them.
fn write_value(r: &mut Reader<'_>, base: Option<&[u8]>, out: &mut Vec<u8>, depth: usize) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        return Err(damaged("nested too deep"));
    }
    match r.head()? {
        Head::Null => out.extend_from_slice(b"null"),
        Head::Bool(true) => out.extend_from_slice(b"true"),
        Head::Bool(false) => out.extend_from_slice(b"false"),
        Head::Uint(n) => write_json(out, &n)?,
        Head::Neg(n) => write_json(out, &n)?,
        Head::Float(f) => {
            write_json(out, &serde_json::Number::from_f64(f).ok_or_else(|| damaged("a number JSON lacks"))?)?
        }
        Head::Str(s) => write_str(out, s)?,
        Head::Array(n) => {
            out.push(b'[');
            for i in 0..n {
                if i > 0 {
                    out.push(b',');
                }
                write_value(r, base, out, depth + 1)?;
            }
            out.push(b']');
        }
        Head::Object(n) => {
            out.push(b'{');
            for i in 0..n {
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, r.str()?)?;
                out.push(b':');
                write_value(r, base, out, depth + 1)?;
            }
            out.push(b'}');
        }
        Head::Shape(shape) => {
            // Values are stored `type` first; text is in key order, so each
            // value's bytes are found first, then written in that order.
            let n = shape.keys.len();
            let mut inline = [&[][..]; SHAPE_KEYS_INLINE];
            let mut heap = Vec::new();
            let places: &mut [&[u8]] = if n <= SHAPE_KEYS_INLINE {
                &mut inline[..n]
            } else {
                heap.resize(n, &[][..]);
                &mut heap
            };
            for place in places.iter_mut() {
                let at = r.b;
                r.skip(depth + 1)?;
                *place = &at[..at.len() - r.b.len()];
            }
            out.push(b'{');
            for (i, &k) in shape.sorted.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, shape.keys[k])?;
                out.push(b':');
                let mut inner = Reader { b: places[k], t: r.t };
                write_value(&mut inner, base, out, depth + 1)?;
            }
            out.push(b'}');
        }
        Head::Ref(off, len) => {
            let base = base.ok_or_else(|| damaged("a reference with nothing to refer to"))?;
            let part = off
                .checked_add(len)
                .and_then(|end| base.get(off..end))
                .ok_or_else(|| damaged("a reference past its event"))?;
            let mut inner = Reader { b: part, t: r.t };
            write_value(&mut inner, None, out, depth + 1)?;
            if !inner.b.is_empty() {
                return Err(damaged("a reference to part of a value"));
            }
        }
    }
    Ok(())
}

fn write_json<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) -> Result<(), Error> {
    serde_json::to_writer(out, v).map_err(|e| Error(e.to_string()))
}

/// A string as serde_json writes it: as it is when nothing in it needs
/// escaping (the commonest case, without its serializer).
fn write_str(out: &mut Vec<u8>, s: &str) -> Result<(), Error> {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
        Ok(())
    } else {
        write_json(out, s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_to_their_canonical_text() {
        for text in [
            "null",
            "true",
            "[]",
            "{}",
            r#"{"a":1,"b":[1,2,3],"c":{"d":null}}"#,
            r#"{"count":1,"runes":["defence"],"seat":1,"type":"RunesDrawn"}"#,
            r#"{"x":-5,"y":1.5,"z":18446744073709551615,"w":-9223372036854775808}"#,
            r#"{"s":"a \"quoted\" line\nand ünïcode \u0001","t":"virki"}"#,
            r#"[0,95,96,127,128,16384,[],[[]],{"type":"X"}]"#,
        ] {
            let canonical = serde_json::from_str::<Value>(text).unwrap().to_string();
            let tree = encode_text(&canonical).expect("canonical text has a tree form");
            assert_eq!(render(&tree, None).unwrap(), canonical);
            let back: Value = from_bytes(&tree).unwrap();
            assert_eq!(back.to_string(), canonical);
        }
    }

    #[test]
    fn a_text_that_is_not_canonical_has_no_tree_form() {
        assert_eq!(encode_text(r#"{"b":1,"a":2}"#), None);
        assert_eq!(encode_text(r#"{ "a": 2 }"#), None);
        assert_eq!(encode_text("1.0e3"), None);
        assert_eq!(encode_text("not json"), None);
    }

    #[test]
    fn damaged_trees_say_so_and_never_panic() {
        let tree = encode_text(r#"{"count":1,"runes":["defence"],"seat":1,"type":"RunesDrawn"}"#).unwrap();
        for cut in 0..tree.len() {
            assert!(render(&tree[..cut], None).is_err());
            assert!(from_bytes::<Value>(&tree[..cut]).is_err());
        }
        let mut deep = vec![SMALL_ARRAY + 1; MAX_DEPTH + 10];
        deep.push(NULL);
        assert!(render(&deep, None).unwrap_err().0.contains("deep"));
        assert!(from_bytes::<Value>(&deep).unwrap_err().0.contains("deep"));
        for tag in 0..=255u8 {
            for tail in [&[][..], &[0xff; 12][..], &[0x01, 0x41][..]] {
                let bytes = [&[tag][..], tail].concat();
                let _ = render(&bytes, None);
                let _ = from_bytes::<Value>(&bytes);
            }
        }
        assert!(render(&[REF, 0, 1], None).unwrap_err().0.contains("reference"));
    }

    #[test]
    fn a_command_refers_to_its_events_parts() {
        let event = r#"{"orders":{"axes":{"mode":"auto"},"build":[{"building":"virki","effect":"glory_three","replace":null},{"building":"hof","effect":"gold_two","replace":null}],"buy_axes":true,"cattle":"auto","recruits":[],"sheep":"auto"},"seat":0,"type":"OrdersSet"}"#;
        let command = r#"{"steps":[{"orders":{"axes":{"mode":"auto"},"build":[{"building":"virki","effect":"glory_three","replace":null},{"building":"hof","effect":"gold_two","replace":null}],"buy_axes":true,"cattle":"auto","recruits":[],"sheep":"auto"},"type":"SetOrders"}],"type":"PlayTurn"}"#;
        let base = encode_text(event).unwrap();
        let alone = encode_text(command).unwrap();
        let against = encode_text_against(command, &base).unwrap();
        assert!(against.contains(&REF) && against.len() < alone.len() / 2, "{} vs {}", against.len(), alone.len());
        assert_eq!(render(&against, Some(&base)).unwrap(), command);
        assert!(render(&against, None).is_err());
    }

    #[test]
    fn the_table_never_changes() {
        use sha2::{Digest, Sha256};
        let t = table();
        assert!(t.strings.len() > 100 && t.shapes.len() > 50, "{} strings, {} shapes", t.strings.len(), t.shapes.len());
        assert_eq!(hex::encode(Sha256::digest(TABLE.as_bytes())), TABLE_SHA256);
    }

    /// The hash of [`TABLE`], pinned when it was made.
    const TABLE_SHA256: &str = "172b19e6693c2cc03a23ed4080ae8517d3d27e9f433df54b1d8fccefeb918d67";
}
