//! Sampling without replacement, and moving the items of a flat array into a new order.
//!
//! Every order and every sample here comes from Fisher-Yates on a [`Stream`]:
//!
//! - a shuffle of n items is [`fisher_yates`] on their indices 0..n, exactly as `shuffle_ints`
//!   permutes a range;
//! - a sample of k values from a range of m is the same loop stopped after k steps: for t in
//!   0..k, i = m-1-t, j = uniform(0..=i), swap positions i and j. Positions m-k..m-1 then hold
//!   a uniformly random k-permutation of the range, and they are exactly the last k positions a
//!   full shuffle with the same stream would produce. The range is never materialized: only the
//!   positions whose value has moved are kept, in [`Displaced`], so time and memory grow with k,
//!   not with m. m may be 2^64 (the whole int8 range); the one draw with bound 2^64 is a plain
//!   64-bit word, which is what Lemire's method gives for that bound (nothing is rejected).
//!
//! Items of an array are byte ranges of its data area (item k is `bounds[k]..bounds[k+1]`);
//! [`gather_items`] and [`gather_null_bits`] copy them, and their null-bitmap bits, in a given
//! order. Bytes are moved as they are, so any element type moves without being decoded.

use crate::error::{Error, ErrorKind};
use crate::rng::Stream;
use crate::shuffle::{fisher_yates, CHECK_EVERY};

/// How many integers `lo..=hi` holds (up to 2^64), if `lo <= hi`.
pub fn range_size(lo: i64, hi: i64) -> Result<u128, Error> {
    if lo > hi {
        return Err(Error::invalid(format!(
            "lower bound {lo} is greater than upper bound {hi}"
        )));
    }
    Ok((hi as i128 - lo as i128 + 1) as u128)
}

/// Checks a request for `k` distinct integers out of `lo..=hi` and returns k.
pub fn sample_ints_len(lo: i64, hi: i64, k: i32) -> Result<usize, Error> {
    let size = range_size(lo, hi)?;
    if k < 0 || k as u128 > size {
        return Err(Error::invalid(format!(
            "k must be between 0 and {size}, the number of integers in {lo}..{hi}, got {k}"
        )));
    }
    Ok(k as usize)
}

/// Checks a request for `n` of an array's `items` (the length of its first dimension).
pub fn sample_array_len(n: i32, items: usize) -> Result<usize, Error> {
    if n < 0 || n as usize > items {
        return Err(Error::invalid(format!(
            "n must be between 0 and {items}, the number of items in the array, got {n}"
        )));
    }
    Ok(n as usize)
}

/// Marks a vacant slot of [`Displaced`]. Never a stored position: a position is stored only
/// when it is below the step's i, and i <= u64::MAX.
const VACANT: u64 = u64::MAX;

/// The positions of a virtual range whose value is no longer the position itself.
///
/// Open addressing with linear probing, sized once for the k steps of a sample (each step
/// stores at most one new position), at most two thirds full. Positions are drawn uniformly, so
/// a multiplicative hash spreads them without any defence against chosen keys.
struct Displaced {
    slots: Vec<(u64, u64)>,
}

impl Displaced {
    fn with_room_for(steps: usize) -> Result<Self, Error> {
        let len = steps.saturating_add(steps / 2).max(16);
        let mut slots = Vec::new();
        slots.try_reserve_exact(len).map_err(|_| {
            Error::new(
                ErrorKind::TooLarge,
                format!("not enough memory to draw a sample of {steps} values"),
            )
        })?;
        slots.resize(len, (VACANT, 0));
        Ok(Displaced { slots })
    }

    #[inline]
    fn home(&self, position: u64) -> usize {
        // Fibonacci hashing, then the high half of a 128-bit product maps to 0..len.
        let hash = position.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        ((hash as u128 * self.slots.len() as u128) >> 64) as usize
    }

    /// The value at `position`.
    #[inline]
    fn value_at(&self, position: u64) -> u64 {
        let mut slot = self.home(position);
        loop {
            let (key, value) = self.slots[slot];
            if key == VACANT {
                return position;
            }
            if key == position {
                return value;
            }
            slot += 1;
            if slot == self.slots.len() {
                slot = 0;
            }
        }
    }

    /// Puts `value` at `position` and returns the value that was there.
    #[inline]
    fn replace(&mut self, position: u64, value: u64) -> u64 {
        debug_assert_ne!(position, VACANT);
        let mut slot = self.home(position);
        loop {
            let (key, old) = self.slots[slot];
            if key == VACANT {
                self.slots[slot] = (position, value);
                return position;
            }
            if key == position {
                self.slots[slot].1 = value;
                return old;
            }
            slot += 1;
            if slot == self.slots.len() {
                slot = 0;
            }
        }
    }
}

/// Fisher-Yates over the positions 0..=span, stopped after `k` steps (`k <= span + 1`). Calls
/// `emit(p, position)` once for each p in 0..k, with the position that ends at the p-th of the
/// last k places, and `check` every [`CHECK_EVERY`] steps.
fn partial_fisher_yates(
    span: u64,
    k: usize,
    stream: &mut Stream,
    check: &mut dyn FnMut(),
    mut emit: impl FnMut(usize, u64),
) -> Result<(), Error> {
    debug_assert!(k as u128 <= span as u128 + 1);
    if k == 0 {
        return Ok(());
    }
    let mut displaced = Displaced::with_room_for(k)?;
    for t in 0..k {
        if t % CHECK_EVERY == CHECK_EVERY - 1 {
            check();
        }
        let i = span - t as u64;
        // i + 1 is 2^64 only on the first step over the whole int8 range.
        let j = match i.checked_add(1) {
            Some(bound) => stream.below_u64(bound),
            None => stream.next_u64(),
        };
        let at_i = displaced.value_at(i);
        let chosen = if j == i {
            at_i
        } else {
            displaced.replace(j, at_i)
        };
        emit(k - 1 - t, chosen);
    }
    Ok(())
}

/// Fills `out` with `out.len()` distinct integers of `lo..=hi` in uniformly random order: the
/// last `out.len()` entries of the Fisher-Yates shuffle of the range with this stream.
/// `out.len()` must have passed [`sample_ints_len`].
pub fn sample_range(
    lo: i64,
    hi: i64,
    out: &mut [i64],
    stream: &mut Stream,
    check: &mut dyn FnMut(),
) -> Result<(), Error> {
    // hi - lo as a two's complement difference: the largest offset, up to 2^64 - 1.
    let span = hi.wrapping_sub(lo) as u64;
    partial_fisher_yates(span, out.len(), stream, check, |p, offset| {
        out[p] = lo.wrapping_add(offset as i64);
    })
}

/// The order of a shuffled array: `order[p]` is the index of the item that goes to place p.
pub fn shuffled_order(items: usize, stream: &mut Stream, check: &mut dyn FnMut()) -> Vec<u32> {
    // items <= MAX_ARRAY_ITEMS < 2^32.
    let mut order: Vec<u32> = (0..items as u32).collect();
    fisher_yates(&mut order, stream, check);
    order
}

/// The items of a sample of `k` out of `items`, in order: the indices `sample_range` draws
/// from 0..items, so the sample is the last k items of the shuffle with the same stream.
pub fn sampled_order(
    items: usize,
    k: usize,
    stream: &mut Stream,
    check: &mut dyn FnMut(),
) -> Result<Vec<u32>, Error> {
    let mut order = vec![0u32; k];
    if k > 0 {
        partial_fisher_yates(items as u64 - 1, k, stream, check, |p, index| {
            order[p] = index as u32;
        })?;
    }
    Ok(order)
}

/// The size of the items named by `order`, where item i is the bytes `bounds[i]..bounds[i+1]`.
pub fn gathered_len(bounds: &[usize], order: &[u32]) -> usize {
    order
        .iter()
        .map(|&i| bounds[i as usize + 1] - bounds[i as usize])
        .sum()
}

/// Copies the items named by `order`, in that order, from `data` into `out`.
///
/// `out.len()` must be [`gathered_len`]. The last item may reach past the end of `data` by the
/// alignment padding an array leaves after its last element; those bytes are left as they are
/// in `out` (zero). Items are whole elements with their padding, so each item's size is a
/// multiple of the element alignment and every element lands aligned again.
pub fn gather_items(
    data: &[u8],
    bounds: &[usize],
    order: &[u32],
    out: &mut [u8],
    check: &mut dyn FnMut(),
) {
    let mut at = 0;
    for (p, &item) in order.iter().enumerate() {
        if p % CHECK_EVERY == CHECK_EVERY - 1 {
            check();
        }
        let (start, end) = (bounds[item as usize], bounds[item as usize + 1]);
        let present = end.min(data.len()).max(start);
        out[at..at + (present - start)].copy_from_slice(&data[start..present]);
        at += end - start;
    }
    debug_assert_eq!(at, out.len());
}

#[inline]
fn bit(bitmap: &[u8], index: usize) -> bool {
    bitmap[index / 8] & (1 << (index % 8)) != 0
}

/// Whether any element of the items named by `order` is null (a 0 bit in Postgres's bitmap,
/// `inner` elements per item).
pub fn any_null(bitmap: &[u8], inner: usize, order: &[u32]) -> bool {
    order.iter().any(|&item| {
        let first = item as usize * inner;
        (first..first + inner).any(|e| !bit(bitmap, e))
    })
}

/// Copies the bitmap bits of the items named by `order` into `out`, which must start zeroed.
pub fn gather_null_bits(bitmap: &[u8], inner: usize, order: &[u32], out: &mut [u8]) {
    for (p, &item) in order.iter().enumerate() {
        let (from, to) = (item as usize * inner, p * inner);
        for e in 0..inner {
            if bit(bitmap, from + e) {
                out[(to + e) / 8] |= 1 << ((to + e) % 8);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats;
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
    fn a_full_sample_is_the_shuffle_and_a_sample_is_the_shuffles_tail() {
        // Over an int4 range, sample_ints(lo, hi, k, seed) is the last k of shuffle_ints.
        let mut full = vec![0; 54];
        crate::shuffle::permute_range(&mut full, 1, &mut seeded(5), &mut || {});
        let full: Vec<i64> = full.into_iter().map(i64::from).collect();
        assert_eq!(sample(1, 54, 54, &mut seeded(5)), full);
        for k in [0, 1, 6, 53] {
            assert_eq!(sample(1, 54, k, &mut seeded(5)), full[54 - k..]);
        }
        let order = shuffled_order(54, &mut seeded(5), &mut || {});
        let tail = sampled_order(54, 6, &mut seeded(5), &mut || {}).unwrap();
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
        // independent implementation of the README's specification. A change here breaks every
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
            shuffled_order(10, &mut seeded(0), &mut || {}),
            [9, 8, 2, 3, 0, 4, 1, 7, 5, 6]
        );
        assert_eq!(
            sampled_order(10, 3, &mut counting(), &mut || {}).unwrap(),
            [8, 3, 4]
        );
    }

    #[test]
    fn check_is_called_on_long_samples() {
        let mut calls = 0;
        let mut out = vec![0; 3 * CHECK_EVERY];
        sample_range(1, 1 << 40, &mut out, &mut seeded(4), &mut || calls += 1).unwrap();
        assert_eq!(calls, 3);
        let mut calls = 0;
        let data = vec![0u8; 3 * CHECK_EVERY];
        let bounds: Vec<usize> = (0..=data.len()).collect();
        let order: Vec<u32> = (0..data.len() as u32).collect();
        let mut out = vec![0u8; data.len()];
        gather_items(&data, &bounds, &order, &mut out, &mut || calls += 1);
        assert_eq!(calls, 3);
    }

    /// Items of different lengths in one data area, as a text[] would have them.
    fn word_items(words: &[&str]) -> (Vec<u8>, Vec<usize>) {
        let mut data = Vec::new();
        let mut bounds = vec![0];
        for w in words {
            data.extend_from_slice(w.as_bytes());
            bounds.push(data.len());
        }
        (data, bounds)
    }

    fn gathered_words(words: &[&str], order: &[u32]) -> Vec<u8> {
        let (data, bounds) = word_items(words);
        let mut out = vec![0u8; gathered_len(&bounds, order)];
        gather_items(&data, &bounds, order, &mut out, &mut || {});
        out
    }

    #[test]
    fn gather_moves_whole_items_of_any_size() {
        let words = ["a", "", "ccc", "bb"];
        assert_eq!(gathered_words(&words, &[3, 0, 2, 1]), b"bbaccc");
        assert_eq!(gathered_words(&words, &[2, 2]), b"cccccc");
        assert_eq!(gathered_words(&words, &[]), b"");
        // The last item's padding may lie past the data: it stays zero.
        let data = [1u8, 2, 3, 4, 5];
        let bounds = [0, 4, 8];
        let mut out = vec![0u8; 8];
        gather_items(&data, &bounds, &[1, 0], &mut out, &mut || {});
        assert_eq!(out, [5, 0, 0, 0, 1, 2, 3, 4]);
    }

    #[test]
    fn null_bits_follow_their_items() {
        // 5 items of 3 elements; bit set = not null. Item 1 has a null in the middle, item 4 is
        // all null.
        let mut bitmap = vec![0xffu8, 0xff];
        for e in [4, 12, 13, 14] {
            bitmap[e / 8] &= !(1 << (e % 8));
        }
        let order = [4u32, 1, 0];
        let mut out = vec![0u8; 2];
        gather_null_bits(&bitmap, 3, &order, &mut out);
        let bits: Vec<bool> = (0..9).map(|e| bit(&out, e)).collect();
        assert_eq!(
            bits,
            [false, false, false, true, false, true, true, true, true]
        );
        assert!(
            (9..16).all(|e| !bit(&out, e)),
            "bits past the items stay zero"
        );
        assert!(any_null(&bitmap, 3, &order));
        assert!(!any_null(&bitmap, 3, &[0, 2, 3]));
    }

    /// Lehmer code of a permutation of 0..n: a number in 0..n!.
    fn permutation_index(p: &[u8]) -> usize {
        let n = p.len();
        let mut index = 0;
        for i in 0..n {
            let smaller_after = p[i + 1..].iter().filter(|&&x| x < p[i]).count();
            index = index * (n - i) + smaller_after;
        }
        index
    }

    /// Shuffles four items of different lengths through `order` and `gather_items`, as
    /// shuffle_array does, and counts each resulting permutation.
    fn array_permutation_counts(order: &mut dyn FnMut() -> Vec<u32>, draws: usize) -> Vec<u64> {
        let words = ["0", "11", "222", "3333"];
        let mut counts = vec![0u64; 24];
        for _ in 0..draws {
            let out = gathered_words(&words, &order());
            // Reading the items back: each one is a run of its own digit.
            let mut items = Vec::new();
            for &b in &out {
                if items.last() != Some(&(b - b'0')) {
                    items.push(b - b'0');
                }
            }
            assert_eq!(items.len(), 4);
            counts[permutation_index(&items)] += 1;
        }
        counts
    }

    /// The naive shuffle (j drawn from all n places on every step): biased.
    fn naive_order(n: usize, stream: &mut Stream) -> Vec<u32> {
        let mut order: Vec<u32> = (0..n as u32).collect();
        for i in 0..n {
            let j = stream.below(n as u32) as usize;
            order.swap(i, j);
        }
        order
    }

    /// Sattolo's algorithm (j drawn from 0..i): only cyclic permutations.
    fn sattolo_order(n: usize, stream: &mut Stream) -> Vec<u32> {
        let mut order: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            let j = stream.below(i as u32) as usize;
            order.swap(i, j);
        }
        order
    }

    #[test]
    fn array_shuffle_permutation_frequency_is_uniform_and_catches_biased_shuffles() {
        let draws = 48_000;
        let mut stream = seeded(31);
        let fair =
            array_permutation_counts(&mut || shuffled_order(4, &mut stream, &mut || {}), draws);
        assert!(fair.iter().all(|&c| c > 0), "a permutation never appeared");
        let test = stats::chi_square_uniform(&fair);
        assert_eq!(test.df, 23);
        assert!(test.p_value > ALPHA, "fair shuffle rejected: {test:?}");

        let mut stream = seeded(31);
        let naive = array_permutation_counts(&mut || naive_order(4, &mut stream), draws);
        let test = stats::chi_square_uniform(&naive);
        assert!(test.p_value < ALPHA, "naive shuffle not caught: {test:?}");

        let mut stream = seeded(31);
        let sattolo = array_permutation_counts(&mut || sattolo_order(4, &mut stream), draws);
        let test = stats::chi_square_uniform(&sattolo);
        assert!(
            test.p_value < ALPHA,
            "Sattolo's shuffle not caught: {test:?}"
        );
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
}
