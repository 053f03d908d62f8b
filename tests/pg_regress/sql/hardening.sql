-- What users' own objects and settings can do around the extension's functions: triggers that
-- call back into the extension or keep a row out, a seat the schema no longer forbids, two-phase
-- commit. Each case gives a clear error with its own SQLSTATE, or works.
\set SHOW_CONTEXT never
-- A database of its own: the triggers and settings here stay out of the other tests.
\set regress_db :DBNAME
CREATE DATABASE dealcards_hardening;
\c dealcards_hardening
\set SHOW_CONTEXT never
CREATE EXTENSION dealcards;

INSERT INTO desk (desk_id) VALUES (41), (42);
INSERT INTO desk_player VALUES (41, 1, 4101), (41, 2, 4102), (41, 3, 4103),
                               (42, 1, 4201), (42, 2, 4202), (42, 3, 4203);

-- A trigger on the queue's tracks that calls the extension again (a queue function, a deal, a
-- shuffle) while a queue function's statement is running: every call works. (Triggers on the
-- extension's tables are refused unless allowed: pg_dump would not keep them.)
SET dealcards.allow_own_objects = on;
CREATE TABLE reentry_log (queue_id bigint, current_track bigint, game bigint, deck int[]);
CREATE FUNCTION reenter() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO reentry_log
  VALUES (NEW.queue_id, shuffle_queue_current(NEW.queue_id),
          (deal_cards(42) ->> 'game')::bigint, shuffle_ints(1, 3));
  RETURN NEW;
END $$;
CREATE TRIGGER reenter AFTER INSERT OR UPDATE ON shuffle_queue_track
  FOR EACH ROW EXECUTE FUNCTION reenter();
SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4]::bigint[]) AS q \gset
SELECT shuffle_queue_next(:q) BETWEEN 1 AND 4 AS next_works,
       shuffle_queue_add(:q, 5) AS add_works,
       shuffle_queue_next(:q) BETWEEN 1 AND 5 AS next_again;
SELECT count(*) > 0 AS trigger_ran, bool_and(queue_id = :q) AS its_queue,
       count(DISTINCT game) = count(*) AS a_game_each_time,
       bool_and(deck @> ARRAY[1, 2, 3] AND cardinality(deck) = 3) AS shuffles_in_trigger
  FROM reentry_log;
DROP TRIGGER reenter ON shuffle_queue_track;
SELECT shuffle_queue_drop(:q);

-- A trigger that keeps the game row out: deal_cards says so (27000) and writes nothing.
SELECT count(*) AS games_before FROM game \gset
CREATE FUNCTION keep_out() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER keep_out BEFORE INSERT ON game FOR EACH ROW EXECUTE FUNCTION keep_out();
SELECT deal_cards(41);
\echo :LAST_ERROR_SQLSTATE
DROP TRIGGER keep_out ON game;
RESET dealcards.allow_own_objects;
SELECT count(*) = :games_before AS no_game,
       (SELECT cur_game_id FROM desk WHERE desk_id = 41) IS NULL AS desk_unchanged,
       (SELECT count(*) FROM bid_record WHERE desk_id = 41) AS bids,
       (SELECT count(*) FROM note WHERE desk_id = 41) AS notes
  FROM game;

-- A fourth seat, possible once the seat CHECK is dropped: 55000, and nothing written.
BEGIN;
ALTER TABLE desk_player DROP CONSTRAINT desk_player_player_no_check;
INSERT INTO desk_player VALUES (41, 4, 4104);
SELECT deal_cards(41);
\echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SELECT (deal_cards(41) ->> 'desk')::int AS deals_again_with_three;

-- dealcards.notify: on by default; off, deal_cards sends no notification, so a transaction that
-- dealt can be prepared for two-phase commit (one that notified cannot: 0A000).
SHOW dealcards.notify;
BEGIN;
SELECT deal_cards(41) IS NOT NULL AS dealt;
PREPARE TRANSACTION 'dealcards_notified';
\echo :LAST_ERROR_SQLSTATE
SET dealcards.notify = off;
LISTEN dealcards_desk_41;
SELECT count(*) AS games_before FROM game \gset
BEGIN;
SELECT deal_cards(41) IS NOT NULL AS dealt;
PREPARE TRANSACTION 'dealcards_silent';
COMMIT PREPARED 'dealcards_silent';
SELECT count(*) - :games_before AS committed_games FROM game;
SELECT 1 AS nothing_was_notified;
UNLISTEN dealcards_desk_41;
RESET dealcards.notify;
SHOW dealcards.notify;
SET dealcards.notify = maybe;
\echo :LAST_ERROR_SQLSTATE

-- int2vector and oidvector are refused (42804); their array casts work.
SELECT shuffle_array('1 2 3'::int2vector);
\echo :LAST_ERROR_SQLSTATE
SELECT sample_array('1 2 3'::oidvector, 2, decode(repeat('00', 32), 'hex'));
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_array('1 2 3'::int2vector::int2[], decode(repeat('00', 32), 'hex')) AS int2_array;

-- Results larger than PostgreSQL's largest allocation in the generic array builder are built
-- in place: 67,108,866 cards are 268 MB as an int[]. Sizes are checked, not the cards.
SELECT seat, cardinality(cards) FROM deal_hands(1, 1, 67108866) ORDER BY seat;
SELECT cardinality(sort_hand(array_fill(1, ARRAY[67108865]))) AS sorted_cards;
SELECT length(hand_labels(array_fill(53, ARRAY[20000000]))) AS label_bytes;

-- Long loops stop at statement_timeout: sorting, labelling, dealing and filling a sample's
-- working table (each would run for seconds).
SET statement_timeout = '200ms';
SELECT cardinality(sort_hand(array_fill(7, ARRAY[134217727])));
\echo :LAST_ERROR_SQLSTATE
SELECT length(hand_labels(array_fill(7, ARRAY[100000000])));
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM deal_hands(1, 1, 134217727);
\echo :LAST_ERROR_SQLSTATE
SET dealcards.max_working_memory = '4GB';
SELECT cardinality(sample_ints(1, 134217724, 134217724));
\echo :LAST_ERROR_SQLSTATE
RESET dealcards.max_working_memory;
RESET statement_timeout;

-- Working memory per call is bounded by dealcards.max_working_memory (default 1 GB): beyond
-- it a call is refused (54000) before anything is allocated. The largest sample needs a 3.2 GB
-- table; 10^5 short texts need 1.5 MB of slots; a million ints shuffled in place need none.
SHOW dealcards.max_working_memory;
SELECT cardinality(sample_ints(1, 134217724, 134217724));
\echo :LAST_ERROR_SQLSTATE
SET dealcards.max_working_memory = '1MB';
SELECT cardinality(shuffle_array(ARRAY(SELECT g::text FROM generate_series(1, 100000) g)));
\echo :LAST_ERROR_SQLSTATE
SELECT cardinality(sample_array(ARRAY(SELECT g FROM generate_series(1, 100000) g), 100000));
\echo :LAST_ERROR_SQLSTATE
SELECT cardinality(shuffle_array(ARRAY(SELECT g FROM generate_series(1, 1000000) g))) AS in_place;
SELECT cardinality(sample_ints(1, 1000000, 10000)) AS small_sample;
RESET dealcards.max_working_memory;
-- Only a superuser can change it.
CREATE ROLE dealcards_plain_role;
SET ROLE dealcards_plain_role;
SET dealcards.max_working_memory = '4GB';
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
DROP ROLE dealcards_plain_role;

-- Column changes to the extension's tables are refused (0A000): a restore could not put their
-- rows back. Other changes, and changes to the user's own tables, go through.
ALTER TABLE game ADD COLUMN winner smallint;
\echo :LAST_ERROR_SQLSTATE
ALTER TABLE game DROP COLUMN leader;
\echo :LAST_ERROR_SQLSTATE
ALTER TABLE note ALTER COLUMN body TYPE varchar;
\echo :LAST_ERROR_SQLSTATE
ALTER TABLE shuffle_queue RENAME COLUMN mode TO kind;
\echo :LAST_ERROR_SQLSTATE
-- Objects of the user's own on the tables, which pg_dump would not keep: refused, and gone.
ALTER TABLE desk ADD CONSTRAINT desk_id_positive CHECK (desk_id > 0);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX game_dealt_at ON game (dealt_at);
\echo :LAST_ERROR_SQLSTATE
CREATE STATISTICS game_players (dependencies) ON p1_id, p2_id FROM game;
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS own_objects FROM pg_constraint WHERE conname = 'desk_id_positive'
 UNION ALL SELECT count(*) FROM pg_class WHERE relname = 'game_dealt_at'
 UNION ALL SELECT count(*) FROM pg_statistic_ext WHERE stxname = 'game_players';
-- On tables of the user's own, anything goes, a foreign key to the extension's tables too.
CREATE TABLE game_result (game_id bigint PRIMARY KEY, winner smallint,
                          desk_id int REFERENCES desk ON DELETE CASCADE);
ALTER TABLE game_result ADD COLUMN remark text;
CREATE INDEX game_result_winner ON game_result (winner);
DROP TABLE game_result;
SELECT (SELECT count(*) FROM pg_attribute WHERE attrelid = 'game'::regclass AND attnum > 0 AND NOT attisdropped)
       AS game_columns_unchanged;

\c :regress_db
DROP DATABASE dealcards_hardening;
