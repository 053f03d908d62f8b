-- The desk deals under round $2 with commitment $3 from its first nonce.
UPDATE @extschema@.desk SET fair_round = $2, fair_commitment = $3, fair_nonce = 0
 WHERE desk_id OPERATOR(pg_catalog.=) $1
