//! Rules versions: each game plays by the version it was created with, and
//! the rules that version 2 plays as the rulebook's text says (each test
//! shows version 2, then the same play under version 1 as it was).

use crate::board::Colour;
use crate::board::SeaNode;
use crate::build::{Effect, TILES};
use crate::state::{AxeOrder, Building, Card, Command, Deal, Event, Good, Loc, Orders, ShipLoc, Unit};
use crate::{Options, RULES_VERSION};

use super::phases::finish_round;
use super::{Driver, MINI};

/// A game on the mini board by rules version `v`.
fn mini_v(seats: u8, v: u32, forced_trade: bool) -> Driver {
    let opts = Options { custom_board: Some(MINI.into()), forced_trade, rules_version: Some(v), ..Options::default() };
    Driver::new(&opts, seats, 7).expect("mini board game")
}

fn put(d: &mut Driver, seat: u8, unit: Unit, area: u8) {
    d.state.players[seat as usize].units[unit.idx()] = Loc::Area(area);
}

// --- The version of a game ----------------------------------------------------------

/// The opening events the kernel derives for these options, by the
/// version a log recorded (`Some`) or the one a new game is given (`None`):
/// the version in `GameCreated` and the setup's first event.
fn created(options: serde_json::Value, recorded: Option<u32>) -> (u32, serde_json::Value) {
    use runestone_engine::log::{Body, KernelEvent};
    let reg = runestone_engine::Registry::empty().with::<crate::Bardagi>();
    let game = reg.get("bardagi").unwrap();
    let seed = runestone_engine::Seed([3; 32]);
    let names = vec!["Ann".to_string(), "Bo".to_string()];
    let drafts = runestone_engine::table::Table::create_as(game.as_ref(), &options, names, &seed, None, recorded)
        .unwrap_or_else(|e| panic!("{e}"));
    let Body::Kernel { event: KernelEvent::GameCreated { rules_version, .. } } = &drafts[0].body else {
        panic!("GameCreated")
    };
    let Body::Game { event, .. } = &drafts[1].body else { panic!("GameStarted") };
    (*rules_version, event.value())
}

#[test]
fn the_kernel_hands_setup_the_recorded_version_and_new_games_play_the_newest() {
    // Given the complete options a version 1 game recorded (no version in them),
    let v1 = serde_json::json!({"board": "summer", "custom_board": null, "easy_cards": false,
        "eight_cards": false, "forced_trade": false, "rounds": null});
    // when the kernel derives its setup again by the recorded version 1,
    // then the game is version 1, its first event written as version 1 wrote it;
    let (v, started) = created(v1.clone(), Some(1));
    assert_eq!(v, 1);
    assert!(started.get("rules").is_none(), "{started}");
    // the same options given for a new game play by the newest rules,
    let (v, started) = created(v1, None);
    assert_eq!(v, RULES_VERSION);
    assert_eq!(started["rules"], RULES_VERSION);
    // and a new game may ask for an older version, which is recorded.
    let (v, started) = created(serde_json::json!({"rules_version": 1}), None);
    assert_eq!(v, 1);
    assert!(started.get("rules").is_none(), "{started}");
    let public = runestone_engine::game::Viewer::Public;
    let d = Driver::new(&Options::default(), 2, 1).unwrap();
    assert_eq!(d.state.rules, RULES_VERSION);
    assert_eq!(crate::view::view(&d.state, public).options.rules_version, RULES_VERSION, "the players see it");
    let old = Driver::new(&Options { rules_version: Some(1), ..Options::default() }, 2, 1).unwrap();
    assert_eq!(old.state.rules, 1);
    assert_eq!(crate::view::view(&old.state, public).options.rules_version, 1);
}

#[test]
fn a_game_keeps_the_summer_board_of_the_version_it_was_created_with() {
    use crate::board::Board;
    use std::sync::Arc;
    // Given games on the Summer board created by version 3 and by version 4,
    let old = Driver::new(&Options { rules_version: Some(3), ..Options::default() }, 4, 1).unwrap();
    let new = Driver::new(&Options { rules_version: Some(4), ..Options::default() }, 4, 1).unwrap();
    // then the version 3 game plays the board versions 1 to 3 played, named
    // "summer" in its log as before, and the version 4 game the board of
    // version 4, named "summer-v4";
    assert!(Arc::ptr_eq(&old.state.board.0, &Board::summer()));
    assert!(Arc::ptr_eq(&new.state.board.0, &Board::summer_v4()));
    assert!(!Arc::ptr_eq(&Board::summer(), &Board::summer_v4()));
    let started = |d: &Driver| serde_json::to_value(&d.log[0].event).unwrap();
    assert_eq!(started(&old)["board"], serde_json::json!({"builtin": "summer"}));
    assert_eq!(started(&new)["board"], serde_json::json!({"builtin": "summer-v4"}));
    // and when their logs are read back and folded again, each has its own board.
    for (d, board) in [(&old, Board::summer()), (&new, Board::summer_v4())] {
        let text = serde_json::to_string(&d.log[0].event).unwrap();
        let event: Event = serde_json::from_str(&text).unwrap();
        let mut s = crate::State::default();
        crate::state::apply(&mut s, &event);
        assert!(Arc::ptr_eq(&s.board.0, &board));
    }
    // Both boards are the same layout: the same areas, homes and sea.
    let (a, b) = (Board::summer(), Board::summer_v4());
    assert_eq!(a.data.areas.len(), b.data.areas.len());
    assert_eq!(a.data.oceans.len(), b.data.oceans.len());
    assert_eq!(a.data.sea_routes, b.data.sea_routes);
    assert_eq!(b.data.name, "Summer", "the players see the same name");
}

#[test]
fn an_unknown_rules_version_is_refused_in_words() {
    let e = Driver::new(&Options { rules_version: Some(RULES_VERSION + 1), ..Options::default() }, 2, 1).err().unwrap();
    let want =
        format!("rules version {} is unknown; games are played by versions 1 to {RULES_VERSION}", RULES_VERSION + 1);
    assert_eq!(e.message, want);
    let e = Driver::new(&Options { rules_version: Some(0), ..Options::default() }, 2, 1).err().unwrap();
    assert!(e.message.contains("rules version 0 is unknown"), "{}", e.message);
}

// --- "Alternatively, choose your own clan" -------------------------------------------

#[test]
fn clans_may_choose_their_colours_instead_of_dealing_them() {
    // Given three seats that chose green, red and blue,
    let opts = Options { colours: Some(vec![Colour::Green, Colour::Red, Colour::Blue]), ..Options::default() };
    // when the game is set up, then each seat plays its colour from its home.
    for seed in 0..5 {
        let d = Driver::new(&opts, 3, seed).unwrap();
        let colours: Vec<Option<Colour>> = d.state.players.iter().map(|p| p.colour).collect();
        assert_eq!(colours, vec![Some(Colour::Green), Some(Colour::Red), Some(Colour::Blue)]);
        for p in &d.state.players {
            assert_eq!(d.state.board.home_of(p.colour.unwrap()), Some(p.home));
        }
    }
    // Without the option the colours are dealt at random.
    let dealt: std::collections::HashSet<Vec<Option<Colour>>> = (0..12)
        .map(|seed| Driver::new(&Options::default(), 3, seed).unwrap().state.players.iter().map(|p| p.colour).collect())
        .collect();
    assert!(dealt.len() > 1, "colours are dealt at random");
}

#[test]
fn a_wrong_choice_of_colours_is_refused_naming_the_fault() {
    let refused = |colours: Vec<Colour>, seats: u8| {
        Driver::new(&Options { colours: Some(colours), ..Options::default() }, seats, 1).err().unwrap().message
    };
    assert_eq!(refused(vec![Colour::Red], 2), "colours names 1 clans; the game has 2 seats, one colour each");
    assert_eq!(
        refused(vec![Colour::Red, Colour::Black], 2),
        "Black is not played by 2 players; choose among Red, Yellow"
    );
    assert_eq!(
        refused(vec![Colour::Blue, Colour::Blue, Colour::Red], 3),
        "Blue is chosen by two seats; each clan has its own colour"
    );
}

// --- "This can be avoided by placing an Axe!" ----------------------------------------

/// Red's Berserkur takes the Barbarian camp (2 axes), red's orders place
/// axes automatically, and the round ends: where do red's axes lie?
fn red_takes_the_camp_and_the_round_ends(v: u32) -> (Driver, u8, u8) {
    let mut d = mini_v(4, v, true);
    let red = d.seat(Colour::Red);
    let blue = d.seat(Colour::Blue);
    d.turn_of(red, [2, 0, 1, 0]);
    put(&mut d, red, Unit::Berserkur, 6);
    d.act(red, &Command::SetOrders { orders: Orders { axes: AxeOrder::Auto, ..Orders::default() } }).unwrap();
    let ev = d.act(red, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::AxesGained { count: 2, .. })));
    finish_round(&mut d);
    (d, red, blue)
}

#[test]
fn an_axe_on_the_home_area_avoids_forced_trade() {
    // Given a forced-trade game where red holds axes from a Barbarian camp,
    let (mut d, red, blue) = red_takes_the_camp_and_the_round_ends(2);
    let home = d.state.players[red as usize].home;
    // when the Claim phase places them, then one guards red's home,
    assert_eq!(d.state.areas[home as usize].axes, 1);
    // and blue's Kaupmadur at red's home cannot force a trade there.
    d.turn_of(blue, [0, 0, 2, 0]);
    put(&mut d, blue, Unit::Kaupmadur, home);
    d.state.players[blue as usize].goods = [4, 0, 0, 0, 0, 0];
    let e = d.refused(blue, &Command::ForceTrade { seat: red, give: vec![Good::Timber; 4] });
    assert_eq!(e, "an axe guards that home area against forced trade");
    // An axe order naming the home area is followed too.
    let mut d = mini_v(4, 2, true);
    let red = d.seat(Colour::Red);
    d.turn_of(red, [2, 0, 1, 0]);
    put(&mut d, red, Unit::Berserkur, 6);
    let home = d.state.players[red as usize].home;
    d.act(red, &Command::SetOrders { orders: Orders { axes: AxeOrder::Areas(vec![home, home]), ..Orders::default() } })
        .unwrap();
    d.act(red, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    finish_round(&mut d);
    assert_eq!(d.state.areas[home as usize].axes, 2);
}

#[test]
fn by_version_one_no_axe_could_reach_a_home_area() {
    let (mut d, red, blue) = red_takes_the_camp_and_the_round_ends(1);
    let home = d.state.players[red as usize].home;
    assert_eq!(d.state.areas[home as usize].axes, 0);
    d.turn_of(blue, [0, 0, 2, 0]);
    put(&mut d, blue, Unit::Kaupmadur, home);
    d.state.players[blue as usize].goods = [4, 0, 0, 0, 0, 0];
    d.act(blue, &Command::ForceTrade { seat: red, give: vec![Good::Timber; 4] }).unwrap();
}

// --- "COMBAT (one card) - Attacker can always retreat to entry area" ------------------

/// Blue owns Quarry 7 next to its home; its Berserkur goes from home
/// through the quarry onto Iron mine 8 with one card.
fn blue_walks_through_the_quarry(v: u32) -> (Driver, u8) {
    let mut d = mini_v(4, v, false);
    let blue = d.seat(Colour::Blue);
    d.turn_of(blue, [3, 0, 0, 0]);
    d.own(blue, &[7], 1);
    let ev = d.act(blue, &Command::Move { unit: Unit::Berserkur, to: 8 }).unwrap();
    assert!(matches!(ev[1], Event::UnitMoved { from: 0, to: 8, cost: 1, .. }), "{ev:?}");
    (d, blue)
}

#[test]
fn the_free_retreat_follows_a_fight_and_goes_back_to_the_area_entered_from() {
    // Given blue's Berserkur that walked from home through its quarry onto the iron mine,
    let (mut d, blue) = blue_walks_through_the_quarry(2);
    // when he retreats without a fight, then it is refused;
    let e = d.refused(blue, &Command::Retreat);
    assert_eq!(e, "the Berserkur retreats for free only after fighting on Iron mine 8 this turn");
    // when he attacks and retreats, he goes back to the quarry he stepped from, for free.
    d.act(blue, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    let played = d.state.players[blue as usize].played.berserkur;
    d.act(blue, &Command::Retreat).unwrap();
    assert_eq!(d.state.players[blue as usize].units[0], Loc::Area(7));
    assert_eq!(d.state.players[blue as usize].played.berserkur, played);
    // Having retreated, he cannot retreat again.
    assert!(d.refused(blue, &Command::Retreat).contains("only after fighting"));
}

#[test]
fn by_version_one_the_retreat_needed_no_fight_and_went_back_to_where_the_move_began() {
    let (mut d, blue) = blue_walks_through_the_quarry(1);
    d.act(blue, &Command::Retreat).unwrap();
    assert_eq!(d.state.players[blue as usize].units[0], Loc::Area(0));
}

// --- "The defeated Berserkur can only be re-activated through a Virki disk re-fill" ---

/// Red's Berserkur defeats blue's on Forest 1; by the Claim phase blue's
/// Virki is full again (recruits); now blue's Kaupmadur at home has 4 meat.
fn blue_berserkur_defeated_and_virki_full(v: u32) -> (Driver, u8) {
    let mut d = mini_v(4, v, false);
    let blue = d.seat(Colour::Blue);
    let red = d.seat(Colour::Red);
    d.turn_of(red, [1, 0, 0, 0]);
    put(&mut d, blue, Unit::Berserkur, 1);
    put(&mut d, red, Unit::Berserkur, 1);
    d.act(red, &Command::Attack { claim: false, reinforce: 0 }).unwrap();
    assert_eq!(d.state.players[blue as usize].units[0], Loc::Fallen);
    d.turn_of(blue, [0, 0, 1, 0]);
    let p = &mut d.state.players[blue as usize];
    p.disks[0] = 6;
    p.supply -= 4;
    p.goods[Good::Meat.idx()] = 4;
    (d, blue)
}

#[test]
fn a_defeated_berserkur_comes_back_with_a_virki_refill_even_when_virki_is_full() {
    // Given blue's defeated Berserkur and a full Virki,
    let (mut d, blue) = blue_berserkur_defeated_and_virki_full(2);
    // when blue's Kaupmadur refills Virki at home,
    let ev = d.act(blue, &Command::Trade { deals: vec![], refill: vec![Building::Virki] }).unwrap();
    // then the 4 meat are paid and the Berserkur stands at home again.
    assert!(ev.iter().any(|e| matches!(e, Event::BuildingRefilled { disks: 6, paid: 4, .. })));
    let p = &d.state.players[blue as usize];
    assert_eq!(p.units[0], Loc::Area(p.home));
    assert_eq!(p.goods[Good::Meat.idx()], 0);
}

#[test]
fn by_version_one_a_full_virki_stranded_the_defeated_berserkur() {
    let (mut d, blue) = blue_berserkur_defeated_and_virki_full(1);
    let e = d.refused(blue, &Command::Trade { deals: vec![], refill: vec![Building::Virki] });
    assert_eq!(e, "Virki is already full (6 of 6 disks)");
}

// --- "if occupying an area during attack, he must retreat" ----------------------------

/// Red's Berserkur and Godi stand on red's Forest 1; blue's Berserkur
/// comes in and only defeats red's Berserkur.
fn blue_defeats_the_berserkur_beside_the_godi(v: u32) -> (Driver, u8) {
    let mut d = mini_v(4, v, false);
    let blue = d.seat(Colour::Blue);
    let red = d.seat(Colour::Red);
    d.turn_of(blue, [2, 0, 0, 0]);
    d.own(red, &[1], 1);
    put(&mut d, red, Unit::Berserkur, 1);
    put(&mut d, red, Unit::Godi, 1);
    d.act(blue, &Command::Move { unit: Unit::Berserkur, to: 1 }).unwrap();
    d.act(blue, &Command::Attack { claim: false, reinforce: 0 }).unwrap();
    assert_eq!(d.state.areas[1].owner, Some(red));
    (d, red)
}

#[test]
fn a_godi_retreats_home_when_a_fight_on_his_area_only_defeats_the_berserkur() {
    let (d, red) = blue_defeats_the_berserkur_beside_the_godi(2);
    let p = &d.state.players[red as usize];
    assert_eq!(p.units[1], Loc::Area(p.home));
}

#[test]
fn by_version_one_the_godi_stayed_when_the_area_was_not_taken() {
    let (d, red) = blue_defeats_the_berserkur_beside_the_godi(1);
    assert_eq!(d.state.players[red as usize].units[1], Loc::Area(1));
}

// --- "Units on board Knerrir are inactive while sailing" -------------------------------

/// Blue owns the Messenger; its Kaupmadur boards the Knerrir at home and
/// blue has 4 meat and a low Virki.
fn blue_kaupmadur_aboard_with_the_messenger(v: u32) -> (Driver, u8) {
    let mut d = mini_v(4, v, false);
    let blue = d.seat(Colour::Blue);
    d.turn_of(blue, [0, 0, 2, 0]);
    let t = TILES.iter().position(|t| t.effect == Effect::HomeActionAnywhere).expect("a Messenger tile");
    let p = &mut d.state.players[blue as usize];
    p.upgrades |= 1u64 << t;
    p.disks[0] = 2;
    p.goods[Good::Meat.idx()] = 4;
    d.act(blue, &Command::Board { unit: Unit::Kaupmadur }).unwrap();
    (d, blue)
}

#[test]
fn a_kaupmadur_on_board_the_knerrir_cannot_trade_or_refill_even_with_the_messenger() {
    let (mut d, blue) = blue_kaupmadur_aboard_with_the_messenger(2);
    let e = d.refused(blue, &Command::Trade { deals: vec![], refill: vec![Building::Virki] });
    assert_eq!(e, "the Kaupmadur is on board the Knerrir; units on board are inactive until they go ashore");
    // Ashore again (at home), he refills.
    d.act(blue, &Command::Disembark { unit: Unit::Kaupmadur }).unwrap();
    d.act(blue, &Command::Trade { deals: vec![], refill: vec![Building::Virki] }).unwrap();
    assert_eq!(d.state.players[blue as usize].disks[0], 6);
}

#[test]
fn by_version_one_the_kaupmadur_on_board_still_traded_with_the_messenger() {
    let (mut d, blue) = blue_kaupmadur_aboard_with_the_messenger(1);
    d.act(blue, &Command::Trade { deals: vec![], refill: vec![Building::Virki] }).unwrap();
    assert_eq!(d.state.players[blue as usize].disks[0], 6);
}

// --- "Berserkur: Move and / or attack" ------------------------------------------------

/// Blue's Berserkur, with one Berserkur card, moves onto Forest 1 and attacks it.
fn blue_moves_and_attacks_with_one_card(v: u32) -> (Driver, u8, Result<Vec<Event>, String>) {
    let mut d = mini_v(4, v, false);
    let blue = d.seat(Colour::Blue);
    d.turn_of(blue, [1, 0, 1, 0]);
    d.act(blue, &Command::Move { unit: Unit::Berserkur, to: 1 }).unwrap();
    let r = d.act(blue, &Command::Attack { claim: true, reinforce: 0 }).map_err(|e| e.message);
    (d, blue, r)
}

#[test]
fn one_berserkur_card_moves_him_and_attacks_where_he_ends() {
    // Given one Berserkur card, when he moves onto a Barbarian forest and attacks,
    let (mut d, blue, r) = blue_moves_and_attacks_with_one_card(2);
    // then the same card does both.
    r.unwrap();
    assert_eq!(d.state.areas[1].owner, Some(blue));
    assert_eq!(d.state.players[blue as usize].played.berserkur, 1);
    // An attack without a move of its own card this turn lays down a card:
    // moving on with the Kaupmadur's card is not his, and he has none left.
    let e = d.refused(blue, &Command::Attack { claim: true, reinforce: 0 });
    assert_eq!(e, "Forest 1 is already yours");
    d.act(blue, &Command::Move { unit: Unit::Kaupmadur, to: 7 }).unwrap();
    let mut d2 = mini_v(4, 2, false);
    let blue2 = d2.seat(Colour::Blue);
    d2.turn_of(blue2, [0, 0, 1, 0]);
    put(&mut d2, blue2, Unit::Berserkur, 1);
    let e = d2.refused(blue2, &Command::Attack { claim: true, reinforce: 0 });
    assert!(e.contains("no Berserkur card left"), "{e}");
}

#[test]
fn by_version_one_moving_and_attacking_took_two_cards() {
    let (_, _, r) = blue_moves_and_attacks_with_one_card(1);
    assert!(r.unwrap_err().contains("no Berserkur card left"));
}

// --- The War horn, the Seer and the Messenger when the clan chooses --------------------

fn with_upgrade(d: &mut Driver, seat: u8, e: Effect) {
    let t = TILES.iter().position(|t| t.effect == e).expect("a tile with the effect");
    d.state.players[seat as usize].upgrades |= 1u64 << t;
}

fn free(effect: Effect, card: Option<Card>, step: Command) -> Command {
    Command::Free { effect, card, step: Box::new(step) }
}

#[test]
fn the_seer_gives_a_free_godi_action_whenever_the_clan_chooses() {
    // Given the Seer and two Godi cards in hand,
    let mut d = mini_v(4, 2, false);
    let blue = d.seat(Colour::Blue);
    d.turn_of(blue, [0, 2, 0, 0]);
    with_upgrade(&mut d, blue, Effect::GodiFreeAction);
    // when the Godi moves with the Seer, then no card is laid down;
    let ev = d.act(blue, &free(Effect::GodiFreeAction, None, Command::Move { unit: Unit::Godi, to: 8 })).unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::FreeActionUsed { effect: Effect::GodiFreeAction, .. })));
    assert_eq!(d.state.players[blue as usize].hand.godi, 2);
    // once a round only;
    let e = d.refused(blue, &free(Effect::GodiFreeAction, None, Command::Convert));
    assert_eq!(e, "the Seer was already used this round");
    // and the cards still act.
    d.act(blue, &Command::Convert).unwrap();
    assert_eq!(d.state.players[blue as usize].hand.godi, 1);
}

#[test]
fn the_war_horn_lays_down_the_card_the_clan_names_while_berserkur_cards_are_left() {
    let mut d = mini_v(4, 2, false);
    let blue = d.seat(Colour::Blue);
    d.turn_of(blue, [1, 0, 1, 1]);
    with_upgrade(&mut d, blue, Effect::AnyCardBerserkur);
    let e = d.refused(blue, &free(Effect::AnyCardBerserkur, None, Command::Move { unit: Unit::Berserkur, to: 1 }));
    assert_eq!(e, "name the card the War horn lays down for the Berserkur");
    let e = d.refused(
        blue,
        &free(Effect::AnyCardBerserkur, Some(Card::Godi), Command::Move { unit: Unit::Berserkur, to: 1 }),
    );
    assert!(e.starts_with("no Godi card left in hand"), "{e}");
    let ev = d
        .act(blue, &free(Effect::AnyCardBerserkur, Some(Card::Knerrir), Command::Move { unit: Unit::Berserkur, to: 1 }))
        .unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::CardPlayed { card: Card::Knerrir, as_card: Card::Berserkur, .. })));
    assert_eq!(d.state.players[blue as usize].hand.arr(), [1, 0, 1, 0]);
}

#[test]
fn the_messenger_gives_a_free_home_action_while_kaupmadur_cards_are_left() {
    let mut d = mini_v(4, 2, false);
    let blue = d.seat(Colour::Blue);
    d.turn_of(blue, [0, 0, 2, 0]);
    with_upgrade(&mut d, blue, Effect::HomeActionAnywhere);
    let p = &mut d.state.players[blue as usize];
    p.disks[0] = 2;
    p.goods[Good::Meat.idx()] = 4;
    // A step that is no home action does not use it, and is refused whole.
    let e = d.refused(blue, &free(Effect::HomeActionAnywhere, None, Command::Move { unit: Unit::Kaupmadur, to: 1 }));
    assert_eq!(e, "Kaupmadur moves to Forest 1 used no Messenger action");
    assert_eq!(d.state.players[blue as usize].units[2], Loc::Area(0));
    let step = Command::Trade { deals: vec![], refill: vec![Building::Virki] };
    let ev = d.act(blue, &free(Effect::HomeActionAnywhere, None, step)).unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::FreeActionUsed { effect: Effect::HomeActionAnywhere, .. })));
    assert_eq!(d.state.players[blue as usize].hand.kaupmadur, 2);
    assert_eq!(d.state.players[blue as usize].disks[0], 6);
}

#[test]
fn by_version_one_free_actions_came_only_when_no_card_was_left() {
    let mut d = mini_v(4, 1, false);
    let blue = d.seat(Colour::Blue);
    d.turn_of(blue, [0, 2, 0, 0]);
    with_upgrade(&mut d, blue, Effect::GodiFreeAction);
    let e = d.refused(blue, &free(Effect::GodiFreeAction, None, Command::Move { unit: Unit::Godi, to: 8 }));
    assert!(e.contains("rules version 1"), "{e}");
}

// --- A rune file given at creation -----------------------------------------------------

/// A box of 12 runes: many Sea move, no Divine token.
pub const SMALL_RUNES: &str = r#"
[[rune]]
kind = "divine"
count = 0
[[rune]]
kind = "twice"
name = "Twice the resource"
count = 1
[[rune]]
kind = "defence"
count = 2
[[rune]]
kind = "sea_move"
name = "Sea move"
count = 6
[[rune]]
kind = "no_resources"
count = 2
[[rune]]
kind = "theirs_are_yours"
count = 1
"#;

#[test]
fn a_game_with_its_own_rune_file_draws_from_that_mix_and_plays_to_the_end() {
    // Given a rune file of 12 runes,
    let opts = Options { custom_runes: Some(SMALL_RUNES.into()), ..Options::default() };
    // when a game is set up with it, then its pile is that mix less the runes dealt,
    let mut d = Driver::new(&opts, 3, 4).unwrap();
    let held: u8 = d.state.players.iter().map(|p| p.runes.iter().sum::<u8>()).sum();
    assert_eq!(held, 3);
    assert_eq!(d.state.rune_pile.iter().sum::<u8>() + held, 12);
    assert_eq!(d.state.rune_pile[crate::state::RuneKind::Divine.idx()], 0);
    assert!(matches!(d.log[0].event, Event::GameStarted { runes: Some([0, 6, 2, 2, 1, 1]), .. }));
    // and the game plays to the end.
    d.run_bots(20_000);
    assert!(matches!(d.log.last().map(|e| &e.event), Some(Event::GameEnded { .. })));
}

#[test]
fn a_malformed_rune_file_is_refused_naming_the_line() {
    let refused = |text: &str| {
        Driver::new(&Options { custom_runes: Some(text.into()), ..Options::default() }, 2, 1).err().unwrap().message
    };
    let bad_kind = SMALL_RUNES.replace("kind = \"defence\"", "kind = \"thunder\"");
    assert_eq!(
        refused(&bad_kind),
        "runes, the [[rune]] at line 9: no rune is called 'thunder'; the runes are divine, sea_move, defence, no_resources, \
         theirs_are_yours, twice"
    );
    let bad_count = SMALL_RUNES.replace("count = 6", "count = -6");
    assert_eq!(
        refused(&bad_count),
        "runes, the [[rune]] at line 12: the count of Sea move is a whole number from 0 to 99"
    );
    let twice = SMALL_RUNES.replace("kind = \"divine\"", "kind = \"twice\"");
    assert_eq!(refused(&twice), "runes, the [[rune]] at line 5: Twice the resource is listed twice");
    let extra = SMALL_RUNES
        .replace("count = 2\n[[rune]]\nkind = \"sea_move\"", "count = 2\ncolour = 3\n[[rune]]\nkind = \"sea_move\"");
    assert_eq!(refused(&extra), "runes, the [[rune]] at line 9: unknown key 'colour'; a rune has kind, name and count");
    assert_eq!(
        refused("[[rune]]\nkind = \"divine\"\ncount = = 3\n"),
        "runes, line 3: this line is not a valid TOML key and value"
    );
    assert!(refused("[[rune]]\nkind = \"divine\"\ncount = 3\n").starts_with("runes: Sea move is missing"));
}

// --- Deciding at the moment ---------------------------------------------------------------

/// Yellow owns Sheep 3 and asked to decide at the moment; every turn of the
/// round is played (cards unused).
fn yellow_asks_and_the_turns_end(v: u32) -> (Driver, u8, Result<Vec<Event>, String>) {
    let mut d = mini_v(2, v, false);
    let yellow = d.seat(Colour::Yellow);
    let asked = Orders { ask: true, sheep: crate::state::GoodChoice::Meat, ..Orders::default() };
    let r = d.act(yellow, &Command::SetOrders { orders: asked }).map_err(|e| e.message);
    d.turn_of(d.state.starting, [0, 0, 6, 0]);
    d.own(yellow, &[3], 1);
    while d.state.phase == crate::state::Phase::Action {
        let s = d.state.current;
        d.state.players[s as usize].hand = crate::state::Hand::default();
        d.act(s, &Command::EndTurn).unwrap();
    }
    (d, yellow, r)
}

#[test]
fn a_clan_may_decide_its_build_and_claim_choices_when_the_turns_are_over() {
    // Given yellow asked to decide at the moment (its orders say meat from sheep),
    let (mut d, yellow, r) = yellow_asks_and_the_turns_end(2);
    r.unwrap();
    // when the last turn of the round ends, then yellow alone is asked,
    use runestone_engine::game::Game;
    let pending = crate::Bardagi::pending(&d.state);
    assert_eq!(pending.len(), 1);
    assert_eq!((pending[0].seat, pending[0].kind.as_str()), (yellow, "decide"));
    assert!(matches!(d.log.last().map(|e| &e.event), Some(Event::DecisionsAsked { seats }) if *seats == vec![yellow]));
    assert_eq!(d.state.round, 1, "nothing was claimed yet");
    // and what it decides now is what the Claim phase does: wool, not meat.
    let now = Orders { ask: true, sheep: crate::state::GoodChoice::Other, ..Orders::default() };
    let ev = d.act(yellow, &Command::SetOrders { orders: now }).unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::Decided { .. })));
    assert!(ev.iter().any(|e| matches!(e, Event::RoundEnded { round: 1 })));
    let p = &d.state.players[yellow as usize];
    assert_eq!((p.goods[Good::Wool.idx()], p.goods[Good::Meat.idx()]), (1, 0));
    assert_eq!(d.state.round, 2);
    // The bot, answering for a clan that does not decide, keeps its orders.
    let (mut d, yellow, _) = yellow_asks_and_the_turns_end(2);
    let keep = crate::Bardagi::fallback(&d.state, yellow).unwrap();
    d.act(yellow, &keep).unwrap();
    assert_eq!(d.state.players[yellow as usize].goods[Good::Meat.idx()], 1);
}

#[test]
fn by_version_one_the_build_and_claim_choices_were_standing_orders_only() {
    let (d, _, r) = yellow_asks_and_the_turns_end(1);
    assert!(r.unwrap_err().contains("rules version 1"));
    assert_eq!(d.state.round, 2, "the round went on without asking");
}

#[test]
fn version_5_sets_the_summer_board_up_by_player_count() {
    use crate::board::{Board, Colour};
    use std::sync::Arc;
    let home = |d: &Driver, c: Colour| d.state.players.iter().find(|p| p.colour == Some(c)).map(|p| p.home);
    // Given new Summer games of version 5 for 2 to 5 players,
    let v5 = Options { rules_version: Some(5), ..Options::default() };
    for seats in 2..=5u8 {
        let d = Driver::new(&v5, seats, 1).unwrap();
        let started = serde_json::to_value(&d.log[0].event).unwrap();
        if seats == 4 {
            // then 4 players play the setup table's row for 4: Blue's home
            // on area 54, Yellow's on 4, Black's closed home on 55, Red's
            // and Green's where they were, the log naming the row;
            assert_eq!(home(&d, Colour::Blue), Some(54));
            assert_eq!(home(&d, Colour::Yellow), Some(4));
            assert_eq!(home(&d, Colour::Red), Some(0));
            assert_eq!(home(&d, Colour::Green), Some(59));
            assert_eq!(d.state.board.home_of(Colour::Black), Some(55));
            assert_eq!(d.state.board.area(38).name, "Cattle 38");
            assert_eq!(started["board"], serde_json::json!({"builtin_for": {"name": "summer-v5", "players": 4}}));
        } else {
            // and 2, 3 and 5 players the version 4 board's areas as they were.
            assert!(Arc::ptr_eq(&d.state.board.0, &Board::summer_v5()));
            assert_eq!(started["board"], serde_json::json!({"builtin": "summer-v5"}));
            let (a, b) = (serde_json::to_value(&d.state.board.data.areas).unwrap(), Board::summer_v4());
            assert_eq!(a, serde_json::to_value(&b.data.areas).unwrap());
            assert_eq!(home(&d, Colour::Red), Some(0));
        }
        // Each replays from its log onto the same board.
        let replayed = d.assert_replays(&format!("{seats} players on Summer, version 5"));
        assert!(Arc::ptr_eq(&replayed.board.0, &d.state.board.0));
    }
    // A version 4 game of 4 keeps the version 4 board.
    let old = Driver::new(&Options { rules_version: Some(4), ..Options::default() }, 4, 1).unwrap();
    assert!(Arc::ptr_eq(&old.state.board.0, &Board::summer_v4()));
    assert_eq!(home(&old, Colour::Blue), Some(38));
}

/// Where version 6's Summer board puts each home with 5 players (its setup
/// row for 5).
const HOMES_V6_5: [(crate::board::Colour, u8); 5] = {
    use crate::board::Colour::*;
    [(Red, 1), (Yellow, 4), (Blue, 38), (Green, 59), (Black, 55)]
};

#[test]
fn version_6_plays_the_summer_board_of_version_6_with_its_row_for_5_players() {
    use crate::board::{Board, Colour};
    use std::sync::Arc;
    let home = |d: &Driver, c: Colour| d.state.players.iter().find(|p| p.colour == Some(c)).map(|p| p.home);
    let board = Board::summer_v6();
    // Given new Summer games (version 6 and later) for 2 to 5 players,
    for seats in 2..=5u8 {
        let d = Driver::new(&Options::default(), seats, 1).unwrap();
        let started = serde_json::to_value(&d.log[0].event).unwrap();
        assert_eq!(started["rules"], RULES_VERSION);
        match seats {
            5 => {
                // then 5 players play the version 6 board's row for 5, the
                // log naming it, each clan on the home that row gives it;
                assert_eq!(started["board"], serde_json::json!({"builtin_for": {"name": "summer-v6", "players": 5}}));
                assert!(Arc::ptr_eq(&d.state.board.0, &board.for_players(5)));
                for (c, at) in HOMES_V6_5 {
                    assert_eq!(home(&d, c), Some(at), "{}", c.name());
                }
            }
            4 => {
                // 4 players the row for 4 (Blue on 54, Yellow on 4), as in version 5;
                assert_eq!(started["board"], serde_json::json!({"builtin_for": {"name": "summer-v6", "players": 4}}));
                assert_eq!((home(&d, Colour::Blue), home(&d, Colour::Yellow)), (Some(54), Some(4)));
            }
            _ => {
                // and 2 and 3 players the areas as listed, Red at 0 and Yellow at 6;
                assert!(Arc::ptr_eq(&d.state.board.0, &board));
                assert_eq!(started["board"], serde_json::json!({"builtin": "summer-v6"}));
                assert_eq!((home(&d, Colour::Red), home(&d, Colour::Yellow)), (Some(0), Some(6)));
            }
        }
        // Each replays from its log onto the same board.
        let replayed = d.assert_replays(&format!("{seats} players on Summer, version 6"));
        assert!(Arc::ptr_eq(&replayed.board.0, &d.state.board.0));
    }
    // A version 5 game of 5 keeps the version 5 board, its homes as listed.
    let old = Driver::new(&Options { rules_version: Some(5), ..Options::default() }, 5, 1).unwrap();
    assert!(Arc::ptr_eq(&old.state.board.0, &Board::summer_v5()));
    assert_eq!((home(&old, Colour::Black), home(&old, Colour::Green)), (Some(31), Some(59)));
}

// --- Version 7 ------------------------------------------------------------------------

#[test]
fn the_goods_need_to_be_available_for_trade_and_refill_at_his_storage() {
    // Given blue's Kaupmadur at home with 2 hide and a stone, Verslun low,
    let given = |v: u32| {
        let mut d = mini_v(4, v, false);
        let blue = d.seat(Colour::Blue);
        d.turn_of(blue, [0, 0, 2, 0]);
        let p = &mut d.state.players[blue as usize];
        p.disks = [6, 6, 2];
        p.supply = 20;
        p.goods = [0, 0, 0, 2, 1, 0];
        (d, blue)
    };
    let deals = || vec![Deal::MineForBasic { give: Good::Stone, get: [Good::Hide, Good::Hide] }];
    // when one card trades the stone for 2 hide and refills Verslun with them,
    // then it is refused in words: the 4 hide were not in storage;
    let (mut d, blue) = given(7);
    let e = d.refused(blue, &Command::Trade { deals: deals(), refill: vec![Building::Verslun] });
    assert!(e.contains("goods traded for with this card cannot pay for its refills"), "{e}");
    // the book's example spends two cards: trade with one, refill with another.
    d.act(blue, &Command::Trade { deals: deals(), refill: vec![] }).unwrap();
    d.act(blue, &Command::Trade { deals: vec![], refill: vec![Building::Verslun] }).unwrap();
    let p = &d.state.players[blue as usize];
    assert_eq!((p.disks[2], p.played.total()), (6, 2));
    // Goods in storage beside the deals still trade and refill with one card.
    let (mut d, blue) = given(7);
    d.state.players[blue as usize].goods = [0, 0, 0, 4, 1, 0];
    let meat = vec![Deal::MineForBasic { give: Good::Stone, get: [Good::Meat, Good::Meat] }];
    d.act(blue, &Command::Trade { deals: meat, refill: vec![Building::Verslun] }).unwrap();
    assert_eq!(d.state.players[blue as usize].played.total(), 1);
    // By version 6 the card refilled with what it had just traded for.
    let (mut d, blue) = given(6);
    d.act(blue, &Command::Trade { deals: deals(), refill: vec![Building::Verslun] }).unwrap();
    assert_eq!(d.state.players[blue as usize].played.total(), 1);
}

#[test]
fn you_can_use_one_card_to_move_any_of_the_3_units_freely_within_your_area() {
    // Given blue owning the quarry and the iron mine beside its home,
    for (v, cards) in [(7, 2), (6, 1)] {
        let mut d = mini_v(4, v, false);
        let blue = d.seat(Colour::Blue);
        d.turn_of(blue, [3, 0, 0, 0]);
        d.own(blue, &[7, 8], 1);
        // when the Berserkur moves within that land twice,
        let ev = d.act(blue, &Command::Move { unit: Unit::Berserkur, to: 8 }).unwrap();
        assert!(matches!(ev[1], Event::UnitMoved { cost, .. } if cost == (v == 7) as u8), "{ev:?}");
        d.act(blue, &Command::Move { unit: Unit::Berserkur, to: 7 }).unwrap();
        // then each move lays down its card (by version 6 the second was free).
        assert_eq!(d.state.players[blue as usize].played.berserkur, cards, "version {v}");
    }
}

#[test]
fn a_knerrir_card_moves_him_on_his_current_journey_only() {
    for (v, cards) in [(7, 2), (6, 1)] {
        // Given blue's Kaupmadur sailing 2 of a card's 3 squares to the green home,
        let mut d = mini_v(4, v, false);
        let blue = d.seat(Colour::Blue);
        d.turn_of(blue, [0, 0, 2, 2]);
        d.act(blue, &Command::Board { unit: Unit::Kaupmadur }).unwrap();
        let route = vec![SeaNode::Ocean(0), SeaNode::Harbour(14)];
        d.act(blue, &Command::Sail { route, sea_rune: false }).unwrap();
        // when he goes ashore (the journey ends) and boards again for a new one,
        d.act(blue, &Command::Disembark { unit: Unit::Kaupmadur }).unwrap();
        assert_eq!(d.state.players[blue as usize].ship, ShipLoc::Home);
        d.act(blue, &Command::Board { unit: Unit::Kaupmadur }).unwrap();
        d.act(blue, &Command::Sail { route: vec![SeaNode::Ocean(0)], sea_rune: false }).unwrap();
        // then the new journey takes a new card (version 6 sailed on the old one's square).
        assert_eq!(d.state.players[blue as usize].played.knerrir, cards, "version {v}");
    }
}

/// Red's Berserkur on red's Forest 1 beside blue's home, and blue's
/// Berserkur (Virki holding `disks`) moved onto it, by rules version `v`.
fn blue_meets_red_on_forest_1(v: u32, disks: u8) -> (Driver, u8) {
    let mut d = mini_v(4, v, false);
    let blue = d.seat(Colour::Blue);
    let red = d.seat(Colour::Red);
    d.turn_of(blue, [2, 0, 0, 0]);
    d.own(red, &[1], 1);
    put(&mut d, red, Unit::Berserkur, 1);
    d.state.players[blue as usize].disks[0] = disks;
    d.act(blue, &Command::Move { unit: Unit::Berserkur, to: 1 }).unwrap();
    (d, blue)
}

#[test]
fn gain_one_gold_for_each_area_attacked_with_your_berserkur() {
    for (v, attacks) in [(7, 1), (6, 0)] {
        // Given blue's Berserkur on red's forest, where red's Berserkur stands,
        let (mut d, blue) = blue_meets_red_on_forest_1(v, 5);
        // when he attacks there and only defeats him,
        d.act(blue, &Command::Attack { claim: false, reinforce: 0 }).unwrap();
        // then the area counts as attacked for Plunder (by version 6 it did not).
        assert_eq!(d.state.players[blue as usize].attacks, attacks, "version {v}");
    }
    // An area fought for and then taken counts once.
    let (mut d, blue) = blue_meets_red_on_forest_1(7, 7);
    d.act(blue, &Command::Attack { claim: true, reinforce: 0 }).unwrap();
    assert_eq!(d.state.areas[1].owner, Some(blue));
    assert_eq!(d.state.players[blue as usize].attacks, 1);
}
