//! Actions: Settle, Ride, Raid, Foster, Pledge and Feast, each at its
//! strength and each "up to" (a `Pass` does less, or nothing).

use runestone_engine::Seat;

use crate::data::{data, Action, CardId, Colour};
use crate::state::{BandMove, ChallengeCall, Choosing, Command, FarmCall, FeudCall, Gift, MurderTarget, State, Step};

/// Draw up to `n` cards from the orlog (fewer if the orlog and Doom are spent).
pub fn draw(s: &mut State, n: usize) -> Vec<CardId> {
    let k = n.min(s.deck.len());
    let at = s.deck.len() - k;
    s.deck.split_off(at)
}

/// Settle A: subsume a new District.
pub fn subsume(s: &mut State, seat: Seat, district: usize, colour: Colour) -> Result<(), String> {
    let map = s.map();
    if district >= map.districts.len() {
        return Err(format!("there is no District number {district}"));
    }
    if colour >= 4 {
        return Err(format!("there is no colour number {colour}"));
    }
    if s.steads[district].is_some() {
        return Err(format!("{} already has a Stead token on it", map.districts[district]));
    }
    if !map.settleable(district) {
        return Err(format!("no Stead token stands on {}: it is the Althing's plain", map.districts[district]));
    }
    let adjacent = map
        .edges
        .iter()
        .any(|&(a, b)| (a == district && s.owner(b) == Some(seat)) || (b == district && s.owner(a) == Some(seat)));
    let held = map.edges_of(district).any(|e| s.edges[e][seat as usize] > 0);
    if !adjacent && !held {
        return Err(format!(
            "{} is neither next to a District you control nor held by one of your Thingmen",
            map.districts[district]
        ));
    }
    let p = &mut s.players[seat as usize];
    if p.small_tokens == 0 {
        return Err("you have no 1/2 Stead token left".into());
    }
    p.small_tokens -= 1;
    p.farms[colour] += 1;
    s.steads[district] = Some((seat, 1));
    Ok(())
}

/// Settle B: expand holdings, each raise costing the District's current value.
pub fn expand(s: &mut State, seat: Seat, steps: &[(usize, Colour)], strength: u8) -> Result<(), String> {
    let map = s.map();
    let mut spent = 0u32;
    for &(district, colour) in steps {
        if district >= map.districts.len() || s.owner(district) != Some(seat) {
            return Err(format!("you do not control District {district}"));
        }
        if colour >= 4 {
            return Err(format!("there is no colour number {colour}"));
        }
        let value = s.steads[district].expect("owned").1;
        if value >= 4 {
            return Err(format!("{} is already worth 4, the most a District may be", map.districts[district]));
        }
        spent += value as u32;
        if spent > strength as u32 {
            return Err(format!("these expansions cost {spent}, more than the strength {strength} of the action"));
        }
        let p = &mut s.players[seat as usize];
        if value == 2 {
            if p.large_tokens == 0 {
                return Err("you have no 3/4 Stead token left to raise a District to 3".into());
            }
            p.large_tokens -= 1;
            p.small_tokens += 1;
        }
        p.farms[colour] += 1;
        s.steads[district] = Some((seat, value + 1));
    }
    Ok(())
}

fn opposing_on(s: &State, seat: Seat, edge: usize) -> Vec<Seat> {
    (0..s.seats).filter(|o| *o != seat && s.edges[edge][*o as usize] > 0).collect()
}

/// Call the feud a Ride's Thingmen start on `edge` against each opposing
/// gothi there. By rules version 3 one feud per edge and opposing gothi for
/// the whole Ride, fought by all of the rider's Thingmen there once the
/// Ride is done ("If you place a Thingman on an edge with an opposing
/// gothi's Thingmen, they will intiate a Feud"; "thus a maximum of 4 deaths
/// and 4 Wordfame from a Feud"); before, one for each Thingman or band that
/// came there.
fn call_feuds(s: &mut State, seat: Seat, edge: usize) {
    for o in opposing_on(s, seat, edge) {
        let call = FeudCall { attacker: seat, defender: o, edge, without_men: false };
        if s.version >= 3 && s.feuds.contains(&call) {
            continue;
        }
        s.feuds.push_back(call);
    }
}

/// Ride A (set forth) and B (roam with bands).
pub fn ride(s: &mut State, seat: Seat, set_forth: &[usize], moves: &[BandMove], strength: u8) -> Result<(), String> {
    let map = s.map();
    if set_forth.len() + moves.len() > strength as usize {
        return Err(format!(
            "that is {} points of Ride; the action has strength {strength}",
            set_forth.len() + moves.len()
        ));
    }
    for &e in set_forth {
        if e >= map.edges.len() {
            return Err(format!("there is no edge number {e}"));
        }
        let (a, b) = map.edges[e];
        if s.owner(a) != Some(seat) && s.owner(b) != Some(seat) {
            return Err(format!(
                "the edge {} to {} is not on a District you control",
                map.districts[a], map.districts[b]
            ));
        }
        let p = &mut s.players[seat as usize];
        if p.longhall == 0 {
            return Err("no Thingmen are left in your Longhall".into());
        }
        p.longhall -= 1;
        s.edges[e][seat as usize] += 1;
        call_feuds(s, seat, e);
    }
    // Thingmen that have ridden in a band this Ride, per edge: by rules
    // version 3 they do not ride again ("you may move 1 Band of Thingmen once").
    let mut ridden = vec![0u8; map.edges.len()];
    for m in moves {
        if m.from >= map.edges.len() || m.count == 0 || s.edges[m.from][seat as usize] < m.count {
            return Err(format!("you do not have {} Thingmen on edge {}", m.count, m.from));
        }
        if s.version >= 3 && s.edges[m.from][seat as usize] - ridden[m.from] < m.count {
            return Err(format!(
                "only {} of your Thingmen on edge {} have not ridden this Ride; a band moves once",
                s.edges[m.from][seat as usize] - ridden[m.from],
                m.from
            ));
        }
        if m.path.is_empty() || m.path.len() > 3 {
            return Err("a band rides along one to three edges".into());
        }
        let mut at = m.from;
        for (i, &e) in m.path.iter().enumerate() {
            if e >= map.edges.len() || !map.touching(at, e) {
                return Err(format!("edge {e} does not touch edge {at}"));
            }
            let last = i + 1 == m.path.len();
            if !last && !opposing_on(s, seat, e).is_empty() {
                return Err(format!("a band may not ride through edge {e}, held by opposing Thingmen"));
            }
            at = e;
        }
        s.edges[m.from][seat as usize] -= m.count;
        s.edges[at][seat as usize] += m.count;
        ridden[at] += m.count;
        call_feuds(s, seat, at);
        // Districts ridden through: those of the edges left behind on the way.
        let mut through = Vec::new();
        for &e in std::iter::once(&m.from).chain(m.path[..m.path.len() - 1].iter()) {
            let (a, b) = map.edges[e];
            for x in [a, b] {
                let (ea, eb) = map.edges[at];
                if x != ea && x != eb && !through.contains(&x) {
                    through.push(x);
                }
            }
        }
        for x in through {
            if let Some(o) = s.owner(x) {
                if o != seat && !s.challenges.iter().any(|c| c.owner == o && c.rider == seat && c.edge == at) {
                    s.challenges.push_back(ChallengeCall { owner: o, rider: seat, district: x, edge: at });
                }
            }
        }
    }
    Ok(())
}

/// Raid A: journey out to sea.
pub fn sail_out(s: &mut State, seat: Seat, thingmen: u8, strength: u8) -> Result<(), String> {
    let p = &mut s.players[seat as usize];
    if thingmen > strength {
        return Err(format!("the action has strength {strength}; you may send at most {strength} Thingmen to sea"));
    }
    if thingmen > p.longhall {
        return Err(format!("you have only {} Thingmen in your Longhall", p.longhall));
    }
    p.longhall -= thingmen;
    p.at_sea += thingmen;
    Ok(())
}

/// Raid B: return laden; the cards drawn wait for `keep`.
pub fn return_laden(s: &mut State, seat: Seat, strength: u8) {
    let n = s.players[seat as usize].at_sea + strength;
    let p = &mut s.players[seat as usize];
    p.longhall += p.at_sea;
    p.at_sea = 0;
    let cards = draw(s, n as usize);
    let keep = cards.len().div_ceil(2) as u8;
    s.players[seat as usize].hand = cards;
    s.choosing = Some((seat, Choosing::Raid, keep));
}

pub fn keep(s: &mut State, seat: Seat, cards: &[CardId]) -> Result<(), String> {
    let Some((_, Choosing::Raid, n)) = s.choosing else { return Err("there is nothing to keep now".into()) };
    let hand = s.players[seat as usize].hand.clone();
    if cards.len() != n as usize {
        return Err(format!("keep exactly {n} of the {} cards (half, rounded up)", hand.len()));
    }
    let mut rest = hand.clone();
    for c in cards {
        let Some(i) = rest.iter().position(|x| x == c) else {
            return Err(format!("card {c} is not among those you drew"));
        };
        rest.remove(i);
    }
    let p = &mut s.players[seat as usize];
    p.wealth.extend_from_slice(cards);
    p.hand.clear();
    s.doom.extend(rest);
    s.choosing = None;
    Ok(())
}

/// Pledge: draw, then `swear`.
pub fn draw_pledge(s: &mut State, seat: Seat, strength: u8) {
    let cards = draw(s, strength as usize);
    s.players[seat as usize].hand = cards;
    s.choosing = Some((seat, Choosing::Pledge, 0));
}

pub fn swear(s: &mut State, seat: Seat, add: Option<CardId>, swaps: &[(usize, CardId)]) -> Result<(), String> {
    let Some((_, Choosing::Pledge, _)) = s.choosing else { return Err("there is nothing to pledge now".into()) };
    let districts = s.districts_of(seat).len();
    let p = &mut s.players[seat as usize];
    let mut hand = p.hand.clone();
    let mut oaths = p.oaths.clone();
    let take = |c: CardId, hand: &mut Vec<CardId>| -> Result<(), String> {
        let Some(i) = hand.iter().position(|x| *x == c) else {
            return Err(format!("card {c} is not among those you drew"));
        };
        hand.remove(i);
        Ok(())
    };
    if let Some(c) = add {
        if oaths.len() + 1 > districts {
            return Err(format!("you control {districts} Districts and may not have more Bondi than that"));
        }
        take(c, &mut hand)?;
        oaths.push(c);
    }
    let mut swapped = Vec::new();
    for &(place, c) in swaps {
        if place >= oaths.len() || swapped.contains(&place) {
            return Err(format!("there is no Bondi at place {place} in your Oaths to swap"));
        }
        take(c, &mut hand)?;
        hand.push(oaths[place]);
        oaths[place] = c;
        swapped.push(place);
    }
    p.oaths = oaths;
    p.hand.clear();
    s.doom.extend(hand);
    s.choosing = None;
    Ok(())
}

/// The goods of `colour` in a Wealth (the rules count them; the owner sees only Worth).
fn goods_of(s: &State, seat: Seat, colour: Colour) -> usize {
    let d = data();
    s.players[seat as usize].wealth.iter().filter(|c| d.cards[**c as usize].colour == colour).count()
}

/// Foster: send a persona off from the Hird into Wealth.
pub fn send_off(s: &mut State, seat: Seat, persona: CardId) -> Result<(), String> {
    let p = &mut s.players[seat as usize];
    let Some(i) = p.hird.iter().position(|c| *c == persona) else {
        return Err(format!("card {persona} is not a persona in your Hird"));
    };
    p.hird.remove(i);
    p.wealth.push(persona);
    Ok(())
}

/// Foster: take a persona from the pool, with Goods of its colour.
pub fn foster(s: &mut State, seat: Seat, persona: CardId) -> Result<(), String> {
    let d = data();
    let Some(slot) = s.pool.iter().position(|c| *c == Some(persona)) else {
        return Err(format!("card {persona} is not in the Foster pool"));
    };
    let card = &d.cards[persona as usize];
    let need = card.worth as usize - 1;
    if goods_of(s, seat, card.colour) < need {
        return Err(format!(
            "{} needs {need} Goods of their colour in your Wealth; you have too few",
            card.persona.as_deref().unwrap_or("this persona")
        ));
    }
    s.pool[slot] = None;
    s.players[seat as usize].hird.push(persona);
    Ok(())
}

/// After the fostering round: the initiator draws and refills the pool.
/// "if there is already a persona in a space in the pool where a
/// newly-drawn one would go, the drawing player may choose to replace the
/// old one with the new one": asked if the drawer's standing choice says
/// so (the drawn personae are held as a hand); by default the old one stays.
pub fn refill_pool(s: &mut State, drawer: Seat, strength: u8) {
    let d = data();
    let ask = s.players[drawer as usize].choices.pool;
    let mut candidates = Vec::new();
    for c in draw(s, strength as usize) {
        let card = &d.cards[c as usize];
        if card.persona.is_some() && s.pool[card.colour].is_none() {
            s.pool[card.colour] = Some(c);
        } else if card.persona.is_some() && ask {
            candidates.push(c);
        } else {
            s.doom.push(c);
        }
    }
    if !candidates.is_empty() {
        s.players[drawer as usize].hand = candidates;
        s.choosing = Some((drawer, Choosing::Replace, 0));
    }
}

/// The drawer's answer: each named persona replaces the one in its colour's
/// pool space (the old one goes to the Doom); the rest go to the Doom.
pub fn replace(s: &mut State, seat: Seat, personae: &[CardId]) -> Result<(), String> {
    let d = data();
    let Some((_, Choosing::Replace, _)) = s.choosing else { return Err("there is nothing to replace now".into()) };
    let mut hand = s.players[seat as usize].hand.clone();
    let mut colours = Vec::new();
    for &c in personae {
        let Some(i) = hand.iter().position(|x| *x == c) else {
            return Err(format!("card {c} is not among the personae you drew"));
        };
        let colour = d.cards[c as usize].colour;
        if colours.contains(&colour) {
            return Err(format!("only one persona may take the {} space of the pool", d.colours[colour]));
        }
        colours.push(colour);
        hand.remove(i);
    }
    for &c in personae {
        let colour = d.cards[c as usize].colour;
        if let Some(old) = s.pool[colour].replace(c) {
            s.doom.push(old);
        }
    }
    s.doom.extend(hand);
    s.players[seat as usize].hand.clear();
    s.choosing = None;
    Ok(())
}

/// The gothi `seat` may give to at a Feast: neighbours, and gothi with a
/// Thingman on one of `seat`'s Districts.
pub fn guests(s: &State, seat: Seat) -> Vec<Seat> {
    let map = s.map();
    let mut out = s.neighbours(seat);
    for (e, men) in s.edges.iter().enumerate() {
        let (a, b) = map.edges[e];
        if s.owner(a) == Some(seat) || s.owner(b) == Some(seat) {
            for o in 0..s.seats {
                if o != seat && men[o as usize] > 0 && !out.contains(&o) {
                    out.push(o);
                }
            }
        }
    }
    out.retain(|o| !s.players[*o as usize].out);
    out.sort();
    out
}

/// Feast A: gifts and gift sets.
pub fn give(s: &mut State, seat: Seat, gifts: &[Gift], strength: u8) -> Result<(), String> {
    let d = data();
    let guests = guests(s, seat);
    let mut total = 0u32;
    let mut used: Vec<CardId> = Vec::new();
    for g in gifts {
        if !guests.contains(&g.to) {
            return Err(format!(
                "{} is neither your neighbour nor has a Thingman on your Districts",
                crate::view::gothi(g.to)
            ));
        }
        let mut worths: Vec<u8> = Vec::new();
        for place in &g.goods {
            let Some(c) = s.players[seat as usize].wealth.get(*place).copied() else {
                return Err(format!("there is no Good at place {place} in your Wealth"));
            };
            if used.contains(&c) {
                return Err(format!("the Good at place {place} is given twice"));
            }
            used.push(c);
            worths.push(d.cards[c as usize].worth);
        }
        let mut sorted = worths.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        match sorted.as_slice() {
            [w] => total += *w as u32,
            [2, 1] | [3, 2, 1] => total += sorted[0] as u32,
            _ => return Err("a gift is one Good, or a gift set of Worth 2 and 1, or of Worth 3, 2 and 1".into()),
        }
    }
    if total > strength as u32 {
        return Err(format!("these gifts count Worth {total}, more than the strength {strength} of the Feast"));
    }
    let wealth = s.players[seat as usize].wealth.clone();
    // By rules version 3 the Goods of a set that does not match in colour are
    // gifts of their own, each counting its Worth ("a worth 1 gift of
    // matching color without counting towards total worth"): given, top
    // first, while the total stays within the strength; the rest stay in
    // the giver's Wealth (the giver cannot see colours, so nothing is refused).
    let mut counted = 0u32;
    for g in gifts {
        let mut goods: Vec<CardId> = g.goods.iter().map(|p| wealth[*p]).collect();
        goods.sort_by_key(|c| std::cmp::Reverse(d.cards[*c as usize].worth));
        let colours: Vec<Colour> = goods.iter().map(|c| d.cards[*c as usize].colour).collect();
        let set = g.goods.len() > 1 && colours.iter().all(|c| *c == colours[0]);
        let fame = if set {
            counted += d.cards[goods[0] as usize].worth as u32;
            if g.goods.len() == 2 {
                3
            } else {
                5
            }
        } else if s.version >= 3 {
            goods.retain(|c| {
                let w = d.cards[*c as usize].worth as u32;
                let fits = counted + w <= strength as u32;
                if fits {
                    counted += w;
                }
                fits
            });
            goods.len() as i32
        } else {
            g.goods.len() as i32
        };
        s.players[seat as usize].wordfame += fame;
        s.players[seat as usize].wealth.retain(|c| !goods.contains(c));
        s.players[g.to as usize].wealth.extend_from_slice(&goods);
    }
    Ok(())
}

/// Feast B: murder Thingmen on your Districts by discarding Bondi.
/// By rules version 3 the Bondi's slaying goes on to each target in
/// `also` once those before are all slain ("you may continue discarding
/// Bondi until you have murdered as many Thingmen as you like").
pub fn murder(
    s: &mut State,
    seat: Seat,
    bondi: &[usize],
    edge: usize,
    victim: Seat,
    also: &[MurderTarget],
    strength: u8,
) -> Result<(), String> {
    let map = s.map();
    let d = data();
    if bondi.is_empty() || bondi.len() > strength as usize {
        return Err(format!("use one to {strength} Bondi (the strength of the Feast)"));
    }
    if !also.is_empty() && s.version < 3 {
        return Err("by the rules of this game a murder strikes the Thingmen of one gothi on one edge".into());
    }
    let targets: Vec<MurderTarget> =
        std::iter::once(MurderTarget { edge, victim }).chain(also.iter().copied()).collect();
    for (i, t) in targets.iter().enumerate() {
        let (edge, victim) = (t.edge, t.victim);
        if edge >= map.edges.len() {
            return Err(format!("there is no edge number {edge}"));
        }
        let (a, b) = map.edges[edge];
        if s.owner(a) != Some(seat) && s.owner(b) != Some(seat) {
            return Err("you may murder only Thingmen on your own Districts".into());
        }
        if victim == seat || victim >= s.seats || s.edges[edge][victim as usize] == 0 {
            return Err(format!("{} has no Thingmen on that edge", crate::view::gothi(victim)));
        }
        if targets[..i].contains(t) {
            return Err(format!("the Thingmen of {} on edge {edge} are named twice", crate::view::gothi(victim)));
        }
    }
    let mut places = bondi.to_vec();
    places.sort_unstable();
    places.dedup();
    if places.len() != bondi.len() || places.iter().any(|p| *p >= s.players[seat as usize].oaths.len()) {
        return Err("name each Bondi once, by its place in your Oaths".into());
    }
    let mut slay = 0u32;
    for &p in places.iter().rev() {
        let c = s.players[seat as usize].oaths.remove(p);
        slay += d.cards[c as usize].worth as u32;
        s.doom.push(c);
    }
    for t in targets {
        let n = (slay.min(255) as u8).min(s.edges[t.edge][t.victim as usize]);
        if n == 0 {
            break;
        }
        slay -= n as u32;
        s.edges[t.edge][t.victim as usize] -= n;
        s.players[t.victim as usize].slain += n;
        if !s.murders.contains(&(seat, t.victim)) {
            s.murders.push((seat, t.victim));
        }
    }
    s.players[seat as usize].outlawed = true;
    Ok(())
}

/// Feast B under the Arson option (designed): burn a rival's District where
/// you have a Thingman: discard a Bondi, place one of the 4 Arson tokens on
/// the District (once a round each), which loses 1 as a raze does (a farm
/// of the colour its gothi holds most of is removed; at 0 it loses its
/// stead); the burner is outlawed, as a murderer is.
pub fn burn(s: &mut State, seat: Seat, bondi: usize, district: usize) -> Result<(), String> {
    let map = s.map();
    if !s.arson {
        return Err("this game is played without the Arson option".into());
    }
    if district >= map.districts.len() {
        return Err(format!("there is no District number {district}"));
    }
    let Some((victim, _)) = s.steads[district] else {
        return Err(format!("{} has no Stead token to burn", map.districts[district]));
    };
    if victim == seat {
        return Err(format!("you control {}; burn a rival's District", map.districts[district]));
    }
    if !map.edges_of(district).any(|e| s.edges[e][seat as usize] > 0) {
        return Err(format!("you have no Thingman on {}", map.districts[district]));
    }
    if s.burned.contains(&district) {
        return Err(format!("{} already burned this round", map.districts[district]));
    }
    if s.burned.len() >= 4 {
        return Err("all 4 Arson tokens are on the board this round".into());
    }
    if bondi >= s.players[seat as usize].oaths.len() {
        return Err(format!("there is no Bondi at place {bondi} in your Oaths"));
    }
    let c = s.players[seat as usize].oaths.remove(bondi);
    s.doom.push(c);
    s.burned.push(district);
    raze(s, district, None);
    s.players[seat as usize].outlawed = true;
    s.murders.push((seat, victim));
    Ok(())
}

/// Feast B: capture a District where you have a Thingman.
pub fn capture(
    s: &mut State,
    seat: Seat,
    bondi: usize,
    weapon: Option<usize>,
    district: usize,
    pay: bool,
) -> Result<(), String> {
    let map = s.map();
    let d = data();
    if district >= map.districts.len() {
        return Err(format!("there is no District number {district}"));
    }
    let Some((victim, _)) = s.steads[district] else {
        return Err(format!("{} has no Stead token to capture", map.districts[district]));
    };
    if victim == seat {
        return Err(format!("you already control {}", map.districts[district]));
    }
    if !map.edges_of(district).any(|e| s.edges[e][seat as usize] > 0) {
        return Err(format!("you have no Thingman on {}", map.districts[district]));
    }
    if bondi >= s.players[seat as usize].oaths.len() {
        return Err(format!("there is no Bondi at place {bondi} in your Oaths"));
    }
    let weapon = match weapon {
        Some(place) => match s.players[seat as usize].wealth.get(place) {
            Some(c) => Some(*c),
            None => return Err(format!("there is no Good at place {place} in your Wealth")),
        },
        None => None,
    };
    if s.players[seat as usize].small_tokens == 0 {
        return Err("you have no 1/2 Stead token left to place".into());
    }
    let c = s.players[seat as usize].oaths.remove(bondi);
    s.doom.push(c);
    let mut total = d.cards[c as usize].worth as i32;
    if let Some(w) = weapon {
        s.players[seat as usize].wealth.retain(|x| *x != w);
        s.doom.push(w);
        if d.is_weapon(w) {
            total += d.cards[w as usize].worth as i32;
        }
    }
    let guard = s.players[victim as usize].longhall as i32;
    if total < guard {
        let gap = guard - total;
        if !pay || s.players[seat as usize].wordfame < gap {
            return Ok(()); // the attempt fails; the discarded cards stay in the Doom
        }
        s.players[seat as usize].wordfame -= gap;
    }
    take_district(s, seat, victim, district);
    Ok(())
}

/// Remove `victim`'s stead from `district` and one farm of the capturer's
/// choosing (asked if the capturer's standing choice says so, else the
/// colour the victim holds most of); place `seat`'s.
fn take_district(s: &mut State, seat: Seat, victim: Seat, district: usize) {
    let value = s.steads[district].map(|x| x.1).unwrap_or(1);
    let v = &mut s.players[victim as usize];
    if value >= 3 {
        v.large_tokens += 1;
    } else {
        v.small_tokens += 1;
    }
    if s.players[seat as usize].choices.farm {
        s.farm_calls.push_back(FarmCall { chooser: seat, loser: victim, edge: None });
    } else {
        remove_farm(s, victim);
    }
    s.players[seat as usize].small_tokens -= 1;
    s.steads[district] = Some((seat, 1));
}

/// The standing default farm to remove: of the colour `seat` holds most of
/// (the first such colour on a tie); `None` with no farm left.
pub fn default_farm(s: &State, seat: Seat) -> Option<Colour> {
    let f = &s.players[seat as usize].farms;
    (0..4).filter(|c| f[*c] > 0).max_by_key(|c| (f[*c], std::cmp::Reverse(*c)))
}

/// Remove one farm of `seat` from the game: of the colour they hold most of.
pub fn remove_farm(s: &mut State, seat: Seat) {
    if let Some(c) = default_farm(s, seat) {
        s.players[seat as usize].farms[c] -= 1;
    }
}

/// The loser's Districts on the feud's `edge`, which a raze may strike.
pub fn raze_targets(s: &State, loser: Seat, edge: usize) -> Vec<usize> {
    let map = s.map();
    let (a, b) = map.edges[edge];
    [a, b].into_iter().filter(|x| s.owner(*x) == Some(loser)).collect()
}

/// The standing default raze: the loser's District of greater value on the edge.
pub fn default_raze(s: &State, loser: Seat, edge: usize) -> Option<usize> {
    raze_targets(s, loser, edge).into_iter().max_by_key(|x| s.steads[*x].map(|v| v.1))
}

/// Raze a farm on `district`: it loses 1 of value (a District at 0 loses
/// its stead, which returns to its gothi) and a farm of `colour` (or, with
/// `None`, of the colour its gothi holds most of) is removed from the game.
pub fn raze(s: &mut State, district: usize, colour: Option<Colour>) {
    let (o, v) = s.steads[district].expect("owned");
    if v == 3 && s.version >= 3 && s.players[o as usize].small_tokens == 0 {
        // Rules version 3: no 1/2 Stead token in the gothi's supply can show
        // the value 2, and none is made from nothing ("72 Stead tokens (12
        // for each faction ...)"): the 3/4 token stays, and the farm alone
        // is razed ("Razed farms are removed from the game").
        match colour {
            Some(c) if s.players[o as usize].farms[c] > 0 => s.players[o as usize].farms[c] -= 1,
            _ => remove_farm(s, o),
        }
        return;
    }
    if v == 3 {
        s.players[o as usize].large_tokens += 1;
        s.players[o as usize].small_tokens = s.players[o as usize].small_tokens.saturating_sub(1);
    }
    if v <= 1 {
        s.steads[district] = None;
        s.players[o as usize].small_tokens += 1;
    } else {
        s.steads[district] = Some((o, v - 1));
    }
    match colour {
        Some(c) if s.players[o as usize].farms[c] > 0 => s.players[o as usize].farms[c] -= 1,
        _ => remove_farm(s, o),
    }
}

/// The answers to a farm call: each District the raze may strike with each
/// colour the loser has a farm of (any one colour when none), or each
/// colour to remove with a capture. Empty: there is nothing to choose from.
pub fn farm_options(s: &State, call: &FarmCall) -> Vec<Command> {
    let f = s.players[call.loser as usize].farms;
    let colours: Vec<Colour> = (0..4).filter(|c| f[*c] > 0).collect();
    match call.edge {
        Some(edge) => {
            let colours = if colours.is_empty() { vec![0] } else { colours };
            raze_targets(s, call.loser, edge)
                .into_iter()
                .flat_map(|district| colours.iter().map(move |&colour| Command::Raze { district, colour }))
                .collect()
        }
        None => colours.into_iter().map(|colour| Command::RemoveFarm { colour }).collect(),
    }
}

/// Carry out the winner's answer to the farm call at the front.
pub fn choose_farm(s: &mut State, command: &Command) -> Result<(), String> {
    let map = s.map();
    let d = data();
    let call = s.farm_calls.front().cloned().expect("a farm call");
    let options = farm_options(s, &call);
    if !options.contains(command) {
        let loser = call.loser;
        return Err(match (command, call.edge) {
            (Command::Raze { district, .. }, Some(edge)) if !raze_targets(s, loser, edge).contains(district) => {
                let (a, b) = map.edges[edge];
                format!(
                    "a farm is razed on a District of {} where the feud took place: {} or {}",
                    crate::view::gothi(loser),
                    map.districts[a],
                    map.districts[b]
                )
            }
            (Command::Raze { colour, .. } | Command::RemoveFarm { colour }, _) if *colour >= 4 => {
                format!("there is no colour number {colour}")
            }
            (Command::Raze { colour, .. } | Command::RemoveFarm { colour }, _) => {
                format!("{} has no {} farm to remove", crate::view::gothi(loser), d.colours[*colour])
            }
            _ => "choose the farm to remove first".into(),
        });
    }
    s.farm_calls.pop_front();
    match *command {
        Command::Raze { district, colour } => raze(s, district, Some(colour)),
        Command::RemoveFarm { colour } => s.players[call.loser as usize].farms[colour] -= 1,
        _ => unreachable!("checked against the options"),
    }
    Ok(())
}

/// The queue entries a resolved step leaves behind (the fostering round's draw).
pub fn after_step(s: &mut State, step: &Step) {
    if step.action == Action::Foster {
        let more = s.queue.front().is_some_and(|n| n.group == step.group && n.action == Action::Foster);
        if !more {
            refill_pool(s, step.initiator, step.strength);
        }
    }
}
