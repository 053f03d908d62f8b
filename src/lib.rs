//! dealcards: fair, fast, replayable shuffling and card dealing inside PostgreSQL.
//!
//! This crate is the SQL layer only: argument conversion, SQLSTATEs and SPI. The algorithms live
//! in the pgrx-free crate `dealcards-core` (crates/core), and the statistical battery that
//! checks them in `dealcards-fairness` (crates/fairness), which the library does not contain.

::pgrx::pg_module_magic!(name, version);

pub mod arrays;
pub mod citus;
pub mod deal;
pub mod fair;
pub mod freecell;
pub mod playlist;
pub mod sample;
pub mod shuffle;
mod statements;
mod text;

// Last in the install script: refuses column changes to the extension's tables (sql/guard.sql).
pgrx::extension_sql_file!("../sql/guard.sql", name = "guard", finalize);

use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;

use dealcards_core::cards::Suits;
use dealcards_core::error::{Error, ErrorKind};
use dealcards_core::rng::{self, Stream};
use dealcards_core::scratch;
use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};

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

/// How labels show suits in this database: symbols in a UTF8 database, letters in any other,
/// whose encoding may not hold them (text in the database must be valid in its encoding, or it
/// cannot be read back, dumped or restored).
pub fn database_suits() -> Suits {
    // SAFETY: reads the backend's database encoding, set once at connection start.
    let encoding = unsafe { pg_sys::GetDatabaseEncoding() };
    if encoding == pg_sys::pg_enc::PG_UTF8 as i32 {
        Suits::Symbols
    } else {
        Suits::Letters
    }
}

/// `dealcards.max_working_memory`, in kB: the working memory one call may hold besides its
/// arguments and its result (sample tables, shuffle records and slots, decks). Only superusers
/// set it, so no role can raise what its own calls may take.
static MAX_WORKING_MEMORY_KB: GucSetting<i32> = GucSetting::<i32>::new(1 << 20);

/// Starts a call's working-memory budget from `dealcards.max_working_memory`: what the core
/// allocates beyond it is refused with 54000 before it is allocated.
pub fn limit_working_memory() {
    let kb = usize::try_from(MAX_WORKING_MEMORY_KB.get()).unwrap_or(0);
    scratch::set_working_memory_limit(kb.saturating_mul(1024));
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
    GucRegistry::define_int_guc(
        c"dealcards.max_working_memory",
        c"The working memory one dealcards call may use besides its arguments and result.",
        c"Sampling tables, shuffle records and slots, decks: beyond this a call is refused \
          (54000) before anything is allocated. Only superusers can change it.",
        &MAX_WORKING_MEMORY_KB,
        1024,
        i32::MAX,
        GucContext::Suset,
        GucFlags::UNIT_KB,
    );
}

/// Required by `cargo pgrx test`.
#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}

    #[must_use]
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec![]
    }
}

/// The release's packaging agrees with Cargo.toml: META.json (PGXN) and the SQL scripts.
#[cfg(test)]
mod packaging {
    use std::collections::BTreeSet;
    use std::path::Path;

    fn majors_in_features() -> BTreeSet<u32> {
        include_str!("../Cargo.toml")
            .lines()
            .filter_map(|l| l.strip_prefix("pg")?.split_once(" = ")?.0.parse().ok())
            .collect()
    }

    #[test]
    fn meta_json_names_this_release() {
        let meta: serde_json::Value = serde_json::from_str(include_str!("../META.json")).unwrap();
        let version = env!("CARGO_PKG_VERSION");
        assert_eq!(meta["name"], env!("CARGO_PKG_NAME"));
        assert_eq!(meta["version"], version);
        assert_eq!(meta["abstract"], env!("CARGO_PKG_DESCRIPTION"));
        assert_eq!(meta["provides"]["dealcards"]["version"], version);
        assert_eq!(meta["meta-spec"]["version"], "1.0.0");
        for file in ["file", "docfile"] {
            let path = meta["provides"]["dealcards"][file].as_str().unwrap();
            assert!(
                Path::new(env!("CARGO_MANIFEST_DIR")).join(path).exists(),
                "{path}"
            );
        }
        // The PostgreSQL range is the majors Cargo.toml builds for.
        let majors = majors_in_features();
        let (lowest, highest) = (majors.first().unwrap(), majors.last().unwrap());
        assert_eq!(
            meta["prereqs"]["runtime"]["requires"]["PostgreSQL"],
            format!(">= {lowest}.0.0, < {}.0.0", highest + 1)
        );
    }

    /// Every earlier release whose install script is kept (sql/dealcards--A.sql) reaches this
    /// version through upgrade scripts (sql/dealcards--A--B.sql, ...).
    #[test]
    fn every_earlier_release_has_an_upgrade_path() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sql");
        let mut installs = Vec::new();
        let mut upgrades = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let Some(versions) = name
                .strip_prefix("dealcards--")
                .and_then(|n| n.strip_suffix(".sql"))
            else {
                continue;
            };
            match versions.split_once("--") {
                Some((from, to)) => upgrades.push((from.to_string(), to.to_string())),
                None => installs.push(versions.to_string()),
            }
        }
        let current = env!("CARGO_PKG_VERSION");
        assert!(
            !installs.is_empty(),
            "no earlier release's install script is kept"
        );
        for release in installs {
            assert_ne!(
                release, current,
                "this release's install script is generated"
            );
            let mut at = release.clone();
            while at != current {
                at = upgrades
                    .iter()
                    .find(|(from, _)| *from == at)
                    .unwrap_or_else(|| {
                        panic!("no upgrade script from {at} (on the way from {release})")
                    })
                    .1
                    .clone();
            }
        }
    }
}
