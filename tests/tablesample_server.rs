#![cfg(feature = "server_tests")]
//! TABLESAMPLE sparse_bernoulli on a real server: over 2,000 REPEATABLE seeds, every visible
//! row of a table whose pages hold 6 rows or 150 (with dead rows and updated ones, not vacuumed)
//! is taken with probability p, independently: by row (each row's count against p), and by the
//! sample's size (against the binomial, which rows that come together would spread). On a plain
//! table and on a partitioned one. Negative controls the same tests must reject: TABLESAMPLE
//! SYSTEM (whole pages: right by row, wrong by size) and BERNOULLI kept to the first three line
//! pointers of each page (wrong by row).

mod server;

use dealcards_fairness::stats::{self, ChiSquare};

const ALPHA: f64 = 1e-4;
const TRIALS: u32 = 2000;
const PERCENT: f64 = 20.0;

fn passes(result: ChiSquare) -> bool {
    result.p_value >= ALPHA
}

/// Wide rows (6 to a page) then narrow ones (about 150 on one page), every seventh deleted and
/// every fifth updated (HOT where its page has room), without VACUUM; as `name`, plain or
/// partitioned in two.
fn table(client: &mut postgres::Client, name: &str, partitioned: bool) {
    let create = if partitioned {
        format!(
            "CREATE TABLE {name} (part int, id int, pad text) PARTITION BY LIST (part);
             CREATE TABLE {name}_a PARTITION OF {name} FOR VALUES IN (1) WITH (fillfactor = 70, autovacuum_enabled = off);
             CREATE TABLE {name}_b PARTITION OF {name} FOR VALUES IN (2) WITH (fillfactor = 70, autovacuum_enabled = off);"
        )
    } else {
        format!(
            "CREATE TABLE {name} (part int, id int, pad text) WITH (fillfactor = 70, autovacuum_enabled = off);"
        )
    };
    client
        .batch_execute(&format!(
            "DROP TABLE IF EXISTS {name};
             {create}
             INSERT INTO {name} SELECT 1 + i % 2, i, repeat(md5(i::text), 40) FROM generate_series(1, 24) i;
             INSERT INTO {name} SELECT 1 + i % 2, i, '' FROM generate_series(25, 224) i;
             DELETE FROM {name} WHERE id % 7 = 0;
             UPDATE {name} SET pad = pad || 'x' WHERE id % 5 = 0;"
        ))
        .unwrap();
}

/// The ids of the visible rows, and the samples of `sample` (a query of ids with `$1` as its
/// REPEATABLE seed) for the seeds 1..=TRIALS.
fn sampled(client: &mut postgres::Client, name: &str, sample: &str) -> (Vec<i32>, Vec<Vec<i32>>) {
    let ids: Vec<i32> = client
        .query(&format!("SELECT id FROM {name} ORDER BY id"), &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let statement = client.prepare(sample).unwrap();
    let samples = (1..=TRIALS)
        .map(|seed| {
            client
                .query(&statement, &[&(seed as f64)])
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect()
        })
        .collect();
    (ids, samples)
}

/// Each row's count against TRIALS * p: sum of (count - T p)^2 / (T p (1 - p)), a chi-square
/// with a degree of freedom a row (the rows are independent).
fn by_row(ids: &[i32], samples: &[Vec<i32>]) -> ChiSquare {
    let p = PERCENT / 100.0;
    let n = samples.len() as f64;
    let mut statistic = 0.0;
    for id in ids {
        let count = samples.iter().filter(|s| s.contains(id)).count() as f64;
        statistic += (count - n * p).powi(2) / (n * p * (1.0 - p));
    }
    for s in samples {
        assert!(
            s.iter().all(|id| ids.contains(id)),
            "a row that is not visible: {s:?}"
        );
    }
    ChiSquare {
        statistic,
        df: ids.len() as u64,
        p_value: stats::chi_square_sf(statistic, ids.len() as f64),
    }
}

/// The samples' sizes against Binomial(rows, p), tails pooled so every bin expects 20.
fn by_size(rows: usize, samples: &[Vec<i32>]) -> ChiSquare {
    let p = PERCENT / 100.0;
    let mut binomial = vec![0.0f64; rows + 1];
    binomial[0] = (1.0 - p).powi(rows as i32);
    for k in 1..=rows {
        binomial[k] = binomial[k - 1] * (rows + 1 - k) as f64 / k as f64 * p / (1.0 - p);
    }
    let mut counts = vec![0u64; rows + 1];
    for s in samples {
        counts[s.len().min(rows)] += 1;
    }
    let enough = 20.0 / samples.len() as f64;
    let (mut bins, mut weights) = (Vec::new(), Vec::new());
    let (mut count, mut weight) = (0u64, 0.0);
    for k in 0..=rows {
        count += counts[k];
        weight += binomial[k];
        let rest: f64 = binomial[k + 1..].iter().sum();
        if weight >= enough && rest >= enough {
            bins.push(count);
            weights.push(weight);
            (count, weight) = (0, 0.0);
        }
    }
    bins.push(count);
    weights.push(weight);
    stats::chi_square_expected(&bins, &weights)
}

fn sparse(name: &str) -> String {
    format!("SELECT id FROM {name} TABLESAMPLE sparse_bernoulli ({PERCENT}) REPEATABLE ($1)")
}

#[test]
fn every_row_is_taken_with_probability_p_independently() {
    let mut client = server::fresh_database("dealcards_tablesample");
    client.batch_execute("CREATE EXTENSION dealcards").unwrap();
    for (name, partitioned) in [("ts_plain", false), ("ts_parted", true)] {
        table(&mut client, name, partitioned);
        let pages: i64 = client
            .query_one(
                &format!("SELECT count(DISTINCT (tableoid, (ctid::text::point)[0])) FROM {name}"),
                &[],
            )
            .unwrap()
            .get(0);
        assert!(pages >= 4, "{name}: {pages} pages");
        let (ids, samples) = sampled(&mut client, name, &sparse(name));
        let row = by_row(&ids, &samples);
        assert!(passes(row), "{name}, by row: {row:?}");
        let size = by_size(ids.len(), &samples);
        assert!(passes(size), "{name}, by size: {size:?}");
    }
}

#[test]
fn the_tests_reject_whole_pages_and_the_first_line_pointers() {
    let mut client = server::fresh_database("dealcards_tablesample_controls");
    table(&mut client, "ts_control", false);
    // SYSTEM: every row with probability p, but a page's rows together.
    let system =
        format!("SELECT id FROM ts_control TABLESAMPLE system ({PERCENT}) REPEATABLE ($1)");
    let (ids, samples) = sampled(&mut client, "ts_control", &system);
    assert!(!passes(by_size(ids.len(), &samples)));
    // BERNOULLI at twice the rate, but never past a page's third line pointer.
    let first = format!(
        "SELECT id FROM ts_control TABLESAMPLE bernoulli ({}) REPEATABLE ($1)
          WHERE (ctid::text::point)[1] <= 3",
        2.0 * PERCENT
    );
    let (ids, samples) = sampled(&mut client, "ts_control", &first);
    assert!(!passes(by_row(&ids, &samples)));
}

/// The rows of `query` (ids) for seeds 1..=trials, each seed's 32 bytes its number.
fn seeded_pairs(client: &mut postgres::Client, query: &str, trials: u32) -> Vec<u64> {
    let statement = client.prepare(query).unwrap();
    // Rows 1..=8: pair (a, b), a < b, at index (b - 1)(b - 2)/2 + a - 1 of 28.
    let mut counts = vec![0u64; 28];
    for trial in 1..=trials {
        let mut seed = [0u8; 32];
        seed[..4].copy_from_slice(&trial.to_le_bytes());
        let mut ids: Vec<i32> = client
            .query(&statement, &[&seed.as_slice()])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        ids.sort();
        assert_eq!(ids.len(), 2, "{query}: {ids:?}");
        let (a, b) = (ids[0] as usize, ids[1] as usize);
        assert!(1 <= a && a < b && b <= 8, "{ids:?}");
        counts[(b - 1) * (b - 2) / 2 + a - 1] += 1;
    }
    counts
}

/// sample_rows(relation, 2, seed) over 3,000 seeds: each of the 28 pairs of 8 rows (2 on each
/// of 4 pages, with deleted rows between them) equally often, in a plain table and in one
/// partitioned in two (5 rows and 3). The negative control takes 2 rows
/// of a TABLESAMPLE SYSTEM sample (whole pages): pairs of one page come too often.
#[test]
fn sample_rows_takes_every_pair_equally_often() {
    let mut client = server::fresh_database("dealcards_sample_rows");
    client
        .batch_execute(
            "CREATE EXTENSION dealcards;
             CREATE TABLE pairs (id int, pad text) WITH (fillfactor = 50, autovacuum_enabled = off);
             INSERT INTO pairs
               SELECT i, (SELECT string_agg(md5(i || ' ' || j), '') FROM generate_series(1, 60) j)
                 FROM generate_series(1, 12) i;
             DELETE FROM pairs WHERE id > 8;
             ANALYZE pairs;",
        )
        .unwrap();
    let pages: i64 = client
        .query_one(
            "SELECT count(DISTINCT (ctid::text::point)[0]) FROM pairs",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(pages, 4, "two rows a page");
    let exact = seeded_pairs(
        &mut client,
        "SELECT id FROM sample_rows(NULL::pairs, 2, $1)",
        3000,
    );
    let result = stats::chi_square_uniform(&exact);
    assert!(passes(result), "{exact:?} {result:?}");
    // The same rows in two partitions, each sampling on its own: still every pair alike.
    client
        .batch_execute(
            "CREATE TABLE parted_pairs (id int, pad text) PARTITION BY RANGE (id);
             CREATE TABLE parted_pairs_low PARTITION OF parted_pairs FOR VALUES FROM (1) TO (6)
               WITH (fillfactor = 50, autovacuum_enabled = off);
             CREATE TABLE parted_pairs_high PARTITION OF parted_pairs FOR VALUES FROM (6) TO (13)
               WITH (fillfactor = 50, autovacuum_enabled = off);
             INSERT INTO parted_pairs SELECT * FROM pairs;
             INSERT INTO parted_pairs
               SELECT i, (SELECT string_agg(md5(i || ' ' || j), '') FROM generate_series(1, 60) j)
                 FROM generate_series(9, 12) i;
             DELETE FROM parted_pairs WHERE id > 8;
             ANALYZE parted_pairs;",
        )
        .unwrap();
    let parted = seeded_pairs(
        &mut client,
        "SELECT id FROM sample_rows(NULL::parted_pairs, 2, $1)",
        3000,
    );
    let result = stats::chi_square_uniform(&parted);
    assert!(passes(result), "partitioned: {parted:?} {result:?}");
    let pages = seeded_pairs(
        &mut client,
        "SELECT id FROM (SELECT id FROM pairs TABLESAMPLE system (60)
                          REPEATABLE (('x' || encode(substr($1::bytea, 1, 4), 'hex'))::bit(32)::int)
                          ORDER BY shuffle_key($1::bytea, ctid::text) LIMIT 2) s
          WHERE (SELECT count(*) FROM pairs TABLESAMPLE system (60)
                  REPEATABLE (('x' || encode(substr($1::bytea, 1, 4), 'hex'))::bit(32)::int)) >= 2
         UNION ALL
         SELECT id FROM sample_rows(NULL::pairs, 2, $1)
          WHERE (SELECT count(*) FROM pairs TABLESAMPLE system (60)
                  REPEATABLE (('x' || encode(substr($1::bytea, 1, 4), 'hex'))::bit(32)::int)) < 2",
        3000,
    );
    assert!(!passes(stats::chi_square_uniform(&pages)), "{pages:?}");
}
