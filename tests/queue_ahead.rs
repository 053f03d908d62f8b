#![cfg(feature = "server_tests")]
//! shuffle_queue_upcoming through real connections: what it shows is what Next plays, from
//! another session too; a rolled-back statement leaves the promise as it was; every change to a
//! queue but Next and Previous drops it; paging shows a spread queue's pass whole.
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN).

mod server;

use server::queues::{database, new_queue, next, tracks, upcoming, SEED};

use std::collections::HashSet;
use std::thread;

use postgres::Client;

fn connect(name: &str) -> Client {
    server::connect_as(name, &server::dsn_setting("user"))
}

/// How many steps are kept drawn ahead; the queue's row counts as many.
fn steps_kept(client: &mut Client, queue: i64) -> i64 {
    let row = client
        .query_one(
            "SELECT (SELECT count(*) FROM shuffle_queue_ahead WHERE queue_id = $1),
                    coalesce((SELECT ahead_steps FROM shuffle_queue WHERE queue_id = $1), 0)::bigint",
            &[&queue],
        )
        .unwrap();
    let (rows, counted): (i64, i64) = (row.get(0), row.get(1));
    assert_eq!(
        rows, counted,
        "the queue's row counts its steps drawn ahead"
    );
    rows
}

/// What each call of a list returns on `queue`: "next", "prev", "upcoming:N".
fn press_all(client: &mut Client, queue: i64, calls: &[&str]) -> Vec<Option<i64>> {
    let mut out = Vec::new();
    for call in calls {
        match *call {
            "next" => out.push(Some(next(client, queue))),
            "prev" => out.push(
                client
                    .query_one("SELECT shuffle_queue_prev($1)", &[&queue])
                    .unwrap()
                    .get(0),
            ),
            look => {
                let n: i32 = look.strip_prefix("upcoming:").unwrap().parse().unwrap();
                upcoming(client, queue, n, 0);
            }
        }
    }
    out
}

fn values(text: &str) -> Vec<Option<i64>> {
    text.split(' ').map(|v| v.parse().ok()).collect()
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

/// A seeded queue made now numbers only the operations that may draw: a Next that replays after
/// Previous is not one (rule 2), so looking ahead, going back and coming forward plays what an
/// unlooked queue plays. A queue restored from a state without "seed_rule" (one saved before
/// 0.7.0) keeps rule 1. Both against tests/reference/seeded_queue.py.
#[test]
fn a_seeded_queue_plays_the_same_after_previous_whether_or_not_someone_looked_ahead() {
    let name = "dealcards_queue_ahead_seed_rule";
    let mut client = database(name);
    // seeded_queue.py [--seed-rule 2] SEED shuffle:10 next*5 prev prev next*5
    let plain =
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 10)::bigint), seed => {SEED})"
            .replace("{SEED}", SEED);
    let mut calls = vec!["next"; 5];
    calls.extend(["prev", "prev"]);
    calls.extend(["next"; 5]);
    let rule_2 = values("4 6 3 9 1 9 3 9 1 5 8 7");
    let rule_1 = values("4 6 3 9 1 9 3 9 1 2 7 8");
    // seeded_queue.py [--seed-rule 2] SEED spread:Abba,Abba,Abba,Queen,Queen,Bowie,Abba,Prince,
    //   Queen,Bowie next*6 prev*3 next*14
    let spread = format!(
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 10)::bigint),
                groups => ARRAY['Abba', 'Abba', 'Abba', 'Queen', 'Queen', 'Bowie', 'Abba', 'Prince', 'Queen', 'Bowie'],
                seed => {SEED})"
    );
    let mut spread_calls = vec!["next"; 6];
    spread_calls.extend(["prev"; 3]);
    spread_calls.extend(["next"; 14]);
    let spread_rule_2 = values("8 5 10 7 4 1 4 7 10 7 4 1 6 3 9 2 5 3 6 2 9 8 7");
    let spread_rule_1 = values("8 5 10 7 4 1 4 7 10 7 4 1 6 2 9 3 6 2 4 1 9 8 10");
    for (sql, calls, rule_2, rule_1) in [
        (&plain, &calls, &rule_2, &rule_1),
        (&spread, &spread_calls, &spread_rule_2, &spread_rule_1),
    ] {
        let queue = new_queue(&mut client, sql);
        assert_eq!(&press_all(&mut client, queue, calls), rule_2);
        // The same presses with look-aheads between them, before and after going back.
        let looked = new_queue(&mut client, sql);
        let mut with_looks: Vec<&str> = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            if i % 3 == 1 {
                with_looks.push(if i % 2 == 0 {
                    "upcoming:4"
                } else {
                    "upcoming:12"
                });
            }
            with_looks.push(call);
        }
        assert_eq!(&press_all(&mut client, looked, &with_looks), rule_2);
        // A state saved before 0.7.0 has no "seed_rule": its queue numbers every Next.
        let old: i64 = client
            .query_one(
                &format!("SELECT shuffle_queue_restore(shuffle_queue_save(q) - 'seed_rule') FROM ({sql}) s (q)"),
                &[],
            )
            .unwrap()
            .get(0);
        assert_eq!(&press_all(&mut client, old, calls), rule_1);
    }
}

/// A saved and restored queue keeps the tracks it promised, for every kind of queue: the copy
/// shows them and plays them, as the queue does.
#[test]
fn a_restored_queue_keeps_its_promised_tracks() {
    let name = "dealcards_queue_ahead_restore";
    let mut client = database(name);
    for (kind, queue) in every_kind(&mut client) {
        for _ in 0..3 {
            next(&mut client, queue);
        }
        let shown = tracks(&upcoming(&mut client, queue, 12, 0));
        let copy: i64 = client
            .query_one(
                "SELECT shuffle_queue_restore(shuffle_queue_save($1))",
                &[&queue],
            )
            .unwrap()
            .get(0);
        assert_eq!(steps_kept(&mut client, copy), 12, "{kind}");
        assert_eq!(tracks(&upcoming(&mut client, copy, 12, 0)), shown, "{kind}");
        let from_copy: Vec<i64> = (0..12).map(|_| next(&mut client, copy)).collect();
        let from_queue: Vec<i64> = (0..12).map(|_| next(&mut client, queue)).collect();
        assert_eq!(from_copy, shown, "{kind}");
        assert_eq!(from_queue, shown, "{kind}");
    }
}

/// A page is asked for by name as well as by place (`after` is no reserved word, as `offset`
/// was: `offset => 5` is a syntax error), and a negative page or one past a million tracks is
/// refused with its SQLSTATE and message.
#[test]
fn upcoming_takes_its_page_by_name_and_refuses_bad_ones() {
    let mut client = database("dealcards_queue_ahead_named");
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 30)::bigint))",
    );
    let by_place = tracks(&upcoming(&mut client, queue, 5, 5));
    let by_name: Vec<i64> = client
        .query(
            "SELECT track FROM shuffle_queue_upcoming($1, n => 5, after => 5) ORDER BY place",
            &[&queue],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(by_name, by_place);
    for (sql, state, message) in [
        (
            "SELECT * FROM shuffle_queue_upcoming($1, after => -1)",
            postgres::error::SqlState::INVALID_PARAMETER_VALUE,
            "n and after must be 0 or more (n is 10, after -1)",
        ),
        (
            "SELECT * FROM shuffle_queue_upcoming($1, n => 2, after => 999999)",
            postgres::error::SqlState::PROGRAM_LIMIT_EXCEEDED,
            "a queue looks at most 1000000 tracks ahead (after + n is 1000001)",
        ),
    ] {
        let failed = client.query(sql, &[&queue]).unwrap_err();
        let db = failed.as_db_error().expect("an error of the server");
        assert_eq!((db.code(), db.message()), (&state, message), "{sql}");
    }
}

/// A state whose steps drawn ahead do not play their tracks from their draws, or that is not of
/// the format, is refused with 22023 and makes no queue.
#[test]
fn a_state_with_steps_that_do_not_play_is_refused() {
    let name = "dealcards_queue_ahead_refused";
    let mut client = database(name);
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 20)::bigint))",
    );
    let shown = tracks(&upcoming(&mut client, queue, 5, 0));
    let other = (1..=20).find(|t| *t != shown[3]).unwrap();
    let queues = |c: &mut Client| -> i64 {
        c.query_one("SELECT count(*) FROM shuffle_queue", &[])
            .unwrap()
            .get(0)
    };
    let before = queues(&mut client);
    for (edit, why) in [
        (
            format!("jsonb_set(s, '{{ahead,3,track}}', '{other}')"),
            "a step's track",
        ),
        (
            "jsonb_set(s, '{ahead,0,draws}', '[]')".to_string(),
            "a step's draws",
        ),
        (
            "jsonb_set(s, '{ahead,1,up_next}', 'true')".to_string(),
            "a step up next",
        ),
        (
            "jsonb_set(s, '{ahead,2,when}', '1')".to_string(),
            "a field of no step",
        ),
        (
            "s || '{\"seed_rule\": 2}'".to_string(),
            "the rule of a queue without a seed",
        ),
    ] {
        let failed = client
            .query_one(
                &format!("SELECT shuffle_queue_restore({edit}) FROM shuffle_queue_save($1) s"),
                &[&queue],
            )
            .unwrap_err();
        assert_eq!(
            failed.code(),
            Some(&postgres::error::SqlState::INVALID_PARAMETER_VALUE),
            "{why}: {failed:?}"
        );
    }
    // A step's field of another type is refused naming the field.
    for (edit, field) in [
        (
            r#"jsonb_set(s, '{ahead,0,track}', '"x"')"#,
            r#"a step's "track" is not an integer"#,
        ),
        (
            "jsonb_set(s, '{ahead,0,up_next}', '1')",
            r#"a step's "up_next" is not true or false"#,
        ),
        (
            r#"jsonb_set(s, '{ahead,0,draws}', '"x"')"#,
            r#"a step's "draws" is not an array"#,
        ),
    ] {
        let failed = client
            .query_one(
                &format!("SELECT shuffle_queue_restore({edit}) FROM shuffle_queue_save($1) s"),
                &[&queue],
            )
            .unwrap_err();
        let message = failed
            .as_db_error()
            .map(|e| e.message())
            .unwrap_or_default();
        assert!(message.contains(field), "{field}: {failed:?}");
    }
    assert_eq!(queues(&mut client), before);
}

/// A savepoint rolled back after a Next or a longer look-ahead and an edit leaves the promise
/// as it was, as does a loop of look-aheads and Nexts each undone by its block's exception.
#[test]
fn undone_subtransactions_leave_the_promise_as_it_was() {
    let name = "dealcards_queue_ahead_savepoints";
    let mut client = database(name);
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 40)::bigint), 'random', 10)",
    );
    let shown = tracks(&upcoming(&mut client, queue, 6, 0));
    client.batch_execute("BEGIN; SAVEPOINT a").unwrap();
    next(&mut client, queue);
    client.batch_execute("ROLLBACK TO SAVEPOINT a").unwrap();
    assert_eq!(tracks(&upcoming(&mut client, queue, 6, 0)), shown);
    client.batch_execute("SAVEPOINT b").unwrap();
    upcoming(&mut client, queue, 30, 0);
    client
        .execute("SELECT shuffle_queue_add($1, 100)", &[&queue])
        .unwrap();
    client.batch_execute("ROLLBACK TO SAVEPOINT b").unwrap();
    assert_eq!(steps_kept(&mut client, queue), 6);
    client.batch_execute("COMMIT").unwrap();
    client
        .batch_execute(&format!(
            "DO $$
             BEGIN
                 FOR i IN 1..20 LOOP
                     BEGIN
                         PERFORM shuffle_queue_next({queue});
                         PERFORM count(*) FROM shuffle_queue_upcoming({queue}, 50);
                         RAISE EXCEPTION 'undone';
                     EXCEPTION WHEN raise_exception THEN NULL;
                     END;
                 END LOOP;
             END $$"
        ))
        .unwrap();
    assert_eq!(steps_kept(&mut client, queue), 6);
    let played: Vec<i64> = (0..6).map(|_| next(&mut client, queue)).collect();
    assert_eq!(played, shown);
}

/// A statement rolled back leaves the promise as it was (and the listener's plays): a Next, a
/// longer look-ahead, a skip that does not count, an edit; on a plain and a spread queue.
#[test]
fn a_rolled_back_statement_leaves_the_promise_as_it_was() {
    let name = "dealcards_queue_ahead_rollback";
    let mut client = database(name);
    for sql in [
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 40)::bigint))",
        // A skip on a spread queue gives a turn back (dropping the steps) and forgets the play.
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 40)::bigint),
                                  groups => ARRAY(SELECT 'a' || g % 5 FROM generate_series(1, 40) g),
                                  listener => 9)",
    ] {
        let queue = new_queue(&mut client, sql);
        next(&mut client, queue);
        let shown = tracks(&upcoming(&mut client, queue, 6, 0));
        let plays = |client: &mut Client| -> i64 {
            client
                .query_one("SELECT count(*) FROM shuffle_queue_play WHERE listener = 9", &[])
                .unwrap()
                .get(0)
        };
        let played_before = plays(&mut client);
        for undone in [
            "SELECT shuffle_queue_next($1)",
            "SELECT count(*) FROM shuffle_queue_upcoming($1, 30)",
            "SELECT shuffle_queue_skip($1)",
            "SELECT shuffle_queue_add($1, 100)",
            "SELECT shuffle_queue_jump($1, 40)",
        ] {
            let undone = match (undone, sql.contains("groups")) {
                ("SELECT shuffle_queue_add($1, 100)", true) => {
                    "SELECT shuffle_queue_add($1, 100, 'a1')"
                }
                _ => undone,
            };
            client.batch_execute("BEGIN").unwrap();
            client.execute(undone, &[&queue]).unwrap();
            client.batch_execute("ROLLBACK").unwrap();
            assert_eq!(steps_kept(&mut client, queue), 6, "{undone}");
            assert_eq!(
                tracks(&upcoming(&mut client, queue, 6, 0)),
                shown,
                "{undone}"
            );
            assert_eq!(plays(&mut client), played_before, "{undone}");
        }
        let played: Vec<i64> = (0..6).map(|_| next(&mut client, queue)).collect();
        assert_eq!(played, shown);
    }
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

/// A long look-ahead (here 100 steps of a 30-track queue) runs over a copy of the queue's rows
/// read whole; what it draws is what Next then plays on the tables, for every kind of queue.
#[test]
fn a_long_look_ahead_plays_as_the_tables_do() {
    let name = "dealcards_queue_ahead_long";
    let mut client = database(name);
    for (kind, queue) in every_kind(&mut client) {
        next(&mut client, queue);
        let shown = tracks(&upcoming(&mut client, queue, 100, 0));
        let played: Vec<i64> = (0..100).map(|_| next(&mut client, queue)).collect();
        assert_eq!(played, shown, "{kind}");
    }
}

/// Paging through a spread queue 500 tracks at a time shows every track once in its first pass,
/// and the tracks of the pages are those Next plays, with groups and with groups and subgroups
/// (long look-aheads run over a copy of the queue read whole: what they draw must be what the
/// tables give). (5,000 tracks: what a test run affords; BENCHMARKS.md has a larger queue.)
#[test]
fn paging_shows_a_spread_queues_pass_whole() {
    let name = "dealcards_queue_ahead_paging";
    let mut client = database(name);
    let n = 5_000;
    for subgroups in [
        "",
        ", subgroups => ARRAY(SELECT 'album ' || g % 5 FROM generate_series(1, 5000) g)",
    ] {
        let queue = new_queue(
            &mut client,
            &format!(
                "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, {n})::bigint),
                                          groups => ARRAY(SELECT 'artist ' || g % 37 FROM generate_series(1, {n}) g){subgroups})"
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
            "a track twice or missing in the first pass{subgroups}"
        );
        let played: Vec<i64> = (0..600).map(|_| next(&mut client, queue)).collect();
        assert_eq!(played, pages[..600], "{subgroups}");
    }
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
