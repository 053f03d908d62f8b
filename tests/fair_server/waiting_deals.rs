//! A deal that waited for its desk's lock deals to the seats as they are once it holds it.

use std::thread;
use std::time::Duration;

use postgres::Client;

use crate::desks::{database_with_extension, deal, mode_on_without_seeds, parse_dealt, seat};
use crate::server;

/// Desk 1 of a new database `db` in provably fair mode with seats 1 to 3 taken, and two
/// connections of the test's role, A and B, of which B has dealt there once (so that its next
/// deal reads the seats with the desk's lock: by key, once it holds the lock). Returns the
/// superuser's connection, A and B.
fn dealt_once(db: &str) -> (Client, Client, Client) {
    let mut admin = database_with_extension(db);
    seat(&mut admin, 1, &[1, 2, 3]);
    mode_on_without_seeds(&mut admin, 1);
    let user = server::dsn_setting("user");
    let a = server::connect_as(db, &user);
    let mut b = server::connect_as(db, &user);
    assert_eq!(parse_dealt(&deal(&mut b, 1)).3, 0);
    (admin, a, b)
}

/// [`dealt_once`], then B deals while A's transaction holds the desk: A runs `hold` (which must
/// make B wait), then `change`, then commits. Returns B's deal and the superuser's connection.
fn deal_that_waited(db: &str, hold: &str, change: &str) -> ((i32, i64, String, i64), Client) {
    let (admin, mut a, mut b) = dealt_once(db);
    let b_pid: i32 = b.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);

    let mut tx = a.transaction().unwrap();
    tx.batch_execute(hold).unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    let waiting = thread::spawn(move || {
        sender.send(deal(&mut b, 1)).unwrap();
    });
    let mut observer = server::connect_as(db, &server::dsn_setting("user"));
    let blocked = server::waits_for_a_lock(&mut observer, b_pid);
    assert!(blocked, "{hold}: the deal did not wait for the desk");
    tx.batch_execute(change).unwrap();
    tx.commit().unwrap();
    let dealt = parse_dealt(
        &receiver
            .recv_timeout(Duration::from_secs(30))
            .expect("the deal that waited never finished"),
    );
    waiting.join().unwrap();
    (dealt, admin)
}

/// The third seat's player and client seed as `game` recorded them, and whether desk 1's games
/// all verify after a reveal.
fn third_seat_and_verified(admin: &mut Client, game: i64) -> (Option<i64>, Option<String>, bool) {
    let row = admin
        .query_one(
            "SELECT p3_id, client_seeds[3] FROM game WHERE game_id = $1",
            &[&game],
        )
        .unwrap();
    admin.batch_execute("SELECT fair_reveal(1)").unwrap();
    let verified: bool = admin
        .query_one(
            "SELECT bool_and(verified) AND count(*) = (SELECT count(*) FROM game)
               FROM fair_verify_desk(1)",
            &[],
        )
        .unwrap()
        .get(0);
    (row.get(0), row.get(1), verified)
}

/// A deal that waited for its desk's lock takes the seats as they are once it holds it, although
/// the statement that waited read the seats before the wait: here it waited for another deal,
/// whose transaction then gave seat 3 to another player with a seed of their own.
#[test]
fn a_deal_that_waited_for_its_desk_deals_to_the_seats_as_they_are_then() {
    let (second, mut admin) = deal_that_waited(
        "dealcards_fair_wait",
        "SELECT deal_cards(1)",
        "UPDATE desk_player SET player_id = 99 WHERE desk_id = 1 AND player_no = 3;
         SELECT set_client_seed(1, 3, 'sat down meanwhile')",
    );
    assert_eq!(second.3, 2, "the nonce after the other deal's");
    assert_eq!(
        third_seat_and_verified(&mut admin, second.1),
        (Some(99), Some("sat down meanwhile".to_string()), true)
    );
}

/// A player sitting down does not hold the desk: no key joins a seat to its desk (a parallel
/// restore would refuse seats that arrive before their desk). A deal while the player's
/// transaction is open takes the seats committed when it starts, here two of three, and deals
/// nothing (55000); once it has committed, the next deal deals to them.
#[test]
fn a_deal_takes_the_seats_committed_when_it_starts_not_a_player_sitting_down() {
    let (mut admin, mut a, mut b) = dealt_once("dealcards_fair_wait_sit");
    admin
        .execute(
            "DELETE FROM desk_player WHERE desk_id = 1 AND player_no = 3",
            &[],
        )
        .unwrap();
    let mut tx = a.transaction().unwrap();
    tx.batch_execute("INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (1, 3, 77)")
        .unwrap();
    assert_eq!(
        crate::desks::error_code(&mut b, "SELECT deal_cards(1)"),
        postgres::error::SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE,
        "a deal while a player sits down"
    );
    tx.batch_execute("SELECT set_client_seed(1, 3, 'sat down meanwhile')")
        .unwrap();
    tx.commit().unwrap();
    let dealt = parse_dealt(&deal(&mut b, 1));
    assert_eq!(dealt.3, 1, "the nonce after the first deal's");
    assert_eq!(
        third_seat_and_verified(&mut admin, dealt.1),
        (Some(77), Some("sat down meanwhile".to_string()), true)
    );
}

/// The same when the deal waited for a transaction that locked the desk without changing it and
/// gave seat 3 to another player.
#[test]
fn a_deal_that_waited_for_a_lock_on_its_desk_deals_to_the_seats_as_they_are_then() {
    let (dealt, mut admin) = deal_that_waited(
        "dealcards_fair_wait_lock",
        "SELECT FROM desk WHERE desk_id = 1 FOR UPDATE",
        "UPDATE desk_player SET player_id = 88 WHERE desk_id = 1 AND player_no = 3;
         SELECT set_client_seed(1, 3, 'took the seat meanwhile')",
    );
    assert_eq!(dealt.3, 1, "the nonce after the first deal's");
    assert_eq!(
        third_seat_and_verified(&mut admin, dealt.1),
        (Some(88), Some("took the seat meanwhile".to_string()), true)
    );
}
