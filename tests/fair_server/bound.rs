//! Rounds end: a round's bound (at most `max_deals` deals, and its seed due within
//! `reveal_within` of its commitment, a day unless another time or none is given) is fixed with
//! its commitment; past it the desk deals
//! nothing until the round is revealed (55000, with a hint naming fair_reveal), and nothing the
//! game server may do moves the bound or the count. The players' tool says "overdue" once the
//! bound has passed.
//!
//! All as the game server's role with exactly the documented grants, over its own connection.

use std::path::PathBuf;
use std::process::Command;

use postgres::error::SqlState;
use postgres::Client;

use crate::desks::{database_with_extension, error_code, receipt, seat, set_seeds};
use crate::grants::create_game_server_role;
use crate::server;

/// The error of a statement that must fail: its SQLSTATE, message and hint.
fn refusal(client: &mut Client, sql: &str) -> (SqlState, String, String) {
    let err = client
        .batch_execute(sql)
        .expect_err(&format!("{sql} succeeded"));
    let db = err
        .as_db_error()
        .unwrap_or_else(|| panic!("{sql}: not a server error: {err}"));
    (
        db.code().clone(),
        db.message().to_string(),
        db.hint().unwrap_or_default().to_string(),
    )
}

/// A round's bound as fair_commitment shows it: max_deals, and whether reveal_by is set.
fn bound(client: &mut Client, desk: i32, round: i32) -> (i64, bool) {
    let row = client
        .query_one(
            "SELECT max_deals, reveal_by IS NOT NULL FROM fair_commitment
              WHERE desk_id = $1 AND round = $2",
            &[&desk, &round],
        )
        .unwrap();
    (row.get(0), row.get(1))
}

fn games(admin: &mut Client, desk: i32) -> i64 {
    admin
        .query_one("SELECT count(*) FROM game WHERE desk_id = $1", &[&desk])
        .unwrap()
        .get(0)
}

/// A deal at the desk, committed, and its receipt.
fn deal_and_receipt(client: &mut Client, desk: i32) -> String {
    let game: i64 = client
        .query_one("SELECT (deal_cards($1) ->> 'game')::bigint", &[&desk])
        .unwrap()
        .get(0);
    receipt(client, game)
}

/// tools/verify_deal.py receipts on the desk's publication and these receipts: its exit status
/// and what it printed. A complete check, as player 1 (in seat 1 of every game here, every
/// receipt of theirs given) shown each round's commitment as the publication has it (the
/// desks here are dealt honestly); without them the tool calls the check incomplete.
fn verify_deal(client: &mut Client, desk: i32, receipts: &[String], name: &str) -> (i32, String) {
    let publication: String = client
        .query_one("SELECT fair_publication($1)::text", &[&desk])
        .unwrap()
        .get(0);
    let published: serde_json::Value = serde_json::from_str(&publication).unwrap();
    let shown: Vec<String> = published["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "--commitment={}:{}",
                r["round"],
                r["commitment"].as_str().unwrap()
            )
        })
        .collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("target").join("fair_bound");
    std::fs::create_dir_all(&dir).unwrap();
    let pub_path = dir.join(format!("{name}.publication.json"));
    let receipts_path = dir.join(format!("{name}.receipts.jsonl"));
    std::fs::write(&pub_path, publication).unwrap();
    std::fs::write(&receipts_path, receipts.join("\n")).unwrap();
    let out = Command::new("python3")
        .arg(root.join("tools/verify_deal.py"))
        .arg("receipts")
        .arg("--publication")
        .arg(&pub_path)
        .arg(&receipts_path)
        .arg("--player=1")
        .args(&shown)
        .output()
        .expect("python3 runs tools/verify_deal.py");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn a_round_deals_nothing_past_its_bound_until_revealed() {
    let db = "dealcards_fair_bound";
    let role = "dealcards_fair_bound_server";
    let mut admin = database_with_extension(db);
    create_game_server_role(&mut admin, role);
    let mut gs = server::connect_as(db, role);

    check_the_default_bound(&mut gs);

    let (first, second) = deal_round_1_to_its_bound(&mut gs, &mut admin);
    check_nothing_moves_the_bound(&mut gs, &mut admin);
    check_bad_bounds_are_refused(&mut gs);
    reveal_round_1(&mut gs, first, second);
    let dealt = check_a_time_limit(&mut gs, &mut admin);
    check_a_round_past_its_time(&mut gs, dealt);
}

/// The default bound: 1000 deals, and the seed due a day after the commitment; NULL given for
/// the time is no time limit, which fair_reveal carries on.
fn check_the_default_bound(gs: &mut Client) {
    seat(gs, 3, &[1, 2, 3]);
    gs.batch_execute("SELECT fair_mode_on(3)").unwrap();
    assert_eq!(bound(gs, 3, 1), (1000, true));
    let a_day = "SELECT reveal_by = committed_at + interval '1 day' FROM fair_commitment
                  WHERE desk_id = $1 AND round = $2";
    assert!(gs.query_one(a_day, &[&3, &1]).unwrap().get::<_, bool>(0));
    gs.batch_execute("SELECT * FROM fair_reveal(3)").unwrap();
    assert!(gs.query_one(a_day, &[&3, &2]).unwrap().get::<_, bool>(0));
    seat(gs, 4, &[1, 2, 3]);
    gs.batch_execute("SELECT fair_mode_on(4, reveal_within => NULL)")
        .unwrap();
    assert_eq!(bound(gs, 4, 1), (1000, false));
    gs.batch_execute("SELECT * FROM fair_reveal(4)").unwrap();
    assert_eq!(bound(gs, 4, 2), (1000, false));
}

/// Round 1 of desk 1 deals at most twice (and its seed is due within the default day).
fn deal_round_1_to_its_bound(gs: &mut Client, admin: &mut Client) -> (String, String) {
    seat(gs, 1, &[1, 2, 3]);
    gs.batch_execute("SELECT fair_mode_on(1, house_seats => '{3}', max_deals => 2)")
        .unwrap();
    assert_eq!(bound(gs, 1, 1), (2, true));
    set_seeds(gs, 1, &[(1, "a"), (2, "b")]);
    let first = deal_and_receipt(gs, 1);
    // Before the bound, the tool says not revealed yet (exit 3).
    let (status, out) = verify_deal(gs, 1, std::slice::from_ref(&first), "before");
    assert_eq!(status, 3, "{out}");
    assert!(out.contains("not revealed yet"), "{out}");
    let second = deal_and_receipt(gs, 1);
    assert_eq!(games(admin, 1), 2);

    // The third deal is refused, with the function to run in its hint; nothing is written.
    let (code, message, hint) = refusal(gs, "SELECT deal_cards(1)");
    assert_eq!(
        code,
        SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE,
        "{message}"
    );
    assert!(
        message.contains("until the round is revealed") && message.contains("2 deals"),
        "{message}"
    );
    assert!(hint.contains("fair_reveal(1)"), "{hint}");
    assert_eq!(games(admin, 1), 2);

    // The bound has passed: the tool says overdue for both receipts (exit 1), not "not
    // revealed yet".
    let (status, out) = verify_deal(gs, 1, &[first.clone(), second.clone()], "at");
    assert_eq!(status, 1, "{out}");
    assert_eq!(out.matches(": overdue: commitment: ").count(), 2, "{out}");
    assert!(!out.contains("not revealed yet"), "{out}");
    (first, second)
}

/// Nothing the game server may do moves the bound or the count.
fn check_nothing_moves_the_bound(gs: &mut Client, admin: &mut Client) {
    for sql in [
        "UPDATE fair_seed SET max_deals = 100",
        "UPDATE fair_commitment SET max_deals = 100",
        "UPDATE desk SET fair_nonce = 0 WHERE desk_id = 1",
        "UPDATE desk SET fair_round = NULL, fair_commitment = NULL WHERE desk_id = 1",
        "DELETE FROM game WHERE desk_id = 1",
        "UPDATE game SET fair_commitment = NULL WHERE desk_id = 1",
    ] {
        assert_eq!(
            error_code(gs, sql),
            SqlState::INSUFFICIENT_PRIVILEGE,
            "{sql}"
        );
    }
    // fair_mode_on at a desk in the mode keeps the round in force, and its rules.
    gs.batch_execute("SELECT fair_mode_on(1, max_deals => 100)")
        .unwrap();
    assert_eq!(bound(gs, 1, 1), (2, true));
    // A new seating, with a new seed, does not start the count again.
    gs.batch_execute(
        "DELETE FROM desk_player WHERE desk_id = 1 AND player_no = 2;
         INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (1, 2, 99);",
    )
    .unwrap();
    set_seeds(gs, 1, &[(2, "c")]);
    assert_eq!(
        error_code(gs, "SELECT deal_cards(1)"),
        SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE
    );
    // Nor does a deal in a transaction of its own, or undone to a savepoint.
    gs.batch_execute("BEGIN; SAVEPOINT s").unwrap();
    assert_eq!(
        error_code(gs, "SELECT deal_cards(1)"),
        SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE
    );
    gs.batch_execute("ROLLBACK").unwrap();
    assert_eq!(games(admin, 1), 2);
}

/// A bound is at least one deal, and a time limit more than nothing; NULL is refused.
fn check_bad_bounds_are_refused(gs: &mut Client) {
    for (sql, code) in [
        (
            "SELECT fair_mode_on(2, max_deals => 0)",
            &SqlState::INVALID_PARAMETER_VALUE,
        ),
        (
            "SELECT fair_mode_on(2, max_deals => -1)",
            &SqlState::INVALID_PARAMETER_VALUE,
        ),
        (
            "SELECT fair_mode_on(2, reveal_within => interval '0')",
            &SqlState::INVALID_PARAMETER_VALUE,
        ),
        (
            "SELECT fair_mode_on(2, reveal_within => interval '1 day -25 hours')",
            &SqlState::INVALID_PARAMETER_VALUE,
        ),
        (
            "SELECT fair_mode_on(2, max_deals => NULL)",
            &SqlState::NULL_VALUE_NOT_ALLOWED,
        ),
        (
            "SELECT fair_mode_on(NULL)",
            &SqlState::NULL_VALUE_NOT_ALLOWED,
        ),
        (
            "SELECT * FROM fair_reveal(1, max_deals => 0)",
            &SqlState::INVALID_PARAMETER_VALUE,
        ),
        (
            "SELECT * FROM fair_reveal(1, reveal_within => interval '-1 second')",
            &SqlState::INVALID_PARAMETER_VALUE,
        ),
    ] {
        assert_eq!(error_code(gs, sql), *code, "{sql}");
    }
    assert_eq!(bound(gs, 1, 1), (2, true));
}

/// The reveal: the receipts verify, and the next round has the same bound unless given.
fn reveal_round_1(gs: &mut Client, first: String, second: String) {
    gs.batch_execute("SELECT * FROM fair_reveal(1)").unwrap();
    let (status, out) = verify_deal(gs, 1, &[first, second], "after");
    assert_eq!(status, 0, "{out}");
    assert_eq!(bound(gs, 1, 2), (2, true));
    set_seeds(gs, 1, &[(1, "a2"), (2, "b2")]);
    gs.batch_execute("SELECT deal_cards(1); SELECT deal_cards(1);")
        .unwrap();
    assert_eq!(
        error_code(gs, "SELECT deal_cards(1)"),
        SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE
    );
    gs.batch_execute("SELECT * FROM fair_reveal(1, max_deals => 5)")
        .unwrap();
    assert_eq!(bound(gs, 1, 3), (5, true));
}

/// A time limit: a seed due a microsecond after its commitment is due by the time of any
/// later transaction's deal. The tool says overdue by the time too.
fn check_a_time_limit(gs: &mut Client, admin: &mut Client) -> String {
    seat(gs, 2, &[1, 2, 3]);
    gs.batch_execute(
        "SELECT fair_mode_on(2, seeds_required => false, reveal_within => interval '1 microsecond')",
    )
    .unwrap();
    let (code, message, hint) = refusal(gs, "SELECT deal_cards(2)");
    assert_eq!(
        code,
        SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE,
        "{message}"
    );
    assert!(message.contains("due"), "{message}");
    assert!(hint.contains("fair_reveal(2)"), "{hint}");
    let due: bool = gs
        .query_one(
            "SELECT reveal_by = committed_at + interval '1 microsecond' FROM fair_commitment
              WHERE desk_id = 2 AND round = 1",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(due);
    // The next round keeps the time limit unless another is given; an hour is not due yet.
    gs.batch_execute("SELECT * FROM fair_reveal(2)").unwrap();
    assert_eq!(
        error_code(gs, "SELECT deal_cards(2)"),
        SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE
    );
    gs.batch_execute("SELECT * FROM fair_reveal(2, reveal_within => interval '1 hour')")
        .unwrap();
    let dealt = deal_and_receipt(gs, 2);
    assert_eq!(bound(gs, 2, 3), (1000, true));
    let (status, out) = verify_deal(gs, 2, std::slice::from_ref(&dealt), "hour");
    assert_eq!(status, 3, "{out}");
    // Round 3's reveal_by rewritten by the owner to a time past: the rules are in the chain
    // (protocol 3), so the tool fails the receipt, and the desk.
    admin
        .batch_execute(
            "BEGIN;
             UPDATE fair_seed SET reveal_by = committed_at + interval '1 microsecond'
              WHERE desk_id = 2 AND round = 3",
        )
        .unwrap();
    let (status, out) = verify_deal(admin, 2, std::slice::from_ref(&dealt), "rewritten");
    assert_eq!(status, 1, "{out}");
    assert!(out.contains(": failed: chain: "), "{out}");
    admin.batch_execute("ROLLBACK").unwrap();
    dealt
}

/// A round that deals within its time and is then past it: the tool says overdue, by the
/// time. The window starts at 2 seconds and doubles until a deal fits in it (a slow machine
/// makes the test slower, never wrong).
fn check_a_round_past_its_time(gs: &mut Client, dealt: String) {
    let mut window = 2;
    let due = loop {
        gs.batch_execute(&format!(
            "SELECT * FROM fair_reveal(2, reveal_within => interval '{window} seconds')"
        ))
        .unwrap();
        match gs.query_one("SELECT (deal_cards(2) ->> 'game')::bigint", &[]) {
            Ok(row) => break receipt(gs, row.get(0)),
            Err(e) => {
                assert_eq!(
                    e.code(),
                    Some(&SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE),
                    "{e}"
                );
                window *= 2;
                assert!(window <= 512, "no deal within {window} seconds");
            }
        }
    };
    gs.batch_execute(
        "DO $$ BEGIN
           WHILE clock_timestamp() <= (SELECT reveal_by FROM fair_commitment
                                        WHERE desk_id = 2 ORDER BY round DESC LIMIT 1) LOOP
             PERFORM pg_sleep(0.1);
           END LOOP;
         END $$",
    )
    .unwrap();
    let (status, out) = verify_deal(gs, 2, &[dealt, due], "due");
    assert_eq!(status, 1, "{out}");
    assert!(
        out.contains("(round 3, nonce 0): verified")
            && out.contains(": overdue: commitment: ")
            && out.contains("was due by"),
        "{out}"
    );
}
