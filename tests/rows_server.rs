#![cfg(feature = "server_tests")]
//! The row aggregates' distributions on a real server, in a serial plan and in a forced
//! parallel one (Partial Aggregates in workers, merged by the leader): every group of a
//! `GROUP BY trial` is one independent sample, and the counts go through the chi-square tests
//! of crates/fairness against the exact distributions, for both forms of each aggregate (the
//! typed one over integer values, the polymorphic one over numeric values). A sampler written
//! in SQL with the weighted keys random() * weight is the negative control: the same test must
//! reject it.

mod server;

use dealcards_fairness::stats::{self, ChiSquare};

const ALPHA: f64 = 1e-4;

/// Settings of a serial plan, and of a parallel plan forced even on small tables. The tuples a
/// Gather passes up cost a little (parallel_tuple_cost 0.01, not 0): with them free, PostgreSQL
/// 18 plans the groups of a small table as a Sort in the workers and one GroupAggregate above
/// the Gather Merge, with no partial states to merge. Groups are sorted, not hashed: with a few
/// rows a group, one HashAggregate over the whole table costs about what partial ones and their
/// merge cost, and the planner's choice between them varies with ANALYZE's estimate of the
/// groups and the size it counts for a state (1 kB for internal, less for rows_agg_state).
const SERIAL: &str = "SET max_parallel_workers_per_gather = 0";
const PARALLEL: &str =
    "SET enable_hashagg = off; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0.01;
    SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
    DO $$ BEGIN PERFORM set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
        THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false); END $$";

/// An aggregate over `id` in both its forms: the typed one (integer values, state
/// rows_agg_state) and the polymorphic one (numeric values, state internal), as int[].
fn both_forms(aggregate: &str) -> [String; 2] {
    [
        aggregate.replace("{id}", "id"),
        format!("({})::int[]", aggregate.replace("{id}", "id::numeric")),
    ]
}

/// `trials` groups of the rows 0..n (row i with weight w[i]), stored so that each group's rows
/// lie far apart in the table: a parallel scan gives parts of every group to each worker.
fn setup(client: &mut postgres::Client, n: usize, trials: usize, weights: &[f64]) {
    let weights: Vec<String> = weights.iter().map(|w| w.to_string()).collect();
    client
        .batch_execute(&format!(
            "DROP TABLE IF EXISTS trials;
             CREATE TABLE trials AS
               SELECT t AS trial, i AS id, (ARRAY[{}]::float8[])[i + 1] AS weight
                 FROM generate_series(0, {}) i, generate_series(1, {trials}) t
                ORDER BY i, t;
             ANALYZE trials;",
            weights.join(","),
            n - 1
        ))
        .unwrap();
}

fn samples(client: &mut postgres::Client, plan: &str, aggregate: &str) -> Vec<Vec<i32>> {
    client.batch_execute(plan).unwrap();
    let query = format!("SELECT {aggregate} FROM trials GROUP BY trial");
    let explain: Vec<String> = client
        .query(&format!("EXPLAIN (COSTS OFF) {query}"), &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let parallel = explain.iter().any(|l| l.contains("Partial"));
    assert_eq!(
        parallel,
        plan == PARALLEL,
        "{plan} {aggregate}: {explain:#?}"
    );
    let rows = client.query(&query, &[]).unwrap();
    client.batch_execute("RESET ALL").unwrap();
    rows.iter().map(|r| r.get(0)).collect()
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

fn ordered(
    tuples: &[Vec<i32>],
    n: usize,
    k: usize,
    probability: impl Fn(&[i32]) -> f64,
) -> ChiSquare {
    let bins: usize = (n - k + 1..=n).product();
    let mut counts = vec![0u64; bins];
    let mut expected = vec![0.0; bins];
    for tuple in tuples {
        assert_eq!(tuple.len(), k, "{tuple:?}");
        counts[tuple_index(tuple, n)] += 1;
    }
    // Every possible tuple's probability, by enumeration.
    fn fill(t: usize, tuple: &mut Vec<i32>, n: usize, out: &mut dyn FnMut(&[i32])) {
        if t == tuple.len() {
            out(tuple);
            return;
        }
        for row in 0..n as i32 {
            if !tuple[..t].contains(&row) {
                tuple[t] = row;
                fill(t + 1, tuple, n, out);
            }
        }
    }
    fill(0, &mut vec![0; k], n, &mut |t| {
        expected[tuple_index(t, n)] = probability(t)
    });
    let (c, e): (Vec<u64>, Vec<f64>) = counts
        .iter()
        .zip(&expected)
        .filter(|(_, &e)| e > 0.0)
        .map(|(&c, &e)| (c, e))
        .unzip();
    assert_eq!(
        c.iter().sum::<u64>(),
        tuples.len() as u64,
        "an impossible tuple was drawn"
    );
    stats::chi_square_expected(&c, &e)
}

#[test]
fn uniform_samples_serial_and_parallel() {
    let mut client = server::fresh_database("dealcards_rows");
    client.batch_execute("CREATE EXTENSION dealcards").unwrap();
    // Ordered 3-tuples of 5 rows: inclusion, pairs and position at once (60 bins).
    setup(&mut client, 5, 30_000, &[1.0; 5]);
    for plan in [SERIAL, PARALLEL] {
        for aggregate in both_forms("sample_agg({id}, 3)") {
            let tuples = samples(&mut client, plan, &aggregate);
            let result = ordered(&tuples, 5, 3, |_| 1.0);
            assert!(result.p_value >= ALPHA, "{plan} {aggregate}: {result:?}");
        }
    }
    // Inclusion of each of 40 rows in samples of 5, as a rows x {in, out} matrix.
    setup(&mut client, 40, 5_000, &[1.0; 40]);
    for plan in [SERIAL, PARALLEL] {
        for aggregate in both_forms("sample_agg({id}, 5)") {
            let mut counts = vec![vec![0u64; 2]; 40];
            for sample in samples(&mut client, plan, &aggregate) {
                for row in 0..40 {
                    counts[row as usize][usize::from(!sample.contains(&row))] += 1;
                }
            }
            let result = stats::chi_square_matrix(&counts, &[5.0, 35.0]);
            assert!(result.p_value >= ALPHA, "{plan} {aggregate}: {result:?}");
        }
    }
    // Every order of 4 rows from shuffle_agg.
    setup(&mut client, 4, 24_000, &[1.0; 4]);
    for plan in [SERIAL, PARALLEL] {
        for aggregate in both_forms("shuffle_agg({id})") {
            let orders = samples(&mut client, plan, &aggregate);
            let result = ordered(&orders, 4, 4, |_| 1.0);
            assert!(result.p_value >= ALPHA, "{plan} {aggregate}: {result:?}");
        }
    }
}

const WEIGHTS: [f64; 5] = [1.0, 2.0, 3.0, 4.0, 0.0];

fn successive_draws(tuple: &[i32]) -> f64 {
    let mut left: f64 = WEIGHTS.iter().sum();
    let mut p = 1.0;
    for &row in tuple {
        p *= WEIGHTS[row as usize] / left;
        left -= WEIGHTS[row as usize];
    }
    p
}

#[test]
fn weighted_samples_and_resamples_serial_and_parallel() {
    let mut client = server::fresh_database("dealcards_rows_weighted");
    client.batch_execute("CREATE EXTENSION dealcards").unwrap();
    setup(&mut client, 5, 30_000, &WEIGHTS);
    for plan in [SERIAL, PARALLEL] {
        for aggregate in both_forms("sample_agg({id}, 2, weight)") {
            let pairs = samples(&mut client, plan, &aggregate);
            let result = ordered(&pairs, 5, 2, successive_draws);
            assert!(result.p_value >= ALPHA, "{plan} {aggregate}: {result:?}");
        }
    }
    // The negative control: keys random() * weight, the largest first.
    let broken = samples(
        &mut client,
        SERIAL,
        "(array_agg(id ORDER BY random() * weight DESC) FILTER (WHERE weight > 0))[1:2]",
    );
    let result = ordered(&broken, 5, 2, successive_draws);
    assert!(
        result.p_value < ALPHA,
        "random() * weight passed: {result:?}"
    );

    // With replacement: 2 independent draws, each proportional to weight (25 bins).
    for (plan, aggregate) in [SERIAL, PARALLEL]
        .into_iter()
        .flat_map(|plan| both_forms("resample_agg({id}, 2, weight)").map(|a| (plan, a)))
    {
        let mut counts = [0u64; 25];
        for draws in samples(&mut client, plan, &aggregate) {
            assert_eq!(draws.len(), 2);
            counts[draws[0] as usize * 5 + draws[1] as usize] += 1;
        }
        let expected: Vec<f64> = (0..25).map(|b| WEIGHTS[b / 5] * WEIGHTS[b % 5]).collect();
        let (c, e): (Vec<u64>, Vec<f64>) = counts
            .iter()
            .zip(&expected)
            .filter(|(_, &e)| e > 0.0)
            .map(|(&c, &e)| (c, e))
            .unzip();
        assert_eq!(c.iter().sum::<u64>(), 30_000, "a row of weight 0 was drawn");
        let result = stats::chi_square_expected(&c, &e);
        assert!(result.p_value >= ALPHA, "{plan} {aggregate}: {result:?}");
    }
}
