//! fair_mode_on and fair_reveal as the SQL of 0.5.0 and 0.6.0 declares them (without a round's
//! bound), for databases still on that SQL until `ALTER EXTENSION dealcards UPDATE`: their C
//! symbols are the ones that SQL names, and no SQL of this release declares them
//! (`sql = false`). Their tables have no bound, so none is stored.

use pgrx::pg_sys;
use pgrx::prelude::*;

use super::{house_seats, mode_on, refuse_shaped_house_seats, reveal_round, DEFAULT_MAX_DEALS};

/// 0.6.0's fair_mode_on(desk, house_seats, seeds_required).
#[pg_extern(sql = false)]
fn fair_mode_on_v2(
    desk_id: i32,
    house_seats: Vec<Option<i32>>,
    seeds_required: bool,
    fcinfo: pg_sys::FunctionCallInfo,
) -> Vec<u8> {
    refuse_shaped_house_seats(fcinfo, 1);
    let house = self::house_seats(&house_seats);
    mode_on(
        desk_id,
        &house,
        seeds_required,
        DEFAULT_MAX_DEALS,
        None,
        fcinfo,
    )
}

/// 0.6.0's fair_reveal(desk, house_seats, seeds_required).
// The row type is spelled out: pgrx reads the column names from it.
#[allow(clippy::type_complexity)]
#[pg_extern(sql = false)]
fn fair_reveal_v2(
    desk_id: Option<i32>,
    house_seats: Option<Vec<Option<i32>>>,
    seeds_required: Option<bool>,
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
    TableIterator::once(reveal_round(
        desk_id,
        given_house,
        seeds_required,
        None,
        None,
        fcinfo,
    ))
}
