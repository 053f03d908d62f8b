-- A desk's seats as lock_with_seats.sql reads them, for round $2: a row per seated player, with
-- the client seed the player in the seat set under the round (NULL if none) and the seat row's xmin.
SELECT p.player_no, p.player_id, p.xmin AS seat_xmin,
       CASE WHEN p.seed_round OPERATOR(pg_catalog.=) $2
                 AND p.seed_player OPERATOR(pg_catalog.=) p.player_id
            THEN pg_catalog.convert_to(p.client_seed, 'UTF8') END AS client_seed
  FROM @extschema@.desk_player p
 WHERE p.desk_id OPERATOR(pg_catalog.=) $1
