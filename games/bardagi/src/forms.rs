//! Bardagi's decision forms: the plan picker (four numbers), the turn
//! composer (the legal card actions grouped by unit) and the standing
//! orders, built from a seat's legal commands and view; and the commands
//! built back from what the plan and orders forms post. The rules judge
//! every command: these forms only put it together.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use runestone_engine::present::{Forms, FormsInput, Posted};

/// The `build` names of the plan picker and the standing orders forms.
pub const PLAN: &str = "bardagi-plan";
pub const ORDERS: &str = "bardagi-orders";

/// The page template of the forms (minijinja markup).
const TEMPLATE: &str = include_str!("forms.html");

/// The card types, as the `Hand` JSON names them, and in words.
const CARDS: [(&str, &str); 4] =
    [("berserkur", "Berserkur"), ("godi", "Godi"), ("kaupmadur", "Kaupmadur"), ("knerrir", "Knerrir")];

/// The unit buildings, as the `Building` JSON names them, and in words.
const BUILDINGS: [(&str, &str); 3] = [("virki", "Virki"), ("hof", "Hof"), ("verslun", "Verslun")];

/// Wish slots shown beyond the wishes already in the orders.
const SPARE_WISHES: usize = 2;
/// Wish slots shown at least.
const MIN_WISHES: usize = 3;

/// The name of area `a` on the view's board.
fn area_name(view: &Value, a: &Value) -> String {
    let Some(i) = a.as_u64() else { return "?".into() };
    view["board"]["area"][i as usize]["name"].as_str().map(str::to_owned).unwrap_or_else(|| format!("area {i}"))
}

fn card_name(key: &str) -> &str {
    CARDS.iter().find(|(k, _)| *k == key).map_or(key, |(_, n)| n)
}

fn building_name(key: &str) -> &str {
    BUILDINGS.iter().find(|(k, _)| *k == key).map_or(key, |(_, n)| n)
}

/// What an upgrade effect does, in a few words.
fn effect_words(effect: &str) -> &str {
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
        "Sail" => 3,
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
fn detail(c: &Value, view: &Value) -> Option<String> {
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
fn step_words(c: &Value, view: &Value, at: &mut [Value; 3]) -> String {
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
fn turn_words(turn: &Value, view: &Value, me: usize) -> String {
    let units = &view["players"][me]["units"];
    let mut at: [Value; 3] =
        [units["berserkur"]["area"].clone(), units["godi"]["area"].clone(), units["kaupmadur"]["area"].clone()];
    let steps: Vec<String> =
        turn["steps"].as_array().into_iter().flatten().map(|s| step_words(s, view, &mut at)).collect();
    if steps.is_empty() {
        "end the turn".into()
    } else {
        steps.join(", ")
    }
}

/// The forms of `me` for this position: `plan` (or null), `turn` (or
/// null) and `orders`, with what a failed form posted (`entered`) kept.
pub fn forms(input: &FormsInput<'_>) -> Option<Forms> {
    let data = forms_data(input.legal, input.labels, input.view, input.seat, input.entered);
    Some(Forms { template: TEMPLATE, data })
}

fn forms_data(legal: &[Value], labels: &[String], view: &Value, me: u8, entered: &BTreeMap<String, String>) -> Value {
    let mine = &view["players"][me as usize];
    let again = |form: &str| entered.get("build").is_some_and(|b| b == form);
    let plans: Vec<&Value> = legal.iter().filter(|c| c["type"] == "Plan").collect();
    // The bot's plan: the first legal command, or (in the easier variant,
    // where cards are chosen as the turn begins) its whole turn's first step.
    let bot_plan = legal.first().and_then(|c| match c["type"].as_str() {
        Some("Plan") => Some(c),
        Some("PlayTurn") => c["steps"].as_array().and_then(|s| s.first()).filter(|s| s["type"] == "Plan"),
        _ => None,
    });
    // A plan already chosen (and still replaceable): the picker starts from it.
    let chosen = Some(&mine["hand"]).filter(|h| mine["planned"] == true && h.is_object());
    let plan = bot_plan.or(plans.first().copied()).filter(|_| !plans.is_empty()).map(|suggested| {
        let sizes: Vec<u64> =
            plans.iter().map(|p| CARDS.iter().map(|(k, _)| p["hand"][*k].as_u64().unwrap_or(0)).sum()).collect();
        let min = sizes.iter().copied().min().unwrap_or(6);
        let max = sizes.iter().copied().max().unwrap_or(6);
        let cards: Vec<Value> = CARDS
            .iter()
            .map(|(k, name)| {
                let bot = suggested["hand"][*k].as_u64().unwrap_or(0).to_string();
                let value = if again(PLAN) {
                    entered.get(&format!("hand.{k}")).cloned().unwrap_or_default()
                } else if let Some(h) = chosen {
                    h[*k].as_u64().unwrap_or(0).to_string()
                } else {
                    bot.clone()
                };
                json!({"key": k, "name": name, "value": value, "bot": bot})
            })
            .collect();
        json!({
            "min": min,
            "max": max,
            "size": if min == max { min.to_string() } else { format!("{min} to {max}") },
            "cards": cards,
            "bot_words": hand_words(&suggested["hand"]),
            "chosen_words": chosen.map(hand_words),
        })
    });

    let mut groups: Vec<Value> = CARDS
        .iter()
        .map(|(k, n)| {
            json!({"key": k, "name": n, "buttons": [], "list": {
                "id": format!("move-{k}"), "class": "unit-move", "label": format!("Move the {n} to"),
                "button": "Move", "options": [],
            }})
        })
        .chain(std::iter::once(json!({"key": "other", "name": "Other", "buttons": [], "list": {
            "id": "exchange", "class": "exchange", "label": "Discard two cards for one:",
            "button": "Exchange", "options": [], "placeholder": "(choose the two cards and the one to take)",
        }})))
        .collect();
    let mut suggestion = Value::Null;
    let mut end_turn = Value::Null;
    let mut any_step = false;
    for (i, c) in legal.iter().enumerate() {
        let label = labels.get(i).cloned().unwrap_or_else(|| c["type"].as_str().unwrap_or("command").to_owned());
        match c["type"].as_str().unwrap_or_default() {
            "Plan" | "SetOrders" => {}
            "PlayTurn" => {
                // The bot's turn would also set the bot's standing orders:
                // the player's own orders stay.
                let mut turn = c.clone();
                if let Some(steps) = turn["steps"].as_array_mut() {
                    steps.retain(|s| s["type"] != "SetOrders");
                }
                suggestion = json!({"json": turn.to_string(), "words": turn_words(&turn, view, me as usize)});
            }
            "EndTurn" => end_turn = json!({"json": c.to_string(), "label": "End turn"}),
            "Move" | "Exchange" => {
                any_step = true;
                let g = group_of(c);
                let words = if c["type"] == "Move" {
                    area_name(view, &c["to"])
                } else {
                    let d = &c["discard"];
                    let name = |v: &Value| card_name(v.as_str().unwrap_or_default()).to_owned();
                    format!("{} and {} for {}", name(&d[0]), name(&d[1]), name(&c["take"]))
                };
                if let Some(list) = groups[g]["list"]["options"].as_array_mut() {
                    list.push(json!({"json": c.to_string(), "label": words}));
                }
            }
            _ => {
                any_step = true;
                let g = group_of(c);
                let label = match detail(c, view) {
                    Some(d) => format!("{label} ({d})"),
                    None => label,
                };
                if let Some(b) = groups[g]["buttons"].as_array_mut() {
                    b.push(json!({"json": c.to_string(), "label": label}));
                }
            }
        }
    }
    for g in groups.iter_mut() {
        if g["list"]["options"].as_array().is_some_and(Vec::is_empty) {
            g["list"] = Value::Null;
        }
    }
    groups.retain(|g| !g["list"].is_null() || g["buttons"].as_array().is_some_and(|b| !b.is_empty()));
    if end_turn.is_null() {
        // Not yet legal: shown, with why, so the player knows where it is.
        end_turn = json!({"disabled": true});
    }
    let turn = (any_step || !suggestion.is_null()).then(|| {
        json!({
            "groups": groups,
            "suggestion": suggestion,
            "end_turn": end_turn,
            "hand": mine["hand"].as_object().map(|_| hand_words(&mine["hand"])),
            "played": hand_words(&mine["played"]),
        })
    });

    json!({
        "plan": plan,
        "turn": turn,
        "orders": orders_form(view, mine, if again(ORDERS) { Some(entered) } else { None }),
    })
}

/// A build wish as the option of a list: its JSON and its words.
fn wish_option(w: &Value, market: &[Value]) -> Value {
    let b = w["building"].as_str().unwrap_or_default();
    let e = w["effect"].as_str().unwrap_or_default();
    let tile = market.iter().find(|t| t["building"] == b && t["effect"] == e);
    let mut words = match tile {
        Some(t) => format!(
            "{} · {} level {}: {}",
            t["name"].as_str().unwrap_or_default(),
            building_name(b),
            t["level"],
            effect_words(e)
        ),
        None => format!("{}: {} (not in the market now)", building_name(b), effect_words(e)),
    };
    if let Some(r) = w["replace"].as_str() {
        words = format!("{words}, replacing {}", effect_words(r));
    }
    let mut clean = Map::new();
    clean.insert("building".into(), json!(b));
    clean.insert("effect".into(), json!(e));
    if w["replace"].is_string() {
        clean.insert("replace".into(), w["replace"].clone());
    }
    json!({"json": Value::Object(clean).to_string(), "label": words})
}

/// The standing orders form: the seat's current orders (or what a failed
/// submission posted) as initial values, the market as the wishes' choices.
fn orders_form(view: &Value, mine: &Value, entered: Option<&BTreeMap<String, String>>) -> Value {
    let cur = &mine["orders"];
    let market: Vec<Value> = view["market"].as_array().cloned().unwrap_or_default();
    let get = |k: &str, current: String| match entered {
        Some(e) => e.get(&format!("orders.{k}")).cloned().unwrap_or_default(),
        None => current,
    };
    let current_wishes: Vec<Value> = cur["build"].as_array().cloned().unwrap_or_default();
    let mut options: Vec<Value> = Vec::new();
    for w in market.iter().chain(current_wishes.iter()) {
        let o =
            wish_option(&json!({"building": w["building"], "effect": w["effect"], "replace": w["replace"]}), &market);
        if !options.iter().any(|x| x["json"] == o["json"]) {
            options.push(o);
        }
    }
    let slots = (current_wishes.len() + SPARE_WISHES).max(MIN_WISHES);
    let wishes: Vec<Value> = (0..slots)
        .map(|i| {
            let current = current_wishes.get(i).map(|w| wish_option(w, &market)["json"].clone());
            let chosen =
                get(&format!("build.{i}"), current.and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default());
            json!({"i": i, "n": i + 1, "chosen": chosen})
        })
        .collect();
    let recruits: Vec<Value> = (0..3)
        .map(|i| {
            let current = cur["recruits"][i].as_str().unwrap_or_default().to_owned();
            json!({"i": i, "n": i + 1, "chosen": get(&format!("recruits.{i}"), current)})
        })
        .collect();
    let axes_mode = get("axes_mode", cur["axes"]["mode"].as_str().unwrap_or("auto").to_owned());
    let axes_areas = get(
        "axes_areas",
        cur["axes"]["areas"]
            .as_array()
            .map(|a| a.iter().map(|x| area_name(view, x)).collect::<Vec<_>>().join(", "))
            .unwrap_or_default(),
    );
    let buy_axes = match entered {
        Some(e) => e.contains_key("orders.buy_axes"),
        None => cur["buy_axes"] == true,
    };
    json!({
        "known": cur.is_object(),
        "sheep": get("sheep", cur["sheep"].as_str().unwrap_or("auto").to_owned()),
        "cattle": get("cattle", cur["cattle"].as_str().unwrap_or("auto").to_owned()),
        "recruits": recruits,
        "buildings": BUILDINGS.iter().map(|(k, n)| json!({"key": k, "name": n})).collect::<Vec<_>>(),
        "buy_axes": buy_axes,
        "axes_mode": axes_mode,
        "axes_areas": axes_areas,
        "wishes": wishes,
        "options": options,
    })
}

/// The `Plan` command of the plan picker. The total is the rules' to judge.
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
    Ok(json!({"type": "Plan", "hand": hand}))
}

/// The `SetOrders` command of the standing orders form; area names are
/// read against the view's board.
pub fn orders_command(form: &Posted, view: &Value) -> Result<Value, String> {
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
            let names = view["board"]["area"].as_array().cloned().unwrap_or_default();
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
                        .position(|a| a["name"].as_str().is_some_and(|n| n.eq_ignore_ascii_case(p)))
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
        if raw.trim().is_empty() {
            continue;
        }
        let w: Value =
            serde_json::from_str(raw).map_err(|_| format!("wish {}: reload the page and choose again", i + 1))?;
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

    fn hand(b: u8, g: u8, k: u8, n: u8) -> Value {
        json!({"type": "Plan", "hand": {"berserkur": b, "godi": g, "kaupmadur": k, "knerrir": n}})
    }

    #[test]
    fn the_picker_takes_the_sizes_from_the_legal_plans_and_starts_from_the_bots() {
        let view = json!({"players": [{"orders": {}}]});
        let legal = [hand(1, 1, 2, 2), hand(6, 0, 0, 0), hand(4, 4, 0, 0)];
        let f = forms_data(&legal, &[], &view, 0, &BTreeMap::new());
        assert_eq!(f["plan"]["size"], "6 to 8");
        assert_eq!(f["plan"]["cards"][3]["value"], "2", "the bot's plan");
        assert!(f["turn"].is_null());
        let typed: BTreeMap<String, String> = [("build", "bardagi-plan"), ("hand.berserkur", "5")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let f = forms_data(&legal, &[], &view, 0, &typed);
        assert_eq!(f["plan"]["cards"][0]["value"], "5", "what was typed");
        assert_eq!(f["plan"]["cards"][1]["value"], "");
    }

    #[test]
    fn the_composer_groups_steps_by_unit_and_offers_the_bots_turn_without_its_orders() {
        let view = json!({
            "board": {"area": [{"name": "Home"}, {"name": "Forest 7"}]},
            "players": [{"orders": {}, "hand": {"godi": 1}, "played": {}, "units": {"berserkur": {"area": 0}}}],
        });
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
        let f = forms_data(&legal, &labels, &view, 0, &BTreeMap::new());
        let t = &f["turn"];
        assert_eq!(t["suggestion"]["words"], "Berserkur to Forest 7, Berserkur attacks Forest 7");
        assert!(!t["suggestion"]["json"].as_str().unwrap().contains("SetOrders"));
        assert_eq!(t["end_turn"]["disabled"], true, "no EndTurn among the legal commands yet");
        let keys: Vec<&str> = t["groups"].as_array().unwrap().iter().map(|g| g["key"].as_str().unwrap()).collect();
        assert_eq!(keys, ["berserkur", "godi", "other"]);
        assert_eq!(t["groups"][0]["list"]["options"][0]["label"], "Forest 7");
        assert_eq!(t["groups"][1]["buttons"][0]["label"], "Godi converts Home");
        assert_eq!(t["groups"][2]["list"]["options"][0]["label"], "Godi and Godi for Knerrir");
        assert_eq!(t["hand"], "1 Godi");
    }

    #[test]
    fn the_orders_form_posts_standing_orders() {
        let view = json!({"board": {"area": [{"name": "Home"}, {"name": "Forest 7"}]}});
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
        let twice = orders_command(&form(&[("orders.recruits.0", "hof"), ("orders.recruits.1", "hof")]), &view);
        assert!(twice.unwrap_err().contains("listed twice"));
        let nowhere = orders_command(&form(&[("orders.axes_mode", "areas"), ("orders.axes_areas", "Atlantis")]), &view);
        assert!(nowhere.unwrap_err().contains("Atlantis"));
    }
}
