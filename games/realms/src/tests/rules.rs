#[test]
fn tmp_show_game() {
    use runestone_engine::Game;
    let opts = crate::Options { scenario: "vikings".into(), mode: crate::Mode::Basic, years: 5 };
    let mut d = super::Driver::new(&opts, 12, 7).unwrap();
    let t0 = std::time::Instant::now();
    while crate::Realms::outcome(&d.state).is_none() {
        let seat = d.state.waiting()[0];
        let c = crate::state::Command::Orders { orders: crate::bot::plan(&d.state, seat, true) };
        let crate::state::Command::Orders { orders } = c;
        d.act(seat, orders).unwrap();
    }
    for e in &d.log {
        println!("{}", crate::view::describe(&d.state, &e.event, &[]));
    }
    println!("{:?} {:?}", crate::Realms::outcome(&d.state), t0.elapsed());
    for r in &d.state.realms { println!("{} gold {} pp {} vp {}", r.home, r.gold, r.pp, r.vp); }
}
