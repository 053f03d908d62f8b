-- Shuffle queues: a circular queue's shuffle play and random play, with their state in tables.
-- Picks are live random: only booleans and counts are printed.
\set SHOW_CONTEXT never

-- A 10-track playlist, shuffle mode, the queue's window of length / 2 = 10 / 2 = 5.
SELECT shuffle_queue_create(ARRAY[101, 102, 103, 104, 105, 106, 107, 108, 109, 110]::bigint[]) AS q \gset
SELECT shuffle_queue_current(:q) IS NULL AS nothing_playing_yet,
       shuffle_queue_prev(:q) IS NULL AS nothing_to_go_back_to;
SELECT shuffle_queue_next(:q) AS first \gset
SELECT shuffle_queue_next(:q) AS second \gset
SELECT :first BETWEEN 101 AND 110 AS first_is_a_track, :second <> :first AS second_is_another;
SELECT shuffle_queue_current(:q) = :second AS current_is_second;
-- Previous goes back to what played; next then replays it, then draws a new track.
SELECT shuffle_queue_prev(:q) = :first AS prev_is_first,
       shuffle_queue_current(:q) = :first AS current_is_first;
SELECT shuffle_queue_prev(:q) = :first AS prev_stays_at_the_oldest;
SELECT shuffle_queue_next(:q) = :second AS next_replays_second;
SELECT shuffle_queue_next(:q) AS third \gset
SELECT :third NOT IN (:first, :second) AS third_is_new;
-- The state is one row per queue and one row per position.
SELECT mode, window_size, tracks, history, behind FROM shuffle_queue WHERE queue_id = :q;
SELECT count(*) AS positions, count(DISTINCT track) AS tracks,
       max(position) - min(position) + 1 AS span
  FROM shuffle_queue_track WHERE queue_id = :q;

-- Shuffle mode over 300 picks: every track plays, and none comes back within 10 - 5 = 5 picks.
CREATE TEMP TABLE picks AS
  SELECT step, shuffle_queue_next(:q) AS track FROM generate_series(1, 300) step;
SELECT count(DISTINCT track) AS tracks_played FROM picks;
SELECT count(*) AS repeats_within_5 FROM picks a JOIN picks b
    ON a.track = b.track AND b.step > a.step AND b.step - a.step <= 5;
-- Previous walks back through the last 5 picks in order; next walks forward over them again.
CREATE TEMP TABLE back AS
  SELECT step, shuffle_queue_prev(:q) AS track FROM generate_series(1, 5) step;
SELECT bool_and(b.track = p.track) AS prev_walks_back
  FROM back b JOIN picks p ON p.step = 300 - b.step;
CREATE TEMP TABLE forward AS
  SELECT step, shuffle_queue_next(:q) AS track FROM generate_series(1, 5) step;
SELECT bool_and(f.track = p.track) AS next_replays_forward
  FROM forward f JOIN picks p ON p.step = 295 + f.step;

-- Random mode, window 3: with replacement, never one of the last 3 tracks.
SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, 8)::bigint), 'random', 3) AS r \gset
CREATE TEMP TABLE random_picks AS
  SELECT step, shuffle_queue_next(:r) AS track FROM generate_series(1, 400) step;
SELECT count(DISTINCT track) AS tracks_played FROM random_picks;
SELECT count(*) AS repeats_within_3 FROM random_picks a JOIN random_picks b
    ON a.track = b.track AND b.step > a.step AND b.step - a.step <= 3;
SELECT count(*) > 0 AS some_track_came_back_after_4
  FROM random_picks a JOIN random_picks b ON a.track = b.track AND b.step - a.step = 4;
SELECT shuffle_queue_prev(:r) = (SELECT track FROM random_picks WHERE step = 399) AS random_prev;
SELECT shuffle_queue_next(:r) = (SELECT track FROM random_picks WHERE step = 400) AS random_next_replays;
SELECT mode, window_size, history FROM shuffle_queue WHERE queue_id = :r;

-- Defaults and the windows that fit.
SELECT shuffle_queue_create(ARRAY[1, 2, 3]::bigint[]) AS d \gset
SELECT window_size IS NULL AS default_window FROM shuffle_queue WHERE queue_id = :d;
SELECT shuffle_queue_next(shuffle_queue_create(ARRAY[42]::bigint[])) AS one_track_shuffle,
       shuffle_queue_next(shuffle_queue_create(ARRAY[42]::bigint[], 'random')) AS one_track_random;
SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4]::bigint[], 'shuffle', 1) > 0 AS window_1,
       shuffle_queue_create(ARRAY[1, 2, 3, 4]::bigint[], 'shuffle', 3) > 0 AS window_3,
       shuffle_queue_create(ARRAY[1, 2, 3, 4]::bigint[], 'random', 3) > 0 AS random_window_3,
       shuffle_queue_create(ARRAY[-9223372036854775808, 9223372036854775807]::bigint[]) > 0
         AS bigint_limits;

-- Add and remove keep what played.
SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4, 5, 6]::bigint[]) AS e \gset
SELECT shuffle_queue_next(:e) AS e1 \gset
SELECT shuffle_queue_next(:e) AS e2 \gset
SELECT shuffle_queue_add(:e, 7) AS tracks_after_add;
SELECT shuffle_queue_current(:e) = :e2 AS add_keeps_current,
       shuffle_queue_prev(:e) = :e1 AS add_keeps_history;
SELECT shuffle_queue_remove(:e, :e2) AS tracks_after_remove;
SELECT shuffle_queue_current(:e) = :e1 AS still_at_first;
SELECT count(*) FILTER (WHERE t = 7) > 0 AS added_track_plays,
       count(*) FILTER (WHERE t = :e2) AS removed_track_plays
  FROM (SELECT shuffle_queue_next(:e) AS t FROM generate_series(1, 60)) s;
SELECT count(*) AS positions FROM shuffle_queue_track WHERE queue_id = :e;

-- A queue lives in tables: another connection sees it where this one left it.
SELECT shuffle_queue_current(:q) AS before_reconnect \gset
\c
SELECT shuffle_queue_current(:q) = :before_reconnect AS same_after_reconnect;

-- Dropping a queue removes its rows.
SELECT shuffle_queue_drop(:e);
SELECT count(*) AS rows_left FROM shuffle_queue_track WHERE queue_id = :e;

-- NULL queue ids: NULL, nothing changes.
SELECT shuffle_queue_next(NULL) IS NULL AS next_null, shuffle_queue_prev(NULL) IS NULL AS prev_null,
       shuffle_queue_current(NULL) IS NULL AS current_null,
       shuffle_queue_add(:q, NULL) IS NULL AS add_null,
       shuffle_queue_remove(NULL, 1) IS NULL AS remove_null;

-- How Postgres sees the functions.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proparallel AS parallel,
       p.proisstrict AS strict, pg_get_function_result(p.oid) AS result
  FROM pg_proc p WHERE p.proname LIKE 'shuffle_queue\_%' ORDER BY p.oid::regprocedure::text;
SELECT c::regclass AS dumped_by_pg_dump
  FROM pg_extension e, unnest(e.extconfig) c
 WHERE e.extname = 'dealcards' AND c::regclass::text LIKE 'shuffle\_queue%' ORDER BY c::regclass::text;

-- Errors.
SELECT shuffle_queue_create(NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_create('{}'::bigint[]);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_create(ARRAY[1, NULL, 3]::bigint[]);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_create(ARRAY[5, 6, 5]::bigint[]);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_create(ARRAY[1, 2]::bigint[], 'repeat');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_create(ARRAY[1, 2]::bigint[], NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4]::bigint[], 'shuffle', 4);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4]::bigint[], 'shuffle', 0);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4]::bigint[], 'random', -1);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_create(ARRAY[1]::bigint[], 'random', 1);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_next(-1);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_prev(-1);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_current(-1);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_add(-1, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_remove(-1, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_drop(-1);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_next(:e);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_add(:q, 105);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_remove(:q, 999);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_remove(shuffle_queue_create(ARRAY[1]::bigint[]), 1);
\echo :LAST_ERROR_SQLSTATE
