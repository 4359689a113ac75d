//! Claim phase ("4. Claim phase", "Resources", "Glory", "Godi", "Runes",
//! "Barbarian camp"), all clans at once, resolved from standing orders:
//!
//! A) glory: 1 per owned area, plus upgrade glory (the instant ±1 for
//!    villages and gold mines taken from or lost to clans happened during
//!    the turns).
//! B) resources: each owned area gives 1 of its type (sheep: wool or meat,
//!    cattle: hide or meat, by standing order), +1 with the owner's Godi on
//!    it, +1 Divine token, +2 Twice the resource; nothing with another
//!    clan's Godi on it (and no axe) or a No resources curse; to the caster
//!    under Theirs are yours. Storage holds 5 (8 with the Storehouse) of
//!    each good; the rest is lost. Gold mines give gold, villages recruits,
//!    a Kaupmadur on a village 1 gold, upgrades their gold, glory, recruits
//!    and runes; one axe per owned camp may be bought for 1 gold.
//! C) recruits go onto buildings within their limits (the rest waits on the
//!    town area), axes onto areas; cards return, the round marker advances
//!    and the starting player token passes left (see `planning`).

use super::board::AreaKind;
use super::build::Effect;
use super::rules2018;
use super::state::{AxeOrder, Building, Event, Good, GoodChoice, Loc, RuneKind, Unit};
use super::Ctx;
use runestone_engine::game::Seat;

/// What one clan receives.
#[derive(Clone, Debug, Default)]
struct Income {
    /// Produced units per area kind and meat choice: goods by index.
    goods: [u32; 6],
    /// Units from sheep (wool or meat) and cattle (hide or meat) to split.
    sheep: u32,
    cattle: u32,
    gold: i32,
    recruits: u32,
    glory: i32,
    runes: u32,
}

/// The whole Claim phase.
pub fn claim_phase(cx: &mut Ctx) {
    let n = cx.s.n();
    let mut inc = vec![Income::default(); n];
    let s = &cx.s;
    for (a, st) in s.areas.iter().enumerate() {
        let Some(owner) = st.owner else { continue };
        let area = s.board.area(a as u8);
        inc[owner as usize].glory += 1;
        let godi_of = |seat: Seat| s.players[seat as usize].units[Unit::Godi.idx()] == Loc::Area(a as u8);
        let blocked = (0..n as Seat).any(|o| o != owner && godi_of(o)) && st.axes == 0;
        if blocked || st.has_rune(RuneKind::NoResources) {
            continue;
        }
        // The 2018 rules: a gold mine gives 2 gold, and the owner's Godi
        // gives 1 recruit from his area instead of +1 resource.
        let mut amount = if s.y2018() && area.kind == AreaKind::GoldMine { rules2018::GOLD_MINE_GOLD } else { 1 };
        if godi_of(owner) {
            if s.y2018() {
                inc[owner as usize].recruits += 1;
            } else {
                amount += 1;
            }
        }
        if st.has_rune(RuneKind::Divine) {
            amount += 1;
        }
        if st.has_rune(RuneKind::Twice) {
            amount += 2;
        }
        let to = match (st.has_rune(RuneKind::TheirsAreYours), st.caster) {
            (true, Some(c)) if c != owner => c,
            _ => owner,
        } as usize;
        match area.kind {
            AreaKind::Forest => inc[to].goods[Good::Timber.idx()] += amount,
            AreaKind::Quarry => inc[to].goods[Good::Stone.idx()] += amount,
            AreaKind::IronMine => inc[to].goods[Good::Iron.idx()] += amount,
            AreaKind::Sheep => inc[to].sheep += amount,
            AreaKind::Cattle => inc[to].cattle += amount,
            AreaKind::GoldMine => inc[to].gold += amount as i32,
            AreaKind::Village => inc[to].recruits += amount,
            AreaKind::Camp | AreaKind::Home | AreaKind::Sacred => {}
        }
    }
    for (seat, p) in s.players.iter().enumerate() {
        let seat8 = seat as Seat;
        let count_kind = |k: AreaKind| s.owned(seat8).filter(|a| s.board.area(*a).kind == k).count() as i32;
        let i = &mut inc[seat];
        if let Loc::Area(a) = p.units[Unit::Kaupmadur.idx()] {
            if s.board.area(a).kind == AreaKind::Village {
                i.gold += 1;
            }
        }
        // Each effect's amount is its tiles' (`upgrades.toml`), added up.
        let c = |e: Effect| p.amount(&s.tiles, e);
        i.glory += c(Effect::GloryPerIronMine) * count_kind(AreaKind::IronMine);
        i.glory += c(Effect::GloryPerCattle) * count_kind(AreaKind::Cattle);
        i.glory += c(Effect::GloryPerQuarry) * count_kind(AreaKind::Quarry);
        i.glory += c(Effect::GloryThree);
        if count_kind(AreaKind::Quarry) > 0 {
            i.glory += c(Effect::QuarryGloryThree);
        }
        // "1 glory per area taken, or 1 if none".
        i.glory += c(Effect::GloryPerAreaTaken) * (p.taken as i32).max(1);
        i.gold += c(Effect::GoldTwo) + c(Effect::GoldThree);
        i.gold += c(Effect::GoldPerVillage) * count_kind(AreaKind::Village);
        i.gold += c(Effect::GoldPerSheep) * count_kind(AreaKind::Sheep);
        i.gold += c(Effect::GoldPerForest) * count_kind(AreaKind::Forest);
        i.gold += c(Effect::GoldPerAttack) * p.attacks as i32;
        i.recruits += (c(Effect::RecruitPerIronMine) * count_kind(AreaKind::IronMine)) as u32;
        i.runes += (c(Effect::RunePerVillage) * count_kind(AreaKind::Village)) as u32;
    }
    for (seat, i) in inc.into_iter().enumerate() {
        claim_for(cx, seat as Seat, i);
    }
}

fn claim_for(cx: &mut Ctx, seat: Seat, i: Income) {
    cx.glory(seat, i.glory, "areas owned and upgrades at the Claim phase");
    let p = &cx.s.players[seat as usize];
    let cap = p.storage(&cx.s.tiles) as u32;
    let mut goods: [u32; 6] = p.goods.map(|g| g as u32);
    let before = goods;
    let mut lost = [0u8; 6];
    let put = |goods: &mut [u32; 6], g: Good, lost: &mut [u8; 6]| {
        if goods[g.idx()] < cap {
            goods[g.idx()] += 1;
        } else {
            lost[g.idx()] += 1;
        }
    };
    for g in Good::ALL {
        for _ in 0..i.goods[g.idx()] {
            put(&mut goods, g, &mut lost);
        }
    }
    for (units, choice, other) in [(i.sheep, p.orders.sheep, Good::Wool), (i.cattle, p.orders.cattle, Good::Hide)] {
        for _ in 0..units {
            let g = match choice {
                GoodChoice::Meat if goods[Good::Meat.idx()] < cap => Good::Meat,
                GoodChoice::Meat => other,
                GoodChoice::Other if goods[other.idx()] < cap => other,
                GoodChoice::Other => Good::Meat,
                GoodChoice::Auto
                    if goods[Good::Meat.idx()] < cap
                        && (goods[Good::Meat.idx()] <= goods[other.idx()] || goods[other.idx()] >= cap) =>
                {
                    Good::Meat
                }
                GoodChoice::Auto => other,
            };
            put(&mut goods, g, &mut lost);
        }
    }
    let mut delta = [0i8; 6];
    for g in 0..6 {
        delta[g] = (goods[g] as i32 - before[g] as i32) as i8;
    }
    if delta.iter().any(|d| *d != 0) {
        cx.emit(Event::GoodsChanged { seat, delta, reason: "claimed from owned areas".into() });
    }
    if lost.iter().any(|l| *l > 0) {
        cx.emit(Event::GoodsSpoiled { seat, lost });
    }
    cx.gold(seat, i.gold);
    let recruits = (i.recruits.min(255) as u8).min(cx.s.players[seat as usize].supply);
    if recruits > 0 {
        cx.emit(Event::RecruitsGained { seat, count: recruits, reason: "villages and upgrades".into() });
    }
    if i.runes > 0 {
        cx.draw_runes(seat, i.runes.min(255) as u8);
    }
    // Axes: one per owned camp for 1 gold.
    let p = &cx.s.players[seat as usize];
    if p.orders.buy_axes {
        let camps = cx.s.owned(seat).filter(|a| cx.s.board.area(*a).kind == AreaKind::Camp).count() as i32;
        let count = camps.min(p.gold).min(cx.s.axe_supply as i32);
        if count > 0 {
            cx.emit(Event::AxesBought { seat, count: count as u8 });
            cx.gold(seat, -count);
        }
    }
    place_recruits(cx, seat);
    place_axes(cx, seat);
}

/// Recruits from the town area onto buildings, within their limits.
fn place_recruits(cx: &mut Ctx, seat: Seat) {
    let p = &cx.s.players[seat as usize];
    let mut town = p.town;
    if town == 0 {
        return;
    }
    let mut disks = p.disks;
    let caps = Building::ALL.map(|b| p.capacity(&cx.s.tiles, b));
    let mut placed = [0u8; 3];
    if p.orders.recruits.is_empty() {
        while town > 0 {
            let Some(b) = (0..3).filter(|&b| disks[b] < caps[b]).max_by_key(|&b| (caps[b] - disks[b], 3 - b)) else {
                break;
            };
            disks[b] += 1;
            placed[b] += 1;
            town -= 1;
        }
    } else {
        for b in &p.orders.recruits {
            let room = caps[b.idx()].saturating_sub(disks[b.idx()]).min(town);
            placed[b.idx()] += room;
            disks[b.idx()] += room;
            town -= room;
        }
    }
    if placed.iter().any(|x| *x > 0) {
        cx.emit(Event::RecruitsPlaced { seat, placed });
    }
}

/// Axes held onto areas, by standing order.
fn place_axes(cx: &mut Ctx, seat: Seat) {
    let p = &cx.s.players[seat as usize];
    if p.axes == 0 {
        return;
    }
    let s = &cx.s;
    let owned: Vec<u8> = s.owned(seat).collect();
    // Version 2: "[Forced trade] can be avoided by placing an Axe!": an axe
    // may also lie on the clan's own home area, and with forced trade in
    // play the automatic order guards the home first.
    let home = p.home;
    let home_ok = |a: u8| s.v2() && a == home;
    let wanted: Vec<u8> = match &p.orders.axes {
        AxeOrder::Keep => return,
        AxeOrder::Areas(list) => list.iter().copied().filter(|a| owned.contains(a) || home_ok(*a)).collect(),
        AxeOrder::Auto => {
            let border = |a: u8| {
                s.board.land[a as usize].iter().any(|b| matches!(s.areas[*b as usize].owner, Some(o) if o != seat))
            };
            let mut v: Vec<(i32, u8)> = owned
                .iter()
                .filter(|a| s.areas[**a as usize].axes == 0)
                .map(|&a| {
                    let k = s.board.area(a).kind;
                    let value = matches!(k, AreaKind::Village | AreaKind::GoldMine) as i32 * 2 + border(a) as i32;
                    (-value, a)
                })
                .collect();
            v.sort();
            let guard_home = s.v2() && s.forced_trade && s.areas[home as usize].axes == 0;
            guard_home.then_some(home).into_iter().chain(v.into_iter().map(|x| x.1)).collect()
        }
    };
    let areas: Vec<u8> = wanted.into_iter().take(p.axes as usize).collect();
    if !areas.is_empty() {
        cx.emit(Event::AxesPlaced { seat, areas });
    }
}
