-- The client seed (UTF-8 $4) of the player in seat $2 of a desk, answering round $3 and
-- belonging to that player id, unless that seating set one under the round already (a seed is set
-- once; a seat whose player id was rewritten since holds another player's seed, which does not
-- count). Run as the tables' owner.
UPDATE @extschema@.desk_player
   SET client_seed = pg_catalog.convert_from($4, 'UTF8'), seed_round = $3, seed_player = player_id
 WHERE desk_id OPERATOR(pg_catalog.=) $1 AND player_no OPERATOR(pg_catalog.=) $2
   AND (seed_round IS NULL OR seed_round OPERATOR(pg_catalog.<>) $3
        OR seed_player IS DISTINCT FROM player_id)
RETURNING player_id
