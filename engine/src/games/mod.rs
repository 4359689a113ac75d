//! The rulesets, one folder each.

use crate::Registry;

/// Add every product ruleset to `registry`.
pub fn register(registry: Registry) -> Registry {
    registry
}
