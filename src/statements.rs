//! The statements the extension runs on its own tables, prepared and run one way for all of them.
//!
//! Names: a statement names the extension's tables as `@extschema@.table`, filled in with the
//! schema the calling function lives in, and every function and operator it uses as pg_catalog's
//! (`pg_catalog.unnest`, `OPERATOR(pg_catalog.=)`). Nothing in it is looked up on a search_path,
//! so no object that some role creates in any schema (the extension's own included) can stand in
//! for the one meant, whoever calls, and the functions need no `SET search_path` of their own.
//!
//! Results are read by column name ([`Columns`]): a column a statement does not have, or of
//! another type than the one read, is a bug that raises at once, never a default.
//!
//! Plans: a backend prepares each statement on first use and keeps the plan, for the schema's
//! name at that time, and prepares it again after 16, 32, 64, ... runs ([`REPLAN_FIRST`]). The name is checked on every call: after `ALTER SCHEMA ... RENAME` the
//! statements are prepared again under the new name, so the kept plans never re-resolve the old
//! name to a schema created later under it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::CStr;
use std::rc::Rc;

use pgrx::datum::DatumWithOid;
use pgrx::pg_sys;
use pgrx::spi::{self, OwnedPreparedStatement, SpiClient, SpiHeapTupleData, SpiTupleTable};
use pgrx::{FromDatum, IntoDatum, PgOid};

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

    /// The oid of the extension's table `table` in this schema, from the catalog cache.
    pub fn relation(&self, table: &CStr) -> Option<pg_sys::Oid> {
        // SAFETY: a catalog cache lookup with a NUL-terminated name.
        let relid = unsafe { pg_sys::get_relname_relid(table.as_ptr(), self.oid) };
        (relid != pg_sys::InvalidOid).then_some(relid)
    }
}

/// A field of a relation's pg_class row, from the catalog cache; none for no such relation.
fn class_field<T>(
    relid: pg_sys::Oid,
    field: impl FnOnce(&pg_sys::FormData_pg_class) -> T,
) -> Option<T> {
    // SAFETY: a catalog cache lookup of a relation's pg_class row, read and released.
    unsafe {
        let tuple = pg_sys::SearchSysCache1(
            pg_sys::SysCacheIdentifier::RELOID as i32,
            pg_sys::Datum::from(relid),
        );
        if tuple.is_null() {
            return None;
        }
        let value = field(&*pg_sys::heap_tuple_get_struct::<pg_sys::FormData_pg_class>(tuple));
        pg_sys::ReleaseSysCache(tuple);
        Some(value)
    }
}

/// Whether a relation has row level security enabled (`relrowsecurity`), from the catalog cache.
pub fn relation_row_security(relid: pg_sys::Oid) -> bool {
    class_field(relid, |class| class.relrowsecurity).unwrap_or(false)
}

/// The owner of a relation, from the catalog cache.
pub fn relation_owner(relid: pg_sys::Oid) -> Option<pg_sys::Oid> {
    class_field(relid, |class| class.relowner)
}

/// This backend's kept plans, all for one schema under one name, by where their statement's
/// text is and how long it is, and whether they were prepared to write (a statement that only
/// reads is prepared both ways when both a reader and a writer run it).
struct Plans {
    schema: ExtensionSchema,
    by_sql: HashMap<Key, Kept>,
}

/// A kept plan, and for a statement with a `/*citus:` condition ([`on_citus`]) whether it was
/// prepared with Citus in the database: such a plan is prepared again when Citus comes or goes.
/// Other statements never ask.
struct Kept {
    plan: Rc<OwnedPreparedStatement>,
    citus: Option<bool>,
    /// How often the plan has run, and after how many runs it is made again ([`REPLAN_FIRST`]).
    runs: u64,
    replan_at: u64,
}

/// After how many runs a kept plan is first made again; each time after that, twice as many.
///
/// PostgreSQL plans a kept statement for the tables as they are when it has run it often
/// enough to keep a generic plan: a lookup by key of a table that then held a few rows is a
/// sequential scan, which the backend keeps while the table grows (a hand's row among every
/// hand dealt since) until something invalidates the plan (an ANALYZE, which autovacuum may not
/// run for long). Made again after 16, 32, 64, ... runs in a backend, a plan follows the tables
/// as that backend's calls grow them, at a planning cost that grows as the logarithm of the runs.
const REPLAN_FIRST: u64 = 16;

/// A statement's text by its place in the program's read-only memory: its address and its
/// length, never the address alone (a statement may begin where another does, one a prefix of
/// the other, or a slice of a longer constant). A `&'static str` lives as long as the program
/// and its bytes never change, so the same address and length are the same bytes: two texts
/// that differ anywhere differ in one or the other, and cannot share a plan. Hashing the place
/// spares hashing the whole text on every call.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Key {
    address: usize,
    len: usize,
    writes: bool,
}

fn key(sql: &'static str, writes: bool) -> Key {
    Key {
        address: sql.as_ptr() as usize,
        len: sql.len(),
        writes,
    }
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
    writes: bool,
) -> Rc<OwnedPreparedStatement> {
    let mut replan_at = REPLAN_FIRST;
    let kept = PLANS.with_borrow_mut(|plans| match plans {
        Some(plans) if plans.schema == *schema => {
            let key = key(sql, writes);
            let kept = plans.by_sql.get_mut(&key)?;
            kept.runs += 1;
            let citus_changed = kept.citus.is_some_and(|c| c != crate::citus::present());
            if kept.runs > kept.replan_at || citus_changed {
                replan_at = kept.replan_at.saturating_mul(2);
                plans.by_sql.remove(&key);
                return None;
            }
            Some(kept.plan.clone())
        }
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
    let citus = sql.contains(CITUS).then(crate::citus::present);
    let text = on_citus(
        &sql.replace("@extschema@", &schema.quoted),
        citus.unwrap_or(false),
    );
    let types: Vec<PgOid> = args.iter().map(|a| PgOid::from(a.oid())).collect();
    let prepared = if writes {
        client.prepare_mut(&text, &types)
    } else {
        client.prepare(&text, &types)
    };
    let plan = Rc::new(
        prepared
            .unwrap_or_else(|e| failed("prepare a statement", e))
            .keep(),
    );
    PLANS.with_borrow_mut(|plans| {
        if let Some(plans) = plans.as_mut().filter(|p| p.schema == *schema) {
            let kept = Kept {
                plan: plan.clone(),
                citus,
                runs: 0,
                replan_at,
            };
            plans.by_sql.insert(key(sql, writes), kept);
        }
    });
    plan
}

/// Where a condition only Citus needs begins ([`on_citus`]).
const CITUS: &str = "/*citus:";

/// A statement's text as this database runs it: a comment `/*citus: ... */` is a condition
/// that only Citus needs, and becomes part of the statement in a database with Citus. Citus
/// sends a statement to one shard only when it names the distribution column's value as
/// `column = value`; a statement that reaches its rows through an array key alone
/// (`ARRAY[queue_id, track] = ARRAY[$1, $2]`) would run on every shard of its table, and a
/// worker running a call would become the coordinator of a distributed transaction. Without
/// Citus the condition stays a comment: the plain condition would let the planner take
/// another index on its leading column whatever the statistics say.
fn on_citus(text: &str, citus: bool) -> String {
    const OPEN: &str = CITUS;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let inner = &rest[start + OPEN.len()..];
        // An unclosed comment stays as it is: preparing the statement then fails on it.
        let Some(end) = inner.find("*/") else {
            out.push_str(&rest[start..]);
            return out;
        };
        if citus {
            out.push_str(&inner[..end]);
        }
        rest = &inner[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Runs `sql` (a statement written with `@extschema@` for the extension's schema and only
/// qualified names) with `args`, through this backend's kept plan. For statements that write or
/// lock rows: the transaction takes a transaction id, as any write does.
pub fn run<'conn>(
    client: &mut SpiClient<'conn>,
    schema: &ExtensionSchema,
    sql: &'static str,
    args: &[DatumWithOid],
) -> SpiTupleTable<'conn> {
    let plan = plan(client, schema, sql, args, true);
    crate::fair_unseen::own(|| client.update(&*plan, None, args))
        .unwrap_or_else(|e| failed("run a statement", e))
}

/// Runs `sql`, a statement that only reads, like [`run`] but read-only: it takes no
/// transaction id, so it runs in a READ ONLY transaction and on a hot standby too. A statement
/// is always run one way or always the other (its kept plan is prepared for one).
pub fn read<'conn>(
    client: &SpiClient<'conn>,
    schema: &ExtensionSchema,
    sql: &'static str,
    args: &[DatumWithOid],
) -> SpiTupleTable<'conn> {
    let plan = plan(client, schema, sql, args, false);
    crate::fair_unseen::own(|| client.select(&*plan, None, args))
        .unwrap_or_else(|e| failed("run a statement", e))
}

/// Reading a statement's result by column name.
pub trait Columns {
    /// The value of column `name`, none when it is NULL.
    fn value<T: FromDatum + IntoDatum>(&self, name: &str) -> Option<T>;

    /// The value of column `name`, which the statement never leaves NULL.
    fn required<T: FromDatum + IntoDatum>(&self, name: &str) -> T {
        self.value(name).unwrap_or_else(|| {
            pgrx::error!(
                "dealcards read NULL from column {name}, which its statement never leaves NULL"
            )
        })
    }
}

fn misread(name: &str, error: spi::SpiError) -> ! {
    pgrx::error!("dealcards could not read column {name} of its statement's result: {error}")
}

impl Columns for SpiTupleTable<'_> {
    fn value<T: FromDatum + IntoDatum>(&self, name: &str) -> Option<T> {
        self.get_by_name(name).unwrap_or_else(|e| misread(name, e))
    }
}

impl Columns for SpiHeapTupleData<'_> {
    fn value<T: FromDatum + IntoDatum>(&self, name: &str) -> Option<T> {
        self.get_by_name(name).unwrap_or_else(|e| misread(name, e))
    }
}

/// A column of a statement's result, its name resolved once for all the rows read from it.
pub struct Column {
    name: &'static str,
    ordinal: usize,
}

impl Column {
    /// The column `name` of `table`'s result: a column the statement does not have is a bug
    /// that raises at once.
    pub fn of(table: &SpiTupleTable<'_>, name: &'static str) -> Column {
        let ordinal = table
            .column_ordinal(name)
            .unwrap_or_else(|e| misread(name, e));
        Column { name, ordinal }
    }

    /// Its value in `row`, none when NULL (a wrong type raises).
    pub fn value<T: FromDatum + IntoDatum>(&self, row: &SpiHeapTupleData<'_>) -> Option<T> {
        row.get(self.ordinal)
            .unwrap_or_else(|e| misread(self.name, e))
    }

    /// Its value in `row`, which the statement never leaves NULL.
    pub fn required<T: FromDatum + IntoDatum>(&self, row: &SpiHeapTupleData<'_>) -> T {
        self.value(row).unwrap_or_else(|| {
            pgrx::error!(
                "dealcards read NULL from column {}, which its statement never leaves NULL",
                self.name
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{key, on_citus};

    /// A `/*citus:` comment is a condition with Citus and a comment without.
    #[test]
    fn citus_conditions_are_comments_without_citus() {
        let sql = "SELECT 1 WHERE a = $2 /*citus: AND q = $1 */ AND b = 2 /*citus:AND c*/";
        assert_eq!(on_citus(sql, false), "SELECT 1 WHERE a = $2  AND b = 2 ");
        assert_eq!(
            on_citus(sql, true),
            "SELECT 1 WHERE a = $2  AND q = $1  AND b = 2 AND c"
        );
        assert_eq!(on_citus("SELECT 1", true), "SELECT 1");
        assert_eq!(on_citus("SELECT 1 /*citus: x", true), "SELECT 1 /*citus: x");
    }

    /// A statement and a prefix of it begin at the same address: their keys differ by length.
    #[test]
    fn a_statement_and_its_prefix_have_their_own_plans() {
        const BOTH: &str = "SELECT 1 AS one; SELECT 2 AS two";
        let first: &'static str = &BOTH[..15];
        assert_eq!(BOTH.as_ptr(), first.as_ptr());
        assert_ne!(key(BOTH, false), key(first, false));
        assert_eq!(key(BOTH, false), key(BOTH, false));
        assert_ne!(key(BOTH, false), key(BOTH, true));
    }
}
