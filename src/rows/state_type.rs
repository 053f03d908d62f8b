//! The type `rows_agg_state`: the state of the typed row aggregates (`sample_agg(bigint,
//! integer)`, ...), a real type where the polymorphic forms keep theirs as `internal`.
//!
//! Citus runs an aggregate's transition function on its workers, sends each shard's partial
//! state to the coordinator as text and combines them there, but only for an aggregate whose
//! state type is not a pseudo-type such as `internal`, whose argument types are those of the call
//! and whose final function returns the aggregate's own type (Citus 13's
//! `AggregateEnabledCustom`, `TypecheckWorkerPartialAggArgType` and
//! `TypecheckCoordCombineAggReturnType`): hence a real state type, and aggregates of concrete
//! types beside the polymorphic ones.
//!
//! While the aggregate runs, a value of this type is a PostgreSQL expanded object: the datum
//! points at an [`ExpandedState`] in a memory context under the aggregate's, and every
//! row updates the core state in place, as with `internal` (a row a sample passes over costs a
//! counter). When PostgreSQL puts the value in a tuple (a parallel worker's partial state on its
//! way to the leader) or prints it (Citus's `worker_partial_agg`), it is flattened into the bytes
//! of [`state_bytes`], the same form as the polymorphic forms' bytea; its text form is those
//! bytes in hex, `\x...`, like a bytea's. Bytes that come from outside (text or binary input) are
//! checked whole before they are accepted: their structure, the type of their values (one of the
//! typed forms'), each value's length for fixed-length types and text's encoding.

use super::partial::{bytea_of, merge, state_bytes, state_from_bytes, varlena_bytes};
use super::*;

use pgrx::varlena::{set_varsize_4b, varatt_is_1b_e, vartag_1b_e};

/// The element types of the typed aggregates.
const TYPED: [pg_sys::Oid; 5] = [
    pg_sys::INT2OID,
    pg_sys::INT4OID,
    pg_sys::INT8OID,
    pg_sys::TEXTOID,
    pg_sys::UUIDOID,
];

/// An expanded rows_agg_state: PostgreSQL's header first, then the state.
#[repr(C)]
struct ExpandedState {
    header: pg_sys::ExpandedObjectHeader,
    held: *mut Held,
}

/// The state, and its flat form between PostgreSQL's two calls that flatten it.
struct Held {
    state: State,
    flat: Option<Vec<u8>>,
}

static METHODS: pg_sys::ExpandedObjectMethods = pg_sys::ExpandedObjectMethods {
    get_flat_size: Some(flat_size),
    flatten_into: Some(flatten_into),
};

#[pg_guard]
unsafe extern "C-unwind" fn flat_size(header: *mut pg_sys::ExpandedObjectHeader) -> pg_sys::Size {
    // SAFETY: PostgreSQL calls this with the header of one of our objects (METHODS is ours).
    let held = unsafe { &mut *(*(header as *mut ExpandedState)).held };
    let bytes = state_bytes(&held.state);
    let total = bytes.len() + pg_sys::VARHDRSZ;
    if total > 0x3fff_ffff {
        raise(Error::new(
            dealcards_core::error::ErrorKind::TooLarge,
            "a partial state of a row aggregate is larger than a value can hold (1 GB)",
        ));
    }
    held.flat = Some(bytes);
    total
}

#[pg_guard]
unsafe extern "C-unwind" fn flatten_into(
    header: *mut pg_sys::ExpandedObjectHeader,
    result: *mut std::ffi::c_void,
    allocated: pg_sys::Size,
) {
    // SAFETY: as in flat_size; PostgreSQL gives `allocated` bytes at `result`, the size
    // flat_size returned.
    unsafe {
        let held = &mut *(*(header as *mut ExpandedState)).held;
        let bytes = held.flat.take().unwrap_or_else(|| state_bytes(&held.state));
        if bytes.len() + pg_sys::VARHDRSZ != allocated {
            invalid("a row aggregate's state changed while it was flattened");
        }
        set_varsize_4b(result as *mut pg_sys::varlena, allocated as i32);
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            (result as *mut u8).add(pg_sys::VARHDRSZ),
            bytes.len(),
        );
    }
}

/// The name of the memory context that holds the expanded states under an aggregate's context
/// (its address, which a static keeps one, tells the context apart from others).
static STATES: &std::ffi::CStr = c"dealcards row aggregate states";

/// The context of the expanded states under `parent`, made on the first one: a child of the
/// aggregate's context, so that PostgreSQL keeps an expanded state as the transition value
/// without copying it (it does when the object's context is a child of that context).
///
/// One context for all the groups, not one per object as PostgreSQL's own expanded objects
/// have: a hash aggregate sums the memory of its context and every child of it at each new
/// group, so a context per group would make a sample per group quadratic in the groups. The
/// object's context is what DeleteExpandedObject deletes; PostgreSQL (and Citus) call it on a
/// transition value only when the transition function returns another datum in its place,
/// which these functions never do for one of their read-write objects, so the shared context
/// lives until the aggregate's context is reset or deleted, dropping every state with it.
unsafe fn states_context(parent: pg_sys::MemoryContext) -> pg_sys::MemoryContext {
    // SAFETY: the children of a live context are live contexts.
    unsafe {
        let mut child = (*parent).firstchild;
        while !child.is_null() {
            if std::ptr::eq((*child).name, STATES.as_ptr()) {
                return child;
            }
            child = (*child).nextchild;
        }
        pg_sys::AllocSetContextCreateInternal(
            parent,
            STATES.as_ptr(),
            pg_sys::ALLOCSET_DEFAULT_MINSIZE as usize,
            pg_sys::ALLOCSET_DEFAULT_INITSIZE as usize,
            pg_sys::ALLOCSET_DEFAULT_MAXSIZE as usize,
        )
    }
}

/// A new expanded state under `parent` (the aggregate's context), and its read-write datum.
pub(super) unsafe fn make<'a>(
    parent: pg_sys::MemoryContext,
    state: State,
) -> (&'a mut State, Datum) {
    // SAFETY: an object allocated in the states' context and set up by EOH_init_header; the Rust
    // state is dropped when that context goes.
    unsafe {
        let context = states_context(parent);
        let held =
            PgMemoryContexts::For(context).leak_and_drop_on_delete(Held { state, flat: None });
        let object = pg_sys::MemoryContextAlloc(context, std::mem::size_of::<ExpandedState>())
            as *mut ExpandedState;
        pg_sys::EOH_init_header(&mut (*object).header, &METHODS, context);
        (*object).held = held;
        (
            &mut (*held).state,
            Datum::from((*object).header.eoh_rw_ptr.as_mut_ptr()),
        )
    }
}

/// The state behind a datum that is one of our expanded objects, and whether the datum is the
/// read-write one; None for a flat value.
#[inline]
unsafe fn expanded<'a>(datum: Datum) -> Option<(&'a mut Held, bool)> {
    // SAFETY: a datum of rows_agg_state is a varlena; an expanded one's pointer follows its two
    // header bytes (varatt_expanded), and its header's methods tell ours from any other.
    unsafe {
        let pointer = datum.cast_mut_ptr::<pg_sys::varlena>();
        if !varatt_is_1b_e(pointer) {
            return None;
        }
        let writable = match vartag_1b_e(pointer) as u32 {
            pg_sys::vartag_external::VARTAG_EXPANDED_RW => true,
            pg_sys::vartag_external::VARTAG_EXPANDED_RO => false,
            _ => return None,
        };
        let header = std::ptr::read_unaligned(
            (pointer as *const u8).add(2) as *const *mut pg_sys::ExpandedObjectHeader
        );
        if !std::ptr::eq((*header).eoh_methods, &METHODS) {
            return None;
        }
        Some((&mut *(*(header as *mut ExpandedState)).held, writable))
    }
}

/// The state to update for this row or combine, and the datum to return: the read-write
/// object itself, or a copy of our own made from a flat or read-only value (which a window
/// aggregate may hand back after copying the state).
pub(super) unsafe fn writable<'a>(
    fcinfo: FunctionCallInfo,
    datum: Datum,
) -> (&'a mut State, Datum) {
    // SAFETY: datum is a rows_agg_state.
    unsafe {
        if let Some((held, true)) = expanded(datum) {
            held.flat = None;
            return (&mut held.state, datum);
        }
        let state = copy_of(datum);
        make(aggregate_context(fcinfo), state)
    }
}

/// A state of our own equal to the one a datum holds, flat or expanded.
unsafe fn copy_of(datum: Datum) -> State {
    // SAFETY: datum is a rows_agg_state.
    unsafe {
        if let Some((held, _)) = expanded(datum) {
            return held.state.clone();
        }
        state_from_bytes(varlena_bytes(datum), typed_element)
    }
}

/// The element type a state's bytes name, if it is one of the typed aggregates'.
fn typed_element(oid: pg_sys::Oid) -> Element {
    if !TYPED.contains(&oid) {
        invalid("not a state of a typed row aggregate: its values are of another type");
    }
    Element::of(oid)
}

/// Merges the partial states of parallel workers or Citus shards (the typed forms): the other
/// state is copied, never taken.
#[pg_guard]
#[no_mangle]
pub unsafe extern "C-unwind" fn dealcards_typed_rows_agg_combine(
    fcinfo: FunctionCallInfo,
) -> Datum {
    // SAFETY: arguments 0 and 1 are rows_agg_state values, or NULL.
    unsafe {
        let Some(other) = arg(fcinfo, 1) else {
            return match arg(fcinfo, 0) {
                Some(d) => d,
                None => {
                    (*fcinfo).isnull = true;
                    Datum::from(0usize)
                }
            };
        };
        limit_working_memory();
        let theirs = copy_of(other);
        match arg(fcinfo, 0) {
            None => make(aggregate_context(fcinfo), theirs).1,
            Some(mine) => {
                let (state, datum) = writable(fcinfo, mine);
                merge(state, theirs);
                datum
            }
        }
    }
}

/// The final function of the typed aggregates of one element type.
unsafe fn typed_final(fcinfo: FunctionCallInfo, element: pg_sys::Oid) -> Datum {
    // SAFETY: argument 0 is a rows_agg_state, or NULL.
    unsafe {
        let Some(datum) = arg(fcinfo, 0) else {
            (*fcinfo).isnull = true;
            return Datum::from(0usize);
        };
        let copy;
        let state = match expanded(datum) {
            Some((held, _)) => &held.state,
            None => {
                copy = copy_of(datum);
                &copy
            }
        };
        if state.element.oid != element {
            invalid("a row aggregate's state holds values of another type than its result");
        }
        finish(state)
    }
}

macro_rules! typed_finals {
    ($($finfo:ident, $name:ident => $oid:expr;)*) => {
        $(
            v1!($finfo);

            /// The final function of the typed row aggregates of these values.
            #[pg_guard]
            #[no_mangle]
            pub unsafe extern "C-unwind" fn $name(fcinfo: FunctionCallInfo) -> Datum {
                // SAFETY: called by Postgres (or Citus) as the aggregate's final function.
                unsafe { typed_final(fcinfo, $oid) }
            }
        )*
    };
}

typed_finals! {
    pg_finfo_dealcards_rows_agg_final_int2, dealcards_rows_agg_final_int2 => pg_sys::INT2OID;
    pg_finfo_dealcards_rows_agg_final_int4, dealcards_rows_agg_final_int4 => pg_sys::INT4OID;
    pg_finfo_dealcards_rows_agg_final_int8, dealcards_rows_agg_final_int8 => pg_sys::INT8OID;
    pg_finfo_dealcards_rows_agg_final_text, dealcards_rows_agg_final_text => pg_sys::TEXTOID;
    pg_finfo_dealcards_rows_agg_final_uuid, dealcards_rows_agg_final_uuid => pg_sys::UUIDOID;
}

v1!(
    pg_finfo_dealcards_typed_rows_agg_combine,
    pg_finfo_dealcards_rows_agg_state_in,
    pg_finfo_dealcards_rows_agg_state_out,
    pg_finfo_dealcards_rows_agg_state_recv,
    pg_finfo_dealcards_rows_agg_state_send,
);

/// The bytes of a state that come from outside, checked whole: their structure, the type of
/// their values, each value's length for a fixed-length type and text's encoding.
fn checked(bytes: &[u8]) -> &[u8] {
    let state = state_from_bytes(bytes, typed_element);
    let element = state.element;
    let check = |value: &Value| {
        let bytes = value.bytes();
        if element.typlen > 0 && bytes.len() != element.typlen as usize {
            invalid("malformed serialized sample state");
        }
        if element.oid == pg_sys::TEXTOID {
            // SAFETY: bytes.len() fits an int (a value of a state under 1 GB); raises when the
            // bytes are not text of the database's encoding.
            unsafe {
                pg_sys::pg_verifymbstr(bytes.as_ptr() as *const c_char, bytes.len() as i32, false)
            };
        }
    };
    match &state.kind {
        Kind::Sample(x) => x.values().for_each(check),
        Kind::Resample(x) => x.values().for_each(check),
        Kind::Shuffle(x) => x.rows().iter().for_each(check),
        // Words of the type's length, checked as they were read.
        Kind::ShuffleByValue(_) => {}
        Kind::SeededSample(x) => x.values().for_each(check),
        Kind::SeededShuffle(x) => (0..x.len()).map(|i| x.value(i)).for_each(check),
        Kind::Taken => {}
    }
    bytes
}

/// The bytes of a state datum, flat or expanded.
unsafe fn bytes_of(datum: Datum) -> Vec<u8> {
    // SAFETY: datum is a rows_agg_state.
    unsafe {
        match expanded(datum) {
            Some((held, _)) => state_bytes(&held.state),
            None => varlena_bytes(datum).to_vec(),
        }
    }
}

/// rows_agg_state's text input: `\x` and the state's bytes in hex, as a bytea's.
#[pg_guard]
#[no_mangle]
pub unsafe extern "C-unwind" fn dealcards_rows_agg_state_in(fcinfo: FunctionCallInfo) -> Datum {
    // SAFETY: argument 0 is a C string (strict function).
    let text = unsafe { CStr::from_ptr(arg(fcinfo, 0).unwrap().cast_mut_ptr::<c_char>()) };
    let Some(hex) = text.to_bytes().strip_prefix(b"\\x") else {
        ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
            "a rows_agg_state is written \\x and hexadecimal digits"
        );
    };
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    };
    let bytes: Option<Vec<u8>> = (hex.len() % 2 == 0)
        .then(|| {
            hex.chunks_exact(2)
                .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
                .collect()
        })
        .flatten();
    let Some(bytes) = bytes else {
        ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
            "a rows_agg_state is written \\x and an even number of hexadecimal digits"
        );
    };
    Datum::from(bytea_of(checked(&bytes), "a row aggregate's state"))
}

/// rows_agg_state's text output.
#[pg_guard]
#[no_mangle]
pub unsafe extern "C-unwind" fn dealcards_rows_agg_state_out(fcinfo: FunctionCallInfo) -> Datum {
    // SAFETY: argument 0 is a rows_agg_state (strict function); the result a palloc'd C string.
    unsafe {
        let bytes = bytes_of(arg(fcinfo, 0).unwrap());
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let out = pg_sys::palloc(3 + 2 * bytes.len()) as *mut u8;
        *out = b'\\';
        *out.add(1) = b'x';
        for (i, b) in bytes.iter().enumerate() {
            *out.add(2 + 2 * i) = HEX[(b >> 4) as usize];
            *out.add(3 + 2 * i) = HEX[(b & 15) as usize];
        }
        *out.add(2 + 2 * bytes.len()) = 0;
        Datum::from(out)
    }
}

/// rows_agg_state's binary input: the state's bytes.
#[pg_guard]
#[no_mangle]
pub unsafe extern "C-unwind" fn dealcards_rows_agg_state_recv(fcinfo: FunctionCallInfo) -> Datum {
    // SAFETY: argument 0 is the StringInfo of the message (strict function).
    unsafe {
        let message = arg(fcinfo, 0)
            .unwrap()
            .cast_mut_ptr::<pg_sys::StringInfoData>();
        let (start, end) = ((*message).cursor as usize, (*message).len as usize);
        let bytes =
            std::slice::from_raw_parts(((*message).data as *const u8).add(start), end - start);
        (*message).cursor = (*message).len;
        Datum::from(bytea_of(checked(bytes), "a row aggregate's state"))
    }
}

/// rows_agg_state's binary output: the state's bytes, as a bytea.
#[pg_guard]
#[no_mangle]
pub unsafe extern "C-unwind" fn dealcards_rows_agg_state_send(fcinfo: FunctionCallInfo) -> Datum {
    // SAFETY: argument 0 is a rows_agg_state (strict function).
    unsafe {
        Datum::from(bytea_of(
            &bytes_of(arg(fcinfo, 0).unwrap()),
            "a row aggregate's state",
        ))
    }
}
