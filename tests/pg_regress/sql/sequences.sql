-- dealcards_sync_sequences(): after a switch-over to a logical-replication subscriber, the
-- extension's sequences moved past the largest ids its tables hold, never back. What is printed
-- is compared with the tables' own maxima, read here by plain SQL.
\set SHOW_CONTEXT never
\set VERBOSITY terse

SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proparallel AS parallel,
       pg_get_function_result(p.oid) AS result, p.proconfig AS settings
  FROM pg_proc p WHERE p.proname = 'dealcards_sync_sequences';

-- Where the sequences are, to leave them there at the end.
CREATE TEMP TABLE start_state AS
SELECT 'game_game_id_seq' AS seq, last_value, is_called FROM game_game_id_seq
UNION ALL SELECT 'note_note_id_seq', last_value, is_called FROM note_note_id_seq
UNION ALL SELECT 'shuffle_queue_id_seq', last_value, is_called FROM shuffle_queue_id_seq;

-- A database with a game, its notes and a queue.
INSERT INTO desk (desk_id) VALUES (9001);
INSERT INTO desk_player VALUES (9001, 1, 1), (9001, 2, 2), (9001, 3, 3);
SELECT deal_cards(9001) IS NOT NULL AS dealt;
SELECT shuffle_queue_create(ARRAY[1, 2, 3]::bigint[]) AS first_queue \gset

-- The largest ids, as a subscriber holds them, and its sequences where its own writes left them.
CREATE TEMP TABLE largest AS
SELECT 'game_game_id_seq' AS seq,
       greatest((SELECT max(game_id) FROM game), (SELECT max(game_id) FROM bid_record),
                (SELECT max(cur_game_id) FROM desk)) AS id
UNION ALL SELECT 'note_note_id_seq', (SELECT max(note_id) FROM note)
UNION ALL SELECT 'shuffle_queue_id_seq', (SELECT max(queue_id) FROM shuffle_queue);
SELECT setval(pg_get_serial_sequence('game', 'game_id'), 1, false) AS game_back,
       setval(pg_get_serial_sequence('note', 'note_id'), 1, false) AS note_back,
       setval('shuffle_queue_id_seq', 1, false) AS queue_back;

-- Each moved past its largest id.
SELECT s.sequence, s.largest_id = l.id AS largest_is_the_tables, s.next_id = l.id + 1 AS next_is_past_it
  FROM dealcards_sync_sequences() s JOIN largest l ON l.seq = s.sequence::text;
-- The next game, note and queue take new ids.
SELECT (deal_cards(9001) ->> 'game')::bigint = (SELECT id + 1 FROM largest WHERE seq = 'game_game_id_seq')
       AS next_game_is_new;
SELECT shuffle_queue_create(ARRAY[1]::bigint[]) AS second_queue \gset
SELECT :second_queue = (SELECT id + 1 FROM largest WHERE seq = 'shuffle_queue_id_seq') AS next_queue_is_new;
SELECT count(*) = count(DISTINCT note_id) AS notes_unique FROM note;

-- Never back: a sequence ahead of the tables stays where it is.
SELECT setval('shuffle_queue_id_seq', 1000000) AS queue_ahead;
SELECT next_id FROM dealcards_sync_sequences() WHERE sequence = 'shuffle_queue_id_seq'::regclass;
-- Run again, it changes nothing.
CREATE TEMP TABLE once AS SELECT * FROM dealcards_sync_sequences();
SELECT count(*) AS same_rows FROM dealcards_sync_sequences() s JOIN once o USING (sequence, largest_id, next_id);

-- Like setval, what it sets is not undone by a rollback.
SELECT setval(pg_get_serial_sequence('game', 'game_id'), 1, false) AS game_back;
BEGIN;
SELECT next_id = (SELECT max(game_id) + 1 FROM game) AS moved
  FROM dealcards_sync_sequences() WHERE sequence::text = 'game_game_id_seq';
ROLLBACK;
SELECT last_value = (SELECT max(game_id) FROM game) AS still_moved, is_called FROM game_game_id_seq;

-- In a READ ONLY transaction: it answers when nothing has to move, 25006 when something has.
BEGIN READ ONLY;
SELECT count(*) AS rows_read_only FROM dealcards_sync_sequences();
ROLLBACK;
SELECT setval(pg_get_serial_sequence('note', 'note_id'), 1, false) AS note_back;
BEGIN READ ONLY;
SELECT * FROM dealcards_sync_sequences();
ROLLBACK;

-- A role that may read the tables and the sequences, and set all but the last sequence: 42501,
-- and no sequence moved (the note sequence, behind and settable, is still behind).
CREATE ROLE regress_sync_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO regress_sync_reader;
GRANT SELECT ON ALL SEQUENCES IN SCHEMA public TO regress_sync_reader;
GRANT UPDATE ON SEQUENCE game_game_id_seq, note_note_id_seq TO regress_sync_reader;
SET ROLE regress_sync_reader;
SELECT * FROM dealcards_sync_sequences();
RESET ROLE;
SELECT last_value, is_called FROM note_note_id_seq;
-- With UPDATE on every sequence but without SELECT on one of the tables: 42501 too.
GRANT UPDATE ON SEQUENCE shuffle_queue_id_seq, room_hand_hand_id_seq TO regress_sync_reader;
REVOKE SELECT ON shuffle_queue_play FROM regress_sync_reader;
SET ROLE regress_sync_reader;
SELECT * FROM dealcards_sync_sequences();
RESET ROLE;
SELECT last_value, is_called FROM note_note_id_seq;
-- With every privilege it needs, it runs for that role.
GRANT SELECT ON shuffle_queue_play TO regress_sync_reader;
SET ROLE regress_sync_reader;
SELECT sequence, next_id = largest_id + 1 AS next_is_past_it FROM dealcards_sync_sequences() WHERE sequence::text = 'note_note_id_seq';
RESET ROLE;
DROP OWNED BY regress_sync_reader;
DROP ROLE regress_sync_reader;

-- The database as it was: this test's desk and queues gone, the sequences where they were.
SELECT shuffle_queue_drop(:first_queue), shuffle_queue_drop(:second_queue);
DELETE FROM note WHERE desk_id = 9001;
DELETE FROM bid_record WHERE desk_id = 9001;
DELETE FROM game WHERE desk_id = 9001;
DELETE FROM desk WHERE desk_id = 9001;
SELECT count(setval(seq::regclass, last_value, is_called)) AS sequences_put_back FROM start_state;
