//! Each bad call gets its SQLSTATE and changes nothing: no hand, no card, no step of a plan.

use postgres::error::SqlState;
use postgres::Client;

use crate::hands::{deal, draw, room, start};
use crate::server;

/// Everything the hand tables hold, as the owner reads it.
fn everything(admin: &mut Client) -> Vec<String> {
    admin
        .query(
            "SELECT format('%s', h) FROM room_hand h
             UNION ALL SELECT format('%s', c) FROM room_card c
             UNION ALL SELECT format('%s', k) FROM room_hand_key k
             ORDER BY 1",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

/// Asserts that `sql` fails with `code` and leaves the tables as they were.
fn refused(admin: &mut Client, client: &mut Client, sql: &str, code: &SqlState) {
    let before = everything(admin);
    let err = client.batch_execute(sql).expect_err(sql);
    assert_eq!(err.code(), Some(code), "{sql}: {err}");
    assert_eq!(everything(admin), before, "{sql} changed the tables");
}

/// The hands the bad calls name: a Hold'em hand at the flop, a riichi hand at its draws with
/// the live wall down to 5 tiles, and a hand that has ended.
fn hands(server: &mut Client) -> (i64, i64, i64) {
    let holdem = start(server, "'holdem', 6");
    deal(server, holdem, None);
    deal(server, holdem, None);
    let riichi = start(server, "'riichi'");
    for _ in 0..4 {
        deal(server, riichi, None);
    }
    assert_eq!(draw(server, riichi, 1, 64).1, 5);
    let ended = start(server, "'bridge', board => 2");
    server.execute("SELECT hand_end($1)", &[&ended]).unwrap();
    (holdem, riichi, ended)
}

/// The bad calls, with the SQLSTATE of each: `$H` stands for the Hold'em hand at the flop, `$R`
/// for the riichi hand at its draws, `$E` for the hand that has ended.
const BAD_CALLS: [(&str, &str); 33] = [
    ("SELECT hand_start(1, 'canasta', 4)", "22023"),
    ("SELECT hand_start(1, 'holdem', 11)", "22023"),
    ("SELECT hand_start(1, 'holdem', 1)", "22023"),
    ("SELECT hand_start(1, 'holdem')", "22023"),
    ("SELECT hand_start(1, 'bridge', 5, board => 1)", "22023"),
    ("SELECT hand_start(1, 'bridge')", "22023"),
    ("SELECT hand_start(1, 'bridge', board => 0)", "22023"),
    (
        "SELECT hand_start(1, 'bridge', board => 1, dealer => 2)",
        "22023",
    ),
    ("SELECT hand_start(1, 'holdem', 6, board => 1)", "22023"),
    ("SELECT hand_start(1, 'holdem', 6, dealer => 7)", "22023"),
    ("SELECT hand_start(1, 'blackjack', 2, decks => 9)", "22023"),
    (
        "SELECT hand_start(1, 'blackjack', 2, penetration => 1.5)",
        "22023",
    ),
    ("SELECT hand_start(1, 'holdem', 6, decks => 1)", "22023"),
    ("SELECT hand_start(NULL, 'holdem', 6)", "22004"),
    ("SELECT * FROM hand_deal(987654321)", "P0002"),
    ("SELECT * FROM hand_deal(NULL)", "22004"),
    ("SELECT * FROM hand_deal($H, 'river')", "55000"),
    ("SELECT * FROM hand_deal($H, 'flop')", "55000"),
    ("SELECT * FROM hand_deal($H, 'showdown')", "22023"),
    ("SELECT * FROM hand_draw($H, 1, 1)", "55000"),
    ("SELECT * FROM hand_draw($R, 5, 1)", "22023"),
    ("SELECT * FROM hand_draw($R, 0, 1)", "22023"),
    ("SELECT * FROM hand_draw($R, 1, 0)", "22023"),
    ("SELECT * FROM hand_draw($R, 1, -1)", "22023"),
    ("SELECT * FROM hand_draw($R, 2, 6)", "55000"),
    ("SELECT * FROM hand_deal($R)", "55000"),
    ("SELECT * FROM hand_deal($E)", "55000"),
    ("SELECT * FROM hand_draw($E, 1, 1)", "55000"),
    ("SELECT hand_end($E)", "55000"),
    ("SELECT hand_end(987654321)", "P0002"),
    ("SELECT hand_pbn(987654321)", "P0002"),
    ("SELECT hand_pbn($H)", "22023"),
    ("SELECT hand_pbn($E)", "55000"),
];

/// Unknown kinds, bad seat counts and options, unknown hands, stages out of order, seats that
/// do not exist, draws past the end of the wall, anything on a hand that has ended, and the PBN
/// of a hand that is not a bridge board or not dealt.
#[test]
fn each_bad_call_is_refused_and_changes_nothing() {
    let (mut admin, mut server) = room("dealcards_rooms_errors", "dealcards_rooms_errors_server");
    let (holdem, riichi, ended) = hands(&mut server);
    let not_ready = SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE;
    for (sql, code) in BAD_CALLS {
        let sql = sql
            .replace("$H", &holdem.to_string())
            .replace("$R", &riichi.to_string())
            .replace("$E", &ended.to_string());
        refused(&mut admin, &mut server, &sql, &SqlState::from_code(code));
    }
    // The riichi wall's last 5 tiles can still be drawn, and no more.
    assert_eq!(draw(&mut server, riichi, 2, 5).1, 0);
    refused(
        &mut admin,
        &mut server,
        &format!("SELECT * FROM hand_draw({riichi}, 3, 1)"),
        &not_ready,
    );
}

/// A role without UPDATE on room_hand may start, deal, draw and end nothing (42501).
#[test]
fn a_role_without_the_grant_is_refused() {
    let db = "dealcards_rooms_grant";
    let (mut admin, mut server) = room(db, "dealcards_rooms_grant_server");
    let hand = start(&mut server, "'holdem', 2");
    let outsider = "dealcards_rooms_grant_outsider";
    server::fresh_role(&mut admin, outsider, "LOGIN");
    admin
        .batch_execute(&format!(
            "GRANT SELECT ON room_hand, room_card TO {outsider}"
        ))
        .unwrap();
    let mut outsider = server::connect_as(db, outsider);
    for sql in [
        "SELECT hand_start(1, 'holdem', 2)".to_string(),
        format!("SELECT * FROM hand_deal({hand})"),
        format!("SELECT * FROM hand_draw({hand}, 1, 1)"),
        format!("SELECT hand_end({hand})"),
    ] {
        refused(
            &mut admin,
            &mut outsider,
            &sql,
            &SqlState::INSUFFICIENT_PRIVILEGE,
        );
    }
}

/// Rows no function writes, made by hand as the owner: cards and a key whose hand was deleted,
/// and a hand whose key was. dealcards_check names each for the owner; a role with SELECT on
/// every table, which row security shows no key, is told of the cards alone.
#[test]
fn dealcards_check_names_cards_and_keys_without_their_hand() {
    let (mut admin, mut server) = room("dealcards_rooms_check", "dealcards_rooms_check_server");
    let gone = start(&mut server, "'holdem', 3");
    deal(&mut server, gone, None);
    let keyless = start(&mut server, "'holdem', 3");
    let kept = start(&mut server, "'bridge', board => 5");
    deal(&mut server, kept, None);
    let check = |client: &mut Client| -> Vec<String> {
        client
            .query(
                "SELECT format('%s|%s|%s', table_name, desk_id, problem) FROM dealcards_check()",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    };
    assert_eq!(check(&mut admin), Vec::<String>::new());
    admin
        .batch_execute(&format!(
            "DELETE FROM room_hand WHERE hand_id = {gone};
             DELETE FROM room_hand_key WHERE hand_id = {keyless};"
        ))
        .unwrap();
    assert_eq!(
        check(&mut admin),
        [
            format!("room_card||6 cards of hand {gone}, which does not exist"),
            format!("room_hand||hand {keyless} has no key: it cannot deal"),
            format!("room_hand_key||the key of hand {gone}, which does not exist"),
        ]
    );
    let reader = "dealcards_rooms_check_reader";
    server::fresh_role(&mut admin, reader, "LOGIN");
    admin
        .batch_execute(&format!(
            "GRANT USAGE ON SCHEMA public TO {reader};
             GRANT SELECT ON ALL TABLES IN SCHEMA public TO {reader};"
        ))
        .unwrap();
    let mut reader = server::connect_as("dealcards_rooms_check", reader);
    assert_eq!(
        check(&mut reader),
        [format!(
            "room_card||6 cards of hand {gone}, which does not exist"
        )]
    );
    // An ended hand deals nothing: without its key it is not named.
    admin
        .batch_execute(&format!(
            "UPDATE room_hand SET ended = true WHERE hand_id = {keyless}"
        ))
        .unwrap();
    assert_eq!(check(&mut admin).len(), 2);
}
