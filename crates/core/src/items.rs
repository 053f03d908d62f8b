//! Moving the items of a flat array into a new order: items are byte ranges of the array's data
//! area ([`ItemBounds`]); [`gather_items`] and [`gather_null_bits`] copy them, and their
//! null-bitmap bits, in a given order. Bytes are moved as they are, so any element type moves
//! without being decoded. Small items can travel in fixed-size [`Slot`]s instead, shuffled by
//! the same Fisher-Yates, so the order is the same either way.

use crate::error::Error;
use crate::rng::Stream;
use crate::sample::partial_fisher_yates;
use crate::scratch::{Claim, Scratch};
use crate::shuffle::{fisher_yates, prefetch, CHECK_EVERY};

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
    let _claim = Claim::new(
        k.saturating_mul(size_of::<u32>() + size_of::<Item>()),
        &format!("a sample of {k} items"),
    )?;
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
pub(crate) mod tests;
