//! The arguments of sample_rows: k, the seed, the relation its first argument names (its kind, the
//! caller's SELECT on it, nothing foreign under it) and the set-returning mode it is called in.

use super::*;

/// Argument `n` of the call, or None if it is NULL.
pub(super) unsafe fn arg(fcinfo: FunctionCallInfo, n: usize) -> Option<Datum> {
    // SAFETY: the caller's fcinfo holds at least n + 1 arguments.
    unsafe {
        let arg = *(*fcinfo).args.as_ptr().add(n);
        (!arg.isnull).then_some(arg.value)
    }
}

/// The argument k: 0 or more.
pub(super) unsafe fn k_argument(fcinfo: FunctionCallInfo) -> i32 {
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
pub(super) unsafe fn seed_argument(fcinfo: FunctionCallInfo) -> Option<Vec<u8>> {
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
pub(super) unsafe fn table_of(fcinfo: FunctionCallInfo) -> (pg_sys::Oid, pg_sys::Oid, c_char) {
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
pub(super) unsafe fn materialize_mode(fcinfo: FunctionCallInfo) -> *mut pg_sys::ReturnSetInfo {
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
pub(super) unsafe fn inheritors(
    relid: pg_sys::Oid,
    lockmode: pg_sys::LOCKMODE,
) -> Vec<pg_sys::Oid> {
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
pub(super) unsafe fn refuse_foreign_leaves(relid: pg_sys::Oid) {
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
pub(super) unsafe fn check_select(relid: pg_sys::Oid, relkind: c_char) {
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
