//! The round and the year: which steps a round runs ("SEQUENCE OF
//! SUBPHASES WITHIN THE GAME ROUND" ① to ⑪, with the year's steps New Year,
//! weather and yield, taxes, harvest and recruitment, festivals and winter
//! weather, salaries, feeding), the dice they use, and the end of the game.

use runestone_engine::{Emit, GameRng};

use crate::state::{Event, Mode, Season, State, Step};
use crate::{battle, construction, fishing, moves, trade, year, Ctx};

/// Dice for one step: drawn live in `decide`, or replayed from the event.
pub struct Dice<'a> {
    rng: Option<&'a mut GameRng>,
    pub rolls: Vec<u8>,
    pos: usize,
}

impl<'a> Dice<'a> {
    pub fn live(rng: &'a mut GameRng) -> Self {
        Dice { rng: Some(rng), rolls: Vec::new(), pos: 0 }
    }
    pub fn replay(rolls: &[u8]) -> Dice<'static> {
        Dice { rng: None, rolls: rolls.to_vec(), pos: 0 }
    }
    /// One D6.
    pub fn d6(&mut self) -> u8 {
        match &mut self.rng {
            Some(r) => {
                let x = r.roll(6);
                self.rolls.push(x);
                x
            }
            None => {
                let x = self.rolls.get(self.pos).copied().unwrap_or(1);
                self.pos += 1;
                x
            }
        }
    }
}

/// The steps of a round in `season`.
pub fn schedule(season: Season) -> Vec<Step> {
    let mut v = vec![match season {
        Season::Spring => Step::NewYear,
        Season::Summer => Step::WeatherYieldTaxes,
        Season::Autumn => Step::HarvestRecruitment,
        Season::Winter => Step::FestivalsWinterWeather,
    }];
    v.extend([
        Step::SpecialBegin,
        Step::Units,
        Step::MoveSpecialHerds,
        Step::RetreatAttrition,
        Step::WithdrawalBattle,
        Step::CombatSiege,
        Step::Looting,
        Step::Construction,
        Step::RearTradeSalaries,
        Step::Fishing,
        Step::SpecialEnd,
    ]);
    if season == Season::Winter {
        v.push(Step::Feeding);
    }
    v
}

/// Run one step on the position.
pub fn run_step(s: &mut State, step: Step, d: &mut Dice, rep: &mut Vec<String>) {
    match step {
        Step::NewYear => year::new_year(s, rep),
        Step::WeatherYieldTaxes => year::weather_yield_taxes(s, d, rep),
        Step::HarvestRecruitment => year::harvest_recruitment(s, rep),
        Step::FestivalsWinterWeather => year::festivals_winter(s, d, rep),
        Step::SpecialBegin | Step::SpecialEnd => special(s, step, rep),
        Step::Units => moves::units(s, rep),
        Step::MoveSpecialHerds => moves::special_herds(s, rep),
        Step::RetreatAttrition => moves::retreat_attrition(s, d, rep),
        Step::WithdrawalBattle => battle::battles(s, d, rep),
        Step::CombatSiege => battle::sieges(s, d, rep),
        Step::Looting => battle::looting(s, rep),
        Step::Construction => construction::construction(s, rep),
        Step::RearTradeSalaries => trade::rear_trade(s, rep),
        Step::Fishing => fishing::fishing(s, d, rep),
        Step::Feeding => year::feeding(s, rep),
    }
    // Version 3: no land unit stands at sea beyond the room aboard its
    // realm's ships after any step (a ship lost in a sea battle's escape,
    // dismissed unpaid or dissolved unfed leaves none behind).
    if s.from_version(3) {
        moves::drown(s, rep);
    }
}

/// ① and ⑪: the Vikings 800 AD factions have no special-phase rules; at the
/// end of the round a realm pays 4 PP for each VP lost since the last round
/// ("Loss of 1VP (compared to the last round) => -4") and a realm with no
/// units and no settlements is out.
fn special(s: &mut State, step: Step, rep: &mut Vec<String>) {
    if step != Step::SpecialEnd {
        return;
    }
    let t = crate::data::tables();
    for seat in 0..s.realms.len() {
        let r = &s.realms[seat];
        let lost = r.last_vp - r.vp;
        if lost > 0 {
            rep.push(format!("{} lost {lost} VP this round: {} PP", r.home, lost * t.prestige.vp_lost));
            s.add_pp(seat as u8, lost * t.prestige.vp_lost);
        }
        let r = &mut s.realms[seat];
        r.last_vp = r.vp;
        let alive = s.fields.iter().any(|f| {
            f.settlement.is_some_and(|x| x.owner as usize == seat) || f.units.iter().any(|u| u.owner as usize == seat)
        });
        if !alive && !s.realms[seat].out {
            s.realms[seat].out = true;
            rep.push(format!("{} has no units and no settlements left and is out of the game", s.realms[seat].home));
        }
    }
}

/// All orders are in: reveal them, resolve the round, and begin the next
/// round or end the game.
pub fn resolve_round(cx: &mut Ctx) {
    for seat in 0..cx.s.realms.len() {
        if let Some(o) = cx.s.realms[seat].orders.clone() {
            cx.emit(Event::OrdersRevealed { seat: seat as u8, orders: o });
        }
    }
    for step in schedule(cx.s.season) {
        let mut trial = cx.s.clone();
        let mut rep = Vec::new();
        let rolls = {
            let mut d = Dice::live(cx.rng);
            run_step(&mut trial, step, &mut d, &mut rep);
            d.rolls
        };
        cx.out.push(Emit::public(Event::Resolved { step, dice: rolls, report: rep }));
        cx.s = trial;
    }
    let t = crate::data::tables();
    let alive = cx.s.realms.iter().filter(|r| !r.out).count();
    let leader = cx.s.realms.iter().filter(|r| r.vp >= t.dominance.goal).map(|r| r.home.clone()).next();
    let last = cx.s.season == Season::Winter && cx.s.year >= cx.s.years;
    if let Some(home) = leader {
        cx.emit(Event::GameEnded { reason: format!("{home} reached {} victory points (DOMINANCE)", t.dominance.goal) });
    } else if alive <= 1 {
        cx.emit(Event::GameEnded { reason: "only one realm is left standing".into() });
    } else if last {
        cx.emit(Event::GameEnded { reason: format!("the {} years of the game are over", cx.s.years) });
    } else {
        let (year, season) = match cx.s.season {
            Season::Spring => (cx.s.year, Season::Summer),
            Season::Summer => (cx.s.year, Season::Autumn),
            Season::Autumn => (cx.s.year, Season::Winter),
            Season::Winter => (cx.s.year + 1, Season::Spring),
        };
        cx.emit(Event::RoundEnded { year, season });
    }
}

/// BASIC or more ("valid from BASIC mode"): BASIC and ORIGINAL.
pub fn basic(s: &State) -> bool {
    matches!(s.mode, Mode::Basic | Mode::Original)
}

/// "valid from ORIGINAL mode".
pub fn original(s: &State) -> bool {
    s.mode == Mode::Original
}
