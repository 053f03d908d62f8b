-- A deal written one table at a time (on a Citus node, where each statement must name one
-- desk's shards): the game, its id from this node's range ($10, see src/citus.rs), with the
-- players $7 to $9 and, for a provably fair deal, $11 to $14 as in record_fair_deal.sql.
INSERT INTO @extschema@.game
       (game_id, desk_id, p1_cards, p2_cards, p3_cards, extra_cards, state_no, lord_no,
        p1_id, p2_id, p3_id, leader, fair_commitment, fair_nonce, client_seeds, chain_hash)
OVERRIDING SYSTEM VALUE
VALUES ($10 OPERATOR(pg_catalog.+)
            pg_catalog.nextval('@extschema@.game_game_id_seq'::pg_catalog.regclass),
        $1, $2, $3, $4, $5, 1, 0, $7, $8, $9, $6, $11, $12,
        CASE WHEN $13 IS NOT NULL THEN
             ARRAY[pg_catalog.convert_from($13[1], 'UTF8'),
                   pg_catalog.convert_from($13[2], 'UTF8'),
                   pg_catalog.convert_from($13[3], 'UTF8')] END,
        $14)
RETURNING game_id
