//! Ids never meet across the nodes, through a shard move, a new worker and a rebalance.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use postgres::Client;

use crate::cluster::{
    active_workers, changing_topology, connect_to, desks_by_holder, distributed, holder,
    move_shard, setting, Node,
};
use crate::desks::{check_records, count, deal, fresh_desks, range_of};

/// Deals once at every desk lo..=hi and checks each new game's id is from the range of the
/// worker holding the desk; returns the new games.
fn deal_everywhere(c: &mut Client, lo: i32, hi: i32) -> Vec<i64> {
    let by_holder = desks_by_holder(c, lo, hi);
    let mut games = Vec::new();
    for (node, desks) in &by_holder {
        for &desk in desks {
            let dealt = deal(c, desk);
            assert_eq!(
                range_of(dealt.game),
                node.group,
                "desk {desk} on {node:?} dealt game {}",
                dealt.game
            );
            games.push(dealt.game);
        }
    }
    games
}

/// Steps every queue on, checking each answer is one of its tracks.
fn step_queues(c: &mut Client, queues: &[i64]) {
    for &q in queues {
        let track: i64 = c
            .query_one(&format!("SELECT shuffle_queue_next({q})"), &[])
            .unwrap_or_else(|e| panic!("shuffle_queue_next({q}): {e}"))
            .get(0);
        assert!((1..=10).contains(&track), "queue {q}: {track}");
        let back: Option<i64> = c
            .query_one(&format!("SELECT shuffle_queue_prev({q})"), &[])
            .unwrap_or_else(|e| panic!("shuffle_queue_prev({q}): {e}"))
            .get(0);
        assert!(
            back.is_some_and(|t| (1..=10).contains(&t)),
            "queue {q}: {back:?}"
        );
        let again: i64 = c
            .query_one(&format!("SELECT shuffle_queue_next({q})"), &[])
            .unwrap()
            .get(0);
        assert!((1..=10).contains(&again));
    }
}

/// A provably fair round at `desk` verifies whole.
fn fair_round_verifies(c: &mut Client, desk: i32, deals: usize) {
    c.batch_execute(&format!(
        "SELECT fair_mode_on({desk}, seeds_required => false)"
    ))
    .unwrap();
    for _ in 0..deals {
        deal(c, desk);
    }
    c.batch_execute(&format!("SELECT * FROM fair_reveal({desk})"))
        .unwrap();
    let verified: Vec<Option<bool>> = c
        .query(
            &format!("SELECT verified FROM fair_verify_desk({desk})"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(verified.len() >= deals, "desk {desk}: {verified:?}");
    assert!(
        verified.iter().all(|v| *v == Some(true)),
        "desk {desk}: {verified:?}"
    );
}

#[test]
fn ids_stay_unique_through_a_shard_move_a_new_worker_and_a_rebalance() {
    let (lo, hi) = (4000, 4039);
    let started = Instant::now();
    let mut c = distributed();
    let _topology = changing_topology();
    fresh_desks(&mut c, lo, hi);
    let workers = active_workers(&mut c);
    let by_holder = desks_by_holder(&mut c, lo, hi);
    assert!(
        by_holder.len() >= 2,
        "desks {lo}..={hi} on one worker: {by_holder:?}"
    );
    let queues = make_queues(&mut c);
    assert_eq!(queues.iter().collect::<BTreeSet<_>>().len(), queues.len());

    // Deals on both workers: ids from each worker's own range, none twice.
    let first = deal_everywhere(&mut c, lo, hi);
    check_records(&mut c, lo, hi);
    check_each_note_is_from_its_desks_worker(&mut c, lo, hi, &by_holder);
    step_queues(&mut c, &queues);
    eprintln!(
        "game ids by worker: {:?}",
        first
            .iter()
            .fold(BTreeMap::<i32, (i64, i64)>::new(), |mut m, &g| {
                let e = m.entry(range_of(g)).or_insert((g, g));
                *e = (e.0.min(g), e.1.max(g));
                m
            })
    );

    let moved = move_a_desk_and_a_queue(&mut c, &by_holder, &workers, &queues);

    // Deals on both sides: no duplicate key, ids from the new holder's range, none twice;
    // queues, bids and fair mode keep working.
    let second = deal_everywhere(&mut c, lo, hi);
    check_records(&mut c, lo, hi);
    step_queues(&mut c, &queues);
    fair_round_verifies(&mut c, moved, 2);
    check_records(&mut c, lo, hi);

    let (new_node, add_took, rebalance_took) = add_a_worker_and_rebalance(&mut c);
    let by_holder = desks_by_holder(&mut c, lo, hi);
    assert!(
        by_holder.contains_key(&new_node),
        "no desk {lo}..={hi} moved to the new worker: {by_holder:?}"
    );
    let third = deal_everywhere(&mut c, lo, hi);
    assert!(third.iter().any(|&g| range_of(g) == new_node.group));
    let all = check_records(&mut c, lo, hi);
    assert_eq!(
        all.values().map(Vec::len).sum::<usize>(),
        // the provably fair deal before the move and the two of the round after it
        first.len() + second.len() + third.len() + 3,
        "games lost"
    );
    step_queues(&mut c, &queues);
    let on_new = (lo..=hi)
        .find(|&d| by_holder[&new_node].contains(&d))
        .unwrap();
    fair_round_verifies(&mut c, on_new, 2);
    check_records(&mut c, lo, hi);
    eprintln!(
        "add node {add_took:?}, rebalance {rebalance_took:?}; placement now {:?}; whole test {:?}",
        by_holder
            .iter()
            .map(|(n, d)| (n.port, d.len()))
            .collect::<Vec<_>>(),
        started.elapsed()
    );
}

/// Eight queues of ten tracks.
fn make_queues(c: &mut Client) -> Vec<i64> {
    (0..8)
        .map(|_| {
            c.query_one(
                "SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]::bigint[])",
                &[],
            )
            .unwrap()
            .get(0)
        })
        .collect()
}

/// Each desk's note has an id from the range of the worker holding the desk.
fn check_each_note_is_from_its_desks_worker(
    c: &mut Client,
    lo: i32,
    hi: i32,
    by_holder: &BTreeMap<Node, Vec<i32>>,
) {
    let note_ranges: BTreeSet<(i32, i32)> = c
        .query(
            &format!(
                "SELECT n.desk_id, (n.note_id >> 48)::int FROM note n WHERE n.desk_id BETWEEN {lo} AND {hi}"
            ),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    for (node, desks) in by_holder {
        for d in desks {
            assert!(
                note_ranges.contains(&(*d, node.group)),
                "desk {d}'s note not from {node:?}"
            );
        }
    }
}

/// Move the shard of the first desk (and its colocated shards) to the other worker, and the
/// shard of the first queue likewise.
/// The desk moved.
fn move_a_desk_and_a_queue(
    c: &mut Client,
    by_holder: &BTreeMap<Node, Vec<i32>>,
    workers: &[Node],
    queues: &[i64],
) -> i32 {
    let (&from, desks) = by_holder.iter().next().unwrap();
    let moved = desks[0];
    let to = *workers.iter().find(|w| **w != from).unwrap();
    // A provably fair round in force crosses the move: its deals go on on the new holder (the
    // token its round recorded is the cluster's, not a node's).
    c.batch_execute(&format!(
        "SELECT fair_mode_on({moved}, seeds_required => false)"
    ))
    .unwrap();
    deal(c, moved);
    let took = move_shard(c, "desk", moved.into(), to);
    let queue_from = holder(c, "shuffle_queue", queues[0]);
    let queue_to = *workers.iter().find(|w| **w != queue_from).unwrap();
    let queue_took = move_shard(c, "shuffle_queue", queues[0], queue_to);
    eprintln!(
        "moved desk {moved}'s shard in {took:?}, queue {}'s in {queue_took:?}",
        queues[0]
    );
    moved
}

/// A third worker, then a rebalance of the desks' and the queues' colocation groups.
/// The new worker, and how long adding it and rebalancing took.
fn add_a_worker_and_rebalance(c: &mut Client) -> (Node, Duration, Duration) {
    let spare = std::env::var("DEALCARDS_CITUS_SPARE_WORKER_DSN")
        .expect("DEALCARDS_CITUS_SPARE_WORKER_DSN: run these tests with scripts/test_citus.sh");
    let spare_port: i32 = setting(&spare, "port").parse().unwrap();
    let added = Instant::now();
    c.batch_execute(&format!(
        "SET client_min_messages = warning;
         SELECT citus_add_node('127.0.0.1', {spare_port});
         RESET client_min_messages;"
    ))
    .unwrap_or_else(|e| panic!("citus_add_node of the spare worker: {e}"));
    let add_took = added.elapsed();
    let version = count(
        &mut connect_to(&spare),
        "SELECT count(*) FROM pg_extension WHERE extname = 'dealcards'",
    );
    assert_eq!(version, 1, "dealcards did not reach the new worker");
    let rebalanced = Instant::now();
    c.batch_execute(
        "SET client_min_messages = warning;
         SELECT rebalance_table_shards('desk', shard_transfer_mode => 'block_writes');
         SELECT rebalance_table_shards('shuffle_queue', shard_transfer_mode => 'block_writes');
         RESET client_min_messages;",
    )
    .unwrap_or_else(|e| panic!("rebalance: {e}"));
    let rebalance_took = rebalanced.elapsed();
    let new_node = *active_workers(c)
        .iter()
        .find(|w| w.port == spare_port)
        .expect("the new worker is active");
    (new_node, add_took, rebalance_took)
}
