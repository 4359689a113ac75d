//! What each viewer may see: Goods show only their Worth (to their owner
//! too), Bondi only their action side, the orlog's order to nobody, a hand of
//! drawn cards to its holder while choosing, standing orders to their giver.

use runestone_engine::{Seat, Viewer};
use serde::{Deserialize, Serialize};

use crate::data::{data, Action, CardId};
use crate::rules::ask_of;
use crate::state::{Choices, Command, Event, FarmCall, Orders, Phase, State, Step, Vote};

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct CardView {
    pub id: CardId,
    pub colour: String,
    pub worth: u8,
    pub action: Action,
    pub goods: String,
    pub persona: Option<String>,
}

impl CardView {
    /// A persona card in words: "Njáll (Red, Worth 2)".
    pub fn persona_label(&self) -> String {
        format!("{} ({}, Worth {})", self.persona.as_deref().unwrap_or_default(), self.colour, self.worth)
    }
}

fn card(c: CardId) -> CardView {
    let d = data();
    let k = &d.cards[c as usize];
    CardView {
        id: c,
        colour: d.colours[k.colour].clone(),
        worth: k.worth,
        action: k.action,
        goods: d.goods[k.colour].clone(),
        persona: k.persona.clone(),
    }
}

/// A Good as anyone sees it: its place in the Wealth and its Worth.
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct GoodView {
    pub place: usize,
    pub worth: u8,
}

/// A Bondi as anyone sees it: its action side (action and colour).
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct BondiView {
    pub place: usize,
    pub action: Action,
    pub colour: String,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlayerView {
    pub seat: Seat,
    pub wordfame: i32,
    pub farms: [u8; 4],
    pub longhall: u8,
    pub slain: u8,
    pub at_sea: u8,
    pub thingvellir: u8,
    pub small_tokens: u8,
    pub large_tokens: u8,
    pub home_stead: String,
    pub wealth: Vec<GoodView>,
    pub oaths: Vec<BondiView>,
    pub hird: Vec<CardView>,
    pub out: bool,
    pub outlawed: bool,
    pub vote: Option<Vote>,
    /// Only to the seat itself.
    pub hand: Option<Vec<CardView>>,
    pub orders: Option<Orders>,
    /// The standing choices; only to the seat itself.
    pub choices: Option<Choices>,
    /// The standing answers; only to the seat itself.
    #[serde(default)]
    pub answers: Option<crate::program::Answers>,
    /// This season's program and the steps used; only to the seat itself.
    #[serde(default)]
    pub season: Option<crate::program::Running>,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct DistrictView {
    pub name: String,
    pub owner: Option<Seat>,
    pub value: u8,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct EdgeView {
    pub districts: [usize; 2],
    pub thingmen: Vec<u8>,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConflictView {
    pub colour: String,
    pub worth: [u32; 2],
    pub settled: bool,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct FeudView {
    pub sides: [Seat; 2],
    pub edge: usize,
    pub thingmen: [u8; 2],
    pub drawn: [Vec<CardView>; 2],
    pub committed: [Vec<CardView>; 2],
    pub conflicts: Vec<ConflictView>,
    pub turn: Option<Seat>,
    pub sealed: [bool; 2],
}

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct LawView {
    pub name: String,
    pub colour: String,
    pub statutes: Vec<(Action, u8)>,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct View {
    pub round: u32,
    pub phase: Phase,
    /// The rules version the game is played by.
    #[serde(default)]
    pub rules_version: u32,
    pub lawspeaker: Seat,
    pub laws: Vec<LawView>,
    pub token: Option<(usize, usize)>,
    pub players: Vec<PlayerView>,
    pub districts: Vec<DistrictView>,
    pub edges: Vec<EdgeView>,
    pub sea: String,
    pub orlog: usize,
    pub doom: usize,
    pub pool: Vec<Option<CardView>>,
    pub current: Option<Step>,
    pub queue: Vec<Step>,
    pub feud: Option<FeudView>,
    /// The farm a winner is choosing to raze or remove.
    pub farm_call: Option<FarmCall>,
    pub sealed_feuds: bool,
    pub advanced_outlawry: bool,
    /// Designed option: Districts produce goods in Hunting for Sheep.
    pub district_goods: bool,
    /// Designed option: the 4 Arson tokens, and the Districts burned this round.
    pub arson: bool,
    pub burned: Vec<usize>,
    /// What this viewer is asked now, if anything.
    pub asked: Option<String>,
    /// The viewer's own seat, if a seat.
    pub me: Option<Seat>,
}

pub fn view(s: &State, viewer: Viewer) -> View {
    let map = s.map();
    let d = data();
    let me = match viewer {
        Viewer::Seat(x) => Some(x),
        _ => None,
    };
    let referee = viewer == Viewer::Referee;
    let players = s
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let seat = i as Seat;
            let own = me == Some(seat) || referee;
            PlayerView {
                seat,
                wordfame: p.wordfame,
                farms: p.farms,
                longhall: p.longhall,
                slain: p.slain,
                at_sea: p.at_sea,
                // By rules version 4 those on its sides and those suing on a Law.
                thingvellir: s.at_thingvellir(seat) + p.suing.iter().map(|x| x.1).sum::<u8>(),
                small_tokens: p.small_tokens,
                large_tokens: p.large_tokens,
                home_stead: d.home_steads[p.home].name.clone(),
                wealth: p
                    .wealth
                    .iter()
                    .enumerate()
                    .map(|(place, c)| GoodView { place, worth: d.cards[*c as usize].worth })
                    .collect(),
                oaths: p
                    .oaths
                    .iter()
                    .enumerate()
                    .map(|(place, c)| {
                        let k = &d.cards[*c as usize];
                        BondiView { place, action: k.action, colour: d.colours[k.colour].clone() }
                    })
                    .collect(),
                hird: p.hird.iter().map(|c| card(*c)).collect(),
                out: p.out,
                outlawed: p.outlawed,
                vote: s.votes.get(i).copied().flatten(),
                hand: (own && !p.hand.is_empty()).then(|| p.hand.iter().map(|c| card(*c)).collect()),
                orders: if own { p.orders.clone() } else { None },
                choices: own.then_some(p.choices),
                answers: own.then(|| p.answers.clone()),
                season: if own { p.season.clone() } else { None },
            }
        })
        .collect();
    let feud = s.feud.as_ref().map(|f| FeudView {
        sides: f.sides,
        edge: f.edge,
        thingmen: f.men,
        drawn: [f.drawn[0].iter().map(|c| card(*c)).collect(), f.drawn[1].iter().map(|c| card(*c)).collect()],
        committed: [
            f.committed[0].iter().map(|c| card(*c)).collect(),
            f.committed[1].iter().map(|c| card(*c)).collect(),
        ],
        conflicts: f
            .conflicts
            .iter()
            .enumerate()
            .filter(|(_, c)| c.present)
            .map(|(i, c)| ConflictView { colour: d.colours[i].clone(), worth: c.worth, settled: c.settled })
            .collect(),
        turn: (!s.sealed_feuds).then_some(f.sides[f.turn]),
        sealed: [f.sealed[0].is_some(), f.sealed[1].is_some()],
    });
    View {
        round: s.round,
        phase: s.phase,
        lawspeaker: s.lawspeaker,
        laws: d
            .laws
            .iter()
            .map(|l| LawView {
                name: l.name.clone(),
                colour: d.colours[l.colour].clone(),
                statutes: l.statutes.iter().map(|x| (x.action, x.bonus)).collect(),
            })
            .collect(),
        token: s.token,
        players,
        districts: map
            .districts
            .iter()
            .enumerate()
            .map(|(i, n)| DistrictView {
                name: n.clone(),
                owner: s.owner(i),
                value: s.steads[i].map(|x| x.1).unwrap_or(0),
            })
            .collect(),
        edges: map
            .edges
            .iter()
            .enumerate()
            .map(|(i, e)| EdgeView { districts: [e.0, e.1], thingmen: s.edges[i].clone() })
            .collect(),
        sea: map.sea.clone(),
        orlog: s.deck.len(),
        doom: s.doom.len(),
        pool: s.pool.iter().map(|c| c.map(card)).collect(),
        current: s.current.clone(),
        queue: s.queue.iter().cloned().collect(),
        feud,
        farm_call: s.farm_calls.front().cloned(),
        sealed_feuds: s.sealed_feuds,
        advanced_outlawry: s.advanced_outlawry,
        district_goods: s.district_goods,
        arson: s.arson,
        burned: s.burned.clone(),
        rules_version: s.version.max(1),
        asked: me.and_then(|m| ask_of(s, m)).map(|a| format!("{a:?}")),
        me,
    }
}

fn name(names: &[String], seat: Seat) -> String {
    names.get(seat as usize).cloned().unwrap_or_else(|| gothi(seat))
}

/// A gothi by their colour on the map ("the gold gothi"), where their
/// player's name is not known (words written into the log, the rules'
/// refusals).
pub fn gothi(seat: Seat) -> String {
    const COLOURS: [&str; 6] = ["red", "blue", "green", "gold", "purple", "orange"];
    format!("the {} gothi", COLOURS[seat as usize % 6])
}

pub fn describe(s: &State, event: &Event, names: &[String]) -> String {
    match event {
        Event::Setup { seats, lawspeaker, .. } => {
            format!("{seats} gothar ride to Thingvellir; {} is Lawspeaker", name(names, *lawspeaker))
        }
        Event::Reshuffled { .. } => "The Doom is shuffled into the orlog".into(),
        Event::Hidden { seat } => format!("{} chose in secret", name(names, *seat)),
        Event::Acted { seat, command } => {
            format!("{}: {}", name(names, *seat), words(s, *seat, command, &|to| name(names, to), Say::LOG))
        }
        Event::ProgramStep { seat, step: 0, text, .. } => format!("{}'s program: {text}", name(names, *seat)),
        Event::ProgramStep { seat, step, text, .. } => format!("{}'s program, step {step}: {text}", name(names, *seat)),
        Event::Answered { seat, text, .. } => format!("{}: {text}", name(names, *seat)),
    }
}

pub fn label(s: &State, seat: Seat, command: &Command) -> String {
    words(s, seat, command, &gothi, Say::OFFERED)
}

/// [`label`] naming other gothar by their players' `names`.
pub fn label_named(s: &State, seat: Seat, command: &Command, names: &[String]) -> String {
    words(s, seat, command, &|to| name(names, to), Say::OFFERED)
}

/// How a Good is named in words. A Good shows only its Worth ("tucked so
/// that the Worth of each card is showing. You may never look at any other
/// aspect of a Good in your Wealth"); a Good committed to a feud shows its
/// colour by joining that colour's conflict, so the log names it once
/// committed; a gift is handed over as it is ("remove it from your Wealth
/// and hand it to the chosen gothi; at the end of the feast, they will tuck
/// it into their Wealth"), so its colour is told to nobody, the giver
/// included.
#[derive(Clone, Copy)]
struct Say {
    /// Name the colour of a Good committed to a feud.
    committed: bool,
    /// Name the colour of a Good given (versions 1 and 2 did, in the
    /// program steps their logs hold).
    given: bool,
    /// Name a Good's place in the Wealth (in the commands offered, where the
    /// place tells Goods of one Worth apart; never in the log, where the
    /// places have moved on).
    place: bool,
}

impl Say {
    const OFFERED: Say = Say { committed: false, given: false, place: true };
    const LOG: Say = Say { committed: true, given: false, place: false };
}

/// A command in words as a program step or a standing answer tells it in
/// the log (the text is part of the event). Games of rules versions 1 and 2
/// keep the words their logs were written with, which named a Good's
/// colour and another gothi by seat number; by version 3 a Good is named by
/// its Worth alone, as everywhere, and a gothi by their colour on the map.
pub fn told(s: &State, seat: Seat, command: &Command) -> String {
    let by_seat = |to: Seat| format!("seat {to}");
    let who: &dyn Fn(Seat) -> String = if s.version < 3 { &by_seat } else { &gothi };
    words(s, seat, command, who, Say { given: s.version < 3, ..Say::LOG })
}

/// `seat`'s command in words on the position it is given on, other gothar
/// named by `who`, its Goods as `say` says.
fn words(s: &State, seat: Seat, command: &Command, who: &dyn Fn(Seat) -> String, say: Say) -> String {
    let map = s.map();
    let d = data();
    let dist = |i: usize| map.districts.get(i).cloned().unwrap_or_else(|| format!("District {i}"));
    let edge = |e: usize| {
        map.edges
            .get(e)
            .map(|(a, b)| format!("{}–{}", map.districts[*a], map.districts[*b]))
            .unwrap_or_else(|| format!("edge {e}"))
    };
    let colour = |c: usize| d.colours.get(c).cloned().unwrap_or_else(|| format!("colour {c}"));
    let worth = |place: usize, coloured: bool| {
        s.players.get(seat as usize).and_then(|p| p.wealth.get(place)).map_or_else(
            || "a Good".to_owned(),
            |c| {
                let card = &d.cards[*c as usize];
                match (coloured, say.place) {
                    (true, _) => format!("the {} Good of Worth {}", colour(card.colour), card.worth),
                    (false, true) => format!("a Good of Worth {} (place {place})", card.worth),
                    (false, false) => format!("a Good of Worth {}", card.worth),
                }
            },
        )
    };
    match command {
        Command::Propose { law } => {
            format!("propose the {}", d.laws.get(*law).map(|l| l.name.as_str()).unwrap_or("Law"))
        }
        Command::Vote { vote: Vote::Support } => "support".into(),
        Command::Vote { vote: Vote::Sue { law, level } } => {
            let a = d.laws.get(*law).and_then(|l| l.statutes.get(*level)).map(|s| s.action.name()).unwrap_or("?");
            format!("sue for {a} on the {}", d.laws.get(*law).map(|l| l.name.as_str()).unwrap_or("Law"))
        }
        Command::Orders { orders: Some(_) } => "set standing voting orders".into(),
        Command::Orders { orders: None } => "clear standing voting orders".into(),
        Command::Season { program }
            if program.steps.is_empty() && program.otherwise == crate::program::Otherwise::Ask =>
        {
            "play the season by hand, each decision as it comes".into()
        }
        Command::Season { program } => format!(
            "give the season's program ({} step{}; otherwise {})",
            program.steps.len(),
            if program.steps.len() == 1 { "" } else { "s" },
            match program.otherwise {
                crate::program::Otherwise::Ask => "ask me",
                crate::program::Otherwise::Bot => "the bot decides",
                crate::program::Otherwise::Pass => "pass",
            }
        ),
        Command::Answers { .. } => "set standing answers".into(),
        Command::Subsume { district, colour: c } => format!("settle {} (a {} farm)", dist(*district), colour(*c)),
        Command::Expand { steps } => {
            let v: Vec<String> = steps.iter().map(|(x, c)| format!("{} (+{})", dist(*x), colour(*c))).collect();
            format!("expand {}", v.join(", "))
        }
        Command::Ride { set_forth, moves } => {
            let mut v: Vec<String> = Vec::new();
            for e in set_forth.iter().copied().collect::<std::collections::BTreeSet<usize>>() {
                let n = set_forth.iter().filter(|x| **x == e).count();
                v.push(if n == 1 {
                    format!("set forth 1 Thingman to {}", edge(e))
                } else {
                    format!("set forth {n} Thingmen to {}", edge(e))
                });
            }
            v.extend(moves.iter().map(|m| {
                format!("ride {} from {} to {}", m.count, edge(m.from), edge(*m.path.last().unwrap_or(&m.from)))
            }));
            if v.is_empty() {
                "ride nowhere".into()
            } else {
                v.join("; ")
            }
        }
        Command::SailOut { thingmen: 1 } => "send 1 Thingman to sea".into(),
        Command::SailOut { thingmen } => format!("send {thingmen} Thingmen to sea"),
        Command::ReturnLaden => "return laden with riches".into(),
        Command::Keep { cards } => format!("keep {} cards", cards.len()),
        Command::DrawPledge => "draw for the Pledge".into(),
        Command::Swear { add, swaps } => format!("swear {} Bondi, swap {}", add.iter().count(), swaps.len()),
        Command::SendOff { persona } => format!("send off {}", card(*persona).persona.unwrap_or_default()),
        Command::FosterPersona { persona } => format!("foster {}", card(*persona).persona.unwrap_or_default()),
        Command::Give { gifts } => {
            let v: Vec<String> = gifts
                .iter()
                .map(|g| {
                    let goods: Vec<String> = g.goods.iter().map(|p| worth(*p, say.given)).collect();
                    format!("{} to {}", goods.join(" and "), who(g.to))
                })
                .collect();
            format!("give {}", v.join("; "))
        }
        Command::Murder { bondi, edge: e, victim, also } => {
            let mut targets = vec![format!("{} on {}", who(*victim), edge(*e))];
            targets.extend(also.iter().map(|t| format!("{} on {}", who(t.victim), edge(t.edge))));
            format!("murder the Thingmen of {} with {} Bondi", targets.join(", then "), bondi.len())
        }
        Command::Burn { district, .. } => format!("burn {}", dist(*district)),
        Command::Capture { district, weapon, .. } => {
            format!("try to capture {}{}", dist(*district), if weapon.is_some() { " with a Weapon" } else { "" })
        }
        Command::Pass => "pass".into(),
        Command::Commit { good } => format!("commit {}", worth(*good, say.committed)),
        Command::Accept { colour: c } => format!("accept the {} conflict", colour(*c)),
        Command::Seal { goods } => format!("seal {} Goods", goods.len()),
        Command::Challenge { fight: true } => "fight the band".into(),
        Command::Challenge { fight: false } => "let the band pass".into(),
        Command::Choices { choices } => format!(
            "ask me {}",
            match (choices.farm, choices.pool) {
                (true, true) => "which farm to raze or remove and whether to replace in the Foster pool",
                (true, false) => "which farm to raze or remove; keep the Foster pool",
                (false, true) => "whether to replace in the Foster pool; the rules choose farms",
                (false, false) => "nothing: the rules choose farms and keep the Foster pool",
            }
        ),
        Command::Raze { district, colour: c } => format!("raze a {} farm on {}", colour(*c), dist(*district)),
        Command::RemoveFarm { colour: c } => format!("remove a {} farm", colour(*c)),
        Command::Replace { personae } if personae.is_empty() => "keep the Foster pool as it is".into(),
        Command::Replace { personae } => format!(
            "put {} in the Foster pool",
            personae.iter().map(|c| card(*c).persona.unwrap_or_default()).collect::<Vec<_>>().join(" and ")
        ),
    }
}

/// Why Wordfame changed with `event` (told on `s`, the position it was
/// written on; `after` is the position it gives), in words to follow the
/// event's own: "Ann gains 3 Wordfame for the gifts given (now 12); Bo
/// gains 1 Wordfame in the Long Dark Winter: more gold farms than every
/// neighbour (now 8)". Empty when no one's Wordfame changed.
pub fn fame_words(s: &State, after: &State, event: &Event, names: &[String]) -> String {
    let d = data();
    let changed: Vec<(Seat, i32)> = (0..s.players.len().min(after.players.len()))
        .filter_map(|k| {
            let delta = after.players[k].wordfame - s.players[k].wordfame;
            (delta != 0).then_some((k as Seat, delta))
        })
        .collect();
    if changed.is_empty() {
        return String::new();
    }
    let winter = after.round > s.round;
    let everyone: Vec<Seat> = (0..after.seats).collect();
    let gains = if winter { crate::seasons::winter_gains(after, &everyone) } else { Vec::new() };
    let command = match event {
        Event::Acted { command, .. } => Some(command),
        Event::ProgramStep { command, .. } | Event::Answered { command, .. } => command.as_ref(),
        _ => None,
    };
    let feud_settled = s.feud.is_some() && after.feud.is_none();
    let colours = |cs: &[usize]| -> String {
        let v: Vec<String> = cs.iter().map(|c| d.colours.get(*c).cloned().unwrap_or_default()).collect();
        match v.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        }
    };
    let amount = |n: i32| if n.abs() == 1 { "1 Wordfame".to_owned() } else { format!("{} Wordfame", n.abs()) };
    let mut parts = Vec::new();
    for (seat, delta) in changed {
        let who = name(names, seat);
        let mut why = Vec::new();
        let won: &[usize] = gains.iter().find(|g| g.0 == seat).map_or(&[], |g| g.1.as_slice());
        let rest = delta - won.len() as i32;
        if rest != 0 {
            let verb = if rest > 0 { "gains" } else { "loses" };
            why.push(match command {
                Some(Command::Give { .. }) if rest > 0 => format!("{who} gains {} for the gifts given", amount(rest)),
                Some(Command::Capture { .. }) if rest < 0 => {
                    format!("{who} pays {} to get past the Long Hall's guard", amount(rest))
                }
                _ if feud_settled && rest > 0 => format!("{who} gains {} for conflicts won in the feud", amount(rest)),
                _ if winter && rest < 0 => format!("{who} loses {} to full outlawry", amount(rest)),
                _ => format!("{who} {verb} {}", amount(rest)),
            });
        }
        if !won.is_empty() {
            let subject = if rest != 0 { "and".to_owned() } else { who.clone() };
            why.push(format!(
                "{subject} gains {} in the Long Dark Winter: more {} farms than every neighbour",
                amount(won.len() as i32),
                colours(won)
            ));
        }
        parts.push(format!("{} (now {})", why.join(" "), after.players[seat as usize].wordfame));
    }
    parts.join("; ")
}
