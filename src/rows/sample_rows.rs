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

v1!(pg_finfo_dealcards_sample_rows);

/// The statement a try runs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Mode {
    /// `TABLESAMPLE sparse_bernoulli ($1)`: the rows.
    Sample,
    /// With `REPEATABLE ($3)`, and each row's order key under the try's key `$2`.
    SeededSample,
    /// Every row.
    Scan,
    /// Every row and its order key under `$1`.
    SeededScan,
}

impl Mode {
    /// The mode of a try that reads the whole table (`scan`) or a sample, with a seed or not.
    fn of(scan: bool, seeded: bool) -> Mode {
        match (scan, seeded) {
            (false, false) => Mode::Sample,
            (false, true) => Mode::SeededSample,
            (true, false) => Mode::Scan,
            (true, true) => Mode::SeededScan,
        }
    }

    /// The parameters of a try at `rate`, under the try's key and REPEATABLE value if seeded.
    fn params(self, rate: f64, try_key: Option<([u8; SEED_LEN], f64)>) -> Vec<Datum> {
        let percent = (rate * 100.0) as f32;
        match (self, try_key) {
            (Mode::Sample, _) => vec![percent.into_datum().unwrap()],
            (Mode::SeededSample, Some((key, repeatable))) => vec![
                percent.into_datum().unwrap(),
                key.as_slice().into_datum().unwrap(),
                repeatable.into_datum().unwrap(),
            ],
            (Mode::SeededScan, Some((key, _))) => vec![key.as_slice().into_datum().unwrap()],
            _ => vec![],
        }
    }
}

/// A kept statement and the text it was prepared from.
struct Prepared {
    query: String,
    plan: pg_sys::SPIPlanPtr,
}

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

/// What the unseeded tries of a relation whose rows are all in Citus shards brought: sums of the
/// rows each brought and of the pages it could visit times its rate, halved at each try (their
/// ratio is the rows a page holds). The coordinator has no statistics of the shards' rows, and
/// the column types' estimate can be off by more than a try's margin (about 2 sqrt(k) rows)
/// allows, which costs a second try over every shard. Which rows a call returns does not depend
/// on its rate (a Bernoulli sample of any rate, cut down to k uniformly), and the rate comes
/// from earlier calls' randomness alone, so the sample stays exact.
#[derive(Clone, Copy, Default)]
struct Observed {
    rows: f64,
    pages: f64,
}

/// Rows the kept sums must hold before their ratio sizes a try.
const MIN_OBSERVED_ROWS: f64 = 30.0;

impl Observed {
    fn of(relid: pg_sys::Oid) -> Observed {
        OBSERVED.with_borrow(|o| o.get(&relid.to_u32()).copied().unwrap_or_default())
    }

    fn rows_per_page(self) -> Option<f64> {
        (self.rows >= MIN_OBSERVED_ROWS && self.pages > 0.0).then(|| self.rows / self.pages)
    }

    /// Adds a try that brought `rows` of `pages` pages at `rate`.
    fn add(relid: pg_sys::Oid, rows: u64, pages: f64, rate: f64) {
        OBSERVED.with_borrow_mut(|o| {
            if o.len() >= MAX_PREPARED && !o.contains_key(&relid.to_u32()) {
                o.clear();
            }
            let kept = o.entry(relid.to_u32()).or_default();
            kept.rows = kept.rows / 2.0 + rows as f64;
            kept.pages = kept.pages / 2.0 + pages * rate.min(1.0);
        });
    }
}

fn invalid(message: String) -> ! {
    raise(Error::invalid(message))
}

/// Argument `n` of the call, or None if it is NULL.
unsafe fn arg(fcinfo: FunctionCallInfo, n: usize) -> Option<Datum> {
    // SAFETY: the caller's fcinfo holds at least n + 1 arguments.
    unsafe {
        let arg = *(*fcinfo).args.as_ptr().add(n);
        (!arg.isnull).then_some(arg.value)
    }
}

/// A C string of the catalog as an owned string ("" for NULL).
unsafe fn owned(name: *const c_char) -> String {
    if name.is_null() {
        return String::new();
    }
    // SAFETY: a NUL-terminated name from the catalog caches.
    unsafe { CStr::from_ptr(name).to_string_lossy().into_owned() }
}

/// An identifier quoted as PostgreSQL quotes it.
unsafe fn quoted(name: *const c_char) -> String {
    // SAFETY: quote_identifier takes and returns NUL-terminated names.
    unsafe { owned(pg_sys::quote_identifier(name)) }
}

/// What the tries are sized from, over the relation's leaves (itself, or its partitions).
#[derive(Default)]
struct Size {
    /// Pages now.
    pages: f64,
    /// Rows by the statistics, scaled to the pages now (as the planner does).
    rows: f64,
    /// Rows by the pages and the column types alone.
    rows_by_pages: f64,
    /// Leaves without pages here, with the rows a page of theirs holds: on a Citus node, a
    /// table whose rows are in shards (sized through Citus, [`size_remote`]), or an empty one.
    remote: Vec<(pg_sys::Oid, f64)>,
}

/// The most rows of a relation's row width a page holds (as the planner's estimate for a table
/// never analyzed): from the column types' widths, at least 1 and at most MaxHeapTuplesPerPage.
unsafe fn rows_per_page(rel: pg_sys::Relation) -> f64 {
    // SAFETY: an open relation and its tuple descriptor.
    unsafe {
        let desc = PgTupleDesc::from_pg_unchecked((*rel).rd_att);
        let mut width = 0i64;
        for att in desc.iter() {
            if att.attisdropped {
                continue;
            }
            width += if att.attlen > 0 {
                att.attlen as i64
            } else {
                pg_sys::get_typavgwidth(att.atttypid, att.atttypmod) as i64
            };
        }
        // MAXALIGN(SizeofHeapTupleHeader) and an ItemIdData a row; the page header.
        let per_row = width + 24 + 4;
        let room = pg_sys::BLCKSZ as i64 - 24;
        (room as f64 / per_row as f64)
            .floor()
            .clamp(1.0, SLOTS_PER_PAGE as f64)
    }
}

/// Adds a relation's leaves to `size`, locking each as the statement would.
unsafe fn measure(relid: pg_sys::Oid, relkind: c_char, size: &mut Size) {
    // SAFETY: relations opened and closed here, their locks kept to the end of the transaction
    // as the statement that reads them keeps them.
    unsafe {
        check_for_interrupts();
        let lock = pg_sys::AccessShareLock as pg_sys::LOCKMODE;
        match relkind as u8 {
            b'p' => {
                let rel = pg_sys::relation_open(relid, lock);
                let parts = pg_sys::RelationGetPartitionDesc(rel, true);
                let children: Vec<pg_sys::Oid> = if parts.is_null() {
                    Vec::new()
                } else {
                    (0..(*parts).nparts as usize)
                        .map(|i| *(*parts).oids.add(i))
                        .collect()
                };
                pg_sys::relation_close(rel, pg_sys::NoLock as pg_sys::LOCKMODE);
                for child in children {
                    measure(child, pg_sys::get_rel_relkind(child), size);
                }
            }
            b'r' | b'm' => {
                let heirs = measure_heap(relid, size);
                if heirs {
                    // An inheritance parent: the statement reads its children too (foreign
                    // ones were refused), at any depth, as find_all_inheritors lists them.
                    for child in inheritors(relid, lock).into_iter().skip(1) {
                        if pg_sys::get_rel_relkind(child) as u8 == b'r' {
                            check_for_interrupts();
                            measure_heap(child, size);
                        }
                    }
                }
            }
            // Foreign tables were refused (refuse_foreign_leaves); views are not sampled.
            _ => {}
        }
    }
}

/// Adds one table's or materialized view's pages to `size`, locking it as the statement would;
/// true when it has inheritance children.
unsafe fn measure_heap(relid: pg_sys::Oid, size: &mut Size) -> bool {
    // SAFETY: the relation opened and closed here, its lock kept to the end of the transaction.
    unsafe {
        let rel = pg_sys::relation_open(relid, pg_sys::AccessShareLock as pg_sys::LOCKMODE);
        let pages =
            pg_sys::RelationGetNumberOfBlocksInFork(rel, pg_sys::ForkNumber::MAIN_FORKNUM) as f64;
        let tuples = (*(*rel).rd_rel).reltuples as f64;
        let relpages = (*(*rel).rd_rel).relpages as f64;
        let heirs = (*(*rel).rd_rel).relhassubclass;
        let density = rows_per_page(rel);
        pg_sys::relation_close(rel, pg_sys::NoLock as pg_sys::LOCKMODE);
        if pages == 0.0 {
            size.remote.push((relid, density));
        }
        size.pages += pages;
        size.rows_by_pages += density * pages;
        size.rows += if pages == 0.0 {
            0.0
        } else if tuples >= 0.0 && relpages > 0.0 {
            tuples / relpages * pages
        } else {
            density * pages
        };
        heirs
    }
}

/// Adds to `size` the pages of the Citus tables among its leaves without pages here (a
/// distributed or reference table on the coordinator, whose rows are in shards): the pages of
/// their shards' main forks, `citus_relation_size`, and as many rows as the column types put on
/// them (their statistics are the shards', which the coordinator does not have; unseeded calls
/// then size from what earlier tries brought, [`Observed`]). Pages alone: the same table state
/// gives the same size, for the seeded form. A leaf that is not a Citus table (an empty one)
/// adds nothing. Not inside SPI. True when every page counted is in Citus shards.
unsafe fn size_remote(size: &mut Size) -> bool {
    if size.remote.is_empty() {
        return false;
    }
    // SAFETY: a catalog lookup.
    let citus = unsafe { pg_sys::get_extension_oid(c"citus".as_ptr(), true) } != pg_sys::InvalidOid;
    if !citus {
        return false;
    }
    let local = size.pages;
    for &(relid, density) in &size.remote {
        check_for_interrupts();
        let bytes = Spi::get_one_with_args::<f64>(
            "SELECT pg_catalog.citus_relation_size(p.logicalrelid)::pg_catalog.float8
               FROM pg_catalog.pg_dist_partition p WHERE p.logicalrelid = $1::pg_catalog.oid",
            &[relid.into()],
        )
        .unwrap_or_else(|e| error!("sample_rows could not size a Citus table: {e}"));
        let pages = (bytes.unwrap_or(0.0) / pg_sys::BLCKSZ as f64).floor();
        size.pages += pages;
        size.rows += density * pages;
        size.rows_by_pages += density * pages;
    }
    local == 0.0 && size.pages > 0.0
}

/// The relation's schema-qualified name and an alias for its rows that no column has.
unsafe fn names(relid: pg_sys::Oid) -> (String, String) {
    // SAFETY: catalog cache lookups of an existing relation, locked by the caller.
    unsafe {
        let schema = pg_sys::get_namespace_name(pg_sys::get_rel_namespace(relid));
        let relname = pg_sys::get_rel_name(relid);
        let name = format!("{}.{}", quoted(schema), quoted(relname));
        let rel = pg_sys::relation_open(relid, pg_sys::NoLock as pg_sys::LOCKMODE);
        let desc = PgTupleDesc::from_pg_unchecked((*rel).rd_att);
        let columns: Vec<String> = desc
            .iter()
            .filter(|att| !att.attisdropped)
            .map(|att| owned(att.attname.data.as_ptr()))
            .collect();
        pg_sys::relation_close(rel, pg_sys::NoLock as pg_sys::LOCKMODE);
        let mut alias = String::from("sampled");
        while columns.contains(&alias) {
            alias.push('_');
        }
        (name, alias)
    }
}

/// The text of a mode's statement and its parameters' types.
fn statement(mode: Mode, schema: &str, name: &str, alias: &str) -> (String, Vec<pg_sys::Oid>) {
    // A row's order key: its relation's name (a partition's, a shard's) and its place.
    let key = |param: u32| {
        format!(
            ", {schema}.shuffle_key(${param}, \"{alias}\".tableoid::pg_catalog.regclass::pg_catalog.text \
             OPERATOR(pg_catalog.||) \"{alias}\".ctid::pg_catalog.text)"
        )
    };
    let sample = format!("TABLESAMPLE {schema}.sparse_bernoulli ($1)");
    match mode {
        Mode::Sample => (
            format!("SELECT \"{alias}\" FROM {name} AS \"{alias}\" {sample}"),
            vec![pg_sys::FLOAT4OID],
        ),
        Mode::SeededSample => (
            format!(
                "SELECT \"{alias}\"{} FROM {name} AS \"{alias}\" {sample} REPEATABLE ($3)",
                key(2)
            ),
            vec![pg_sys::FLOAT4OID, pg_sys::BYTEAOID, pg_sys::FLOAT8OID],
        ),
        Mode::Scan => (
            format!("SELECT \"{alias}\" FROM {name} AS \"{alias}\""),
            vec![],
        ),
        Mode::SeededScan => (
            format!("SELECT \"{alias}\"{} FROM {name} AS \"{alias}\"", key(1)),
            vec![pg_sys::BYTEAOID],
        ),
    }
}

/// The kept statement of a relation and mode, prepared anew when its text changed (a rename, a
/// column named like the alias, the extension's schema renamed). Inside SPI.
unsafe fn prepared(
    relid: pg_sys::Oid,
    mode: Mode,
    query: String,
    types: &[pg_sys::Oid],
) -> pg_sys::SPIPlanPtr {
    let key = (relid.to_u32(), mode);
    let kept = PREPARED.with_borrow(|p| p.get(&key).filter(|p| p.query == query).map(|p| p.plan));
    if let Some(plan) = kept {
        return plan;
    }
    // SAFETY: SPI is connected; the plan is kept in the cache memory, freed here when replaced.
    unsafe {
        // A generic plan, so that a call does not plan again; on Citus, whose distributed plans
        // want the parameters' values, PostgreSQL's choice.
        let citus = pg_sys::get_extension_oid(c"citus".as_ptr(), true) != pg_sys::InvalidOid;
        let options = if citus {
            0
        } else {
            pg_sys::CURSOR_OPT_GENERIC_PLAN as i32
        };
        let text = std::ffi::CString::new(query.as_str()).expect("no NUL in a statement");
        let plan = pg_sys::SPI_prepare_cursor(
            text.as_ptr(),
            types.len() as i32,
            types.as_ptr().cast_mut(),
            options,
        );
        if plan.is_null() {
            error!("sample_rows could not prepare its statement: {query}");
        }
        pg_sys::SPI_keepplan(plan);
        let old = PREPARED.with_borrow_mut(|p| {
            let mut old: Vec<pg_sys::SPIPlanPtr> = Vec::new();
            if p.len() >= MAX_PREPARED {
                old.extend(p.drain().map(|(_, v)| v.plan));
            }
            old.extend(p.insert(key, Prepared { query, plan }).map(|v| v.plan));
            old
        });
        for plan in old {
            pg_sys::SPI_freeplan(plan);
        }
        plan
    }
}

/// The rows kept so far by one try, in their own memory context.
struct Kept {
    k: usize,
    /// Each row with its order key (seeded; 0 otherwise).
    rows: Vec<(i64, Datum)>,
    /// Seeded: the kept rows' keys, the largest on top, with their places in `rows`.
    largest: BinaryHeap<(i64, usize)>,
    /// Rows the try brought.
    seen: u64,
    bytes: usize,
    claim: Option<Claim>,
    memory: pg_sys::MemoryContext,
}

impl Kept {
    /// No rows yet, for k of them, in a memory context of their own under `parent`.
    unsafe fn new(k: usize, parent: pg_sys::MemoryContext) -> Kept {
        // SAFETY: a new child context of the caller's query memory.
        let memory = unsafe {
            pg_sys::AllocSetContextCreateInternal(
                parent,
                c"sample_rows".as_ptr(),
                0,
                8 * 1024,
                pg_sys::ALLOCSET_DEFAULT_MAXSIZE as usize,
            )
        };
        Kept {
            k,
            rows: Vec::new(),
            largest: BinaryHeap::new(),
            seen: 0,
            bytes: 0,
            claim: None,
            memory,
        }
    }

    /// A copy of a whole-row value (unpacked, detoasted) in the kept rows' memory.
    unsafe fn copy(&mut self, datum: Datum) -> (Datum, usize) {
        // SAFETY: a composite datum of the statement's result, copied into our context.
        unsafe {
            let old = pg_sys::MemoryContextSwitchTo(self.memory);
            let copy = pg_sys::pg_detoast_datum_copy(datum.cast_mut_ptr());
            pg_sys::MemoryContextSwitchTo(old);
            let len = pgrx::varlena::varsize_any(copy);
            (Datum::from(copy), len)
        }
    }

    /// Counts `len` more bytes held (and `freed` fewer), within dealcards.max_working_memory.
    fn count(&mut self, len: usize, freed: usize) {
        let entry = std::mem::size_of::<(i64, Datum)>() + std::mem::size_of::<(i64, usize)>();
        let bytes = (self.bytes + len + entry).saturating_sub(freed);
        if bytes > self.bytes {
            self.claim = None;
            self.claim = Some(ok_or_raise(Claim::new(bytes, "sample_rows' rows")));
        }
        self.bytes = bytes;
    }

    /// Takes one row the try brought: uniformly into the k kept (unseeded), or among the k of
    /// smallest keys (seeded).
    unsafe fn offer(&mut self, datum: Datum, key: Option<i64>, stream: &mut Stream) {
        // SAFETY: the row's datum, copied before the statement's memory goes.
        unsafe {
            self.seen += 1;
            let slot = if self.rows.len() < self.k {
                None
            } else {
                match key {
                    None => {
                        // Reservoir: row n (from 1) enters with chance k / n.
                        let at = stream.below_u64(self.seen) as usize;
                        if at >= self.k {
                            return;
                        }
                        Some(at)
                    }
                    Some(key) => match self.largest.peek() {
                        Some(&(top, at)) if key < top => {
                            self.largest.pop();
                            Some(at)
                        }
                        _ => return,
                    },
                }
            };
            let (copy, len) = self.copy(datum);
            let entry = (key.unwrap_or(0), copy);
            match slot {
                None => {
                    self.count(len, 0);
                    self.rows.push(entry);
                    if let Some(key) = key {
                        self.largest.push((key, self.rows.len() - 1));
                    }
                }
                Some(at) => {
                    let old = std::mem::replace(&mut self.rows[at], entry).1;
                    let freed = pgrx::varlena::varsize_any(old.cast_mut_ptr());
                    pg_sys::pfree(old.cast_mut_ptr());
                    self.count(
                        len,
                        freed
                            + std::mem::size_of::<(i64, Datum)>()
                            + std::mem::size_of::<(i64, usize)>(),
                    );
                    if let Some(key) = key {
                        self.largest.push((key, at));
                    }
                }
            }
        }
    }

    /// Forgets a try's rows.
    unsafe fn clear(&mut self) {
        // SAFETY: the rows' memory, which nothing else points into.
        unsafe { pg_sys::MemoryContextReset(self.memory) };
        self.rows.clear();
        self.largest.clear();
        self.seen = 0;
        self.bytes = 0;
        self.claim = None;
    }
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

/// The argument k: 0 or more.
unsafe fn k_argument(fcinfo: FunctionCallInfo) -> i32 {
    // SAFETY: the call's second argument is an integer.
    let k = match unsafe { arg(fcinfo, 1) } {
        Some(k) => k.value() as i32,
        None => invalid("k must be 0 or more, got NULL".into()),
    };
    if k < 0 {
        invalid(format!("k must be 0 or more, got {k}"));
    }
    k
}

/// The argument seed: none, or SEED_LEN bytes.
unsafe fn seed_argument(fcinfo: FunctionCallInfo) -> Option<Vec<u8>> {
    // SAFETY: the call's third argument is a bytea, detoasted here.
    let seed: Option<Vec<u8>> = unsafe {
        arg(fcinfo, 2).map(|d| {
            let flat = pg_sys::pg_detoast_datum_packed(d.cast_mut_ptr());
            std::slice::from_raw_parts(
                pgrx::varlena::vardata_any(flat) as *const u8,
                pgrx::varlena::varsize_any_exhdr(flat),
            )
            .to_vec()
        })
    };
    if let Some(seed) = &seed {
        if seed.len() != SEED_LEN {
            invalid(format!(
                "seed must be exactly {SEED_LEN} bytes, got {}",
                seed.len()
            ));
        }
    }
    seed
}

/// The table whose row type the first argument has: (the row type, the table, its relkind).
/// Anything but a table, a partitioned table or a materialized view is refused (42809); a
/// foreign table under one is refused later, once the caller may read it
/// ([`refuse_foreign_leaves`]).
unsafe fn table_of(fcinfo: FunctionCallInfo) -> (pg_sys::Oid, pg_sys::Oid, c_char) {
    // SAFETY: catalog lookups of the call's argument type.
    unsafe {
        let typid = pg_sys::get_fn_expr_argtype((*fcinfo).flinfo, 0);
        let relid = if typid == pg_sys::InvalidOid {
            pg_sys::InvalidOid
        } else {
            pg_sys::get_typ_typrelid(typid)
        };
        let relkind = if relid == pg_sys::InvalidOid {
            0
        } else {
            pg_sys::get_rel_relkind(relid)
        };
        if !matches!(relkind as u8, b'r' | b'p' | b'm') {
            let shown = if typid == pg_sys::InvalidOid {
                "unknown".to_string()
            } else {
                owned(pg_sys::format_type_be(typid))
            };
            ErrorReport::new(
                PgSqlErrorCode::ERRCODE_WRONG_OBJECT_TYPE,
                format!("sample_rows samples tables: {shown} is not the row type of a table or materialized view"),
                "sample_rows",
            )
            .set_hint("Name the table by its row type, as in sample_rows(NULL::my_table, 10); to sample a view or a query, aggregate it with sample_agg.")
            .report(PgLogLevel::ERROR);
            unreachable!();
        }
        (typid, relid, relkind)
    }
}

/// The call's ReturnSetInfo, where the caller takes a materialized set.
unsafe fn materialize_mode(fcinfo: FunctionCallInfo) -> *mut pg_sys::ReturnSetInfo {
    // SAFETY: the call's result info, checked before it is read.
    unsafe {
        let rsinfo = (*fcinfo).resultinfo as *mut pg_sys::ReturnSetInfo;
        if rsinfo.is_null()
            || (*rsinfo).type_ != pg_sys::NodeTag::T_ReturnSetInfo
            || (*rsinfo).allowedModes & pg_sys::SetFunctionReturnMode::SFRM_Materialize as i32 == 0
        {
            ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_FEATURE_NOT_SUPPORTED,
                "set-valued function called in context that cannot accept a set"
            );
        }
        rsinfo
    }
}

unsafe extern "C-unwind" {
    /// catalog/pg_inherits.h (the same in PostgreSQL 14 to 18, not bound by pgrx): the relation
    /// first, then every relation under it, partitions and inheritance children at any depth,
    /// each locked in `lockmode`. Called through [`inheritors`].
    #[link_name = "find_all_inheritors"]
    fn find_all_inheritors_unguarded(
        parent: pg_sys::Oid,
        lockmode: pg_sys::LOCKMODE,
        numparents: *mut *mut pg_sys::List,
    ) -> *mut pg_sys::List;
}

/// The relation and every relation under it (`find_all_inheritors`), each locked in `lockmode`,
/// an error it raises turned into a Rust panic at the call, as pgrx's bindings do.
unsafe fn inheritors(relid: pg_sys::Oid, lockmode: pg_sys::LOCKMODE) -> Vec<pg_sys::Oid> {
    // SAFETY: a catalog scan of pg_inherits from the backend's main thread; the list is read
    // before anything else runs.
    unsafe {
        let tree = pg_sys::ffi::pg_guard_ffi_boundary(|| {
            find_all_inheritors_unguarded(relid, lockmode, std::ptr::null_mut())
        });
        if tree.is_null() {
            return vec![relid];
        }
        (0..(*tree).length.max(0) as usize)
            .map(|i| (*(*tree).elements.add(i)).oid_value)
            .collect()
    }
}

/// Refuses (0A000) a relation with a foreign table under it, a partition or an inheritance
/// child at any depth: PostgreSQL gives a foreign scan no TABLESAMPLE clause, so every try
/// would bring all of its rows and the k kept would come mostly from it. Locks what it reads as
/// the statement would (after the privilege check).
unsafe fn refuse_foreign_leaves(relid: pg_sys::Oid) {
    // SAFETY: catalog lookups of the relation and its descendants, locked here.
    unsafe {
        let lock = pg_sys::AccessShareLock as pg_sys::LOCKMODE;
        for member in inheritors(relid, lock) {
            if pg_sys::get_rel_relkind(member) as u8 != b'f' {
                continue;
            }
            let name = |oid| owned(pg_sys::format_type_be(pg_sys::get_rel_type_id(oid)));
            ErrorReport::new(
                PgSqlErrorCode::ERRCODE_FEATURE_NOT_SUPPORTED,
                format!(
                    "sample_rows cannot sample {}: {} under it is a foreign table, which PostgreSQL reads whole, without the sample",
                    name(relid),
                    name(member)
                ),
                "sample_rows",
            )
            .set_hint("Sample the local tables by name and the foreign one where its rows are, or aggregate the whole with sample_agg, which reads every row.")
            .report(PgLogLevel::ERROR);
        }
    }
}

/// The caller may read the table (or every column of it), checked before it is locked.
unsafe fn check_select(relid: pg_sys::Oid, relkind: c_char) {
    // SAFETY: ACL checks of an existing relation.
    unsafe {
        let user = pg_sys::GetUserId();
        let select = pg_sys::ACL_SELECT as pg_sys::AclMode;
        if pg_sys::pg_class_aclcheck(relid, user, select) != pg_sys::AclResult::ACLCHECK_OK
            && pg_sys::pg_attribute_aclcheck_all(
                relid,
                user,
                select,
                pg_sys::AclMaskHow::ACLMASK_ALL,
            ) != pg_sys::AclResult::ACLCHECK_OK
        {
            pg_sys::aclcheck_error(
                pg_sys::AclResult::ACLCHECK_NO_PRIV,
                pg_sys::get_relkind_objtype(relkind),
                pg_sys::get_rel_name(relid),
            );
        }
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

/// The rows a relation is taken to have when sizing its first try: seeded, by its pages and
/// column types alone; otherwise by its statistics, or by what earlier tries brought where it
/// has none here (`observed`, a Citus table); a million where it has no pages (empty, or a
/// table whose size Citus could not give): the tries grow from there.
fn first_try_rows(size: &Size, seeded: bool, observed: Option<Observed>) -> f64 {
    let rows = match observed.and_then(Observed::rows_per_page) {
        Some(per_page) => per_page * size.pages,
        None if seeded => size.rows_by_pages,
        None => size.rows,
    };
    if rows < 1.0 {
        1e6
    } else {
        rows
    }
}

/// Hands the kept rows, in their order, to the caller as a materialized set.
unsafe fn materialize(rsinfo: *mut pg_sys::ReturnSetInfo, typid: pg_sys::Oid, kept: &Kept) {
    // SAFETY: the caller's ReturnSetInfo, checked by `materialize_mode`; the rows are whole-row
    // values of the row type `typid`.
    unsafe {
        let query_memory = (*(*rsinfo).econtext).ecxt_per_query_memory;
        let old = pg_sys::MemoryContextSwitchTo(query_memory);
        let random_access = (*rsinfo).allowedModes
            & pg_sys::SetFunctionReturnMode::SFRM_Materialize_Random as i32
            != 0;
        let store = pg_sys::tuplestore_begin_heap(random_access, false, pg_sys::work_mem);
        // A copy, as InitMaterializedSRF makes: the executor frees the descriptor it is given
        // after each call, and the expected one serves the next call (a LATERAL rescan).
        let desc = if (*rsinfo).expectedDesc.is_null() {
            pg_sys::lookup_rowtype_tupdesc_copy(typid, -1)
        } else {
            pg_sys::CreateTupleDescCopy((*rsinfo).expectedDesc)
        };
        for &(_, row) in &kept.rows {
            let header = row.cast_mut_ptr::<pg_sys::HeapTupleHeaderData>();
            let mut tuple: pg_sys::HeapTupleData = std::mem::zeroed();
            tuple.t_len = pgrx::varlena::varsize_any(header.cast()) as u32;
            tuple.t_data = header;
            pg_sys::tuplestore_puttuple(store, &mut tuple);
        }
        pg_sys::MemoryContextSwitchTo(old);
        (*rsinfo).returnMode = pg_sys::SetFunctionReturnMode::SFRM_Materialize;
        (*rsinfo).setResult = store;
        (*rsinfo).setDesc = desc;
    }
}
