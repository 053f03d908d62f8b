//! The k rows a try keeps as they come (a reservoir, or a seeded sample's k smallest keys), and
//! their output as the function's rows.

use super::*;

/// The rows kept so far by one try, in their own memory context.
pub(super) struct Kept {
    pub(super) k: usize,
    /// Each row with its order key (seeded; 0 otherwise).
    pub(super) rows: Vec<(i64, Datum)>,
    /// Seeded: the kept rows' keys, the largest on top, with their places in `rows`.
    pub(super) largest: BinaryHeap<(i64, usize)>,
    /// Rows the try brought.
    pub(super) seen: u64,
    pub(super) bytes: usize,
    pub(super) claim: Option<Claim>,
    pub(super) memory: pg_sys::MemoryContext,
}

impl Kept {
    /// No rows yet, for k of them, in a memory context of their own under `parent`.
    pub(super) unsafe fn new(k: usize, parent: pg_sys::MemoryContext) -> Kept {
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
    pub(super) unsafe fn copy(&mut self, datum: Datum) -> (Datum, usize) {
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
    pub(super) fn count(&mut self, len: usize, freed: usize) {
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
    pub(super) unsafe fn offer(&mut self, datum: Datum, key: Option<i64>, stream: &mut Stream) {
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
    pub(super) unsafe fn clear(&mut self) {
        // SAFETY: the rows' memory, which nothing else points into.
        unsafe { pg_sys::MemoryContextReset(self.memory) };
        self.rows.clear();
        self.largest.clear();
        self.seen = 0;
        self.bytes = 0;
        self.claim = None;
    }
}

/// Hands the kept rows, in their order, to the caller as a materialized set.
pub(super) unsafe fn materialize(
    rsinfo: *mut pg_sys::ReturnSetInfo,
    typid: pg_sys::Oid,
    kept: &Kept,
) {
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
