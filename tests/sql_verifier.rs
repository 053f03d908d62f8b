#![cfg(feature = "server_tests")]
//! verifier/dealcards_verify.sql, the verifier for any PostgreSQL (pgcrypto and PL/pgSQL, no
//! dealcards library), gives byte for byte what the extension gives: the golden deals and chain
//! hashes of tests/reference/fair_golden.json (from the independent Python verifier), 1,000
//! random deals against fair_deal, and a real desk's publication against fair_verify_desk,
//! tampered copies of it, and malformed input (22023). Runs on every major: the file is plain
//! SQL whose every operator and function must exist on each of them.

mod server;

use postgres::Client;
use serde_json::{json, Value};

/// A database without dealcards, with pgcrypto and the verifier file loaded by psql (one per
/// test: the tests run at once).
fn verifier_database(name: &str) -> Client {
    let mut client = server::fresh_database(name);
    client.batch_execute("CREATE EXTENSION pgcrypto").unwrap();
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/verifier/dealcards_verify.sql");
    let mut args = server::program_args(name);
    args.extend([
        "-X".into(),
        "-q".into(),
        "-v".into(),
        "ON_ERROR_STOP=1".into(),
        "-f".into(),
        file.into(),
    ]);
    server::run_program("psql", &args);
    // Nothing of dealcards' library: no extension, no function in C but pgcrypto's.
    let (extension, c_functions): (i64, i64) = {
        let row = client
            .query_one(
                "SELECT (SELECT count(*) FROM pg_extension WHERE extname = 'dealcards'),
                        (SELECT count(*) FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
                          WHERE p.proname LIKE 'dealcards%' AND l.lanname <> 'plpgsql')",
                &[],
            )
            .unwrap();
        (row.get(0), row.get(1))
    };
    assert_eq!((extension, c_functions), (0, 0));
    client
}

fn golden() -> Value {
    serde_json::from_str(include_str!("reference/fair_golden.json")).unwrap()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// (p1, p2, p3, extra, leader) of dealcards_verify_deal.
type Deal = (Vec<i32>, Vec<i32>, Vec<i32>, Vec<i32>, i16);

fn sql_deal(client: &mut Client, seed: &[u8], seeds: &[String], nonce: i64) -> Deal {
    let row = client
        .query_one(
            "SELECT p1_cards, p2_cards, p3_cards, extra_cards, leader
               FROM dealcards_verify_deal($1, $2, $3)",
            &[&seed, &seeds, &nonce],
        )
        .unwrap();
    (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4))
}

fn ints(v: &Value) -> Vec<i32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_i64().unwrap() as i32)
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn the_golden_deals_and_chain_hashes() {
    let mut client = verifier_database("dealcards_sql_verifier_golden");
    let golden = golden();
    let deals = golden["deals"].as_array().unwrap();
    assert!(deals.len() >= 5);
    for deal in deals {
        let got = sql_deal(
            &mut client,
            &unhex(deal["server_seed"].as_str().unwrap()),
            &strings(&deal["client_seeds"]),
            deal["nonce"].as_i64().unwrap(),
        );
        let expected = (
            ints(&deal["p1_cards"]),
            ints(&deal["p2_cards"]),
            ints(&deal["p3_cards"]),
            ints(&deal["extra_cards"]),
            deal["leader"].as_i64().unwrap() as i16,
        );
        assert_eq!(got, expected, "{}", deal["name"]);
        let key: Vec<u8> = client
            .query_one(
                "SELECT dealcards_verify_key($1, $2, $3)",
                &[
                    &unhex(deal["server_seed"].as_str().unwrap()),
                    &strings(&deal["client_seeds"]),
                    &deal["nonce"].as_i64().unwrap(),
                ],
            )
            .unwrap()
            .get(0);
        assert_eq!(hex(&key), deal["key"].as_str().unwrap(), "{}", deal["name"]);
    }

    // The chain entries, as publications: one per run of entries that follow each other from
    // the zero hash; rounds by commitment, the protocol by whether players are in the chain.
    let mut publications: Vec<(Value, Vec<String>)> = Vec::new();
    for entry in golden["chain"].as_array().unwrap() {
        let prev = entry["prev_hash"].as_str().unwrap();
        let continues = publications.last().is_some_and(|(p, _)| {
            p["chain_head"].as_str() == Some(prev) && p["desk"] == entry["desk"]
        });
        if !continues {
            if prev != "0".repeat(64) {
                continue;
            }
            publications.push((
                json!({"desk": entry["desk"], "rounds": [], "games": [], "chain_head": null}),
                Vec::new(),
            ));
        }
        let (publication, names) = publications.last_mut().unwrap();
        let protocol = if entry.get("players").is_some() { 2 } else { 1 };
        let rounds = publication["rounds"].as_array_mut().unwrap();
        let round = match rounds
            .iter()
            .find(|r| r["commitment"] == entry["commitment"])
        {
            Some(r) => r["round"].as_i64().unwrap(),
            None => {
                let round = rounds.len() as i64 + 1;
                rounds.push(json!({"round": round, "protocol": protocol,
                                   "commitment": entry["commitment"], "server_seed": null}));
                round
            }
        };
        let games = publication["games"].as_array_mut().unwrap();
        games.push(json!({
            "game": games.len() + 1,
            "round": round,
            "nonce": entry["nonce"],
            "commitment": entry["commitment"],
            "players": entry.get("players").cloned().unwrap_or(json!([0, 0, 0])),
            "client_seeds": strings(&entry["client_seeds"]).iter().map(|s| hex(s.as_bytes())).collect::<Vec<_>>(),
            "cards": [entry["p1_cards"], entry["p2_cards"], entry["p3_cards"], entry["extra_cards"]],
            "leader": entry["leader"],
            "chain_hash": entry["chain_hash"],
        }));
        publication["chain_head"] = entry["chain_hash"].clone();
        names.push(entry["name"].as_str().unwrap().to_string());
    }
    let covered: usize = publications.iter().map(|(_, n)| n.len()).sum();
    assert!(
        covered >= 6,
        "only {covered} golden chain entries form publications"
    );
    for (publication, names) in &publications {
        let rows = client
            .query(
                "SELECT verified, problem FROM dealcards_verify_publication($1::text::jsonb)",
                &[&publication.to_string()],
            )
            .unwrap();
        // One row per game, linked, not revealed; and a row per earlier round left unrevealed.
        let rounds = publication["rounds"].as_array().unwrap().len();
        assert_eq!(rows.len(), names.len() + rounds - 1, "{names:?}");
        for (row, name) in rows.iter().zip(names) {
            let (verified, problem): (Option<bool>, Option<String>) = (row.get(0), row.get(1));
            assert_eq!(
                (verified, problem.as_deref()),
                (
                    None,
                    Some("the server seed of its commitment is not revealed yet")
                ),
                "{name}"
            );
        }
    }
}

#[test]
fn a_thousand_random_deals_as_fair_deal_gives_them() {
    let mut verifier = verifier_database("dealcards_sql_verifier_random");
    let mut extension = server::connect();
    // Random server seeds, client seeds (empty, ASCII, non-ASCII, up to 256 bytes) and nonces,
    // from the extension's server, with fair_deal's answer.
    let cases = extension
        .query(
            "WITH c AS (
                SELECT sha256(uuid_send(gen_random_uuid())) AS seed,
                       ARRAY[left(repeat(md5(random()::text), 9), (random() * 256)::int),
                             CASE WHEN random() < 0.3 THEN '' ELSE 'Zoë ' || i END,
                             left(repeat('ü', 200), (random() * 128)::int)] AS seeds,
                       CASE WHEN random() < 0.1 THEN 9223372036854775807
                            ELSE (random() * 1e6)::bigint END AS nonce
                  FROM generate_series(1, 1000) i)
             SELECT c.seed, c.seeds, c.nonce, d.p1_cards, d.p2_cards, d.p3_cards, d.extra_cards, d.leader
               FROM c, fair_deal(c.seed, c.seeds, c.nonce) d",
            &[],
        )
        .unwrap();
    assert_eq!(cases.len(), 1000);
    for row in &cases {
        let seed: Vec<u8> = row.get(0);
        let seeds: Vec<String> = row.get(1);
        let nonce: i64 = row.get(2);
        let expected: Deal = (row.get(3), row.get(4), row.get(5), row.get(6), row.get(7));
        assert_eq!(
            sql_deal(&mut verifier, &seed, &seeds, nonce),
            expected,
            "{} {seeds:?} {nonce}",
            hex(&seed)
        );
    }
}

#[test]
fn a_real_desks_publication_as_fair_verify_desk_sees_it() {
    let mut verifier = verifier_database("dealcards_sql_verifier_publication");
    let mut house = server::fresh_database("dealcards_sql_verifier_desk");
    house
        .batch_execute(
            "CREATE EXTENSION dealcards;
             INSERT INTO desk (desk_id) VALUES (-5);
             INSERT INTO desk_player VALUES (-5, 1, 101), (-5, 2, -102), (-5, 3, 103);
             SELECT deal_cards(-5);",
        )
        .unwrap();
    // Three rounds: two revealed, the last in force; seeds set per round.
    for round in 0..3 {
        for sql in [
            if round == 0 {
                "SELECT fair_mode_on(-5, house_seats => '{3}')"
            } else {
                "SELECT 1"
            },
            "SELECT set_client_seed(-5, 1, 'alice ' || (SELECT max(round) FROM fair_commitment))",
            "SELECT set_client_seed(-5, 2, 'Zoë')",
            "SELECT deal_cards(-5)",
            "SELECT deal_cards(-5)",
            if round < 2 {
                "SELECT fair_reveal(-5)"
            } else {
                "SELECT 1"
            },
        ] {
            house.batch_execute(sql).unwrap();
        }
    }
    let publication: Value = serde_json::from_str(
        &house
            .query_one("SELECT fair_publication(-5)::text", &[])
            .unwrap()
            .get::<_, String>(0),
    )
    .unwrap();
    type Row = (
        Option<i64>,
        Option<i32>,
        Option<i64>,
        Option<bool>,
        Option<String>,
    );
    let rows_of =
        |client: &mut Client, sql: &str, arg: &(dyn postgres::types::ToSql + Sync)| -> Vec<Row> {
            client
                .query(sql, &[arg])
                .unwrap()
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
                .collect()
        };
    let expected = rows_of(
        &mut house,
        "SELECT game_id, round, nonce, verified, problem FROM fair_verify_desk($1)",
        &-5i32,
    );
    let got = rows_of(
        &mut verifier,
        "SELECT game_id, round, nonce, verified, problem FROM dealcards_verify_publication($1::text::jsonb)",
        &publication.to_string(),
    );
    assert_eq!(got, expected);
    assert_eq!(got.len(), 6);
    assert_eq!(got.iter().filter(|r| r.3 == Some(true)).count(), 4);
    assert_eq!(got.iter().filter(|r| r.3.is_none()).count(), 2);

    // Tampered copies fail, saying why.
    let verdicts = |client: &mut Client, p: &Value| -> Vec<(Option<bool>, Option<String>)> {
        client
            .query(
                "SELECT verified, problem FROM dealcards_verify_publication($1::text::jsonb)",
                &[&p.to_string()],
            )
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect()
    };
    let mut swapped = publication.clone();
    let cards = &mut swapped["games"][0]["cards"];
    let (a, b) = (cards[0][0].clone(), cards[1][0].clone());
    cards[0][0] = b;
    cards[1][0] = a;
    let v = verdicts(&mut verifier, &swapped);
    assert_eq!(v[0].0, Some(false));
    assert!(
        v[0].1
            .as_deref()
            .unwrap()
            .contains("the chain is broken here"),
        "{v:?}"
    );
    let mut wrong_seed = publication.clone();
    wrong_seed["rounds"][0]["server_seed"] = json!("00".repeat(32));
    let v = verdicts(&mut verifier, &wrong_seed);
    assert_eq!(v[0].0, Some(false));
    assert!(
        v[0].1
            .as_deref()
            .unwrap()
            .contains("does not match the recorded commitment"),
        "{v:?}"
    );
    let mut head = publication.clone();
    head["chain_head"] = json!("11".repeat(32));
    let v = verdicts(&mut verifier, &head);
    assert_eq!(v.len(), 7);
    assert_eq!(v[6].0, Some(false));

    // Malformed input: 22023, naming what is wrong.
    for (sql, arg, says) in [
        (
            "SELECT * FROM dealcards_verify_publication($1::text::jsonb)",
            json!({"desk": 1}),
            "not a publication",
        ),
        (
            "SELECT * FROM dealcards_verify_publication($1::text::jsonb)",
            {
                let mut p = publication.clone();
                p["games"][1]["chain_hash"] = json!("abc");
                p
            },
            "chain_hash",
        ),
        (
            "SELECT * FROM dealcards_verify_publication($1::text::jsonb)",
            {
                let mut p = publication.clone();
                p["rounds"][0]["server_seed"] = json!("00");
                p
            },
            "32 bytes",
        ),
        (
            "SELECT * FROM dealcards_verify_publication($1::text::jsonb)",
            {
                let mut p = publication.clone();
                p["games"][0]["cards"][3] = json!([1, 2]);
                p
            },
            "54 cards",
        ),
    ] {
        let error = verifier.query(sql, &[&arg.to_string()]).expect_err(says);
        let db = error.as_db_error().unwrap();
        assert_eq!(db.code().code(), "22023", "{says}: {db:?}");
        assert!(db.message().contains(says), "{says}: {}", db.message());
    }
    for (seed, seeds, nonce, says) in [
        (
            vec![0u8; 31],
            vec!["a".to_string(), String::new(), String::new()],
            0i64,
            "32 bytes",
        ),
        (
            vec![0u8; 32],
            vec!["a".to_string(), String::new()],
            0,
            "3 seeds",
        ),
        (
            vec![0u8; 32],
            vec!["a".to_string(), String::new(), "x".repeat(257)],
            0,
            "over 256",
        ),
        (
            vec![0u8; 32],
            vec!["a".to_string(), String::new(), String::new()],
            -1,
            "nonce",
        ),
    ] {
        let error = verifier
            .query(
                "SELECT * FROM dealcards_verify_deal($1, $2, $3)",
                &[&seed, &seeds, &nonce],
            )
            .expect_err(says);
        let db = error.as_db_error().unwrap();
        assert_eq!(db.code().code(), "22023", "{says}: {db:?}");
        assert!(db.message().contains(says), "{says}: {}", db.message());
    }
}
