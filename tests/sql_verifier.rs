#![cfg(feature = "server_tests")]
//! verifier/dealcards_verify.sql, the verifier for any PostgreSQL (pgcrypto and PL/pgSQL, no
//! dealcards library), gives byte for byte what the extension gives: the golden deals and chain
//! hashes of tests/reference/fair_golden.json (from the independent Python verifier; under
//! protocol 3 with each round's rules, any one of them changed breaking the chain), 1,000
//! random deals against fair_deal, and a real desk's publication against fair_verify_desk,
//! with a revealed round's rules rewritten in its tables, tampered copies of it, and malformed
//! input (22023); and players' receipts as tools/verify_deal.py receipts checks them, on the
//! golden cases of tests/browser/receipt_cases.py (a shadow desk's relayed deal, a commitment
//! other than the one shown, incomplete checks, rounds ended early, times written with Z), and
//! the rounds a player keeps against a fork as verify_deal.py --keep keeps them. Runs on every major: the file is plain SQL
//! whose every operator and function must exist on each of them.

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

/// What the verifier says of a game whose chain does not hold.
const BROKEN: &str = "the chain is broken here: the game's hash is not SHA-256 over the previous game's hash and this record (the record or its round's rules were changed, or a game before it is missing)";

/// What the verifier says of a game that links, its seed not revealed yet.
fn unrevealed() -> (Option<bool>, Option<String>) {
    (
        None,
        Some("the server seed of its commitment is not revealed yet".to_string()),
    )
}

/// (verified, problem) of each row dealcards_verify_publication gives.
fn verdicts(client: &mut Client, publication: &Value) -> Vec<(Option<bool>, Option<String>)> {
    client
        .query(
            "SELECT verified, problem FROM dealcards_verify_publication($1::text::jsonb)",
            &[&publication.to_string()],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
}

/// What the verifier says of each game of a golden publication (no round revealed): the rule
/// problems given, then each house seat of its round (protocols 2 and 3) whose client seed is
/// not empty (a chain vector need not be a game the house could deal), then the broken chain
/// if `broken`.
fn golden_verdicts(
    publication: &Value,
    rule_problems: &[&str],
    broken: bool,
) -> Vec<(Option<bool>, Option<String>)> {
    let rounds = publication["rounds"].as_array().unwrap();
    publication["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|game| {
            let round = rounds
                .iter()
                .find(|r| r["commitment"] == game["commitment"])
                .unwrap();
            let mut problems: Vec<String> = rule_problems.iter().map(|p| p.to_string()).collect();
            if round["protocol"].as_i64().unwrap() >= 2 {
                let seats = round["house_seats"].as_array().into_iter().flatten();
                for seat in seats.filter_map(Value::as_i64) {
                    if (1..=3).contains(&seat) && game["client_seeds"][(seat - 1) as usize] != "" {
                        problems.push(format!(
                            "seat {seat} is a house seat of its round, yet its client seed is not empty"
                        ));
                    }
                }
            }
            if broken {
                problems.push(BROKEN.to_string());
            }
            if problems.is_empty() {
                unrevealed()
            } else {
                (Some(false), Some(problems.join("; ")))
            }
        })
        .collect()
}

/// The round of a golden chain entry as published: of protocol 3 with the entry's rules
/// (reveal_by as published), 2 with its players, else 1.
fn golden_round(round: i64, entry: &Value) -> Value {
    let protocol = match (entry.get("rules"), entry.get("players")) {
        (Some(_), _) => 3,
        (None, Some(_)) => 2,
        (None, None) => 1,
    };
    let mut published = json!({"round": round, "protocol": protocol,
                               "commitment": entry["commitment"], "server_seed": null});
    if let Some(rules) = entry.get("rules") {
        for key in ["house_seats", "seeds_required", "max_deals", "reveal_by"] {
            published[key] = rules[key].clone();
        }
    }
    published
}

/// A publication whose first round has these keys changed.
fn with_round(publication: &Value, change: &Value) -> Value {
    let mut changed = publication.clone();
    for (key, value) in change.as_object().unwrap() {
        changed["rounds"][0][key] = value.clone();
    }
    changed
}

#[test]
fn the_golden_deals_and_chain_hashes() {
    let mut client = verifier_database("dealcards_sql_verifier_golden");
    let golden = golden();
    check_golden_deals(&mut client, &golden);

    // The chain entries, as publications: one per run of entries that follow each other from
    // the zero hash; rounds by commitment, of the entry's protocol (3 with rules, 2 with
    // players, else 1) and under protocol 3 with its rules as published.
    let chain = golden["chain"].as_array().unwrap();
    let publications = golden_publications(chain);
    let covered: usize = publications.iter().map(|(_, n)| n.len()).sum();
    assert_eq!(
        covered,
        chain.len(),
        "every golden chain entry is in a publication"
    );
    let with_rules: Vec<&Value> = chain.iter().filter(|e| e.get("rules").is_some()).collect();
    assert!(
        with_rules.len() >= 9,
        "{} protocol 3 entries",
        with_rules.len()
    );
    assert!(with_rules
        .iter()
        .all(|e| e["name"].as_str().unwrap().starts_with("protocol 3:")));

    check_links_in_every_time_zone(&mut client, &publications, &with_rules);
    client
        .batch_execute("SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'")
        .unwrap();

    // Under protocol 3, any rule changed breaks the chain of every game of its round; the same
    // reveal_by written in another offset does not.
    let mut protocol_3 = 0;
    for (publication, names) in &publications {
        if publication["rounds"][0]["protocol"] != 3 {
            continue;
        }
        assert_eq!(publication["rounds"].as_array().unwrap().len(), 1);
        protocol_3 += names.len();
        check_changed_rules_break_the_chain(&mut client, publication, names);
        check_rules_no_round_can_have(&mut client, publication, names);
    }
    assert_eq!(protocol_3, with_rules.len());
}

/// The golden deals and their keys, as the verifier gives them.
fn check_golden_deals(client: &mut Client, golden: &Value) {
    let deals = golden["deals"].as_array().unwrap();
    assert!(deals.len() >= 5);
    for deal in deals {
        let got = sql_deal(
            client,
            &hex::decode(deal["server_seed"].as_str().unwrap()).unwrap(),
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
                    &hex::decode(deal["server_seed"].as_str().unwrap()).unwrap(),
                    &strings(&deal["client_seeds"]),
                    &deal["nonce"].as_i64().unwrap(),
                ],
            )
            .unwrap()
            .get(0);
        assert_eq!(
            hex::encode(&key),
            deal["key"].as_str().unwrap(),
            "{}",
            deal["name"]
        );
    }
}

/// The golden chain entries as publications, each with the names of its entries.
fn golden_publications(chain: &[Value]) -> Vec<(Value, Vec<String>)> {
    let mut publications: Vec<(Value, Vec<String>)> = Vec::new();
    for entry in chain {
        let name = entry["name"].as_str().unwrap();
        let prev = entry["prev_hash"].as_str().unwrap();
        let follows = publications.iter().rposition(|(p, _)| {
            p["chain_head"].as_str() == Some(prev) && p["desk"] == entry["desk"]
        });
        let at = match follows {
            Some(at) => at,
            None => {
                assert_eq!(prev, "0".repeat(64), "{name}: it follows no other entry");
                publications.push((
                    json!({"desk": entry["desk"], "rounds": [], "games": [], "chain_head": null}),
                    Vec::new(),
                ));
                publications.len() - 1
            }
        };
        let (publication, names) = &mut publications[at];
        let rounds = publication["rounds"].as_array_mut().unwrap();
        let round = match rounds
            .iter()
            .find(|r| r["commitment"] == entry["commitment"])
        {
            Some(r) => {
                let round = r["round"].as_i64().unwrap();
                assert_eq!(*r, golden_round(round, entry), "{name}: its round's rules");
                round
            }
            None => {
                let round = rounds.len() as i64 + 1;
                rounds.push(golden_round(round, entry));
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
            "client_seeds": strings(&entry["client_seeds"]).iter().map(|s| hex::encode(s.as_bytes())).collect::<Vec<_>>(),
            "cards": [entry["p1_cards"], entry["p2_cards"], entry["p3_cards"], entry["extra_cards"]],
            "leader": entry["leader"],
            "chain_hash": entry["chain_hash"],
        }));
        publication["chain_head"] = entry["chain_hash"].clone();
        names.push(name.to_string());
    }
    publications
}

/// Each publication links, game for game, whatever TimeZone and DateStyle are set to
/// (protocol 3 chains reveal_by as the instant its text gives, with its offset).
fn check_links_in_every_time_zone(
    client: &mut Client,
    publications: &[(Value, Vec<String>)],
    with_rules: &[&Value],
) {
    for (zone, style) in [
        ("UTC", "ISO, YMD"),
        ("Pacific/Chatham", "SQL, DMY"),
        ("America/St_Johns", "German"),
        ("Asia/Kathmandu", "Postgres, MDY"),
    ] {
        client
            .batch_execute(&format!(
                "SET TimeZone = '{zone}'; SET DateStyle = '{style}'"
            ))
            .unwrap();
        for (publication, names) in publications {
            // One row per game, linked, not revealed; and a row per earlier round left
            // unrevealed.
            let rounds = publication["rounds"].as_array().unwrap().len();
            let rows = verdicts(client, publication);
            assert_eq!(rows.len(), names.len() + rounds - 1, "{names:?}");
            let expected = golden_verdicts(publication, &[], false);
            for ((row, name), expected) in rows.iter().zip(names).zip(expected) {
                assert_eq!(*row, expected, "{name} in {zone}, {style}");
            }
        }
        // reveal_by as the microseconds the reference gives.
        for entry in with_rules {
            let rules = &entry["rules"];
            if rules["reveal_by"].is_null() {
                assert!(rules["reveal_by_micros"].is_null());
                continue;
            }
            let micros: i64 = client
                .query_one(
                    "SELECT dealcards_verify_time($1::text::jsonb, 'reveal_by')",
                    &[&rules["reveal_by"].to_string()],
                )
                .unwrap()
                .get(0);
            assert_eq!(
                micros,
                rules["reveal_by_micros"].as_i64().unwrap(),
                "{} in {zone}, {style}",
                entry["name"]
            );
        }
    }
}

/// Every rule of a protocol 3 publication's round changed breaks the chain; its reveal_by
/// written in other offsets does not.
fn check_changed_rules_break_the_chain(client: &mut Client, publication: &Value, names: &[String]) {
    let (changes, same_instant) = rule_changes(client, &publication["rounds"][0]);
    for (what, change) in changes {
        let changed = with_round(publication, &change);
        assert_eq!(
            verdicts(client, &changed),
            golden_verdicts(&changed, &[], true),
            "{names:?}: {what}"
        );
    }
    for by in same_instant {
        let changed = with_round(publication, &json!({ "reveal_by": by }));
        assert_eq!(
            verdicts(client, &changed),
            golden_verdicts(&changed, &[], false),
            "{names:?}: reveal_by {by}"
        );
    }
}

/// The changes of a round's rules, each named, and its reveal_by as written in other time
/// zones (the same instant).
fn rule_changes(client: &mut Client, rules: &Value) -> (Vec<(&'static str, Value)>, Vec<Value>) {
    let mut house: Vec<i64> = rules["house_seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_i64().unwrap())
        .collect();
    match house.iter().position(|&s| s == 1) {
        Some(i) => {
            house.remove(i);
        }
        None => house.push(1),
    }
    let mut changes = vec![
        ("a house seat more or less", json!({"house_seats": house})),
        (
            "seeds required or not",
            json!({"seeds_required": !rules["seeds_required"].as_bool().unwrap()}),
        ),
        (
            "a bound one deal smaller",
            json!({"max_deals": rules["max_deals"].as_i64().unwrap() - 1}),
        ),
        ("protocol 2", json!({"protocol": 2})),
    ];
    let mut same_instant = Vec::new();
    match rules["reveal_by"].as_str() {
        None => changes.push((
            "a time limit added",
            json!({"reveal_by": "2026-12-31T20:59:59.999999-03:00"}),
        )),
        Some(by) => {
            changes.push(("the time limit dropped", json!({"reveal_by": null})));
            let later: String = client
                .query_one(
                    "SELECT to_jsonb($1::text::timestamptz + interval '1 microsecond')::text",
                    &[&by],
                )
                .unwrap()
                .get(0);
            let later: Value = serde_json::from_str(&later).unwrap();
            changes.push((
                "the time limit a microsecond later",
                json!({ "reveal_by": later }),
            ));
            for zone in ["UTC", "Asia/Kathmandu", "America/St_Johns"] {
                client
                    .batch_execute(&format!("SET TimeZone = '{zone}'"))
                    .unwrap();
                let text: String = client
                    .query_one("SELECT to_jsonb($1::text::timestamptz)::text", &[&by])
                    .unwrap()
                    .get(0);
                same_instant.push(serde_json::from_str::<Value>(&text).unwrap());
            }
            client.batch_execute("SET TimeZone = 'UTC'").unwrap();
            assert!(same_instant.iter().any(|t| t != by), "{same_instant:?}");
        }
    }
    (changes, same_instant)
}

/// Rules no round can have, as fair_verify_desk says of them: a house seat that is not a seat
/// is left out of the chain (a null one is none); with no bound there are no rules to chain.
fn check_rules_no_round_can_have(client: &mut Client, publication: &Value, names: &[String]) {
    let rules = &publication["rounds"][0];
    let mut seats = rules["house_seats"].as_array().unwrap().clone();
    seats.extend([json!(4), Value::Null, json!(0)]);
    let changed = with_round(publication, &json!({ "house_seats": seats }));
    assert_eq!(
        verdicts(client, &changed),
        golden_verdicts(
            &changed,
            &[
                "its round's house seat 4 is not a seat",
                "its round's house seat 0 is not a seat"
            ],
            false
        ),
        "{names:?}"
    );
    for no_bound in [json!({ "max_deals": null }), json!({})] {
        let mut changed = with_round(publication, &no_bound);
        if no_bound.as_object().unwrap().is_empty() {
            changed["rounds"][0]
                .as_object_mut()
                .unwrap()
                .remove("max_deals");
        }
        assert_eq!(
            verdicts(client, &changed),
            golden_verdicts(
                &changed,
                &["its round has no bound, which protocol 3 chains"],
                true
            ),
            "{names:?}"
        );
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
            hex::encode(&seed)
        );
    }
}

#[test]
fn a_real_desks_publication_as_fair_verify_desk_sees_it() {
    let mut verifier = verifier_database("dealcards_sql_verifier_publication");
    let mut house = house_of_three_rounds("dealcards_sql_verifier_desk");
    // The house publishes its times in an offset of half an hour; the verifier reads them in
    // another time zone and date style.
    house
        .batch_execute("SET TimeZone = 'America/St_Johns'")
        .unwrap();
    verifier
        .batch_execute("SET TimeZone = 'Asia/Kathmandu'; SET DateStyle = 'SQL, DMY'")
        .unwrap();
    let publication = publication_of(&mut house);
    check_published_rules(&publication);
    let expected = desk_says(&mut house);
    let got = publication_says(&mut verifier, &publication);
    assert_eq!(got, expected);
    assert_eq!(got.len(), 6);
    assert_eq!(got.iter().filter(|r| r.3 == Some(true)).count(), 4);
    assert_eq!(got.iter().filter(|r| r.3.is_none()).count(), 2);

    check_rewritten_rules_read_alike(&mut house, &mut verifier, &publication, &expected);
    assert_eq!(publication_of(&mut house), publication);
    assert_eq!(desk_says(&mut house), expected);

    check_tampered_copies_fail(&mut verifier, &publication);
    check_malformed_publications_are_refused(&mut verifier, &publication);
    check_malformed_deals_are_refused(&mut verifier);
}

/// A house database with desk -5 dealt in three rounds of protocol 3 under rules of their
/// own (the first without a time limit): two revealed, the last in force; seeds set per round.
fn house_of_three_rounds(name: &str) -> Client {
    let mut house = server::fresh_database(name);
    house
        .batch_execute(
            "CREATE EXTENSION dealcards;
             INSERT INTO desk (desk_id) VALUES (-5);
             INSERT INTO desk_player VALUES (-5, 1, 101), (-5, 2, -102), (-5, 3, 103);
             SELECT deal_cards(-5);",
        )
        .unwrap();
    for round in 0..3 {
        for sql in [
            if round == 0 {
                "SELECT fair_mode_on(-5, house_seats => '{3}', reveal_within => NULL)"
            } else {
                "SELECT 1"
            },
            "SELECT set_client_seed(-5, 1, 'alice ' || (SELECT max(round) FROM fair_commitment))",
            "SELECT set_client_seed(-5, 2, 'Zoë')",
            "SELECT deal_cards(-5)",
            "SELECT deal_cards(-5)",
            match round {
                0 => "SELECT fair_reveal(-5, seeds_required => false, max_deals => 50, reveal_within => interval '1 day')",
                1 => "SELECT fair_reveal(-5, max_deals => 9223372036854775807, reveal_within => interval '90 days')",
                _ => "SELECT 1",
            },
        ] {
            house.batch_execute(sql).unwrap();
        }
    }
    house
}

/// What the house publishes of desk -5.
fn publication_of(house: &mut Client) -> Value {
    serde_json::from_str(
        &house
            .query_one("SELECT fair_publication(-5)::text", &[])
            .unwrap()
            .get::<_, String>(0),
    )
    .unwrap()
}

/// The rounds' rules as published, their times in the house's offset of half an hour.
fn check_published_rules(publication: &Value) {
    let rules: Vec<(Value, Value, Value, bool)> = publication["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["protocol"], 3, "{r}");
            if let Some(by) = r["reveal_by"].as_str() {
                assert!(by.ends_with(":30"), "{by}");
            }
            (
                r["house_seats"].clone(),
                r["seeds_required"].clone(),
                r["max_deals"].clone(),
                r["reveal_by"].is_null(),
            )
        })
        .collect();
    assert_eq!(
        rules,
        [
            (json!([3]), json!(true), json!(1000), true),
            (json!([3]), json!(false), json!(50), false),
            (json!([3]), json!(false), json!(i64::MAX), false),
        ]
    );
}

/// (game_id, round, nonce, verified, problem) of a row of a check.
type Row = (
    Option<i64>,
    Option<i32>,
    Option<i64>,
    Option<bool>,
    Option<String>,
);

/// The rows of a check, `sql` with its one argument.
fn rows_of(client: &mut Client, sql: &str, arg: &(dyn postgres::types::ToSql + Sync)) -> Vec<Row> {
    client
        .query(sql, &[arg])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect()
}

/// What fair_verify_desk says of desk -5.
fn desk_says(house: &mut Client) -> Vec<Row> {
    rows_of(
        house,
        "SELECT game_id, round, nonce, verified, problem FROM fair_verify_desk($1)",
        &-5i32,
    )
}

/// What the verifier says of a publication.
fn publication_says(verifier: &mut Client, publication: &Value) -> Vec<Row> {
    rows_of(
        verifier,
        "SELECT game_id, round, nonce, verified, problem FROM dealcards_verify_publication($1::text::jsonb)",
        &publication.to_string(),
    )
}

/// A revealed round's rules rewritten in the tables after its deals: fair_verify_desk and the
/// verifier of the publication say the same, word for word. Every game of the round fails (its
/// chain, under protocol 3, covers the rules); the games of the other rounds are as before,
/// each linked to the stored hash of the one before it. The same rules rewritten in the
/// publication alone read alike.
fn check_rewritten_rules_read_alike(
    house: &mut Client,
    verifier: &mut Client,
    publication: &Value,
    expected: &[Row],
) {
    house
        .batch_execute(
            "CREATE TABLE saved_rules AS
                 SELECT round, house_seats, seeds_required, max_deals, reveal_by
                   FROM fair_seed WHERE desk_id = -5",
        )
        .unwrap();
    for (round, what, set, problem) in rule_rewrites() {
        house
            .batch_execute(&format!(
                "UPDATE fair_seed SET {set} WHERE desk_id = -5 AND round = {round}"
            ))
            .unwrap();
        let desk_says = desk_says(house);
        let tampered = publication_of(house);
        let got = publication_says(verifier, &tampered);
        assert_eq!(got, desk_says, "{what}");
        assert_eq!(got.len(), expected.len(), "{what}");
        for (row, before) in got.iter().zip(expected) {
            if row.1 == Some(round) {
                assert_eq!(
                    (row.3, row.4.as_deref()),
                    (Some(false), Some(problem.as_str())),
                    "{what}"
                );
            } else {
                assert_eq!(row, before, "{what}");
            }
        }
        // The publication as it was, with the round's rules as rewritten.
        let mut rewritten = publication.clone();
        let index = (round - 1) as usize;
        for key in ["house_seats", "seeds_required", "max_deals", "reveal_by"] {
            rewritten["rounds"][index][key] = tampered["rounds"][index][key].clone();
        }
        assert_ne!(rewritten, *publication, "{what}");
        let got_rewritten = publication_says(verifier, &rewritten);
        assert_eq!(got_rewritten, desk_says, "{what}");
        house
            .batch_execute(
                "UPDATE fair_seed f
                    SET house_seats = s.house_seats, seeds_required = s.seeds_required,
                        max_deals = s.max_deals, reveal_by = s.reveal_by
                   FROM saved_rules s
                  WHERE f.desk_id = -5 AND f.round = s.round",
            )
            .unwrap();
    }
}

/// (round, what, the SET of the rewrite, the problem each game of the round then has).
fn rule_rewrites() -> Vec<(i32, &'static str, &'static str, String)> {
    vec![
        (
            1,
            "seat 3 no longer a house seat",
            "house_seats = '{}'",
            BROKEN.to_string(),
        ),
        (
            1,
            "seat 1 a house seat too",
            "house_seats = '{1,3}'",
            format!(
                "seat 1 is a house seat of its round, yet its client seed is not empty; {BROKEN}"
            ),
        ),
        (
            1,
            "seeds no longer required",
            "seeds_required = false",
            BROKEN.to_string(),
        ),
        (
            1,
            "a larger bound",
            "max_deals = max_deals + 1",
            BROKEN.to_string(),
        ),
        (
            1,
            "a time limit added",
            "reveal_by = committed_at + interval '1 hour'",
            BROKEN.to_string(),
        ),
        (
            2,
            "seeds required",
            "seeds_required = true",
            BROKEN.to_string(),
        ),
        (
            2,
            "the time limit dropped",
            "reveal_by = NULL",
            BROKEN.to_string(),
        ),
        (
            2,
            "the time limit a microsecond later",
            "reveal_by = reveal_by + interval '1 microsecond'",
            BROKEN.to_string(),
        ),
        (
            2,
            "a house seat that is not a seat",
            "house_seats = '{3,4}'",
            "its round's house seat 4 is not a seat".to_string(),
        ),
    ]
}

/// Tampered copies fail, saying why.
fn check_tampered_copies_fail(verifier: &mut Client, publication: &Value) {
    let mut swapped = publication.clone();
    let cards = &mut swapped["games"][0]["cards"];
    let (a, b) = (cards[0][0].clone(), cards[1][0].clone());
    cards[0][0] = b;
    cards[1][0] = a;
    let v = verdicts(verifier, &swapped);
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
    let v = verdicts(verifier, &wrong_seed);
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
    let v = verdicts(verifier, &head);
    assert_eq!(v.len(), 7);
    assert_eq!(v[6].0, Some(false));
}

/// Malformed publications: 22023, naming what is wrong.
fn check_malformed_publications_are_refused(verifier: &mut Client, publication: &Value) {
    let changed = |change: fn(&mut Value)| {
        let mut p = publication.clone();
        change(&mut p);
        p
    };
    let whole = [
        (json!({"desk": 1}), "not a publication"),
        (
            changed(|p| p["games"][1]["chain_hash"] = json!("abc")),
            "chain_hash",
        ),
        (
            changed(|p| p["rounds"][0]["server_seed"] = json!("00")),
            "32 bytes",
        ),
        (
            changed(|p| p["games"][0]["cards"][3] = json!([1, 2])),
            "54 cards",
        ),
    ];
    let rounds = [
        (json!({"protocol": 4}), "protocol 4"),
        (json!({"house_seats": [3, "3"]}), "a house seat of round 2"),
        (json!({"seeds_required": "false"}), "seeds_required"),
        (json!({"max_deals": "50"}), "max_deals"),
        (json!({"max_deals": 1.5}), "max_deals"),
        (json!({"reveal_by": "2026-12-31 20:59:59"}), "reveal_by"),
        (json!({"reveal_by": "2026-12-31T20:59:59"}), "reveal_by"),
        (json!({"reveal_by": "infinity"}), "reveal_by"),
        (json!({"reveal_by": "now"}), "reveal_by"),
        (json!({"reveal_by": 1798761599999999i64}), "reveal_by"),
        (
            json!({"reveal_by": "2026-13-31T20:59:59+00:00"}),
            "reveal_by",
        ),
        (
            json!({"reveal_by": "294276-12-31T23:59:59+00:00"}),
            "reveal_by",
        ),
    ]
    .map(|(change, says)| {
        let mut p = publication.clone();
        for (key, value) in change.as_object().unwrap() {
            p["rounds"][1][key] = value.clone();
        }
        (p, says)
    });
    for (arg, says) in whole.into_iter().chain(rounds) {
        let error = verifier
            .query(
                "SELECT * FROM dealcards_verify_publication($1::text::jsonb)",
                &[&arg.to_string()],
            )
            .expect_err(says);
        let db = error.as_db_error().unwrap();
        assert_eq!(db.code().code(), "22023", "{says}: {db:?}");
        assert!(db.message().contains(says), "{says}: {}", db.message());
    }
}

/// Malformed arguments of dealcards_verify_deal: 22023, naming what is wrong.
fn check_malformed_deals_are_refused(verifier: &mut Client) {
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

/// The golden receipt cases of tests/browser/receipt_cases.py, each with the verdicts it must
/// get and those tools/verify_deal.py gives.
fn golden_receipt_cases() -> Vec<Value> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/browser/receipt_cases.py"
    );
    let out = std::process::Command::new("python3")
        .args([script, "--golden-json"])
        .output()
        .expect("python3 runs tests/browser/receipt_cases.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cases: Value = serde_json::from_slice(&out.stdout).unwrap();
    cases.as_array().unwrap().clone()
}

/// What dealcards_verify_receipts gives a case, in the shape of receipt_cases.py's verdicts:
/// per receipt [result, check], the games withheld, the desk's [result, [checks]], and the
/// whole check's verdict.
fn sql_receipts(verifier: &mut Client, case: &Value) -> Result<Value, postgres::Error> {
    let shown: Vec<String> = strings(&case["shown"]);
    let rows = verifier.query(
        "SELECT kind, result, \"check\", game_id, round
           FROM dealcards_verify_receipts($1::text::jsonb, $2::text::jsonb, $3, $4)",
        &[
            &case["publication"].to_string(),
            &case["receipts"].to_string(),
            &case["player"].as_i64(),
            &shown,
        ],
    )?;
    let of = |kind: &'static str| -> Vec<&postgres::Row> {
        rows.iter()
            .filter(|r| r.get::<_, String>(0) == kind)
            .collect()
    };
    let receipts: Vec<Value> = of("receipt")
        .into_iter()
        .map(|r| json!([r.get::<_, String>(1), r.get::<_, Option<String>>(2)]))
        .collect();
    let withheld: Vec<i64> = of("withheld").into_iter().map(|r| r.get(3)).collect();
    let ended_early: Vec<i32> = of("ended early").into_iter().map(|r| r.get(4)).collect();
    let desk = of("desk")[0];
    let mut desk_checks: Vec<String> = desk
        .get::<_, Option<String>>(2)
        .map(|c| c.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    desk_checks.sort();
    let check: Vec<String> = of("check").into_iter().map(|r| r.get(1)).collect();
    assert_eq!(
        check.len(),
        1,
        "{}: one verdict of the whole check",
        case["name"]
    );
    Ok(
        json!({"receipts": receipts, "withheld": withheld, "ended_early": ended_early,
              "desk": [desk.get::<_, String>(1), desk_checks], "check": check[0]}),
    )
}

#[test]
fn players_receipts_as_verify_deal_py_checks_them() {
    let mut verifier = verifier_database("dealcards_sql_verifier_receipts");
    let cases = golden_receipt_cases();
    let mut checked = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        assert_eq!(case["python"], case["expected"], "{name}: verify_deal.py");
        let got = sql_receipts(&mut verifier, case).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got, case["expected"], "{name}: dealcards_verify_receipts");
        checked.push(name);
    }
    for name in [
        // Times written with Z (UTC) read as with +00:00.
        "golden: protocol 3, reveal_by 2026-12-31T23:59:59.999999Z, the same instant",
        // Rounds revealed before their bound ended early; at their reveal_by, in time.
        "golden: protocol 3, revealed_at 2026-12-31T23:59:59.999998Z, its reveal_by 2026-12-31T20:59:59.999999-03:00",
        "golden: protocol 3, revealed_at 2026-12-31T23:59:59.999999+00:00, its reveal_by 2026-12-31T20:59:59.999999-03:00",
        "golden: protocol 3, seat 3 the house's, two games",
        "golden: every commitment shown and the player id",
        "golden: a shadow desk's deal, of a round shown no commitment",
        "golden: a receipt under another commitment than the one shown",
        "golden: no player id: incomplete",
        "golden: no commitments shown: incomplete",
        "golden: a game withheld",
    ] {
        assert!(checked.contains(&name), "{name} not checked");
    }
}

/// The whole check's verdict names what is missing when it is incomplete; commitments shown
/// that are not ROUND:HEX or HEX are refused with 22023, as verify_deal.py refuses them.
#[test]
fn an_incomplete_check_says_what_is_missing() {
    let mut verifier = verifier_database("dealcards_sql_verifier_incomplete");
    let cases = golden_receipt_cases();
    let case = cases
        .iter()
        .find(|c| c["name"] == "golden: every commitment shown and the player id")
        .unwrap();
    let shown = strings(&case["shown"]);
    let why = |verifier: &mut Client, player: Option<i64>, shown: &[String]| {
        verifier.query_one(
            "SELECT result || ': ' || coalesce(why, '') FROM dealcards_verify_receipts($1::text::jsonb, $2::text::jsonb, $3, $4)
              WHERE kind = 'check'",
            &[&case["publication"].to_string(), &case["receipts"].to_string(), &player, &shown],
        )
        .map(|r| r.get::<_, String>(0))
    };
    assert_eq!(why(&mut verifier, Some(71), &shown).unwrap(), "verified: ");
    let no_player = why(&mut verifier, None, &shown).unwrap();
    assert!(
        no_player.starts_with("incomplete: not given: your player id"),
        "{no_player}"
    );
    let none_shown = why(&mut verifier, Some(71), &[]).unwrap();
    assert!(
        none_shown.starts_with("incomplete: not given: the commitments you were shown"),
        "{none_shown}"
    );
    for (bad, says) in [
        (vec!["one:00".to_string()], "no round number"),
        (vec!["1:abc".to_string()], "64 hex digits"),
        (
            vec![
                shown[0].clone(),
                format!("{}0", &shown[0][..shown[0].len() - 1]),
            ],
            "twice",
        ),
    ] {
        let e = why(&mut verifier, Some(71), &bad).expect_err(says);
        let db = e.as_db_error().unwrap();
        assert_eq!(db.code().code(), "22023", "{says}: {db:?}");
        assert!(db.message().contains(says), "{says}: {}", db.message());
    }
}

/// What tools/verify_deal.py receipts --json says of a publication and receipts, with the
/// player id and commitments shown given, in the shape of sql_receipts.
fn python_receipts(case: &Value) -> Value {
    let dir = std::env::temp_dir().join(format!("dealcards-receipts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (publication, receipts) = (dir.join("publication.json"), dir.join("receipts.json"));
    std::fs::write(&publication, case["publication"].to_string()).unwrap();
    std::fs::write(&receipts, case["receipts"].to_string()).unwrap();
    let mut args = vec![
        concat!(env!("CARGO_MANIFEST_DIR"), "/tools/verify_deal.py").to_string(),
        "receipts".into(),
        "--json".into(),
        "--publication".into(),
        publication.display().to_string(),
        receipts.display().to_string(),
    ];
    if let Some(player) = case["player"].as_i64() {
        args.push(format!("--player={player}"));
    }
    args.extend(
        strings(&case["shown"])
            .iter()
            .map(|c| format!("--commitment={c}")),
    );
    let out = std::process::Command::new("python3")
        .args(&args)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let said: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    let check = match out.status.code() {
        Some(0) => "verified",
        Some(1) => "failed",
        Some(3) => "not revealed yet",
        Some(4) => "incomplete",
        Some(5) => "ended early",
        other => panic!("verify_deal.py exited {other:?}"),
    };
    let receipts: Vec<Value> = said["receipts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!([r["result"], r["check"]]))
        .collect();
    let withheld: Vec<Value> = said["withheld"]
        .as_array()
        .map(|w| w.iter().map(|g| g["game"].clone()).collect())
        .unwrap_or_default();
    let mut desk_checks: Vec<String> = said["desk"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["check"].as_str().unwrap().to_string())
        .collect();
    desk_checks.sort();
    let ended_early: Vec<Value> = said["ended_early"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["round"].clone())
        .collect();
    json!({"receipts": receipts, "withheld": withheld, "ended_early": ended_early,
           "desk": [said["desk"]["result"], desk_checks], "check": check})
}

/// A real desk's receipts (three rounds, the last not revealed, seat 3 the house's) checked by
/// dealcards_verify_receipts and by verify_deal.py alike: complete, a shadow desk's deal (only
/// the newest round's commitment shown), a game withheld, the house seat's player, and
/// incomplete checks.
#[test]
fn a_real_desks_receipts_as_verify_deal_py_checks_them() {
    let mut verifier = verifier_database("dealcards_sql_verifier_real_receipts");
    let mut house = house_of_three_rounds("dealcards_sql_verifier_receipts_desk");
    let publication = publication_of(&mut house);
    let receipts: Value = serde_json::from_str(
        &house
            .query_one(
                "SELECT json_agg(fair_receipt(game_id) ORDER BY game_id)::text
                   FROM game WHERE desk_id = -5 AND fair_commitment IS NOT NULL",
                &[],
            )
            .unwrap()
            .get::<_, String>(0),
    )
    .unwrap();
    let rounds = publication["rounds"].as_array().unwrap();
    let every: Vec<String> = rounds
        .iter()
        .map(|r| format!("{}:{}", r["round"], r["commitment"].as_str().unwrap()))
        .collect();
    let newest = vec![every.last().unwrap().clone()];
    let all = receipts.as_array().unwrap().clone();
    let mut verdicts = Vec::new();
    for (name, player, shown, held) in [
        ("complete", Some(101), every.clone(), &all[..]),
        ("shadow desk", Some(101), newest, &all[..]),
        ("a game withheld", Some(101), every.clone(), &all[1..]),
        (
            "the house seat's player",
            Some(103),
            every.clone(),
            &all[..],
        ),
        ("no player id", None, every.clone(), &all[..]),
        ("no commitments shown", Some(101), vec![], &all[..]),
    ] {
        let case = json!({"name": name, "publication": publication, "receipts": held,
                          "player": player, "shown": shown});
        let python = python_receipts(&case);
        assert_eq!(
            sql_receipts(&mut verifier, &case).unwrap(),
            python,
            "{name}"
        );
        verdicts.push((name, python["check"].as_str().unwrap().to_string()));
    }
    // The two revealed rounds ended after 2 of their 1000 and 50 deals: ended early outweighs
    // incomplete, and a failure outweighs it.
    let want = [
        ("complete", "ended early"),
        ("shadow desk", "failed"),
        ("a game withheld", "failed"),
        ("the house seat's player", "failed"),
        ("no player id", "ended early"),
        ("no commitments shown", "ended early"),
    ];
    assert_eq!(verdicts, want.map(|(n, c)| (n, c.to_string())));
}

/// tools/verify_deal.py receipts --keep FILE on a publication and receipts: the file's rounds
/// after the check, and the rounds it reports forked (none without a fork).
fn python_keep(
    publication: &Value,
    receipts: &Value,
    kept: &Value,
    name: &str,
) -> (Value, Vec<i64>) {
    let dir = std::env::temp_dir().join(format!("dealcards-keep-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let paths = ["publication.json", "receipts.json", "kept.json"].map(|f| dir.join(f));
    for (path, value) in paths.iter().zip([publication, receipts, kept]) {
        std::fs::write(path, value.to_string()).unwrap();
    }
    let out = std::process::Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tools/verify_deal.py"))
        .args(["receipts", "--json", "--publication"])
        .args(&paths[..2])
        .arg(format!("--keep={}", paths[2].display()))
        .output()
        .unwrap();
    let said: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&paths[2]).unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let forked = said["forked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["round"].as_i64().unwrap())
        .collect();
    (file, forked)
}

/// dealcards_verify_seen keeps of a real desk's publication what verify_deal.py --keep keeps
/// (each revealed round: its games and last chain hash); dealcards_verify_forked, given it,
/// reports nothing, and given the first round kept with one game fewer (a copy of the server
/// dealt one more under it after the reveal seen), reports the round and the receipt past the
/// kept games, as verify_deal.py does.
#[test]
fn kept_rounds_catch_a_fork_as_verify_deal_py_keeps_them() {
    let mut verifier = verifier_database("dealcards_sql_verifier_kept");
    let mut house = house_of_three_rounds("dealcards_sql_verifier_kept_desk");
    let publication = publication_of(&mut house);
    let receipts: Value = serde_json::from_str(
        &house
            .query_one(
                "SELECT json_agg(fair_receipt(game_id) ORDER BY game_id)::text
                   FROM game WHERE desk_id = -5 AND fair_commitment IS NOT NULL",
                &[],
            )
            .unwrap()
            .get::<_, String>(0),
    )
    .unwrap();
    let seen: Value = verifier
        .query_one(
            "SELECT dealcards_verify_seen($1::text::jsonb)::text",
            &[&publication.to_string()],
        )
        .map(|r| serde_json::from_str(&r.get::<_, String>(0)).unwrap())
        .unwrap();
    let (kept, forked) = python_keep(&publication, &receipts, &json!({"rounds": []}), "first");
    assert_eq!(seen, kept, "what is kept of the revealed rounds");
    assert!(forked.is_empty());
    assert_eq!(seen["rounds"].as_array().unwrap().len(), 2);
    let forked_sql = |verifier: &mut Client, kept: &Value| -> Vec<i64> {
        verifier
            .query(
                "SELECT round FROM dealcards_verify_forked($1::text::jsonb, $2::text::jsonb, $3::text::jsonb)",
                &[&publication.to_string(), &receipts.to_string(), &kept.to_string()],
            )
            .unwrap()
            .iter()
            .map(|r| i64::from(r.get::<_, i32>(0)))
            .collect()
    };
    assert_eq!(forked_sql(&mut verifier, &seen), Vec::<i64>::new());
    // The first round kept as it was before its last game: the copy dealt that game after the
    // reveal the player saw.
    let first_games: Vec<&Value> = publication["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["round"] == 1)
        .collect();
    let mut fewer = seen.clone();
    fewer["rounds"][0]["games"] = json!(first_games.len() - 1);
    fewer["rounds"][0]["last_chain_hash"] =
        first_games[first_games.len() - 2]["chain_hash"].clone();
    let (_, python) = python_keep(&publication, &receipts, &fewer, "fewer");
    let sql = forked_sql(&mut verifier, &fewer);
    assert_eq!(sql, python);
    assert_eq!(
        sql,
        [1, 1],
        "the round, and the receipt past its kept games"
    );
}
