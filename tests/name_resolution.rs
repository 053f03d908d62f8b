#![cfg(feature = "server_tests")]
//! Every statement the extension runs names exactly the object it means. A plain role that may
//! create objects in the extension's schema (public, with CREATE granted to PUBLIC, as before
//! PostgreSQL 15) and in a schema of its own plants lookalike functions, aggregates, operators
//! and tables; a superuser then calls every function that runs SQL under several search_paths.
//! No lookalike may run (each would make its creator a superuser, the escalation this guards
//! against), and no lookalike table may be read or written. Also: the functions follow
//! `ALTER SCHEMA ... RENAME` of the extension's schema and never write into a schema created
//! later under the old name.
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN).

mod server;

use postgres::Client;

const ATTACKER: &str = "dealcards_mallory";

/// The deals one call of [`call_every_statement_running_function`] makes.
const DEALS_PER_CALL: i64 = 4;

/// Every function of the extension that runs statements on its tables, called once each (the
/// queue functions on a queue of their own), as `caller` sees them. Each call must succeed.
fn call_every_statement_running_function(caller: &mut Client, desk: i32) {
    caller
        .query_one("SELECT deal_cards($1)", &[&desk])
        .unwrap_or_else(|e| panic!("deal_cards failed: {e}"));
    // Provably fair mode, from commitment to verification and back.
    let fair_game = |caller: &mut Client| -> i64 {
        let dealt: String = caller
            .query_one("SELECT deal_cards($1)::text", &[&desk])
            .unwrap_or_else(|e| panic!("deal_cards in provably fair mode failed: {e}"))
            .get(0);
        let dealt: serde_json::Value = serde_json::from_str(&dealt).unwrap();
        dealt["game"].as_i64().unwrap()
    };
    for call in [
        "SELECT fair_mode_on($1)",
        "SELECT set_client_seed($1, 1, 'Zoë')",
    ] {
        caller
            .execute(call, &[&desk])
            .unwrap_or_else(|e| panic!("{call} failed: {e}"));
    }
    let game = fair_game(caller);
    fair_game(caller);
    for call in [
        "SELECT * FROM fair_verify_desk($1)",
        "SELECT * FROM fair_reveal($1)",
    ] {
        caller
            .execute(call, &[&desk])
            .unwrap_or_else(|e| panic!("{call} failed: {e}"));
    }
    let verified: bool = caller
        .query_one("SELECT verified FROM fair_verify_game($1)", &[&game])
        .unwrap_or_else(|e| panic!("fair_verify_game failed: {e}"))
        .get(0);
    assert!(verified, "game {game} does not verify");
    fair_game(caller);
    caller
        .execute("SELECT fair_mode_off($1)", &[&desk])
        .unwrap_or_else(|e| panic!("fair_mode_off failed: {e}"));
    caller
        .execute(
            "SELECT * FROM fair_deal(pg_catalog.sha256('x'), '{a,b,c}', 1)",
            &[],
        )
        .unwrap_or_else(|e| panic!("fair_deal failed: {e}"));
    let queue: i64 = caller
        .query_one(
            "SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4, 5, 6]::bigint[], 'shuffle', 2)",
            &[],
        )
        .unwrap()
        .get(0);
    for call in [
        "SELECT shuffle_queue_next($1)",
        "SELECT shuffle_queue_next($1)",
        "SELECT shuffle_queue_next($1)",
        "SELECT shuffle_queue_prev($1)",
        "SELECT shuffle_queue_current($1)",
        "SELECT shuffle_queue_add($1, 7)",
        "SELECT shuffle_queue_remove($1, 7)",
        "SELECT shuffle_queue_remove($1, (SELECT shuffle_queue_current($1)))",
        "SELECT shuffle_queue_next($1)",
        "SELECT shuffle_queue_drop($1)",
    ] {
        caller
            .execute(call, &[&queue])
            .unwrap_or_else(|e| panic!("{call} failed: {e}"));
    }
}

/// The attacker's trap: run with a superuser's rights it makes the attacker a superuser, and
/// it records every call; then it does what the real object would, so nothing looks wrong.
fn trap_body(result: &str) -> String {
    format!(
        "BEGIN
           INSERT INTO {ATTACKER}.sprung VALUES (pg_catalog.current_query());
           IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) current_user) THEN
             EXECUTE 'ALTER ROLE {ATTACKER} SUPERUSER';
           END IF;
           {result}
         END"
    )
}

/// Lookalikes of what the extension's statements use, in `schema`, created by the attacker.
fn plant(attacker: &mut Client, schema: &str) {
    let mut sql = String::new();
    let function = |name: &str, args: &str, returns: &str, result: &str| {
        format!(
            "CREATE FUNCTION {schema}.{name}({args}) RETURNS {returns} LANGUAGE plpgsql AS $trap${}$trap$;\n",
            trap_body(result)
        )
    };
    sql += &function(
        "unnest",
        "a bigint[]",
        "SETOF bigint",
        "RETURN QUERY SELECT x FROM pg_catalog.unnest(a) x;",
    );
    sql += &function(
        "unnest",
        "a integer[]",
        "SETOF integer",
        "RETURN QUERY SELECT x FROM pg_catalog.unnest(a) x;",
    );
    sql += &function(
        "concat",
        "a smallint, b text, c bigint",
        "text",
        "RETURN pg_catalog.concat(a, b, c);",
    );
    sql += &function(
        "convert_to",
        "a text, b name",
        "bytea",
        "RETURN pg_catalog.convert_to(a, b);",
    );
    sql += &function(
        "convert_from",
        "a bytea, b name",
        "text",
        "RETURN pg_catalog.convert_from(a, b);",
    );
    sql += &function(
        "cardinality",
        "a text[]",
        "integer",
        "RETURN pg_catalog.cardinality(a);",
    );
    sql += &function(
        "clock_timestamp",
        "",
        "timestamptz",
        "RETURN pg_catalog.clock_timestamp();",
    );
    sql += &function(
        "trap_max4",
        "s integer, v integer",
        "integer",
        "RETURN pg_catalog.greatest(s, v);",
    );
    sql += &format!(
        "CREATE AGGREGATE {schema}.max(integer) (SFUNC = {schema}.trap_max4, STYPE = integer);\n"
    );
    sql += &function(
        "trap_max",
        "s bigint, v bigint",
        "bigint",
        "RETURN pg_catalog.greatest(s, v);",
    );
    sql += &format!(
        "CREATE AGGREGATE {schema}.max(bigint) (SFUNC = {schema}.trap_max, STYPE = bigint);\n"
    );
    // Comparison and arithmetic operators on the types the statements compare, each a trap.
    for (name, op, left, right, returns) in [
        ("eq88", "=", "bigint", "bigint", "boolean"),
        ("eq84", "=", "bigint", "integer", "boolean"),
        ("eq44", "=", "integer", "integer", "boolean"),
        ("eq24", "=", "smallint", "integer", "boolean"),
        ("eq22", "=", "smallint", "smallint", "boolean"),
        ("ge88", ">=", "bigint", "bigint", "boolean"),
        ("gt88", ">", "bigint", "bigint", "boolean"),
        ("le88", "<=", "bigint", "bigint", "boolean"),
        ("lt88", "<", "bigint", "bigint", "boolean"),
        ("pl84", "+", "bigint", "integer", "bigint"),
        ("mi84", "-", "bigint", "integer", "bigint"),
        ("pl44", "+", "integer", "integer", "integer"),
        ("eqbb", "=", "bytea", "bytea", "boolean"),
        ("gttt", ">", "timestamptz", "timestamptz", "boolean"),
    ] {
        sql += &function(
            &format!("trap_{name}"),
            &format!("a {left}, b {right}"),
            returns,
            &format!("RETURN a OPERATOR(pg_catalog.{op}) b;"),
        );
        sql += &format!(
            "CREATE OPERATOR {schema}.{op} (LEFTARG = {left}, RIGHTARG = {right}, FUNCTION = {schema}.trap_{name});\n"
        );
    }
    attacker
        .batch_execute(&sql)
        .unwrap_or_else(|e| panic!("planting in {schema}: {e}"));
}

/// Lookalike tables, empty, that anyone may read and write.
const TABLES: [&str; 8] = [
    "desk",
    "fair_seed",
    "desk_player",
    "game",
    "bid_record",
    "note",
    "shuffle_queue",
    "shuffle_queue_track",
];

fn plant_tables(owner: &mut Client, schema: &str, like: &str) {
    for table in TABLES {
        owner
            .batch_execute(&format!(
                "CREATE TABLE {schema}.{table} (LIKE {like}.{table} INCLUDING DEFAULTS);
                 GRANT ALL ON {schema}.{table} TO PUBLIC;"
            ))
            .unwrap();
    }
}

fn rows_in(client: &mut Client, schema: &str) -> i64 {
    TABLES
        .iter()
        .map(|t| -> i64 {
            client
                .query_one(&format!("SELECT count(*) FROM {schema}.{t}"), &[])
                .unwrap()
                .get(0)
        })
        .sum()
}

fn seat_desk(client: &mut Client, schema: &str, desk: i32) {
    client
        .batch_execute(&format!(
            "INSERT INTO {schema}.desk (desk_id) VALUES ({desk});
             INSERT INTO {schema}.desk_player VALUES ({desk}, 1, 11), ({desk}, 2, 12), ({desk}, 3, 13);"
        ))
        .unwrap();
}

#[test]
fn lookalikes_planted_by_a_plain_role_never_run() {
    let db = "dealcards_lookalikes";
    let mut admin = server::fresh_database(db);
    server::fresh_role(&mut admin, ATTACKER, "LOGIN");
    admin
        .batch_execute(&format!(
            "CREATE EXTENSION dealcards;
             GRANT CREATE ON SCHEMA public TO PUBLIC;
             GRANT CREATE ON DATABASE {db} TO {ATTACKER};
             -- A role that may read the games, as many applications' roles may.
             GRANT SELECT ON ALL TABLES IN SCHEMA public TO {ATTACKER};"
        ))
        .unwrap();
    seat_desk(&mut admin, "public", 1);

    let mut attacker = server::connect_as(db, ATTACKER);
    attacker
        .batch_execute(&format!(
            "CREATE SCHEMA {ATTACKER};
             CREATE TABLE {ATTACKER}.sprung (query text);
             GRANT USAGE ON SCHEMA {ATTACKER} TO PUBLIC;
             GRANT INSERT ON {ATTACKER}.sprung TO PUBLIC;"
        ))
        .unwrap();
    plant(&mut attacker, "public");
    plant(&mut attacker, ATTACKER);
    plant_tables(&mut attacker, ATTACKER, "public");
    // The traps work: called directly by a superuser, one escalates.
    let probe = format!("SELECT {ATTACKER}.trap_eq88(1, 1)");
    let mut check = server::connect_as(db, "postgres");
    check.execute("BEGIN", &[]).unwrap();
    check.execute(&probe, &[]).unwrap();
    let escalated: bool = check
        .query_one(
            &format!("SELECT rolsuper FROM pg_roles WHERE rolname = '{ATTACKER}'"),
            &[],
        )
        .unwrap()
        .get(0);
    assert!(
        escalated,
        "the trap does not work: the test would prove nothing"
    );
    check.execute("ROLLBACK", &[]).unwrap();

    for path in [
        "\"$user\", public",
        &format!("{ATTACKER}, public"),
        &format!("{ATTACKER}, pg_catalog, public"),
        &format!("public, {ATTACKER}, pg_catalog"),
    ] {
        admin
            .batch_execute(&format!("SET search_path = {path}"))
            .unwrap();
        call_every_statement_running_function(&mut admin, 1);
    }
    let mut check = server::connect_as(db, "postgres");
    check.batch_execute("SET search_path = pg_catalog").unwrap();
    let sprung: Vec<String> = check
        .query(&format!("SELECT query FROM {ATTACKER}.sprung"), &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(sprung.is_empty(), "lookalikes ran for: {sprung:?}");
    let superuser: bool = check
        .query_one(
            &format!("SELECT rolsuper FROM pg_roles WHERE rolname = '{ATTACKER}'"),
            &[],
        )
        .unwrap()
        .get(0);
    assert!(!superuser, "{ATTACKER} became a superuser");
    assert_eq!(
        rows_in(&mut check, ATTACKER),
        0,
        "a lookalike table was written"
    );
    let games: i64 = check
        .query_one("SELECT count(*) FROM public.game WHERE desk_id = 1", &[])
        .unwrap()
        .get(0);
    assert_eq!(
        games,
        4 * DEALS_PER_CALL,
        "every deal of each search_path in the extension's table"
    );
}

#[test]
fn functions_follow_a_renamed_schema_and_never_write_into_a_lookalike() {
    let db = "dealcards_renamed";
    let mut admin = server::fresh_database(db);
    admin
        .batch_execute("CREATE SCHEMA cards; CREATE EXTENSION dealcards SCHEMA cards;")
        .unwrap();
    seat_desk(&mut admin, "cards", 1);
    // A session that has dealt and stepped a queue keeps plans made under the old name.
    let mut before = server::connect_as(db, "postgres");
    before.batch_execute("SET search_path = cards").unwrap();
    call_every_statement_running_function(&mut before, 1);
    let queue: i64 = before
        .query_one("SELECT shuffle_queue_create(ARRAY[1, 2, 3]::bigint[])", &[])
        .unwrap()
        .get(0);
    before
        .execute("SELECT shuffle_queue_next($1)", &[&queue])
        .unwrap();

    admin
        .batch_execute("ALTER SCHEMA cards RENAME TO cards_renamed; CREATE SCHEMA cards;")
        .unwrap();
    // The old name now holds lookalikes with the same rows, ready to take any write.
    plant_tables(&mut admin, "cards", "cards_renamed");
    for table in TABLES {
        admin
            .batch_execute(&format!(
                "INSERT INTO cards.{table} SELECT * FROM cards_renamed.{table}"
            ))
            .unwrap();
    }
    let lookalike_rows = rows_in(&mut admin, "cards");

    // The session that dealt before the rename, and a new one.
    for mut session in [before, server::connect_as(db, "postgres")] {
        session
            .batch_execute("SET search_path = cards_renamed")
            .unwrap();
        call_every_statement_running_function(&mut session, 1);
        session
            .execute("SELECT shuffle_queue_next($1)", &[&queue])
            .unwrap();
    }

    assert_eq!(
        rows_in(&mut admin, "cards"),
        lookalike_rows,
        "a write went into the schema that took the old name"
    );
    let (games, front): (i64, i64) = {
        let row = admin
            .query_one(
                "SELECT (SELECT count(*) FROM cards_renamed.game),
                        (SELECT front FROM cards_renamed.shuffle_queue WHERE queue_id = $1)",
                &[&queue],
            )
            .unwrap();
        (row.get(0), row.get(1))
    };
    assert_eq!(
        games,
        3 * DEALS_PER_CALL,
        "every deal went into the renamed schema's game table"
    );
    assert_eq!(front, 3, "every step went into the renamed schema's queue");
}
