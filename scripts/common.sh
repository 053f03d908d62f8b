# Shared settings for the project's scripts. Source it; do not run it.
# shellcheck shell=bash
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_MAJOR=15
PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
PG_CONFIG=$PG_BIN/pg_config
PGRX_VERSION=0.18.1
export PATH="$HOME/.cargo/bin:$PATH"

# Postgres refuses to run as root: as root, servers run as the unprivileged `postgres` user.
if [ "$(id -u)" = 0 ]; then
  AS_ROOT=1
  SUDO=""
  PG_OS_USER=postgres
else
  AS_ROOT=0
  SUDO=sudo
  PG_OS_USER=$(id -un)
fi

say() { printf '\n== %s\n' "$*"; }

# Runs a command as the user that owns the Postgres servers.
as_pg_user() {
  if [ "$AS_ROOT" = 1 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# A directory the server user can write: under target/ when it can reach it, else under /tmp
# (a checkout in /root is not reachable by `postgres`).
server_dir() {
  local name=$1 dir="$ROOT/target/$1"
  mkdir -p "$dir"
  if [ "$AS_ROOT" = 1 ]; then
    chown postgres: "$dir"
    if ! runuser -u postgres -- test -w "$dir"; then
      dir=/tmp/dealcards-$(printf '%s' "$ROOT" | md5sum | cut -c1-8)-$name
      mkdir -p "$dir"
      chown postgres: "$dir"
    fi
  fi
  printf '%s\n' "$dir"
}
