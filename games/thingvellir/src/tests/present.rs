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
            let forms =
                Thingvellir::forms(&FormsInput { seat, view: &v, legal: &json, labels: &labels, entered: &entered })
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
        Thingvellir::forms(&FormsInput { seat, view: &v, legal: &[], labels: &[], entered: &entered }).expect("forms");
    let text = serde_json::to_string(&forms).unwrap();
    assert!(text.contains("choices-form"), "a seat asked nothing still has its standing choices: {text}");
    assert!(text.contains("Your standing choices (ask me)"), "{text}");
    let c = Thingvellir::command_of_form(CHOICES, &posted(&[("pool", "on".into())]), &v).expect("the form").unwrap();
    let c: Command = serde_json::from_value(c).unwrap();
    assert_eq!(c, Command::Choices { choices: Choices { farm: false, pool: true } }, "an unticked box is off");
    let mut rng = GameRng::new(d.seed.clone(), 7);
    Thingvellir::decide(&d.state, seat, &c, &mut rng).expect("accepted from a seat asked nothing");
}
