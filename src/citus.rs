//! Citus, the distributed engine for PostgreSQL: what dealcards does differently on a cluster.
//!
//! `dealcards_distribute()` (sql/install/citus.sql) distributes the extension's tables by desk and by
//! queue and sends each call of the functions that touch them to the worker that holds the
//! shard. There each statement must name one shard, so `deal_cards` writes one table at a time
//! (a statement with INSERT CTEs cannot be routed to one shard), and ids are numbered in ranges
//! of their own on each node, as Citus numbers its own sequences: the node's group id times
//! 2^48 plus the node's local sequence. Game, note and queue ids so never meet, on any node,
//! after any shard move or rebalance. On a server without Citus, the base is 0 and nothing
//! changes.

use std::cell::Cell;

use pgrx::spi::SpiClient;
use pgrx::{extension_sql_file, pg_sys};

use crate::statements::{self, Columns, ExtensionSchema};

extension_sql_file!(
    "../sql/install/citus.sql",
    name = "citus",
    requires = ["dealing_tables", "playlist_tables", "fair_tables"]
);

/// Whether Citus is installed in this database (its metadata table exists): two catalog cache
/// lookups.
pub fn present() -> bool {
    // SAFETY: a catalog cache lookup by NUL-terminated name in pg_catalog.
    unsafe {
        pg_sys::get_relname_relid(
            c"pg_dist_partition".as_ptr(),
            pg_sys::Oid::from(pg_sys::PG_CATALOG_NAMESPACE),
        ) != pg_sys::InvalidOid
    }
}

thread_local! {
    /// This node's id base, once read on a Citus node (a node's group id never changes).
    static ID_BASE: Cell<Option<i64>> = const { Cell::new(None) };
}

/// The first id of this node's range: its Citus group id times 2^48 (0 on the coordinator, and
/// on a server without Citus).
pub fn id_base(client: &mut SpiClient<'_>, schema: &ExtensionSchema) -> i64 {
    if let Some(base) = ID_BASE.get() {
        return base;
    }
    if !present() {
        return 0;
    }
    let base = {
        let group = statements::read(
            client,
            schema,
            "SELECT groupid FROM pg_catalog.pg_dist_local_group",
            &[],
        );
        let group = if group.is_empty() {
            0
        } else {
            group.first().required::<i32>("groupid")
        };
        i64::from(group.max(0)) << 48
    };
    ID_BASE.set(Some(base));
    base
}
