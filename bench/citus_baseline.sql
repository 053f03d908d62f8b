-- What deal_cards(desk_id) is compared with on a Citus cluster: the deal a Citus user would write
-- by hand in PL/pgSQL on the extension's tables once they are distributed
-- (dealcards_distribute()). One statement per table, each keyed by desk_id so that Citus routes it
-- to the desk's shards, the cards from deal_hands(), ids from the tables' own defaults. The
-- function is distributed by its argument and colocated with desk, with force_delegation, as
-- dealcards_distribute() does with deal_cards: a call on the coordinator runs whole on the worker
-- that holds the desk. Run on the coordinator after dealcards_distribute().
CREATE OR REPLACE FUNCTION baseline_deal(in_desk_id int) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  seats record;
  hand record;
  p1 int[];
  p2 int[];
  p3 int[];
  extra int[];
  leader smallint;
  new_game_id bigint;
BEGIN
  PERFORM FROM desk WHERE desk_id = in_desk_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'desk % does not exist', in_desk_id USING ERRCODE = 'no_data_found';
  END IF;
  SELECT count(*) AS seated,
         max(player_id) FILTER (WHERE player_no = 1) AS p1_id,
         max(player_id) FILTER (WHERE player_no = 2) AS p2_id,
         max(player_id) FILTER (WHERE player_no = 3) AS p3_id
    INTO seats
    FROM desk_player
   WHERE desk_id = in_desk_id;
  IF seats.seated < 3 THEN
    RAISE EXCEPTION 'desk % has % of 3 players seated', in_desk_id, seats.seated
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  -- Row 0 holds the 3 extra cards, rows 1 to 3 the hands.
  FOR hand IN SELECT seat, cards FROM deal_hands() LOOP
    CASE hand.seat
      WHEN 0 THEN extra := hand.cards;
      WHEN 1 THEN p1 := hand.cards;
      WHEN 2 THEN p2 := hand.cards;
      ELSE p3 := hand.cards;
    END CASE;
  END LOOP;
  leader := 1 + floor(random() * 3)::int;
  INSERT INTO game (desk_id, p1_cards, p2_cards, p3_cards, extra_cards, state_no, lord_no,
                    p1_id, p2_id, p3_id, leader)
  VALUES (in_desk_id, p1, p2, p3, extra, 1, 0, seats.p1_id, seats.p2_id, seats.p3_id, leader)
  RETURNING game_id INTO new_game_id;
  UPDATE desk SET cur_game_id = new_game_id WHERE desk_id = in_desk_id;
  -- The two opening bid records, by the seat before the first bidder.
  INSERT INTO bid_record (desk_id, game_id, player_no, rec_idx, bid_size)
  VALUES (in_desk_id, new_game_id, CASE leader WHEN 1 THEN 3 ELSE leader - 1 END, 0, -1),
         (in_desk_id, new_game_id, CASE leader WHEN 1 THEN 3 ELSE leader - 1 END, -1, -1);
  INSERT INTO note (desk_id, player_no, note_type, flag, body)
  VALUES (in_desk_id, leader, 3, 'y', leader || '#' || new_game_id);
  PERFORM pg_notify('dealcards_desk_' || in_desk_id,
                    jsonb_build_object('desk', in_desk_id, 'game', new_game_id, 'leader', leader)::text);
  RETURN jsonb_build_object('desk', in_desk_id, 'game', new_game_id, 'leader', leader);
END $$;

SELECT create_distributed_function('baseline_deal(int)', '$1', colocate_with := 'desk',
                                   force_delegation := true);
