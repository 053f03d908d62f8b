-- A desk's seats: a row per seated player, with the seat and the player.
SELECT p.player_no, p.player_id
  FROM @extschema@.desk_player p
 WHERE p.desk_id OPERATOR(pg_catalog.=) $1
