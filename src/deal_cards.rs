//! SQL functions for dealing (docs/deal_cards.md): deal_cards and its tables, card labels,
//! deal_hands. Every statement on the desk tables is the store's ([`crate::desk_store`]).

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::prelude::*;
use pgrx::{pg_sys, IntoDatum, JsonB};

use crate::desk_store::{DeskStore, FairRecord, FairState, Seats};
use crate::documents;
use crate::provably_fair;
use crate::results::{Built, Document, IntArray};
use crate::statements::ExtensionSchema;
use crate::{check_for_interrupts, ok_or_raise};
use dealcards_core::cards::{self, Hand};
use dealcards_core::deal::{self, DealSizes, DouDizhuDeal};
use dealcards_core::error::Error;

extension_sql_file!("../sql/install/dealing.sql", name = "dealing_tables");

/// A hand given as int[], counted (NULL elements are not cards), with interrupt checks: the
/// array may hold up to 134,217,727 cards.
fn hand(cards: Array<'_, i32>) -> Hand {
    let cards = cards.iter().enumerate().map(|(i, card)| {
        card.ok_or_else(|| {
            Error::invalid(format!(
                "a hand cannot hold NULL (element {} is NULL): every card is 1 to 54",
                i + 1
            ))
        })
    });
    ok_or_raise(Hand::count(cards, &mut check_for_interrupts))
}

/// A short readable label for a card 1..54: `A♣` .. `K♠` (`AC` .. `KS` in a database that is
/// not UTF8), `BJ` (small joker), `RJ` (big joker).
#[pg_extern(immutable, strict, parallel_safe)]
fn card_label(card: i32) -> String {
    ok_or_raise(cards::label(card, crate::database_suits()))
}

/// The hand in Dou Dizhu order, lowest first: 3 .. K A 2, small joker, big joker. Built in
/// place from the counts of each card: linear in the hand's length, and cancellable.
#[pg_extern(immutable, strict, parallel_safe)]
fn sort_hand(cards: Array<'_, i32>) -> IntArray<i32> {
    let hand = hand(cards);
    ok_or_raise(IntArray::build(hand.len(), |out| {
        hand.write_sorted(out, &mut check_for_interrupts)
    }))
}

/// The hand in Dou Dizhu order as one line of labels.
#[pg_extern(immutable, strict, parallel_safe)]
fn hand_labels(cards: Array<'_, i32>) -> Built<String> {
    let hand = hand(cards);
    let suits = crate::database_suits();
    ok_or_raise(Built::<String>::text(hand.labels_len(suits), |out| {
        hand.write_labels(suits, out, &mut check_for_interrupts)
    }))
}

/// A fair deal without any table: `hand_size` cards of a shuffled 1..deck_size to each seat
/// 1..players, and seat 0 holding the undealt rest.
#[pg_extern(volatile, strict, parallel_safe)]
fn deal_hands(
    players: default!(i32, 3),
    hand_size: default!(i32, 17),
    deck_size: default!(i32, 54),
) -> TableIterator<'static, (name!(seat, i32), name!(cards, IntArray<i32>))> {
    // Validate before touching the generator, so bad input never keys one.
    let sizes = ok_or_raise(DealSizes::new(players, hand_size, deck_size));
    crate::limit_working_memory();
    let rows = ok_or_raise(ok_or_raise(crate::with_live(|stream| {
        deal::deal_hands(sizes, stream, &mut check_for_interrupts)
    })));
    // Each hand becomes an int[] in one copy of its cards (4 bytes a card).
    let rows: Vec<_> = rows
        .into_iter()
        .map(|(seat, cards)| {
            let array = IntArray::build(cards.len(), |out| out.copy_from_slice(&cards));
            (seat, ok_or_raise(array))
        })
        .collect();
    TableIterator::new(rows)
}

/// A deal: the desk, the new game and its first bidder (the procedure's out message); in
/// provably fair mode also what is recorded of it, from which its receipt
/// ([`documents::Receipt`]) is written.
struct Dealt {
    desk: i32,
    game: i64,
    leader: u8,
    fair: Option<FairRecord>,
}

impl Dealt {
    /// The whole deal, as one document: what the notification carries, as jsonb prints it (the
    /// receipt, in provably fair mode), and what deal_cards returns once its rows are visible.
    fn whole(&self) -> Document {
        match &self.fair {
            None => Document::of(&self.deal()),
            Some(fair) => Document::of(&self.receipt(fair)),
        }
    }

    /// What deal_cards returns. Where a provably fair deal's rows are hidden until its
    /// transaction commits (`unseen`), only what does not depend on the shuffle: the receipt
    /// without the first bidder and the chain hash ([`documents::SHUFFLED_KEYS`]), which come
    /// with the notification or from fair_receipt once the deal has committed. Otherwise the
    /// whole deal.
    fn result(&self, unseen: bool, whole: Document) -> Built<JsonB> {
        match &self.fair {
            Some(_) if unseen => {
                Built::<JsonB>::of_document(&whole.without(&documents::SHUFFLED_KEYS))
            }
            _ => Built::<JsonB>::of_document(&whole),
        }
    }

    fn deal(&self) -> documents::Deal {
        documents::Deal {
            desk: self.desk,
            game: self.game,
            leader: self.leader,
        }
    }

    fn receipt(&self, fair: &FairRecord) -> documents::Receipt {
        documents::Receipt::of_deal(self.desk, self.game, self.leader, fair)
    }
}

/// `dealcards.notify`: whether deal_cards sends its notification. Off lets a transaction that
/// dealt be prepared for two-phase commit (PREPARE TRANSACTION refuses one that notified).
static NOTIFY: GucSetting<bool> = GucSetting::<bool>::new(true);

pub(super) fn define_settings() {
    GucRegistry::define_bool_guc(
        c"dealcards.notify",
        c"Whether deal_cards sends a notification on the desk's channel.",
        c"Off: deal_cards sends no NOTIFY, so a transaction that dealt can be prepared for two-phase commit.",
        &NOTIFY,
        GucContext::Userset,
        GucFlags::default(),
    );
}

/// The SQL Server dealCards procedure: deals a Dou Dizhu game at a desk of three, in the
/// caller's transaction. Its steps: lock the desk, read its seats, deal the cards, record the
/// game, notify.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn deal_cards(desk_id: i32, fcinfo: pg_sys::FunctionCallInfo) -> Built<JsonB> {
    let schema = ExtensionSchema::of(fcinfo);
    let (dealt, unseen) = Spi::connect_mut(|client| {
        let mut desks = DeskStore::new(client, &schema);
        // 1. Lock: concurrent deals at one desk take turns here. A desk this backend last dealt
        // in provably fair mode has its seats read with the lock: by the seat table's key once
        // the lock is held on a plain server, in the lock's statement on a Citus node; a wrong
        // guess costs a read (a desk that left the mode is dealt as any other, one that entered
        // it reads its seats on their own). (On a Citus node a join is planned in full where
        // one-table statements take Citus's fast path: there an ordinary deal reads its seats
        // on their own.)
        let hinted = provably_fair::dealt_fair(&schema, desk_id);
        let desk = desks.lock(desk_id, hinted);
        if hinted && desk.fair.is_none() {
            provably_fair::forget(&schema, desk_id);
        }
        // 2. Seats: read before the record where it needs them (the lock's, if current);
        // otherwise the record counts them itself.
        let seats = seats(&mut desks, desk_id, desk.seats, desk.fair.as_ref());
        // 3. Cards: from the live stream, or in provably fair mode from the round's seed and
        // the seats' client seeds.
        let (deal, fair) = cards(
            &mut desks,
            &schema,
            desk_id,
            desk.fair.as_ref(),
            seats.as_ref(),
        );
        // 4. Record: the game, the desk's pointer to it, the opening bids and the note.
        let game = desks.record(desk_id, seats.as_ref(), &deal, fair.as_ref());
        let dealt = Dealt {
            desk: desk_id,
            game,
            leader: deal.leader,
            fair,
        };
        (dealt, desks.tables().deals_unseen())
    });
    // 5. Notify: the whole deal, which PostgreSQL sends only if this transaction commits, as
    // jsonb prints it (written as text: no jsonb is built for it). Only the result is built
    // into jsonb.
    let whole = dealt.whole();
    if NOTIFY.get() {
        notify(desk_id, &whole.text());
    }
    dealt.result(unseen, whole)
}

/// Step 2 of a deal: the seats, where the record needs them read first (the lock's, if it read
/// them), refused unless all are taken; none where the record counts them itself.
fn seats(
    desks: &mut DeskStore<'_, '_>,
    desk_id: i32,
    locked: Option<Seats>,
    fair: Option<&FairState>,
) -> Option<Seats> {
    if !desks.records_given_seats(fair.is_some()) {
        return None;
    }
    let seats = match (locked, fair) {
        (Some(seats), _) => seats,
        (None, Some(state)) => desks.fair_seats(desk_id, state.round),
        (None, None) => desks.seats(desk_id),
    };
    seats.check(desk_id);
    Some(seats)
}

/// Step 3 of a deal: the cards, from the live stream, or in provably fair mode from the round's
/// seed and the seats' client seeds, with what the deal records of them.
fn cards(
    desks: &mut DeskStore<'_, '_>,
    schema: &ExtensionSchema,
    desk_id: i32,
    fair: Option<&FairState>,
    seats: Option<&Seats>,
) -> (DouDizhuDeal, Option<FairRecord>) {
    match fair {
        None => (ok_or_raise(crate::with_live(DouDizhuDeal::deal)), None),
        Some(state) => {
            let seats = seats.expect("a provably fair deal reads its seats");
            let (deal, record) = provably_fair::deal_at(desks, schema, desk_id, state, seats);
            (deal, Some(record))
        }
    }
}

/// Sends the deal on the desk's channel. Game servers LISTEN on it; Postgres delivers the
/// notification when (and only if) this transaction commits. The payload is the whole deal
/// (the receipt, in provably fair mode), as jsonb prints it.
fn notify(desk_id: i32, payload: &str) {
    let channel = format!("dealcards_desk_{desk_id}");
    // SAFETY: pg_notify takes two non-NULL text arguments.
    unsafe {
        pgrx::direct_function_call_as_datum(
            pg_sys::pg_notify,
            &[channel.into_datum(), payload.into_datum()],
        );
    }
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use pgrx::prelude::*;

    fn seat_desk(desk: i32, players: &[(i16, i64)]) {
        Spi::run_with_args("INSERT INTO desk (desk_id) VALUES ($1)", &[desk.into()]).unwrap();
        for &(seat, player) in players {
            Spi::run_with_args(
                "INSERT INTO desk_player VALUES ($1, $2, $3)",
                &[desk.into(), seat.into(), player.into()],
            )
            .unwrap();
        }
    }

    fn one<T: FromDatum + IntoDatum>(sql: &str) -> T {
        Spi::get_one::<T>(sql).unwrap().unwrap()
    }

    #[pg_test]
    fn card_label_sort_hand_hand_labels() {
        assert_eq!(one::<String>("SELECT card_label(39)"), "10♥");
        assert_eq!(one::<String>("SELECT card_label(53)"), "BJ");
        assert_eq!(
            one::<Vec<i32>>("SELECT sort_hand(ARRAY[54, 1, 9, 8, 53])"),
            [9, 1, 8, 53, 54]
        );
        assert_eq!(
            one::<String>("SELECT hand_labels(ARRAY[54, 1, 9, 8, 53])"),
            "3♣ A♣ 2♠ BJ RJ"
        );
        assert_eq!(one::<String>("SELECT hand_labels('{}')"), "");
    }

    #[pg_test]
    #[should_panic(expected = "card 55 is not a card: cards are numbered 1 to 54")]
    fn card_label_rejects_55() {
        Spi::run("SELECT card_label(55)").unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "a hand cannot hold NULL")]
    fn sort_hand_rejects_null_cards() {
        Spi::run("SELECT sort_hand(ARRAY[1, NULL])").unwrap();
    }

    #[pg_test]
    fn deal_hands_defaults_to_dou_dizhu() {
        let (rows, sizes, all) = Spi::get_three::<i64, String, bool>(
            "SELECT count(*), string_agg(seat || ':' || cardinality(cards), ' ' ORDER BY seat),
                    (SELECT array_agg(c ORDER BY c) FROM deal_hands() d, unnest(d.cards) c)
                      = (SELECT array_agg(g) FROM generate_series(1, 54) g)
               FROM deal_hands()",
        )
        .unwrap();
        assert_eq!(rows, Some(4));
        assert_eq!(sizes.as_deref(), Some("0:3 1:17 2:17 3:17"));
        assert_eq!(all, Some(true));
    }

    #[pg_test]
    #[should_panic(expected = "4 hands of 17 cards need 68 cards, more than the 54 in the deck")]
    fn deal_hands_rejects_too_many_hands() {
        Spi::run("SELECT * FROM deal_hands(4)").unwrap();
    }

    #[pg_test]
    fn deal_cards_records_every_step() {
        seat_desk(7, &[(1, 101), (2, 102), (3, 103)]);
        let result = one::<pgrx::JsonB>("SELECT deal_cards(7)").0;
        let game = result["game"].as_i64().unwrap();
        let leader = result["leader"].as_i64().unwrap();
        assert_eq!(result["desk"], 7);
        assert!((1..=3).contains(&leader));
        let args = [game.into()];
        let valid = Spi::get_one_with_args::<bool>(
            "SELECT (SELECT array_agg(c ORDER BY c)
                       FROM unnest(p1_cards || p2_cards || p3_cards || extra_cards) c)
                      = (SELECT array_agg(g) FROM generate_series(1, 54) g)
                    AND (p1_id, p2_id, p3_id) = (101, 102, 103)
                    AND state_no = 1 AND lord_no = 0 AND desk_id = 7
               FROM game WHERE game_id = $1",
            &args,
        )
        .unwrap();
        assert_eq!(valid, Some(true));
        assert_eq!(
            one::<i64>("SELECT cur_game_id FROM desk WHERE desk_id = 7"),
            game
        );
        let bids = Spi::get_one_with_args::<String>(
            "SELECT string_agg(concat_ws(',', player_no, rec_idx, bid_size), ' ' ORDER BY rec_idx DESC)
               FROM bid_record WHERE desk_id = 7 AND game_id = $1",
            &args,
        )
        .unwrap()
        .unwrap();
        let before = [3, 1, 2][leader as usize - 1];
        assert_eq!(bids, format!("{before},0,-1 {before},-1,-1"));
        let note = one::<String>(
            "SELECT concat_ws(',', player_no, note_type, flag, body) FROM note WHERE desk_id = 7",
        );
        assert_eq!(note, format!("{leader},3,y,{leader}#{game}"));
    }

    #[pg_test]
    #[should_panic(expected = "desk 8 does not exist")]
    fn deal_cards_unknown_desk() {
        Spi::run("SELECT deal_cards(8)").unwrap();
    }

    /// The players of a deal at `desk`, seats 1 to 3, as `p1,p2,p3`.
    fn players_dealt(desk: i32) -> String {
        let dealt = Spi::get_one_with_args::<pgrx::JsonB>("SELECT deal_cards($1)", &[desk.into()])
            .unwrap()
            .unwrap();
        let game = dealt.0["game"].as_i64().unwrap();
        Spi::get_one_with_args::<String>(
            "SELECT concat_ws(',', p1_id, p2_id, p3_id) FROM game WHERE game_id = $1",
            &[game.into()],
        )
        .unwrap()
        .unwrap()
    }

    /// A seat for a desk that does not exist (no key refuses it, docs/operations.md): the deals
    /// of other desks do not see it; once a desk of that id is made, it is that desk's seat.
    #[pg_test]
    fn a_seat_for_a_missing_desk_waits_for_its_desk() {
        Spi::run("INSERT INTO desk_player VALUES (12, 1, 201)").unwrap();
        seat_desk(11, &[(1, 111), (2, 112), (3, 113)]);
        assert_eq!(players_dealt(11), "111,112,113");
        Spi::run("INSERT INTO desk (desk_id) VALUES (12)").unwrap();
        Spi::run("INSERT INTO desk_player VALUES (12, 2, 202), (12, 3, 203)").unwrap();
        assert_eq!(players_dealt(12), "201,202,203");
    }

    #[pg_test]
    #[should_panic(expected = "desk 9 has 2 of 3 players seated; a deal needs all 3")]
    fn deal_cards_needs_three_players() {
        seat_desk(9, &[(1, 1), (3, 3)]);
        Spi::run("SELECT deal_cards(9)").unwrap();
    }

    #[pg_test]
    fn deal_cards_null_desk_is_null() {
        assert_eq!(
            Spi::get_one::<pgrx::JsonB>("SELECT deal_cards(NULL)")
                .unwrap()
                .map(|j| j.0),
            None
        );
    }
}
