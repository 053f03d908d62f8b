//! `shuffle_key(seed, key)`: a seeded order key for bigint and text keys (docs/rows.md, "A
//! shuffled order to page through"). The key is the core's [`RowKey::order_key`]: the seeded
//! aggregates' key of the same bytes, read in signed order, so that `ORDER BY shuffle_key(seed,
//! id)` is the order of `shuffle_agg_seeded(id, seed)`.
//!
//! A query calls it once per row with the same seed, and deriving the seed's key takes a ChaCha20
//! block: each call site keeps the key of the seed it saw last in its `fn_extra`, so a row costs
//! a comparison of 32 bytes and one SipHash.

use pgrx::prelude::*;

use dealcards_core::rng::SEED_LEN;
use dealcards_core::rows::RowKey;

use crate::ok_or_raise;
use crate::text::TextBytes;

/// The key of a seed, kept in a call site's `fn_extra` (in the call site's memory context, which
/// outlives every call made through it).
#[derive(Clone, Copy)]
struct KeptKey {
    seed: [u8; SEED_LEN],
    key: RowKey,
}

/// The key of `seed` (22023 unless it is 32 bytes), from the call site's kept key when the seed
/// is the one it was made from.
fn row_key(seed: &[u8], fcinfo: pg_sys::FunctionCallInfo) -> RowKey {
    // SAFETY: fcinfo is this call's; flinfo, when present, is the call site's, and its fn_extra
    // is either NULL or the KeptKey this function put there, allocated in fn_mcxt with the
    // alignment palloc gives (the maximum alignment, enough for u64).
    unsafe {
        let flinfo = if fcinfo.is_null() {
            std::ptr::null_mut()
        } else {
            (*fcinfo).flinfo
        };
        let kept = if flinfo.is_null() {
            std::ptr::null_mut()
        } else {
            (*flinfo).fn_extra.cast::<KeptKey>()
        };
        if !kept.is_null() {
            let known = kept.read();
            if known.seed[..] == *seed {
                return known.key;
            }
        }
        let key = ok_or_raise(RowKey::from_seed_bytes(seed));
        if !flinfo.is_null() {
            let kept = if kept.is_null() {
                let fresh =
                    pg_sys::MemoryContextAlloc((*flinfo).fn_mcxt, std::mem::size_of::<KeptKey>())
                        .cast::<KeptKey>();
                (*flinfo).fn_extra = fresh.cast();
                fresh
            } else {
                kept
            };
            // The seed is 32 bytes: from_seed_bytes took it.
            let mut bytes = [0u8; SEED_LEN];
            bytes.copy_from_slice(seed);
            kept.write(KeptKey { seed: bytes, key });
        }
        key
    }
}

/// `shuffle_key(seed bytea, key bigint) RETURNS bigint`: the key's 8 little-endian bytes under
/// the seed. smallint and integer keys come here through PostgreSQL's implicit casts.
#[pg_extern(immutable, strict, parallel_safe)]
fn shuffle_key(seed: &[u8], key: i64, fcinfo: pg_sys::FunctionCallInfo) -> i64 {
    row_key(seed, fcinfo).order_key_of_int(key)
}

/// `shuffle_key(seed bytea, key text) RETURNS bigint`: the text's bytes in the database's
/// encoding under the seed.
#[pg_extern(immutable, strict, parallel_safe, name = "shuffle_key")]
fn shuffle_key_text(seed: &[u8], key: TextBytes, fcinfo: pg_sys::FunctionCallInfo) -> i64 {
    row_key(seed, fcinfo).order_key(key.0)
}
