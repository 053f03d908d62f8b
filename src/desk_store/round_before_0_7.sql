-- round.sql as the tables of 0.5.0 and 0.6.0 take it, with no bound: round $2 of a desk while
-- its seed is unrevealed, the server seed, the round's rules, and whether this very transaction
-- committed the round. Run as fair_seed's owner.
SELECT server_seed, protocol, house_seats, seeds_required,
       @extschema@.dealcards_written_here(xmin) AS written_here
  FROM @extschema@.fair_seed
 WHERE desk_id OPERATOR(pg_catalog.=) $1 AND round OPERATOR(pg_catalog.=) $2
   AND revealed_at IS NULL
