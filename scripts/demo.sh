#!/usr/bin/env bash
# Installs dealcards, starts the throwaway cluster and runs demo/*.sql in a fresh database,
# printing each query with its output.
source "$(dirname "$0")/common.sh"
cd "$ROOT"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/install.sh"
"$ROOT/scripts/cluster.sh" start
eval "$("$ROOT/scripts/cluster.sh" env)"
fresh_database dealcards_demo
for f in demo/*.sql; do
  psql -X -q -d dealcards_demo -v ON_ERROR_STOP=1 --echo-queries -f "$f"
done
say "the demo server is still running: eval \"\$(scripts/cluster.sh env)\"; psql dealcards_demo"
