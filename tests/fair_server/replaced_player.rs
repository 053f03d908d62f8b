//! A client seed counts only for the round it was set under, for the seating that set it; a desk row edited to leave its round is reported, and one left with a commitment but no
//! round deals nothing.

use postgres::error::SqlState;
use postgres::Client;

use crate::desks::{database_with_extension, deal, error_code, seat, set_seeds, verify_desk};

/// The players and client seeds (hex) of a fair deal's receipt.
fn players_and_seeds(receipt: &str) -> (serde_json::Value, serde_json::Value) {
    let receipt: serde_json::Value = serde_json::from_str(receipt).unwrap();
    (receipt["players"].clone(), receipt["client_seeds"].clone())
}

fn swap_player(client: &mut Client, desk: i32, seat: i16, player: i64) {
    client
        .execute(
            "DELETE FROM desk_player WHERE desk_id = $1 AND player_no = $2",
            &[&desk, &seat],
        )
        .unwrap();
    client
        .execute(
            "INSERT INTO desk_player (desk_id, player_no, player_id) VALUES ($1, $2, $3)",
            &[&desk, &seat, &player],
        )
        .unwrap();
}

#[test]
fn a_seed_counts_for_its_round_and_seating_only() {
    let mut client = database_with_extension("dealcards_fair_replaced");
    let not_ready = SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE;
    seat(&mut client, 1, &[1, 2, 3]);
    client.batch_execute("SELECT fair_mode_on(1)").unwrap();
    set_seeds(&mut client, 1, &[(1, "a"), (2, "b"), (3, "c")]);
    let (players, seeds) = players_and_seeds(&deal(&mut client, 1));
    assert_eq!(players, serde_json::json!([11, 12, 13]));
    assert_eq!(
        seeds,
        serde_json::json!([hex::encode(b"a"), hex::encode(b"b"), hex::encode(b"c")])
    );

    // Player 11 leaves seat 1 and player 14 sits down: 11's seed is not theirs, and the round
    // requires one from every player.
    swap_player(&mut client, 1, 1, 14);
    assert_eq!(error_code(&mut client, "SELECT deal_cards(1)"), not_ready);
    set_seeds(&mut client, 1, &[(1, "d")]);
    let (players, seeds) = players_and_seeds(&deal(&mut client, 1));
    assert_eq!(players, serde_json::json!([14, 12, 13]));
    assert_eq!(
        seeds,
        serde_json::json!([hex::encode(b"d"), hex::encode(b"b"), hex::encode(b"c")])
    );
    // Player 11 comes back to seat 1: a new seating, which starts without a seed too.
    swap_player(&mut client, 1, 1, 11);
    assert_eq!(error_code(&mut client, "SELECT deal_cards(1)"), not_ready);
    set_seeds(&mut client, 1, &[(1, "a")]);
    let (_, seeds) = players_and_seeds(&deal(&mut client, 1));
    assert_eq!(
        seeds,
        serde_json::json!([hex::encode(b"a"), hex::encode(b"b"), hex::encode(b"c")])
    );
    // Player 12 moves to seat 3 (13 leaves), 15 takes seat 2: a seed is a seat's, neither
    // moves with its player.
    client
        .batch_execute(
            "BEGIN;
             DELETE FROM desk_player WHERE desk_id = 1 AND player_no IN (2, 3);
             INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (1, 2, 15), (1, 3, 12);
             COMMIT;",
        )
        .unwrap();
    assert_eq!(error_code(&mut client, "SELECT deal_cards(1)"), not_ready);
    set_seeds(&mut client, 1, &[(2, "e"), (3, "f")]);
    let (players, seeds) = players_and_seeds(&deal(&mut client, 1));
    assert_eq!(players, serde_json::json!([11, 15, 12]));
    assert_eq!(
        seeds,
        serde_json::json!([hex::encode(b"a"), hex::encode(b"e"), hex::encode(b"f")])
    );

    // A new round starts without seeds: the old ones answered the old commitment.
    client.batch_execute("SELECT fair_reveal(1)").unwrap();
    assert_eq!(error_code(&mut client, "SELECT deal_cards(1)"), not_ready);

    // Where seeds are not required, a replaced player's seat deals with the empty seed.
    seat(&mut client, 2, &[1, 2, 3]);
    client
        .batch_execute("SELECT fair_mode_on(2, seeds_required => false)")
        .unwrap();
    set_seeds(&mut client, 2, &[(1, "g")]);
    swap_player(&mut client, 2, 1, 24);
    let (players, seeds) = players_and_seeds(&deal(&mut client, 2));
    assert_eq!(players, serde_json::json!([24, 22, 23]));
    assert_eq!(seeds, serde_json::json!(["", "", ""]));
}

/// A desk row the owner edits to leave its round: the round is reported as left without a
/// reveal; a desk left with a commitment but no round (the key does not check a row with a
/// NULL) deals nothing (XX001).
#[test]
fn a_desk_edited_off_its_round_is_reported_and_one_left_half_way_deals_nothing() {
    let mut client = database_with_extension("dealcards_fair_edited");
    seat(&mut client, 1, &[1, 2, 3]);
    client
        .batch_execute("SELECT fair_mode_on(1, seeds_required => false)")
        .unwrap();
    deal(&mut client, 1);
    client
        .batch_execute("UPDATE desk SET fair_round = NULL WHERE desk_id = 1")
        .unwrap();
    assert_eq!(
        error_code(&mut client, "SELECT deal_cards(1)"),
        SqlState::DATA_CORRUPTED
    );
    client
        .batch_execute(
            "UPDATE desk SET fair_commitment = NULL, fair_nonce = NULL WHERE desk_id = 1",
        )
        .unwrap();
    let rows = verify_desk(&mut client, 1);
    let left = rows.last().unwrap();
    assert_eq!(
        (left.0, left.1, left.3),
        (None, Some(1), Some(false)),
        "{rows:?}"
    );
    assert!(
        left.4.as_deref().unwrap().contains("left without a reveal"),
        "{rows:?}"
    );
}

/// A seed belongs to the player id that set it: where the owner rewrites a seat's player_id
/// (the game server may not: it has no UPDATE on desk_player), the new player has no seed, a
/// round that requires seeds refuses to deal until they set one, and their seed then counts.
#[test]
fn a_rewritten_player_id_leaves_the_new_player_without_a_seed() {
    let mut client = database_with_extension("dealcards_fair_rewritten_player");
    seat(&mut client, 1, &[1, 2, 3]);
    client.batch_execute("SELECT fair_mode_on(1)").unwrap();
    set_seeds(&mut client, 1, &[(1, "a"), (2, "b"), (3, "c")]);
    client
        .execute(
            "UPDATE desk_player SET player_id = 99 WHERE desk_id = 1 AND player_no = 2",
            &[],
        )
        .unwrap();
    assert_eq!(
        error_code(&mut client, "SELECT deal_cards(1)"),
        SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE
    );
    set_seeds(&mut client, 1, &[(2, "new")]);
    let (players, seeds) = players_and_seeds(&deal(&mut client, 1));
    assert_eq!(players, serde_json::json!([11, 99, 13]));
    assert_eq!(
        seeds,
        serde_json::json!([hex::encode(b"a"), hex::encode(b"new"), hex::encode(b"c")])
    );
}
