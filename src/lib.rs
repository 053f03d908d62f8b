//! dealcards: fair, fast, replayable shuffling and card dealing inside PostgreSQL.
//!
//! The pure core (`rng`, `shuffle`, `stats`, ...) knows nothing of Postgres; the `sql` module is
//! the thin layer that turns it into SQL functions.

::pgrx::pg_module_magic!(name, version);

pub mod cards;
pub mod deal;
pub mod error;
pub mod fairness;
pub mod freecell;
pub mod playlist;
pub mod rng;
pub mod sample;
pub mod scratch;
pub mod shuffle;
pub mod stats;

mod sql;

/// Required by `cargo pgrx test`.
#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}

    #[must_use]
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec![]
    }
}
