//! I. The Law Council (The First Round; The Second Round and Beyond): the
//! Lawspeaker proposes, each player clockwise Supports or Sues (by standing
//! orders where they gave them), then actions resolve clockwise from the
//! Lawspeaker, Suits first, then Support.

use runestone_engine::Seat;

use crate::data::{data, Action};
use crate::state::{OrderDo, Orders, Phase, State, Step, Vote};

/// The statute levels the Lawspeaker may propose now, per Law.
pub fn proposable(s: &State) -> Vec<(usize, usize)> {
    let d = data();
    (0..d.laws.len())
        .filter_map(|law| match s.token {
            Some((l, level)) if l == law => (level + 1 < d.laws[law].statutes.len()).then_some((law, level + 1)),
            _ => Some((law, 0)),
        })
        .collect()
}

/// The statutes `seat` may sue for: another Law, at or below the chosen level.
pub fn suable(s: &State, seat: Seat) -> Vec<(usize, usize)> {
    let Some((law, level)) = s.token else { return vec![] };
    if s.at_thingvellir(seat) == 0 {
        return vec![];
    }
    let d = data();
    let mut out = Vec::new();
    for (l, lw) in d.laws.iter().enumerate() {
        if l != law {
            for lv in 0..=level.min(lw.statutes.len() - 1) {
                out.push((l, lv));
            }
        }
    }
    out
}

pub fn propose(s: &mut State, seat: Seat, law: usize) -> Result<(), String> {
    let d = data();
    if law >= d.laws.len() {
        return Err(format!("there is no Law number {law}; the Laws are numbered 0 to {}", d.laws.len() - 1));
    }
    let Some(&(l, level)) = proposable(s).iter().find(|p| p.0 == law) else {
        return Err(format!("the Lawspeaker token is at the top of the {}: choose another Law", d.laws[law].name));
    };
    s.token = Some((l, level));
    s.votes = vec![None; s.seats as usize];
    s.votes[seat as usize] = Some(Vote::Support);
    s.phase = Phase::Vote;
    s.voter = next_voter(s, seat);
    auto_votes(s);
    Ok(())
}

fn next_voter(s: &State, after: Seat) -> Option<Seat> {
    s.clockwise(after).into_iter().skip(1).find(|x| s.votes[*x as usize].is_none())
}

pub fn vote(s: &mut State, seat: Seat, vote: Vote) -> Result<(), String> {
    if let Vote::Sue { law, level } = vote {
        if !suable(s, seat).contains(&(law, level)) {
            let d = data();
            if s.at_thingvellir(seat) == 0 {
                return Err(if s.map().thingvellir.is_some() {
                    "you have no Thingmen on a side of Thingvellir to sue with".into()
                } else {
                    "you have no Thingmen on Thingvellir to sue with".into()
                });
            }
            return Err(format!(
                "you may sue only on another Law than the {}, at or below the chosen statute",
                d.laws[s.token.map(|t| t.0).unwrap_or(0)].name
            ));
        }
    }
    if matches!(vote, Vote::Sue { .. }) && s.map().thingvellir.is_some() {
        lift_to_law(s, seat);
    }
    s.votes[seat as usize] = Some(vote);
    s.voter = next_voter(s, seat);
    auto_votes(s);
    Ok(())
}

/// Rules version 4: "to Sue, place Thingmen of yours that are on
/// Thingvellir on a different law" (33): every Thingman of the seat on a
/// side of Thingvellir leaves its edge for the Law, "not available to
/// resolve the action from that lawsuit" (36).
fn lift_to_law(s: &mut State, seat: Seat) {
    let map = s.map();
    for e in (0..map.edges.len()).filter(|e| map.is_side(*e)) {
        let n = std::mem::take(&mut s.edges[e][seat as usize]);
        if n > 0 {
            s.players[seat as usize].suing.push((e, n));
        }
    }
}

/// Rules version 4: "Once all actions are complete, return Thingmen to
/// their place around Thingvellir" (37): each suer's Thingmen go back to
/// the sides they left.
pub fn return_from_law(s: &mut State) {
    for seat in 0..s.seats {
        let p = &mut s.players[seat as usize];
        let suing = std::mem::take(&mut p.suing);
        if !p.out {
            for (e, n) in suing {
                s.edges[e][seat as usize] += n;
            }
        }
    }
}

/// What standing orders say for the statute proposed, if anything.
pub fn ordered(s: &State, seat: Seat, orders: &Orders) -> Option<Vote> {
    let d = data();
    let (law, level) = s.token?;
    let action = d.laws[law].statutes[level].action;
    let what = orders.rules.iter().find(|r| r.0 == action).map(|r| r.1).or(orders.otherwise)?;
    match what {
        OrderDo::Support => Some(Vote::Support),
        OrderDo::Ask => None,
        OrderDo::SueFor { action } => {
            let best = suable(s, seat)
                .into_iter()
                .filter(|(l, lv)| d.laws[*l].statutes[*lv].action == action)
                .max_by_key(|x| x.1);
            Some(best.map(|(law, level)| Vote::Sue { law, level }).unwrap_or(Vote::Support))
        }
    }
}

/// Cast the votes of seats whose standing orders answer, in clockwise order,
/// until one must be asked; resolve the council when all have voted.
pub fn auto_votes(s: &mut State) {
    while let Some(v) = s.voter {
        if s.version >= 2 {
            // Version 2 casts them in `decide`, each told in the log.
            return;
        }
        let Some(orders) = s.players[v as usize].orders.clone() else { return };
        let Some(vote) = ordered(s, v, &orders) else { return };
        s.votes[v as usize] = Some(vote);
        s.voter = next_voter(s, v);
    }
    if s.phase == Phase::Vote {
        resolve_council(s);
    }
}

/// Queue the actions: suits clockwise from the Lawspeaker, then Support.
fn resolve_council(s: &mut State) {
    let d = data();
    let (law, level) = s.token.expect("a statute was proposed");
    let order = s.clockwise(s.lawspeaker);
    // Suits: each statute sued is one suit, begun by its first suer clockwise.
    let mut suits: Vec<(usize, usize)> = Vec::new();
    for &p in &order {
        if let Some(Vote::Sue { law, level }) = s.votes[p as usize] {
            if !suits.contains(&(law, level)) {
                suits.push((law, level));
            }
        }
    }
    for (sl, slv) in suits {
        let suers: Vec<Seat> =
            order.iter().copied().filter(|p| s.votes[*p as usize] == Some(Vote::Sue { law: sl, level: slv })).collect();
        let men: u8 = suers
            .iter()
            .map(|p| match s.map().thingvellir {
                Some(_) => s.players[*p as usize].suing.iter().map(|x| x.1).sum(),
                None => s.players[*p as usize].thingvellir,
            })
            .sum();
        let st = &d.laws[sl].statutes[slv];
        s.group_counter += 1;
        for &p in &suers {
            s.players[p as usize].took = Some((st.action, d.laws[sl].colour));
            s.queue.push_back(Step {
                seat: p,
                action: st.action,
                strength: men + st.bonus,
                initiator: suers[0],
                group: s.group_counter,
                bondi: false,
            });
        }
    }
    let supporters: Vec<Seat> = order.iter().copied().filter(|p| s.votes[*p as usize] == Some(Vote::Support)).collect();
    let st = &d.laws[law].statutes[level];
    s.group_counter += 1;
    for &p in &supporters {
        s.players[p as usize].took = Some((st.action, d.laws[law].colour));
        s.queue.push_back(Step {
            seat: p,
            action: st.action,
            strength: supporters.len() as u8 + st.bonus,
            initiator: s.lawspeaker,
            group: s.group_counter,
            bondi: false,
        });
    }
    s.phase = Phase::Resolve;
    s.voter = None;
}

/// The action a proposal of `law` would put to the vote now.
pub fn proposed_action(s: &State, law: usize) -> Option<Action> {
    proposable(s).into_iter().find(|p| p.0 == law).map(|(l, lv)| data().laws[l].statutes[lv].action)
}
