//! The one path of every command: which decision a seat is asked for
//! (`pending`), what a command does (`execute`, shared by `decide` and
//! `apply` so the two cannot disagree), and the orlog reshuffle.

use runestone_engine::{Emit, GameRng, Pending, RuleError, Seat};

use crate::actions as act;
use crate::data::{data, Action, CardId};
use crate::state::{Choosing, Command, Event, Phase, State, Step};
use crate::{class_of, council, feud, seasons, setup};

/// What a seat is asked now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    Propose,
    Vote,
    Resolve(Action),
    Choose(Choosing),
    Feud,
    Challenge,
    /// The winner chooses a farm to raze or remove (standing choice "ask me").
    Farm,
    /// Rules version 2: the season's program, given by every seat at once.
    Season,
}

/// Whom the game waits for and on what. `submitted` marks a sealed feud
/// commitment already given.
pub fn asks(s: &State) -> Vec<(Seat, Ask, bool)> {
    if s.phase == Phase::Over || s.players.is_empty() {
        return vec![];
    }
    if let Some(f) = &s.feud {
        if s.sealed_feuds {
            return (0..2).map(|i| (f.sides[i], Ask::Feud, f.sealed[i].is_some())).collect();
        }
        return vec![(f.sides[f.turn], Ask::Feud, false)];
    }
    if let Some((seat, c, _)) = s.choosing {
        return vec![(seat, Ask::Choose(c), false)];
    }
    if let Some(step) = &s.current {
        return vec![(step.seat, Ask::Resolve(step.action), false)];
    }
    if let Some(c) = s.farm_calls.front() {
        return vec![(c.chooser, Ask::Farm, false)];
    }
    if let Some(c) = s.challenges.front() {
        return vec![(c.owner, Ask::Challenge, false)];
    }
    match s.phase {
        Phase::Season => crate::program::season_asked(s)
            .into_iter()
            .map(|x| (x, Ask::Season, s.players[x as usize].season.is_some()))
            .collect(),
        Phase::Propose => vec![(s.lawspeaker, Ask::Propose, false)],
        Phase::Vote => s.voter.map(|v| vec![(v, Ask::Vote, false)]).unwrap_or_default(),
        _ => vec![],
    }
}

pub fn ask_of(s: &State, seat: Seat) -> Option<Ask> {
    asks(s).into_iter().find(|a| a.0 == seat).map(|a| a.1)
}

pub fn pending(s: &State) -> Vec<Pending> {
    let d = data();
    asks(s)
        .into_iter()
        .map(|(seat, ask, submitted)| {
            let (kind, prompt) = match ask {
                Ask::Propose => ("propose", "Propose a statute as Lawspeaker".to_owned()),
                Ask::Vote => {
                    let (l, lv) = s.token.unwrap_or((0, 0));
                    ("vote", format!("Support {} or sue", d.laws[l].statutes[lv].action.name()))
                }
                Ask::Resolve(a) => {
                    let st = s.current.as_ref().map(|c| c.strength).unwrap_or(0);
                    ("resolve", format!("Resolve {} at strength {st}", a.name()))
                }
                Ask::Choose(Choosing::Raid) => ("keep", "Keep half the cards you brought home".to_owned()),
                Ask::Choose(Choosing::Pledge) => ("swear", "Take a Bondi into your Oaths".to_owned()),
                Ask::Choose(Choosing::Replace) => {
                    ("replace", "Replace personae in the Foster pool with those you drew, or keep them".to_owned())
                }
                Ask::Farm => {
                    let c = s.farm_calls.front().expect("a farm call");
                    let what = if c.edge.is_some() { "raze" } else { "remove" };
                    ("farm", format!("Choose which farm of {} to {what}", crate::view::gothi(c.loser)))
                }
                Ask::Feud => ("feud", "Commit a Good, or accept a conflict".to_owned()),
                Ask::Challenge => ("challenge", "A band rode through your District: fight or let it pass".to_owned()),
                Ask::Season => (
                    "season",
                    format!("Give your program for round {}: your actions in order, your votes and answers", s.round),
                ),
            };
            Pending { seat, kind: kind.into(), class: class_of(kind), prompt, submitted }
        })
        .collect()
}

/// Carry out `command` of `seat`; `Err` says, in the game's words, why not.
pub fn execute(s: &mut State, seat: Seat, command: &Command) -> Result<(), String> {
    if standing(command) {
        if s.phase == Phase::Over {
            return Err("the game is over".into());
        }
        if s.players.get(seat as usize).is_none_or(|p| p.out) {
            return Err("you are out of the game and give no more orders".into());
        }
        match command {
            Command::Orders { orders } => {
                s.players[seat as usize].orders = orders.clone();
                if ask_of(s, seat) == Some(Ask::Vote) {
                    council::auto_votes(s);
                }
            }
            Command::Choices { choices } => s.players[seat as usize].choices = *choices,
            Command::Answers { answers } => {
                if s.version < 2 {
                    return Err("this game is played by the first rules, which have no standing answers".into());
                }
                s.players[seat as usize].answers = answers.clone();
            }
            Command::Season { program } => {
                if s.version < 2 {
                    return Err("this game is played by the first rules, which have no season's programs".into());
                }
                crate::program::check(program)?;
                if s.players[seat as usize].season.as_ref().is_some_and(|r| r.started) {
                    return Err("your program for this season has begun to run; it can no longer be replaced".into());
                }
                s.players[seat as usize].season = Some(crate::program::Running::new(program.clone()));
            }
            _ => unreachable!("only standing orders"),
        }
        seasons::advance(s);
        return Ok(());
    }
    let Some(ask) = ask_of(s, seat) else { return Err("nothing is asked of you now".into()) };
    match (ask, command) {
        (Ask::Propose, Command::Propose { law }) => council::propose(s, seat, *law)?,
        (Ask::Vote, Command::Vote { vote }) => council::vote(s, seat, *vote)?,
        (Ask::Feud, Command::Commit { good }) if !s.sealed_feuds => feud::commit(s, seat, *good)?,
        (Ask::Feud, Command::Accept { colour }) if !s.sealed_feuds => feud::accept(s, *colour)?,
        (Ask::Feud, Command::Seal { goods }) if s.sealed_feuds => feud::seal(s, seat, goods)?,
        (Ask::Choose(Choosing::Raid), Command::Keep { cards }) => act::keep(s, seat, cards)?,
        (Ask::Choose(Choosing::Pledge), Command::Swear { add, swaps }) => act::swear(s, seat, *add, swaps)?,
        (Ask::Choose(Choosing::Replace), Command::Replace { personae }) => act::replace(s, seat, personae)?,
        (Ask::Farm, Command::Raze { .. } | Command::RemoveFarm { .. }) => act::choose_farm(s, command)?,
        (Ask::Challenge, Command::Challenge { fight }) => {
            let c = s.challenges.pop_front().expect("a challenge");
            if *fight {
                s.feuds.push_back(crate::state::FeudCall {
                    attacker: c.owner,
                    defender: c.rider,
                    edge: c.edge,
                    without_men: true,
                });
            }
        }
        (Ask::Resolve(action), cmd) => {
            let step = s.current.clone().expect("a step");
            resolve(s, seat, action, cmd, step.strength)?;
            s.current = None;
            act::after_step(s, &step);
        }
        (Ask::Feud, _) if s.sealed_feuds => {
            return Err("this feud is fought by sealed commitments: seal your Goods".into())
        }
        (Ask::Feud, _) => return Err("in a feud, commit one Good or accept a conflict".into()),
        (Ask::Propose, _) => return Err("as Lawspeaker, propose a statute first".into()),
        (Ask::Vote, _) => return Err("vote to Support or Sue first".into()),
        (Ask::Choose(Choosing::Raid), _) => return Err("choose which cards to keep first".into()),
        (Ask::Choose(Choosing::Pledge), _) => return Err("choose your Bondi first".into()),
        (Ask::Choose(Choosing::Replace), _) => {
            return Err("choose which drawn personae replace those in the Foster pool first".into())
        }
        (Ask::Farm, _) => return Err("choose the farm to raze or remove first".into()),
        (Ask::Challenge, _) => return Err("decide whether to fight the band first".into()),
        (Ask::Season, _) => return Err("give your program for the season first (or play it by hand)".into()),
    }
    // Answered by hand: a program waiting for this answer goes on.
    if let Some(r) = s.players[seat as usize].season.as_mut() {
        r.hold = false;
    }
    seasons::advance(s);
    Ok(())
}

/// Carry out one command of the action `action` being resolved at `st`.
fn resolve(s: &mut State, seat: Seat, action: Action, cmd: &Command, st: u8) -> Result<(), String> {
    match (action, cmd) {
        (_, Command::Pass) => {}
        (Action::Settle, Command::Subsume { district, colour }) => act::subsume(s, seat, *district, *colour)?,
        (Action::Settle, Command::Expand { steps }) => act::expand(s, seat, steps, st)?,
        (Action::Ride, Command::Ride { set_forth, moves }) => act::ride(s, seat, set_forth, moves, st)?,
        (Action::Raid, Command::SailOut { thingmen }) => act::sail_out(s, seat, *thingmen, st)?,
        (Action::Raid, Command::ReturnLaden) => act::return_laden(s, seat, st),
        (Action::Pledge, Command::DrawPledge) => act::draw_pledge(s, seat, st),
        (Action::Foster, Command::SendOff { persona }) => act::send_off(s, seat, *persona)?,
        (Action::Foster, Command::FosterPersona { persona }) => act::foster(s, seat, *persona)?,
        (Action::Feast, Command::Give { gifts }) => act::give(s, seat, gifts, st)?,
        (Action::Feast, Command::Murder { bondi, edge, victim, also }) => {
            act::murder(s, seat, bondi, *edge, *victim, also, st)?
        }
        (Action::Feast, Command::Burn { bondi, district }) => act::burn(s, seat, *bondi, *district)?,
        (Action::Feast, Command::Capture { bondi, weapon, district, pay }) => {
            act::capture(s, seat, *bondi, *weapon, *district, *pay)?
        }
        _ => return Err(format!("you are resolving {} now; that command belongs to another action", action.name())),
    }
    Ok(())
}

/// Whether the gothi of `step` has anything to do but pass. A step with no
/// choice passes by itself (no input is asked for nothing). Cheap checks,
/// erring towards asking: Raid always has a choice (return laden), Settle
/// when a District may be subsumed or a single expansion is accepted, Ride
/// with a Thingman to set forth or a band to move, Foster when a persona may
/// be sent off or fostered, Feast with a Good for a guest or a Bondi and
/// someone to murder or a District to capture.
pub fn has_choice(s: &State, step: &Step) -> bool {
    let map = s.map();
    let d = data();
    let seat = step.seat;
    let p = &s.players[seat as usize];
    let mine = s.districts_of(seat);
    let tried = |c: Command| {
        let mut probe = s.clone();
        probe.current = Some(step.clone());
        resolve(&mut probe, seat, step.action, &c, step.strength).is_ok()
    };
    match step.action {
        Action::Raid | Action::Pledge => true,
        Action::Settle => {
            let subsume = p.small_tokens > 0
                && (0..map.districts.len()).any(|x| {
                    s.steads[x].is_none()
                        && map.settleable(x)
                        && (map.edges_of(x).any(|e| s.edges[e][seat as usize] > 0)
                            || map.edges.iter().any(|&(a, b)| {
                                (a == x && s.owner(b) == Some(seat)) || (b == x && s.owner(a) == Some(seat))
                            }))
                });
            subsume || mine.iter().any(|&x| tried(Command::Expand { steps: vec![(x, 0)] }))
        }
        Action::Ride => (p.longhall > 0 && !mine.is_empty()) || s.edges.iter().any(|e| e[seat as usize] > 0),
        Action::Foster => {
            p.hird.iter().any(|&persona| tried(Command::SendOff { persona }))
                || s.pool.iter().flatten().any(|&persona| tried(Command::FosterPersona { persona }))
        }
        Action::Feast => {
            let guests = act::guests(s, seat);
            // Feast B: a murder needs opposing Thingmen on an edge of one's
            // Districts; a capture one's Thingman on a rival's District and a
            // 1/2 Stead token.
            let murder = s.edges.iter().enumerate().any(|(e, men)| {
                let (a, b) = map.edges[e];
                (mine.contains(&a) || mine.contains(&b)) && (0..s.seats).any(|o| o != seat && men[o as usize] > 0)
            });
            let capture = p.small_tokens > 0
                && (0..map.districts.len()).any(|x| {
                    s.owner(x).is_some_and(|o| o != seat) && map.edges_of(x).any(|e| s.edges[e][seat as usize] > 0)
                });
            let burn = s.arson
                && s.burned.len() < 4
                && (0..map.districts.len()).any(|x| {
                    s.owner(x).is_some_and(|o| o != seat) && map.edges_of(x).any(|e| s.edges[e][seat as usize] > 0)
                });
            (!p.oaths.is_empty() && (murder || capture || burn))
                || (!guests.is_empty() && p.wealth.iter().any(|c| d.cards[*c as usize].worth <= step.strength))
        }
    }
}

/// Standing orders: voting orders and standing choices, which a seated
/// gothi still in the game may give at any time.
pub fn standing(command: &Command) -> bool {
    matches!(
        command,
        Command::Orders { .. } | Command::Choices { .. } | Command::Answers { .. } | Command::Season { .. }
    )
}

/// Whether the command's body is secret to the seat (a hand while choosing,
/// Bondi sworn, a sealed commitment, standing orders and choices).
fn secret(command: &Command) -> bool {
    matches!(
        command,
        Command::Keep { .. }
            | Command::Swear { .. }
            | Command::Seal { .. }
            | Command::Orders { .. }
            | Command::Choices { .. }
            | Command::Replace { .. }
            | Command::Answers { .. }
            | Command::Season { .. }
    )
}

/// The orlog runs low: the Doom is shuffled beneath it before anything draws.
pub fn reshuffle(probe: &mut State, rng: &mut GameRng, out: &mut Vec<Emit<Event>>) {
    if probe.deck.len() < 30 && !probe.doom.is_empty() {
        let mut doom: Vec<CardId> = probe.doom.clone();
        rng.shuffle(&mut doom);
        doom.extend_from_slice(&probe.deck);
        let e = Event::Reshuffled { deck: doom };
        apply(probe, &e);
        out.push(Emit::secret(e, vec![], Event::Reshuffled { deck: vec![] }));
    }
}

pub fn decide(s: &State, seat: Seat, command: &Command, rng: &mut GameRng) -> Result<Vec<Emit<Event>>, RuleError> {
    let mut out = Vec::new();
    let mut probe = s.clone();
    reshuffle(&mut probe, rng, &mut out);
    execute(&mut probe, seat, command).map_err(RuleError::new)?;
    let e = Event::Acted { seat, command: command.clone() };
    out.push(if secret(command) { Emit::secret(e, vec![seat], Event::Hidden { seat }) } else { Emit::public(e) });
    // Rules version 2: the programs and standing answers that now decide.
    crate::program::run(&mut probe, rng, &mut out);
    Ok(out)
}

pub fn apply(s: &mut State, event: &Event) {
    match event {
        Event::Setup {
            seats,
            lawspeaker,
            sealed_feuds,
            advanced_outlawry,
            district_goods,
            arson,
            deck,
            version,
            homes,
        } => setup::apply_setup(
            s,
            *seats,
            *lawspeaker,
            *sealed_feuds,
            *advanced_outlawry,
            *district_goods,
            *arson,
            deck,
            *version,
            homes,
        ),
        Event::Reshuffled { deck } => {
            s.deck = deck.clone();
            s.doom.clear();
        }
        Event::Acted { seat, command } => {
            let _ = execute(s, *seat, command);
        }
        Event::Hidden { .. } => {}
        Event::ProgramStep { seat, step, outcome, command, .. } => {
            crate::program::apply_told(s, *seat, Some((*step, *outcome)), command)
        }
        Event::Answered { seat, command, .. } => crate::program::apply_told(s, *seat, None, command),
    }
}

/// Whether `event` fits the position `s`: its seats and cards exist
/// ([`runestone_engine::Game::fits`]). A command's own indices are checked
/// by the rules as it is executed again.
pub fn fits(s: &State, event: &Event) -> Result<(), String> {
    let seats = s.players.len();
    let seat = |k: Seat| match (k as usize) < seats {
        true => Ok(()),
        false => Err(format!("it names seat {k}, but the game has {seats} seats")),
    };
    let cards = |deck: &[crate::data::CardId]| match deck.iter().find(|c| **c as usize >= data().cards.len()) {
        None => Ok(()),
        Some(c) => Err(format!("it names card {c}, but there are {}", data().cards.len())),
    };
    match event {
        Event::Setup { seats, lawspeaker, deck, version, homes, .. } => {
            if !(2..=6).contains(seats) || lawspeaker >= seats {
                return Err(format!(
                    "a game of {seats} seats with seat {lawspeaker} as Lawspeaker is not one the rules set up"
                ));
            }
            let mut dealt = homes.clone();
            dealt.sort_unstable();
            let wanted: Vec<u8> = if version.unwrap_or(1) >= 4 { (0..*seats).collect() } else { vec![] };
            if dealt != wanted {
                return Err(format!("the Home Stead cards dealt ({homes:?}) are not the first {seats}, one to a seat"));
            }
            cards(deck)
        }
        Event::Reshuffled { deck } => cards(deck),
        Event::Acted { seat: k, .. }
        | Event::Hidden { seat: k }
        | Event::ProgramStep { seat: k, .. }
        | Event::Answered { seat: k, .. } => seat(*k),
    }
}
