#![cfg(feature = "server_tests")]
//! shuffle_queue_add_many and shuffle_queue_remove_many through real connections: a bulk call
//! leaves a seeded queue exactly as the single calls in array order do (its rows, and a whole
//! pass of Next after), every refused call leaves the queue as it was, and a rescan of 10,000
//! changes on a queue of 100,000 tracks keeps every track once.
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN).

mod server;

use server::queues::{database, new_queue, next, SEED};

use postgres::Client;

/// Everything a queue is: its row's counts, its tape by place from the front, its weights,
/// its tracks skipped when shuffling and up next.
fn snapshot(client: &mut Client, queue: i64) -> Vec<String> {
    let queries = [
        "SELECT format('%s %s %s %s %s %s', tracks, front, history, behind, draws, weight_max)
           FROM shuffle_queue WHERE queue_id = $1",
        "SELECT format('%s:%s', t.position - q.front, t.track)
           FROM shuffle_queue_track t JOIN shuffle_queue q USING (queue_id)
          WHERE queue_id = $1 ORDER BY t.position",
        "SELECT format('w %s:%s', track, weight) FROM shuffle_queue_weight
          WHERE queue_id = $1 ORDER BY track",
        "SELECT format('s %s', track) FROM shuffle_queue_skipped WHERE queue_id = $1 ORDER BY track",
        "SELECT format('u %s', track) FROM shuffle_queue_up_next WHERE queue_id = $1 ORDER BY seq",
    ];
    let mut out = Vec::new();
    for sql in queries {
        for row in client.query(sql, &[&queue]).unwrap() {
            out.push(row.get::<_, String>(0));
        }
    }
    out
}

/// The tracks of `count` presses of Next.
fn pass(client: &mut Client, queue: i64, count: usize) -> Vec<i64> {
    (0..count).map(|_| next(client, queue)).collect()
}

/// Two seeded queues made alike by `sql`, each pressed Next `plays` times; and what played.
fn twins(client: &mut Client, sql: &str, plays: usize) -> ((i64, i64), Vec<i64>) {
    let a = new_queue(client, sql);
    let b = new_queue(client, sql);
    let played = pass(client, a, plays);
    assert_eq!(played, pass(client, b, plays));
    ((a, b), played)
}

fn length(client: &mut Client, sql: &str, queue: i64, items: &Vec<i64>) -> i64 {
    client.query_one(sql, &[&queue, items]).unwrap().get(0)
}

/// Checks that `bulk` on queue `a` and `single` (one call per item) on queue `b` leave them
/// alike, return the same length, and that a whole pass then plays alike.
fn same_as_singles(
    client: &mut Client,
    (a, b): (i64, i64),
    bulk: impl FnOnce(&mut Client, i64) -> i64,
    single: impl FnOnce(&mut Client, i64) -> i64,
) {
    let bulk_length = bulk(client, a);
    let single_length = single(client, b);
    assert_eq!(bulk_length, single_length);
    let after = snapshot(client, a);
    assert_eq!(after[0..], snapshot(client, b)[0..]);
    let whole = bulk_length as usize + 3;
    assert_eq!(pass(client, a, whole), pass(client, b, whole));
}

#[test]
fn bulk_add_plays_as_the_single_adds_in_order() {
    let mut client = database("queue_bulk_add");
    let sql = format!(
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 40)::bigint), 'shuffle', 12, seed => {SEED})"
    );
    let added: Vec<i64> = vec![300, 101, 250, 7000, 102, 5, 999, 103, 104, 42, 4242, 77];
    let added: Vec<i64> = added.into_iter().map(|t| t + 1000).collect();
    for plays in [0, 7, 30] {
        let (pair, _) = twins(&mut client, &sql, plays);
        let items = added.clone();
        same_as_singles(
            &mut client,
            pair,
            |c, q| length(c, "SELECT shuffle_queue_add_many($1, $2)", q, &items),
            |c, q| {
                let mut n = 0;
                for t in &added {
                    n = c
                        .query_one("SELECT shuffle_queue_add($1, $2::bigint)", &[&q, t])
                        .unwrap()
                        .get(0);
                }
                n
            },
        );
    }
}

#[test]
fn bulk_remove_takes_out_as_the_single_removes_in_order() {
    let mut client = database("queue_bulk_remove");
    let sql = format!(
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 60)::bigint), 'shuffle', 25, seed => {SEED})"
    );
    for plays in [0, 10, 40] {
        let ((a, b), played) = twins(&mut client, &sql, plays);
        for q in [a, b] {
            client
                .batch_execute(&format!(
                    "SELECT shuffle_queue_skip_when_shuffling({q}, 33);
                     SELECT shuffle_queue_play_next({q}, ARRAY[34]::bigint[]);"
                ))
                .unwrap();
        }
        // Tracks skipped when shuffling, up next, out of the history and in it (the newest
        // plays, the oldest, the one playing): every path of a single removal.
        let mut items: Vec<i64> = vec![33, 34, 1, 60, 17, 2, 59, 30];
        let newest = played.iter().rev().take(4);
        let oldest = played.iter().skip(played.len().saturating_sub(25)).take(3);
        for &t in newest.chain(oldest) {
            if !items.contains(&t) {
                items.push(t);
            }
        }
        let singles = items.clone();
        same_as_singles(
            &mut client,
            (a, b),
            |c, q| length(c, "SELECT shuffle_queue_remove_many($1, $2)", q, &items),
            |c, q| {
                let mut n = 0;
                for t in &singles {
                    n = c
                        .query_one("SELECT shuffle_queue_remove($1, $2::bigint)", &[&q, t])
                        .unwrap()
                        .get(0);
                }
                n
            },
        );
    }
}

#[test]
fn weighted_bulk_calls_are_the_single_calls_in_order() {
    let mut client = database("queue_bulk_weighted");
    let sql = format!(
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 30)::bigint), 'random', 6,
                                  weights => ARRAY(SELECT 1 + g % 4 FROM generate_series(1, 30) g),
                                  seed => {SEED})"
    );
    let (pair, _) = twins(&mut client, &sql, 9);
    let items: Vec<i64> = vec![90, 31, 45, 32];
    let weights: Vec<i32> = vec![7, 1, 3, 2];
    let (i2, w2) = (items.clone(), weights.clone());
    same_as_singles(
        &mut client,
        pair,
        |c, q| {
            c.query_one(
                "SELECT shuffle_queue_add_many($1, $2, $3)",
                &[&q, &items, &weights],
            )
            .unwrap()
            .get(0)
        },
        |c, q| {
            let mut n = 0;
            for (t, w) in i2.iter().zip(&w2) {
                n = c
                    .query_one(
                        "SELECT shuffle_queue_add($1, $2::bigint, $3::int)",
                        &[&q, t, w],
                    )
                    .unwrap()
                    .get(0);
            }
            n
        },
    );
    let (a, b) = pair;
    let gone: Vec<i64> = vec![90, 3, 31, 17];
    let singles = gone.clone();
    same_as_singles(
        &mut client,
        (a, b),
        |c, q| length(c, "SELECT shuffle_queue_remove_many($1, $2)", q, &gone),
        |c, q| {
            let mut n = 0;
            for t in &singles {
                n = c
                    .query_one("SELECT shuffle_queue_remove($1, $2::bigint)", &[&q, t])
                    .unwrap()
                    .get(0);
            }
            n
        },
    );
}

/// The SQLSTATE of a statement that must fail.
fn failing(client: &mut Client, sql: &str) -> String {
    let error = client.batch_execute(sql).expect_err(sql);
    error.code().expect("a server error").code().to_string()
}

#[test]
fn a_refused_bulk_call_changes_nothing_and_fails_as_the_single_call() {
    let mut client = database("queue_bulk_errors");
    let plain = new_queue(
        &mut client,
        &format!("SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 20)::bigint), seed => {SEED})"),
    );
    let weighted = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], 'random', weights => ARRAY[1, 2, 3, 4])",
    );
    let spread = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], groups => ARRAY['a', 'a', 'b', 'b'])",
    );
    let albums = new_queue(
        &mut client,
        "SELECT shuffle_queue_new_albums(ARRAY[1, 2, 3, 4]::bigint[], ARRAY['x', 'x', 'y', 'y'])",
    );
    pass(&mut client, plain, 8);
    client
        .batch_execute(&format!(
            "SELECT shuffle_queue_skip_when_shuffling({plain}, 19);
             SELECT shuffle_queue_play_next({plain}, ARRAY[18]::bigint[]);"
        ))
        .unwrap();
    let p = plain;
    // (bulk call, the single call it must fail as, or None where there is no such single call)
    let cases: Vec<(String, Option<String>, &str, i64)> = vec![
        (format!("SELECT shuffle_queue_add_many({p}, ARRAY[100, NULL, 101])"), None, "22023", p),
        (format!("SELECT shuffle_queue_add_many({p}, ARRAY[100, 101, 5])"), Some(format!("SELECT shuffle_queue_add({p}, 5)")), "22023", p),
        (format!("SELECT shuffle_queue_add_many({p}, ARRAY[100, 101, 19])"), Some(format!("SELECT shuffle_queue_add({p}, 19)")), "22023", p),
        (format!("SELECT shuffle_queue_add_many({p}, ARRAY[100, 101, 100])"), None, "22023", p),
        (format!("SELECT shuffle_queue_add_many({p}, ARRAY[100], ARRAY[2])"), Some(format!("SELECT shuffle_queue_add({p}, 100, 2)")), "22023", p),
        (format!("SELECT shuffle_queue_remove_many({p}, ARRAY[1, 2, 500])"), Some(format!("SELECT shuffle_queue_remove({p}, 500)")), "P0002", p),
        (format!("SELECT shuffle_queue_remove_many({p}, ARRAY[1, NULL])"), None, "22023", p),
        (format!("SELECT shuffle_queue_remove_many({p}, ARRAY[1, 2, 1])"), None, "22023", p),
        (format!("SELECT shuffle_queue_remove_many({p}, ARRAY(SELECT generate_series(1, 20)::bigint))"), None, "22023", p),
        (format!("SELECT shuffle_queue_add_many({weighted}, ARRAY[10, 11])"), Some(format!("SELECT shuffle_queue_add({weighted}, 10)")), "22023", weighted),
        (format!("SELECT shuffle_queue_add_many({weighted}, ARRAY[10, 11], ARRAY[1])"), None, "22023", weighted),
        (format!("SELECT shuffle_queue_add_many({weighted}, ARRAY[10, 11], ARRAY[1, 0])"), Some(format!("SELECT shuffle_queue_add({weighted}, 11, 0)")), "22023", weighted),
        (format!("SELECT shuffle_queue_add_many({weighted}, ARRAY[10, 11], ARRAY[1, NULL])"), None, "22023", weighted),
        (format!("SELECT shuffle_queue_add_many({spread}, ARRAY[10])"), None, "0A000", spread),
        (format!("SELECT shuffle_queue_remove_many({spread}, ARRAY[1])"), None, "0A000", spread),
        (format!("SELECT shuffle_queue_add_many({albums}, ARRAY[10])"), Some(format!("SELECT shuffle_queue_add({albums}, 10, 'z')")), "0A000", albums),
        (format!("SELECT shuffle_queue_remove_many({albums}, ARRAY[1])"), Some(format!("SELECT shuffle_queue_remove({albums}, 1)")), "0A000", albums),
        ("SELECT shuffle_queue_add_many(987654, ARRAY[1])".into(), Some("SELECT shuffle_queue_add(987654, 1)".into()), "P0002", p),
        ("SELECT shuffle_queue_remove_many(987654, ARRAY[1])".into(), Some("SELECT shuffle_queue_remove(987654, 1)".into()), "P0002", p),
    ];
    for (bulk, single, code, queue) in cases {
        let before = snapshot(&mut client, queue);
        assert_eq!(failing(&mut client, &bulk), code, "{bulk}");
        if let Some(single) = single {
            assert_eq!(failing(&mut client, &single), code, "{single}");
        }
        assert_eq!(
            snapshot(&mut client, queue),
            before,
            "{bulk} changed the queue"
        );
    }
    // Inside a transaction, rolled back to a savepoint: nothing either.
    let before = snapshot(&mut client, plain);
    let mut tx = client.transaction().unwrap();
    tx.batch_execute(&format!(
        "SAVEPOINT s; SELECT shuffle_queue_add_many({p}, ARRAY[200, 201]); \
         SELECT shuffle_queue_remove_many({p}, ARRAY[1, 2, 3]); ROLLBACK TO SAVEPOINT s;"
    ))
    .unwrap();
    tx.commit().unwrap();
    assert_eq!(snapshot(&mut client, plain), before);
    // NULL arguments: NULL, as the single calls.
    let row = client
        .query_one(
            "SELECT shuffle_queue_add_many(NULL, ARRAY[1]::bigint[]) IS NULL,
                    shuffle_queue_remove_many(1, NULL) IS NULL",
            &[],
        )
        .unwrap();
    assert!(row.get::<_, bool>(0) && row.get::<_, bool>(1));
}

#[test]
fn a_rescan_of_ten_thousand_changes_on_a_queue_of_a_hundred_thousand() {
    let mut client = database("queue_bulk_large");
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 100000)::bigint))",
    );
    let played = pass(&mut client, queue, 50);
    let added: Vec<i64> = (200_001..=210_000).collect();
    assert_eq!(
        length(
            &mut client,
            "SELECT shuffle_queue_add_many($1, $2)",
            queue,
            &added
        ),
        110_000
    );
    // Removed: every tenth track of the first 100,000, and the tracks played.
    let mut gone: Vec<i64> = (1..=100_000).filter(|t| t % 10 == 0).collect();
    gone.extend(played.iter().filter(|t| *t % 10 != 0));
    gone.truncate(10_000);
    assert_eq!(
        length(
            &mut client,
            "SELECT shuffle_queue_remove_many($1, $2)",
            queue,
            &gone
        ),
        100_000
    );
    let row = client
        .query_one(
            "SELECT count(*), count(DISTINCT track), max(position) - min(position) + 1,
                    min(position) = (SELECT front FROM shuffle_queue WHERE queue_id = $1),
                    count(*) FILTER (WHERE track = ANY($2)),
                    count(*) FILTER (WHERE track BETWEEN 200001 AND 210000)
               FROM shuffle_queue_track WHERE queue_id = $1",
            &[&queue, &gone],
        )
        .unwrap();
    assert_eq!(row.get::<_, i64>(0), 100_000);
    assert_eq!(row.get::<_, i64>(1), 100_000);
    assert_eq!(row.get::<_, i64>(2), 100_000);
    assert!(row.get::<_, bool>(3));
    assert_eq!(row.get::<_, i64>(4), 0);
    assert_eq!(row.get::<_, i64>(5), 10_000);
    // The queue plays on: none of the removed tracks.
    for t in pass(&mut client, queue, 100) {
        assert!(!gone.contains(&t));
    }
}

#[test]
fn an_empty_array_changes_nothing_and_keeps_what_was_drawn_ahead() {
    let mut client = database("queue_bulk_empty");
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 20)::bigint))",
    );
    let shown: Vec<i64> = client
        .query(
            "SELECT track FROM shuffle_queue_upcoming($1, 5) ORDER BY place",
            &[&queue],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    let before = snapshot(&mut client, queue);
    for sql in [
        "SELECT shuffle_queue_add_many($1, '{}'::bigint[])",
        "SELECT shuffle_queue_remove_many($1, '{}'::bigint[])",
    ] {
        let tracks: i64 = client.query_one(sql, &[&queue]).unwrap().get(0);
        assert_eq!(tracks, 20, "{sql}");
    }
    assert_eq!(snapshot(&mut client, queue), before);
    let ahead: i64 = client
        .query_one(
            "SELECT count(*) FROM shuffle_queue_ahead WHERE queue_id = $1",
            &[&queue],
        )
        .unwrap()
        .get(0);
    assert_eq!(ahead, 5);
    assert_eq!(pass(&mut client, queue, 5), shown);
}
