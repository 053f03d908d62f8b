//! The statements the extension runs on its own tables, prepared and run one way for all of them.
//!
//! Names: a statement names the extension's tables as `@extschema@.table`, filled in with the
//! schema the calling function lives in, and every function and operator it uses as pg_catalog's
//! (`pg_catalog.unnest`, `OPERATOR(pg_catalog.=)`). Nothing in it is looked up on a search_path,
//! so no object that some role creates in any schema (the extension's own included) can stand in
//! for the one meant, whoever calls, and the functions need no `SET search_path` of their own.
//!
//! Plans: a backend prepares each statement on first use and keeps the plan, for the schema's
//! name at that time. The name is checked on every call: after `ALTER SCHEMA ... RENAME` the
//! statements are prepared again under the new name, so the kept plans never re-resolve the old
//! name to a schema created later under it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::CStr;
use std::rc::Rc;

use pgrx::datum::DatumWithOid;
use pgrx::pg_sys;
use pgrx::spi::{self, OwnedPreparedStatement, SpiClient, SpiTupleTable};
use pgrx::PgOid;

/// The schema the extension lives in, as the running function sees it.
#[derive(Clone, PartialEq, Eq)]
pub struct ExtensionSchema {
    oid: pg_sys::Oid,
    /// The name as it is now, quoted as an identifier.
    quoted: String,
}

impl ExtensionSchema {
    /// The schema of the function being called: the extension's functions live next to its tables.
    pub fn of(fcinfo: pg_sys::FunctionCallInfo) -> Self {
        // SAFETY: Postgres calls a function with a valid fcinfo whose flinfo names it; the schema
        // of a function being called exists, and its name is copied before anything else runs.
        unsafe {
            let oid = pg_sys::get_func_namespace((*(*fcinfo).flinfo).fn_oid);
            let name = pg_sys::get_namespace_name(oid);
            if name.is_null() {
                pgrx::error!("the schema of this dealcards function no longer exists");
            }
            let quoted = spi::quote_identifier(CStr::from_ptr(name).to_string_lossy());
            pg_sys::pfree(name.cast());
            ExtensionSchema { oid, quoted }
        }
    }

    /// The schema's oid.
    pub fn oid(&self) -> pg_sys::Oid {
        self.oid
    }

    /// Whether the extension's table `table` in this schema has the column `column`: the library
    /// of a release serves a database still on the previous release's tables until
    /// `ALTER EXTENSION dealcards UPDATE`, and asks this (two catalog cache lookups) to know
    /// which statements those tables take.
    pub fn has_column(&self, table: &CStr, column: &CStr) -> bool {
        // SAFETY: both lookups read the catalog caches with NUL-terminated names.
        unsafe {
            let relid = pg_sys::get_relname_relid(table.as_ptr(), self.oid);
            relid != pg_sys::InvalidOid
                && pg_sys::get_attnum(relid, column.as_ptr()) != pg_sys::InvalidAttrNumber as i16
        }
    }

    /// The owner of the extension's table `table` in this schema, from the relation cache (the
    /// table is locked as a read of it would lock it).
    pub fn table_owner(&self, table: &CStr) -> Option<pg_sys::Oid> {
        // SAFETY: the relation is looked up in this schema, opened with AccessShareLock (kept to
        // the end of the transaction, like any read), read, and closed.
        unsafe {
            let relid = pg_sys::get_relname_relid(table.as_ptr(), self.oid);
            if relid == pg_sys::InvalidOid {
                return None;
            }
            let rel = pg_sys::relation_open(relid, pg_sys::AccessShareLock as pg_sys::LOCKMODE);
            let owner = (*(*rel).rd_rel).relowner;
            pg_sys::relation_close(rel, pg_sys::NoLock as pg_sys::LOCKMODE);
            Some(owner)
        }
    }
}

/// This backend's kept plans, all for one schema under one name.
struct Plans {
    schema: ExtensionSchema,
    by_sql: HashMap<&'static str, Rc<OwnedPreparedStatement>>,
}

thread_local! {
    static PLANS: RefCell<Option<Plans>> = const { RefCell::new(None) };
}

/// Turns a failure SPI reports (not an error the statement raised: those propagate as they are)
/// into an ERROR that names what was being done.
fn failed(doing: &str, error: spi::SpiError) -> ! {
    pgrx::error!("dealcards could not {doing}: {error}")
}

/// The kept plan of `sql` for `schema`, preparing it first if needed. The plan is handed out as
/// an Rc and no borrow is held while a statement runs, so a trigger that calls back into the
/// extension finds the cache free.
fn plan(
    client: &SpiClient<'_>,
    schema: &ExtensionSchema,
    sql: &'static str,
    args: &[DatumWithOid],
) -> Rc<OwnedPreparedStatement> {
    let kept = PLANS.with_borrow_mut(|plans| match plans {
        Some(plans) if plans.schema == *schema => plans.by_sql.get(sql).cloned(),
        _ => {
            // First use, or the schema was renamed (or the extension recreated elsewhere).
            *plans = Some(Plans {
                schema: schema.clone(),
                by_sql: HashMap::new(),
            });
            None
        }
    });
    if let Some(plan) = kept {
        return plan;
    }
    let text = sql.replace("@extschema@", &schema.quoted);
    let types: Vec<PgOid> = args.iter().map(|a| PgOid::from(a.oid())).collect();
    let plan = Rc::new(
        client
            .prepare_mut(&text, &types)
            .unwrap_or_else(|e| failed("prepare a statement", e))
            .keep(),
    );
    PLANS.with_borrow_mut(|plans| {
        if let Some(plans) = plans.as_mut().filter(|p| p.schema == *schema) {
            plans.by_sql.insert(sql, plan.clone());
        }
    });
    plan
}

/// Runs `sql` (a statement written with `@extschema@` for the extension's schema and only
/// qualified names) with `args`, through this backend's kept plan.
pub fn run<'conn>(
    client: &mut SpiClient<'conn>,
    schema: &ExtensionSchema,
    sql: &'static str,
    args: &[DatumWithOid],
) -> SpiTupleTable<'conn> {
    let plan = plan(client, schema, sql, args);
    client
        .update(&*plan, None, args)
        .unwrap_or_else(|e| failed("run a statement", e))
}
