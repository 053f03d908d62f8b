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
use serde::Serialize;
use serde_json::Value;

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

/// A JSON document a function returns as jsonb or sends as text: any value of a type deriving
/// serde's `Serialize` (one struct per shape, as in [`crate::documents`]), turned into a JSON
/// value by serde and from there built straight into jsonb (no JSON text parsed,
/// [`Built::document`]) and printed by jsonb_out ([`Document::text`]). Its numbers are
/// integers, and its strings ASCII (true of hex and of times), which jsonb holds as they are in
/// any database encoding.
pub struct Document(Value);

impl Document {
    pub fn of<T: Serialize + ?Sized>(document: &T) -> Document {
        Document(
            serde_json::to_value(document)
                .expect("a document's fields are JSON values, keyed by strings"),
        )
    }

    /// The document without these keys of its top-level object (none of a document of another
    /// kind).
    pub fn without(mut self, keys: &[&str]) -> Document {
        if let Value::Object(fields) = &mut self.0 {
            for key in keys {
                fields.remove(*key);
            }
        }
        self
    }

    /// The text of this document as jsonb prints it: what [`Built::printed`] gives of the
    /// document built, written straight from the value (no jsonb built, none printed). A number
    /// that is not an integer (which no document holds) is printed through jsonb.
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(256);
        if write_jsonb_text(&self.0, &mut out) {
            out
        } else {
            Built::<pgrx::JsonB>::of_document(self).printed()
        }
    }
}

/// Writes `value` as `jsonb_out` prints the jsonb built from it: an object's keys shorter first,
/// then byte by byte (the order jsonb keeps them in), `", "` between items and `": "` after a
/// key, strings escaped as jsonb's `escape_json` escapes them. False, with `out` partly
/// written, for a number that is not an integer, whose text is numeric's own.
fn write_jsonb_text(value: &Value, out: &mut String) -> bool {
    use std::fmt::Write;
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) if n.is_f64() => return false,
        // An integer prints its digits, as numeric_out does.
        Value::Number(n) => write!(out, "{n}").expect("a String takes any text"),
        Value::String(s) => write_json_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                if !write_jsonb_text(item, out) {
                    return false;
                }
            }
            out.push(']');
        }
        Value::Object(fields) => {
            let mut fields: Vec<(&String, &Value)> = fields.iter().collect();
            fields.sort_by(|(a, _), (b, _)| {
                a.len()
                    .cmp(&b.len())
                    .then_with(|| a.as_bytes().cmp(b.as_bytes()))
            });
            out.push('{');
            for (i, (key, value)) in fields.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_json_string(key, out);
                out.push_str(": ");
                if !write_jsonb_text(value, out) {
                    return false;
                }
            }
            out.push('}');
        }
    }
    true
}

/// A string in quotes as jsonb's `escape_json` writes it: `"` and `\` escaped, backspace,
/// form feed, newline, carriage return and tab by their letters, every other byte below 0x20
/// as `\u00xx` (lower-case hex), and everything else as it is. (A NUL, which no document holds,
/// is written `\u0000`, where jsonb_out of some majors ends the string at it.)
fn write_json_string(s: &str, out: &mut String) {
    use std::fmt::Write;
    out.push('"');
    // Most strings (hex, times) need no escape: copied whole.
    if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                write!(out, "\\u{:04x}", u32::from(c)).expect("a String takes any text")
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The text `jsonb_out` gives for a document ([`Document::text`]): what the tests compare.
#[cfg(any(test, feature = "pg_test"))]
pub fn jsonb_text<T: Serialize + ?Sized>(document: &T) -> String {
    Document::of(document).text()
}

/// Pushes a JSON value into a jsonb under construction (which sorts an object's keys itself).
///
/// # Safety
/// `state` is a jsonb parse state pushJsonbValue built, and `token` the token this value takes
/// there (WJB_VALUE in an object, WJB_ELEM in an array; ignored for containers).
unsafe fn push_value(
    value: &Value,
    state: &mut *mut pg_sys::JsonbParseState,
    token: pg_sys::JsonbIteratorToken::Type,
) -> *mut pg_sys::JsonbValue {
    use pg_sys::JsonbIteratorToken::*;
    // SAFETY: pushJsonbValue copies what it keeps of a scalar; the strings are palloc'd copies,
    // the numerics palloc'd by int64_to_numeric or numeric_in, all in the current memory
    // context.
    unsafe {
        match value {
            Value::Array(items) => {
                pg_sys::pushJsonbValue(state, WJB_BEGIN_ARRAY, std::ptr::null_mut());
                for item in items {
                    push_value(item, state, WJB_ELEM);
                }
                pg_sys::pushJsonbValue(state, WJB_END_ARRAY, std::ptr::null_mut())
            }
            Value::Object(fields) => {
                pg_sys::pushJsonbValue(state, WJB_BEGIN_OBJECT, std::ptr::null_mut());
                for (key, value) in fields {
                    let mut k = string_value(key);
                    pg_sys::pushJsonbValue(state, WJB_KEY, &mut k);
                    push_value(value, state, WJB_VALUE);
                }
                pg_sys::pushJsonbValue(state, WJB_END_OBJECT, std::ptr::null_mut())
            }
            scalar => {
                let mut v = scalar_value(scalar);
                pg_sys::pushJsonbValue(state, token, &mut v)
            }
        }
    }
}

/// A scalar as a jsonb value, allocated in the current memory context.
///
/// # Safety
/// Allocates in the current memory context.
unsafe fn scalar_value(value: &Value) -> pg_sys::JsonbValue {
    // SAFETY: int64_to_numeric and numeric_in return a palloc'd numeric (numeric_in reads the
    // number as jsonb_in would, from the NUL-terminated text alive during the call).
    unsafe {
        match value {
            // A null's value is not read: all zeroes, as any.
            Value::Null => pg_sys::JsonbValue {
                type_: pg_sys::jbvType::jbvNull,
                val: std::mem::zeroed(),
            },
            Value::Bool(b) => pg_sys::JsonbValue {
                type_: pg_sys::jbvType::jbvBool,
                val: pg_sys::JsonbValue__bindgen_ty_1 { boolean: *b },
            },
            Value::Number(n) => {
                let numeric = match n.as_i64() {
                    Some(i) => pg_sys::int64_to_numeric(i),
                    None => {
                        let text = std::ffi::CString::new(n.to_string())
                            .expect("a number's text holds no NUL");
                        pgrx::direct_function_call_as_datum(
                            pg_sys::numeric_in,
                            &[
                                Some(pg_sys::Datum::from(text.as_ptr())),
                                Some(pg_sys::Datum::from(0u32)),
                                Some(pg_sys::Datum::from(-1i32)),
                            ],
                        )
                        .expect("numeric_in returns a numeric")
                        .cast_mut_ptr()
                    }
                };
                pg_sys::JsonbValue {
                    type_: pg_sys::jbvType::jbvNumeric,
                    val: pg_sys::JsonbValue__bindgen_ty_1 { numeric },
                }
            }
            Value::String(s) => string_value(s),
            Value::Array(_) | Value::Object(_) => unreachable!("a container is not a scalar"),
        }
    }
}

/// A jsonb string value holding a palloc'd copy of `s`.
///
/// # Safety
/// Allocates in the current memory context.
unsafe fn string_value(s: &str) -> pg_sys::JsonbValue {
    // SAFETY: palloc returns at least one byte (or raises); the copy fills `s.len()` of them.
    unsafe {
        let copy = pg_sys::palloc(s.len().max(1)) as *mut std::ffi::c_char;
        std::ptr::copy_nonoverlapping(s.as_ptr(), copy as *mut u8, s.len());
        pg_sys::JsonbValue {
            type_: pg_sys::jbvType::jbvString,
            val: pg_sys::JsonbValue__bindgen_ty_1 {
                string: pg_sys::JsonbValue__bindgen_ty_1__bindgen_ty_1 {
                    len: s.len() as i32,
                    val: copy,
                },
            },
        }
    }
}

impl Built<pgrx::JsonB> {
    /// This jsonb as PostgreSQL's own `jsonb_out` prints it: exactly what `SELECT` shows.
    pub fn printed(&self) -> String {
        // SAFETY: jsonb_out takes a non-NULL jsonb (this one, left in place) and returns a
        // palloc'd cstring, copied into a String before it is freed with the call's context.
        unsafe {
            let out: &std::ffi::CStr =
                pgrx::direct_function_call(pg_sys::jsonb_out, &[Some(self.datum)])
                    .expect("jsonb_out returns a string");
            out.to_str()
                .expect("a document's text is UTF-8: its strings are ASCII")
                .to_owned()
        }
    }

    /// A document as a jsonb datum, built without parsing JSON text.
    pub fn document<T: Serialize + ?Sized>(document: &T) -> Self {
        Self::of_document(&Document::of(document))
    }

    /// A document already turned into a JSON value, as a jsonb datum.
    pub fn of_document(document: &Document) -> Self {
        let value = &document.0;
        // SAFETY: a scalar alone is pushed as a one-element raw array, as jsonb_in does; the
        // value pushJsonbValue returns for the outermost container (or that array) is what
        // JsonbValueToJsonb turns into a palloc'd jsonb.
        let datum = unsafe {
            let mut state: *mut pg_sys::JsonbParseState = std::ptr::null_mut();
            let root = match value {
                Value::Array(_) | Value::Object(_) => {
                    push_value(value, &mut state, pg_sys::JsonbIteratorToken::WJB_VALUE)
                }
                scalar => {
                    let mut raw = pg_sys::JsonbValue {
                        type_: pg_sys::jbvType::jbvArray,
                        val: pg_sys::JsonbValue__bindgen_ty_1 {
                            array: pg_sys::JsonbValue__bindgen_ty_1__bindgen_ty_2 {
                                nElems: 0,
                                elems: std::ptr::null_mut(),
                                rawScalar: true,
                            },
                        },
                    };
                    pg_sys::pushJsonbValue(
                        &mut state,
                        pg_sys::JsonbIteratorToken::WJB_BEGIN_ARRAY,
                        &mut raw,
                    );
                    push_value(scalar, &mut state, pg_sys::JsonbIteratorToken::WJB_ELEM);
                    pg_sys::pushJsonbValue(
                        &mut state,
                        pg_sys::JsonbIteratorToken::WJB_END_ARRAY,
                        std::ptr::null_mut(),
                    )
                }
            };
            pg_sys::Datum::from(pg_sys::JsonbValueToJsonb(root))
        };
        Built {
            datum,
            sql_type: PhantomData,
        }
    }
}

#[cfg(any(test, feature = "pg_test"))]
#[pgrx::pg_schema]
mod tests {
    use super::*;
    use pgrx::prelude::*;

    /// What jsonb_in then jsonb_out make of a JSON text: the document jsonb reads from it.
    fn reread(text: &str) -> String {
        Spi::get_one_with_args::<String>("SELECT $1::jsonb::text", &[text.into()])
            .unwrap()
            .unwrap()
    }

    const NASTY: &str = "a\"b\\c\nd\te\u{1}f\u{8}g\u{c}h\ri Zoë 牌 🂡";

    /// A document of every kind of field a derived struct has.
    #[derive(Serialize)]
    struct Document {
        desk: i32,
        chain_head: Option<String>,
        seeds_required: bool,
        revealed: Option<bool>,
        max_deals: u64,
        players: [Option<i64>; 3],
        cards: Vec<Vec<i32>>,
        inner: Inner,
        #[serde(rename = "a\"key")]
        quoted: Vec<Inner>,
    }

    #[derive(Serialize)]
    struct Inner {
        zz: String,
        a: Option<i16>,
    }

    #[pg_test]
    fn documents_print_as_jsonb_prints_them() {
        let document = Document {
            desk: -3,
            chain_head: None,
            seeds_required: true,
            revealed: Some(false),
            max_deals: u64::MAX,
            players: [Some(i64::MIN), None, Some(0)],
            cards: vec![vec![], vec![54, 1]],
            inner: Inner {
                zz: NASTY.into(),
                a: None,
            },
            quoted: vec![Inner {
                zz: String::new(),
                a: Some(-1),
            }],
        };
        // The jsonb built from the document is the one jsonb_in reads from serde's text of it.
        let text = jsonb_text(&document);
        assert_eq!(text, reread(&serde_json::to_string(&document).unwrap()));
        // Keys shorter first, then byte by byte (the raw key, not its escaped text), inside
        // nested objects too.
        let start =
            "{\"desk\": -3, \"a\\\"key\": [{\"a\": -1, \"zz\": \"\"}], \"cards\": [[], [54, 1]], ";
        assert!(text.starts_with(start), "{text}");
        // The check can fail: a field changed prints otherwise.
        let other = Document {
            revealed: None,
            ..document
        };
        assert_ne!(text, jsonb_text(&other));
    }
}
