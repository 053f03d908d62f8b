//! The functions' results, the notifications and everything the game server's role may read
//! carry no unrevealed server seed.

use std::time::Duration;

use postgres::error::SqlState;

use crate::desks::{deal, error_code, parse_dealt, parse_receipt, receipt, verify_desk};
use crate::secrecy::FairDesks;
use crate::server;

/// What the functions returned while the desks were set up and dealt at, and every deal's
/// notification (one per deal, its receipt, naming the commitment), hold no unrevealed seed.
/// The notification is the receipt fair_receipt gives once the deal has committed, character
/// for character.
#[test]
fn the_functions_results_and_notifications_carry_no_unrevealed_seed() {
    let FairDesks {
        mut listener,
        notices,
        mut received,
        commitments,
        secrets,
        receipts,
        ..
    } = FairDesks::new("dealcards_fair_results", "dealcards_fair_results_server");
    // Every deal notified its desk's channel with its receipt, which names the commitment.
    let notes =
        server::expected_notifications(&mut listener, receipts.len(), Duration::from_millis(200));
    let expected: Vec<(String, String)> = receipts
        .iter()
        .map(|(desk, json)| (format!("dealcards_desk_{desk}"), json.clone()))
        .collect();
    assert_eq!(notes, expected, "one notification per deal, its receipt");
    for (channel, payload) in &notes {
        let (desk, ..) = parse_receipt(payload);
        assert!(
            payload.contains(&hex::encode(&commitments[&desk])),
            "{payload}"
        );
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
    let first_game = parse_dealt(&dealt[0].1).1;
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

/// A deal's receipt comes once the deal has committed, and only then: in the dealing
/// transaction the game server's role gets from deal_cards only what does not depend on the
/// shuffle and finds no receipt of the game (P0002, as for a game that does not exist), a
/// rolled-back deal notifies nothing and leaves no receipt, and a committed one notifies its
/// receipt, which fair_receipt then gives too.
#[test]
fn the_receipt_comes_once_the_deal_has_committed() {
    let FairDesks {
        mut game_server,
        mut listener,
        ..
    } = FairDesks::new("dealcards_fair_receipt", "dealcards_fair_receipt_server");
    let quiet = Duration::from_millis(300);
    // The notifications of the ten deals that set the desks up.
    let setup = server::expected_notifications(&mut listener, 10, quiet);
    assert_eq!(setup.len(), 10);
    for end in ["ROLLBACK", "COMMIT"] {
        game_server.batch_execute("BEGIN").unwrap();
        let dealt = deal(&mut game_server, 1);
        let (_, game, ..) = parse_dealt(&dealt);
        assert_eq!(
            error_code(&mut game_server, &format!("SELECT fair_receipt({game})")),
            SqlState::NO_DATA_FOUND,
            "the receipt of a deal not committed yet"
        );
        game_server.batch_execute("ROLLBACK").unwrap();
        // The failed read ended the transaction: deal again, the same deal, and end it.
        game_server.batch_execute("BEGIN").unwrap();
        let again = deal(&mut game_server, 1);
        let (_, game, ..) = parse_dealt(&again);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&again).unwrap()["nonce"],
            serde_json::from_str::<serde_json::Value>(&dealt).unwrap()["nonce"]
        );
        assert!(server::notifications(&mut listener, quiet).is_empty());
        game_server.batch_execute(end).unwrap();
        if end == "ROLLBACK" {
            let notes = server::notifications(&mut listener, quiet);
            assert!(notes.is_empty(), "a rolled-back deal notified: {notes:?}");
            assert_eq!(
                error_code(&mut game_server, &format!("SELECT fair_receipt({game})")),
                SqlState::NO_DATA_FOUND
            );
        } else {
            let notes = server::expected_notifications(&mut listener, 1, quiet);
            let kept = receipt(&mut game_server, game);
            parse_receipt(&kept);
            assert_eq!(notes, [("dealcards_desk_1".to_string(), kept)]);
        }
    }
}
