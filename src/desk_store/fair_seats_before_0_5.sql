-- A desk's seats with their client seeds (UTF-8), as the tables of 0.3.0 and 0.4.0 keep them (in
-- desk_player).
SELECT p.player_no, p.player_id, pg_catalog.convert_to(p.client_seed, 'UTF8') AS client_seed
  FROM @extschema@.desk_player p
 WHERE p.desk_id OPERATOR(pg_catalog.=) $1
