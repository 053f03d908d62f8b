-- The player in seat $2 of a desk.
SELECT player_id FROM @extschema@.desk_player
 WHERE desk_id OPERATOR(pg_catalog.=) $1 AND player_no OPERATOR(pg_catalog.=) $2
