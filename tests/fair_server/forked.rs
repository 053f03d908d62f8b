//! A forked server: a copy the server cannot tell from the original (a block-level snapshot of
//! its file system keeps the data directory's identity) goes on dealing under a round after the
//! original revealed it. Here the copy is a `CREATE DATABASE ... TEMPLATE` copy made while the
//! round was in force, whose round is then given the copy's own place (as a snapshot's would
//! have it: the server refuses a template copy otherwise, tests/fair_server/copies.rs). A player who read the revealed seed
//! chooses, offline, the seed that gives him both jokers in the copy's next deal. The other
//! player's receipts verify against the copy's publication, the round full to its bound; what
//! catches it is what the player kept of the round when the original revealed it:
//! tools/verify_deal.py --keep fails the copy's publication, and that receipt alone, as
//! "forked".

use postgres::Client;
use serde_json::Value;

use crate::desks::{database_with_extension, fair_deal, receipt};
use crate::early_end::{run_verify_deal, written};
use crate::grants::create_game_server_role;
use crate::server;

const DESK: i32 = 6;
const ORIGINAL: &str = "dealcards_fair_forked";
const COPY: &str = "dealcards_fair_forked_copy";
const ROLE: &str = "dealcards_fair_forked_server";

fn deal(gs: &mut Client) -> String {
    let game: i64 = gs
        .query_one("SELECT (deal_cards($1) ->> 'game')::bigint", &[&DESK])
        .unwrap()
        .get(0);
    receipt(gs, game)
}

fn publication(client: &mut Client) -> Value {
    serde_json::from_str(
        &client
            .query_one("SELECT fair_publication($1)::text", &[&DESK])
            .unwrap()
            .get::<_, String>(0),
    )
    .unwrap()
}

/// The original: players 61, 62, 63, round 1 bound to 3 deals, two of them dealt. Returns the
/// two receipts; every connection to it is closed, so that it can be copied.
fn original_with_two_deals() -> Vec<String> {
    let mut admin = database_with_extension(ORIGINAL);
    create_game_server_role(&mut admin, ROLE);
    let mut gs = server::connect_as(ORIGINAL, ROLE);
    for sql in [
        "INSERT INTO desk (desk_id) VALUES ($1)",
        "INSERT INTO desk_player VALUES ($1, 1, 61), ($1, 2, 62), ($1, 3, 63)",
        "SELECT fair_mode_on($1, max_deals => 3)",
        "SELECT set_client_seed($1, 1, 'mallory')",
        "SELECT set_client_seed($1, 2, 'bob')",
        "SELECT set_client_seed($1, 3, 'carol')",
    ] {
        gs.execute(sql, &[&DESK]).unwrap();
    }
    vec![deal(&mut gs), deal(&mut gs)]
}

/// In the copy, the player of seat 1, who read round 1's seed in the original's publication,
/// sits down again and picks a seed that gives him both jokers at nonce 2; the copy deals it
/// and reveals the round. The receipt of that deal.
fn deal_again_in_the_copy(seed: &[u8]) -> String {
    as_a_snapshot_would_be(&mut server::connect_as(COPY, &server::dsn_setting("user")));
    let mut gs = server::connect_as(COPY, ROLE);
    let chosen = (0..500)
        .map(|k| format!("mallory {k}"))
        .find(|s| {
            let cards = fair_deal(&mut gs, seed, &[s.clone(), "bob".into(), "carol".into()], 2);
            cards.0.contains(&53) && cards.0.contains(&54)
        })
        .expect("a seed that gives seat 1 both jokers");
    for sql in [
        "DELETE FROM desk_player WHERE desk_id = $1 AND player_no = 1",
        "INSERT INTO desk_player VALUES ($1, 1, 61)",
    ] {
        gs.execute(sql, &[&DESK]).unwrap();
    }
    gs.execute(
        "SELECT set_client_seed($1, 1, $2)",
        &[&DESK, &chosen.as_str()],
    )
    .unwrap();
    let third = deal(&mut gs);
    server::connect_as(COPY, &server::dsn_setting("user"))
        .execute("SELECT * FROM fair_reveal($1)", &[&DESK])
        .unwrap();
    third
}

/// Gives the copy's round in force the place a round committed in the copy records, so that
/// the copy deals under it as a copy the server cannot tell from the original would.
fn as_a_snapshot_would_be(owner: &mut Client) {
    owner
        .batch_execute(&format!(
            "INSERT INTO desk (desk_id) VALUES (99);
             SELECT fair_mode_on(99);
             UPDATE fair_seed SET place = (SELECT place FROM fair_seed WHERE desk_id = 99)
              WHERE desk_id = {DESK} AND revealed_at IS NULL;
             SELECT fair_mode_off(99);"
        ))
        .unwrap();
}

#[test]
fn a_copy_that_deals_under_a_round_revealed_is_caught_by_what_the_player_kept() {
    let mut receipts = original_with_two_deals();
    let mut admin = server::connect();
    for sql in [
        format!("DROP DATABASE IF EXISTS {COPY} WITH (FORCE)"),
        format!("CREATE DATABASE {COPY} TEMPLATE {ORIGINAL}"),
    ] {
        admin.batch_execute(&sql).unwrap();
    }
    let mut original = server::connect_as(ORIGINAL, &server::dsn_setting("user"));
    original
        .execute("SELECT * FROM fair_reveal($1)", &[&DESK])
        .unwrap();
    let seen = publication(&mut original);
    let commitment = seen["rounds"][0]["commitment"]
        .as_str()
        .unwrap()
        .to_string();
    let seed = hex(seen["rounds"][0]["server_seed"].as_str().unwrap());

    // Player 62 checks the original's publication and keeps what it shows of round 1: two
    // games (the round ended before its bound, which the tool reports).
    let dir = "fair_forked";
    let keep = written(dir, "kept.json", "");
    std::fs::remove_file(&keep).unwrap();
    let args = |publication: &Value, name: &str, receipts: &[String]| -> Vec<String> {
        vec![
            "--publication".into(),
            written(
                dir,
                &format!("{name}.publication.json"),
                &publication.to_string(),
            ),
            written(dir, &format!("{name}.receipts.jsonl"), &receipts.join("\n")),
            "--player=62".into(),
            format!("--commitment=1:{commitment}"),
        ]
    };
    let with_keep = |mut a: Vec<String>| {
        a.push(format!("--keep={keep}"));
        a
    };
    let (status, out) = run_verify_deal(&with_keep(args(&seen, "original", &receipts)));
    assert_eq!(status, 5, "{out}");
    let kept: Value = serde_json::from_str(&std::fs::read_to_string(&keep).unwrap()).unwrap();
    assert_eq!(kept["rounds"][0]["games"], 2, "{kept}");

    receipts.push(deal_again_in_the_copy(&seed));
    let fork = publication(&mut server::connect_as(COPY, ROLE));
    assert_eq!(
        fork["rounds"][0]["commitment"],
        seen["rounds"][0]["commitment"]
    );

    // Without what was kept, the copy's publication and every receipt verify.
    let (status, out) = run_verify_deal(&args(&fork, "copy", &receipts));
    assert_eq!(status, 0, "{out}");
    // With it, the publication and the copy's receipt alone fail as forked.
    for (name, given) in [("copy", &receipts[..]), ("copy-receipt", &receipts[2..])] {
        let (status, out) = run_verify_deal(&with_keep(args(&fork, name, given)));
        assert_eq!(status, 1, "{name}: {out}");
        assert!(out.contains("forked: round 1"), "{name}: {out}");
    }
    let receipt_only = run_verify_deal(&with_keep(args(&seen, "receipt-only", &receipts[2..])));
    assert_eq!(receipt_only.0, 1, "{}", receipt_only.1);
    assert!(
        receipt_only.1.contains("is not among the 2 games you kept"),
        "{}",
        receipt_only.1
    );
    // The kept file is left as it was by a check that found a fork.
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&keep).unwrap()).unwrap();
    assert_eq!(after, kept);
    drop(original);
    admin
        .batch_execute(&format!("DROP DATABASE {COPY} WITH (FORCE)"))
        .unwrap();
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}
