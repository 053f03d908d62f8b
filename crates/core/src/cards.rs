//! The 54-card deck: card numbers, labels and Dou Dizhu order.
//!
//! Cards are numbered 1..54, in the order of Microsoft's FreeCell deal: for c in 1..52 the suit
//! is (c-1) % 4 (clubs, diamonds, hearts, spades) and the rank (c-1) / 4 (A, 2, ..., K); 53 is
//! the small (black) joker and 54 the big (red) joker.

use crate::error::Error;

/// How many cards the Dou Dizhu deck holds.
pub const DECK_SIZE: usize = 54;
/// The small (black) joker.
pub const SMALL_JOKER: i32 = 53;
/// The big (red) joker.
pub const BIG_JOKER: i32 = 54;

const RANKS: [&str; 13] = [
    "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
];
const SUITS: [&str; 4] = ["♣", "♦", "♥", "♠"];
const SMALL_JOKER_LABEL: &str = "BJ";
const BIG_JOKER_LABEL: &str = "RJ";

/// The deck in card-number order, 1..54.
pub fn new_deck() -> [i32; DECK_SIZE] {
    std::array::from_fn(|k| k as i32 + 1)
}

/// The card's position in 0..54, or 22023 if it is not a card of the deck.
fn index(card: i32) -> Result<usize, Error> {
    if (1..=DECK_SIZE as i32).contains(&card) {
        Ok(card as usize - 1)
    } else {
        Err(Error::invalid(format!(
            "card {card} is not a card: cards are numbered 1 to {DECK_SIZE}"
        )))
    }
}

/// A short readable label: rank then suit symbol (`10♥`), `BJ` for the small (black) joker and
/// `RJ` for the big (red) joker.
pub fn label(card: i32) -> Result<String, Error> {
    let i = index(card)?;
    Ok(match card {
        SMALL_JOKER => SMALL_JOKER_LABEL.to_string(),
        BIG_JOKER => BIG_JOKER_LABEL.to_string(),
        _ => format!("{}{}", RANKS[i / 4], SUITS[i % 4]),
    })
}

/// The card's strength in Dou Dizhu, 0..54, lowest first: 3 4 5 6 7 8 9 10 J Q K A 2, then the
/// small and the big joker; within a rank the suit order (clubs lowest) breaks the tie, so every
/// card has its own place.
pub fn dou_dizhu_order(card: i32) -> Result<u8, Error> {
    let i = index(card)?;
    if i >= 52 {
        return Ok(i as u8);
    }
    // Rank 0 is the ace: moving every rank down by two (mod 13) puts 3 first and 2 last.
    let strength = (i / 4 + 11) % 13;
    Ok((strength * 4 + i % 4) as u8)
}

/// Sorts a hand into Dou Dizhu order, lowest first. Refuses a value that is not a card.
pub fn sort_hand(cards: &mut [i32]) -> Result<(), Error> {
    for &card in cards.iter() {
        index(card)?;
    }
    cards.sort_unstable_by_key(|&card| dou_dizhu_order(card).unwrap_or(u8::MAX));
    Ok(())
}

/// The hand sorted into Dou Dizhu order as one line of labels separated by spaces.
pub fn hand_labels(cards: &[i32]) -> Result<String, Error> {
    let mut sorted = cards.to_vec();
    sort_hand(&mut sorted)?;
    let labels: Result<Vec<String>, Error> = sorted.iter().map(|&c| label(c)).collect();
    Ok(labels?.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn labels_follow_the_freecell_numbering() {
        // By hand from the definition: c = rank * 4 + suit + 1.
        let cases = [
            (1, "A♣"),
            (2, "A♦"),
            (3, "A♥"),
            (4, "A♠"),
            (5, "2♣"),
            (9, "3♣"),
            (37, "10♣"),
            (39, "10♥"),
            (41, "J♣"),
            (46, "Q♦"),
            (52, "K♠"),
            (53, "BJ"),
            (54, "RJ"),
        ];
        for (card, expected) in cases {
            assert_eq!(label(card).unwrap(), expected, "card {card}");
        }
    }

    #[test]
    fn every_card_has_its_own_label() {
        let mut labels: Vec<String> = new_deck().iter().map(|&c| label(c).unwrap()).collect();
        labels.sort();
        labels.dedup();
        assert_eq!(labels.len(), DECK_SIZE);
    }

    #[test]
    fn out_of_range_cards_are_rejected() {
        for card in [0, -1, 55, i32::MIN, i32::MAX] {
            let err = label(card).unwrap_err();
            assert_eq!(err.kind, ErrorKind::InvalidParameter);
            assert_eq!(
                err.message,
                format!("card {card} is not a card: cards are numbered 1 to 54")
            );
            assert!(dou_dizhu_order(card).is_err());
            assert!(sort_hand(&mut [1, card]).is_err());
            assert!(hand_labels(&[card]).is_err());
        }
    }

    #[test]
    fn dou_dizhu_order_is_three_to_two_then_jokers() {
        // The whole deck in Dou Dizhu order, written out by hand: 3♣ (9) is lowest, 2♠ (8)
        // the highest suited card, then the small and the big joker.
        let mut expected = Vec::new();
        for rank in [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1, 2] {
            for suit in 0..4 {
                expected.push((rank - 1) * 4 + suit + 1);
            }
        }
        expected.extend([53, 54]);
        let mut deck = new_deck();
        deck.reverse();
        sort_hand(&mut deck).unwrap();
        assert_eq!(deck.to_vec(), expected);
        let orders: Vec<u8> = expected
            .iter()
            .map(|&c| dou_dizhu_order(c).unwrap())
            .collect();
        assert_eq!(orders, (0..54).collect::<Vec<u8>>());
    }

    #[test]
    fn hand_labels_are_sorted_and_space_separated() {
        assert_eq!(
            hand_labels(&[54, 1, 9, 39, 8, 53, 12]).unwrap(),
            "3♣ 3♠ 10♥ A♣ 2♠ BJ RJ"
        );
        assert_eq!(hand_labels(&[]).unwrap(), "");
        // Two decks' worth of the same card still sort; nothing requires distinct cards.
        assert_eq!(hand_labels(&[5, 5, 9]).unwrap(), "3♣ 2♣ 2♣");
    }
}
