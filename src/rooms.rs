//! Card rooms (docs/card_rooms.md): hands dealt in stages from a deck whose order is the seeded
//! Fisher-Yates of a key drawn from the operating system when the hand starts. The key is
//! stored where no role but the tables' owner reads it (sql/install/rooms.sql); each call
//! recomputes the order from it, replays the hand's stages and draws so far, deals the next
//! stage or draw, and writes the cards it dealt. No role but the owner sees those cards before
//! the call's transaction commits: row level security hides them from the transaction that
//! dealt them, and a session that could read them anyway is refused, as for a provably fair
//! deal (`fair_unseen`). A call returns how many cards it dealt, never which.

mod kinds;
mod pbn;
mod store;

use pgrx::prelude::*;

use crate::statements::ExtensionSchema;
use crate::{ok_or_raise, PgSqlErrorCode};
use dealcards_core::error::Error;
use dealcards_core::rng::{self, SEED_LEN};
use dealcards_core::rooms::{Action, Hand};

use kinds::{Asked, SPECS};
use store::{HandStore, StoredHand};

pgrx::extension_sql_file!(
    "../sql/install/rooms.sql",
    name = "rooms_tables",
    requires = ["fair_unseen"]
);

/// What a call dealt, in a form that shows no card: the stage dealt, the number of cards, the cards
/// left in the deck, and for a shoe whether the cut card has come out.
type Dealt = (String, i32, i32, Option<bool>);

/// The built-in kinds of hand: the name `hand_start` takes, the game, its deck and number of
/// cards, the seats allowed, its stages in order, and the options it takes.
#[allow(clippy::type_complexity)]
#[pg_extern(immutable, parallel_safe)]
fn room_kinds() -> TableIterator<
    'static,
    (
        name!(kind, String),
        name!(game, String),
        name!(deck, String),
        name!(cards, Option<i32>),
        name!(min_seats, i32),
        name!(max_seats, i32),
        name!(stages, Vec<String>),
        name!(options, String),
    ),
> {
    let rows: Vec<_> = SPECS
        .iter()
        .map(|spec| {
            let kind = ok_or_raise(kinds::build(
                spec.name,
                spec.seats.0,
                kinds::DEFAULT_SHOE_DECKS,
                1,
            ));
            let stages = kind.stages().iter().map(|s| s.name.clone()).collect();
            let game = if spec.name == "blackjack" {
                "blackjack".to_string()
            } else {
                kind.name().to_string()
            };
            let deck = if spec.name == "blackjack" {
                "shoe of 1 to 8".to_string()
            } else {
                kind.deck().name().to_string()
            };
            let cards = (spec.name != "blackjack").then(|| kind.deck().len() as i32);
            (
                spec.name.to_string(),
                game,
                deck,
                cards,
                spec.seats.0 as i32,
                spec.seats.1 as i32,
                stages,
                spec.options.to_string(),
            )
        })
        .collect();
    TableIterator::new(rows)
}

/// Starts a hand of `kind` at the game's table `table_id`: draws its key from the operating
/// system's entropy source and stores the hand and its key; returns the hand's id. Bridge takes
/// its `board` number (which gives the dealer); blackjack its `decks` and the `penetration` of
/// the shoe before the cut card.
#[allow(clippy::too_many_arguments)]
#[pg_extern(volatile, parallel_unsafe)]
fn hand_start(
    table_id: Option<i64>,
    kind: Option<&str>,
    seats: default!(Option<i32>, "NULL"),
    dealer: default!(Option<i32>, "NULL"),
    board: default!(Option<i32>, "NULL"),
    decks: default!(Option<i32>, "NULL"),
    penetration: default!(Option<f64>, "NULL"),
    fcinfo: pg_sys::FunctionCallInfo,
) -> i64 {
    let (Some(table_id), Some(kind)) = (table_id, kind) else {
        null_argument("hand_start needs a table id and a kind");
    };
    let asked = Asked {
        kind,
        seats,
        dealer,
        board,
        decks,
        penetration,
    };
    let (setup, built) = ok_or_raise(kinds::setup(&asked));
    let key = ok_or_raise(rng::os_seed());
    // The hand of this key: its dealer is checked with the kind before anything is stored.
    let hand = ok_or_raise(Hand::new(built, setup.dealer, key));
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        HandStore::new(client, &schema).start(table_id, &setup, hand.left(), &key)
    })
}

/// Deals the next stage of a hand, or the stage named, which must be the next one; a drawing
/// stage opens and deals nothing. Returns the stage and how many cards it dealt.
#[pg_extern(volatile, parallel_unsafe)]
fn hand_deal(
    hand_id: Option<i64>,
    stage: default!(Option<&str>, "NULL"),
    fcinfo: pg_sys::FunctionCallInfo,
) -> TableIterator<
    'static,
    (
        name!(dealt_stage, String),
        name!(cards, i32),
        name!(cards_left, i32),
        name!(cut_card_out, Option<bool>),
    ),
> {
    let Some(hand_id) = hand_id else {
        null_argument("hand_deal needs a hand id");
    };
    let schema = ExtensionSchema::of(fcinfo);
    let row = Spi::connect_mut(|client| {
        let mut store = HandStore::new(client, &schema);
        let stored = store.lock(hand_id);
        store.keep_unseen(hand_id);
        let mut hand = replay(&stored);
        let dealt = ok_or_raise(match stage {
            None => hand.deal_next(),
            Some(name) => hand.deal_stage(name),
        });
        let stage_no = hand.stages_dealt();
        store.record(&stored, stage_no, &dealt, &hand);
        dealing(&hand, stage_no, dealt.len())
    });
    TableIterator::once(row)
}

/// Draws `n` cards to `seat` in the hand's drawing stage that is open (a shoe's or a wall's
/// free draws, or a draw in turn). Returns the stage and how many cards were drawn.
#[pg_extern(volatile, parallel_unsafe)]
fn hand_draw(
    hand_id: Option<i64>,
    seat: Option<i32>,
    n: default!(Option<i32>, 1),
    fcinfo: pg_sys::FunctionCallInfo,
) -> TableIterator<
    'static,
    (
        name!(dealt_stage, String),
        name!(cards, i32),
        name!(cards_left, i32),
        name!(cut_card_out, Option<bool>),
    ),
> {
    let (Some(hand_id), Some(seat), Some(n)) = (hand_id, seat, n) else {
        null_argument("hand_draw needs a hand id, a seat and a number of cards");
    };
    let seat = usize::try_from(seat).unwrap_or(0);
    let count = ok_or_raise(
        usize::try_from(n).map_err(|_| Error::invalid(format!("a draw cannot take {n} cards"))),
    );
    let schema = ExtensionSchema::of(fcinfo);
    let row = Spi::connect_mut(|client| {
        let mut store = HandStore::new(client, &schema);
        let mut stored = store.lock(hand_id);
        store.keep_unseen(hand_id);
        let mut hand = replay(&stored);
        let dealt = ok_or_raise(hand.draw(seat, count));
        let stage_no = hand.stages_dealt();
        stored
            .draws
            .extend([stage_no as i32, seat as i32, count as i32]);
        store.record(&stored, stage_no, &dealt, &hand);
        dealing(&hand, stage_no, dealt.len())
    });
    TableIterator::once(row)
}

/// Ends a hand: it deals and draws nothing more.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn hand_end(hand_id: i64, fcinfo: pg_sys::FunctionCallInfo) {
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = HandStore::new(client, &schema);
        store.lock(hand_id);
        store.end(hand_id);
    });
}

/// Refuses a NULL argument (22004).
fn null_argument(message: &str) -> ! {
    pgrx::ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
        message.to_string()
    );
}

/// A call's result row.
fn dealing(hand: &Hand, stage_no: usize, cards: usize) -> Dealt {
    let stage = hand.kind().stages()[stage_no - 1].name.clone();
    let cut = hand.kind().cut().map(|_| hand.cut_card_out());
    (stage, cards as i32, hand.left() as i32, cut)
}

/// The hand as its stored row leaves it: the order of its key, its stages dealt and its draws
/// made again. A row no call could have left is reported as changed outside the functions.
fn replay(stored: &StoredHand) -> Hand {
    let broken = |what: String| -> ! {
        crate::changed_outside(
            format!(
                "hand {} {what}: its row was changed outside dealcards' functions",
                stored.hand_id
            ),
            "End the hand with hand_end and start another.",
        )
    };
    let kind = kinds::build(&stored.kind, stored.seats, stored.decks, stored.cut)
        .unwrap_or_else(|e| broken(e.message));
    let key: [u8; SEED_LEN] = stored
        .key
        .as_deref()
        .and_then(|k| k.try_into().ok())
        .unwrap_or_else(|| broken("has no key".to_string()));
    let mut hand = Hand::shuffled(kind, stored.dealer, key, &mut crate::check_for_interrupts)
        .unwrap_or_else(|e| broken(e.message));
    let draws: Vec<&[i32]> = stored.draws.chunks(3).collect();
    for stage in 1..=stored.stages_dealt {
        hand.deal_next().unwrap_or_else(|e| broken(e.message));
        let drawing = matches!(hand.kind().stages()[stage - 1].action, Action::Draw(_));
        for draw in draws
            .iter()
            .filter(|d| drawing && d.len() == 3 && d[0] == stage as i32)
        {
            let (seat, n) = (draw[1].max(0) as usize, draw[2].max(0) as usize);
            hand.draw(seat, n).unwrap_or_else(|e| broken(e.message));
        }
    }
    hand
}
