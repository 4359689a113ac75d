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
