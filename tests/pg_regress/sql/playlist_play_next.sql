-- Queue editing under shuffle: play next, play later, jump, start from a chosen track, skip when
-- shuffling; on a plain queue and on a queue spread by group. Picks are live random: what is
-- printed is what the functions promise.
\set SHOW_CONTEXT never
SELECT setval('shuffle_queue_id_seq', 100) AS queue_ids_from \gset

-- Start from a chosen track: it is up next, and plays first.
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 10)::bigint), start_with => 7) AS q \gset
SELECT shuffle_queue_up_next(:q) AS up_next, up_next AS up_next_column FROM shuffle_queue WHERE queue_id = :q;
SELECT shuffle_queue_next(:q) AS first;
SELECT shuffle_queue_up_next(:q) AS up_next, up_next AS up_next_column FROM shuffle_queue WHERE queue_id = :q;

-- Play next goes before what is up next, play later after it; both in the order given.
SELECT shuffle_queue_play_next(:q, ARRAY[3, 5]) AS after_play_next,
       shuffle_queue_play_later(:q, ARRAY[9]) AS after_play_later,
       shuffle_queue_play_next(:q, ARRAY[1]) AS after_play_next_again;
SELECT shuffle_queue_up_next(:q) AS up_next;
CREATE TEMP TABLE heard AS SELECT step, shuffle_queue_next(:q) AS track FROM generate_series(1, 5) step;
SELECT array_agg(track ORDER BY step) FILTER (WHERE step <= 4) AS up_next_played,
       bool_and(track <> 9) FILTER (WHERE step = 5) AS then_the_shuffle
  FROM heard;
-- Previous walks back through them; next replays them.
SELECT shuffle_queue_prev(:q) AS back_1, shuffle_queue_prev(:q) AS back_2, shuffle_queue_prev(:q) AS back_3;
SELECT shuffle_queue_next(:q) AS again_1, shuffle_queue_next(:q) AS again_2;
-- While the play position is back in the history, next replays before anything up next.
SELECT shuffle_queue_play_next(:q, ARRAY[2]);
SELECT shuffle_queue_next(:q) = (SELECT track FROM heard WHERE step = 5) AS replay_first,
       shuffle_queue_next(:q) AS then_up_next;
SELECT shuffle_queue_play_later(:q, ARRAY[4, 6]), shuffle_queue_clear_up_next(:q) AS cleared,
       shuffle_queue_up_next(:q) AS up_next;

-- Jump: the tapped track plays now, and not again within length - window = 5 picks.
SELECT shuffle_queue_jump(:q, 7) AS jumped, shuffle_queue_current(:q) AS current;
SELECT count(*) FILTER (WHERE t = 7) AS plays_of_7_in_the_next_5
  FROM (SELECT shuffle_queue_next(:q) AS t FROM generate_series(1, 5)) s;
-- Jump to a track just played: it leaves its place in the history and plays as the newest.
SELECT shuffle_queue_current(:q) AS now_playing \gset
SELECT shuffle_queue_prev(:q) AS before_it \gset
SELECT shuffle_queue_next(:q) = :now_playing AS replayed;
SELECT shuffle_queue_jump(:q, :before_it) = :before_it AS jumped_back,
       shuffle_queue_prev(:q) = :now_playing AS previous_is_the_one_before;
SELECT tracks, history <= tracks - 5 + 1 AS history_in_its_limit FROM shuffle_queue WHERE queue_id = :q;

-- Skip when shuffling: kept in the queue, never picked, until the flag is cleared.
SELECT shuffle_queue_play_next(:q, ARRAY[2]);
SELECT shuffle_queue_skip_when_shuffling(:q, 2) AS tracks_in_the_shuffle,
       shuffle_queue_skip_when_shuffling(:q, 2) AS again_changes_nothing,
       shuffle_queue_up_next(:q) AS up_next_without_it;
SELECT * FROM shuffle_queue_skipped WHERE queue_id = :q;
SELECT count(*) FILTER (WHERE t = 2) AS plays_of_2
  FROM (SELECT shuffle_queue_next(:q) AS t FROM generate_series(1, 60)) s;
SELECT shuffle_queue_skip_when_shuffling(:q, 2, false) AS back_in_the_shuffle;
SELECT count(*) FILTER (WHERE t = 2) > 0 AS plays_again
  FROM (SELECT shuffle_queue_next(:q) AS t FROM generate_series(1, 60)) s;
-- A skipped track can be removed.
SELECT shuffle_queue_skip_when_shuffling(:q, 10), shuffle_queue_remove(:q, 10) AS tracks;
SELECT count(*) AS skipped_rows FROM shuffle_queue_skipped WHERE queue_id = :q;

-- The same on a queue spread by group: a jump counts as its artist's place in the pass.
SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::bigint[], groups => '{a,a,b,b,c,c,d,d}',
                         start_with => 4) AS s \gset
CREATE TEMP TABLE pass AS SELECT step, shuffle_queue_next(:s) AS track FROM generate_series(1, 8) step;
SELECT (SELECT track FROM pass WHERE step = 1) AS first, count(DISTINCT track) AS one_pass FROM pass;
SELECT shuffle_queue_skip_when_shuffling(:s, 1) AS tracks, shuffle_queue_skip_when_shuffling(:s, 2) AS tracks;
SELECT count(*) FILTER (WHERE t IN (1, 2)) AS plays_of_group_a
  FROM (SELECT shuffle_queue_next(:s) AS t FROM generate_series(1, 18)) s;
SELECT shuffle_queue_skip_when_shuffling(:s, 2, false) AS tracks;
SELECT shuffle_queue_play_next(:s, ARRAY[8, 7]), shuffle_queue_next(:s) AS up_1, shuffle_queue_next(:s) AS up_2;
SELECT shuffle_queue_jump(:s, 2) AS jumped;
SELECT count(*) FILTER (WHERE t = 2) AS plays_of_2, count(DISTINCT t) AS distinct_tracks
  FROM (SELECT shuffle_queue_next(:s) AS t FROM generate_series(1, 4)) s;
SELECT shuffle_queue_drop(:s);
SELECT (SELECT count(*) FROM shuffle_queue_up_next WHERE queue_id = :s)
     + (SELECT count(*) FROM shuffle_queue_skipped WHERE queue_id = :s) AS rows_left;

-- NULLs.
SELECT shuffle_queue_play_next(NULL, ARRAY[1]) IS NULL AS null_queue,
       shuffle_queue_play_next(:q, NULL) IS NULL AS null_items,
       shuffle_queue_jump(:q, NULL) IS NULL AS null_jump,
       shuffle_queue_skip_when_shuffling(:q, 1, NULL) IS NULL AS null_flag,
       shuffle_queue_up_next(NULL) IS NULL AS null_up_next;

-- Errors.
SELECT shuffle_queue_play_next(:q, ARRAY[1, NULL]);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_play_next(:q, ARRAY[99]);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_skip_when_shuffling(:q, 3);
SELECT shuffle_queue_play_later(:q, ARRAY[3]);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_jump(:q, 3);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_add(:q, 3);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_jump(:q, 99);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_skip_when_shuffling(:q, 99);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_skip_when_shuffling(shuffle_queue_create(ARRAY[1]::bigint[]), 1);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_new(ARRAY[1, 2]::bigint[], start_with => 3);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_jump(-1, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_up_next(-1);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_clear_up_next(-1);
\echo :LAST_ERROR_SQLSTATE
