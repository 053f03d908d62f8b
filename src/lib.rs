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
