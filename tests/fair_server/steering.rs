//! Nothing the house controls changes after a player's seed is known: a house seat's seed is
//! fixed with the commitment, so a seed chosen for it once the players' seeds are known (with
//! the server seed unknown, or known to the owner) is refused or has no effect.

use postgres::error::SqlState;
use postgres::Client;

use crate::desks::{
    database_with_extension, deal, error_code, fair_deal, parse_dealt, seat, set_seeds,
};
use crate::grants::create_game_server_role;
use crate::server;
use dealcards_core::fair;

#[test]
fn a_house_seat_takes_no_seed_chosen_after_the_players() {
    let db = "dealcards_fair_steering";
    let role = "dealcards_fair_steering_server";
    let mut admin = database_with_extension(db);
    create_game_server_role(&mut admin, role);
    let mut game_server = server::connect_as(db, role);
    // Seat 3 is the house's (a bot), declared with the commitment; players 1 and 2 set seeds.
    seat(&mut game_server, 1, &[1, 2, 3]);
    game_server
        .batch_execute("SELECT fair_mode_on(1, house_seats => '{3}')")
        .unwrap();
    set_seeds(&mut game_server, 1, &[(1, "alice"), (2, "bob")]);

    let (server_seed, steered) = steering_seed(&mut admin);
    let superuser = server::dsn_setting("user");
    let mut owner = server::connect_as(db, &superuser);
    check_setting_it_is_refused(&mut game_server, &mut owner, &steered);
    check_writing_it_changes_nothing(
        &mut game_server,
        &mut owner,
        &mut admin,
        &server_seed,
        &steered,
    );
}

/// The owner knows the server seed: it searches, offline, for a seat 3 seed that gives seat 3
/// both jokers in the first deal.
fn steering_seed(admin: &mut Client) -> (Vec<u8>, String) {
    let server_seed: Vec<u8> = admin
        .query_one(
            "SELECT server_seed FROM fair_seed WHERE desk_id = 1 AND round = 1",
            &[],
        )
        .unwrap()
        .get(0);
    let seed = fair::server_seed(&server_seed).unwrap();
    let steered = (0..100_000)
        .map(|i| format!("bot {i}"))
        .find(|candidate| {
            let dealt = fair::deal(&seed, &[b"alice", b"bob", candidate.as_bytes()], 0);
            dealt.hands[2].contains(&53) && dealt.hands[2].contains(&54)
        })
        .expect("a steering seed within 100,000 tries");
    (server_seed, steered)
}

/// Setting it is refused, to the game server (which does not know the server seed) and to the
/// owner alike.
fn check_setting_it_is_refused(game_server: &mut Client, owner: &mut Client, steered: &str) {
    for client in [game_server, owner] {
        assert_eq!(
            error_code(
                client,
                &format!("SELECT set_client_seed(1, 3, '{steered}')")
            ),
            SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE
        );
        // Nor may a player's seed be replaced by one chosen now.
        assert_eq!(
            error_code(client, "SELECT set_client_seed(1, 2, 'bob, steered')"),
            SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE
        );
    }
}

/// The game server cannot write a seat's seed; the owner can, and it changes nothing: a house
/// seat deals with the empty seed whatever its row holds.
fn check_writing_it_changes_nothing(
    game_server: &mut Client,
    owner: &mut Client,
    admin: &mut Client,
    server_seed: &[u8],
    steered: &str,
) {
    assert_eq!(
        error_code(
            game_server,
            &format!(
                "UPDATE desk_player SET client_seed = '{steered}', seed_round = 1
                  WHERE desk_id = 1 AND player_no = 3"
            )
        ),
        SqlState::INSUFFICIENT_PRIVILEGE
    );
    owner
        .batch_execute(&format!(
            "UPDATE desk_player SET client_seed = '{steered}', seed_round = 1
              WHERE desk_id = 1 AND player_no = 3"
        ))
        .unwrap();
    let result = deal(game_server, 1);
    parse_dealt(&result);
    let result: serde_json::Value = serde_json::from_str(&result).unwrap();
    assert_eq!(
        result["client_seeds"],
        serde_json::json!([hex::encode(b"alice"), hex::encode(b"bob"), ""])
    );
    let dealt = fair_deal(
        game_server,
        server_seed,
        &["alice".into(), "bob".into(), String::new()],
        0,
    );
    let stored: (Vec<i32>, Vec<i32>, Vec<i32>, Vec<i32>, i16) = {
        let row = admin
            .query_one(
                "SELECT p1_cards, p2_cards, p3_cards, extra_cards, leader FROM game WHERE desk_id = 1",
                &[],
            )
            .unwrap();
        (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4))
    };
    assert_eq!(
        stored, dealt,
        "the house seat dealt with a seed other than the empty one"
    );
    let seed = fair::server_seed(server_seed).unwrap();
    let steered_deal = fair::deal(&seed, &[b"alice", b"bob", steered.as_bytes()], 0);
    assert_ne!(
        stored.2,
        steered_deal.hands[2].to_vec(),
        "the steered hand was dealt"
    );
}
