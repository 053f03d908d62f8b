//! Aggregates that sample and shuffle rows: `sample_agg`, `shuffle_agg`, `resample_agg` and their
//! seeded forms (sql/install/rows.sql declares them; docs/rows.md documents them). The seeded
//! order key `shuffle_key` is in `shuffle_key`, the TABLESAMPLE method `sparse_bernoulli` in
//! `tablesample`, `sample_rows` in `sample_rows`.
//!
//! Their support functions are plain V1 C functions rather than `#[pg_extern]`s: a transition
//! function runs once per row, and a row a sample passes over must cost little more than
//! `count(value)` does, so each reads its arguments from `fcinfo` directly. The states are the
//! core's (`dealcards_core::rows`), allocated with Rust and dropped when the aggregate's memory
//! context is. Values are kept as their bytes: a by-value type's `typlen` little-endian bytes,
//! a fixed-length type's bytes, a varlena's data without its header, a C string's characters.
//!
//! NULL values are skipped, as `count(value)` does: a sample of k values holds k values. A NULL
//! weight is never drawn, like 0.
//!
//! Each aggregate has two forms that share these functions. The polymorphic one (`anyelement`)
//! keeps its state as `internal`, serialized to bytea for parallel workers. The typed ones (for
//! smallint, integer, bigint, text and uuid values) keep it as the type `rows_agg_state`
//! (`state_type`), because Citus runs an aggregate's partial states on its workers only when
//! the state has a real type and the aggregate and its final function name concrete types.

use std::ffi::{c_char, CStr};

use pgrx::memcxt::PgMemoryContexts;
use pgrx::pg_sys::{self, Datum, FunctionCallInfo};
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;

use dealcards_core::error::Error;
use dealcards_core::rows::{
    sample_size, usable_weight, Resample, RowKey, Sample, SeededSample, SeededShuffle, ShuffleAll,
    Value,
};
use dealcards_core::shuffle::fisher_yates;

use crate::{check_for_interrupts, limit_working_memory, ok_or_raise, raise, with_live};

pgrx::extension_sql_file!("../sql/install/rows.sql", name = "rows");
// sample_rows(relation, k [, seed]): exactly k rows of a table, through sparse_bernoulli.
pgrx::extension_sql_file!("../sql/install/sample_rows.sql", name = "sample_rows");

/// How the element type is stored.
#[derive(Clone, Copy, Debug)]
struct Element {
    oid: pg_sys::Oid,
    typlen: i16,
    byval: bool,
    align: c_char,
}

impl Element {
    fn of(oid: pg_sys::Oid) -> Self {
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
    fn with_bytes<R>(&self, datum: Datum, f: impl FnOnce(&[u8]) -> R) -> R {
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

    fn value(&self, datum: Datum) -> Value {
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
    fn size_hint(&self) -> usize {
        if self.typlen > 0 {
            self.typlen as usize
        } else {
            32
        }
    }

    /// A one-dimensional array of `at(0)`, ..., `at(count - 1)`, in the current memory context.
    /// By-reference values are laid out in one buffer first (one allocation, not one per
    /// value), which construct_md_array copies.
    fn array<'a>(&self, count: usize, at: impl Fn(usize) -> &'a Value) -> Datum {
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
    fn shuffled_by_value(&self, words: &[u64]) -> Datum {
        debug_assert!(self.byval);
        let mut datums: Vec<Datum> = words.iter().map(|&w| Datum::from(w as usize)).collect();
        live(|s| fisher_yates(&mut datums, s, &mut check_for_interrupts));
        self.construct(&mut datums)
    }
}

#[cold]
fn invalid(message: &str) -> ! {
    ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        message.to_string()
    );
}

/// What an aggregate keeps.
#[derive(Clone)]
enum Kind {
    Sample(Sample<Value>),
    Resample(Resample<Value>),
    Shuffle(ShuffleAll<Value>),
    /// A shuffle of a by-value type: its datums as they came (8 bytes a row, no copy of bytes).
    ShuffleByValue(ShuffleAll<u64>),
    SeededSample(SeededSample<Value>),
    SeededShuffle(SeededShuffle<Value>),
    /// Moved into another state by a combine.
    Taken,
}

#[derive(Clone)]
struct State {
    element: Element,
    kind: Kind,
}

/// Where an aggregate keeps its state: a pointer passed as `internal` (the polymorphic forms),
/// or a datum of the type `rows_agg_state` (the typed forms, see `state_type`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Internal,
    Typed,
}

// --- Reading fcinfo.

#[inline]
unsafe fn arg(fcinfo: FunctionCallInfo, n: usize) -> Option<Datum> {
    // SAFETY: the caller's fcinfo has at least n + 1 arguments.
    unsafe {
        let arg = *(*fcinfo).args.as_ptr().add(n);
        (!arg.isnull).then_some(arg.value)
    }
}

#[inline]
unsafe fn state_arg<'a>(fcinfo: FunctionCallInfo, n: usize) -> Option<&'a mut State> {
    // SAFETY: an internal argument of these functions is a State they made, or NULL.
    unsafe { arg(fcinfo, n).map(|d| &mut *d.cast_mut_ptr::<State>()) }
}

/// The aggregate's memory context, where a state must live.
unsafe fn aggregate_context(fcinfo: FunctionCallInfo) -> pg_sys::MemoryContext {
    let mut context = std::ptr::null_mut();
    // SAFETY: fcinfo is the call's own.
    if unsafe { pg_sys::AggCheckCallContext(fcinfo, &mut context) } == 0 {
        invalid("a row aggregate's support function was called outside an aggregate");
    }
    context
}

/// Puts a state where it is dropped with `context`.
unsafe fn keep(context: pg_sys::MemoryContext, state: State) -> Datum {
    Datum::from(PgMemoryContexts::For(context).leak_and_drop_on_delete(state))
}

unsafe fn value_type(fcinfo: FunctionCallInfo) -> Element {
    // SAFETY: the call's own flinfo.
    let oid = unsafe { pg_sys::get_fn_expr_argtype((*fcinfo).flinfo, 1) };
    if oid != pg_sys::InvalidOid {
        return Element::of(oid);
    }
    // SAFETY: fcinfo is the call's own.
    Element::of(unsafe { value_type_under_citus(fcinfo) })
}

/// The value type when the transition function was called without its expression: Citus runs
/// a typed aggregate's transition function inside its own aggregate,
/// `worker_partial_agg('sample_agg(bigint,integer)'::regprocedure, ROW(...))`, whose first
/// argument names the aggregate, and the aggregate's first argument type is the values'.
/// InvalidOid when that is not so.
unsafe fn value_type_under_citus(fcinfo: FunctionCallInfo) -> pg_sys::Oid {
    // SAFETY: AggGetAggref reads the calling aggregate's node, or returns NULL; the nodes it
    // returns are the plan's.
    unsafe {
        let aggref = pg_sys::AggGetAggref(fcinfo);
        if aggref.is_null() {
            return pg_sys::InvalidOid;
        }
        let args = (*aggref).args;
        if args.is_null() || (*args).length < 1 {
            return pg_sys::InvalidOid;
        }
        let first = (*(*args).elements).ptr_value as *mut pg_sys::TargetEntry;
        let expr = (*first).expr as *mut pg_sys::Node;
        if expr.is_null() || (*expr).type_ != pg_sys::NodeTag::T_Const {
            return pg_sys::InvalidOid;
        }
        let constant = expr as *mut pg_sys::Const;
        if (*constant).constisnull
            || ((*constant).consttype != pg_sys::REGPROCEDUREOID
                && (*constant).consttype != pg_sys::OIDOID)
        {
            return pg_sys::InvalidOid;
        }
        let aggregate = pg_sys::Oid::from((*constant).constvalue.value() as u32);
        if pg_sys::get_func_prokind(aggregate) != pg_sys::PROKIND_AGGREGATE as c_char {
            return pg_sys::InvalidOid;
        }
        let mut types: *mut pg_sys::Oid = std::ptr::null_mut();
        let mut count = 0;
        pg_sys::get_func_signature(aggregate, &mut types, &mut count);
        if count < 1 || types.is_null() {
            return pg_sys::InvalidOid;
        }
        let oid = *types;
        if pg_sys::get_typtype(oid) == pg_sys::TYPTYPE_PSEUDO as c_char {
            return pg_sys::InvalidOid;
        }
        oid
    }
}

/// The k of this row (argument 2), the same for every row of a group.
unsafe fn k_arg(fcinfo: FunctionCallInfo) -> usize {
    // SAFETY: argument 2 of the sampling aggregates is an int4.
    match unsafe { arg(fcinfo, 2) } {
        None => invalid("k must not be NULL"),
        Some(d) => ok_or_raise(sample_size(d.value() as i32)),
    }
}

fn same_k(k: usize, kept: usize) {
    if k != kept {
        invalid(&format!(
            "k must be the same for every row of a group: {kept}, then {k}"
        ));
    }
}

unsafe fn seed_arg(fcinfo: FunctionCallInfo, n: usize) -> RowKey {
    // SAFETY: argument n is a bytea.
    let Some(d) = (unsafe { arg(fcinfo, n) }) else {
        invalid("seed must not be NULL")
    };
    // SAFETY: a bytea datum; detoasted in the current context.
    let bytes = unsafe {
        let flat = pg_sys::pg_detoast_datum_packed(d.cast_mut_ptr());
        std::slice::from_raw_parts(
            pgrx::varlena::vardata_any(flat) as *const u8,
            pgrx::varlena::varsize_any_exhdr(flat),
        )
    };
    ok_or_raise(RowKey::from_seed_bytes(bytes))
}

/// This row's weight (argument 3), or None when it is never drawn (NULL or 0).
unsafe fn weight_arg(fcinfo: FunctionCallInfo) -> Option<f64> {
    // SAFETY: argument 3 of the weighted aggregates is a float8 (by value).
    let weight = f64::from_bits(unsafe { arg(fcinfo, 3) }?.value() as u64);
    ok_or_raise(usable_weight(weight)).then_some(weight)
}

fn live<R>(f: impl FnOnce(&mut dealcards_core::rng::Stream) -> R) -> R {
    ok_or_raise(with_live(f))
}

/// The state of this call, made by `make` on a group's first row; the datum to return.
unsafe fn state_or<'a>(
    fcinfo: FunctionCallInfo,
    form: Form,
    make: impl FnOnce(Element) -> Result<Kind, Error>,
) -> (&'a mut State, Datum) {
    // SAFETY: argument 0 is this aggregate's state, of the form the caller says.
    unsafe {
        if let Some(datum) = arg(fcinfo, 0) {
            return match form {
                Form::Internal => (&mut *datum.cast_mut_ptr::<State>(), datum),
                Form::Typed => state_type::writable(fcinfo, datum),
            };
        }
        let context = aggregate_context(fcinfo);
        let element = value_type(fcinfo);
        limit_working_memory();
        let kind = ok_or_raise(make(element));
        let state = State { element, kind };
        match form {
            Form::Internal => {
                let datum = keep(context, state);
                (&mut *datum.cast_mut_ptr::<State>(), datum)
            }
            Form::Typed => state_type::make(context, state),
        }
    }
}

macro_rules! v1 {
    ($($info:ident),* $(,)?) => {
        $(
            #[no_mangle]
            #[doc(hidden)]
            pub extern "C-unwind" fn $info() -> *const pg_sys::Pg_finfo_record {
                const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
                &V1
            }
        )*
    };
}

v1!(
    pg_finfo_dealcards_sample_agg_step,
    pg_finfo_dealcards_weighted_sample_agg_step,
    pg_finfo_dealcards_resample_agg_step,
    pg_finfo_dealcards_weighted_resample_agg_step,
    pg_finfo_dealcards_shuffle_agg_step,
    pg_finfo_dealcards_seeded_sample_agg_step,
    pg_finfo_dealcards_seeded_shuffle_agg_step,
    pg_finfo_dealcards_rows_agg_final,
    pg_finfo_dealcards_rows_agg_combine,
    pg_finfo_dealcards_rows_agg_serialize,
    pg_finfo_dealcards_rows_agg_deserialize,
    pg_finfo_dealcards_typed_sample_agg_step,
    pg_finfo_dealcards_typed_weighted_sample_agg_step,
    pg_finfo_dealcards_typed_resample_agg_step,
    pg_finfo_dealcards_typed_weighted_resample_agg_step,
    pg_finfo_dealcards_typed_shuffle_agg_step,
    pg_finfo_dealcards_typed_seeded_sample_agg_step,
    pg_finfo_dealcards_typed_seeded_shuffle_agg_step,
);

/// The transition functions, each once per form: `$internal` for the polymorphic aggregate,
/// `$typed` for the typed ones, both running `$body(fcinfo, form)`.
macro_rules! transition {
    ($(#[$doc:meta] $internal:ident, $typed:ident => $body:ident;)*) => {
        $(
            #[$doc]
            ///
            /// # Safety
            /// PostgreSQL calls it as the polymorphic aggregate's transition function.
            #[pg_guard]
            #[no_mangle]
            pub unsafe extern "C-unwind" fn $internal(fcinfo: FunctionCallInfo) -> Datum {
                // SAFETY: called by Postgres as the aggregate's transition function.
                unsafe { $body(fcinfo, Form::Internal) }
            }

            #[$doc]
            ///
            /// # Safety
            /// PostgreSQL (or Citus) calls it as a typed aggregate's transition function.
            #[pg_guard]
            #[no_mangle]
            pub unsafe extern "C-unwind" fn $typed(fcinfo: FunctionCallInfo) -> Datum {
                // SAFETY: called by Postgres (or Citus) as the typed aggregate's transition function.
                unsafe { $body(fcinfo, Form::Typed) }
            }
        )*
    };
}

transition! {
    /// sample_agg(value, k): a row passed over costs a counter.
    dealcards_sample_agg_step, dealcards_typed_sample_agg_step => sample_step;
    /// sample_agg(value, k, weight).
    dealcards_weighted_sample_agg_step, dealcards_typed_weighted_sample_agg_step => weighted_sample_step;
    /// resample_agg(value, k).
    dealcards_resample_agg_step, dealcards_typed_resample_agg_step => resample_step;
    /// resample_agg(value, k, weight).
    dealcards_weighted_resample_agg_step, dealcards_typed_weighted_resample_agg_step => weighted_resample_step;
    /// shuffle_agg(value).
    dealcards_shuffle_agg_step, dealcards_typed_shuffle_agg_step => shuffle_step;
    /// sample_agg_seeded(value, k, seed).
    dealcards_seeded_sample_agg_step, dealcards_typed_seeded_sample_agg_step => seeded_sample_step;
    /// shuffle_agg_seeded(value, seed).
    dealcards_seeded_shuffle_agg_step, dealcards_typed_seeded_shuffle_agg_step => seeded_shuffle_step;
}

#[inline(always)]
unsafe fn sample_step(fcinfo: FunctionCallInfo, form: Form) -> Datum {
    // SAFETY: sample_agg's transition function: (state, value, k).
    unsafe {
        let k = k_arg(fcinfo);
        let (state, datum) = state_or(fcinfo, form, |e| {
            Ok(Kind::Sample(Sample::new(k, e.size_hint())?))
        });
        let Kind::Sample(sample) = &mut state.kind else {
            invalid("not a sample_agg state")
        };
        same_k(k, sample.k());
        if let Some(value) = arg(fcinfo, 1) {
            if sample.wants(1.0) {
                let value = state.element.value(value);
                live(|s| sample.admit(1.0, value, s));
            }
        }
        datum
    }
}

#[inline(always)]
unsafe fn weighted_sample_step(fcinfo: FunctionCallInfo, form: Form) -> Datum {
    // SAFETY: the weighted sample_agg's transition function: (state, value, k, weight).
    unsafe {
        let k = k_arg(fcinfo);
        let (state, datum) = state_or(fcinfo, form, |e| {
            Ok(Kind::Sample(Sample::new(k, e.size_hint())?))
        });
        let Kind::Sample(sample) = &mut state.kind else {
            invalid("not a sample_agg state")
        };
        same_k(k, sample.k());
        if let (Some(value), Some(weight)) = (arg(fcinfo, 1), weight_arg(fcinfo)) {
            if sample.wants(weight) {
                let value = state.element.value(value);
                live(|s| sample.admit(weight, value, s));
            }
        }
        datum
    }
}

#[inline(always)]
unsafe fn resample_step(fcinfo: FunctionCallInfo, form: Form) -> Datum {
    // SAFETY: see any_resample_step.
    unsafe { any_resample_step(fcinfo, form, false) }
}

#[inline(always)]
unsafe fn weighted_resample_step(fcinfo: FunctionCallInfo, form: Form) -> Datum {
    // SAFETY: see any_resample_step.
    unsafe { any_resample_step(fcinfo, form, true) }
}

#[inline(always)]
unsafe fn any_resample_step(fcinfo: FunctionCallInfo, form: Form, weighted: bool) -> Datum {
    // SAFETY: resample_agg's transition function: (state, value, k [, weight]).
    unsafe {
        let k = k_arg(fcinfo);
        let (state, datum) = state_or(fcinfo, form, |e| {
            Ok(Kind::Resample(Resample::new(k, e.size_hint())?))
        });
        let Kind::Resample(draws) = &mut state.kind else {
            invalid("not a resample_agg state")
        };
        same_k(k, draws.k());
        let weight = if weighted {
            weight_arg(fcinfo)
        } else {
            Some(1.0)
        };
        if let (Some(value), Some(weight)) = (arg(fcinfo, 1), weight) {
            if draws.wants(weight) {
                let value = state.element.value(value);
                live(|s| draws.admit(weight, value, s));
            }
        }
        datum
    }
}

#[inline(always)]
unsafe fn shuffle_step(fcinfo: FunctionCallInfo, form: Form) -> Datum {
    // SAFETY: shuffle_agg's transition function: (state, value).
    unsafe {
        let (state, datum) = state_or(fcinfo, form, |e| {
            Ok(if e.byval {
                Kind::ShuffleByValue(ShuffleAll::new())
            } else {
                Kind::Shuffle(ShuffleAll::new())
            })
        });
        let Some(value) = arg(fcinfo, 1) else {
            return datum;
        };
        match &mut state.kind {
            Kind::ShuffleByValue(words) => ok_or_raise(words.push(value.value() as u64, 0)),
            Kind::Shuffle(rows) => {
                let value = state.element.value(value);
                let len = value.bytes().len();
                ok_or_raise(rows.push(value, len));
            }
            _ => invalid("not a shuffle_agg state"),
        }
        datum
    }
}

#[inline(always)]
unsafe fn seeded_sample_step(fcinfo: FunctionCallInfo, form: Form) -> Datum {
    // SAFETY: sample_agg_seeded's transition function: (state, value, k, seed).
    unsafe {
        let k = k_arg(fcinfo);
        let (state, datum) = state_or(fcinfo, form, |e| {
            let key = seed_arg(fcinfo, 3);
            Ok(Kind::SeededSample(SeededSample::new(
                k,
                e.size_hint(),
                key,
            )?))
        });
        let Kind::SeededSample(sample) = &mut state.kind else {
            invalid("not a sample_agg_seeded state")
        };
        same_k(k, sample.k());
        if let Some(value) = arg(fcinfo, 1) {
            let element = state.element;
            element.with_bytes(value, |bytes| {
                sample.offer_with(bytes, || Value::new(bytes))
            });
        }
        datum
    }
}

#[inline(always)]
unsafe fn seeded_shuffle_step(fcinfo: FunctionCallInfo, form: Form) -> Datum {
    // SAFETY: shuffle_agg_seeded's transition function: (state, value, seed).
    unsafe {
        let (state, datum) = state_or(fcinfo, form, |_| {
            Ok(Kind::SeededShuffle(SeededShuffle::new(seed_arg(fcinfo, 2))))
        });
        let Kind::SeededShuffle(rows) = &mut state.kind else {
            invalid("not a shuffle_agg_seeded state")
        };
        if let Some(value) = arg(fcinfo, 1) {
            ok_or_raise(rows.push(state.element.value(value)));
        }
        datum
    }
}

/// The final function of every polymorphic row aggregate: the array, or NULL without rows. It
/// leaves the state as it is (FINALFUNC_MODIFY = READ_ONLY), so the aggregates also work as
/// window functions.
#[pg_guard]
#[no_mangle]
pub unsafe extern "C-unwind" fn dealcards_rows_agg_final(fcinfo: FunctionCallInfo) -> Datum {
    // SAFETY: argument 0 is one of these aggregates' states, or NULL.
    unsafe {
        let Some(state) = state_arg(fcinfo, 0) else {
            (*fcinfo).isnull = true;
            return Datum::from(0usize);
        };
        finish(state)
    }
}

/// The array a state ends in, in the current memory context; the state is left as it is.
fn finish(state: &State) -> Datum {
    limit_working_memory();
    let element = state.element;
    match &state.kind {
        Kind::Sample(sample) => {
            let values = sample.clone().finish();
            element.array(values.len(), |i| &values[i])
        }
        Kind::Resample(draws) => {
            let values = draws.clone().finish();
            element.array(values.len(), |i| &values[i])
        }
        Kind::ShuffleByValue(words) => element.shuffled_by_value(words.rows()),
        Kind::Shuffle(rows) => {
            let order = ok_or_raise(live(|s| rows.order(s, &mut check_for_interrupts)));
            let values = rows.rows();
            element.array(order.len(), |i| &values[order[i] as usize])
        }
        Kind::SeededSample(sample) => {
            let values = sample.clone().finish();
            element.array(values.len(), |i| &values[i])
        }
        Kind::SeededShuffle(rows) => {
            let order = ok_or_raise(rows.order(&mut check_for_interrupts));
            element.array(order.len(), |i| rows.value(order[i] as usize))
        }
        Kind::Taken => invalid("a row aggregate's state was used after a combine"),
    }
}

/// Takes another partial state of the same aggregate into `mine`: exactly as if one state had
/// seen both inputs.
fn merge(mine: &mut State, theirs: State) {
    if mine.element.oid != theirs.element.oid {
        invalid("cannot combine states of values of different types");
    }
    let merged = match (&mut mine.kind, theirs.kind) {
        (Kind::Sample(a), Kind::Sample(b)) => live(|s| a.merge(b, s)),
        (Kind::Resample(a), Kind::Resample(b)) => live(|s| a.merge(b, s)),
        (Kind::Shuffle(a), Kind::Shuffle(b)) => {
            limit_working_memory();
            a.merge(b)
        }
        (Kind::ShuffleByValue(a), Kind::ShuffleByValue(b)) => {
            limit_working_memory();
            a.merge(b)
        }
        (Kind::SeededSample(a), Kind::SeededSample(b)) => a.merge(b),
        (Kind::SeededShuffle(a), Kind::SeededShuffle(b)) => {
            limit_working_memory();
            a.merge(b)
        }
        _ => Err(Error::invalid(
            "cannot combine states of different row aggregates",
        )),
    };
    if let Err(e) = merged {
        raise(e);
    }
}

/// Merges the partial states of parallel workers (the polymorphic forms).
#[pg_guard]
#[no_mangle]
pub unsafe extern "C-unwind" fn dealcards_rows_agg_combine(fcinfo: FunctionCallInfo) -> Datum {
    // SAFETY: arguments 0 and 1 are these aggregates' states, or NULL.
    unsafe {
        let Some(other) = state_arg(fcinfo, 1) else {
            return match arg(fcinfo, 0) {
                Some(d) => d,
                None => {
                    (*fcinfo).isnull = true;
                    Datum::from(0usize)
                }
            };
        };
        let theirs = State {
            element: other.element,
            kind: std::mem::replace(&mut other.kind, Kind::Taken),
        };
        let Some(mine) = state_arg(fcinfo, 0) else {
            // The first partial state: moved into the aggregate's context, since the one
            // given may live in a shorter one.
            return keep(aggregate_context(fcinfo), theirs);
        };
        merge(mine, theirs);
        arg(fcinfo, 0).unwrap()
    }
}

/// A state's bytes: the element type's oid (4 bytes, little-endian), then the core's form.
/// The polymorphic forms send them to the leader as bytea, the typed forms as the flat form of
/// rows_agg_state.
fn state_bytes(state: &State) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&state.element.oid.to_u32().to_le_bytes());
    match &state.kind {
        Kind::Sample(x) => x.serialize(&mut out),
        Kind::Resample(x) => x.serialize(&mut out),
        Kind::Shuffle(x) => x.serialize(&mut out),
        Kind::ShuffleByValue(x) => x.serialize_words(state.element.typlen as usize, &mut out),
        Kind::SeededSample(x) => x.serialize(&mut out),
        Kind::SeededShuffle(x) => x.serialize(&mut out),
        Kind::Taken => invalid("a row aggregate's state was used after a combine"),
    }
    out
}

/// The state [`state_bytes`] gave, refusing malformed bytes (22023) and a state beyond the
/// working memory (54000). `element` checks the type the bytes name before it is looked up.
fn state_from_bytes(bytes: &[u8], element: impl FnOnce(pg_sys::Oid) -> Element) -> State {
    if bytes.len() < 5 {
        invalid("malformed serialized sample state");
    }
    let oid = pg_sys::Oid::from(u32::from_le_bytes(bytes[..4].try_into().unwrap()));
    let element = element(oid);
    let body = &bytes[4..];
    limit_working_memory();
    let kind = ok_or_raise(match body[0] {
        1 => Sample::deserialize(body).map(Kind::Sample),
        2 => live(|s| Resample::deserialize(body, s)).map(Kind::Resample),
        3 if element.byval => ShuffleAll::deserialize(body)
            .and_then(|rows| rows.into_words(element.typlen as usize))
            .map(Kind::ShuffleByValue),
        3 => ShuffleAll::deserialize(body).map(Kind::Shuffle),
        4 => SeededSample::deserialize(body).map(Kind::SeededSample),
        _ => SeededShuffle::deserialize(body).map(Kind::SeededShuffle),
    });
    State { element, kind }
}

/// A bytea of `bytes`, in the current memory context.
fn bytea_of(bytes: &[u8], what: &str) -> *mut u8 {
    let total = bytes.len() + pg_sys::VARHDRSZ;
    if total > 0x3fff_ffff {
        raise(Error::new(
            dealcards_core::error::ErrorKind::TooLarge,
            format!("{what} is larger than a bytea can hold (1 GB)"),
        ));
    }
    // SAFETY: a fresh allocation of total bytes, written within them.
    unsafe {
        let bytea = pg_sys::palloc(total) as *mut u8;
        pgrx::varlena::set_varsize_4b(bytea as *mut pg_sys::varlena, total as i32);
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), bytea.add(pg_sys::VARHDRSZ), bytes.len());
        bytea
    }
}

/// The data of a varlena datum (detoasted, or flattened if expanded, in the current context).
unsafe fn varlena_bytes<'a>(datum: Datum) -> &'a [u8] {
    // SAFETY: the caller's datum is a varlena.
    unsafe {
        let flat = pg_sys::pg_detoast_datum_packed(datum.cast_mut_ptr());
        std::slice::from_raw_parts(
            pgrx::varlena::vardata_any(flat) as *const u8,
            pgrx::varlena::varsize_any_exhdr(flat),
        )
    }
}

/// A polymorphic aggregate's state as bytea, for the leader of a parallel plan.
#[pg_guard]
#[no_mangle]
pub unsafe extern "C-unwind" fn dealcards_rows_agg_serialize(fcinfo: FunctionCallInfo) -> Datum {
    // SAFETY: argument 0 is one of these aggregates' states (the function is strict).
    unsafe {
        let state = state_arg(fcinfo, 0).unwrap();
        Datum::from(bytea_of(&state_bytes(state), "a partial shuffle"))
    }
}

#[pg_guard]
#[no_mangle]
pub unsafe extern "C-unwind" fn dealcards_rows_agg_deserialize(fcinfo: FunctionCallInfo) -> Datum {
    // SAFETY: argument 0 is a bytea made by dealcards_rows_agg_serialize (strict function).
    unsafe {
        let bytes = varlena_bytes(arg(fcinfo, 0).unwrap());
        let state = state_from_bytes(bytes, Element::of);
        keep(pg_sys::CurrentMemoryContext, state)
    }
}

// shuffle_key(seed, key): the seeded order key.
mod shuffle_key;
// TABLESAMPLE sparse_bernoulli (p): rows sampled without reading every page.
mod tablesample;
// sample_rows(relation, k [, seed]): exactly k rows, through sparse_bernoulli.
mod sample_rows;
// After the macros it uses.
mod state_type;
