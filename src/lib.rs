//! dealcards: fair, fast, replayable shuffling and card dealing inside PostgreSQL.
//!
//! This crate is the SQL layer only: argument conversion, SQLSTATEs and SPI. The algorithms live
//! in the pgrx-free crate `dealcards-core` (crates/core), and the statistical battery that
//! checks them in `dealcards-fairness` (crates/fairness), which the library does not contain.

::pgrx::pg_module_magic!(name, version);

// One module per docs page, named like it, holding that page's SQL functions:
pub mod arrays; // docs/arrays.md: shuffle_array, sample_array, sample_ints
pub mod citus; // docs/citus.md: dealcards_distribute, and ids on a cluster
pub mod deal_cards; // docs/deal_cards.md: deal_cards, card labels, deal_hands
pub mod freecell; // docs/freecell.md
pub mod operations; // docs/operations.md: dealcards_sync_sequences
pub mod playlist; // docs/playlist.md: the shuffle_queue_* functions
pub mod provably_fair; // docs/provably_fair.md: fair_* and set_client_seed
pub mod rooms; // docs/card_rooms.md: room_kinds and the hand_* functions
pub mod rows; // docs/rows.md: sample_agg, shuffle_agg, resample_agg, their seeded forms, shuffle_key
pub mod shuffle_ints; // docs/shuffle_ints.md
pub mod spread; // docs/spread.md: shuffle_spread
                // What they share:
mod desk_store; // every statement on the desk and provably fair tables
mod documents; // the JSON documents of deals, receipts and publications
mod fair_unseen; // a provably fair deal unseen where row level security does not reach
mod installed; // which release's tables a database has
mod results; // building result arrays and text in place
mod statements; // running statements: kept plans, qualified names, reading by name
mod text; // text arguments as bytes

// Last in the install script: refuses column changes and objects of the user's own on the
// extension's tables (sql/install/guard.sql).
pgrx::extension_sql_file!("../sql/install/guard.sql", name = "guard", finalize);

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
        ErrorKind::NotSupported => PgSqlErrorCode::ERRCODE_FEATURE_NOT_SUPPORTED,
    };
    ereport!(ERROR, code, error.message);
}

/// A row of the extension's tables that no function of dealcards could have left (rewritten by
/// hand, or by a trigger): one SQLSTATE for all of them, XX001 (data_corrupted), with a hint on
/// how to get back to a state the functions make.
pub fn changed_outside(message: String, hint: &str) -> ! {
    ereport!(ERROR, PgSqlErrorCode::ERRCODE_DATA_CORRUPTED, message, hint);
}

/// Refuses, on a hot standby, a function that must write (25006, read_only_sql_transaction, as
/// PostgreSQL's own refusals there): `doing` says what it would have written.
pub fn refuse_on_standby(doing: &str) {
    // SAFETY: reads whether this server is in recovery.
    if unsafe { pg_sys::RecoveryInProgress() } {
        ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_READ_ONLY_SQL_TRANSACTION,
            format!("dealcards cannot {doing} on a hot standby: this server is in recovery"),
            "Call it on the primary; on a standby the functions that only read (the seeded shuffles, FreeCell, the verifications, a queue's current track, up next and saved state) work."
        );
    }
}

/// Whether this transaction may write: not on a hot standby, not READ ONLY. A function that
/// only reads but would rather lock what it reads (row locks take a transaction id) locks only
/// then.
pub fn can_write() -> bool {
    // SAFETY: reads whether this server is in recovery and the transaction's read-only flag, a
    // plain bool Postgres keeps for the running transaction.
    unsafe { !pg_sys::RecoveryInProgress() && !pg_sys::XactReadOnly }
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
/// shared_preload_libraries): defines the settings and puts in place the checks that keep a
/// provably fair deal unseen (`fair_unseen`). Nothing random is made here: a generator
/// created before the fork would be shared by every backend.
#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    // Errors reach clients as messages only. pgrx adds a Rust backtrace to an error's DETAIL
    // whenever the standard library captures one, which it does when RUST_BACKTRACE or
    // RUST_LIB_BACKTRACE is set in the server's environment; this turns that capture off for
    // the library before any error can happen.
    // SAFETY: a backend runs one thread, and _PG_init runs before any code of the extension.
    unsafe { std::env::set_var("RUST_LIB_BACKTRACE", "0") };
    deal_cards::define_settings();
    fair_unseen::init();
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

    /// Every earlier release whose install script is kept (sql/released/dealcards--A.sql)
    /// reaches this version through upgrade scripts (sql/dealcards--A--B.sql, ...), and sql/
    /// itself holds upgrade scripts only: cargo pgrx install copies every
    /// `dealcards--A--B.sql` of sql/ and nothing else.
    #[test]
    fn every_earlier_release_has_an_upgrade_path() {
        let sql = Path::new(env!("CARGO_MANIFEST_DIR")).join("sql");
        let scripts = |dir: &Path| -> Vec<String> {
            std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap())
                .filter(|e| e.file_type().unwrap().is_file())
                .filter_map(|e| {
                    let name = e.file_name().into_string().unwrap();
                    Some(
                        name.strip_prefix("dealcards--")?
                            .strip_suffix(".sql")?
                            .to_string(),
                    )
                })
                .collect()
        };
        let mut upgrades = Vec::new();
        for versions in scripts(&sql) {
            let (from, to) = versions.split_once("--").unwrap_or_else(|| {
                panic!("sql/dealcards--{versions}.sql belongs in sql/released/")
            });
            upgrades.push((from.to_string(), to.to_string()));
        }
        let installs = scripts(&sql.join("released"));
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

    /// Every piece of per-backend state (a `thread_local!` of the library or the core) is
    /// listed in docs/development.md with what invalidates it.
    #[test]
    fn per_backend_state_is_listed() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let listed = std::fs::read_to_string(root.join("docs/development.md")).unwrap();
        let mut files = vec![root.join("src"), root.join("crates/core/src")];
        let mut found = Vec::new();
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for block in text.split("thread_local! {").skip(1) {
                let block = &block[..block.find("\n}").unwrap_or(block.len())];
                for line in block.lines() {
                    let Some(rest) = line.trim().strip_prefix("static ") else {
                        continue;
                    };
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !path.ends_with("tests.rs") {
                        found.push((name, path.clone()));
                    }
                }
            }
        }
        assert!(found.len() >= 5, "{found:?}");
        for (name, path) in found {
            assert!(
                listed.contains(&format!("| `{name}` |")),
                "{name} ({}) is per-backend state that docs/development.md does not list",
                path.display()
            );
        }
    }
}
