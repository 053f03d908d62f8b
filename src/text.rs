//! Text arguments read as the bytes they are, in the database's encoding.
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
