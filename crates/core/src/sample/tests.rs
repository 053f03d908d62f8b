//! Unit tests of `sample`, in a file of their own: the module reads without them.

use super::*;
use crate::items::tests::{sampled_order, shuffled_order};
use crate::items::{gather_items, shuffled_items, ItemBounds};
use dealcards_fairness::stats;
use std::collections::HashSet;

const ALPHA: f64 = 1e-4;

fn seeded(seed: u8) -> Stream {
    Stream::from_seed([seed; 32])
}

fn counting() -> Stream {
    Stream::from_seed(std::array::from_fn(|i| i as u8))
}

fn sample(lo: i64, hi: i64, k: usize, stream: &mut Stream) -> Vec<i64> {
    let mut out = vec![0; k];
    sample_range(lo, hi, &mut out, stream, &mut || {}).unwrap();
    out
}

/// The same partial Fisher-Yates over a materialized range, for small ranges: what the
/// sparse version must agree with.
fn dense_sample(lo: i64, hi: i64, k: usize, stream: &mut Stream) -> Vec<i64> {
    let mut range: Vec<i64> = (lo..=hi).collect();
    let m = range.len();
    for t in 0..k {
        let i = m - 1 - t;
        let j = stream.below_u64(i as u64 + 1) as usize;
        range.swap(i, j);
    }
    range[m - k..].to_vec()
}

#[test]
fn sizes_and_errors_name_the_bounds() {
    assert_eq!(range_size(1, 49), Ok(49));
    assert_eq!(range_size(i64::MIN, i64::MAX), Ok(1u128 << 64));
    assert_eq!(range_size(7, 7), Ok(1));
    let err = range_size(5, 4).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidParameter);
    assert_eq!(err.message, "lower bound 5 is greater than upper bound 4");

    assert_eq!(sample_ints_len(1, 49, 6), Ok(6));
    assert_eq!(sample_ints_len(1, 49, 49), Ok(49));
    assert_eq!(sample_ints_len(1, 49, 0), Ok(0));
    assert_eq!(
        sample_ints_len(i64::MIN, i64::MAX, i32::MAX),
        Ok(i32::MAX as usize)
    );
    let err = sample_ints_len(1, 49, 50).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidParameter);
    assert_eq!(
        err.message,
        "k must be between 0 and 49, the number of integers in 1..49, got 50"
    );
    assert_eq!(
        sample_ints_len(1, 49, -1).unwrap_err().kind,
        ErrorKind::InvalidParameter
    );
    assert_eq!(
        sample_ints_len(2, 1, 0).unwrap_err().message,
        "lower bound 2 is greater than upper bound 1"
    );

    assert_eq!(sample_array_len(3, 5), Ok(3));
    assert_eq!(sample_array_len(0, 0), Ok(0));
    assert_eq!(sample_array_len(5, 5), Ok(5));
    let err = sample_array_len(6, 5).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidParameter);
    assert_eq!(
        err.message,
        "n must be between 0 and 5, the number of items in the array, got 6"
    );
    assert_eq!(
        sample_array_len(-1, 5).unwrap_err().kind,
        ErrorKind::InvalidParameter
    );
}

#[test]
fn sparse_sample_agrees_with_the_materialized_range() {
    // Small ranges make the table busy: most positions get displaced, many twice.
    for seed in 0..40u8 {
        for (lo, hi) in [(0, 0), (1, 2), (1, 10), (-5, 5), (1, 100), (1, 1000)] {
            let m = (hi - lo + 1) as usize;
            for k in [0, 1, m / 2, m - 1, m] {
                assert_eq!(
                    sample(lo, hi, k, &mut seeded(seed)),
                    dense_sample(lo, hi, k, &mut seeded(seed)),
                    "seed {seed}, {lo}..{hi}, k {k}"
                );
            }
        }
    }
}

#[test]
fn sparse_samples_agree_with_the_materialized_range_whether_draws_meet_or_not() {
    // 40 of 1..=102,400 is just sparse (40^2 * 64 = 102,400): about 1.5 k^2 / m = 2.3% of
    // the samples have draws that meet (a repeat, or one among the last 40 places) and
    // replay the full algorithm; both ways must give the full algorithm's sample and use
    // the stream alike.
    let (lo, hi, k) = (1i64, 102_400i64, 40usize);
    assert!(is_sparse((hi - lo) as u64, k) && !is_sparse((hi - lo) as u64, k + 1));
    let (mut replayed, mut direct) = (0, 0);
    for seed in 0..600u32 {
        let key: [u8; 32] = std::array::from_fn(|i| (seed >> (8 * (i % 4))) as u8 ^ i as u8);
        let (mut fast_stream, mut dense_stream) = (Stream::from_seed(key), Stream::from_seed(key));
        let mut out = vec![0; k];
        let met = sample_range_replayed(lo, hi, &mut out, &mut fast_stream, &mut || {}).unwrap();
        assert_eq!(
            out,
            dense_sample(lo, hi, k, &mut dense_stream),
            "seed {seed}"
        );
        assert_eq!(fast_stream.next_u32(), dense_stream.next_u32());
        if met {
            replayed += 1;
        } else {
            direct += 1;
        }
    }
    assert!(
        replayed >= 3 && direct >= 500,
        "replayed {replayed}, direct {direct}"
    );
}

#[test]
fn fingerprints_find_every_position_added() {
    let mut set = Fingerprints::with_room_for(1000, &mut || {}).unwrap();
    let mut stream = seeded(8);
    let positions: Vec<u64> = (0..1000).map(|_| stream.next_u64()).collect();
    assert!(positions.iter().all(|&p| set.insert(p)));
    assert!(positions.iter().all(|&p| !set.insert(p)));
    // Positions 0 and 1 share a fingerprint by construction, but not a home.
    let mut set = Fingerprints::with_room_for(2, &mut || {}).unwrap();
    assert!(set.insert(0) && !set.insert(0));
}

#[test]
fn a_full_sample_is_the_shuffle_and_a_sample_is_the_shuffles_tail() {
    // Over an int4 range, sample_ints(lo, hi, k, seed) is the last k of shuffle_ints.
    let mut full = vec![0; 54];
    crate::shuffle::permute_range(&mut full, 1, &mut seeded(5), &mut || {});
    let full: Vec<i64> = full.into_iter().map(i64::from).collect();
    assert_eq!(sample(1, 54, 54, &mut seeded(5)), full);
    for k in [0, 1, 6, 53] {
        assert_eq!(sample(1, 54, k, &mut seeded(5)), full[54 - k..]);
    }
    let order = shuffled_order(54, &mut seeded(5));
    assert_eq!(
        order,
        full.iter().map(|&v| v as u32 - 1).collect::<Vec<_>>()
    );
    let tail = sampled_order(54, 6, &mut seeded(5));
    assert_eq!(tail, order[48..]);
}

#[test]
fn samples_at_the_int8_limits_stay_in_range_without_overflow() {
    let mut stream = seeded(21);
    for (lo, hi, k) in [
        (i64::MIN, i64::MAX, 1000),
        (i64::MIN, i64::MIN + 9, 10),
        (i64::MAX - 9, i64::MAX, 10),
        (i64::MAX, i64::MAX, 1),
        (i64::MIN, i64::MIN, 1),
        (-1, 0, 2),
        (i64::MIN, -1, 100),
        (0, i64::MAX, 100),
    ] {
        let s = sample(lo, hi, k, &mut stream);
        assert_eq!(s.len(), k);
        assert!(s.iter().all(|v| (lo..=hi).contains(v)), "{lo}..{hi}: {s:?}");
        assert_eq!(s.iter().collect::<HashSet<_>>().len(), k, "{lo}..{hi}");
    }
    let mut tiny = sample(i64::MAX - 9, i64::MAX, 10, &mut stream);
    tiny.sort_unstable();
    assert_eq!(tiny, ((i64::MAX - 9)..=i64::MAX).collect::<Vec<_>>());
}

#[test]
fn golden_outputs_never_change() {
    // Computed by tests/reference/seeded_sample.py (on top of seeded_shuffle.py), an
    // independent implementation of the specification in docs/arrays.md. A change here breaks every
    // stored replay: it must never happen.
    assert_eq!(sample(1, 49, 6, &mut seeded(0)), [5, 33, 8, 43, 28, 34]);
    assert_eq!(
        sample(1, 1 << 40, 5, &mut counting()),
        [
            735_032_943_334,
            627_684_595_787,
            877_966_310_511,
            314_788_591_735,
            455_698_930_046
        ]
    );
    assert_eq!(
        sample(i64::MIN, i64::MAX, 4, &mut counting()),
        [
            1_307_428_006_561_434_800,
            5_506_458_395_325_511_048,
            -3_942_095_838_980_620_916,
            -1_578_012_656_518_038_215
        ]
    );
    assert_eq!(
        sample(i64::MAX - 4, i64::MAX, 5, &mut seeded(0xff)),
        [
            i64::MAX - 4,
            i64::MAX - 1,
            i64::MAX - 2,
            i64::MAX,
            i64::MAX - 3
        ]
    );
    assert_eq!(
        shuffled_order(10, &mut seeded(0)),
        [9, 8, 2, 3, 0, 4, 1, 7, 5, 6]
    );
    assert_eq!(sampled_order(10, 3, &mut counting()), [8, 3, 4]);
}

#[test]
fn check_is_called_on_long_samples() {
    let mut calls = 0;
    let mut out = vec![0; 3 * CHECK_EVERY];
    sample_range(1, 1 << 40, &mut out, &mut seeded(4), &mut || calls += 1).unwrap();
    // Filling the table of 4.5 * CHECK_EVERY slots (between its 5 chunks), then the 3 steps'
    // worth of Fisher-Yates.
    assert_eq!(calls, 4 + 3);
    // A sparse sample checks while filling its set (2 chunks), while drawing and again while
    // checking the draws.
    assert!(is_sparse((1 << 62) - 1, out.len()));
    let mut calls = 0;
    sample_range(1, 1 << 62, &mut out, &mut seeded(4), &mut || calls += 1).unwrap();
    assert_eq!(calls, 1 + 6);
    let mut calls = 0;
    let data = vec![0u8; 3 * CHECK_EVERY];
    let bounds = ItemBounds::Uniform { item_len: 1 };
    let items = shuffled_items(&bounds, data.len(), &mut seeded(4), &mut || calls += 1).unwrap();
    assert_eq!(calls, 2, "Fisher-Yates checks every {CHECK_EVERY} swaps");
    let mut calls = 0;
    let mut out = vec![0u8; data.len()];
    gather_items(&data, &items, &mut out, &mut || calls += 1);
    assert_eq!(calls, 3);
}

/// Partial Fisher-Yates whose steps draw j from 0..i instead of 0..=i (Sattolo's step): a
/// sampler that never leaves a value where it was. A negative control.
fn sattolo_sample(lo: i64, hi: i64, k: usize, stream: &mut Stream) -> Vec<i64> {
    let mut range: Vec<i64> = (lo..=hi).collect();
    let m = range.len();
    for t in 0..k {
        let i = m - 1 - t;
        let j = stream.below_u64(i as u64) as usize;
        range.swap(i, j);
    }
    range[m - k..].to_vec()
}

/// Floyd's subset, returned sorted: every value equally likely, but not in random order.
fn sorted_sample(lo: i64, hi: i64, k: usize, stream: &mut Stream) -> Vec<i64> {
    let mut s = sample(lo, hi, k, stream);
    s.sort_unstable();
    s
}

type Sampler = fn(i64, i64, usize, &mut Stream) -> Vec<i64>;

/// Counts, over `draws` samples of 5 out of 1..20, how often each value appears (per value)
/// and at each place (value by place).
fn small_range_counts(sampler: Sampler, seed: u8, draws: usize) -> (Vec<u64>, Vec<Vec<u64>>) {
    let mut stream = seeded(seed);
    let mut per_value = vec![0u64; 20];
    let mut by_place = vec![vec![0u64; 5]; 20];
    for _ in 0..draws {
        for (place, v) in sampler(1, 20, 5, &mut stream).into_iter().enumerate() {
            per_value[v as usize - 1] += 1;
            by_place[v as usize - 1][place] += 1;
        }
    }
    (per_value, by_place)
}

#[test]
fn sample_ints_value_frequency_is_uniform_and_catches_a_biased_sampler() {
    let draws = 40_000;
    let (per_value, by_place) = small_range_counts(sample, 41, draws);
    let test = stats::chi_square_uniform(&per_value);
    assert_eq!(test.df, 19);
    assert!(test.p_value > ALPHA, "fair sampler rejected: {test:?}");
    let test = stats::chi_square_matrix_uniform(&by_place);
    assert_eq!(test.df, 19 * 4);
    assert!(
        test.p_value > ALPHA,
        "fair sampler's order rejected: {test:?}"
    );

    let (per_value, _) = small_range_counts(sattolo_sample, 41, draws);
    let test = stats::chi_square_uniform(&per_value);
    assert!(
        test.p_value < ALPHA,
        "Sattolo-step sampler not caught: {test:?}"
    );

    // The sorted sample has fair values and so passes the per-value test; the order test
    // is the one that must catch it.
    let (per_value, by_place) = small_range_counts(sorted_sample, 41, draws);
    assert!(stats::chi_square_uniform(&per_value).p_value > ALPHA);
    let test = stats::chi_square_matrix_uniform(&by_place);
    assert!(test.p_value < ALPHA, "sorted sampler not caught: {test:?}");
}

/// Draws with replacement, 32 bits at a time scaled to the range: the kind of sampler that
/// casts a 64-bit range to 32 bits. A negative control.
fn truncating_sample(lo: i64, hi: i64, k: usize, stream: &mut Stream) -> Vec<i64> {
    let span = hi.wrapping_sub(lo) as u64;
    (0..k)
        .map(|_| {
            let v = (stream.next_u32() as u64).min(span);
            lo.wrapping_add(v as i64)
        })
        .collect()
}

/// Draws with replacement: fine values, but repeats. A negative control.
fn with_replacement(lo: i64, hi: i64, k: usize, stream: &mut Stream) -> Vec<i64> {
    let span = hi.wrapping_sub(lo) as u64;
    (0..k)
        .map(|_| {
            let v = match span.checked_add(1) {
                Some(bound) => stream.below_u64(bound),
                None => stream.next_u64(),
            };
            lo.wrapping_add(v as i64)
        })
        .collect()
}

/// Whether a sample of k from lo..=hi has k distinct values that spread evenly over 64
/// equal slices of the range (chi-square on the slice counts).
fn distinct_and_spread(sampler: Sampler, lo: i64, hi: i64, k: usize, seed: u8) -> bool {
    let s = sampler(lo, hi, k, &mut seeded(seed));
    assert_eq!(s.len(), k);
    let distinct = s.iter().collect::<HashSet<_>>().len() == k;
    let size = range_size(lo, hi).unwrap();
    let mut slices = vec![0u64; 64];
    for v in s {
        let offset = (v as i128 - lo as i128) as u128;
        slices[(offset * 64 / size) as usize] += 1;
    }
    distinct && stats::chi_square_uniform(&slices).p_value > ALPHA
}

#[test]
fn huge_range_samples_are_distinct_and_spread_and_catch_biased_samplers() {
    let k = 200_000;
    assert!(distinct_and_spread(sample, i64::MIN, i64::MAX, k, 51));
    assert!(distinct_and_spread(sample, 1, 1 << 40, k, 52));
    assert!(!distinct_and_spread(
        truncating_sample,
        i64::MIN,
        i64::MAX,
        k,
        51
    ));
    assert!(!distinct_and_spread(truncating_sample, 1, 1 << 40, k, 52));
    // Where repeats are likely (a range of 2^24), drawing with replacement is caught.
    assert!(distinct_and_spread(sample, 1, 1 << 24, k, 53));
    assert!(!distinct_and_spread(with_replacement, 1, 1 << 24, k, 53));
}
