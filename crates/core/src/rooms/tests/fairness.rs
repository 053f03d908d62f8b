//! Each position of a Hold'em hand takes each card about equally, over many fixed keys; a
//! biased shuffle dealt through the same plan is caught.

use super::*;
use crate::rng::Stream;
use crate::rooms::kinds;
use dealcards_fairness::{naive_swap, sattolo, stats};

const ALPHA: f64 = 1e-4;
const SEATS: usize = 6;
const DEALS: u64 = 20_000;

/// Card-by-position counts: rows the 52 cards, columns the 20 positions of a six-seat hand (12
/// hole cards, 3 burns, 5 board cards, in the order dealt), then the 32 cards left undealt as
/// one column.
fn card_by_position(mut order_of: impl FnMut(u64) -> Vec<usize>) -> Vec<Vec<u64>> {
    let kind = kinds::holdem(SEATS).unwrap();
    let mut counts = vec![vec![0u64; 21]; 52];
    for k in 0..DEALS {
        let mut hand =
            Hand::from_order(kind.clone(), (k % SEATS as u64) as usize + 1, order_of(k)).unwrap();
        let dealt = deal_all(&mut hand);
        assert_eq!(dealt.len(), 20);
        let mut undealt = [true; 52];
        for (column, d) in dealt.iter().enumerate() {
            counts[d.card][column] += 1;
            undealt[d.card] = false;
        }
        for card in (0..52).filter(|&c| undealt[c]) {
            counts[card][20] += 1;
        }
    }
    counts
}

fn weights() -> Vec<f64> {
    let mut weights = vec![1.0; 20];
    weights.push(32.0);
    weights
}

#[test]
fn holdem_positions_take_every_card_equally_and_a_biased_shuffle_is_caught() {
    // The fair deal: each hand's order from its own fixed key, as Hand::new makes it.
    let kind = kinds::holdem(SEATS).unwrap();
    let fair = card_by_position(|k| Hand::new(kind.clone(), 1, key(k)).unwrap().order().to_vec());
    let test = stats::chi_square_matrix(&fair, &weights());
    assert_eq!(test.df, 51 * 20);
    assert!(test.p_value > ALPHA, "fair deal rejected: {test:?}");

    // Broken shuffles dealt through the same plan: the naive one (each position swapped with
    // any), and Sattolo's (no card stays where it was).
    for (name, broken) in [
        ("naive", naive_swap as fn(&mut [usize], &mut Stream)),
        ("Sattolo's", sattolo),
    ] {
        let biased = card_by_position(|k| {
            let mut order: Vec<usize> = (0..52).collect();
            broken(&mut order, &mut Stream::from_seed(key(k)));
            order
        });
        let test = stats::chi_square_matrix(&biased, &weights());
        assert!(test.p_value < ALPHA, "{name} shuffle not caught: {test:?}");
    }
}
