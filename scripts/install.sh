#!/usr/bin/env bash
# Builds dealcards and installs it into the PostgreSQL of PG_VERSION (default 15, the system's).
#   install.sh                optimized build (what users and benchmarks get)
#   install.sh --server-test  optimized, without LTO: quicker to compile (make test)
# cargo pgrx install puts in the library, this version's install script and the upgrade scripts
# (sql/dealcards--A--B.sql); the install scripts of earlier releases (sql/released/) are copied
# too, so `CREATE EXTENSION dealcards VERSION 'A'` can start from one of them.
source "$(dirname "$0")/common.sh"
cd "$ROOT"
profile=(--release)
[ "${1:-}" = --server-test ] && profile=(--profile server-test)
sudo_flag=()
[ "$AS_ROOT" = 1 ] || sudo_flag=(--sudo)
say "building and installing dealcards (${profile[*]}) into PostgreSQL $PG_MAJOR"
cargo pgrx install "${profile[@]}" "${sudo_flag[@]}" --pg-config "$PG_CONFIG"
for script in sql/released/dealcards--*.sql; do
  [ -e "$script" ] || continue
  $SUDO install -m 644 "$script" "$("$PG_CONFIG" --sharedir)/extension/"
done
