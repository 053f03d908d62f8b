-- The unrevealed server seed of round $2 of a desk, as the tables of 0.3.0 and 0.4.0 keep it.
SELECT server_seed FROM @extschema@.fair_seed
 WHERE desk_id OPERATOR(pg_catalog.=) $1 AND round OPERATOR(pg_catalog.=) $2
   AND revealed_at IS NULL
