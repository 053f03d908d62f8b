//! The row aggregates on a distributed table. The typed forms (integer values here) run on the
//! workers: the coordinator sends each shard `worker_partial_agg(...)`, each shard returns one
//! row, its partial state of a few values, and the coordinator merges them
//! (`coord_combine_agg`); the polymorphic forms (numeric values) bring every row to the
//! coordinator. Both give exact samples: the seeded ones equal a plain table's of the same rows,
//! and the distribution tests of the parallel plans (tests/rows_server.rs) hold over groups
//! whose rows are spread over every shard, with the same negative control.

use std::collections::BTreeSet;

use dealcards_fairness::stats::{self, ChiSquare};

use crate::cluster::{connect_to, node_dsn};
use crate::pure_functions::coordinator;
use crate::trace::{remote_commands, traced_coordinator};

/// The tables of the two tests (which run at once).
const PUSHDOWN: &str = "citus_rows_pushdown";
const TRIALS: &str = "citus_rows_trials";
const SEED: &str = "decode(repeat('00', 32), 'hex')";
const SHARDS: usize = 8;
const ALPHA: f64 = 1e-4;
/// Row i's weight.
const WEIGHTS: [f64; 5] = [1.0, 2.0, 3.0, 4.0, 0.0];

/// The distributed table: `trials` groups of the rows 0..5 (row i of weight WEIGHTS[i]),
/// distributed by a column of their own so every group is spread over the shards; and the same
/// rows in a plain table.
fn tables(table: &str, trials: i32) {
    let mut c = coordinator();
    c.batch_execute(&format!(
        "SET client_min_messages = warning;
         DROP TABLE IF EXISTS {table}, {table}_plain;
         CREATE TABLE {table} (n serial, trial int, id int, weight float8);
         SET citus.shard_count = {SHARDS};
         SELECT create_distributed_table('{table}', 'n');
         INSERT INTO {table} (trial, id, weight)
           SELECT t, i, (ARRAY[1, 2, 3, 4, 0])[i + 1]
             FROM generate_series(1, {trials}) t, generate_series(0, 4) i;
         CREATE TABLE {table}_plain AS SELECT trial, id, weight FROM {table};"
    ))
    .unwrap();
}

fn drop_tables(table: &str) {
    coordinator()
        .batch_execute(&format!("DROP TABLE {table}, {table}_plain"))
        .unwrap();
}

/// What the workers return for `aggregate` over the table: for each command the coordinator
/// sent (its text, its worker's port), the rows that command returns when run again on that
/// worker, as the length of each value's text.
fn worker_rows(aggregate: &str) -> Vec<(String, Vec<i32>)> {
    let (mut traced, notices) = traced_coordinator();
    let commands = remote_commands(&notices, || {
        traced
            .query_one(&format!("SELECT {aggregate} FROM {PUSHDOWN}"), &[])
            .unwrap();
    });
    let selects: Vec<&(String, i32)> = commands
        .iter()
        .filter(|(command, _)| command.starts_with("SELECT"))
        .collect();
    assert_eq!(selects.len(), SHARDS, "{aggregate}: {commands:#?}");
    let ports: BTreeSet<i32> = selects.iter().map(|(_, port)| *port).collect();
    assert!(ports.len() >= 2, "not sent to both workers: {commands:#?}");
    selects
        .iter()
        .map(|(command, port)| {
            let command = command.trim_end_matches(';');
            let lengths = connect_to(&node_dsn(*port))
                .query(
                    &format!("SELECT length(w::text)::int FROM ({command}) shard (w)"),
                    &[],
                )
                .unwrap_or_else(|e| panic!("{command}: {e}"))
                .iter()
                .map(|r| r.get(0))
                .collect();
            (command.to_string(), lengths)
        })
        .collect()
}

#[test]
fn typed_row_aggregates_run_on_the_workers() {
    let _topology = crate::cluster::same_topology();
    tables(PUSHDOWN, 2_000);
    let mut c = coordinator();
    for aggregate in [
        "sample_agg(id, 3)",
        "sample_agg(id, 3, weight)",
        "resample_agg(id, 3)",
        "resample_agg(id::bigint, 3, weight)",
        "sample_agg_seeded(id::text, 3, SEED)",
        "shuffle_agg(id)",
        "shuffle_agg_seeded(id::smallint, SEED)",
    ] {
        let aggregate = aggregate.replace("SEED", SEED);
        let plan: Vec<String> = c
            .query(
                &format!("EXPLAIN (VERBOSE, COSTS OFF) SELECT {aggregate} FROM {PUSHDOWN}"),
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let plan = plan.join("\n");
        assert!(
            plan.contains("coord_combine_agg") && plan.contains("worker_partial_agg"),
            "{aggregate}: {plan}"
        );
        let shards = worker_rows(&aggregate);
        for (command, lengths) in &shards {
            assert!(command.contains("worker_partial_agg("), "{command}");
            // One partial state per shard; a sample's holds its 3 values (about 170 hex digits).
            assert_eq!(lengths.len(), 1, "{command}: {lengths:?}");
            if !aggregate.starts_with("shuffle") {
                assert!(lengths[0] < 400, "{command}: {lengths:?}");
            }
        }
    }
    // The polymorphic form: every row goes to the coordinator.
    let shards = worker_rows("sample_agg(id::numeric, 3)");
    let rows: usize = shards.iter().map(|(_, lengths)| lengths.len()).sum();
    assert_eq!(rows, 10_000, "{shards:#?}");
    assert!(shards
        .iter()
        .all(|(command, _)| !command.contains("worker_partial_agg")));

    // Whole rows through their key (docs/rows.md).
    let sampled: Vec<i32> = c
        .query(
            &format!(
                "SELECT n FROM {PUSHDOWN} WHERE n IN (SELECT unnest(s) FROM (SELECT sample_agg(n, 10) AS s FROM {PUSHDOWN}) sample)"
            ),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(sampled.len(), 10, "{sampled:?}");
    drop_tables(PUSHDOWN);
}

/// The rank of an ordered tuple of distinct rows of 0..n among all n!/(n-k)! of them.
fn tuple_index(tuple: &[i32], n: usize) -> usize {
    let mut remaining: Vec<i32> = (0..n as i32).collect();
    let mut index = 0;
    for (t, row) in tuple.iter().enumerate() {
        let at = remaining.iter().position(|r| r == row).unwrap();
        remaining.remove(at);
        index = index * (n - t) + at;
    }
    index
}

/// The chi-square test of ordered k-tuples of distinct rows of 0..n against the exact
/// probability of each (enumerated); impossible tuples must never come.
fn ordered(
    tuples: &[Vec<i32>],
    n: usize,
    k: usize,
    probability: impl Fn(&[i32]) -> f64,
) -> ChiSquare {
    let bins: usize = (n - k + 1..=n).product();
    let (mut counts, mut expected) = (vec![0u64; bins], vec![0.0; bins]);
    for tuple in tuples {
        assert_eq!(tuple.len(), k, "{tuple:?}");
        counts[tuple_index(tuple, n)] += 1;
    }
    let mut stack = vec![Vec::new()];
    while let Some(tuple) = stack.pop() {
        if tuple.len() == k {
            expected[tuple_index(&tuple, n)] = probability(&tuple);
            continue;
        }
        for row in (0..n as i32).filter(|r| !tuple.contains(r)) {
            let mut longer = tuple.clone();
            longer.push(row);
            stack.push(longer);
        }
    }
    let (c, e): (Vec<u64>, Vec<f64>) = counts
        .iter()
        .zip(&expected)
        .filter(|(_, &e)| e > 0.0)
        .map(|(&c, &e)| (c, e))
        .unzip();
    assert_eq!(
        c.iter().sum::<u64>(),
        tuples.len() as u64,
        "an impossible tuple"
    );
    stats::chi_square_expected(&c, &e)
}

/// Successive draws without replacement, each proportional to weight.
fn successive_draws(tuple: &[i32]) -> f64 {
    let mut left: f64 = WEIGHTS.iter().sum();
    let mut p = 1.0;
    for &row in tuple {
        p *= WEIGHTS[row as usize] / left;
        left -= WEIGHTS[row as usize];
    }
    p
}

fn per_trial(c: &mut postgres::Client, aggregate: &str) -> Vec<Vec<i32>> {
    c.query(
        &format!("SELECT {aggregate} FROM {TRIALS} GROUP BY trial"),
        &[],
    )
    .unwrap()
    .iter()
    .map(|r| r.get(0))
    .collect()
}

#[test]
fn row_aggregates_over_every_shard_are_exact_and_uniform() {
    let _topology = crate::cluster::same_topology();
    tables(TRIALS, 12_000);
    let mut c = coordinator();
    // The seeded samples, whatever the shards: as on a plain table of the same rows.
    for aggregate in [
        format!("sample_agg_seeded(trial * 10 + id, 7, {SEED})"),
        format!("(shuffle_agg_seeded(trial * 10 + id, {SEED}))[1:7]"),
        format!("sample_agg_seeded((trial * 10 + id)::numeric, 7, {SEED})::int[]"),
    ] {
        let distributed: Vec<i32> = c
            .query_one(&format!("SELECT {aggregate} FROM {TRIALS}"), &[])
            .unwrap()
            .get(0);
        let plain: Vec<i32> = c
            .query_one(&format!("SELECT {aggregate} FROM {TRIALS}_plain"), &[])
            .unwrap()
            .get(0);
        assert_eq!(distributed, plain, "{aggregate}");
    }

    // Samples of 3 of 5 per group, over groups spread on every shard: the 60 ordered triples
    // equally often, in both forms (the typed one merged from the shards' partial states).
    for aggregate in ["sample_agg(id, 3)", "sample_agg(id::numeric, 3)::int[]"] {
        let triples = per_trial(&mut c, aggregate);
        assert_eq!(triples.len(), 12_000);
        let result = ordered(&triples, 5, 3, |_| 1.0);
        assert!(result.p_value >= ALPHA, "{aggregate}: {result:?}");
    }
    // Weighted pairs: successive draws proportional to 1 : 2 : 3 : 4 : 0.
    let pairs = per_trial(&mut c, "sample_agg(id, 2, weight)");
    let result = ordered(&pairs, 5, 2, successive_draws);
    assert!(result.p_value >= ALPHA, "weighted: {result:?}");
    // The negative control: keys random() * weight, the largest first.
    let broken = per_trial(
        &mut c,
        "(array_agg(id ORDER BY random() * weight DESC) FILTER (WHERE weight > 0))[1:2]",
    );
    let result = ordered(&broken, 5, 2, successive_draws);
    assert!(
        result.p_value < ALPHA,
        "random() * weight passed: {result:?}"
    );
    // Every order of the rows 0..4.
    let orders = per_trial(&mut c, "shuffle_agg(id) FILTER (WHERE id < 4)");
    let result = ordered(&orders, 4, 4, |_| 1.0);
    assert!(result.p_value >= ALPHA, "shuffle: {result:?}");
    // With replacement: two independent draws, each proportional to weight.
    let mut counts = [0u64; 25];
    for draws in per_trial(&mut c, "resample_agg(id, 2, weight)") {
        counts[draws[0] as usize * 5 + draws[1] as usize] += 1;
    }
    let expected: Vec<f64> = (0..25).map(|b| WEIGHTS[b / 5] * WEIGHTS[b % 5]).collect();
    let (c_, e): (Vec<u64>, Vec<f64>) = counts
        .iter()
        .zip(&expected)
        .filter(|(_, &e)| e > 0.0)
        .map(|(&c, &e)| (c, e))
        .unzip();
    assert_eq!(
        c_.iter().sum::<u64>(),
        12_000,
        "a row of weight 0 was drawn"
    );
    let result = stats::chi_square_expected(&c_, &e);
    assert!(result.p_value >= ALPHA, "resample: {result:?}");
    drop_tables(TRIALS);
}
