//! Aggregates that sample and shuffle rows: `sample_agg`, `shuffle_agg`, `resample_agg` and their
//! seeded forms (sql/install/rows.sql declares them; docs/rows.md documents them). The seeded
//! order key `shuffle_key` is in `shuffle_key`, the TABLESAMPLE method `sparse_bernoulli` in
//! `tablesample`, `sample_rows` in `sample_rows`. How the values are stored is `element`'s;
//! merging partial states and their bytes, `partial`'s.
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

use crate::{check_for_interrupts, limit_working_memory, ok_or_raise, raise, with_live};

pgrx::extension_sql_file!("../sql/install/rows.sql", name = "rows");

// How the values are stored, and the arrays they end in.
mod element;
use element::Element;
// Merging partial states, and their bytes for parallel workers and Citus.
mod partial;
// sample_rows(relation, k [, seed]): exactly k rows of a table, through sparse_bernoulli.
pgrx::extension_sql_file!("../sql/install/sample_rows.sql", name = "sample_rows");

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

// shuffle_key(seed, key): the seeded order key.
mod shuffle_key;
// TABLESAMPLE sparse_bernoulli (p): rows sampled without reading every page.
mod tablesample;
// sample_rows(relation, k [, seed]): exactly k rows, through sparse_bernoulli.
mod sample_rows;
// After the macros it uses.
mod state_type;
