//! Errors of the pure core. Each kind maps to one SQLSTATE in the SQL layer, so the core can say
//! what went wrong without knowing Postgres.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// An argument is outside what the function accepts (SQLSTATE 22023).
    InvalidParameter,
    /// The result would be larger than Postgres can hold (SQLSTATE 54000).
    TooLarge,
    /// A named object does not exist (SQLSTATE P0002).
    NotFound,
    /// An object is not in the state the operation needs (SQLSTATE 55000).
    NotReady,
    /// The operating system would not give us entropy (SQLSTATE 58000).
    Entropy,
    /// The operation does not apply to this kind of object (SQLSTATE 0A000).
    NotSupported,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidParameter, message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
