//! What holds on a plain server holds here: valid deals, desks pointing at their newest game,
//! deals that waited for their desk, SQLSTATEs.

use std::thread;
use std::time::Duration;

use crate::cluster::{connect_to, distributed, holder, node_dsn, same_topology};
use crate::desks::{
    check_records, count, deal, desk_state, fresh_desks, is_permutation, run_each, sqlstate,
    try_deal,
};

fn is_deck(cards: &[i32]) -> bool {
    is_permutation(cards, 1, 54)
}

#[test]
fn deals_are_valid_and_desks_point_at_their_newest_game() {
    let (lo, hi) = (7000, 7019);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    for desk in lo..=hi {
        let first = deal(&mut c, desk);
        let second = deal(&mut c, desk);
        for game in [first.game, second.game] {
            let row = c
                .query_one(
                    &format!(
                        "SELECT p1_cards, p2_cards, p3_cards, extra_cards, p1_id, p2_id, p3_id,
                                state_no, lord_no, leader
                           FROM game WHERE desk_id = {desk} AND game_id = {game}"
                    ),
                    &[],
                )
                .unwrap();
            let hands: Vec<Vec<i32>> = (0..4).map(|i| row.get(i)).collect();
            let sizes: Vec<usize> = hands.iter().map(Vec::len).collect();
            assert_eq!(sizes, [17, 17, 17, 3], "game {game}");
            assert!(is_deck(&hands.concat()), "game {game}: {hands:?}");
            let ids: Vec<i64> = (4..7).map(|i| row.get(i)).collect();
            let d = i64::from(desk);
            assert_eq!(ids, [d * 10 + 1, d * 10 + 2, d * 10 + 3]);
            assert_eq!((row.get::<_, i16>(7), row.get::<_, i16>(8)), (1, 0));
            assert!((1..=3).contains(&row.get::<_, i16>(9)));
        }
        assert_eq!(
            desk_state(&mut c, desk),
            (2, 4, 2, Some(second.game)),
            "desk {desk}"
        );
    }
    check_records(&mut c, lo, hi);
}

/// A deal that waited for its desk takes the seats as they are once it holds the lock: here it
/// waited on the desk's worker for a player sitting down (the insert into desk_player locks the
/// desk's row through the shards' foreign key), and deals to them.
#[test]
fn a_deal_that_waited_for_a_player_sitting_down_deals_to_them() {
    let desk = 7150;
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, desk, desk);
    deal(&mut c, desk);
    c.batch_execute(&format!(
        "DELETE FROM desk_player WHERE desk_id = {desk} AND player_no = 3"
    ))
    .unwrap();
    let worker = holder(&mut c, "desk", desk.into());
    let mut sitting = distributed();
    sitting
        .batch_execute(&format!(
            "BEGIN;
             INSERT INTO desk_player (desk_id, player_no, player_id) VALUES ({desk}, 3, 77);"
        ))
        .unwrap();
    let mut dealer = distributed();
    let waiting = thread::spawn(move || deal(&mut dealer, desk));
    let mut observer = connect_to(&node_dsn(worker.port));
    let blocked = (0..200).any(|_| {
        let waiting = count(
            &mut observer,
            "SELECT count(*) FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query LIKE '%deal_cards%'
                AND pid <> pg_backend_pid()",
        ) > 0;
        if !waiting {
            thread::sleep(Duration::from_millis(50));
        }
        waiting
    });
    assert!(blocked, "the deal did not wait for the desk on its worker");
    sitting.batch_execute("COMMIT").unwrap();
    let dealt = waiting.join().unwrap();
    let third: i64 = c
        .query_one(
            &format!(
                "SELECT p3_id FROM game WHERE desk_id = {desk} AND game_id = {}",
                dealt.game
            ),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(third, 77, "the deal did not go to the player who sat down");
}

#[test]
fn errors_keep_their_sqlstates_and_write_nothing() {
    let (lo, hi) = (7100, 7109);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    let (missing, two) = (hi, lo);
    run_each(
        &mut c,
        &[
            format!("DELETE FROM desk_player WHERE desk_id = {missing}"),
            format!("DELETE FROM desk WHERE desk_id = {missing}"),
            format!("DELETE FROM desk_player WHERE desk_id = {two} AND player_no = 2"),
        ],
    );
    for in_block in [false, true] {
        if in_block {
            c.batch_execute("BEGIN").unwrap();
        }
        let e = try_deal(&mut c, missing).expect_err("a deal at a desk that does not exist");
        assert_eq!(sqlstate(&e), "P0002", "{e}");
        assert!(
            e.as_db_error()
                .unwrap()
                .message()
                .contains(&format!("desk {missing} does not exist")),
            "{e:?}"
        );
        if in_block {
            c.batch_execute("ROLLBACK; BEGIN").unwrap();
        }
        let e = try_deal(&mut c, two).expect_err("a deal with two players seated");
        assert_eq!(sqlstate(&e), "55000", "{e}");
        assert!(
            e.as_db_error()
                .unwrap()
                .message()
                .contains("has 2 of 3 players seated"),
            "{e:?}"
        );
        if in_block {
            c.batch_execute("ROLLBACK").unwrap();
        }
    }
    assert_eq!(
        desk_state(&mut c, two),
        (0, 0, 0, None),
        "a refused deal wrote rows"
    );
    assert_eq!(
        count(
            &mut c,
            &format!("SELECT count(*) FROM game WHERE desk_id = {missing}")
        ),
        0
    );
    // The desk deals once its third player sits down.
    c.batch_execute(&format!(
        "INSERT INTO desk_player (desk_id, player_no, player_id) VALUES ({two}, 2, {})",
        two * 10 + 2
    ))
    .unwrap();
    let dealt = deal(&mut c, two);
    assert_eq!(desk_state(&mut c, two), (1, 2, 1, Some(dealt.game)));
}
