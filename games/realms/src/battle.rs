//! COMBAT (1) WITHDRAWAL, BATTLE; COMBAT (2) SIEGE; COMBAT (3) LOOTING, with
//! "COMBAT BONUSES", "UNITS MORALE", "UNITS EXPERIENCE", "LEVEL OF
//! COMMAND", "BATTLE SPOILS", the prestige and dominance gains, and
//! "COMBAT - LOOTING".

use runestone_engine::Seat;

use crate::control::{connected, foreign, lf, units_of};
use crate::data::{tables, Tables};
use crate::season::{basic, Dice};
use crate::state::{Standing, State, Unit, UnitKind};

/// Most battle rounds in one COMBAT sub-phase; a battle still undecided is
/// a draw and both armies stay (designed).
pub const MAX_ROUNDS: u32 = 8;

/// What a die shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Face {
    Sword,
    Shield,
    Empty,
}

/// A die to roll: colour, inverted (sword and empty swapped), free re-rolls, may pay re-rolls.
type Die = (u8, bool, u8, bool);

#[derive(Clone, Copy, Debug)]
struct Fighter {
    u: Unit,
    lives: u8,
    back: bool,
    /// Building: at the back, half attack.
    builder: bool,
}

/// The ground a battle is fought on.
#[derive(Clone, Copy, Debug)]
pub struct Ground {
    /// Mountains or wetlands.
    pub rough: bool,
    pub sea: bool,
    pub siege: bool,
}

/// Dice colour (0 white, 1 blue, 2 red, none) and lives of a unit on this ground.
pub fn profile(k: UnitKind, g: Ground) -> (Option<u8>, u8) {
    let t = tables();
    let d = t.unit(k);
    let colour = match d.dice.as_str() {
        "white" => Some(0),
        "blue" => Some(1),
        "red" => Some(2),
        _ => None,
    };
    let hard = g.rough || g.sea || g.siege;
    match k {
        UnitKind::HeavyInfantry if g.rough || g.sea => (Some(1), 1),
        UnitKind::Cavalry if hard => (Some(1), 2),
        UnitKind::WarElephant if hard => (None, 2),
        _ => (colour, d.lives),
    }
}

/// The face a roll shows on a die of `colour`; `inverted`: "A sword on a
/// white dice means empty and vice versa" (Light Infantry in mountains,
/// wetlands and on ships).
pub fn face(t: &Tables, colour: u8, roll: u8, inverted: bool) -> Face {
    let faces = match colour {
        0 => &t.dice.white,
        1 => &t.dice.blue,
        _ => &t.dice.red,
    };
    let f = match faces[(roll.clamp(1, 6) - 1) as usize].as_str() {
        "S" => Face::Sword,
        "D" => Face::Shield,
        _ => Face::Empty,
    };
    match (inverted, f) {
        (true, Face::Sword) => Face::Empty,
        (true, Face::Empty) => Face::Sword,
        _ => f,
    }
}

/// One side of a battle.
struct Side {
    seat: Seat,
    fighters: Vec<Fighter>,
    started: usize,
    standing: Standing,
    budget: i32,
    back_paid: bool,
    attacking: bool,
    /// Levels of fortification defending it.
    lf: u8,
    kills: u32,
    pp_gained: i32,
}

impl Side {
    fn alive(&self) -> usize {
        self.fighters.iter().filter(|f| f.lives > 0).count()
    }
}

/// Whether bonuses other than terrain work: FAST plays without command
/// levels and always with bonuses; BASIC needs commanders ("WITHOUT
/// COMMANDERS no bonuses work except terrain bonuses").
fn bonuses(s: &State, seat: Seat) -> bool {
    !basic(s) || s.realms[seat as usize].command > 0
}

/// Roll the dice of the given fighters: answer swords and shields.
fn volley(s: &mut State, side: &mut Side, who: &[usize], g: Ground, d: &mut Dice) -> (u32, u32) {
    let t = tables();
    let bonus = bonuses(s, side.seat);
    let b = basic(s);
    let command = s.realms[side.seat as usize].command;
    // (colour, inverted, free re-rolls, may pay re-rolls)
    let mut dice: Vec<Die> = Vec::new();
    let mut builder_dice: Vec<Die> = Vec::new();
    let mut per_kind = [0u32; 9];
    for &i in who {
        let f = side.fighters[i];
        if f.lives == 0 {
            continue;
        }
        let (colour, _) = profile(f.u.kind, g);
        let Some(c) = colour else { continue };
        if f.u.kind == UnitKind::Corsair && s.from_version(2) {
            continue; // it attacks as an attrition roll, see `ultimate`
        }
        let inverted = f.u.kind == UnitKind::LightInfantry && (g.rough || g.sea);
        let free = if b {
            let xp = match f.u.xp {
                0 => 0,
                1 => 1,
                _ => 2,
            };
            xp + u8::from(command >= 3)
        } else {
            0
        };
        // War Elephants: "2 red dice", "never re-rolls".
        let elephant = f.u.kind == UnitKind::WarElephant;
        let die = if elephant { (c, false, 0, false) } else { (c, inverted, free, b && !f.u.recruit) };
        for _ in 0..if elephant { 2 } else { 1 } {
            if f.builder {
                builder_dice.push(die);
            } else {
                dice.push(die);
            }
        }
        if !f.builder {
            per_kind[f.u.kind.idx()] += 1;
        }
    }
    let half = builder_dice.len() / 2;
    dice.extend(builder_dice.into_iter().take(half));
    if bonus {
        // "6 identical units = +7th dice"; very high morale: every 3 same units + 4th die (attack).
        let morale = if b { t.morale(s.realms[side.seat as usize].pp) } else { 1 };
        for k in UnitKind::ALL {
            let n = per_kind[k.idx()];
            let (colour, _) = profile(k, g);
            let Some(c) = colour else { continue };
            let mut extra = n / 6;
            if morale == 4 && side.attacking {
                extra = n / 3;
            }
            for _ in 0..extra {
                dice.push((c, k == UnitKind::LightInfantry && (g.rough || g.sea), 0, false));
            }
        }
    }
    for _ in 0..side.lf {
        dice.push((1, false, 0, false));
    }
    let mut faces: Vec<(Face, Die, u8)> = Vec::new();
    for die in dice {
        let f = face(t, die.0, d.d6(), die.1);
        faces.push((f, die, 0));
    }
    // Free re-rolls of empty dice, then re-rolls paid with prestige.
    for entry in faces.iter_mut() {
        let mut free = entry.1 .2;
        while entry.0 == Face::Empty && free > 0 {
            entry.0 = face(t, entry.1 .0, d.d6(), entry.1 .1);
            free -= 1;
        }
    }
    let per_die = if command >= 2 { 2 } else { 1 };
    loop {
        let cost = -t.prestige.reroll;
        if side.budget < cost || s.realms[side.seat as usize].pp < cost {
            break;
        }
        let cand: Vec<usize> = (0..faces.len())
            .filter(|&i| faces[i].0 == Face::Empty && faces[i].1 .3 && faces[i].2 < per_die)
            .take(2)
            .collect();
        if cand.is_empty() {
            break;
        }
        s.add_pp(side.seat, t.prestige.reroll);
        side.budget -= cost;
        for i in cand {
            faces[i].0 = face(t, faces[i].1 .0, d.d6(), faces[i].1 .1);
            faces[i].2 += 1;
        }
    }
    let swords_raw = faces.iter().filter(|f| f.0 == Face::Sword).count() as i64;
    let empties = faces.iter().filter(|f| f.0 == Face::Empty).count() as i64;
    let mut swords = swords_raw + empties / 3;
    let mut shields = faces.iter().filter(|f| f.0 == Face::Shield).count() as i64;
    let n = who.iter().filter(|&&i| side.fighters[i].lives > 0 && !side.fighters[i].back).count() as i64;
    // Version 3: very low morale takes its swords with or without
    // commanders (it is no bonus).
    if b && !bonus && s.from_version(3) && t.morale(s.realms[side.seat as usize].pp) == 0 {
        swords -= (n + 4) / 5;
    }
    if bonus {
        shields += n / 5;
        if b {
            match t.morale(s.realms[side.seat as usize].pp) {
                0 => swords -= (n + 4) / 5,
                2 if !side.attacking => shields += n / 4,
                3 if side.attacking => swords += n / 4,
                3 => shields += n / 4,
                4 if side.attacking => swords += n / 4,
                4 => shields += n / 3,
                _ => {}
            }
        }
    }
    if b {
        shields += who.iter().filter(|&&i| side.fighters[i].lives > 0 && side.fighters[i].u.xp >= 3).count() as i64;
    }
    shields += 5 * side.lf as i64;
    (swords.max(0) as u32, shields.max(0) as u32)
}

/// Deal `hits` to `target`; the hitting side chooses: units in front, the
/// weakest first; with `target_back` (6 PP once) one unit at the back first.
fn deal(s: &mut State, hitter: &mut Side, target: &mut Side, mut hits: u32, rep: &mut Vec<String>) {
    let t = tables();
    let mut order: Vec<usize> = (0..target.fighters.len()).filter(|&i| target.fighters[i].lives > 0).collect();
    order.sort_by_key(|&i| (target.fighters[i].back, target.fighters[i].lives));
    if hitter.standing.target_back && !hitter.back_paid && hits > 0 {
        if let Some(p) = order.iter().position(|&i| target.fighters[i].back) {
            if s.realms[hitter.seat as usize].pp >= -t.prestige.target_back {
                let i = order.remove(p);
                order.insert(0, i);
                hitter.back_paid = true;
                s.add_pp(hitter.seat, t.prestige.target_back);
                rep.push(format!("{} pays 6 PP to aim at a unit at the back", s.realms[hitter.seat as usize].home));
            }
        }
    }
    // Units at the back are out of reach while any unit stands in front.
    let front = order.iter().filter(|&&i| !target.fighters[i].back).count();
    for (pos, &i) in order.iter().enumerate() {
        if hits == 0 {
            break;
        }
        let paid_back = pos == 0 && hitter.back_paid && target.fighters[i].back;
        if target.fighters[i].back && front > 0 && !paid_back {
            continue;
        }
        let take = hits.min(target.fighters[i].lives as u32);
        hits -= take;
        deal_to(s, hitter, target, i, take);
    }
}

/// `take` lives off one fighter; its destruction counts for prestige and VP.
fn deal_to(s: &mut State, hitter: &mut Side, target: &mut Side, i: usize, take: u32) {
    let t = tables();
    let f = &mut target.fighters[i];
    f.lives -= take.min(f.lives as u32) as u8;
    if f.lives == 0 {
        let value = t.unit(f.u.kind).pp_value as u32;
        let pp = if f.u.kind == UnitKind::LightInfantry { t.prestige.destroy_li } else { t.prestige.destroy_other };
        hitter.kills += 1;
        hitter.pp_gained += pp;
        s.add_pp(hitter.seat, pp);
        s.realms[hitter.seat as usize].killed_pp += value;
        s.realms[target.seat as usize].lost_pp += value;
    }
}

fn exchange(
    s: &mut State,
    a: &mut Side,
    b: &mut Side,
    (wa, wb): (&[usize], &[usize]),
    g: Ground,
    d: &mut Dice,
    rep: &mut Vec<String>,
) {
    let (sa, ha) = volley(s, a, wa, g, d);
    let (sb, hb) = volley(s, b, wb, g, d);
    let ka = ultimate(s, a, wa, d);
    let kb = ultimate(s, b, wb, d);
    deal(s, a, b, sa.saturating_sub(hb), rep);
    deal(s, b, a, sb.saturating_sub(ha), rep);
    slay(s, a, b, ka, rep);
    slay(s, b, a, kb, rep);
}

/// Corsairs "attack as attrition roll", "ultimate attack" (rules version 2,
/// designed): each Corsair rolls a D6 instead of its white die; each 6
/// destroys one enemy unit outright, whatever its lives and the shields.
fn ultimate(s: &State, side: &Side, who: &[usize], d: &mut Dice) -> u32 {
    if !s.from_version(2) {
        return 0;
    }
    let corsairs =
        who.iter().filter(|&&i| side.fighters[i].lives > 0 && side.fighters[i].u.kind == UnitKind::Corsair).count();
    (0..corsairs).map(|_| u32::from(d.d6() == 6)).sum()
}

/// Destroy `kills` units of `target` outright: in front first, the weakest first.
fn slay(s: &mut State, hitter: &mut Side, target: &mut Side, kills: u32, rep: &mut Vec<String>) {
    for _ in 0..kills {
        let alive = (0..target.fighters.len()).filter(|&i| target.fighters[i].lives > 0);
        let Some(i) = alive.min_by_key(|&i| (target.fighters[i].back, target.fighters[i].lives)) else {
            return;
        };
        rep.push(format!(
            "a Corsair of {} destroys {} of {}",
            s.realms[hitter.seat as usize].home,
            target.fighters[i].u.kind.name(),
            s.realms[target.seat as usize].home
        ));
        let lives = target.fighters[i].lives as u32;
        deal_to(s, hitter, target, i, lives);
    }
}

/// Where an escaping side goes: an adjacent field with its own settlement,
/// else any adjacent field without foreign units it may stand on.
fn escape_field(s: &State, seat: Seat, f: u16, ships: bool) -> Option<u16> {
    let map = s.map();
    let nb = &map.fields[f as usize].neighbours;
    let ok = |n: u16| {
        let ni = &map.fields[n as usize];
        map.in_play(n, s.players) && !foreign(s, n, seat) && ni.is_sea() == ships && !map.blocked(f, n)
    };
    nb.iter()
        .copied()
        .find(|&n| ok(n) && s.fields[n as usize].settlement.is_some_and(|x| x.owner == seat))
        .or_else(|| nb.iter().copied().find(|&n| ok(n)))
}

fn side_of(s: &mut State, f: u16, seat: Seat, attacking: bool, g: Ground) -> Side {
    let units: Vec<Unit> = s.fields[f as usize].units.iter().filter(|u| u.owner == seat).copied().collect();
    s.fields[f as usize].units.retain(|u| u.owner != seat);
    let building = s.fields[f as usize].construction.is_some_and(|c| c.owner == seat);
    let t = tables();
    let weak_cavalry = crate::control::has(s, seat, crate::data::Ability::WeakCavalry);
    let fighters: Vec<Fighter> = units
        .into_iter()
        .map(|u| {
            let builder = building && u.kind == UnitKind::LightInfantry;
            let mut lives = profile(u.kind, g).1;
            // Huns: "Their Cavalry has 1 less life (minimum 2)."
            if u.kind == UnitKind::Cavalry && weak_cavalry {
                lives = lives.saturating_sub(1).max(2.min(lives));
            }
            Fighter { u, lives, back: t.unit(u.kind).at_back || builder, builder }
        })
        .collect();
    let lf = if !attacking && s.fields[f as usize].settlement.is_some_and(|x| x.owner == seat) { lf(s, f) } else { 0 };
    let standing = s.realms[seat as usize].orders.as_ref().map(|o| o.battle).unwrap_or_default();
    Side {
        seat,
        started: fighters.len(),
        fighters,
        standing,
        budget: standing.reroll_pp as i32,
        back_paid: false,
        attacking,
        lf,
        kills: 0,
        pp_gained: 0,
    }
}

/// Fight one battle on `f`; answer the winner, if any.
pub fn fight(
    s: &mut State,
    f: u16,
    attacker: Seat,
    defender: Seat,
    d: &mut Dice,
    rep: &mut Vec<String>,
) -> Option<Seat> {
    let map = s.map();
    let info = &map.fields[f as usize];
    // Version 3: a garrison withdrawn into its settlement is besieged.
    let siege = s.from_version(3) && s.fields[f as usize].settlement.is_some_and(|x| x.owner == defender);
    let g = Ground { rough: info.rough(), sea: info.is_sea(), siege };
    let mut a = side_of(s, f, attacker, true, g);
    let mut b = side_of(s, f, defender, false, g);
    let (an, bn) = (s.realms[attacker as usize].home.clone(), s.realms[defender as usize].home.clone());
    rep.push(format!(
        "battle on {}: {} ({} units) attacks {} ({} units)",
        map.name_of(f),
        an,
        a.started,
        bn,
        b.started
    ));
    let mut winner = None;
    let mut escaped: Vec<(Seat, u16, Vec<Fighter>)> = Vec::new();
    let (mut first, mut last) = (1, MAX_ROUNDS);
    if g.siege && b.lf > 0 {
        // Version 3: "The attacker must first break into the settlement
        // (breaking through all of the LF's shields in one round). The
        // defenders attack directly, but no LF bonuses ... after breaking
        // through the fortifications." A failed break-in ends the battle
        // for this round (the attacker lost if none of it is left).
        first = 2;
        if !break_in(s, f, &mut a, &mut b, g, d, rep) {
            last = 0;
            if a.alive() == 0 {
                winner = Some(defender);
            }
        }
    }
    for round in first..=last {
        let all_a: Vec<usize> = (0..a.fighters.len()).collect();
        let all_b: Vec<usize> = (0..b.fighters.len()).collect();
        let charger = |x: &Fighter| matches!(x.u.kind, UnitKind::Cavalry | UnitKind::WarElephant);
        if round == 1 && !g.rough && !g.sea && !g.siege {
            let ca: Vec<usize> = all_a.iter().copied().filter(|&i| charger(&a.fighters[i])).collect();
            let cb: Vec<usize> = all_b.iter().copied().filter(|&i| charger(&b.fighters[i])).collect();
            if !ca.is_empty() || !cb.is_empty() {
                exchange(s, &mut a, &mut b, (&ca, &cb), g, d, rep);
            }
            let ra: Vec<usize> = all_a.iter().copied().filter(|&i| !charger(&a.fighters[i])).collect();
            let rb: Vec<usize> = all_b.iter().copied().filter(|&i| !charger(&b.fighters[i])).collect();
            exchange(s, &mut a, &mut b, (&ra, &rb), g, d, rep);
        } else {
            exchange(s, &mut a, &mut b, (&all_a, &all_b), g, d, rep);
        }
        let (la, lb) = (a.alive(), b.alive());
        if la == 0 || lb == 0 {
            winner = match (la, lb) {
                (0, 0) => None,
                (0, _) => Some(defender),
                _ => Some(attacker),
            };
            break;
        }
        // Escape by standing orders, attacker first; interception by cavalry.
        let mut fled = None;
        for first in [true, false] {
            let (me, other) = if first { (&mut a, &b) } else { (&mut b, &a) };
            let alive = me.alive();
            if me.standing.escape_below == 0 || alive * 100 >= me.started * me.standing.escape_below as usize {
                continue;
            }
            let Some(to) = escape_field(s, me.seat, f, g.sea) else { continue };
            let intercept = !g.rough && other.fighters.iter().any(|x| x.lives > 0 && x.u.kind == UnitKind::Cavalry);
            let mut gone = Vec::new();
            for x in me.fighters.iter_mut().filter(|x| x.lives > 0) {
                if intercept && d.d6() == 6 {
                    x.lives = 0;
                    let t = tables();
                    s.realms[me.seat as usize].lost_pp += t.unit(x.u.kind).pp_value as u32;
                    s.realms[other.seat as usize].killed_pp += t.unit(x.u.kind).pp_value as u32;
                    continue;
                }
                gone.push(*x);
                x.lives = 0;
            }
            rep.push(format!("{} escapes to {}", s.realms[me.seat as usize].home, map.name_of(to)));
            escaped.push((me.seat, to, gone));
            fled = Some(me.seat);
            break;
        }
        if let Some(loser) = fled {
            winner = Some(if loser == attacker { defender } else { attacker });
            break;
        }
    }
    let t = tables();
    let distributed = (a.pp_gained + b.pp_gained).max(0) as u32;
    if let Some(w) = winner {
        let l = if w == attacker { defender } else { attacker };
        let gold = Tables::tier(&t.spoils, distributed).gold;
        s.add_gold(w, gold as u32);
        s.realms[w as usize].vp += t.dominance.battle[0];
        s.realms[l as usize].vp += t.dominance.battle[2];
        rep.push(format!(
            "{} wins the battle ({} PP distributed, {gold} gold of spoils)",
            s.realms[w as usize].home, distributed
        ));
        if basic(s) {
            let side = if w == attacker { &mut a } else { &mut b };
            let mut ups = side.kills as usize;
            let mut order: Vec<usize> = (0..side.fighters.len()).filter(|&i| side.fighters[i].lives > 0).collect();
            order.sort_by_key(|&i| side.fighters[i].u.xp);
            for i in order {
                if ups == 0 {
                    break;
                }
                if side.fighters[i].u.xp < 3 {
                    side.fighters[i].u.xp += 1;
                    ups -= 1;
                }
            }
        }
    } else {
        rep.push(format!("the battle on {} is undecided", map.name_of(f)));
    }
    for side in [&a, &b] {
        for x in side.fighters.iter().filter(|x| x.lives > 0) {
            s.fields[f as usize].units.push(x.u);
        }
    }
    for (_, to, gone) in escaped {
        for x in gone {
            s.fields[to as usize].units.push(x.u);
        }
    }
    if s.fields[f as usize].construction.is_some_and(|c| units_of(s, f, c.owner) == 0 && foreign(s, f, c.owner)) {
        s.fields[f as usize].construction = None;
        rep.push(format!("the construction on {} is lost", map.name_of(f)));
    }
    winner
}

/// The first round of a siege (rules version 3): the attacker's swords must
/// break all the LF's shields (5 per LF, 4 fewer per Siege Machine) in this
/// one round, while the defenders roll their dice and the LF's blue dice
/// against it; swords beyond the LF's shields strike the defenders. Once
/// broken, the fortification gives no more bonuses (also in ⑥ this round).
/// Answer whether the attacker broke in.
fn break_in(s: &mut State, f: u16, a: &mut Side, b: &mut Side, g: Ground, d: &mut Dice, rep: &mut Vec<String>) -> bool {
    let map = s.map();
    let all_a: Vec<usize> = (0..a.fighters.len()).collect();
    let all_b: Vec<usize> = (0..b.fighters.len()).collect();
    let level = b.lf as u32;
    let machines = a.fighters.iter().filter(|x| x.lives > 0 && x.u.kind == UnitKind::SiegeMachine).count() as u32;
    let need = siege_need(level, machines);
    let (sa, ha) = volley(s, a, &all_a, g, d);
    let (sb, hb) = volley(s, b, &all_b, g, d);
    let dice_shields = hb.saturating_sub(5 * level);
    deal(s, b, a, sb.saturating_sub(ha), rep);
    if sa < need {
        rep.push(format!(
            "siege of {}: {} breaks {sa} of the {need} shields of the fortification and fails",
            map.name_of(f),
            s.realms[a.seat as usize].home
        ));
        return false;
    }
    rep.push(format!(
        "siege of {}: {} breaks into the settlement ({sa} swords against {need} shields)",
        map.name_of(f),
        s.realms[a.seat as usize].home
    ));
    deal(s, a, b, (sa - need).saturating_sub(dice_shields), rep);
    b.lf = 0;
    s.breached.push(f);
    true
}

/// ⑤ every field where units of two realms stand: the realm that was there
/// before the round (or holds the settlement) defends; the others attack in
/// seat order.
pub fn battles(s: &mut State, d: &mut Dice, rep: &mut Vec<String>) {
    for f in 0..s.fields.len() as u16 {
        for _ in 0..12 {
            let fi = &s.fields[f as usize];
            let mut owners: Vec<Seat> = fi.units.iter().map(|u| u.owner).collect();
            owners.sort_unstable();
            owners.dedup();
            if owners.len() < 2 {
                break;
            }
            let holder = fi.settlement.map(|x| x.owner).filter(|o| owners.contains(o));
            let stayed = fi.units.iter().find(|u| u.moved_from.is_none()).map(|u| u.owner);
            let defender = holder.or(stayed).unwrap_or(owners[0]);
            let attacker = owners.iter().copied().find(|&o| o != defender).unwrap_or(defender);
            if fi.settlement.is_some_and(|x| x.owner == defender) && !s.defended.contains(&f) {
                s.defended.push(f);
            }
            if fight(s, f, attacker, defender, d, rep).is_none() {
                break;
            }
        }
    }
    if s.from_version(2) {
        crate::moves::drown(s, rep);
    }
}

/// ⑥ an attacker alone on a field with a foreign settlement must break all
/// the LF's shields (5 per LF, 4 fewer per Siege Machine) in one round.
pub fn sieges(s: &mut State, d: &mut Dice, rep: &mut Vec<String>) {
    let map = s.map();
    for f in 0..s.fields.len() as u16 {
        let Some(st) = s.fields[f as usize].settlement else { continue };
        if units_of(s, f, st.owner) > 0 {
            continue;
        }
        let Some(att) = s.fields[f as usize].units.iter().map(|u| u.owner).find(|&o| o != st.owner) else { continue };
        if s.fields[f as usize].units.iter().any(|u| u.owner != att && u.owner != st.owner) {
            continue;
        }
        // Version 3: a fortification broken in ⑤ this round is not broken again.
        let level = if s.breached.contains(&f) { 0 } else { lf(s, f) as u32 };
        let g = Ground { rough: map.fields[f as usize].rough(), sea: false, siege: true };
        if level > 0 {
            let mut side = side_of(s, f, att, true, g);
            let who: Vec<usize> = (0..side.fighters.len()).collect();
            let machines = side.fighters.iter().filter(|x| x.u.kind == UnitKind::SiegeMachine).count() as u32;
            let (swords, _) = volley(s, &mut side, &who, g, d);
            for x in &side.fighters {
                s.fields[f as usize].units.push(x.u);
            }
            let need = siege_need(level, machines);
            if swords < need {
                rep.push(format!(
                    "siege of {}: {} breaks {swords} of the {need} shields and fails",
                    map.name_of(f),
                    s.realms[att as usize].home
                ));
                continue;
            }
        }
        take_settlement(s, f, att, rep);
    }
    if s.from_version(2) {
        feed_withdrawn(s, rep);
    }
}

/// "The withdrawn herd that remains in the settlement after the battle must
/// be fed" (rules version 2, designed): after ⑥, where foreign units stand on
/// the field of a realm's settlement, its herds there are withdrawn into the
/// settlement (looting does not take them); each eats 1 grain from that
/// settlement's store, or is culled for its meat.
fn feed_withdrawn(s: &mut State, rep: &mut Vec<String>) {
    let t = tables();
    let map = s.map();
    for f in 0..s.fields.len() as u16 {
        let Some(st) = s.fields[f as usize].settlement else { continue };
        if !foreign(s, f, st.owner) {
            continue;
        }
        let (mut fed, mut culled) = (0, Vec::new());
        let herds = s.fields[f as usize].herds.clone();
        for (owner, h) in herds.into_iter().filter(|h| h.0 == st.owner) {
            if s.fields[f as usize].grain > 0 {
                s.fields[f as usize].grain -= 1;
                fed += 1;
            } else if let Some(i) = s.fields[f as usize].herds.iter().position(|x| *x == (owner, h)) {
                s.fields[f as usize].herds.remove(i);
                let r = &mut s.realms[owner as usize];
                r.meat = r.meat.saturating_add(t.commodities[h.idx()].meat[1]);
                culled.push(h.name());
            }
        }
        let home = &s.realms[st.owner as usize].home;
        if fed > 0 {
            rep.push(format!(
                "{home} feeds {fed} withdrawn herds in the settlement on {} (1 grain each)",
                map.name_of(f)
            ));
        }
        for h in culled {
            rep.push(format!(
                "{home}: a withdrawn herd of {h} on {} cannot be fed and is culled for meat",
                map.name_of(f)
            ));
        }
    }
}

/// Swords needed to break into a settlement in one round: 5 shields per LF,
/// 4 fewer for each Siege Machine ("-4 shields from LF").
pub fn siege_need(level: u32, machines: u32) -> u32 {
    (5 * level).saturating_sub(4 * machines)
}

/// A settlement falls to `att`: undefended it is seized; defended it is
/// destroyed and looted, or degraded, by the attacker's standing orders.
fn take_settlement(s: &mut State, f: u16, att: Seat, rep: &mut Vec<String>) {
    let t = tables();
    let map = s.map();
    let Some(st) = s.fields[f as usize].settlement else { return };
    let loser = st.owner;
    let defended = s.defended.contains(&f);
    let raze = s.realms[att as usize].orders.as_ref().map(|o| o.battle.raze).unwrap_or(true);
    let (pp, [vw, vl]) =
        if st.city { (t.prestige.city, t.dominance.city) } else { (t.prestige.village, t.dominance.village) };
    s.add_pp(att, pp);
    s.realms[att as usize].vp += vw;
    s.realms[loser as usize].vp += vl;
    let yard = s.fields[f as usize].shipyard.filter(|y| y.owner == loser);
    if yard.is_some() {
        s.add_pp(att, t.prestige.shipyard);
    }
    if s.fields[f as usize].construction.is_some_and(|c| c.owner == loser) {
        s.fields[f as usize].construction = None;
    }
    let name = if st.city { "city" } else { "village" };
    if !defended {
        s.fields[f as usize].settlement = Some(crate::state::Settlement { owner: att, ..st });
        if let Some(y) = yard {
            s.fields[f as usize].shipyard = Some(crate::state::Shipyard { owner: att, ..y });
        }
        let cap = crate::control::grain_cap(s, f);
        s.fields[f as usize].grain = s.fields[f as usize].grain.min(cap);
        if s.fields[f as usize].grain > 0 {
            s.realms[att as usize].vp += t.dominance.grain[0];
            s.realms[loser as usize].vp += t.dominance.grain[2];
        }
        rep.push(format!("{} seizes the undefended {name} on {}", s.realms[att as usize].home, map.name_of(f)));
    } else if raze {
        let mut gold = if st.city { t.looting.city } else { t.looting.village } as u32;
        if yard.is_some_and(|y| y.port) {
            gold += t.looting.port as u32;
        }
        if s.fields[f as usize].grain > 0 {
            s.realms[loser as usize].vp += t.dominance.grain[2];
        }
        let fi = &mut s.fields[f as usize];
        fi.settlement = None;
        fi.grain = 0;
        if yard.is_some() {
            fi.shipyard = None;
            fi.fish = 0;
        }
        s.add_gold(att, gold);
        rep.push(format!(
            "{} destroys and loots the {name} on {} for {gold} gold",
            s.realms[att as usize].home,
            map.name_of(f)
        ));
    } else {
        let fi = &mut s.fields[f as usize];
        if st.city {
            fi.settlement = Some(crate::state::Settlement { owner: att, city: false, fort: st.fort });
        } else {
            fi.settlement = None;
        }
        if let Some(y) = yard {
            fi.shipyard = if y.port { Some(crate::state::Shipyard { owner: att, port: false }) } else { None };
        }
        let cap = crate::control::grain_cap(s, f);
        s.fields[f as usize].grain = s.fields[f as usize].grain.min(cap);
        rep.push(format!("{} degrades the {name} on {}", s.realms[att as usize].home, map.name_of(f)));
    }
}

/// ⑦ "Units can loot the controlled LGF (gain +1 gold if FC to CUS).
/// Marked with a red token. PP effect." Herds found there are stolen and
/// sown or grown grain destroyed.
pub fn looting(s: &mut State, rep: &mut Vec<String>) {
    let t = tables();
    let map = s.map();
    for seat in 0..s.realms.len() as Seat {
        let Some(o) = s.realms[seat as usize].orders.clone() else { continue };
        let conn = connected(s, seat);
        for &f in &o.loot {
            if f as usize >= s.fields.len() {
                continue;
            }
            let fi = &s.fields[f as usize];
            let ok = !map.fields[f as usize].is_sea()
                && units_of(s, f, seat) > 0
                && !foreign(s, f, seat)
                && !fi.looted
                && fi.settlement.is_none_or(|x| x.owner != seat);
            if !ok {
                rep.push(format!(
                    "{}: {} not looted: it must be a controlled LGF without a red token and without your settlement",
                    s.realms[seat as usize].home,
                    map.name_of(f)
                ));
                continue;
            }
            let rival_settlement = fi.settlement.is_some_and(|x| x.owner != seat);
            let viking_raid = crate::control::has(s, seat, crate::data::Ability::LootAbroad)
                && !map.in_homeland(f, &s.realms[seat as usize].faction);
            let pp =
                if rival_settlement || viking_raid { t.prestige.loot_rival_settlement } else { t.prestige.loot_other };
            s.fields[f as usize].looted = true;
            s.add_pp(seat, pp);
            if conn[f as usize] {
                s.add_gold(seat, t.looting.field as u32);
            }
            // Version 2: herds withdrawn into their realm's settlement are not taken.
            let inside = s.fields[f as usize].settlement.map(|x| x.owner).filter(|_| s.from_version(2));
            let stolen: Vec<(Seat, crate::state::Herd)> =
                s.fields[f as usize].herds.iter().copied().filter(|h| h.0 != seat && Some(h.0) != inside).collect();
            for (owner, h) in &stolen {
                s.realms[seat as usize].vp += t.dominance.herd[0];
                s.realms[*owner as usize].vp += t.dominance.herd[2];
                rep.push(format!("{} steals a herd of {}", s.realms[seat as usize].home, h.name()));
            }
            for h in &mut s.fields[f as usize].herds {
                if Some(h.0) != inside {
                    h.0 = seat;
                }
            }
            if let Some((owner, _)) = s.fields[f as usize].sown.filter(|x| x.0 != seat) {
                s.realms[owner as usize].vp += t.dominance.grain[2];
                s.fields[f as usize].sown = None;
                s.fields[f as usize].crop = 0;
            }
            rep.push(format!("{} loots {} ({pp:+} PP)", s.realms[seat as usize].home, map.name_of(f)));
        }
    }
}

/// The swords and shields `seat`'s units on `f` roll with `dice` (tests).
#[cfg(test)]
pub fn roll_side(s: &State, f: u16, seat: Seat, attacking: bool, dice: &[u8]) -> (u32, u32) {
    let mut s = s.clone();
    let info = &s.map().fields[f as usize];
    let g = Ground { rough: info.rough(), sea: info.is_sea(), siege: false };
    let mut side = side_of(&mut s, f, seat, attacking, g);
    let who: Vec<usize> = (0..side.fighters.len()).collect();
    volley(&mut s, &mut side, &who, g, &mut Dice::replay(dice))
}
