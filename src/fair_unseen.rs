//! A provably fair deal, and the cards of a card room's hand, stay unseen in the transaction that
//! dealt them, where row level security alone cannot keep them so (docs/provably_fair.md, "Nobody
//! sees a deal before it commits"; docs/card_rooms.md).
//!
//! Row level security does not restrict the tables' owner, superusers and roles with BYPASSRLS.
//! Whatever reads game, bid_record, note or room_card with such a role's rights shows the deal to whoever
//! runs it: a view that is not security_invoker (it reads as its owner), a SECURITY DEFINER
//! function, a rule's actions, a materialized view refreshed (as its owner). So once a session
//! that is not the house has dealt provably fair, every statement of the transaction that
//! reads those tables as a role row security does not restrict is refused (42501), but the
//! extension's own statements and the checks of foreign keys (which read rows as their table's
//! owner and show none). An ANALYZE in that transaction would sample the deal's rows into the
//! statistics, which the planner's estimates show: it is refused too (55000). Both end with
//! the transaction; an ordinary deal, and the house's deals, change nothing.

use std::cell::{Cell, RefCell};

use pgrx::prelude::*;
use pgrx::{pg_sys, PgList};

use crate::PgSqlErrorCode;

thread_local! {
    /// The tables (game, bid_record, note; room_card) where this transaction dealt a provably
    /// fair deal or a hand's cards that its session may not see before it commits; empty
    /// outside such a transaction.
    static DEALT: RefCell<Vec<pg_sys::Oid>> = const { RefCell::new(Vec::new()) };
    /// How many of the extension's own statements are running (nested in one another).
    static OWN: Cell<u32> = const { Cell::new(0) };
    /// What the last session asked about was to a provably fair deal, by (session user, current
    /// user, tables' owner), and the count of role changes when it was found.
    static DEALER: RefCell<Option<(DealerKey, u64, Dealer)>> = const { RefCell::new(None) };
    /// How many times a role or a membership changed (the catalog caches of pg_authid and
    /// pg_auth_members were invalidated): what [`DEALER`] holds is for one count.
    static ROLE_CHANGES: Cell<u64> = const { Cell::new(0) };
}

/// A session by its session user, its current user and the tables' owner.
pub type DealerKey = (pg_sys::Oid, pg_sys::Oid, pg_sys::Oid);

/// What a session is to a provably fair deal.
#[derive(Clone)]
pub enum Dealer {
    /// It can act as the tables' owner or a superuser: it deals as before.
    House,
    /// It can act as this role, which has that: it could see the deal before it commits.
    Sees { role: String, what: String },
    /// Neither: the deal is kept unseen in its transaction.
    Unseen,
}

/// What `key`'s session is to a deal, from `find` (which reads the catalogs) unless it was found
/// since the last change of a role or a membership.
pub fn dealer(key: DealerKey, find: impl FnOnce() -> Dealer) -> Dealer {
    let changes = ROLE_CHANGES.get();
    let known = DEALER.with_borrow(|d| {
        d.as_ref()
            .filter(|(k, c, _)| *k == key && *c == changes)
            .map(|(_, _, dealer)| dealer.clone())
    });
    known.unwrap_or_else(|| {
        let found = find();
        DEALER.with_borrow_mut(|d| *d = Some((key, changes, found.clone())));
        found
    })
}

/// Counts a change of a role or a membership (a catalog cache invalidation).
#[pg_guard]
unsafe extern "C-unwind" fn roles_changed(_arg: pg_sys::Datum, _cache: i32, _hash: u32) {
    ROLE_CHANGES.set(ROLE_CHANGES.get().wrapping_add(1));
}

static mut PREVIOUS_CHECK: pg_sys::ExecutorCheckPerms_hook_type = None;
static mut PREVIOUS_UTILITY: pg_sys::ProcessUtility_hook_type = None;

/// Puts the checks in place (from `_PG_init`), after whatever was there, which they call.
pub fn init() {
    // SAFETY: _PG_init runs once per process, before any statement of the extension; the
    // previous hooks are kept and called.
    unsafe {
        PREVIOUS_CHECK = pg_sys::ExecutorCheckPerms_hook;
        pg_sys::ExecutorCheckPerms_hook = Some(check_permissions);
        PREVIOUS_UTILITY = pg_sys::ProcessUtility_hook;
        pg_sys::ProcessUtility_hook = Some(check_utility);
        pg_sys::RegisterXactCallback(Some(transaction_end), std::ptr::null_mut());
        for cache in [
            pg_sys::SysCacheIdentifier::AUTHOID,
            pg_sys::SysCacheIdentifier::AUTHMEMMEMROLE,
            pg_sys::SysCacheIdentifier::AUTHMEMROLEMEM,
        ] {
            pg_sys::CacheRegisterSyscacheCallback(
                cache as i32,
                Some(roles_changed),
                pg_sys::Datum::from(0),
            );
        }
    }
}

/// Marks `tables` as holding a provably fair deal of this transaction that its session may
/// not see before the commit.
pub fn dealt_unseen(tables: Vec<pg_sys::Oid>) {
    DEALT.with_borrow_mut(|dealt| {
        for table in tables {
            if !dealt.contains(&table) {
                dealt.push(table);
            }
        }
    });
}

/// Runs `f`, one of the extension's own statements, which the checks let through.
pub fn own<R>(f: impl FnOnce() -> R) -> R {
    struct Done;
    impl Drop for Done {
        fn drop(&mut self) {
            OWN.set(OWN.get().saturating_sub(1));
        }
    }
    OWN.set(OWN.get() + 1);
    let _done = Done;
    f()
}

/// Whether a statement must be checked now: a deal is unseen in this transaction and the
/// statement is not one of the extension's own. No call into PostgreSQL: the hooks ask it before
/// anything else.
fn checking() -> bool {
    OWN.get() == 0 && DEALT.with_borrow(|dealt| !dealt.is_empty())
}

/// The first of `reads` (a relation, and the role it is read as: 0 for the current user) that
/// is one of the deal's tables read as a role that row level security does not restrict.
fn unrestricted_read(
    reads: impl Iterator<Item = (pg_sys::Oid, pg_sys::Oid)>,
) -> Option<(pg_sys::Oid, pg_sys::Oid)> {
    let dealt = DEALT.with_borrow(|dealt| dealt.clone());
    reads
        .filter(|(relid, _)| dealt.contains(relid))
        .map(|(relid, as_user)| {
            let user = if as_user == pg_sys::InvalidOid {
                // SAFETY: reads the current user id.
                unsafe { pg_sys::GetUserId() }
            } else {
                as_user
            };
            (relid, user)
        })
        .find(|&(relid, user)| {
            // SAFETY: a catalog lookup of a relation the statement names, locked by its
            // parse; noError: a role that may not turn row security off gets RLS_ENABLED.
            let rls = unsafe { pg_sys::check_enable_rls(relid, user, true) };
            rls != pg_sys::CheckEnableRlsResult::RLS_ENABLED as i32
        })
}

/// Whether `reads` may run: refuses (42501) one that reads a deal's table as a role that row
/// security does not restrict, or answers false for it where the caller asked for no error. A
/// foreign key's check (which reads as its table's owner, with row security off, and shows no
/// row) may.
fn reads_allowed(
    reads: impl Iterator<Item = (pg_sys::Oid, pg_sys::Oid)>,
    ereport_on_violation: bool,
) -> bool {
    // SAFETY: reads the backend's security context.
    if unsafe { pg_sys::InNoForceRLSOperation() } {
        return true;
    }
    let Some((relid, user)) = unrestricted_read(reads) else {
        return true;
    };
    if !ereport_on_violation {
        return false;
    }
    // SAFETY: catalog cache lookups of names; NULL for a name gone.
    let (table, role) = unsafe {
        let table = pg_sys::get_rel_name(relid);
        let role = pg_sys::GetUserNameFromId(user, true);
        let text = |p: *mut std::ffi::c_char| {
            if p.is_null() {
                String::from("?")
            } else {
                std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        (text(table), text(role))
    };
    pgrx::ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
        format!("this transaction dealt cards that it may not see before it commits, and this statement reads table {table} as role \"{role}\", which row level security does not restrict"),
        "A view that is not security_invoker, a SECURITY DEFINER function, a rule or a materialized view of the tables' owner, a superuser or a role with BYPASSRLS shows every row: use it after the commit, or make the view security_invoker."
    );
}

/// [`reads_allowed`] for the range table of PostgreSQL 14 and 15, whose entries hold the
/// permissions to check.
#[cfg(any(feature = "pg14", feature = "pg15"))]
#[pg_guard]
unsafe extern "C-unwind" fn range_table_allowed(
    range_table: *mut pg_sys::List,
    ereport_on_violation: bool,
) -> bool {
    // SAFETY: the range table the executor is about to check, a list of RangeTblEntry.
    let entries = unsafe { PgList::<pg_sys::RangeTblEntry>::from_pg(range_table) };
    let reads = entries
        .iter_ptr()
        // SAFETY: each entry is a RangeTblEntry of that list.
        .map(|rte| unsafe { &*rte })
        .filter(|rte| rte.rtekind == pg_sys::RTEKind::RTE_RELATION)
        .map(|rte| (rte.relid, rte.checkAsUser));
    reads_allowed(reads, ereport_on_violation)
}

/// The executor's permission check. Not guarded itself, so that an error of the hook it calls
/// next reaches PostgreSQL as raised (with its context); [`range_table_allowed`] is.
#[cfg(any(feature = "pg14", feature = "pg15"))]
unsafe extern "C-unwind" fn check_permissions(
    range_table: *mut pg_sys::List,
    ereport_on_violation: bool,
) -> bool {
    // SAFETY: the guarded check, then the hook that was in place before with the same
    // arguments.
    unsafe {
        if checking() && !range_table_allowed(range_table, ereport_on_violation) {
            return false;
        }
        match PREVIOUS_CHECK {
            Some(previous) => previous(range_table, ereport_on_violation),
            None => true,
        }
    }
}

/// [`reads_allowed`] for the permissions PostgreSQL 16 and later check, apart from the range
/// table.
#[cfg(not(any(feature = "pg14", feature = "pg15")))]
#[pg_guard]
unsafe extern "C-unwind" fn permissions_allowed(
    permissions: *mut pg_sys::List,
    ereport_on_violation: bool,
) -> bool {
    // SAFETY: the permissions the executor is about to check, a list of RTEPermissionInfo.
    let infos = unsafe { PgList::<pg_sys::RTEPermissionInfo>::from_pg(permissions) };
    let reads = infos
        .iter_ptr()
        // SAFETY: each entry is an RTEPermissionInfo of that list.
        .map(|info| unsafe { &*info })
        .map(|info| (info.relid, info.checkAsUser));
    reads_allowed(reads, ereport_on_violation)
}

/// The executor's permission check (see the one for PostgreSQL 14 and 15).
#[cfg(not(any(feature = "pg14", feature = "pg15")))]
unsafe extern "C-unwind" fn check_permissions(
    range_table: *mut pg_sys::List,
    permissions: *mut pg_sys::List,
    ereport_on_violation: bool,
) -> bool {
    // SAFETY: the guarded check, then the hook that was in place before with the same
    // arguments.
    unsafe {
        if checking() && !permissions_allowed(permissions, ereport_on_violation) {
            return false;
        }
        match PREVIOUS_CHECK {
            Some(previous) => previous(range_table, permissions, ereport_on_violation),
            None => true,
        }
    }
}

/// Refuses (55000) ANALYZE (and VACUUM, which cannot run in a transaction anyway) in a
/// transaction whose deal is unseen: ANALYZE samples the rows its own transaction wrote.
#[pg_guard]
unsafe extern "C-unwind" fn refuse_analyze() {
    pgrx::ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        "ANALYZE is refused in a transaction that dealt cards it may not see before it commits: the statistics would sample the deal",
        "Run ANALYZE in another transaction."
    );
}

// PostgreSQL's own utility processing, called as it is (the bindings' form turns its errors
// into new ones, without their context).
unsafe extern "C-unwind" {
    #[link_name = "standard_ProcessUtility"]
    fn standard_process_utility(
        statement: *mut pg_sys::PlannedStmt,
        query: *const std::ffi::c_char,
        read_only_tree: bool,
        context: pg_sys::ProcessUtilityContext::Type,
        params: pg_sys::ParamListInfo,
        environment: *mut pg_sys::QueryEnvironment,
        destination: *mut pg_sys::DestReceiver,
        completion: *mut pg_sys::QueryCompletion,
    );
}

/// The utility hook: [`refuse_analyze`] where [`checking`], then the hook that was in place
/// before, or PostgreSQL's own. Not guarded, so that the errors of every utility statement reach
/// PostgreSQL as raised.
#[allow(clippy::too_many_arguments)]
unsafe extern "C-unwind" fn check_utility(
    statement: *mut pg_sys::PlannedStmt,
    query: *const std::ffi::c_char,
    read_only_tree: bool,
    context: pg_sys::ProcessUtilityContext::Type,
    params: pg_sys::ParamListInfo,
    environment: *mut pg_sys::QueryEnvironment,
    destination: *mut pg_sys::DestReceiver,
    completion: *mut pg_sys::QueryCompletion,
) {
    // SAFETY: reads the tag of the statement about to run; then calls the guarded refusal, or
    // the next hook or PostgreSQL's processing with the same arguments.
    unsafe {
        let node = (*statement).utilityStmt;
        if checking() && !node.is_null() && (*node).type_ == pg_sys::NodeTag::T_VacuumStmt {
            refuse_analyze();
        }
        let next = PREVIOUS_UTILITY.unwrap_or(standard_process_utility);
        next(
            statement,
            query,
            read_only_tree,
            context,
            params,
            environment,
            destination,
            completion,
        );
    }
}

/// Forgets the transaction's deals when it ends, committed, prepared or rolled back.
#[pg_guard]
unsafe extern "C-unwind" fn transaction_end(
    event: pg_sys::XactEvent::Type,
    _arg: *mut std::ffi::c_void,
) {
    use pg_sys::XactEvent::*;
    if matches!(
        event,
        XACT_EVENT_COMMIT
            | XACT_EVENT_ABORT
            | XACT_EVENT_PREPARE
            | XACT_EVENT_PARALLEL_COMMIT
            | XACT_EVENT_PARALLEL_ABORT
    ) {
        DEALT.with_borrow_mut(Vec::clear);
        OWN.set(0);
    }
}
