//! Card rooms' hands on the cluster: the hand tables are distributed by hand, and each call on a
//! hand (hand_deal, hand_draw, hand_end, hand_pbn) is one single-shard transaction on the
//! worker holding it; the cards it dealt are there once it commits, each once.

use crate::cluster::{active_workers, distributed, holder, same_topology};
use crate::desks::count;
use crate::trace::{check_single_shard, traced_coordinator};

/// A nine-seat Hold'em hand, a bridge board and a blackjack shoe started on the cluster, then
/// every call on them traced: one remote command to the hand's worker, nothing else.
#[test]
fn each_call_on_a_hand_is_one_single_shard_transaction() {
    let mut c = distributed();
    let _topology = same_topology();
    let start = |c: &mut postgres::Client, args: &str| -> i64 {
        c.query_one(&format!("SELECT hand_start(31, {args})"), &[])
            .unwrap_or_else(|e| panic!("hand_start({args}): {e:?}"))
            .get(0)
    };
    let holdem = start(&mut c, "'holdem', 9, dealer => 4");
    let board = start(&mut c, "'bridge', board => 7");
    let shoe = start(&mut c, "'blackjack', 2, decks => 1");
    let workers = active_workers(&mut c);
    let (mut traced, notices) = traced_coordinator();
    let mut calls = Vec::new();
    for _ in 0..4 {
        calls.push((holdem, format!("SELECT * FROM hand_deal({holdem})")));
    }
    calls.push((holdem, format!("SELECT hand_end({holdem})")));
    calls.push((board, format!("SELECT * FROM hand_deal({board})")));
    calls.push((board, format!("SELECT hand_pbn({board})")));
    calls.push((shoe, format!("SELECT * FROM hand_deal({shoe})")));
    calls.push((shoe, format!("SELECT * FROM hand_deal({shoe}, 'play')")));
    calls.push((shoe, format!("SELECT * FROM hand_draw({shoe}, 2, 3)")));
    for (hand, sql) in &calls {
        let on = holder(&mut c, "room_hand", *hand);
        let call = sql[sql.find("hand_").unwrap()..sql.find('(').unwrap() + 1].to_string();
        check_single_shard(&mut traced, &notices, &workers, sql, &call, on);
    }
    // What each dealt, committed: 26 cards of the Hold'em hand, 52 of the board, a burn and
    // three draws of the shoe, each place of each deck once.
    for (hand, cards) in [(holdem, 26), (board, 52), (shoe, 4)] {
        assert_eq!(
            count(
                &mut c,
                &format!("SELECT count(DISTINCT position) FROM room_card WHERE hand_id = {hand}")
            ),
            cards,
            "hand {hand}"
        );
    }
    assert_eq!(
        count(
            &mut c,
            &format!("SELECT count(*) FROM room_card WHERE hand_id = {shoe} AND seat = 2")
        ),
        3
    );
    let pbn: String = c
        .query_one(&format!("SELECT hand_pbn({board})"), &[])
        .unwrap()
        .get(0);
    assert!(
        pbn.starts_with("[Board \"7\"]\n[Dealer \"S\"]\n[Vulnerable \"All\"]\n[Deal \"S:"),
        "{pbn}"
    );
}
