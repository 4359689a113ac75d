//! Bardagi's decision forms: the plan picker (four numbers), the turn
//! composer (the legal card actions grouped by unit) and the standing
//! orders, built from a seat's legal commands and view; and the commands
//! built back from what the plan and orders forms post. The rules judge
//! every command: these forms only put it together.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::build::Effect;
use crate::state::{AxeOrder, Building, Hand, Loc, Orders, Phase};
use crate::view::{PlayerView, TileView, View};

use runestone_engine::present::{
    Choice, Field, Form, Forms, FormsInput, Frame, Group, Input, Note, Part, Posted, Submit, Sum,
};

/// The `build` names of the plan picker and the standing orders forms.
pub const PLAN: &str = "bardagi-plan";
pub const ORDERS: &str = "bardagi-orders";

/// The card types, as the `Hand` JSON names them, and in words.
const CARDS: [(&str, &str); 4] =
    [("berserkur", "Berserkur"), ("godi", "Godi"), ("kaupmadur", "Kaupmadur"), ("knerrir", "Knerrir")];

/// What the cards do, told beside the plan's numbers.
const CARD_ROLES: &str = "Each card is one move or one action of its unit this round. Berserkur: moves 1 area a \
card and takes areas by force, also from other clans. Godi: moves 2 areas a card and converts Barbarian areas \
with divine power. Kaupmadur: moves 2 areas a card, buys Barbarian areas and trades (at his Verslun one card \
trades and refills). Knerrir: the ship; a card sails it, carrying your units by sea. Cards not laid down in your \
turn are simply not used; all come back next round.";

/// The unit buildings, as the `Building` JSON names them, and in words.
const BUILDINGS: [(&str, &str); 3] = [("virki", "Virki"), ("hof", "Hof"), ("verslun", "Verslun")];

/// Wish slots shown beyond the wishes already in the orders.
const SPARE_WISHES: usize = 2;
/// Wish slots shown at least.
const MIN_WISHES: usize = 3;

/// The name of area `a` on the view's board.
fn area_name(view: &View, a: &Value) -> String {
    let Some(i) = a.as_u64() else { return "?".into() };
    view.board.areas.get(i as usize).map(|a| a.name.clone()).unwrap_or_else(|| format!("area {i}"))
}

/// A value's name as the view and commands write it ("hof", "gold_two").
fn name_of<T: Serialize>(x: &T) -> String {
    serde_json::to_value(x).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// A typed hand in words: "2 Berserkur, 1 Knerrir".
fn hand_of(h: &Hand) -> String {
    hand_words(&json!({"berserkur": h.berserkur, "godi": h.godi, "kaupmadur": h.kaupmadur, "knerrir": h.knerrir}))
}

/// The number of cards of a type (by its name) in a typed hand.
fn count_in(h: &Hand, key: &str) -> u8 {
    match key {
        "berserkur" => h.berserkur,
        "godi" => h.godi,
        "kaupmadur" => h.kaupmadur,
        "knerrir" => h.knerrir,
        _ => 0,
    }
}

fn card_name(key: &str) -> &str {
    CARDS.iter().find(|(k, _)| *k == key).map_or(key, |(_, n)| n)
}

fn building_name(key: &str) -> &str {
    BUILDINGS.iter().find(|(k, _)| *k == key).map_or(key, |(_, n)| n)
}

/// What an upgrade effect does, in a few words.
pub(crate) fn effect_words(effect: &str) -> &str {
    match effect {
        "knerrir_plus_two" => "Knerrir moves 2 more squares per card",
        "gold_two" => "2 gold each Claim phase",
        "mead_hall" => "Virki holds 2 more disks",
        "glory_per_iron_mine" => "1 glory per iron mine each Claim phase",
        "berserkur_moves_three" => "Berserkur moves 3 areas per card",
        "glory_per_cattle" => "1 glory per cattle area each Claim phase",
        "gold_per_village" => "1 gold per village each Claim phase",
        "gold_per_attack" => "1 gold per area attacked this round",
        "gold_per_sheep" => "1 gold per sheep area each Claim phase",
        "recruit_per_iron_mine" => "1 recruit per iron mine each Claim phase",
        "glory_per_quarry" => "1 glory per quarry each Claim phase",
        "gold_per_forest" => "1 gold per forest each Claim phase",
        "glory_per_area_taken" => "1 glory per area taken from a clan this round",
        "glory_three" => "3 glory each Claim phase",
        "axe_plus_two" => "own axes count 4 in defence",
        "gold_three" => "3 gold each Claim phase",
        "any_card_berserkur" => "once a round any card acts for the Berserkur",
        "godi_free_action" => "once a round the Godi acts without a card",
        "home_action_anywhere" => "home actions without the Kaupmadur at home",
        "larger_storage" => "storage holds 8 of each good",
        "berserkur_strength" => "Berserkur counts 6 in defence",
        "quarry_glory_three" => "3 glory each Claim phase while owning a quarry",
        "rune_per_village" => "a free rune per village each Claim phase",
        "hide_for_gold" => "Kaupmadur sells up to 4 hide for 1 gold each",
        other => other,
    }
}

/// A hand (`{"berserkur": 2, …}`) in words: "2 Berserkur, 1 Knerrir".
pub fn hand_words(hand: &Value) -> String {
    let parts: Vec<String> = CARDS
        .iter()
        .filter_map(|(k, name)| hand[*k].as_u64().filter(|n| *n > 0).map(|n| format!("{n} {name}")))
        .collect();
    if parts.is_empty() {
        "no cards".into()
    } else {
        parts.join(", ")
    }
}

/// Which unit's group a turn step belongs to: 0 Berserkur, 1 Godi,
/// 2 Kaupmadur, 3 Knerrir, 4 anything else.
fn group_of(c: &Value) -> usize {
    match c["type"].as_str().unwrap_or_default() {
        "Move" | "Board" | "Disembark" | "Refill" | "BuyRunes" => {
            CARDS.iter().position(|(k, _)| c["unit"] == *k).unwrap_or(4)
        }
        "Attack" | "Retreat" | "Rearrange" => 0,
        "Convert" | "Cast" | "RemoveRune" => 1,
        "BuyLand" | "Trade" | "ForceTrade" => 2,
        "Sail" | "ClaimHarbour" => 3,
        _ => 4,
    }
}

fn goods_list(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(goods_list).collect::<Vec<_>>().join(" and "),
        _ => String::new(),
    }
}

/// The words that tell apart commands the game labels alike.
fn detail(c: &Value, view: &View) -> Option<String> {
    match c["type"].as_str()? {
        "Attack" => match c["reinforce"].as_u64() {
            Some(n) if n > 0 => Some(format!("with {n} more disk(s) from Virki")),
            _ => None,
        },
        "Cast" => Some(
            c["casts"]
                .as_array()?
                .iter()
                .map(|k| format!("{} on {}", rune_words(&k["rune"]), area_name(view, &k["area"])))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        "Trade" => {
            let mut parts = Vec::new();
            if let Some(r) = c["refill"].as_array().filter(|r| !r.is_empty()) {
                let names: Vec<&str> = r.iter().map(|b| building_name(b.as_str().unwrap_or_default())).collect();
                parts.push(format!("refill {}", names.join(", ")));
            }
            for d in c["deals"].as_array().into_iter().flatten() {
                let give = goods_list(&d["give"]);
                let get = goods_list(&d["get"]);
                parts.push(match d["deal"].as_str().unwrap_or_default() {
                    "sell" => format!("sell {give}"),
                    "buy" => format!("buy {get}"),
                    "tannery" => format!("sell {} hide", d["hide"]),
                    _ => format!("{give} for {get}"),
                });
            }
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        "Sail" => {
            let route = c["route"].as_array()?;
            let last = route.last()?;
            let to = if last["harbour"].is_number() {
                format!("the harbour of {}", area_name(view, &last["harbour"]))
            } else if let Some(o) = last.get("ocean") {
                format!("ocean square {o}")
            } else {
                last.to_string()
            };
            Some(format!("to {to}{}", if c["sea_rune"] == true { ", with a Sea move rune" } else { "" }))
        }
        "Rearrange" => {
            let spot = |v: &Value| match v.as_str() {
                Some("virki") => "Virki".to_owned(),
                Some("town") => "the town".to_owned(),
                _ => area_name(view, &v["area"]),
            };
            Some(
                c["moves"]
                    .as_array()?
                    .iter()
                    .map(|m| format!("{} from {} to {}", m["count"], spot(&m["from"]), spot(&m["to"])))
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        }
        "Exchange" => None,
        _ => None,
    }
}

fn rune_words(r: &Value) -> &str {
    match r.as_str().unwrap_or_default() {
        "divine" => "Divine token",
        "sea_move" => "Sea move",
        "defence" => "Defence",
        "no_resources" => "No resources",
        "theirs_are_yours" => "Theirs are yours",
        "twice" => "Twice the resource",
        other => other,
    }
}

/// A step of the bot's whole turn in words; `at` follows the units' moves.
fn step_words(c: &Value, view: &View, at: &mut [Value; 3]) -> String {
    let unit = c["unit"].as_str().map(card_name).unwrap_or("?").to_owned();
    let unit_idx = CARDS.iter().position(|(k, _)| c["unit"] == *k).filter(|i| *i < 3);
    let here = |i: usize, at: &[Value; 3]| area_name(view, &at[i]);
    let mut words = match c["type"].as_str().unwrap_or_default() {
        "Move" => {
            if let Some(i) = unit_idx {
                at[i] = c["to"].clone();
            }
            format!("{unit} to {}", area_name(view, &c["to"]))
        }
        "Board" => format!("{unit} boards the Knerrir"),
        "Disembark" => format!("{unit} goes ashore"),
        "Refill" => format!("{unit} refills"),
        "BuyRunes" => format!("{unit} buys runes"),
        "Sail" => format!("Knerrir sails {} square(s)", c["route"].as_array().map_or(0, Vec::len)),
        "Attack" if c["claim"] == false => format!("Berserkur fights on {}", here(0, at)),
        "Attack" => format!("Berserkur attacks {}", here(0, at)),
        "Retreat" => "Berserkur retreats".into(),
        "Rearrange" => "Berserkur rearranges disks".into(),
        "Convert" => format!("Godi converts {}", here(1, at)),
        "Cast" => "Godi casts runes".into(),
        "RemoveRune" => format!("Godi removes {}", rune_words(&c["rune"])),
        "BuyLand" => format!("Kaupmadur buys {}", here(2, at)),
        "Trade" => "Kaupmadur trades".into(),
        "ForceTrade" => "Kaupmadur forces a trade".into(),
        "ClaimHarbour" => "Knerrir claims the harbour it lies at".into(),
        "Exchange" => format!("exchange 2 cards for a {} card", card_name(c["take"].as_str().unwrap_or_default())),
        "EndTurn" => "end the turn".into(),
        "SetOrders" => "set the bot's standing orders (replacing yours)".into(),
        "Plan" => format!("choose {}", hand_words(&c["hand"])),
        other => other.to_owned(),
    };
    if let Some(d) = detail(c, view) {
        words = format!("{words} ({d})");
    }
    words
}

/// The bot's whole turn in words.
fn turn_words(turn: &Value, view: &View, me: usize) -> String {
    let area = |l: Loc| match l {
        Loc::Area(a) => json!(a),
        Loc::Aboard | Loc::Fallen => Value::Null,
    };
    let mut at: [Value; 3] = match view.players.get(me) {
        Some(p) => [area(p.units.berserkur), area(p.units.godi), area(p.units.kaupmadur)],
        None => [Value::Null, Value::Null, Value::Null],
    };
    let steps: Vec<String> =
        turn["steps"].as_array().into_iter().flatten().map(|s| step_words(s, view, &mut at)).collect();
    if steps.is_empty() {
        "end the turn".into()
    } else {
        steps.join(", ")
    }
}

/// The forms of `me` for this position: the plan picker (when a plan is
/// to be chosen), the turn composer (when the turn is on) and the standing
/// orders, with what a refused form posted (`entered`) kept.
pub fn forms(input: &FormsInput<'_, View>) -> Option<Forms> {
    let parts = form_parts(input.legal, input.labels, input.view, input.seat, input.entered);
    Some(Forms { parts })
}

fn form_parts(
    legal: &[Value],
    labels: &[String],
    view: &View,
    me: u8,
    entered: &BTreeMap<String, String>,
) -> Vec<Part> {
    let Some(mine) = view.players.get(me as usize) else { return Vec::new() };
    let again = |form: &str| entered.get("build").is_some_and(|b| b == form);
    let mut parts = Vec::new();
    if let Some(plan) = plan_form(legal, view, mine, if again(PLAN) { Some(entered) } else { None }) {
        parts.push(plan);
    }
    if let Some(turn) = turn_form(legal, labels, view, mine, me, entered) {
        parts.push(turn);
    }
    parts.push(orders_form(view, mine, if again(ORDERS) { Some(entered) } else { None }));
    parts
}

/// The plan picker: a number per card type, adding up to the plan's size,
/// filled in with what was typed, the plan chosen, or the bot's.
fn plan_form(
    legal: &[Value],
    view: &View,
    mine: &PlayerView,
    entered: Option<&BTreeMap<String, String>>,
) -> Option<Part> {
    let plans: Vec<&Value> = legal.iter().filter(|c| c["type"] == "Plan").collect();
    if plans.is_empty() {
        return None;
    }
    // The bot's plan: the first legal command, or (in the easier variant,
    // where cards are chosen as the turn begins) its whole turn's first step.
    let bot_plan = legal.first().and_then(|c| match c["type"].as_str() {
        Some("Plan") => Some(c),
        Some("PlayTurn") => c["steps"].as_array().and_then(|s| s.first()).filter(|s| s["type"] == "Plan"),
        _ => None,
    });
    let suggested = bot_plan.unwrap_or(plans[0]);
    // A plan already chosen (and still replaceable): the picker starts from
    // it (the legal commands are then the other plans, none the bot's).
    let chosen = mine.hand.as_ref().filter(|_| mine.planned);
    let sizes: Vec<u64> =
        plans.iter().map(|p| CARDS.iter().map(|(k, _)| p["hand"][*k].as_u64().unwrap_or(0)).sum()).collect();
    let min = sizes.iter().copied().min().unwrap_or(6);
    let max = sizes.iter().copied().max().unwrap_or(6);
    let size = if min == max { min.to_string() } else { format!("{min} to {max}") };
    let fields: Vec<Part> = CARDS
        .iter()
        .map(|(k, name)| {
            let value = match (entered, chosen) {
                (Some(e), _) => e.get(&format!("hand.{k}")).cloned().unwrap_or_default(),
                (None, Some(h)) => count_in(h, k).to_string(),
                (None, None) => suggested["hand"][*k].as_u64().unwrap_or(0).to_string(),
            };
            Field::new(format!("hand-{k}"), format!("hand.{k}"), *name, Input::Number { min: 0, max: 6 })
                .value(value)
                .class("hand-count")
                .wrap(format!("card-count card-{k}"))
                .described_by("plan-count")
                .into()
        })
        .collect();
    let bot_words = hand_words(&suggested["hand"]);
    let note = match chosen {
        Some(h) => Note::small(format!(
            "Your plan now: {}. Only you see it; you may replace it until every clan has chosen.",
            hand_of(h)
        ))
        .id("plan-chosen"),
        None => Note::small(format!(
            "Filled in with the bot's suggestion: {bot_words}. Only you see your plan until your turn lays the cards down."
        )),
    };
    let sum = Sum {
        id: "plan-count".into(),
        fields: CARDS.iter().map(|(k, _)| format!("hand.{k}")).collect(),
        min: min as i64,
        max: max as i64,
        words: format!("The four numbers must add up to {size} (at most 6 of a kind)."),
    };
    let mut cards = vec![
        Part::Refusal { build: PLAN.into() },
        Note::small(CARD_ROLES).id("card-roles").into(),
        Group::new(Frame::Box, fields).class("card-counts").into(),
        sum.into(),
        note.into(),
    ];
    // A turn program goes with a secret plan made before the turn (not in
    // the easier variant, where the cards are chosen as the turn begins).
    let program =
        (view.phase == Phase::Planning && !view.options.easy_cards).then(|| program_part(legal, view, mine, entered));
    let submit = match program {
        Some(_) => Submit::new("Choose these cards and this turn").class("primary").id("plan-submit"),
        None => Submit::new("Choose these cards").class("primary").id("plan-submit"),
    };
    if program.is_none() {
        cards.push(submit.clone().into());
    }
    let legend = format!("Pick the plan's cards: {size} of your 24, in secret");
    let mut parts: Vec<Part> = vec![Group::new(Frame::Fieldset { legend }, cards).into()];
    let has_program = program.is_some();
    if let Some(p) = program {
        parts.push(p);
        parts.push(submit.into());
    }
    let form: Part = Form::new(parts).id("plan-form").class("plan-picker").build(PLAN).into();
    // The bot's cards with the turn it would play from the board as it is
    // now, in one press.
    let bot = legal.iter().find(|c| c["type"] == "Program").filter(|_| has_program && chosen.is_none());
    let Some(bot) = bot else { return Some(form) };
    let steps: Vec<Value> = bot["steps"].as_array().cloned().unwrap_or_default();
    let words = format!(
        "Or take the bot's cards and turn: {}, then {}",
        hand_words(&bot["hand"]),
        program_words(&steps, view, mine)
    );
    let button = Submit::new(words).command(bot.to_string()).id("bot-program");
    Some(Group::new(Frame::Box, vec![form, Form::new(vec![button.into()]).class("bot-turn").into()]).into())
}

/// Program rows shown beyond the steps already filled in, and at least.
const SPARE_STEPS: usize = 2;
const MIN_STEPS: usize = 4;

/// The choices of a program step: the card actions the clan's units could
/// take from where they stand now (moves within one card's reach, their
/// actions where they will stand), the steps of the bot's and the clan's
/// own program, and the end of the turn; each a command's JSON and words.
fn step_choices(view: &View, mine: &PlayerView, me: u8, known: &[Value]) -> Vec<(Value, String)> {
    let mut out: Vec<(Value, String)> = Vec::new();
    let mut add = |c: Value, words: String| {
        if !out.iter().any(|(x, _)| *x == c) {
            out.push((c, words));
        }
    };
    let board = crate::board::Board::build(view.board.clone()).ok();
    let owned = |a: usize| a == mine.home as usize || view.areas.get(a).is_some_and(|x| x.owner == Some(me));
    let at = |l: Loc| match l {
        Loc::Area(a) => Some(a as usize),
        Loc::Aboard | Loc::Fallen => None,
    };
    let quick = mine.upgrades.iter().any(|t| t.effect == Effect::BerserkurMovesThree);
    let units = [("berserkur", mine.units.berserkur), ("godi", mine.units.godi), ("kaupmadur", mine.units.kaupmadur)];
    for (key, loc) in units {
        let name = card_name(key);
        match (at(loc), &board) {
            (Some(from), Some(b)) => {
                // Areas within one card's moves; steps through own areas are free.
                let reach = match key {
                    "berserkur" if quick => 3,
                    // The 2018 rules: every land unit moves 2 areas a card.
                    "berserkur" if view.options.rules == crate::rules2018::Rules::Y2018 => 2,
                    "berserkur" => 1,
                    _ => 2,
                };
                let mut cost = vec![u8::MAX; b.land.len()];
                cost[from] = 0;
                let mut queue = std::collections::VecDeque::from([from]);
                while let Some(a) = queue.pop_front() {
                    for &n in &b.land[a] {
                        let n = n as usize;
                        let c = cost[a] + u8::from(!(owned(a) && owned(n)));
                        if c <= reach && c < cost[n] {
                            cost[n] = c;
                            queue.push_back(n);
                        }
                    }
                }
                for (to, c) in cost.iter().enumerate() {
                    if to != from && *c <= reach {
                        let words = format!("{name} moves to {}", area_name(view, &json!(to)));
                        add(json!({"type": "Move", "unit": key, "to": to}), words);
                    }
                }
                if b.data.areas.get(from).is_some_and(|a| a.harbour) {
                    add(json!({"type": "Board", "unit": key}), format!("{name} boards the Knerrir"));
                }
            }
            _ if matches!(loc, Loc::Aboard) => {
                add(json!({"type": "Disembark", "unit": key}), format!("{name} goes ashore"));
            }
            _ => {}
        }
    }
    let actions = [
        (json!({"type": "Attack", "claim": true, "reinforce": 0}), "Berserkur attacks the area he stands on"),
        (
            json!({"type": "Attack", "claim": true, "reinforce": 1}),
            "Berserkur attacks there with 1 more disk from Virki",
        ),
        (json!({"type": "Attack", "claim": false, "reinforce": 0}), "Berserkur fights the Berserkur there, no claim"),
        (json!({"type": "Retreat"}), "Berserkur retreats after a fight (free)"),
        (json!({"type": "Refill", "unit": "berserkur"}), "Berserkur refills Virki (at home)"),
        (json!({"type": "Convert"}), "Godi converts the Barbarian area he stands on"),
        (json!({"type": "Refill", "unit": "godi"}), "Godi refills Hof (at home)"),
        (json!({"type": "BuyRunes", "unit": "godi"}), "Godi buys 3 runes (at a sacred location)"),
        (json!({"type": "BuyLand"}), "Kaupmadur buys the Barbarian area he stands on"),
        (json!({"type": "BuyRunes", "unit": "kaupmadur"}), "Kaupmadur buys 3 runes (at a sacred location)"),
    ];
    for (c, words) in actions {
        add(c, words.to_owned());
    }
    if view.options.rules == crate::rules2018::Rules::Y2018 {
        add(json!({"type": "ClaimHarbour"}), "Knerrir claims the empty harbour it lies at (2018 rules)".to_owned());
    }
    for c in known {
        let words = match detail(c, view) {
            Some(d) => format!("{} ({d})", step_words(c, view, &mut [Value::Null, Value::Null, Value::Null])),
            None => step_words(c, view, &mut [Value::Null, Value::Null, Value::Null]),
        };
        add(c.clone(), words);
    }
    add(json!({"type": "EndTurn"}), "end the turn".into());
    out
}

/// A step's fallback as the plan form posts it: a keyword, or the JSON of
/// the step to try instead.
fn fallback_value(f: &Value) -> String {
    match f["type"].as_str() {
        Some("Skip") => "skip".into(),
        Some("EndTurn") => "end".into(),
        Some("Bot") => "bot".into(),
        Some("Try") => f["step"].to_string(),
        _ => "ask".into(),
    }
}

/// A program in words, steps followed as they move the units.
fn program_words(steps: &[Value], view: &View, mine: &PlayerView) -> String {
    let area = |l: Loc| match l {
        Loc::Area(a) => json!(a),
        Loc::Aboard | Loc::Fallen => Value::Null,
    };
    let mut at = [area(mine.units.berserkur), area(mine.units.godi), area(mine.units.kaupmadur)];
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let if_refused = match s["fallback"]["type"].as_str() {
                Some("Skip") => "skip it".to_owned(),
                Some("EndTurn") => "end the turn".to_owned(),
                Some("Bot") => "the bot plays the rest".to_owned(),
                Some("Try") => {
                    let mut here = at.clone();
                    format!("try {}", step_words(&s["fallback"]["step"], view, &mut here))
                }
                _ => "ask me".to_owned(),
            };
            format!("{}. {} (if refused: {if_refused})", i + 1, step_words(&s["step"], view, &mut at))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The program the seat gave with its plan, as JSON steps.
fn stored_program(mine: &PlayerView) -> Option<Vec<Value>> {
    mine.program.as_ref().and_then(|p| serde_json::to_value(p).ok()).and_then(|v| v.as_array().cloned())
}

/// The bot's program of the coming turn (its steps with their fallbacks),
/// from the seat's legal commands.
pub(crate) fn bot_program(legal: &[Value]) -> Vec<Value> {
    legal.iter().find(|c| c["type"] == "Program").and_then(|c| c["steps"].as_array().cloned()).unwrap_or_default()
}

/// The steps the plan form's program offers, each a command's JSON and
/// words ([`step_choices`]): the steps of the program given and of the
/// bot's among them.
pub(crate) fn program_choices(legal: &[Value], view: &View, mine: &PlayerView) -> Vec<(Value, String)> {
    let mut known: Vec<Value> = Vec::new();
    for s in stored_program(mine).unwrap_or_default().iter().chain(&bot_program(legal)) {
        known.push(s["step"].clone());
        if s["fallback"]["type"] == "Try" {
            known.push(s["fallback"]["step"].clone());
        }
    }
    step_choices(view, mine, mine.seat as u8, &known)
}

/// The program part of the plan form: an ordered list of steps, each a
/// card action and what to do when the rules refuse it by the time the
/// turn comes, filled in with what was posted, the program given, or the
/// bot's.
fn program_part(legal: &[Value], view: &View, mine: &PlayerView, entered: Option<&BTreeMap<String, String>>) -> Part {
    let stored = stored_program(mine);
    let given = stored.clone().unwrap_or_default();
    let choices = program_choices(legal, view, mine);
    // The option's own value string for a step (equal JSON, however written).
    let value_of = |c: &Value| -> String {
        choices.iter().find(|(x, _)| x == c).map_or_else(|| c.to_string(), |(x, _)| x.to_string())
    };
    let posted_rows = entered.map_or(0, |e| {
        e.keys()
            .filter_map(|k| k.strip_prefix("program.step.")?.parse::<usize>().ok())
            .map(|i| i + 1)
            .max()
            .unwrap_or(0)
    });
    let filled = if entered.is_some() { posted_rows } else { given.len() };
    let rows = (filled + SPARE_STEPS).clamp(MIN_STEPS, crate::program::MAX_STEPS);
    let step_options: Vec<Choice> = choices.iter().map(|(c, w)| Choice::new(c.to_string(), w.clone())).collect();
    let mut fallback_options = vec![
        Choice::new("ask", "stop and ask me (the ordinary turn)"),
        Choice::new("skip", "skip this step, go on"),
        Choice::new("end", "end the turn there"),
        Choice::new("bot", "let the bot play the rest of the turn"),
    ];
    fallback_options.extend(choices.iter().map(|(c, w)| Choice::new(c.to_string(), format!("try instead: {w}"))));
    let items: Vec<Part> = (0..rows)
        .map(|i| {
            let (step, fallback) = match entered {
                Some(e) => (
                    e.get(&format!("program.step.{i}")).cloned().unwrap_or_default(),
                    e.get(&format!("program.fallback.{i}")).cloned().unwrap_or_else(|| "skip".into()),
                ),
                None => match given.get(i) {
                    Some(s) => {
                        let f = match s["fallback"]["type"].as_str() {
                            Some("Try") => value_of(&s["fallback"]["step"]),
                            _ => fallback_value(&s["fallback"]),
                        };
                        (value_of(&s["step"]), f)
                    }
                    None => (String::new(), "skip".into()),
                },
            };
            let n = i + 1;
            let step = Field::new(
                format!("program-step-{i}"),
                format!("program.step.{i}"),
                format!("Step {n}"),
                Input::One { options: step_options.clone(), blank: Some("(no step)".into()), required: false },
            )
            .value(step)
            .wrap("program-what");
            let fallback = Field::new(
                format!("program-fallback-{i}"),
                format!("program.fallback.{i}"),
                format!("If step {n} is refused by then"),
                Input::One { options: fallback_options.clone(), blank: None, required: false },
            )
            .value(fallback)
            .wrap("program-fallback");
            Group::new(Frame::Item, vec![step.into(), fallback.into()]).class("program-step").into()
        })
        .collect();
    let now = match &stored {
        Some(steps) => Note::small(format!(
            "Your program now: {}. Only you see it; you may replace it until every clan has chosen.",
            program_words(steps, view, mine)
        ))
        .id("program-now"),
        None => Note::small("No program yet: without one, your turn is asked when it comes.").id("program-now"),
    };
    Group::new(
        Frame::Fieldset { legend: "Program your turn (optional): it plays the moment your turn comes".into() },
        vec![
            Note::small(
                "Give the card actions of your turn in order. Other clans move first, so a step may be refused \
                 when your turn comes: choose what to do then. After the last step the turn ends. Leave every \
                 step at (no step) to play your turn yourself when it comes.",
            )
            .into(),
            now.into(),
            Group::new(Frame::List, items).class("program-steps").id("program-steps").into(),
        ],
    )
    .class("program")
    .into()
}

/// One unit's group of the composer: its actions as buttons, its moves
/// (or the exchanges) as a list.
struct UnitGroup {
    key: &'static str,
    name: &'static str,
    buttons: Vec<Submit>,
    list: Vec<Choice>,
    /// Families of many commands (trades, casts, attacks, sails): a list each.
    lists: Vec<(&'static str, Vec<Choice>)>,
}

/// The list a family of many commands is offered in: its id and words.
fn list_of(kind: &str) -> Option<(&'static str, &'static str)> {
    match kind {
        "Trade" => Some(("trade", "Trade or refill:")),
        "Cast" => Some(("cast", "Cast a rune:")),
        "Attack" => Some(("attack", "Attack:")),
        "Sail" => Some(("sail", "Sail:")),
        "Rearrange" => Some(("rearrange", "Rearrange disks:")),
        _ => None,
    }
}

/// The turn composer: the seat's cards, end turn, the legal card actions
/// grouped by unit, and the bot's whole turn.
fn turn_form(
    legal: &[Value],
    labels: &[String],
    view: &View,
    mine: &PlayerView,
    me: u8,
    entered: &BTreeMap<String, String>,
) -> Option<Part> {
    let mut groups: Vec<UnitGroup> = CARDS
        .iter()
        .map(|(k, n)| (*k, *n))
        .chain(std::iter::once(("other", "Other")))
        .map(|(key, name)| UnitGroup { key, name, buttons: Vec::new(), list: Vec::new(), lists: Vec::new() })
        .collect();
    let mut suggestion = None;
    let mut end_turn = None;
    let mut any_step = false;
    for (i, c) in legal.iter().enumerate() {
        let label = labels.get(i).cloned().unwrap_or_else(|| c["type"].as_str().unwrap_or("command").to_owned());
        match c["type"].as_str().unwrap_or_default() {
            // The plan and its turn program are the plan form's.
            "Plan" | "SetOrders" | "Program" => {}
            "PlayTurn" => {
                // The bot's turn would also set the bot's standing orders:
                // the player's own orders stay.
                let mut turn = c.clone();
                if let Some(steps) = turn["steps"].as_array_mut() {
                    steps.retain(|s| s["type"] != "SetOrders");
                }
                suggestion = Some((turn.to_string(), turn_words(&turn, view, me as usize)));
            }
            "EndTurn" => end_turn = Some(c.to_string()),
            "Move" | "Exchange" => {
                any_step = true;
                let words = if c["type"] == "Move" {
                    match label.split_once(" · ") {
                        Some((_, cost)) => format!("{} · {cost}", area_name(view, &c["to"])),
                        None => area_name(view, &c["to"]),
                    }
                } else {
                    let d = &c["discard"];
                    let name = |v: &Value| card_name(v.as_str().unwrap_or_default()).to_owned();
                    format!("{} and {} for {}", name(&d[0]), name(&d[1]), name(&c["take"]))
                };
                groups[group_of(c)].list.push(Choice::new(c.to_string(), words));
            }
            kind => {
                any_step = true;
                // The words that tell it apart before its cost.
                let label = match (detail(c, view), label.split_once(" · ")) {
                    (Some(d), Some((what, cost))) => format!("{what} ({d}) · {cost}"),
                    (Some(d), None) => format!("{label} ({d})"),
                    (None, _) => label,
                };
                let group = &mut groups[group_of(c)];
                match list_of(kind) {
                    Some((id, _)) => match group.lists.iter_mut().find(|(k, _)| *k == id) {
                        Some((_, l)) => l.push(Choice::new(c.to_string(), label)),
                        None => group.lists.push((id, vec![Choice::new(c.to_string(), label)])),
                    },
                    None => group.buttons.push(Submit::new(label).command(c.to_string()).class("cmd")),
                }
            }
        }
    }
    if !any_step && suggestion.is_none() {
        return None;
    }
    let mut composer: Vec<Part> = Vec::new();
    let end = match end_turn {
        Some(json) => Submit::new("End turn").command(json).class("primary big").id("end-turn"),
        // Not yet legal: shown, with why, so the player knows where it is.
        None => Submit::new("End turn").class("big").id("end-turn").disabled("Lay down at least one card first."),
    };
    // Ending the turn gives up the cards still in hand: say so beside it.
    let left: u8 = mine.hand.as_ref().map_or(0, |h| CARDS.iter().map(|(k, _)| count_in(h, k)).sum());
    let mut end_parts: Vec<Part> = vec![end.into()];
    if left > 0 && mine.hand.is_some() {
        let hand = mine.hand.as_ref().map(hand_of).unwrap_or_default();
        end_parts.push(
            Note::small(format!(
                "You still hold {left} card{} ({hand}): ending the turn now leaves {} unplayed this round.",
                if left == 1 { "" } else { "s" },
                if left == 1 { "it" } else { "them" }
            ))
            .id("end-turn-left")
            .class("warn")
            .into(),
        );
    }
    composer.push(Form::new(end_parts).class("end-turn").into());
    let chosen_cmd = entered.get("cmd").cloned().unwrap_or_default();
    // A unit with nothing to do now is still listed, its action disabled
    // with the reason: every unit action lays down a card of the unit.
    for (i, g) in groups.iter_mut().enumerate().take(CARDS.len()) {
        if !g.buttons.is_empty() || !g.list.is_empty() || !g.lists.is_empty() {
            continue;
        }
        let left = mine.hand.as_ref().map_or(0, |h| count_in(h, CARDS[i].0));
        let why = if left == 0 && mine.played.arr()[i] > 0 {
            format!("Your {} cards of this round are played.", g.name)
        } else if left == 0 {
            format!("You chose no {} card this round.", g.name)
        } else {
            format!("None of the {}'s actions is possible where it is now.", g.name)
        };
        g.buttons
            .push(Submit::new(format!("{} actions", g.name)).class("cmd").id(format!("no-{}", g.key)).disabled(why));
    }
    for g in groups.into_iter().filter(|g| !g.buttons.is_empty() || !g.list.is_empty() || !g.lists.is_empty()) {
        let mut inside: Vec<Part> = Vec::new();
        if !g.buttons.is_empty() {
            inside.push(Form::new(g.buttons.into_iter().map(Part::from).collect()).class("unit-actions").into());
        }
        for (id, options) in g.lists {
            let words = ["Trade", "Cast", "Attack", "Sail", "Rearrange"]
                .into_iter()
                .find_map(|k| list_of(k).filter(|(i, _)| *i == id).map(|(_, w)| w))
                .unwrap_or("Choose:");
            let button = words.trim_end_matches(':').split(' ').next().unwrap_or("Do it").to_owned();
            let field = Field::new(id, "cmd", words, Input::One { options, blank: None, required: false })
                .value(chosen_cmd.clone());
            let submit = Submit::new(button).id(format!("{id}-submit"));
            inside.push(Form::new(vec![field.into(), submit.into()]).class("unit-list").into());
        }
        if !g.list.is_empty() {
            let (id, class, label, button, blank) = if g.key == "other" {
                (
                    "exchange".to_owned(),
                    "exchange",
                    "Discard two cards for one:".to_owned(),
                    "Exchange",
                    Some("(choose the two cards and the one to take)".to_owned()),
                )
            } else {
                (format!("move-{}", g.key), "unit-move", format!("Move the {} to", g.name), "Move", None)
            };
            let required = blank.is_some();
            let field = Field::new(&id, "cmd", label, Input::One { options: g.list, blank, required })
                .value(chosen_cmd.clone());
            let submit = Submit::new(button).id(format!("{id}-submit"));
            inside.push(Form::new(vec![field.into(), submit.into()]).class(class).into());
        }
        composer.push(
            Group::new(Frame::Fieldset { legend: g.name.to_owned() }, inside)
                .class("unit-group")
                .id(format!("group-{}", g.key))
                .into(),
        );
    }
    if let Some((json, words)) = suggestion {
        let bot = Submit::new(format!("Let the bot play this turn: {words}")).command(json).id("bot-turn");
        composer.push(Form::new(vec![bot.into()]).class("bot-turn").into());
    }
    let hand = mine.hand.as_ref().map_or_else(|| "hidden".to_owned(), hand_of);
    let cards = Group::new(
        Frame::Aside { heading: "Your cards".into() },
        vec![
            Note::new(hand).lead("In hand:", "cards-hand").into(),
            Note::new(hand_of(&mine.played)).lead("Played this turn:", "cards-played").into(),
        ],
    )
    .class("my-cards")
    .id("my-cards");
    Some(
        Group::new(
            Frame::Box,
            vec![cards.into(), Group::new(Frame::Box, composer).class("composer").id("composer").into()],
        )
        .class("turn-layout")
        .into(),
    )
}

/// A build wish as the option of a list: its JSON and its words.
fn wish_option(building: Building, effect: Effect, replace: Option<Effect>, market: &[TileView]) -> Choice {
    let (b, e) = (name_of(&building), name_of(&effect));
    let tile = market.iter().find(|t| t.building == building && t.effect == effect);
    let mut words = match tile {
        Some(t) => format!("{} · {} level {}: {}", t.name, building_name(&b), t.level, effect_words(&e)),
        None => format!("{}: {} (not in the market now)", building_name(&b), effect_words(&e)),
    };
    if let Some(r) = replace {
        words = format!("{words}, replacing {}", effect_words(&name_of(&r)));
    }
    // A short value ("virki/mead_hall", "+/gold_two" for a replaced
    // effect): a page lists dozens of wishes with every choice each.
    let value = match replace {
        Some(r) => format!("{b}/{e}/{}", name_of(&r)),
        None => format!("{b}/{e}"),
    };
    Choice::new(value, words)
}

/// A wish posted by [`wish_option`]'s value (or as JSON, as older pages
/// posted it) as the command's JSON.
fn wish_of(raw: &str) -> Option<Value> {
    if raw.trim_start().starts_with('{') {
        return serde_json::from_str(raw).ok();
    }
    let parts: Vec<&str> = raw.trim().split('/').collect();
    let mut w = Map::new();
    match parts.as_slice() {
        [b, e] | [b, e, _] if !b.is_empty() && !e.is_empty() => {
            w.insert("building".into(), json!(b));
            w.insert("effect".into(), json!(e));
        }
        _ => return None,
    }
    if let [_, _, r] = parts.as_slice() {
        w.insert("replace".into(), json!(r));
    }
    Some(Value::Object(w))
}

/// The standing orders form: the seat's current orders (or what a refused
/// submission posted) as initial values, the market as the wishes' choices.
fn orders_form(view: &View, mine: &PlayerView, entered: Option<&BTreeMap<String, String>>) -> Part {
    let default = Orders::default();
    let cur = mine.orders.as_ref().unwrap_or(&default);
    let market = &view.market;
    let get = |k: &str, current: String| match entered {
        Some(e) => e.get(&format!("orders.{k}")).cloned().unwrap_or_default(),
        None => current,
    };
    let current_wishes = &cur.build;
    let mut options: Vec<Choice> = Vec::new();
    let offered = market.iter().map(|t| (t.building, t.effect, None));
    for (b, e, r) in offered.chain(current_wishes.iter().map(|w| (w.building, w.effect, w.replace))) {
        let o = wish_option(b, e, r, market);
        if !options.iter().any(|x| x.value == o.value) {
            options.push(o);
        }
    }
    let one = |options: Vec<Choice>, blank: Option<&str>| Input::One {
        options,
        blank: blank.map(str::to_owned),
        required: false,
    };
    let goods = |k: &str, other: &str, label: &str| -> Part {
        let options = vec![
            Choice::new("auto", format!("{other} or meat, whichever I hold less of")),
            Choice::new("other", other),
            Choice::new("meat", "meat"),
        ];
        Field::new(format!("orders-{k}"), format!("orders.{k}"), label, one(options, None))
            .value(get(k, name_of(if k == "sheep" { &cur.sheep } else { &cur.cattle })))
            .wrap("field")
            .into()
    };
    let buildings: Vec<Choice> = BUILDINGS.iter().map(|(k, n)| Choice::new(*k, *n)).collect();
    let recruits: Vec<Part> = (0..3)
        .map(|i| {
            let current = cur.recruits.get(i).map(name_of).unwrap_or_default();
            let blank = if i == 0 { "the emptiest first" } else { "(then the emptiest)" };
            Field::new(
                format!("orders-recruits-{i}"),
                format!("orders.recruits.{i}"),
                format!("{}.", i + 1),
                one(buildings.clone(), Some(blank)),
            )
            .value(get(&format!("recruits.{i}"), current))
            .into()
        })
        .collect();
    let (mode, areas) = match &cur.axes {
        AxeOrder::Auto => ("auto", String::new()),
        AxeOrder::Keep => ("keep", String::new()),
        AxeOrder::Areas(a) => ("areas", a.iter().map(|x| area_name(view, &json!(x))).collect::<Vec<_>>().join(", ")),
    };
    let axes_mode = get("axes_mode", mode.to_owned());
    let axes_areas = get("axes_areas", areas);
    let buy_axes = match entered {
        Some(e) => e.contains_key("orders.buy_axes"),
        None => cur.buy_axes,
    };
    // The wishes already ordered are listed in words, each kept while its
    // box stays ticked (their values travel as hidden fields); new wishes
    // are chosen from the market in a few spare rows. A list of every
    // choice for every wish made pages of hundreds of kilobytes.
    let listed = current_wishes.len();
    let mut kept: Vec<(String, String)> = Vec::new();
    let mut wishes: Vec<Part> = current_wishes
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let o = wish_option(w.building, w.effect, w.replace, market);
            kept.push((format!("orders.build.{i}"), o.value.clone()));
            kept.push((format!("orders.listed.{i}"), "1".to_owned()));
            let checked = entered.is_none_or(|e| e.contains_key(&format!("orders.keep.{i}")));
            let field = Field::new(
                format!("orders-keep-{i}"),
                format!("orders.keep.{i}"),
                format!("{} (untick to drop it)", o.label),
                Input::Checkbox { checked },
            );
            Group::new(Frame::Item, vec![field.into()]).into()
        })
        .collect();
    let spare = SPARE_WISHES.max(MIN_WISHES.saturating_sub(listed));
    wishes.extend((listed..listed + spare).map(|i| {
        let field = Field::new(
            format!("orders-build-{i}"),
            format!("orders.build.{i}"),
            format!("Wish {}", i + 1),
            one(options.clone(), Some("(nothing)")),
        )
        .value(get(&format!("build.{i}"), String::new()))
        .label_hidden();
        Group::new(Frame::Item, vec![field.into()]).into()
    }));
    let fieldset = |legend: &str, parts: Vec<Part>| -> Part {
        Group::new(Frame::Fieldset { legend: legend.to_owned() }, parts).into()
    };
    let axes_modes = vec![
        Choice::new("auto", "by themselves: villages, gold mines, borders"),
        Choice::new("keep", "keep them for later"),
        Choice::new("areas", "on the areas below, in order"),
    ];
    let form = Form::new(vec![
        Part::Refusal { build: ORDERS.into() },
        Note::small("These stand until you change them; every round follows them without asking you.").into(),
        fieldset(
            "Goods from sheep and cattle areas",
            vec![goods("sheep", "wool", "Sheep give"), goods("cattle", "hide", "Cattle give")],
        ),
        fieldset("Recruits fill these buildings first", recruits),
        fieldset(
            "Axes",
            vec![
                Field::new(
                    "orders-buy-axes",
                    "orders.buy_axes",
                    "Buy one axe per Barbarian camp I own (1 gold)",
                    Input::Checkbox { checked: buy_axes },
                )
                .into(),
                Field::new("orders-axes-mode", "orders.axes_mode", "Place axes", one(axes_modes, None))
                    .value(axes_mode)
                    .wrap("field")
                    .into(),
                Field::new(
                    "orders-axes-areas",
                    "orders.axes_areas",
                    "Areas for axes (names, in order, separated by commas)",
                    Input::Text { max_len: 500 },
                )
                .value(axes_areas)
                .wrap("field")
                .into(),
            ],
        ),
        fieldset(
            "Build order: upgrades wanted, best first",
            vec![
                Note::small("The first one you can build is built. The choices are the tiles in the market now.")
                    .into(),
                Group::new(Frame::List, wishes).class("wishes").into(),
            ],
        ),
        Submit::new("Save standing orders").id("orders-submit").into(),
    ])
    .id("orders-form")
    .build(ORDERS);
    let form = kept.into_iter().fold(form, |f, (k, v)| f.hidden(k, v));
    Group::new(
        Frame::Folded {
            summary: "Standing orders: how the Claim and Build phases go for you".into(),
            open: entered.is_some(),
        },
        vec![form.into()],
    )
    .class("orders")
    .id("orders")
    .into()
}

/// The `Plan` command of the plan picker, or `Program` when steps were
/// chosen. The total and the steps are the rules' to judge.
pub fn plan_command(form: &Posted) -> Result<Value, String> {
    let mut hand = Map::new();
    for (k, name) in CARDS {
        let raw = form.get(&format!("hand.{k}")).unwrap_or_default().trim();
        let n: u8 = if raw.is_empty() {
            0
        } else {
            raw.parse().map_err(|_| format!("{name}: give a whole number of cards from 0 to 6, not {raw:?}"))?
        };
        hand.insert(k.into(), json!(n));
    }
    let mut rows: Vec<(usize, &str)> = form
        .pairs()
        .filter_map(|(k, v)| k.strip_prefix("program.step.").and_then(|i| i.parse().ok()).map(|i| (i, v)))
        .collect();
    rows.sort_by_key(|(i, _)| *i);
    let mut steps = Vec::new();
    for (i, raw) in rows {
        if raw.trim().is_empty() {
            continue;
        }
        let n = i + 1;
        let again = || format!("step {n}: that is not a step of this form; reload the page and choose again");
        let step: Value = serde_json::from_str(raw).ok().filter(|v: &Value| v["type"].is_string()).ok_or_else(again)?;
        let fallback = match form.get(&format!("program.fallback.{i}")).unwrap_or("ask").trim() {
            "ask" | "" => json!({"type": "Ask"}),
            "skip" => json!({"type": "Skip"}),
            "end" => json!({"type": "EndTurn"}),
            "bot" => json!({"type": "Bot"}),
            other => {
                let alt: Value = serde_json::from_str(other).ok().filter(|v: &Value| v["type"].is_string()).ok_or_else(
                    || format!("if step {n} is refused: that is not a choice of this form; reload the page and choose again"),
                )?;
                json!({"type": "Try", "step": alt})
            }
        };
        steps.push(json!({"step": step, "fallback": fallback}));
    }
    if steps.is_empty() {
        return Ok(json!({"type": "Plan", "hand": hand}));
    }
    Ok(json!({"type": "Program", "hand": hand, "steps": steps}))
}

/// The `SetOrders` command of the standing orders form; area names are
/// read against the view's board.
pub fn orders_command(form: &Posted, view: &View) -> Result<Value, String> {
    let choice = |k: &str, other: &str| -> Result<Value, String> {
        match form.get(&format!("orders.{k}")).unwrap_or("auto") {
            v @ ("auto" | "other" | "meat") => Ok(json!(v)),
            v => Err(format!("{k}: choose auto, {other} or meat, not {v:?}")),
        }
    };
    let mut recruits: Vec<String> = Vec::new();
    for i in 0..3 {
        let v = form.get(&format!("orders.recruits.{i}")).unwrap_or_default().trim();
        if v.is_empty() {
            continue;
        }
        if !BUILDINGS.iter().any(|(k, _)| *k == v) {
            return Err(format!("recruits: {v:?} is not a building"));
        }
        if recruits.iter().any(|r| r == v) {
            return Err(format!("recruits: {} is listed twice; list each building at most once", building_name(v)));
        }
        recruits.push(v.to_owned());
    }
    let axes = match form.get("orders.axes_mode").unwrap_or("auto") {
        "auto" => json!({"mode": "auto"}),
        "keep" => json!({"mode": "keep"}),
        "areas" => {
            let names = &view.board.areas;
            let mut ids = Vec::new();
            for part in form.get("orders.axes_areas").unwrap_or_default().split(',') {
                let p = part.trim();
                if p.is_empty() {
                    continue;
                }
                let id = match p.parse::<u64>() {
                    Ok(n) => n,
                    Err(_) => names
                        .iter()
                        .position(|a| a.name.eq_ignore_ascii_case(p))
                        .map(|i| i as u64)
                        .ok_or_else(|| format!("axes: there is no area called {p:?} on this board"))?,
                };
                ids.push(id);
            }
            if ids.is_empty() {
                return Err("axes: name the areas to place axes on, in order, separated by commas".into());
            }
            json!({"mode": "areas", "areas": ids})
        }
        v => return Err(format!("axes: {v:?} is not a way to place axes")),
    };
    let mut build: Vec<Value> = Vec::new();
    let mut wishes: Vec<(usize, &str)> = form
        .pairs()
        .filter_map(|(k, v)| k.strip_prefix("orders.build.").and_then(|i| i.parse().ok()).map(|i| (i, v)))
        .collect();
    wishes.sort_by_key(|(i, _)| *i);
    for (i, raw) in wishes {
        let dropped =
            form.get(&format!("orders.listed.{i}")).is_some() && form.get(&format!("orders.keep.{i}")).is_none();
        if raw.trim().is_empty() || dropped {
            continue;
        }
        let w = wish_of(raw).ok_or_else(|| format!("wish {}: reload the page and choose again", i + 1))?;
        if !build.contains(&w) {
            build.push(w);
        }
    }
    Ok(json!({
        "type": "SetOrders",
        "orders": {
            "sheep": choice("sheep", "wool")?,
            "cattle": choice("cattle", "hide")?,
            "recruits": recruits,
            "buy_axes": form.get("orders.buy_axes").is_some(),
            "axes": axes,
            "build": build,
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(pairs: &[(&str, &str)]) -> Posted {
        Posted::from(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>())
    }

    #[test]
    fn the_plan_picker_posts_a_hand() {
        let c = plan_command(&form(&[("hand.berserkur", "2"), ("hand.godi", " 1 "), ("hand.knerrir", "3")])).unwrap();
        assert_eq!(c, json!({"type": "Plan", "hand": {"berserkur": 2, "godi": 1, "kaupmadur": 0, "knerrir": 3}}));
        assert!(plan_command(&form(&[("hand.godi", "two")])).unwrap_err().contains("Godi"));
    }

    #[test]
    fn the_plan_form_posts_a_program_with_each_steps_fallback() {
        let mv = r#"{"type":"Move","unit":"godi","to":3}"#;
        let attack = r#"{"type":"Attack","claim":true,"reinforce":0}"#;
        let c = plan_command(&form(&[
            ("hand.godi", "6"),
            ("program.step.1", attack),
            ("program.fallback.1", mv),
            ("program.step.0", mv),
            ("program.fallback.0", "skip"),
            ("program.step.2", ""),
            ("program.fallback.2", "bot"),
            ("program.step.3", "{\"type\":\"EndTurn\"}"),
            ("program.fallback.3", "bot"),
        ]))
        .unwrap();
        assert_eq!(
            c["steps"],
            json!([
                {"step": {"type": "Move", "unit": "godi", "to": 3}, "fallback": {"type": "Skip"}},
                {"step": {"type": "Attack", "claim": true, "reinforce": 0},
                 "fallback": {"type": "Try", "step": {"type": "Move", "unit": "godi", "to": 3}}},
                {"step": {"type": "EndTurn"}, "fallback": {"type": "Bot"}},
            ])
        );
        assert_eq!(c["type"], "Program");
        // No step chosen: a plain plan, the turn asked when it comes.
        let plain = plan_command(&form(&[("hand.godi", "6"), ("program.step.0", ""), ("program.fallback.0", "skip")]));
        assert_eq!(plain.unwrap()["type"], "Plan");
        let bad = plan_command(&form(&[("program.step.0", "Berserkur")])).unwrap_err();
        assert_eq!(bad, "step 1: that is not a step of this form; reload the page and choose again");
        let bad = plan_command(&form(&[("program.step.0", mv), ("program.fallback.0", "maybe")])).unwrap_err();
        assert!(bad.starts_with("if step 1 is refused: "), "{bad}");
    }

    #[test]
    fn the_plan_form_offers_the_units_moves_and_shows_the_owners_program() {
        let view = crate::tests::patched_view(json!({"phase": "planning", "players": [{"orders": {}}]}));
        let legal = [hand(2, 2, 2, 0)];
        let f = described(&legal, &[], &view, &BTreeMap::new());
        let step = by_id(&f, "program-step-0").expect("the program's first step");
        let options = step["input"]["options"].as_array().unwrap();
        assert!(options.iter().any(|o| o["label"].as_str().unwrap().starts_with("Berserkur moves to ")), "{options:?}");
        assert!(options.iter().any(|o| o["label"].as_str().unwrap().starts_with("Godi moves to ")), "{options:?}");
        assert!(options.iter().any(|o| o["label"] == "end the turn"));
        assert_eq!(step["value"], "", "no step until chosen");
        let fallback = by_id(&f, "program-fallback-0").unwrap();
        assert_eq!(fallback["value"], "skip");
        assert!(by_id(&f, "program-now").unwrap()["text"].as_str().unwrap().starts_with("No program yet"));
        // The owner's stored program fills the form and is told in words.
        let mv = view.players[0].units.godi;
        let Loc::Area(home) = mv else { panic!("the Godi starts at home") };
        let to = step["input"]["options"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["label"].as_str().unwrap().starts_with("Godi moves to "))
            .unwrap()["value"]
            .as_str()
            .unwrap()
            .to_owned();
        let to: Value = serde_json::from_str(&to).unwrap();
        let program = json!([{"step": to, "fallback": {"type": "Bot"}}]);
        let view = crate::tests::patched_view(json!({
            "phase": "planning", "players": [{"orders": {}, "planned": true, "program": program}],
        }));
        let f = described(&legal, &[], &view, &BTreeMap::new());
        let now = by_id(&f, "program-now").unwrap()["text"].as_str().unwrap().to_owned();
        assert!(now.starts_with("Your program now: 1. Godi to "), "{now}");
        assert!(now.contains("(if refused: the bot plays the rest)"), "{now}");
        assert_eq!(by_id(&f, "program-step-0").unwrap()["value"], to.to_string());
        assert_eq!(by_id(&f, "program-fallback-0").unwrap()["value"], "bot");
        assert_ne!(home, to["to"].as_u64().unwrap() as u8);
    }

    fn hand(b: u8, g: u8, k: u8, n: u8) -> Value {
        json!({"type": "Plan", "hand": {"berserkur": b, "godi": g, "kaupmadur": k, "knerrir": n}})
    }

    /// The first part (as the page gets it) with this id, anywhere.
    fn by_id<'a>(v: &'a Value, id: &str) -> Option<&'a Value> {
        match v {
            Value::Object(m) if m.get("id").is_some_and(|i| i == id) => Some(v),
            Value::Object(m) => m.values().find_map(|x| by_id(x, id)),
            Value::Array(a) => a.iter().find_map(|x| by_id(x, id)),
            _ => None,
        }
    }

    fn described(legal: &[Value], labels: &[String], view: &View, entered: &BTreeMap<String, String>) -> Value {
        serde_json::to_value(form_parts(legal, labels, view, 0, entered)).unwrap()
    }

    #[test]
    fn the_picker_takes_the_sizes_from_the_legal_plans_and_starts_from_the_bots() {
        let view = crate::tests::patched_view(json!({"players": [{"orders": {}}]}));
        let legal = [hand(1, 1, 2, 2), hand(6, 0, 0, 0), hand(4, 4, 0, 0)];
        let f = described(&legal, &[], &view, &BTreeMap::new());
        let sum = by_id(&f, "plan-count").unwrap();
        assert_eq!((sum["kind"].as_str(), sum["min"].as_i64(), sum["max"].as_i64()), (Some("sum"), Some(6), Some(8)));
        assert!(sum["words"].as_str().unwrap().contains("add up to 6 to 8"));
        assert_eq!(sum["fields"][3], "hand.knerrir");
        let knerrir = by_id(&f, "hand-knerrir").unwrap();
        assert_eq!(knerrir["value"], "2", "the bot's plan");
        assert_eq!(knerrir["input"], json!({"type": "number", "min": 0, "max": 6}));
        assert!(by_id(&f, "composer").is_none());
        let typed: BTreeMap<String, String> = [("build", "bardagi-plan"), ("hand.berserkur", "5")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let f = described(&legal, &[], &view, &typed);
        assert_eq!(by_id(&f, "hand-berserkur").unwrap()["value"], "5", "what was typed");
        assert_eq!(by_id(&f, "hand-godi").unwrap()["value"], "");
    }

    #[test]
    fn the_composer_groups_steps_by_unit_and_offers_the_bots_turn_without_its_orders() {
        let view = crate::tests::patched_view(json!({
            "board": {"area": [
                {"id": 0, "name": "Home", "kind": "home", "cells": [[0, 0]]},
                {"id": 1, "name": "Forest 7", "kind": "forest", "cells": [[1, 0]]},
            ]},
            "players": [{"orders": {}, "hand": {"godi": 1}, "played": {}, "units": {"berserkur": {"area": 0}}}],
        }));
        let bot = json!({"type": "PlayTurn", "steps": [
            {"type": "SetOrders", "orders": {}}, {"type": "Move", "unit": "berserkur", "to": 1},
            {"type": "Attack", "claim": true, "reinforce": 0},
        ]});
        let legal = [
            bot,
            json!({"type": "SetOrders", "orders": {}}),
            json!({"type": "Move", "unit": "berserkur", "to": 1}),
            json!({"type": "Convert"}),
            json!({"type": "Exchange", "discard": ["godi", "godi"], "take": "knerrir"}),
        ];
        let labels: Vec<String> =
            ["a whole turn", "set standing orders", "Berserkur moves to Forest 7", "Godi converts Home", "exchange"]
                .map(String::from)
                .to_vec();
        let f = described(&legal, &labels, &view, &BTreeMap::new());
        let bot = by_id(&f, "bot-turn").unwrap();
        assert_eq!(bot["label"], "Let the bot play this turn: Berserkur to Forest 7, Berserkur attacks Forest 7");
        assert!(!bot["command"].as_str().unwrap().contains("SetOrders"));
        assert!(by_id(&f, "end-turn").unwrap()["disabled"].is_string(), "no EndTurn among the legal commands yet");
        let groups: Vec<&str> = by_id(&f, "composer").unwrap()["parts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["id"].as_str())
            .collect();
        // The units with nothing to do now are listed too, disabled, with why.
        assert_eq!(groups, ["group-berserkur", "group-godi", "group-kaupmadur", "group-knerrir", "group-other"]);
        assert_eq!(by_id(&f, "no-kaupmadur").unwrap()["disabled"], "You chose no Kaupmadur card this round.");
        assert_eq!(by_id(&f, "move-berserkur").unwrap()["input"]["options"][0]["label"], "Forest 7");
        assert_eq!(by_id(&f, "group-godi").unwrap()["parts"][0]["parts"][0]["label"], "Godi converts Home");
        assert_eq!(by_id(&f, "exchange").unwrap()["input"]["options"][0]["label"], "Godi and Godi for Knerrir");
        assert_eq!(by_id(&f, "my-cards").unwrap()["parts"][0]["text"], "1 Godi");
    }

    #[test]
    fn the_orders_form_posts_standing_orders() {
        let view = crate::tests::patched_view(json!({"board": {"area": [
            {"id": 0, "name": "Home", "kind": "home", "cells": [[0, 0]]},
            {"id": 1, "name": "Forest 7", "kind": "forest", "cells": [[1, 0]]},
        ]}}));
        let c = orders_command(
            &form(&[
                ("orders.sheep", "meat"),
                ("orders.cattle", "other"),
                ("orders.recruits.0", "hof"),
                ("orders.recruits.1", ""),
                ("orders.buy_axes", "on"),
                ("orders.axes_mode", "areas"),
                ("orders.axes_areas", "forest 7, 0"),
                ("orders.build.1", "{\"building\":\"hof\",\"effect\":\"gold_two\"}"),
                ("orders.build.0", "{\"building\":\"virki\",\"effect\":\"mead_hall\"}"),
            ]),
            &view,
        )
        .unwrap();
        assert_eq!(
            c["orders"],
            json!({
                "sheep": "meat", "cattle": "other", "recruits": ["hof"], "buy_axes": true,
                "axes": {"mode": "areas", "areas": [1, 0]},
                "build": [{"building": "virki", "effect": "mead_hall"}, {"building": "hof", "effect": "gold_two"}],
            })
        );
        // Wishes already ordered are kept while ticked; new ones come in
        // their short form; a replaced effect rides along.
        let c = orders_command(
            &form(&[
                ("orders.build.0", "virki/mead_hall"),
                ("orders.listed.0", "1"),
                ("orders.build.1", "hof/gold_two"),
                ("orders.listed.1", "1"),
                ("orders.keep.1", "on"),
                ("orders.build.2", "verslun/gold_three/gold_two"),
                ("orders.build.3", ""),
            ]),
            &view,
        )
        .unwrap();
        assert_eq!(
            c["orders"]["build"],
            json!([{"building": "hof", "effect": "gold_two"},
                   {"building": "verslun", "effect": "gold_three", "replace": "gold_two"}])
        );
        let bad = orders_command(&form(&[("orders.build.0", "virki")]), &view).unwrap_err();
        assert!(bad.contains("wish 1: reload the page"), "{bad}");
        let twice = orders_command(&form(&[("orders.recruits.0", "hof"), ("orders.recruits.1", "hof")]), &view);
        assert!(twice.unwrap_err().contains("listed twice"));
        let nowhere = orders_command(&form(&[("orders.axes_mode", "areas"), ("orders.axes_areas", "Atlantis")]), &view);
        assert!(nowhere.unwrap_err().contains("Atlantis"));
    }
}
