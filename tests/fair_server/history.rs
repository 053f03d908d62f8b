//! The game server cannot rewrite history, and the house cannot do it unseen: a game server's
//! role with the recommended grants is refused every change to past games, the desk's chain or
//! the client seeds; a superuser's rewrite, relinked so that the desk's own verification passes,
//! is caught by the receipts the players kept.

use std::collections::BTreeMap;

use postgres::error::SqlState;
use postgres::Client;

use crate::desks::{error_code, parse_dealt, verify_desk};
use crate::secrecy::FairDesks;
use dealcards_core::fair::{self, Recorded, Rules, CHAIN_START};

#[test]
fn the_game_server_may_not_change_a_past_game_the_chain_or_a_seed() {
    let FairDesks {
        mut game_server,
        dealt,
        ..
    } = FairDesks::new("dealcards_fair_history", "dealcards_fair_history_server");
    let game = parse_dealt(&dealt[0].1).1;
    for sql in [
        format!("UPDATE game SET p1_cards = p2_cards, p2_cards = p1_cards WHERE game_id = {game}"),
        format!("UPDATE game SET client_seeds[1] = 'x' WHERE game_id = {game}"),
        format!("UPDATE game SET p1_id = 5 WHERE game_id = {game}"),
        format!("UPDATE game SET leader = 1 WHERE game_id = {game}"),
        format!("UPDATE game SET chain_hash = sha256(chain_hash) WHERE game_id = {game}"),
        format!("UPDATE game SET fair_nonce = 7 WHERE game_id = {game}"),
        format!("DELETE FROM game WHERE game_id = {game}"),
        "TRUNCATE game".to_string(),
        "INSERT INTO game (desk_id, p1_cards, p2_cards, p3_cards, extra_cards)
         SELECT desk_id, p1_cards, p2_cards, p3_cards, extra_cards FROM game LIMIT 1"
            .to_string(),
        "UPDATE desk SET fair_chain_head = NULL WHERE desk_id = 1".to_string(),
        "UPDATE desk SET fair_nonce = 0 WHERE desk_id = 1".to_string(),
        "UPDATE desk SET fair_round = NULL, fair_commitment = NULL WHERE desk_id = 1".to_string(),
        "DELETE FROM desk WHERE desk_id = 1".to_string(),
        "UPDATE desk_player SET client_seed = 'x', seed_round = 1".to_string(),
        "INSERT INTO desk_player (desk_id, player_no, player_id, client_seed, seed_round)
         VALUES (2, 3, 99, 'x', 1)"
            .to_string(),
        "UPDATE fair_seed SET revealed_at = now()".to_string(),
    ] {
        assert_eq!(
            error_code(&mut game_server, &sql),
            SqlState::INSUFFICIENT_PRIVILEGE,
            "{sql}"
        );
    }
    // What it does need still works: the bidding after a deal, seating players.
    game_server
        .batch_execute(&format!(
            "UPDATE game SET state_no = 2, lord_no = 1 WHERE game_id = {game};
             DELETE FROM desk_player WHERE desk_id = 2 AND player_no = 3;
             INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (2, 3, 99);"
        ))
        .unwrap();
}

/// A desk's fair games as stored, in chain order: (game, commitment, nonce, players, seeds,
/// cards, leader, its round's rules).
type Stored = Vec<(
    i64,
    Vec<u8>,
    i64,
    [i64; 3],
    Vec<String>,
    [Vec<i32>; 4],
    i16,
    Rules,
)>;

/// A round's rules as stored, for protocol 3's chain.
fn rules_of(row: &postgres::Row) -> Rules {
    let house: Vec<i16> = row.get("house_seats");
    Rules {
        house: [1, 2, 3].map(|s| house.contains(&s)),
        seeds_required: row.get("seeds_required"),
        max_deals: row.get("max_deals"),
        reveal_by: row.get("reveal_by_micros"),
    }
}

fn stored(client: &mut Client, desk: i32) -> Stored {
    client
        .query(
            "SELECT g.game_id, g.fair_commitment, g.fair_nonce, g.p1_id, g.p2_id, g.p3_id,
                    g.client_seeds, g.p1_cards, g.p2_cards, g.p3_cards, g.extra_cards, g.leader,
                    s.protocol, s.house_seats, s.seeds_required, s.max_deals,
                    (extract(epoch FROM s.reveal_by) * 1000000)::int8 AS reveal_by_micros
               FROM game g JOIN fair_seed s ON s.desk_id = g.desk_id AND s.commitment = g.fair_commitment
              WHERE g.desk_id = $1 ORDER BY s.round, g.fair_nonce, g.game_id",
            &[&desk],
        )
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r.get::<_, i16>("protocol"), 3, "rounds of this release");
            (
                r.get(0),
                r.get(1),
                r.get(2),
                [r.get(3), r.get(4), r.get(5)],
                r.get(6),
                [r.get(7), r.get(8), r.get(9), r.get(10)],
                r.get(11),
                rules_of(r),
            )
        })
        .collect()
}

/// What a superuser does after rewriting games or rules: recomputes every chain hash of the desk
/// from the documented layout (protocol 3) and the desk's chain head, so that the chain links
/// again.
fn relink(client: &mut Client, desk: i32) {
    let mut previous = CHAIN_START;
    for (game, commitment, nonce, players, seeds, cards, leader, rules) in stored(client, desk) {
        let seeds: Vec<&[u8]> = seeds.iter().map(|s| s.as_bytes()).collect();
        let record = Recorded {
            desk_id: desk,
            commitment: &commitment,
            nonce,
            players: Some(players),
            rules: Some(rules),
            client_seeds: [seeds[0], seeds[1], seeds[2]],
            hands: [&cards[0], &cards[1], &cards[2], &cards[3]],
            leader,
        };
        previous = fair::chain_hash(&previous, &record).unwrap();
        client
            .execute(
                "UPDATE game SET chain_hash = $2 WHERE game_id = $1",
                &[&game, &previous.to_vec()],
            )
            .unwrap();
    }
    client
        .execute(
            "UPDATE desk SET fair_chain_head = $2 WHERE desk_id = $1",
            &[&desk, &previous.to_vec()],
        )
        .unwrap();
}

/// The games whose receipt the published data no longer matches: the game is gone, or the
/// chain hash published for it is not the one its players kept.
fn caught_by_receipts(
    client: &mut Client,
    desk: i32,
    receipts: &BTreeMap<i64, String>,
) -> Vec<i64> {
    let published: serde_json::Value = client
        .query_one("SELECT fair_publication($1)::text", &[&desk])
        .map(|r| serde_json::from_str(&r.get::<_, String>(0)).unwrap())
        .unwrap();
    let hashes: BTreeMap<i64, String> = published["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["game"].as_i64().unwrap(),
                g["chain_hash"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    receipts
        .iter()
        .filter(|(game, kept)| hashes.get(game) != Some(kept))
        .map(|(game, _)| *game)
        .collect()
}

#[test]
fn a_superusers_relinked_rewrite_passes_the_desks_check_and_is_caught_by_the_receipts() {
    let FairDesks {
        mut admin,
        mut game_server,
        receipts,
        secrets,
        ..
    } = FairDesks::new("dealcards_fair_rewrite", "dealcards_fair_rewrite_server");
    let receipts = kept_receipts(&mut game_server, &receipts);
    let games: Vec<i64> = receipts.keys().copied().collect();
    assert_eq!(games.len(), 7);
    assert!(caught_by_receipts(&mut admin, 1, &receipts).is_empty());
    let seed = secrets[0].raw.clone();
    assert!(desk_verifies(&mut admin));

    // Each rewrite as a superuser who knows the revealed seed, so that the deals still recompute,
    // then relinked: the desk's own check passes, and the receipts of the rewritten game and of
    // every later one no longer match.
    // The rules of round 1 rewritten after its deals (protocol 3 chains them): every game of
    // the round, and every later one, no longer matches its receipt.
    let rewrites = game_rewrites(&games, &seed)
        .into_iter()
        .chain(RULES_REWRITES.map(|(what, set)| {
            (
                what,
                format!("UPDATE fair_seed SET {set} WHERE desk_id = 1 AND round = 1;"),
                games.clone(),
            )
        }));
    check_rules_rewritten_unlinked_fail_the_desks_check(&mut admin);
    for (what, rewrite, expected) in rewrites {
        admin.batch_execute("BEGIN").unwrap();
        admin.batch_execute(&rewrite).unwrap();
        relink(&mut admin, 1);
        assert!(
            desk_verifies(&mut admin),
            "{what}: the desk's own check fails"
        );
        assert_eq!(
            caught_by_receipts(&mut admin, 1, &receipts),
            expected,
            "{what}"
        );
        admin.batch_execute("ROLLBACK").unwrap();
    }
    // The check can fail: without a rewrite, relinking changes nothing.
    admin.batch_execute("BEGIN").unwrap();
    relink(&mut admin, 1);
    assert!(caught_by_receipts(&mut admin, 1, &receipts).is_empty());
    admin.batch_execute("ROLLBACK").unwrap();
}

/// Desk 1's round 1 revealed (so its deals can be recomputed by anyone), and one more game
/// dealt under round 2 (so the chain goes on past the round); then the receipts desk 1's
/// players kept, game by game: what the game server relayed once each deal had committed.
fn kept_receipts(game_server: &mut Client, receipts: &[(i32, String)]) -> BTreeMap<i64, String> {
    game_server.batch_execute("SELECT fair_reveal(1)").unwrap();
    game_server
        .batch_execute("SELECT set_client_seed(1, 1, 'x'); SELECT set_client_seed(1, 2, 'y');")
        .unwrap();
    let (_, last) = crate::desks::deal_receipt(game_server, 1);
    receipts
        .iter()
        .filter(|(desk, _)| *desk == 1)
        .map(|(_, json)| json.clone())
        .chain([last])
        .map(|json| {
            let receipt: serde_json::Value = serde_json::from_str(&json).unwrap();
            (
                receipt["game"].as_i64().unwrap(),
                receipt["chain_hash"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Whether desk 1's own check passes: every row a game, none failed.
fn desk_verifies(client: &mut Client) -> bool {
    verify_desk(client, 1)
        .iter()
        .all(|r| r.0.is_some() && r.3 != Some(false))
}

/// Rewrites of desk 1's games with the revealed seed `seed`: (what, the SQL, the games whose
/// receipts no longer match).
fn game_rewrites(games: &[i64], seed: &[u8]) -> Vec<(&'static str, String, Vec<i64>)> {
    let third = games[2];
    vec![
        (
            "another client seed for seat 1 of the third game, its cards dealt anew from it",
            format!(
                "UPDATE game SET client_seeds[1] = 'forged' WHERE game_id = {third};
                 UPDATE game g SET p1_cards = f.p1_cards, p2_cards = f.p2_cards, p3_cards = f.p3_cards,
                        extra_cards = f.extra_cards, leader = f.leader
                   FROM fair_deal('\\x{}', (SELECT client_seeds FROM game WHERE game_id = {third}),
                                  (SELECT fair_nonce FROM game WHERE game_id = {third})) f
                  WHERE g.game_id = {third};",
                hex::encode(seed)
            ),
            games[2..].to_vec(),
        ),
        (
            "the third game's hands given to other players",
            format!("UPDATE game SET p1_id = p2_id, p2_id = p1_id WHERE game_id = {third};"),
            games[2..].to_vec(),
        ),
        (
            "the third game deleted, the later games of its round dealt again one nonce down",
            format!(
                "DELETE FROM game WHERE game_id = {third};
                 UPDATE game g SET fair_nonce = g.fair_nonce - 1
                  WHERE g.desk_id = 1 AND g.fair_commitment = (SELECT commitment FROM fair_seed
                        WHERE desk_id = 1 AND round = 1) AND g.game_id > {third};
                 UPDATE game g SET p1_cards = f.p1_cards, p2_cards = f.p2_cards, p3_cards = f.p3_cards,
                        extra_cards = f.extra_cards, leader = f.leader
                   FROM game h, LATERAL fair_deal('\\x{}', h.client_seeds, h.fair_nonce) f
                  WHERE g.game_id = h.game_id AND h.desk_id = 1 AND h.game_id > {third}
                    AND h.fair_commitment = (SELECT commitment FROM fair_seed WHERE desk_id = 1 AND round = 1);",
                hex::encode(seed)
            ),
            games[2..].to_vec(),
        ),
        (
            "a game forged at the end of the revealed round",
            format!(
                "INSERT INTO game (desk_id, p1_cards, p2_cards, p3_cards, extra_cards, leader,
                                   p1_id, p2_id, p3_id, fair_commitment, fair_nonce, client_seeds,
                                   dealt_at)
                 SELECT 1, f.p1_cards, f.p2_cards, f.p3_cards, f.extra_cards, f.leader,
                        g.p1_id, g.p2_id, g.p3_id, g.fair_commitment, g.fair_nonce + 1, g.client_seeds,
                        g.dealt_at
                   FROM game g, LATERAL fair_deal('\\x{}', g.client_seeds, g.fair_nonce + 1) f
                  WHERE g.game_id = {};",
                hex::encode(seed),
                games[5]
            ),
            games[6..].to_vec(),
        ),
    ]
}

/// (what, SET) of rewrites of round 1's rules.
const RULES_REWRITES: [(&str, &str); 4] = [
    ("seat 3 no longer a house seat", "house_seats = '{}'"),
    ("seeds no longer required", "seeds_required = false"),
    ("a larger bound", "max_deals = max_deals + 1"),
    (
        "a time limit added",
        "reveal_by = committed_at + interval '1 hour'",
    ),
];

/// Not relinked, the desk's own check says of every game of the round that its round's rules
/// were changed.
fn check_rules_rewritten_unlinked_fail_the_desks_check(admin: &mut Client) {
    for (what, set) in RULES_REWRITES {
        admin.batch_execute("BEGIN").unwrap();
        admin
            .batch_execute(&format!(
                "UPDATE fair_seed SET {set} WHERE desk_id = 1 AND round = 1"
            ))
            .unwrap();
        let rows = verify_desk(admin, 1);
        let round_1: Vec<_> = rows.iter().filter(|r| r.1 == Some(1)).collect();
        assert_eq!(round_1.len(), 6, "{what}");
        for row in round_1 {
            assert_eq!(row.3, Some(false), "{what}: {row:?}");
            assert!(
                row.4
                    .as_deref()
                    .unwrap()
                    .contains("its round's rules were changed"),
                "{what}: {row:?}"
            );
        }
        admin.batch_execute("ROLLBACK").unwrap();
    }
}
