//! The games this server hosts: the one place in the server that names a
//! game. Each game is a crate of its own under `games/` (its rules, board,
//! forms and schemas); adding one is a line here and one in `Cargo.toml`.

use runestone_engine::Registry;

/// Every ruleset this build offers to hosts (and, in the server's test
/// builds, the Duel test fixture).
pub fn registry() -> Registry {
    let r = Registry::empty()
        .with::<runestone_bardagi::Bardagi>()
        .with::<runestone_fallen_kingdoms::FallenKingdoms>()
        .with::<runestone_realms::Realms>()
        .with::<runestone_thingvellir::Thingvellir>();
    if runestone_duel::HOSTED {
        r.with::<runestone_duel::Duel>()
    } else {
        r
    }
}
