#![cfg(feature = "server_tests")]
//! sample_rows on a real server while its table grows: another connection adds pages after the
//! caller's snapshot was taken, and a statement's own data-modifying CTE adds rows while it
//! samples. A call sees the rows of its snapshot alone, exactly k of them (all of them when it
//! holds fewer), never a row added after it, wherever the pages the sample reads end. Two
//! connections, no timing: the other connection's rows are committed before the call. And one
//! row of a table of full and nearly empty pages comes from each as often as their rows (with a
//! negative control that must be refused). PostgreSQL 17 alone in CI's first major, as every
//! server test: seconds.

mod server;

use postgres::{Client, NoTls};

fn ids(client: &mut Client, query: &str) -> Vec<i32> {
    let mut ids: Vec<i32> = client
        .query(query, &[])
        .unwrap_or_else(|e| panic!("{query}: {e:?}"))
        .iter()
        .map(|r| r.get(0))
        .collect();
    ids.sort();
    ids
}

fn assert_exact(ids: &[i32], k: usize, below: i32, what: &str) {
    assert_eq!(ids.len(), k, "{what}: {ids:?}");
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "{what}: a row twice: {ids:?}"
    );
    assert!(
        ids.iter().all(|&id| 1 <= id && id <= below),
        "{what}: a row the snapshot does not see: {ids:?}"
    );
}

#[test]
fn a_table_growing_during_the_calls_gives_the_snapshots_rows() {
    let mut caller = server::fresh_database("dealcards_sample_rows_growth");
    caller
        .batch_execute(
            "CREATE EXTENSION dealcards;
             CREATE TABLE growing (id int, pad text) WITH (autovacuum_enabled = off);
             INSERT INTO growing SELECT i, md5(i::text) FROM generate_series(1, 2000) i;
             ANALYZE growing;",
        )
        .unwrap();
    let mut other = Client::connect(
        &format!("{} dbname=dealcards_sample_rows_growth", server::dsn()),
        NoTls,
    )
    .unwrap();
    caller
        .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM growing;")
        .unwrap();
    // Fifteen times the rows, on new pages, committed and analyzed: the caller's catalog sees
    // the new size, its snapshot not the new rows.
    other
        .batch_execute(
            "INSERT INTO growing SELECT i, md5(i::text) FROM generate_series(2001, 32000) i;
             ANALYZE growing;",
        )
        .unwrap();
    for call in 0..30 {
        let sample = ids(&mut caller, "SELECT id FROM sample_rows(NULL::growing, 10)");
        assert_exact(&sample, 10, 2000, &format!("call {call}"));
    }
    let seeded = ids(
        &mut caller,
        "SELECT id FROM sample_rows(NULL::growing, 10, sha256('growing'))",
    );
    assert_exact(&seeded, 10, 2000, "seeded");
    let all = ids(
        &mut caller,
        "SELECT id FROM sample_rows(NULL::growing, 5000)",
    );
    assert_exact(&all, 2000, 2000, "more than the snapshot's rows");
    caller.batch_execute("COMMIT").unwrap();
    let all = ids(
        &mut caller,
        "SELECT id FROM sample_rows(NULL::growing, 100000)",
    );
    assert_exact(&all, 32000, 32000, "after the commit");

    // Rows added by the statement's own CTE, on pages added while it runs: the statement's
    // snapshot does not see them.
    let sample = ids(
        &mut caller,
        "WITH added AS (INSERT INTO growing SELECT i, md5(i::text) FROM generate_series(32001, 60000) i
                          RETURNING id)
         SELECT id FROM sample_rows(NULL::growing, 40000)
          WHERE (SELECT count(*) FROM added) > 0",
    );
    assert_exact(&sample, 32000, 32000, "with a CTE adding rows");
    let sample = ids(&mut caller, "SELECT id FROM sample_rows(NULL::growing, 25)");
    assert_exact(&sample, 25, 60000, "after the CTE");
}

/// The share of `calls` one-row samples of `query` (ids) that come from the wide rows' pages
/// (ids 1..=360), against the rows' share: a chi-square of one degree of freedom, refused below
/// 1e-7 (a false alarm once in ten million runs).
fn wide_share_passes(client: &mut Client, query: &str, calls: u32) -> bool {
    let statement = client.prepare(query).unwrap();
    let mut wide = 0u32;
    for _ in 0..calls {
        let rows = client.query(&statement, &[]).unwrap();
        assert_eq!(rows.len(), 1, "{query}");
        let id: i32 = rows[0].get(0);
        assert!((1..=8360).contains(&id), "{id}");
        wide += u32::from(id <= 360);
    }
    let (n, p) = (calls as f64, 360.0 / 8360.0);
    let statistic = (wide as f64 - n * p).powi(2) / (n * p * (1.0 - p));
    let p_value = dealcards_fairness::stats::chi_square_sf(statistic, 1.0);
    eprintln!("{query}: {wide} of {calls} from wide rows, p = {p_value}");
    p_value >= 1e-7
}

/// One row of a table of 60 pages of 6 wide rows and 36 pages of about 226 narrow ones: the
/// sampled tries (a one-row sample reads about a fifth of these pages, so it samples rather than
/// scans) take a wide row as often as the wide rows' share, 360 of 8,360, although the wide rows
/// fill most pages. The negative control, a page uniformly and then one of its rows, takes the
/// wide rows' pages' share instead and must be refused.
#[test]
fn one_row_comes_from_full_and_sparse_pages_as_often_as_their_rows() {
    let mut client = server::fresh_database("dealcards_sample_rows_pages");
    client
        .batch_execute(
            "CREATE EXTENSION dealcards;
             CREATE TABLE mixed (id int, pad text) WITH (autovacuum_enabled = off);
             INSERT INTO mixed SELECT i, repeat(md5(i::text), 40) FROM generate_series(1, 360) i;
             INSERT INTO mixed SELECT i, '' FROM generate_series(361, 8360) i;",
        )
        .unwrap();
    client.batch_execute("VACUUM ANALYZE mixed").unwrap();
    let (wide_pages, pages): (i64, i64) = {
        let row = client
            .query_one(
                "SELECT count(DISTINCT (ctid::text::point)[0]) FILTER (WHERE id <= 360),
                        count(DISTINCT (ctid::text::point)[0])
                   FROM mixed",
                &[],
            )
            .unwrap();
        (row.get(0), row.get(1))
    };
    assert!(
        wide_pages >= 55 && pages - wide_pages <= 40,
        "{wide_pages} of {pages}"
    );
    // A call reads a fraction of the pages: the sampled path, not a scan (a call that retries
    // reads the table, about one in four hundred: 20 calls' mean stays far under half).
    client
        .batch_execute(
            "CREATE FUNCTION pg_temp.pages_read() RETURNS bigint LANGUAGE plpgsql AS $$
             DECLARE plan json;
             BEGIN
               EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT * FROM sample_rows(NULL::mixed, 1)' INTO plan;
               RETURN (plan -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::bigint
                      + (plan -> 0 -> 'Plan' ->> 'Shared Read Blocks')::bigint;
             END $$;",
        )
        .unwrap();
    let mean_read: f64 = client
        .query_one(
            "SELECT avg(pg_temp.pages_read())::float8 FROM generate_series(1, 20)",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(
        mean_read < pages as f64 / 2.0,
        "{mean_read} of {pages} pages"
    );
    assert!(wide_share_passes(
        &mut client,
        "SELECT id FROM sample_rows(NULL::mixed, 1)",
        4000
    ));
    client.batch_execute("SELECT setseed(0.25)").unwrap();
    assert!(!wide_share_passes(
        &mut client,
        "SELECT id FROM mixed
          WHERE (ctid::text::point)[0] = (SELECT (ctid::text::point)[0] FROM mixed
                                            GROUP BY 1 ORDER BY random() LIMIT 1)
          ORDER BY random() LIMIT 1",
        500
    ));
}
