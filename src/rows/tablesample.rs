//! The TABLESAMPLE method `sparse_bernoulli (percent)` (docs/rows.md, "Random rows without
//! reading the table"): BERNOULLI's sample, every visible row taken with the given chance
//! independently of every other, reading only the pages that hold a sampled row.
//!
//! The core's [`SlotSample`] draws the slots (a page and a line pointer number) in increasing
//! order; these callbacks hand its pages and line pointers to PostgreSQL's sample scan, which
//! reads each page, skips unused, dead and redirect line pointers and rows the snapshot does not
//! see, and counts the rest. The key of the draws is 256 bits from the backend's OS-keyed
//! stream, drawn once per scan node (a rescan repeats the sample, as for BERNOULLI), or, with
//! `REPEATABLE (seed)`, a hash of the seed and the relation's schema and name, so that the
//! partitions and Citus shards that each get the same clause draw independent samples.

use std::mem::{offset_of, size_of};

use pgrx::memcxt::PgMemoryContexts;
use pgrx::prelude::*;
use pgrx::{FromDatum, Internal, PgBox, PgSqlErrorCode};

use dealcards_core::bernoulli::{expected_pages, rate_of_percent, repeatable_key, SlotSample};
use dealcards_core::rng::{Stream, SEED_LEN};

use crate::with_live;

/// The most line pointers a heap page holds: PostgreSQL's MaxHeapTuplesPerPage (291 for 8 kB
/// pages), which bindgen cannot see (a macro of sizes).
pub const SLOTS_PER_PAGE: u32 = ((pg_sys::BLCKSZ as usize
    - offset_of!(pg_sys::PageHeaderData, pd_linp))
    / (max_aligned(offset_of!(pg_sys::HeapTupleHeaderData, t_bits))
        + size_of::<pg_sys::ItemIdData>())) as u32;

const fn max_aligned(len: usize) -> usize {
    let align = pg_sys::MAXIMUM_ALIGNOF as usize;
    (len + align - 1) & !(align - 1)
}

/// InvalidBlockNumber and InvalidOffsetNumber: the end of the pages, and of a page's rows.
const NO_MORE_PAGES: pg_sys::BlockNumber = u32::MAX;
const NO_MORE_ROWS: pg_sys::OffsetNumber = 0;

/// Refuses a TABLESAMPLE argument with BERNOULLI's SQLSTATE, 2202H.
fn invalid_argument(message: String) -> ! {
    ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_INVALID_TABLESAMPLE_ARGUMENT,
        message
    );
}

/// What a scan node keeps, in its query's memory (dropped with it).
struct Scan {
    /// The key drawn for a scan without REPEATABLE: drawn once, kept across rescans.
    live_key: Option<[u8; SEED_LEN]>,
    sample: Option<SlotSample>,
}

/// `sparse_bernoulli(internal) RETURNS tsm_handler`: what `TABLESAMPLE sparse_bernoulli (p)`
/// calls to find the method's callbacks.
#[pg_extern(sql = r#"
CREATE FUNCTION sparse_bernoulli(internal) RETURNS tsm_handler
    LANGUAGE c STRICT AS 'MODULE_PATHNAME', '@FUNCTION_NAME@';
"#)]
fn sparse_bernoulli(_args: Internal) -> Internal {
    // SAFETY: a node allocated and filled as PostgreSQL's own TABLESAMPLE handlers do; the
    // parameter list is a List of the argument's type, float4 as for BERNOULLI.
    unsafe {
        let mut tsm = PgBox::<pg_sys::TsmRoutine>::alloc_node(pg_sys::NodeTag::T_TsmRoutine);
        tsm.parameterTypes = pg_sys::lappend_oid(std::ptr::null_mut(), pg_sys::FLOAT4OID);
        // REPEATABLE gives the same rows from the same table state, and a rescan of a node the
        // same rows as its first scan.
        tsm.repeatable_across_queries = true;
        tsm.repeatable_across_scans = true;
        tsm.SampleScanGetSampleSize = Some(sample_size);
        tsm.InitSampleScan = Some(init_scan);
        tsm.BeginSampleScan = Some(begin_scan);
        tsm.NextSampleBlock = Some(next_block);
        tsm.NextSampleTuple = Some(next_tuple);
        tsm.EndSampleScan = Some(end_scan);
        Internal::from(Some(pg_sys::Datum::from(tsm.into_pg())))
    }
}

/// The percentage of a TABLESAMPLE argument known at plan time, if it is a constant.
unsafe fn planned_percent(root: *mut pg_sys::PlannerInfo, args: *mut pg_sys::List) -> Option<f64> {
    // SAFETY: args is the clause's list of one float4 expression.
    unsafe {
        if args.is_null() || (*args).length < 1 {
            return None;
        }
        let expr = (*(*args).elements).ptr_value as *mut pg_sys::Node;
        let node = pg_sys::estimate_expression_value(root, expr);
        if (*node).type_ != pg_sys::NodeTag::T_Const {
            return None;
        }
        let constant = node as *mut pg_sys::Const;
        if (*constant).constisnull {
            return None;
        }
        f32::from_datum((*constant).constvalue, false).map(f64::from)
    }
}

/// The planner's estimates: the pages that hold a sampled slot, and the rows sampled.
#[pg_guard]
unsafe extern "C-unwind" fn sample_size(
    root: *mut pg_sys::PlannerInfo,
    baserel: *mut pg_sys::RelOptInfo,
    args: *mut pg_sys::List,
    pages: *mut pg_sys::BlockNumber,
    tuples: *mut f64,
) {
    // SAFETY: the planner's call, with its relation and two places for the results.
    unsafe {
        // BERNOULLI's default for a percentage not known yet (or not valid: the scan refuses it).
        let rate = planned_percent(root, args)
            .and_then(|p| rate_of_percent(p).ok())
            .unwrap_or(0.1);
        let expected = expected_pages((*baserel).pages as f64, rate, SLOTS_PER_PAGE);
        *pages = expected.ceil().min((*baserel).pages as f64) as pg_sys::BlockNumber;
        *tuples = pg_sys::clamp_row_est((*baserel).tuples * rate);
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn init_scan(node: *mut pg_sys::SampleScanState, _eflags: i32) {
    // SAFETY: the scan node's own state pointer, allocated in the executor's per-query memory,
    // which outlives the node; the Scan is dropped when that memory goes.
    unsafe {
        let scan = PgMemoryContexts::CurrentMemoryContext.leak_and_drop_on_delete(Scan {
            live_key: None,
            sample: None,
        });
        (*node).tsm_state = scan.cast();
    }
}

/// The relation's schema and name, the part of a repeatable sample's key that tells partitions
/// and shards apart.
unsafe fn relation_names(node: *mut pg_sys::SampleScanState) -> (Vec<u8>, Vec<u8>) {
    // SAFETY: the scan's open relation, its catalog row and its schema's name.
    unsafe {
        let form = (*(*node).ss.ss_currentRelation).rd_rel;
        let relation = std::ffi::CStr::from_ptr((*form).relname.data.as_ptr())
            .to_bytes()
            .to_vec();
        let schema_name = pg_sys::get_namespace_name((*form).relnamespace);
        let schema = if schema_name.is_null() {
            Vec::new()
        } else {
            std::ffi::CStr::from_ptr(schema_name).to_bytes().to_vec()
        };
        (schema, relation)
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn begin_scan(
    node: *mut pg_sys::SampleScanState,
    params: *mut pg_sys::Datum,
    _nparams: i32,
    seed: u32,
) {
    // SAFETY: the node's state is the Scan of init_scan; params holds the one float4 argument,
    // which the executor checked is not NULL.
    unsafe {
        let percent = f32::from_datum(*params, false).map_or(f64::NAN, f64::from);
        let rate = rate_of_percent(percent).unwrap_or_else(|e| invalid_argument(e.message));
        let scan = &mut *(*node).tsm_state.cast::<Scan>();
        let key = if (*node).repeatable.is_null() {
            match scan.live_key {
                Some(key) => key,
                None => {
                    let key = crate::ok_or_raise(with_live(|s| {
                        let mut key = [0u8; SEED_LEN];
                        for chunk in key.chunks_exact_mut(8) {
                            chunk.copy_from_slice(&s.next_u64().to_le_bytes());
                        }
                        key
                    }));
                    scan.live_key = Some(key);
                    key
                }
            }
        } else {
            let (schema, relation) = relation_names(node);
            repeatable_key(seed, &schema, &relation)
        };
        scan.sample = Some(SlotSample::new(
            rate,
            SLOTS_PER_PAGE,
            Stream::from_seed(key),
        ));
        // A ring of buffers where the sample visits a good part of the pages (as a scan would),
        // the shared buffers where it visits a few; every row of a page checked at once only
        // where many of a page's rows are sampled (BERNOULLI's threshold).
        (*node).use_bulkread = expected_pages(1.0, rate, SLOTS_PER_PAGE) >= 0.25;
        (*node).use_pagemode = rate >= 0.25;
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn next_block(
    node: *mut pg_sys::SampleScanState,
    nblocks: pg_sys::BlockNumber,
) -> pg_sys::BlockNumber {
    // SAFETY: the node's state is the Scan of init_scan, begun by begin_scan.
    unsafe {
        let scan = &mut *(*node).tsm_state.cast::<Scan>();
        scan.sample
            .as_mut()
            .and_then(|s| s.next_page(nblocks))
            .unwrap_or(NO_MORE_PAGES)
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn next_tuple(
    node: *mut pg_sys::SampleScanState,
    blockno: pg_sys::BlockNumber,
    maxoffset: pg_sys::OffsetNumber,
) -> pg_sys::OffsetNumber {
    // SAFETY: as for next_block. The offsets handed out are at most maxoffset, the page's last
    // line pointer: PageGetItemId does not check.
    unsafe {
        let scan = &mut *(*node).tsm_state.cast::<Scan>();
        scan.sample
            .as_mut()
            .and_then(|s| s.next_offset(blockno, maxoffset))
            .unwrap_or(NO_MORE_ROWS)
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn end_scan(node: *mut pg_sys::SampleScanState) {
    // SAFETY: the node's state is the Scan of init_scan (or NULL if it never began).
    unsafe {
        let scan = (*node).tsm_state.cast::<Scan>();
        if !scan.is_null() {
            (*scan).sample = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_per_page_is_max_heap_tuples_per_page() {
        // (8192 - 24) / (24 + 4) for 8 kB pages.
        if pg_sys::BLCKSZ == 8192 {
            assert_eq!(SLOTS_PER_PAGE, 291);
        }
        assert!(SLOTS_PER_PAGE <= u16::MAX as u32);
    }
}
