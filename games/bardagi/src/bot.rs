//! A sensible player, also the timeout fallback, and the list of legal
//! commands. The bot plans a hand for what its units can do, then plays a
//! whole turn greedily: it claims land (attack, convert, buy), refills its
//! buildings at home, trades surplus, moves its units towards unclaimed
//! land (by ship when its island is taken), and keeps standing orders that
//! build upgrades. With its plan it sends the program of the turn it would
//! play if the turn began then (`bot_program`), so a round needs one input
//! from a clan unless a step is refused and the turn is asked; an asked turn
//! is sent as one `PlayTurn` command.

use super::actions::{distances, kaupmadur::sell_value};
use super::board::{AreaId, AreaKind, SeaNode};
use super::build::Effect;
use super::planning::{all_hands, is_step};
use super::program::{Fallback, ProgramStep};
use super::state::{
    AreaState, AxeOrder, BuildWish, Building, Card, Command, Deal, Event, Good, GoodChoice, Hand, Loc, Orders, Phase,
    RuneCast, RuneKind, ShipLoc, State, Unit,
};
use super::{run, Ctx};
use runestone_engine::game::Seat;
use runestone_engine::harness::Pick;
use runestone_engine::rng::{GameRng, Seed};

fn probe_rng() -> GameRng {
    GameRng::new(Seed([0; 32]), 0)
}

/// Whether `c` would be accepted from `seat` now.
pub fn accepted(s: &State, seat: Seat, c: &Command) -> bool {
    let mut rng = probe_rng();
    let mut cx = Ctx::new(s.clone(), &mut rng);
    run(&mut cx, seat, c).is_ok()
}

/// Plans a seat may choose now.
fn plans(s: &State) -> Vec<Command> {
    let sizes: Vec<u8> = if s.eight_cards && s.hand_size == 8 { vec![6, 7, 8] } else { vec![s.hand_size] };
    sizes.into_iter().flat_map(all_hands).map(|hand| Command::Plan { hand }).collect()
}

/// Every legal command of `seat` at this moment; each is accepted by `decide`.
pub fn legal(s: &State, seat: Seat) -> Vec<Command> {
    if !s.waits_for(seat) {
        return Vec::new();
    }
    let p = &s.players[seat as usize];
    if s.phase == Phase::Planning && p.planned {
        // The plans it may switch to.
        return plans(s).into_iter().filter(|c| !matches!(c, Command::Plan { hand } if *hand == p.hand)).collect();
    }
    let mut out = Vec::new();
    match command(s, seat) {
        // The bot's plain plan first, then the same plan with the program
        // the bot would send (its turn as it would play it from the board
        // as it is now): a client's or the plan form's suggestion, which
        // leaves the clan's own standing orders as they are.
        Some(Command::Program { hand, mut steps }) => {
            out.push(Command::Plan { hand });
            steps.retain(|s| !matches!(s.step, Command::SetOrders { .. }));
            if !steps.is_empty() {
                out.push(Command::Program { hand, steps });
            }
        }
        Some(c) => out.push(c),
        None => {}
    }
    if s.phase == Phase::Planning || (s.easy_cards && !p.planned) {
        out.extend(plans(s));
        return out;
    }
    out.push(Command::SetOrders { orders: bot_orders(s) });
    out.extend(candidates(s, seat).into_iter().filter(|c| accepted(s, seat, c)));
    if accepted(s, seat, &Command::EndTurn) {
        out.push(Command::EndTurn);
    }
    out
}

/// Legal steps that lay down a card.
pub fn card_steps(s: &State, seat: Seat) -> impl Iterator<Item = Command> + '_ {
    candidates(s, seat).into_iter().filter(move |c| {
        let mut rng = probe_rng();
        let mut cx = Ctx::new(s.clone(), &mut rng);
        let before = cx.s.players[seat as usize].played.total();
        run(&mut cx, seat, c).is_ok() && cx.s.players[seat as usize].played.total() > before
    })
}

fn value(kind: AreaKind) -> i32 {
    match kind {
        AreaKind::GoldMine => 6,
        AreaKind::Village => 5,
        AreaKind::IronMine | AreaKind::Camp => 4,
        AreaKind::Quarry | AreaKind::Forest => 3,
        AreaKind::Sheep | AreaKind::Cattle => 2,
        _ => 0,
    }
}

/// Whether `unit` could take area `a` now (ignoring where it stands).
fn takeable(s: &State, seat: Seat, unit: Unit, a: AreaId) -> bool {
    let st = s.areas[a as usize];
    let kind = s.board.area(a).kind;
    if !kind.ownable() || st.owner == Some(seat) {
        return false;
    }
    let p = &s.players[seat as usize];
    match unit {
        Unit::Berserkur => {
            let (bers, axes, def) = super::actions::berserkur::attack_cost(s, seat, a);
            let need = bers.iter().map(|b| b.1).sum::<u8>() + axes + def + 1;
            need <= p.disks[0]
        }
        Unit::Godi => st.owner.is_none() && kind != AreaKind::Camp && p.disks[1] >= 2,
        Unit::Kaupmadur => st.owner.is_none() && kind != AreaKind::Camp && p.disks[2] >= 2,
    }
}

/// Land distance from every area to the nearest area `unit` could take
/// (`u8::MAX`: none reachable), by one search from all such areas at once.
pub fn target_field(s: &State, seat: Seat, unit: Unit) -> Vec<u8> {
    let n = s.board.len();
    let mut dist = vec![u8::MAX; n];
    let mut q = std::collections::VecDeque::new();
    for (a, d) in dist.iter_mut().enumerate() {
        if takeable(s, seat, unit, a as AreaId) && super::actions::may_enter(s, seat, unit, a as AreaId) {
            *d = 0;
            q.push_back(a as AreaId);
        }
    }
    while let Some(y) = q.pop_front() {
        let dy = dist[y as usize];
        if dy > 0 && !super::actions::may_enter(s, seat, unit, y) {
            continue;
        }
        for &x in &s.board.land[y as usize] {
            let w = if s.is_own(seat, x) && s.is_own(seat, y) { 0 } else { 1 };
            let nd = dy.saturating_add(w);
            if nd < dist[x as usize] {
                dist[x as usize] = nd;
                if w == 0 {
                    q.push_front(x);
                } else {
                    q.push_back(x);
                }
            }
        }
    }
    dist
}

/// The target fields of the three units.
struct Eval {
    field: [Vec<u8>; 3],
    /// Land distance of every area from home, per unit.
    home: [Vec<u8>; 3],
    /// Whether each unit should go home.
    homeward: [bool; 3],
    /// Whether the clan lacks gold for its next upgrade.
    short: bool,
}

impl Eval {
    fn new(s: &State, seat: Seat) -> Eval {
        let home = s.players[seat as usize].home;
        Eval::with_home(s, seat, Unit::ALL.map(|u| distances(s, seat, u, home)))
    }
    /// With the distances from home worked out before (they change little in a turn).
    fn with_home(s: &State, seat: Seat, home: [Vec<u8>; 3]) -> Eval {
        Eval::with_fields(s, seat, home, Unit::ALL.map(|u| target_field(s, seat, u)))
    }
    /// With the target fields worked out before too.
    fn with_fields(s: &State, seat: Seat, home: [Vec<u8>; 3], field: [Vec<u8>; 3]) -> Eval {
        Eval { field, home, homeward: Unit::ALL.map(|u| wants_home(s, seat, u)), short: short_of_gold(s, seat) }
    }
    fn dist(&self, u: Unit, a: AreaId) -> u8 {
        self.field[u.idx()].get(a as usize).copied().unwrap_or(u8::MAX)
    }
}

fn needs_refill(s: &State, seat: Seat, b: Building) -> bool {
    let p = &s.players[seat as usize];
    // Version 2: a defeated Berserkur comes back with any Virki refill.
    let revive = s.v2() && b == Building::Virki && p.units[0] == Loc::Fallen;
    (revive || (p.disks[b.idx()] * 2 <= p.capacity(&s.tiles, b) && p.supply > 0)) && p.goods[b.refill_good().idx()] >= 4
}

/// Candidate single steps (not yet checked).
pub fn candidates(s: &State, seat: Seat) -> Vec<Command> {
    let mut out = Vec::new();
    let p = &s.players[seat as usize];
    for unit in Unit::ALL {
        match p.units[unit.idx()] {
            Loc::Area(a) => {
                let reach = p.moves[unit.idx()].unwrap_or(0).max(super::actions::allowance(s, seat, unit));
                let d = super::actions::distances_within(s, seat, unit, a, reach);
                for (to, dist) in d.iter().enumerate() {
                    if to != a as usize && *dist <= reach {
                        out.push(Command::Move { unit, to: to as AreaId });
                    }
                }
                if s.board.area(a).harbour {
                    out.push(Command::Board { unit });
                }
                if unit != Unit::Kaupmadur {
                    out.push(Command::Refill { unit });
                }
                if s.board.area(a).kind == AreaKind::Sacred {
                    out.push(Command::BuyRunes { unit });
                }
            }
            Loc::Aboard => out.push(Command::Disembark { unit }),
            Loc::Fallen => {}
        }
    }
    out.push(Command::Attack { claim: true, reinforce: 0 });
    out.push(Command::Attack { claim: true, reinforce: 1 });
    out.push(Command::Attack { claim: false, reinforce: 0 });
    out.push(Command::Retreat);
    out.push(Command::Convert);
    out.push(Command::BuyLand);
    if let Some(g) = s.unit_area(seat, Unit::Godi) {
        for r in RuneKind::ALL {
            if s.areas[g as usize].has_rune(r) {
                out.push(Command::RemoveRune { rune: r });
            }
        }
    }
    for r in RuneKind::ALL {
        if p.runes[r.idx()] == 0 || r == RuneKind::SeaMove {
            continue;
        }
        let targets: Vec<AreaId> = if r.is_curse() {
            (0..s.board.len() as AreaId)
                .filter(|a| matches!(s.areas[*a as usize].owner, Some(o) if o != seat))
                .max_by_key(|a| value(s.board.area(*a).kind))
                .into_iter()
                .collect()
        } else {
            s.owned(seat)
                .max_by_key(|a| value(s.board.area(*a).kind) * 10 - s.areas[*a as usize].runes.count_ones() as i32)
                .into_iter()
                .collect()
        };
        for area in targets {
            out.push(Command::Cast { casts: vec![RuneCast { rune: r, area }] });
        }
    }
    // Trades: refill what is low, sell surplus, buy iron for upgrades.
    let refill: Vec<Building> = Building::ALL.into_iter().filter(|b| needs_refill(s, seat, *b)).collect();
    let deals = trade_plan(s, seat);
    if !refill.is_empty() || !deals.is_empty() {
        out.push(Command::Trade { deals: deals.clone(), refill: refill.clone() });
    }
    if !refill.is_empty() && !deals.is_empty() {
        out.push(Command::Trade { deals: vec![], refill });
    }
    if !deals.is_empty() {
        out.push(Command::Trade { deals, refill: vec![] });
    }
    if s.forced_trade {
        if let Some(k) = s.unit_area(seat, Unit::Kaupmadur) {
            if let Some(v) = s.home_seat(k).filter(|v| *v != seat) {
                if let Some(g) = Good::ALL.iter().take(4).find(|g| p.goods[g.idx()] >= 4) {
                    out.push(Command::ForceTrade { seat: v, give: vec![*g; 4] });
                }
            }
        }
    }
    // The 2018 rules: the Knerrir claims the empty harbour it lies at.
    if s.y2018() && matches!(p.ship, ShipLoc::At(SeaNode::Harbour(_))) {
        out.push(Command::ClaimHarbour);
    }
    // Sailing: towards every node within one card's reach.
    if let ShipLoc::At(at) = p.ship {
        let full = (3 + p.amount(&s.tiles, Effect::KnerrirPlusTwo)).clamp(0, 255) as u8;
        let reach = p.moves[3].filter(|m| *m > 0).unwrap_or(full);
        for route in sea_routes(s, at, reach) {
            out.push(Command::Sail { route, sea_rune: false });
        }
        // A Sea move rune: the farthest squares within 10.
        if p.runes[RuneKind::SeaMove.idx()] > 0 {
            for route in sea_routes(s, at, 10).into_iter().rev().take(3) {
                out.push(Command::Sail { route, sea_rune: true });
            }
        }
    }
    for a in Card::ALL {
        for b in Card::ALL {
            if (a as usize) <= (b as usize) {
                for t in Card::ALL {
                    out.push(Command::Exchange { discard: [a, b], take: t });
                }
            }
        }
    }
    use super::state::{DiskMove, DiskSpot};
    if let Some(a) = s.owned(seat).max_by_key(|a| s.areas[*a as usize].disks) {
        if s.areas[a as usize].disks > 1 {
            out.push(Command::Rearrange {
                moves: vec![DiskMove { from: DiskSpot::Area(a), to: DiskSpot::Town, count: 1 }],
            });
            // Strengthen the weakest own area from the strongest.
            if let Some(b) = s.owned(seat).filter(|b| *b != a).min_by_key(|b| s.areas[*b as usize].disks) {
                out.push(Command::Rearrange {
                    moves: vec![DiskMove { from: DiskSpot::Area(a), to: DiskSpot::Area(b), count: 1 }],
                });
            }
        }
        if p.disks[0] > 3 {
            out.push(Command::Rearrange {
                moves: vec![DiskMove { from: DiskSpot::Virki, to: DiskSpot::Area(a), count: 1 }],
            });
        }
    }
    // Version 2: the once-a-round upgrade actions, at a moment of choice.
    if s.v2() {
        let mut free = Vec::new();
        for (slot, effect) in
            [Effect::AnyCardBerserkur, Effect::GodiFreeAction, Effect::HomeActionAnywhere].into_iter().enumerate()
        {
            if !p.has(&s.tiles, effect) || p.free_used[slot] {
                continue;
            }
            let card = (effect == Effect::AnyCardBerserkur)
                .then(|| Card::ALL.into_iter().filter(|c| *c != Card::Berserkur).max_by_key(|c| p.hand.get(*c)))
                .flatten();
            let fits = |c: &Command| match effect {
                Effect::AnyCardBerserkur => matches!(
                    c,
                    Command::Move { unit: Unit::Berserkur, .. }
                        | Command::Attack { .. }
                        | Command::Rearrange { .. }
                        | Command::Refill { unit: Unit::Berserkur }
                ),
                Effect::GodiFreeAction => matches!(
                    c,
                    Command::Move { unit: Unit::Godi, .. }
                        | Command::Convert
                        | Command::Cast { .. }
                        | Command::Refill { unit: Unit::Godi }
                        | Command::BuyRunes { unit: Unit::Godi }
                ),
                _ => matches!(c, Command::Trade { .. }),
            };
            free.extend(out.iter().filter(|c| fits(c)).take(4).map(|c| Command::Free {
                effect,
                card,
                step: Box::new(c.clone()),
            }));
        }
        out.extend(free);
    }
    out
}

/// The steps the bot weighs in its own turn: [`candidates`], and the
/// trades of its own plan ([`bot_trade_plan`]) where that plan differs.
fn bot_candidates(s: &State, seat: Seat) -> Vec<Command> {
    let mut out = candidates(s, seat);
    let deals = bot_trade_plan(s, seat);
    if !deals.is_empty() && deals != trade_plan(s, seat) {
        let refill: Vec<Building> = Building::ALL.into_iter().filter(|b| needs_refill(s, seat, *b)).collect();
        if !refill.is_empty() {
            out.push(Command::Trade { deals: deals.clone(), refill });
        }
        out.push(Command::Trade { deals, refill: vec![] });
    }
    out
}

/// Shortest sea routes from `at` to every node within `reach` moves (the
/// bot's sails and `legal`'s listed ones).
pub(crate) fn sea_routes(s: &State, at: SeaNode, reach: u8) -> Vec<Vec<SeaNode>> {
    let mut seen = vec![at];
    let mut frontier = vec![(at, Vec::<SeaNode>::new())];
    let mut out = Vec::new();
    for _ in 0..reach {
        let mut next = Vec::new();
        for (node, path) in &frontier {
            for n in s.board.sea_next(*node) {
                if !seen.contains(n) {
                    seen.push(*n);
                    let mut p = path.clone();
                    p.push(*n);
                    out.push(p.clone());
                    next.push((*n, p));
                }
            }
        }
        frontier = next;
    }
    out
}

/// What the clan's next upgrade needs, goods by index and gold: the first
/// wish of its build order that it could build with goods and gold enough
/// (a face-up tile, a free slot), or `None` when no wish is in reach.
fn next_upgrade(s: &State, seat: Seat) -> Option<([i32; 6], i32)> {
    let mut rich = s.clone();
    let p = &mut rich.players[seat as usize];
    p.goods = [u8::MAX; 6];
    p.gold = i32::MAX / 2;
    let wishes = if p.orders.build.is_empty() { bot_orders(s).build } else { p.orders.build.clone() };
    let mut rng = probe_rng();
    let cx = Ctx::new(rich, &mut rng);
    let (t, _) = wishes.iter().find_map(|w| super::build::check(&cx, seat, w).ok())?;
    let level = cx.s.tile(t).level;
    Some((super::build::cost(level).map(|c| -(c as i32)), super::build::gold_cost(level)))
}

/// A trade of surplus: sell goods at the storage limit; for the next
/// upgrade buy the stone, iron or timber it lacks with goods it does not
/// need, and raise the gold it lacks by selling such goods (mine goods
/// first, 2 for 1 gold, then basic goods, 4 for 1), as a player plans for
/// gold. The upgrade's deals are made when the Kaupmadur can trade where he
/// stands, or when they complete what the upgrade needs (worth a trip home).
/// This is the plan the step list ([`candidates`]) offers, and so part of
/// what "no card could be laid" means to the rules: it is kept as it was.
/// The bot's own turn plans with [`bot_trade_plan`], which adds deals.
fn trade_plan(s: &State, seat: Seat) -> Vec<Deal> {
    plan_trades(s, seat, false)
}

/// The bot's trade plan: [`trade_plan`], and besides the deals a clan makes
/// when its goods fall short: a spare stone or iron traded for two timber
/// the upgrade lacks, gold beyond the upgrade's price spent on the mine
/// goods or timber that complete it (1 gold for 1 mine good or 2 basic
/// goods, each worth less than the upgrade's glory), and a building low
/// on disks whose refill good is short made up from a spare mine good or,
/// before the last round, spare gold (a refill is 4 disks of actions).
fn bot_trade_plan(s: &State, seat: Seat) -> Vec<Deal> {
    plan_trades(s, seat, true)
}

fn plan_trades(s: &State, seat: Seat, wide: bool) -> Vec<Deal> {
    let p = &s.players[seat as usize];
    let cap = p.storage(&s.tiles);
    let mut goods = p.goods;
    let mut deals = Vec::new();
    let basic = [Good::Timber, Good::Wool, Good::Meat, Good::Hide];
    let mines = [Good::Stone, Good::Iron];
    let upgrade = next_upgrade(s, seat);
    // Goods kept: what the upgrade needs, and 4 of each refill good
    // (a building refill costs 4).
    let mut keep = upgrade.map(|u| u.0).unwrap_or([0; 6]);
    for b in Building::ALL {
        keep[b.refill_good().idx()] += 4;
    }
    let spare = |goods: &[u8; 6], g: Good| goods[g.idx()] as i32 - keep[g.idx()];
    let mut gold_need = 0;
    if let Some((need, gold_needed)) = upgrade {
        gold_need = gold_needed;
        // With `buy`, gold beyond the price pays for what is still lacking.
        let plan_for = |buy: bool| {
            let mut goods = p.goods;
            let mut plan = Vec::new();
            let mut gold = p.gold;
            let room = |goods: &[u8; 6], g: Good, n: u8| goods[g.idx()] + n <= cap;
            // The mine goods it lacks: 2 spare basic goods for each (or 1 gold).
            for m in mines {
                while (goods[m.idx()] as i32) < need[m.idx()] {
                    if let Some(g) =
                        basic.into_iter().filter(|g| spare(&goods, *g) >= 2).max_by_key(|g| spare(&goods, *g))
                    {
                        plan.push(Deal::BasicForMine { give: [g, g], get: m });
                        goods[g.idx()] -= 2;
                    } else if buy && gold > gold_need && room(&goods, m, 1) {
                        plan.push(Deal::Buy { get: vec![m] });
                        gold -= 1;
                    } else {
                        break;
                    }
                    goods[m.idx()] += 1;
                }
            }
            // Timber it lacks: a spare basic good for each (or, in the
            // bot's plan, a spare mine good or 1 gold for two).
            let timber = Good::Timber;
            while (goods[timber.idx()] as i32) < need[timber.idx()] {
                if let Some(g) =
                    basic[1..].iter().copied().filter(|g| spare(&goods, *g) >= 1).max_by_key(|g| spare(&goods, *g))
                {
                    plan.push(Deal::Swap { give: g, get: timber });
                    goods[g.idx()] -= 1;
                    goods[timber.idx()] += 1;
                    continue;
                }
                if !wide || !room(&goods, timber, 2) {
                    break;
                }
                if let Some(m) = mines.into_iter().filter(|m| spare(&goods, *m) >= 1).max_by_key(|m| spare(&goods, *m))
                {
                    plan.push(Deal::MineForBasic { give: m, get: [timber, timber] });
                    goods[m.idx()] -= 1;
                } else if buy && gold > gold_need {
                    plan.push(Deal::Buy { get: vec![timber, timber] });
                    gold -= 1;
                } else {
                    break;
                }
                goods[timber.idx()] += 2;
            }
            // The gold it lacks: spare mine goods 2 for 1 gold, then basic 4 for 1.
            for m in [Good::Iron, Good::Stone] {
                while gold < gold_need && spare(&goods, m) >= 2 {
                    plan.push(Deal::Sell { give: vec![m; 2] });
                    goods[m.idx()] -= 2;
                    gold += 1;
                }
            }
            while gold < gold_need {
                let Some(g) = basic.into_iter().filter(|g| spare(&goods, *g) >= 4).max_by_key(|g| spare(&goods, *g))
                else {
                    break;
                };
                plan.push(Deal::Sell { give: vec![g; 4] });
                goods[g.idx()] -= 4;
                gold += 1;
            }
            let complete = gold >= gold_need && Good::ALL.iter().all(|g| goods[g.idx()] as i32 >= need[g.idx()]);
            (plan, goods, complete)
        };
        let (mut plan, mut after, mut complete) = plan_for(false);
        // Gold is spent on goods only when that completes the upgrade.
        if wide && !complete {
            let bought = plan_for(true);
            if bought.2 {
                (plan, after, complete) = bought;
            }
        }
        let can_trade_here = s.unit_area(seat, Unit::Kaupmadur).is_some_and(|a| {
            a == p.home || s.board.area(a).kind == AreaKind::Village || p.has(&s.tiles, Effect::HomeActionAnywhere)
        });
        if !plan.is_empty() && (complete || can_trade_here) {
            deals = plan;
            goods = after;
        }
    } else if goods[Good::Iron.idx()] == 0 {
        let mut plenty: Vec<Good> = basic.into_iter().filter(|g| goods[g.idx()] >= 5).collect();
        plenty.sort_by_key(|g| std::cmp::Reverse(goods[g.idx()]));
        if let Some(g) = plenty.first() {
            deals.push(Deal::BasicForMine { give: [*g, *g], get: Good::Iron });
            goods[g.idx()] -= 2;
        }
    }
    if wide {
        // A building low on disks whose refill good is short: a spare mine
        // good for two of it, or 1 gold beyond the upgrade's price (not in
        // the last round, when disks would go unused).
        let mut gold = p.gold + deals.iter().map(deal_gold).sum::<i32>();
        for b in Building::ALL {
            let g = b.refill_good();
            let low = p.disks[b.idx()] * 2 <= p.capacity(&s.tiles, b) && p.supply > 0;
            if !low || goods[g.idx()] >= 4 || goods[g.idx()] < 2 || goods[g.idx()] + 2 > cap {
                continue;
            }
            if let Some(m) = mines.into_iter().filter(|m| spare(&goods, *m) >= 1).max_by_key(|m| spare(&goods, *m)) {
                deals.push(Deal::MineForBasic { give: m, get: [g, g] });
                goods[m.idx()] -= 1;
            } else if s.round < s.rounds && gold > gold_need.max(1) {
                deals.push(Deal::Buy { get: vec![g, g] });
                gold -= 1;
            } else {
                continue;
            }
            goods[g.idx()] += 2;
        }
    }
    for g in basic {
        if goods[g.idx()] >= cap && goods[g.idx()] >= 4 && g != Good::Timber {
            deals.push(Deal::Sell { give: vec![g; 4] });
            goods[g.idx()] -= 4;
        }
    }
    let tannery = p.best(&s.tiles, Effect::HideForGold).unwrap_or(0);
    if goods[Good::Hide.idx()] >= 2 && p.tannery < tannery {
        let h = goods[Good::Hide.idx()].min(tannery - p.tannery).min(2);
        deals.push(Deal::Tannery { hide: h });
    }
    deals.retain(|d| match d {
        Deal::Sell { give } => sell_value(give).is_some(),
        _ => true,
    });
    deals
}

/// The gold a deal the bot plans brings (negative: costs).
fn deal_gold(d: &Deal) -> i32 {
    match d {
        Deal::Sell { give } => sell_value(give).unwrap_or(0),
        Deal::Buy { .. } => -1,
        _ => 0,
    }
}

/// Whether the clan lacks gold for its next upgrade.
fn short_of_gold(s: &State, seat: Seat) -> bool {
    next_upgrade(s, seat).is_some_and(|(_, gold)| s.players[seat as usize].gold < gold)
}

/// Whether `o` are the bot's orders `bot` with some build wishes used up
/// (and, with `wishes`, the bot's every wish, its replacements named or not).
fn is_bots(o: &Orders, bot: &Orders, wishes: &[BuildWish]) -> bool {
    o.sheep == bot.sheep
        && o.cattle == bot.cattle
        && o.recruits == bot.recruits
        && o.buy_axes == bot.buy_axes
        && o.axes == bot.axes
        && {
            // A subsequence: wishes are removed as they are built.
            let mut rest = wishes.iter();
            o.build.iter().all(|w| rest.any(|b| b == w))
        }
}

/// How the bot ranks an upgrade effect (0 the best).
fn rank(e: Effect) -> u8 {
    match e {
        Effect::GloryThree => 0,
        Effect::GoldThree => 1,
        Effect::QuarryGloryThree => 2,
        Effect::GoldTwo => 3,
        Effect::GloryPerAreaTaken => 4,
        Effect::LargerStorage => 5,
        Effect::GoldPerVillage | Effect::GoldPerForest | Effect::GoldPerSheep => 6,
        Effect::GloryPerQuarry | Effect::GloryPerCattle | Effect::GloryPerIronMine => 7,
        Effect::MeadHall | Effect::BerserkurMovesThree => 8,
        _ => 9,
    }
}

/// Effects ranked at most this are income every round whatever the clan
/// owns (3 glory, 3 or 2 gold, 3 glory with a quarry) ...
const INCOME: u8 = 3;
/// ... worth replacing a tile ranked at least this with (an upgrade of
/// movement, strength or a once-a-round action): see [`bot_wishes`].
const REPLACEABLE: u8 = 8;

/// The bot's build wishes: every upgrade, the 2nd level first, the most
/// glorious first; with `replacements`, before the 1st level tiles that
/// are not income, each income upgrade in place of a weak tile of the same
/// building and level ("a tile may be discarded and replaced, without
/// glory"): built when the building's slots of that level are full, at the
/// same price as a new tile, for 3 glory or 2 to 3 gold every round to come.
fn bot_wishes(s: &State, replacements: bool) -> Vec<BuildWish> {
    let mut wishes: Vec<(u8, u8, BuildWish)> = Vec::new();
    for t in s.tiles.iter() {
        let w = BuildWish { building: t.building, effect: t.effect, replace: None };
        if !wishes.iter().any(|x| x.2 == w) {
            wishes.push((t.level, rank(t.effect), w));
        }
    }
    wishes.sort_by_key(|w| (std::cmp::Reverse(w.0), w.1));
    let mut swaps: Vec<(u8, u8, BuildWish)> = Vec::new();
    if replacements {
        for (level, better, w) in wishes.iter().filter(|w| w.1 <= INCOME) {
            for (_, worse, x) in wishes.iter().filter(|x| x.0 == *level && x.1 >= REPLACEABLE) {
                if x.building == w.building {
                    swaps.push((*better, u8::MAX - worse, BuildWish { replace: Some(x.effect), ..*w }));
                }
            }
        }
        swaps.sort_by_key(|w| (w.0, w.1));
    }
    // The replacements come before the weaker new tiles of the 1st level
    // (worth 3 glory once and an effect the bot ranks low).
    let at = wishes.iter().position(|w| w.0 == 1 && w.1 > INCOME).unwrap_or(wishes.len());
    let rest = wishes.split_off(at);
    let most = 64usize;
    wishes.into_iter().chain(swaps).chain(rest).take(most).map(|w| w.2).collect()
}

/// Claim phases still to come counting this round's, at least, for the
/// bot to replace an upgrade (so that the replacement pays for itself).
const REPLACE_ROUNDS: u8 = 3;

/// The bot's standing orders: auto claims and a build order of every
/// upgrade, the most glorious first, with replacements of weak tiles while
/// [`REPLACE_ROUNDS`] Claim phases are to come.
pub fn bot_orders(s: &State) -> Orders {
    let to_come = s.rounds.saturating_add(1).saturating_sub(s.round.max(1));
    Orders {
        sheep: GoodChoice::Auto,
        cattle: GoodChoice::Auto,
        recruits: vec![],
        buy_axes: true,
        axes: AxeOrder::Auto,
        build: bot_wishes(s, to_come >= REPLACE_ROUNDS),
        ask: false,
    }
}

/// The bot's hand for this round.
pub fn bot_hand(s: &State, seat: Seat) -> Hand {
    let p = &s.players[seat as usize];
    let size = s.hand_size as usize;
    let at_sea = p.units.contains(&Loc::Aboard);
    let eval = Eval::new(s, seat);
    let stuck = Unit::ALL.iter().all(|u| match p.units[u.idx()] {
        Loc::Area(a) => eval.dist(*u, a) == u8::MAX,
        _ => true,
    });
    let mut want: Vec<Card> = Vec::new();
    let far = |u: Unit| match p.units[u.idx()] {
        Loc::Area(a) => wants_home(s, seat, u) && eval.home[u.idx()][a as usize] == u8::MAX,
        _ => false,
    };
    // The 2018 rules: a recruit waits in town and the Knerrir can reach an
    // empty harbour area: cards to sail there and claim it.
    let claim = s.y2018() && p.town > 0 && harbour_goal(s, seat).is_some();
    if at_sea || stuck || far(Unit::Kaupmadur) || claim {
        want.extend([Card::Knerrir, Card::Knerrir]);
    }
    if p.units[0] != Loc::Fallen && p.disks[0] >= 2 {
        want.extend([Card::Berserkur, Card::Berserkur]);
    }
    want.extend([Card::Kaupmadur, Card::Kaupmadur]);
    if p.disks[1] >= 2 {
        want.extend([Card::Godi, Card::Godi]);
    }
    want.extend([Card::Kaupmadur, Card::Berserkur, Card::Godi, Card::Kaupmadur, Card::Berserkur, Card::Godi]);
    let mut h = Hand::default();
    for c in want {
        if (h.total() as usize) < size && h.get(c) < 6 {
            h.add(c, 1);
        }
    }
    let mut i = 0;
    while (h.total() as usize) < size {
        let c = Card::ALL[i % 4];
        if h.get(c) < 6 {
            h.add(c, 1);
        }
        i += 1;
    }
    h
}

/// Whether a unit should go home to refill or trade.
fn wants_home(s: &State, seat: Seat, unit: Unit) -> bool {
    let p = &s.players[seat as usize];
    match unit {
        Unit::Kaupmadur => {
            Building::ALL.iter().any(|b| needs_refill(s, seat, *b)) || !bot_trade_plan(s, seat).is_empty()
        }
        Unit::Berserkur => p.disks[0] < 2 && needs_refill(s, seat, Building::Virki),
        Unit::Godi => p.disks[1] < 2 && needs_refill(s, seat, Building::Hof),
    }
}

/// Sea distance of every sea node from the clan's home harbour (oceans
/// first, then harbours by area).
fn sea_home(s: &State, seat: Seat) -> Vec<u8> {
    let o = s.board.data.oceans.len();
    let idx = |n: SeaNode| match n {
        SeaNode::Ocean(x) => x as usize,
        SeaNode::Harbour(a) => o + a as usize,
    };
    let mut dist = vec![u8::MAX; o + s.board.len()];
    let start = SeaNode::Harbour(s.players[seat as usize].home);
    dist[idx(start)] = 0;
    let mut q = std::collections::VecDeque::from([start]);
    while let Some(x) = q.pop_front() {
        for &y in s.board.sea_next(x) {
            if dist[idx(y)] == u8::MAX {
                dist[idx(y)] = dist[idx(x)].saturating_add(1);
                q.push_back(y);
            }
        }
    }
    dist
}

/// The 2018 rules: whether the Knerrir may claim harbour area `h` now (an
/// empty Barbarian harbour area, not a camp) and the area is worth a recruit.
fn claimable_harbour(s: &State, h: AreaId) -> bool {
    let a = s.board.area(h);
    a.harbour
        && a.kind.ownable()
        && a.kind != AreaKind::Camp
        && s.areas[h as usize].owner.is_none()
        && value(a.kind) > 0
}

/// A sea node's index in [`sea_field`]'s distances (oceans first, then
/// harbours by area).
fn sea_index(s: &State, n: SeaNode) -> usize {
    match n {
        SeaNode::Ocean(x) => x as usize,
        SeaNode::Harbour(a) => s.board.data.oceans.len() + a as usize,
    }
}

/// Sea distance of every sea node from the nearest of `starts`.
fn sea_field(s: &State, starts: impl IntoIterator<Item = SeaNode>) -> Vec<u8> {
    let mut dist = vec![u8::MAX; s.board.data.oceans.len() + s.board.len()];
    let mut q = std::collections::VecDeque::new();
    for n in starts {
        dist[sea_index(s, n)] = 0;
        q.push_back(n);
    }
    while let Some(x) = q.pop_front() {
        let dx = dist[sea_index(s, x)];
        for &y in s.board.sea_next(x) {
            if dist[sea_index(s, y)] == u8::MAX {
                dist[sea_index(s, y)] = dx.saturating_add(1);
                q.push_back(y);
            }
        }
    }
    dist
}

/// Squares one Knerrir card sails the clan.
fn sea_reach(s: &State, seat: Seat) -> u8 {
    (3 + s.players[seat as usize].amount(&s.tiles, Effect::KnerrirPlusTwo)).clamp(0, 255) as u8
}

/// The 2018 rules: the empty harbour area worth having that the clan's
/// Knerrir can reach within two cards, from where it lies (with units
/// aboard) or from a harbour where one of the clan's units stands: the
/// nearest, the most valuable of equals. `None` by the 2014 rules.
fn harbour_goal(s: &State, seat: Seat) -> Option<AreaId> {
    if !s.y2018() {
        return None;
    }
    let p = &s.players[seat as usize];
    let starts: Vec<SeaNode> = match p.ship {
        ShipLoc::At(at) => vec![at],
        ShipLoc::Home => Unit::ALL
            .iter()
            .filter_map(|u| match p.units[u.idx()] {
                Loc::Area(a) if s.board.area(a).harbour => Some(SeaNode::Harbour(a)),
                _ => None,
            })
            .collect(),
    };
    if starts.is_empty() {
        return None;
    }
    let field = sea_field(s, starts);
    let reach = sea_reach(s, seat).saturating_mul(2);
    (0..s.board.len() as AreaId)
        .filter(|h| claimable_harbour(s, *h))
        .map(|h| (field[sea_index(s, SeaNode::Harbour(h))], h))
        .filter(|(d, _)| *d <= reach)
        .min_by_key(|(d, h)| (*d, -value(s.board.area(*h).kind)))
        .map(|(_, h)| h)
}

/// The 2018 rules: the recruit order that keeps a recruit back on the
/// town area at the coming Claim phase, for a harbour claim in the next
/// round, when the Knerrir can reach an empty harbour area worth having:
/// of the orders that leave at least one recruit in town (the Claim phase
/// played on a copy of the position), the one that leaves the fewest; the
/// emptiest-first default when it already leaves one, or when none leaves
/// at most [`MOST_KEPT`]. An order names whole buildings, so it may keep
/// more than the one recruit a claim takes: the rest wait a round.
/// Without a harbour to claim, the default.
fn harbour_recruits(s: &State, seat: Seat) -> Vec<Building> {
    if harbour_goal(s, seat).is_none() {
        return Vec::new();
    }
    use Building::{Hof, Verslun, Virki};
    let lists =
        [vec![], vec![Virki, Hof], vec![Virki, Verslun], vec![Hof, Verslun], vec![Virki], vec![Hof], vec![Verslun]];
    let kept = |list: &Vec<Building>| {
        let mut t = s.clone();
        t.players[seat as usize].orders.recruits = list.clone();
        let mut rng = probe_rng();
        let mut cx = Ctx::new(t, &mut rng);
        super::claim::claim_phase(&mut cx);
        cx.s.players[seat as usize].town
    };
    lists
        .into_iter()
        .map(|l| (kept(&l), l))
        .filter(|(k, _)| (1..=MOST_KEPT).contains(k))
        .min_by_key(|(k, _)| *k)
        .map(|(_, l)| l)
        .unwrap_or_default()
}

/// Recruits the bot keeps waiting a round for one harbour claim, at most.
const MOST_KEPT: u8 = 3;

/// The 2018 rules: how good a sail is for a harbour claim (0: not one):
/// with a recruit in town, to an empty harbour area worth having, or
/// nearer to one with a Knerrir card left to go on; before the sails the
/// units aboard would make for land (22).
fn harbour_sail(s: &State, seat: Seat, route: &[SeaNode], eval: &Eval) -> i32 {
    let p = &s.players[seat as usize];
    if !s.y2018() || p.town == 0 {
        return 0;
    }
    let ShipLoc::At(at) = p.ship else { return 0 };
    if Unit::ALL.iter().any(|u| p.units[u.idx()] == Loc::Aboard && eval.homeward[u.idx()]) {
        return 0;
    }
    let Some(last) = route.last() else { return 0 };
    if let SeaNode::Harbour(h) = last {
        if claimable_harbour(s, *h) {
            return 26 + value(s.board.area(*h).kind);
        }
    }
    if p.hand.get(Card::Knerrir) < 2 {
        return 0;
    }
    let field = sea_field(s, (0..s.board.len() as AreaId).filter(|h| claimable_harbour(s, *h)).map(SeaNode::Harbour));
    let (before, after) = (field[sea_index(s, at)], field[sea_index(s, *last)]);
    if after < before {
        22 + (before.min(20) - after) as i32
    } else {
        0
    }
}

/// The 2018 rules: whether `unit` should board the Knerrir to claim a
/// harbour: a recruit waits in town, the Knerrir is free, the unit is not
/// needed at home nor near land it could take, and an empty harbour area
/// worth having lies within the sail of the Knerrir cards in hand but one
/// (kept for the claim).
fn boards_for_harbour(s: &State, seat: Seat, unit: Unit, disembarked: bool, eval: &Eval) -> bool {
    let p = &s.players[seat as usize];
    if !s.y2018() || disembarked || p.town == 0 || p.ship != ShipLoc::Home || eval.homeward[unit.idx()] {
        return false;
    }
    let Some(a) = s.unit_area(seat, unit) else { return false };
    if eval.dist(unit, a) < 2 {
        return false;
    }
    let field = sea_field(s, [SeaNode::Harbour(a)]);
    let reach = sea_reach(s, seat).saturating_mul(p.hand.get(Card::Knerrir).saturating_sub(1).min(2));
    (0..s.board.len() as AreaId)
        .any(|h| h != a && claimable_harbour(s, h) && field[sea_index(s, SeaNode::Harbour(h))] <= reach)
}

/// The free retreat after a fight ("Attacker can always retreat to entry
/// area without using action"), worth taking when the Berserkur would
/// otherwise stay on an area his clan does not own (its owner's Berserkur
/// could come and defeat him there), when it brings him nearer home when
/// he must go there to refill Virki, or nearer the land he could take
/// next: a step for nothing, where staying gains nothing.
fn retreat_value(s: &State, seat: Seat, eval: &Eval) -> i32 {
    let p = &s.players[seat as usize];
    let Some(a) = s.unit_area(seat, Unit::Berserkur) else { return 0 };
    let Some(back) = p.entered_from[0] else { return 0 };
    // Only after a fight on this area (as version 2 on requires; version 1
    // allowed it without one, which the bot does not use).
    if p.fought != Some(a) {
        return 0;
    }
    if !super::actions::may_enter(s, seat, Unit::Berserkur, back) {
        return 0;
    }
    if s.areas[a as usize].owner != Some(seat) && s.areas[back as usize].owner == Some(seat) {
        return 36;
    }
    if eval.homeward[0] {
        let d = distances(s, seat, Unit::Berserkur, p.home);
        return if d[back as usize] < d[a as usize] { 36 } else { 0 };
    }
    if eval.dist(Unit::Berserkur, back) < eval.dist(Unit::Berserkur, a) {
        12
    } else {
        0
    }
}

/// How good a step looks to the bot (0 or less: not worth a card).
fn score(s: &State, seat: Seat, c: &Command, disembarked: bool, eval: &Eval) -> i32 {
    let p = &s.players[seat as usize];
    match c {
        Command::Attack { claim: true, reinforce } => {
            let Some(a) = s.unit_area(seat, Unit::Berserkur) else { return 0 };
            let enemy_near =
                s.board.land[a as usize].iter().any(|b| matches!(s.areas[*b as usize].owner, Some(o) if o != seat));
            let from_clan = s.areas[a as usize].owner.is_some() as i32;
            50 + value(s.board.area(a).kind) - 3 * from_clan
                + if *reinforce > 0 && enemy_near { 1 } else { -(*reinforce as i32) * 2 }
        }
        // A fight without a claim: the enemy Berserkur on an own area, who
        // would attack it, is driven off.
        Command::Attack { claim: false, .. } => {
            let Some(a) = s.unit_area(seat, Unit::Berserkur) else { return 0 };
            if s.areas[a as usize].owner == Some(seat) {
                45
            } else {
                0
            }
        }
        Command::Convert => 55 + s.unit_area(seat, Unit::Godi).map(|a| value(s.board.area(a).kind)).unwrap_or(0),
        Command::BuyLand => 55 + s.unit_area(seat, Unit::Kaupmadur).map(|a| value(s.board.area(a).kind)).unwrap_or(0),
        Command::Trade { deals, refill } => 20 * refill.len() as i32 + 5 * deals.len() as i32,
        Command::Refill { .. } => 40,
        // An upgrade's free action is worth its step, and saves a card.
        Command::Free { step, .. } => match score(s, seat, step, disembarked, eval) {
            0 => 0,
            v => v + 1,
        },
        // Forced trade: surplus goods sold at another clan's unguarded home,
        // the way to gold of a clan that lacks it.
        Command::Move { unit: Unit::Kaupmadur, to }
            if s.forced_trade
                && s.home_seat(*to).is_some_and(|o| o != seat && s.players[o as usize].gold > 0)
                && s.areas[*to as usize].axes == 0
                && p.goods[..4].iter().any(|g| *g >= 4) =>
        {
            if eval.short {
                33
            } else {
                9
            }
        }
        // To an own area where an enemy Berserkur stands, to fight him.
        Command::Move { unit: Unit::Berserkur, to }
            if s.areas[*to as usize].owner == Some(seat) && !eval.homeward[0] && {
                let (bers, _, _) = super::actions::berserkur::attack_cost(s, seat, *to);
                !bers.is_empty() && bers.iter().map(|b| b.1).sum::<u8>() < p.disks[0]
            } =>
        {
            28
        }
        Command::Move { unit, to } => {
            let Some(from) = s.unit_area(seat, *unit) else { return 0 };
            let home = p.home;
            if eval.homeward[unit.idx()] {
                let (h_from, h_to) = (eval.home[unit.idx()][from as usize], eval.home[unit.idx()][*to as usize]);
                return if *to == home {
                    35
                } else if h_to < h_from {
                    15 + (h_from.min(20) - h_to) as i32
                } else {
                    0
                };
            }
            if takeable(s, seat, *unit, *to) && !(*unit != Unit::Berserkur && s.areas[*to as usize].owner.is_some()) {
                // A clan short of gold goes for gold mines and villages first.
                let kind = s.board.area(*to).kind;
                let gold = eval.short && matches!(kind, AreaKind::GoldMine | AreaKind::Village);
                return 30 + value(kind) + 4 * gold as i32;
            }
            let here = eval.dist(*unit, from);
            let there = eval.dist(*unit, *to);
            if there < here && there != u8::MAX {
                return 10 + (here.min(20) - there) as i32;
            }
            if *unit == Unit::Godi
                && s.areas[*to as usize].owner == Some(seat)
                && s.areas[from as usize].owner != Some(seat)
            {
                return 8;
            }
            0
        }
        // The 2018 rules: aboard to claim a harbour with a recruit from town.
        Command::Board { unit } if boards_for_harbour(s, seat, *unit, disembarked, eval) => 18,
        Command::Board { unit } => {
            let Some(a) = s.unit_area(seat, *unit) else { return 0 };
            if eval.homeward[unit.idx()] {
                return if eval.home[unit.idx()][a as usize] == u8::MAX { 20 } else { 0 };
            }
            if disembarked || eval.dist(*unit, a) != u8::MAX {
                return 0;
            }
            20
        }
        Command::Disembark { unit } => {
            let ShipLoc::At(SeaNode::Harbour(h)) = p.ship else { return 0 };
            if !super::actions::may_enter(s, seat, *unit, h) {
                return 0;
            }
            if eval.homeward[unit.idx()] {
                return if h == p.home || eval.home[unit.idx()][h as usize] != u8::MAX { 30 } else { 0 };
            }
            if eval.dist(*unit, h) != u8::MAX || takeable(s, seat, *unit, h) {
                25
            } else {
                0
            }
        }
        // The 2018 rules: to an empty harbour area, to claim it.
        Command::Sail { route, sea_rune: false } if harbour_sail(s, seat, route, eval) > 0 => {
            harbour_sail(s, seat, route, eval)
        }
        Command::Sail { route, .. } => {
            let homeward = Unit::ALL.iter().any(|u| p.units[u.idx()] == Loc::Aboard && eval.homeward[u.idx()]);
            if homeward {
                let sea = sea_home(s, seat);
                let o = s.board.data.oceans.len();
                let idx = |n: &SeaNode| match n {
                    SeaNode::Ocean(x) => *x as usize,
                    SeaNode::Harbour(a) => o + *a as usize,
                };
                let ShipLoc::At(at) = p.ship else { return 0 };
                let (before, after) = (sea[idx(&at)], route.last().map(|n| sea[idx(n)]).unwrap_or(u8::MAX));
                return if after < before { 25 + (before.min(30) - after) as i32 } else { 0 };
            }
            let Some(SeaNode::Harbour(h)) = route.last() else {
                return 1 + route.len() as i32;
            };
            let units: Vec<Unit> = Unit::ALL.into_iter().filter(|u| p.units[u.idx()] == Loc::Aboard).collect();
            let good = units.iter().any(|u| takeable(s, seat, *u, *h) || eval.dist(*u, *h) <= 2)
                && units.iter().any(|u| super::actions::may_enter(s, seat, *u, *h));
            if good {
                22
            } else {
                0
            }
        }
        Command::Cast { casts } => {
            if p.bought_runes {
                0
            } else if casts.iter().all(|c| c.rune.is_curse()) {
                10
            } else {
                15
            }
        }
        Command::BuyRunes { .. } if p.gold >= 5 => 12,
        Command::RemoveRune { rune } => {
            let Some(a) = s.unit_area(seat, Unit::Godi) else { return 0 };
            if rune.is_curse() && s.areas[a as usize].owner == Some(seat) && p.gold >= 2 {
                12
            } else {
                0
            }
        }
        Command::Retreat => retreat_value(s, seat, eval),
        Command::ForceTrade { .. } if eval.short => 40,
        Command::ForceTrade { .. } => 10,
        // The 2018 rules (only they offer the claim): an area for a recruit,
        // before any unit aboard disembarks and the Knerrir goes home.
        Command::ClaimHarbour => match p.ship {
            ShipLoc::At(SeaNode::Harbour(h)) => 31 + value(s.board.area(h).kind),
            _ => 0,
        },
        // The 2018 rules: strengthening defences is free once a round.
        Command::Rearrange { moves }
            if s.y2018()
                && !p.round_free[crate::rules2018::RoundFree::Strengthen.idx()]
                && moves.iter().all(|m| m.to != super::state::DiskSpot::Town) =>
        {
            6
        }
        _ => 0,
    }
}

/// What the target fields of `seat` depend on: the areas, its disks, and
/// where the other clans' Berserkur stand (they defend their areas).
#[derive(PartialEq)]
struct FieldKey(Vec<AreaState>, [u8; 3], Vec<Option<Loc>>);

impl FieldKey {
    fn of(s: &State, seat: Seat) -> FieldKey {
        let others = s.players.iter().enumerate().map(|(i, p)| (i != seat as usize).then_some(p.units[0]));
        FieldKey(s.areas.clone(), s.players[seat as usize].disks, others.collect())
    }
}

/// The bot's turn, as a list of steps (the plan first in the easier variant).
pub fn bot_turn(s: &State, seat: Seat) -> Vec<Command> {
    turn(s, seat, None)
}

/// Every step of a turn the rules accept from `seat` now: the steps `legal`
/// lists, and the bot's own candidates of the families `legal` offers only
/// as templates (forced trade, the upgrades' free actions, disks moved from
/// one own area to another).
pub fn random_steps(s: &State, seat: Seat) -> Vec<Command> {
    let mut out: Vec<Command> = Vec::new();
    for c in super::legal::steps(s, seat).into_iter().chain(candidates(s, seat)) {
        if is_step(&c) && !out.contains(&c) && accepted(s, seat, &c) {
            out.push(c);
        }
    }
    out
}

/// The bot's command with a share of random legal moves among its sensible
/// ones, for bot games that reach every command family (playouts): a plan
/// in `share` is a random hand, and before each step of a turn one time in
/// `share` a random one of [`random_steps`] is taken instead of the bot's
/// choice. The timeout fallback ([`command`]) never plays at random.
pub fn exploring(s: &State, seat: Seat, pick: &mut Pick, share: usize) -> Option<Command> {
    match s.phase {
        Phase::Planning if s.waits_for(seat) && !s.players[seat as usize].planned => {
            let hand = if pick.next(share) == 0 {
                let all = plans(s);
                match &all[pick.next(all.len())] {
                    Command::Plan { hand } => *hand,
                    _ => bot_hand(s, seat),
                }
            } else {
                bot_hand(s, seat)
            };
            Some(Command::Plan { hand })
        }
        Phase::Action if s.waits_for(seat) => Some(Command::PlayTurn { steps: turn(s, seat, Some((pick, share))) }),
        _ => command(s, seat),
    }
}

fn turn(s: &State, seat: Seat, mut explore: Option<(&mut Pick, usize)>) -> Vec<Command> {
    let mut rng = probe_rng();
    let mut cx = Ctx::new(s.clone(), &mut rng);
    let mut steps = Vec::new();
    let push = |cx: &mut Ctx, steps: &mut Vec<Command>, c: Command| -> bool {
        let mut trial = Ctx::new(cx.s.clone(), &mut *cx.rng);
        if run(&mut trial, seat, &c).is_ok() {
            cx.s = trial.s;
            steps.push(c);
            true
        } else {
            false
        }
    };
    // A clan's own standing orders come first: the bot sets its orders only
    // for a clan that has none, or whose orders are the bot's own (their
    // build list partly used up).
    let mut orders = bot_orders(&cx.s);
    let current = &cx.s.players[seat as usize].orders;
    // The 2018 rules: the recruit order is the bot's own choice too (it
    // keeps a recruit back for a harbour claim), decided at the turn's end.
    let y2018 = cx.s.y2018();
    if y2018 {
        orders.recruits = current.recruits.clone();
    }
    let ours = *current == Orders::default() || is_bots(current, &orders, &bot_wishes(&cx.s, true));
    if let Some((pick, share)) = explore.as_mut().filter(|_| ours) {
        // Exploring: now and then a build order in a random order (kept
        // from then on, as a clan's own orders are), so every upgrade is built.
        if pick.next(*share) == 0 {
            for k in (1..orders.build.len()).rev() {
                orders.build.swap(k, pick.next(k + 1));
            }
        }
    }
    if *current != orders && ours {
        push(&mut cx, &mut steps, Command::SetOrders { orders });
    }
    if cx.s.easy_cards && !cx.s.players[seat as usize].planned {
        let hand = bot_hand(&cx.s, seat);
        push(&mut cx, &mut steps, Command::Plan { hand });
    }
    let mut disembarked = false;
    // Runes bought are drawn at random when the turn is played: after a
    // purchase the bot does not know what it holds, so it casts no rune
    // (nor sails with one) for the rest of the turn.
    let mut bought = false;
    let known = |bought: bool, c: &Command| {
        let uses_rune = |c: &Command| matches!(c, Command::Cast { .. } | Command::Sail { sea_rune: true, .. });
        !bought || !(uses_rune(c) || matches!(c, Command::Free { step, .. } if uses_rune(step)))
    };
    let home = cx.s.players[seat as usize].home;
    let home_d = Unit::ALL.map(|u| distances(&cx.s, seat, u, home));
    let mut fields: Option<(FieldKey, [Vec<u8>; 3])> = None;
    for _ in 0..40 {
        if let Some((pick, share)) = explore.as_mut() {
            if pick.next(*share) == 0 {
                let options: Vec<Command> =
                    random_steps(&cx.s, seat).into_iter().filter(|c| known(bought, c)).collect();
                if !options.is_empty() {
                    let c = options[pick.next(options.len())].clone();
                    disembarked |= matches!(c, Command::Disembark { .. });
                    bought |= matches!(c, Command::BuyRunes { .. });
                    push(&mut cx, &mut steps, c);
                    continue;
                }
            }
        }
        // The target fields change only when the board, the clan's disks or
        // the other clans' Berserkur do (not when the clan's units move).
        let key = FieldKey::of(&cx.s, seat);
        let field = match &fields {
            Some((k, f)) if *k == key => f.clone(),
            _ => {
                let f = Unit::ALL.map(|u| target_field(&cx.s, seat, u));
                fields = Some((key, f.clone()));
                f
            }
        };
        let eval = Eval::with_fields(&cx.s, seat, home_d.clone(), field);
        let mut cands: Vec<(i32, Command)> = bot_candidates(&cx.s, seat)
            .into_iter()
            .filter(|c| is_step(c) && known(bought, c))
            .map(|c| (score(&cx.s, seat, &c, disembarked, &eval), c))
            .filter(|(v, _)| *v > 0)
            .collect();
        cands.sort_by_key(|(v, _)| std::cmp::Reverse(*v));
        let mut done = false;
        for (_, c) in cands {
            let is_dis = matches!(c, Command::Disembark { .. });
            let buys = matches!(c, Command::BuyRunes { .. });
            if push(&mut cx, &mut steps, c) {
                disembarked |= is_dis;
                bought |= buys;
                done = true;
                break;
            }
        }
        if !done {
            // Nothing left worth a card: two of the cards left for one
            // that has a use, if any has.
            let exchanged = exchange_step(&cx.s, seat, disembarked, bought, &home_d);
            if !exchanged.is_some_and(|c| push(&mut cx, &mut steps, c)) {
                break;
            }
        }
    }
    // At least one card: the first playable one, exchanging if need be.
    for _ in 0..4 {
        if cx.s.players[seat as usize].played.total() > 0 {
            break;
        }
        let any = card_steps(&cx.s, seat).find(|c| !matches!(c, Command::Exchange { .. }));
        if let Some(c) = any {
            push(&mut cx, &mut steps, c);
            break;
        }
        let ex = candidates(&cx.s, seat)
            .into_iter()
            .find(|c| matches!(c, Command::Exchange { take: Card::Kaupmadur, .. }) && accepted(&cx.s, seat, c));
        match ex {
            Some(c) => {
                push(&mut cx, &mut steps, c);
            }
            None => break,
        }
    }
    // The 2018 rules: a recruit kept back on the town area for a harbour
    // claim next round, judged from the position the turn leaves.
    if y2018 && ours {
        let mut orders = cx.s.players[seat as usize].orders.clone();
        let recruits = harbour_recruits(&cx.s, seat);
        if orders.recruits != recruits {
            orders.recruits = recruits;
            push(&mut cx, &mut steps, Command::SetOrders { orders });
        }
    }
    steps
}

/// What a step from an exchanged card must be worth (a move towards land
/// to take, at least) for the bot to exchange.
const EXCHANGE_WORTH: i32 = 10;

/// The 2-for-1 exchange ("exchange 2 cards for 1 of your choice") worth
/// making when no step is worth a card: the cards left in hand would go
/// unused at the end of the turn, so two of them (of the types held most)
/// for one of the type whose best accepted step is worth most, when that
/// is worth [`EXCHANGE_WORTH`]. `bought`: runes were bought this turn, so
/// none is cast (the bot does not know which it drew).
fn exchange_step(s: &State, seat: Seat, disembarked: bool, bought: bool, home: &[Vec<u8>; 3]) -> Option<Command> {
    let p = &s.players[seat as usize];
    let uses_rune = |c: &Command| match c {
        Command::Cast { .. } | Command::Sail { sea_rune: true, .. } => true,
        Command::Free { step, .. } => matches!(**step, Command::Cast { .. } | Command::Sail { sea_rune: true, .. }),
        _ => false,
    };
    let mut best: Option<(i32, Command)> = None;
    for take in Card::ALL {
        let mut h = p.hand;
        let mut discard = Vec::new();
        for _ in 0..2 {
            let Some(c) = Card::ALL.into_iter().filter(|c| *c != take && h.get(*c) > 0).max_by_key(|c| h.get(*c))
            else {
                break;
            };
            h.add(c, -1);
            discard.push(c);
        }
        let [a, b] = discard[..] else { continue };
        let ex = Command::Exchange { discard: [a, b], take };
        let mut rng = probe_rng();
        let mut trial = Ctx::new(s.clone(), &mut rng);
        if run(&mut trial, seat, &ex).is_err() {
            continue;
        }
        let t = trial.s;
        let eval = Eval::with_home(&t, seat, home.clone());
        let mut scored: Vec<(i32, Command)> = bot_candidates(&t, seat)
            .into_iter()
            .filter(|c| is_step(c) && !matches!(c, Command::Exchange { .. }) && !(bought && uses_rune(c)))
            .map(|c| (score(&t, seat, &c, disembarked, &eval), c))
            .filter(|(v, _)| *v >= EXCHANGE_WORTH && best.as_ref().is_none_or(|b| *v > b.0))
            .collect();
        scored.sort_by_key(|(v, _)| std::cmp::Reverse(*v));
        if let Some((v, _)) = scored.into_iter().find(|(_, c)| accepted(&t, seat, c)) {
            best = Some((v, ex));
        }
    }
    best.map(|b| b.1)
}

/// The bot's command now (the timeout fallback).
pub fn command(s: &State, seat: Seat) -> Option<Command> {
    if !s.waits_for(seat) {
        return None;
    }
    match s.phase {
        // A clan that already chose keeps its plan.
        Phase::Planning if s.players[seat as usize].planned => {
            let p = &s.players[seat as usize];
            Some(match &p.program {
                Some(steps) => Command::Program { hand: p.hand, steps: steps.clone() },
                None => Command::Plan { hand: p.hand },
            })
        }
        Phase::Planning => {
            let hand = bot_hand(s, seat);
            let steps = bot_program(s, seat, hand);
            Some(if steps.is_empty() { Command::Plan { hand } } else { Command::Program { hand, steps } })
        }
        Phase::Action => Some(Command::PlayTurn { steps: bot_turn(s, seat) }),
        // Asked at the moment: the clan's orders as they stand.
        Phase::Deciding => Some(Command::SetOrders { orders: s.players[seat as usize].orders.clone() }),
        _ => None,
    }
}

/// The bot's program for its coming turn, written at plan time from the
/// position it sees then (nothing of the other clans' programs): the turn it
/// would play if its turn began now, each step skipped when the rules refuse
/// it by the time the turn comes.
pub fn bot_program(s: &State, seat: Seat, hand: Hand) -> Vec<ProgramStep> {
    if s.phase != Phase::Planning || s.easy_cards {
        return Vec::new();
    }
    let mut now = s.clone();
    for p in &mut now.players {
        p.program = None;
    }
    super::state::apply(&mut now, &Event::PlanChosen { seat, hand: Some(hand), program: None });
    super::state::apply(&mut now, &Event::TurnBegan { seat, hand: Some(hand) });
    // A program holds at most so many steps; the turn ends after them.
    bot_turn(&now, seat)
        .into_iter()
        .take(super::program::MAX_STEPS)
        .map(|step| ProgramStep { step, fallback: Fallback::Skip })
        .collect()
}
