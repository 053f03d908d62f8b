//! A desk deals only under an unrevealed round of its own, however a role that may write its
//! provably fair columns rewrites it: no key refuses the rewrite (none joins the extension's
//! tables, so that a parallel restore keeps them), the deal does, and dealcards_check() names
//! the desk.

use postgres::error::SqlState;
use postgres::Client;

use crate::desks::{
    database_with_extension, deal, error_code, mode_on_without_seeds, parse_dealt, seat,
};
use crate::server;

/// A backend keeps the seed of the round it last dealt under at each desk. A desk pointed by hand
/// at a revealed round, a rolled-back one or another desk's deals nothing: not after a statement
/// of its own, not in the statement that deals, in a connection that has dealt under that round
/// (and keeps its seed) or not.
#[test]
fn a_desk_names_only_an_unrevealed_round_of_its_own() {
    let db = "dealcards_fair_cache";
    let mut admin = database_with_extension(db);
    seat(&mut admin, 1, &[1, 2, 3]);
    seat(&mut admin, 2, &[1, 2, 3]);
    mode_on_without_seeds(&mut admin, 1);
    mode_on_without_seeds(&mut admin, 2);
    let user = server::dsn_setting("user");
    // This connection keeps both desks' round 1 seeds; a round 2 of desk 2's was committed to
    // and rolled back (a deal under it in its own transaction is refused: it could be undone).
    let mut cached = server::connect_as(db, &user);
    parse_dealt(&deal(&mut cached, 1));
    parse_dealt(&deal(&mut cached, 2));
    cached.batch_execute("BEGIN").unwrap();
    let rolled_back: Vec<u8> = cached
        .query_one("SELECT next_commitment FROM fair_reveal(2)", &[])
        .unwrap()
        .get(0);
    assert_eq!(
        error_code(&mut cached, "SELECT deal_cards(2)"),
        SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE
    );
    cached.batch_execute("ROLLBACK").unwrap();
    let desk_1: Vec<u8> = admin
        .query_one("SELECT fair_commitment FROM desk WHERE desk_id = 1", &[])
        .unwrap()
        .get(0);
    let revealed: Vec<u8> = admin
        .query_one("SELECT commitment FROM fair_reveal(1)", &[])
        .unwrap()
        .get(0);
    assert_eq!(revealed, desk_1);
    let before = games(&mut admin);

    let rewrites = [
        // Desk 1's round 1 (now revealed) at desk 2, whose round 1 it is not.
        (
            2,
            format!(
                "UPDATE desk SET fair_round = 1, fair_commitment = '\\x{}' WHERE desk_id = 2",
                hex::encode(&desk_1)
            ),
        ),
        // Desk 1 back on its revealed round.
        (
            1,
            format!(
                "UPDATE desk SET fair_round = 1, fair_commitment = '\\x{}', fair_nonce = 5 WHERE desk_id = 1",
                hex::encode(&revealed)
            ),
        ),
        // Desk 2 on the round that was rolled back.
        (
            2,
            format!(
                "UPDATE desk SET fair_round = 2, fair_commitment = '\\x{}' WHERE desk_id = 2",
                hex::encode(&rolled_back)
            ),
        ),
    ];
    let mut fresh = server::connect_as(db, &user);
    for (desk, rewrite) in &rewrites {
        for client in [&mut cached, &mut fresh] {
            check_the_rewrite_is_refused(client, *desk, rewrite);
        }
    }
    assert_eq!(games(&mut admin), before, "a rewritten desk was dealt at");
    // The desks deal on, each under its own unrevealed round, and every game verifies.
    for desk in [1, 2] {
        parse_dealt(&deal(&mut cached, desk));
    }
    let failed: i64 = admin
        .query_one(
            "SELECT count(*) FROM desk d, fair_verify_desk(d.desk_id) v WHERE v.verified = false",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(failed, 0, "a game does not verify");
}

/// The games dealt, at every desk.
fn games(c: &mut Client) -> i64 {
    c.query_one("SELECT count(*) FROM game", &[])
        .unwrap()
        .get(0)
}

/// `rewrite` of `desk`: dealcards_check() names the desk, and a deal after it, in its own
/// statement or in the same one, is refused.
fn check_the_rewrite_is_refused(client: &mut Client, desk: i32, rewrite: &str) {
    client.batch_execute(&format!("BEGIN; {rewrite}")).unwrap();
    let named: i64 = client
        .query_one(
            "SELECT count(*) FROM dealcards_check() WHERE table_name = 'desk' AND desk_id = $1",
            &[&desk],
        )
        .unwrap()
        .get(0);
    assert_eq!(named, 1, "dealcards_check() after {rewrite}");
    client.batch_execute("ROLLBACK").unwrap();
    let separate = format!("BEGIN; {rewrite}; SELECT deal_cards({desk})");
    assert_eq!(
        error_code(client, &separate),
        SqlState::DATA_CORRUPTED,
        "{separate}"
    );
    client.batch_execute("ROLLBACK").unwrap();
    // In the statement that deals: the rewrite runs first and the deal sees it. A
    // backend that keeps the round's seed deals, and the statement that records the
    // game refuses; one that must read the seed finds none.
    let same_statement = format!(
        "WITH moved AS ({rewrite} RETURNING 1)
         SELECT (SELECT count(*) FROM moved), deal_cards({desk})"
    );
    assert_eq!(
        error_code(client, &same_statement),
        SqlState::DATA_CORRUPTED,
        "{same_statement}"
    );
}
