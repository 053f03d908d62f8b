#![cfg(feature = "server_tests")]
//! shuffle_queue_upcoming through real connections: what it shows is what Next plays, from
//! another session too; a rolled-back statement leaves the promise as it was; every change to a
//! queue but Next and Previous drops it; paging shows a spread queue's pass whole.
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN).

mod server;

use std::collections::HashSet;
use std::thread;

use postgres::Client;

const SEED: &str =
    "decode('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex')";

fn database(name: &str) -> Client {
    let mut client = server::fresh_database(name);
    client.batch_execute("CREATE EXTENSION dealcards").unwrap();
    client
}

fn connect(name: &str) -> Client {
    server::connect_as(name, &server::dsn_setting("user"))
}

fn new_queue(client: &mut Client, sql: &str) -> i64 {
    client.query_one(sql, &[]).unwrap().get(0)
}

fn next(client: &mut Client, queue: i64) -> i64 {
    client
        .query_one("SELECT shuffle_queue_next($1)", &[&queue])
        .unwrap()
        .get(0)
}

/// The tracks of `shuffle_queue_upcoming(queue, n, offset)`, with their sources.
fn upcoming(client: &mut Client, queue: i64, n: i32, offset: i32) -> Vec<(i64, String)> {
    client
        .query(
            "SELECT track, source FROM shuffle_queue_upcoming($1, $2, $3) ORDER BY place",
            &[&queue, &n, &offset],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
}

fn tracks(list: &[(i64, String)]) -> Vec<i64> {
    list.iter().map(|t| t.0).collect()
}

fn steps_kept(client: &mut Client, queue: i64) -> i64 {
    client
        .query_one(
            "SELECT count(*) FROM shuffle_queue_ahead WHERE queue_id = $1",
            &[&queue],
        )
        .unwrap()
        .get(0)
}

/// One queue of each kind: plain shuffle, random with a window, weighted, spread by group with
/// two levels, seeded, for a listener.
fn every_kind(client: &mut Client) -> Vec<(&'static str, i64)> {
    let tracks = "ARRAY(SELECT generate_series(1, 30)::bigint)";
    [
        ("shuffle", format!("SELECT shuffle_queue_new({tracks})")),
        ("random", format!("SELECT shuffle_queue_new({tracks}, 'random', 5)")),
        (
            "weighted",
            format!(
                "SELECT shuffle_queue_new({tracks}, 'random', weights => ARRAY(SELECT 1 + g % 5 FROM generate_series(1, 30) g))"
            ),
        ),
        (
            "spread",
            format!(
                "SELECT shuffle_queue_new({tracks}, groups => ARRAY(SELECT 'artist ' || g % 4 FROM generate_series(1, 30) g),
                                        subgroups => ARRAY(SELECT 'album ' || g % 3 FROM generate_series(1, 30) g))"
            ),
        ),
        ("seeded", format!("SELECT shuffle_queue_new({tracks}, seed => {SEED})")),
        ("listener", format!("SELECT shuffle_queue_new({tracks}, listener => 7)")),
    ]
    .into_iter()
    .map(|(kind, sql)| (kind, new_queue(client, &sql)))
    .collect()
}

/// For every kind of queue, what upcoming shows (after a listener went back, with a track up
/// next) is what Next plays, pressed in another session: the replay, the track up next, then
/// the shuffle's, in two pages.
#[test]
fn what_upcoming_shows_is_what_next_plays_in_another_session() {
    let name = "dealcards_queue_ahead";
    let mut a = database(name);
    let mut b = connect(name);
    for (kind, queue) in every_kind(&mut a) {
        for _ in 0..4 {
            next(&mut a, queue);
        }
        a.execute("SELECT shuffle_queue_prev($1)", &[&queue])
            .unwrap();
        let later: i64 = a
            .query_one(
                "SELECT t FROM unnest(ARRAY(SELECT generate_series(1, 30)::bigint)) t
                  WHERE t <> shuffle_queue_current($1) LIMIT 1",
                &[&queue],
            )
            .unwrap()
            .get(0);
        a.execute(
            "SELECT shuffle_queue_play_later($1, ARRAY[$2::bigint])",
            &[&queue, &later],
        )
        .unwrap();
        let mut shown = upcoming(&mut a, queue, 8, 0);
        shown.extend(upcoming(&mut a, queue, 12, 8));
        assert_eq!(shown.len(), 20, "{kind}");
        assert_eq!(shown[0].1, "replay", "{kind}");
        assert_eq!(shown[1], (later, "up next".to_string()), "{kind}");
        assert!(shown[2..].iter().all(|t| t.1 == "shuffle"), "{kind}");
        let played: Vec<i64> = (0..20).map(|_| next(&mut b, queue)).collect();
        assert_eq!(played, tracks(&shown), "{kind}");
        assert_eq!(steps_kept(&mut a, queue), 0, "{kind}");
    }
}

/// A seeded queue plays the same tracks whether or not someone looked ahead.
#[test]
fn a_seeded_queue_plays_the_same_whether_or_not_someone_looked_ahead() {
    let name = "dealcards_queue_ahead_seeded";
    let mut client = database(name);
    for extra in [
        "",
        ", groups => ARRAY(SELECT 'a' || g % 3 FROM generate_series(1, 12) g)",
    ] {
        let sql = format!(
            "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 12)::bigint), seed => {SEED}{extra})"
        );
        let (looked, plain) = (new_queue(&mut client, &sql), new_queue(&mut client, &sql));
        next(&mut client, looked);
        next(&mut client, plain);
        let shown = tracks(&upcoming(&mut client, looked, 15, 0));
        let from_looked: Vec<i64> = (0..15).map(|_| next(&mut client, looked)).collect();
        let from_plain: Vec<i64> = (0..15).map(|_| next(&mut client, plain)).collect();
        assert_eq!(from_looked, shown);
        assert_eq!(from_plain, shown);
    }
}

/// A statement rolled back leaves the promise as it was: a Next, a longer look-ahead, an edit.
#[test]
fn a_rolled_back_statement_leaves_the_promise_as_it_was() {
    let name = "dealcards_queue_ahead_rollback";
    let mut client = database(name);
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 40)::bigint))",
    );
    let shown = tracks(&upcoming(&mut client, queue, 6, 0));
    for undone in [
        "SELECT shuffle_queue_next($1)",
        "SELECT count(*) FROM shuffle_queue_upcoming($1, 30)",
        "SELECT shuffle_queue_add($1, 100)",
        "SELECT shuffle_queue_jump($1, 40)",
    ] {
        client.batch_execute("BEGIN").unwrap();
        client.execute(undone, &[&queue]).unwrap();
        client.batch_execute("ROLLBACK").unwrap();
        assert_eq!(steps_kept(&mut client, queue), 6, "{undone}");
        assert_eq!(
            tracks(&upcoming(&mut client, queue, 6, 0)),
            shown,
            "{undone}"
        );
    }
    let played: Vec<i64> = (0..6).map(|_| next(&mut client, queue)).collect();
    assert_eq!(played, shown);
}

/// Next and Previous keep the steps drawn ahead; every other change drops them, and the queue
/// goes on.
#[test]
fn every_change_but_next_and_previous_drops_the_promise() {
    let name = "dealcards_queue_ahead_edits";
    let mut client = database(name);
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 40)::bigint),
                                  groups => ARRAY(SELECT 'a' || g % 5 FROM generate_series(1, 40) g))",
    );
    next(&mut client, queue);
    next(&mut client, queue);
    upcoming(&mut client, queue, 5, 0);
    client
        .execute("SELECT shuffle_queue_prev($1)", &[&queue])
        .unwrap();
    assert_eq!(steps_kept(&mut client, queue), 5);
    next(&mut client, queue);
    assert_eq!(
        steps_kept(&mut client, queue),
        5,
        "a replay plays none of them"
    );
    next(&mut client, queue);
    assert_eq!(steps_kept(&mut client, queue), 4);
    for edit in [
        "SELECT shuffle_queue_add($1, 100, 'a1')",
        "SELECT shuffle_queue_remove($1, 100)",
        "SELECT shuffle_queue_jump($1, 7)",
        "SELECT shuffle_queue_play_next($1, ARRAY[8]::bigint[])",
        "SELECT shuffle_queue_play_later($1, ARRAY[9]::bigint[])",
        "SELECT shuffle_queue_clear_up_next($1)",
        "SELECT shuffle_queue_skip_when_shuffling($1, 10)",
        "SELECT shuffle_queue_skip_when_shuffling($1, 10, false)",
    ] {
        upcoming(&mut client, queue, 5, 0);
        assert!(steps_kept(&mut client, queue) > 0, "{edit}");
        client.execute(edit, &[&queue]).unwrap();
        assert_eq!(steps_kept(&mut client, queue), 0, "{edit}");
        let shown = tracks(&upcoming(&mut client, queue, 3, 0));
        let played: Vec<i64> = (0..3).map(|_| next(&mut client, queue)).collect();
        assert_eq!(played, shown, "after {edit}");
    }
    client
        .execute("SELECT shuffle_queue_drop($1)", &[&queue])
        .unwrap();
    assert_eq!(steps_kept(&mut client, queue), 0);
}

/// A session pressing Next while another looks ahead waits for it, then plays what it showed.
#[test]
fn next_waits_for_a_look_ahead_and_plays_what_it_showed() {
    let name = "dealcards_queue_ahead_sessions";
    let mut a = database(name);
    let queue = new_queue(
        &mut a,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 50)::bigint), 'random', 10)",
    );
    a.batch_execute("BEGIN").unwrap();
    let shown = tracks(&upcoming(&mut a, queue, 10, 0));
    let presser = thread::spawn(move || {
        let mut b = connect(name);
        (0..10).map(|_| next(&mut b, queue)).collect::<Vec<i64>>()
    });
    thread::sleep(std::time::Duration::from_millis(300));
    a.batch_execute("COMMIT").unwrap();
    assert_eq!(presser.join().unwrap(), shown);
}

/// Paging through a spread queue 500 tracks at a time shows every track once in its first pass,
/// and the tracks of the pages are those Next plays. (5,000 tracks: what a test run affords;
/// BENCHMARKS.md has a larger queue.)
#[test]
fn paging_shows_a_spread_queues_pass_whole() {
    let name = "dealcards_queue_ahead_paging";
    let mut client = database(name);
    let n = 5_000;
    let queue = new_queue(
        &mut client,
        &format!(
            "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, {n})::bigint),
                                      groups => ARRAY(SELECT 'artist ' || g % 37 FROM generate_series(1, {n}) g))"
        ),
    );
    let mut pages = Vec::new();
    for page in 0..n / 500 {
        let shown = tracks(&upcoming(&mut client, queue, 500, page * 500));
        assert_eq!(shown.len(), 500);
        pages.extend(shown);
    }
    let distinct: HashSet<i64> = pages.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        n as usize,
        "a track twice or missing in the first pass"
    );
    let played: Vec<i64> = (0..600).map(|_| next(&mut client, queue)).collect();
    assert_eq!(played, pages[..600]);
}

/// The queue functions plan their statements with sequential scans off, as a SET clause would:
/// the caller's setting is back after each call, after one that fails too.
#[test]
fn a_queue_call_leaves_the_callers_settings_as_they_were() {
    let name = "dealcards_queue_ahead_settings";
    let mut client = database(name);
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 10)::bigint))",
    );
    let setting = |c: &mut Client| -> String {
        c.query_one("SELECT current_setting('enable_seqscan')", &[])
            .unwrap()
            .get(0)
    };
    for value in ["on", "off"] {
        client
            .batch_execute(&format!("SET enable_seqscan = {value}"))
            .unwrap();
        next(&mut client, queue);
        upcoming(&mut client, queue, 3, 0);
        assert_eq!(setting(&mut client), value);
        client.batch_execute("BEGIN; SAVEPOINT s").unwrap();
        let failed = client.execute("SELECT shuffle_queue_next(-1)", &[]);
        assert!(failed.is_err());
        client.batch_execute("ROLLBACK TO SAVEPOINT s").unwrap();
        assert_eq!(setting(&mut client), value);
        client.batch_execute("COMMIT").unwrap();
    }
}
