//! Invasions (7): the priority order (7.1), selecting invaders (7.2.1),
//! surrendering kingdoms (7.2.2), invasion paths and blockers (7.2.3),
//! invasion battles (7.2.4), continuing (7.2.5), the end of an invasion
//! (7.2.6) and the end of the turn (7.3).

use runestone_engine::{reject, RuleError, Seat};

use crate::state::{Event, InvasionPath, Phase, State};
use crate::Ctx;

/// The invasion priority (7.1): players without an invader card first; then
/// fewest cities, least intimidation, earliest to play this turn. Under the
/// reversed order (8.5) the last three rules are reversed.
pub fn priority(s: &State) -> Vec<Seat> {
    let n = s.seats;
    let mut order: Vec<Seat> = (0..n).collect();
    let rev = s.rules.reverse_priority;
    order.sort_by_key(|&k| {
        let cities = s.controlled(k).len() as i64;
        let intim = s.intimidation(k) as i64;
        let pos = ((k + n - s.first) % n) as i64;
        let sign = if rev { -1 } else { 1 };
        (s.players[k as usize].invader, sign * cities, sign * intim, sign * pos)
    });
    order
}

pub fn begin(cx: &mut Ctx) {
    let order = priority(&cx.s);
    cx.emit(Event::InvasionBegan { order });
}

/// Run what needs no decision; answer whether anything happened.
pub fn advance(cx: &mut Ctx) -> bool {
    let Some(inv) = cx.s.invasion.clone() else {
        return false;
    };
    match inv.order.get(inv.next) {
        Some(&seat) if cx.s.players[seat as usize].invader => {
            // Invaded last turn: may not invade now; the card and blockers go (7.2.1).
            cx.emit(Event::InvaderCardDiscarded { seat });
            true
        }
        Some(_) => false,
        None => {
            // 7.3: the first player card goes to the next player who is not an invader.
            let n = cx.s.seats;
            let first = cx.s.first;
            let step = |k: u8| if cx.s.rules.reverse_first_player { (first + n * 2 - k) % n } else { (first + k) % n };
            let next = (1..n).map(step).find(|&k| !cx.s.players[k as usize].invader).unwrap_or(first);
            cx.emit(Event::FirstPlayer { seat: next });
            let turn = cx.s.turn + 1;
            if cx.s.rules.version >= 2 {
                crate::program::ask_programs(cx, turn);
            } else {
                cx.emit(Event::TurnBegan { seat: next, turn });
            }
            true
        }
    }
}

fn my_turn(s: &State, seat: Seat) -> Result<(), RuleError> {
    let current = s.invasion.as_ref().and_then(|i| i.order.get(i.next)).copied();
    if s.phase != Phase::Invasion || current != Some(seat) {
        reject!("it is not your turn to invade");
    }
    Ok(())
}

pub fn pass(cx: &mut Ctx, seat: Seat) -> Result<(), RuleError> {
    my_turn(&cx.s, seat)?;
    cx.emit(Event::InvasionPassed { seat });
    Ok(())
}

/// Whether an invasion arrow is free of blockers (7.2.3).
pub fn open_path(s: &State, path: u8) -> bool {
    !s.players.iter().any(|p| p.blockers.contains(&path))
}

/// Cities an invader may not attack: temples (unless powered down, 8.6).
pub fn guarded(s: &State, city: u8) -> bool {
    !s.rules.powered_down_temples && s.cities[city as usize].temple.is_some()
}

/// Who may receive a surrendered kingdom (7.2.2): players with a kingdom.
pub fn heirs(s: &State, seat: Seat) -> Vec<Seat> {
    (0..s.seats).filter(|&k| k != seat && s.has_kingdom(k)).collect()
}

pub fn invade(
    cx: &mut Ctx,
    seat: Seat,
    surrender_to: Option<Seat>,
    paths: &[InvasionPath],
    temple: Option<u8>,
    stack: &[(u8, u8)],
) -> Result<(), RuleError> {
    my_turn(&cx.s, seat)?;
    let n = cx.s.cities.len();
    let v3 = cx.s.rules.version >= 3;
    if paths.is_empty() || paths.len() > 3 {
        reject!("an invasion uses 1 to 3 invasion paths, not {}", paths.len());
    }
    if let Some(t) = temple.filter(|&t| t as usize >= n) {
        reject!("there is no city {t} on this map for your temple");
    }
    if !stack.is_empty() && !v3 {
        reject!("stacking the reserve comes with rules version 3; this game spreads it evenly");
    }
    if stack.len() > n {
        reject!("name each city at most once to stack your reserve in");
    }
    for (k, &(c, _)) in stack.iter().enumerate() {
        if c as usize >= n {
            reject!("there is no city {c} on this map to stack your reserve in");
        }
        if stack[..k].iter().any(|x| x.0 == c) {
            reject!("{} is named twice to stack your reserve in", cx.s.city_name(c));
        }
    }
    let heirs = heirs(&cx.s, seat);
    if cx.s.has_kingdom(seat) {
        match surrender_to {
            None if !heirs.is_empty() => reject!("you still have a kingdom: name the player you surrender it to"),
            Some(t) if !heirs.contains(&t) => {
                reject!("you can only surrender your kingdom to another player with a kingdom")
            }
            _ => {}
        }
    } else if surrender_to.is_some() {
        reject!("you have no kingdom to surrender");
    }
    if v3 {
        check_paths(&cx.s, paths)?;
    }
    cx.emit(Event::InvaderCardTaken { seat });
    if cx.s.has_kingdom(seat) {
        surrender(cx, seat, surrender_to);
    }
    if v3 {
        for ip in paths {
            invade_path(cx, seat, ip);
        }
    } else {
        invade_v1(cx, seat, paths)?;
    }
    finish(cx, seat, temple, stack);
    Ok(())
}

/// The paths as rules versions 1 and 2 play them: each checked as it
/// comes, a path whose attack failed ending there.
fn invade_v1(cx: &mut Ctx, seat: Seat, paths: &[InvasionPath]) -> Result<(), RuleError> {
    let n = cx.s.cities.len();
    let depth = cx.s.rules.cities_per_path as usize;
    let mut used: Vec<usize> = Vec::new();
    for (i, ip) in paths.iter().enumerate() {
        let k = i + 1;
        let p = ip.path as usize;
        let Some(path) = cx.s.board.paths.get(p).cloned() else {
            reject!("path {k}: there is no invasion arrow {p} on this map");
        };
        if used.contains(&p) {
            reject!("path {k}: arrow {p} is used already");
        }
        if !open_path(&cx.s, ip.path) {
            reject!("path {k}: arrow {p} is blocked by another player's flag");
        }
        if !used.is_empty() && !used.iter().any(|&u| cx.s.board.paths_adjacent(u, p)) {
            reject!("path {k}: the 2nd and 3rd paths must be next to a path used before");
        }
        if 1 + ip.then.len() > depth {
            reject!("path {k}: an invasion path takes at most {depth} cities");
        }
        let arrow = path.city;
        let mine = cx.s.cities[arrow as usize].owner == Some(seat);
        if mine {
            if !path.sea {
                reject!("path {k}: {} is yours already", cx.s.city_name(arrow));
            }
            // Re-invading one's own port: skip it and go on by a road or a navigation route.
            if !cx.s.board.adjacent(arrow).contains(&ip.first) {
                reject!("path {k}: {} is not next to your port {}", cx.s.city_name(ip.first), cx.s.city_name(arrow));
            }
        } else if ip.first != arrow {
            reject!("path {k}: arrow {p} leads to {}", cx.s.city_name(arrow));
        }
        used.push(p);
        cx.emit(Event::PathBlocked { seat, path: ip.path });
        let mut prev: Option<u8> = None;
        for &target in std::iter::once(&ip.first).chain(ip.then.iter()) {
            if target as usize >= n {
                reject!("path {k}: there is no city {target} on this map");
            }
            if let Some(pr) = prev {
                if cx.s.cities[pr as usize].owner != Some(seat) {
                    break; // the attack before failed: the path stops
                }
                if !cx.s.board.road_adjacent(pr).contains(&target) {
                    reject!("path {k}: {} is not joined by a road to {}", cx.s.city_name(target), cx.s.city_name(pr));
                }
            }
            if cx.s.cities[target as usize].owner == Some(seat) {
                reject!("path {k}: {} is yours already", cx.s.city_name(target));
            }
            if guarded(&cx.s, target) {
                reject!("path {k}: {} has a temple and cannot be invaded", cx.s.city_name(target));
            }
            attack(cx, seat, target);
            prev = Some(target);
        }
    }
    Ok(())
}

/// Whether a path re-invades the invader's own port (7.2.3, 7.2.5): its
/// first city is not the arrow's but one next to the port it leads to.
fn through_port(s: &State, ip: &InvasionPath) -> bool {
    s.board.paths.get(ip.path as usize).is_some_and(|p| p.city != ip.first)
}

/// Rules version 3: everything about the paths that no die can change,
/// checked before any is rolled, so a planned invasion is never refused
/// half-way. Each path: an open arrow, next to one used before (7.2.5),
/// its cities joined by roads, each path at most `cities_per_path` cities.
/// A path may re-invade a port the invader will hold by then (7.2.3, 7.2.5):
/// its first city is then one next to that port, and "the first attack is
/// ignored because they are already occupying the place": the port counts
/// as the path's first city when the path goes on by road (the rulebook's
/// example takes H, then G), and not when it goes on by "a 2nd navigation
/// route" (the ports example takes city 3, then 4 or 5). A path whose arrow
/// leads to a temple (7.2.3 "Cities which have a temple cannot be invaded")
/// may still be used to place the blocker, with no city named after it
/// (the "Invasion Blockers" box).
pub fn check_paths(s: &State, paths: &[InvasionPath]) -> Result<(), RuleError> {
    let n = s.cities.len();
    let depth = s.rules.cities_per_path as usize;
    let mut used: Vec<usize> = Vec::new();
    for (i, ip) in paths.iter().enumerate() {
        let k = i + 1;
        let p = ip.path as usize;
        let Some(path) = s.board.paths.get(p) else {
            reject!("path {k}: there is no invasion arrow {p} on this map");
        };
        if used.contains(&p) {
            reject!("path {k}: arrow {p} is used already");
        }
        if !open_path(s, ip.path) {
            reject!("path {k}: arrow {p} is blocked by another player's flag");
        }
        if !used.is_empty() && !used.iter().any(|&u| s.board.paths_adjacent(u, p)) {
            reject!("path {k}: the 2nd and 3rd paths must be next to a path used before");
        }
        if let Some(&c) = std::iter::once(&ip.first).chain(ip.then.iter()).find(|&&c| c as usize >= n) {
            reject!("path {k}: there is no city {c} on this map");
        }
        let arrow = path.city;
        let mut cities = 1 + ip.then.len();
        if ip.first != arrow {
            if !path.sea {
                reject!("path {k}: arrow {p} leads to {} by road", s.city_name(arrow));
            }
            if !s.board.adjacent(arrow).contains(&ip.first) {
                reject!(
                    "path {k}: {} is not next to {}, the port arrow {p} leads to",
                    s.city_name(ip.first),
                    s.city_name(arrow)
                );
            }
            if !s.board.sea_adjacent(arrow).contains(&ip.first) {
                // On by road: the port held was the path's first city.
                cities += 1;
            }
        } else if guarded(s, arrow) && !ip.then.is_empty() {
            reject!(
                "path {k}: {} has a temple and cannot be invaded; its arrow may only take your blocker",
                s.city_name(arrow)
            );
        }
        if cities > depth {
            reject!(
                "path {k}: an invasion path takes at most {depth} cities{}",
                if cities > 1 + ip.then.len() { ", the port you hold and go on from counted" } else { "" }
            );
        }
        let mut prev = ip.first;
        for &c in &ip.then {
            if !s.board.road_adjacent(prev).contains(&c) {
                reject!("path {k}: {} is not joined by a road to {}", s.city_name(c), s.city_name(prev));
            }
            if guarded(s, c) {
                reject!("path {k}: {} has a temple and cannot be invaded", s.city_name(c));
            }
            prev = c;
        }
        used.push(p);
    }
    Ok(())
}

/// Rules version 3: one path, checked already: the blocker, then its
/// cities one by one while the invader holds the city before; where it
/// cannot go on, a `PathStopped` says why.
fn invade_path(cx: &mut Ctx, seat: Seat, ip: &InvasionPath) {
    cx.emit(Event::PathBlocked { seat, path: ip.path });
    let arrow = cx.s.board.paths[ip.path as usize].city;
    let stop = |cx: &mut Ctx, city: u8, reason: String| {
        cx.emit(Event::PathStopped { seat, path: ip.path, city, reason });
    };
    if through_port(&cx.s, ip) && cx.s.cities[arrow as usize].owner != Some(seat) {
        let why = format!("{} is not yours to go on from", cx.s.city_name(arrow));
        return stop(cx, ip.first, why);
    }
    if !through_port(&cx.s, ip) && guarded(&cx.s, arrow) {
        // The "Invasion Blockers" box: the blocker only.
        let why = format!("{} has a temple: the arrow takes the blocker only", cx.s.city_name(arrow));
        return stop(cx, arrow, why);
    }
    let mut prev: Option<u8> = None;
    for &target in std::iter::once(&ip.first).chain(ip.then.iter()) {
        if let Some(pr) = prev.filter(|&pr| cx.s.cities[pr as usize].owner != Some(seat)) {
            let why = format!("the attack on {} failed", cx.s.city_name(pr));
            return stop(cx, target, why);
        }
        if cx.s.cities[target as usize].owner == Some(seat) {
            let why = format!("{} is yours already", cx.s.city_name(target));
            return stop(cx, target, why);
        }
        if guarded(&cx.s, target) {
            let why = format!("{} has a temple", cx.s.city_name(target));
            return stop(cx, target, why);
        }
        if cx.s.invasion.as_ref().is_none_or(|i| i.reserve == 0) {
            return stop(cx, target, "no units are left in the reserve".into());
        }
        attack(cx, seat, target);
        prev = Some(target);
    }
}

/// 7.2.2: the kingdom goes to `to` as if conquered; its units are replaced
/// by `to`'s. When `to`'s reserve falls short, its standing orders decide
/// which cities are replaced first and whether units on the board complete
/// the replacement.
fn surrender(cx: &mut Ctx, seat: Seat, to: Option<Seat>) {
    let (replaced, removed) = match to {
        Some(t) => replacement(&cx.s, seat, t),
        None => (Vec::new(), Vec::new()),
    };
    let knowledge_points = cx.s.players[seat as usize].tracks[2];
    cx.emit(Event::Surrendered { seat, to, replaced, removed });
    cx.emit(Event::KingdomFell { seat, by: to, knowledge_points });
    if let Some(t) = to {
        cx.draw_rumor(t);
    }
}

/// Units per city: (city, units).
pub type Counts = Vec<(u8, u8)>;

/// Which of `seat`'s cities `heir` replaces and with how many units, and the
/// units `heir` takes off its own cities to complete it (7.2.2).
pub fn replacement(s: &State, seat: Seat, heir: Seat) -> (Counts, Counts) {
    let orders = &s.players[heir as usize].defence;
    let mut cities = s.controlled(seat);
    cities.sort_by_key(|c| orders.replace_first.iter().position(|f| f == c).unwrap_or(usize::MAX));
    let need: u16 = cities.iter().map(|&c| s.cities[c as usize].units as u16).sum();
    let mut left = s.pool(heir) as u16;
    let mut removed: Counts = Vec::new();
    if orders.complete_from_board && left < need {
        let mut own: Vec<(u8, u8)> = s.controlled(heir).into_iter().map(|c| (c, s.cities[c as usize].units)).collect();
        while left < need {
            // One unit at a time from the city with most units, keeping one in each.
            let Some(k) = (0..own.len()).filter(|&k| own[k].1 > 1).max_by_key(|&k| (own[k].1, std::cmp::Reverse(k)))
            else {
                break;
            };
            own[k].1 -= 1;
            match removed.iter_mut().find(|r| r.0 == own[k].0) {
                Some(r) => r.1 += 1,
                None => removed.push((own[k].0, 1)),
            }
            left += 1;
        }
    }
    let mut replaced = Vec::new();
    for c in cities {
        let k = (s.cities[c as usize].units as u16).min(left);
        if k > 0 {
            replaced.push((c, k as u8));
        }
        left -= k;
    }
    (replaced, removed)
}

/// 7.2.4: 3 dice, 4+ kills, no knowledge; one casualty per defender left
/// (twice at a temple when temples are powered down); then 3 units in.
fn attack(cx: &mut Ctx, seat: Seat, city: u8) {
    let reserve = cx.s.invasion.as_ref().map_or(0, |i| i.reserve);
    let defender = cx.s.cities[city as usize].owner;
    let defenders = cx.s.cities[city as usize].units;
    let temple_here = cx.s.cities[city as usize].temple.is_some_and(|t| t != seat);
    let (dice, killed) = if defenders == 0 {
        (Vec::new(), 0)
    } else {
        let dice: Vec<u8> = (0..3).map(|_| cx.die()).collect();
        let hits = dice.iter().filter(|&&d| d >= 4).count() as u8;
        (dice, hits.min(defenders))
    };
    let left = defenders - killed;
    let owe = left * if temple_here { 2 } else { 1 };
    let (casualties, placed, defender_lost) = if owe > reserve {
        (reserve, 0, (killed + reserve).min(defenders))
    } else {
        (owe, (reserve - owe).min(3), defenders)
    };
    cx.emit(Event::Invaded { seat, city, dice, killed, casualties, placed, defender_lost });
    if placed > 0 && temple_here {
        cx.emit(Event::TempleDestroyed { city });
        cx.draw_rumor(seat);
    }
    if let Some(d) = defender {
        crate::battle::check_fall(cx, d, Some(seat));
    }
}

/// 7.2.6: spread the reserve over the invader's cities and place the temple.
/// From rules version 3 the invader's `stack` puts units where it says
/// first, and the temple goes on a building only when "all the cities are
/// occupied by a building" (the city named, else the first free one).
fn finish(cx: &mut Ctx, seat: Seat, temple: Option<u8>, stack: &[(u8, u8)]) {
    let mine = cx.s.controlled(seat);
    let reserve = cx.s.invasion.as_ref().map_or(0, |i| i.reserve);
    if !mine.is_empty() && reserve > 0 {
        let mut spread: Vec<(u8, u8)> = mine.iter().map(|&c| (c, 0)).collect();
        let mut left = reserve;
        for &(c, k) in stack {
            if let Some(x) = spread.iter_mut().find(|x| x.0 == c) {
                let k = k.min(left);
                x.1 += k;
                left -= k;
            }
        }
        for i in 0..left as usize {
            let k = i % spread.len();
            spread[k].1 += 1;
        }
        spread.retain(|x| x.1 > 0 || cx.s.rules.version < 3);
        cx.emit(Event::ReserveSpread { seat, cities: spread });
    }
    if !mine.is_empty() {
        let free = |c: &u8| cx.s.cities[*c as usize].building.is_none() && cx.s.cities[*c as usize].temple.is_none();
        let any_free = mine.iter().any(free);
        let city = temple
            .filter(|t| mine.contains(t) && cx.s.cities[*t as usize].temple.is_none())
            .filter(|t| cx.s.rules.version < 3 || free(t) || !any_free)
            .or_else(|| mine.iter().copied().find(free))
            .or_else(|| mine.iter().copied().find(|c| cx.s.cities[*c as usize].temple.is_none()));
        if let Some(city) = city {
            cx.emit(Event::TemplePlaced { seat, city });
        }
    }
    cx.emit(Event::InvasionEnded { seat });
}
