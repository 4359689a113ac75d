//! The presentation: every kind of decision met in bot games has a form with
//! something to press, the forms that gather several choices build commands
//! the rules accept, and the map draws every District once with its owner.

use std::collections::{BTreeMap, BTreeSet};

use runestone_engine::present::{FormsInput, Posted, Present};
use runestone_engine::{Game, GameRng, Viewer};

use super::Driver;
use crate::bot::choose;
use crate::forms::{CHOICES, KEEP, ORDERS, SEAL, SWEAR};
use crate::state::{Choices, Command, OrderDo, Orders};
use crate::view::{view, View};
use crate::{Options, Thingvellir};

fn typed(v: View) -> View {
    serde_json::from_value(serde_json::to_value(v).expect("the view serialises")).expect("the view reads back")
}

fn posted(pairs: &[(&str, String)]) -> Posted {
    Posted(pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
}

/// Whether the command a form built is accepted now.
fn accepted(d: &Driver, seat: u8, c: &serde_json::Value) -> bool {
    let c: Command = serde_json::from_value(c.clone()).expect("a command");
    let mut rng = GameRng::new(d.seed.clone(), 7);
    Thingvellir::decide(&d.state, seat, &c, &mut rng).is_ok()
}

#[test]
fn every_kind_of_decision_has_a_form_and_the_gathering_forms_build_accepted_commands() {
    let mut kinds: BTreeSet<String> = BTreeSet::new();
    let mut built: BTreeSet<&str> = BTreeSet::new();
    for game in 0..10u64 {
        let seats = 2 + (game % 5) as u8;
        let opts =
            Options { sealed_feuds: game % 2 == 1, advanced_outlawry: false, lawspeaker: None, ..Options::default() };
        let mut d = Driver::new(&opts, seats, game + 100).expect("setup");
        if game % 2 == 0 {
            // Every seat asks to choose farms and Foster pool replacements.
            for seat in 0..seats {
                d.act(seat, &Command::Choices { choices: Choices { farm: true, pool: true } }).expect("choices");
            }
        }
        let mut steps = 0;
        while Thingvellir::outcome(&d.state).is_none() && steps < 3000 {
            steps += 1;
            let seat = d.waiting()[0];
            let v = typed(view(&d.state, Viewer::Seat(seat)));
            let legal: Vec<Command> = Thingvellir::legal(&d.state, seat);
            let json: Vec<serde_json::Value> = legal.iter().map(|c| serde_json::to_value(c).unwrap()).collect();
            let labels: Vec<String> = legal.iter().map(|c| Thingvellir::label(&d.state, seat, c)).collect();
            let entered = BTreeMap::new();
            let forms = Thingvellir::forms(&FormsInput {
                seat,
                view: &v,
                legal: &json,
                labels: &labels,
                entered: &entered,
                names: &[],
            })
            .expect("forms");
            let text = serde_json::to_string(&forms).unwrap();
            let asked = v.asked.clone().expect("the seat is asked");
            assert!(text.contains("\"kind\":\"submit\""), "game {game}: nothing to press for {asked}: {text}");
            kinds.insert(asked.clone());
            // The gathering forms, posted as a player would fill them in.
            let bot = choose(&d.state, seat, false).expect("a bot move");
            let form = match (&asked[..], &bot) {
                ("Choose(Raid)", Command::Keep { cards }) => {
                    Some((KEEP, posted(&cards.iter().map(|c| ("keep", c.to_string())).collect::<Vec<_>>())))
                }
                ("Choose(Pledge)", Command::Swear { add, .. }) => {
                    Some((SWEAR, posted(&[("add", add.map(|a| a.to_string()).unwrap_or_default())])))
                }
                ("Feud", Command::Seal { goods }) => {
                    Some((SEAL, posted(&goods.iter().map(|g| ("seal", g.to_string())).collect::<Vec<_>>())))
                }
                _ => None,
            };
            if let Some((build, p)) = form {
                let c = Thingvellir::command_of_form(build, &p, &v).expect("a form of the game").expect("built");
                assert!(accepted(&d, seat, &c), "game {game}: the {build} form built {c} which is refused");
                built.insert(build);
            }
            if steps % 25 == 0 {
                let names: Vec<String> = (0..seats).map(|s| format!("Gothi {s}")).collect();
                let svg = Thingvellir::svg(&v, &names).expect("the map");
                for a in Thingvellir::areas(&v, &names) {
                    let tag = format!("data-area=\"{}\"", a.id);
                    assert_eq!(svg.matches(&tag).count(), 1, "{} drawn once", a.id);
                    let at = svg.find(&tag).unwrap();
                    let element = &svg[at..at + svg[at..].find('>').unwrap()];
                    assert_eq!(element.contains("data-owner"), a.owner.is_some(), "{element}");
                }
                assert!(Thingvellir::text(&v, &names).unwrap().contains("Districts of Iceland"));
            }
            d.act(seat, &bot).unwrap_or_else(|e| panic!("game {game}: {bot:?} refused: {e}"));
        }
    }
    for k in ["Propose", "Vote", "Resolve(Settle)", "Resolve(Raid)", "Choose(Raid)", "Choose(Pledge)", "Feud"] {
        assert!(kinds.contains(k), "no {k} decision met in the bot games: {kinds:?}");
    }
    assert_eq!(built.len(), 3, "keep, swear and seal were each built from a form: {built:?}");
}

#[test]
fn the_standing_orders_form_builds_the_orders_it_shows() {
    let d = Driver::new(&Options::default(), 3, 1).expect("setup");
    let v = typed(view(&d.state, Viewer::Seat(0)));
    let p = posted(&[
        ("order.settle", "support".into()),
        ("order.ride", "sue:raid".into()),
        ("order.feast", "ask".into()),
        ("order.raid", String::new()),
        ("otherwise", "support".into()),
    ]);
    let c = Thingvellir::command_of_form(ORDERS, &p, &v).expect("the orders form").expect("built");
    let c: Command = serde_json::from_value(c).unwrap();
    use crate::data::Action::{Feast, Raid, Ride, Settle};
    assert_eq!(
        c,
        Command::Orders {
            orders: Some(Orders {
                rules: vec![
                    (Settle, OrderDo::Support),
                    (Ride, OrderDo::SueFor { action: Raid }),
                    (Feast, OrderDo::Ask)
                ],
                otherwise: Some(OrderDo::Support),
            })
        }
    );
    let bad = posted(&[("order.settle", "flee".into())]);
    let err = Thingvellir::command_of_form(ORDERS, &bad, &v).expect("the orders form").unwrap_err();
    assert!(err.contains("\"flee\" is not a standing order"), "{err}");
}

#[test]
fn the_standing_choices_form_shows_the_choices_and_builds_them_back() {
    let mut d = Driver::new(&Options::default(), 3, 1).expect("setup");
    let seat = 2;
    d.act(seat, &Command::Choices { choices: Choices { farm: true, pool: false } }).unwrap();
    let v = typed(view(&d.state, Viewer::Seat(seat)));
    let entered = BTreeMap::new();
    let forms =
        Thingvellir::forms(&FormsInput { seat, view: &v, legal: &[], labels: &[], entered: &entered, names: &[] })
            .expect("forms");
    let text = serde_json::to_string(&forms).unwrap();
    assert!(text.contains("choices-form"), "a seat asked nothing still has its standing choices: {text}");
    assert!(text.contains("Your standing choices (ask me)"), "{text}");
    let c = Thingvellir::command_of_form(CHOICES, &posted(&[("pool", "on".into())]), &v).expect("the form").unwrap();
    let c: Command = serde_json::from_value(c).unwrap();
    assert_eq!(c, Command::Choices { choices: Choices { farm: false, pool: true } }, "an unticked box is off");
    let mut rng = GameRng::new(d.seed.clone(), 7);
    Thingvellir::decide(&d.state, seat, &c, &mut rng).expect("accepted from a seat asked nothing");
}

/// The first option of the field named `name` in the forms, as posted.
fn option_of(forms: &serde_json::Value, name: &str) -> Option<String> {
    fn walk(v: &serde_json::Value, name: &str) -> Option<String> {
        match v {
            serde_json::Value::Object(m) => {
                if m.get("name").and_then(|n| n.as_str()) == Some(name) {
                    let first = m.get("input")?.get("options")?.as_array()?.first()?;
                    return first.get("value").and_then(|x| x.as_str()).map(str::to_owned);
                }
                m.values().find_map(|x| walk(x, name))
            }
            serde_json::Value::Array(a) => a.iter().find_map(|x| walk(x, name)),
            _ => None,
        }
    }
    walk(forms, name)
}

#[test]
fn the_season_composer_builds_a_program_the_rules_accept_and_it_runs() {
    let o = Options { rules_version: Some(2), lawspeaker: Some(0), ..Options::default() };
    let mut d = Driver::new(&o, 3, 1).expect("setup");
    let seat = 0;
    let v = typed(view(&d.state, Viewer::Seat(seat)));
    let legal: Vec<Command> = Thingvellir::legal(&d.state, seat);
    let json: Vec<serde_json::Value> = legal.iter().map(|c| serde_json::to_value(c).unwrap()).collect();
    let labels: Vec<String> = legal.iter().map(|c| Thingvellir::label(&d.state, seat, c)).collect();
    let entered = BTreeMap::new();
    let forms = Thingvellir::forms(&FormsInput {
        seat,
        view: &v,
        legal: &json,
        labels: &labels,
        entered: &entered,
        names: &[],
    })
    .expect("forms");
    let tree = serde_json::to_value(&forms).unwrap();
    let text = tree.to_string();
    assert!(text.contains("season-form") && text.contains("As Lawspeaker"), "{text}");
    assert!(text.contains("When I resolve Settle") && text.contains("If the rules refuse that Settle by then"));
    assert!(text.contains("Let the bot write my program"), "{text}");
    assert!(!text.contains("bot-decides") && !text.contains("Let the bot decide"), "the bot is offered once: {text}");
    assert!(text.contains("answers-form"), "the standing answers beside it");
    // The Lawspeaker proposes the first statute offered and settles the first District offered.
    let propose = option_of(&tree, "step.propose").expect("a proposal offered");
    let settle = option_of(&tree, "step.settle").expect("a Settle step offered");
    let p = posted(&[
        ("step.propose", propose),
        ("step.settle", settle.clone()),
        ("fallback.settle", "bot".into()),
        ("step.raid", String::new()),
        ("otherwise", "pass".into()),
    ]);
    let c = Thingvellir::command_of_form(crate::forms::SEASON, &p, &v).expect("the composer").expect("built");
    assert!(accepted(&d, seat, &c), "{c}");
    let c: Command = serde_json::from_value(c).unwrap();
    let Command::Season { program } = &c else { panic!("{c:?}") };
    assert_eq!(program.steps.len(), 2);
    assert_eq!(program.steps[1].fallback, crate::program::Fallback::Bot);
    assert_eq!(program.otherwise, crate::program::Otherwise::Pass);
    d.act(seat, &c).unwrap();
    let bad = posted(&[("step.settle", "{\"type\":\"ride\",\"set_forth\":[1],\"moves\":[]}".into())]);
    let err = Thingvellir::command_of_form(crate::forms::SEASON, &bad, &v).expect("the composer").unwrap_err();
    assert!(err.contains("the step for Settle is not one of its commands"), "{err}");
    let bad = posted(&[("step.settle", settle), ("fallback.settle", "flee".into())]);
    let err = Thingvellir::command_of_form(crate::forms::SEASON, &bad, &v).expect("the composer").unwrap_err();
    assert!(err.contains("\"flee\" is not a fallback"), "{err}");
}

#[test]
fn the_standing_answers_form_builds_the_answers_it_shows() {
    use crate::program::{Answers, ChallengeAnswer, KeepAnswer, SwearAnswer};
    let o = Options { rules_version: Some(2), ..Options::default() };
    let d = Driver::new(&o, 3, 1).expect("setup");
    let v = typed(view(&d.state, Viewer::Seat(1)));
    let p = posted(&[
        ("feud", "2".into()),
        ("challenge", "fight_with:2".into()),
        ("keep", "colour:3".into()),
        ("swear", "nothing".into()),
    ]);
    let c = Thingvellir::command_of_form(crate::forms::ANSWERS, &p, &v).expect("the answers form").expect("built");
    assert!(accepted(&d, 1, &c), "{c}");
    let c: Command = serde_json::from_value(c).unwrap();
    let want = Answers {
        feud: Some(2),
        challenge: Some(ChallengeAnswer::FightWith { goods: 2 }),
        keep: Some(KeepAnswer::Colour { colour: 3 }),
        swear: Some(SwearAnswer::Nothing),
        by_hand: false,
    };
    assert_eq!(c, Command::Answers { answers: want });
    let none = Thingvellir::command_of_form(crate::forms::ANSWERS, &posted(&[("by_hand", "on".into())]), &v);
    let none: Command = serde_json::from_value(none.unwrap().unwrap()).unwrap();
    assert_eq!(none, Command::Answers { answers: Answers { by_hand: true, ..Answers::default() } }, "blank asks me");
    let bad = posted(&[("keep", "colour:9".into())]);
    let err = Thingvellir::command_of_form(crate::forms::ANSWERS, &bad, &v).expect("the form").unwrap_err();
    assert!(err.contains("no colour number 9"), "{err}");
}
