//! Random playouts: seeded games across 2 to 5 players and all options,
//! played by random legal choices and by the bot with a share of random
//! legal moves, each checked for panics, dead ends, endless games, the right
//! number of rounds, replay equality and hidden-information leaks; the run
//! reaches every command family and uses every upgrade effect where the
//! rules apply it (counted and asserted). `BARDAGI_PLAYOUTS` games (a few
//! dozen by default; 2,000 in release for the full measure).

use super::Driver;
use crate::board::AreaKind;
use crate::bot::candidates;
use crate::build::Effect;
use crate::planning::all_hands;
use crate::state::{Command, Event, Phase, State};
use crate::{Bardagi, Options};
use runestone_engine::game::{Game, Seat, Viewer, Visibility};

use runestone_engine::harness::Pick;

fn options_for(i: u64, seats: u8) -> Options {
    Options {
        board: if seats <= 3 && i.is_multiple_of(3) { "winter".into() } else { "summer".into() },
        custom_board: (seats <= 4 && i % 7 == 3).then(|| super::MINI.to_string()),
        easy_cards: i % 5 == 1,
        eight_cards: i.is_multiple_of(2),
        forced_trade: i % 3 == 2,
        rounds: None,
        // Some games with chosen colours (the last colours of the player
        // count, in reverse), some by rules version 1.
        colours: (i % 6 == 4)
            .then(|| crate::board::Colour::available(seats).iter().rev().take(seats as usize).copied().collect()),
        rules_version: (i % 5 == 3).then_some(1),
        // Some games with a rune file of their own: few runes, many Sea move.
        custom_runes: (i % 8 == 5).then(|| super::versions::SMALL_RUNES.to_string()),
        // Some with an upgrade file of their own.
        custom_upgrades: (i % 50 == 4).then(|| super::upgrades::SMALL_UPGRADES.to_string()),
        // The 2018 rules have their own playout (`rules2018`).
        rules: crate::rules2018::Rules::Y2014,
    }
}

/// A random player's command: a random plan, or random steps of a turn.
/// `steps` caches the candidate steps of the position (a refused command
/// leaves the position as it was, so retries need not work them out again).
pub(super) fn random_command(s: &State, seat: Seat, pick: &mut Pick, steps: &mut Option<Vec<Command>>) -> Command {
    let p = &s.players[seat as usize];
    if s.phase == Phase::Planning || (s.easy_cards && !p.planned) {
        let hands = all_hands(s.hand_size);
        return Command::Plan { hand: hands[pick.next(hands.len())] };
    }
    if p.played.total() >= 6 || pick.next(8) == 0 {
        return Command::EndTurn;
    }
    let c = steps.get_or_insert_with(|| candidates(s, seat));
    c[pick.next(c.len())].clone()
}

/// Whether `decide` accepts `c` from `seat` (the position is not changed).
fn accepted(d: &Driver, seat: Seat, c: &Command) -> Result<(), runestone_engine::game::RuleError> {
    let mut rng = runestone_engine::rng::GameRng::new(d.seed.clone(), d.log.len() as u64 + 1);
    Bardagi::decide(&d.state, seat, c, &mut rng).map(|_| ())
}

/// What the playouts reached: accepted commands by kind (the steps of a
/// whole turn counted one by one) and upgrade effects used.
#[derive(Default)]
pub(super) struct Coverage {
    pub(super) commands: std::collections::BTreeMap<String, u32>,
    effects: std::collections::BTreeMap<String, u32>,
    /// Every command type (steps of turns, programs and free actions
    /// included) as "command T" and every event type as "event T".
    types: std::collections::BTreeMap<String, u64>,
    /// The rules the bot alone (its fallback, no random moves) used, by
    /// the events and deals its games left.
    bot_rules: std::collections::BTreeMap<&'static str, u64>,
}

impl Coverage {
    pub(super) fn count_kind(&mut self, kind: &str) {
        *self.commands.entry(kind.to_string()).or_default() += 1;
    }
    pub(super) fn count(&mut self, c: &Command) {
        *self.types.entry(format!("command {}", type_of(c))).or_default() += 1;
        let kind = match c {
            Command::PlayTurn { steps } => {
                for st in steps {
                    self.count(st);
                }
                "PlayTurn".to_string()
            }
            Command::Program { steps, .. } => {
                for st in steps {
                    self.count(&st.step);
                }
                "Program".to_string()
            }
            Command::Free { effect, step, .. } => {
                self.count(step);
                format!("Free {}", crate::planning::free_name(*effect))
            }
            Command::Attack { claim: false, .. } => "Attack without claim".into(),
            Command::Sail { sea_rune: true, .. } => "Sail with a Sea move rune".into(),
            other => serde_json::to_value(other).unwrap()["type"].as_str().unwrap().to_string(),
        };
        *self.commands.entry(kind).or_default() += 1;
    }

    /// The events of a game, by type; with `bot`, the game was the bot's
    /// alone, and the rules it used are counted too.
    fn count_events(&mut self, log: &[runestone_engine::game::Emit<Event>], bot: bool) {
        for e in log {
            *self.types.entry(format!("event {}", type_of(&e.event))).or_default() += 1;
            if !bot {
                continue;
            }
            let mut used = |rule: &'static str| *self.bot_rules.entry(rule).or_default() += 1;
            match &e.event {
                Event::CardsExchanged { .. } => used(BOT_RULES[0]),
                Event::UnitRetreated { unit: crate::state::Unit::Berserkur, .. } => used(BOT_RULES[1]),
                Event::UpgradeBuilt { replaced: Some(_), .. } => used(BOT_RULES[2]),
                Event::Traded { deals, .. } => {
                    use crate::state::Deal;
                    for d in deals {
                        match d {
                            Deal::Buy { .. } => used(BOT_RULES[3]),
                            Deal::MineForBasic { .. } => used(BOT_RULES[4]),
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn used(&mut self, e: Effect) {
        *self.effects.entry(format!("{e:?}")).or_default() += 1;
    }

    /// Count the upgrade effects the rules applied in `events`, decided
    /// from `before`: each event is judged against the position it was
    /// applied to (and the one it made).
    fn count_effects(&mut self, before: &State, events: &[Event]) {
        let mut s = before.clone();
        for e in events {
            let has = |s: &State, seat: Seat, effect: Effect| s.has(seat, effect);
            match e {
                // More than the 3 squares of a card without the Oarsmen.
                Event::KnerrirSailed { seat, route, sea_rune: false, .. }
                    if route.len() > 3 && has(&s, *seat, Effect::KnerrirPlusTwo) =>
                {
                    self.used(Effect::KnerrirPlusTwo)
                }
                // More than the 1 area of a Berserkur card without the Horse stable.
                Event::UnitMoved { seat, unit: crate::state::Unit::Berserkur, cost, allowance, .. }
                    if (*cost >= 2 || (*cost >= 1 && allowance.is_none()))
                        && has(&s, *seat, Effect::BerserkurMovesThree) =>
                {
                    self.used(Effect::BerserkurMovesThree)
                }
                // Axes of an owner with the Axe master cost the attacker more than 2 each.
                Event::AxesDestroyed { area, axes, disks, .. }
                    if s.areas[*area as usize].owner.is_some_and(|o| has(&s, o, Effect::AxePlusTwo))
                        && *disks > 2 * *axes =>
                {
                    self.used(Effect::AxePlusTwo)
                }
                // A Champion defeated: 7 disks against his 6, not 5 against 4.
                Event::BerserkurDefeated { victim, attacker_lost, .. }
                    if has(&s, *victim, Effect::BerserkurStrength) && *attacker_lost > 5 =>
                {
                    self.used(Effect::BerserkurStrength)
                }
                Event::Traded { deals, .. }
                    if deals.iter().any(|d| matches!(d, crate::state::Deal::Tannery { .. })) =>
                {
                    self.used(Effect::HideForGold)
                }
                Event::FreeActionUsed { effect, .. } => self.used(*effect),
                // The War horn: another card laid down for a Berserkur action.
                Event::CardPlayed { card, as_card, .. } if card != as_card => self.used(Effect::AnyCardBerserkur),
                // The Messenger: a home action with the Kaupmadur elsewhere.
                Event::Traded { seat, .. }
                    if s.players[*seat as usize].units[2]
                        != crate::state::Loc::Area(s.players[*seat as usize].home)
                        && s.unit_area(*seat, crate::state::Unit::Kaupmadur)
                            .is_none_or(|a| s.board.area(a).kind != AreaKind::Village) =>
                {
                    self.used(Effect::HomeActionAnywhere)
                }
                // The Claim phase is over (its income changes no area nor
                // tile): the income upgrades that paid this round.
                Event::RoundEnded { .. } => {
                    for seat in 0..s.n() as Seat {
                        let p = &s.players[seat as usize];
                        let owns = |k: AreaKind| s.owned(seat).any(|a| s.board.area(a).kind == k);
                        for (effect, applies) in [
                            (Effect::GloryThree, true),
                            (Effect::GoldTwo, true),
                            (Effect::GoldThree, true),
                            (Effect::GloryPerAreaTaken, true),
                            (Effect::GoldPerAttack, p.attacks > 0),
                            (Effect::GloryPerIronMine, owns(AreaKind::IronMine)),
                            (Effect::RecruitPerIronMine, owns(AreaKind::IronMine) && p.supply > 0),
                            (Effect::GloryPerCattle, owns(AreaKind::Cattle)),
                            (Effect::GloryPerQuarry, owns(AreaKind::Quarry)),
                            (Effect::QuarryGloryThree, owns(AreaKind::Quarry)),
                            (Effect::GoldPerVillage, owns(AreaKind::Village)),
                            (Effect::RunePerVillage, owns(AreaKind::Village)),
                            (Effect::GoldPerSheep, owns(AreaKind::Sheep)),
                            (Effect::GoldPerForest, owns(AreaKind::Forest)),
                        ] {
                            if applies && has(&s, seat, effect) {
                                self.used(effect);
                            }
                        }
                    }
                }
                _ => {}
            }
            Bardagi::apply(&mut s, e);
            for (seat, p) in s.players.iter().enumerate() {
                let seat = seat as Seat;
                // The Mead hall: Virki holds more than it could without it.
                let virki =
                    p.capacity(&s.tiles, crate::state::Building::Virki) as i32 - p.amount(&s.tiles, Effect::MeadHall);
                if has(&s, seat, Effect::MeadHall) && p.disks[0] as i32 > virki {
                    self.used(Effect::MeadHall);
                }
                // The Storehouse: more than 5 of a good.
                if has(&s, seat, Effect::LargerStorage) && p.goods.iter().any(|g| *g > 5) {
                    self.used(Effect::LargerStorage);
                }
            }
        }
    }
}

/// The `type` a command or event is sent and stored with.
fn type_of<T: serde::Serialize>(x: &T) -> String {
    serde_json::to_value(x).expect("JSON")["type"].as_str().expect("a tagged enum").to_string()
}

/// The rules the bot alone once never used, each counted in the games it
/// plays alone: a 2-for-1 exchange, the Berserkur's free retreat, an
/// upgrade replaced, goods bought with gold, a mine good traded for two
/// basic goods.
const BOT_RULES: [&str; 5] = ["exchange", "retreat", "replace an upgrade", "buy goods with gold", "mine for basic"];

/// Play one game; check it; answer the inputs per seat, rounds played and
/// plans replaced.
fn play(i: u64, bots: bool, check_views: bool) -> (u8, Vec<u32>, u8, u32) {
    play_counted(i, bots, check_views, &mut Coverage::default())
}

/// How a playout game is played.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Every seat the bot with its share of random legal moves.
    Bots,
    /// Seat 0 that bot, the others random players.
    Mixed,
    /// Every seat the bot alone, as the timeout plays it (its plan sent
    /// with the program of its turn).
    Alone,
}

/// The mode of playout game `i`: half the games bots, one in eight of
/// them the bot alone.
fn mode_of(i: u64) -> Mode {
    match i % 8 {
        2 => Mode::Alone,
        k if k % 2 == 0 => Mode::Bots,
        _ => Mode::Mixed,
    }
}

fn play_counted(i: u64, bots: bool, check_views: bool, cov: &mut Coverage) -> (u8, Vec<u32>, u8, u32) {
    play_mode(i, if bots { Mode::Bots } else { Mode::Mixed }, check_views, false, cov)
}

/// [`play_counted`] by `mode`; with `y2018`, by the 2018 rules where the
/// game's options allow them (not by rules version 1).
fn play_mode(i: u64, mode: Mode, check_views: bool, y2018: bool, cov: &mut Coverage) -> (u8, Vec<u32>, u8, u32) {
    let bots = mode != Mode::Mixed;
    let seats = 2 + (i % 4) as u8;
    let mut opts = options_for(i, seats);
    if y2018 && opts.rules_version.is_none() {
        opts.rules = crate::rules2018::Rules::Y2018;
    }
    let mut d = Driver::new(&opts, seats, i).unwrap_or_else(|e| panic!("game {i}: setup refused: {e}"));
    let mut pick = Pick(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    // Now and then seat 0 decides its Build and Claim choices at the moment.
    if !bots && d.state.v2() && i % 7 == 1 && Bardagi::pending(&d.state).iter().any(|p| p.seat == 0) {
        let orders = crate::state::Orders { ask: true, ..Default::default() };
        d.act(0, &Command::SetOrders { orders }).unwrap_or_else(|e| panic!("game {i}: asking refused: {e}"));
    }
    let mut commands = 0;
    let mut replaced = 0;
    while Bardagi::outcome(&d.state).is_none() {
        if d.state.phase == crate::state::Phase::Deciding {
            cov.count_kind("SetOrders at the moment");
        }
        commands += 1;
        assert!(commands < 20_000, "game {i}: endless");
        let waiting = d.waiting();
        assert!(!waiting.is_empty(), "game {i}: nobody to wait for but not over");
        // Now and then a clan that already chose replaces its plan.
        let submitted: Vec<Seat> = Bardagi::pending(&d.state).iter().filter(|p| p.submitted).map(|p| p.seat).collect();
        if !bots && !submitted.is_empty() && pick.next(4) == 0 {
            let seat = submitted[pick.next(submitted.len())];
            let c = random_command(&d.state, seat, &mut pick, &mut None);
            d.act(seat, &c).unwrap_or_else(|e| panic!("game {i}: replacing the plan of seat {seat} refused: {e}"));
            replaced += 1;
            continue;
        }
        let seat = waiting[pick.next(waiting.len())];
        if check_views && commands % 11 == 0 {
            check_secrets(&d.state, i);
            let legal = Bardagi::legal(&d.state, seat);
            assert!(!legal.is_empty(), "game {i}: seat {seat} has no legal command");
            for c in legal.iter().take(40) {
                accepted(&d, seat, c).unwrap_or_else(|e| panic!("game {i}: legal {c:?} refused: {e}"));
            }
        }
        // Bot seats: every seat of a bot game, seat 0 in the others.
        let bot_seat = bots || seat == 0;
        let before = d.state.clone();
        let logged = d.log.len();
        let mut done = false;
        if !bot_seat {
            let mut steps = None;
            for _ in 0..6 {
                let c = random_command(&d.state, seat, &mut pick, &mut steps);
                if d.act(seat, &c).is_ok() {
                    cov.count(&c);
                    done = true;
                    break;
                }
            }
            if !done && d.act(seat, &Command::EndTurn).is_ok() {
                cov.count(&Command::EndTurn);
                done = true;
            }
        }
        if !done {
            // The bot alone as the timeout plays it, or the bot with a share
            // of random legal moves (its plan sent without a program).
            let c = if mode == Mode::Alone {
                Bardagi::fallback(&d.state, seat).expect("a pending seat has a fallback")
            } else {
                crate::bot::exploring(&d.state, seat, &mut pick, EXPLORE).expect("a pending seat has a bot move")
            };
            d.act(seat, &c).unwrap_or_else(|e| panic!("game {i}: bot's {c:?} refused: {e}"));
            cov.count(&c);
        }
        let events: Vec<Event> = d.log[logged..].iter().map(|e| e.event.clone()).collect();
        cov.count_effects(&before, &events);
    }
    // Replay: all events folded into a fresh state equal the live one.
    d.assert_replays(&format!("game {i}"));
    cov.count_events(&d.log, mode == Mode::Alone);
    // Secret events are seen only by their seats; the redacted form hides them.
    for e in &d.log {
        if let Visibility::Seats(seats) = &e.visibility {
            let red = e.redacted.as_ref().expect("a secret event has a public form");
            let hidden = match red {
                Event::GoldChanged { delta, .. } => delta.is_none(),
                Event::RunesDrawn { runes, .. } => runes.is_none(),
                Event::PlanChosen { hand, .. } => hand.is_none(),
                Event::OrdersSet { orders, .. } => orders.is_none(),
                _ => false,
            };
            assert!(hidden && seats.len() == 1, "game {i}: badly redacted {red:?}");
        }
    }
    let rounds = d.log.iter().filter(|e| matches!(e.event, Event::RoundEnded { .. })).count() as u8;
    assert_eq!(rounds, d.state.rounds, "game {i}: rounds played");
    let o = Bardagi::outcome(&d.state).expect("over");
    assert_eq!(o.scores.len(), seats as usize);
    (seats, d.inputs, rounds, replaced)
}

/// No seat's view shows another seat's gold, runes, hand (before it is laid
/// down) or orders; the public sees none of them.
fn check_secrets(s: &State, i: u64) {
    for viewer in (0..s.n() as Seat).map(Viewer::Seat).chain([Viewer::Public]) {
        let v = Bardagi::view(s, viewer);
        for (k, p) in v["players"].as_array().unwrap().iter().enumerate() {
            if viewer == Viewer::Seat(k as Seat) {
                assert!(!p["gold"].is_null(), "game {i}: own gold hidden");
                continue;
            }
            for field in ["gold", "runes", "orders"] {
                assert!(p[field].is_null(), "game {i}: {viewer:?} sees {field} of seat {k}");
            }
            let laid_down = s.phase == Phase::Action && s.current as usize == k;
            assert!(laid_down || p["hand"].is_null(), "game {i}: {viewer:?} sees the hand of seat {k}");
        }
    }
    let r = Bardagi::view(s, Viewer::Referee);
    assert!(r["players"].as_array().unwrap().iter().all(|p| !p["gold"].is_null()));
}

/// One step in this many of a bot seat's turn is a random legal one.
pub(super) const EXPLORE: usize = 10;

fn games() -> u64 {
    std::env::var("BARDAGI_PLAYOUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(40)
}

/// Runs of this many games or more must reach every command family and use
/// every upgrade effect. The rarest are rare: in 2,000 games a Champion is
/// defeated about 4 times, a rune removed about 50, so a short run (the
/// debug default) checks every game but only prints what it reached.
const FULL: u64 = 1000;

/// The command families a full playout must reach (the 2018 playout adds
/// the harbour claim).
pub(super) const KINDS: [&str; 26] = [
    "Plan",
    "SetOrders",
    "PlayTurn",
    "EndTurn",
    "Exchange",
    "Move",
    "Board",
    "Disembark",
    "Sail",
    "Sail with a Sea move rune",
    "Attack",
    "Attack without claim",
    "Retreat",
    "Rearrange",
    "Refill",
    "Convert",
    "Cast",
    "RemoveRune",
    "BuyRunes",
    "BuyLand",
    "Trade",
    "ForceTrade",
    "Free War horn",
    "Free Seer",
    "Free Messenger",
    "SetOrders at the moment",
];

/// The names of every command type and every event type, as the
/// published schemas name them ("command T", "event T").
fn all_types() -> Vec<String> {
    let mut names = Vec::new();
    for (what, schema) in [
        ("command", serde_json::to_value(schemars::schema_for!(Command)).expect("a schema")),
        ("event", serde_json::to_value(schemars::schema_for!(Event)).expect("a schema")),
    ] {
        let mut v: Vec<String> = ["oneOf", "anyOf"]
            .iter()
            .filter_map(|k| schema.get(*k).and_then(|a| a.as_array()))
            .flatten()
            .filter_map(|arm| {
                let t = &arm["properties"]["type"];
                t.get("const").or_else(|| t.get("enum").and_then(|e| e.get(0))).and_then(|c| c.as_str())
            })
            .map(str::to_string)
            .collect();
        v.sort();
        v.dedup();
        assert!(v.len() > 10, "the {what} schema names its types: {v:?}");
        names.extend(v.into_iter().map(|k| format!("{what} {k}")));
    }
    names
}

/// The types every short run reaches many times over (every game has
/// them, or the debug default of 40 games reaches each hundreds of
/// times); a short run asserts these and lists the rest with their counts.
const ALWAYS: [&str; 24] = [
    "command Plan",
    "command PlayTurn",
    "command SetOrders",
    "command EndTurn",
    "command Move",
    "command Attack",
    "command Convert",
    "command BuyLand",
    "command Trade",
    "command Exchange",
    "event GameStarted",
    "event RoundBegan",
    "event PlanChosen",
    "event TurnBegan",
    "event CardPlayed",
    "event UnitMoved",
    "event AreaOvertaken",
    "event GoodsChanged",
    "event GloryChanged",
    "event OrdersSet",
    "event UpgradeBuilt",
    "event TurnEnded",
    "event RoundEnded",
    "event GameEnded",
];

/// Every command family is reached (forced trade, rune removal, rearranging
/// and Berserkur fights included), every command type and every event type
/// occurs (the 2018 rules' harbour claim and turn programs included), every
/// upgrade effect of the tiles is used where the rules apply it, and the
/// bot alone uses the rules it once never did, each counted; the rarest
/// ten types are printed with their counts (`BARDAGI_PLAYOUTS=2000`, in
/// release, for the full measure; the debug default asserts [`ALWAYS`]).
/// One game in five is played by the 2018 rules, one in eight by the bot
/// alone as the timeout plays it.
#[test]
fn random_playouts_reach_every_command_and_use_every_upgrade_effect() {
    let n = games();
    let mut replaced = 0;
    let mut cov = Coverage::default();
    for i in 0..n {
        replaced += play_mode(i, mode_of(i), i % 25 == 0, i % 5 == 4, &mut cov).3;
    }
    assert!(replaced as u64 > n / 10, "plans replaced before the reveal: {replaced} in {n} games");
    let kinds = KINDS.into_iter().chain(["ClaimHarbour", "Program"]);
    let missing: Vec<&str> = kinds.filter(|k| !cov.commands.contains_key(*k)).collect();
    let effects: std::collections::BTreeSet<String> =
        crate::build::TILES.iter().map(|t| format!("{:?}", t.effect)).collect();
    let unused: Vec<&String> = effects.iter().filter(|e| !cov.effects.contains_key(*e)).collect();
    let mut rare: Vec<(u64, String)> =
        all_types().into_iter().map(|k| (cov.types.get(&k).copied().unwrap_or(0), k)).collect();
    rare.sort();
    let ten: Vec<String> = rare.iter().take(10).map(|(c, k)| format!("{k} {c}")).collect();
    let never: Vec<&String> = rare.iter().filter(|(c, _)| *c == 0).map(|(_, k)| k).collect();
    let alone: Vec<String> = BOT_RULES.iter().map(|r| format!("{r} {}", cov.bot_rules.get(r).unwrap_or(&0))).collect();
    eprintln!("{n} games; commands reached: {:?}", cov.commands);
    eprintln!("upgrade effects used: {:?}", cov.effects);
    eprintln!("the rarest ten of {} types: {}", rare.len(), ten.join(", "));
    eprintln!("the bot alone ({} games): {}", (0..n).filter(|i| mode_of(*i) == Mode::Alone).count(), alone.join(", "));
    eprintln!("not reached: commands {missing:?}, effects {unused:?}, types {never:?}");
    let full = std::env::var("BARDAGI_PLAYOUTS").is_ok() && n >= FULL;
    if full {
        assert!(missing.is_empty(), "commands never reached in {n} games: {missing:?}");
        assert!(unused.is_empty(), "upgrade effects never used in {n} games: {unused:?}");
        assert!(never.is_empty(), "types that never occurred in {n} games: {never:?}");
        let idle: Vec<&&str> = BOT_RULES.iter().filter(|r| !cov.bot_rules.contains_key(*r)).collect();
        assert!(idle.is_empty(), "rules the bot alone never used in {n} games: {idle:?}");
    } else {
        for k in ALWAYS {
            assert!(rare.iter().any(|(c, t)| t == k && *c > 0), "{k} never occurred in {n} games");
        }
    }
}

#[test]
fn bot_games_need_two_inputs_per_clan_and_round() {
    let mut total = 0f64;
    let mut n = 0f64;
    for i in 0..12 {
        let (seats, inputs, rounds, _) = play(i * 10, true, false);
        for x in inputs {
            total += x as f64 / rounds as f64;
            n += 1.0;
        }
        let _ = seats;
    }
    let avg = total / n;
    eprintln!("average player inputs per player per round in bot games: {avg:.2}");
    assert!(avg <= 2.0 + 1e-9, "{avg}");
}

/// Commands with arbitrary fields, most of them nonsense.
fn garbage(pick: &mut Pick) -> Command {
    use crate::board::SeaNode;
    use crate::state::{Building, Card, Deal, DiskMove, DiskSpot, Good, Hand, RuneCast, RuneKind, Unit};
    let byte = |p: &mut Pick| if p.next(4) == 0 { 255 } else { p.next(70) as u8 };
    let unit = |p: &mut Pick| Unit::ALL[p.next(3)];
    let good = |p: &mut Pick| Good::ALL[p.next(6)];
    let card = |p: &mut Pick| Card::ALL[p.next(4)];
    let spot = |p: &mut Pick| match p.next(3) {
        0 => DiskSpot::Area(byte(p)),
        1 => DiskSpot::Virki,
        _ => DiskSpot::Town,
    };
    match pick.next(14) {
        0 => Command::Move { unit: unit(pick), to: byte(pick) },
        1 => Command::Attack { claim: pick.next(2) == 0, reinforce: byte(pick) },
        2 => Command::Sail {
            route: (0..pick.next(300))
                .map(|_| if pick.next(2) == 0 { SeaNode::Ocean(byte(pick)) } else { SeaNode::Harbour(byte(pick)) })
                .collect(),
            sea_rune: pick.next(2) == 0,
        },
        3 => Command::Trade {
            deals: (0..pick.next(4))
                .map(|_| match pick.next(6) {
                    0 => Deal::Swap { give: good(pick), get: good(pick) },
                    1 => Deal::BasicForMine { give: [good(pick), good(pick)], get: good(pick) },
                    2 => Deal::MineForBasic { give: good(pick), get: [good(pick), good(pick)] },
                    3 => Deal::Sell { give: (0..pick.next(9)).map(|_| good(pick)).collect() },
                    4 => Deal::Buy { get: (0..pick.next(3)).map(|_| good(pick)).collect() },
                    _ => Deal::Tannery { hide: byte(pick) },
                })
                .collect(),
            refill: (0..pick.next(4)).map(|_| Building::ALL[pick.next(3)]).collect(),
        },
        4 => Command::Cast {
            casts: (0..pick.next(4))
                .map(|_| RuneCast { rune: RuneKind::ALL[pick.next(6)], area: byte(pick) })
                .collect(),
        },
        5 => Command::Rearrange {
            moves: (0..pick.next(4))
                .map(|_| DiskMove { from: spot(pick), to: spot(pick), count: byte(pick) })
                .collect(),
        },
        6 => Command::Exchange { discard: [card(pick), card(pick)], take: card(pick) },
        7 => Command::ForceTrade { seat: byte(pick), give: (0..pick.next(9)).map(|_| good(pick)).collect() },
        8 => Command::Plan { hand: Hand::new([byte(pick), byte(pick), byte(pick), byte(pick)]) },
        9 => Command::Board { unit: unit(pick) },
        10 => Command::Disembark { unit: unit(pick) },
        11 => Command::RemoveRune { rune: RuneKind::ALL[pick.next(6)] },
        12 => Command::PlayTurn { steps: (0..pick.next(5)).map(|_| garbage(pick)).collect() },
        _ => Command::BuyRunes { unit: unit(pick) },
    }
}

#[test]
fn nonsense_commands_are_refused_without_panicking() {
    for i in 0..8u64 {
        let seats = 2 + (i % 4) as u8;
        let mut d = Driver::new(&options_for(i, seats), seats, i).unwrap();
        let mut pick = Pick(i * 7 + 3);
        while Bardagi::outcome(&d.state).is_none() {
            let seat = d.next_seat().unwrap();
            for _ in 0..4 {
                let c = garbage(&mut pick);
                let _ = d.act(seat, &c);
                if Bardagi::outcome(&d.state).is_some() || !Bardagi::pending(&d.state).iter().any(|p| p.seat == seat) {
                    break;
                }
            }
            if Bardagi::outcome(&d.state).is_some() {
                break;
            }
            let seat = d.next_seat().unwrap();
            let c = Bardagi::fallback(&d.state, seat).unwrap();
            d.act(seat, &c).unwrap();
        }
    }
}

#[test]
fn every_legal_command_is_accepted_throughout_whole_games() {
    for i in [3u64, 6, 9] {
        let seats = 2 + (i % 4) as u8;
        let mut d = Driver::new(&options_for(i, seats), seats, i).unwrap();
        let mut pick = Pick(i + 11);
        let mut checked = 0;
        while Bardagi::outcome(&d.state).is_none() {
            for p in Bardagi::pending(&d.state) {
                let legal = Bardagi::legal(&d.state, p.seat);
                assert!(!legal.is_empty(), "game {i}: seat {} has no legal command", p.seat);
                for c in &legal {
                    accepted(&d, p.seat, c).unwrap_or_else(|e| panic!("game {i}: legal {c:?} refused: {e}"));
                    checked += 1;
                }
            }
            let seat = d.next_seat().unwrap();
            let legal = Bardagi::legal(&d.state, seat);
            // Mostly single steps, so that many positions within turns are seen.
            let c = legal[pick.next(legal.len())].clone();
            d.act(seat, &c).unwrap();
        }
        assert!(checked > 100);
    }
}

/// The pages read every view back into the typed view (`Present::View`):
/// each view of bot-played games, for each seat and the public, reads
/// back to exactly what was written, so no page falls back to the generic
/// rendering.
#[test]
fn every_view_reads_back_as_the_typed_view() {
    let mut views = 0;
    for (i, seats) in [(11u64, 2u8), (12, 4), (13, 5)] {
        let mut d = Driver::new(&options_for(i, seats), seats, i).unwrap();
        for _ in 0..300 {
            let Some(seat) = d.next_seat() else { break };
            for viewer in (0..seats).map(Viewer::Seat).chain([Viewer::Public]) {
                let written = serde_json::to_value(Bardagi::view(&d.state, viewer)).unwrap();
                let read: crate::view::View = serde_json::from_value(written.clone()).expect("the view reads back");
                assert_eq!(serde_json::to_value(read).unwrap(), written);
                views += 1;
            }
            let c = Bardagi::fallback(&d.state, seat).unwrap();
            d.act(seat, &c).unwrap();
        }
    }
    assert!(views > 100, "{views} views");
}
