//! No transaction learns a round's server seed while that round can still be dealt under: a
//! reveal undone by every route a game server has (ROLLBACK, a savepoint, a DO block's exception
//! handler, a procedure that rolls back, PREPARE TRANSACTION then ROLLBACK PREPARED) shows the
//! seed nowhere, and leaves the round in force and secret. A reveal that commits ends the round
//! for good, and only then is the seed readable.

use postgres::Client;

use crate::desks::{parse_dealt, shown_seed};
use crate::secrecy::{FairDesks, Received};

/// Everything the role can read about desk 1's rounds, recorded: the view, what the house
/// publishes, the desk's verification, one game's verification (refused or not), and a
/// recomputation with whatever seed the view shows. Within the client's transaction if it is in
/// one (`in_transaction`), else in one of its own.
fn read_everything(received: &mut Received, client: &mut Client, when: &str, in_transaction: bool) {
    if !in_transaction {
        client.batch_execute("BEGIN").unwrap();
    }
    for sql in [
        "SELECT * FROM fair_commitment",
        "SELECT fair_publication(1)",
        "SELECT fair_publication(2)",
        "SELECT * FROM fair_verify_desk(1)",
        "SELECT * FROM fair_verify_game((SELECT min(game_id) FROM game WHERE desk_id = 1))",
        "SELECT f.* FROM fair_commitment c, game g,
                LATERAL fair_deal(c.server_seed, g.client_seeds, g.fair_nonce) f
          WHERE c.desk_id = 1 AND g.desk_id = 1 AND g.fair_commitment = c.commitment",
    ] {
        // Inside a transaction a failing read would abort it: each read in a savepoint.
        client.batch_execute("SAVEPOINT read").unwrap();
        match client.query(&format!("SELECT q::text FROM ({sql}) q"), &[]) {
            Ok(rows) => {
                for row in rows {
                    received.add(format!("{when}: {sql}"), row.get::<_, String>(0));
                }
                client.batch_execute("RELEASE SAVEPOINT read").unwrap();
            }
            Err(e) => {
                received.add(format!("{when}: error of {sql}"), format!("{e:?}"));
                client.batch_execute("ROLLBACK TO SAVEPOINT read").unwrap();
            }
        }
    }
    if !in_transaction {
        client.batch_execute("COMMIT").unwrap();
    }
}

/// Desk 1's round as the owner sees it: (the round the desk names, whether round 1 is
/// revealed).
fn round_state(admin: &mut Client) -> (Option<i32>, bool) {
    let row = admin
        .query_one(
            "SELECT (SELECT fair_round FROM desk WHERE desk_id = 1),
                    (SELECT revealed_at IS NOT NULL FROM fair_seed WHERE desk_id = 1 AND round = 1)",
            &[],
        )
        .unwrap();
    (row.get(0), row.get(1))
}

#[test]
fn a_reveal_undone_by_any_route_shows_no_seed_and_leaves_the_round_in_force() {
    let mut desks = FairDesks::new("dealcards_fair_undone", "dealcards_fair_undone_server");
    let in_force = round_state(&mut desks.admin);
    assert_eq!(in_force, (Some(1), false));

    undo_by_rollback(&mut desks, in_force);
    undo_by_a_savepoint(&mut desks, in_force);
    undo_in_a_do_block(&mut desks, in_force);
    undo_in_a_procedure(&mut desks, in_force);
    undo_a_prepared_transaction(&mut desks, in_force);
    check_nothing_shows_a_seed(&mut desks);
    reveal_and_commit(&mut desks);
}

/// A plain ROLLBACK, of fair_reveal and of fair_mode_off.
fn undo_by_rollback(desks: &mut FairDesks, in_force: (Option<i32>, bool)) {
    let FairDesks {
        admin,
        game_server,
        received,
        ..
    } = desks;
    for reveal in [
        "SELECT * FROM fair_reveal(1)",
        "SELECT * FROM fair_mode_off(1)",
    ] {
        game_server.batch_execute("BEGIN").unwrap();
        received.rows(game_server, reveal);
        // The transaction sees the reveal (revealed_at is set) but not the seed.
        let hidden: bool = game_server
            .query_one(
                "SELECT revealed_at IS NOT NULL AND server_seed IS NULL
                   FROM fair_commitment WHERE desk_id = 1 AND round = 1",
                &[],
            )
            .unwrap()
            .get(0);
        assert!(hidden, "{reveal}: the revealing transaction sees the seed");
        read_everything(received, game_server, reveal, true);
        game_server.batch_execute("ROLLBACK").unwrap();
        assert_eq!(round_state(admin), in_force, "{reveal}");
    }
}

/// A savepoint rolled back, then read again in the same transaction.
fn undo_by_a_savepoint(desks: &mut FairDesks, in_force: (Option<i32>, bool)) {
    let FairDesks {
        admin,
        game_server,
        received,
        ..
    } = desks;
    game_server.batch_execute("BEGIN; SAVEPOINT s").unwrap();
    received.rows(game_server, "SELECT * FROM fair_reveal(1)");
    read_everything(received, game_server, "after a reveal in a savepoint", true);
    game_server
        .batch_execute("ROLLBACK TO SAVEPOINT s")
        .unwrap();
    read_everything(received, game_server, "after ROLLBACK TO SAVEPOINT", true);
    game_server.batch_execute("COMMIT").unwrap();
    assert_eq!(round_state(admin), in_force);
}

/// A DO block whose exception handler undoes the reveal, after raising what it read into
/// a notice and into its error.
fn undo_in_a_do_block(desks: &mut FairDesks, in_force: (Option<i32>, bool)) {
    let FairDesks {
        admin, game_server, ..
    } = desks;
    game_server
        .batch_execute(
            "DO $$
             DECLARE seen text;
             BEGIN
               BEGIN
                 PERFORM fair_reveal(1);
                 SELECT string_agg(coalesce(encode(server_seed, 'hex'), 'none'), ',') INTO seen
                   FROM fair_commitment;
                 RAISE NOTICE 'inside: %', seen;
                 RAISE EXCEPTION 'undo: %', seen;
               EXCEPTION WHEN raise_exception THEN
                 RAISE NOTICE 'handler: %', SQLERRM;
               END;
               SELECT string_agg(coalesce(encode(server_seed, 'hex'), 'none'), ',') INTO seen
                 FROM fair_commitment;
               RAISE NOTICE 'after: %', seen;
             END $$",
        )
        .unwrap();
    assert_eq!(round_state(admin), in_force);
}

/// A procedure that reveals, reads, and rolls back.
fn undo_in_a_procedure(desks: &mut FairDesks, in_force: (Option<i32>, bool)) {
    let FairDesks {
        admin, game_server, ..
    } = desks;
    game_server
        .batch_execute(
            "CREATE PROCEDURE pg_temp.reveal_and_undo() LANGUAGE plpgsql AS $$
             DECLARE seen text;
             BEGIN
               PERFORM fair_reveal(1);
               SELECT string_agg(coalesce(encode(server_seed, 'hex'), 'none'), ',') INTO seen
                 FROM fair_commitment;
               RAISE NOTICE 'before rollback: %', seen;
               ROLLBACK;
               SELECT string_agg(coalesce(encode(server_seed, 'hex'), 'none'), ',') INTO seen
                 FROM fair_commitment;
               RAISE NOTICE 'after rollback: %', seen;
             END $$;",
        )
        .unwrap();
    // A CALL of its own: transaction control needs a CALL outside any transaction block.
    game_server
        .batch_execute("CALL pg_temp.reveal_and_undo()")
        .unwrap();
    assert_eq!(round_state(admin), in_force);
}

/// PREPARE TRANSACTION, read from another connection, ROLLBACK PREPARED.
fn undo_a_prepared_transaction(desks: &mut FairDesks, in_force: (Option<i32>, bool)) {
    let FairDesks {
        admin,
        game_server,
        listener,
        received,
        ..
    } = desks;
    game_server.batch_execute("BEGIN").unwrap();
    received.rows(game_server, "SELECT * FROM fair_reveal(1)");
    read_everything(received, game_server, "before PREPARE TRANSACTION", true);
    game_server
        .batch_execute("PREPARE TRANSACTION 'dealcards_undone_reveal'")
        .unwrap();
    read_everything(received, listener, "while the reveal is prepared", false);
    read_everything(
        received,
        game_server,
        "after PREPARE, same connection",
        false,
    );
    game_server
        .batch_execute("ROLLBACK PREPARED 'dealcards_undone_reveal'")
        .unwrap();
    assert_eq!(round_state(admin), in_force);
}

/// Nothing of all that shows a seed, and the round deals on under its commitment.
fn check_nothing_shows_a_seed(desks: &mut FairDesks) {
    let FairDesks {
        admin,
        game_server,
        listener,
        notices,
        received,
        secrets,
        ..
    } = desks;
    for notice in notices.lock().unwrap().drain(..) {
        received.add("a notice", notice);
    }
    for (channel, payload) in
        crate::server::notifications(listener, std::time::Duration::from_millis(200))
    {
        received.add(format!("NOTIFY {channel}"), payload);
    }
    received.assert_none_of(secrets);
    let (_, _, commitment, _) = parse_dealt(&crate::desks::deal(game_server, 1));
    let committed: Vec<u8> = admin
        .query_one(
            "SELECT commitment FROM fair_seed WHERE desk_id = 1 AND round = 1",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(commitment, hex::encode(&committed));
}

/// A procedure that reveals and commits: the round has ended for good when the seed is
/// read, and that is the seed the reads above would have found (the check can fail).
fn reveal_and_commit(desks: &mut FairDesks) {
    let FairDesks {
        admin,
        game_server,
        notices,
        secrets,
        ..
    } = desks;
    game_server
        .batch_execute(
            "CREATE PROCEDURE pg_temp.reveal_and_commit() LANGUAGE plpgsql AS $$
             DECLARE seen text;
             BEGIN
               PERFORM fair_reveal(1);
               COMMIT;
               SELECT encode(server_seed, 'hex') INTO seen FROM fair_commitment
                WHERE desk_id = 1 AND round = 1;
               RAISE NOTICE 'after commit: %', seen;
             END $$;",
        )
        .unwrap();
    game_server
        .batch_execute("CALL pg_temp.reveal_and_commit()")
        .unwrap();
    assert_eq!(round_state(admin), (Some(2), true));
    let after_commit: Vec<String> = notices.lock().unwrap().drain(..).collect();
    assert!(
        after_commit
            .iter()
            .any(|n| secrets[0].found_in(n).is_some()),
        "the committed reveal's seed was not read: {after_commit:?}"
    );
    assert_eq!(shown_seed(game_server, 1, 1), Some(secrets[0].raw.clone()));
}
