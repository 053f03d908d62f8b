//! A round committed without a deadline given: `fair_mode_on` with no `reveal_within` gives the
//! round `reveal_by` = its `committed_at` (the committing transaction's start) + 1 day, as the
//! publication shows it to the players, and `fair_reveal` gives the next round the same day from
//! its own commitment (a NULL `reveal_within` given to `fair_reveal` is its default: the same
//! span); `reveal_within => NULL` given to `fair_mode_on` sets no time limit, and `fair_reveal`
//! passes none on. Within the day the desk deals, and a player's check of a receipt of the unrevealed round
//! says "not revealed yet" (never "overdue"), in tools/verify_deal.py and in the SQL verifier.
//!
//! Not driven here: the day passing. Neither verifier can be told the player's time
//! (verify_deal.py reads the system clock, `dealcards_verify_receipts` `clock_timestamp()`), and
//! the server's clock moves only by waiting; a round past a short `reveal_within` is refused
//! and called overdue in `bound.rs`.
//!
//! All as the game server's role with exactly the documented grants, over its own connection.

use postgres::Client;
use serde_json::Value;

use crate::desks::{database_with_extension, deal_receipt, seat, set_seeds};
use crate::early_end::{run_verify_deal, written};
use crate::grants::create_game_server_role;
use crate::server;
use crate::shadow_desks::{sql_check, verifier_database};

const DIR: &str = "fair_default_deadline";
/// A desk whose rounds take the default time limit, and one whose rounds have none.
const DEFAULT_DESK: i32 = 1;
const NO_LIMIT_DESK: i32 = 2;

/// Runs `sql` (which commits a round at the desk) in a transaction, and returns that
/// transaction's start, `now()`, as text.
fn committed_in_transaction(gs: &mut Client, sql: &str) -> String {
    let mut tx = gs.transaction().unwrap();
    tx.batch_execute(sql).unwrap();
    let start: String = tx.query_one("SELECT now()::text", &[]).unwrap().get(0);
    tx.commit().unwrap();
    start
}

fn publication(gs: &mut Client, desk: i32) -> Value {
    let text: String = gs
        .query_one("SELECT fair_publication($1)::text", &[&desk])
        .unwrap()
        .get(0);
    serde_json::from_str(&text).unwrap()
}

/// A published round (1 for the first), as the players read it.
fn published_round(gs: &mut Client, desk: i32, round: usize) -> Value {
    let rounds = publication(gs, desk)["rounds"].clone();
    let found = rounds[round - 1].clone();
    assert_eq!(found["round"], round, "{rounds}");
    found
}

/// Asserts the published round was committed at `start` and is due a day after it.
fn assert_due_a_day_after(gs: &mut Client, desk: i32, round: usize, start: &str) {
    let published = published_round(gs, desk, round);
    let row = gs
        .query_one(
            "SELECT ($1::text::jsonb ->> 'committed_at')::timestamptz = $2::text::timestamptz,
                    ($1::text::jsonb ->> 'reveal_by')::timestamptz
                      = $2::text::timestamptz + interval '1 day'",
            &[&published.to_string(), &start],
        )
        .unwrap();
    let (committed_then, due_a_day_later): (bool, bool) = (row.get(0), row.get(1));
    assert!(
        committed_then && due_a_day_later,
        "desk {desk}, round {round} committed in a transaction started at {start}: {published}"
    );
}

/// A player's check of their receipts with their id and the commitment of each of the rounds
/// they name, shown before they gave their seeds: verify_deal.py's exit status and what it
/// printed.
fn python_check(
    name: &str,
    desk: i32,
    gs: &mut Client,
    player: i64,
    receipts: &[&str],
) -> (i32, String) {
    let published = publication(gs, desk);
    let mut args = vec![
        "--publication".to_string(),
        written(DIR, &format!("{name}.json"), &published.to_string()),
        written(DIR, &format!("{name}.jsonl"), &receipts.join("\n")),
        format!("--player={player}"),
    ];
    for receipt in receipts {
        let round = serde_json::from_str::<Value>(receipt).unwrap()["round"].clone();
        args.push(format!(
            "--commitment={round}:{}",
            shown(&published, &round)
        ));
    }
    run_verify_deal(&args)
}

/// The commitment of a published round, in hex.
fn shown(published: &Value, round: &Value) -> String {
    published["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| &r["round"] == round)
        .unwrap()["commitment"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The SQL verifier's verdict on a player's receipts, with the commitment of each of their
/// rounds: (the last receipt's result, the whole check's).
fn sql_verdict(
    verifier: &mut Client,
    gs: &mut Client,
    desk: i32,
    player: i64,
    receipts: &[&str],
) -> (String, String) {
    let published = publication(gs, desk);
    let shown: Vec<String> = receipts
        .iter()
        .map(|receipt| {
            let round = serde_json::from_str::<Value>(receipt).unwrap()["round"].clone();
            format!("{round}:{}", shown(&published, &round))
        })
        .collect();
    let rows = sql_check(verifier, &published, &receipts.join(","), player, &shown);
    assert_eq!(rows.len(), receipts.len() + 1, "{rows:?}");
    (
        rows[receipts.len() - 1].1.clone(),
        rows[receipts.len()].1.clone(),
    )
}

/// Player 1's check of all their receipts at the desk, the last under a round within its day:
/// that receipt is not revealed yet for both verifiers, never overdue, and the whole check's
/// verdict is `whole` (verify_deal.py's exit status, the SQL verifier's last row).
fn assert_not_revealed_yet(
    verifier: &mut Client,
    gs: &mut Client,
    desk: i32,
    receipts: &[&str],
    whole: (i32, &str),
    name: &str,
) {
    let player = desk as i64 * 10 + 1;
    let (status, out) = python_check(name, desk, gs, player, receipts);
    assert_eq!(status, whole.0, "{out}");
    let last: Value = serde_json::from_str(receipts[receipts.len() - 1]).unwrap();
    let line = format!(
        "game {} (round {}, nonce {}): not revealed yet\n",
        last["game"], last["round"], last["nonce"]
    );
    assert!(out.contains(&line) && !out.contains("overdue"), "{out}");
    assert_eq!(
        sql_verdict(verifier, gs, desk, player, receipts),
        ("not revealed yet".to_string(), whole.1.to_string())
    );
}

#[test]
fn a_round_without_a_deadline_given_is_due_a_day_after_its_commitment() {
    let db = "dealcards_fair_default_deadline";
    let role = "dealcards_fair_default_deadline_server";
    let mut admin = database_with_extension(db);
    create_game_server_role(&mut admin, role);
    let mut gs = server::connect_as(db, role);
    let verifier_db = "dealcards_fair_default_deadline_sql";
    let mut verifier = verifier_database(verifier_db);

    check_the_default_day(&mut gs, &mut verifier);
    check_no_time_limit(&mut gs, &mut verifier);
    check_null_given_to_fair_reveal(&mut gs);

    drop(verifier);
    server::connect()
        .batch_execute(&format!("DROP DATABASE {verifier_db} WITH (FORCE)"))
        .unwrap();
}

/// Round 1 committed with no reveal_within is due a day after its commitment and deals; its
/// receipt is not revealed yet. fair_reveal's round 2 is due a day after its own commitment;
/// round 1's receipt then verifies, its round reported ended early (exit status 5: revealed
/// after 1 of its 1000 deals, before its reveal_by), and round 2's is not revealed yet.
fn check_the_default_day(gs: &mut Client, verifier: &mut Client) {
    let desk = DEFAULT_DESK;
    seat(gs, desk, &[1, 2, 3]);
    let start = committed_in_transaction(gs, &format!("SELECT fair_mode_on({desk})"));
    assert_due_a_day_after(gs, desk, 1, &start);
    set_seeds(gs, desk, &[(1, "a"), (2, "b"), (3, "c")]);
    let (_, first) = deal_receipt(gs, desk);
    assert_not_revealed_yet(
        verifier,
        gs,
        desk,
        &[&first],
        (3, "not revealed yet"),
        "default-1",
    );

    let start = committed_in_transaction(gs, &format!("SELECT * FROM fair_reveal({desk})"));
    assert_due_a_day_after(gs, desk, 2, &start);
    let player = desk as i64 * 10 + 1;
    let (status, out) = python_check("default-1-revealed", desk, gs, player, &[&first]);
    assert_eq!(status, 5, "{out}");
    assert!(
        out.contains("(round 1, nonce 0): verified") && out.contains("\nended early: round 1 "),
        "{out}"
    );
    set_seeds(gs, desk, &[(1, "a2"), (2, "b2"), (3, "c2")]);
    let (_, second) = deal_receipt(gs, desk);
    assert_not_revealed_yet(
        verifier,
        gs,
        desk,
        &[&first, &second],
        (5, "ended early"),
        "default-2",
    );
}

/// reveal_within => NULL: no reveal_by, published as null, and none after fair_reveal; the
/// next round's receipt is not revealed yet.
fn check_no_time_limit(gs: &mut Client, verifier: &mut Client) {
    let desk = NO_LIMIT_DESK;
    seat(gs, desk, &[1, 2, 3]);
    gs.batch_execute(&format!(
        "SELECT fair_mode_on({desk}, reveal_within => NULL)"
    ))
    .unwrap();
    assert_eq!(published_round(gs, desk, 1)["reveal_by"], Value::Null);
    gs.batch_execute(&format!("SELECT * FROM fair_reveal({desk})"))
        .unwrap();
    assert_eq!(published_round(gs, desk, 2)["reveal_by"], Value::Null);
    set_seeds(gs, desk, &[(1, "x"), (2, "y"), (3, "z")]);
    let (_, dealt) = deal_receipt(gs, desk);
    assert_not_revealed_yet(
        verifier,
        gs,
        desk,
        &[&dealt],
        (3, "not revealed yet"),
        "no-limit-2",
    );
}

/// fair_reveal's reveal_within defaults to NULL, "as the round in force": NULL given to it
/// keeps the default round's day, from the next round's own commitment.
fn check_null_given_to_fair_reveal(gs: &mut Client) {
    let desk = DEFAULT_DESK;
    let start = committed_in_transaction(
        gs,
        &format!("SELECT * FROM fair_reveal({desk}, reveal_within => NULL)"),
    );
    assert_due_a_day_after(gs, desk, 3, &start);
}
