//! dealcards on a Citus cluster (a coordinator and two workers, scripts/citus_cluster.sh), through
//! real client connections: the extension reaches every worker, and the stateless functions
//! (shuffle_ints, shuffle_array, sample_ints, deal_hands, freecell_layout) run on the workers
//! inside distributed queries over a table with shards on both, the seeded ones giving on every
//! shard what they give on the coordinator.
//! Run by scripts/test_citus.sh (make test-citus), which starts the cluster and sets
//! DEALCARDS_CITUS_DSN (the coordinator) and DEALCARDS_CITUS_WORKER<n>_DSN (each worker), and
//! builds them with the feature citus_tests (the other server tests' runs leave this file out).
#![cfg(feature = "citus_tests")]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use postgres::{Client, NoTls};

/// Rows of the distributed test table: k = 1..ROWS.
const ROWS: i32 = 64;
/// Its name; the tests create it on the coordinator (dropped first if an earlier run left it).
const TABLE: &str = "citus_stateless_t";

/// The coordinator's connection string. (An Option for the callers' sake: it is always there.)
fn coordinator_dsn() -> Option<String> {
    Some(std::env::var("DEALCARDS_CITUS_DSN").unwrap_or_else(|_| {
        panic!("DEALCARDS_CITUS_DSN is not set: run these tests with scripts/test_citus.sh")
    }))
}

/// The workers' connection strings, DEALCARDS_CITUS_WORKER1_DSN, DEALCARDS_CITUS_WORKER2_DSN, ...
fn worker_dsns() -> Vec<String> {
    let dsns: Vec<String> = (1..)
        .map_while(|n| std::env::var(format!("DEALCARDS_CITUS_WORKER{n}_DSN")).ok())
        .collect();
    assert!(
        dsns.len() >= 2,
        "DEALCARDS_CITUS_WORKER1_DSN and DEALCARDS_CITUS_WORKER2_DSN must name the two workers"
    );
    dsns
}

fn connect_to(dsn: &str) -> Client {
    Client::connect(dsn, NoTls).unwrap_or_else(|e| panic!("cannot connect to {dsn}: {e}"))
}

/// One setting (port, host, ...) of a connection string.
fn setting(dsn: &str, name: &str) -> String {
    dsn.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("{name} missing from {dsn}"))
        .to_string()
}

/// The workers' ports, as the servers report them (inet_server_port()).
fn worker_ports() -> BTreeSet<i32> {
    worker_dsns()
        .iter()
        .map(|dsn| {
            connect_to(dsn)
                .query_one("SELECT inet_server_port()", &[])
                .unwrap()
                .get(0)
        })
        .collect()
}

/// A connection to the coordinator, where the distributed test table exists (created once per
/// run of this file) with rows k = 1..ROWS spread over both workers. None: skipped.
fn coordinator() -> Option<Client> {
    let dsn = coordinator_dsn()?;
    static TABLE_READY: OnceLock<()> = OnceLock::new();
    TABLE_READY.get_or_init(|| {
        let mut c = connect_to(&dsn);
        c.batch_execute(&format!(
            "SET client_min_messages = warning;
             DROP TABLE IF EXISTS {TABLE};
             CREATE TABLE {TABLE} (k int PRIMARY KEY, note text);
             SET citus.shard_count = 8;
             SELECT create_distributed_table('{TABLE}', 'k');
             INSERT INTO {TABLE} SELECT g, 'row ' || g FROM generate_series(1, {ROWS}) g;"
        ))
        .unwrap();
    });
    Some(connect_to(&dsn))
}

/// Runs `select` (which must return k and inet_server_port() first) over the distributed table
/// and checks that both workers answered, that no row was lost, and that the coordinator did
/// not answer for them. Returns the rows by k.
fn on_the_workers(c: &mut Client, select: &str) -> BTreeMap<i32, postgres::Row> {
    let coordinator_port: i32 = c
        .query_one("SELECT inet_server_port()", &[])
        .unwrap()
        .get(0);
    let rows = c
        .query(&format!("{select} FROM {TABLE}"), &[])
        .unwrap_or_else(|e| panic!("{select}: {e}"));
    let ports: BTreeSet<i32> = rows.iter().map(|r| r.get(1)).collect();
    assert!(
        !ports.contains(&coordinator_port),
        "{select}: rows computed on the coordinator"
    );
    assert_eq!(ports, worker_ports(), "{select}: not run on both workers");
    let by_k: BTreeMap<i32, postgres::Row> = rows.into_iter().map(|r| (r.get(0), r)).collect();
    assert_eq!(by_k.len(), ROWS as usize, "{select}: rows lost or doubled");
    by_k
}

/// The same expression of g evaluated by the coordinator itself (no distributed table), for
/// g = 1..ROWS.
fn on_the_coordinator<T: for<'a> postgres::types::FromSql<'a>>(
    c: &mut Client,
    expression_of_g: &str,
) -> BTreeMap<i32, T> {
    c.query(
        &format!("SELECT g, {expression_of_g} FROM generate_series(1, {ROWS}) g"),
        &[],
    )
    .unwrap()
    .into_iter()
    .map(|r| (r.get(0), r.get(1)))
    .collect()
}

fn is_permutation(values: &[i32], lo: i32, hi: i32) -> bool {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted == (lo..=hi).collect::<Vec<_>>()
}

#[test]
fn dealcards_reached_every_worker() {
    let Some(mut coordinator) = coordinator() else {
        return;
    };
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
    let Some(mut c) = coordinator() else { return };
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

#[test]
fn shuffle_ints_in_a_distributed_query() {
    let Some(mut c) = coordinator() else { return };
    // A constant seed: the same deck on every shard. (`54 + 0 * k` keeps the coordinator from
    // folding the call into a constant: each worker computes it.)
    let rows = on_the_workers(
        &mut c,
        "SELECT k, inet_server_port(), shuffle_ints(1, 54 + 0 * k, sha256('citus'::bytea))",
    );
    let reference: Vec<i32> = c
        .query_one("SELECT shuffle_ints(1, 54, sha256('citus'::bytea))", &[])
        .unwrap()
        .get(0);
    for (k, row) in &rows {
        assert_eq!(row.get::<_, Vec<i32>>(2), reference, "k = {k}");
    }
    // A seed per row: each shard gives what the coordinator gives for that seed.
    let rows = on_the_workers(
        &mut c,
        "SELECT k, inet_server_port(), shuffle_ints(1, 54, sha256(k::text::bytea))",
    );
    let local =
        on_the_coordinator::<Vec<i32>>(&mut c, "shuffle_ints(1, 54, sha256(g::text::bytea))");
    for (k, row) in &rows {
        assert_eq!(row.get::<_, Vec<i32>>(2), local[k], "k = {k}");
    }
    // No seed: valid permutations, different ones.
    let rows = on_the_workers(
        &mut c,
        "SELECT k, inet_server_port(), shuffle_ints(1, 54 + 0 * k)",
    );
    let decks: BTreeSet<Vec<i32>> = rows.values().map(|r| r.get(2)).collect();
    for deck in &decks {
        assert!(is_permutation(deck, 1, 54), "{deck:?}");
    }
    assert!(
        decks.len() > ROWS as usize - 2,
        "unseeded decks repeat: {} distinct",
        decks.len()
    );
}

#[test]
fn shuffle_array_in_a_distributed_query() {
    let Some(mut c) = coordinator() else { return };
    let seeded =
        "shuffle_array(ARRAY['a', 'b', 'c', 'd', 'e', 'f', 'row ' || K], sha256('array'::bytea))";
    let rows = on_the_workers(
        &mut c,
        &format!("SELECT k, inet_server_port(), {}", seeded.replace('K', "k")),
    );
    let local = on_the_coordinator::<Vec<String>>(&mut c, &seeded.replace('K', "g"));
    for (k, row) in &rows {
        assert_eq!(row.get::<_, Vec<String>>(2), local[k], "k = {k}");
    }
    let rows = on_the_workers(
        &mut c,
        "SELECT k, inet_server_port(), shuffle_array(ARRAY(SELECT generate_series(k, k + 53)))",
    );
    let mut orders = BTreeSet::new();
    for (k, row) in &rows {
        let shuffled: Vec<i32> = row.get(2);
        assert!(
            is_permutation(&shuffled, *k, k + 53),
            "k = {k}: {shuffled:?}"
        );
        orders.insert(shuffled.iter().map(|v| v - k).collect::<Vec<_>>());
    }
    assert!(
        orders.len() > ROWS as usize - 2,
        "unseeded orders repeat: {} distinct",
        orders.len()
    );
}

#[test]
fn sample_ints_in_a_distributed_query() {
    let Some(mut c) = coordinator() else { return };
    let rows = on_the_workers(
        &mut c,
        "SELECT k, inet_server_port(), sample_ints(1, 1000 + 0 * k, 10, sha256('sample'::bytea))",
    );
    let reference: Vec<i64> = c
        .query_one(
            "SELECT sample_ints(1, 1000, 10, sha256('sample'::bytea))",
            &[],
        )
        .unwrap()
        .get(0);
    for (k, row) in &rows {
        assert_eq!(row.get::<_, Vec<i64>>(2), reference, "k = {k}");
    }
    let rows = on_the_workers(
        &mut c,
        "SELECT k, inet_server_port(), sample_ints(k, k + 999, 10)",
    );
    for (k, row) in &rows {
        let sample: Vec<i64> = row.get(2);
        let distinct: BTreeSet<i64> = sample.iter().copied().collect();
        assert_eq!(distinct.len(), 10, "k = {k}: {sample:?}");
        let (lo, hi) = (i64::from(*k), i64::from(*k) + 999);
        assert!(
            sample.iter().all(|v| (lo..=hi).contains(v)),
            "k = {k}: {sample:?}"
        );
    }
}

#[test]
fn deal_hands_in_a_distributed_query() {
    let Some(mut c) = coordinator() else { return };
    // deal_hands joined laterally to each row: the workers deal, one deck per row. (An argument
    // of the row makes it a call per row; `deal_hands()` alone is one call per shard query.)
    let hands = c
        .query(
            &format!(
                "SELECT t.k, inet_server_port(), d.seat, d.cards
                   FROM {TABLE} t CROSS JOIN LATERAL deal_hands(3, 17, 54 + 0 * t.k) d"
            ),
            &[],
        )
        .unwrap();
    let ports: BTreeSet<i32> = hands.iter().map(|r| r.get(1)).collect();
    assert_eq!(
        ports,
        worker_ports(),
        "deal_hands did not run on both workers"
    );
    let mut by_k: BTreeMap<i32, BTreeMap<i32, Vec<i32>>> = BTreeMap::new();
    for row in &hands {
        by_k.entry(row.get(0))
            .or_default()
            .insert(row.get(2), row.get(3));
    }
    assert_eq!(by_k.len(), ROWS as usize);
    let mut decks = BTreeSet::new();
    for (k, seats) in &by_k {
        let sizes: Vec<(i32, usize)> = seats.iter().map(|(s, c)| (*s, c.len())).collect();
        assert_eq!(sizes, [(0, 3), (1, 17), (2, 17), (3, 17)], "k = {k}");
        let all: Vec<i32> = seats.values().flatten().copied().collect();
        assert!(
            is_permutation(&all, 1, 54),
            "k = {k}: hands overlap or miss cards"
        );
        decks.insert(all);
    }
    assert!(
        decks.len() > ROWS as usize - 2,
        "deals repeat: {} distinct",
        decks.len()
    );
}

#[test]
fn freecell_layout_in_a_distributed_query() {
    let Some(mut c) = coordinator() else { return };
    let rows = on_the_workers(&mut c, "SELECT k, inet_server_port(), freecell_layout(k)");
    let local = on_the_coordinator::<String>(&mut c, "freecell_layout(g)");
    for (k, row) in &rows {
        assert_eq!(row.get::<_, String>(2), local[k], "game {k}");
    }
}
