-- Fewer repeats across sessions: a queue made for a listener records what it plays for them,
-- and a new queue for the same listener holds back what they played recently (across all of
-- their queues, dropped ones too): at the end of a shuffle queue's tape, out of a spread
-- queue's first pass. At most half of a playlist is held back.
\set SHOW_CONTEXT never
SELECT setval('shuffle_queue_id_seq', 400) AS queue_ids_from \gset
\set seed '''\\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'''

-- A drive on Monday: six tracks, then the queue is dropped; the plays stay the listener's.
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 20)::bigint), listener => 7) AS monday \gset
CREATE TEMP TABLE monday AS SELECT n, shuffle_queue_next(:monday) AS track FROM generate_series(1, 6) n;
SELECT listener, plays FROM shuffle_queue WHERE queue_id = :monday;
SELECT shuffle_queue_prev(:monday) IS NOT NULL AS went_back;
SELECT shuffle_queue_next(:monday) = (SELECT track FROM monday WHERE n = 6) AS replayed;
SELECT plays AS plays_with_the_replay FROM shuffle_queue WHERE queue_id = :monday;
SELECT shuffle_queue_drop(:monday);
SELECT count(*) AS kept_plays, count(DISTINCT track) AS tracks FROM shuffle_queue_play WHERE listener = 7;

-- Tuesday: a shuffle queue of the same playlist puts Monday's six tracks at the end of its
-- tape, the most recent last; with its window of 10, none of them can open the drive.
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 20)::bigint), listener => 7) AS tuesday \gset
SELECT array_agg(track ORDER BY position) = (SELECT array_agg(track ORDER BY n) FROM monday) AS held_at_the_end
  FROM (SELECT track, position FROM shuffle_queue_track WHERE queue_id = :tuesday
         ORDER BY position DESC LIMIT 6) s;
SELECT shuffle_queue_next(:tuesday) NOT IN (SELECT track FROM monday) AS opens_with_another;
-- Wednesday: a spread queue plays every other track before any of the listener's recent
-- plays (Monday's six and Tuesday's one: 7 of 20, at most 10 held).
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 20)::bigint),
                         groups => ARRAY(SELECT (i % 4)::text FROM generate_series(1, 20) i), listener => 7) AS wednesday \gset
CREATE TEMP TABLE wednesday AS SELECT n, shuffle_queue_next(:wednesday) AS track FROM generate_series(1, 20) n;
SELECT count(*) FILTER (WHERE n <= 13 AND track IN (SELECT track FROM shuffle_queue_play WHERE listener = 7 AND queue_id <> :wednesday))
         AS recent_in_the_first_13,
       count(DISTINCT track) FILTER (WHERE n > 13) AS then_7_of_them
  FROM wednesday;
-- At most half of a playlist is held back.
SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], groups => '{a,b,a,b}', listener => 7) AS small \gset
SELECT pass_left AS first_pass FROM shuffle_queue WHERE queue_id = :small;

-- Seeded, with the listener's recent plays given: the reference's tracks.
-- seeded_queue.py SEED shuffle:12:4 recent:3,11,7,40,1,11,9,2 next*12
-- seeded_queue.py SEED spread:a,a,a,b,b,c,c,c,d,d recent:3,11,7,40,1,6,9,2 next*15
-- seeded_queue.py SEED spread:a/x,a/y,a/x,b/z,b/z,c/w,c/w,c/v,d/u,d/u recent:8,7,6,1,2,9 next*12
INSERT INTO shuffle_queue_play (queue_id, slot, listener, track, played_at)
SELECT -1, k, 42, t, timestamptz '2025-01-01' - k * interval '1 minute'
  FROM unnest(ARRAY[3, 11, 7, 40, 1, 11, 9, 2]) WITH ORDINALITY AS r(t, k);
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 12)::bigint), 'shuffle', 4, seed => :seed, listener => 42) AS h1 \gset
SELECT array_agg(shuffle_queue_next(:h1)) = '{6,12,8,2,10,4,7,1,11,3,12,5}' AS shuffle_matches_reference
  FROM generate_series(1, 12);
SELECT shuffle_queue_forget(42) AS forgotten;
INSERT INTO shuffle_queue_play (queue_id, slot, listener, track, played_at)
SELECT -1, k, 42, t, timestamptz '2025-01-01' - k * interval '1 minute'
  FROM unnest(ARRAY[3, 11, 7, 40, 1, 6, 9, 2]) WITH ORDINALITY AS r(t, k);
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 10)::bigint), groups => '{a,a,a,b,b,c,c,c,d,d}',
                         seed => :seed, listener => 42) AS h2 \gset
SELECT array_agg(shuffle_queue_next(:h2)) = '{8,5,10,4,2,6,3,10,5,7,1,4,8,9,2}' AS spread_matches_reference
  FROM generate_series(1, 15);
SELECT shuffle_queue_forget(42) AS forgotten;
INSERT INTO shuffle_queue_play (queue_id, slot, listener, track, played_at)
SELECT -1, k, 42, t, timestamptz '2025-01-01' - k * interval '1 minute'
  FROM unnest(ARRAY[8, 7, 6, 1, 2, 9]) WITH ORDINALITY AS r(t, k);
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 10)::bigint), groups => '{a,a,a,b,b,c,c,c,d,d}',
                         subgroups => '{x,y,x,z,z,w,w,v,u,u}', seed => :seed, listener => 42) AS h3 \gset
SELECT array_agg(shuffle_queue_next(:h3)) = '{9,5,3,4,10,6,1,10,5,8,2,4}' AS two_levels_match_reference
  FROM generate_series(1, 12);

-- Save and restore keep the listener; forgetting a listener takes every play of theirs.
SELECT shuffle_queue_save(:h3) -> 'listener' AS listener, shuffle_queue_save(:h3) -> 'plays' AS plays;
SELECT shuffle_queue_restore(shuffle_queue_save(:h3)) AS h3_copy \gset
SELECT listener, plays FROM shuffle_queue WHERE queue_id = :h3_copy;
SELECT shuffle_queue_forget(42) AS forgotten, shuffle_queue_forget(42) AS again;
SELECT shuffle_queue_forget(NULL) IS NULL AS strict;
