//! The decks' canonical orders and labels, checked against the text of docs/card_rooms.md.

use crate::cards::{self, Suits};
use crate::error::ErrorKind;
use crate::rooms::deck::Deck;

fn label(deck: &Deck, index: usize) -> &str {
    deck.label(index).unwrap()
}

#[test]
fn the_52_cards_are_the_dou_dizhu_numbering_in_pokerkit_strings() {
    let deck = Deck::standard();
    assert_eq!(deck.len(), 52);
    // Typed from the page: index = rank * 4 + suit, ace first, clubs first.
    for (index, expected) in [
        (0, "Ac"),
        (1, "Ad"),
        (2, "Ah"),
        (3, "As"),
        (4, "2c"),
        (36, "Tc"),
        (38, "Th"),
        (40, "Jc"),
        (45, "Qd"),
        (51, "Ks"),
    ] {
        assert_eq!(label(&deck, index), expected, "card {index}");
    }
    // The same numbering as cards.rs: card number = index + 1, with 10 written T and the suit
    // letter in lower case.
    let jokers = Deck::with_jokers();
    for card in 1..=54 {
        let old = cards::label(card, Suits::Letters).unwrap();
        let expected = match old.as_str() {
            "BJ" | "RJ" => old.clone(),
            _ => {
                let (rank, suit) = old.split_at(old.len() - 1);
                format!("{}{}", rank.replace("10", "T"), suit.to_lowercase())
            }
        };
        assert_eq!(label(&jokers, card as usize - 1), expected, "card {card}");
    }
    let mut labels = deck.labels().to_vec();
    labels.sort();
    labels.dedup();
    assert_eq!(labels.len(), 52, "every card has its own label");
}

#[test]
fn jokers_short_deck_and_guandan() {
    let jokers = Deck::with_jokers();
    assert_eq!(
        (jokers.len(), label(&jokers, 52), label(&jokers, 53)),
        (54, "BJ", "RJ")
    );
    let short = Deck::short();
    assert_eq!(short.len(), 36);
    let expected: Vec<&str> = ["Ac", "Ad", "Ah", "As", "6c", "6d", "6h", "6s"].to_vec();
    assert_eq!(short.labels()[..8], expected);
    assert_eq!(label(&short, 35), "Ks");
    assert!(short.labels().iter().all(|l| !"2345".contains(&l[..1])));
    let two = Deck::double_with_jokers();
    assert_eq!(two.len(), 108);
    assert_eq!(
        (
            label(&two, 0),
            label(&two, 53),
            label(&two, 54),
            label(&two, 107)
        ),
        ("Ac", "RJ", "Ac", "RJ")
    );
}

#[test]
fn shoes_hold_one_to_eight_decks_in_a_row() {
    for decks in 1..=8 {
        let shoe = Deck::shoe(decks).unwrap();
        assert_eq!(shoe.len(), 52 * decks);
        for copy in 0..decks {
            assert_eq!(
                shoe.labels()[copy * 52..(copy + 1) * 52],
                Deck::standard().labels()[..]
            );
        }
    }
    for decks in [0, 9, usize::MAX] {
        let err = Deck::shoe(decks).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidParameter);
        assert_eq!(
            err.message,
            format!("a shoe holds 1 to 8 decks, got {decks}")
        );
    }
}

#[test]
fn mahjong_tiles_follow_tenhou_numbering() {
    let plain = Deck::riichi(false);
    assert_eq!(plain.len(), 136);
    for (index, expected) in [
        (0, "1m"),
        (3, "1m"),
        (4, "2m"),
        (16, "5m"),
        (35, "9m"),
        (36, "1p"),
        (52, "5p"),
        (72, "1s"),
        (88, "5s"),
        (108, "1z"),
        (112, "2z"),
        (124, "5z"),
        (135, "7z"),
    ] {
        assert_eq!(label(&plain, index), expected, "tile {index}");
    }
    let red = Deck::riichi(true);
    for (index, expected) in [
        (16, "0m"),
        (17, "5m"),
        (52, "0p"),
        (53, "5p"),
        (88, "0s"),
        (91, "5s"),
    ] {
        assert_eq!(label(&red, index), expected, "tile {index}");
    }
    let differ: Vec<usize> = (0..136)
        .filter(|&i| plain.labels()[i] != red.labels()[i])
        .collect();
    assert_eq!(differ, [16, 52, 88]);
    // Four of each of 34 kinds.
    let mut labels = plain.labels().to_vec();
    labels.dedup();
    assert_eq!(labels.len(), 34);
    let flowers = Deck::mahjong_with_flowers();
    assert_eq!(flowers.len(), 144);
    assert_eq!(flowers.labels()[..136], plain.labels()[..]);
    assert_eq!(
        flowers.labels()[136..],
        ["1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f"]
    );
}

#[test]
fn a_deck_of_ones_own_needs_a_card_and_a_card_needs_its_deck() {
    let err = Deck::new("empty", vec![]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidParameter);
    assert_eq!(err.message, "deck \"empty\" has no card");
    let deck = Deck::new("three", vec!["a".into(), "b".into(), "b".into()]).unwrap();
    assert_eq!(deck.label(2).unwrap(), "b");
    let err = deck.label(3).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidParameter);
    assert_eq!(
        err.message,
        "card 3 is not in deck \"three\", whose cards are 0 to 2"
    );
}
