//! Shuffle queues through a connection, as the queue tests press their buttons.

use postgres::Client;

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
