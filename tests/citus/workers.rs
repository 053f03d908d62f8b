//! dealcards is on every worker, and the distributed test table has shards on both.

use std::collections::{BTreeMap, BTreeSet};

use crate::cluster::{connect_to, setting, worker_dsns, worker_ports};
use crate::pure_functions::{coordinator, TABLE};

#[test]
fn dealcards_reached_every_worker() {
    let mut coordinator = coordinator();
    let version: String = coordinator
        .query_one(
            "SELECT extversion FROM pg_extension WHERE extname = 'dealcards'",
            &[],
        )
        .unwrap()
        .get(0);
    let seed = [7u8; 32];
    let reference: Vec<i32> = coordinator
        .query_one("SELECT shuffle_ints(1, 54, $1)", &[&&seed[..]])
        .unwrap()
        .get(0);
    for dsn in worker_dsns() {
        let mut worker = connect_to(&dsn);
        let rows = worker
            .query(
                "SELECT extversion FROM pg_extension WHERE extname = 'dealcards'",
                &[],
            )
            .unwrap();
        assert_eq!(rows.len(), 1, "dealcards is not installed on {dsn}");
        assert_eq!(rows[0].get::<_, String>(0), version, "on {dsn}");
        // The library loads there, and draws what the coordinator draws from the same seed.
        let drawn: Vec<i32> = worker
            .query_one("SELECT shuffle_ints(1, 54, $1)", &[&&seed[..]])
            .unwrap()
            .get(0);
        assert_eq!(drawn, reference, "seeded shuffle_ints differs on {dsn}");
    }
}

#[test]
fn the_test_table_has_shards_on_both_workers() {
    let mut c = coordinator();
    let placed: BTreeSet<i32> = c
        .query(
            "SELECT DISTINCT n.nodeport
               FROM pg_dist_shard s
               JOIN pg_dist_placement p USING (shardid)
               JOIN pg_dist_node n USING (groupid)
              WHERE s.logicalrelid = $1::text::regclass",
            &[&TABLE],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let workers: BTreeSet<i32> = worker_dsns()
        .iter()
        .map(|d| setting(d, "port").parse().unwrap())
        .collect();
    assert_eq!(placed, workers, "placements of {TABLE}");
    // citus_shards agrees, and each worker holds rows.
    let rows_by_port: BTreeMap<i32, i64> = c
        .query(
            &format!("SELECT inet_server_port(), count(*) FROM {TABLE} GROUP BY 1"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(
        rows_by_port.keys().copied().collect::<BTreeSet<_>>(),
        worker_ports()
    );
    let in_citus_shards: BTreeSet<i32> = c
        .query(
            "SELECT DISTINCT nodeport FROM citus_shards WHERE table_name = $1::text::regclass",
            &[&TABLE],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(in_citus_shards, workers);
}

/// An index typed on a worker, on its copy of one of the extension's tables, is refused there:
/// by Citus itself while the table is distributed ("operation is not allowed on this node"),
/// by the extension's guard otherwise, as on any server (pg_dump of that node would not keep
/// it; docs/operations.md). What the coordinator sends its workers passes (the distributed
/// update test shows the update's indexes reaching every shard).
#[test]
fn an_index_typed_on_a_worker_on_an_extension_table_is_refused() {
    for dsn in worker_dsns() {
        let mut worker = connect_to(&dsn);
        let error = worker
            .batch_execute("CREATE INDEX own_on_worker ON game (dealt_at)")
            .unwrap_err();
        let db = error
            .as_db_error()
            .unwrap_or_else(|| panic!("{dsn}: {error}"));
        let by_citus = db
            .message()
            .contains("operation is not allowed on this node");
        let by_guard =
            db.code().code() == "0A000" && db.message().contains("index own_on_worker on game");
        assert!(
            by_citus || by_guard,
            "{dsn}: {} {}",
            db.code().code(),
            db.message()
        );
        let left: i64 = worker
            .query_one(
                "SELECT count(*) FROM pg_class WHERE relname = 'own_on_worker'",
                &[],
            )
            .unwrap()
            .get(0);
        assert_eq!(left, 0, "{dsn}");
    }
}
