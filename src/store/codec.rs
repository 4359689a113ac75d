//! The stored form of an event: the one place every backend turns an
//! [`Envelope`] into the bytes it keeps and back, so sled and any other
//! backend store the same form and a change of form is made once.

use runestone_engine::Envelope;

/// The bytes a backend stores for one event.
pub fn encode_event(env: &Envelope) -> Result<Vec<u8>, String> {
    serde_json::to_vec(env).map_err(|e| format!("event seq {} cannot be stored: {e}", env.seq))
}

/// The event a backend's stored bytes hold; the error says what is wrong
/// with them, for a `StoreError::Corrupt` naming the game and seq.
pub fn decode_event(bytes: &[u8]) -> Result<Envelope, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("unreadable envelope: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stores written before the body was read by hand hold these very bytes:
    /// every event of a golden log decodes, and encodes back byte for byte.
    #[test]
    fn stored_events_of_the_previous_version_read_back_unchanged() {
        let text = include_str!("../../events/bardagi/5-players-seed-4.jsonl");
        let mut events = 0;
        for line in text.lines().filter(|l| !l.starts_with(r#"{"end""#)) {
            let env = decode_event(line.as_bytes()).expect("a stored event decodes");
            assert_eq!(env.seq, events);
            assert_eq!(encode_event(&env).expect("encodes"), line.as_bytes(), "seq {events} re-encodes as stored");
            events += 1;
        }
        assert!(events > 700, "the whole game was read: {events} events");
    }

    #[test]
    fn unreadable_bytes_say_so() {
        let e = decode_event(br#"{"game":"g","seq":0}"#).unwrap_err();
        assert!(e.starts_with("unreadable envelope"), "{e}");
        let e = decode_event(br#"{"game":"g","seq":0,"body":{"kind":"game","event":{}}}"#).unwrap_err();
        assert!(e.contains("missing field `v`"), "{e}");
    }
}
