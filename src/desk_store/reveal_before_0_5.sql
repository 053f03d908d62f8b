-- reveal.sql as the functions of 0.3.0 and 0.4.0 did it: it returns the server seed to the
-- revealing transaction (0.5.0 does not). Run as fair_seed's owner.
UPDATE @extschema@.fair_seed SET revealed_at = $3
 WHERE desk_id OPERATOR(pg_catalog.=) $1 AND round OPERATOR(pg_catalog.=) $2
   AND revealed_at IS NULL
RETURNING server_seed
