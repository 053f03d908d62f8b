//! deal_cards through real client connections: many connections dealing at once on one desk and on
//! different desks, and the per-desk NOTIFY as a second connection sees it.
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN).
#![cfg(feature = "server_tests")]

mod server;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use postgres::error::SqlState;
use postgres::Client;

const CONNECTIONS: usize = 8;

/// Creates the desks (anew), seating `seated` players at each.
fn set_up_desks(client: &mut Client, desks: &[i32], seated: i16) {
    client
        .execute(
            "DELETE FROM game WHERE desk_id = ANY($1)",
            &[&desks.to_vec()],
        )
        .unwrap();
    client
        .execute(
            "DELETE FROM bid_record WHERE desk_id = ANY($1)",
            &[&desks.to_vec()],
        )
        .unwrap();
    client
        .execute(
            "DELETE FROM note WHERE desk_id = ANY($1)",
            &[&desks.to_vec()],
        )
        .unwrap();
    client
        .execute(
            "DELETE FROM desk WHERE desk_id = ANY($1)",
            &[&desks.to_vec()],
        )
        .unwrap();
    for &desk in desks {
        client
            .execute("INSERT INTO desk (desk_id) VALUES ($1)", &[&desk])
            .unwrap();
        for seat in 1..=seated {
            let player = desk as i64 * 10 + seat as i64;
            client
                .execute(
                    "INSERT INTO desk_player (desk_id, player_no, player_id) VALUES ($1, $2, $3)",
                    &[&desk, &seat, &player],
                )
                .unwrap();
        }
    }
}

/// What deal_cards returned: (desk, game, leader).
fn parse_deal(json: &str) -> (i32, i64, i64) {
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(value.as_object().unwrap().len(), 3, "{json}");
    (
        value["desk"].as_i64().unwrap() as i32,
        value["game"].as_i64().unwrap(),
        value["leader"].as_i64().unwrap(),
    )
}

fn deal(client: &mut Client, desk: i32) -> Result<String, postgres::Error> {
    client
        .query_one("SELECT deal_cards($1)::text", &[&desk])
        .map(|row| row.get(0))
}

#[derive(Default)]
struct Tally {
    /// Committed deals: (desk, game, leader).
    committed: Vec<(i32, i64, i64)>,
    rolled_back: usize,
    /// Calls refused with the SQLSTATE their desk calls for.
    refused: usize,
}

/// Runs `rounds` deals on each of CONNECTIONS connections started together; connection c deals
/// at `pick(c, round)`. Every fifth deal of a connection happens in a transaction that is rolled back.
/// A refusal must carry the SQLSTATE `expected_refusal` gives for its desk; anything else fails.
fn deal_concurrently(
    rounds: usize,
    pick: fn(usize, usize) -> i32,
    expected_refusal: fn(i32) -> Option<SqlState>,
) -> Tally {
    let barrier = Arc::new(Barrier::new(CONNECTIONS));
    let dealers: Vec<_> = (0..CONNECTIONS)
        .map(|s| {
            let barrier = barrier.clone();
            thread::spawn(move || {
                let mut client = server::connect();
                let mut tally = Tally::default();
                barrier.wait();
                for round in 0..rounds {
                    let desk = pick(s, round);
                    if round % 5 == 4 {
                        let mut tx = client.transaction().unwrap();
                        let result = tx
                            .query_one("SELECT deal_cards($1)::text", &[&desk])
                            .map(|row| row.get::<_, String>(0));
                        match result {
                            Ok(_) => tally.rolled_back += 1,
                            Err(e) => {
                                assert_eq!(e.code(), expected_refusal(desk).as_ref(), "{e}");
                                tally.refused += 1;
                            }
                        }
                        tx.rollback().unwrap();
                        continue;
                    }
                    match deal(&mut client, desk) {
                        Ok(json) => {
                            let dealt = parse_deal(&json);
                            assert_eq!(dealt.0, desk);
                            tally.committed.push(dealt);
                        }
                        Err(e) => {
                            assert_eq!(e.code(), expected_refusal(desk).as_ref(), "{e}");
                            tally.refused += 1;
                        }
                    }
                }
                // The connection is still usable after whatever happened.
                let one: i32 = client.query_one("SELECT 1", &[]).unwrap().get(0);
                assert_eq!(one, 1);
                tally
            })
        })
        .collect();
    let mut total = Tally::default();
    for dealer in dealers {
        let tally = dealer.join().expect("a dealing connection failed");
        total.committed.extend(tally.committed);
        total.rolled_back += tally.rolled_back;
        total.refused += tally.refused;
    }
    total
}

/// Checks the tables against the committed deals: every game is one of them and a valid deal
/// with its bids and note, their counts agree, and every desk points at its newest game.
fn check_tables(client: &mut Client, desks: &[i32], committed: &[(i32, i64, i64)]) {
    let desks = desks.to_vec();
    let games: BTreeMap<i64, (i32, i64)> = client
        .query(
            "SELECT game_id, desk_id, leader::int8 FROM game WHERE desk_id = ANY($1)",
            &[&desks],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), (r.get(1), r.get(2))))
        .collect();
    let expected: BTreeMap<i64, (i32, i64)> = committed
        .iter()
        .map(|&(desk, game, leader)| (game, (desk, leader)))
        .collect();
    assert_eq!(
        expected.len(),
        committed.len(),
        "a game number was returned twice"
    );
    assert_eq!(games, expected, "games differ from the committed deals");

    let invalid: Vec<i64> = client
        .query(
            "SELECT g.game_id FROM game g
              WHERE g.desk_id = ANY($1)
                AND NOT ((SELECT array_agg(c ORDER BY c)
                            FROM unnest(g.p1_cards || g.p2_cards || g.p3_cards || g.extra_cards) c)
                           = (SELECT array_agg(n) FROM generate_series(1, 54) n)
                     AND cardinality(g.p1_cards) = 17 AND cardinality(g.p2_cards) = 17
                     AND cardinality(g.p3_cards) = 17 AND cardinality(g.extra_cards) = 3
                     AND g.state_no = 1 AND g.lord_no = 0
                     AND (g.p1_id, g.p2_id, g.p3_id)
                         = (g.desk_id * 10::int8 + 1, g.desk_id * 10::int8 + 2, g.desk_id * 10::int8 + 3)
                     AND (SELECT array_agg(b.player_no::text || ':' || b.rec_idx || ':' || b.bid_size
                                           ORDER BY b.rec_idx DESC)
                            FROM bid_record b WHERE b.desk_id = g.desk_id AND b.game_id = g.game_id)
                         = ARRAY[(ARRAY[3, 1, 2])[g.leader] || ':0:-1', (ARRAY[3, 1, 2])[g.leader] || ':-1:-1']
                     AND (SELECT array_agg(n.player_no::text || ':' || n.note_type || ':' || n.flag || ':' || n.body)
                            FROM note n WHERE n.desk_id = g.desk_id AND n.body = g.leader || '#' || g.game_id)
                         = ARRAY[g.leader || ':3:y:' || g.leader || '#' || g.game_id])",
            &[&desks],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(invalid.is_empty(), "invalid games: {invalid:?}");

    let (bids, notes): (i64, i64) = {
        let row = client
            .query_one(
                "SELECT (SELECT count(*) FROM bid_record WHERE desk_id = ANY($1)),
                        (SELECT count(*) FROM note WHERE desk_id = ANY($1))",
                &[&desks],
            )
            .unwrap();
        (row.get(0), row.get(1))
    };
    assert_eq!(bids, 2 * committed.len() as i64, "bid records");
    assert_eq!(notes, committed.len() as i64, "notes");

    let stale: Vec<i32> = client
        .query(
            "SELECT d.desk_id FROM desk d
              WHERE d.desk_id = ANY($1)
                AND d.cur_game_id IS DISTINCT FROM
                    (SELECT max(g.game_id) FROM game g WHERE g.desk_id = d.desk_id)",
            &[&desks],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(
        stale.is_empty(),
        "desks not pointing at their newest game: {stale:?}"
    );
}

#[test]
fn eight_connections_dealing_at_one_desk() {
    const DESK: i32 = 9001;
    let mut client = server::connect();
    set_up_desks(&mut client, &[DESK], 3);
    let tally = deal_concurrently(25, |_, _| DESK, |_| None);
    assert_eq!(tally.refused, 0);
    assert_eq!(tally.committed.len(), CONNECTIONS * 20);
    assert_eq!(tally.rolled_back, CONNECTIONS * 5);
    check_tables(&mut client, &[DESK], &tally.committed);
    // Deals at one desk are serialized by its row lock: in commit order, game numbers grow.
    let cur: i64 = client
        .query_one("SELECT cur_game_id FROM desk WHERE desk_id = $1", &[&DESK])
        .unwrap()
        .get(0);
    assert_eq!(cur, tally.committed.iter().map(|d| d.1).max().unwrap());
}

#[test]
fn eight_connections_dealing_at_different_desks() {
    // Desks 9101..9108 are seated; at 9109 only two players sit and 9110 does not exist.
    const SEATED: [i32; 8] = [9101, 9102, 9103, 9104, 9105, 9106, 9107, 9108];
    let mut client = server::connect();
    set_up_desks(&mut client, &SEATED, 3);
    set_up_desks(&mut client, &[9109], 2);
    client
        .execute("DELETE FROM desk WHERE desk_id = 9110", &[])
        .unwrap();
    // Each connection walks the desks from its own starting point, so every desk is dealt at by
    // several connections at once; every seventh call goes to a desk that cannot be dealt at.
    let pick = |connection: usize, round: usize| match round % 7 {
        3 => 9109,
        6 => 9110,
        _ => 9101 + ((connection + round) % 8) as i32,
    };
    let refusal = |desk: i32| match desk {
        9109 => Some(SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE),
        9110 => Some(SqlState::NO_DATA_FOUND),
        _ => None,
    };
    let tally = deal_concurrently(35, pick, refusal);
    assert!(tally.refused > 0);
    let calls = tally.committed.len() + tally.rolled_back + tally.refused;
    assert_eq!(calls, CONNECTIONS * 35);
    let mut all = SEATED.to_vec();
    all.push(9109);
    check_tables(&mut client, &all, &tally.committed);
    let dealt_desks: BTreeSet<i32> = tally.committed.iter().map(|d| d.0).collect();
    assert_eq!(dealt_desks, SEATED.iter().copied().collect());
}

#[test]
fn notify_reaches_a_listener_only_after_commit() {
    const DESK: i32 = 9201;
    const OTHER: i32 = 9202;
    let channel = format!("dealcards_desk_{DESK}");
    let mut dealer = server::connect();
    set_up_desks(&mut dealer, &[DESK, OTHER], 3);
    let mut listener = server::connect();
    listener
        .batch_execute(&format!("LISTEN {channel}"))
        .unwrap();

    // Committed: nothing while the transaction is open, the deal's JSON once it commits.
    let mut tx = dealer.transaction().unwrap();
    let dealt: String = tx
        .query_one("SELECT deal_cards($1)::text", &[&DESK])
        .unwrap()
        .get(0);
    assert_eq!(
        server::notifications(&mut listener, Duration::from_millis(500)),
        []
    );
    tx.commit().unwrap();
    let notes = server::expected_notifications(&mut listener, 1, Duration::from_millis(500));
    assert_eq!(notes, [(channel.clone(), dealt.clone())]);
    assert_eq!(parse_deal(&notes[0].1).0, DESK);

    // Rolled back: never. The next notification on the channel is the next committed deal.
    let mut tx = dealer.transaction().unwrap();
    tx.query_one("SELECT deal_cards($1)", &[&DESK]).unwrap();
    tx.rollback().unwrap();
    assert_eq!(
        server::notifications(&mut listener, Duration::from_millis(500)),
        []
    );
    // Another desk's deal goes to another channel.
    deal(&mut dealer, OTHER).unwrap();
    let committed = deal(&mut dealer, DESK).unwrap();
    assert_ne!(committed, dealt);
    assert_eq!(
        server::expected_notifications(&mut listener, 1, Duration::from_millis(500)),
        [(channel.clone(), committed)]
    );

    // A deal refused for lack of players notifies nobody.
    dealer
        .execute(
            "DELETE FROM desk_player WHERE desk_id = $1 AND player_no = 2",
            &[&DESK],
        )
        .unwrap();
    let err = deal(&mut dealer, DESK).unwrap_err();
    assert_eq!(
        err.code(),
        Some(&SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE)
    );
    assert_eq!(
        server::notifications(&mut listener, Duration::from_millis(500)),
        []
    );
}

#[test]
fn a_deal_waits_for_the_desk_and_then_sees_its_seats_as_they_are() {
    // Connection A deals in an open transaction; connection B's deal at the same desk must wait for
    // A's lock on the desk row, and read the seats only once it has the lock: A takes a player
    // away before committing, so B must then refuse with 55000, having written nothing.
    const DESK: i32 = 9301;
    let mut a = server::connect();
    set_up_desks(&mut a, &[DESK], 3);
    let mut b = server::connect();
    let b_pid: i32 = b.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);

    let mut tx = a.transaction().unwrap();
    let dealt: String = tx
        .query_one("SELECT deal_cards($1)::text", &[&DESK])
        .unwrap()
        .get(0);
    let (sender, receiver) = std::sync::mpsc::channel();
    let waiting = thread::spawn(move || {
        sender.send(deal(&mut b, DESK)).unwrap();
    });
    // B blocks on the desk row's lock, and stays blocked while A's transaction is open.
    let mut observer = server::connect();
    let blocked = server::waits_for_a_lock(&mut observer, b_pid);
    assert!(blocked, "the second deal did not wait for the desk");
    assert!(receiver.try_recv().is_err(), "the second deal did not wait");
    tx.execute(
        "DELETE FROM desk_player WHERE desk_id = $1 AND player_no = 3",
        &[&DESK],
    )
    .unwrap();
    tx.commit().unwrap();

    let refused = receiver
        .recv_timeout(Duration::from_secs(30))
        .expect("the second deal never finished")
        .unwrap_err();
    waiting.join().unwrap();
    assert_eq!(
        refused.code(),
        Some(&SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE)
    );
    let message = refused.as_db_error().unwrap().message().to_string();
    assert_eq!(
        message,
        format!("desk {DESK} has 2 of 3 players seated; a deal needs all 3")
    );
    // Only A's game exists, and the desk points at it.
    check_tables(&mut a, &[DESK], &[parse_deal(&dealt)]);
}

#[test]
fn pg_dump_keeps_games_and_their_numbering() {
    // A dump of a database that has dealt, restored into a new database, holds the same games,
    // and its next deal gets a new game number rather than colliding with a restored one.
    const DESK: i32 = 9401;
    let mut client = server::connect();
    set_up_desks(&mut client, &[DESK], 3);
    for _ in 0..3 {
        deal(&mut client, DESK).unwrap();
    }
    let dbname = server::dsn_setting("dbname");
    let restored = format!("{dbname}_restored");
    server::fresh_database(&restored);
    let dump = std::process::Command::new(server::pg_program("pg_dump"))
        .args(server::program_args(&dbname))
        .output()
        .expect("pg_dump runs");
    assert!(
        dump.status.success(),
        "{}",
        String::from_utf8_lossy(&dump.stderr)
    );
    let mut restore = std::process::Command::new(server::pg_program("psql"))
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1"])
        .args(server::program_args(&restored))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("psql runs");
    use std::io::Write;
    restore
        .stdin
        .take()
        .unwrap()
        .write_all(&dump.stdout)
        .unwrap();
    assert!(restore.wait().unwrap().success(), "the restore failed");

    let games = |c: &mut Client| -> Vec<(i64, Vec<i32>)> {
        c.query(
            "SELECT game_id, p1_cards FROM game WHERE desk_id = $1 ORDER BY game_id",
            &[&DESK],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
    };
    let mut copy = server::connect_as(&restored, &server::dsn_setting("user"));
    let before = games(&mut client);
    assert_eq!(before.len(), 3);
    assert_eq!(games(&mut copy), before);
    let newest: i64 = copy
        .query_one("SELECT max(game_id) FROM game", &[])
        .unwrap()
        .get(0);
    let (_, game, _) = parse_deal(&deal(&mut copy, DESK).unwrap());
    assert!(
        game > newest,
        "restored numbering restarted: {game} <= {newest}"
    );
    drop(copy);
    client
        .batch_execute(&format!("DROP DATABASE {restored}"))
        .unwrap();
}
