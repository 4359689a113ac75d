//! "GAME SETUP COMPONENTS" and the scenario's starting regions: 3 villages,
//! 1 dock, 5 Light Infantry, 1 Transport Ships, 10 grain, 2 herds of sheep,
//! 1 herd of pigs, 5 gold, 0 VP, 7 PP; without a coastal village no dock
//! and no ship but 7 Light Infantry and 7 gold; and the faction rules of
//! the scenario's data that change the start: fortified villages (Franks,
//! Qatna, Bospor, the Romans on the Danubius), no ships and 7 Light
//! Infantry (Slavs and Balts), other herds (Britannia's Celts), a city
//! instead of three villages, a port instead of the third village, and the
//! Huns' set.

use runestone_engine::Seat;

use crate::data::{map, tables, Ability, Start};
use crate::state::{Field, Herd, Mode, Realm, Settlement, Shipyard, State, Unit, UnitKind};

/// The opening position of a game (pure: `apply` of `Started` calls it).
pub fn opening(scenario: &str, mode: Mode, years: u8, players: u8) -> State {
    let m = map(scenario);
    let t = tables();
    let mut s = State {
        scenario: scenario.to_string(),
        mode,
        years,
        year: 1,
        players,
        fields: vec![Field::default(); m.fields.len()],
        ..State::default()
    };
    for seat in 0..players.min(m.homes.len() as u8) {
        let home = &m.homes[seat as usize];
        let faction = m.faction(&home.faction);
        let no_ships = faction.has(Ability::NoShips);
        // The settlements' fields, and the port's field ("1 port instead
        // of a third village").
        let (towns, port) = match home.start {
            Start::Port => (&home.villages[..home.villages.len() - 1], home.villages.last().copied()),
            _ => (&home.villages[..], None),
        };
        let dock = if no_ships || home.start == Start::Huns {
            None
        } else {
            port.or_else(|| towns.iter().copied().find(|&v| m.fields[v as usize].coastal))
        };
        let (mut li, gold) = if dock.is_some() {
            (t.setup.light_infantry, t.setup.gold)
        } else if no_ships {
            (t.setup.inland_light_infantry, t.setup.gold)
        } else {
            (t.setup.inland_light_infantry, t.setup.inland_gold)
        };
        let (mut sheep, mut pigs) = (faction.sheep.unwrap_or(t.setup.sheep), faction.pigs.unwrap_or(t.setup.pigs));
        let mut horses = 0;
        let mut cavalry = 0;
        let mut grain = t.setup.grain;
        let mut gold = gold;
        match home.start {
            // "without a herd of pigs and without 2 LI units"
            Start::City => {
                li = li.saturating_sub(2);
                pigs = pigs.saturating_sub(1);
            }
            // "starting without a herd of pigs"
            Start::Port => pigs = pigs.saturating_sub(1),
            // "2 sheep herds, 2 horse herds, 3 LI, 3 Cavalry, 1 village, 5
            // grain, 7 gold and 7 PP"
            Start::Huns => {
                (li, cavalry, sheep, pigs, horses, grain, gold) = (3, 3, 2, 0, 2, 5, 7);
            }
            Start::Villages => {}
        }
        s.realms.push(Realm {
            home: home.name.clone(),
            faction: home.faction.clone(),
            gold,
            pp: t.start_prestige,
            ..Realm::default()
        });
        for (i, &v) in towns.iter().enumerate() {
            let fort = i < faction.fortifications as usize;
            s.fields[v as usize].settlement = Some(Settlement { owner: seat, city: home.start == Start::City, fort });
        }
        let n = towns.len();
        for i in 0..li as usize {
            let v = towns[i % n];
            s.fields[v as usize].units.push(unit(seat, UnitKind::LightInfantry));
        }
        for i in 0..cavalry {
            let v = towns[i % n];
            s.fields[v as usize].units.push(unit(seat, UnitKind::Cavalry));
        }
        if let Some(d) = dock {
            s.fields[d as usize].shipyard = Some(Shipyard { owner: seat, port: port == Some(d) });
            for _ in 0..t.setup.transport_ships {
                s.fields[d as usize].units.push(unit(seat, UnitKind::TransportShip));
            }
        }
        let mut grain = grain as usize;
        let mut i = 0;
        while grain > 0 && i < 100 {
            let v = towns[i % n] as usize;
            if s.fields[v].grain < crate::control::grain_cap(&s, v as u16).min(5 * (1 + u8::from(n == 1))) {
                s.fields[v].grain += 1;
                grain -= 1;
            }
            i += 1;
        }
        let herds: Vec<Herd> = std::iter::repeat_n(Herd::Sheep, sheep as usize)
            .chain(std::iter::repeat_n(Herd::Pigs, pigs as usize))
            .chain(std::iter::repeat_n(Herd::Horses, horses))
            .collect();
        // Designed: the herds start together at the first village, so the
        // other village fields are free to sow in the first spring.
        for h in herds {
            s.fields[towns[0] as usize].herds.push((seat, h));
        }
    }
    s
}

pub fn unit(owner: Seat, kind: UnitKind) -> Unit {
    Unit { owner, kind, xp: 0, recruit: false, moved_from: None, shipped: false, halted: false }
}
