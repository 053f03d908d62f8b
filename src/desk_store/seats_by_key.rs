//! A provably fair deal's seats, read by the seat table's primary key without a statement: an
//! index scan of `desk_player_pkey` for the desk, as PostgreSQL's own code reads its catalogs
//! (`systable_beginscan`). The join that read them with the desk's lock was a quarter of a
//! provably fair deal's time, most of it the executor's set-up of five plan nodes for three rows.
//!
//! It reads what `fair_seats.sql` reads, with a snapshot taken once the desk's lock is held, so
//! the seats are those committed before the lock was granted (a seating committed by a
//! transaction the deal waited for included). Only on a plain server with 0.7.0's tables, whose
//! seat table is a plain table of the extension's: on a Citus node the seats live in the desk's
//! shard, and older tables have other columns; those read with statements.

use std::ffi::CStr;

use pgrx::pg_sys;

use super::Seats;
use crate::statements::ExtensionSchema;
use dealcards_core::deal::SEATS;

/// The columns read, by name: their numbers are asked of the catalog (an updated database has
/// `seed_player` after the columns of earlier releases).
const COLUMNS: [&CStr; 6] = [
    c"desk_id",
    c"player_no",
    c"player_id",
    c"client_seed",
    c"seed_round",
    c"seed_player",
];

/// The seats of `desk_id` with the client seeds their players set under `round`, or none where
/// the seat table or its key is not found (the caller reads them with a statement).
pub fn read(schema: &ExtensionSchema, desk_id: i32, round: i32) -> Option<Seats> {
    let table = schema.relation(c"desk_player")?;
    let key = schema.relation(c"desk_player_pkey")?;
    // SAFETY: catalog cache lookups of the table's columns by NUL-terminated names.
    let columns = COLUMNS.map(|name| unsafe { pg_sys::get_attnum(table, name.as_ptr()) });
    if columns.contains(&(pg_sys::InvalidAttrNumber as i16)) {
        return None;
    }
    let [desk, player_no, player_id, client_seed, seed_round, seed_player] = columns.map(i32::from);
    let mut seats = Seats::empty();
    // SAFETY: the table is opened and locked (AccessShareLock, as a SELECT takes) and closed,
    // the snapshot registered and unregistered, and the scan begun and ended, in this order; an
    // ERROR in between releases all three with the transaction's resources. Each tuple is read
    // while the scan holds its buffer, and its columns are copied out before the next.
    unsafe {
        let rel = pg_sys::table_open(table, pg_sys::AccessShareLock as pg_sys::LOCKMODE);
        let desc = (*rel).rd_att;
        let snapshot = pg_sys::RegisterSnapshot(pg_sys::GetTransactionSnapshot());
        let encoding = pg_sys::GetDatabaseEncoding();
        let mut scan_key = pg_sys::ScanKeyData::default();
        pg_sys::ScanKeyInit(
            &mut scan_key,
            desk as pg_sys::AttrNumber,
            pg_sys::BTEqualStrategyNumber as pg_sys::StrategyNumber,
            pg_sys::RegProcedure::from(pg_sys::F_INT4EQ),
            pg_sys::Datum::from(desk_id),
        );
        let scan = pg_sys::systable_beginscan(rel, key, true, snapshot, 1, &mut scan_key);
        loop {
            let tuple = pg_sys::systable_getnext(scan);
            if tuple.is_null() {
                break;
            }
            let get = |attnum: i32| {
                let mut null = false;
                let datum = pg_sys::heap_getattr(tuple, attnum, desc, &mut null);
                (!null).then_some(datum)
            };
            seats.seated += 1;
            // player_no is NOT NULL and CHECKed to be 1..3.
            let Some(n) = get(player_no)
                .map(|d| d.value() as i16 as usize)
                .filter(|s| (1..=SEATS).contains(s))
            else {
                continue;
            };
            let id = get(player_id).map(|d| d.value() as i64);
            seats.player_ids[n - 1] = id;
            let seed_counts = get(seed_round).map(|d| d.value() as i32) == Some(round)
                && get(seed_player).map(|d| d.value() as i64) == id;
            if seed_counts {
                seats.client_seeds[n - 1] = get(client_seed).map(|d| utf8(d, encoding));
            }
            // The raw xmin, as the xmin column gives it.
            let xmin = (*(*tuple).t_data).t_choice.t_heap.t_xmin;
            seats.written_here[n - 1] = pg_sys::TransactionIdIsCurrentTransactionId(xmin);
        }
        pg_sys::systable_endscan(scan);
        pg_sys::UnregisterSnapshot(snapshot);
        pg_sys::table_close(rel, pg_sys::AccessShareLock as pg_sys::LOCKMODE);
    }
    Some(seats)
}

/// A text datum's value in UTF-8, as `convert_to(client_seed, 'UTF8')` gives it.
///
/// # Safety
/// `datum` is a non-NULL text datum of a tuple the caller holds, `encoding` the database's.
unsafe fn utf8(datum: pg_sys::Datum, encoding: i32) -> Vec<u8> {
    // SAFETY: a text datum, detoasted (into the current memory context if it was toasted or
    // compressed), then its bytes; converted from the server's encoding where that is not UTF-8.
    unsafe {
        let text = pg_sys::pg_detoast_datum_packed(datum.cast_mut_ptr());
        let len = pgrx::varsize_any_exhdr(text);
        let data = pgrx::vardata_any(text) as *const std::ffi::c_char;
        if encoding == pg_sys::pg_enc::PG_UTF8 as i32 {
            return std::slice::from_raw_parts(data as *const u8, len).to_vec();
        }
        let converted = pg_sys::pg_server_to_any(data, len as i32, pg_sys::pg_enc::PG_UTF8 as i32);
        if std::ptr::eq(converted, data) {
            std::slice::from_raw_parts(data as *const u8, len).to_vec()
        } else {
            CStr::from_ptr(converted).to_bytes().to_vec()
        }
    }
}
