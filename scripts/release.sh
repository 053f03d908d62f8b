#!/usr/bin/env bash
# Every artifact of a release, built from the committed tree and checked together, into
# target/release/<version>/ (`make release`):
#   postgresql-<major>-dealcards_<version>-<revision>_<arch>.deb  per major of PG_VERSIONS
#       (scripts/package.sh, optimized), each checked by scripts/test_package.sh: its fields
#       and files, then installed (apt-get on the system's major, a copy of the build on the
#       others) and run;
#   dealcards-<version>-<major>-<distro>.oci.tar  per major from 18 on: the CloudNativePG image
#       (scripts/image.sh) as a tar of its OCI layout, its layer checked to hold exactly the
#       package's files and the earlier releases' install scripts;
#   dealcards-<version>.zip  the PGXN distribution (git archive of HEAD), checked against its
#       META.json: name, version, the files it provides;
#   dealcards_verify.sql  the verifier for any PostgreSQL, loaded into a database of the
#       system's major that has pgcrypto and no dealcards, where it must deal the golden deals of
#       tests/reference/fair_golden.json;
#   SHA256SUMS  of all of the above.
# First it checks that the versions agree: Cargo.toml's [workspace.package], META.json (and
# what it provides), and the newest heading of CHANGELOG.md; and that the tree has no change
# left uncommitted (the zip is HEAD). PG_VERSIONS="15 18" make release builds some majors only.
source "$(dirname "$0")/common.sh"
cd "$ROOT"

fail() { echo "release: $*" >&2; exit 1; }

version=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"$/\1/p' Cargo.toml)
[ -n "$version" ] || fail "no version in Cargo.toml's [workspace.package]"
say "release $version: versions"
python3 - "$version" <<'EOF' || exit 1
import json, re, sys
version = sys.argv[1]
meta = json.load(open("META.json"))
wrong = [f"META.json {k}: {v}" for k, v in
         [("version", meta["version"])] + [(f"provides.{n}.version", p["version"])
                                           for n, p in meta["provides"].items()]
         if v != version]
heading = re.search(r"^## (\S+)(.*)$", open("CHANGELOG.md").read(), re.M)
if not heading or heading.group(1) != version:
    wrong.append(f"CHANGELOG.md's newest heading: {heading and heading.group(0)}")
elif "unreleased" in heading.group(2):
    print(f"release: CHANGELOG.md still calls {version} unreleased: a draft", file=sys.stderr)
for line in wrong:
    print(f"release: {line}, not {version}", file=sys.stderr)
sys.exit(1 if wrong else 0)
EOF
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  fail "the tree has uncommitted changes: the release is built from HEAD"
fi

out=$ROOT/target/release/$version
rm -rf "$out"
mkdir -p "$out"

# The packages, then the images of the same files.
for major in $PG_VERSIONS; do
  "$ROOT/scripts/package.sh" "$major"
  "$ROOT/scripts/test_package.sh" "$major"
  cp "$ROOT"/target/packages/postgresql-"$major"-dealcards_"$version"-*.deb "$out/"
  if [ "$major" -ge 18 ]; then
    say "PostgreSQL $major: the image"
    printed=$("$ROOT/scripts/image.sh" --staged "$major" | tail -1)
    layout=${printed%%:*}
    tag=$(basename "$layout")
    python3 - "$layout" "$ROOT/target/package-stage/$major/root" "$major" <<'EOF' || exit 1
import gzip, hashlib, io, json, sys, tarfile
from pathlib import Path
layout, root, major = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
def blob(digest):
    data = (layout / "blobs/sha256" / digest.split(":")[1]).read_bytes()
    assert "sha256:" + hashlib.sha256(data).hexdigest() == digest, digest
    return data
manifest = json.loads(blob(json.load(open(layout / "index.json"))["manifests"][0]["digest"]))
layer = tarfile.open(fileobj=io.BytesIO(gzip.decompress(blob(manifest["layers"][0]["digest"]))))
held = {m.name: layer.extractfile(m).read() for m in layer.getmembers() if m.isfile()}
# What the package holds, and the earlier releases' install scripts.
extension = root / f"usr/share/postgresql/{major}/extension"
wanted = {f"share/extension/{p.name}": p.read_bytes()
          for p in [*extension.glob("dealcards*"), *Path("sql/released").glob("dealcards--*.sql")]}
wanted["lib/dealcards.so"] = (root / f"usr/lib/postgresql/{major}/lib/dealcards.so").read_bytes()
if held != wanted:
    sys.exit(f"release: the image holds {sorted(held)}, the package {sorted(wanted)}")
EOF
    tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$layout" \
      -cf "$out/dealcards-$tag.oci.tar" .
  fi
done

say "the PGXN distribution"
git archive --format=zip --prefix="dealcards-$version/" -o "$out/dealcards-$version.zip" HEAD
python3 - "$out/dealcards-$version.zip" "$version" <<'EOF' || exit 1
import json, sys, zipfile
path, version = sys.argv[1], sys.argv[2]
prefix = f"dealcards-{version}/"
names = set(zipfile.ZipFile(path).namelist())
meta = json.loads(zipfile.ZipFile(path).read(prefix + "META.json"))
problems = []
if meta["name"] != "dealcards" or meta["version"] != version:
    problems.append(f"META.json names {meta['name']} {meta['version']}")
for name, provided in meta["provides"].items():
    for key in ("file", "docfile"):
        if key in provided and prefix + provided[key] not in names:
            problems.append(f"{name}'s {key} {provided[key]} is not in the zip")
if any(not n.startswith(prefix) for n in names):
    problems.append("a file outside " + prefix)
for p in problems:
    print("release: " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF

say "the verifier for any PostgreSQL"
cp verifier/dealcards_verify.sql "$out/"
use_pg "$SYSTEM_PG_VERSION"
"$ROOT/scripts/cluster.sh" start >/dev/null
eval "$("$ROOT/scripts/cluster.sh" env)"
db=dealcards_release_verifier
psql -X -q -d postgres -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
psql -X -q -d "$db" -v ON_ERROR_STOP=1 -c "CREATE EXTENSION pgcrypto" -f "$out/dealcards_verify.sql"
python3 - <<'EOF' >"$out/.golden.sql"
import json
for d in json.load(open("tests/reference/fair_golden.json"))["deals"]:
    seeds = ", ".join("'" + s.replace("'", "''") + "'" for s in d["client_seeds"])
    want = "ARRAY[" + ", ".join(f"'{{{','.join(map(str, d[k]))}}}'::int[]"
                                for k in ("p1_cards", "p2_cards", "p3_cards")) + "]"
    print(f"SELECT ARRAY[p1_cards, p2_cards, p3_cards] = {want} FROM "
          f"dealcards_verify_deal(decode('{d['server_seed']}', 'hex'), ARRAY[{seeds}]::text[], {d['nonce']});")
EOF
results=$(psql -X -q -A -t -d "$db" -v ON_ERROR_STOP=1 -f "$out/.golden.sql" | sort | uniq -c)
rm -f "$out/.golden.sql"
psql -X -q -d postgres -c "DROP DATABASE $db"
[[ "$results" =~ ^[[:space:]]*[0-9]+\ t$ ]] || fail "the verifier's golden deals: $results"

say "SHA256SUMS"
(cd "$out" && sha256sum -- * >SHA256SUMS)
cat "$out/SHA256SUMS"
echo "release $version: $out"
