//! Who could see a provably fair deal before it commits is every role the session can act as:
//! the session user and the current user, and every role either is a member of (with or
//! without inheritance), which SET ROLE reaches. A session that can act as a role with
//! BYPASSRLS or REPLICATION, as pg_read_server_files or pg_execute_server_program (or with
//! CREATEROLE before PostgreSQL 16) is refused a provably fair deal (42501) before anything is
//! dealt, whatever role it deals as; a role switch before or after the deal changes nothing.
//! Each attack runs over the attacker's own connections; the game server with exactly the
//! documented grants still deals, and reads its deal once it has committed.

use postgres::error::SqlState;
use postgres::Client;

use crate::desks::{database_with_extension, seat};
use crate::grants::create_game_server_role;
use crate::server::{self, connect_as, fresh_role};

pub const DESK: i32 = 1;

/// A database with desk 1 seated in provably fair mode, every seat's seed set, and a game
/// server role `role` with exactly the documented grants; the superuser's connection.
pub fn fair_desk(db: &str, role: &str) -> Client {
    let mut admin = database_with_extension(db);
    create_game_server_role(&mut admin, role);
    seat(&mut admin, DESK, &[1, 2, 3]);
    admin.execute("SELECT fair_mode_on($1)", &[&DESK]).unwrap();
    for (seat, seed) in [(1, "north"), (2, "east"), (3, "south")] {
        admin
            .execute("SELECT set_client_seed($1, $2, $3)", &[&DESK, &seat, &seed])
            .unwrap();
    }
    admin
}

pub fn games_at_desk(admin: &mut Client) -> i64 {
    admin
        .query_one("SELECT count(*) FROM game WHERE desk_id = $1", &[&DESK])
        .unwrap()
        .get(0)
}

pub fn server_version(admin: &mut Client) -> i32 {
    let version: String = admin
        .query_one("SHOW server_version_num", &[])
        .unwrap()
        .get(0);
    version.parse().unwrap()
}

/// `sql` (statements ending with a provably fair deal at the desk) is refused with 42501 on
/// `client`, and the transaction is rolled back.
pub fn refused(client: &mut Client, sql: &str, who: &str) -> String {
    let err = client.batch_execute(sql).expect_err(who);
    client.batch_execute("ROLLBACK").unwrap();
    assert_eq!(
        err.code(),
        Some(&SqlState::INSUFFICIENT_PRIVILEGE),
        "{who}: {err:?}"
    );
    err.as_db_error().unwrap().message().to_string()
}

/// The game server deals, commits, and then reads its deal's hands: one game, three hands of
/// 17 cards.
pub fn honest_deal_is_on_the_record(db: &str, game_server: &str) {
    let mut client = connect_as(db, game_server);
    let game: i64 = client
        .query_one("SELECT (deal_cards($1)->>'game')::bigint", &[&DESK])
        .unwrap()
        .get(0);
    let row = client
        .query_one(
            "SELECT cardinality(p1_cards), cardinality(p2_cards), cardinality(p3_cards)
               FROM game WHERE game_id = $1",
            &[&game],
        )
        .unwrap();
    let hands: (i32, i32, i32) = (row.get(0), row.get(1), row.get(2));
    assert_eq!(hands, (17, 17, 17));
}

/// A pooler's login with BYPASSRLS, a member of the game server's role, deals as the game
/// server after SET ROLE (and would look after RESET ROLE): refused, whether the membership
/// inherits or not.
#[test]
fn a_bypassrls_login_that_sets_role_to_the_game_server_may_not_deal() {
    let db = "dealcards_fair_roles_pooler";
    let game_server = "dealcards_fair_roles_pooler_server";
    let mut admin = fair_desk(db, game_server);
    for (pooler, options) in [
        ("dealcards_fair_roles_pooler", "LOGIN BYPASSRLS"),
        (
            "dealcards_fair_roles_pooler_ni",
            "LOGIN BYPASSRLS NOINHERIT",
        ),
    ] {
        fresh_role(&mut admin, pooler, options);
        admin
            .batch_execute(&format!("GRANT {game_server} TO {pooler}"))
            .unwrap();
        let mut client = connect_as(db, pooler);
        let message = refused(
            &mut client,
            &format!("BEGIN; SET ROLE {game_server}; SELECT deal_cards({DESK})"),
            pooler,
        );
        assert!(
            message.contains(&format!("\"{pooler}\", which has BYPASSRLS")),
            "{message}"
        );
        // SET LOCAL ROLE, and the session user's own deal, the same.
        refused(
            &mut client,
            &format!("BEGIN; SET LOCAL ROLE {game_server}; SELECT deal_cards({DESK})"),
            pooler,
        );
    }
    assert_eq!(games_at_desk(&mut admin), 0);
    honest_deal_is_on_the_record(db, game_server);
}

/// A game server that is a member of a role with BYPASSRLS (it could SET LOCAL ROLE to it after
/// the deal), or of a role that is, or a NOINHERIT role that is: refused.
#[test]
fn a_game_server_that_can_become_a_bypassrls_role_may_not_deal() {
    let db = "dealcards_fair_roles_member";
    let honest = "dealcards_fair_roles_member_honest";
    let mut admin = fair_desk(db, honest);
    let bypass = "dealcards_fair_roles_bypass";
    let middle = "dealcards_fair_roles_middle";
    fresh_role(&mut admin, bypass, "NOLOGIN BYPASSRLS");
    fresh_role(&mut admin, middle, "NOLOGIN NOINHERIT");
    admin
        .batch_execute(&format!("GRANT {bypass} TO {middle}"))
        .unwrap();
    for (member, granted) in [
        ("dealcards_fair_roles_member_direct", bypass),
        ("dealcards_fair_roles_member_nested", middle),
    ] {
        for inherit in ["INHERIT", "NOINHERIT"] {
            create_game_server_role(&mut admin, member);
            admin
                .batch_execute(&format!(
                    "ALTER ROLE {member} {inherit}; GRANT {granted} TO {member}"
                ))
                .unwrap();
            let mut client = connect_as(db, member);
            let message = refused(
                &mut client,
                &format!("BEGIN; SELECT deal_cards({DESK}); SET LOCAL ROLE {bypass}"),
                member,
            );
            assert!(
                message.contains(&format!("\"{bypass}\", which has BYPASSRLS")),
                "{message}"
            );
        }
    }
    assert_eq!(games_at_desk(&mut admin), 0);
    honest_deal_is_on_the_record(db, honest);
}

/// A NOINHERIT member of pg_read_server_files, where that role has EXECUTE on
/// pg_read_binary_file, can read the WAL segment being written (SET ROLE pg_read_server_files), where a deal's rows are
/// before its commit: it is refused the deal before anything is dealt. So is a member of
/// pg_execute_server_program.
#[test]
fn a_member_of_the_roles_that_read_server_files_is_refused_before_it_deals() {
    let db = "dealcards_fair_roles_files";
    let honest = "dealcards_fair_roles_files_honest";
    let mut admin = fair_desk(db, honest);
    let reader = "dealcards_fair_roles_files_reader";
    create_game_server_role(&mut admin, reader);
    admin
        .batch_execute(&format!(
            "ALTER ROLE {reader} NOINHERIT;
             GRANT pg_read_server_files TO {reader};
             GRANT EXECUTE ON FUNCTION pg_read_binary_file(text, bigint, bigint, boolean)
                TO pg_read_server_files;"
        ))
        .unwrap();
    let mut client = connect_as(db, reader);
    // What it could do: read the WAL segment being written.
    client
        .batch_execute("SET ROLE pg_read_server_files")
        .unwrap();
    let read: i32 = client
        .query_one(
            "SELECT length(pg_read_binary_file(
                        'pg_wal/' || pg_walfile_name(pg_current_wal_insert_lsn()), 0, 8192, false))",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(read, 8192);
    client.batch_execute("RESET ROLE").unwrap();
    let message = refused(
        &mut client,
        &format!("BEGIN; SELECT deal_cards({DESK})"),
        reader,
    );
    assert!(
        message
            .contains("\"pg_read_server_files\", which has the privileges of pg_read_server_files"),
        "{message}"
    );
    let program = "dealcards_fair_roles_files_program";
    create_game_server_role(&mut admin, program);
    admin
        .batch_execute(&format!(
            "ALTER ROLE {program} NOINHERIT; GRANT pg_execute_server_program TO {program}"
        ))
        .unwrap();
    refused(
        &mut connect_as(db, program),
        &format!("BEGIN; SELECT deal_cards({DESK})"),
        program,
    );
    assert_eq!(games_at_desk(&mut admin), 0);
    honest_deal_is_on_the_record(db, honest);
}

/// A session user with REPLICATION (it could stream the WAL) under SET ROLE to the game
/// server: refused. So, before PostgreSQL 16, is a game server with CREATEROLE, which could
/// grant itself pg_read_server_files after the deal; from 16 on CREATEROLE grants only the
/// roles it administers, and it deals.
#[test]
fn a_replication_login_under_set_role_and_createrole_before_16_may_not_deal() {
    let db = "dealcards_fair_roles_replication";
    let game_server = "dealcards_fair_roles_replication_server";
    let mut admin = fair_desk(db, game_server);
    let login = "dealcards_fair_roles_replication_login";
    fresh_role(&mut admin, login, "LOGIN REPLICATION");
    admin
        .batch_execute(&format!("GRANT {game_server} TO {login}"))
        .unwrap();
    let message = refused(
        &mut connect_as(db, login),
        &format!("BEGIN; SET ROLE {game_server}; SELECT deal_cards({DESK})"),
        login,
    );
    assert!(
        message.contains(&format!("\"{login}\", which has REPLICATION")),
        "{message}"
    );
    assert_eq!(games_at_desk(&mut admin), 0);

    let creator = "dealcards_fair_roles_createrole";
    create_game_server_role(&mut admin, creator);
    admin
        .batch_execute(&format!("ALTER ROLE {creator} CREATEROLE"))
        .unwrap();
    let mut client = connect_as(db, creator);
    let deal = format!("BEGIN; SELECT deal_cards({DESK})");
    if server_version(&mut admin) < 160000 {
        let message = refused(&mut client, &deal, creator);
        assert!(message.contains("which has CREATEROLE"), "{message}");
        // What it could do after the deal: become a reader of the server's files.
        client
            .batch_execute(&format!(
                "BEGIN; GRANT pg_read_server_files TO {creator}; ROLLBACK"
            ))
            .unwrap();
    } else {
        client.batch_execute(&deal).unwrap();
        let err = client
            .batch_execute(&format!("GRANT pg_read_server_files TO {creator}"))
            .expect_err("CREATEROLE granted pg_read_server_files");
        assert_eq!(err.code(), Some(&SqlState::INSUFFICIENT_PRIVILEGE));
        client.batch_execute("ROLLBACK").unwrap();
    }
    assert_eq!(games_at_desk(&mut admin), 0);
    honest_deal_is_on_the_record(db, game_server);
}

/// The house deals as before: a superuser's login under SET SESSION AUTHORIZATION as the game
/// server, and a game server that can SET ROLE to the tables' owner (here a superuser).
#[test]
fn the_house_deals_as_before_whatever_role_it_deals_as() {
    let db = "dealcards_fair_roles_house";
    let game_server = "dealcards_fair_roles_house_server";
    let mut admin = fair_desk(db, game_server);
    admin
        .batch_execute(&format!(
            "BEGIN; SET SESSION AUTHORIZATION {game_server}; SELECT deal_cards({DESK}); COMMIT;
             RESET SESSION AUTHORIZATION"
        ))
        .unwrap();
    // A game server with BYPASSRLS that is a NOINHERIT member of the tables' owner.
    let owner = server::dsn_setting("user");
    let member = "dealcards_fair_roles_house_member";
    create_game_server_role(&mut admin, member);
    admin
        .batch_execute(&format!(
            "ALTER ROLE {member} BYPASSRLS NOINHERIT; GRANT {owner} TO {member}"
        ))
        .unwrap();
    connect_as(db, member)
        .batch_execute(&format!("SELECT deal_cards({DESK})"))
        .unwrap();
    assert_eq!(games_at_desk(&mut admin), 2);
}

/// The answer a backend keeps follows the roles: a game server's connection that has dealt is
/// refused its next deal once it is granted a BYPASSRLS role (or given REPLICATION itself), and
/// deals again once that is undone.
#[test]
fn a_grant_between_deals_of_one_connection_counts_at_once() {
    let db = "dealcards_fair_roles_grants";
    let game_server = "dealcards_fair_roles_grants_server";
    let mut admin = fair_desk(db, game_server);
    let bypass = "dealcards_fair_roles_grants_bypass";
    fresh_role(&mut admin, bypass, "NOLOGIN BYPASSRLS");
    let mut client = connect_as(db, game_server);
    let deal = format!("SELECT deal_cards({DESK})");
    client.batch_execute(&deal).unwrap();
    for (change, undo) in [
        (
            format!("GRANT {bypass} TO {game_server}"),
            format!("REVOKE {bypass} FROM {game_server}"),
        ),
        (
            format!("ALTER ROLE {game_server} REPLICATION"),
            format!("ALTER ROLE {game_server} NOREPLICATION"),
        ),
    ] {
        admin.batch_execute(&change).unwrap();
        refused(&mut client, &format!("BEGIN; {deal}"), &change);
        admin.batch_execute(&undo).unwrap();
        client.batch_execute(&deal).unwrap();
    }
    assert_eq!(games_at_desk(&mut admin), 3);
}
