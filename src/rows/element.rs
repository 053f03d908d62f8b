//! How a row aggregate's values are stored: an element type's bytes as the states keep them,
//! and the arrays they end in.

use std::ffi::{c_char, CStr};

use pgrx::pg_sys::{self, Datum};

use dealcards_core::error::Error;
use dealcards_core::rows::Value;
use dealcards_core::shuffle::fisher_yates;

use super::{invalid, live};
use crate::{check_for_interrupts, raise};

/// How the element type is stored.
#[derive(Clone, Copy, Debug)]
pub(super) struct Element {
    pub(super) oid: pg_sys::Oid,
    pub(super) typlen: i16,
    pub(super) byval: bool,
    pub(super) align: c_char,
}

impl Element {
    pub(super) fn of(oid: pg_sys::Oid) -> Self {
        if oid == pg_sys::InvalidOid {
            invalid("could not determine the type of the values");
        }
        let (mut typlen, mut byval, mut align) = (0i16, false, 0 as c_char);
        // SAFETY: a catalog lookup; raises an ERROR for an unknown type.
        unsafe { pg_sys::get_typlenbyvalalign(oid, &mut typlen, &mut byval, &mut align) };
        Element {
            oid,
            typlen,
            byval,
            align,
        }
    }

    /// Calls `f` with the bytes of a (non-NULL) value of this type.
    #[inline]
    pub(super) fn with_bytes<R>(&self, datum: Datum, f: impl FnOnce(&[u8]) -> R) -> R {
        if self.byval {
            let word = (datum.value() as u64).to_le_bytes();
            return f(&word[..self.typlen as usize]);
        }
        // SAFETY: a by-reference datum of this type points to a value of it: typlen bytes, a
        // varlena (detoasted here, in the current memory context) or a C string.
        unsafe {
            match self.typlen {
                len if len > 0 => f(std::slice::from_raw_parts(
                    datum.cast_mut_ptr::<u8>(),
                    len as usize,
                )),
                -1 => {
                    let flat = pg_sys::pg_detoast_datum_packed(datum.cast_mut_ptr());
                    let data = pgrx::varlena::vardata_any(flat) as *const u8;
                    f(std::slice::from_raw_parts(
                        data,
                        pgrx::varlena::varsize_any_exhdr(flat),
                    ))
                }
                _ => f(CStr::from_ptr(datum.cast_mut_ptr::<c_char>()).to_bytes()),
            }
        }
    }

    pub(super) fn value(&self, datum: Datum) -> Value {
        self.with_bytes(datum, Value::new)
    }

    /// The stored size of `value` as a datum of this type (by-reference types only), rounded
    /// up to 8 bytes so that the next one starts aligned.
    fn stored_len(&self, value: &Value) -> usize {
        let len = match self.typlen {
            len if len > 0 => len as usize,
            -1 => value.bytes().len() + pg_sys::VARHDRSZ,
            _ => value.bytes().len() + 1,
        };
        len.next_multiple_of(8)
    }

    /// A datum of this type holding `value`'s bytes; a by-reference one written at `at` (which
    /// has [`Element::stored_len`] bytes, 8-byte aligned).
    ///
    /// # Safety
    /// For a by-reference type, `at` must have room for the value.
    unsafe fn datum_at(&self, value: &Value, at: *mut u8) -> Datum {
        let bytes = value.bytes();
        if self.byval {
            let mut word = [0u8; 8];
            word[..bytes.len()].copy_from_slice(bytes);
            return Datum::from(u64::from_le_bytes(word) as usize);
        }
        // SAFETY: the caller gives room for the value at `at`.
        unsafe {
            match self.typlen {
                len if len > 0 => {
                    std::ptr::copy_nonoverlapping(bytes.as_ptr(), at, len as usize);
                }
                -1 => {
                    let total = bytes.len() + pg_sys::VARHDRSZ;
                    pgrx::varlena::set_varsize_4b(at as *mut pg_sys::varlena, total as i32);
                    std::ptr::copy_nonoverlapping(
                        bytes.as_ptr(),
                        at.add(pg_sys::VARHDRSZ),
                        bytes.len(),
                    );
                }
                _ => {
                    std::ptr::copy_nonoverlapping(bytes.as_ptr(), at, bytes.len());
                    *at.add(bytes.len()) = 0;
                }
            }
        }
        Datum::from(at)
    }

    /// About how many bytes one value takes, for the working-memory check of a sample.
    pub(super) fn size_hint(&self) -> usize {
        if self.typlen > 0 {
            self.typlen as usize
        } else {
            32
        }
    }

    /// A one-dimensional array of `at(0)`, ..., `at(count - 1)`, in the current memory context.
    /// By-reference values are laid out in one buffer first (one allocation, not one per
    /// value), which construct_md_array copies.
    pub(super) fn array<'a>(&self, count: usize, at: impl Fn(usize) -> &'a Value) -> Datum {
        let buffer_len = if self.byval {
            0
        } else {
            (0..count).map(|i| self.stored_len(at(i))).sum::<usize>()
        };
        if buffer_len > 0x3fff_ffff {
            raise(Error::new(
                dealcards_core::error::ErrorKind::TooLarge,
                "the result would be larger than an array can hold (1 GB)",
            ));
        }
        // SAFETY: a buffer of buffer_len bytes (palloc'd, so 8-byte aligned; MemoryContextAllocHuge
        // is not needed below 1 GB), written value by value within its length; datums of the
        // element type, one dimension of their count, no NULLs.
        unsafe {
            let buffer = if buffer_len == 0 {
                std::ptr::null_mut()
            } else {
                pg_sys::palloc(buffer_len) as *mut u8
            };
            let mut offset = 0;
            let mut datums: Vec<Datum> = Vec::with_capacity(count);
            for i in 0..count {
                let value = at(i);
                datums.push(self.datum_at(value, buffer.wrapping_add(offset)));
                if !self.byval {
                    offset += self.stored_len(value);
                }
            }
            let array = self.construct(&mut datums);
            if !buffer.is_null() {
                pg_sys::pfree(buffer as *mut std::ffi::c_void);
            }
            array
        }
    }
}

impl Element {
    /// A one-dimensional array of `datums` (of this type, no NULLs), in the current context.
    fn construct(&self, datums: &mut [Datum]) -> Datum {
        let mut dims = [datums.len() as i32];
        let mut lower = [1i32];
        // SAFETY: datums of the element type, one dimension of their count, no NULLs.
        unsafe {
            Datum::from(pg_sys::construct_md_array(
                datums.as_mut_ptr(),
                std::ptr::null_mut(),
                1,
                dims.as_mut_ptr(),
                lower.as_mut_ptr(),
                self.oid,
                self.typlen as i32,
                self.byval,
                self.align,
            ))
        }
    }

    /// A shuffle of values of a by-value type: their datums made in order (8 bytes each,
    /// sequentially), then put in order by Fisher-Yates in place, which prefetches ahead; a
    /// gather through a shuffled index would wait on a cache miss per value.
    pub(super) fn shuffled_by_value(&self, words: &[u64]) -> Datum {
        debug_assert!(self.byval);
        let mut datums: Vec<Datum> = words.iter().map(|&w| Datum::from(w as usize)).collect();
        live(|s| fisher_yates(&mut datums, s, &mut check_for_interrupts));
        self.construct(&mut datums)
    }
}
