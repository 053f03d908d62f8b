-- The desk points at its new game $2; a provably fair deal (commitment $3) moves its nonce past
-- $4 and its chain head to $5, if the desk names, with that commitment, an unrevealed round of its
-- own (record_fair_deal.sql says why): no row otherwise.
UPDATE @extschema@.desk
   SET cur_game_id = $2,
       fair_nonce = CASE WHEN $3 IS NULL THEN fair_nonce ELSE $4 OPERATOR(pg_catalog.+) 1 END,
       fair_chain_head = COALESCE($5, fair_chain_head)
 WHERE desk_id OPERATOR(pg_catalog.=) $1
   AND ($3 IS NULL
        OR (fair_commitment OPERATOR(pg_catalog.=) $3
            AND EXISTS (SELECT FROM @extschema@.fair_seed s
                         WHERE s.desk_id OPERATOR(pg_catalog.=) $1
                           AND s.round OPERATOR(pg_catalog.=) fair_round
                           AND s.commitment OPERATOR(pg_catalog.=) $3
                           AND s.revealed_at IS NULL)))
RETURNING desk_id
