//! The statements of a try (a TABLESAMPLE sparse_bernoulli read, or the whole table), prepared
//! once per backend, relation and mode, and kept.

use super::*;

/// The statement a try runs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) enum Mode {
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
    pub(super) fn of(scan: bool, seeded: bool) -> Mode {
        match (scan, seeded) {
            (false, false) => Mode::Sample,
            (false, true) => Mode::SeededSample,
            (true, false) => Mode::Scan,
            (true, true) => Mode::SeededScan,
        }
    }

    /// The parameters of a try at `rate`, under the try's key and REPEATABLE value if seeded.
    pub(super) fn params(self, rate: f64, try_key: Option<([u8; SEED_LEN], f64)>) -> Vec<Datum> {
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
pub(super) struct Prepared {
    pub(super) query: String,
    pub(super) plan: pg_sys::SPIPlanPtr,
}

/// A C string of the catalog as an owned string ("" for NULL).
pub(super) unsafe fn owned(name: *const c_char) -> String {
    if name.is_null() {
        return String::new();
    }
    // SAFETY: a NUL-terminated name from the catalog caches.
    unsafe { CStr::from_ptr(name).to_string_lossy().into_owned() }
}

/// An identifier quoted as PostgreSQL quotes it.
pub(super) unsafe fn quoted(name: *const c_char) -> String {
    // SAFETY: quote_identifier takes and returns NUL-terminated names.
    unsafe { owned(pg_sys::quote_identifier(name)) }
}

/// The relation's schema-qualified name and an alias for its rows that no column has.
pub(super) unsafe fn names(relid: pg_sys::Oid) -> (String, String) {
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
pub(super) fn statement(
    mode: Mode,
    schema: &str,
    name: &str,
    alias: &str,
) -> (String, Vec<pg_sys::Oid>) {
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
pub(super) unsafe fn prepared(
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
