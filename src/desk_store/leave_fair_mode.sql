-- The desk leaves provably fair mode.
UPDATE @extschema@.desk SET fair_round = NULL, fair_commitment = NULL, fair_nonce = NULL
 WHERE desk_id OPERATOR(pg_catalog.=) $1
