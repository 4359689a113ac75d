//! Planning and the flow of a round ("1. Planning phase", "Your cards",
//! "2. Action phase", "Round & turn overview"): each clan secretly chooses 6
//! of its 24 cards (up to 8 from round 5 with the advanced option; in the
//! easier variant at the start of its own turn); turns follow in starting
//! player order; during its turn a clan may discard 2 cards for 1 of its
//! choice; at least one card must be laid down. After the last turn the
//! Build and Claim phases follow without input, then the next round.

use super::build::Effect;
use super::state::{Card, Command, Event, Hand, Orders, Phase};
use super::{build, claim, scoring, Ctx, State};
use runestone_engine::game::{RuleError, Seat};
use runestone_engine::reject;

/// Cards in a round's hand: 6, or 8 from round 5 with the advanced option.
pub fn hand_size(s: &State, round: u8) -> u8 {
    if s.eight_cards && round >= 5 {
        8
    } else {
        6
    }
}

/// Start round `round`: cards back in the decks, plans to choose.
pub fn begin_round(cx: &mut Ctx, round: u8) {
    let hand_size = hand_size(&cx.s, round);
    let starting = cx.s.starting;
    cx.emit(Event::RoundBegan { round, starting, hand_size });
    if cx.s.easy_cards {
        cx.emit(Event::TurnBegan { seat: starting, hand: None });
    }
}

/// Check a hand against the round's size and the deck (6 of each type).
pub fn check_hand(s: &State, hand: &Hand) -> Result<(), RuleError> {
    if hand.arr().iter().any(|c| *c > 6) {
        reject!("a deck has only 6 cards of each type; {} asks for more", hand.words());
    }
    let total = hand.total();
    if s.eight_cards && s.hand_size == 8 {
        if !(6..=8).contains(&total) {
            reject!("choose 6 to 8 cards this round, not {total}");
        }
    } else if total != s.hand_size {
        reject!("choose exactly {} cards, not {total}", s.hand_size);
    }
    Ok(())
}

/// The secret plan. In the planning phase a clan that already chose may
/// choose again: the later plan replaces the earlier one until the reveal,
/// which comes when the last clan that had not chosen chooses.
pub fn plan(cx: &mut Ctx, seat: Seat, hand: Hand) -> Result<(), RuleError> {
    let s = &cx.s;
    let planned = s.players.get(seat as usize).is_some_and(|p| p.planned);
    let easy_now = s.easy_cards && s.phase == Phase::Action && s.current == seat && !planned;
    if !easy_now {
        return plan_secretly(cx, seat, hand, None);
    }
    check_hand(s, &hand)?;
    // Chosen at the table in the open, just before laying them down.
    cx.emit(Event::PlanChosen { seat, hand: Some(hand), program: None });
    Ok(())
}

/// The secret plan (with a turn program, see [`super::program`]): others
/// see only that cards were chosen, the same whether a program came with
/// them or not. The last plan in reveals the cards and the first turn begins.
pub fn plan_secretly(
    cx: &mut Ctx,
    seat: Seat,
    hand: Hand,
    program: Option<Vec<super::program::ProgramStep>>,
) -> Result<(), RuleError> {
    let s = &cx.s;
    let planned = s.players.get(seat as usize).is_some_and(|p| p.planned);
    if s.phase == Phase::Action && planned {
        reject!("your cards for this round are already laid face up; a plan can be replaced only until the reveal");
    }
    if s.phase != Phase::Planning {
        if s.easy_cards {
            reject!(
                "cards are chosen in the planning phase (or, in the easier variant, at the start of one's own turn)"
            );
        }
        reject!("cards are chosen in the planning phase");
    }
    check_hand(s, &hand)?;
    cx.secret(
        Event::PlanChosen { seat, hand: Some(hand), program },
        vec![seat],
        Event::PlanChosen { seat, hand: None, program: None },
    );
    if cx.s.players.iter().all(|p| p.planned) {
        let first = cx.s.starting;
        let hand = Some(cx.s.players[first as usize].hand);
        begin_turn(cx, first, hand);
    }
    Ok(())
}

/// A clan's turn begins: its cards face up, and its program (if it gave
/// one with the plan) runs at once.
pub fn begin_turn(cx: &mut Ctx, seat: Seat, hand: Option<Hand>) {
    cx.emit(Event::TurnBegan { seat, hand });
    super::program::run_program(cx, seat);
}

/// Replace the standing orders (any time the clan is asked for something).
pub fn set_orders(cx: &mut Ctx, seat: Seat, orders: &Orders) -> Result<(), RuleError> {
    let n = cx.s.board.len();
    if let super::state::AxeOrder::Areas(a) = &orders.axes {
        if let Some(bad) = a.iter().find(|x| **x as usize >= n) {
            reject!("there is no area {bad}");
        }
    }
    if orders.build.len() > 64 {
        reject!("a build order lists at most 64 wishes");
    }
    for (i, w) in orders.build.iter().enumerate() {
        for e in std::iter::once(w.effect).chain(w.replace) {
            if !super::build::TILES.iter().any(|t| t.building == w.building && t.effect == e) {
                reject!("build wish {}: no {} tile has the effect {:?}", i + 1, w.building.name(), e);
            }
        }
    }
    if orders.recruits.len() > 3 {
        reject!("list each building at most once for recruits");
    }
    if orders.ask && !cx.s.v2() {
        reject!("this game is played by rules version 1, where the Build and Claim choices are standing orders only");
    }
    cx.set_orders(seat, orders.clone());
    // Asked at the moment: these orders are the decision.
    if cx.s.phase == Phase::Deciding && cx.s.players[seat as usize].deciding {
        cx.emit(Event::Decided { seat });
        if !cx.s.players.iter().any(|p| p.deciding) {
            end_round(cx);
        }
    }
    Ok(())
}

/// That it is `seat`'s turn with cards chosen.
pub fn require_turn(s: &State, seat: Seat) -> Result<(), RuleError> {
    if s.phase != Phase::Action || s.current != seat {
        reject!("it is not your turn");
    }
    if !s.players[seat as usize].planned {
        reject!("choose your {} cards first", s.hand_size);
    }
    Ok(())
}

/// Lay down a card for `card`'s action, or use an upgrade's free action.
pub fn use_card(cx: &mut Ctx, seat: Seat, card: Card) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    let p = &cx.s.players[seat as usize];
    match cx.free {
        Some((Effect::GodiFreeAction, _)) if card == Card::Godi => {
            cx.free = None;
            cx.emit(Event::FreeActionUsed { seat, effect: Effect::GodiFreeAction });
            return Ok(());
        }
        Some((Effect::AnyCardBerserkur, Some(other))) if card == Card::Berserkur => {
            cx.free = None;
            cx.emit(Event::CardPlayed { seat, card: other, as_card: card });
            return Ok(());
        }
        _ => {}
    }
    if p.hand.get(card) > 0 {
        cx.emit(Event::CardPlayed { seat, card, as_card: card });
        return Ok(());
    }
    if card == Card::Godi && p.has(Effect::GodiFreeAction) && !p.free_used[1] {
        cx.emit(Event::FreeActionUsed { seat, effect: Effect::GodiFreeAction });
        return Ok(());
    }
    if card == Card::Berserkur && p.has(Effect::AnyCardBerserkur) && !p.free_used[0] {
        if let Some(other) = Card::ALL.iter().copied().filter(|c| p.hand.get(*c) > 0).max_by_key(|c| p.hand.get(*c)) {
            cx.emit(Event::CardPlayed { seat, card: other, as_card: card });
            return Ok(());
        }
    }
    reject!("no {} card left in hand ({})", card.name(), p.hand.words())
}

/// An upgrade's once-a-round action in words.
pub fn free_name(e: Effect) -> &'static str {
    match e {
        Effect::GodiFreeAction => "Seer",
        Effect::HomeActionAnywhere => "Messenger",
        Effect::AnyCardBerserkur => "War horn",
        _ => "upgrade",
    }
}

/// Version 2: one step with an upgrade's once-a-round action, when the clan
/// chooses (the cards read "Godi can do 1 free action each round without
/// using a card", "One free home area action each round", "Any other unit
/// card can be used for 1 Berserkur action").
pub fn free(cx: &mut Ctx, seat: Seat, effect: Effect, card: Option<Card>, step: &Command) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    if !cx.s.v2() {
        reject!(
            "this game is played by rules version 1, where free upgrade actions are used only when no card is left"
        );
    }
    let slot = match effect {
        Effect::AnyCardBerserkur => 0,
        Effect::GodiFreeAction => 1,
        Effect::HomeActionAnywhere => 2,
        _ => reject!("only the War horn, the Seer and the Messenger give a free action"),
    };
    let name = free_name(effect);
    let p = &cx.s.players[seat as usize];
    if !p.has(effect) {
        reject!("the clan has no {name} upgrade");
    }
    if p.free_used[slot] {
        reject!("the {name} was already used this round");
    }
    match (effect, card) {
        (Effect::AnyCardBerserkur, None) => reject!("name the card the War horn lays down for the Berserkur"),
        (Effect::AnyCardBerserkur, Some(Card::Berserkur)) => {
            reject!("the War horn lays down a card of another unit, not a Berserkur card")
        }
        (Effect::AnyCardBerserkur, Some(c)) if p.hand.get(c) == 0 => {
            reject!("no {} card left in hand ({})", c.name(), p.hand.words())
        }
        (Effect::AnyCardBerserkur, Some(_)) | (_, None) => {}
        (_, Some(_)) => reject!("only the War horn lays down a card"),
    }
    if !is_step(step) || matches!(step, Command::EndTurn | Command::Exchange { .. } | Command::Free { .. }) {
        reject!("a free action is one unit's action");
    }
    cx.free = Some((effect, card));
    let r = super::run(cx, seat, step);
    let unused = cx.free.take().is_some();
    r?;
    if unused {
        reject!("{} used no {name} action", super::describe_command(&cx.s, seat, step));
    }
    Ok(())
}

/// The 2-for-1 discard.
pub fn exchange(cx: &mut Ctx, seat: Seat, discard: [Card; 2], take: Card) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    let p = &cx.s.players[seat as usize];
    let mut h = p.hand;
    for d in discard {
        if h.get(d) == 0 {
            reject!("no {} card in hand to discard ({})", d.name(), p.hand.words());
        }
        h.add(d, -1);
    }
    // The deck holds 6 of each type; the taken card must still be in it.
    let used = p.hand.get(take) + p.played.get(take);
    if used >= 6 {
        reject!("all six {} cards are already in hand or played", take.name());
    }
    cx.emit(Event::CardsExchanged { seat, discarded: Some(discard), taken: Some(take) });
    Ok(())
}

/// Whether the clan still could lay down a card this turn (so ending the
/// turn without one would break the "at least one card" rule).
pub fn could_play(s: &State, seat: Seat) -> bool {
    super::bot::card_steps(s, seat).next().is_some()
}

/// End the turn; after the last turn of a round, build, claim and go on.
pub fn end_turn(cx: &mut Ctx, seat: Seat) -> Result<(), RuleError> {
    require_turn(&cx.s, seat)?;
    let p = &cx.s.players[seat as usize];
    if p.played.total() == 0 && could_play(&cx.s, seat) {
        reject!("lay down at least one card before ending the turn");
    }
    cx.emit(Event::TurnEnded { seat });
    advance(cx);
    Ok(())
}

/// After a turn: the next turn, or the Build and Claim phases and the next
/// round (or the end).
pub fn advance(cx: &mut Ctx) {
    let n = cx.s.n() as u8;
    if cx.s.turns_done < n {
        let next = (cx.s.starting + cx.s.turns_done) % n;
        let hand = (!cx.s.easy_cards).then_some(cx.s.players[next as usize].hand);
        begin_turn(cx, next, hand);
        return;
    }
    // Version 2: clans that asked to decide at the moment are asked now,
    // having seen every turn of the round.
    let asking: Vec<Seat> = (0..n).filter(|&i| cx.s.v2() && cx.s.players[i as usize].orders.ask).collect();
    if !asking.is_empty() {
        cx.emit(Event::DecisionsAsked { seats: asking });
        return;
    }
    end_round(cx);
}

/// The Build and Claim phases from the clans' orders, then the next round
/// (or the end).
pub fn end_round(cx: &mut Ctx) {
    build::build_phase(cx);
    claim::claim_phase(cx);
    let round = cx.s.round;
    cx.emit(Event::RoundEnded { round });
    if round >= cx.s.rounds {
        scoring::end_game(cx);
    } else {
        begin_round(cx, round + 1);
    }
}

/// Every hand of `size` cards (each type at most 6).
pub fn all_hands(size: u8) -> Vec<Hand> {
    let mut v = Vec::new();
    for b in 0..=6u8 {
        for g in 0..=6u8 {
            for k in 0..=6u8 {
                let used = b + g + k;
                if used <= size && size - used <= 6 {
                    v.push(Hand::new([b, g, k, size - used]));
                }
            }
        }
    }
    v
}

/// Whether a command is a step of a turn (rather than a plan or orders).
pub fn is_step(c: &Command) -> bool {
    !matches!(c, Command::Plan { .. } | Command::Program { .. } | Command::SetOrders { .. } | Command::PlayTurn { .. })
}
