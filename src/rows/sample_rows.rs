//! `sample_rows(relation, k [, seed])` (sql/install/sample_rows.sql declares it; docs/rows.md
//! documents it): exactly k rows of a table, every k-subset of its visible rows equally likely.
//!
//! A try reads a Bernoulli sample of the table's rows (`TABLESAMPLE sparse_bernoulli`, which
//! reads only the pages holding a sampled slot) at a rate expected to bring a little more than k
//! rows, and keeps k of them chosen uniformly as they come (a reservoir: O(k) memory). Given its
//! size m, a Bernoulli sample is a uniformly random m-subset of the rows, and k of it chosen
//! uniformly are a uniformly random k-subset. A try that brings fewer than k rows is thrown away
//! whole and the next, at a higher rate, draws afresh: which rows come back depends on the last
//! try alone, and whether a try is the last depends on its size alone. Partitions, inheritance
//! children and Citus shards each get the TABLESAMPLE clause, each a Bernoulli sample at the same
//! rate: together a Bernoulli sample of the whole. A foreign table among them would get none
//! (PostgreSQL scans it whole), so a relation with one under it is refused. Where a try would
//! visit a quarter of the table's pages or more, it reads the whole table instead (every visible
//! row, then k of them).
//!
//! The statements are prepared once per backend and relation, and kept (PostgreSQL's plan cache
//! re-plans them after DDL); a call reads the relation's size from its relation cache entry, or
//! for a Citus table, whose rows are in its shards, from Citus and what earlier tries brought.
//!
//! Without a seed, the sample's slots come from the backend's OS-keyed stream, and the reservoir
//! from a stream keyed from it once per call. With a seed (32 bytes), try i has the key
//! SHA-256(seed || i) and a REPEATABLE value of its first 52 bits, its rows are ordered by
//! `shuffle_key(key, relation name || ctid)` and the k first kept: a function of the seed and of
//! where the rows are; its rates come from the table's pages and column types, never from its
//! statistics.
//!
//! One file per part: `arguments` (k, the seed, the relation and what it may be), `sizing` (the
//! relation's pages and rows, which size a try), `statements` (each try's statement, prepared
//! and kept), `reservoir` (the rows a try keeps, and their output); a call's tries are here.

use std::cell::RefCell;
use std::collections::{BinaryHeap, HashMap};
use std::ffi::{c_char, CStr};

use pgrx::pg_sys::panic::ErrorReport;
use pgrx::pg_sys::{self, Datum, FunctionCallInfo};
use pgrx::prelude::*;
use pgrx::{IntoDatum, PgLogLevel, PgSqlErrorCode, PgTupleDesc};

use dealcards_core::bernoulli::{exact_try_rows, next_try_rate, scan_is_cheaper, seeded_try};
use dealcards_core::error::Error;
use dealcards_core::rng::{Stream, SEED_LEN};
use dealcards_core::scratch::Claim;

use super::tablesample::SLOTS_PER_PAGE;
use crate::{check_for_interrupts, limit_working_memory, ok_or_raise, raise, with_live};

mod arguments;
mod reservoir;
mod sizing;
mod statements;

use arguments::*;
use reservoir::*;
use sizing::*;
use statements::*;

v1!(pg_finfo_dealcards_sample_rows);

/// More relations than this in one backend and the kept statements are all let go.
const MAX_PREPARED: usize = 256;

/// Rows fetched from a try's cursor at a time.
const BATCH: i64 = 1000;

thread_local! {
    /// This backend's statements, by relation and mode.
    static PREPARED: RefCell<HashMap<(u32, Mode), Prepared>> = RefCell::new(HashMap::new());
    /// What this backend's unseeded tries of Citus tables brought, by relation.
    static OBSERVED: RefCell<HashMap<u32, Observed>> = RefCell::new(HashMap::new());
}

fn invalid(message: String) -> ! {
    raise(Error::invalid(message))
}

/// Runs one try's statement and offers its rows to `kept`.
unsafe fn run(
    plan: pg_sys::SPIPlanPtr,
    params: &[Datum],
    seeded: bool,
    kept: &mut Kept,
    stream: &mut Stream,
) {
    // SAFETY: SPI is connected; the statement returns the whole row, and (seeded) its key.
    unsafe {
        let mut values = params.to_vec();
        let nulls = vec![b' ' as c_char; params.len() + 1];
        let portal = pg_sys::SPI_cursor_open(
            std::ptr::null(),
            plan,
            values.as_mut_ptr(),
            nulls.as_ptr(),
            true,
        );
        loop {
            pg_sys::SPI_cursor_fetch(portal, true, BATCH as _);
            let count = pg_sys::SPI_processed as usize;
            let table = pg_sys::SPI_tuptable;
            if count == 0 || table.is_null() {
                break;
            }
            for i in 0..count {
                let tuple = *(*table).vals.add(i);
                let mut null = false;
                let row = pg_sys::SPI_getbinval(tuple, (*table).tupdesc, 1, &mut null);
                if null {
                    continue;
                }
                let key = if seeded {
                    let value = pg_sys::SPI_getbinval(tuple, (*table).tupdesc, 2, &mut null);
                    Some(value.value() as i64)
                } else {
                    None
                };
                kept.offer(row, key, stream);
            }
            pg_sys::SPI_freetuptable(table);
            check_for_interrupts();
        }
        pg_sys::SPI_cursor_close(portal);
    }
}

/// `sample_rows(relation anyelement, k integer, seed bytea DEFAULT NULL) RETURNS SETOF
/// anyelement`.
#[pg_guard]
#[no_mangle]
pub unsafe extern "C-unwind" fn dealcards_sample_rows(fcinfo: FunctionCallInfo) -> Datum {
    // SAFETY: called by PostgreSQL with the three arguments of the SQL declaration.
    unsafe {
        limit_working_memory();
        let k = k_argument(fcinfo);
        let seed = seed_argument(fcinfo);
        let (typid, relid, relkind) = table_of(fcinfo);
        let rsinfo = materialize_mode(fcinfo);
        check_select(relid, relkind);
        refuse_foreign_leaves(relid);

        let query_memory = (*(*rsinfo).econtext).ecxt_per_query_memory;
        let mut kept = Kept::new(k as usize, query_memory);
        let mut stream = Stream::from_seed(ok_or_raise(with_live(|s| {
            let mut key = [0u8; SEED_LEN];
            for chunk in key.chunks_exact_mut(8) {
                chunk.copy_from_slice(&s.next_u64().to_le_bytes());
            }
            key
        })));
        if k > 0 {
            sample(
                fcinfo,
                relid,
                relkind,
                seed.as_deref(),
                &mut kept,
                &mut stream,
            );
        }
        // The rows in a random order: the keys' (seeded), or shuffled.
        if seed.is_some() {
            kept.rows.sort_unstable_by_key(|&(key, _)| key);
        } else {
            for i in (1..kept.rows.len()).rev() {
                let j = stream.below_u64(i as u64 + 1) as usize;
                kept.rows.swap(i, j);
            }
        }
        materialize(rsinfo, typid, &kept);
        pg_sys::MemoryContextDelete(kept.memory);
        Datum::from(0)
    }
}

/// Runs the tries, each at a higher rate than the last, until one brings k rows or reads the
/// whole table: `kept` then holds that try's k rows.
unsafe fn sample(
    fcinfo: FunctionCallInfo,
    relid: pg_sys::Oid,
    relkind: c_char,
    seed: Option<&[u8]>,
    kept: &mut Kept,
    stream: &mut Stream,
) {
    // SAFETY: the relation is locked by `measure`; SPI is connected for the tries.
    unsafe {
        let k = kept.k as u64;
        let mut size = Size::default();
        measure(relid, relkind, &mut size);
        // Unseeded tries of a table whose rows are all in Citus shards: what earlier ones
        // brought sizes them, and each adds to it.
        let observe = size_remote(&mut size) && seed.is_none();
        let rows = first_try_rows(&size, seed.is_some(), observe.then(|| Observed::of(relid)));
        let target = exact_try_rows(k);
        let mut rate = (target / rows).min(1.0);
        let schema = owned(pg_sys::get_namespace_name(pg_sys::get_func_namespace(
            (*(*fcinfo).flinfo).fn_oid,
        )));
        let schema = quoted(std::ffi::CString::new(schema).unwrap_or_default().as_ptr());
        let (name, alias) = names(relid);
        if pg_sys::SPI_connect() != pg_sys::SPI_OK_CONNECT as i32 {
            error!("sample_rows could not connect to SPI");
        }
        let mut index = 0u32;
        loop {
            check_for_interrupts();
            let scan = scan_is_cheaper(size.pages, rate, SLOTS_PER_PAGE);
            let try_key = seed.map(|s| seeded_try(s, index));
            let mode = Mode::of(scan, try_key.is_some());
            let params = mode.params(rate, try_key);
            let (query, types) = statement(mode, &schema, &name, &alias);
            let plan = prepared(relid, mode, query, &types);
            run(plan, &params, try_key.is_some(), kept, stream);
            if observe {
                Observed::add(relid, kept.seen, size.pages, if scan { 1.0 } else { rate });
            }
            if kept.seen >= k || scan {
                break;
            }
            rate = next_try_rate(rate, kept.seen, target);
            kept.clear();
            index += 1;
        }
        pg_sys::SPI_finish();
    }
}
