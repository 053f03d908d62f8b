-- Shuffle queues whose rows a superuser edited by hand into a state no shuffle_queue function
-- leaves: each call that reads such a row refuses it with XX001 (data_corrupted) and names
-- what it found, never an internal error (XX000) or a count read as another number.
\set SHOW_CONTEXT never
-- A database of its own, so that the queues' ids in the messages are the same in every run.
\set regress_db :DBNAME
CREATE DATABASE dealcards_queue_rows;
\c dealcards_queue_rows
\set SHOW_CONTEXT never
CREATE EXTENSION dealcards;
\set seed 'decode(repeat(''00'', 32), ''hex'')'

-- A queue of whole albums is a spread queue over album numbers: made a shuffle queue by hand.
SELECT shuffle_queue_new_albums(ARRAY[1, 2, 3, 4]::bigint[], ARRAY['a', 'a', 'b', 'b'], seed => :seed) AS albums \gset
SELECT shuffle_queue_next(:albums) IS NOT NULL AS plays;
UPDATE shuffle_queue SET mode = 'shuffle' WHERE queue_id = :albums;
SELECT shuffle_queue_next(:albums);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_current(:albums);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_drop(:albums);

-- A spread queue whose groups' random offsets were made negative.
SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5, 6]::bigint[], groups => ARRAY['x', 'x', 'y', 'y', 'z', 'z'], seed => :seed) AS spread \gset
SELECT shuffle_queue_next(:spread) IS NOT NULL AS plays;
UPDATE shuffle_queue_unit SET shift = -1 WHERE queue_id = :spread;
SELECT shuffle_queue_next(:spread);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_drop(:spread);

-- A spread queue's track in a negative slot of its group.
SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5, 6]::bigint[], groups => ARRAY['x', 'x', 'y', 'y', 'z', 'z'], seed => :seed) AS spread \gset
UPDATE shuffle_queue_member SET slot = -1 WHERE queue_id = :spread AND track = 3;
SELECT shuffle_queue_remove(:spread, 3);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_drop(:spread);

-- A step drawn ahead whose draw count is negative.
SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5, 6]::bigint[], seed => :seed) AS ahead \gset
SELECT count(*) AS upcoming FROM shuffle_queue_upcoming(:ahead, 3);
SELECT count(*) AS steps_drawn_ahead FROM shuffle_queue_ahead WHERE queue_id = :ahead;
UPDATE shuffle_queue_ahead SET draws = '{-1}' WHERE queue_id = :ahead;
SELECT shuffle_queue_next(:ahead);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_drop(:ahead);

-- Counts and levels the table's constraints keep in range, with the constraints dropped (in a
-- transaction rolled back).
SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], groups => ARRAY['x', 'x', 'y', 'y'], seed => :seed) AS spread \gset
BEGIN;
ALTER TABLE shuffle_queue DROP CONSTRAINT shuffle_queue_levels_check;
UPDATE shuffle_queue SET levels = 3 WHERE queue_id = :spread;
SELECT shuffle_queue_next(:spread);
\echo :LAST_ERROR_SQLSTATE
ROLLBACK;
BEGIN;
ALTER TABLE shuffle_queue DROP CONSTRAINT shuffle_queue_pass_left_check;
UPDATE shuffle_queue SET pass_left = -2 WHERE queue_id = :spread;
SELECT shuffle_queue_next(:spread);
\echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SELECT shuffle_queue_next(:spread) IS NOT NULL AS plays_again;
SELECT shuffle_queue_drop(:spread);
-- A plain queue's window and a weighted queue's heaviest weight, negative.
SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], mode => 'random', "window" => 2, seed => :seed) AS plain \gset
SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], mode => 'random', weights => ARRAY[1, 2, 3, 4], seed => :seed) AS weighted \gset
BEGIN;
ALTER TABLE shuffle_queue DROP CONSTRAINT shuffle_queue_window_size_check;
UPDATE shuffle_queue SET window_size = -1 WHERE queue_id = :plain;
SELECT shuffle_queue_next(:plain);
\echo :LAST_ERROR_SQLSTATE
ROLLBACK;
BEGIN;
ALTER TABLE shuffle_queue DROP CONSTRAINT shuffle_queue_weight_max_check;
UPDATE shuffle_queue SET weight_max = -4 WHERE queue_id = :weighted;
SELECT shuffle_queue_next(:weighted);
\echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SELECT shuffle_queue_next(:plain) IS NOT NULL AS plain_plays, shuffle_queue_next(:weighted) IS NOT NULL AS weighted_plays;
SELECT shuffle_queue_drop(:plain), shuffle_queue_drop(:weighted);

\c :regress_db
DROP DATABASE dealcards_queue_rows;
