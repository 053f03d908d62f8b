//! Tests of card rooms: decks, each built-in kind dealt as its rules say, the checks of
//! user-defined kinds, the hand's errors (which change nothing), the golden deals of the
//! independent reference, and the fairness of what each position of a hand receives.

mod deals;
mod decks;
mod errors;
mod fairness;
mod golden;

use super::hand::{Dealt, Destination, Hand};
use super::plan::{Action, Kind, Pile};

const COUNTING: [u8; 32] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
    26, 27, 28, 29, 30, 31,
];

/// A fixed key for each number: the number's bytes, little-endian, then zeros.
fn key(n: u64) -> [u8; 32] {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&n.to_le_bytes());
    key
}

/// Deals every stage that deals cards (drawing stages open, and deal nothing).
fn deal_all(hand: &mut Hand) -> Vec<Dealt> {
    let mut dealt = Vec::new();
    while hand.next_stage().is_some() {
        dealt.extend(hand.deal_next().unwrap());
    }
    dealt
}

fn to_seat(dealt: &[Dealt], seat: usize) -> Vec<&Dealt> {
    dealt
        .iter()
        .filter(|d| d.to == Destination::Seat(seat))
        .collect()
}

fn to_pile(dealt: &[Dealt], pile: Pile) -> Vec<&Dealt> {
    dealt
        .iter()
        .filter(|d| d.to == Destination::Pile(pile))
        .collect()
}

/// Each card of the dealt ones is the card at its position, and no card or position comes twice.
fn assert_each_once(hand: &Hand, dealt: &[Dealt]) {
    let mut cards: Vec<usize> = dealt.iter().map(|d| d.card).collect();
    let mut positions: Vec<usize> = dealt.iter().map(|d| d.position).collect();
    for d in dealt {
        assert_eq!(hand.order()[d.position], d.card);
    }
    cards.sort_unstable();
    cards.dedup();
    positions.sort_unstable();
    positions.dedup();
    assert_eq!(cards.len(), dealt.len(), "a card dealt twice");
    assert_eq!(positions.len(), dealt.len(), "a position dealt twice");
}

/// Whether a kind's last stage opens draws.
fn ends_in_draws(kind: &Kind) -> bool {
    matches!(kind.stages().last().unwrap().action, Action::Draw(_))
}
