//! The SQL layer: argument conversion, SQLSTATEs and SPI. No algorithm lives here.

pub mod arrays;
pub mod deal;
pub mod freecell;
pub mod playlist;
pub mod sample;
pub mod shuffle;
mod statements;

use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;

use crate::error::{Error, ErrorKind};
use crate::rng::{self, Stream};

/// Raises a core error as a Postgres ERROR with the SQLSTATE its kind stands for.
pub fn raise(error: Error) -> ! {
    let code = match error.kind {
        ErrorKind::InvalidParameter => PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        ErrorKind::TooLarge => PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
        ErrorKind::NotFound => PgSqlErrorCode::ERRCODE_NO_DATA_FOUND,
        ErrorKind::NotReady => PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        ErrorKind::Entropy => PgSqlErrorCode::ERRCODE_SYSTEM_ERROR,
    };
    ereport!(ERROR, code, error.message);
}

/// Unwraps a core result, raising its error.
pub fn ok_or_raise<T>(result: Result<T, Error>) -> T {
    result.unwrap_or_else(|e| raise(e))
}

/// Runs `f` with this backend's live stream (see [`rng::with_live`]). The process id that guards
/// against a stream copied by fork is Postgres's MyProcPid, set in every backend right after the
/// fork: a load from memory, where asking the kernel would be a system call on every shuffle.
pub fn with_live<R>(f: impl FnOnce(&mut Stream) -> R) -> Result<R, Error> {
    // SAFETY: MyProcPid is a plain int Postgres sets in each process before it runs any query.
    let pid = unsafe { pg_sys::MyProcPid };
    rng::with_live_in(pid as u32, f)
}

/// The interrupt check handed to long core loops: honours query cancel and statement_timeout.
pub fn check_for_interrupts() {
    pgrx::check_for_interrupts!();
}

/// Runs once per backend when the library loads (in the postmaster too, with
/// shared_preload_libraries): defines the settings. Nothing random is made here: a generator
/// created before the fork would be shared by every backend.
#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    // Errors reach clients as messages only. pgrx adds a Rust backtrace to an error's DETAIL
    // whenever the standard library captures one, which it does when RUST_BACKTRACE or
    // RUST_LIB_BACKTRACE is set in the server's environment; this turns that capture off for
    // the library before any error can happen.
    // SAFETY: a backend runs one thread, and _PG_init runs before any code of the extension.
    unsafe { std::env::set_var("RUST_LIB_BACKTRACE", "0") };
    deal::define_settings();
}
