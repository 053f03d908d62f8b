#!/usr/bin/env bash
# One OCI image per PostgreSQL major of PG_VERSIONS from 18 on (the majors that have
# extension_control_path), for CloudNativePG's image volumes, into target/images/<tag>/ as OCI
# image layouts written by scripts/image.py, with no container daemon. <tag> is
# <version>-<major>-<distro>. Each image holds the files of that major's Debian package
# (scripts/package.sh builds them: the stripped library, the control file, this version's install
# script and the upgrade scripts) and the install scripts of earlier releases (sql/released/),
# so that CREATE EXTENSION ... VERSION may start from any release, as after scripts/install.sh.
#   image.sh [--profile NAME | --staged] [MAJOR...]
# --staged packs what scripts/package.sh last left in target/package-stage/ (make test, after
# packaging the build it tested). Push an image with skopeo, oras or crane, for example:
#   skopeo copy oci:target/images/<tag>:<tag> docker://<registry>/dealcards:<tag>
source "$(dirname "$0")/common.sh"
cd "$ROOT"
package=(--profile release)
case "${1:-}" in
  --profile) package=(--profile "$2"); shift 2 ;;
  --staged) package=(); shift ;;
esac
majors=${*:-$PG_VERSIONS}
out=$ROOT/target/images
mkdir -p "$out"
built=0
for major in $majors; do
  [ "$major" -ge 18 ] || continue
  if [ ${#package[@]} -gt 0 ]; then
    "$ROOT/scripts/package.sh" "${package[@]}" "$major" >/dev/null
  fi
  root=$ROOT/target/package-stage/$major/root
  [ -d "$root" ] || { echo "no package stage for $major: run scripts/package.sh $major" >&2; exit 1; }
  files=$ROOT/target/image-stage/$major
  rm -rf "$files" "$out/new-$major"
  mkdir -p "$files"
  cp "$root/usr/share/postgresql/$major/extension/"dealcards* "$files/"
  cp sql/released/dealcards--*.sql "$files/"
  say "PostgreSQL $major: an image for CloudNativePG"
  printed=$(python3 "$ROOT/scripts/image.py" --extension-dir "$files" \
    --library "$root/usr/lib/postgresql/$major/lib/dealcards.so" --pg-major "$major" \
    --revision "$(git rev-parse HEAD 2>/dev/null || true)" --out "$out/new-$major")
  tag=${printed%% *}
  rm -rf "${out:?}/$tag"
  mv "$out/new-$major" "$out/$tag"
  echo "$out/$tag: dealcards:$tag ${printed#* }"
  built=$((built + 1))
done
[ "$built" -gt 0 ] || { echo "no major of 18 or later among: $majors" >&2; exit 2; }
