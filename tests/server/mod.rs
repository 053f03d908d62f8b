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
