#![cfg(feature = "server_tests")]
//! sample_rows on a real server while its table grows: another connection adds pages after the
//! caller's snapshot was taken, and a statement's own data-modifying CTE adds rows while it
//! samples. A call sees the rows of its snapshot alone, exactly k of them (all of them when it
//! holds fewer), never a row added after it, wherever the pages the sample reads end. Two
//! connections, no timing: the other connection's rows are committed before the call.

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
