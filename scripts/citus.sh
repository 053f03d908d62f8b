#!/usr/bin/env bash
# Makes Citus available to the system's PostgreSQL 15 (the only major Citus 13 and Debian share):
#   - a server that already has citus.so (a Citus package, or an earlier run of this script) is
#     used as it is;
#   - otherwise Citus is built once from its source tarball (../shared/vendor/citus-13.2.2.tar.gz,
#     or DEALCARDS_CITUS_TARBALL) into a cache, staged with `make install DESTDIR=...`, and the
#     staged files are copied into the server's directories. Later runs only copy (seconds).
# Exit status 3: Citus is unavailable (neither installed nor a tarball to build it from); a
# caller can skip its Citus tests on 3 and fail on anything else.
source "$(dirname "$0")/common.sh"
use_pg "$SYSTEM_PG_VERSION"

CITUS_TARBALL=${DEALCARDS_CITUS_TARBALL:-$ROOT/../shared/vendor/citus-13.2.2.tar.gz}
CITUS_VERSION=$(basename "$CITUS_TARBALL" | sed -n 's/^citus-\(.*\)\.tar\.gz$/\1/p')
CITUS_VERSION=${CITUS_VERSION:-13.2.2}
if [ "$AS_ROOT" = 1 ]; then
  CITUS_CACHE_ROOT=${DEALCARDS_CITUS_CACHE:-/var/cache/dealcards/citus}
else
  CITUS_CACHE_ROOT=${DEALCARDS_CITUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dealcards/citus}
fi
cache=$CITUS_CACHE_ROOT/$CITUS_VERSION-pg$PG_MAJOR
stage=$cache/stage

# What building Citus needs from Debian besides a C compiler and the server's headers.
citus_packages=(gcc make postgresql-server-dev-$PG_MAJOR libcurl4-openssl-dev liblz4-dev libzstd-dev
  libkrb5-dev libselinux1-dev libpam0g-dev)

unavailable() {
  cat >&2 <<EOF
Citus is not available for PostgreSQL $PG_MAJOR: $*
Either install Citus for PostgreSQL $PG_MAJOR (a package that puts citus.so into
$("$PG_CONFIG" --pkglibdir 2>/dev/null || echo "the server's library directory")),
or put the Citus $CITUS_VERSION source tarball at
  $CITUS_TARBALL
(https://github.com/citusdata/citus/archive/refs/tags/v$CITUS_VERSION.tar.gz, or set
DEALCARDS_CITUS_TARBALL to its path) and run this again: it is built once into $cache.
EOF
  exit 3
}

# The server's pg_config comes with postgresql-server-dev; without it nothing can be checked.
if [ ! -x "$PG_CONFIG" ]; then
  [ -f "$CITUS_TARBALL" ] || unavailable "no pg_config at $PG_CONFIG and no tarball at $CITUS_TARBALL"
  install_debian_packages " for Citus" "${citus_packages[@]}"
fi
pkglibdir=$("$PG_CONFIG" --pkglibdir)
sharedir=$("$PG_CONFIG" --sharedir)

installed() { [ -f "$pkglibdir/citus.so" ] && [ -f "$sharedir/extension/citus.control" ]; }

if installed && [ -z "${DEALCARDS_CITUS_REINSTALL:-}" ]; then
  echo "Citus (extension version $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$sharedir/extension/citus.control")) is installed in PostgreSQL $PG_MAJOR ($pkglibdir/citus.so)"
  exit 0
fi

# The cache is valid for one tarball and one server build (headers of another minor release may
# differ).
stamp="$(sha256sum "$CITUS_TARBALL" 2>/dev/null | cut -c1-64) $("$PG_CONFIG" --version)"
if [ ! -f "$stage/.complete" ] || [ "$(cat "$stage/.complete")" != "$stamp" ]; then
  [ -f "$CITUS_TARBALL" ] || unavailable "it is not installed, and there is no source tarball at $CITUS_TARBALL"
  install_debian_packages " for Citus" "${citus_packages[@]}"
  mkdir -p "$cache"
  # One build at a time per cache.
  exec 9>"$cache/.lock"
  flock 9
  if [ ! -f "$stage/.complete" ] || [ "$(cat "$stage/.complete")" != "$stamp" ]; then
    say "building Citus $CITUS_VERSION for PostgreSQL $("$PG_CONFIG" --version | cut -d' ' -f2) (once, a few minutes; cache: $cache)"
    started=$(date +%s)
    build=$cache/build
    rm -rf "$build" "$stage"
    mkdir -p "$build"
    tar xzf "$CITUS_TARBALL" --strip-components=1 -C "$build"
    # Debian's PostgreSQL 15.20 declares have_createdb_privilege() extern in commands/dbcommands.h;
    # Citus defines a static inline one of the same name for PostgreSQL < 16 ("static declaration
    # follows non-static declaration"). Give Citus's copy a name of its own.
    compat=$build/src/include/pg_version_compat.h
    sed -i '/^static inline bool$/{N;s/^static inline bool\nhave_createdb_privilege(void)$/#define have_createdb_privilege citus_have_createdb_privilege\n&/}' "$compat"
    grep -q '^#define have_createdb_privilege citus_have_createdb_privilege$' "$compat" || {
      echo "could not patch have_createdb_privilege in $compat: has the file changed?" >&2
      exit 1
    }
    (
      cd "$build"
      ./configure --quiet PG_CONFIG="$PG_CONFIG" >"$cache/configure.log" 2>&1 \
        || { tail -30 "$cache/configure.log" >&2; exit 1; }
      make -s -j"${DEALCARDS_CITUS_JOBS:-2}" >"$cache/build.log" 2>&1 \
        || { grep -E 'error|Error' "$cache/build.log" | head -30 >&2; exit 1; }
      make -s install DESTDIR="$stage" >>"$cache/build.log" 2>&1 \
        || { tail -30 "$cache/build.log" >&2; exit 1; }
    )
    rm -rf "$build"
    echo "$stamp" >"$stage/.complete"
    echo "built Citus $CITUS_VERSION in $(($(date +%s) - started)) s"
  fi
  flock -u 9
fi

# The staged tree mirrors the server's directories (…/lib/postgresql/15/lib, …/share/…).
say "installing Citus $CITUS_VERSION into PostgreSQL $PG_MAJOR (from $stage)"
(cd "$stage" && find . -path ./.complete -prune -o \( -type f -o -type l \) -print) | while read -r f; do
  $SUDO install -D -m "$(stat -c %a "$stage/$f")" "$stage/$f" "/${f#./}"
done
# The shared libraries Citus links with (curl, lz4, zstd) come with the build packages.
if ldd "$pkglibdir/citus.so" | grep -q 'not found'; then
  install_debian_packages " for Citus" "${citus_packages[@]}"
fi
installed || { echo "Citus's files did not reach $pkglibdir and $sharedir" >&2; exit 1; }
echo "Citus $CITUS_VERSION is installed in PostgreSQL $PG_MAJOR"
