//! The compression of version 2: literal runs and copies from a window made
//! of [`DICTIONARY`] and the bytes before (see the module docs).

use std::sync::OnceLock;

use super::{varint, Reader, DICTIONARY};

/// The shortest copy made (a copy costs two or three bytes).
const MIN_MATCH: usize = 4;
/// The most earlier places of the same four bytes tried for a copy.
const TRIES: usize = 8;
/// A copy this long is taken without looking for a longer one.
const GOOD_ENOUGH: usize = 48;
/// The longest a decoded event may be (a bound against damaged bytes).
const MAX_DECODED: usize = 64 << 20;
/// Bits of the hash of four bytes that heads the chains of places.
const HASH_BITS: u32 = 12;
/// No earlier place in a chain.
const NONE: u32 = u32::MAX;

fn hash(b: &[u8]) -> usize {
    (u32::from_le_bytes([b[0], b[1], b[2], b[3]]).wrapping_mul(0x9e37_79b1) >> (32 - HASH_BITS)) as usize
}

/// Hash chains of the places of four bytes: `head` the latest place of
/// each hash, `prev` the place before with the same hash.
struct Chains {
    head: Vec<u32>,
    prev: Vec<u32>,
}

impl Chains {
    fn new(len: usize) -> Chains {
        Chains { head: vec![NONE; 1 << HASH_BITS], prev: vec![NONE; len] }
    }

    fn insert(&mut self, bytes: &[u8], at: usize) {
        if at + MIN_MATCH <= bytes.len() {
            let h = hash(&bytes[at..]);
            self.prev[at] = self.head[h];
            self.head[h] = at as u32;
        }
    }

    /// The places with the hash `h`, latest first, at most [`TRIES`].
    fn places(&self, h: usize) -> impl Iterator<Item = usize> + '_ {
        let mut at = self.head[h];
        std::iter::from_fn(move || {
            (at != NONE).then(|| {
                let here = at as usize;
                at = self.prev[here];
                here
            })
        })
        .take(TRIES)
    }
}

/// The dictionary's chains, made once.
fn dictionary_chains() -> &'static Chains {
    static CHAINS: OnceLock<Chains> = OnceLock::new();
    CHAINS.get_or_init(|| {
        let mut c = Chains::new(DICTIONARY.len());
        for at in 0..DICTIONARY.len() {
            c.insert(DICTIONARY, at);
        }
        c
    })
}

fn common(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn literals(out: &mut Vec<u8>, run: &[u8]) {
    if !run.is_empty() {
        varint(out, (run.len() as u64) << 1);
        out.extend_from_slice(run);
    }
}

/// Append `input` compressed to `out` (greedy: the longest copy found at
/// each place, else a literal byte).
pub(super) fn compress(input: &[u8], out: &mut Vec<u8>) {
    let dictionary = dictionary_chains();
    let base = DICTIONARY.len();
    let mut own = Chains::new(input.len());
    let (mut i, mut run) = (0, 0);
    while i < input.len() {
        let mut best = (0, 0);
        if i + MIN_MATCH <= input.len() {
            let h = hash(&input[i..]);
            for p in own.places(h) {
                // An earlier place in the input; the copy may run on
                // into the bytes it is making.
                let len = (0..input.len() - i).take_while(|&j| input[p + j] == input[i + j]).count();
                if len > best.0 {
                    best = (len, base + p);
                }
            }
            if best.0 < GOOD_ENOUGH {
                for p in dictionary.places(h) {
                    let len = common(&DICTIONARY[p..], &input[i..]);
                    if len > best.0 {
                        best = (len, p);
                    }
                }
            }
        }
        if best.0 >= MIN_MATCH {
            literals(out, &input[run..i]);
            varint(out, ((best.0 as u64) << 1) | 1);
            varint(out, (base + i - best.1) as u64);
            for j in i..i + best.0 {
                own.insert(input, j);
            }
            i += best.0;
            run = i;
        } else {
            own.insert(input, i);
            i += 1;
        }
    }
    literals(out, &input[run..]);
}

/// The bytes `packed` (made by [`compress`]) stands for; the error says
/// what is wrong with damaged bytes.
pub(super) fn decompress(packed: &[u8]) -> Result<Vec<u8>, String> {
    let mut out: Vec<u8> = Vec::with_capacity(packed.len() * 3);
    decompress_into(packed, &mut out)?;
    Ok(out)
}

/// [`decompress`], appending to `all` (the bytes already in it are not
/// part of the window). On an error, what was appended is left.
pub(super) fn decompress_into(packed: &[u8], all: &mut Vec<u8>) -> Result<(), String> {
    let mut r = Reader { b: packed };
    let origin = all.len();
    all.reserve(packed.len() * 3);
    let base = DICTIONARY.len();
    while !r.b.is_empty() {
        let made = all.len() - origin;
        let tag = r.varint("compressed form")?;
        let len = usize::try_from(tag >> 1).map_err(|_| "its compressed form is damaged".to_owned())?;
        if len == 0 || made.saturating_add(len) > MAX_DECODED {
            return Err("its compressed form is damaged (a run of length 0 or too long)".into());
        }
        if tag & 1 == 0 {
            all.extend_from_slice(r.bytes(len, "compressed form")?);
            continue;
        }
        let back = r.varint("compressed form")?;
        let at = base + made;
        let start = usize::try_from(back)
            .ok()
            .filter(|&b| b > 0 && b <= at)
            .map(|b| at - b)
            .ok_or_else(|| "its compressed form copies from before its beginning".to_owned())?;
        if start + len <= base {
            all.extend_from_slice(&DICTIONARY[start..start + len]);
        } else if start >= base && start - base + len <= made {
            all.extend_from_within(origin + start - base..origin + start - base + len);
        } else {
            for p in start..start + len {
                let b = if p < base { DICTIONARY[p] } else { all[origin + p - base] };
                all.push(b);
            }
        }
    }
    Ok(())
}
