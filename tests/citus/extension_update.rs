//! `ALTER EXTENSION dealcards UPDATE` on a cluster whose tables are distributed.

use postgres::Client;

use crate::cluster::{connect_to, coordinator_dsn, dsn_with, setting, worker_dsns};
use crate::desks::sqlstate;

/// `ALTER EXTENSION dealcards UPDATE` on a cluster whose tables are distributed, from 0.3.0 (the
/// first release with dealcards_distribute), as docs/citus.md says to run it: the update
/// reaches the coordinator, every worker and every shard, keeps every game and seed, and the
/// desks deal on under the commitments they had. Without the step that lets the workers' tables
/// change, the update is refused and changes nothing. In a database of its own on the nodes.
#[test]
fn an_update_of_a_distributed_cluster_reaches_every_shard_and_keeps_every_game() {
    let nodes: Vec<String> = std::iter::once(coordinator_dsn())
        .chain(worker_dsns())
        .collect();
    let mut c = cluster_at_the_old_release(&nodes);
    assert_eq!(versions(&mut c), vec![FROM; nodes.len()]);
    let before = desk_rows(&mut c);
    assert_eq!(before.len(), 16 + 4 + 8);

    // Straight away: a worker's copy of the extension's guard refuses the new column there.
    let refused = c
        .batch_execute("ALTER EXTENSION dealcards UPDATE")
        .expect_err("the update went through with the workers' guards on");
    assert_eq!(sqlstate(&refused), "0A000", "{refused:?}");
    assert_eq!(versions(&mut c), vec![FROM; nodes.len()]);
    assert_eq!(desk_rows(&mut c), before);

    update_as_documented(&mut c);
    let current = env!("CARGO_PKG_VERSION");
    assert_eq!(versions(&mut c), vec![current; nodes.len()]);
    assert_eq!(desk_rows(&mut c), before, "the update changed rows");
    check_the_row_aggregates_run_on_the_workers(&mut c);
    check_every_shard_and_guard(&mut c, nodes.len());
    check_the_desks_deal_on(&mut c);
}

/// The database of this test, on every node.
const DB: &str = "dealcards_update";
/// The release the cluster is updated from.
const FROM: &str = "0.3.0";

/// `dsn` with another database.
fn with_db(dsn: &str, db: &str) -> String {
    dsn_with(dsn, "dbname", db)
}

/// Database DB on every node, with Citus; the nodes joined; dealcards FROM created,
/// distributed, eight desks seated (four in provably fair mode) and dealt at twice. The
/// coordinator's connection.
fn cluster_at_the_old_release(nodes: &[String]) -> Client {
    for dsn in nodes {
        let mut admin = connect_to(&with_db(dsn, "postgres"));
        admin
            .batch_execute(&format!("DROP DATABASE IF EXISTS {DB} WITH (FORCE)"))
            .unwrap();
        admin
            .batch_execute(&format!("CREATE DATABASE {DB}"))
            .unwrap();
        connect_to(&with_db(dsn, DB))
            .batch_execute("SET client_min_messages = warning; CREATE EXTENSION citus")
            .unwrap();
    }
    let mut c = connect_to(&with_db(&coordinator_dsn(), DB));
    let coordinator = coordinator_dsn();
    c.execute(
        "SELECT citus_set_coordinator_host($1, $2::text::int)",
        &[
            &setting(&coordinator, "host"),
            &setting(&coordinator, "port"),
        ],
    )
    .unwrap();
    for worker in worker_dsns() {
        c.execute(
            "SELECT citus_add_node($1, $2::text::int)",
            &[&setting(&worker, "host"), &setting(&worker, "port")],
        )
        .unwrap();
    }
    c.batch_execute(&format!(
        "SET client_min_messages = warning;
         CREATE EXTENSION dealcards VERSION '{FROM}';
         SELECT count(*) FROM dealcards_distribute();
         INSERT INTO desk (desk_id) SELECT generate_series(1, 8);
         INSERT INTO desk_player SELECT d, s, d * 10 + s FROM generate_series(1, 8) d, generate_series(1, 3) s;
         SELECT fair_mode_on(d) FROM generate_series(1, 4) d;
         SELECT deal_cards(d) FROM generate_series(1, 8) d;
         SELECT deal_cards(d) FROM generate_series(1, 8) d;"
    ))
    .unwrap();
    c
}

/// dealcards' version on every node.
fn versions(c: &mut Client) -> Vec<String> {
    c.query(
        "SELECT result FROM run_command_on_all_nodes(
             $$SELECT extversion FROM pg_extension WHERE extname = 'dealcards'$$)",
        &[],
    )
    .unwrap()
    .iter()
    .map(|r| r.get(0))
    .collect()
}

/// Every row of the desks, their games and seeds, as text, sorted (the cluster returns them
/// in any order).
fn desk_rows(c: &mut Client) -> Vec<String> {
    let mut rows: Vec<String> = c
        .query(
            "SELECT row_to_json(g)::text FROM (SELECT * FROM game ORDER BY desk_id, game_id) g
         UNION ALL
         SELECT row_to_json(s)::text FROM (SELECT desk_id, round, commitment, server_seed,
                committed_at, revealed_at FROM fair_seed ORDER BY 1, 2) s
         UNION ALL
         SELECT row_to_json(d)::text FROM (SELECT * FROM desk ORDER BY desk_id) d",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    rows.sort();
    rows
}

/// As docs/citus.md says: the workers' guards off for the update, and what the update adds or
/// recreates distributed again.
fn update_as_documented(c: &mut Client) {
    c.batch_execute(
        "SELECT run_command_on_workers('ALTER EVENT TRIGGER dealcards_keep_table_columns_end DISABLE');
         ALTER EXTENSION dealcards UPDATE;
         SELECT run_command_on_workers('ALTER EVENT TRIGGER dealcards_keep_table_columns_end ENABLE');",
    )
    .unwrap();
    c.batch_execute("SELECT count(*) FROM dealcards_distribute()")
        .unwrap();
}

/// The row aggregates' typed forms came with the update on every node: Citus runs them on the
/// workers (docs/rows.md).
fn check_the_row_aggregates_run_on_the_workers(c: &mut Client) {
    c.batch_execute(
        "SET client_min_messages = warning;
         CREATE TABLE sampled (id int);
         SELECT create_distributed_table('sampled', 'id');
         INSERT INTO sampled SELECT generate_series(1, 100);",
    )
    .unwrap();
    let plan: Vec<String> = c
        .query(
            "EXPLAIN (VERBOSE, COSTS OFF) SELECT sample_agg(id, 3) FROM sampled",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(
        plan.iter().any(|l| l.contains("worker_partial_agg")),
        "{plan:#?}"
    );
    let sample: Vec<i32> = c
        .query_one("SELECT sample_agg(id, 3) FROM sampled", &[])
        .unwrap()
        .get(0);
    assert_eq!(sample.len(), 3);
}

/// Every shard has what the update changed, and every worker's guard is on again.
fn check_every_shard_and_guard(c: &mut Client, nodes: usize) {
    for (table, check) in [
        // 0.4.0 added a key from desk to fair_seed, which 0.7.0 drops; the seats' key to their
        // desk stays on the cluster (a single server has a rule instead, which Citus cannot run).
        ("desk", "SELECT (count(*) = 0)::int FROM pg_constraint WHERE conrelid = '%s'::regclass AND contype = 'f'"),
        ("desk_player", "SELECT (count(*) = 1)::int FROM pg_constraint WHERE conrelid = '%s'::regclass AND contype = 'f' AND conname LIKE 'desk_player_desk_id_fkey%%'"),
        ("fair_seed", "SELECT count(*) FROM pg_attribute WHERE attrelid = '%s'::regclass AND attname = 'unrevealed_round'"),
        ("game", "SELECT 1 - count(*) FROM pg_indexes WHERE tablename = '%s' AND indexname LIKE 'game_fair_nonce_idx%%'"),
        // A player's games, indexed since 0.5.0 (while the workers' guards on objects let the
        // coordinator's index through).
        ("game", "SELECT (count(*) = 3)::int FROM pg_indexes WHERE tablename = '%s' AND indexname ~ '^game_p[123]_id_idx'"),
    ] {
        let results: Vec<String> = c
            .query("SELECT result FROM run_command_on_shards($1::text::regclass, $2)", &[&table, &check])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert!(
            !results.is_empty() && results.iter().all(|r| r == "1"),
            "{table}'s shards: {results:?}"
        );
    }
    let guards: Vec<String> = c
        .query(
            "SELECT result FROM run_command_on_workers(
                 $$SELECT evtenabled FROM pg_event_trigger WHERE evtname = 'dealcards_keep_table_columns_end'$$)",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(guards, vec!["O"; nodes - 1], "a worker's guard stayed off");
}

/// The fair desks deal on under their commitments, and verify once revealed; a desk put back
/// on its revealed round is refused and named; a desk's seats go with it.
fn check_the_desks_deal_on(c: &mut Client) {
    for desk in 1..=4 {
        let nonce: i64 = c
            .query_one("SELECT (deal_cards($1) ->> 'nonce')::bigint", &[&desk])
            .unwrap()
            .get(0);
        assert_eq!(nonce, 2, "desk {desk}");
        c.execute("SELECT fair_reveal($1)", &[&desk]).unwrap();
        let verified: bool = c
            .query_one(
                "SELECT count(*) = 3 AND bool_and(verified) FROM fair_verify_desk($1)",
                &[&desk],
            )
            .unwrap()
            .get(0);
        assert!(verified, "desk {desk}");
    }
    // A desk put back by hand on its revealed round deals nothing on its worker, and
    // dealcards_check() names it.
    c.batch_execute("UPDATE desk SET fair_round = 1 WHERE desk_id = 2")
        .unwrap();
    let refused = c
        .batch_execute("SELECT deal_cards(2)")
        .expect_err("desk 2 dealt under its revealed round");
    assert_eq!(sqlstate(&refused), "XX001", "{refused:?}");
    let named: Vec<i32> = c
        .query(
            "SELECT desk_id FROM dealcards_check() WHERE table_name = 'desk'",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(named, vec![2], "dealcards_check()");
    // A desk's seats go with it on the workers too.
    c.batch_execute("DELETE FROM desk WHERE desk_id = 3")
        .unwrap();
    let seats: i64 = c
        .query_one("SELECT count(*) FROM desk_player WHERE desk_id = 3", &[])
        .unwrap()
        .get(0);
    assert_eq!(seats, 0, "desk 3's seats outlived it");
}
