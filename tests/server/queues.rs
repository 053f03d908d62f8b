//! Shuffle queues through a connection, as the queue tests press their buttons.

use dealcards_fairness::passes;
use dealcards_fairness::stats::ChiSquare;
use postgres::Client;

/// The seed the seeded queues of the tests and of tests/reference/seeded_queue.py's golden
/// values are made with, as SQL.
pub const SEED: &str =
    "decode('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex')";

/// A fresh database of the test's own, with the extension.
pub fn database(name: &str) -> Client {
    let mut client = super::fresh_database(name);
    client.batch_execute("CREATE EXTENSION dealcards").unwrap();
    client
}

/// The queue a `SELECT shuffle_queue_new(...)` (or another statement returning its id) makes.
pub fn new_queue(client: &mut Client, sql: &str) -> i64 {
    client.query_one(sql, &[]).unwrap().get(0)
}

/// One press of Next: the track it plays.
pub fn next(client: &mut Client, queue: i64) -> i64 {
    client
        .query_one("SELECT shuffle_queue_next($1)", &[&queue])
        .unwrap()
        .get(0)
}

/// One press of Previous: the track it plays (NULL before the first Next).
pub fn prev(client: &mut Client, queue: i64) -> Option<i64> {
    client
        .query_one("SELECT shuffle_queue_prev($1)", &[&queue])
        .unwrap()
        .get(0)
}

/// The track playing (NULL before the first Next).
pub fn current(client: &mut Client, queue: i64) -> Option<i64> {
    client
        .query_one("SELECT shuffle_queue_current($1)", &[&queue])
        .unwrap()
        .get(0)
}

/// The tracks of `shuffle_queue_upcoming(queue, n, offset)`, with their sources, checked to be
/// numbered from place `offset + 1` on.
pub fn upcoming(client: &mut Client, queue: i64, n: i32, offset: i32) -> Vec<(i64, String)> {
    client
        .query(
            "SELECT place, track, source FROM shuffle_queue_upcoming($1, $2, $3) ORDER BY place",
            &[&queue, &n, &offset],
        )
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, row)| {
            assert_eq!(row.get::<_, i64>(0), offset as i64 + i as i64 + 1);
            (row.get(1), row.get(2))
        })
        .collect()
}

/// The tracks of a list [`upcoming`] gave.
pub fn tracks(list: &[(i64, String)]) -> Vec<i64> {
    list.iter().map(|t| t.0).collect()
}

/// Runs a test's sample, and a second, fresh one only when the first's statistic fails: a fair
/// queue then fails a test only when two independent samples do (about once in 10^8 runs), and
/// a bad one, far below the level, fails both.
pub fn twice_if_failing(mut sample: impl FnMut() -> ChiSquare) {
    let first = sample();
    if passes(&first) {
        return;
    }
    eprintln!("the first sample failed ({first:?}): a second, fresh one decides");
    let second = sample();
    assert!(passes(&second), "two samples failed: {first:?}, {second:?}");
}
