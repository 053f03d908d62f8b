-- The receipt of game $1 as stored, key for key and value for value the receipt deal_cards
-- notified (docs/provably_fair.md, "What a player keeps: the receipt"), and whether the game
-- was dealt in provably fair mode. Read as the caller: the rows a deal wrote are visible to a
-- role other than the tables' owner only once the dealing transaction has committed.
SELECT g.fair_commitment IS NOT NULL AS fair,
       pg_catalog.jsonb_build_object(
           'desk', g.desk_id,
           'game', g.game_id,
           'leader', g.leader,
           'round', c.round,
           'nonce', g.fair_nonce,
           'commitment', pg_catalog.encode(g.fair_commitment, 'hex'),
           'chain_hash', pg_catalog.encode(g.chain_hash, 'hex'),
           'players', pg_catalog.jsonb_build_array(g.p1_id, g.p2_id, g.p3_id),
           'client_seeds', (SELECT pg_catalog.jsonb_agg(pg_catalog.encode(pg_catalog.convert_to(s, 'UTF8'), 'hex')
                                                        ORDER BY i)
                              FROM pg_catalog.unnest(g.client_seeds) WITH ORDINALITY u (s, i))) AS receipt
  FROM @extschema@.game g
  LEFT JOIN @extschema@.fair_commitment c
         ON c.desk_id OPERATOR(pg_catalog.=) g.desk_id
        AND c.commitment OPERATOR(pg_catalog.=) g.fair_commitment
 WHERE g.game_id OPERATOR(pg_catalog.=) $1
