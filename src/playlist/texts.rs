//! A `text[]` argument read as its elements' stored bytes (groups are compared byte for byte, as
//! `shuffle_spread` compares them; the units' names are written from them).

use pgrx::callconv::{Arg, ArgAbi};
use pgrx::datum::DatumWithOid;
use pgrx::pg_sys;
use pgrx::pgrx_sql_entity_graph::metadata::{
    ArgumentError, ReturnsError, ReturnsRef, SqlMappingRef, SqlTranslatable, TypeOrigin,
};
use pgrx::{Array, FromDatum};

/// A `text[]` argument: a copy of its elements' bytes (the detoasted array may not outlive the
/// argument's conversion), one buffer for all.
pub struct TextArray<'fcx> {
    bytes: Vec<u8>,
    /// Each element's range in `bytes`, None for NULL.
    elements: Vec<Option<(usize, usize)>>,
    lifetime: std::marker::PhantomData<&'fcx ()>,
}

impl TextArray<'_> {
    pub fn len(&self) -> usize {
        self.elements.len()
    }

    /// Element `i` (from 0), None when NULL.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        self.elements[i].map(|(start, end)| &self.bytes[start..end])
    }
}

impl FromDatum for TextArray<'_> {
    unsafe fn from_polymorphic_datum(
        datum: pg_sys::Datum,
        is_null: bool,
        _: pg_sys::Oid,
    ) -> Option<Self> {
        // SAFETY: a non-NULL text[] datum is an array of text varlenas. Each element (stored
        // inline, with a 1-byte or 4-byte header) is read while the detoasted array is alive and
        // copied; the slice covers exactly its data bytes.
        unsafe {
            let array =
                Array::<pg_sys::Datum>::from_polymorphic_datum(datum, is_null, pg_sys::TEXTOID)?;
            let mut bytes = Vec::new();
            let elements = array
                .iter()
                .map(|element| {
                    element.map(|d| {
                        let varlena = pg_sys::pg_detoast_datum_packed(d.cast_mut_ptr());
                        let start = bytes.len();
                        bytes.extend_from_slice(pgrx::varlena::varlena_to_byte_slice(varlena));
                        (start, bytes.len())
                    })
                })
                .collect();
            Some(TextArray {
                bytes,
                elements,
                lifetime: std::marker::PhantomData,
            })
        }
    }
}

// SAFETY: unboxes a text[] datum through FromDatum above; NULL is handled by the default nullable
// path, never unboxed.
unsafe impl<'fcx> ArgAbi<'fcx> for TextArray<'fcx> {
    unsafe fn unbox_arg_unchecked(arg: Arg<'_, 'fcx>) -> Self {
        let index = arg.index();
        // SAFETY: the caller promises a non-NULL text[] argument.
        unsafe { arg.unbox_arg_using_from_datum() }
            .unwrap_or_else(|| panic!("argument {index} must not be null"))
    }
}

// SAFETY: the SQL type is text[], which is exactly what Vec<String> maps to.
unsafe impl SqlTranslatable for TextArray<'_> {
    const TYPE_IDENT: &'static str = <Vec<String> as SqlTranslatable>::TYPE_IDENT;
    const TYPE_ORIGIN: TypeOrigin = <Vec<String> as SqlTranslatable>::TYPE_ORIGIN;
    const ARGUMENT_SQL: Result<SqlMappingRef, ArgumentError> =
        <Vec<String> as SqlTranslatable>::ARGUMENT_SQL;
    const RETURN_SQL: Result<ReturnsRef, ReturnsError> =
        <Vec<String> as SqlTranslatable>::RETURN_SQL;
}

/// A `jsonb` argument kept as its datum: read through SQL (`convert_to(arg::text, 'UTF8')`), so
/// that a state saved in a database of any encoding is read as the UTF-8 JSON it is.
pub struct JsonbArg(pg_sys::Datum);

impl JsonbArg {
    pub fn param(&self) -> DatumWithOid<'_> {
        // SAFETY: the datum is the jsonb argument of the call, alive while the call runs.
        unsafe { DatumWithOid::new(self.0, pg_sys::JSONBOID) }
    }
}

impl FromDatum for JsonbArg {
    unsafe fn from_polymorphic_datum(
        datum: pg_sys::Datum,
        is_null: bool,
        _: pg_sys::Oid,
    ) -> Option<Self> {
        (!is_null).then_some(JsonbArg(datum))
    }
}

// SAFETY: keeps the jsonb argument's datum through FromDatum above; NULL is handled by the
// default nullable path, never unboxed.
unsafe impl<'fcx> ArgAbi<'fcx> for JsonbArg {
    unsafe fn unbox_arg_unchecked(arg: Arg<'_, 'fcx>) -> Self {
        let index = arg.index();
        // SAFETY: the caller promises a non-NULL jsonb argument.
        unsafe { arg.unbox_arg_using_from_datum() }
            .unwrap_or_else(|| panic!("argument {index} must not be null"))
    }
}

// SAFETY: the SQL type is jsonb, which is exactly what pgrx's JsonB maps to.
unsafe impl SqlTranslatable for JsonbArg {
    const TYPE_IDENT: &'static str = <pgrx::JsonB as SqlTranslatable>::TYPE_IDENT;
    const TYPE_ORIGIN: TypeOrigin = <pgrx::JsonB as SqlTranslatable>::TYPE_ORIGIN;
    const ARGUMENT_SQL: Result<SqlMappingRef, ArgumentError> =
        <pgrx::JsonB as SqlTranslatable>::ARGUMENT_SQL;
    const RETURN_SQL: Result<ReturnsRef, ReturnsError> =
        <pgrx::JsonB as SqlTranslatable>::RETURN_SQL;
}

/// A `jsonb` result made from a JSON value, every character beyond ASCII written as a `\u`
/// escape: jsonb_in reads that as the character in any database encoding that has it.
pub struct JsonbResult(pub serde_json::Value);

/// JSON text with only ASCII characters: those beyond it can only be inside strings, where a
/// `\u` escape (a surrogate pair beyond the first plane) means the same character.
pub fn ascii_json(value: &serde_json::Value) -> String {
    let text = value.to_string();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

impl pgrx::IntoDatum for JsonbResult {
    fn into_datum(self) -> Option<pg_sys::Datum> {
        let cstring = std::ffi::CString::new(ascii_json(&self.0))
            .expect("JSON text holds no NUL byte: strings escape it");
        // SAFETY: jsonb_in reads a NUL-terminated string, alive during the call, and returns a
        // new jsonb datum.
        unsafe {
            pgrx::fcinfo::direct_function_call_as_datum(
                pg_sys::jsonb_in,
                &[Some(pg_sys::Datum::from(cstring.as_ptr()))],
            )
        }
    }

    fn type_oid() -> pg_sys::Oid {
        pg_sys::JSONBOID
    }
}

// SAFETY: into_datum above makes a non-NULL jsonb datum in the call's memory context, which is
// what the function returns.
unsafe impl pgrx::callconv::BoxRet for JsonbResult {
    unsafe fn box_into<'fcx>(
        self,
        fcinfo: &mut pgrx::callconv::FcInfo<'fcx>,
    ) -> pgrx::datum::Datum<'fcx> {
        let datum = pgrx::IntoDatum::into_datum(self).expect("a jsonb datum");
        // SAFETY: as above.
        unsafe { fcinfo.return_raw_datum(datum) }
    }
}

// SAFETY: the SQL type is jsonb, as for pgrx's JsonB.
unsafe impl SqlTranslatable for JsonbResult {
    const TYPE_IDENT: &'static str = <pgrx::JsonB as SqlTranslatable>::TYPE_IDENT;
    const TYPE_ORIGIN: TypeOrigin = <pgrx::JsonB as SqlTranslatable>::TYPE_ORIGIN;
    const ARGUMENT_SQL: Result<SqlMappingRef, ArgumentError> =
        <pgrx::JsonB as SqlTranslatable>::ARGUMENT_SQL;
    const RETURN_SQL: Result<ReturnsRef, ReturnsError> =
        <pgrx::JsonB as SqlTranslatable>::RETURN_SQL;
}
