//! Random rows of a distributed table, over the cluster's shard count (citus.shard_count, 32
//! unless set): `TABLESAMPLE sparse_bernoulli (p)` and `sample_rows(relation, k)` are pushed to
//! every shard (the sample clause in each shard's query, no worker_partial_agg) and give exact
//! samples there: the inclusion tests of tests/rows_fairness.rs (crates/fairness, rows.rs), on
//! fewer samples, over rows spread on every shard with rows deleted and updated on the shards;
//! sample_rows returns exactly k rows. TABLESAMPLE SYSTEM on the same table is the negative
//! control (whole pages of each shard): it fails by pairs of one page.
//!
//! Fixed seeds (REPEATABLE, and sample_rows' seed), and a test passes at p >= 1e-7: a correct
//! sampler fails one of these tests for a given set of seeds with a chance of about 1e-7.

use std::collections::BTreeMap;

use dealcards_fairness::rows::{
    create_table, pairs_rows, uneven_rows, BernoulliSamples, Layout, RowOutcome, SubsetSamples,
};
use dealcards_fairness::stats::ChiSquare;

use crate::pure_functions::coordinator;
use crate::trace::{remote_commands, traced_coordinator};

const UNEVEN: &str = "citus_rows_fair";
/// Tables too large for sample_rows of up to 50 rows to read whole ([`many`]).
const MANY: &str = "citus_rows_many";
const PAIRS: &str = "citus_rows_fair_pairs";
const ALPHA: f64 = 1e-7;
const PERCENT: f64 = 20.0;

fn passes(result: &ChiSquare) -> bool {
    passes_p(result.p_value)
}

fn assert_all_pass(what: &str, outcomes: &[RowOutcome]) {
    for outcome in outcomes {
        assert!(
            passes(&outcome.result),
            "{what}: {outcome:?}\n{outcomes:#?}"
        );
    }
}

/// The cluster's shard count for a new distributed table.
fn shard_count(c: &mut postgres::Client) -> i64 {
    let count: String = c
        .query_one("SELECT current_setting('citus.shard_count')", &[])
        .unwrap()
        .get(0);
    count.parse().unwrap()
}

/// `table` distributed by id (the cluster's shard count), then filled by `rows` through the
/// coordinator: the deletes and updates happen on the shards. Returns where its visible rows
/// are: a page is named by its shard and block.
/// One at a time: dropping and distributing tables at once can deadlock on Citus's metadata.
static SETUP: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn distributed(c: &mut postgres::Client, table: &str, rows: &str) -> Layout {
    let _setup = SETUP.lock().unwrap_or_else(|e| e.into_inner());
    c.batch_execute(&format!(
        "SET client_min_messages = warning;
         {}
         SELECT create_distributed_table('{table}', 'id');
         {rows}",
        create_table(table, false)
    ))
    .unwrap();
    let shards: i64 = c
        .query_one(
            &format!("SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = '{table}'::regclass"),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(shards, shard_count(c), "{table}");
    let rows: Vec<(i32, String, u32)> = c
        .query(
            &format!(
                "SELECT id, tableoid::regclass::text || ':' || (ctid::text::point)[0]::text,
                        (ctid::text::point)[1]::int FROM {table}"
            ),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get::<_, i32>(2) as u32))
        .collect();
    let layout = Layout::new(rows).unwrap();
    // The rows are spread over (nearly) every shard.
    let shards_used: std::collections::BTreeSet<&str> = (0..layout.pages())
        .map(|p| layout.page_name(p).split(':').next().unwrap())
        .collect();
    assert!(
        (layout.len() as i64) < 4 * shards || shards_used.len() as i64 >= shards / 2,
        "{table}: rows in {shards_used:?}"
    );
    layout
}

/// A table `name` ([`MANY`] and a suffix): 200,000 narrow rows over every shard (about 1,100
/// pages), three in four of them deleted, and not vacuumed, on every other shard, so that half
/// the shards hold a quarter of the rows of the others on as many pages. Its visible rows by
/// shard.
fn many(c: &mut postgres::Client, name: &str) -> BTreeMap<i64, i64> {
    // A shard holds a range of hashint4(id), each 2^32 / shards wide from -2^31 (the ranges
    // create_distributed_table gives): every other range is thinned, by a function the
    // workers may run on a DELETE (get_shard_id_for_distribution_column is volatile).
    let width = (1i64 << 32) / shard_count(c);
    {
        let _setup = SETUP.lock().unwrap_or_else(|e| e.into_inner());
        c.batch_execute(&format!(
            "SET client_min_messages = warning;
             {}
             SELECT create_distributed_table('{name}', 'id');
             INSERT INTO {name} SELECT 1, i, '' FROM generate_series(1, 200000) i;
             DELETE FROM {name}
              WHERE ((hashint4(id)::bigint + 2147483648) / {width}) % 2 = 0 AND id % 4 <> 0;",
            create_table(name, false)
        ))
        .unwrap();
    }
    let shares: BTreeMap<i64, i64> = c
        .query(
            &format!(
                "SELECT get_shard_id_for_distribution_column('{name}', id), count(*)
                   FROM {name} GROUP BY 1"
            ),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(shares.len() as i64, shard_count(c), "{shares:?}");
    let (fewest, most) = (shares.values().min(), shares.values().max());
    assert!(
        fewest.zip(most).is_some_and(|(f, m)| 3 * f < *m),
        "{shares:?}"
    );
    shares
}

/// The chi-square test of the shards' counts in `drawn` (a shard's id for each row drawn)
/// against their shares of the rows.
fn shard_shares_pass(shares: &BTreeMap<i64, i64>, drawn: &[i64]) -> bool {
    let mut counts: BTreeMap<i64, u64> = shares.keys().map(|&s| (s, 0)).collect();
    for shard in drawn {
        *counts.get_mut(shard).expect("a shard of the table") += 1;
    }
    let counts: Vec<u64> = counts.into_values().collect();
    let weights: Vec<f64> = shares.values().map(|&rows| rows as f64).collect();
    let p_value = dealcards_fairness::stats::chi_square_expected(&counts, &weights).p_value;
    eprintln!("{} rows drawn by shard: p = {p_value}", drawn.len());
    passes_p(p_value)
}

fn passes_p(p_value: f64) -> bool {
    p_value >= ALPHA
}

fn bernoulli(
    c: &mut postgres::Client,
    layout: &Layout,
    query: &str,
    trials: u32,
) -> BernoulliSamples {
    let mut samples = BernoulliSamples::new(layout.clone(), PERCENT / 100.0);
    let statement = c.prepare(query).unwrap();
    for seed in 1..=trials {
        let ids: Vec<i32> = c
            .query(&statement, &[&(seed as f64)])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        samples
            .record(&ids)
            .unwrap_or_else(|e| panic!("{query}: {e}"));
    }
    samples
}

fn seed(trial: u32) -> Vec<u8> {
    let mut seed = vec![0u8; 32];
    seed[..4].copy_from_slice(&trial.to_le_bytes());
    seed
}

fn subsets(
    c: &mut postgres::Client,
    table: &str,
    layout: &Layout,
    k: usize,
    trials: u32,
) -> SubsetSamples {
    let mut samples = SubsetSamples::new(layout.clone(), k);
    let query = format!("SELECT id FROM sample_rows(NULL::{table}, {k}, $1)");
    let statement = c.prepare(&query).unwrap();
    for trial in 1..=trials {
        let ids: Vec<i32> = c
            .query(&statement, &[&seed(trial)])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        samples
            .record(&ids)
            .unwrap_or_else(|e| panic!("{query}: {e}"));
    }
    samples
}

#[test]
fn the_sample_clause_runs_on_every_shard() {
    let _topology = crate::cluster::same_topology();
    let mut c = coordinator();
    distributed(&mut c, UNEVEN, &uneven_rows(UNEVEN));
    let shards = shard_count(&mut c);
    let plan: Vec<String> = c
        .query(
            &format!(
                "EXPLAIN (VERBOSE, COSTS OFF)
                 SELECT id FROM {UNEVEN} TABLESAMPLE sparse_bernoulli (1) REPEATABLE (7)"
            ),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let plan = plan.join("\n");
    assert!(plan.contains(&format!("Task Count: {shards}")), "{plan}");
    assert!(
        plan.contains("TABLESAMPLE public.sparse_bernoulli") && plan.contains("Sample Scan on"),
        "{plan}"
    );
    assert!(!plan.contains("worker_partial_agg"), "{plan}");

    // What sample_rows sends on a table too large to read whole: one query a shard, each with
    // the sample clause, no partial aggregate; and exactly k rows back. (A table of a few pages,
    // as the one above, it reads whole: tests/citus/row_fairness.rs's exact samples of it.)
    let table = format!("{MANY}_1");
    many(&mut c, &table);
    let (mut traced, notices) = traced_coordinator();
    for k in [0, 1, 10, 50] {
        let mut got = 0;
        let commands = remote_commands(&notices, || {
            got = traced
                .query(
                    &format!("SELECT id FROM sample_rows(NULL::{table}, {k})"),
                    &[],
                )
                .unwrap()
                .len();
        });
        assert_eq!(got, k, "sample_rows(NULL::{table}, {k})");
        if k == 0 {
            continue;
        }
        let samples: Vec<&String> = commands
            .iter()
            .map(|(command, _)| command)
            .filter(|command| command.contains("TABLESAMPLE"))
            .collect();
        assert!(
            samples.len() as i64 >= shards
                && samples
                    .iter()
                    .all(|command| command.contains("sparse_bernoulli")),
            "{commands:#?}"
        );
        assert!(
            commands
                .iter()
                .all(|(command, _)| !command.contains("worker_partial_agg")),
            "{commands:#?}"
        );
    }
    // More than the table holds: all of its rows.
    let all: i64 = c
        .query_one(&format!("SELECT count(*) FROM {UNEVEN}"), &[])
        .unwrap()
        .get(0);
    let got = c
        .query(
            &format!("SELECT id FROM sample_rows(NULL::{UNEVEN}, 100000)"),
            &[],
        )
        .unwrap()
        .len();
    assert_eq!(got as i64, all);
}

#[test]
fn samples_of_a_distributed_table_are_exact() {
    let _topology = crate::cluster::same_topology();
    let mut c = coordinator();
    let table = format!("{UNEVEN}_2");
    let layout = distributed(&mut c, &table, &uneven_rows(&table));
    let samples = bernoulli(
        &mut c,
        &layout,
        &format!("SELECT id FROM {table} TABLESAMPLE sparse_bernoulli ({PERCENT}) REPEATABLE ($1)"),
        300,
    );
    assert_all_pass("sparse_bernoulli", &samples.outcomes());
    // The negative control: whole pages of each shard.
    let system = bernoulli(
        &mut c,
        &layout,
        &format!("SELECT id FROM {table} TABLESAMPLE system ({PERCENT}) REPEATABLE ($1)"),
        200,
    );
    assert!(
        !passes(&system.pairs_within_pages()),
        "{:?}",
        system.outcomes()
    );
}

#[test]
fn sample_rows_of_a_distributed_table_is_exact() {
    let _topology = crate::cluster::same_topology();
    let mut c = coordinator();
    // 10 of about 190 rows: every row, and the rows of every page, equally often (8 samples of
    // each row expected: few, since each call of sample_rows is several queries of every shard).
    let table = format!("{UNEVEN}_3");
    let layout = distributed(&mut c, &table, &uneven_rows(&table));
    let samples = subsets(&mut c, &table, &layout, 10, 150);
    assert_all_pass("sample_rows, 10 rows", &samples.outcomes());
    // 2 of 10 rows on as many shards: every pair equally often (5.6 of each expected).
    let pairs = distributed(&mut c, PAIRS, &pairs_rows(PAIRS));
    assert_eq!(pairs.len(), 10);
    let samples = subsets(&mut c, PAIRS, &pairs, 2, 250);
    let outcomes = samples.outcomes();
    assert!(outcomes.iter().any(|o| o.test.starts_with("pairs by row")));
    assert_all_pass("sample_rows, 2 of 10", &outcomes);
}

/// sample_rows of a table too large to read whole, by its sampled tries over every shard: each
/// shard's rows come back as often as its share of the visible rows, with a seed (150 seeds) and
/// without (150 calls in one connection, sized after the first from what the earlier ones
/// brought), where half the shards hold a quarter of the rows of the others on as many pages.
/// The negative control, a shard uniformly (and then a row of it), gives the sparse shards half
/// the rows where they hold a fifth, and must be refused.
#[test]
fn sample_rows_takes_each_shard_as_often_as_its_rows() {
    let _topology = crate::cluster::same_topology();
    let mut c = coordinator();
    let table = format!("{MANY}_2");
    let shares = many(&mut c, &table);
    let shard_of = format!("get_shard_id_for_distribution_column('{table}', id)");
    let seeded = c
        .prepare(&format!(
            "SELECT {shard_of} FROM sample_rows(NULL::{table}, 10, $1)"
        ))
        .unwrap();
    let unseeded = c
        .prepare(&format!(
            "SELECT {shard_of} FROM sample_rows(NULL::{table}, 10)"
        ))
        .unwrap();
    let (mut with_seed, mut without) = (Vec::new(), Vec::new());
    for trial in 1..=150 {
        let rows = c.query(&seeded, &[&seed(trial)]).unwrap();
        assert_eq!(rows.len(), 10);
        with_seed.extend(rows.iter().map(|r| r.get::<_, i64>(0)));
        let rows = c.query(&unseeded, &[]).unwrap();
        assert_eq!(rows.len(), 10);
        without.extend(rows.iter().map(|r| r.get::<_, i64>(0)));
    }
    assert!(shard_shares_pass(&shares, &with_seed), "with a seed");
    assert!(shard_shares_pass(&shares, &without), "without a seed");
    c.batch_execute("SELECT setseed(0.5)").unwrap();
    let uniform: Vec<i64> = c
        .query(
            &format!(
                "SELECT s.shardid FROM generate_series(1, 1500) g
                   CROSS JOIN LATERAL (SELECT shardid FROM pg_dist_shard
                                        WHERE logicalrelid = '{table}'::regclass AND g > 0
                                        ORDER BY random() LIMIT 1) s"
            ),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(!shard_shares_pass(&shares, &uniform), "a shard uniformly");
}
