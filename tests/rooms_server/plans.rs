//! A hand's calls read its rows by key however many hands there are, on a connection that began
//! when the hand tables were empty and analyzed so (autovacuum off on them): the plans a backend
//! keeps are made again as its calls grow the tables (src/statements.rs). The negative control
//! locks the hand's row without its key and sees the call read the hands' table whole. Without
//! plans made again, the calls read both tables whole (2026-12-08, PostgreSQL 18: REPLAN_FIRST
//! set beyond reach).

use crate::hands::room;
use crate::server::explained_blocks as blocks;

/// The hands dealt before the measured call.
const HANDS: i64 = 5_000;
/// The most blocks a call may read: its rows by key read tens (22 to 32); the 5,000 hands fill
/// about 80 blocks of room_hand alone, and a call that scans its tables reads over 100.
const MOST_BLOCKS: i64 = 60;

#[test]
fn a_call_reads_its_hand_by_key_after_the_tables_grew_under_empty_statistics() {
    let (mut admin, mut server) = room("dealcards_rooms_plans", "dealcards_rooms_plans_server");
    // One statement at a time: VACUUM runs outside a transaction block.
    for sql in [
        "ALTER TABLE room_hand SET (autovacuum_enabled = false)",
        "ALTER TABLE room_card SET (autovacuum_enabled = false)",
        "ALTER TABLE room_hand_key SET (autovacuum_enabled = false)",
        "VACUUM ANALYZE room_hand, room_card, room_hand_key",
    ] {
        admin
            .batch_execute(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    // The game server's connection deals from the first hand on, each hand its own transaction.
    for _ in 0..HANDS {
        server
            .batch_execute("SELECT count(*) FROM hand_deal(hand_start(1, 'holdem', 2))")
            .unwrap();
    }
    let hand: i64 = server
        .query_one("SELECT hand_start(1, 'holdem', 2)", &[])
        .unwrap()
        .get(0);
    let mut read = Vec::new();
    for _ in 0..4 {
        read.push(blocks(
            &mut server,
            &format!("SELECT * FROM hand_deal({hand})"),
        ));
    }
    // The negative control: a lock of the hand's row that cannot take the key reads the hands'
    // table whole, which the check sees.
    let whole = blocks(
        &mut server,
        &format!("SELECT kind FROM room_hand WHERE hand_id + 0 = {hand} FOR UPDATE"),
    );
    assert!(
        read.iter().all(|&b| b <= MOST_BLOCKS) && whole > MOST_BLOCKS,
        "the calls of a hand among {HANDS} read {read:?} blocks; a scan of the hands {whole}"
    );
}
