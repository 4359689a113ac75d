//! Game setup (3): the map (3.1), the gods dealt and chosen in secret (3.2),
//! the first player (3.3), the knowledge, building and rumor stacks (3.5-3.7)
//! and the starting positions (3.8).

use runestone_engine::{reject, Emit, GameRng, RuleError, Seat};

use crate::data::data;
use crate::state::{apply, Event, Phase, Rules, State};
use crate::{Ctx, Options};

/// Check the options, in the game's words.
pub fn rules(o: &Options) -> Result<Rules, RuleError> {
    if !(1..=6).contains(&o.trophies_per_player) {
        reject!("trophies_per_player must be 1 to 6 (the rule is 3), not {}", o.trophies_per_player);
    }
    if !(2..=3).contains(&o.cities_per_path) {
        reject!("cities_per_path must be 2 or 3, not {}", o.cities_per_path);
    }
    if !(3..=9).contains(&o.victories_for_rumor) {
        reject!("victories_for_rumor must be 3 to 9 (the rule is 6), not {}", o.victories_for_rumor);
    }
    Ok(Rules {
        hidden_scoring: o.hidden_scoring,
        trophies_per_player: o.trophies_per_player,
        victories_for_rumor: o.victories_for_rumor,
        cities_per_path: o.cities_per_path,
        reverse_first_player: o.reverse_first_player,
        reverse_priority: o.reverse_priority,
        powered_down_temples: o.powered_down_temples,
        version: 1,
        cities_per_player: o.cities_per_player.unwrap_or(6),
    })
}

pub fn setup(o: &Options, seats: u8, version: u32, rng: &mut GameRng) -> Result<Vec<Emit<Event>>, RuleError> {
    if !(3..=6).contains(&seats) {
        reject!("Fallen Kingdoms is played by 3 to 6 players, not {seats}");
    }
    if !(1..=crate::RULES_VERSION).contains(&version) {
        reject!("there is no rules version {version} of Fallen Kingdoms (1 to {})", crate::RULES_VERSION);
    }
    let rules = Rules { version, ..rules(o)? };
    if o.cities_per_player.is_some() && version < 3 {
        reject!("cities_per_player comes with rules version 3; version {version} plays 6 cities per player");
    }
    let per = rules.cities_per_player;
    if crate::board::layouts(seats, per).is_empty() {
        let fit: Vec<String> =
            (4..=9).filter(|&k| !crate::board::layouts(seats, k).is_empty()).map(|k| k.to_string()).collect();
        reject!(
            "the six map tiles cannot make {per} cities per player for {seats} players; they make {}",
            fit.join(", ")
        );
    }
    let d = data();
    let board = crate::board::random(seats, per, rng);
    let stack = (rules.trophies_per_player as usize * seats as usize).min(18);
    let mut s = State::default();
    let mut out = Vec::new();
    let mut emit = |s: &mut State, e: Event, vis: Option<(Vec<Seat>, Event)>| {
        apply(s, &e);
        out.push(match vis {
            None => Emit::public(e),
            Some((seats, red)) => Emit::secret(e, seats, red),
        });
    };
    emit(&mut s, Event::Begun { seats, rules, board }, None);
    let mut knowledge: Vec<u8> = (0..d.knowledge.len() as u8).collect();
    rng.shuffle(&mut knowledge);
    knowledge.truncate(stack);
    let mut buildings: Vec<u8> = (0..d.buildings.len() as u8).collect();
    rng.shuffle(&mut buildings);
    buildings.truncate(stack);
    let (kl, bl) = (knowledge.len() as u8, buildings.len() as u8);
    emit(
        &mut s,
        Event::StacksShuffled {
            knowledge: Some(knowledge.clone()),
            buildings: Some(buildings.clone()),
            knowledge_len: kl,
            buildings_len: bl,
        },
        Some((
            Vec::new(),
            Event::StacksShuffled { knowledge: None, buildings: None, knowledge_len: kl, buildings_len: bl },
        )),
    );
    for &card in knowledge.iter().take(3) {
        emit(&mut s, Event::KnowledgeShown { card }, None);
    }
    for &tile in buildings.iter().take(2) {
        emit(&mut s, Event::BuildingShown { tile }, None);
    }
    let mut rumors: Vec<u8> = (0..d.rumors.len() as u8).collect();
    rng.shuffle(&mut rumors);
    rumors.truncate(stack);
    rumors.sort_by_key(|&r| (d.rumors[r as usize], r));
    if version >= 3 {
        // 3.7 "only the top card of the deck is shown".
        let shown =
            Event::RumorDeck { cards: rumors.iter().copied().take(1).collect(), left: Some(rumors.len() as u8) };
        emit(&mut s, Event::RumorDeck { cards: rumors, left: None }, Some((Vec::new(), shown)));
    } else {
        emit(&mut s, Event::RumorDeck { cards: rumors, left: None }, None);
    }
    let mut gods: Vec<u8> = (0..d.gods.len() as u8).collect();
    rng.shuffle(&mut gods);
    // Two cards each while they last: with 5 or 6 players the last seats get one (3.2).
    let twos = (gods.len() - seats as usize).min(seats as usize);
    let mut at = 0;
    for seat in 0..seats {
        let k = if (seat as usize) < twos { 2 } else { 1 };
        let hand = gods[at..at + k].to_vec();
        at += k;
        emit(
            &mut s,
            Event::GodsDealt { seat, gods: Some(hand) },
            Some((vec![seat], Event::GodsDealt { seat, gods: None })),
        );
    }
    Ok(out)
}

/// Choose a god card (3.2); when everyone has chosen they are revealed together
/// and the lowest intimidation takes the first player card (3.3).
pub fn choose_god(cx: &mut Ctx, seat: Seat, god: u8) -> Result<(), RuleError> {
    if cx.s.phase != Phase::ChooseGods {
        reject!("the gods are already chosen");
    }
    let dealt = cx.s.players[seat as usize].dealt.clone().unwrap_or_default();
    if !dealt.contains(&god) {
        let names: Vec<&str> = dealt.iter().map(|&g| data().gods[g as usize].name.as_str()).collect();
        reject!("you may only choose a god dealt to you: {}", names.join(" or "));
    }
    cx.secret(Event::GodChosen { seat, god: Some(god) }, vec![seat], Event::GodChosen { seat, god: None });
    if cx.s.players.iter().all(|p| p.has_chosen) {
        let gods: Vec<u8> = cx.s.players.iter().map(|p| p.chosen.expect("chosen")).collect();
        let first =
            (0..cx.s.seats).min_by_key(|&k| data().gods[gods[k as usize] as usize].intimidation).expect("players");
        cx.emit(Event::GodsRevealed { gods, first });
    }
    Ok(())
}

/// Cities where `seat` may place its next group (3.8).
pub fn placeable(s: &State, seat: Seat) -> Vec<u8> {
    let n = s.cities.len() as u8;
    if s.players[seat as usize].placed == 0 {
        let free: Vec<u8> = (0..n).filter(|&c| s.cities[c as usize].owner.is_none()).collect();
        let apart: Vec<u8> = free
            .iter()
            .copied()
            .filter(|&c| s.board.adjacent(c).iter().all(|&a| s.cities[a as usize].owner.is_none()))
            .collect();
        return if apart.is_empty() { free } else { apart };
    }
    (0..n)
        .filter(|&c| {
            let o = s.cities[c as usize].owner;
            o == Some(seat)
                || (o.is_none() && s.board.adjacent(c).iter().any(|&a| s.cities[a as usize].owner == Some(seat)))
        })
        .collect()
}

pub fn place_group(cx: &mut Ctx, seat: Seat, city: u8) -> Result<(), RuleError> {
    if cx.s.phase != Phase::Placement || cx.s.placements.first() != Some(&seat) {
        reject!("it is not your turn to place units");
    }
    if city as usize >= cx.s.cities.len() {
        reject!("there is no city {city} on this map");
    }
    let ok = placeable(&cx.s, seat);
    if !ok.contains(&city) {
        let name = cx.s.city_name(city);
        if cx.s.players[seat as usize].placed == 0 {
            reject!("{name} cannot hold your first units: it must be empty and not adjacent to another player's city");
        }
        reject!("{name} cannot take your units: choose a city you hold, or an empty one adjacent to your units");
    }
    let temple = cx.s.players[seat as usize].placed == 0;
    cx.emit(Event::GroupPlaced { seat, city, temple });
    if cx.s.placements.is_empty() {
        if cx.s.rules.version >= 2 {
            crate::program::ask_programs(cx, 1);
        } else {
            let first = cx.s.first;
            cx.emit(Event::TurnBegan { seat: first, turn: 1 });
        }
    }
    Ok(())
}
