//! Results built in place: one palloc of the final array or text, whose bytes the core writes
//! directly, instead of a Rust Vec or String copied into a Postgres value afterwards. Every
//! function that returns a large array or text builds it here.

use std::marker::PhantomData;
use std::mem::size_of;

use pgrx::callconv::{BoxRet, FcInfo};
use pgrx::datum::AnyArray;
use pgrx::datum::Datum;
use pgrx::pg_sys;
use pgrx::pgrx_sql_entity_graph::metadata::{
    ArgumentError, ReturnsError, ReturnsRef, SqlMappingRef, SqlTranslatable, TypeOrigin,
};
use pgrx::FromDatum;
use pgrx::IntoDatum;

use dealcards_core::error::{Error, ErrorKind};
use dealcards_core::scratch::advise_huge_pages;
use dealcards_core::shuffle::MAX_ARRAY_ITEMS;

/// Postgres's largest single allocation (MaxAllocSize).
pub const MAX_ALLOC: usize = 0x3fff_ffff;
const MAXALIGN: usize = pg_sys::MAXIMUM_ALIGNOF as usize;

/// `offset` rounded up to a multiple of `alignment`, a power of two (a mask, not a division:
/// this runs once per array element).
pub fn align_to(offset: usize, alignment: usize) -> usize {
    debug_assert!(alignment.is_power_of_two());
    (offset + alignment - 1) & !(alignment - 1)
}

/// Bytes before the data of an array: `ARR_OVERHEAD_NONULLS` / `ARR_OVERHEAD_WITHNULLS`.
pub fn overhead(ndim: usize, elements: usize, with_nulls: bool) -> usize {
    let bitmap = if with_nulls { elements.div_ceil(8) } else { 0 };
    align_to(
        size_of::<pg_sys::ArrayType>() + 2 * size_of::<i32>() * ndim + bitmap,
        MAXALIGN,
    )
}

/// Allocates an array with these dimensions and lets `fill` write its null bitmap (if any,
/// zeroed first) and every one of its `data_len` data bytes. Refuses, before allocating, what
/// Postgres cannot hold.
pub fn new_array(
    elemtype: pg_sys::Oid,
    dims: &[i32],
    lower_bounds: &[i32],
    with_nulls: bool,
    data_len: usize,
    fill: impl FnOnce(Option<&mut [u8]>, &mut [u8]),
) -> Result<*mut pg_sys::ArrayType, Error> {
    let ndim = dims.len();
    let elements: usize = dims.iter().map(|&d| d as usize).product();
    let head = overhead(ndim, elements, with_nulls);
    let size = head + data_len;
    if size > MAX_ALLOC {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!("an array of {size} bytes is larger than the {MAX_ALLOC} Postgres can hold"),
        ));
    }
    // SAFETY: palloc returns `size` MAXALIGNed bytes or raises an ERROR. The first `head` bytes
    // are zeroed and hold ArrayType, dims[ndim], lbound[ndim], the bitmap and padding; `fill`
    // writes the data bytes after them. The two slices lie within the block and do not overlap.
    // Nothing is zeroed twice: the data may be hundreds of megabytes.
    unsafe {
        let block = pg_sys::palloc(size) as *mut u8;
        // The data is written in one pass: fresh memory faults in 2 MB at a time, not 4 KB.
        advise_huge_pages(block, size);
        std::ptr::write_bytes(block, 0, head);
        let array = block as *mut pg_sys::ArrayType;
        pgrx::set_varsize_4b(array as *mut pg_sys::varlena, size as i32);
        (*array).ndim = ndim as i32;
        (*array).dataoffset = if with_nulls { head as i32 } else { 0 };
        (*array).elemtype = elemtype;
        let ints = block.add(size_of::<pg_sys::ArrayType>()) as *mut i32;
        for d in 0..ndim {
            *ints.add(d) = dims[d];
            *ints.add(ndim + d) = lower_bounds[d];
        }
        let bitmap = with_nulls.then(|| {
            std::slice::from_raw_parts_mut(
                block.add(size_of::<pg_sys::ArrayType>() + 2 * size_of::<i32>() * ndim),
                elements.div_ceil(8),
            )
        });
        let data = std::slice::from_raw_parts_mut(block.add(head), data_len);
        fill(bitmap, data);
        Ok(array)
    }
}

/// An array built by [`new_array`] (or any valid array) as the `anyarray` a function returns.
pub fn as_anyarray(array: *mut pg_sys::ArrayType) -> AnyArray {
    // SAFETY: a valid, non-null array datum; the type oid is not used for returning it.
    unsafe {
        AnyArray::from_polymorphic_datum(pg_sys::Datum::from(array), false, pg_sys::ANYARRAYOID)
            .expect("a non-null datum")
    }
}

/// A value of SQL type `S` (the type pgrx gives the Rust type `S`), built in place and ready to
/// return: functions declare it where they would declare `S`.
pub struct Built<S> {
    datum: pg_sys::Datum,
    sql_type: PhantomData<S>,
}

impl<S: IntoDatum> IntoDatum for Built<S> {
    fn into_datum(self) -> Option<pg_sys::Datum> {
        Some(self.datum)
    }

    fn type_oid() -> pg_sys::Oid {
        S::type_oid()
    }
}

// SAFETY: the datum is a complete, palloc'd value of S's SQL type in the function's memory
// context, which is what a function returns by reference.
unsafe impl<S> BoxRet for Built<S> {
    unsafe fn box_into<'fcx>(self, fcinfo: &mut FcInfo<'fcx>) -> Datum<'fcx> {
        // SAFETY: as above; the datum is not NULL.
        unsafe { fcinfo.return_raw_datum(self.datum) }
    }
}

// SAFETY: the SQL type is S's, so S's mapping describes it exactly.
unsafe impl<S: SqlTranslatable> SqlTranslatable for Built<S> {
    const TYPE_IDENT: &'static str = S::TYPE_IDENT;
    const TYPE_ORIGIN: TypeOrigin = S::TYPE_ORIGIN;
    const ARGUMENT_SQL: Result<SqlMappingRef, ArgumentError> = S::ARGUMENT_SQL;
    const RETURN_SQL: Result<ReturnsRef, ReturnsError> = S::RETURN_SQL;
}

/// An element type an [`IntArray`] can hold.
pub trait Element: Copy + IntoDatum + SqlTranslatable {
    const OID: pg_sys::Oid;
}

impl Element for i32 {
    const OID: pg_sys::Oid = pg_sys::INT4OID;
}

impl Element for i64 {
    const OID: pg_sys::Oid = pg_sys::INT8OID;
}

/// A one-dimensional int[] or bigint[] with lower bound 1.
pub type IntArray<T> = Built<Vec<T>>;

/// Bytes before the data of a one-dimensional array without a null bitmap.
const HEADER_1D: usize = 24;

/// The most elements of type T one array can hold: Postgres's MaxArraySize, and the whole array
/// in one allocation.
pub fn max_items<T>() -> usize {
    MAX_ARRAY_ITEMS.min((MAX_ALLOC - HEADER_1D) / size_of::<T>())
}

impl<T: Element> Built<Vec<T>> {
    /// An array of `len` elements in the current memory context, every one of them written by
    /// `fill`. Refuses, before allocating, an array Postgres could not hold.
    pub fn build(len: usize, fill: impl FnOnce(&mut [T])) -> Result<Self, Error> {
        if len > max_items::<T>() {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!(
                    "an array of {len} elements is larger than the {} one array can hold",
                    max_items::<T>()
                ),
            ));
        }
        let (dims, lower_bounds): (&[i32], &[i32]) = if len == 0 {
            (&[], &[])
        } else {
            (&[len as i32], &[1])
        };
        let array = new_array(
            T::OID,
            dims,
            lower_bounds,
            false,
            len * size_of::<T>(),
            |_, data| {
                // SAFETY: the data of an array starts MAXALIGNed (the block is, and the header is a
                // multiple of MAXALIGN), and any bytes are a valid i32 or i64.
                let (head, items, tail) = unsafe { data.align_to_mut::<T>() };
                assert!(head.is_empty() && tail.is_empty(), "array data is aligned");
                fill(items);
            },
        )?;
        Ok(Built {
            datum: pg_sys::Datum::from(array),
            sql_type: PhantomData,
        })
    }
}

impl Built<String> {
    /// A text of `len` bytes, every one of them written by `fill` (valid in the database's
    /// encoding: the caller's promise).
    pub fn text(len: usize, fill: impl FnOnce(&mut [u8])) -> Result<Self, Error> {
        let size = pg_sys::VARHDRSZ + len;
        if size > MAX_ALLOC {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!("a text of {len} bytes is larger than the {MAX_ALLOC} Postgres can hold"),
            ));
        }
        // SAFETY: palloc returns `size` bytes or raises an ERROR; the first VARHDRSZ bytes are the
        // 4-byte varlena header set here, and the slice covers exactly the `len` bytes after it.
        unsafe {
            let text = pg_sys::palloc(size) as *mut pg_sys::varlena;
            pgrx::set_varsize_4b(text, size as i32);
            fill(std::slice::from_raw_parts_mut(
                (text as *mut u8).add(pg_sys::VARHDRSZ),
                len,
            ));
            Ok(Built {
                datum: pg_sys::Datum::from(text),
                sql_type: PhantomData,
            })
        }
    }
}
