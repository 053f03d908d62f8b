-- add_round.sql as the tables of 0.3.0 and 0.4.0 take it (no rules). Run as fair_seed's owner.
INSERT INTO @extschema@.fair_seed (desk_id, round, commitment, server_seed)
SELECT $1, COALESCE(pg_catalog.max(round), 0) OPERATOR(pg_catalog.+) 1, $2, $3
  FROM @extschema@.fair_seed WHERE desk_id OPERATOR(pg_catalog.=) $1
RETURNING round
