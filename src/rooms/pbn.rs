//! A bridge board as PBN (Portable Bridge Notation): the tags a bridge program reads a board
//! from, written from the cards the caller sees in `room_card`.

use pgrx::prelude::*;

use crate::statements::{self, Columns, ExtensionSchema};
use crate::PgSqlErrorCode;
use dealcards_core::rooms::bridge::{pbn_deal, Board, SEATS};
use dealcards_core::rooms::{Dealt, Destination};

/// The hand and its cards as dealt, read with the caller's rights: row level security leaves
/// out the cards of a deal that has not committed, as for every read of room_card.
const HAND_CARDS: &str = "SELECT h.kind, h.board, h.dealer, \
        COALESCE(d.cards, '{}') AS cards, COALESCE(d.seats, '{}') AS seats \
   FROM @extschema@.room_hand h, \
        LATERAL (SELECT pg_catalog.array_agg(c.card ORDER BY c.dealt_no) AS cards, \
                        pg_catalog.array_agg(c.seat ORDER BY c.dealt_no) AS seats \
                   FROM @extschema@.room_card c \
                  WHERE c.hand_id OPERATOR(pg_catalog.=) $1 AND c.seat IS NOT NULL) d \
  WHERE h.hand_id OPERATOR(pg_catalog.=) $1";

/// A dealt bridge hand as the tags of a PBN game: `[Board "n"]`, `[Dealer "N"]`,
/// `[Vulnerable "None"]` (NS, EW, All) and `[Deal "N:..."]`, one a line. The hand must be
/// a bridge hand whose 52 cards the caller sees dealt (a deal whose transaction has not
/// committed shows none).
#[pg_extern(stable, strict, parallel_unsafe)]
fn hand_pbn(hand_id: i64, fcinfo: pg_sys::FunctionCallInfo) -> String {
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect(|client| {
        let table = statements::read(client, &schema, HAND_CARDS, &[hand_id.into()]);
        if table.is_empty() {
            super::store::no_such_hand(hand_id);
        }
        let row = table.first();
        let kind: String = row.required("kind");
        if kind != "bridge" {
            pgrx::ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!("hand {hand_id} is a hand of {kind}: PBN writes bridge boards only")
            );
        }
        let cards: Vec<i32> = row.required("cards");
        let seats: Vec<i16> = row.required("seats");
        if cards.len() != 52 || seats.len() != 52 {
            pgrx::ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                format!(
                    "hand {hand_id} shows {} of its 52 cards dealt",
                    cards.len().min(seats.len())
                ),
                "A board is written once its deal has committed: SELECT hand_deal(hand_id) first, in a transaction of its own."
            );
        }
        let number: Option<i32> = row.value("board");
        let dealer: i16 = row.required("dealer");
        let board = number
            .and_then(|n| u32::try_from(n).ok())
            .and_then(|n| Board::new(n).ok())
            .filter(|b| b.dealer == dealer as usize)
            .unwrap_or_else(|| {
                broken(
                    hand_id,
                    format!("has board {number:?} and dealer {dealer}, which no board has"),
                )
            });
        check_cards(hand_id, &cards, &seats);
        let dealt: Vec<Dealt> = cards
            .iter()
            .zip(&seats)
            .enumerate()
            .map(|(position, (&card, &seat))| Dealt {
                position,
                card: card as usize,
                to: Destination::Seat(seat as usize),
                up: false,
            })
            .collect();
        format!(
            "[Board \"{}\"]\n[Dealer \"{}\"]\n[Vulnerable \"{}\"]\n[Deal \"{}\"]",
            board.number,
            SEATS[board.dealer - 1],
            board.vulnerability.pbn(),
            pbn_deal(&dealt, board.dealer)
        )
    })
}

/// The 52 cards, each once, 13 to each of the four seats; anything else was written outside the
/// functions.
fn check_cards(hand_id: i64, cards: &[i32], seats: &[i16]) {
    let mut seen = [false; 52];
    let mut held = [0; 4];
    for (&card, &seat) in cards.iter().zip(seats) {
        let (Ok(index), Ok(place)) = (usize::try_from(card), usize::try_from(seat)) else {
            broken(hand_id, format!("has card {card} at seat {seat}"));
        };
        if index >= 52 || seen[index] || !(1..=4).contains(&place) || held[place - 1] == 13 {
            broken(
                hand_id,
                format!("has card {card} at seat {seat} again or out of place"),
            );
        }
        seen[index] = true;
        held[place - 1] += 1;
    }
}

fn broken(hand_id: i64, what: String) -> ! {
    crate::changed_outside(
        format!("hand {hand_id} {what}: its rows were changed outside dealcards' functions"),
        "End the hand with hand_end and start another.",
    )
}
