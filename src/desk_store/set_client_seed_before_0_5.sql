-- set_client_seed.sql as the tables of 0.3.0 and 0.4.0 take it: the client seed (UTF-8 $3) of
-- the player in seat $2 of a desk, kept in desk_player.
UPDATE @extschema@.desk_player SET client_seed = pg_catalog.convert_from($3, 'UTF8')
 WHERE desk_id OPERATOR(pg_catalog.=) $1 AND player_no OPERATOR(pg_catalog.=) $2
RETURNING player_no
