#!/usr/bin/env bash
# Random SQL against the extension, as a plain role, on a database where the extension's tables
# hold desks, games and queues: sqlsmith's random queries (which reach the extension's functions
# only now and then, among PostgreSQL's thousands), then random calls of every function of the
# extension with arguments drawn from pools of edge values. Fails on a server crash, or on an
# internal error (SQLSTATE XX000) in a statement that calls one of the extension's functions.
#   FUZZ_SECONDS  how long sqlsmith runs (default 60)
#   FUZZ_CALLS    how many random calls follow (default 3000)
#   FUZZ_SEED     the seed of both (default: the current time, printed so a run can be repeated)
# Uses the throwaway cluster of PG_VERSION, installing the optimized build first unless
# FUZZ_NO_INSTALL=1 (make test has installed its own).
source "$(dirname "$0")/common.sh"
cd "$ROOT"
seconds=${FUZZ_SECONDS:-60}
seed=${FUZZ_SEED:-$(date +%s)}
if [ "${FUZZ_NO_INSTALL:-0}" != 1 ]; then
  "$ROOT/scripts/setup.sh"
  "$ROOT/scripts/install.sh"
fi
"$ROOT/scripts/cluster.sh" start
eval "$("$ROOT/scripts/cluster.sh" env)"
command -v sqlsmith >/dev/null || { echo "sqlsmith is not installed: run scripts/setup.sh" >&2; exit 1; }

say "fuzzing dealcards on PostgreSQL $PG_MAJOR with sqlsmith for ${seconds}s (FUZZ_SEED=$seed)"
fresh_database dealcards_fuzz
role=dealcards_fuzzer
psql -q -X -d dealcards_fuzz -v ON_ERROR_STOP=1 >/dev/null <<SQL
SET client_min_messages = warning;
DO \$\$ BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = '$role') THEN
    EXECUTE 'DROP OWNED BY $role';
  ELSE
    CREATE ROLE $role LOGIN;
  END IF;
END \$\$;
-- What a game server needs: the extension's tables and sequences, no more.
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO $role;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO $role;
REVOKE ALL ON fair_seed FROM $role;
INSERT INTO desk (desk_id) SELECT generate_series(1, 20);
INSERT INTO desk_player SELECT d, s, d * 10 + s FROM generate_series(1, 18) d, generate_series(1, 3) s;
INSERT INTO desk_player VALUES (19, 1, 191);
SELECT count(fair_mode_on(d, seeds_required => false)) FROM generate_series(1, 9) d;
SELECT count(deal_cards(d)) FROM generate_series(1, 18) d, generate_series(1, 3);
SELECT count(*) FROM generate_series(1, 4) d, fair_reveal(d);
SELECT count(shuffle_queue_next(shuffle_queue_create(ARRAY(SELECT generate_series(1, n)::bigint))))
  FROM generate_series(1, 30) n;
-- Server-side evidence: the SQLSTATE of every logged error, and calls per function.
ALTER SYSTEM SET log_line_prefix = '%m [%p] %e ';
ALTER SYSTEM SET log_min_error_statement = 'error';
-- Each error's source location (LOCATION: function, file): tells PostgreSQL's own from ours.
ALTER SYSTEM SET log_error_verbosity = 'verbose';
ALTER SYSTEM SET track_functions = 'all';
SELECT pg_reload_conf();
SELECT pg_stat_reset();
SQL
log=$(dirname "$PGDATA")/server.log
start_line=$(($(wc -l <"$log") + 1))

status=0
timeout "$seconds" sqlsmith --target="host=$PGHOST port=$PGPORT user=$role dbname=dealcards_fuzz" \
  --seed="$seed" >"$ROOT/target/fuzz-sqlsmith.log" 2>&1 || true

# Random calls: every function of the extension, arguments from pools of edge values (NULLs,
# bounds, empty and multi-dimensional arrays, odd lower bounds, huge sizes, other element types,
# seeds of the wrong length, unknown desks and queues).
RANDOM=$seed
pick() { local -n pool=$1; printf '%s' "${pool[RANDOM % ${#pool[@]}]}"; }
ints=(0 1 -1 2 3 17 54 55 1000 -2147483648 2147483647 134217727 134217728 NULL)
bigints=(0 1 -1 2 3 54 1000000 8589934591 -9223372036854775808 9223372036854775807 NULL)
seeds=("decode(repeat('00', 32), 'hex')" "'\\x00'::bytea" "''::bytea" NULL
  "decode(md5('a') || md5('b'), 'hex')" "decode(repeat('ff', 33), 'hex')")
hands=("ARRAY[1, 2, 3]" "'{}'::int[]" "ARRAY[NULL, 1]::int[]" "ARRAY[55]" "'{{1,2},{3,4}}'::int[]"
  "(SELECT p1_cards FROM game LIMIT 1)" "array_fill(7, ARRAY[100000])" "'[3:5]={1,2,3}'::int[]" NULL
  "ARRAY[0, -1, 54]")
arrays=("ARRAY[1, 2, 3]" "'{a,b,NULL}'::text[]" "'{}'::int[]" "'{{1,2},{3,4}}'::int[]"
  "ARRAY['x'::varchar, 'yy']" "'1 2 3'::int2vector" "'1 2'::oidvector" "ARRAY[now(), now()]"
  "ARRAY['{\"a\": 1}'::jsonb, '[]']" "ARRAY[1.5, 2.25]::numeric[]" "ARRAY[ROW(1, 'a'), NULL]"
  "(SELECT array_agg(g) FROM generate_series(1, 100000) g)" "'[0:2]={1,2,3}'::int[]"
  "ARRAY[true, false, NULL]" "NULL::int[]" "ARRAY[''::bytea, '\\x01']" "ARRAY[1::int2, 2]"
  "(SELECT array_agg(md5(g::text)) FROM generate_series(1, 1000) g)" "'{{{1}},{{2}}}'::int[]")
tracks=("ARRAY[1, 2, 3]::bigint[]" "'{}'::bigint[]" "ARRAY[1, 1]::bigint[]" "ARRAY[NULL]::bigint[]"
  "ARRAY(SELECT generate_series(1, 1000)::bigint)" NULL "'{{1,2},{3,4}}'::bigint[]"
  "ARRAY[-9223372036854775808, 9223372036854775807]")
modes=("'shuffle'" "'random'" "''" NULL "'Shuffle'" "E'\\x01'" "repeat('x', 10000)")
queues=("(SELECT max(queue_id) FROM shuffle_queue)" "(SELECT min(queue_id) FROM shuffle_queue)" 1 -1
  NULL 999999)
desks=(1 2 18 19 20 21 -1 NULL 2147483647)
int_arrays=("'{}'::int[]" "'{3}'::int[]" "'{1,2,3}'::int[]" "'{0}'::int[]" "'{2,2}'::int[]" "'{NULL}'::int[]"
  "'{{1},{2}}'::int[]" "ARRAY[2147483647]" NULL)
bools=(true false NULL)
percents=(0 1e-30 0.001 50 100 -1 100.5 "'NaN'" "'Infinity'" NULL)
texts=("'x'" "''" NULL "repeat('é', 200)" "E'\\x01'" "'Zoë'")
client_seeds=("'{a,b,c}'::text[]" "'{}'::text[]" "'{a,NULL,c}'::text[]" "ARRAY[repeat('x', 257), 'b', 'c']"
  "'{{a,b},{c,d}}'::text[]" NULL "ARRAY['Zoë', '牌', '']" "'[0:2]={a,b,c}'::text[]")
games=("(SELECT max(game_id) FROM game)" "(SELECT min(game_id) FROM game WHERE fair_commitment IS NOT NULL)"
  -1 NULL)
call() {
  case $((RANDOM % 40)) in
    0) echo "shuffle_ints($(pick ints), $(pick ints))" ;;
    1) echo "shuffle_ints($(pick ints), $(pick ints), $(pick seeds))" ;;
    2) echo "deal_cards($(pick desks))" ;;
    3) echo "deal_hands($(pick ints), $(pick ints), $(pick ints))" ;;
    4) echo "deal_hands($(pick ints))" ;;
    5) echo "card_label($(pick ints))" ;;
    6) echo "sort_hand($(pick hands))" ;;
    7) echo "hand_labels($(pick hands))" ;;
    8) echo "freecell_layout($(pick bigints))" ;;
    9) echo "freecell_cards($(pick bigints))" ;;
    10) echo "freecell_board($(pick bigints))" ;;
    11) echo "shuffle_array($(pick arrays))" ;;
    12) echo "shuffle_array($(pick arrays), $(pick seeds))" ;;
    13) echo "sample_array($(pick arrays), $(pick ints))" ;;
    14) echo "sample_array($(pick arrays), $(pick ints), $(pick seeds))" ;;
    15) echo "sample_ints($(pick bigints), $(pick bigints), $(pick ints))" ;;
    16) echo "sample_ints($(pick bigints), $(pick bigints), $(pick ints), $(pick seeds))" ;;
    17) echo "shuffle_queue_create($(pick tracks), $(pick modes), $(pick ints))" ;;
    18) echo "shuffle_queue_next($(pick queues))" ;;
    19) echo "shuffle_queue_prev($(pick queues))" ;;
    20) echo "shuffle_queue_current($(pick queues))" ;;
    21) echo "shuffle_queue_add($(pick queues), $(pick bigints))" ;;
    22) echo "shuffle_queue_remove($(pick queues), $(pick bigints))" ;;
    23) echo "shuffle_queue_drop($(pick queues))" ;;
    24) echo "fair_mode_on($(pick desks))" ;;
    25) echo "fair_mode_off($(pick desks))" ;;
    26) echo "fair_reveal($(pick desks))" ;;
    27) echo "set_client_seed($(pick desks), $(pick ints), $(pick texts))" ;;
    28) echo "fair_deal($(pick seeds), $(pick client_seeds), $(pick bigints))" ;;
    29) echo "fair_verify_desk($(pick desks))" ;;
    30) echo "fair_verify_game($(pick games))" ;;
    31) echo "shuffle_spread($(pick arrays), $(pick arrays))" ;;
    32) echo "shuffle_spread($(pick arrays), $(pick arrays), $(pick seeds))" ;;
    33) echo "fair_mode_on($(pick desks), $(pick int_arrays), $(pick bools))" ;;
    34) echo "fair_reveal($(pick desks), $(pick int_arrays), $(pick bools))" ;;
    35) echo "fair_publication($(pick desks))" ;;
    36) echo "shuffle_key($(pick seeds), $(pick bigints))" ;;
    37) echo "shuffle_key($(pick seeds), $(pick texts))" ;;
    38) echo "(SELECT count(*) FROM game TABLESAMPLE sparse_bernoulli($(pick percents)) REPEATABLE ($(pick ints)))" ;;
    39) echo "(SELECT count(*) FROM sample_rows(NULL::game, $(pick ints), $(pick seeds)))" ;;
  esac
}
calls=${FUZZ_CALLS:-3000}
{
  echo "SET statement_timeout = '2s';"
  # IS NULL: a result of a billion bytes is the extension's to make, but not a text to send to
  # the client, which PostgreSQL cannot (array_out fails on more than 1 GB).
  for _ in $(seq "$calls"); do echo "SELECT $(call) IS NULL;"; done
} >"$ROOT/target/fuzz-calls.sql"
psql -X -q -d dealcards_fuzz -U "$role" -f "$ROOT/target/fuzz-calls.sql" >"$ROOT/target/fuzz-calls.log" 2>&1 || true

sleep 1
tail -n +"$start_line" "$log" >"$ROOT/target/fuzz-server.log"

psql -q -X -d dealcards_fuzz -v ON_ERROR_STOP=1 -c "ALTER SYSTEM RESET log_line_prefix" \
  -c "ALTER SYSTEM RESET log_min_error_statement" -c "ALTER SYSTEM RESET track_functions" \
  -c "SELECT pg_reload_conf()" >/dev/null

functions=$(psql -X -A -t -d dealcards_fuzz -c "
  SELECT string_agg(DISTINCT p.proname, '|') FROM pg_proc p
    JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
    JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'")
echo "calls of the extension's functions during the run:"
psql -X -q -d dealcards_fuzz -c "
  SELECT funcname, calls FROM pg_stat_user_functions
   WHERE funcname ~ '^($functions)\$' ORDER BY calls DESC, funcname"

if grep -E "terminated by signal|was terminated|server closed the connection unexpectedly" \
  "$ROOT/target/fuzz-server.log" "$ROOT/target/fuzz-sqlsmith.log"; then
  echo "the server crashed (target/fuzz-server.log, FUZZ_SEED=$seed)" >&2
  status=1
fi
# Each internal error with its location and the statement that raised it (logged on the lines
# after it, up to the next log line), joined into one line.
internal_errors() {
  awk '
    /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] / && !/ XX000 (STATEMENT|LOCATION|CONTEXT|DETAIL|HINT): / { if (error != "") print error; error = "" }
    / XX000 ERROR: / { error = $0; next }
    error != "" { error = error " " $0 }
    END { if (error != "") print error }' "$1"
}
# Those of them whose statement calls one of the extension's functions, less those raised by a
# function of PostgreSQL that the statement itself calls by name (its LOCATION names it: sqlsmith
# calls internal functions such as intervaltypmodout with arguments they refuse with XX000).
ours() {
  grep -E "STATEMENT:.*(^|[^a-z_])($functions) *\\(" | while IFS= read -r error; do
    raiser=$(sed -n 's/.* LOCATION:  \([a-z_0-9]*\), [a-z_0-9]*\.c:[0-9]*.*/\1/p' <<<"$error")
    if [ -n "$raiser" ] && grep -qE "STATEMENT:.*(^|[^a-z_0-9])$raiser *\\(" <<<"$error"; then
      continue
    fi
    printf '%s\n' "$error"
  done || true
}

# The detector itself must catch an internal error in a statement that spans lines.
printf '%s\n' "2026-01-01 00:00:00.000 UTC [1] XX000 ERROR:  XX000: probe" \
  "2026-01-01 00:00:00.000 UTC [1] XX000 LOCATION:  deal_cards_wrapper, src/deal_cards.rs:1" \
  "2026-01-01 00:00:00.000 UTC [1] XX000 STATEMENT:  select 1," "  public.card_label(1)" \
  "2026-01-01 00:00:01.000 UTC [1] 00000 LOG:  next" >"$ROOT/target/fuzz-probe.log"
[ -n "$(internal_errors "$ROOT/target/fuzz-probe.log" | ours)" ] || {
  echo "the fuzzing pass cannot see internal errors: its log parsing is broken" >&2
  exit 1
}
# ... and one raised inside the extension by PostgreSQL's C code (such as a transaction id
# assigned during recovery), but not one that a function of PostgreSQL called in the statement
# raised on its own.
printf '%s\n' "2026-01-01 00:00:00.000 UTC [1] XX000 ERROR:  XX000: cannot assign TransactionIds during recovery" \
  "2026-01-01 00:00:00.000 UTC [1] XX000 LOCATION:  GetNewTransactionId, varsup.c:72" \
  "2026-01-01 00:00:00.000 UTC [1] XX000 STATEMENT:  select public.deal_cards(1)" \
  "2026-01-01 00:00:01.000 UTC [1] XX000 ERROR:  XX000: invalid INTERVAL typmod: 0x4e" \
  "2026-01-01 00:00:01.000 UTC [1] XX000 LOCATION:  intervaltypmodout, timestamp.c:1034" \
  "2026-01-01 00:00:01.000 UTC [1] XX000 STATEMENT:  select pg_catalog.intervaltypmodout(78) where public.deal_cards(24) > null" \
  "2026-01-01 00:00:02.000 UTC [1] 00000 LOG:  next" >"$ROOT/target/fuzz-probe.log"
[ "$(internal_errors "$ROOT/target/fuzz-probe.log" | ours | grep -c .)" = 1 ] &&
  internal_errors "$ROOT/target/fuzz-probe.log" | ours | grep -q GetNewTransactionId || {
  echo "the fuzzing pass does not tell PostgreSQL's own internal errors from the extension's" >&2
  exit 1
}

internal=$(internal_errors "$ROOT/target/fuzz-server.log")
if [ -n "$internal" ]; then
  found=$(ours <<<"$internal")
  if [ -n "$found" ]; then
    printf 'internal errors (XX000) in statements calling the extension (FUZZ_SEED=%s):\n%s\n' "$seed" "$found" >&2
    status=1
  else
    echo "internal errors from PostgreSQL itself, in statements that call none of the extension's functions: $(wc -l <<<"$internal")"
  fi
fi
queries=$(grep -o "queries: [0-9]*" "$ROOT/target/fuzz-sqlsmith.log" | tail -1 || true)
echo "sqlsmith: ${queries:-see target/fuzz-sqlsmith.log}; then $calls random calls (target/fuzz-calls.sql)"
echo "errors by SQLSTATE in the server log:"
grep -o -E '^[0-9-]+ [0-9:.]+ [A-Z]+ \[[0-9]+\] [0-9A-Z]{5} ERROR: ' "$ROOT/target/fuzz-server.log" |
  awk '{ print $5 }' | sort | uniq -c | sort -rn | head -10 || true
[ "$status" = 0 ] && say "fuzzing found no crash and no internal error in the extension"
exit "$status"
