//! The provably fair functions as the SQL of 0.3.0 and 0.4.0 declares them, for databases still
//! on that SQL until `ALTER EXTENSION dealcards UPDATE`: their C symbols are the ones that SQL
//! names, and no SQL of this release declares them (`sql = false`). They keep those releases'
//! behaviour, which returns a revealed seed to the transaction that reveals it; 0.5.0's
//! functions (in the parent module) do not, and the update puts them in place.

use pgrx::pg_sys;
use pgrx::prelude::*;

use super::{commit, not_fair, now, with_desks};
use crate::changed_outside;

/// Marks the round revealed and returns its server seed, as 0.4.0 did.
fn reveal(desks: &mut crate::desk_store::DeskStore<'_, '_>, desk_id: i32, round: i32) -> Vec<u8> {
    desks
        .reveal_before_0_5(desk_id, round, now())
        .unwrap_or_else(|| {
            changed_outside(
                format!("desk {desk_id} names round {round} as its commitment, which has no unrevealed server seed"),
                "The desk's fair_round was changed outside dealcards' functions; fair_mode_off and fair_mode_on start a new round.",
            )
        })
}

/// 0.4.0's fair_mode_on(desk).
#[pg_extern(sql = false)]
fn fair_mode_on(desk_id: i32, fcinfo: pg_sys::FunctionCallInfo) -> Vec<u8> {
    with_desks(fcinfo, |desks| match desks.lock_commitment(desk_id) {
        Some((_, commitment)) => commitment,
        None => commit(desks, desk_id, None).to_vec(),
    })
}

/// 0.4.0's fair_mode_off(desk): the revealed seed, or NULL.
#[pg_extern(sql = false)]
fn fair_mode_off(desk_id: i32, fcinfo: pg_sys::FunctionCallInfo) -> Option<Vec<u8>> {
    with_desks(fcinfo, |desks| {
        let (round, _) = desks.lock_commitment(desk_id)?;
        desks.leave_fair_mode(desk_id);
        Some(reveal(desks, desk_id, round))
    })
}

/// 0.4.0's fair_reveal(desk): (server_seed, commitment, next_commitment).
#[pg_extern(sql = false)]
fn fair_reveal(
    desk_id: i32,
    fcinfo: pg_sys::FunctionCallInfo,
) -> TableIterator<
    'static,
    (
        name!(server_seed, Vec<u8>),
        name!(commitment, Vec<u8>),
        name!(next_commitment, Vec<u8>),
    ),
> {
    let row = with_desks(fcinfo, |desks| {
        let (round, commitment) = desks
            .lock_commitment(desk_id)
            .unwrap_or_else(|| not_fair(desk_id, "there is no commitment to reveal"));
        let next = commit(desks, desk_id, None);
        let seed = reveal(desks, desk_id, round);
        (seed, commitment, next.to_vec())
    });
    TableIterator::once(row)
}
