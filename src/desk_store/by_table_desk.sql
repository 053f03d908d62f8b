-- The desk points at its new game $2; a provably fair deal (commitment $3) moves its nonce past
-- $4 and its chain head to $5.
UPDATE @extschema@.desk
   SET cur_game_id = $2,
       fair_nonce = CASE WHEN $3 IS NULL THEN fair_nonce ELSE $4 OPERATOR(pg_catalog.+) 1 END,
       fair_chain_head = COALESCE($5, fair_chain_head)
 WHERE desk_id OPERATOR(pg_catalog.=) $1
