//! Objects that read game, bid_record or note with the rights of a role that row level security
//! does not restrict (the tables' owner, a superuser, a role with BYPASSRLS) cannot show a
//! provably fair deal in the transaction that dealt it: a view that is not security_invoker, a
//! SECURITY DEFINER function (SQL, PL/pgSQL, one that COPYs or samples the table), a rule, a
//! materialized view refreshed in the transaction. Each is refused (42501) there, and works
//! again once the deal has committed; after an ordinary deal each works as before. A
//! security_invoker view reads as the game server: not refused, the deal's rows hidden. ANALYZE,
//! which would sample the deal into the statistics, is refused in that transaction (55000).
//! The tables' owner here is the superuser that made the extension.

use postgres::error::SqlState;
use postgres::Client;

use crate::desks::seat;
use crate::roles::{
    fair_desk, games_at_desk, honest_deal_is_on_the_record, refused, server_version, DESK,
};
use crate::server::{connect_as, fresh_role};

/// What the refusal of a read as a role that row security does not restrict says.
const UNRESTRICTED: &str = "which row level security does not restrict";

/// A desk not in provably fair mode, seated.
const ORDINARY_DESK: i32 = 2;

/// What each object shows of the games: a count of the rows it read.
const READS: [(&str, &str); 7] = [
    ("the owner's view", "SELECT count(*) FROM dealcards_report"),
    (
        "a BYPASSRLS role's view",
        "SELECT count(*) FROM dealcards_bypass_report",
    ),
    (
        "the owner's SQL SECURITY DEFINER function",
        "SELECT dealcards_sql_hands()",
    ),
    (
        "the owner's PL/pgSQL SECURITY DEFINER function",
        "SELECT dealcards_plpgsql_hands()",
    ),
    (
        "the owner's function that COPYs the table",
        "SELECT dealcards_copy_games()",
    ),
    (
        "the owner's function that samples the table",
        "SELECT dealcards_sample_games()",
    ),
    (
        "the owner's rule",
        "INSERT INTO dealcards_peek VALUES (1); SELECT count(*) FROM dealcards_peek_log",
    ),
];

/// The owner's objects over game, bid_record and note, each granted to `game_server`; and a
/// view of `bypass`, a role with BYPASSRLS and SELECT on game.
fn owner_objects(admin: &mut Client, game_server: &str, bypass: &str) {
    fresh_role(admin, bypass, "NOLOGIN BYPASSRLS");
    admin
        .batch_execute(&format!(
            "CREATE VIEW dealcards_report AS
                 SELECT g.game_id, g.p1_cards, b.rec_idx, n.body
                   FROM game g LEFT JOIN bid_record b USING (game_id)
                   LEFT JOIN note n ON n.body LIKE '%#' || g.game_id;
             CREATE FUNCTION dealcards_sql_hands() RETURNS bigint LANGUAGE sql SECURITY DEFINER
                 AS 'SELECT count(p1_cards) FROM game';
             CREATE FUNCTION dealcards_plpgsql_hands() RETURNS bigint LANGUAGE plpgsql
                 SECURITY DEFINER AS $$ BEGIN RETURN (SELECT count(*) FROM bid_record); END $$;
             CREATE FUNCTION dealcards_copy_games() RETURNS bigint LANGUAGE plpgsql
                 SECURITY DEFINER AS $$
                 DECLARE copied bigint;
                 BEGIN
                   COPY game TO '/dev/null';
                   GET DIAGNOSTICS copied = ROW_COUNT;
                   RETURN copied;
                 END $$;
             CREATE FUNCTION dealcards_sample_games() RETURNS bigint LANGUAGE sql
                 SECURITY DEFINER AS 'SELECT count(*) FROM sample_rows(NULL::game, 1000)';
             CREATE TABLE dealcards_peek (n int);
             CREATE TABLE dealcards_peek_log (cards int[]);
             CREATE RULE dealcards_peek_games AS ON INSERT TO dealcards_peek
                 DO ALSO INSERT INTO dealcards_peek_log SELECT p1_cards FROM game;
             GRANT SELECT ON dealcards_report TO {game_server};
             GRANT INSERT ON dealcards_peek TO {game_server};
             GRANT SELECT ON dealcards_peek_log TO {game_server};
             GRANT SELECT ON game TO {bypass};
             GRANT CREATE ON SCHEMA public TO {bypass};
             SET ROLE {bypass};
             CREATE VIEW dealcards_bypass_report AS SELECT game_id, p1_cards FROM game;
             GRANT SELECT ON dealcards_bypass_report TO {game_server};
             RESET ROLE;"
        ))
        .unwrap();
}

/// The count `sql` (statements, the last a count) returns.
fn count(client: &mut Client, sql: &str) -> Result<i64, postgres::Error> {
    let messages = client.simple_query(sql)?;
    let rows: Vec<i64> = messages
        .iter()
        .filter_map(|m| match m {
            postgres::SimpleQueryMessage::Row(row) => row.get(0).map(|v| v.parse().unwrap()),
            _ => None,
        })
        .collect();
    Ok(*rows.last().expect("no count"))
}

/// Each read runs after a deal at `desk`, in the dealing transaction, then rolled back;
/// `refuse` says whether it must be refused. Returns what the reads that ran returned.
fn read_after_deal(client: &mut Client, desk: i32, refuse: bool) -> Vec<i64> {
    let mut counts = Vec::new();
    for (what, sql) in READS {
        client.batch_execute("BEGIN").unwrap();
        client.query_one("SELECT deal_cards($1)", &[&desk]).unwrap();
        match count(client, sql) {
            Ok(n) if !refuse => counts.push(n),
            Ok(n) => panic!("{what} read {n} in the dealing transaction"),
            Err(err) if refuse => {
                assert_eq!(
                    err.code(),
                    Some(&SqlState::INSUFFICIENT_PRIVILEGE),
                    "{what}: {err:?}"
                );
                let message = err.as_db_error().unwrap().message();
                assert!(message.contains(UNRESTRICTED), "{what}: {message}");
            }
            Err(err) => panic!("{what} after an ordinary deal: {err}"),
        }
        client.batch_execute("ROLLBACK").unwrap();
    }
    counts
}

#[test]
fn the_owners_views_functions_and_rules_show_no_deal_before_the_commit() {
    let db = "dealcards_fair_owner_objects";
    let game_server = "dealcards_fair_owner_objects_server";
    let mut admin = fair_desk(db, game_server);
    seat(&mut admin, ORDINARY_DESK, &[1, 2, 3]);
    owner_objects(
        &mut admin,
        game_server,
        "dealcards_fair_owner_objects_bypass",
    );
    let mut client = connect_as(db, game_server);
    // In the transaction of a provably fair deal: every one refused.
    read_after_deal(&mut client, DESK, true);
    assert_eq!(games_at_desk(&mut admin), 0);
    // After an ordinary deal, each reads the new game with the rest.
    let counts = read_after_deal(&mut client, ORDINARY_DESK, false);
    assert!(counts.iter().all(|&c| c >= 1), "{counts:?}");
    // The fair deal committed, each reads it.
    honest_deal_is_on_the_record(db, game_server);
    for (what, sql) in READS {
        let n = count(&mut client, sql).unwrap();
        assert!(n >= 1, "{what}: {n}");
    }
    // The superuser's own deal (the house) leaves its reads open in its transaction.
    admin.batch_execute("BEGIN").unwrap();
    admin.query_one("SELECT deal_cards($1)", &[&DESK]).unwrap();
    let count: i64 = admin
        .query_one("SELECT count(*) FROM dealcards_report", &[])
        .unwrap()
        .get(0);
    assert!(count >= 2, "{count}");
    admin.batch_execute("ROLLBACK").unwrap();
}

/// A materialized view refreshed in the dealing transaction: the game server's own reads as it
/// (the deal's rows hidden); the owner's, which the game server may refresh from PostgreSQL 17
/// on (MAINTAIN) and not before, is refused either way.
#[test]
fn a_materialized_view_refreshed_in_the_dealing_transaction_shows_no_deal() {
    let db = "dealcards_fair_owner_matview";
    let game_server = "dealcards_fair_owner_matview_server";
    let mut admin = fair_desk(db, game_server);
    admin
        .batch_execute(&format!(
            "CREATE MATERIALIZED VIEW dealcards_owner_games AS SELECT game_id, p1_cards FROM game;
             GRANT SELECT ON dealcards_owner_games TO {game_server};
             GRANT CREATE ON SCHEMA public TO {game_server};"
        ))
        .unwrap();
    if server_version(&mut admin) >= 170000 {
        admin
            .batch_execute(&format!(
                "GRANT MAINTAIN ON dealcards_owner_games TO {game_server}"
            ))
            .unwrap();
    }
    let mut client = connect_as(db, game_server);
    client
        .batch_execute(
            "CREATE MATERIALIZED VIEW dealcards_own_games AS SELECT game_id, p1_cards FROM game",
        )
        .unwrap();
    client.batch_execute("BEGIN").unwrap();
    client.query_one("SELECT deal_cards($1)", &[&DESK]).unwrap();
    let seen = count(
        &mut client,
        "REFRESH MATERIALIZED VIEW dealcards_own_games; SELECT count(*) FROM dealcards_own_games",
    )
    .unwrap();
    assert_eq!(seen, 0);
    client.batch_execute("ROLLBACK").unwrap();
    let message = refused(
        &mut client,
        &format!(
            "BEGIN; SELECT deal_cards({DESK}); REFRESH MATERIALIZED VIEW dealcards_owner_games"
        ),
        "the owner's materialized view",
    );
    if server_version(&mut admin) >= 170000 {
        assert!(message.contains(UNRESTRICTED), "{message}");
    }
    assert_eq!(games_at_desk(&mut admin), 0);
    honest_deal_is_on_the_record(db, game_server);
    client
        .batch_execute("REFRESH MATERIALIZED VIEW dealcards_own_games")
        .unwrap();
    let seen: i64 = client
        .query_one("SELECT count(*) FROM dealcards_own_games", &[])
        .unwrap()
        .get(0);
    assert_eq!(seen, 1);
}

/// A security_invoker view (PostgreSQL 15 and later) reads as the game server: not refused in
/// the dealing transaction, and the deal's rows are hidden; after the commit it shows them.
#[test]
fn a_security_invoker_view_works_and_hides_the_deal() {
    let db = "dealcards_fair_owner_invoker";
    let game_server = "dealcards_fair_owner_invoker_server";
    let mut admin = fair_desk(db, game_server);
    if server_version(&mut admin) < 150000 {
        // No security_invoker views before PostgreSQL 15: CREATE VIEW refuses the option.
        let err = admin
            .batch_execute("CREATE VIEW dealcards_invoker WITH (security_invoker) AS SELECT 1")
            .expect_err("security_invoker on PostgreSQL 14");
        assert_eq!(err.code(), Some(&SqlState::INVALID_PARAMETER_VALUE));
        return;
    }
    admin
        .batch_execute(&format!(
            "CREATE VIEW dealcards_invoker WITH (security_invoker) AS
                 SELECT g.game_id, g.p1_cards FROM game g
                 UNION ALL SELECT b.game_id, NULL FROM bid_record b;
             GRANT SELECT ON dealcards_invoker TO {game_server};"
        ))
        .unwrap();
    let mut client = connect_as(db, game_server);
    client.batch_execute("BEGIN").unwrap();
    client.query_one("SELECT deal_cards($1)", &[&DESK]).unwrap();
    let seen: i64 = client
        .query_one("SELECT count(*) FROM dealcards_invoker", &[])
        .unwrap()
        .get(0);
    assert_eq!(seen, 0);
    client.batch_execute("COMMIT").unwrap();
    let seen: i64 = client
        .query_one("SELECT count(*) FROM dealcards_invoker", &[])
        .unwrap()
        .get(0);
    assert_eq!(seen, 3, "the game and its two opening bid records");
}

/// ANALYZE samples the rows of its own transaction: after a provably fair deal it is refused
/// (55000) to a game server that owns the database (and so may ANALYZE game); before the deal,
/// and after an ordinary deal, it runs.
#[test]
fn analyze_in_the_dealing_transaction_is_refused() {
    let db = "dealcards_fair_owner_analyze";
    let game_server = "dealcards_fair_owner_analyze_server";
    let mut admin = fair_desk(db, game_server);
    seat(&mut admin, ORDINARY_DESK, &[1, 2, 3]);
    admin
        .batch_execute(&format!("ALTER DATABASE {db} OWNER TO {game_server}"))
        .unwrap();
    let mut client = connect_as(db, game_server);
    client
        .batch_execute(&format!(
            "BEGIN; ANALYZE game; SELECT deal_cards({ORDINARY_DESK}); ANALYZE game; ROLLBACK"
        ))
        .unwrap();
    for analyze in ["ANALYZE game", "ANALYZE", "ANALYZE note (body)"] {
        let err = client
            .batch_execute(&format!("BEGIN; SELECT deal_cards({DESK}); {analyze}"))
            .expect_err(analyze);
        client.batch_execute("ROLLBACK").unwrap();
        assert_eq!(
            err.code(),
            Some(&SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE),
            "{analyze}: {err:?}"
        );
    }
    assert_eq!(games_at_desk(&mut admin), 0);
    honest_deal_is_on_the_record(db, game_server);
    client.batch_execute("ANALYZE game").unwrap();
}

/// A foreign key of the game server's own table to game is checked in the dealing transaction
/// as ever (its check reads game as the table's owner and shows no row): a row naming the new
/// game is stored, one naming no game is refused (23503).
#[test]
fn a_foreign_key_to_game_is_checked_in_the_dealing_transaction() {
    let db = "dealcards_fair_owner_keys";
    let game_server = "dealcards_fair_owner_keys_server";
    let mut admin = fair_desk(db, game_server);
    admin
        .batch_execute(&format!(
            "GRANT REFERENCES ON game TO {game_server};
             GRANT CREATE ON SCHEMA public TO {game_server};"
        ))
        .unwrap();
    let mut client = connect_as(db, game_server);
    client
        .batch_execute("CREATE TABLE dealcards_my_games (desk_id int, game_id bigint, FOREIGN KEY (desk_id, game_id) REFERENCES game)")
        .unwrap();
    client.batch_execute("BEGIN").unwrap();
    let game: i64 = client
        .query_one("SELECT (deal_cards($1)->>'game')::bigint", &[&DESK])
        .unwrap()
        .get(0);
    client
        .execute(
            "INSERT INTO dealcards_my_games VALUES ($1, $2)",
            &[&DESK, &game],
        )
        .unwrap();
    let err = client
        .execute(
            "INSERT INTO dealcards_my_games VALUES ($1, $2)",
            &[&DESK, &(game + 1000)],
        )
        .expect_err("a key to no game");
    assert_eq!(err.code(), Some(&SqlState::FOREIGN_KEY_VIOLATION), "{err}");
    client.batch_execute("ROLLBACK").unwrap();
}
