#![cfg(feature = "server_tests")]
//! Every statement the extension runs names exactly the object it means. A plain role that may
//! create objects in the extension's schema (public, with CREATE granted to PUBLIC, as before
//! PostgreSQL 15) and in a schema of its own plants lookalike functions, aggregates, operators
//! and tables; a superuser then calls every function that runs SQL under several search_paths.
//! No lookalike may run (each would make its creator a superuser, the escalation this guards
//! against), and no lookalike table may be read or written. Also: the functions follow
//! `ALTER SCHEMA ... RENAME` of the extension's schema and never write into a schema created
//! later under the old name. Which functions run statements the catalog says (every function of
//! the extension but the pure ones of server::catalog): one left out of the calls fails
//! `every_function_that_runs_statements_is_called_here`.
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN).

mod server;

use std::collections::BTreeSet;

use postgres::Client;

const ATTACKER: &str = "dealcards_mallory";

/// The deals one call of [`call_every_statement_running_function`] makes.
const DEALS_PER_CALL: i64 = 4;
/// The deal seat_desk makes to prepare a provably fair desk.
const SETUP_DEALS: i64 = 1;

/// Every function of the extension that runs statements, called once each (the queue functions
/// on a queue of their own), as `caller` sees them; each call must succeed. That no function
/// that runs statements is missing here is
/// [`every_function_that_runs_statements_is_called_here`]'s to check.
fn call_every_statement_running_function(caller: &mut Client, desk: i32) {
    caller
        .query_one("SELECT deal_cards($1)", &[&desk])
        .unwrap_or_else(|e| panic!("deal_cards failed: {e}"));
    call_the_fair_functions(caller, desk);
    call_the_queue_functions(caller);
    call_a_spread_queue(caller);
    call_a_weighted_queue(caller);
    call_an_album_queue(caller);
    call_a_long_queue_and_listener_queues(caller);
    call_maintenance_and_sample_rows(caller);
    call_the_hand_functions(caller);
    run_the_table_guards(caller);
}

/// A card room's hands: a blackjack shoe started, burned, opened, drawn from and ended.
fn call_the_hand_functions(caller: &mut Client) {
    let hand: i64 = caller
        .query_one("SELECT hand_start(1, 'blackjack', 2, decks => 1)", &[])
        .unwrap_or_else(|e| panic!("hand_start failed: {e}"))
        .get(0);
    for call in [
        "SELECT * FROM hand_deal($1)",
        "SELECT * FROM hand_deal($1, 'play')",
        "SELECT * FROM hand_draw($1, 1, 2)",
        "SELECT hand_end($1)",
    ] {
        caller
            .execute(call, &[&hand])
            .unwrap_or_else(|e| panic!("{call} failed: {e}"));
    }
    let board: i64 = caller
        .query_one("SELECT hand_start(2, 'bridge', board => 3)", &[])
        .unwrap_or_else(|e| panic!("hand_start failed: {e}"))
        .get(0);
    for call in ["SELECT * FROM hand_deal($1)", "SELECT hand_pbn($1)"] {
        caller
            .execute(call, &[&board])
            .unwrap_or_else(|e| panic!("{call} failed: {e}"));
    }
}

/// Provably fair mode. Deals at `desk`, which seat_desk put in the mode with a revealed round
/// (a game of it to verify) and the next one in force, both committed before: a provably
/// fair deal uses nothing its own transaction wrote, and some callers make all these calls
/// in one transaction. Commitments, seeds and reveals at desk + 100.
fn call_the_fair_functions(caller: &mut Client, desk: i32) {
    let fair_game = |caller: &mut Client| -> i64 {
        let dealt: String = caller
            .query_one("SELECT deal_cards($1)::text", &[&desk])
            .unwrap_or_else(|e| panic!("deal_cards in provably fair mode failed: {e:?}"))
            .get(0);
        let dealt: serde_json::Value = serde_json::from_str(&dealt).unwrap();
        dealt["game"].as_i64().unwrap()
    };
    let other = desk + 100;
    for call in [
        "SELECT fair_mode_on($1, house_seats => '{3}', seeds_required => false)",
        "SELECT set_client_seed($1, 1, 'Zoë')",
    ] {
        caller
            .execute(call, &[&other])
            .unwrap_or_else(|e| panic!("{call} failed: {e:?}"));
    }
    fair_game(caller);
    fair_game(caller);
    for call in [
        "SELECT * FROM fair_verify_desk($1)",
        "SELECT fair_publication($1)",
    ] {
        caller
            .execute(call, &[&desk])
            .unwrap_or_else(|e| panic!("{call} failed: {e:?}"));
    }
    // The desk's first fair game (under its revealed round), as the house publishes it: a
    // query of game here would read the lookalike tables of some search_paths.
    let game: i64 = caller
        .query_one(
            "SELECT pg_catalog.int8(fair_publication($1) OPERATOR(pg_catalog.->) 'games'
                    OPERATOR(pg_catalog.->) 0 OPERATOR(pg_catalog.->>) 'game')",
            &[&desk],
        )
        .unwrap()
        .get(0);
    let verified: bool = caller
        .query_one("SELECT verified FROM fair_verify_game($1)", &[&game])
        .unwrap_or_else(|e| panic!("fair_verify_game failed: {e:?}"))
        .get(0);
    assert!(verified, "game {game} does not verify");
    let receipt: String = caller
        .query_one("SELECT fair_receipt($1)::text", &[&game])
        .unwrap_or_else(|e| panic!("fair_receipt failed: {e:?}"))
        .get(0);
    let receipt: serde_json::Value = serde_json::from_str(&receipt).unwrap();
    assert_eq!(receipt["game"], game, "{receipt}");
    assert!(receipt["chain_hash"].is_string(), "{receipt}");
    fair_game(caller);
    for call in [
        "SELECT * FROM fair_reveal($1)",
        "SELECT * FROM fair_mode_off($1)",
    ] {
        caller
            .execute(call, &[&other])
            .unwrap_or_else(|e| panic!("{call} failed: {e:?}"));
    }
    caller
        .execute(
            "SELECT * FROM fair_deal(pg_catalog.sha256('x'), '{a,b,c}', 1)",
            &[],
        )
        .unwrap_or_else(|e| panic!("fair_deal failed: {e}"));
}

/// A shuffle queue of six tracks, through every plain queue call, then dropped.
fn call_the_queue_functions(caller: &mut Client) {
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
        "SELECT count(*) FROM shuffle_queue_played($1, 5, 1)",
        "SELECT shuffle_queue_add($1, 7)",
        "SELECT shuffle_queue_remove($1, 7)",
        "SELECT shuffle_queue_add_many($1, ARRAY[8, 9, 10]::bigint[])",
        "SELECT shuffle_queue_remove_many($1, ARRAY[9, (SELECT shuffle_queue_current($1))])",
        "SELECT shuffle_queue_add_many($1, ARRAY[9]::bigint[])",
        "SELECT shuffle_queue_remove($1, (SELECT shuffle_queue_current($1)))",
        "SELECT shuffle_queue_next($1)",
        "SELECT shuffle_queue_drop($1)",
    ] {
        caller
            .execute(call, &[&queue])
            .unwrap_or_else(|e| panic!("{call} failed: {e}"));
    }
}

/// A queue spread by group, on two levels.
fn call_a_spread_queue(caller: &mut Client) {
    let spread: i64 = caller
        .query_one(
            "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], groups => '{a,a,b,b}', \
                                      subgroups => '{x,y,x,x}')",
            &[],
        )
        .unwrap()
        .get(0);
    for call in [
        "SELECT shuffle_queue_next($1)",
        "SELECT shuffle_queue_add($1, 5, 'a', 'z')",
        "SELECT shuffle_queue_add($1, 6, 'c', 'w')",
        "SELECT shuffle_queue_prev($1)",
        "SELECT shuffle_queue_remove($1, 5)",
        "SELECT shuffle_queue_play_next($1, ARRAY[1, 2]::bigint[])",
        "SELECT shuffle_queue_play_later($1, ARRAY[3]::bigint[])",
        "SELECT shuffle_queue_up_next($1)",
        "SELECT count(*) FROM shuffle_queue_upcoming($1, 4)",
        "SELECT shuffle_queue_next($1)",
        "SELECT shuffle_queue_skip($1)",
        "SELECT count(*) FROM shuffle_queue_played($1)",
        "SELECT count(*) FROM shuffle_queue_now($1, 3)",
        "SELECT shuffle_queue_clear_up_next($1)",
        "SELECT shuffle_queue_jump($1, 4)",
        "SELECT shuffle_queue_skip_when_shuffling($1, 6)",
        "SELECT shuffle_queue_skip_when_shuffling($1, 6, false)",
        "SELECT shuffle_queue_drop(shuffle_queue_restore(shuffle_queue_save($1)))",
        "SELECT shuffle_queue_drop($1)",
    ] {
        caller
            .execute(call, &[&spread])
            .unwrap_or_else(|e| panic!("{call} failed: {e}"));
    }
}

/// Random play with weights.
fn call_a_weighted_queue(caller: &mut Client) {
    let weighted: i64 = caller
        .query_one(
            "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], 'random', 1, \
                                      weights => '{1,2,3,4}')",
            &[],
        )
        .unwrap()
        .get(0);
    for call in [
        "SELECT shuffle_queue_next($1)",
        "SELECT shuffle_queue_add($1, 5, 9)",
        "SELECT shuffle_queue_next($1)",
        "SELECT shuffle_queue_remove($1, 5)",
        "SELECT shuffle_queue_add_many($1, ARRAY[6, 7]::bigint[], ARRAY[2, 5])",
        "SELECT shuffle_queue_remove_many($1, ARRAY[7, 6]::bigint[])",
        "SELECT shuffle_queue_drop(shuffle_queue_restore(shuffle_queue_save($1)))",
        "SELECT shuffle_queue_drop($1)",
    ] {
        caller
            .execute(call, &[&weighted])
            .unwrap_or_else(|e| panic!("{call} failed: {e}"));
    }
}

/// A queue of whole albums.
fn call_an_album_queue(caller: &mut Client) {
    let albums: i64 = caller
        .query_one(
            "SELECT shuffle_queue_new_albums(ARRAY[1, 2, 3, 4, 5]::bigint[], \
                                             '{p,p,q,r,r}', '{a,a,a,b,b}')",
            &[],
        )
        .unwrap()
        .get(0);
    for call in [
        "SELECT shuffle_queue_next($1)",
        "SELECT shuffle_queue_next($1)",
        "SELECT count(*) FROM shuffle_queue_upcoming($1, 8)",
        "SELECT count(*) FROM shuffle_queue_now($1, 4)",
        "SELECT shuffle_queue_next($1)",
        "SELECT shuffle_queue_prev($1)",
        "SELECT shuffle_queue_prev($1)",
        "SELECT shuffle_queue_current($1)",
        "SELECT shuffle_queue_up_next($1)",
        "SELECT shuffle_queue_next($1)",
        "SELECT shuffle_queue_drop(shuffle_queue_restore(shuffle_queue_save($1)))",
        "SELECT shuffle_queue_drop($1)",
    ] {
        caller
            .execute(call, &[&albums])
            .unwrap_or_else(|e| panic!("{call} failed: {e}"));
    }
}

/// A jump deep into a long history (two swaps): 80 tracks, window 2, 100 plays; then the
/// queues of a listener.
fn call_a_long_queue_and_listener_queues(caller: &mut Client) {
    let long: i64 = caller
        .query_one(
            "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 80)::bigint), 'shuffle', 2)",
            &[],
        )
        .unwrap()
        .get(0);
    let played: Vec<i64> = (0..100)
        .map(|_| {
            caller
                .query_one("SELECT shuffle_queue_next($1)", &[&long])
                .unwrap()
                .get(0)
        })
        .collect();
    caller
        .execute("SELECT shuffle_queue_jump($1, $2)", &[&long, &played[59]])
        .unwrap_or_else(|e| panic!("a deep jump failed: {e}"));
    caller
        .execute("SELECT shuffle_queue_drop($1)", &[&long])
        .unwrap();
    // Queues for a listener: the plays recorded, held back by the next queues, forgotten.
    for call in [
        "SELECT shuffle_queue_next(shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], listener => $1))",
        "SELECT shuffle_queue_jump(shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], listener => $1), 4)",
        "SELECT shuffle_queue_next(shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], \
                                   groups => '{a,a,b,b}', listener => $1))",
        "SELECT shuffle_queue_drop(shuffle_queue_restore(shuffle_queue_save(\
                    shuffle_queue_new(ARRAY[1, 2]::bigint[], 'random', listener => $1))))",
        "SELECT shuffle_queue_forget($1)",
    ] {
        caller
            .execute(call, &[&7i64])
            .unwrap_or_else(|e| panic!("{call} failed: {e}"));
    }
}

/// After a switch-over to a subscriber: the sequences set from the tables (here each is past
/// its largest id already, and stays).
fn call_maintenance_and_sample_rows(caller: &mut Client) {
    caller
        .execute("SELECT * FROM dealcards_sync_sequences()", &[])
        .unwrap_or_else(|e| panic!("dealcards_sync_sequences failed: {e}"));
    caller
        .execute("SELECT * FROM dealcards_check()", &[])
        .unwrap_or_else(|e| panic!("dealcards_check failed: {e}"));
    // k random rows of a table (one whose name no search_path changes), seeded and not.
    for call in [
        "SELECT nspname FROM sample_rows(NULL::pg_catalog.pg_namespace, 2)",
        "SELECT nspname FROM sample_rows(NULL::pg_catalog.pg_namespace, 2, pg_catalog.sha256('x'))",
    ] {
        let rows = caller
            .query(call, &[])
            .unwrap_or_else(|e| panic!("{call} failed: {e:?}"));
        assert_eq!(rows.len(), 2, "{call}");
    }
}

/// The guards on the tables (event triggers, sql/install/guard.sql) run their statements on
/// ALTER TABLE and CREATE INDEX, and the settings table's trigger on its rows: a column added to an extension's table and an index made on
/// one are refused, each guard run whole. (The block names everything by schema: it runs
/// under the caller's search_path.)
fn run_the_table_guards(caller: &mut Client) {
    caller
        .batch_execute(
            "DO $guard$
             DECLARE ext_schema text;
             BEGIN
               SELECT n.nspname INTO ext_schema
                 FROM pg_catalog.pg_extension e
                 JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
                WHERE e.extname OPERATOR(pg_catalog.=) 'dealcards';
               BEGIN
                 EXECUTE pg_catalog.format('ALTER TABLE %I.note ADD COLUMN added integer', ext_schema);
                 RAISE EXCEPTION 'a column was added to the extension''s table note';
               EXCEPTION WHEN feature_not_supported THEN
                 NULL;
               END;
               -- A storage parameter set through dealcards_table_setting is applied, and
               -- resetting it takes the row away.
               EXECUTE pg_catalog.format(
                 'INSERT INTO %I.dealcards_table_setting VALUES (''note'', ''{fillfactor=90}'', ''{}'')
                  ON CONFLICT (table_name) DO UPDATE SET options = excluded.options', ext_schema);
               EXECUTE pg_catalog.format('ALTER TABLE %I.note RESET (fillfactor)', ext_schema);
               -- An index on a table of the caller's own passes, the guard run whole.
               CREATE TEMP TABLE IF NOT EXISTS own_table (x integer);
               CREATE INDEX IF NOT EXISTS own_table_x ON pg_temp.own_table (x);
               BEGIN
                 EXECUTE pg_catalog.format('CREATE INDEX note_body ON %I.note (body)', ext_schema);
                 RAISE EXCEPTION 'an index was made on the extension''s table note';
               EXCEPTION WHEN feature_not_supported THEN
                 NULL;
               END;
             END
             $guard$",
        )
        .unwrap_or_else(|e| panic!("the guards on the tables: {e}"));
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
        trap_function(schema, name, args, returns, result)
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
    sql += &operator_traps(schema);
    attacker
        .batch_execute(&sql)
        .unwrap_or_else(|e| panic!("planting in {schema}: {e}"));
}

/// A trap function `schema.name(args)` that returns `result`.
fn trap_function(schema: &str, name: &str, args: &str, returns: &str, result: &str) -> String {
    format!(
        "CREATE FUNCTION {schema}.{name}({args}) RETURNS {returns} LANGUAGE plpgsql AS $trap${}$trap$;\n",
        trap_body(result)
    )
}

/// Comparison and arithmetic operators on the types the statements compare, each a trap.
fn operator_traps(schema: &str) -> String {
    let mut sql = String::new();
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
        sql += &trap_function(
            schema,
            &format!("trap_{name}"),
            &format!("a {left}, b {right}"),
            returns,
            &format!("RETURN a OPERATOR(pg_catalog.{op}) b;"),
        );
        sql += &format!(
            "CREATE OPERATOR {schema}.{op} (LEFTARG = {left}, RIGHTARG = {right}, FUNCTION = {schema}.trap_{name});\n"
        );
    }
    sql
}

/// Lookalike tables, empty, that anyone may read and write.
const TABLES: [&str; 15] = [
    "desk",
    "fair_seed",
    "desk_player",
    "game",
    "bid_record",
    "note",
    "shuffle_queue",
    "shuffle_queue_track",
    "shuffle_queue_unit",
    "shuffle_queue_member",
    "shuffle_queue_up_next",
    "shuffle_queue_skipped",
    "shuffle_queue_weight",
    "shuffle_queue_play",
    "shuffle_queue_ahead",
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
    for d in [desk, desk + 100] {
        client
            .batch_execute(&format!(
                "INSERT INTO {schema}.desk (desk_id) VALUES ({d});
                 INSERT INTO {schema}.desk_player VALUES ({d}, 1, 11), ({d}, 2, 12), ({d}, 3, 13);"
            ))
            .unwrap();
    }
    // `desk` in provably fair mode with a game under a revealed round, and the next round in
    // force; each step its own transaction.
    for step in [
        format!("SELECT {schema}.fair_mode_on({desk}, seeds_required => false)"),
        format!("SELECT {schema}.deal_cards({desk})"),
        format!("SELECT {schema}.fair_reveal({desk})"),
    ] {
        client.batch_execute(&step).unwrap();
    }
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
    check_the_traps_work(db);

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
    check_no_lookalike_ran(db);
}

/// The traps work: called directly by a superuser, one escalates.
fn check_the_traps_work(db: &str) {
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
}

/// No lookalike ran, the attacker is no superuser, no lookalike table was written, and every
/// deal went to the extension's table.
fn check_no_lookalike_ran(db: &str) {
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
        SETUP_DEALS + 4 * DEALS_PER_CALL,
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
        SETUP_DEALS + 3 * DEALS_PER_CALL,
        "every deal went into the renamed schema's game table"
    );
    assert_eq!(front, 3, "every step went into the renamed schema's queue");
}

/// The functions of the extension that run statements and that
/// [`call_every_statement_running_function`] cannot call, each with why it is safe all the
/// same; the test below checks that each runs with its search_path pinned to
/// `pg_catalog, pg_temp`, so that no object of a caller's schema takes part.
const NOT_CALLED_HERE: [(&str, &str); 1] = [(
    "dealcards_distribute",
    "needs a Citus coordinator (tests/citus calls it)",
)];

/// The functions [`call_every_statement_running_function`] calls, as the server counts them
/// (track_functions = all, pg_stat_xact_user_functions, in one transaction), are every function
/// of the extension that runs statements (every one the catalog lists but
/// server::catalog::PURE_FUNCTIONS), but those of [`NOT_CALLED_HERE`]. A new function of the
/// extension fails here until the name-resolution tests call it or it is listed as pure.
#[test]
fn every_function_that_runs_statements_is_called_here() {
    let db = "dealcards_name_coverage";
    let mut admin = server::fresh_database(db);
    admin.batch_execute("CREATE EXTENSION dealcards").unwrap();
    seat_desk(&mut admin, "public", 1);
    let running = server::catalog::statement_running_functions(&mut admin);

    admin
        .batch_execute("BEGIN; SET LOCAL track_functions = 'all'")
        .unwrap();
    call_every_statement_running_function(&mut admin, 1);
    let called: BTreeSet<String> = admin
        .query(
            "SELECT DISTINCT s.funcname::text
               FROM pg_stat_xact_user_functions s
               JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = s.funcid
                AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
               JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'
              WHERE s.calls > 0",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    admin.batch_execute("ROLLBACK").unwrap();
    // The count can tell: the calls were counted, and a function not called is not.
    assert!(
        called.contains("deal_cards"),
        "no calls counted: {called:?}"
    );
    assert!(!called.contains("card_label"), "{called:?}");

    let not_called: BTreeSet<String> = NOT_CALLED_HERE.iter().map(|f| f.0.to_string()).collect();
    let missing: Vec<&String> = running
        .iter()
        .filter(|f| !called.contains(*f) && !not_called.contains(*f))
        .collect();
    assert!(
        missing.is_empty(),
        "functions of the extension that run statements, not called by \
         call_every_statement_running_function (nor listed in server::catalog::PURE_FUNCTIONS \
         if they run none): {missing:?}"
    );
    for (function, why) in NOT_CALLED_HERE {
        assert!(
            running.contains(function) && !called.contains(function),
            "{function} ({why}) is not a statement-running function left uncalled here"
        );
        let configs: Vec<Option<Vec<String>>> = admin
            .query(
                "SELECT p.proconfig FROM pg_proc p
                   JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                    AND d.deptype = 'e'
                   JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'
                  WHERE p.proname = $1",
                &[&function],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert!(!configs.is_empty(), "{function}");
        for config in configs {
            assert_eq!(
                config,
                Some(vec!["search_path=pg_catalog, pg_temp".to_string()]),
                "{function} ({why}) does not pin its search_path"
            );
        }
    }
}
