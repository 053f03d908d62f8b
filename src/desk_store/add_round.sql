-- A desk's next round, under commitment $2 to server seed $3, with its rules: protocol 3, house
-- seats $4, client seeds required from the other seats or not ($5), and its bound: at most $6
-- deals, and its seed revealed within $7 of its commitment (NULL: no time limit). Numbered
-- after every round of the desk, and after every round a seat's client seed answers (a round
-- that is not in fair_seed: one left out of a restored dump): a new round starts every seat
-- without a seed. Committed under this server's token $8 (dealcards_instance) and timeline $9,
-- in place $10 (its database and data directory).
-- Run as fair_seed's owner.
INSERT INTO @extschema@.fair_seed
       (desk_id, round, commitment, server_seed, protocol, house_seats, seeds_required,
        max_deals, reveal_by, instance, timeline, place)
SELECT $1,
       GREATEST(COALESCE(pg_catalog.max(round), 0),
                (SELECT COALESCE(pg_catalog.max(p.seed_round), 0) FROM @extschema@.desk_player p
                  WHERE p.desk_id OPERATOR(pg_catalog.=) $1)) OPERATOR(pg_catalog.+) 1,
       $2, $3, 3, $4, $5, $6, pg_catalog.now() OPERATOR(pg_catalog.+) $7, $8::pg_catalog.uuid,
       $9, $10
  FROM @extschema@.fair_seed WHERE desk_id OPERATOR(pg_catalog.=) $1
RETURNING round
