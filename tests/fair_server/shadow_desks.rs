//! Shadow desks: a game server that deals the same players' seeds at desks they never saw and
//! relays only the deal it likes best. The game server alone (the role with exactly the
//! documented grants, no owner rights) opens the players' real desk and shows them its round's
//! commitment, opens 21 shadow desks with the same three players, relays the players' seeds to
//! all 22, deals every desk, reads the committed hands and relays to player 1 the receipt of the
//! shadow desk whose hand is worst for them (and, once every round is revealed, that desk's
//! publication). Every check of that receipt against that publication passes but one: its
//! commitment is not the one player 1 was shown. Player 1's tools/verify_deal.py (with
//! `--player` and `--commitment`) and the SQL verifier (verifier/dealcards_verify.sql) fail it
//! on "shown commitment"; the real desk's receipt, checked the same way, verifies, and so does
//! the shadow receipt checked with the shadow desk's own commitment (the receipt itself is
//! sound: only the commitment shown catches it).

use postgres::Client;
use serde_json::Value;

use crate::desks::{database_with_extension, parse_dealt, receipt};
use crate::early_end::{run_verify_deal, written};
use crate::grants::create_game_server_role;
use crate::server;

const REAL_DESK: i32 = 1;
/// The shadow desks: 2 to 22.
const SHADOWS: std::ops::RangeInclusive<i32> = 2..=22;
/// The three players, seats 1, 2 and 3 at every desk.
const PLAYERS: [i64; 3] = [101, 102, 103];
/// Their seeds, as each gives them to the game server, which relays them to every desk.
const SEEDS: [&str; 3] = ["ann's seed", "bo's seed", "cy's seed"];
const DIR: &str = "fair_shadow_desks";

/// A desk opened by the game server with the three players seated, put in provably fair mode
/// with a bound of one deal (so that revealing it after that deal does not end it early), and
/// the commitment of its round 1 in hex.
fn open_desk(gs: &mut Client, desk: i32) -> String {
    gs.execute("INSERT INTO desk (desk_id) VALUES ($1)", &[&desk])
        .unwrap();
    for (seat, player) in (1i16..).zip(PLAYERS) {
        gs.execute(
            "INSERT INTO desk_player (desk_id, player_no, player_id) VALUES ($1, $2, $3)",
            &[&desk, &seat, &player],
        )
        .unwrap();
    }
    gs.query_one(
        "SELECT encode(fair_mode_on($1, max_deals => 1), 'hex')",
        &[&desk],
    )
    .unwrap()
    .get(0)
}

/// The players' seeds, relayed by the game server to a desk, each in its own transaction.
fn relay_seeds(gs: &mut Client, desk: i32) {
    for (seat, seed) in (1i32..).zip(SEEDS) {
        gs.execute("SELECT set_client_seed($1, $2, $3)", &[&desk, &seat, &seed])
            .unwrap_or_else(|e| panic!("set_client_seed({desk}, {seat}): {e}"));
    }
}

/// A deal at the desk, committed; its game id.
fn deal(gs: &mut Client, desk: i32) -> i64 {
    let dealt: String = gs
        .query_one("SELECT deal_cards($1)::text", &[&desk])
        .unwrap_or_else(|e| panic!("deal_cards({desk}): {e}"))
        .get(0);
    parse_dealt(&dealt).1
}

/// How good a hand is for its player by the house's fixed rule: its cards of rank 2 (5 to 8)
/// and jokers (53, 54).
fn strength(hand: &[i32]) -> usize {
    hand.iter()
        .filter(|&&c| (5..=8).contains(&c) || c >= 53)
        .count()
}

/// Player 1's committed hand (seat 1) in a game, as the game server reads it.
fn hand_of_player_1(gs: &mut Client, game: i64) -> Vec<i32> {
    gs.query_one("SELECT p1_cards FROM game WHERE game_id = $1", &[&game])
        .unwrap()
        .get(0)
}

fn publication(gs: &mut Client, desk: i32) -> Value {
    let text: String = gs
        .query_one("SELECT fair_publication($1)::text", &[&desk])
        .unwrap()
        .get(0);
    serde_json::from_str(&text).unwrap()
}

/// tools/verify_deal.py receipts as player 1 runs it, with their player id and the commitment
/// they were shown for round 1: its exit status and what it printed.
fn python_check(name: &str, publication: &Value, receipt: &str, shown: &str) -> (i32, String) {
    run_verify_deal(&[
        "--publication".into(),
        written(DIR, &format!("{name}.json"), &publication.to_string()),
        written(DIR, &format!("{name}.jsonl"), receipt),
        format!("--player={}", PLAYERS[0]),
        format!("--commitment=1:{shown}"),
    ])
}

/// A database without dealcards, with pgcrypto and verifier/dealcards_verify.sql loaded by psql.
pub fn verifier_database(name: &str) -> Client {
    let mut client = server::fresh_database(name);
    client.batch_execute("CREATE EXTENSION pgcrypto").unwrap();
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/verifier/dealcards_verify.sql");
    let mut args = server::program_args(name);
    args.extend(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", file].map(String::from));
    server::run_program("psql", &args);
    client
}

/// dealcards_verify_receipts's rows of kind receipt and check, as (kind, result, check), for
/// `receipts`: one receipt, or several separated by commas.
pub fn sql_check(
    verifier: &mut Client,
    publication: &Value,
    receipts: &str,
    player: i64,
    shown: &[String],
) -> Vec<(String, String, Option<String>)> {
    verifier
        .query(
            "SELECT kind, result, \"check\"
               FROM dealcards_verify_receipts($1::text::jsonb, $2::text::jsonb, $3, $4)
              WHERE kind IN ('receipt', 'check')",
            &[
                &publication.to_string(),
                &format!("[{receipts}]"),
                &player,
                &shown,
            ],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
}

/// What the game server did: the real desk's commitment shown to the players, the real game,
/// the relayed shadow game and that shadow desk.
struct Dealt {
    shown: String,
    real_game: i64,
    shadow_desk: i32,
    shadow_game: i64,
}

/// The game server's whole attack, over its own connection: 22 desks, the same seeds, every
/// desk dealt and committed, the worst hand for player 1 among the shadow desks picked (the
/// lowest desk on a tie), every round revealed.
fn deal_everywhere(gs: &mut Client) -> Dealt {
    let shown = open_desk(gs, REAL_DESK);
    let shadow_commitments: Vec<String> = SHADOWS.map(|desk| open_desk(gs, desk)).collect();
    assert!(
        !shadow_commitments.contains(&shown),
        "every desk's round has its own commitment"
    );
    for desk in std::iter::once(REAL_DESK).chain(SHADOWS) {
        relay_seeds(gs, desk);
    }
    let real_game = deal(gs, REAL_DESK);
    let shadow_games: Vec<(i32, i64)> = SHADOWS.map(|desk| (desk, deal(gs, desk))).collect();
    let (shadow_desk, shadow_game) = shadow_games
        .iter()
        .copied()
        .min_by_key(|&(desk, game)| (strength(&hand_of_player_1(gs, game)), desk))
        .unwrap();
    for desk in std::iter::once(REAL_DESK).chain(SHADOWS) {
        gs.execute("SELECT * FROM fair_reveal($1)", &[&desk])
            .unwrap();
    }
    Dealt {
        shown,
        real_game,
        shadow_desk,
        shadow_game,
    }
}

#[test]
fn a_shadow_desks_relayed_deal_fails_the_players_check() {
    let db = "dealcards_fair_shadow_desks";
    let role = "dealcards_fair_shadow_desks_server";
    let mut admin = database_with_extension(db);
    create_game_server_role(&mut admin, role);
    let mut gs = server::connect_as(db, role);
    let dealt = deal_everywhere(&mut gs);

    let relayed = receipt(&mut gs, dealt.shadow_game);
    let shadow_pub = publication(&mut gs, dealt.shadow_desk);
    let real = receipt(&mut gs, dealt.real_game);
    let real_pub = publication(&mut gs, REAL_DESK);
    // The relayed receipt is the shadow desk's, with the players' very seeds.
    let relayed_json: Value = serde_json::from_str(&relayed).unwrap();
    assert_eq!(relayed_json["desk"], dealt.shadow_desk);
    assert_eq!(relayed_json["players"], serde_json::json!(PLAYERS));
    let own = shadow_pub["rounds"][0]["commitment"].as_str().unwrap();
    assert_ne!(own, dealt.shown);

    check_python(&dealt, &relayed, &shadow_pub, &real, &real_pub);
    check_sql(&dealt, &relayed, &shadow_pub, &real, &real_pub);
}

/// verify_deal.py: the relayed receipt fails on "shown commitment" (exit 1); the real one
/// verifies (exit 0); the relayed one checked with its own desk's commitment verifies too.
fn check_python(dealt: &Dealt, relayed: &str, shadow_pub: &Value, real: &str, real_pub: &Value) {
    let (status, out) = python_check("relayed", shadow_pub, relayed, &dealt.shown);
    assert_eq!(status, 1, "{out}");
    let line = format!(
        "game {} (round 1, nonce 0): failed: shown commitment: ",
        dealt.shadow_game
    );
    assert!(out.contains(&line), "{out}");
    assert!(!out.contains("): verified"), "{out}");

    let (status, out) = python_check("real", real_pub, real, &dealt.shown);
    assert_eq!(status, 0, "{out}");
    let line = format!("game {} (round 1, nonce 0): verified", dealt.real_game);
    assert!(out.contains(&line), "{out}");

    let own = shadow_pub["rounds"][0]["commitment"].as_str().unwrap();
    let (status, out) = python_check("relayed-own", shadow_pub, relayed, own);
    assert_eq!(status, 0, "{out}");
}

/// dealcards_verify_receipts: the same verdicts.
fn check_sql(dealt: &Dealt, relayed: &str, shadow_pub: &Value, real: &str, real_pub: &Value) {
    let name = "dealcards_fair_shadow_desks_sql";
    let mut verifier = verifier_database(name);
    let shown = [format!("1:{}", dealt.shown)];
    let own = [format!(
        "1:{}",
        shadow_pub["rounds"][0]["commitment"].as_str().unwrap()
    )];
    for (publication, receipt, shown, verdict, check) in [
        (
            shadow_pub,
            relayed,
            &shown,
            "failed",
            Some("shown commitment"),
        ),
        (real_pub, real, &shown, "verified", None),
        (shadow_pub, relayed, &own, "verified", None),
    ] {
        let rows = sql_check(&mut verifier, publication, receipt, PLAYERS[0], shown);
        let verdicts: Vec<(&str, &str)> =
            rows.iter().map(|r| (r.0.as_str(), r.1.as_str())).collect();
        assert_eq!(
            verdicts,
            [("receipt", verdict), ("check", verdict)],
            "{shown:?}: {rows:?}"
        );
        assert_eq!(rows[0].2.as_deref(), check, "{shown:?}: {rows:?}");
    }
    drop(verifier);
    server::connect()
        .batch_execute(&format!("DROP DATABASE {name} WITH (FORCE)"))
        .unwrap();
}
