//! Connections to the throwaway server `make test` starts.
#![allow(dead_code)]

pub mod catalog;
mod notify;
pub mod queues;

#[allow(unused_imports)]
pub use notify::{expected_notifications, notifications};

use std::time::Duration;

use postgres::{Client, NoTls};

/// The connection string of the server under test.
pub fn dsn() -> String {
    std::env::var("DEALCARDS_TEST_DSN")
        .expect("DEALCARDS_TEST_DSN is not set: run these tests with `make test`")
}

/// A new connection to the test database, where `make test` has created the extension.
pub fn connect() -> Client {
    Client::connect(&dsn(), NoTls).expect("cannot connect to the test server")
}

/// A new connection to database `dbname` of the server under test, as role `user`.
pub fn connect_as(dbname: &str, user: &str) -> Client {
    Client::connect(&format!("{} dbname={dbname} user={user}", dsn()), NoTls)
        .unwrap_or_else(|e| panic!("cannot connect to {dbname} as {user}: {e}"))
}

/// An empty database of the test's own (dropped first if an earlier run left it), and a
/// connection to it as the superuser `make test` connects as.
pub fn fresh_database(dbname: &str) -> Client {
    create_database(dbname, "")
}

/// [`fresh_database`] in `encoding`, with the C locale so that any encoding goes.
pub fn fresh_database_in(dbname: &str, encoding: &str) -> Client {
    create_database(
        dbname,
        &format!(" ENCODING '{encoding}' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"),
    )
}

fn create_database(dbname: &str, options: &str) -> Client {
    let mut admin = connect();
    // Two commands: neither may run inside the transaction block of a multi-statement string.
    setup_command(
        &mut admin,
        &format!("DROP DATABASE IF EXISTS {dbname} WITH (FORCE)"),
    );
    setup_command(&mut admin, &format!("CREATE DATABASE {dbname}{options}"));
    let user: String = admin.query_one("SELECT current_user", &[]).unwrap().get(0);
    connect_as(dbname, &user)
}

/// A DROP or CREATE DATABASE that sets a test up. On PostgreSQL 14 both wait for a checkpoint,
/// and a checkpoint that fails (the server says why only in its log) fails them with XX000
/// "checkpoint request failed": the server's log and the free disk space are printed, and the
/// command is tried again twice, since it is the setup and not what the test is about.
fn setup_command(admin: &mut Client, sql: &str) {
    for attempt in 1.. {
        let Err(e) = admin.batch_execute(sql) else {
            return;
        };
        let checkpoint = e
            .as_db_error()
            .is_some_and(|d| d.message() == "checkpoint request failed");
        eprintln!("{sql}: {e}\n{}", server_diagnostics());
        if !checkpoint || attempt == 3 {
            panic!("{sql}: {e}\n{}", server_diagnostics());
        }
        std::thread::sleep(Duration::from_secs(2));
    }
}

/// The end of the test server's log (`make test` keeps it beside the socket, in the directory
/// the connection string names as host) and the free space of that file system.
pub fn server_diagnostics() -> String {
    let dir = dsn_setting("host");
    let log = std::fs::read_to_string(format!("{dir}/server.log")).unwrap_or_default();
    let tail: Vec<&str> = log.lines().rev().take(40).collect();
    let df = std::process::Command::new("df")
        .args(["-h", &dir])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    format!(
        "the last lines of {dir}/server.log:\n{}\n{df}",
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    )
}

/// One setting (host, port, user, dbname) of the connection string of the server under test.
pub fn dsn_setting(name: &str) -> String {
    dsn()
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("{name} missing from DEALCARDS_TEST_DSN"))
        .to_string()
}

/// A client program (pg_dump, pg_restore, psql) of the server's own PostgreSQL: `make test`
/// points DEALCARDS_PG_BIN at the bin directory of the major under test.
pub fn pg_program(name: &str) -> std::path::PathBuf {
    let bin = std::env::var("DEALCARDS_PG_BIN")
        .expect("DEALCARDS_PG_BIN is not set: run these tests with `make test`");
    std::path::Path::new(&bin).join(name)
}

/// The arguments that connect such a program to database `dbname` of the server under test.
pub fn program_args(dbname: &str) -> Vec<String> {
    vec![
        format!("--host={}", dsn_setting("host")),
        format!("--port={}", dsn_setting("port")),
        format!("--username={}", dsn_setting("user")),
        format!("--dbname={dbname}"),
    ]
}

/// Runs a client program of the server's PostgreSQL; panics with its stderr if it fails.
pub fn run_program(name: &str, args: &[String]) {
    let out = std::process::Command::new(pg_program(name))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{name} does not run: {e}"));
    assert!(
        out.status.success(),
        "{name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// pg_dump of database `from` (custom format), restored with pg_restore into the existing,
/// empty database `into`.
pub fn dump_and_restore(from: &str, into: &str) {
    let dump = std::env::temp_dir().join(format!("dealcards-{from}-{}.dump", std::process::id()));
    let mut args = program_args(from);
    args.extend([
        "--format=custom".to_string(),
        format!("--file={}", dump.display()),
    ]);
    run_program("pg_dump", &args);
    let mut args = program_args(into);
    args.extend(["--exit-on-error".to_string(), dump.display().to_string()]);
    run_program("pg_restore", &args);
    std::fs::remove_file(&dump).unwrap();
}

/// Whether the backend `pid` comes to wait for a lock within a minute, as `observer` sees it in
/// pg_stat_activity.
pub fn waits_for_a_lock(observer: &mut Client, pid: i32) -> bool {
    (0..1200).any(|_| {
        let waits: Option<String> = observer
            .query_one(
                "SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1",
                &[&pid],
            )
            .unwrap()
            .get(0);
        let locked = waits.as_deref() == Some("Lock");
        if !locked {
            std::thread::sleep(Duration::from_millis(50));
        }
        locked
    })
}

/// The role `role` created anew (`CREATE ROLE role options`) by `admin`: an earlier run's role
/// of that name is dropped first, with what it owns in `admin`'s database.
pub fn fresh_role(admin: &mut Client, role: &str, options: &str) {
    admin
        .batch_execute(&format!(
            "DO $$ BEGIN
               IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}') THEN
                 DROP OWNED BY {role}; DROP ROLE {role};
               END IF;
             END $$;
             CREATE ROLE {role} {options};"
        ))
        .unwrap();
}

/// The shared blocks a statement read and hit, as `EXPLAIN (ANALYZE, BUFFERS)` counts them:
/// those of every statement a function it calls runs included.
pub fn explained_blocks(client: &mut Client, statement: &str) -> i64 {
    // The simple query protocol gives EXPLAIN's json as text.
    let plan: String = client
        .simple_query(&format!(
            "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {statement}"
        ))
        .unwrap()
        .into_iter()
        .find_map(|m| match m {
            postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
            _ => None,
        })
        .unwrap();
    let plan: serde_json::Value = serde_json::from_str(&plan).unwrap();
    let top = &plan[0]["Plan"];
    top["Shared Hit Blocks"].as_i64().unwrap() + top["Shared Read Blocks"].as_i64().unwrap()
}
