//! II. Hunting for Sheep, III. The Long Dark Winter (with Advanced Outlawry
//! as an option), and the end of the game; and `advance`, which moves the
//! game on until someone must decide.

use runestone_engine::Seat;

use crate::data::{data, Action};
use crate::feud;
use crate::state::{Phase, State, Step};

/// Wordfame that ends the game.
pub const FAME_TO_WIN: i32 = 22;

/// Move on until a decision is needed or the game ends.
pub fn advance(s: &mut State) {
    loop {
        eliminate(s);
        if s.phase == Phase::Over {
            return;
        }
        if ended(s) {
            s.phase = Phase::Over;
            return;
        }
        if s.phase == Phase::Season {
            // Every program asked for is given: the round begins.
            if crate::program::season_ready(s) {
                s.phase = Phase::Propose;
            }
            return;
        }
        if s.feud.is_some() || s.choosing.is_some() || s.current.is_some() {
            return;
        }
        if let Some(call) = s.farm_calls.front().cloned() {
            // A farm the winner asked to choose: asked only when there is a choice.
            let options = crate::actions::farm_options(s, &call);
            if options.len() > 1 && !s.players[call.chooser as usize].out {
                return;
            }
            s.farm_calls.pop_front();
            if let Some(only) = options.first() {
                s.farm_calls.push_front(call);
                crate::actions::choose_farm(s, only).expect("the only option is accepted");
            }
            continue;
        }
        if let Some(call) = s.feuds.pop_front() {
            feud::start(s, call);
            continue;
        }
        if let Some(c) = s.challenges.front() {
            let valid = s.owner(c.district) == Some(c.owner) && s.edges[c.edge][c.rider as usize] > 0;
            if valid {
                return;
            }
            s.challenges.pop_front();
            continue;
        }
        if s.phase != Phase::Resolve {
            return;
        }
        if let Some(step) = s.queue.pop_front() {
            if !s.players[step.seat as usize].out && step.strength > 0 {
                if step.action == Action::Pledge {
                    // "Pledge: draw ...": the draw is no choice, so the gothi is
                    // asked only what to swear from the cards drawn.
                    crate::actions::draw_pledge(s, step.seat, step.strength);
                    if s.players[step.seat as usize].hand.is_empty() {
                        s.choosing = None;
                    }
                    crate::actions::after_step(s, &step);
                } else if crate::rules::has_choice(s, &step) {
                    s.current = Some(step);
                } else {
                    crate::actions::after_step(s, &step);
                }
            }
            continue;
        }
        if !s.hunting {
            crate::council::return_from_law(s);
            s.hunting = true;
            queue_hunt(s);
            continue;
        }
        winter(s);
    }
}

/// Hunting for Sheep: from the Lawspeaker clockwise, each Bondi whose colour
/// matches the action taken acts once at its strength; the Home Stead Bondi
/// acts on the action taken at that colour's strength.
fn queue_hunt(s: &mut State) {
    let d = data();
    for seat in s.clockwise(s.lawspeaker) {
        let p = &s.players[seat as usize];
        let Some((action, colour)) = p.took else { continue };
        let strength = d.strength(p.farms[colour]);
        let mut steps = Vec::new();
        for &c in &p.oaths {
            let card = &d.cards[c as usize];
            if card.colour == colour {
                steps.push(card.action);
            }
        }
        if s.district_goods && steps.is_empty() {
            // Designed (option): "Bondi take actions OR Districts produce
            // goods": with no sworn Bondi of the colour, the gothi's
            // Districts produce one Good each instead of the Home Stead
            // Bondi's action.
            let n = s.districts_of(seat).len();
            let goods = crate::actions::draw(s, n);
            s.players[seat as usize].wealth.extend(goods);
            continue;
        }
        steps.push(action);
        for a in steps {
            s.group_counter += 1;
            let g = s.group_counter;
            s.queue.push_back(Step { seat, action: a, strength, initiator: seat, group: g, bondi: true });
        }
    }
}

/// The Wordfame of the Long Dark Winter: each gothi of `order` with
/// neighbours gains 1 per colour of farm of which they have more than every
/// neighbour; the colours (0 to 3) for each.
pub fn winter_gains(s: &State, order: &[Seat]) -> Vec<(Seat, Vec<usize>)> {
    let mut gains = Vec::new();
    for &seat in order {
        let ns = s.neighbours(seat);
        if ns.is_empty() {
            continue;
        }
        let mine = s.players[seat as usize].farms;
        let colours: Vec<usize> =
            (0..4).filter(|c| ns.iter().all(|n| mine[*c] > s.players[*n as usize].farms[*c])).collect();
        gains.push((seat, colours));
    }
    gains
}

/// The Long Dark Winter.
fn winter(s: &mut State) {
    let order = s.clockwise(s.lawspeaker);
    if s.advanced_outlawry {
        outlaw_acts(s, &order);
    }
    for (seat, colours) in winter_gains(s, &order) {
        s.players[seat as usize].wordfame += colours.len() as i32;
        if s.version >= 3 && s.players[seat as usize].wordfame >= FAME_TO_WIN {
            // Rules version 3: "Starting with the Lawspeaker and proceeding
            // clockwise" the first to reach 22 ends the game ("first to 22
            // Wordfame"); those after score nothing this winter.
            break;
        }
    }
    for p in s.players.iter_mut() {
        p.longhall += p.slain;
        p.slain = 0;
        p.took = None;
        p.season = None;
        if !s.advanced_outlawry {
            p.outlawed = false;
        }
    }
    s.murders.clear();
    s.burned.clear();
    s.lawspeaker = s.clockwise(s.lawspeaker).get(1).copied().unwrap_or(s.lawspeaker);
    s.round += 1;
    s.hunting = false;
    s.votes = vec![None; s.seats as usize];
    s.phase = match ended(s) {
        true => Phase::Over,
        // Rules version 2: the next round begins with every seat's program.
        false if s.version >= 2 => Phase::Season,
        false => Phase::Propose,
    };
}

/// Advanced Outlawry (designed; see RULES-NOTES.md): an outlawed gothi pays
/// the life-ring fee, their Good of greatest Worth, to a gothi they murdered
/// from (lesser outlawry, lifted); one who cannot pay suffers full outlawry:
/// 2 Wordfame lost and every Thingman of theirs on the board slain, and
/// stays outlawed until a fee is paid.
fn outlaw_acts(s: &mut State, order: &[Seat]) {
    let d = data();
    for &seat in order {
        if !s.players[seat as usize].outlawed {
            continue;
        }
        let p = &s.players[seat as usize];
        if let Some((i, _)) =
            p.wealth.iter().enumerate().max_by_key(|(i, c)| (d.cards[**c as usize].worth, std::cmp::Reverse(*i)))
        {
            let good = s.players[seat as usize].wealth.remove(i);
            match s.murders.iter().find(|m| m.0 == seat) {
                Some(&(_, victim)) if !s.players[victim as usize].out => s.players[victim as usize].wealth.push(good),
                _ => s.doom.push(good),
            }
            s.players[seat as usize].outlawed = false;
        } else {
            let p = &mut s.players[seat as usize];
            p.wordfame = (p.wordfame - 2).max(0);
            let mut n = 0;
            for e in s.edges.iter_mut() {
                n += e[seat as usize];
                e[seat as usize] = 0;
            }
            s.players[seat as usize].slain += n;
        }
    }
}

/// A gothi with no District left is out: their Thingmen leave the board.
/// By rules version 4, where no District is settled at setup, only a gothi
/// who has held one.
fn eliminate(s: &mut State) {
    if s.players.is_empty() {
        return;
    }
    let v4 = s.map().thingvellir.is_some();
    for seat in 0..s.seats {
        let none = s.districts_of(seat).is_empty();
        if v4 && !none {
            s.players[seat as usize].settled = true;
        }
        if !s.players[seat as usize].out && none && (!v4 || s.players[seat as usize].settled) {
            s.players[seat as usize].out = true;
            s.players[seat as usize].suing.clear();
            for e in s.edges.iter_mut() {
                e[seat as usize] = 0;
            }
            s.queue.retain(|st| st.seat != seat);
            if s.current.as_ref().is_some_and(|c| c.seat == seat) {
                s.current = None;
            }
            if s.choosing.is_some_and(|c| c.0 == seat) {
                let hand = std::mem::take(&mut s.players[seat as usize].hand);
                s.doom.extend(hand);
                s.choosing = None;
            }
            if s.feud.as_ref().is_some_and(|f| f.sides.contains(&seat)) {
                feud::abandon(s);
            }
            s.challenges.retain(|c| c.owner != seat && c.rider != seat);
            s.farm_calls.retain(|c| c.chooser != seat && c.loser != seat);
            if s.lawspeaker == seat && s.phase == Phase::Propose {
                s.lawspeaker = s.clockwise(seat).first().copied().unwrap_or(seat);
            }
            if s.voter == Some(seat) {
                s.voter = s.clockwise(seat).into_iter().find(|x| s.votes[*x as usize].is_none());
            }
        }
    }
}

/// "first to 22 Wordfame or last one left with a farm in Iceland".
pub fn ended(s: &State) -> bool {
    !s.players.is_empty() && (s.players.iter().any(|p| p.wordfame >= FAME_TO_WIN) || s.alive().count() <= 1)
}

/// Seats from first to last. Ties among those at the top are broken by more
/// Wordfame, then more farms, then more Districts, then the seat nearest
/// clockwise from the Lawspeaker (the Lawspeaker first).
pub fn ranking(s: &State) -> Vec<Seat> {
    let mut order = s.clockwise(s.lawspeaker);
    let all: Vec<Seat> = (0..s.seats).map(|i| (s.lawspeaker + i) % s.seats).collect();
    for x in all {
        if !order.contains(&x) {
            order.push(x);
        }
    }
    let key = |x: &Seat| {
        let p = &s.players[*x as usize];
        (p.out, -p.wordfame, -(p.farms.iter().map(|f| *f as i32).sum::<i32>()), -(s.districts_of(*x).len() as i32))
    };
    order.sort_by_key(key);
    order
}
