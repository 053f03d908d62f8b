-- What deal_cards(desk_id) is compared with, on the extension's own tables, and the desks the
-- benchmark deals at.

-- 100 desks of three players each, and 100 more in provably fair mode, whose players set
-- client seeds.
TRUNCATE game, bid_record, note;
DELETE FROM desk;
INSERT INTO desk (desk_id) SELECT d FROM generate_series(1, 200) d;
INSERT INTO desk_player (desk_id, player_no, player_id)
SELECT d, s, d * 10 + s FROM generate_series(1, 200) d, generate_series(1, 3) s;
-- Every run deals under the same rounds: bounded by far more deals than the runs make.
SELECT count(fair_mode_on(d, max_deals => 9223372036854775807)) FROM generate_series(101, 200) d;
SELECT count(*) FROM (SELECT set_client_seed(d, s, 'player ' || (d * 10 + s))
                        FROM generate_series(101, 200) d, generate_series(1, 3) s) t;

-- A game server with exactly the grants of docs/provably_fair.md ("Who is protected from whom"):
-- not the house, so its provably fair deals are kept unseen in their transaction, which the
-- benchmark's runs as this role measure.
DO $$
BEGIN
    CREATE ROLE dealcards_bench_server LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END
$$;
GRANT USAGE ON SCHEMA public TO dealcards_bench_server;
GRANT SELECT ON public.desk, public.desk_player, public.game, public.bid_record, public.note,
                public.fair_commitment, public.v_player_id_in_room TO dealcards_bench_server;
GRANT INSERT (desk_id), UPDATE (cur_game_id) ON public.desk TO dealcards_bench_server;
GRANT INSERT (desk_id, player_no, player_id), DELETE ON public.desk_player TO dealcards_bench_server;
GRANT UPDATE (state_no, lord_no) ON public.game TO dealcards_bench_server;
GRANT INSERT, UPDATE ON public.bid_record, public.note TO dealcards_bench_server;
GRANT USAGE ON SEQUENCE public.note_note_id_seq TO dealcards_bench_server;

-- (a) The SQL Server dealCards procedure, ported faithfully to PL/pgSQL: the retry loop draws 3 * 54 values
-- scaled with abs(hash) % 54 into @x (a table variable the procedure never clears), appends to @t,
-- in order of first appearance, the values not yet taken, and repeats until @t holds 54; then it
-- reads the players from the view, inserts the game, points the desk at it, draws the first
-- bidder the same way, inserts the two bid records one by one, sets the game's state again, and
-- writes the note through writeNote. Table variables become arrays, the `nums` table
-- generate_series, newid() gen_random_uuid() and checksum() hashtext(). (hashtext is widened to
-- bigint before abs: abs(-2^31) overflows int, the procedure's latent bug.) Like the procedure it takes no
-- lock, checks nothing and sends no NOTIFY.
CREATE OR REPLACE FUNCTION ported_prev_player(player int) RETURNS int
LANGUAGE sql IMMUTABLE AS $$ SELECT CASE player WHEN 1 THEN 3 ELSE player - 1 END $$;

CREATE OR REPLACE PROCEDURE ported_write_note(in_desk_id int, in_player int, in_note_type int,
                                               in_flag text, in_body text)
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO note (desk_id, player_no, note_type, flag, body)
  VALUES (in_desk_id, in_player, in_note_type, in_flag, in_body);
END $$;

CREATE OR REPLACE PROCEDURE ported_deal_cards(in_desk_id int, INOUT out_msg varchar(500) DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  lbound int := 1;
  ubound int := 54;
  t int[] := '{}';
  x_idx int[] := '{}';
  x_r int[] := '{}';
  new_p1_id bigint;
  new_p2_id bigint;
  new_p3_id bigint;
  new_game_id bigint;
  rnd_player int;
  note_body varchar(500);
BEGIN
  -- 1~54 without repeats
  WHILE cardinality(t) < ubound - lbound + 1 LOOP
    SELECT x_idx || array_agg(i ORDER BY i), x_r || array_agg(r ORDER BY i)
      INTO x_idx, x_r
      FROM (SELECT i, (abs(hashtext(gen_random_uuid()::text)::bigint) % (ubound - lbound + 1) + 1)::int AS r
              FROM generate_series(1, 3 * (ubound - lbound + 1)) i) draws;
    t := t || ARRAY(
      SELECT r FROM (SELECT min(idx) AS idx, r FROM unnest(x_idx, x_r) AS x (idx, r) GROUP BY r) firsts
       WHERE r <> ALL (t)
       ORDER BY idx);
  END LOOP;
  SELECT v.p1_id, v.p2_id, v.p3_id INTO new_p1_id, new_p2_id, new_p3_id
    FROM v_player_id_in_room v WHERE v.desk_id = in_desk_id;
  INSERT INTO game (desk_id, p1_cards, p2_cards, p3_cards, extra_cards, state_no, lord_no, p1_id, p2_id, p3_id)
  VALUES (in_desk_id, t[1:17], t[18:34], t[35:51], t[52:54], 1, 0, new_p1_id, new_p2_id, new_p3_id)
  RETURNING game_id INTO new_game_id;
  UPDATE desk SET cur_game_id = new_game_id WHERE desk_id = in_desk_id;
  -- the first bidder, and the two bid records placed ahead of the bidding
  rnd_player := abs(hashtext(gen_random_uuid()::text)::bigint) % 3 + 1;
  INSERT INTO bid_record (desk_id, game_id, player_no, rec_idx, bid_size)
  VALUES (in_desk_id, new_game_id, ported_prev_player(rnd_player), 0, -1);
  INSERT INTO bid_record (desk_id, game_id, player_no, rec_idx, bid_size)
  VALUES (in_desk_id, new_game_id, ported_prev_player(rnd_player), -1, -1);
  -- the game is now bidding
  UPDATE game SET state_no = 1 WHERE desk_id = in_desk_id AND game_id = new_game_id;
  out_msg := '{desk:' || in_desk_id || ',game:' || new_game_id || ',leader:' || rnd_player || '}';
  note_body := rnd_player || '#' || new_game_id;
  CALL ported_write_note(in_desk_id, rnd_player, 3, 'y', note_body);
END $$;

-- (b) The floor: the same lock, checks, writes and NOTIFY as deal_cards, with the very statements
-- deal_cards runs, but fixed hands and a fixed first bidder, so no shuffle at all. What is left
-- is what the writes themselves cost. With notify => false it skips the NOTIFY, to show what
-- Postgres's commit-time serialization of notifying transactions costs.
CREATE OR REPLACE PROCEDURE fixed_hands_deal(in_desk_id int, notify boolean DEFAULT true)
LANGUAGE plpgsql AS $$
DECLARE
  seated_count bigint;
  new_game_id bigint;
BEGIN
  PERFORM FROM desk WHERE desk_id = in_desk_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'desk % does not exist', in_desk_id USING ERRCODE = 'no_data_found';
  END IF;
  WITH seats AS (
      SELECT count(*) AS seated,
             max(player_id) FILTER (WHERE player_no = 1) AS p1_id,
             max(player_id) FILTER (WHERE player_no = 2) AS p2_id,
             max(player_id) FILTER (WHERE player_no = 3) AS p3_id
        FROM desk_player
       WHERE desk_id = in_desk_id
  ), new_game AS (
      INSERT INTO game (desk_id, p1_cards, p2_cards, p3_cards, extra_cards,
                        state_no, lord_no, p1_id, p2_id, p3_id, leader)
      SELECT in_desk_id,
             '{1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17}',
             '{18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34}',
             '{35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51}',
             '{52,53,54}', 1, 0, s.p1_id, s.p2_id, s.p3_id, 1
        FROM seats s
       WHERE s.seated = 3
      RETURNING game_id
  ), desk_game AS (
      UPDATE desk d SET cur_game_id = g.game_id FROM new_game g WHERE d.desk_id = in_desk_id
  ), opening_bids AS (
      INSERT INTO bid_record (desk_id, game_id, player_no, rec_idx, bid_size)
      SELECT in_desk_id, g.game_id, 3, r.rec_idx, -1 FROM new_game g, (VALUES (0), (-1)) r (rec_idx)
  ), first_bidder_note AS (
      INSERT INTO note (desk_id, player_no, note_type, flag, body)
      SELECT in_desk_id, 1, 3, 'y', concat(1, '#', g.game_id) FROM new_game g
  )
  SELECT s.seated, g.game_id INTO seated_count, new_game_id FROM seats s LEFT JOIN new_game g ON true;
  IF seated_count < 3 THEN
    RAISE EXCEPTION 'desk % has % of 3 players seated', in_desk_id, seated_count
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  IF notify THEN
    PERFORM pg_notify('dealcards_desk_' || in_desk_id,
                      format('{"desk": %s, "game": %s, "leader": 1}', in_desk_id, new_game_id));
  END IF;
END $$;

-- deal_cards itself, declared a second time with SET search_path: what pinning the search path
-- on the function (rather than naming the schema in every statement) would cost per call.
CREATE OR REPLACE FUNCTION deal_cards_with_search_path(desk_id int) RETURNS jsonb
LANGUAGE c STRICT VOLATILE PARALLEL UNSAFE
SET search_path = public, pg_temp
AS '$libdir/dealcards', 'deal_cards_wrapper';
