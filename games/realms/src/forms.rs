//! The season's order form: one form per round for everything a realm
//! orders (moves, battle standing orders, looting, the year's step of the
//! season, rear trade, special moves, retreats, herds, constructions to
//! speed up), prefilled with the realm's orders already given or else the
//! suggested ones, every field labelled in words with its limits; and the
//! ready-made orders as buttons. [`orders_command`] turns what the form
//! posts back into the `orders` command; the rules judge it.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use runestone_engine::present::{
    Choice, Field, Form, Forms, FormsInput, Frame, Group, Input, Note, Part, Posted, Submit,
};

use crate::drawing::{field_label, holder, units_words};
use crate::state::{
    Build, Building, Carry, Command, Good, Herd, HerdMove, Move, Orders, Purchase, Season, Trade, UnitKind,
};
use crate::view::{FieldView, View};

/// The `build` name of the order form.
pub const ORDERS: &str = "realms-orders";

/// Unit kinds a realm may order about (War Elephants belong to scenarios
/// not playable yet).
const KINDS: [UnitKind; 8] = [
    UnitKind::LightInfantry,
    UnitKind::HeavyInfantry,
    UnitKind::SiegeMachine,
    UnitKind::Cavalry,
    UnitKind::TransportShip,
    UnitKind::WarShip,
    UnitKind::Mercenary,
    UnitKind::Corsair,
];

const GOODS: [(&str, &str); 7] = [
    ("grain", "grain"),
    ("fishes", "fishes"),
    ("sheep", "a herd of sheep"),
    ("pigs", "a herd of pigs"),
    ("cattle", "a herd of cattle"),
    ("horses", "a herd of horses"),
    ("meat", "meat (sale only, 1 gold each)"),
];

fn kind_key(k: UnitKind) -> String {
    serde_json::to_value(k).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

fn kind_of(key: &str) -> Option<UnitKind> {
    UnitKind::ALL.into_iter().find(|k| kind_key(*k) == key)
}

fn herd_of(key: &str) -> Option<Herd> {
    Herd::ALL.into_iter().find(|h| h.name() == key)
}

fn good_key(g: Good) -> &'static str {
    match g {
        Good::Grain => "grain",
        Good::Fishes => "fishes",
        Good::Meat => "meat",
        Good::Herd(h) => h.name(),
    }
}

fn good_of(key: &str) -> Option<Good> {
    match key {
        "grain" => Some(Good::Grain),
        "fishes" => Some(Good::Fishes),
        "meat" => Some(Good::Meat),
        k => herd_of(k).map(Good::Herd),
    }
}

/// What the form shows in each field: what was posted last (after a
/// refusal), else the orders' own value.
struct Values<'a> {
    entered: Option<&'a BTreeMap<String, String>>,
}

impl Values<'_> {
    fn get(&self, name: &str, default: impl Into<String>) -> String {
        match self.entered {
            Some(e) => e.get(name).cloned().unwrap_or_default(),
            None => default.into(),
        }
    }

    fn ticked(&self, name: &str, default: bool) -> bool {
        match self.entered {
            Some(e) => e.contains_key(name),
            None => default,
        }
    }
}

fn one(id: &str, label: &str, options: Vec<Choice>, blank: &str, value: String) -> Part {
    Field::new(id, id, label, Input::One { options, blank: Some(blank.into()), required: false })
        .value(value)
        .wrap("rl-cell")
        .into()
}

fn number(id: &str, label: &str, max: i64, value: String) -> Part {
    Field::new(id, id, label, Input::Number { min: 0, max }).value(value).wrap("rl-cell").class("rl-num").into()
}

fn tick(id: &str, label: String, checked: bool) -> Part {
    Field::new(id, id, label, Input::Checkbox { checked }).wrap("rl-tick").into()
}

fn row(parts: Vec<Part>) -> Part {
    Group::new(Frame::Box, parts).class("rl-row").into()
}

fn fieldset(legend: &str, parts: Vec<Part>) -> Part {
    Group::new(Frame::Fieldset { legend: legend.into() }, parts).class("rl-set").into()
}

fn field_choice(f: &FieldView, words: &str) -> Choice {
    if words.is_empty() {
        Choice::new(f.id.to_string(), field_label(f))
    } else {
        Choice::new(f.id.to_string(), format!("{}: {words}", field_label(f)))
    }
}

/// Rows of unit moves named `prefix.N.from/to/unit/count`.
#[allow(clippy::too_many_arguments)]
fn move_rows(
    v: &Values,
    prefix: &str,
    words: &str,
    given: &[Move],
    spare: usize,
    from: &[Choice],
    to: &[Choice],
    kinds: &[Choice],
) -> Vec<Part> {
    let rows = (given.len() + spare).clamp(spare, 16);
    (0..rows)
        .map(|i| {
            let m = given.get(i);
            let n = format!("{prefix}.{i}");
            row(vec![
                one(
                    &format!("{n}.from"),
                    &format!("{words} {}: from", i + 1),
                    from.to_vec(),
                    "(no move)",
                    v.get(&format!("{n}.from"), m.map(|m| m.from.to_string()).unwrap_or_default()),
                ),
                one(
                    &format!("{n}.unit"),
                    "units",
                    kinds.to_vec(),
                    "(choose)",
                    v.get(&format!("{n}.unit"), m.map(|m| kind_key(m.unit)).unwrap_or_default()),
                ),
                number(
                    &format!("{n}.count"),
                    "how many",
                    99,
                    v.get(&format!("{n}.count"), m.map(|m| m.count.to_string()).unwrap_or_default()),
                ),
                one(
                    &format!("{n}.to"),
                    "to",
                    to.to_vec(),
                    "(choose)",
                    v.get(&format!("{n}.to"), m.map(|m| m.to.to_string()).unwrap_or_default()),
                ),
            ])
        })
        .collect()
}

/// Rows of purchases, upgrades or sales named `prefix.N.field/unit/count`.
fn purchase_rows(
    v: &Values,
    prefix: &str,
    words: &str,
    given: &[Purchase],
    at: &[Choice],
    kinds: &[Choice],
) -> Vec<Part> {
    let rows = (given.len() + 1).clamp(2, 12);
    (0..rows)
        .map(|i| {
            let p = given.get(i);
            let n = format!("{prefix}.{i}");
            row(vec![
                one(
                    &format!("{n}.field"),
                    &format!("{words} {}: at", i + 1),
                    at.to_vec(),
                    "(none)",
                    v.get(&format!("{n}.field"), p.map(|p| p.field.to_string()).unwrap_or_default()),
                ),
                one(
                    &format!("{n}.unit"),
                    "unit",
                    kinds.to_vec(),
                    "(choose)",
                    v.get(&format!("{n}.unit"), p.map(|p| kind_key(p.unit)).unwrap_or_default()),
                ),
                number(
                    &format!("{n}.count"),
                    "how many",
                    20,
                    v.get(&format!("{n}.count"), p.map(|p| p.count.to_string()).unwrap_or_default()),
                ),
            ])
        })
        .collect()
}

/// The seat's order forms.
pub fn forms(input: &FormsInput<'_, View>) -> Option<Forms> {
    let view = input.view;
    let seat = input.seat;
    let me = view.realms.get(seat as usize)?;
    if view.fields.is_empty() || me.out || view.over.is_some() {
        return None;
    }
    let suggested: Option<Orders> =
        input.legal.first().and_then(|c| serde_json::from_value::<Command>(c.clone()).ok()).map(|c| {
            let Command::Orders { orders } = c;
            orders
        });
    let given = me.orders.clone().or(suggested).unwrap_or_default();
    let entered = (input.entered.get("build").map(String::as_str) == Some(ORDERS)).then_some(input.entered);
    let v = Values { entered };

    let mine = |f: &FieldView| f.units.iter().any(|u| u.owner == seat);
    let in_play: Vec<&FieldView> = view.fields.iter().filter(|f| f.in_play).collect();
    let own_units: Vec<Choice> =
        in_play.iter().filter(|f| mine(f)).map(|f| field_choice(f, &units_words(f, seat))).collect();
    let targets: Vec<Choice> = in_play
        .iter()
        .map(|f| {
            let what = match holder(f) {
                Some(s) if s == seat => "yours".to_string(),
                Some(s) => format!("held by {}", view.realms.get(s as usize).map_or("?", |r| r.home.as_str())),
                None if f.units.is_empty() => String::new(),
                None => "contested".into(),
            };
            field_choice(f, &what)
        })
        .collect();
    let have: Vec<UnitKind> = KINDS
        .into_iter()
        .filter(|k| view.fields.iter().any(|f| f.units.iter().any(|u| u.owner == seat && u.kind == *k)))
        .collect();
    let kinds_had: Vec<Choice> = have.iter().map(|k| Choice::new(kind_key(*k), k.name())).collect();
    let kinds_all: Vec<Choice> = KINDS.iter().map(|k| Choice::new(kind_key(*k), k.name())).collect();
    let settlements: Vec<Choice> = in_play
        .iter()
        .filter(|f| f.settlement.is_some_and(|s| s.owner == seat) || f.shipyard.is_some_and(|s| s.owner == seat))
        .map(|f| {
            let mut what = Vec::new();
            if let Some(s) = f.settlement {
                what.push(if s.city { "your city" } else { "your village" });
            }
            if let Some(y) = f.shipyard {
                what.push(if y.port { "your port" } else { "your dock" });
            }
            field_choice(f, &what.join(" and "))
        })
        .collect();
    // Where units may be bought: own settlements and shipyards, and the sea
    // fields beside an own shipyard (Corsairs).
    let shipyards: Vec<&&FieldView> = in_play.iter().filter(|f| f.shipyard.is_some_and(|y| y.owner == seat)).collect();
    let mut buy_at = settlements.clone();
    buy_at.extend(
        in_play
            .iter()
            .filter(|f| f.sea && shipyards.iter().any(|y| y.row.abs_diff(f.row) + y.col.abs_diff(f.col) == 1))
            .map(|f| field_choice(f, "sea beside your shipyard")),
    );
    let land: Vec<Choice> = in_play.iter().filter(|f| !f.sea).map(|f| field_choice(f, &units_words(f, seat))).collect();
    let held_land: Vec<&&FieldView> = in_play.iter().filter(|f| !f.sea && holder(f) == Some(seat)).collect();

    // A refusal is told at the top, where the page opens after the post.
    let mut parts: Vec<Part> = vec![Part::Refusal { build: ORDERS.into() }];
    parts.push(
        Note::new(format!(
            "You have {} gold (at most 20), {} prestige (PP) and {} victory points. Orders are secret until every realm has given its own; \
             you may replace yours until then. Fields are named by colour, row and column, as on the map.",
            me.gold, me.pp, me.vp
        ))
        .id("orders-purse")
        .into(),
    );

    // ② moves.
    let mut moves = vec![Note::small(
        "Move units from a field where they stand; a unit moves once per sub-phase, by land to a neighbouring field (further along \
         rivers and by ship). Leave a row on \"(no move)\" to skip it.",
    )
    .into()];
    moves.extend(move_rows(&v, "move", "Move", &given.moves, 3, &own_units, &targets, &kinds_had));
    parts.push(fieldset("② Moves", moves));

    // ⑤ ⑥ standing battle orders.
    let b = given.battle;
    parts.push(fieldset(
        "⑤ ⑥ Battle standing orders",
        vec![
            Note::small("A battle is fought by these orders, without waiting for you.").into(),
            row(vec![
                number(
                    "battle.escape_below",
                    "Escape when fewer than this % of your units remain (0: fight to the end)",
                    100,
                    v.get("battle.escape_below", b.escape_below.to_string()),
                ),
                number(
                    "battle.reroll_pp",
                    &format!("Prestige to spend on re-rolls in one battle, 4 PP each (you have {})", me.pp),
                    255,
                    v.get("battle.reroll_pp", b.reroll_pp.to_string()),
                ),
            ]),
            tick(
                "battle.target_back",
                "Pay 6 PP once per battle to aim at a unit at the back".into(),
                v.ticked("battle.target_back", b.target_back),
            ),
            tick(
                "battle.raze",
                "A defended settlement taken by siege is destroyed and looted (untick: degraded instead)".into(),
                v.ticked("battle.raze", b.raze),
            ),
        ],
    ));

    // ⑦ looting.
    let loot: Vec<Part> = in_play
        .iter()
        .filter(|f| mine(f) && !f.sea && !f.looted && f.settlement.is_none_or(|s| s.owner != seat))
        .map(|f| {
            let id = format!("loot.{}", f.id);
            let ticked = v.ticked(&id, given.loot.contains(&f.id));
            tick(&id, format!("Loot {}", field_label(f)), ticked)
        })
        .collect();
    let mut loot_parts = vec![Note::small(
        "Loot a field you control: a red token, +1 gold if connected, +4 PP on a rival's settlement, else -4 PP; herds on it are taken.",
    )
    .into()];
    if loot.is_empty() {
        loot_parts.push(Note::small("None of your units stands on a field you could loot.").into());
    }
    loot_parts.extend(loot);
    parts.push(fieldset("⑦ Looting", loot_parts));

    // The year's step of this season.
    match view.season {
        Season::Spring => {
            let mut sow = vec![Note::small(
                "Sow 1 grain on each field you choose (1 more on a field with a red looting token); it grows in summer and is harvested in autumn.",
            )
            .into()];
            for f in &held_land {
                let id = format!("sow.{}", f.id);
                let ticked = v.ticked(&id, given.sow.contains(&f.id));
                sow.push(tick(&id, format!("Sow {}", field_label(f)), ticked));
            }
            parts.push(fieldset("New Year: sowing", sow));
        }
        Season::Autumn => {
            let mut rec = vec![Note::small("Recruit 1 Light Infantry on each field you choose, 1 gold each.").into()];
            for f in &held_land {
                let id = format!("recruit.{}", f.id);
                let ticked = v.ticked(&id, given.recruit.contains(&f.id));
                rec.push(tick(&id, format!("Recruit on {}", field_label(f)), ticked));
            }
            parts.push(fieldset("Recruitment", rec));
        }
        Season::Winter => {
            let mut w = vec![Field::new(
                "festival",
                "festival",
                "Festival (double: 1 grain per village, 2 per city; triple: 2 and 4)",
                Input::One {
                    options: vec![
                        Choice::new("1", "small"),
                        Choice::new("2", "double the prestige"),
                        Choice::new("3", "triple the prestige"),
                    ],
                    blank: None,
                    required: true,
                },
            )
            .value(v.get("festival", given.festival.max(1).to_string()))
            .wrap("rl-cell")
            .into()];
            w.push(
                Note::small(
                    "Herds to slaughter for meat before the feeding (each unit eats 1 meat instead of 1 grain).",
                )
                .into(),
            );
            let mut groups: Vec<(u16, Herd, usize)> = Vec::new();
            for f in &in_play {
                for (s, h) in &f.herds {
                    if *s == seat {
                        match groups.iter_mut().find(|g| g.0 == f.id && g.1 == *h) {
                            Some(g) => g.2 += 1,
                            None => groups.push((f.id, *h, 1)),
                        }
                    }
                }
            }
            for (fid, h, n) in groups {
                let id = format!("slaughter.{fid}.{}", h.name());
                let n_given = given.slaughter.iter().filter(|x| **x == (fid, h)).count();
                let label =
                    format!("{} herds to slaughter on {} (of {n})", h.name(), field_label(&view.fields[fid as usize]));
                w.push(number(&id, &label, n as i64, v.get(&id, n_given.to_string())));
            }
            parts.push(fieldset("Festival and slaughter", w));
        }
        Season::Summer => parts.push(fieldset(
            "Weather, yield and taxes",
            vec![Note::small("Nothing to order for this season's step: the sown grain grows and taxes are collected.")
                .into()],
        )),
    }

    // ⑨ rear trade.
    let buildings: Vec<Choice> = Building::ALL.iter().map(|b| Choice::new(b.name(), b.name())).collect();
    let mut rear: Vec<Part> = vec![Note::small(
        "Start a construction where your Light Infantry stand (they build from ⑧ of the next round); buy Light Infantry at your \
         settlements (2 gold), upgrade Light Infantry into other units, sell units.",
    )
    .into()];
    let builds_rows = (given.build.len() + 1).clamp(1, 8);
    for i in 0..builds_rows {
        let b = given.build.get(i);
        let n = format!("build.{i}");
        rear.push(row(vec![
            one(
                &format!("{n}.field"),
                &format!("Build {}: at", i + 1),
                land.clone(),
                "(nothing)",
                v.get(&format!("{n}.field"), b.map(|b| b.field.to_string()).unwrap_or_default()),
            ),
            one(
                &format!("{n}.building"),
                "building",
                buildings.clone(),
                "(choose)",
                v.get(&format!("{n}.building"), b.map(|b| b.building.name().to_string()).unwrap_or_default()),
            ),
        ]));
    }
    rear.extend(purchase_rows(&v, "buy", "Buy", &given.buy, &buy_at, &kinds_all));
    rear.extend(purchase_rows(&v, "upgrade", "Upgrade Light Infantry", &given.upgrade, &targets, &kinds_all));
    rear.extend(purchase_rows(&v, "sell", "Sell", &given.sell, &targets, &kinds_all));
    let trade_rows = (given.trade.len() + 1).clamp(2, 10);
    let goods: Vec<Choice> = GOODS.iter().map(|(k, w)| Choice::new(*k, *w)).collect();
    for i in 0..trade_rows {
        let t = given.trade.get(i);
        let (dir, field, good, count) = match t {
            Some(Trade::Buy { field, good, count }) => ("buy", field.to_string(), good_key(*good), count.to_string()),
            Some(Trade::Sell { field, good, count }) => ("sell", field.to_string(), good_key(*good), count.to_string()),
            None => ("", String::new(), "", String::new()),
        };
        let n = format!("trade.{i}");
        rear.push(row(vec![
            one(
                &format!("{n}.dir"),
                &format!("Trade {}", i + 1),
                vec![Choice::new("buy", "buy"), Choice::new("sell", "sell")],
                "(no trade)",
                v.get(&format!("{n}.dir"), dir),
            ),
            number(&format!("{n}.count"), "how many", 20, v.get(&format!("{n}.count"), count)),
            one(&format!("{n}.good"), "of", goods.clone(), "(choose)", v.get(&format!("{n}.good"), good)),
            one(&format!("{n}.field"), "at", settlements.clone(), "(choose)", v.get(&format!("{n}.field"), field)),
        ]));
    }
    rear.push(
        Field::new(
            "commanders",
            "commanders",
            "Level of command to hire (BASIC: commanders make the battle bonuses work)",
            Input::One {
                options: vec![
                    Choice::new("0", "keep what I have"),
                    Choice::new("1", "1: bad"),
                    Choice::new("2", "2: average"),
                    Choice::new("3", "3: good"),
                    Choice::new("4", "4: brilliant"),
                ],
                blank: None,
                required: true,
            },
        )
        .value(v.get("commanders", given.commanders.to_string()))
        .wrap("rl-cell")
        .into(),
    );
    parts.push(fieldset("⑨ Rear trade", rear));

    // The rest, folded.
    let mut more: Vec<Part> = Vec::new();
    let mut special = vec![tick(
        "pay_special",
        "Pay 14 PP so every unit has a capacity of 1 in the special move".into(),
        v.ticked("pay_special", given.pay_special),
    )];
    special.extend(move_rows(&v, "special", "Special move", &given.special, 1, &targets, &targets, &kinds_all));
    more.push(fieldset("③ Special moves", special));
    let herd_from: Vec<Choice> = in_play
        .iter()
        .filter(|f| f.herds.iter().any(|(s, _)| *s == seat))
        .map(|f| {
            let words: Vec<&str> = f.herds.iter().filter(|(s, _)| *s == seat).map(|(_, h)| h.name()).collect();
            field_choice(f, &words.join(", "))
        })
        .collect();
    let herd_kinds: Vec<Choice> = Herd::ALL.iter().map(|h| Choice::new(h.name(), h.name())).collect();
    let herd_rows = (given.herds.len() + 1).clamp(2, 12);
    let mut herds =
        vec![Note::small("Move a herd to a neighbouring field, or across one sea field to a coastal field.").into()];
    for i in 0..herd_rows {
        let h = given.herds.get(i);
        let n = format!("herd.{i}");
        herds.push(row(vec![
            one(
                &format!("{n}.from"),
                &format!("Herd move {}: from", i + 1),
                herd_from.clone(),
                "(no move)",
                v.get(&format!("{n}.from"), h.map(|h| h.from.to_string()).unwrap_or_default()),
            ),
            one(
                &format!("{n}.herd"),
                "herd",
                herd_kinds.clone(),
                "(choose)",
                v.get(&format!("{n}.herd"), h.map(|h| h.herd.name().to_string()).unwrap_or_default()),
            ),
            one(
                &format!("{n}.to"),
                "to",
                targets.clone(),
                "(choose)",
                v.get(&format!("{n}.to"), h.map(|h| h.to.to_string()).unwrap_or_default()),
            ),
        ]));
    }
    more.push(fieldset("③ Herds", herds));
    let carry_rows = (given.carry.len() + 1).clamp(2, 8);
    let mut stores = vec![Note::small(
        "Carry stored grain between your settlements, or fishes between your shipyards, within your connection (FC) and the room at the end.",
    )
    .into()];
    for i in 0..carry_rows {
        let c = given.carry.get(i);
        let n = format!("carry.{i}");
        let num_of = |x: Option<u8>| x.filter(|x| *x > 0).map(|x| x.to_string()).unwrap_or_default();
        stores.push(row(vec![
            one(
                &format!("{n}.from"),
                &format!("Carry {}: from", i + 1),
                settlements.clone(),
                "(nothing)",
                v.get(&format!("{n}.from"), c.map(|c| c.from.to_string()).unwrap_or_default()),
            ),
            number(&format!("{n}.grain"), "grain", 20, v.get(&format!("{n}.grain"), num_of(c.map(|c| c.grain)))),
            number(&format!("{n}.fish"), "fishes", 20, v.get(&format!("{n}.fish"), num_of(c.map(|c| c.fish)))),
            one(
                &format!("{n}.to"),
                "to",
                settlements.clone(),
                "(choose)",
                v.get(&format!("{n}.to"), c.map(|c| c.to.to_string()).unwrap_or_default()),
            ),
        ]));
    }
    more.push(fieldset("③ Stores", stores));
    let mut retreats = vec![Note::small("Retreat units out of a field where a battle would be fought.").into()];
    retreats.extend(move_rows(&v, "retreat", "Retreat", &given.retreats, 1, &targets, &targets, &kinds_all));
    more.push(fieldset("④ Retreats", retreats));
    let building: Vec<&&FieldView> =
        in_play.iter().filter(|f| f.construction.is_some_and(|c| c.owner == seat)).collect();
    if !building.is_empty() {
        let mut speed = vec![Note::small(
            "Speed a construction up for gold, or (with 50+ PP) build it twice this round for 12 PP.",
        )
        .into()];
        for f in building {
            let a = format!("accelerate.{}", f.id);
            let t = format!("twice.{}", f.id);
            let c = format!("cancel.{}", f.id);
            speed.push(tick(
                &a,
                format!("Speed up the construction on {} for gold", field_label(f)),
                v.ticked(&a, given.accelerate.contains(&f.id)),
            ));
            speed.push(tick(
                &t,
                format!("Build twice on {} (-12 PP)", field_label(f)),
                v.ticked(&t, given.build_twice.contains(&f.id)),
            ));
            speed.push(tick(
                &c,
                format!("Cancel the construction on {} (1 gold back, in REAR-Trade)", field_label(f)),
                v.ticked(&c, given.cancel.contains(&f.id)),
            ));
        }
        more.push(fieldset("⑧ Construction", speed));
    }
    parts.push(
        Group::new(
            Frame::Folded {
                summary: "More orders: special moves, herds, stores, retreats, constructions".into(),
                open: false,
            },
            more,
        )
        .into(),
    );

    parts.push(
        Submit::new(if me.submitted { "Replace my orders with these" } else { "Give these orders" })
            .id("give-orders")
            .class("primary")
            .into(),
    );

    // Ready-made orders, one press each.
    let mut ready: Vec<Part> = vec![Note::small("Or give one of these whole sets of orders at once:").into()];
    let names = ["Suggested orders", "March on the nearest enemy", "Bold orders", "No orders (pass the season)"];
    for (i, (c, label)) in input.legal.iter().zip(input.labels).enumerate() {
        let lead = if serde_json::from_value::<Command>(c.clone())
            .is_ok_and(|Command::Orders { orders }| orders == Orders::default())
        {
            names[3]
        } else {
            names[i.min(2)]
        };
        ready.push(
            Submit::new(format!("{lead}: {label}"))
                .command(serde_json::to_string(c).unwrap_or_default())
                .id(format!("ready-{i}"))
                .class("rl-ready")
                .into(),
        );
    }

    let title = format!(
        "Your secret orders for {} of year {} of {}{}",
        view.season.name(),
        view.year,
        view.years,
        if me.submitted { " (given: you may replace them)" } else { "" }
    );
    Some(Forms {
        parts: vec![Group::new(
            Frame::Fieldset { legend: title },
            vec![
                Form::new(parts).id("orders-form").class("rl-orders").build(ORDERS).into(),
                Form::new(ready).id("ready-orders").class("rl-ready-orders").into(),
            ],
        )
        .id("realms-orders")
        .into()],
    })
}

/// A whole number field, blank as 0.
fn num(form: &Posted, name: &str, what: &str, max: u32) -> Result<u32, String> {
    let raw = form.get(name).unwrap_or_default().trim();
    if raw.is_empty() {
        return Ok(0);
    }
    match raw.parse::<u32>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!("{what}: give a whole number from 0 to {max}, not {raw:?}")),
    }
}

/// A field chosen by id, or none when blank.
fn field_at(form: &Posted, name: &str, what: &str, view: &View) -> Result<Option<u16>, String> {
    let raw = form.get(name).unwrap_or_default().trim();
    if raw.is_empty() {
        return Ok(None);
    }
    match raw.parse::<u16>() {
        Ok(n) if (n as usize) < view.fields.len() => Ok(Some(n)),
        _ => Err(format!("{what}: there is no field {raw:?} on this map; choose one from the list")),
    }
}

fn unit_at(form: &Posted, name: &str, what: &str) -> Result<UnitKind, String> {
    let raw = form.get(name).unwrap_or_default().trim();
    if raw.is_empty() {
        return Err(format!("{what}: choose which units"));
    }
    kind_of(raw).ok_or_else(|| format!("{what}: {raw:?} is not a kind of unit"))
}

fn moves_of(form: &Posted, prefix: &str, words: &str, view: &View) -> Result<Vec<Move>, String> {
    let mut out = Vec::new();
    for i in 0..16 {
        let n = format!("{prefix}.{i}");
        let what = format!("{words} {}", i + 1);
        let Some(from) = field_at(form, &format!("{n}.from"), &what, view)? else { continue };
        let count = num(form, &format!("{n}.count"), &what, 99)?;
        if count == 0 {
            return Err(format!("{what}: say how many units move (at least 1)"));
        }
        let unit = unit_at(form, &format!("{n}.unit"), &what)?;
        let to = field_at(form, &format!("{n}.to"), &what, view)?
            .ok_or_else(|| format!("{what}: choose the field the units go to"))?;
        out.push(Move { from, to, unit, count: count as u8 });
    }
    Ok(out)
}

fn purchases_of(form: &Posted, prefix: &str, words: &str, view: &View) -> Result<Vec<Purchase>, String> {
    let mut out = Vec::new();
    for i in 0..12 {
        let n = format!("{prefix}.{i}");
        let what = format!("{words} {}", i + 1);
        let Some(field) = field_at(form, &format!("{n}.field"), &what, view)? else { continue };
        let count = num(form, &format!("{n}.count"), &what, 20)?;
        if count == 0 {
            return Err(format!("{what}: say how many units (at least 1)"));
        }
        let unit = unit_at(form, &format!("{n}.unit"), &what)?;
        out.push(Purchase { field, unit, count: count as u8 });
    }
    Ok(out)
}

/// Fields ticked under `prefix.<id>`, in id order.
fn ticked(form: &Posted, prefix: &str, view: &View) -> Vec<u16> {
    let mut v: Vec<u16> = form
        .pairs()
        .filter_map(|(k, _)| k.strip_prefix(prefix)?.strip_prefix('.')?.parse::<u16>().ok())
        .filter(|f| (*f as usize) < view.fields.len())
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The `orders` command of the order form.
pub fn orders_command(form: &Posted, view: &View) -> Result<Value, String> {
    let mut o = Orders { moves: moves_of(form, "move", "Move", view)?, ..Orders::default() };
    o.special = moves_of(form, "special", "Special move", view)?;
    o.retreats = moves_of(form, "retreat", "Retreat", view)?;
    o.pay_special = form.get("pay_special").is_some();
    o.battle.escape_below = num(form, "battle.escape_below", "Escape", 100)? as u8;
    o.battle.reroll_pp = num(form, "battle.reroll_pp", "Prestige for re-rolls", 255)? as u8;
    o.battle.target_back = form.get("battle.target_back").is_some();
    o.battle.raze = form.get("battle.raze").is_some();
    o.loot = ticked(form, "loot", view);
    o.sow = ticked(form, "sow", view);
    o.recruit = ticked(form, "recruit", view);
    o.accelerate = ticked(form, "accelerate", view);
    o.build_twice = ticked(form, "twice", view);
    o.cancel = ticked(form, "cancel", view);
    for i in 0..12 {
        let n = format!("herd.{i}");
        let what = format!("Herd move {}", i + 1);
        let Some(from) = field_at(form, &format!("{n}.from"), &what, view)? else { continue };
        let raw = form.get(&format!("{n}.herd")).unwrap_or_default();
        let herd = herd_of(raw).ok_or_else(|| format!("{what}: choose which herd (sheep, pigs, cattle or horses)"))?;
        let to = field_at(form, &format!("{n}.to"), &what, view)?
            .ok_or_else(|| format!("{what}: choose the field the herd goes to"))?;
        o.herds.push(HerdMove { from, to, herd });
    }
    for i in 0..8 {
        let n = format!("carry.{i}");
        let what = format!("Carry {}", i + 1);
        let Some(from) = field_at(form, &format!("{n}.from"), &what, view)? else { continue };
        let grain = num(form, &format!("{n}.grain"), &what, 20)? as u8;
        let fish = num(form, &format!("{n}.fish"), &what, 20)? as u8;
        if grain == 0 && fish == 0 {
            return Err(format!("{what}: say how much grain or how many fishes to carry"));
        }
        let to = field_at(form, &format!("{n}.to"), &what, view)?
            .ok_or_else(|| format!("{what}: choose where the stores go"))?;
        o.carry.push(Carry { from, to, grain, fish });
    }
    for i in 0..8 {
        let n = format!("build.{i}");
        let what = format!("Build {}", i + 1);
        let Some(field) = field_at(form, &format!("{n}.field"), &what, view)? else { continue };
        let raw = form.get(&format!("{n}.building")).unwrap_or_default();
        let building = Building::ALL
            .into_iter()
            .find(|b| b.name() == raw)
            .ok_or_else(|| format!("{what}: choose what to build (village, city, dock, port or fortification)"))?;
        o.build.push(Build { field, building });
    }
    o.buy = purchases_of(form, "buy", "Buy", view)?;
    o.upgrade = purchases_of(form, "upgrade", "Upgrade Light Infantry", view)?;
    o.sell = purchases_of(form, "sell", "Sell", view)?;
    for i in 0..10 {
        let n = format!("trade.{i}");
        let what = format!("Trade {}", i + 1);
        let dir = form.get(&format!("{n}.dir")).unwrap_or_default();
        if dir.is_empty() {
            continue;
        }
        let count = num(form, &format!("{n}.count"), &what, 20)? as u8;
        if count == 0 {
            return Err(format!("{what}: say how many (at least 1)"));
        }
        let raw = form.get(&format!("{n}.good")).unwrap_or_default();
        let good = good_of(raw).ok_or_else(|| format!("{what}: choose what to trade"))?;
        let field = field_at(form, &format!("{n}.field"), &what, view)?
            .ok_or_else(|| format!("{what}: choose the settlement or shipyard that trades"))?;
        o.trade.push(match dir {
            "buy" => Trade::Buy { field, good, count },
            "sell" => Trade::Sell { field, good, count },
            other => return Err(format!("{what}: choose buy or sell, not {other:?}")),
        });
    }
    o.commanders = num(form, "commanders", "Level of command", 4)? as u8;
    if view.season == Season::Winter {
        o.festival = num(form, "festival", "Festival", 3)? as u8;
        if o.festival == 0 {
            return Err("Festival: choose small, double or triple".into());
        }
        for (k, _) in form.pairs() {
            let Some(rest) = k.strip_prefix("slaughter.") else { continue };
            let Some((f, h)) = rest.split_once('.') else { continue };
            let (Ok(field), Some(herd)) = (f.parse::<u16>(), herd_of(h)) else {
                return Err(format!("Slaughter: {rest:?} is not a herd on this map"));
            };
            let n = num(form, k, &format!("Slaughter of {} herds", herd.name()), 20)?;
            for _ in 0..n {
                o.slaughter.push((field, herd));
            }
        }
    }
    Ok(json!({"type": "orders", "orders": o}))
}
