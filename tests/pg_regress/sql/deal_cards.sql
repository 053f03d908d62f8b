-- deal_cards(desk_id): the `dealCards` procedure's Dou Dizhu deal on the extension's own tables,
-- and the card functions. Deals are live random: everything printed is a count or a boolean.
\set SHOW_CONTEXT never
\set regress_db :DBNAME

-- How Postgres sees the functions.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proparallel AS parallel,
       p.proisstrict AS strict, pg_get_function_result(p.oid) AS result
  FROM pg_proc p
 WHERE p.proname IN ('deal_cards', 'card_label', 'sort_hand', 'hand_labels', 'deal_hands')
 ORDER BY p.oid::regprocedure::text;
SELECT pg_get_function_arguments('deal_hands'::regproc) AS deal_hands_arguments;
-- The tables kept by pg_dump.
SELECT c.relname FROM pg_extension e, unnest(e.extconfig) t(oid) JOIN pg_class c ON c.oid = t.oid
 WHERE e.extname = 'dealcards'
   AND c.relname IN ('desk', 'desk_player', 'game', 'bid_record', 'note', 'game_game_id_seq', 'note_note_id_seq')
 ORDER BY 1;

-- card_label: rank then suit, FreeCell numbering; two jokers.
SELECT c AS card, card_label(c) FROM unnest(ARRAY[1, 2, 3, 4, 5, 37, 39, 41, 46, 52, 53, 54]) c;
SELECT count(DISTINCT card_label(c)) AS distinct_labels FROM generate_series(1, 54) c;
SELECT card_label(NULL) IS NULL AS null_card;
SELECT card_label(0);
\echo :LAST_ERROR_SQLSTATE
SELECT card_label(55);
\echo :LAST_ERROR_SQLSTATE

-- sort_hand / hand_labels: Dou Dizhu order 3 .. K A 2, small joker, big joker; suit breaks ties.
SELECT sort_hand(ARRAY[54, 1, 9, 12, 8, 53, 39]);
SELECT hand_labels(ARRAY[54, 1, 9, 12, 8, 53, 39]);
SELECT hand_labels(ARRAY(SELECT generate_series(54, 1, -1)));
SELECT sort_hand('{}') AS empty_sorted, hand_labels('{}') = '' AS empty_labels;
SELECT sort_hand(NULL) IS NULL AS null_hand;
SELECT sort_hand(ARRAY[1, 55]);
\echo :LAST_ERROR_SQLSTATE
SELECT hand_labels(ARRAY[3, NULL]);
\echo :LAST_ERROR_SQLSTATE

-- deal_hands: the pure deal, seat 0 holding the rest.
SELECT seat, cardinality(cards) AS cards FROM deal_hands() ORDER BY seat;
SELECT (SELECT array_agg(c ORDER BY c) FROM deal_hands() d, unnest(d.cards) c)
     = (SELECT array_agg(g) FROM generate_series(1, 54) g) AS deals_every_card_once;
SELECT seat, cardinality(cards) AS cards FROM deal_hands(4, 13, 52) ORDER BY seat;
SELECT seat, cards FROM deal_hands(1, 1, 1);
SELECT count(*) AS rows, sum(cardinality(cards)) AS cards FROM deal_hands(hand_size => 5);
SELECT count(*) AS rows FROM deal_hands(NULL);
SELECT * FROM deal_hands(0);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM deal_hands(3, 0);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM deal_hands(3, 17, 0);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM deal_hands(4);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM deal_hands(2147483647, 2147483647, 2147483647);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM deal_hands(1, 1, 2147483647);
\echo :LAST_ERROR_SQLSTATE
-- A long deal honours statement_timeout.
SET statement_timeout = '50ms';
SELECT count(*) FROM deal_hands(1, 1, 100000000);
\echo :LAST_ERROR_SQLSTATE
RESET statement_timeout;

-- The tables: desk 7 with three players.
INSERT INTO desk (desk_id) VALUES (7), (8), (9);
INSERT INTO desk_player (desk_id, player_no, player_id)
VALUES (7, 1, 701), (7, 2, 702), (7, 3, 703), (8, 1, 801), (8, 3, 803);
SELECT * FROM v_player_id_in_room ORDER BY desk_id;
-- Seats are 1..3, and a player sits at one seat of a desk at most.
INSERT INTO desk_player VALUES (9, 4, 901);
\echo :LAST_ERROR_SQLSTATE
INSERT INTO desk_player VALUES (8, 2, 801);
\echo :LAST_ERROR_SQLSTATE
-- A desk's seats go with it; a seat for a desk that does not exist goes in (no key joins the
-- tables, so that a parallel restore keeps them) and dealcards_check() names it.
INSERT INTO desk (desk_id) VALUES (10);
INSERT INTO desk_player VALUES (10, 1, 1001), (10, 2, 1002), (11, 1, 1101);
DELETE FROM desk WHERE desk_id = 10 RETURNING desk_id;
SELECT desk_id, player_no FROM desk_player WHERE desk_id IN (10, 11) ORDER BY 1, 2;
SELECT * FROM dealcards_check();
DELETE FROM desk_player WHERE desk_id = 11;
SELECT count(*) AS problems FROM dealcards_check();

-- Deal at desk 7.
SELECT deal_cards(7) AS deal \gset
SELECT jsonb_typeof(:'deal'::jsonb) AS type,
       (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(:'deal'::jsonb) k) AS keys,
       (:'deal'::jsonb ->> 'desk')::int AS desk,
       (:'deal'::jsonb ->> 'game')::bigint = (SELECT max(game_id) FROM game) AS game_is_the_new_row,
       (:'deal'::jsonb ->> 'leader')::int BETWEEN 1 AND 3 AS leader_in_1_3;
SELECT (:'deal'::jsonb ->> 'game')::bigint AS game, (:'deal'::jsonb ->> 'leader')::int AS leader \gset
-- The game row: four hands of 17, 17, 17 and 3 that are disjoint and are exactly 1..54.
SELECT cardinality(p1_cards) AS p1, cardinality(p2_cards) AS p2, cardinality(p3_cards) AS p3,
       cardinality(extra_cards) AS extra,
       (SELECT array_agg(c ORDER BY c) FROM unnest(p1_cards || p2_cards || p3_cards || extra_cards) c)
         = (SELECT array_agg(g) FROM generate_series(1, 54) g) AS exactly_1_to_54,
       desk_id, state_no, lord_no, p1_id, p2_id, p3_id, leader = :leader AS leader_is_returned,
       dealt_at <= now() AS dealt_at_is_set
  FROM game WHERE game_id = :game;
-- The desk points at the game.
SELECT cur_game_id = :game AS desk_points_at_game FROM desk WHERE desk_id = 7;
-- The procedure's two bid records, for the seat before the first bidder (1 -> 3, 2 -> 1, 3 -> 2).
SELECT desk_id, game_id = :game AS this_game, player_no = (ARRAY[3, 1, 2])[:leader] AS seat_before_leader,
       rec_idx, bid_size
  FROM bid_record WHERE game_id = :game ORDER BY rec_idx DESC;
-- The procedure's note for the first bidder: note_type 3, flag 'y', body '<leader>#<game>'.
SELECT desk_id, player_no = :leader AS to_leader, note_type, flag, body = :leader || '#' || :game AS body_is_leader_game
  FROM note WHERE desk_id = 7;
-- Dealing again: a new game, the desk points at the newest.
SELECT (deal_cards(7) ->> 'game')::bigint > :game AS newer;
SELECT count(*) AS games, max(game_id) = (SELECT cur_game_id FROM desk WHERE desk_id = 7) AS desk_points_at_newest
  FROM game WHERE desk_id = 7;
SELECT count(*) AS bid_records FROM bid_record WHERE desk_id = 7;
SELECT count(*) AS notes FROM note WHERE desk_id = 7;
-- Two deals differ.
SELECT count(DISTINCT p1_cards) AS distinct_p1_hands FROM game WHERE desk_id = 7;
-- The game table's CHECKs refuse hands of the wrong size (terse: the failing row is random).
\set VERBOSITY terse
INSERT INTO game (desk_id, p1_cards, p2_cards, p3_cards, extra_cards)
SELECT 7, p1_cards[1:16], p2_cards, p3_cards, extra_cards FROM game WHERE game_id = :game;
\echo :LAST_ERROR_SQLSTATE
INSERT INTO game (desk_id, p1_cards, p2_cards, p3_cards, extra_cards)
SELECT 7, p1_cards, p2_cards, p3_cards, extra_cards || 1 FROM game WHERE game_id = :game;
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default

-- Errors: an unknown desk, a desk with two players, a desk with none.
SELECT deal_cards(6);
\echo :LAST_ERROR_SQLSTATE
SELECT deal_cards(8);
\echo :LAST_ERROR_SQLSTATE
SELECT deal_cards(9);
\echo :LAST_ERROR_SQLSTATE
SELECT deal_cards(NULL) IS NULL AS null_desk;
-- A failed deal writes nothing.
SELECT (SELECT count(*) FROM game WHERE desk_id <> 7) AS other_games,
       (SELECT count(*) FROM bid_record WHERE desk_id <> 7) AS other_bids,
       (SELECT count(*) FROM note WHERE desk_id <> 7) AS other_notes;

-- All or nothing in the caller's transaction: a rolled-back deal leaves nothing behind.
SELECT count(*) AS games_before FROM game \gset
SELECT cur_game_id AS desk_game_before FROM desk WHERE desk_id = 7 \gset
BEGIN;
SELECT (deal_cards(7) ->> 'game')::bigint > :desk_game_before AS dealt_inside;
SELECT (deal_cards(7) ->> 'game')::bigint > :desk_game_before AS dealt_again_inside;
SELECT count(*) AS new_games_inside,
       bool_and(dealt_at = now()) AS dealt_at_this_transaction_start
  FROM game WHERE game_id > :desk_game_before;
ROLLBACK;
SELECT count(*) - :games_before AS new_games_after_rollback,
       (SELECT cur_game_id FROM desk WHERE desk_id = 7) = :desk_game_before AS desk_unchanged,
       (SELECT count(*) FROM bid_record) = 2 * count(*) AS bids_match_games,
       (SELECT count(*) FROM note) = count(*) AS notes_match_games
  FROM game;
-- A deal inside a transaction that later fails is undone with it.
BEGIN;
SELECT deal_cards(7) IS NOT NULL AS dealt;
SELECT 1 / 0;
COMMIT;
SELECT count(*) - :games_before AS new_games_after_failed_transaction FROM game;
-- A savepoint rolled back undoes just that deal.
BEGIN;
SAVEPOINT before_deal;
SELECT deal_cards(7) IS NOT NULL AS dealt;
ROLLBACK TO before_deal;
SELECT deal_cards(7) IS NOT NULL AS dealt_again;
COMMIT;
SELECT count(*) - :games_before AS new_games_after_savepoint FROM game;
SELECT max(game_id) = (SELECT cur_game_id FROM desk WHERE desk_id = 7) AS desk_points_at_newest
  FROM game WHERE desk_id = 7;

-- No NOTIFY survives a rollback: psql prints the notifications this connection receives after
-- each command, and a connection LISTENing on the desk's channel receives nothing here. (A
-- committed deal's notification, received by another connection, is checked by
-- tests/deal_concurrency.rs: its payload holds a live game number.)
LISTEN dealcards_desk_7;
BEGIN;
SELECT deal_cards(7) IS NOT NULL AS dealt_then_rolled_back;
ROLLBACK;
SELECT 1 AS nothing_was_notified;
UNLISTEN dealcards_desk_7;

-- search_path: deal_cards reaches its own tables whatever the caller's search_path, and a
-- same-named table earlier in it (a schema's, or a temporary one) captures nothing.
CREATE SCHEMA shadow;
CREATE TABLE shadow.desk (LIKE desk INCLUDING ALL);
CREATE TABLE shadow.desk_player (LIKE desk_player INCLUDING ALL);
CREATE TABLE shadow.game (LIKE game INCLUDING ALL);
CREATE TABLE shadow.bid_record (LIKE bid_record INCLUDING ALL);
CREATE TABLE shadow.note (LIKE note INCLUDING ALL);
-- The shadow desk 7 seats other players: deal_cards must not read them either.
INSERT INTO shadow.desk (desk_id) VALUES (7), (6);
INSERT INTO shadow.desk_player VALUES (7, 1, 1), (7, 2, 2), (7, 3, 3), (6, 1, 1), (6, 2, 2), (6, 3, 3);
CREATE TEMP TABLE game (LIKE game INCLUDING ALL);
CREATE TEMP TABLE bid_record (LIKE bid_record INCLUDING ALL);
CREATE TEMP TABLE note (LIKE note INCLUDING ALL);
SET search_path = shadow, public;
SELECT (deal_cards(7) ->> 'game')::bigint AS shadow_game \gset
-- The shadow desk 6 is not a desk of the extension.
SELECT deal_cards(6);
\echo :LAST_ERROR_SQLSTATE
SET search_path = pg_temp, shadow, public;
SELECT (deal_cards(7) ->> 'game')::bigint AS temp_game \gset
SET search_path = '';
SELECT (public.deal_cards(7) ->> 'game')::bigint AS empty_path_game \gset
RESET search_path;
SELECT (SELECT count(*) FROM shadow.game) AS shadow_games,
       (SELECT count(*) FROM shadow.bid_record) AS shadow_bids,
       (SELECT count(*) FROM shadow.note) AS shadow_notes,
       (SELECT cur_game_id FROM shadow.desk WHERE desk_id = 7) IS NULL AS shadow_desk_untouched,
       (SELECT count(*) FROM pg_temp.game) AS temp_games,
       (SELECT count(*) FROM pg_temp.bid_record) AS temp_bids,
       (SELECT count(*) FROM pg_temp.note) AS temp_notes;
SELECT count(*) AS games_written_to_the_extension,
       bool_and((p1_id, p2_id, p3_id) = (701, 702, 703)) AS real_players,
       max(game_id) = (SELECT cur_game_id FROM public.desk WHERE desk_id = 7) AS desk_points_at_newest
  FROM public.game WHERE game_id IN (:shadow_game, :temp_game, :empty_path_game);
SELECT count(*) AS bids FROM public.bid_record WHERE game_id IN (:shadow_game, :temp_game, :empty_path_game);
SELECT count(*) AS notes FROM public.note
 WHERE split_part(body, '#', 2)::bigint IN (:shadow_game, :temp_game, :empty_path_game);
DROP TABLE pg_temp.game, pg_temp.bid_record, pg_temp.note;
DROP SCHEMA shadow CASCADE;

-- CREATE EXTENSION dealcards SCHEMA cards, in a database of its own: unqualified calls with the
-- schema on the search_path, qualified calls without it.
CREATE DATABASE deal_cards_schema;
\c deal_cards_schema
\set SHOW_CONTEXT never
CREATE SCHEMA cards;
CREATE EXTENSION dealcards SCHEMA cards;
SELECT n.nspname AS schema, count(*) AS tables FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relname IN ('desk', 'desk_player', 'game', 'bid_record', 'note', 'v_player_id_in_room')
 GROUP BY 1;
INSERT INTO cards.desk VALUES (7);
INSERT INTO cards.desk_player VALUES (7, 1, 1), (7, 2, 2), (7, 3, 3);
SELECT (cards.deal_cards(7) ->> 'desk')::int AS qualified_call;
SET search_path = cards;
SELECT (deal_cards(7) ->> 'desk')::int AS unqualified_call, hand_labels(ARRAY[53, 3]);
-- A public.game (the default schema's) does not capture the writes either.
CREATE TABLE public.game (LIKE cards.game);
SET search_path = public, cards;
SELECT (deal_cards(7) ->> 'desk')::int AS with_public_game_first;
RESET search_path;
SELECT (SELECT count(*) FROM cards.game) AS games, (SELECT count(*) FROM public.game) AS public_games,
       (SELECT cur_game_id FROM cards.desk) = (SELECT max(game_id) FROM cards.game) AS desk_points_at_newest;
SELECT cards.deal_cards(8);
\echo :LAST_ERROR_SQLSTATE
-- Dropping the extension and creating it again in another schema, on the same connection: the
-- connection's deal_cards follows it to its new tables.
DROP TABLE public.game;
DROP EXTENSION dealcards;
CREATE EXTENSION dealcards;
INSERT INTO public.desk VALUES (7);
INSERT INTO public.desk_player VALUES (7, 1, 1), (7, 2, 2), (7, 3, 3);
SELECT (deal_cards(7) ->> 'desk')::int AS after_recreating;
SELECT count(*) AS public_games, to_regclass('cards.game') IS NULL AS cards_game_gone FROM public.game;
\c :regress_db
DROP DATABASE deal_cards_schema;
