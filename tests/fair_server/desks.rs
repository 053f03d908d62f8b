//! Fair desks of the tests: a database with the extension, seated desks, deals and their
//! verification.

use postgres::error::SqlState;
use postgres::Client;

use crate::server;

/// A fresh database with the extension, and a superuser's connection to it.
pub fn database_with_extension(db: &str) -> Client {
    let mut admin = server::fresh_database(db);
    admin.batch_execute("CREATE EXTENSION dealcards").unwrap();
    admin
}

/// Sets the client seed of each seat in `seeds` (seat, seed) at a desk, each in its own
/// transaction: a provably fair deal uses seeds committed before it.
pub fn set_seeds(client: &mut Client, desk: i32, seeds: &[(i32, &str)]) {
    for &(seat, seed) in seeds {
        client
            .execute("SELECT set_client_seed($1, $2, $3)", &[&desk, &seat, &seed])
            .unwrap_or_else(|e| panic!("set_client_seed({desk}, {seat}, {seed:?}): {e}"));
    }
}

/// Puts a desk in provably fair mode with no seeds required (its players may set none), and
/// returns the commitment.
pub fn mode_on_without_seeds(client: &mut Client, desk: i32) -> Vec<u8> {
    client
        .query_one("SELECT fair_mode_on($1, seeds_required => false)", &[&desk])
        .unwrap()
        .get(0)
}

/// The server seed of a desk's round as the fair_commitment view shows it (none before its
/// reveal has committed).
pub fn shown_seed(client: &mut Client, desk: i32, round: i32) -> Option<Vec<u8>> {
    client
        .query_one(
            "SELECT server_seed FROM fair_commitment WHERE desk_id = $1 AND round = $2",
            &[&desk, &round],
        )
        .unwrap()
        .get(0)
}

/// Seats players desk * 10 + seat in `seats` of a new desk.
pub fn seat(client: &mut Client, desk: i32, seats: &[i16]) {
    client
        .execute("INSERT INTO desk (desk_id) VALUES ($1)", &[&desk])
        .unwrap();
    for &seat in seats {
        client
            .execute(
                "INSERT INTO desk_player (desk_id, player_no, player_id) VALUES ($1, $2, $3)",
                &[&desk, &seat, &(desk as i64 * 10 + seat as i64)],
            )
            .unwrap();
    }
}

/// The fields of what deal_cards returns at a fair desk: what does not depend on the shuffle.
pub const DEALT_KEYS: [&str; 7] = [
    "client_seeds",
    "commitment",
    "desk",
    "game",
    "nonce",
    "players",
    "round",
];

/// The fields of a fair deal's receipt: the notification's, and fair_receipt's.
pub const RECEIPT_KEYS: [&str; 9] = [
    "chain_hash",
    "client_seeds",
    "commitment",
    "desk",
    "game",
    "leader",
    "nonce",
    "players",
    "round",
];

/// (desk, game, commitment hex, nonce) of a JSON object, after checking it has exactly `keys`.
fn parse_with(json: &str, keys: &[&str]) -> (i32, i64, String, i64) {
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut found: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    found.sort();
    assert_eq!(found, keys, "{json}");
    (
        value["desk"].as_i64().unwrap() as i32,
        value["game"].as_i64().unwrap(),
        value["commitment"].as_str().unwrap().to_string(),
        value["nonce"].as_i64().unwrap(),
    )
}

/// What deal_cards returned at a fair desk: (desk, game, commitment hex, nonce), after checking
/// it has exactly the fields that do not depend on the shuffle.
pub fn parse_dealt(json: &str) -> (i32, i64, String, i64) {
    parse_with(json, &DEALT_KEYS)
}

/// A fair deal's receipt (its notification, or fair_receipt's): (desk, game, commitment hex,
/// nonce), after checking it has exactly the receipt's fields.
pub fn parse_receipt(json: &str) -> (i32, i64, String, i64) {
    parse_with(json, &RECEIPT_KEYS)
}

/// What deal_cards returns, as text.
pub fn deal(client: &mut Client, desk: i32) -> String {
    client
        .query_one("SELECT deal_cards($1)::text", &[&desk])
        .unwrap_or_else(|e| panic!("deal_cards({desk}): {e}"))
        .get(0)
}

/// A stored fair game's receipt, as text.
pub fn receipt(client: &mut Client, game: i64) -> String {
    client
        .query_one("SELECT fair_receipt($1)::text", &[&game])
        .unwrap_or_else(|e| panic!("fair_receipt({game}): {e}"))
        .get(0)
}

/// Deals at a fair desk in a transaction of its own, then reads the receipt of the committed
/// deal, as a game server relays it: (what deal_cards returned, the receipt).
pub fn deal_receipt(client: &mut Client, desk: i32) -> (String, String) {
    let dealt = deal(client, desk);
    let (_, game, ..) = parse_dealt(&dealt);
    let kept = receipt(client, game);
    parse_receipt(&kept);
    assert_eq!(
        without_shuffled(&kept),
        dealt,
        "the receipt adds to the result"
    );
    (dealt, kept)
}

/// A receipt without its first bidder and chain hash, as jsonb prints it: what deal_cards
/// returned.
pub fn without_shuffled(receipt: &str) -> String {
    let mut value: serde_json::Value = serde_json::from_str(receipt).unwrap();
    let object = value.as_object_mut().unwrap();
    object.remove("leader");
    object.remove("chain_hash");
    jsonb_text(&value)
}

/// A JSON value as jsonb prints it: object keys shorter first, then byte by byte; `", "`
/// between items and `": "` after keys.
pub fn jsonb_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Array(items) => {
            let items: Vec<String> = items.iter().map(jsonb_text).collect();
            format!("[{}]", items.join(", "))
        }
        serde_json::Value::Object(fields) => {
            let mut fields: Vec<(&String, &serde_json::Value)> = fields.iter().collect();
            fields.sort_by(|a, b| (a.0.len(), a.0).cmp(&(b.0.len(), b.0)));
            let fields: Vec<String> = fields
                .into_iter()
                .map(|(k, v)| format!("{}: {}", serde_json::Value::from(k.as_str()), jsonb_text(v)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        other => other.to_string(),
    }
}

/// Cards and first bidder: p1, p2, p3, extra, leader.
pub type Cards = (Vec<i32>, Vec<i32>, Vec<i32>, Vec<i32>, i16);

pub fn fair_deal(client: &mut Client, seed: &[u8], seeds: &[String], nonce: i64) -> Cards {
    let row = client
        .query_one(
            "SELECT p1_cards, p2_cards, p3_cards, extra_cards, leader FROM fair_deal($1, $2, $3)",
            &[&seed, &seeds, &nonce],
        )
        .unwrap();
    (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4))
}

/// A desk's verification: (game_id, round, nonce, verified, problem) in chain order.
pub type Verified = Vec<(
    Option<i64>,
    Option<i32>,
    Option<i64>,
    Option<bool>,
    Option<String>,
)>;

pub fn verify_desk(client: &mut Client, desk: i32) -> Verified {
    client
        .query(
            "SELECT game_id, round, nonce, verified, problem FROM fair_verify_desk($1)",
            &[&desk],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect()
}

/// Asserts every row of a desk's verification is a game verified true with no problem, and
/// returns the game ids in chain order.
pub fn all_verified(client: &mut Client, desk: i32) -> Vec<i64> {
    let rows = verify_desk(client, desk);
    for row in &rows {
        assert!(
            row.0.is_some() && row.3 == Some(true) && row.4.is_none(),
            "desk {desk}: not verified: {row:?}"
        );
    }
    rows.iter().map(|r| r.0.unwrap()).collect()
}

/// Asserts every row of a desk's verification is a game, verified true or, under a commitment
/// not revealed yet, linked and waiting for the reveal; returns the game ids in chain order.
pub fn all_verified_or_pending(client: &mut Client, desk: i32) -> Vec<i64> {
    let rows = verify_desk(client, desk);
    for row in &rows {
        let pending = row.3.is_none()
            && row.4.as_deref() == Some("the server seed of its commitment is not revealed yet");
        assert!(
            row.0.is_some() && (pending || (row.3 == Some(true) && row.4.is_none())),
            "desk {desk}: neither verified nor pending: {row:?}"
        );
    }
    rows.iter().map(|r| r.0.unwrap()).collect()
}

/// The SQLSTATE of a statement that must fail.
pub fn error_code(client: &mut Client, sql: &str) -> SqlState {
    let err = client
        .batch_execute(sql)
        .expect_err(&format!("{sql} succeeded"));
    err.code()
        .unwrap_or_else(|| panic!("{sql}: not a server error: {err}"))
        .clone()
}

/// Every stored game of a desk under `commitment`, as (game_id, client seeds, nonce, cards).
pub fn games_under(
    client: &mut Client,
    desk: i32,
    commitment: &[u8],
) -> Vec<(i64, Vec<String>, i64, Cards)> {
    client
        .query(
            "SELECT game_id, client_seeds, fair_nonce, p1_cards, p2_cards, p3_cards, extra_cards, leader
               FROM game WHERE desk_id = $1 AND fair_commitment = $2 ORDER BY fair_nonce",
            &[&desk, &commitment],
        )
        .unwrap()
        .iter()
        .map(|r| {
            (
                r.get(0),
                r.get(1),
                r.get(2),
                (r.get(3), r.get(4), r.get(5), r.get(6), r.get(7)),
            )
        })
        .collect()
}

/// Asserts every game of a desk under `commitment` is `fair_deal(seed, its client seeds, its
/// nonce)`, `count` of them with nonces 0..count, computed through `client`.
pub fn assert_games_recompute(
    client: &mut Client,
    desk: i32,
    commitment: &[u8],
    seed: &[u8],
    count: usize,
) {
    let games = games_under(client, desk, commitment);
    assert_eq!(
        games.len(),
        count,
        "games of desk {desk} under its commitment"
    );
    for (i, (game, seeds, nonce, cards)) in games.into_iter().enumerate() {
        assert_eq!(nonce, i as i64, "game {game}");
        assert_eq!(
            fair_deal(client, seed, &seeds, nonce),
            cards,
            "game {game} is not fair_deal(its revealed seed, {seeds:?}, {nonce})"
        );
    }
}
