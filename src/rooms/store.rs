//! Every statement on the hand tables (room_hand, room_card, room_hand_key), run as the
//! tables' owner once the caller is found to hold UPDATE on room_hand (on one column at least),
//! the way a SECURITY DEFINER function would: a game server's role starts, deals and ends hands
//! through the functions alone, and never reads a key.

use pgrx::pg_sys;
use pgrx::spi::{SpiClient, SpiTupleTable};

use crate::desk_store::{as_user, keep_deal_unseen, may_lock_rows};
use crate::statements::{self, Columns, ExtensionSchema};
use crate::PgSqlErrorCode;
use dealcards_core::rooms::{Dealt, Destination, Hand};

use super::kinds::Setup;

mod sql {
    macro_rules! statement {
        ($name:ident, $file:literal) => {
            pub const $name: &str = include_str!($file);
        };
    }
    statement!(START_HAND, "start_hand.sql");
    statement!(LOCK_HAND, "lock_hand.sql");
    statement!(RECORD_CARDS, "record_cards.sql");
    statement!(MOVE_HAND, "move_hand.sql");
    statement!(END_HAND, "end_hand.sql");
}

/// A hand as its locked row holds it.
pub struct StoredHand {
    pub hand_id: i64,
    pub kind: String,
    pub seats: usize,
    pub dealer: usize,
    pub decks: usize,
    pub cut: usize,
    pub stages_dealt: usize,
    pub cards_dealt: i32,
    /// (stage number, seat, cards) of each draw, in the order made.
    pub draws: Vec<i32>,
    pub key: Option<Vec<u8>>,
}

/// The hand tables of one schema, through one SPI connection, as their owner.
pub struct HandStore<'a, 'conn> {
    client: &'a mut SpiClient<'conn>,
    schema: &'a ExtensionSchema,
    owner: pg_sys::Oid,
    caller: pg_sys::Oid,
}

impl<'a, 'conn> HandStore<'a, 'conn> {
    /// Refuses a hot standby (25006) and a caller without UPDATE on room_hand (42501); the
    /// statements from then on run as the tables' owner.
    pub fn new(client: &'a mut SpiClient<'conn>, schema: &'a ExtensionSchema) -> Self {
        crate::refuse_on_standby("deal a hand");
        let hands = schema
            .relation(c"room_hand")
            .unwrap_or_else(|| pgrx::error!("dealcards cannot find its room_hand table"));
        if !may_lock_rows(hands) {
            pgrx::ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
                "permission denied for table room_hand",
                "The hand functions lock the hand's row: they need UPDATE on room_hand, on one column at least (GRANT UPDATE (table_id) ON room_hand is enough)."
            );
        }
        let owner = statements::relation_owner(hands)
            .unwrap_or_else(|| pgrx::error!("dealcards cannot find its room_hand table"));
        // SAFETY: reads the current user id.
        let caller = unsafe { pg_sys::GetUserId() };
        HandStore {
            client,
            schema,
            owner,
            caller,
        }
    }

    fn run(
        &mut self,
        sql: &'static str,
        args: &[pgrx::datum::DatumWithOid],
    ) -> SpiTupleTable<'conn> {
        let (client, schema) = (&mut *self.client, self.schema);
        as_user(self.owner, || statements::run(client, schema, sql, args))
    }

    /// Stores a new hand and its key; returns its id.
    pub fn start(&mut self, table_id: i64, setup: &Setup, cards: usize, key: &[u8]) -> i64 {
        let args = [
            table_id.into(),
            setup.kind.clone().into(),
            (setup.seats as i16).into(),
            (setup.dealer as i16).into(),
            setup.board.map(|b| b as i32).into(),
            setup.decks.map(|d| d as i16).into(),
            setup.cut.map(|c| c as i32).into(),
            (cards as i32).into(),
            key.to_vec().into(),
        ];
        self.run(sql::START_HAND, &args)
            .first()
            .required::<i64>("hand_id")
    }

    /// Locks a hand's row and reads it with its key. Refuses a hand that does not exist
    /// (P0002) and one that has ended (55000).
    pub fn lock(&mut self, hand_id: i64) -> StoredHand {
        let found = self.run(sql::LOCK_HAND, &[hand_id.into()]);
        if found.is_empty() {
            no_such_hand(hand_id);
        }
        let row = found.first();
        if row.required::<bool>("ended") {
            pgrx::ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                format!("hand {hand_id} has ended")
            );
        }
        let small = |name: &str| row.required::<i16>(name).max(0) as usize;
        StoredHand {
            hand_id,
            kind: row.required("kind"),
            seats: small("seats"),
            dealer: small("dealer"),
            decks: row.value::<i16>("decks").unwrap_or(1).max(0) as usize,
            cut: row.value::<i32>("cut_card").unwrap_or(1).max(0) as usize,
            stages_dealt: small("stages_dealt"),
            cards_dealt: row.required("cards_dealt"),
            draws: row.required("draws"),
            key: row.value("key"),
        }
    }

    /// Keeps what this call deals unseen by the caller until it commits: refuses (42501) a
    /// session that could see it (as a provably fair deal's, [`keep_deal_unseen`]).
    pub fn keep_unseen(&self, hand_id: i64) {
        let cards = self.schema.relation(c"room_card").into_iter().collect();
        keep_deal_unseen(
            &*self.client,
            self.schema,
            (self.caller, self.owner),
            cards,
            |role, what| refuse_seer(hand_id, role, what),
        );
    }

    /// Records what a call dealt in stage `stage_no` of a locked hand, and where the hand is
    /// now: `hand` after the call, with `draws` made.
    pub fn record(&mut self, stored: &StoredHand, stage_no: usize, dealt: &[Dealt], hand: &Hand) {
        let stage = hand.kind().stages()[stage_no - 1].name.clone();
        let mut seats = Vec::with_capacity(dealt.len());
        let mut piles = Vec::with_capacity(dealt.len());
        for d in dealt {
            match d.to {
                Destination::Seat(seat) => {
                    seats.push(seat as i16);
                    piles.push(String::new());
                }
                Destination::Pile(pile) => {
                    seats.push(0i16);
                    piles.push(pile.name().to_string());
                }
            }
        }
        let args = [
            stored.hand_id.into(),
            stored.cards_dealt.into(),
            (stage_no as i16).into(),
            stage.clone().into(),
            seats.into(),
            piles.into(),
            dealt.iter().map(|d| d.up).collect::<Vec<bool>>().into(),
            dealt
                .iter()
                .map(|d| d.position as i32)
                .collect::<Vec<i32>>()
                .into(),
            dealt
                .iter()
                .map(|d| d.card as i32)
                .collect::<Vec<i32>>()
                .into(),
            dealt
                .iter()
                .map(|d| hand.label(d).to_string())
                .collect::<Vec<String>>()
                .into(),
        ];
        if !dealt.is_empty() {
            self.run(sql::RECORD_CARDS, &args);
        }
        let last = hand.kind().stages()[hand.stages_dealt() - 1].name.clone();
        self.run(
            sql::MOVE_HAND,
            &[
                stored.hand_id.into(),
                (hand.stages_dealt() as i16).into(),
                last.into(),
                (stored.cards_dealt + dealt.len() as i32).into(),
                (hand.left() as i32).into(),
                stored.draws.clone().into(),
            ],
        );
    }

    /// Ends a locked hand.
    pub fn end(&mut self, hand_id: i64) {
        self.run(sql::END_HAND, &[hand_id.into()]);
    }
}

/// Refuses (42501) a hand's deal to a session that can act as `role`, which has `what`.
/// Refuses (P0002) a call on a hand that does not exist.
pub fn no_such_hand(hand_id: i64) -> ! {
    pgrx::ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_NO_DATA_FOUND,
        format!("hand {hand_id} does not exist")
    );
}

fn refuse_seer(hand_id: i64, role: &str, what: &str) {
    pgrx::ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
        format!("hand {hand_id} is dealt unseen until its transaction commits, and this session can act as role \"{role}\", which has {what}: it could see the cards before they commit"),
        "A session that deals a hand must not be able to act as a role with BYPASSRLS or REPLICATION (or CREATEROLE before PostgreSQL 16), nor as pg_read_server_files or pg_execute_server_program, by inheritance or SET ROLE; or it deals as the extension's owner."
    );
}
