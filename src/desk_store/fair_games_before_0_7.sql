-- fair_games.sql as the tables of 0.5.0 and 0.6.0 take it (rounds have no bound, and none is
-- of protocol 3): a desk's provably fair games in chain order, with the round of each one's
-- commitment, that round's protocol and house seats, and its server seed once revealed.
SELECT g.game_id, c.round, g.fair_nonce, g.fair_commitment,
       COALESCE(c.protocol, 1::pg_catalog.int2) AS protocol,
       COALESCE(c.house_seats, '{}'::pg_catalog.int2[]) AS house_seats,
       COALESCE(c.seeds_required, false) AS seeds_required,
       NULL::pg_catalog.int8 AS max_deals, NULL::pg_catalog.int8 AS reveal_by_micros,
       g.p1_id, g.p2_id, g.p3_id,
       pg_catalog.cardinality(g.client_seeds) AS seed_count,
       pg_catalog.convert_to(g.client_seeds[1], 'UTF8') AS seed1,
       pg_catalog.convert_to(g.client_seeds[2], 'UTF8') AS seed2,
       pg_catalog.convert_to(g.client_seeds[3], 'UTF8') AS seed3,
       g.p1_cards, g.p2_cards, g.p3_cards, g.extra_cards, g.leader, g.chain_hash,
       c.server_seed, g.dealt_at OPERATOR(pg_catalog.>) c.revealed_at AS dealt_after_reveal
  FROM @extschema@.game g
  LEFT JOIN @extschema@.fair_commitment c
         ON c.desk_id OPERATOR(pg_catalog.=) g.desk_id
        AND c.commitment OPERATOR(pg_catalog.=) g.fair_commitment
 WHERE g.desk_id OPERATOR(pg_catalog.=) $1 AND g.fair_commitment IS NOT NULL
 ORDER BY c.round, g.fair_nonce, g.game_id
