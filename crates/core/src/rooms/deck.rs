//! Decks as data: the faces of a deck in its canonical order, each with its label.
//!
//! A card is its index in the canonical order (0 to len - 1); a deck with copies of a face (a
//! shoe, Guandan's two decks, mahjong's four of each tile) gives each copy an index of its own
//! and the copies one label. docs/card_rooms.md lists every order byte for byte.

use crate::error::{Error, ErrorKind};
use crate::shuffle::MAX_ARRAY_ITEMS;

/// Ranks in the order of the numbering of `cards`: ace first, king last. `T` is ten, as PokerKit
/// and PBN write it.
const RANKS: [char; 13] = [
    'A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K',
];
/// Suits in the order of the numbering of `cards`: clubs, diamonds, hearts, spades.
const SUITS: [char; 4] = ['c', 'd', 'h', 's'];
/// The small (black) and the big (red) joker, as `cards` labels them.
const JOKERS: [&str; 2] = ["BJ", "RJ"];
/// The suits of mahjong tiles: characters (man), dots (pin), bamboo (sou).
const TILE_SUITS: [char; 3] = ['m', 'p', 's'];
/// Honour tiles: the winds east, south, west, north, then the white, green and red dragons.
const HONOURS: usize = 7;
/// The most decks a blackjack shoe holds.
pub const MAX_SHOE_DECKS: usize = 8;

/// A deck: its name and the label of each card, in canonical order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deck {
    name: String,
    labels: Vec<String>,
}

/// The label of card `i` (0..52) of the 52-card deck: rank then suit, `As`, `Td`, `2c`.
fn card_label(i: usize) -> String {
    format!("{}{}", RANKS[i / 4], SUITS[i % 4])
}

impl Deck {
    /// A deck of the given labels, in this order: at least one card, and no more than one array
    /// holds.
    pub fn new(name: impl Into<String>, labels: Vec<String>) -> Result<Self, Error> {
        let name = name.into();
        if labels.is_empty() {
            return Err(Error::invalid(format!("deck {name:?} has no card")));
        }
        if labels.len() > MAX_ARRAY_ITEMS {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!(
                    "deck {name:?} has {} cards, more than the {MAX_ARRAY_ITEMS} one array can hold",
                    labels.len()
                ),
            ));
        }
        Ok(Deck { name, labels })
    }

    fn built_in(name: &str, labels: Vec<String>) -> Self {
        Deck {
            name: name.to_string(),
            labels,
        }
    }

    /// The 52 cards in the numbering of `cards`: index = rank * 4 + suit, aces first, clubs
    /// first within a rank (card number - 1 of the Dou Dizhu deck).
    pub fn standard() -> Self {
        Deck::built_in("52", (0..52).map(card_label).collect())
    }

    /// The 52 cards, then the small joker `BJ` (52) and the big joker `RJ` (53): the Dou Dizhu
    /// deck, index = card number - 1.
    pub fn with_jokers() -> Self {
        let mut labels: Vec<String> = (0..52).map(card_label).collect();
        labels.extend(JOKERS.map(String::from));
        Deck::built_in("54", labels)
    }

    /// The short deck of 36 cards, sixes to aces: the 52-card order without the twos to fives.
    pub fn short() -> Self {
        let labels = (0..52)
            .filter(|i| !(1..=4).contains(&(i / 4)))
            .map(card_label)
            .collect();
        Deck::built_in("36", labels)
    }

    /// Two decks of 54, the second after the first (Guandan): index = copy * 54 + card.
    pub fn double_with_jokers() -> Self {
        let one = Deck::with_jokers().labels;
        Deck::built_in("108", [one.clone(), one].concat())
    }

    /// A blackjack shoe of 1 to 8 decks of 52, one deck after the other: index = copy * 52 +
    /// card.
    pub fn shoe(decks: usize) -> Result<Self, Error> {
        if !(1..=MAX_SHOE_DECKS).contains(&decks) {
            return Err(Error::invalid(format!(
                "a shoe holds 1 to {MAX_SHOE_DECKS} decks, got {decks}"
            )));
        }
        let one = Deck::standard().labels;
        Ok(Deck::built_in(
            &format!("shoe of {decks}"),
            (0..decks).flat_map(|_| one.iter().cloned()).collect(),
        ))
    }

    /// Riichi mahjong's 136 tiles, four of each of 34 kinds, index = kind * 4 + copy (the
    /// numbering of Tenhou's logs): `1m`..`9m`, `1p`..`9p`, `1s`..`9s`, then `1z`..`7z` (east,
    /// south, west, north, white, green, red). With `red_fives`, copy 0 of each five (indices
    /// 16, 52 and 88) is labelled `0m`, `0p`, `0s`; the tiles and their order are the same.
    pub fn riichi(red_fives: bool) -> Self {
        let labels = (0..136).map(|i| tile_label(i / 4, red_fives && i % 4 == 0));
        Deck::built_in(
            if red_fives { "136 red fives" } else { "136" },
            labels.collect(),
        )
    }

    /// The 136 tiles, then one of each of the four flowers `1f`..`4f` and the four seasons
    /// `5f`..`8f`: 144.
    pub fn mahjong_with_flowers() -> Self {
        let mut labels = Deck::riichi(false).labels;
        labels.extend((1..=8).map(|n| format!("{n}f")));
        Deck::built_in("144", labels)
    }

    /// The deck's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many cards the deck holds.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether the deck holds no card (never, for a deck that was built).
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The label of card `index`, or 22023 if the deck has no such card.
    pub fn label(&self, index: usize) -> Result<&str, Error> {
        self.labels.get(index).map(String::as_str).ok_or_else(|| {
            Error::invalid(format!(
                "card {index} is not in deck {:?}, whose cards are 0 to {}",
                self.name,
                self.len() - 1
            ))
        })
    }

    /// Every label, in canonical order.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }
}

/// The label of a tile kind 0..34; a red five shows as `0` in its suit.
fn tile_label(kind: usize, red: bool) -> String {
    if kind < 27 {
        let number = kind % 9 + 1;
        let digit = if red && number == 5 { 0 } else { number };
        format!("{digit}{}", TILE_SUITS[kind / 9])
    } else {
        debug_assert!(kind - 27 < HONOURS);
        format!("{}z", kind - 27 + 1)
    }
}
