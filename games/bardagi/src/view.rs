//! What each viewer may see, and events in words. Secret: a clan's gold,
//! its runes in hand, its chosen cards until laid down at its turn, and its
//! standing orders. Public: everything on the board and the player boards.

use serde_json::{json, Value};

use super::board::{AreaId, AreaKind, SeaNode};
use super::build::tile;
use super::goods_words;
use super::state::{DiskSpot, Event, Loc, Phase, RuneKind, ShipLoc, State, Unit};
use crate::game::{Seat, Viewer};

fn loc(l: Loc) -> Value {
    serde_json::to_value(l).unwrap_or(Value::Null)
}

/// The view of `viewer`.
pub fn view(s: &State, viewer: Viewer) -> Value {
    let sees = |seat: usize| match viewer {
        Viewer::Referee => true,
        Viewer::Seat(me) => me as usize == seat,
        Viewer::Public => false,
    } || s.phase == Phase::Over;
    let players: Vec<Value> = s
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let own = sees(i);
            let hand_open = own || (s.phase == Phase::Action && s.current as usize == i && p.planned);
            json!({
                "seat": i,
                "colour": p.colour,
                "home": p.home,
                "glory": p.glory,
                "gold": if own { json!(p.gold) } else { Value::Null },
                "goods": p.goods,
                "disks": { "virki": p.disks[0], "hof": p.disks[1], "verslun": p.disks[2] },
                "capacity": { "virki": p.capacity(super::state::Building::Virki), "hof": p.capacity(super::state::Building::Hof), "verslun": p.capacity(super::state::Building::Verslun) },
                "town": p.town,
                "supply": p.supply,
                "units": { "berserkur": loc(p.units[0]), "godi": loc(p.units[1]), "kaupmadur": loc(p.units[2]) },
                "knerrir": match p.ship { ShipLoc::Home => json!("player_board"), ShipLoc::At(n) => json!(n) },
                "planned": p.planned,
                "hand": if hand_open { json!(p.hand) } else { Value::Null },
                "hand_size": p.hand.total(),
                "played": p.played,
                "runes": if own { json!(RuneKind::ALL.iter().map(|k| json!({"rune": k, "count": p.runes[k.idx()]})).collect::<Vec<_>>()) } else { Value::Null },
                "rune_count": p.runes.iter().map(|x| *x as u32).sum::<u32>(),
                "axes": p.axes,
                "upgrades": (0..64u8).filter(|t| p.upgrades & (1u64 << t) != 0).map(|t| json!({"tile": t, "name": tile(t).name, "building": tile(t).building, "level": tile(t).level, "effect": tile(t).effect})).collect::<Vec<_>>(),
                "orders": if own { json!(p.orders) } else { Value::Null },
            })
        })
        .collect();
    let areas: Vec<Value> = s
        .areas
        .iter()
        .enumerate()
        .map(|(i, a)| {
            json!({
                "id": i,
                "owner": a.owner,
                "disks": a.disks,
                "axes": a.axes,
                "runes": RuneKind::ALL.iter().filter(|k| a.has_rune(**k)).collect::<Vec<_>>(),
                "caster": a.caster,
            })
        })
        .collect();
    let market: Vec<Value> = (0..64u8)
        .filter(|t| s.market & (1u64 << t) != 0)
        .map(|t| json!({"tile": t, "name": tile(t).name, "building": tile(t).building, "level": tile(t).level, "effect": tile(t).effect}))
        .collect();
    json!({
        "board": s.board.data,
        "phase": s.phase,
        "round": s.round,
        "rounds": s.rounds,
        "hand_size": s.hand_size,
        "starting": s.starting,
        "current": if s.phase == Phase::Action { json!(s.current) } else { Value::Null },
        "options": { "easy_cards": s.easy_cards, "eight_cards": s.eight_cards, "forced_trade": s.forced_trade },
        "players": players,
        "areas": areas,
        "market": market,
        "pile_tiles": s.piles.count_ones(),
        "rune_pile": s.rune_pile.iter().map(|x| *x as u32).sum::<u32>(),
        "axe_supply": s.axe_supply,
        "final_glory": s.final_glory,
        "awards": s.awards,
    })
}

/// One event in words.
/// An area by its name on the game's board ("Forest 7", "the Red home").
pub fn place(s: &State, a: AreaId) -> String {
    match s.board.data.areas.get(a as usize) {
        Some(x) if x.kind == AreaKind::Home && x.name.ends_with(" home") => format!("the {}", x.name),
        Some(x) => x.name.clone(),
        None => format!("area {a}"),
    }
}

/// A Knerrir's place: an ocean square or the harbour of an area.
fn sea_place(s: &State, node: SeaNode) -> String {
    match node {
        SeaNode::Harbour(a) => format!("the harbour of {}", place(s, a)),
        SeaNode::Ocean(o) => format!("ocean square {o}"),
    }
}

/// Where rearranged disks come from or go to.
fn spot(s: &State, x: DiskSpot) -> String {
    match x {
        DiskSpot::Area(a) => place(s, a),
        DiskSpot::Virki => "Virki".into(),
        DiskSpot::Town => "the town area".into(),
    }
}

/// An event in words, naming places by the board of `s`.
pub fn describe(s: &State, e: &Event, names: &[String]) -> String {
    let n = |s: &Seat| names.get(*s as usize).cloned().unwrap_or_else(|| format!("seat {s}"));
    let area = |a: &u8| place(s, *a);
    match e {
        Event::GameStarted { board, colours, rounds, starting, .. } => format!(
            "A game of Bardagi on the {} board begins: {} rounds; clans {}; {} starts",
            board.data.name,
            rounds,
            colours
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{} plays {}", n(&(i as Seat)), c.name()))
                .collect::<Vec<_>>()
                .join(", "),
            n(starting)
        ),
        Event::RunesDrawn { seat, count, runes: Some(r) } => {
            format!("{} draws {count} rune(s): {}", n(seat), r.iter().map(|k| k.name()).collect::<Vec<_>>().join(", "))
        }
        Event::RunesDrawn { seat, count, runes: None } => format!("{} draws {count} rune(s) face down", n(seat)),
        Event::GoldChanged { seat, delta: Some(d) } if *d >= 0 => format!("{} gains {d} gold", n(seat)),
        Event::GoldChanged { seat, delta: Some(d) } => format!("{} pays {} gold", n(seat), -d),
        Event::GoldChanged { seat, delta: None } => format!("{}'s gold changes (secret)", n(seat)),
        Event::OrdersSet { seat, .. } => format!("{} updates standing orders", n(seat)),
        Event::RoundBegan { round, starting, hand_size } => {
            format!("Round {round} begins; {} starts; each clan chooses {hand_size} cards", n(starting))
        }
        Event::PlanChosen { seat, hand: Some(h) } => format!("{} chooses {}", n(seat), h.words()),
        Event::PlanChosen { seat, hand: None } => format!("{} chooses cards secretly", n(seat)),
        Event::TurnBegan { seat, hand: Some(h) } => format!("{}'s turn: lays down {}", n(seat), h.words()),
        Event::TurnBegan { seat, hand: None } => format!("{}'s turn", n(seat)),
        Event::CardPlayed { seat, card, as_card } if card == as_card => {
            format!("{} plays a {} card", n(seat), card.name())
        }
        Event::CardPlayed { seat, card, as_card } => {
            format!("{} plays a {} card as a {} card", n(seat), card.name(), as_card.name())
        }
        Event::FreeActionUsed { seat, effect } => format!("{} uses the free action of {:?}", n(seat), effect),
        Event::CardsExchanged { seat, discarded: Some(d), taken: Some(t) } => {
            format!("{} discards {} and {} for {}", n(seat), d[0].name(), d[1].name(), t.name())
        }
        Event::CardsExchanged { seat, .. } => format!("{} discards two cards for one", n(seat)),
        Event::UnitMoved { seat, unit, from, to, .. } => {
            format!("{}'s {} moves from {} to {}", n(seat), unit.name(), area(from), area(to))
        }
        Event::UnitBoarded { seat, unit, harbour, .. } => {
            format!("{}'s {} boards the Knerrir at {}", n(seat), unit.name(), sea_place(s, SeaNode::Harbour(*harbour)))
        }
        Event::UnitDisembarked { seat, unit, harbour } => {
            format!("{}'s {} goes ashore at {}", n(seat), unit.name(), area(harbour))
        }
        Event::KnerrirSailed { seat, route, sea_rune, .. } => format!(
            "{}'s Knerrir sails {} square(s){}{}",
            n(seat),
            route.len(),
            route.last().map(|x| format!(" to {}", sea_place(s, *x))).unwrap_or_default(),
            if *sea_rune { " with a Sea move rune" } else { "" }
        ),
        Event::KnerrirReturned { seat } => format!("{}'s Knerrir returns to the player board", n(seat)),
        Event::RunesBought { seat, unit } => format!("{}'s {} buys runes for 2 gold", n(seat), unit.name()),
        Event::Traded { seat, deals } => format!("{} trades ({} deal(s))", n(seat), deals.len()),
        Event::TradeForced { seat, victim, give } => {
            format!("{} forces {} to buy {} goods for gold", n(seat), n(victim), give.len())
        }
        Event::UnitRetreated { seat, unit, from, to } => {
            format!("{}'s {} retreats from {} to {}", n(seat), unit.name(), area(from), area(to))
        }
        Event::BerserkurDefeated { seat, victim, area: a, attacker_lost, defender_lost } => format!(
            "{}'s Berserkur defeats {}'s Berserkur on {} ({attacker_lost} disks against {defender_lost})",
            n(seat),
            n(victim),
            area(a)
        ),
        Event::AxesDestroyed { seat, area: a, axes, disks } => {
            format!("{} destroys {axes} axe(s) on {} with {disks} disks", n(seat), area(a))
        }
        Event::AreaOvertaken { seat, area: a, from, by, placed, .. } => {
            let how = match by {
                Unit::Berserkur => "overtakes",
                Unit::Godi => "converts",
                Unit::Kaupmadur => "buys",
            };
            let whom = from.map(|f| format!(" from {}", n(&f))).unwrap_or_else(|| " from the Barbarians".into());
            format!("{} {how} {}{whom}, leaving {placed} disk(s)", n(seat), area(a))
        }
        Event::GloryChanged { seat, delta, reason } => {
            format!("{} {} {} glory: {reason}", n(seat), if *delta >= 0 { "gains" } else { "loses" }, delta.abs())
        }
        Event::AxesGained { seat, count } => format!("{} gains {count} axe token(s)", n(seat)),
        Event::DisksRearranged { seat, moves } => format!(
            "{} moves disks: {}",
            n(seat),
            moves
                .iter()
                .map(|m| format!("{} from {} to {}", m.count, spot(s, m.from), spot(s, m.to)))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        Event::BuildingRefilled { seat, building, disks, paid } => format!(
            "{} refills {} to {disks} disks for {paid} {}",
            n(seat),
            building.name(),
            building.refill_good().name()
        ),
        Event::BerserkurReturned { seat, area: a } => format!("{}'s Berserkur returns at {}", n(seat), area(a)),
        Event::RunesCast { seat, casts } => format!(
            "{} casts {}",
            n(seat),
            casts.iter().map(|c| format!("{} on {}", c.rune.name(), area(&c.area))).collect::<Vec<_>>().join(" and ")
        ),
        Event::RuneRemoved { seat, area: a, rune } => format!("{} removes {} from {}", n(seat), rune.name(), area(a)),
        Event::GoodsChanged { seat, delta, reason } => {
            let gain: [i8; 6] = delta.map(|d| d.max(0));
            let pay: [i8; 6] = delta.map(|d| d.min(0));
            let mut parts = Vec::new();
            if gain.iter().any(|d| *d != 0) {
                parts.push(format!("gains {}", goods_words(&gain)));
            }
            if pay.iter().any(|d| *d != 0) {
                parts.push(format!("pays {}", goods_words(&pay)));
            }
            format!("{} {} ({reason})", n(seat), parts.join(" and "))
        }
        Event::RecruitsGained { seat, count, reason } => format!("{} gains {count} recruit(s) ({reason})", n(seat)),
        Event::UpgradeBuilt { seat, tile: t, replaced, glory } => match replaced {
            Some(r) => {
                format!("{} replaces {} with {} on {}", n(seat), tile(*r).name, tile(*t).name, tile(*t).building.name())
            }
            None => format!("{} builds {} on {} (+{glory} glory)", n(seat), tile(*t).name, tile(*t).building.name()),
        },
        Event::TileRevealed { tile: t } => format!("{} is turned face up", tile(*t).name),
        Event::AxesBought { seat, count } => format!("{} buys {count} axe(s)", n(seat)),
        Event::RecruitsPlaced { seat, placed } => {
            format!(
                "{} places recruits: {} on Virki, {} on Hof, {} on Verslun",
                n(seat),
                placed[0],
                placed[1],
                placed[2]
            )
        }
        Event::AxesPlaced { seat, areas } => {
            format!("{} places axes on {}", n(seat), areas.iter().map(area).collect::<Vec<_>>().join(", "))
        }
        Event::GoodsSpoiled { seat, lost } => {
            format!("{}'s storage is full: {} lost", n(seat), goods_words(&lost.map(|x| x as i8)))
        }
        Event::TurnEnded { seat } => format!("{} ends the turn", n(seat)),
        Event::RoundEnded { round } => format!("Round {round} ends; the starting player token passes left"),
        Event::GameEnded { glory, awards, .. } => format!(
            "The game ends. {}. Final glory: {}",
            awards.join("; "),
            glory.iter().enumerate().map(|(i, g)| format!("{} {g}", n(&(i as Seat)))).collect::<Vec<_>>().join(", ")
        ),
    }
}
