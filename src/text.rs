//! Text arguments read as the bytes they are, in the database's encoding, or converted to UTF-8.
//!
//! pgrx's `&str` arguments insist on UTF-8 and panic (an internal error, XX000) on the bytes of a
//! LATIN1 or EUC_JP database that are not. An argument that only has to match a few ASCII words
//! (a shuffle queue's mode) is read as [`TextBytes`] instead, and a value that matches none is an
//! ordinary invalid-parameter error.

use pgrx::callconv::{Arg, ArgAbi};
use pgrx::pg_sys;
use pgrx::pgrx_sql_entity_graph::metadata::{
    ArgumentError, ReturnsError, ReturnsRef, SqlMappingRef, SqlTranslatable, TypeOrigin,
};
use pgrx::FromDatum;

/// A `text` argument's bytes.
pub struct TextBytes<'fcx>(pub &'fcx [u8]);

impl FromDatum for TextBytes<'_> {
    unsafe fn from_polymorphic_datum(
        datum: pg_sys::Datum,
        is_null: bool,
        _: pg_sys::Oid,
    ) -> Option<Self> {
        if is_null || datum.is_null() {
            return None;
        }
        // SAFETY: a non-NULL text datum is a varlena; detoasting keeps it readable for the call,
        // and the slice covers exactly its data bytes.
        unsafe {
            let varlena = pg_sys::pg_detoast_datum_packed(datum.cast_mut_ptr());
            Some(TextBytes(pgrx::varlena::varlena_to_byte_slice(varlena)))
        }
    }
}

// SAFETY: unboxes a text datum through FromDatum above, as pgrx does for its own text types;
// NULL is handled by the default nullable path, never unboxed.
unsafe impl<'fcx> ArgAbi<'fcx> for TextBytes<'fcx> {
    unsafe fn unbox_arg_unchecked(arg: Arg<'_, 'fcx>) -> Self {
        let index = arg.index();
        // SAFETY: the caller promises a non-NULL text argument.
        unsafe { arg.unbox_arg_using_from_datum() }
            .unwrap_or_else(|| panic!("argument {index} must not be null"))
    }
}

// SAFETY: the SQL type is text, which is exactly what String maps to.
unsafe impl SqlTranslatable for TextBytes<'_> {
    const TYPE_IDENT: &'static str = <String as SqlTranslatable>::TYPE_IDENT;
    const TYPE_ORIGIN: TypeOrigin = <String as SqlTranslatable>::TYPE_ORIGIN;
    const ARGUMENT_SQL: Result<SqlMappingRef, ArgumentError> =
        <String as SqlTranslatable>::ARGUMENT_SQL;
    const RETURN_SQL: Result<ReturnsRef, ReturnsError> = <String as SqlTranslatable>::RETURN_SQL;
}

/// The bytes of text in the database's encoding, converted to UTF-8 (as the provably fair
/// protocol encodes client seeds). In a SQL_ASCII database the bytes are taken as they are, and
/// must then be valid UTF-8 (22021 otherwise).
pub fn utf8_of(bytes: &[u8]) -> Vec<u8> {
    let len = i32::try_from(bytes.len()).expect("a text value is under 1 GB");
    // SAFETY: pg_server_to_any reads `len` bytes of `bytes` and returns either that same pointer
    // (nothing to convert) or a palloc'd NUL-terminated conversion, which is copied and freed.
    unsafe {
        let converted =
            pg_sys::pg_server_to_any(bytes.as_ptr().cast(), len, pg_sys::pg_enc::PG_UTF8 as i32);
        if converted.cast_const().cast::<u8>() == bytes.as_ptr() {
            bytes.to_vec()
        } else {
            let utf8 = std::ffi::CStr::from_ptr(converted).to_bytes().to_vec();
            pg_sys::pfree(converted.cast());
            utf8
        }
    }
}

/// A `text[]` argument read as its elements' bytes in UTF-8 (None for a NULL element), whatever
/// the database's encoding.
pub struct Utf8Texts(pub Vec<Option<Vec<u8>>>);

impl FromDatum for Utf8Texts {
    unsafe fn from_polymorphic_datum(
        datum: pg_sys::Datum,
        is_null: bool,
        _: pg_sys::Oid,
    ) -> Option<Self> {
        // SAFETY: a non-NULL text[] datum is an array whose elements are text varlenas; each is
        // read as TextBytes does while the array is alive.
        unsafe {
            let array = pgrx::Array::<pg_sys::Datum>::from_polymorphic_datum(
                datum,
                is_null,
                pg_sys::TEXTOID,
            )?;
            let texts = array
                .iter()
                .map(|element| {
                    element.map(|d| {
                        let text = TextBytes::from_polymorphic_datum(d, false, pg_sys::TEXTOID)
                            .expect("a non-NULL element");
                        utf8_of(text.0)
                    })
                })
                .collect();
            Some(Utf8Texts(texts))
        }
    }
}

// SAFETY: unboxes a text[] datum through FromDatum above; NULL is handled by the default
// nullable path, never unboxed.
unsafe impl<'fcx> ArgAbi<'fcx> for Utf8Texts {
    unsafe fn unbox_arg_unchecked(arg: Arg<'_, 'fcx>) -> Self {
        let index = arg.index();
        // SAFETY: the caller promises a non-NULL text[] argument.
        unsafe { arg.unbox_arg_using_from_datum() }
            .unwrap_or_else(|| panic!("argument {index} must not be null"))
    }
}

// SAFETY: the SQL type is text[], which is exactly what Vec<String> maps to.
unsafe impl SqlTranslatable for Utf8Texts {
    const TYPE_IDENT: &'static str = <Vec<String> as SqlTranslatable>::TYPE_IDENT;
    const TYPE_ORIGIN: TypeOrigin = <Vec<String> as SqlTranslatable>::TYPE_ORIGIN;
    const ARGUMENT_SQL: Result<SqlMappingRef, ArgumentError> =
        <Vec<String> as SqlTranslatable>::ARGUMENT_SQL;
    const RETURN_SQL: Result<ReturnsRef, ReturnsError> =
        <Vec<String> as SqlTranslatable>::RETURN_SQL;
}
