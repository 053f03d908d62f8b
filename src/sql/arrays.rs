//! Integer arrays built in place: one palloc of the final int[] / bigint[], whose data the core
//! fills directly, instead of a Rust Vec copied element by element into an array builder.

use std::marker::PhantomData;
use std::mem::size_of;

use pgrx::callconv::{BoxRet, FcInfo};
use pgrx::datum::Datum;
use pgrx::pg_sys;
use pgrx::pgrx_sql_entity_graph::metadata::{
    ArgumentError, ReturnsError, ReturnsRef, SqlMappingRef, SqlTranslatable, TypeOrigin,
};
use pgrx::IntoDatum;

use crate::error::{Error, ErrorKind};
use crate::shuffle::MAX_ARRAY_ITEMS;

/// Bytes before the data of a one-dimensional array without a null bitmap:
/// MAXALIGN(sizeof(ArrayType) + 2 * sizeof(int)).
const HEADER: usize = 24;
/// Postgres's largest single allocation (MaxAllocSize).
const MAX_ALLOC: usize = 0x3fff_ffff;

/// An element type an [`IntArray`] can hold.
pub trait Element: Copy + SqlTranslatable {
    const OID: pg_sys::Oid;
}

impl Element for i32 {
    const OID: pg_sys::Oid = pg_sys::INT4OID;
}

impl Element for i64 {
    const OID: pg_sys::Oid = pg_sys::INT8OID;
}

/// A one-dimensional int[] or bigint[] with lower bound 1, as a ready Datum.
pub struct IntArray<T: Element> {
    datum: pg_sys::Datum,
    element: PhantomData<T>,
}

/// The most elements of type T one array can hold: Postgres's MaxArraySize, and the whole array
/// in one allocation.
pub fn max_items<T>() -> usize {
    MAX_ARRAY_ITEMS.min((MAX_ALLOC - HEADER) / size_of::<T>())
}

impl<T: Element> IntArray<T> {
    /// Allocates an array of `len` elements in the current memory context and lets `fill` write
    /// every one of them. Refuses, before allocating, an array Postgres could not hold.
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
        let ndim = if len == 0 { 0 } else { 1 };
        let size = if len == 0 {
            size_of::<pg_sys::ArrayType>()
        } else {
            HEADER + len * size_of::<T>()
        };
        // SAFETY: palloc0 returns a MAXALIGNed block of `size` bytes or raises an ERROR; the
        // header fields written are those of ArrayType followed by dims[1] and lbound[1], and the
        // data slice covers exactly the bytes after HEADER.
        unsafe {
            let array = pg_sys::palloc0(size) as *mut pg_sys::ArrayType;
            pgrx::set_varsize_4b(array as *mut pg_sys::varlena, size as i32);
            (*array).ndim = ndim;
            (*array).dataoffset = 0;
            (*array).elemtype = T::OID;
            if len > 0 {
                let dims = (array as *mut u8).add(size_of::<pg_sys::ArrayType>()) as *mut i32;
                *dims = len as i32;
                *dims.add(1) = 1;
                let data =
                    std::slice::from_raw_parts_mut((array as *mut u8).add(HEADER) as *mut T, len);
                fill(data);
            }
            Ok(IntArray {
                datum: pg_sys::Datum::from(array),
                element: PhantomData,
            })
        }
    }
}

impl<T: Element> IntoDatum for IntArray<T> {
    fn into_datum(self) -> Option<pg_sys::Datum> {
        Some(self.datum)
    }

    fn type_oid() -> pg_sys::Oid {
        unsafe { pg_sys::get_array_type(T::OID) }
    }
}

unsafe impl<T: Element> BoxRet for IntArray<T> {
    unsafe fn box_into<'fcx>(self, fcinfo: &mut FcInfo<'fcx>) -> Datum<'fcx> {
        unsafe { fcinfo.return_raw_datum(self.datum) }
    }
}

unsafe impl<T: Element> SqlTranslatable for IntArray<T> {
    const TYPE_IDENT: &'static str = <Vec<T> as SqlTranslatable>::TYPE_IDENT;
    const TYPE_ORIGIN: TypeOrigin = <Vec<T> as SqlTranslatable>::TYPE_ORIGIN;
    const ARGUMENT_SQL: Result<SqlMappingRef, ArgumentError> =
        <Vec<T> as SqlTranslatable>::ARGUMENT_SQL;
    const RETURN_SQL: Result<ReturnsRef, ReturnsError> = <Vec<T> as SqlTranslatable>::RETURN_SQL;
}
