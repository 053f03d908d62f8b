-- record_deal.sql for a provably fair deal, whose seats were read before its cards were derived
-- from their client seeds: writes the game with those players ($8 to $10), its commitment,
-- nonce, client seeds (given in UTF-8) and chain hash ($11 to $14), and moves the desk's nonce
-- and chain head on, if the desk names, with commitment $11, its unrevealed round $15 (each row
-- reached by its full key, whatever the statistics say): `in_force` is 0 otherwise (no key
-- holds it: a desk rewritten by hand), and the caller raises, which undoes the game. So no game
-- is recorded under a seed that is not its desk's secret.
WITH new_game AS (
    INSERT INTO @extschema@.game (desk_id, p1_cards, p2_cards, p3_cards, extra_cards,
                                  state_no, lord_no, p1_id, p2_id, p3_id, leader,
                                  fair_commitment, fair_nonce, client_seeds, chain_hash)
    VALUES ($1, $2, $3, $4, $5, 1, 0, $8, $9, $10, $6, $11, $12,
            ARRAY[pg_catalog.convert_from($13[1], 'UTF8'),
                  pg_catalog.convert_from($13[2], 'UTF8'),
                  pg_catalog.convert_from($13[3], 'UTF8')],
            $14)
    RETURNING game_id
), desk_game AS (
    UPDATE @extschema@.desk d
       SET cur_game_id = g.game_id,
           fair_nonce = $12 OPERATOR(pg_catalog.+) 1,
           fair_chain_head = $14
      FROM new_game g
     WHERE d.desk_id OPERATOR(pg_catalog.=) $1
       AND d.fair_round OPERATOR(pg_catalog.=) $15
       AND d.fair_commitment OPERATOR(pg_catalog.=) $11
       AND EXISTS (SELECT FROM @extschema@.fair_seed s
                    WHERE s.desk_id OPERATOR(pg_catalog.=) $1
                      AND s.round OPERATOR(pg_catalog.=) $15
                      AND s.commitment OPERATOR(pg_catalog.=) $11
                      AND s.revealed_at IS NULL)
    RETURNING d.desk_id
), opening_bids AS (
    INSERT INTO @extschema@.bid_record (desk_id, game_id, player_no, rec_idx, bid_size)
    SELECT $1, g.game_id, $7, r.rec_idx, -1
      FROM new_game g, (VALUES (0), (-1)) r (rec_idx)
), leader_note AS (
    INSERT INTO @extschema@.note (desk_id, player_no, note_type, flag, body)
    SELECT $1, $6, 3, 'y', pg_catalog.concat($6, '#', g.game_id)
      FROM new_game g
)
SELECT game_id, (SELECT pg_catalog.count(*) FROM desk_game) AS in_force FROM new_game
