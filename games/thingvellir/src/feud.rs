//! Feud: the three triggers (set forth onto opposing Thingmen, ride a band into
//! them, a District's gothi challenging a band that rode through), the drawn
//! cards lined up by colour, Goods committed one at a time back and forth (or
//! sealed, as an option), the winners of each conflict, and compensation.

use runestone_engine::Seat;

use crate::actions::{default_raze, draw, raze};
use crate::data::{data, CardId};
use crate::state::{Conflict, FarmCall, Feud, FeudCall, State};

/// Begin the next called feud, if its sides still stand there.
pub fn start(s: &mut State, call: FeudCall) {
    let att = if call.without_men { 0 } else { s.edges[call.edge][call.attacker as usize] };
    let def = s.edges[call.edge][call.defender as usize];
    if (att == 0 && !call.without_men) || def == 0 {
        return; // the band was already slain or gone
    }
    let d = data();
    let drawn = [draw(s, att as usize), draw(s, def as usize)];
    let mut conflicts = vec![Conflict::default(); 4];
    for (side, cards) in drawn.iter().enumerate() {
        for c in cards {
            let card = &d.cards[*c as usize];
            conflicts[card.colour].present = true;
            conflicts[card.colour].worth[side] += card.worth as u32;
        }
    }
    let mut f = Feud {
        sides: [call.attacker, call.defender],
        edge: call.edge,
        men: [att, def],
        drawn,
        committed: [vec![], vec![]],
        conflicts,
        turn: 0,
        sealed: [None, None],
    };
    if !f.conflicts.iter().any(|c| c.present) {
        f.conflicts.iter_mut().for_each(|c| c.settled = true);
    }
    s.feud = Some(f);
    if s.feud.as_ref().is_some_and(|f| f.conflicts.iter().all(|c| !c.present || c.settled)) {
        finish(s);
    }
}

fn side_of(f: &Feud, seat: Seat) -> usize {
    if f.sides[0] == seat {
        0
    } else {
        1
    }
}

fn add_good(s: &mut State, side: usize, good: CardId) {
    let d = data();
    let f = s.feud.as_mut().expect("a feud");
    let seat = f.sides[side];
    let card = &d.cards[good as usize];
    let c = &mut f.conflicts[card.colour];
    if !c.settled {
        c.present = true;
        c.worth[side] += card.worth as u32;
    }
    f.committed[side].push(good);
    s.players[seat as usize].wealth.retain(|x| *x != good);
}

/// Faithful exchange: commit one Good.
pub fn commit(s: &mut State, seat: Seat, place: usize) -> Result<(), String> {
    let Some(good) = s.players[seat as usize].wealth.get(place).copied() else {
        return Err(format!("there is no Good at place {place} in your Wealth"));
    };
    let side = side_of(s.feud.as_ref().expect("a feud"), seat);
    add_good(s, side, good);
    pass_turn(s);
    Ok(())
}

/// Faithful exchange: accept the result of one conflict.
pub fn accept(s: &mut State, colour: usize) -> Result<(), String> {
    let f = s.feud.as_mut().expect("a feud");
    match f.conflicts.get_mut(colour) {
        Some(c) if c.present && !c.settled => c.settled = true,
        _ => return Err(format!("there is no open conflict of colour {colour} to accept")),
    }
    pass_turn(s);
    Ok(())
}

fn pass_turn(s: &mut State) {
    let f = s.feud.as_mut().expect("a feud");
    f.turn = 1 - f.turn;
    if f.conflicts.iter().all(|c| !c.present || c.settled) {
        finish(s);
    }
}

/// Sealed commitments: each side gives its Goods at once; revealed together.
pub fn seal(s: &mut State, seat: Seat, goods: &[usize]) -> Result<(), String> {
    let mut seen = Vec::new();
    for g in goods {
        if *g >= s.players[seat as usize].wealth.len() || seen.contains(g) {
            return Err(format!("there is no Good at place {g} in your Wealth (or it is named twice)"));
        }
        seen.push(*g);
    }
    let f = s.feud.as_mut().expect("a feud");
    let side = side_of(f, seat);
    f.sealed[side] = Some(goods.to_vec());
    if f.sealed.iter().all(|x| x.is_some()) {
        let sealed = f.sealed.clone();
        let sides = f.sides;
        for (side, places) in sealed.iter().enumerate() {
            let wealth = s.players[sides[side] as usize].wealth.clone();
            for p in places.as_ref().expect("sealed") {
                add_good(s, side, wealth[*p]);
            }
        }
        s.feud.as_mut().expect("a feud").conflicts.iter_mut().for_each(|c| c.settled = true);
        finish(s);
    }
    Ok(())
}

/// Settle the feud: winners gain Wordfame and slay or raze; compensation.
fn finish(s: &mut State) {
    let d = data();
    let mut f = s.feud.take().expect("a feud");
    let mut slain = [0u8; 2];
    for c in f.conflicts.iter().filter(|c| c.present) {
        let win = match c.worth[0].cmp(&c.worth[1]) {
            std::cmp::Ordering::Greater => 0,
            std::cmp::Ordering::Less => 1,
            std::cmp::Ordering::Equal => continue,
        };
        let (winner, loser) = (f.sides[win], f.sides[1 - win]);
        s.players[winner as usize].wordfame += 1;
        if f.men[1 - win] > 0 && s.edges[f.edge][loser as usize] > 0 {
            f.men[1 - win] -= 1;
            s.edges[f.edge][loser as usize] -= 1;
            s.players[loser as usize].slain += 1;
            slain[1 - win] += 1;
        } else if s.players[winner as usize].choices.farm {
            // The winner asked to choose the farm to raze: asked once the feud is done.
            s.farm_calls.push_back(FarmCall { chooser: winner, loser, edge: Some(f.edge) });
        } else if let Some(x) = default_raze(s, loser, f.edge) {
            // Raze a farm of the loser on either District of the feud (the standing default).
            raze(s, x, None);
        }
    }
    // Compensation: the Goods of greatest Worth that fit, from the opponent's commitments.
    for (side, lost) in slain.iter().enumerate() {
        let mut room = *lost as u32;
        let mut theirs = f.committed[1 - side].clone();
        theirs.sort_by_key(|c| std::cmp::Reverse(d.cards[*c as usize].worth));
        for c in theirs {
            let w = d.cards[c as usize].worth as u32;
            if w <= room {
                room -= w;
                f.committed[1 - side].retain(|x| *x != c);
                s.players[f.sides[side] as usize].wealth.push(c);
            }
        }
    }
    for side in 0..2 {
        s.doom.append(&mut f.committed[side]);
        s.doom.append(&mut f.drawn[side]);
    }
}

/// A side left the game mid-feud: the feud ends with nothing won; Goods and
/// drawn cards go to the Doom.
pub fn abandon(s: &mut State) {
    if let Some(mut f) = s.feud.take() {
        for side in 0..2 {
            s.doom.append(&mut f.committed[side]);
            s.doom.append(&mut f.drawn[side]);
        }
    }
}
