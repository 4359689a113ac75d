//! Planning, the whole-turn command, the Build phase, the Claim phase and
//! the end of the game.

use crate::board::{Colour, SeaNode};
use crate::build::{Effect, TILES};
use crate::scoring::goods_to_gold;
use crate::state::{
    AxeOrder, BuildWish, Building, Card, Command, DiskMove, DiskSpot, Event, Good, GoodChoice, Hand, Loc, Orders,
    Phase, RuneKind, Unit,
};
use crate::{Bardagi, Options};
use runestone_engine::game::{Game, Viewer, Visibility};

use super::{mini, Driver};

// --- Planning ----------------------------------------------------------------------

#[test]
fn each_clan_secretly_chooses_six_of_its_cards() {
    let mut d = Driver::new(&Options::default(), 3, 5).unwrap();
    assert_eq!(Bardagi::pending(&d.state).len(), 3);
    let e = d.refused(0, &Command::Plan { hand: Hand::new([3, 3, 1, 0]) });
    assert!(e.contains("exactly 6"), "{e}");
    let e = d.refused(0, &Command::Plan { hand: Hand::new([7, 0, 0, 0]) });
    assert!(e.contains("only 6 cards of each type"), "{e}");
    let mut rng = runestone_engine::rng::GameRng::new(d.seed.clone(), 99);
    let emits = Bardagi::decide(&d.state, 0, &Command::Plan { hand: Hand::new([2, 2, 2, 0]) }, &mut rng).unwrap();
    assert_eq!(emits[0].visibility, Visibility::Seats(vec![0]));
    assert!(matches!(emits[0].redacted, Some(Event::PlanChosen { hand: None, .. })));
    d.act(0, &Command::Plan { hand: Hand::new([2, 2, 2, 0]) }).unwrap();
    assert!(Bardagi::view(&d.state, Viewer::Seat(1))["players"][0]["hand"].is_null());
    assert!(!Bardagi::view(&d.state, Viewer::Seat(0))["players"][0]["hand"].is_null());
    assert_eq!(d.waiting(), vec![1, 2], "a clan that chose waits for the others");
}

#[test]
fn a_later_plan_replaces_the_earlier_one_until_the_reveal() {
    // Given a 3-player game where clan 0 has chosen its cards
    let mut d = Driver::new(&Options::default(), 3, 5).unwrap();
    d.act(0, &Command::Plan { hand: Hand::new([2, 2, 2, 0]) }).unwrap();
    let p = &Bardagi::pending(&d.state)[0];
    assert!(p.seat == 0 && p.submitted, "a clan that chose may still choose again, unhurried: {p:?}");
    assert!(!Bardagi::legal(&d.state, 0).is_empty(), "it is offered the plans it may switch to");
    // When it chooses again before the others have chosen
    let ev = d.act(0, &Command::Plan { hand: Hand::new([0, 3, 3, 0]) }).unwrap();
    // Then the later plan replaces the earlier one, and nothing is revealed yet
    assert!(matches!(ev[..], [Event::PlanChosen { seat: 0, hand: Some(_), .. }]), "{ev:?}");
    assert_eq!(d.state.players[0].hand, Hand::new([0, 3, 3, 0]));
    assert_eq!(d.state.phase, Phase::Planning);
    assert_eq!(d.waiting(), vec![1, 2]);
    // When the last clan that had not chosen chooses
    d.act(1, &Command::Plan { hand: Hand::new([1, 1, 1, 3]) }).unwrap();
    assert_eq!(d.state.phase, Phase::Planning, "clan 2 has not chosen yet");
    let ev = d.act(2, &Command::Plan { hand: Hand::new([1, 1, 3, 1]) }).unwrap();
    // Then the plans are revealed turn by turn, clan 0 with its later plan
    assert!(ev.iter().any(|e| matches!(e, Event::TurnBegan { .. })), "{ev:?}");
    assert_eq!(d.state.phase, Phase::Action);
    assert_eq!(d.state.players[0].hand, Hand::new([0, 3, 3, 0]));
}

#[test]
fn a_replaced_plan_stays_hidden_from_other_clans() {
    // Given a 2-player game where clan 0 has chosen its cards
    let mut d = Driver::new(&Options::default(), 2, 5).unwrap();
    d.act(0, &Command::Plan { hand: Hand::new([2, 2, 2, 0]) }).unwrap();
    // When it replaces its plan
    let mut rng = runestone_engine::rng::GameRng::new(d.seed.clone(), 99);
    let later = Command::Plan { hand: Hand::new([0, 0, 3, 3]) };
    let emits = Bardagi::decide(&d.state, 0, &later, &mut rng).unwrap();
    d.act(0, &later).unwrap();
    // Then the new plan is seen only by its clan; the others see that a plan was chosen
    assert_eq!(emits.len(), 1);
    assert_eq!(emits[0].visibility, Visibility::Seats(vec![0]));
    assert!(matches!(emits[0].redacted, Some(Event::PlanChosen { seat: 0, hand: None, program: None })));
    assert!(Bardagi::view(&d.state, Viewer::Seat(1))["players"][0]["hand"].is_null());
    assert!(Bardagi::view(&d.state, Viewer::Public)["players"][0]["hand"].is_null());
    assert!(!Bardagi::view(&d.state, Viewer::Seat(0))["players"][0]["hand"].is_null());
    // And folding what clan 1 was shown leaves clan 0's hand unknown until its turn lays it down
    let mut seen = crate::State::default();
    let shown = |e: &runestone_engine::game::Emit<Event>| match &e.visibility {
        Visibility::Seats(s) if !s.contains(&1) => e.redacted.clone().unwrap(),
        _ => e.event.clone(),
    };
    for e in &d.log {
        Bardagi::apply(&mut seen, &shown(e));
    }
    assert_eq!(seen.players[0].hand, Hand::default());
    d.act(1, &Command::Plan { hand: Hand::new([1, 1, 1, 3]) }).unwrap();
    let mut seen = crate::State::default();
    for e in &d.log {
        Bardagi::apply(&mut seen, &shown(e));
    }
    let first = d.state.starting as usize;
    assert_eq!(seen.players[first].hand, d.state.players[first].hand, "laid face up at the turn");
}

#[test]
fn a_plan_cannot_be_replaced_after_the_reveal() {
    // Given a 2-player game where both clans have chosen, so the plans are revealed
    let mut d = Driver::new(&Options::default(), 2, 5).unwrap();
    d.act(0, &Command::Plan { hand: Hand::new([2, 2, 2, 0]) }).unwrap();
    d.act(1, &Command::Plan { hand: Hand::new([1, 2, 2, 1]) }).unwrap();
    assert_eq!(d.state.phase, Phase::Action);
    let first = d.state.starting;
    let other = 1 - first;
    // Then nobody is asked for a plan any more
    assert_eq!(d.waiting(), vec![first]);
    assert!(Bardagi::pending(&d.state).iter().all(|p| p.kind == "turn"));
    assert!(!Bardagi::legal(&d.state, first).iter().any(|c| matches!(c, Command::Plan { .. })));
    assert!(Bardagi::legal(&d.state, other).is_empty());
    // When the clan whose turn it is tries to choose again
    let e = d.refused(first, &Command::Plan { hand: Hand::new([0, 0, 3, 3]) });
    // Then it is refused, and its revealed hand stands
    assert!(e.contains("already laid face up"), "{e}");
    assert_ne!(d.state.players[first as usize].hand, Hand::new([0, 0, 3, 3]));
}

#[test]
fn the_cards_are_laid_face_up_when_the_clans_turn_begins() {
    let mut d = Driver::new(&Options::default(), 2, 5).unwrap();
    d.act(0, &Command::Plan { hand: Hand::new([2, 2, 2, 0]) }).unwrap();
    let ev = d.act(1, &Command::Plan { hand: Hand::new([1, 2, 2, 1]) }).unwrap();
    let first = d.state.starting;
    assert!(ev.iter().any(|e| matches!(e, Event::TurnBegan { seat, hand: Some(_) } if *seat == first)));
    assert_eq!(d.state.phase, Phase::Action);
}

#[test]
fn from_round_five_the_advanced_option_allows_up_to_eight_cards() {
    let mut d = Driver::new(&Options { eight_cards: true, ..Options::default() }, 2, 5).unwrap();
    assert_eq!(d.state.hand_size, 6);
    while d.state.round < 5 {
        let p = d.next_seat().unwrap();
        let c = Bardagi::fallback(&d.state, p).unwrap();
        d.act(p, &c).unwrap();
    }
    assert_eq!(d.state.hand_size, 8);
    d.act(0, &Command::Plan { hand: Hand::new([2, 2, 2, 2]) }).unwrap();
}

#[test]
fn in_the_easier_variant_cards_are_chosen_at_the_start_of_ones_own_turn() {
    let mut d = Driver::new(&Options { easy_cards: true, ..Options::default() }, 2, 5).unwrap();
    assert_eq!(d.state.phase, Phase::Action);
    let s = d.state.current;
    assert_eq!(Bardagi::pending(&d.state).len(), 1);
    let e = d.refused(s, &Command::Move { unit: Unit::Kaupmadur, to: 0 });
    assert!(e.contains("choose your 6 cards first"), "{e}");
    d.act(s, &Command::Plan { hand: Hand::new([1, 1, 3, 1]) }).unwrap();
    assert_eq!(d.state.players[s as usize].hand.kaupmadur, 3);
}

#[test]
fn two_cards_may_be_discarded_for_one_card_of_choice() {
    let mut d = mini(2);
    d.turn_of(0, [0, 0, 0, 6]);
    d.act(0, &Command::Exchange { discard: [Card::Knerrir, Card::Knerrir], take: Card::Kaupmadur }).unwrap();
    assert_eq!(d.state.players[0].hand, Hand::new([0, 0, 1, 4]));
    let e = d.refused(0, &Command::Exchange { discard: [Card::Godi, Card::Knerrir], take: Card::Kaupmadur });
    assert!(e.contains("no Godi card"), "{e}");
}

#[test]
fn at_least_one_card_must_be_laid_down() {
    let mut d = mini(2);
    d.turn_of(0, [2, 2, 2, 0]);
    let e = d.refused(0, &Command::EndTurn);
    assert!(e.contains("at least one card"), "{e}");
    // A whole turn that lays no card is refused the same way.
    let e = d.refused(0, &Command::PlayTurn { steps: vec![] });
    assert_eq!(e, "step 1 (end the turn): lay down at least one card before ending the turn");
    // One card laid, the turn may end.
    let home = d.state.players[0].home;
    let to = *d.state.board.land[home as usize]
        .iter()
        .find(|a| crate::actions::may_enter(&d.state, 0, Unit::Kaupmadur, **a))
        .unwrap();
    d.act(0, &Command::PlayTurn { steps: vec![Command::Move { unit: Unit::Kaupmadur, to }] }).unwrap();
    assert_eq!(d.state.players[0].played.total(), 1);
    assert_ne!(d.state.current, 0, "the turn ended");
    // A clan whose cards can no longer be used may end its turn without one.
    let next = d.state.current;
    d.state.players[next as usize].hand = Hand::default();
    d.act(next, &Command::EndTurn).unwrap();
}

#[test]
fn a_whole_turn_is_accepted_or_rejected_as_a_whole_naming_the_failing_step() {
    let mut d = mini(4);
    let blue = d.seat(Colour::Blue);
    let red = d.seat(Colour::Red);
    d.turn_of(blue, [2, 1, 2, 1]);
    d.own(red, &[1], 1);
    d.state.areas[1].disks = 2;
    d.state.players[blue as usize].disks[0] = 2;
    let before = d.state.clone();
    let steps = vec![
        Command::Move { unit: Unit::Kaupmadur, to: 7 },
        Command::Move { unit: Unit::Berserkur, to: 1 },
        Command::Attack { claim: true, reinforce: 0 },
    ];
    let e = d.refused(blue, &Command::PlayTurn { steps });
    assert_eq!(e, "step 3 (Berserkur attack on Forest 1): needs 3 disks, Virki holds 2");
    assert_eq!(serde_json::to_string(&d.state).unwrap(), serde_json::to_string(&before).unwrap());
    let ev = d
        .act(blue, &Command::PlayTurn { steps: vec![Command::Move { unit: Unit::Kaupmadur, to: 7 }, Command::BuyLand] })
        .unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::TurnEnded { .. })));
    assert_ne!(d.state.current, blue);
}

// --- Build phase -------------------------------------------------------------------

fn face_up(d: &Driver, b: Building, level: u8) -> Effect {
    (0..TILES.len())
        .find(|t| d.state.market & (1u64 << t) != 0 && TILES[*t].building == b && TILES[*t].level == level)
        .map(|t| TILES[t].effect)
        .unwrap()
}

/// Play the rest of the round with empty hands (a clan with no card to
/// play may end its turn), so nothing on the board moves.
pub(super) fn finish_round(d: &mut Driver) -> Vec<Event> {
    if d.state.phase == Phase::Planning {
        d.turn_of(d.state.starting, [0, 0, 6, 0]);
    }
    let round = d.state.round;
    let mut all = Vec::new();
    while d.state.round == round && d.state.phase != Phase::Over {
        let s = d.state.current;
        d.state.players[s as usize].hand = Hand::default();
        all.extend(d.act(s, &Command::EndTurn).unwrap());
    }
    all
}

#[test]
fn build_orders_buy_a_face_up_upgrade_for_its_cost_and_three_or_five_glory() {
    let mut d = mini(2);
    d.turn_of(d.state.starting, [0, 0, 6, 0]);
    let e1 = face_up(&d, Building::Virki, 1);
    let e2 = face_up(&d, Building::Virki, 2);
    let p = &mut d.state.players[0];
    p.goods = [3, 0, 0, 0, 3, 3];
    p.gold = 3;
    p.orders.build = vec![
        BuildWish { building: Building::Virki, effect: e2, replace: None },
        BuildWish { building: Building::Virki, effect: e1, replace: None },
    ];
    let glory = p.glory;
    let ev = finish_round(&mut d);
    // The 2nd level wish waits for a 1st level upgrade; the 1st level one is built.
    assert!(ev.iter().any(|e| matches!(e, Event::UpgradeBuilt { seat: 0, glory: 3, .. })));
    assert!(ev.iter().any(|e| matches!(e, Event::TileRevealed { .. })));
    let p = &d.state.players[0];
    assert_eq!(p.goods[Good::Timber.idx()], 0);
    assert_eq!(p.goods[Good::Iron.idx()], 2);
    assert_eq!(p.glory, glory + 3);
    assert_eq!(p.capacity(Building::Virki), if e1 == Effect::MeadHall { 9 } else { 7 });
    assert_eq!(p.orders.build.len(), 1, "the built wish is done");
    // Next round the 2nd level one: 3 stone, 2 iron, 2 gold, 5 glory.
    let ev = finish_round(&mut d);
    assert!(d.state.players[0].orders.build.is_empty(), "the 2nd level wish is built");
    assert!(ev.iter().any(|e| matches!(e, Event::UpgradeBuilt { seat: 0, glory: 5, .. })), "{ev:?}");
    let p = &d.state.players[0];
    assert_eq!(p.goods[Good::Stone.idx()], 0);
    assert_eq!(p.goods[Good::Iron.idx()], 0);
    assert_eq!(p.glory, glory + 3 + 5);
    assert_eq!(p.capacity(Building::Virki), if e1 == Effect::MeadHall { 11 } else { 9 });
}

#[test]
fn an_owned_upgrade_may_be_replaced_without_glory() {
    let mut d = mini(2);
    d.turn_of(d.state.starting, [0, 0, 6, 0]);
    let owned = (0..TILES.len())
        .find(|t| d.state.market & (1u64 << t) != 0 && TILES[*t].building == Building::Hof && TILES[*t].level == 1)
        .unwrap();
    d.state.market &= !(1u64 << owned);
    d.state.players[0].upgrades |= 1u64 << owned;
    let other = face_up(&d, Building::Hof, 1);
    if other == TILES[owned].effect {
        return;
    }
    let p = &mut d.state.players[0];
    p.goods = [3, 0, 0, 0, 0, 1];
    p.gold = 1;
    p.orders.build = vec![BuildWish { building: Building::Hof, effect: other, replace: Some(TILES[owned].effect) }];
    let ev = finish_round(&mut d);
    assert!(ev.iter().any(|e| matches!(e, Event::UpgradeBuilt { seat: 0, glory: 0, replaced: Some(_), .. })));
    assert!(d.state.piles & (1u64 << owned) != 0, "the old tile goes back into its pile");
}

// --- Claim phase -------------------------------------------------------------------

#[test]
fn claim_gives_one_glory_per_area_and_its_resources_within_storage_limits() {
    let mut d = mini(2);
    d.turn_of(d.state.starting, [0, 0, 6, 0]);
    d.own(0, &[1, 2, 13, 9, 3], 1);
    let p = &mut d.state.players[0];
    p.goods = [4, 0, 0, 0, 0, 0];
    p.orders = Orders { sheep: GoodChoice::Meat, cattle: GoodChoice::Other, ..Orders::default() };
    let glory = p.glory;
    let ev = finish_round(&mut d);
    assert!(ev.iter().any(|e| matches!(e, Event::GoodsSpoiled { seat: 0, lost: [2, 0, 0, 0, 0, 0] })));
    let p = &d.state.players[0];
    assert_eq!(p.goods, [5, 0, 1, 1, 0, 0]);
    assert_eq!(p.glory, glory + 5);
}

#[test]
fn godi_on_own_area_adds_one_and_on_anothers_unprotected_area_blocks_it() {
    let mut d = mini(2);
    d.turn_of(d.state.starting, [0, 0, 6, 0]);
    d.own(0, &[12, 13], 1);
    d.state.players[0].units[1] = Loc::Area(12);
    d.state.players[1].units[1] = Loc::Area(13);
    let gold = d.state.players[0].gold;
    finish_round(&mut d);
    assert_eq!(d.state.players[0].gold, gold + 2);
    assert_eq!(d.state.players[0].goods[Good::Timber.idx()], 0, "the other Godi blocks Forest 13");
}

#[test]
fn runes_change_production_and_curses_block_or_divert_it() {
    let mut d = mini(2);
    d.turn_of(d.state.starting, [0, 0, 6, 0]);
    d.own(0, &[1, 2, 13], 1);
    d.state.areas[1].runes = RuneKind::Twice.bit() | RuneKind::Divine.bit();
    d.state.areas[2].runes = RuneKind::NoResources.bit();
    d.state.areas[13].runes = RuneKind::TheirsAreYours.bit();
    d.state.areas[13].caster = Some(1);
    finish_round(&mut d);
    assert_eq!(
        d.state.players[0].goods[Good::Timber.idx()],
        4,
        "1 + 2 + 1 from Forest 1, none from 2, 13 to the caster"
    );
    assert_eq!(d.state.players[1].goods[Good::Timber.idx()], 1);
}

#[test]
fn villages_give_recruits_placed_within_building_limits_and_a_kaupmadur_there_one_gold() {
    let mut d = mini(2);
    d.turn_of(d.state.starting, [0, 0, 6, 0]);
    d.own(0, &[5], 1);
    let p = &mut d.state.players[0];
    p.units[2] = Loc::Area(5);
    p.disks = [6, 6, 5];
    p.town = 1;
    p.orders.recruits = vec![Building::Virki, Building::Verslun];
    let gold = p.gold;
    let ev = finish_round(&mut d);
    assert!(ev.iter().any(|e| matches!(e, Event::RecruitsGained { seat: 0, count: 1, .. })));
    let p = &d.state.players[0];
    assert_eq!(p.disks, [6, 6, 6]);
    assert_eq!(p.town, 1, "the recruit with no room waits on the town area");
    assert_eq!(p.gold, gold + 1);
}

#[test]
fn each_owned_camp_sells_one_axe_for_one_gold_and_axes_are_placed_by_order() {
    let mut d = mini(2);
    d.turn_of(d.state.starting, [0, 0, 6, 0]);
    d.own(0, &[6, 5], 1);
    let p = &mut d.state.players[0];
    p.gold = 2;
    p.axes = 1;
    p.orders = Orders { buy_axes: true, axes: AxeOrder::Areas(vec![5, 5, 6]), ..Orders::default() };
    finish_round(&mut d);
    assert_eq!(d.state.areas[5].axes, 2);
    assert_eq!(d.state.players[0].gold, 1);
    assert_eq!(d.state.players[0].axes, 0);
}

#[test]
fn upgrades_pay_gold_and_glory_at_the_claim() {
    let mut d = mini(2);
    d.turn_of(d.state.starting, [0, 0, 6, 0]);
    d.own(0, &[7, 1], 1);
    let pick = |b: Building, e: Effect| TILES.iter().position(|t| t.building == b && t.effect == e).unwrap();
    d.state.players[0].upgrades = (1u64 << pick(Building::Hof, Effect::GoldTwo))
        | (1u64 << pick(Building::Verslun, Effect::GoldTwo))
        | (1u64 << pick(Building::Hof, Effect::QuarryGloryThree))
        | (1u64 << pick(Building::Verslun, Effect::GoldPerForest));
    let (gold, glory) = (d.state.players[0].gold, d.state.players[0].glory);
    finish_round(&mut d);
    assert_eq!(d.state.players[0].gold, gold + 5, "Alchemist and Mint stack: 4, and 1 for the forest");
    assert_eq!(d.state.players[0].glory, glory + 2 + 3);
}

#[test]
fn the_starting_player_token_passes_left_and_cards_return() {
    let mut d = mini(3);
    d.turn_of(d.state.starting, [0, 0, 6, 0]);
    let s = d.state.starting;
    finish_round(&mut d);
    assert_eq!(d.state.starting, (s + 1) % 3);
    assert_eq!(d.state.round, 2);
    assert!(d.state.players.iter().all(|p| p.hand.total() == 0 && p.played.total() == 0 && !p.planned));
}

// --- End of game ---------------------------------------------------------------------

#[test]
fn remaining_goods_become_gold_by_the_trade_table() {
    assert_eq!(goods_to_gold(4, 0), 1);
    assert_eq!(goods_to_gold(8, 0), 3);
    assert_eq!(goods_to_gold(0, 4), 3);
    assert_eq!(goods_to_gold(2, 1), 1, "2 basic become a mine good, 2 mine goods 1 gold");
    assert_eq!(goods_to_gold(3, 0), 0);
}

#[test]
fn most_gold_gains_fifteen_most_areas_twelve_ties_split_and_gold_counts_one_each() {
    let mut d = mini(3);
    d.state.rounds = 1;
    d.turn_of(d.state.starting, [0, 0, 6, 0]);
    d.own(0, &[1], 1);
    d.own(1, &[2], 1);
    d.own(2, &[7, 8], 1);
    for (i, p) in d.state.players.iter_mut().enumerate() {
        p.gold = [10, 10, 5][i];
        p.glory = 0;
        p.goods = [0; 6];
    }
    let ev = finish_round(&mut d);
    assert_eq!(d.state.phase, Phase::Over);
    assert!(ev.iter().any(|e| matches!(e, Event::GameEnded { .. })));
    let o = Bardagi::outcome(&d.state).unwrap();
    // seat 0 and 1 tie on gold and on mines and villages: 15 split, 7 each;
    // seat 2 has most areas: 12, and its stone and iron become 1 gold.
    // Claim glory: 1, 1, 2.
    assert_eq!(o.scores, vec![1 + 7 + 10, 1 + 7 + 10, 2 + 12 + 6]);
    assert_eq!(o.ranking[0], 2);
    assert_eq!(o.winners, vec![2]);
}

#[test]
fn repeatedly_applying_the_fallback_always_ends_the_game() {
    for (seats, board) in [(2, "winter"), (3, "summer"), (5, "summer")] {
        let mut d = Driver::new(&Options { board: board.into(), ..Options::default() }, seats, 11).unwrap();
        d.run_bots(seats as usize * 40);
        assert!(Bardagi::outcome(&d.state).is_some());
        let built = d.log.iter().filter(|e| matches!(e.event, Event::UpgradeBuilt { .. })).count();
        let taken = d.log.iter().filter(|e| matches!(e.event, Event::AreaOvertaken { .. })).count();
        let refilled = d.log.iter().filter(|e| matches!(e.event, Event::BuildingRefilled { .. })).count();
        eprintln!("{seats} players on {board}: {taken} areas taken, {refilled} refills, {built} upgrades built");
        assert!(taken > 10 && refilled > 0, "the bot claims land and refills");
    }
}

#[test]
fn every_event_is_told_in_words() {
    let mut d = Driver::new(&Options::default(), 2, 3).unwrap();
    d.run_bots(200);
    let names = vec!["Ann".to_string(), "Bo".to_string()];
    for e in &d.log {
        let text = Bardagi::describe(&d.state, &e.event, &names);
        assert!(!text.is_empty() && !text.contains("Some(") && !text.contains('{'), "{text}");
        assert!(!text.contains("area "), "places are named by the board: {text}");
    }
}

#[test]
fn events_name_places_as_the_board_does() {
    // Given a game on the mini board
    let mut d = mini(2);
    let names = vec!["Ann".to_string(), "Bo".to_string()];
    let say = |d: &Driver, e: &Event| Bardagi::describe(&d.state, e, &names);
    let seat = d.seat(Colour::Red);
    // When a unit moves, boards the Knerrir, sails and goes ashore, and disks are moved
    let moved = Event::UnitMoved { seat, unit: Unit::Godi, from: 4, to: 10, cost: 1, allowance: Some(2), via: None };
    let boarded = Event::UnitBoarded { seat, unit: Unit::Godi, harbour: 3, cost: 1, allowance: None };
    let sailed = Event::KnerrirSailed {
        seat,
        route: vec![SeaNode::Ocean(3), SeaNode::Ocean(2), SeaNode::Harbour(12)],
        sea_rune: false,
        allowance: Some(3),
    };
    let ashore = Event::UnitDisembarked { seat, unit: Unit::Godi, harbour: 12 };
    let rearranged = Event::DisksRearranged {
        seat,
        moves: vec![DiskMove { from: DiskSpot::Area(13), to: DiskSpot::Town, count: 2 }],
    };
    // Then each is told with the places' names, as a player reads them in a mail
    let who = &names[seat as usize];
    assert_eq!(say(&d, &moved), format!("{who}'s Godi moves from the Red home to Sacred 10"));
    assert_eq!(say(&d, &boarded), format!("{who}'s Godi boards the Knerrir at the harbour of Sheep 3"));
    assert_eq!(say(&d, &sailed), format!("{who}'s Knerrir sails 3 square(s) to the harbour of Gold mine 12"));
    assert_eq!(say(&d, &ashore), format!("{who}'s Godi goes ashore at Gold mine 12"));
    assert_eq!(say(&d, &rearranged), format!("{who} moves disks: 2 from Forest 13 to the town area"));
    d.state = Default::default();
    assert!(say(&d, &moved).ends_with("from area 4 to area 10"), "without a board, areas go by number");
}

#[test]
fn standing_orders_name_only_upgrades_that_exist() {
    let mut d = mini(2);
    let s = d.state.starting;
    d.turn_of(s, [0, 0, 6, 0]);
    let orders = Orders {
        build: vec![BuildWish { building: Building::Virki, effect: Effect::HideForGold, replace: None }],
        ..Orders::default()
    };
    let e = d.refused(s, &Command::SetOrders { orders });
    assert!(e.contains("no Virki tile has the effect HideForGold"), "{e}");
    let mut rng = runestone_engine::rng::GameRng::new(d.seed.clone(), 5);
    let emits = Bardagi::decide(&d.state, s, &Command::SetOrders { orders: Orders::default() }, &mut rng).unwrap();
    assert_eq!(emits[0].visibility, Visibility::Seats(vec![s]), "orders are secret");
}

#[test]
fn a_clans_own_standing_orders_are_kept_when_the_bot_plays_its_turn() {
    use crate::state::{GoodChoice, Orders};
    // Given a clan that wrote its own standing orders,
    let mut d = Driver::new(&Options::default(), 2, 11).unwrap();
    let mine = Orders { sheep: GoodChoice::Meat, cattle: GoodChoice::Meat, buy_axes: false, ..Orders::default() };
    while d.state.phase != Phase::Action {
        let seat = d.next_seat().expect("someone plans");
        let c = match Bardagi::fallback(&d.state, seat).unwrap() {
            // Planned without a program: the turn is played by the bot below.
            Command::Program { hand, .. } => Command::Plan { hand },
            c => c,
        };
        d.act(seat, &c).unwrap();
    }
    let seat = d.state.current;
    d.act(seat, &Command::SetOrders { orders: mine.clone() }).unwrap();
    // when the bot plays its turn for it (a timeout's fallback),
    let c = Bardagi::fallback(&d.state, seat).unwrap();
    d.act(seat, &c).unwrap();
    // then its orders are still its own.
    assert_eq!(d.state.players[seat as usize].orders, mine);
}
