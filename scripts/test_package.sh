#!/usr/bin/env bash
# Checks the Debian packages of scripts/package.sh (target/packages/), for each major given (or
# of PG_VERSIONS):
#   1. the control fields: Package postgresql-<major>-dealcards, Version <Cargo.toml's>-<revision>,
#      Architecture, Depends naming postgresql-<major>;
#   2. the files: exactly the library, the control file, this version's install script and the
#      upgrade scripts of sql/, under PGDG's paths for that major, and the copyright file;
#   3. on the system's PostgreSQL (Debian's 15): `apt-get install ./<package>.deb` with no other
#      dealcards files present (any there are moved aside first and put back after), the
#      pg_regress suite against it on a throwaway cluster, then `apt-get purge`, after which no
#      dealcards file is left;
#      on the other majors (PyPI's builds, which apt does not manage): the package's files laid
#      into a scratch copy of that major's build under the same relative paths, and a server of
#      that copy loads the library: CREATE EXTENSION dealcards and a seeded shuffle, a deal.
source "$(dirname "$0")/common.sh"
cd "$ROOT"
majors=${*:-$PG_VERSIONS}
version=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"$/\1/p' Cargo.toml)
revision=${DEB_REVISION:-1}
arch=$(dpkg --print-architecture)

fail() { echo "package test: $*" >&2; exit 1; }

# The files a package of `major` must hold, one path a line, sorted.
expected_files() {
  local major=$1 script
  {
    echo "./usr/lib/postgresql/$major/lib/dealcards.so"
    echo "./usr/share/postgresql/$major/extension/dealcards.control"
    echo "./usr/share/postgresql/$major/extension/dealcards--$version.sql"
    for script in sql/dealcards--*--*.sql; do
      echo "./usr/share/postgresql/$major/extension/$(basename "$script")"
    done
    echo "./usr/share/doc/postgresql-$major-dealcards/copyright"
  } | sort
}

check_package() {
  local major=$1 deb=$2 field
  [ -f "$deb" ] || fail "$deb is missing: run scripts/package.sh $major first"
  [ "$(dpkg-deb -f "$deb" Package)" = "postgresql-$major-dealcards" ] || fail "$deb: Package $(dpkg-deb -f "$deb" Package)"
  [ "$(dpkg-deb -f "$deb" Version)" = "$version-$revision" ] || fail "$deb: Version $(dpkg-deb -f "$deb" Version)"
  [ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || fail "$deb: Architecture $(dpkg-deb -f "$deb" Architecture)"
  field=$(dpkg-deb -f "$deb" Depends)
  printf '%s\n' "$field" | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep -qx "postgresql-$major" \
    || fail "$deb: Depends ($field) does not name postgresql-$major"
  diff <(expected_files "$major") <(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sort) \
    || fail "$deb: the files above differ (< expected, > in the package)"
  echo "$(basename "$deb"): control fields and files as expected (Depends: $field)"
}

# The pg_regress suite against the installed extension on the throwaway cluster of PG_VERSION.
regress() {
  local regress_out=$ROOT/target/regress-package-$PG_MAJOR tests
  "$ROOT/scripts/cluster.sh" restart
  eval "$("$ROOT/scripts/cluster.sh" env)"
  rm -rf "$regress_out" && mkdir -p "$regress_out"
  tests=$(cd tests/pg_regress/sql && ls -- *.sql | sed 's/\.sql$//' | sort)
  # shellcheck disable=SC2086
  if ! "$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/regress/pg_regress" \
    --inputdir=tests/pg_regress --outputdir="$regress_out" --bindir="$PG_BIN" \
    --host="$PGHOST" --port="$PGPORT" --user="$PGUSER" \
    --dbname=dealcards_regress --load-extension=dealcards $tests; then
    cat "$regress_out/regression.diffs" >&2 || true
    "$ROOT/scripts/cluster.sh" stop
    return 1
  fi
  "$ROOT/scripts/cluster.sh" stop
}

# Every dealcards file in the system PostgreSQL's library and extension folders.
system_files() {
  find "$SYSTEM_PG_ROOT/$SYSTEM_PG_VERSION/lib" "/usr/share/postgresql/$SYSTEM_PG_VERSION/extension" \
    -maxdepth 1 -name 'dealcards*' 2>/dev/null | sort
}

apt_install_test() {
  local major=$1 deb=$2 package=postgresql-$1-dealcards aside
  if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    fail "$package is installed already: this test installs and removes it, so remove it first (apt-get purge $package)"
  fi
  # Whatever dealcards files are there (cargo pgrx install's) go aside, and come back at exit.
  aside=$(mktemp -d)
  while read -r file; do
    [ -n "$file" ] || continue
    mkdir -p "$aside$(dirname "$file")"
    $SUDO mv "$file" "$aside$file"
  done < <(system_files)
  # shellcheck disable=SC2064
  trap "restore_aside '$aside' '$package'" EXIT
  [ -z "$(system_files)" ] || fail "dealcards files are still in the system PostgreSQL"

  say "PostgreSQL $major: apt-get install $(basename "$deb")"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$deb" </dev/null >/dev/null
  cmp -s <(dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/lib/postgresql/$major/lib/dealcards.so") \
    "$SYSTEM_PG_ROOT/$major/lib/dealcards.so" || fail "the installed library is not the package's"

  say "PostgreSQL $major: pg_regress against the package"
  use_pg "$major"
  PG_VERSION=$major regress || fail "pg_regress failed against the package"

  say "PostgreSQL $major: apt-get purge $package"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get purge -y -qq "$package" </dev/null >/dev/null
  [ -z "$(system_files)" ] || fail "files left after apt-get purge: $(system_files | tr '\n' ' ')"
  if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "installed"; then
    fail "$package is still known to dpkg after apt-get purge"
  fi
  echo "installed, passed pg_regress, and removed with nothing left"
}

restore_aside() {
  local aside=$1 package=$2 file
  if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get purge -y -qq "$package" </dev/null >/dev/null || true
  fi
  while read -r file; do
    [ -n "$file" ] || continue
    $SUDO mv "$file" "${file#"$aside"}"
  done < <(find "$aside" -type f)
  rm -rf "$aside"
}

# The package's files in a scratch copy of PyPI's build of `major`, and a server of it loading them.
load_test() {
  local major=$1 deb=$2 copy extracted port data
  copy=$(server_dir "package-load-$major")
  rm -rf "${copy:?}"/*
  cp -a "$PG_CACHE/$major/." "$copy/pg"
  use_pg "$major"
  local pkglibdir sharedir
  pkglibdir=$copy/pg/${PG_CONFIG_PKGLIBDIR_REL}
  sharedir=$copy/pg/${PG_CONFIG_SHAREDIR_REL}
  rm -f "$pkglibdir"/dealcards* "$sharedir"/extension/dealcards*
  extracted=$copy/extracted
  mkdir -p "$extracted"
  dpkg-deb -x "$deb" "$extracted"
  cp "$extracted/usr/lib/postgresql/$major/lib/"* "$pkglibdir/"
  cp "$extracted/usr/share/postgresql/$major/extension/"* "$sharedir/extension/"
  data=$copy/data
  [ "$AS_ROOT" = 0 ] || chown -R postgres: "$copy"
  as_pg_user "$copy/pg/bin/initdb" -D "$data" -A trust -U "$PG_OS_USER" --no-sync >"$copy/initdb.log" 2>&1 \
    || { cat "$copy/initdb.log" >&2; fail "initdb of the copy of $major failed"; }
  port=$((56000 + major))
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  as_pg_user "$copy/pg/bin/pg_ctl" -D "$data" -l "$copy/server.log" -w -t 60 \
    -o "-p $port -k $copy -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null \
    || { tail -20 "$copy/server.log" >&2; fail "the copy of $major does not start"; }
  local got expected
  got=$("$copy/pg/bin/psql" -X -q -At -h 127.0.0.1 -p "$port" -U "$PG_OS_USER" -d postgres -v ON_ERROR_STOP=1 <<'SQL' 2>&1
CREATE EXTENSION dealcards;
SELECT extversion FROM pg_extension WHERE extname = 'dealcards';
SELECT shuffle_ints(1, 10, decode(repeat('00', 32), 'hex'));
INSERT INTO desk (desk_id) VALUES (7);
INSERT INTO desk_player VALUES (7, 1, 101), (7, 2, 102), (7, 3, 103);
SELECT deal_cards(7) ->> 'game';
SQL
  ) || true
  as_pg_user "$copy/pg/bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
  # The seeded shuffle is README's example.
  expected=$(printf '%s\n' "$version" '{10,9,3,4,1,5,2,8,6,7}' 1)
  [ "$got" = "$expected" ] || fail "PostgreSQL $major did not load the package's library as expected; psql printed:
$got"
  rm -rf "${copy:?}"
  echo "PostgreSQL $major ($(cat "$PG_CACHE/$major/.wheel-version")) loads the package's dealcards.so: CREATE EXTENSION, a seeded shuffle, a deal"
}

for major in $majors; do
  use_pg "$major"
  deb=$ROOT/target/packages/postgresql-$major-dealcards_${version}-${revision}_$arch.deb
  say "PostgreSQL $major: the Debian package"
  check_package "$major" "$deb"
  if [ "$major" = "$SYSTEM_PG_VERSION" ]; then
    apt_install_test "$major" "$deb"
  else
    PG_CONFIG_PKGLIBDIR_REL=$(realpath --relative-to="$PG_CACHE/$major" "$("$PG_CONFIG" --pkglibdir)")
    PG_CONFIG_SHAREDIR_REL=$(realpath --relative-to="$PG_CACHE/$major" "$("$PG_CONFIG" --sharedir)")
    load_test "$major" "$deb"
  fi
done
