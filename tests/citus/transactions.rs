//! deal_cards in the caller's transaction is all or nothing, and a transaction spanning two
//! workers commits when it turns dealcards.notify off (PREPARE TRANSACTION refuses NOTIFY).

use postgres::Client;

use crate::cluster::{desks_by_holder, distributed, same_topology, Node};
use crate::desks::{
    check_records, count, deal, desk_state, fresh_desks, run_each, sqlstate, try_deal,
};
use crate::trace::{logged_during, remote_commands, traced_coordinator, worker_2pc_state, Notices};

#[test]
fn deal_cards_in_the_callers_transaction_is_all_or_nothing() {
    let (lo, hi) = (5000, 5019);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    run_each(
        &mut c,
        &[
            "SET client_min_messages = warning".into(),
            "DROP TABLE IF EXISTS citus_tx_local, citus_tx_desk".into(),
            // A plain table of the coordinator's, and one distributed with the desks.
            "CREATE TABLE citus_tx_local (id int PRIMARY KEY, n int NOT NULL)".into(),
            "INSERT INTO citus_tx_local VALUES (1, 0)".into(),
            "CREATE TABLE citus_tx_desk (desk_id int PRIMARY KEY, n int NOT NULL)".into(),
            "SELECT create_distributed_table('citus_tx_desk', 'desk_id', colocate_with => 'desk')"
                .into(),
            format!("INSERT INTO citus_tx_desk SELECT g, 0 FROM generate_series({lo}, {hi}) g"),
            "RESET client_min_messages".into(),
        ],
    );
    let by_holder = desks_by_holder(&mut c, lo, hi);
    let mut on = by_holder.iter();
    let (&node_a, desks_a) = on.next().expect("desks on a worker");
    let (&node_b, desks_b) = on.next().expect("desks on a second worker");
    let (mut t, notices) = traced_coordinator();

    deal_with_a_local_table(&mut c, &mut t, &notices, node_a, desks_a[0]);
    roll_back_a_deal(&mut c, &mut t, desks_a[1]);
    deal_with_a_colocated_table(&mut c, &mut t, &notices, node_b, desks_b[0]);
    two_workers_with_notify_fail(
        &mut c,
        &mut t,
        &notices,
        [node_a, node_b],
        (desks_a[2], desks_b[1]),
    );
    two_workers_without_notify_commit(
        &mut c,
        &mut t,
        &notices,
        [node_a, node_b],
        (desks_a[2], desks_b[1]),
    );
    two_deals_in_one_transaction(&mut c, &mut t, desks_b[2]);
    check_records(&mut c, lo, hi);
}

/// With a plain table of the coordinator: commits, one worker, no two-phase commit.
fn deal_with_a_local_table(
    c: &mut Client,
    t: &mut Client,
    notices: &Notices,
    node_a: Node,
    desk: i32,
) {
    let mut dealt = None;
    let commands = remote_commands(notices, || {
        t.batch_execute("BEGIN").unwrap();
        dealt = Some(deal(t, desk));
        t.batch_execute("UPDATE citus_tx_local SET n = n + 1 WHERE id = 1; COMMIT")
            .unwrap();
    });
    let dealt = dealt.unwrap();
    assert_eq!(desk_state(c, desk), (1, 2, 1, Some(dealt.game)));
    assert_eq!(local_n(c), 1);
    eprintln!("deal + local table: {commands:?}");
    assert!(
        commands
            .iter()
            .all(|(cmd, port)| *port == node_a.port && !cmd.contains("PREPARE")),
        "{commands:#?}"
    );
}

/// Rolled back: nothing written; the next deal there takes a new id.
fn roll_back_a_deal(c: &mut Client, t: &mut Client, desk: i32) {
    t.batch_execute("BEGIN").unwrap();
    let rolled = deal(t, desk);
    t.batch_execute("UPDATE citus_tx_local SET n = n + 1 WHERE id = 1; ROLLBACK")
        .unwrap();
    assert_eq!(
        desk_state(c, desk),
        (0, 0, 0, None),
        "a rolled back deal left rows"
    );
    assert_eq!(local_n(c), 1);
    assert_eq!(
        count(
            c,
            &format!("SELECT count(*) FROM game WHERE game_id = {}", rolled.game)
        ),
        0
    );
    let next = deal(t, desk);
    assert_ne!(next.game, rolled.game);
    assert_eq!(desk_state(c, desk), (1, 2, 1, Some(next.game)));
}

/// With a table distributed with the desks, same desk: one worker, commits.
fn deal_with_a_colocated_table(
    c: &mut Client,
    t: &mut Client,
    notices: &Notices,
    node_b: Node,
    desk: i32,
) {
    let mut dealt = None;
    let commands = remote_commands(notices, || {
        t.batch_execute("BEGIN").unwrap();
        dealt = Some(deal(t, desk));
        t.batch_execute(&format!(
            "UPDATE citus_tx_desk SET n = n + 1 WHERE desk_id = {desk}; COMMIT"
        ))
        .unwrap();
    });
    eprintln!("deal + colocated table: {commands:?}");
    assert!(
        commands
            .iter()
            .all(|(cmd, port)| *port == node_b.port && !cmd.contains("PREPARE")),
        "{commands:#?}"
    );
    assert_eq!(desk_state(c, desk), (1, 2, 1, Some(dealt.unwrap().game)));
    assert_eq!(
        count(
            c,
            &format!("SELECT n::bigint FROM citus_tx_desk WHERE desk_id = {desk}")
        ),
        1
    );
}

/// Two workers with notifications on: two-phase commit, which PREPARE TRANSACTION refuses
/// after a NOTIFY. The whole transaction fails and nothing is written.
fn two_workers_with_notify_fail(
    c: &mut Client,
    t: &mut Client,
    notices: &Notices,
    nodes: [Node; 2],
    (da, db): (i32, i32),
) {
    let mut failure = None;
    let commands = remote_commands(notices, || {
        t.batch_execute("BEGIN").unwrap();
        failure = try_deal(t, da)
            .and_then(|_| try_deal(t, db))
            .and_then(|_| t.batch_execute("COMMIT"))
            .err();
        t.batch_execute("ROLLBACK").unwrap();
    });
    eprintln!("two workers, notify on: {commands:?}");
    let failure = failure.expect("a transaction dealing on two workers with NOTIFY committed");
    let db_error = failure.as_db_error().expect("an error of the server");
    eprintln!("  -> {} {:?}", sqlstate(&failure), db_error);
    let text = format!(
        "{} {:?} {:?}",
        db_error.message(),
        db_error.detail(),
        db_error.hint()
    );
    assert!(
        text.contains("PREPARE") && text.contains("NOTIFY"),
        "{}: {text}",
        sqlstate(&failure)
    );
    assert_eq!(sqlstate(&failure), "0A000", "{text}");
    assert_eq!(desk_state(c, da), (0, 0, 0, None), "desk {da} written");
    assert_eq!(desk_state(c, db), (0, 0, 0, None), "desk {db} written");
    let pid: i32 = t.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    for node in nodes {
        let (_, prepared) = worker_2pc_state(node.port);
        assert!(
            !prepared
                .iter()
                .any(|g| g.starts_with(&format!("citus_0_{pid}_"))),
            "a prepared transaction left on {node:?}: {prepared:?}"
        );
    }
}

/// The same with dealcards.notify off for the transaction, sent along to the workers: both
/// deals commit (by two-phase commit).
/// (Each SET its own statement: Citus sends the SET LOCAL's whole query string along.)
fn two_workers_without_notify_commit(
    c: &mut Client,
    t: &mut Client,
    notices: &Notices,
    nodes: [Node; 2],
    (da, db): (i32, i32),
) {
    let mut games = Vec::new();
    let pid: i32 = t.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    let mut commands = Vec::new();
    let logs = logged_during(&[nodes[0].port, nodes[1].port], || {
        commands = remote_commands(notices, || {
            run_each(
                t,
                &[
                    "SET citus.propagate_set_commands = 'local'".into(),
                    "BEGIN".into(),
                    "SET LOCAL dealcards.notify = off".into(),
                ],
            );
            games.push(deal(t, da));
            games.push(deal(t, db));
            run_each(
                t,
                &["COMMIT".into(), "RESET citus.propagate_set_commands".into()],
            );
        });
    });
    eprintln!("two workers, notify off: {commands:?}");
    for node in nodes {
        let sent: Vec<&str> = commands
            .iter()
            .filter(|(_, port)| *port == node.port)
            .map(|(cmd, _)| cmd.as_str())
            .collect();
        assert!(
            sent[0].contains("SET LOCAL dealcards.notify = off"),
            "the setting did not reach {node:?}: {sent:#?}"
        );
        assert!(
            sent.iter()
                .any(|cmd| cmd.starts_with("PREPARE TRANSACTION")),
            "two workers without two-phase commit? {commands:#?}"
        );
        // What check_single_shard looks for in the workers' logs is there when it happens.
        assert!(
            logs[&node.port].contains(&format!("PREPARE TRANSACTION 'citus_0_{pid}_")),
            "{node:?} logged no PREPARE TRANSACTION of session {pid}"
        );
    }
    assert_eq!(desk_state(c, da), (1, 2, 1, Some(games[0].game)));
    assert_eq!(desk_state(c, db), (1, 2, 1, Some(games[1].game)));
}

/// Two deals at one desk in one transaction: two games.
fn two_deals_in_one_transaction(c: &mut Client, t: &mut Client, desk: i32) {
    t.batch_execute("BEGIN").unwrap();
    let first = deal(t, desk);
    let second = deal(t, desk);
    t.batch_execute("COMMIT").unwrap();
    assert_ne!(first.game, second.game);
    assert_eq!(desk_state(c, desk), (2, 4, 2, Some(second.game)));
}

/// n of the coordinator's plain table.
fn local_n(c: &mut Client) -> i64 {
    count(c, "SELECT n::bigint FROM citus_tx_local WHERE id = 1")
}
