//! "GAME SETUP COMPONENTS" and the scenario's starting regions: 3 villages,
//! 1 dock, 5 Light Infantry, 1 Transport Ships, 10 grain, 2 herds of sheep,
//! 1 herd of pigs, 5 gold, 0 VP, 7 PP; without a coastal village no dock
//! and no ship but 7 Light Infantry and 7 gold; and the VIKINGS 800 AD
//! faction rules that change the start (Franks' fortification, Slavs and
//! Balts' 7 Light Infantry without ships and dock).

use runestone_engine::Seat;

use crate::data::{map, tables};
use crate::state::{Faction, Field, Herd, Mode, Realm, Settlement, Shipyard, State, Unit, UnitKind};

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
        let dock = if home.faction == Faction::Slavs {
            None
        } else {
            home.villages.iter().copied().find(|&v| m.fields[v as usize].coastal)
        };
        let (li, gold) = if dock.is_some() {
            (t.setup.light_infantry, t.setup.gold)
        } else if home.faction == Faction::Slavs {
            (t.setup.inland_light_infantry, t.setup.gold)
        } else {
            (t.setup.inland_light_infantry, t.setup.inland_gold)
        };
        s.realms.push(Realm {
            home: home.name.clone(),
            faction: home.faction,
            gold,
            pp: t.start_prestige,
            ..Realm::default()
        });
        for (i, &v) in home.villages.iter().enumerate() {
            let fort = home.faction == Faction::Franks && i == 0;
            s.fields[v as usize].settlement = Some(Settlement { owner: seat, city: false, fort });
        }
        let n = home.villages.len();
        for i in 0..li as usize {
            let v = home.villages[i % n];
            s.fields[v as usize].units.push(unit(seat, UnitKind::LightInfantry));
        }
        if let Some(d) = dock {
            s.fields[d as usize].shipyard = Some(Shipyard { owner: seat, port: false });
            for _ in 0..t.setup.transport_ships {
                s.fields[d as usize].units.push(unit(seat, UnitKind::TransportShip));
            }
        }
        let mut grain = t.setup.grain as usize;
        let mut i = 0;
        while grain > 0 && i < 100 {
            let v = home.villages[i % n] as usize;
            if s.fields[v].grain < 5 {
                s.fields[v].grain += 1;
                grain -= 1;
            }
            i += 1;
        }
        let herds: Vec<Herd> = std::iter::repeat_n(Herd::Sheep, t.setup.sheep as usize)
            .chain(std::iter::repeat_n(Herd::Pigs, t.setup.pigs as usize))
            .collect();
        // Designed: the herds start together at the first village, so the
        // other village fields are free to sow in the first spring.
        for h in herds {
            s.fields[home.villages[0] as usize].herds.push((seat, h));
        }
    }
    s
}

pub fn unit(owner: Seat, kind: UnitKind) -> Unit {
    Unit { owner, kind, xp: 0, recruit: false, moved_from: None, shipped: false, halted: false }
}
