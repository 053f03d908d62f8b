-- Round $2 of a desk while its seed is unrevealed: the server seed, the round's rules (its bound
-- too: how many deals, the time its seed is due, and that time as a span from its commitment,
-- for the next round's rules), and whether this very transaction committed the round (a deal
-- refuses a round it could still undo). Run as fair_seed's owner.
SELECT server_seed, protocol, house_seats, seeds_required, max_deals, reveal_by, instance::text,
       timeline, place,
       reveal_by OPERATOR(pg_catalog.-) committed_at AS reveal_within,
       @extschema@.dealcards_written_here(xmin) AS written_here
  FROM @extschema@.fair_seed
 WHERE desk_id OPERATOR(pg_catalog.=) $1 AND round OPERATOR(pg_catalog.=) $2
   AND revealed_at IS NULL
