//! The JSON documents of the desk tables: what deal_cards returns and notifies, the receipt of a
//! provably fair game (fair_receipt) and what the house publishes of a desk (fair_publication).
//! docs/deal_cards.md and docs/provably_fair.md describe them.
//!
//! One struct per shape, written by serde (as jsonb, [`crate::results::Built::document`], and
//! printed by jsonb_out, [`crate::results::Document::text`]), with the fields in the order the docs
//! give them; the order of a document's keys is jsonb's (shorter first). The documents the
//! statements of the desk store build (the receipt and the publication) are read back into
//! their struct, which accepts no other field and a null only where a column may hold one: a
//! stored value of another shape was written outside dealcards' functions.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::desk_store::FairRecord;

/// A deal out of provably fair mode: the desk, the new game and its first bidder. What
/// deal_cards returns and notifies.
#[derive(Debug, Serialize)]
pub struct Deal {
    pub desk: i32,
    pub game: i64,
    pub leader: u8,
}

/// A provably fair deal's receipt: the deal, the round, the nonce, its commitment, the game's
/// chain hash, and the players and client seeds (hex) of seats 1 to 3. What deal_cards notifies
/// (and returns once its rows are visible), and fair_receipt gives of the stored game, key for
/// key and value for value. A null is a column of the stored game left empty (or a round no
/// longer there): never so for a game dealt by deal_cards.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    pub desk: i32,
    pub game: i64,
    pub leader: Option<i16>,
    pub round: Option<i32>,
    pub nonce: Option<i64>,
    pub commitment: String,
    pub chain_hash: Option<String>,
    pub players: [Option<i64>; 3],
    pub client_seeds: Option<Vec<String>>,
}

/// The keys of a [`Receipt`] that depend on the shuffle: the first bidder and the chain hash.
/// What deal_cards returns of a provably fair deal while its rows are hidden until its
/// transaction commits is the receipt without them; they come with the notification or from
/// fair_receipt.
pub const SHUFFLED_KEYS: [&str; 2] = ["leader", "chain_hash"];

impl Receipt {
    /// The receipt of a deal just recorded.
    pub fn of_deal(desk: i32, game: i64, leader: u8, fair: &FairRecord) -> Receipt {
        Receipt {
            desk,
            game,
            leader: Some(leader.into()),
            round: Some(fair.round),
            nonce: Some(fair.nonce),
            commitment: lower_hex(&fair.commitment),
            chain_hash: Some(lower_hex(&fair.chain_hash)),
            players: fair.players.map(Some),
            client_seeds: Some(fair.client_seeds.iter().map(|s| lower_hex(s)).collect()),
        }
    }
}

/// Bytes in lower-case hex, two digits a byte (what `hex::encode` gives, with one allocation
/// and no per-character formatting).
fn lower_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        text.push(char::from(DIGITS[usize::from(b >> 4)]));
        text.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    text
}

/// What the house publishes of a desk: its chain head, its rounds in order and its provably
/// fair games in chain order (hex for bytes).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Publication {
    pub desk: i32,
    pub chain_head: Option<String>,
    pub rounds: Vec<PublishedRound>,
    pub games: Vec<PublishedGame>,
}

/// A round of a desk with its rules, its bound (null on the tables of releases before 0.7.0)
/// and, once its reveal has committed, its server seed. Times as jsonb gives a timestamptz.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedRound {
    pub round: i32,
    pub commitment: String,
    pub server_seed: Option<String>,
    pub protocol: Option<i16>,
    pub house_seats: Option<Vec<Option<i16>>>,
    pub seeds_required: Option<bool>,
    pub max_deals: Option<i64>,
    pub reveal_by: Option<String>,
    pub committed_at: Option<String>,
    pub revealed_at: Option<String>,
}

/// A provably fair game of a desk: its receipt's fields with its cards (seats 1 to 3, then
/// the three extra cards) and the time it was dealt.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedGame {
    pub game: i64,
    pub round: Option<i32>,
    pub nonce: Option<i64>,
    pub commitment: String,
    pub players: [Option<i64>; 3],
    pub client_seeds: Option<Vec<String>>,
    pub cards: [Vec<i32>; 4],
    pub leader: Option<i16>,
    pub chain_hash: Option<String>,
    pub dealt_at: String,
}

/// A document a statement built, read into its struct; the error says which field is not of
/// the document's shape and why (serde names it).
pub fn read<T: for<'de> Deserialize<'de>>(value: Value, name: &str) -> Result<T, String> {
    if !value.is_object() {
        return Err(format!("the {name} is not a JSON object"));
    }
    T::deserialize(value).map_err(|e| format!("the {name} is not one dealcards writes: {e}"))
}

#[cfg(any(test, feature = "pg_test"))]
#[pgrx::pg_schema]
mod tests {
    use super::*;
    use crate::results::{jsonb_text, Document};
    use pgrx::prelude::*;

    fn receipt() -> Receipt {
        Receipt {
            desk: 7,
            game: 12,
            leader: Some(2),
            round: Some(1),
            nonce: Some(0),
            commitment: "ab".into(),
            chain_hash: Some("cd".into()),
            players: [Some(10), Some(11), Some(12)],
            client_seeds: Some(vec!["".into(), "41".into(), "4243".into()]),
        }
    }

    #[pg_test]
    fn a_receipt_prints_as_jsonb_and_reads_back() {
        let text = jsonb_text(&receipt());
        assert_eq!(
            text,
            r#"{"desk": 7, "game": 12, "nonce": 0, "round": 1, "leader": 2, "players": [10, 11, 12], "chain_hash": "cd", "commitment": "ab", "client_seeds": ["", "41", "4243"]}"#
        );
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(read::<Receipt>(value, "receipt").unwrap(), receipt());
    }

    fn record() -> FairRecord {
        FairRecord {
            round: 1,
            commitment: [0xab; 32],
            nonce: 0,
            players: [10, 11, 12],
            client_seeds: vec![vec![], b"A".to_vec(), b"BC".to_vec()],
            chain_hash: [0xcd; 32],
        }
    }

    /// A deal's documents print as deal_cards prints them (docs/deal_cards.md and
    /// docs/provably_fair.md show them).
    #[pg_test]
    fn a_deal_prints_as_deal_cards_prints_it() {
        let deal = Deal {
            desk: 7,
            game: 12,
            leader: 2,
        };
        assert_eq!(jsonb_text(&deal), r#"{"desk": 7, "game": 12, "leader": 2}"#);
        let (ab, cd) = ("ab".repeat(32), "cd".repeat(32));
        assert_eq!(
            Document::of(&Receipt::of_deal(7, 12, 2, &record()))
                .without(&SHUFFLED_KEYS)
                .text(),
            format!(
                r#"{{"desk": 7, "game": 12, "nonce": 0, "round": 1, "players": [10, 11, 12], "commitment": "{ab}", "client_seeds": ["", "41", "4243"]}}"#
            )
        );
        assert_eq!(
            Receipt::of_deal(7, 12, 2, &record()),
            Receipt {
                commitment: ab,
                chain_hash: Some(cd),
                ..receipt()
            }
        );
    }

    #[test]
    fn a_receipt_of_another_shape_is_refused_with_the_field_named() {
        let mut value = serde_json::to_value(receipt()).unwrap();
        value["extra"] = Value::from(1);
        let why = read::<Receipt>(value, "receipt").unwrap_err();
        assert!(why.contains("unknown field `extra`"), "{why}");
        let mut value = serde_json::to_value(receipt()).unwrap();
        value.as_object_mut().unwrap().remove("commitment");
        let why = read::<Receipt>(value, "receipt").unwrap_err();
        assert!(why.contains("missing field `commitment`"), "{why}");
        let mut value = serde_json::to_value(receipt()).unwrap();
        value["players"] = Value::from(vec![1, 2]);
        assert!(read::<Receipt>(value, "receipt").is_err());
        let why = read::<Receipt>(Value::from(vec![1]), "receipt").unwrap_err();
        assert_eq!(why, "the receipt is not a JSON object");
    }

    #[pg_test]
    fn nulls_of_empty_columns_stay_nulls() {
        let stored = Receipt {
            leader: None,
            round: None,
            nonce: None,
            players: [None, Some(3), None],
            client_seeds: None,
            chain_hash: None,
            ..receipt()
        };
        let text = jsonb_text(&stored);
        assert_eq!(
            text,
            r#"{"desk": 7, "game": 12, "nonce": null, "round": null, "leader": null, "players": [null, 3, null], "chain_hash": null, "commitment": "ab", "client_seeds": null}"#
        );
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(read::<Receipt>(value, "receipt").unwrap(), stored);
    }
}
