-- What the house publishes of desk $1 for its players to check their receipts against
-- (docs/provably_fair.md, "What the house publishes"): every round with its rules and its seed
-- once its reveal has committed, every provably fair game in chain order, and the chain head;
-- bytes as hex. Read as the caller, through the fair_commitment view.
SELECT pg_catalog.jsonb_build_object(
    'desk', d.desk_id,
    'chain_head', pg_catalog.encode(d.fair_chain_head, 'hex'),
    'rounds', COALESCE((
        SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                   'round', c.round,
                   'commitment', pg_catalog.encode(c.commitment, 'hex'),
                   'server_seed', pg_catalog.encode(c.server_seed, 'hex'),
                   'protocol', c.protocol,
                   'house_seats', pg_catalog.to_jsonb(c.house_seats),
                   'seeds_required', c.seeds_required,
                   -- The bound (null on the tables of releases before 0.7.0, which have none).
                   'max_deals', pg_catalog.to_jsonb(c) OPERATOR(pg_catalog.->) 'max_deals',
                   'reveal_by', pg_catalog.to_jsonb(c) OPERATOR(pg_catalog.->) 'reveal_by',
                   'committed_at', c.committed_at,
                   'revealed_at', c.revealed_at) ORDER BY c.round)
          FROM @extschema@.fair_commitment c
         WHERE c.desk_id OPERATOR(pg_catalog.=) d.desk_id), '[]'::pg_catalog.jsonb),
    'games', COALESCE((
        SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                   'game', g.game_id,
                   'round', c.round,
                   'nonce', g.fair_nonce,
                   'commitment', pg_catalog.encode(g.fair_commitment, 'hex'),
                   'players', pg_catalog.jsonb_build_array(g.p1_id, g.p2_id, g.p3_id),
                   'client_seeds', (SELECT pg_catalog.jsonb_agg(pg_catalog.encode(pg_catalog.convert_to(s, 'UTF8'), 'hex')
                                                     ORDER BY i)
                                      FROM pg_catalog.unnest(g.client_seeds) WITH ORDINALITY u (s, i)),
                   'cards', pg_catalog.jsonb_build_array(g.p1_cards, g.p2_cards, g.p3_cards, g.extra_cards),
                   'leader', g.leader,
                   'chain_hash', pg_catalog.encode(g.chain_hash, 'hex'),
                   'dealt_at', g.dealt_at) ORDER BY c.round, g.fair_nonce, g.game_id)
          FROM @extschema@.game g
          LEFT JOIN @extschema@.fair_commitment c
                 ON c.desk_id OPERATOR(pg_catalog.=) g.desk_id
                AND c.commitment OPERATOR(pg_catalog.=) g.fair_commitment
         WHERE g.desk_id OPERATOR(pg_catalog.=) d.desk_id
           AND g.fair_commitment IS NOT NULL), '[]'::pg_catalog.jsonb)) AS publication,
       -- As in desk_exists.sql: a deal of this transaction that the caller cannot see yet.
       d.fair_chain_head IS NOT NULL
       AND @extschema@.dealcards_written_here(d.xmin)
       AND NOT EXISTS (SELECT FROM @extschema@.game g
                        WHERE g.desk_id OPERATOR(pg_catalog.=) d.desk_id
                          AND g.game_id OPERATOR(pg_catalog.=) d.cur_game_id) AS pending
  FROM @extschema@.desk d
 WHERE d.desk_id OPERATOR(pg_catalog.=) $1
