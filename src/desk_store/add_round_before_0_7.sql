-- add_round.sql as the tables of 0.5.0 and 0.6.0 take it, with no bound: a desk's next round,
-- under commitment $2 to server seed $3, with protocol 2, house seats $4, and client seeds
-- required from the other seats or not ($5). Run as fair_seed's owner.
INSERT INTO @extschema@.fair_seed
       (desk_id, round, commitment, server_seed, protocol, house_seats, seeds_required)
SELECT $1, COALESCE(pg_catalog.max(round), 0) OPERATOR(pg_catalog.+) 1, $2, $3, 2, $4, $5
  FROM @extschema@.fair_seed WHERE desk_id OPERATOR(pg_catalog.=) $1
RETURNING round
