//! Shuffle queues through a connection, as the queue tests press their buttons.

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
