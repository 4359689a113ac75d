//! Every legal command of a clan: the ones few enough to list are listed,
//! each checked against the rules; the families too large to list (trades
//! of several deals, casts of two runes, rearranging disks, sail paths,
//! forced trades, the upgrades' free actions, standing orders, whole turns
//! and turn programs) are offered as templates ([`CommandTemplate`]) with
//! their parameters and, in words, their limits, which forms and API
//! clients fill. The bot's own choice comes first, so the first legal
//! command is always a sensible one.
//!
//! What is listed: plans; moves to every area a unit may reach now; boarding
//! and going ashore; refills; buying runes and land; converting; removing a
//! rune; attacks with every number of extra disks Virki holds; retreats; a
//! cast of one rune on every area it may go to; every trade of one deal of
//! one kind of good, and every set of buildings a home refill may fill;
//! the shortest sail to every square within reach (with and without a Sea
//! move rune); one disk from Virki onto each own area and from each own
//! area to the town; every exchange of cards; ending the turn.

use runestone_engine::game::{Seat, Unavailable, Viewer};
use runestone_engine::present::{CommandTemplate, FieldKind, TemplateField};
use serde_json::json;

use super::board::AreaId;
use super::bot;
use super::build::Effect;
use super::planning::all_hands;
use super::state::{
    Building, Card, Command, Deal, DiskMove, DiskSpot, Good, Loc, Phase, RuneCast, RuneKind, ShipLoc, State, Unit,
};
use super::view::{KnerrirView, View};

/// Every legal command of `seat` that can be listed, the bot's choice
/// first; each is accepted by `decide`. The rest are [`templates`].
pub fn legal(s: &State, seat: Seat) -> Vec<Command> {
    if !s.waits_for(seat) {
        return Vec::new();
    }
    let p = &s.players[seat as usize];
    let mut out: Vec<Command> = Vec::new();
    let plans = || {
        let sizes: Vec<u8> = if s.eight_cards && s.hand_size == 8 { vec![6, 7, 8] } else { vec![s.hand_size] };
        sizes.into_iter().flat_map(all_hands).map(|hand| Command::Plan { hand })
    };
    match s.phase {
        Phase::Planning if p.planned => {
            // The plans it may switch to, then the one chosen (choosing it
            // again changes nothing, but the rules accept it).
            let mine = Command::Plan { hand: p.hand };
            out.extend(plans().filter(|c| *c != mine));
            out.push(mine);
            return out;
        }
        Phase::Planning => {
            // The bot's plain plan first, then the same plan with the program
            // the bot would send (its turn as it would play it from the board
            // as it is now), leaving the clan's own standing orders as they are.
            match bot::command(s, seat) {
                Some(Command::Program { hand, mut steps }) => {
                    out.push(Command::Plan { hand });
                    steps.retain(|s| !matches!(s.step, Command::SetOrders { .. }));
                    if !steps.is_empty() {
                        out.push(Command::Program { hand, steps });
                    }
                }
                Some(Command::Plan { hand }) => out.push(Command::Plan { hand }),
                _ => {}
            }
            push_new(&mut out, plans());
            return out;
        }
        Phase::Deciding => {
            out.extend(bot::command(s, seat));
            push_new(&mut out, [Command::SetOrders { orders: bot::bot_orders(s) }]);
            return out;
        }
        _ => {}
    }
    out.extend(bot::command(s, seat));
    if s.easy_cards && !p.planned {
        push_new(&mut out, plans());
        return out;
    }
    out.push(Command::SetOrders { orders: bot::bot_orders(s) });
    let steps: Vec<Command> = steps(s, seat).into_iter().filter(|c| bot::accepted(s, seat, c)).collect();
    push_new(&mut out, steps);
    if bot::accepted(s, seat, &Command::EndTurn) {
        out.push(Command::EndTurn);
    }
    out
}

/// A legal command in words with what it costs (cards laid down, disks,
/// gold and goods spent or gained), worked out by running it on a copy of
/// the position: "Berserkur moves to Forest 7 · 1 Berserkur card".
pub fn label(s: &State, seat: Seat, c: &Command) -> String {
    let what = super::describe_command(s, seat, c);
    if matches!(
        c,
        Command::Plan { .. } | Command::Program { .. } | Command::SetOrders { .. } | Command::PlayTurn { .. }
    ) {
        return what;
    }
    let mut cost = cost(s, seat, c);
    if let (Command::Attack { claim: true, .. }, false) = (c, cost.is_empty()) {
        cost = format!("{cost}{}", against(s, seat));
    }
    if cost.is_empty() {
        what
    } else {
        format!("{what} · {cost}")
    }
}

/// What the Berserkur's attack where he stands meets, in words
/// (", against 1 defender, 1 axe"): none when nothing defends.
fn against(s: &State, seat: Seat) -> String {
    let Some(a) = s.unit_area(seat, Unit::Berserkur) else { return String::new() };
    let (bers, _, defenders) = super::actions::berserkur::attack_cost(s, seat, a);
    let mut parts = Vec::new();
    if defenders > 0 {
        parts.push(format!("{defenders} defender{}", if defenders > 1 { "s" } else { "" }));
    }
    let axes = s.areas[a as usize].axes;
    if axes > 0 {
        parts.push(format!("{axes} axe{}", if axes > 1 { "s" } else { "" }));
    }
    if !bers.is_empty() {
        parts.push(format!("{} enemy Berserkur", bers.len()));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(", against {}", parts.join(", "))
    }
}

/// What `c` costs `seat` and what it gains, in words ("" when nothing).
fn cost(s: &State, seat: Seat, c: &Command) -> String {
    let mut rng = runestone_engine::rng::GameRng::new(runestone_engine::rng::Seed([0; 32]), 0);
    let mut cx = super::Ctx::new(s.clone(), &mut rng);
    if super::run(&mut cx, seat, c).is_err() {
        return String::new();
    }
    let (before, after) = (&s.players[seat as usize], &cx.s.players[seat as usize]);
    let mut parts: Vec<String> = Vec::new();
    let step = !matches!(c, Command::EndTurn | Command::Exchange { .. } | Command::Retreat | Command::Disembark { .. });
    if step {
        let cards: Vec<String> = Card::ALL
            .into_iter()
            .filter_map(|k| {
                let n = after.played.get(k).saturating_sub(before.played.get(k));
                (n > 0).then(|| format!("{n} {} card{}", k.name(), if n > 1 { "s" } else { "" }))
            })
            .collect();
        if !cards.is_empty() {
            parts.push(cards.join(", "));
        } else if after.free_used != before.free_used {
            parts.push("the upgrade's free action".into());
        } else {
            parts.push("no card (moves left)".into());
        }
    }
    for b in Building::ALL {
        let (x, y) = (before.disks[b.idx()], after.disks[b.idx()]);
        if y < x {
            parts.push(format!("{} disk{} from {}", x - y, if x - y > 1 { "s" } else { "" }, b.name()));
        } else if y > x {
            parts.push(format!("{} refilled +{}", b.name(), y - x));
        }
    }
    if after.gold < before.gold {
        parts.push(format!("pays {} gold", before.gold - after.gold));
    } else if after.gold > before.gold {
        parts.push(format!("gains {} gold", after.gold - before.gold));
    }
    let spent: Vec<String> = Good::ALL
        .into_iter()
        .filter(|g| after.goods[g.idx()] < before.goods[g.idx()])
        .map(|g| format!("{} {}", before.goods[g.idx()] - after.goods[g.idx()], g.name()))
        .collect();
    if !spent.is_empty() {
        parts.push(format!("uses {}", spent.join(", ")));
    }
    let got: Vec<String> = Good::ALL
        .into_iter()
        .filter(|g| after.goods[g.idx()] > before.goods[g.idx()])
        .map(|g| format!("{} {}", after.goods[g.idx()] - before.goods[g.idx()], g.name()))
        .collect();
    if !got.is_empty() {
        parts.push(format!("gets {}", got.join(", ")));
    }
    parts.join(", ")
}

/// Add the commands of `more` not listed yet.
fn push_new(out: &mut Vec<Command>, more: impl IntoIterator<Item = Command>) {
    for c in more {
        if !out.contains(&c) {
            out.push(c);
        }
    }
}

/// The listable steps of a turn, before the rules judge them.
pub(crate) fn steps(s: &State, seat: Seat) -> Vec<Command> {
    let p = &s.players[seat as usize];
    let mut out = Vec::new();
    for unit in Unit::ALL {
        match p.units[unit.idx()] {
            Loc::Area(at) => {
                out.extend((0..s.board.len() as AreaId).filter(|to| *to != at).map(|to| Command::Move { unit, to }));
                out.push(Command::Board { unit });
                out.push(Command::Refill { unit });
                out.push(Command::BuyRunes { unit });
            }
            Loc::Aboard => out.push(Command::Disembark { unit }),
            Loc::Fallen => out.push(Command::Refill { unit }),
        }
    }
    for claim in [true, false] {
        out.extend((0..=p.disks[0]).map(|reinforce| Command::Attack { claim, reinforce }));
    }
    out.extend([Command::Retreat, Command::Convert, Command::BuyLand]);
    // Rearranging: one disk from Virki onto each own area, and one from
    // each own area to the town (other rearrangements: the template).
    for a in s.owned(seat) {
        out.push(Command::Rearrange {
            moves: vec![DiskMove { from: DiskSpot::Virki, to: DiskSpot::Area(a), count: 1 }],
        });
        out.push(Command::Rearrange {
            moves: vec![DiskMove { from: DiskSpot::Area(a), to: DiskSpot::Town, count: 1 }],
        });
    }
    out.extend(RuneKind::ALL.into_iter().map(|rune| Command::RemoveRune { rune }));
    for rune in RuneKind::ALL.into_iter().filter(|r| p.runes[r.idx()] > 0) {
        out.extend((0..s.board.len() as AreaId).map(|area| Command::Cast { casts: vec![RuneCast { rune, area }] }));
    }
    out.extend(single_deals().into_iter().map(|d| Command::Trade { deals: vec![d], refill: vec![] }));
    for mask in 1u8..8 {
        let refill: Vec<Building> = Building::ALL.into_iter().filter(|b| mask & (1 << b.idx()) != 0).collect();
        out.push(Command::Trade { deals: vec![], refill });
    }
    if s.y2018() && matches!(p.ship, ShipLoc::At(super::board::SeaNode::Harbour(_))) {
        out.push(Command::ClaimHarbour);
    }
    if let ShipLoc::At(at) = p.ship {
        for route in bot::sea_routes(s, at, 10) {
            out.push(Command::Sail { route: route.clone(), sea_rune: false });
            if p.runes[RuneKind::SeaMove.idx()] > 0 {
                out.push(Command::Sail { route, sea_rune: true });
            }
        }
    }
    for a in Card::ALL {
        for b in Card::ALL.into_iter().filter(|b| b.idx() >= a.idx()) {
            out.extend(Card::ALL.into_iter().map(|take| Command::Exchange { discard: [a, b], take }));
        }
    }
    out
}

/// Every deal of the trade table made of one kind of good on each side.
pub fn single_deals() -> Vec<Deal> {
    let basic = || Good::ALL.into_iter().filter(|g| g.is_basic());
    let mine = || Good::ALL.into_iter().filter(|g| !g.is_basic());
    let mut out = Vec::new();
    for give in Good::ALL {
        let same = |g: &Good| g.is_basic() == give.is_basic() && *g != give;
        out.extend(Good::ALL.into_iter().filter(same).map(|get| Deal::Swap { give, get }));
    }
    for g in basic() {
        out.extend(mine().map(|m| Deal::BasicForMine { give: [g, g], get: m }));
        out.extend(mine().map(|m| Deal::MineForBasic { give: m, get: [g, g] }));
        out.push(Deal::Sell { give: vec![g; 4] });
        out.push(Deal::Sell { give: vec![g; 8] });
        out.push(Deal::Buy { get: vec![g; 2] });
    }
    for m in mine() {
        out.push(Deal::Sell { give: vec![m; 2] });
        out.push(Deal::Sell { give: vec![m; 4] });
        out.push(Deal::Buy { get: vec![m] });
    }
    out.extend((1..=4).map(|hide| Deal::Tannery { hide }));
    out
}

/// One free field holding JSON.
fn json_field(name: &str, label: &str) -> TemplateField {
    TemplateField { name: name.into(), label: label.into(), kind: FieldKind::Json }
}

fn template(id: &str, label: &str, help: String, kind: &str, fields: Vec<TemplateField>) -> CommandTemplate {
    CommandTemplate { id: id.into(), label: label.into(), help: Some(help), base: json!({ "type": kind }), fields }
}

/// What the clan holds, in words, for the templates' limits.
fn holdings(v: &View, seat: usize) -> String {
    let p = &v.players[seat];
    let goods: Vec<String> = Good::ALL
        .iter()
        .filter(|g| p.goods[g.idx()] > 0)
        .map(|g| format!("{} {}", p.goods[g.idx()], g.name()))
        .collect();
    let goods = if goods.is_empty() { "no goods".to_owned() } else { goods.join(", ") };
    match p.gold {
        Some(gold) => format!("{goods} and {gold} gold"),
        None => goods,
    }
}

/// The command families too large to list that `seat` may send now, each
/// a template of its parameters with its limits in words. A superset: a
/// template is offered whenever some command of its family may be legal.
pub fn templates(v: &View, seat: Seat) -> Vec<CommandTemplate> {
    let me = seat as usize;
    let Some(p) = v.players.get(me) else { return Vec::new() };
    let orders = || {
        template(
            "cmd-orders",
            "Set standing orders",
            "The whole standing orders as JSON (sheep, cattle, recruits, buy_axes, axes, build, ask): \
             they replace the orders in force."
                .into(),
            "SetOrders",
            vec![json_field("orders", "Orders")],
        )
    };
    let turn_on = v.phase == Phase::Action && v.current == Some(seat) && (!v.options.easy_cards || p.planned);
    match v.phase {
        Phase::Planning => {
            return vec![
                template(
                    "cmd-program",
                    "Plan with a turn program",
                    format!(
                        "The round's {} cards (hand: berserkur, godi, kaupmadur, knerrir, each 0 to 6) and the \
                         steps of the coming turn in order, each with its fallback.",
                        v.hand_size
                    ),
                    "Program",
                    vec![json_field("hand", "Cards"), json_field("steps", "Steps")],
                ),
                orders(),
            ];
        }
        Phase::Deciding => return vec![orders()],
        Phase::Action if turn_on => {}
        _ => return Vec::new(),
    }
    let on_board = |l: Loc| matches!(l, Loc::Area(_));
    let has = |e: Effect| p.upgrades.iter().any(|t| t.effect == e);
    let runes: Vec<String> = p
        .runes
        .iter()
        .flatten()
        .filter(|r| r.count > 0 && r.rune != RuneKind::SeaMove)
        .map(|r| format!("{} {}", r.count, r.rune.name()))
        .collect();
    let y2018 = v.options.rules == super::rules2018::Rules::Y2018;
    let mut out = vec![template(
        "cmd-turn",
        "A whole turn",
        "The turn's steps in order (any of the commands below or in the list), then the turn ends; \
         accepted or refused as a whole."
            .into(),
        "PlayTurn",
        vec![json_field("steps", "Steps")],
    )];
    if on_board(p.units.kaupmadur) || has(Effect::HomeActionAnywhere) {
        out.push(template(
            "cmd-trade",
            "Trade and refill",
            format!(
                "Deals by the trade table, in order, at home or in a village, with what is in storage at each \
                 deal (now {}): 1 for 1 within basic or within mine goods; 2 basic for 1 mine; 1 mine for 2 \
                 basic; 4 or 8 basic, or 2 or 4 mine, of one group, for 1 or 3 gold; 1 gold for 2 basic or 1 \
                 mine. At home also the buildings to refill (virki, hof, verslun). {}",
                holdings(v, me),
                if y2018 {
                    "At home free once a round (2018 rules), else one Kaupmadur card."
                } else {
                    "One Kaupmadur card."
                }
            ),
            "Trade",
            vec![json_field("deals", "Deals"), json_field("refill", "Buildings to refill")],
        ));
    }
    if v.options.forced_trade && on_board(p.units.kaupmadur) {
        out.push(template(
            "cmd-force-trade",
            "Force a trade",
            format!(
                "At another clan's home without an axe: the seat and the goods sold to it for its gold by the \
                 trade table (now {}).",
                holdings(v, me)
            ),
            "ForceTrade",
            vec![json_field("seat", "Seat"), json_field("give", "Goods")],
        ));
    }
    if on_board(p.units.godi) && !runes.is_empty() {
        out.push(template(
            "cmd-cast",
            "Cast runes",
            format!(
                "Up to two runes ({{rune, area}}), blessings on own areas, curses on other clans' areas, one of \
                 a kind per area; held now: {}. {}",
                runes.join(", "),
                if y2018 {
                    "No card or Hof disk, up to two runes a turn; not on an area with a Defence rune (2018 rules)."
                } else {
                    "One Godi card and one Hof disk."
                }
            ),
            "Cast",
            vec![json_field("casts", "Casts")],
        ));
    }
    if on_board(p.units.berserkur) || p.disks.virki > 0 {
        out.push(template(
            "cmd-rearrange",
            "Rearrange disks",
            format!(
                "Moves of own disks ({{from, to, count}}; a spot is an area's number, \"virki\" or \"town\"); \
                 Virki holds {}. {}",
                p.disks.virki,
                if y2018 { "Free once a round (2018 rules), else one Berserkur card." } else { "One Berserkur card." }
            ),
            "Rearrange",
            vec![json_field("moves", "Moves")],
        ));
    }
    if let KnerrirView::At(_) = p.knerrir {
        let reach = 3 + 2 * p.upgrades.iter().filter(|t| t.effect == Effect::KnerrirPlusTwo).count();
        out.push(template(
            "cmd-sail",
            "Sail",
            format!(
                "The squares the Knerrir sails through, in order, each next to the one before: up to {reach} \
                 with a Knerrir card, up to 10 with a Sea move rune (sea_rune: true)."
            ),
            "Sail",
            vec![json_field("route", "Route"), json_field("sea_rune", "With a Sea move rune")],
        ));
    }
    let free: Vec<&str> = [
        (Effect::AnyCardBerserkur, "War horn"),
        (Effect::GodiFreeAction, "Seer"),
        (Effect::HomeActionAnywhere, "Messenger"),
    ]
    .into_iter()
    .filter(|(e, _)| has(*e))
    .map(|(_, n)| n)
    .collect();
    if v.options.rules_version >= 2 && !free.is_empty() {
        out.push(template(
            "cmd-free",
            "An upgrade's free action",
            format!(
                "Once a round, a step done with an upgrade's action (effect), with the War horn a card of \
                 another unit (card); the clan has: {}.",
                free.join(", ")
            ),
            "Free",
            vec![json_field("effect", "Effect"), json_field("card", "Card"), json_field("step", "Step")],
        ));
    }
    out.push(orders());
    out
}

/// The unit a step of the turn is done by (the Knerrir's sail: none).
fn unit_of(c: &Command) -> Option<Unit> {
    match c {
        Command::Move { unit, .. }
        | Command::Board { unit }
        | Command::Disembark { unit }
        | Command::Refill { unit }
        | Command::BuyRunes { unit } => Some(*unit),
        Command::Attack { .. } | Command::Retreat | Command::Rearrange { .. } => Some(Unit::Berserkur),
        Command::Convert | Command::Cast { .. } | Command::RemoveRune { .. } => Some(Unit::Godi),
        Command::BuyLand | Command::Trade { .. } | Command::ForceTrade { .. } => Some(Unit::Kaupmadur),
        _ => None,
    }
}

/// The actions of `seat`'s turn that no command of `legal` takes, each
/// with the rules' own reason: for each family of steps of each unit (its
/// move, boarding, refill, runes bought; the Berserkur's attack, retreat
/// and rearranging; the Godi's conversion, casting and removing a rune;
/// the Kaupmadur's purchase of land, trade and forced trade; the Knerrir's
/// sail) of which nothing is legal, one such step is tried on a copy of the
/// position and its refusal told ("Berserkur attack on Gold mine 20:
/// needs 3 disks, Virki holds 1").
pub fn unavailable(s: &State, seat: Seat, legal: &[Command]) -> Vec<Unavailable> {
    if s.phase != Phase::Action || s.current != seat || !s.waits_for(seat) {
        return Vec::new();
    }
    let p = &s.players[seat as usize];
    if s.easy_cards && !p.planned {
        return Vec::new();
    }
    let same = |a: &Command, b: &Command| std::mem::discriminant(a) == std::mem::discriminant(b);
    let taken = |c: &Command| legal.iter().any(|l| same(l, c) && unit_of(l) == unit_of(c));
    let mut tries: Vec<(&str, Command)> = Vec::new();
    for unit in Unit::ALL {
        let name = unit.name();
        // A move to a neighbouring area (or, on board, the way ashore).
        match p.units[unit.idx()] {
            Loc::Area(at) => {
                if let Some(&to) = s.board.land.get(at as usize).and_then(|n| n.first()) {
                    tries.push((name, Command::Move { unit, to }));
                }
                tries.push((name, Command::Board { unit }));
            }
            Loc::Aboard => tries.push((name, Command::Disembark { unit })),
            Loc::Fallen => tries.push((name, Command::Move { unit, to: p.home })),
        }
        match unit {
            Unit::Berserkur => {
                tries.push((name, Command::Attack { claim: true, reinforce: 0 }));
                tries.push((name, Command::Retreat));
                let to = s.owned(seat).next().map_or(DiskSpot::Town, DiskSpot::Area);
                tries
                    .push((name, Command::Rearrange { moves: vec![DiskMove { from: DiskSpot::Virki, to, count: 1 }] }));
                tries.push((name, Command::Refill { unit }));
            }
            Unit::Godi => {
                tries.push((name, Command::Convert));
                let rune = RuneKind::ALL
                    .into_iter()
                    .find(|r| *r != RuneKind::SeaMove && p.runes[r.idx()] > 0)
                    .unwrap_or(RuneKind::Divine);
                // A blessing on the home area, a curse on another clan's.
                let curse = matches!(rune, RuneKind::NoResources | RuneKind::TheirsAreYours);
                let theirs =
                    (0..s.board.len() as AreaId).find(|a| s.areas[*a as usize].owner.is_some_and(|o| o != seat));
                let area = if curse { theirs.unwrap_or(p.home) } else { p.home };
                tries.push((name, Command::Cast { casts: vec![RuneCast { rune, area }] }));
                let here = s.unit_area(seat, unit).map(|a| s.areas[a as usize]);
                let on = RuneKind::ALL.into_iter().find(|r| here.is_some_and(|h| h.has_rune(*r)));
                tries.push((name, Command::RemoveRune { rune: on.unwrap_or(RuneKind::Defence) }));
                tries.push((name, Command::BuyRunes { unit }));
                tries.push((name, Command::Refill { unit }));
            }
            Unit::Kaupmadur => {
                tries.push((name, Command::BuyLand));
                let buy = Deal::Buy { get: vec![Good::Timber; 2] };
                tries.push((name, Command::Trade { deals: vec![buy], refill: vec![] }));
                tries.push((name, Command::BuyRunes { unit }));
            }
        }
    }
    let route = match p.ship {
        ShipLoc::At(at) => s.board.sea_next(at).first().map(|n| vec![*n]).unwrap_or_default(),
        _ => Vec::new(),
    };
    tries.push(("Knerrir", Command::Sail { route, sea_rune: false }));
    let words = |c: &Command| match c {
        Command::Sail { .. } => "Knerrir sails".to_owned(),
        _ => super::describe_command(s, seat, c),
    };
    let mut out: Vec<Unavailable> = Vec::new();
    for (group, c) in tries {
        if taken(&c) || out.iter().any(|u| u.label == words(&c)) {
            continue;
        }
        let mut rng = runestone_engine::rng::GameRng::new(runestone_engine::rng::Seed([0; 32]), 0);
        let mut cx = super::Ctx::new(s.clone(), &mut rng);
        if let Err(e) = super::run(&mut cx, seat, &c) {
            out.push(Unavailable { label: words(&c), reason: e.message, group: Some(group.to_owned()) });
        }
    }
    out
}

/// Whether `c` is one of `listed`, or of a family one of `offered` stands for.
/// An exchange's two discarded cards are listed once, in card order: the
/// same exchange given the other way round is the same command.
pub fn covered(listed: &[Command], offered: &[CommandTemplate], c: &Command) -> bool {
    let same = match c {
        Command::Exchange { discard: [a, b], take } if b.idx() < a.idx() => {
            Command::Exchange { discard: [*b, *a], take: *take }
        }
        other => other.clone(),
    };
    if listed.contains(&same) {
        return true;
    }
    let kind = serde_json::to_value(c).ok().and_then(|v| v["type"].as_str().map(str::to_owned));
    offered.iter().any(|t| t.base["type"].as_str() == kind.as_deref())
}

/// The templates of `seat` in the position `s`, as its view gives them.
pub fn templates_of(s: &State, seat: Seat) -> Vec<CommandTemplate> {
    templates(&super::view::view(s, Viewer::Seat(seat)), seat)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::Driver;
    use crate::{Bardagi, Options};
    use runestone_engine::game::Game;
    use runestone_engine::harness::Pick;

    /// Random commands of the families a template stands for, and
    /// mutations of listed ones: whatever `decide` accepts must be covered.
    fn random_commands(s: &State, seat: Seat, listed: &[Command], pick: &mut Pick) -> Vec<Command> {
        let n = s.board.len() as AreaId;
        let mut out = Vec::new();
        let good = |pick: &mut Pick| pick.of(&Good::ALL);
        for _ in 0..40 {
            let deal = match pick.next(6) {
                0 => Deal::Swap { give: good(pick), get: good(pick) },
                1 => Deal::BasicForMine { give: [good(pick), good(pick)], get: good(pick) },
                2 => Deal::MineForBasic { give: good(pick), get: [good(pick), good(pick)] },
                3 => Deal::Sell { give: (0..[2, 4, 8][pick.next(3)]).map(|_| good(pick)).collect() },
                4 => Deal::Buy { get: (0..1 + pick.next(2)).map(|_| good(pick)).collect() },
                _ => Deal::Tannery { hide: pick.next(6) as u8 },
            };
            let mut deals = vec![deal];
            if pick.next(2) == 0 {
                deals.extend(single_deals().get(pick.next(40)).cloned());
            }
            let refill = Building::ALL.into_iter().filter(|_| pick.next(3) == 0).collect();
            out.push(Command::Trade { deals, refill });
        }
        for _ in 0..30 {
            let casts = (0..1 + pick.next(2))
                .map(|_| RuneCast { rune: pick.of(&RuneKind::ALL), area: pick.next(n as usize) as AreaId })
                .collect();
            out.push(Command::Cast { casts });
            let spot = |pick: &mut Pick| match pick.next(3) {
                0 => DiskSpot::Virki,
                1 => DiskSpot::Town,
                _ => DiskSpot::Area(pick.next(n as usize) as AreaId),
            };
            let moves = (0..1 + pick.next(2))
                .map(|_| DiskMove { from: spot(pick), to: spot(pick), count: 1 + pick.next(3) as u8 })
                .collect();
            out.push(Command::Rearrange { moves });
            out.push(Command::Move { unit: pick.of(&Unit::ALL), to: pick.next(n as usize) as AreaId });
            out.push(Command::Attack { claim: pick.next(2) == 0, reinforce: pick.next(12) as u8 });
            out.push(Command::ForceTrade {
                seat: pick.next(s.n()) as Seat,
                give: (0..[2, 4][pick.next(2)]).map(|_| good(pick)).collect(),
            });
        }
        // Sail paths: random walks from where the Knerrir lies.
        if let ShipLoc::At(at) = s.players[seat as usize].ship {
            for _ in 0..20 {
                let mut route = Vec::new();
                let mut here = at;
                for _ in 0..1 + pick.next(10) {
                    let next = s.board.sea_next(here);
                    if next.is_empty() {
                        break;
                    }
                    here = pick.of(next);
                    route.push(here);
                }
                out.push(Command::Sail { route, sea_rune: pick.next(2) == 0 });
            }
        }
        // Each listed step with another unit, area or number.
        for c in listed.iter().take(60) {
            let m = match c.clone() {
                Command::Move { unit, .. } => Command::Move { unit, to: pick.next(n as usize) as AreaId },
                Command::Refill { .. } => Command::Refill { unit: pick.of(&Unit::ALL) },
                Command::BuyRunes { .. } => Command::BuyRunes { unit: pick.of(&Unit::ALL) },
                Command::Board { .. } => Command::Board { unit: pick.of(&Unit::ALL) },
                Command::Disembark { .. } => Command::Disembark { unit: pick.of(&Unit::ALL) },
                Command::RemoveRune { .. } => Command::RemoveRune { rune: pick.of(&RuneKind::ALL) },
                Command::Exchange { .. } => {
                    Command::Exchange { discard: [pick.of(&Card::ALL), pick.of(&Card::ALL)], take: pick.of(&Card::ALL) }
                }
                Command::Plan { .. } => {
                    let hands = all_hands(s.hand_size);
                    Command::Plan { hand: pick.of(&hands) }
                }
                other => other,
            };
            out.push(m);
            if !matches!(c, Command::PlayTurn { .. } | Command::SetOrders { .. } | Command::EndTurn) {
                let effect = pick.of(&[Effect::AnyCardBerserkur, Effect::GodiFreeAction, Effect::HomeActionAnywhere]);
                let card = (pick.next(2) == 0).then(|| pick.of(&Card::ALL));
                out.push(Command::Free { effect, card, step: Box::new(c.clone()) });
            }
        }
        out
    }

    fn options_for(i: u64) -> Options {
        Options {
            easy_cards: i % 5 == 1,
            eight_cards: i.is_multiple_of(2),
            forced_trade: !i.is_multiple_of(3),
            rules_version: if i % 5 == 3 { Some(1) } else { None },
            // Some games by the 2018 rules (its Knerrir claims, free casts
            // and once-a-round free actions listed or templated too).
            rules: if i % 3 == 1 && i % 5 != 3 { crate::rules2018::Rules::Y2018 } else { Default::default() },
            ..Options::default()
        }
    }

    /// Random positions from seeded bot playouts; at each, random commands
    /// built from the templates' families and from mutations of the listed
    /// ones: every one `decide` accepts is listed or has a template offered.
    #[test]
    fn every_command_decide_accepts_in_random_positions_is_covered_by_legal() {
        let mut checked = 0u32;
        let mut accepted_kinds = std::collections::BTreeSet::new();
        for i in 0..12u64 {
            let seats = 2 + (i % 4) as u8;
            let mut d = Driver::new(&options_for(i), seats, 1000 + i).unwrap();
            let mut pick = Pick(0x9e37_79b9_7f4a_7c15 ^ (i + 1));
            for _ in 0..400 {
                let Some(seat) = d.next_seat() else { break };
                let listed = Bardagi::legal(&d.state, seat);
                assert!(!listed.is_empty(), "game {i}: seat {seat} is pending with nothing legal");
                let offered = templates_of(&d.state, seat);
                for c in listed.iter().chain(random_commands(&d.state, seat, &listed, &mut pick).iter()) {
                    if bot::accepted(&d.state, seat, c) {
                        checked += 1;
                        accepted_kinds.insert(format!("{:?}", c).split([' ', '{']).next().unwrap().to_owned());
                        assert!(covered(&listed, &offered, c), "game {i}: {c:?} is accepted but not covered");
                    }
                }
                for c in &listed {
                    assert!(bot::accepted(&d.state, seat, c), "game {i}: listed {c:?} is refused");
                }
                // An attack's words name what it meets.
                for c in listed.iter().filter(|c| matches!(c, Command::Attack { claim: true, .. })) {
                    let at = d.state.unit_area(seat, Unit::Berserkur).unwrap();
                    let (_, _, defenders) = crate::actions::berserkur::attack_cost(&d.state, seat, at);
                    let words = label(&d.state, seat, c);
                    assert!(defenders == 0 || words.contains(&format!("against {defenders} defender")), "{words}");
                }
                // What is told impossible is never also offered.
                let labels: Vec<String> = listed.iter().map(|c| crate::describe_command(&d.state, seat, c)).collect();
                for u in unavailable(&d.state, seat, &listed) {
                    assert!(!u.reason.is_empty(), "game {i}: {u:?} has no reason");
                    assert!(!labels.contains(&u.label), "game {i}: {u:?} is told impossible yet listed");
                }
                // Play on: the bot mostly, a random listed step sometimes.
                let step = if pick.next(3) == 0 { pick.of(&listed) } else { listed[0].clone() };
                if d.act(seat, &step).is_err() {
                    d.act(seat, &listed[0]).unwrap();
                }
            }
        }
        assert!(checked > 1000, "only {checked} accepted commands checked");
        for kind in ["Trade", "Cast", "Move", "Attack", "Sail", "Exchange", "Plan", "EndTurn"] {
            assert!(accepted_kinds.contains(kind), "no accepted {kind} was reached: {accepted_kinds:?}");
        }
    }

    #[test]
    fn the_turns_actions_nothing_legal_takes_are_told_with_the_rules_reason() {
        let mut d = Driver::new(&Options::default(), 3, 11).unwrap();
        while d.state.phase == Phase::Planning {
            let seat = d.next_seat().unwrap();
            d.act(seat, &Command::Plan { hand: crate::state::Hand::new([0, 0, 6, 0]) }).unwrap();
        }
        let seat = d.state.current;
        let listed = legal(&d.state, seat);
        let not = unavailable(&d.state, seat, &listed);
        let home = d.state.board.area(d.state.players[seat as usize].home).name.clone();
        // The Berserkur stands at home, which cannot be attacked: the rule says so.
        let attack = not.iter().find(|u| u.label.starts_with("Berserkur attack on")).expect("the attack told");
        assert_eq!(attack.reason, format!("{home} cannot be attacked"));
        assert_eq!(attack.group.as_deref(), Some("Berserkur"));
        // Trading is legal, so it is not told as impossible.
        assert!(listed.iter().any(|c| matches!(c, Command::Trade { .. })));
        assert!(!not.iter().any(|u| u.label == "Kaupmadur trades"), "{not:?}");
        // Each is told in words with a reason; no seat but the one to play
        // is told anything.
        for u in &not {
            assert!(!u.reason.is_empty() && !u.label.is_empty(), "{u:?}");
        }
        for other in (0..3).filter(|s| *s != seat) {
            assert!(unavailable(&d.state, other, &legal(&d.state, other)).is_empty());
        }
    }

    #[test]
    fn a_trade_at_home_the_table_allows_is_listed_though_the_bot_would_not_make_it() {
        let mut d = Driver::new(&Options::default(), 2, 7).unwrap();
        // Plan Kaupmadur cards for every clan; the Kaupmadur starts at home.
        while d.state.phase == Phase::Planning {
            let seat = d.next_seat().unwrap();
            let hand = crate::state::Hand::new([0, 0, 6, 0]);
            d.act(seat, &Command::Plan { hand }).unwrap();
        }
        let seat = d.state.current;
        let p = &d.state.players[seat as usize];
        assert_eq!(p.units[Unit::Kaupmadur.idx()], Loc::Area(p.home), "the Kaupmadur is at home");
        assert!(p.gold >= 1, "a clan starts with gold");
        let buy = Command::Trade { deals: vec![Deal::Buy { get: vec![Good::Timber; 2] }], refill: vec![] };
        assert!(bot::accepted(&d.state, seat, &buy), "the table sells 2 timber for 1 gold");
        assert!(!bot::legal(&d.state, seat).contains(&buy), "the bot's list lacked it");
        assert!(legal(&d.state, seat).contains(&buy), "listed now");
        assert!(templates_of(&d.state, seat).iter().any(|t| t.id == "cmd-trade"), "and the trade template offered");
    }
}
