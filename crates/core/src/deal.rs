//! Dealing hands from a shuffled deck (the SQL Server `dealCards` procedure's Dou Dizhu deal).
//!
//! Dou Dizhu deals the 54 cards to three seats: seat 1 gets the first 17 cards of the shuffled
//! deck, seat 2 the next 17, seat 3 the next 17, and the last 3 are the extra (landlord) cards.
//! The first bidder is drawn uniformly from the three seats after the shuffle, from the same
//! stream.

use crate::cards::{new_deck, DECK_SIZE};
use crate::error::{Error, ErrorKind};
use crate::rng::Stream;
use crate::scratch::Claim;
use crate::shuffle::{fisher_yates, MAX_ARRAY_ITEMS};

/// Seats at a Dou Dizhu desk.
pub const SEATS: usize = 3;
/// Cards each seat is dealt.
pub const HAND_SIZE: usize = 17;
/// Cards left over for the landlord.
pub const EXTRA_CARDS: usize = DECK_SIZE - SEATS * HAND_SIZE;

/// One Dou Dizhu deal: three hands, the extra cards and the seat that bids first (1..3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DouDizhuDeal {
    pub hands: [[i32; HAND_SIZE]; SEATS],
    pub extra: [i32; EXTRA_CARDS],
    pub leader: u8,
}

impl DouDizhuDeal {
    /// Shuffles a fresh deck with Fisher-Yates, splits it, then draws the first bidder.
    pub fn deal(stream: &mut Stream) -> Self {
        let mut deck = new_deck();
        fisher_yates(&mut deck, stream, &mut || {});
        let leader = leader(stream);
        DouDizhuDeal::from_shuffled(&deck, leader)
    }

    /// Splits a shuffled deck in dealing order: 17, 17, 17, then the 3 extra cards.
    pub fn from_shuffled(deck: &[i32; DECK_SIZE], leader: u8) -> Self {
        let mut chunks = deck.chunks_exact(HAND_SIZE);
        let hands = std::array::from_fn(|_| {
            chunks
                .next()
                .expect("the deck holds three hands")
                .try_into()
                .expect("a chunk holds one hand")
        });
        let extra = chunks
            .remainder()
            .try_into()
            .expect("three cards remain after three hands");
        DouDizhuDeal {
            hands,
            extra,
            leader,
        }
    }

    /// The seat the procedure's two opening bid records name: the one before the first bidder.
    pub fn opening_bid_seat(&self) -> u8 {
        previous_seat(self.leader)
    }
}

/// The seat that bids first, uniform in 1..3.
pub fn leader(stream: &mut Stream) -> u8 {
    stream.below(SEATS as u32) as u8 + 1
}

/// The seat before `seat` in turn order (1 -> 3, 2 -> 1, 3 -> 2): the procedure's `prevPlayer`.
pub fn previous_seat(seat: u8) -> u8 {
    debug_assert!((1..=SEATS as u8).contains(&seat));
    (seat + SEATS as u8 - 2) % SEATS as u8 + 1
}

/// A deal needs its desk's row: P0002 when there is none.
pub fn check_desk_exists(desk_id: i32, exists: bool) -> Result<(), Error> {
    if exists {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::NotFound,
            format!("desk {desk_id} does not exist"),
        ))
    }
}

/// A deal needs all three seats taken, and no more (a fourth seat is possible only where the
/// seat CHECK was dropped): 55000 with the number seated otherwise.
pub fn check_seats_taken(desk_id: i32, seated: i64) -> Result<(), Error> {
    if seated == SEATS as i64 {
        Ok(())
    } else if seated > SEATS as i64 {
        Err(Error::new(
            ErrorKind::NotReady,
            format!(
                "desk {desk_id} has {seated} players seated; a Dou Dizhu deal needs exactly {SEATS} (seats 1 to {SEATS})"
            ),
        ))
    } else {
        Err(Error::new(
            ErrorKind::NotReady,
            format!(
                "desk {desk_id} has {seated} of {SEATS} players seated; a deal needs all {SEATS}"
            ),
        ))
    }
}

/// Sizes for [`deal_hands`], checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DealSizes {
    pub players: usize,
    pub hand_size: usize,
    pub deck_size: usize,
}

impl DealSizes {
    /// Accepts at least one player with at least one card each from a deck that holds them all
    /// and fits in one array.
    pub fn new(players: i32, hand_size: i32, deck_size: i32) -> Result<Self, Error> {
        if players < 1 {
            return Err(Error::invalid(format!(
                "players must be at least 1, got {players}"
            )));
        }
        if hand_size < 1 {
            return Err(Error::invalid(format!(
                "hand_size must be at least 1, got {hand_size}"
            )));
        }
        if deck_size < 1 {
            return Err(Error::invalid(format!(
                "deck_size must be at least 1, got {deck_size}"
            )));
        }
        let dealt = players as i64 * hand_size as i64;
        if dealt > deck_size as i64 {
            return Err(Error::invalid(format!(
                "{players} hands of {hand_size} cards need {dealt} cards, more than the {deck_size} in the deck"
            )));
        }
        if deck_size as usize > MAX_ARRAY_ITEMS {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!(
                    "deck_size {deck_size} is more than the {MAX_ARRAY_ITEMS} cards one array can hold"
                ),
            ));
        }
        Ok(DealSizes {
            players: players as usize,
            hand_size: hand_size as usize,
            deck_size: deck_size as usize,
        })
    }
}

/// Shuffles cards 1..deck_size and deals `hand_size` cards to each seat 1..players in turn of
/// the deck, then gives seat 0 the undealt rest (possibly empty). Rows come in deck order:
/// seats 1, 2, ..., players, then 0.
pub fn deal_hands(
    sizes: DealSizes,
    stream: &mut Stream,
    check: &mut dyn FnMut(),
) -> Result<Vec<(i32, Vec<i32>)>, Error> {
    let _claim = Claim::new(
        sizes.deck_size.saturating_mul(size_of::<i32>()),
        &format!("a deck of {} cards", sizes.deck_size),
    )?;
    let mut deck: Vec<i32> = (1..=sizes.deck_size as i32).collect();
    fisher_yates(&mut deck, stream, check);
    let dealt = sizes.players * sizes.hand_size;
    let mut rows: Vec<(i32, Vec<i32>)> = deck[..dealt]
        .chunks_exact(sizes.hand_size)
        .enumerate()
        .map(|(k, hand)| (k as i32 + 1, hand.to_vec()))
        .collect();
    // The rest keeps the deck's own allocation: a big deck is not copied once more.
    deck.drain(..dealt);
    rows.push((0, deck));
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dealcards_fairness::stats;

    const ALPHA: f64 = 1e-4;

    fn seeded(seed: u8) -> Stream {
        Stream::from_seed([seed; 32])
    }

    fn all_cards(deal: &DouDizhuDeal) -> Vec<i32> {
        let mut cards: Vec<i32> = deal.hands.iter().flatten().copied().collect();
        cards.extend(deal.extra);
        cards
    }

    #[test]
    fn a_deal_uses_every_card_once() {
        let mut stream = seeded(1);
        for _ in 0..1000 {
            let deal = DouDizhuDeal::deal(&mut stream);
            let mut cards = all_cards(&deal);
            cards.sort_unstable();
            assert_eq!(cards, (1..=54).collect::<Vec<_>>());
            assert!((1..=3).contains(&deal.leader));
        }
    }

    #[test]
    fn deal_splits_the_fisher_yates_deck_then_draws_the_leader() {
        // The deck is the seeded shuffle of 1..54 for the counting seed, as computed by
        // tests/reference/seeded_shuffle.py (the same vector shuffle.rs pins); the first bidder
        // is that program's next `1 + below(3)` on the same stream (Stream.below after
        // fisher_yates), which gives 3.
        let counting: [u8; 32] = std::array::from_fn(|i| i as u8);
        let deal = DouDizhuDeal::deal(&mut Stream::from_seed(counting));
        assert_eq!(
            deal.hands,
            [
                [9, 29, 16, 43, 32, 49, 1, 24, 38, 20, 35, 47, 48, 46, 36, 52, 30],
                [28, 5, 50, 18, 23, 44, 37, 21, 10, 7, 4, 11, 13, 34, 3, 12, 33],
                [6, 14, 45, 41, 2, 26, 8, 39, 17, 19, 31, 42, 54, 51, 40, 53, 15],
            ]
        );
        assert_eq!(deal.extra, [25, 22, 27]);
        assert_eq!(deal.leader, 3);
        assert_eq!(deal.opening_bid_seat(), 2);
    }

    #[test]
    fn previous_seat_is_the_procedures_prev_player() {
        // The `dealCards` procedure: player_no = prevPlayer(first bidder), 1 -> 3, 2 -> 1, 3 -> 2.
        assert_eq!(previous_seat(1), 3);
        assert_eq!(previous_seat(2), 1);
        assert_eq!(previous_seat(3), 2);
    }

    #[test]
    fn a_desk_needs_its_row_and_three_players() {
        assert_eq!(check_desk_exists(7, true), Ok(()));
        assert_eq!(check_seats_taken(7, 3), Ok(()));
        let err = check_desk_exists(7, false).unwrap_err();
        assert_eq!(err.kind, ErrorKind::NotFound);
        assert_eq!(err.message, "desk 7 does not exist");
        let err = check_seats_taken(-4, 2).unwrap_err();
        assert_eq!(err.kind, ErrorKind::NotReady);
        assert_eq!(
            err.message,
            "desk -4 has 2 of 3 players seated; a deal needs all 3"
        );
        let err = check_seats_taken(8, 0).unwrap_err();
        assert_eq!(
            err.message,
            "desk 8 has 0 of 3 players seated; a deal needs all 3"
        );
        let err = check_seats_taken(9, 4).unwrap_err();
        assert_eq!(err.kind, ErrorKind::NotReady);
        assert_eq!(
            err.message,
            "desk 9 has 4 players seated; a Dou Dizhu deal needs exactly 3 (seats 1 to 3)"
        );
    }

    #[test]
    fn deal_sizes_refuse_nonsense() {
        assert_eq!(
            DealSizes::new(3, 17, 54),
            Ok(DealSizes {
                players: 3,
                hand_size: 17,
                deck_size: 54
            })
        );
        for (p, h, d, message) in [
            (0, 17, 54, "players must be at least 1, got 0"),
            (3, 0, 54, "hand_size must be at least 1, got 0"),
            (3, -1, 54, "hand_size must be at least 1, got -1"),
            (3, 17, 0, "deck_size must be at least 1, got 0"),
            (
                4,
                17,
                54,
                "4 hands of 17 cards need 68 cards, more than the 54 in the deck",
            ),
            (
                i32::MAX,
                i32::MAX,
                i32::MAX,
                "2147483647 hands of 2147483647 cards need 4611686014132420609 cards, more than the 2147483647 in the deck",
            ),
        ] {
            let err = DealSizes::new(p, h, d).unwrap_err();
            assert_eq!(err.kind, ErrorKind::InvalidParameter);
            assert_eq!(err.message, message);
        }
        let err = DealSizes::new(1, 1, i32::MAX).unwrap_err();
        assert_eq!(err.kind, ErrorKind::TooLarge);
    }

    #[test]
    fn deal_hands_deals_in_deck_order_with_the_rest_on_seat_zero() {
        let counting: [u8; 32] = std::array::from_fn(|i| i as u8);
        let sizes = DealSizes::new(3, 17, 54).unwrap();
        let rows = deal_hands(sizes, &mut Stream::from_seed(counting), &mut || {}).unwrap();
        let dou_dizhu = DouDizhuDeal::deal(&mut Stream::from_seed(counting));
        let seats: Vec<i32> = rows.iter().map(|r| r.0).collect();
        assert_eq!(seats, [1, 2, 3, 0]);
        for (row, hand) in rows.iter().zip(&dou_dizhu.hands) {
            assert_eq!(row.1, hand);
        }
        assert_eq!(rows[3].1, dou_dizhu.extra);

        let rows = deal_hands(
            DealSizes::new(4, 13, 52).unwrap(),
            &mut seeded(2),
            &mut || {},
        )
        .unwrap();
        assert_eq!(rows.len(), 5);
        assert!(rows[..4].iter().all(|r| r.1.len() == 13));
        assert!(rows[4].1.is_empty());
        let mut cards: Vec<i32> = rows.iter().flat_map(|r| r.1.clone()).collect();
        cards.sort_unstable();
        assert_eq!(cards, (1..=52).collect::<Vec<_>>());
    }

    /// Card-by-destination counts: rows are cards 1..54, columns seat 1, 2, 3 and the extra.
    fn card_by_destination(deals: impl Iterator<Item = DouDizhuDeal>) -> Vec<Vec<u64>> {
        let mut counts = vec![vec![0u64; 4]; DECK_SIZE];
        for deal in deals {
            for (seat, hand) in deal.hands.iter().enumerate() {
                for &card in hand {
                    counts[card as usize - 1][seat] += 1;
                }
            }
            for &card in &deal.extra {
                counts[card as usize - 1][3] += 1;
            }
        }
        counts
    }

    use dealcards_fairness::DESTINATION_WEIGHTS;

    /// A dealer shuffling with a broken shuffle from the fairness module.
    fn broken_deal(shuffle: fn(&mut [i32], &mut Stream), stream: &mut Stream) -> DouDizhuDeal {
        let mut deck = new_deck();
        shuffle(&mut deck, stream);
        DouDizhuDeal::from_shuffled(&deck, leader(stream))
    }

    #[test]
    fn card_by_destination_is_17_17_17_3_and_catches_biased_dealers() {
        let deals = 20_000;
        let mut stream = seeded(21);
        let fair = card_by_destination((0..deals).map(|_| DouDizhuDeal::deal(&mut stream)));
        let test = stats::chi_square_matrix(&fair, &DESTINATION_WEIGHTS);
        assert_eq!(test.df, 159);
        assert!(test.p_value > ALPHA, "fair dealer rejected: {test:?}");

        let mut stream = seeded(21);
        let naive = card_by_destination(
            (0..deals).map(|_| broken_deal(dealcards_fairness::naive_swap, &mut stream)),
        );
        let test = stats::chi_square_matrix(&naive, &DESTINATION_WEIGHTS);
        assert!(test.p_value < ALPHA, "naive shuffle not caught: {test:?}");

        let mut stream = seeded(21);
        let sattolo = card_by_destination(
            (0..deals).map(|_| broken_deal(dealcards_fairness::sattolo, &mut stream)),
        );
        let test = stats::chi_square_matrix(&sattolo, &DESTINATION_WEIGHTS);
        assert!(
            test.p_value < ALPHA,
            "Sattolo's algorithm not caught: {test:?}"
        );
    }

    fn leader_counts(draws: usize, mut draw: impl FnMut() -> u8) -> Vec<u64> {
        let mut counts = vec![0u64; SEATS];
        for _ in 0..draws {
            counts[draw() as usize - 1] += 1;
        }
        counts
    }

    #[test]
    fn the_leader_is_uniform_and_a_byte_modulo_draw_is_caught() {
        // The byte modulo draw below gives seat 1 86 times in 256 instead of 85 1/3: over three
        // million draws its expected chi-square is about 93 (df 2), four standard deviations
        // above the 18.4 that p = 1e-4 needs, so the control is not a coin flip.
        let draws = 3_000_000;
        let mut stream = seeded(22);
        let fair = leader_counts(draws, || leader(&mut stream));
        let test = stats::chi_square_uniform(&fair);
        assert_eq!(test.df, 2);
        assert!(test.p_value > ALPHA, "fair first bidder rejected: {test:?}");

        // The `abs(checksum(newid())) % 3 + 1` shape of the procedure, with an 8-bit random value.
        let mut stream = seeded(22);
        let biased = leader_counts(draws, || (stream.next_u32() as u8) % 3 + 1);
        let test = stats::chi_square_uniform(&biased);
        assert!(
            test.p_value < ALPHA,
            "biased first bidder not caught: {test:?}"
        );
    }

    #[test]
    fn the_deals_leader_is_uniform_too() {
        // The same check over whole deals: the draw after the shuffle is not tied to it.
        let mut stream = seeded(23);
        let counts = leader_counts(30_000, || DouDizhuDeal::deal(&mut stream).leader);
        let test = stats::chi_square_uniform(&counts);
        assert!(
            test.p_value > ALPHA,
            "deal's first bidder rejected: {test:?}"
        );
    }
}
