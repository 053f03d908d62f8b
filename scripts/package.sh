#!/usr/bin/env bash
# One Debian package per PostgreSQL major of PG_VERSIONS (all supported unless narrowed; or the
# majors given as arguments), for PGDG's layout, into target/packages/:
#   postgresql-<major>-dealcards_<version>-<revision>_<arch>.deb
#     /usr/lib/postgresql/<major>/lib/dealcards.so
#     /usr/share/postgresql/<major>/extension/dealcards.control, dealcards--<version>.sql and
#       the upgrade scripts dealcards--A--B.sql
#     /usr/share/doc/postgresql-<major>-dealcards/copyright
#   Depends: postgresql-<major>, and the shared libraries the library links (dpkg-shlibdeps).
# <version> is Cargo.toml's [workspace.package] version, <revision> DEB_REVISION (default 1).
# The files are what `cargo pgrx package` builds against that major's pg_config, laid out again
# under PGDG's paths (pgrx lays them out under the pg_config's own, which for PyPI's builds is
# their unpacked folder).
#   package.sh [--profile NAME] [MAJOR...]
# The default profile is release (what users get); make test passes --profile server-test, which
# reuses the build its server tests installed (the same files, compiled without fat LTO).
source "$(dirname "$0")/common.sh"
cd "$ROOT"
"$ROOT/scripts/setup.sh"

# cargo pgrx package builds the release profile unless told another.
profile=()
if [ "${1:-}" = --profile ]; then
  profile=(--profile "$2")
  shift 2
fi
majors=${*:-$PG_VERSIONS}

version=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"$/\1/p' Cargo.toml)
[ -n "$version" ] || { echo "no version in Cargo.toml's [workspace.package]" >&2; exit 1; }
revision=${DEB_REVISION:-1}
arch=$(dpkg --print-architecture)
# Who builds the packages (Debian's Maintainer field): set DEB_MAINTAINER to your own.
maintainer=${DEB_MAINTAINER:-"dealcards maintainers <maintainers@dealcards.invalid>"}
license=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^license = "\(.*\)"$/\1/p' Cargo.toml)
out=$ROOT/target/packages
mkdir -p "$out"

for major in $majors; do
  use_pg "$major"
  package=postgresql-$major-dealcards
  deb=$out/${package}_${version}-${revision}_$arch.deb
  stage=$ROOT/target/package-stage/$major
  say "PostgreSQL $major: $(basename "$deb") (cargo pgrx package, ${profile[*]:---profile release})"
  rm -rf "$stage"
  mkdir -p "$stage"
  cargo pgrx package "${profile[@]}" --pg-config "$PG_CONFIG" --out-dir "$stage/pgrx"

  root=$stage/root
  lib=$root/usr/lib/postgresql/$major/lib
  ext=$root/usr/share/postgresql/$major/extension
  doc=$root/usr/share/doc/$package
  mkdir -p "$lib" "$ext" "$doc" "$root/DEBIAN"
  mapfile -t libraries < <(find "$stage/pgrx" -type f -name 'dealcards.so')
  [ ${#libraries[@]} = 1 ] || { echo "cargo pgrx package made ${#libraries[@]} dealcards.so" >&2; exit 1; }
  install -m 644 "${libraries[0]}" "$lib/dealcards.so"
  strip --strip-unneeded "$lib/dealcards.so"
  find "$stage/pgrx" -type f \( -name 'dealcards.control' -o -name 'dealcards--*.sql' \) \
    -exec install -m 644 {} "$ext/" \;
  [ -f "$ext/dealcards.control" ] && [ -f "$ext/dealcards--$version.sql" ] \
    || { echo "cargo pgrx package made no control file or no dealcards--$version.sql" >&2; exit 1; }
  cat >"$doc/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: dealcards

Files: *
License: $license
EOF

  # The libraries dealcards.so links, as Debian dependencies (dpkg-shlibdeps reads the package
  # names from a debian/control of its own).
  shlib=$stage/shlibdeps
  mkdir -p "$shlib/debian"
  printf 'Source: dealcards\n\nPackage: %s\nArchitecture: any\n' "$package" >"$shlib/debian/control"
  shlib_depends=$(cd "$shlib" && dpkg-shlibdeps -O -e"$lib/dealcards.so" 2>/dev/null \
    | sed -n 's/^shlibs:Depends=//p')
  depends="postgresql-$major${shlib_depends:+, $shlib_depends}"

  cat >"$root/DEBIAN/control" <<EOF
Package: $package
Version: $version-$revision
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: database
Priority: optional
Description: fair shuffles, card deals and shuffle queues for PostgreSQL $major
 dealcards is a PostgreSQL extension for shuffling and dealing inside the
 database: fair random permutations from a cryptographic generator,
 replayable seeded shuffles, Dou Dizhu deals at desks, provably fair deals,
 FreeCell deals, shuffle queues for music players and row sampling
 aggregates. This package is built for PostgreSQL $major.
EOF
  rm -f "$deb"
  dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
  echo "$deb"
done
