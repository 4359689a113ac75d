//! The embedded sled backend (to be written).
