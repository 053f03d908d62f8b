//! Two sessions dealing one hand take turns on its row: the second waits for the first's
//! commit, then deals the next stage, or is refused the stage the first dealt.

use postgres::error::SqlState;

use dealcards_core::rooms::kinds;

use crate::hands::{assert_each_once, core_cards, deal, key_of, room, start, stored_cards, Call};
use crate::server;

/// The hole cards dealt in an open transaction; a second session's deal waits for it, and once
/// it commits deals the flop. Then both name the turn: the second waits, and is refused (55000)
/// once the first has dealt it. Every stage is dealt once, with the key's cards.
#[test]
fn two_dealers_of_one_hand_take_turns() {
    let db = "dealcards_rooms_turns";
    let role = "dealcards_rooms_turns_server";
    let (mut admin, mut first) = room(db, role);
    let hand = start(&mut first, "'holdem', 6");
    for (stage, second_gets) in [(None, Ok("flop")), (Some("turn"), Err(()))] {
        first.batch_execute("BEGIN").unwrap();
        let dealt = deal(&mut first, hand, stage).0;
        let mut second = server::connect_as(db, role);
        let pid: i32 = second
            .query_one("SELECT pg_backend_pid()", &[])
            .unwrap()
            .get(0);
        let waiting = std::thread::spawn(move || {
            second
                .query_one(
                    "SELECT dealt_stage FROM hand_deal($1, $2)",
                    &[&hand, &stage],
                )
                .map(|r| r.get::<_, String>(0))
                .map_err(|e| e.code().cloned())
        });
        assert!(
            server::waits_for_a_lock(&mut admin, pid),
            "the second dealer did not wait"
        );
        first.batch_execute("COMMIT").unwrap();
        let got = waiting.join().unwrap();
        match second_gets {
            Ok(next) => {
                assert_eq!(dealt, "hole");
                assert_eq!(got, Ok(next.to_string()));
            }
            Err(()) => {
                assert_eq!(dealt, "turn");
                assert_eq!(got, Err(Some(SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE)));
            }
        }
    }
    let stored = stored_cards(&mut admin, hand);
    let key = key_of(&mut admin, hand);
    let expected = core_cards(kinds::holdem(6).unwrap(), 1, key, &[Call::Deal; 3]);
    assert_eq!(stored, expected);
    assert_each_once(&stored);
}
