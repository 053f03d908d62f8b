//! Nobody but the owner sees a provably fair deal before it commits. The game server's role, with
//! exactly the documented grants and over its own connections, deals and then reads everything
//! it may read before rolling back: in a transaction, to a savepoint, in a loop across
//! transactions that re-seats a player with a new seed between looks, and in a DO block with
//! COMMIT and ROLLBACK inside. Nothing it read holds the deal (the deal is known to the test from
//! the round's seed, which the superuser reads); the deals it committed are on the record.
//! A superuser's own preview finds the deal: the check can fail.

use std::sync::{Arc, Mutex};

use postgres::Client;

use crate::desks::{database_with_extension, seat, Cards};
use crate::grants::create_game_server_role;
use crate::secrecy::connect_collecting;

const DESK: i32 = 1;

/// A database with desk 1 seated (players 11, 12, 13) in provably fair mode with seeds required,
/// every seat's seed set; the superuser's connection and the game server's (collecting notices).
fn fair_desk(db: &str, role: &str) -> (Client, Client, Arc<Mutex<Vec<String>>>) {
    let mut admin = database_with_extension(db);
    create_game_server_role(&mut admin, role);
    seat(&mut admin, DESK, &[1, 2, 3]);
    admin.execute("SELECT fair_mode_on($1)", &[&DESK]).unwrap();
    for (seat, seed) in [(1, "north"), (2, "east"), (3, "south")] {
        admin
            .execute("SELECT set_client_seed($1, $2, $3)", &[&DESK, &seat, &seed])
            .unwrap();
    }
    let notices = Arc::new(Mutex::new(Vec::new()));
    let game_server = connect_collecting(db, role, notices.clone());
    (admin, game_server, notices)
}

/// The deal the desk's next deal gives: from the round's server seed (read by the superuser),
/// the seats' client seeds and the next nonce.
fn next_deal(admin: &mut Client) -> Cards {
    let row = admin
        .query_one(
            "SELECT f.p1_cards, f.p2_cards, f.p3_cards, f.extra_cards, f.leader
               FROM desk d
               JOIN fair_seed s ON s.desk_id = d.desk_id AND s.round = d.fair_round
              CROSS JOIN LATERAL fair_deal(s.server_seed,
                   ARRAY(SELECT p.client_seed FROM desk_player p
                          WHERE p.desk_id = d.desk_id ORDER BY p.player_no),
                   d.fair_nonce) f
              WHERE d.desk_id = $1",
            &[&DESK],
        )
        .unwrap();
    (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4))
}

/// Every text of `read` that shows something of `deal`: a hand or the extra cards (as array text,
/// or any five cards of a hand in a row), or its leader note; and any row at all read from game,
/// bid_record or note, which hold nothing but the deal's rows at these desks.
fn shown(read: &[(String, String)], deal: &Cards, game: i64) -> Vec<String> {
    let (p1, p2, p3, extra, leader) = deal;
    let mut marks: Vec<String> = vec![format!("{leader}#{game}"), array_text(extra)];
    for hand in [p1, p2, p3] {
        marks.push(array_text(hand));
        marks.extend(
            hand.windows(5)
                .map(|w| array_text(w).trim_matches(['{', '}']).to_string()),
        );
    }
    let deal_tables = ["FROM game", "UPDATE game", "bid_record", "FROM note"];
    read.iter()
        .filter(|(sql, text)| {
            marks.iter().any(|m| text.contains(m.as_str()))
                || (!sql.starts_with("EXPLAIN")
                    && !sql.contains("pg_stats")
                    && deal_tables.iter().any(|t| sql.contains(t))
                    && !text.is_empty())
        })
        .map(|(source, text)| format!("{source}: {text}"))
        .collect()
}

fn array_text(cards: &[i32]) -> String {
    let cards: Vec<String> = cards.iter().map(i32::to_string).collect();
    format!("{{{}}}", cards.join(","))
}

/// What `client` reads in its open transaction after dealing game `game`: every row of every
/// table and view it may read, rows it may lock or update, the provably fair functions' results
/// or errors, and query plans with their row counts; each as (what was run, text). Each read
/// runs in a savepoint, so that a refusal leaves the transaction open.
fn read_everything(client: &mut Client, game: i64) -> Vec<(String, String)> {
    let mut reads: Vec<String> = [
        "SELECT * FROM game",
        "SELECT * FROM game FOR UPDATE",
        "UPDATE game SET state_no = state_no RETURNING *",
        "TABLE bid_record",
        "UPDATE bid_record SET bid_size = bid_size RETURNING *",
        "SELECT * FROM note",
        "SELECT * FROM desk",
        "SELECT * FROM desk_player",
        "SELECT * FROM fair_commitment",
        "SELECT * FROM v_player_id_in_room",
        "SELECT fair_publication(1)",
        "SELECT * FROM fair_verify_desk(1)",
        "SELECT * FROM pg_stats WHERE tablename IN ('game', 'bid_record', 'note')",
    ]
    .map(String::from)
    .to_vec();
    reads.push(format!("SELECT * FROM fair_verify_game({game})"));
    reads.push(format!("SELECT fair_receipt({game})"));
    for seat in 1..=3 {
        reads.push(format!(
            "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT * FROM game WHERE game_id = {game} AND leader = {seat}"
        ));
        reads.push(format!(
            "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT * FROM bid_record WHERE game_id = {game} AND player_no = {seat}"
        ));
    }
    let mut read = Vec::new();
    for sql in reads {
        client.batch_execute("SAVEPOINT read").unwrap();
        let text = match client.simple_query(&sql) {
            Ok(messages) => messages
                .iter()
                .filter_map(|m| match m {
                    postgres::SimpleQueryMessage::Row(row) => Some(
                        (0..row.len())
                            .map(|i| row.get(i).unwrap_or("NULL"))
                            .collect::<Vec<_>>()
                            .join("|"),
                    ),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Err(e) => format!("error {:?}", e.as_db_error()),
        };
        client.batch_execute("ROLLBACK TO SAVEPOINT read").unwrap();
        read.push((sql, text));
    }
    read
}

/// The plans of the role's EXPLAIN ANALYZE of the game's row for leader 1, 2 and 3, and of its
/// bid records for each seat, are the same: a row count tells nothing of the deal.
fn assert_plans_alike(read: &[(String, String)]) {
    for (table, column) in [("game", "leader"), ("bid_record", "player_no")] {
        // The plans name the seat asked for; all else must be alike.
        let plans: Vec<String> = read
            .iter()
            .filter(|(sql, _)| {
                sql.starts_with("EXPLAIN") && sql.contains(&format!("FROM {table} "))
            })
            .zip(1..)
            .map(|((_, plan), seat)| {
                plan.replace(&format!("{column} = {seat})"), &format!("{column} = ?)"))
            })
            .collect();
        assert_eq!(plans.len(), 3);
        assert!(plans.iter().all(|p| *p == plans[0]), "{plans:#?}");
    }
}

fn game_of(result: &str) -> i64 {
    let value: serde_json::Value = serde_json::from_str(result).unwrap();
    value["game"].as_i64().unwrap()
}

fn games_at_desk(admin: &mut Client) -> i64 {
    admin
        .query_one("SELECT count(*) FROM game WHERE desk_id = $1", &[&DESK])
        .unwrap()
        .get(0)
}

#[test]
fn a_preview_shows_the_game_server_nothing_of_the_deal() {
    let (mut admin, mut game_server, notices) =
        fair_desk("dealcards_fair_preview", "dealcards_fair_preview_server");
    let coming = next_deal(&mut admin);

    // The superuser's own preview reads the deal: what the check looks for is there to find.
    admin.batch_execute("BEGIN").unwrap();
    let result: String = admin
        .query_one("SELECT deal_cards($1)::text", &[&DESK])
        .unwrap()
        .get(0);
    let game = game_of(&result);
    let seen = read_everything(&mut admin, game);
    admin.batch_execute("ROLLBACK").unwrap();
    assert!(
        !shown(&seen, &coming, game).is_empty(),
        "the owner's preview found nothing"
    );

    // The game server's: nothing, with the preview in a transaction and to a savepoint.
    for savepoint in [false, true] {
        check_the_game_servers_preview_shows_nothing(
            &mut game_server,
            &notices,
            &coming,
            savepoint,
        );
    }
    assert_eq!(games_at_desk(&mut admin), 0);

    // The deal it could not see is the one it deals now, committed and on the record.
    let result: String = game_server
        .query_one("SELECT deal_cards($1)::text", &[&DESK])
        .unwrap()
        .get(0);
    let cards: (Vec<i32>, i16) = {
        let row = admin
            .query_one(
                "SELECT p1_cards, leader FROM game WHERE game_id = $1",
                &[&game_of(&result)],
            )
            .unwrap();
        (row.get(0), row.get(1))
    };
    assert_eq!(cards, (coming.0.clone(), coming.4));
}

/// The game server's preview of the next deal at the desk, in a transaction (to a savepoint
/// if `savepoint`) rolled back: it reads nothing of the deal `coming`.
fn check_the_game_servers_preview_shows_nothing(
    game_server: &mut Client,
    notices: &Arc<Mutex<Vec<String>>>,
    coming: &Cards,
    savepoint: bool,
) {
    game_server.batch_execute("BEGIN").unwrap();
    if savepoint {
        game_server.batch_execute("SAVEPOINT look").unwrap();
    }
    let result: String = game_server
        .query_one("SELECT deal_cards($1)::text", &[&DESK])
        .unwrap()
        .get(0);
    let game = game_of(&result);
    let mut read = read_everything(game_server, game);
    assert_plans_alike(&read);
    read.push(("the deal's cards in its result".into(), result.clone()));
    for notice in notices.lock().unwrap().drain(..) {
        read.push(("a notice".into(), notice));
    }
    let leaked = shown(&read, coming, game);
    assert!(
        leaked.is_empty(),
        "the preview showed the deal: {leaked:#?}"
    );
    let refused: Vec<&(String, String)> = read
        .iter()
        .filter(|(sql, _)| sql.contains("fair_publication") || sql.contains("fair_verify_desk"))
        .collect();
    assert!(
        refused.iter().all(|(_, text)| text.contains("E55000")),
        "{refused:#?}"
    );
    // Its receipt is not there for the role until the deal commits: as for no such game.
    let receipt: Vec<&(String, String)> = read
        .iter()
        .filter(|(sql, _)| sql.contains("fair_receipt"))
        .collect();
    assert!(
        receipt.len() == 1 && receipt[0].1.contains("P0002"),
        "{receipt:#?}"
    );
    if savepoint {
        game_server
            .batch_execute("ROLLBACK TO SAVEPOINT look")
            .unwrap();
    }
    game_server.batch_execute("ROLLBACK").unwrap();
}

#[test]
fn re_seating_between_looks_across_transactions_shows_no_deal() {
    let (mut admin, mut game_server, _notices) =
        fair_desk("dealcards_fair_reseat", "dealcards_fair_reseat_server");
    for try_no in 1..=5i64 {
        // A committed step: seat 2 gets a new player, whose client gives a new seed.
        game_server
            .execute(
                "DELETE FROM desk_player WHERE desk_id = $1 AND player_no = 2",
                &[&DESK],
            )
            .unwrap();
        game_server
            .execute(
                "INSERT INTO desk_player (desk_id, player_no, player_id) VALUES ($1, 2, $2)",
                &[&DESK, &(100 + try_no)],
            )
            .unwrap();
        admin
            .execute(
                "SELECT set_client_seed($1, 2, $2)",
                &[&DESK, &format!("try {try_no}")],
            )
            .unwrap();
        let coming = next_deal(&mut admin);
        game_server.batch_execute("BEGIN").unwrap();
        let result: String = game_server
            .query_one("SELECT deal_cards($1)::text", &[&DESK])
            .unwrap()
            .get(0);
        let game = game_of(&result);
        let read = read_everything(&mut game_server, game);
        game_server.batch_execute("ROLLBACK").unwrap();
        let leaked = shown(&read, &coming, game);
        assert!(
            leaked.is_empty(),
            "try {try_no} showed the deal: {leaked:#?}"
        );
    }
    assert_eq!(games_at_desk(&mut admin), 0);
}

#[test]
fn a_do_block_that_commits_and_rolls_back_inside_sees_no_deal_and_keeps_what_it_committed() {
    let (mut admin, mut game_server, notices) =
        fair_desk("dealcards_fair_do_block", "dealcards_fair_do_block_server");
    // Re-seat seat 3, commit; a seed for the new player, commit; deal and look at everything
    // the deal wrote; keep the deal on even tries, undo it on odd ones.
    game_server
        .batch_execute(
            "DO $$
             DECLARE r jsonb; g bigint; seen text;
             BEGIN
               FOR i IN 1..6 LOOP
                 DELETE FROM desk_player WHERE desk_id = 1 AND player_no = 3;
                 INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (1, 3, 300 + i);
                 COMMIT;
                 PERFORM set_client_seed(1, 3, 'do ' || i);
                 COMMIT;
                 r := deal_cards(1);
                 g := (r->>'game')::bigint;
                 SELECT concat_ws(' ', (SELECT string_agg(concat(p1_cards, p2_cards, p3_cards,
                                                                 extra_cards, leader), ';')
                                          FROM game WHERE game_id = g),
                                       (SELECT string_agg(concat(player_no, '@', rec_idx), ';')
                                          FROM bid_record WHERE game_id = g),
                                       (SELECT string_agg(body, ';') FROM note
                                         WHERE body LIKE '%#' || g))
                   INTO seen;
                 RAISE NOTICE 'try % game % saw [%]', i, g, seen;
                 IF i % 2 = 1 THEN ROLLBACK; ELSE COMMIT; END IF;
               END LOOP;
             END $$",
        )
        .unwrap();
    let seen: Vec<String> = notices.lock().unwrap().drain(..).collect();
    assert_eq!(seen.len(), 6, "{seen:#?}");
    assert!(
        seen.iter().all(|n| n.contains("saw []")),
        "a deal was seen inside the DO block: {seen:#?}"
    );
    // The three deals it kept are on the record, each with its seat 3 player.
    let kept: Vec<i64> = admin
        .query(
            "SELECT p3_id FROM game WHERE desk_id = $1 ORDER BY fair_nonce",
            &[&DESK],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(kept, [302, 304, 306]);
}

/// A role that could see a deal before it commits anyway is refused a provably fair deal (42501),
/// and nothing is dealt: BYPASSRLS skips the policies, REPLICATION streams the deal's rows from
/// the WAL, pg_read_server_files and pg_execute_server_program read the WAL and data files.
#[test]
fn a_role_that_could_see_the_deal_anyway_may_not_deal_provably_fair() {
    let db = "dealcards_fair_seers";
    let (mut admin, mut game_server, _notices) = fair_desk(db, "dealcards_fair_seers_server");
    for (role, grant) in [
        ("dealcards_fair_seer_bypass", "ALTER ROLE {role} BYPASSRLS"),
        (
            "dealcards_fair_seer_replication",
            "ALTER ROLE {role} REPLICATION",
        ),
        (
            "dealcards_fair_seer_files",
            "GRANT pg_read_server_files TO {role}",
        ),
        (
            "dealcards_fair_seer_program",
            "GRANT pg_execute_server_program TO {role}",
        ),
    ] {
        create_game_server_role(&mut admin, role);
        admin.batch_execute(&grant.replace("{role}", role)).unwrap();
        let mut seer = crate::server::connect_as(db, role);
        let err = seer
            .query_one("SELECT deal_cards($1)", &[&DESK])
            .expect_err(role);
        assert_eq!(
            err.code(),
            Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE),
            "{role}: {err}"
        );
    }
    assert_eq!(games_at_desk(&mut admin), 0);
    // The game server with exactly the documented grants deals.
    game_server
        .query_one("SELECT deal_cards($1)", &[&DESK])
        .unwrap();
    assert_eq!(games_at_desk(&mut admin), 1);
}
