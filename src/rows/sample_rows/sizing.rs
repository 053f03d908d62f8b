//! How big a relation is (its pages and rows a page, its partitions' and children's too, or a
//! Citus table's from what earlier tries brought), which sizes each try's rate.

use super::*;

/// What the unseeded tries of a relation whose rows are all in Citus shards brought: sums of the
/// rows each brought and of the pages it could visit times its rate, halved at each try (their
/// ratio is the rows a page holds). The coordinator has no statistics of the shards' rows, and
/// the column types' estimate can be off by more than a try's margin (about 2 sqrt(k) rows)
/// allows, which costs a second try over every shard. Which rows a call returns does not depend
/// on its rate (a Bernoulli sample of any rate, cut down to k uniformly), and the rate comes
/// from earlier calls' randomness alone, so the sample stays exact.
#[derive(Clone, Copy, Default)]
pub(super) struct Observed {
    pub(super) rows: f64,
    pub(super) pages: f64,
}

/// Rows the kept sums must hold before their ratio sizes a try.
pub(super) const MIN_OBSERVED_ROWS: f64 = 30.0;

impl Observed {
    pub(super) fn of(relid: pg_sys::Oid) -> Observed {
        OBSERVED.with_borrow(|o| o.get(&relid.to_u32()).copied().unwrap_or_default())
    }

    pub(super) fn rows_per_page(self) -> Option<f64> {
        (self.rows >= MIN_OBSERVED_ROWS && self.pages > 0.0).then(|| self.rows / self.pages)
    }

    /// Adds a try that brought `rows` of `pages` pages at `rate`.
    pub(super) fn add(relid: pg_sys::Oid, rows: u64, pages: f64, rate: f64) {
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

/// What the tries are sized from, over the relation's leaves (itself, or its partitions).
#[derive(Default)]
pub(super) struct Size {
    /// Pages now.
    pub(super) pages: f64,
    /// Rows by the statistics, scaled to the pages now (as the planner does).
    pub(super) rows: f64,
    /// Rows by the pages and the column types alone.
    pub(super) rows_by_pages: f64,
    /// Leaves without pages here, with the rows a page of theirs holds: on a Citus node, a
    /// table whose rows are in shards (sized through Citus, [`size_remote`]), or an empty one.
    pub(super) remote: Vec<(pg_sys::Oid, f64)>,
}

/// The most rows of a relation's row width a page holds (as the planner's estimate for a table
/// never analyzed): from the column types' widths, at least 1 and at most MaxHeapTuplesPerPage.
pub(super) unsafe fn rows_per_page(rel: pg_sys::Relation) -> f64 {
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
pub(super) unsafe fn measure(relid: pg_sys::Oid, relkind: c_char, size: &mut Size) {
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
pub(super) unsafe fn measure_heap(relid: pg_sys::Oid, size: &mut Size) -> bool {
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
pub(super) unsafe fn size_remote(size: &mut Size) -> bool {
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

/// The rows a relation is taken to have when sizing its first try: seeded, by its pages and
/// column types alone; otherwise by its statistics, or by what earlier tries brought where it
/// has none here (`observed`, a Citus table); a million where it has no pages (empty, or a
/// table whose size Citus could not give): the tries grow from there.
pub(super) fn first_try_rows(size: &Size, seeded: bool, observed: Option<Observed>) -> f64 {
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
