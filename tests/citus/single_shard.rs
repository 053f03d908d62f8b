//! A deal (plain or provably fair), a reveal and a queue step are each one single-shard
//! transaction on the worker holding the desk or the queue: one remote command, no two-phase
//! commit, no intermediate results.

use std::collections::{BTreeMap, BTreeSet};

use postgres::Client;

use crate::cluster::{active_workers, desks_by_holder, distributed, holder, same_topology, Node};
use crate::desks::{check_records, count, deal, fresh_desks, range_of};
use crate::trace::{check_single_shard, check_single_shard_of, traced_coordinator, Notices};

#[test]
fn a_deal_is_one_single_shard_transaction_on_the_desks_worker() {
    let (lo, hi) = (3000, 3039);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    let workers = active_workers(&mut c);
    let by_holder = desks_by_holder(&mut c, lo, hi);
    assert!(by_holder.len() >= 2, "desks {lo}..={hi} all on one worker");
    let queue: i64 = c
        .query_one(
            "SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::bigint[])",
            &[],
        )
        .unwrap()
        .get(0);
    let queue_holder = holder(&mut c, "shuffle_queue", queue);
    let (mut traced, notices) = traced_coordinator();
    let mut seen = Vec::new();
    // A desk on each worker: a plain deal, in autocommit and in a transaction block; then the
    // desk in provably fair mode: fair_mode_on, a fair deal, fair_reveal.
    for (node, desks) in &by_holder {
        let desk = desks[0];
        for (sql, call) in [
            (format!("SELECT deal_cards({desk})"), "deal_cards("),
            (
                format!("BEGIN; SELECT deal_cards({desk}); COMMIT;"),
                "deal_cards(",
            ),
            (
                format!("SELECT fair_mode_on({desk}, seeds_required => false)"),
                "fair_mode_on(",
            ),
            (format!("SELECT deal_cards({desk})"), "deal_cards("),
            (format!("SELECT * FROM fair_reveal({desk})"), "fair_reveal("),
        ] {
            let commands = check_single_shard(&mut traced, &notices, &workers, &sql, call, *node);
            seen.push((sql, commands));
        }
    }
    seen.extend(deal_by_a_prepared_statement(
        &mut traced,
        &notices,
        &workers,
        &by_holder,
    ));
    let sql = format!("SELECT shuffle_queue_next({queue})");
    let commands = check_single_shard(
        &mut traced,
        &notices,
        &workers,
        &sql,
        "shuffle_queue_next(",
        queue_holder,
    );
    seen.push((sql, commands));
    for (sql, commands) in &seen {
        eprintln!("{sql}\n    -> {commands:?}");
    }
    check_the_deals_were_recorded(&mut c, lo, hi, &by_holder);
}

/// A game server's prepared statement, its desk a parameter: each execution goes to the
/// desk's worker, with the generic plan too (after the fifth).
/// The statements run and the remote commands each sent.
fn deal_by_a_prepared_statement(
    traced: &mut Client,
    notices: &Notices,
    workers: &[Node],
    by_holder: &BTreeMap<Node, Vec<i32>>,
) -> Vec<(String, Vec<(String, i32)>)> {
    let mut seen = Vec::new();
    let deal_at = traced.prepare("SELECT deal_cards($1)").unwrap();
    let desks: Vec<(Node, i32)> = (0..8)
        .map(|i| {
            let (node, desks) = by_holder.iter().nth(i % by_holder.len()).unwrap();
            assert!(desks.len() >= 2, "{by_holder:?}");
            (*node, desks[1 + (i / by_holder.len()) % (desks.len() - 1)])
        })
        .collect();
    for (node, desk) in desks {
        let sql = format!("EXECUTE deal_at({desk})");
        let commands =
            check_single_shard_of(traced, notices, workers, &sql, "deal_cards(", node, |t| {
                t.query(&deal_at, &[&desk]).unwrap();
            });
        assert_eq!(commands.len(), 1, "{commands:?}");
        seen.push((sql, commands));
    }
    seen
}

/// And the deals were recorded there: 2 plain and 1 fair game at the first desk of each
/// worker, 1 at those of the prepared statement.
fn check_the_deals_were_recorded(
    c: &mut Client,
    lo: i32,
    hi: i32,
    by_holder: &BTreeMap<Node, Vec<i32>>,
) {
    let games = check_records(c, lo, hi);
    for (node, desks) in by_holder {
        let ids = &games[&desks[0]];
        assert_eq!(ids.len(), 3, "desk {}: {ids:?}", desks[0]);
        for d in desks {
            let ids = games.get(d).map(Vec::as_slice).unwrap_or_default();
            assert!(
                ids.iter().all(|&g| range_of(g) == node.group),
                "{ids:?} not from {node:?}"
            );
        }
    }
    assert_eq!(
        games.values().map(Vec::len).sum::<usize>(),
        3 * by_holder.len() + 8
    );
}

/// The other calls distributed by a desk or a queue are single-shard transactions on its worker
/// too: fair_mode_off at a fair desk on each worker (revealing the seed of its commitment, the
/// desk's next deal an ordinary one), and a queue's add, remove, prev, current and drop.
#[test]
fn fair_mode_off_and_every_queue_call_are_single_shard_on_the_holders_worker() {
    let (lo, hi) = (3100, 3109);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    let workers = active_workers(&mut c);
    let by_holder = desks_by_holder(&mut c, lo, hi);
    assert!(by_holder.len() >= 2, "desks {lo}..={hi} all on one worker");
    let (mut traced, notices) = traced_coordinator();
    for (node, desks) in &by_holder {
        fair_mode_off_on_its_worker(&mut c, &mut traced, &notices, &workers, *node, desks[0]);
    }
    check_every_queue_call(&mut c, &mut traced, &notices, &workers);
}

/// fair_mode_off at `desk` of `node` is one single-shard transaction there; it reveals the seed
/// of the desk's commitment, and the desk's next deal is an ordinary one.
fn fair_mode_off_on_its_worker(
    c: &mut Client,
    traced: &mut Client,
    notices: &Notices,
    workers: &[Node],
    node: Node,
    desk: i32,
) {
    let commitment: Vec<u8> = c
        .query_one(
            &format!("SELECT fair_mode_on({desk}, seeds_required => false)"),
            &[],
        )
        .unwrap()
        .get(0);
    deal(c, desk);
    let sql = format!("SELECT commitment FROM fair_mode_off({desk})");
    let mut revealed: Option<Vec<u8>> = None;
    check_single_shard_of(
        traced,
        notices,
        workers,
        &sql,
        "fair_mode_off(",
        node,
        |t| {
            revealed = t.query_one(sql.as_str(), &[]).unwrap().get(0);
        },
    );
    assert_eq!(revealed.as_ref(), Some(&commitment), "desk {desk}");
    // Committed, the seed is in the view, and it is the commitment's.
    let digest: Vec<u8> = c
        .query_one(
            "SELECT sha256(server_seed) FROM fair_commitment WHERE desk_id = $1 AND round = 1",
            &[&desk],
        )
        .unwrap()
        .get(0);
    assert_eq!(
        digest, commitment,
        "desk {desk}: the seed of another commitment"
    );
    assert_eq!(
        count(
            c,
            &format!(
                "SELECT count(*) FROM fair_seed WHERE desk_id = {desk} AND revealed_at IS NULL"
            )
        ),
        0,
        "desk {desk} keeps an unrevealed seed"
    );
    let after: serde_json::Value = serde_json::from_str(&deal(c, desk).json).unwrap();
    assert!(after.get("commitment").is_none(), "{after}");
}

/// A queue's next, add, remove, prev, current and drop are single-shard transactions on its
/// worker.
fn check_every_queue_call(
    c: &mut Client,
    traced: &mut Client,
    notices: &Notices,
    workers: &[Node],
) {
    let queue: i64 = c
        .query_one(
            "SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::bigint[])",
            &[],
        )
        .unwrap()
        .get(0);
    let on = holder(c, "shuffle_queue", queue);
    let tape = |c: &mut Client| -> BTreeSet<i64> {
        c.query(
            &format!("SELECT track FROM shuffle_queue_track WHERE queue_id = {queue}"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
    };
    for (sql, call) in [
        (
            format!("SELECT shuffle_queue_next({queue})"),
            "shuffle_queue_next(",
        ),
        (
            format!("SELECT shuffle_queue_add({queue}, 9)"),
            "shuffle_queue_add(",
        ),
        (
            format!("SELECT shuffle_queue_remove({queue}, 3)"),
            "shuffle_queue_remove(",
        ),
    ] {
        check_single_shard(traced, notices, workers, &sql, call, on);
    }
    assert_eq!(tape(c), BTreeSet::from([1, 2, 4, 5, 6, 7, 8, 9]));
    for (sql, call) in [
        (
            format!("SELECT shuffle_queue_prev({queue})"),
            "shuffle_queue_prev(",
        ),
        (
            format!("SELECT shuffle_queue_current({queue})"),
            "shuffle_queue_current(",
        ),
        (
            format!("SELECT shuffle_queue_drop({queue})"),
            "shuffle_queue_drop(",
        ),
    ] {
        check_single_shard(traced, notices, workers, &sql, call, on);
    }
    assert!(tape(c).is_empty(), "the dropped queue's tracks remain");
}
