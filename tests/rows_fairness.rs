#![cfg(feature = "server_tests")]
//! The fairness of random rows on a real server: `TABLESAMPLE sparse_bernoulli (p)` and
//! `sample_rows(relation, k)`, judged by the inclusion tests of crates/fairness (rows.rs) on
//! tables whose pages hold very different numbers of rows (4 wide rows, or dozens of narrow
//! ones), with rows deleted and not vacuumed, rows updated in place (HOT) and rows moved:
//!   - sparse_bernoulli at 20%, over 1,500 REPEATABLE seeds: every visible row taken with
//!     probability p (by row, by page), independently (the sample's size, and disjoint pairs of
//!     rows of one page and of two pages), on a plain table and a partitioned one;
//!   - sample_rows(relation, 2, seed), over 2,000 seeds: every row (by row, by page) and every
//!     pair equally often (by pair of pages; by pair of rows on a table of 10 rows), on a plain
//!     table and a partitioned one.
//!
//! Negative controls, which the same tests must reject on the same tables: TABLESAMPLE SYSTEM
//! and tsm_system_rows (whole pages: they fail by pairs), a page uniformly and then a row of it
//! (sparse pages favoured: fails by row and by page), and samplers that never look past a
//! page's first 3 line pointers (fail by row).
//!
//! Every draw comes from a fixed seed, so a run gives the same samples as the last on the same
//! table state; a test passes when its p-value is at least [`ALPHA`] = 1e-7, so that a correct
//! sampler fails one of these tests for a given set of seeds with a chance of about 1e-7 (for
//! the 30-odd tests of a run on each of five majors, under 2e-5), while the broken ones fall
//! below 1e-12. Like every server test, this file runs on every supported major in make test:
//! the pages are laid out, pruned and sampled by each major's own heap code. It takes about
//! 50 seconds a major on two busy cores (most of it the 8,000 calls of sample_rows).

mod server;

use dealcards_core::rng::Stream;
use dealcards_fairness::rows::{
    pairs_table, uneven_table, BernoulliSamples, BrokenRowSampler, Layout, RowOutcome,
    SubsetSamples, LAYOUT_QUERY,
};
use dealcards_fairness::stats::ChiSquare;

/// A test passes at p >= ALPHA (see above).
const ALPHA: f64 = 1e-7;
const PERCENT: f64 = 20.0;
const BERNOULLI_TRIALS: u32 = 1_500;
const SUBSET_TRIALS: u32 = 2_000;

fn passes(result: &ChiSquare) -> bool {
    result.p_value >= ALPHA
}

fn assert_all_pass(what: &str, outcomes: &[RowOutcome]) {
    for o in outcomes {
        eprintln!("{what}: {}: p = {:.3e}", o.test, o.result.p_value);
    }
    for outcome in outcomes {
        assert!(
            passes(&outcome.result),
            "{what}: {outcome:?}\n{outcomes:#?}"
        );
    }
}

/// The visible rows of `table`, where they are.
fn layout(client: &mut postgres::Client, table: &str) -> Layout {
    let rows = client
        .query(&LAYOUT_QUERY.replace("{table}", table), &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get::<_, i32>(2) as u32))
        .collect::<Vec<_>>();
    Layout::new(rows).unwrap()
}

/// Builds `table` with `sql` and checks through pageinspect that its pages are what the tests
/// need: pages of very different numbers of visible rows, line pointers of deleted row versions
/// (not vacuumed), and row versions a HOT update made.
fn build(client: &mut postgres::Client, table: &str, sql: &str, leaves: &[&str]) -> Layout {
    client.batch_execute(sql).unwrap();
    // A read after the updates, as an application's would be: it may prune pages (redirect
    // line pointers, dead ones), which the samplers must read past.
    client
        .batch_execute(&format!("SELECT count(*) FROM {table}"))
        .unwrap();
    let layout = layout(client, table);
    let sizes = layout.page_sizes();
    let (fewest, most) = (*sizes.iter().min().unwrap(), *sizes.iter().max().unwrap());
    assert!(
        fewest <= 4 && most >= 3 * fewest,
        "{table}: rows a page {sizes:?}"
    );
    let (line_pointers, heap_only): (i64, i64) = leaves
        .iter()
        .map(|leaf| {
            let row = client
                .query_one(
                    &format!(
                        "SELECT count(*), count(*) FILTER (WHERE t_infomask2 & 32768 <> 0)
                           FROM generate_series(0, pg_relation_size('{leaf}') / current_setting('block_size')::int - 1) b,
                                heap_page_items(get_raw_page('{leaf}', b::int))"
                    ),
                    &[],
                )
                .unwrap();
            (row.get::<_, i64>(0), row.get::<_, i64>(1))
        })
        .fold((0, 0), |(a, b), (c, d)| (a + c, b + d));
    assert!(
        line_pointers >= layout.len() as i64 * 3,
        "{table}: {line_pointers} line pointers for {} visible rows",
        layout.len()
    );
    assert!(heap_only >= 1, "{table}: no HOT update");
    layout
}

fn database(name: &str) -> postgres::Client {
    let mut client = server::fresh_database(name);
    client
        .batch_execute(
            "CREATE EXTENSION dealcards; CREATE EXTENSION pageinspect; CREATE EXTENSION tsm_system_rows;",
        )
        .unwrap();
    client
}

fn uneven(client: &mut postgres::Client, table: &str, partitioned: bool) -> Layout {
    let leaves = if partitioned {
        vec![format!("{table}_1"), format!("{table}_2")]
    } else {
        vec![table.to_string()]
    };
    let leaves: Vec<&str> = leaves.iter().map(String::as_str).collect();
    build(client, table, &uneven_table(table, partitioned), &leaves)
}

fn small(client: &mut postgres::Client, table: &str, partitioned: bool) -> Layout {
    let leaves = if partitioned {
        vec![format!("{table}_1"), format!("{table}_2")]
    } else {
        vec![table.to_string()]
    };
    let leaves: Vec<&str> = leaves.iter().map(String::as_str).collect();
    let layout = build(client, table, &pairs_table(table, partitioned), &leaves);
    assert_eq!(layout.len(), 10, "{table}");
    layout
}

/// The ids `query` returns with `$1` = each REPEATABLE seed 1..=BERNOULLI_TRIALS, counted.
fn bernoulli(client: &mut postgres::Client, layout: &Layout, query: &str) -> BernoulliSamples {
    let mut samples = BernoulliSamples::new(layout.clone(), PERCENT / 100.0);
    let statement = client.prepare(query).unwrap();
    for seed in 1..=BERNOULLI_TRIALS {
        let ids: Vec<i32> = client
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

/// The 32-byte seed of trial `trial`: its number in the first four bytes.
fn seed(trial: u32) -> Vec<u8> {
    let mut seed = vec![0u8; 32];
    seed[..4].copy_from_slice(&trial.to_le_bytes());
    seed
}

/// The ids `query` returns with `$1` = the seed of each trial 1..=trials, as samples of k.
fn subsets(
    client: &mut postgres::Client,
    layout: &Layout,
    k: usize,
    query: &str,
    trials: u32,
) -> SubsetSamples {
    let mut samples = SubsetSamples::new(layout.clone(), k);
    let statement = client.prepare(query).unwrap();
    for trial in 1..=trials {
        let ids: Vec<i32> = client
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

/// Shows what a broken sampler got (`--nocapture`), and checks that `test` rejects it.
fn assert_rejected(what: &str, result: ChiSquare) {
    eprintln!(
        "{what}: p = {:.3e} (statistic {:.1}, df {})",
        result.p_value, result.statistic, result.df
    );
    assert!(!passes(&result), "{what} passed: {result:?}");
}

/// A broken sampler of the test's own, run over the table's layout as the server reports it,
/// from a fixed seed.
fn broken_subsets(layout: &Layout, broken: BrokenRowSampler, trials: u32) -> SubsetSamples {
    let mut samples = SubsetSamples::new(layout.clone(), 2);
    let mut stream = Stream::from_seed([29; 32]);
    for _ in 0..trials {
        samples
            .record(&broken.sample(layout, 2, &mut stream))
            .unwrap();
    }
    samples
}

fn sparse(table: &str) -> String {
    format!("SELECT id FROM {table} TABLESAMPLE sparse_bernoulli ({PERCENT}) REPEATABLE ($1)")
}

#[test]
fn sparse_bernoulli_takes_every_row_alone_with_probability_p() {
    let mut client = database("dealcards_rows_fair_bernoulli");
    for (table, partitioned) in [("fair_plain", false), ("fair_parted", true)] {
        let layout = uneven(&mut client, table, partitioned);
        let samples = bernoulli(&mut client, &layout, &sparse(table));
        assert_all_pass(table, &samples.outcomes());
    }
}

#[test]
fn sample_rows_takes_every_row_and_every_pair_alike() {
    let mut client = database("dealcards_rows_fair_subsets");
    for (table, partitioned) in [("fair_plain", false), ("fair_parted", true)] {
        let layout = uneven(&mut client, table, partitioned);
        let samples = subsets(
            &mut client,
            &layout,
            2,
            &format!("SELECT id FROM sample_rows(NULL::{table}, 2, $1)"),
            SUBSET_TRIALS,
        );
        assert_all_pass(table, &samples.outcomes());
    }
    // Every one of the 45 pairs of 10 rows, on a plain table and across two partitions.
    for (table, partitioned) in [("fair_pairs", false), ("fair_parted_pairs", true)] {
        let layout = small(&mut client, table, partitioned);
        let samples = subsets(
            &mut client,
            &layout,
            2,
            &format!("SELECT id FROM sample_rows(NULL::{table}, 2, $1)"),
            SUBSET_TRIALS,
        );
        let outcomes = samples.outcomes();
        assert!(
            outcomes.iter().any(|o| o.test.starts_with("pairs by row")),
            "{outcomes:?}"
        );
        assert_all_pass(table, &outcomes);
    }
}

#[test]
fn the_tests_reject_whole_pages_sparse_pages_and_first_line_pointers() {
    let mut client = database("dealcards_rows_fair_controls");
    let layout = uneven(&mut client, "fair_control", false);

    // Bernoulli samples. SYSTEM takes every row with probability p, but a page's rows together.
    let system = bernoulli(
        &mut client,
        &layout,
        &format!("SELECT id FROM fair_control TABLESAMPLE system ({PERCENT}) REPEATABLE ($1)"),
    );
    assert_rejected("SYSTEM, pairs in one page", system.pairs_within_pages());
    assert_rejected("SYSTEM, by size", system.by_size());
    // BERNOULLI at the rate that expects as many rows, but never past the third line pointer.
    let eligible = layout.rows().iter().filter(|r| r.line <= 3).count();
    let first_lines = bernoulli(
        &mut client,
        &layout,
        &format!(
            "SELECT id FROM fair_control TABLESAMPLE bernoulli ({}) REPEATABLE ($1)
              WHERE (ctid::text::point)[1] <= 3",
            (PERCENT * layout.len() as f64 / eligible as f64).min(100.0)
        ),
    );
    assert_rejected(
        "BERNOULLI of line pointers 1 to 3, by row",
        first_lines.by_row(),
    );

    // Samples of 2. tsm_system_rows: a page at random and its first rows, so pairs of one page.
    // It takes no REPEATABLE: its pages come from the server's own generator, and the seed
    // parameter is unused. The test rejects it whatever that generator draws: a pair of two
    // pages needs a page of one row (there is none here), so every sample is a pair of one
    // page, where a uniform pair is of one page about one time in ten.
    assert!(layout.page_sizes().iter().all(|&m| m >= 2));
    let system_rows = subsets(
        &mut client,
        &layout,
        2,
        "SELECT id FROM fair_control TABLESAMPLE system_rows (2) WHERE $1::bytea IS NOT NULL",
        SUBSET_TRIALS,
    );
    assert_rejected(
        "tsm_system_rows, pairs by page",
        system_rows.pairs_by_page().unwrap(),
    );
    // Two rows uniformly among those at the first 3 line pointers (in SQL, through ctid).
    let first_lines = subsets(
        &mut client,
        &layout,
        2,
        "SELECT id FROM fair_control WHERE (ctid::text::point)[1] <= 3
          ORDER BY shuffle_key($1, ctid::text) LIMIT 2",
        SUBSET_TRIALS,
    );
    assert_rejected("2 of line pointers 1 to 3, by row", first_lines.by_row());
    // The same by Olken's acceptance over the first 3 line pointers, and a page uniformly then
    // a row of it: over the server's layout.
    let olken = broken_subsets(&layout, BrokenRowSampler::FirstLines, SUBSET_TRIALS);
    assert_rejected(
        "acceptance over line pointers 1 to 3, by row",
        olken.by_row(),
    );
    let sparse_pages = broken_subsets(&layout, BrokenRowSampler::PageThenRow, SUBSET_TRIALS);
    assert_rejected("a page then a row, by row", sparse_pages.by_row());
    assert_rejected("a page then a row, by page", sparse_pages.by_page());

    // On 10 rows: tsm_system_rows fails by pair of rows (and never takes a pair of two pages).
    let pairs_layout = small(&mut client, "fair_control_pairs", false);
    let system_rows = subsets(
        &mut client,
        &pairs_layout,
        2,
        "SELECT id FROM fair_control_pairs TABLESAMPLE system_rows (2) WHERE $1::bytea IS NOT NULL",
        SUBSET_TRIALS,
    );
    assert_rejected(
        "tsm_system_rows on 10 rows, pairs by row",
        system_rows.pairs_by_row().unwrap(),
    );
}
