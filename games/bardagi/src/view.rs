//! What each viewer may see, and events in words. Secret: a clan's gold,
//! its runes in hand, its chosen cards until laid down at its turn, and its
//! standing orders. Public: everything on the board and the player boards.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::board::{AreaId, AreaKind, BoardData, Colour, SeaNode};
use super::build::Effect;
use super::goods_words;
use super::program::ProgramStep;
use super::state::{Building, DiskSpot, Event, Hand, Loc, Orders, Phase, RuneKind, ShipLoc, State, Unit};
use runestone_engine::game::{Seat, Viewer};
use runestone_engine::present::CommandTemplate;

/// What one viewer sees of a game of Bardagi (its `view`, as JSON).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct View {
    /// The board's data: its areas, cells, sea and routes.
    pub board: BoardData,
    pub phase: Phase,
    pub round: u8,
    pub rounds: u8,
    /// How many cards each clan chooses this round.
    pub hand_size: u8,
    pub starting: Seat,
    /// The seat whose turn it is, in the action phase.
    pub current: Option<Seat>,
    pub options: OptionsView,
    pub players: Vec<PlayerView>,
    pub areas: Vec<AreaView>,
    /// The upgrade tiles face up.
    pub market: Vec<TileView>,
    pub pile_tiles: u32,
    pub rune_pile: u32,
    pub axe_supply: u8,
    pub final_glory: Vec<i32>,
    pub awards: Vec<String>,
}

/// The options that change how a game plays.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct OptionsView {
    pub easy_cards: bool,
    pub eight_cards: bool,
    pub forced_trade: bool,
    /// The rules version the game is played by (RULES-NOTES.md, "Rules versions").
    #[serde(default = "first_version")]
    pub rules_version: u32,
    /// The rulebook: 2014, or the 2018 revision (RULES-NOTES.md, "2018 revision").
    #[serde(default)]
    pub rules: crate::rules2018::Rules,
}

fn first_version() -> u32 {
    1
}

/// One clan as the viewer may see it (`null` where it is secret).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct PlayerView {
    pub seat: usize,
    pub colour: Option<Colour>,
    pub home: AreaId,
    pub glory: i32,
    /// Secret to the clan.
    pub gold: Option<i32>,
    pub goods: [u8; 6],
    pub disks: Buildings,
    pub capacity: Buildings,
    pub town: u8,
    pub supply: u8,
    pub units: Units,
    pub knerrir: KnerrirView,
    pub planned: bool,
    /// Secret to the clan until its turn lays the cards down.
    pub hand: Option<Hand>,
    pub hand_size: u8,
    pub played: Hand,
    /// Secret to the clan.
    pub runes: Option<Vec<RuneCount>>,
    pub rune_count: u32,
    pub axes: u8,
    pub upgrades: Vec<TileView>,
    /// Secret to the clan.
    pub orders: Option<Orders>,
    /// The turn program given with the plan, secret to the clan until it
    /// runs (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<Vec<ProgramStep>>,
}

/// A number per unit building.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Buildings {
    pub virki: u8,
    pub hof: u8,
    pub verslun: u8,
}

/// Where each unit stands.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Units {
    pub berserkur: Loc,
    pub godi: Loc,
    pub kaupmadur: Loc,
}

/// Where the Knerrir is: on the player board, or on the game board.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum KnerrirView {
    PlayerBoard(OnPlayerBoard),
    At(SeaNode),
}

/// The Knerrir waits on the player board.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub enum OnPlayerBoard {
    #[serde(rename = "player_board")]
    PlayerBoard,
}

/// How many runes of a kind a clan holds.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct RuneCount {
    pub rune: RuneKind,
    pub count: u8,
}

/// An upgrade tile.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct TileView {
    /// The tile's place in the game's tile list.
    pub tile: u8,
    /// Its stable id (`horse_stable.2`).
    #[serde(default)]
    pub id: String,
    pub name: String,
    pub building: Building,
    pub level: u8,
    pub effect: Effect,
    /// The effect's amount (0 for a free action).
    #[serde(default)]
    pub amount: u8,
}

/// One area of the board in play.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct AreaView {
    pub id: usize,
    pub owner: Option<Seat>,
    pub disks: u8,
    pub axes: u8,
    pub runes: Vec<RuneKind>,
    pub caster: Option<Seat>,
}

fn tiles(s: &State, set: u64) -> Vec<TileView> {
    (0..s.tiles.len().min(64) as u8)
        .filter(|t| set & (1u64 << t) != 0)
        .map(|t| {
            let x = s.tile(t);
            TileView {
                tile: t,
                id: x.id.clone(),
                name: x.name.clone(),
                building: x.building,
                level: x.level,
                effect: x.effect,
                amount: x.amount,
            }
        })
        .collect()
}

/// The view of `viewer`.
pub fn view(s: &State, viewer: Viewer) -> View {
    View { board: s.board.data.clone(), ..view_but_board(s, viewer) }
}

/// The view of `viewer` as JSON ([`Game::view`](runestone_engine::Game::view)):
/// the board's part, the same in every view of the game, is not serialised
/// again but taken as its board made it once.
pub fn view_json(s: &State, viewer: Viewer) -> serde_json::Value {
    let mut v = serde_json::to_value(view_but_board(s, viewer)).expect("a view is JSON");
    v["board"] = s.board.json().clone();
    v
}

/// The view of `viewer` written as JSON text ([`Present::view_text`]), and
/// for `templates_of` that seat's command templates on the same view. The
/// view is written straight from its type, and the board's part, the same
/// in every view of the game, is the board's own text made once.
///
/// [`Present::view_text`]: runestone_engine::present::Present::view_text
pub fn view_text(s: &State, viewer: Viewer, templates_of: Option<Seat>) -> (String, Vec<CommandTemplate>) {
    // The templates read the seat's own part and the phase, never the
    // board: one view without its board serves both.
    let rest = view_but_board(s, viewer);
    let templates = templates_of.map(|seat| super::legal::templates(&rest, seat)).unwrap_or_default();
    let text = serde_json::to_string(&rest).expect("a view is JSON");
    let text = with_board(&text, s.board.text())
        .unwrap_or_else(|| serde_json::to_string(&view(s, viewer)).expect("a view is JSON"));
    (text, templates)
}

/// `text`, a view written with an empty board, with `board` (the board's
/// text) in the empty board's place: `board` is the view's first field, so
/// the text starts with it. `None` should the text not start so.
fn with_board(text: &str, board: &str) -> Option<String> {
    static EMPTY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let empty = EMPTY.get_or_init(|| {
        format!("{{\"board\":{}", serde_json::to_string(&BoardData::default()).expect("board data is JSON"))
    });
    let rest = text.strip_prefix(empty.as_str())?;
    let mut out = String::with_capacity(10 + board.len() + rest.len());
    out.push_str("{\"board\":");
    out.push_str(board);
    out.push_str(rest);
    Some(out)
}

/// The view with an empty board in place of the game's.
fn view_but_board(s: &State, viewer: Viewer) -> View {
    let sees = |seat: usize| match viewer {
        Viewer::Referee => true,
        Viewer::Seat(me) => me as usize == seat,
        Viewer::Public => false,
    } || s.phase == Phase::Over;
    let players = s
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let own = sees(i);
            let hand_open = own || (s.phase == Phase::Action && s.current as usize == i && p.planned);
            PlayerView {
                seat: i,
                colour: p.colour,
                home: p.home,
                glory: p.glory,
                gold: own.then_some(p.gold),
                goods: p.goods,
                disks: Buildings { virki: p.disks[0], hof: p.disks[1], verslun: p.disks[2] },
                capacity: Buildings {
                    virki: p.capacity(&s.tiles, Building::Virki),
                    hof: p.capacity(&s.tiles, Building::Hof),
                    verslun: p.capacity(&s.tiles, Building::Verslun),
                },
                town: p.town,
                supply: p.supply,
                units: Units { berserkur: p.units[0], godi: p.units[1], kaupmadur: p.units[2] },
                knerrir: match p.ship {
                    ShipLoc::Home => KnerrirView::PlayerBoard(OnPlayerBoard::PlayerBoard),
                    ShipLoc::At(n) => KnerrirView::At(n),
                },
                planned: p.planned,
                hand: hand_open.then_some(p.hand),
                hand_size: p.hand.total(),
                played: p.played,
                runes: own
                    .then(|| RuneKind::ALL.iter().map(|k| RuneCount { rune: *k, count: p.runes[k.idx()] }).collect()),
                rune_count: p.runes.iter().map(|x| *x as u32).sum::<u32>(),
                axes: p.axes,
                upgrades: tiles(s, p.upgrades),
                orders: own.then(|| p.orders.clone()),
                program: if own { p.program.clone() } else { None },
            }
        })
        .collect();
    let areas = s
        .areas
        .iter()
        .enumerate()
        .map(|(i, a)| AreaView {
            id: i,
            owner: a.owner,
            disks: a.disks,
            axes: a.axes,
            runes: RuneKind::ALL.iter().filter(|k| a.has_rune(**k)).copied().collect(),
            caster: a.caster,
        })
        .collect();
    View {
        board: BoardData::default(),
        phase: s.phase,
        round: s.round,
        rounds: s.rounds,
        hand_size: s.hand_size,
        starting: s.starting,
        current: (s.phase == Phase::Action).then_some(s.current),
        options: OptionsView {
            easy_cards: s.easy_cards,
            eight_cards: s.eight_cards,
            forced_trade: s.forced_trade,
            rules_version: s.rules,
            rules: s.edition,
        },
        players,
        areas,
        market: tiles(s, s.market),
        pile_tiles: s.piles.count_ones(),
        rune_pile: s.rune_pile.iter().map(|x| *x as u32).sum::<u32>(),
        axe_supply: s.axe_supply,
        final_glory: s.final_glory.clone(),
        awards: s.awards.clone(),
    }
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
        Event::GameStarted { board, colours, rounds, starting, edition, .. } => format!(
            "A game of Bardagi on the {} board begins{}: {} rounds; clans {}; {} starts",
            board.data.name,
            if edition.is_2014() { "" } else { " by the 2018 rules" },
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
        Event::PlanChosen { seat, hand: Some(h), program: Some(p) } => {
            format!("{} chooses {} with a program of {} step(s)", n(seat), h.words(), p.len())
        }
        Event::PlanChosen { seat, hand: Some(h), .. } => format!("{} chooses {}", n(seat), h.words()),
        Event::PlanChosen { seat, hand: None, .. } => format!("{} chooses cards secretly", n(seat)),
        Event::ProgramStarted { seat, steps } => format!("{}'s programmed turn runs ({steps} step(s))", n(seat)),
        Event::ProgramStep { seat, step, text, .. } => format!("{}'s program, step {step}: {text}", n(seat)),
        Event::TurnBegan { seat, hand: Some(h) } => format!("{}'s turn: lays down {}", n(seat), h.words()),
        Event::TurnBegan { seat, hand: None } => format!("{}'s turn", n(seat)),
        Event::CardPlayed { seat, card, as_card } if card == as_card => {
            format!("{} plays a {} card", n(seat), card.name())
        }
        Event::CardPlayed { seat, card, as_card } => {
            format!("{} plays a {} card as a {} card", n(seat), card.name(), as_card.name())
        }
        Event::FreeActionUsed { seat, effect } => format!("{} uses the free action of {:?}", n(seat), effect),
        Event::RoundFreeUsed { seat, action } => {
            format!("{} uses this round's free action: {} (2018 rules)", n(seat), action.name())
        }
        Event::HarbourClaimed { seat, area: a } => {
            format!("{}'s Knerrir claims {} with a recruit from the town area", n(seat), area(a))
        }
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
        Event::UpgradeBuilt { seat, tile: t, replaced, glory } => {
            let name = |k: &crate::build::TileKey| match s.tile_index(k) {
                Some(i) => s.tile(i).name.clone(),
                None => "an unknown tile".into(),
            };
            let building = s.tile_index(t).map(|i| s.tile(i).building.name()).unwrap_or("a building");
            match replaced {
                Some(r) => format!("{} replaces {} with {} on {building}", n(seat), name(r), name(t)),
                None => format!("{} builds {} on {building} (+{glory} glory)", n(seat), name(t)),
            }
        }
        Event::TileRevealed { tile: t } => match s.tile_index(t) {
            Some(i) => format!("{} is turned face up", s.tile(i).name),
            None => "an unknown tile is turned face up".into(),
        },
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
        Event::DecisionsAsked { seats } => format!(
            "The turns are over; {} decide{} the Build and Claim choices now",
            seats.iter().map(n).collect::<Vec<_>>().join(" and "),
            if seats.len() == 1 { "s" } else { "" }
        ),
        Event::Decided { seat } => format!("{} has decided", n(seat)),
        Event::RoundEnded { round } => format!("Round {round} ends; the starting player token passes left"),
        Event::GameEnded { glory, awards, .. } => format!(
            "The game ends. {}. Final glory: {}",
            awards.join("; "),
            glory.iter().enumerate().map(|(i, g)| format!("{} {g}", n(&(i as Seat)))).collect::<Vec<_>>().join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::Driver;
    use crate::{Bardagi, Options};
    use runestone_engine::game::{Game, Viewer};
    use runestone_engine::present::Present;

    /// The view written as text (the API's answer) reads as the same JSON as
    /// the view (`Game::view`), the board's part included, for every seat,
    /// the public and the referee along bot-played games on both built-in
    /// boards and a custom one; a seat's templates are those of its view.
    #[test]
    fn the_view_written_as_text_is_the_view() {
        let mut checked = 0;
        let custom = Options { custom_board: Some(crate::tests::MINI.into()), ..Options::default() };
        let games =
            [(Options::default(), 4u8), (Options { board: "winter".into(), ..Options::default() }, 3), (custom, 3)];
        for (i, (options, seats)) in games.into_iter().enumerate() {
            let mut d = Driver::new(&options, seats, 40 + i as u64).expect("a game");
            for step in 0..400 {
                let Some(seat) = d.next_seat() else { break };
                if step % 3 == 0 {
                    for viewer in (0..seats).map(Viewer::Seat).chain([Viewer::Public, Viewer::Referee]) {
                        let asked = match viewer {
                            Viewer::Seat(s) => Some(s),
                            _ => None,
                        };
                        let (text, templates) = Bardagi::view_text(&d.state, viewer, asked);
                        let read: serde_json::Value = serde_json::from_str(&text).expect("the text is JSON");
                        assert_eq!(read, Bardagi::view(&d.state, viewer), "game {i}, step {step}, {viewer:?}");
                        let expected = asked.map(|s| crate::legal::templates_of(&d.state, s)).unwrap_or_default();
                        assert_eq!(templates, expected, "game {i}, step {step}, {viewer:?}");
                        checked += 1;
                    }
                }
                let c = Bardagi::fallback(&d.state, seat).expect("a fallback");
                d.act(seat, &c).expect("the fallback is legal");
            }
        }
        assert!(checked > 100, "{checked} views");
    }
}
