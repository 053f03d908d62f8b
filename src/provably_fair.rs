//! SQL functions for provably fair deals (docs/provably_fair.md): the house's commitments, the
//! players' client seeds, the pure recomputation, the verification of stored games and what the
//! house publishes.
//!
//! The server seeds live in fair_seed, which only its owner (the role that created the
//! extension) can read; the store reads them as that owner, and nothing here returns, raises or
//! notifies a seed: a revealed one is read from the fair_commitment view, which shows it once
//! the reveal has committed. A game is recorded only while its desk names an unrevealed round of
//! its own with the commitment it was dealt under (checked by the statement that records it):
//! so a backend keeps the seed of the round it last dealt under at each desk ([`ROUND_SEEDS`])
//! and reads it again only when the desk names another.
//!
//! What a deal may depend on: only what was committed before its transaction. A deal refuses a
//! round, a seat or a client seed written by its own transaction (which could undo them and
//! deal again with other ones, keeping the deal it likes), so a rolled-back deal comes back the
//! same, or not at all.

use std::cell::RefCell;
use std::collections::HashMap;

use pgrx::datum::Interval;
use pgrx::pg_sys;
use pgrx::prelude::*;
use pgrx::spi::SpiClient;
use pgrx::JsonB;

use crate::desk_store::{current_timeline, DeskStore, FairRecord, FairState, RoundRules, Seats};
use crate::documents::{self, Publication, Receipt};
use crate::installed::Tables;
use crate::results::Built;
use crate::statements::ExtensionSchema;
use crate::text::{utf8_of, TextBytes, Utf8Texts};
use crate::{changed_outside, ok_or_raise, raise};
use dealcards_core::deal::{DouDizhuDeal, SEATS};
use dealcards_core::error::{Error, ErrorKind};
use dealcards_core::fair::verify::{self, Checked};
use dealcards_core::fair::{
    self, Hash, Recorded, Rules, ServerSeed, CHAIN_START, UNIX_TO_POSTGRES_EPOCH_MICROS,
};

mod before_0_5;
mod before_0_7;

/// How many deals a round may deal when its rules do not say: past its bound a desk deals
/// nothing until the round is revealed.
pub const DEFAULT_MAX_DEALS: i64 = 1000;

extension_sql_file!(
    "../sql/install/fair.sql",
    name = "fair_tables",
    requires = ["dealing_tables", dealcards_written_here]
);
extension_sql_file!(
    "../sql/install/fair_unseen.sql",
    name = "fair_unseen",
    requires = ["fair_tables", dealcards_written_here]
);

/// Whether a row version was written by this transaction or one of its subtransactions (its
/// xmin is one of this transaction's ids): what this transaction could still undo. The
/// fair_commitment view hides a seed from the transaction that reveals it, and a deal refuses
/// inputs written by its own transaction.
#[pg_extern(stable, strict, parallel_safe)]
fn dealcards_written_here(xmin: pg_sys::TransactionId) -> bool {
    // SAFETY: reads this backend's transaction state.
    unsafe { pg_sys::TransactionIdIsCurrentTransactionId(xmin) }
}

fn not_fair(desk_id: i32, doing: &str) -> ! {
    raise(Error::new(
        ErrorKind::NotReady,
        format!("desk {desk_id} is not in provably fair mode: {doing}"),
    ))
}

/// A desk whose provably fair state no function of dealcards could have left (XX001).
fn broken(desk_id: i32, why: &str) -> ! {
    changed_outside(
        format!(
            "desk {desk_id}'s provably fair state was changed outside dealcards' functions: {why}"
        ),
        "fair_mode_off and fair_mode_on put the desk under a new commitment.",
    )
}

/// Draws a new server seed, stores it as the desk's next round (with `rules`, none on the tables
/// of 0.3.0 and 0.4.0) and puts its commitment in force.
fn commit(desks: &mut DeskStore<'_, '_>, desk_id: i32, rules: Option<RoundRules<'_>>) -> Hash {
    let seed = ok_or_raise(fair::new_server_seed());
    let commitment = fair::commitment(&seed);
    desks.commit_round(desk_id, &commitment, &seed, rules);
    commitment
}

/// The time a reveal holds the desk's lock (clock time, not the transaction's start): a deal
/// dealt later than this waited for the reveal. Passed as a value: Citus routes no UPDATE that
/// calls a volatile function.
fn now() -> pgrx::datum::TimestampWithTimeZone {
    // SAFETY: reads the clock.
    let now = unsafe { pg_sys::GetCurrentTimestamp() };
    pgrx::datum::TimestampWithTimeZone::try_from(now)
        .unwrap_or_else(|e| pgrx::error!("cannot read the clock: {e}"))
}

/// Marks the round revealed. Its seed is not read: the fair_commitment view shows it once this
/// transaction has committed, and never to a transaction that can still undo the reveal.
fn reveal(desks: &mut DeskStore<'_, '_>, desk_id: i32, round: i32) {
    if !desks.reveal(desk_id, round, now()) {
        changed_outside(
            format!("desk {desk_id} names round {round} as its commitment, which has no unrevealed server seed"),
            "The desk's fair_round was changed outside dealcards' functions; fair_mode_off and fair_mode_on start a new round.",
        );
    }
}

/// Runs `f` with the desk store of the calling function's schema.
fn with_desks<R>(
    fcinfo: pg_sys::FunctionCallInfo,
    f: impl FnOnce(&mut DeskStore<'_, '_>) -> R,
) -> R {
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client: &mut SpiClient<'_>| f(&mut DeskStore::new(client, &schema)))
}

/// Refuses (22023) house seats given as an array of more than one dimension or with a lower
/// bound other than 1 (argument `arg` of the call): a list of seats is a plain array.
fn refuse_shaped_house_seats(fcinfo: pg_sys::FunctionCallInfo, arg: usize) {
    // SAFETY: argument `arg` is the call's int[] house_seats; when not NULL it is an array
    // varlena, detoasted (a copy if it was toasted) and only its header read: ndim, then ndim
    // dimensions, then ndim lower bounds.
    let (ndim, lower) = unsafe {
        let Some(datum) = pgrx::fcinfo::pg_getarg_datum(fcinfo, arg) else {
            return;
        };
        let array = pg_sys::pg_detoast_datum(datum.cast_mut_ptr::<pg_sys::varlena>())
            as *const pg_sys::ArrayType;
        let ndim = (*array).ndim;
        let ints = array.add(1).cast::<i32>();
        (
            ndim,
            if ndim >= 1 {
                *ints.add(ndim as usize)
            } else {
                1
            },
        )
    };
    if ndim > 1 {
        raise(Error::invalid(format!(
            "house seats are a list of seats, a one-dimensional array: got {ndim} dimensions"
        )));
    }
    if lower != 1 {
        raise(Error::invalid(format!(
            "house seats are a list of seats from index 1: got an array from index {lower}"
        )));
    }
}

/// Checks the house seats a round is given, for the round's rules.
fn house_seats(seats: &[Option<i32>]) -> Vec<i16> {
    let house = ok_or_raise(fair::house_seats(seats));
    (1..=SEATS as i16)
        .filter(|s| house[*s as usize - 1])
        .collect()
}

/// Refuses (22004) a NULL where a function takes a value: never a silent no-op.
fn refuse_null(function: &str, what: &str) -> ! {
    pgrx::ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
        format!("{function} takes {what}, not NULL")
    );
}

/// Checks a round's bound (22023): at least one deal, and a time limit after the commitment.
fn check_bound(max_deals: i64, reveal_within: Option<Interval>) {
    if max_deals < 1 {
        raise(Error::invalid(format!(
            "a round deals at least once before its reveal: max_deals must be at least 1, got {max_deals}"
        )));
    }
    if let Some(within) = reveal_within {
        check_reveal_within(within);
    }
}

/// The latest `reveal_by` a round may have: 9998-12-31 00:00:00+00, in microseconds since
/// 2000-01-01. The verifiers read a published time as ISO 8601 with a year of four digits
/// (verifier/index.html, tools/verify_deal.py), and a day before the year 9999 no time zone
/// prints it yet; the chain's rules hold it in microseconds since 1970 as 8 bytes, which any
/// later time near PostgreSQL's end (294276 AD) would overflow, and infinity cannot be written.
const LATEST_REVEAL_BY: pg_sys::TimestampTz = 252_423_993_600_000_000;

/// Refuses a `reveal_within` that would not give a round committed now a `reveal_by` after its
/// commitment (22023) and no later than [`LATEST_REVEAL_BY`] (22008, as PostgreSQL's own
/// "timestamp out of range"): infinite, or so long that the time leaves the range. The
/// commitment's time is the transaction's start, `now()`, as the statement that stores the
/// round takes it, and the sum is PostgreSQL's, months and days in the session's time zone.
fn check_reveal_within(within: Interval) {
    // SAFETY: reads the transaction's start time.
    let committed = unsafe { pg_sys::GetCurrentTransactionStartTimestamp() };
    let parts = (within.months(), within.days(), within.micros());
    // PostgreSQL 17 writes 'infinity' and '-infinity' with every part at its end.
    let infinities = cfg!(not(any(
        feature = "pg14",
        feature = "pg15",
        feature = "pg16"
    )));
    let at = if infinities && parts == (i32::MAX, i32::MAX, i64::MAX) {
        "at infinity"
    } else if infinities && parts == (i32::MIN, i32::MIN, i64::MIN) {
        "at -infinity"
    } else {
        match timestamp_plus(committed, within) {
            Some(by) if by > committed && by <= LATEST_REVEAL_BY => return,
            Some(by) if by > committed => "past 9998-12-31 00:00:00+00",
            None if within.as_micros() > 0 => "past 9998-12-31 00:00:00+00",
            _ => raise(Error::invalid(
                "reveal_within is the time from the commitment by which the round's seed is due: it must be more than zero",
            )),
        }
    };
    pg_sys::panic::ErrorReport::new(
        PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
        format!(
            "reveal_within {} would put the round's reveal_by {at}: a round's seed must be due at a finite time no later than 9998-12-31 00:00:00+00",
            interval_text(within)
        ),
        pgrx::function_name!(),
    )
    .set_hint("That is the latest time verifiers read; give a shorter reveal_within, or NULL for no time limit.")
    .report(pgrx::PgLogLevel::ERROR);
    unreachable!("an ERROR does not return");
}

/// `at + within` as PostgreSQL adds them, or None when the sum leaves the timestamp range.
fn timestamp_plus(at: pg_sys::TimestampTz, within: Interval) -> Option<pg_sys::TimestampTz> {
    // SAFETY: timestamptz + interval with two values of their types; its only error is the
    // range's (22008), caught here, and it holds no resource when it raises it.
    PgTryBuilder::new(|| unsafe {
        pgrx::direct_function_call::<i64>(
            pg_sys::timestamptz_pl_interval,
            &[Some(pg_sys::Datum::from(at)), within.into_datum()],
        )
    })
    .catch_when(PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW, |_| None)
    .execute()
}

/// An interval as PostgreSQL prints it, for a message.
fn interval_text(within: Interval) -> String {
    format!("'{within}'")
}

/// Puts a desk in provably fair mode and returns the commitment in force: a new one under the
/// rules given, or the current one when the desk is in the mode already.
pub(crate) fn mode_on(
    desk_id: i32,
    house: &[i16],
    seeds_required: bool,
    max_deals: i64,
    reveal_within: Option<Interval>,
    fcinfo: pg_sys::FunctionCallInfo,
) -> Vec<u8> {
    with_desks(fcinfo, |desks| match desks.lock_commitment(desk_id) {
        Some((_, commitment)) => commitment,
        None => {
            let rules = RoundRules {
                house_seats: house,
                seeds_required,
                max_deals,
                reveal_within,
            };
            commit(desks, desk_id, Some(rules)).to_vec()
        }
    })
}

/// Puts a desk in provably fair mode and returns the commitment in force: a new one under the
/// rules given (house seats, seeds required, and the round's bound: at most `max_deals` deals,
/// and its seed due within `reveal_within` of the commitment), or the current one when the desk
/// is in the mode already. Not STRICT: a NULL argument is refused (22004), but `reveal_within`,
/// whose NULL is no time limit.
#[pg_extern(name = "fair_mode_on", volatile, parallel_unsafe)]
fn fair_mode_on_v3(
    desk_id: Option<i32>,
    house_seats: default!(Option<Vec<Option<i32>>>, "'{}'"),
    seeds_required: default!(Option<bool>, true),
    max_deals: default!(Option<i64>, 1000),
    reveal_within: default!(Option<Interval>, "NULL"),
    fcinfo: pg_sys::FunctionCallInfo,
) -> Vec<u8> {
    let function = "fair_mode_on";
    let desk_id = desk_id.unwrap_or_else(|| refuse_null(function, "a desk"));
    let house_seats =
        house_seats.unwrap_or_else(|| refuse_null(function, "house seats (none: '{}')"));
    let seeds_required = seeds_required.unwrap_or_else(|| refuse_null(function, "seeds_required"));
    let max_deals = max_deals.unwrap_or_else(|| refuse_null(function, "max_deals"));
    refuse_shaped_house_seats(fcinfo, 1);
    let house = self::house_seats(&house_seats);
    check_bound(max_deals, reveal_within);
    mode_on(
        desk_id,
        &house,
        seeds_required,
        max_deals,
        reveal_within,
        fcinfo,
    )
}

/// Takes a desk out of provably fair mode, revealing the round in force: its round and
/// commitment (no row when the desk was not in the mode). The seed is in fair_commitment once
/// this transaction has committed. A desk whose round has no unrevealed seed leaves the mode
/// with a warning and no row: what mends it after a restore without the unrevealed seeds.
#[pg_extern(name = "fair_mode_off", volatile, strict, parallel_unsafe)]
fn fair_mode_off_v2(
    desk_id: i32,
    fcinfo: pg_sys::FunctionCallInfo,
) -> TableIterator<'static, (name!(round, i32), name!(commitment, Vec<u8>))> {
    let revealed = with_desks(fcinfo, |desks| {
        let (round, commitment) = desks.lock_commitment(desk_id)?;
        // First off the round, then the reveal: the desk never names a revealed round.
        desks.leave_fair_mode(desk_id);
        if desks.reveal(desk_id, round, now()) {
            return Some((round, commitment));
        }
        // The desk named a round with no unrevealed seed here (a restore of a dump that left
        // the unrevealed seeds out, or a desk rewritten by hand): nothing to reveal, and the
        // desk deals nothing until it leaves the mode, which is this call's mend.
        ereport!(
            WARNING,
            PgSqlErrorCode::ERRCODE_WARNING,
            format!(
                "desk {desk_id} named round {round}, which has no unrevealed server seed here: it leaves provably fair mode without a reveal"
            ),
            "dealcards_check() names such desks; fair_mode_on starts a new round."
        );
        None
    });
    TableIterator::new(revealed)
}

/// Reveals the round in force at a desk and commits to a new one under the same rules unless
/// others are given: the revealed round, its commitment and the next commitment.
pub(crate) fn reveal_round(
    desk_id: i32,
    given_house: Option<Vec<i16>>,
    seeds_required: Option<bool>,
    max_deals: Option<i64>,
    reveal_within: Option<Interval>,
    fcinfo: pg_sys::FunctionCallInfo,
) -> (i32, Vec<u8>, Vec<u8>) {
    with_desks(fcinfo, |desks| {
        let (round, commitment) = desks
            .lock_commitment(desk_id)
            .unwrap_or_else(|| not_fair(desk_id, "there is no commitment to reveal"));
        let current = desks
            .round(desk_id, round)
            .unwrap_or_else(|| broken(desk_id, "its round has no unrevealed server seed"));
        let house = given_house.unwrap_or_else(|| {
            // The round's seats as the deals read them: a NULL or a seat outside 1..3 written
            // by hand is refused here too, never carried to the next round.
            let kept = fair::house_seats(&current.house_seats)
                .unwrap_or_else(|_| broken(desk_id, "its round's house seats are not seats"));
            (1..=SEATS as i16)
                .filter(|s| kept[*s as usize - 1])
                .collect()
        });
        let max_deals = max_deals.unwrap_or(if current.max_deals == i64::MAX {
            DEFAULT_MAX_DEALS
        } else {
            current.max_deals
        });
        // The round's span carried to the next from a later commitment: checked again.
        let reveal_within = reveal_within.or(current.reveal_within);
        if let Some(within) = reveal_within {
            check_reveal_within(within);
        }
        let rules = RoundRules {
            house_seats: &house,
            seeds_required: seeds_required.unwrap_or(current.seeds_required),
            max_deals,
            reveal_within,
        };
        // The desk moves to its next round first: a revealed round is one no desk names.
        let next = commit(desks, desk_id, Some(rules));
        reveal(desks, desk_id, round);
        (round, commitment, next.to_vec())
    })
}

/// Reveals the round in force at a desk and commits to a new one for the following deals, under
/// the same rules (house seats, seeds required, bound) unless others are given: the revealed
/// round, its commitment and the next commitment. The seed is in fair_commitment once this
/// transaction has committed.
// The row type is spelled out: pgrx reads the column names from it.
#[allow(clippy::type_complexity)]
#[pg_extern(name = "fair_reveal", volatile, parallel_unsafe)]
fn fair_reveal_v3(
    desk_id: Option<i32>,
    house_seats: default!(Option<Vec<Option<i32>>>, "NULL"),
    seeds_required: default!(Option<bool>, "NULL"),
    max_deals: default!(Option<i64>, "NULL"),
    reveal_within: default!(Option<Interval>, "NULL"),
    fcinfo: pg_sys::FunctionCallInfo,
) -> TableIterator<
    'static,
    (
        name!(round, i32),
        name!(commitment, Vec<u8>),
        name!(next_commitment, Vec<u8>),
    ),
> {
    let Some(desk_id) = desk_id else {
        return TableIterator::new(None);
    };
    refuse_shaped_house_seats(fcinfo, 1);
    let given_house = house_seats.map(|seats| self::house_seats(&seats));
    if max_deals.is_some() || reveal_within.is_some() {
        check_bound(max_deals.unwrap_or(1), reveal_within);
    }
    TableIterator::once(reveal_round(
        desk_id,
        given_house,
        seeds_required,
        max_deals,
        reveal_within,
        fcinfo,
    ))
}

/// Sets the client seed of the player in a seat (1..3) of a desk for the round in force: once
/// per seating and round. Not STRICT: a NULL argument is refused (22004), never a silent no-op
/// that a caller would take for a seed set.
#[pg_extern(volatile, parallel_unsafe)]
fn set_client_seed(
    desk_id: Option<i32>,
    seat: Option<i32>,
    seed: Option<TextBytes<'_>>,
    fcinfo: pg_sys::FunctionCallInfo,
) {
    let (Some(desk_id), Some(seat), Some(seed)) = (desk_id, seat, seed) else {
        pgrx::ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
            "set_client_seed takes a desk, a seat and a seed, none of them NULL"
        );
    };
    if !(1..=SEATS as i32).contains(&seat) {
        raise(Error::invalid(format!(
            "seat must be 1 to {SEATS}, got {seat}"
        )));
    }
    let utf8 = utf8_of(seed.0);
    ok_or_raise(fair::check_given_client_seed(seat as usize, &utf8));
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut desks = DeskStore::new(client, &schema);
        let desk = desks.lock(desk_id, false);
        let round = if desks.tables().round_rules() {
            let state = desk.fair.as_ref().unwrap_or_else(|| {
                not_fair(
                    desk_id,
                    "a client seed answers the commitment in force; fair_mode_on first",
                )
            });
            let (_, kept) = kept_round(&mut desks, &schema, desk_id, state);
            if kept.house[seat as usize - 1] {
                raise(Error::new(
                    ErrorKind::NotReady,
                    format!("seat {seat} is a house seat in round {} of desk {desk_id}: its client seed is the empty one, fixed with the commitment", state.round),
                ));
            }
            state.round
        } else {
            0
        };
        match desks.set_client_seed(desk_id, round, seat as i16, utf8) {
            Ok(Some(_)) => {}
            Ok(None) => raise(Error::new(
                ErrorKind::NotFound,
                format!("seat {seat} of desk {desk_id} is empty: a client seed belongs to a seated player"),
            )),
            Err(player) => raise(Error::new(
                ErrorKind::NotReady,
                format!("player {player} in seat {seat} of desk {desk_id} has set a client seed under round {round} already: a seed is set once per seating and round, and fair_reveal starts a new round"),
            )),
        }
    });
}

/// The deal a server seed, three client seeds and a nonce give, with no table: the recomputation
/// anyone can run once the server seed is revealed.
// The row type is spelled out: pgrx reads the column names from it.
#[allow(clippy::type_complexity)]
#[pg_extern(immutable, strict, parallel_safe)]
fn fair_deal(
    server_seed: &[u8],
    client_seeds: Utf8Texts,
    nonce: i64,
) -> TableIterator<
    'static,
    (
        name!(p1_cards, Vec<i32>),
        name!(p2_cards, Vec<i32>),
        name!(p3_cards, Vec<i32>),
        name!(extra_cards, Vec<i32>),
        name!(leader, i16),
    ),
> {
    let seed = ok_or_raise(fair::server_seed(server_seed));
    let seeds = ok_or_raise(fair::client_seeds(&client_seeds.0));
    let nonce = ok_or_raise(fair::nonce(nonce));
    let deal = fair::deal(&seed, &seeds, nonce);
    TableIterator::once((
        deal.hands[0].to_vec(),
        deal.hands[1].to_vec(),
        deal.hands[2].to_vec(),
        deal.extra.to_vec(),
        deal.leader as i16,
    ))
}

/// A round as a backend keeps it while its seed is unrevealed: the round, its commitment, the
/// seed and the rules fixed with it.
#[derive(Clone)]
struct KeptRound {
    round: i32,
    commitment: Hash,
    seed: ServerSeed,
    protocol: i16,
    /// Which seats the house plays.
    house: [bool; SEATS],
    seeds_required: bool,
    /// The round's bound: the deals it may deal, and when its seed is due.
    max_deals: i64,
    reveal_by: Option<pg_sys::TimestampTz>,
    /// The token of the server it was committed on, and its timeline then.
    instance: Option<String>,
    timeline: Option<i64>,
}

impl KeptRound {
    /// The rules protocol 3 chains.
    fn rules(&self) -> Rules {
        Rules {
            house: self.house,
            seeds_required: self.seeds_required,
            max_deals: self.max_deals,
            // No overflow: kept_round refuses a round whose reveal_by is past LATEST_REVEAL_BY.
            reveal_by: self.reveal_by.map(|by| by + UNIX_TO_POSTGRES_EPOCH_MICROS),
        }
    }
}

thread_local! {
    /// The round each desk (of a schema) was last dealt under in this backend, with its seed
    /// and rules. dealcards' functions point a desk only at an unrevealed round of its own, with
    /// that round's commitment, and a commitment is the SHA-256 of its seed: so a desk naming
    /// the same round and commitment again is under the same seed and rules, and the kept copy
    /// is what a read would give. A desk rewritten by hand back onto a revealed round would name
    /// a kept one too: the statement that records the game checks the round is unrevealed, in
    /// the same snapshot as the desk's lock, and refuses the deal otherwise (XX001). Only rounds committed by an earlier
    /// transaction are kept, so a kept round is never one the current transaction could undo. A
    /// desk with an entry is one this backend last dealt in provably fair mode
    /// ([`dealt_fair`]). Bounded: cleared at 65,536 desks.
    static ROUND_SEEDS: RefCell<HashMap<(pg_sys::Oid, i32), KeptRound>> =
        RefCell::new(HashMap::new());
}

/// Whether this backend keeps the seed of a round of the desk: it last dealt the desk in
/// provably fair mode, so deal_cards reads the seats with the desk's lock.
pub fn dealt_fair(schema: &ExtensionSchema, desk_id: i32) -> bool {
    ROUND_SEEDS.with_borrow(|seeds| seeds.contains_key(&(schema.oid(), desk_id)))
}

/// Forgets the desk's kept seed: deal_cards found the desk out of provably fair mode.
pub fn forget(schema: &ExtensionSchema, desk_id: i32) {
    ROUND_SEEDS.with_borrow_mut(|seeds| seeds.remove(&(schema.oid(), desk_id)));
}

/// The round a desk names, with its unrevealed seed and rules: this backend's copy, or read as
/// fair_seed's owner and checked against the commitment. Also whether this very transaction
/// committed the round (never so for a kept copy). On tables whose rounds are not keyed to the
/// desk (0.3.0's) it is read every time.
fn kept_round(
    desks: &mut DeskStore<'_, '_>,
    schema: &ExtensionSchema,
    desk_id: i32,
    desk: &FairState,
) -> (bool, KeptRound) {
    let key = (schema.oid(), desk_id);
    let commitment = desk.commitment.as_deref().unwrap_or_default();
    let keep = desks.tables().rounds_are_keyed();
    // A round kept before ALTER EXTENSION UPDATE brought the rounds their server's token is
    // read again.
    let tokens = desks.tables() == Tables::Current;
    if keep {
        let kept = ROUND_SEEDS.with_borrow(|seeds| {
            seeds
                .get(&key)
                .filter(|k| k.round == desk.round && k.commitment[..] == *commitment)
                .filter(|k| k.instance.is_some() || !tokens)
                .cloned()
        });
        if let Some(kept) = kept {
            return (false, kept);
        }
    }
    let stored = desks
        .round(desk_id, desk.round)
        .unwrap_or_else(|| broken(desk_id, "its round has no unrevealed server seed"));
    let seed = fair::server_seed(&stored.server_seed)
        .unwrap_or_else(|_| broken(desk_id, "its round's server seed is not 32 bytes"));
    let hash = fair::commitment(&seed);
    if hash[..] != *commitment {
        broken(desk_id, "its commitment is not the one of its round");
    }
    let house = fair::house_seats(&stored.house_seats)
        .unwrap_or_else(|_| broken(desk_id, "its round's house seats are not seats"));
    if stored.reveal_by.is_some_and(|by| by > LATEST_REVEAL_BY) {
        unverifiable_reveal_by(desk_id, desk.round);
    }
    let round = KeptRound {
        round: desk.round,
        commitment: hash,
        seed,
        protocol: stored.protocol,
        house,
        seeds_required: stored.seeds_required,
        max_deals: stored.max_deals,
        reveal_by: stored.reveal_by,
        instance: stored.instance,
        timeline: stored.timeline,
    };
    if keep && !stored.written_here {
        ROUND_SEEDS.with_borrow_mut(|seeds| {
            if seeds.len() >= 65_536 {
                seeds.clear();
            }
            seeds.insert(key, round.clone());
        });
    }
    (stored.written_here, round)
}

/// Refuses (22008) a deal under a round whose `reveal_by` is past [`LATEST_REVEAL_BY`]
/// (infinity, or a time a release before this check let a long `reveal_within` give): the
/// chain's rules could not hold it, and no verifier would read it.
fn unverifiable_reveal_by(desk_id: i32, round: i32) -> ! {
    pg_sys::panic::ErrorReport::new(
        PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
        format!(
            "desk {desk_id} cannot deal under round {round}: its reveal_by is past 9998-12-31 00:00:00+00, a time no verifier reads"
        ),
        pgrx::function_name!(),
    )
    .set_hint("fair_mode_off reveals the round; fair_mode_on then starts one with a shorter reveal_within.")
    .report(pgrx::PgLogLevel::ERROR);
    unreachable!("an ERROR does not return");
}

/// Refuses a provably fair deal that would depend on something its own transaction wrote
/// (55000): that transaction could undo it and deal again with something else in its place.
fn refuse_own_input(desk_id: i32, what: String) -> ! {
    pgrx::ereport!(
        ERROR,
        pgrx::PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        format!("desk {desk_id} cannot deal in provably fair mode: {what} in this transaction"),
        "A provably fair deal uses only a round, seats and client seeds committed before its transaction, so that undoing it and dealing again gives the same deal. Commit, then deal."
    );
}

/// Refuses (55000) a deal past its round's bound: the round has dealt its deals, or its seed is
/// due. The desk deals again once the round is revealed.
fn refuse_past_bound(desk_id: i32, desk: &FairState, round: &KeptRound) {
    let why = if desk.nonce >= round.max_deals {
        format!("it has dealt its {} deals", round.max_deals)
    } else if round
        .reveal_by
        // SAFETY: reads the clock.
        .is_some_and(|by| unsafe { pg_sys::GetCurrentTimestamp() } > by)
    {
        "its seed was due (its reveal_by in fair_commitment)".to_string()
    } else {
        return;
    };
    refuse_until_revealed(
        desk_id,
        format!(
            "desk {desk_id} deals nothing more under round {} until the round is revealed: {why}",
            round.round
        ),
        "",
    );
}

/// Raises 55000 for a deal the desk makes again once its round is revealed, the hint naming
/// fair_reveal (`where_` says where the next round is committed, if it matters).
fn refuse_until_revealed(desk_id: i32, message: String, where_: &str) -> ! {
    pg_sys::panic::ErrorReport::new(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        message,
        pgrx::function_name!(),
    )
    .set_hint(format!("SELECT fair_reveal({desk_id}) reveals the round and commits to the next one{where_}, under which the desk deals again (fair_mode_off({desk_id}) leaves the mode)."))
    .report(pgrx::PgLogLevel::ERROR);
    unreachable!("an ERROR does not return");
}

/// Refuses (55000) a deal under a round committed on another server than this one (its token,
/// dealcards_instance, is not this server's): a round in force in a restored dump, or in a
/// logical replica, may have been revealed since where it came from, its seed public. Likewise
/// a round of an earlier timeline: the server was promoted or recovered to a point in time, and
/// a reveal committed after that point may be lost here while its seed is public. The desk
/// deals again once the round is revealed here.
fn refuse_round_of_another_server(desks: &mut DeskStore<'_, '_>, desk_id: i32, round: &KeptRound) {
    let Some(here) = desks.server_token() else {
        return;
    };
    let why = if round.instance.as_deref() != Some(here.as_str()) {
        "it was committed on another server, or before this database was restored (where it came from, its seed may be public)".to_string()
    } else if crate::citus::present() {
        // Each node of a Citus cluster has a timeline of its own, and a desk's deals run on
        // whichever node holds it now: the token (the coordinator's, for the whole cluster)
        // is all that is checked there.
        return;
    } else {
        let now = current_timeline();
        if round.timeline == Some(now) {
            return;
        }
        format!(
            "it was committed on timeline {}, and the server is on timeline {now} since a promotion or a point-in-time recovery (a reveal of it may have been committed after the point the server came back to)",
            round.timeline.map_or("unknown".to_string(), |t| t.to_string())
        )
    };
    refuse_until_revealed(
        desk_id,
        format!(
            "desk {desk_id} deals nothing under round {} until the round is revealed: {why}",
            round.round
        ),
        " on this server",
    );
}

/// The provably fair deal at a locked desk with these (checked) seats: the next nonce under its
/// round, from the seated players' client seeds, and what is recorded of it. Refuses (55000)
/// inputs this transaction wrote, and a seat without a seed in a round that requires one.
pub fn deal_at(
    desks: &mut DeskStore<'_, '_>,
    schema: &ExtensionSchema,
    desk_id: i32,
    desk: &FairState,
    seats: &Seats,
) -> (DouDizhuDeal, FairRecord) {
    desks.refuse_caller_who_sees_deals(desk_id);
    let (round_written_here, round) = kept_round(desks, schema, desk_id, desk);
    if round_written_here {
        refuse_own_input(desk_id, format!("its round {} was committed", desk.round));
    }
    refuse_past_bound(desk_id, desk, &round);
    refuse_round_of_another_server(desks, desk_id, &round);
    if let Some(seat) = seats.written_here.iter().position(|&w| w) {
        refuse_own_input(
            desk_id,
            format!("the player or the client seed of seat {} was set", seat + 1),
        );
    }
    let mut given: Vec<Option<Vec<u8>>> = Vec::with_capacity(SEATS);
    for seat in 0..SEATS {
        let seed = if round.house[seat] {
            // A house seat's seed is the empty one, fixed with the commitment.
            Vec::new()
        } else {
            match &seats.client_seeds[seat] {
                Some(seed) => seed.clone(),
                None if round.seeds_required => raise(Error::new(
                    ErrorKind::NotReady,
                    format!(
                        "desk {desk_id} cannot deal: player {} in seat {} has set no client seed under round {}, which requires one from every player",
                        seats.player_ids[seat].unwrap_or_default(),
                        seat + 1,
                        round.round
                    ),
                )),
                None => Vec::new(),
            }
        };
        given.push(Some(seed));
    }
    let seed_refs = ok_or_raise(fair::client_seeds(&given));
    let nonce = ok_or_raise(fair::nonce(desk.nonce));
    let deal = fair::deal(&round.seed, &seed_refs, nonce);
    let previous: Hash = desk
        .chain_head
        .as_deref()
        .and_then(|h| h.try_into().ok())
        .unwrap_or(CHAIN_START);
    // Checked seats are all taken.
    let players = seats.player_ids.map(|p| p.unwrap_or_default());
    let chained = (round.protocol >= 2).then_some(players);
    let rules = (round.protocol >= 3).then(|| round.rules());
    let recorded = Recorded::of_deal(
        desk_id,
        &round.commitment,
        nonce,
        chained,
        rules,
        seed_refs,
        &deal,
    );
    let chain_hash = fair::chain_hash(&previous, &recorded).expect("a fresh deal hashes");
    let record = FairRecord {
        round: round.round,
        commitment: round.commitment,
        nonce: desk.nonce,
        players,
        client_seeds: given.into_iter().flatten().collect(),
        chain_hash,
    };
    (deal, record)
}

/// A verification's rows: game_id, round, nonce, verified, problem.
type Rows = Vec<(
    Option<i64>,
    Option<i32>,
    Option<i64>,
    Option<bool>,
    Option<String>,
)>;

fn rows(checked: Vec<Checked>) -> Rows {
    checked
        .into_iter()
        .map(|c| (c.game_id, c.round, c.nonce, c.verified, c.problem))
        .collect()
}

/// Walks a desk's chain of fair games and lists the rounds it left without a reveal
/// ([`verify::check_desk`]).
fn check_desk(desks: &mut DeskStore<'_, '_>, desk_id: i32) -> Vec<Checked> {
    let head = desks.chain_head(desk_id);
    let games = desks.fair_games(desk_id);
    let left = desks.rounds_left(desk_id);
    verify::check_desk(desk_id, head.as_deref(), games, &left)
}

/// Verifies a desk's whole provably fair history: one row per fair game in chain order
/// (verified true: recomputed and linked; NULL: linked, seed not revealed yet; false: the
/// problem says what is wrong), and a last row if the chain's head is missing.
// The row type is spelled out: pgrx reads the column names from it.
#[allow(clippy::type_complexity)]
#[pg_extern(stable, strict, parallel_unsafe)]
fn fair_verify_desk(
    desk_id: i32,
    fcinfo: pg_sys::FunctionCallInfo,
) -> TableIterator<
    'static,
    (
        name!(game_id, Option<i64>),
        name!(round, Option<i32>),
        name!(nonce, Option<i64>),
        name!(verified, Option<bool>),
        name!(problem, Option<String>),
    ),
> {
    TableIterator::new(rows(with_desks(fcinfo, |desks| check_desk(desks, desk_id))))
}

/// What the house publishes of a desk for its players to check their receipts against: its
/// rounds with their rules and, once revealed, their seeds; its provably fair games in chain
/// order; its chain head (docs/provably_fair.md). A [`Publication`].
#[pg_extern(stable, strict, parallel_unsafe)]
fn fair_publication(desk_id: i32, fcinfo: pg_sys::FunctionCallInfo) -> Built<JsonB> {
    let published = with_desks(fcinfo, |desks| desks.publication(desk_id));
    let publication: Publication = documents::read(published.0, "publication")
        .unwrap_or_else(|why| stored_otherwise(format!("desk {desk_id}: {why}")));
    Built::<JsonB>::document(&publication)
}

/// The receipt of a stored provably fair game, as deal_cards notified it: read as the caller,
/// so a game dealt by a transaction that has not committed is not there for a role other than
/// the tables' owner (P0002, as for a game that does not exist). A [`Receipt`].
#[pg_extern(stable, strict, parallel_unsafe)]
fn fair_receipt(game_id: i64, fcinfo: pg_sys::FunctionCallInfo) -> Built<JsonB> {
    let (is_fair, stored) =
        with_desks(fcinfo, |desks| desks.receipt(game_id)).unwrap_or_else(|| no_game(game_id));
    if !is_fair {
        raise(Error::invalid(format!(
            "game {game_id} was not dealt in provably fair mode: it has no receipt"
        )));
    }
    let receipt: Receipt = documents::read(stored.0, "receipt")
        .unwrap_or_else(|why| stored_otherwise(format!("game {game_id}: {why}")));
    Built::<JsonB>::document(&receipt)
}

/// A stored game or round whose columns hold what no function of dealcards writes (XX001).
fn stored_otherwise(why: String) -> ! {
    changed_outside(
        why,
        "The desk's games or rounds were changed outside dealcards' functions.",
    )
}

fn no_game(game_id: i64) -> ! {
    raise(Error::new(
        ErrorKind::NotFound,
        format!("game {game_id} does not exist"),
    ))
}

/// Verifies one stored game: its deal recomputes from the revealed seed, its client seeds and
/// nonce, and its link in the desk's chain holds.
// The row type is spelled out: pgrx reads the column names from it.
#[allow(clippy::type_complexity)]
#[pg_extern(stable, strict, parallel_unsafe)]
fn fair_verify_game(
    game_id: i64,
    fcinfo: pg_sys::FunctionCallInfo,
) -> TableIterator<
    'static,
    (
        name!(game_id, Option<i64>),
        name!(round, Option<i32>),
        name!(nonce, Option<i64>),
        name!(verified, Option<bool>),
        name!(problem, Option<String>),
    ),
> {
    let checked = with_desks(fcinfo, |desks| {
        let (desk_id, is_fair) = desks.game_desk(game_id).unwrap_or_else(|| no_game(game_id));
        if !is_fair {
            raise(Error::invalid(format!(
                "game {game_id} was not dealt in provably fair mode: there is nothing to verify"
            )));
        }
        check_desk(desks, desk_id)
    });
    let mine = checked
        .into_iter()
        .find(|c| c.game_id == Some(game_id))
        .expect("the desk's walk includes each of its fair games");
    if mine.verified.is_none() {
        raise(Error::new(
            ErrorKind::NotReady,
            format!("game {game_id} cannot be verified yet: the server seed of its commitment is not revealed"),
        ));
    }
    TableIterator::new(rows(vec![mine]))
}
