//! Sampling without replacement: k distinct values of an integer range, of any size.
//!
//! Every order and every sample here comes from Fisher-Yates on a [`Stream`]:
//!
//! - a shuffle of n items is Fisher-Yates on the items in index order, exactly as `shuffle_ints`
//!   permutes a range;
//! - a sample of k values from a range of m is the same loop stopped after k steps: for t in
//!   0..k, i = m-1-t, j = uniform(0..=i), swap positions i and j. Positions m-k..m-1 then hold
//!   a uniformly random k-permutation of the range, and they are exactly the last k positions a
//!   full shuffle with the same stream would produce. The range is never materialized: only the
//!   positions whose value has moved are kept, in [`Displaced`], so time and memory grow with k,
//!   not with m. m may be 2^64 (the whole int8 range); the one draw with bound 2^64 is a plain
//!   64-bit word, which is what Lemire's method gives for that bound (nothing is rejected).
//!
//! Moving the items of an array into such an order is `crate::items`.

use crate::error::{Error, ErrorKind};
use crate::rng::Stream;
use crate::scratch::Claim;
use crate::shuffle::{fisher_yates_steps, prefetch, CHECK_EVERY};

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

/// A table of `len` vacant entries for a sample of `steps` values, counted against the call's
/// working memory, or an error if the memory is refused. It is filled [`CHECK_EVERY`] entries at
/// a time with `check` between: for the largest samples the table is gigabytes, and filling it
/// must stay cancellable.
fn sample_table<T: Clone>(
    len: usize,
    vacant: T,
    steps: usize,
    check: &mut dyn FnMut(),
) -> Result<(Vec<T>, Claim), Error> {
    let what = format!("a sample of {steps} values");
    let claim = Claim::new(len.saturating_mul(size_of::<T>()), &what)?;
    let mut table = Vec::new();
    table.try_reserve_exact(len).map_err(|_| {
        Error::new(
            ErrorKind::TooLarge,
            format!("not enough memory to draw {what}"),
        )
    })?;
    while table.len() < len {
        let chunk = (len - table.len()).min(CHECK_EVERY);
        table.extend(std::iter::repeat_n(vacant.clone(), chunk));
        if table.len() < len {
            check();
        }
    }
    Ok((table, claim))
}

/// Marks a vacant slot of [`Displaced`]. Never a stored position: a position is stored only
/// when it is below the step's i, and i <= u64::MAX.
const VACANT: u64 = u64::MAX;

/// The slot of a table of `len` slots where a lookup of `position` starts: Fibonacci hashing,
/// then the high half of a 128-bit product maps to 0..len.
#[inline]
fn home(position: u64, len: usize) -> usize {
    let hash = position.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    ((hash as u128 * len as u128) >> 64) as usize
}

/// The positions of a virtual range whose value is no longer the position itself.
///
/// Open addressing with linear probing, sized once for the k steps of a sample (each step
/// stores at most one new position), at most two thirds full. Positions are drawn uniformly, so
/// a multiplicative hash spreads them without any defence against chosen keys.
struct Displaced {
    slots: Vec<(u64, u64)>,
    _claim: Claim,
    /// The highest position stored, if any: positions above it were never moved, which spares
    /// most lookups when the range is much larger than the sample.
    highest: Option<u64>,
}

impl Displaced {
    fn with_room_for(steps: usize, check: &mut dyn FnMut()) -> Result<Self, Error> {
        let len = steps.saturating_add(steps / 2).max(16);
        let (slots, claim) = sample_table(len, (VACANT, 0), steps, check)?;
        Ok(Displaced {
            slots,
            _claim: claim,
            highest: None,
        })
    }

    #[inline]
    fn home(&self, position: u64) -> usize {
        home(position, self.slots.len())
    }

    /// What starts loading the slot a lookup of a position will read first. It holds the
    /// table's address, not a borrow (the table is never resized), so it can run between the
    /// steps that change the table.
    fn prefetcher(&self) -> impl Fn(u64) {
        let (slots, len) = (self.slots.as_ptr(), self.slots.len());
        move |position| prefetch(slots.wrapping_add(home(position, len)))
    }

    /// The value at `position`.
    #[inline]
    fn value_at(&self, position: u64) -> u64 {
        if self.highest.is_none_or(|highest| position > highest) {
            return position;
        }
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
        self.highest = self.highest.max(Some(position));
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

/// How many draws [`partial_fisher_yates`] makes ahead of the step that uses them.
const DRAW_AHEAD: usize = 8;

/// The draw of step t of Fisher-Yates over the positions 0..=span: uniform in 0..=i for
/// i = span - t. i + 1 is 2^64 only on the first step over the whole int8 range, where the draw
/// is a plain 64-bit word.
#[inline(always)]
fn draw_step(stream: &mut Stream, span: u64, t: usize) -> u64 {
    let i = span - t as u64;
    match i.checked_add(1) {
        Some(bound) => stream.below_u64(bound),
        None => stream.next_u64(),
    }
}

/// Fisher-Yates over the positions 0..=span, stopped after `k` steps (`k <= span + 1`). Calls
/// `emit(p, position)` once for each p in 0..k, with the position that ends at the p-th of the
/// last k places, and `check` every [`CHECK_EVERY`] steps.
pub(crate) fn partial_fisher_yates(
    span: u64,
    k: usize,
    stream: &mut Stream,
    check: &mut dyn FnMut(),
    emit: impl FnMut(usize, u64),
) -> Result<(), Error> {
    replay_partial_fisher_yates(span, k, |t| draw_step(stream, span, t), check, emit)
}

/// [`partial_fisher_yates`] with the draw of step t given by `draw(t)`, called once for each t
/// in increasing order.
fn replay_partial_fisher_yates(
    span: u64,
    k: usize,
    draw: impl FnMut(usize) -> u64,
    check: &mut dyn FnMut(),
    mut emit: impl FnMut(usize, u64),
) -> Result<(), Error> {
    debug_assert!(k as u128 <= span as u128 + 1);
    if k == 0 {
        return Ok(());
    }
    let mut displaced = Displaced::with_room_for(k, check)?;
    fisher_yates_steps::<DRAW_AHEAD>(k, draw, displaced.prefetcher(), check, |t, j| {
        let i = span - t as u64;
        let at_i = displaced.value_at(i);
        let chosen = if j == i {
            at_i
        } else {
            displaced.replace(j, at_i)
        };
        emit(k - 1 - t, chosen);
    });
    Ok(())
}

/// Whether a sample of k out of span + 1 positions is sparse enough for [`sparse_sample`]:
/// k^2 <= (span + 1) / 64, so that its draws meet (the same position twice, or a position among
/// the last k places) in under 3 samples in 100.
fn is_sparse(span: u64, k: usize) -> bool {
    (k as u128) * (k as u128) * 64 <= span as u128 + 1
}

/// Marks a vacant slot of [`Fingerprints`].
const NO_FINGERPRINT: u32 = 0;

/// A set of positions kept as 32-bit fingerprints, in buckets of four (open addressing over
/// buckets, linear probing, a power of two of slots, at least a third and at most two thirds
/// full): a position not in the set is never reported present; one in it always is; another
/// with the same fingerprint and home may be (about once in 2^31 comparisons). A bucket is
/// checked whole, without a branch per slot.
struct Fingerprints {
    buckets: Vec<[u32; 4]>,
    _claim: Claim,
    /// 64 - log2(buckets.len()): the home of a position is the top bits of its hash.
    shift: u32,
}

impl Fingerprints {
    fn with_room_for(steps: usize, check: &mut dyn FnMut()) -> Result<Self, Error> {
        let slots = steps.saturating_add(steps / 2).max(16).next_power_of_two();
        let len = slots / 4;
        let (buckets, claim) = sample_table(len, [NO_FINGERPRINT; 4], steps, check)?;
        Ok(Fingerprints {
            buckets,
            _claim: claim,
            shift: 64 - len.trailing_zeros(),
        })
    }

    /// Adds `position`; false if it (or a position with its fingerprint) was there already.
    #[inline]
    fn insert(&mut self, position: u64) -> bool {
        // The low bits, which the home (from the top bits of the hash) does not already tell
        // apart; never NO_FINGERPRINT.
        let fingerprint = position as u32 | 1;
        let mask = self.buckets.len() - 1;
        // Fibonacci hashing: the top bits of the product.
        let mut at = (position.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize;
        loop {
            let bucket = &mut self.buckets[at];
            let (mut same, mut vacant) = (0u32, 0u32);
            for (slot, &seen) in bucket.iter().enumerate() {
                same |= u32::from(seen == fingerprint) << slot;
                vacant |= u32::from(seen == NO_FINGERPRINT) << slot;
            }
            if same != 0 {
                return false;
            }
            if vacant != 0 {
                // Slots fill in order, so no fingerprint sits after a vacant slot.
                bucket[vacant.trailing_zeros() as usize] = fingerprint;
                return true;
            }
            at = (at + 1) & mask;
        }
    }
}

/// The sample of [`partial_fisher_yates`] when the draws never meet: if no draw repeats an
/// earlier one and none falls among the last k places (which the steps fill), no swap ever
/// touches a position an earlier step moved, and step t's position is simply its draw. The k
/// draws are made (all of them, in order: the stream is used exactly as the full algorithm uses
/// it) and written to `out` as offsets; if two of them meet, or might (a shared fingerprint), the
/// full algorithm is replayed on the same draws. Returns whether it was.
fn sparse_sample(
    span: u64,
    out: &mut [i64],
    stream: &mut Stream,
    check: &mut dyn FnMut(),
) -> Result<bool, Error> {
    let k = out.len();
    let mut seen = Fingerprints::with_room_for(k, check)?;
    // The draws first, in a loop of their own (the stream's work), then the checks (the
    // set's work): each loop runs faster alone than the two interleaved.
    for t in 0..k {
        if t % CHECK_EVERY == CHECK_EVERY - 1 {
            check();
        }
        out[k - 1 - t] = draw_step(stream, span, t) as i64;
    }
    // The last k places: span - k + 1 ..= span.
    let first_place = span - (k as u64 - 1);
    let mut met = false;
    for (t, &j) in out.iter().enumerate() {
        if t % CHECK_EVERY == CHECK_EVERY - 1 {
            check();
        }
        met |= j as u64 >= first_place || !seen.insert(j as u64);
    }
    if !met {
        return Ok(false);
    }
    let draws: Vec<u64> = out.iter().rev().map(|&j| j as u64).collect();
    replay_partial_fisher_yates(
        span,
        k,
        |t| draws[t],
        check,
        |p, offset| {
            out[p] = offset as i64;
        },
    )?;
    Ok(true)
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
    sample_range_replayed(lo, hi, out, stream, check).map(|_| ())
}

/// [`sample_range`], telling whether a sparse sample had to replay the full algorithm.
fn sample_range_replayed(
    lo: i64,
    hi: i64,
    out: &mut [i64],
    stream: &mut Stream,
    check: &mut dyn FnMut(),
) -> Result<bool, Error> {
    // hi - lo as a two's complement difference: the largest offset, up to 2^64 - 1.
    let span = hi.wrapping_sub(lo) as u64;
    let replayed = if out.is_empty() {
        false
    } else if is_sparse(span, out.len()) {
        sparse_sample(span, out, stream, check)?
    } else {
        partial_fisher_yates(span, out.len(), stream, check, |p, offset| {
            out[p] = offset as i64;
        })?;
        false
    };
    for value in out.iter_mut() {
        *value = lo.wrapping_add(*value);
    }
    Ok(replayed)
}

#[cfg(test)]
mod tests;
