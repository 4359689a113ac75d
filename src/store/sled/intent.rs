//! A group's intent (`w:group`): how it is written and read back, in the
//! formats this version writes and the earlier ones it still reads (see
//! "The intent" in the module docs of `store::sled`).

use super::*;

/// The first byte of an intent this version writes (its format's version).
pub(super) const INTENT_FORMAT: u8 = 3;

/// A group's intent as stored: the format byte ([`INTENT_FORMAT`]), the
/// group's seq in the journal (u64 big-endian; not in format 2), the
/// number of event keys (u32 big-endian) and the keys (each
/// [`EVENT_KEY_LEN`] bytes), then per other write a byte (1 insert, 0
/// removal), the key's length (u32 big-endian) and the key, and for an
/// insert the value's length and the value. (Format 1, written by earlier
/// versions, is that list of writes alone, events included.)
pub(super) fn encode_intent(seq: u64, events: &Ops, rest: &Ops) -> Vec<u8> {
    let len = rest.iter().map(|(k, v)| 9 + k.len() + v.as_ref().map_or(0, Vec::len)).sum::<usize>();
    let mut out = Vec::with_capacity(13 + events.len() * EVENT_KEY_LEN + len);
    out.push(INTENT_FORMAT);
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(&u32::try_from(events.len()).expect("under 4 billion events").to_be_bytes());
    for (k, _) in events {
        out.extend_from_slice(k);
    }
    encode_writes(&mut out, rest);
    out
}

pub(super) fn encode_writes(out: &mut Vec<u8>, ops: &Ops) {
    let put = |out: &mut Vec<u8>, bytes: &[u8]| {
        out.extend_from_slice(&u32::try_from(bytes.len()).expect("a key or value under 4 GiB").to_be_bytes());
        out.extend_from_slice(bytes);
    };
    for (k, v) in ops {
        out.push(u8::from(v.is_some()));
        put(out, k);
        if let Some(v) = v {
            put(out, v);
        }
    }
}

/// The last group's writes, as its intent holds them.
#[derive(Debug, PartialEq)]
pub(super) enum Intent {
    /// Format 1 (earlier versions): every write of the group, events
    /// included, to apply again.
    Writes(Ops),
    /// Formats 2 and 3: the keys of the group's events, and its other
    /// writes; format 3 also the group's seq in the journal.
    Group { seq: Option<u64>, events: Vec<Vec<u8>>, rest: Ops },
}

/// Read an intent back; `None` if it is not one this version can read.
pub(super) fn decode_intent(mut bytes: &[u8]) -> Option<Intent> {
    let format = *take(&mut bytes, 1)?.first()?;
    match format {
        1 => decode_writes(bytes).map(Intent::Writes),
        2 | INTENT_FORMAT => {
            let seq = if format == INTENT_FORMAT {
                Some(u64::from_be_bytes(take(&mut bytes, 8)?.try_into().ok()?))
            } else {
                None
            };
            let n = u32::from_be_bytes(take(&mut bytes, 4)?.try_into().ok()?) as usize;
            let keys = take(&mut bytes, n.checked_mul(EVENT_KEY_LEN)?)?;
            let events: Vec<Vec<u8>> = keys.chunks_exact(EVENT_KEY_LEN).map(<[u8]>::to_vec).collect();
            if !events.iter().all(|k| is_event_key(k)) {
                return None;
            }
            Some(Intent::Group { seq, events, rest: decode_writes(bytes)? })
        }
        _ => None,
    }
}

pub(super) fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (head, rest) = (bytes.get(..n)?, bytes.get(n..)?);
    *bytes = rest;
    Some(head)
}

/// Writes as [`encode_writes`] wrote them; `None` if they are not.
pub(super) fn decode_writes(mut bytes: &[u8]) -> Option<Ops> {
    fn sized(bytes: &mut &[u8]) -> Option<Vec<u8>> {
        let n = u32::from_be_bytes(take(bytes, 4)?.try_into().ok()?) as usize;
        take(bytes, n).map(<[u8]>::to_vec)
    }
    let mut ops = Ops::new();
    while !bytes.is_empty() {
        let insert = match take(&mut bytes, 1)? {
            [1] => true,
            [0] => false,
            _ => return None,
        };
        let k = sized(&mut bytes)?;
        let v = if insert { Some(sized(&mut bytes)?) } else { None };
        ops.push((k, v));
    }
    Some(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intents_read_back_as_written() {
        let events: Ops = vec![
            (event_key(b"intent-game-0000", 3).to_vec(), Some(b"event".to_vec())),
            (event_key(b"intent-game-0001", 0).to_vec(), Some(b"event".to_vec())),
        ];
        let rest: Ops = vec![
            (b"h-key".to_vec(), Some(b"value".to_vec())),
            (b"gone".to_vec(), None),
            (Vec::new(), Some(Vec::new())),
        ];
        let bytes = encode_intent(41, &events, &rest);
        let keys: Vec<Vec<u8>> = events.iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(
            decode_intent(&bytes),
            Some(Intent::Group { seq: Some(41), events: keys.clone(), rest: rest.clone() })
        );
        assert!(bytes.len() < 13 + 2 * EVENT_KEY_LEN + 40, "the events' values are not in the intent");
        assert_eq!(
            decode_intent(&encode_intent(0, &Vec::new(), &Vec::new())),
            Some(Intent::Group { seq: Some(0), events: Vec::new(), rest: Vec::new() })
        );
        // Format 2 (the previous version): no seq.
        let mut two = vec![2];
        two.extend_from_slice(&bytes[9..]);
        assert_eq!(decode_intent(&two), Some(Intent::Group { seq: None, events: keys, rest: rest.clone() }));
        // An earlier version's intent: every write, events included.
        let mut old = vec![1];
        encode_writes(&mut old, &rest);
        assert_eq!(decode_intent(&old), Some(Intent::Writes(rest)));
        // Cut short, fewer event keys than counted, a key that is not an
        // event's, another format, an unknown kind of write.
        assert_eq!(decode_intent(&bytes[..bytes.len() - 1]), None);
        assert_eq!(decode_intent(&bytes[..13 + EVENT_KEY_LEN]), None);
        assert_eq!(decode_intent(&bytes[..6]), None, "a seq cut short");
        let mut not_event = vec![INTENT_FORMAT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
        not_event.extend_from_slice(&[b'h'; EVENT_KEY_LEN]);
        assert_eq!(decode_intent(&not_event), None);
        assert_eq!(decode_intent(&[9]), None);
        assert_eq!(decode_intent(&[INTENT_FORMAT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0]), None);
    }
}
