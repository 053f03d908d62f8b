//! The SQL layer: argument conversion, SQLSTATEs and SPI. No algorithm lives here.

pub mod arrays;
pub mod deal;
pub mod freecell;
pub mod playlist;
pub mod sample;
pub mod shuffle;

use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;

use crate::error::{Error, ErrorKind};

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

/// The interrupt check handed to long core loops: honours query cancel and statement_timeout.
pub fn check_for_interrupts() {
    pgrx::check_for_interrupts!();
}
