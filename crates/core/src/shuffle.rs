//! Fisher-Yates over a [`Stream`], and the integer ranges `shuffle_ints` permutes.

use crate::error::{Error, ErrorKind};
use crate::rng::Stream;

/// The most elements one Postgres array can hold (`MaxArraySize`: 1 GB / 8).
pub const MAX_ARRAY_ITEMS: usize = 0x3fff_ffff / 8;

/// How many swaps run between two calls of the caller's interrupt check.
pub const CHECK_EVERY: usize = 1 << 16;

/// Fisher-Yates (Durstenfeld's in-place form): for i from n-1 down to 1, draw j uniformly from
/// 0..=i and swap items i and j. Every one of the n! orders is equally likely, given a uniform
/// `below`. The loop is [`fisher_yates_steps`], the one every shuffle and sample runs, with
/// the item each draw points at prefetched.
pub fn fisher_yates<T>(items: &mut [T], stream: &mut Stream, check: &mut dyn FnMut()) {
    let n = items.len();
    // Step s swaps place i = n-1-s with j = below(i + 1); i + 1 <= n <= MAX_ARRAY_ITEMS < 2^32,
    // so every bound fits in u32.
    let base = items.as_ptr();
    fisher_yates_steps::<AHEAD>(
        n.saturating_sub(1),
        |s| stream.below((n - s) as u32) as u64,
        |j| prefetch(base.wrapping_add(j as usize)),
        check,
        |s, j| items.swap(n - 1 - s, j as usize),
    );
}

/// The loop of Fisher-Yates, shared by the full shuffle above and the partial one that samples
/// (sample.rs): `steps` steps, step t pairing place `span - t` with the place `draw(t)` (uniform
/// in 0..=span - t), which `step(t, j)` acts on. A full shuffle of n items is n - 1 steps over
/// span n - 1; a sample of k is the first k steps, which is why a seeded sample is the tail of
/// the seeded shuffle.
///
/// The draws do not depend on the items, so each is made `AHEAD` steps before its step (the
/// draws in the same order, the steps in the same order) and `prefetch(j)` is told at once: on
/// data larger than the cache every step is a cache miss, and this keeps many of them in flight
/// instead of waiting for each in turn. `check` is called every [`CHECK_EVERY`] steps, so a
/// long loop can be cancelled.
#[inline(always)]
pub fn fisher_yates_steps<const AHEAD: usize>(
    steps: usize,
    mut draw: impl FnMut(usize) -> u64,
    mut prefetch: impl FnMut(u64),
    check: &mut dyn FnMut(),
    mut step: impl FnMut(usize, u64),
) {
    let mut drawn = [0u64; AHEAD];
    for (t, slot) in drawn.iter_mut().enumerate().take(steps) {
        *slot = draw(t);
        prefetch(*slot);
    }
    for t in 0..steps {
        if t % CHECK_EVERY == CHECK_EVERY - 1 {
            check();
        }
        let j = drawn[t % AHEAD];
        if t + AHEAD < steps {
            let ahead = draw(t + AHEAD);
            drawn[t % AHEAD] = ahead;
            prefetch(ahead);
        }
        step(t, j);
    }
}

/// How many steps ahead [`fisher_yates`] draws: enough misses in flight for large arrays.
const AHEAD: usize = 64;

/// Asks the CPU to start loading the cache line at `address`. A hint only: it reads nothing
/// architecturally and never faults, so any address is fine.
#[inline(always)]
pub(crate) fn prefetch<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: _mm_prefetch does not access memory as far as the program can observe.
    unsafe {
        std::arch::x86_64::_mm_prefetch(address as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// How many integers `lo..=hi` holds, if that is a valid range that fits in one array.
pub fn range_len(lo: i32, hi: i32) -> Result<usize, Error> {
    if lo > hi {
        return Err(Error::invalid(format!(
            "lower bound {lo} is greater than upper bound {hi}"
        )));
    }
    let len = (hi as i64 - lo as i64 + 1) as usize;
    if len > MAX_ARRAY_ITEMS {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "range {lo}..{hi} holds {len} integers, more than the {MAX_ARRAY_ITEMS} one array can hold"
            ),
        ));
    }
    Ok(len)
}

/// Writes `lo, lo+1, ...` into `out` and shuffles it: a uniform permutation of the range.
/// `out.len()` must be `range_len(lo, hi)`.
pub fn permute_range(out: &mut [i32], lo: i32, stream: &mut Stream, check: &mut dyn FnMut()) {
    for (k, slot) in out.iter_mut().enumerate() {
        // lo + k <= hi, so this never leaves i32; wrapping keeps the arithmetic in i32.
        *slot = lo.wrapping_add(k as i32);
    }
    fisher_yates(out, stream, check);
}

#[cfg(test)]
mod tests {
    use super::*;
    use dealcards_fairness::stats;
    use dealcards_fairness::{naive_swap, order_index};

    fn seeded(seed: u8) -> Stream {
        Stream::from_seed([seed; 32])
    }

    fn permutation(lo: i32, hi: i32, stream: &mut Stream) -> Vec<i32> {
        let mut out = vec![0; range_len(lo, hi).unwrap()];
        permute_range(&mut out, lo, stream, &mut || {});
        out
    }

    fn is_permutation_of_range(values: &[i32], lo: i32, hi: i32) -> bool {
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        sorted.len() as i64 == hi as i64 - lo as i64 + 1
            && sorted
                .iter()
                .enumerate()
                .all(|(k, v)| *v as i64 == lo as i64 + k as i64)
    }

    #[test]
    fn errors_name_the_bounds() {
        let err = range_len(5, 4).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidParameter);
        assert_eq!(err.message, "lower bound 5 is greater than upper bound 4");
        let err = range_len(i32::MIN, i32::MAX).unwrap_err();
        assert_eq!(err.kind, ErrorKind::TooLarge);
        assert!(err.message.contains("4294967296"), "{}", err.message);
        assert_eq!(range_len(1, MAX_ARRAY_ITEMS as i32), Ok(MAX_ARRAY_ITEMS));
        assert_eq!(
            range_len(1, MAX_ARRAY_ITEMS as i32 + 1).unwrap_err().kind,
            ErrorKind::TooLarge
        );
    }

    #[test]
    fn permutations_of_ranges_of_every_size_and_at_the_int_limits() {
        let mut stream = seeded(9);
        for (lo, hi) in [
            (3, 3),
            (1, 2),
            (1, 54),
            (-7, 7),
            (1, 1_000_000),
            (i32::MIN, i32::MIN + 99),
            (i32::MAX - 99, i32::MAX),
            (i32::MAX, i32::MAX),
            (i32::MIN, i32::MIN),
        ] {
            let p = permutation(lo, hi, &mut stream);
            assert!(is_permutation_of_range(&p, lo, hi), "{lo}..{hi}");
        }
    }

    #[test]
    fn seeded_shuffles_replay_and_differ_by_seed() {
        assert_eq!(
            permutation(1, 54, &mut seeded(1)),
            permutation(1, 54, &mut seeded(1))
        );
        assert_ne!(
            permutation(1, 54, &mut seeded(1)),
            permutation(1, 54, &mut seeded(2))
        );
    }

    #[test]
    fn golden_outputs_never_change() {
        // Computed by tests/reference/seeded_shuffle.py, an independent implementation of the
        // specification in docs/shuffle_ints.md. A change here breaks every stored replay: it must never happen.
        assert_eq!(
            permutation(1, 10, &mut seeded(0)),
            [10, 9, 3, 4, 1, 5, 2, 8, 6, 7]
        );
        let counting: [u8; 32] = std::array::from_fn(|i| i as u8);
        assert_eq!(
            permutation(1, 54, &mut Stream::from_seed(counting)),
            [
                9, 29, 16, 43, 32, 49, 1, 24, 38, 20, 35, 47, 48, 46, 36, 52, 30, 28, 5, 50, 18,
                23, 44, 37, 21, 10, 7, 4, 11, 13, 34, 3, 12, 33, 6, 14, 45, 41, 2, 26, 8, 39, 17,
                19, 31, 42, 54, 51, 40, 53, 15, 25, 22, 27
            ]
        );
        let min = i32::MIN;
        assert_eq!(
            permutation(min, min + 9, &mut seeded(0xff)),
            [
                min + 5,
                min,
                min + 9,
                min + 7,
                min + 8,
                min + 1,
                min + 4,
                min + 6,
                min + 3,
                min + 2
            ]
        );
        // The bounded draws themselves, 32- and 64-bit, from the same reference.
        let mut stream = Stream::from_seed(counting);
        assert_eq!(
            [
                stream.below_u64(1 << 40),
                stream.below_u64(u64::MAX),
                stream.below_u64(3),
                stream.below_u64((1 << 31) + 1)
            ],
            [455_698_930_045, 5_281_276_197_874_154_892, 1, 1_714_777_950]
        );
    }

    /// The loop exactly as the fairness notes and the README state it.
    fn textbook_fisher_yates<T>(items: &mut [T], stream: &mut Stream) {
        for i in (1..items.len()).rev() {
            let j = stream.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }

    #[test]
    fn drawing_ahead_is_the_textbook_loop() {
        for seed in [21, 22, 23] {
            for n in (0..=40).chain([AHEAD - 1, AHEAD, AHEAD + 1, 1000, 3 * CHECK_EVERY + 5]) {
                let mut ahead: Vec<u32> = (0..n as u32).collect();
                let mut textbook = ahead.clone();
                let (mut ahead_stream, mut textbook_stream) = (seeded(seed), seeded(seed));
                fisher_yates(&mut ahead, &mut ahead_stream, &mut || {});
                textbook_fisher_yates(&mut textbook, &mut textbook_stream);
                assert_eq!(ahead, textbook, "seed {seed}, n = {n}");
                // Both used the same words of the stream.
                assert_eq!(ahead_stream.next_u32(), textbook_stream.next_u32());
            }
        }
    }

    #[test]
    fn check_is_called_on_long_shuffles() {
        let mut calls = 0;
        let mut out = vec![0; 3 * CHECK_EVERY];
        permute_range(&mut out, 0, &mut seeded(4), &mut || calls += 1);
        assert_eq!(calls, 2);
    }

    fn permutation_counts(shuffle: &mut dyn FnMut(&mut [usize]), draws: usize) -> Vec<u64> {
        let mut counts = vec![0u64; 24];
        for _ in 0..draws {
            let mut p = [0, 1, 2, 3];
            shuffle(&mut p);
            counts[order_index(&p)] += 1;
        }
        counts
    }

    const ALPHA: f64 = 1e-4;

    #[test]
    fn permutation_frequency_n4_is_uniform_and_catches_the_naive_shuffle() {
        let draws = 48_000;
        let mut stream = seeded(11);
        let fair = permutation_counts(&mut |p| fisher_yates(p, &mut stream, &mut || {}), draws);
        assert!(fair.iter().all(|&c| c > 0), "a permutation never appeared");
        let test = stats::chi_square_uniform(&fair);
        assert_eq!(test.df, 23);
        assert!(test.p_value > ALPHA, "fair shuffle rejected: {test:?}");

        let mut stream = seeded(11);
        let biased = permutation_counts(&mut |p| naive_swap(p, &mut stream), draws);
        let test = stats::chi_square_uniform(&biased);
        assert!(test.p_value < ALPHA, "naive shuffle not caught: {test:?}");
    }

    fn card_by_position(
        shuffle: &mut dyn FnMut(&mut [usize]),
        n: usize,
        draws: usize,
    ) -> Vec<Vec<u64>> {
        let mut counts = vec![vec![0u64; n]; n];
        for _ in 0..draws {
            let mut deck: Vec<usize> = (0..n).collect();
            shuffle(&mut deck);
            for (position, card) in deck.iter().enumerate() {
                counts[*card][position] += 1;
            }
        }
        counts
    }

    #[test]
    fn card_by_position_n54_is_uniform_and_catches_the_naive_shuffle() {
        let draws = 20_000;
        let mut stream = seeded(12);
        let fair = card_by_position(&mut |d| fisher_yates(d, &mut stream, &mut || {}), 54, draws);
        let test = stats::chi_square_matrix_uniform(&fair);
        assert_eq!(test.df, 53 * 53);
        assert!(test.p_value > ALPHA, "fair shuffle rejected: {test:?}");

        let mut stream = seeded(12);
        let biased = card_by_position(&mut |d| naive_swap(d, &mut stream), 54, draws);
        let test = stats::chi_square_matrix_uniform(&biased);
        assert!(test.p_value < ALPHA, "naive shuffle not caught: {test:?}");
    }
}
