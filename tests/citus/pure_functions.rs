//! The stateless functions (shuffle_ints, shuffle_array, sample_ints, deal_hands,
//! freecell_layout) run on the workers inside distributed queries over a table with shards on
//! both, the seeded ones giving on every shard what they give on the coordinator.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use postgres::Client;

use crate::cluster::{connect_to, coordinator_dsn, worker_ports};
use crate::desks::is_permutation;

/// Rows of the distributed test table: k = 1..ROWS.
pub const ROWS: i32 = 64;
/// Its name; the tests create it on the coordinator (dropped first if an earlier run left it).
pub const TABLE: &str = "citus_stateless_t";

/// A connection to the coordinator, where the distributed test table exists (created once per
/// run of this file) with rows k = 1..ROWS spread over both workers.
pub fn coordinator() -> Client {
    let dsn = coordinator_dsn();
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
    connect_to(&dsn)
}

/// Runs `select` (which must return k and inet_server_port() first) over the distributed table
/// and checks that both workers answered, that no row was lost, and that the coordinator did
/// not answer for them. Returns the rows by k.
pub fn on_the_workers(c: &mut Client, select: &str) -> BTreeMap<i32, postgres::Row> {
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

/// Evaluates `expression` (of the row's key, written `{k}`) on the workers, a row at a time
/// ([`on_the_workers`]), checks that each row gives what the coordinator itself gives for the
/// same key (no distributed table), and returns the workers' values by key.
pub fn workers_agree_with_the_coordinator<T>(c: &mut Client, expression: &str) -> BTreeMap<i32, T>
where
    T: for<'a> postgres::types::FromSql<'a> + PartialEq + std::fmt::Debug,
{
    let rows = on_the_workers(
        c,
        &format!(
            "SELECT k, inet_server_port(), {}",
            expression.replace("{k}", "k")
        ),
    );
    let local: BTreeMap<i32, T> = c
        .query(
            &format!(
                "SELECT g, {} FROM generate_series(1, {ROWS}) g",
                expression.replace("{k}", "g")
            ),
            &[],
        )
        .unwrap()
        .into_iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    rows.iter()
        .map(|(k, row)| {
            let value: T = row.get(2);
            assert_eq!(value, local[k], "{expression}, k = {k}");
            (*k, value)
        })
        .collect()
}

#[test]
fn shuffle_ints_in_a_distributed_query() {
    let mut c = coordinator();
    // A constant seed: the same deck on every shard. (`54 + 0 * k` keeps the coordinator from
    // folding the call into a constant: each worker computes it.)
    let decks = workers_agree_with_the_coordinator::<Vec<i32>>(
        &mut c,
        "shuffle_ints(1, 54 + 0 * {k}, sha256('citus'::bytea))",
    );
    assert_eq!(
        decks.values().collect::<BTreeSet<_>>().len(),
        1,
        "one seed, one deck"
    );
    // A seed per row: each shard gives what the coordinator gives for that seed.
    workers_agree_with_the_coordinator::<Vec<i32>>(
        &mut c,
        "shuffle_ints(1, 54, sha256({k}::text::bytea))",
    );
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
    let mut c = coordinator();
    workers_agree_with_the_coordinator::<Vec<String>>(
        &mut c,
        "shuffle_array(ARRAY['a', 'b', 'c', 'd', 'e', 'f', 'row ' || {k}], sha256('array'::bytea))",
    );
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
    let mut c = coordinator();
    let samples = workers_agree_with_the_coordinator::<Vec<i64>>(
        &mut c,
        "sample_ints(1, 1000 + 0 * {k}, 10, sha256('sample'::bytea))",
    );
    assert_eq!(
        samples.values().collect::<BTreeSet<_>>().len(),
        1,
        "one seed, one sample"
    );
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
    let mut c = coordinator();
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
    let mut c = coordinator();
    workers_agree_with_the_coordinator::<String>(&mut c, "freecell_layout({k})");
}
