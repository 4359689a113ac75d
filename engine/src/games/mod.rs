//! The rulesets, one folder each.

use crate::Registry;

pub mod bardagi;

/// Add every product ruleset to `registry`.
pub fn register(registry: Registry) -> Registry {
    registry.with::<bardagi::Bardagi>()
}
