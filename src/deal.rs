//! SQL functions for dealing: deal_cards and its tables, card labels, deal_hands.

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::prelude::*;
use pgrx::{pg_sys, IntoDatum, JsonB, PgSqlErrorCode};

use crate::arrays::{Built, IntArray};
use crate::fair::FairDesk;
use crate::statements::{self, ExtensionSchema};
use crate::{check_for_interrupts, ok_or_raise};
use dealcards_core::cards::{self, Hand};
use dealcards_core::deal::{self, DealSizes, DouDizhuDeal, SEATS};
use dealcards_core::error::Error;

extension_sql_file!("../sql/dealing.sql", name = "dealing_tables");

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

/// What deal_cards returns and notifies: the desk, the new game and its first bidder (the
/// procedure's out message), and in provably fair mode the commitment (hex) and nonce.
#[derive(serde::Serialize)]
struct Dealt {
    desk: i32,
    game: i64,
    leader: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    commitment: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nonce: Option<i64>,
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

/// Locks the desk row: concurrent deals at one desk wait here, one after the other. Returns
/// its provably fair state as it is once the lock is granted.
const LOCK_DESK: &str = "SELECT fair_round, fair_commitment, fair_nonce, fair_chain_head \
                           FROM @extschema@.desk WHERE desk_id OPERATOR(pg_catalog.=) $1 FOR UPDATE";

/// LOCK_DESK as the tables of release 0.2.0 take it (no provably fair columns): what deal_cards
/// runs in a database whose extension is not yet updated.
mod before_0_3 {
    pub const LOCK_DESK: &str =
        "SELECT FROM @extschema@.desk WHERE desk_id OPERATOR(pg_catalog.=) $1 FOR UPDATE";
}

/// A desk's seats as deal_cards reads them when its lock did not: a row per seated player,
/// with the seat, the player and the player's client seed in UTF-8.
const DESK_SEATS: &str =
    "SELECT p.player_no, p.player_id, pg_catalog.convert_to(p.client_seed, 'UTF8')
       FROM @extschema@.desk_player p
      WHERE p.desk_id OPERATOR(pg_catalog.=) $1";

/// LOCK_DESK that also reads the desk's seats in the same statement, as [`DESK_SEATS`] reads
/// them (one row per seated player, or one row with no seat): for a provably fair deal, whose
/// cards come from the client seeds, so that reading them costs no statement more. The seats are
/// read with the snapshot of the statement's start. The fifth column says whether that is the
/// state the lock was granted on: no transaction but the one that wrote the desk row's version
/// has locked it (its xmax is none or the writer's, since a deal's update keeps its lock on the
/// new version). It is computed below the lock, from the version the snapshot sees; if the row
/// was updated meanwhile, the lock re-reads the newest version, which then carries this
/// transaction's own lock, so the column is false. Otherwise too the deal may have waited for a
/// transaction that changed the seats (a player sitting down locks the desk row through
/// desk_player's foreign key), and the seats are read again as they are once the lock is held.
/// Every table is filtered by the desk given ($1), so that Citus routes the statement to the
/// desk's worker.
const LOCK_DESK_AND_SEATS: &str =
    "SELECT d.fair_round, d.fair_commitment, d.fair_nonce, d.fair_chain_head, d.fresh,
            p.player_no, p.player_id, pg_catalog.convert_to(p.client_seed, 'UTF8')
       FROM (SELECT fair_round, fair_commitment, fair_nonce, fair_chain_head,
                    xmax OPERATOR(pg_catalog.=) '0'::pg_catalog.xid
                    OR xmax OPERATOR(pg_catalog.=) xmin AS fresh
               FROM @extschema@.desk WHERE desk_id OPERATOR(pg_catalog.=) $1
                FOR UPDATE) d
       LEFT JOIN @extschema@.desk_player p ON p.desk_id OPERATOR(pg_catalog.=) $1";

/// A desk's seats: how many are seated, who sits where, and their client seeds (UTF-8).
pub struct Seats {
    pub seated: i64,
    pub player_ids: [Option<i64>; SEATS],
    pub client_seeds: [Option<Vec<u8>>; SEATS],
}

impl Seats {
    /// The seats from rows of [`DESK_SEATS`]' columns, starting at column `first`; a row
    /// without a seat is none.
    fn from_rows(rows: pgrx::spi::SpiTupleTable<'_>, first: usize) -> Seats {
        let mut seats = Seats {
            seated: 0,
            player_ids: [None; SEATS],
            client_seeds: Default::default(),
        };
        for row in rows {
            let Some(seat) = row.get::<i16>(first).ok().flatten() else {
                continue;
            };
            seats.seated += 1;
            if let Some(n) = usize::try_from(seat)
                .ok()
                .filter(|s| (1..=SEATS).contains(s))
            {
                seats.player_ids[n - 1] = row.get::<i64>(first + 1).ok().flatten();
                seats.client_seeds[n - 1] = row.get::<Vec<u8>>(first + 2).ok().flatten();
            }
        }
        seats
    }

    /// The desk's seats as they are now ([`DESK_SEATS`]).
    pub fn read(
        client: &mut pgrx::spi::SpiClient<'_>,
        schema: &ExtensionSchema,
        desk_id: i32,
    ) -> Seats {
        Seats::from_rows(
            statements::run(client, schema, DESK_SEATS, &[desk_id.into()]),
            1,
        )
    }
}

/// What every deal writes after its game (CTE new_game) at desk $1: the procedure's two
/// opening bid records by seat $7, and the note naming the first bidder ($6) and the game.
macro_rules! opening_bids_and_note {
    () => {
        "opening_bids AS (
         INSERT INTO @extschema@.bid_record (desk_id, game_id, player_no, rec_idx, bid_size)
         SELECT $1, g.game_id, $7, r.rec_idx, -1
           FROM new_game g, (VALUES (0), (-1)) r (rec_idx)
     ), first_bidder_note AS (
         INSERT INTO @extschema@.note (desk_id, player_no, note_type, flag, body)
         SELECT $1, $6, 3, 'y', pg_catalog.concat($6, '#', g.game_id)
           FROM new_game g
     )"
    };
}

/// Counts the seated players and, when all three are there, writes the game, points the desk at
/// it, and writes the opening bids and the note. It runs after the desk lock is granted, so it
/// sees the seats as they are then. The same statement serves the tables of every release.
const RECORD_DEAL: &str = concat!(
    "WITH seats AS (
         SELECT pg_catalog.count(*) AS seated,
                pg_catalog.max(player_id) FILTER (WHERE player_no OPERATOR(pg_catalog.=) 1) AS p1_id,
                pg_catalog.max(player_id) FILTER (WHERE player_no OPERATOR(pg_catalog.=) 2) AS p2_id,
                pg_catalog.max(player_id) FILTER (WHERE player_no OPERATOR(pg_catalog.=) 3) AS p3_id
           FROM @extschema@.desk_player
          WHERE desk_id OPERATOR(pg_catalog.=) $1
     ), new_game AS (
         INSERT INTO @extschema@.game (desk_id, p1_cards, p2_cards, p3_cards, extra_cards,
                                       state_no, lord_no, p1_id, p2_id, p3_id, leader)
         SELECT $1, $2, $3, $4, $5, 1, 0, s.p1_id, s.p2_id, s.p3_id, $6
           FROM seats s
          WHERE s.seated OPERATOR(pg_catalog.=) 3
         RETURNING game_id
     ), desk_game AS (
         UPDATE @extschema@.desk d SET cur_game_id = g.game_id FROM new_game g
          WHERE d.desk_id OPERATOR(pg_catalog.=) $1
     ), ",
    opening_bids_and_note!(),
    " SELECT s.seated, g.game_id FROM seats s LEFT JOIN new_game g ON true"
);

/// RECORD_DEAL for a provably fair deal, whose seats were read before the deal was derived from
/// their client seeds: it writes the game with those players ($8 to $10), its commitment, nonce,
/// client seeds (given in UTF-8) and chain hash ($11 to $14), and moves the desk's nonce and
/// chain head on.
const RECORD_FAIR_DEAL: &str = concat!(
    "WITH new_game AS (
         INSERT INTO @extschema@.game (desk_id, p1_cards, p2_cards, p3_cards, extra_cards,
                                       state_no, lord_no, p1_id, p2_id, p3_id, leader,
                                       fair_commitment, fair_nonce, client_seeds, chain_hash)
         VALUES ($1, $2, $3, $4, $5, 1, 0, $8, $9, $10, $6, $11, $12,
                 ARRAY[pg_catalog.convert_from($13[1], 'UTF8'),
                       pg_catalog.convert_from($13[2], 'UTF8'),
                       pg_catalog.convert_from($13[3], 'UTF8')],
                 $14)
         RETURNING game_id
     ), desk_game AS (
         UPDATE @extschema@.desk d
            SET cur_game_id = g.game_id,
                fair_nonce = $12 OPERATOR(pg_catalog.+) 1,
                fair_chain_head = $14
           FROM new_game g
          WHERE d.desk_id OPERATOR(pg_catalog.=) $1
     ), ",
    opening_bids_and_note!(),
    " SELECT game_id FROM new_game"
);

/// The same deal written one table at a time, each statement naming one desk, so that on a
/// Citus cluster each is routed to the desk's shards on the worker running the deal: the
/// game (its id from this node's range, see [`crate::citus`]), the desk, the two opening bids,
/// the note.
mod by_table {
    pub const INSERT_GAME: &str = "INSERT INTO @extschema@.game
                (game_id, desk_id, p1_cards, p2_cards, p3_cards, extra_cards, state_no, lord_no,
                 p1_id, p2_id, p3_id, leader, fair_commitment, fair_nonce, client_seeds, chain_hash)
         OVERRIDING SYSTEM VALUE
         VALUES ($10 OPERATOR(pg_catalog.+)
                     pg_catalog.nextval('@extschema@.game_game_id_seq'::pg_catalog.regclass),
                 $1, $2, $3, $4, $5, 1, 0, $7, $8, $9, $6, $11, $12,
                 CASE WHEN $13 IS NOT NULL THEN
                      ARRAY[pg_catalog.convert_from($13[1], 'UTF8'),
                            pg_catalog.convert_from($13[2], 'UTF8'),
                            pg_catalog.convert_from($13[3], 'UTF8')] END,
                 $14)
         RETURNING game_id";
    pub const UPDATE_DESK: &str = "UPDATE @extschema@.desk
            SET cur_game_id = $2,
                fair_nonce = CASE WHEN $3 IS NULL THEN fair_nonce
                                  ELSE $4 OPERATOR(pg_catalog.+) 1 END,
                fair_chain_head = COALESCE($5, fair_chain_head)
          WHERE desk_id OPERATOR(pg_catalog.=) $1";
    pub const INSERT_BIDS: &str = "INSERT INTO @extschema@.bid_record
                (desk_id, game_id, player_no, rec_idx, bid_size)
         VALUES ($1, $2, $3, 0, -1), ($1, $2, $3, -1, -1)";
    pub const INSERT_NOTE: &str = "INSERT INTO @extschema@.note
                (note_id, desk_id, player_no, note_type, flag, body)
         OVERRIDING SYSTEM VALUE
         VALUES ($4 OPERATOR(pg_catalog.+)
                     pg_catalog.nextval('@extschema@.note_note_id_seq'::pg_catalog.regclass),
                 $1, $3, 3, 'y', pg_catalog.concat($3, '#', $2))";
}

/// The game no statement wrote: something of the user's (a trigger, a rule) kept the row out.
fn suppressed(desk_id: i32) -> ! {
    ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_TRIGGERED_DATA_CHANGE_VIOLATION,
        format!("no game was recorded for desk {desk_id}: a trigger or rule on game suppressed the insert"),
        "deal_cards writes nothing unless the game row is written; remove what keeps it out."
    );
}

/// The SQL Server dealCards procedure: deals a Dou Dizhu game at a desk of three, in the caller's transaction.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn deal_cards(desk_id: i32, fcinfo: pg_sys::FunctionCallInfo) -> JsonB {
    let schema = ExtensionSchema::of(fcinfo);
    let current = schema.has_column(c"desk", c"fair_round");
    // On a Citus node, one table at a time; elsewhere one statement does it all.
    let by_table = current && crate::citus::present();
    let (deal, game_id, fair) = Spi::connect_mut(|client| {
        // A desk this backend last dealt in provably fair mode is locked with the statement
        // that also reads its seats. A wrong guess costs one statement: a desk that left the
        // mode is dealt as any other, one that entered it reads its seats in a statement more.
        // (On a Citus node a join is planned in full where one-table statements take Citus's
        // fast path: there an ordinary deal reads its seats on their own.)
        let hinted = current && crate::fair::dealt_fair(&schema, desk_id);
        let lock = match (current, hinted) {
            (false, _) => before_0_3::LOCK_DESK,
            (true, false) => LOCK_DESK,
            (true, true) => LOCK_DESK_AND_SEATS,
        };
        let locked = statements::run(client, &schema, lock, &[desk_id.into()]);
        ok_or_raise(deal::check_desk_exists(desk_id, !locked.is_empty()));
        let desk = locked.first();
        let fresh = hinted && desk.get::<bool>(5).ok().flatten() == Some(true);
        let fair_round = if current {
            desk.get::<i32>(1).ok().flatten()
        } else {
            None
        };
        if hinted && fair_round.is_none() {
            crate::fair::forget(&schema, desk_id);
        }
        let fair_desk = fair_round.map(|round| FairDesk {
            round,
            commitment: desk.get::<Vec<u8>>(2).ok().flatten().unwrap_or_default(),
            nonce: desk.get::<i64>(3).ok().flatten().unwrap_or(0),
            chain_head: desk.get::<Vec<u8>>(4).ok().flatten(),
            seats: None,
        });
        // The seats the lock read, if they are the seats as the lock was granted.
        let mut seats = fresh.then(|| Seats::from_rows(desk.rewind(), 6));
        let (deal, fair) = match fair_desk {
            None => (ok_or_raise(crate::with_live(DouDizhuDeal::deal)), None),
            Some(mut fair_desk) => {
                fair_desk.seats = seats.take();
                let (deal, record) =
                    crate::fair::deal_at(client, &schema, desk_id, fair_desk, |seated| {
                        ok_or_raise(deal::check_seats_taken(desk_id, seated))
                    });
                (deal, Some(record))
            }
        };
        if by_table {
            // A provably fair deal's players are the seats its cards were derived from.
            let players = match &fair {
                Some(fair) => fair.player_ids,
                None => {
                    let seats = seats.unwrap_or_else(|| Seats::read(client, &schema, desk_id));
                    ok_or_raise(deal::check_seats_taken(desk_id, seats.seated));
                    seats.player_ids
                }
            };
            let game_id = record_by_table(client, &schema, desk_id, &deal, fair.as_ref(), players);
            return (deal, game_id, fair);
        }
        let [p1, p2, p3] = deal.hands.map(|h| h.to_vec());
        let mut args = vec![
            desk_id.into(),
            p1.into(),
            p2.into(),
            p3.into(),
            deal.extra.to_vec().into(),
            (deal.first_bidder as i16).into(),
            (deal.opening_bid_seat() as i16).into(),
        ];
        let game_id = match &fair {
            None => {
                let recorded = statements::run(client, &schema, RECORD_DEAL, &args).first();
                let seated = recorded
                    .get::<i64>(1)
                    .expect("seated is a bigint")
                    .expect("a count is never NULL");
                // Nothing was written unless all three seats were taken.
                ok_or_raise(deal::check_seats_taken(desk_id, seated));
                recorded.get::<i64>(2).expect("game_id is a bigint")
            }
            Some(fair) => {
                let [p1_id, p2_id, p3_id] = fair.player_ids;
                args.extend([
                    p1_id.into(),
                    p2_id.into(),
                    p3_id.into(),
                    fair.commitment.to_vec().into(),
                    fair.nonce.into(),
                    fair.client_seeds.clone().into(),
                    fair.chain_hash.to_vec().into(),
                ]);
                let recorded = statements::run(client, &schema, RECORD_FAIR_DEAL, &args);
                if recorded.is_empty() {
                    None
                } else {
                    recorded.first().get::<i64>(1).expect("game_id is a bigint")
                }
            }
        }
        // The statement inserts a game whenever three are seated.
        .unwrap_or_else(|| suppressed(desk_id));
        (deal, game_id, fair)
    });
    let dealt = Dealt {
        desk: desk_id,
        game: game_id,
        leader: deal.first_bidder,
        commitment: fair.as_ref().map(|f| crate::fair::hex(&f.commitment)),
        nonce: fair.as_ref().map(|f| f.nonce),
    };
    let result = JsonB(serde_json::to_value(&dealt).expect("three integers serialize"));
    if !NOTIFY.get() {
        return result;
    }
    // Game servers LISTEN on their desk's channel; Postgres delivers the notification when (and
    // only if) this transaction commits. The payload is the returned JSON, as jsonb prints it.
    let channel = format!("dealcards_desk_{desk_id}");
    // SAFETY: jsonb_out takes one non-NULL jsonb and returns a non-NULL cstring; pg_notify takes
    // two non-NULL text arguments.
    unsafe {
        let payload: &std::ffi::CStr =
            pgrx::direct_function_call(pg_sys::jsonb_out, &[JsonB(result.0.clone()).into_datum()])
                .expect("jsonb_out returns a string");
        pgrx::direct_function_call_as_datum(
            pg_sys::pg_notify,
            &[channel.into_datum(), payload.to_str().ok().into_datum()],
        );
    }
    result
}

/// Writes a deal at a locked desk one table at a time ([`by_table`]) and returns its game id.
fn record_by_table(
    client: &mut pgrx::spi::SpiClient<'_>,
    schema: &ExtensionSchema,
    desk_id: i32,
    deal: &DouDizhuDeal,
    fair: Option<&crate::fair::FairRecord>,
    players: [Option<i64>; SEATS],
) -> i64 {
    let [p1_id, p2_id, p3_id] = players;
    let base = crate::citus::id_base(client, schema);
    let [p1, p2, p3] = deal.hands.map(|h| h.to_vec());
    let leader = deal.first_bidder as i16;
    let commitment = fair.map(|f| f.commitment.to_vec());
    let nonce = fair.map(|f| f.nonce);
    let chain_hash = fair.map(|f| f.chain_hash.to_vec());
    let inserted = statements::run(
        client,
        schema,
        by_table::INSERT_GAME,
        &[
            desk_id.into(),
            p1.into(),
            p2.into(),
            p3.into(),
            deal.extra.to_vec().into(),
            leader.into(),
            p1_id.into(),
            p2_id.into(),
            p3_id.into(),
            base.into(),
            commitment.clone().into(),
            nonce.into(),
            fair.map(|f| f.client_seeds.clone()).into(),
            chain_hash.clone().into(),
        ],
    );
    let game_id = if inserted.is_empty() {
        None
    } else {
        inserted.first().get::<i64>(1).ok().flatten()
    }
    .unwrap_or_else(|| suppressed(desk_id));
    statements::run(
        client,
        schema,
        by_table::UPDATE_DESK,
        &[
            desk_id.into(),
            game_id.into(),
            commitment.into(),
            nonce.into(),
            chain_hash.into(),
        ],
    );
    statements::run(
        client,
        schema,
        by_table::INSERT_BIDS,
        &[
            desk_id.into(),
            game_id.into(),
            (deal.opening_bid_seat() as i16).into(),
        ],
    );
    statements::run(
        client,
        schema,
        by_table::INSERT_NOTE,
        &[desk_id.into(), game_id.into(), leader.into(), base.into()],
    );
    game_id
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
