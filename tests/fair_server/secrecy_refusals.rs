//! Reading the server seeds directly is refused, and the errors of bad calls and of rewritten
//! desks carry no seed.

use postgres::error::SqlState;
use postgres::Client;

use crate::secrecy::{connect_collecting, FairDesks, Received};
use crate::server;

/// Reading fair_seed, or becoming someone who may, is refused with 42501, through a view of the
/// role's own and COPY too; the errors hold no seed.
#[test]
fn reading_the_seeds_directly_is_refused() {
    let FairDesks {
        mut game_server,
        notices,
        mut received,
        secrets,
        ..
    } = FairDesks::new("dealcards_fair_refused", "dealcards_fair_refused_server");
    let superuser = server::dsn_setting("user");
    // Reading the seeds directly, or becoming someone who may.
    let denied = SqlState::INSUFFICIENT_PRIVILEGE;
    for sql in [
        "SELECT * FROM fair_seed".to_string(),
        "SELECT server_seed FROM fair_seed WHERE desk_id = 1".to_string(),
        "SELECT count(*) FROM fair_seed".to_string(),
        "TABLE fair_seed".to_string(),
        "BEGIN; LOCK TABLE fair_seed IN ACCESS SHARE MODE".to_string(),
        "UPDATE fair_seed SET revealed_at = now()".to_string(),
        "UPDATE desk_player SET client_seed = 'x'".to_string(),
        "INSERT INTO desk_player (desk_id, player_no, player_id, seed_round) VALUES (1, 3, 13, 1)"
            .to_string(),
        "GRANT SELECT ON fair_seed TO PUBLIC".to_string(),
        "ALTER VIEW fair_commitment RESET (security_barrier)".to_string(),
        "SELECT * FROM pg_statistic".to_string(),
        format!("SET ROLE {superuser}"),
        format!("SET SESSION AUTHORIZATION {superuser}"),
    ] {
        received.refused(&mut game_server, &sql, &denied);
    }
    // A view of the role's own over the table reads it with the role's privileges: none. (A
    // temporary one, as any role may create; before PostgreSQL 15 public would do as well.)
    game_server
        .batch_execute("CREATE VIEW pg_temp.seeds AS SELECT * FROM fair_seed")
        .unwrap();
    received.refused(&mut game_server, "SELECT * FROM pg_temp.seeds", &denied);
    let copy = game_server.copy_out("COPY fair_seed TO STDOUT");
    let err = copy.err().expect("COPY fair_seed succeeded");
    assert_eq!(err.code(), Some(&denied), "{err}");
    received.add(
        "COPY fair_seed TO STDOUT",
        format!("{:?}", err.as_db_error()),
    );

    for notice in notices.lock().unwrap().drain(..) {
        received.add("a notice", notice);
    }
    received.assert_none_of(&secrets);
}

/// Bad calls, and rewrites of a desk's fair state (which the role may not make: it has no
/// UPDATE on the desk's provably fair columns), get their SQLSTATEs, in a connection that has
/// dealt (and keeps the seed) and in a fresh one; their errors carry no seed.
#[test]
fn errors_of_bad_calls_and_rewritten_desks_carry_no_seed() {
    let FairDesks {
        db,
        role,
        mut game_server,
        notices,
        mut received,
        commitments,
        secrets,
        ..
    } = FairDesks::new("dealcards_fair_errors", "dealcards_fair_errors_server");
    let mut fresh = connect_collecting(db, role, notices.clone());
    for client in [&mut game_server, &mut fresh] {
        for (sql, code) in bad_calls() {
            received.refused(client, sql, &code);
        }
    }
    // Desk 1's commitment at desk 2: refused, and without the seed (more:
    // a_desk_names_only_an_unrevealed_round_of_its_own).
    received.refused(
        &mut fresh,
        &format!(
            "BEGIN; UPDATE desk SET fair_commitment = '\\x{}' WHERE desk_id = 2;
             SELECT deal_cards(2)",
            hex::encode(&commitments[&1])
        ),
        &SqlState::INSUFFICIENT_PRIVILEGE,
    );

    for notice in notices.lock().unwrap().drain(..) {
        received.add("a notice", notice);
    }
    received.assert_none_of(&secrets);
}

/// Bad calls, and rewrites of a desk's fair state, each with its SQLSTATE.
fn bad_calls() -> Vec<(&'static str, SqlState)> {
    vec![
        ("SELECT fair_mode_on(99)", SqlState::NO_DATA_FOUND),
        ("SELECT * FROM fair_reveal(99)", SqlState::NO_DATA_FOUND),
        ("SELECT fair_mode_off(99)", SqlState::NO_DATA_FOUND),
        (
            "SELECT * FROM fair_verify_desk(99)",
            SqlState::NO_DATA_FOUND,
        ),
        ("SELECT * FROM fair_verify_game(0)", SqlState::NO_DATA_FOUND),
        ("SELECT deal_cards(99)", SqlState::NO_DATA_FOUND),
        (
            "SELECT set_client_seed(1, 4, 'x')",
            SqlState::INVALID_PARAMETER_VALUE,
        ),
        (
            "SELECT set_client_seed(1, 1, repeat('x', 257))",
            SqlState::INVALID_PARAMETER_VALUE,
        ),
        (
            "SELECT set_client_seed(1, 1, 'again')",
            SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE,
        ),
        (
            "SELECT set_client_seed(1, 3, 'the house seat')",
            SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE,
        ),
        (
            "SELECT fair_mode_on(1, '{0}')",
            SqlState::INVALID_PARAMETER_VALUE,
        ),
        (
            "SELECT * FROM fair_deal('\\x00', ARRAY['', '', ''], 0)",
            SqlState::INVALID_PARAMETER_VALUE,
        ),
        (
            "SELECT * FROM fair_deal(sha256(''), ARRAY['', ''], 0)",
            SqlState::INVALID_PARAMETER_VALUE,
        ),
        (
            "SELECT * FROM fair_deal(sha256(''), ARRAY['', '', ''], -1)",
            SqlState::INVALID_PARAMETER_VALUE,
        ),
        (
            "BEGIN; UPDATE desk SET fair_commitment = '\\x00' WHERE desk_id = 1;
             SELECT deal_cards(1)",
            SqlState::INSUFFICIENT_PRIVILEGE,
        ),
        (
            "BEGIN; UPDATE desk SET fair_round = fair_round + 5 WHERE desk_id = 1;
             SELECT * FROM fair_reveal(1)",
            SqlState::INSUFFICIENT_PRIVILEGE,
        ),
        (
            "BEGIN; UPDATE desk SET fair_commitment = NULL WHERE desk_id = 1;
             SELECT deal_cards(1)",
            SqlState::INSUFFICIENT_PRIVILEGE,
        ),
        (
            "BEGIN; SELECT set_client_seed(2, 1, 'new'); SELECT deal_cards(2)",
            SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE,
        ),
    ]
}

/// Roles a DBA grants more than the game server's: SELECT on every table of the schema (the
/// usual read-only recipe), or membership of pg_read_all_data (reporting, monitoring and backup
/// users). fair_seed has row security with one policy: they read, without error, the rounds
/// whose reveal has committed (public in fair_commitment too) and no round in force; nor the
/// round their own transaction reveals, which it could still undo.
#[test]
fn table_wide_grants_and_pg_read_all_data_read_no_seed() {
    let FairDesks {
        mut admin,
        mut received,
        secrets,
        ..
    } = FairDesks::new("dealcards_fair_readers", "dealcards_fair_readers_server");
    let db = "dealcards_fair_readers";
    grant_the_readers(&mut admin);
    // The owner sees every seed: desk 3's revealed round and the three in force.
    let in_force = seeds_by_owner(&mut admin, false);
    // As received.rows gives them: each row as a record's text.
    let revealed: Vec<String> = seeds_by_owner(&mut admin, true)
        .iter()
        .map(|seed| format!("({seed})"))
        .collect();
    assert_eq!((revealed.len(), in_force.len()), (1, 3));
    for role in ["dealcards_fair_reader_all", "dealcards_fair_reader_schema"] {
        let mut reader = server::connect_as(db, role);
        check_the_reader_reads_only_revealed_seeds(
            &mut reader,
            &mut received,
            role,
            &revealed,
            &in_force,
        );
        check_the_readers_own_reveals_stay_hidden(&mut reader, &mut received, role, &revealed);
    }
    // None of those reveals stayed: desk 3's round in force is the one of before.
    assert_eq!(seeds_by_owner(&mut admin, false), in_force);
    received.assert_none_of(&secrets);
}

/// A role in pg_read_all_data and one with SELECT on every table of the schema, both allowed
/// what the functions that lock a desk need; desk 3 in provably fair mode, a round revealed.
fn grant_the_readers(admin: &mut Client) {
    server::fresh_role(admin, "dealcards_fair_reader_all", "LOGIN");
    server::fresh_role(admin, "dealcards_fair_reader_schema", "LOGIN");
    admin
        .batch_execute(
            "GRANT pg_read_all_data TO dealcards_fair_reader_all;
             GRANT USAGE ON SCHEMA public TO dealcards_fair_reader_schema;
             GRANT SELECT ON ALL TABLES IN SCHEMA public TO dealcards_fair_reader_schema;
             -- What the functions that lock a desk need, so that the readers can reveal too.
             GRANT UPDATE (cur_game_id) ON desk
                TO dealcards_fair_reader_all, dealcards_fair_reader_schema;
             INSERT INTO desk (desk_id) VALUES (3);
             SELECT fair_mode_on(3, seeds_required => false);
             SELECT * FROM fair_reveal(3);",
        )
        .unwrap();
}

/// The seeds of the revealed rounds, or of those in force, as the owner sees them.
fn seeds_by_owner(admin: &mut Client, revealed: bool) -> Vec<String> {
    admin
        .query(
            "SELECT encode(server_seed, 'hex') FROM fair_seed
              WHERE (revealed_at IS NOT NULL) = $1 ORDER BY 1",
            &[&revealed],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

/// The reader reads the revealed round's seed and none in force, by SELECT or COPY.
fn check_the_reader_reads_only_revealed_seeds(
    reader: &mut Client,
    received: &mut Received,
    role: &str,
    revealed: &[String],
    in_force: &[String],
) {
    let seen = received.rows(
        reader,
        "SELECT encode(server_seed, 'hex') FROM fair_seed ORDER BY 1",
    );
    assert_eq!(seen, revealed, "{role}");
    let rows = received.rows(
        reader,
        "SELECT server_seed FROM fair_seed WHERE desk_id = 1",
    );
    assert!(rows.is_empty(), "{role}: {rows:?}");
    let mut copied = String::new();
    std::io::Read::read_to_string(
        &mut reader.copy_out("COPY fair_seed TO STDOUT").unwrap(),
        &mut copied,
    )
    .unwrap();
    assert_eq!(
        copied.lines().count(),
        1,
        "{role}: COPY fair_seed: {copied}"
    );
    for seed in in_force {
        assert!(!copied.contains(seed.as_str()), "{role}: COPY fair_seed");
    }
}

/// A reveal in the reader's own transaction: the round stays hidden from it. The same in a
/// savepoint rolled back, and in a DO block whose subtransactions reveal, look and are
/// undone, over and over: a round seen there would fail the block.
fn check_the_readers_own_reveals_stay_hidden(
    reader: &mut Client,
    received: &mut Received,
    role: &str,
    revealed: &[String],
) {
    reader.batch_execute("BEGIN").unwrap();
    received.rows(reader, "SELECT round FROM fair_reveal(3)");
    let seen = received.rows(
        reader,
        "SELECT encode(server_seed, 'hex') FROM fair_seed ORDER BY 1",
    );
    assert_eq!(seen, revealed, "{role}, in the revealing transaction");
    reader.batch_execute("ROLLBACK").unwrap();
    reader.batch_execute("BEGIN; SAVEPOINT look").unwrap();
    received.rows(reader, "SELECT round FROM fair_reveal(3)");
    let seen = received.rows(
        reader,
        "SELECT encode(server_seed, 'hex') FROM fair_seed ORDER BY 1",
    );
    assert_eq!(seen, revealed, "{role}, in the revealing savepoint");
    reader
        .batch_execute("ROLLBACK TO SAVEPOINT look; ROLLBACK")
        .unwrap();
    reader
        .batch_execute(
            "DO $$
             BEGIN
                 FOR i IN 1 .. 5 LOOP
                     BEGIN
                         PERFORM fair_reveal(3);
                         IF (SELECT count(*) FROM fair_seed) <> 1 THEN
                             RAISE EXCEPTION 'saw the round being revealed' USING ERRCODE = 'P0002';
                         END IF;
                         RAISE EXCEPTION 'undo' USING ERRCODE = 'P0003';
                     EXCEPTION WHEN SQLSTATE 'P0003' THEN NULL;
                     END;
                 END LOOP;
             END
             $$",
        )
        .unwrap_or_else(|e| panic!("{role}, revealing in undone subtransactions: {e:?}"));
}
