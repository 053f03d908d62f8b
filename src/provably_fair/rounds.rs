//! A desk's rounds: provably fair mode on and off, the commitment of each round's server seed,
//! its rules and bound (the deals it may deal, when its seed is due), the reveal that ends it,
//! and the players' client seeds.

use super::*;

/// Draws a new server seed, stores it as the desk's next round (with `rules`, none on the tables
/// of 0.3.0 and 0.4.0) and puts its commitment in force.
pub(super) fn commit(
    desks: &mut DeskStore<'_, '_>,
    desk_id: i32,
    rules: Option<RoundRules<'_>>,
) -> Hash {
    let seed = ok_or_raise(fair::new_server_seed());
    let commitment = fair::commitment(&seed);
    desks.commit_round(desk_id, &commitment, &seed, rules);
    commitment
}

/// Marks the round revealed. Its seed is not read: the fair_commitment view shows it once this
/// transaction has committed, and never to a transaction that can still undo the reveal.
pub(super) fn reveal(desks: &mut DeskStore<'_, '_>, desk_id: i32, round: i32) {
    if !desks.reveal(desk_id, round, now()) {
        changed_outside(
            format!("desk {desk_id} names round {round} as its commitment, which has no unrevealed server seed"),
            "The desk's fair_round was changed outside dealcards' functions; fair_mode_off and fair_mode_on start a new round.",
        );
    }
}

/// Refuses (22023) house seats given as an array of more than one dimension or with a lower
/// bound other than 1 (argument `arg` of the call): a list of seats is a plain array.
pub(super) fn refuse_shaped_house_seats(fcinfo: pg_sys::FunctionCallInfo, arg: usize) {
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
pub(super) fn house_seats(seats: &[Option<i32>]) -> Vec<i16> {
    let house = ok_or_raise(fair::house_seats(seats));
    (1..=SEATS as i16)
        .filter(|s| house[*s as usize - 1])
        .collect()
}

/// Checks a round's bound (22023): at least one deal, and a time limit after the commitment.
pub(super) fn check_bound(max_deals: i64, reveal_within: Option<Interval>) {
    if max_deals < 1 {
        raise(Error::invalid(format!(
            "a round deals at least once before its reveal: max_deals must be at least 1, got {max_deals}"
        )));
    }
    if let Some(within) = reveal_within {
        check_reveal_within(within);
    }
}

/// Refuses a `reveal_within` that would not give a round committed now a `reveal_by` after its
/// commitment (22023) and no later than [`LATEST_REVEAL_BY`] (22008, as PostgreSQL's own
/// "timestamp out of range"): infinite, or so long that the time leaves the range. The
/// commitment's time is the transaction's start, `now()`, as the statement that stores the
/// round takes it, and the sum is PostgreSQL's, months and days in the session's time zone.
pub(super) fn check_reveal_within(within: Interval) {
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
pub(super) fn timestamp_plus(
    at: pg_sys::TimestampTz,
    within: Interval,
) -> Option<pg_sys::TimestampTz> {
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
pub(super) fn interval_text(within: Interval) -> String {
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
/// is in the mode already. Not STRICT: a NULL argument is refused (22004), but `reveal_within`
/// (one day unless given), whose NULL is no time limit.
#[pg_extern(name = "fair_mode_on", volatile, parallel_unsafe)]
pub(super) fn fair_mode_on_v3(
    desk_id: Option<i32>,
    house_seats: default!(Option<Vec<Option<i32>>>, "'{}'"),
    seeds_required: default!(Option<bool>, true),
    max_deals: default!(Option<i64>, 1000),
    reveal_within: default!(Option<Interval>, "'1 day'"),
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
pub(super) fn fair_mode_off_v2(
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
        // The round's span carried to the next from a later commitment: checked again. A round
        // committed before the update to 0.7.0 (it records no place) has no time limit that the
        // house asked for: its next round gets the default.
        let reveal_within = reveal_within
            .or(current.reveal_within)
            .or_else(|| current.place.is_none().then(default_reveal_within));
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
pub(super) fn fair_reveal_v3(
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
pub(super) fn set_client_seed(
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
