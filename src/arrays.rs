//! SQL functions shuffling and sampling arrays of any type, and sampling integer ranges.
//!
//! Arrays are handled as Postgres lays them out (header, dimensions, lower bounds, null bitmap,
//! then the elements one after another, each padded to its type's alignment): this layer finds
//! where each item of the first dimension starts and ends, the core moves the bytes. No element
//! is ever decoded, so every element type works the same way, at memcpy speed.

use std::mem::size_of;

use pgrx::prelude::*;
use pgrx::{pg_sys, AnyArray, PgSqlErrorCode};

use crate::results::{align_to, as_anyarray, new_array, overhead, IntArray};
use crate::{check_for_interrupts, ok_or_raise};

use dealcards_core::items::{
    any_null, gather_items, gather_null_bits, gathered_len, sampled_items, shuffled_items, slot_of,
    slots_affordable, slotted_len, write_slots, Item, ItemBounds, Slot, SLOT_ITEM_BYTES,
};
use dealcards_core::rng::Stream;
use dealcards_core::sample::{sample_array_len, sample_ints_len, sample_range};
use dealcards_core::scratch::Scratch;
use dealcards_core::shuffle::{fisher_yates, CHECK_EVERY};

#[cold]
#[inline(never)]
pub(crate) fn corrupted(what: &str) -> ! {
    ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_DATA_CORRUPTED,
        format!("malformed array: {what}")
    );
}

/// How an element type is stored: `typlen` (> 0 fixed, -1 varlena, -2 C string) and
/// `typalign` in bytes.
#[derive(Clone, Copy)]
pub(crate) struct ElementLayout {
    pub(crate) typlen: i16,
    pub(crate) typalign: usize,
}

impl ElementLayout {
    pub(crate) fn of(elemtype: pg_sys::Oid) -> Self {
        let (mut typlen, mut byval, mut align) = (0i16, false, 0 as std::ffi::c_char);
        // SAFETY: plain catalog lookup; raises an ERROR for an unknown type.
        unsafe { pg_sys::get_typlenbyvalalign(elemtype, &mut typlen, &mut byval, &mut align) };
        let typalign = match align as u8 {
            b'c' => 1,
            b's' => 2,
            b'i' => 4,
            b'd' => 8,
            other => corrupted(&format!("unknown alignment '{}'", other as char)),
        };
        ElementLayout { typlen, typalign }
    }

    /// The stored size of the element at the start of `bytes`, without padding.
    #[inline(always)]
    pub(crate) fn stored_len(&self, bytes: &[u8]) -> usize {
        if self.typlen == -1 {
            if let Some(header) = bytes.first_chunk::<4>() {
                let ptr = header.as_ptr() as *const pg_sys::varlena;
                // SAFETY: the four bytes of a 4-byte header are there. This is the usual case
                // (elements are detoasted into arrays), checked first.
                unsafe {
                    if pgrx::varatt_is_4b(ptr) {
                        return pgrx::varsize_4b(ptr);
                    }
                }
            }
        }
        self.stored_len_any(bytes)
    }

    fn stored_len_any(&self, bytes: &[u8]) -> usize {
        match self.typlen {
            len if len > 0 => len as usize,
            -1 => {
                let Some(&first) = bytes.first() else {
                    corrupted("element past the end of the data")
                };
                let ptr = bytes.as_ptr() as *const pg_sys::varlena;
                // SAFETY: one header byte is there; a 4-byte header is read only when 4 bytes
                // are (arrays are detoasted, so their varlena elements are aligned as stored).
                unsafe {
                    if pgrx::varatt_is_1b_e(ptr) {
                        corrupted("toast pointer inside an array")
                    } else if pgrx::varatt_is_1b(ptr) {
                        pgrx::varsize_1b(ptr)
                    } else if bytes.len() >= 4 {
                        pgrx::varsize_4b(ptr)
                    } else {
                        corrupted(&format!("truncated varlena header {first:#x}"))
                    }
                }
            }
            -2 => match bytes.iter().position(|&b| b == 0) {
                Some(end) => end + 1,
                None => corrupted("unterminated C string"),
            },
            other => corrupted(&format!("unknown type length {other}")),
        }
    }
}

/// An array's dimensions or lower bounds: at most MAXDIM of them, kept on the stack.
pub(crate) struct DimList {
    values: [i32; DimList::MAX],
    len: usize,
}

impl DimList {
    /// Postgres's MAXDIM.
    const MAX: usize = pg_sys::MAXDIM as usize;
}

impl std::ops::Deref for DimList {
    type Target = [i32];
    fn deref(&self) -> &[i32] {
        &self.values[..self.len]
    }
}

impl std::ops::DerefMut for DimList {
    fn deref_mut(&mut self) -> &mut [i32] {
        &mut self.values[..self.len]
    }
}

/// A flat (detoasted) array, read in place.
pub(crate) struct FlatArray {
    array: *mut pg_sys::ArrayType,
}

impl FlatArray {
    pub(crate) fn of(a: &AnyArray) -> Self {
        // int2vector and oidvector are arrays inside but types of their own, whose values must
        // keep one dimension from 0 and no NULLs; a sample or a reordered copy returned as one
        // cannot be trusted to print. They are refused; their int2[] / oid[] casts work.
        let vector = match a.oid() {
            pg_sys::INT2VECTOROID => Some("int2vector"),
            pg_sys::OIDVECTOROID => Some("oidvector"),
            _ => None,
        };
        if let Some(name) = vector {
            let element = &name[..name.len() - "vector".len()];
            ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
                format!("{name} is not shuffled or sampled as it is: cast it to {element}[] first")
            );
        }
        // SAFETY: an anyarray argument is a varlena; detoasting makes it contiguous, with a
        // 4-byte header, and flattens expanded arrays. The result is only read.
        let array = unsafe {
            pg_sys::pg_detoast_datum(a.datum().cast_mut_ptr::<pg_sys::varlena>())
                as *mut pg_sys::ArrayType
        };
        FlatArray { array }
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: a flat array is VARSIZE bytes long.
        unsafe {
            let len = pgrx::varsize_4b(self.array as *const pg_sys::varlena);
            std::slice::from_raw_parts(self.array as *const u8, len)
        }
    }

    fn header(&self) -> &pg_sys::ArrayType {
        // SAFETY: the header is at the start of the array.
        unsafe { &*self.array }
    }

    pub(crate) fn ndim(&self) -> usize {
        self.header().ndim.max(0) as usize
    }

    fn int_at(&self, index: usize) -> i32 {
        let at = size_of::<pg_sys::ArrayType>() + index * size_of::<i32>();
        i32::from_ne_bytes(self.bytes()[at..at + 4].try_into().unwrap())
    }

    /// `ndim` integers of the header from `first` on, without an allocation.
    fn header_ints(&self, first: usize) -> DimList {
        let len = self.ndim();
        if len > DimList::MAX {
            corrupted("more dimensions than Postgres allows");
        }
        let mut values = [0; DimList::MAX];
        for (d, value) in values.iter_mut().enumerate().take(len) {
            *value = self.int_at(first + d);
        }
        DimList { values, len }
    }

    fn dims(&self) -> DimList {
        self.header_ints(0)
    }

    pub(crate) fn lower_bounds(&self) -> DimList {
        self.header_ints(self.ndim())
    }

    pub(crate) fn elemtype(&self) -> pg_sys::Oid {
        self.header().elemtype
    }

    /// Items of the first dimension. (Read in place: these run several times per call, where a
    /// Vec of the dimensions would cost an allocation each time.)
    pub(crate) fn items(&self) -> usize {
        if self.ndim() == 0 {
            return 0;
        }
        self.int_at(0).max(0) as usize
    }

    fn elements(&self) -> usize {
        if self.ndim() == 0 {
            return 0;
        }
        (0..self.ndim())
            .map(|d| self.int_at(d).max(0) as usize)
            .product()
    }

    /// The null bitmap, one bit per element, 0 for NULL; absent when no element is NULL.
    pub(crate) fn null_bitmap(&self) -> Option<&[u8]> {
        if self.header().dataoffset == 0 {
            return None;
        }
        let start = size_of::<pg_sys::ArrayType>() + 2 * size_of::<i32>() * self.ndim();
        Some(&self.bytes()[start..start + self.elements().div_ceil(8)])
    }

    pub(crate) fn data(&self) -> &[u8] {
        let start = match self.header().dataoffset {
            0 => overhead(self.ndim(), self.elements(), false),
            offset => offset as usize,
        };
        self.bytes()
            .get(start..)
            .unwrap_or_else(|| corrupted("data offset"))
    }

    /// Where each item of the first dimension starts and ends in the data. An item is its
    /// elements with their padding; NULLs take no space.
    pub(crate) fn item_bounds(&self, layout: ElementLayout) -> ItemBounds {
        let (items, elements, data) = (self.items(), self.elements(), self.data());
        if items == 0 {
            return ItemBounds::Uniform { item_len: 0 };
        }
        let inner = elements / items;
        if layout.typlen > 0 && self.null_bitmap().is_none() {
            let padded = align_to(layout.typlen as usize, layout.typalign);
            if (elements * padded).saturating_sub(padded - layout.typlen as usize) > data.len() {
                corrupted("fewer data bytes than elements");
            }
            // Data is under 1 GB (MaxAllocSize), so sizes and offsets fit in 32 bits.
            return ItemBounds::Uniform {
                item_len: (inner * padded) as u32,
            };
        }
        let mut walk = self.walk(layout);
        // Offset i is where item i starts: where item i - 1 ends.
        let offsets = ok_or_raise(Scratch::from_fn(items + 1, |item| match item {
            0 => 0,
            _ => walk.next_end() as u32,
        }));
        ItemBounds::Listed(offsets)
    }

    fn walk(&self, layout: ElementLayout) -> ItemWalk<'_> {
        ItemWalk {
            data: self.data(),
            nulls: self.null_bitmap(),
            layout,
            inner: self.elements() / self.items().max(1),
            offset: 0,
            element: 0,
            item: 0,
        }
    }

    /// The items, in index order, in slots of `N` bytes, or the length of the first item
    /// longer than that. Only for arrays without NULLs.
    fn slots<const N: usize>(&self, layout: ElementLayout) -> Result<Scratch<Slot<N>>, usize> {
        debug_assert!(self.null_bitmap().is_none());
        let mut walk = self.walk(layout);
        let mut too_long = 0;
        let slots = ok_or_raise(Scratch::try_from_fn(self.items(), |_| {
            let (start, end) = (walk.offset, walk.next_end());
            let slot = slot_of(walk.data, start, end);
            if slot.is_none() {
                too_long = end - start;
            }
            slot
        }));
        slots.ok_or(too_long)
    }

    pub(crate) fn bounds(&self) -> ItemBounds {
        self.item_bounds(ElementLayout::of(self.elemtype()))
    }

    /// A new array of `items`, in that order; the first dimension gets `items.len()` items
    /// from `first_lower_bound`, the other dimensions stay as they are.
    pub(crate) fn rearranged(&self, items: &[Item], first_lower_bound: i32) -> AnyArray {
        if items.is_empty() {
            // SAFETY: construct_empty_array pallocs a valid empty array of this element type.
            return as_anyarray(unsafe { pg_sys::construct_empty_array(self.elemtype()) });
        }
        let inner = self.elements() / self.items();
        let nulls = self
            .null_bitmap()
            .filter(|bitmap| any_null(bitmap, inner, items));
        let mut dims = self.dims();
        let mut lower_bounds = self.lower_bounds();
        dims[0] = items.len() as i32;
        lower_bounds[0] = first_lower_bound;
        let data_len = gathered_len(items);
        let data = self.data();
        let array = ok_or_raise(new_array(
            self.elemtype(),
            &dims,
            &lower_bounds,
            nulls.is_some(),
            data_len,
            |bitmap, out| {
                if let (Some(source), Some(target)) = (nulls, bitmap) {
                    gather_null_bits(source, inner, items, target);
                }
                gather_items(data, items, out, &mut check_for_interrupts);
            },
        ));
        as_anyarray(array)
    }

    /// A new array of the same shape holding the items of `slots` in that order. The array
    /// must have no NULLs: slots do not carry null bits.
    fn rearranged_slots<const N: usize>(&self, slots: &[Slot<N>]) -> AnyArray {
        debug_assert!(self.null_bitmap().is_none());
        let array = ok_or_raise(new_array(
            self.elemtype(),
            &self.dims(),
            &self.lower_bounds(),
            false,
            slotted_len(slots),
            |_, out| write_slots(slots, out, &mut check_for_interrupts),
        ));
        as_anyarray(array)
    }

    pub(crate) fn unchanged(&self) -> AnyArray {
        as_anyarray(self.array)
    }
}

/// A walk through the data of an array, item after item of its first dimension.
struct ItemWalk<'a> {
    data: &'a [u8],
    nulls: Option<&'a [u8]>,
    layout: ElementLayout,
    /// Elements in an item.
    inner: usize,
    /// Where the next item starts.
    offset: usize,
    element: usize,
    item: usize,
}

impl ItemWalk<'_> {
    /// Steps over the next item and returns where it ends (and the one after starts).
    #[inline(always)]
    fn next_end(&mut self) -> usize {
        self.item += 1;
        if self.item.is_multiple_of(CHECK_EVERY) {
            check_for_interrupts();
        }
        for _ in 0..self.inner {
            let e = self.element;
            self.element += 1;
            if self
                .nulls
                .is_some_and(|bitmap| bitmap[e / 8] & (1 << (e % 8)) == 0)
            {
                continue;
            }
            let rest = self
                .data
                .get(self.offset..)
                .unwrap_or_else(|| corrupted("element past the end of the data"));
            let end = self.offset + self.layout.stored_len(rest);
            if end > self.data.len() {
                corrupted("element past the end of the data");
            }
            self.offset = align_to(end, self.layout.typalign);
        }
        self.offset
    }
}

fn shuffled(array: &FlatArray, stream: &mut Stream) -> AnyArray {
    let count = array.items();
    if count < 2 {
        return array.unchanged();
    }
    let layout = ElementLayout::of(array.elemtype());
    if let Some(shuffled) = shuffled_fixed(array, layout, stream) {
        return shuffled;
    }
    // Small items of arrays without NULLs move with their bytes, and are then written out in
    // one sequential pass; the others move as records and are then copied, each from where it
    // is. Either way the order is the same Fisher-Yates permutation.
    if array.null_bitmap().is_none() {
        // The longest item found so far: slots that cannot hold it are not tried.
        let mut longest = 0;
        let shuffled =
            shuffled_in_slots::<{ SLOT_ITEM_BYTES[0] }>(array, layout, stream, &mut longest)
                .or_else(|| {
                    shuffled_in_slots::<{ SLOT_ITEM_BYTES[1] }>(array, layout, stream, &mut longest)
                });
        if let Some(shuffled) = shuffled {
            return shuffled;
        }
    }
    let check = &mut check_for_interrupts;
    let items = ok_or_raise(shuffled_items(
        &array.item_bounds(layout),
        count,
        stream,
        check,
    ));
    array.rearranged(&items, array.lower_bounds()[0])
}

/// A one-dimensional array without NULLs whose elements are 1, 2, 4 or 8 bytes with no padding
/// (int2, int4, int8, float8, date, timestamp, bool, ...): its data copied whole into the new
/// array and shuffled there in place, by the same Fisher-Yates as the other paths, so the same
/// order. None for any other array.
fn shuffled_fixed(
    array: &FlatArray,
    layout: ElementLayout,
    stream: &mut Stream,
) -> Option<AnyArray> {
    let size = usize::try_from(layout.typlen).ok()?;
    if array.ndim() != 1
        || array.null_bitmap().is_some()
        || !matches!(size, 1 | 2 | 4 | 8)
        || align_to(size, layout.typalign) != size
    {
        return None;
    }
    let len = array.items() * size;
    let data = array
        .data()
        .get(..len)
        .unwrap_or_else(|| corrupted("fewer data bytes than elements"));
    let check = &mut check_for_interrupts;
    let shuffled = ok_or_raise(new_array(
        array.elemtype(),
        &array.dims(),
        &array.lower_bounds(),
        false,
        len,
        |_, out| {
            out.copy_from_slice(data);
            match size {
                1 => fisher_yates(out, stream, check),
                2 => fisher_yates(out.as_chunks_mut::<2>().0, stream, check),
                4 => fisher_yates(out.as_chunks_mut::<4>().0, stream, check),
                _ => fisher_yates(out.as_chunks_mut::<8>().0, stream, check),
            }
        },
    ));
    Some(as_anyarray(shuffled))
}

/// `array` shuffled in slots of `N` bytes, or None if an item is longer than that (`longest`
/// is then raised to its length) or the slots would take too much memory.
fn shuffled_in_slots<const N: usize>(
    array: &FlatArray,
    layout: ElementLayout,
    stream: &mut Stream,
    longest: &mut usize,
) -> Option<AnyArray> {
    if *longest > N || !slots_affordable::<N>(array.items(), array.data().len()) {
        return None;
    }
    match array.slots::<N>(layout) {
        Ok(mut slots) => {
            // The same Fisher-Yates as the records get: the same order.
            fisher_yates(&mut slots, stream, &mut check_for_interrupts);
            Some(array.rearranged_slots(&slots))
        }
        Err(len) => {
            *longest = len;
            None
        }
    }
}

/// A uniformly random order of the first dimension of `a` (whole sub-arrays move together),
/// from this backend's OS-keyed ChaCha20 stream. Lower bounds and NULLs are kept.
#[pg_extern(volatile, strict, parallel_safe)]
fn shuffle_array(a: AnyArray) -> AnyArray {
    crate::limit_working_memory();
    let array = FlatArray::of(&a);
    if array.items() < 2 {
        return array.unchanged();
    }
    ok_or_raise(crate::with_live(|stream| shuffled(&array, stream)))
}

/// The replayable order of `a` for a 32-byte seed (specified in docs/arrays.md).
#[pg_extern(immutable, strict, parallel_safe, name = "shuffle_array")]
fn shuffle_array_seeded(a: AnyArray, seed: &[u8]) -> AnyArray {
    crate::limit_working_memory();
    let mut stream = ok_or_raise(Stream::from_seed_bytes(seed));
    shuffled(&FlatArray::of(&a), &mut stream)
}

fn sampled(array: &FlatArray, n: usize, stream: &mut Stream) -> AnyArray {
    let items = ok_or_raise(sampled_items(
        &array.bounds(),
        array.items(),
        n,
        stream,
        &mut check_for_interrupts,
    ));
    array.rearranged(&items, 1)
}

/// `n` items of the first dimension of `a`, without replacement, in random order, lower
/// bound 1, from this backend's OS-keyed ChaCha20 stream.
#[pg_extern(volatile, strict, parallel_safe)]
fn sample_array(a: AnyArray, n: i32) -> AnyArray {
    crate::limit_working_memory();
    let array = FlatArray::of(&a);
    let n = ok_or_raise(sample_array_len(n, array.items()));
    if n == 0 {
        return array.rearranged(&[], 1);
    }
    ok_or_raise(crate::with_live(|stream| sampled(&array, n, stream)))
}

/// The replayable sample of `n` items of `a` for a 32-byte seed.
#[pg_extern(immutable, strict, parallel_safe, name = "sample_array")]
fn sample_array_seeded(a: AnyArray, n: i32, seed: &[u8]) -> AnyArray {
    crate::limit_working_memory();
    let mut stream = ok_or_raise(Stream::from_seed_bytes(seed));
    let array = FlatArray::of(&a);
    let n = ok_or_raise(sample_array_len(n, array.items()));
    sampled(&array, n, &mut stream)
}

/// `k` distinct integers of lo..hi in random order, in time and memory proportional to k,
/// from this backend's OS-keyed ChaCha20 stream.
#[pg_extern(volatile, strict, parallel_safe)]
fn sample_ints(lo: i64, hi: i64, k: i32) -> IntArray<i64> {
    crate::limit_working_memory();
    let len = ok_or_raise(sample_ints_len(lo, hi, k));
    // The array is checked and allocated before the generator is touched.
    ok_or_raise(IntArray::build(len, |out| {
        let drawn =
            crate::with_live(|stream| sample_range(lo, hi, out, stream, &mut check_for_interrupts));
        ok_or_raise(drawn.and_then(|sample| sample));
    }))
}

/// The replayable sample of `k` integers of lo..hi for a 32-byte seed.
#[pg_extern(immutable, strict, parallel_safe, name = "sample_ints")]
fn sample_ints_seeded(lo: i64, hi: i64, k: i32, seed: &[u8]) -> IntArray<i64> {
    crate::limit_working_memory();
    let mut stream = ok_or_raise(Stream::from_seed_bytes(seed));
    let len = ok_or_raise(sample_ints_len(lo, hi, k));
    ok_or_raise(IntArray::build(len, |out| {
        ok_or_raise(sample_range(
            lo,
            hi,
            out,
            &mut stream,
            &mut check_for_interrupts,
        ))
    }))
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use pgrx::prelude::*;

    // Seeds as SQL: all zero bytes, and the bytes 0, 1, ..., 31.
    const ZERO: &str = "decode(repeat('00', 32), 'hex')";
    const COUNTING: &str =
        "'\\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'::bytea";

    fn text(sql: &str) -> String {
        Spi::get_one::<String>(sql).unwrap().unwrap()
    }

    fn yes(sql: &str) -> bool {
        Spi::get_one::<bool>(sql).unwrap().unwrap()
    }

    #[pg_test]
    fn seeded_samples_and_array_shuffles_match_the_reference() {
        // Every expected value below is printed by tests/reference/seeded_sample.py.
        assert_eq!(
            text(&format!("SELECT sample_ints(1, 49, 6, {ZERO})::text")),
            "{5,33,8,43,28,34}"
        );
        assert_eq!(
            text(&format!(
                "SELECT sample_ints(-9223372036854775808, 9223372036854775807, 4, {COUNTING})::text"
            )),
            "{1307428006561434800,5506458395325511048,-3942095838980620916,-1578012656518038215}"
        );
        assert_eq!(
            text(&format!(
                "SELECT shuffle_array(ARRAY['a','b','c','d','e','f','g','h','i','j'], {ZERO})::text"
            )),
            "{j,i,c,d,a,e,b,h,f,g}"
        );
        assert_eq!(
            text(&format!(
                "SELECT sample_array('{{zero,one,two,three,four,five,six,seven,eight,nine}}'::text[], 3, {COUNTING})::text"
            )),
            "{eight,three,four}"
        );
    }

    #[pg_test]
    fn shuffle_array_keeps_items_nulls_and_bounds() {
        let sql = "WITH t(a) AS (SELECT '[0:4]={x,NULL,yy,NULL,zzz}'::text[]),
                        s(b) AS (SELECT shuffle_array(a) FROM t)
                   SELECT array_lower(b, 1) = 0 AND array_upper(b, 1) = 4
                      AND (SELECT array_agg(x ORDER BY x) FROM unnest(b) x)
                        = (SELECT array_agg(x ORDER BY x) FROM unnest(a) x)
                     FROM t, s";
        assert!(yes(sql));
    }

    #[pg_test]
    fn shuffle_array_moves_matrix_rows_whole() {
        let sql = "WITH s(b) AS (SELECT shuffle_array('{{1,2},{3,4},{5,6}}'::int[]))
                   SELECT bool_and(b[i][2] = b[i][1] + 1 AND b[i][1] % 2 = 1)
                     FROM s, generate_series(1, 3) i";
        assert!(yes(sql));
    }

    #[pg_test]
    fn shuffle_array_and_sample_ints_differ_between_calls() {
        let sql = "SELECT shuffle_array(ARRAY(SELECT generate_series(1, 54)))
                       <> shuffle_array(ARRAY(SELECT generate_series(1, 54)))";
        assert!(yes(sql));
        assert!(yes(
            "SELECT sample_ints(1, 1000000000000, 10) <> sample_ints(1, 1000000000000, 10)"
        ));
    }

    #[pg_test]
    #[should_panic(expected = "n must be between 0 and 3, the number of items in the array, got 4")]
    fn sample_array_rejects_n_beyond_the_items() {
        Spi::run("SELECT sample_array(ARRAY[1,2,3], 4)").unwrap();
    }

    #[pg_test]
    #[should_panic(
        expected = "k must be between 0 and 49, the number of integers in 1..49, got 50"
    )]
    fn sample_ints_rejects_k_beyond_the_range() {
        Spi::run("SELECT sample_ints(1, 49, 50)").unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "seed must be exactly 32 bytes, got 2")]
    fn shuffle_array_rejects_a_short_seed() {
        Spi::run("SELECT shuffle_array(ARRAY[1,2], '\\x0102'::bytea)").unwrap();
    }
}
