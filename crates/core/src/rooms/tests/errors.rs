//! Kinds of one's own are checked whole; a hand's call that cannot be dealt is refused with a
//! clear error and leaves the hand as it was.

use super::*;
use crate::error::{Error, ErrorKind};
use crate::rooms::deck::Deck;
use crate::rooms::kinds;
use crate::rooms::plan::{Draws, Order, Stage, Step};

fn each(count: usize) -> Step {
    Step::EachSeat {
        count,
        order: Order::OneAtATime,
        from: 1,
        up: false,
        short_to_board: false,
    }
}

fn kind(seats: usize, stages: Vec<Stage>) -> Result<Kind, Error> {
    Kind::new("my game", Deck::standard(), seats, stages, None)
}

fn refused(result: Result<Kind, Error>, message: &str) {
    let err = result.unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidParameter);
    assert_eq!(err.message, message);
}

#[test]
fn a_kind_of_ones_own_is_checked() {
    let deal = |steps| vec![Stage::deal("deal", steps)];
    refused(
        kind(5, deal(vec![each(11)])),
        "my game: the plan deals 55 cards to 5 seats, more than the 52 in deck \"52\"",
    );
    refused(
        kind(
            4,
            vec![
                Stage::deal("a", vec![each(13)]),
                Stage::deal(
                    "b",
                    vec![Step::ToPile {
                        pile: Pile::Board,
                        count: 1,
                    }],
                ),
            ],
        ),
        "my game: the plan deals 53 cards to 4 seats, more than the 52 in deck \"52\"",
    );
    refused(
        kind(0, deal(vec![each(1)])),
        "my game: a table has 1 to 64 seats, got 0",
    );
    refused(
        kind(65, deal(vec![each(0)])),
        "my game: a table has 1 to 64 seats, got 65",
    );
    refused(kind(2, vec![Stage::draw("draws", Draws::Free), Stage::deal("river", vec![each(1)])]), "my game: stage \"river\" comes after stage \"draws\", whose draws run to the end of the deck");
    refused(
        kind(
            4,
            deal(vec![Step::ToSeat {
                offset: 4,
                count: 1,
                up: false,
            }]),
        ),
        "my game: stage \"deal\" deals to the seat 4 after the dealer, at a table of 4 seats",
    );
    refused(
        kind(
            4,
            deal(vec![Step::EachSeat {
                count: 1,
                order: Order::OneAtATime,
                from: 4,
                up: false,
                short_to_board: false,
            }]),
        ),
        "my game: stage \"deal\" starts 4 seats after the dealer, at a table of 4 seats",
    );
    refused(
        kind(
            4,
            deal(vec![Step::EachSeat {
                count: 1,
                order: Order::Packets(0),
                from: 1,
                up: false,
                short_to_board: false,
            }]),
        ),
        "my game: stage \"deal\" deals packets of 0 cards",
    );
    refused(
        kind(4, deal(vec![each(0)])),
        "my game: stage \"deal\" has a step of 0 cards",
    );
    refused(
        kind(4, deal(vec![])),
        "my game: stage \"deal\" deals nothing",
    );
    refused(kind(4, vec![]), "my game: a plan has no stage");
    refused(
        kind(4, vec![Stage::deal("", vec![each(1)])]),
        "my game: stage 1 has no name",
    );
    refused(
        kind(
            4,
            vec![
                Stage::deal("a", vec![each(1)]),
                Stage::deal("a", vec![each(1)]),
            ],
        ),
        "my game: stage \"a\" is named twice",
    );
    refused(
        kind(4, vec![Stage::draw("d", Draws::InTurn { max: 0 })]),
        "my game: stage \"d\" draws at most 0 cards",
    );
    // Exactly the deck is fine, and so is a seat at the table's last place.
    assert!(kind(4, deal(vec![each(13)])).is_ok());
    assert!(kind(
        4,
        deal(vec![Step::ToSeat {
            offset: 3,
            count: 52,
            up: true
        }])
    )
    .is_ok());
}

/// Runs a call that must fail and checks that the hand is unchanged and still deals what an
/// untouched copy deals.
fn refused_call(
    hand: &mut Hand,
    call: impl FnOnce(&mut Hand) -> Result<Vec<Dealt>, Error>,
    kind: ErrorKind,
    message: &str,
) {
    let before = hand.clone();
    let err = call(hand).unwrap_err();
    assert_eq!((err.kind, err.message.as_str()), (kind, message));
    assert_eq!(*hand, before, "a refused call changed the hand");
}

#[test]
fn a_hand_refuses_stages_out_of_order_and_changes_nothing() {
    let mut hand = Hand::new(kinds::holdem(3).unwrap(), 1, key(1)).unwrap();
    refused_call(
        &mut hand,
        |h| h.deal_stage("turn"),
        ErrorKind::NotReady,
        "stage \"turn\" comes after stage \"hole\", which is not dealt yet",
    );
    refused_call(
        &mut hand,
        |h| h.deal_stage("showdown"),
        ErrorKind::InvalidParameter,
        "Texas Hold'em has no stage \"showdown\"",
    );
    refused_call(
        &mut hand,
        |h| h.draw(1, 1),
        ErrorKind::NotReady,
        "Texas Hold'em has no drawing stage open",
    );
    hand.deal_stage("hole").unwrap();
    refused_call(
        &mut hand,
        |h| h.deal_stage("hole"),
        ErrorKind::NotReady,
        "stage \"hole\" is already dealt",
    );
    for stage in ["flop", "turn", "river"] {
        hand.deal_stage(stage).unwrap();
    }
    refused_call(
        &mut hand,
        |h| h.deal_next(),
        ErrorKind::NotReady,
        "every stage of Texas Hold'em is dealt",
    );
    let err = hand.fold(4).unwrap_err();
    assert_eq!(
        (err.kind, err.message.as_str()),
        (
            ErrorKind::InvalidParameter,
            "Texas Hold'em has seats 1 to 3, got seat 4"
        )
    );
    for dealer in [0, 4] {
        let err = Hand::new(kinds::holdem(3).unwrap(), dealer, key(1)).unwrap_err();
        assert_eq!(
            err.message,
            format!("the dealer sits in seat 1 to 3, got {dealer}")
        );
    }
}

#[test]
fn dealing_past_the_end_changes_nothing() {
    // A stage that needs more than the deck has left, after a first that took most of it: the
    // second stage's first step would fit, its second does not, and neither is dealt.
    let stages = vec![
        Stage::deal("most", vec![each(11)]),
        Stage::deal(
            "rest",
            vec![Step::EachSeat {
                count: 1,
                order: Order::OneAtATime,
                from: 1,
                up: true,
                short_to_board: false,
            }],
        ),
        Stage::draw("draws", Draws::Free),
    ];
    let kind = Kind::new("tight", Deck::standard(), 4, stages, None).unwrap();
    let mut hand = Hand::new(kind, 1, key(2)).unwrap();
    hand.deal_next().unwrap();
    hand.deal_next().unwrap();
    hand.deal_next().unwrap();
    assert_eq!(hand.draw(1, 3).unwrap().len(), 3);
    refused_call(
        &mut hand,
        |h| h.draw(2, 2),
        ErrorKind::NotReady,
        "stage \"draws\" needs 2 more cards, and the deck has 1 left",
    );
    refused_call(
        &mut hand,
        |h| h.draw(5, 1),
        ErrorKind::InvalidParameter,
        "tight has seats 1 to 4, got seat 5",
    );
    refused_call(
        &mut hand,
        |h| h.draw(2, 0),
        ErrorKind::InvalidParameter,
        "a draw in stage \"draws\" takes at least 1 card",
    );
    assert_eq!(hand.draw(2, 1).unwrap()[0].position, 51);
    // A stage whose second step runs out leaves its first step undealt too: draws in turn
    // (which the check of the kind cannot count) took most of the deck.
    let burn_and_board = vec![
        Step::ToPile {
            pile: Pile::Burn,
            count: 1,
        },
        Step::ToPile {
            pile: Pile::Board,
            count: 5,
        },
    ];
    let stages = vec![
        Stage::deal("deal", vec![each(5)]),
        Stage::draw("draw", Draws::InTurn { max: 30 }),
        Stage::deal("board", burn_and_board),
    ];
    let kind = Kind::new("greedy draw", Deck::standard(), 2, stages, None).unwrap();
    let mut hand = Hand::new(kind, 1, key(3)).unwrap();
    hand.deal_next().unwrap();
    hand.deal_next().unwrap();
    hand.draw(2, 30).unwrap();
    hand.draw(1, 7).unwrap();
    assert_eq!(hand.left(), 5);
    refused_call(
        &mut hand,
        |h| h.deal_stage("board"),
        ErrorKind::NotReady,
        "stage \"board\" needs 5 more cards, and the deck has 4 left",
    );
    assert_eq!(hand.position(), 47);
}

#[test]
fn draws_in_turn_go_in_turn() {
    let mut hand = Hand::new(kinds::five_card_draw(3).unwrap(), 3, key(4)).unwrap();
    hand.deal_stage("deal").unwrap();
    hand.deal_stage("draw").unwrap();
    refused_call(
        &mut hand,
        |h| h.draw(2, 1),
        ErrorKind::NotReady,
        "it is seat 1's turn to draw in stage \"draw\", not seat 2's",
    );
    refused_call(
        &mut hand,
        |h| h.draw(1, 6),
        ErrorKind::InvalidParameter,
        "a draw in stage \"draw\" takes 0 to 5 cards, got 6",
    );
    hand.draw(1, 5).unwrap();
    hand.fold(3).unwrap();
    refused_call(
        &mut hand,
        |h| h.draw(3, 1),
        ErrorKind::NotReady,
        "seat 3 is out of the hand",
    );
    hand.draw(2, 1).unwrap();
    refused_call(
        &mut hand,
        |h| h.draw(2, 1),
        ErrorKind::NotReady,
        "every seat has drawn in stage \"draw\"",
    );
    // A stage after draws in turn waits for them.
    let stages = vec![
        Stage::deal("deal", vec![each(5)]),
        Stage::draw("draw", Draws::InTurn { max: 3 }),
        Stage::deal("last", vec![each(1)]),
    ];
    let kind = Kind::new("draw then more", Deck::standard(), 3, stages, None).unwrap();
    let mut hand = Hand::new(kind, 1, key(5)).unwrap();
    hand.deal_next().unwrap();
    hand.deal_next().unwrap();
    hand.draw(2, 3).unwrap();
    refused_call(
        &mut hand,
        |h| h.deal_next(),
        ErrorKind::NotReady,
        "seat 3 has not drawn yet in stage \"draw\"",
    );
    hand.draw(3, 0).unwrap();
    hand.draw(1, 1).unwrap();
    assert_eq!(hand.deal_stage("last").unwrap()[0].position, 19);
}

#[test]
fn an_order_must_be_the_decks() {
    let kind = kinds::four_by_thirteen("hearts");
    let mut order: Vec<usize> = (0..52).collect();
    assert!(Hand::from_order(kind.clone(), 1, order.clone()).is_ok());
    order[5] = 6;
    let err = Hand::from_order(kind.clone(), 1, order).unwrap_err();
    assert_eq!(
        err.message,
        "an order of deck \"52\" holds each card 0 to 51 once"
    );
    let err = Hand::from_order(kind.clone(), 1, (0..51).collect()).unwrap_err();
    assert_eq!(
        err.message,
        "an order of deck \"52\" holds 52 cards, got 51"
    );
    let err = Hand::from_order(kind, 1, (0..53).collect()).unwrap_err();
    assert_eq!(
        err.message,
        "an order of deck \"52\" holds each card 0 to 51 once"
    );
}

#[test]
fn shuffling_a_large_deck_checks_for_cancellation() {
    use crate::shuffle::CHECK_EVERY;
    let labels: Vec<String> = (0..3 * CHECK_EVERY).map(|i| i.to_string()).collect();
    let deck = Deck::new("large", labels).unwrap();
    let kind = Kind::new(
        "large",
        deck,
        2,
        vec![Stage::deal("deal", vec![each(1)])],
        None,
    )
    .unwrap();
    let mut checks = 0;
    let hand = Hand::shuffled(kind.clone(), 1, key(6), &mut || checks += 1).unwrap();
    assert_eq!(checks, 2);
    assert_eq!(hand, Hand::new(kind, 1, key(6)).unwrap());
}
