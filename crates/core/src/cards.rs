//! The 54-card deck: card numbers, labels and Dou Dizhu order.
//!
//! Cards are numbered 1..54, in the order of Microsoft's FreeCell deal: for c in 1..52 the suit
//! is (c-1) % 4 (clubs, diamonds, hearts, spades) and the rank (c-1) / 4 (A, 2, ..., K); 53 is
//! the small (black) joker and 54 the big (red) joker.

use crate::error::Error;
use crate::shuffle::CHECK_EVERY;

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

/// How a label shows the suits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suits {
    /// ♣ ♦ ♥ ♠ (UTF-8), as the games show them.
    Symbols,
    /// C D H S, for text that must stay ASCII (a database whose encoding lacks the symbols).
    Letters,
}

impl Suits {
    /// The suit 0..4 (clubs, diamonds, hearts, spades) as this style shows it.
    pub fn of(self, suit: usize) -> &'static str {
        match self {
            Suits::Symbols => SUITS[suit],
            Suits::Letters => ["C", "D", "H", "S"][suit],
        }
    }
}

/// A short readable label: rank then suit (`10♥`, or `10H` with letters), `BJ` for the small
/// (black) joker and `RJ` for the big (red) joker.
pub fn label(card: i32, suits: Suits) -> Result<String, Error> {
    let i = index(card)?;
    Ok(label_of_index(i, suits))
}

fn label_of_index(i: usize, suits: Suits) -> String {
    match i + 1 {
        c if c as i32 == SMALL_JOKER => SMALL_JOKER_LABEL.to_string(),
        c if c as i32 == BIG_JOKER => BIG_JOKER_LABEL.to_string(),
        _ => format!("{}{}", RANKS[i / 4], suits.of(i % 4)),
    }
}

/// The card's strength in Dou Dizhu, 0..54, lowest first: 3 4 5 6 7 8 9 10 J Q K A 2, then the
/// small and the big joker; within a rank the suit order (clubs lowest) breaks the tie, so every
/// card has its own place.
pub fn dou_dizhu_order(card: i32) -> Result<u8, Error> {
    Ok(order_of_index(index(card)?))
}

fn order_of_index(i: usize) -> u8 {
    if i >= 52 {
        return i as u8;
    }
    // Rank 0 is the ace: moving every rank down by two (mod 13) puts 3 first and 2 last.
    let strength = (i / 4 + 11) % 13;
    (strength * 4 + i % 4) as u8
}

/// The card at each place of the Dou Dizhu order: the inverse of [`dou_dizhu_order`].
fn cards_in_order() -> [i32; DECK_SIZE] {
    let mut cards = [0; DECK_SIZE];
    for i in 0..DECK_SIZE {
        cards[usize::from(order_of_index(i))] = i as i32 + 1;
    }
    cards
}

/// How often each card occurs in a hand, by its place in the Dou Dizhu order: a hand sorted is
/// these counts written out in order, so sorting and labelling are linear in the hand's length
/// and never compare two cards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hand {
    counts: [usize; DECK_SIZE],
    len: usize,
}

impl Hand {
    /// Counts the cards, refusing a value that is not a card; `check` runs every
    /// [`CHECK_EVERY`] cards, so a huge hand can be cancelled.
    pub fn count(
        cards: impl IntoIterator<Item = Result<i32, Error>>,
        check: &mut dyn FnMut(),
    ) -> Result<Self, Error> {
        let mut counts = [0; DECK_SIZE];
        let mut len = 0;
        for card in cards {
            counts[usize::from(order_of_index(index(card?)?))] += 1;
            len += 1;
            if len % CHECK_EVERY == 0 {
                check();
            }
        }
        Ok(Hand { counts, len })
    }

    /// How many cards the hand holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the hand holds no card.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Writes the hand in Dou Dizhu order into `out` (exactly [`Hand::len`] long).
    pub fn write_sorted(&self, out: &mut [i32], check: &mut dyn FnMut()) {
        let mut at = 0;
        for (place, card) in cards_in_order().into_iter().enumerate() {
            for chunk in out[at..at + self.counts[place]].chunks_mut(CHECK_EVERY) {
                chunk.fill(card);
                check();
            }
            at += self.counts[place];
        }
    }

    /// The bytes of the hand's labels, sorted and separated by single spaces.
    pub fn labels_len(&self, suits: Suits) -> usize {
        let labels: usize = (0..DECK_SIZE)
            .map(|place| self.counts[place] * label_of_index(place_index(place), suits).len())
            .sum();
        labels + self.len.saturating_sub(1)
    }

    /// Writes the hand's labels into `out` (exactly [`Hand::labels_len`] long).
    pub fn write_labels(&self, suits: Suits, out: &mut [u8], check: &mut dyn FnMut()) {
        let mut at = 0;
        let mut written = 0;
        for place in 0..DECK_SIZE {
            let label = label_of_index(place_index(place), suits);
            for _ in 0..self.counts[place] {
                if written > 0 {
                    out[at] = b' ';
                    at += 1;
                }
                out[at..at + label.len()].copy_from_slice(label.as_bytes());
                at += label.len();
                written += 1;
                if written % CHECK_EVERY == 0 {
                    check();
                }
            }
        }
        debug_assert_eq!(at, out.len());
    }
}

/// The deck index (card - 1) of the card at a place of the Dou Dizhu order.
fn place_index(place: usize) -> usize {
    cards_in_order()[place] as usize - 1
}

/// Sorts a hand into Dou Dizhu order, lowest first. Refuses a value that is not a card.
pub fn sort_hand(cards: &mut [i32]) -> Result<(), Error> {
    let hand = Hand::count(cards.iter().map(|&c| Ok(c)), &mut || {})?;
    hand.write_sorted(cards, &mut || {});
    Ok(())
}

/// The hand sorted into Dou Dizhu order as one line of labels separated by spaces.
pub fn hand_labels(cards: &[i32], suits: Suits) -> Result<String, Error> {
    let hand = Hand::count(cards.iter().map(|&c| Ok(c)), &mut || {})?;
    let mut out = vec![0; hand.labels_len(suits)];
    hand.write_labels(suits, &mut out, &mut || {});
    Ok(String::from_utf8(out).expect("labels are UTF-8"))
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
            assert_eq!(
                label(card, Suits::Symbols).unwrap(),
                expected,
                "card {card}"
            );
        }
    }

    #[test]
    fn every_card_has_its_own_label() {
        let mut labels: Vec<String> = new_deck()
            .iter()
            .map(|&c| label(c, Suits::Symbols).unwrap())
            .collect();
        labels.sort();
        labels.dedup();
        assert_eq!(labels.len(), DECK_SIZE);
    }

    #[test]
    fn out_of_range_cards_are_rejected() {
        for card in [0, -1, 55, i32::MIN, i32::MAX] {
            let err = label(card, Suits::Symbols).unwrap_err();
            assert_eq!(err.kind, ErrorKind::InvalidParameter);
            assert_eq!(
                err.message,
                format!("card {card} is not a card: cards are numbered 1 to 54")
            );
            assert!(dou_dizhu_order(card).is_err());
            assert!(sort_hand(&mut [1, card]).is_err());
            assert!(hand_labels(&[card], Suits::Symbols).is_err());
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
            hand_labels(&[54, 1, 9, 39, 8, 53, 12], Suits::Symbols).unwrap(),
            "3♣ 3♠ 10♥ A♣ 2♠ BJ RJ"
        );
        assert_eq!(hand_labels(&[], Suits::Symbols).unwrap(), "");
        // Two decks' worth of the same card still sort; nothing requires distinct cards.
        assert_eq!(hand_labels(&[5, 5, 9], Suits::Symbols).unwrap(), "3♣ 2♣ 2♣");
    }

    #[test]
    fn letters_keep_labels_ascii() {
        assert_eq!(label(39, Suits::Letters).unwrap(), "10H");
        assert_eq!(label(1, Suits::Letters).unwrap(), "AC");
        assert_eq!(label(53, Suits::Letters).unwrap(), "BJ");
        assert_eq!(
            hand_labels(&[54, 1, 9, 39, 8, 53, 12], Suits::Letters).unwrap(),
            "3C 3S 10H AC 2S BJ RJ"
        );
        for card in new_deck() {
            assert!(label(card, Suits::Letters).unwrap().is_ascii());
        }
    }

    /// Counting gives what comparing gives: the hands of many sizes, with repeats, sorted both
    /// ways, and labelled both ways.
    #[test]
    fn counting_sorts_and_labels_as_comparing_does() {
        let mut stream = crate::rng::Stream::from_seed([7; 32]);
        for len in [0, 1, 2, 17, 54, 200, 5000] {
            let hand: Vec<i32> = (0..len).map(|_| stream.below(54) as i32 + 1).collect();
            let mut compared = hand.clone();
            compared.sort_by_key(|&c| dou_dizhu_order(c).unwrap());
            let mut counted = hand.clone();
            sort_hand(&mut counted).unwrap();
            assert_eq!(counted, compared, "{len} cards");
            for suits in [Suits::Symbols, Suits::Letters] {
                let joined: Vec<String> =
                    compared.iter().map(|&c| label(c, suits).unwrap()).collect();
                assert_eq!(hand_labels(&hand, suits).unwrap(), joined.join(" "));
            }
        }
    }

    #[test]
    fn a_huge_hand_checks_for_cancellation() {
        let cards = vec![5; 3 * CHECK_EVERY + 1];
        let mut checks = 0;
        let hand = Hand::count(cards.iter().map(|&c| Ok(c)), &mut || checks += 1).unwrap();
        assert_eq!(checks, 3, "counting");
        let mut out = vec![0; hand.len()];
        let mut checks = 0;
        hand.write_sorted(&mut out, &mut || checks += 1);
        assert_eq!(checks, 4, "writing: one check per chunk");
        let mut text = vec![0; hand.labels_len(Suits::Letters)];
        let mut checks = 0;
        hand.write_labels(Suits::Letters, &mut text, &mut || checks += 1);
        assert_eq!(checks, 3, "labelling");
        assert_eq!(text.len(), 2 * cards.len() + cards.len() - 1);
    }

    #[test]
    fn counting_stops_at_the_first_bad_card() {
        let cards = [Ok(1), Err(Error::invalid("NULL")), Ok(99)];
        assert_eq!(Hand::count(cards, &mut || {}).unwrap_err().message, "NULL");
        let err = Hand::count([Ok(1), Ok(99)], &mut || {}).unwrap_err();
        assert_eq!(
            err.message,
            "card 99 is not a card: cards are numbered 1 to 54"
        );
    }
}
