#!/usr/bin/env bash
# Builds dealcards and installs it into the system PostgreSQL.
#   install.sh           optimized build (what users and benchmarks get)
#   install.sh --debug   unoptimized build, quicker to compile (tests)
source "$(dirname "$0")/common.sh"
cd "$ROOT"
profile=(--release)
[ "${1:-}" = --debug ] && profile=()
sudo_flag=()
[ "$AS_ROOT" = 1 ] || sudo_flag=(--sudo)
say "building and installing dealcards ${profile[*]:-(debug)}"
cargo pgrx install "${profile[@]}" "${sudo_flag[@]}" --pg-config "$PG_CONFIG"
