//! Sampling without replacement, and moving the items of a flat array into a new order.
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
//! Items of an array are byte ranges of its data area ([`ItemBounds`]); [`gather_items`] and
//! [`gather_null_bits`] copy them, and their null-bitmap bits, in a given order. Bytes are moved
//! as they are, so any element type moves without being decoded.

use crate::error::{Error, ErrorKind};
use crate::rng::Stream;
use crate::scratch::Scratch;
use crate::shuffle::{fisher_yates, prefetch, CHECK_EVERY};

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

/// A table of `len` vacant entries for a sample of `steps` values, or an error if the memory
/// is refused.
fn sample_table<T: Clone>(len: usize, vacant: T, steps: usize) -> Result<Vec<T>, Error> {
    let mut table = Vec::new();
    table.try_reserve_exact(len).map_err(|_| {
        Error::new(
            ErrorKind::TooLarge,
            format!("not enough memory to draw a sample of {steps} values"),
        )
    })?;
    table.resize(len, vacant);
    Ok(table)
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
    /// The highest position stored, if any: positions above it were never moved, which spares
    /// most lookups when the range is much larger than the sample.
    highest: Option<u64>,
}

impl Displaced {
    fn with_room_for(steps: usize) -> Result<Self, Error> {
        let len = steps.saturating_add(steps / 2).max(16);
        Ok(Displaced {
            slots: sample_table(len, (VACANT, 0), steps)?,
            highest: None,
        })
    }

    #[inline]
    fn home(&self, position: u64) -> usize {
        // Fibonacci hashing, then the high half of a 128-bit product maps to 0..len.
        let hash = position.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        ((hash as u128 * self.slots.len() as u128) >> 64) as usize
    }

    /// Starts loading the slot a lookup of `position` will read first.
    #[inline]
    fn prefetch(&self, position: u64) {
        prefetch(self.slots.as_ptr().wrapping_add(self.home(position)));
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
fn partial_fisher_yates(
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
    mut draw: impl FnMut(usize) -> u64,
    check: &mut dyn FnMut(),
    mut emit: impl FnMut(usize, u64),
) -> Result<(), Error> {
    debug_assert!(k as u128 <= span as u128 + 1);
    if k == 0 {
        return Ok(());
    }
    let mut displaced = Displaced::with_room_for(k)?;
    // Draws do not depend on the table, so they are made a few steps early (in the same order)
    // and the slot each one will probe is fetched meanwhile.
    let mut drawn = [0u64; DRAW_AHEAD];
    for (t, slot) in drawn.iter_mut().enumerate().take(k) {
        *slot = draw(t);
    }
    for t in 0..k {
        if t % CHECK_EVERY == CHECK_EVERY - 1 {
            check();
        }
        let j = drawn[t % DRAW_AHEAD];
        if t + DRAW_AHEAD < k {
            let ahead = draw(t + DRAW_AHEAD);
            drawn[t % DRAW_AHEAD] = ahead;
            displaced.prefetch(ahead);
        }
        let i = span - t as u64;
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
    /// 64 - log2(buckets.len()): the home of a position is the top bits of its hash.
    shift: u32,
}

impl Fingerprints {
    fn with_room_for(steps: usize) -> Result<Self, Error> {
        let slots = steps.saturating_add(steps / 2).max(16).next_power_of_two();
        let len = slots / 4;
        Ok(Fingerprints {
            buckets: sample_table(len, [NO_FINGERPRINT; 4], steps)?,
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
    let mut seen = Fingerprints::with_room_for(k)?;
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

/// Where the items of an array's data area start and end.
#[derive(Debug, PartialEq, Eq)]
pub enum ItemBounds {
    /// Every item has the same size (fixed-length elements and no NULLs): item i is
    /// `i * item_len .. (i + 1) * item_len`.
    Uniform { item_len: u32 },
    /// Item i is `offsets[i]..offsets[i + 1]`. An array's data is under 1 GB, so offsets fit
    /// in 32 bits.
    Listed(Scratch<u32>),
}

/// One item of an array's first dimension: its index and where its bytes are in the data.
/// Items are shuffled as these records, so copying them afterwards reads the records in order
/// and goes to random places in the data only once per item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item {
    pub index: u32,
    pub start: u32,
    pub len: u32,
}

impl ItemBounds {
    /// The item with this index.
    #[inline]
    pub fn item(&self, index: usize) -> Item {
        let (start, end) = match self {
            ItemBounds::Uniform { item_len } => {
                (index as u32 * item_len, (index as u32 + 1) * item_len)
            }
            ItemBounds::Listed(offsets) => (offsets[index], offsets[index + 1]),
        };
        Item {
            index: index as u32,
            start,
            len: end - start,
        }
    }
}

/// The `count` items of an array in a uniformly random order: Fisher-Yates on the items in
/// index order, which is exactly the permutation `shuffle_ints(1, count)` makes with the same
/// stream.
pub fn shuffled_items(
    bounds: &ItemBounds,
    count: usize,
    stream: &mut Stream,
    check: &mut dyn FnMut(),
) -> Result<Scratch<Item>, Error> {
    let mut items = Scratch::from_fn(count, |i| bounds.item(i))?;
    fisher_yates(&mut items, stream, check);
    Ok(items)
}

/// An item of up to `N` bytes carried with its bytes. Shuffling slots moves the items
/// themselves, so the result is then written in one sequential pass instead of one random read
/// per item; small items (numbers, uuids, short text) take this way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct Slot<const N: usize> {
    len: u32,
    bytes: [u8; N],
}

/// The largest items slots hold: slots of 16 and 32 bytes, 4 of which keep the length.
pub const SLOT_ITEM_BYTES: [usize; 2] = [12, 28];

/// Whether slots for `count` items, `N` bytes each, cost no more memory than 16 bytes an item
/// (the 12-byte item records of [`shuffled_items`] and 4 to spare) plus twice the data
/// (`data_len` bytes): 16-byte slots always do, larger ones when the items fill them enough.
pub fn slots_affordable<const N: usize>(count: usize, data_len: usize) -> bool {
    count.saturating_mul(size_of::<Slot<N>>())
        <= count
            .saturating_mul(16)
            .saturating_add(data_len.saturating_mul(2))
}

/// The item at `start..end` of `data` in a slot, or None if it is longer than `N`. Bytes of
/// the item past the end of `data` (the last item's alignment padding) are zeros.
#[inline]
pub fn slot_of<const N: usize>(data: &[u8], start: usize, end: usize) -> Option<Slot<N>> {
    let len = end - start;
    if len > N {
        return None;
    }
    let bytes = match data.get(start..start + N) {
        // A whole slot's worth, as one fixed-size load; the bytes after the item are never
        // written out.
        Some(whole) => <[u8; N]>::try_from(whole).unwrap(),
        None => {
            let mut bytes = [0; N];
            let present = end.min(data.len()).max(start);
            bytes[..present - start].copy_from_slice(&data[start..present]);
            bytes
        }
    };
    Some(Slot {
        len: len as u32,
        bytes,
    })
}

/// The size of the items in these slots together.
pub fn slotted_len<const N: usize>(slots: &[Slot<N>]) -> usize {
    slots.iter().map(|slot| slot.len as usize).sum()
}

/// Writes the items in `slots`, in that order, to `out`, whose length must be
/// [`slotted_len`]; every byte of it is written.
pub fn write_slots<const N: usize>(slots: &[Slot<N>], out: &mut [u8], check: &mut dyn FnMut()) {
    let mut at = 0;
    for (p, slot) in slots.iter().enumerate() {
        if p % CHECK_EVERY == CHECK_EVERY - 1 {
            check();
        }
        let len = slot.len as usize;
        if at + N <= out.len() {
            // The whole slot: a fixed-size copy. Bytes past the item are overwritten by the
            // items after it, since `at` only grows.
            out[at..at + N].copy_from_slice(&slot.bytes);
        } else {
            out[at..at + len].copy_from_slice(&slot.bytes[..len]);
        }
        at += len;
    }
    debug_assert_eq!(at, out.len());
}

/// `k` of an array's `count` items, in order: those of the indices `sample_range` draws from
/// 0..count, so the sample is the last k items of the shuffle with the same stream.
pub fn sampled_items(
    bounds: &ItemBounds,
    count: usize,
    k: usize,
    stream: &mut Stream,
    check: &mut dyn FnMut(),
) -> Result<Vec<Item>, Error> {
    let mut indices = vec![0u32; k];
    if k > 0 {
        partial_fisher_yates(count as u64 - 1, k, stream, check, |p, index| {
            indices[p] = index as u32;
        })?;
    }
    Ok(indices.iter().map(|&i| bounds.item(i as usize)).collect())
}

/// The size of these items together.
pub fn gathered_len(items: &[Item]) -> usize {
    items.iter().map(|item| item.len as usize).sum()
}

/// How many items ahead [`gather_items`] asks for the data it will copy. Reads of a shuffled
/// gather land anywhere in the data; asking early keeps several of them in flight instead of
/// waiting for each in turn.
const PREFETCH_AHEAD: usize = 16;

/// Items up to this size are copied in 16-byte chunks rather than by a call to memcpy.
const SMALL_ITEM: usize = 64;
const CHUNK: usize = 16;

/// Copies the bytes of `items`, in that order, from `data` into `out`.
///
/// `out.len()` must be [`gathered_len`]; every byte of it is written. The last item may reach
/// past the end of `data` by the alignment padding an array leaves after its last element;
/// those bytes are written as zeros. Items are whole elements with their padding, so each
/// item's size is a multiple of the element alignment and every element lands aligned again.
pub fn gather_items(data: &[u8], items: &[Item], out: &mut [u8], check: &mut dyn FnMut()) {
    let mut at = 0;
    for (p, item) in items.iter().enumerate() {
        if p % CHECK_EVERY == CHECK_EVERY - 1 {
            check();
        }
        if let Some(ahead) = items.get(p + PREFETCH_AHEAD) {
            prefetch(data.as_ptr().wrapping_add(ahead.start as usize));
        }
        let (start, len) = (item.start as usize, item.len as usize);
        let chunked = len.next_multiple_of(CHUNK);
        if len <= SMALL_ITEM && start + chunked <= data.len() && at + chunked <= out.len() {
            // Whole chunks may copy a few bytes too many; the items after this one overwrite
            // them, since `at` only grows, and both ends were checked to be in bounds.
            for c in (0..chunked).step_by(CHUNK) {
                out[at + c..at + c + CHUNK].copy_from_slice(&data[start + c..start + c + CHUNK]);
            }
        } else {
            let present = (start + len).min(data.len()).max(start);
            out[at..at + (present - start)].copy_from_slice(&data[start..present]);
            out[at + (present - start)..at + len].fill(0);
        }
        at += len;
    }
    debug_assert_eq!(at, out.len());
}

#[inline]
fn bit(bitmap: &[u8], index: usize) -> bool {
    bitmap[index / 8] & (1 << (index % 8)) != 0
}

/// Whether any element of these items is null (a 0 bit in Postgres's bitmap, `inner`
/// elements per item).
pub fn any_null(bitmap: &[u8], inner: usize, items: &[Item]) -> bool {
    items.iter().any(|item| {
        let first = item.index as usize * inner;
        (first..first + inner).any(|e| !bit(bitmap, e))
    })
}

/// Copies the bitmap bits of `items`, in that order, into `out`, which must start zeroed.
pub fn gather_null_bits(bitmap: &[u8], inner: usize, items: &[Item], out: &mut [u8]) {
    for (p, item) in items.iter().enumerate() {
        let (from, to) = (item.index as usize * inner, p * inner);
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
    use dealcards_fairness::stats;
    use std::collections::HashSet;

    const ALPHA: f64 = 1e-4;

    fn seeded(seed: u8) -> Stream {
        Stream::from_seed([seed; 32])
    }

    fn counting() -> Stream {
        Stream::from_seed(std::array::from_fn(|i| i as u8))
    }

    fn indices(items: &[Item]) -> Vec<u32> {
        items.iter().map(|item| item.index).collect()
    }

    /// Items of one byte each, shuffled: the order shuffle_array gives an array of `n` items.
    fn shuffled_order(n: usize, stream: &mut Stream) -> Vec<u32> {
        indices(
            &shuffled_items(&ItemBounds::Uniform { item_len: 1 }, n, stream, &mut || {}).unwrap(),
        )
    }

    fn sampled_order(n: usize, k: usize, stream: &mut Stream) -> Vec<u32> {
        let bounds = ItemBounds::Uniform { item_len: 1 };
        indices(&sampled_items(&bounds, n, k, stream, &mut || {}).unwrap())
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
            let (mut fast_stream, mut dense_stream) =
                (Stream::from_seed(key), Stream::from_seed(key));
            let mut out = vec![0; k];
            let met =
                sample_range_replayed(lo, hi, &mut out, &mut fast_stream, &mut || {}).unwrap();
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
        let mut set = Fingerprints::with_room_for(1000).unwrap();
        let mut stream = seeded(8);
        let positions: Vec<u64> = (0..1000).map(|_| stream.next_u64()).collect();
        assert!(positions.iter().all(|&p| set.insert(p)));
        assert!(positions.iter().all(|&p| !set.insert(p)));
        // Positions 0 and 1 share a fingerprint by construction, but not a home.
        let mut set = Fingerprints::with_room_for(2).unwrap();
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
        assert_eq!(calls, 3);
        // A sparse sample checks while drawing and again while checking the draws.
        assert!(is_sparse((1 << 62) - 1, out.len()));
        let mut calls = 0;
        sample_range(1, 1 << 62, &mut out, &mut seeded(4), &mut || calls += 1).unwrap();
        assert_eq!(calls, 6);
        let mut calls = 0;
        let data = vec![0u8; 3 * CHECK_EVERY];
        let bounds = ItemBounds::Uniform { item_len: 1 };
        let items =
            shuffled_items(&bounds, data.len(), &mut seeded(4), &mut || calls += 1).unwrap();
        assert_eq!(calls, 2, "Fisher-Yates checks every {CHECK_EVERY} swaps");
        let mut calls = 0;
        let mut out = vec![0u8; data.len()];
        gather_items(&data, &items, &mut out, &mut || calls += 1);
        assert_eq!(calls, 3);
    }

    /// Items of different lengths in one data area, as a text[] would have them.
    fn word_items(words: &[&str]) -> (Vec<u8>, ItemBounds) {
        let mut data = Vec::new();
        let mut offsets = vec![0];
        for w in words {
            data.extend_from_slice(w.as_bytes());
            offsets.push(data.len() as u32);
        }
        (
            data,
            ItemBounds::Listed(Scratch::from_slice(&offsets).unwrap()),
        )
    }

    fn items_in_order(bounds: &ItemBounds, order: &[u32]) -> Vec<Item> {
        order.iter().map(|&i| bounds.item(i as usize)).collect()
    }

    fn gathered(data: &[u8], items: &[Item]) -> Vec<u8> {
        let mut out = vec![0xeeu8; gathered_len(items)];
        gather_items(data, items, &mut out, &mut || {});
        out
    }

    fn gathered_words(words: &[&str], order: &[u32]) -> Vec<u8> {
        let (data, bounds) = word_items(words);
        gathered(&data, &items_in_order(&bounds, order))
    }

    #[test]
    fn gather_moves_whole_items_of_any_size() {
        let words = ["a", "", "ccc", "bb"];
        assert_eq!(gathered_words(&words, &[3, 0, 2, 1]), b"bbaccc");
        assert_eq!(gathered_words(&words, &[2, 2]), b"cccccc");
        assert_eq!(gathered_words(&words, &[]), b"");
        // Items of every size around the 16-byte chunks and the small-item limit, so that
        // chunked copies that run over are overwritten by the next item, and the last items
        // of the output and of the data are copied exactly.
        let words: Vec<String> = (0..140)
            .map(|i| ((b'a' + (i % 26) as u8) as char).to_string().repeat(i % 70))
            .collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        for order in [
            (0..140).rev().collect::<Vec<u32>>(),
            (0..140).collect(),
            shuffled_order(140, &mut seeded(6)),
        ] {
            let expected: String = order.iter().map(|&i| words[i as usize]).collect();
            assert_eq!(gathered_words(&words, &order), expected.as_bytes());
        }
        let data: Vec<u8> = (0..200).map(|i| i as u8).collect();
        let uniform = ItemBounds::Uniform { item_len: 2 };
        let order: Vec<u32> = (0..100).rev().collect();
        let out = gathered(&data, &items_in_order(&uniform, &order));
        assert_eq!(out.len(), 200);
        assert_eq!(&out[..4], [198, 199, 196, 197]);
        assert_eq!(&out[196..], [2, 3, 0, 1]);
        // The last item's padding may lie past the data: it is written as zeros.
        let data = [1u8, 2, 3, 4, 5];
        let bounds = ItemBounds::Listed(Scratch::from_slice(&[0, 4, 8]).unwrap());
        assert_eq!(
            gathered(&data, &items_in_order(&bounds, &[1, 0])),
            [5, 0, 0, 0, 1, 2, 3, 4]
        );
        assert_eq!(
            gathered(&data, &items_in_order(&bounds, &[0, 1])),
            [1, 2, 3, 4, 5, 0, 0, 0]
        );
    }

    #[test]
    fn null_bits_follow_their_items() {
        // 5 items of 3 elements; bit set = not null. Item 1 has a null in the middle, item 4 is
        // all null.
        let mut bitmap = vec![0xffu8, 0xff];
        for e in [4, 12, 13, 14] {
            bitmap[e / 8] &= !(1 << (e % 8));
        }
        let bounds = ItemBounds::Uniform { item_len: 8 };
        let order = items_in_order(&bounds, &[4, 1, 0]);
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
        assert!(!any_null(&bitmap, 3, &items_in_order(&bounds, &[0, 2, 3])));
    }

    /// Shuffles four items of different lengths with `shuffle` and copies them with
    /// `gather_items`, as shuffle_array does, and counts each resulting permutation.
    fn array_permutation_counts(
        shuffle: &mut dyn FnMut(&[u8], &ItemBounds) -> Vec<u8>,
        draws: usize,
    ) -> Vec<u64> {
        let (data, bounds) = word_items(&["0", "11", "222", "3333"]);
        let mut counts = vec![0u64; 24];
        for _ in 0..draws {
            let out = shuffle(&data, &bounds);
            // Reading the items back: each one is a run of its own digit.
            let mut items = Vec::new();
            for &b in &out {
                let item = usize::from(b - b'0');
                if items.last() != Some(&item) {
                    items.push(item);
                }
            }
            assert_eq!(items.len(), 4);
            counts[dealcards_fairness::order_index(&items)] += 1;
        }
        counts
    }

    /// A broken shuffle of the fairness module, on item indices.
    type BrokenShuffle = fn(&mut [u32], &mut Stream);

    /// The order a broken shuffle (from the fairness module) gives n items.
    fn broken_order(n: usize, shuffle: BrokenShuffle, stream: &mut Stream) -> Vec<u32> {
        let mut order: Vec<u32> = (0..n as u32).collect();
        shuffle(&mut order, stream);
        order
    }

    #[test]
    fn array_shuffle_permutation_frequency_is_uniform_and_catches_biased_shuffles() {
        let draws = 48_000;
        let mut stream = seeded(31);
        let fair = array_permutation_counts(
            &mut |data, bounds| {
                gathered(
                    data,
                    &shuffled_items(bounds, 4, &mut stream, &mut || {}).unwrap(),
                )
            },
            draws,
        );
        assert!(fair.iter().all(|&c| c > 0), "a permutation never appeared");
        let test = stats::chi_square_uniform(&fair);
        assert_eq!(test.df, 23);
        assert!(test.p_value > ALPHA, "fair shuffle rejected: {test:?}");

        let broken: [(&str, BrokenShuffle); 2] = [
            ("naive", dealcards_fairness::naive_swap),
            ("Sattolo's", dealcards_fairness::sattolo),
        ];
        for (name, shuffle) in broken {
            let mut stream = seeded(31);
            let counts = array_permutation_counts(
                &mut |data, bounds| {
                    gathered(
                        data,
                        &items_in_order(bounds, &broken_order(4, shuffle, &mut stream)),
                    )
                },
                draws,
            );
            let test = stats::chi_square_uniform(&counts);
            assert!(test.p_value < ALPHA, "{name} shuffle not caught: {test:?}");
        }
    }

    /// Shuffles the items of `data` in slots of N bytes and writes them out, as shuffle_array
    /// does for small items.
    fn slot_shuffled<const N: usize>(
        data: &[u8],
        bounds: &ItemBounds,
        stream: &mut Stream,
    ) -> Vec<u8> {
        let count = match bounds {
            ItemBounds::Listed(offsets) => offsets.len() - 1,
            ItemBounds::Uniform { item_len } => data.len() / *item_len as usize,
        };
        let mut slots = Scratch::try_from_fn(count, |i| {
            let item = bounds.item(i);
            slot_of::<N>(data, item.start as usize, (item.start + item.len) as usize)
        })
        .unwrap()
        .expect("every item fits");
        fisher_yates(&mut slots, stream, &mut || {});
        let mut out = vec![0xeeu8; slotted_len(&slots)];
        write_slots(&slots, &mut out, &mut || {});
        out
    }

    #[test]
    fn slots_hold_items_up_to_their_size_and_pad_with_zeros() {
        let data = b"abcdefghijklmnopq";
        let slot = slot_of::<12>(data, 2, 5).unwrap();
        assert_eq!(slot.len, 3);
        assert_eq!(&slot.bytes[..3], b"cde");
        assert_eq!(slot_of::<12>(data, 0, 12).unwrap().bytes, *b"abcdefghijkl");
        assert!(slot_of::<12>(data, 0, 13).is_none());
        // The last item's padding past the end of the data is zeros.
        let slot = slot_of::<12>(data, 14, 20).unwrap();
        assert_eq!(slot.len, 6);
        assert_eq!(&slot.bytes[..6], [b'o', b'p', b'q', 0, 0, 0]);
        assert!(slots_affordable::<12>(1_000_000, 1_000_000));
        assert!(slots_affordable::<28>(1_000_000, 8_000_000));
        assert!(!slots_affordable::<28>(1_000_000, 7_999_999));
    }

    #[test]
    fn slots_give_the_same_order_as_records_for_items_of_every_size() {
        // Items of 0..=12 bytes (16-byte slots) and 0..=28 bytes (32-byte slots), several
        // seeds and counts; the reference is the record shuffle and gather.
        for (max, seeds) in [(12usize, 0u8..6), (28, 6..12)] {
            for seed in seeds {
                let n = 1 + 37 * seed as usize;
                let words: Vec<String> = (0..n)
                    .map(|i| {
                        ((b'a' + (i % 26) as u8) as char)
                            .to_string()
                            .repeat(i % (max + 1))
                    })
                    .collect();
                let words: Vec<&str> = words.iter().map(String::as_str).collect();
                let (data, bounds) = word_items(&words);
                let by_records = gathered(
                    &data,
                    &shuffled_items(&bounds, n, &mut seeded(seed), &mut || {}).unwrap(),
                );
                let by_slots = match max {
                    12 => slot_shuffled::<12>(&data, &bounds, &mut seeded(seed)),
                    _ => slot_shuffled::<28>(&data, &bounds, &mut seeded(seed)),
                };
                assert_eq!(
                    by_slots, by_records,
                    "seed {seed}, {n} items up to {max} bytes"
                );
            }
        }
        // Fixed-size items, the last one's padding past the data.
        let data = [1u8, 2, 3, 4, 5];
        let bounds = ItemBounds::Listed(Scratch::from_slice(&[0, 4, 8]).unwrap());
        let by_records = gathered(
            &data,
            &shuffled_items(&bounds, 2, &mut seeded(1), &mut || {}).unwrap(),
        );
        assert_eq!(
            slot_shuffled::<12>(&data, &bounds, &mut seeded(1)),
            by_records
        );
    }

    #[test]
    fn slot_shuffle_permutation_frequency_is_uniform() {
        let mut stream = seeded(32);
        let counts = array_permutation_counts(
            &mut |data, bounds| slot_shuffled::<12>(data, bounds, &mut stream),
            48_000,
        );
        assert!(
            counts.iter().all(|&c| c > 0),
            "a permutation never appeared"
        );
        let test = stats::chi_square_uniform(&counts);
        assert!(test.p_value > ALPHA, "fair slot shuffle rejected: {test:?}");
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
