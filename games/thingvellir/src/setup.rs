//! Setup: hof mats, Stead tokens (8 of 1/2 and 4 of 3/4), Home Stead cards
//! and home Districts, 12 Thingmen (one on Thingvellir), The Sheep Hunt
//! advanced once per colour on the Home Stead card, the Lawspeaker, the
//! shuffled orlog and the Foster pool.

use runestone_engine::{Emit, GameRng, RuleError, Seat};

use crate::data::{data, CardId};
use crate::state::{Event, Phase, Player, State};
use crate::Options;

pub fn setup(options: &Options, seats: u8, version: u32, rng: &mut GameRng) -> Result<Vec<Emit<Event>>, RuleError> {
    if !(1..=crate::RULES_VERSION).contains(&version) {
        return Err(RuleError::new(format!(
            "The Road to Thingvellir has rules versions 1 to {}, not {version}",
            crate::RULES_VERSION
        )));
    }
    // Version 1 is recorded by the field's absence, as in every older log.
    let version = (version >= 2).then_some(version);
    if !(2..=6).contains(&seats) {
        return Err(RuleError::new(format!("The Road to Thingvellir is for 2 to 6 players, not {seats}")));
    }
    let lawspeaker = match options.lawspeaker {
        Some(s) if s >= seats => {
            return Err(RuleError::new(format!(
                "there is no seat {s} to be Lawspeaker; seats run from 0 to {}",
                seats - 1
            )))
        }
        Some(s) => s,
        None => rng.pick(seats as usize) as Seat,
    };
    let mut deck: Vec<CardId> = (0..data().cards.len() as CardId).collect();
    rng.shuffle(&mut deck);
    // Rules version 4: the first N Home Stead cards of the map, dealt at
    // random among the N seats.
    let mut homes: Vec<u8> = Vec::new();
    if version.is_some_and(|v| v >= 4) {
        homes = (0..seats).collect();
        rng.shuffle(&mut homes);
    }
    let full = Event::Setup {
        seats,
        lawspeaker,
        sealed_feuds: options.sealed_feuds,
        advanced_outlawry: options.advanced_outlawry,
        district_goods: options.district_goods,
        arson: options.arson,
        deck,
        version,
        homes: homes.clone(),
    };
    let public = Event::Setup {
        seats,
        lawspeaker,
        sealed_feuds: options.sealed_feuds,
        advanced_outlawry: options.advanced_outlawry,
        district_goods: options.district_goods,
        arson: options.arson,
        deck: vec![],
        version,
        homes,
    };
    Ok(vec![Emit::secret(full, vec![], public)])
}

/// Fold the Setup event.
#[allow(clippy::too_many_arguments)]
pub fn apply_setup(
    s: &mut State,
    seats: u8,
    lawspeaker: Seat,
    sealed: bool,
    outlawry: bool,
    goods: bool,
    arson: bool,
    deck: &[CardId],
    version: Option<u32>,
    homes: &[u8],
) {
    let d = data();
    let version = version.unwrap_or(1);
    let map = d.map_of(version);
    *s = State {
        version,
        phase: if version >= 2 { Phase::Season } else { Phase::Propose },
        seats,
        round: 1,
        sealed_feuds: sealed,
        advanced_outlawry: outlawry,
        district_goods: goods,
        arson,
        lawspeaker,
        votes: vec![None; seats as usize],
        steads: vec![None; map.districts.len()],
        edges: vec![vec![0; seats as usize]; map.edges.len()],
        deck: deck.to_vec(),
        ..State::default()
    };
    for seat in 0..seats {
        if map.thingvellir.is_some() {
            // Rules version 4: "give each player a hof, stead tokens, their
            // Home Stead card ... and 12 Thingmen" (17), "each player places
            // one Thingmen on a side of Thingvellir" (19): the side facing
            // the card's farm; "put the farm tokens off to the side of the
            // board" (23): no District is settled.
            let home = &map.homes[homes.get(seat as usize).copied().unwrap_or(seat) as usize];
            let mut p =
                Player { longhall: 11, small_tokens: 8, large_tokens: 4, home: home.stead, ..Player::default() };
            for &c in &d.home_steads[home.stead].colours {
                p.farms[c] += 1;
            }
            s.players.push(p);
            s.edges[home.side][seat as usize] = 1;
            continue;
        }
        let mut p = Player {
            longhall: 11,
            thingvellir: 1,
            small_tokens: 7,
            large_tokens: 4,
            home: seat as usize,
            ..Player::default()
        };
        for &c in &d.home_steads[seat as usize].colours {
            p.farms[c] += 1;
        }
        s.players.push(p);
        s.steads[map.home_districts[seat as usize]] = Some((seat, 1));
    }
    // The Foster pool starts with the first persona of each colour off the orlog.
    let mut i = s.deck.len();
    while i > 0 && s.pool.iter().any(|x| x.is_none()) {
        i -= 1;
        let c = s.deck[i];
        let card = &d.cards[c as usize];
        if card.persona.is_some() && s.pool[card.colour].is_none() {
            s.pool[card.colour] = Some(c);
            s.deck.remove(i);
        }
    }
}
