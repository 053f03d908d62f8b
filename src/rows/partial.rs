//! Partial states: merging two of them (the combine functions), and a state's bytes for the
//! leader of a parallel plan and for Citus's workers (serialize, deserialize).

use pgrx::pg_sys::{self, Datum, FunctionCallInfo};
use pgrx::prelude::*;

use dealcards_core::error::Error;
use dealcards_core::rows::{Resample, Sample, SeededSample, SeededShuffle, ShuffleAll};

use super::element::Element;
use super::{aggregate_context, arg, invalid, keep, live, state_arg, Kind, State};
use crate::{limit_working_memory, ok_or_raise, raise};

/// Takes another partial state of the same aggregate into `mine`: exactly as if one state had
/// seen both inputs.
pub(super) fn merge(mine: &mut State, theirs: State) {
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
pub(super) fn state_bytes(state: &State) -> Vec<u8> {
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
pub(super) fn state_from_bytes(
    bytes: &[u8],
    element: impl FnOnce(pg_sys::Oid) -> Element,
) -> State {
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
pub(super) fn bytea_of(bytes: &[u8], what: &str) -> *mut u8 {
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
pub(super) unsafe fn varlena_bytes<'a>(datum: Datum) -> &'a [u8] {
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
