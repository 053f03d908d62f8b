//! Separate backends, through real client connections, draw from separate streams: also when
//! the library is loaded into the postmaster by shared_preload_libraries before the fork.
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN).
#![cfg(feature = "server_tests")]

mod server;

#[test]
fn backends_started_together_get_different_permutations() {
    let mut clients: Vec<_> = (0..6).map(|_| server::connect()).collect();
    let preload: String = clients[0]
        .query_one("SHOW shared_preload_libraries", &[])
        .unwrap()
        .get(0);
    if std::env::var_os("DEALCARDS_EXPECT_PRELOAD").is_some() {
        assert!(preload.contains("dealcards"), "not preloaded: {preload:?}");
    }
    let deals: Vec<Vec<i32>> = clients
        .iter_mut()
        .map(|c| {
            c.query_one("SELECT shuffle_ints(1, 54)", &[])
                .unwrap()
                .get(0)
        })
        .collect();
    for (i, a) in deals.iter().enumerate() {
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (1..=54).collect::<Vec<_>>());
        for b in &deals[i + 1..] {
            assert_ne!(a, b, "two backends dealt the same deck");
        }
    }
    // The first draw of each backend is what a shared stream would repeat: check it alone too.
    let firsts: Vec<i32> = (0..6)
        .map(|_| {
            server::connect()
                .query_one("SELECT shuffle_ints(1, 1000000)", &[])
                .unwrap()
                .get::<_, Vec<i32>>(0)[0]
        })
        .collect();
    let mut distinct = firsts.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        firsts.len(),
        "backends repeated a stream: {firsts:?}"
    );
}

/// Errors reach the client as a message and its SQLSTATE, never with a Rust backtrace in
/// DETAIL: `make test` runs this file a second time against a server started with
/// RUST_BACKTRACE=1 in its environment, where a backtrace would be captured if the library let
/// it. The errors chosen have no DETAIL of their own.
#[test]
fn errors_carry_no_rust_backtrace() {
    let mut client = server::connect();
    for (sql, code) in [
        ("SELECT card_label(55)", "22023"),
        ("SELECT * FROM deal_hands(4)", "22023"),
        ("SELECT shuffle_queue_next(-1)", "P0002"),
        ("SELECT deal_cards(-1)", "P0002"),
    ] {
        let error = client.batch_execute(sql).unwrap_err();
        let error = error.as_db_error().expect("an error from the server");
        assert_eq!(error.code().code(), code, "{sql}: {}", error.message());
        assert_eq!(error.detail(), None, "{sql}");
    }
    // A cancel that lands inside a Rust loop travels through the library's error handling too.
    client
        .batch_execute("SET statement_timeout = '100ms'")
        .unwrap();
    let error = client
        .batch_execute("SELECT cardinality(shuffle_ints(1, 100000000))")
        .unwrap_err();
    let error = error.as_db_error().expect("an error from the server");
    assert_eq!(error.code().code(), "57014", "{}", error.message());
    assert_eq!(error.detail(), None);
}
