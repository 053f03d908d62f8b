-- Seeded queues: the same button presses give the same tracks on every server, as
-- tests/reference/seeded_queue.py computes them from the specification in docs/playlist.md
-- (SEED is `--seed-rule 2` and the seed: a queue made now numbers no Next that replays);
-- and a queue saved and restored goes on exactly as it would have.
\set SHOW_CONTEXT never
SELECT setval('shuffle_queue_id_seq', 300) AS queue_ids_from \gset
\set seed '''\\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'''

-- Runs button presses on a queue, as seeded_queue.py writes them, and returns what next, prev
-- and jump gave.
CREATE FUNCTION pg_temp.press(queue bigint, presses text[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    press text;
    parts text[];
    heard text[] := '{}';
BEGIN
    FOREACH press IN ARRAY presses LOOP
        parts := string_to_array(press, ':');
        CASE parts[1]
        WHEN 'next' THEN heard := heard || shuffle_queue_next(queue)::text;
        WHEN 'prev' THEN heard := heard || coalesce(shuffle_queue_prev(queue)::text, 'NULL');
        WHEN 'jump' THEN heard := heard || shuffle_queue_jump(queue, parts[2]::bigint)::text;
        WHEN 'playnext' THEN PERFORM shuffle_queue_play_next(queue, string_to_array(parts[2], ',')::bigint[]);
        WHEN 'playlater' THEN PERFORM shuffle_queue_play_later(queue, string_to_array(parts[2], ',')::bigint[]);
        WHEN 'add' THEN
            IF parts[3] IS NULL THEN
                PERFORM shuffle_queue_add(queue, parts[2]::bigint);
            ELSIF parts[3] ~ '^[0-9]+$' THEN
                PERFORM shuffle_queue_add(queue, parts[2]::bigint, parts[3]::integer);
            ELSE
                PERFORM shuffle_queue_add(queue, parts[2]::bigint, split_part(parts[3], '/', 1),
                                          nullif(split_part(parts[3], '/', 2), ''));
            END IF;
        WHEN 'remove' THEN PERFORM shuffle_queue_remove(queue, parts[2]::bigint);
        WHEN 'skip' THEN PERFORM shuffle_queue_skip_when_shuffling(queue, parts[2]::bigint);
        WHEN 'unskip' THEN PERFORM shuffle_queue_skip_when_shuffling(queue, parts[2]::bigint, false);
        END CASE;
    END LOOP;
    RETURN array_to_string(heard, ' ');
END $$;

-- A plain shuffle queue: seeded_queue.py SEED shuffle:10 next*12 add:11 next*6 prev prev next
-- jump:3 remove:5 next*5
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 10)::bigint), seed => :seed) AS q \gset
SELECT pg_temp.press(:q, array_fill('next'::text, ARRAY[12]) || '{add:11}'
                          || array_fill('next'::text, ARRAY[6]) || '{prev,prev,next,jump:3,remove:5}'
                          || array_fill('next'::text, ARRAY[5]))
       = '4 6 3 9 1 5 8 7 4 6 1 2 11 3 10 4 5 8 5 4 5 3 1 9 10 7 4' AS shuffle_matches_reference;

-- A jump deep into a long history (52 played 50 plays before): seeded_queue.py SEED
-- shuffle:200 next*150 jump:52 prev prev prev next*6, then prev*100 back to the oldest play
-- remembered
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 200)::bigint), seed => :seed) AS d \gset
SELECT pg_temp.press(:d, array_fill('next'::text, ARRAY[150])) IS NOT NULL AS played_150;
SELECT pg_temp.press(:d, '{jump:52,prev,prev,prev}'::text[] || array_fill('next'::text, ARRAY[6]))
       = '52 113 5 22 5 113 52 178 17 66' AS deep_jump_matches_reference;
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 200)::bigint), seed => :seed) AS d \gset
SELECT right(pg_temp.press(:d, array_fill('next'::text, ARRAY[150]) || '{jump:52}'::text[]
                               || array_fill('prev'::text, ARRAY[100])), 12)
       = '64 87 182 38' AS history_after_it_matches_reference;

-- Random play, window 3: seeded_queue.py SEED random:8:3 next*10 add:9 next*4 jump:1 next*2
-- remove:2 next*6
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 8)::bigint), 'random', 3, seed => :seed) AS r \gset
SELECT pg_temp.press(:r, array_fill('next'::text, ARRAY[10]) || '{add:9}'
                          || array_fill('next'::text, ARRAY[4]) || '{jump:1,next,next,remove:2}'
                          || array_fill('next'::text, ARRAY[6]))
       = '8 6 4 7 2 1 6 8 4 7 1 5 3 9 1 5 8 3 7 9 6 3 1' AS random_matches_reference;

-- Tracks up next and skipped: seeded_queue.py SEED shuffle:12:4 next next next playnext:7,2
-- playlater:12 next*5 prev prev next next skip:3 next*6 jump:9 next next unskip:3 next*8
-- remove:7 next next next
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 12)::bigint), 'shuffle', 4, seed => :seed) AS e \gset
SELECT pg_temp.press(:e, ARRAY['next', 'next', 'next', 'playnext:7,2', 'playlater:12']) AS first_three;
SELECT pg_temp.press(:e, array_fill('next'::text, ARRAY[5]) || '{prev,prev,next,next,skip:3}'
                          || array_fill('next'::text, ARRAY[6]) || '{jump:9,next,next,unskip:3}'
                          || array_fill('next'::text, ARRAY[8]) || '{remove:7,next,next,next}')
       = '7 2 12 9 6 9 12 9 6 10 11 4 1 8 5 9 6 12 10 2 11 7 8 4 5 6 3 10 9' AS editing_matches_reference;

-- Spread by artist: seeded_queue.py SEED spread:Abba,Abba,Abba,Queen,Queen,Bowie,Abba,Prince,
-- Queen,Bowie next*20 add:11:Abba add:12:Sade next*4 jump:5 next*3 skip:2 next*6 unskip:2
-- next*6 prev next
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 10)::bigint),
         groups => '{Abba,Abba,Abba,Queen,Queen,Bowie,Abba,Prince,Queen,Bowie}', seed => :seed) AS s \gset
SELECT pg_temp.press(:s, array_fill('next'::text, ARRAY[20]) || '{add:11:Abba,add:12:Sade}'
                          || array_fill('next'::text, ARRAY[4]) || '{jump:5,next,next,next,skip:2}'
                          || array_fill('next'::text, ARRAY[6]) || '{unskip:2}'
                          || array_fill('next'::text, ARRAY[6]) || '{prev,next}')
       = '8 5 10 7 4 1 6 3 9 2 5 3 6 2 9 8 7 4 1 10 9 6 7 8 5 2 12 3 10 1 4 11 8 1 9 10 11 12 2 5 2 5'
       AS spread_matches_reference;

-- Two levels: seeded_queue.py SEED spread:Abba/Arrival,Abba/Arrival,Abba/Gold,Queen/Jazz,
-- Queen/Jazz,Queen/Opera,Bowie/Low,Bowie/Heroes,Abba/Gold,Prince/Rain next*20 add:11:Abba/Gold
-- add:12:Sade/Diamond next*5 jump:7 remove:1 next*8
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 10)::bigint),
         groups => '{Abba,Abba,Abba,Queen,Queen,Queen,Bowie,Bowie,Abba,Prince}',
         subgroups => '{Arrival,Arrival,Gold,Jazz,Jazz,Opera,Low,Heroes,Gold,Rain}', seed => :seed) AS s2 \gset
SELECT pg_temp.press(:s2, array_fill('next'::text, ARRAY[20]) || '{add:11:Abba/Gold,add:12:Sade/Diamond}'
                           || array_fill('next'::text, ARRAY[5]) || '{jump:7,remove:1}'
                           || array_fill('next'::text, ARRAY[8]))
       = '8 5 2 6 3 10 1 7 4 9 5 1 8 9 10 6 2 4 3 7 4 8 2 12 11 7 9 6 10 5 3 5 8 9' AS two_levels_match_reference;
-- Up next and skipped on a spread queue: seeded_queue.py SEED spread:a,a,a,b,b,c,c,d playlater:5
-- next*4 skip:1 next*8 playnext:2 next next unskip:1 next*9
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 8)::bigint), groups => '{a,a,a,b,b,c,c,d}',
                         seed => :seed) AS s3 \gset
SELECT pg_temp.press(:s3, '{playlater:5}' || array_fill('next'::text, ARRAY[4]) || '{skip:1}'
                           || array_fill('next'::text, ARRAY[8]) || '{playnext:2,next,next,unskip:1}'
                           || array_fill('next'::text, ARRAY[9]))
       = '5 7 2 8 3 4 6 5 2 7 3 8 2 4 6 3 6 5 2 4 8 7 1' AS spread_editing_matches_reference;

-- Random play with weights: seeded_queue.py SEED weighted:5,1,1,2,3,1,4,1:3 next*12 add:9:5
-- next*6 prev next jump:2 next next skip:1 next*4 unskip:1 next*4 remove:4 next*3
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 8)::bigint), 'random', 3, seed => :seed,
                         weights => '{5,1,1,2,3,1,4,1}') AS w \gset
SELECT pg_temp.press(:w, array_fill('next'::text, ARRAY[12]) || '{add:9:5}'
                          || array_fill('next'::text, ARRAY[6]) || '{prev,next,jump:2,next,next,skip:1}'
                          || array_fill('next'::text, ARRAY[4]) || '{unskip:1}'
                          || array_fill('next'::text, ARRAY[4]) || '{remove:4,next,next,next}')
       = '5 6 1 7 5 4 1 7 3 8 1 7 9 4 2 7 6 1 6 1 2 9 3 5 4 7 3 1 4 5 7 8 9 1' AS weights_match_reference;
SELECT weight_max FROM shuffle_queue WHERE queue_id = :w;
SELECT shuffle_queue_restore(shuffle_queue_save(:w)) AS w_copy \gset
SELECT pg_temp.press(:w, array_fill('next'::text, ARRAY[20])) = pg_temp.press(:w_copy, array_fill('next'::text, ARRAY[20]))
       AS restored_weights_go_on_alike;

-- The state of a seeded queue: its seed and how many operations drew.
SELECT encode(seed, 'hex') = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f' AS seed_kept,
       draws FROM shuffle_queue WHERE queue_id = :q;

-- Save and restore: the restored queue (of any queue, seeded or live) goes on exactly as the
-- saved one. A seeded queue: the same tracks from the same presses.
SELECT shuffle_queue_restore(shuffle_queue_save(:s2)) AS s2_copy \gset
SELECT pg_temp.press(:s2, array_fill('next'::text, ARRAY[15]) || '{prev,prev,add:20:Queen/Jazz,next,next,next}')
     = pg_temp.press(:s2_copy, array_fill('next'::text, ARRAY[15]) || '{prev,prev,add:20:Queen/Jazz,next,next,next}')
       AS restored_spread_goes_on_alike;
SELECT shuffle_queue_save(:s2) - 'draws' = shuffle_queue_save(:s2_copy) - 'draws' AS same_state_after;
SELECT shuffle_queue_restore(shuffle_queue_save(:e)) AS e_copy \gset
SELECT pg_temp.press(:e, '{playnext:5,next,next,skip:6,next,next,unskip:6,next}')
     = pg_temp.press(:e_copy, '{playnext:5,next,next,skip:6,next,next,unskip:6,next}') AS restored_editing_goes_on_alike;
-- A live queue: the same state, whatever comes next.
SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 30)::bigint), groups => ARRAY(SELECT (i % 4)::text FROM generate_series(1, 30) i),
                         start_with => 7) AS live \gset
SELECT pg_temp.press(:live, array_fill('next'::text, ARRAY[11]) || '{skip:3,playlater:2}') IS NOT NULL AS played;
SELECT shuffle_queue_restore(shuffle_queue_save(:live)) AS live_copy \gset
SELECT shuffle_queue_save(:live) = shuffle_queue_save(:live_copy) AS same_state;
SELECT shuffle_queue_current(:live) = shuffle_queue_current(:live_copy) AS same_current,
       shuffle_queue_up_next(:live) = shuffle_queue_up_next(:live_copy) AS same_up_next,
       (SELECT count(*) FROM shuffle_queue_skipped WHERE queue_id = :live_copy) AS skipped;
-- The format, on a small queue.
SELECT shuffle_queue_new(ARRAY[10, 20, 30]::bigint[], seed => :seed) AS small \gset
SELECT pg_temp.press(:small, '{next,next,playlater:30}');
SELECT jsonb_pretty(shuffle_queue_save(:small));
SELECT jsonb_pretty(shuffle_queue_save(shuffle_queue_new(ARRAY[1, 2, 3]::bigint[], groups => '{Abba,Queen,Abba}',
                                                         seed => :seed)) -> 'spread');

-- What restore refuses, with 22023: anything shuffle_queue_save could not have given.
SELECT shuffle_queue_save(:small) AS good \gset
SELECT shuffle_queue_restore('[1, 2]');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_restore(:'good'::jsonb - 'tape');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_restore(jsonb_set(:'good', '{format}', '2'));
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_restore(jsonb_set(:'good', '{tape}', '[10, 20, 20]'));
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_restore(jsonb_set(:'good', '{tracks}', '4'));
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_restore(jsonb_set(:'good', '{behind}', '2'));
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_restore(jsonb_set(:'good', '{up_next}', '[99]'));
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_restore(jsonb_set(:'good', '{seed}', '"00"'));
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_restore(jsonb_set(:'good', '{mode}', '"spread"'));
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_restore(jsonb_set(shuffle_queue_save(:s2), '{spread,pass_left}', '99'));
\echo :LAST_ERROR_SQLSTATE
-- A field the format does not have is refused, and a wrong field is named where it is.
SELECT shuffle_queue_restore(:'good'::jsonb || '{"colour": 1}');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_restore(jsonb_set(shuffle_queue_save(:s2), '{spread,groups,0,size}', '-1'));
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_new(ARRAY[1, 2]::bigint[], seed => '\x00');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_save(-1);
\echo :LAST_ERROR_SQLSTATE

-- Weights: random play only, one per item, each from 1 to 1000; a weighted queue adds tracks
-- with their weight.
SELECT shuffle_queue_new(ARRAY[1, 2]::bigint[], weights => '{1,2}');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_new(ARRAY[1, 2]::bigint[], 'random', groups => '{a,b}', weights => '{1,2}');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_new(ARRAY[1, 2]::bigint[], 'random', weights => '{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_new(ARRAY[1, 2]::bigint[], 'random', weights => '{1,NULL}');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_new(ARRAY[1, 2]::bigint[], 'random', weights => '{1,1001}');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_add(:w, 10);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_add(:w, 10, 0);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_add(:q, 12, 2);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_add(:w, 10, 7) AS tracks;
SELECT weight_max AS heaviest FROM shuffle_queue WHERE queue_id = :w;
SELECT shuffle_queue_remove(:w, 10) AS tracks;
SELECT count(*) AS weight_rows_of_10 FROM shuffle_queue_weight WHERE queue_id = :w AND track = 10;
