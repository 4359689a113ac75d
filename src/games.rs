//! The games this server hosts: the one place in the server that names a
//! game. Each game is a crate of its own under `games/` (its rules, board,
//! forms and schemas); adding one is a line here and one in `Cargo.toml`.

use runestone_engine::Registry;

/// Every ruleset this build knows: the ones offered to hosts and the Duel
/// test fixture, which a server hosts only when its settings ask for test
/// fixtures (`server.test_fixtures`, set by the project's tests alone; see
/// [`crate::app::Application::build`]). The command line's `replay` and
/// `simulate` read every ruleset.
pub fn registry() -> Registry {
    Registry::empty()
        .with::<runestone_bardagi::Bardagi>()
        .with::<runestone_fallen_kingdoms::FallenKingdoms>()
        .with::<runestone_realms::Realms>()
        .with::<runestone_thingvellir::Thingvellir>()
        .with::<runestone_duel::Duel>()
}
