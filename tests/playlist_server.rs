#![cfg(feature = "server_tests")]
//! Shuffle queues through real client connections: sessions pressing next on one queue at the
//! same time, and a queue outliving the connection that made it.
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN).

mod server;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Barrier};
use std::thread;

use postgres::Client;

fn create(client: &mut Client, tracks: i64, mode: &str) -> i64 {
    client
        .query_one(
            "SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, $1::bigint)), $2)",
            &[&tracks, &mode],
        )
        .unwrap()
        .get(0)
}

fn next(client: &mut Client, queue: i64) -> i64 {
    client
        .query_one("SELECT shuffle_queue_next($1)", &[&queue])
        .unwrap()
        .get(0)
}

fn optional(client: &mut Client, sql: &str, queue: i64) -> Option<i64> {
    client.query_one(sql, &[&queue]).unwrap().get(0)
}

/// Where each track of a queue is on its tape.
fn positions(client: &mut Client, queue: i64) -> HashMap<i64, i64> {
    client
        .query(
            "SELECT track, position FROM shuffle_queue_track WHERE queue_id = $1",
            &[&queue],
        )
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect()
}

/// One press of next in its own transaction, with the pick's place in the queue's order: the
/// queue row stays locked until the commit, so its `front` just after the pick counts the picks
/// made so far, this one included.
fn press(client: &mut Client, queue: i64) -> (i64, i64) {
    let mut tx = client.transaction().unwrap();
    let track: i64 = tx
        .query_one("SELECT shuffle_queue_next($1)", &[&queue])
        .unwrap()
        .get(0);
    let front: i64 = tx
        .query_one(
            "SELECT front FROM shuffle_queue WHERE queue_id = $1",
            &[&queue],
        )
        .unwrap()
        .get(0);
    tx.commit().unwrap();
    (front - 1, track)
}

/// Sessions press next on one queue at once, each in its own connection; returns what each
/// session heard, in its order, as (place in the queue's order, track).
fn press_together(queue: i64, sessions: usize, presses: usize) -> Vec<Vec<(i64, i64)>> {
    let start = Arc::new(Barrier::new(sessions));
    let handles: Vec<_> = (0..sessions)
        .map(|_| {
            let start = Arc::clone(&start);
            thread::spawn(move || {
                let mut client = server::connect();
                start.wait();
                (0..presses).map(|_| press(&mut client, queue)).collect()
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

/// The picks of all sessions in the queue's order; checks they are exactly the places
/// 0 .. count, each once (nothing lost, nothing made twice), and each session's in its order.
fn in_queue_order(heard: &[Vec<(i64, i64)>]) -> Vec<i64> {
    for session in heard {
        assert!(
            session.windows(2).all(|w| w[0].0 < w[1].0),
            "a session heard its picks out of queue order"
        );
    }
    let mut all: Vec<(i64, i64)> = heard.iter().flatten().copied().collect();
    all.sort_unstable();
    let places: Vec<i64> = all.iter().map(|p| p.0).collect();
    assert_eq!(places, (0..all.len() as i64).collect::<Vec<_>>());
    all.into_iter().map(|p| p.1).collect()
}

#[test]
fn sessions_pressing_next_together_get_successive_distinct_picks() {
    let mut client = server::connect();
    // 1000 tracks, window 500: no track may come back within 500 picks, so all 4 * 100 picks
    // of the sessions together must be different tracks.
    let queue = create(&mut client, 1000, "shuffle");
    let (sessions, presses) = (4, 100);
    let heard = press_together(queue, sessions, presses);
    let order = in_queue_order(&heard);
    let distinct: HashSet<i64> = order.iter().copied().collect();
    assert_eq!(order.len(), sessions * presses);
    assert_eq!(
        distinct.len(),
        order.len(),
        "two sessions got the same pick"
    );

    // Each pick moved its track to the end of the tape: the 400 picks occupy the last 400
    // positions, in the order the sessions were told.
    let row = client
        .query_one(
            "SELECT front, tracks, history, behind FROM shuffle_queue WHERE queue_id = $1",
            &[&queue],
        )
        .unwrap();
    let state: (i64, i64, i64, i64) = (row.get(0), row.get(1), row.get(2), row.get(3));
    assert_eq!(
        state,
        (400, 1000, 400, 0),
        "every pick advanced the queue once"
    );
    let at = positions(&mut client, queue);
    let tape_order: Vec<i64> = order.iter().map(|t| at[t]).collect();
    assert_eq!(tape_order, (1000..1400).collect::<Vec<_>>());
    client
        .execute("SELECT shuffle_queue_drop($1)", &[&queue])
        .unwrap();
}

#[test]
fn random_mode_under_concurrency_never_repeats_one_of_the_last_window() {
    let mut client = server::connect();
    // 20 tracks, random, window 10: in the queue's order, no track comes back within 10 picks.
    let queue = create(&mut client, 20, "random");
    let heard = press_together(queue, 4, 60);
    let order = in_queue_order(&heard);
    assert_eq!(order.len(), 240);
    for (i, track) in order.iter().enumerate() {
        let recent = &order[i.saturating_sub(10)..i];
        assert!(!recent.contains(track), "{track} again within 10 picks");
    }
    let distinct: HashSet<i64> = order.iter().copied().collect();
    assert_eq!(distinct.len(), 20, "every track played");
    client
        .execute("SELECT shuffle_queue_drop($1)", &[&queue])
        .unwrap();
}

#[test]
fn a_session_waits_for_the_one_holding_the_queue() {
    let mut first = server::connect();
    let queue = create(&mut first, 50, "shuffle");
    // The first session picks inside an open transaction: it holds the queue row.
    let mut tx = first.transaction().unwrap();
    let holder: i32 = tx.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    let a: i64 = tx
        .query_one("SELECT shuffle_queue_next($1)", &[&queue])
        .unwrap()
        .get(0);
    let waiter = thread::spawn(move || {
        let mut second = server::connect();
        next(&mut second, queue)
    });
    // The second session blocks on the row lock until the first commits.
    let mut probe = server::connect();
    let mut waited = false;
    for _ in 0..400 {
        let blocked: i64 = probe
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))",
                &[&holder],
            )
            .unwrap()
            .get(0);
        if blocked > 0 {
            waited = true;
            break;
        }
        thread::sleep(std::time::Duration::from_millis(25));
    }
    tx.commit().unwrap();
    let b = waiter.join().unwrap();
    assert!(waited, "the second session never waited for the lock");
    assert_ne!(a, b);
    let at = positions(&mut probe, queue);
    assert_eq!(
        at[&b],
        at[&a] + 1,
        "the second pick is the one after the first"
    );
    probe
        .execute("SELECT shuffle_queue_drop($1)", &[&queue])
        .unwrap();
}

#[test]
fn a_queue_outlives_its_connection() {
    let queue;
    let heard: Vec<i64>;
    {
        let mut client = server::connect();
        queue = create(&mut client, 10, "shuffle");
        heard = (0..4).map(|_| next(&mut client, queue)).collect();
        assert_eq!(
            optional(&mut client, "SELECT shuffle_queue_prev($1)", queue),
            Some(heard[2])
        );
    }
    let mut client = server::connect();
    assert_eq!(
        optional(&mut client, "SELECT shuffle_queue_current($1)", queue),
        Some(heard[2]),
        "the play position survived"
    );
    assert_eq!(
        optional(&mut client, "SELECT shuffle_queue_prev($1)", queue),
        Some(heard[1])
    );
    assert_eq!(next(&mut client, queue), heard[2], "next replays");
    assert_eq!(next(&mut client, queue), heard[3]);
    let fresh = next(&mut client, queue);
    assert!(
        !heard.contains(&fresh),
        "window 5: none of the last 5 again"
    );
    client
        .execute("SELECT shuffle_queue_drop($1)", &[&queue])
        .unwrap();
    let gone = client
        .query_one("SELECT shuffle_queue_current($1)", &[&queue])
        .unwrap_err();
    assert_eq!(
        gone.code().map(|c| c.code()),
        Some("P0002"),
        "a dropped queue is unknown"
    );
}
