//! Unit tests of `spread`, in a file of their own: the module reads without them.

use super::*;
use dealcards_fairness::stats;
use dealcards_fairness::{naive_swap, order_index};
use std::cmp::Reverse;
use std::collections::HashMap;

const ALPHA: f64 = 1e-4;

fn seeded(seed: u8) -> Stream {
    Stream::from_seed([seed; 32])
}

/// Items of groups with these sizes, the groups interleaved in the input (item i of the input
/// belongs to the group that still has the most items to hand out, ties to the lower group), so
/// that group numbers and input positions are not simply aligned.
fn items_of_sizes(sizes: &[u32]) -> Vec<u32> {
    let mut left = sizes.to_vec();
    let n: u32 = sizes.iter().sum();
    (0..n)
        .map(|_| {
            let g = (0..left.len())
                .max_by_key(|&g| (left[g], Reverse(g)))
                .unwrap();
            left[g] -= 1;
            g as u32
        })
        .collect()
}

/// The groups numbered as `spread` wants them (first appearance order).
fn numbered(labels: &[u32]) -> (Vec<u32>, usize) {
    let (numbers, count) = number_groups(labels.len(), |i| labels[i], &mut || {}).unwrap();
    (numbers.to_vec(), count)
}

fn spread_of(labels: &[u32], stream: &mut Stream, rules: Rules) -> Vec<u32> {
    let (groups, count) = numbered(labels);
    spread_with(&groups, count, None, stream, &mut || {}, rules)
        .unwrap()
        .to_vec()
}

fn sizes_of(groups: &[u32]) -> Vec<u32> {
    let mut sizes = HashMap::new();
    for &g in groups {
        *sizes.entry(g).or_insert(0u32) += 1;
    }
    sizes.into_values().collect()
}

fn is_permutation(order: &[u32], n: usize) -> bool {
    let mut sorted = order.to_vec();
    sorted.sort_unstable();
    sorted.iter().enumerate().all(|(i, &v)| v as usize == i) && sorted.len() == n
}

/// The true fewest same-group neighbours of orders of these sizes after an item of group
/// `previous`, by exhaustive search.
fn exhaustive_fewest(
    left: &mut Vec<u32>,
    previous: Option<usize>,
    memo: &mut HashMap<(Vec<u32>, Option<usize>), usize>,
) -> usize {
    if left.iter().all(|&c| c == 0) {
        return 0;
    }
    if let Some(&known) = memo.get(&(left.clone(), previous)) {
        return known;
    }
    let mut best = usize::MAX;
    for g in 0..left.len() {
        if left[g] > 0 {
            left[g] -= 1;
            let cost = usize::from(previous == Some(g)) + exhaustive_fewest(left, Some(g), memo);
            left[g] += 1;
            best = best.min(cost);
        }
    }
    memo.insert((left.clone(), previous), best);
    best
}

#[test]
fn the_fewest_neighbours_formula_is_the_exhaustive_minimum() {
    let mut memo = HashMap::new();
    let mut checked = 0;
    for a in 0..=7u32 {
        for b in 0..=a.min(5) {
            for c in 0..=b.min(4) {
                for d in 0..=c.min(3) {
                    let sizes = vec![a, b, c, d];
                    let exhaustive = exhaustive_fewest(&mut sizes.clone(), None, &mut memo);
                    assert_eq!(fewest_neighbours(&sizes), exhaustive, "{sizes:?}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100);
}

#[test]
fn every_small_composition_gets_the_fewest_neighbours() {
    // Every composition of up to 4 groups with the sizes above, and many seeds each: the spread
    // is a permutation and has exactly the fewest neighbours possible.
    let mut stream = seeded(1);
    for a in 1..=7u32 {
        for b in 0..=a.min(5) {
            for c in 0..=b.min(4) {
                for d in 0..=c.min(3) {
                    let sizes: Vec<u32> = [a, b, c, d].into_iter().filter(|&s| s > 0).collect();
                    let labels = items_of_sizes(&sizes);
                    for _ in 0..40 {
                        let order = spread_of(&labels, &mut stream, Rules::FAIR);
                        assert!(is_permutation(&order, labels.len()));
                        assert_eq!(
                            same_group_neighbours(&order, &labels),
                            fewest_neighbours(&sizes),
                            "{sizes:?}: {order:?}"
                        );
                    }
                }
            }
        }
    }
}

/// Group sizes drawn for a property test: a few shapes, each with random parameters.
fn random_sizes(stream: &mut Stream, shape: u32) -> Vec<u32> {
    let groups = 1 + stream.below(60) as usize;
    match shape {
        // Uniform sizes 1..=20.
        0 => (0..groups).map(|_| 1 + stream.below(20)).collect(),
        // Zipf-like: group r has about top / (r + 1) items.
        1 => {
            let top = 1 + stream.below(80);
            (0..groups).map(|r| (top / (r as u32 + 1)).max(1)).collect()
        }
        // One dominant group: as large as all the others together, give or take a few.
        2 => {
            let mut sizes: Vec<u32> = (0..groups).map(|_| 1 + stream.below(6)).collect();
            let others: u32 = sizes.iter().skip(1).sum();
            sizes[0] = (others + stream.below(7)).saturating_sub(3).max(1);
            sizes
        }
        // Far too dominant: neighbours are unavoidable.
        3 => {
            let mut sizes: Vec<u32> = (0..groups.min(8)).map(|_| 1 + stream.below(4)).collect();
            let others: u32 = sizes.iter().skip(1).sum();
            sizes[0] = others * (2 + stream.below(4)) + stream.below(5);
            sizes
        }
        // Equal sizes.
        _ => vec![1 + stream.below(12); groups],
    }
}

#[test]
fn random_compositions_get_the_fewest_neighbours() {
    let mut sizes_stream = seeded(2);
    let mut stream = seeded(3);
    for case in 0..3000 {
        let mut sizes = random_sizes(&mut sizes_stream, case % 5);
        // The largest group anywhere in the input order, not always the first seen.
        let at = sizes_stream.below(sizes.len() as u32) as usize;
        sizes.swap(0, at);
        let labels: Vec<u32> = items_of_sizes(&sizes).iter().map(|&g| g * 7 + 3).collect();
        let order = spread_of(&labels, &mut stream, Rules::FAIR);
        assert!(is_permutation(&order, labels.len()));
        assert_eq!(
            same_group_neighbours(&order, &labels),
            fewest_neighbours(&sizes),
            "case {case}, sizes {sizes:?}"
        );
    }
}

#[test]
fn a_shuffle_of_one_group_or_of_singletons_is_still_a_permutation() {
    let mut stream = seeded(4);
    for labels in [vec![], vec![5], vec![5; 9], (0..9).collect::<Vec<u32>>()] {
        let order = spread_of(&labels, &mut stream, Rules::FAIR);
        assert!(is_permutation(&order, labels.len()));
        assert_eq!(
            same_group_neighbours(&order, &labels),
            fewest_neighbours(&sizes_of(&labels))
        );
    }
}

#[test]
fn groups_are_numbered_in_order_of_first_appearance() {
    let keys = ["b", "a", "b", "c", "a", "b", ""];
    let (numbers, count) = number_groups(keys.len(), |i| keys[i].as_bytes(), &mut || {}).unwrap();
    assert_eq!(count, 4);
    assert_eq!(&numbers[..], [0, 1, 0, 2, 1, 0, 3]);
    let (numbers, count) = number_groups(0, |_| 0u8, &mut || {}).unwrap();
    assert_eq!((numbers.len(), count), (0, 0));
}

/// How often each order of one group's items (the first `group_size` input items that belong
/// to group 0) appears, over `draws` spreads of `labels`.
fn within_group_orders(labels: &[u32], rules: Rules, draws: usize, seed: u8) -> Vec<u64> {
    let members: Vec<u32> = (0..labels.len() as u32)
        .filter(|&i| labels[i as usize] == labels[0])
        .collect();
    assert_eq!(members.len(), 4);
    let mut counts = vec![0u64; 24];
    let mut stream = seeded(seed);
    for _ in 0..draws {
        let order = spread_of(labels, &mut stream, rules);
        let seen: Vec<usize> = order
            .iter()
            .filter_map(|item| members.iter().position(|m| m == item))
            .collect();
        counts[order_index(&seen)] += 1;
    }
    counts
}

const NAIVE_IN_GROUP: Rules = Rules {
    shuffle_group: |items, stream, _| naive_swap(items, stream),
    draw_first: true,
};

#[test]
fn order_within_a_group_is_uniform_and_catches_a_naive_group_shuffle() {
    // A group of 4 among others, and a dominant group of 4 (with neighbours unavoidable).
    for (labels, seed) in [
        (items_of_sizes(&[4, 3, 2, 1]), 20),
        (vec![0, 1, 0, 0, 2, 0], 21),
    ] {
        let draws = 48_000;
        let fair = within_group_orders(&labels, Rules::FAIR, draws, seed);
        assert!(fair.iter().all(|&c| c > 0), "an order never appeared");
        let test = stats::chi_square_uniform(&fair);
        assert_eq!(test.df, 23);
        assert!(test.p_value > ALPHA, "fair spread rejected: {test:?}");

        let biased = within_group_orders(&labels, NAIVE_IN_GROUP, draws, seed);
        let test = stats::chi_square_uniform(&biased);
        assert!(
            test.p_value < ALPHA,
            "naive group shuffle not caught: {test:?}"
        );
    }
}

fn first_items(labels: &[u32], rules: Rules, draws: usize, seed: u8) -> Vec<u64> {
    let mut counts = vec![0u64; labels.len()];
    let mut stream = seeded(seed);
    for _ in 0..draws {
        counts[spread_of(labels, &mut stream, rules)[0] as usize] += 1;
    }
    counts
}

const FIRST_BY_TARGET: Rules = Rules {
    shuffle_group: |items, stream, check| fisher_yates(items, stream, check),
    draw_first: false,
};

#[test]
fn first_item_is_uniform_over_all_items_and_catches_earliest_target_first() {
    // No group holds more than half: every item is equally likely first (so a group by its
    // size). Exactly half is the edge case.
    for (sizes, seed) in [(vec![5, 3, 2, 1, 1], 30), (vec![3, 1, 1, 1], 31)] {
        let labels = items_of_sizes(&sizes);
        let draws = 1000 * labels.len();
        let fair = first_items(&labels, Rules::FAIR, draws, seed);
        let test = stats::chi_square_uniform(&fair);
        assert_eq!(test.df, labels.len() as u64 - 1);
        assert!(
            test.p_value > ALPHA,
            "{sizes:?}: fair first item rejected: {test:?}"
        );

        // The earliest target as the first item favours large groups.
        let biased = first_items(&labels, FIRST_BY_TARGET, draws, seed);
        let test = stats::chi_square_uniform(&biased);
        assert!(
            test.p_value < ALPHA,
            "{sizes:?}: earliest target first not caught: {test:?}"
        );
    }
}

#[test]
fn first_item_comes_uniformly_from_a_group_holding_more_than_half() {
    let labels = [1, 0, 1, 1, 2, 1, 1];
    let draws = 20_000;
    let counts = first_items(&labels, Rules::FAIR, draws, 32);
    let group: Vec<u64> = [0, 2, 3, 5, 6].iter().map(|&i| counts[i]).collect();
    assert_eq!(group.iter().sum::<u64>(), draws as u64);
    let test = stats::chi_square_uniform(&group);
    assert!(test.p_value > ALPHA, "{test:?}");
    // The same test catches a group shuffle that is not uniform.
    let biased = first_items(&labels, NAIVE_IN_GROUP, draws, 32);
    let group: Vec<u64> = [0, 2, 3, 5, 6].iter().map(|&i| biased[i]).collect();
    assert!(stats::chi_square_uniform(&group).p_value < ALPHA);
}

#[test]
fn groups_of_equal_size_do_not_repeat_one_pattern() {
    // Five artists of six tracks: the order of the artists in the first round of five places
    // and in the last one agree only sometimes (a single offset per artist, as in the 2014
    // balanced shuffle, would repeat the first round's order in every round).
    let labels = items_of_sizes(&[6; 5]);
    let mut stream = seeded(33);
    let (mut same, draws) = (0, 2000);
    for _ in 0..draws {
        let order = spread_of(&labels, &mut stream, Rules::FAIR);
        let round = |r: usize| -> Vec<u32> {
            order[5 * r..5 * r + 5]
                .iter()
                .map(|&i| labels[i as usize])
                .collect()
        };
        same += usize::from(round(0) == round(5));
    }
    assert!(
        same < draws / 4,
        "{same} of {draws} orders repeat their first round"
    );
}

#[test]
fn spreads_replay_and_differ_by_seed() {
    let labels = items_of_sizes(&[5, 4, 3, 3, 1]);
    let one = spread_of(&labels, &mut seeded(5), Rules::FAIR);
    assert_eq!(one, spread_of(&labels, &mut seeded(5), Rules::FAIR));
    assert_ne!(one, spread_of(&labels, &mut seeded(6), Rules::FAIR));
}

#[test]
fn check_is_called_on_long_spreads() {
    let labels: Vec<u32> = (0..3 * CHECK_EVERY as u32).map(|i| i % 40).collect();
    let (groups, count) = numbered(&labels);
    let mut calls = 0;
    let order = spread(&groups, count, &mut seeded(7), &mut || calls += 1).unwrap();
    assert_eq!(same_group_neighbours(&order, &labels), 0);
    assert!(calls >= 3, "{calls} checks");
}

#[test]
fn working_memory_is_claimed() {
    let labels: Vec<u32> = (0..10_000).map(|i| i % 7).collect();
    let (groups, count) = numbered(&labels);
    crate::scratch::set_working_memory_limit(100_000);
    let err = spread(&groups, count, &mut seeded(8), &mut || {}).unwrap_err();
    crate::scratch::set_working_memory_limit(usize::MAX);
    assert_eq!(err.kind, ErrorKind::TooLarge);
}

#[test]
fn golden_outputs_never_change() {
    // Computed by tests/reference/seeded_spread.py, an independent implementation of the
    // specification in docs/spread.md. A change here breaks every stored replay: it must
    // never happen.
    let positions = |labels: &[u32], seed: [u8; 32]| -> Vec<u32> {
        spread_of(labels, &mut Stream::from_seed(seed), Rules::FAIR)
            .iter()
            .map(|p| p + 1)
            .collect()
    };
    // a b a c a b, seed of zeros.
    assert_eq!(positions(&[0, 1, 0, 2, 0, 1], [0; 32]), [1, 2, 4, 3, 6, 5]);
    // A x6, B x4, C x3, D x2, E x2, F, G in that input order, the counting seed 00 01 .. 1f.
    let mut labels = Vec::new();
    for (g, count) in [6, 4, 3, 2, 2, 1, 1].into_iter().enumerate() {
        labels.extend(std::iter::repeat_n(g as u32, count));
    }
    let counting: [u8; 32] = std::array::from_fn(|i| i as u8);
    assert_eq!(
        positions(&labels, counting),
        [18, 4, 11, 9, 5, 15, 1, 8, 17, 12, 19, 2, 7, 6, 13, 3, 14, 10, 16]
    );
    // A dominant group: A A A A A B C, seed ff x32.
    assert_eq!(
        positions(&[0, 0, 0, 0, 0, 1, 2], [0xff; 32]),
        [1, 4, 3, 7, 5, 6, 2]
    );
}

#[test]
fn golden_outputs_of_a_long_list_never_change() {
    // 200 items over 13 groups (item i in group i * i mod 13, so sizes differ), the counting
    // seed, from tests/reference/seeded_spread.py.
    let labels: Vec<u32> = (0..200u32).map(|i| i * i % 13).collect();
    let counting: [u8; 32] = std::array::from_fn(|i| i as u8);
    let order: Vec<u32> = spread_of(&labels, &mut Stream::from_seed(counting), Rules::FAIR)
        .iter()
        .map(|p| p + 1)
        .collect();
    assert_eq!(order, LONG_LIST_GOLDEN);
}

const LONG_LIST_GOLDEN: [u32; 200] = [
    51, 35, 134, 26, 164, 109, 131, 149, 147, 119, 153, 146, 177, 162, 30, 185, 47, 104, 161, 170,
    178, 154, 10, 143, 99, 42, 63, 22, 148, 25, 21, 195, 1, 6, 50, 2, 129, 49, 60, 11, 83, 157,
    191, 145, 3, 59, 76, 58, 36, 168, 184, 7, 199, 152, 14, 38, 117, 176, 57, 82, 120, 9, 106, 174,
    112, 97, 130, 4, 23, 81, 118, 111, 78, 17, 101, 12, 32, 98, 56, 182, 16, 136, 62, 46, 53, 141,
    93, 140, 64, 19, 72, 115, 80, 198, 96, 165, 151, 196, 160, 132, 116, 87, 187, 137, 186, 144,
    179, 91, 113, 133, 173, 73, 70, 155, 84, 41, 128, 86, 171, 27, 172, 123, 192, 190, 43, 122, 15,
    100, 94, 8, 89, 127, 52, 68, 105, 74, 167, 33, 200, 77, 169, 110, 121, 66, 54, 189, 107, 166,
    175, 95, 163, 197, 194, 114, 45, 40, 37, 65, 125, 103, 31, 71, 108, 158, 34, 55, 18, 126, 150,
    69, 183, 135, 28, 90, 48, 138, 102, 142, 88, 67, 188, 180, 79, 85, 156, 5, 29, 139, 24, 159,
    75, 20, 39, 92, 61, 193, 44, 181, 13, 124,
];

fn nested_of(labels: &[u32], sublabels: &[u32], stream: &mut Stream, rules: Rules) -> Vec<u32> {
    let (groups, count) = numbered(labels);
    spread_with(&groups, count, Some(sublabels), stream, &mut || {}, rules)
        .unwrap()
        .to_vec()
}

#[test]
fn two_levels_keep_groups_apart_and_subgroups_apart_within_each_group() {
    let mut sizes_stream = seeded(40);
    let mut stream = seeded(41);
    for case in 0..1500 {
        let sizes = random_sizes(&mut sizes_stream, case % 5);
        let labels = items_of_sizes(&sizes);
        // Albums: within each artist, sizes of a random shape too (labels shared between
        // artists on purpose: a subgroup is only compared within its group).
        let mut sublabels = vec![0u32; labels.len()];
        for g in 0..sizes.len() as u32 {
            let members: Vec<usize> = (0..labels.len()).filter(|&i| labels[i] == g).collect();
            let albums = 1 + sizes_stream.below(4);
            for &i in &members {
                sublabels[i] = sizes_stream.below(albums);
            }
        }
        let order = nested_of(&labels, &sublabels, &mut stream, Rules::FAIR);
        assert!(is_permutation(&order, labels.len()));
        assert_eq!(
            same_group_neighbours(&order, &labels),
            fewest_neighbours(&sizes),
            "case {case}"
        );
        // Each artist's own sequence of albums has the fewest neighbours its albums allow.
        for g in 0..sizes.len() as u32 {
            let own: Vec<u32> = order
                .iter()
                .copied()
                .filter(|&i| labels[i as usize] == g)
                .collect();
            let albums: Vec<u32> = own.iter().map(|&i| sublabels[i as usize]).collect();
            let positions: Vec<u32> = (0..own.len() as u32).collect();
            assert_eq!(
                same_group_neighbours(&positions, &albums),
                fewest_neighbours(&sizes_of(&albums)),
                "case {case}, artist {g}"
            );
        }
    }
}

#[test]
fn order_within_an_album_is_uniform_and_catches_a_naive_shuffle() {
    // Artist 0 has albums x (4 tracks, the ones counted) and y (3); artist 1 has 5 tracks.
    let labels = [0, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1];
    let sublabels = [7, 7, 1, 8, 7, 1, 8, 1, 7, 1, 8, 1];
    let members: Vec<u32> = vec![0, 1, 4, 8];
    let counts = |rules: Rules| {
        let mut counts = vec![0u64; 24];
        let mut stream = seeded(42);
        for _ in 0..48_000 {
            let order = nested_of(&labels, &sublabels, &mut stream, rules);
            let seen: Vec<usize> = order
                .iter()
                .filter_map(|item| members.iter().position(|m| m == item))
                .collect();
            counts[order_index(&seen)] += 1;
        }
        counts
    };
    let fair = stats::chi_square_uniform(&counts(Rules::FAIR));
    assert!(fair.p_value > ALPHA, "fair spread rejected: {fair:?}");
    let biased = stats::chi_square_uniform(&counts(NAIVE_IN_GROUP));
    assert!(
        biased.p_value < ALPHA,
        "naive shuffle not caught: {biased:?}"
    );
}

#[test]
fn golden_outputs_of_two_levels_never_change() {
    // From tests/reference/seeded_spread.py nested: artist/album pairs
    // A/x A/x A/y A/y A/y B/z B/z C/w C/v D/u with the counting seed, and 60 items, item i
    // being artist i mod 5, album 7i mod 3, with the seed ff x32.
    let counting: [u8; 32] = std::array::from_fn(|i| i as u8);
    let one_based = |order: Vec<u32>| -> Vec<u32> { order.iter().map(|p| p + 1).collect() };
    let labels = [0, 0, 0, 0, 0, 1, 1, 2, 2, 3];
    let sublabels = [0, 0, 1, 1, 1, 2, 2, 3, 4, 5];
    assert_eq!(
        one_based(nested_of(
            &labels,
            &sublabels,
            &mut Stream::from_seed(counting),
            Rules::FAIR
        )),
        [5, 7, 2, 9, 3, 10, 1, 6, 4, 8]
    );
    let labels: Vec<u32> = (0..60).map(|i| i % 5).collect();
    let sublabels: Vec<u32> = (0..60).map(|i| i * 7 % 3).collect();
    assert_eq!(
        one_based(nested_of(
            &labels,
            &sublabels,
            &mut Stream::from_seed([0xff; 32]),
            Rules::FAIR
        )),
        [
            44, 5, 51, 8, 17, 26, 55, 58, 37, 54, 1, 42, 48, 30, 49, 43, 21, 22, 24, 35, 31, 33,
            19, 15, 47, 11, 40, 29, 38, 27, 13, 46, 20, 52, 9, 41, 53, 12, 34, 25, 3, 6, 45, 14,
            32, 28, 50, 39, 16, 7, 18, 2, 36, 4, 10, 56, 60, 57, 23, 59
        ]
    );
}
