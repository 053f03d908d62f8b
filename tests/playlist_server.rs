#![cfg(feature = "server_tests")]
//! Shuffle queues through real client connections: sessions pressing next on one queue at the
//! same time, and a queue outliving the connection that made it.
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN).

mod server;

use server::queues::{new_queue, next};

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

/// A queue whose rows another session deleted by hand: next refuses with XX001 (data_corrupted,
/// the one SQLSTATE for rows no function could have left, docs/playlist.md), names the queue and
/// changes nothing.
#[test]
fn a_queue_whose_rows_were_deleted_by_hand_is_xx001() {
    let mut client = server::connect();
    let queue = create(&mut client, 5, "shuffle");
    let mut other = server::connect();
    other
        .execute(
            "DELETE FROM shuffle_queue_track WHERE queue_id = $1",
            &[&queue],
        )
        .unwrap();
    let error = client
        .query_one("SELECT shuffle_queue_next($1)", &[&queue])
        .unwrap_err();
    let db_error = error.as_db_error().expect("an error of the server");
    assert_eq!(db_error.code().code(), "XX001", "{db_error:?}");
    assert!(
        db_error
            .message()
            .contains(&format!("shuffle queue {queue} has no track at position")),
        "{db_error:?}"
    );
    let (front, history): (i64, i64) = {
        let row = client
            .query_one(
                "SELECT front, history FROM shuffle_queue WHERE queue_id = $1",
                &[&queue],
            )
            .unwrap();
        (row.get(0), row.get(1))
    };
    assert_eq!(
        history, 0,
        "the refused step changed the queue (front {front})"
    );
    client
        .execute("SELECT shuffle_queue_drop($1)", &[&queue])
        .unwrap();
}

/// One press of next on a spread queue in its own transaction, with the pick's place in the
/// queue's order: the newest position of its history, read before the commit.
fn press_spread(client: &mut Client, queue: i64) -> (i64, i64) {
    let mut tx = client.transaction().unwrap();
    let track: i64 = tx
        .query_one("SELECT shuffle_queue_next($1)", &[&queue])
        .unwrap()
        .get(0);
    let newest: i64 = tx
        .query_one(
            "SELECT front + history - 1 FROM shuffle_queue WHERE queue_id = $1",
            &[&queue],
        )
        .unwrap()
        .get(0);
    tx.commit().unwrap();
    (newest, track)
}

/// Sessions pressing next on one queue spread by group: in the queue's order the picks are
/// successive places, each pass plays every track once, and no two neighbours share a group
/// (8 groups of 5 tracks: none is needed).
#[test]
fn sessions_pressing_next_on_a_spread_queue_get_one_spread_order() {
    let mut client = server::connect();
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 40)::bigint),
                                  groups => ARRAY(SELECT (i % 8)::text FROM generate_series(1, 40) i))",
    );
    let (sessions, presses) = (4, 20);
    let start = Arc::new(Barrier::new(sessions));
    let handles: Vec<_> = (0..sessions)
        .map(|_| {
            let start = Arc::clone(&start);
            thread::spawn(move || {
                let mut client = server::connect();
                start.wait();
                (0..presses)
                    .map(|_| press_spread(&mut client, queue))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let heard: Vec<Vec<(i64, i64)>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let order = in_queue_order(&heard);
    assert_eq!(order.len(), 80);
    for pass in order.chunks(40) {
        let distinct: HashSet<i64> = pass.iter().copied().collect();
        assert_eq!(distinct.len(), 40, "a pass played a track twice: {order:?}");
    }
    let group = |t: i64| t % 8;
    assert!(
        order.windows(2).all(|w| group(w[0]) != group(w[1])),
        "two neighbours of one group: {order:?}"
    );
    client
        .execute("SELECT shuffle_queue_drop($1)", &[&queue])
        .unwrap();
}

/// Tracks put up next, then sessions pressing next together: in the queue's order the tracks up
/// next play first, in the order given, each once, and then the shuffle goes on without bringing
/// them back soon (window 100 of 200: no track twice within 100 picks).
#[test]
fn tracks_up_next_play_first_in_order_among_sessions_pressing_next() {
    let mut client = server::connect();
    let queue = create(&mut client, 200, "shuffle");
    let up_next: Vec<i64> = (101..=120).collect();
    let count: i32 = client
        .query_one(
            "SELECT shuffle_queue_play_later($1, $2)",
            &[&queue, &up_next],
        )
        .unwrap()
        .get(0);
    assert_eq!(count, 20);
    let heard = press_together(queue, 4, 30);
    let order = in_queue_order(&heard);
    assert_eq!(&order[..20], &up_next[..], "{order:?}");
    for (j, t) in order.iter().enumerate() {
        let before = &order[j.saturating_sub(100)..j];
        assert!(!before.contains(t), "{t} again at {j}: {order:?}");
    }
    let left: Vec<i64> = client
        .query_one("SELECT shuffle_queue_up_next($1)", &[&queue])
        .unwrap()
        .get(0);
    assert!(left.is_empty());
    client
        .execute("SELECT shuffle_queue_drop($1)", &[&queue])
        .unwrap();
}

/// A weighted queue whose weights another session deleted by hand: next refuses with XX001,
/// names the missing weight, and changes nothing (nor loops forever looking for a track it may
/// pick).
#[test]
fn a_weighted_queue_whose_weights_were_deleted_by_hand_is_xx001() {
    let mut client = server::connect();
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 6)::bigint), 'random', 1,
                                  weights => ARRAY[1, 5, 5, 5, 5, 5])",
    );
    let mut other = server::connect();
    other
        .execute(
            "DELETE FROM shuffle_queue_weight WHERE queue_id = $1",
            &[&queue],
        )
        .unwrap();
    let tape = |client: &mut Client| -> Vec<(i64, i64)> {
        client
            .query(
                "SELECT position, track FROM shuffle_queue_track WHERE queue_id = $1 ORDER BY 1",
                &[&queue],
            )
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect()
    };
    let before = tape(&mut client);
    for _ in 0..5 {
        let error = client
            .query_one("SELECT shuffle_queue_next($1)", &[&queue])
            .unwrap_err();
        let db_error = error.as_db_error().expect("an error of the server");
        assert_eq!(db_error.code().code(), "XX001", "{db_error:?}");
        assert!(
            db_error.message().contains(&format!(
                "shuffle queue {queue} has no weight of the track at position"
            )),
            "{db_error:?}"
        );
    }
    assert_eq!(tape(&mut client), before, "a refused next moved tracks");
    let history: i64 = client
        .query_one(
            "SELECT history FROM shuffle_queue WHERE queue_id = $1",
            &[&queue],
        )
        .unwrap()
        .get(0);
    assert_eq!(history, 0, "a refused next counted a play");
    client
        .execute("SELECT shuffle_queue_drop($1)", &[&queue])
        .unwrap();
}

/// Sessions pressing next together on a weighted random queue: in the queue's order no track
/// comes back within its window of 10, and the heavy tracks play most.
#[test]
fn a_weighted_queue_under_concurrency_keeps_its_window() {
    let mut client = server::connect();
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 20)::bigint), 'random', 10,
                                  weights => ARRAY(SELECT CASE WHEN i <= 5 THEN 20 ELSE 1 END
                                                     FROM generate_series(1, 20) i))",
    );
    let heard = press_together(queue, 4, 60);
    let order = in_queue_order(&heard);
    for (i, track) in order.iter().enumerate() {
        assert!(
            !order[i.saturating_sub(10)..i].contains(track),
            "{track} again within 10"
        );
    }
    let heavy = order.iter().filter(|t| **t <= 5).count();
    // Uniform picks would make a quarter of them heavy (60); a heavy track plays at most once
    // in 11 picks (109), and nearly so when the weights count.
    assert!(heavy >= 80, "{heavy} of {}", order.len());
    client
        .execute("SELECT shuffle_queue_drop($1)", &[&queue])
        .unwrap();
}

#[test]
fn sessions_pressing_next_on_a_listener_queue_record_every_play_once_in_order() {
    let mut client = server::connect();
    // A listener of this test alone; forget any plays of an earlier run.
    let listener = 8_000_000_001i64;
    client
        .execute("SELECT shuffle_queue_forget($1)", &[&listener])
        .unwrap();
    let new_queue = |client: &mut Client| -> i64 {
        client
            .query_one(
                "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 1000)::bigint), \
                                          listener => $1)",
                &[&listener],
            )
            .unwrap()
            .get(0)
    };
    let queue = new_queue(&mut client);
    let heard = press_together(queue, 4, 50);
    let order = in_queue_order(&heard);
    // Each play is in its own slot, in the queue's order: none lost, none recorded twice.
    let recorded: Vec<i64> = client
        .query(
            "SELECT track FROM shuffle_queue_play WHERE queue_id = $1 ORDER BY slot",
            &[&queue],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(recorded, order);
    let plays: i64 = client
        .query_one(
            "SELECT plays FROM shuffle_queue WHERE queue_id = $1",
            &[&queue],
        )
        .unwrap()
        .get(0);
    assert_eq!(plays, 200);
    // The listener's next queue holds those 200 back, at the end of its tape.
    let next = new_queue(&mut client);
    let tail: HashSet<i64> = client
        .query(
            "SELECT track FROM shuffle_queue_track WHERE queue_id = $1 AND position >= 800",
            &[&next],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(tail, order.iter().copied().collect::<HashSet<i64>>());
    for q in [queue, next] {
        client
            .execute("SELECT shuffle_queue_drop($1)", &[&q])
            .unwrap();
    }
    let forgotten: i64 = client
        .query_one("SELECT shuffle_queue_forget($1)", &[&listener])
        .unwrap()
        .get(0);
    assert_eq!(
        forgotten, 200,
        "a dropped queue's plays stay the listener's"
    );
}
