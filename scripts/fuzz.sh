#!/usr/bin/env bash
# Random SQL against the extension, as a plain role, on a database where the extension's tables
# hold desks, games and queues, for each seed: calls of every function of the extension with
# arguments drawn from pools of edge values (tests/fuzz/calls.sh), then sqlsmith's random queries
# (which reach the extension's functions only now and then, among PostgreSQL's thousands). Fails
# on a server crash; on an internal error (SQLSTATE XX000) raised inside the extension: one whose
# location is in the extension's code, or one of a statement calling the extension that does not
# come back when replayed on a copy of the database whose extension functions are stubs
# (tests/fuzz/stubs.sql; one that comes back there is PostgreSQL's own and is forgiven); when
# sqlsmith ran no query for a seed; or when a function of the extension (every entry of pg_proc
# the extension owns) got no call.
#   FUZZ_SEED     one seed for sqlsmith and the random calls (default: the current time, so
#                 each `make fuzz` explores anew); printed with any failure, to repeat the run
#   FUZZ_FIXED=1  the seeds of tests/fuzz/seeds instead, each with FUZZ_QUERIES queries: what
#                 `make test` runs, the same statements on every run
#   FUZZ_QUERIES  sqlsmith's number of queries per seed (default: as many as FUZZ_SECONDS allow)
#   FUZZ_SECONDS  how long sqlsmith runs at most per seed (default 60)
#   FUZZ_CALLS    how many random calls follow the sweep of every case (default 3000)
# Uses the throwaway cluster of PG_VERSION, installing the optimized build first unless
# FUZZ_NO_INSTALL=1 (make test has installed its own).
source "$(dirname "$0")/common.sh"
cd "$ROOT"
seconds=${FUZZ_SECONDS:-60}
queries=${FUZZ_QUERIES:-}
if [ "${FUZZ_FIXED:-0}" = 1 ]; then
  mapfile -t fuzz_seeds < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e 's/[[:space:]]//g' "$ROOT/tests/fuzz/seeds")
  [ ${#fuzz_seeds[@]} -gt 0 ] || { echo "tests/fuzz/seeds lists no seed" >&2; exit 1; }
else
  fuzz_seeds=("${FUZZ_SEED:-$(date +%s)}")
fi
if [ "${FUZZ_NO_INSTALL:-0}" != 1 ]; then
  "$ROOT/scripts/setup.sh"
  "$ROOT/scripts/install.sh"
fi
"$ROOT/scripts/cluster.sh" start
eval "$("$ROOT/scripts/cluster.sh" env)"
command -v sqlsmith >/dev/null || { echo "sqlsmith is not installed: run scripts/setup.sh" >&2; exit 1; }

say "fuzzing dealcards on PostgreSQL $PG_MAJOR with sqlsmith (${queries:-at most ${seconds}s of} queries a seed), seeds ${fuzz_seeds[*]}"
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
-- A bridge board dealt and committed, the first hand (hand_pbn writes it).
SELECT count(*) FROM hand_deal(hand_start(1, 'bridge', board => 3));
-- Queues of every kind, stepped, some with tracks up next, skipped or drawn ahead; their saved
-- states are the real ones shuffle_queue_restore is given (and tampered with).
CREATE TABLE fuzz_saved (id int PRIMARY KEY, state jsonb NOT NULL);
CREATE TEMP TABLE fuzz_queue (id, queue_id) AS VALUES
  (1, shuffle_queue_create(ARRAY(SELECT generate_series(1, 20)::bigint), 'random', 3)),
  (2, shuffle_queue_new(ARRAY(SELECT generate_series(1, 12)::bigint),
        groups => ARRAY(SELECT (g % 3)::text FROM generate_series(1, 12) g),
        subgroups => ARRAY(SELECT (g % 2)::text FROM generate_series(1, 12) g),
        seed => decode(repeat('01', 32), 'hex'))),
  (3, shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], 'random', weights => '{1,5,2,9}')),
  (4, shuffle_queue_new_albums(ARRAY(SELECT generate_series(1, 9)::bigint),
        ARRAY(SELECT (g / 3)::text FROM generate_series(0, 8) g),
        ARRAY(SELECT (g / 6)::text FROM generate_series(0, 8) g))),
  (5, shuffle_queue_new(ARRAY(SELECT generate_series(1, 10)::bigint), listener => 7)),
  (6, shuffle_queue_new(ARRAY(SELECT generate_series(1, 10)::bigint),
        seed => decode(repeat('02', 32), 'hex'), start_with => 4)),
  (7, shuffle_queue_new(ARRAY(SELECT generate_series(1, 8)::bigint), groups => '{a,a,b,b,c,c,d,d}',
        listener => 8)),
  (8, shuffle_queue_create(ARRAY(SELECT generate_series(1, 1000)::bigint)));
SELECT count(shuffle_queue_next(queue_id)) FROM fuzz_queue, generate_series(1, 5);
INSERT INTO fuzz_saved SELECT id, shuffle_queue_save(queue_id) FROM fuzz_queue;
SELECT shuffle_queue_play_next(queue_id, ARRAY[2]::bigint[]), shuffle_queue_skip(queue_id),
       shuffle_queue_skip_when_shuffling(queue_id, 3),
       (SELECT count(*) FROM shuffle_queue_upcoming(queue_id, 5))
  FROM shuffle_queue WHERE album_place IS NULL AND weight_max IS NULL
 ORDER BY queue_id DESC LIMIT 3;
INSERT INTO fuzz_saved SELECT 100 + queue_id, shuffle_queue_save(queue_id)
  FROM shuffle_queue WHERE album_place IS NULL AND weight_max IS NULL
 ORDER BY queue_id DESC LIMIT 3;
GRANT SELECT ON fuzz_saved TO $role;
-- Real rows_agg_state values of every kind and type of the typed aggregates, which the calls give
-- the type's input and final functions as they are and with their bytes changed: the states of
-- aggregates made of the extension's step functions without a final function, dropped once used.
CREATE TABLE fuzz_states (id serial PRIMARY KEY, state rows_agg_state NOT NULL);
CREATE AGGREGATE fuzz_sample(anyelement, int) (SFUNC = sample_agg_step, STYPE = rows_agg_state);
CREATE AGGREGATE fuzz_sample(anyelement, int, float8) (SFUNC = sample_agg_step, STYPE = rows_agg_state);
CREATE AGGREGATE fuzz_resample(anyelement, int) (SFUNC = resample_agg_step, STYPE = rows_agg_state);
CREATE AGGREGATE fuzz_resample(anyelement, int, float8) (SFUNC = resample_agg_step, STYPE = rows_agg_state);
CREATE AGGREGATE fuzz_shuffle(anyelement) (SFUNC = shuffle_agg_step, STYPE = rows_agg_state);
CREATE AGGREGATE fuzz_sample_seeded(anyelement, int, bytea) (SFUNC = sample_agg_seeded_step, STYPE = rows_agg_state);
CREATE AGGREGATE fuzz_shuffle_seeded(anyelement, bytea) (SFUNC = shuffle_agg_seeded_step, STYPE = rows_agg_state);
DO \$\$
DECLARE
  v text;
BEGIN
  FOREACH v IN ARRAY ARRAY['g::int2', 'g', 'g::int8', 'g::text', 'md5(g::text)::uuid'] LOOP
    EXECUTE format('INSERT INTO fuzz_states (state) SELECT unnest(ARRAY[fuzz_sample(%1\$s, 3),
      fuzz_sample(%1\$s, 3, g), fuzz_resample(%1\$s, 3), fuzz_resample(%1\$s, 3, g), fuzz_shuffle(%1\$s),
      fuzz_sample_seeded(%1\$s, 3, %2\$L), fuzz_shuffle_seeded(%1\$s, %2\$L)])
      FROM generate_series(1, 10) g', v, decode(repeat('00', 32), 'hex'));
  END LOOP;
END
\$\$;
DROP AGGREGATE fuzz_sample(anyelement, int), fuzz_sample(anyelement, int, float8),
  fuzz_resample(anyelement, int), fuzz_resample(anyelement, int, float8), fuzz_shuffle(anyelement),
  fuzz_sample_seeded(anyelement, int, bytea), fuzz_shuffle_seeded(anyelement, bytea);
GRANT SELECT ON fuzz_states TO $role;
-- A saved state with one of its values, at any depth (the n-th path, in order), replaced by
-- value, or dropped when value is NULL.
CREATE FUNCTION fuzz_tamper(state jsonb, n int, value jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS \$f\$
  WITH RECURSIVE paths(path, v) AS (
    SELECT ARRAY[]::text[], state
    UNION ALL
    SELECT p.path || e.k, e.v FROM paths p, LATERAL (
      SELECT key, value FROM jsonb_each(CASE WHEN jsonb_typeof(p.v) = 'object' THEN p.v END)
      UNION ALL
      SELECT (i - 1)::text, value
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p.v) = 'array' THEN p.v END) WITH ORDINALITY a(value, i)
    ) e(k, v)
  )
  SELECT CASE WHEN value IS NULL THEN state #- path ELSE jsonb_set(state, path, value) END
    FROM paths WHERE path <> '{}' ORDER BY path
  OFFSET abs(n) % greatest((SELECT count(*) FROM paths WHERE path <> '{}'), 1) LIMIT 1
\$f\$;
-- A schema of the role's own, where its DDL fires the extension's event triggers.
CREATE SCHEMA fuzz_own AUTHORIZATION $role;
CREATE TABLE fuzz_own.t (a int);
ALTER TABLE fuzz_own.t OWNER TO $role;
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

source "$ROOT/tests/fuzz/calls.sh"
if [ "$(psql -X -A -t -d dealcards_fuzz -c "SHOW server_version_num")" -ge 170000 ]; then
  intervals+=("'infinity'" "'-infinity'")
fi
calls=${FUZZ_CALLS:-3000}

# A stub database $1: a copy of the fuzzing database in which every function of the extension is
# a stub that runs none of its code (tests/fuzz/stubs.sql). Backends of the fuzzing run that are
# still finishing a query would keep CREATE DATABASE from copying it: they are ended first.
stub_db=dealcards_fuzz_stub
make_stub_database() {
  local name=$1 try
  for try in 1 2 3; do
    psql -q -X -d postgres -v ON_ERROR_STOP=1 >/dev/null 2>"$ROOT/target/fuzz-stub.log" <<SQL && break
SET client_min_messages = warning;
SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
 WHERE datname = 'dealcards_fuzz' AND pid <> pg_backend_pid();
DROP DATABASE IF EXISTS $name WITH (FORCE);
CREATE DATABASE $name TEMPLATE dealcards_fuzz;
SQL
    [ "$try" -lt 3 ] || { cat "$ROOT/target/fuzz-stub.log" >&2; exit 1; }
    sleep 2
  done
  psql -q -X -d "$name" -v ON_ERROR_STOP=1 -f "$ROOT/tests/fuzz/stubs.sql" >/dev/null
}

# One seed's run: the calls, then sqlsmith's queries; the server log's lines of the run go to
# target/fuzz-server-SEED.log (and those of each part to -calls.log and -sqlsmith.log). The calls
# come first: the first seed's sweep then meets the database as set up, every time. The internal
# errors of sqlsmith's statements are replayed on a stub database made as sqlsmith ends, whose
# tables hold what they read, before the next seed's calls change them. The same seed on the same
# database gives the same statements (sqlsmith --max-queries; FUZZ_SECONDS only bounds a run on a
# slow machine); --verbose: sqlsmith counts its queries ("queries: N"), which the pass checks.
run_seed() {
  local seed=$1 from sqlsmith_from n
  from=$(($(wc -l <"$log") + 1))
  RANDOM=$seed
  {
    echo "SET statement_timeout = '2s';"
    # Parallel plans wherever they may be: the row aggregates' partial states then cross
    # between processes (combine, serialize, deserialize).
    echo "SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"
    # Each case once with arguments it accepts, then the random calls.
    sweep=1
    for ((n = 0; n < cases; n++)); do statement "$n"; done
    sweep=0
    for _ in $(seq "$calls"); do statement $((RANDOM % cases)); done
  } >"$ROOT/target/fuzz-calls-$seed.sql"
  psql -X -q -d dealcards_fuzz -U "$role" -f "$ROOT/target/fuzz-calls-$seed.sql" >"$ROOT/target/fuzz-calls-$seed.log" 2>&1 || true
  sqlsmith_from=$(($(wc -l <"$log") + 1))
  timeout "$seconds" sqlsmith --target="host=$PGHOST port=$PGPORT user=$role dbname=dealcards_fuzz" \
    --seed="$seed" ${queries:+--max-queries="$queries"} --verbose >"$ROOT/target/fuzz-sqlsmith-$seed.log" 2>&1 || true
  make_stub_database "${stub_db}_$seed"
  tail -n +"$from" "$log" >"$ROOT/target/fuzz-server-$seed.log"
  sed -n "$from,$((sqlsmith_from - 1))p" "$log" >"$ROOT/target/fuzz-server-$seed-calls.log"
  tail -n +"$sqlsmith_from" "$log" >"$ROOT/target/fuzz-server-$seed-sqlsmith.log"
}
for seed in "${fuzz_seeds[@]}"; do
  run_seed "$seed"
done
# Statements that once failed this pass without a fault of the extension: each raises an internal
# error of PostgreSQL's own in a statement that also calls the extension, and must be forgiven.
regressions_from=$(($(wc -l <"$log") + 1))
psql -X -q -d dealcards_fuzz -U "$role" -f "$ROOT/tests/fuzz/regressions.sql" >"$ROOT/target/fuzz-regressions.log" 2>&1 || true
tail -n +"$regressions_from" "$log" >"$ROOT/target/fuzz-server-regressions.log"
tail -n +"$start_line" "$log" >"$ROOT/target/fuzz-server.log"

psql -q -X -d dealcards_fuzz -v ON_ERROR_STOP=1 -c "ALTER SYSTEM RESET log_line_prefix" \
  -c "ALTER SYSTEM RESET log_min_error_statement" -c "ALTER SYSTEM RESET track_functions" \
  -c "ALTER SYSTEM RESET log_error_verbosity" \
  -c "SELECT pg_reload_conf()" >/dev/null

# The extension's members, from the catalog: the names of its functions and types (what a
# statement that calls it names), and the C symbols of its library that its functions are.
extension_members="
  SELECT p.oid, p.proname, p.prokind, p.prorettype, l.lanname, p.prosrc FROM pg_catalog.pg_proc p
    JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
    JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'
    JOIN pg_catalog.pg_language l ON l.oid = p.prolang"
functions=$(psql -X -A -t -d dealcards_fuzz -c "
  SELECT string_agg(DISTINCT name, '|') FROM (
    SELECT proname::text FROM ($extension_members) f
    UNION ALL
    SELECT t.typname::text FROM pg_catalog.pg_type t
      JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e'
      JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards') n(name)")
symbols=$(psql -X -A -t -d dealcards_fuzz -c "
  SELECT string_agg(DISTINCT prosrc, '|') FROM ($extension_members) f WHERE lanname = 'c'")

# Every function of the extension (each entry of pg_proc it owns, by oid: every overload) with
# its calls during the run (pg_stat_user_functions, track_functions = all) and, where PostgreSQL
# counts none, why: functions it calls without fmgr's accounting, by their role in the catalog
# (an aggregate, a support function of an aggregate in pg_aggregate, an I/O function of a type
# in pg_type, a TABLESAMPLE method's handler, which returns tsm_handler). A call that raises is
# not counted either: a PL/pgSQL function counts as called when the server log names it in an
# error's CONTEXT. Lines "function|calls|evidence"; evidence "none" for a function not called.
# $1: the database, $2: its server log.
calls_by_function() {
  local row oid function calls role lanname evidence qualified
  psql -X -A -t -F '|' -d "$1" -c "
    SELECT f.oid, f.oid::regprocedure, COALESCE(s.calls, 0), f.lanname,
           pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(f.proname) || '(' ||
             pg_catalog.array_to_string(ARRAY(SELECT pg_catalog.format_type(t, NULL)
               FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY a(t, i) ORDER BY i), ',') || ')',
           CASE
             WHEN f.prokind = 'a' THEN 'aggregate'
             WHEN EXISTS (SELECT FROM pg_catalog.pg_aggregate a WHERE f.oid IN (a.aggtransfn, a.aggfinalfn,
                            a.aggcombinefn, a.aggserialfn, a.aggdeserialfn, a.aggmtransfn, a.aggminvtransfn, a.aggmfinalfn))
               THEN 'support function of an aggregate'
             WHEN EXISTS (SELECT FROM pg_catalog.pg_type t WHERE f.oid IN (t.typinput, t.typoutput, t.typreceive,
                            t.typsend, t.typmodin, t.typmodout, t.typanalyze, t.typsubscript))
               THEN 'I/O function of a type'
             WHEN f.prorettype = 'pg_catalog.tsm_handler'::pg_catalog.regtype THEN 'TABLESAMPLE method'
             ELSE ''
           END
      FROM ($extension_members) f
      JOIN pg_catalog.pg_proc p ON p.oid = f.oid
      JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
      LEFT JOIN pg_catalog.pg_stat_user_functions s ON s.funcid = f.oid
     ORDER BY 2" | while IFS='|' read -r oid function calls lanname qualified role; do
    if [ "$calls" != 0 ]; then
      evidence=counted
    elif [ -n "$role" ]; then
      evidence="not counted by PostgreSQL: $role"
    elif [ "$lanname" = plpgsql ] && grep -qF -e "PL/pgSQL function $qualified line" \
      -e "PL/pgSQL function $function line" "$2"; then
      evidence="called, raised (the log's CONTEXT)"
    else
      evidence=none
    fi
    printf '%s|%s|%s\n' "$function" "$calls" "$evidence"
  done
}
# The statistics of the sessions that ended are in once no session of the fuzzing role is left
# (a backend sends its counts as it exits); a function still without a call is looked up again
# a few times, in case the last counts were on their way.
uncalled() {
  local try
  for try in 1 2 3 4 5 6 7 8 9 10; do
    [ "$(psql -X -A -t -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE usename = '$role'")" = 0 ] && break
    sleep 1
  done
  for try in 1 2 3; do
    calls_by_function "$1" "$2" >"$ROOT/target/fuzz-calls-by-function.txt"
    grep -q '|none$' "$ROOT/target/fuzz-calls-by-function.txt" || break
    [ "$try" = 3 ] || sleep 2
  done
  grep '|none$' "$ROOT/target/fuzz-calls-by-function.txt" | cut -d'|' -f1 || true
}

# sqlsmith's count of the queries it ran for a seed ("queries: N" as it ends; a run that timeout
# ended: the marks of its progress line, one per query), from its log $1.
sqlsmith_queries() {
  local n
  n=$(grep -o '^queries: [0-9]*' "$1" | tail -1 | cut -d' ' -f2)
  [ -n "$n" ] || n=$(grep -E '^[.eStCT]+$' "$1" | tr -d '\n' | wc -c)
  echo "$n"
}

status=0
# (Not the errors that sqlsmith's summary lists, "N<tab>message" and its tabbed lines: one of its
# queries may end its own session, pg_terminate_backend(pg_backend_pid()), and a crash is in the
# server's log anyway.)
if grep -E "terminated by signal|was terminated|server closed the connection unexpectedly" \
  "$ROOT/target/fuzz-server.log" <(grep -hv -P '^([0-9]+)?\t' "$ROOT"/target/fuzz-sqlsmith-*.log); then
  echo "the server crashed (target/fuzz-server.log, seeds ${fuzz_seeds[*]})" >&2
  status=1
fi

# Each internal error with its location and the statement that raised it (logged on the lines
# after it, up to the next log line), joined into one line; the statement's own line breaks
# become \037, so that it can be replayed as it was.
internal_errors() {
  awk '
    /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] / && !/ XX000 (STATEMENT|LOCATION|CONTEXT|DETAIL|HINT): / { if (error != "") print error; error = "" }
    / XX000 ERROR: / { error = $0; next }
    error != "" { error = error (/^[0-9][0-9][0-9][0-9]-/ ? " " : "\037") $0 }
    END { if (error != "") print error }' "$1"
}

# Whether an internal error is raised again when its statement runs without the extension's code:
# replayed on the stub database $replay_db, as the fuzzing role, in a transaction that is rolled
# back; the same SQLSTATE from the same function of PostgreSQL (its LOCATION) counts as raised
# again.
raised_without_extension() {
  local error=$1 statement location replay
  statement=$(sed 's/^.* XX000 STATEMENT:  //' <<<"$error" | tr '\037' '\n')
  location=$(sed -n 's/^.* XX000 LOCATION:  \([^,]*\), .*/\1/p' <<<"$error")
  replay=$(printf "SET statement_timeout = '10s';\nBEGIN;\n%s\n;\nROLLBACK;\n" "$statement" |
    PGOPTIONS="-c client_min_messages=warning" psql -X -q -d "$replay_db" -U "$role" \
      -v VERBOSITY=verbose -f - 2>&1 >/dev/null) || true
  grep -q "ERROR:  XX000: " <<<"$replay" || return 1
  [ -z "$location" ] || grep -qF "LOCATION:  $location, " <<<"$replay"
}

# Whether an internal error's LOCATION is in the extension's code: a Rust source file, a Rust
# path (PostgreSQL's C has no "::"), or a C symbol of the extension's library (its functions'
# prosrc). Such an error is the extension's whatever a replay says: the stub database may still
# run some of its code.
located_in_extension() {
  local function file pattern='XX000 LOCATION:  (([^,]*), )?([^ ,]*):[0-9]+( [0-9]{4}-|$)'
  [[ $1 =~ $pattern ]] || return 1
  function=${BASH_REMATCH[2]} file=${BASH_REMATCH[3]}
  case $file in *.rs) return 0 ;; esac
  case $function in *::*) return 0 ;; esac
  [ -n "$function" ] && grep -qxF "$function" <<<"${symbols//|/$'\n'}"
}

# Whether the statement of an internal error names one of the extension's functions or types.
calls_ours() {
  grep -qE "STATEMENT:.*(^|[^a-z_])(($functions) *\\(|(::|[Aa][Ss] +)($functions)([^a-z_]|\$))" <<<"$1"
}
# The internal errors of log $1 that are the extension's: those located in its code, and those
# of a statement calling it that the stub database $2 (default: the one made after the run) does
# not raise again.
ours() {
  local replay_db=${2:-$stub_db}
  internal_errors "$1" | while IFS= read -r error; do
    if located_in_extension "$error" || { calls_ours "$error" && ! raised_without_extension "$error"; }; then
      printf '%s\n' "$error" | tr '\037' ' '
    fi
  done || true
}

make_stub_database "$stub_db"

# The detector itself must catch an internal error raised inside the extension: a panic of its
# own in a statement that spans lines, and one raised by PostgreSQL's C code while the extension
# ran (such as a transaction id assigned during recovery); and it must forgive one that a
# function of PostgreSQL called in the same statement raised on its own.
printf '%s\n' "2026-01-01 00:00:00.000 UTC [1] XX000 ERROR:  XX000: probe" \
  "2026-01-01 00:00:00.000 UTC [1] XX000 LOCATION:  deal_cards_wrapper, src/deal_cards.rs:1" \
  "2026-01-01 00:00:00.000 UTC [1] XX000 STATEMENT:  select 1," "  public.card_label(1)" \
  "2026-01-01 00:00:01.000 UTC [1] 00000 LOG:  next" >"$ROOT/target/fuzz-probe.log"
[ -n "$(ours "$ROOT/target/fuzz-probe.log")" ] || {
  echo "the fuzzing pass cannot see internal errors: its log parsing is broken" >&2
  exit 1
}
printf '%s\n' "2026-01-01 00:00:00.000 UTC [1] XX000 ERROR:  XX000: cannot assign TransactionIds during recovery" \
  "2026-01-01 00:00:00.000 UTC [1] XX000 LOCATION:  GetNewTransactionId, varsup.c:72" \
  "2026-01-01 00:00:00.000 UTC [1] XX000 STATEMENT:  select public.deal_cards(1)" \
  "2026-01-01 00:00:01.000 UTC [1] XX000 ERROR:  XX000: invalid INTERVAL typmod: 0x4e" \
  "2026-01-01 00:00:01.000 UTC [1] XX000 LOCATION:  intervaltypmodout, timestamp.c:1034" \
  "2026-01-01 00:00:01.000 UTC [1] XX000 STATEMENT:  select pg_catalog.intervaltypmodout(78) where public.deal_cards(24) > null" \
  "2026-01-01 00:00:02.000 UTC [1] 00000 LOG:  next" >"$ROOT/target/fuzz-probe.log"
probe=$(ours "$ROOT/target/fuzz-probe.log")
[ "$(grep -c . <<<"$probe")" = 1 ] && grep -q GetNewTransactionId <<<"$probe" || {
  echo "the fuzzing pass does not tell PostgreSQL's own internal errors from the extension's:" >&2
  printf '%s\n' "$probe" >&2
  exit 1
}
# An internal error located in the extension is its own even where the stub database raises an
# internal error again, or the statement names none of its functions (a cast to its type runs
# its input function): a Rust path, a Rust file without a function, a C symbol of its library.
# Each statement raises PostgreSQL's own internal error on the stub database too.
again="select 1 where pg_catalog.interval('1 day'::interval, 1) is null"
printf '%s\n' "2026-01-01 00:00:00.000 UTC [1] XX000 ERROR:  XX000: probe" \
  "2026-01-01 00:00:00.000 UTC [1] XX000 LOCATION:  dealcards::rows::state_type::dealcards_rows_agg_state_in, state_type.rs:1" \
  "2026-01-01 00:00:00.000 UTC [1] XX000 STATEMENT:  $again and 'x'::rows_agg_state is null" \
  "2026-01-01 00:00:01.000 UTC [1] XX000 ERROR:  XX000: probe" \
  "2026-01-01 00:00:01.000 UTC [1] XX000 LOCATION:  shuffle_key.rs:1" \
  "2026-01-01 00:00:01.000 UTC [1] XX000 STATEMENT:  $again and public.shuffle_key('\x00', 1) is null" \
  "2026-01-01 00:00:02.000 UTC [1] XX000 ERROR:  XX000: probe" \
  "2026-01-01 00:00:02.000 UTC [1] XX000 LOCATION:  ${symbols%%|*}, lib.c:1" \
  "2026-01-01 00:00:02.000 UTC [1] XX000 STATEMENT:  $again" \
  "2026-01-01 00:00:03.000 UTC [1] 00000 LOG:  next" >"$ROOT/target/fuzz-probe.log"
probe=$(ours "$ROOT/target/fuzz-probe.log")
[ "$(grep -c . <<<"$probe")" = 3 ] || {
  echo "the fuzzing pass forgives internal errors located in the extension:" >&2
  printf '%s\n' "$probe" >&2
  exit 1
}
# A function without a call fails the pass: the stub database's statistics count no call of the
# extension's real functions (a replay calls its stubs at most), nor does an empty log name one.
[ -n "$(uncalled "$stub_db" /dev/null)" ] || {
  echo "the fuzzing pass does not see a function of the extension that got no call" >&2
  exit 1
}
# A seed for which sqlsmith ran no query fails the pass: a log that ends before any, and one that
# counts none.
grep -v '^queries: ' "$ROOT/target/fuzz-sqlsmith-${fuzz_seeds[0]}.log" | grep -v -E '^[.eStCT]+$' >"$ROOT/target/fuzz-probe.log" || true
printf 'queries: 0\n' >"$ROOT/target/fuzz-probe-2.log"
[ "$(sqlsmith_queries "$ROOT/target/fuzz-probe.log")" = 0 ] && [ "$(sqlsmith_queries "$ROOT/target/fuzz-probe-2.log")" = 0 ] || {
  echo "the fuzzing pass does not see that sqlsmith ran no query" >&2
  exit 1
}
# The recorded statements (tests/fuzz/regressions.sql) each raised an internal error of
# PostgreSQL's own, and none of them counts against the extension.
recorded=$(grep -c '^SELECT' "$ROOT/tests/fuzz/regressions.sql")
raised=$(internal_errors "$ROOT/target/fuzz-server-regressions.log" | grep -c . || true)
[ "$raised" = "$recorded" ] || {
  echo "tests/fuzz/regressions.sql: $recorded statements, $raised internal errors raised (target/fuzz-regressions.log)" >&2
  exit 1
}
found=$(ours "$ROOT/target/fuzz-server-regressions.log")
[ -z "$found" ] || {
  printf 'the fuzzing pass blames the extension for a recorded internal error of PostgreSQL:\n%s\n' "$found" >&2
  exit 1
}

for seed in "${fuzz_seeds[@]}"; do
  internal=$(internal_errors "$ROOT/target/fuzz-server-$seed.log" | grep -c . || true)
  [ "$internal" = 0 ] && continue
  calling=$(internal_errors "$ROOT/target/fuzz-server-$seed.log" | while IFS= read -r error; do
    calls_ours "$error" && echo; done | grep -c . || true)
  found=$(ours "$ROOT/target/fuzz-server-$seed-sqlsmith.log" "${stub_db}_$seed"
    ours "$ROOT/target/fuzz-server-$seed-calls.log")
  if [ -n "$found" ]; then
    printf 'internal errors (XX000) raised inside the extension, with seed %s (repeat: FUZZ_SEED=%s%s make fuzz):\n%s\n' \
      "$seed" "$seed" "${queries:+ FUZZ_QUERIES=$queries}" "$found" >&2
    status=1
  else
    echo "seed $seed: $internal internal errors of PostgreSQL's own: $((internal - calling)) in statements" \
      "that call none of the extension's functions, $calling raised again without its code"
  fi
done
for seed in "${fuzz_seeds[@]}"; do
  n=$(sqlsmith_queries "$ROOT/target/fuzz-sqlsmith-$seed.log")
  echo "seed $seed: the sweep of every case and $calls random calls (target/fuzz-calls-$seed.sql)," \
    "then sqlsmith ran $n queries"
  if [ "$n" = 0 ]; then
    echo "sqlsmith ran no query with seed $seed (target/fuzz-sqlsmith-$seed.log)" >&2
    status=1
  fi
done

missing=$(uncalled dealcards_fuzz "$ROOT/target/fuzz-server.log")
echo "calls of the extension's functions during the run (target/fuzz-calls-by-function.txt):"
column -t -s '|' "$ROOT/target/fuzz-calls-by-function.txt"
awk -F'|' '{ n[$3 == "counted" ? "counted by PostgreSQL" : $3]++ } END { for (e in n) printf "%4d %s\n", n[e], e }' \
  "$ROOT/target/fuzz-calls-by-function.txt" | sort -rn
if [ -n "$missing" ]; then
  printf 'functions of the extension that got no call (add calls to tests/fuzz/calls.sh):\n%s\n' "$missing" >&2
  status=1
fi
echo "errors by SQLSTATE in the server log:"
grep -o -E '^[0-9-]+ [0-9:.]+ [A-Z]+ \[[0-9]+\] [0-9A-Z]{5} ERROR: ' "$ROOT/target/fuzz-server.log" |
  awk '{ print $5 }' | sort | uniq -c | sort -rn | head -10 || true
[ "$status" = 0 ] && say "fuzzing found no crash and no internal error in the extension, sqlsmith ran its queries and every function of the extension got calls"
exit "$status"
