#!/usr/bin/env bash
# Starts the next release: scripts/bump_version.sh 0.7.0
#   1. keeps the install script of the release now in Cargo.toml as sql/released/dealcards--OLD.sql
#      (what `cargo pgrx schema` generates now: the install script that release ships), so that
#      databases on it can update and the upgrade test starts from it;
#   2. writes sql/dealcards--OLD--NEW.sql with its header, for the release's SQL changes;
#   3. sets the version in Cargo.toml's [workspace.package] (every crate takes it from there)
#      and in META.json (checked against Cargo.toml by a unit test), and refreshes Cargo.lock.
# docs/development.md has the rest of the release checklist.
source "$(dirname "$0")/common.sh"
cd "$ROOT"
new=${1:?usage: scripts/bump_version.sh NEW_VERSION}
old=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
[ -n "$old" ] || { echo "no version in Cargo.toml's [workspace.package]" >&2; exit 1; }
[ "$old" != "$new" ] || { echo "the release is $old already" >&2; exit 1; }
[ ! -e "sql/released/dealcards--$old.sql" ] || { echo "sql/released/dealcards--$old.sql exists already" >&2; exit 1; }
say "keeping $old's install script (cargo pgrx schema pg$PG_VERSION)"
cargo pgrx schema "pg$PG_VERSION" --out "sql/released/dealcards--$old.sql"
cat >"sql/dealcards--$old--$new.sql" <<SQL
-- dealcards $old -> $new (ALTER EXTENSION dealcards UPDATE TO '$new').
--
-- Each section below adds what one part of $new adds to a fresh install; tests/upgrade.rs
-- compares a database updated through this script with a fresh install, object for object.
\\echo Use "ALTER EXTENSION dealcards UPDATE TO '$new'" to load this file. \\quit
SQL
sed -i "/^\[workspace.package\]/,/^\[/s/^version = \"$old\"/version = \"$new\"/" Cargo.toml
sed -i "s/\"version\": \"$old\"/\"version\": \"$new\"/g" META.json
cargo update --workspace --offline >/dev/null 2>&1 || cargo update --workspace
say "release $new begins: add its SQL changes to sql/dealcards--$old--$new.sql"
