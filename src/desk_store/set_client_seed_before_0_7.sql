-- 0.5.0's and 0.6.0's tables (no desk_player.seed_player: a seed counts for whoever sits in
-- the seat). The client seed (UTF-8 $4) of the player in seat $2 of a desk, answering round $3, unless that
-- seating set one under the round already (a seed is set once). Run as the tables' owner.
UPDATE @extschema@.desk_player
   SET client_seed = pg_catalog.convert_from($4, 'UTF8'), seed_round = $3
 WHERE desk_id OPERATOR(pg_catalog.=) $1 AND player_no OPERATOR(pg_catalog.=) $2
   AND (seed_round IS NULL OR seed_round OPERATOR(pg_catalog.<>) $3)
RETURNING player_id
