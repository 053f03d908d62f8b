#!/usr/bin/env bash
# The card rooms' hands judged by libraries written by others (tests/reference/outside_judges.py):
# PokerKit replays Hold'em, Omaha and short-deck hands the extension dealt, endplay reads its
# bridge boards' PBN. The libraries (tests/reference/judges.txt, pinned wheels from PyPI, no
# builds) go to target/judges once; the hands are dealt on the running throwaway cluster of
# PG_VERSION (scripts/cluster.sh), in a fresh database.
source "$(dirname "$0")/common.sh"
cd "$ROOT"
eval "$("$ROOT/scripts/cluster.sh" env)"
lib=$ROOT/target/judges
stamp=$lib/.installed-$(sha256sum tests/reference/judges.txt | cut -c1-16)
if [ ! -f "$stamp" ]; then
  rm -rf "$lib"
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
    --target "$lib" --only-binary=:all: --no-deps --requirement tests/reference/judges.txt
  touch "$stamp"
fi
fresh_database dealcards_judges
PYTHONPATH=$lib python3 tests/reference/outside_judges.py dealcards_judges
