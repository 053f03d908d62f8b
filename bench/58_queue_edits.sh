# Edits on played tracks of a queue of 1,000,000 tracks with 1,000 plays, against the same edits
# on a 10-track queue with 4 plays (on its track played 2 before), in three states of the
# statistics: stale (analyzed while the tables held only 20 queues of 50 tracks), after the dead
# rows (every queue dropped while another connection held a snapshot, then ANALYZE, then the
# snapshot released and the two queues made), and fresh (ANALYZE with the two queues in place).
# Each call runs in a transaction rolled back, so every run starts from the same queue: the
# median of BENCH_RUNS runs after one warm-up (ms, psql's \timing) and the shared blocks of one
# EXPLAIN (ANALYZE, BUFFERS) after a first one in the same session. Autovacuum is off on the
# queue tables meanwhile, on at the end.
# Sourced by scripts/bench.sh (bench/lib.sh loaded, PG* set); alone: BENCH_ONLY=58 make bench.
# shellcheck shell=bash

edits_tables="shuffle_queue shuffle_queue_track shuffle_queue_unit shuffle_queue_member
  shuffle_queue_up_next shuffle_queue_skipped shuffle_queue_weight shuffle_queue_play
  shuffle_queue_ahead"

# edits_query SQL: one value, quietly.
edits_query() { psql -X -q -At -d "$BENCH_DB" -v ON_ERROR_STOP=1 -c "$1"; }

# edits_played QUEUE BACK: the track played BACK plays before the newest.
edits_played() {
  edits_query "SELECT t.track FROM shuffle_queue_track t, shuffle_queue q
    WHERE q.queue_id = $1 AND t.queue_id = $1 AND t.position = q.front + q.tracks - 1 - $2"
}

# edits_ms CALL: the median ms of SELECT CALL, each run rolled back.
edits_ms() {
  local script="\\timing on"
  for _ in $(seq 0 "$BENCH_RUNS"); do
    script+=$'\n'"BEGIN;"$'\n'"SELECT $1;"$'\n'"ROLLBACK;"
  done
  psql -X -q -d "$BENCH_DB" -v ON_ERROR_STOP=1 <<<"$script" |
    sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | awk 'NR % 3 == 2' | tail -n +2 | sort -g |
    awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.2f\n", m }'
}

# edits_blocks CALL: the shared blocks (hit and read) of SELECT CALL, rolled back: its second
# EXPLAIN in one session (the first reads the catalog), the top node's.
edits_blocks() {
  printf 'BEGIN;\nEXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT %s;\nROLLBACK;\n' "$1" "$1" |
    psql -X -q -At -d "$BENCH_DB" -v ON_ERROR_STOP=1 |
    awk '/^Planning/ { top = 0; next } /^[^ ]/ { top = 1; next } top && /^ *Buffers: shared/ { line = $0 } { top = 0 }
      END { n = 0; k = split(line, f, /[ =]+/); for (i = 1; i < k; i++) if (f[i] == "hit" || f[i] == "read") n += f[i + 1]; print n }'
}

# edits_queues: a 10-track queue with 4 plays and a 1,000,000-track queue with 1,000 plays.
edits_queues() {
  edits_small=$(edits_query "SELECT shuffle_queue_new(ARRAY(SELECT i::bigint FROM generate_series(1, 10) i))")
  edits_large=$(edits_query "SELECT shuffle_queue_new(ARRAY(SELECT i::bigint FROM generate_series(1, 1000000) i))")
  bench_sql -c "SELECT count(shuffle_queue_next($edits_small)) FROM generate_series(1, 4)" \
    -c "SELECT count(shuffle_queue_next($edits_large)) FROM generate_series(1, 1000)"
}

# edits_state NAME: the table rows of every call in the current state.
edits_state() {
  local near calls name small large s_ms l_ms back
  local -A track
  near=$(edits_played "$edits_small" 2)
  for back in 5 10 100 500; do track[$back]=$(edits_played "$edits_large" "$back"); done
  calls=("next|shuffle_queue_next(Q)" "prev|shuffle_queue_prev(Q)"
    "upcoming(5)|(SELECT count(*) FROM shuffle_queue_upcoming(Q, 5))" "skip|shuffle_queue_skip(Q)"
    "add|shuffle_queue_add(Q, 2000000)")
  for back in 5 10 100 500; do
    calls+=("jump, played $back before|shuffle_queue_jump(Q, T$back)"
      "remove, played $back before|shuffle_queue_remove(Q, T$back)"
      "skip when shuffling, played $back before|shuffle_queue_skip_when_shuffling(Q, T$back)"
      "play next, played $back before|shuffle_queue_play_next(Q, ARRAY[T$back]::bigint[])")
  done
  for call in "${calls[@]}"; do
    name=${call%%|*}
    small=${call#*|}
    large=${call#*|}
    small=${small//Q/$edits_small}
    large=${large//Q/$edits_large}
    for back in 500 100 10 5; do
      small=${small//T$back/$near}
      large=${large//T$back/${track[$back]}}
    done
    s_ms=$(edits_ms "$small")
    l_ms=$(edits_ms "$large")
    echo "| $1 | $name | $s_ms | $(edits_blocks "$small") | $l_ms | $(edits_blocks "$large") | $(ratio "$l_ms" "$s_ms" 2) |"
  done
}

bench_sql -c "SELECT count(shuffle_queue_drop(queue_id)) FROM shuffle_queue" \
  -c "SELECT count(shuffle_queue_new(ARRAY(SELECT (k * 100 + i)::bigint FROM generate_series(1, 50) i)))
        FROM generate_series(1, 20) k" \
  -c "SELECT count(shuffle_queue_next(queue_id)) FROM shuffle_queue, generate_series(1, 150)" \
  -c "ANALYZE"
for t in $edits_tables; do bench_sql -c "ALTER TABLE $t SET (autovacuum_enabled = false)"; done

echo "### Edits on played tracks: 1,000,000 tracks and 1,000 plays against 10 tracks"
echo
echo "| statistics | call | 10 tracks (ms) | blocks | 1,000,000 tracks (ms) | blocks | ratio |"
echo "|---|---|---:|---:|---:|---:|---:|"
edits_queues
edits_state stale

# Every queue dropped under a snapshot another connection holds, analyzed among the dead rows.
coproc edits_hold { psql -X -q -At -d "$BENCH_DB" -v ON_ERROR_STOP=1; }
echo "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM shuffle_queue_track;" >&"${edits_hold[1]}"
read -r _ <&"${edits_hold[0]}"
bench_sql -c "SELECT count(shuffle_queue_drop(queue_id)) FROM shuffle_queue" -c "ANALYZE"
echo "COMMIT;" >&"${edits_hold[1]}"
exec {edits_hold[1]}>&-
wait "$edits_hold_PID" 2>/dev/null || true
edits_queues
edits_state "after the dead rows"

bench_sql -c "ANALYZE"
edits_state fresh
echo

bench_sql -c "SELECT count(shuffle_queue_drop(queue_id)) FROM shuffle_queue"
for t in $edits_tables; do bench_sql -c "ALTER TABLE $t RESET (autovacuum_enabled)"; done
