//! runestone: the server around the pure rules of `runestone-engine`.

pub mod store;
