//! The owner cannot pick deals by ending rounds unseen. As the owner (who can read a round's
//! seed before its reveal), compute the next deal from the players' seeds and reveal the round
//! instead of dealing it while the declared house seat would not get both jokers; the players
//! give fresh seeds under each new round, as the protocol asks; until the house seat gets them.
//! Every receipt verifies, and no game is withheld: what shows the lever is that the rounds the
//! players seeded ended before their bound. Each player's tools/verify_deal.py (exit status 5)
//! and the SQL verifier (verifier/dealcards_verify.sql) say "ended early", naming the first
//! burned round first, with the deal it avoided.

use std::path::PathBuf;
use std::process::Command;

use postgres::Client;
use serde_json::Value;

use crate::desks::{database_with_extension, fair_deal, receipt, seat, Cards};
use crate::grants::create_game_server_role;
use crate::server;

const DESK: i32 = 4;
/// Rounds the owner may burn before the house seat gets both jokers: a fresh round gives them
/// with a probability of about 1 in 10.5 (17/54 * 16/53), so 400 rounds all miss with a
/// probability below 10^-17.
const MAX_ROUNDS: i32 = 400;

/// The round in force's unrevealed seed, as the owner reads it.
fn unrevealed_seed(owner: &mut Client, desk: i32) -> (i32, Vec<u8>) {
    let row = owner
        .query_one(
            "SELECT round, server_seed FROM fair_seed
              WHERE desk_id = $1 AND unrevealed_round IS NOT NULL",
            &[&desk],
        )
        .unwrap();
    (row.get(0), row.get(1))
}

/// What the owner wants: both jokers in the house seat (seat 3).
fn house_gets_both_jokers(cards: &Cards) -> bool {
    cards.2.contains(&53) && cards.2.contains(&54)
}

/// The players' seeds of a round, each set through the game server in its own transaction.
fn set_round_seeds(gs: &mut Client, seeds: &[String; 2]) {
    for (seat, seed) in [(1, &seeds[0]), (2, &seeds[1])] {
        gs.execute(
            "SELECT set_client_seed($1, $2, $3)",
            &[&DESK, &seat, &seed.as_str()],
        )
        .unwrap();
    }
}

fn seeds_of(round: i32, k: usize) -> [String; 2] {
    [format!("ann {round}.{k}"), format!("bo {round}.{k}")]
}

/// The players' first round: a game dealt under it, then seeds whose next deal (nonce 1) would
/// not give the house both jokers. Any text is a player's seed: the first that misses is taken
/// (the harness, which reads the seed, makes sure the owner has something to burn). Returns the
/// receipt of its game and the deal it will avoid.
fn first_round(gs: &mut Client, owner: &mut Client) -> (String, [String; 2]) {
    let (round, seed) = unrevealed_seed(owner, DESK);
    let seeds = (0..200)
        .map(|k| seeds_of(round, k))
        .find(|s| {
            let all = [s[0].clone(), s[1].clone(), String::new()];
            !house_gets_both_jokers(&fair_deal(owner, &seed, &all, 1))
        })
        .expect("a pair of seeds whose second deal misses the jokers");
    set_round_seeds(gs, &seeds);
    let game: i64 = gs
        .query_one("SELECT (deal_cards($1) ->> 'game')::bigint", &[&DESK])
        .unwrap()
        .get(0);
    (receipt(gs, game), seeds)
}

/// The owner's loop: from the first round on, compute the next deal; reveal the round instead
/// of dealing it while the house seat would not get both jokers (the players give fresh seeds
/// under the next), deal it once it would. The burned rounds and the receipts of every game.
fn burn_until_the_jokers(gs: &mut Client, owner: &mut Client) -> (Vec<i32>, Vec<String>) {
    let (first_receipt, mut seeds) = first_round(gs, owner);
    let mut receipts = vec![first_receipt];
    let mut burned = Vec::new();
    let mut nonce = 1;
    for _ in 0..MAX_ROUNDS {
        let (round, seed) = unrevealed_seed(owner, DESK);
        let all = [seeds[0].clone(), seeds[1].clone(), String::new()];
        if house_gets_both_jokers(&fair_deal(owner, &seed, &all, nonce)) {
            let game: i64 = gs
                .query_one("SELECT (deal_cards($1) ->> 'game')::bigint", &[&DESK])
                .unwrap()
                .get(0);
            receipts.push(receipt(gs, game));
            return (burned, receipts);
        }
        owner
            .execute("SELECT * FROM fair_reveal($1)", &[&DESK])
            .unwrap();
        burned.push(round);
        if burned.len() == 1 {
            reported_at_once(gs, &receipts[0]);
        }
        seeds = seeds_of(round + 1, 0);
        set_round_seeds(gs, &seeds);
        nonce = 0;
    }
    panic!("the house seat got no pair of jokers in {MAX_ROUNDS} rounds");
}

/// Right after the first burn, player 1's check of the publication then (their receipt of
/// round 1 and its commitment) says the round ended early: exit status 5, naming round 1.
fn reported_at_once(gs: &mut Client, first_receipt: &str) {
    let publication: Value = serde_json::from_str(
        &gs.query_one("SELECT fair_publication($1)::text", &[&DESK])
            .unwrap()
            .get::<_, String>(0),
    )
    .unwrap();
    let commitment = publication["rounds"][0]["commitment"].as_str().unwrap();
    let (status, out) = run_verify_deal(&[
        "--publication".into(),
        written(
            "fair_early_end",
            "first-burn.json",
            &publication.to_string(),
        ),
        written("fair_early_end", "first-burn.jsonl", first_receipt),
        format!("--player={}", DESK * 10 + 1),
        format!("--commitment=1:{commitment}"),
    ]);
    assert_eq!(status, 5, "{out}");
    assert!(out.contains("\nended early: round 1 "), "{out}");
}

/// Runs tools/verify_deal.py receipts with these arguments after the subcommand: its exit
/// status and what it printed.
pub fn run_verify_deal(args: &[String]) -> (i32, String) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("tools/verify_deal.py"))
        .arg("receipts")
        .args(args)
        .output()
        .expect("python3 runs tools/verify_deal.py");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// A file under target/fair_early_end with this text; its path.
pub fn written(dir: &str, name: &str, text: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// The rounds' commitments as a player shown each of them types them: ROUND:HEX.
fn shown_commitments(publication: &Value) -> Vec<String> {
    publication["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{}:{}", r["round"], r["commitment"].as_str().unwrap()))
        .collect()
}

/// The receipts of a player's games, by the player's seat.
fn receipts_of(receipts: &[String], seat: usize) -> (i64, Vec<String>) {
    let player = DESK as i64 * 10 + seat as i64;
    let mine = receipts
        .iter()
        .filter(|r| serde_json::from_str::<Value>(r).unwrap()["players"][seat - 1] == player)
        .cloned()
        .collect();
    (player, mine)
}

#[test]
fn rounds_ended_to_pick_a_deal_are_reported_ended_early() {
    let db = "dealcards_fair_early_end";
    let role = "dealcards_fair_early_end_server";
    let mut owner = database_with_extension(db);
    create_game_server_role(&mut owner, role);
    let mut gs = server::connect_as(db, role);
    seat(&mut gs, DESK, &[1, 2, 3]);
    gs.batch_execute(&format!(
        "SELECT fair_mode_on({DESK}, house_seats => '{{3}}')"
    ))
    .unwrap();
    let (burned, receipts) = burn_until_the_jokers(&mut gs, &mut owner);
    assert_eq!(burned[0], 1, "the first round is burned");
    let publication: Value = serde_json::from_str(
        &gs.query_one("SELECT fair_publication($1)::text", &[&DESK])
            .unwrap()
            .get::<_, String>(0),
    )
    .unwrap();
    let avoided = the_deal_round_1_avoided(&mut owner, &publication);
    let shown = shown_commitments(&publication);
    let pub_path = written(
        "fair_early_end",
        "publication.json",
        &publication.to_string(),
    );
    for seat in [1, 2] {
        let (player, mine) = receipts_of(&receipts, seat);
        assert_eq!(
            mine.len(),
            2,
            "player {player}: a game in round 1 and the last"
        );
        let path = written(
            "fair_early_end",
            &format!("receipts-{seat}.jsonl"),
            &mine.join("\n"),
        );
        let mut args = vec!["--publication".to_string(), pub_path.clone(), path];
        args.push(format!("--player={player}"));
        args.extend(shown.iter().map(|c| format!("--commitment={c}")));
        check_python_report(&args, &burned, &avoided);
        check_sql_report(&publication, &mine, player, &shown, &burned);
    }
    // Without the burned rounds' commitments and receipts, the tool has nothing the player
    // seeded there to report: the last game's receipt alone verifies.
    let (player, mine) = receipts_of(&receipts, 1);
    let last = written("fair_early_end", "last.jsonl", &mine[1]);
    let last_round = serde_json::from_str::<Value>(&mine[1]).unwrap()["round"].clone();
    let commitment = publication["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["round"] == last_round)
        .unwrap()["commitment"]
        .clone();
    let (status, out) = run_verify_deal(&[
        "--publication".into(),
        pub_path,
        last,
        format!("--commitment={last_round}:{}", commitment.as_str().unwrap()),
        "--json".into(),
    ]);
    let out: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(out["ended_early"], serde_json::json!([]), "player {player}");
    assert_eq!(status, 4, "no player id: incomplete, nothing ended early");
}

/// The deal round 1 did not make (nonce 1, with its one game's seeds), computed by the
/// extension's fair_deal from the round's revealed seed.
fn the_deal_round_1_avoided(owner: &mut Client, publication: &Value) -> Cards {
    let seed: Vec<u8> = owner
        .query_one(
            "SELECT server_seed FROM fair_commitment WHERE desk_id = $1 AND round = 1",
            &[&DESK],
        )
        .unwrap()
        .get(0);
    let game = &publication["games"][0];
    assert_eq!(game["round"], 1);
    let seeds: Vec<String> = game["client_seeds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| String::from_utf8(hex(s.as_str().unwrap())).unwrap())
        .collect();
    fair_deal(owner, &seed, &seeds, 1)
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// verify_deal.py: exit status 5, an "ended early" line for every burned round and none other,
/// the first burned round's first; in --json, the deal it avoided is the one fair_deal gives.
fn check_python_report(args: &[String], burned: &[i32], avoided: &Cards) {
    let (status, out) = run_verify_deal(args);
    assert_eq!(status, 5, "{out}");
    let early: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("ended early: "))
        .collect();
    let named: Vec<i32> = early
        .iter()
        .map(|l| {
            l["ended early: round ".len()..]
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(named, burned, "{out}");
    assert!(
        early[0].contains("after 1 of its 1000 deals")
            && early[0].contains("before its reveal_by")
            && early[0].contains("the deal it avoided (nonce 1"),
        "{}",
        early[0]
    );
    assert!(
        early[1..]
            .iter()
            .all(|l| l.contains("after 0 of its 1000 deals")
                && l.contains("the deal it avoided cannot be shown")),
        "{out}"
    );
    let mut json_args = args.to_vec();
    json_args.push("--json".into());
    let (status, out) = run_verify_deal(&json_args);
    assert_eq!(status, 5, "{out}");
    let out: Value = serde_json::from_str(&out).unwrap();
    let results: Vec<&str> = out["receipts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["result"].as_str().unwrap())
        .collect();
    // Every receipt passes its checks: the lever shows only in the rounds that ended early.
    assert_eq!(results, ["verified", "not revealed yet"], "{out}");
    let first = &out["ended_early"][0]["avoided"];
    let cards: Vec<Vec<i32>> = serde_json::from_value(first["cards"].clone()).unwrap();
    assert_eq!(
        (cards, first["leader"].as_i64().unwrap() as i16),
        (
            vec![
                avoided.0.clone(),
                avoided.1.clone(),
                avoided.2.clone(),
                avoided.3.clone()
            ],
            avoided.4
        ),
        "the deal round 1 avoided"
    );
}

/// The SQL verifier, in a database without dealcards: a row "ended early" per burned round, in
/// order, and the whole check's verdict "ended early".
fn check_sql_report(
    publication: &Value,
    mine: &[String],
    player: i64,
    shown: &[String],
    burned: &[i32],
) {
    let name = format!("dealcards_fair_early_end_sql_{player}");
    let mut verifier = server::fresh_database(&name);
    verifier.batch_execute("CREATE EXTENSION pgcrypto").unwrap();
    let mut args = server::program_args(&name);
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/verifier/dealcards_verify.sql");
    args.extend(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", file].map(String::from));
    server::run_program("psql", &args);
    let receipts = format!("[{}]", mine.join(","));
    let rows = verifier
        .query(
            "SELECT kind, round, nonce, result, why
               FROM dealcards_verify_receipts($1::text::jsonb, $2::text::jsonb, $3, $4)",
            &[&publication.to_string(), &receipts, &player, &shown],
        )
        .unwrap();
    let early: Vec<(i32, i64, String)> = rows
        .iter()
        .filter(|r| r.get::<_, String>(0) == "ended early")
        .map(|r| (r.get(1), r.get(2), r.get(4)))
        .collect();
    let rounds: Vec<i32> = early.iter().map(|e| e.0).collect();
    assert_eq!(rounds, burned);
    assert_eq!(early[0].1, 1, "round 1 avoided its nonce 1");
    assert!(
        early[0].2.contains("the deal it avoided (nonce 1"),
        "{}",
        early[0].2
    );
    let check = rows.last().unwrap();
    assert_eq!(check.get::<_, String>(0), "check");
    assert_eq!(check.get::<_, String>(3), "ended early");
    drop(verifier);
    server::connect()
        .batch_execute(&format!("DROP DATABASE {name} WITH (FORCE)"))
        .unwrap();
}
