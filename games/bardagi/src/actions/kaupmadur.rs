//! Kaupmadur ("Kaupmadur", "Trade", "Villages", "More advanced play
//! options"): buys a Barbarian area (not a camp) for two Verslun disks (one
//! claims it) and gets one good of the area type once; trades by the trade
//! table with one card at home or in a village (not one with another clan's
//! axe, which he cannot enter anyway); at home one card trades and refills
//! any buildings; with the Messenger upgrade home actions are done from
//! anywhere and one is free each round; a Kaupmadur standing on a village
//! at the Claim phase earns 1 gold (see `claim`). Forced trade (advanced):
//! at another clan's home without an axe he sells goods for its gold.
//!
//! The trade table: basic goods (timber, wool, meat, hide) 1 for 1 among
//! themselves, mine goods (stone, iron) likewise; 2 basic for 1 mine and 1
//! mine for 2 basic; 4 basic for 1 gold and 8 for 3; 2 mine for 1 gold and 4
//! for 3; 1 gold buys 2 basic or 1 mine good.

use super::super::board::AreaKind;
use super::super::build::Effect;
use super::super::planning::{require_turn, use_card};
use super::super::rules2018::RoundFree;
use super::super::state::{Building, Deal, Event, Good, GoodChoice, Loc, Unit};
use super::super::Ctx;
use super::berserkur::after_takeover;
use super::refill_building;
use runestone_engine::game::{RuleError, Seat};
use runestone_engine::reject;

/// Gold the trade table pays for goods sold together (`None`: not a lot the
/// table buys).
pub fn sell_value(give: &[Good]) -> Option<i32> {
    let basic = give.iter().all(|g| g.is_basic());
    let mine = give.iter().all(|g| !g.is_basic());
    match (give.len(), basic, mine) {
        (4, true, _) => Some(1),
        (8, true, _) => Some(3),
        (2, _, true) => Some(1),
        (4, _, true) => Some(3),
        _ => None,
    }
}

/// The goods change of a list of deals (gold apart).
pub fn goods_delta(deals: &[Deal]) -> [i8; 6] {
    let mut d = [0i8; 6];
    for deal in deals {
        match deal {
            Deal::Swap { give, get } => {
                d[give.idx()] -= 1;
                d[get.idx()] += 1;
            }
            Deal::BasicForMine { give, get } => {
                d[give[0].idx()] -= 1;
                d[give[1].idx()] -= 1;
                d[get.idx()] += 1;
            }
            Deal::MineForBasic { give, get } => {
                d[give.idx()] -= 1;
                d[get[0].idx()] += 1;
                d[get[1].idx()] += 1;
            }
            Deal::Sell { give } => {
                for g in give {
                    d[g.idx()] -= 1;
                }
            }
            Deal::Buy { get } => {
                for g in get {
                    d[g.idx()] += 1;
                }
            }
            Deal::Tannery { hide } => d[Good::Hide.idx()] -= *hide as i8,
        }
    }
    d
}

/// Check deals against the table and the storage; the gold change.
pub fn check_deals(cx: &Ctx, seat: Seat, deals: &[Deal]) -> Result<i32, RuleError> {
    let p = &cx.s.players[seat as usize];
    let mut goods: [i32; 6] = p.goods.map(|g| g as i32);
    let mut gold = p.gold;
    let mut tannery = p.tannery;
    for (i, deal) in deals.iter().enumerate() {
        let k = i + 1;
        match deal {
            Deal::Swap { give, get } => {
                if give.is_basic() != get.is_basic() || give == get {
                    reject!("deal {k}: 1 for 1 swaps are within basic goods or within mine goods, of different goods");
                }
            }
            Deal::BasicForMine { give, get } => {
                if !give[0].is_basic() || !give[1].is_basic() || get.is_basic() {
                    reject!("deal {k}: two basic goods buy one stone or iron");
                }
            }
            Deal::MineForBasic { give, get } => {
                if give.is_basic() || !get[0].is_basic() || !get[1].is_basic() {
                    reject!("deal {k}: one stone or iron buys two basic goods");
                }
            }
            Deal::Sell { give } => match sell_value(give) {
                Some(v) => gold += v,
                None => reject!("deal {k}: the table buys 4 or 8 basic goods, or 2 or 4 mine goods, of one group"),
            },
            Deal::Buy { get } => {
                let ok = (get.len() == 2 && get.iter().all(|g| g.is_basic())) || (get.len() == 1 && !get[0].is_basic());
                if !ok {
                    reject!("deal {k}: 1 gold buys 2 basic goods or 1 mine good");
                }
                gold -= 1;
            }
            Deal::Tannery { hide } => {
                if !p.has(&cx.s.tiles, Effect::HideForGold) {
                    reject!("deal {k}: selling hide 1 for 1 needs the Tannery upgrade");
                }
                let most = p.best(&cx.s.tiles, Effect::HideForGold).unwrap_or(0);
                if *hide == 0 || tannery as u32 + *hide as u32 > most as u32 {
                    reject!("deal {k}: the Tannery takes up to {most} hide a turn ({tannery} sold already)");
                }
                tannery += hide;
                gold += *hide as i32;
            }
        }
        let d = goods_delta(std::slice::from_ref(deal));
        for g in Good::ALL {
            goods[g.idx()] += d[g.idx()] as i32;
            if goods[g.idx()] < 0 {
                reject!("deal {k}: not enough {} in storage", g.name());
            }
        }
        if gold < 0 {
            reject!("deal {k}: not enough gold");
        }
    }
    let cap = p.storage(&cx.s.tiles) as i32;
    if let Some(g) = Good::ALL.iter().find(|g| goods[g.idx()] > cap && goods[g.idx()] > p.goods[g.idx()] as i32) {
        reject!("the storage holds at most {cap} {}", g.name());
    }
    Ok(gold - p.gold)
}

/// The one good bought land gives (gold and recruits apart).
fn bonus_good(cx: &Ctx, seat: Seat, kind: AreaKind) -> Option<Good> {
    let p = &cx.s.players[seat as usize];
    let pick = |choice: GoodChoice, other: Good| match choice {
        GoodChoice::Meat => Good::Meat,
        GoodChoice::Other => other,
        GoodChoice::Auto if p.goods[Good::Meat.idx()] < p.goods[other.idx()] => Good::Meat,
        GoodChoice::Auto => other,
    };
    match kind {
        AreaKind::Forest => Some(Good::Timber),
        AreaKind::Sheep => Some(pick(p.orders.sheep, Good::Wool)),
        AreaKind::Cattle => Some(pick(p.orders.cattle, Good::Hide)),
        AreaKind::Quarry => Some(Good::Stone),
        AreaKind::IronMine => Some(Good::Iron),
        _ => None,
    }
}

/// Buy the Barbarian area the Kaupmadur stands on.
pub fn buy_land(cx: &mut Ctx, seat: Seat) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    let Some(a) = cx.s.unit_area(seat, Unit::Kaupmadur) else { reject!("the Kaupmadur is not on an area") };
    let area = cx.s.board.area(a);
    if !area.kind.ownable() || area.kind == AreaKind::Camp {
        reject!("the Kaupmadur cannot buy {}", area.name);
    }
    if cx.s.areas[a as usize].owner.is_some() {
        reject!("the Kaupmadur buys only from Barbarians; {} is owned by a clan", area.name);
    }
    let verslun = cx.s.players[seat as usize].disks[2];
    if verslun < 2 {
        reject!("buying land costs 2 disks from Verslun, which holds {verslun}");
    }
    let kind = area.kind;
    use_card(cx, seat, Unit::Kaupmadur.card())?;
    cx.emit(Event::AreaOvertaken {
        seat,
        area: a,
        from: None,
        by: Unit::Kaupmadur,
        spent: 1,
        placed: 1,
        recruit: false,
    });
    after_takeover(cx, seat, a, None);
    match kind {
        AreaKind::GoldMine => cx.gold(seat, 1),
        AreaKind::Village => {
            if cx.s.players[seat as usize].supply > 0 {
                cx.emit(Event::RecruitsGained { seat, count: 1, reason: "village bought".into() });
            }
        }
        _ => {
            if let Some(g) = bonus_good(cx, seat, kind) {
                let p = &cx.s.players[seat as usize];
                if p.goods[g.idx()] < p.storage(&cx.s.tiles) {
                    let mut d = [0i8; 6];
                    d[g.idx()] = 1;
                    cx.emit(Event::GoodsChanged { seat, delta: d, reason: "bonus for land bought".into() });
                }
            }
        }
    }
    Ok(())
}

/// Trade (and at home refill) with one card.
pub fn trade(cx: &mut Ctx, seat: Seat, deals: &[Deal], refill: &[Building]) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    if deals.is_empty() && refill.is_empty() {
        reject!("name deals to make or buildings to refill");
    }
    let p = &cx.s.players[seat as usize];
    let anywhere = p.has(&cx.s.tiles, Effect::HomeActionAnywhere);
    let here = p.units[2];
    // Version 2: "Units on board Knerrir are inactive while sailing", the
    // Messenger's home actions from anywhere included.
    if cx.s.v2() && here == Loc::Aboard {
        reject!("the Kaupmadur is on board the Knerrir; units on board are inactive until they go ashore");
    }
    let at_home = here == Loc::Area(p.home);
    let in_village = matches!(here, Loc::Area(a) if cx.s.board.area(a).kind == AreaKind::Village);
    let home_action = at_home || (anywhere && !in_village) || !refill.is_empty();
    if home_action && !at_home && !anywhere {
        reject!("the Kaupmadur refills only at the home area");
    }
    if !home_action && !in_village {
        reject!("the Kaupmadur trades at the home area or in a village");
    }
    if let (false, Loc::Area(a)) = (home_action, here) {
        let st = cx.s.areas[a as usize];
        if st.axes > 0 && st.owner != Some(seat) {
            reject!("an axe of another clan guards {}: no trade there", cx.s.board.area(a).name);
        }
    }
    for (i, b) in refill.iter().enumerate() {
        if refill[..i].contains(b) {
            reject!("{} is named twice", b.name());
        }
    }
    let gold = check_deals(cx, seat, deals)?;
    if cx.s.v7() && !deals.is_empty() {
        refill_from_storage(cx, seat, deals, refill)?;
    }
    let p = &cx.s.players[seat as usize];
    let chosen = matches!(cx.free, Some((Effect::HomeActionAnywhere, _)));
    let no_card = p.hand.get(super::super::state::Card::Kaupmadur) == 0;
    // The 2018 rules: "Trade & refill disks in Home areas - Free action,
    // once per round", standing at home (unless the Messenger was chosen).
    if cx.s.y2018() && at_home && !chosen && !p.round_free[RoundFree::HomeTrade.idx()] {
        cx.emit(Event::RoundFreeUsed { seat, action: RoundFree::HomeTrade });
    } else if home_action && anywhere && (chosen || no_card) && !p.free_used[2] {
        cx.free = None;
        cx.emit(Event::FreeActionUsed { seat, effect: Effect::HomeActionAnywhere });
    } else {
        use_card(cx, seat, Unit::Kaupmadur.card())?;
    }
    if !deals.is_empty() {
        cx.emit(Event::Traded { seat, deals: deals.to_vec() });
        cx.gold(seat, gold);
    }
    for b in refill {
        // Version 2: "The defeated Berserkur can only be re-activated through
        // a Virki disk re-fill action by the Kaupmadur": that refill is
        // never refused for a full Virki, or he could be stranded for good.
        let fallen = *b == Building::Virki && cx.s.players[seat as usize].units[0] == Loc::Fallen;
        refill_building(cx, seat, *b, fallen && cx.s.v2())?;
        if fallen {
            let home = cx.s.players[seat as usize].home;
            cx.emit(Event::BerserkurReturned { seat, area: home });
        }
    }
    Ok(())
}

/// Version 7: "Kaupmadur can trade AND / OR refill ... with one card at his
/// home area. The goods need to be available for trade and refill at his
/// storage to do this": the goods a card's deals give and its refills pay
/// must all be in storage before it, so a refill never pays with goods the
/// same card just traded for (that takes a second card, as the book's
/// example does).
fn refill_from_storage(cx: &Ctx, seat: Seat, deals: &[Deal], refill: &[Building]) -> Result<(), RuleError> {
    let p = &cx.s.players[seat as usize];
    let mut left: [i32; 6] = p.goods.map(|g| g as i32);
    for deal in deals {
        // Only what the deals give up counts; what they bring comes too late.
        for (g, d) in left.iter_mut().zip(goods_delta(std::slice::from_ref(deal))) {
            *g += (d as i32).min(0);
        }
    }
    for b in refill {
        let g = b.refill_good();
        if left[g.idx()] < 4 {
            reject!(
                "refilling {} costs 4 {} from storage, and the storage holds {} besides what the deals give; \
                 goods traded for with this card cannot pay for its refills (trade with one card, refill with another)",
                b.name(),
                g.name(),
                left[g.idx()].max(0)
            );
        }
        left[g.idx()] -= 4;
    }
    Ok(())
}

/// Advanced option: sell goods for another clan's gold at its home area.
pub fn force_trade(cx: &mut Ctx, seat: Seat, victim: Seat, give: &[Good]) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    if !cx.s.forced_trade {
        reject!("forced trade is an advanced option not used in this game");
    }
    if victim as usize >= cx.s.n() || victim == seat {
        reject!("name another clan's seat");
    }
    let home = cx.s.players[victim as usize].home;
    if cx.s.unit_area(seat, Unit::Kaupmadur) != Some(home) {
        reject!("the Kaupmadur forces a trade only standing at that clan's home area");
    }
    if cx.s.areas[home as usize].axes > 0 {
        reject!("an axe guards that home area against forced trade");
    }
    let Some(value) = sell_value(give) else {
        reject!("the table buys 4 or 8 basic goods, or 2 or 4 mine goods, of one group");
    };
    let mut goods = cx.s.players[seat as usize].goods;
    for g in give {
        if goods[g.idx()] == 0 {
            reject!("not enough {} in storage", g.name());
        }
        goods[g.idx()] -= 1;
    }
    let paid = value.min(cx.s.players[victim as usize].gold);
    if paid <= 0 {
        reject!("that clan has no gold to pay");
    }
    use_card(cx, seat, Unit::Kaupmadur.card())?;
    cx.emit(Event::TradeForced { seat, victim, give: give.to_vec() });
    cx.gold(seat, paid);
    cx.gold(victim, -paid);
    Ok(())
}
