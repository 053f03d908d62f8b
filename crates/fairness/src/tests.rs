//! Unit tests of the battery: fair streams pass, every broken shuffle is rejected.

use super::*;

fn stream(seed: u8) -> Stream {
    Stream::from_seed([seed; 32])
}

/// Sizes at which a fair dealer passes and each broken one fails with a wide margin (see
/// the fairness notes: N >= 24,000 for 24 orders; a few thousand decks for the matrices).
const CI_SIZES: Sizes = Sizes {
    orders: 30_000,
    decks: 20_000,
    deals: 20_000,
};

#[test]
fn order_index_is_the_lexicographic_rank() {
    // The six orders of three cards, listed lexicographically by hand.
    let by_hand = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    for (rank, order) in by_hand.iter().enumerate() {
        assert_eq!(order_index(order), rank);
    }
    assert_eq!(order_index(&[0, 1, 2, 3, 4]), 0);
    assert_eq!(order_index(&[4, 3, 2, 1, 0]), 119);
    // 1 0 3 2: one smaller card after the 1 (weight 3! = 6), one after the 3 (weight 1).
    assert_eq!(order_index(&[1, 0, 3, 2]), 7);
}

#[test]
fn order_of_accepts_exactly_the_permutations() {
    assert_eq!(order_of(&[3, 1, 2], 1, 3), Ok(vec![2, 0, 1]));
    assert_eq!(order_of(&[-5, -6], -6, 2), Ok(vec![1, 0]));
    for bad in [
        &[1, 2][..],
        &[1, 1, 2],
        &[0, 1, 2],
        &[1, 2, 4],
        &[1, 2, 3, 4],
    ] {
        let err = order_of(bad, 1, 3).unwrap_err();
        assert!(
            err.message.starts_with("expected a permutation of 1..3"),
            "{err}"
        );
    }
    assert!(order_of(&[i32::MIN], i32::MAX, 1).is_err());
}

#[test]
fn matrices_count_by_hand() {
    let mut card_by_position = CardByPosition::new(3);
    card_by_position.record(&[2, 0, 1]);
    card_by_position.record(&[2, 1, 0]);
    assert_eq!(
        card_by_position.counts(),
        [vec![0, 1, 1], vec![0, 1, 1], vec![2, 0, 0]]
    );

    // Deal 1: 2 0 1, deal 2: 1 2 0. Card 2 goes from position 0 to 1, card 0 from 1 to 2,
    // card 1 from 2 to 0.
    let mut successive = SuccessiveDeals::new(3);
    successive.record(&[2, 0, 1]);
    successive.record(&[1, 2, 0]);
    assert_eq!(successive.pairs(), 1);
    assert_eq!(
        successive.pairs.counts,
        [vec![0, 1, 0], vec![0, 0, 1], vec![1, 0, 0]]
    );
    successive.start_sequence();
    successive.record(&[0, 1, 2]);
    assert_eq!(successive.pairs(), 1);

    let mut destinations = Destinations::default();
    let sorted: Vec<usize> = (0..DECK_SIZE).collect();
    destinations.record_deck(&sorted);
    assert_eq!(destinations.counts[0], [1, 0, 0, 0]);
    assert_eq!(destinations.counts[16], [1, 0, 0, 0]);
    assert_eq!(destinations.counts[17], [0, 1, 0, 0]);
    assert_eq!(destinations.counts[50], [0, 0, 1, 0]);
    assert_eq!(destinations.counts[51], [0, 0, 0, 1]);
    assert_eq!(destinations.test().df, 159);
}

#[test]
fn counts_in_exact_proportion_have_statistic_zero() {
    // 54 deals rotating the deck by 0..53 put every card 17, 17, 17 and 3 times in the four
    // destinations: exactly the expected counts.
    let mut destinations = Destinations::default();
    for shift in 0..DECK_SIZE {
        let mut deck: Vec<usize> = (0..DECK_SIZE).collect();
        deck.rotate_left(shift);
        destinations.record_deck(&deck);
    }
    let result = destinations.test();
    assert!(result.statistic.abs() < 1e-9, "{result:?}");
    assert_eq!(result.p_value, 1.0);
}

#[test]
fn broken_shuffles_are_permutations_with_their_known_flaws() {
    let mut s = stream(1);
    for _ in 0..200 {
        let mut deck: Vec<usize> = (0..DECK_SIZE).collect();
        sattolo(&mut deck, &mut s);
        // One cycle through all 54 cards: following card -> position from 0 returns to 0
        // only after 54 steps, so no card stays in place.
        let mut at = deck[0];
        let mut steps = 1;
        while at != 0 {
            at = deck[at];
            steps += 1;
        }
        assert_eq!(steps, DECK_SIZE);

        for shuffle in [naive_swap::<usize>, byte_modulo_fisher_yates::<usize>] {
            let mut deck: Vec<usize> = (0..DECK_SIZE).collect();
            shuffle(&mut deck, &mut s);
            let mut sorted = deck.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..DECK_SIZE).collect::<Vec<_>>());
        }
    }
}

#[test]
fn fisher_yates_passes_the_whole_battery() {
    for seed in [21, 22] {
        let mut dealer = FairDealer {
            stream: stream(seed),
        };
        let battery = Battery::run(&mut dealer, &CI_SIZES);
        let outcomes = battery.outcomes();
        assert_eq!(outcomes.len(), 7);
        for o in &outcomes {
            assert!(o.passes(), "seed {seed}: fair dealer failed {o:?}");
        }
        assert!(battery.orders.iter().all(|f| f.unseen() == 0));
        let dfs: Vec<u64> = outcomes.iter().map(|o| o.result.df).collect();
        assert_eq!(dfs, [5, 23, 119, 2809, 159, 2, 2809]);
    }
}

/// Runs a broken dealer and checks which tests reject it. The tests it must fail are those
/// its flaw reaches; the rest look at what it does fairly and must pass.
fn check_broken(shuffle: BrokenShuffle, seed: u8, must_fail: &[Test]) {
    let mut dealer = shuffle.dealer(stream(seed));
    let outcomes = Battery::run(&mut dealer, &CI_SIZES).outcomes();
    for o in &outcomes {
        if must_fail.contains(&o.test) {
            assert!(!o.passes(), "{} not caught by {o:?}", shuffle.name());
        } else {
            assert!(o.passes(), "{} wrongly failed {o:?}", shuffle.name());
        }
    }
}

#[test]
fn the_battery_rejects_the_naive_shuffle() {
    use Test::*;
    let flawed = [
        Orders(3),
        Orders(4),
        Orders(5),
        CardByPosition,
        Destinations,
        SuccessiveDeals,
    ];
    check_broken(BrokenShuffle::NaiveSwap, 31, &flawed);
}

#[test]
fn the_battery_rejects_sattolo() {
    use Test::*;
    let flawed = [
        Orders(3),
        Orders(4),
        Orders(5),
        CardByPosition,
        Destinations,
        SuccessiveDeals,
    ];
    check_broken(BrokenShuffle::Sattolo, 32, &flawed);
}

#[test]
fn the_battery_rejects_byte_modulo_scaling() {
    use Test::*;
    // 256 % 3 = 256 % 5 = 1 and 256 % 4 = 0: the small decks' bias (1 part in 85) is too
    // small to see at these sizes, which is why the scaling code itself must be exact. A
    // 54-card deck shows it plainly.
    let flawed = [CardByPosition, Destinations, Leader, SuccessiveDeals];
    check_broken(BrokenShuffle::ByteModulo, 33, &flawed);
}

#[test]
fn successive_deals_catch_a_deck_barely_reshuffled() {
    // A dealer who starts from a fair deck and then only swaps two random cards between
    // deals: every deal on its own is a uniform shuffle, but each is nearly the last one.
    let mut s = stream(34);
    let mut deck: Vec<usize> = (0..DECK_SIZE).collect();
    fisher_yates(&mut deck, &mut s, &mut || {});
    let mut successive = SuccessiveDeals::new(DECK_SIZE);
    for _ in 0..CI_SIZES.decks {
        let (i, j) = (s.below(DECK_SIZE as u32), s.below(DECK_SIZE as u32));
        deck.swap(i as usize, j as usize);
        successive.record(&deck);
    }
    assert!(!passes(&successive.test()), "{:?}", successive.test());
}

#[test]
fn position_pairs_reject_a_repeated_stream() {
    // Two backends that shared one stream would deal the same decks.
    let mut same = PositionPairs::new(DECK_SIZE);
    let mut fair = PositionPairs::new(DECK_SIZE);
    let (mut a, mut b) = (stream(41), stream(42));
    for _ in 0..2_000 {
        let mut deck: Vec<usize> = (0..DECK_SIZE).collect();
        fisher_yates(&mut deck, &mut a, &mut || {});
        same.record(&deck, &deck);
        let mut other: Vec<usize> = (0..DECK_SIZE).collect();
        fisher_yates(&mut other, &mut b, &mut || {});
        fair.record(&deck, &other);
    }
    assert!(passes(&fair.test()), "{:?}", fair.test());
    assert!(!passes(&same.test()), "{:?}", same.test());
}

#[test]
fn ordered_samples_judge_uniform_and_weighted_samples_and_catch_linear_weights() {
    let mut stream = Stream::from_seed([5; 32]);
    // A uniform sample of 3 of 5: the first 3 of a Fisher-Yates shuffle.
    let mut uniform = OrderedSamples::uniform(5, 3);
    for _ in 0..30_000 {
        let mut rows: Vec<usize> = (0..5).collect();
        fisher_yates(&mut rows, &mut stream, &mut || {});
        uniform.record(&rows[..3]);
    }
    assert!(passes(&uniform.test()), "{:?}", uniform.test());
    // Weighted by the keys random() * weight (the largest first): the wrong distribution.
    let weights = [1.0, 2.0, 3.0, 4.0, 0.0];
    let mut linear = OrderedSamples::weighted(&weights, 2);
    for _ in 0..40_000 {
        let mut keyed: Vec<(f64, usize)> = (0..4)
            .map(|i| (stream.next_u32() as f64 * weights[i], i))
            .collect();
        keyed.sort_by(|a, b| b.0.total_cmp(&a.0));
        linear.record(&[keyed[0].1, keyed[1].1]);
    }
    assert!(!passes(&linear.test()), "{:?}", linear.test());
    // A row of weight 0 drawn, or a repeated row, fails outright.
    let mut zero = OrderedSamples::weighted(&weights, 2);
    zero.record(&[4, 0]);
    assert_eq!(zero.test().p_value, 0.0);
    let mut repeated = OrderedSamples::uniform(5, 2);
    repeated.record(&[1, 1]);
    assert_eq!(repeated.test().p_value, 0.0);
}
