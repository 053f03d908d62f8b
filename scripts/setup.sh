#!/usr/bin/env bash
# Installs what building and testing dealcards needs, skipping whatever is already there:
# Debian packages, cargo-pgrx at the pinned version, and `cargo pgrx init` against the system
# PostgreSQL (no download of Postgres sources).
source "$(dirname "$0")/common.sh"

# fonts-dejavu-core: the font of the fairness report's picture.
packages=(postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR postgresql-contrib libclang-dev clang sudo make
  fonts-dejavu-core)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
fi

if ! command -v cargo >/dev/null; then
  echo "cargo is not installed: install Rust (https://rustup.rs) and run this again" >&2
  exit 1
fi

if ! cargo pgrx --version 2>/dev/null | grep -q " $PGRX_VERSION\$"; then
  say "installing cargo-pgrx $PGRX_VERSION (a few minutes, once)"
  cargo install cargo-pgrx --version "$PGRX_VERSION" --locked
fi

pgrx_config="${PGRX_HOME:-$HOME/.pgrx}/config.toml"
if ! grep -qs "^pg$PG_MAJOR = \"$PG_CONFIG\"" "$pgrx_config"; then
  say "pointing cargo-pgrx at the system PostgreSQL $PG_MAJOR"
  cargo pgrx init --pg$PG_MAJOR="$PG_CONFIG"
fi
