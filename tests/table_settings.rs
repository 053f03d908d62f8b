#![cfg(feature = "server_tests")]
//! What a DBA sets on dealcards' tables is kept through a dump and restore, or refused at once
//! (docs/operations.md, "Settings on dealcards' tables"). pg_dump writes no table property of
//! an extension's table: storage parameters and statistics targets are recorded in
//! `dealcards_table_setting` and applied again by the restore; every other property a dump would
//! drop is refused with 0A000 and left as it was. Runs on every major: what pg_dump keeps and
//! what ALTER TABLE may change differ between majors.

mod server;

use postgres::Client;

fn settings(client: &mut Client) -> Vec<String> {
    client
        .query(
            "SELECT c.relname || ' ' || coalesce(c.reloptions::text, '{}') || ' toast '
                    || coalesce(t.reloptions::text, '{}') || ' ' || coalesce(
                       (SELECT string_agg(a.attname || '=' || a.attstattarget, ',' ORDER BY a.attnum)
                          FROM pg_attribute a
                         WHERE a.attrelid = c.oid AND a.attnum > 0 AND a.attstattarget >= 0), '')
               FROM pg_class c LEFT JOIN pg_class t ON t.oid = c.reltoastrelid
              WHERE c.relnamespace = 'public'::regnamespace
                AND c.relname IN ('game', 'desk', 'note')
              ORDER BY 1",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

fn games(client: &mut Client) -> i64 {
    client
        .query_one("SELECT count(*) FROM game", &[])
        .unwrap()
        .get(0)
}

#[test]
fn tuned_storage_parameters_and_statistics_targets_survive_a_dump_and_restore() {
    let mut source = server::fresh_database("dealcards_settings_source");
    source
        .batch_execute(
            "CREATE EXTENSION dealcards;
             INSERT INTO desk (desk_id) VALUES (1);
             INSERT INTO desk_player VALUES (1, 1, 11), (1, 2, 12), (1, 3, 13);
             SELECT deal_cards(1);
             ALTER TABLE game SET (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.01,
                                   toast.autovacuum_enabled = false);
             ALTER TABLE game ALTER COLUMN desk_id SET STATISTICS 500;
             ALTER TABLE desk SET (autovacuum_enabled = false);
             ALTER TABLE note SET (fillfactor = 70);
             ALTER TABLE note RESET (fillfactor);",
        )
        .unwrap();
    let set = settings(&mut source);
    assert!(
        set.iter().any(|s| s.starts_with("game {fillfactor=80,autovacuum_vacuum_scale_factor=0.01} toast {autovacuum_enabled=false} desk_id=500")),
        "{set:?}"
    );
    let recorded: Vec<String> = source
        .query(
            "SELECT table_name || ' ' || options::text || ' ' || column_statistics::text
               FROM dealcards_table_setting ORDER BY 1",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    // note went back to its defaults: no row; shuffle_queue's is the extension's own.
    assert_eq!(
        recorded,
        [
            "desk {autovacuum_enabled=false} {}",
            "game {fillfactor=80,autovacuum_vacuum_scale_factor=0.01,toast.autovacuum_enabled=false} {\"desk_id\": 500}",
            "shuffle_queue {fillfactor=50} {}",
        ]
    );

    let mut target = server::fresh_database("dealcards_settings_target");
    server::dump_and_restore("dealcards_settings_source", "dealcards_settings_target");
    assert_eq!(settings(&mut target), set);
    assert_eq!(games(&mut target), 1);

    // A parallel restore of a directory archive applies them as well, the plain command
    // (docs/operations.md): no key joins the extension's tables for it to break.
    let mut parallel = server::fresh_database("dealcards_settings_parallel");
    let dir = std::env::temp_dir().join(format!("dealcards-settings-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut args = server::program_args("dealcards_settings_source");
    args.extend([
        "--format=directory".into(),
        format!("--file={}", dir.display()),
    ]);
    server::run_program("pg_dump", &args);
    let mut args = server::program_args("dealcards_settings_parallel");
    args.extend([
        "--jobs=4".into(),
        "--exit-on-error".into(),
        dir.display().to_string(),
    ]);
    server::run_program("pg_restore", &args);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(games(&mut parallel), 1);
    assert_eq!(settings(&mut parallel), set);
}

/// Each kind of change a dump would drop, refused with 0A000 and leaving the table as it was.
#[test]
fn table_properties_a_dump_would_drop_are_refused() {
    let mut client = server::fresh_database("dealcards_settings_refused");
    client.batch_execute("CREATE EXTENSION dealcards").unwrap();
    // An empty location makes the tablespace in the data directory (a developer setting, there
    // on every supported major), so that SET TABLESPACE has somewhere to go.
    // (One statement a message: CREATE TABLESPACE cannot run in a multi-statement one.)
    let tablespace = [
        "SET allow_in_place_tablespaces = on",
        "DROP TABLESPACE IF EXISTS dealcards_settings_space",
        "CREATE TABLESPACE dealcards_settings_space LOCATION ''",
    ]
    .iter()
    .all(|sql| client.batch_execute(sql).is_ok());
    let before = table_properties(&mut client);
    let mut changes = vec![
        "ALTER TABLE game SET UNLOGGED",
        "ALTER TABLE game REPLICA IDENTITY FULL",
        "ALTER TABLE game DISABLE ROW LEVEL SECURITY",
        "ALTER TABLE desk ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE game FORCE ROW LEVEL SECURITY",
        "ALTER TABLE game CLUSTER ON game_desk_dealt_at_idx",
        "ALTER TABLE note ALTER COLUMN body SET DEFAULT 'hello'",
        "ALTER TABLE game ALTER COLUMN state_no DROP DEFAULT",
        "ALTER TABLE game ALTER COLUMN p1_id SET NOT NULL",
        "ALTER TABLE game ALTER COLUMN client_seeds SET STORAGE EXTERNAL",
        "ALTER TABLE dealcards_table_setting DISABLE TRIGGER ALL",
        "COMMENT ON TABLE game IS 'the games'",
        "COMMENT ON COLUMN game.leader IS 'who bids first'",
    ];
    if tablespace {
        changes.push("ALTER TABLE note SET TABLESPACE dealcards_settings_space");
    }
    for change in &changes {
        let error = client
            .batch_execute(change)
            .expect_err(&format!("{change} was not refused"));
        let db = error
            .as_db_error()
            .unwrap_or_else(|| panic!("{change}: {error}"));
        assert_eq!(db.code().code(), "0A000", "{change}: {db:?}");
        assert!(db.message().contains("refused"), "{change}: {db:?}");
        assert!(
            db.hint().is_some_and(|h| h.contains("allow_own_objects")),
            "{change}: {db:?}"
        );
        assert_eq!(
            table_properties(&mut client),
            before,
            "{change} left a change"
        );
    }
    assert!(
        tablespace || server_major(&mut client) < 15,
        "allow_in_place_tablespaces is missing"
    );
    // Knowingly, the change goes through.
    client
        .batch_execute(
            "SET dealcards.allow_own_objects = on;
             COMMENT ON TABLE game IS 'the games';
             RESET dealcards.allow_own_objects;",
        )
        .unwrap();
    assert_ne!(table_properties(&mut client), before);
    if tablespace {
        client
            .batch_execute("DROP TABLESPACE dealcards_settings_space")
            .unwrap();
    }
}

/// The properties of the extension's tables a dump would drop, one line a table.
fn table_properties(client: &mut Client) -> String {
    client
            .query_one(
                "SELECT string_agg(concat_ws(' ', c.relname, c.relpersistence, c.reltablespace,
                                             c.relreplident, c.relrowsecurity, c.relforcerowsecurity,
                                             obj_description(c.oid, 'pg_class'),
                                             (SELECT string_agg(concat_ws(':', a.attname,
                                                         pg_get_expr(d.adbin, d.adrelid), a.attnotnull,
                                                         a.attstorage, col_description(c.oid, a.attnum)), ',')
                                                FROM pg_attribute a
                                                LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
                                               WHERE a.attrelid = c.oid AND a.attnum > 0),
                                             (SELECT string_agg(i.indexrelid::regclass || ' ' || i.indisclustered, ',')
                                                FROM pg_index i WHERE i.indrelid = c.oid),
                                             (SELECT string_agg(t.tgname || ' ' || t.tgenabled::text, ',')
                                                FROM pg_trigger t WHERE t.tgrelid = c.oid)), E'\n' ORDER BY c.relname)
                   FROM pg_class c
                  WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'",
                &[],
            )
            .unwrap()
            .get(0)
}

fn server_major(client: &mut Client) -> i32 {
    client
        .query_one(
            "SELECT current_setting('server_version_num')::int / 10000",
            &[],
        )
        .unwrap()
        .get(0)
}

/// A role's own tables are not the guard's: a role with no privilege on dealcards' tables
/// alters and comments its own, and nothing is recorded for them.
#[test]
fn a_roles_own_tables_take_any_change() {
    let mut admin = server::fresh_database("dealcards_settings_own");
    admin.batch_execute("CREATE EXTENSION dealcards").unwrap();
    server::fresh_role(&mut admin, "dealcards_settings_user", "LOGIN");
    admin
        .batch_execute("GRANT CREATE ON SCHEMA public TO dealcards_settings_user")
        .unwrap();
    let mut user = server::connect_as("dealcards_settings_own", "dealcards_settings_user");
    user.batch_execute(
        "CREATE TABLE mine (id int PRIMARY KEY, t text);
         ALTER TABLE mine SET UNLOGGED;
         ALTER TABLE mine SET (fillfactor = 50);
         ALTER TABLE mine ALTER COLUMN t SET DEFAULT 'x';
         ALTER TABLE mine DISABLE TRIGGER ALL;
         COMMENT ON TABLE mine IS 'my own';",
    )
    .unwrap();
    let recorded: i64 = admin
        .query_one("SELECT count(*) FROM dealcards_table_setting", &[])
        .unwrap()
        .get(0);
    assert_eq!(recorded, 0);
    admin
        .batch_execute(
            "DROP TABLE mine; REVOKE CREATE ON SCHEMA public FROM dealcards_settings_user",
        )
        .unwrap();
}

/// A row written by hand into dealcards_table_setting is applied only when it names a table of
/// the extension, storage parameters as name=value and integer targets: nothing else reaches
/// the ALTER TABLE it runs.
#[test]
fn a_settings_row_takes_only_settings() {
    let mut client = server::fresh_database("dealcards_settings_rows");
    client.batch_execute("CREATE EXTENSION dealcards").unwrap();
    for (row, expected) in [
        ("('pg_class', '{fillfactor=80}', '{}')", "22023"),
        (
            "('game', '{\"fillfactor=80); DROP TABLE desk; --\"}', '{}')",
            "22023",
        ),
        (
            "('game', '{}', '{\"desk_id\": \"1; DROP TABLE desk\"}')",
            "22023",
        ),
        ("('game', '{}', '[1]')", "22023"),
        ("('game', '{}', '{\"no_such_column\": 10}')", "42703"),
        ("('game', '{no_such_parameter=1}', '{}')", "22023"),
    ] {
        let error = client
            .batch_execute(&format!("INSERT INTO dealcards_table_setting VALUES {row}"))
            .expect_err(row);
        assert_eq!(
            error.code().map(|c| c.code()),
            Some(expected),
            "{row}: {error:?}"
        );
    }
    let desk: i64 = client
        .query_one("SELECT count(*) FROM desk", &[])
        .unwrap()
        .get(0);
    assert_eq!(desk, 0);
    client
        .batch_execute(
            "INSERT INTO dealcards_table_setting VALUES ('game', '{fillfactor=60}', '{\"leader\": 5}')",
        )
        .unwrap();
    let applied: String = client
        .query_one(
            "SELECT c.reloptions::text || (SELECT attstattarget FROM pg_attribute
                                             WHERE attrelid = c.oid AND attname = 'leader')
               FROM pg_class c WHERE c.oid = 'game'::regclass",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(applied, "{fillfactor=60}5");
}
