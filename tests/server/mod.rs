//! Connections to the throwaway server `make test` starts.
#![allow(dead_code)]

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
    let mut admin = connect();
    // Two commands: neither may run inside the transaction block of a multi-statement string.
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {dbname} WITH (FORCE)"))
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {dbname}"))
        .unwrap();
    let user: String = admin.query_one("SELECT current_user", &[]).unwrap().get(0);
    connect_as(dbname, &user)
}
