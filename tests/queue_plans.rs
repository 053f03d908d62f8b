#![cfg(feature = "server_tests")]
//! A queue is fast from its first step, however stale the statistics: a database whose queue
//! tables were analyzed while they held only small queues (so that, to the planner, a new queue
//! has no rows), autovacuum off on them, then a new queue of 20,000 tracks of every kind, stepped
//! at once. Every call of every kind (next, prev, add, remove, play next, jump, skip) must read
//! at most a few hundred blocks, as `EXPLAIN (ANALYZE, BUFFERS)` of the call counts the blocks of
//! every statement it runs: each row reached by its whole key. A plan that reads the queue reads
//! about a block per track. The negative control gives the track table back an index that begins
//! with queue_id, as the primary key does, and sees a next read the queue again.
//! Run on every major by `make test`: the planner's choices are each major's own.

mod server;

use postgres::Client;
use serde_json::Value;

/// The most blocks one call may read: a step's statements read tens of blocks each (the queue's
/// row, a few rows by key, their index pages); reading the queue's 20,000 tracks costs thousands.
const MOST_BLOCKS: i64 = 400;
const TRACKS: i64 = 20_000;

/// The queue tables, analyzed with small queues in them and kept from autovacuum.
const QUEUE_TABLES: [&str; 10] = [
    "shuffle_queue",
    "shuffle_queue_track",
    "shuffle_queue_unit",
    "shuffle_queue_member",
    "shuffle_queue_up_next",
    "shuffle_queue_skipped",
    "shuffle_queue_weight",
    "shuffle_queue_play",
    "shuffle_queue_ahead",
    "shuffle_queue_album",
];

/// A database whose statistics were taken with 20 small queues of every kind in it, each stepped
/// 150 times, and never again.
fn stale_database(name: &str) -> Client {
    let mut client = server::fresh_database(name);
    client.batch_execute("CREATE EXTENSION dealcards").unwrap();
    client
        .batch_execute(
            "SELECT shuffle_queue_new(ARRAY(SELECT (k * 100 + i)::bigint FROM generate_series(1, 50) i),
                    mode => CASE WHEN k % 2 = 1 AND k % 3 <> 0 THEN 'random' ELSE 'shuffle' END,
                    \"window\" => CASE WHEN k % 2 = 1 AND k % 3 <> 0 THEN 10 END,
                    groups => CASE WHEN k % 3 = 0
                                   THEN ARRAY(SELECT 'a' || (i % 7) FROM generate_series(1, 50) i) END,
                    listener => CASE WHEN k % 5 = 0 THEN k END)
               FROM generate_series(1, 20) k;
             SELECT count(shuffle_queue_next(q)) FROM generate_series(1, 20) q, generate_series(1, 150);
             SELECT count(shuffle_queue_next(q))
               FROM (SELECT shuffle_queue_new_albums(
                              ARRAY(SELECT (k * 100 + i)::bigint FROM generate_series(1, 50) i),
                              ARRAY(SELECT 'album ' || (i / 5) FROM generate_series(1, 50) i),
                              ARRAY(SELECT 'artist ' || (i / 15) FROM generate_series(1, 50) i)) AS q
                       FROM generate_series(21, 25) k) queues, generate_series(1, 150);
             ANALYZE;",
        )
        .unwrap();
    for table in QUEUE_TABLES {
        client
            .batch_execute(&format!(
                "ALTER TABLE {table} SET (autovacuum_enabled = false)"
            ))
            .unwrap();
    }
    client
}

/// The kinds of queue, as the `shuffle_queue_new` arguments after the tracks (`{n}`: the count).
const KINDS: [(&str, &str); 6] = [
    ("shuffle", ""),
    ("random", ", mode => 'random', \"window\" => 10"),
    (
        "spread",
        ", groups => ARRAY(SELECT 'artist ' || (i % 1000) FROM generate_series(1, {n}) i)",
    ),
    (
        "weighted",
        ", mode => 'random', weights => ARRAY(SELECT 1 + i % 5 FROM generate_series(1, {n}) i)",
    ),
    ("seeded", ", seed => sha256('x')"),
    ("listener", ", listener => 7"),
];

fn make(client: &mut Client, options: &str, tracks: i64) -> i64 {
    let sql = format!(
        "SELECT shuffle_queue_new(ARRAY(SELECT i::bigint FROM generate_series(1, {tracks}) i){})",
        options.replace("{n}", &tracks.to_string())
    );
    client.query_one(&sql, &[]).unwrap().get(0)
}

/// The calls of a step, for a queue of `n` tracks (`Q`: the queue).
fn calls(kind: &str, n: i64) -> Vec<(&'static str, String)> {
    let add = match kind {
        "spread" => format!("shuffle_queue_add(Q, {}, 'artist 1')", n + 1),
        "weighted" => format!("shuffle_queue_add(Q, {}, 3)", n + 1),
        _ => format!("shuffle_queue_add(Q, {})", n + 1),
    };
    vec![
        ("next", "shuffle_queue_next(Q)".into()),
        (
            "upcoming",
            "(SELECT count(*) FROM shuffle_queue_upcoming(Q, 5))".into(),
        ),
        ("next", "shuffle_queue_next(Q)".into()),
        ("skip", "shuffle_queue_skip(Q)".into()),
        ("prev", "shuffle_queue_prev(Q)".into()),
        ("next", "shuffle_queue_next(Q)".into()),
        ("add", add),
        ("remove", "shuffle_queue_remove(Q, 17)".into()),
        (
            "play next",
            "shuffle_queue_play_next(Q, ARRAY[12]::bigint[])".into(),
        ),
        ("next", "shuffle_queue_next(Q)".into()),
        ("jump", "shuffle_queue_jump(Q, 19)".into()),
        ("skip", "shuffle_queue_skip_when_shuffling(Q, 18)".into()),
        ("next", "shuffle_queue_next(Q)".into()),
    ]
}

/// The shared blocks a call read and hit, every statement it ran included.
fn blocks(client: &mut Client, call: &str) -> i64 {
    // The simple query protocol gives EXPLAIN's json as text.
    let plan: String = client
        .simple_query(&format!(
            "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT {call}"
        ))
        .unwrap()
        .into_iter()
        .find_map(|m| match m {
            postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
            _ => None,
        })
        .unwrap();
    let plan: Value = serde_json::from_str(&plan).unwrap();
    let top = &plan[0]["Plan"];
    top["Shared Hit Blocks"].as_i64().unwrap() + top["Shared Read Blocks"].as_i64().unwrap()
}

/// Every call of a new queue of each kind, after the same calls on a small queue of that kind in
/// the same connection (so that what a connection reads once, the catalog, is read): the blocks
/// of each, as "kind call: blocks".
fn steps(client: &mut Client, kinds: &[(&str, &str)]) -> Vec<(String, i64)> {
    let mut read = Vec::new();
    for (kind, options) in kinds {
        let small = make(client, options, 20);
        for (_, call) in calls(kind, 20) {
            let call = call
                .replace('Q', &small.to_string())
                .replace(", 17)", ", 3)")
                .replace("[12]", "[4]")
                .replace(", 19)", ", 5)")
                .replace(", 18)", ", 6)");
            client.batch_execute(&format!("SELECT {call}")).unwrap();
        }
        let queue = make(client, options, TRACKS);
        for (name, call) in calls(kind, TRACKS) {
            let call = call.replace('Q', &queue.to_string());
            read.push((format!("{kind} {name}"), blocks(client, &call)));
        }
    }
    read
}

#[test]
fn every_step_of_a_new_large_queue_reads_its_rows_by_key_under_stale_statistics() {
    let mut client = stale_database("dealcards_queue_plans");
    let read = steps(&mut client, &KINDS);
    assert_eq!(read.len(), KINDS.len() * 13);
    let over: Vec<&(String, i64)> = read.iter().filter(|(_, b)| *b > MOST_BLOCKS).collect();
    assert!(
        over.is_empty(),
        "calls reading more than {MOST_BLOCKS} blocks: {over:?} (all: {read:?})"
    );
}

/// A new queue of whole albums (20,000 tracks, albums of 10 by 500 artists): each of its calls
/// reads its rows by key too, a look ahead across albums included.
#[test]
fn every_step_of_a_new_large_queue_of_albums_reads_its_rows_by_key_under_stale_statistics() {
    let mut client = stale_database("dealcards_queue_plans_albums");
    let make = |client: &mut Client, tracks: i64| -> i64 {
        let sql = format!(
            "SELECT shuffle_queue_new_albums(ARRAY(SELECT i::bigint FROM generate_series(1, {tracks}) i),
                    ARRAY(SELECT 'album ' || (i / 10) FROM generate_series(1, {tracks}) i),
                    ARRAY(SELECT 'artist ' || (i / 10 % 500) FROM generate_series(1, {tracks}) i))"
        );
        client.query_one(&sql, &[]).unwrap().get(0)
    };
    let calls = [
        ("next", "shuffle_queue_next(Q)"),
        (
            "upcoming",
            "(SELECT count(*) FROM shuffle_queue_upcoming(Q, 30))",
        ),
        ("next", "shuffle_queue_next(Q)"),
        ("prev", "shuffle_queue_prev(Q)"),
        ("prev", "shuffle_queue_prev(Q)"),
        ("current", "shuffle_queue_current(Q)"),
        ("next", "shuffle_queue_next(Q)"),
        (
            "upcoming",
            "(SELECT count(*) FROM shuffle_queue_upcoming(Q, 20, 40))",
        ),
    ];
    let small = make(&mut client, 20);
    for (_, call) in calls {
        let call = call.replace('Q', &small.to_string());
        client.batch_execute(&format!("SELECT {call}")).unwrap();
    }
    let queue = make(&mut client, TRACKS);
    let mut read = Vec::new();
    // Twice through: the second time each next ends an album or plays one drawn ahead.
    for _ in 0..2 {
        for (name, call) in calls {
            let call = call.replace('Q', &queue.to_string());
            read.push((name, blocks(&mut client, &call)));
        }
        for _ in 0..9 {
            client
                .batch_execute(&format!("SELECT shuffle_queue_next({queue})"))
                .unwrap();
        }
    }
    let over: Vec<&(&str, i64)> = read.iter().filter(|(_, b)| *b > MOST_BLOCKS).collect();
    assert!(
        over.is_empty(),
        "calls reading more than {MOST_BLOCKS} blocks: {over:?} (all: {read:?})"
    );
}

#[test]
fn the_check_sees_a_step_that_reads_the_queue() {
    // The track table given back an index that begins with queue_id, as the primary key does:
    // to these statistics the two look alike, and a step reads the queue through the wrong one.
    let mut client = stale_database("dealcards_queue_plans_control");
    client
        .batch_execute(
            "SET dealcards.allow_own_objects = on;
             DROP INDEX shuffle_queue_track_track;
             CREATE INDEX shuffle_queue_track_track ON shuffle_queue_track (queue_id, track);
             RESET dealcards.allow_own_objects;",
        )
        .unwrap();
    let read = steps(&mut client, &KINDS[..1]);
    let most = read.iter().map(|(_, b)| *b).max().unwrap();
    assert!(
        most > 5 * MOST_BLOCKS,
        "no call read the queue through the index beginning with queue_id: {read:?}"
    );
}
