//! Each misuse of the provably fair functions gets its SQLSTATE.

use postgres::error::SqlState;
use postgres::Client;

use crate::desks::{database_with_extension, deal, error_code, parse_dealt, seat};

/// What a deal writes at desk 2: its nonce, current game and chain head, and its games, bids
/// and notes.
type DeskWrites = (Option<i64>, Option<i64>, Option<Vec<u8>>, i64, i64, i64);

const NOT_FOUND: SqlState = SqlState::NO_DATA_FOUND;
const INVALID: SqlState = SqlState::INVALID_PARAMETER_VALUE;
const NOT_READY: SqlState = SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE;

#[test]
fn misuse_gets_its_sqlstate() {
    let mut client = database_with_extension("dealcards_fair_errors");
    seat(&mut client, 1, &[1, 2, 3]);
    seat(&mut client, 2, &[1, 3]);
    seat(&mut client, 3, &[1, 2, 3]);
    client
        .batch_execute("SELECT fair_mode_on(1, house_seats => '{3}')")
        .unwrap();
    check_each_misuse_gets_its_sqlstate(&mut client);
    check_the_limits_and_seeds_set_once(&mut client);
    check_unverifiable_games(&mut client);
    check_two_players_at_a_fair_desk(&mut client);
}

/// Each misuse, with its SQLSTATE.
fn check_each_misuse_gets_its_sqlstate(client: &mut Client) {
    for (sql, code) in [
        ("SELECT fair_mode_on(99)", &NOT_FOUND),
        ("SELECT * FROM fair_reveal(99)", &NOT_FOUND),
        ("SELECT fair_mode_off(99)", &NOT_FOUND),
        ("SELECT * FROM fair_verify_desk(99)", &NOT_FOUND),
        ("SELECT * FROM fair_reveal(3)", &NOT_READY),
        ("SELECT set_client_seed(2, 2, 'x')", &NOT_READY),
        ("SELECT set_client_seed(99, 1, 'x')", &NOT_FOUND),
        ("SELECT set_client_seed(1, 4, 'x')", &INVALID),
        ("SELECT set_client_seed(1, 0, 'x')", &INVALID),
        ("SELECT set_client_seed(1, 1, repeat('x', 257))", &INVALID),
        ("SELECT set_client_seed(1, 1, repeat('é', 129))", &INVALID),
        (
            "SELECT * FROM fair_deal(decode(repeat('ab', 31), 'hex'), ARRAY['', '', ''], 0)",
            &INVALID,
        ),
        (
            "SELECT * FROM fair_deal(decode(repeat('ab', 33), 'hex'), ARRAY['', '', ''], 0)",
            &INVALID,
        ),
        (
            "SELECT * FROM fair_deal(sha256(''), ARRAY['a', 'b'], 0)",
            &INVALID,
        ),
        (
            "SELECT * FROM fair_deal(sha256(''), ARRAY['a', 'b', 'c', 'd'], 0)",
            &INVALID,
        ),
        (
            "SELECT * FROM fair_deal(sha256(''), ARRAY['a', NULL, 'c'], 0)",
            &INVALID,
        ),
        (
            "SELECT * FROM fair_deal(sha256(''), ARRAY['a', repeat('x', 257), 'c'], 0)",
            &INVALID,
        ),
        (
            "SELECT * FROM fair_deal(sha256(''), ARRAY['', '', ''], -1)",
            &INVALID,
        ),
        ("SELECT * FROM fair_verify_game(12345)", &NOT_FOUND),
        // A round's house seats are seats, each named once.
        ("SELECT fair_mode_on(3, '{0}')", &INVALID),
        ("SELECT fair_mode_on(3, '{4}')", &INVALID),
        ("SELECT fair_mode_on(3, '{2,2}')", &INVALID),
        ("SELECT fair_mode_on(3, '{NULL}')", &INVALID),
        ("SELECT * FROM fair_reveal(1, '{1,1}')", &INVALID),
        // A seed answers a round's commitment: none outside the mode, none for a house seat.
        ("SELECT set_client_seed(3, 1, 'x')", &NOT_READY),
        ("SELECT set_client_seed(1, 3, 'x')", &NOT_READY),
        // Every seat that is not the house's must set a seed before a deal (the default).
        ("SELECT deal_cards(1)", &NOT_READY),
    ] {
        assert_eq!(&error_code(client, sql), code, "{sql}");
    }
}

/// The limits themselves are fine.
fn check_the_limits_and_seeds_set_once(client: &mut Client) {
    client
        .batch_execute(
            "SELECT set_client_seed(1, 1, repeat('é', 128));
             SELECT * FROM fair_deal(sha256(''), ARRAY[repeat('x', 256), '', ''], 9223372036854775807);",
        )
        .unwrap();
    // A seed is set once per player and round; one set in the dealing transaction is refused.
    assert_eq!(
        error_code(client, "SELECT set_client_seed(1, 1, 'again')"),
        NOT_READY
    );
    assert_eq!(
        error_code(
            client,
            "BEGIN; SELECT set_client_seed(1, 2, 'now'); SELECT deal_cards(1)"
        ),
        NOT_READY
    );
    client.batch_execute("ROLLBACK").unwrap();
    client
        .batch_execute("SELECT set_client_seed(1, 2, 'before')")
        .unwrap();
}

/// A game dealt outside the mode has nothing to verify; one not revealed yet cannot be.
fn check_unverifiable_games(client: &mut Client) {
    let outside: serde_json::Value = serde_json::from_str(&deal(client, 3)).unwrap();
    assert!(
        outside.get("commitment").is_none() && outside.get("nonce").is_none(),
        "{outside}"
    );
    let plain = outside["game"].as_i64().unwrap();
    assert!(
        (1..=3).contains(&outside["leader"].as_i64().unwrap()),
        "{outside}"
    );
    assert_eq!(
        error_code(client, &format!("SELECT * FROM fair_verify_game({plain})")),
        INVALID
    );
    // Nor a receipt; a game that does not exist has none either.
    assert_eq!(
        error_code(client, &format!("SELECT fair_receipt({plain})")),
        INVALID
    );
    assert_eq!(
        error_code(client, &format!("SELECT fair_receipt({})", plain + 1000)),
        NOT_FOUND
    );
    let (_, fair, _, _) = parse_dealt(&deal(client, 1));
    assert_eq!(
        error_code(client, &format!("SELECT * FROM fair_verify_game({fair})")),
        NOT_READY
    );
}

/// Two players at a fair desk: refused, and nothing written, the nonce unchanged.
fn check_two_players_at_a_fair_desk(client: &mut Client) {
    client
        .batch_execute("SELECT fair_mode_on(2, seeds_required => false)")
        .unwrap();
    let state = |client: &mut Client| -> DeskWrites {
        let row = client
            .query_one(
                "SELECT d.fair_nonce, d.cur_game_id, d.fair_chain_head,
                        (SELECT count(*) FROM game WHERE desk_id = 2),
                        (SELECT count(*) FROM bid_record WHERE desk_id = 2),
                        (SELECT count(*) FROM note WHERE desk_id = 2)
                   FROM desk d WHERE desk_id = 2",
                &[],
            )
            .unwrap();
        (
            row.get(0),
            row.get(1),
            row.get(2),
            row.get(3),
            row.get(4),
            row.get(5),
        )
    };
    // A seed belongs to a seated player.
    assert_eq!(
        error_code(client, "SELECT set_client_seed(2, 2, 'x')"),
        NOT_FOUND
    );
    let before = state(client);
    assert_eq!(before, (Some(0), None, None, 0, 0, 0));
    assert_eq!(error_code(client, "SELECT deal_cards(2)"), NOT_READY);
    assert_eq!(state(client), before);
    // Once the third player sits down, the first deal is nonce 0.
    client
        .batch_execute("INSERT INTO desk_player VALUES (2, 2, 22)")
        .unwrap();
    assert_eq!(parse_dealt(&deal(client, 2)).3, 0);
}
