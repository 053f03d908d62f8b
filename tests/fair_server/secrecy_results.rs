//! The functions' results, the notifications and everything the game server's role may read
//! carry no unrevealed server seed.

use std::time::Duration;

use postgres::error::SqlState;

use crate::desks::{hex, parse_fair_deal, verify_desk};
use crate::secrecy::FairDesks;
use crate::server;

/// What the functions returned while the desks were set up and dealt at, and every deal's
/// notification (one per deal, its result, naming the commitment), hold no unrevealed seed.
#[test]
fn the_functions_results_and_notifications_carry_no_unrevealed_seed() {
    let FairDesks {
        mut listener,
        notices,
        mut received,
        commitments,
        secrets,
        dealt,
        ..
    } = FairDesks::new("dealcards_fair_results", "dealcards_fair_results_server");
    // Every deal notified its desk's channel with its result, which names the commitment.
    let notes =
        server::expected_notifications(&mut listener, dealt.len(), Duration::from_millis(200));
    let expected: Vec<(String, String)> = dealt
        .iter()
        .map(|(desk, json)| (format!("dealcards_desk_{desk}"), json.clone()))
        .collect();
    assert_eq!(notes, expected, "one notification per deal, its result");
    for (channel, payload) in &notes {
        let (desk, ..) = parse_fair_deal(payload);
        assert!(payload.contains(&hex(&commitments[&desk])), "{payload}");
        received.add(format!("NOTIFY {channel}"), payload.clone());
    }

    for notice in notices.lock().unwrap().drain(..) {
        received.add("a notice", notice);
    }
    received.assert_none_of(&secrets);
}

/// Every table and view the role may read, and a desk's verification before the reveal (linked,
/// not verified yet; a single game cannot be), show no unrevealed seed.
#[test]
fn what_the_game_server_may_read_shows_no_unrevealed_seed() {
    let FairDesks {
        mut game_server,
        notices,
        mut received,
        secrets,
        dealt,
        next_nonce,
        ..
    } = FairDesks::new("dealcards_fair_readable", "dealcards_fair_readable_server");
    // Everything the role may read.
    for relation in [
        "desk",
        "desk_player",
        "game",
        "bid_record",
        "note",
        "fair_commitment",
        "v_player_id_in_room",
        "fair_publication(1)",
        "fair_publication(2)",
    ] {
        let rows = received.rows(&mut game_server, &format!("SELECT * FROM {relation}"));
        assert!(!rows.is_empty(), "{relation} is empty");
    }
    let (rounds, shown): (i64, i64) = {
        let row = game_server
            .query_one(
                "SELECT count(*), count(server_seed) FROM fair_commitment WHERE revealed_at IS NULL",
                &[],
            )
            .unwrap();
        (row.get(0), row.get(1))
    };
    assert_eq!(
        (rounds, shown),
        (2, 0),
        "fair_commitment shows an unrevealed seed"
    );

    // Verification before the reveal: linked, not verified yet; a single game cannot be.
    for desk in [1, 2] {
        let rows = verify_desk(&mut game_server, desk);
        assert_eq!(rows.len(), next_nonce[&desk] as usize);
        for row in &rows {
            assert!(row.0.is_some() && row.3.is_none(), "{row:?}");
        }
        received.rows(
            &mut game_server,
            &format!("SELECT * FROM fair_verify_desk({desk})"),
        );
    }
    let first_game = parse_fair_deal(&dealt[0].1).1;
    received.refused(
        &mut game_server,
        &format!("SELECT * FROM fair_verify_game({first_game})"),
        &SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE,
    );

    for notice in notices.lock().unwrap().drain(..) {
        received.add("a notice", notice);
    }
    received.assert_none_of(&secrets);
}
