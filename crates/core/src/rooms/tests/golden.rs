//! The staged deals of tests/reference/seeded_rooms.py, an implementation of docs/card_rooms.md
//! that shares no code with this crate (on top of seeded_shuffle.py's ChaCha20 and Fisher-Yates).

use super::*;
use crate::rooms::bridge::{pbn_deal, Board};
use crate::rooms::kinds::{self, DORA_INDICATORS};

const GOLDEN: &str = include_str!("../../../../../tests/reference/rooms_golden.json");

/// tests/reference/rooms_golden.json, as seeded_rooms.py writes it: any other field is refused,
/// so that none goes unchecked.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Golden {
    #[allow(dead_code)]
    about: String,
    hands: Vec<GoldenHand>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct GoldenHand {
    name: String,
    kind: String,
    key: String,
    seats: usize,
    dealer: usize,
    order: Vec<String>,
    stages: Vec<GoldenStage>,
    board: Option<u32>,
    vulnerable: Option<String>,
    pbn: Option<String>,
    dora_indicator: Option<String>,
    draws: Option<Vec<usize>>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct GoldenStage {
    name: String,
    cards: Vec<(String, String, bool)>,
}

fn kind_of(golden: &GoldenHand) -> Kind {
    match golden.kind.as_str() {
        "holdem" => kinds::holdem(golden.seats).unwrap(),
        "bridge" => kinds::bridge(),
        "riichi" => kinds::riichi(false),
        "riichi red fives" => kinds::riichi(true),
        other => panic!("no kind {other}"),
    }
}

fn written(hand: &Hand, dealt: &[Dealt]) -> Vec<(String, String, bool)> {
    dealt
        .iter()
        .map(|d| {
            let to = match d.to {
                Destination::Seat(seat) => format!("seat {seat}"),
                Destination::Pile(pile) => pile.name().to_string(),
            };
            (to, hand.label(d).to_string(), d.up)
        })
        .collect()
}

/// Deals a golden hand's stages; a drawing stage's cards are its draws, one card to each seat
/// listed.
fn deal_golden(golden: &GoldenHand) -> (Hand, Vec<Dealt>) {
    let key: [u8; 32] = hex::decode(&golden.key).unwrap().try_into().unwrap();
    let mut hand = Hand::new(kind_of(golden), golden.dealer, key).unwrap();
    let mut all = Vec::new();
    for stage in &golden.stages {
        let mut dealt = hand.deal_stage(&stage.name).unwrap();
        if dealt.is_empty() {
            for &seat in golden.draws.as_ref().unwrap() {
                dealt.extend(hand.draw(seat, 1).unwrap());
            }
        }
        assert_eq!(
            written(&hand, &dealt),
            stage.cards,
            "{}: stage {}",
            golden.name,
            stage.name
        );
        all.extend(dealt);
    }
    assert!(hand.next_stage().is_none(), "{}: a stage left", golden.name);
    (hand, all)
}

#[test]
fn staged_deals_match_the_independent_reference() {
    let golden: Golden = serde_json::from_str(GOLDEN).unwrap();
    let mut kinds_seen: Vec<&str> = golden.hands.iter().map(|h| h.kind.as_str()).collect();
    kinds_seen.dedup();
    assert_eq!(
        kinds_seen,
        ["holdem", "bridge", "riichi", "riichi red fives"]
    );
    for case in &golden.hands {
        let (hand, dealt) = deal_golden(case);
        let order: Vec<&str> = hand
            .order()
            .iter()
            .map(|&c| hand.kind().deck().labels()[c].as_str())
            .collect();
        assert_eq!(order, case.order, "{}: the deck's order", case.name);
        if let Some(number) = case.board {
            let board = Board::new(number).unwrap();
            assert_eq!(board.dealer, case.dealer, "{}", case.name);
            assert_eq!(
                Some(board.vulnerability.pbn()),
                case.vulnerable.as_deref(),
                "{}",
                case.name
            );
            assert_eq!(
                Some(pbn_deal(&dealt, board.dealer)),
                case.pbn,
                "{}",
                case.name
            );
        }
        if let Some(dora) = &case.dora_indicator {
            let dead = &case.stages[0].cards;
            assert_eq!(&dead[DORA_INDICATORS[0]].1, dora, "{}", case.name);
        }
    }
}

#[test]
fn the_reference_would_catch_another_key() {
    // Negative control: the same golden hand dealt from a neighbouring key differs from it.
    let golden: Golden = serde_json::from_str(GOLDEN).unwrap();
    let case = &golden.hands[0];
    let mut key: [u8; 32] = hex::decode(&case.key).unwrap().try_into().unwrap();
    key[31] ^= 1;
    let mut hand = Hand::new(kind_of(case), case.dealer, key).unwrap();
    let dealt = hand.deal_stage(&case.stages[0].name).unwrap();
    assert_ne!(written(&hand, &dealt), case.stages[0].cards);
}
