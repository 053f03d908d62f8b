//! Shuffle queues on the cluster stay consistent under concurrent steps, and every step of a
//! queue spread by group is one single-shard transaction on the worker holding the queue.

use std::collections::BTreeSet;
use std::sync::{Arc, Barrier};
use std::thread;

use crate::cluster::{
    active_workers, connect_to, coordinator_dsn, distributed, holder, same_topology, Node,
};
use crate::desks::count;
use crate::trace::{check_single_shard, traced_coordinator, Notices};
use postgres::Client;

#[test]
fn queues_stay_consistent_under_concurrent_next_and_prev() {
    let mut c = distributed();
    let _topology = same_topology();
    let tracks = 40i64;
    let queue: i64 = c
        .query_one(
            &format!(
                "SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, {tracks}::bigint)))"
            ),
            &[],
        )
        .unwrap()
        .get(0);
    press_next_and_prev_together(queue, tracks);
    let row = c
        .query_one(
            &format!(
                "SELECT front, tracks, history, behind FROM shuffle_queue WHERE queue_id = {queue}"
            ),
            &[],
        )
        .unwrap();
    let (front, length, history, behind): (i64, i64, i64, i64) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    assert_eq!(length, tracks);
    assert!(
        history <= length && (behind < history || behind == 0),
        "{history} {behind}"
    );
    assert!(front > 0, "no pick advanced the queue");
    let tape: Vec<(i64, i64)> = c
        .query(
            &format!("SELECT position, track FROM shuffle_queue_track WHERE queue_id = {queue} ORDER BY position"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let positions: Vec<i64> = tape.iter().map(|t| t.0).collect();
    assert_eq!(
        positions,
        (front..front + length).collect::<Vec<_>>(),
        "the tape"
    );
    let on_tape: BTreeSet<i64> = tape.iter().map(|t| t.1).collect();
    assert_eq!(on_tape, (1..=tracks).collect(), "tracks lost or doubled");
    let current: Option<i64> = c
        .query_one(&format!("SELECT shuffle_queue_current({queue})"), &[])
        .unwrap()
        .get(0);
    assert!(current.is_some_and(|t| (1..=tracks).contains(&t)));
    c.batch_execute(&format!("SELECT shuffle_queue_drop({queue})"))
        .unwrap();
    assert_eq!(
        count(
            &mut c,
            &format!("SELECT count(*) FROM shuffle_queue_track WHERE queue_id = {queue}")
        ),
        0
    );
}

/// 8 sessions, started together, each pressing next 30 times, and previous every fourth
/// time; every answer a track of the queue.
fn press_next_and_prev_together(queue: i64, tracks: i64) {
    let (sessions, steps) = (8, 30);
    let start = Arc::new(Barrier::new(sessions));
    let handles: Vec<_> = (0..sessions)
        .map(|s| {
            let start = Arc::clone(&start);
            thread::spawn(move || {
                let mut c = connect_to(&coordinator_dsn());
                start.wait();
                for i in 0..steps {
                    if (s + i) % 4 == 3 {
                        let back: Option<i64> = c
                            .query_one(&format!("SELECT shuffle_queue_prev({queue})"), &[])
                            .unwrap_or_else(|e| panic!("prev: {e}"))
                            .get(0);
                        assert!(back.is_none_or(|t| (1..=tracks).contains(&t)), "{back:?}");
                    } else {
                        let next: i64 = c
                            .query_one(&format!("SELECT shuffle_queue_next({queue})"), &[])
                            .unwrap_or_else(|e| panic!("next: {e}"))
                            .get(0);
                        assert!((1..=tracks).contains(&next), "{next}");
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

/// A queue spread by group on the cluster: its rows are on the worker holding its shard, each
/// step there (next, add, remove, prev, current, play next and later, jump, skip when shuffling)
/// is one single-shard transaction, and sessions pressing next together get one spread order
/// (no two neighbours of one artist).
#[test]
fn a_spread_queue_steps_in_single_shard_transactions_and_keeps_its_order() {
    let mut c = distributed();
    let _topology = same_topology();
    let queue: i64 = c
        .query_one(
            "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 24)::bigint),
                                      groups => ARRAY(SELECT (i % 6)::text FROM generate_series(1, 24) i),
                                      subgroups => ARRAY(SELECT (i % 4)::text FROM generate_series(1, 24) i))",
            &[],
        )
        .unwrap()
        .get(0);
    let workers = active_workers(&mut c);
    let on = holder(&mut c, "shuffle_queue", queue);
    let (mut traced, notices) = traced_coordinator();
    for (sql, call) in spread_queue_steps(queue).into_iter().chain(screens(queue)) {
        check_single_shard(&mut traced, &notices, &workers, &sql, call, on);
    }
    check_a_restored_copy_steps_on_its_worker(&mut c, &mut traced, &notices, &workers, queue);
    press_next_together(queue);
    check_one_spread_order(&mut c, queue);
}

/// Each step of a queue spread by group, with the call it makes on the worker.
fn spread_queue_steps(queue: i64) -> Vec<(String, &'static str)> {
    vec![
        (
            format!("SELECT shuffle_queue_next({queue})"),
            "shuffle_queue_next(",
        ),
        (
            format!("SELECT shuffle_queue_add({queue}, 25, '1', '1')"),
            "shuffle_queue_add(",
        ),
        (
            format!("SELECT shuffle_queue_add({queue}, 26, 'new', 'x')"),
            "shuffle_queue_add(",
        ),
        (
            format!("SELECT shuffle_queue_remove({queue}, 26)"),
            "shuffle_queue_remove(",
        ),
        (
            format!("SELECT shuffle_queue_remove({queue}, 25)"),
            "shuffle_queue_remove(",
        ),
        (
            format!("SELECT shuffle_queue_prev({queue})"),
            "shuffle_queue_prev(",
        ),
        (
            format!("SELECT shuffle_queue_next({queue})"),
            "shuffle_queue_next(",
        ),
        (
            format!("SELECT shuffle_queue_current({queue})"),
            "shuffle_queue_current(",
        ),
        (
            format!("SELECT shuffle_queue_play_next({queue}, ARRAY[1, 2])"),
            "shuffle_queue_play_next(",
        ),
        (
            format!("SELECT shuffle_queue_play_later({queue}, ARRAY[3])"),
            "shuffle_queue_play_later(",
        ),
        (
            format!("SELECT shuffle_queue_up_next({queue})"),
            "shuffle_queue_up_next(",
        ),
        (
            format!("SELECT count(*) FROM shuffle_queue_upcoming({queue}, 5)"),
            "shuffle_queue_upcoming(",
        ),
        (
            format!("SELECT shuffle_queue_skip({queue})"),
            "shuffle_queue_skip(",
        ),
        (
            format!("SELECT shuffle_queue_next({queue})"),
            "shuffle_queue_next(",
        ),
        (
            format!("SELECT shuffle_queue_clear_up_next({queue})"),
            "shuffle_queue_clear_up_next(",
        ),
        (
            format!("SELECT shuffle_queue_jump({queue}, 4)"),
            "shuffle_queue_jump(",
        ),
        (
            format!("SELECT shuffle_queue_skip_when_shuffling({queue}, 5)"),
            "shuffle_queue_skip_when_shuffling(",
        ),
        (
            format!("SELECT shuffle_queue_skip_when_shuffling({queue}, 5, false)"),
            "shuffle_queue_skip_when_shuffling(",
        ),
    ]
}

/// What a player's screens read of a queue: now playing with the next tracks, and what played.
fn screens(queue: i64) -> Vec<(String, &'static str)> {
    vec![
        (
            format!("SELECT count(*) FROM shuffle_queue_now({queue}, 5)"),
            "shuffle_queue_now(",
        ),
        (
            format!("SELECT count(*) FROM shuffle_queue_played({queue}, 5)"),
            "shuffle_queue_played(",
        ),
    ]
}

/// Saved on the worker, restored through the coordinator into a queue of its own, which
/// then steps on its own worker.
fn check_a_restored_copy_steps_on_its_worker(
    c: &mut Client,
    traced: &mut Client,
    notices: &Notices,
    workers: &[Node],
    queue: i64,
) {
    let copy: i64 = c
        .query_one(
            &format!("SELECT shuffle_queue_restore(shuffle_queue_save({queue}))"),
            &[],
        )
        .unwrap()
        .get(0);
    let same: bool = c
        .query_one(
            &format!("SELECT shuffle_queue_save({queue}) = shuffle_queue_save({copy})"),
            &[],
        )
        .unwrap()
        .get(0);
    assert!(same, "the restored queue is not the saved one");
    let copy_on = holder(c, "shuffle_queue", copy);
    check_single_shard(
        traced,
        notices,
        workers,
        &format!("SELECT shuffle_queue_next({copy})"),
        "shuffle_queue_next(",
        copy_on,
    );
    check_single_shard(
        traced,
        notices,
        workers,
        &format!("SELECT shuffle_queue_save({copy})"),
        "shuffle_queue_save(",
        copy_on,
    );
    c.batch_execute(&format!("SELECT shuffle_queue_drop({copy})"))
        .unwrap();
}

/// Sessions together: 4 x 17 presses finish the first pass (23 left) and play the next two.
fn press_next_together(queue: i64) {
    let (sessions, presses) = (4, 17);
    let start = Arc::new(Barrier::new(sessions));
    let handles: Vec<_> = (0..sessions)
        .map(|_| {
            let start = Arc::clone(&start);
            thread::spawn(move || {
                let mut c = connect_to(&coordinator_dsn());
                start.wait();
                (0..presses)
                    .map(|_| {
                        c.query_one(&format!("SELECT shuffle_queue_next({queue})"), &[])
                            .unwrap_or_else(|e| panic!("next: {e}"))
                            .get::<_, i64>(0)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

/// The history keeps the last 13 plays (24 tracks): one artist never twice in a row there;
/// every track is still a member once; dropped, the queue leaves no unit behind.
fn check_one_spread_order(c: &mut Client, queue: i64) {
    let plays: Vec<i64> = c
        .query(
            &format!(
                "SELECT track FROM shuffle_queue_track WHERE queue_id = {queue} ORDER BY position"
            ),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(plays.len(), 13, "{plays:?}");
    assert!(
        plays.windows(2).all(|w| w[0] % 6 != w[1] % 6),
        "two neighbours of one artist: {plays:?}"
    );
    let members: BTreeSet<i64> = c
        .query(
            &format!("SELECT track FROM shuffle_queue_member WHERE queue_id = {queue}"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(members, (1..=24).collect(), "tracks lost or doubled");
    c.batch_execute(&format!("SELECT shuffle_queue_drop({queue})"))
        .unwrap();
    assert_eq!(
        count(
            c,
            &format!("SELECT count(*) FROM shuffle_queue_unit WHERE queue_id = {queue}")
        ),
        0
    );
}

/// A queue of whole albums on the cluster: its album rows are on the worker holding its shard,
/// next, prev, current and upcoming are each one single-shard transaction there, and the tracks
/// shown play, album by album.
#[test]
fn a_queue_of_albums_steps_in_single_shard_transactions() {
    let mut c = distributed();
    let _topology = same_topology();
    let queue: i64 = c
        .query_one(
            "SELECT shuffle_queue_new_albums(ARRAY(SELECT generate_series(1, 30)::bigint),
                                             ARRAY(SELECT (i / 3)::text FROM generate_series(1, 30) i),
                                             ARRAY(SELECT (i / 9)::text FROM generate_series(1, 30) i))",
            &[],
        )
        .unwrap()
        .get(0);
    let workers = active_workers(&mut c);
    let on = holder(&mut c, "shuffle_queue", queue);
    assert_eq!(holder(&mut c, "shuffle_queue_album", queue), on);
    let (mut traced, notices) = traced_coordinator();
    for (sql, call) in [
        (
            format!("SELECT shuffle_queue_next({queue})"),
            "shuffle_queue_next(",
        ),
        (
            format!("SELECT count(*) FROM shuffle_queue_upcoming({queue}, 12)"),
            "shuffle_queue_upcoming(",
        ),
        (
            format!("SELECT shuffle_queue_next({queue})"),
            "shuffle_queue_next(",
        ),
        (
            format!("SELECT shuffle_queue_prev({queue})"),
            "shuffle_queue_prev(",
        ),
        (
            format!("SELECT shuffle_queue_current({queue})"),
            "shuffle_queue_current(",
        ),
    ] {
        check_single_shard(&mut traced, &notices, &workers, &sql, call, on);
    }
    let shown: Vec<i64> = c
        .query(
            &format!("SELECT track FROM shuffle_queue_upcoming({queue}, 30) ORDER BY place"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let played: Vec<i64> = (0..30)
        .map(|_| {
            c.query_one(&format!("SELECT shuffle_queue_next({queue})"), &[])
                .unwrap()
                .get(0)
        })
        .collect();
    assert_eq!(played, shown);
    // Each album's tracks (i / 3) follow each other in order once an album starts.
    let starts: Vec<usize> = (0..30)
        .filter(|&i| played[i] % 3 == 0 || played[i] == 1)
        .collect();
    for &s in &starts {
        let album = played[s] / 3;
        let tracks: Vec<i64> = (1..=30).filter(|t| t / 3 == album).collect();
        let end = (s + tracks.len()).min(30);
        assert_eq!(played[s..end], tracks[..end - s], "{played:?}");
    }
    c.batch_execute(&format!("SELECT shuffle_queue_drop({queue})"))
        .unwrap();
    assert_eq!(
        count(
            &mut c,
            &format!("SELECT count(*) FROM shuffle_queue_album WHERE queue_id = {queue}")
        ),
        0
    );
}

/// Random play with weights on the cluster: each weighted pick, and adding a track with its
/// weight, is one single-shard transaction on the queue's worker.
#[test]
fn a_weighted_queue_steps_in_single_shard_transactions() {
    let mut c = distributed();
    let _topology = same_topology();
    let queue: i64 = c
        .query_one(
            "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 12)::bigint), 'random', 4,
                                      weights => ARRAY(SELECT 1 + i % 5 FROM generate_series(1, 12) i))",
            &[],
        )
        .unwrap()
        .get(0);
    let workers = active_workers(&mut c);
    let on = holder(&mut c, "shuffle_queue", queue);
    let (mut traced, notices) = traced_coordinator();
    for (sql, call) in [
        (
            format!("SELECT shuffle_queue_next({queue})"),
            "shuffle_queue_next(",
        ),
        (
            format!("SELECT shuffle_queue_add({queue}, 13, 9)"),
            "shuffle_queue_add(",
        ),
        (
            format!("SELECT shuffle_queue_next({queue})"),
            "shuffle_queue_next(",
        ),
        (
            format!("SELECT shuffle_queue_remove({queue}, 13)"),
            "shuffle_queue_remove(",
        ),
    ] {
        check_single_shard(&mut traced, &notices, &workers, &sql, call, on);
    }
    let plays: Vec<i64> = (0..40)
        .map(|_| {
            c.query_one(&format!("SELECT shuffle_queue_next({queue})"), &[])
                .unwrap()
                .get(0)
        })
        .collect();
    for (i, t) in plays.iter().enumerate() {
        assert!(
            !plays[i.saturating_sub(4)..i].contains(t),
            "{t} within 4: {plays:?}"
        );
    }
    c.batch_execute(&format!("SELECT shuffle_queue_drop({queue})"))
        .unwrap();
}

/// Queues for a listener on the cluster: each step, which records the play on the queue's own
/// shard, is one single-shard transaction; a new queue for the listener (made on the
/// coordinator) reads their plays from every shard and holds them back; forgetting the
/// listener deletes them from every shard.
#[test]
fn a_listener_queue_steps_in_single_shard_transactions_and_holds_back_across_shards() {
    let mut c = distributed();
    let _topology = same_topology();
    let listener = 9_000_000_001i64;
    c.query_one("SELECT shuffle_queue_forget($1)", &[&listener])
        .unwrap();
    let workers = active_workers(&mut c);
    let queues = step_queues_on_their_shards(&mut c, &workers, listener);
    let mut played = Vec::new();
    for &queue in &queues {
        let rows = c
            .query(
                "SELECT track FROM shuffle_queue_play WHERE queue_id = $1 ORDER BY slot",
                &[&queue],
            )
            .unwrap();
        assert_eq!(rows.len(), 4, "queue {queue}");
        played.extend(rows.iter().map(|r| r.get::<_, i64>(0)));
    }
    played.sort_unstable();
    played.dedup();
    // The next queue holds the recent plays at the end of its tape (at most half: 20 of 40).
    let queue = new_listener_queue(&mut c, listener);
    let tail: Vec<i64> = c
        .query(
            "SELECT track FROM shuffle_queue_track WHERE queue_id = $1 AND position >= 40 - $2::bigint",
            &[&queue, &(played.len() as i64)],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut tail_sorted = tail.clone();
    tail_sorted.sort_unstable();
    assert_eq!(tail_sorted, played);
    let forgotten: i64 = c
        .query_one("SELECT shuffle_queue_forget($1)", &[&listener])
        .unwrap()
        .get(0);
    assert_eq!(forgotten, 16);
    for queue in queues.into_iter().chain([queue]) {
        c.batch_execute(&format!("SELECT shuffle_queue_drop({queue})"))
            .unwrap();
    }
}

/// A new queue of 40 tracks for `listener`.
fn new_listener_queue(c: &mut Client, listener: i64) -> i64 {
    c.query_one(
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 40)::bigint), listener => $1)",
        &[&listener],
    )
    .unwrap()
    .get(0)
}

/// Queues for `listener` on different shards, so that the recent plays come from more than
/// one: next and jump each one single-shard transaction, then two more plays.
fn step_queues_on_their_shards(c: &mut Client, workers: &[Node], listener: i64) -> Vec<i64> {
    let mut queues = Vec::new();
    for _ in 0..4 {
        let queue = new_listener_queue(c, listener);
        let on = holder(c, "shuffle_queue", queue);
        let (mut traced, notices) = traced_coordinator();
        let sql = format!("SELECT shuffle_queue_next({queue})");
        check_single_shard(
            &mut traced,
            &notices,
            workers,
            &sql,
            "shuffle_queue_next(",
            on,
        );
        let current: i64 = c
            .query_one(&format!("SELECT shuffle_queue_current({queue})"), &[])
            .unwrap()
            .get(0);
        let sql = format!("SELECT shuffle_queue_jump({queue}, {})", current % 40 + 1);
        check_single_shard(
            &mut traced,
            &notices,
            workers,
            &sql,
            "shuffle_queue_jump(",
            on,
        );
        for _ in 0..2 {
            c.query_one(&format!("SELECT shuffle_queue_next({queue})"), &[])
                .unwrap();
        }
        queues.push(queue);
    }
    queues
}

/// A library rescan on the cluster: each bulk queue edit is one single-shard call on the
/// queue's worker, and leaves the tracks it says, a weighted queue's with their weights.
#[test]
fn a_library_rescan_is_one_single_shard_call() {
    let mut c = distributed();
    let _topology = same_topology();
    let plain: i64 = c
        .query_one(
            "SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, 30)::bigint))",
            &[],
        )
        .unwrap()
        .get(0);
    let weighted: i64 = c
        .query_one(
            "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 30)::bigint), 'random', \
                    weights => array_fill(1, ARRAY[30]))",
            &[],
        )
        .unwrap()
        .get(0);
    let workers = active_workers(&mut c);
    let (mut traced, notices) = traced_coordinator();
    for (queue, sql) in [
        (
            plain,
            format!("SELECT shuffle_queue_add_many({plain}, '{{101,102}}'::bigint[])"),
        ),
        (
            plain,
            format!("SELECT shuffle_queue_remove_many({plain}, '{{1,2,3}}'::bigint[])"),
        ),
        (
            weighted,
            format!(
                "SELECT shuffle_queue_add_many({weighted}, '{{101,102}}'::bigint[], '{{5,7}}'::int[])"
            ),
        ),
        (
            weighted,
            format!("SELECT shuffle_queue_remove_many({weighted}, '{{1,2,3}}'::bigint[])"),
        ),
    ] {
        let on = holder(&mut c, "shuffle_queue", queue);
        let call = sql[7..sql.find('(').unwrap() + 1].to_string();
        check_single_shard(&mut traced, &notices, &workers, &sql, &call, on);
    }
    for queue in [plain, weighted] {
        let tracks: Vec<i64> = c
            .query(
                &format!(
                    "SELECT track FROM shuffle_queue_track WHERE queue_id = {queue} ORDER BY track"
                ),
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert_eq!(
            tracks,
            (4..=30).chain([101, 102]).collect::<Vec<i64>>(),
            "queue {queue}"
        );
    }
    let weights: Vec<(i64, i32)> = c
        .query(
            &format!(
                "SELECT track, weight FROM shuffle_queue_weight \
                  WHERE queue_id = {weighted} AND track > 100 ORDER BY track"
            ),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(weights, [(101, 5), (102, 7)]);
}
