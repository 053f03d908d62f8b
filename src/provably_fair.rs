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
//!
//! One file per phase: `rounds` (mode on and off, commitments, rules and bounds, the reveal,
//! client seeds), `dealing` (the round a deal is under and everything it refuses, the deal and
//! its record), `checks` (fair_deal, the verifications, receipts and the publication); the
//! functions of earlier releases' SQL in `before_0_5` and `before_0_7`. What they share is here;
//! each uses it, and its siblings' items, through `super`.

use std::cell::RefCell;
use std::collections::HashMap;

use pgrx::datum::Interval;
use pgrx::pg_sys;
use pgrx::prelude::*;
use pgrx::spi::SpiClient;
use pgrx::JsonB;

use crate::desk_store::{
    current_place, current_timeline, DeskStore, FairRecord, FairState, RoundRules, Seats,
};
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
mod checks;
mod dealing;
mod rounds;

use dealing::*;
pub use dealing::{deal_at, dealt_fair, forget};
use rounds::*;

/// How many deals a round may deal when its rules do not say: past its bound a desk deals
/// nothing until the round is revealed.
pub const DEFAULT_MAX_DEALS: i64 = 1000;

/// The time within which a round's seed is due when no other is given: one day (fair_mode_on's
/// default, and the next round's from fair_reveal after a round of a release before 0.7.0,
/// which has no time limit).
pub fn default_reveal_within() -> Interval {
    Interval::from_days(1)
}

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

/// The time a reveal holds the desk's lock (clock time, not the transaction's start): a deal
/// dealt later than this waited for the reveal. Passed as a value: Citus routes no UPDATE that
/// calls a volatile function.
fn now() -> pgrx::datum::TimestampWithTimeZone {
    // SAFETY: reads the clock.
    let now = unsafe { pg_sys::GetCurrentTimestamp() };
    pgrx::datum::TimestampWithTimeZone::try_from(now)
        .unwrap_or_else(|e| pgrx::error!("cannot read the clock: {e}"))
}

/// Runs `f` with the desk store of the calling function's schema.
fn with_desks<R>(
    fcinfo: pg_sys::FunctionCallInfo,
    f: impl FnOnce(&mut DeskStore<'_, '_>) -> R,
) -> R {
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client: &mut SpiClient<'_>| f(&mut DeskStore::new(client, &schema)))
}

/// Refuses (22004) a NULL where a function takes a value: never a silent no-op.
fn refuse_null(function: &str, what: &str) -> ! {
    pgrx::ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
        format!("{function} takes {what}, not NULL")
    );
}

/// The latest `reveal_by` a round may have: 9998-12-31 00:00:00+00, in microseconds since
/// 2000-01-01. The verifiers read a published time as ISO 8601 with a year of four digits
/// (verifier/index.html, tools/verify_deal.py), and a day before the year 9999 no time zone
/// prints it yet; the chain's rules hold it in microseconds since 1970 as 8 bytes, which any
/// later time near PostgreSQL's end (294276 AD) would overflow, and infinity cannot be written.
const LATEST_REVEAL_BY: pg_sys::TimestampTz = 252_423_993_600_000_000;
